//! Fuzzing with proptest (docs/RELIABILITY.md, "Fuzzing"): the statement parser, the dump
//! readers (CSV, JSON Lines, gzip, triples — through a real import into a real database), the
//! vector index file loader and the record and key decoders, each fed mutations of valid seed
//! inputs (byte flips, inserts, deletes, truncations, splices, dictionary tokens) for a time
//! budget, with every panic caught, printed with its input and counted. Not in the normal
//! test run; each target alone, for `CAIRN_FUZZ_SECS` seconds (default 600):
//! `CAIRN_FUZZ_SECS=600 cargo test --test fuzz -- --ignored --nocapture fuzz_parser`.
//!
//! proptest rather than cargo-fuzz: cargo-fuzz and libFuzzer are not installed here and a
//! sanitizer-coverage release build of the RocksDB-linked crates costs more than the runs on
//! this shared 2-core machine; `fuzz/` keeps the cargo-fuzz target of the parser.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

fn budget() -> Duration {
    Duration::from_secs(
        std::env::var("CAIRN_FUZZ_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(600),
    )
}

/// One edit of a seed: (position, byte, what).
type Edit = (u16, u8, u8);

const TOKENS: &[&[u8]] = &[
    b"\"",
    b",",
    b"\n",
    b"\r\n",
    b"\t",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b"\\",
    b"\0",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3",
    b"EXPLORE",
    b"FROM",
    b"VIA",
    b"RETURN",
    b"LIMIT",
    b"WHERE",
    b"SEARCH",
    b"-[",
    b"]->",
    b"<-[",
    b"#",
    b"BEGIN;",
    b"COMMIT;",
    b"UPSERT",
    b"SET",
    b"=",
    b"99999999999999999999",
    b"-1",
    b"1e308",
    b"NaN",
    b"null",
    b"true",
    b":ID",
    b":START_ID",
    b":END_ID",
    b":TYPE",
    b":LABEL",
    b"\"\"",
];

fn mutate(seed: &[u8], edits: &[Edit], other: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for &(pos, byte, op) in edits {
        let at = if b.is_empty() {
            0
        } else {
            pos as usize % (b.len() + 1)
        };
        match op % 7 {
            0 if at < b.len() => b[at] ^= 1 << (byte % 8),
            1 => b.insert(at, byte),
            2 if at < b.len() => {
                b.remove(at);
            }
            3 => b.truncate(at),
            4 => {
                let t = TOKENS[byte as usize % TOKENS.len()];
                b.splice(at..at, t.iter().copied());
            }
            5 if !other.is_empty() => {
                // splice a piece of another seed
                let from = pos as usize % other.len();
                let len = (byte as usize).min(other.len() - from);
                b.splice(at..at, other[from..from + len].iter().copied());
            }
            6 if at < b.len() => {
                let end = (at + byte as usize).min(b.len());
                let piece = b[at..end].to_vec();
                b.splice(at..at, piece);
            }
            _ => {}
        }
    }
    b
}

/// Runs `check` on mutations of `seeds` until the budget is spent; panics (after the run)
/// if any input made it panic.
fn fuzz(name: &str, seeds: &[Vec<u8>], mut check: impl FnMut(&[u8])) {
    let strategy = (
        0..seeds.len(),
        0..seeds.len(),
        proptest::collection::vec((any::<u16>(), any::<u8>(), any::<u8>()), 0..12),
    );
    let mut runner = TestRunner::deterministic();
    let started = Instant::now();
    let (mut cases, mut panics) = (0u64, 0u64);
    let budget = budget();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    while started.elapsed() < budget {
        let (s, o, edits) = strategy.new_tree(&mut runner).unwrap().current();
        let input = mutate(&seeds[s], &edits, &seeds[o]);
        cases += 1;
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| check(&input))) {
            panics += 1;
            let why = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            eprintln!("{name}: PANIC ({why}) on input {input:?}");
        }
    }
    std::panic::set_hook(hook);
    eprintln!(
        "fuzz {name}: {cases} inputs in {:.0} s, {panics} panics",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(panics, 0, "{name}: {panics} panics");
}

#[test]
#[ignore = "fuzzing: docs/RELIABILITY.md gives the command"]
fn fuzz_parser() {
    let doc = include_str!("../docs/LANGUAGE.md");
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let mut block: Option<String> = None;
    for line in doc.lines() {
        match (&mut block, line.trim_start().starts_with("```")) {
            (None, true) if line.contains("explore") => block = Some(String::new()),
            (Some(b), true) => {
                seeds.push(std::mem::take(b).into_bytes());
                block = None;
            }
            (Some(b), false) => {
                b.push_str(line);
                b.push('\n');
            }
            _ => {}
        }
    }
    seeds.extend(
        [
            "UPSERT Author \"a9\" SET name = \"Ann Lee\", h_index = 12, fields = [\"graphs\", \"ml\"]",
            "ADD EDGE Author \"a9\" -[AUTHORED]-> Paper \"p1\" SET position = 1 WEIGHT 0.5",
            "REMOVE NODE Author \"a9\"",
            "CREATE INDEX ON Author(name)",
            "RELATION CITES UNDER RELATED",
            "DESCRIBE Author",
            "SHOW LABELS",
            "ASK \"who wrote p1?\"",
        ]
        .map(|s| s.as_bytes().to_vec()),
    );
    assert!(seeds.len() > 10, "no seeds from LANGUAGE.md");
    fuzz("parser", &seeds, |input| {
        let text = String::from_utf8_lossy(input);
        let _ = cairn::query::parse(&text);
    });
}

#[test]
#[ignore = "fuzzing: docs/RELIABILITY.md gives the command"]
fn fuzz_dump_readers() {
    let tmp = tempfile::tempdir().unwrap();
    let db = cairn::Cairn::open(tmp.path().join("db")).unwrap();
    let seeds: Vec<Vec<u8>> = [
        "{\"type\":\"node\",\"label\":\"Author\",\"key\":\"a1\",\"props\":{\"name\":\"Jiawei Han\",\"h_index\":180},\"description\":\"Author.\"}\n{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"p1\",\"props\":{\"tags\":[\"kdd\"],\"year\":2000}}\n{\"type\":\"edge\",\"rel\":\"AUTHORED\",\"from\":{\"label\":\"Author\",\"key\":\"a1\"},\"to\":{\"label\":\"Paper\",\"key\":\"p1\"},\"props\":{\"position\":1},\"weight\":1.0}\n",
        ":ID(Author),name,h_index:int,:LABEL\na1,\"Ann, Lee\",12,Author\na2,\"Bo \"\"B\"\" Chen\",3,Author\n",
        ":START_ID(Author),:END_ID(Author),:TYPE,since:int\na1,a2,KNOWS,2001\n",
        "a1\tKNOWS\ta2\na2\tCITES\tp1\n",
        // the records an export writes beside nodes and edges, and id groups holding `:`
        "{\"type\":\"embedder\",\"id\":\"none\",\"dim\":0}\n{\"type\":\"schema\",\"kind\":\"label\",\"name\":\"Author\",\"aliases\":[\"writer\"]}\n{\"type\":\"node\",\"label\":\"Author\",\"key\":\"a1\"}\n",
        ":ID(Doc:v2),title,:LABEL\nd1,\"A\",Doc\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let mut n = 0u64;
    fuzz("dump readers", &seeds, |input| {
        n += 1;
        // The format by the content's look, and sometimes gzipped.
        let ext = if input.starts_with(b"{") {
            "jsonl"
        } else if input.contains(&b'\t') {
            "tsv"
        } else {
            "csv"
        };
        let gz = n % 4 == 0;
        let file = tmp
            .path()
            .join(format!("d.{ext}{}", if gz { ".gz" } else { "" }));
        let bytes = if gz {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(input).unwrap();
            let mut z = e.finish().unwrap();
            if n % 8 == 0 {
                z.truncate(z.len() * 2 / 3); // a truncated stream
            }
            z
        } else {
            input.to_vec()
        };
        std::fs::write(&file, bytes).unwrap();
        let options = cairn::ImportOptions {
            embedder: cairn::ImportEmbedder::None,
            max_errors: (n % 3) as usize,
            ..Default::default()
        };
        let _ = db.import(&[&file], options);
    });
}

#[test]
#[ignore = "fuzzing: docs/RELIABILITY.md gives the command"]
fn fuzz_index_loader() {
    use cairn::NodeId;
    use cairn_vector::{HnswParams, Stamp, VectorIndex};
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("vectors.hnsw");
    let stamp = Stamp {
        seq: 7,
        embedder_id: "fuzz".into(),
    };
    // Seeds: real files of small random indexes (the loader checks the checksum first, so
    // mutations mostly meet that check; the valid seeds exercise the whole parser).
    let mut seeds = Vec::new();
    let mut rng = TestRunner::deterministic();
    for i in 0..24usize {
        let dim = 1 + i % 6;
        let params = HnswParams {
            m: 2 + i % 5,
            ef_construction: 8,
            threads: 1,
            ..HnswParams::default()
        };
        let mut index = VectorIndex::new(dim, params);
        for node in 0..(i * 3) as u64 {
            let v: Vec<f32> = proptest::collection::vec(-1.0f32..1.0, dim)
                .new_tree(&mut rng)
                .unwrap()
                .current();
            index.insert(NodeId(node), cairn::LabelId(0), &v).unwrap();
        }
        if i % 3 == 0 {
            index.delete(NodeId(0));
        }
        index.save(&path, &stamp).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        // Each seed loads back.
        VectorIndex::load(&path, &stamp, dim, HnswParams::default()).unwrap();
        seeds.push(bytes);
    }
    fuzz("index loader", &seeds, |input| {
        std::fs::write(&path, input).unwrap();
        let dim = if input.len() > 16 {
            input[12] as usize
        } else {
            1
        };
        let _ = VectorIndex::load(&path, &stamp, dim, HnswParams::default());
    });
}

#[test]
#[ignore = "fuzzing: docs/RELIABILITY.md gives the command"]
fn fuzz_record_decoders() {
    use cairn::format::records::{decode_id_range, decode_u64, decode_vector, encode_vector};
    use cairn::format::value::decode_ordered;
    use cairn::format::{
        Annotation, AnnotationsRecord, CatalogRecord, ChangeKey, ChangeRecord, Degree, EdgeProps,
        EmbedderDef, ExternalKey, InEdgeKey, IndexDef, LinkingRecord, NodeKey, OutEdgeKey,
        PropIndexKey, RelationDef,
    };
    use cairn::{LabelId, NodeId, NodeRecord, PropKeyId, RelId, Value};
    let node = NodeRecord {
        label: LabelId(1),
        key: "a1".into(),
        props: vec![
            (PropKeyId(0), Value::from("Ann")),
            (PropKeyId(1), Value::Int(-3)),
            (PropKeyId(2), Value::Float(0.5)),
            (
                PropKeyId(3),
                Value::List(vec![Value::Bool(true), Value::Null]),
            ),
        ],
        description: Some("x".into()),
    };
    let edge = EdgeProps {
        weight: Some(0.5),
        props: vec![(PropKeyId(3), Value::Bool(true))],
    };
    let prop_key = PropIndexKey {
        label: LabelId(1),
        prop: PropKeyId(2),
        value: Value::from("a\0b"),
        node: NodeId(5),
    };
    let catalog = CatalogRecord {
        labels: vec!["Author".into(), "Paper".into()],
        relations: vec![RelationDef {
            name: "CITES".into(),
            parent: None,
            endpoints: vec![(LabelId(1), LabelId(1))],
        }],
        prop_keys: vec!["name".into()],
        indexes: vec![IndexDef {
            label: LabelId(0),
            prop: PropKeyId(0),
        }],
        embedder: Some(EmbedderDef {
            id: "cairn-hash-v1/384".into(),
            dim: 384,
        }),
    };
    // The change log's entry (one per commit, replayed by the derived indexes) and the schema's
    // annotations and linking records.
    let change = ChangeRecord {
        nodes_upserted: vec![NodeId(1), NodeId(7)],
        nodes_removed: vec![NodeId(3)],
        edges_added: vec![(NodeId(1), RelId(0), NodeId(7))],
        edges_removed: vec![(NodeId(7), RelId(2), NodeId(1))],
        props_touched: vec![NodeId(1)],
        vectors_touched: vec![NodeId(7)],
        imported: Some((100, 140)),
        catalog_changed: true,
    };
    let annotations = AnnotationsRecord {
        labels: vec![(
            LabelId(0),
            Annotation {
                description: Some("a person".into()),
                aliases: vec!["writer".into()],
            },
        )],
        relations: vec![(
            RelId(1),
            Annotation {
                description: None,
                aliases: vec!["penned".into(), "wrote".into()],
            },
        )],
        props: vec![],
    };
    let linking = LinkingRecord {
        unlinked_labels: vec![LabelId(2), LabelId(5)],
    };
    let seeds = vec![
        node.encode().unwrap(),
        change.encode().unwrap(),
        annotations.encode().unwrap(),
        linking.encode().unwrap(),
        ChangeKey(41).encode().to_vec(),
        edge.encode().unwrap(),
        catalog.encode().unwrap(),
        Degree { out: 2, inc: -1 }.encode().to_vec(),
        prop_key.encode().unwrap(),
        encode_vector(&[1.0, -2.0]),
        NodeKey(NodeId(258)).encode().to_vec(),
        vec![0, 0, 0, 2, b'a', b'-', b'1'],
        vec![0u8; 20],
    ];
    fuzz("record decoders", &seeds, |b| {
        let _ = NodeRecord::decode(b);
        let _ = EdgeProps::decode(b);
        let _ = CatalogRecord::decode(b);
        let _ = Degree::decode(b);
        let _ = PropIndexKey::decode(b);
        let _ = NodeKey::decode(b);
        let _ = ExternalKey::decode(b);
        let _ = OutEdgeKey::decode(b);
        let _ = InEdgeKey::decode(b);
        let _ = decode_u64(b);
        let _ = decode_id_range(b);
        let _ = decode_vector(b, 2);
        let _ = decode_ordered(b);
        let _ = ChangeKey::decode(b);
        let _ = AnnotationsRecord::decode(b);
        let _ = LinkingRecord::decode(b);
        if let Ok(r) = ChangeRecord::decode(b) {
            let bytes = r.encode().expect("a decoded change record encodes");
            let again = ChangeRecord::decode(&bytes)
                .ok()
                .and_then(|x| x.encode().ok());
            assert_eq!(again, Some(bytes), "ChangeRecord");
        }
        // What decodes encodes to bytes that decode and encode to the same bytes (postcard
        // accepts over-long varints, so the input itself may differ; NaN != NaN as values).
        if let Ok(r) = NodeRecord::decode(b) {
            let bytes = r.encode().expect("a decoded record encodes");
            let again = NodeRecord::decode(&bytes)
                .ok()
                .and_then(|x| x.encode().ok());
            assert_eq!(again, Some(bytes), "NodeRecord");
        }
        if let Ok(r) = CatalogRecord::decode(b) {
            let bytes = r.encode().expect("a decoded record encodes");
            let again = CatalogRecord::decode(&bytes)
                .ok()
                .and_then(|x| x.encode().ok());
            assert_eq!(again, Some(bytes), "CatalogRecord");
        }
    });
}

/// The full-text index directory (`<db>/text`, tantivy's files): one of its files mutated per
/// input, then opened by a fresh handle of a read-only store (which rebuilds in memory what
/// it cannot open, and so never changes the directory) and searched, with and without a
/// label. A damaged index is an error or a rebuild, never a panic. The first byte of a seed
/// names the file it holds.
#[test]
#[ignore = "fuzzing: docs/RELIABILITY.md gives the command"]
fn fuzz_text_index() {
    use std::sync::Arc;
    let tmp = tempfile::tempdir().unwrap();
    let db_path = tmp.path().join("db");
    let dump = tmp.path().join("d.jsonl");
    let topics = [
        "graph mining",
        "query plans",
        "vector search",
        "crash safety",
    ];
    let body: String = (0..60)
        .map(|i| {
            let label = ["Author", "Paper"][i % 2];
            let topic = topics[i % topics.len()];
            format!(
                "{{\"type\":\"node\",\"label\":\"{label}\",\"key\":\"k{i}\",\"props\":{{\"name\":\"{topic} {i}\"}},\"description\":\"work on {topic}, number {i}\"}}\n"
            )
        })
        .collect();
    std::fs::write(&dump, body).unwrap();
    {
        let db = cairn::Cairn::open(&db_path).unwrap();
        let options = cairn::ImportOptions {
            embedder: cairn::ImportEmbedder::None,
            ..Default::default()
        };
        db.import(&[&dump], options).unwrap();
        db.build_text_index().unwrap();
    }
    let dir = cairn::text_dir(&db_path);
    let mut files: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.ends_with(".tantivy-writer.lock"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    let seeds: Vec<Vec<u8>> = files
        .iter()
        .enumerate()
        .map(|(i, (_, bytes))| [&[i as u8][..], bytes].concat())
        .collect();
    let graph =
        Arc::new(cairn::Graph::open_read_only(&db_path, cairn::GraphOptions::default()).unwrap());
    let labels = [graph.catalog().label_id("Paper").unwrap()];
    // The seeds open and find what they hold.
    let store = cairn_text::TextStore::new(Arc::clone(&graph), &db_path);
    store.refresh().unwrap();
    assert!(!store.search("graph", None, 5).unwrap().is_empty());
    let mut last = 0;
    fuzz("text index", &seeds, |input| {
        std::fs::write(&files[last].0, &files[last].1).unwrap();
        let Some((&which, bytes)) = input.split_first() else {
            return;
        };
        last = which as usize % files.len();
        std::fs::write(&files[last].0, bytes).unwrap();
        let store = cairn_text::TextStore::new(Arc::clone(&graph), &db_path);
        if store.refresh().is_ok() {
            let _ = store.search("graph mining", None, 5);
            let _ = store.search("vector 7", Some(&labels), 5);
        }
    });
}
