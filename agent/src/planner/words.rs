//! Question words: tokens, kinship generations, WordNet collocations and how one word meets a
//! schema element.

use super::Word;
use crate::vocab::{self, is_stopword, lexicon, word_match, SchemaWord};
use cairn_store::describe::{self};

/// Splits on whitespace; drops possessive `'s`; keeps letters, digits and inner hyphens; `_`
/// separates words of one token.
pub(super) fn tokenize(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut quoted = false;
    for (group, raw) in text.split_whitespace().enumerate() {
        let opens = raw.starts_with(['"', '[', '(', '“']);
        let inside = quoted || opens;
        let quotes = raw.matches('"').count();
        if quotes % 2 == 1 {
            quoted = !quoted;
        }
        if raw.ends_with([']', '”']) {
            quoted = false;
        }
        let raw = describe::trim_token(raw);
        let marked =
            inside || raw.contains('_') || (group > 0 && raw.chars().any(char::is_uppercase));
        for norm in describe::token_words(raw) {
            out.push(Word {
                stem: stem(&norm),
                norm,
                marked,
                quoted: inside,
                group,
            });
        }
    }
    out
}

/// The words of a question: [`tokenize`]'s, with a kinship word of several generations read as
/// its one-generation word once per generation ("granddaughter" → daughter daughter,
/// "great-grandson" → son son son), so each generation is a hop of its own. The two words share
/// the token, so they name two hops, not one. English morphology checked against WordNet (the
/// rest must be a kind of person), not a list of words.
pub(super) fn question_words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for w in tokenize(text) {
        match generations(&w.norm).filter(|_| !w.marked) {
            Some((base, n)) => out.extend((0..n).map(|_| Word {
                stem: stem(&base),
                norm: base.clone(),
                ..w.clone()
            })),
            None => out.push(w),
        }
    }
    join_collocations(&mut out);
    out
}

/// "line of business" is one noun to WordNet: its words become neighbouring tokens (the
/// function word joins the first), so both may name the same hop, as adjacent words do.
pub(super) fn join_collocations(words: &mut [Word]) {
    let Some(lx) = lexicon() else { return };
    let mut i = 0;
    while i + 2 < words.len() {
        let (a, of, b) = (&words[i], &words[i + 1], &words[i + 2]);
        let separate = a.group + 1 == of.group && of.group + 1 == b.group;
        let plain = !(a.marked || of.marked || b.marked);
        if separate
            && plain
            && is_stopword(&of.norm)
            && !is_stopword(&a.norm)
            && !is_stopword(&b.norm)
            && lx.is_collocation(&[&a.norm, &of.norm, &b.norm])
        {
            let g = a.group;
            words[i + 1].group = g;
            for w in &mut words[i + 2..] {
                w.group -= 1;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
}

/// "grandson" → ("son", 2), "great-grandmother" → ("mother", 3); `None` for any other word.
pub(super) fn generations(norm: &str) -> Option<(String, usize)> {
    let mut rest = norm;
    let mut n = 1;
    while let Some(r) = rest.strip_prefix("great") {
        rest = r.trim_start_matches('-');
        n += 1;
    }
    let base = rest.strip_prefix("grand")?.trim_start_matches('-');
    let person = base.len() >= 3 && lexicon().is_some_and(|lx| lx.is_a(base, "person"));
    person.then(|| (base.to_owned(), n + 1))
}

/// The stem of a question word (Snowball English; a hyphenated word by its last part, so
/// "co-authors" meets `AUTHORED`).
pub(super) fn stem(word: &str) -> String {
    vocab::stem(word.rsplit('-').next().unwrap_or(word))
}

/// How well a question word names a schema element (the best of its words, weighted).
pub(super) fn element_match(w: &Word, element: &[SchemaWord]) -> f64 {
    element
        .iter()
        .map(|s| word_match(&w.norm, &w.stem, s) * s.weight)
        .fold(0.0, f64::max)
}

/// The best-matching schema word of an element for a question word: (score, word index).
pub(super) fn best_word_match(w: &Word, element: &[SchemaWord]) -> (f64, usize) {
    element
        .iter()
        .enumerate()
        .map(|(i, s)| (word_match(&w.norm, &w.stem, s) * s.weight, i))
        .fold((0.0, 0), |b, x| if x.0 > b.0 { x } else { b })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norms(words: &[Word]) -> Vec<&str> {
        words.iter().map(|w| w.norm.as_str()).collect()
    }

    #[test]
    fn tokens_keep_marks_quotes_and_groups() {
        let w = tokenize(r#"who directed "Blue Harbor" with Tigres_UANL ?"#);
        assert_eq!(
            norms(&w),
            ["who", "directed", "blue", "harbor", "with", "tigres", "uanl"]
        );
        // Quoted words are marked and quoted; an underscored token is marked, one group.
        assert!(w[2].quoted && w[2].marked && w[3].quoted);
        assert!(!w[4].marked && !w[4].quoted);
        assert!(w[5].marked && !w[5].quoted && w[5].group == w[6].group);
        // The first word is not marked by its capital.
        assert!(!tokenize("Who wrote it")[0].marked);
        assert!(tokenize("who knows Ada")[2].marked);
    }

    #[test]
    fn possessives_drop_and_hyphenated_words_stem_by_their_last_part() {
        let w = tokenize("X 's co-authors");
        assert_eq!(norms(&w), ["x", "co-authors"]);
        assert_eq!(w[1].stem, vocab::stem("authors"));
    }

    #[test]
    fn kinship_generations_are_one_hop_each_when_wordnet_is_there() {
        let w = question_words("who is the granddaughter of X");
        if lexicon().is_none() {
            return; // WordNet not installed: the word stays as it is.
        }
        let kin: Vec<&Word> = w.iter().filter(|x| x.norm == "daughter").collect();
        assert_eq!(kin.len(), 2, "{:?}", norms(&w));
        assert_eq!(kin[0].group, kin[1].group);
        // Not a person-like base: no split.
        assert_eq!(generations("grandstand"), None);
    }

    #[test]
    fn a_word_meets_an_element_by_its_best_weighted_word() {
        let element = vocab::schema_words("__film__film__director");
        let directed = &tokenize("directed")[0];
        assert!(element_match(directed, &element) >= 0.8);
        let (score, at) = best_word_match(directed, &element);
        assert_eq!(element[at].word, "director");
        assert!(score > 0.0);
        let banana = &tokenize("banana")[0];
        assert_eq!(element_match(banana, &element), 0.0);
    }
}
