//! Many processes that each open the database, commit one small write and close (one-shot
//! `cairn query -e 'UPSERT …'`) leave a bounded number of table files: each open writes the
//! previous process's log out as small level-0 files, and a closing writer compacts them once
//! they pile up, so the next open does not open thousands of files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::Value;
use cairn_store::{Graph, GraphOptions, GraphRead};

fn table_files(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("rocksdb"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sst")
        })
        .count()
}

#[test]
fn one_write_per_open_leaves_a_bounded_number_of_table_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut most = 0;
    for i in 0..100 {
        let g = Graph::open(dir.path(), GraphOptions::default()).unwrap();
        let mut w = g.writer().unwrap();
        w.upsert_node(
            "Paper",
            &format!("p{i}"),
            [("title", Value::from(format!("Title {i}")))],
            None,
        )
        .unwrap();
        w.commit().unwrap();
        drop(g);
        most = most.max(table_files(dir.path()));
    }
    // without the merge on close: about 4 new files per open, 380 here; with it at most about
    // CLOSE_MERGE_SMALL_FILES (32) in each of the 5 column families a write touches
    assert!(most < 200, "{most} table files");
    let g = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    for i in 0..100 {
        assert!(g.node_id("Paper", &format!("p{i}")).unwrap().is_some());
    }
}
