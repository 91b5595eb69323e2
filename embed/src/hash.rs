//! Model-free embedder: signed feature hashing of words, word bigrams and character trigrams.

use crate::{finish, EmbedError, Embedder};

/// Deterministic embedder that needs no model files: lower-cased words, adjacent word pairs and
/// character trigrams of each word are hashed (FNV-1a, fixed seeds, so vectors never change between
/// builds or machines) into `dim` signed buckets with sub-linear term weights, then L2-normalised.
///
/// It captures lexical overlap, not meaning: "graph neural networks" is near "neural graph learning"
/// (shared words) and far from "medieval poetry", and trigrams make "network"/"networks" close. That is
/// enough for tests and for data whose descriptions share vocabulary with the queries.
#[derive(Debug, Clone)]
pub struct HashEmbedder {
    dim: usize,
    id: String,
}

/// Default dimension: the same as all-MiniLM-L6-v2, so index tuning carries over.
pub const DEFAULT_HASH_DIM: usize = 384;

const WORD_WEIGHT: f32 = 1.0;
const BIGRAM_WEIGHT: f32 = 0.5;
const TRIGRAM_WEIGHT: f32 = 0.35;

impl HashEmbedder {
    /// An embedder producing `dim`-dimensional vectors (`dim` ≥ 8; smaller values are raised to 8).
    pub fn new(dim: usize) -> Self {
        let dim = dim.max(8);
        HashEmbedder {
            dim,
            id: format!("cairn-hash-v1/{dim}"),
        }
    }

    fn features(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dim];
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut add = |kind: u8, parts: &[&str], w: f32| {
            let h = fnv1a(kind, parts);
            // low bits pick the bucket, a high bit the sign, so collisions cancel on average
            let bucket = (h % self.dim as u64) as usize;
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            if let Some(slot) = v.get_mut(bucket) {
                *slot += sign * w;
            }
        };
        for w in &words {
            add(b'w', &[w], WORD_WEIGHT);
            let padded: Vec<char> = format!("<{w}>").chars().collect();
            let mut buf = String::new();
            for tri in padded.windows(3) {
                buf.clear();
                buf.extend(tri);
                add(b'c', &[&buf], TRIGRAM_WEIGHT);
            }
        }
        for pair in words.windows(2) {
            add(b'b', &[&pair[0], &pair[1]], BIGRAM_WEIGHT);
        }
        if words.is_empty() {
            // every text gets a unit vector, even an empty one
            add(b'e', &[], 1.0);
        }
        // sub-linear term frequency: repeated words should not dominate
        v.iter_mut().for_each(|x| *x = x.signum() * x.abs().sqrt());
        v
    }
}

impl Default for HashEmbedder {
    fn default() -> Self {
        HashEmbedder::new(DEFAULT_HASH_DIM)
    }
}

impl Embedder for HashEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts
            .iter()
            .map(|t| {
                let v = self.features(t);
                // bucket sums of non-empty feature sets can still cancel to zero: fall back to a fixed
                // feature so the result is always a unit vector
                finish(&self.id, self.dim, v).or_else(|_| {
                    let mut v = vec![0.0; self.dim];
                    let bucket = (fnv1a(b'z', &[t]) % self.dim as u64) as usize;
                    if let Some(slot) = v.get_mut(bucket) {
                        *slot = 1.0;
                    }
                    finish(&self.id, self.dim, v)
                })
            })
            .collect()
    }
}

/// 64-bit FNV-1a over a feature kind and its parts (separated, so ("ab","c") ≠ ("a","bc")).
fn fnv1a(kind: u8, parts: &[&str]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(PRIME);
    };
    eat(kind);
    for p in parts {
        p.bytes().for_each(&mut eat);
        eat(0xff);
    }
    // FNV's high bits mix poorly; a final avalanche (from SplitMix64) spreads them
    let mut z = h;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::cosine;

    #[test]
    fn unit_length_and_deterministic() {
        let e = HashEmbedder::default();
        let texts = ["graph neural networks", "", "   ", "x", "Ünïcödé wörds ok"];
        let a = e.embed_batch(&texts).unwrap();
        let b = e.embed_batch(&texts).unwrap();
        assert_eq!(a, b);
        for v in &a {
            assert_eq!(v.len(), 384);
            let n: f32 = v.iter().map(|x| x * x).sum();
            assert!((n - 1.0).abs() < 1e-5, "norm² {n}");
        }
        assert_eq!(e.id(), "cairn-hash-v1/384");
    }

    #[test]
    fn related_texts_are_nearer() {
        let e = HashEmbedder::default();
        let gnn = e.embed("graph neural networks").unwrap();
        let ngl = e.embed("neural graph learning").unwrap();
        let poetry = e.embed("medieval poetry").unwrap();
        let net = e.embed("a graph neural network").unwrap();
        assert!(cosine(&gnn, &ngl) > cosine(&gnn, &poetry) + 0.2);
        assert!(cosine(&gnn, &net) > cosine(&gnn, &ngl));
    }

    /// Pins the exact output so a change of hashing (which would make stored vectors incomparable with
    /// new query vectors) cannot slip in without a new id.
    #[test]
    fn output_is_pinned() {
        let v = HashEmbedder::new(16).embed("Cairn graph").unwrap();
        let rounded: Vec<i32> = v.iter().map(|x| (x * 1000.0).round() as i32).collect();
        assert_eq!(rounded, PINNED);
    }

    const PINNED: [i32; 16] = [
        0, 276, 276, 0, -276, -276, 181, 0, 0, -542, 466, 0, 0, -276, 0, 276,
    ];
}
