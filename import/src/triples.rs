//! Triples import: `subject \t relation \t object` lines (PathQuestion, WC2014, Freebase and
//! Wikidata extracts), with a label for every entity chosen by one of three documented rules
//! (`docs/IMPORT.md`, "Triples").
//!
//! Unlike a JSON Lines or CSV dump, a triples file names no labels, and an inferred label depends
//! on every line of every file. So all files are read first (a bad line aborts before the
//! database is touched, as for the other formats), labels are decided, and only then are the
//! nodes and edges staged and applied through the same bulk path.

use super::apply::apply;
use super::dump::{DumpNode, DumpRecord};
use super::read::{open, EdgeRef, Record};
use super::stage::{Names, Staging};
use super::{report, ImportError, ImportOptions, ImportSummary, LineError, Phase};
use cairn_storage_format::Value;
use cairn_store::Graph;
use std::path::Path;
use std::time::Instant;

/// The label given to every entity when no other rule names one.
pub const DEFAULT_LABEL: &str = "Entity";

/// How a triples import labels its entities; see `docs/IMPORT.md`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TriplesOptions {
    /// Read every file as triples whatever its name (`--format triples`); without it only
    /// `.tsv` and `.triples` files are, and a `.txt` file is refused rather than guessed.
    pub forced: bool,
    /// The label of entities no other rule labels ([`DEFAULT_LABEL`] when `None`).
    pub label: Option<String>,
    /// Infer labels from the roles entities play in relations.
    pub infer: bool,
    /// Labels given per relation; they win over the other two rules.
    pub relation_labels: Vec<RelationLabels>,
}

/// `REL=SUBJECT_LABEL:OBJECT_LABEL`: the subjects and objects of `relation` get these labels
/// (an empty side leaves that role to the other rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelationLabels {
    pub relation: String,
    pub subject: Option<String>,
    pub object: Option<String>,
}

impl std::str::FromStr for RelationLabels {
    type Err = String;

    /// Parses `REL=SUBJECT:OBJECT`. The last `=` splits, so a relation name may contain one.
    fn from_str(s: &str) -> Result<Self, String> {
        let (relation, labels) = s
            .rsplit_once('=')
            .ok_or_else(|| format!("`{s}`: expected REL=SUBJECT_LABEL:OBJECT_LABEL"))?;
        let (subject, object) = labels
            .split_once(':')
            .ok_or_else(|| format!("`{s}`: expected REL=SUBJECT_LABEL:OBJECT_LABEL"))?;
        if relation.is_empty() {
            return Err(format!("`{s}`: the relation name is empty"));
        }
        let side = |l: &str| (!l.trim().is_empty()).then(|| l.trim().to_owned());
        let (subject, object) = (side(subject), side(object));
        if subject.is_none() && object.is_none() {
            return Err(format!(
                "`{s}`: give a subject label, an object label or both"
            ));
        }
        Ok(RelationLabels {
            relation: relation.to_owned(),
            subject,
            object,
        })
    }
}

/// One triple as read: entity and relation ids, and where it came from.
struct Triple {
    subject: u32,
    relation: u32,
    object: u32,
    file: u32,
    line: u64,
}

/// A literal of an N-Triples line: a property of its subject.
struct Literal {
    subject: u32,
    key: String,
    value: Value,
    file: u32,
    line: u64,
}

/// Everything read from the triples files.
#[derive(Default)]
struct Read {
    entities: Names,
    relations: Names,
    triples: Vec<Triple>,
    literals: Vec<Literal>,
    /// Entities named by an N-Triples line (keyed by IRI): named by their local name.
    iri: Vec<bool>,
    errors: Vec<LineError>,
}

impl Read {
    /// The id of an entity, remembering whether an N-Triples line named it.
    fn entity(&mut self, key: &str, iri: bool) -> u32 {
        let id = self.entities.id(key);
        if self.iri.len() <= id as usize {
            self.iri.resize(id as usize + 1, false);
        }
        self.iri[id as usize] |= iri;
        id
    }
}

/// Imports triples files into `graph`: every entity a node keyed by its string with a readable
/// `name`, every triple an edge named by its relation as given.
/// A JSON Lines file among triples files: it holds schema records (descriptions, aliases).
fn is_schema_file(path: &Path) -> bool {
    matches!(
        crate::read::DumpFormat::of(path),
        Ok(crate::read::DumpFormat::JsonLines)
    )
}

/// Reads a JSON Lines file of schema records into `into`; any other record is a bad line.
fn read_schema_file(
    path: &Path,
    file: u32,
    max_errors: usize,
    into: &mut Staging,
    read: &mut Read,
) -> Result<(), ImportError> {
    let mut errors = Vec::new();
    crate::read::read_file(
        path,
        &mut |record, line| match record {
            Record::Schema(s) => into.add(Record::Schema(s), file, line),
            Record::Embedder(e) => into.add(Record::Embedder(e), file, line),
            _ => errors.push(LineError::new(
                path,
                line,
                "beside triples, a JSON Lines file holds only schema and embedder records".into(),
            )),
        },
        &mut |e| {
            read.errors.push(e);
            read.errors.len() <= max_errors
        },
        &mut |_| {},
    )?;
    read.errors.extend(errors);
    Ok(())
}

pub fn import_triples(
    graph: &Graph,
    files: &[&Path],
    options: &ImportOptions,
) -> Result<ImportSummary, ImportError> {
    let start = Instant::now();
    let total: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    report(options, Phase::Read, 0, Some(total));
    let mut read = Read::default();
    let mut done = 0u64;
    let mut schema = Staging::default();
    for (i, path) in files.iter().enumerate() {
        if is_schema_file(path) {
            read_schema_file(path, i as u32, options.max_errors, &mut schema, &mut read)?;
            continue;
        }
        if !read_file(path, i as u32, options.max_errors, &mut read, &mut |n| {
            done += n;
            report(options, Phase::Read, done, Some(total));
        })? {
            break;
        }
    }
    let mut errors = std::mem::take(&mut read.errors);
    if errors.len() > options.max_errors {
        errors.truncate(options.max_errors + 1);
        return Err(ImportError::BadLines {
            errors,
            max: options.max_errors,
        });
    }
    let labels = assign_labels(&read, &options.triples);
    // Each entity's first line (file, line): a node's origin, so an error about it points there.
    let mut origins: Vec<Option<(u32, u64)>> = vec![None; read.entities.names.len()];
    let mut staging = Staging::default();
    staging.files = files.iter().map(|f| f.to_path_buf()).collect();
    staging.schema = schema.schema;
    // Literals by subject: the first value of a key wins (a second `rdfs:label` in another
    // language does not replace the first).
    let mut props: Vec<Vec<(String, Value)>> = vec![Vec::new(); read.entities.names.len()];
    for l in std::mem::take(&mut read.literals) {
        let mine = &mut props[l.subject as usize];
        if !mine.iter().any(|(k, _)| *k == l.key) {
            mine.push((l.key, l.value));
        }
        let o = &mut origins[l.subject as usize];
        *o = Some(o.map_or((l.file, l.line), |p| p.min((l.file, l.line))));
    }
    for t in &read.triples {
        for e in [t.subject, t.object] {
            let o = &mut origins[e as usize];
            *o = Some(o.map_or((t.file, t.line), |p| p.min((t.file, t.line))));
        }
    }
    let mut seen = vec![false; read.entities.names.len()];
    let mut origins: Vec<(u32, (u32, u64))> = origins
        .into_iter()
        .enumerate()
        .filter_map(|(e, o)| o.map(|o| (e as u32, o)))
        .collect();
    origins.sort_unstable_by_key(|(e, (f, l))| (*f, *l, *e));
    for (e, (file, line)) in origins {
        seen[e as usize] = true;
        let key = &read.entities.names[e as usize];
        let mut own = std::mem::take(&mut props[e as usize]);
        if !own.iter().any(|(k, _)| k == "name") {
            let iri = read.iri.get(e as usize).copied().unwrap_or(false);
            let name = if iri {
                readable(ntriples::local_name(key))
            } else {
                readable(key)
            };
            own.insert(0, ("name".to_owned(), Value::Str(name)));
        }
        staging.add_owned(
            DumpRecord::Node(DumpNode {
                label: labels.names[labels.of[e as usize] as usize].clone(),
                key: key.clone(),
                props: own,
                description: None,
                vector: None,
            }),
            file,
            line,
        );
    }
    for t in &read.triples {
        let label = |e: u32| labels.names[labels.of[e as usize] as usize].as_str();
        staging.add(
            Record::Edge(EdgeRef {
                rel: &read.relations.names[t.relation as usize],
                from_label: label(t.subject),
                from_key: &read.entities.names[t.subject as usize],
                to_label: label(t.object),
                to_key: &read.entities.names[t.object as usize],
                props: Vec::new(),
                weight: None,
            }),
            t.file,
            t.line,
        );
    }
    let mut counts = vec![0u64; labels.names.len()];
    for (e, seen) in seen.iter().enumerate() {
        if *seen {
            counts[labels.of[e] as usize] += 1;
        }
    }
    drop(read);
    let mut summary = apply(graph, staging, errors, options)?;
    summary.elapsed = start.elapsed();
    summary.labels = labels.names.into_iter().zip(counts).collect();
    summary
        .labels
        .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(summary)
}

/// A key as a name: underscores become spaces, case is kept.
fn readable(key: &str) -> String {
    key.replace('_', " ")
}

/// Reads one triples file into `read`. Returns false when more bad lines than `max_errors`
/// were seen (reading stops there).
fn read_file(
    path: &Path,
    file: u32,
    max_errors: usize,
    read: &mut Read,
    on_progress: &mut dyn FnMut(u64),
) -> Result<bool, ImportError> {
    let mut reader = open(path)?;
    let nt = path
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.to_ascii_lowercase())
        .is_some_and(|n| super::read::named_as_ntriples(n.strip_suffix(".gz").unwrap_or(&n)));
    let mut buf = Vec::new();
    let mut line = 0u64;
    let mut pending = 0u64;
    loop {
        buf.clear();
        let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut buf)
            .map_err(|e| crate::read::read_error(path, line + 1, e))?;
        if n == 0 {
            on_progress(pending);
            return Ok(true);
        }
        line += 1;
        pending += n as u64;
        if pending >= 1 << 20 {
            on_progress(std::mem::take(&mut pending));
        }
        let parsed = if nt {
            ntriples::parse_line(&buf)
        } else {
            parse_line(&buf).map(|t| {
                t.map(|[s, r, o]| ntriples::Statement::Edge([s.into(), r.into(), o.into()]))
            })
        };
        match parsed {
            Ok(None) => {}
            Ok(Some(ntriples::Statement::Edge([s, r, o]))) => {
                let triple = Triple {
                    subject: read.entity(&s, nt),
                    relation: read.relations.id(&r),
                    object: read.entity(&o, nt),
                    file,
                    line,
                };
                read.triples.push(triple);
            }
            Ok(Some(ntriples::Statement::Literal(s, key, value))) => {
                let subject = read.entity(&s, nt);
                read.literals.push(Literal {
                    subject,
                    key,
                    value,
                    file,
                    line,
                });
            }
            Err(reason) => {
                read.errors.push(LineError::new(path, line, reason));
                if read.errors.len() > max_errors {
                    return Ok(false);
                }
            }
        }
    }
}

/// The three fields of a line, `None` for a blank line. Fields are trimmed of surrounding
/// spaces; an empty field, a field count other than three, or a control character in the
/// relation name is an error.
fn parse_line(raw: &[u8]) -> Result<Option<[&str; 3]>, String> {
    let text = std::str::from_utf8(raw)
        .map_err(|e| format!("not valid UTF-8 (byte {} of the line)", e.valid_up_to() + 1))?;
    let text = text.trim_end_matches(['\n', '\r']);
    if text.trim().is_empty() {
        return Ok(None);
    }
    let fields: Vec<&str> = text.split('\t').map(str::trim).collect();
    let [s, r, o] = fields[..] else {
        return Err(format!(
            "expected 3 tab-separated fields (subject, relation, object), found {}",
            fields.len()
        ));
    };
    for (what, f) in [("subject", s), ("relation", r), ("object", o)] {
        if f.is_empty() {
            return Err(format!("the {what} field is empty"));
        }
    }
    crate::read::check_name("relation", r)?;
    Ok(Some([s, r, o]))
}

/// The label of every entity: `of[entity]` indexes `names`.
struct Labels {
    names: Vec<String>,
    of: Vec<u32>,
}

/// A role class: the subjects (`role` 0) or objects (1) of one relation.
fn class(relation: u32, role: u32) -> u32 {
    relation * 2 + role
}

/// Decides every entity's label: an explicit `--relation-label` for a role it plays wins (the one
/// it plays most often); else, with `infer`, the label of its strongest inferred class; else the
/// default label.
fn assign_labels(read: &Read, options: &TriplesOptions) -> Labels {
    let default = options
        .label
        .clone()
        .unwrap_or_else(|| DEFAULT_LABEL.to_owned());
    let classes = read.relations.names.len() * 2;
    // (entity, class) → how many triples show the entity in that role, sorted by entity.
    let mut roles: Vec<(u32, u32)> = read
        .triples
        .iter()
        .flat_map(|t| {
            [
                (t.subject, class(t.relation, 0)),
                (t.object, class(t.relation, 1)),
            ]
        })
        .collect();
    roles.sort_unstable();
    let mut counted: Vec<(u32, u32, u32)> = Vec::new();
    for (e, c) in roles {
        match counted.last_mut() {
            Some((le, lc, n)) if *le == e && *lc == c => *n += 1,
            _ => counted.push((e, c, 1)),
        }
    }
    let mut explicit: Vec<Option<&str>> = vec![None; classes];
    for given in &options.relation_labels {
        if let Some(r) = read.relations.get(&given.relation) {
            explicit[class(r, 0) as usize] = given.subject.as_deref();
            explicit[class(r, 1) as usize] = given.object.as_deref();
        }
    }
    let inferred = options
        .infer
        .then(|| infer::classes(&read.relations.names, &counted, classes));

    let mut names = Names::default();
    // An entity in no triple (only literals of an N-Triples file) gets the default label.
    let mut of = vec![u32::MAX; read.entities.names.len()];
    for mine in counted.chunk_by(|a, b| a.0 == b.0) {
        let e = mine[0].0;
        let label = strongest(
            mine.iter()
                .filter_map(|&(_, c, n)| explicit[c as usize].map(|l| (l.to_owned(), n))),
        )
        .or_else(|| {
            let inferred = inferred.as_ref()?;
            strongest(
                mine.iter()
                    .filter_map(|&(_, c, n)| Some((inferred[c as usize].clone()?, n))),
            )
        })
        .unwrap_or_else(|| default.clone());
        of[e as usize] = names.id(&label);
    }
    if of.contains(&u32::MAX) {
        let d = names.id(&default);
        of.iter_mut()
            .filter(|l| **l == u32::MAX)
            .for_each(|l| *l = d);
    }
    Labels {
        names: names.names,
        of,
    }
}

/// The label with the most evidence; ties go to the name that sorts first (deterministic).
fn strongest(evidence: impl Iterator<Item = (String, u32)>) -> Option<String> {
    let mut sums: Vec<(String, u32)> = Vec::new();
    for (label, n) in evidence {
        match sums.iter_mut().find(|(l, _)| *l == label) {
            Some((_, m)) => *m += n,
            None => sums.push((label, n)),
        }
    }
    sums.into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(l, _)| l)
}

mod infer;
pub(crate) mod ntriples;
