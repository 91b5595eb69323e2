//! The EXPLORE statement: its clauses in any order (each at most once), entries, steps,
//! predicates, RETURN and the UNTIL conditions.

use super::*;

pub(super) enum Clause {
    From(FromClause),
    Via(ViaClause),
    Meet(MeetClause),
    Except(MeetClause),
    Target(TargetClause),
    Where(WhereClause),
    Score(ScoreClause),
    Beam(CountClause),
    Depth(CountClause),
    Budget(CountClause),
    Fanout(CountClause),
    Until(UntilClause),
    Return(ReturnClause),
}

pub(super) fn explore(i: In<'_>) -> PResult<'_, Explore> {
    let (mut i, k) = kw("EXPLORE")(i)?;
    let (rest, goal) = string_lit("the goal, a string")(i)?;
    i = rest;
    let mut ex = Explore {
        span: k,
        goal,
        from: None,
        via: None,
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
        ret: None,
    };
    loop {
        let (rest, clause) = match clause(i) {
            Ok(ok) => ok,
            Err(nom::Err::Error(_)) => break,
            Err(e) => return Err(e),
        };
        i = rest;
        fn put<T>(
            slot: &mut Option<T>,
            v: T,
            name: &'static str,
            span: fn(&T) -> Span,
        ) -> Result<(), nom::Err<PErr>> {
            if let Some(first) = slot {
                let first = span(first);
                let again = span(&v);
                let kw_len = name.len();
                return fatal(ErrorKind::DuplicateClause {
                    span: Span::new(again.start, again.start + kw_len),
                    first: Span::new(first.start, first.start + kw_len),
                    clause: name,
                });
            }
            *slot = Some(v);
            Ok(())
        }
        match clause {
            Clause::From(c) => put(&mut ex.from, c, "FROM", |c| c.span)?,
            Clause::Via(c) => put(&mut ex.via, c, "VIA", |c| c.span)?,
            Clause::Meet(c) => put(&mut ex.meet, c, "MEET", |c| c.span)?,
            Clause::Except(c) => put(&mut ex.except, c, "EXCEPT", |c| c.span)?,
            Clause::Target(c) => put(&mut ex.target, c, "TARGET", |c| c.span)?,
            Clause::Where(c) => put(&mut ex.filter, c, "WHERE", |c| c.span)?,
            Clause::Score(c) => put(&mut ex.score, c, "SCORE", |c| c.span)?,
            Clause::Beam(c) => put(&mut ex.beam, c, "BEAM", |c| c.span)?,
            Clause::Depth(c) => put(&mut ex.depth, c, "DEPTH", |c| c.span)?,
            Clause::Budget(c) => put(&mut ex.budget, c, "BUDGET", |c| c.span)?,
            Clause::Fanout(c) => put(&mut ex.fanout, c, "FANOUT", |c| c.span)?,
            Clause::Until(c) => put(&mut ex.until, c, "UNTIL", |c| c.span)?,
            Clause::Return(c) => put(&mut ex.ret, c, "RETURN", |c| c.span)?,
        }
    }
    ex.span = since(k, &i);
    Ok((i, ex))
}

/// The clause keywords, in the order they are reported when none matches.
pub(super) const CLAUSES: [&str; 13] = [
    "FROM", "VIA", "MEET", "EXCEPT", "TARGET", "WHERE", "SCORE", "BEAM", "DEPTH", "BUDGET",
    "FANOUT", "UNTIL", "RETURN",
];

pub(super) fn clause(i: In<'_>) -> PResult<'_, Clause> {
    // Fast path: read the word once and only try the clause it names (the clause loop runs at
    // every clause boundary, and trying every clause's keyword parser there is most of the parse
    // time).
    let (j, ()) = ws(i)?;
    let s = *j.fragment();
    let n = ident_len(s);
    let Some(k) = CLAUSES.iter().find(|k| s[..n].eq_ignore_ascii_case(k)) else {
        for k in CLAUSES {
            j.extra.record(off(&j), Expect::Keyword(k));
        }
        return Err(nom::Err::Error(PErr::Backtrack));
    };
    match *k {
        "FROM" => map(|i| from_clause(i, true), Clause::From)(j),
        "VIA" => map(via_clause, Clause::Via)(j),
        "MEET" => map(sides_clause("MEET"), Clause::Meet)(j),
        "EXCEPT" => map(sides_clause("EXCEPT"), Clause::Except)(j),
        "TARGET" => map(target_clause, Clause::Target)(j),
        "WHERE" => map(where_clause, Clause::Where)(j),
        "SCORE" => map(score_clause, Clause::Score)(j),
        "BEAM" => map(count_clause("BEAM"), Clause::Beam)(j),
        "DEPTH" => map(count_clause("DEPTH"), Clause::Depth)(j),
        "BUDGET" => map(count_clause("BUDGET"), Clause::Budget)(j),
        "FANOUT" => map(count_clause("FANOUT"), Clause::Fanout)(j),
        "UNTIL" => map(until_clause, Clause::Until)(j),
        _ => map(return_clause, Clause::Return)(j),
    }
}

/// `FROM entry {, entry}`, then `AS alias` where `aliased` (the main `FROM`, not a side's).
pub(super) fn from_clause(i: In<'_>, aliased: bool) -> PResult<'_, FromClause> {
    let (i, k) = kw("FROM")(i)?;
    let (i, entries) = separated_list1(sym(","), entry)(i)?;
    let (i, alias) = if aliased {
        opt(preceded(kw("AS"), name("an alias name")))(i)?
    } else {
        (i, None)
    };
    Ok((
        i,
        FromClause {
            span: since(k, &i),
            entries,
            alias,
        },
    ))
}

pub(super) fn entry(i: In<'_>) -> PResult<'_, Entry> {
    alt((search_entry, id_entry, subquery_entry, label_entry))(i)
}

/// `( EXPLORE … )`, nested at most [`MAX_NESTING`] deep.
pub(super) fn subquery(i: In<'_>) -> PResult<'_, (Span, Explore, Span)> {
    let (i, open) = sym("(")(i)?;
    nest(&i, open)?;
    let r = explore(i);
    unnest(&i);
    let (i, e) = r?;
    let (i, close) = sym(")")(i)?;
    Ok((i, (open, e, close)))
}

pub(super) fn subquery_entry(i: In<'_>) -> PResult<'_, Entry> {
    let (i, (open, e, close)) = subquery(i)?;
    Ok((
        i,
        Entry {
            span: open.to(close),
            kind: EntryKind::Subquery(Box::new(e)),
        },
    ))
}

pub(super) fn search_entry(i: In<'_>) -> PResult<'_, Entry> {
    let (i, k) = kw("SEARCH")(i)?;
    let (i, text) = string_lit("the search text, a string")(i)?;
    let (i, label) = opt(preceded(kw("IN"), name("a label name")))(i)?;
    let (i, top) = opt(preceded(kw("TOP"), number))(i)?;
    Ok((
        i,
        Entry {
            span: since(k, &i),
            kind: EntryKind::Search { text, label, top },
        },
    ))
}

pub(super) fn id_entry(i: In<'_>) -> PResult<'_, Entry> {
    let (i, hash) = sym("#")(i)?;
    let (i, (id, _)) = raw_u64(i, "a node id (digits right after `#`)")?;
    Ok((
        i,
        Entry {
            span: since(hash, &i),
            kind: EntryKind::Id { id },
        },
    ))
}

pub(super) fn label_entry(i: In<'_>) -> PResult<'_, Entry> {
    let (i, label) =
        name("an entry (`SEARCH \"…\"`, `Label \"key\"`, `Label WHERE …` or `#id`)")(i)?;
    let start = label.span;
    let (i, kind) = alt((
        map(string_lit("a key string"), |key| EntryKind::Key {
            label: label.clone(),
            key,
        }),
        map(preceded(kw("WHERE"), predicates(false)), |predicates| {
            EntryKind::Match {
                label: label.clone(),
                predicates,
            }
        }),
        // `Label` alone: every node of the label.
        |i| {
            Ok((
                i,
                EntryKind::Match {
                    label: label.clone(),
                    predicates: Vec::new(),
                },
            ))
        },
    ))(i)?;
    Ok((
        i,
        Entry {
            span: since(start, &i),
            kind,
        },
    ))
}

pub(super) fn predicates<'a>(qualified: bool) -> impl FnMut(In<'a>) -> PResult<'a, Vec<Predicate>> {
    separated_list1(kw("AND"), move |i| predicate(i, qualified))
}

pub(super) fn predicate(i: In<'_>, qualified: bool) -> PResult<'_, Predicate> {
    // `NOT` is a keyword only where a predicate follows it (a property may be called `not`).
    alt((
        |i| {
            let (i, k) = kw("NOT")(i)?;
            let (i, mut p) = plain_predicate(i, qualified)?;
            p.negated = true;
            p.span = k.to(p.span);
            Ok((i, p))
        },
        |i| plain_predicate(i, qualified),
    ))(i)
}

pub(super) fn plain_predicate(i: In<'_>, qualified: bool) -> PResult<'_, Predicate> {
    let (i, first) = name("a property name")(i)?;
    let (i, second) = if qualified {
        opt(preceded(sym("."), name("a property name")))(i)?
    } else {
        (i, None)
    };
    let (label, property) = match second {
        Some(p) => (Some(first), p),
        None => (None, first),
    };
    let start = label.as_ref().map_or(property.span, |l| l.span);
    let (i, (op, op_span)) = alt((
        map(sym(">="), |s| (CmpOp::Ge, s)),
        map(sym("<="), |s| (CmpOp::Le, s)),
        map(sym("!="), |s| (CmpOp::Ne, s)),
        map(sym("="), |s| (CmpOp::Eq, s)),
        map(sym("<"), |s| (CmpOp::Lt, s)),
        map(sym(">"), |s| (CmpOp::Gt, s)),
        map(kw("IN"), |s| (CmpOp::In, s)),
    ))(i)?;
    let (i, value) = if op == CmpOp::In {
        map(list, Operand::Literal)(i)?
    } else {
        alt((
            map(literal, Operand::Literal),
            map(subquery, |(_, e, _)| Operand::Subquery(Box::new(e))),
        ))(i)?
    };
    Ok((
        i,
        Predicate {
            span: since(start, &i),
            negated: false,
            label,
            property,
            op,
            op_span,
            value,
        },
    ))
}

pub(super) fn via_clause(i: In<'_>) -> PResult<'_, ViaClause> {
    let (mut i, k) = kw("VIA")(i)?;
    let (rest, first) = rel_step(i)?;
    i = rest;
    let mut steps = vec![first];
    let mut mode: Option<(ViaMode, Span)> = None;
    loop {
        let (after_sep, (m, sep_span)) = match alt((
            map(sym(","), |s| (ViaMode::Set, s)),
            map(sym("->"), |s| (ViaMode::Path, s)),
        ))(i)
        {
            Ok(ok) => ok,
            Err(nom::Err::Error(_)) => break,
            Err(e) => return Err(e),
        };
        let (rest, step) = match rel_step(after_sep) {
            Ok(ok) => ok,
            Err(nom::Err::Error(_)) => break,
            Err(e) => return Err(e),
        };
        match mode {
            Some((prev, first)) if prev != m => {
                return fatal(ErrorKind::MixedViaSeparators {
                    span: sep_span,
                    first,
                })
            }
            Some(_) => {}
            None => mode = Some((m, sep_span)),
        }
        steps.push(step);
        i = rest;
    }
    Ok((
        i,
        ViaClause {
            span: since(k, &i),
            mode: mode.map_or(ViaMode::Set, |m| m.0),
            steps,
        },
    ))
}

/// `MEET side {AND side}` or `EXCEPT side {AND side}`; kept apart from the other clauses (they
/// reuse `FROM` and `VIA`).
pub(super) fn sides_clause<'a>(k: &'static str) -> impl Fn(In<'a>) -> PResult<'a, MeetClause> {
    move |i| {
        let (i, k) = kw(k)(i)?;
        let (i, sides) = separated_list1(kw("AND"), meet_side)(i)?;
        Ok((
            i,
            MeetClause {
                span: since(k, &i),
                sides,
            },
        ))
    }
}

/// `FROM entry {, entry} VIA steps`: both are required on a side.
pub(super) fn meet_side(i: In<'_>) -> PResult<'_, MeetSide> {
    let (i, from) = from_clause(i, false)?;
    let (i, via) = via_clause(i)?;
    Ok((
        i,
        MeetSide {
            span: from.span.to(via.span),
            from,
            via,
        },
    ))
}

pub(super) fn rel_step(i: In<'_>) -> PResult<'_, RelStep> {
    let (i, ()) = ws(i)?;
    let start = off(&i);
    let (i, (relation, direction)) = alt((
        map(kw("ANY"), |_| (RelRef::Any, Direction::Both)),
        |i| {
            let (i, _) = sym("<")(i)?;
            let (i, n) = name("a relation name")(i)?;
            let (i, back) = opt(sym(">"))(i)?;
            let d = if back.is_some() {
                Direction::Both
            } else {
                Direction::In
            };
            Ok((i, (RelRef::Named(n), d)))
        },
        map(name("a relation name (or `ANY`)"), |n| {
            (RelRef::Named(n), Direction::Out)
        }),
    ))(i)?;
    let (i, weight) = opt(preceded(sym(":"), number))(i)?;
    let (i, alias) = opt(preceded(kw("AS"), name("an alias name")))(i)?;
    Ok((
        i,
        RelStep {
            span: Span::new(start, off(&i)),
            relation,
            direction,
            weight,
            alias,
        },
    ))
}

pub(super) fn target_clause(i: In<'_>) -> PResult<'_, TargetClause> {
    let (i, k) = kw("TARGET")(i)?;
    let (i, labels) = separated_list1(sym(","), name("a label name"))(i)?;
    Ok((
        i,
        TargetClause {
            span: since(k, &i),
            labels,
        },
    ))
}

pub(super) fn where_clause(i: In<'_>) -> PResult<'_, WhereClause> {
    let (i, k) = kw("WHERE")(i)?;
    let (i, predicates) = predicates(true)(i)?;
    Ok((
        i,
        WhereClause {
            span: since(k, &i),
            predicates,
        },
    ))
}

pub(super) fn score_clause(i: In<'_>) -> PResult<'_, ScoreClause> {
    let (i, k) = kw("SCORE")(i)?;
    let (i, terms) = separated_list1(sym(","), |i| {
        let (i, (component, c)) = alt((
            map(kw("semantic"), |s| (ScoreComponent::Semantic, s)),
            map(kw("connectivity"), |s| (ScoreComponent::Connectivity, s)),
            map(kw("distance"), |s| (ScoreComponent::Distance, s)),
        ))(i)?;
        let (i, weight) = number(i)?;
        Ok((
            i,
            ScoreTerm {
                span: since(c, &i),
                component,
                weight,
            },
        ))
    })(i)?;
    Ok((
        i,
        ScoreClause {
            span: since(k, &i),
            terms,
        },
    ))
}

pub(super) fn count_clause<'a>(k: &'static str) -> impl Fn(In<'a>) -> PResult<'a, CountClause> {
    move |i| {
        let (i, ks) = kw(k)(i)?;
        let (i, value) = number(i)?;
        Ok((
            i,
            CountClause {
                span: since(ks, &i),
                value,
            },
        ))
    }
}

pub(super) fn return_clause(i: In<'_>) -> PResult<'_, ReturnClause> {
    let (i, k) = kw("RETURN")(i)?;
    let (i, (kind, columns, aggregates)) = alt((
        |i| {
            let (i, kind) = alt((
                map(kw("NODES"), |_| ReturnKind::Nodes),
                map(kw("PATHS"), |_| ReturnKind::Paths),
                map(kw("SUBGRAPH"), |_| ReturnKind::Subgraph),
                map(kw("ANSWER"), |_| ReturnKind::Answer),
                map(kw("TRACE"), |_| ReturnKind::Trace),
            ))(i)?;
            let (i, columns) = opt(separated_list1(sym(","), column))(i)?;
            Ok((i, (kind, columns.unwrap_or_default(), Vec::new())))
        },
        |i| {
            let (i, aggregates) = separated_list1(sym(","), aggregate)(i)?;
            // One bare `COUNT` is the exact count; anything else is an aggregate row.
            let kind = match aggregates.as_slice() {
                [one] if one.func == AggFunc::Count => ReturnKind::Count,
                _ => ReturnKind::Aggregate,
            };
            Ok((i, (kind, Vec::new(), aggregates)))
        },
    ))(i)?;
    let (i, group_by) = if matches!(kind, ReturnKind::Count | ReturnKind::Aggregate) {
        opt(preceded(
            |i| by_phrase(i, "GROUP"),
            separated_list1(sym(","), column),
        ))(i)?
    } else {
        (i, None)
    };
    let group_by = group_by.unwrap_or_default();
    // `RETURN COUNT GROUP BY …` is a grouped aggregate, not the one exact count.
    let kind = if kind == ReturnKind::Count && !group_by.is_empty() {
        ReturnKind::Aggregate
    } else {
        kind
    };
    let (i, order) = opt(preceded(
        |i| by_phrase(i, "ORDER"),
        separated_list1(sym(","), sort_key),
    ))(i)?;
    let (i, limit) = opt(preceded(kw("LIMIT"), number))(i)?;
    let (i, with_ties) = if limit.is_some() {
        map(opt(preceded(kw("WITH"), kw("TIES"))), |t| t.is_some())(i)?
    } else {
        (i, false)
    };
    Ok((
        i,
        ReturnClause {
            span: since(k, &i),
            kind,
            columns,
            aggregates,
            group_by,
            order: order.unwrap_or_default(),
            limit,
            with_ties,
        },
    ))
}

/// `ORDER BY` / `GROUP BY` (two words).
pub(super) fn by_phrase<'a>(i: In<'a>, first: &'static str) -> PResult<'a, Span> {
    let (i, a) = kw(first)(i)?;
    let (i, b) = kw("BY")(i)?;
    Ok((i, a.to(b)))
}

/// `COUNT`, `SUM(p)`, `AVG(p)`, `MIN(p)`, `MAX(p)`.
pub(super) fn aggregate(i: In<'_>) -> PResult<'_, AggregateExpr> {
    let (i, ()) = ws(i)?;
    let start = Span::new(off(&i), off(&i));
    let (i, func) = alt((
        map(kw("COUNT"), |_| AggFunc::Count),
        map(kw("SUM"), |_| AggFunc::Sum),
        map(kw("AVG"), |_| AggFunc::Avg),
        map(kw("MIN"), |_| AggFunc::Min),
        map(kw("MAX"), |_| AggFunc::Max),
    ))(i)?;
    let (i, property) = if func == AggFunc::Count {
        (i, None)
    } else {
        let (i, _) = sym("(")(i)?;
        let (i, p) = name("a property name")(i)?;
        let (i, _) = sym(")")(i)?;
        (i, Some(p))
    };
    Ok((
        i,
        AggregateExpr {
            span: since(start, &i),
            func,
            property,
        },
    ))
}

/// A `RETURN` column or `GROUP BY` key: `COUNT`, `SCORE`, `name` or `qualifier.name`. `ORDER BY`
/// and `GROUP BY` end a column list (a property may be called `order`).
pub(super) fn column(i: In<'_>) -> PResult<'_, Column> {
    let (i, ()) = ws(i)?;
    if by_phrase(i, "ORDER").is_ok() || by_phrase(i, "GROUP").is_ok() {
        return backtrack(i, Expect::Thing("a column"));
    }
    let start = Span::new(off(&i), off(&i));
    alt((
        |i| {
            let (i, s) = kw("COUNT")(i)?;
            Ok((i, Column::Count { span: s }))
        },
        |i| {
            let (i, s) = kw("SCORE")(i)?;
            Ok((i, Column::Score { span: s }))
        },
        move |i| {
            let (i, first) = name("a property name")(i)?;
            let (i, second) = opt(preceded(sym("."), name("a property name")))(i)?;
            let (qualifier, name) = match second {
                Some(p) => (Some(first), p),
                None => (None, first),
            };
            Ok((
                i,
                Column::Property {
                    span: since(start, &i),
                    qualifier,
                    name,
                },
            ))
        },
    ))(i)
}

/// `key [ASC|DESC]`, the key a column or an aggregate (`SUM(p)` before a property `sum`).
pub(super) fn sort_key(i: In<'_>) -> PResult<'_, SortKey> {
    let (i, ()) = ws(i)?;
    let start = Span::new(off(&i), off(&i));
    let (i, key) = alt((
        |i| {
            let (i, a) = aggregate(i)?;
            if a.func == AggFunc::Count {
                // `COUNT` is the column (the same value in a grouped query).
                return backtrack(i, Expect::Thing("a sort key"));
            }
            Ok((i, Column::Aggregate(a)))
        },
        column,
    ))(i)?;
    let (i, descending) = opt(alt((map(kw("ASC"), |_| false), map(kw("DESC"), |_| true))))(i)?;
    Ok((
        i,
        SortKey {
            span: since(start, &i),
            key,
            descending,
        },
    ))
}

pub(super) fn until_clause(i: In<'_>) -> PResult<'_, UntilClause> {
    let (i, k) = kw("UNTIL")(i)?;
    let (i, condition) = or_cond(i)?;
    Ok((
        i,
        UntilClause {
            span: since(k, &i),
            condition,
        },
    ))
}

/// `and {OR and}`; keeps a single operand as is.
pub(super) fn or_cond(i: In<'_>) -> PResult<'_, Cond> {
    chain(i, "OR", and_cond, CondKind::Or)
}

/// `primary {AND primary}`
pub(super) fn and_cond(i: In<'_>) -> PResult<'_, Cond> {
    chain(i, "AND", primary_cond, CondKind::And)
}

pub(super) fn chain<'a>(
    i: In<'a>,
    op: &'static str,
    operand: fn(In<'a>) -> PResult<'a, Cond>,
    make: fn(Vec<Cond>) -> CondKind,
) -> PResult<'a, Cond> {
    let (mut i, first) = operand(i)?;
    let mut items = vec![first];
    loop {
        let after = match kw(op)(i) {
            Ok((r, _)) => r,
            Err(nom::Err::Error(_)) => break,
            Err(e) => return Err(e),
        };
        match operand(after) {
            Ok((r, c)) => {
                items.push(c);
                i = r;
            }
            Err(nom::Err::Error(_)) => break,
            Err(e) => return Err(e),
        }
    }
    if items.len() == 1 {
        if let Some(only) = items.pop() {
            return Ok((i, only));
        }
    }
    let span = Span::new(
        items.first().map_or(0, |c| c.span.start),
        items.last().map_or(0, |c| c.span.end),
    );
    Ok((
        i,
        Cond {
            span,
            kind: make(items),
        },
    ))
}

pub(super) fn primary_cond(i: In<'_>) -> PResult<'_, Cond> {
    alt((paren_cond, atom_cond))(i)
}

pub(super) fn paren_cond(i: In<'_>) -> PResult<'_, Cond> {
    let (i, open) = sym("(")(i)?;
    nest(&i, open)?;
    let r = or_cond(i);
    unnest(&i);
    let (i, c) = r?;
    let (i, _) = sym(")")(i)?;
    Ok((i, c))
}

pub(super) fn atom_cond(i: In<'_>) -> PResult<'_, Cond> {
    let (i, ()) = ws(i)?;
    let start = Span::new(off(&i), off(&i));
    let (i, kind) = alt((
        map(
            preceded(kw("sufficient"), opt(preceded(sym(">="), number))),
            |threshold| CondKind::Sufficient { threshold },
        ),
        |i| {
            let (i, _) = kw("found")(i)?;
            let (i, count) = number(i)?;
            let (i, label) = opt(name("a label name"))(i)?;
            Ok((i, CondKind::Found { count, label }))
        },
        map(preceded(kw("stale"), number), |rounds| CondKind::Stale {
            rounds,
        }),
        map(preceded(kw("steps"), number), |count| CondKind::Steps {
            count,
        }),
        map(preceded(kw("depth"), number), |hops| CondKind::Depth {
            hops,
        }),
        map(preceded(kw("time"), duration), |duration| CondKind::Time {
            duration,
        }),
        map(kw("judge"), |_| CondKind::Judge),
    ))(i)?;
    Ok((
        i,
        Cond {
            span: since(start, &i),
            kind,
        },
    ))
}
