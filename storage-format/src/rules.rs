//! What a value may be: the one rule that import and the language both check before anything
//! is stored (docs/FORMAT.md, "What a value may be").
//!
//! - A **name** (label, relation type, property key) is not empty and holds no control
//!   character (C0, DEL, C1: an escape sequence would reach every terminal that lists the
//!   schema) and no invisible formatting character — the bidirectional controls U+202A–U+202E
//!   and U+2066–U+2069, the marks U+200E/U+200F/U+061C, zero-width characters U+200B–U+200D,
//!   U+2060–U+2064, U+FEFF, and the rest of Unicode's format category: two names that look
//!   alike must be alike, and a name must not reorder the text around it.
//! - A **number** is finite: NaN compares with nothing (`WHERE f > 0.0` matched a NaN node,
//!   whose index key sorts above every number), and infinities come from overflow (`1e999`).
//! - An **edge weight** is a finite number from 0 to `f32::MAX` (edges store an `f32`).
//! - A **vector** component is finite.

use crate::Value;
use std::fmt;

/// Why a name, number or weight is refused.
#[derive(Clone, Debug, PartialEq)]
pub enum RuleError {
    /// An empty name.
    EmptyName,
    /// A control character (C0, DEL, C1).
    ControlChar(char),
    /// An invisible formatting character (bidi control, zero-width, …).
    InvisibleChar(char),
    /// NaN or an infinity.
    NotFinite(f64),
    /// A negative edge weight.
    NegativeWeight(f64),
    /// An edge weight beyond `f32::MAX`.
    WeightTooLarge(f64),
}

/// A number as a message shows it: exponent notation when long.
struct Num(f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_finite() && (self.0.abs() >= 1e15 || (self.0 != 0.0 && self.0.abs() < 1e-6)) {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleError::EmptyName => write!(f, "is empty"),
            RuleError::ControlChar(c) => {
                write!(f, "contains the control character U+{:04X}", *c as u32)
            }
            RuleError::InvisibleChar(c) => write!(
                f,
                "contains the invisible formatting character U+{:04X} (bidirectional control or zero-width)",
                *c as u32
            ),
            RuleError::NotFinite(x) => write!(f, "is {}, not a finite number", Num(*x)),
            RuleError::NegativeWeight(x) => {
                write!(f, "is {}: weights are not negative", Num(*x))
            }
            RuleError::WeightTooLarge(x) => {
                write!(f, "is {}: weights are at most {:e}", Num(*x), f32::MAX)
            }
        }
    }
}

impl std::error::Error for RuleError {}

/// Whether `c` is a control character a terminal would act on: C0 (U+0000–U+001F), DEL
/// (U+007F) or C1 (U+0080–U+009F).
pub fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// Whether `c` is an invisible formatting character (Unicode's general category Cf): the
/// bidirectional embeddings, overrides, isolates and marks that reorder text on a terminal
/// ("trojan source"), zero-width characters, the byte-order mark, and the other format
/// characters that show nothing.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// A label, relation type or property key (see the module documentation).
pub fn check_name(name: &str) -> Result<(), RuleError> {
    if name.is_empty() {
        return Err(RuleError::EmptyName);
    }
    for c in name.chars() {
        if is_control(c) {
            return Err(RuleError::ControlChar(c));
        }
        if is_invisible(c) {
            return Err(RuleError::InvisibleChar(c));
        }
    }
    Ok(())
}

/// A number a property or a vector may hold: finite.
pub fn check_number(x: f64) -> Result<(), RuleError> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(RuleError::NotFinite(x))
    }
}

/// A property value: every number in it finite (lists included).
pub fn check_value(v: &Value) -> Result<(), RuleError> {
    match v {
        Value::Float(x) => check_number(*x),
        Value::List(items) => items.iter().try_for_each(check_value),
        _ => Ok(()),
    }
}

/// An edge weight as stored: finite, not negative, within `f32`.
pub fn edge_weight(w: f64) -> Result<f32, RuleError> {
    check_number(w)?;
    if w < 0.0 {
        return Err(RuleError::NegativeWeight(w));
    }
    if w > f64::from(f32::MAX) {
        return Err(RuleError::WeightTooLarge(w));
    }
    #[allow(clippy::cast_possible_truncation)] // within f32's range, checked above
    Ok(w as f32)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_rule() {
        assert_eq!(check_name("Author"), Ok(()));
        assert_eq!(check_name("Zoë_著者 2"), Ok(()));
        assert_eq!(check_name(""), Err(RuleError::EmptyName));
        assert_eq!(
            check_name("A\u{1b}[2J"),
            Err(RuleError::ControlChar('\u{1b}'))
        );
        assert_eq!(check_name("A\u{9b}"), Err(RuleError::ControlChar('\u{9b}')));
        for c in [
            '\u{202e}', '\u{2066}', '\u{2069}', '\u{200b}', '\u{200d}', '\u{feff}',
        ] {
            assert_eq!(
                check_name(&format!("Au{c}thor")),
                Err(RuleError::InvisibleChar(c))
            );
        }
        assert!(check_value(&Value::Float(f64::NAN)).is_err());
        assert!(check_value(&Value::List(vec![Value::Float(f64::INFINITY)])).is_err());
        assert!(check_value(&Value::Float(-1e300)).is_ok());
        assert_eq!(edge_weight(0.5), Ok(0.5));
        assert_eq!(edge_weight(0.0), Ok(0.0));
        assert!(matches!(
            edge_weight(-3.0),
            Err(RuleError::NegativeWeight(_))
        ));
        assert!(matches!(
            edge_weight(1e39),
            Err(RuleError::WeightTooLarge(_))
        ));
        assert!(matches!(
            edge_weight(f64::NAN),
            Err(RuleError::NotFinite(_))
        ));
        let msg = check_name("A\u{202e}").unwrap_err().to_string();
        assert!(msg.contains("U+202E"), "{msg}");
    }
}
