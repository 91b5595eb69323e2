//! Nouns that stand for a relation's end where the answer's noun stands: "the largest
//! *capital*" (the objects of `CAPITAL`), "which *directors*" (the subjects of `DIRECTED`).

use super::{graded, Reader, QUANTITY};
use crate::planner::words::element_match;
use crate::planner::{Step, Word};
use crate::vocab::{self, is_stopword, lexicon, schema_words, Grade};
use cairn_storage_format::RelationDef;

impl Reader<'_> {
    /// A word naming a relation (not a label) where a noun of the answer stands: after a
    /// superlative ("the largest *capital*") or as the wh-phrase's noun ("what *capital* …"):
    /// (subjects' label, the step, objects' label). Only a relation with one pair of labels.
    pub(super) fn relational_noun(&self, i: usize) -> Option<(String, Step, String, bool)> {
        let before = self.skip_back_articles(i)?;
        let b = self.norm(before);
        let after_rank = QUANTITY.contains(&b) || graded(b) == Some(Grade::Superlative);
        // The question's own wh-word ("*what* capital …"), not a relative pronoun ("states
        // *which* border …").
        let asking = matches!(b, "which" | "what")
            && (before == 0 || (before == 1 && is_stopword(self.norm(0))));
        if !after_rank && !asking {
            return None;
        }
        let w = &self.words[i];
        if !lexicon().is_some_and(|lx| lx.is_noun_form(&w.norm)) {
            return None;
        }
        // One relation only: a noun several relations are named by ("which *country*":
        // `plays_for_country`, `is_in_country`) leaves the path to the words around it.
        let named: Vec<_> = self
            .catalog
            .relations()
            .filter(|(_, r)| element_match(w, &schema_words(&r.name)) >= 1.0)
            .collect();
        match named.as_slice() {
            [(_, rel)] => self.relation_end(rel, false),
            _ => self.agent_noun(w),
        }
    }

    /// A person noun that is the agent of one relation's verb ("which *directors*": those
    /// who `DIRECTED` something; "the oldest *actor*": `ACTED_IN`): the relation's subjects,
    /// reached back from its objects. Only when one relation of one label pair has the verb.
    fn agent_noun(&self, w: &Word) -> Option<(String, Step, String, bool)> {
        let verbs: Vec<String> = lexicon()?
            .agent_verbs(&w.norm)
            .iter()
            .map(|v| vocab::stem(v))
            .collect();
        if verbs.is_empty() {
            return None;
        }
        let named: Vec<_> = self
            .catalog
            .relations()
            .filter(|(_, r)| {
                schema_words(&r.name)
                    .iter()
                    .any(|s| verbs.contains(&s.stem))
            })
            .collect();
        let [(_, rel)] = named.as_slice() else {
            return None;
        };
        self.relation_end(rel, true)
    }

    /// The group a relation of one label pair makes of a noun: its objects, reached from its
    /// subjects' label (a relational noun), or its subjects, reached back from its objects'
    /// (an agent noun): (the label reached from, the step, the group's label, agent).
    fn relation_end(&self, rel: &RelationDef, agent: bool) -> Option<(String, Step, String, bool)> {
        let [(src, dst)] = rel.endpoints.as_slice() else {
            return None;
        };
        let (from, to) = if agent { (dst, src) } else { (src, dst) };
        Some((
            self.catalog.label_name(*from)?.to_owned(),
            Step {
                relation: rel.name.clone(),
                reversed: agent,
            },
            self.catalog.label_name(*to)?.to_owned(),
            agent,
        ))
    }
}
