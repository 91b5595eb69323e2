//! Compilation: the planner's decision written as an EXPLORE statement and compiled with
//! `cairn_query::prepare`, so `EXPLAIN ASK` prints the canonical form of any statement.

use super::{Entity, Planner, QueryPlan, QuestionType, Step};
use crate::catalog::EngineCatalog;
use crate::AgentError;
use cairn_query::{prepare, Compiled, Plan};

impl<'g> Planner<'g> {
    /// Writes the EXPLORE text for `plan` and compiles it: the reading's own statement where
    /// the language can say it (the executor then runs it exactly), else the path's.
    pub(super) fn compile(&self, plan: &mut QueryPlan) -> Result<(), AgentError> {
        let reading = match (&plan.reading, &plan.conjunct) {
            (Some(r), None) => super::statement::of_reading(r, &plan.question),
            _ => None,
        };
        if let Some(text) = reading {
            match self.prepare(plan, text) {
                Ok(()) => return Ok(()),
                // A name the catalog refuses: the path's statement, as before.
                Err(e) => tracing::debug!(error = %e, "the reading's statement did not compile"),
            }
        }
        let text = self.path_text(plan);
        self.prepare(plan, text)
    }

    /// The statement of the plan's path (or a semantic exploration without one).
    fn path_text(&self, plan: &QueryPlan) -> String {
        let q = str_lit(&plan.question);
        let s = plan.sizes;
        let entries = match &plan.entity {
            Some(e) => entry_keys(e),
            None => format!("SEARCH {q} TOP 5"),
        };
        match (&plan.qtype, &plan.entity) {
            (QuestionType::Attribute, Some(e)) => {
                let n = e.keys.len().max(1);
                format!(
                    "EXPLORE {q}\n  FROM {entries}\n  VIA ANY\n  TARGET {}\n  BEAM 1 DEPTH 1 BUDGET 1\n  UNTIL found {n}\n  RETURN ANSWER LIMIT {n}",
                    ident(&e.label)
                )
            }
            _ if !plan.path.is_empty() => {
                let via: Vec<String> = plan.path.iter().map(Step::to_string).collect();
                let target = plan
                    .target
                    .as_deref()
                    .map(|t| format!("\n  TARGET {}", ident(t)))
                    .unwrap_or_default();
                let meet = match &plan.conjunct {
                    Some((other, path)) => format!(
                        "\n  MEET FROM {} VIA {}",
                        entry_keys(other),
                        path.iter()
                            .map(Step::to_string)
                            .collect::<Vec<_>>()
                            .join(" -> ")
                    ),
                    None => String::new(),
                };
                format!(
                    "EXPLORE {q}\n  FROM {entries}\n  VIA {}{meet}{target}\n  BEAM {} DEPTH {} BUDGET {} FANOUT {}\n  UNTIL found {}\n  {}",
                    via.join(" -> "),
                    s.beam,
                    plan.path.len(),
                    s.budget,
                    s.fanout,
                    s.limit,
                    plan.return_clause()
                )
            }
            _ => {
                // Nothing structured to go on: a semantic exploration around the question.
                let target = plan
                    .target
                    .as_deref()
                    .map(|t| format!("\n  TARGET {}", ident(t)))
                    .unwrap_or_default();
                format!(
                    "EXPLORE {q}\n  FROM {entries}\n  VIA ANY{target}\n  BEAM 16 DEPTH 2 BUDGET {} FANOUT {}\n  UNTIL sufficient >= 0.8 OR stale 2\n  RETURN ANSWER LIMIT 10",
                    s.budget, s.fanout
                )
            }
        }
    }

    /// Compiles `text` into `plan`.
    fn prepare(&self, plan: &mut QueryPlan, text: String) -> Result<(), AgentError> {
        let compiled = prepare(&text, &EngineCatalog(self.graph.catalog()))
            .map_err(|e| AgentError::Plan(e.render_plain(100)))?;
        match compiled {
            Compiled::Explore(p) => {
                plan.plan = p;
                plan.text = text;
                Ok(())
            }
            other => Err(AgentError::Plan(format!(
                "the planner wrote a non-EXPLORE statement: {other}"
            ))),
        }
    }
}

/// A name as EXPLORE writes it (the query printer's rule, so reserved words stay in step).
pub(crate) fn ident(s: &str) -> String {
    cairn_query::printer::name(s).to_string()
}

/// A string literal as EXPLORE writes it, escaped.
pub(crate) fn str_lit(s: &str) -> String {
    cairn_query::printer::str_lit(s).to_string()
}

/// An entity's nodes as `FROM` entries: `Label "key", …`.
pub(super) fn entry_keys(e: &Entity) -> String {
    e.keys
        .iter()
        .map(|k| format!("{} {}", ident(&e.label), str_lit(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A plan that is replaced before anyone reads it (compile fills the real one).
pub(super) fn placeholder_plan() -> Plan {
    Plan {
        goal: String::new(),
        entries: Vec::new(),
        via: cairn_query::ViaPlan {
            mode: cairn_query::ast::ViaMode::Set,
            steps: Vec::new(),
        },
        meet: Vec::new(),
        except: Vec::new(),
        aliases: Vec::new(),
        targets: Vec::new(),
        filters: Vec::new(),
        score: cairn_query::ScoreWeights {
            semantic: 0.5,
            connectivity: 0.3,
            distance: 0.2,
        },
        beam: 1,
        depth: 1,
        depth_fixed: false,
        budget: 1,
        fanout: 1,
        until: cairn_query::StopCondition::Stale(1),
        time_cap: cairn_query::limits::MAX_TIME,
        ret: cairn_query::ast::ReturnKind::Answer,
        limit: 1,
        output: cairn_query::Output::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::paths::tests::mention;

    #[test]
    fn entries_are_written_as_label_and_escaped_key() {
        let mut e = mention((0, 1));
        e.label = "Film".into();
        e.keys = vec!["f1".into(), "say \"hi\"".into()];
        assert_eq!(entry_keys(&e), r#"Film "f1", Film "say \"hi\"""#);
        // A name that is not a plain identifier is quoted the printer's way.
        assert_ne!(ident("has space"), "has space");
        assert_eq!(ident("BORDER"), "BORDER");
    }
}
