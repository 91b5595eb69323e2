//! Question structure: what each word does, before any path is chosen. Label nouns make
//! *groups* (the sets the question talks about: "which *states* border the *state* with …");
//! superlatives rank a group by a property or by how many of something it reaches ("the
//! *largest* city", "the state that borders the *most states*"); comparatives compare a
//! property with a number or with another entity's value; negation words drop what the next
//! mention or group reaches; "how many", "total", "average", "how big" and a property named
//! at the front say what the answer reports; a question that starts with an auxiliary ("does",
//! "is") asks yes or no. Every word the structure uses is recorded, so that what is left names
//! relations (or is reported as unused).
//!
//! English only, and general: the grammar words below are English function words and graded
//! adjectives' poles, not words of any schema; which property an adjective means is read from
//! WordNet (its attribute noun and derivations: large → size, dense → density) against the
//! properties the label's nodes carry, falling back to the label's only numeric property.

use super::words::element_match;
use super::{Entity, Step, Word};
use crate::reading::{AggFunc, Cmp};
use crate::semantic::Meaning;
use crate::vocab::{self, is_stopword, lexicon, schema_words, word_match, Grade, SchemaWord};
use cairn_store::Catalog;
use std::collections::{BTreeMap, HashSet};

mod adjectives;
mod negation;
mod numbers;
mod relational;
mod values;

pub(crate) use adjectives::{adjective_property, adjective_rank};
use adjectives::{is_time_word, time_property};
use numbers::{magnified, magnitude, numbers};

/// A property some nodes of a label carry, and whether its values are numbers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PropInfo {
    pub(crate) name: String,
    pub(crate) numeric: bool,
    /// Short text values seen on the sample, each as written and as the name index
    /// normalises words (for conditions on a value: "*graduate* students", "in *Toulouse*").
    pub(crate) values: Vec<(String, String)>,
    /// Every number seen on the sample is a whole year (1000 to 2100): with an event's verb
    /// for a name ("founded", "born") the property is a time.
    pub(crate) years: bool,
    /// The largest absolute number seen on the sample (0 when none): the scale the data
    /// writes the property in.
    pub(crate) largest: f64,
}

/// Per label (by name), the properties its nodes carry (a sample of them, first by key).
pub(crate) type LabelProps = BTreeMap<String, Vec<PropInfo>>;

/// The properties a phrase may name, best first, each with how well its words name it: which
/// one is meant is decided once the label is known ("size" is a river's length and a state's
/// area).
pub(crate) type PropChoice = Vec<(String, f64)>;

/// A set the question talks about: a label noun ("states"), possibly the type of a mention
/// next to it ("the mississippi *river*": that river, not every river), or a noun naming a
/// relation's objects ("the largest *capital*": the cities states have as capital).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Group {
    /// Word position of the noun.
    pub(crate) at: usize,
    pub(crate) label: String,
    /// A mention (index into the mentions) this noun is the type of.
    pub(crate) mention: Option<usize>,
    /// After a negation ("states that have *no rivers*"): a constraint that must not hold.
    pub(crate) negated: bool,
    /// The noun also names a relation ("co-*authors*"): it stays a cue for the hop into it.
    pub(crate) names_relation: bool,
    /// A relational noun's relation, from its subjects' label (`State`, `CAPITAL`).
    pub(crate) via: Option<(String, Step)>,
    /// `via` reaches the agents of a relation ("*directors*": back along `DIRECTED`): what
    /// else the question says of them holds of these nodes, not of the relation's objects.
    pub(crate) agent: bool,
}

/// What a rank orders by.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum KeySpec {
    Property(String),
    /// How many nodes of this label each reaches ("the *most states*"), the noun at `at`.
    Count {
        label: String,
        at: usize,
    },
    /// How many paths reach each ("… most often").
    Paths,
}

/// A superlative and the group it ranks.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RankSpec {
    /// Word position of the superlative.
    pub(crate) at: usize,
    /// The group ranked (an index into the groups), `None` for the answer.
    pub(crate) group: Option<usize>,
    pub(crate) key: KeySpec,
    pub(crate) descending: bool,
    pub(crate) k: usize,
    /// The question's word ("largest"), for the answer's text.
    pub(crate) word: String,
    /// The words that say what is counted ("that *borders* the most states"): no other hop's.
    pub(crate) words: Vec<usize>,
}

/// What a comparison compares with.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Against {
    Number(f64),
    /// A text value some of the group's nodes carry, as written in the data.
    Text(String),
    /// The same property of a mention's nodes (index into the mentions).
    Mention(usize),
}

/// A comparison on a group's property.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CompareSpec {
    pub(crate) at: usize,
    pub(crate) group: Option<usize>,
    pub(crate) property: String,
    pub(crate) cmp: Cmp,
    pub(crate) against: Against,
    /// Ranks of the operand's nodes before its value is read ("a higher price than the
    /// *cheapest* Atlas"): the superlatives between "than" and the mention.
    pub(crate) operand_ranks: Vec<RankSpec>,
}

/// What the answer reports.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Want {
    Nodes,
    Count,
    Aggregate(AggFunc, PropChoice),
    Property(PropChoice),
    Exists,
}

/// The question's structure.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Structure {
    pub(crate) groups: Vec<Group>,
    /// The group the answer is about (index into `groups`).
    pub(crate) focus: Option<usize>,
    pub(crate) want: Want,
    /// The words that name the property the answer reports.
    pub(crate) want_words: Vec<usize>,
    pub(crate) ranks: Vec<RankSpec>,
    pub(crate) compares: Vec<CompareSpec>,
    /// Mentions after a negation ("do not run through *texas*").
    pub(crate) negated_mentions: HashSet<usize>,
    /// Word positions the structure accounts for: none of them names a relation.
    pub(crate) used: HashSet<usize>,
    /// Words no hop may read that nothing else reads either: the parts of a noun WordNet knows
    /// as one ("united states") when no node is named so.
    pub(crate) opaque: Vec<usize>,
    /// Words the reading ignores or only guesses at, so that its answer is no answer to be
    /// sure of: a negation with nothing to scope over ("which films did X *not* act in" read
    /// as the films X acted in), an adjective's property by WordNet's nearness with another
    /// about as near, a number read on the data's scale, a count property read for its members.
    pub(crate) unsure: Vec<usize>,
}

/// English graded adjectives at the low end of their scale ("smallest" ranks ascending).
const LOW_POLES: &[&str] = &[
    "small", "little", "few", "low", "short", "young", "light", "thin", "narrow", "shallow",
    "cheap", "slow", "weak", "sparse", "poor", "bad", "least", "less", "minimum", "min", "early",
    "old",
];
/// Adjectives whose scale is time: they rank a date or year ("newest", "oldest").
const TIME_POLES: &[&str] = &[
    "old", "new", "young", "recent", "early", "late", "first", "last",
];
/// … of which these mean "earlier".
const EARLIER: &[&str] = &["old", "early", "first"];
/// Auxiliaries that open a yes/no question.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "does", "do", "did", "has", "have", "had", "can", "could", "will",
];
/// Quantity words that rank without an adjective ("the *most* states").
const QUANTITY: &[&str] = &["most", "least", "fewest", "maximum", "minimum"];
/// Comparison words that are not graded adjectives.
const MORE: &[&str] = &["more", "greater", "over", "above", "after", "exceeding"];
const LESS: &[&str] = &["less", "fewer", "under", "below", "before"];

/// A mention as the structure sees it: its span and the labels its nodes may have.
#[derive(Clone, Debug)]
pub(crate) struct MentionInfo {
    pub(crate) span: (usize, usize),
    pub(crate) labels: Vec<String>,
}

impl MentionInfo {
    pub(crate) fn of(candidates: &[Entity]) -> MentionInfo {
        MentionInfo {
            span: candidates.first().map_or((0, 0), |e| e.span),
            labels: candidates.iter().map(|e| e.label.clone()).collect(),
        }
    }
}

/// A run of question words naming a property, with the properties it may name.
#[derive(Clone, Debug)]
struct Phrase {
    span: (usize, usize),
    choice: PropChoice,
}

/// Reads the question's structure.
pub(crate) fn structure(
    words: &[Word],
    question: &str,
    mentions: &[MentionInfo],
    props: &LabelProps,
    catalog: &Catalog,
    meaning: Option<&Meaning>,
    named: &[((usize, usize), String)],
) -> Structure {
    let mut r = Reader {
        words,
        mentions,
        props,
        catalog,
        meaning,
        numbers: numbers(question, words),
        magnified: magnified(question, words),
        phrases: Vec::new(),
        named: named
            .iter()
            .map(|(span, p)| Phrase {
                span: *span,
                choice: vec![(p.clone(), 1.0)],
            })
            .collect(),
        k: super::analysis::top_k(&words.iter().enumerate().collect::<Vec<_>>()),
        s: Structure {
            groups: Vec::new(),
            focus: None,
            want: Want::Nodes,
            want_words: Vec::new(),
            ranks: Vec::new(),
            compares: Vec::new(),
            negated_mentions: HashSet::new(),
            used: HashSet::new(),
            opaque: Vec::new(),
            unsure: Vec::new(),
        },
    };
    // Multi-word property phrases first ("highest point" is no superlative of "point"), then
    // label nouns, then one-word phrases among the words left.
    r.phrases = r.property_phrases(&HashSet::new(), false);
    r.groups();
    let nouns: HashSet<usize> = r.s.groups.iter().map(|g| g.at).collect();
    r.phrases = r.property_phrases(&nouns, true);
    // Text values first: a value's word is no property phrase ("how many *poetry* books":
    // genre = "poetry", not the genre asked for).
    r.value_conditions();
    let used = r.s.used.clone();
    r.phrases
        .retain(|p| !(p.span.0..p.span.1).any(|i| used.contains(&i)));
    r.asked();
    r.mention_values();
    r.negations();
    r.superlatives();
    r.comparatives();
    r.asked_property();
    r.focus();
    r.guessed_adjectives();
    r.data_scale();
    r.s
}

struct Reader<'a> {
    words: &'a [Word],
    mentions: &'a [MentionInfo],
    props: &'a LabelProps,
    catalog: &'a Catalog,
    meaning: Option<&'a Meaning>,
    numbers: BTreeMap<usize, f64>,
    /// Numbers a magnitude word multiplied: (the product, the numeral).
    magnified: Vec<(f64, f64)>,
    phrases: Vec<Phrase>,
    /// Runs of words known to name a property before the structure is read (a mention's words
    /// that name the compared property, see `planner::property_not_node`).
    named: Vec<Phrase>,
    /// "top 3", "3 most".
    k: Option<usize>,
    s: Structure,
}

impl Reader<'_> {
    fn norm(&self, i: usize) -> &str {
        self.words.get(i).map(|w| w.norm.as_str()).unwrap_or("")
    }

    fn free(&self, i: usize) -> bool {
        i < self.words.len() && !self.mentions.iter().any(|m| i >= m.span.0 && i < m.span.1)
    }

    fn phrase_at(&self, i: usize) -> Option<&Phrase> {
        self.phrases.iter().find(|p| i >= p.span.0 && i < p.span.1)
    }

    fn group_at(&self, at: usize) -> Option<usize> {
        self.s.groups.iter().position(|g| g.at == at)
    }

    /// The nearest group before `at` that is a set of its own (not a mention's type).
    fn preceding(&self, at: usize) -> Option<usize> {
        self.s
            .groups
            .iter()
            .rposition(|g| g.at < at && g.mention.is_none())
    }

    fn following(&self, at: usize) -> Option<usize> {
        self.s.groups.iter().position(|g| g.at > at)
    }

    /// Past articles from `j`.
    fn skip_articles(&self, mut j: usize) -> usize {
        while matches!(self.norm(j), "the" | "a" | "an") {
            j += 1;
        }
        j
    }

    /// Label nouns, and nouns naming a relation's objects after a superlative or a wh-word.
    fn groups(&mut self) {
        for i in 0..self.words.len() {
            let multi = self.phrase_at(i).is_some_and(|p| p.span.1 - p.span.0 > 1);
            if !self.free(i) || is_stopword(self.norm(i)) || multi {
                continue;
            }
            let w = &self.words[i];
            // A two-word noun WordNet knows ("united states") names neither a label nor a hop.
            if i > 0
                && self.free(i - 1)
                && !is_stopword(self.norm(i - 1))
                && lexicon().is_some_and(|lx| lx.is_collocation(&[self.norm(i - 1), self.norm(i)]))
            {
                self.s.used.extend([i - 1, i]);
                self.s.opaque.extend([i - 1, i]);
                continue;
            }
            // "what year did Zenith 2 *launch*": after "did" and its subject, the clause's
            // verb, not a noun (`LaunchSite`), when it names an event's time property
            // (`launch_year`, read by `asked_property`).
            let verb = self.mentions.iter().any(|m| {
                m.span.1 == i
                    && m.span.0 > 0
                    && matches!(self.norm(m.span.0 - 1), "did" | "does" | "do")
            });
            let event = self.phrase_at(i).is_some_and(|p| self.names_event_time(p));
            if verb && event {
                continue;
            }
            let (label, via, agent) =
                match super::analysis::label_of(w, i, self.catalog, self.meaning) {
                    Some(label) => (label, None, false),
                    None => match self.relational_noun(i) {
                        Some((src, step, label, agent)) => (label, Some((src, step)), agent),
                        None => continue,
                    },
                };
            // Not a relation named after the label itself (`STATE_NAME` for State): such a
            // relation's word is the answer type, not a hop. An agent noun names its relation.
            let names_relation = agent
                || via.is_none()
                    && self.catalog.relations().any(|(_, rel)| {
                        element_match(w, &schema_words(&rel.name)) >= 0.8
                            && !schema_words(&rel.name).iter().all(|x| {
                                schema_words(&label).iter().any(|l| l.stem == x.stem)
                                    || x.word == "id"
                            })
                    });
            // A noun next to a mention of that label is the mention's type ("the mississippi
            // *river*", "the *state* of texas", "*city* of boston").
            // "of" only right after an article: "the state of texas", not "the adjacent state
            // of california".
            let article = i > 0 && matches!(self.norm(i - 1), "the" | "a" | "an");
            // "is *X* a (graduate) *course*": the copula's complement is X's type.
            let copula = matches!(self.norm(0), "is" | "are" | "was" | "were");
            let complement = |m: &MentionInfo| {
                copula
                    && self.skip_articles(1) == m.span.0
                    && matches!(self.norm(m.span.1), "a" | "an" | "the")
                    && i > m.span.1
                    && i <= m.span.1 + 3
            };
            let apposed = self.mentions.iter().position(|m| {
                m.labels.contains(&label)
                    && (m.span.1 == i
                        || i + 1 == m.span.0
                        || (article && i + 2 == m.span.0 && self.norm(i + 1) == "of")
                        || complement(m))
            });
            self.s.used.insert(i);
            // "research *projects*" for `ResearchProject`: one noun, its head the last word.
            if let Some(last) = self.s.groups.last_mut() {
                if last.at + 1 == i && last.label == label && last.mention.is_none() {
                    last.at = i;
                    last.mention = apposed;
                    last.names_relation |= names_relation;
                    continue;
                }
            }
            self.s.groups.push(Group {
                at: i,
                label,
                mention: apposed,
                negated: false,
                names_relation,
                via,
                agent,
            });
        }
    }

    fn skip_back_articles(&self, i: usize) -> Option<usize> {
        let mut j = i.checked_sub(1)?;
        while matches!(self.norm(j), "the" | "a" | "an") {
            j = j.checked_sub(1)?;
        }
        Some(j)
    }

    /// Property phrases: runs of free content words naming one property's words, each with
    /// every property that names them as well, best first. A graded adjective alone is no
    /// phrase ("highest" is a superlative), but may start one ("highest point"); adjacent
    /// phrases read as one compound, named by its last ("population density": density).
    fn property_phrases(&self, nouns: &HashSet<usize>, compounds: bool) -> Vec<Phrase> {
        let mut names: Vec<(&str, bool)> = self
            .props
            .values()
            .flatten()
            .map(|p| (p.name.as_str(), p.numeric))
            .collect();
        names.sort_unstable();
        names.dedup_by(|a, b| a.0 == b.0);
        let schema: Vec<(&str, Vec<SchemaWord>)> =
            names.iter().map(|(n, _)| (*n, schema_words(n))).collect();
        let named = |i: usize| self.named.iter().any(|p| i >= p.span.0 && i < p.span.1);
        let ok = |i: usize| {
            self.free(i) && !nouns.contains(&i) && !is_stopword(self.norm(i)) && !named(i)
        };
        let mut out: Vec<Phrase> = self.named.clone();
        let mut i = 0;
        while i < self.words.len() {
            if !ok(i) {
                i += 1;
                continue;
            }
            // Every property's run from here: (words covered, its words named, score).
            let mut runs: Vec<(usize, usize, f64, &str)> = Vec::new();
            let graded_first = graded(self.norm(i)).is_some();
            for (name, sw) in &schema {
                let mut j = i;
                let mut score = 0.0;
                let mut named: HashSet<usize> = HashSet::new();
                while j < self.words.len() && ok(j) {
                    let w = &self.words[j];
                    let m = sw
                        .iter()
                        .enumerate()
                        .map(|(k, s)| (word_match(&w.norm, &w.stem, s) * s.weight, k))
                        .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
                    // After a graded word ("highest *point*") only the property's own words:
                    // "highest mountain" is a superlative of mountains.
                    let floor = if graded_first && j > i { 0.8 } else { 0.6 };
                    if m.0 < floor || named.contains(&m.1) {
                        break;
                    }
                    named.insert(m.1);
                    score += m.0;
                    j += 1;
                }
                let len = j - i;
                let graded_alone = len == 1 && graded(self.norm(i)).is_some();
                let graded_start = len > 1 && graded(self.norm(i)).is_some() && named.len() < 2;
                if len > 0 && !graded_alone && !graded_start {
                    runs.push((len, named.len(), score, name));
                }
            }
            let Some(&(len, n, _, _)) = runs.iter().max_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)))
            else {
                i += 1;
                continue;
            };
            let mut choice: PropChoice = runs
                .iter()
                .filter(|r| r.0 == len && r.1 == n)
                .map(|r| (r.3.to_owned(), r.2))
                .collect();
            choice.sort_by(|a, b| {
                b.1.total_cmp(&a.1)
                    .then(schema_words(&a.0).len().cmp(&schema_words(&b.0).len()))
                    .then(a.0.cmp(&b.0))
            });
            match out
                .last_mut()
                .filter(|p| p.span.1 == i && !self.named.iter().any(|n| n.span == p.span))
            {
                // A compound: the last word names it.
                Some(prev)
                    if compounds
                        && prev.span.1 == i
                        && len == 1
                        && prev.span.1 - prev.span.0 == 1 =>
                {
                    prev.span.1 = i + 1;
                    prev.choice = choice;
                }
                _ => out.push(Phrase {
                    span: (i, i + len),
                    choice,
                }),
            }
            i += len;
        }
        out.sort_by_key(|p| p.span.0);
        out
    }

    /// What the answer reports: yes or no, a count, an aggregate, a property ("how big").
    fn asked(&mut self) {
        let n = self.words.len();
        // An auxiliary first asks yes or no, unless it offers alternatives ("is X's husband a
        // man *or* a woman": which one).
        // A request verb that opens the question ("*show* me …", "*find* the …") asks for
        // the answer, and names no hop.
        if matches!(self.norm(0), "show" | "find" | "display") && self.free(0) {
            self.s.used.insert(0);
        }
        let offered = self.words.iter().any(|w| w.norm == "or");
        if AUXILIARIES.contains(&self.norm(0))
            && !offered
            && !self.words.iter().any(|w| w.norm == "how")
        {
            self.s.want = Want::Exists;
            self.s.used.insert(0);
        }
        let how_many = (0..n.saturating_sub(1))
            .find(|&i| self.norm(i) == "how" && matches!(self.norm(i + 1), "many" | "much"));
        if let Some(h) = how_many {
            self.s.used.extend([h, h + 1]);
            // "how many <noun>": a group counts; a property noun asks for a number ("how many
            // people live in X", "how many citations does X have").
            let group = self
                .s
                .groups
                .iter()
                .position(|g| g.at > h + 1 && g.at <= h + 4);
            let phrase = self
                .phrases
                .iter()
                .find(|p| p.span.0 > h + 1 && p.span.0 <= h + 3)
                .cloned();
            match (group, phrase) {
                (Some(g), p) if p.as_ref().is_none_or(|p| p.span.0 > self.s.groups[g].at) => {
                    self.s.want = Want::Count;
                    self.s.focus = Some(g);
                }
                (_, Some(p)) => {
                    self.s.want = Want::Property(numeric_first(&p.choice, self.props));
                    self.s.want_words = (p.span.0..p.span.1).collect();
                    self.s.used.extend(p.span.0..p.span.1);
                }
                _ => {
                    self.s.want = Want::Count;
                    self.counted_type_word(h + 2);
                }
            }
        }
        // "number of X" and "count" (not "the largest number of …", a rank).
        for i in 0..n {
            if !self.free(i) {
                continue;
            }
            let counted =
                (self.norm(i) == "number" && self.norm(i + 1) == "of") || self.norm(i) == "count";
            let after_rank = i > 0
                && (graded(self.norm(i - 1)) == Some(Grade::Superlative)
                    || QUANTITY.contains(&self.norm(i - 1)));
            if counted && !after_rank && self.s.want == Want::Nodes {
                self.s.want = Want::Count;
                self.s.used.extend([i, i + 1]);
                self.s.focus = self.s.groups.iter().position(|g| g.at > i);
            }
        }
        // "total/combined/sum of … area", "average population".
        for i in 0..n {
            if !self.free(i) {
                continue;
            }
            let func = match self.norm(i) {
                "total" | "combined" | "sum" => AggFunc::Sum,
                "average" | "mean" => AggFunc::Avg,
                _ => continue,
            };
            let near = self
                .phrases
                .iter()
                .min_by_key(|p| p.span.0.abs_diff(i))
                .cloned();
            if let Some(p) = near {
                self.s.want = Want::Aggregate(func, numeric_first(&p.choice, self.props));
                self.s.want_words = (p.span.0..p.span.1).collect();
                self.s.used.insert(i);
                self.s.used.extend(p.span.0..p.span.1);
            }
        }
        // "how big is X", "how long is the river", "how high is the highest point of X".
        if self.s.want != Want::Nodes {
            return;
        }
        for i in 1..n {
            if self.norm(i - 1) != "how" || matches!(self.norm(i), "many" | "much" | "often") {
                continue;
            }
            let adjective = self.norm(i).to_owned();
            if !lexicon().is_some_and(|lx| lx.is_adjective(&adjective)) {
                continue;
            }
            // A property phrase after it names what ("how high is the highest point": its
            // number); else the adjective's property of what follows.
            let j = (i + 1..n.min(i + 5)).find(|j| self.phrase_at(*j).is_some());
            let mut named = j.and_then(|j| self.phrase_at(j)).cloned();
            let labels = self.labels_after(i);
            let by_phrase = named
                .as_ref()
                .and_then(|p| numeric_property(&p.choice, &labels, self.words, p.span, self.props));
            if by_phrase.is_none() {
                named = None;
            }
            let prop = by_phrase.or_else(|| {
                labels
                    .iter()
                    .find_map(|l| adjective_property(&adjective, l, self.props))
            });
            if let Some(prop) = prop {
                self.s.want = Want::Property(vec![(prop, 1.0)]);
                self.s.used.extend([i - 1, i]);
                if let Some(p) = named {
                    self.s.used.extend(p.span.0..p.span.1);
                }
                return;
            }
        }
    }

    /// The noun right after "how many" that names no label, property or relation ("how many
    /// *movies* did X direct" where the label is `Film`) says what kind of thing is counted, not
    /// a hop: no hop reads it (else an unnamed hop there and back to X is invented for it and
    /// X is counted), and it is reported as unused, so the count is uncertain.
    fn counted_type_word(&mut self, at: usize) {
        if !self.free(at) || is_stopword(self.norm(at)) || self.s.used.contains(&at) {
            return;
        }
        let w = &self.words[at];
        if AUXILIARIES.contains(&w.norm.as_str()) {
            return;
        }
        let names_relation = self.catalog.relations().any(|(id, _)| {
            element_match(
                w,
                &vocab::element_words(self.catalog, cairn_store::Element::Relation(id)),
            ) > 0.0
        });
        if !names_relation {
            self.s.used.insert(at);
            self.s.opaque.push(at);
        }
    }

    /// The labels of what comes after word `at`: the groups', else the mentions'.
    fn labels_after(&self, at: usize) -> Vec<String> {
        let mut out: Vec<String> = self
            .s
            .groups
            .iter()
            .filter(|g| g.at > at)
            .map(|g| g.label.clone())
            .collect();
        for m in self.mentions.iter().filter(|m| m.span.0 > at) {
            out.extend(m.labels.iter().cloned());
        }
        out
    }
    /// Superlatives: what they rank (a group), by what (a property, how many of something,
    /// how many paths), which way, how many.
    fn superlatives(&mut self) {
        for i in 0..self.words.len() {
            if !self.free(i) {
                continue;
            }
            let w = self.norm(i).to_owned();
            let quantity = QUANTITY.contains(&w.as_str());
            if !quantity && graded(&w) != Some(Grade::Superlative) {
                continue;
            }
            // "at least", "at most" compare, they do not rank.
            if i > 0 && self.norm(i - 1) == "at" {
                continue;
            }
            // Part of a property's own name: asked for at the front ("what is the *highest*
            // point in …", read by `asked_property`); after a group it ranks the group by its
            // number ("which state has the *highest* elevation").
            if let Some(p) = self.phrase_at(i).cloned() {
                if p.span.0 == i && p.span.0 > self.first_anchor() {
                    if let Some(spec) = self.phrase_rank(i, &w, &p) {
                        self.s.used.extend(p.span.0..p.span.1);
                        self.s.ranks.push(spec);
                    }
                }
                continue;
            }
            if let Some(spec) = self.superlative(i, &w, quantity) {
                self.s.used.insert(i);
                self.s.ranks.push(spec);
            }
        }
        self.top_by();
        // "the 3 research projects with the biggest budgets": a number before the ranked
        // group's noun (and its compound's first word) is the rank's k.
        if self.k.is_none() {
            let mut counted = Vec::new();
            for r in &mut self.s.ranks {
                let Some(at) = r.group.map(|g| self.s.groups[g].at) else {
                    continue;
                };
                let before = (at.saturating_sub(2)..at).rev().find(|&i| {
                    self.words[i].norm.chars().all(|c| c.is_ascii_digit())
                        && !self.s.used.contains(&i)
                });
                let Some(i) = before else { continue };
                if let Ok(n) = self.words[i].norm.parse::<usize>() {
                    if (2..=1000).contains(&n) && r.k == 1 {
                        r.k = n;
                        counted.push(i);
                    }
                }
            }
            self.s.used.extend(counted);
        }
        // "the 3 most cited": the number is the rank's.
        for (i, w) in self.words.iter().enumerate() {
            if w.norm.chars().all(|c| c.is_ascii_digit())
                && self.s.ranks.iter().any(|r| r.at == i + 1 || r.at + 1 == i)
            {
                self.s.used.insert(i);
            }
        }
    }

    /// "top 3 airlines by fleet size": the group after "top k" ranked by the numeric property
    /// the words after "by" name, largest first.
    fn top_by(&mut self) {
        let Some(k) = self.k else { return };
        let Some(t) = (0..self.words.len()).find(|&i| self.norm(i) == "top" && self.free(i)) else {
            return;
        };
        let Some(g) = self.following(t + 1) else {
            return;
        };
        let (at, label) = (self.s.groups[g].at, self.s.groups[g].label.clone());
        if at > t + 4 || self.s.ranks.iter().any(|r| r.group == Some(g)) {
            return;
        }
        let Some(by) = (at + 1..self.words.len().min(at + 4)).find(|&i| self.norm(i) == "by")
        else {
            return;
        };
        let Some(p) = self
            .phrases
            .iter()
            .find(|p| p.span.0 == by + 1 || p.span.0 == self.skip_articles(by + 1))
            .cloned()
        else {
            return;
        };
        let labels = [label];
        let Some(prop) = numeric_property(&p.choice, &labels, self.words, p.span, self.props)
        else {
            return;
        };
        self.s.used.extend([t, t + 1, by]);
        self.s.used.extend(p.span.0..p.span.1);
        self.s.ranks.push(RankSpec {
            at: t,
            group: Some(g),
            key: KeySpec::Property(prop),
            descending: true,
            k,
            word: "top".to_owned(),
            words: Vec::new(),
        });
    }

    fn superlative(&mut self, i: usize, w: &str, quantity: bool) -> Option<RankSpec> {
        let mut j = i + 1;
        if self.norm(j) == "number" && self.norm(j + 1) == "of" {
            self.s.used.extend([j, j + 1]);
            j += 2;
        }
        let j = self.skip_articles(j);
        let base = if quantity {
            None
        } else {
            lexicon().and_then(|lx| lx.graded(w)).map(|(b, _)| b)
        };
        let low_quantity = matches!(w, "least" | "fewest" | "minimum");
        let k = self.k.unwrap_or(1);
        let spec = |group, key, descending, word: String| RankSpec {
            at: i,
            group,
            key,
            descending,
            k,
            word,
            words: Vec::new(),
        };
        // "largest population", "most populous state", "highest population density": by that
        // property, of the group right after the phrase, else the one before.
        if let Some(p) = self.phrase_at(j).filter(|p| p.span.0 == j).cloned() {
            let group = self
                .group_at(p.span.1)
                .or_else(|| self.group_at(p.span.1 + 1))
                .or_else(|| self.preceding(i))
                .or_else(|| self.following(p.span.1));
            let labels: Vec<String> = group
                .iter()
                .map(|g| self.s.groups[*g].label.clone())
                .collect();
            if let Some(prop) =
                numeric_property(&p.choice, &labels, self.words, (i, p.span.1), self.props)
            {
                let descending = match &base {
                    Some(b) => !LOW_POLES.contains(&b.as_str()),
                    None => !low_quantity,
                };
                self.s.used.extend(p.span.0..p.span.1);
                return Some(spec(
                    group,
                    KeySpec::Property(prop),
                    descending,
                    w.to_owned(),
                ));
            }
        }
        if let Some(g) = self.group_at(j) {
            if quantity {
                // "the most states", "fewest cities": how many of them each reaches.
                let label = self.s.groups[g].label.clone();
                let ranked = self.preceding(i).or_else(|| self.following(j));
                let mut r = spec(
                    ranked,
                    KeySpec::Count { label, at: j },
                    !low_quantity,
                    format!("{w} {}", self.norm(j)),
                );
                r.words = ranked
                    .map(|g| (self.s.groups[g].at + 1..j).collect())
                    .unwrap_or_default();
                return Some(r);
            }
            // "the largest city": the adjective's property of the label.
            let label = self.s.groups[g].label.clone();
            let (prop, descending) = adjective_rank(base.as_deref()?, &label, self.props)?;
            return Some(spec(
                Some(g),
                KeySpec::Property(prop),
                descending,
                w.to_owned(),
            ));
        }
        if quantity
            && lexicon().is_some_and(|lx| lx.is_adjective(self.norm(j)))
            && !is_stopword(self.norm(j))
        {
            // "most populous state", "least dense": the adjective after says what.
            let adjective = self.norm(j).to_owned();
            let group = self
                .following(j)
                .filter(|g| self.s.groups[*g].at <= j + 2)
                .or_else(|| self.preceding(i))?;
            let label = self.s.groups[group].label.clone();
            let (prop, up) = adjective_rank(&adjective, &label, self.props)?;
            self.s.used.insert(j);
            let descending = if low_quantity { !up } else { up };
            return Some(spec(
                Some(group),
                KeySpec::Property(prop),
                descending,
                format!("{w} {adjective}"),
            ));
        }
        if let Some(b) = &base {
            // "which river is the longest", "what state is the biggest".
            let group = self.preceding(i).or_else(|| self.following(i))?;
            let label = self.s.groups[group].label.clone();
            let (prop, descending) = adjective_rank(b, &label, self.props)?;
            return Some(spec(
                Some(group),
                KeySpec::Property(prop),
                descending,
                w.to_owned(),
            ));
        }
        if !quantity {
            return None;
        }
        // "… most often", "the most": how many paths reach each answer.
        if matches!(self.norm(i + 1), "often" | "frequently") {
            self.s.used.insert(i + 1);
        }
        Some(spec(None, KeySpec::Paths, !low_quantity, w.to_owned()))
    }

    /// The first word of a group or mention.
    fn first_anchor(&self) -> usize {
        self.s
            .groups
            .iter()
            .map(|g| g.at)
            .chain(self.mentions.iter().map(|m| m.span.0))
            .min()
            .unwrap_or(self.words.len())
    }

    /// A rank by a property phrase that starts with a superlative ("the *highest elevation*"),
    /// of the group before it.
    fn phrase_rank(&self, i: usize, w: &str, p: &Phrase) -> Option<RankSpec> {
        let group = self.preceding(i)?;
        let labels = vec![self.s.groups[group].label.clone()];
        let prop = numeric_property(&p.choice, &labels, self.words, p.span, self.props)?;
        let descending = lexicon()
            .and_then(|lx| lx.graded(w))
            .is_none_or(|(b, _)| !LOW_POLES.contains(&b.as_str()));
        Some(RankSpec {
            at: i,
            group: Some(group),
            key: KeySpec::Property(prop),
            descending,
            k: self.k.unwrap_or(1),
            word: w.to_owned(),
            words: Vec::new(),
        })
    }

    /// Comparatives: "higher than X", "more than 5", "over 1000", "after 2015".
    fn comparatives(&mut self) {
        for i in 0..self.words.len() {
            if !self.free(i) || self.s.used.contains(&i) {
                continue;
            }
            let w = self.norm(i).to_owned();
            let (cmp, adjective) = if MORE.contains(&w.as_str()) {
                (Cmp::Gt, None)
            } else if LESS.contains(&w.as_str()) {
                (Cmp::Lt, None)
            } else if graded(&w) == Some(Grade::Comparative) {
                let Some((b, _)) = lexicon().and_then(|lx| lx.graded(&w)) else {
                    continue;
                };
                let up = !LOW_POLES.contains(&b.as_str());
                (if up { Cmp::Gt } else { Cmp::Lt }, Some(b))
            } else {
                continue;
            };
            let mut j = i + 1;
            if self.norm(j) == "than" {
                j += 1;
            }
            while matches!(self.norm(j), "the" | "a" | "an" | "that" | "of") {
                j += 1;
            }
            let group = self.preceding(i);
            let mut labels: Vec<String> = group
                .iter()
                .map(|g| self.s.groups[*g].label.clone())
                .collect();
            // No set before it: the mention it is said of ("was *X* hired before 2010").
            if labels.is_empty() {
                if let Some(m) = self.mentions.iter().rev().find(|m| m.span.1 <= i) {
                    labels = m.labels.clone();
                }
            }
            // A property named next to it ("a population larger than", "more than 5 citations").
            let named = self
                .phrases
                .iter()
                .filter(|p| {
                    (p.span.1 <= i && p.span.1 + 3 > i) || (p.span.0 >= j && p.span.0 <= j + 3)
                })
                .min_by_key(|p| p.span.0.abs_diff(i))
                .cloned();
            let prop = match (&named, &adjective, labels.first()) {
                (Some(p), _, _) => {
                    numeric_property(&p.choice, &labels, self.words, (i, i + 1), self.props)
                }
                (None, Some(b), Some(l)) => adjective_rank(b, l, self.props).map(|(p, _)| p),
                // "before"/"after" a number with no property named: the time the nodes carry
                // ("albums *released after* 2018": their year); the participle before it
                // says what happened then, not a hop.
                (None, None, _) if matches!(w.as_str(), "before" | "after") => {
                    let time = labels.iter().find_map(|l| time_property(l, self.props));
                    if time.is_some() && i > 0 && self.free(i - 1) {
                        let v = self.norm(i - 1);
                        if lexicon().is_some_and(|lx| lx.is_participle_only(v)) {
                            self.s.used.insert(i - 1);
                        }
                    }
                    time
                }
                _ => None,
            };
            let Some(prop) = prop else { continue };
            let mut operand_ranks = Vec::new();
            let against =
                if let Some(n) = self.words.get(j).and_then(|x| self.numbers.get(&x.group)) {
                    self.s.used.insert(j);
                    if magnitude(self.norm(j + 1)).is_some() {
                        self.s.used.insert(j + 1);
                    }
                    Against::Number(*n)
                } else if let Some(m) = self
                    .mentions
                    .iter()
                    .position(|m| m.span.0 >= j && m.span.0 <= j + 4)
                {
                    // The words between "than" and the mention describe the operand's value
                    // ("higher than *the highest point in* colorado", "than the *cheapest*
                    // Atlas"): they rank the operand's nodes, not the answer, and name no hop.
                    let start = self.mentions[m].span.0;
                    let (inside, outside): (Vec<RankSpec>, Vec<RankSpec>) =
                        std::mem::take(&mut self.s.ranks)
                            .into_iter()
                            .partition(|r| r.at >= j && r.at < start);
                    self.s.ranks = outside;
                    operand_ranks = inside;
                    self.s.used.extend(j..start);
                    Against::Mention(m)
                } else {
                    continue;
                };
            self.s.used.insert(i);
            if self.norm(i + 1) == "than" {
                self.s.used.insert(i + 1);
            }
            if let Some(p) = named {
                self.s.used.extend(p.span.0..p.span.1);
            }
            self.s.compares.push(CompareSpec {
                at: i,
                group,
                property: prop,
                cmp,
                against,
                operand_ranks,
            });
        }
    }

    /// A property named before any group or mention asks for that property ("what is the
    /// *population* of …"); one named with a superlative ("what is the *highest point* in …")
    /// also ranks by its number.
    fn asked_property(&mut self) {
        if self.s.want != Want::Nodes {
            return;
        }
        let first_anchor = self.first_anchor();
        let how_often =
            (1..self.words.len()).any(|i| self.norm(i - 1) == "how" && self.norm(i) == "often");
        let unused = |p: &&Phrase| !(p.span.0..p.span.1).any(|i| self.s.used.contains(&i));
        let asked = self
            .phrases
            .iter()
            .find(|p| unused(p) && (p.span.0 < first_anchor || how_often))
            .cloned();
        // "what year was X *founded*", "when did X *open*": a time asked for, and the event's
        // verb after the mention names the label's time property.
        let asks_time = match &asked {
            Some(p) => p.span.1 - p.span.0 == 1 && is_time_word(self.norm(p.span.0)),
            None => self.norm(0) == "when",
        };
        let event = asks_time
            .then(|| {
                self.phrases
                    .iter()
                    .find(|p| unused(p) && p.span.0 > first_anchor && self.names_event_time(p))
            })
            .flatten()
            .cloned();
        if let (Some(p), Some(_)) = (&asked, &event) {
            self.s.used.extend(p.span.0..p.span.1);
        }
        let Some(p) = event.or(asked) else { return };
        self.s.used.extend(p.span.0..p.span.1);
        let w = self.norm(p.span.0).to_owned();
        // "the highest point in …" asks for one (the top); "the highest points of …" for each.
        let last = &self.words[p.span.1 - 1];
        let plural = last.norm.ends_with('s') && last.stem.len() < last.norm.len();
        if graded(&w) == Some(Grade::Superlative) && !plural {
            let descending = lexicon()
                .and_then(|lx| lx.graded(&w))
                .is_none_or(|(b, _)| !LOW_POLES.contains(&b.as_str()));
            if let Some(prop) = numeric_property(&p.choice, &[], self.words, p.span, self.props) {
                self.s.ranks.push(RankSpec {
                    at: p.span.0,
                    group: None,
                    key: KeySpec::Property(prop),
                    descending,
                    k: self.k.unwrap_or(1),
                    word: w,
                    words: Vec::new(),
                });
            }
        }
        // "the *crew* of Zenith 3" read as `crew_size`: the question names the members, the
        // property counts them; unless it asks a number, the reading is a guess.
        let counts = p.choice.first().is_some_and(|(c, _)| {
            schema_words(c).iter().any(|w| {
                COUNT_NOUNS.contains(&w.word.as_str())
                    && !self.words.iter().any(|q| q.stem == w.stem)
            })
        });
        let asks_number = self
            .words
            .iter()
            .any(|w| matches!(w.norm.as_str(), "many" | "much"));
        if counts && !asks_number {
            self.s.unsure.push(p.span.0);
        }
        self.s.want = Want::Property(p.choice);
        self.s.want_words = (p.span.0..p.span.1).collect();
    }

    /// The focus: the counted group, else the first group that is not a mention's type, a
    /// rank's counted noun or negated.
    fn focus(&mut self) {
        let counted = self.s.counted_nouns();
        if self.s.focus.is_none() {
            self.s.focus = self
                .s
                .groups
                .iter()
                .position(|g| g.mention.is_none() && !g.negated && !counted.contains(&g.at));
        }
    }
}

impl Structure {
    /// Whether the question needs more than a path from one mention: a group to start from or
    /// to rank, a comparison, a negation, or an answer that is not the path's ends.
    pub(crate) fn needs_reading(&self) -> bool {
        self.focus.is_some()
            || !self.ranks.is_empty()
            || !self.compares.is_empty()
            || !self.negated_mentions.is_empty()
            || self.groups.iter().any(|g| g.negated)
            || self.want != Want::Nodes
    }

    /// Word positions of nouns counted by a rank ("the most *states*"): not groups of the chain.
    pub(crate) fn counted_nouns(&self) -> HashSet<usize> {
        self.ranks
            .iter()
            .filter_map(|r| match r.key {
                KeySpec::Count { at, .. } => Some(at),
                _ => None,
            })
            .collect()
    }
}

/// The graded form of a word, when WordNet knows its base adjective.
fn graded(word: &str) -> Option<Grade> {
    lexicon().and_then(|lx| lx.graded(word)).map(|(_, g)| g)
}

/// A choice with its numeric properties first (a "how many" asks for a number).
fn numeric_first(choice: &PropChoice, props: &LabelProps) -> PropChoice {
    let numeric = |p: &str| props.values().flatten().any(|x| x.name == p && x.numeric);
    let mut out = choice.clone();
    out.sort_by_key(|(p, _)| !numeric(p));
    out
}

/// The property of `label` a noun names when none of its properties shares its words: one
/// near it in WordNet ("the *size* of a state": its area), as an adjective's attribute is read.
pub(crate) fn noun_property(noun: &str, label: &str, props: &LabelProps) -> Option<String> {
    adjective_property(noun, label, props)
}

/// The best of a choice that one of `labels` carries (any label when empty).
pub(crate) fn pick_property(
    choice: &PropChoice,
    labels: &[String],
    props: &LabelProps,
) -> Option<String> {
    choice
        .iter()
        .find(|(p, _)| {
            props
                .iter()
                .filter(|(l, _)| labels.is_empty() || labels.contains(l))
                .any(|(_, ps)| ps.iter().any(|x| x.name == *p))
        })
        .map(|(p, _)| p.clone())
}

/// The numeric property a phrase means for ranking or comparing, on one of `labels` (any when
/// empty): the best of its choice that is a number there; else the numeric property sharing
/// most words with the phrase and the words around it ("highest point" →
/// `highest_elevation`).
fn numeric_property(
    choice: &PropChoice,
    labels: &[String],
    words: &[Word],
    around: (usize, usize),
    props: &LabelProps,
) -> Option<String> {
    let candidates: Vec<&PropInfo> = props
        .iter()
        .filter(|(l, _)| labels.is_empty() || labels.contains(l))
        .flat_map(|(_, ps)| ps)
        .collect();
    if let Some((p, _)) = choice
        .iter()
        .find(|(p, _)| candidates.iter().any(|c| c.name == *p && c.numeric))
    {
        return Some(p.clone());
    }
    let phrase = &words[around.0.min(words.len())..around.1.min(words.len())];
    let prop_words: Vec<SchemaWord> = choice
        .first()
        .map(|(p, _)| schema_words(p))
        .unwrap_or_default();
    candidates
        .iter()
        .filter(|p| p.numeric)
        .map(|p| {
            let sw = schema_words(&p.name);
            let shared = sw
                .iter()
                .filter(|s| {
                    prop_words.iter().any(|x| x.stem == s.stem)
                        || phrase.iter().any(|w| w.stem == s.stem)
                })
                .count();
            (shared, &p.name)
        })
        .filter(|(n, _)| *n > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(a.1)))
        .map(|(_, n)| n.clone())
}

/// Words of a property's name that make it a count of what its other words name
/// (`crew_size`, `member_count`).
const COUNT_NOUNS: &[&str] = &["size", "count", "number", "total", "num"];

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(super) fn props() -> LabelProps {
        let p = |n: &str, numeric: bool| PropInfo {
            values: Vec::new(),
            years: false,
            largest: 0.0,
            name: n.into(),
            numeric,
        };
        BTreeMap::from([
            (
                "City".to_owned(),
                vec![p("name", false), p("population", true)],
            ),
            (
                "State".to_owned(),
                vec![
                    p("name", false),
                    p("area", true),
                    p("population", true),
                    p("density", true),
                    p("highest_point", false),
                    p("highest_elevation", true),
                ],
            ),
            (
                "River".to_owned(),
                vec![p("name", false), p("length", true)],
            ),
            (
                "Film".to_owned(),
                vec![p("title", false), p("year", true), p("rating", true)],
            ),
        ])
    }

    #[test]
    fn an_adjective_means_the_property_wordnet_and_the_data_give_it() {
        if lexicon().is_none() {
            return;
        }
        let p = props();
        assert_eq!(
            adjective_rank("long", "River", &p),
            Some(("length".into(), true))
        );
        assert_eq!(
            adjective_rank("short", "River", &p),
            Some(("length".into(), false))
        );
        // The label's only number.
        assert_eq!(
            adjective_rank("large", "City", &p),
            Some(("population".into(), true))
        );
        // Size is a magnitude, as area is.
        assert_eq!(
            adjective_rank("small", "State", &p),
            Some(("area".into(), false))
        );
        assert_eq!(
            adjective_rank("dense", "State", &p),
            Some(("density".into(), true))
        );
        assert_eq!(
            adjective_rank("populous", "State", &p),
            Some(("population".into(), true))
        );
        // Time: the newest film has the largest year, the oldest the smallest.
        assert_eq!(
            adjective_rank("new", "Film", &p),
            Some(("year".into(), true))
        );
        assert_eq!(
            adjective_rank("old", "Film", &p),
            Some(("year".into(), false))
        );
    }

    #[test]
    fn numbers_are_read_with_thousands_separators() {
        let q = "cities with more than 150,000 people after 2015";
        let words = super::super::words::question_words(q);
        let n = numbers(q, &words);
        assert_eq!(n.values().copied().collect::<Vec<_>>(), [150000.0, 2015.0]);
        let q = "projects with a budget over 1.5 million and cities above 20 thousand";
        let words = super::super::words::question_words(q);
        let n = numbers(q, &words);
        assert_eq!(n.values().copied().collect::<Vec<_>>(), [1.5e6, 2e4]);
    }
}
