//! The one-sentence text of a node that agents, LLMs and embedders read.

use crate::catalog::Catalog;
use cairn_storage_format::{NodeRecord, Value};

/// Properties that name a node, in order of preference.
const NAME_PROPS: [&str; 4] = ["name", "title", "label", "text"];

/// The node's display name: its first naming property, else its key.
pub fn display_name(record: &NodeRecord, catalog: &Catalog) -> String {
    display_name_str(record, catalog).to_owned()
}

/// [`display_name`] borrowed from the record.
fn display_name_str<'r>(record: &'r NodeRecord, catalog: &Catalog) -> &'r str {
    NAME_PROPS
        .iter()
        .find_map(|p| {
            catalog
                .prop_id(p)
                .and_then(|id| record.prop(id))
                .and_then(Value::as_str)
        })
        .unwrap_or(&record.key)
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
    let mut words = Vec::new();
    each_token_word(trimmed, &mut String::new(), |w| words.push(w.to_owned()));
    words
}

/// Calls `f` with each of [`token_words`]' words in turn, lower-cased in `buf`: the import
/// normalises a name per node, and a `String` per word made that a tenth of a 1M import's CPU.
fn each_token_word(trimmed: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    // For ASCII, `to_lowercase` is the ASCII one: lower-casing char by char was a tenth of a
    // 5M-node import's write phase.
    let ascii = trimmed.is_ascii();
    for piece in trimmed.split(|c: char| !(c.is_alphanumeric() || c == '-')) {
        buf.clear();
        if ascii {
            buf.push_str(piece);
            buf.make_ascii_lowercase();
        } else {
            buf.extend(piece.chars().map(|c| c.to_lowercase().next().unwrap_or(c)));
        }
        let word = buf.trim_matches('-');
        if !word.is_empty() {
            f(word);
        }
    }
}

/// A text as the name index keys it: its normalised words joined by single spaces.
pub fn normalize_name(text: &str) -> String {
    let (mut out, mut buf) = (String::with_capacity(text.len()), String::new());
    for raw in text.split_whitespace() {
        each_token_word(trim_token(raw), &mut buf, |w| {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        });
    }
    out
}

/// The node's name as the name index keys it ([`normalize_name`] of its [`display_name`]), or
/// `None` when it has no words or more than [`NAME_MAX_WORDS`].
pub fn index_name(record: &NodeRecord, catalog: &Catalog) -> Option<String> {
    let name = normalize_name(display_name_str(record, catalog));
    let words = name.split(' ').count();
    (!name.is_empty() && words <= NAME_MAX_WORDS).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::{normalize_name, token_words};

    /// ASCII text lower-cased as bytes gives what lower-casing each char gives, over every
    /// printable ASCII byte in many mixes.
    #[test]
    fn ascii_words_are_the_unicode_words() {
        let alphabet: Vec<char> = (0x20u8..0x7f).map(char::from).collect();
        let mut seed = 11u64;
        for _ in 0..5000 {
            let text: String = (0..(seed % 24))
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    alphabet[(seed >> 33) as usize % alphabet.len()]
                })
                .collect();
            let mut fast = Vec::new();
            super::each_token_word(&text, &mut String::new(), |w| fast.push(w.to_owned()));
            let general: Vec<String> = text
                .split(|c: char| !(c.is_alphanumeric() || c == '-'))
                .map(|p| p.chars().flat_map(char::to_lowercase).collect::<String>())
                .map(|w| w.trim_matches('-').to_owned())
                .filter(|w| !w.is_empty())
                .collect();
            assert_eq!(fast, general, "{text:?}");
        }
    }

    #[test]
    fn names_normalise_to_lower_case_words_split_at_anything_but_letters_digits_and_hyphens() {
        assert_eq!(
            normalize_name("  The  Ünïcode_Name--x, O'Neil's a/b&c -lead- İstanbul 2014? "),
            "the ünïcode name--x o neil a b c lead istanbul 2014"
        );
        assert_eq!(normalize_name("?!, --- _"), "");
        assert_eq!(
            token_words("__film__cinematographer__film"),
            ["film", "cinematographer", "film"]
        );
        assert_eq!(token_words("plays_in-club-"), ["plays", "in-club"]);
    }
}
