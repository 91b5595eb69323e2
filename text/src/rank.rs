//! Ranking: BM25 over the words of a query in two fields, the name (boosted) and the whole
//! text, with statistics of the live documents only, and scores summed in one fixed order — so
//! that an index brought up to date by applying changes answers exactly as a rebuild of the
//! same nodes does.
//!
//! Why both matter: tantivy's own statistics count deleted documents until a merge drops them
//! (and a merge of segments with deletes estimates its token total from the field norms), so
//! an index that was updated in place would weigh words differently from a fresh one; and its
//! top-k collector sums a document's term scores in an order that depends on the segment
//! layout, which moves the last bits of a score and so the order of mathematically tied
//! nodes. Here the document and token counts come from the segments' live documents (token
//! counts kept per document in fast fields), the candidates tantivy finds (block-max WAND, fast)
//! are rescored term by term in the query's order, ties go by node id, and the candidate list
//! is widened until no node outside it can reach the k-th score.

use crate::index::{words, Tantivy};
use crate::stats::Deleted;
use crate::TextError;
use cairn_storage_format::{LabelId, NodeId};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tantivy::collector::TopDocs;
use tantivy::index::SegmentId;
use tantivy::postings::Postings;
use tantivy::query::{
    Bm25StatisticsProvider, Bm25Weight, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query,
    TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Searcher, SegmentReader, Term};

/// How much a word in a node's name weighs against the same word elsewhere in its text (a
/// name word counts in both fields). Measured on the dev sets' entity mentions
/// (docs/SEARCH.md).
pub const NAME_BOOST: f32 = 2.0;

/// Candidates read beyond k at first (more when ties reach past them).
const SLACK: usize = 8;

/// Statistics of the live documents of one searcher.
struct LiveStats<'s> {
    docs: u64,
    tokens: [(Field, u64); 2],
    /// Per segment (by ordinal): its deleted documents, if any.
    deleted: Vec<Option<Arc<Deleted>>>,
    searcher: &'s Searcher,
}

fn engine(e: tantivy::TantivyError) -> TextError {
    TextError::index(Path::new("<text search>"))(e)
}

impl<'s> LiveStats<'s> {
    fn new(t: &Tantivy, searcher: &'s Searcher) -> Result<LiveStats<'s>, TextError> {
        let searched = t.fields.searched();
        let mut cache = t.stats.lock();
        let live: Vec<SegmentId> = searcher
            .segment_readers()
            .iter()
            .map(|s| s.segment_id())
            .collect();
        cache.all.retain(|id, _| live.contains(id));
        cache.deleted.retain(|id, _| live.contains(id));
        let mut tokens = [0u64; 2];
        let mut deleted = Vec::with_capacity(live.len());
        for seg in searcher.segment_readers() {
            let id = seg.segment_id();
            let all = match cache.all.get(&id) {
                Some(a) => *a,
                None => {
                    let mut a = [0u64; 2];
                    for (i, (_, len)) in searched.iter().enumerate() {
                        let column = seg.fast_fields().u64(len).map_err(engine)?;
                        a[i] = (0..seg.max_doc()).filter_map(|d| column.first(d)).sum();
                    }
                    cache.all.insert(id, a);
                    a
                }
            };
            let gone = match seg.alive_bitset() {
                Some(alive) if seg.num_deleted_docs() > 0 => {
                    let count = seg.num_deleted_docs();
                    let known = cache.deleted.get(&id).filter(|d| d.count == count);
                    Some(match known {
                        Some(d) => Arc::clone(d),
                        None => {
                            let docs: Vec<DocId> = (0..seg.max_doc())
                                .filter(|d| alive.is_deleted(*d))
                                .collect();
                            let mut gone = [0u64; 2];
                            for (i, (_, len)) in searched.iter().enumerate() {
                                let column = seg.fast_fields().u64(len).map_err(engine)?;
                                gone[i] = docs.iter().filter_map(|d| column.first(*d)).sum();
                            }
                            let d = Arc::new(Deleted {
                                count,
                                docs,
                                tokens: gone,
                            });
                            cache.deleted.insert(id, Arc::clone(&d));
                            d
                        }
                    })
                }
                _ => None,
            };
            for i in 0..2 {
                tokens[i] += all[i] - gone.as_ref().map_or(0, |g| g.tokens[i]);
            }
            deleted.push(gone);
        }
        Ok(LiveStats {
            docs: searcher.num_docs(),
            tokens: [(searched[0].0, tokens[0]), (searched[1].0, tokens[1])],
            deleted,
            searcher,
        })
    }
}

impl Bm25StatisticsProvider for LiveStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        Ok(self
            .tokens
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(0, |(_, n)| *n))
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    /// Documents holding `term`, deleted ones not counted: the segment's count less its
    /// deleted documents found in the term's postings (few, and looked up in order).
    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut total = 0u64;
        for (seg, gone) in self.searcher.segment_readers().iter().zip(&self.deleted) {
            let inverted = seg.inverted_index(term.field())?;
            let mut n = u64::from(inverted.doc_freq(term)?);
            if let Some(gone) = gone {
                if let Some(mut postings) =
                    inverted.read_postings(term, IndexRecordOption::Basic)?
                {
                    for d in &gone.docs {
                        if at(&mut postings, *d) {
                            n -= 1;
                        }
                    }
                }
            }
            total += n;
        }
        Ok(total)
    }
}

/// The `k` best nodes for `text` by BM25 over its words (any word may match; more and rarer
/// words rank higher, words of the name more), only of `labels` when given. Ties by node id.
pub(crate) fn search(
    t: &Tantivy,
    text: &str,
    labels: Option<&[LabelId]>,
    k: usize,
) -> Result<Vec<(NodeId, f32)>, TextError> {
    let words = words(text);
    if words.is_empty() || k == 0 {
        return Ok(Vec::new());
    }
    let searcher = t.reader.searcher();
    let stats = LiveStats::new(t, &searcher)?;
    if stats.docs == 0 {
        return Ok(Vec::new());
    }
    let f = t.fields;
    // The scored terms in one fixed order (word, then name before text), with their weights.
    let mut terms: Vec<(Term, Bm25Weight)> = Vec::with_capacity(2 * words.len());
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(2 * words.len());
    for w in &words {
        for (field, boost) in [(f.name, NAME_BOOST), (f.text, 1.0)] {
            let term = Term::from_field_text(field, w);
            let weight = Bm25Weight::for_terms(&stats, std::slice::from_ref(&term))
                .map_err(engine)?
                .boost_by(boost);
            let q: Box<dyn Query> =
                Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs));
            clauses.push((Occur::Should, Box::new(BoostQuery::new(q, boost))));
            terms.push((term, weight));
        }
    }
    let words_query: Box<dyn Query> = Box::new(BooleanQuery::new(clauses));
    let query: Box<dyn Query> = match labels {
        None => words_query,
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
            let filter = ConstScoreQuery::new(Box::new(BooleanQuery::new(of_label)), 0.0);
            Box::new(BooleanQuery::new(vec![
                (Occur::Must, words_query),
                (Occur::Must, Box::new(filter)),
            ]))
        }
    };
    let mut limit = k + SLACK.max(k);
    loop {
        let top = searcher
            .search_with_statistics_provider(&query, &TopDocs::with_limit(limit), &stats)
            .map_err(engine)?;
        let weakest = top.last().map_or(0.0, |(s, _)| *s);
        let complete = top.len() < limit;
        let mut hits = rescore(&searcher, &terms, top)?;
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        // A node not among the candidates scores at most `weakest` (up to rounding): it cannot
        // tie or pass the k-th once that is clearly above.
        let kth = hits.get(k - 1).map_or(f32::NEG_INFINITY, |h| h.1);
        if complete || kth > weakest + 1e-4 * weakest.abs().max(1.0) {
            hits.truncate(k);
            return Ok(hits);
        }
        limit = limit.saturating_mul(4);
    }
}

/// The exact score of each candidate: its terms' BM25 scores summed in the query's order.
fn rescore(
    searcher: &Searcher,
    terms: &[(Term, Bm25Weight)],
    top: Vec<(f32, tantivy::DocAddress)>,
) -> Result<Vec<(NodeId, f32)>, TextError> {
    let mut by_segment: HashMap<u32, Vec<DocId>> = HashMap::new();
    for (_, addr) in &top {
        by_segment
            .entry(addr.segment_ord)
            .or_default()
            .push(addr.doc_id);
    }
    let mut out = Vec::with_capacity(top.len());
    for (ord, mut docs) in by_segment {
        docs.sort_unstable();
        let seg = searcher.segment_reader(ord);
        let nodes = seg.fast_fields().u64("node").map_err(engine)?;
        let mut scores = vec![0f32; docs.len()];
        for (term, weight) in terms {
            term_scores(seg, term, weight, &docs, &mut scores)?;
        }
        for (d, s) in docs.iter().zip(scores) {
            if let Some(node) = nodes.first(*d) {
                out.push((NodeId(node), s));
            }
        }
    }
    Ok(out)
}

/// Adds `term`'s score in each of `docs` (sorted) to `scores`.
fn term_scores(
    seg: &SegmentReader,
    term: &Term,
    weight: &Bm25Weight,
    docs: &[DocId],
    scores: &mut [f32],
) -> Result<(), TextError> {
    let inverted = seg.inverted_index(term.field()).map_err(engine)?;
    let Some(mut postings) = inverted
        .read_postings(term, IndexRecordOption::WithFreqs)
        .map_err(|e| engine(e.into()))?
    else {
        return Ok(());
    };
    let norms = seg.get_fieldnorms_reader(term.field()).map_err(engine)?;
    for (d, score) in docs.iter().zip(scores.iter_mut()) {
        if at(&mut postings, *d) {
            *score += weight.score(norms.fieldnorm_id(*d), postings.term_freq());
        }
    }
    Ok(())
}

/// Moves `postings` forward to `doc` (asked in increasing order) and says whether it holds it.
fn at(postings: &mut impl DocSet, doc: DocId) -> bool {
    let mut current = postings.doc();
    if current < doc {
        current = postings.seek(doc);
    }
    current == doc
}
