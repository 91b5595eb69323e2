//! `RETURN COUNT`: the exact number of distinct nodes a pattern ends at, by the exhaustive walk
//! ([`crate::walk`]) of each side — never a beam, a budget, a fan-out sample or a `LIMIT`.
//!
//! The counted set is the one `RETURN NODES` draws its results from for the same plan: the
//! nodes at the end of the ordered `VIA` path (or, with `MEET`, reached by every side), never an
//! entry of any side, of a `TARGET` label when given, passing every `WHERE` filter. A relation
//! set (`VIA A, B`) counts, as a `MEET` side does, every node within `DEPTH` hops other than
//! the entries.

use super::*;
use crate::walk::{walk, WalkBounds, WalkCut, WalkShape, WalkStep};
use cairn_query::limits::MAX_COUNT_EDGES;
use cairn_query::ViaPlan;

/// Records are read for `WHERE` checks this many at a time.
const RECORD_CHUNK: usize = 4096;

impl Run<'_, '_> {
    /// Counts the plan's matches (see the module docs).
    pub(super) fn count(&mut self, cancel: &CancelToken) -> Result<u64, ExploreError> {
        let plan = self.plan;
        let mut spent = 0u64;
        let main_entries = self.entries(&plan.entries)?;
        let mut entry_set: HashSet<NodeId> = main_entries.iter().copied().collect();
        let mut ends = self.walk_side(&main_entries, &plan.via, cancel, &mut spent)?;
        for side in &plan.meet {
            if ends.is_empty() {
                break;
            }
            let entries = self.entries(&side.entries)?;
            entry_set.extend(entries.iter().copied());
            let mut other = self.walk_side(&entries, &side.via, cancel, &mut spent)?;
            other.sort_unstable();
            ends.retain(|n| other.binary_search(n).is_ok());
        }
        ends.retain(|n| !entry_set.contains(n));
        if !plan.targets.is_empty() {
            let mut labels = Vec::with_capacity(ends.len());
            self.ex.table.labels_into(&ends, &mut labels)?;
            let mut keep = labels
                .into_iter()
                .map(|l| l.is_some_and(|l| plan.targets.iter().any(|t| t.id == l)));
            ends.retain(|_| keep.next().unwrap_or(false));
        }
        if plan.filters.is_empty() {
            return Ok(ends.len() as u64);
        }
        let mut n = 0u64;
        for chunk in ends.chunks(RECORD_CHUNK) {
            for rec in self.ex.graph.nodes(chunk)?.into_iter().flatten() {
                if plan.filters.iter().all(|f| passes(f, &rec)) {
                    n += 1;
                }
            }
        }
        Ok(n)
    }

    /// The distinct end nodes of one side's walk; `spent` counts the edges listed so far by the
    /// whole statement, which [`MAX_COUNT_EDGES`] bounds.
    fn walk_side(
        &mut self,
        entries: &[NodeId],
        via: &ViaPlan,
        cancel: &CancelToken,
        spent: &mut u64,
    ) -> Result<Vec<NodeId>, ExploreError> {
        let steps: Vec<WalkStep> = via
            .steps
            .iter()
            .map(|s| WalkStep {
                rels: s.relation.iter().map(|r| r.id).collect(),
                direction: engine_dir(s.direction),
            })
            .collect();
        // A step of weight 0 is switched off (as in the search): a path through it ends nowhere.
        let off: Vec<bool> = via.steps.iter().map(|s| s.weight <= 0.0).collect();
        let shape = match via.mode {
            ViaMode::Path => {
                if off.iter().any(|o| *o) {
                    return Ok(Vec::new());
                }
                WalkShape::Path
            }
            ViaMode::Set => WalkShape::Set {
                depth: self.plan.depth,
            },
        };
        let steps: Vec<WalkStep> = steps
            .into_iter()
            .zip(&off)
            .filter(|(_, o)| !**o)
            .map(|(s, _)| s)
            .collect();
        let cancelled = || cancel.is_cancelled();
        let bounds = WalkBounds {
            max_edges: MAX_COUNT_EDGES - *spent,
            deadline: Some(self.started + self.plan.time_cap),
            cancelled: Some(&cancelled),
        };
        let walked = walk(self.ex.table, entries, &steps, shape, false, bounds)?;
        *spent += walked.edges;
        self.stats.edges_scanned += walked.edges;
        self.stats.rounds += 1;
        match walked.cut {
            None => Ok(walked.end_nodes()),
            Some(WalkCut::Edges) => Err(ExploreError::CountTooLarge {
                limit: MAX_COUNT_EDGES,
            }),
            Some(WalkCut::Time) => Err(ExploreError::CountCut(StopReason::TimeCap)),
            Some(WalkCut::Cancelled) => Err(ExploreError::CountCut(StopReason::Cancelled)),
        }
    }
}
