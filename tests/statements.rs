//! Data statements and transactions through the library: `Cairn::execute` commits each data
//! statement alone, a `Session` holds `BEGIN … COMMIT` in one writer batch. Real RocksDB in a
//! temporary directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{Cairn, CairnError, CancelToken, GraphRead, Output, Session};

fn text(o: Output) -> String {
    match o.text() {
        Some(t) => t,
        None => panic!("not text: {o:?}"),
    }
}

fn run(s: &mut Session<'_>, stmt: &str) -> Result<String, CairnError> {
    s.execute_with(stmt, &CancelToken::default(), false)
        .map(text)
}

/// The first line of `DESCRIBE`: the label's node count.
fn count(db: &Cairn, label: &str) -> String {
    let t = text(
        db.execute(&format!("DESCRIBE {label}"), &CancelToken::default())
            .unwrap(),
    );
    t.lines().next().unwrap_or("").to_owned()
}

fn relations(db: &Cairn) -> String {
    text(
        db.execute("SHOW RELATIONS", &CancelToken::default())
            .unwrap(),
    )
}

#[test]
fn a_data_statement_outside_a_transaction_commits_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let c = CancelToken::default();
    let out = text(
        db.execute(r#"UPSERT Author "a1" SET name = "Ann""#, &c)
            .unwrap(),
    );
    assert_eq!(out, r#"added Author "a1""#);
    let out = text(
        db.execute(r#"UPSERT Author "a1" SET h_index = 3"#, &c)
            .unwrap(),
    );
    assert_eq!(out, r#"updated Author "a1""#);
    db.execute(r#"UPSERT Paper "p1" SET title = "P""#, &c)
        .unwrap();
    db.execute(r#"ADD EDGE Author "a1" -[AUTHORED]-> Paper "p1""#, &c)
        .unwrap();
    let found = db
        .explore(r#"EXPLORE "papers" FROM Author "a1" VIA AUTHORED TARGET Paper"#)
        .unwrap();
    assert_eq!(found.results[0].name, "P");
    // The first UPSERT's name survived the second: SET replaces only the keys it lists.
    let id = db.graph().node_id("Author", "a1").unwrap().unwrap();
    let rec = db.graph().node(id).unwrap().unwrap();
    assert_eq!(rec.props.len(), 2, "{rec:?}");

    let err = db
        .execute(r#"ADD EDGE Author "a1" -[CITES]-> Paper "nope""#, &c)
        .unwrap_err();
    assert!(
        matches!(err, CairnError::NoSuchNode(ref n) if n == r#"Paper "nope""#),
        "{err}"
    );
    assert!(
        !relations(&db).contains("CITES"),
        "a failed statement adds no name"
    );
    assert!(matches!(
        db.execute("BEGIN", &c),
        Err(CairnError::Transaction(_))
    ));
    let out = text(db.execute(r#"REMOVE NODE Author "a1""#, &c).unwrap());
    assert!(out.contains("removed node"), "{out}");
    assert_eq!(count(&db, "Author"), "Author: 0 nodes");
}

#[test]
fn a_session_holds_a_transaction_with_savepoints() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let mut s = db.session();
    run(&mut s, r#"UPSERT Author "a0" SET name = "Zed""#).unwrap();
    assert!(matches!(
        run(&mut s, "COMMIT"),
        Err(CairnError::Transaction(_))
    ));
    run(&mut s, "BEGIN").unwrap();
    assert!(s.in_transaction());
    run(&mut s, r#"UPSERT Author "a1" SET name = "Ann""#).unwrap();
    run(&mut s, r#"UPSERT Paper "p1""#).unwrap();
    // `Paper`, created in this transaction, resolves for the next data statement.
    run(&mut s, r#"ADD EDGE Author "a1" -[AUTHORED]-> Paper "p1""#).unwrap();
    // Reads see the last commit, and schema statements wait for the end (no deadlock).
    assert_eq!(run(&mut s, "SHOW LABELS").unwrap(), "Author");
    let err = run(&mut s, "CREATE INDEX ON Author(name)").unwrap_err();
    assert!(matches!(err, CairnError::Transaction(_)), "{err}");
    run(&mut s, "SAVEPOINT edges").unwrap();
    run(&mut s, r#"UPSERT Paper "p2""#).unwrap();
    run(&mut s, r#"ADD EDGE Author "a1" -[REVIEWED]-> Paper "p2""#).unwrap();
    // A failing statement leaves the rest of the transaction as it was.
    let err = run(&mut s, r#"ADD EDGE Author "a1" -[CITES]-> Paper "p3""#).unwrap_err();
    assert!(matches!(err, CairnError::NoSuchNode(_)), "{err}");
    assert!(s.in_transaction());
    let err = run(&mut s, "ROLLBACK TO nowhere").unwrap_err();
    assert!(
        err.to_string().contains("edges"),
        "lists the savepoints: {err}"
    );
    let out = run(&mut s, "ROLLBACK TO edges").unwrap();
    assert!(out.contains("rolled back 2 data statement(s)"), "{out}");
    run(&mut s, r#"UPSERT Paper "p3""#).unwrap();
    let out = run(&mut s, "COMMIT").unwrap();
    assert_eq!(out, "committed 4 data statement(s)");
    assert!(!s.in_transaction());

    assert_eq!(count(&db, "Paper"), "Paper: 2 nodes");
    let rels = relations(&db);
    assert!(
        rels.contains("AUTHORED") && !rels.contains("REVIEWED") && !rels.contains("CITES"),
        "{rels}"
    );
    let found = db
        .explore(r#"EXPLORE "papers" FROM Author "a1" VIA AUTHORED TARGET Paper"#)
        .unwrap();
    assert_eq!(found.results.len(), 1);
}

#[test]
fn rollback_and_a_dropped_session_leave_the_database_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    db.execute(r#"UPSERT Author "a0""#, &CancelToken::default())
        .unwrap();
    {
        let mut s = db.session();
        run(&mut s, "BEGIN").unwrap();
        run(&mut s, r#"UPSERT Author "a1""#).unwrap();
        run(&mut s, r#"REMOVE NODE Author "a0""#).unwrap();
        assert_eq!(
            run(&mut s, "ROLLBACK").unwrap(),
            "rolled back 2 data statement(s)"
        );
        run(&mut s, "BEGIN").unwrap();
        run(&mut s, r#"UPSERT Author "a2""#).unwrap();
        // Dropped here with the transaction open.
    }
    assert_eq!(count(&db, "Author"), "Author: 1 nodes");
    // The writer was released: a new transaction can start.
    let mut s = db.session();
    run(&mut s, "BEGIN").unwrap();
    assert!(matches!(
        run(&mut s, "BEGIN"),
        Err(CairnError::Transaction(_))
    ));
    run(&mut s, "COMMIT").unwrap();
}
