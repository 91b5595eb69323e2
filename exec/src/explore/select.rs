//! Selections through property indexes: the nodes of a label that pass predicates (`FROM
//! Paper WHERE year >= 2015 AND citations > 100`), and the first k of them in a property's
//! order (`ORDER BY citations DESC LIMIT 10`), read from the index instead of every record.
//!
//! An index orders values by type first (null, bool, int, float, string) and integers apart
//! from decimals, while the language compares numbers by value: a numeric comparison reads the
//! integer and the decimal parts of the index as two ranges, and a numeric top-k merges two
//! cursors.

use super::*;
use crate::value::{cmp_values, number};
use std::ops::Bound;

/// The smallest and largest decimals in the index's order (NaNs of either sign sit at the
/// ends).
const FLOAT_LOW: u64 = u64::MAX;
const FLOAT_HIGH: u64 = 0x7FFF_FFFF_FFFF_FFFF;

type Range = (Bound<Value>, Bound<Value>);

/// Which of a batch of nodes a scan keeps (one flag each).
pub(super) type Keep<'a> = dyn FnMut(&[NodeId]) -> Result<Vec<bool>, ExploreError> + 'a;

/// The index ranges holding every value `v` with `v op want` (a superset is fine: records
/// are checked after), or `None` when the comparison cannot be read from an index (`!=`, a
/// negation, a list, a bool).
fn ranges(op: CmpOp, want: &Value) -> Option<Vec<Range>> {
    use Bound::*;
    let all_ints = || {
        (
            Included(Value::Int(i64::MIN)),
            Included(Value::Int(i64::MAX)),
        )
    };
    let all_floats = || {
        (
            Included(Value::Float(f64::from_bits(FLOAT_LOW))),
            Included(Value::Float(f64::from_bits(FLOAT_HIGH))),
        )
    };
    match want {
        Value::Str(_) => {
            let v = || want.clone();
            Some(vec![match op {
                CmpOp::Eq => (Included(v()), Included(v())),
                CmpOp::Lt => (Included(Value::Str(String::new())), Excluded(v())),
                CmpOp::Le => (Included(Value::Str(String::new())), Included(v())),
                CmpOp::Gt => (Excluded(v()), Unbounded),
                CmpOp::Ge => (Included(v()), Unbounded),
                CmpOp::Ne | CmpOp::In => return None,
            }])
        }
        Value::Int(_) | Value::Float(_) => {
            let x = number(want)?;
            // The integer part: bounds rounded inwards (an integer i with i > 2.5 has i >= 3).
            let int_lo = |strict: bool| {
                let b = if strict { x.floor() + 1.0 } else { x.ceil() };
                if b > i64::MAX as f64 {
                    None
                } else {
                    Some(Included(Value::Int(if b < i64::MIN as f64 {
                        i64::MIN
                    } else {
                        b as i64
                    })))
                }
            };
            let int_hi = |strict: bool| {
                let b = if strict { x.ceil() - 1.0 } else { x.floor() };
                if b < i64::MIN as f64 {
                    None
                } else {
                    Some(Included(Value::Int(if b > i64::MAX as f64 {
                        i64::MAX
                    } else {
                        b as i64
                    })))
                }
            };
            let exact_int = match want {
                Value::Int(i) => Some(*i),
                _ => None,
            };
            let f = Value::Float(x);
            let (ints, floats): (Option<Range>, Range) = match op {
                CmpOp::Eq => (
                    match exact_int {
                        Some(i) => Some((Included(Value::Int(i)), Included(Value::Int(i)))),
                        None if x.fract() == 0.0 && x.abs() < 9.0e18 => Some((
                            Included(Value::Int(x as i64)),
                            Included(Value::Int(x as i64)),
                        )),
                        None => None,
                    },
                    (Included(f.clone()), Included(f)),
                ),
                CmpOp::Lt | CmpOp::Le => {
                    let strict = op == CmpOp::Lt;
                    let hi = match exact_int {
                        Some(i) if strict => i.checked_sub(1).map(|j| Included(Value::Int(j))),
                        Some(i) => Some(Included(Value::Int(i))),
                        None => int_hi(strict),
                    };
                    (
                        hi.map(|h| (all_ints().0, h)),
                        (
                            all_floats().0,
                            if strict { Excluded(f) } else { Included(f) },
                        ),
                    )
                }
                CmpOp::Gt | CmpOp::Ge => {
                    let strict = op == CmpOp::Gt;
                    let lo = match exact_int {
                        Some(i) if strict => i.checked_add(1).map(|j| Included(Value::Int(j))),
                        Some(i) => Some(Included(Value::Int(i))),
                        None => int_lo(strict),
                    };
                    (
                        lo.map(|l| (l, all_ints().1)),
                        (
                            if strict { Excluded(f) } else { Included(f) },
                            all_floats().1,
                        ),
                    )
                }
                CmpOp::Ne | CmpOp::In => return None,
            };
            Some(ints.into_iter().chain([floats]).collect())
        }
        _ => None,
    }
}

/// Whether an index walk can read this predicate.
fn indexable(p: &Filter) -> bool {
    !p.negated
        && p.at.is_none()
        && matches!(&p.value, cairn_query::Operand::Value(v) if ranges(p.op, v).is_some())
}

fn value_of(p: &Filter) -> &Value {
    match &p.value {
        cairn_query::Operand::Value(v) => v,
        // Subqueries are resolved to values before a plan runs.
        cairn_query::Operand::Subquery(_) => &Value::Null,
    }
}

impl Run<'_, '_> {
    /// The nodes of `label` that pass every predicate, in id order: the intersection of the
    /// index ranges of the predicates an index can answer, then the records of what is left
    /// checked against the rest (a label scan when no predicate has an index).
    pub(super) fn select(
        &mut self,
        label: &cairn_query::plan::LabelRef,
        predicates: &[Filter],
    ) -> Result<Vec<NodeId>, ExploreError> {
        let graph = self.ex.graph;
        let mut candidates: Option<Vec<NodeId>> = None;
        for p in predicates {
            if !indexable(p) || !graph.has_index(label.id, p.property.id) {
                continue;
            }
            let mut ids = Vec::new();
            for (lo, hi) in ranges(p.op, value_of(p)).unwrap_or_default() {
                graph.scan_index(
                    label.id,
                    p.property.id,
                    (lo.as_ref(), hi.as_ref()),
                    false,
                    None,
                    &mut |n, _| {
                        ids.push(n);
                        true
                    },
                )?;
            }
            ids.sort_unstable();
            ids.dedup();
            candidates = Some(match candidates {
                None => ids,
                Some(mut c) => {
                    c.retain(|n| ids.binary_search(n).is_ok());
                    c
                }
            });
            if candidates.as_ref().is_some_and(Vec::is_empty) {
                return Ok(Vec::new());
            }
        }
        let checked_by_index =
            |p: &Filter| indexable(p) && graph.has_index(label.id, p.property.id);
        let rest: Vec<&Filter> = predicates.iter().filter(|p| !checked_by_index(p)).collect();
        let ids = match candidates {
            Some(c) if rest.is_empty() => return Ok(c),
            Some(c) => c,
            None => graph.label_nodes(label.id)?,
        };
        let mut out = Vec::new();
        for chunk in ids.chunks(RECORD_CHUNK) {
            for (id, rec) in chunk.iter().zip(graph.nodes(chunk)?) {
                if rec.is_some_and(|r| r.label == label.id && rest.iter().all(|p| passes(p, &r))) {
                    out.push(*id);
                }
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    /// The first nodes of `label` in the order of its property `prop` (`descending`: the
    /// largest first) that `keep` accepts, read from the property index: at least `want` of
    /// them when there are, plus every further one tied with the last (the caller breaks ties
    /// and cuts). `None` when the index cannot answer it: there is no index, its values are not
    /// all numbers or all strings, or fewer than `want` nodes pass (nodes without the property
    /// come after every value, and only a scan finds them).
    pub(super) fn top_by_index(
        &mut self,
        label: LabelId,
        prop: cairn_storage_format::PropKeyId,
        descending: bool,
        want: usize,
        keep: &mut Keep<'_>,
    ) -> Result<Option<Vec<(NodeId, Value)>>, ExploreError> {
        use Bound::*;
        let graph = self.ex.graph;
        if !graph.has_index(label, prop) || want == 0 {
            return Ok(None);
        }
        let ints = (Value::Int(i64::MIN), Value::Int(i64::MAX));
        let floats = (
            Value::Float(f64::from_bits(FLOAT_LOW)),
            Value::Float(f64::from_bits(FLOAT_HIGH)),
        );
        let strings = Value::Str(String::new());
        let nonempty = |lo: Bound<&Value>, hi: Bound<&Value>| -> Result<bool, ExploreError> {
            let mut found = false;
            graph.scan_index(label, prop, (lo, hi), false, None, &mut |_, _| {
                found = true;
                false
            })?;
            Ok(found)
        };
        // The index must hold one kind of value: numbers (integers and decimals), or strings.
        let low_kinds = nonempty(Unbounded, Included(&Value::Bool(true)))?;
        let has_str = nonempty(Included(&strings), Unbounded)?;
        let mut cursors = match (low_kinds, has_str) {
            (false, false) => vec![
                Cursor::new(Included(ints.0), Included(ints.1)),
                Cursor::new(Included(floats.0), Included(floats.1)),
            ],
            (false, true) if !nonempty(Included(&ints.0), Included(&floats.1))? => {
                vec![Cursor::new(Included(strings), Unbounded)]
            }
            _ => return Ok(None),
        };
        let mut out: Vec<(NodeId, Value)> = Vec::new();
        let batch = want.clamp(64, 4096);
        loop {
            for c in &mut cursors {
                c.fill(graph, label, prop, descending, batch)?;
            }
            // The next batch in order, merged across the cursors.
            let mut taken: Vec<(NodeId, Value)> = Vec::with_capacity(batch);
            while taken.len() < batch {
                let mut best: Option<usize> = None;
                for k in 0..cursors.len() {
                    let Some((_, v)) = cursors[k].buf.front() else {
                        continue;
                    };
                    let better = best
                        .and_then(|b| cursors[b].buf.front())
                        .is_none_or(|(_, w)| {
                            let o = cmp_values(v, w).unwrap_or(std::cmp::Ordering::Equal);
                            if descending {
                                o == std::cmp::Ordering::Greater
                            } else {
                                o == std::cmp::Ordering::Less
                            }
                        });
                    if better {
                        best = Some(k);
                    }
                }
                let Some(k) = best else { break };
                if let Some(item) = cursors[k].buf.pop_front() {
                    taken.push(item);
                }
                // A cursor run dry must be refilled before the merge can go on.
                if cursors[k].buf.is_empty() && !cursors[k].done {
                    break;
                }
            }
            if taken.is_empty() {
                // Every cursor is done: fewer passing nodes with the property than wanted.
                return Ok(None);
            }
            let ids: Vec<NodeId> = taken.iter().map(|(n, _)| *n).collect();
            let flags = keep(&ids)?;
            for (item, k) in taken.into_iter().zip(flags) {
                if !k {
                    continue;
                }
                if out.len() >= want {
                    // Past the k-th: only rows tied with it on the value.
                    if cmp_values(&item.1, &out[want - 1].1) != Some(std::cmp::Ordering::Equal) {
                        return Ok(Some(out));
                    }
                }
                out.push(item);
            }
        }
    }
}

/// One ordered walk over a segment of an index, read a batch at a time, each batch resuming
/// after the last entry the previous one read.
struct Cursor {
    lo: Bound<Value>,
    hi: Bound<Value>,
    buf: std::collections::VecDeque<(NodeId, Value)>,
    last: Option<(Value, NodeId)>,
    done: bool,
}

impl Cursor {
    fn new(lo: Bound<Value>, hi: Bound<Value>) -> Cursor {
        Cursor {
            lo,
            hi,
            buf: std::collections::VecDeque::new(),
            last: None,
            done: false,
        }
    }

    fn fill(
        &mut self,
        graph: &Graph,
        label: LabelId,
        prop: cairn_storage_format::PropKeyId,
        descending: bool,
        batch: usize,
    ) -> Result<(), ExploreError> {
        if self.done || !self.buf.is_empty() {
            return Ok(());
        }
        let mut got: Vec<(NodeId, Value)> = Vec::with_capacity(batch);
        graph.scan_index(
            label,
            prop,
            (self.lo.as_ref(), self.hi.as_ref()),
            descending,
            self.last.as_ref().map(|(v, n)| (v, *n)),
            &mut |n, v| {
                got.push((n, v));
                got.len() < batch
            },
        )?;
        if got.len() < batch {
            self.done = true;
        }
        if let Some((n, v)) = got.last() {
            self.last = Some((v.clone(), *n));
        }
        self.buf.extend(got);
        Ok(())
    }
}
