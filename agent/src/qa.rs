//! `cairn eval --questions FILE`: question answering measured on any database with a question
//! file of its own (public KGQA sets, a user's own questions).
//!
//! A file holds one question a line, either JSON (`{"question": …, "answers": […], "type": …}`,
//! `type` optional) or tab-separated (`question \t a1|a2 [\t type]`). Every question is asked in
//! one process (the planner's indexes are built once), and each answer is compared with the gold
//! answers by node key, name or value, normalised (case, `_` and spaces, punctuation aside), so a
//! gold `united_kingdom` matches a node keyed `united_kingdom` or named "United Kingdom".

use crate::answer::Answer;
use crate::ask::Asker;
use crate::CancelToken;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};
use thiserror::Error;

/// A question file that cannot be read.
#[derive(Debug, Error)]
pub enum QaError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {reason}")]
    Line {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("{0}: no questions")]
    Empty(String),
}

/// One question with its gold answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QaQuestion {
    pub text: String,
    pub answers: Vec<String>,
    /// The type given in the file ("multi-hop", "2H", …), or "all".
    pub qtype: String,
}

/// Reads a question file (JSON lines or `question \t a1|a2 [\t type]`); blank lines and lines
/// starting with `#` are skipped.
pub fn load_questions(path: &Path) -> Result<Vec<QaQuestion>, QaError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| QaError::Io {
        path: name.clone(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let bad = |reason: String| QaError::Line {
            path: name.clone(),
            line: i + 1,
            reason,
        };
        let q = if line.trim_start().starts_with('{') {
            parse_json_line(line).map_err(bad)?
        } else {
            parse_tsv_line(line).map_err(bad)?
        };
        out.push(q);
    }
    if out.is_empty() {
        return Err(QaError::Empty(name));
    }
    Ok(out)
}

fn parse_json_line(line: &str) -> Result<QaQuestion, String> {
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let text = v
        .get("question")
        .and_then(|q| q.as_str())
        .filter(|q| !q.trim().is_empty())
        .ok_or("\"question\" is missing or not a non-empty string")?;
    let answers = v
        .get("answers")
        .and_then(|a| a.as_array())
        .ok_or("\"answers\" is missing or not an array")?
        .iter()
        .map(|a| match a {
            serde_json::Value::String(s) => Ok(s.clone()),
            serde_json::Value::Number(n) => Ok(n.to_string()),
            other => Err(format!("answer {other} is not a string or number")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if answers.is_empty() {
        return Err("\"answers\" is empty".into());
    }
    let qtype = match v.get("type") {
        None | Some(serde_json::Value::Null) => "all".to_owned(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => return Err(format!("\"type\" {other} is not a string")),
    };
    Ok(QaQuestion {
        text: text.to_owned(),
        answers,
        qtype,
    })
}

fn parse_tsv_line(line: &str) -> Result<QaQuestion, String> {
    let mut fields = line.split('\t');
    let text = fields.next().unwrap_or("").trim();
    let answers: Vec<String> = fields
        .next()
        .ok_or("expected `question <TAB> answer1|answer2`")?
        .split('|')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect();
    if text.is_empty() {
        return Err("the question is empty".into());
    }
    if answers.is_empty() {
        return Err("no gold answer".into());
    }
    let qtype = fields
        .next()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or("all")
        .to_owned();
    Ok(QaQuestion {
        text: text.to_owned(),
        answers,
        qtype,
    })
}

/// How answers and gold answers are compared: a number as its value ("106.0" is "106"),
/// anything else in lower case, `_` as a space, letters and digits only.
pub fn normalize_answer(s: &str) -> String {
    if let Ok(n) = s.trim().parse::<f64>() {
        if n.is_finite() {
            return if n.fract() == 0.0 && n.abs() < 1e15 {
                format!("{}", n as i64)
            } else {
                format!("{n}")
            };
        }
    }
    s.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The comparable forms of each answer item: the count, else the value, else an item's
/// value when it reports one (a property's value is the answer, not the node it was read
/// from: "200", a drug's dosage, is no right answer to "which drug …"), else its key and name.
fn answer_forms(a: &Answer) -> Vec<HashSet<String>> {
    if let Some(c) = a.count {
        return vec![HashSet::from([c.to_string()])];
    }
    if let Some(v) = &a.value {
        return vec![HashSet::from([normalize_answer(v)])];
    }
    a.items
        .iter()
        .map(|i| {
            let forms = match i.value.as_deref() {
                Some(v) => vec![v],
                None => vec![i.key.as_str(), i.name.as_str()],
            };
            forms
                .into_iter()
                .map(normalize_answer)
                .filter(|s| !s.is_empty())
                .collect()
        })
        .collect()
}

/// Accuracy (every answer is gold and every gold answer is given), F1 and Hit@1 of one answer.
pub fn score_forms(got: &[HashSet<String>], gold: &[String]) -> (bool, f64, bool) {
    let gold: Vec<String> = gold.iter().map(|g| normalize_answer(g)).collect();
    let correct = got
        .iter()
        .filter(|f| gold.iter().any(|g| f.contains(g)))
        .count();
    let covered = gold
        .iter()
        .filter(|g| got.iter().any(|f| f.contains(*g)))
        .count();
    let f1 = if correct == 0 {
        0.0
    } else {
        let p = correct as f64 / got.len() as f64;
        let r = covered as f64 / gold.len().max(1) as f64;
        2.0 * p * r / (p + r)
    };
    let exact = !got.is_empty() && correct == got.len() && covered == gold.len();
    let hit = got
        .first()
        .is_some_and(|f| gold.iter().any(|g| f.contains(g)));
    (exact, f1, hit)
}

/// One asked question, for the per-question JSON.
#[derive(Clone, Debug)]
pub struct QaRecord {
    pub question: String,
    pub qtype: String,
    pub gold: Vec<String>,
    pub planned_type: String,
    pub plan: String,
    pub entity: Option<String>,
    pub answers: Vec<String>,
    pub exact: bool,
    pub f1: f64,
    pub hit1: bool,
    /// The answer was marked uncertain (see [`crate::Answer::uncertain`]).
    pub uncertain: bool,
    /// The reading the answer was computed from, and why it is uncertain.
    pub reading: Option<String>,
    pub notes: Vec<String>,
    pub latency: Duration,
    pub error: Option<String>,
}

/// Accuracy, F1 and Hit@1 over a group of questions, each in [0, 1]; and calibration: the
/// share answered as certain (coverage) and the accuracy among those (precision).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QaMetrics {
    pub questions: usize,
    pub accuracy: f64,
    pub f1: f64,
    pub hit1: f64,
    pub coverage: f64,
    pub precision: f64,
}

/// The outcome of a question file.
#[derive(Clone, Debug)]
pub struct QaReport {
    pub per_type: BTreeMap<String, QaMetrics>,
    pub overall: QaMetrics,
    pub records: Vec<QaRecord>,
    pub median: Duration,
    pub p90: Duration,
    pub elapsed: Duration,
}

/// Asks every question with one `asker` (an error counts as a wrong answer).
pub fn evaluate_questions(
    asker: &Asker<'_>,
    questions: &[QaQuestion],
    cancel: &CancelToken,
    on_answer: &mut dyn FnMut(&crate::AskOutcome, bool, &[String]),
) -> QaReport {
    let started = Instant::now();
    let mut records = Vec::with_capacity(questions.len());
    for q in questions {
        if cancel.is_cancelled() {
            break;
        }
        let t = Instant::now();
        let outcome = asker.ask(&q.text, cancel);
        let latency = t.elapsed();
        let record = match outcome {
            Ok(o) => {
                let forms = answer_forms(&o.answer);
                let (exact, f1, hit1) = score_forms(&forms, &q.answers);
                on_answer(&o, hit1, &q.answers);
                QaRecord {
                    question: q.text.clone(),
                    qtype: q.qtype.clone(),
                    gold: q.answers.clone(),
                    planned_type: o.plan.qtype.name().to_owned(),
                    plan: o.plan.text.clone(),
                    entity: o
                        .plan
                        .entity
                        .as_ref()
                        .map(|e| format!("{} {:?}", e.label, e.keys)),
                    answers: o.answer.values().into_iter().take(20).collect(),
                    exact,
                    f1,
                    hit1,
                    uncertain: o.answer.uncertain,
                    reading: o
                        .plan
                        .reading
                        .as_ref()
                        .map(|r| format!("{} → {:?}", r.chain, r.output)),
                    notes: o.answer.notes.clone(),
                    latency,
                    error: None,
                }
            }
            Err(e) => QaRecord {
                question: q.text.clone(),
                qtype: q.qtype.clone(),
                gold: q.answers.clone(),
                planned_type: String::new(),
                plan: String::new(),
                entity: None,
                answers: Vec::new(),
                exact: false,
                f1: 0.0,
                hit1: false,
                uncertain: true,
                reading: None,
                notes: Vec::new(),
                latency,
                error: Some(e.to_string()),
            },
        };
        records.push(record);
    }
    let metrics = |rs: &[&QaRecord]| {
        let n = rs.len().max(1) as f64;
        let certain = rs.iter().filter(|r| !r.uncertain).count();
        QaMetrics {
            questions: rs.len(),
            accuracy: rs.iter().filter(|r| r.exact).count() as f64 / n,
            f1: rs.iter().map(|r| r.f1).sum::<f64>() / n,
            hit1: rs.iter().filter(|r| r.hit1).count() as f64 / n,
            coverage: certain as f64 / n,
            precision: if certain == 0 {
                1.0
            } else {
                rs.iter().filter(|r| !r.uncertain && r.exact).count() as f64 / certain as f64
            },
        }
    };
    let mut groups: BTreeMap<String, Vec<&QaRecord>> = BTreeMap::new();
    for r in &records {
        groups.entry(r.qtype.clone()).or_default().push(r);
    }
    let all: Vec<&QaRecord> = records.iter().collect();
    let mut latencies: Vec<Duration> = records.iter().map(|r| r.latency).collect();
    latencies.sort();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or_default()
    };
    QaReport {
        per_type: groups
            .iter()
            .map(|(t, rs)| (t.clone(), metrics(rs)))
            .collect(),
        overall: metrics(&all),
        median: at(0.5),
        p90: at(0.9),
        elapsed: started.elapsed(),
        records,
    }
}

impl QaReport {
    /// A Markdown table: per type, then overall.
    pub fn table(&self) -> String {
        let mut out = String::from(
            "| type | questions | Accuracy | F1 | Hits@1 | certain | precision (certain) |\n|---|---:|---:|---:|---:|---:|---:|\n",
        );
        let row = |name: &str, m: &QaMetrics| {
            format!(
                "| {name} | {} | {:.1}% | {:.3} | {:.1}% | {:.1}% | {:.1}% |\n",
                m.questions,
                m.accuracy * 100.0,
                m.f1,
                m.hit1 * 100.0,
                m.coverage * 100.0,
                m.precision * 100.0
            )
        };
        if self.per_type.len() > 1 {
            for (t, m) in &self.per_type {
                out.push_str(&row(t, m));
            }
        }
        out.push_str(&row("**overall**", &self.overall));
        out
    }

    /// Per-question records as JSON lines.
    pub fn records_jsonl(&self) -> String {
        let mut out = String::new();
        for r in &self.records {
            let v = serde_json::json!({
                "question": r.question, "type": r.qtype, "gold": r.gold,
                "planned_type": r.planned_type, "entity": r.entity, "plan": r.plan,
                "answers": r.answers, "correct": r.hit1, "exact": r.exact, "f1": r.f1,
                "uncertain": r.uncertain, "reading": r.reading, "notes": r.notes,
                "latency_ms": r.latency.as_secs_f64() * 1e3, "error": r.error,
            });
            out.push_str(&v.to_string());
            out.push('\n');
        }
        out
    }

    /// One machine-readable summary line.
    pub fn summary_json(&self) -> serde_json::Value {
        let m = |m: &QaMetrics| serde_json::json!({"questions": m.questions, "accuracy": m.accuracy, "f1": m.f1, "hit1": m.hit1, "coverage": m.coverage, "precision": m.precision});
        serde_json::json!({
            "overall": m(&self.overall),
            "per_type": self.per_type.iter().map(|(t, x)| (t.clone(), m(x))).collect::<serde_json::Map<_, _>>(),
            "median_ms": self.median.as_secs_f64() * 1e3,
            "p90_ms": self.p90.as_secs_f64() * 1e3,
            "elapsed_s": self.elapsed.as_secs_f64(),
        })
    }
}

/// What one answer teaches of an adjective (see [`cut_example`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CutExample {
    pub word: String,
    pub label: String,
    pub members: Vec<crate::strategy::CutMember>,
}

/// What the right answers `gold` (as `cairn eval` compares them: a node's key or name,
/// [`normalize_answer`]d) teach of the plan's one unused adjective on the answer's
/// label: the nodes the reading gives without the word, each with its numeric properties and
/// whether it is right. Nothing when a right answer is not among them (the reading was wrong
/// otherwise), or the word is not on the answer's nodes, or the answer is not a list of nodes.
pub fn cut_example(
    graph: &cairn_store::Graph,
    source: &dyn cairn_exec::NodeSource,
    plan: &crate::QueryPlan,
    gold: &[String],
) -> Result<Option<CutExample>, crate::AgentError> {
    use crate::reading::{Evaluator, Output};
    use cairn_store::GraphRead;
    let ([m], Some(reading)) = (plan.modifiers.as_slice(), plan.reading.as_ref()) else {
        return Ok(None);
    };
    if reading.output != Output::Nodes || !m.on_answer(reading.chain.ops.len()) {
        return Ok(None);
    }
    let mut chain = reading.chain.clone();
    if m.applied.is_some() {
        chain.ops.remove(m.at);
    }
    let catalog = graph.catalog();
    let set = Evaluator::new(graph, source, &catalog).chain(&chain)?;
    let gold: std::collections::HashSet<String> =
        gold.iter().map(|g| normalize_answer(g)).collect();
    let ids: Vec<_> = set.members.iter().map(|m| m.node).collect();
    let mut members = Vec::with_capacity(ids.len());
    let mut found = 0;
    for rec in graph.nodes(&ids)?.into_iter().flatten() {
        let name = cairn_store::describe::display_name(&rec, &catalog);
        let inside = [rec.key.as_str(), name.as_str()]
            .iter()
            .any(|f| gold.contains(&normalize_answer(f)));
        found += usize::from(inside);
        let values = rec
            .props
            .iter()
            .filter_map(|(k, v)| {
                Some((
                    catalog.prop_name(*k)?.to_owned(),
                    crate::reading::numeric(v)?,
                ))
            })
            .collect();
        members.push((values, inside));
    }
    if found < gold.len() || found == 0 {
        return Ok(None);
    }
    Ok(Some(CutExample {
        word: m.word.clone(),
        label: m.label.clone(),
        members,
    }))
}

#[cfg(test)]
mod tests {
    use super::{answer_forms, normalize_answer, score_forms};
    use crate::answer::{Answer, AnswerItem};
    use crate::planner::QuestionType;

    fn item(key: &str, name: &str, value: Option<&str>) -> AnswerItem {
        AnswerItem {
            node: None,
            label: "Drug".into(),
            key: key.into(),
            name: name.into(),
            value: value.map(str::to_owned),
            support: None,
            evidence: Vec::new(),
        }
    }

    fn answer(items: Vec<AnswerItem>) -> Answer {
        Answer {
            qtype: QuestionType::Relation,
            items,
            count: None,
            value: None,
            text: String::new(),
            partial: false,
            uncertain: false,
            notes: Vec::new(),
            by_llm: false,
        }
    }

    #[test]
    fn a_value_read_from_a_node_is_not_that_node() {
        let gold = ["Breathaire".to_owned()];
        // the dosage of the right drug answers "which drug" wrongly
        let dosage = answer(vec![item("d1", "Breathaire", Some("200"))]);
        assert!(!score_forms(&answer_forms(&dosage), &gold).0);
        // the node itself, by name or by key
        let node = answer(vec![item("d1", "Breathaire", None)]);
        assert!(score_forms(&answer_forms(&node), &gold).0);
        assert!(score_forms(&answer_forms(&node), &["d1".to_owned()]).0);
        // and the value when the value is asked
        assert!(score_forms(&answer_forms(&dosage), &["200".to_owned()]).0);
    }

    #[test]
    fn numbers_compare_by_value_and_text_by_its_words() {
        assert_eq!(normalize_answer("106.0"), normalize_answer("106"));
        assert_eq!(normalize_answer(" 241.50 "), "241.5");
        assert_ne!(normalize_answer("106.5"), normalize_answer("106"));
        assert_eq!(normalize_answer("United_Kingdom"), "united kingdom");
        assert_eq!(normalize_answer("St. Louis"), "st louis");
    }
}
