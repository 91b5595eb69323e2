//! `cairn repl`: an interactive shell on one database.
//!
//! Statements end with `;` and may span lines; lines starting with `.` are shell commands
//! (`.help`). History is kept in a file between sessions. Ctrl-C while a statement runs cancels
//! it through its [`CancelToken`] (the executor checks it between expansions) and the session
//! goes on; at the prompt it clears the line being typed.

use super::{freshness_text, open_db_reading, render, Failure, OutputFormat};
use cairn::query::ast::ReturnKind;
use cairn::query::lexer::{split, tokens, Open, TokenKind};
use cairn::query::parser::{is_reserved, RESERVED};
use cairn::{annotation_statement, Cairn, CancelToken, Element, Exploration, Output, StopReason};
use rustyline::completion::{Completer, Pair};
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

const PROMPT: &str = "cairn> ";
const CONTINUE: &str = "  ...> ";
/// The prompt between `BEGIN` and `COMMIT`/`ROLLBACK`: what is typed there is not saved yet.
const IN_TRANSACTION: &str = "cairn*> ";

const HELP: &str = "\
Statements (EXPLORE, EXPLAIN, SHOW, DESCRIBE, RELATION … UNDER …, CREATE INDEX, ANNOTATE,
UPSERT, ADD EDGE, REMOVE EDGE, REMOVE NODE, BEGIN, COMMIT, ROLLBACK, SAVEPOINT) end with `;` and may span
several lines; see docs/LANGUAGE.md. The prompt is `cairn*>` while a BEGIN waits for its COMMIT
or ROLLBACK.

  .help                 this text
  .schema               labels, relations (endpoints, parents), indexes, property keys, annotations
  .stats                database size estimates and the embedder
  .trace on|off         print each exploration's search decisions after its results
  .format table|json    how results are printed
  .feedback ID correct|wrong
                        say whether ASK's answer ID was right; the planner learns from it
                        (SHOW STRATEGIES prints what it learned)
  .refresh              catch up with the writer and say which state is shown (a read-only
                        session also catches up by itself before each statement)
  .quit                 leave (or Ctrl-D)

Tab completes keywords, labels, relations and property keys; Up/Down recall history.
Ctrl-C cancels a running statement (its results so far are printed), or clears the line.";

/// The history file: `--history`/`$CAIRN_HISTORY` when given, else `~/.cairn_history`.
fn history_path(given: Option<PathBuf>) -> Option<PathBuf> {
    given.or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".cairn_history"))
    })
}

/// Runs the shell until `.quit` or end of input.
pub(crate) fn run(db: &Path, history: Option<PathBuf>, read_only: bool) -> Result<(), Failure> {
    let cairn = open_db_reading(db, read_only, cairn::TableMode::Background)?;
    // Start the in-memory node table now, in the background: the first statements read the
    // store until it is ready, later ones (typed seconds later) the table.
    let _ = cairn.node_source();
    let interactive = std::io::stdin().is_terminal();
    // Piped input is a script, not something to recall later.
    let history = if interactive {
        history_path(history)
    } else {
        None
    };
    let config = Config::builder()
        .auto_add_history(false)
        .history_ignore_space(true)
        .completion_type(CompletionType::List)
        .max_history_size(1000)
        .and_then(|b| b.history_ignore_dups(true))
        .map_err(readline_failure)?
        .build();
    let mut rl: Editor<ReplHelper, FileHistory> =
        Editor::with_history(config, FileHistory::new()).map_err(readline_failure)?;
    let mut helper = ReplHelper::default();
    helper.refresh(&cairn);
    rl.set_helper(Some(helper));
    if let Some(path) = &history {
        if let Err(e) = rl.load_history(path) {
            if !matches!(&e, ReadlineError::Io(io) if io.kind() == std::io::ErrorKind::NotFound) {
                errln!("warning: cannot read history {}: {e}", path.display());
            }
        }
    }
    let running = cancel_on_ctrl_c();
    let mut session = Session {
        cairn: &cairn,
        statements: cairn.session(),
        db,
        format: OutputFormat::Table,
        trace: false,
        running,
        failed: Vec::new(),
        script: !interactive,
        aborted: false,
    };
    let mut script = (!interactive).then(|| ScriptInput::new(std::io::stdin().lock()));
    if interactive {
        outln!(
            "Cairn {} on {}{}. Statements end with `;`; .help for help, .quit or Ctrl-D to leave.",
            env!("CARGO_PKG_VERSION"),
            db.display(),
            if cairn.graph().is_read_only() {
                " (read-only)"
            } else {
                ""
            }
        );
    }
    let mut pending = String::new();
    let mut history_warned = false;
    loop {
        if let Some(h) = rl.helper_mut() {
            h.pending.clone_from(&pending);
        }
        let prompt = match (pending.is_empty(), session.statements.in_transaction()) {
            (false, _) => CONTINUE,
            (true, false) => PROMPT,
            (true, true) => IN_TRANSACTION,
        };
        let read = match &mut script {
            Some(input) => input.next_line(),
            None => rl.readline(prompt).map(Some),
        };
        let line = match read {
            Ok(Some(line)) => line,
            Err(ReadlineError::Interrupted) => {
                // Ctrl-C at the prompt drops what was typed, including earlier lines of an
                // unfinished statement.
                pending.clear();
                continue;
            }
            Ok(None) | Err(ReadlineError::Eof) => break,
            Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                // A script line that is not UTF-8: the statement it is in fails.
                errln!("{e}; the statement it is in is dropped");
                pending.clear();
                session.failed.push(2);
                session.abort_transaction();
                continue;
            }
            Err(e) => return Err(readline_failure(e)),
        };
        if pending.is_empty() && line.trim_start().starts_with('.') {
            let command = line.trim();
            remember(&mut rl, &history, command, &mut history_warned);
            if !session.command(command) {
                break;
            }
            if let Some(h) = rl.helper_mut() {
                h.refresh(&cairn);
            }
            continue;
        }
        if !pending.is_empty() {
            pending.push('\n');
        }
        pending.push_str(&line);
        let cut = split(&pending);
        // A string cannot go on on the next line: run it now and let the parser say so.
        let run_rest = cut.open == Some(Open::String);
        let mut statements: Vec<&str> = cut.complete.iter().map(|(_, s)| *s).collect();
        let unfinished = match cut.rest {
            Some((_, rest)) if run_rest => {
                statements.push(rest);
                None
            }
            // Blank lines and lone comments do not hold the continuation prompt; an open
            // block comment or quoted name does.
            Some((_, rest)) => Some(rest),
            None if cut.open.is_some() => {
                Some(&pending[cut.complete.last().map_or(0, |(s, _)| s.end + 1)..])
            }
            None => None,
        };
        if !statements.is_empty() {
            // Not trimmed at the start: a statement typed after a space stays out of the history.
            let end = match cut.complete.last() {
                Some((span, _)) if !run_rest => span.end + 1,
                _ => pending.len(),
            };
            remember(
                &mut rl,
                &history,
                pending[..end].trim_end(),
                &mut history_warned,
            );
            for stmt in statements {
                session.statement(stmt);
            }
            if let Some(h) = rl.helper_mut() {
                h.refresh(&cairn);
            }
        }
        pending = unfinished.map_or_else(String::new, |rest| rest.trim_start().to_owned());
    }
    // The input ended inside a statement (an unclosed block comment or quoted name): run it,
    // so that the parser says so, rather than dropping it in silence.
    if !pending.trim().is_empty() {
        session.statement(&pending);
    }
    if session.statements.in_transaction() {
        errln!("the open transaction was rolled back: the input ended before COMMIT");
        session.failed.push(2);
    }
    if interactive {
        outln!();
        return Ok(());
    }
    // A script's caller learns that something failed, with the first failure's exit code.
    match session.failed.first() {
        Some(&code) => Err(Failure {
            code,
            report: miette::Report::msg(format!("{} error(s) in the input", session.failed.len())),
        }),
        None => Ok(()),
    }
}

/// Adds `entry` to the history and appends it to the file at once, so that a session that is
/// killed keeps what it ran and two sessions do not overwrite each other.
fn remember(
    rl: &mut Editor<ReplHelper, FileHistory>,
    path: &Option<PathBuf>,
    entry: &str,
    warned: &mut bool,
) {
    if entry.is_empty() || rl.add_history_entry(entry).is_err() {
        return;
    }
    if let Some(path) = path {
        if let Err(e) = rl.append_history(path) {
            if !*warned {
                errln!("warning: cannot write history {}: {e}", path.display());
                *warned = true;
            }
        }
    }
}

fn readline_failure(e: ReadlineError) -> Failure {
    Failure {
        code: 1,
        report: miette::Report::msg(format!("terminal: {e}")),
    }
}

/// Installs the Ctrl-C handler: it cancels the token of the statement running, if any. At the
/// prompt the terminal is in raw mode, so Ctrl-C reaches rustyline as a key instead.
fn cancel_on_ctrl_c() -> Arc<Mutex<Option<CancelToken>>> {
    let running: Arc<Mutex<Option<CancelToken>>> = Arc::default();
    let shared = Arc::clone(&running);
    let installed = ctrlc::set_handler(move || {
        if let Ok(guard) = shared.lock() {
            if let Some(token) = guard.as_ref() {
                token.cancel();
            }
        }
    });
    if let Err(e) = installed {
        errln!("warning: Ctrl-C will not cancel statements: {e}");
    }
    running
}

/// The lines of a script on standard input (not a terminal), read without the line editor so
/// that a line that is not UTF-8 is reported with its line and column (the editor's reader
/// said only "stream did not contain valid UTF-8").
struct ScriptInput<R> {
    reader: R,
    line: usize,
}

impl<R: std::io::BufRead> ScriptInput<R> {
    fn new(reader: R) -> Self {
        ScriptInput { reader, line: 0 }
    }

    /// The next line without its line end; `None` at the end of the input.
    fn next_line(&mut self) -> Result<Option<String>, ReadlineError> {
        let mut bytes = Vec::new();
        if self.reader.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        String::from_utf8(bytes).map(Some).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let bad = e.as_bytes()[at];
            let column = String::from_utf8_lossy(&e.as_bytes()[..at]).chars().count() + 1;
            ReadlineError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "input:{}:{column}: not valid UTF-8 (byte 0x{bad:02x})",
                    self.line
                ),
            ))
        })
    }
}

/// What the shell remembers between statements.
struct Session<'a> {
    cairn: &'a Cairn,
    /// Runs the statements, holding the transaction between `BEGIN` and `COMMIT`.
    statements: cairn::Session<'a>,
    db: &'a Path,
    format: OutputFormat,
    trace: bool,
    running: Arc<Mutex<Option<CancelToken>>>,
    /// Exit codes of the statements and commands that failed.
    failed: Vec<u8>,
    /// Input from a script, not a terminal: a statement that fails inside `BEGIN` rolls the
    /// transaction back, as `cairn query -f` does.
    script: bool,
    /// A script's transaction was rolled back by a failed statement: the statements up to its
    /// `COMMIT` or `ROLLBACK` are skipped.
    aborted: bool,
}

impl Session<'_> {
    /// A read-only session shows the writer's latest commit: it catches up before each
    /// statement and dot-command. A failure is reported and the session goes on with the state
    /// it had.
    fn catch_up(&mut self) {
        if let Err(e) = self.cairn.catch_up() {
            self.fail(&Failure::from(e));
        }
    }

    /// In a script, a failure inside `BEGIN` rolls the transaction back (as `cairn query -f`
    /// does): nothing of it is committed, and its statements up to `COMMIT` or `ROLLBACK` are
    /// skipped. At a terminal the statement alone is undone and the transaction goes on.
    fn abort_transaction(&mut self) {
        if !self.script || !self.statements.in_transaction() {
            return;
        }
        let _ = self
            .statements
            .execute_with("ROLLBACK", &CancelToken::default(), false);
        self.aborted = true;
        errln!(
            "a statement failed inside BEGIN: the transaction is rolled back, and its statements up to COMMIT or ROLLBACK are skipped"
        );
    }

    /// Whether `stmt` is skipped because its transaction was rolled back; its `COMMIT` or
    /// `ROLLBACK` ends the skipping.
    fn skipped(&mut self, stmt: &str) -> bool {
        if !self.aborted {
            return false;
        }
        use cairn::query::ast::{Statement, TransactionKind};
        let ends = matches!(
            cairn::query::parse(stmt),
            Ok(Statement::Transaction(t))
                if matches!(t.kind, TransactionKind::Commit | TransactionKind::Rollback)
        );
        if ends {
            self.aborted = false;
            errln!("the transaction was rolled back after its failed statement: nothing of it is committed");
        }
        true
    }

    /// Runs one statement and prints its outcome; errors are printed and the session goes on.
    fn statement(&mut self, stmt: &str) {
        if self.skipped(stmt) {
            return;
        }
        self.catch_up();
        let token = CancelToken::default();
        if let Ok(mut guard) = self.running.lock() {
            *guard = Some(token.clone());
        }
        let started = Instant::now();
        let result = self.statements.execute_with(stmt, &token, self.trace);
        let elapsed = started.elapsed();
        if let Ok(mut guard) = self.running.lock() {
            *guard = None;
        }
        let shown = match result {
            Ok(Output::Exploration(e)) => self.exploration(&e, elapsed),
            Ok(Output::Answer(a)) => {
                super::ask_cli::print_answer(self.cairn, &a, self.format, true)
            }
            Ok(other) => {
                super::print_text_output(&other, self.format);
                Ok(())
            }
            Err(e) => Err(Failure::from(e)),
        };
        if let Err(f) = shown {
            self.fail(&f);
            self.abort_transaction();
        }
    }

    /// Reports a failure (as JSON under `.format json`) and remembers its exit code.
    fn fail(&mut self, f: &Failure) {
        super::report_failure(f);
        self.failed.push(f.code);
    }

    fn exploration(&self, e: &Exploration, elapsed: std::time::Duration) -> Result<(), Failure> {
        render::exploration(self.cairn, e, self.format, elapsed)?;
        if self.format == OutputFormat::Json {
            // The document holds the trace and says `"stop": "cancelled"`.
            return Ok(());
        }
        // `.trace on` adds the decisions to what the statement returns.
        if !e.trace.is_empty() && e.ret != ReturnKind::Trace {
            render::print_trace(self.cairn, &e.trace)?;
        }
        if e.stop == StopReason::Cancelled {
            outln!("cancelled (Ctrl-C): the results above are those found so far");
        }
        Ok(())
    }

    /// Runs a dot-command; false when the session should end.
    fn command(&mut self, line: &str) -> bool {
        let line = line.trim_end_matches(';');
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or("");
        let arg = words.next();
        if name != ".refresh" {
            self.catch_up();
        }
        match (name, arg) {
            (".quit" | ".exit", _) => return false,
            (".refresh", _) => self.refresh(),
            (".help", _) => outln!("{HELP}"),
            (".schema", _) => outln!("{}", schema(self.cairn)),
            (".stats", _) => {
                let shown = match self.format {
                    OutputFormat::Json => super::json::stats(self.cairn.graph(), self.db)
                        .map(|d| super::json::print(&d)),
                    OutputFormat::Table => stats(self.cairn, self.db).map(|text| outln!("{text}")),
                };
                if let Err(f) = shown {
                    self.fail(&f);
                }
            }
            (".trace", None) => outln!("trace is {}", if self.trace { "on" } else { "off" }),
            (".trace", Some("on")) => self.trace = true,
            (".trace", Some("off")) => self.trace = false,
            (".feedback", Some(id)) => {
                let verdict = words.next();
                let correct = match verdict {
                    Some("correct" | "right" | "yes") => Some(true),
                    Some("wrong" | "no") => Some(false),
                    _ => None,
                };
                match (id.parse::<u64>(), correct) {
                    (Ok(id), Some(c)) => match self.cairn.feedback(id, c) {
                        Ok(()) => outln!("feedback on answer {id} recorded"),
                        Err(e) => self.usage(&e.to_string()),
                    },
                    _ => self.usage("say `.feedback ID correct` or `.feedback ID wrong`"),
                }
            }
            (".feedback", None) => self.usage("say `.feedback ID correct` or `.feedback ID wrong`"),
            (".format", None) => outln!("format is {}", format_name(self.format)),
            (".format", Some("table")) => self.set_format(OutputFormat::Table),
            (".format", Some("json")) => self.set_format(OutputFormat::Json),
            (".trace", Some(other)) => self.usage(&format!(
                "`.trace {other}`: say `.trace on` or `.trace off`"
            )),
            (".format", Some(other)) => self.usage(&format!(
                "`.format {other}`: say `.format table` or `.format json`"
            )),
            (other, _) => self.usage(&format!(
                "unknown command `{other}`; .help lists the commands"
            )),
        }
        true
    }

    /// `.refresh`: catch up now and say which state the session shows.
    fn refresh(&mut self) {
        match self.cairn.catch_up() {
            Ok(changed) => match self.cairn.freshness() {
                Some(f) => outln!(
                    "{}: {}",
                    if changed { "caught up" } else { "nothing new" },
                    freshness_text(&f)
                ),
                None => outln!("this session holds the database for writing: always current"),
            },
            Err(e) => self.fail(&Failure::from(e)),
        }
    }

    fn usage(&mut self, message: &str) {
        self.fail(&Failure {
            code: 2,
            report: miette::Report::msg(message.to_owned()),
        });
    }

    /// `.format`: results and errors from now on.
    fn set_format(&mut self, format: OutputFormat) {
        self.format = format;
        super::set_error_format(format);
    }
}

fn format_name(f: OutputFormat) -> &'static str {
    match f {
        OutputFormat::Table => "table",
        OutputFormat::Json => "json",
    }
}

/// The catalog as the planner sees it: what `.schema` prints.
fn schema(cairn: &Cairn) -> String {
    let c = cairn.graph().catalog();
    let mut out = Vec::new();
    let mut labels: Vec<&str> = c.labels().map(|(_, n)| n).collect();
    labels.sort_unstable();
    out.push(format!("labels      {}", labels.join(", ")));
    let width = c
        .relations()
        .map(|(_, r)| crate::display::width(&r.name))
        .max()
        .unwrap_or(0);
    for (_, rel) in c.relations() {
        let ends: Vec<String> = rel
            .endpoints
            .iter()
            .map(|(s, d)| {
                format!(
                    "{} -> {}",
                    c.label_name(*s).unwrap_or("?"),
                    c.label_name(*d).unwrap_or("?")
                )
            })
            .collect();
        let parent = rel
            .parent
            .and_then(|p| c.relation_name(p))
            .map(|p| format!(" (under {p})"))
            .unwrap_or_default();
        out.push(format!(
            "relation    {}  {}{parent}",
            crate::display::pad(&rel.name, width),
            ends.join(", ")
        ));
    }
    for index in c.indexes() {
        out.push(format!(
            "index       {}({})",
            c.label_name(index.label).unwrap_or("?"),
            c.prop_name(index.prop).unwrap_or("?")
        ));
    }
    let props: Vec<&str> = c.prop_keys().map(|(_, n)| n).collect();
    out.push(format!("properties  {}", props.join(", ")));
    let a = c.annotations();
    // a label that is only unlinked has no annotation record, but a statement all the same
    let mut labels: Vec<_> = (a.labels.iter().map(|(id, _)| *id))
        .chain(c.linking().unlinked_labels.iter().copied())
        .collect();
    labels.sort();
    labels.dedup();
    let elements = (labels.into_iter().map(Element::Label))
        .chain(a.relations.iter().map(|(id, _)| Element::Relation(*id)))
        .chain(a.props.iter().map(|(id, _)| Element::Property(*id)));
    for e in elements {
        if let Some(text) = annotation_statement(&c, e) {
            out.push(format!("annotation  {text}"));
        }
    }
    out.join("\n")
}

fn stats(cairn: &Cairn, db: &Path) -> Result<String, Failure> {
    let g = cairn.graph();
    let c = g.catalog();
    let embedder = c
        .embedder()
        .map(|e| format!("{} ({} dimensions)", e.id, e.dim))
        .unwrap_or_else(|| "none recorded".to_owned());
    Ok(format!(
        "database    {}\nnodes       ~{}\nedges       ~{}\nschema      {} labels, {} relations, {} indexes, {} property keys\nembedder    {embedder}",
        db.display(),
        g.estimate_keys("node")?,
        g.estimate_keys("out")?,
        c.labels().count(),
        c.relations().count(),
        c.indexes().len(),
        c.prop_keys().count(),
    ))
}

/// Words that are keywords only where the grammar expects them (not reserved).
const CONTEXT_WORDS: &[&str] = &[
    "NODES",
    "PATHS",
    "SUBGRAPH",
    "ANSWER",
    "TRACE",
    "LABELS",
    "RELATIONS",
    "INDEXES",
    "STRATEGIES",
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "GROUP BY",
    "ORDER BY",
    "ASC",
    "DESC",
    "WITH TIES",
    "AS",
    "NOT",
    "sufficient",
    "found",
    "stale",
    "steps",
    "time",
    "judge",
    "semantic",
    "connectivity",
    "distance",
    "UPSERT",
    "SET",
    "DESCRIPTION",
    "ADD",
    "EDGE",
    "REMOVE",
    "NODE",
    "WEIGHT",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "TO",
    "ANNOTATE",
    "LABEL",
    "PROPERTY",
    "ALIASES",
];
/// The words of the data statements that decide which names come next.
const DATA_WORDS: &[&str] = &["UPSERT", "NODE", "EDGE", "SET"];
const COMMANDS: &[&str] = &[
    ".help",
    ".schema",
    ".stats",
    ".trace",
    ".format",
    ".feedback",
    ".refresh",
    ".quit",
];

/// Tab completion from the catalog; the rest of rustyline's helper hooks keep their defaults.
#[derive(Debug, Default)]
struct ReplHelper {
    labels: Vec<String>,
    relations: Vec<String>,
    props: Vec<String>,
    /// Earlier lines of the statement being typed, for the clause context.
    pending: String,
}

/// Which names fit where the cursor is, judged by the last reserved word before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Labels,
    Relations,
    Props,
    Anything,
}

impl ReplHelper {
    /// Reloads the names: statements such as `RELATION … UNDER …` and `CREATE INDEX` change them.
    fn refresh(&mut self, cairn: &Cairn) {
        let c = cairn.graph().catalog();
        self.labels = c.labels().map(|(_, n)| n.to_owned()).collect();
        self.relations = c.relations().map(|(_, r)| r.name.clone()).collect();
        self.props = c.prop_keys().map(|(_, n)| n.to_owned()).collect();
    }

    fn candidates(&self, before: &str, prefix: &str) -> Vec<Pair> {
        let lower = prefix.to_lowercase();
        let matches = |w: &str| w.to_lowercase().starts_with(&lower);
        let mut out: Vec<Pair> = Vec::new();
        let expect = expectation(before);
        let names: Vec<&String> = match expect {
            Expect::Labels => self.labels.iter().collect(),
            Expect::Relations => self.relations.iter().collect(),
            Expect::Props => self.props.iter().chain(&self.labels).collect(),
            Expect::Anything => self
                .labels
                .iter()
                .chain(&self.relations)
                .chain(&self.props)
                .collect(),
        };
        for n in names.into_iter().filter(|n| matches(n)) {
            out.push(Pair {
                display: crate::display::cell(n).into_owned(),
                replacement: quote_name(n),
            });
        }
        let lowercase = !prefix.is_empty() && !prefix.chars().any(char::is_uppercase);
        let uppercase = prefix.chars().any(char::is_uppercase);
        // Where a name is due, Tab on nothing lists the names alone (and `ANY` for a relation);
        // a typed prefix also matches keywords, since the next clause may start there.
        let offered: Vec<&str> = match (expect, prefix.is_empty()) {
            (Expect::Relations, true) => vec!["ANY"],
            (Expect::Labels | Expect::Props, true) => Vec::new(),
            _ => RESERVED.iter().chain(CONTEXT_WORDS).copied().collect(),
        };
        for k in offered.into_iter().filter(|k| matches(k)) {
            let word = if lowercase {
                k.to_lowercase()
            } else if uppercase {
                k.to_uppercase()
            } else {
                (*k).to_owned()
            };
            out.push(Pair {
                display: word.clone(),
                replacement: word,
            });
        }
        out.sort_by(|a, b| a.display.cmp(&b.display));
        out.dedup_by(|a, b| a.replacement == b.replacement);
        out
    }
}

/// A name as the language accepts it: the query printer's rule.
fn quote_name(n: &str) -> String {
    cairn::query::printer::name(n).to_string()
}

/// The names that fit after `before` (the statement up to the word being completed).
fn expectation(before: &str) -> Expect {
    let last = tokens(before)
        .filter(|t| t.kind == TokenKind::Word)
        .map(|t| &before[t.span.start..t.span.end])
        .filter(|w| is_reserved(w) || DATA_WORDS.iter().any(|d| d.eq_ignore_ascii_case(w)))
        .last()
        .map(str::to_uppercase);
    match last.as_deref() {
        Some("UPSERT" | "NODE") => Expect::Labels,
        // `ADD EDGE Label "key" -[REL]-> Label "key"`
        Some("EDGE") if before.trim_end().ends_with("-[") => Expect::Relations,
        Some("EDGE") => Expect::Labels,
        Some("SET") => Expect::Props,
        Some("FROM" | "TARGET" | "IN" | "DESCRIBE") => Expect::Labels,
        Some("ON") if before.trim_end().ends_with('(') => Expect::Props,
        Some("ON") => Expect::Labels,
        Some("VIA" | "RELATION" | "UNDER") => Expect::Relations,
        Some("WHERE" | "AND") => Expect::Props,
        _ => Expect::Anything,
    }
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = &line[..pos];
        let command = self.pending.is_empty() && head.trim_start().starts_with('.');
        let start = head
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || (command && *c == '.')))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let prefix = &head[start..];
        if command {
            return Ok((start, command_candidates(head.trim_start(), prefix)));
        }
        let before = format!("{}\n{}", self.pending, &head[..start]);
        // Nothing to offer inside a string or a quoted name.
        if matches!(split(&before).open, Some(Open::String | Open::Name)) {
            return Ok((pos, Vec::new()));
        }
        Ok((start, self.candidates(&before, prefix)))
    }
}

/// Completions of a dot-command line: the command, then its argument.
fn command_candidates(head: &str, prefix: &str) -> Vec<Pair> {
    // Commands that take an argument complete with the space before it.
    let pair = |s: &str| Pair {
        display: s.to_owned(),
        replacement: if matches!(s, ".trace" | ".format") {
            format!("{s} ")
        } else {
            s.to_owned()
        },
    };
    let args: &[&str] = if head.starts_with(".trace ") {
        &["on", "off"]
    } else if head.starts_with(".format ") {
        &["table", "json"]
    } else if head.contains(' ') {
        &[]
    } else {
        COMMANDS
    };
    args.iter()
        .filter(|a| a.starts_with(prefix))
        .map(|a| pair(a))
        .collect()
}

impl Hinter for ReplHelper {
    type Hint = String;
}
impl Highlighter for ReplHelper {}
impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn completion_follows_the_clause() {
        assert_eq!(expectation("EXPLORE \"via x\" FROM "), Expect::Labels);
        assert_eq!(
            expectation("EXPLORE \"x\" FROM Author \"a\" VIA AUTHORED -> "),
            Expect::Relations
        );
        assert_eq!(
            expectation("EXPLORE \"x\" FROM Author WHERE "),
            Expect::Props
        );
        assert_eq!(expectation("CREATE INDEX ON Author("), Expect::Props);
        assert_eq!(expectation("EXPLORE \"x\" "), Expect::Anything);
        assert_eq!(expectation("UPSERT "), Expect::Labels);
        assert_eq!(expectation("UPSERT A \"k\" SET x = 1, "), Expect::Props);
        assert_eq!(expectation("ADD EDGE A \"k\" -["), Expect::Relations);
        assert_eq!(expectation("ADD EDGE A \"k\" -[R]-> "), Expect::Labels);
        let h = ReplHelper {
            labels: vec!["Author".into(), "Order".into()],
            relations: vec!["AUTHORED".into()],
            props: vec!["first name".into()],
            pending: String::new(),
        };
        let got: Vec<String> = h
            .candidates("EXPLORE \"x\" FROM ", "")
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        assert!(
            got.contains(&"Author".to_owned()) && !got.contains(&"AUTHORED".to_owned()),
            "{got:?}"
        );
        let got: Vec<String> = h
            .candidates("EXPLORE \"x\" VIA ", "")
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        assert_eq!(got, ["ANY", "AUTHORED"]);
        assert_eq!(command_candidates(".tr", ".tr")[0].replacement, ".trace ");
        let got: Vec<String> = h
            .candidates("", "ex")
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        assert_eq!(got, ["except", "explain", "explore"]);
        let got: Vec<String> = h
            .candidates("EXPLORE \"x\" FROM A WHERE ", "fi")
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        assert_eq!(got, ["`first name`"]);
        assert_eq!(quote_name("Order"), "Order");
        assert_eq!(quote_name("from"), "`from`");
    }
}
