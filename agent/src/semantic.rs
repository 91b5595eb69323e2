//! Phrases matched by meaning, when the database's embedder is semantic
//! ([`Embedder::is_semantic`]): a question phrase ("married to") meets a relation (`spouse`)
//! whose name shares no word, stem or WordNet link with it, by the cosine of their embeddings.
//!
//! Each label, relation and property is embedded once per catalog version (its name's words,
//! each alias and its description, from the catalog's annotations); each question phrase of one
//! to three content words once per question. Relations meet the question's hop words, labels
//! and properties its answer-type words ("how many *movies*" → `Film`). [`crate::vocab::combine`] turns a cosine into a match score beside the lexical
//! one.

use crate::vocab::{is_stopword, name_words, MeaningUse, Word};
use crate::AgentError;
use cairn_embed::{cosine, Embedder};
use cairn_store::{Catalog, Element};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Content words in one question phrase at most.
const MAX_PHRASE_WORDS: usize = 3;

/// The embedded phrases of the labels, relations and properties of one catalog, for one
/// embedder.
#[derive(Debug)]
pub(crate) struct SchemaPhrases {
    embedder: String,
    /// Held, not only compared: while it lives no other catalog can take its address.
    catalog: Arc<Catalog>,
    vectors: HashMap<Element, Vec<Vec<f32>>>,
}

impl SchemaPhrases {
    fn build(embedder: &dyn Embedder, catalog: &Arc<Catalog>) -> Result<Self, AgentError> {
        // A schema has tens of elements, not thousands: one batch, once per catalog version
        // (a fresh `cairn ask` pays for it once).
        let elements = catalog
            .labels()
            .map(|(id, n)| (Element::Label(id), n.to_owned()))
            .chain(
                catalog
                    .relations()
                    .map(|(id, r)| (Element::Relation(id), r.name.clone())),
            )
            .chain(
                catalog
                    .prop_keys()
                    .map(|(id, n)| (Element::Property(id), n.to_owned())),
            );
        let mut texts: Vec<(Element, String)> = Vec::new();
        for (element, name) in elements {
            let words: Vec<String> = name_words(&name)
                .into_iter()
                .filter(|w| w != "inverse")
                .collect();
            if !words.is_empty() {
                texts.push((element, words.join(" ")));
            }
            if let Some(a) = catalog.annotation(element) {
                texts.extend(a.aliases.iter().map(|al| (element, al.clone())));
                texts.extend(a.description.iter().map(|d| (element, d.clone())));
            }
        }
        let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
        let mut vectors: HashMap<Element, Vec<Vec<f32>>> = HashMap::new();
        for ((element, _), v) in texts.iter().zip(embedder.embed_batch(&refs)?) {
            vectors.entry(*element).or_default().push(v);
        }
        Ok(SchemaPhrases {
            embedder: embedder.id().to_owned(),
            catalog: Arc::clone(catalog),
            vectors,
        })
    }

    /// The best cosine between `v` and a phrase of `element`.
    fn similarity(&self, v: &[f32], element: Element) -> f32 {
        self.vectors
            .get(&element)
            .into_iter()
            .flatten()
            .map(|e| cosine(v, e))
            .fold(f32::MIN, f32::max)
    }
}

/// The schema's phrase vectors, computed once and shared by every planner of one database.
///
/// Keyed by the embedder's id and the catalog itself: a commit that changes names or
/// annotations publishes a new catalog (the store's catalog is copy-on-write behind an `Arc`),
/// so the same `Arc` means the same phrases, and one embedder id means comparable vectors.
#[derive(Debug, Default)]
pub struct PhraseCache {
    slot: Mutex<Option<Arc<SchemaPhrases>>>,
}

impl PhraseCache {
    pub fn new() -> Self {
        PhraseCache::default()
    }

    /// The phrase vectors of `catalog` under `embedder`; `None` when the embedder's cosines
    /// carry no meaning.
    pub(crate) fn phrases(
        &self,
        embedder: &dyn Embedder,
        catalog: &Arc<Catalog>,
    ) -> Result<Option<Arc<SchemaPhrases>>, AgentError> {
        if !embedder.is_semantic() {
            return Ok(None);
        }
        let current = |s: &Arc<SchemaPhrases>| {
            s.embedder == embedder.id() && Arc::ptr_eq(&s.catalog, catalog)
        };
        if let Ok(slot) = self.slot.lock() {
            if let Some(s) = slot.as_ref().filter(|s| current(s)) {
                return Ok(Some(Arc::clone(s)));
            }
        }
        // Built outside the lock: two planners racing both embed, the later one is kept.
        let built = Arc::new(SchemaPhrases::build(embedder, catalog)?);
        if let Ok(mut slot) = self.slot.lock() {
            *slot = Some(Arc::clone(&built));
        }
        Ok(Some(built))
    }
}

/// One question's phrases (runs of one to [`MAX_PHRASE_WORDS`] content words, function words
/// inside kept: "place of birth"), embedded in one batch, against the schema's.
#[derive(Debug)]
pub(crate) struct Meaning {
    schema: Arc<SchemaPhrases>,
    /// Word span `[start, end)` and vector of each phrase.
    phrases: Vec<((usize, usize), Vec<f32>)>,
    /// Where meaning is read ([`crate::vocab::meaning_use`]).
    usage: MeaningUse,
}

impl Meaning {
    /// Embeds the phrases of `words` made only of words `free` allows (those no mention took).
    pub(crate) fn new(
        embedder: &dyn Embedder,
        schema: Arc<SchemaPhrases>,
        words: &[Word],
        free: impl Fn(usize) -> bool,
        usage: MeaningUse,
    ) -> Result<Self, AgentError> {
        let content = |i: usize| {
            !is_stopword(&words[i].norm) && !words[i].norm.chars().all(|c| c.is_ascii_digit())
        };
        let mut spans = Vec::new();
        for start in (0..words.len()).filter(|i| free(*i) && content(*i)) {
            let mut n = 0;
            for end in start..words.len() {
                if !free(end) {
                    break;
                }
                if content(end) {
                    n += 1;
                    if n > MAX_PHRASE_WORDS {
                        break;
                    }
                    spans.push((start, end + 1));
                }
            }
        }
        let texts: Vec<String> = spans
            .iter()
            .map(|(s, e)| {
                words[*s..*e]
                    .iter()
                    .map(|w| w.norm.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = if refs.is_empty() {
            Vec::new()
        } else {
            embedder.embed_batch(&refs)?
        };
        Ok(Meaning {
            schema,
            phrases: spans.into_iter().zip(vectors).collect(),
            usage,
        })
    }

    /// Whether meaning is read for a word against a relation (`relation`) or an answer type,
    /// when the word meets an element of that kind lexically (`lexical`) or not.
    pub(crate) fn applies(&self, relation: bool, lexical: bool) -> bool {
        match self.usage {
            MeaningUse::Off => false,
            MeaningUse::Types => !relation && !lexical,
            MeaningUse::Fill => !lexical,
            MeaningUse::Full => true,
        }
    }

    /// The best cosine between a question phrase covering word `at` and a phrase of
    /// `element`, or `None` when no phrase covers the word.
    pub(crate) fn similarity(&self, at: usize, element: Element) -> Option<f32> {
        self.phrases
            .iter()
            .filter(|((s, e), _)| (*s..*e).contains(&at))
            .map(|(_, v)| self.schema.similarity(v, element))
            .reduce(f32::max)
    }

    /// The cosine between word `at` alone and a phrase of `element`: an answer-type noun
    /// ("which *movie*") names a label by itself, and a longer phrase holding it ("movie
    /// directed") would lend it the meaning of its neighbours.
    pub(crate) fn word_similarity(&self, at: usize, element: Element) -> Option<f32> {
        self.phrases
            .iter()
            .find(|((s, e), _)| *s == at && *e == at + 1)
            .map(|(_, v)| self.schema.similarity(v, element))
    }
}
