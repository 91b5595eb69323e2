//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use cairn_query::ast::*;

/// Checks that the spans of names, strings and numbers cover exactly their text.
pub fn check_spans(stmt: &Statement, src: &str) {
    let name = |n: &Name| {
        let t = &src[n.span.start..n.span.end];
        assert!(
            t == n.text || (t.starts_with('`') && t.ends_with('`')),
            "name span {} is {t:?}, not {:?}",
            n.span,
            n.text
        );
    };
    let string = |s: &StrLit| {
        let t = &src[s.span.start..s.span.end];
        assert!(
            t.starts_with('"') && t.ends_with('"') && t.len() >= 2,
            "string span {t:?}"
        );
    };
    let number = |n: &Number| {
        let t = &src[n.span.start..n.span.end];
        let ok = match n.value {
            NumberValue::Int(i) => t.parse::<i64>() == Ok(i),
            NumberValue::Float(f) => t.parse::<f64>() == Ok(f),
        };
        assert!(ok, "number span {t:?} for {:?}", n.value);
    };
    let sub = |e: &Explore| {
        let t = &src[e.span.start..e.span.end];
        assert!(
            t.to_ascii_uppercase().starts_with("EXPLORE"),
            "subquery span {t:?}"
        );
        check_spans(&Statement::Explore(Box::new(e.clone())), src);
    };
    let pred = |p: &Predicate| {
        p.label.iter().for_each(name);
        name(&p.property);
        let op = &src[p.op_span.start..p.op_span.end];
        assert_eq!(op.to_ascii_uppercase(), p.op.to_string());
        if p.negated {
            assert!(src[p.span.start..].to_ascii_uppercase().starts_with("NOT"));
        }
        if let Operand::Subquery(e) = &p.value {
            sub(e);
        }
    };
    let column = |c: &Column| {
        let t = &src[c.span().start..c.span().end];
        match c {
            Column::Property {
                qualifier, name: n, ..
            } => {
                qualifier.iter().for_each(name);
                name(n);
            }
            Column::Count { .. } => assert!(t.eq_ignore_ascii_case("COUNT"), "{t:?}"),
            Column::Score { .. } => assert!(t.eq_ignore_ascii_case("SCORE"), "{t:?}"),
            Column::Aggregate(a) => {
                a.property.iter().for_each(name);
            }
        }
    };
    let node = |n: &NodeRef| {
        name(&n.label);
        string(&n.key);
        assert_eq!(n.span, n.label.span.to(n.key.span));
    };
    let edge = |e: &EdgeRef| {
        node(&e.from);
        name(&e.relation);
        node(&e.to);
    };
    let assign = |a: &Assignment| {
        name(&a.property);
        assert_eq!(a.span, a.property.span.to(a.value.span));
    };
    fn cond(c: &Cond, src: &str, name: &dyn Fn(&Name), number: &dyn Fn(&Number)) {
        assert!(!src[c.span.start..c.span.end].trim().is_empty());
        match &c.kind {
            CondKind::Sufficient { threshold } => threshold.iter().for_each(number),
            CondKind::Found { count, label } => {
                number(count);
                label.iter().for_each(name);
            }
            CondKind::Stale { rounds: n }
            | CondKind::Steps { count: n }
            | CondKind::Depth { hops: n } => number(n),
            CondKind::Time { duration } => {
                let t = &src[duration.span.start..duration.span.end];
                let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                assert_eq!(
                    digits.parse::<u64>(),
                    Ok(duration.amount),
                    "duration span {t:?}"
                );
                assert!(t[digits.len()..].eq_ignore_ascii_case(duration.unit.suffix()));
            }
            CondKind::Judge => {}
            CondKind::And(cs) | CondKind::Or(cs) => {
                cs.iter().for_each(|c| cond(c, src, name, number))
            }
        }
    }
    match stmt {
        Statement::Explore(e) => {
            string(&e.goal);
            assert!(src[e.span.start..e.span.end]
                .to_ascii_uppercase()
                .starts_with("EXPLORE"));
            let sides = e.meet.iter().chain(&e.except).flat_map(|m| &m.sides);
            let froms = e.from.iter().chain(sides.clone().map(|s| &s.from));
            for en in froms.flat_map(|f| &f.entries) {
                match &en.kind {
                    EntryKind::Search { text, label, top } => {
                        string(text);
                        label.iter().for_each(name);
                        top.iter().for_each(number);
                    }
                    EntryKind::Key { label, key } => {
                        name(label);
                        string(key);
                    }
                    EntryKind::Match { label, predicates } => {
                        name(label);
                        predicates.iter().for_each(pred);
                    }
                    EntryKind::Id { id } => {
                        assert_eq!(&src[en.span.start..en.span.end], format!("#{id}"))
                    }
                    EntryKind::Subquery(inner) => {
                        assert!(src[en.span.start..].starts_with('('));
                        sub(inner);
                    }
                }
            }
            e.from.iter().flat_map(|f| &f.alias).for_each(name);
            for st in e
                .via
                .iter()
                .chain(sides.map(|s| &s.via))
                .flat_map(|v| &v.steps)
            {
                if let RelRef::Named(n) = &st.relation {
                    name(n);
                }
                st.weight.iter().for_each(number);
                st.alias.iter().for_each(name);
            }
            e.target.iter().flat_map(|t| &t.labels).for_each(name);
            e.filter.iter().flat_map(|w| &w.predicates).for_each(pred);
            for t in e.score.iter().flat_map(|s| &s.terms) {
                number(&t.weight);
            }
            for c in [&e.beam, &e.depth, &e.budget, &e.fanout]
                .into_iter()
                .flatten()
            {
                number(&c.value);
            }
            if let Some(u) = &e.until {
                cond(&u.condition, src, &name, &number);
            }
            if let Some(r) = &e.ret {
                r.limit.iter().for_each(number);
                r.columns.iter().chain(&r.group_by).for_each(column);
                r.order.iter().for_each(|k| column(&k.key));
                for a in &r.aggregates {
                    a.property.iter().for_each(name);
                }
            }
        }
        Statement::Ask(a) => string(&a.question),
        Statement::Explain(e) => check_spans(&e.statement, src),
        Statement::Show(_) => {}
        Statement::Describe(d) => name(&d.label),
        Statement::DeclareRelation(d) => {
            name(&d.relation);
            name(&d.parent);
        }
        Statement::CreateIndex(c) => {
            name(&c.label);
            name(&c.property);
        }
        Statement::Annotate(a) => {
            name(&a.name);
            a.description.iter().for_each(string);
            a.aliases.iter().flatten().for_each(string);
        }
        Statement::Upsert(u) => {
            node(&u.node);
            u.set.iter().for_each(assign);
            u.description.iter().for_each(string);
        }
        Statement::AddEdge(a) => {
            edge(&a.edge);
            a.set.iter().for_each(assign);
            a.weight.iter().for_each(number);
        }
        Statement::RemoveEdge(r) => edge(&r.edge),
        Statement::RemoveNode(r) => node(&r.node),
        Statement::Transaction(t) => match &t.kind {
            TransactionKind::Savepoint(n) | TransactionKind::RollbackTo(n) => name(n),
            _ => {}
        },
    }
}
