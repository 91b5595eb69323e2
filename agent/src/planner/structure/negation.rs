//! Negation: "not", "never", "without", "-n't" scope over the next mention or group ("rivers
//! that do *not* run through texas"), or deny what the clause's subject did ("which films did
//! X *not* act in"). A negation that scopes over nothing is reported unused, so the answer that
//! ignores it is never given as certain.

use super::{Reader, AUXILIARIES};

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

/// Prepositions: a mention after one is no clause's subject.
const PREPOSITIONS: &[&str] = &[
    "by", "of", "in", "to", "from", "with", "for", "at", "on", "about", "under", "over", "than",
];

impl Reader<'_> {
    /// Whether word `i` negates ("not", "no", "never", "without", "don't", "isnt"), and
    /// whether it is the "t" of a contraction (the word before is then its auxiliary).
    pub(super) fn negation_at(&self, i: usize) -> Option<bool> {
        let w = self.norm(i);
        let contracted = w == "t" && i > 0 && self.norm(i - 1).ends_with('n');
        let negation = NEGATIONS.contains(&w)
            || contracted
            || AUXILIARIES.iter().any(|a| w == format!("{a}nt"));
        negation.then_some(contracted)
    }

    /// Negation words deny the subject of their clause ([`Reader::negated_subject`]), else
    /// scope over the next mention or group.
    pub(super) fn negations(&mut self) {
        for i in 0..self.words.len() {
            let Some(contracted) = self.negation_at(i) else {
                continue;
            };
            if !self.free(i) || self.s.used.contains(&i) {
                continue;
            }
            self.s.used.insert(i);
            if contracted {
                self.s.used.insert(i - 1);
            }
            if let Some(m) = self.negated_subject(i, contracted) {
                self.s.negated_mentions.insert(m);
                continue;
            }
            let next_mention = self.mentions.iter().position(|m| m.span.0 > i);
            let next_group = self
                .s
                .groups
                .iter()
                .position(|g| g.at > i && g.mention.is_none());
            let mention_at = next_mention.map(|m| self.mentions[m].span.0);
            let group_at = next_group.map(|g| self.s.groups[g].at);
            match (next_mention, mention_at, next_group, group_at) {
                (Some(m), Some(ma), _, ga) if ga.is_none_or(|g| ma < g) => {
                    self.s.negated_mentions.insert(m);
                }
                (_, _, Some(g), Some(_)) => self.s.groups[g].negated = true,
                _ => self.s.unsure.push(i),
            }
        }
    }

    /// The mention a negation denies as the subject of its clause: right after an auxiliary
    /// ("did *X* not act in", "has *X* never won"), or right before an auxiliary that is no
    /// copula ("*X* did not", "*X* hasn't"): what it did is the relation the answers must lack.
    /// Not after a preposition, nor before a copula: in "projects sponsored *by X are not*
    /// written in Rust" the negation is the projects'.
    fn negated_subject(&self, i: usize, contracted: bool) -> Option<usize> {
        // where the negation starts: "didn't" splits into "didn", "t"
        let start = if contracted { i - 1 } else { i };
        let aux = |j: usize| AUXILIARIES.contains(&self.norm(j));
        let copula = |w: &str| {
            ["is", "are", "was", "were"]
                .iter()
                .any(|c| w.starts_with(c))
        };
        let fused = contracted || AUXILIARIES.iter().any(|a| self.norm(i) == format!("{a}nt"));
        self.mentions.iter().position(|m| {
            let after_preposition = m.span.0 > 0 && PREPOSITIONS.contains(&self.norm(m.span.0 - 1));
            let inverted = m.span.0 > 0 && aux(m.span.0 - 1);
            let before_aux = start > 0
                && m.span.1 == start - 1
                && aux(start - 1)
                && !copula(self.norm(start - 1));
            let right_before = m.span.1 == start;
            (right_before && inverted)
                || (!after_preposition
                    && (before_aux || (right_before && fused && !copula(self.norm(start)))))
        })
    }
}
