//! One rule for what a value may be (docs/FORMAT.md, "What a value may be"), checked alike by
//! import (JSON Lines and CSV) and the language: for each kind of value, what one refuses the
//! other refuses, and nothing is stored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{Cairn, CancelToken, ImportOptions};
use std::path::Path;

fn db(dir: &Path) -> Cairn {
    let cairn = Cairn::open(dir.join("db")).unwrap();
    for key in ["a1", "a2"] {
        cairn
            .execute(&format!("UPSERT A \"{key}\""), &CancelToken::default())
            .unwrap();
    }
    cairn
}

/// Imports one file named `name` holding `body`; the error's text when refused.
fn import(cairn: &Cairn, dir: &Path, name: &str, body: &str) -> Option<String> {
    let file = dir.join(name);
    std::fs::write(&file, body).unwrap();
    cairn
        .import(&[file], ImportOptions::default())
        .err()
        .map(|e| e.to_string())
}

fn statement(cairn: &Cairn, text: &str) -> Option<String> {
    cairn
        .execute(text, &CancelToken::default())
        .err()
        .map(|e| e.to_string())
}

fn edge_json(extra: &str) -> String {
    format!(
        "{{\"type\":\"edge\",\"rel\":\"R\",\"from\":{{\"label\":\"A\",\"key\":\"a1\"}},\"to\":{{\"label\":\"A\",\"key\":\"a2\"}}{extra}}}\n"
    )
}

#[test]
fn import_and_the_language_refuse_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let cairn = db(dir.path());
    let csv_edge = |w: &str| format!(":START_ID(A),:END_ID(A),:TYPE,:WEIGHT\na1,a2,R,{w}\n");
    // (what, import file name, its body, the statement, what both messages say)
    let cases: Vec<(&str, &str, String, String, &str)> = vec![
        (
            "negative weight",
            "w.jsonl",
            edge_json(",\"weight\":-3"),
            r#"ADD EDGE A "a1" -[R]-> A "a2" WEIGHT -3"#.into(),
            "negative",
        ),
        (
            "negative weight (CSV)",
            "w.csv",
            csv_edge("-3"),
            r#"ADD EDGE A "a1" -[R]-> A "a2" WEIGHT -3"#.into(),
            "negative",
        ),
        (
            "weight beyond f32",
            "big.csv",
            csv_edge("1e39"),
            r#"ADD EDGE A "a1" -[R]-> A "a2" WEIGHT 1e39"#.into(),
            "",
        ),
        (
            "weight beyond f32 (JSON)",
            "big.jsonl",
            edge_json(",\"weight\":1e39"),
            r#"ADD EDGE A "a1" -[R]-> A "a2" WEIGHT 1e39"#.into(),
            "",
        ),
        (
            "NaN",
            "nan.csv",
            "id:ID(A),f:float\na3,NaN\n".into(),
            r#"UPSERT A "a3" SET f = NaN"#.into(),
            "",
        ),
        (
            "infinity",
            "inf.csv",
            "id:ID(A),f:float\na3,1e999\n".into(),
            r#"UPSERT A "a3" SET f = 1e999"#.into(),
            "",
        ),
        (
            "label with ESC",
            "esc.jsonl",
            "{\"type\":\"node\",\"label\":\"B\\u001b[2J\",\"key\":\"b\"}\n".into(),
            "UPSERT `B\u{1b}[2J` \"b\"".into(),
            "control character U+001B",
        ),
        (
            "label with NUL",
            "nul.jsonl",
            "{\"type\":\"node\",\"label\":\"B\\u0000\",\"key\":\"b\"}\n".into(),
            "UPSERT `B\u{0}` \"b\"".into(),
            "control character U+0000",
        ),
        (
            "label with a right-to-left override",
            "rlo.jsonl",
            "{\"type\":\"node\",\"label\":\"B\u{202e}C\",\"key\":\"b\"}\n".into(),
            "UPSERT `B\u{202e}C` \"b\"".into(),
            "U+202E",
        ),
        (
            "relation with a zero-width space",
            "zw.jsonl",
            edge_json("").replace("\"R\"", "\"R\u{200b}S\""),
            "ADD EDGE A \"a1\" -[`R\u{200b}S`]-> A \"a2\"".into(),
            "U+200B",
        ),
        (
            "property name with a bidi isolate",
            "prop.jsonl",
            "{\"type\":\"node\",\"label\":\"A\",\"key\":\"a3\",\"props\":{\"na\u{2066}me\":1}}\n"
                .into(),
            "UPSERT A \"a3\" SET `na\u{2066}me` = 1".into(),
            "U+2066",
        ),
    ];
    let before = cairn.graph().commits();
    for (what, name, body, stmt, says) in cases {
        let by_import = import(&cairn, dir.path(), name, &body)
            .unwrap_or_else(|| panic!("{what}: import accepted {body:?}"));
        let by_language =
            statement(&cairn, &stmt).unwrap_or_else(|| panic!("{what}: {stmt:?} accepted"));
        for msg in [&by_import, &by_language] {
            assert!(msg.contains(says), "{what}: {msg}");
        }
    }
    assert_eq!(cairn.graph().commits(), before, "nothing was stored");
    // What the rule allows, both allow.
    assert_eq!(
        import(
            &cairn,
            dir.path(),
            "ok.csv",
            &csv_edge("0.5").replace(",R,", ",Zoë_著者,")
        ),
        None
    );
    assert_eq!(
        statement(
            &cairn,
            r#"ADD EDGE A "a1" -[`Zoë_著者`]-> A "a2" WEIGHT 0.5"#
        ),
        None
    );
}
