//! The storage boundary's conformance suite: what docs/STORAGE.md promises, checked against
//! every backend this build can reach — RocksDB in a temporary directory always; a Redis
//! Cluster when `CAIRN_TEST_REDIS` names one (`.ci/run` starts a local one). The graph-level
//! half (the model-based transaction test, readers beside a writer, import atomicity) is
//! `store/tests/conformance.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::rocks::{RocksOptions, RocksStorage};
use super::{Batch, BulkPart, BulkSink, KvRead, Scan, Space, Storage};
use crate::error::{EngineError, Result};
use cairn_storage_format::keys::{edge_prefix, edge_rel_prefix};
use cairn_storage_format::{Degree, NodeId, NodeKey, OutEdgeKey, RelId};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A fresh, empty store of one backend, and what keeps it alive.
struct Fresh {
    name: &'static str,
    storage: Box<dyn Storage>,
    _dir: Option<tempfile::TempDir>,
}

fn backends() -> Vec<Fresh> {
    let dir = tempfile::tempdir().unwrap();
    let rocks = RocksStorage::open(
        dir.path(),
        &RocksOptions {
            create_if_missing: true,
            read_only: false,
            block_cache_bytes: 8 << 20,
        },
    )
    .unwrap();
    let mut out = vec![Fresh {
        name: "rocksdb",
        storage: Box::new(rocks),
        _dir: Some(dir),
    }];
    if let Some(url) = test_cluster() {
        let (seeds, _) = super::redis::parse_url(&format!("{url}/x")).unwrap();
        let redis = super::redis::RedisStorage::open(&super::redis::RedisOptions {
            seeds,
            name: unique_name("kv"),
            read_only: false,
        })
        .unwrap();
        out.push(Fresh {
            name: "redis-cluster",
            storage: Box::new(redis),
            _dir: None,
        });
    }
    out
}

/// The cluster `CAIRN_TEST_REDIS` names (`redis://HOST:PORT`), if any: `.ci/run` starts one
/// (scripts/redis-cluster.sh) and sets it.
pub(crate) fn test_cluster() -> Option<String> {
    std::env::var("CAIRN_TEST_REDIS")
        .ok()
        .filter(|u| !u.is_empty())
}

/// A database name no other test run uses.
pub(crate) fn unique_name(prefix: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{prefix}{}x{nanos}x{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn node(id: u64) -> [u8; 8] {
    NodeKey(NodeId(id)).encode()
}

fn edge(src: u64, rel: u32, dst: u64) -> [u8; 20] {
    OutEdgeKey {
        src: NodeId(src),
        rel: RelId(rel),
        dst: NodeId(dst),
    }
    .encode()
}

fn get(kv: &dyn KvRead, space: Space, key: &[u8]) -> Option<Vec<u8>> {
    let mut out = None;
    let found = kv
        .get(space, key, &mut |v| {
            out = Some(v.to_vec());
            Ok(())
        })
        .unwrap();
    assert_eq!(found, out.is_some());
    out
}

fn scan(kv: &dyn KvRead, space: Space, s: Scan<'_>) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    kv.scan(space, s, &mut |k, v| {
        out.push((k.to_vec(), v.to_vec()));
        Ok(true)
    })
    .unwrap();
    out
}

fn commit(s: &dyn Storage, f: impl FnOnce(&mut Batch)) {
    let mut b = Batch::default();
    f(&mut b);
    s.commit(&b, false).unwrap();
}

/// Bulk parts `0..n` of `space`, each written by `fill(part, sink)` on a thread of its own.
fn parts_on_threads(
    s: &dyn Storage,
    space: Space,
    n: u64,
    fill: impl Fn(u64, &mut dyn BulkSink) -> Result<()> + Sync,
) -> Vec<BulkPart> {
    let fill = &fill;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|part| {
                scope.spawn(move || {
                    s.bulk_write(space, part as usize, &mut |sink| fill(part, sink))
                        .unwrap()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

/// Puts, deletes and overwrites; in one batch the later operation on a key wins; a key of one
/// space is not a key of another.
#[test]
fn point_reads_see_the_last_write_of_each_key() {
    for f in backends() {
        let s = &*f.storage;
        commit(s, |b| {
            b.put(Space::Node, node(1), b"one");
            b.put(Space::Node, node(2), b"two");
            b.put(Space::Node, node(2), b"two again");
            b.put(Space::Vector, node(3), b"v");
            b.delete(Space::Vector, node(3));
            b.put(Space::Name, b"ann\0", b"");
        });
        assert_eq!(
            get(s, Space::Node, &node(1)).as_deref(),
            Some(&b"one"[..]),
            "{}",
            f.name
        );
        assert_eq!(
            get(s, Space::Node, &node(2)).as_deref(),
            Some(&b"two again"[..])
        );
        assert_eq!(get(s, Space::Vector, &node(3)), None);
        assert_eq!(
            get(s, Space::Degree, &node(1)),
            None,
            "{}: spaces apart",
            f.name
        );
        assert_eq!(
            get(s, Space::Name, b"ann\0").as_deref(),
            Some(&b""[..]),
            "empty value"
        );
        commit(s, |b| b.delete(Space::Node, node(1)));
        assert_eq!(get(s, Space::Node, &node(1)), None);
        // Multi-get: positions, absent keys, a key asked twice.
        let (n1, n2, n9) = (node(1), node(2), node(9));
        let keys: Vec<&[u8]> = vec![&n2, &n1, &n9, &n2];
        let mut found = BTreeMap::new();
        s.multi_get(Space::Node, &keys, &mut |i, v| {
            assert!(found.insert(i, v.to_vec()).is_none(), "position {i} twice");
            Ok(())
        })
        .unwrap();
        let expected: BTreeMap<usize, Vec<u8>> =
            [(0, b"two again".to_vec()), (3, b"two again".to_vec())].into();
        assert_eq!(found, expected, "{}", f.name);
    }
}

/// Range scans stay in their group and come in key order; the end is exclusive; a callback
/// that returns false stops the scan, one that fails stops it with its error.
#[test]
fn range_scans_list_a_group_in_key_order() {
    for f in backends() {
        let s = &*f.storage;
        commit(s, |b| {
            for (src, rel, dst) in [(7, 2, 1), (7, 1, 9), (7, 1, 3), (8, 0, 1), (6, 5, 5)] {
                b.put(Space::Out, edge(src, rel, dst), [rel as u8]);
            }
            for name in ["ann", "ann lee", "ann-marie", "anna", "bo"] {
                let mut k = name.as_bytes().to_vec();
                k.push(0);
                k.extend_from_slice(&node(1));
                b.put(Space::Name, &k, [1]);
            }
        });
        let node7 = edge_prefix(NodeId(7));
        let end = super::successor(&node7);
        let keys: Vec<Vec<u8>> = scan(s, Space::Out, Scan::prefix(&node7, &end))
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let expected: Vec<Vec<u8>> = [edge(7, 1, 3), edge(7, 1, 9), edge(7, 2, 1)]
            .iter()
            .map(|k| k.to_vec())
            .collect();
        assert_eq!(keys, expected, "{}: node 7's edges", f.name);
        let rel1 = edge_rel_prefix(NodeId(7), RelId(1));
        let end = super::successor(&rel1);
        assert_eq!(scan(s, Space::Out, Scan::prefix(&rel1, &end)).len(), 2);
        // The name index's seek: `ann · 00` up to the successor of `ann · 20`.
        let end = super::successor(b"ann ");
        let names: Vec<Vec<u8>> = scan(
            s,
            Space::Name,
            Scan::Range {
                start: b"ann\0",
                end: end.as_deref(),
            },
        )
        .into_iter()
        .map(|(k, _)| k[..k.iter().position(|b| *b == 0).unwrap()].to_vec())
        .collect();
        assert_eq!(
            names,
            vec![b"ann".to_vec(), b"ann lee".to_vec()],
            "{}",
            f.name
        );
        // Stops when told.
        let mut seen = 0;
        s.scan(
            Space::Out,
            Scan::prefix(&node7, &super::successor(&node7)),
            &mut |_, _| {
                seen += 1;
                Ok(seen < 2)
            },
        )
        .unwrap();
        assert_eq!(seen, 2);
        let err = s
            .scan(Space::Out, Scan::All, &mut |_, _| {
                Err(EngineError::Invalid("stop here".into()))
            })
            .unwrap_err();
        assert!(err.to_string().contains("stop here"), "{err}");
        // An empty or inverted range lists nothing.
        assert!(scan(
            s,
            Space::Out,
            Scan::Range {
                start: &node7,
                end: Some(&node7)
            }
        )
        .is_empty());
    }
}

/// A reverse scan lists a range's keys from the last down, ends at its start, and stops when
/// told: a property index read from its largest value.
#[test]
fn reverse_scans_list_a_range_backwards() {
    for f in backends() {
        let s = &*f.storage;
        let keys: Vec<Vec<u8>> = (0u8..6)
            .map(|v| {
                [
                    &[0, 0, 0, 1, 0, 0, 0, 2][..],
                    &[3, v],
                    &node(u64::from(v))[..],
                ]
                .concat()
            })
            .collect();
        commit(s, |b| {
            for k in &keys {
                b.put(Space::Prop, k, []);
            }
            // Another index's entry, past the range's end.
            b.put(Space::Prop, [0, 0, 0, 1, 0, 0, 0, 3, 3, 9], []);
        });
        let start = keys[1].clone();
        let end = keys[5].clone();
        let got: Vec<Vec<u8>> = scan(
            s,
            Space::Prop,
            Scan::Reverse {
                start: &start,
                end: Some(&end),
            },
        )
        .into_iter()
        .map(|(k, _)| k)
        .collect();
        let want: Vec<Vec<u8>> = keys[1..5].iter().rev().cloned().collect();
        assert_eq!(got, want, "{}", f.name);
        // To the group's end: from its last key (not the next index's), stopping when told.
        let mut seen = Vec::new();
        s.scan(
            Space::Prop,
            Scan::Reverse {
                start: &keys[0],
                end: None,
            },
            &mut |k, _| {
                seen.push(k.to_vec());
                Ok(seen.len() < 3)
            },
        )
        .unwrap();
        assert_eq!(
            seen,
            vec![keys[5].clone(), keys[4].clone(), keys[3].clone()],
            "{}",
            f.name
        );
    }
}

/// Node-keyed spaces scan over ranges of node ids in id order — across groups, which for
/// `out` and `in` is past RocksDB's prefix extractor — and whole spaces list every key once.
#[test]
fn node_ranges_and_whole_spaces_are_listed_in_id_order() {
    for f in backends() {
        let s = &*f.storage;
        let ids = [0u64, 1, 2, 255, 256, 1000, 70_000];
        commit(s, |b| {
            for id in ids {
                b.put(Space::Degree, node(id), Degree { out: 1, inc: 0 }.encode());
                b.put(Space::Out, edge(id, 0, 5), []);
                b.put(Space::Out, edge(id, 3, 1), []);
            }
        });
        for space in [Space::Degree, Space::Out] {
            let listed: Vec<u64> = scan(s, space, Scan::Nodes(1..1001))
                .into_iter()
                .map(|(k, _)| u64::from_be_bytes(k[..8].try_into().unwrap()))
                .collect();
            let mut expected: Vec<u64> = ids
                .iter()
                .copied()
                .filter(|id| (1..1001).contains(id))
                .collect();
            if space == Space::Out {
                expected = expected.iter().flat_map(|id| [*id, *id]).collect();
            }
            assert_eq!(listed, expected, "{}: {space:?}", f.name);
            let all: Vec<u64> = scan(s, space, Scan::All)
                .into_iter()
                .map(|(k, _)| u64::from_be_bytes(k[..8].try_into().unwrap()))
                .collect();
            let mut sorted = all.clone();
            sorted.sort();
            assert_eq!(all, sorted, "{}: {space:?} in id order", f.name);
            assert_eq!(
                all.len(),
                ids.len() * if space == Space::Out { 2 } else { 1 }
            );
            assert!(scan(s, space, Scan::Nodes(3..3)).is_empty());
        }
    }
}

/// Merges add signed degree deltas (onto nothing, onto a put, several in one batch); a
/// deletion of node ranges removes exactly the keys of those nodes.
#[test]
fn degree_merges_add_up_and_node_ranges_delete() {
    for f in backends() {
        let s = &*f.storage;
        let d = |out, inc| Degree { out, inc }.encode();
        commit(s, |b| {
            b.merge(Space::Degree, node(1), d(1, 0));
            b.merge(Space::Degree, node(1), d(0, 2));
            b.put(Space::Degree, node(2), d(5, 5));
            b.merge(Space::Degree, node(2), d(-1, 0));
        });
        commit(s, |b| b.merge(Space::Degree, node(1), d(3, -1)));
        let read = |id| Degree::decode(&get(s, Space::Degree, &node(id)).unwrap()).unwrap();
        assert_eq!(read(1), Degree { out: 4, inc: 1 }, "{}", f.name);
        assert_eq!(read(2), Degree { out: 4, inc: 5 }, "{}", f.name);

        commit(s, |b| {
            for id in 10..20 {
                b.put(Space::Node, node(id), b"r");
                b.put(Space::In, edge(id, 1, 3), []);
            }
        });
        commit(s, |b| {
            b.delete_nodes(Space::Node, 12..15);
            b.delete_nodes(Space::In, 15..40);
        });
        let left = |space| -> Vec<u64> {
            scan(s, space, Scan::Nodes(0..100))
                .into_iter()
                .map(|(k, _)| u64::from_be_bytes(k[..8].try_into().unwrap()))
                .collect()
        };
        assert_eq!(
            left(Space::Node),
            vec![10, 11, 15, 16, 17, 18, 19],
            "{}",
            f.name
        );
        assert_eq!(left(Space::In), vec![10, 11, 12, 13, 14], "{}", f.name);
    }
}

/// A snapshot sees the store as of its taking, whatever commits after it (puts, deletes,
/// merges); new reads see the latest commit; the sequence grows.
#[test]
fn snapshots_stay_as_they_were_taken() {
    for f in backends() {
        let s = &*f.storage;
        commit(s, |b| {
            b.put(Space::Node, node(1), b"old");
            b.put(Space::Node, node(2), b"gone later");
            b.merge(Space::Degree, node(1), Degree { out: 1, inc: 1 }.encode());
        });
        let before = s.sequence();
        let snap = s.snapshot();
        commit(s, |b| {
            b.put(Space::Node, node(1), b"new");
            b.delete(Space::Node, node(2));
            b.put(Space::Node, node(3), b"born");
            b.merge(Space::Degree, node(1), Degree { out: 1, inc: 0 }.encode());
        });
        assert!(s.sequence() > before, "{}", f.name);
        assert_eq!(
            get(&*snap, Space::Node, &node(1)).as_deref(),
            Some(&b"old"[..])
        );
        assert_eq!(
            get(&*snap, Space::Node, &node(2)).as_deref(),
            Some(&b"gone later"[..])
        );
        assert_eq!(get(&*snap, Space::Node, &node(3)), None);
        assert_eq!(
            Degree::decode(&get(&*snap, Space::Degree, &node(1)).unwrap()).unwrap(),
            Degree { out: 1, inc: 1 }
        );
        assert_eq!(scan(&*snap, Space::Node, Scan::Nodes(0..10)).len(), 2);
        assert_eq!(get(s, Space::Node, &node(1)).as_deref(), Some(&b"new"[..]));
        let latest: Vec<Vec<u8>> = scan(s, Space::Node, Scan::Nodes(0..10))
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        assert_eq!(
            latest,
            vec![b"new".to_vec(), b"born".to_vec()],
            "{}",
            f.name
        );
    }
}

/// Readers beside a writer: every commit moves two keys in different groups (and spaces)
/// together; readers on other threads, by snapshot and by a single multi-get, never see one
/// moved without the other.
#[test]
fn readers_never_see_part_of_a_commit() {
    for f in backends() {
        let s: &dyn Storage = &*f.storage;
        let done = Arc::new(AtomicBool::new(false));
        let torn = std::thread::scope(|scope| {
            let readers: Vec<_> = (0..2)
                .map(|_| {
                    let done = Arc::clone(&done);
                    scope.spawn(move || {
                        let mut reads = 0u64;
                        while !done.load(Ordering::SeqCst) || reads < 50 {
                            let snap = s.snapshot();
                            let a = get(&*snap, Space::Node, &node(1));
                            let b = get(&*snap, Space::Vector, &node(500_000));
                            if a != b {
                                return Some((a, b));
                            }
                            reads += 1;
                        }
                        None
                    })
                })
                .collect();
            for i in 0..300u32 {
                commit(s, |b| {
                    b.put(Space::Node, node(1), i.to_be_bytes());
                    b.put(Space::Vector, node(500_000), i.to_be_bytes());
                });
            }
            done.store(true, Ordering::SeqCst);
            readers
                .into_iter()
                .filter_map(|r| r.join().unwrap())
                .collect::<Vec<_>>()
        });
        assert!(torn.is_empty(), "{}: torn reads {torn:?}", f.name);
    }
}

/// The bulk path: parts of several spaces (several parts of one space, written on several
/// threads) hold their keys; none is visible before the ingest (unless the backend writes in
/// place, which the bulk loader's marker covers), all are after; a part with no key is none.
#[test]
fn bulk_parts_become_part_of_the_store_at_the_ingest() {
    for f in backends() {
        let s: &dyn Storage = &*f.storage;
        s.bulk_begin().unwrap();
        let mut parts = parts_on_threads(s, Space::Out, 3, |part, sink| {
            for id in part * 100..part * 100 + 50 {
                sink.put(&edge(id, 0, 1), &[])?;
                sink.put(&edge(id, 1, 0), &[7])?;
            }
            Ok(())
        });
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.iter().map(|p| p.keys()).sum::<u64>(), 300);
        parts.extend(
            s.bulk_write(Space::Node, 0, &mut |sink| {
                for id in [0u64, 100, 200] {
                    sink.put(&node(id), b"rec")?;
                }
                Ok(())
            })
            .unwrap(),
        );
        assert!(s
            .bulk_write(Space::Vector, 0, &mut |_| Ok(()))
            .unwrap()
            .is_none());
        if !s.bulk_in_place() {
            assert!(scan(s, Space::Out, Scan::All).is_empty(), "{}", f.name);
            assert_eq!(get(s, Space::Node, &node(100)), None);
        }
        s.bulk_ingest(parts).unwrap();
        s.bulk_end();
        assert_eq!(
            scan(s, Space::Out, Scan::Nodes(0..1000)).len(),
            300,
            "{}",
            f.name
        );
        assert_eq!(
            get(s, Space::Out, &edge(149, 1, 0)).as_deref(),
            Some(&[7u8][..])
        );
        assert_eq!(
            get(s, Space::Node, &node(200)).as_deref(),
            Some(&b"rec"[..])
        );
        // Later commits and scans see them like any other keys (a whole scan after a range
        // deletion: RocksDB's prefix-extractor seek listed nothing there).
        commit(s, |b| b.delete_nodes(Space::Out, 0..150));
        assert_eq!(scan(s, Space::Out, Scan::All).len(), 100);
    }
}

/// A node of high degree (a cluster chunks its adjacency past 128 edges, docs/FORMAT.md): its
/// edges are listed whole and in key order, by relation, by key and in a batch read, while
/// commits add, change and remove hundreds at once; a snapshot keeps the edges it saw; a bulk
/// load whose parts share a node's edges holds all of them; a node-range deletion removes all.
#[test]
fn high_degree_adjacency_reads_and_writes_whole() {
    fn edges_of(kv: &dyn KvRead, id: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
        let p = edge_prefix(NodeId(id));
        scan(kv, Space::Out, Scan::prefix(&p, &super::successor(&p)))
    }
    let expected = |rels: &[(u32, std::ops::Range<u64>)], changed: u64| {
        let mut out: Vec<(Vec<u8>, Vec<u8>)> = rels
            .iter()
            .flat_map(|(rel, dsts)| dsts.clone().map(move |d| (*rel, d)))
            .map(|(rel, d)| {
                let v = if d == changed { vec![9] } else { vec![] };
                (edge(5, rel, d).to_vec(), v)
            })
            .collect();
        out.sort();
        out
    };
    for f in backends() {
        let s = &*f.storage;
        commit(s, |b| {
            for d in 0..300 {
                b.put(Space::Out, edge(5, 0, d), []);
            }
            for d in 0..40 {
                b.put(Space::Out, edge(5, 2, d), []);
            }
            b.put(Space::Out, edge(6, 0, 1), []);
        });
        let first = expected(&[(0, 0..300), (2, 0..40)], u64::MAX);
        assert_eq!(edges_of(s, 5), first, "{}: node 5's 340 edges", f.name);
        let snap = s.snapshot();
        commit(s, |b| {
            for d in 0..100 {
                b.delete(Space::Out, edge(5, 0, d));
            }
            b.put(Space::Out, edge(5, 0, 150), [9]);
            for d in 300..1000 {
                b.put(Space::Out, edge(5, 0, d), []);
            }
        });
        let now = expected(&[(0, 100..1000), (2, 0..40)], 150);
        assert_eq!(edges_of(s, 5), now, "{}: after the second commit", f.name);
        assert_eq!(edges_of(&*snap, 5), first, "{}: the snapshot", f.name);
        drop(snap);
        let rel2 = edge_rel_prefix(NodeId(5), RelId(2));
        let of_rel2 = scan(s, Space::Out, Scan::prefix(&rel2, &super::successor(&rel2)));
        assert_eq!(of_rel2.len(), 40, "{}", f.name);
        assert_eq!(get(s, Space::Out, &edge(5, 0, 150)), Some(vec![9]));
        assert_eq!(get(s, Space::Out, &edge(5, 0, 99)), None);
        assert_eq!(get(s, Space::Out, &edge(5, 0, 999)), Some(vec![]));
        let mut batch = Vec::new();
        s.multi_read(
            &[
                super::Read::Node(Space::Out, 5),
                super::Read::Node(Space::Out, 6),
            ],
            &mut |i, k, _| {
                batch.push((i, k.to_vec()));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(batch.iter().filter(|(i, _)| *i == 0).count(), now.len());
        assert_eq!(batch.iter().filter(|(i, _)| *i == 1).count(), 1);
        // A bulk load whose three parts each hold part of node 20's edges, beside small nodes
        // (10..14, 30..34) and a large one (40) of one part each.
        s.bulk_begin().unwrap();
        let parts = parts_on_threads(s, Space::Out, 3, |part, sink| {
            if part == 0 {
                for id in 10..14 {
                    sink.put(&edge(id, 0, 1), &[])?;
                }
            }
            let hub = [1..200, 1000..1100, 2000..2050];
            for d in hub[part as usize].clone() {
                sink.put(&edge(20, 1, d), &[])?;
            }
            if part == 2 {
                for id in 30..34 {
                    sink.put(&edge(id, 0, 1), &[])?;
                }
                for d in 0..200 {
                    sink.put(&edge(40, 0, d), &[])?;
                }
            }
            Ok(())
        });
        s.bulk_ingest(parts).unwrap();
        s.bulk_end();
        assert_eq!(
            edges_of(s, 20).len(),
            199 + 100 + 50,
            "{}: the bulk hub",
            f.name
        );
        assert_eq!(edges_of(s, 40).len(), 200, "{}", f.name);
        for id in (10..14).chain(30..34) {
            assert_eq!(edges_of(s, id).len(), 1, "{}: node {id}", f.name);
        }
        assert!(s.estimate_keys(Space::Out).unwrap() > 0);
        commit(s, |b| b.delete_nodes(Space::Out, 0..50));
        assert!(scan(s, Space::Out, Scan::All).is_empty(), "{}", f.name);
    }
}

/// The estimate of keys counts something once keys are there (RocksDB's is approximate).
#[test]
fn key_estimates_see_committed_keys() -> Result<()> {
    for f in backends() {
        let s = &*f.storage;
        commit(s, |b| {
            for id in 0..100 {
                b.put(Space::Node, node(id), b"x");
            }
        });
        assert!(s.estimate_keys(Space::Node)? > 0, "{}", f.name);
    }
    Ok(())
}
