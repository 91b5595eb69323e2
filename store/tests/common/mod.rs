//! The backends the graph-level conformance suite runs on: RocksDB in a temporary directory
//! always; a Redis Cluster too when `CAIRN_TEST_REDIS` names one (`redis://HOST:PORT`; `.ci/run`
//! starts a local one with scripts/redis-cluster.sh), each test on a database of its own name.
#![allow(dead_code, clippy::unwrap_used)]

use cairn_store::{Graph, GraphOptions};

/// One fresh database of one backend: open it as many times as a test needs.
pub struct TestDb {
    pub name: &'static str,
    /// A directory path, or a cluster database URL.
    location: String,
    _dir: Option<tempfile::TempDir>,
}

/// A cluster database keeps its derived files (vector index, spills) in `cairn-cluster-NAME`
/// in the temporary directory; the test's database goes, so does that directory.
impl Drop for TestDb {
    fn drop(&mut self) {
        if self._dir.is_none() {
            if let Some(name) = self.location.rsplit('/').next() {
                let local = std::env::temp_dir().join(format!("cairn-cluster-{name}"));
                let _ = std::fs::remove_dir_all(local);
            }
        }
    }
}

impl TestDb {
    /// The writable handle (reopened: the state survives).
    pub fn open(&self) -> Graph {
        Graph::open(&self.location, GraphOptions::default()).unwrap()
    }

    /// A read-only handle beside the writer.
    pub fn open_reader(&self) -> Graph {
        Graph::open_read_only(&self.location, GraphOptions::default()).unwrap()
    }
}

/// A fresh database on each backend.
pub fn backends() -> Vec<TestDb> {
    let dir = tempfile::tempdir().unwrap();
    let mut out = vec![TestDb {
        name: "rocksdb",
        location: dir.path().to_string_lossy().into_owned(),
        _dir: Some(dir),
    }];
    if let Some(url) = std::env::var("CAIRN_TEST_REDIS")
        .ok()
        .filter(|u| !u.is_empty())
    {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        out.push(TestDb {
            name: "redis-cluster",
            location: format!("{url}/g{}x{nanos}x{n}", std::process::id()),
            _dir: None,
        });
    }
    out
}
