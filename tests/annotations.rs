//! Annotations through the library: `ANNOTATE` stores a description and aliases in the catalog
//! (persisted, shown by `DESCRIBE`), and the planner reads them: on a graph whose relation names
//! share no word with the questions (Wikidata-style ids), aliases make `ASK` follow the right
//! relation. Real RocksDB in a temporary directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{Cairn, CancelToken, Output};

fn text(o: Output) -> String {
    match o.text() {
        Some(t) => t,
        None => panic!("not text: {o:?}"),
    }
}

fn exec(db: &Cairn, stmt: &str) -> String {
    text(
        db.execute(stmt, &CancelToken::default())
            .unwrap_or_else(|e| panic!("{stmt}: {e}")),
    )
}

/// Films with a director (`P57`) and cast (`P161`): names that say nothing in English.
fn films(db: &Cairn) {
    for (key, title) in [("f1", "Blue Harbor"), ("f2", "Red Dunes")] {
        exec(db, &format!(r#"UPSERT Film "{key}" SET title = "{title}""#));
    }
    for (key, name) in [("p1", "Ada Vale"), ("p2", "Bo Chen"), ("p3", "Cy Moss")] {
        exec(db, &format!(r#"UPSERT Person "{key}" SET name = "{name}""#));
    }
    for (f, rel, p) in [
        ("f1", "P57", "p1"),
        ("f2", "P57", "p1"),
        ("f1", "P161", "p2"),
        ("f1", "P161", "p3"),
        ("f2", "P161", "p3"),
    ] {
        exec(
            db,
            &format!(r#"ADD EDGE Film "{f}" -[{rel}]-> Person "{p}""#),
        );
    }
}

/// The relation ASK follows for `question`, and the answer keys.
fn asked(db: &Cairn, question: &str) -> (Vec<String>, Vec<String>) {
    let o = db.ask(question, &CancelToken::default(), None).unwrap();
    let rels = o.plan.path.iter().map(|s| s.relation.clone()).collect();
    let mut keys = o.answer.values();
    keys.sort();
    (rels, keys)
}

#[test]
fn aliases_make_ask_follow_the_relation_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    films(&db);
    let director = r#"Who is the director of "Blue Harbor"?"#;
    let cast = r#"Who was in the cast of "Blue Harbor"?"#;
    // Without words for the relations, both questions get the same plan: at most one is right.
    let before = (asked(&db, director), asked(&db, cast));
    assert_eq!(before.0 .0, before.1 .0, "{before:?}");

    let out = exec(
        &db,
        r#"ANNOTATE RELATION P57 DESCRIPTION "the person who directed a film" ALIASES ("director", "directed by")"#,
    );
    assert_eq!(
        out,
        r#"ANNOTATE RELATION P57 DESCRIPTION "the person who directed a film" ALIASES ("director", "directed by")"#
    );
    exec(
        &db,
        r#"ANNOTATE RELATION P161 ALIASES ("cast member", "starring")"#,
    );
    assert_eq!(
        asked(&db, director),
        (vec!["P57".into()], vec!["p1".into()])
    );
    assert_eq!(
        asked(&db, cast),
        (vec!["P161".into()], vec!["p2".into(), "p3".into()])
    );
}

#[test]
fn annotations_persist_show_in_describe_and_can_be_cleared() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Cairn::open(dir.path()).unwrap();
        films(&db);
        exec(
            &db,
            r#"ANNOTATE LABEL Film DESCRIPTION "a motion picture" ALIASES ("movie")"#,
        );
        // Only the part given changes: the aliases stay.
        exec(
            &db,
            r#"ANNOTATE LABEL Film DESCRIPTION "a motion\npicture""#,
        );
        exec(&db, r#"ANNOTATE PROPERTY title ALIASES ("called")"#);
        exec(&db, r#"ANNOTATE RELATION P57 ALIASES ("director")"#);
        // Refused inside a transaction, like the other schema statements; nothing changes.
        let mut s = db.session();
        s.execute_with("BEGIN", &CancelToken::default(), false)
            .unwrap();
        let err = s
            .execute_with(
                r#"ANNOTATE LABEL Person ALIASES ("human")"#,
                &CancelToken::default(),
                false,
            )
            .unwrap_err();
        assert!(err.to_string().contains("ANNOTATE"), "{err}");
    }
    // A read-only handle sees the annotations and refuses to change them.
    let reader = Cairn::open_read_only(dir.path()).unwrap();
    assert!(exec(&reader, "DESCRIBE Film").contains("ALIASES (\"movie\")"));
    let err = reader
        .execute(
            r#"ANNOTATE LABEL Film ALIASES ("film")"#,
            &CancelToken::default(),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            cairn::CairnError::Engine(cairn::EngineError::ReadOnly { .. })
        ),
        "{err}"
    );
    drop(reader);
    let db = Cairn::open(dir.path()).unwrap();
    let d = exec(&db, "DESCRIBE Film");
    // The description's line end is escaped: data cannot add lines of its own.
    assert!(
        d.contains(r#"ANNOTATE LABEL Film DESCRIPTION "a motion\npicture" ALIASES ("movie")"#),
        "{d}"
    );
    assert!(
        d.contains(r#"ANNOTATE PROPERTY title ALIASES ("called")"#),
        "{d}"
    );
    assert!(
        d.contains(r#"ANNOTATE RELATION P57 ALIASES ("director")"#),
        "{d}"
    );
    assert!(!d.contains("human"), "{d}");
    exec(&db, r#"ANNOTATE LABEL Film DESCRIPTION "" ALIASES ()"#);
    let d = exec(&db, "DESCRIBE Film");
    assert!(!d.contains("ANNOTATE LABEL"), "{d}");
    // Bad statements are caret errors and change nothing.
    let err = db
        .execute(
            r#"ANNOTATE RELATION P58 ALIASES ("x")"#,
            &CancelToken::default(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("P58"), "{err}");
}

/// The labels of every entity the plan linked (main, others, conjunct).
fn linked_labels(db: &Cairn, question: &str) -> Vec<String> {
    let o = db.ask(question, &CancelToken::default(), None).unwrap();
    let p = &o.plan;
    let mut labels: Vec<String> = p
        .entity
        .iter()
        .chain(&p.other_entities)
        .chain(p.conjunct.iter().map(|(e, _)| e))
        .map(|e| e.label.clone())
        .collect();
    labels.sort();
    labels
}

#[test]
fn a_label_with_linking_off_is_linked_only_from_marked_mentions() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    // A node per title word, as keyword graphs have: "mining" names a Term node.
    exec(&db, r#"UPSERT Person "a1" SET name = "Ada Vale""#);
    exec(&db, r#"UPSERT Paper "p1" SET title = "Stream Mining""#);
    for (key, word) in [("t1", "mining"), ("t2", "stream")] {
        exec(&db, &format!(r#"UPSERT Term "{key}" SET name = "{word}""#));
        exec(
            &db,
            &format!(r#"ADD EDGE Paper "p1" -[HAS_TERM]-> Term "{key}""#),
        );
    }
    exec(&db, r#"ADD EDGE Person "a1" -[WROTE]-> Paper "p1""#);
    let unmarked = "Which papers did Ada Vale write on mining?";
    let marked = r#"Which papers did Ada Vale write on "mining"?"#;
    assert!(
        linked_labels(&db, unmarked).contains(&"Term".to_owned()),
        "before: the word links the Term node"
    );

    let out = exec(&db, "ANNOTATE LABEL Term LINKING OFF");
    assert_eq!(out, "ANNOTATE LABEL Term LINKING OFF");
    assert_eq!(linked_labels(&db, unmarked), vec!["Person".to_owned()]);
    // A quoted word is the asker naming the node: it still links.
    assert!(linked_labels(&db, marked).contains(&"Term".to_owned()));
    // DESCRIBE shows it, it persists, and LINKING ON undoes it.
    assert!(exec(&db, "DESCRIBE Term").contains("ANNOTATE LABEL Term LINKING OFF"));
    drop(db);
    let db = Cairn::open(dir.path()).unwrap();
    assert_eq!(linked_labels(&db, unmarked), vec!["Person".to_owned()]);
    exec(&db, "ANNOTATE LABEL Term LINKING ON");
    assert!(linked_labels(&db, unmarked).contains(&"Term".to_owned()));
    assert!(!exec(&db, "DESCRIBE Term").contains("ANNOTATE LABEL Term"));
    // Relations have no linking: a caret error, nothing changed.
    let err = db
        .execute(
            "ANNOTATE RELATION WROTE LINKING OFF",
            &CancelToken::default(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("LINKING"), "{err}");
}
