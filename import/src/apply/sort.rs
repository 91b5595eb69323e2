//! Sorting resolved edges by node: a radix sort by the new nodes' dense ids, on every core.

use super::{workers, EdgeIn};
use cairn_storage_format::NodeId;
use std::ops::Range;

/// Edges below which a bucket is sorted on one thread.
const PARALLEL_SORT_MIN: usize = 1 << 18;

/// [`sort_edges`] on every core: the edges are split by node into one contiguous range of the
/// new ids per core (existing nodes, which sort first, go with the first), each picked out and
/// sorted on its own thread. The sorted parts are returned in order, not joined: each becomes
/// its own file, and joining them copied every bucket once more on one core. Sorting a
/// 5M-node import's buckets on one thread left the other core idle for most of the write
/// phase. The ranges hold equal numbers of edges, not of ids: the in-edges of a dump's few
/// topics and venues (a quarter of its edges, on a few hundred consecutive ids) made one range
/// hold nearly all of a bucket.
pub(super) fn sort_edges_parallel<K: Ord>(
    edges: Vec<EdgeIn>,
    new: &Range<u64>,
    node: impl Fn(&EdgeIn) -> NodeId + Sync,
    rest: impl Fn(&EdgeIn) -> K + Sync,
) -> Vec<Vec<EdgeIn>> {
    let ids = new.end.saturating_sub(new.start);
    let parts = (workers() as u64).min(ids);
    if edges.len() < PARALLEL_SORT_MIN || parts < 2 {
        return vec![sort_edges(edges, new, node, rest)];
    }
    let (ends, counts) = balanced_ranges(&edges, new, &node, parts as usize);
    let (node, rest, ends) = (&node, &rest, &ends);
    // Each thread picks out its range's edges; the bucket is freed before the sorts, whose
    // scratch copies would otherwise be a third copy of it.
    let split: Vec<(Range<u64>, Vec<EdgeIn>)> = std::thread::scope(|s| {
        let edges = &edges;
        let handles: Vec<_> = (0..ends.len())
            .map(|p| {
                let count = counts.get(p).copied().unwrap_or(0) as usize;
                s.spawn(move || {
                    let start = match p {
                        0 => new.start,
                        _ => ends.get(p - 1).copied().unwrap_or(new.end),
                    };
                    let end = ends.get(p).copied().unwrap_or(new.end);
                    // Ids below the new range (existing nodes) belong to the first part, any
                    // past it to the last, as in the histogram.
                    let last = p + 1 == ends.len();
                    let mine = |id: u64| (p == 0 || id >= start) && (last || id < end);
                    let mut part = Vec::with_capacity(count);
                    part.extend(edges.iter().filter(|e| mine(node(e).0)).copied());
                    (start..end, part)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    drop(edges);
    std::thread::scope(|s| {
        let handles: Vec<_> = split
            .into_iter()
            .map(|(range, part)| s.spawn(move || sort_edges(part, &range, node, rest)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// The ends of `parts` consecutive ranges of `new` (the last ends at `new.end`) holding about
/// equal numbers of `edges` by `node`, from a histogram of at most 2^16 slices of the ids;
/// edges of existing nodes count for the first.
fn balanced_ranges(
    edges: &[EdgeIn],
    new: &Range<u64>,
    node: &impl Fn(&EdgeIn) -> NodeId,
    parts: usize,
) -> (Vec<u64>, Vec<u64>) {
    let ids = new.end.saturating_sub(new.start);
    let shift = (u64::BITS - ids.leading_zeros()).saturating_sub(16);
    let slices = (ids >> shift) as usize + 1;
    let mut counts = vec![0u64; slices];
    for e in edges {
        let slice = (node(e).0.saturating_sub(new.start) >> shift) as usize;
        if let Some(c) = counts.get_mut(slice.min(slices - 1)) {
            *c += 1;
        }
    }
    let total = edges.len() as u64;
    let mut ends = Vec::with_capacity(parts);
    let mut sizes = Vec::with_capacity(parts);
    let (mut seen, mut before) = (0u64, 0u64);
    for (slice, c) in counts.iter().enumerate() {
        seen += c;
        if ends.len() + 1 < parts && seen * parts as u64 >= total * (ends.len() as u64 + 1) {
            let end = new.start + ((slice as u64 + 1) << shift);
            ends.push(end.min(new.end));
            sizes.push(seen - before);
            before = seen;
        }
    }
    while ends.len() < parts {
        ends.push(new.end);
        sizes.push(total - before);
        before = total;
    }
    if let Some(last) = ends.last_mut() {
        *last = new.end;
    }
    (ends, sizes)
}

/// Sorts `edges` by `(node(e), rest(e))`, stably.
///
/// Edges of the import's new nodes (`new`, a dense id range) are ordered by node with an LSD
/// radix sort: a few linear passes, each stable and scattering to at most 2^11 places at once,
/// so that the places written stay in cache (a one-pass counting sort over a million nodes
/// writes every edge to a random place and is several times slower). Then each node's few
/// edges are sorted by `rest`. Edges of existing nodes (lower ids, usually few) are sorted by
/// comparison and come first.
fn sort_edges<K: Ord>(
    mut edges: Vec<EdgeIn>,
    new: &Range<u64>,
    node: impl Fn(&EdgeIn) -> NodeId,
    rest: impl Fn(&EdgeIn) -> K,
) -> Vec<EdgeIn> {
    const MAX_RADIX_BITS: u32 = 11;
    // Bucket 0 holds existing nodes, bucket 1 + i the new node `new.start + i`.
    let bucket = |e: &EdgeIn| {
        let id = node(e).0;
        if new.contains(&id) {
            (id - new.start) as usize + 1
        } else {
            0
        }
    };
    let top = (new.end - new.start) as usize;
    let bits = usize::BITS - top.leading_zeros();
    let passes = bits.div_ceil(MAX_RADIX_BITS);
    if passes > 0 && edges.len() > 1 {
        let width = bits.div_ceil(passes);
        let mask = (1usize << width) - 1;
        let mut scratch = edges.clone();
        for pass in 0..passes {
            let digit = |e: &EdgeIn| (bucket(e) >> (pass * width)) & mask;
            let mut next = vec![0usize; mask + 2];
            for e in &edges {
                next[digit(e) + 1] += 1;
            }
            for d in 1..next.len() {
                next[d] += next[d - 1];
            }
            for e in &edges {
                let d = digit(e);
                scratch[next[d]] = *e;
                next[d] += 1;
            }
            std::mem::swap(&mut edges, &mut scratch);
        }
    }
    let old = edges.partition_point(|e| bucket(e) == 0);
    let (old, new) = edges.split_at_mut(old);
    old.sort_by_key(|e| (node(e), rest(e)));
    for run in new.chunk_by_mut(|a, b| node(a) == node(b)) {
        if run.len() > 1 {
            run.sort_by_key(&rest);
        }
    }
    edges
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use cairn_storage_format::RelId;

    /// The radix sort agrees with a stable comparison sort, for ids of existing nodes (below
    /// the range) and of new ones, over ranges needing one, two and three passes.
    #[test]
    fn sort_edges_is_a_stable_sort_by_node_then_rest() {
        let mut next = crate::test_numbers(7);
        for new_nodes in [1u64, 5, 3000, 5_000_000] {
            let new = 1000..1000 + new_nodes;
            let edges: Vec<EdgeIn> = (0..20_000u32)
                .map(|i| {
                    let id = |next: &mut dyn FnMut(u64) -> u64| {
                        if next(4) == 0 {
                            NodeId(next(1000))
                        } else {
                            NodeId(new.start + next(new_nodes.min(500)) * (new_nodes / 500).max(1))
                        }
                    };
                    EdgeIn {
                        src: id(&mut next),
                        dst: id(&mut next),
                        rel: RelId(next(3) as u32),
                        props: i,
                    }
                })
                .collect();
            let mut expected = edges.clone();
            expected.sort_by_key(|e| (e.dst, e.rel, e.src));
            let key = |e: &EdgeIn| (e.dst, e.rel, e.src, e.props);
            let expected: Vec<_> = expected.iter().map(key).collect();
            let sorted = sort_edges(edges.clone(), &new, |e| e.dst, |e| (e.rel, e.src));
            assert_eq!(
                sorted.iter().map(key).collect::<Vec<_>>(),
                expected,
                "{new_nodes} new nodes"
            );
            // Split over the cores (the edges repeated past the parallel threshold).
            let many: Vec<EdgeIn> =
                std::iter::repeat_n(&edges, PARALLEL_SORT_MIN / edges.len() + 1)
                    .flatten()
                    .copied()
                    .collect();
            let mut expected = many.clone();
            expected.sort_by_key(|e| (e.dst, e.rel, e.src));
            let parts = sort_edges_parallel(many, &new, |e| e.dst, |e| (e.rel, e.src));
            assert!(parts.len() <= workers());
            assert_eq!(
                parts.iter().flatten().map(key).collect::<Vec<_>>(),
                expected.iter().map(key).collect::<Vec<_>>(),
                "{new_nodes} new nodes, in parallel"
            );
        }
    }
}
