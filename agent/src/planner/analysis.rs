//! Question analysis: the question type, the answer type (a label noun), the property an
//! attribute question asks for and what an aggregate ranks by, read from the words outside the
//! mentions; and the LLM's classification where one is configured.

use super::paths::in_wh_phrase;
use super::structure::{LabelProps, PropInfo};
use super::words::element_match;
use super::{Aggregate, Entity, Planner, QuestionType, Word};
use crate::llm::{data_block, json_object, LlmBackend, Message, DATA_RULE};
use crate::semantic::Meaning;
use crate::vocab::{self, is_stopword, lexicon, schema_words, SchemaWord};
use crate::AgentError;
use cairn_storage_format::NodeId;
use cairn_store::{Catalog, Element, GraphRead};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Nodes of each label read for its properties (the first by key).
const LABEL_SAMPLE: usize = 64;
/// Text values longer than this are no condition's value (names, descriptions).
const VALUE_MAX_BYTES: usize = 64;
/// Distinct text values kept per property of the sample.
const VALUES_PER_PROPERTY: usize = 256;

impl<'g> Planner<'g> {
    pub(super) fn analyse(
        &self,
        free: &[(usize, &Word)],
        words: &[Word],
        entity: Option<&Entity>,
        catalog: &Catalog,
        meaning: Option<&Meaning>,
    ) -> Result<Analysis, AgentError> {
        let has = |w: &str| free.iter().any(|(_, x)| x.norm == w);
        let phrase = |a: &str, b: &str| {
            free.windows(2)
                .any(|p| p[0].1.norm == a && p[1].1.norm == b && p[1].0 == p[0].0 + 1)
        };
        let own_label = entity.map(|e| e.label.as_str());
        // Label nouns outside the mention; the first one is the question's focus.
        let label_at = |i: usize| label_of(&words[i], i, catalog, meaning);
        // A word that names a relation whose objects carry the label it names ("children" with
        // labels inferred from relations) names a hop, not the answer type.
        let hop_label = |i: usize, label: &str| {
            let Some(l) = catalog.label_id(label) else {
                return false;
            };
            catalog.relations().any(|(_, r)| {
                r.endpoints.iter().any(|(_, d)| *d == l)
                    && element_match(&words[i], &schema_words(&r.name)) >= 0.8
            })
        };
        let nouns: Vec<(usize, String)> = free
            .iter()
            .filter_map(|(i, _)| label_at(*i).map(|l| (*i, l)))
            // … unless it is the wh-phrase's noun ("which *topic*", "what *topics*").
            .filter(|(i, l)| in_wh_phrase(words, *i) || !hop_label(*i, l))
            .collect();
        let mut a = Analysis::default();

        let count = phrase("how", "many") || phrase("number", "of") || has("count");
        let superlative =
            has("most") || has("top") || has("highest") || has("largest") || has("best");
        // Properties the entity's nodes (or the focus label's nodes) have.
        let entity_props = match entity {
            Some(e) => self.props_of(e.nodes.first().copied(), catalog)?,
            None => Vec::new(),
        };
        let property_cue = property_cue(free, &entity_props, catalog, meaning);

        if count {
            // "how many <noun>": the noun right after names what is counted.
            let after = free
                .iter()
                .position(|(_, w)| w.norm == "many" || w.norm == "of")
                .map(|p| p + 1)
                .unwrap_or(0);
            let counted = free
                .iter()
                .skip(after)
                .take(3)
                .find_map(|(i, _)| label_at(*i));
            if let Some(t) = counted {
                a.qtype = Some(QuestionType::Aggregation);
                a.aggregate = Some(Aggregate::Count);
                a.target = Some(t);
                return Ok(a);
            }
        }
        if superlative {
            if let Some((_, t)) = nouns.first() {
                // Only numbers rank ("the most populated": not by a name's text).
                let target_props = self.numeric_props_of(self.any_node(t, catalog)?, catalog)?;
                let by = ranking_property(free, &target_props);
                if let Some((_, consumed)) = &by {
                    a.consumed.extend(consumed.iter().copied());
                }
                a.qtype = Some(QuestionType::Aggregation);
                a.aggregate = Some(Aggregate::Top {
                    k: top_k(free).unwrap_or(1),
                    by: by.map(|(p, _)| p),
                });
                a.target = Some(t.clone());
                return Ok(a);
            }
        }
        if let Some(prop) = property_cue {
            if nouns.iter().all(|(_, l)| Some(l.as_str()) == own_label) {
                a.qtype = Some(QuestionType::Attribute);
                a.attribute = Some(prop);
                a.target = own_label.map(str::to_owned);
                return Ok(a);
            }
        }
        // The answer type is the noun farthest along the chain: the first word before the
        // mention ("the *nationality* of X 's children", "*who* wrote …"), else the last after
        // it ("X 's children 's *nationality*").
        let mention = entity.map(|e| e.span.0).unwrap_or(usize::MAX);
        a.target = nouns
            .iter()
            .filter(|(i, _)| *i < mention)
            .min_by_key(|(i, _)| *i)
            .or_else(|| nouns.iter().max_by_key(|(i, _)| *i))
            .map(|(_, l)| l.clone());
        Ok(a)
    }

    /// The properties each label's nodes carry, read from the first nodes of each label by key
    /// (so that the answer does not depend on import order), each marked numeric when most of
    /// the values seen are numbers.
    pub(super) fn label_props(&self, catalog: &Catalog) -> Result<LabelProps, AgentError> {
        let mut out = LabelProps::new();
        for (l, name) in catalog.labels() {
            let ids = self.graph.label_nodes_first(l, LABEL_SAMPLE)?;
            let mut seen: BTreeMap<String, (usize, usize, BTreeSet<String>, bool, f64)> =
                BTreeMap::new();
            for rec in self.graph.nodes(&ids)?.into_iter().flatten() {
                for (k, v) in &rec.props {
                    let Some(p) = catalog.prop_name(*k) else {
                        continue;
                    };
                    let e = seen
                        .entry(p.to_owned())
                        .or_insert_with(|| (0, 0, BTreeSet::new(), true, 0.0));
                    e.0 += 1;
                    if let Some(n) = crate::reading::numeric(v) {
                        e.1 += 1;
                        e.3 &= n.fract() == 0.0 && (1000.0..=2100.0).contains(&n);
                        e.4 = f64::max(e.4, n.abs());
                    }
                    if let cairn_storage_format::Value::Str(t) = v {
                        if t.len() <= VALUE_MAX_BYTES && e.2.len() < VALUES_PER_PROPERTY {
                            e.2.insert(t.clone());
                        }
                    }
                }
            }
            out.insert(
                name.to_owned(),
                seen.into_iter()
                    .map(|(name, (n, numbers, values, years, largest))| PropInfo {
                        name,
                        numeric: numbers * 2 > n,
                        years: years && numbers > 0,
                        largest,
                        values: values
                            .into_iter()
                            .map(|v| (super::normalize(&v), v))
                            .filter(|(norm, _)| !norm.is_empty() && norm.split(' ').count() <= 3)
                            .collect(),
                    })
                    .collect(),
            );
        }
        Ok(out)
    }

    /// Property names set on `node`.
    pub(super) fn props_of(
        &self,
        node: Option<NodeId>,
        catalog: &Catalog,
    ) -> Result<Vec<String>, AgentError> {
        self.props_where(node, catalog, |_| true)
    }

    /// Property names set on `node` whose values there are numbers.
    fn numeric_props_of(
        &self,
        node: Option<NodeId>,
        catalog: &Catalog,
    ) -> Result<Vec<String>, AgentError> {
        self.props_where(node, catalog, |v| crate::reading::numeric(v).is_some())
    }

    fn props_where(
        &self,
        node: Option<NodeId>,
        catalog: &Catalog,
        keep: impl Fn(&cairn_storage_format::Value) -> bool,
    ) -> Result<Vec<String>, AgentError> {
        let Some(node) = node else {
            return Ok(Vec::new());
        };
        Ok(self
            .graph
            .node(node)?
            .map(|r| {
                r.props
                    .iter()
                    .filter(|(_, v)| keep(v))
                    .filter_map(|(k, _)| catalog.prop_name(*k).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    pub(super) fn any_node(
        &self,
        label: &str,
        catalog: &Catalog,
    ) -> Result<Option<NodeId>, AgentError> {
        let Some(l) = catalog.label_id(label) else {
            return Ok(None);
        };
        // The first named node of the label, read a few at a time (usually the first one).
        let mut limit = 16;
        loop {
            let ids = self.graph.label_nodes_first(l, limit)?;
            let named = self.named_labels(&ids, catalog)?;
            if let Some(id) = ids.iter().find(|id| named.contains_key(id)) {
                return Ok(Some(*id));
            }
            if ids.len() < limit {
                return Ok(None);
            }
            limit *= 8;
        }
    }

    pub(super) fn llm_classify(
        &self,
        llm: &dyn LlmBackend,
        question: &str,
        entity: Option<&Entity>,
        catalog: &Catalog,
    ) -> Result<(QuestionType, Option<String>), AgentError> {
        let labels: Vec<&str> = catalog.labels().map(|(_, n)| n).collect();
        let relations: Vec<String> = catalog
            .relations()
            .flat_map(|(_, r)| {
                r.endpoints.iter().map(|(s, d)| {
                    format!(
                        "({})-[{}]->({})",
                        catalog.label_name(*s).unwrap_or("?"),
                        r.name,
                        catalog.label_name(*d).unwrap_or("?")
                    )
                })
            })
            .collect();
        let system = format!(
            "You classify questions about a property graph. Labels: {}. Relations: {}. \
             Reply with one JSON object {{\"type\": \"attribute\"|\"relation\"|\"aggregation\"|\"multi-hop\", \"target\": <label or null>}}. \
             attribute = a property of the named entity; relation = its direct neighbours; aggregation = a count, maximum or top-k; \
             multi-hop = nodes two or more relations away. {DATA_RULE}",
            labels.join(", "),
            relations.join(", ")
        );
        let mut user = format!("Question: {}", data_block("question", question));
        if let Some(e) = entity {
            user.push_str(&format!(
                "\nThe question names this {} node: {}",
                e.label,
                data_block("node name", &e.name)
            ));
        }
        let reply = llm.complete(&[Message::system(system), Message::user(user)])?;
        let v = json_object(&reply)?;
        let qtype = v
            .get("type")
            .and_then(|t| t.as_str())
            .and_then(QuestionType::parse)
            .ok_or_else(|| {
                AgentError::Llm(crate::llm::LlmError::Format(
                    "\"type\" is not one of attribute, relation, aggregation, multi-hop".into(),
                ))
            })?;
        let target = v
            .get("target")
            .and_then(|t| t.as_str())
            .filter(|t| catalog.label_id(t).is_some())
            .map(str::to_owned);
        Ok((qtype, target))
    }
}

/// What the words of the question say, before the path is chosen.
#[derive(Debug, Default)]
pub(super) struct Analysis {
    pub(super) qtype: Option<QuestionType>,
    pub(super) target: Option<String>,
    pub(super) attribute: Option<String>,
    pub(super) aggregate: Option<Aggregate>,
    /// Word positions used up by the ranking property ("most *cited*"), not relation hints.
    pub(super) consumed: HashSet<usize>,
}

impl Analysis {
    /// Takes an LLM's classification where it is consistent with what the words support.
    pub(super) fn apply_llm(&mut self, qtype: QuestionType, target: Option<String>) {
        match qtype {
            QuestionType::Attribute if self.attribute.is_none() => {}
            QuestionType::Attribute => self.qtype = Some(qtype),
            QuestionType::Aggregation => {
                self.qtype = Some(qtype);
                if self.aggregate.is_none() {
                    self.aggregate = Some(Aggregate::Count);
                }
            }
            QuestionType::Relation | QuestionType::MultiHop => {
                self.qtype = Some(qtype);
                self.aggregate = None;
                self.attribute = None;
            }
        }
        if target.is_some() && qtype != QuestionType::Attribute {
            self.target = target;
        }
    }
}

/// The label a question word (at position `at`) names, if any: by the label's own words, else
/// by meaning (the word alone against the label's phrases, from [`vocab::LABEL_COSINE_MIN`]:
/// "which *movie*" → `Film`), else (for a wh-word) a label its answer nouns name.
pub(super) fn label_of(
    w: &Word,
    at: usize,
    catalog: &Catalog,
    meaning: Option<&Meaning>,
) -> Option<String> {
    // Labels by name, so that ties do not depend on the order labels were first imported in.
    let mut labels: Vec<(cairn_storage_format::LabelId, &str)> = catalog.labels().collect();
    labels.sort_by_key(|(_, n)| *n);
    // A verb's participle shares a label's stem, not its meaning ("*funded* by" is no
    // `FundingAgency`): it names a relation.
    if vocab::lexicon().is_some_and(|lx| lx.is_participle_only(&w.norm)) {
        return None;
    }
    let best = labels
        .iter()
        .map(|(id, n)| {
            (
                element_match(w, &vocab::element_words(catalog, Element::Label(*id))),
                *n,
            )
        })
        // Stems and prefixes only: WordNet's reach is too wide for a label noun
        // ("published" is near "author").
        .filter(|(s, _)| *s >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)));
    if let Some((_, n)) = best {
        return Some(n.to_owned());
    }
    // A one-word label by its synonym ("movies" for `Film`).
    if let Some(lx) = vocab::lexicon() {
        let synonym = labels.iter().find(|(id, _)| {
            match vocab::element_words(catalog, Element::Label(*id)).as_slice() {
                [one] => one.word != w.norm && lx.same_main_noun(&w.norm, &one.word),
                _ => false,
            }
        });
        if let Some((_, n)) = synonym {
            return Some((*n).to_owned());
        }
    }
    if let Some(m) = meaning.filter(|m| m.applies(false, false)) {
        let by_meaning = labels
            .iter()
            .filter_map(|(id, n)| Some((m.word_similarity(at, Element::Label(*id))?, *n)))
            .filter(|(c, _)| *c >= vocab::LABEL_COSINE_MIN)
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)));
        if let Some((_, n)) = by_meaning {
            return Some(n.to_owned());
        }
    }
    let nouns = wh_nouns(&w.norm);
    if nouns.is_empty() {
        return None;
    }
    if nouns == ["person"] {
        return labels
            .iter()
            .map(|(_, n)| *n)
            .find(|n| person_like(n))
            .map(str::to_owned);
    }
    labels
        .iter()
        .map(|(_, n)| *n)
        .find(|n| {
            let words = schema_words(n);
            nouns.iter().any(|x| {
                words.iter().any(|s| s.stem == vocab::stem(x))
                    || lexicon().is_some_and(|lx| lx.is_a(&s_word(&words), x))
            })
        })
        .map(str::to_owned)
}

pub(super) fn s_word(words: &[SchemaWord]) -> String {
    words.last().map(|w| w.word.clone()).unwrap_or_default()
}

/// Whether a label is person-like: WordNet says one of its words is a kind of person.
pub(super) fn person_like(label: &str) -> bool {
    lexicon().is_some_and(|lx| {
        vocab::name_words(label)
            .iter()
            .any(|w| lx.is_a(w, "person"))
    })
}

/// The property an attribute question asks for: one a content word names (by its words, or by
/// meaning where [`Meaning::applies`] allows), or one a wh-word's nouns name ("when" → a year
/// or date).
pub(super) fn property_cue(
    free: &[(usize, &Word)],
    props: &[String],
    catalog: &Catalog,
    meaning: Option<&Meaning>,
) -> Option<String> {
    // By name, so that ties do not depend on the order properties were first imported in.
    let mut props = props.to_vec();
    props.sort();
    let props = props.as_slice();
    let norms: Vec<&str> = free.iter().map(|(_, w)| w.norm.as_str()).collect();
    // "how often" / "how many times" ask for a count kept as a property.
    let how_often = norms
        .windows(2)
        .any(|p| p == ["how", "often"] || p == ["many", "times"]);
    let relations: Vec<(Element, Vec<SchemaWord>)> = catalog
        .relations()
        .map(|(id, r)| (Element::Relation(id), schema_words(&r.name)))
        .collect();
    let props: Vec<(&String, Vec<SchemaWord>)> = props
        .iter()
        .map(|p| (p, schema_words(p)))
        .filter(|(_, words)| !words.iter().any(|w| w.word == "name" || w.word == "title"))
        .collect();
    // A word's match with a kind of element: its best lexical one, raised by meaning where
    // [`Meaning::applies`] allows (the lexical matches with every element of the kind decide).
    let by_meaning = |at: usize, lexical: &[f64], element: Element, i: usize| {
        let placed = lexical.iter().any(|s| *s > 0.0);
        let relation = matches!(element, Element::Relation(_));
        let cos = meaning
            .filter(|m| m.applies(relation, placed))
            .and_then(|m| m.similarity(at, element));
        vocab::combine(lexical[i], cos)
    };
    // Per word: its match with each property and its best match with a relation.
    let per_word: Vec<(Vec<f64>, f64)> = free
        .iter()
        .map(|(at, w)| {
            let content = !is_stopword(&w.norm);
            let lexical = |words: &[SchemaWord]| {
                if content {
                    element_match(w, words)
                } else {
                    0.0
                }
            };
            let prop_lexical: Vec<f64> = props.iter().map(|(_, words)| lexical(words)).collect();
            let rel_lexical: Vec<f64> = relations.iter().map(|(_, r)| lexical(r)).collect();
            let named = props
                .iter()
                .enumerate()
                .map(|(pi, (prop, _))| match catalog.prop_id(prop) {
                    Some(id) if content => {
                        by_meaning(*at, &prop_lexical, Element::Property(id), pi)
                    }
                    _ => prop_lexical[pi],
                })
                .collect();
            let as_relation = relations
                .iter()
                .enumerate()
                .map(|(i, (e, _))| {
                    if content {
                        by_meaning(*at, &rel_lexical, *e, i)
                    } else {
                        0.0
                    }
                })
                .fold(0.0, f64::max);
            (named, as_relation)
        })
        .collect();
    let mut best: Option<(f64, String)> = None;
    for (pi, (prop, words)) in props.iter().enumerate() {
        for ((_, w), (named, as_relation)) in free.iter().zip(&per_word) {
            let named = named[pi];
            let wh = wh_nouns(&w.norm)
                .iter()
                .any(|x| words.iter().any(|s| s.stem == vocab::stem(x)));
            let score = if wh { named.max(0.9) } else { named };
            // A word that names a relation better is a relation question ("which papers
            // does X *cite*"), unless the question asks how often.
            if !wh && !how_often && *as_relation > score {
                continue;
            }
            if score >= 0.6 && best.as_ref().is_none_or(|(b, _)| score > *b) {
                best = Some((score, (*prop).clone()));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// The numeric property a superlative ranks by ("most *cited*"), and the words it used.
pub(super) fn ranking_property(
    free: &[(usize, &Word)],
    props: &[String],
) -> Option<(String, Vec<usize>)> {
    let mut props = props.to_vec();
    props.sort();
    for prop in &props {
        let words = schema_words(prop);
        if words.iter().any(|w| w.word == "name" || w.word == "title") {
            continue;
        }
        let used: Vec<usize> = free
            .iter()
            .filter(|(_, w)| !is_stopword(&w.norm) && element_match(w, &words) >= 0.6)
            .map(|(i, _)| *i)
            .collect();
        if !used.is_empty() {
            return Some((prop.clone(), used));
        }
    }
    None
}

/// "top 3", "3 most", "three most".
pub(super) fn top_k(free: &[(usize, &Word)]) -> Option<usize> {
    let number = |w: &Word| -> Option<usize> {
        w.norm.parse::<usize>().ok().or_else(|| {
            [
                "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            ]
            .iter()
            .position(|n| *n == w.norm)
            .map(|p| p + 1)
        })
    };
    for (k, (_, w)) in free.iter().enumerate() {
        if w.norm == "top" {
            if let Some(n) = free.get(k + 1).and_then(|(_, w)| number(w)) {
                return Some(n);
            }
        }
        // "the 3 most cited", "the three largest" (a superlative WordNet knows).
        let superlative = matches!(w.norm.as_str(), "most" | "least" | "fewest")
            || crate::vocab::lexicon()
                .and_then(|lx| lx.graded(&w.norm))
                .is_some_and(|(_, g)| g == crate::vocab::Grade::Superlative);
        if superlative && k > 0 {
            if let Some(n) = number(free[k - 1].1) {
                return Some(n);
            }
        }
    }
    None
}

/// The nouns a wh-word asks for (general English, matched to the schema like any word).
pub(super) fn wh_nouns(word: &str) -> &'static [&'static str] {
    match word {
        "where" => &["place", "location", "country", "city", "venue"],
        "when" => &["year", "date", "time"],
        "who" | "whom" => &["person"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::words::question_words;

    fn free(words: &[Word]) -> Vec<(usize, &Word)> {
        words.iter().enumerate().collect()
    }

    #[test]
    fn top_k_reads_digits_and_number_words() {
        let w = question_words("what are the top 3 papers");
        assert_eq!(top_k(&free(&w)), Some(3));
        let w = question_words("the five most cited papers");
        assert_eq!(top_k(&free(&w)), Some(5));
        let w = question_words("the three largest states");
        if crate::vocab::lexicon().is_some() {
            assert_eq!(top_k(&free(&w)), Some(3));
        }
        let w = question_words("the most cited paper");
        assert_eq!(top_k(&free(&w)), None);
    }

    #[test]
    fn the_ranking_property_is_the_one_a_word_names() {
        let w = question_words("the most cited papers of X");
        let props = vec![
            "title".to_owned(),
            "citations".to_owned(),
            "year".to_owned(),
        ];
        let got = ranking_property(&free(&w), &props);
        assert_eq!(got, Some(("citations".to_owned(), vec![2])));
    }
}
