//! Subqueries run before the plan that holds them: an entry subquery (`FROM (EXPLORE …)`)
//! becomes the nodes it returns, a value subquery (`WHERE p > (EXPLORE … RETURN MAX(q))`) the
//! one value it returns (null when it has no row), so the plan then runs as if they had been
//! written out.

use super::*;
use cairn_query::{MeetPlan, Operand};

impl Explorer<'_> {
    /// `plan` with every subquery replaced by what it returns; `None` when it has none.
    pub(super) fn resolve(
        &self,
        plan: &Plan,
        cancel: &CancelToken,
    ) -> Result<Option<Plan>, ExploreError> {
        if !has_subquery(plan) {
            return Ok(None);
        }
        let mut out = plan.clone();
        out.entries = self.resolve_entries(&plan.entries, cancel)?;
        out.filters = self.resolve_filters(&plan.filters, cancel)?;
        for sides in [&mut out.meet, &mut out.except] {
            for side in sides.iter_mut() {
                side.entries = self.resolve_entries(&side.entries, cancel)?;
            }
        }
        Ok(Some(out))
    }

    fn resolve_entries(
        &self,
        entries: &[EntryPlan],
        cancel: &CancelToken,
    ) -> Result<Vec<EntryPlan>, ExploreError> {
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            match e {
                EntryPlan::Subquery(p) => {
                    let found = self.run(p, false, cancel)?;
                    out.extend(found.results.iter().map(|r| EntryPlan::Node(r.node)));
                }
                EntryPlan::Match { label, predicates } => out.push(EntryPlan::Match {
                    label: label.clone(),
                    predicates: self.resolve_filters(predicates, cancel)?,
                }),
                other => out.push(other.clone()),
            }
        }
        Ok(out)
    }

    fn resolve_filters(
        &self,
        filters: &[Filter],
        cancel: &CancelToken,
    ) -> Result<Vec<Filter>, ExploreError> {
        filters
            .iter()
            .map(|f| {
                let Operand::Subquery(p) = &f.value else {
                    return Ok(f.clone());
                };
                let found = self.run(p, false, cancel)?;
                let value = match (found.count, found.rows.first()) {
                    (Some(n), _) => Value::Int(i64::try_from(n).unwrap_or(i64::MAX)),
                    (None, Some(row)) => row.values.first().cloned().unwrap_or(Value::Null),
                    (None, None) => Value::Null,
                };
                Ok(Filter {
                    value: Operand::Value(value),
                    ..f.clone()
                })
            })
            .collect()
    }
}

/// Whether any entry or filter of `plan` (or of its sides) is a subquery.
fn has_subquery(plan: &Plan) -> bool {
    let entry = |e: &EntryPlan| match e {
        EntryPlan::Subquery(_) => true,
        EntryPlan::Match { predicates, .. } => predicates.iter().any(filter),
        _ => false,
    };
    fn filter(f: &Filter) -> bool {
        matches!(f.value, Operand::Subquery(_))
    }
    let side = |s: &MeetPlan| s.entries.iter().any(entry);
    plan.entries.iter().any(entry)
        || plan.filters.iter().any(filter)
        || plan.meet.iter().chain(&plan.except).any(side)
}
