//! The planner agent: turns a question into an EXPLORE plan, in phases, one module each:
//!
//! 1. **Words** (`words`): tokens, marked mentions, kinship generations, WordNet collocations.
//! 2. **Linking** (`link`): runs of question words against node names in the store's name
//!    index (a few seeks per question word, nothing read per node); a quoted phrase that names
//!    nothing exactly is linked by vector similarity.
//! 3. **Question analysis** (`analysis`): the question type, the answer type (a label noun),
//!    the property an attribute question asks for and what an aggregate ranks by.
//! 4. **Path ranking** (`paths`, `conjunct`): relation sequences read off the data from the
//!    linked entity, ranked by how well their relation words read the question's words; with
//!    two marked entities, the pair of paths that meet.
//! 5. **Compilation** (`compile`): the EXPLORE text is written out and compiled with `prepare`,
//!    so `EXPLAIN ASK` prints the same canonical form as any hand-written statement.
//!
//! The planner never reads node text as instructions: names are only compared with question
//! words, and with an LLM they are sent as quoted data (see [`crate::llm::data_block`]).

use crate::explore::EntrySearch;
use crate::llm::LlmBackend;
use crate::reading::{Chain, Op, Output, RankKey, Reading, Source};
use crate::semantic::{Meaning, PhraseCache};
use crate::strategy::{path_shape, Decision, Strategies};
use crate::vocab;
use crate::AgentError;
use cairn_embed::Embedder;
use cairn_query::Plan;
use cairn_storage_format::NodeId;
use cairn_store::{Catalog, Graph};
use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex};

mod analysis;
mod build;
mod compile;
mod conjunct;
mod cuts;
mod link;
mod paths;
mod statement;
mod structure;
mod words;

use compile::{ident, placeholder_plan};
use conjunct::{constraint_words, own_words_read, schema_steps};
use paths::{path_choices, PathQuery, MAX_PATH};
use structure::{structure, MentionInfo};
use words::question_words;

pub use cuts::Modifier;

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

/// A decision another reading came close to: the reading chosen there and the runner-up, as
/// chains from the same start. The answer is uncertain when they reach different nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Doubt {
    /// What was decided ("the hop from texas", "which colorado").
    pub what: String,
    /// How much better the chosen reading scored.
    pub margin: f64,
    pub chosen: Chain,
    pub other: Chain,
}

/// How close another reading may come before the choice is in doubt: a third of what one
/// word naming a hop weighs; with a word the chosen path leaves unexplained, most of a word's
/// weight (the hop that word stands for is a guess).
const DOUBT_MARGIN: f64 = 0.3;
const DOUBT_MARGIN_GUESS: f64 = 0.75;

/// Whether a runner-up at `margin` puts the choice in doubt.
fn doubtful(margin: f64, guessed: bool) -> bool {
    margin
        < if guessed {
            DOUBT_MARGIN_GUESS
        } else {
            DOUBT_MARGIN
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
    /// The question's shape: its words with each linked mention as `#`, which feedback keys
    /// its lessons on hops by (see [`crate::strategy::Decision::template`]).
    pub template: String,
    /// Per hop, the hop's words as a pattern and the path as it names it, for feedback.
    pub patterns: Vec<(String, String)>,
    /// The question read as a chain of set operations, which the answerer computes exactly
    /// where the statement does not say all of it (`None`: a semantic exploration answers).
    pub reading: Option<Reading>,
    /// Content words of the question no part of the plan uses.
    pub unused: Vec<String>,
    /// Decisions another reading came close to.
    pub doubts: Vec<Doubt>,
    /// Unused adjectives on a label noun, and the cut-off each is read as when feedback taught
    /// one (see `cuts`).
    pub modifiers: Vec<Modifier>,
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

    /// Whether the plan's statement is its reading's (`planner::statement`), which the
    /// executor runs exactly; the answerer checks that both give the same answer.
    pub fn states_reading(&self) -> bool {
        match (&self.reading, &self.conjunct) {
            (Some(r), None) => {
                statement::of_reading(r, &self.question).is_some_and(|t| t == self.text)
            }
            _ => false,
        }
    }

    /// The comment lines `EXPLAIN ASK` prints above the statement: the question and its type,
    /// and the reading the answer is computed from, when the statement does not say all of it.
    pub fn header(&self) -> String {
        let mut out = format!("-- ASK {:?}: {} question", self.question, self.qtype);
        if let Some(r) = &self.reading {
            out.push_str(&format!("\n-- reading: {} → {:?}", r.chain, r.output));
        }
        out
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
            template: self.template.clone(),
            patterns: self.patterns.clone(),
            hops: self
                .hops()
                .iter()
                .map(|p| path_shape(p))
                // A property read from the entity itself: that one, and any property (`.`),
                // for "where is #" whichever property a place has.
                .chain(
                    self.attribute
                        .iter()
                        .filter(|_| self.path.is_empty())
                        .flat_map(|a| [format!(".{a}"), ".".to_owned()]),
                )
                .collect(),
        }
    }

    /// Every hop the plan takes: the reading's (those of the chains inside it too), else the
    /// path and the conjunct's.
    fn hops(&self) -> Vec<Vec<Step>> {
        fn of(chain: &Chain, out: &mut Vec<Vec<Step>>) {
            for op in &chain.ops {
                match op {
                    Op::Hop { path, .. } => out.push(path.clone()),
                    Op::Keep(c) | Op::Drop(c) => of(c, out),
                    Op::Compare {
                        value: crate::reading::Operand::Of(c, _),
                        ..
                    } => of(c, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        match &self.reading {
            Some(r) => of(&r.chain, &mut out),
            None => out.push(self.path.clone()),
        }
        if let Some((_, p)) = &self.conjunct {
            out.push(p.clone());
        }
        out.retain(|p| !p.is_empty());
        out
    }
}

/// A question's shape: its words, each run of words a linked mention covers as one `#`
/// ("through which states does # run").
fn question_template(words: &[Word], covered: &HashSet<usize>) -> String {
    let mut out: Vec<&str> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if covered.contains(&i) {
            if i == 0 || !covered.contains(&(i - 1)) {
                out.push("#");
            }
        } else {
            out.push(&w.norm);
        }
    }
    out.join(" ")
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
        let mut plan = self.plan_read(question, sizes)?;
        if self.llm.is_none() {
            self.apply_cuts(&mut plan, &question_words(question))?;
        }
        Ok(plan)
    }

    fn plan_read(&self, question: &str, sizes: Sizes) -> Result<QueryPlan, AgentError> {
        let catalog = self.graph.catalog();
        let words = question_words(question);
        let mut mentions = self.link(&words, question, &catalog)?;
        // The schema's properties per label, for reading the question's structure (offline).
        let props = match self.llm {
            None => Some(self.label_props(&catalog)?),
            Some(_) => None,
        };
        let named: Vec<((usize, usize), String)> = match &props {
            Some(props) => property_not_node(&words, question, &mut mentions, props, &catalog)
                .into_iter()
                .collect(),
            None => Vec::new(),
        };
        let mut entities: Vec<Entity> =
            mentions.iter().filter_map(|m| m.first().cloned()).collect();
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
        let template = question_template(&words, &covered);
        let free: Vec<(usize, &Word)> = words
            .iter()
            .enumerate()
            .filter(|(i, _)| !covered.contains(i))
            .collect();
        let meaning = self.meaning(&catalog, &words, &covered)?;
        let meaning = meaning.as_ref();

        // The question's structure: groups, ranks, comparisons, negations, what is asked.
        if let Some(props) = &props {
            let infos: Vec<MentionInfo> = mentions.iter().map(|m| MentionInfo::of(m)).collect();
            let s = structure(&words, question, &infos, props, &catalog, meaning, &named);
            tracing::debug!(structure = ?s, "question structure");
            if s.needs_reading() {
                let mut consumed = s.used.clone();
                consumed.extend(covered.iter().copied());
                // A group noun that also names a relation ("co-*authors*") still names its hop.
                for g in s.groups.iter().filter(|g| g.names_relation) {
                    consumed.remove(&g.at);
                }
                let b = build::Build {
                    words: &words,
                    mentions: &mentions,
                    structure: &s,
                    catalog: &catalog,
                    meaning,
                    consumed: &consumed,
                    props,
                    template: &template,
                };
                let all: Vec<Entity> = mentions.iter().filter_map(|m| m.first().cloned()).collect();
                if let Some(plan) = self.plan_structured(question, &b, &all, sizes)? {
                    return Ok(plan);
                }
            }
        }

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
        // A property asked by a wh-word alone ("*where* is #": a place property) that feedback
        // refuted for questions of this shape gives way to a path from the entity.
        if let (Some(QuestionType::Attribute), Some(prop), Some(_)) =
            (analysis.qtype, analysis.attribute.as_deref(), &entity)
        {
            let named = free.iter().any(|(_, w)| {
                !vocab::is_stopword(&w.norm)
                    && words::element_match(w, &vocab::schema_words(prop)) >= 0.6
            });
            let refuted = self
                .strategies
                .and_then(|m| m.lock().ok())
                .is_some_and(|l| {
                    l.template_prior(&template, &format!(".{prop}")) < 0.0
                        || l.template_prior(&template, ".") < 0.0
                });
            if !named && refuted {
                analysis.qtype = None;
                analysis.attribute = None;
            }
        }
        let mut conjunct = None;
        let mut runner_up: Option<(f64, Vec<Step>)> = None;
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
                        template: &template,
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
                let best_score = ranked.first().map_or(0.0, |(s, _)| *s);
                runner_up = ranked
                    .iter()
                    .find(|(_, p)| *p != path)
                    .map(|(s, p)| (best_score - s, p.clone()));
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
                        template: &template,
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
                        self.read_cues(&free, &words, e, &analysis.consumed, &catalog, meaning);
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
        let (choices, patterns) = match &entity {
            Some(e) if !path.is_empty() => {
                let (cues, matches, _) =
                    self.read_cues(&free, &words, e, &analysis.consumed, &catalog, meaning);
                let asks_place = free.iter().any(|(_, w)| w.norm == "where");
                let read = paths::read_path(&path, &cues, &matches, &words, asks_place);
                (
                    path_choices(&path, &cues, &matches),
                    vec![(
                        paths::question_pattern(&words, &free, &cues, &matches),
                        paths::pattern_hop(&path, &read.named_hops),
                    )],
                )
            }
            _ => (Vec::new(), Vec::new()),
        };
        // What the path leaves unexplained, and a runner-up that came close.
        let (mut unused, mut doubts) = match &entity {
            Some(e) if !path.is_empty() && conjunct.is_none() => {
                let read = self.path_read(
                    &free,
                    &words,
                    e,
                    &analysis.consumed,
                    &catalog,
                    meaning,
                    &path,
                );
                let unused: Vec<String> = read
                    .unknown
                    .iter()
                    .map(|i| words[*i].norm.clone())
                    .collect();
                let target = analysis.target.clone();
                let hop = |p: &[Step]| Chain {
                    source: e.source(),
                    ops: vec![Op::Hop {
                        path: p.to_vec(),
                        target: target.clone(),
                    }],
                };
                let doubts = runner_up
                    .filter(|(margin, _)| doubtful(*margin, !unused.is_empty()))
                    .map(|(margin, other)| Doubt {
                        what: "the path".into(),
                        margin,
                        chosen: hop(&path),
                        other: hop(&other),
                    })
                    .into_iter()
                    .collect();
                (unused, doubts)
            }
            _ => (Vec::new(), Vec::new()),
        };
        // Another mention the plan does not start from ("the high point of *wyoming*" read from
        // the city High Point).
        for o in &others {
            if conjunct.as_ref().is_none_or(|(c, _)| c.keys != o.keys) {
                unused.push(o.mention.clone());
            }
        }
        // A property asked for by a wh-word alone ("*where* is X": a `country` property) has a
        // rival: the best path from X (to a place).
        if let (QuestionType::Attribute, Some(e), Some(prop)) =
            (qtype, &entity, analysis.attribute.as_deref())
        {
            let named = free.iter().any(|(_, w)| {
                !vocab::is_stopword(&w.norm)
                    && words::element_match(w, &vocab::schema_words(prop)) >= 0.6
            });
            if !named {
                let ranked = self.ranked_paths(&PathQuery {
                    target: None,
                    free: &free,
                    words: &words,
                    entity: e,
                    consumed: &analysis.consumed,
                    catalog: &catalog,
                    meaning,
                    min: 1,
                    max: MAX_PATH,
                    template: &template,
                })?;
                if let Some((_, p)) = ranked.first() {
                    doubts.push(Doubt {
                        what: "the answer (a property of it, or a node it leads to)".into(),
                        margin: 0.0,
                        chosen: Chain::from(e.source()),
                        other: Chain {
                            source: e.source(),
                            ops: vec![Op::Hop {
                                path: p.clone(),
                                target: None,
                            }],
                        },
                    });
                }
            }
        }
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
            template,
            patterns,
            reading: None,
            unused,
            doubts,
            modifiers: Vec::new(),
        };
        plan.reading = legacy_reading(&plan);
        self.compile(&mut plan)?;
        Ok(plan)
    }
}

/// Drops a mention whose words name a property of the label a comparison is about, when its
/// nodes are of another label: in "what states *high point* are higher than that of colorado"
/// the words are the states' highest point (`highest_point`), not the city High Point. The
/// words then name that property when the structure is read (returned with their span). A
/// mention compared with ("than *colorado*") stays.
fn property_not_node(
    words: &[Word],
    question: &str,
    mentions: &mut Vec<Vec<Entity>>,
    props: &structure::LabelProps,
    catalog: &Catalog,
) -> Option<((usize, usize), String)> {
    let infos: Vec<MentionInfo> = mentions.iter().map(|m| MentionInfo::of(m)).collect();
    let with = structure(words, question, &infos, props, catalog, None, &[]);
    let mut found = None;
    for c in &with.compares {
        let Some(label) = c.group.map(|g| &with.groups[g].label) else {
            continue;
        };
        for (m, info) in infos.iter().enumerate() {
            let operand = matches!(c.against, structure::Against::Mention(o) if o == m);
            if operand || info.labels.contains(label) {
                continue;
            }
            let own = &words[info.span.0..info.span.1];
            let named = props.get(label).into_iter().flatten().find(|p| {
                let sw = vocab::schema_words(&p.name);
                // A graded word of the name ("*highest*_point") meets its base ("high").
                let hit = |w: &Word, s: &vocab::SchemaWord| {
                    vocab::word_match(&w.norm, &w.stem, s) >= 0.8
                        || vocab::lexicon()
                            .and_then(|lx| lx.graded(&s.word))
                            .is_some_and(|(base, _)| base == w.norm)
                };
                !own.is_empty()
                    && own.iter().all(|w| sw.iter().any(|s| hit(w, s)))
                    && sw.iter().all(|s| own.iter().any(|w| hit(w, s)))
            });
            if let Some(p) = named {
                found = Some((m, (info.span, p.name.clone())));
            }
        }
    }
    let (m, named) = found?;
    tracing::debug!(mention = ?named.0, property = %named.1, "a compared property, not a node");
    mentions.remove(m);
    Some(named)
}

/// The reading of a plan made of an entity, a path and an aggregate: the entity's nodes, the
/// path (and the conjunct's, intersected), then the count, ranking or property asked for.
/// `None` without an entity (a semantic exploration answers).
fn legacy_reading(plan: &QueryPlan) -> Option<Reading> {
    let e = plan.entity.as_ref()?;
    let mut chain = Chain::from(e.source());
    if !plan.path.is_empty() {
        chain.ops.push(Op::Hop {
            path: plan.path.clone(),
            target: plan.target.clone(),
        });
    }
    if let Some((other, path)) = &plan.conjunct {
        chain.ops.push(Op::Keep(Box::new(Chain {
            source: other.source(),
            ops: vec![Op::Hop {
                path: path.clone(),
                target: plan.target.clone(),
            }],
        })));
    }
    let output = match (plan.qtype, &plan.aggregate) {
        (QuestionType::Attribute, _) => {
            Output::Property(plan.attribute.clone().unwrap_or_else(|| "name".into()))
        }
        (QuestionType::Aggregation, Some(Aggregate::Top { k, by })) => {
            chain.ops.push(Op::Rank {
                key: match by {
                    Some(p) => RankKey::Property(p.clone()),
                    None => RankKey::Paths,
                },
                descending: true,
                k: *k,
                word: None,
            });
            Output::Nodes
        }
        (QuestionType::Aggregation, _) => Output::Count,
        _ => Output::Nodes,
    };
    Some(Reading { chain, output })
}

impl Entity {
    /// The entity's nodes as the start of a reading.
    pub fn source(&self) -> Source {
        Source::Nodes {
            label: self.label.clone(),
            nodes: self.nodes.clone(),
            keys: self.keys.clone(),
        }
    }
}

pub(crate) use crate::vocab::Word;

/// A name as the name index keys it: its words, normalised like question words, joined by
/// spaces (the store's normalisation, which question words share).
pub(crate) use cairn_store::describe::normalize_name as normalize;
