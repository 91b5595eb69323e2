//! Path ranking: relation sequences read off the data from the linked entity, scored by how
//! well their relation words read the question's words ([`path_score`]), with what feedback
//! taught and what the end nodes say.

use super::analysis::label_of;
use super::words::{best_word_match, element_match};
use super::{normalize, Entity, Planner, Step, Word};
use crate::semantic::Meaning;
use crate::strategy::{path_shape, Strategies};
use crate::vocab::{self, is_stopword, lexicon, schema_words, word_match, SchemaWord};
use crate::walk::there_and_back;
use crate::AgentError;
use cairn_storage_format::{LabelId, NodeId};
use cairn_store::describe::display_name;
use cairn_store::{Catalog, Direction, Element, GraphRead};
use std::collections::{HashMap, HashSet};

impl<'g> Planner<'g> {
    /// Evidence from a path's end nodes: 0.6 if a question word no relation names is near
    /// their names in WordNet (woman → `female`), 0.4 if "where" is asked and they are places.
    pub(super) fn answer_words_bonus(
        &self,
        ends: &[NodeId],
        unknown: &[&Word],
        asks_place: bool,
        catalog: &Catalog,
    ) -> Result<f64, AgentError> {
        let Some(lx) = lexicon() else { return Ok(0.0) };
        let names = self.end_names(ends, catalog)?;
        let mut bonus = 0.0;
        if names_meet(&names, unknown) {
            bonus += 0.6;
        }
        if asks_place
            && names.iter().take(3).any(|n| {
                let lemma = normalize(n).replace(' ', "_");
                lx.is_a(&lemma, "location")
            })
        {
            bonus += 0.4;
        }
        Ok(bonus)
    }

    /// The display names of the end nodes `ends`.
    pub(super) fn end_names(
        &self,
        ends: &[NodeId],
        catalog: &Catalog,
    ) -> Result<Vec<String>, AgentError> {
        Ok(self
            .graph
            .nodes(ends)?
            .iter()
            .flatten()
            .map(|r| display_name(r, catalog))
            .collect())
    }

    /// Whether a question word names one of these end nodes (woman → `female`).
    pub(super) fn ends_named(
        &self,
        ends: &[NodeId],
        words: &[&Word],
        catalog: &Catalog,
    ) -> Result<bool, AgentError> {
        let names = self.end_names(ends, catalog)?;
        Ok(names_meet(&names, words))
    }

    /// Relation sequences that exist in the data from `entries` (both directions, up to `max`
    /// steps), each with the labels of the nodes it ends at. Bounded: at most
    /// [`PATH_FRONTIER`] nodes expanded per sequence, [`PATH_SEQUENCES`] sequences per length
    /// and [`PATH_EDGES`] edges read.
    pub(super) fn data_paths(
        &self,
        entries: &[NodeId],
        max: usize,
        catalog: &Catalog,
    ) -> Result<Vec<DataPath>, AgentError> {
        let mut out = Vec::new();
        let mut level: Vec<(Vec<Step>, Vec<NodeId>)> = vec![(Vec::new(), entries.to_vec())];
        let mut edges = 0usize;
        let mut buf = Vec::new();
        for _ in 0..max {
            let mut next: Vec<(Vec<Step>, Vec<NodeId>)> = Vec::new();
            for (steps, frontier) in &level {
                let mut grouped: HashMap<(cairn_storage_format::RelId, bool), Vec<NodeId>> =
                    HashMap::new();
                for node in frontier.iter().take(PATH_FRONTIER) {
                    buf.clear();
                    self.graph
                        .neighbors_into(*node, Direction::Both, &[], &mut buf)?;
                    edges += buf.len();
                    for n in &buf {
                        grouped
                            .entry((n.rel, n.direction == Direction::In))
                            .or_default()
                            .push(n.node);
                    }
                }
                let mut keys: Vec<_> = grouped.into_iter().collect();
                keys.sort_by_key(|((r, rev), _)| (r.0, *rev));
                for ((rel, reversed), mut nodes) in keys {
                    let Some(name) = catalog.relation_name(rel) else {
                        continue;
                    };
                    nodes.sort();
                    nodes.dedup();
                    let mut p = steps.clone();
                    p.push(Step {
                        relation: name.to_owned(),
                        reversed,
                    });
                    next.push((p, nodes));
                }
                if edges > PATH_EDGES || next.len() > PATH_SEQUENCES {
                    break;
                }
            }
            // The labels of the first 64 nodes of every sequence, in one read.
            let mut ends: Vec<NodeId> = next
                .iter()
                .flat_map(|(_, nodes)| nodes.iter().take(64).copied())
                .collect();
            ends.sort_unstable();
            ends.dedup();
            let named = self.named_labels(&ends, catalog)?;
            for (steps, nodes) in &next {
                let labels: HashSet<LabelId> = nodes
                    .iter()
                    .take(64)
                    .filter_map(|n| named.get(n).copied())
                    .collect();
                out.push((
                    steps.clone(),
                    labels,
                    nodes.iter().take(8).copied().collect(),
                ));
            }
            if edges > PATH_EDGES {
                break;
            }
            level = next;
        }
        Ok(out)
    }

    /// How `steps` read the question's `free` words from `entity` ([`read_path`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn path_read(
        &self,
        free: &[(usize, &Word)],
        words: &[Word],
        entity: &Entity,
        consumed: &HashSet<usize>,
        catalog: &Catalog,
        meaning: Option<&Meaning>,
        steps: &[Step],
    ) -> PathRead {
        let (cues, matches, _) = self.read_cues(free, words, entity, consumed, catalog, meaning);
        let asks_place = free.iter().any(|(_, w)| w.norm == "where");
        read_path(steps, &cues, &matches, words, asks_place)
    }

    /// The question's cues for paths from `entity`, each cue's match with each relation, and
    /// how many words name only a label (the answer type, not a hop: "which *papers*").
    pub(super) fn read_cues<'w>(
        &self,
        free: &[(usize, &'w Word)],
        words: &[Word],
        entity: &Entity,
        consumed: &HashSet<usize>,
        catalog: &Catalog,
        meaning: Option<&Meaning>,
    ) -> (Vec<Cue<'w>>, CueMatches, usize) {
        let relation_words: Vec<Vec<SchemaWord>> = catalog
            .relations()
            .map(|(id, _)| vocab::element_words(catalog, Element::Relation(id)))
            .collect();
        let label_words: HashSet<usize> = free
            .iter()
            .filter(|(i, w)| {
                !is_stopword(&w.norm)
                    && label_of(w, *i, catalog, meaning).is_some()
                    // "children" may be a label and a relation: then it names a hop too.
                    && !relation_words.iter().any(|r| element_match(w, r) >= 0.8)
            })
            .map(|(i, _)| *i)
            .collect();
        let consumed: HashSet<usize> = consumed.union(&label_words).copied().collect();
        let cues = cues(free, words, entity, &consumed);
        // Each cue against each relation once, not once per candidate path.
        let lexical: Vec<Vec<(f64, usize)>> = relation_words
            .iter()
            .map(|w| cues.iter().map(|c| best_word_match(c.word, w)).collect())
            .collect();
        // Whether each cue names some relation by its words, stems or WordNet links.
        let placed: Vec<bool> = (0..cues.len())
            .map(|ci| lexical.iter().any(|r| r[ci].0 > 0.0))
            .collect();
        let matches: CueMatches = catalog
            .relations()
            .zip(relation_words.iter().zip(lexical))
            .map(|((id, r), (w, lexical))| {
                let per_cue = cues
                    .iter()
                    .zip(lexical)
                    .enumerate()
                    .map(|(ci, (c, (lexical, at)))| {
                        let cos = meaning
                            .filter(|m| m.applies(true, placed[ci]))
                            .and_then(|m| m.similarity(c.at, Element::Relation(id)));
                        let s = vocab::combine(lexical, cos);
                        // A match by meaning is the phrase's, not one of the name's words.
                        (s, if s > lexical { w.len() } else { at })
                    })
                    .collect();
                (r.name.clone(), per_cue)
            })
            .collect();
        (cues, matches, label_words.len())
    }

    /// Relation paths with `min..=max` steps from the entity, best first: read off the data,
    /// ending at `target` when a label is asked for, ranked by [`path_score`].
    ///
    /// Alternatives offered to choose from ("is X 's husband *a man or a woman*") describe the
    /// answers, not hops: they are read against the names of each path's end nodes, and a
    /// path whose answers one of them names comes first. When no path's answers match them,
    /// they were hops after all ("films X directed or produced") and are ranked as cues.
    pub(super) fn ranked_paths(
        &self,
        q: &PathQuery<'_, '_>,
    ) -> Result<Vec<(f64, Vec<Step>)>, AgentError> {
        let choices = alternatives(q.free);
        if !choices.is_empty() && lexicon().is_some() {
            let without: HashSet<usize> = q.consumed.union(&choices).copied().collect();
            let mut ranked = self.ranked_paths_by(&PathQuery {
                consumed: &without,
                ..*q
            })?;
            let offered: Vec<&Word> = choices.iter().map(|i| &q.words[*i]).collect();
            let mut any = false;
            for r in ranked.iter_mut().take(40) {
                if self.ends_named(&r.2, &offered, q.catalog)? {
                    // More than a hop no word names costs: the offered words name its end.
                    r.0 += 1.0;
                    any = true;
                }
            }
            if any {
                sort_ranked(&mut ranked);
                return Ok(ranked.into_iter().map(|(s, p, _)| (s, p)).collect());
            }
        }
        let ranked = self.ranked_paths_by(q)?;
        Ok(ranked.into_iter().map(|(s, p, _)| (s, p)).collect())
    }

    /// [`Planner::ranked_paths`] with the query's words set aside, with a few end nodes of each.
    pub(super) fn ranked_paths_by(
        &self,
        q: &PathQuery<'_, '_>,
    ) -> Result<Vec<RankedPath>, AgentError> {
        let PathQuery {
            target,
            free,
            words,
            entity,
            consumed,
            catalog,
            meaning,
            min,
            max,
            template,
        } = *q;
        let target = target.and_then(|t| catalog.label_id(t));
        let (cues, matches, label_words) =
            self.read_cues(free, words, entity, consumed, catalog, meaning);
        // A path longer than the words that could name its hops or its end (plus one unnamed) is not
        // what the question asks; not reading it off the data saves most of the work.
        let max = max.min(cues.len() + label_words + 1).max(min);
        let vocab: HashMap<String, Vec<SchemaWord>> = catalog
            .relations()
            .map(|(id, r)| {
                let words = vocab::element_words(catalog, Element::Relation(id));
                (r.name.clone(), words)
            })
            .collect();
        let learned = self
            .strategies
            .and_then(|m| m.lock().ok().map(|s| s.clone()))
            .filter(|s| !s.is_empty());
        let mut person: HashMap<String, bool> = HashMap::new();
        let generic = generic_relations(catalog);
        let asks_place = free.iter().any(|(_, w)| w.norm == "where");
        let asks_person = free
            .iter()
            .any(|(_, w)| matches!(w.norm.as_str(), "who" | "whom"));
        let pattern = question_pattern(words, free, &cues, &matches);
        let mut ranked: Vec<RankedPath> = Vec::new();
        for (steps, labels, ends) in self.data_paths(&entity.nodes, max, catalog)? {
            if steps.len() < min || target.is_some_and(|t| !labels.contains(&t)) {
                continue;
            }
            let read = read_path(&steps, &cues, &matches, words, asks_place);
            let mut score = read.score;
            // An unnamed hop through a relation named after its label is the plain link.
            score += 0.2
                * steps
                    .iter()
                    .filter(|st| {
                        generic.contains(&st.relation)
                            && matches
                                .get(&st.relation)
                                .is_none_or(|m| m.iter().all(|x| x.0 == 0.0))
                    })
                    .count() as f64;
            if let Some(l) = &learned {
                score += learned_prior(l, &steps, &cues, &matches, template);
                score += l.template_prior(&pattern, &pattern_hop(&steps, &read.named_hops));
            }
            if asks_person && target.is_none() {
                if let Some(last) = steps.last() {
                    let is_person = *person.entry(last.relation.clone()).or_insert_with(|| {
                        vocab.get(&last.relation).is_some_and(|ws| {
                            ws.iter()
                                .any(|w| lexicon().is_some_and(|lx| lx.is_a(&w.word, "person")))
                        })
                    });
                    if is_person {
                        score += 0.3;
                    }
                }
            }
            tracing::trace!(score, path = ?steps, "candidate path");
            ranked.push((score, steps, ends));
        }
        sort_ranked(&mut ranked);
        // The best few, read once more with what their end nodes are: a word the relations do
        // not name may name the answers ("a man or a woman" → `female`), and "where" asks for
        // places.
        let unknown: Vec<&Word> = cues
            .iter()
            .enumerate()
            .filter(|(ci, _)| matches.values().all(|m| m[*ci].0 == 0.0))
            .map(|(_, c)| c.word)
            .collect();
        if (asks_place || !unknown.is_empty()) && lexicon().is_some() {
            let top = ranked.len().min(40);
            for r in ranked.iter_mut().take(top) {
                r.0 += self.answer_words_bonus(&r.2, &unknown, asks_place, catalog)?;
            }
            sort_ranked(&mut ranked);
        }
        self.break_top_tie(&mut ranked, catalog)?;
        Ok(ranked)
    }

    /// When the best paths score alike (no word tells their relations apart: "the players of
    /// a club" by `plays_for`, `CAPTAIN_OF` or `formerlyPlayedFor`), the one whose relations
    /// link a node to more nodes goes first: the general link of two labels has more edges
    /// than a special one (a club's captain is one of its players). Ties are otherwise broken
    /// by relation name, which says nothing. Only in a graph of several labels: where every
    /// node has the one label, all relations link the same kind and their edge counts say
    /// nothing of which is the general link (PathQuestion's 3-hop set lost 4.5 points).
    fn break_top_tie(
        &self,
        ranked: &mut [RankedPath],
        catalog: &Catalog,
    ) -> Result<(), AgentError> {
        let Some((best, first)) = ranked.first().map(|r| (r.0, r.1.len())) else {
            return Ok(());
        };
        let tied = ranked
            .iter()
            .take_while(|r| r.0 == best && r.1.len() == first)
            .count();
        if tied < 2 || catalog.labels().nth(1).is_none() {
            return Ok(());
        }
        let mut reach: HashMap<(String, bool), f64> = HashMap::new();
        let mut keyed = Vec::with_capacity(tied);
        for r in ranked[..tied].iter() {
            let mut product = 1.0;
            for st in &r.1 {
                let key = (st.relation.clone(), st.reversed);
                let per_node = match reach.get(&key) {
                    Some(v) => *v,
                    None => {
                        let v = self.step_reach(st, catalog)?;
                        reach.insert(key, v);
                        v
                    }
                };
                product *= per_node;
            }
            keyed.push(product);
        }
        let mut order: Vec<usize> = (0..tied).collect();
        // stable: equal reach keeps the name order
        order.sort_by(|a, b| keyed[*b].total_cmp(&keyed[*a]));
        let reordered: Vec<RankedPath> = order.iter().map(|i| ranked[*i].clone()).collect();
        for (slot, r) in ranked.iter_mut().zip(reordered) {
            *slot = r;
        }
        Ok(())
    }

    /// Edges a node has through `step`, on average over the first [`REACH_SAMPLE`] nodes of
    /// each label the relation starts from in that direction (the catalog's endpoints).
    fn step_reach(&self, step: &Step, catalog: &Catalog) -> Result<f64, AgentError> {
        let Some(rel) = catalog.relation_id(&step.relation) else {
            return Ok(0.0);
        };
        let Some(def) = catalog.relation(rel) else {
            return Ok(0.0);
        };
        let mut starts: Vec<LabelId> = def
            .endpoints
            .iter()
            .map(|(src, dst)| if step.reversed { *dst } else { *src })
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let direction = if step.reversed {
            Direction::In
        } else {
            Direction::Out
        };
        let (mut nodes, mut edges) = (0usize, 0usize);
        let mut buf = Vec::new();
        for label in starts {
            for node in self.graph.label_nodes_first(label, REACH_SAMPLE)? {
                buf.clear();
                self.graph
                    .neighbors_into(node, direction, &[rel], &mut buf)?;
                nodes += 1;
                edges += buf.len();
            }
        }
        Ok(if nodes == 0 {
            0.0
        } else {
            edges as f64 / nodes as f64
        })
    }
}

/// Nodes per label sampled to tell how many edges a relation gives a node.
const REACH_SAMPLE: usize = 64;

/// What a path search is asked: paths of `min..=max` steps from `entity`, ending at the
/// `target` label when one is asked for, read against the question's `free` words (those no
/// mention covers) minus the `consumed` ones.
#[derive(Clone, Copy)]
pub(super) struct PathQuery<'a, 'w> {
    pub(super) target: Option<&'a str>,
    pub(super) free: &'a [(usize, &'w Word)],
    pub(super) words: &'a [Word],
    pub(super) entity: &'a Entity,
    pub(super) consumed: &'a HashSet<usize>,
    pub(super) catalog: &'a Catalog,
    /// The question's phrases by meaning, with a semantic embedder.
    pub(super) meaning: Option<&'a Meaning>,
    pub(super) min: usize,
    pub(super) max: usize,
    /// The question's shape ([`crate::strategy::Decision::template`]), for what feedback on
    /// questions of that shape taught.
    pub(super) template: &'a str,
}

/// A relation sequence found in the data, with the labels of the nodes it ends at and a few
/// of those nodes.
pub(super) type DataPath = (Vec<Step>, HashSet<LabelId>, Vec<NodeId>);

/// Paths longer than this are not considered.
pub(super) const MAX_PATH: usize = 4;

/// Frontier nodes expanded per relation sequence when paths are read off the data.
pub(super) const PATH_FRONTIER: usize = 64;

/// Relation sequences kept per length when paths are read off the data.
pub(super) const PATH_SEQUENCES: usize = 4000;

/// Edges read in all while paths are read off the data.
pub(super) const PATH_EDGES: usize = 40_000;

/// A content word of the question with its place in the chain of relations: words after the
/// mention come first ("X 's R1 's R2"), then the words before it, nearest first ("the R2 of R1
/// of X"), so the word nearer the entity is the earlier hop.
#[derive(Clone, Debug)]
pub(super) struct Cue<'w> {
    pub(super) word: &'w Word,
    pub(super) at: usize,
    pub(super) order: usize,
    /// After the mention ("X 's R").
    pub(super) after: bool,
    /// In the wh-phrase (the content words right after "which", "what" or "name a"), or the
    /// verb of "… does X *verb*".
    pub(super) wh_phrase: bool,
}

pub(super) fn cues<'w>(
    free: &[(usize, &'w Word)],
    words: &[Word],
    entity: &Entity,
    consumed: &HashSet<usize>,
) -> Vec<Cue<'w>> {
    let content: Vec<(usize, &Word)> = free
        .iter()
        .filter(|(i, w)| {
            !consumed.contains(i)
                && !is_stopword(&w.norm)
                && !w.norm.chars().all(|c| c.is_ascii_digit())
        })
        .map(|(i, w)| (*i, *w))
        .collect();
    let mut after: Vec<(usize, &Word)> = content
        .iter()
        .filter(|(i, _)| *i >= entity.span.1)
        .copied()
        .collect();
    after.sort_by_key(|(i, _)| *i);
    let mut before: Vec<(usize, &Word)> = content
        .iter()
        .filter(|(i, _)| *i < entity.span.0)
        .copied()
        .collect();
    before.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    after
        .into_iter()
        .chain(before)
        .enumerate()
        .map(|(order, (at, word))| Cue {
            word,
            at,
            order,
            after: at >= entity.span.1,
            // "What topics does X *cover*": the verb relates X to the wh-phrase's noun.
            wh_phrase: in_wh_phrase(words, at)
                || (at == entity.span.1
                    && entity.span.0 > 0
                    && matches!(
                        words[entity.span.0 - 1].norm.as_str(),
                        "do" | "does" | "did"
                    )),
        })
        .collect()
}

/// Whether the word at `at` follows "which", "what" or "name (a)" with only content words
/// between.
pub(super) fn in_wh_phrase(words: &[Word], at: usize) -> bool {
    let mut i = at;
    while i > 0 {
        i -= 1;
        let w = words[i].norm.as_str();
        if matches!(w, "which" | "what" | "name") {
            return true;
        }
        if is_stopword(w) && !matches!(w, "a" | "an") {
            return false;
        }
    }
    false
}

/// How a path reads the question: its score, and the question words it leaves unexplained
/// (cues that name none of its hops and are neither a wh-phrase's words nor a named word's
/// modifiers: "other half" when no relation is named so).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct PathRead {
    pub(super) score: f64,
    /// Word positions of the unexplained cues.
    pub(super) unknown: Vec<usize>,
    /// Word positions of the cues that name a hop, or are explained (wh-phrase, modifier).
    pub(super) read: Vec<usize>,
    /// Word positions of the cues that name a hop.
    pub(super) named: Vec<usize>,
    /// Per hop, whether a cue names it.
    pub(super) named_hops: Vec<bool>,
}

/// [`read_path`]'s score.
pub(super) fn path_score(
    steps: &[Step],
    cues: &[Cue<'_>],
    matches: &HashMap<String, Vec<(f64, usize)>>,
    words: &[Word],
    asks_place: bool,
) -> f64 {
    read_path(steps, cues, matches, words, asks_place).score
}

/// How well a relation path reads the question: each cue counts the best match among the
/// path's relations, a hop no cue names costs 0.7 (0.2 when an unknown word is there to name
/// it), cues that name hops out of order cost 0.3 a pair, and the first hop's direction
/// follows the wording ("papers that cite X" is `<CITES`, "X 's parents" is `parents`).
pub(super) fn read_path(
    steps: &[Step],
    cues: &[Cue<'_>],
    matches: &HashMap<String, Vec<(f64, usize)>>,
    words: &[Word],
    asks_place: bool,
) -> PathRead {
    let mut unknown_at: Vec<usize> = Vec::new();
    let mut read_at: Vec<usize> = Vec::new();
    let mut named_at: Vec<usize> = Vec::new();
    let none = vec![(0.0, 0); cues.len()];
    let rel_match: Vec<&Vec<(f64, usize)>> = steps
        .iter()
        .map(|s| matches.get(&s.relation).unwrap_or(&none))
        .collect();
    let mut score = 0.0;
    let mut named = vec![false; steps.len()];
    let mut matched: Vec<(usize, usize)> = Vec::new();
    // (hop, schema word) pairs already credited, with the token that took them: "X 's
    // children 's children" needs two hops, "religious belief" is one phrase for one.
    let mut used: HashMap<(usize, usize), usize> = HashMap::new();
    let mut unknown_starts: Vec<usize> = Vec::new();
    let mut last_unknown: Option<usize> = None;
    let mut unknown_cues: Vec<usize> = Vec::new();
    for (ci, c) in cues.iter().enumerate() {
        let mut hops: Vec<(usize, f64, usize)> = rel_match
            .iter()
            .enumerate()
            .map(|(h, m)| (h, m[ci].0, m[ci].1))
            .filter(|(h, s, w)| {
                *s > 0.0
                    && used
                        .get(&(*h, *w))
                        .is_none_or(|g| g.abs_diff(c.word.group) == 1)
            })
            .collect();
        hops.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if let Some(&(hop, s, w)) = hops.first() {
            score += s;
            named[hop] = true;
            used.insert((hop, w), c.word.group);
            matched.push((c.order, hop));
            read_at.push(c.at);
            named_at.push(c.at);
        } else {
            unknown_cues.push(ci);
        }
    }
    for &ci in &unknown_cues {
        let c = &cues[ci];
        // The words of the wh-phrase ("which *professional football team*") name the answer,
        // which the path's last hop yields: no hop of their own.
        if c.wh_phrase {
            read_at.push(c.at);
            continue;
        }
        // A word next to a named one modifies it ("*soccer* club", "play *professional*").
        let modifier = cues
            .iter()
            .enumerate()
            .any(|(cj, d)| !unknown_cues.contains(&cj) && d.word.group.abs_diff(c.word.group) == 1);
        if modifier {
            read_at.push(c.at);
            continue;
        }
        unknown_at.push(c.at);
        // Adjacent unknown words ("other half") are one unknown phrase.
        if last_unknown.is_none_or(|o| o + 1 != c.order) {
            unknown_starts.push(c.order);
        }
        last_unknown = Some(c.order);
    }
    // "where" asks for a place: a hop of its own may be needed to reach one.
    if asks_place {
        unknown_starts.push(usize::MAX);
    }
    let unknown_groups = unknown_starts.len();
    // A hop no word names that goes back through the relation just taken
    // (`place_of_death -> <place_of_death`) only returns to where the path was: it stands for
    // no unknown word ("*where* did X's daughter die" asks for the place the path reached).
    let back = |h: usize| {
        h > 0
            && steps[h].relation == steps[h - 1].relation
            && steps[h].reversed != steps[h - 1].reversed
    };
    // An unknown phrase stands for an unnamed hop between the named hops around it (in the
    // question's order); with no such hop the path reads the words out of order.
    for u in &unknown_starts {
        let lo = matched.iter().filter(|(o, _)| o < u).map(|(_, h)| *h).max();
        let hi = matched.iter().filter(|(o, _)| o > u).map(|(_, h)| *h).min();
        let fits = (0..steps.len())
            .any(|h| !named[h] && !back(h) && lo.is_none_or(|l| h > l) && hi.is_none_or(|x| h < x));
        if !fits {
            score -= 0.3;
        }
    }
    let unnamed = named.iter().filter(|n| !**n).count();
    let onward = (0..steps.len()).filter(|h| !named[*h] && !back(*h)).count();
    let explained = onward.min(unknown_groups);
    score -= 0.2 * explained as f64 + 0.7 * (unnamed - explained) as f64;
    score -= 0.3 * unknown_groups.saturating_sub(onward) as f64;
    for (i, a) in matched.iter().enumerate() {
        for b in &matched[i + 1..] {
            if (a.0 < b.0 && a.1 > b.1) || (a.0 > b.0 && a.1 < b.1) {
                score -= 0.3;
            }
        }
    }
    // The first hop's direction, from the wording around the word that names it.
    if let Some(first) = steps.first() {
        if let Some(c) = cues
            .iter()
            .enumerate()
            .filter(|(ci, _)| rel_match[0][*ci].0 > 0.0)
            .map(|(_, c)| c)
            .min_by_key(|c| c.order)
        {
            let incoming = incoming_reading(words, c);
            score += if incoming == first.reversed {
                0.25
            } else {
                -0.25
            };
        }
    }
    // Going back the way one came is rarely what a question asks when another hop fits as well.
    if there_and_back(steps) {
        score -= 0.15;
    }
    PathRead {
        score: score - 0.05 * steps.len() as f64,
        unknown: unknown_at,
        read: read_at,
        named: named_at,
        named_hops: named,
    }
}

/// Per relation, each cue's best match with its words: (score, schema word index).
pub(super) type CueMatches = HashMap<String, Vec<(f64, usize)>>;

/// The choices a path makes (stem, relation): each cue that names a hop with the hop it names
/// best, and each cue that names none with every hop no cue names ("darling" with `spouse`).
pub(super) fn path_choices(
    steps: &[Step],
    cues: &[Cue<'_>],
    matches: &CueMatches,
) -> Vec<(String, String)> {
    let score = |h: usize, ci: usize| {
        matches
            .get(&steps[h].relation)
            .and_then(|m| m.get(ci))
            .map_or(0.0, |m| m.0)
    };
    let mut named = vec![false; steps.len()];
    let mut out = Vec::new();
    let mut unknown = Vec::new();
    for (ci, c) in cues.iter().enumerate() {
        let best = (0..steps.len())
            .map(|h| (h, score(h, ci)))
            .filter(|(_, s)| *s > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        match best {
            Some((h, _)) => {
                named[h] = true;
                out.push((c.word.stem.clone(), steps[h].relation.clone()));
            }
            None => unknown.push(c.word.stem.clone()),
        }
    }
    for u in unknown {
        for (h, s) in steps.iter().enumerate() {
            if !named[h] {
                out.push((u.clone(), s.relation.clone()));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// What feedback says of a candidate path: its choices' priors and what questions of the same
/// shape (`template`) taught of it. A plan shape alone, whatever the question, teaches nothing
/// here: "which states border #" must not make "through which states does # run" a border.
pub(super) fn learned_prior(
    l: &Strategies,
    steps: &[Step],
    cues: &[Cue<'_>],
    matches: &CueMatches,
    template: &str,
) -> f64 {
    // Each word counts once, by its best pairing: a word no relation names is paired with
    // every unnamed hop, and a longer path must not collect its lesson once per hop.
    let mut by_word: HashMap<String, f64> = HashMap::new();
    for (w, r) in path_choices(steps, cues, matches) {
        let p = l.choice_prior(&w, &r);
        by_word.entry(w).and_modify(|b| *b = b.max(p)).or_insert(p);
    }
    by_word.values().sum::<f64>() + l.template_prior(template, &path_shape(steps))
}

/// A question's pattern: its shape ([`crate::strategy::Decision::template`]) with every word
/// that names some relation as `@` as well ("what does # 's @ do"), so that what feedback
/// taught of "what does X's father do" (the hop after the named one: `profession`) reaches
/// "what does Y's husband do". `free`: the words no mention covers.
pub(super) fn question_pattern(
    words: &[Word],
    free: &[(usize, &Word)],
    cues: &[Cue<'_>],
    matches: &CueMatches,
) -> String {
    let naming: HashSet<usize> = cues
        .iter()
        .enumerate()
        .filter(|(ci, _)| {
            matches
                .values()
                .any(|m| m.get(*ci).is_some_and(|x| x.0 > 0.0))
        })
        .map(|(_, c)| c.at)
        .collect();
    let mut out: Vec<&str> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !free.iter().any(|(j, _)| *j == i) {
            if out.last() != Some(&"#") {
                out.push("#");
            }
        } else if naming.contains(&i) {
            out.push("@");
        } else {
            out.push(&w.norm);
        }
    }
    format!("pattern: {}", out.join(" "))
}

/// A path as a pattern's lesson names it: each hop a word names as `@`, the others as they
/// are (`@ -> profession`).
pub(super) fn pattern_hop(steps: &[Step], named: &[bool]) -> String {
    let hops: Vec<String> = steps
        .iter()
        .zip(named)
        .map(|(s, n)| if *n { "@".to_owned() } else { s.to_string() })
        .collect();
    hops.join(" -> ")
}

/// A candidate path: score, steps and a few of the nodes it ends at.
pub(super) type RankedPath = (f64, Vec<Step>, Vec<NodeId>);

/// Best score first; ties go to the shorter path, then to the order found.
pub(super) fn sort_ranked(r: &mut [RankedPath]) {
    r.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then_with(|| step_key(&a.1).cmp(&step_key(&b.1)))
    });
}

/// A path's relations and directions, for a tie-break that does not depend on the order the
/// relations were first imported in.
fn step_key(steps: &[Step]) -> Vec<(&str, bool)> {
    steps
        .iter()
        .map(|s| (s.relation.as_str(), s.reversed))
        .collect()
}

/// Relations named after a label they connect (`STATE_NAME` between City and State, `genre`
/// to Genre, `HAS_TOPIC` to Topic): the plain link between the two, which a question need not
/// name ("cities *in* texas", "austin texas").
pub(super) fn generic_relations(catalog: &Catalog) -> HashSet<String> {
    catalog
        .relations()
        .filter(|(_, r)| {
            let words = schema_words(&r.name);
            !words.is_empty()
                && r.endpoints.iter().any(|(src, dst)| {
                    [src, dst].iter().any(|l| {
                        let label = catalog
                            .label_name(**l)
                            .map(schema_words)
                            .unwrap_or_default();
                        words.iter().all(|w| label.iter().any(|x| x.stem == w.stem))
                    })
                })
        })
        .map(|(_, r)| r.name.clone())
        .collect()
}

/// Whether a question word names one of `names` (stems, prefixes or WordNet: woman → female).
pub(super) fn names_meet(names: &[String], words: &[&Word]) -> bool {
    let schema: Vec<SchemaWord> = names.iter().flat_map(|n| schema_words(n)).collect();
    words.iter().any(|w| {
        schema
            .iter()
            .any(|s| word_match(&w.norm, &w.stem, s) >= 0.7)
    })
}

/// Word positions of alternatives offered to choose from: the content words on either side of
/// "or" ("a man or a woman", "alive or dead"), articles aside.
pub(super) fn alternatives(free: &[(usize, &Word)]) -> HashSet<usize> {
    let mut out = HashSet::new();
    for (k, (i, w)) in free.iter().enumerate() {
        if w.norm != "or" || k == 0 {
            continue;
        }
        let (before, bw) = free[k - 1];
        let after = free[k + 1..]
            .iter()
            .take_while(|(_, x)| {
                matches!(x.norm.as_str(), "a" | "an" | "the") || !is_stopword(&x.norm)
            })
            .find(|(_, x)| !is_stopword(&x.norm));
        let Some((after, _)) = after else { continue };
        // The words must be next to "or" in the question, not across a mention.
        if before + 1 != *i || *after > i + 2 || is_stopword(&bw.norm) {
            continue;
        }
        out.insert(before);
        out.insert(*after);
    }
    out
}

/// "Which papers cite X" (a verb before the mention) reads as incoming; "X 's parents",
/// "the parents of X", "papers X cites" and "papers cited by X" as outgoing.
pub(super) fn incoming_reading(words: &[Word], cue: &Cue<'_>) -> bool {
    if cue.after {
        return false;
    }
    let next = words.get(cue.at + 1).map(|w| w.norm.as_str());
    let noun_of = next == Some("of");
    let passive_by = next == Some("by") && cue.word.norm.ends_with("ed");
    !(noun_of || passive_by)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::planner::words::question_words;
    use crate::planner::LinkMethod;

    /// An entity mentioned at word positions `span`.
    pub(crate) fn mention(span: (usize, usize)) -> Entity {
        Entity {
            mention: String::new(),
            nodes: Vec::new(),
            label: "Entity".into(),
            keys: Vec::new(),
            name: String::new(),
            method: LinkMethod::Exact,
            marked: true,
            span,
        }
    }

    /// The cues of `question` around a mention at `span`, and their matches with `relations`.
    fn read<'w>(
        words: &'w [Word],
        span: (usize, usize),
        relations: &[&str],
    ) -> (Vec<Cue<'w>>, CueMatches) {
        let free: Vec<(usize, &Word)> = words
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < span.0 || *i >= span.1)
            .collect();
        let cues = cues(&free, words, &mention(span), &HashSet::new());
        let matches = relations
            .iter()
            .map(|r| {
                let sw = schema_words(r);
                let per: Vec<(f64, usize)> = cues
                    .iter()
                    .map(|c| crate::planner::words::best_word_match(c.word, &sw))
                    .collect();
                ((*r).to_owned(), per)
            })
            .collect();
        (cues, matches)
    }

    fn step(r: &str, reversed: bool) -> Step {
        Step {
            relation: r.to_owned(),
            reversed,
        }
    }

    #[test]
    fn the_path_whose_relations_the_words_name_in_order_scores_best() {
        // "the nationality of X 's director": director first (nearest after), then nationality.
        let words = question_words("what is the nationality of X 's director");
        let (cues, matches) = read(&words, (5, 6), &["director", "nationality", "spouse"]);
        let right = path_score(
            &[step("director", false), step("nationality", false)],
            &cues,
            &matches,
            &words,
            false,
        );
        let reversed_order = path_score(
            &[step("nationality", false), step("director", false)],
            &cues,
            &matches,
            &words,
            false,
        );
        let unnamed = path_score(
            &[step("director", false), step("spouse", false)],
            &cues,
            &matches,
            &words,
            false,
        );
        assert!(right > reversed_order, "{right} vs {reversed_order}");
        assert!(right > unnamed, "{right} vs {unnamed}");
    }

    #[test]
    fn a_hop_back_the_way_it_came_stands_for_no_unknown_word() {
        // "where did X 's daughter die": the place of death is the place asked; going back to
        // the others who died there is no hop "where" asks for.
        let words = question_words("where did X 's daughter die");
        let (cues, matches) = read(&words, (2, 4), &["children", "place_of_death"]);
        let there = path_score(
            &[step("children", false), step("place_of_death", false)],
            &cues,
            &matches,
            &words,
            true,
        );
        let and_back = path_score(
            &[
                step("children", false),
                step("place_of_death", false),
                step("place_of_death", true),
            ],
            &cues,
            &matches,
            &words,
            true,
        );
        assert!(there > and_back, "{there} vs {and_back}");
    }

    #[test]
    fn the_first_hop_follows_the_wording() {
        // "papers that cite X": incoming; "papers cited by X": outgoing.
        let words = question_words("which papers cite X");
        let (cues, matches) = read(&words, (3, 4), &["cites"]);
        let incoming = path_score(&[step("cites", true)], &cues, &matches, &words, false);
        let outgoing = path_score(&[step("cites", false)], &cues, &matches, &words, false);
        assert!(incoming > outgoing);
        let words = question_words("which papers are cited by X");
        let (cues, matches) = read(&words, (5, 6), &["cites"]);
        let incoming = path_score(&[step("cites", true)], &cues, &matches, &words, false);
        let outgoing = path_score(&[step("cites", false)], &cues, &matches, &words, false);
        assert!(outgoing > incoming);
    }

    #[test]
    fn offered_alternatives_are_the_words_around_or() {
        let words = question_words("is X 's husband a man or a woman");
        let free: Vec<(usize, &Word)> = words.iter().enumerate().collect();
        let alt = alternatives(&free);
        let mut got: Vec<&str> = alt.iter().map(|i| words[*i].norm.as_str()).collect();
        got.sort();
        assert_eq!(got, ["man", "woman"]);
    }

    #[test]
    fn ties_go_to_the_shorter_path() {
        let mut r: Vec<RankedPath> = vec![
            (1.0, vec![step("a", false), step("b", false)], Vec::new()),
            (1.0, vec![step("c", false)], Vec::new()),
            (2.0, vec![step("d", false), step("e", false)], Vec::new()),
        ];
        sort_ranked(&mut r);
        let first: Vec<&str> = r.iter().map(|p| p.1[0].relation.as_str()).collect();
        assert_eq!(first, ["d", "c", "a"]);
    }
}
