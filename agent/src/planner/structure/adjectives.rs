//! The property an adjective or a time word means on a label: "largest" → area, "oldest" →
//! `founded`, "what year was X *founded*" → the time property the verb names; and when that
//! reading is only a guess.

use super::{
    graded, KeySpec, LabelProps, Phrase, PropInfo, Reader, EARLIER, LOW_POLES, TIME_POLES,
};
use crate::vocab::{self, lexicon, schema_words, word_match, SchemaWord};

/// A match of an adjective with a property this good names it; below, WordNet only places
/// them near, which is a guess when another property is about as near.
const ADJECTIVE_SURE: f64 = 0.6;

/// How far ahead of every other property a near match must be to be sure ("large" → `area`,
/// 0.45 against nothing, is; "long" → `rating`, 0.5 against `release_year`'s 0.5, is not).
const ADJECTIVE_MARGIN: f64 = 0.15;

/// The property an adjective means on a label, and whether it ranks descending ("largest" →
/// population, descending; "smallest" → ascending; "oldest" on a year → ascending).
pub(crate) fn adjective_rank(
    adjective: &str,
    label: &str,
    props: &LabelProps,
) -> Option<(String, bool)> {
    let prop = adjective_property(adjective, label, props)?;
    let low = LOW_POLES.contains(&adjective);
    let info = props
        .get(label)
        .and_then(|ps| ps.iter().find(|p| p.name == prop));
    let time = TIME_POLES.contains(&adjective) && info.is_some_and(is_time_like);
    let descending = if time {
        !EARLIER.contains(&adjective)
    } else {
        !low
    };
    Some((prop, descending))
}

/// The one numeric property of `label` that names a time (its year, its date); `None` when
/// it has none or several.
pub(super) fn time_property(label: &str, props: &LabelProps) -> Option<String> {
    let mut times = props
        .get(label)?
        .iter()
        .filter(|p| p.numeric && is_time_like(p));
    let one = times.next()?;
    times.next().is_none().then(|| one.name.clone())
}

/// "year", "date", "time": words that ask for a time.
pub(super) fn is_time_word(w: &str) -> bool {
    ["year", "date", "time"].contains(&w)
}

/// Whether a property is a time: its words name one (a year, a date), or its values are years
/// and its name has an event's participle ("founded", "born").
pub(super) fn is_time_like(prop: &PropInfo) -> bool {
    let words = vocab::name_words(&prop.name);
    words.iter().any(|w| {
        is_time_word(w)
            || lexicon().is_some_and(|lx| lx.is_a(w, "time_period") || lx.is_a(w, "date"))
    }) || (prop.years
        && words
            .iter()
            .any(|w| lexicon().is_some_and(|lx| lx.is_participle(w))))
}

/// The numeric property of `label` an adjective means: one its WordNet attribute nouns or
/// derivations name ("large" → size ≈ area, "long" → length, "dense" → density), or that
/// shares its stem ("populous" / population); else the label's only numeric property.
pub(crate) fn adjective_property(
    adjective: &str,
    label: &str,
    props: &LabelProps,
) -> Option<String> {
    adjective_match(adjective, label, props).map(|(p, _)| p)
}

/// [`adjective_property`] with whether the match is sure: a word of the property is the
/// adjective or one of its attribute nouns, or WordNet places the property near and no other
/// ([`ADJECTIVE_MARGIN`]).
pub(super) fn adjective_match(
    adjective: &str,
    label: &str,
    props: &LabelProps,
) -> Option<(String, bool)> {
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
    let scored: Vec<(f64, &String)> = numeric
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
            // A time for an adjective of time ("the *oldest* airline": founded), above a
            // property WordNet only places near ("age" and "size" are both magnitudes).
            let score = if time_scale && is_time_like(p) {
                score.max(0.9)
            } else {
                score
            };
            (score, &p.name)
        })
        .collect();
    let best = scored
        .iter()
        .filter(|(s, _)| *s >= 0.4)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)));
    match best {
        Some((score, p)) => {
            // WordNet's nearness alone is sure only far ahead of every other property's
            let runner_up = scored
                .iter()
                .filter(|(_, q)| q != p)
                .map(|(s, _)| *s)
                .fold(0.0, f64::max);
            let sure = *score >= ADJECTIVE_SURE || runner_up < score - ADJECTIVE_MARGIN;
            Some(((*p).clone(), sure))
        }
        None if numeric.len() == 1 => Some((numeric[0].name.clone(), true)),
        None => None,
    }
}

impl Reader<'_> {
    /// Superlatives and comparatives whose property WordNet only places near the adjective,
    /// with another property about as near ("the *longest* movie" by `rating`, as near as
    /// `release_year`, where the runtime is a word WordNet lacks): the reading is a guess, so
    /// its answer is not certain.
    pub(super) fn guessed_adjectives(&mut self) {
        let lx = lexicon();
        let base = |w: &str| {
            lx.and_then(|lx| lx.graded(w))
                .map_or_else(|| w.to_owned(), |(b, _)| b)
        };
        // a property the question names is no guess ("the *biggest capacity*")
        let named = |p: &str| {
            self.phrases
                .iter()
                .any(|ph| ph.choice.iter().any(|(c, _)| c == p))
        };
        let mut guessed = Vec::new();
        for r in &self.s.ranks {
            let (KeySpec::Property(p), Some(g)) = (&r.key, r.group) else {
                continue;
            };
            let label = &self.s.groups[g].label;
            if !named(p)
                && adjective_match(&base(&r.word), label, self.props)
                    .is_some_and(|(q, sure)| q == *p && !sure)
            {
                guessed.push(r.at);
            }
        }
        for c in &self.s.compares {
            let Some(g) = c.group else { continue };
            let label = &self.s.groups[g].label;
            if !named(&c.property)
                && adjective_match(&base(self.norm(c.at)), label, self.props)
                    .is_some_and(|(q, sure)| q == c.property && !sure)
            {
                guessed.push(c.at);
            }
        }
        self.s.unsure.extend(guessed);
    }

    /// Whether a phrase names a time property by its own words ("founded", "*launch*" for
    /// `launch_year`), not by WordNet's nearness ("play" and `start_year`).
    pub(super) fn names_event_time(&self, p: &Phrase) -> bool {
        p.choice
            .first()
            .is_some_and(|(c, score)| *score >= 0.8 && self.time_like(c))
    }

    /// Whether some label's property of this name is a time ([`is_time_like`]).
    pub(super) fn time_like(&self, name: &str) -> bool {
        self.props
            .values()
            .flatten()
            .any(|p| p.name == name && p.numeric && is_time_like(p))
    }
}
