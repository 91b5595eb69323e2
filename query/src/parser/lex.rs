//! The lexical layer: whitespace and comments, keywords, symbols, names, literals, and the
//! nesting bound, each recording what it expected where it failed.

use super::*;

/// Skips whitespace, `-- line comments` and `/* block comments */`.
pub(super) fn ws(mut i: In<'_>) -> PResult<'_, ()> {
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
pub(super) fn kw<'a>(k: &'static str) -> impl Fn(In<'a>) -> PResult<'a, Span> {
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
pub(super) fn sym<'a>(s: &'static str) -> impl Fn(In<'a>) -> PResult<'a, Span> {
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
pub(super) fn name<'a>(what: &'static str) -> impl Fn(In<'a>) -> PResult<'a, Name> {
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
pub(super) fn string_lit<'a>(what: &'static str) -> impl Fn(In<'a>) -> PResult<'a, StrLit> {
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
pub(super) fn number(i: In<'_>) -> PResult<'_, Number> {
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
pub(super) fn raw_u64<'a>(i: In<'a>, what: &'static str) -> PResult<'a, (u64, Span)> {
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
pub(super) fn duration(i: In<'_>) -> PResult<'_, DurationLit> {
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
pub(super) fn nest(i: &In<'_>, span: Span) -> Result<(), nom::Err<PErr>> {
    let n = i.extra.nesting.get() + 1;
    if n > MAX_NESTING {
        return fatal(ErrorKind::TooDeep { span });
    }
    i.extra.nesting.set(n);
    Ok(())
}

pub(super) fn unnest(i: &In<'_>) {
    i.extra.nesting.set(i.extra.nesting.get().saturating_sub(1));
}

/// A literal value: `null`, `true`, `false`, a number, a string, or a list `[v, …]`.
pub(super) fn literal(i: In<'_>) -> PResult<'_, Literal> {
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
pub(super) fn list(i: In<'_>) -> PResult<'_, Literal> {
    let (i, open) = sym("[")(i)?;
    nest(&i, open)?;
    let r = list_body(i, open);
    unnest(&i);
    r
}

pub(super) fn list_body(i: In<'_>, open: Span) -> PResult<'_, Literal> {
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
pub(super) fn since(start: Span, i: &In<'_>) -> Span {
    Span::new(start.start, off(i))
}
