//! The planner agent: turns a question into an EXPLORE plan.
//!
//! 1. **Entities**: every run of words in the question is looked up among node names (the
//!    name/title property), longest run first; a declared property index answers the lookup,
//!    else an in-memory map built once from a label scan. A quoted phrase that names nothing
//!    exactly is linked by vector similarity instead.
//! 2. **Type**: counting or superlative words make an *aggregation*; a property cue ("when",
//!    "year", "how many citations") an *attribute*; otherwise the relation path decides between
//!    a *direct relation* (one hop) and *multi-hop*.
//! 3. **Path**: every path of at most three relation steps from the entity's label to the
//!    target label is read off the catalog's relation endpoints and ranked by how many of its
//!    relations the question names (word stems and a few synonyms), minus its length.
//! 4. **Plan**: the EXPLORE text is written out and compiled with `prepare`, so `EXPLAIN ASK`
//!    prints the same canonical form as any hand-written statement.
//!
//! The planner never reads node text as instructions: names are only compared with question
//! words, and with an LLM they are sent as quoted data (see [`crate::llm::data_block`]).

use crate::catalog::EngineCatalog;
use crate::explore::EntrySearch;
use crate::llm::{data_block, json_object, LlmBackend, Message, DATA_RULE};
use crate::AgentError;
use cairn_embed::{cosine, Embedder};
use cairn_query::{prepare, Compiled, Plan};
use cairn_storage_format::{LabelId, NodeId, Value};
use cairn_store::describe::{description, display_name};
use cairn_store::{Catalog, Graph, GraphRead};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The four question types of the academic graph-RAG design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QuestionType {
    /// A property of one entity ("When was X published?"). 0 hops.
    Attribute,
    /// The neighbours of an entity through one relation ("Who wrote X?"). 1 hop.
    Relation,
    /// Counts, argmax, top-k over a neighbourhood ("How many papers did X write?"). 1–2 hops.
    Aggregation,
    /// The ends of a longer relation path ("Who are X's co-authors?"). 2+ hops.
    MultiHop,
}

impl QuestionType {
    pub const ALL: [QuestionType; 4] = [
        QuestionType::Attribute,
        QuestionType::Relation,
        QuestionType::Aggregation,
        QuestionType::MultiHop,
    ];

    pub fn name(self) -> &'static str {
        match self {
            QuestionType::Attribute => "attribute",
            QuestionType::Relation => "relation",
            QuestionType::Aggregation => "aggregation",
            QuestionType::MultiHop => "multi-hop",
        }
    }

    pub fn parse(s: &str) -> Option<QuestionType> {
        let s = s.trim().to_lowercase().replace(['_', ' '], "-");
        QuestionType::ALL
            .into_iter()
            .find(|t| t.name() == s || (s == "direct-relation" && *t == QuestionType::Relation))
    }
}

impl fmt::Display for QuestionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an aggregation computes over the end nodes of the path.
#[derive(Clone, Debug, PartialEq)]
pub enum Aggregate {
    /// The number of distinct end nodes.
    Count,
    /// The `k` best end nodes by `by` (a numeric property), or by how many paths reach them when
    /// `by` is `None`. With `k = 1` every node tied for the maximum is returned (argmax).
    Top { k: usize, by: Option<String> },
}

/// How a mention was linked to nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkMethod {
    /// The mention is a node's name or title (case and punctuation aside).
    Exact,
    /// The nearest node by embedding similarity (no exact name matched).
    Vector,
}

/// A mention in the question linked to graph nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    /// The words of the question that name it.
    pub mention: String,
    pub nodes: Vec<NodeId>,
    pub label: String,
    pub keys: Vec<String>,
    pub name: String,
    pub method: LinkMethod,
    /// Word positions of the mention in the question, `[start, end)`.
    span: (usize, usize),
}

/// One relation step of the planned path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub relation: String,
    /// Followed against its direction (`<R`).
    pub reversed: bool,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reversed {
            f.write_str("<")?;
        }
        f.write_str(&ident(&self.relation))
    }
}

/// Search sizes of a plan; [`Planner::widen`] multiplies them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub beam: u32,
    pub budget: u32,
    pub limit: u32,
    /// Neighbours scored per expansion: widening raises it too, or a hub sampled the first
    /// time would be sampled the same way again.
    pub fanout: u32,
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            beam: 256,
            budget: 20_000,
            limit: 1000,
            fanout: cairn_query::limits::DEFAULT_FANOUT,
        }
    }
}

/// The planner's decision, with the compiled plan.
#[derive(Clone, Debug)]
pub struct QueryPlan {
    pub question: String,
    pub qtype: QuestionType,
    /// The linked entity the plan starts from, if any.
    pub entity: Option<Entity>,
    /// Other linked mentions, for the record.
    pub other_entities: Vec<Entity>,
    pub target: Option<String>,
    pub path: Vec<Step>,
    /// The property an attribute question asks for.
    pub attribute: Option<String>,
    pub aggregate: Option<Aggregate>,
    pub sizes: Sizes,
    /// The EXPLORE statement (what `EXPLAIN ASK` prints, via [`Plan`]'s canonical form).
    pub text: String,
    pub plan: Plan,
    /// True if an LLM's classification was used.
    pub llm: bool,
}

/// Node names, lower-cased word sequences → nodes, built once from a label scan.
#[derive(Debug, Default)]
struct NameIndex {
    names: HashMap<String, Vec<NodeId>>,
    labels: HashMap<NodeId, LabelId>,
    /// Every named node, for the vector fallback.
    all: Vec<NodeId>,
    longest: usize,
}

/// The planner.
pub struct Planner<'g> {
    graph: &'g Graph,
    embedder: &'g dyn Embedder,
    search: Option<&'g dyn EntrySearch>,
    llm: Option<&'g dyn LlmBackend>,
    names: OnceLock<Arc<NameIndex>>,
    lexicon: Lexicon,
}

impl fmt::Debug for Planner<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Planner")
            .field("llm", &self.llm.is_some())
            .finish()
    }
}

/// Longest mention tried, in words.
const MAX_MENTION_WORDS: usize = 16;
/// Minimum cosine for a vector-linked mention.
const VECTOR_LINK_MIN: f32 = 0.55;
/// Paths longer than this are not considered.
const MAX_PATH: usize = 3;

impl<'g> Planner<'g> {
    pub fn new(graph: &'g Graph, embedder: &'g dyn Embedder) -> Self {
        Planner {
            graph,
            embedder,
            search: None,
            llm: None,
            names: OnceLock::new(),
            lexicon: Lexicon::default(),
        }
    }

    /// Uses the vector index for the vector fallback of entity linking.
    pub fn with_search(mut self, search: &'g dyn EntrySearch) -> Self {
        self.search = Some(search);
        self
    }

    /// Lets an LLM classify the question (type and target label); entity linking and the path
    /// stay deterministic, and a reply outside the schema falls back to the offline decision.
    pub fn with_llm(mut self, llm: &'g dyn LlmBackend) -> Self {
        self.llm = Some(llm);
        self
    }

    /// Plans `question`.
    pub fn plan(&self, question: &str) -> Result<QueryPlan, AgentError> {
        self.plan_sized(question, Sizes::default())
    }

    /// The same decision with a wider search (beam, budget and limit ×4, within the caps).
    pub fn widen(&self, plan: &QueryPlan) -> Result<QueryPlan, AgentError> {
        let s = plan.sizes;
        let sizes = Sizes {
            beam: (s.beam * 4).min(cairn_query::limits::MAX_BEAM),
            budget: s
                .budget
                .saturating_mul(4)
                .min(cairn_query::limits::MAX_BUDGET),
            limit: s
                .limit
                .saturating_mul(4)
                .min(cairn_query::limits::MAX_LIMIT),
            fanout: s
                .fanout
                .saturating_mul(4)
                .min(cairn_query::limits::MAX_FANOUT),
        };
        let mut wider = plan.clone();
        wider.sizes = sizes;
        self.compile(&mut wider)?;
        Ok(wider)
    }

    fn plan_sized(&self, question: &str, sizes: Sizes) -> Result<QueryPlan, AgentError> {
        let catalog = self.graph.catalog();
        let words = tokenize(question);
        let mut entities = self.link(&words, question, &catalog)?;
        // The main entity: the longest mention (exact before vector).
        entities.sort_by_key(|e| {
            (
                e.method != LinkMethod::Exact,
                std::cmp::Reverse(e.span.1 - e.span.0),
                e.span.0,
            )
        });
        let entity = entities.first().cloned();
        let others: Vec<Entity> = entities.iter().skip(1).cloned().collect();
        let covered: HashSet<usize> = entities.iter().flat_map(|e| e.span.0..e.span.1).collect();
        let free: Vec<(usize, &Word)> = words
            .iter()
            .enumerate()
            .filter(|(i, _)| !covered.contains(i))
            .collect();

        let mut analysis = self.analyse(&free, &words, entity.as_ref(), &catalog)?;
        let mut used_llm = false;
        if let Some(llm) = self.llm {
            match self.llm_classify(llm, question, entity.as_ref(), &catalog) {
                Ok((qtype, target)) => {
                    used_llm = true;
                    analysis.apply_llm(qtype, target);
                }
                Err(e) => tracing::warn!(error = %e, "LLM planner failed; using the offline plan"),
            }
        }
        let start_label = entity.as_ref().map(|e| e.label.clone());
        let (qtype, path) = match (analysis.qtype, &start_label, &analysis.target) {
            (Some(QuestionType::Attribute), _, _) => (QuestionType::Attribute, Vec::new()),
            (t, Some(start), Some(target)) => {
                let (min, max) = match t {
                    Some(QuestionType::Relation) => (1, 1),
                    Some(QuestionType::MultiHop) => (2, MAX_PATH),
                    _ => (1, MAX_PATH),
                };
                let path = self.best_path(
                    start,
                    target,
                    &free,
                    &words,
                    entity.as_ref(),
                    &analysis.consumed,
                    &catalog,
                    min,
                    max,
                );
                let qtype = match t {
                    Some(q) => q,
                    None if path.len() <= 1 => QuestionType::Relation,
                    None => QuestionType::MultiHop,
                };
                (qtype, path)
            }
            (t, _, _) => (t.unwrap_or(QuestionType::Relation), Vec::new()),
        };
        let aggregate = if qtype == QuestionType::Aggregation {
            Some(analysis.aggregate.clone().unwrap_or(Aggregate::Count))
        } else {
            None
        };
        let mut plan = QueryPlan {
            question: question.to_owned(),
            qtype,
            entity,
            other_entities: others,
            target: analysis.target.clone(),
            path,
            attribute: analysis.attribute.clone(),
            aggregate,
            sizes,
            text: String::new(),
            plan: placeholder_plan(),
            llm: used_llm,
        };
        self.compile(&mut plan)?;
        Ok(plan)
    }

    /// Writes the EXPLORE text for `plan` and compiles it.
    fn compile(&self, plan: &mut QueryPlan) -> Result<(), AgentError> {
        let q = str_lit(&plan.question);
        let s = plan.sizes;
        let entries = match &plan.entity {
            Some(e) => e
                .keys
                .iter()
                .map(|k| format!("{} {}", ident(&e.label), str_lit(k)))
                .collect::<Vec<_>>()
                .join(", "),
            None => format!("SEARCH {q} TOP 5"),
        };
        let text = match (&plan.qtype, &plan.entity) {
            (QuestionType::Attribute, Some(e)) => {
                let n = e.keys.len().max(1);
                format!(
                    "EXPLORE {q}\n  FROM {entries}\n  VIA ANY\n  TARGET {}\n  BEAM 1 DEPTH 1 BUDGET 1\n  UNTIL found {n}\n  RETURN ANSWER LIMIT {n}",
                    ident(&e.label)
                )
            }
            _ if !plan.path.is_empty() => {
                let via: Vec<String> = plan.path.iter().map(Step::to_string).collect();
                let target = plan
                    .target
                    .as_deref()
                    .map(|t| format!("\n  TARGET {}", ident(t)))
                    .unwrap_or_default();
                format!(
                    "EXPLORE {q}\n  FROM {entries}\n  VIA {}{target}\n  BEAM {} DEPTH {} BUDGET {} FANOUT {}\n  UNTIL found {}\n  RETURN ANSWER LIMIT {}",
                    via.join(" -> "),
                    s.beam,
                    plan.path.len(),
                    s.budget,
                    s.fanout,
                    s.limit,
                    s.limit
                )
            }
            _ => {
                // Nothing structured to go on: a semantic exploration around the question.
                let target = plan
                    .target
                    .as_deref()
                    .map(|t| format!("\n  TARGET {}", ident(t)))
                    .unwrap_or_default();
                format!(
                    "EXPLORE {q}\n  FROM {entries}\n  VIA ANY{target}\n  BEAM 16 DEPTH 2 BUDGET {} FANOUT {}\n  UNTIL sufficient >= 0.8 OR stale 2\n  RETURN ANSWER LIMIT 10",
                    s.budget, s.fanout
                )
            }
        };
        let compiled = prepare(&text, &EngineCatalog(self.graph.catalog()))
            .map_err(|e| AgentError::Plan(e.render_plain(100)))?;
        match compiled {
            Compiled::Explore(p) => {
                plan.plan = p;
                plan.text = text;
                Ok(())
            }
            other => Err(AgentError::Plan(format!(
                "the planner wrote a non-EXPLORE statement: {other}"
            ))),
        }
    }

    // ---- entity linking ----

    fn name_index(&self, catalog: &Catalog) -> Result<Arc<NameIndex>, AgentError> {
        if let Some(n) = self.names.get() {
            return Ok(Arc::clone(n));
        }
        let mut index = NameIndex::default();
        for (label, _) in catalog.labels() {
            let ids = self.graph.label_nodes(label)?;
            for chunk in ids.chunks(1024) {
                for (id, rec) in chunk.iter().zip(self.graph.nodes(chunk)?) {
                    let Some(rec) = rec else { continue };
                    let name = display_name(&rec, catalog);
                    let norm = normalize(&name);
                    if norm.is_empty() {
                        continue;
                    }
                    index.longest = index.longest.max(norm.split(' ').count());
                    index.names.entry(norm).or_default().push(*id);
                    index.labels.insert(*id, label);
                    index.all.push(*id);
                }
            }
        }
        let index = Arc::new(index);
        Ok(Arc::clone(self.names.get_or_init(|| index)))
    }

    /// Links mentions: longest exact name matches first, then quoted phrases by vector.
    fn link(
        &self,
        words: &[Word],
        question: &str,
        catalog: &Catalog,
    ) -> Result<Vec<Entity>, AgentError> {
        let index = self.name_index(catalog)?;
        let mut taken = vec![false; words.len()];
        let mut out = Vec::new();
        let max = index.longest.min(MAX_MENTION_WORDS);
        for len in (1..=max.min(words.len())).rev() {
            for start in 0..=words.len() - len {
                if taken[start..start + len].iter().any(|t| *t) {
                    continue;
                }
                let span = &words[start..start + len];
                if len == 1
                    && (STOPWORDS.contains(&span[0].norm.as_str()) || span[0].norm.len() < 3)
                {
                    continue;
                }
                let key = span
                    .iter()
                    .map(|w| w.norm.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let Some(ids) = index.names.get(&key) else {
                    continue;
                };
                // One label per mention: the label most of the matches have.
                let mut by_label: HashMap<LabelId, Vec<NodeId>> = HashMap::new();
                for id in ids {
                    if let Some(l) = index.labels.get(id) {
                        by_label.entry(*l).or_default().push(*id);
                    }
                }
                let Some((label, nodes)) = by_label
                    .into_iter()
                    .max_by_key(|(l, n)| (n.len(), std::cmp::Reverse(l.0)))
                else {
                    continue;
                };
                out.push(self.entity(
                    &key,
                    nodes,
                    label,
                    (start, start + len),
                    LinkMethod::Exact,
                    catalog,
                )?);
                taken[start..start + len].iter_mut().for_each(|t| *t = true);
            }
        }
        // Quoted phrases that matched nothing exactly: nearest node by meaning.
        for (phrase, span) in quoted(question, words) {
            if taken[span.0..span.1].iter().any(|t| *t) {
                continue;
            }
            if let Some((node, label)) = self.vector_link(&phrase, &index, catalog)? {
                out.push(self.entity(
                    &normalize(&phrase),
                    vec![node],
                    label,
                    span,
                    LinkMethod::Vector,
                    catalog,
                )?);
                taken[span.0..span.1].iter_mut().for_each(|t| *t = true);
            }
        }
        Ok(out)
    }

    fn entity(
        &self,
        mention: &str,
        mut nodes: Vec<NodeId>,
        label: LabelId,
        span: (usize, usize),
        method: LinkMethod,
        catalog: &Catalog,
    ) -> Result<Entity, AgentError> {
        nodes.sort();
        let records = self.graph.nodes(&nodes)?;
        let mut keys = Vec::new();
        let mut name = String::new();
        for r in records.iter().flatten() {
            keys.push(r.key.clone());
            if name.is_empty() {
                name = display_name(r, catalog);
            }
        }
        Ok(Entity {
            mention: mention.to_owned(),
            nodes,
            label: catalog.label_name(label).unwrap_or("?").to_owned(),
            keys,
            name,
            method,
            span,
        })
    }

    /// The node nearest to `phrase` by embedding (the vector index when there is one, else a
    /// scan over named nodes), if it is close enough.
    fn vector_link(
        &self,
        phrase: &str,
        index: &NameIndex,
        catalog: &Catalog,
    ) -> Result<Option<(NodeId, LabelId)>, AgentError> {
        let query = self.embedder.embed(phrase)?;
        let best = match self.search {
            Some(s) => s.search(&query, None, 1)?.into_iter().next(),
            None => {
                let mut best: Option<(NodeId, f32)> = None;
                for chunk in index.all.chunks(512) {
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
        Ok(best
            .filter(|(_, c)| *c >= VECTOR_LINK_MIN)
            .and_then(|(id, _)| index.labels.get(&id).map(|l| (id, *l))))
    }

    // ---- classification ----

    fn analyse(
        &self,
        free: &[(usize, &Word)],
        words: &[Word],
        entity: Option<&Entity>,
        catalog: &Catalog,
    ) -> Result<Analysis, AgentError> {
        let has = |w: &str| free.iter().any(|(_, x)| x.norm == w);
        let phrase = |a: &str, b: &str| {
            free.windows(2)
                .any(|p| p[0].1.norm == a && p[1].1.norm == b && p[1].0 == p[0].0 + 1)
        };
        let own_label = entity.map(|e| e.label.as_str());
        // Label nouns outside the mention; the first one is the question's focus.
        let label_at = |i: usize| self.lexicon.label_of(&words[i].stem, catalog);
        let nouns: Vec<(usize, String)> = free
            .iter()
            .filter_map(|(i, _)| label_at(*i).map(|l| (*i, l)))
            .collect();
        let mut a = Analysis::default();

        let count = phrase("how", "many") || phrase("number", "of") || has("count");
        let superlative =
            has("most") || has("top") || has("highest") || has("largest") || has("best");
        // Properties the entity's nodes (or the focus label's nodes) have.
        let entity_props = match entity {
            Some(e) => self.props_of(e.nodes.first().copied(), catalog)?,
            None => Vec::new(),
        };
        let property_cue = self.lexicon.property_cue(free, &entity_props);

        if count {
            // "how many <noun>": the noun right after names what is counted.
            let after = free
                .iter()
                .position(|(_, w)| w.norm == "many" || w.norm == "of")
                .map(|p| p + 1)
                .unwrap_or(0);
            let counted = free
                .iter()
                .skip(after)
                .take(3)
                .find_map(|(i, _)| label_at(*i));
            if let Some(t) = counted {
                a.qtype = Some(QuestionType::Aggregation);
                a.aggregate = Some(Aggregate::Count);
                a.target = Some(t);
                return Ok(a);
            }
        }
        if superlative {
            if let Some((_, t)) = nouns.first() {
                let target_props = self.props_of(self.any_node(t, catalog)?, catalog)?;
                let by = self.lexicon.ranking_property(free, &target_props);
                if let Some((_, consumed)) = &by {
                    a.consumed.extend(consumed.iter().copied());
                }
                a.qtype = Some(QuestionType::Aggregation);
                a.aggregate = Some(Aggregate::Top {
                    k: top_k(free).unwrap_or(1),
                    by: by.map(|(p, _)| p),
                });
                a.target = Some(t.clone());
                return Ok(a);
            }
        }
        if let Some(prop) = property_cue {
            if nouns.iter().all(|(_, l)| Some(l.as_str()) == own_label) {
                a.qtype = Some(QuestionType::Attribute);
                a.attribute = Some(prop);
                a.target = own_label.map(str::to_owned);
                return Ok(a);
            }
        }
        a.target = nouns.first().map(|(_, l)| l.clone());
        Ok(a)
    }

    /// Property names set on `node`.
    fn props_of(&self, node: Option<NodeId>, catalog: &Catalog) -> Result<Vec<String>, AgentError> {
        let Some(node) = node else {
            return Ok(Vec::new());
        };
        Ok(self
            .graph
            .node(node)?
            .map(|r| {
                r.props
                    .iter()
                    .filter_map(|(k, _)| catalog.prop_name(*k).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    fn any_node(&self, label: &str, catalog: &Catalog) -> Result<Option<NodeId>, AgentError> {
        let Some(l) = catalog.label_id(label) else {
            return Ok(None);
        };
        let index = self.name_index(catalog)?;
        Ok(index
            .all
            .iter()
            .find(|id| index.labels.get(id) == Some(&l))
            .copied())
    }

    /// The best-ranked relation path from `start` to `target` with `min..=max` steps.
    #[allow(clippy::too_many_arguments)]
    fn best_path(
        &self,
        start: &str,
        target: &str,
        free: &[(usize, &Word)],
        words: &[Word],
        entity: Option<&Entity>,
        consumed: &HashSet<usize>,
        catalog: &Catalog,
        min: usize,
        max: usize,
    ) -> Vec<Step> {
        let (Some(s), Some(t)) = (catalog.label_id(start), catalog.label_id(target)) else {
            return Vec::new();
        };
        let hints: Vec<&Word> = free
            .iter()
            .filter(|(i, _)| !consumed.contains(i))
            .map(|(_, w)| *w)
            .collect();
        // Which relations the question names, and where.
        let named: HashMap<String, usize> = catalog
            .relations()
            .filter_map(|(_, r)| {
                words
                    .iter()
                    .enumerate()
                    .find(|(i, w)| {
                        hints.iter().any(|h| std::ptr::eq(*h, *w))
                            && self.lexicon.names_relation(&r.name, &w.stem)
                            && !consumed.contains(i)
                    })
                    .map(|(i, _)| (r.name.clone(), i))
            })
            .collect();
        let mention_at = entity.map(|e| e.span.0).unwrap_or(0);
        let mut best: Option<(f64, Vec<Step>)> = None;
        let mut stack: Vec<(LabelId, Vec<(Step, bool)>)> = vec![(s, Vec::new())];
        while let Some((at, path)) = stack.pop() {
            if path.len() >= min && at == t {
                let distinct: HashSet<&str> = path
                    .iter()
                    .map(|(st, _)| st.relation.as_str())
                    .filter(|r| named.contains_key(*r))
                    .collect();
                let mut score = 2.0 * distinct.len() as f64 - path.len() as f64;
                // Relations between nodes of one label read their direction from word order.
                for (step, self_loop) in &path {
                    if *self_loop {
                        if let Some(&at_word) = named.get(&step.relation) {
                            let incoming = incoming_reading(words, at_word, mention_at);
                            score += if incoming == step.reversed { 0.5 } else { -0.5 };
                        }
                    }
                }
                let better = match &best {
                    None => true,
                    Some((b, bp)) => {
                        score > *b + 1e-9 || ((score - b).abs() < 1e-9 && path.len() < bp.len())
                    }
                };
                if better {
                    best = Some((score, path.iter().map(|(s, _)| s.clone()).collect()));
                }
            }
            if path.len() >= max {
                continue;
            }
            for (_, r) in catalog.relations() {
                for (src, dst) in &r.endpoints {
                    let self_loop = src == dst;
                    if *src == at {
                        let mut p = path.clone();
                        p.push((
                            Step {
                                relation: r.name.clone(),
                                reversed: false,
                            },
                            self_loop,
                        ));
                        stack.push((*dst, p));
                    }
                    if *dst == at {
                        let mut p = path.clone();
                        p.push((
                            Step {
                                relation: r.name.clone(),
                                reversed: true,
                            },
                            self_loop,
                        ));
                        stack.push((*src, p));
                    }
                }
            }
        }
        best.map(|(_, p)| p).unwrap_or_default()
    }

    fn llm_classify(
        &self,
        llm: &dyn LlmBackend,
        question: &str,
        entity: Option<&Entity>,
        catalog: &Catalog,
    ) -> Result<(QuestionType, Option<String>), AgentError> {
        let labels: Vec<&str> = catalog.labels().map(|(_, n)| n).collect();
        let relations: Vec<String> = catalog
            .relations()
            .flat_map(|(_, r)| {
                r.endpoints.iter().map(|(s, d)| {
                    format!(
                        "({})-[{}]->({})",
                        catalog.label_name(*s).unwrap_or("?"),
                        r.name,
                        catalog.label_name(*d).unwrap_or("?")
                    )
                })
            })
            .collect();
        let system = format!(
            "You classify questions about a property graph. Labels: {}. Relations: {}. \
             Reply with one JSON object {{\"type\": \"attribute\"|\"relation\"|\"aggregation\"|\"multi-hop\", \"target\": <label or null>}}. \
             attribute = a property of the named entity; relation = its direct neighbours; aggregation = a count, maximum or top-k; \
             multi-hop = nodes two or more relations away. {DATA_RULE}",
            labels.join(", "),
            relations.join(", ")
        );
        let mut user = format!("Question: {}", data_block("question", question));
        if let Some(e) = entity {
            user.push_str(&format!(
                "\nThe question names this {} node: {}",
                e.label,
                data_block("node name", &e.name)
            ));
        }
        let reply = llm.complete(&[Message::system(system), Message::user(user)])?;
        let v = json_object(&reply)?;
        let qtype = v
            .get("type")
            .and_then(|t| t.as_str())
            .and_then(QuestionType::parse)
            .ok_or_else(|| {
                AgentError::Llm(crate::llm::LlmError::Format(
                    "\"type\" is not one of attribute, relation, aggregation, multi-hop".into(),
                ))
            })?;
        let target = v
            .get("target")
            .and_then(|t| t.as_str())
            .filter(|t| catalog.label_id(t).is_some())
            .map(str::to_owned);
        Ok((qtype, target))
    }
}

/// What the words of the question say, before the path is chosen.
#[derive(Debug, Default)]
struct Analysis {
    qtype: Option<QuestionType>,
    target: Option<String>,
    attribute: Option<String>,
    aggregate: Option<Aggregate>,
    /// Word positions used up by the ranking property ("most *cited*"), not relation hints.
    consumed: HashSet<usize>,
}

impl Analysis {
    /// Takes an LLM's classification where it is consistent with what the words support.
    fn apply_llm(&mut self, qtype: QuestionType, target: Option<String>) {
        match qtype {
            QuestionType::Attribute if self.attribute.is_none() => {}
            QuestionType::Attribute => self.qtype = Some(qtype),
            QuestionType::Aggregation => {
                self.qtype = Some(qtype);
                if self.aggregate.is_none() {
                    self.aggregate = Some(Aggregate::Count);
                }
            }
            QuestionType::Relation | QuestionType::MultiHop => {
                self.qtype = Some(qtype);
                self.aggregate = None;
                self.attribute = None;
            }
        }
        if target.is_some() && qtype != QuestionType::Attribute {
            self.target = target;
        }
    }
}

/// "Which papers cite X" (the relation word before the mention) reads as incoming; "Which
/// papers does X cite" as outgoing; "cited by X" flips it.
fn incoming_reading(words: &[Word], relation_word: usize, mention_at: usize) -> bool {
    let passive_by = words.get(relation_word + 1).is_some_and(|w| w.norm == "by")
        && words[relation_word].norm.ends_with("ed");
    let mention_after = mention_at > relation_word;
    if passive_by {
        !mention_after
    } else {
        mention_after
    }
}

/// "top 3", "3 most", "three most".
fn top_k(free: &[(usize, &Word)]) -> Option<usize> {
    let number = |w: &Word| -> Option<usize> {
        w.norm.parse::<usize>().ok().or_else(|| {
            [
                "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            ]
            .iter()
            .position(|n| *n == w.norm)
            .map(|p| p + 1)
        })
    };
    for (k, (_, w)) in free.iter().enumerate() {
        if w.norm == "top" {
            if let Some(n) = free.get(k + 1).and_then(|(_, w)| number(w)) {
                return Some(n);
            }
        }
        if w.norm == "most" && k > 0 {
            if let Some(n) = number(free[k - 1].1) {
                return Some(n);
            }
        }
    }
    None
}

/// A name as EXPLORE writes it (the query printer's rule, so reserved words stay in step).
pub(crate) fn ident(s: &str) -> String {
    cairn_query::printer::name(s).to_string()
}

/// A string literal as EXPLORE writes it, escaped.
pub(crate) fn str_lit(s: &str) -> String {
    cairn_query::printer::str_lit(s).to_string()
}

/// A plan that is replaced before anyone reads it (compile fills the real one).
fn placeholder_plan() -> Plan {
    Plan {
        goal: String::new(),
        entries: Vec::new(),
        via: cairn_query::ViaPlan {
            mode: cairn_query::ast::ViaMode::Set,
            steps: Vec::new(),
        },
        targets: Vec::new(),
        filters: Vec::new(),
        score: cairn_query::ScoreWeights {
            semantic: 0.5,
            connectivity: 0.3,
            distance: 0.2,
        },
        beam: 1,
        depth: 1,
        budget: 1,
        fanout: 1,
        until: cairn_query::StopCondition::Stale(1),
        time_cap: cairn_query::limits::MAX_TIME,
        ret: cairn_query::ast::ReturnKind::Answer,
        limit: 1,
    }
}

// ---- words ----

/// A word of the question: normalised (lower case, letters and digits) and stemmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) norm: String,
    pub(crate) stem: String,
}

/// Splits on whitespace; drops possessive `'s`; keeps letters, digits and inner hyphens.
pub(crate) fn tokenize(text: &str) -> Vec<Word> {
    text.split_whitespace()
        .flat_map(|raw| {
            let raw = raw.trim_end_matches(['?', '!', ',', ';', ':', '.', '"', '\'', ')']);
            let raw = raw
                .strip_suffix("'s")
                .or_else(|| raw.strip_suffix("’s"))
                .unwrap_or(raw);
            let cleaned: String = raw
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || c == '-' {
                        c.to_lowercase().next().unwrap_or(c)
                    } else {
                        ' '
                    }
                })
                .collect();
            cleaned
                .split_whitespace()
                .map(|p| p.trim_matches('-').to_owned())
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
        })
        .map(|norm| Word {
            stem: stem(&norm),
            norm,
        })
        .collect()
}

/// A name as the index keys it: its words, normalised like question words, joined by spaces.
pub(crate) fn normalize(text: &str) -> String {
    tokenize(text)
        .into_iter()
        .map(|w| w.norm)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A crude suffix stripper: enough to meet "cite", "cites", "cited", "citing" at "cit".
pub(crate) fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    for (suffix, keep) in [
        ("ies", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
        ("e", ""),
    ] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.chars().count() >= 3 {
                return format!("{base}{keep}");
            }
        }
    }
    w
}

/// Quoted phrases and the word spans they cover.
fn quoted(question: &str, words: &[Word]) -> Vec<(String, (usize, usize))> {
    let mut out = Vec::new();
    let mut rest = question;
    let mut consumed_words = 0usize;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('"') else { break };
        let before = &rest[..start];
        let phrase = &after[..end];
        let from = consumed_words + tokenize(before).len();
        let len = tokenize(phrase).len();
        if len > 0 && from + len <= words.len() {
            out.push((phrase.to_owned(), (from, from + len)));
        }
        consumed_words = from + len;
        rest = &after[end + 1..];
    }
    out
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "for", "and", "or", "to", "by", "with", "is", "was", "are",
    "were", "has", "have", "had", "did", "does", "do", "what", "which", "who", "whom", "when",
    "where", "how", "many", "much", "most", "top", "list", "name", "that", "this", "it", "its",
    "their", "his", "her", "be", "been", "about", "all",
];

/// Words for labels, relations and properties: their own names, stemmed, and a few synonyms
/// common in scholarly questions. A schema with other names still matches on its own words.
#[derive(Debug)]
struct Lexicon {
    label_synonyms: Vec<(&'static str, &'static [&'static str])>,
    relation_synonyms: Vec<(&'static str, &'static [&'static str])>,
    property_synonyms: Vec<(&'static str, &'static [&'static str])>,
}

impl Default for Lexicon {
    fn default() -> Self {
        Lexicon {
            label_synonyms: vec![
                (
                    "author",
                    &[
                        "who",
                        "whom",
                        "co-author",
                        "coauthor",
                        "collaborator",
                        "researcher",
                        "writer",
                        "person",
                        "people",
                    ],
                ),
                ("paper", &["publication", "article", "work"]),
                ("venue", &["where", "conference", "journal"]),
                ("topic", &["area", "field", "subject"]),
            ],
            relation_synonyms: vec![
                (
                    "author",
                    &[
                        "wrote",
                        "writ",
                        "written",
                        "write",
                        "co-author",
                        "coauthor",
                        "collaborat",
                        "prolific",
                        "work",
                    ],
                ),
                (
                    "publish",
                    &["venue", "appear", "conference", "journal", "where"],
                ),
                ("cit", &["citation", "reference", "referenc"]),
                ("topic", &["about", "area", "field", "subject", "cover"]),
            ],
            property_synonyms: vec![
                ("year", &["when", "year"]),
                ("citation", &["citation"]),
                ("kind", &["kind", "type", "sort"]),
            ],
        }
    }
}

impl Lexicon {
    /// The label a question word names, if any.
    fn label_of(&self, word_stem: &str, catalog: &Catalog) -> Option<String> {
        catalog
            .labels()
            .find(|(_, name)| {
                let own = stem(&name.to_lowercase());
                own == word_stem
                    || word_stem
                        .strip_prefix("co-")
                        .is_some_and(|w| w == own && own == "author")
                    || self.label_synonyms.iter().any(|(l, syns)| {
                        stem(l) == own
                            && syns.iter().any(|s| stem(s) == word_stem || *s == word_stem)
                    })
            })
            .map(|(_, n)| n.to_owned())
    }

    /// Whether a question word (stem) names relation `relation`.
    fn names_relation(&self, relation: &str, word_stem: &str) -> bool {
        let parts: Vec<String> = relation
            .split(['_', '-', ' '])
            .map(|p| stem(&p.to_lowercase()))
            .filter(|p| p.len() >= 3 && !matches!(p.as_str(), "has" | "hav"))
            .collect();
        parts.iter().any(|p| {
            let p = p.as_str();
            word_stem == p
                || (p.len() >= 4 && word_stem.contains(p))
                || self.relation_synonyms.iter().any(|(base, syns)| {
                    p.starts_with(base)
                        && (word_stem.starts_with(base)
                            || syns.iter().any(|s| word_stem.starts_with(s)))
                })
        })
    }

    /// The property an attribute question asks for: a property named (or cued) in the words.
    fn property_cue(&self, free: &[(usize, &Word)], props: &[String]) -> Option<String> {
        let norms: Vec<&str> = free.iter().map(|(_, w)| w.norm.as_str()).collect();
        let has_pair = |a: &str, b: &str| norms.windows(2).any(|p| p[0] == a && p[1] == b);
        for prop in props {
            let own = stem(&prop.to_lowercase());
            if matches!(own.as_str(), "name" | "titl") {
                continue;
            }
            let named = free.iter().any(|(_, w)| w.stem == own);
            let synonym = self.property_synonyms.iter().any(|(p, syns)| {
                own == stem(p)
                    && free
                        .iter()
                        .any(|(_, w)| syns.iter().any(|s| stem(s) == w.stem))
            });
            // "how often" / "how many times" ask for a count kept as a property.
            let times = own.starts_with("citation")
                && (has_pair("how", "often") || has_pair("many", "times"));
            if named || synonym || times {
                return Some(prop.clone());
            }
        }
        None
    }

    /// The numeric property a superlative ranks by ("most *cited*"), and the words it used.
    fn ranking_property(
        &self,
        free: &[(usize, &Word)],
        props: &[String],
    ) -> Option<(String, Vec<usize>)> {
        for prop in props {
            let own = stem(&prop.to_lowercase());
            if matches!(own.as_str(), "name" | "titl") {
                continue;
            }
            let root: String = own.chars().take(4).collect();
            let used: Vec<usize> = free
                .iter()
                .filter(|(_, w)| {
                    w.stem.len() >= 3
                        && !STOPWORDS.contains(&w.norm.as_str())
                        && (own.starts_with(&w.stem) || w.stem.starts_with(&root))
                })
                .map(|(i, _)| *i)
                .collect();
            if !used.is_empty() {
                return Some((prop.clone(), used));
            }
        }
        None
    }
}

/// The numeric value of a property, for ranking.
pub(crate) fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}
