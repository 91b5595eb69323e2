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
// Lexical layer

/// Skips whitespace, `-- line comments` and `/* block comments */`.
fn ws(mut i: In<'_>) -> PResult<'_, ()> {
    // Fast path: token parsers call this at every attempt, mostly where there is nothing to skip.
    match i.fragment().as_bytes().first() {
        Some(b) if b.is_ascii_whitespace() || matches!(b, b'-' | b'/') || !b.is_ascii() => {}
        _ => return Ok((i, ())),
    }
    // Alternatives retry tokens at the same place: remember the last skip.
    let from = off(&i);
    let (cached_from, cached_len) = i.extra.last_ws.get();
    if cached_from == from && cached_len > 0 {
        return Ok((i.slice(cached_len..), ()));
    }
    loop {
        let s = *i.fragment();
        let trimmed = s.trim_start();
        let mut n = s.len() - trimmed.len();
        match comment_len(trimmed) {
            Some(Ok(len)) => n += len,
            Some(Err(())) => {
                let start = off(&i) + n;
                return fatal(ErrorKind::UnterminatedComment {
                    span: Span::new(start, start + 2),
                });
            }
            None => {}
        }
        if n == 0 {
            i.extra.last_ws.set((from, off(&i) - from));
            return Ok((i, ()));
        }
        i = i.slice(n..);
    }
}

/// A keyword (case-insensitive, whole word).
fn kw<'a>(k: &'static str) -> impl Fn(In<'a>) -> PResult<'a, Span> {
    move |i| {
        let (i, ()) = ws(i)?;
        let n = ident_len(i.fragment());
        if n > 0 && i.fragment()[..n].eq_ignore_ascii_case(k) {
            let start = off(&i);
            Ok((i.slice(n..), Span::new(start, start + n)))
        } else {
            backtrack(i, Expect::Keyword(k))
        }
    }
}

/// A punctuation symbol.
fn sym<'a>(s: &'static str) -> impl Fn(In<'a>) -> PResult<'a, Span> {
    move |i| {
        let (i, ()) = ws(i)?;
        let b = i.fragment().as_bytes();
        if b.len() >= s.len() && s.bytes().zip(b).all(|(x, y)| x == *y) {
            let start = off(&i);
            Ok((i.slice(s.len()..), Span::new(start, start + s.len())))
        } else {
            backtrack(i, Expect::Symbol(s))
        }
    }
}

/// A name: a non-reserved identifier, or any text in backquotes (a doubled backquote stands for
/// one). `what` describes it in errors ("a label name").
fn name<'a>(what: &'static str) -> impl Fn(In<'a>) -> PResult<'a, Name> {
    move |i| {
        let (i, ()) = ws(i)?;
        let start = off(&i);
        let s = *i.fragment();
        if s.starts_with('`') {
            let e = name_extent(s);
            if !e.closed {
                return fatal(ErrorKind::UnterminatedName {
                    span: Span::new(start, start + 1),
                });
            }
            let text = s[1..e.len - 1].replace("``", "`");
            let span = Span::new(start, start + e.len);
            if text.is_empty() {
                return fatal(ErrorKind::EmptyName { span });
            }
            return Ok((i.slice(e.len..), Name { text, span }));
        }
        let n = ident_len(s);
        if n == 0 || is_reserved(&s[..n]) {
            return backtrack(i, Expect::Thing(what));
        }
        Ok((
            i.slice(n..),
            Name {
                text: s[..n].to_owned(),
                span: Span::new(start, start + n),
            },
        ))
    }
}

/// A double-quoted string with escapes.
fn string_lit<'a>(what: &'static str) -> impl Fn(In<'a>) -> PResult<'a, StrLit> {
    move |i| {
        let (i, ()) = ws(i)?;
        let start = off(&i);
        let s = *i.fragment();
        if !s.starts_with('"') {
            return backtrack(i, Expect::Thing(what));
        }
        let extent = string_extent(s);
        let body = &s[1..extent.len - usize::from(extent.closed)];
        let mut value = String::new();
        let mut chars = body.char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                '\\' => {
                    let esc_start = start + 1 + k;
                    let bad = |len: usize| {
                        let e = body.get(k..(k + len).min(body.len())).unwrap_or("\\");
                        fatal(ErrorKind::InvalidEscape {
                            span: Span::new(esc_start, esc_start + e.len()),
                            escape: e.to_owned(),
                        })
                    };
                    match chars.next() {
                        Some((_, '"')) => value.push('"'),
                        Some((_, '\\')) => value.push('\\'),
                        Some((_, 'n')) => value.push('\n'),
                        Some((_, 'r')) => value.push('\r'),
                        Some((_, 't')) => value.push('\t'),
                        Some((_, '0')) => value.push('\0'),
                        Some((_, 'u')) => {
                            // \u{1F600}
                            let rest = &body[k + 2..];
                            let close = rest.find('}');
                            let decoded = match (rest.strip_prefix('{'), close) {
                                (Some(_), Some(close)) if close <= 7 => {
                                    u32::from_str_radix(&rest[1..close], 16)
                                        .ok()
                                        .and_then(char::from_u32)
                                        .map(|ch| (ch, close))
                                }
                                _ => None,
                            };
                            match decoded {
                                Some((ch, close)) => {
                                    value.push(ch);
                                    for _ in 0..=close {
                                        chars.next();
                                    }
                                }
                                None => {
                                    let len = close.map_or(2, |c| c + 3).min(12);
                                    return bad(len);
                                }
                            }
                        }
                        Some((_, other)) => return bad(1 + other.len_utf8()),
                        None => {
                            return fatal(ErrorKind::UnterminatedString {
                                span: Span::new(start, start + 1),
                            })
                        }
                    }
                }
                c => value.push(c),
            }
        }
        if !extent.closed {
            return fatal(ErrorKind::UnterminatedString {
                span: Span::new(start, start + 1),
            });
        }
        let end = start + extent.len;
        Ok((
            i.slice(extent.len..),
            StrLit {
                value,
                span: Span::new(start, end),
            },
        ))
    }
}

/// A number: `-?digits[.digits][e[+-]digits]`; integer unless it has a fraction or exponent.
fn number(i: In<'_>) -> PResult<'_, Number> {
    let (i, ()) = ws(i)?;
    let start = off(&i);
    let s = *i.fragment();
    let b = s.as_bytes();
    let mut n = usize::from(b.first() == Some(&b'-'));
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_digits = digits(n);
    if int_digits == 0 {
        return backtrack(i, Expect::Thing("a number"));
    }
    n += int_digits;
    let mut float = false;
    if b.get(n) == Some(&b'.') && digits(n + 1) > 0 {
        n += 1 + digits(n + 1);
        float = true;
    }
    if matches!(b.get(n), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(n + 1), Some(b'+' | b'-')));
        let e = digits(n + 1 + sign);
        if e > 0 {
            n += 1 + sign + e;
            float = true;
        }
    }
    let text = &s[..n];
    let span = Span::new(start, start + n);
    let value = if float {
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => NumberValue::Float(f),
            _ => return fatal(ErrorKind::NumberOutOfRange { span }),
        }
    } else {
        match text.parse::<i64>() {
            Ok(v) => NumberValue::Int(v),
            Err(_) => return fatal(ErrorKind::NumberOutOfRange { span }),
        }
    };
    Ok((i.slice(n..), Number { value, span }))
}

/// Unsigned digits right at the input (no whitespace skipping).
fn raw_u64<'a>(i: In<'a>, what: &'static str) -> PResult<'a, (u64, Span)> {
    let start = off(&i);
    let n = i.fragment().bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return backtrack(i, Expect::Thing(what));
    }
    let span = Span::new(start, start + n);
    match i.fragment()[..n].parse::<u64>() {
        Ok(v) => Ok((i.slice(n..), (v, span))),
        Err(_) => fatal(ErrorKind::NumberOutOfRange { span }),
    }
}

/// A duration: digits immediately followed by `ms`, `s`, `m` or `h`.
fn duration(i: In<'_>) -> PResult<'_, DurationLit> {
    let (i, ()) = ws(i)?;
    let start = off(&i);
    let (i, (amount, _)) = raw_u64(i, "a duration such as `30s`")?;
    let n = ident_len(i.fragment());
    let unit = match i.fragment()[..n].to_ascii_lowercase().as_str() {
        "ms" => TimeUnit::Millis,
        "s" => TimeUnit::Seconds,
        "m" => TimeUnit::Minutes,
        "h" => TimeUnit::Hours,
        _ => return backtrack(i, Expect::Thing("a time unit (`ms`, `s`, `m` or `h`)")),
    };
    let end = off(&i) + n;
    Ok((
        i.slice(n..),
        DurationLit {
            span: Span::new(start, end),
            amount,
            unit,
        },
    ))
}

/// Enters one nesting level (parenthesis or bracket at `span`).
fn nest(i: &In<'_>, span: Span) -> Result<(), nom::Err<PErr>> {
    let n = i.extra.nesting.get() + 1;
    if n > MAX_NESTING {
        return fatal(ErrorKind::TooDeep { span });
    }
    i.extra.nesting.set(n);
    Ok(())
}

fn unnest(i: &In<'_>) {
    i.extra.nesting.set(i.extra.nesting.get().saturating_sub(1));
}

/// A literal value: `null`, `true`, `false`, a number, a string, or a list `[v, …]`.
fn literal(i: In<'_>) -> PResult<'_, Literal> {
    let (i, ()) = ws(i)?;
    let start = off(&i);
    let s = *i.fragment();
    let Some(c) = s.chars().next() else {
        return backtrack(i, Expect::Thing("a value"));
    };
    if c == '"' {
        let (r, lit) = string_lit("a string")(i)?;
        return Ok((
            r,
            Literal {
                value: Value::Str(lit.value),
                span: lit.span,
            },
        ));
    }
    if c == '[' {
        return list(i);
    }
    if c.is_ascii_digit() || (c == '-' && s[1..].starts_with(|d: char| d.is_ascii_digit())) {
        let (r, n) = number(i)?;
        let value = match n.value {
            NumberValue::Int(v) => Value::Int(v),
            NumberValue::Float(f) => Value::Float(f),
        };
        return Ok((
            r,
            Literal {
                value,
                span: n.span,
            },
        ));
    }
    let n = ident_len(s);
    let value = match s[..n].to_ascii_lowercase().as_str() {
        "null" => Value::Null,
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => return backtrack(i, Expect::Thing("a value")),
    };
    Ok((
        i.slice(n..),
        Literal {
            value,
            span: Span::new(start, start + n),
        },
    ))
}

/// `[v, …]` (possibly empty).
fn list(i: In<'_>) -> PResult<'_, Literal> {
    let (i, open) = sym("[")(i)?;
    nest(&i, open)?;
    let r = list_body(i, open);
    unnest(&i);
    r
}

fn list_body(i: In<'_>, open: Span) -> PResult<'_, Literal> {
    let (i, items) = opt(separated_list1(sym(","), literal))(i)?;
    let (i, close) = sym("]")(i)?;
    Ok((
        i,
        Literal {
            value: Value::List(
                items
                    .unwrap_or_default()
                    .into_iter()
                    .map(|l| l.value)
                    .collect(),
            ),
            span: open.to(close),
        },
    ))
}

/// Span from `start` to the current position.
fn since(start: Span, i: &In<'_>) -> Span {
    Span::new(start.start, off(i))
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

// ---------------------------------------------------------------------------------------------
// EXPLORE

enum Clause {
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

fn explore(i: In<'_>) -> PResult<'_, Explore> {
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
const CLAUSES: [&str; 13] = [
    "FROM", "VIA", "MEET", "EXCEPT", "TARGET", "WHERE", "SCORE", "BEAM", "DEPTH", "BUDGET",
    "FANOUT", "UNTIL", "RETURN",
];

fn clause(i: In<'_>) -> PResult<'_, Clause> {
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
fn from_clause(i: In<'_>, aliased: bool) -> PResult<'_, FromClause> {
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

fn entry(i: In<'_>) -> PResult<'_, Entry> {
    alt((search_entry, id_entry, subquery_entry, label_entry))(i)
}

/// `( EXPLORE … )`, nested at most [`MAX_NESTING`] deep.
fn subquery(i: In<'_>) -> PResult<'_, (Span, Explore, Span)> {
    let (i, open) = sym("(")(i)?;
    nest(&i, open)?;
    let r = explore(i);
    unnest(&i);
    let (i, e) = r?;
    let (i, close) = sym(")")(i)?;
    Ok((i, (open, e, close)))
}

fn subquery_entry(i: In<'_>) -> PResult<'_, Entry> {
    let (i, (open, e, close)) = subquery(i)?;
    Ok((
        i,
        Entry {
            span: open.to(close),
            kind: EntryKind::Subquery(Box::new(e)),
        },
    ))
}

fn search_entry(i: In<'_>) -> PResult<'_, Entry> {
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

fn id_entry(i: In<'_>) -> PResult<'_, Entry> {
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

fn label_entry(i: In<'_>) -> PResult<'_, Entry> {
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

fn predicates<'a>(qualified: bool) -> impl FnMut(In<'a>) -> PResult<'a, Vec<Predicate>> {
    separated_list1(kw("AND"), move |i| predicate(i, qualified))
}

fn predicate(i: In<'_>, qualified: bool) -> PResult<'_, Predicate> {
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

fn plain_predicate(i: In<'_>, qualified: bool) -> PResult<'_, Predicate> {
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

fn via_clause(i: In<'_>) -> PResult<'_, ViaClause> {
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
fn sides_clause<'a>(k: &'static str) -> impl Fn(In<'a>) -> PResult<'a, MeetClause> {
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
fn meet_side(i: In<'_>) -> PResult<'_, MeetSide> {
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

fn rel_step(i: In<'_>) -> PResult<'_, RelStep> {
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

fn target_clause(i: In<'_>) -> PResult<'_, TargetClause> {
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

fn where_clause(i: In<'_>) -> PResult<'_, WhereClause> {
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

fn score_clause(i: In<'_>) -> PResult<'_, ScoreClause> {
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

fn count_clause<'a>(k: &'static str) -> impl Fn(In<'a>) -> PResult<'a, CountClause> {
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

fn return_clause(i: In<'_>) -> PResult<'_, ReturnClause> {
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
fn by_phrase<'a>(i: In<'a>, first: &'static str) -> PResult<'a, Span> {
    let (i, a) = kw(first)(i)?;
    let (i, b) = kw("BY")(i)?;
    Ok((i, a.to(b)))
}

/// `COUNT`, `SUM(p)`, `AVG(p)`, `MIN(p)`, `MAX(p)`.
fn aggregate(i: In<'_>) -> PResult<'_, AggregateExpr> {
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
fn column(i: In<'_>) -> PResult<'_, Column> {
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
fn sort_key(i: In<'_>) -> PResult<'_, SortKey> {
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

fn until_clause(i: In<'_>) -> PResult<'_, UntilClause> {
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
fn or_cond(i: In<'_>) -> PResult<'_, Cond> {
    chain(i, "OR", and_cond, CondKind::Or)
}

/// `primary {AND primary}`
fn and_cond(i: In<'_>) -> PResult<'_, Cond> {
    chain(i, "AND", primary_cond, CondKind::And)
}

fn chain<'a>(
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

fn primary_cond(i: In<'_>) -> PResult<'_, Cond> {
    alt((paren_cond, atom_cond))(i)
}

fn paren_cond(i: In<'_>) -> PResult<'_, Cond> {
    let (i, open) = sym("(")(i)?;
    nest(&i, open)?;
    let r = or_cond(i);
    unnest(&i);
    let (i, c) = r?;
    let (i, _) = sym(")")(i)?;
    Ok((i, c))
}

fn atom_cond(i: In<'_>) -> PResult<'_, Cond> {
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
