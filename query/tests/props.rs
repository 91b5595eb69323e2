//! Property tests: printing then parsing any syntax tree gives it back, and no input panics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_query::ast::*;
use cairn_query::{compile, parse, parse_script, print, MemoryCatalog, Span};
use cairn_storage_format::Value;
use proptest::prelude::*;

const D: Span = Span::DUMMY;

fn catalog() -> MemoryCatalog {
    MemoryCatalog::with(
        &["Author", "Paper", "Venue", "judge", "Order"],
        &["AUTHORED", "CITES", "PUBLISHED_IN", "ANY"],
        &["name", "year", "top", "é"],
    )
}

fn name() -> impl Strategy<Value = Name> {
    prop_oneof![
        4 => "[A-Za-z_][A-Za-z0-9_]{0,8}",
        1 => prop::sample::select(vec![
            "Author", "Paper", "judge", "found", "depth", "ANY", "Order", "or", "top", "NULL",
            "fanout", "sufficient", "é", "Ünïcode", "has space", "back`tick", "1st", "a-b", "\n", "a;b", "`;", "--;", "/*;",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{1,6}",
    ]
    .prop_map(|text| Name { text, span: D })
}

fn str_lit() -> impl Strategy<Value = StrLit> {
    prop_oneof![
        3 => "[a-zA-Z0-9 '?-]{0,20}",
        1 => any::<String>(),
        1 => prop::sample::select(vec!["", "\"", "\\", "\n\t\r\0", "\u{1}\u{7f}", "--", "/*", ";", "\\\";", "`;"])
            .prop_map(str::to_owned),
    ]
    .prop_map(|value| StrLit { value, span: D })
}

fn number() -> impl Strategy<Value = Number> {
    prop_oneof![
        3 => (0i64..100).prop_map(NumberValue::Int),
        1 => any::<i64>().prop_map(NumberValue::Int),
        2 => (0.0f64..2.0).prop_map(NumberValue::Float),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(NumberValue::Float),
    ]
    .prop_map(|value| Number { value, span: D })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::Float),
        "\\PC{0,8}".prop_map(Value::Str),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(Value::List)
    })
}

fn predicate(qualified: bool) -> impl Strategy<Value = Predicate> {
    let op = prop::sample::select(vec![
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::In,
    ]);
    (
        prop::option::of(name()),
        name(),
        op,
        value(),
        prop::collection::vec(value(), 0..3),
    )
        .prop_map(move |(label, property, op, v, items)| Predicate {
            span: D,
            negated: false,
            label: if qualified { label } else { None },
            property,
            op,
            op_span: D,
            value: Operand::Literal(Literal {
                value: if op == CmpOp::In {
                    Value::List(items)
                } else {
                    v
                },
                span: D,
            }),
        })
}

/// A predicate, possibly negated, possibly compared with a (small) subquery.
fn full_predicate(qualified: bool) -> impl Strategy<Value = Predicate> {
    (
        predicate(qualified),
        any::<bool>(),
        prop::option::weighted(0.15, small_explore()),
    )
        .prop_map(|(mut p, negated, sub)| {
            p.negated = negated;
            if let (Some(e), false) = (sub, p.op == CmpOp::In) {
                p.value = Operand::Subquery(Box::new(e));
            }
            p
        })
}

/// A short EXPLORE for subqueries (not recursive: nesting is covered by one level).
fn small_explore() -> impl Strategy<Value = Explore> {
    (
        str_lit(),
        prop::option::of(prop::collection::vec(simple_entry(), 1..3)),
        prop::option::of(via()),
        prop::option::of(ret()),
    )
        .prop_map(|(goal, from, via, ret)| Explore {
            span: D,
            goal,
            from: from.map(|entries| FromClause {
                span: D,
                entries,
                alias: None,
            }),
            via,
            meet: None,
            except: None,
            target: None,
            filter: None,
            score: None,
            beam: None,
            depth: None,
            budget: None,
            fanout: None,
            until: None,
            ret,
        })
}

fn column_name() -> impl Strategy<Value = Column> {
    prop_oneof![
        4 => (prop::option::of(name()), name()).prop_map(|(qualifier, name)| Column::Property {
            span: D,
            qualifier,
            name,
        }),
        1 => Just(Column::Count { span: D }),
        1 => Just(Column::Score { span: D }),
    ]
}

fn aggregate_expr() -> impl Strategy<Value = AggregateExpr> {
    (
        prop::sample::select(vec![
            AggFunc::Count,
            AggFunc::Sum,
            AggFunc::Avg,
            AggFunc::Min,
            AggFunc::Max,
        ]),
        name(),
    )
        .prop_map(|(func, p)| AggregateExpr {
            span: D,
            func,
            property: (func != AggFunc::Count).then_some(p),
        })
}

fn ret() -> impl Strategy<Value = ReturnClause> {
    let sort = (
        prop_oneof![
            3 => column_name(),
            1 => aggregate_expr()
                .prop_filter("COUNT sorts as a column", |a| a.func != AggFunc::Count)
                .prop_map(Column::Aggregate),
        ],
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(key, descending)| SortKey {
            span: D,
            key,
            descending,
        });
    (
        prop::sample::select(vec![
            ReturnKind::Nodes,
            ReturnKind::Paths,
            ReturnKind::Subgraph,
            ReturnKind::Answer,
            ReturnKind::Trace,
            ReturnKind::Count,
            ReturnKind::Aggregate,
        ]),
        prop::collection::vec(column_name(), 0..3),
        prop::collection::vec(aggregate_expr(), 1..3),
        prop::collection::vec(column_name(), 0..3),
        prop::collection::vec(sort, 0..3),
        prop::option::of(number()),
        any::<bool>(),
    )
        .prop_map(
            |(kind, columns, aggregates, group_by, order, limit, ties)| {
                let aggregating = matches!(kind, ReturnKind::Count | ReturnKind::Aggregate);
                let aggregates = match kind {
                    ReturnKind::Count => vec![AggregateExpr {
                        span: D,
                        func: AggFunc::Count,
                        property: None,
                    }],
                    ReturnKind::Aggregate => aggregates,
                    _ => Vec::new(),
                };
                // One bare COUNT without GROUP BY reads back as the count, with it as a grouped
                // aggregate.
                let group_by = if aggregating { group_by } else { Vec::new() };
                let kind = match (kind, aggregates.as_slice()) {
                    (ReturnKind::Aggregate, [one])
                        if one.func == AggFunc::Count && group_by.is_empty() =>
                    {
                        ReturnKind::Count
                    }
                    (ReturnKind::Count, _) if !group_by.is_empty() => ReturnKind::Aggregate,
                    (k, _) => k,
                };
                ReturnClause {
                    span: D,
                    kind,
                    columns: if aggregating { Vec::new() } else { columns },
                    aggregates,
                    group_by,
                    order,
                    with_ties: ties && limit.is_some(),
                    limit,
                }
            },
        )
}

fn entry() -> impl Strategy<Value = Entry> {
    prop_oneof![
        6 => simple_entry(),
        1 => small_explore().prop_map(|e| Entry {
            span: D,
            kind: EntryKind::Subquery(Box::new(e)),
        }),
    ]
}

fn simple_entry() -> impl Strategy<Value = Entry> {
    prop_oneof![
        (
            str_lit(),
            prop::option::of(name()),
            prop::option::of(number())
        )
            .prop_map(|(text, label, top)| EntryKind::Search { text, label, top }),
        (name(), str_lit()).prop_map(|(label, key)| EntryKind::Key { label, key }),
        (name(), prop::collection::vec(predicate(false), 0..3))
            .prop_map(|(label, predicates)| EntryKind::Match { label, predicates }),
        any::<u64>().prop_map(|id| EntryKind::Id { id }),
    ]
    .prop_map(|kind| Entry { span: D, kind })
}

fn rel_step() -> impl Strategy<Value = RelStep> {
    let rel = prop_oneof![
        1 => Just((RelRef::Any, Direction::Both)),
        4 => (
            name(),
            prop::sample::select(vec![Direction::Out, Direction::In, Direction::Both])
        )
            .prop_map(|(n, d)| (RelRef::Named(n), d)),
    ];
    (
        rel,
        prop::option::of(number()),
        prop::option::weighted(0.2, name()),
    )
        .prop_map(|((relation, direction), weight, alias)| RelStep {
            span: D,
            relation,
            direction,
            weight,
            alias,
        })
}

fn via() -> impl Strategy<Value = ViaClause> {
    (any::<bool>(), prop::collection::vec(rel_step(), 1..5)).prop_map(|(path, steps)| ViaClause {
        span: D,
        // A single step always reads back as a set.
        mode: if path && steps.len() > 1 {
            ViaMode::Path
        } else {
            ViaMode::Set
        },
        steps,
    })
}

fn duration() -> impl Strategy<Value = DurationLit> {
    (
        any::<u64>(),
        prop::sample::select(vec![
            TimeUnit::Millis,
            TimeUnit::Seconds,
            TimeUnit::Minutes,
            TimeUnit::Hours,
        ]),
    )
        .prop_map(|(amount, unit)| DurationLit {
            span: D,
            amount,
            unit,
        })
}

fn cond() -> impl Strategy<Value = Cond> {
    let leaf = prop_oneof![
        prop::option::of(number()).prop_map(|threshold| CondKind::Sufficient { threshold }),
        (number(), prop::option::of(name()))
            .prop_map(|(count, label)| CondKind::Found { count, label }),
        number().prop_map(|rounds| CondKind::Stale { rounds }),
        number().prop_map(|count| CondKind::Steps { count }),
        number().prop_map(|hops| CondKind::Depth { hops }),
        duration().prop_map(|duration| CondKind::Time { duration }),
        Just(CondKind::Judge),
    ]
    .prop_map(|kind| Cond { span: D, kind });
    leaf.prop_recursive(4, 24, 4, |inner| {
        (any::<bool>(), prop::collection::vec(inner, 2..4)).prop_map(|(and, items)| Cond {
            span: D,
            kind: if and {
                CondKind::And(items)
            } else {
                CondKind::Or(items)
            },
        })
    })
}

fn count_clause() -> impl Strategy<Value = Option<CountClause>> {
    prop::option::of(number().prop_map(|value| CountClause { span: D, value }))
}

prop_compose! {
    fn explore()(
        goal in str_lit(),
        from in prop::option::of((prop::collection::vec(entry(), 1..4), prop::option::weighted(0.2, name()))),
        via in prop::option::of(via()),
        sides in prop::collection::vec(prop::option::of(prop::collection::vec(
            (prop::collection::vec(simple_entry(), 1..3), via()),
            1..3,
        )), 2),
        target in prop::option::of(prop::collection::vec(name(), 1..4)),
        filter in prop::option::of(prop::collection::vec(full_predicate(true), 1..4)),
        score in prop::option::of(prop::collection::vec(
            (prop::sample::select(vec![
                ScoreComponent::Semantic,
                ScoreComponent::Connectivity,
                ScoreComponent::Distance,
            ]), number()),
            1..4,
        )),
        counts in (count_clause(), count_clause(), count_clause(), count_clause()),
        until in prop::option::of(cond()),
        ret in prop::option::of(ret()),
    ) -> Explore {
        let clause = |sides: Option<Vec<(Vec<Entry>, ViaClause)>>| sides.map(|sides| MeetClause {
            span: D,
            sides: sides
                .into_iter()
                .map(|(entries, via)| MeetSide {
                    span: D,
                    from: FromClause { span: D, entries, alias: None },
                    via,
                })
                .collect(),
        });
        let mut sides = sides.into_iter();
        Explore {
            span: D,
            goal,
            from: from.map(|(entries, alias)| FromClause { span: D, entries, alias }),
            via,
            meet: clause(sides.next().flatten()),
            except: clause(sides.next().flatten()),
            target: target.map(|labels| TargetClause { span: D, labels }),
            filter: filter.map(|predicates| WhereClause { span: D, predicates }),
            score: score.map(|terms| ScoreClause {
                span: D,
                terms: terms
                    .into_iter()
                    .map(|(component, weight)| ScoreTerm { span: D, component, weight })
                    .collect(),
            }),
            beam: counts.0,
            depth: counts.1,
            budget: counts.2,
            fanout: counts.3,
            until: until.map(|condition| UntilClause { span: D, condition }),
            ret,
        }
    }
}

fn node_ref() -> impl Strategy<Value = NodeRef> {
    (name(), str_lit()).prop_map(|(label, key)| NodeRef {
        span: D,
        label,
        key,
    })
}

fn edge_ref() -> impl Strategy<Value = EdgeRef> {
    (node_ref(), name(), node_ref()).prop_map(|(from, relation, to)| EdgeRef {
        span: D,
        from,
        relation,
        to,
    })
}

fn assignments() -> impl Strategy<Value = Vec<Assignment>> {
    prop::collection::vec(
        (name(), value()).prop_map(|(property, value)| Assignment {
            span: D,
            property,
            value: Literal { value, span: D },
        }),
        0..4,
    )
}

fn data_statement() -> impl Strategy<Value = Statement> {
    prop_oneof![
        (node_ref(), assignments(), prop::option::of(str_lit())).prop_map(
            |(node, set, description)| Statement::Upsert(Upsert {
                span: D,
                node,
                set,
                description,
            })
        ),
        (edge_ref(), assignments(), prop::option::of(number())).prop_map(|(edge, set, weight)| {
            Statement::AddEdge(AddEdge {
                span: D,
                edge,
                set,
                weight,
            })
        }),
        edge_ref().prop_map(|edge| Statement::RemoveEdge(RemoveEdge { span: D, edge })),
        node_ref().prop_map(|node| Statement::RemoveNode(RemoveNode { span: D, node })),
    ]
}

fn transaction() -> impl Strategy<Value = Statement> {
    prop_oneof![
        Just(TransactionKind::Begin),
        Just(TransactionKind::Commit),
        Just(TransactionKind::Rollback),
        name().prop_map(TransactionKind::Savepoint),
        name().prop_map(TransactionKind::RollbackTo),
    ]
    .prop_map(|kind| Statement::Transaction(Transaction { span: D, kind }))
}

fn inner_statement() -> impl Strategy<Value = Statement> {
    prop_oneof![
        // Boxed: the value tree of an EXPLORE (a dozen optional clauses) is large, and held
        // inline through every layer of the statement strategy it overflows a test thread's
        // stack in debug builds.
        6 => explore().prop_map(|e| Statement::Explore(Box::new(e))).boxed(),
        1 => str_lit().prop_map(|question| Statement::Ask(Ask { span: D, question })),
        1 => prop::sample::select(vec![ShowWhat::Labels, ShowWhat::Relations, ShowWhat::Indexes])
            .prop_map(|what| Statement::Show(Show { span: D, what })),
        1 => name().prop_map(|label| Statement::Describe(Describe { span: D, label })),
        1 => (name(), name()).prop_map(|(relation, parent)| {
            Statement::DeclareRelation(DeclareRelation { span: D, relation, parent })
        }),
        1 => (name(), name()).prop_map(|(label, property)| {
            Statement::CreateIndex(CreateIndex { span: D, label, property })
        }),
        1 => (
            prop::sample::select(vec![ElementKind::Label, ElementKind::Relation, ElementKind::Property]),
            name(),
            prop::option::of(str_lit()),
            prop::option::of(prop::collection::vec(str_lit(), 0..3)),
            prop::option::of(any::<bool>()),
        )
            // LINKING is a label's only
            .prop_map(|(kind, name, d, a, l)| (kind, name, d, a, l.filter(|_| kind == ElementKind::Label)))
            .prop_filter("one part at least", |(_, _, d, a, l)| d.is_some() || a.is_some() || l.is_some())
            .prop_map(|(kind, name, description, aliases, linking)| {
                Statement::Annotate(Annotate { span: D, kind, name, description, aliases, linking })
            }),
        3 => data_statement().boxed(),
    ]
}

fn statement() -> impl Strategy<Value = Statement> {
    prop_oneof![
        5 => inner_statement(),
        1 => inner_statement().prop_map(|s| Statement::Explain(Explain {
            span: D,
            statement: Box::new(s),
        })),
        1 => transaction(),
    ]
}

/// Words and symbols of the language, to build inputs that get deep into the grammar.
const VOCAB: &[&str] = &[
    "EXPLORE",
    "ASK",
    "EXPLAIN",
    "FROM",
    "VIA",
    "TARGET",
    "WHERE",
    "SCORE",
    "BEAM",
    "DEPTH",
    "BUDGET",
    "FANOUT",
    "UNTIL",
    "RETURN",
    "LIMIT",
    "AND",
    "OR",
    "SEARCH",
    "IN",
    "TOP",
    "ANY",
    "SHOW",
    "LABELS",
    "RELATIONS",
    "INDEXES",
    "STRATEGIES",
    "DESCRIBE",
    "RELATION",
    "UNDER",
    "CREATE",
    "INDEX",
    "ON",
    "ANNOTATE",
    "LINKING",
    "OFF",
    "NODES",
    "PATHS",
    "SUBGRAPH",
    "ANSWER",
    "TRACE",
    "sufficient",
    "found",
    "stale",
    "steps",
    "depth",
    "time",
    "judge",
    "semantic",
    "connectivity",
    "distance",
    "null",
    "true",
    "false",
    "Author",
    "Paper",
    "Venue",
    "AUTHORED",
    "CITES",
    "name",
    "year",
    "\"goal\"",
    "\"\"",
    "\"a\\n\"",
    "0",
    "1",
    "8",
    "0.5",
    "-1",
    "1e3",
    "30s",
    "500ms",
    "#7",
    ",",
    ";",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "<=",
    ">=",
    "=",
    "!=",
    "->",
    ":",
    ".",
    "`x`",
    "-- c\n",
    "/* c */",
    "\n",
    "\"",
    "`",
    "/*",
    "#",
    "é",
    "\u{0}",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCAB), 0..30).prop_map(|w| w.join(" "))
}

/// Parses, and if that works prints, re-parses and compiles; renders errors. Must not panic.
fn exercise(src: &str) {
    let cat = catalog();
    match parse(src) {
        Ok(stmt) => {
            common::check_spans(&stmt, src);
            let printed = print(&stmt);
            let mut again = parse(&printed).unwrap_or_else(|e| {
                panic!(
                    "canonical form does not parse: {printed:?}\n{}",
                    e.render_plain(100)
                )
            });
            let mut orig = stmt.clone();
            again.clear_spans();
            orig.clear_spans();
            assert_eq!(again, orig, "print/parse mismatch for {src:?}");
            match compile(&stmt, &cat) {
                Ok(compiled) => {
                    let shown = compiled.to_string();
                    let reparsed = parse(&shown).expect("printed plan parses");
                    assert_eq!(
                        compile(&reparsed, &cat).expect("printed plan compiles"),
                        compiled
                    );
                }
                Err(e) => {
                    check_span(src, e.span());
                    let _ = e.with_source(src).render_plain(80);
                }
            }
        }
        Err(e) => {
            check_span(src, e.span());
            let _ = e.render_plain(80);
        }
    }
    let _ = parse_script(src);
}

fn check_span(src: &str, span: Span) {
    assert!(
        span.start <= span.end && span.end <= src.len(),
        "span {span} out of {}",
        src.len()
    );
    assert!(
        src.get(span.start..span.end).is_some(),
        "span {span} not on char boundaries"
    );
}

proptest! {
    // 512 cases by default; PROPTEST_CASES=n runs more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn print_then_parse_is_identity(stmt in statement()) {
        let text = print(&stmt);
        let parsed = parse(&text);
        prop_assert!(parsed.is_ok(), "does not parse: {text}\n{}", parsed.err().map(|e| e.render_plain(100)).unwrap_or_default());
        let mut parsed = parsed.unwrap();
        parsed.clear_spans();
        prop_assert_eq!(parsed, stmt, "text was: {}", text);
    }

    #[test]
    fn spans_point_into_the_text(stmt in statement()) {
        let text = print(&stmt);
        let parsed = parse(&text).unwrap();
        common::check_spans(&parsed, &text);
        let span = parsed.span();
        prop_assert!(span.end <= text.len());
        prop_assert_eq!(text[span.start..span.end].trim(), text.trim());
    }

    #[test]
    fn a_script_of_printed_statements_splits_into_them(stmts in prop::collection::vec(statement(), 1..5)) {
        let script: Vec<String> = stmts.iter().map(print).collect();
        let script = script.join(";\n");
        let parsed = parse_script(&script).unwrap_or_else(|e| panic!("{script:?}\n{}", e.render_plain(100)));
        let strip = |mut s: Statement| { s.clear_spans(); s };
        prop_assert_eq!(
            parsed.into_iter().map(strip).collect::<Vec<_>>(),
            stmts.into_iter().map(strip).collect::<Vec<_>>()
        );
    }

    #[test]
    fn arbitrary_strings_never_panic(src in any::<String>()) {
        exercise(&src);
    }

    #[test]
    fn token_soup_never_panics(src in soup()) {
        exercise(&src);
    }

    #[test]
    fn mangled_statements_never_panic(stmt in statement(), cut in any::<prop::sample::Index>(), junk in prop::sample::select(VOCAB)) {
        // Take a valid statement, cut it somewhere and splice in a word.
        let text = print(&stmt);
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        exercise(&text[..at]);
        exercise(&format!("{}{junk}{}", &text[..at], &text[at..]));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for depth in [33, 1000, 100_000] {
        let src = format!(
            "EXPLORE \"x\" UNTIL {}judge{}",
            "(".repeat(depth),
            ")".repeat(depth)
        );
        let err = parse(&src).unwrap_err();
        assert_eq!(err.kind().code(), "query::too_deep");
        let src = format!(
            "EXPLORE \"x\" WHERE year IN {}{}",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        assert_eq!(parse(&src).unwrap_err().kind().code(), "query::too_deep");
    }
    // 32 levels are fine.
    let src = format!(
        "EXPLORE \"x\" UNTIL {}judge{}",
        "(".repeat(32),
        ")".repeat(32)
    );
    parse(&src).unwrap();
}

#[test]
fn scripts_split_on_semicolons() {
    let stmts = parse_script("SHOW LABELS; ;EXPLORE \"x\" BEAM 2;\n-- end\n ASK \"q\"").unwrap();
    assert_eq!(stmts.len(), 3);
    assert!(parse_script("").unwrap().is_empty());
    assert!(parse_script("SHOW LABELS SHOW LABELS").is_err());
}
