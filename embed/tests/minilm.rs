//! all-MiniLM-L6-v2 against reference vectors from an independent numpy implementation
//! (tests/fixtures/minilm_reference.py). Needs the model files: with the `minilm` feature on, a missing
//! `CAIRN_MINILM_DIR` fails loudly instead of skipping.
//!
//!   export CAIRN_MINILM_DIR="$(bash scripts/fetch-minilm.sh)"
//!   cargo test -p cairn-embed --features minilm --test minilm
#![cfg(feature = "minilm")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_embed::{cosine, Embedder, MiniLmEmbedder, MINILM_DIR_ENV};
use std::time::Instant;

fn model() -> MiniLmEmbedder {
    let Some(dir) = std::env::var_os(MINILM_DIR_ENV) else {
        panic!(
            "{MINILM_DIR_ENV} is not set. The minilm feature's tests need the model files: \
             export {MINILM_DIR_ENV}=\"$(bash scripts/fetch-minilm.sh)\""
        );
    };
    MiniLmEmbedder::load(std::path::Path::new(&dir))
        .unwrap_or_else(|e| panic!("cannot load MiniLM from {MINILM_DIR_ENV}={dir:?}: {e}"))
}

fn reference() -> Vec<(String, Vec<f32>)> {
    let v: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/minilm_reference.json")).unwrap();
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let vec = i["vector"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            (i["text"].as_str().unwrap().to_owned(), vec)
        })
        .collect()
}

#[test]
fn reproduces_reference_vectors() {
    let m = model();
    let refs = reference();
    assert_eq!(refs.len(), 5);
    let texts: Vec<&str> = refs.iter().map(|(t, _)| t.as_str()).collect();
    let got = m.embed_batch(&texts).unwrap();
    for ((text, want), got) in refs.iter().zip(&got) {
        assert_eq!(got.len(), 384);
        let worst = want
            .iter()
            .zip(got)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst <= 1e-4, "{text:?}: max component difference {worst}");
    }
    // single and batched calls agree
    assert!(m
        .embed(texts[2])
        .unwrap()
        .iter()
        .zip(&got[2])
        .all(|(a, b)| (a - b).abs() < 1e-6));
    assert_eq!(m.id(), "sentence-transformers/all-MiniLM-L6-v2");
}

/// Sentences of very different lengths (one past the 256-token truncation) embedded in one batch
/// give the same vectors as one at a time: packing them into one forward must not let them see
/// each other.
#[test]
fn batch_of_mixed_lengths_matches_single_sentences() {
    let m = model();
    let long = "graph ".repeat(300);
    let texts = [
        "x",
        "Paper: Learning community detection for unsupervised community detection.",
        long.as_str(),
        "",
        "A man is eating food.",
    ];
    let batch = m.embed_batch(&texts).unwrap();
    assert_eq!(batch.len(), texts.len());
    for (text, got) in texts.iter().zip(&batch) {
        let single = m.embed(text).unwrap();
        let worst = single
            .iter()
            .zip(got)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            worst < 1e-5,
            "{:?}: max component difference {worst}",
            &text[..text.len().min(20)]
        );
    }
}

#[test]
fn paraphrases_score_above_unrelated_pairs() {
    let m = model();
    let v = m
        .embed_batch(&[
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "Graph neural networks learn node representations.",
            "Neural networks on graphs learn embeddings of vertices.",
            "The medieval poet wrote about courtly love.",
        ])
        .unwrap();
    let para = [cosine(&v[0], &v[1]), cosine(&v[2], &v[3])];
    let unrelated = [
        cosine(&v[0], &v[2]),
        cosine(&v[0], &v[4]),
        cosine(&v[2], &v[4]),
        cosine(&v[1], &v[3]),
    ];
    let (lo, hi) = (
        para.iter().fold(1.0f32, |a, b| a.min(*b)),
        unrelated.iter().fold(-1.0f32, |a, b| a.max(*b)),
    );
    assert!(
        lo > hi + 0.3,
        "paraphrases {para:?} vs unrelated {unrelated:?}"
    );
    // the same figure candle gave on this model (BUILD-NOTES): a third implementation agrees
    assert!((para[0] - 0.755).abs() < 0.002, "{}", para[0]);
}

/// Throughput figure for docs/VECTOR.md: `cargo test --release --features minilm --test minilm -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let m = model();
    let texts: Vec<String> = (0..256)
        .map(|i| format!("Paper {i} studies graph neural networks for link prediction in citation graph number {}", i * 7))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // CPU seconds of the process: robust to other load on a shared machine
    let cpu = || {
        let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let f: Vec<f64> = s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(|x| x.parse().unwrap_or(0.0))
            .collect();
        (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
    };
    for batch in [1usize, 32, 256] {
        let (t, c) = (Instant::now(), cpu());
        let mut n = 0;
        for c in refs.chunks(batch).take(match batch {
            1 => 64,
            32 => 8,
            _ => 1,
        }) {
            n += m.embed_batch(c).unwrap().len();
        }
        let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
        println!(
            "{{\"embedder\":\"minilm\",\"batch\":{batch},\"sentences\":{n},\"sentences_per_s\":{:.1},\"sentences_per_cpu_s\":{:.1},\"threads\":{}}}",
            n as f64 / s,
            n as f64 / c,
            std::thread::available_parallelism().map_or(1, |t| t.get())
        );
    }
}
