//! `cairn ask` and `cairn eval`: the question-answering agents from the command line.

use super::display::cell;
use super::{Failure, OutputFormat};
use cairn::agent::qa::{evaluate_questions, load_questions};
use cairn::agent::{AskOutcome, Asker, LlmAgents, LlmBackend, OpenAiChat, PathStep};
use cairn::{Cairn, CairnError, CancelToken, Graph, GraphOptions};
use cairn_agent::eval::{evaluate, questions};
use cairn_embed::{Embedder, HashEmbedder};
use cairn_generate::{Academic, AcademicConfig};
use cairn_import::{import_records, ImportOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

fn failure(code: u8, msg: impl std::fmt::Display) -> Failure {
    Failure {
        code,
        report: miette::Report::msg(msg.to_string()),
    }
}

/// Parses `--llm planner,judge,answerer` (or `all`).
pub(crate) fn llm_agents(spec: Option<&str>) -> Result<Option<LlmAgents>, Failure> {
    let Some(spec) = spec else { return Ok(None) };
    let mut agents = LlmAgents::default();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "all" => agents = LlmAgents::ALL,
            "planner" => agents.planner = true,
            "judge" => agents.judge = true,
            "answerer" => agents.answerer = true,
            other => {
                return Err(failure(
                    2,
                    format!("--llm: unknown agent {other:?} (planner, judge, answerer or all)"),
                ))
            }
        }
    }
    Ok(Some(agents))
}

fn backend(agents: Option<LlmAgents>) -> Result<Option<OpenAiChat>, Failure> {
    match agents {
        None => Ok(None),
        Some(_) => OpenAiChat::from_env().map(Some).map_err(|e| failure(2, e)),
    }
}

/// `cairn ask "question"`.
pub(crate) fn ask(
    db: &Path,
    read_only: bool,
    question: &str,
    llm: Option<&str>,
    explain: bool,
    format: OutputFormat,
) -> Result<(), Failure> {
    let cairn = super::open_db_reading(db, read_only, cairn::TableMode::StoreOnly)?;
    if explain {
        let plan = cairn.plan(&format!(
            "EXPLAIN ASK {}",
            cairn::query::printer::str_lit(question)
        ))?;
        match format {
            OutputFormat::Table => outln!("{plan}"),
            OutputFormat::Json => super::json::print(&super::json::plan(&plan)),
        }
        return Ok(());
    }
    let agents = llm_agents(llm)?;
    let chat = backend(agents)?;
    let llm = match (&chat, agents) {
        (Some(c), Some(a)) => Some((c as &dyn LlmBackend, a)),
        _ => None,
    };
    let outcome = cairn.ask(question, &CancelToken::default(), llm)?;
    print_answer(&cairn, &outcome, format, false)
}

fn path_text(cairn: &Cairn, path: &[PathStep]) -> Result<String, Failure> {
    let Some(first) = path.first() else {
        return Ok(String::new());
    };
    let mut ids = vec![first.from];
    ids.extend(path.iter().map(|s| s.to));
    let names = cairn.names(&ids)?;
    let mut out = names[0].clone();
    for (step, name) in path.iter().zip(names.iter().skip(1)) {
        let arrow = if step.reversed {
            format!(" <-{}- ", step.relation)
        } else {
            format!(" -{}-> ", step.relation)
        };
        out.push_str(&arrow);
        out.push_str(name);
    }
    Ok(out)
}

/// Prints an ASK outcome: the answer, each item with its evidence, and the validation; in the
/// shell (`in_shell`) also the answer id `.feedback` names, which lives only in that process.
pub(crate) fn print_answer(
    cairn: &Cairn,
    o: &AskOutcome,
    format: OutputFormat,
    in_shell: bool,
) -> Result<(), Failure> {
    let a = &o.answer;
    if format == OutputFormat::Json {
        let mut items = Vec::new();
        for i in &a.items {
            items.push(serde_json::json!({
                "node": i.node.map(|n| n.0), "label": i.label, "key": i.key, "name": i.name, "value": i.value, "support": i.support,
                "evidence": path_text(cairn, &i.evidence)?,
            }));
        }
        let v = &o.validation;
        super::json::print(&super::json::document(
            "answer",
            serde_json::json!({
                "question": o.plan.question, "type": o.plan.qtype.name(), "answer": a.text, "values": a.values(), "count": a.count,
                "items": items, "uncertain": a.uncertain, "notes": a.notes, "partial": a.partial,
                "validation": {"score": v.score, "entities": v.entities, "relations": v.relations, "attributes": v.attributes, "problems": v.problems},
                "plan": o.plan.plan.to_string(), "judge": o.verdict.reason, "expansions": o.expansions, "regenerations": o.regenerations,
                "answer_id": o.answer_id.filter(|_| in_shell),
            }),
        ));
        return Ok(());
    }
    outln!(
        "{} question; answer{}: {}",
        o.plan.qtype,
        if a.uncertain { " (uncertain)" } else { "" },
        a.text
    );
    for (k, i) in a.items.iter().take(25).enumerate() {
        let evidence = path_text(cairn, &i.evidence)?;
        let what = cell(i.value.as_deref().unwrap_or(&i.name));
        let (label, key) = (cell(&i.label), cell(&i.key));
        if evidence.is_empty() {
            outln!("  {:>2}. {what}  [{label} {key}]", k + 1);
        } else {
            outln!(
                "  {:>2}. {what}  [{label} {key}]  evidence: {}",
                k + 1,
                cell(&evidence)
            );
        }
    }
    if a.items.len() > 25 {
        outln!("  … {} more", a.items.len() - 25);
    }
    // Why the answer is uncertain (its notes name nodes: data text, shown as cells).
    for n in &a.notes {
        outln!("  note: {}", cell(n));
    }
    let v = &o.validation;
    outln!(
        "validation {:.2} (entities {:.2}, relations {:.2}, attributes {:.2}); judge: {}; {} expansion(s), {} regeneration(s)",
        v.score, v.entities, v.relations, v.attributes, o.verdict.reason, o.expansions, o.regenerations
    );
    for p in v.problems.iter().take(10) {
        outln!("  problem: {p}");
    }
    if let Some(id) = o.answer_id.filter(|_| in_shell) {
        outln!("answer id {id} (feedback: `.feedback {id} correct|wrong`)");
    }
    Ok(())
}

/// `cairn eval`: generate, import, ask, score.
#[allow(clippy::too_many_arguments)]
pub(crate) fn eval(
    nodes: usize,
    seed: u64,
    per_type: usize,
    workdir: Option<PathBuf>,
    out: &Path,
    llm: Option<&str>,
    show_misses: usize,
) -> Result<(), Failure> {
    let started = Instant::now();
    let academic = Academic::generate(&AcademicConfig::with_nodes(nodes, seed));
    let (dir, temporary) = match workdir {
        Some(d) => (d, false),
        None => (
            std::env::temp_dir().join(format!(
                "cairn-eval-{}-{seed}-{}",
                academic.node_count(),
                std::process::id()
            )),
            true,
        ),
    };
    let result = eval_in(
        &dir,
        &academic,
        seed,
        per_type,
        out,
        llm,
        show_misses,
        started,
    );
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

#[allow(clippy::too_many_arguments)]
fn eval_in(
    dir: &Path,
    academic: &Academic,
    seed: u64,
    per_type: usize,
    out: &Path,
    llm: Option<&str>,
    show_misses: usize,
    started: Instant,
) -> Result<(), Failure> {
    let graph = Graph::open(dir, GraphOptions::default())?;
    let embedder: Arc<dyn Embedder> = Arc::new(HashEmbedder::default());
    let records = academic.records();
    let options = ImportOptions {
        embedder: Some(Arc::clone(&embedder)),
        ..Default::default()
    };
    import_records(&graph, records, &options).map_err(CairnError::from)?;
    let table = cairn::exec::NodeTable::build(&graph, embedder.id())?;
    outln!(
        "graph: {} nodes, {} edges (academic, seed {seed}), imported in {:.1}s",
        academic.node_count(),
        academic.edge_count(),
        started.elapsed().as_secs_f64()
    );
    let agents = llm_agents(llm)?;
    let chat = backend(agents)?;
    let mut asker = Asker::new(&graph, embedder.as_ref(), &table);
    if let (Some(c), Some(a)) = (&chat, agents) {
        asker = asker.with_llm(c, a);
    }
    let qs = questions(academic, per_type, seed);
    outln!("questions: {} ({} per type)", qs.len(), per_type);
    let report = evaluate(&asker, &qs, &CancelToken::default()).map_err(|e| failure(1, e))?;
    outln!("\n{}", report.table());
    outln!(
        "{} question(s) in {:.1}s ({:.1} ms each); {} answer(s) marked uncertain",
        qs.len(),
        report.elapsed.as_secs_f64(),
        report.elapsed.as_secs_f64() * 1e3 / qs.len().max(1) as f64,
        report.uncertain
    );
    for m in report.misses.iter().take(show_misses) {
        print_miss(&m.qtype, &m.question, &m.gold, &m.got, m.error.as_deref());
    }
    let mut json = report.to_json();
    if let Some(obj) = json.as_object_mut() {
        obj.insert("graph".into(), serde_json::json!({"nodes": academic.node_count(), "edges": academic.edge_count(), "seed": seed}));
        obj.insert("llm".into(), serde_json::json!(llm));
    }
    let text = serde_json::to_string_pretty(&json).map_err(|e| failure(1, e))?;
    std::fs::write(out, text).map_err(|e| failure(1, format!("{}: {e}", out.display())))?;
    outln!("wrote {}", out.display());
    Ok(())
}

/// Where `cairn eval --questions` writes: one JSON record per question (`--json`), the report
/// (`--out`).
pub(crate) struct EvalOutputs<'a> {
    pub(crate) records: Option<&'a Path>,
    pub(crate) report: Option<&'a Path>,
}

/// `cairn eval --questions FILE`: ask a question file against `db` in one process.
pub(crate) fn eval_questions(
    db: &Path,
    file: &Path,
    outputs: EvalOutputs<'_>,
    llm: Option<&str>,
    show_misses: usize,
    feedback: bool,
) -> Result<(), Failure> {
    let questions = load_questions(file).map_err(|e| failure(3, e))?;
    let cairn = super::open_db(db)?;
    let table = cairn.node_table()?;
    let agents = llm_agents(llm)?;
    let chat = backend(agents)?;
    let embedder = cairn.embedder();
    let mut asker = cairn.asker(embedder.as_ref(), table.as_ref());
    if let (Some(c), Some(a)) = (&chat, agents) {
        asker = asker.with_llm(c, a);
    }
    let mut learned = Ok(());
    let report = evaluate_questions(
        &asker,
        &questions,
        &CancelToken::default(),
        &mut |o, hit, gold| {
            if feedback && learned.is_ok() {
                learned = cairn.learn_answers(o, hit, gold, table.as_ref());
            }
        },
    );
    learned.map_err(|e| failure(1, e))?;
    if feedback {
        cairn.save_strategies().map_err(|e| failure(1, e))?;
    }
    outln!("{}", report.table());
    outln!(
        "{} question(s) in {:.1}s; ASK latency median {:.1} ms, p90 {:.1} ms",
        report.records.len(),
        report.elapsed.as_secs_f64(),
        report.median.as_secs_f64() * 1e3,
        report.p90.as_secs_f64() * 1e3
    );
    for r in report.records.iter().filter(|r| !r.hit1).take(show_misses) {
        print_miss(
            &r.qtype,
            &r.question,
            &r.gold,
            &r.answers,
            r.error.as_deref(),
        );
    }
    let summary = report.summary_json();
    outln!("summary {summary}");
    if let Some(path) = outputs.records {
        std::fs::write(path, report.records_jsonl())
            .map_err(|e| failure(1, format!("{}: {e}", path.display())))?;
        outln!("wrote {}", path.display());
    }
    if let Some(path) = outputs.report {
        let mut json = summary;
        if let Some(obj) = json.as_object_mut() {
            obj.insert(
                "questions".into(),
                serde_json::json!(file.display().to_string()),
            );
            obj.insert(
                "database".into(),
                serde_json::json!(db.display().to_string()),
            );
            obj.insert("llm".into(), serde_json::json!(llm));
            obj.insert("feedback".into(), serde_json::json!(feedback));
        }
        let text = serde_json::to_string_pretty(&json).map_err(|e| failure(1, e))?;
        std::fs::write(path, text + "\n")
            .map_err(|e| failure(1, format!("{}: {e}", path.display())))?;
        outln!("wrote {}", path.display());
    }
    Ok(())
}

/// One wrong answer of an evaluation, on one line (the first 10 answers).
fn print_miss(
    qtype: &dyn std::fmt::Display,
    question: &str,
    gold: &[String],
    got: &[String],
    error: Option<&str>,
) {
    outln!(
        "miss [{qtype}] {question} gold={gold:?} got={:?}{}",
        got.iter().take(10).collect::<Vec<_>>(),
        error.map(|e| format!(" error: {e}")).unwrap_or_default()
    );
}
