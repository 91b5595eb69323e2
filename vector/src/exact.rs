//! Exact (brute-force) top-k, the ground truth for recall and the fallback for
//! very selective label filters.

use cairn_embed::dot;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

/// The best `k` candidates offered so far.
#[derive(Debug)]
pub(crate) struct TopK {
    k: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    pub(crate) fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
        }
    }

    pub(crate) fn offer(&mut self, c: Scored) {
        if self.heap.len() < self.k {
            self.heap.push(Worst(std::cmp::Reverse(c)));
        } else if let Some(top) = self.heap.peek() {
            if c > top.0 .0 {
                self.heap.pop();
                self.heap.push(Worst(std::cmp::Reverse(c)));
            }
        }
    }

    /// Best first.
    pub(crate) fn into_sorted(self) -> Vec<Scored> {
        let mut out: Vec<Scored> = self.heap.into_iter().map(|w| w.0 .0).collect();
        out.sort_by(|a, b| b.cmp(a));
        out
    }
}

/// Exact top-k over the slots yielded by `slots`, best first.
pub(crate) fn top_k<'a>(
    query: &[f32],
    k: usize,
    slots: impl Iterator<Item = (u32, &'a [f32])>,
) -> Vec<Scored> {
    let mut top = TopK::new(k);
    if k == 0 {
        return Vec::new();
    }
    for (slot, v) in slots {
        top.offer(Scored {
            score: dot(query, v),
            slot,
        });
    }
    top.into_sorted()
}

#[cfg(test)]
mod tests {
    use super::*;

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
