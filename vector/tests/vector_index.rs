//! HNSW index behaviour the store relies on: filtered search fills k, deletes never resurface, and a
//! missing/stale/damaged index file is detected so the store rebuilds one that answers the same.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{LabelId, NodeId};
use cairn_vector::{index_path, FileIndex, HnswParams, Stamp, VectorError, VectorIndex};
use std::collections::HashSet;

/// Clustered vectors (like embeddings): `clusters` random centres plus noise, deterministic.
fn clustered(n: usize, dim: usize, clusters: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // roughly normal: sum of uniforms
        (0..4)
            .map(|i| ((s.rotate_left(16 * i) >> 40) as f32 / (1u64 << 24) as f32) - 0.5)
            .sum::<f32>()
    };
    let centres: Vec<Vec<f32>> = (0..clusters)
        .map(|_| (0..dim).map(|_| rnd()).collect())
        .collect();
    (0..n)
        .map(|i| {
            let c = &centres[i % clusters];
            c.iter().map(|x| x + 0.6 * rnd()).collect()
        })
        .collect()
}

fn label_of(i: usize) -> LabelId {
    // label 1: 1% of nodes, label 2: 9%, label 0: the rest
    match i % 100 {
        0 => LabelId(1),
        1..=9 => LabelId(2),
        _ => LabelId(0),
    }
}

fn items(vs: &[Vec<f32>]) -> Vec<(NodeId, LabelId, Vec<f32>)> {
    vs.iter()
        .enumerate()
        .map(|(i, v)| (NodeId(i as u64), label_of(i), v.clone()))
        .collect()
}

fn ids(hits: &[cairn_vector::Hit]) -> Vec<u64> {
    hits.iter().map(|h| h.node.0).collect()
}

#[test]
fn recall_against_exact_search() {
    let vs = clustered(4000, 48, 40, 1);
    let idx = VectorIndex::build(48, HnswParams::default(), items(&vs)).unwrap();
    let queries = clustered(100, 48, 40, 2);
    let mut hits = 0;
    for q in &queries {
        let want: HashSet<u64> = ids(&idx.exact_search(q, 10, None).unwrap())
            .into_iter()
            .collect();
        let got = idx.search(q, 10, 64).unwrap();
        assert_eq!(got.len(), 10);
        assert!(
            got.windows(2).all(|w| w[0].score >= w[1].score),
            "sorted best first"
        );
        hits += got.iter().filter(|h| want.contains(&h.node.0)).count();
    }
    let recall = hits as f64 / 1000.0;
    assert!(recall >= 0.95, "recall@10 {recall}");
}

#[test]
fn filtered_search_fills_k() {
    let vs = clustered(5000, 32, 25, 3);
    for exact_filter_max in [2_000, 0] {
        // 0 forces the graph walk even for the 1% label, exercising its exact fallback
        let params = HnswParams {
            exact_filter_max,
            ..HnswParams::default()
        };
        let idx = VectorIndex::build(32, params, items(&vs)).unwrap();
        assert_eq!(idx.label_count(LabelId(1)), 50);
        let queries = clustered(30, 32, 25, 4);
        let (mut found, mut total) = (0, 0);
        for q in &queries {
            for (labels, k) in [
                (vec![LabelId(1)], 10),
                (vec![LabelId(1)], 50),
                (vec![LabelId(1)], 80), // only 50 exist
                (vec![LabelId(2)], 10),
                (vec![LabelId(1), LabelId(2)], 25),
                (vec![LabelId(0)], 10),
                (vec![LabelId(9)], 10), // no such label
            ] {
                let matching: usize = labels.iter().map(|l| idx.label_count(*l)).sum();
                let got = idx.search_labels(q, k, 40, &labels).unwrap();
                assert_eq!(got.len(), k.min(matching), "labels {labels:?} k {k}");
                assert!(got.iter().all(|h| labels.contains(&h.label)));
                let uniq: HashSet<u64> = ids(&got).into_iter().collect();
                assert_eq!(uniq.len(), got.len(), "no duplicates");
                // and they are (nearly) the right ones
                let want: HashSet<u64> = ids(&idx.exact_search(q, k, Some(&labels)).unwrap())
                    .into_iter()
                    .collect();
                found += got.iter().filter(|h| want.contains(&h.node.0)).count();
                total += got.len();
            }
        }
        let recall = found as f64 / total as f64;
        assert!(
            recall >= 0.9,
            "filtered recall {recall} (exact_filter_max {exact_filter_max})"
        );
    }
}

#[test]
fn deleted_nodes_never_return() {
    let vs = clustered(3000, 32, 30, 5);
    let mut idx = VectorIndex::build(32, HnswParams::default(), items(&vs)).unwrap();
    // below the compaction threshold first: tombstones are filtered during the walk
    let mut deleted = HashSet::new();
    for i in (0..3000).step_by(10) {
        assert!(idx.delete(NodeId(i)));
        deleted.insert(i);
    }
    assert!(!idx.delete(NodeId(0)), "second delete is a no-op");
    // every label-1 node (i % 100 == 0) is gone: a filter on it now matches nothing
    assert_eq!(idx.label_count(LabelId(1)), 0);
    assert!(idx
        .search_labels(&vs[0], 5, 40, &[LabelId(1)])
        .unwrap()
        .is_empty());
    assert_eq!(idx.tombstones(), 300);
    let check = |idx: &VectorIndex, deleted: &HashSet<u64>| {
        for i in (0..3000).step_by(7) {
            // querying with a deleted node's own vector is the hardest case
            let q = &vs[i];
            for hits in [
                idx.search(q, 20, 40).unwrap(),
                idx.search_labels(q, 20, 40, &[LabelId(0), LabelId(1), LabelId(2)])
                    .unwrap(),
                idx.search_labels(q, 5, 40, &[LabelId(2)]).unwrap(),
                idx.exact_search(q, 20, None).unwrap(),
            ] {
                assert_eq!(hits.len(), if hits.len() == 5 { 5 } else { 20 });
                for h in hits {
                    assert!(!deleted.contains(&h.node.0), "deleted {} returned", h.node);
                }
            }
        }
    };
    check(&idx, &deleted);
    // past the threshold (20%) a delete compacts the graph
    for i in (1..3000).step_by(5) {
        if idx.delete(NodeId(i)) {
            deleted.insert(i);
        }
    }
    assert!(
        idx.tombstones() < 64 || (idx.tombstones() as f64) < 0.2 * 3000.0,
        "compacted"
    );
    assert_eq!(idx.len(), 3000 - deleted.len());
    check(&idx, &deleted);
    // an upsert replaces the vector: the old one no longer matches
    let far: Vec<f32> = vs[2].iter().map(|x| -x).collect();
    idx.insert(NodeId(2), LabelId(0), &far).unwrap();
    let top = idx.search(&vs[2], 1, 64).unwrap();
    assert_ne!(top[0].node, NodeId(2));
    assert_eq!(idx.search(&far, 1, 64).unwrap()[0].node, NodeId(2));
}

#[test]
fn bad_vectors_are_rejected() {
    let mut idx = VectorIndex::new(4, HnswParams::default());
    assert!(matches!(
        idx.insert(NodeId(1), LabelId(0), &[1.0, 0.0]),
        Err(VectorError::Dimension {
            expected: 4,
            got: 2
        })
    ));
    assert!(matches!(
        idx.insert(NodeId(1), LabelId(0), &[0.0; 4]),
        Err(VectorError::Degenerate(_))
    ));
    assert!(matches!(
        idx.insert(NodeId(1), LabelId(0), &[f32::NAN, 1.0, 0.0, 0.0]),
        Err(VectorError::Degenerate(_))
    ));
    assert!(idx.search(&[1.0, 0.0, 0.0], 3, 10).is_err());
    assert!(
        idx.search(&[1.0, 0.0, 0.0, 0.0], 3, 10).unwrap().is_empty(),
        "empty index answers empty"
    );
    // non-unit input is normalised
    idx.insert(NodeId(1), LabelId(0), &[3.0, 0.0, 0.0, 0.0])
        .unwrap();
    let h = idx.search(&[2.0, 0.0, 0.0, 0.0], 1, 10).unwrap();
    assert!((h[0].score - 1.0).abs() < 1e-6);
}

/// The store's view: the vector column family (source of truth) and a stamp that counts its writes.
struct FakeStore {
    rows: Vec<(NodeId, LabelId, Vec<f32>)>,
    seq: u64,
}

impl FakeStore {
    fn stamp(&self) -> Stamp {
        Stamp {
            seq: self.seq,
            embedder_id: "cairn-hash-v1/24".into(),
        }
    }
    /// What the store does on open: load the index if it is current, else rebuild and save it.
    fn open_index(&self, dir: &std::path::Path, params: &HnswParams) -> (VectorIndex, bool) {
        match VectorIndex::load(&index_path(dir), &self.stamp(), 24, params.clone()) {
            Ok(idx) => (idx, false),
            Err(e) => {
                assert!(e.needs_rebuild(), "{e}");
                let idx = VectorIndex::build(24, params.clone(), self.rows.clone()).unwrap();
                idx.save(&index_path(dir), &self.stamp()).unwrap();
                (idx, true)
            }
        }
    }
}

#[test]
fn missing_stale_or_damaged_index_is_detected_and_rebuilt_alike() {
    let dir = tempfile::tempdir().unwrap();
    let path = index_path(dir.path());
    // single-threaded builds are deterministic, so a rebuild must answer exactly as before
    let params = HnswParams {
        threads: 1,
        ..HnswParams::default()
    };
    let vs = clustered(1500, 24, 15, 7);
    let mut store = FakeStore {
        rows: items(&vs),
        seq: 1500,
    };
    let queries = clustered(25, 24, 15, 8);
    let answers = |idx: &VectorIndex| -> Vec<Vec<u64>> {
        queries
            .iter()
            .flat_map(|q| {
                [
                    ids(&idx.search(q, 10, 100).unwrap()),
                    ids(&idx.search_labels(q, 10, 100, &[LabelId(2)]).unwrap()),
                ]
            })
            .collect()
    };

    // first open: no file
    let err = VectorIndex::load(&path, &store.stamp(), 24, params.clone()).unwrap_err();
    assert!(matches!(err, VectorError::Missing(_)) && err.needs_rebuild());
    let (idx, rebuilt) = store.open_index(dir.path(), &params);
    assert!(rebuilt);
    let before = answers(&idx);

    // clean reopen: loaded, same answers
    let (idx2, rebuilt) = store.open_index(dir.path(), &params);
    assert!(!rebuilt);
    assert_eq!(answers(&idx2), before);
    assert_eq!(idx2.len(), idx.len());

    // crash-like stop: more vectors written to the store (seq moves on), index never saved again
    let mut live = idx2;
    for (i, v) in clustered(40, 24, 15, 9).into_iter().enumerate() {
        let node = NodeId(10_000 + i as u64);
        store.rows.push((node, LabelId(2), v.clone()));
        store.seq += 1;
        live.insert(node, LabelId(2), &v).unwrap();
    }
    let err = VectorIndex::load(&path, &store.stamp(), 24, params.clone()).unwrap_err();
    assert!(matches!(err, VectorError::Stale { .. }), "{err}");
    let (rebuilt_idx, rebuilt) = store.open_index(dir.path(), &params);
    assert!(rebuilt);
    // the rebuilt index has the new nodes and agrees with the live (pre-crash) one on every query
    assert_eq!(rebuilt_idx.len(), 1540);
    let exact = |idx: &VectorIndex| -> Vec<Vec<u64>> {
        queries
            .iter()
            .map(|q| ids(&idx.exact_search(q, 10, None).unwrap()))
            .collect()
    };
    assert_eq!(exact(&rebuilt_idx), exact(&live));
    let agree = answers(&rebuilt_idx)
        .iter()
        .zip(answers(&live))
        .filter(|(a, b)| **a == *b)
        .count();
    assert!(
        agree * 10 >= queries.len() * 2 * 9,
        "{agree} of {} answers agree",
        queries.len() * 2
    );
    // and reopening again now loads it
    assert!(!store.open_index(dir.path(), &params).1);

    // another embedder or dimension: stale
    let other = Stamp {
        seq: store.seq,
        embedder_id: "openai-http/x/24".into(),
    };
    assert!(matches!(
        VectorIndex::load(&path, &other, 24, params.clone()),
        Err(VectorError::Stale { .. })
    ));
    assert!(matches!(
        VectorIndex::load(&path, &store.stamp(), 32, params.clone()),
        Err(VectorError::Stale { .. })
    ));

    // damaged files: truncated, a flipped byte, garbage, empty; all detected, never loaded
    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x40;
    for bad in [
        good[..good.len() - 100].to_vec(),
        flipped,
        b"hello".to_vec(),
        Vec::new(),
    ] {
        std::fs::write(&path, &bad).unwrap();
        let err = VectorIndex::load(&path, &store.stamp(), 24, params.clone()).unwrap_err();
        assert!(
            matches!(
                err,
                VectorError::Corrupt { .. } | VectorError::CorruptBlock { .. }
            ),
            "{err}"
        );
        assert!(err.needs_rebuild());
    }
    let (again, rebuilt) = store.open_index(dir.path(), &params);
    assert!(rebuilt);
    assert_eq!(answers(&again), answers(&rebuilt_idx));

    // a crash in the middle of a save leaves only the temp file: the old file (or none) stays
    std::fs::remove_file(&path).unwrap();
    std::fs::write(path.with_extension("hnsw.tmp"), &good[..1000]).unwrap();
    assert!(matches!(
        VectorIndex::load(&path, &store.stamp(), 24, params.clone()),
        Err(VectorError::Missing(_))
    ));
}

#[test]
fn save_load_keeps_tombstones_and_labels() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.hnsw");
    let vs = clustered(800, 16, 8, 11);
    let mut idx = VectorIndex::build(16, HnswParams::default(), items(&vs)).unwrap();
    for i in 0..20 {
        idx.delete(NodeId(i * 3));
    }
    let stamp = Stamp {
        seq: 42,
        embedder_id: "e".into(),
    };
    idx.save(&path, &stamp).unwrap();
    let back = VectorIndex::load(&path, &stamp, 16, HnswParams::default()).unwrap();
    assert_eq!(back.len(), idx.len());
    assert_eq!(back.tombstones(), 20);
    assert_eq!(back.label_count(LabelId(1)), idx.label_count(LabelId(1)));
    for q in vs.iter().step_by(37) {
        assert_eq!(
            ids(&back.search(q, 10, 50).unwrap()),
            ids(&idx.search(q, 10, 50).unwrap())
        );
        assert_eq!(
            ids(&back.search_labels(q, 5, 50, &[LabelId(2)]).unwrap()),
            ids(&idx.search_labels(q, 5, 50, &[LabelId(2)]).unwrap())
        );
    }
    assert!(!back.contains(NodeId(0)) && back.contains(NodeId(1)));
}

#[test]
fn concurrent_searches_share_one_index() {
    let vs = clustered(2000, 32, 20, 13);
    let idx =
        std::sync::Arc::new(VectorIndex::build(32, HnswParams::default(), items(&vs)).unwrap());
    let expected: Vec<Vec<u64>> = vs
        .iter()
        .take(50)
        .map(|q| ids(&idx.search(q, 5, 50).unwrap()))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            let (idx, vs, expected) = (&idx, &vs, &expected);
            s.spawn(move || {
                for (q, want) in vs.iter().zip(expected) {
                    assert_eq!(&ids(&idx.search(q, 5, 50).unwrap()), want);
                }
            });
        }
    });
}

/// A format-2 header field: a little-endian u64 at byte `at` (docs/FORMAT.md, "vectors.hnsw").
fn header_u64(file: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(file[at..at + 8].try_into().unwrap())
}

/// A one-shot process walks the graph on the saved file: the same hits as the loaded index
/// (same walk, same policy: tombstones skipped, labels filtered, rare labels exact), exact
/// answers equal, and a stale or damaged file refused as a load would refuse it.
#[test]
fn the_file_walk_answers_as_the_index_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.hnsw");
    for (n, seed) in [(3000, 21), (5000, 31)] {
        let vs = clustered(n, 20, 12, seed);
        let mut idx = VectorIndex::build(20, HnswParams::default(), items(&vs)).unwrap();
        for i in 0..50 {
            idx.delete(NodeId(i * 7));
        }
        let stamp = Stamp {
            seq: 9,
            embedder_id: "e".into(),
        };
        idx.save(&path, &stamp).unwrap();
        let file = FileIndex::open(&path, &stamp, stamp.seq, 20).unwrap();
        assert_eq!(file.len(), idx.len());
        for q in clustered(30, 20, 12, seed + 1) {
            for labels in [
                None,
                Some(&[LabelId(1)][..]),
                Some(&[LabelId(2)][..]),
                Some(&[LabelId(1), LabelId(0)][..]),
            ] {
                let walked = file.search(&q, 10, 64, labels).unwrap();
                let in_memory = match labels {
                    Some(l) => idx.search_labels(&q, 10, 64, l).unwrap(),
                    None => idx.search(&q, 10, 64).unwrap(),
                };
                assert_eq!(walked, in_memory);
                assert_eq!(walked.len(), 10);
                assert!(walked.iter().all(|h| h.node.0 % 7 != 0 || h.node.0 >= 350));
                assert_eq!(
                    file.exact_search(&q, 10, labels).unwrap(),
                    idx.exact_search(&q, 10, labels).unwrap()
                );
            }
        }
    }
    let later = Stamp {
        seq: 10,
        embedder_id: "e".into(),
    };
    let err = FileIndex::open(&path, &later, later.seq, 20).unwrap_err();
    assert!(matches!(err, VectorError::Stale { .. }), "{err}");
    let stamp = Stamp {
        seq: 9,
        embedder_id: "e".into(),
    };
    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    flipped[200] ^= 0x01; // a slot record: the small sections' checksum tells
    for bad in [good[..good.len() - 3].to_vec(), flipped] {
        std::fs::write(&path, &bad).unwrap();
        let err = FileIndex::open(&path, &stamp, stamp.seq, 20).unwrap_err();
        assert!(matches!(err, VectorError::Corrupt { .. }), "{err}");
    }
    std::fs::remove_file(&path).unwrap();
    let err = FileIndex::open(&path, &stamp, stamp.seq, 20).unwrap_err();
    assert!(matches!(err, VectorError::Missing(_)), "{err}");
}

/// A byte flipped in the vectors or in the level-0 links of a saved file is found when a
/// search first reads its block: the typed error names the file, section and offset; no
/// answer comes back.
#[test]
fn a_damaged_block_is_an_error_on_the_searched_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.hnsw");
    let dim = 20;
    let vs = clustered(4000, dim, 12, 41);
    let idx = VectorIndex::build(dim, HnswParams::default(), items(&vs)).unwrap();
    let stamp = Stamp {
        seq: 3,
        embedder_id: "e".into(),
    };
    idx.save(&path, &stamp).unwrap();
    let good = std::fs::read(&path).unwrap();
    let (links0, vectors) = (header_u64(&good, 112), header_u64(&good, 120));
    // Slot 5 holds node 5, the nearest to the query vs[5]: the walk scores its vector and
    // expands its level-0 row (count, then 2m = 32 links: 132 bytes a row).
    let q = &vs[5];
    let in_vectors = vectors as usize + 5 * dim * 4 + 2;
    let in_links = links0 as usize + 5 * 132 + 4;
    for (at, section) in [(in_vectors, "vectors"), (in_links, "links")] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        // the small sections are intact: the open succeeds, the search finds the damage
        let file = FileIndex::open(&path, &stamp, stamp.seq, dim).unwrap();
        let err = file.search(q, 10, 64, None).unwrap_err();
        match &err {
            VectorError::CorruptBlock {
                path: p,
                section: s,
                offset,
            } => {
                assert_eq!(p, &path);
                assert_eq!(*s, section);
                assert!(*offset as usize <= at && at < *offset as usize + (16 << 10));
            }
            other => panic!("{other}"),
        }
        assert!(err.needs_rebuild());
        assert!(err.to_string().contains("at byte"), "{err}");
        // loading the whole file checks every block
        let err = VectorIndex::load(&path, &stamp, dim, HnswParams::default()).unwrap_err();
        assert!(matches!(err, VectorError::CorruptBlock { .. }), "{err}");
    }
}

/// Format 1 (docs/FORMAT.md): loaded whole, as before; not searched in place (refused as
/// stale, so a one-shot process loads it); a writer saves it again as format 2.
#[test]
fn a_format_1_file_is_loaded_whole_and_not_walked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.hnsw");
    let dim = 8;
    let vs = clustered(300, dim, 5, 51);
    let stamp = Stamp {
        seq: 4,
        embedder_id: "e".into(),
    };
    std::fs::write(&path, v1_file(&vs, &stamp)).unwrap();
    let loaded = VectorIndex::load(&path, &stamp, dim, HnswParams::default()).unwrap();
    let built = VectorIndex::build(dim, HnswParams::default(), items(&vs)).unwrap();
    assert_eq!(loaded.len(), 300);
    for q in clustered(10, dim, 5, 52) {
        assert_eq!(
            ids(&loaded.exact_search(&q, 5, None).unwrap()),
            ids(&built.exact_search(&q, 5, None).unwrap())
        );
    }
    let err = FileIndex::open(&path, &stamp, stamp.seq, dim).unwrap_err();
    assert!(
        matches!(err, VectorError::Stale { .. }) && err.needs_rebuild(),
        "{err}"
    );
    assert!(err.to_string().contains("format version 1"), "{err}");
    loaded.save(&path, &stamp).unwrap();
    let file = FileIndex::open(&path, &stamp, stamp.seq, dim).unwrap();
    assert_eq!(file.len(), 300);
}

/// A format-1 file as the previous release wrote it (one stream: header, then per slot the
/// node, label, deleted flag, level and links per level, then the vectors, then a checksum of
/// 8-byte words), every slot on level 0 without links.
fn v1_file(vs: &[Vec<f32>], stamp: &Stamp) -> Vec<u8> {
    let mut b = b"CAIRNVX\0".to_vec();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&(vs[0].len() as u32).to_le_bytes());
    b.extend_from_slice(&stamp.seq.to_le_bytes());
    b.extend_from_slice(&(stamp.embedder_id.len() as u32).to_le_bytes());
    b.extend_from_slice(stamp.embedder_id.as_bytes());
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&200u32.to_le_bytes());
    b.extend_from_slice(&0x00c0_ffeeu64.to_le_bytes());
    b.extend_from_slice(&(vs.len() as u64).to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.push(0);
    for i in 0..vs.len() {
        b.extend_from_slice(&(i as u64).to_le_bytes());
        b.extend_from_slice(&label_of(i).0.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&0u32.to_le_bytes());
    }
    for v in vs {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter()
            .for_each(|x| b.extend_from_slice(&(x / norm).to_le_bytes()));
    }
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = 0x2545_f491_4f6c_dd1d ^ (b.len() as u64).wrapping_mul(K);
    let mut word = |x: u64| h = (h ^ x).wrapping_mul(K).rotate_left(31);
    let words = b.chunks_exact(8);
    let rest = words.remainder().to_vec();
    for w in words {
        word(u64::from_le_bytes(w.try_into().unwrap()));
    }
    rest.iter().for_each(|x| word(u64::from(*x)));
    let sum = h ^ (h >> 29);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// Every vector inserted one by one into a built index is found by a search for itself right
/// after its insert: a write must be visible to SEARCH. The inserts resemble a stream of new
/// records that share wording (one common direction) and are unlike anything indexed (here in
/// dimensions the indexed data does not use), the case where an insert's walk from the old data
/// finds only far neighbours and leaves the new node reachable from nowhere a later walk goes.
#[test]
fn every_inserted_vector_is_found_right_after_its_insert() {
    let (dim, half) = (48, 24);
    let pad = |v: &[f32], at: usize| {
        let mut out = vec![0.0; dim];
        out[at..at + v.len()].copy_from_slice(v);
        out
    };
    let vs: Vec<Vec<f32>> = clustered(4000, half, 40, 11)
        .iter()
        .map(|v| pad(v, 0))
        .collect();
    let mut idx = VectorIndex::build(dim, HnswParams::default(), items(&vs)).unwrap();
    let common = clustered(1, half, 1, 12).remove(0);
    let mut missed = Vec::new();
    let noise = clustered(1200, half, 1200, 13);
    for (i, n) in noise.iter().enumerate() {
        let v: Vec<f32> = common.iter().zip(n).map(|(c, x)| c + x).collect();
        let v = pad(&v, half);
        let node = NodeId(1_000_000 + i as u64);
        idx.insert(node, LabelId(0), &v).unwrap();
        let top = |hits: Vec<cairn_vector::Hit>| hits.first().map(|h| h.node);
        if top(idx.search(&v, 5, 32).unwrap()) != Some(node)
            || top(idx.search_labels(&v, 5, 32, &[LabelId(0)]).unwrap()) != Some(node)
        {
            missed.push(i);
        }
    }
    assert!(
        missed.is_empty(),
        "{} of {} inserts not found: {:?}",
        missed.len(),
        noise.len(),
        &missed[..missed.len().min(20)]
    );
}

/// `scored` counts the vectors a search compared: all matching ones for an exact scan, a
/// small share of the index for a walk, and the recent inserts beside it.
#[test]
fn scored_counts_each_search_s_work() {
    let vs = clustered(8_000, 32, 50, 21);
    let mut idx = VectorIndex::build(32, HnswParams::default(), items(&vs)).unwrap();
    let q = &vs[3];
    let before = idx.scored();
    idx.exact_search(q, 10, None).unwrap();
    assert_eq!(idx.scored() - before, 8_000);
    let before = idx.scored();
    idx.search(q, 10, 64).unwrap();
    let walk = idx.scored() - before;
    assert!(walk > 64 && walk < 4_000, "a walk scored {walk} of 8,000");
    for i in 0..10 {
        idx.insert(NodeId(100_000 + i), LabelId(0), &vs[i as usize])
            .unwrap();
    }
    let before = idx.scored();
    idx.search(q, 10, 64).unwrap();
    assert!(
        idx.scored() - before >= 10,
        "the 10 recent inserts are scored too"
    );
}
