//! The one layer between the CLI (and REPL) and the terminal.
//!
//! Node text, labels, relation names and error messages come from data: printed raw, an
//! `ESC[2J` in a name clears the screen, an `ESC]0;…BEL` renames the window, and a U+202E
//! (right-to-left override) or a zero-width character makes the terminal show something other
//! than what is there ("trojan source"). Everything the `cairn` binary prints goes through
//! [`outln!`] and [`errln!`] (or [`escape`]), which replace every control character — C0
//! (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F) — and every invisible formatting
//! character (bidirectional controls and marks, zero-width characters, the byte-order mark:
//! `rules::is_invisible`) by its JSON-style escape `\uXXXX` (ESC is `\u001b`, U+202E
//! `\u202e`; beyond U+FFFF a surrogate pair, as JSON writes it). Line ends and tabs of the
//! output itself are kept; inside a table cell ([`cell`]) they are escaped too. Other Unicode is
//! printed as it is. The notation is JSON's, so `--format json` output (serde already escapes
//! C0) passes through unchanged and stays valid JSON.
//!
//! Tables pad their columns by display width ([`pad`]: a CJK character takes two columns),
//! by hand: `format!`'s width argument panics past 65,535.
//!
//! Writing also decides what a closed pipe means (`cairn ask … | head`): the process exits
//! quietly with status 0 instead of panicking, as `println!` does.

use cairn::format::rules::{is_control, is_invisible};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;

/// `text` with every control and invisible formatting character escaped as `\uXXXX`, except
/// line ends and tabs when `keep_layout` (the layout of the output, not of the data).
fn escape_with(text: &str, keep_layout: bool) -> Cow<'_, str> {
    let bad =
        |c: char| (is_control(c) && !(keep_layout && matches!(c, '\n' | '\t'))) || is_invisible(c);
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if bad(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{:04x}", u);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// How many terminal columns `text` takes (wide characters two, combining marks none).
pub(crate) fn width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` followed by spaces up to `columns` terminal columns.
pub(crate) fn pad(text: &str, columns: usize) -> String {
    let mut out = String::with_capacity(text.len() + columns);
    out.push_str(text);
    out.extend(std::iter::repeat_n(
        ' ',
        columns.saturating_sub(width(text)),
    ));
    out
}

/// Text for the terminal: control characters escaped, line ends and tabs kept.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    escape_with(text, true)
}

/// One table cell (a name, a label, a path): line ends and tabs are escaped as well, so that a
/// value cannot break the table's rows and columns.
pub(crate) fn cell(text: &str) -> Cow<'_, str> {
    escape_with(text, false)
}

/// Where [`write`] sends text.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// Writes `text`, escaped, to `stream`. On standard output a closed pipe ends the process
/// quietly (status 0: the reader has what it wanted) and any other write error (a full disk)
/// with status 1 and a message; a failing standard error has nowhere to report to.
pub(crate) fn write(stream: Stream, text: &str) {
    let text = escape(text);
    #[cfg(test)]
    if CAPTURED
        .with(|c| c.borrow_mut().as_mut().map(|out| out.push_str(&text)))
        .is_some()
    {
        return;
    }
    match stream {
        Stream::Stdout => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    std::process::exit(0);
                }
                let _ = writeln!(std::io::stderr(), "cannot write the output: {e}");
                std::process::exit(1);
            }
        }
        Stream::Stderr => {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
    }
}

#[cfg(test)]
thread_local! {
    /// What [`write`] printed on this thread while [`capture`] runs (tests only).
    static CAPTURED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with everything [`write`] prints on this thread collected instead (both streams,
/// escaped as the terminal would get them): how the render fuzz target reads the output.
#[cfg(test)]
pub(crate) fn capture<T>(f: impl FnOnce() -> T) -> (T, String) {
    CAPTURED.with(|c| *c.borrow_mut() = Some(String::new()));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let out = CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default();
    match result {
        Ok(t) => (t, out),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// `println!` through [`write`].
macro_rules! outln {
    () => { $crate::display::write($crate::display::Stream::Stdout, "\n") };
    ($($arg:tt)*) => {
        $crate::display::write($crate::display::Stream::Stdout, &format!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` through [`write`].
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::display::write($crate::display::Stream::Stderr, &format!("{}\n", format_args!($($arg)*)))
    };
}

/// An error report as text for [`errln!`]. Rendered without colour: the colour codes of a
/// rendered report cannot be told apart from control characters in the message, which are
/// escaped.
pub(crate) fn report(report: &miette::Report) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
    let mut text = String::new();
    match handler.render_report(&mut text, report.as_ref()) {
        Ok(()) => text.trim_end().to_owned(),
        Err(_) => format!("{report:?}"),
    }
}

/// The tracing subscriber's writer: diagnostics can quote data too.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Diagnostics;

impl Write for Diagnostics {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr()
            .lock()
            .write_all(escape(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn trojan_source_characters_are_escaped() {
        assert_eq!(escape("a\u{202e}b"), "a\\u202eb");
        assert_eq!(escape("x\u{2066}y\u{2069}"), "x\\u2066y\\u2069");
        assert_eq!(
            escape("zero\u{200b}width\u{feff}"),
            "zero\\u200bwidth\\ufeff"
        );
        // Beyond the BMP: a surrogate pair, which JSON reads back as the one character.
        assert_eq!(escape("tag\u{e0041}"), "tag\\udb40\\udc41");
        let text = serde_json::json!({"n": "a\u{202e}\u{e0041}"}).to_string();
        let back: serde_json::Value = serde_json::from_str(&escape(&text)).unwrap();
        assert_eq!(back["n"], "a\u{202e}\u{e0041}");
    }

    #[test]
    fn padding_counts_columns_and_has_no_limit() {
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad("著者", 6), "著者  ");
        assert_eq!(pad("long", 2), "long");
        assert_eq!(pad("x", 70_000).len(), 70_000);
    }

    #[test]
    fn controls_are_escaped_unicode_kept() {
        assert_eq!(escape("a\u{1b}[2Jb"), "a\\u001b[2Jb");
        assert_eq!(escape("x\0y\u{7f}\u{9b}"), "x\\u0000y\\u007f\\u009b");
        assert_eq!(escape("line\n\tnext"), "line\n\tnext");
        assert_eq!(cell("line\n\tnext"), "line\\u000a\\u0009next");
        assert!(matches!(escape("Zoë 中文 🙂"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_stays_json() {
        let text = serde_json::json!({"name": "a\u{1b}]0;x\u{7}\u{85}\u{7f}"}).to_string();
        let back: serde_json::Value = serde_json::from_str(&escape(&text)).unwrap();
        assert_eq!(back["name"], "a\u{1b}]0;x\u{7}\u{85}\u{7f}");
    }
}
