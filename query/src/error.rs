//! Errors: typed, span-pointed, rendered by miette with a caret under the offending text.

use crate::limits::MAX_NESTING;
use crate::span::Span;
use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};
use std::fmt;

/// Which namespace an unknown name was looked up in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameKind {
    Label,
    Relation,
    Property,
    /// A name an `AS` binds in the statement.
    Alias,
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameKind::Label => "label",
            NameKind::Relation => "relation",
            NameKind::Property => "property",
            NameKind::Alias => "alias",
        })
    }
}

/// Everything that can be wrong with a statement. Each variant carries the span it points at.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    // ---- syntax -------------------------------------------------------------------------------
    /// The parser could not go on: `expected` lists what would have been accepted at `span`.
    #[error("expected {}, found {found}", list(expected))]
    Expected {
        span: Span,
        expected: Vec<String>,
        found: String,
        help: Option<String>,
    },
    #[error("unterminated string")]
    UnterminatedString { span: Span },
    #[error("unterminated quoted name")]
    UnterminatedName { span: Span },
    #[error("unterminated block comment")]
    UnterminatedComment { span: Span },
    #[error("invalid escape `{escape}` in string")]
    InvalidEscape { span: Span, escape: String },
    #[error("number out of range")]
    NumberOutOfRange { span: Span },
    #[error("empty name")]
    EmptyName { span: Span },
    #[error("nesting deeper than {MAX_NESTING} levels")]
    TooDeep { span: Span },
    #[error("{clause} is given twice")]
    DuplicateClause {
        span: Span,
        first: Span,
        clause: &'static str,
    },
    #[error("VIA mixes `,` (a set of relations) and `->` (an ordered path)")]
    MixedViaSeparators { span: Span, first: Span },

    // ---- meaning ------------------------------------------------------------------------------
    #[error("unknown {kind} `{name}`")]
    UnknownName {
        span: Span,
        kind: NameKind,
        name: String,
        suggestions: Vec<String>,
    },
    #[error("{what} must not be empty")]
    Empty { span: Span, what: &'static str },
    #[error("{what} must be a whole number")]
    NotAnInteger { span: Span, what: &'static str },
    #[error("{what} must be between {min} and {max}")]
    OutOfRange {
        span: Span,
        what: &'static str,
        min: String,
        max: String,
    },
    #[error("{what} must not be negative")]
    NegativeWeight { span: Span, what: &'static str },
    #[error("{what} are all zero")]
    AllZero { span: Span, what: &'static str },
    #[error("{item} is listed twice")]
    Duplicate {
        span: Span,
        first: Span,
        item: String,
    },
    #[error("DEPTH {depth} is deeper than the {len} steps of the ordered VIA path")]
    DepthBeyondPath {
        span: Span,
        path: Span,
        depth: u32,
        len: usize,
    },
    #[error("DEPTH {depth} is shorter than the {len} steps of the ordered VIA path")]
    DepthShortOfPath {
        span: Span,
        path: Span,
        depth: u32,
        len: usize,
    },
    #[error("`{op}` cannot compare with {value}")]
    BadOperand {
        span: Span,
        op: &'static str,
        value: &'static str,
    },
    #[error("RETURN COUNT takes no LIMIT")]
    CountWithLimit { span: Span, ret: Span },
    /// A name a data statement would create breaks the rule of what a name may be
    /// (`cairn_storage_format::rules`, shared with import).
    #[error("{what} {reason}")]
    BadName {
        span: Span,
        what: &'static str,
        reason: String,
    },
    #[error("AS in VIA needs an ordered path")]
    AliasInSet { span: Span },
    #[error("this subquery must return {want}")]
    BadSubquery { span: Span, want: &'static str },
    #[error("{what} cannot be used here")]
    BadColumn {
        span: Span,
        what: String,
        why: &'static str,
    },
}

fn list(items: &[String]) -> String {
    match items {
        [] => "something else".to_owned(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        [init @ .., last] => {
            let mut s = String::from("one of ");
            for it in init {
                s.push_str(it);
                s.push_str(", ");
            }
            s.push_str("or ");
            s.push_str(last);
            s
        }
    }
}

impl ErrorKind {
    /// The primary span.
    pub fn span(&self) -> Span {
        use ErrorKind::*;
        match self {
            Expected { span, .. }
            | UnterminatedString { span }
            | UnterminatedName { span }
            | UnterminatedComment { span }
            | InvalidEscape { span, .. }
            | NumberOutOfRange { span }
            | EmptyName { span }
            | TooDeep { span }
            | DuplicateClause { span, .. }
            | MixedViaSeparators { span, .. }
            | UnknownName { span, .. }
            | Empty { span, .. }
            | NotAnInteger { span, .. }
            | OutOfRange { span, .. }
            | NegativeWeight { span, .. }
            | AllZero { span, .. }
            | Duplicate { span, .. }
            | DepthBeyondPath { span, .. }
            | DepthShortOfPath { span, .. }
            | BadOperand { span, .. }
            | CountWithLimit { span, .. }
            | BadName { span, .. }
            | AliasInSet { span }
            | BadSubquery { span, .. }
            | BadColumn { span, .. } => *span,
        }
    }

    /// A stable machine-readable code, `query::<kind>`.
    pub fn code(&self) -> &'static str {
        use ErrorKind::*;
        match self {
            Expected { .. } => "query::syntax",
            UnterminatedString { .. } => "query::unterminated_string",
            UnterminatedName { .. } => "query::unterminated_name",
            UnterminatedComment { .. } => "query::unterminated_comment",
            InvalidEscape { .. } => "query::invalid_escape",
            NumberOutOfRange { .. } => "query::number_out_of_range",
            EmptyName { .. } => "query::empty_name",
            TooDeep { .. } => "query::too_deep",
            DuplicateClause { .. } => "query::duplicate_clause",
            MixedViaSeparators { .. } => "query::mixed_via",
            UnknownName { .. } => "query::unknown_name",
            Empty { .. } => "query::empty",
            NotAnInteger { .. } => "query::not_an_integer",
            OutOfRange { .. } => "query::out_of_range",
            NegativeWeight { .. } => "query::negative_weight",
            AllZero { .. } => "query::all_zero",
            Duplicate { .. } => "query::duplicate",
            DepthBeyondPath { .. } => "query::depth_beyond_path",
            DepthShortOfPath { .. } => "query::depth_short_of_path",
            BadOperand { .. } => "query::bad_operand",
            CountWithLimit { .. } => "query::count_with_limit",
            BadName { .. } => "query::bad_name",
            AliasInSet { .. } => "query::alias_in_set",
            BadSubquery { .. } => "query::bad_subquery",
            BadColumn { .. } => "query::bad_column",
        }
    }

    fn label_text(&self) -> String {
        use ErrorKind::*;
        match self {
            Expected { expected, .. } => match expected.as_slice() {
                [one] => format!("expected {one}"),
                _ => "unexpected here".to_owned(),
            },
            UnterminatedString { .. } => "this string has no closing `\"`".to_owned(),
            UnterminatedName { .. } => "this name has no closing backquote".to_owned(),
            UnterminatedComment { .. } => "this comment has no closing `*/`".to_owned(),
            InvalidEscape { .. } => "invalid escape".to_owned(),
            NumberOutOfRange { .. } => "too large".to_owned(),
            EmptyName { .. } => "empty name".to_owned(),
            TooDeep { .. } => "too deep".to_owned(),
            DuplicateClause { .. } => "given again here".to_owned(),
            MixedViaSeparators { .. } => "this separator differs".to_owned(),
            UnknownName { kind, .. } => format!("unknown {kind}"),
            Empty { .. } => "empty".to_owned(),
            NotAnInteger { .. } => "not a whole number".to_owned(),
            OutOfRange { .. } => "out of range".to_owned(),
            NegativeWeight { .. } => "negative".to_owned(),
            AllZero { .. } => "all weights are zero".to_owned(),
            Duplicate { .. } => "listed again here".to_owned(),
            DepthBeyondPath { .. } => "too deep for the path".to_owned(),
            DepthShortOfPath { .. } => "too shallow for the path".to_owned(),
            BadOperand { .. } => "wrong kind of value".to_owned(),
            CountWithLimit { .. } => "a count is one number".to_owned(),
            BadName { .. } => "not a valid name".to_owned(),
            AliasInSet { .. } => "a set of relations has no positions".to_owned(),
            BadSubquery { .. } => "this subquery".to_owned(),
            BadColumn { .. } => "not here".to_owned(),
        }
    }

    fn secondary(&self) -> Option<(Span, &'static str)> {
        use ErrorKind::*;
        match self {
            DuplicateClause { first, .. } => Some((*first, "first given here")),
            MixedViaSeparators { first, .. } => Some((*first, "first separator")),
            Duplicate { first, .. } => Some((*first, "first listed here")),
            DepthBeyondPath { path, .. } | DepthShortOfPath { path, .. } => {
                Some((*path, "the ordered path"))
            }
            CountWithLimit { ret, .. } => Some((*ret, "this RETURN")),
            _ => None,
        }
    }

    /// The help line, if any: nearest names, what to write instead.
    pub fn help(&self) -> Option<String> {
        use ErrorKind::*;
        match self {
            Expected { help, .. } => help.clone(),
            UnterminatedString { .. } => Some(
                "close the string with `\"` on the same line (write \\n for a line break)"
                    .to_owned(),
            ),
            UnterminatedName { .. } => Some("close the name with a backquote".to_owned()),
            UnterminatedComment { .. } => Some("close the comment with `*/`".to_owned()),
            InvalidEscape { .. } => Some(
                "valid escapes are \\\" \\\\ \\n \\r \\t \\0 and \\u{hex}".to_owned(),
            ),
            NumberOutOfRange { .. } => {
                Some("integers are 64-bit; decimals must be finite".to_owned())
            }
            EmptyName { .. } => Some("a quoted name needs at least one character".to_owned()),
            TooDeep { .. } => Some(format!(
                "at most {MAX_NESTING} nested parentheses or brackets are allowed"
            )),
            DuplicateClause { clause, .. } => Some(format!("remove one of the two {clause} clauses")),
            MixedViaSeparators { .. } => Some(
                "use `a, b` for relations allowed at every hop, or `a -> b` for one relation per hop"
                    .to_owned(),
            ),
            UnknownName {
                kind, suggestions, ..
            } => Some(match suggestions.as_slice() {
                [] => match kind {
                    NameKind::Label => "SHOW LABELS lists the labels".to_owned(),
                    NameKind::Relation => "SHOW RELATIONS lists the relation types".to_owned(),
                    NameKind::Property => "DESCRIBE <label> lists a label's properties".to_owned(),
                    NameKind::Alias => {
                        "bind a name with `FROM … AS a` or, in an ordered path, `VIA R AS a`"
                            .to_owned()
                    }
                },
                [one] => format!("did you mean `{one}`?"),
                many => format!(
                    "did you mean {}?",
                    list(&many.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>())
                        .trim_start_matches("one of ")
                ),
            }),
            Empty { .. } => None,
            NotAnInteger { .. } => Some("write a whole number such as 8".to_owned()),
            OutOfRange { min, max, .. } => Some(format!("use a value from {min} to {max}")),
            NegativeWeight { .. } => Some("weights are 0 or more".to_owned()),
            AllZero { .. } => Some("give at least one weight above 0".to_owned()),
            Duplicate { .. } => Some("remove one of them".to_owned()),
            DepthBeyondPath { len, .. } => Some(format!(
                "an ordered path of {len} steps explores at most {len} hops; drop DEPTH or lower it"
            )),
            DepthShortOfPath { len, .. } => Some(format!(
                "an ordered path names what its {len} steps lead to, and DEPTH is a hard bound: drop DEPTH or make it {len}"
            )),
            BadOperand { op, .. } => Some(match *op {
                "IN" => "IN takes a list, e.g. year IN [2019, 2020]".to_owned(),
                _ => "ordering comparisons need a number or a string".to_owned(),
            }),
            BadName { .. } => Some(
                "names hold no control characters and no bidirectional or zero-width characters (docs/FORMAT.md, \"What a value may be\")"
                    .to_owned(),
            ),
            CountWithLimit { .. } => Some(
                "drop LIMIT: a count (or an aggregate without GROUP BY) is one row".to_owned(),
            ),
            AliasInSet { .. } => Some(
                "write the steps as a path (`A -> B AS b`), or bind the entry with `FROM … AS a`"
                    .to_owned(),
            ),
            BadSubquery { want, .. } => Some(match *want {
                "nodes" => "an entry subquery returns nodes: RETURN NODES (with ORDER BY and LIMIT if needed)"
                    .to_owned(),
                _ => "a value subquery returns one aggregate, e.g. RETURN MAX(elevation)".to_owned(),
            }),
            BadColumn { why, .. } => Some((*why).to_owned()),
        }
    }
}

/// A line longer than this many bytes is quoted as a window of it around the span.
const LONG_LINE: usize = 400;
/// How much of a long line the window shows before the span.
const BEFORE_SPAN: usize = 120;
/// A label is underlined over at most this many bytes.
const LONGEST_LABEL: usize = 200;

/// The statement or script an error quotes, as miette reads it: the text itself, except that a
/// line longer than [`LONG_LINE`] is given as a window of it around the span asked for, with
/// the span's true line and column. miette pads with `format!` widths, which panic past 65,535
/// columns (a statement of one 65k-character line crashed the CLI), and a line that long is
/// no help on a terminal anyway.
#[derive(Clone, Debug)]
struct Quoted(NamedSource<String>);

/// The largest char boundary of `s` at or below `at`.
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl SourceCode for Quoted {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let text = self.0.inner();
        let whole = self.0.read_span(span, before, after)?;
        let long = whole
            .data()
            .split(|b| *b == b'\n')
            .any(|line| line.len() > LONG_LINE);
        if !long {
            return Ok(whole);
        }
        let at = floor_boundary(text, span.offset());
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n);
        let start = if before == 0 {
            at
        } else {
            floor_boundary(text, at.saturating_sub(BEFORE_SPAN).max(line_start))
        };
        let end = floor_boundary(text, (start + LONG_LINE).min(line_end));
        let line = text[..start].matches('\n').count();
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.0.name().to_owned(),
            &text.as_bytes()[start..end],
            (start, end - start).into(),
            line,
            start - line_start,
            1,
        )))
    }
}

/// An error in a statement, with the statement text attached when known (so that it renders
/// with a caret). Match on [`QueryError::kind`] for the typed cause.
#[derive(Clone, Debug)]
pub struct QueryError {
    kind: Box<ErrorKind>,
    source: Option<Quoted>,
    /// Where the statement starts in `source` (a script of several): the spans are the
    /// statement's own.
    offset: usize,
}

impl QueryError {
    /// An error without source text.
    pub fn new(kind: ErrorKind) -> Self {
        QueryError {
            kind: Box::new(kind),
            source: None,
            offset: 0,
        }
    }

    /// Attaches the statement text the spans point into.
    pub fn with_source(mut self, src: &str) -> Self {
        self.source = Some(Quoted(NamedSource::new("query", src.to_owned())));
        self.offset = 0;
        self
    }

    /// Attaches the whole script `text` the statement came from, named `name` (a file), the
    /// statement starting at byte `offset`: the error then points at the script's line and
    /// column (`queries.explore:5:7`).
    pub fn in_script(mut self, name: &str, text: &str, offset: usize) -> Self {
        self.source = Some(Quoted(NamedSource::new(name, text.to_owned())));
        self.offset = offset;
        self
    }

    /// The typed cause.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The primary span.
    pub fn span(&self) -> Span {
        self.kind.span()
    }

    /// Renders the error as plain text (ASCII art, no colour), `width` columns wide: the
    /// message, the source line with a caret under the span, and the help line.
    pub fn render_plain(&self, width: usize) -> String {
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::none())
            .with_width(width)
            .with_links(false);
        let mut out = String::new();
        if handler.render_report(&mut out, self).is_err() {
            return self.to_string();
        }
        out
    }
}

impl From<ErrorKind> for QueryError {
    fn from(k: ErrorKind) -> Self {
        QueryError::new(k)
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for QueryError {}

impl Diagnostic for QueryError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.kind.code()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.kind
            .help()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        // Shifted into the script; at most LONGEST_LABEL bytes underlined (see `Quoted`).
        let shift = |s: Span| {
            let start = s.start + self.offset;
            let mut end = (s.end + self.offset).min(start + LONGEST_LABEL);
            if let Some(src) = &self.source {
                end = floor_boundary(src.0.inner(), end).max(start);
            }
            Span::new(start, end)
        };
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(self.kind.label_text()),
            shift(self.kind.span()),
        )];
        if let Some((span, text)) = self.kind.secondary() {
            labels.push(LabeledSpan::new_with_span(
                Some(text.to_owned()),
                shift(span),
            ));
        }
        Some(Box::new(labels.into_iter()))
    }
}

/// Up to three candidates nearest to `word` by edit distance (case-insensitive), nearest first.
pub(crate) fn nearest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let w = word.to_lowercase();
    let max = (w.chars().count() / 3).max(1);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = strsim::damerau_levenshtein(&w, &c.to_lowercase());
            (d <= max).then_some((d, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_owned())
        .collect()
}
