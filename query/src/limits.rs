//! Every default and every hard cap of the language, in one place.
//!
//! `docs/LANGUAGE.md` repeats this table; a test checks that the two agree.

use std::time::Duration;

/// `BEAM` default: frontier nodes kept per round.
pub const DEFAULT_BEAM: u32 = 8;
/// `BEAM` hard cap.
pub const MAX_BEAM: u32 = 1024;

/// `DEPTH` default (hops from the nearest entry node) for a set of relations or `ANY`. With an
/// ordered path `VIA a -> b -> c` the default is the path's length, and with one named step
/// (`VIA R`) it is 1.
pub const DEFAULT_DEPTH: u32 = 3;
/// `DEPTH` hard cap; also the cap of the `depth n` condition.
pub const MAX_DEPTH: u32 = 16;

/// `BUDGET` default: node expansions the executor may spend.
pub const DEFAULT_BUDGET: u32 = 2000;
/// `BUDGET` hard cap; also the cap of the `steps n` condition.
pub const MAX_BUDGET: u32 = 1_000_000;

/// `FANOUT` default: neighbours of one node scored per expansion, per relation step. A hub's
/// longer list is thinned to an evenly spaced (deterministic) sample. A careful reader skims a
/// prolific author's thousand papers; scoring every one would cost more than the rest of the
/// search, so a latency-sensitive query keeps this default. Scoring cost grows linearly with
/// it: on the 1M-node benchmark graph, p50 of a beam-8 depth-3 query is about 1.5 ms at 1024
/// and 2.3 ms at 2048 (docs/BENCHMARKS.md).
pub const DEFAULT_FANOUT: u32 = 1024;
/// `FANOUT` hard cap, for queries that need completeness (every co-author of a prolific author).
/// Each neighbour kept is scored (its record, degree and vector loaded), so one expansion costs up
/// to this many scorings per step; the cap bounds that cost, as `BUDGET` bounds the expansions.
pub const MAX_FANOUT: u32 = 1_000_000;

/// `TOP k` default of a `SEARCH` entry (and of the implicit entry `SEARCH <goal>`).
pub const DEFAULT_SEARCH_TOP: u32 = 5;
/// `TOP k` hard cap.
pub const MAX_SEARCH_TOP: u32 = 1000;

/// `RETURN … LIMIT n` default.
pub const DEFAULT_LIMIT: u32 = 10;
/// `LIMIT` hard cap; also the cap of the `found n` condition.
pub const MAX_LIMIT: u32 = 10_000;

/// `RETURN COUNT` lists at most this many edges (summed over every hop and `MEET` side). The
/// count is exact or fails with an error naming this bound: the work grows with the edges
/// listed, and on a store view so does the memory (each node's listed edges are cached for the
/// statement). On the 1M-node benchmark graph a 3-hop count of a prolific author's co-authors'
/// papers lists about 10^5 edges.
pub const MAX_COUNT_EDGES: u64 = 20_000_000;

/// Default weights of `SCORE`: semantic (α), connectivity (β), distance (γ).
pub const DEFAULT_SCORE: (f64, f64, f64) = (0.5, 0.3, 0.2);

/// Default relation weight in `VIA` when none is written.
pub const DEFAULT_RELATION_WEIGHT: f64 = 1.0;

/// Threshold of `sufficient` when `>= x` is omitted; also the one in the default `UNTIL`.
pub const DEFAULT_SUFFICIENT: f64 = 0.8;
/// Rounds of `stale` in the default `UNTIL`.
pub const DEFAULT_STALE: u32 = 2;
/// Hard cap of `stale k`.
pub const MAX_STALE: u32 = 1000;

/// Hard time cap of every exploration (always on, whatever `UNTIL` says); also the cap of `time d`.
pub const MAX_TIME: Duration = Duration::from_secs(600);

/// Deepest nesting of parentheses (conditions) and brackets (lists) the parser accepts.
/// Bounds recursion, so that no input can overflow the stack.
pub const MAX_NESTING: usize = 32;
