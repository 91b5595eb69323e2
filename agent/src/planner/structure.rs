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
use super::{Entity, Word};
use crate::reading::{AggFunc, Cmp};
use crate::semantic::Meaning;
use crate::vocab::{self, is_stopword, lexicon, schema_words, word_match, Grade, SchemaWord};
use cairn_store::Catalog;
use std::collections::{BTreeMap, HashSet};

/// A property some nodes of a label carry, and whether its values are numbers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PropInfo {
    pub(crate) name: String,
    pub(crate) numeric: bool,
}

/// Per label (by name), the properties its nodes carry (a sample of them, first by key).
pub(crate) type LabelProps = BTreeMap<String, Vec<PropInfo>>;

/// A set the question talks about: a label noun ("states"), possibly the type of a mention
/// next to it ("the *mississippi* river": that river, not every river).
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
}

/// What a comparison compares with.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Against {
    Number(f64),
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
}

/// What the answer reports.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Want {
    Nodes,
    Count,
    Aggregate(AggFunc, String),
    Property(String),
    Exists,
}

/// The question's structure.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Structure {
    pub(crate) groups: Vec<Group>,
    /// The group the answer is about (index into `groups`).
    pub(crate) focus: Option<usize>,
    pub(crate) want: Want,
    pub(crate) ranks: Vec<RankSpec>,
    pub(crate) compares: Vec<CompareSpec>,
    /// Mentions after a negation ("do not run through *texas*").
    pub(crate) negated_mentions: HashSet<usize>,
    /// Word positions the structure accounts for: none of them names a relation.
    pub(crate) used: HashSet<usize>,
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
/// Words that negate what follows.
const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "without",
    "excluding",
    "except",
    "none",
];

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

/// Reads the question's structure.
pub(crate) fn structure(
    words: &[Word],
    question: &str,
    mentions: &[MentionInfo],
    props: &LabelProps,
    catalog: &Catalog,
    meaning: Option<&Meaning>,
) -> Structure {
    let in_mention = |i: usize| mentions.iter().any(|m| i >= m.span.0 && i < m.span.1);
    let free = |i: usize| i < words.len() && !in_mention(i);
    let numbers = numbers(question, words);
    let mut s = Structure {
        groups: Vec::new(),
        focus: None,
        want: Want::Nodes,
        ranks: Vec::new(),
        compares: Vec::new(),
        negated_mentions: HashSet::new(),
        used: HashSet::new(),
    };
    let norm = |i: usize| words.get(i).map(|w| w.norm.as_str()).unwrap_or("");

    // Property phrases ("population density", "highest point"): the longest run of free words
    // naming one property's words. A phrase of several words is never a label noun; one word
    // that names a label is the label's (re-read below without the groups' nouns).
    let phrases = property_phrases(words, &free, props);
    let phrase_at = |i: usize| phrases.iter().find(|p| i >= p.span.0 && i < p.span.1);

    // Label nouns.
    for i in 0..words.len() {
        if !free(i) || is_stopword(norm(i)) || phrase_at(i).is_some_and(|p| p.span.1 - p.span.0 > 1)
        {
            continue;
        }
        let Some(label) = super::analysis::label_of(&words[i], i, catalog, meaning) else {
            continue;
        };
        let names_relation = catalog.relations().any(|(_, r)| {
            element_match(&words[i], &schema_words(&r.name)) >= 0.8
                && !schema_words(&r.name).iter().all(|w| {
                    schema_words(&label).iter().any(|l| l.stem == w.stem) || w.word == "name"
                })
        });
        // A noun next to a mention of that label is the mention's type ("the mississippi
        // *river*", "the *state* of texas", "*city* of boston").
        let apposed = mentions.iter().position(|m| {
            m.labels.contains(&label)
                && (m.span.1 == i
                    || i + 1 == m.span.0
                    || (i + 2 == m.span.0 && norm(i + 1) == "of"))
        });
        s.used.insert(i);
        s.groups.push(Group {
            at: i,
            label,
            mention: apposed,
            negated: false,
            names_relation,
        });
    }

    let nouns: HashSet<usize> = s.groups.iter().map(|g| g.at).collect();
    let phrases = property_phrases(words, &|i| free(i) && !nouns.contains(&i), props);
    let phrase_at = |i: usize| phrases.iter().find(|p| i >= p.span.0 && i < p.span.1);

    // What the answer reports.
    let first = norm(0);
    let how_many = (0..words.len().saturating_sub(1))
        .find(|&i| norm(i) == "how" && matches!(norm(i + 1), "many" | "much"));
    if AUXILIARIES.contains(&first) && !words.iter().any(|w| w.norm == "how" || w.norm == "many") {
        s.want = Want::Exists;
        s.used.insert(0);
    }
    if let Some(h) = how_many {
        s.used.extend([h, h + 1]);
        // "how many <noun>": a group counts; a property noun ("how many people live in X",
        // "how many citations") asks for a property.
        let next_group = s.groups.iter().position(|g| g.at > h + 1 && g.at <= h + 4);
        let next_phrase = phrases
            .iter()
            .find(|p| p.span.0 > h + 1 && p.span.0 <= h + 3);
        match (next_group, next_phrase) {
            (Some(g), p) if p.is_none_or(|p| p.span.0 > s.groups[g].at) => {
                s.want = Want::Count;
                s.focus = Some(g);
            }
            (_, Some(p)) => {
                s.want = Want::Property(p.prop.clone());
                s.used.extend(p.span.0..p.span.1);
            }
            _ => s.want = Want::Count,
        }
    }
    // "number of X" and "count" (not "the largest number of …", a rank below).
    for i in 0..words.len() {
        let counted = (norm(i) == "number" && norm(i + 1) == "of") || norm(i) == "count";
        let after_rank =
            i > 0 && (graded(norm(i - 1)) == Some(Grade::Superlative) || norm(i - 1) == "most");
        if counted && !after_rank && s.want == Want::Nodes {
            s.want = Want::Count;
            s.used.insert(i);
            s.used.insert(i + 1);
            s.focus = s.groups.iter().position(|g| g.at > i);
        }
    }
    // "total/combined/sum … area", "average population".
    for i in 0..words.len() {
        let func = match norm(i) {
            "total" | "combined" | "sum" => AggFunc::Sum,
            "average" | "mean" => AggFunc::Avg,
            _ => continue,
        };
        let near = phrases
            .iter()
            .filter(|p| p.span.1 + 4 > i && p.span.0 <= i + 3)
            .min_by_key(|p| p.span.0.abs_diff(i));
        if let Some(p) = near {
            s.want = Want::Aggregate(func, p.prop.clone());
            s.used.insert(i);
            s.used.extend(p.span.0..p.span.1);
        }
    }
    // "how big is X", "how long is the river": the adjective's property.
    if matches!(s.want, Want::Nodes) {
        for i in 1..words.len() {
            if norm(i - 1) != "how" || matches!(norm(i), "many" | "much" | "often") {
                continue;
            }
            let adjective = norm(i);
            if !lexicon().is_some_and(|lx| lx.is_adjective(adjective)) {
                continue;
            }
            let labels = answer_labels(&s, mentions, i);
            if let Some(p) = labels
                .iter()
                .find_map(|l| adjective_property(adjective, l, props))
            {
                s.want = Want::Property(p);
                s.used.extend([i - 1, i]);
            }
        }
    }
    // "how often" / "how many times" asks for a count kept as a property.
    let how_often = (1..words.len()).any(|i| norm(i - 1) == "how" && norm(i) == "often");

    // Negations: they scope over the next mention or group.
    for i in 0..words.len() {
        let negation = NEGATIONS.contains(&norm(i))
            || (norm(i) == "t" && i > 0 && norm(i - 1).ends_with('n'))
            || norm(i).ends_with("nt") && AUXILIARIES.iter().any(|a| norm(i) == format!("{a}nt"));
        if !negation || !free(i) {
            continue;
        }
        s.used.insert(i);
        let next_mention = mentions.iter().position(|m| m.span.0 > i);
        let next_group = s
            .groups
            .iter()
            .position(|g| g.at > i && g.mention.is_none());
        let mention_at = next_mention.map(|m| mentions[m].span.0);
        let group_at = next_group.map(|g| s.groups[g].at);
        match (mention_at, group_at) {
            (Some(m), g) if g.is_none_or(|g| m < g) => {
                s.negated_mentions.insert(next_mention.unwrap_or(0));
            }
            (_, Some(_)) => {
                if let Some(g) = next_group {
                    s.groups[g].negated = true;
                }
            }
            _ => {}
        }
    }

    // Superlatives.
    let k = super::analysis::top_k(&words.iter().enumerate().collect::<Vec<_>>());
    for i in 0..words.len() {
        if !free(i) {
            continue;
        }
        let w = norm(i);
        let quantity = matches!(
            w,
            "most" | "least" | "fewest" | "maximum" | "minimum" | "top"
        );
        let grade = graded(w);
        if !quantity && grade != Some(Grade::Superlative) {
            continue;
        }
        // "the largest number of …", "most of": the next words say what is ranked.
        let mut j = i + 1;
        if norm(j) == "number" && norm(j + 1) == "of" {
            s.used.extend([j, j + 1]);
            j += 2;
        }
        while matches!(norm(j), "the" | "a" | "an") {
            j += 1;
        }
        let base = if quantity {
            None
        } else {
            lexicon().and_then(|lx| lx.graded(w)).map(|(b, _)| b)
        };
        let low = |adj: &str| LOW_POLES.contains(&adj);
        let quantity_low = matches!(w, "least" | "fewest" | "minimum");
        let group_at = |at: usize| s.groups.iter().position(|g| g.at == at);
        let preceding = |at: usize| {
            s.groups
                .iter()
                .rposition(|g| g.at < at && g.mention.is_none())
        };
        let following = |at: usize| s.groups.iter().position(|g| g.at > at);
        let mut spec: Option<RankSpec> = None;
        if let Some(p) = phrase_at(j).filter(|p| p.span.0 == j) {
            // "largest population", "highest population density": rank by that property; a
            // phrase that is not a number ("highest point") ranks by its numeric sibling.
            let group = preceding(i).or_else(|| following(p.span.1));
            let label = group.map(|g| s.groups[g].label.clone());
            if let Some(prop) =
                numeric_property(&p.prop, label.as_deref(), words, (i, p.span.1), props)
            {
                let descending = match &base {
                    Some(b) => !low(b),
                    None => !quantity_low,
                };
                s.used.extend(p.span.0..p.span.1);
                spec = Some(RankSpec {
                    at: i,
                    group,
                    key: KeySpec::Property(prop),
                    descending,
                    k: k.unwrap_or(1),
                    word: w.to_owned(),
                });
            }
        }
        if spec.is_some() {
        } else if let Some(g) = group_at(j) {
            if quantity && base.is_none() {
                // "the most states", "fewest cities": how many of them each reaches.
                let label = s.groups[g].label.clone();
                let ranked = preceding(i).or_else(|| following(j));
                s.groups[g].negated = false;
                spec = Some(RankSpec {
                    at: i,
                    group: ranked,
                    key: KeySpec::Count { label, at: j },
                    descending: !quantity_low,
                    k: k.unwrap_or(1),
                    word: format!("{w} {}", norm(j)),
                });
            } else if let Some(b) = &base {
                // "the largest city": the adjective's property of the label.
                let label = s.groups[g].label.clone();
                if let Some((prop, descending)) = adjective_rank(b, &label, props) {
                    spec = Some(RankSpec {
                        at: i,
                        group: Some(g),
                        key: KeySpec::Property(prop),
                        descending,
                        k: k.unwrap_or(1),
                        word: w.to_owned(),
                    });
                }
            }
        } else if quantity
            && lexicon().is_some_and(|lx| lx.is_adjective(norm(j)))
            && !is_stopword(norm(j))
        {
            // "most populous state", "least dense": the adjective after says what.
            let adjective = norm(j).to_owned();
            let group = following(j)
                .filter(|g| s.groups[*g].at <= j + 2)
                .or_else(|| preceding(i));
            if let Some(g) = group {
                let label = s.groups[g].label.clone();
                if let Some((prop, up)) = adjective_rank(&adjective, &label, props) {
                    s.used.insert(j);
                    spec = Some(RankSpec {
                        at: i,
                        group: Some(g),
                        key: KeySpec::Property(prop),
                        descending: if quantity_low { !up } else { up },
                        k: k.unwrap_or(1),
                        word: format!("{w} {adjective}"),
                    });
                }
            }
        } else if let Some(b) = &base {
            // "which river is the longest", "what state is the biggest".
            let group = preceding(i).or_else(|| following(i));
            if let Some(g) = group {
                let label = s.groups[g].label.clone();
                if let Some((prop, descending)) = adjective_rank(b, &label, props) {
                    spec = Some(RankSpec {
                        at: i,
                        group: Some(g),
                        key: KeySpec::Property(prop),
                        descending,
                        k: k.unwrap_or(1),
                        word: w.to_owned(),
                    });
                }
            }
        } else if quantity {
            // "… most often", "the most": how many paths reach each answer.
            if matches!(norm(i + 1), "often" | "frequently") {
                s.used.insert(i + 1);
            }
            spec = Some(RankSpec {
                at: i,
                group: None,
                key: KeySpec::Paths,
                descending: !quantity_low,
                k: k.unwrap_or(1),
                word: w.to_owned(),
            });
        }
        if let Some(spec) = spec {
            s.used.insert(i);
            s.ranks.push(spec);
        }
    }
    // "the 3 most cited": the number is the rank's.
    for (i, w) in words.iter().enumerate() {
        if w.norm.chars().all(|c| c.is_ascii_digit())
            && s.ranks.iter().any(|r| r.at == i + 1 || r.at + 1 == i)
        {
            s.used.insert(i);
        }
    }

    // Comparatives: "higher than X", "more than 5", "over 1000", "after 2015".
    for i in 0..words.len() {
        if !free(i) || s.used.contains(&i) {
            continue;
        }
        let w = norm(i);
        let (cmp, adjective) = match (w, graded(w)) {
            ("more" | "greater" | "over" | "above" | "after" | "exceeding", _) => (Cmp::Gt, None),
            ("less" | "fewer" | "under" | "below" | "before", _) => (Cmp::Lt, None),
            (_, Some(Grade::Comparative)) => {
                let Some((b, _)) = lexicon().and_then(|lx| lx.graded(w)) else {
                    continue;
                };
                let up = !LOW_POLES.contains(&b.as_str());
                (if up { Cmp::Gt } else { Cmp::Lt }, Some(b))
            }
            _ => continue,
        };
        let mut j = i + 1;
        if norm(j) == "than" {
            j += 1;
        }
        while matches!(norm(j), "the" | "a" | "an" | "that" | "of") {
            j += 1;
        }
        // A property named next to it ("a population larger than", "more than 5 citations")
        // or after "than … the <property> of".
        let group = s
            .groups
            .iter()
            .rposition(|g| g.at < i && g.mention.is_none());
        let label = group.map(|g| s.groups[g].label.clone());
        let named = phrases
            .iter()
            .filter(|p| p.span.1 <= i && p.span.1 + 3 > i || p.span.0 >= j && p.span.0 <= j + 3)
            .min_by_key(|p| p.span.0.abs_diff(i));
        let prop = match (named, &adjective, &label) {
            (Some(p), _, l) => numeric_property(&p.prop, l.as_deref(), words, (i, i + 1), props),
            (None, Some(b), Some(l)) => adjective_rank(b, l, props).map(|(p, _)| p),
            _ => None,
        };
        let Some(prop) = prop else { continue };
        let against = if let Some(n) = words.get(j).and_then(|x| numbers.get(&x.group)) {
            s.used.insert(j);
            Against::Number(*n)
        } else if let Some(m) = mentions
            .iter()
            .position(|m| m.span.0 >= j && m.span.0 <= j + 4)
        {
            Against::Mention(m)
        } else {
            continue;
        };
        s.used.insert(i);
        if norm(i + 1) == "than" {
            s.used.insert(i + 1);
        }
        if let Some(p) = named {
            s.used.extend(p.span.0..p.span.1);
        }
        s.compares.push(CompareSpec {
            at: i,
            group,
            property: prop,
            cmp,
            against,
        });
    }

    // A property named before any group or mention asks for that property ("what is the
    // *population* of …", "the *highest point* in …"): the answer reports it.
    if s.want == Want::Nodes {
        let first_anchor = s
            .groups
            .iter()
            .map(|g| g.at)
            .chain(mentions.iter().map(|m| m.span.0))
            .min()
            .unwrap_or(words.len());
        let asked = phrases
            .iter()
            .find(|p| !p.span_used(&s.used) && (p.span.0 < first_anchor || how_often) && p.wh_ok);
        if let Some(p) = asked {
            s.want = Want::Property(p.prop.clone());
            s.used.extend(p.span.0..p.span.1);
        }
    }

    // The focus: the counted group, else the wh-phrase's, else the first group that is not a
    // mention's type, a rank's counted noun or negated.
    let counted: HashSet<usize> = s
        .ranks
        .iter()
        .filter_map(|r| match r.key {
            KeySpec::Count { at, .. } => Some(at),
            _ => None,
        })
        .collect();
    if s.focus.is_none() {
        s.focus = s
            .groups
            .iter()
            .position(|g| g.mention.is_none() && !g.negated && !counted.contains(&g.at));
    }
    s
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

/// The labels the answer may be about at position `at`: the groups', else the mentions'.
fn answer_labels(s: &Structure, mentions: &[MentionInfo], at: usize) -> Vec<String> {
    let mut out: Vec<String> = s
        .groups
        .iter()
        .filter(|g| g.at > at)
        .map(|g| g.label.clone())
        .collect();
    for m in mentions.iter().filter(|m| m.span.0 > at) {
        out.extend(m.labels.iter().cloned());
    }
    out
}

/// A run of question words naming a property.
#[derive(Clone, Debug)]
struct PropPhrase {
    span: (usize, usize),
    prop: String,
    /// Not a wh-word's noun alone ("when" names a year only for attribute questions).
    wh_ok: bool,
}

impl PropPhrase {
    fn span_used(&self, used: &HashSet<usize>) -> bool {
        (self.span.0..self.span.1).any(|i| used.contains(&i))
    }
}

/// Property phrases: for each free content word, the property whose words it names best; runs
/// of words naming one property become one phrase ("population density", "highest point").
/// Where several properties tie on a run, the one with more of its words named.
fn property_phrases(
    words: &[Word],
    free: &dyn Fn(usize) -> bool,
    props: &LabelProps,
) -> Vec<PropPhrase> {
    let mut names: Vec<&str> = props.values().flatten().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let schema: Vec<(&str, Vec<SchemaWord>)> =
        names.iter().map(|n| (*n, schema_words(n))).collect();
    let mut out: Vec<PropPhrase> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if !free(i) || is_stopword(&words[i].norm) {
            i += 1;
            continue;
        }
        // The best run starting here: (words covered, property words named, score, property).
        let mut best: Option<(usize, usize, f64, &str)> = None;
        for (name, sw) in &schema {
            let mut j = i;
            let mut score = 0.0;
            let mut named: HashSet<usize> = HashSet::new();
            while j < words.len() && free(j) {
                let w = &words[j];
                let m = sw
                    .iter()
                    .enumerate()
                    .map(|(k, s)| (word_match(&w.norm, &w.stem, s) * s.weight, k))
                    .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
                if m.0 < 0.6 || named.contains(&m.1) {
                    break;
                }
                named.insert(m.1);
                score += m.0;
                j += 1;
            }
            if j == i {
                continue;
            }
            let key = (j - i, named.len());
            let better = match best {
                None => true,
                Some((len, n, sc, nm)) => {
                    (key.0, key.1) > (len, n)
                        || ((key.0, key.1) == (len, n)
                            && (score > sc + 1e-9
                                || ((score - sc).abs() < 1e-9
                                    && (sw.len(), *name) < (schema_words(nm).len(), nm))))
                }
            };
            if better {
                best = Some((key.0, key.1, score, name));
            }
        }
        match best {
            Some((len, _, _, name)) => {
                out.push(PropPhrase {
                    span: (i, i + len),
                    prop: name.to_owned(),
                    wh_ok: true,
                });
                i += len;
            }
            None => i += 1,
        }
    }
    out
}

/// The numeric property a phrase means for ranking or comparing: the phrase's own when it is a
/// number on `label` (or on any label), else the numeric property of that label sharing most
/// words with the phrase and the words around it ("highest point" → `highest_elevation`).
fn numeric_property(
    prop: &str,
    label: Option<&str>,
    words: &[Word],
    around: (usize, usize),
    props: &LabelProps,
) -> Option<String> {
    let candidates: Vec<&PropInfo> = match label.and_then(|l| props.get(l)) {
        Some(ps) => ps.iter().collect(),
        None => props.values().flatten().collect(),
    };
    if candidates.iter().any(|p| p.name == prop && p.numeric) {
        return Some(prop.to_owned());
    }
    let phrase = &words[around.0.min(words.len())..around.1.min(words.len())];
    let prop_words = schema_words(prop);
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

/// The property an adjective means on a label, and whether it ranks descending ("largest" →
/// population, descending; "smallest" → ascending; "oldest" on a year → ascending).
pub(crate) fn adjective_rank(
    adjective: &str,
    label: &str,
    props: &LabelProps,
) -> Option<(String, bool)> {
    let prop = adjective_property(adjective, label, props)?;
    let low = LOW_POLES.contains(&adjective);
    let time = TIME_POLES.contains(&adjective) && is_time_like(&prop);
    let descending = if time {
        !EARLIER.contains(&adjective)
    } else {
        !low
    };
    Some((prop, descending))
}

/// Whether a property's words name a time (a year, a date).
fn is_time_like(prop: &str) -> bool {
    vocab::name_words(prop).iter().any(|w| {
        ["year", "date", "time"].contains(&w.as_str())
            || lexicon().is_some_and(|lx| lx.is_a(w, "time_period") || lx.is_a(w, "date"))
    })
}

/// The numeric property of `label` an adjective means: one its WordNet attribute nouns or
/// derivations name ("large" → size ≈ area, "long" → length, "dense" → density), or that
/// shares its stem ("populous" / population); else the label's only numeric property.
pub(crate) fn adjective_property(
    adjective: &str,
    label: &str,
    props: &LabelProps,
) -> Option<String> {
    let numeric: Vec<&PropInfo> = props.get(label)?.iter().filter(|p| p.numeric).collect();
    if numeric.is_empty() {
        return None;
    }
    // The adjective itself ("populous" / population), then its attribute nouns, weighted by
    // the rank of the sense they come from.
    let mut nouns: Vec<(String, f64)> = vec![(adjective.to_owned(), 1.0)];
    for (n, sense) in lexicon()
        .map(|lx| lx.attribute_nouns(adjective))
        .unwrap_or_default()
    {
        nouns.push((n, [1.0, 0.5, 0.4][sense.min(2)]));
    }
    let time_scale = TIME_POLES.contains(&adjective);
    let best = numeric
        .iter()
        .map(|p| {
            // A property's graded words ("*highest*_elevation") say which end, not what.
            let sw: Vec<SchemaWord> = schema_words(&p.name)
                .into_iter()
                .filter(|s| graded(&s.word).is_none())
                .collect();
            let score = nouns
                .iter()
                .map(|(n, weight)| {
                    let st = vocab::stem(n);
                    sw.iter()
                        .map(|s| {
                            let m = word_match(n, &st, s);
                            // Nouns near in WordNet's tree ("size" and "area" are magnitudes).
                            let near = lexicon()
                                .filter(|_| m == 0.0)
                                .and_then(|lx| lx.hypernym_distance(n, &s.word, 4))
                                .map_or(0.0, |d| 0.6 - 0.05 * d as f64);
                            m.max(near) * s.weight * weight
                        })
                        .fold(0.0, f64::max)
                })
                .fold(0.0, f64::max);
            let score = if time_scale && is_time_like(&p.name) {
                score.max(0.5)
            } else {
                score
            };
            (score, &p.name)
        })
        .filter(|(s, _)| *s >= 0.4)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)));
    match best {
        Some((_, p)) => Some(p.clone()),
        None if numeric.len() == 1 => Some(numeric[0].name.clone()),
        None => None,
    }
}

/// Numbers written in the question, by token: "5,000,000", "1.5", "2015".
fn numbers(question: &str, words: &[Word]) -> BTreeMap<usize, f64> {
    let groups: HashSet<usize> = words.iter().map(|w| w.group).collect();
    question
        .split_whitespace()
        .enumerate()
        .filter(|(g, _)| groups.contains(g))
        .filter_map(|(g, raw)| {
            let t: String = raw
                .trim_matches(|c: char| !c.is_ascii_digit())
                .chars()
                .filter(|c| *c != ',')
                .collect();
            (!t.is_empty() && t.chars().next().is_some_and(|c| c.is_ascii_digit()))
                .then(|| t.parse::<f64>().ok().map(|n| (g, n)))
                .flatten()
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(super) fn props() -> LabelProps {
        let p = |n: &str, numeric: bool| PropInfo {
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
    }
}
