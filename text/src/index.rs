//! The tantivy index itself: schema, analyzer, the document of a node, BM25 search, and the
//! commit stamp (the store's commit counter the index reflects, kept as tantivy's commit
//! payload so that the two are written by one atomic rename of `meta.json`).

use crate::TextError;
use cairn_storage_format::{LabelId, NodeId, NodeRecord, Value};
use cairn_store::describe::display_name;
use cairn_store::Catalog;
use std::collections::BTreeSet;
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery};
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
    pub(crate) text: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let node = b.add_u64_field("node", NumericOptions::default().set_indexed().set_fast());
    let label = b.add_u64_field("label", NumericOptions::default().set_indexed());
    // Frequencies for BM25; no positions (no phrase queries), no stored text (the store has it).
    let text = b.add_text_field(
        "text",
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqs),
        ),
    );
    (b.build(), Fields { node, label, text })
}

/// Words as the index sees them: split at anything but letters and digits, at most
/// [`MAX_TOKEN`] bytes, lower-cased, accents folded to ASCII.
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// The text a node is found by: its display name, its stored description when it has one,
/// and its other string properties of at most [`PROPERTY_MAX_BYTES`].
pub fn node_text(record: &NodeRecord, catalog: &Catalog) -> String {
    let name = display_name(record, catalog);
    let mut text = name.clone();
    if let Some(d) = record.description.as_deref().filter(|d| *d != name) {
        text.push('\n');
        text.push_str(d);
    }
    for (_, v) in &record.props {
        if let Value::Str(s) = v {
            if s.len() <= PROPERTY_MAX_BYTES && *s != name {
                text.push('\n');
                text.push_str(s);
            }
        }
    }
    text
}

/// An open tantivy index with its reader.
pub(crate) struct Tantivy {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
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
        let index = Index::open_in_dir(dir).map_err(TextError::index(dir))?;
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(TextError::Schema(dir.to_path_buf()));
        }
        Self::wrap(index, fields, dir).map(Some)
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

    pub(crate) fn writer(&self, threads: usize, bytes: usize) -> Result<IndexWriter, TextError> {
        self.index
            .writer_with_num_threads(threads.max(1), bytes.max(threads * SMALL_WRITER_BYTES))
            .map_err(TextError::index(Path::new("<text index writer>")))
    }

    /// The document of a node.
    pub(crate) fn document(&self, id: NodeId, label: LabelId, text: &str) -> TantivyDocument {
        let f = self.fields;
        doc!(f.node => id.0, f.label => u64::from(label.0), f.text => text)
    }

    pub(crate) fn node_term(&self, id: NodeId) -> Term {
        Term::from_field_u64(self.fields.node, id.0)
    }

    /// Live documents.
    pub(crate) fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The `k` best nodes for `text` by BM25 over the words of the query (any word may match;
    /// more and rarer words rank higher), only of `labels` when given. Ties by node id.
    pub(crate) fn search(
        &self,
        text: &str,
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, TextError> {
        let words = words(text);
        if words.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let f = self.fields;
        let mut any: Vec<(Occur, Box<dyn Query>)> = words
            .iter()
            .map(|w| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(f.text, w),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Should, q)
            })
            .collect();
        let query: Box<dyn Query> = match labels {
            None => Box::new(BooleanQuery::new(any)),
            Some(labels) => {
                let of_label: Vec<(Occur, Box<dyn Query>)> = labels
                    .iter()
                    .map(|l| {
                        let q: Box<dyn Query> = Box::new(TermQuery::new(
                            Term::from_field_u64(f.label, u64::from(l.0)),
                            IndexRecordOption::Basic,
                        ));
                        (Occur::Should, q)
                    })
                    .collect();
                let words = BooleanQuery::new(std::mem::take(&mut any));
                let filter = ConstScoreQuery::new(Box::new(BooleanQuery::new(of_label)), 0.0);
                Box::new(BooleanQuery::new(vec![
                    (Occur::Must, Box::new(words) as Box<dyn Query>),
                    (Occur::Must, Box::new(filter)),
                ]))
            }
        };
        let searcher = self.reader.searcher();
        // One more than asked, so that ties at the k-th score are ordered by node id.
        let top = searcher
            .search(&query, &TopDocs::with_limit(k + 8))
            .map_err(TextError::index(Path::new("<text search>")))?;
        let mut hits = Vec::with_capacity(top.len());
        let mut columns = std::collections::HashMap::new();
        for (score, addr) in top {
            let column = match columns.entry(addr.segment_ord) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(
                    searcher
                        .segment_reader(addr.segment_ord)
                        .fast_fields()
                        .u64("node")
                        .map_err(TextError::index(Path::new("<text search>")))?,
                ),
            };
            if let Some(node) = column.first(addr.doc_id) {
                hits.push((NodeId(node), score));
            }
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.truncate(k);
        Ok(hits)
    }
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
    let content = tokens(
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(MAX_TOKEN))
            .filter(LowerCaser)
            .filter(stop)
            .filter(AsciiFoldingFilter)
            .build(),
        text,
    );
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
    use super::words;

    #[test]
    fn a_query_drops_stop_words_unless_only_they_are_left() {
        assert_eq!(words("Tremors in the ground"), ["ground", "tremors"]);
        assert_eq!(words("To be or not to be"), ["be", "not", "or", "to"]);
        assert_eq!(words("Café  CAFÉ"), ["cafe"]);
    }
}
