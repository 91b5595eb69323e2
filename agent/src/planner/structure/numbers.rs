//! Numbers in the question: numerals with thousands separators and magnitude words ("1.5
//! million"), and a magnitude read on the data's own scale.

use super::{Against, Reader};
use crate::planner::Word;
use std::collections::{BTreeMap, HashSet};

/// Numbers written in the question, by token: "5,000,000", "1.5", "2015".
pub(super) fn numbers(question: &str, words: &[Word]) -> BTreeMap<usize, f64> {
    numerals(question, words)
        .into_iter()
        .map(|(g, n, factor)| (g, n * factor))
        .collect()
}

/// The numbers a magnitude word multiplied ("200 *million*"): (the product, the numeral).
pub(super) fn magnified(question: &str, words: &[Word]) -> Vec<(f64, f64)> {
    numerals(question, words)
        .into_iter()
        .filter(|(_, _, factor)| *factor != 1.0)
        .map(|(_, n, factor)| (n * factor, n))
        .collect()
}

/// Each numeral (by its whitespace-separated position) with the factor of a magnitude word
/// after it ("1.5 million"), else 1.
fn numerals(question: &str, words: &[Word]) -> Vec<(usize, f64, f64)> {
    let groups: HashSet<usize> = words.iter().map(|w| w.group).collect();
    let raw: Vec<&str> = question.split_whitespace().collect();
    raw.iter()
        .enumerate()
        .filter(|(g, _)| groups.contains(g))
        .filter_map(|(g, raw_word)| {
            let t: String = raw_word
                .trim_matches(|c: char| !c.is_ascii_digit())
                .chars()
                .filter(|c| *c != ',')
                .collect();
            let n = (!t.is_empty() && t.chars().next().is_some_and(|c| c.is_ascii_digit()))
                .then(|| t.parse::<f64>().ok())
                .flatten()?;
            let next = raw
                .get(g + 1)
                .map(|w| w.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase());
            Some((g, n, next.as_deref().and_then(magnitude).unwrap_or(1.0)))
        })
        .collect()
}

/// The factor a number word after a numeral stands for ("2 *million*").
pub(super) fn magnitude(word: &str) -> Option<f64> {
    match word {
        "thousand" => Some(1e3),
        "million" => Some(1e6),
        "billion" => Some(1e9),
        _ => None,
    }
}

impl Reader<'_> {
    /// A number with a magnitude word compared with a property the data writes on another
    /// scale: "cost under 200 *million*" where every sampled cost is below 1,000 (costs kept
    /// in millions) compares with 200, and the answer is not certain (units are not in the
    /// schema). Only when the product is beyond a thousand times the largest sampled value
    /// and the numeral within ten times it.
    pub(super) fn data_scale(&mut self) {
        let mut rescaled = Vec::new();
        for c in &mut self.s.compares {
            let (Some(g), Against::Number(v)) = (c.group, &c.against) else {
                continue;
            };
            let largest = self
                .props
                .get(&self.s.groups[g].label)
                .and_then(|ps| ps.iter().find(|p| p.name == c.property))
                .map_or(0.0, |p| p.largest);
            let numeral = self
                .magnified
                .iter()
                .find(|(product, _)| product == v)
                .map(|(_, n)| *n);
            if let Some(n) = numeral {
                if largest > 0.0 && *v > 1000.0 * largest && n <= 10.0 * largest {
                    c.against = Against::Number(n);
                    rescaled.push(c.at);
                }
            }
        }
        self.s.unsure.extend(rescaled);
    }
}
