//! Ranking: BM25 over the words of a query in two fields, the name (boosted) and the rest of
//! a node's text, with statistics of the live documents only, and scores summed in one fixed order — so
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
use crate::stats::{Deleted, Totals};
use crate::TextError;
use cairn_storage_format::{LabelId, NodeId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;
use std::sync::Arc;
use tantivy::index::SegmentId;
use tantivy::postings::Postings;
use tantivy::query::{
    Bm25StatisticsProvider, Bm25Weight, BooleanQuery, BoostQuery, ConstScoreQuery, EnableScoring,
    Occur, Query, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocId, DocSet, Searcher, SegmentReader, Term, TERMINATED};

/// How much a word in a node's name weighs against the same word in the rest of its text.
/// Measured on the dev sets' entity mentions (docs/SEARCH.md).
pub const NAME_BOOST: f32 = 2.0;

/// Candidates read beyond k at first (more when ties reach past them).
const SLACK: usize = 8;

/// Nodes holding every word read for the search's floor ([`floor`]): enough for a good bar,
/// few enough to rescore in microseconds.
const FLOOR_DOCS: usize = 64;

/// Statistics of the live documents of one searcher.
struct LiveStats<'s> {
    docs: u64,
    /// Per searched field: its live totals.
    fields: [(Field, Totals); 2],
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
        let mut totals = [Totals::default(); 2];
        let mut deleted = Vec::with_capacity(live.len());
        for seg in searcher.segment_readers() {
            let id = seg.segment_id();
            let all = match cache.all.get(&id) {
                Some(a) => *a,
                None => {
                    let mut a = [Totals::default(); 2];
                    for (i, (_, len)) in searched.iter().enumerate() {
                        let column = seg.fast_fields().u64(len).map_err(engine)?;
                        a[i] = Totals::of((0..seg.max_doc()).filter_map(|d| column.first(d)));
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
                            let mut gone = [Totals::default(); 2];
                            for (i, (_, len)) in searched.iter().enumerate() {
                                let column = seg.fast_fields().u64(len).map_err(engine)?;
                                gone[i] = Totals::of(docs.iter().filter_map(|d| column.first(*d)));
                            }
                            let d = Arc::new(Deleted {
                                count,
                                docs,
                                totals: gone,
                            });
                            cache.deleted.insert(id, Arc::clone(&d));
                            d
                        }
                    })
                }
                _ => None,
            };
            for i in 0..2 {
                let g = gone.as_ref().map_or(Totals::default(), |g| g.totals[i]);
                totals[i].tokens += all[i].tokens - g.tokens;
                totals[i].docs += all[i].docs - g.docs;
            }
            deleted.push(gone);
        }
        Ok(LiveStats {
            docs: searcher.num_docs(),
            fields: [(searched[0].0, totals[0]), (searched[1].0, totals[1])],
            deleted,
            searcher,
        })
    }
}

impl Bm25StatisticsProvider for LiveStats<'_> {
    /// A field's tokens, scaled so that tantivy's average length (these over all documents)
    /// is the average over the documents that have the field, as Lucene's BM25 takes it: the
    /// rest of a node's text is empty for most nodes (they have a name only), and an average
    /// over all of them would make every node that has one look hundreds of times longer than
    /// usual, its words all but unscored.
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let Some((_, t)) = self.fields.iter().find(|(f, _)| *f == field) else {
            return Ok(0);
        };
        if t.docs == 0 {
            return Ok(0);
        }
        let scaled = u128::from(t.tokens) * u128::from(self.docs) / u128::from(t.docs);
        Ok(u64::try_from(scaled).unwrap_or(u64::MAX))
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
    search_with(t, text, labels, k, true)
}

/// [`search`], with or without the [`floor`] (the tests compare the two).
fn search_with(
    t: &Tantivy,
    text: &str,
    labels: Option<&[LabelId]>,
    k: usize,
    with_floor: bool,
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
    // each word's terms that have postings (the floor's intersection)
    let mut by_word: Vec<Vec<Term>> = Vec::with_capacity(words.len());
    for w in &words {
        by_word.push(Vec::with_capacity(2));
        for (field, boost) in [(f.name, NAME_BOOST), (f.rest, 1.0)] {
            let term = Term::from_field_text(field, w);
            if stats.doc_freq(&term).map_err(engine)? == 0 {
                continue; // scores nothing: no clause to walk, no term to rescore
            }
            let weight = Bm25Weight::for_terms(&stats, std::slice::from_ref(&term))
                .map_err(engine)?
                .boost_by(boost);
            let q: Box<dyn Query> =
                Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs));
            clauses.push((Occur::Should, Box::new(BoostQuery::new(q, boost))));
            by_word
                .last_mut()
                .into_iter()
                .for_each(|b| b.push(term.clone()));
            terms.push((term, weight));
        }
    }
    let words_query: Box<dyn Query> = Box::new(BooleanQuery::new(clauses));
    let query: Box<dyn Query> = match labels {
        None => words_query,
        Some(labels) => Box::new(BooleanQuery::new(vec![
            (Occur::Must, words_query),
            (Occur::Must, label_filter(f.label, labels)),
        ])),
    };
    let weight = query
        .weight(EnableScoring::enabled_from_statistics_provider(
            &stats, &searcher,
        ))
        .map_err(engine)?;
    let floor = match with_floor {
        true => floor(&searcher, t, &by_word, labels, &terms, k)?,
        false => None,
    };
    let mut limit = k + SLACK.max(k);
    loop {
        let top = best(&searcher, weight.as_ref(), limit, floor)?;
        let weakest = top.last().map_or(0.0, |(s, _)| *s);
        let complete = top.len() < limit;
        let mut hits = rescore(&searcher, &terms, top)?;
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        // A node not among the candidates scores at most `weakest` (up to rounding): it cannot
        // tie or pass the k-th once that is clearly above. With a floor, a short list holds
        // every node above it, and the k-th best is above it.
        let kth = hits.get(k - 1).map_or(f32::NEG_INFINITY, |h| h.1);
        if complete || kth > weakest + tolerance(weakest) {
            hits.truncate(k);
            return Ok(hits);
        }
        limit = limit.saturating_mul(4);
    }
}

/// How far tantivy's sum of a node's term scores may be from [`rescore`]'s (the order of the
/// additions differs).
fn tolerance(score: f32) -> f32 {
    1e-4 * score.abs().max(1.0)
}

/// Nodes of one of `labels` (scoring nothing).
fn label_filter(field: Field, labels: &[LabelId]) -> Box<dyn Query> {
    let of_label: Vec<(Occur, Box<dyn Query>)> = labels
        .iter()
        .map(|l| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_u64(field, u64::from(l.0)),
                IndexRecordOption::Basic,
            ));
            (Occur::Should, q)
        })
        .collect();
    Box::new(ConstScoreQuery::new(
        Box::new(BooleanQuery::new(of_label)),
        0.0,
    ))
}

/// A score below which no node of the k best can be, found cheaply before the main search so
/// that its block-max WAND skips from the first block instead of raising its bar one node at a
/// time: the k-th best exact score of the nodes holding every word of the query (a node named
/// or titled as the query holds them all; an intersection driven by the rarest word is cheap),
/// at most [`FLOOR_DOCS`] of them read, less the rounding [`tolerance`]. `None` when fewer than
/// `k` nodes hold every word, or for a single word (the search is then one postings list).
fn floor(
    searcher: &Searcher,
    t: &Tantivy,
    by_word: &[Vec<Term>],
    labels: Option<&[LabelId]>,
    terms: &[(Term, Bm25Weight)],
    k: usize,
) -> Result<Option<f32>, TextError> {
    if by_word.len() < 2 || by_word.iter().any(Vec::is_empty) {
        return Ok(None); // one word, or one no node holds
    }
    let f = t.fields;
    let term_query = |term: &Term| -> Box<dyn Query> {
        Box::new(TermQuery::new(term.clone(), IndexRecordOption::Basic))
    };
    let mut every: Vec<(Occur, Box<dyn Query>)> = by_word
        .iter()
        .map(|fields| {
            // a word in names only (most nodes have nothing but a name) is its postings list
            // alone, not a union with an empty one
            let q = match fields.as_slice() {
                [one] => term_query(one),
                more => Box::new(BooleanQuery::new(
                    more.iter()
                        .map(|t| (Occur::Should, term_query(t)))
                        .collect(),
                )),
            };
            (Occur::Must, q)
        })
        .collect();
    if let Some(labels) = labels {
        every.push((Occur::Must, label_filter(f.label, labels)));
    }
    let weight = BooleanQuery::new(every)
        .weight(EnableScoring::disabled_from_searcher(searcher))
        .map_err(engine)?;
    let mut found = Vec::new();
    for (ord, seg) in searcher.segment_readers().iter().enumerate() {
        let mut docs = weight.scorer(seg, 1.0).map_err(engine)?;
        let alive = seg.alive_bitset();
        let mut doc = docs.doc();
        while doc != TERMINATED && found.len() < FLOOR_DOCS {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                found.push((0.0, DocAddress::new(ord as u32, doc)));
            }
            doc = docs.advance();
        }
    }
    if found.len() < k {
        return Ok(None);
    }
    let mut hits = rescore(searcher, terms, found)?;
    hits.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(hits.get(k - 1).map(|h| h.1 - tolerance(h.1)))
}

/// The `limit` best live documents by `weight`'s score above `floor` (all of them when fewer),
/// best first: tantivy's top-k collection with the bar starting at the floor and carried from
/// one segment to the next.
fn best(
    searcher: &Searcher,
    weight: &dyn Weight,
    limit: usize,
    floor: Option<f32>,
) -> Result<Vec<(f32, DocAddress)>, TextError> {
    let floor = floor.unwrap_or(f32::MIN);
    // a min-heap on score: its top is the weakest kept
    let mut heap: BinaryHeap<Reverse<Kept>> = BinaryHeap::with_capacity(limit + 1);
    for (ord, seg) in searcher.segment_readers().iter().enumerate() {
        let alive = seg.alive_bitset();
        let bar = |heap: &BinaryHeap<Reverse<Kept>>| match heap.peek() {
            Some(Reverse(w)) if heap.len() >= limit => w.score.max(floor),
            _ => floor,
        };
        let mut threshold = bar(&heap);
        weight
            .for_each_pruning(threshold, seg, &mut |doc, score| {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    heap.push(Reverse(Kept {
                        score,
                        at: DocAddress::new(ord as u32, doc),
                    }));
                    if heap.len() > limit {
                        heap.pop();
                    }
                    threshold = bar(&heap);
                }
                threshold
            })
            .map_err(engine)?;
    }
    let mut top: Vec<(f32, DocAddress)> =
        heap.into_iter().map(|Reverse(k)| (k.score, k.at)).collect();
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(top)
}

/// A candidate of [`best`], ordered by score.
struct Kept {
    score: f32,
    at: DocAddress,
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Kept {}
impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Kept {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.score.total_cmp(&other.score)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // a test that cannot set up fails
    use super::search_with;
    use crate::index::{NodeText, Tantivy};
    use cairn_storage_format::{LabelId, NodeId};

    /// The floor only lets the search skip: with it, every query answers exactly as without it
    /// (same nodes, order and scores), over a small vocabulary (long postings, many ties),
    /// several segments and deleted documents, with and without a label filter.
    #[test]
    fn the_floor_changes_no_answer() {
        let vocabulary = [
            "graph", "neural", "network", "data", "mining", "stream", "query", "index", "vector",
            "search", "learning", "deep", "survey", "method", "system", "of", "a",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut titles = Vec::new();
        for _ in 0..3000 {
            let len = 2 + next(10);
            let words: Vec<&str> = (0..len)
                .map(|_| vocabulary[next(vocabulary.len())])
                .collect();
            titles.push(words.join(" "));
        }
        let t = Tantivy::create(None).unwrap();
        let mut w = t.writer(1, 0).unwrap();
        for (i, title) in titles.iter().enumerate() {
            let text = NodeText {
                name: title.clone(),
                rest: vocabulary[i % vocabulary.len()].to_owned(),
            };
            let label = LabelId((i % 3) as u32);
            w.add_document(t.document(NodeId(i as u64), label, &text))
                .unwrap();
            if i % 1000 == 999 {
                w.commit().unwrap(); // a segment per thousand
            }
        }
        for i in (0..3000).step_by(7) {
            w.delete_term(t.node_term(NodeId(i)));
        }
        w.commit().unwrap();
        t.reader.reload().unwrap();
        let mut queries: Vec<String> = titles.iter().step_by(23).cloned().collect();
        for _ in 0..60 {
            let len = 2 + next(5);
            let words: Vec<&str> = (0..len)
                .map(|_| vocabulary[next(vocabulary.len())])
                .collect();
            queries.push(words.join(" "));
        }
        let (mut floors, mut checked) = (0, 0);
        for q in &queries {
            for k in [1, 3, 10] {
                for labels in [None, Some(&[LabelId(1)][..])] {
                    let with = search_with(&t, q, labels, k, true).unwrap();
                    let without = search_with(&t, q, labels, k, false).unwrap();
                    assert_eq!(with, without, "{q:?} k {k} labels {labels:?}");
                    assert!(with.iter().all(|(n, _)| n.0 % 7 != 0), "a deleted node");
                    checked += 1;
                    floors += usize::from(with.len() == k);
                }
            }
        }
        assert!(floors > checked / 2, "{floors} of {checked} full answers");
    }
}
