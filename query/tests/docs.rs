//! Keeps docs/LANGUAGE.md honest: its examples compile, its table of defaults and caps matches
//! `limits.rs`, its list of reserved words matches the parser's, its EXPLAIN sample is real output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_query::limits::*;
use cairn_query::parser::RESERVED;
use cairn_query::{compile, parse_script, prepare, Compiled, MemoryCatalog};

fn doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/LANGUAGE.md");
    std::fs::read_to_string(path).expect("docs/LANGUAGE.md exists")
}

fn catalog() -> MemoryCatalog {
    MemoryCatalog::with(
        &[
            "Author",
            "Paper",
            "Venue",
            "Institution",
            "Topic",
            "State",
            "City",
            "River",
        ],
        &[
            "AUTHORED",
            "PUBLISHED_IN",
            "CITES",
            "AFFILIATED_WITH",
            "WORKS_AT",
            "STATE_NAME",
            "TRAVERSE",
            "BORDER",
        ],
        &[
            "name",
            "h_index",
            "year",
            "citations",
            "country",
            "open_access",
            "population",
            "area",
            "length",
            "highest_elevation",
            "title",
        ],
    )
}

fn blocks<'a>(doc: &'a str, lang: &str) -> Vec<&'a str> {
    let fence = format!("```{lang}\n");
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(start) = rest.find(&fence) {
        let body = &rest[start + fence.len()..];
        let end = body.find("```").expect("closed fence");
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

#[test]
fn every_explore_example_compiles() {
    let doc = doc();
    let examples = blocks(&doc, "explore");
    assert!(examples.len() >= 8, "only {} examples", examples.len());
    let cat = catalog();
    for ex in examples {
        let stmts = parse_script(ex).unwrap_or_else(|e| panic!("{}", e.render_plain(100)));
        assert!(!stmts.is_empty());
        for s in stmts {
            compile(&s, &cat).unwrap_or_else(|e| panic!("{}", e.with_source(ex).render_plain(100)));
        }
    }
}

#[test]
fn defaults_table_matches_limits() {
    let doc = doc();
    let rows = [
        format!("| `BEAM` | `{DEFAULT_BEAM}` | `1` to `{MAX_BEAM}` |"),
        format!("| `DEPTH` | `{DEFAULT_DEPTH}` | `1` to `{MAX_DEPTH}` |"),
        format!("| `BUDGET` | `{DEFAULT_BUDGET}` | `1` to `{MAX_BUDGET}` |"),
        format!("| `FANOUT` | `{DEFAULT_FANOUT}` | `1` to `{MAX_FANOUT}` |"),
        format!("| `TOP` (SEARCH entry) | `{DEFAULT_SEARCH_TOP}` | `1` to `{MAX_SEARCH_TOP}` |"),
        format!("| `LIMIT` | `{DEFAULT_LIMIT}` | `1` to `{MAX_LIMIT}` |"),
        format!(
            "| `SCORE` | `semantic {}, connectivity {}, distance {}` |",
            DEFAULT_SCORE.0, DEFAULT_SCORE.1, DEFAULT_SCORE.2
        ),
        format!("| relation weight | `{DEFAULT_RELATION_WEIGHT}` |"),
        format!("| `sufficient` threshold | `{DEFAULT_SUFFICIENT}` | `0` to `1` |"),
        format!("| `stale` | `{DEFAULT_STALE}` (in the default `UNTIL`) | `1` to `{MAX_STALE}` |"),
        format!("| `found` | — | `1` to `{MAX_LIMIT}` |"),
        format!("| `steps` | — | `1` to `{MAX_BUDGET}` |"),
        format!("| `depth` | — | `1` to `{MAX_DEPTH}` |"),
        format!(
            "| `time` / time cap | cap `{}m`, always on | `1ms` to `{}m` |",
            MAX_TIME.as_secs() / 60,
            MAX_TIME.as_secs() / 60
        ),
        format!("| nesting of `( )` and `[ ]` | — | at most `{MAX_NESTING}` levels |"),
        format!("| edges listed by an exact match (`RETURN COUNT`, aggregates, `ORDER BY` a property, `MEET`) | — | at most `{MAX_COUNT_EDGES}` |"),
    ];
    for row in rows {
        assert!(doc.contains(&row), "docs/LANGUAGE.md lacks the row\n{row}");
    }
}

#[test]
fn reserved_words_are_documented() {
    let doc = doc();
    let start = doc.find("**Reserved words**").unwrap();
    let para = &doc[start..start + doc[start..].find("Every other word").unwrap()];
    for w in RESERVED {
        assert!(
            para.contains(&format!("`{w}`")),
            "{w} missing from the reserved words"
        );
    }
    // No extra words either: the list has exactly as many entries as RESERVED.
    let listed = para.split('`').skip(1).step_by(2).count();
    assert_eq!(listed, RESERVED.len());
}

#[test]
fn explain_sample_is_real_output() {
    let compiled = prepare(
        r#"EXPLAIN EXPLORE "papers about graph neural networks""#,
        &catalog(),
    )
    .unwrap();
    let Compiled::Explain(inner) = compiled else {
        panic!("not an EXPLAIN")
    };
    let shown = format!("{inner}\n");
    assert!(
        blocks(&doc(), "text").contains(&shown.as_str()),
        "docs/LANGUAGE.md EXPLAIN sample differs from:\n{shown}"
    );
}
