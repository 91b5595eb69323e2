//! The one-sentence text of a node that agents, LLMs and embedders read.

use crate::catalog::Catalog;
use cairn_storage_format::{NodeRecord, Value};

/// Properties that name a node, in order of preference.
const NAME_PROPS: [&str; 4] = ["name", "title", "label", "text"];

/// The node's display name: its first naming property, else its key.
pub fn display_name(record: &NodeRecord, catalog: &Catalog) -> String {
    NAME_PROPS
        .iter()
        .find_map(|p| {
            catalog
                .prop_id(p)
                .and_then(|id| record.prop(id))
                .and_then(Value::as_str)
        })
        .map(str::to_owned)
        .unwrap_or_else(|| record.key.clone())
}

/// The node's description: the one stored with it, else "`Label`: `name`." built from its label
/// and naming property, so that nodes without a written description still embed meaningfully.
pub fn description(record: &NodeRecord, catalog: &Catalog) -> String {
    if let Some(d) = &record.description {
        return d.clone();
    }
    let label = catalog.label_name(record.label).unwrap_or("Node");
    format!("{label}: {}.", display_name(record, catalog))
}

/// Names of more words than this are not in the name index: no question mention is that long.
pub const NAME_MAX_WORDS: usize = 16;

/// One whitespace-separated token without its trailing punctuation and possessive `'s`, the
/// part of it that names and question words are read from.
pub fn trim_token(raw: &str) -> &str {
    let raw = raw.trim_end_matches(['?', '!', ',', ';', ':', '.', '"', '\'', ')', ']', '”']);
    raw.strip_suffix("'s")
        .or_else(|| raw.strip_suffix("’s"))
        .unwrap_or(raw)
}

/// The normalised words of a trimmed token ([`trim_token`]): lower case, letters, digits and
/// inner hyphens; anything else (`_`, `/`, `&`) separates words. The one normalisation that the
/// name index and the planner's question words share, so a mention meets the name it spells.
pub fn token_words(trimmed: &str) -> Vec<String> {
    let cleaned: String = trimmed
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect();
    cleaned
        .split_whitespace()
        .map(|p| p.trim_matches('-').to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A text as the name index keys it: its normalised words joined by single spaces.
pub fn normalize_name(text: &str) -> String {
    text.split_whitespace()
        .flat_map(|raw| token_words(trim_token(raw)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The node's name as the name index keys it ([`normalize_name`] of its [`display_name`]), or
/// `None` when it has no words or more than [`NAME_MAX_WORDS`].
pub fn index_name(record: &NodeRecord, catalog: &Catalog) -> Option<String> {
    let name = normalize_name(&display_name(record, catalog));
    let words = name.split(' ').count();
    (!name.is_empty() && words <= NAME_MAX_WORDS).then_some(name)
}
