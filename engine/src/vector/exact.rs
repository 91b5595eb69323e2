//! Distance kernel and exact (brute-force) top-k, the ground truth for recall and the fallback for
//! very selective label filters.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Dot product of two equal-length vectors (cosine for unit vectors). Sixteen independent
/// accumulators in fixed-size chunks are the shape LLVM turns into SIMD without `unsafe` intrinsics
/// (measured: 2x faster than a version with a separate tail sum; see docs/VECTOR.md).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// A candidate ordered by score; `BinaryHeap<Scored>` is a max-heap on score.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scored {
    pub score: f32,
    pub slot: u32,
}

impl PartialEq for Scored {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scored {
    fn cmp(&self, o: &Self) -> Ordering {
        // ties broken by slot so results are deterministic
        self.score
            .total_cmp(&o.score)
            .then_with(|| o.slot.cmp(&self.slot))
    }
}

/// Min-heap wrapper: the worst of the current best k on top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Worst(pub std::cmp::Reverse<Scored>);

/// Exact top-k over the slots yielded by `slots`, best first.
pub(crate) fn top_k<'a>(
    query: &[f32],
    k: usize,
    slots: impl Iterator<Item = (u32, &'a [f32])>,
) -> Vec<Scored> {
    if k == 0 {
        return Vec::new();
    }
    let mut heap: BinaryHeap<Worst> = BinaryHeap::with_capacity(k + 1);
    for (slot, v) in slots {
        let c = Scored {
            score: dot(query, v),
            slot,
        };
        if heap.len() < k {
            heap.push(Worst(std::cmp::Reverse(c)));
        } else if let Some(top) = heap.peek() {
            if c > top.0 .0 {
                heap.pop();
                heap.push(Worst(std::cmp::Reverse(c)));
            }
        }
    }
    let mut out: Vec<Scored> = heap.into_iter().map(|w| w.0 .0).collect();
    out.sort_by(|a, b| b.cmp(a));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive() {
        for n in [0usize, 1, 7, 16, 17, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-4, "n={n}");
        }
    }

    #[test]
    fn top_k_orders_and_truncates() {
        let vs: Vec<Vec<f32>> = (0..10).map(|i| vec![i as f32, 1.0]).collect();
        let got = top_k(
            &[1.0, 0.0],
            3,
            vs.iter().enumerate().map(|(i, v)| (i as u32, v.as_slice())),
        );
        let slots: Vec<u32> = got.iter().map(|s| s.slot).collect();
        assert_eq!(slots, vec![9, 8, 7]);
        assert!(top_k(&[1.0, 0.0], 0, std::iter::empty()).is_empty());
    }
}
