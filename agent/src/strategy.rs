//! The strategy feedback loop: what this database has learned about answering its questions.
//!
//! Every answered question is recorded with its question type, its plan shape (the relation
//! sequence) and its *choices*: which question word was read as which relation (a word that
//! named a hop, or a word no relation names paired with the hop no word named — "darling" with
//! `spouse`). Answers the validator accepted are counted per shape; feedback from the caller
//! (correct or not) adds to the shape's and the choices' counts. The planner reads the counts
//! as a prior when it ranks candidate paths, so a phrase this database's users confirmed for a
//! relation is read as that relation next time, on this database only.
//!
//! Persisted as JSON in the store's `meta/strategies` record through the commit path, bounded:
//! at most [`MAX_SHAPES`] shapes and [`MAX_CHOICES`] phrase → relation pairs (the least used go
//! first), and the last [`MAX_RECENT`] answers of the session awaiting feedback (in memory only:
//! an answer id names an answer of the running process).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use thiserror::Error;

/// Plan shapes kept (per type and relation sequence).
pub const MAX_SHAPES: usize = 1024;
/// Phrase → relation pairs kept.
pub const MAX_CHOICES: usize = 4096;
/// Answers of the session that feedback can still name.
pub const MAX_RECENT: usize = 1024;
/// How much a fully confirmed choice adds to a candidate path's score (a word that names a
/// relation by its stem adds 1.0).
const CHOICE_WEIGHT: f64 = 0.8;
/// Question shape → hop pairs kept.
pub const MAX_TEMPLATE_HOPS: usize = 4096;
/// How much a fully confirmed hop of a question shape adds: as much as a word naming the
/// relation by its stem, so that a refuted reading of a shape gives way to its runner-up.
const TEMPLATE_WEIGHT: f64 = 1.0;

/// (adjective, label) pairs whose cut-offs are kept.
pub const MAX_CUTS: usize = 1024;

/// A strategy record that cannot be used.
#[derive(Debug, Error)]
pub enum StrategyError {
    #[error("the stored strategy record is not valid: {0}")]
    Corrupt(String),
    #[error("the strategy record cannot be encoded: {0}")]
    Encode(String),
    #[error("no answer {0} in this session (feedback names an answer id printed by ASK)")]
    UnknownAnswer(u64),
}

/// Outcomes of one shape or choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Answers the validator accepted.
    pub accepted: u64,
    /// Feedback: the answer was right.
    pub correct: u64,
    /// Feedback: the answer was wrong.
    pub wrong: u64,
}

impl Counts {
    /// The evidence in (-1, 1): confirmations minus refutations, saturating.
    fn prior(&self) -> f64 {
        let net = self.correct as f64 - self.wrong as f64;
        (net / 2.0).tanh()
    }

    fn weight(&self) -> u64 {
        self.accepted + self.correct + self.wrong
    }
}

/// One answer awaiting feedback.
#[derive(Clone, Debug)]
struct Recorded {
    id: u64,
    decision: Decision,
}

/// What one answer teaches: its question type, its plan's shape ([`path_shape`], or `.name` for
/// an attribute) and its word → relation choices. The planner describes its plans this way, so
/// that this module needs nothing of the planner's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub qtype: String,
    pub shape: String,
    pub choices: Vec<(String, String)>,
    /// The question's shape: its words with every linked mention as `#` ("through which
    /// states does # run"), the same for every entity asked about that way.
    #[serde(default)]
    pub template: String,
    /// Every hop of the reading (as [`path_shape`] writes it), which the template's lessons
    /// are about.
    #[serde(default)]
    pub hops: Vec<String>,
    /// Per hop, the question's pattern and the path as that pattern names it (see the
    /// planner's `question_pattern`: "what does # 's @ do", `@ -> profession`), lessons kept
    /// beside the template's.
    #[serde(default)]
    pub patterns: Vec<(String, String)>,
}

/// The learned strategies of one database.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Strategies {
    /// Question type → plan shape → outcomes.
    shapes: BTreeMap<String, BTreeMap<String, Counts>>,
    /// Question word (stem) → relation → outcomes.
    choices: BTreeMap<String, BTreeMap<String, Counts>>,
    /// Question shape ([`Decision::template`]) → hop → outcomes.
    #[serde(default)]
    templates: BTreeMap<String, BTreeMap<String, Counts>>,
    /// Adjective → `Label.property` → where the right answers put its cut-off ("*major*
    /// cities": `City.population`), learned from feedback that names the right answers.
    #[serde(default)]
    cuts: BTreeMap<String, BTreeMap<String, Cut>>,
    #[serde(skip)]
    recent: VecDeque<Recorded>,
    #[serde(skip)]
    next_id: u64,
}

impl Strategies {
    /// Reads a stored record (`None`: nothing learned yet).
    pub fn decode(bytes: Option<&[u8]>) -> Result<Strategies, StrategyError> {
        match bytes {
            None => Ok(Strategies::default()),
            Some(b) => serde_json::from_slice(b).map_err(|e| StrategyError::Corrupt(e.to_string())),
        }
    }

    /// The record as stored; an error rather than an empty record, which would erase what
    /// was learned.
    pub fn encode(&self) -> Result<Vec<u8>, StrategyError> {
        serde_json::to_vec(self).map_err(|e| StrategyError::Encode(e.to_string()))
    }

    /// Nothing learned.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
            && self.choices.is_empty()
            && self.templates.is_empty()
            && self.cuts.is_empty()
    }

    /// Records an answer; returns the id feedback names it by.
    pub fn record(&mut self, decision: Decision, accepted: bool) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let r = Recorded { id, decision };
        if accepted {
            self.count(&r, |c| c.accepted += 1);
        }
        self.recent.push_back(r);
        while self.recent.len() > MAX_RECENT {
            self.recent.pop_front();
        }
        id
    }

    /// Feedback on a recorded answer.
    pub fn feedback(&mut self, id: u64, correct: bool) -> Result<(), StrategyError> {
        let r = self
            .recent
            .iter()
            .find(|r| r.id == id)
            .cloned()
            .ok_or(StrategyError::UnknownAnswer(id))?;
        self.count(&r, |c| bump(c, correct));
        Ok(())
    }

    /// Feedback on an answer that was not recorded (an evaluation feeding back gold
    /// correctness as it goes).
    pub fn learn(&mut self, decision: Decision, correct: bool) {
        let r = Recorded { id: 0, decision };
        self.count(&r, |c| bump(c, correct));
    }

    /// The prior of reading question word `stem` as `relation`, in (-1, 1) times the weight.
    pub(crate) fn choice_prior(&self, stem: &str, relation: &str) -> f64 {
        self.choices
            .get(stem)
            .and_then(|m| m.get(relation))
            .map_or(0.0, |c| CHOICE_WEIGHT * c.prior())
    }

    /// The prior of a hop for questions of one shape (`template`): what feedback on other
    /// questions asked that way, about other entities, said of reading a hop as `shape`.
    pub(crate) fn template_prior(&self, template: &str, shape: &str) -> f64 {
        self.templates
            .get(template)
            .and_then(|m| m.get(shape))
            .map_or(0.0, |c| TEMPLATE_WEIGHT * c.prior())
    }

    /// What one answer's right answers say of an adjective the reading did not use ("what are
    /// the *major* cities in texas"): `members` are the nodes of `label` the reading without it
    /// gives, each with its numeric properties and whether it is among the right answers. Per
    /// property, the right ones either all lie above the others (the adjective keeps large
    /// values) or all below, or the property is not what the word cuts on.
    pub fn learn_cut(&mut self, word: &str, label: &str, members: &[CutMember]) {
        let mut props: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
        for (values, inside) in members {
            for (p, v) in values {
                let e = props.entry(p.as_str()).or_default();
                if *inside {
                    e.0.push(*v);
                } else {
                    e.1.push(*v);
                }
            }
        }
        for (p, (inside, outside)) in props {
            let cut = self
                .cuts
                .entry(word.to_owned())
                .or_default()
                .entry(format!("{label}.{p}"))
                .or_default();
            cut.above.add(&inside, &outside, true);
            cut.below.add(&inside, &outside, false);
        }
        bound_cuts(&mut self.cuts);
    }

    /// The cut-off feedback taught for `word` on nodes of `label`: the property, whether the
    /// word keeps the values above it, the threshold (midway between the closest right and
    /// wrong values seen), and how many answers agreed. Only a property whose every example
    /// separated the right answers from the others, and that more examples support than any
    /// other reading of the word; none when two readings are as well supported.
    pub fn cut(&self, word: &str, label: &str) -> Option<LearnedCut> {
        let prefix = format!("{label}.");
        let mut found: Vec<LearnedCut> = Vec::new();
        for (key, cut) in self.cuts.get(word)? {
            let Some(property) = key.strip_prefix(&prefix) else {
                continue;
            };
            for (side, above) in [(&cut.above, true), (&cut.below, false)] {
                if let Some(threshold) = side.threshold(above) {
                    found.push(LearnedCut {
                        property: property.to_owned(),
                        above,
                        threshold,
                        examples: side.agree,
                    });
                }
            }
        }
        found.sort_by_key(|c| std::cmp::Reverse(c.examples));
        match found.as_slice() {
            [one] => Some(one.clone()),
            [a, b, ..] if a.examples > b.examples => Some(a.clone()),
            _ => None,
        }
    }

    /// What `SHOW STRATEGIES` prints: shapes per type, then phrase → relation choices, most
    /// used first.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.is_empty() {
            return "no strategies recorded yet\n".to_owned();
        }
        let _ = writeln!(
            out,
            "plan shapes (type, shape: accepted / correct / wrong):"
        );
        for (t, m) in &self.shapes {
            let mut rows: Vec<_> = m.iter().collect();
            rows.sort_by_key(|(s, c)| (std::cmp::Reverse(c.weight()), s.as_str()));
            for (s, c) in rows {
                let _ = writeln!(
                    out,
                    "  {t:<12} {s}: {} / {} / {}",
                    c.accepted, c.correct, c.wrong
                );
            }
        }
        let _ = writeln!(out, "question shape -> hop (accepted / correct / wrong):");
        let mut rows: Vec<_> = self
            .templates
            .iter()
            .flat_map(|(t, m)| m.iter().map(move |(h, c)| (t, h, c)))
            .collect();
        rows.sort_by_key(|(t, h, c)| (std::cmp::Reverse(c.weight()), t.as_str(), h.as_str()));
        for (t, h, c) in rows {
            let _ = writeln!(
                out,
                "  {t:?} -> {h}: {} / {} / {}",
                c.accepted, c.correct, c.wrong
            );
        }
        let _ = writeln!(
            out,
            "adjective -> cut-off (examples that agree / that did not):"
        );
        for (w, m) in &self.cuts {
            for (key, cut) in m {
                for (side, above, op) in [(&cut.above, true, ">"), (&cut.below, false, "<")] {
                    if side.agree == 0 {
                        continue;
                    }
                    let at = side
                        .threshold(above)
                        .map_or("none".to_owned(), |t| format!("{t}"));
                    let _ = writeln!(
                        out,
                        "  {w} -> {key} {op} {at}: {} / {}",
                        side.agree, side.conflicts
                    );
                }
            }
        }
        let _ = writeln!(out, "phrase -> relation (accepted / correct / wrong):");
        let mut rows: Vec<_> = self
            .choices
            .iter()
            .flat_map(|(p, m)| m.iter().map(move |(r, c)| (p, r, c)))
            .collect();
        rows.sort_by_key(|(p, r, c)| (std::cmp::Reverse(c.weight()), p.as_str(), r.as_str()));
        for (p, r, c) in rows {
            let _ = writeln!(
                out,
                "  {p} -> {r}: {} / {} / {}",
                c.accepted, c.correct, c.wrong
            );
        }
        out
    }

    fn count(&mut self, r: &Recorded, f: impl Fn(&mut Counts)) {
        f(self
            .shapes
            .entry(r.decision.qtype.clone())
            .or_default()
            .entry(r.decision.shape.clone())
            .or_default());
        for (p, rel) in &r.decision.choices {
            f(self
                .choices
                .entry(p.clone())
                .or_default()
                .entry(rel.clone())
                .or_default());
        }
        if !r.decision.template.is_empty() {
            let mut hops = r.decision.hops.clone();
            hops.sort();
            hops.dedup();
            for h in hops {
                f(self
                    .templates
                    .entry(r.decision.template.clone())
                    .or_default()
                    .entry(h)
                    .or_default());
            }
        }
        for (p, h) in &r.decision.patterns {
            f(self
                .templates
                .entry(p.clone())
                .or_default()
                .entry(h.clone())
                .or_default());
        }
        bound(&mut self.shapes, MAX_SHAPES);
        bound(&mut self.choices, MAX_CHOICES);
        bound(&mut self.templates, MAX_TEMPLATE_HOPS);
    }
}

/// A cut-off an adjective was seen to make on a property, each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cut {
    /// The right answers above the others.
    above: Side,
    /// The right answers below the others.
    below: Side,
}

/// One way of a cut-off: the closest values seen either side of it, and how many examples
/// agreed (separated that way) or did not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// The right answers' value nearest the cut (the smallest when above).
    inside: Option<f64>,
    /// The other nodes' value nearest the cut (the largest when above).
    outside: Option<f64>,
    agree: u64,
    conflicts: u64,
}

impl Side {
    fn add(&mut self, inside: &[f64], outside: &[f64], above: bool) {
        let near = |v: &[f64], largest: bool| {
            v.iter()
                .copied()
                .reduce(|a, b| if largest == (b > a) { b } else { a })
        };
        // Above: the smallest right value and the largest other one.
        let (i, o) = (near(inside, !above), near(outside, above));
        let separates = |i: f64, o: f64| if above { o < i } else { i < o };
        match (i, o) {
            (Some(i), Some(o)) if separates(i, o) => self.agree += 1,
            (Some(_), Some(_)) => self.conflicts += 1,
            _ => {}
        }
        let pick = |old: Option<f64>, new: Option<f64>, largest: bool| match (old, new) {
            (Some(a), Some(b)) => Some(if largest == (b > a) { b } else { a }),
            (a, b) => a.or(b),
        };
        self.inside = pick(self.inside, i, !above);
        self.outside = pick(self.outside, o, above);
    }

    /// Midway between the nearest right and other values, when every example separated them
    /// this way and they still do together.
    fn threshold(&self, above: bool) -> Option<f64> {
        let (i, o) = (self.inside?, self.outside?);
        let apart = if above { o < i } else { i < o };
        (self.agree > 0 && self.conflicts == 0 && apart).then_some((i + o) / 2.0)
    }
}

/// A node an adjective's feedback is about: its numeric properties, and whether it is among
/// the right answers.
pub type CutMember = (Vec<(String, f64)>, bool);

/// A cut-off learned for an adjective on a label (see [`Strategies::cut`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LearnedCut {
    pub property: String,
    /// The adjective keeps values above the threshold (else below).
    pub above: bool,
    pub threshold: f64,
    /// How many answers taught it.
    pub examples: u64,
}

/// Drops the least supported cut-offs until at most [`MAX_CUTS`] remain.
fn bound_cuts(map: &mut BTreeMap<String, BTreeMap<String, Cut>>) {
    let total: usize = map.values().map(BTreeMap::len).sum();
    if total <= MAX_CUTS {
        return;
    }
    let mut all: Vec<(u64, String, String)> = map
        .iter()
        .flat_map(|(w, m)| {
            m.iter().map(move |(k, c)| {
                let n = c.above.agree + c.above.conflicts + c.below.agree + c.below.conflicts;
                (n, w.clone(), k.clone())
            })
        })
        .collect();
    all.sort();
    for (_, w, k) in all.into_iter().take(total - MAX_CUTS) {
        if let Some(m) = map.get_mut(&w) {
            m.remove(&k);
            if m.is_empty() {
                map.remove(&w);
            }
        }
    }
}

fn bump(c: &mut Counts, correct: bool) {
    if correct {
        c.correct += 1;
    } else {
        c.wrong += 1;
    }
}

/// Drops the least used entries until at most `max` remain.
fn bound(map: &mut BTreeMap<String, BTreeMap<String, Counts>>, max: usize) {
    let total: usize = map.values().map(BTreeMap::len).sum();
    if total <= max {
        return;
    }
    let mut all: Vec<(u64, String, String)> = map
        .iter()
        .flat_map(|(a, m)| {
            m.iter()
                .map(move |(b, c)| (c.weight(), a.clone(), b.clone()))
        })
        .collect();
    all.sort();
    for (_, a, b) in all.into_iter().take(total - max) {
        if let Some(m) = map.get_mut(&a) {
            m.remove(&b);
            if m.is_empty() {
                map.remove(&a);
            }
        }
    }
}

/// A path's shape: its relation sequence as EXPLORE writes it ("children -> <spouse").
pub fn path_shape<S: ToString>(steps: &[S]) -> String {
    let steps: Vec<String> = steps.iter().map(ToString::to_string).collect();
    steps.join(" -> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(template: &str, hop: &str) -> Decision {
        Decision {
            qtype: "relation".into(),
            shape: hop.into(),
            template: template.into(),
            hops: vec![hop.into()],
            ..Default::default()
        }
    }

    /// A lesson belongs to the question shape it was learned on: refuting `<BORDER` for
    /// "through which states does # run" leaves "which states border #" as it was, and the
    /// record keeps both through a save.
    #[test]
    fn one_question_shape_does_not_overwrite_another() -> Result<(), StrategyError> {
        let mut s = Strategies::default();
        for _ in 0..3 {
            s.learn(decision("which states border #", "<BORDER"), true);
            s.learn(
                decision("through which states does # run", "<BORDER"),
                false,
            );
        }
        assert!(s.template_prior("which states border #", "<BORDER") > 0.9);
        assert!(s.template_prior("through which states does # run", "<BORDER") < -0.9);
        assert_eq!(s.template_prior("which rivers cross #", "<BORDER"), 0.0);
        let back = Strategies::decode(Some(&s.encode()?))?;
        assert!(back.template_prior("which states border #", "<BORDER") > 0.9);
        // A record written before question shapes were kept still reads.
        let old = br#"{"shapes":{},"choices":{}}"#;
        assert!(Strategies::decode(Some(old))?.is_empty());
        Ok(())
    }

    fn member(values: &[(&str, f64)], inside: bool) -> CutMember {
        (
            values.iter().map(|(p, v)| (p.to_string(), *v)).collect(),
            inside,
        )
    }

    /// A cut-off is the property every example separated one way, midway between the nearest
    /// values seen either side; a property one example does not separate is no cut, and two
    /// properties as well supported leave the word unread.
    #[test]
    fn a_cut_off_is_learned_from_right_answers_only_where_they_agree() -> Result<(), StrategyError>
    {
        let mut s = Strategies::default();
        s.learn_cut(
            "busy",
            "Port",
            &[
                member(&[("tonnage", 80.0), ("founded", 1700.0)], true),
                member(&[("tonnage", 30.0), ("founded", 1800.0)], false),
            ],
        );
        // One example: both properties separate it (tonnage above, founding year below).
        assert_eq!(s.cut("busy", "Port"), None);
        s.learn_cut(
            "busy",
            "Port",
            &[
                member(&[("tonnage", 60.0), ("founded", 1900.0)], true),
                member(&[("tonnage", 40.0), ("founded", 1750.0)], false),
                member(&[("tonnage", 10.0), ("founded", 1600.0)], false),
            ],
        );
        let cut = s.cut("busy", "Port");
        assert_eq!(
            cut.as_ref()
                .map(|c| (c.property.as_str(), c.above, c.threshold, c.examples)),
            Some(("tonnage", true, 50.0, 2))
        );
        assert_eq!(s.cut("busy", "City"), None);
        assert_eq!(s.cut("quiet", "Port"), None);
        // A right answer below another node: the word cuts no more on tonnage.
        s.learn_cut(
            "busy",
            "Port",
            &[
                member(&[("tonnage", 45.0)], true),
                member(&[("tonnage", 55.0)], false),
            ],
        );
        assert_eq!(s.cut("busy", "Port"), None);
        let back = Strategies::decode(Some(&s.encode()?))?;
        assert_eq!(back.cuts, s.cuts);
        Ok(())
    }
}
