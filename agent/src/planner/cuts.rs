//! Adjectives on a label noun that name no property, label or relation ("the *major* cities
//! in texas", "*big* rivers"): the reading leaves them unused (the answer is uncertain, every
//! city listed). Feedback that names the right answers teaches where such a word cuts a
//! numeric property of the label ([`crate::strategy::Strategies::cut`]); once learned, the word
//! reads as a comparison with that cut-off (`City → population > 150000.5`), stated in the
//! answer's notes as learned, so the answer stays uncertain. Nothing is assumed of a word
//! before feedback: no number is written for any adjective.

use super::{words, Planner, QueryPlan};
use crate::reading::{Cmp, Op, Operand, Source};
use crate::strategy::LearnedCut;
use crate::vocab::{self, Word};
use cairn_storage_format::Value;

/// An unused adjective right before a noun naming a label of the reading's chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    /// The adjective as written ("major").
    pub word: String,
    /// The label its noun names ("City").
    pub label: String,
    /// Where in the chain the label's nodes are: the number of operations before them.
    pub at: usize,
    /// The cut-off read for it, when feedback taught one (its comparison is at `at`).
    pub applied: Option<LearnedCut>,
}

impl Modifier {
    /// Whether the word restricts the answer's nodes themselves (nothing follows its label's
    /// set in the chain but the cut), so the right answers say where the cut-off lies.
    pub fn on_answer(&self, ops: usize) -> bool {
        ops == self.at + usize::from(self.applied.is_some())
    }

    /// The note the answer carries when the cut-off is read.
    pub fn note(&self) -> Option<String> {
        let c = self.applied.as_ref()?;
        Some(format!(
            "'{}' read as {} {} {} (a cut-off learned from feedback on {} answer(s))",
            self.word,
            c.property,
            if c.above { ">" } else { "<" },
            c.threshold,
            c.examples
        ))
    }
}

impl Planner<'_> {
    /// Finds the plan's unused adjectives on a label noun, and reads each as the cut-off
    /// feedback taught for it, if any (then the statement is compiled again).
    pub(super) fn apply_cuts(
        &self,
        plan: &mut QueryPlan,
        words: &[Word],
    ) -> Result<(), crate::AgentError> {
        let Some(reading) = plan.reading.as_mut() else {
            return Ok(());
        };
        if plan.conjunct.is_some() {
            return Ok(());
        }
        // The label of the chain's set before each operation, and after the last.
        let mut labels: Vec<(usize, String)> = Vec::new();
        let mut label = match &reading.chain.source {
            Source::Nodes { label, .. } | Source::Label(label) => Some(label.clone()),
        };
        for at in 0..=reading.chain.ops.len() {
            if at > 0 {
                if let Some(Op::Hop { target, .. }) = reading.chain.ops.get(at - 1) {
                    label = target.clone();
                }
            }
            if let Some(l) = &label {
                labels.push((at, l.clone()));
            }
        }
        let lexicon = vocab::lexicon();
        // A path read alone takes the wh-phrase's words ("which *busy* ports") as naming the
        // answer; an adjective there that names nothing of the schema is as unused.
        let plain = !reading
            .chain
            .ops
            .iter()
            .any(|op| matches!(op, Op::Rank { .. } | Op::Compare { .. }));
        let catalog = self.graph.catalog();
        let mut found: Vec<Modifier> = Vec::new();
        for (i, pair) in words.windows(2).enumerate() {
            let (adj, noun) = (&pair[0], &pair[1]);
            let unused = plan.unused.contains(&adj.norm)
                || (plain
                    && super::paths::in_wh_phrase(words, i)
                    && !vocab::is_stopword(&adj.norm)
                    && !names_schema(adj, &catalog));
            if !unused
                || adj.marked
                || lexicon.is_some_and(|l| !l.is_adjective(&adj.norm))
                || found.iter().any(|m| m.word == adj.norm)
            {
                continue;
            }
            let Some((at, label)) = labels
                .iter()
                .find(|(_, l)| words::element_match(noun, &vocab::schema_words(l)) >= 0.8)
            else {
                continue;
            };
            let applied = self
                .strategies
                .and_then(|s| s.lock().ok())
                .and_then(|s| s.cut(&adj.norm, label));
            found.push(Modifier {
                word: adj.norm.clone(),
                label: label.clone(),
                at: *at,
                applied,
            });
        }
        // Insert from the chain's end, so earlier positions stay where they were found.
        let mut order: Vec<usize> = (0..found.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(found[i].at));
        for i in order {
            let m = &found[i];
            let Some(c) = &m.applied else { continue };
            reading.chain.ops.insert(
                m.at,
                Op::Compare {
                    property: c.property.clone(),
                    cmp: if c.above { Cmp::Gt } else { Cmp::Lt },
                    value: Operand::Value(Value::Float(c.threshold)),
                },
            );
            plan.unused.retain(|w| *w != m.word);
        }
        let changed = found.iter().any(|m| m.applied.is_some());
        plan.modifiers = found;
        if changed {
            self.compile(plan)?;
        }
        Ok(())
    }
}

/// Whether the word names a label, a relation or a property (as a path's words are read).
fn names_schema(w: &Word, catalog: &cairn_store::Catalog) -> bool {
    let names = catalog
        .labels()
        .map(|(_, n)| n.to_owned())
        .chain(catalog.relations().map(|(_, r)| r.name.clone()))
        .chain(catalog.prop_keys().map(|(_, n)| n.to_owned()));
    names
        .into_iter()
        .any(|n| words::element_match(w, &vocab::schema_words(&n)) >= 0.6)
}
