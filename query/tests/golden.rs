//! Golden tests: every `tests/golden/*.explore` file is parsed and compiled against the academic
//! catalog below, and the outcome is compared with the `.out` file next to it:
//!
//! - success: the canonical form, the compiled plan as `EXPLAIN` prints it, and the plan's `Debug`;
//! - failure: the error rendered by miette (80 columns, ASCII, no colour) with its caret.
//!
//! Run with `UPDATE_GOLDEN=1` to (re)write the `.out` files; without it a mismatch fails.
//! Every successful case is also checked for `parse(print(ast)) == ast` and for
//! `compile(parse(plan.to_string())) == plan`, and the suite checks that the cases together cover
//! every clause, condition and entry form, and at least 25 distinct errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_query::ast::*;
use cairn_query::{compile, parse, print, MemoryCatalog};
use common::check_spans;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

fn catalog() -> MemoryCatalog {
    MemoryCatalog::with(
        &["Author", "Paper", "Venue", "Institution", "Topic"],
        &[
            "AUTHORED",
            "PUBLISHED_IN",
            "CITES",
            "AFFILIATED_WITH",
            "WORKS_AT",
            "ABOUT",
            "RELATED_TO",
        ],
        &[
            "name",
            "title",
            "year",
            "key",
            "citations",
            "h_index",
            "country",
            "open_access",
        ],
    )
}

fn strip(mut s: Statement) -> Statement {
    s.clear_spans();
    s
}

/// Records which language features a statement uses.
fn features(stmt: &Statement, out: &mut BTreeSet<String>) {
    match stmt {
        Statement::Explore(e) => {
            out.insert("EXPLORE".into());
            let clauses = [
                ("FROM", e.from.is_some()),
                ("VIA", e.via.is_some()),
                ("MEET", e.meet.is_some()),
                ("EXCEPT", e.except.is_some()),
                ("AS", e.from.as_ref().is_some_and(|f| f.alias.is_some())),
                ("TARGET", e.target.is_some()),
                ("WHERE", e.filter.is_some()),
                ("SCORE", e.score.is_some()),
                ("BEAM", e.beam.is_some()),
                ("DEPTH", e.depth.is_some()),
                ("BUDGET", e.budget.is_some()),
                ("FANOUT", e.fanout.is_some()),
                ("UNTIL", e.until.is_some()),
                ("RETURN", e.ret.is_some()),
                ("LIMIT", e.ret.as_ref().is_some_and(|r| r.limit.is_some())),
            ];
            for (name, used) in clauses {
                if used {
                    out.insert(format!("clause {name}"));
                }
            }
            if let Some(f) = &e.from {
                for en in &f.entries {
                    out.insert(
                        match &en.kind {
                            EntryKind::Search { .. } => "entry SEARCH",
                            EntryKind::Key { .. } => "entry key",
                            EntryKind::Match { predicates, .. } if predicates.is_empty() => {
                                "entry label"
                            }
                            EntryKind::Match { .. } => "entry WHERE",
                            EntryKind::Id { .. } => "entry #id",
                            EntryKind::Subquery(_) => "entry subquery",
                        }
                        .into(),
                    );
                }
            }
            if let Some(v) = &e.via {
                for s in &v.steps {
                    if s.alias.is_some() {
                        out.insert("step AS".into());
                    }
                    out.insert(format!(
                        "direction {:?}",
                        match s.relation {
                            RelRef::Any => None,
                            RelRef::Named(_) => Some(s.direction),
                        }
                    ));
                }
                out.insert(format!("via {:?}", v.mode));
            }
            if let Some(r) = &e.ret {
                out.insert(format!("return {:?}", r.kind));
                for (what, used) in [
                    ("columns", !r.columns.is_empty()),
                    ("GROUP BY", !r.group_by.is_empty()),
                    ("ORDER BY", !r.order.is_empty()),
                    ("WITH TIES", r.with_ties),
                ] {
                    if used {
                        out.insert(format!("return {what}"));
                    }
                }
                for a in &r.aggregates {
                    out.insert(format!("aggregate {:?}", a.func));
                }
            }
            let preds = e.filter.iter().flat_map(|w| &w.predicates).chain(
                e.from
                    .iter()
                    .flat_map(|f| &f.entries)
                    .flat_map(|en| match &en.kind {
                        EntryKind::Match { predicates, .. } => predicates.as_slice(),
                        _ => &[],
                    }),
            );
            for p in preds {
                if p.negated {
                    out.insert("predicate NOT".into());
                }
                if matches!(p.value, Operand::Subquery(_)) {
                    out.insert("predicate subquery".into());
                }
            }
            if let Some(u) = &e.until {
                cond_features(&u.condition, out);
            }
        }
        Statement::Ask(_) => {
            out.insert("ASK".into());
        }
        Statement::Explain(e) => {
            out.insert("EXPLAIN".into());
            features(&e.statement, out);
        }
        Statement::Show(s) => {
            out.insert(format!("SHOW {:?}", s.what));
        }
        Statement::Describe(_) => {
            out.insert("DESCRIBE".into());
        }
        Statement::DeclareRelation(_) => {
            out.insert("RELATION UNDER".into());
        }
        Statement::CreateIndex(_) => {
            out.insert("CREATE INDEX".into());
        }
        Statement::Annotate(a) => {
            out.insert(format!("ANNOTATE {}", a.kind));
        }
        Statement::Upsert(u) => {
            out.insert("UPSERT".into());
            if !u.set.is_empty() {
                out.insert("UPSERT SET".into());
            }
            if u.description.is_some() {
                out.insert("UPSERT DESCRIPTION".into());
            }
        }
        Statement::AddEdge(a) => {
            out.insert("ADD EDGE".into());
            if !a.set.is_empty() {
                out.insert("ADD EDGE SET".into());
            }
            if a.weight.is_some() {
                out.insert("ADD EDGE WEIGHT".into());
            }
        }
        Statement::RemoveEdge(_) => {
            out.insert("REMOVE EDGE".into());
        }
        Statement::RemoveNode(_) => {
            out.insert("REMOVE NODE".into());
        }
        Statement::Transaction(t) => {
            out.insert(
                match t.kind {
                    TransactionKind::Begin => "BEGIN",
                    TransactionKind::Commit => "COMMIT",
                    TransactionKind::Rollback => "ROLLBACK",
                    TransactionKind::Savepoint(_) => "SAVEPOINT",
                    TransactionKind::RollbackTo(_) => "ROLLBACK TO",
                }
                .into(),
            );
        }
    }
}

fn cond_features(c: &Cond, out: &mut BTreeSet<String>) {
    let name = match &c.kind {
        CondKind::Sufficient { threshold: None } => "sufficient",
        CondKind::Sufficient { threshold: Some(_) } => "sufficient >=",
        CondKind::Found { label: None, .. } => "found",
        CondKind::Found { label: Some(_), .. } => "found Label",
        CondKind::Stale { .. } => "stale",
        CondKind::Steps { .. } => "steps",
        CondKind::Depth { .. } => "depth",
        CondKind::Time { .. } => "time",
        CondKind::Judge => "judge",
        CondKind::And(cs) | CondKind::Or(cs) => {
            for c in cs {
                cond_features(c, out);
            }
            if matches!(c.kind, CondKind::And(_)) {
                "AND"
            } else {
                "OR"
            }
        }
    };
    out.insert(format!("condition {name}"));
}

#[test]
fn golden() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let catalog = catalog();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "explore"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no golden cases in {}", dir.display());

    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    let mut error_codes = BTreeSet::new();
    let mut error_cases = 0;
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let mut out = String::new();
        match parse(&src) {
            Err(e) => {
                error_cases += 1;
                error_codes.insert(format!("{:?}", std::mem::discriminant(e.kind())));
                writeln!(out, "error:\n{}", e.render_plain(80)).unwrap();
            }
            Ok(stmt) => {
                check_spans(&stmt, &src);
                let canonical = print(&stmt);
                let reparsed = parse(&canonical).unwrap_or_else(|e| {
                    panic!(
                        "{}: canonical form does not parse:\n{canonical}\n{e}",
                        path.display()
                    )
                });
                assert_eq!(
                    strip(reparsed),
                    strip(stmt.clone()),
                    "{}: parse(print(ast)) != ast",
                    path.display()
                );
                writeln!(out, "canonical:\n{canonical}\n").unwrap();
                match compile(&stmt, &catalog) {
                    Err(e) => {
                        error_cases += 1;
                        error_codes.insert(format!("{:?}", std::mem::discriminant(e.kind())));
                        let e = e.with_source(&src);
                        writeln!(out, "error:\n{}", e.render_plain(80)).unwrap();
                    }
                    Ok(compiled) => {
                        features(&stmt, &mut seen);
                        // The printed plan is itself a statement that compiles to the same plan.
                        let shown = compiled.to_string();
                        let again = parse(&shown).unwrap_or_else(|e| {
                            panic!(
                                "{}: printed plan does not parse:\n{shown}\n{e:?}",
                                path.display()
                            )
                        });
                        let again = compile(&again, &catalog).unwrap();
                        assert_eq!(
                            again,
                            compiled,
                            "{}: plan does not round-trip",
                            path.display()
                        );
                        writeln!(out, "plan:\n{shown}\n\ndebug:\n{compiled:#?}").unwrap();
                    }
                }
            }
        }
        let expected_path = path.with_extension("out");
        if update {
            std::fs::write(&expected_path, &out).unwrap();
        } else {
            match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == out => {}
                Ok(expected) => failures.push(format!(
                    "{}: output differs (run with UPDATE_GOLDEN=1 to accept)\n--- expected\n{expected}\n--- actual\n{out}",
                    path.display()
                )),
                Err(_) => failures.push(format!(
                    "{}: missing {} (run with UPDATE_GOLDEN=1)",
                    path.display(),
                    expected_path.display()
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden failures:\n{}",
        failures.len(),
        failures.join("\n")
    );

    let required = [
        "EXPLORE",
        "ASK",
        "EXPLAIN",
        "SHOW Labels",
        "SHOW Relations",
        "SHOW Indexes",
        "DESCRIBE",
        "RELATION UNDER",
        "CREATE INDEX",
        "ANNOTATE LABEL",
        "ANNOTATE RELATION",
        "ANNOTATE PROPERTY",
        "UPSERT",
        "UPSERT SET",
        "UPSERT DESCRIPTION",
        "ADD EDGE",
        "ADD EDGE SET",
        "ADD EDGE WEIGHT",
        "REMOVE EDGE",
        "REMOVE NODE",
        "BEGIN",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT",
        "ROLLBACK TO",
        "clause FROM",
        "clause VIA",
        "clause MEET",
        "clause EXCEPT",
        "clause AS",
        "step AS",
        "entry label",
        "entry subquery",
        "predicate NOT",
        "predicate subquery",
        "return Count",
        "return Aggregate",
        "return columns",
        "return GROUP BY",
        "return ORDER BY",
        "return WITH TIES",
        "aggregate Count",
        "aggregate Sum",
        "aggregate Avg",
        "aggregate Min",
        "aggregate Max",
        "clause TARGET",
        "clause WHERE",
        "clause SCORE",
        "clause BEAM",
        "clause DEPTH",
        "clause BUDGET",
        "clause FANOUT",
        "clause UNTIL",
        "clause RETURN",
        "clause LIMIT",
        "entry SEARCH",
        "entry key",
        "entry WHERE",
        "entry #id",
        "direction Some(Out)",
        "direction Some(In)",
        "direction Some(Both)",
        "direction None",
        "via Set",
        "via Path",
        "return Nodes",
        "return Paths",
        "return Subgraph",
        "return Answer",
        "return Trace",
        "condition sufficient",
        "condition sufficient >=",
        "condition found",
        "condition found Label",
        "condition stale",
        "condition steps",
        "condition depth",
        "condition time",
        "condition judge",
        "condition AND",
        "condition OR",
    ];
    let missing: Vec<_> = required.iter().filter(|r| !seen.contains(**r)).collect();
    assert!(missing.is_empty(), "golden cases do not cover {missing:?}");
    assert!(error_cases >= 25, "only {error_cases} error cases");
    eprintln!(
        "{} golden cases, {error_cases} errors of {} kinds",
        files.len(),
        error_codes.len()
    );
}
