//! The nom parser.
//!
//! Input is a [`nom_locate::LocatedSpan`] over the statement text, so every node knows its byte
//! offsets. Error reporting uses the "furthest failure" technique: every token parser that fails
//! records what it expected at the offset where it looked; when the whole parse fails, the error
//! points at the furthest offset reached and lists everything that would have been accepted there.
//! Lexical errors that cannot be recovered from (unterminated strings, bad escapes, numbers out of
//! range, duplicate clauses, too deep nesting) abort at once with `nom::Err::Failure`.
//!
//! Termination: every loop consumes input on each turn, and recursion (parentheses in `UNTIL`,
//! nested lists) is bounded by [`MAX_NESTING`], so no input can make the parser loop or overflow
//! the stack.

use crate::ast::*;
use crate::error::{nearest, ErrorKind, QueryError};
use crate::lexer::{comment_len, ident_len, is_ident_start, name_extent, string_extent};
use crate::limits::MAX_NESTING;
use crate::span::Span;
use cairn_storage_format::Value;
use nom::branch::alt;
use nom::combinator::{map, opt};
use nom::error::ParseError;
use nom::multi::separated_list1;
use nom::sequence::preceded;
use nom::{IResult, Slice};
use nom_locate::LocatedSpan;
use std::cell::{Cell, RefCell};

mod explore;
mod lex;

use explore::*;
use lex::*;

/// Words that cannot be used as bare names (write `` `Order` `` to use one as a name).
/// Compared case-insensitively.
pub const RESERVED: &[&str] = &[
    "AND", "ANY", "ASK", "BEAM", "BUDGET", "CREATE", "DEPTH", "DESCRIBE", "EXCEPT", "EXPLAIN",
    "EXPLORE", "FALSE", "FANOUT", "FROM", "IN", "INDEX", "LIMIT", "MEET", "NULL", "ON", "OR",
    "RELATION", "RETURN", "SCORE", "SEARCH", "SHOW", "TARGET", "TOP", "TRUE", "UNDER", "UNTIL",
    "VIA", "WHERE",
];

/// Whether `w` is a reserved word.
pub fn is_reserved(w: &str) -> bool {
    // Hot path (every name is checked): upper-case into a stack buffer and binary-search the
    // sorted list instead of comparing against every word.
    let b = w.as_bytes();
    if b.len() < 2 || b.len() > 8 {
        return false;
    }
    let mut buf = [0u8; 8];
    for (d, s) in buf.iter_mut().zip(b) {
        *d = s.to_ascii_uppercase();
    }
    let up = &buf[..b.len()];
    RESERVED.binary_search_by(|k| k.as_bytes().cmp(up)).is_ok()
}

/// What a failed token parser wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Keyword(&'static str),
    Symbol(&'static str),
    Thing(&'static str),
}

impl Expect {
    fn describe(self) -> String {
        match self {
            Expect::Keyword(k) | Expect::Symbol(k) => format!("`{k}`"),
            Expect::Thing(t) => t.to_owned(),
        }
    }
}

/// Parser state shared by all positions: the furthest failure and the nesting depth.
#[derive(Debug, Default)]
pub(crate) struct State {
    furthest: Cell<usize>,
    expected: RefCell<Vec<Expect>>,
    nesting: Cell<usize>,
    /// The last whitespace skip: (offset, bytes skipped).
    last_ws: Cell<(usize, usize)>,
}

impl State {
    fn record(&self, offset: usize, e: Expect) {
        let f = self.furthest.get();
        let mut exp = self.expected.borrow_mut();
        if offset > f || exp.is_empty() {
            self.furthest.set(offset);
            exp.clear();
            exp.push(e);
        } else if offset == f && !exp.contains(&e) {
            exp.push(e);
        }
    }

    fn into_error(self, src: &str) -> ErrorKind {
        let offset = self.furthest.get().min(src.len());
        let expected = self.expected.into_inner();
        let (span, found, word) = found_at(src, offset);
        let mut help = None;
        let wants_name = expected
            .iter()
            .any(|e| matches!(e, Expect::Thing(t) if t.contains("name")));
        if found == "a string" && wants_name {
            help = Some(
                "names are written without quotes: Venue, or `odd name` in backquotes".to_owned(),
            );
        }
        if let Some(w) = word {
            if w.eq_ignore_ascii_case("OR")
                && expected.contains(&Expect::Keyword("AND"))
                && !expected.contains(&Expect::Keyword("OR"))
            {
                help = Some(
                    "predicates are joined with AND only; for alternatives use `property IN [a, b]`"
                        .to_owned(),
                );
            } else if w.eq_ignore_ascii_case("LIMIT")
                && expected.contains(&Expect::Keyword("RETURN"))
            {
                help = Some("LIMIT belongs to RETURN, e.g. `RETURN NODES LIMIT 10`".to_owned());
            } else {
                let kws = expected.iter().filter_map(|e| match e {
                    Expect::Keyword(k) => Some(*k),
                    _ => None,
                });
                if let Some(best) = nearest(w, kws).first() {
                    help = Some(format!("did you mean `{best}`?"));
                } else if is_reserved(w)
                    && expected
                        .iter()
                        .any(|e| matches!(e, Expect::Thing(t) if t.contains("name")))
                {
                    help = Some(format!(
                        "`{w}` is a reserved word; write `` `{w}` `` to use it as a name"
                    ));
                }
            }
        }
        ErrorKind::Expected {
            span,
            expected: expected.into_iter().map(Expect::describe).collect(),
            found,
            help,
        }
    }
}

/// The token at `offset`: its span, a description, and the word if it is one.
fn found_at(src: &str, offset: usize) -> (Span, String, Option<&str>) {
    let rest = src.get(offset..).unwrap_or("");
    if rest.trim_start().is_empty() {
        // Point just after the last character, so that the caret shows on a line with text.
        let end = src.trim_end().len();
        return (Span::new(end, end), "end of input".to_owned(), None);
    }
    let Some(c) = rest.chars().next() else {
        return (Span::new(offset, offset), "end of input".to_owned(), None);
    };
    if c.is_whitespace() {
        return (
            Span::new(offset, offset + c.len_utf8()),
            "whitespace".to_owned(),
            None,
        );
    }
    let len = if is_ident_start(c) {
        let w = ident_len(rest);
        let word = &rest[..w];
        return (
            Span::new(offset, offset + w),
            format!("`{}`", truncate(word)),
            Some(word),
        );
    } else if c == '"' {
        // Cover the whole string when it closes on this line.
        let e = string_extent(rest);
        let len = if e.closed { e.len } else { 1 };
        return (Span::new(offset, offset + len), "a string".to_owned(), None);
    } else if c.is_ascii_digit()
        || (c == '-' && rest[1..].starts_with(|d: char| d.is_ascii_digit()))
    {
        1 + rest[1..]
            .find(|d: char| !(d.is_ascii_alphanumeric() || d == '.'))
            .unwrap_or(rest.len() - 1)
    } else if ["->", ">=", "<=", "!="].iter().any(|s| rest.starts_with(s)) {
        2
    } else {
        c.len_utf8()
    };
    let text = &rest[..len];
    (
        Span::new(offset, offset + len),
        format!("`{}`", truncate(text)),
        None,
    )
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 24 {
        let mut t: String = s.chars().take(24).collect();
        t.push('…');
        t
    } else {
        s.to_owned()
    }
}

pub(crate) type In<'a> = LocatedSpan<&'a str, &'a State>;

/// A parse failure: `Backtrack` (what was expected is in [`State`]) or a fatal error.
#[derive(Debug)]
pub(crate) enum PErr {
    Backtrack,
    Fatal(Box<ErrorKind>),
}

impl<'a> ParseError<In<'a>> for PErr {
    fn from_error_kind(_: In<'a>, _: nom::error::ErrorKind) -> Self {
        PErr::Backtrack
    }
    fn append(_: In<'a>, _: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
    fn or(self, other: Self) -> Self {
        match self {
            PErr::Fatal(_) => self,
            PErr::Backtrack => other,
        }
    }
}

type PResult<'a, O> = IResult<In<'a>, O, PErr>;

fn backtrack<'a, O>(i: In<'a>, e: Expect) -> PResult<'a, O> {
    i.extra.record(i.location_offset(), e);
    Err(nom::Err::Error(PErr::Backtrack))
}

fn fatal<O>(kind: ErrorKind) -> Result<O, nom::Err<PErr>> {
    Err(nom::Err::Failure(PErr::Fatal(Box::new(kind))))
}

fn off(i: &In<'_>) -> usize {
    i.location_offset()
}

// ---------------------------------------------------------------------------------------------
// Statements

/// Parses exactly one statement (an optional trailing `;` is allowed).
pub fn parse(src: &str) -> Result<Statement, QueryError> {
    run(src, |i| {
        let (i, stmt) = statement(i)?;
        let (i, _) = opt(sym(";"))(i)?;
        let (i, ()) = end(i)?;
        Ok((i, stmt))
    })
}

/// Parses a script: statements separated (and optionally terminated) by `;`, cut where
/// [`crate::lexer::split`] cuts them. Error spans point into the whole script.
pub fn parse_script(src: &str) -> Result<Vec<Statement>, QueryError> {
    crate::lexer::split_statements(src)
        .into_iter()
        .map(|(span, _)| {
            run_in(src, span, |i| {
                let (i, stmt) = statement(i)?;
                let (i, ()) = end(i)?;
                Ok((i, stmt))
            })
        })
        .collect()
}

fn run<T>(src: &str, p: impl FnOnce(In<'_>) -> PResult<'_, T>) -> Result<T, QueryError> {
    run_in(src, Span::new(0, src.len()), p)
}

/// Runs `p` on the part `range` of `src`; spans stay offsets into `src`.
fn run_in<T>(
    src: &str,
    range: Span,
    p: impl FnOnce(In<'_>) -> PResult<'_, T>,
) -> Result<T, QueryError> {
    let state = State::default();
    let result = p(In::new_extra(src, &state).slice(range.start..range.end));
    let err = match result {
        Ok((_, t)) => return Ok(t),
        Err(nom::Err::Failure(PErr::Fatal(k)) | nom::Err::Error(PErr::Fatal(k))) => *k,
        Err(_) => state.into_error(src),
    };
    Err(QueryError::new(err).with_source(src))
}

fn end(i: In<'_>) -> PResult<'_, ()> {
    let (i, ()) = ws(i)?;
    if i.fragment().is_empty() {
        Ok((i, ()))
    } else {
        backtrack(i, Expect::Thing("end of input"))
    }
}

fn statement(i: In<'_>) -> PResult<'_, Statement> {
    alt((explain, inner_statement, transaction))(i)
}

/// Every statement but `EXPLAIN`.
fn inner_statement(i: In<'_>) -> PResult<'_, Statement> {
    alt((
        map(explore, |e| Statement::Explore(Box::new(e))),
        ask,
        show,
        describe,
        declare_relation,
        create_index,
        annotate,
        upsert,
        add_edge,
        remove,
    ))(i)
}

fn explain(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("EXPLAIN")(i)?;
    let (i, inner) = inner_statement(i)?;
    let span = since(k, &i);
    Ok((
        i,
        Statement::Explain(Explain {
            span,
            statement: Box::new(inner),
        }),
    ))
}

fn ask(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("ASK")(i)?;
    let (i, question) = string_lit("the question, a string")(i)?;
    let span = since(k, &i);
    Ok((i, Statement::Ask(Ask { span, question })))
}

fn show(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("SHOW")(i)?;
    let (i, what) = alt((
        map(kw("LABELS"), |_| ShowWhat::Labels),
        map(kw("RELATIONS"), |_| ShowWhat::Relations),
        map(kw("INDEXES"), |_| ShowWhat::Indexes),
        map(kw("STRATEGIES"), |_| ShowWhat::Strategies),
    ))(i)?;
    let span = since(k, &i);
    Ok((i, Statement::Show(Show { span, what })))
}

fn describe(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("DESCRIBE")(i)?;
    let (i, label) = name("a label name")(i)?;
    let span = since(k, &i);
    Ok((i, Statement::Describe(Describe { span, label })))
}

fn declare_relation(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("RELATION")(i)?;
    let (i, relation) = name("a relation name")(i)?;
    let (i, _) = kw("UNDER")(i)?;
    let (i, parent) = name("the parent relation's name")(i)?;
    let span = since(k, &i);
    Ok((
        i,
        Statement::DeclareRelation(DeclareRelation {
            span,
            relation,
            parent,
        }),
    ))
}

fn create_index(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("CREATE")(i)?;
    let (i, _) = kw("INDEX")(i)?;
    let (i, _) = kw("ON")(i)?;
    let (i, label) = name("a label name")(i)?;
    let (i, _) = sym("(")(i)?;
    let (i, property) = name("a property name")(i)?;
    let (i, _) = sym(")")(i)?;
    let span = since(k, &i);
    Ok((
        i,
        Statement::CreateIndex(CreateIndex {
            span,
            label,
            property,
        }),
    ))
}

/// `ANNOTATE LABEL|RELATION|PROPERTY name [DESCRIPTION "…"] [ALIASES ("…", …)] [LINKING ON|OFF]`
/// (`LINKING` after `LABEL` only), at least one of the parts.
fn annotate(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("ANNOTATE")(i)?;
    let (i, kind) = alt((
        map(kw("LABEL"), |_| ElementKind::Label),
        map(kw("RELATION"), |_| ElementKind::Relation),
        map(kw("PROPERTY"), |_| ElementKind::Property),
    ))(i)?;
    let (i, name) = name(match kind {
        ElementKind::Label => "a label name",
        ElementKind::Relation => "a relation name",
        ElementKind::Property => "a property name",
    })(i)?;
    let (i, description) = opt(preceded(
        kw("DESCRIPTION"),
        string_lit("the description, a string"),
    ))(i)?;
    let (i, aliases) = opt(preceded(kw("ALIASES"), alias_list))(i)?;
    // Linking is about which nodes a mention may name, so only labels have it.
    let (i, linking) = if kind == ElementKind::Label {
        opt(preceded(
            kw("LINKING"),
            alt((map(kw("ON"), |_| true), map(kw("OFF"), |_| false))),
        ))(i)?
    } else {
        (i, None)
    };
    if description.is_none() && aliases.is_none() && linking.is_none() {
        // No part: say the parts were expected here.
        return backtrack(
            i,
            Expect::Keyword(if kind == ElementKind::Label {
                "LINKING"
            } else {
                "ALIASES"
            }),
        );
    }
    let span = since(k, &i);
    Ok((
        i,
        Statement::Annotate(Annotate {
            span,
            kind,
            name,
            description,
            aliases,
            linking,
        }),
    ))
}

/// `( ["alias" {, "alias"}] )`
fn alias_list(i: In<'_>) -> PResult<'_, Vec<StrLit>> {
    let (i, _) = sym("(")(i)?;
    let (i, items) = opt(separated_list1(sym(","), string_lit("an alias, a string")))(i)?;
    let (i, _) = sym(")")(i)?;
    Ok((i, items.unwrap_or_default()))
}

// ---------------------------------------------------------------------------------------------
// Data and transaction statements

/// `Label "key"`
fn node_ref(i: In<'_>) -> PResult<'_, NodeRef> {
    let (i, label) = name("a label name")(i)?;
    let (i, key) = string_lit("the node's key, a string")(i)?;
    Ok((
        i,
        NodeRef {
            span: label.span.to(key.span),
            label,
            key,
        },
    ))
}

/// `[SET property = value {, property = value}]`
fn assignments(i: In<'_>) -> PResult<'_, Vec<Assignment>> {
    let (i, set) = opt(kw("SET"))(i)?;
    if set.is_none() {
        return Ok((i, Vec::new()));
    }
    separated_list1(sym(","), |i| {
        let (i, property) = name("a property name")(i)?;
        let (i, _) = sym("=")(i)?;
        let (i, value) = literal(i)?;
        Ok((
            i,
            Assignment {
                span: property.span.to(value.span),
                property,
                value,
            },
        ))
    })(i)
}

/// `Label "key" -[REL]-> Label "key"`
fn edge_ref(i: In<'_>) -> PResult<'_, EdgeRef> {
    let (i, from) = node_ref(i)?;
    let (i, _) = sym("-")(i)?;
    let (i, _) = sym("[")(i)?;
    let (i, relation) = name("a relation name")(i)?;
    let (i, _) = sym("]")(i)?;
    let (i, _) = sym("->")(i)?;
    let (i, to) = node_ref(i)?;
    Ok((
        i,
        EdgeRef {
            span: from.span.to(to.span),
            from,
            relation,
            to,
        },
    ))
}

fn upsert(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("UPSERT")(i)?;
    let (i, node) = node_ref(i)?;
    let (i, set) = assignments(i)?;
    let (i, description) = opt(preceded(
        kw("DESCRIPTION"),
        string_lit("the description, a string"),
    ))(i)?;
    Ok((
        i,
        Statement::Upsert(Upsert {
            span: since(k, &i),
            node,
            set,
            description,
        }),
    ))
}

fn add_edge(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("ADD")(i)?;
    let (i, _) = kw("EDGE")(i)?;
    let (i, edge) = edge_ref(i)?;
    let (i, set) = assignments(i)?;
    let (i, weight) = opt(preceded(kw("WEIGHT"), number))(i)?;
    Ok((
        i,
        Statement::AddEdge(AddEdge {
            span: since(k, &i),
            edge,
            set,
            weight,
        }),
    ))
}

fn remove(i: In<'_>) -> PResult<'_, Statement> {
    let (i, k) = kw("REMOVE")(i)?;
    alt((
        move |i| {
            let (i, _) = kw("EDGE")(i)?;
            let (i, edge) = edge_ref(i)?;
            let span = since(k, &i);
            Ok((i, Statement::RemoveEdge(RemoveEdge { span, edge })))
        },
        move |i| {
            let (i, _) = kw("NODE")(i)?;
            let (i, node) = node_ref(i)?;
            let span = since(k, &i);
            Ok((i, Statement::RemoveNode(RemoveNode { span, node })))
        },
    ))(i)
}

fn transaction(i: In<'_>) -> PResult<'_, Statement> {
    let (i, ()) = ws(i)?;
    let start = Span::new(off(&i), off(&i));
    let (i, kind) = alt((
        map(kw("BEGIN"), |_| TransactionKind::Begin),
        map(kw("COMMIT"), |_| TransactionKind::Commit),
        map(
            preceded(kw("SAVEPOINT"), name("a savepoint name")),
            TransactionKind::Savepoint,
        ),
        |i| {
            let (i, _) = kw("ROLLBACK")(i)?;
            let (i, to) = opt(preceded(kw("TO"), name("a savepoint name")))(i)?;
            Ok((
                i,
                to.map_or(TransactionKind::Rollback, TransactionKind::RollbackTo),
            ))
        },
    ))(i)?;
    let span = since(start, &i);
    Ok((i, Statement::Transaction(Transaction { span, kind })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_lookup_matches_the_list() {
        let mut sorted = RESERVED.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, RESERVED, "RESERVED must stay sorted");
        for w in RESERVED {
            assert!(is_reserved(w));
            assert!(is_reserved(&w.to_lowercase()));
        }
        for w in [
            "", "A", "Author", "ORR", "EXPLORER", "found", "judge", "INDEXES", "é",
        ] {
            assert!(!is_reserved(w), "{w}");
        }
    }
}
