//! Conjunctions: two marked entities whose paths must meet at the answers (the plan's `MEET`
//! clause), each constraint reading the words that go with its own mention.

use super::paths::{Cue, CueMatches};
use super::{Entity, Planner, Step};
use crate::walk::walk;
use crate::AgentError;
use cairn_storage_format::NodeId;
use cairn_store::Catalog;
use std::collections::HashSet;

impl<'g> Planner<'g> {
    /// The pair of paths, one from each entity, that the conjunction asks for (among the top
    /// 40 of each). The question's structure comes first: each path must read the words that
    /// go with its own mention as well as any candidate does (`structure`: per ranked path, how
    /// well it reads them, see [`constraint_words`]). Among those pairs the best-scoring one
    /// whose ends meet (a hop beyond one each costs 1.0, since both paths are scored on all the
    /// question's words); when none meets, the best of them all the same, since the
    /// intersection the question asks for is empty ("how many films directed by X star Y" is
    /// 0, not the count of films X stars in that Y directed). When the words say nothing about
    /// which mention takes which relation, any pair that meets; `None` when none does.
    pub(super) fn meeting_paths(
        &self,
        a: &Entity,
        a_ranked: &[(f64, Vec<Step>)],
        b: &Entity,
        b_ranked: &[(f64, Vec<Step>)],
        structure: &(Vec<f64>, Vec<f64>),
        catalog: &Catalog,
    ) -> Result<Option<PathPair>, AgentError> {
        const TOP: usize = 40;
        // The paths that read their own mention's words best (all of them when none does).
        let fitting = |reads: &[f64], n: usize| -> Vec<bool> {
            let best = reads.iter().take(n).copied().fold(0.0, f64::max);
            reads.iter().take(n).map(|r| *r >= best - 1e-9).collect()
        };
        let a_fit = fitting(&structure.0, TOP.min(a_ranked.len()));
        let b_fit = fitting(&structure.1, TOP.min(b_ranked.len()));
        let structured = structure.0.iter().chain(&structure.1).any(|r| *r > 0.0);
        let named: HashSet<NodeId> = a.nodes.iter().chain(&b.nodes).copied().collect();
        let view = cairn_exec::StoreView::new(self.graph, "");
        let ends = |e: &Entity, p: &[Step]| -> Result<HashSet<NodeId>, AgentError> {
            let (reached, _) = walk(&view, catalog, &e.nodes, p, 50_000)?;
            Ok(reached
                .into_iter()
                .map(|r| r.node)
                .filter(|n| !named.contains(n))
                .collect())
        };
        let a_ends: Vec<HashSet<NodeId>> = a_ranked
            .iter()
            .take(TOP)
            .map(|(_, p)| ends(a, p))
            .collect::<Result<_, _>>()?;
        let b_ends: Vec<HashSet<NodeId>> = b_ranked
            .iter()
            .take(TOP)
            .map(|(_, p)| ends(b, p))
            .collect::<Result<_, _>>()?;
        // Shorter constraints first: the two paths share the question's words.
        let score = |i: usize, j: usize| {
            let hops = a_ranked[i].1.len() + b_ranked[j].1.len();
            a_ranked[i].0 + b_ranked[j].0 - 1.0 * (hops - 2) as f64
        };
        let mut best: Option<(f64, usize, usize)> = None;
        let mut best_empty: Option<(f64, usize, usize)> = None;
        for (i, ea) in a_ends.iter().enumerate() {
            for (j, eb) in b_ends.iter().enumerate() {
                let fits = a_fit[i] && b_fit[j];
                if structured && !fits {
                    continue;
                }
                let s = score(i, j);
                let slot = if ea.is_disjoint(eb) {
                    &mut best_empty
                } else {
                    &mut best
                };
                if slot.is_none_or(|(b, _, _)| s > b + 1e-9) {
                    *slot = Some((s, i, j));
                }
            }
        }
        let chosen = if structured {
            best.or(best_empty)
        } else {
            best
        };
        Ok(chosen.map(|(_, i, j)| (a_ranked[i].1.clone(), b_ranked[j].1.clone())))
    }
}

/// Two paths whose ends meet: from the main entity, and from the conjunct.
pub(super) type PathPair = (Vec<Step>, Vec<Step>);

/// The cues (indices) that go with each of two mentions in a conjunction: a word goes with the
/// mention nearer to it in the question, and a word as near to both with the one it precedes,
/// since English puts a constraint's verb or preposition before its object ("films *directed*
/// by X *star* Y", "plays at *position* Defender for *country* Russia", "X *players* at *club*
/// Y").
pub(super) fn constraint_words(
    cues: &[Cue<'_>],
    a: &Entity,
    b: &Entity,
) -> (Vec<usize>, Vec<usize>) {
    // Distance from a word to a mention, and whether the word precedes it.
    let distance = |at: usize, e: &Entity| {
        if at < e.span.0 {
            (e.span.0 - at, 0)
        } else {
            (at + 1 - e.span.1, 1)
        }
    };
    let (mut own_a, mut own_b) = (Vec::new(), Vec::new());
    for (ci, c) in cues.iter().enumerate() {
        if distance(c.at, a) <= distance(c.at, b) {
            own_a.push(ci);
        } else {
            own_b.push(ci);
        }
    }
    (own_a, own_b)
}

/// One-step paths the schema allows from `entity` (towards `target`) through a relation that a
/// cue of its own names best, when the data holds no such path from it: the constraint the
/// question states then selects nothing ("films X stars in" when X stars in none), which
/// must not be read as another relation that happens to have edges. Scored below every path
/// of `ranked`.
pub(super) fn schema_steps(
    entity: &Entity,
    target: Option<&str>,
    own: &[usize],
    matches: &CueMatches,
    ranked: &[(f64, Vec<Step>)],
    catalog: &Catalog,
) -> Vec<(f64, Vec<Step>)> {
    let label = catalog.label_id(&entity.label);
    let target = target.and_then(|t| catalog.label_id(t));
    let low = ranked.iter().map(|(s, _)| *s).fold(0.0, f64::min) - 1.0;
    let mut out: Vec<(f64, Vec<Step>)> = Vec::new();
    for ci in own {
        let best = matches
            .values()
            .filter_map(|m| m.get(*ci))
            .map(|m| m.0)
            .fold(0.0, f64::max);
        if best <= 0.0 {
            continue;
        }
        for (_, r) in catalog.relations() {
            let named = matches
                .get(&r.name)
                .and_then(|m| m.get(*ci))
                .is_some_and(|m| m.0 >= best - 1e-9);
            let in_data = ranked
                .iter()
                .any(|(_, p)| p.iter().any(|s| s.relation == r.name));
            if !named || in_data {
                continue;
            }
            for (src, dst) in &r.endpoints {
                for (from, to, reversed) in [(*src, *dst, false), (*dst, *src, true)] {
                    if Some(from) != label || target.is_some_and(|t| t != to) {
                        continue;
                    }
                    let steps = vec![Step {
                        relation: r.name.clone(),
                        reversed,
                    }];
                    if !out.iter().any(|(_, p)| *p == steps) {
                        out.push((low, steps));
                    }
                }
            }
        }
    }
    out
}

/// How well a path reads the cues `own`: each cue's best match among its relations.
pub(super) fn own_words_read(steps: &[Step], own: &[usize], matches: &CueMatches) -> f64 {
    own.iter()
        .map(|ci| {
            steps
                .iter()
                .filter_map(|s| matches.get(&s.relation).and_then(|m| m.get(*ci)))
                .map(|m| m.0)
                .fold(0.0, f64::max)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::paths::cues;
    use crate::planner::paths::tests::mention;
    use crate::planner::words::question_words;
    use crate::planner::Word;
    use std::collections::HashSet;

    #[test]
    fn each_word_goes_with_the_nearer_mention_and_a_tie_with_the_one_it_precedes() {
        // films directed by A star B: "directed" with A, "star" between (as near to both) with B.
        let words = question_words("films directed by A star B");
        let (a, b) = (mention((3, 4)), mention((5, 6)));
        let free: Vec<(usize, &Word)> = words
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 3 && *i != 5)
            .collect();
        let cues = cues(&free, &words, &a, &HashSet::new());
        let (own_a, own_b) = constraint_words(&cues, &a, &b);
        let names = |own: &[usize]| -> Vec<String> {
            let mut v: Vec<String> = own.iter().map(|c| cues[*c].word.norm.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(names(&own_a), ["directed", "films"]);
        assert_eq!(names(&own_b), ["star"]);
    }
}
