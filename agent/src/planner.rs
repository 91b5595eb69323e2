//! The planner agent: turns a question into an EXPLORE plan.
//!
//! 1. **Entities**: every run of words in the question is looked up among node names (the
//!    name/title property), longest run first, in the store's name index (a few seeks per
//!    question word, nothing read per node). A quoted phrase that names nothing exactly is
//!    linked by vector similarity instead.
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
use crate::semantic::{Meaning, PhraseCache};
use crate::strategy::{path_shape, Decision, Strategies};
use crate::vocab::{self, is_stopword, lexicon, schema_words, word_match, SchemaWord};
use crate::AgentError;
use cairn_embed::{cosine, Embedder};
use cairn_query::{prepare, Compiled, Plan};
use cairn_storage_format::{LabelId, NodeId, Value};
use cairn_store::describe::{self, description, display_name};
use cairn_store::{Catalog, Direction, Element, Graph, GraphRead};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex};

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
    /// The asker marked the mention as a name (underscores, capitals, quotes).
    pub marked: bool,
    /// Word positions of the mention in the question, `[start, end)`.
    span: (usize, usize),
}

pub use crate::walk::Step;
use crate::walk::{there_and_back, walk};

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
    /// A second constraint ("which player in club X is from country Y"): answers must also be
    /// reached from this entity by this path. The plan text carries it as a `MEET` clause, and
    /// the executor intersects.
    pub conjunct: Option<(Entity, Vec<Step>)>,
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
    /// Which question word was read as which relation of the path (stem, relation): what
    /// feedback on the answer confirms or refutes (see [`crate::strategy`]).
    pub choices: Vec<(String, String)>,
}

impl QueryPlan {
    /// Whether the plan counts an intersection ("how many papers of venue V use term T"): its
    /// statement is `MEET … RETURN COUNT`, which the executor counts exactly.
    pub fn counts_intersection(&self) -> bool {
        self.qtype == QuestionType::Aggregation
            && self.conjunct.is_some()
            && matches!(self.aggregate, None | Some(Aggregate::Count))
    }

    /// The statement's `RETURN`: an exact count for a counted intersection, else the answer
    /// with the plan's limit.
    fn return_clause(&self) -> String {
        if self.counts_intersection() {
            "RETURN COUNT".to_owned()
        } else {
            format!("RETURN ANSWER LIMIT {}", self.sizes.limit)
        }
    }

    /// What the strategy record learns from an answer to this plan.
    pub fn decision(&self) -> Decision {
        Decision {
            qtype: self.qtype.name().to_owned(),
            shape: match &self.attribute {
                Some(a) => format!(".{a}"),
                None => path_shape(&self.path),
            },
            choices: self.choices.clone(),
        }
    }
}

/// The planner.
pub struct Planner<'g> {
    graph: &'g Graph,
    embedder: &'g dyn Embedder,
    search: Option<&'g dyn EntrySearch>,
    llm: Option<&'g dyn LlmBackend>,
    strategies: Option<&'g Mutex<Strategies>>,
    /// The database's schema phrase vectors (shared by its planners), else this planner's own.
    phrases: Option<&'g PhraseCache>,
    own_phrases: PhraseCache,
}

impl fmt::Debug for Planner<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Planner")
            .field("llm", &self.llm.is_some())
            .finish()
    }
}

/// The spans of a question that name nodes, as (start word, length) → the nodes and labels.
type NameSpans = HashMap<(usize, usize), Vec<(NodeId, LabelId)>>;

/// What a path search is asked: paths of `min..=max` steps from `entity`, ending at the
/// `target` label when one is asked for, read against the question's `free` words (those no
/// mention covers) minus the `consumed` ones.
#[derive(Clone, Copy)]
struct PathQuery<'a, 'w> {
    target: Option<&'a str>,
    free: &'a [(usize, &'w Word)],
    words: &'a [Word],
    entity: &'a Entity,
    consumed: &'a HashSet<usize>,
    catalog: &'a Catalog,
    /// The question's phrases by meaning, with a semantic embedder.
    meaning: Option<&'a Meaning>,
    min: usize,
    max: usize,
}

/// Two paths whose ends meet: from the main entity, and from the conjunct.
type PathPair = (Vec<Step>, Vec<Step>);
/// A relation sequence found in the data, with the labels of the nodes it ends at and a few
/// of those nodes.
type DataPath = (Vec<Step>, HashSet<LabelId>, Vec<NodeId>);

/// Minimum cosine for a vector-linked mention.
const VECTOR_LINK_MIN: f32 = 0.55;
/// Paths longer than this are not considered.
const MAX_PATH: usize = 4;
/// Frontier nodes expanded per relation sequence when paths are read off the data.
const PATH_FRONTIER: usize = 64;
/// Relation sequences kept per length when paths are read off the data.
const PATH_SEQUENCES: usize = 4000;
/// Edges read in all while paths are read off the data.
const PATH_EDGES: usize = 40_000;

impl<'g> Planner<'g> {
    pub fn new(graph: &'g Graph, embedder: &'g dyn Embedder) -> Self {
        Planner {
            graph,
            embedder,
            search: None,
            llm: None,
            strategies: None,
            phrases: None,
            own_phrases: PhraseCache::new(),
        }
    }

    /// Shares the schema's phrase vectors with the other planners of one database, so that a
    /// semantic embedder embeds them once per catalog version, not once per planner.
    pub fn with_phrases(mut self, phrases: &'g PhraseCache) -> Self {
        self.phrases = Some(phrases);
        self
    }

    /// The question's phrases against the schema's, when the embedder is semantic, used as
    /// [`vocab::meaning_use`] says (beside WordNet only for words WordNet does not place).
    fn meaning(
        &self,
        catalog: &Arc<Catalog>,
        words: &[Word],
        covered: &HashSet<usize>,
    ) -> Result<Option<Meaning>, AgentError> {
        let usage = vocab::meaning_use();
        if usage == vocab::MeaningUse::Off {
            return Ok(None);
        }
        let cache = self.phrases.unwrap_or(&self.own_phrases);
        let Some(schema) = cache.phrases(self.embedder, catalog)? else {
            return Ok(None);
        };
        Meaning::new(
            self.embedder,
            schema,
            words,
            |i| !covered.contains(&i),
            usage,
        )
        .map(Some)
    }

    /// Ranks candidate paths with what feedback taught this database (a prior on plan shapes
    /// and on phrase → relation choices).
    pub fn with_strategies(mut self, strategies: &'g Mutex<Strategies>) -> Self {
        self.strategies = Some(strategies);
        self
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
        let words = question_words(question);
        let mut entities = self.link(&words, question, &catalog)?;
        // The main entity: the longest mention (exact before vector).
        entities.sort_by_key(|e| {
            (
                e.method != LinkMethod::Exact,
                !e.marked,
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
        let meaning = self.meaning(&catalog, &words, &covered)?;
        let meaning = meaning.as_ref();

        let mut analysis = self.analyse(&free, &words, entity.as_ref(), &catalog, meaning)?;
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
        let mut conjunct = None;
        let (qtype, path) = match (analysis.qtype, &entity) {
            (Some(QuestionType::Attribute), _) => (QuestionType::Attribute, Vec::new()),
            (t, Some(e)) => {
                let (min, max) = match t {
                    Some(QuestionType::Relation) => (1, 1),
                    Some(QuestionType::MultiHop) => (2, MAX_PATH),
                    _ => (1, MAX_PATH),
                };
                let consumed = analysis.consumed.clone();
                let rank = |target: Option<&str>| {
                    self.ranked_paths(&PathQuery {
                        target,
                        free: &free,
                        words: &words,
                        entity: e,
                        consumed: &consumed,
                        catalog: &catalog,
                        meaning,
                        min,
                        max,
                    })
                };
                let mut ranked = rank(analysis.target.as_deref())?;
                // A label the question seemed to ask for that no path from the entity reaches
                // was a misreading ("recording" is not the label `RecordLabel`): drop it.
                if ranked.is_empty() && analysis.target.is_some() {
                    analysis.target = None;
                    ranked = rank(None)?;
                }
                let mut path = ranked.first().map(|(_, p)| p.clone()).unwrap_or_default();
                // Two marked entities and a relation question: a conjunction of two paths
                // that meet at the answers.
                if let Some(second) = others.iter().find(|o| o.marked && e.marked) {
                    let mut second_ranked = self.ranked_paths(&PathQuery {
                        target: analysis.target.as_deref(),
                        free: &free,
                        words: &words,
                        entity: second,
                        consumed: &analysis.consumed,
                        catalog: &catalog,
                        meaning,
                        min: 1,
                        max: 2,
                    })?;
                    // Each constraint is short ("in club X", "from country Y"): at most two
                    // hops from either entity.
                    let mut first_ranked: Vec<(f64, Vec<Step>)> = ranked
                        .iter()
                        .filter(|(_, p)| p.len() <= 2)
                        .cloned()
                        .collect();
                    // Which cue words go with which mention ("films *directed* by X *star*
                    // Y"), and how well each path reads its own mention's words.
                    let (cues, matches, _) =
                        self.reading(&free, &words, e, &analysis.consumed, &catalog, meaning);
                    let (own_first, own_second) = constraint_words(&cues, e, second);
                    let target = analysis.target.as_deref();
                    for (entity, own, ranked) in [
                        (e, &own_first, &mut first_ranked),
                        (second, &own_second, &mut second_ranked),
                    ] {
                        ranked.extend(schema_steps(
                            entity, target, own, &matches, ranked, &catalog,
                        ));
                    }
                    let structure = |own: &[usize], ranked: &[(f64, Vec<Step>)]| -> Vec<f64> {
                        ranked
                            .iter()
                            .map(|(_, p)| own_words_read(p, own, &matches))
                            .collect()
                    };
                    let structure = (
                        structure(&own_first, &first_ranked),
                        structure(&own_second, &second_ranked),
                    );
                    if let Some((p1, p2)) = self.meeting_paths(
                        e,
                        &first_ranked,
                        second,
                        &second_ranked,
                        &structure,
                        &catalog,
                    )? {
                        path = p1;
                        conjunct = Some((second.clone(), p2));
                    }
                }
                let qtype = match t {
                    Some(q) => q,
                    None if path.len() <= 1 => QuestionType::Relation,
                    None => QuestionType::MultiHop,
                };
                (qtype, path)
            }
            (t, None) => (t.unwrap_or(QuestionType::Relation), Vec::new()),
        };
        let choices = match &entity {
            Some(e) if !path.is_empty() => {
                let (cues, matches, _) =
                    self.reading(&free, &words, e, &analysis.consumed, &catalog, meaning);
                path_choices(&path, &cues, &matches)
            }
            _ => Vec::new(),
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
            conjunct,
            target: analysis.target.clone(),
            path,
            attribute: analysis.attribute.clone(),
            aggregate,
            sizes,
            text: String::new(),
            plan: placeholder_plan(),
            llm: used_llm,
            choices,
        };
        self.compile(&mut plan)?;
        Ok(plan)
    }

    /// Writes the EXPLORE text for `plan` and compiles it.
    fn compile(&self, plan: &mut QueryPlan) -> Result<(), AgentError> {
        let q = str_lit(&plan.question);
        let s = plan.sizes;
        let entries = match &plan.entity {
            Some(e) => entry_keys(e),
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
                let meet = match &plan.conjunct {
                    Some((other, path)) => format!(
                        "\n  MEET FROM {} VIA {}",
                        entry_keys(other),
                        path.iter()
                            .map(Step::to_string)
                            .collect::<Vec<_>>()
                            .join(" -> ")
                    ),
                    None => String::new(),
                };
                format!(
                    "EXPLORE {q}\n  FROM {entries}\n  VIA {}{meet}{target}\n  BEAM {} DEPTH {} BUDGET {} FANOUT {}\n  UNTIL found {}\n  {}",
                    via.join(" -> "),
                    s.beam,
                    plan.path.len(),
                    s.budget,
                    s.fanout,
                    s.limit,
                    plan.return_clause()
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

    /// The labels of those of `ids` that have a name (a normalised display name with words),
    /// read from their records: the nodes the linker can name.
    fn named_labels(
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
    fn name_spans(&self, words: &[Word]) -> Result<NameSpans, AgentError> {
        let mut out = HashMap::new();
        for start in 0..words.len() {
            let mut key = String::new();
            for len in 1..=describe::NAME_MAX_WORDS.min(words.len() - start) {
                if len > 1 {
                    key.push(' ');
                }
                key.push_str(&words[start + len - 1].norm);
                let hits = self.graph.nodes_named(&key)?;
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

    /// Links mentions: longest exact name matches first, then quoted phrases by vector.
    fn link(
        &self,
        words: &[Word],
        question: &str,
        catalog: &Catalog,
    ) -> Result<Vec<Entity>, AgentError> {
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
                // One label per mention: the label most of the matches have.
                let mut by_label: HashMap<LabelId, Vec<NodeId>> = HashMap::new();
                for (id, l) in ids {
                    if marked || catalog.links_unmarked(*l) {
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
                    marked,
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
            if let Some((node, label)) = self.vector_link(&phrase, catalog)? {
                out.push(self.entity(
                    &normalize(&phrase),
                    vec![node],
                    label,
                    span,
                    LinkMethod::Vector,
                    true,
                    catalog,
                )?);
                taken[span.0..span.1].iter_mut().for_each(|t| *t = true);
            }
        }
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn entity(
        &self,
        mention: &str,
        mut nodes: Vec<NodeId>,
        label: LabelId,
        span: (usize, usize),
        method: LinkMethod,
        marked: bool,
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
            marked,
            span,
        })
    }

    /// The node nearest to `phrase` by embedding (the vector index when there is one, else a
    /// scan over named nodes), if it is close enough and has a name.
    fn vector_link(
        &self,
        phrase: &str,
        catalog: &Catalog,
    ) -> Result<Option<(NodeId, LabelId)>, AgentError> {
        let query = self.embedder.embed(phrase)?;
        let best = match self.search {
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

    // ---- classification ----

    fn analyse(
        &self,
        free: &[(usize, &Word)],
        words: &[Word],
        entity: Option<&Entity>,
        catalog: &Catalog,
        meaning: Option<&Meaning>,
    ) -> Result<Analysis, AgentError> {
        let has = |w: &str| free.iter().any(|(_, x)| x.norm == w);
        let phrase = |a: &str, b: &str| {
            free.windows(2)
                .any(|p| p[0].1.norm == a && p[1].1.norm == b && p[1].0 == p[0].0 + 1)
        };
        let own_label = entity.map(|e| e.label.as_str());
        // Label nouns outside the mention; the first one is the question's focus.
        let label_at = |i: usize| label_of(&words[i], i, catalog, meaning);
        // A word that names a relation whose objects carry the label it names ("children" with
        // labels inferred from relations) names a hop, not the answer type.
        let hop_label = |i: usize, label: &str| {
            let Some(l) = catalog.label_id(label) else {
                return false;
            };
            catalog.relations().any(|(_, r)| {
                r.endpoints.iter().any(|(_, d)| *d == l)
                    && element_match(&words[i], &schema_words(&r.name)) >= 0.8
            })
        };
        let nouns: Vec<(usize, String)> = free
            .iter()
            .filter_map(|(i, _)| label_at(*i).map(|l| (*i, l)))
            // … unless it is the wh-phrase's noun ("which *topic*", "what *topics*").
            .filter(|(i, l)| in_wh_phrase(words, *i) || !hop_label(*i, l))
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
        let property_cue = property_cue(free, &entity_props, catalog, meaning);

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
                let by = ranking_property(free, &target_props);
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
        // The answer type is the noun farthest along the chain: the first word before the
        // mention ("the *nationality* of X 's children", "*who* wrote …"), else the last after
        // it ("X 's children 's *nationality*").
        let mention = entity.map(|e| e.span.0).unwrap_or(usize::MAX);
        a.target = nouns
            .iter()
            .filter(|(i, _)| *i < mention)
            .min_by_key(|(i, _)| *i)
            .or_else(|| nouns.iter().max_by_key(|(i, _)| *i))
            .map(|(_, l)| l.clone());
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
        // The first named node of the label, read a few at a time (usually the first one).
        let mut limit = 16;
        loop {
            let ids = self.graph.label_nodes_first(l, limit)?;
            let named = self.named_labels(&ids, catalog)?;
            if let Some(id) = ids.iter().find(|id| named.contains_key(id)) {
                return Ok(Some(*id));
            }
            if ids.len() < limit {
                return Ok(None);
            }
            limit *= 8;
        }
    }

    /// Evidence from a path's end nodes: 0.6 if a question word no relation names is near
    /// their names in WordNet (woman → `female`), 0.4 if "where" is asked and they are places.
    fn answer_words_bonus(
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
    fn end_names(&self, ends: &[NodeId], catalog: &Catalog) -> Result<Vec<String>, AgentError> {
        Ok(self
            .graph
            .nodes(ends)?
            .iter()
            .flatten()
            .map(|r| display_name(r, catalog))
            .collect())
    }

    /// Whether a question word names one of these end nodes (woman → `female`).
    fn ends_named(
        &self,
        ends: &[NodeId],
        words: &[&Word],
        catalog: &Catalog,
    ) -> Result<bool, AgentError> {
        let names = self.end_names(ends, catalog)?;
        Ok(names_meet(&names, words))
    }

    /// The pair of paths, one from each entity, that the conjunction asks for (among the top
    /// 40 of each). The question's structure comes first: each path must read the words that
    /// go with its own mention as well as any candidate does (`structure`: per ranked path, how
    /// well it reads them, see [`constraint_words`]). Among those pairs the best-scoring one
    /// whose ends meet (a hop beyond one each costs 1.0, since both paths are scored on all the
    /// question's words); when none meets, the best of them all the same, since the
    /// intersection the question asks for is empty ("how many films directed by X star Y" is
    /// 0, not the count of films X stars in that Y directed). When the words say nothing about
    /// which mention takes which relation, any pair that meets; `None` when none does.
    fn meeting_paths(
        &self,
        a: &Entity,
        a_ranked: &[(f64, Vec<Step>)],
        b: &Entity,
        b_ranked: &[(f64, Vec<Step>)],
        structure: &(Vec<f64>, Vec<f64>),
        catalog: &Catalog,
    ) -> Result<Option<PathPair>, AgentError> {
        const TOP: usize = 40;
        // The paths that read their own mention's words best (all of them when none does).
        let fitting = |reads: &[f64], n: usize| -> Vec<bool> {
            let best = reads.iter().take(n).copied().fold(0.0, f64::max);
            reads.iter().take(n).map(|r| *r >= best - 1e-9).collect()
        };
        let a_fit = fitting(&structure.0, TOP.min(a_ranked.len()));
        let b_fit = fitting(&structure.1, TOP.min(b_ranked.len()));
        let structured = structure.0.iter().chain(&structure.1).any(|r| *r > 0.0);
        let named: HashSet<NodeId> = a.nodes.iter().chain(&b.nodes).copied().collect();
        let view = cairn_exec::StoreView::new(self.graph, "");
        let ends = |e: &Entity, p: &[Step]| -> Result<HashSet<NodeId>, AgentError> {
            let (reached, _) = walk(&view, catalog, &e.nodes, p, 50_000)?;
            Ok(reached
                .into_iter()
                .map(|r| r.node)
                .filter(|n| !named.contains(n))
                .collect())
        };
        let a_ends: Vec<HashSet<NodeId>> = a_ranked
            .iter()
            .take(TOP)
            .map(|(_, p)| ends(a, p))
            .collect::<Result<_, _>>()?;
        let b_ends: Vec<HashSet<NodeId>> = b_ranked
            .iter()
            .take(TOP)
            .map(|(_, p)| ends(b, p))
            .collect::<Result<_, _>>()?;
        // Shorter constraints first: the two paths share the question's words.
        let score = |i: usize, j: usize| {
            let hops = a_ranked[i].1.len() + b_ranked[j].1.len();
            a_ranked[i].0 + b_ranked[j].0 - 1.0 * (hops - 2) as f64
        };
        let mut best: Option<(f64, usize, usize)> = None;
        let mut best_empty: Option<(f64, usize, usize)> = None;
        for (i, ea) in a_ends.iter().enumerate() {
            for (j, eb) in b_ends.iter().enumerate() {
                let fits = a_fit[i] && b_fit[j];
                if structured && !fits {
                    continue;
                }
                let s = score(i, j);
                let slot = if ea.is_disjoint(eb) {
                    &mut best_empty
                } else {
                    &mut best
                };
                if slot.is_none_or(|(b, _, _)| s > b + 1e-9) {
                    *slot = Some((s, i, j));
                }
            }
        }
        let chosen = if structured {
            best.or(best_empty)
        } else {
            best
        };
        Ok(chosen.map(|(_, i, j)| (a_ranked[i].1.clone(), b_ranked[j].1.clone())))
    }

    /// Relation sequences that exist in the data from `entries` (both directions, up to `max`
    /// steps), each with the labels of the nodes it ends at. Bounded: at most
    /// [`PATH_FRONTIER`] nodes expanded per sequence, [`PATH_SEQUENCES`] sequences per length
    /// and [`PATH_EDGES`] edges read.
    fn data_paths(
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

    /// The question's cues for paths from `entity`, each cue's match with each relation, and
    /// how many words name only a label (the answer type, not a hop: "which *papers*").
    fn reading<'w>(
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
    fn ranked_paths(&self, q: &PathQuery<'_, '_>) -> Result<Vec<(f64, Vec<Step>)>, AgentError> {
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
    fn ranked_paths_by(&self, q: &PathQuery<'_, '_>) -> Result<Vec<RankedPath>, AgentError> {
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
        } = *q;
        let target = target.and_then(|t| catalog.label_id(t));
        let (cues, matches, label_words) =
            self.reading(free, words, entity, consumed, catalog, meaning);
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
        let asks_place = free.iter().any(|(_, w)| w.norm == "where");
        let asks_person = free
            .iter()
            .any(|(_, w)| matches!(w.norm.as_str(), "who" | "whom"));
        let mut ranked: Vec<RankedPath> = Vec::new();
        for (steps, labels, ends) in self.data_paths(&entity.nodes, max, catalog)? {
            if steps.len() < min || target.is_some_and(|t| !labels.contains(&t)) {
                continue;
            }
            let mut score = path_score(&steps, &cues, &matches, words, asks_place);
            if let Some(l) = &learned {
                score += learned_prior(l, &steps, &cues, &matches);
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
        Ok(ranked)
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

/// A content word of the question with its place in the chain of relations: words after the
/// mention come first ("X 's R1 's R2"), then the words before it, nearest first ("the R2 of R1
/// of X"), so the word nearer the entity is the earlier hop.
#[derive(Clone, Debug)]
struct Cue<'w> {
    word: &'w Word,
    at: usize,
    order: usize,
    /// After the mention ("X 's R").
    after: bool,
    /// In the wh-phrase (the content words right after "which", "what" or "name a"), or the
    /// verb of "… does X *verb*".
    wh_phrase: bool,
}

fn cues<'w>(
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
fn in_wh_phrase(words: &[Word], at: usize) -> bool {
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

/// How well a relation path reads the question: each cue counts the best match among the
/// path's relations, a hop no cue names costs 0.7 (0.2 when an unknown word is there to name
/// it), cues that name hops out of order cost 0.3 a pair, and the first hop's direction
/// follows the wording ("papers that cite X" is `<CITES`, "X 's parents" is `parents`).
fn path_score(
    steps: &[Step],
    cues: &[Cue<'_>],
    matches: &HashMap<String, Vec<(f64, usize)>>,
    words: &[Word],
    asks_place: bool,
) -> f64 {
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
        } else {
            unknown_cues.push(ci);
        }
    }
    for &ci in &unknown_cues {
        let c = &cues[ci];
        // The words of the wh-phrase ("which *professional football team*") name the answer,
        // which the path's last hop yields: no hop of their own.
        if c.wh_phrase {
            continue;
        }
        // A word next to a named one modifies it ("*soccer* club", "play *professional*").
        let modifier = cues
            .iter()
            .enumerate()
            .any(|(cj, d)| !unknown_cues.contains(&cj) && d.word.group.abs_diff(c.word.group) == 1);
        if modifier {
            continue;
        }
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
    // An unknown phrase stands for an unnamed hop between the named hops around it (in the
    // question's order); with no such hop the path reads the words out of order.
    for u in &unknown_starts {
        let lo = matched.iter().filter(|(o, _)| o < u).map(|(_, h)| *h).max();
        let hi = matched.iter().filter(|(o, _)| o > u).map(|(_, h)| *h).min();
        let fits = (0..steps.len())
            .any(|h| !named[h] && lo.is_none_or(|l| h > l) && hi.is_none_or(|x| h < x));
        if !fits {
            score -= 0.3;
        }
    }
    let unnamed = named.iter().filter(|n| !**n).count();
    let explained = unnamed.min(unknown_groups);
    score -= 0.2 * explained as f64 + 0.7 * (unnamed - explained) as f64;
    score -= 0.3 * unknown_groups.saturating_sub(unnamed) as f64;
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
    score - 0.05 * steps.len() as f64
}

/// Per relation, each cue's best match with its words: (score, schema word index).
type CueMatches = HashMap<String, Vec<(f64, usize)>>;

/// The cues (indices) that go with each of two mentions in a conjunction: a word goes with the
/// mention nearer to it in the question, and a word as near to both with the one it precedes,
/// since English puts a constraint's verb or preposition before its object ("films *directed*
/// by X *star* Y", "plays at *position* Defender for *country* Russia", "X *players* at *club*
/// Y").
fn constraint_words(cues: &[Cue<'_>], a: &Entity, b: &Entity) -> (Vec<usize>, Vec<usize>) {
    // Distance from a word to a mention, and whether the word precedes it.
    let distance = |at: usize, e: &Entity| {
        if at < e.span.0 {
            (e.span.0 - at, 0)
        } else {
            (at + 1 - e.span.1, 1)
        }
    };
    let (mut own_a, mut own_b) = (Vec::new(), Vec::new());
    for (ci, c) in cues.iter().enumerate() {
        if distance(c.at, a) <= distance(c.at, b) {
            own_a.push(ci);
        } else {
            own_b.push(ci);
        }
    }
    (own_a, own_b)
}

/// One-step paths the schema allows from `entity` (towards `target`) through a relation that a
/// cue of its own names best, when the data holds no such path from it: the constraint the
/// question states then selects nothing ("films X stars in" when X stars in none), which
/// must not be read as another relation that happens to have edges. Scored below every path
/// of `ranked`.
fn schema_steps(
    entity: &Entity,
    target: Option<&str>,
    own: &[usize],
    matches: &CueMatches,
    ranked: &[(f64, Vec<Step>)],
    catalog: &Catalog,
) -> Vec<(f64, Vec<Step>)> {
    let label = catalog.label_id(&entity.label);
    let target = target.and_then(|t| catalog.label_id(t));
    let low = ranked.iter().map(|(s, _)| *s).fold(0.0, f64::min) - 1.0;
    let mut out: Vec<(f64, Vec<Step>)> = Vec::new();
    for ci in own {
        let best = matches
            .values()
            .filter_map(|m| m.get(*ci))
            .map(|m| m.0)
            .fold(0.0, f64::max);
        if best <= 0.0 {
            continue;
        }
        for (_, r) in catalog.relations() {
            let named = matches
                .get(&r.name)
                .and_then(|m| m.get(*ci))
                .is_some_and(|m| m.0 >= best - 1e-9);
            let in_data = ranked
                .iter()
                .any(|(_, p)| p.iter().any(|s| s.relation == r.name));
            if !named || in_data {
                continue;
            }
            for (src, dst) in &r.endpoints {
                for (from, to, reversed) in [(*src, *dst, false), (*dst, *src, true)] {
                    if Some(from) != label || target.is_some_and(|t| t != to) {
                        continue;
                    }
                    let steps = vec![Step {
                        relation: r.name.clone(),
                        reversed,
                    }];
                    if !out.iter().any(|(_, p)| *p == steps) {
                        out.push((low, steps));
                    }
                }
            }
        }
    }
    out
}

/// How well a path reads the cues `own`: each cue's best match among its relations.
fn own_words_read(steps: &[Step], own: &[usize], matches: &CueMatches) -> f64 {
    own.iter()
        .map(|ci| {
            steps
                .iter()
                .filter_map(|s| matches.get(&s.relation).and_then(|m| m.get(*ci)))
                .map(|m| m.0)
                .fold(0.0, f64::max)
        })
        .sum()
}

/// The choices a path makes (stem, relation): each cue that names a hop with the hop it names
/// best, and each cue that names none with every hop no cue names ("darling" with `spouse`).
fn path_choices(steps: &[Step], cues: &[Cue<'_>], matches: &CueMatches) -> Vec<(String, String)> {
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

/// What feedback says of a candidate path: its choices' priors and its shape's.
fn learned_prior(l: &Strategies, steps: &[Step], cues: &[Cue<'_>], matches: &CueMatches) -> f64 {
    let choices: f64 = path_choices(steps, cues, matches)
        .iter()
        .map(|(w, r)| l.choice_prior(w, r))
        .sum();
    // The question type is not known while paths are ranked: a path of one step answers a
    // relation question, a longer one a multi-hop question.
    let qtype = if steps.len() <= 1 {
        QuestionType::Relation
    } else {
        QuestionType::MultiHop
    };
    choices + l.shape_prior(qtype.name(), &path_shape(steps))
}

/// A candidate path: score, steps and a few of the nodes it ends at.
type RankedPath = (f64, Vec<Step>, Vec<NodeId>);

/// Best score first; ties go to the shorter path, then to the order found.
fn sort_ranked(r: &mut [RankedPath]) {
    r.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.len().cmp(&b.1.len())));
}

/// Whether a question word names one of `names` (stems, prefixes or WordNet: woman → female).
fn names_meet(names: &[String], words: &[&Word]) -> bool {
    let schema: Vec<SchemaWord> = names.iter().flat_map(|n| schema_words(n)).collect();
    words.iter().any(|w| {
        schema
            .iter()
            .any(|s| word_match(&w.norm, &w.stem, s) >= 0.7)
    })
}

/// Word positions of alternatives offered to choose from: the content words on either side of
/// "or" ("a man or a woman", "alive or dead"), articles aside.
fn alternatives(free: &[(usize, &Word)]) -> HashSet<usize> {
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
fn incoming_reading(words: &[Word], cue: &Cue<'_>) -> bool {
    if cue.after {
        return false;
    }
    let next = words.get(cue.at + 1).map(|w| w.norm.as_str());
    let noun_of = next == Some("of");
    let passive_by = next == Some("by") && cue.word.norm.ends_with("ed");
    !(noun_of || passive_by)
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

/// An entity's nodes as `FROM` entries: `Label "key", …`.
fn entry_keys(e: &Entity) -> String {
    e.keys
        .iter()
        .map(|k| format!("{} {}", ident(&e.label), str_lit(k)))
        .collect::<Vec<_>>()
        .join(", ")
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
        meet: Vec::new(),
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

pub(crate) use crate::vocab::Word;

/// Splits on whitespace; drops possessive `'s`; keeps letters, digits and inner hyphens; `_`
/// separates words of one token.
pub(crate) fn tokenize(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut quoted = false;
    for (group, raw) in text.split_whitespace().enumerate() {
        let opens = raw.starts_with(['"', '[', '(', '“']);
        let inside = quoted || opens;
        let quotes = raw.matches('"').count();
        if quotes % 2 == 1 {
            quoted = !quoted;
        }
        if raw.ends_with([']', '”']) {
            quoted = false;
        }
        let raw = describe::trim_token(raw);
        let marked =
            inside || raw.contains('_') || (group > 0 && raw.chars().any(char::is_uppercase));
        for norm in describe::token_words(raw) {
            out.push(Word {
                stem: stem(&norm),
                norm,
                marked,
                quoted: inside,
                group,
            });
        }
    }
    out
}

/// The words of a question: [`tokenize`]'s, with a kinship word of several generations read as
/// its one-generation word once per generation ("granddaughter" → daughter daughter,
/// "great-grandson" → son son son), so each generation is a hop of its own. The two words share
/// the token, so they name two hops, not one. English morphology checked against WordNet (the
/// rest must be a kind of person), not a list of words.
pub(crate) fn question_words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for w in tokenize(text) {
        match generations(&w.norm).filter(|_| !w.marked) {
            Some((base, n)) => out.extend((0..n).map(|_| Word {
                stem: stem(&base),
                norm: base.clone(),
                ..w.clone()
            })),
            None => out.push(w),
        }
    }
    join_collocations(&mut out);
    out
}

/// "line of business" is one noun to WordNet: its words become neighbouring tokens (the
/// function word joins the first), so both may name the same hop, as adjacent words do.
fn join_collocations(words: &mut [Word]) {
    let Some(lx) = lexicon() else { return };
    let mut i = 0;
    while i + 2 < words.len() {
        let (a, of, b) = (&words[i], &words[i + 1], &words[i + 2]);
        let separate = a.group + 1 == of.group && of.group + 1 == b.group;
        let plain = !(a.marked || of.marked || b.marked);
        if separate
            && plain
            && is_stopword(&of.norm)
            && !is_stopword(&a.norm)
            && !is_stopword(&b.norm)
            && lx.is_collocation(&[&a.norm, &of.norm, &b.norm])
        {
            let g = a.group;
            words[i + 1].group = g;
            for w in &mut words[i + 2..] {
                w.group -= 1;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
}

/// "grandson" → ("son", 2), "great-grandmother" → ("mother", 3); `None` for any other word.
fn generations(norm: &str) -> Option<(String, usize)> {
    let mut rest = norm;
    let mut n = 1;
    while let Some(r) = rest.strip_prefix("great") {
        rest = r.trim_start_matches('-');
        n += 1;
    }
    let base = rest.strip_prefix("grand")?.trim_start_matches('-');
    let person = base.len() >= 3 && lexicon().is_some_and(|lx| lx.is_a(base, "person"));
    person.then(|| (base.to_owned(), n + 1))
}

/// A name as the name index keys it: its words, normalised like question words, joined by
/// spaces (the store's normalisation, which question words share).
pub(crate) use cairn_store::describe::normalize_name as normalize;

/// The stem of a question word (Snowball English; a hyphenated word by its last part, so
/// "co-authors" meets `AUTHORED`).
pub(crate) fn stem(word: &str) -> String {
    vocab::stem(word.rsplit('-').next().unwrap_or(word))
}

/// The words of every label, relation and property name: words that name the schema are not
/// node mentions unless marked.
fn schema_stems(catalog: &Catalog) -> Vec<SchemaWord> {
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
fn linkable(span: &[Word], schema: &[SchemaWord]) -> bool {
    if span.iter().all(|w| w.marked) {
        return true;
    }
    span.iter().any(|w| {
        !is_stopword(&w.norm)
            && w.norm.len() >= 3
            && !w.norm.chars().all(|c| c.is_ascii_digit())
            && !schema.iter().any(|s| {
                s.stem == w.stem
                    || (s.stem.len() >= 4
                        && w.stem.len() >= 4
                        && (s.stem.starts_with(&w.stem) || w.stem.starts_with(&s.stem)))
            })
    })
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

/// The nouns a wh-word asks for (general English, matched to the schema like any word).
fn wh_nouns(word: &str) -> &'static [&'static str] {
    match word {
        "where" => &["place", "location", "country", "city", "venue"],
        "when" => &["year", "date", "time"],
        "who" | "whom" => &["person"],
        _ => &[],
    }
}

/// How well a question word names a schema element (the best of its words, weighted).
fn element_match(w: &Word, element: &[SchemaWord]) -> f64 {
    element
        .iter()
        .map(|s| word_match(&w.norm, &w.stem, s) * s.weight)
        .fold(0.0, f64::max)
}

/// The best-matching schema word of an element for a question word: (score, word index).
fn best_word_match(w: &Word, element: &[SchemaWord]) -> (f64, usize) {
    element
        .iter()
        .enumerate()
        .map(|(i, s)| (word_match(&w.norm, &w.stem, s) * s.weight, i))
        .fold((0.0, 0), |b, x| if x.0 > b.0 { x } else { b })
}

/// Whether a label is person-like: WordNet says one of its words is a kind of person.
fn person_like(label: &str) -> bool {
    lexicon().is_some_and(|lx| {
        vocab::name_words(label)
            .iter()
            .any(|w| lx.is_a(w, "person"))
    })
}

/// The label a question word (at position `at`) names, if any: by the label's own words, else
/// by meaning (the word alone against the label's phrases, from [`vocab::LABEL_COSINE_MIN`]:
/// "which *movie*" → `Film`), else (for a wh-word) a label its answer nouns name.
fn label_of(w: &Word, at: usize, catalog: &Catalog, meaning: Option<&Meaning>) -> Option<String> {
    let best = catalog
        .labels()
        .map(|(id, n)| {
            (
                element_match(w, &vocab::element_words(catalog, Element::Label(id))),
                n,
            )
        })
        // Stems and prefixes only: WordNet's reach is too wide for a label noun
        // ("published" is near "author").
        .filter(|(s, _)| *s >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((_, n)) = best {
        return Some(n.to_owned());
    }
    if let Some(m) = meaning.filter(|m| m.applies(false, false)) {
        let by_meaning = catalog
            .labels()
            .filter_map(|(id, n)| Some((m.word_similarity(at, Element::Label(id))?, n)))
            .filter(|(c, _)| *c >= vocab::LABEL_COSINE_MIN)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, n)) = by_meaning {
            return Some(n.to_owned());
        }
    }
    let nouns = wh_nouns(&w.norm);
    if nouns.is_empty() {
        return None;
    }
    if nouns == ["person"] {
        return catalog
            .labels()
            .map(|(_, n)| n)
            .find(|n| person_like(n))
            .map(str::to_owned);
    }
    catalog
        .labels()
        .map(|(_, n)| n)
        .find(|n| {
            let words = schema_words(n);
            nouns.iter().any(|x| {
                words.iter().any(|s| s.stem == vocab::stem(x))
                    || lexicon().is_some_and(|lx| lx.is_a(&s_word(&words), x))
            })
        })
        .map(str::to_owned)
}

fn s_word(words: &[SchemaWord]) -> String {
    words.last().map(|w| w.word.clone()).unwrap_or_default()
}

/// The property an attribute question asks for: one a content word names (by its words, or by
/// meaning where [`Meaning::applies`] allows), or one a wh-word's nouns name ("when" → a year
/// or date).
fn property_cue(
    free: &[(usize, &Word)],
    props: &[String],
    catalog: &Catalog,
    meaning: Option<&Meaning>,
) -> Option<String> {
    let norms: Vec<&str> = free.iter().map(|(_, w)| w.norm.as_str()).collect();
    // "how often" / "how many times" ask for a count kept as a property.
    let how_often = norms
        .windows(2)
        .any(|p| p == ["how", "often"] || p == ["many", "times"]);
    let relations: Vec<(Element, Vec<SchemaWord>)> = catalog
        .relations()
        .map(|(id, r)| (Element::Relation(id), schema_words(&r.name)))
        .collect();
    let props: Vec<(&String, Vec<SchemaWord>)> = props
        .iter()
        .map(|p| (p, schema_words(p)))
        .filter(|(_, words)| !words.iter().any(|w| w.word == "name" || w.word == "title"))
        .collect();
    // A word's match with a kind of element: its best lexical one, raised by meaning where
    // [`Meaning::applies`] allows (the lexical matches with every element of the kind decide).
    let by_meaning = |at: usize, lexical: &[f64], element: Element, i: usize| {
        let placed = lexical.iter().any(|s| *s > 0.0);
        let relation = matches!(element, Element::Relation(_));
        let cos = meaning
            .filter(|m| m.applies(relation, placed))
            .and_then(|m| m.similarity(at, element));
        vocab::combine(lexical[i], cos)
    };
    // Per word: its match with each property and its best match with a relation.
    let per_word: Vec<(Vec<f64>, f64)> = free
        .iter()
        .map(|(at, w)| {
            let content = !is_stopword(&w.norm);
            let lexical = |words: &[SchemaWord]| {
                if content {
                    element_match(w, words)
                } else {
                    0.0
                }
            };
            let prop_lexical: Vec<f64> = props.iter().map(|(_, words)| lexical(words)).collect();
            let rel_lexical: Vec<f64> = relations.iter().map(|(_, r)| lexical(r)).collect();
            let named = props
                .iter()
                .enumerate()
                .map(|(pi, (prop, _))| match catalog.prop_id(prop) {
                    Some(id) if content => {
                        by_meaning(*at, &prop_lexical, Element::Property(id), pi)
                    }
                    _ => prop_lexical[pi],
                })
                .collect();
            let as_relation = relations
                .iter()
                .enumerate()
                .map(|(i, (e, _))| {
                    if content {
                        by_meaning(*at, &rel_lexical, *e, i)
                    } else {
                        0.0
                    }
                })
                .fold(0.0, f64::max);
            (named, as_relation)
        })
        .collect();
    let mut best: Option<(f64, String)> = None;
    for (pi, (prop, words)) in props.iter().enumerate() {
        for ((_, w), (named, as_relation)) in free.iter().zip(&per_word) {
            let named = named[pi];
            let wh = wh_nouns(&w.norm)
                .iter()
                .any(|x| words.iter().any(|s| s.stem == vocab::stem(x)));
            let score = if wh { named.max(0.9) } else { named };
            // A word that names a relation better is a relation question ("which papers
            // does X *cite*"), unless the question asks how often.
            if !wh && !how_often && *as_relation > score {
                continue;
            }
            if score >= 0.6 && best.as_ref().is_none_or(|(b, _)| score > *b) {
                best = Some((score, (*prop).clone()));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// The numeric property a superlative ranks by ("most *cited*"), and the words it used.
fn ranking_property(free: &[(usize, &Word)], props: &[String]) -> Option<(String, Vec<usize>)> {
    for prop in props {
        let words = schema_words(prop);
        if words.iter().any(|w| w.word == "name" || w.word == "title") {
            continue;
        }
        let used: Vec<usize> = free
            .iter()
            .filter(|(_, w)| !is_stopword(&w.norm) && element_match(w, &words) >= 0.6)
            .map(|(i, _)| *i)
            .collect();
        if !used.is_empty() {
            return Some((prop.clone(), used));
        }
    }
    None
}

/// The numeric value of a property, for ranking.
pub(crate) fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}
