//! How the language compares, orders and aggregates property values (docs/LANGUAGE.md,
//! "Values"): numbers compare by value whether stored as integers or decimals; strings by
//! their bytes; booleans false before true. Across kinds the order is boolean, number, string;
//! a missing property, a null and a list have no place in it (they sort after every value, in
//! either direction, and aggregates skip them).

use cairn_query::ast::{AggFunc, CmpOp};
use cairn_storage_format::Value;
use std::cmp::Ordering;

/// The kind a value orders as, with its rank among kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Bool,
    Number,
    Str,
}

fn kind(v: &Value) -> Option<Kind> {
    match v {
        Value::Bool(_) => Some(Kind::Bool),
        Value::Int(_) | Value::Float(_) => Some(Kind::Number),
        Value::Str(_) => Some(Kind::Str),
        Value::Null | Value::List(_) => None,
    }
}

/// A number's value as a float (integers beyond 2^53 round; equal integers still compare
/// exactly, see [`cmp_values`]).
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

/// The order of two orderable values (`None` when either has no place in the order).
pub fn cmp_values(a: &Value, b: &Value) -> Option<Ordering> {
    let (ka, kb) = (kind(a)?, kind(b)?);
    if ka != kb {
        return Some(ka.cmp(&kb));
    }
    Some(match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => {
            let (x, y) = (number(a)?, number(b)?);
            x.total_cmp(&y)
        }
    })
}

/// Sort order of an optional value for `ORDER BY`: values in the order of [`cmp_values`]
/// (reversed when `descending`), then every missing or unorderable value, in either direction.
pub fn sort_cmp(a: Option<&Value>, b: Option<&Value>, descending: bool) -> Ordering {
    fn ord(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| kind(v).is_some())
    }
    match (ord(a), ord(b)) {
        (Some(x), Some(y)) => {
            let o = cmp_values(x, y).unwrap_or(Ordering::Equal);
            if descending {
                o.reverse()
            } else {
                o
            }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Equality as `=` sees it: numbers by value, lists element by element, the rest as stored.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        _ => match (number(a), number(b)) {
            (Some(_), Some(_)) => cmp_values(a, b) == Some(Ordering::Equal),
            _ => a == b,
        },
    }
}

/// Whether `v op want` holds. Ordering comparisons hold only between values of one kind
/// (numbers with numbers, strings with strings).
pub fn compare(v: &Value, op: CmpOp, want: &Value) -> bool {
    let same_kind = kind(v).is_some() && kind(v) == kind(want);
    let ord = || cmp_values(v, want).filter(|_| same_kind);
    match op {
        CmpOp::Eq => equal(v, want),
        CmpOp::Ne => !equal(v, want),
        CmpOp::In => matches!(want, Value::List(items) if items.iter().any(|w| equal(v, w))),
        CmpOp::Lt => ord() == Some(Ordering::Less),
        CmpOp::Le => matches!(ord(), Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => ord() == Some(Ordering::Greater),
        CmpOp::Ge => matches!(ord(), Some(Ordering::Greater | Ordering::Equal)),
    }
}

/// A running aggregate over the values of one group.
#[derive(Clone, Debug)]
pub struct Accumulator {
    func: AggFunc,
    rows: u64,
    /// Numbers summed (SUM, AVG): an exact integer sum while every value is an integer.
    int_sum: Option<i128>,
    float_sum: f64,
    numbers: u64,
    best: Option<Value>,
}

impl Accumulator {
    pub fn new(func: AggFunc) -> Self {
        Accumulator {
            func,
            rows: 0,
            int_sum: Some(0),
            float_sum: 0.0,
            numbers: 0,
            best: None,
        }
    }

    /// Adds one row, with the aggregated property's value (if the row has one).
    pub fn add(&mut self, v: Option<&Value>) {
        self.rows += 1;
        let Some(v) = v else { return };
        match self.func {
            AggFunc::Count => {}
            AggFunc::Sum | AggFunc::Avg => {
                let Some(x) = number(v) else { return };
                self.numbers += 1;
                self.float_sum += x;
                self.int_sum = match (self.int_sum, v) {
                    (Some(s), Value::Int(i)) => Some(s + i128::from(*i)),
                    _ => None,
                };
            }
            AggFunc::Min | AggFunc::Max => {
                if kind(v).is_none() {
                    return;
                }
                let better = match &self.best {
                    None => true,
                    Some(b) => {
                        let o = cmp_values(v, b).unwrap_or(Ordering::Equal);
                        if self.func == AggFunc::Min {
                            o == Ordering::Less
                        } else {
                            o == Ordering::Greater
                        }
                    }
                };
                if better {
                    self.best = Some(v.clone());
                }
            }
        }
    }

    /// The aggregate's value: `COUNT` the rows; `SUM` an integer while every value was one
    /// (and fits), else a decimal; `AVG` a decimal; `MIN`/`MAX` the value as stored. Null when
    /// no row had a value to aggregate.
    pub fn value(&self) -> Value {
        match self.func {
            AggFunc::Count => Value::Int(i64::try_from(self.rows).unwrap_or(i64::MAX)),
            _ if self.numbers == 0 && matches!(self.func, AggFunc::Sum | AggFunc::Avg) => {
                Value::Null
            }
            AggFunc::Sum => match self.int_sum.and_then(|s| i64::try_from(s).ok()) {
                Some(s) => Value::Int(s),
                None => Value::Float(self.float_sum),
            },
            AggFunc::Avg => Value::Float(match self.int_sum {
                Some(s) => s as f64 / self.numbers as f64,
                None => self.float_sum / self.numbers as f64,
            }),
            AggFunc::Min | AggFunc::Max => self.best.clone().unwrap_or(Value::Null),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_by_value() {
        assert!(compare(&Value::Float(8.5), CmpOp::Ge, &Value::Int(8)));
        assert!(compare(&Value::Int(8), CmpOp::Eq, &Value::Float(8.0)));
        assert!(!compare(&Value::Str("9".into()), CmpOp::Gt, &Value::Int(8)));
        assert!(compare(
            &Value::Int(3),
            CmpOp::In,
            &Value::List(vec![Value::Float(3.0)])
        ));
        assert_eq!(
            cmp_values(&Value::Int(i64::MAX), &Value::Int(i64::MAX - 1)),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn missing_values_sort_last_both_ways() {
        let one = Value::Int(1);
        for desc in [false, true] {
            assert_eq!(sort_cmp(Some(&one), None, desc), Ordering::Less);
            assert_eq!(
                sort_cmp(Some(&Value::Null), Some(&one), desc),
                Ordering::Greater
            );
        }
        assert_eq!(
            sort_cmp(Some(&one), Some(&Value::Int(2)), true),
            Ordering::Greater
        );
    }

    #[test]
    fn aggregates() {
        let mut sum = Accumulator::new(AggFunc::Sum);
        let mut avg = Accumulator::new(AggFunc::Avg);
        let mut max = Accumulator::new(AggFunc::Max);
        for v in [Some(Value::Int(2)), None, Some(Value::Int(5))] {
            sum.add(v.as_ref());
            avg.add(v.as_ref());
            max.add(v.as_ref());
        }
        assert_eq!(sum.value(), Value::Int(7));
        assert_eq!(avg.value(), Value::Float(3.5));
        assert_eq!(max.value(), Value::Int(5));
        let mut empty = Accumulator::new(AggFunc::Min);
        empty.add(None);
        assert_eq!(empty.value(), Value::Null);
        let mut mixed = Accumulator::new(AggFunc::Sum);
        mixed.add(Some(&Value::Int(1)));
        mixed.add(Some(&Value::Float(0.5)));
        assert_eq!(mixed.value(), Value::Float(1.5));
    }
}
