//! The planner agent: turns a question into an EXPLORE plan, in phases, one module each:
//!
//! 1. **Words** (`words`): tokens, marked mentions, kinship generations, WordNet collocations.
//! 2. **Linking** (`link`): runs of question words against node names in the store's name
//!    index (a few seeks per question word, nothing read per node); a quoted phrase that names
//!    nothing exactly is linked by vector similarity.
//! 3. **Question analysis** (`analysis`): the question type, the answer type (a label noun),
//!    the property an attribute question asks for and what an aggregate ranks by.
//! 4. **Path ranking** (`read`, `paths`, `conjunct`): relation sequences read off the data from the
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
mod read;
mod statement;
mod structure;
mod words;

use compile::ident;
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
