//! Words for a schema, derived from its own names, and how question words meet them.
//!
//! Every label, relation and property name is split into words (`DIRECTED_BY`, `plays_in_club`,
//! `__film__cinematographer__film`, `camelCase`) and stemmed with the Snowball English stemmer,
//! so "nationality" meets "nation" and "authors" meets `AUTHORED`. Nothing here is written for
//! one schema: the only word lists are English function words and the wh-words' answer nouns.
//!
//! When WordNet is installed (Debian's `wordnet-base`, read from `CAIRN_WORDNET_DIR` or
//! `/usr/share/wordnet`; `CAIRN_WORDNET=off` turns it off), a question word also meets a schema
//! word through synonyms, one hypernym up and derivations ("wrote" → write → writer ≈ author,
//! "husband" → spouse). docs/BENCHMARKS.md has the figures with and without it.

use cairn_store::{Catalog, Element};
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// English function words: never a relation hint, never linked to a node unless marked.
pub(crate) const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "at", "for", "from", "and", "or", "to", "by", "with", "is",
    "was", "are", "were", "be", "been", "being", "has", "have", "had", "did", "does", "do", "what",
    "which", "who", "whom", "whose", "when", "where", "why", "how", "many", "much", "most", "top",
    "list", "name", "give", "tell", "me", "that", "this", "these", "those", "it", "its", "their",
    "his", "her", "they", "them", "he", "she", "there", "as", "about", "all", "any", "some", "s",
    "into", "than", "then", "also", "can", "could", "would", "will", "under", "over", "out", "up",
    "per", "whom", "whose", "i", "you", "we", "our", "my",
];

/// Whether `word` (lower case) is an English function word.
pub(crate) fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

fn stemmer() -> &'static Stemmer {
    static S: OnceLock<Stemmer> = OnceLock::new();
    S.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// The Snowball English stem of a lower-case word.
pub(crate) fn stem(word: &str) -> String {
    stemmer().stem(&word.to_lowercase()).into_owned()
}

/// The words of a schema name: split at `_`, `-`, `.`, spaces and camelCase, lower-cased.
pub(crate) fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A schema word: its stem and how much it says about the element (the last segment of a
/// Freebase-style `__domain__type__property` name says most).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SchemaWord {
    pub(crate) word: String,
    pub(crate) stem: String,
    pub(crate) weight: f64,
}

/// The words of a relation, label or property name, weighted.
pub(crate) fn schema_words(name: &str) -> Vec<SchemaWord> {
    let segments: Vec<&str> = name.split("__").filter(|s| !s.is_empty()).collect();
    let n = segments.len();
    let mut out: Vec<SchemaWord> = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        // The last segment names the element; earlier ones its domain and type.
        let weight = if i + 1 == n { 1.0 } else { 0.4 };
        for w in name_words(seg) {
            if is_stopword(&w) || w == "inverse" || w.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let stem = stem(&w);
            if let Some(e) = out.iter_mut().find(|e| e.stem == stem) {
                e.weight = e.weight.max(weight);
            } else {
                out.push(SchemaWord {
                    word: w,
                    stem,
                    weight,
                });
            }
        }
    }
    out
}

/// How much a word of an element's description says about it, against its name and aliases
/// (a description also names what the element connects: "the director *of a film*").
const DESCRIPTION_WEIGHT: f64 = 0.5;

/// The words of a schema element: its name's ([`schema_words`]), its aliases' (as much as its
/// name's) and its description's content words (weighted [`DESCRIPTION_WEIGHT`]), from the
/// catalog's annotations (`ANNOTATE …`). One stem appears once, with its highest weight.
pub(crate) fn element_words(catalog: &Catalog, element: Element) -> Vec<SchemaWord> {
    let name = match element {
        Element::Label(id) => catalog.label_name(id),
        Element::Relation(id) => catalog.relation_name(id),
        Element::Property(id) => catalog.prop_name(id),
    };
    let mut out = name.map(schema_words).unwrap_or_default();
    let Some(a) = catalog.annotation(element) else {
        return out;
    };
    let aliases = a
        .aliases
        .iter()
        .flat_map(|al| name_words(al))
        .map(|w| (w, 1.0));
    let described = a
        .description
        .iter()
        .flat_map(|d| name_words(d))
        .map(|w| (w, DESCRIPTION_WEIGHT));
    for (word, weight) in aliases.chain(described) {
        if is_stopword(&word) || word.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let stem = stem(&word);
        match out.iter_mut().find(|e| e.stem == stem) {
            Some(e) => e.weight = e.weight.max(weight),
            None => out.push(SchemaWord { word, stem, weight }),
        }
    }
    out
}

/// English suffixes a stem may be extended by (after the Snowball stemmer's own endings).
const SUFFIXES: &[&str] = &[
    "er", "or", "ion", "on", "at", "ation", "ment", "al", "ic", "ist", "ism", "ian", "iti", "li",
    "ful", "ness", "ship", "ive", "abl", "ibl", "ant", "ent", "enc", "anc", "age", "ur", "hood",
    "ee", "eer", "i", "less", "ous", "iz", "is", "e", "s", "es", "ed", "ing", "en", "y",
];

/// Whether one stem extends the other by an English suffix ("play" / "player"; not "citi" /
/// "citizen" or "river" / "riverside"), both long enough to mean something.
pub(crate) fn prefix_stems(x: &str, y: &str) -> bool {
    let (a, b) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    a.len() >= 4 && b.starts_with(a) && SUFFIXES.contains(&&b[a.len()..])
}

/// How well a question word (lower case, with its stem) names a schema word, in [0, 1].
pub(crate) fn word_match(norm: &str, q_stem: &str, s: &SchemaWord) -> f64 {
    if q_stem == s.stem || norm == s.word {
        return 1.0;
    }
    if prefix_stems(q_stem, &s.stem) {
        return 0.8;
    }
    let (a, b) = if q_stem.len() <= s.stem.len() {
        (q_stem, s.stem.as_str())
    } else {
        (s.stem.as_str(), q_stem)
    };
    // "cite" / "citat(ion)": all but the last letter of the shorter stem shared.
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    if a.len() >= 4 && common + 1 >= a.len() {
        return 0.6;
    }
    match lexicon() {
        // A schema word meets by its dictionary form too ("daughter" is a kind of child, and
        // `children` is the irregular plural of child, which the stemmer keeps apart); a link
        // through a rarer sense a little less (WordNet orders senses by frequency).
        Some(lx) => {
            let rank = [
                lx.relation_rank(norm, &s.stem),
                lx.relation_rank(&s.word, q_stem),
            ]
            .into_iter()
            .flatten()
            .chain(
                lx.irregular_bases(&s.word)
                    .iter()
                    .filter_map(|b| lx.relation_rank(norm, &stem(b))),
            )
            .min();
            match rank {
                Some(r) => 0.7 - 0.02 * r.min(3) as f64,
                // "son" and `children`: kinds of one thing (offspring), a weaker hint.
                None if lx.siblings(norm, &s.word) => 0.5,
                None => 0.0,
            }
        }
        None => 0.0,
    }
}

/// The cosine from which a question phrase's embedding says it names a schema element
/// (calibrated on the QA sets with MiniLM, WordNet off; docs/BENCHMARKS.md has the sweep).
const PHRASE_COSINE_MIN: f32 = 0.5;

/// What a phrase scores at [`PHRASE_COSINE_MIN`] and at cosine 1: a meaning alone counts at
/// most as a WordNet link does, never as the element's own word.
const PHRASE_SCORE: (f64, f64) = (0.5, 0.8);

fn phrase_cosine_min() -> f32 {
    static T: OnceLock<f32> = OnceLock::new();
    *T.get_or_init(|| {
        std::env::var("CAIRN_PHRASE_MIN")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(PHRASE_COSINE_MIN)
    })
}

/// Where a question's phrases by meaning are read beside the words, stems and WordNet links
/// (`CAIRN_MEANING=off|types|fill|full` overrides the default, for measuring).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MeaningUse {
    /// Not at all.
    Off,
    /// For answer types only (labels and properties), and only for a word that meets none of
    /// the kind lexically.
    Types,
    /// As [`MeaningUse::Types`], and for relations too, for a word that meets no relation
    /// lexically: meaning fills in for the lexicon, it does not second-guess it.
    Fill,
    /// For every word: a cosine may raise any weaker lexical match.
    Full,
}

/// How meaning is used: in full without WordNet, where it stands in for it; beside WordNet for
/// answer types only. Measured on PQ-2H with MiniLM and WordNet on: relations by meaning for
/// every word lowered Hits@1 from 93.9% to 90.1%, and even only for the words WordNet does not
/// place, to 93.4%: such a word ("race", "do for a living", "other half") stood for a hop of
/// its own, and the phrase holding it ("parent 's race") lent it the meaning of its placed
/// neighbour, so the hop it named went missing (docs/BENCHMARKS.md).
pub(crate) fn meaning_use() -> MeaningUse {
    static M: OnceLock<Option<MeaningUse>> = OnceLock::new();
    let set = *M.get_or_init(|| match std::env::var("CAIRN_MEANING").ok()?.as_str() {
        "off" | "0" => Some(MeaningUse::Off),
        "types" => Some(MeaningUse::Types),
        "fill" => Some(MeaningUse::Fill),
        "full" | "on" => Some(MeaningUse::Full),
        _ => None,
    });
    set.unwrap_or(if lexicon().is_some() {
        MeaningUse::Types
    } else {
        MeaningUse::Full
    })
}

/// The cosine from which a single question word's embedding says it names a label (an answer
/// type): stricter than a phrase's, since a wrong label drops every path not ending there.
pub(crate) const LABEL_COSINE_MIN: f32 = 0.7;

/// How well a question word names a schema element, from its lexical/WordNet score
/// ([`word_match`] weighted) and, with a semantic embedder, the best cosine between a question
/// phrase holding the word and the element's phrases ([`crate::semantic`]): the one place the
/// two meet. Below the threshold a cosine says nothing; above it, it may raise a weak or
/// missing lexical match, never lower one.
pub(crate) fn combine(lexical: f64, cosine: Option<f32>) -> f64 {
    let min = phrase_cosine_min();
    match cosine {
        Some(c) if c >= min => {
            let t = f64::from((c - min) / (1.0 - min));
            lexical.max(PHRASE_SCORE.0 + t * (PHRASE_SCORE.1 - PHRASE_SCORE.0))
        }
        _ => lexical,
    }
}

/// A WordNet part of speech this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pos {
    Noun,
    Verb,
    Adj,
}

/// Whether a graded adjective compares ("larger") or picks the extreme ("largest").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Grade {
    Comparative,
    Superlative,
}

/// A synset: part of speech and byte offset in its `data.*` file.
type SynsetId = (Pos, usize);

/// A synset's words and its pointers (symbol, target).
type Synset = (Vec<String>, Vec<(String, SynsetId)>);

/// A synset's words and its pointers (symbol, target, source word number or 0).
type SourcedSynset = (Vec<String>, Vec<(String, SynsetId, usize)>);

/// Debian's WordNet files, read whole and searched in place: `index.*` is sorted by lemma, so a
/// lookup is a binary search, and a synset's id is its byte offset in `data.*`. Nothing is
/// parsed up front, so a fresh `cairn ask` pays a few milliseconds, not a full parse.
struct WordNetFiles {
    index: [Vec<u8>; 3],
    data: [Vec<u8>; 3],
}

impl WordNetFiles {
    fn read(dir: &std::path::Path) -> std::io::Result<Self> {
        let r = |f: &str| std::fs::read(dir.join(f));
        Ok(WordNetFiles {
            index: [r("index.noun")?, r("index.verb")?, r("index.adj")?],
            data: [r("data.noun")?, r("data.verb")?, r("data.adj")?],
        })
    }

    fn slot(pos: Pos) -> usize {
        match pos {
            Pos::Noun => 0,
            Pos::Verb => 1,
            Pos::Adj => 2,
        }
    }

    /// The line starting at or after byte `at`.
    fn line_at(buf: &[u8], at: usize) -> (usize, &[u8]) {
        let start = if at == 0 {
            0
        } else {
            match buf[at - 1..].iter().position(|b| *b == b'\n') {
                Some(p) => at + p,
                None => buf.len(),
            }
        };
        let end = buf[start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(buf.len(), |p| start + p);
        (start, &buf[start..end])
    }

    /// Synsets of `lemma` (spaces as `_`), most used sense first.
    fn senses(&self, pos: Pos, lemma: &str) -> Vec<SynsetId> {
        let buf = &self.index[Self::slot(pos)];
        let key = lemma.as_bytes();
        let (mut lo, mut hi) = (0usize, buf.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (start, line) = Self::line_at(buf, mid);
            if start >= hi {
                hi = mid;
                continue;
            }
            let word = line.split(|b| *b == b' ').next().unwrap_or(&[]);
            match word.cmp(key) {
                std::cmp::Ordering::Less => lo = start + line.len() + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let text = String::from_utf8_lossy(line);
                    let f: Vec<&str> = text.split_whitespace().collect();
                    let count: usize = f.get(2).and_then(|c| c.parse().ok()).unwrap_or(0);
                    return f
                        .iter()
                        .rev()
                        .take(count)
                        .rev()
                        .filter_map(|o| o.parse().ok().map(|o| (pos, o)))
                        .collect();
                }
            }
        }
        Vec::new()
    }

    /// The words and pointers (symbol, target) of a synset.
    fn synset(&self, id: SynsetId) -> Option<Synset> {
        let (words, pointers) = self.synset_sourced(id)?;
        Some((
            words,
            pointers.into_iter().map(|(s, t, _)| (s, t)).collect(),
        ))
    }

    /// [`WordNetFiles::synset`], each pointer with the number of the synset's word it is from
    /// (0: the whole synset; a derivation is a lexical pointer, from one word).
    fn synset_sourced(&self, id: SynsetId) -> Option<SourcedSynset> {
        let buf = &self.data[Self::slot(id.0)];
        if id.1 >= buf.len() {
            return None;
        }
        let (_, line) = Self::line_at(buf, id.1);
        let text = String::from_utf8_lossy(line);
        let body = text.split(" | ").next().unwrap_or("");
        let f: Vec<&str> = body.split_whitespace().collect();
        let w_cnt = usize::from_str_radix(f.get(3)?, 16).ok()?;
        let words = (0..w_cnt)
            .filter_map(|i| f.get(4 + 2 * i).map(|w| w.to_lowercase()))
            .collect();
        let at = 4 + 2 * w_cnt;
        let p_cnt: usize = f.get(at)?.parse().ok()?;
        let mut pointers = Vec::new();
        for k in 0..p_cnt {
            let base = at + 1 + 4 * k;
            let (Some(sym), Some(off), Some(pos)) = (f.get(base), f.get(base + 1), f.get(base + 2))
            else {
                break;
            };
            let source = f
                .get(base + 3)
                .and_then(|st| usize::from_str_radix(st.get(..2)?, 16).ok())
                .unwrap_or(0);
            let pos = match *pos {
                "n" => Pos::Noun,
                "v" => Pos::Verb,
                "a" | "s" => Pos::Adj,
                _ => continue,
            };
            if let Ok(o) = off.parse() {
                pointers.push(((*sym).to_owned(), (pos, o), source));
            }
        }
        Some((words, pointers))
    }
}

/// WordNet, when installed: synonyms, one hypernym up and derivations of a word, as stems.
pub(crate) struct Lexicon {
    wn: WordNetFiles,
    /// Irregular forms (`wrote` → `write`) from the `*.exc` files.
    exceptions: HashMap<String, Vec<String>>,
    /// Irregular graded adjectives (`best` → `good`, `worse` → `bad`) from `adj.exc`.
    adjective_exceptions: HashMap<String, Vec<String>>,
    /// Per word: the stems related to it, each with the rank of the word's sense it was
    /// reached through (0: the most used sense).
    cache: Mutex<HashMap<String, HashMap<String, usize>>>,
    ancestors: Mutex<HashMap<String, Arc<HashSet<SynsetId>>>>,
}

/// The process's WordNet lexicon, loaded once; `None` when it is not installed or turned off.
pub(crate) fn lexicon() -> Option<&'static Lexicon> {
    static L: OnceLock<Option<Lexicon>> = OnceLock::new();
    L.get_or_init(Lexicon::load).as_ref()
}

impl Lexicon {
    fn load() -> Option<Lexicon> {
        if std::env::var("CAIRN_WORDNET").is_ok_and(|v| v == "off" || v == "0") {
            return None;
        }
        let dir = std::env::var_os("CAIRN_WORDNET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/share/wordnet"));
        if !dir.join("data.noun").exists() {
            return None;
        }
        let wn = match WordNetFiles::read(&dir) {
            Ok(wn) => wn,
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "WordNet not usable; planning without synonyms");
                return None;
            }
        };
        let mut exceptions: HashMap<String, Vec<String>> = HashMap::new();
        let mut adjective_exceptions: HashMap<String, Vec<String>> = HashMap::new();
        for f in ["noun.exc", "verb.exc", "adj.exc"] {
            let Ok(text) = std::fs::read_to_string(dir.join(f)) else {
                continue;
            };
            let map = if f == "adj.exc" {
                &mut adjective_exceptions
            } else {
                &mut exceptions
            };
            for line in text.lines() {
                let mut parts = line.split_whitespace();
                if let (Some(form), Some(base)) = (parts.next(), parts.next()) {
                    map.entry(form.to_owned())
                        .or_default()
                        .push(base.to_owned());
                }
            }
        }
        Some(Lexicon {
            wn,
            exceptions,
            adjective_exceptions,
            cache: Mutex::new(HashMap::new()),
            ancestors: Mutex::new(HashMap::new()),
        })
    }

    /// Whether `word` is a noun as written or as a plural ("capital", "capitals"; not
    /// "caused", whose base "cause" is a noun too).
    pub(crate) fn is_noun_form(&self, word: &str) -> bool {
        let plural = word
            .strip_suffix("es")
            .into_iter()
            .chain(word.strip_suffix('s'))
            .chain(word.strip_suffix("ies").map(|_| ""))
            .any(|b| b.len() >= 2 && !self.wn.senses(Pos::Noun, b).is_empty());
        !self.wn.senses(Pos::Noun, word).is_empty()
            || plural
            || self
                .irregular_bases(word)
                .iter()
                .any(|b| !self.wn.senses(Pos::Noun, b).is_empty())
    }

    /// Whether `word` is a verb's past participle, regular or not ("founded", "born",
    /// "built").
    pub(crate) fn is_participle(&self, word: &str) -> bool {
        (word.ends_with("ed") && self.verb_base(word))
            || self
                .irregular_bases(word)
                .iter()
                .any(|b| b != word && !self.wn.senses(Pos::Verb, b).is_empty())
    }

    /// Whether a dictionary form of `word` other than itself is a verb.
    fn verb_base(&self, word: &str) -> bool {
        self.lemmas(word)
            .iter()
            .skip(1)
            .any(|l| !self.wn.senses(Pos::Verb, l).is_empty())
    }

    /// Whether `word` is a verb's past or present participle and no noun ("funded",
    /// "recorded"; not "building", which is a noun as well): the form of a clause's verb,
    /// which names a relation, never a label.
    pub(crate) fn is_participle_only(&self, word: &str) -> bool {
        let inflected = word.ends_with("ed") || word.ends_with("ing");
        inflected && !self.is_noun_form(word) && self.verb_base(word)
    }

    /// The nouns an adjective pertains to ("swedish" → sweden; "italian" → italy, italia), in
    /// lower case with spaces: the names a value is written with in data.
    pub(crate) fn pertained_nouns(&self, adjective: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for id in self.wn.senses(Pos::Adj, adjective) {
            let Some((_, pointers)) = self.wn.synset(id) else {
                continue;
            };
            for (sym, target) in pointers {
                if sym != "\\" || target.0 != Pos::Noun {
                    continue;
                }
                if let Some((words, _)) = self.wn.synset(target) {
                    out.extend(words.into_iter().map(|w| w.replace('_', " ")));
                }
            }
        }
        out.dedup();
        out
    }

    /// Whether WordNet knows `word` as an adjective.
    pub(crate) fn is_adjective(&self, word: &str) -> bool {
        !self.wn.senses(Pos::Adj, word).is_empty()
    }

    /// The adjective a graded form comes from and its grade: "largest" → (large, superlative),
    /// "bigger" → (big, comparative), "best" → (good, superlative): English morphology
    /// (`-est`/`-er`, a doubled consonant, `-iest` from `-y`) checked against WordNet's
    /// adjectives, and `adj.exc` for irregular forms.
    pub(crate) fn graded(&self, word: &str) -> Option<(String, Grade)> {
        let (grade, stem) = if let Some(s) = word.strip_suffix("est") {
            (Grade::Superlative, s)
        } else if let Some(s) = word.strip_suffix("er") {
            (Grade::Comparative, s)
        } else {
            // Irregular forms not ending so ("worst", "most", "less").
            let base = self.adjective_exceptions.get(word)?.first()?;
            let grade = if word.ends_with("st") {
                Grade::Superlative
            } else {
                Grade::Comparative
            };
            return Some((base.clone(), grade));
        };
        if let Some(base) = self.adjective_exceptions.get(word).and_then(|b| b.first()) {
            return Some((base.clone(), grade));
        }
        if stem.len() < 2 || self.is_adjective(word) && !self.is_adjective(stem) {
            // "honest", "modest", "upper": adjectives of their own, not grades.
            if !self.is_adjective(&format!("{stem}e")) {
                return None;
            }
        }
        let mut candidates = vec![format!("{stem}e"), stem.to_owned()];
        let b = stem.as_bytes();
        if b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] {
            candidates.push(stem[..stem.len() - 1].to_owned()); // "biggest" → big
        }
        if let Some(s) = stem.strip_suffix('i') {
            candidates.push(format!("{s}y")); // "easiest" → easy
        }
        candidates
            .into_iter()
            .find(|c| c.len() >= 2 && self.is_adjective(c))
            .map(|c| (c, grade))
    }

    /// The nouns an adjective's main senses measure or derive to, each with the rank of the
    /// sense it came from (0: the most used): the attribute it is a value of ("large" → size,
    /// "long" → length, "high" → height) and the first sense's derivations ("dense" →
    /// density, "expensive" → expensiveness), a satellite sense through its head ("big" →
    /// large → size).
    pub(crate) fn attribute_nouns(&self, adjective: &str) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for (sense, id) in self
            .wn
            .senses(Pos::Adj, adjective)
            .into_iter()
            .take(3)
            .enumerate()
        {
            let Some((_, pointers)) = self.wn.synset(id) else {
                continue;
            };
            let heads: Vec<SynsetId> = pointers
                .iter()
                .filter(|(s, t)| s == "&" && t.0 == Pos::Adj)
                .map(|(_, t)| *t)
                .take(1)
                .collect();
            for (h, sid) in std::iter::once(id).chain(heads).enumerate() {
                let Some((words, ptrs)) = self.wn.synset_sourced(sid) else {
                    continue;
                };
                // The adjective's own place in the synset (its derivations are its own).
                let own = words
                    .iter()
                    .position(|w| w.split('(').next() == Some(adjective))
                    .map(|p| p + 1);
                for (sym, t, source) in ptrs {
                    // The attribute of any main sense; the first sense's derivations of the
                    // word itself ("large" → largeness, not big's "bigness" or "grandness").
                    let derived = sym == "+" && sense == 0 && h == 0 && own == Some(source);
                    if (sym == "=" || derived) && t.0 == Pos::Noun {
                        if let Some((words, _)) = self.wn.synset(t) {
                            for w in words {
                                if !w.contains('_') && !out.iter().any(|(x, _)| *x == w) {
                                    out.push((w, sense));
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// How many hypernym steps separate two nouns through their nearest common ancestor (at
    /// most `max` steps in all), `a` by its main senses and `b` by any (a property's name may
    /// be a rarer sense: "area" as a measure is WordNet's sixth): "size" and "area" are both
    /// magnitudes.
    pub(crate) fn hypernym_distance(&self, a: &str, b: &str, max: usize) -> Option<usize> {
        let up = |word: &str, senses: usize| -> HashMap<SynsetId, usize> {
            let mut dist: HashMap<SynsetId, usize> = HashMap::new();
            let mut frontier = self.senses(word, &[Pos::Noun], senses);
            for d in 0..=max {
                let mut next = Vec::new();
                for id in frontier {
                    if dist.contains_key(&id) {
                        continue;
                    }
                    dist.insert(id, d);
                    if let Some((_, pointers)) = self.wn.synset(id) {
                        next.extend(
                            pointers
                                .into_iter()
                                .filter(|(s, _)| s == "@" || s == "@i")
                                .map(|(_, t)| t),
                        );
                    }
                }
                frontier = next;
            }
            dist
        };
        let (da, db) = (up(a, 3), up(b, 8));
        da.iter()
            .filter_map(|(id, x)| db.get(id).map(|y| x + y))
            .filter(|d| *d <= max)
            .min()
    }

    /// The verbs a person noun is the agent of, by WordNet's derivations of its first two
    /// senses ("director" → direct, "actor" → act, "contributor" → contribute); none for a
    /// noun that names no person.
    pub(crate) fn agent_verbs(&self, noun: &str) -> Vec<String> {
        if !self.is_a(noun, "person") {
            return Vec::new();
        }
        let mut out = Vec::new();
        for l in self.lemmas(noun) {
            for id in self.wn.senses(Pos::Noun, &l).into_iter().take(2) {
                let Some((words, pointers)) = self.wn.synset_sourced(id) else {
                    continue;
                };
                // the derivations of the noun itself, not of its synonyms
                let own = words
                    .iter()
                    .position(|w| w.eq_ignore_ascii_case(&l))
                    .map(|p| p + 1);
                for (sym, target, source) in pointers {
                    if sym != "+" || target.0 != Pos::Verb || Some(source) != own {
                        continue;
                    }
                    if let Some((verbs, _)) = self.wn.synset(target) {
                        out.extend(verbs.into_iter().filter(|v| !v.contains('_')));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Whether two nouns name one thing by their main senses: the first noun sense of one is
    /// the first of the other ("movies" and `Film`). Not through a lesser sense: "country"'s
    /// first sense holds "state", whose own first is a condition.
    pub(crate) fn same_main_noun(&self, a: &str, b: &str) -> bool {
        let first = |w: &str| self.senses(w, &[Pos::Noun], 1);
        let b = first(b);
        first(a).iter().any(|s| b.contains(s))
    }

    /// Whether WordNet has `words` as one multi-word noun ("line of business").
    pub(crate) fn is_collocation(&self, words: &[&str]) -> bool {
        words.len() > 1 && !self.wn.senses(Pos::Noun, &words.join("_")).is_empty()
    }

    /// The dictionary forms WordNet lists for an irregular form ("children" → child).
    pub(crate) fn irregular_bases(&self, word: &str) -> &[String] {
        self.exceptions.get(word).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Dictionary forms of a word: itself, its irregular bases, and regular suffixes removed.
    fn lemmas(&self, word: &str) -> Vec<String> {
        let mut out = vec![word.to_owned()];
        if let Some(b) = self.exceptions.get(word) {
            out.extend(b.iter().cloned());
        }
        for (suffix, add) in [
            ("ies", "y"),
            ("es", ""),
            ("s", ""),
            ("ed", ""),
            ("ed", "e"),
            ("ing", ""),
            ("ing", "e"),
        ] {
            if let Some(base) = word.strip_suffix(suffix) {
                if base.len() >= 3 {
                    out.push(format!("{base}{add}"));
                }
            }
        }
        out.dedup();
        out
    }

    /// The most used senses of a word (WordNet orders senses by frequency).
    fn senses(&self, word: &str, pos: &[Pos], per_lemma: usize) -> Vec<SynsetId> {
        let mut out = Vec::new();
        for l in self.lemmas(word) {
            for p in pos {
                out.extend(self.wn.senses(*p, &l).into_iter().take(per_lemma));
            }
        }
        out
    }

    /// Noun synsets one and two hypernyms above a word's main senses.
    fn ancestors(&self, word: &str) -> HashSet<SynsetId> {
        let mut out = HashSet::new();
        for id in self.senses(word, &[Pos::Noun], 3) {
            let Some((_, pointers)) = self.wn.synset(id) else {
                continue;
            };
            for (sym, t) in pointers {
                if sym != "@" {
                    continue;
                }
                out.insert(t);
                if let Some((_, up)) = self.wn.synset(t) {
                    out.extend(up.into_iter().filter(|(s, _)| s == "@").map(|(_, t)| t));
                }
            }
        }
        out
    }

    /// [`Lexicon::ancestors`], computed once per word.
    fn ancestors_cached(&self, word: &str) -> Arc<HashSet<SynsetId>> {
        if let Ok(cache) = self.ancestors.lock() {
            if let Some(r) = cache.get(word) {
                return Arc::clone(r);
            }
        }
        let r = Arc::new(self.ancestors(word));
        if let Ok(mut cache) = self.ancestors.lock() {
            cache.insert(word.to_owned(), Arc::clone(&r));
        }
        r
    }

    /// Whether two nouns share a near hypernym that is specific ("son" and "child" are both
    /// offspring; "man" and "spouse" are only both persons, which says nothing).
    pub(crate) fn siblings(&self, a: &str, b: &str) -> bool {
        let a = self.ancestors_cached(a);
        if a.is_empty() {
            return false;
        }
        let b = self.ancestors_cached(b);
        a.intersection(&b).any(|s| self.depth(*s) >= 6)
    }

    /// How many hypernyms lie between a synset and the top of WordNet's tree (first parents).
    fn depth(&self, mut id: SynsetId) -> usize {
        for d in 0..24 {
            let up = self.wn.synset(id).and_then(|(_, p)| {
                p.into_iter()
                    .find(|(s, _)| s == "@" || s == "@i")
                    .map(|(_, t)| t)
            });
            match up {
                Some(t) => id = t,
                None => return d,
            }
        }
        24
    }

    /// The rank of the sense of `word` through which `stem` is related to it (0: its most used
    /// sense), if it is: WordNet orders senses by frequency, so a link through a rare sense
    /// ("job" and "place", a post) is weaker than one through the main sense ("job" and
    /// "profession").
    pub(crate) fn relation_rank(&self, word: &str, stem: &str) -> Option<usize> {
        if let Ok(cache) = self.cache.lock() {
            if let Some(r) = cache.get(word) {
                return r.get(stem).copied();
            }
        }
        self.related_ranked(word).get(stem).copied()
    }

    /// Stems of the synonyms, hypernyms (two up), derivations and causes of a word's main
    /// senses, each with the rank of the sense it comes from.
    fn related_ranked(&self, word: &str) -> HashMap<String, usize> {
        if let Ok(cache) = self.cache.lock() {
            if let Some(r) = cache.get(word) {
                return r.clone();
            }
        }
        let mut out: HashMap<String, usize> = HashMap::new();
        let add = |words: &[String], rank: usize, out: &mut HashMap<String, usize>| {
            for w in words {
                // One-word lemmas only: "better_half" would meet every "half".
                if !w.contains('_') {
                    let e = out.entry(stem(w)).or_insert(rank);
                    *e = (*e).min(rank);
                }
            }
        };
        for l in self.lemmas(word) {
            for pos in [Pos::Noun, Pos::Verb] {
                for (rank, id) in self.wn.senses(pos, &l).into_iter().take(4).enumerate() {
                    let Some((words, pointers)) = self.wn.synset(id) else {
                        continue;
                    };
                    add(&words, rank, &mut out);
                    for (sym, target) in pointers {
                        if !matches!(sym.as_str(), "@" | "@i" | "+" | ">") {
                            continue;
                        }
                        let Some((w, next)) = self.wn.synset(target) else {
                            continue;
                        };
                        add(&w, rank, &mut out);
                        // Two hypernyms up ("mom" → mother → parent); a cause's derivations
                        // ("kill" causes "die" → death).
                        for (s2, t2) in next {
                            let follow = match sym.as_str() {
                                "@" | "@i" => s2 == "@" || s2 == "@i",
                                ">" => s2 == "+",
                                _ => false,
                            };
                            if follow {
                                if let Some((w2, _)) = self.wn.synset(t2) {
                                    add(&w2, rank, &mut out);
                                }
                            }
                        }
                    }
                }
            }
        }
        out.remove(&stem(word));
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(word.to_owned(), out.clone());
        }
        out
    }

    /// Whether a sense of `word` is a kind of `ancestor` (hypernyms up to 12 levels): "author"
    /// and "player" are persons.
    pub(crate) fn is_a(&self, word: &str, ancestor: &str) -> bool {
        let targets: HashSet<SynsetId> = self
            .wn
            .senses(Pos::Noun, ancestor)
            .into_iter()
            .take(1)
            .collect();
        let mut frontier = self.senses(word, &[Pos::Noun], 3);
        let mut seen = HashSet::new();
        for _ in 0..12 {
            let mut next = Vec::new();
            for id in frontier {
                if targets.contains(&id) {
                    return true;
                }
                if !seen.insert(id) {
                    continue;
                }
                if let Some((_, pointers)) = self.wn.synset(id) {
                    next.extend(
                        pointers
                            .into_iter()
                            .filter(|(s, _)| s == "@" || s == "@i")
                            .map(|(_, t)| t),
                    );
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        false
    }
}

impl std::fmt::Debug for Lexicon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexicon")
            .field("exceptions", &self.exceptions.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_words() {
        assert_eq!(name_words("DIRECTED_BY"), ["directed", "by"]);
        assert_eq!(name_words("plays_in_club"), ["plays", "in", "club"]);
        assert_eq!(
            name_words("__film__cinematographer__film"),
            ["film", "cinematographer", "film"]
        );
        assert_eq!(name_words("placeOfBirth"), ["place", "of", "birth"]);
        let w = schema_words("__film__cinematographer__film");
        assert_eq!(w[0].stem, "film");
        assert_eq!(w[0].weight, 1.0);
        assert_eq!(schema_words("is_in_country")[0].word, "country");
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("nationality"), stem("nation"));
        assert_eq!(stem("authors"), stem("authored"));
        let plays = &schema_words("plays_in_club")[0];
        assert!(word_match("player", &stem("player"), plays) >= 0.8);
    }
}

/// A word of the question: normalised (lower case, letters and digits), stemmed, and whether
/// the asker marked it as a name (underscores, capitals, quotes or brackets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) norm: String,
    pub(crate) stem: String,
    /// Part of a marked mention: `frederica_of_mecklenburg`, `Tigres_UANL`, `"…"`, `[…]`, or
    /// capitalised after the first word.
    pub(crate) marked: bool,
    /// Inside quotes or brackets: a name even if it spells a schema element.
    pub(crate) quoted: bool,
    /// Index of the whitespace-separated token the word came from.
    pub(crate) group: usize,
}
