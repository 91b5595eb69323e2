//! Readers beside a writer, as two real processes: one `cairn` holds the database (a REPL fed
//! through a pipe that stays open, or an import paused between ingesting and committing) while
//! other `cairn` invocations and a long-lived read-only REPL answer from it and, after catching
//! up, see the writer's new commit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::text;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// `cairn --db DB ARGS…`.
fn cairn(db: &Path, args: &[&str]) -> Output {
    let db = db.to_str().unwrap();
    common::cairn(&[&["--db", db][..], args].concat())
}

/// A running `cairn` with its stdin open and its output lines arriving on channels.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    out: Receiver<String>,
    err: Receiver<String>,
}

fn lines(pipe: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn spawn(db: &Path, args: &[&str], env: &[(&str, &str)]) -> Running {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cairn"));
    cmd.arg("--db")
        .arg(db)
        .args(args)
        .env_remove("CAIRN_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stdin = child.stdin.take();
    let out = lines(child.stdout.take().unwrap());
    let err = lines(child.stderr.take().unwrap());
    Running {
        child,
        stdin,
        out,
        err,
    }
}

/// Waits for a line containing `needle`; returns the lines seen up to it.
fn wait_for(rx: &Receiver<String>, needle: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => {
                let hit = line.contains(needle);
                seen.push(line);
                if hit {
                    return seen;
                }
            }
            Err(_) => break,
        }
    }
    panic!("no line with {needle:?}; got {seen:#?}");
}

impl Running {
    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes stdin (the end of a REPL script) and returns the exit code.
    fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        self.child.wait().unwrap().code().unwrap()
    }
}

fn import_generated(dir: &Path, db: &Path) {
    let dump = dir.join("dump");
    let o = common::cairn(&[
        "generate",
        "academic",
        "--nodes",
        "400",
        "--seed",
        "3",
        "--out",
        dump.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = cairn(db, &["import", dump.to_str().unwrap(), "--no-index"]);
    assert!(o.status.success(), "{:?}", text(&o));
}

const HELD: &str = "opened read-only (another process holds the database); showing sequence";

#[test]
fn readers_answer_beside_a_repl_that_holds_the_database_and_see_its_commits() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    import_generated(dir.path(), &db);

    // Process A: the writer, a REPL whose input stays open.
    let mut a = spawn(&db, &["repl"], &[]);
    a.send("SHOW LABELS;");
    wait_for(&a.out, "Author");

    // Process B, one invocation at a time, while A holds the database.
    let o = cairn(&db, &["stats"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(err.contains(HELD), "{err}");
    assert_eq!(err.lines().count(), 1, "one line about freshness: {err}");
    assert!(out.contains("relation   AUTHORED Author->Paper"), "{out}");
    assert!(!out.contains("index      Author(name)"), "{out}");
    let o = cairn(
        &db,
        &[
            "query",
            "-e",
            r#"EXPLORE "venues" FROM Author "a1" VIA AUTHORED -> PUBLISHED_IN TARGET Venue"#,
        ],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("-PUBLISHED_IN->"), "{out}");
    // SEARCH builds the vector index in memory; the file is the writer's to save.
    let o = cairn(
        &db,
        &[
            "query",
            "-e",
            r#"EXPLORE "mining" FROM SEARCH "data mining" IN Topic TOP 1 VIA ANY"#,
        ],
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(
        !db.join("vectors.hnsw").exists(),
        "a reader wrote the index file"
    );
    let o = cairn(
        &db,
        &["explain", r#"EXPLORE "x" FROM Author "a1" VIA AUTHORED"#],
    );
    assert!(o.status.success(), "{:?}", text(&o));

    // A long-lived reader: a REPL opened read-only on its own because A holds the database.
    let mut c = spawn(&db, &["repl"], &[]);
    wait_for(&c.err, HELD);
    c.send(".schema");
    let before = wait_for(&c.out, "properties");
    assert!(
        !before.iter().any(|l| l.contains("Author(name)")),
        "{before:?}"
    );

    // A commits: the index on Author(name), with one entry per author.
    a.send("CREATE INDEX ON Author(name);");
    wait_for(&a.out, "index on Author(name) created");

    let o = cairn(&db, &["stats"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.contains("index      Author(name)"),
        "a new invocation sees it: {out}"
    );
    // The REPL catches up before each command.
    c.send(".schema");
    let after = wait_for(&c.out, "properties");
    assert!(
        after.iter().any(|l| l.contains("Author(name)")),
        "{after:?}"
    );
    c.send(".refresh");
    wait_for(&c.out, "nothing new: showing sequence");
    c.send(r#"EXPLORE "x" FROM Author "a1" VIA AUTHORED TARGET Paper;"#);
    wait_for(&c.out, "result(s)");
    // Writes are refused in the read-only session, with exit code 2 for the script.
    c.send("CREATE INDEX ON Paper(title);");
    wait_for(&c.err, "is open read-only");
    c.send(r#"UPSERT Author "ro1" SET name = "Nobody";"#);
    wait_for(&c.err, "is open read-only");
    c.send("BEGIN;");
    wait_for(&c.err, "is open read-only");
    assert_eq!(c.finish(), 2);
    // So is a data statement of a one-shot reader.
    let o = cairn(
        &db,
        &["query", "-e", r#"UPSERT Author "ro2" SET name = "Nobody""#],
    );
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(text(&o).1.contains("is open read-only"), "{:?}", text(&o));
    // The writer sees neither.
    a.send(r#"EXPLORE "x" FROM Author "ro1" VIA AUTHORED;"#);
    wait_for(&a.err, r#"entry Author "ro1" does not exist"#);

    // A writing command beside the writer is refused; --read-only is for readers only.
    let o = cairn(&db, &["import", dir.path().join("dump").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    assert!(
        text(&o).1.contains("locked by another process"),
        "{:?}",
        text(&o)
    );
    let o = cairn(&db, &["--read-only", "index", "build"]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(text(&o).1.contains("--read-only is for"), "{:?}", text(&o));

    assert_eq!(a.finish(), 1, "the writer's failed EXPLORE of ro1");
    // With the writer gone, stats opens as the writer again: no read-only line.
    let o = cairn(&db, &["stats"]);
    assert!(o.status.success());
    assert!(!text(&o).1.contains("read-only"), "{:?}", text(&o));
}

#[test]
fn readers_do_not_see_an_import_until_it_commits() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    import_generated(dir.path(), &db);
    let new = dir.path().join("new.jsonl");
    std::fs::write(
        &new,
        concat!(
            r#"{"type":"node","label":"Author","key":"zz1","props":{"name":"Zed Newcomer"}}"#,
            "\n",
            r#"{"type":"node","label":"Paper","key":"zp1","props":{"title":"Late arrivals"}}"#,
            "\n",
            r#"{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"zz1"},"to":{"label":"Paper","key":"zp1"}}"#,
            "\n",
            r#"{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"zz1"},"to":{"label":"Paper","key":"p1"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let from_new = r#"EXPLORE "papers" FROM Author "zz1" VIA AUTHORED TARGET Paper"#;
    let to_old =
        r#"EXPLORE "authors" FROM Paper "p1" VIA <AUTHORED TARGET Author RETURN NODES LIMIT 50"#;

    // A long-lived reader opened before the import, with --read-only.
    let mut c = spawn(&db, &["--read-only", "repl"], &[]);
    wait_for(&c.err, "opened read-only (--read-only)");

    // Process A: the import, paused after its files are ingested and before it commits.
    let mut a = spawn(
        &db,
        &["import", new.to_str().unwrap(), "--no-index"],
        &[("CAIRN_TEST_IMPORT_PAUSE_MS", "8000")],
    );
    drop(a.stdin.take());
    wait_for(&a.err, "files ingested, pausing");

    let o = cairn(&db, &["stats"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(err.contains(HELD), "{err}");
    assert!(
        err.contains("an import in progress there is not shown"),
        "{err}"
    );
    let o = cairn(&db, &["query", "-e", from_new]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    assert!(
        text(&o).1.contains(r#"entry Author "zz1" does not exist"#),
        "{:?}",
        text(&o)
    );
    let o = cairn(&db, &["query", "-e", to_old]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(!text(&o).0.contains("Zed Newcomer"), "{}", text(&o).0);
    c.send(".refresh");
    wait_for(&c.out, "an import in progress there is not shown");
    c.send(&format!("{to_old};"));
    let seen = wait_for(&c.out, "result(s)");
    assert!(
        !seen.iter().any(|l| l.contains("Zed Newcomer")),
        "{seen:#?}"
    );

    let code = a.child.wait().unwrap().code();
    assert_eq!(code, Some(0));
    let o = cairn(&db, &["query", "-e", from_new]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("Late arrivals"), "{out}");
    // The long-lived reader sees the commit once it catches up (before each statement).
    c.send(&format!("{to_old};"));
    let seen = wait_for(&c.out, "result(s)");
    assert!(seen.iter().any(|l| l.contains("Zed Newcomer")), "{seen:#?}");
    assert_eq!(c.finish(), 0);
}

#[test]
fn a_read_only_open_of_a_missing_database_is_an_error_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none");
    for args in [
        &["--read-only", "stats"][..],
        &["--read-only", "query", "-e", "SHOW LABELS"],
        &["--read-only", "repl"],
    ] {
        let o = cairn(&db, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {:?}", text(&o));
        assert!(text(&o).1.contains("does not exist"), "{:?}", text(&o));
        assert!(!db.exists(), "{args:?} created the database");
    }
}

/// The facade's read-only handle beside a writable one (one process, two handles): queries,
/// catch-up, refused writes, and the embedder a catch-up brings.
#[test]
fn a_read_only_cairn_catches_up_and_refuses_writes() {
    use cairn::{
        Cairn, CairnError, CancelToken, EngineError, HashEmbedder, ImportEmbedder, ImportOptions,
        Value,
    };
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let writer = Cairn::open(dir.path()).unwrap();
    let mut w = writer.graph().writer().unwrap();
    let a = w
        .upsert_node("Author", "a1", [("name", Value::from("Ann"))], None)
        .unwrap();
    let p = w
        .upsert_node("Paper", "p1", [("title", Value::from("Beams"))], None)
        .unwrap();
    w.add_edge(a, "AUTHORED", p, Default::default()).unwrap();
    w.relation("WROTE").unwrap();
    w.commit().unwrap();

    let reader = Cairn::open_read_only(dir.path()).unwrap();
    assert!(reader.freshness().is_some() && writer.freshness().is_none());
    let papers = r#"EXPLORE "papers" FROM Author "a1" VIA AUTHORED TARGET Paper"#;
    assert_eq!(reader.explore(papers).unwrap().results.len(), 1);
    let default_embedder = reader.embedder().id().to_owned();

    // The writer's first import records an embedder other than the reader's default.
    let dump = dir.path().join("more.jsonl");
    std::fs::write(
        &dump,
        concat!(
            r#"{"type":"node","label":"Paper","key":"p2","props":{"title":"Late"},"description":"A late paper."}"#,
            "\n",
            r#"{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"a1"},"to":{"label":"Paper","key":"p2"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let small: Arc<dyn cairn::Embedder> = Arc::new(HashEmbedder::new(32));
    let small_id = small.id().to_owned();
    assert_ne!(small_id, default_embedder);
    writer
        .import(
            std::slice::from_ref(&dump),
            ImportOptions {
                embedder: ImportEmbedder::Use(small),
                ..Default::default()
            },
        )
        .unwrap();

    assert_eq!(
        reader.explore(papers).unwrap().results.len(),
        1,
        "not caught up yet"
    );
    assert!(reader.catch_up().unwrap());
    assert_eq!(reader.explore(papers).unwrap().results.len(), 2);
    assert_eq!(
        reader.embedder().id(),
        small_id,
        "the catalog's new embedder"
    );
    assert!(!reader.catch_up().unwrap());

    let read_only = |e: CairnError| matches!(e, CairnError::Engine(EngineError::ReadOnly { .. }));
    let cancel = CancelToken::default();
    assert!(read_only(
        reader
            .execute("CREATE INDEX ON Author(name)", &cancel)
            .unwrap_err()
    ));
    assert!(read_only(
        reader
            .execute("RELATION AUTHORED UNDER WROTE", &cancel)
            .unwrap_err()
    ));
    assert!(read_only(
        reader
            .import(&[dump], ImportOptions::default())
            .unwrap_err()
    ));
    assert!(read_only(reader.build_index().unwrap_err()));
    assert!(writer.graph().catalog().indexes().is_empty());
}
