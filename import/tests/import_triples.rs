//! Triples import (`subject \t relation \t object`) on real files and real RocksDB databases:
//! each label rule, bad lines, atomicity, idempotence and format detection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_import::triples::{RelationLabels, TriplesOptions};
use cairn_import::{import_files, ImportError, ImportOptions};
use cairn_store::{Graph, GraphOptions, GraphRead};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

mod common;
use common::canonical;

/// A small football graph in the WC2014 style: every relation has an `_inverse`, and shirt
/// numbers and ages share the value `23`.
const FOOTBALL: &str = "\
Alan_PULIDO\tplays_in_club\tTigres_UANL
Tigres_UANL\tplays_in_club_inverse\tAlan_PULIDO
Alan_PULIDO\tplays_for_country\tMexico
Mexico\tplays_for_country_inverse\tAlan_PULIDO
Alan_PULIDO\twears_number\t11
Alan_PULIDO\tis_aged\t23
Javier_AQUINO\tplays_in_club\tVillarreal
Villarreal\tplays_in_club_inverse\tJavier_AQUINO
Javier_AQUINO\tplays_for_country\tMexico
Mexico\tplays_for_country_inverse\tJavier_AQUINO
Javier_AQUINO\twears_number\t23
Javier_AQUINO\tis_aged\t24
Tigres_UANL\tis_in_country\tMexico
Villarreal\tis_in_country\tSpain
Diego_COSTA\tplays_in_club\tAtletico_Madrid
Atletico_Madrid\tplays_in_club_inverse\tDiego_COSTA
Diego_COSTA\tplays_for_country\tSpain
Spain\tplays_for_country_inverse\tDiego_COSTA
Diego_COSTA\twears_number\t19
Diego_COSTA\tis_aged\t25
Atletico_Madrid\tis_in_country\tSpain
";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    path
}

fn open(dir: &Path) -> Graph {
    Graph::open(dir, GraphOptions::default()).unwrap()
}

fn with(triples: TriplesOptions) -> ImportOptions {
    ImportOptions {
        triples,
        ..Default::default()
    }
}

/// Label of every node, by key.
fn labels_of(g: &Graph) -> BTreeMap<String, String> {
    let cat = g.catalog();
    let mut out = BTreeMap::new();
    for (label, name) in cat.labels() {
        for id in g.label_nodes(label).unwrap() {
            let rec = g.node(id).unwrap().unwrap();
            out.insert(rec.key.clone(), name.to_owned());
        }
    }
    out
}

#[test]
fn one_label_for_all_by_default_with_readable_names() {
    let dir = tempfile::tempdir().unwrap();
    let kb = write(dir.path(), "kb.tsv", FOOTBALL);
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let s = import_files(&g, &[&kb], &ImportOptions::default()).unwrap();
    assert_eq!(s.nodes_created, 13);
    assert_eq!(s.edges_created, 21);
    assert_eq!(s.labels, vec![("Entity".to_owned(), 13)]);
    let labels = labels_of(&g);
    assert!(labels.values().all(|l| l == "Entity"), "{labels:?}");
    let lines = canonical(&g);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("N Entity:Alan_PULIDO {name=\"Alan PULIDO\"}")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "E Entity:Tigres_UANL -is_in_country-> Entity:Mexico EdgeProps { weight: None, props: [] }"),
        "{lines:?}"
    );

    let named = tempfile::tempdir().unwrap();
    let g = open(named.path());
    let options = with(TriplesOptions {
        label: Some("Thing".into()),
        ..Default::default()
    });
    import_files(&g, &[&kb], &options).unwrap();
    assert!(labels_of(&g).values().all(|l| l == "Thing"));
}

#[test]
fn inferred_labels_come_from_the_relation_names() {
    let dir = tempfile::tempdir().unwrap();
    let kb = write(dir.path(), "kb.triples", FOOTBALL);
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let options = with(TriplesOptions {
        infer: true,
        ..Default::default()
    });
    let s = import_files(&g, &[&kb], &options).unwrap();
    let labels = labels_of(&g);
    assert_eq!(labels["Tigres_UANL"], "Club");
    assert_eq!(labels["Villarreal"], "Club");
    assert_eq!(labels["Mexico"], "Country");
    assert_eq!(labels["Spain"], "Country", "is_in_country joins Country");
    assert_eq!(labels["11"], "Number");
    assert_eq!(labels["24"], "Aged");
    // Players are named by no relation: they keep the default label.
    assert_eq!(labels["Alan_PULIDO"], "Entity");
    assert_eq!(s.nodes_created, 13, "one node per entity string");
    let names: Vec<&str> = s.labels.iter().map(|(l, _)| l.as_str()).collect();
    let mut distinct = names.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
}

#[test]
fn freebase_style_relations_name_the_subject_type() {
    let dir = tempfile::tempdir().unwrap();
    let kb = write(
        dir.path(),
        "kb.tsv",
        "the_wall\t__music__album__artist\tpink_floyd\n\
         animals\t__music__album__artist\tpink_floyd\n\
         pink_floyd\t__music__artist__genre\tprogressive_rock\n\
         roger_waters\t__people__person__gender\tmale\n",
    );
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let options = with(TriplesOptions {
        infer: true,
        ..Default::default()
    });
    import_files(&g, &[&kb], &options).unwrap();
    let labels = labels_of(&g);
    assert_eq!(labels["the_wall"], "Album");
    assert_eq!(labels["pink_floyd"], "Artist");
    assert_eq!(labels["progressive_rock"], "Genre");
    assert_eq!(labels["roger_waters"], "Person");
    assert_eq!(labels["male"], "Gender");
}

#[test]
fn explicit_relation_labels_win_and_combine() {
    let dir = tempfile::tempdir().unwrap();
    let kb = write(dir.path(), "kb.tsv", FOOTBALL);
    let given = |s: &str| s.parse::<RelationLabels>().unwrap();
    // With inference: explicit wins for its roles, inference labels the rest.
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let options = with(TriplesOptions {
        infer: true,
        relation_labels: vec![given("plays_in_club=Player:Team"), given("is_aged=:Age")],
        ..Default::default()
    });
    import_files(&g, &[&kb], &options).unwrap();
    let labels = labels_of(&g);
    assert_eq!(labels["Alan_PULIDO"], "Player");
    assert_eq!(labels["Tigres_UANL"], "Team");
    assert_eq!(labels["24"], "Age");
    assert_eq!(labels["Mexico"], "Country");
    // With one label: the rest get it.
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let options = with(TriplesOptions {
        label: Some("Thing".into()),
        relation_labels: vec![given("plays_in_club=Player:Team")],
        ..Default::default()
    });
    import_files(&g, &[&kb], &options).unwrap();
    let labels = labels_of(&g);
    assert_eq!(labels["Diego_COSTA"], "Player");
    assert_eq!(labels["Atletico_Madrid"], "Team");
    assert_eq!(labels["Spain"], "Thing");
    // Bad specifications are refused with the reason.
    assert!("plays_in_club".parse::<RelationLabels>().is_err());
    assert!("plays_in_club=:".parse::<RelationLabels>().is_err());
    assert!("=A:B".parse::<RelationLabels>().is_err());
}

#[test]
fn bad_lines_name_file_and_line_and_leave_the_database_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.tsv", FOOTBALL);
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    import_files(&g, &[&good], &ImportOptions::default()).unwrap();
    let before = canonical(&g);
    for (text, reason) in [
        (
            "a\tr\tb\nonly\ttwo\n",
            "bad.tsv:2: expected 3 tab-separated fields (subject, relation, object), found 2",
        ),
        (
            "a\tr\tb\nc\tr\td\te\n",
            "bad.tsv:2: expected 3 tab-separated fields",
        ),
        ("a\t\tb\n", "bad.tsv:1: the relation field is empty"),
        ("\tr\tb\n", "bad.tsv:1: the subject field is empty"),
        (
            "a\tr\u{7}x\tb\n",
            "bad.tsv:1: relation `r\\u{7}x` contains the control character U+0007",
        ),
    ] {
        let bad = write(dir.path(), "bad.tsv", text);
        let more = write(dir.path(), "more.tsv", "x\tnew_relation\ty\n");
        let err = import_files(&g, &[&more, &bad], &ImportOptions::default()).unwrap_err();
        assert!(matches!(err, ImportError::BadLines { .. }), "{err}");
        assert!(err.to_string().contains(reason), "{err}\nwanted {reason}");
        assert_eq!(canonical(&g), before, "nothing applied after: {reason}");
    }
    // --max-errors: the bad line is skipped and reported, the rest imported.
    let bad = write(dir.path(), "bad.tsv", "x\tr\ty\nbroken line\n");
    let options = ImportOptions {
        max_errors: 1,
        ..Default::default()
    };
    let s = import_files(&g, &[&bad], &options).unwrap();
    assert_eq!(s.skipped.len(), 1);
    assert_eq!(s.skipped[0].line, 2);
    assert_eq!(s.edges_created, 1);
}

#[test]
fn importing_the_same_triples_twice_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Gzipped, to cover transparent decompression too.
    let kb = dir.path().join("kb.tsv.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&kb).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(FOOTBALL.as_bytes()).unwrap();
    gz.finish().unwrap();
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let options = with(TriplesOptions {
        infer: true,
        ..Default::default()
    });
    let first = import_files(&g, &[&kb], &options).unwrap();
    assert_eq!(first.nodes_created, 13);
    let after_first = canonical(&g);
    let second = import_files(&g, &[&kb], &options).unwrap();
    assert_eq!(
        (
            second.nodes_created,
            second.nodes_updated,
            second.edges_created
        ),
        (0, 0, 0)
    );
    assert_eq!(second.nodes_unchanged, 13);
    assert_eq!(second.edges_unchanged, 21);
    assert_eq!(canonical(&g), after_first);
}

#[test]
fn a_txt_file_is_not_guessed_and_formats_do_not_mix() {
    let dir = tempfile::tempdir().unwrap();
    let txt = write(dir.path(), "kb.txt", FOOTBALL);
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let err = import_files(&g, &[&txt], &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, ImportError::TxtNotGuessed { .. }), "{err}");
    assert!(err.to_string().contains("--format triples"), "{err}");
    assert_eq!(g.catalog().labels().count(), 0);
    let forced = with(TriplesOptions {
        forced: true,
        ..Default::default()
    });
    let s = import_files(&g, &[&txt], &forced).unwrap();
    assert_eq!(s.nodes_created, 13);
    let jsonl = write(
        dir.path(),
        "n.jsonl",
        r#"{"type":"node","label":"A","key":"a"}"#,
    );
    let tsv = write(dir.path(), "kb.tsv", FOOTBALL);
    // (A JSON Lines file beside triples is read for schema records: see below.)
    let csv = write(dir.path(), "n.csv", "key:ID(A)\na\n");
    let err = import_files(&g, &[&tsv, &csv], &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, ImportError::MixedFormats { .. }), "{err}");
    // Label rules are for triples: given with a dump they are refused, not ignored.
    let infer = with(TriplesOptions {
        infer: true,
        ..Default::default()
    });
    let err = import_files(&g, &[&jsonl], &infer).unwrap_err();
    assert!(
        matches!(err, ImportError::LabelsWithoutTriples { .. }),
        "{err}"
    );
    assert!(g.catalog().label_id("A").is_none());
}

#[test]
fn a_jsonl_file_beside_triples_carries_schema_records() {
    use cairn_store::Element;
    let files = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let kb = write(files.path(), "kb.tsv", FOOTBALL);
    let schema = write(
        files.path(),
        "schema.jsonl",
        r#"{"type":"schema","kind":"relation","name":"plays_in_club","aliases":["team"]}"#,
    );
    import_files(&g, &[&kb, &schema], &ImportOptions::default()).unwrap();
    let c = g.catalog();
    let a = c
        .annotation(Element::Relation(c.relation_id("plays_in_club").unwrap()))
        .unwrap();
    assert_eq!(a.aliases, ["team"]);
    // Anything but schema records there is a bad line, and nothing is imported.
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let bad = write(
        files.path(),
        "nodes.jsonl",
        r#"{"type":"node","label":"Club","key":"c1"}"#,
    );
    let err = import_files(&g, &[&kb, &bad], &ImportOptions::default()).unwrap_err();
    let want = format!(
        "{}:1: beside triples, a JSON Lines file holds only schema and embedder records",
        bad.display()
    );
    assert!(err.to_string().contains(&want), "{err}");
    assert!(g.catalog().relation_id("plays_in_club").is_none());
}

/// A small RDF graph: labels, a typed literal, a blank node, a label-less IRI.
const RDF: &str = r#"# people and where they work
<http://ex.org/people/Ada_Lovelace> <http://www.w3.org/2000/01/rdf-schema#label> "Ada Lovelace"@en .
<http://ex.org/people/Ada_Lovelace> <http://www.w3.org/2000/01/rdf-schema#label> "Ada"@fr .
<http://ex.org/people/Ada_Lovelace> <http://ex.org/onto#born> "1815"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/people/Ada_Lovelace> <http://ex.org/onto#worksWith> <http://ex.org/people/Charles_Babbage> .
<http://ex.org/people/Charles_Babbage> <http://ex.org/onto#built> _:engine .
_:engine <http://xmlns.com/foaf/0.1/name> "Difference Engine" .

<http://ex.org/people/Charles_Babbage> <http://ex.org/onto#height> "1.75"^^<http://www.w3.org/2001/XMLSchema#double> .
"#;

#[test]
fn ntriples_iris_are_keys_literals_properties_and_labels_name_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let kb = write(dir.path(), "people.nt", RDF);
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    let s = import_files(&g, &[&kb], &ImportOptions::default()).unwrap();
    assert_eq!((s.nodes_created, s.edges_created), (3, 2));
    let lines = canonical(&g);
    let node = |key: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("N Entity:{key} ")))
            .unwrap_or_else(|| panic!("no node {key} in {lines:#?}"))
            .clone()
    };
    // The first label wins; the integer literal is an integer.
    let ada = node("http://ex.org/people/Ada_Lovelace");
    assert!(ada.contains("name=\"Ada Lovelace\""), "{ada}");
    assert!(ada.contains("born=1815"), "{ada}");
    // No label: the IRI's local name, underscores as spaces.
    let charles = node("http://ex.org/people/Charles_Babbage");
    assert!(charles.contains("name=\"Charles Babbage\""), "{charles}");
    assert!(charles.contains("height=1.75"), "{charles}");
    let engine = node("_:engine");
    assert!(engine.contains("name=\"Difference Engine\""), "{engine}");
    let cat = g.catalog();
    let mut rels: Vec<&str> = cat.relations().map(|(_, r)| r.name.as_str()).collect();
    rels.sort();
    assert_eq!(rels, ["built", "worksWith"]);

    // Idempotent: a second import changes nothing.
    let before = canonical(&g);
    let again = import_files(&g, &[&kb], &ImportOptions::default()).unwrap();
    assert_eq!((again.nodes_created, again.edges_created), (0, 0));
    assert_eq!(canonical(&g), before);

    // Inferred labels work on N-Triples as on TSV triples.
    let db2 = tempfile::tempdir().unwrap();
    let g2 = open(db2.path());
    let options = with(TriplesOptions {
        infer: true,
        ..Default::default()
    });
    import_files(&g2, &[&kb], &options).unwrap();
    assert!(g2.catalog().labels().count() > 1);
}

#[test]
fn a_bad_ntriples_line_names_file_line_and_column_and_applies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.nt", RDF);
    let db = tempfile::tempdir().unwrap();
    let g = open(db.path());
    import_files(&g, &[&good], &ImportOptions::default()).unwrap();
    let before = canonical(&g);
    for (text, reason) in [
        (
            "<http://ex.org/a> <http://ex.org/r> <http://ex.org/b> .\n<http://ex.org/a> <http://ex.org/r> .\n",
            "bad.nt:2: column ",
        ),
        (
            "<http://ex.org/a> <http://ex.org/r> \"unterminated .\n",
            "bad.nt:1: column ",
        ),
        (
            "<http://ex.org/a> <http://ex.org/r> <b> <c> .\n",
            "bad.nt:1: ",
        ),
    ] {
        let bad = write(dir.path(), "bad.nt", text);
        let more = write(dir.path(), "more.nt", "<http://ex.org/x> <http://ex.org/new> <http://ex.org/y> .\n");
        let err = import_files(&g, &[&more, &bad], &ImportOptions::default()).unwrap_err();
        assert!(matches!(err, ImportError::BadLines { .. }), "{err}");
        assert!(err.to_string().contains(reason), "{err}\nwanted {reason}");
        assert_eq!(canonical(&g), before, "nothing applied after: {text}");
    }
}
