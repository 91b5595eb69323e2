//! The crash-point harness (docs/RELIABILITY.md): random workloads of the `cairn` binary —
//! single statements, `BEGIN … COMMIT` transactions, imports (new nodes through SST files,
//! updates through the final batch), `CREATE INDEX` (a catalog update), index saves and
//! one-shot SEARCHes (which bring the full-text index up to date from the change log and
//! commit it, or search the vector file beside the logged changes), every writable process
//! merging small table files as it closes — each
//! run as a child process that is aborted at a named failpoint (`CAIRN_CRASH_AT`, the
//! `test-hooks` build the tests run), killed with SIGKILL at a random moment, or left alone.
//! After each run the database is reopened and checked against a model of what was
//! acknowledged: every acknowledged change present, nothing unacknowledged visible, no torn
//! group (the state must equal the model plus a prefix of the unacknowledged groups, in
//! order), the property and name indexes agreeing with the records, the database answering EXPLORE, and no
//! temporary file left after the open. The derived indexes are checked too, as the next
//! process sees them (saved files plus the change log, in a read-only handle that writes
//! nothing): every node found by its key's word, the vector index holding exactly the nodes
//! that have a vector, and its answers equal (nodes, order, scores) to those of a copy of the
//! database whose indexes were rebuilt from the store; now and then a writable handle brings
//! them up to date, and its answers are compared with a rebuild's too.
//!
//! The same workloads run on a Redis Cluster database (`CAIRN_TEST_REDIS`), where the cluster
//! commit's failpoints are (`cluster.commit.logged`, `cluster.commit.applied`: an in-doubt
//! commit the next writable open rolls forward); there the reader is compared with the
//! writable handle's rebuild, the third of the time it runs.
//!
//! `crash_points_short` (in `cargo test`) runs until 15 crashes at 6 failpoints (at most 2
//! minutes); `crash_points_cluster_short` (in `.ci/run`, beside its cluster) until both cluster
//! failpoints crashed. The full run:
//! `CAIRN_CRASH_CRASHES=2000 cargo test --test crash -- --ignored --nocapture crash_points_long`
//! (`CAIRN_CRASH_SECS` bounds its time, `CAIRN_CRASH_SEED` repeats a run,
//! `CAIRN_CRASH_CLUSTER=1` runs it on the `CAIRN_TEST_REDIS` cluster).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{Cairn, GraphRead, Value};
use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A seeded, reproducible stream (the seed is printed with every failure).
struct Rng(ChaCha8Rng);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n.max(1))
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// What the database holds: `Item` nodes by key with their `v`, `LINK` edges by keys, and
/// whether `Item(v)` is indexed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    nodes: BTreeMap<String, i64>,
    edges: BTreeSet<(String, String)>,
    indexed: bool,
}

#[derive(Clone, Debug)]
enum Effect {
    Upsert(String, i64),
    Edge(String, String),
    Index,
}

/// One atomic change: acknowledged as a whole or not at all.
type Group = Vec<Effect>;

fn apply(state: &mut State, group: &Group) {
    for e in group {
        match e {
            Effect::Upsert(k, v) => {
                state.nodes.insert(k.clone(), *v);
            }
            Effect::Edge(a, b) => {
                state.edges.insert((a.clone(), b.clone()));
            }
            Effect::Index => state.indexed = true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// An import into a directory that holds no database yet (it creates one).
    Create,
    Statements,
    Import,
    CreateIndex,
    IndexBuild,
    /// A one-shot SEARCH: by words, or misspelt so that the hash vectors answer.
    Search,
}

/// A workload step: the command line, a file it reads, and its groups in commit order.
struct Op {
    kind: Kind,
    args: Vec<String>,
    file: Option<(String, String)>,
    groups: Vec<Group>,
}

const KEYS: u64 = 60;

fn key(rng: &mut Rng) -> String {
    format!("k{}", rng.below(KEYS))
}

/// A random op valid against `base` (edges only between nodes that exist by then).
fn random_op(rng: &mut Rng, base: &State, gid: &mut i64, exists: bool) -> Op {
    let roll = rng.below(100);
    let kind = if !exists {
        Kind::Create
    } else if base.nodes.is_empty() || roll < 30 {
        Kind::Import
    } else if roll < 75 {
        Kind::Statements
    } else if roll < 88 {
        Kind::Search
    } else if roll < 93 && !base.indexed {
        Kind::CreateIndex
    } else {
        Kind::IndexBuild
    };
    match kind {
        Kind::Create | Kind::Import => {
            let n = 2 + rng.below(30) as usize;
            let mut keys: Vec<String> = Vec::new();
            while keys.len() < n {
                let k = key(rng);
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            *gid += 1;
            let v = *gid;
            let mut body = String::new();
            let mut group = Group::new();
            for k in &keys {
                body.push_str(&format!(
                    "{{\"type\":\"node\",\"label\":\"Item\",\"key\":\"{k}\",\"props\":{{\"v\":{v}}},\"description\":\"item {k} of import {v}\"}}\n"
                ));
                group.push(Effect::Upsert(k.clone(), v));
            }
            for w in keys.windows(2) {
                body.push_str(&format!(
                    "{{\"type\":\"edge\",\"rel\":\"LINK\",\"from\":{{\"label\":\"Item\",\"key\":\"{}\"}},\"to\":{{\"label\":\"Item\",\"key\":\"{}\"}}}}\n",
                    w[0], w[1]
                ));
                group.push(Effect::Edge(w[0].clone(), w[1].clone()));
            }
            // The database records hash vectors (not the default), so that the vector
            // index's write paths are crashed too; later imports and writes embed with them.
            let mut args = vec!["import".into(), "@FILE".into()];
            if matches!(kind, Kind::Create) {
                args.extend(["--embedder".into(), "hash".into()]);
            }
            Op {
                kind,
                args,
                file: Some(("dump.jsonl".into(), body)),
                groups: vec![group],
            }
        }
        Kind::Statements => {
            let mut state = base.clone();
            let mut text = String::new();
            let mut groups = Vec::new();
            for _ in 0..1 + rng.below(6) {
                let tx = rng.chance(35);
                let mut group = Group::new();
                if tx {
                    text.push_str("BEGIN;\n");
                }
                for _ in 0..if tx { 2 + rng.below(3) } else { 1 } {
                    let existing: Vec<&String> = state.nodes.keys().collect();
                    if rng.chance(25) && existing.len() >= 2 {
                        let a = existing[rng.below(existing.len() as u64) as usize].clone();
                        let b = existing[rng.below(existing.len() as u64) as usize].clone();
                        text.push_str(&format!("ADD EDGE Item \"{a}\" -[LINK]-> Item \"{b}\";\n"));
                        group.push(Effect::Edge(a, b));
                    } else {
                        *gid += 1;
                        let k = key(rng);
                        text.push_str(&format!(
                            "UPSERT Item \"{k}\" SET v = {gid} DESCRIPTION \"item {k}\";\n"
                        ));
                        group.push(Effect::Upsert(k.clone(), *gid));
                    }
                    // Later statements of the op may use what earlier ones created.
                    apply(&mut state, &vec![group.last().unwrap().clone()]);
                }
                if tx {
                    text.push_str("COMMIT;\n");
                }
                groups.push(group);
            }
            Op {
                kind,
                args: vec!["query".into(), "-f".into(), "@FILE".into()],
                file: Some(("statements.txt".into(), text)),
                groups,
            }
        }
        Kind::CreateIndex => Op {
            kind,
            args: vec![
                "query".into(),
                "-e".into(),
                "CREATE INDEX ON Item(v)".into(),
            ],
            file: None,
            groups: vec![vec![Effect::Index]],
        },
        Kind::IndexBuild => Op {
            kind,
            args: vec!["index".into(), "build".into()],
            file: None,
            groups: vec![],
        },
        Kind::Search => {
            let k = key(rng);
            let words = if rng.chance(50) {
                format!("item {k}")
            } else {
                format!("itme {k}x")
            };
            Op {
                kind,
                args: vec![
                    "query".into(),
                    "-e".into(),
                    format!("EXPLORE \"s\" FROM SEARCH \"{words}\" IN Item TOP 3"),
                ],
                file: None,
                groups: vec![],
            }
        }
    }
}

/// How many of a statements op's groups its output acknowledges: a data statement's line
/// outside `BEGIN`, or `committed …`, each printed after the commit returned.
fn acknowledged_statements(stdout: &str) -> usize {
    let mut in_tx = false;
    let mut acks = 0;
    for line in stdout.lines() {
        if line.starts_with("transaction started") {
            in_tx = true;
        } else if line.starts_with("committed ") {
            in_tx = false;
            acks += 1;
        } else if !in_tx && (line.starts_with("added ") || line.starts_with("updated ")) {
            acks += 1;
        }
    }
    acks
}

enum Crash {
    None,
    At(String, u32),
    Kill(Duration),
}

struct Run {
    stdout: String,
    stderr: String,
    success: bool,
    signal: Option<i32>,
    elapsed: Duration,
}

fn run_cairn(db: &Path, args: &[String], crash: &Crash) -> Run {
    // CAIRN_CRASH_BIN: a copy of the binary for a long run, so that rebuilding meanwhile does
    // not swap it under the harness.
    let bin =
        std::env::var("CAIRN_CRASH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_cairn").into());
    let mut cmd = Command::new(bin);
    cmd.arg("--db")
        .arg(db)
        .args(args)
        .env_remove("CAIRN_DB")
        .env("CAIRN_FAILPOINT_TRACE", "1")
        // a closing writer merges small table files past 4 in a column family (32 otherwise),
        // so that a round's few dozen processes pass the merge's failpoints
        .env("CAIRN_CLOSE_MERGE_FILES", "4")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Crash::At(name, nth) = crash {
        cmd.env("CAIRN_CRASH_AT", format!("{name}@{nth}"));
    }
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    if let Crash::Kill(after) = crash {
        std::thread::sleep(*after);
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    Run {
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        success: status.success(),
        signal: status.signal(),
        elapsed: started.elapsed(),
    }
}

/// The failpoints a run passed, with how often.
fn trace(stderr: &str) -> BTreeMap<String, u32> {
    let mut hits = BTreeMap::new();
    for line in stderr.lines() {
        if let Some(name) = line.strip_prefix("failpoint: ") {
            if !name.starts_with("crashing at") {
                *hits.entry(name.to_string()).or_insert(0) += 1;
            }
        }
    }
    hits
}

/// The state of the database in `db`, read through the facade, with the checks that need the
/// open handle: the property and name indexes agree with the records, and an EXPLORE answers;
/// then the derived indexes' (with how many index states were compared with a rebuild's).
fn observe(db: &Path, backend: &Backend, context: &str) -> (State, u64) {
    let cairn =
        Cairn::open(db).unwrap_or_else(|e| panic!("{context}: the database does not open: {e}"));
    let graph = cairn.graph();
    let drift = graph.name_index_drift().unwrap();
    assert!(
        drift.is_empty(),
        "{context}: the name index drifted: {drift:?}"
    );
    let catalog = graph.catalog();
    let mut state = State {
        indexed: match (catalog.label_id("Item"), catalog.prop_id("v")) {
            (Some(l), Some(p)) => catalog.has_index(l, p),
            _ => false,
        },
        ..State::default()
    };
    let (Some(label), Some(v)) = (catalog.label_id("Item"), catalog.prop_id("v")) else {
        return (state, 0);
    };
    let ids = graph.label_nodes(label).unwrap();
    let mut keys = BTreeMap::new();
    for id in &ids {
        let rec = graph
            .node(*id)
            .unwrap()
            .unwrap_or_else(|| panic!("{context}: listed node {id:?} has no record"));
        let Some(Value::Int(x)) = rec.prop(v) else {
            panic!("{context}: node {} has no integer v: {rec:?}", rec.key);
        };
        state.nodes.insert(rec.key.clone(), *x);
        keys.insert(*id, rec.key.clone());
    }
    for id in &ids {
        for n in graph.neighbors(*id, cairn::Direction::Out, &[]).unwrap() {
            let dst = keys
                .get(&n.node)
                .unwrap_or_else(|| panic!("{context}: edge to a node that is not listed: {n:?}"));
            state.edges.insert((keys[id].clone(), dst.clone()));
        }
    }
    for (id, k) in &keys {
        let found = graph
            .find_eq("Item", "v", &Value::Int(state.nodes[k]))
            .unwrap();
        assert!(
            found.contains(id),
            "{context}: lookup of v of {k} misses it: {found:?}"
        );
    }
    if let Some(k) = state.nodes.keys().next() {
        cairn
            .explore(&format!("EXPLORE \"check\" FROM Item \"{k}\""))
            .unwrap_or_else(|e| panic!("{context}: EXPLORE fails: {e}"));
    }
    let with_vector: BTreeSet<cairn::NodeId> = ids
        .iter()
        .zip(graph.vectors(&ids).unwrap())
        .filter(|(_, v)| v.is_some())
        .map(|(id, _)| *id)
        .collect();
    let by_key: BTreeMap<String, cairn::NodeId> = keys.into_iter().map(|(id, k)| (k, id)).collect();
    drop(cairn);
    let compared = check_derived(db, backend, &by_key, &with_vector, context);
    (state, compared)
}

/// The queries the derived indexes are checked with: every key's word, and words every node
/// (or some) has.
fn index_queries() -> Vec<String> {
    (0..KEYS)
        .map(|i| format!("k{i}"))
        .chain(["item".to_string(), "import item".to_string()])
        .collect()
}

type Answers = (
    Vec<Vec<(cairn::NodeId, f32)>>,
    Option<Vec<Vec<(cairn::NodeId, f32)>>>,
);

/// The full-text and vector answers of `cairn` to [`index_queries`].
fn index_answers(cairn: &Cairn, context: &str) -> Answers {
    let queries = index_queries();
    let text = queries
        .iter()
        .map(|q| {
            cairn
                .text_search(q, Some("Item"), 100)
                .unwrap_or_else(|e| panic!("{context}: full-text search fails: {e}"))
        })
        .collect();
    let mut vectors = Some(Vec::new());
    for q in &queries {
        match cairn
            .index_search(q, Some("Item"), 100)
            .unwrap_or_else(|e| panic!("{context}: vector search fails: {e}"))
        {
            Some(hits) => vectors.as_mut().unwrap().push(hits),
            None => vectors = None,
        }
    }
    (text, vectors)
}

/// The derived indexes as the next process finds them (see the module comment). Returns how
/// many index states were compared with a rebuild's.
fn check_derived(
    db: &Path,
    backend: &Backend,
    by_key: &BTreeMap<String, cairn::NodeId>,
    with_vector: &BTreeSet<cairn::NodeId>,
    context: &str,
) -> u64 {
    // A reader writes nothing: the saved files and the log stay as the crash left them. One
    // searching the vector file in place beside the logged changes, one loading it.
    let store_only = by_key.len() % 2 == 0;
    let mut options = cairn::CairnOptions::new(db).read_only();
    if store_only {
        options = options.store_only();
    }
    let reader = Cairn::open_with(options)
        .unwrap_or_else(|e| panic!("{context}: a reader does not open: {e}"));
    let read = index_answers(&reader, context);
    for (i, hits) in read.0.iter().take(KEYS as usize).enumerate() {
        let want: Vec<cairn::NodeId> = by_key.get(&format!("k{i}")).copied().into_iter().collect();
        let got: Vec<cairn::NodeId> = hits.iter().map(|h| h.0).collect();
        assert_eq!(got, want, "{context}: full-text search for k{i}");
    }
    if let Some(vectors) = &read.1 {
        let all: BTreeSet<cairn::NodeId> = vectors[KEYS as usize].iter().map(|h| h.0).collect();
        assert_eq!(
            &all, with_vector,
            "{context}: the vector index (store only: {store_only}) does not hold the nodes \
             with vectors"
        );
    }
    drop(reader);
    let mut compared = 0;
    // A copy of the database with both indexes rebuilt from the store: the reader's answers
    // must be its answers, scores included (the original keeps what the crash left).
    if let Some(scratch) = backend.scratch(db) {
        let copied = Command::new("cp")
            .arg("-a")
            .arg(db)
            .arg(&scratch)
            .status()
            .unwrap();
        assert!(copied.success(), "{context}: copying the database");
        let copy = Cairn::open(&scratch).unwrap();
        copy.build_text_index().unwrap();
        let rebuilt_vectors = copy.build_index().is_ok();
        let rebuilt = index_answers(&copy, context);
        drop(copy);
        std::fs::remove_dir_all(&scratch).unwrap();
        compared += same_as_rebuilt(&read, &rebuilt, rebuilt_vectors, store_only, context);
    }
    // Now and then: brought up to date by a writable handle, then rebuilt; equal answers.
    if by_key.len() % 3 != 0 {
        return compared;
    }
    let cairn = Cairn::open(db).unwrap();
    let before = index_answers(&cairn, context);
    cairn.build_text_index().unwrap();
    let rebuilt_vectors = cairn.build_index().is_ok();
    let after = index_answers(&cairn, context);
    compared += same_as_rebuilt(&before, &after, rebuilt_vectors, false, context);
    if matches!(backend, Backend::Cluster(_)) {
        // No copy of a cluster database: the reader is compared with this rebuild instead.
        compared += same_as_rebuilt(&read, &after, rebuilt_vectors, store_only, context);
    }
    compared
}

/// Checks `answers` (of a reader when `store_only` is said) against those of indexes rebuilt
/// from the store; returns 1 (one index state compared).
fn same_as_rebuilt(
    answers: &Answers,
    rebuilt: &Answers,
    rebuilt_vectors: bool,
    store_only: bool,
    context: &str,
) -> u64 {
    same_answers(&answers.0, &rebuilt.0, &format!("{context}: full-text"));
    if let (true, Some(b), Some(a)) = (rebuilt_vectors, &answers.1, &rebuilt.1) {
        same_answers(
            b,
            a,
            &format!("{context}: vector (store only: {store_only})"),
        );
    } else if rebuilt_vectors {
        assert_eq!(
            answers.1.is_some(),
            rebuilt.1.is_some(),
            "{context}: vector index"
        );
    }
    1
}

/// Equal answers to every query, else a panic naming the first query that differs.
fn same_answers(
    before: &[Vec<(cairn::NodeId, f32)>],
    after: &[Vec<(cairn::NodeId, f32)>],
    what: &str,
) {
    for ((q, b), a) in index_queries().iter().zip(before).zip(after) {
        assert_eq!(b, a, "{what} answers to {q:?} differ from a rebuild's");
    }
}

/// No temporary left behind once the database has been opened.
fn assert_tidy(db: &Path, backend: &Backend, context: &str) {
    let local = backend.local_dir(db);
    for stray in ["import-tmp", "rocksdb.new", "vectors.hnsw.tmp"] {
        assert!(
            !local.join(stray).exists(),
            "{context}: {stray} left after an open"
        );
    }
    if matches!(backend, Backend::Cluster(_)) {
        return;
    }
    let empty_logs = std::fs::read_dir(db.join("rocksdb"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name().to_string_lossy().ends_with(".log")
                && e.metadata().map(|m| m.len() == 0).unwrap_or(false)
        })
        .count();
    assert!(empty_logs <= 1, "{context}: {empty_logs} empty WAL files");
}

#[derive(Default)]
struct Tally {
    runs: u64,
    crashes_at: BTreeMap<String, u64>,
    kills: u64,
    recovery_crashes: u64,
    acknowledged_groups: u64,
    in_doubt_applied: u64,
    in_doubt_dropped: u64,
    /// Index states (full-text and vector together) whose answers were compared with those of
    /// indexes rebuilt from the store.
    compared_with_rebuild: u64,
}

impl Tally {
    fn crashes(&self) -> u64 {
        // Crashes during recovery are counted at their failpoint too.
        self.crashes_at.values().sum::<u64>() + self.kills
    }
}

/// Where the harness's databases live: a directory per round, or a database per round on a
/// Redis Cluster (`redis://HOST:PORT`, docs/CLUSTER.md).
enum Backend {
    Rocks,
    Cluster(String),
}

impl Backend {
    /// The cluster named by `CAIRN_TEST_REDIS`, if any.
    fn cluster_from_env() -> Option<Backend> {
        std::env::var("CAIRN_TEST_REDIS")
            .ok()
            .filter(|s| !s.is_empty())
            .map(Backend::Cluster)
    }

    /// The database of one round, as `--db` and `Cairn::open` take it.
    fn database(&self, tmp: &Path, round: u32) -> PathBuf {
        match self {
            Backend::Rocks => tmp.join(format!("round-{round}")),
            Backend::Cluster(seed) => {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos();
                PathBuf::from(format!(
                    "{seed}/crash{}x{nanos}r{round}",
                    std::process::id()
                ))
            }
        }
    }

    /// The directory of the database's files beside the store (its derived indexes, an
    /// import's temporaries): the database itself on RocksDB, `cairn-cluster-NAME` in the
    /// temporary directory on a cluster (docs/STORAGE.md).
    fn local_dir(&self, db: &Path) -> PathBuf {
        match self {
            Backend::Rocks => db.to_path_buf(),
            Backend::Cluster(_) => {
                std::env::temp_dir().join(format!("cairn-cluster-{}", cluster_name(db)))
            }
        }
    }

    /// Where a copy of the database can be made (RocksDB only: a directory).
    fn scratch(&self, db: &Path) -> Option<PathBuf> {
        match self {
            Backend::Rocks => Some(db.with_extension("rebuilt")),
            Backend::Cluster(_) => None,
        }
    }

    /// Whether the database exists after a run (on a cluster, the next open creates it: an
    /// empty database, as if nothing had run).
    fn exists(&self, db: &Path) -> bool {
        match self {
            Backend::Rocks => db.join("rocksdb").join("CURRENT").exists(),
            Backend::Cluster(_) => true,
        }
    }

    /// After a process died: on a cluster its writer lease would keep the next writer out for
    /// up to 15 s, until it expires; expired now instead (what time would do, sooner).
    fn after_death(&self, db: &Path) {
        let Backend::Cluster(seed) = self else {
            return;
        };
        let name = cluster_name(db);
        let (host, port) = seed
            .trim_start_matches("redis://")
            .split(',')
            .next()
            .and_then(|h| h.rsplit_once(':'))
            .unwrap();
        let out = Command::new("redis-cli")
            .args(["-c", "-h", host, "-p", port, "DEL"])
            .arg(format!("{name}:C:{{{name}}}:writer"))
            .output()
            .unwrap();
        assert!(out.status.success(), "redis-cli DEL: {out:?}");
    }

    /// Removes what a round left (its local files; a cluster database's keys stay, small).
    fn clean(&self, db: &Path) {
        let _ = std::fs::remove_dir_all(self.local_dir(db));
    }
}

/// The database name of a cluster URL (`redis://HOST:PORT/NAME`).
fn cluster_name(db: &Path) -> String {
    let url = db.to_string_lossy();
    url.rsplit_once('/').unwrap().1.to_string()
}

/// What a run of the harness must reach before it stops (unless its time runs out first).
struct Want {
    crashes: u64,
    /// Distinct failpoints crashed at.
    points: usize,
    /// Failpoints that must be among them.
    named: &'static [&'static str],
}

fn harness(backend: &Backend, budget: Duration, want: Want) -> Tally {
    let seed = std::env::var("CAIRN_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("crash harness: seed {seed} (CAIRN_CRASH_SEED={seed} repeats this run)");
    let mut rng = Rng(ChaCha8Rng::seed_from_u64(seed));
    let tmp = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut tally = Tally::default();
    // Failpoints each kind of op passed, with their most hits in one run; how long it ran.
    let mut learned: BTreeMap<Kind, BTreeMap<String, u32>> = BTreeMap::new();
    let mut duration: BTreeMap<Kind, Duration> = BTreeMap::new();
    let mut gid = 0i64;
    let mut round = 0;
    let mut last_db: Option<PathBuf> = None;
    // Enough crashes, and at least one index state compared with a rebuild: a run whose
    // crashes all came before the first node exists compared none, so it goes on.
    let done = |t: &Tally| {
        t.compared_with_rebuild > 0
            && t.crashes() >= want.crashes
            && t.crashes_at.len() >= want.points
            && want.named.iter().all(|n| t.crashes_at.contains_key(*n))
    };
    'rounds: while started.elapsed() < budget && !done(&tally) {
        round += 1;
        if let Some(last) = last_db.take() {
            backend.clean(&last);
        }
        let db = backend.database(tmp.path(), round);
        last_db = Some(db.clone());
        let mut model = State::default();
        let mut exists = false;
        for step in 0..25 {
            if started.elapsed() >= budget || done(&tally) {
                break 'rounds;
            }
            let context = format!("seed {seed}, round {round}, step {step}");
            let op = random_op(&mut rng, &model, &mut gid, exists);
            let mut args = op.args.clone();
            if let Some((name, body)) = &op.file {
                let file = tmp.path().join(name);
                std::fs::write(&file, body).unwrap();
                for a in &mut args {
                    if a == "@FILE" {
                        *a = file.to_string_lossy().into_owned();
                    }
                }
            }
            let points = learned.get(&op.kind).cloned().unwrap_or_default();
            let roll = rng.below(100);
            let crash = if roll < 60 && !points.is_empty() {
                let (name, most) = points
                    .iter()
                    .nth(rng.below(points.len() as u64) as usize)
                    .unwrap();
                Crash::At(name.clone(), 1 + rng.below(u64::from(*most)) as u32)
            } else if roll < 85 {
                let d = duration
                    .get(&op.kind)
                    .copied()
                    .unwrap_or(Duration::from_millis(300));
                Crash::Kill(d.mul_f64(rng.below(1000) as f64 / 1000.0))
            } else {
                Crash::None
            };
            let run = run_cairn(&db, &args, &crash);
            tally.runs += 1;
            if run.signal.is_some() {
                backend.after_death(&db);
            }
            let entry = learned.entry(op.kind).or_default();
            for (name, n) in trace(&run.stderr) {
                let most = entry.entry(name).or_insert(0);
                *most = (*most).max(n);
            }
            let crashed = match (&crash, run.signal) {
                (Crash::At(name, _), Some(6)) => {
                    *tally.crashes_at.entry(name.clone()).or_insert(0) += 1;
                    true
                }
                (Crash::Kill(_), Some(9)) => {
                    tally.kills += 1;
                    true
                }
                _ => false,
            };
            // Nodes made by UPSERT have no vector: the index build refuses them, cleanly.
            let refused = op.kind == Kind::IndexBuild && run.stderr.contains("have no vector");
            if !crashed && !refused {
                assert!(
                    run.success,
                    "{context}: {:?} failed without a crash: {}\n{}",
                    op.args, run.stdout, run.stderr
                );
                duration.insert(op.kind, run.elapsed);
            }
            let acked = if !crashed {
                op.groups.len()
            } else if op.kind == Kind::Statements {
                acknowledged_statements(&run.stdout)
            } else {
                0
            };
            if !backend.exists(&db) {
                // Killed before the new database was renamed into place: nothing exists yet.
                assert!(
                    crashed && model == State::default(),
                    "{context}: the database vanished"
                );
                continue;
            }
            exists = true;
            // A crash during recovery (the rollback of an interrupted import), then a clean open.
            if crashed && op.kind != Kind::Statements && rng.chance(30) {
                let point = if rng.chance(50) {
                    "open.rollback.before_write"
                } else {
                    "open.rollback.after_write"
                };
                let r = run_cairn(&db, &["stats".to_string()], &Crash::At(point.into(), 1));
                if r.signal.is_some() {
                    backend.after_death(&db);
                }
                if r.signal == Some(6) {
                    tally.recovery_crashes += 1;
                    *tally.crashes_at.entry(point.to_string()).or_insert(0) += 1;
                }
            }
            let (actual, compared) = observe(&db, backend, &context);
            tally.compared_with_rebuild += compared;
            assert_tidy(&db, backend, &context);
            // The state must be the model plus the acknowledged groups plus a prefix of the rest.
            let mut candidate = model.clone();
            let mut matched = None;
            for (i, group) in op.groups.iter().enumerate() {
                if i >= acked && candidate == actual {
                    matched = Some(i);
                    break;
                }
                apply(&mut candidate, group);
            }
            if matched.is_none() && candidate == actual {
                matched = Some(op.groups.len());
            }
            let Some(applied) = matched else {
                panic!(
                    "{context}: after {:?} (crash {:?}, {acked} of {} groups acknowledged) the \
                     database holds neither the acknowledged state nor a later prefix.\nmodel: \
                     {model:?}\nactual: {actual:?}\nstdout: {}\nstderr: {}",
                    op.args,
                    match &crash {
                        Crash::None => "none".to_string(),
                        Crash::At(n, k) => format!("{n}@{k}"),
                        Crash::Kill(d) => format!("kill after {d:?}"),
                    },
                    op.groups.len(),
                    run.stdout,
                    run.stderr
                );
            };
            tally.acknowledged_groups += acked as u64;
            tally.in_doubt_applied += (applied - acked) as u64;
            tally.in_doubt_dropped += (op.groups.len() - applied) as u64;
            model = actual;
            if tally.runs % 50 == 0 {
                eprintln!(
                    "crash harness: {} runs, {} crashes at {} distinct failpoints + {} kills, {:.0} s",
                    tally.runs,
                    tally.crashes(),
                    tally.crashes_at.len(),
                    tally.kills,
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    eprintln!(
        "crash harness: {} runs, {} crashes ({} at {} distinct failpoints, {} SIGKILLs at random \
         moments; {} of them during recovery); {} acknowledged groups all present, unacknowledged \
         groups found applied {} / absent {}; {} index states answered as a rebuild; {:.0} s",
        tally.runs,
        tally.crashes(),
        tally.crashes_at.values().sum::<u64>(),
        tally.crashes_at.len(),
        tally.kills,
        tally.recovery_crashes,
        tally.acknowledged_groups,
        tally.in_doubt_applied,
        tally.in_doubt_dropped,
        tally.compared_with_rebuild,
        started.elapsed().as_secs_f64()
    );
    for (name, n) in &tally.crashes_at {
        eprintln!("  {name}: {n}");
    }
    if let Some(last) = last_db {
        backend.clean(&last);
    }
    tally
}

#[test]
fn crash_points_short() {
    // Until 15 crashes at 6 failpoints (about 25 s on a quiet 2-core machine), at most 2
    // minutes on a busy one.
    let want = Want {
        crashes: 15,
        points: 6,
        named: &[],
    };
    let tally = harness(&Backend::Rocks, Duration::from_secs(120), want);
    assert!(tally.crashes() >= 10, "too few crashes in the short run");
    assert!(
        tally.crashes_at.len() >= 5,
        "too few distinct failpoints reached"
    );
    assert!(tally.compared_with_rebuild > 0);
}

/// Each failpoint of the merge a closing writer does (small table files, `settle.rs`): a
/// process aborted there leaves every acknowledged write, and indexes that answer as a rebuild.
#[test]
fn crash_inside_the_close_merge() {
    let tmp = tempfile::tempdir().unwrap();
    for (round, point) in [
        "close.merge.before",
        "close.merge.writing",
        "close.merge.after",
    ]
    .into_iter()
    .enumerate()
    {
        let db = tmp.path().join(format!("merge-{round}"));
        drop(Cairn::open(&db).unwrap());
        let mut model = State::default();
        // One-shot writes, each to be aborted at `point`: past 4 small files in a column
        // family (every open adds one) a closing writer merges them, so the fifth or so passes
        // the merge, and aborts there.
        let mut crashed = false;
        for i in 0..20 {
            let k = format!("k{i}");
            let statement = format!("UPSERT Item \"{k}\" SET v = {i} DESCRIPTION \"item {k}\"");
            let run = run_cairn(
                &db,
                &["query".into(), "-e".into(), statement],
                &Crash::At(point.into(), 1),
            );
            assert!(
                run.stdout.starts_with("added "),
                "{}\n{}",
                run.stdout,
                run.stderr
            );
            model.nodes.insert(k, i);
            if run.signal == Some(6) {
                assert!(run.stderr.contains(&format!("crashing at {point}")));
                crashed = true;
                break;
            }
            assert!(run.success, "{}", run.stderr);
        }
        assert!(crashed, "20 one-shot writes never passed {point}");
        let context = format!("aborted at {point}");
        let (actual, compared) = observe(&db, &Backend::Rocks, &context);
        assert_eq!(actual, model, "{context}");
        assert!(compared > 0);
        assert_tidy(&db, &Backend::Rocks, &context);
    }
}

/// The cluster commit's own failpoints (the record logged, the writes applied, not finished:
/// the next writable open rolls it forward), on the cluster `CAIRN_TEST_REDIS` names.
#[test]
fn crash_points_cluster_short() {
    let Some(backend) = Backend::cluster_from_env() else {
        eprintln!("skipped: set CAIRN_TEST_REDIS to a cluster (`.ci/run` does)");
        return;
    };
    let want = Want {
        crashes: 10,
        points: 4,
        named: &["cluster.commit.logged", "cluster.commit.applied"],
    };
    let tally = harness(&backend, Duration::from_secs(300), want);
    for name in ["cluster.commit.logged", "cluster.commit.applied"] {
        assert!(
            tally.crashes_at.contains_key(name),
            "no crash at {name} in 300 s"
        );
    }
}

/// The full run: on RocksDB, or on the cluster `CAIRN_TEST_REDIS` names when
/// `CAIRN_CRASH_CLUSTER=1`.
#[test]
#[ignore = "long: docs/RELIABILITY.md gives the command"]
fn crash_points_long() {
    let want = std::env::var("CAIRN_CRASH_CRASHES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let secs = std::env::var("CAIRN_CRASH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6 * 3600);
    let backend = if std::env::var("CAIRN_CRASH_CLUSTER").is_ok_and(|v| v == "1") {
        Backend::cluster_from_env().expect("CAIRN_CRASH_CLUSTER=1 needs CAIRN_TEST_REDIS")
    } else {
        Backend::Rocks
    };
    let tally = harness(
        &backend,
        Duration::from_secs(secs),
        Want {
            crashes: want,
            points: 0,
            named: &[],
        },
    );
    assert!(tally.crashes() >= want);
    assert!(
        tally.crashes_at.len() >= 20.min(want as usize / 10),
        "{} distinct failpoints",
        tally.crashes_at.len()
    );
}
