//! SEARCH through the full-text index, from the facade and from separate `cairn` processes: a
//! one-shot write is found by the next one-shot SEARCH without a rebuild, a default import
//! stores no vectors, fusion orders by reciprocal rank, and a written DEPTH 1 expands only the
//! entries.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod facade;

use cairn::{fuse, Cairn, ImportEmbedder, NodeId};
use facade::academic_with;
use std::path::Path;
use std::process::{Command, Output};

fn cairn(db: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn a_one_shot_write_is_found_by_the_next_one_shot_search_without_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    {
        let c = Cairn::open(&db).unwrap();
        academic_with(&c, 600, ImportEmbedder::Database);
        c.refresh_text().unwrap();
        c.refresh_index().unwrap();
    }
    for i in 0..3 {
        let title = format!("Quokka{i} zebrafish morphology atlas");
        cairn(
            &db,
            &[
                "query",
                "-e",
                &format!("UPSERT Paper \"px{i}\" SET title = \"{title}\""),
            ],
        );
        let out = cairn(
            &db,
            &[
                "query",
                "-e",
                &format!(
                    "EXPLORE \"atlas\" FROM SEARCH \"quokka{i} atlas\" IN Paper TOP 1 DEPTH 1"
                ),
            ],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stdout.contains(&format!("px{i}")), "{stdout}");
        assert!(!stderr.contains("rebuilding"), "{stderr}");
    }
    // the index's stamp is the store's counter: the next open is current, nothing rebuilt
    let c = Cairn::open(&db).unwrap();
    assert_eq!(c.refresh_text().unwrap(), cairn::TextRefresh::Opened);
}

#[test]
fn depth_one_expands_the_entries_and_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let c = Cairn::open(dir.path()).unwrap();
    academic_with(&c, 3000, ImportEmbedder::Database);
    let found = c
        .explore(
            r#"EXPLORE "graph neural networks" FROM SEARCH "graph neural networks" IN Paper TOP 3 DEPTH 1"#,
        )
        .unwrap();
    assert!(found.stats.nodes_expanded <= 3, "{:?}", found.stats);
    assert!(!found.results.is_empty());
    // without DEPTH the adaptive expansion may still go past the default depth
    let found = c
        .explore(
            r#"EXPLORE "graph neural networks" FROM SEARCH "graph neural networks" IN Paper TOP 3"#,
        )
        .unwrap();
    assert!(found.stats.nodes_expanded >= 3);
}

#[test]
fn search_ranks_by_words_and_fusion_by_reciprocal_rank() {
    let dir = tempfile::tempdir().unwrap();
    let c = Cairn::open(dir.path()).unwrap();
    academic_with(&c, 1000, ImportEmbedder::Database);
    let hits = c
        .text_search("graph neural networks", Some("Paper"), 5)
        .unwrap();
    assert_eq!(hits.len(), 5);
    let names = c
        .names(&hits.iter().map(|h| h.0).collect::<Vec<_>>())
        .unwrap();
    for n in &names {
        let n = n.to_lowercase();
        assert!(
            n.contains("graph") || n.contains("neural") || n.contains("networks"),
            "{n}"
        );
    }
    assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1));
    // fusion: first in both beats first in one; ties by node id
    let a = [(NodeId(1), 9.0), (NodeId(2), 8.0), (NodeId(3), 7.0)];
    let b = [(NodeId(2), 0.9), (NodeId(4), 0.8)];
    let fused = fuse(&[&a, &b], 3);
    let ids: Vec<u64> = fused.iter().map(|h| h.0 .0).collect();
    assert_eq!(ids, [2, 1, 4]);
}

#[test]
fn an_import_without_indexes_leaves_them_to_the_first_search() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dump = dir.path().join("nodes.jsonl");
    std::fs::write(
        &dump,
        "{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"p1\",\"props\":{\"title\":\"Wombat burrow acoustics\"}}\n\
         {\"type\":\"node\",\"label\":\"Paper\",\"key\":\"p2\",\"props\":{\"title\":\"Lattice sieving\"}}\n",
    )
    .unwrap();
    cairn(&db, &["import", dump.to_str().unwrap(), "--no-index"]);
    // not indexed on close either: `--no-index` costs no index work
    assert!(!cairn::text_dir(&db).exists());
    let out = cairn(
        &db,
        &[
            "query",
            "-e",
            "EXPLORE \"w\" FROM SEARCH \"wombat acoustics\" IN Paper TOP 1 DEPTH 1",
        ],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("p1"));
    // a later one-shot write on a current index is saved on exit: the next open replays nothing
    cairn(
        &db,
        &[
            "query",
            "-e",
            "UPSERT Paper \"p3\" SET title = \"Numbat gait\"",
        ],
    );
    let c = Cairn::open(&db).unwrap();
    assert_eq!(c.refresh_text().unwrap(), cairn::TextRefresh::Opened);
}
