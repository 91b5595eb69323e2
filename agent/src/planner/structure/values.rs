//! Conditions on text values the data holds: "*graduate* students" (`level = "graduate"`),
//! "suppliers in *Toulouse*", "*Swedish* artists" (an adjective's noun: `country =
//! "Sweden"`), "is Brandair still *active*". The values are those of the label's sampled
//! nodes ([`super::PropInfo::values`]); a word is a value only where one property of the
//! set's label has it, so that a word of the question is never read two ways.

use super::{Against, CompareSpec, PropInfo, Reader, Want};
use crate::planner::words::element_match;
use crate::reading::Cmp;
use crate::vocab::{is_stopword, lexicon, schema_words};

/// Prepositions that introduce a value after a group's noun ("suppliers *in* Toulouse").
const PLACES: &[&str] = &["in", "from", "of", "with"];

impl Reader<'_> {
    /// Conditions on a text value: words right before a group's noun, or after it behind
    /// "in", "from", "of" or "with", that are a value of one of its label's text properties in
    /// the data ("*graduate* students": `level = "graduate"`; "suppliers in *Toulouse*":
    /// `city = "Toulouse"`), or an adjective pertaining to one ("*Swedish* artists": `country =
    /// "Sweden"`); when the question has one set, also a value further on in its clause
    /// ("artists who play *guitar*"). Runs of up to three free words, longest first, each word
    /// in one condition at most; a value several properties carry is none of them.
    pub(super) fn value_conditions(&mut self) {
        let open: Vec<usize> = (0..self.s.groups.len())
            .filter(|g| self.s.groups[*g].mention.is_none())
            .collect();
        for g in 0..self.s.groups.len() {
            let at = self.s.groups[g].at;
            // Modifiers before the noun, nearest first ("active low-cost airlines").
            let mut runs: Vec<(usize, usize)> = Vec::new();
            for end in (at.saturating_sub(3)..=at).rev() {
                for len in (1..=3).rev() {
                    if let Some(start) = end.checked_sub(len) {
                        runs.push((start, end));
                    }
                }
            }
            // "suppliers (that are) in Toulouse"
            let mut after = at + 1;
            while after < at + 4
                && is_stopword(self.norm(after))
                && !PLACES.contains(&self.norm(after))
            {
                after += 1;
            }
            if PLACES.contains(&self.norm(after)) {
                after = self.skip_articles(after + 1);
                for len in (1..=3).rev() {
                    runs.push((after, after + len));
                }
            }
            if open == [g] {
                for start in at + 1..self.words.len() {
                    for len in (1..=3).rev() {
                        runs.push((start, start + len));
                    }
                }
            }
            for (a, b) in runs {
                let Some((property, value)) = self.value_of(g, a, b) else {
                    continue;
                };
                self.s.used.extend(a..b);
                if a > at && a <= after {
                    self.s.used.extend(at + 1..a);
                }
                // "stadiums that *don't* have a *grass* pitch": the value must not hold.
                let mut cmp = Cmp::Eq;
                for i in (at + 1).min(a)..a {
                    if let Some(contracted) = self.negation_at(i) {
                        cmp = Cmp::Ne;
                        self.s.used.insert(i);
                        if contracted {
                            self.s.used.insert(i - 1);
                        }
                    }
                }
                self.s.compares.push(CompareSpec {
                    at: a,
                    group: Some(g),
                    property,
                    cmp,
                    against: Against::Text(value),
                    operand_ranks: Vec::new(),
                });
            }
        }
    }

    /// The text property of group `g`'s label one of whose values words `a..b` name (as
    /// written, or through the noun a one-word adjective pertains to), with the value as the
    /// data writes it; `None` when none or several do, or the words are taken.
    fn value_of(&self, g: usize, a: usize, b: usize) -> Option<(String, String)> {
        self.value_in(std::slice::from_ref(&self.s.groups[g].label), a, b)
    }

    /// [`Reader::value_of`] over the properties of `labels`; "*italian*-language" names the
    /// value of the property its last word names.
    fn value_in(&self, labels: &[String], a: usize, b: usize) -> Option<(String, String)> {
        if b > self.words.len() {
            return None;
        }
        let props: Vec<&PropInfo> = labels
            .iter()
            .filter_map(|l| self.props.get(l))
            .flatten()
            .collect();
        if b == a + 2 {
            let last = &self.words[a + 1];
            let named: Vec<&PropInfo> = props
                .iter()
                .copied()
                .filter(|p| !p.numeric && element_match(last, &schema_words(&p.name)) >= 1.0)
                .collect();
            if let [p] = named.as_slice() {
                if self.takeable(a) && self.takeable(a + 1) {
                    let text = self.norm(a).to_owned();
                    let forms = self.value_forms(&text);
                    if let Some((_, v)) = p.values.iter().find(|(n, _)| forms.contains(n)) {
                        return Some((p.name.clone(), v.clone()));
                    }
                }
            }
        }
        let usable = (a..b).all(|i| self.takeable(i)) && !(a..b).all(|i| is_stopword(self.norm(i)));
        if !usable {
            return None;
        }
        let text = (a..b).map(|i| self.norm(i)).collect::<Vec<_>>().join(" ");
        let forms = if b == a + 1 {
            self.value_forms(&text)
        } else {
            vec![text]
        };
        let mut found: Vec<(&str, &str)> = props
            .iter()
            .filter(|p| !p.numeric)
            .filter_map(|p| {
                p.values
                    .iter()
                    .find(|(norm, _)| forms.contains(norm))
                    .map(|(_, v)| (p.name.as_str(), v.as_str()))
            })
            .collect();
        found.dedup();
        match found.as_slice() {
            [(p, v)] => Some(((*p).to_owned(), (*v).to_owned())),
            _ => None,
        }
    }

    /// Whether word `i` may be read as (part of) a value: in no mention, used by nothing, and
    /// not known to name a property ("what states *high point* are higher …": the states'
    /// `highest_point`, not the value "High Point").
    fn takeable(&self, i: usize) -> bool {
        self.free(i)
            && !self.s.used.contains(&i)
            && !self.named.iter().any(|p| i >= p.span.0 && i < p.span.1)
    }

    /// A word as a value may be written: itself, its singular, and the nouns it pertains to as
    /// an adjective ("swedish" → sweden).
    fn value_forms(&self, word: &str) -> Vec<String> {
        let mut forms = vec![word.to_owned()];
        // a plural of a value ("midfield*ers*", "class*es*", "categor*ies*")
        for (suffix, add) in [("ies", "y"), ("es", ""), ("s", "")] {
            if let Some(stem) = word.strip_suffix(suffix).filter(|s| s.len() >= 2) {
                forms.push(format!("{stem}{add}"));
            }
        }
        forms.extend(
            lexicon()
                .map(|lx| lx.pertained_nouns(word))
                .unwrap_or_default()
                .iter()
                .map(|n| crate::planner::normalize(n)),
        );
        forms
    }

    /// A yes/no question's value said of its first mention ("is Brandair (still) *active*"):
    /// a condition on the mention's own nodes.
    pub(super) fn mention_values(&mut self) {
        if self.s.want != Want::Exists {
            return;
        }
        let Some(m) = self.mentions.first() else {
            return;
        };
        let (end, labels) = (m.span.1, m.labels.clone());
        for a in end..self.words.len() {
            for len in (1..=3).rev() {
                let b = a + len;
                let Some((property, value)) = self.value_in(&labels, a, b) else {
                    continue;
                };
                self.s.used.extend(a..b);
                self.s.compares.push(CompareSpec {
                    at: a,
                    group: None,
                    property,
                    cmp: Cmp::Eq,
                    against: Against::Text(value),
                    operand_ranks: Vec::new(),
                });
                return;
            }
        }
    }
}
