//! The lexical rules of the language, in one place: what a word, a string, a backquoted name and
//! a comment are, and where each ends.
//!
//! The parser builds its token parsers on these scanners, and [`split`] uses them to cut a script
//! into statements, so that a `;` inside a string, a backquoted name or a comment never ends a
//! statement anywhere (the REPL, `cairn query -e/-f` and [`crate::parse_script`] all split here).
//!
//! - a **string** is `"…"` with backslash escapes; it cannot span lines (a newline ends it,
//!   unterminated);
//! - a **backquoted name** is `` `…` `` where a doubled backquote stands for one; it may span lines;
//! - a **line comment** runs from `--` to the end of the line; a **block comment** from `/*` to the
//!   first `*/` (they do not nest).

use crate::span::Span;

pub(crate) fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Length of the identifier at the start of `s` (0 if none).
pub(crate) fn ident_len(s: &str) -> usize {
    let mut chars = s.char_indices();
    match chars.next() {
        Some((_, c)) if is_ident_start(c) => {}
        _ => return 0,
    }
    chars
        .find(|&(_, c)| !is_ident_char(c))
        .map_or(s.len(), |(i, _)| i)
}

/// The extent of a delimited piece (string, backquoted name, block comment) at the start of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    /// Bytes it covers, delimiters included (up to the end of the line or text when open).
    pub len: usize,
    /// Whether the closing delimiter was found.
    pub closed: bool,
}

/// The string literal at the start of `s` (which starts with `"`).
pub(crate) fn string_extent(s: &str) -> Extent {
    let mut chars = s.char_indices().skip(1);
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => {
                return Extent {
                    len: k + 1,
                    closed: true,
                }
            }
            '\n' => {
                return Extent {
                    len: k,
                    closed: false,
                }
            }
            '\\' => {
                if let Some((k2, '\n')) = chars.next() {
                    return Extent {
                        len: k2,
                        closed: false,
                    };
                }
            }
            _ => {}
        }
    }
    Extent {
        len: s.len(),
        closed: false,
    }
}

/// The backquoted name at the start of `s` (which starts with `` ` ``).
pub(crate) fn name_extent(s: &str) -> Extent {
    let b = s.as_bytes();
    let mut k = 1;
    while k < b.len() {
        if b[k] == b'`' {
            if b.get(k + 1) == Some(&b'`') {
                k += 2;
                continue;
            }
            return Extent {
                len: k + 1,
                closed: true,
            };
        }
        k += 1;
    }
    Extent {
        len: s.len(),
        closed: false,
    }
}

/// The comment at the start of `s`, if it starts with one: `Ok(len)`, or `Err(())` for a block
/// comment that is not closed.
pub(crate) fn comment_len(s: &str) -> Option<Result<usize, ()>> {
    if s.starts_with("--") {
        Some(Ok(s.find('\n').unwrap_or(s.len())))
    } else {
        s.strip_prefix("/*")
            .map(|body| body.find("*/").map(|end| 2 + end + 2).ok_or(()))
    }
}

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier or keyword.
    Word,
    /// A run of digits.
    Digits,
    /// A string literal.
    Str,
    /// A backquoted name.
    Name,
    /// A `--` or `/* */` comment.
    Comment,
    /// Any other character (`;`, `(`, `-`, …).
    Symbol,
}

/// One lexical token of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// A string, name or block comment that the text ends (or, for a string, the line ends)
    /// before closing.
    pub open: bool,
}

/// The tokens of `src`, whitespace skipped. Never fails: malformed pieces are tokens too, and the
/// parser reports them.
pub fn tokens(src: &str) -> impl Iterator<Item = Token> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = src.get(at..)?;
        let trimmed = rest.trim_start();
        let start = at + rest.len() - trimmed.len();
        let c = trimmed.chars().next()?;
        let (kind, len, open) = if let Some(comment) = comment_len(trimmed) {
            match comment {
                Ok(len) => (TokenKind::Comment, len, false),
                Err(()) => (TokenKind::Comment, trimmed.len(), true),
            }
        } else if c == '"' {
            let e = string_extent(trimmed);
            (TokenKind::Str, e.len, !e.closed)
        } else if c == '`' {
            let e = name_extent(trimmed);
            (TokenKind::Name, e.len, !e.closed)
        } else if is_ident_start(c) {
            (TokenKind::Word, ident_len(trimmed), false)
        } else if c.is_ascii_digit() {
            let n = trimmed.bytes().take_while(u8::is_ascii_digit).count();
            (TokenKind::Digits, n, false)
        } else {
            (TokenKind::Symbol, c.len_utf8(), false)
        };
        at = start + len;
        Some(Token {
            kind,
            span: Span::new(start, start + len),
            open,
        })
    })
}

/// What a text ends inside of, when it ends before a piece is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    /// A string (it cannot go on on the next line: the parser will report it unterminated).
    String,
    /// A backquoted name, which may go on on the next line.
    Name,
    /// A block comment, which may go on on the next line.
    Comment,
}

/// A script cut at its `;`s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split<'a> {
    /// Statements ended by a `;` (the `;` excluded), with their spans in the script; empty and
    /// comment-only ones are left out.
    pub complete: Vec<(Span, &'a str)>,
    /// What follows the last `;`, when it holds more than whitespace and closed comments.
    pub rest: Option<(Span, &'a str)>,
    /// Set when the script ends inside a string, a backquoted name or a block comment.
    pub open: Option<Open>,
}

/// Cuts `src` at every `;` that is not inside a string, a backquoted name or a comment.
pub fn split(src: &str) -> Split<'_> {
    let mut complete = Vec::new();
    let mut start = 0;
    let mut code = false;
    let mut open = None;
    for t in tokens(src) {
        match t.kind {
            TokenKind::Symbol if &src[t.span.start..t.span.end] == ";" => {
                if code {
                    complete.push((Span::new(start, t.span.start), &src[start..t.span.start]));
                }
                start = t.span.end;
                code = false;
            }
            // A block comment the text ends inside is not a comment but an error of the
            // statement it is in: kept, so that the parser reports it rather than the rest of
            // the script vanishing into it.
            TokenKind::Comment if !t.open => {}
            _ => code = true,
        }
        open = match (t.open, t.kind) {
            (false, _) => None,
            (true, TokenKind::Str) => Some(Open::String),
            (true, TokenKind::Name) => Some(Open::Name),
            (true, _) => Some(Open::Comment),
        };
    }
    // A string left open by a newline is closed for the purpose of `open`: only the text's end
    // counts.
    if open == Some(Open::String) && src.ends_with('\n') {
        open = None;
    }
    Split {
        complete,
        rest: code.then(|| (Span::new(start, src.len()), &src[start..])),
        open,
    }
}

/// Every statement of a script: those ended by `;` and an unterminated last one, each with its
/// span in `src`. Empty and comment-only statements are left out.
pub fn split_statements(src: &str) -> Vec<(Span, &str)> {
    let Split {
        mut complete, rest, ..
    } = split(src);
    complete.extend(rest);
    complete
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        split_statements(src).into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn semicolons_inside_strings_names_and_comments_do_not_split() {
        assert_eq!(
            texts("EXPLORE \"a;b\" FROM `x;y` -- c;d\n VIA ANY; SHOW LABELS"),
            [
                "EXPLORE \"a;b\" FROM `x;y` -- c;d\n VIA ANY",
                " SHOW LABELS"
            ]
        );
        assert_eq!(
            texts("DESCRIBE `a``;b`; SHOW LABELS"),
            ["DESCRIBE `a``;b`", " SHOW LABELS"]
        );
        assert_eq!(
            texts("SHOW LABELS /* ; */; SHOW RELATIONS /* a\n;b */"),
            ["SHOW LABELS /* ; */", " SHOW RELATIONS /* a\n;b */"]
        );
        assert_eq!(
            texts("EXPLORE \"x\\\";\"; ASK \"q\""),
            ["EXPLORE \"x\\\";\"", " ASK \"q\""]
        );
        // `//` is not a comment in this language, so its `;` splits.
        assert_eq!(texts("SHOW LABELS // a; b"), ["SHOW LABELS // a", " b"]);
    }

    #[test]
    fn empty_and_comment_only_statements_are_dropped() {
        assert_eq!(
            texts(" ; -- only a comment\n; SHOW LABELS;"),
            [" SHOW LABELS"]
        );
        assert_eq!(texts("/* x */;;"), Vec::<&str>::new());
        assert!(texts("").is_empty());
    }

    #[test]
    fn spans_point_into_the_script() {
        let src = "SHOW LABELS;\n DESCRIBE Author";
        for (span, text) in split_statements(src) {
            assert_eq!(&src[span.start..span.end], text);
        }
        assert_eq!(split_statements(src)[1].0, Span::new(12, src.len()));
    }

    #[test]
    fn a_string_ends_at_the_end_of_its_line() {
        // The parser rejects the first statement as an unterminated string; the `;` on the next
        // line still ends it.
        assert_eq!(
            texts("EXPLORE \"a\n; SHOW LABELS"),
            ["EXPLORE \"a\n", " SHOW LABELS"]
        );
    }

    #[test]
    fn open_pieces_are_reported() {
        let s = split("SHOW LABELS; DESCRIBE `a;");
        assert_eq!(s.complete.len(), 1);
        assert_eq!(s.rest.map(|r| r.1), Some(" DESCRIBE `a;"));
        assert_eq!(s.open, Some(Open::Name));
        assert_eq!(split("SHOW /* ; ").open, Some(Open::Comment));
        // An unclosed comment after the last `;` is kept for the parser to report.
        let s = split("UPSERT A \"a\"; /* forgot to close\nUPSERT A \"b\"; UPSERT A \"c\";");
        assert_eq!(s.complete.len(), 1);
        assert_eq!(s.open, Some(Open::Comment));
        assert_eq!(
            s.rest.map(|r| r.1),
            Some(" /* forgot to close\nUPSERT A \"b\"; UPSERT A \"c\";")
        );
        assert_eq!(split("SHOW /* ; ").rest.map(|r| r.1), Some("SHOW /* ; "));
        assert_eq!(split("EXPLORE \"a;").open, Some(Open::String));
        assert_eq!(split("EXPLORE \"a;\n").open, None);
        assert_eq!(split("EXPLORE \"a\";").open, None);
        assert_eq!(split("EXPLORE -- \"a").open, None);
    }

    #[test]
    fn tokens_follow_the_parser() {
        let kinds: Vec<TokenKind> = tokens("FROM `a b` \"s\" 12 -- c\n/* d */ ;")
            .map(|t| t.kind)
            .collect();
        use TokenKind::*;
        assert_eq!(kinds, [Word, Name, Str, Digits, Comment, Comment, Symbol]);
    }
}
