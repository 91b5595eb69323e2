//! The backends the graph-level conformance suite runs on: RocksDB in a temporary directory
//! always; more when the environment names them (docs/STORAGE.md, "Conformance").
#![allow(dead_code, clippy::unwrap_used)]

use cairn_store::{Graph, GraphOptions};

/// One fresh database of one backend: open it as many times as a test needs.
pub struct TestDb {
    pub name: &'static str,
    dir: tempfile::TempDir,
}

impl TestDb {
    /// The writable handle (reopened: the state survives).
    pub fn open(&self) -> Graph {
        Graph::open(self.dir.path(), GraphOptions::default()).unwrap()
    }

    /// A read-only handle beside the writer.
    pub fn open_reader(&self) -> Graph {
        Graph::open_read_only(self.dir.path(), GraphOptions::default()).unwrap()
    }
}

/// A fresh database on each backend.
pub fn backends() -> Vec<TestDb> {
    vec![TestDb {
        name: "rocksdb",
        dir: tempfile::tempdir().unwrap(),
    }]
}
