//! Entity linking: runs of question words against node names (the store's name index), and
//! quoted phrases by embedding.

use super::words::question_words;
use super::{normalize, Entity, LinkMethod, Planner, Word};
use crate::vocab::{self, is_stopword, schema_words, SchemaWord};
use crate::AgentError;
use cairn_embed::cosine;
use cairn_storage_format::{LabelId, NodeId};
use cairn_store::describe::{self, description, display_name};
use cairn_store::{Catalog, GraphRead};
use std::collections::{HashMap, HashSet};

impl<'g> Planner<'g> {
    /// The labels of those of `ids` that have a name (a normalised display name with words),
    /// read from their records: the nodes the linker can name.
    pub(super) fn named_labels(
        &self,
        ids: &[NodeId],
        catalog: &Catalog,
    ) -> Result<HashMap<NodeId, LabelId>, AgentError> {
        let mut out = HashMap::new();
        for chunk in ids.chunks(1024) {
            for (id, rec) in chunk.iter().zip(self.graph.nodes(chunk)?) {
                let Some(rec) = rec else { continue };
                if !normalize(&display_name(&rec, catalog)).is_empty() {
                    out.insert(*id, rec.label);
                }
            }
        }
        Ok(out)
    }

    /// Every span of the question that is a node name, by the store's name index: per start
    /// word, one seek per length while longer names continue the span (`NameHits::longer`),
    /// so a question costs a few seeks per word rather than a read of every node.
    pub(super) fn name_spans(&self, words: &[Word]) -> Result<NameSpans, AgentError> {
        let mut out = HashMap::new();
        for start in 0..words.len() {
            let mut key = String::new();
            for len in 1..=describe::NAME_MAX_WORDS.min(words.len() - start) {
                if len > 1 {
                    key.push(' ');
                }
                key.push_str(&words[start + len - 1].norm);
                let mut hits = self.graph.nodes_named(&key)?;
                // a plural of a one-word name ("*dramas* and crime films": the genre Drama)
                if hits.nodes.is_empty() && len == 1 {
                    if let Some(one) = singular(&key) {
                        hits.nodes = self.graph.nodes_named(&one)?.nodes;
                    }
                }
                if !hits.nodes.is_empty() {
                    out.insert((start, len), hits.nodes);
                }
                if !hits.longer {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Links mentions: longest exact name matches first, then quoted phrases by vector. Each
    /// mention comes with one candidate per label its name has there, the label most of the
    /// nodes carry first (then by label name): which one the question means is the plan's to
    /// say ("how many rivers does *colorado* have": the state; "the *colorado* river").
    pub(super) fn link(
        &self,
        words: &[Word],
        question: &str,
        catalog: &Catalog,
    ) -> Result<Vec<Vec<Entity>>, AgentError> {
        let spans = self.name_spans(words)?;
        let schema = schema_stems(catalog);
        let element_names: HashSet<String> = catalog
            .labels()
            .map(|(_, n)| n.to_owned())
            .chain(catalog.relations().map(|(_, r)| r.name.clone()))
            .chain(catalog.prop_keys().map(|(_, n)| n.to_owned()))
            .flat_map(|n| {
                let last = n.rsplit("__").next().unwrap_or(&n).to_owned();
                [
                    vocab::name_words(&n).join(" "),
                    vocab::name_words(&last).join(" "),
                ]
            })
            .collect();
        let mut taken = vec![false; words.len()];
        let mut out = Vec::new();
        let max = spans.keys().map(|(_, len)| *len).max().unwrap_or(0);
        for len in (1..=max).rev() {
            for start in 0..=words.len() - len {
                if taken[start..start + len].iter().any(|t| *t) {
                    continue;
                }
                let span = &words[start..start + len];
                // A mention covers whole question tokens (`a_b` is one mention or none).
                let whole = (start == 0 || words[start - 1].group != span[0].group)
                    && words
                        .get(start + len)
                        .is_none_or(|w| w.group != span[len - 1].group);
                if !whole || !linkable(span, &schema) {
                    continue;
                }
                let key = span
                    .iter()
                    .map(|w| w.norm.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                // `place_of_birth` in a question names the relation, not a node, unless quoted.
                if !span.iter().all(|w| w.quoted) && element_names.contains(&key) {
                    continue;
                }
                let Some(ids) = spans.get(&(start, len)) else {
                    continue;
                };
                // Nodes of a label declared `LINKING OFF` (a word per node, say) are named only
                // by marked mentions.
                let marked = span.iter().all(|w| w.marked);
                // One candidate per label, the label most of the matches have first.
                let mut by_label: HashMap<LabelId, Vec<NodeId>> = HashMap::new();
                for (id, l) in ids {
                    if marked || catalog.links_unmarked(*l) {
                        by_label.entry(*l).or_default().push(*id);
                    }
                }
                if by_label.is_empty() {
                    continue;
                }
                let mut candidates: Vec<(LabelId, Vec<NodeId>)> = by_label.into_iter().collect();
                candidates.sort_by(|(la, a), (lb, b)| {
                    b.len()
                        .cmp(&a.len())
                        .then_with(|| catalog.label_name(*la).cmp(&catalog.label_name(*lb)))
                });
                let mut mention = Vec::new();
                for (label, nodes) in candidates {
                    mention.push(self.entity(
                        &key,
                        nodes,
                        label,
                        (start, start + len),
                        LinkMethod::Exact,
                        marked,
                        catalog,
                    )?);
                }
                out.push(mention);
                taken[start..start + len].iter_mut().for_each(|t| *t = true);
            }
        }
        // Quoted phrases that matched nothing exactly: nearest node by meaning.
        for (phrase, span) in quoted(question, words) {
            if taken[span.0..span.1].iter().any(|t| *t) {
                continue;
            }
            if let Some((node, label)) = self.vector_link(&phrase, catalog)? {
                out.push(vec![self.entity(
                    &normalize(&phrase),
                    vec![node],
                    label,
                    span,
                    LinkMethod::Vector,
                    true,
                    catalog,
                )?]);
                taken[span.0..span.1].iter_mut().for_each(|t| *t = true);
            }
        }
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn entity(
        &self,
        mention: &str,
        mut nodes: Vec<NodeId>,
        label: LabelId,
        span: (usize, usize),
        method: LinkMethod,
        marked: bool,
        catalog: &Catalog,
    ) -> Result<Entity, AgentError> {
        // In key order, so that the plan (and the name shown) does not depend on the order the
        // nodes were imported in.
        let records = self.graph.nodes(&nodes)?;
        let mut found: Vec<(String, NodeId, String)> = nodes
            .iter()
            .zip(records.iter())
            .filter_map(|(id, r)| {
                r.as_ref()
                    .map(|r| (r.key.clone(), *id, display_name(r, catalog)))
            })
            .collect();
        found.sort();
        nodes = found.iter().map(|(_, id, _)| *id).collect();
        let keys: Vec<String> = found.iter().map(|(k, _, _)| k.clone()).collect();
        let name = found.first().map(|(_, _, n)| n.clone()).unwrap_or_default();
        Ok(Entity {
            mention: mention.to_owned(),
            nodes,
            label: catalog.label_name(label).unwrap_or("?").to_owned(),
            keys,
            name,
            method,
            marked,
            span,
        })
    }

    /// The node nearest to `phrase` by embedding (the vector index when there is one, else a
    /// scan over named nodes), if it is close enough and has a name.
    pub(super) fn vector_link(
        &self,
        phrase: &str,
        catalog: &Catalog,
    ) -> Result<Option<(NodeId, LabelId)>, AgentError> {
        let query = self.embedder.embed(phrase)?;
        let best = match self.search.filter(|s| s.has_vectors()) {
            Some(s) => s.search(&query, None, 1)?.into_iter().next(),
            None => {
                let mut named = Vec::new();
                for (label, _) in catalog.labels() {
                    let ids = self.graph.label_nodes(label)?;
                    let labels = self.named_labels(&ids, catalog)?;
                    named.extend(ids.into_iter().filter(|id| labels.contains_key(id)));
                }
                let mut best: Option<(NodeId, f32)> = None;
                for chunk in named.chunks(512) {
                    let records = self.graph.nodes(chunk)?;
                    let texts: Vec<String> = records
                        .iter()
                        .map(|r| {
                            r.as_ref()
                                .map(|r| description(r, catalog))
                                .unwrap_or_default()
                        })
                        .collect();
                    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                    for (id, v) in chunk.iter().zip(self.embedder.embed_batch(&refs)?) {
                        let c = cosine(&query, &v);
                        if best.is_none_or(|(_, b)| c > b) {
                            best = Some((*id, c));
                        }
                    }
                }
                best
            }
        };
        let Some((id, _)) = best.filter(|(_, c)| *c >= VECTOR_LINK_MIN) else {
            return Ok(None);
        };
        Ok(self
            .named_labels(&[id], catalog)?
            .get(&id)
            .map(|l| (id, *l)))
    }
}

/// The spans of a question that name nodes, as (start word, length) → the nodes and labels.
pub(super) type NameSpans = HashMap<(usize, usize), Vec<(NodeId, LabelId)>>;

/// Minimum cosine for a vector-linked mention.
pub(super) const VECTOR_LINK_MIN: f32 = 0.55;

/// The words of every label, relation and property name: words that name the schema are not
/// node mentions unless marked.
/// The singular of an English plural noun by its regular endings ("comedies", "dramas",
/// "matches"); `None` for a word that is no such plural.
fn singular(word: &str) -> Option<String> {
    if word.len() < 4 || word.ends_with("ss") || !word.chars().all(|c| c.is_alphabetic()) {
        return None;
    }
    if let Some(base) = word.strip_suffix("ies") {
        return Some(format!("{base}y"));
    }
    if let Some(base) = word.strip_suffix("es") {
        if ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|e| base.ends_with(e))
        {
            return Some(base.to_owned());
        }
    }
    word.strip_suffix('s').map(str::to_owned)
}

pub(super) fn schema_stems(catalog: &Catalog) -> Vec<SchemaWord> {
    let mut out: Vec<SchemaWord> = catalog
        .labels()
        .map(|(_, n)| n.to_owned())
        .chain(catalog.relations().map(|(_, r)| r.name.clone()))
        .chain(catalog.prop_keys().map(|(_, n)| n.to_owned()))
        .flat_map(|n| schema_words(&n))
        .collect();
    out.sort_by(|a, b| a.stem.cmp(&b.stem));
    out.dedup_by(|a, b| a.stem == b.stem);
    out
}

/// Whether a run of question words may name a node: marked runs always; unmarked ones only if
/// some word is neither a function word nor a schema word ("film", "the" and "director" are
/// question words, not the nodes that happen to carry those names).
pub(super) fn linkable(span: &[Word], schema: &[SchemaWord]) -> bool {
    if span.iter().all(|w| w.marked) {
        return true;
    }
    span.iter().any(|w| {
        !is_stopword(&w.norm)
            && w.norm.len() >= 3
            && !w.norm.chars().all(|c| c.is_ascii_digit())
            && !schema
                .iter()
                .any(|s| s.stem == w.stem || crate::vocab::prefix_stems(&s.stem, &w.stem))
    })
}

/// Quoted phrases and the word spans they cover.
pub(super) fn quoted(question: &str, words: &[Word]) -> Vec<(String, (usize, usize))> {
    let mut out = Vec::new();
    let mut rest = question;
    let mut consumed_words = 0usize;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('"') else { break };
        let before = &rest[..start];
        let phrase = &after[..end];
        let from = consumed_words + question_words(before).len();
        let len = question_words(phrase).len();
        if len > 0 && from + len <= words.len() {
            out.push((phrase.to_owned(), (from, from + len)));
        }
        consumed_words = from + len;
        rest = &after[end + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::words::tokenize;
    use crate::vocab::schema_words;

    #[test]
    fn unmarked_runs_link_only_with_a_word_outside_the_schema_and_function_words() {
        let schema: Vec<SchemaWord> = ["Film", "directed_by", "title"]
            .iter()
            .flat_map(|n| schema_words(n))
            .collect();
        let w = tokenize("which film did the director of blue harbor make");
        // "film", "director", "the": schema or function words, never a node on their own.
        assert!(!linkable(&w[1..2], &schema));
        assert!(!linkable(&w[3..4], &schema));
        assert!(!linkable(&w[4..5], &schema));
        // "blue harbor" has a word of its own.
        assert!(linkable(&w[6..8], &schema));
        // A marked mention always links, even if it spells a schema word.
        assert!(linkable(&tokenize("x \"Film\"")[1..2], &schema));
    }

    #[test]
    fn quoted_phrases_come_with_their_word_spans() {
        let q = r#"who wrote "Deep Nets" and "A B""#;
        let words = question_words(q);
        let got = quoted(q, &words);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], ("Deep Nets".to_owned(), (2, 4)));
        assert_eq!(got[1], ("A B".to_owned(), (5, 7)));
    }
}
