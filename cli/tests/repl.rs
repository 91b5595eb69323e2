//! `cairn repl` driven through a pseudo-terminal, as a person would use it: a multi-line
//! statement, an error with its caret, a dot-command, Ctrl-C, and history that outlives the
//! session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rexpect::process::WaitStatus;
use rexpect::session::{spawn_with_options, Options, PtySession};
use std::path::Path;
use std::process::Command;

/// Every wait is this long at most: a loaded 2-core machine runs debug builds slowly.
const TIMEOUT_MS: u64 = 120_000;
const PROMPT: &str = "cairn> ";
const CONTINUE: &str = "...> ";
const IN_TRANSACTION: &str = "cairn*> ";
const UP: &str = "\x1b[A";

fn repl(db: &Path, home: &Path) -> PtySession {
    let mut cmd = cairn_at(db, &["repl"]);
    cmd.env("CAIRN_HISTORY", home.join("history"))
        .env("HOME", home)
        // rustyline edits lines only on a terminal it knows; CI may have no TERM at all.
        .env("TERM", "xterm")
        .env("NO_COLOR", "1");
    let options = Options::new()
        .timeout_ms(Some(TIMEOUT_MS))
        .strip_ansi_escape_codes(true);
    spawn_with_options(cmd, options).expect("start cairn repl in a pty")
}

/// `cairn --db <db> <args…>`, not reading the caller's `CAIRN_DB`.
fn cairn_at(db: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cairn"));
    cmd.arg("--db").arg(db).args(args).env_remove("CAIRN_DB");
    cmd
}

/// Runs `cairn --db db args…` to the end and fails the test unless it succeeded.
fn run_ok(db: &Path, args: &[&str]) {
    let out = cairn_at(db, args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Types a line and presses Enter (a terminal sends CR; rustyline runs in raw mode).
fn enter(p: &mut PtySession, line: &str) {
    p.send(line).unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
}

fn exited(p: &mut PtySession) -> WaitStatus {
    p.exp_eof().unwrap();
    p.process().wait().unwrap()
}

#[test]
fn repl_session_with_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    run_ok(&db, &["demo", "--nodes", "1500"]);
    // Words for a relation, which `.schema` shows (with the control character escaped).
    run_ok(
        &db,
        &[
            "query",
            "-e",
            r#"ANNOTATE RELATION AUTHORED DESCRIPTION "wrote\u{1b}[2J" ALIASES ("penned")"#,
        ],
    );
    run_ok(&db, &["query", "-e", "ANNOTATE LABEL Topic LINKING OFF"]);

    // First session.
    let mut p = repl(&db, &home);
    p.exp_string(".help for help").unwrap();
    p.exp_string(PROMPT).unwrap();
    enter(&mut p, r#"EXPLORE "venues of an author""#);
    p.exp_string(CONTINUE).unwrap();
    enter(&mut p, r#"  FROM Author "a1""#);
    p.exp_string(CONTINUE).unwrap();
    enter(&mut p, "  VIA AUTHORED -> PUBLISHED_IN");
    p.exp_string(CONTINUE).unwrap();
    enter(&mut p, "  TARGET Venue;");
    let table = p.exp_string("result(s); stopped:").unwrap();
    assert!(table.contains("#  score  label"), "a table header: {table}");
    assert!(
        table.contains("Venue") && table.contains("-PUBLISHED_IN->"),
        "rows with evidence paths: {table}"
    );
    p.exp_string(PROMPT).unwrap();

    enter(&mut p, r#"EXPLORE "x" BEEM 8;"#);
    let error = p.exp_string("did you mean `BEAM`?").unwrap();
    assert!(
        error.contains("BEEM") && error.contains("unexpected here"),
        "a labelled span under BEEM: {error}"
    );
    p.exp_string(PROMPT).unwrap();

    enter(&mut p, ".schema");
    let schema = p.exp_string(PROMPT).unwrap();
    assert!(
        schema.contains("labels") && schema.contains("Author"),
        "{schema}"
    );
    assert!(
        schema.contains("AUTHORED") && schema.contains("Author -> Paper"),
        "relations with endpoints: {schema}"
    );
    assert!(
        schema.contains(
            r#"annotation  ANNOTATE RELATION AUTHORED DESCRIPTION "wrote\u{1b}[2J" ALIASES ("penned")"#
        ),
        "annotations, escaped: {schema}"
    );
    assert!(
        schema.contains("annotation  ANNOTATE LABEL Topic LINKING OFF"),
        "a label that only has its linking: {schema}"
    );

    // Ctrl-C at the prompt drops the unfinished statement, and the session goes on.
    enter(&mut p, r#"EXPLORE "never run""#);
    p.exp_string(CONTINUE).unwrap();
    p.send_control('c').unwrap();
    p.exp_string(PROMPT).unwrap();
    enter(&mut p, ".quit");
    let status = exited(&mut p);
    assert!(matches!(status, WaitStatus::Exited(_, 0)), "{status:?}");

    let history = std::fs::read_to_string(home.join("history")).unwrap();
    assert!(
        history.contains(r#"FROM Author "a1""#) && history.contains(".schema"),
        "{history}"
    );
    assert!(
        !history.contains("never run"),
        "an interrupted statement is not remembered: {history}"
    );

    // Second session: the first one's statements are a few Up presses away, and run again.
    let mut p = repl(&db, &home);
    p.exp_string(PROMPT).unwrap();
    // History, newest first: .quit, .schema, the bad statement, the multi-line EXPLORE.
    p.send(&UP.repeat(4)).unwrap();
    p.flush().unwrap();
    p.exp_string("TARGET Venue;").unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
    let table = p.exp_string("result(s); stopped:").unwrap();
    assert!(table.contains("-PUBLISHED_IN->"), "{table}");
    p.exp_string(PROMPT).unwrap();

    // Ctrl-C while a statement runs cancels it (or, if it already finished, clears the prompt);
    // either way the session survives and answers the next statement.
    enter(
        &mut p,
        r#"EXPLORE "graphs" FROM SEARCH "graph" TOP 50 VIA ANY BEAM 1024 DEPTH 16 BUDGET 1000000 UNTIL time 10m;"#,
    );
    std::thread::sleep(std::time::Duration::from_millis(100));
    p.send_control('c').unwrap();
    let (_, stop) = p.exp_regex("stopped: [a-z ]+;").unwrap();
    eprintln!("after Ctrl-C: {stop}");
    enter(&mut p, "SHOW LABELS;");
    p.exp_string("Venue").unwrap();
    p.exp_string(PROMPT).unwrap();
    // Inside BEGIN the prompt says that nothing is saved yet.
    enter(&mut p, "BEGIN;");
    p.exp_string("transaction started").unwrap();
    p.exp_string(IN_TRANSACTION).unwrap();
    enter(&mut p, r#"UPSERT Author "zz" SET name = "Zed";"#);
    p.exp_string(r#"added Author "zz""#).unwrap();
    p.exp_string(IN_TRANSACTION).unwrap();
    enter(&mut p, "ROLLBACK;");
    p.exp_string("rolled back 1 data statement(s)").unwrap();
    p.exp_string(PROMPT).unwrap();
    // Ctrl-D leaves.
    p.send_control('d').unwrap();
    let status = exited(&mut p);
    assert!(matches!(status, WaitStatus::Exited(_, 0)), "{status:?}");
}

/// A database of one author and one paper, imported by the binary.
fn small_db(dir: &Path) -> std::path::PathBuf {
    let dump = dir.join("small.jsonl");
    std::fs::write(
        &dump,
        concat!(
            r#"{"type":"node","label":"Author","key":"a1","props":{"name":"Jiawei Han"}}"#,
            "\n",
            r#"{"type":"node","label":"Paper","key":"p1","props":{"title":"Data Mining"}}"#,
            "\n",
            r#"{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"a1"},"to":{"label":"Paper","key":"p1"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let db = dir.join("db");
    let out = cairn_at(&db, &["import", "--no-index"])
        .arg(&dump)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// Runs `cairn repl` with `script` piped to it: (exit code, stdout, stderr).
fn piped(db: &Path, script: &str) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = cairn_at(db, &["repl"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The catalog and node counts as `query` prints them, to compare a database before and after.
fn census(db: &Path) -> String {
    let out = cairn_at(
        db,
        &[
            "query",
            "-e",
            "SHOW LABELS; SHOW RELATIONS; DESCRIBE Author; DESCRIBE Paper",
        ],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const WRITES: &str = r#"BEGIN;
UPSERT Author "a9" SET name = "Ann Lee", h_index = 12 DESCRIPTION "Ann Lee works on graphs.";
UPSERT Paper "p9" SET title = "Graphs; a /* survey */", year = 2024;
UPSERT Venue "v1" SET name = "KDD";
ADD EDGE Author "a9" -[AUTHORED]-> Paper "p9" SET position = 1;
ADD EDGE Author "a9" -[AUTHORED]-> Paper "p1" WEIGHT 0.5;
ADD EDGE Paper "p9" -[PUBLISHED_IN]-> Venue "v1";
"#;

#[test]
fn piped_script_writes_in_a_transaction_and_explores_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let before = census(&db);
    assert!(before.contains("Author: 1 nodes"), "{before}");

    let script = format!(
        "{WRITES}COMMIT;\n\
         EXPLORE \"Ann's venues\" FROM Author \"a9\" VIA AUTHORED -> PUBLISHED_IN TARGET Venue;\n\
         EXPLORE \"Ann's papers\" FROM Author \"a9\" VIA AUTHORED TARGET Paper;\n"
    );
    let (code, out, err) = piped(&db, &script);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("committed 6 data statement(s)"), "{out}");
    assert!(
        out.contains("KDD") && out.contains("-PUBLISHED_IN->"),
        "{out}"
    );
    assert!(
        out.contains("Graphs; a /* survey */") && out.contains("Data Mining"),
        "{out}"
    );
    let after = census(&db);
    assert!(
        after.contains("Author: 2 nodes") && after.contains("Paper: 2 nodes"),
        "{after}"
    );
    assert!(
        after.contains("Venue") && after.contains("PUBLISHED_IN"),
        "{after}"
    );
}

#[test]
fn piped_script_ending_in_rollback_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let before = census(&db);
    let script = format!(
        "{WRITES}ROLLBACK;\n\
         EXPLORE \"Ann's papers\" FROM Author \"a9\" VIA AUTHORED TARGET Paper;\n"
    );
    let (code, out, err) = piped(&db, &script);
    assert!(
        out.contains("rolled back 6 data statement(s)"),
        "{out}{err}"
    );
    // The exploration after the rollback finds no node "a9" to start from.
    assert!(!out.contains("Graphs; a /* survey */"), "{out}");
    assert!(err.contains(r#"entry Author "a9" does not exist"#), "{err}");
    assert_eq!(code, Some(1), "the failed EXPLORE's exit code: {err}");
    assert_eq!(census(&db), before, "the database is unchanged");

    // Input that ends inside BEGIN rolls back too, and says so.
    let (code, _, err) = piped(&db, WRITES);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("rolled back"), "{err}");
    assert_eq!(census(&db), before, "the database is unchanged");
}

/// Ctrl-C stops a wide search quickly (issue 33: the REPL took up to 8 s on a wide round, when
/// the executor looked at the cancel token only between expansions). One expansion of a hub
/// reaches 40,000 nodes, a second or more of scoring in a debug build. The bound is not an absolute
/// time: the same search, run to its end twice in the same session just before, sets it, so a
/// slow or loaded machine slows both alike.
#[test]
fn ctrl_c_stops_a_wide_search_well_before_its_end() {
    use std::fmt::Write as _;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mut dump = String::from(
        r#"{"type":"node","label":"Hub","key":"h0","props":{"name":"hub"},"description":"the hub"}"#,
    );
    dump.push('\n');
    for i in 0..40_000 {
        writeln!(
            dump,
            r#"{{"type":"node","label":"Leaf","key":"l{i}","props":{{"name":"leaf {i}"}},"description":"leaf {i} on graph mining topic {}"}}"#,
            i % 97
        )
        .unwrap();
        writeln!(
            dump,
            r#"{{"type":"edge","rel":"HAS","from":{{"label":"Hub","key":"h0"}},"to":{{"label":"Leaf","key":"l{i}"}}}}"#
        )
        .unwrap();
    }
    let file = dir.path().join("star.jsonl");
    std::fs::write(&file, dump).unwrap();
    run_ok(&db, &["import", "--no-index", file.to_str().unwrap()]);
    // One round: every leaf of the hub scored.
    let wide = r#"EXPLORE "graph mining" FROM Hub "h0" VIA HAS BEAM 1024 FANOUT 1000000 DEPTH 1;"#;
    let mut p = repl(&db, &home);
    p.exp_string(PROMPT).unwrap();
    // Times as the REPL reports them (`…; 123.4 ms`): the pty is read only every 100 ms.
    let reported = |p: &mut PtySession| {
        let (_, summary) = p
            .exp_regex(r"result\(s\); stopped: [a-z ]+;[^\r\n]* ([0-9.]+) ms")
            .unwrap();
        let ms: f64 = summary
            .rsplit(' ')
            .nth(1)
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("no time in {summary:?}"));
        Duration::from_secs_f64(ms / 1000.0)
    };
    let mut full = Duration::MAX;
    for _ in 0..2 {
        enter(&mut p, wide);
        full = full.min(reported(&mut p));
        p.exp_string(PROMPT).unwrap();
    }
    eprintln!("the wide search, uninterrupted: {full:?}");
    enter(&mut p, wide);
    let entered = Instant::now();
    std::thread::sleep(full / 10);
    let sent = entered.elapsed();
    p.send_control('c').unwrap();
    let ran = reported(&mut p);
    p.exp_string("cancelled (Ctrl-C)").unwrap();
    let stopped = ran.saturating_sub(sent);
    eprintln!("Ctrl-C after {sent:?}: stopped {stopped:?} later");
    // Unfixed, it stopped only once the round was scored.
    assert!(
        stopped < full / 6,
        "Ctrl-C took {stopped:?} to stop a search that takes {full:?} to finish"
    );
    p.exp_string(PROMPT).unwrap();
    enter(&mut p, ".quit");
    let status = exited(&mut p);
    assert!(matches!(status, WaitStatus::Exited(_, 0)), "{status:?}");
}
