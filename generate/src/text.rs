//! Author names and paper titles: drawn from `words` on their own random stream, distinct but
//! for the homonym and reuse rates.

use crate::words::{
    ADJECTIVES, FIRST, INITIALS, LAST, METHODS, NOUNS, PROPERTIES, SETTINGS, TERMS_PER_TOPIC,
    TITLE_FORMS, TOPICS,
};
use crate::Weighted;
use rand::Rng;
use std::collections::HashSet;

/// Share of authors who take the name of an earlier author: true homonyms, which bibliographic
/// data has at a rate of a few percent (distinct people sharing "Wei Wang").
pub(crate) const HOMONYM_RATE: f64 = 0.015;
/// Share of papers that reuse an earlier title of their topic (a workshop paper and its journal
/// version, a common title such as a survey's).
pub(crate) const TITLE_REUSE_RATE: f64 = 0.001;
/// Draws before a name or title that is already taken is accepted anyway.
pub(crate) const MAX_DRAWS: usize = 64;

/// Author names: Zipf-distributed first and last names (name frequency is heavy-tailed), a
/// middle initial on most, more initials when a draw keeps colliding; names already given
/// are drawn again, so duplicates come only from `HOMONYM_RATE`.
pub(crate) struct Names {
    first: Weighted,
    last: Weighted,
    used: HashSet<String>,
}

impl Names {
    pub(crate) fn new() -> Self {
        Names {
            first: Weighted::zipf(FIRST.len(), 0.7),
            last: Weighted::zipf(LAST.len(), 0.7),
            used: HashSet::new(),
        }
    }

    pub(crate) fn next(&mut self, rng: &mut impl Rng) -> String {
        let mut name = String::new();
        for draw in 0..MAX_DRAWS {
            name.clear();
            name.push_str(FIRST[self.first.sample(rng)]);
            name.push(' ');
            let initials = match draw {
                0..4 => usize::from(rng.random_bool(0.7)),
                _ => (1 + draw / 8).min(3),
            };
            for _ in 0..initials {
                name.push(INITIALS[rng.random_range(0..INITIALS.len())] as char);
                name.push_str(". ");
            }
            name.push_str(LAST[self.last.sample(rng)]);
            if self.used.insert(name.clone()) {
                break;
            }
        }
        name
    }
}

/// Paper titles: a template filled with the paper's topic terms and Zipf-picked general
/// vocabulary, so titles of one topic share words (SEARCH and embedders find them related)
/// while being distinct; a title already given is drawn again. Public so that a benchmark can
/// write new papers whose titles look like the generated ones (the write-then-query loop).
#[derive(Debug)]
pub struct Titles {
    term: Weighted,
    adjective: Weighted,
    method: Weighted,
    setting: Weighted,
    noun: Weighted,
    property: Weighted,
    used: HashSet<String>,
}

impl Default for Titles {
    fn default() -> Self {
        Self::new()
    }
}

impl Titles {
    /// How many topics titles can be drawn for (`topic` of [`fresh`](Self::fresh) is below it).
    pub const TOPICS: usize = TOPICS.len();

    /// A title source that has given no title yet.
    pub fn new() -> Self {
        Titles {
            term: Weighted::zipf(TERMS_PER_TOPIC, 0.8),
            adjective: Weighted::zipf(ADJECTIVES.len(), 0.9),
            method: Weighted::zipf(METHODS.len(), 0.9),
            setting: Weighted::zipf(SETTINGS.len(), 0.9),
            noun: Weighted::zipf(NOUNS.len(), 0.9),
            property: Weighted::zipf(PROPERTIES.len(), 0.9),
            used: HashSet::new(),
        }
    }

    /// Counts `title` as given, so no later draw returns it (titles that exist elsewhere).
    pub fn mark_used(&mut self, title: &str) {
        self.used.insert(title.to_owned());
    }

    /// A title of topic `topic` (modulo [`Self::TOPICS`]) not given or marked before, or `None`
    /// when `MAX_DRAWS` draws were all taken.
    pub fn fresh(&mut self, rng: &mut impl Rng, topic: usize) -> Option<String> {
        let (title, fresh) = self.draw_unused(rng, topic % TOPICS.len());
        fresh.then_some(title)
    }

    pub(crate) fn next(&mut self, rng: &mut impl Rng, topic: usize) -> String {
        self.draw_unused(rng, topic).0
    }

    /// Draws until a title is not taken (at most `MAX_DRAWS` times) and records it; the flag
    /// says whether it was new.
    fn draw_unused(&mut self, rng: &mut impl Rng, topic: usize) -> (String, bool) {
        let mut title = String::new();
        for _ in 0..MAX_DRAWS {
            title = self.draw(rng, topic);
            if self.used.insert(title.clone()) {
                return (title, true);
            }
        }
        (title, false)
    }

    fn draw(&self, rng: &mut impl Rng, topic: usize) -> String {
        let (name, terms) = TOPICS[topic];
        let form = TITLE_FORMS[rng.random_range(0..TITLE_FORMS.len())];
        let mut out = String::with_capacity(96);
        let mut rest = form;
        // A form's second term or method differs from its first ("{a} for {b}").
        let (mut term, mut method) = (usize::MAX, usize::MAX);
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let word = match &rest[open + 1..open + close] {
                "a" | "b" => terms[self.term.sample_other(rng, &mut term) % terms.len()],
                "adj" => ADJECTIVES[self.adjective.sample(rng)],
                "method" => METHODS[self.method.sample_other(rng, &mut method)],
                "setting" => SETTINGS[self.setting.sample(rng)],
                "noun" => NOUNS[self.noun.sample(rng)],
                "property" => PROPERTIES[self.property.sample(rng)],
                "topic" => name,
                // The article agrees with the word after it, drawn next.
                _ => "\u{0}",
            };
            out.push_str(word);
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        if let Some(at) = out.find('\u{0}') {
            let vowel = out[at + 2..].starts_with(['a', 'e', 'i', 'o', 'u']);
            out.replace_range(at..at + 1, if vowel { "an" } else { "a" });
        }
        let mut chars = out.chars();
        match chars.next() {
            Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
            None => out,
        }
    }
}

pub(crate) fn title_case(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Roman numerals up to X, then arabic ones, so venue names never repeat.
pub(crate) fn roman(n: usize) -> String {
    ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]
        .get(n.saturating_sub(1))
        .map_or_else(|| n.to_string(), |r| (*r).to_owned())
}
