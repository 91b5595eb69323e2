//! The tantivy index itself: schema, analyzer, the document of a node, and the commit stamp
//! (the store's commit counter the index reflects, kept as tantivy's commit payload so that the
//! two are written by one atomic rename of `meta.json`). Ranking is in `rank.rs`.

use crate::stats::StatsCache;
use crate::TextError;
use cairn_storage_format::{LabelId, NodeId, NodeRecord, Value};
use cairn_store::describe::display_name;
use cairn_store::Catalog;
use parking_lot::Mutex;
use std::collections::BTreeSet;
use std::path::Path;
use tantivy::directory::{Directory, RamDirectory};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, StopWordFilter,
    TextAnalyzer,
};
use tantivy::{doc, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// The analyzer's name in the index's schema (registered on every open: tantivy keeps the
/// name, not the analyzer).
const ANALYZER: &str = "cairn_words";
/// Tokens longer than this (bytes) are dropped: no word of a name is that long.
const MAX_TOKEN: usize = 40;
/// A string property longer than this (bytes) is not indexed: the index is for names and
/// short labels, not documents.
pub const PROPERTY_MAX_BYTES: usize = 256;
/// The index writer's memory for one-off updates; bulk builds use more.
pub(crate) const SMALL_WRITER_BYTES: usize = 16 << 20;

/// The schema's fields.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fields {
    pub(crate) node: Field,
    pub(crate) label: Field,
    /// The display name alone (ranked above the rest, `rank::NAME_BOOST`).
    pub(crate) name: Field,
    /// The rest of what a node is found by: description, short string properties. Not the
    /// name again: with the two fields' words apart, a query word found in names has one
    /// postings list to walk, not two (most nodes have nothing but a name), and a build
    /// writes each word of a name once.
    pub(crate) rest: Field,
    /// Token counts of `name` and `rest` per document (fast fields), so that the ranking's
    /// length statistics count live documents exactly (`rank.rs`).
    pub(crate) name_len: Field,
    pub(crate) rest_len: Field,
}

impl Fields {
    /// The searched fields with their token-count fields.
    pub(crate) fn searched(&self) -> [(Field, &'static str); 2] {
        [(self.name, NAME_LEN), (self.rest, REST_LEN)]
    }
}

const NAME_LEN: &str = "name_len";
const REST_LEN: &str = "rest_len";

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let node = b.add_u64_field("node", NumericOptions::default().set_indexed().set_fast());
    let label = b.add_u64_field("label", NumericOptions::default().set_indexed());
    // Frequencies for BM25; no positions (no phrase queries), no stored text (the store has it).
    let words = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let name = b.add_text_field("name", words.clone());
    let rest = b.add_text_field("rest", words);
    let name_len = b.add_u64_field(NAME_LEN, NumericOptions::default().set_fast());
    let rest_len = b.add_u64_field(REST_LEN, NumericOptions::default().set_fast());
    (
        b.build(),
        Fields {
            node,
            label,
            name,
            rest,
            name_len,
            rest_len,
        },
    )
}

/// Words as the index sees them: split at anything but letters and digits, at most
/// [`MAX_TOKEN`] bytes, lower-cased, accents folded to ASCII.
pub(crate) fn analyzer() -> TextAnalyzer {
    analyzer_with(None)
}

/// The one filter chain of the index's words, and of a query's with `stop` words dropped
/// (after lower-casing, before folding, as tantivy's list is written).
fn analyzer_with(stop: Option<StopWordFilter>) -> TextAnalyzer {
    let builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .dynamic();
    match stop {
        Some(stop) => builder.filter_dynamic(stop),
        None => builder,
    }
    .filter_dynamic(AsciiFoldingFilter)
    .build()
}

/// What a node is found by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeText {
    /// Its display name.
    pub name: String,
    /// The rest: its stored description when it has one, and its other string properties of
    /// at most [`PROPERTY_MAX_BYTES`], one a line (each unless it repeats the name).
    pub rest: String,
}

/// The text a node is found by.
pub fn node_text(record: &NodeRecord, catalog: &Catalog) -> NodeText {
    let name = display_name(record, catalog);
    let mut rest = String::new();
    let mut add = |s: &str| {
        if !rest.is_empty() {
            rest.push('\n');
        }
        rest.push_str(s);
    };
    if let Some(d) = record.description.as_deref().filter(|d| *d != name) {
        add(d);
    }
    for (_, v) in &record.props {
        if let Value::Str(s) = v {
            if s.len() <= PROPERTY_MAX_BYTES && *s != name {
                add(s);
            }
        }
    }
    NodeText { name, rest }
}

/// An open tantivy index with its reader.
pub(crate) struct Tantivy {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    /// Live-document statistics per segment (`rank.rs`).
    pub(crate) stats: Mutex<StatsCache>,
}

impl std::fmt::Debug for Tantivy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tantivy")
            .field("docs", &self.reader.searcher().num_docs())
            .finish()
    }
}

impl Tantivy {
    /// Opens the index in `dir`; `None` when there is none.
    pub(crate) fn open(dir: &Path) -> Result<Option<Tantivy>, TextError> {
        if !dir.join("meta.json").exists() {
            return Ok(None);
        }
        guarded(dir, || {
            let index = Index::open_in_dir(dir).map_err(TextError::index(dir))?;
            check_files(&index, dir)?;
            Self::checked(index, dir).map(Some)
        })
    }

    /// A copy of the index in `dir` in memory, for a read-only handle that must apply changes
    /// without writing the writer's directory: the files its last commit names (some of a
    /// segment's possible files do not exist), read after `meta.json` and kept only if
    /// `meta.json` is unchanged afterwards (the writer removes a file only once a later commit
    /// no longer names it). `None` when there is no index, or the writer kept committing.
    pub(crate) fn open_copy(dir: &Path) -> Result<Option<Tantivy>, TextError> {
        let io = |source| TextError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let read = |name: &Path| match std::fs::read(dir.join(name)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(e)),
        };
        for _ in 0..3 {
            let Some(disk) = Self::open(dir)? else {
                return Ok(None);
            };
            let Some(meta) = read(Path::new("meta.json"))? else {
                return Ok(None);
            };
            let metas = disk.index.load_metas().map_err(TextError::index(dir))?;
            let ram = RamDirectory::create();
            for segment in &metas.segments {
                for file in segment.list_files() {
                    if let Some(bytes) = read(&file)? {
                        ram.atomic_write(&file, &bytes).map_err(io)?;
                    }
                }
            }
            if read(Path::new("meta.json"))?.as_ref() != Some(&meta) {
                continue;
            }
            ram.atomic_write(Path::new("meta.json"), &meta)
                .map_err(io)?;
            return guarded(dir, || {
                let index = Index::open(ram).map_err(TextError::index(dir))?;
                check_files(&index, dir)?;
                Self::checked(index, dir).map(Some)
            });
        }
        Ok(None)
    }

    fn checked(index: Index, dir: &Path) -> Result<Tantivy, TextError> {
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(TextError::Schema(dir.to_path_buf()));
        }
        Self::wrap(index, fields, dir)
    }

    /// Creates an empty index in `dir` (which must hold no index) or in memory (`None`).
    pub(crate) fn create(dir: Option<&Path>) -> Result<Tantivy, TextError> {
        let (schema, fields) = schema();
        let shown = dir.unwrap_or(Path::new("<memory>"));
        let index = match dir {
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|source| TextError::Io {
                    path: d.to_path_buf(),
                    source,
                })?;
                Index::create_in_dir(d, schema).map_err(TextError::index(d))?
            }
            None => Index::create_in_ram(schema),
        };
        Self::wrap(index, fields, shown)
    }

    fn wrap(index: Index, fields: Fields, dir: &Path) -> Result<Tantivy, TextError> {
        index.tokenizers().register(ANALYZER, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(TextError::index(dir))?;
        Ok(Tantivy {
            index,
            reader,
            fields,
            stats: Mutex::new(StatsCache::default()),
        })
    }

    /// The store commit counter of the last commit (`None`: never committed with one).
    pub(crate) fn stamp(&self) -> Result<Option<u64>, TextError> {
        let metas = self
            .index
            .load_metas()
            .map_err(TextError::index(Path::new("<text index>")))?;
        Ok(metas.payload.as_deref().and_then(|p| p.parse().ok()))
    }

    ///
    /// Files a killed writer left behind (written, never named by a commit) are removed first:
    /// a new writer would otherwise try to create the same delete file for the same segment
    /// and fail with "file already exists".
    pub(crate) fn writer(&self, threads: usize, bytes: usize) -> Result<IndexWriter, TextError> {
        let at = Path::new("<text index writer>");
        let w = self
            .index
            .writer_with_num_threads(threads.max(1), bytes.max(threads * SMALL_WRITER_BYTES))
            .map_err(TextError::index(at))?;
        w.garbage_collect_files()
            .wait()
            .map_err(TextError::index(at))?;
        Ok(w)
    }

    /// The document of a node.
    pub(crate) fn document(&self, id: NodeId, label: LabelId, text: &NodeText) -> TantivyDocument {
        let f = self.fields;
        doc!(
            f.node => id.0,
            f.label => u64::from(label.0),
            f.name => text.name.as_str(),
            f.rest => text.rest.as_str(),
            f.name_len => token_count(&text.name),
            f.rest_len => token_count(&text.rest),
        )
    }

    pub(crate) fn node_term(&self, id: NodeId) -> Term {
        Term::from_field_u64(self.fields.node, id.0)
    }

    /// Live documents.
    pub(crate) fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }
}

/// The tokens the analyzer makes of `text` (what tantivy counts for a field's length), counted
/// without making them: runs of letters and digits (the tokenizer's split) shorter than
/// [`MAX_TOKEN`] bytes (the long-token filter's rule, applied before lower-casing); lower-casing
/// and folding map a token to one token. Running the analyzer a second time per document for
/// this cost a bulk build's reading thread a fifth of its time.
fn token_count(text: &str) -> u64 {
    let mut n = 0;
    let mut run = 0;
    for c in text.chars() {
        if c.is_alphanumeric() {
            run += c.len_utf8();
        } else {
            n += u64::from(run > 0 && run < MAX_TOKEN);
            run = 0;
        }
    }
    n + u64::from(run > 0 && run < MAX_TOKEN)
}

/// Checks the checksum of every file of the index's segments (tantivy's footers carry one, and
/// tantivy reads none on open). A damaged file can make tantivy ask for absurd memory (a length
/// read from it: an abort, not a panic, found by fuzzing), so it is refused before any is read.
/// Costs one pass over the files on the first search of a process (CRC32, gigabytes a second).
fn check_files(index: &Index, dir: &Path) -> Result<(), TextError> {
    let metas = index
        .searchable_segment_metas()
        .map_err(TextError::index(dir))?;
    for path in metas.iter().flat_map(|m| m.list_files()) {
        if !index.directory().exists(&path).unwrap_or(false) {
            continue; // a component this segment does not have; a missing one fails to open
        }
        match index.directory().validate_checksum(&path) {
            Ok(true) => {}
            Ok(false) => {
                return Err(TextError::Damaged {
                    path: dir.to_path_buf(),
                    reason: format!("the checksum of {} does not match", path.display()),
                })
            }
            Err(e) => {
                return Err(TextError::Damaged {
                    path: dir.to_path_buf(),
                    reason: format!("{}: {e}", path.display()),
                })
            }
        }
    }
    Ok(())
}

/// Runs `f`, a read of index files, turning a panic into [`TextError::Damaged`]. Tantivy
/// trusts its files: a segment file torn or overwritten (its checksum is not read on open) or a
/// `meta.json` that does not match its segments makes it panic (an overflow, a slice out of
/// range: found by fuzzing, docs/RELIABILITY.md). The index is derived data, so a damaged one is
/// rebuilt; the process must not die of it. (The panic message still reaches stderr through
/// the panic hook, before the warning that says the index is rebuilt.)
pub(crate) fn guarded<T>(
    path: &Path,
    f: impl FnOnce() -> Result<T, TextError>,
) -> Result<T, TextError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let reason = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "a panic".to_owned());
        Err(TextError::Damaged {
            path: path.to_path_buf(),
            reason,
        })
    })
}

/// The distinct words of a query, as the analyzer makes them, without English stop words
/// unless nothing else is left. The index keeps them (a title like "To be or not to be" must
/// stay findable), but a query's "the" or "of" matches nearly every description, and rank
/// fusion counts ranks, not scores: a stop-word-only match would rank first.
pub(crate) fn words(text: &str) -> Vec<String> {
    let all = tokens(analyzer(), text);
    let Some(stop) = StopWordFilter::new(Language::English) else {
        return all;
    };
    let content = tokens(analyzer_with(Some(stop)), text);
    if content.is_empty() {
        all
    } else {
        content
    }
}

fn tokens(mut a: TextAnalyzer, text: &str) -> Vec<String> {
    let mut stream = a.token_stream(text);
    let mut out = BTreeSet::new();
    while let Some(t) = stream.next() {
        out.insert(t.text.clone());
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::{analyzer, token_count, words};

    #[test]
    fn tokens_are_counted_as_the_analyzer_makes_them() {
        let long =
            "x".repeat(39) + " " + &"y".repeat(40) + " ñ" + &"é".repeat(19) + " " + &"é".repeat(20);
        for text in [
            "",
            "  ",
            "Graph neural networks",
            "Café, CAFÉ; ﬁve Straße İstanbul",
            "a\u{301}b ß-ẞ x1y2 ٣٤٥ 東京 データ",
            "e-mail: a.b@c.d (2024)\n\ttabs",
            &long,
        ] {
            let mut a = analyzer();
            let mut stream = a.token_stream(text);
            let mut made = 0;
            while stream.advance() {
                made += 1;
            }
            assert_eq!(token_count(text), made, "{text:?}");
        }
    }

    #[test]
    fn a_query_drops_stop_words_unless_only_they_are_left() {
        assert_eq!(words("Tremors in the ground"), ["ground", "tremors"]);
        assert_eq!(words("To be or not to be"), ["be", "not", "or", "to"]);
        assert_eq!(words("Café  CAFÉ"), ["cafe"]);
    }
}
