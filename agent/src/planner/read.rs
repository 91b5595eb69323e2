//! Reading one question into a plan: the structured reading first (ranks, counts, comparisons,
//! negation), else the question type and the best path from the main entity, with a conjunction
//! when two marked entities must meet, and the doubts and unused words the answer reports.

use super::analysis::Analysis;
use super::conjunct::{constraint_words, own_words_read, schema_steps, PathPair};
use super::paths::{self, path_choices, PathQuery, MAX_PATH};
use super::structure::{structure, LabelProps, MentionInfo};
use super::words::question_words;
use super::{
    build, compile::placeholder_plan, doubtful, legacy_reading, property_not_node,
    question_template, Aggregate, Doubt, Entity, LinkMethod, Planner, QueryPlan, QuestionType,
    Sizes, Step, Word,
};
use crate::reading::{Chain, Op};
use crate::semantic::Meaning;
use crate::vocab;
use crate::AgentError;
use cairn_store::Catalog;
use std::collections::HashSet;

/// What every part of a question's reading looks at.
struct Asked<'a, 'w> {
    words: &'a [Word],
    /// The words no linked mention covers, with their positions.
    free: &'a [(usize, &'w Word)],
    /// The words a linked mention covers.
    covered: &'a HashSet<usize>,
    catalog: &'a Catalog,
    meaning: Option<&'a Meaning>,
    /// The question's shape, for what feedback on questions of that shape taught.
    template: &'a str,
}

impl Asked<'_, '_> {
    /// The ranked paths from `entity` of `min..=max` hops.
    fn paths<'q>(
        &'q self,
        entity: &'q Entity,
        target: Option<&'q str>,
        consumed: &'q HashSet<usize>,
        (min, max): (usize, usize),
    ) -> PathQuery<'q, 'q> {
        PathQuery {
            target,
            free: self.free,
            words: self.words,
            entity,
            consumed,
            catalog: self.catalog,
            meaning: self.meaning,
            min,
            max,
            template: self.template,
        }
    }

    /// Whether a free word names `prop` (not only a wh-word asking for it: "*where* is X").
    fn names_property(&self, prop: &str) -> bool {
        self.free.iter().any(|(_, w)| {
            !vocab::is_stopword(&w.norm)
                && super::words::element_match(w, &vocab::schema_words(prop)) >= 0.6
        })
    }
}

/// The chosen path, the conjunction's second entity and path, and the closest other path with
/// its margin.
type Chosen = (
    QuestionType,
    Vec<Step>,
    Option<(Entity, Vec<Step>)>,
    Option<(f64, Vec<Step>)>,
);

impl Planner<'_> {
    pub(super) fn plan_read(&self, question: &str, sizes: Sizes) -> Result<QueryPlan, AgentError> {
        let catalog = self.graph.catalog();
        let words = question_words(question);
        let mut mentions = self.link(&words, question, &catalog)?;
        // The schema's properties per label, for reading the question's structure (offline).
        let props = match self.llm {
            None => Some(self.label_props(&catalog)?),
            Some(_) => None,
        };
        let named: Vec<((usize, usize), String)> = match &props {
            Some(props) => property_not_node(&words, question, &mut mentions, props, &catalog)
                .into_iter()
                .collect(),
            None => Vec::new(),
        };
        let mut entities: Vec<Entity> =
            mentions.iter().filter_map(|m| m.first().cloned()).collect();
        // The main entity: the longest mention (exact before vector).
        entities.sort_by_key(|e| {
            (
                e.method != LinkMethod::Exact,
                !e.marked,
                std::cmp::Reverse(e.span.1 - e.span.0),
                e.span.0,
            )
        });
        let entity = entities.first().cloned();
        let others: Vec<Entity> = entities.iter().skip(1).cloned().collect();
        let covered: HashSet<usize> = entities.iter().flat_map(|e| e.span.0..e.span.1).collect();
        let template = question_template(&words, &covered);
        let free: Vec<(usize, &Word)> = words
            .iter()
            .enumerate()
            .filter(|(i, _)| !covered.contains(i))
            .collect();
        let meaning = self.meaning(&catalog, &words, &covered)?;
        let q = Asked {
            words: &words,
            free: &free,
            covered: &covered,
            catalog: &catalog,
            meaning: meaning.as_ref(),
            template: &template,
        };

        // The question's structure: groups, ranks, comparisons, negations, what is asked.
        if let Some(props) = &props {
            if let Some(plan) =
                self.plan_from_structure(question, &q, &mentions, props, &named, sizes)?
            {
                return Ok(plan);
            }
        }

        let mut analysis = self.analyse(&free, &words, entity.as_ref(), &catalog, q.meaning)?;
        let mut used_llm = false;
        if let Some(llm) = self.llm {
            match self.llm_classify(llm, question, entity.as_ref(), &catalog) {
                Ok((qtype, target)) => {
                    used_llm = true;
                    analysis.apply_llm(qtype, target);
                }
                Err(e) => tracing::warn!(error = %e, "LLM planner failed; using the offline plan"),
            }
        }
        // A property asked by a wh-word alone ("*where* is #": a place property) that feedback
        // refuted for questions of this shape gives way to a path from the entity.
        if let (Some(QuestionType::Attribute), Some(prop), Some(_)) =
            (analysis.qtype, analysis.attribute.as_deref(), &entity)
        {
            let refuted = self
                .strategies
                .and_then(|m| m.lock().ok())
                .is_some_and(|l| {
                    l.template_prior(&template, &format!(".{prop}")) < 0.0
                        || l.template_prior(&template, ".") < 0.0
                });
            if !q.names_property(prop) && refuted {
                analysis.qtype = None;
                analysis.attribute = None;
            }
        }
        let (qtype, path, conjunct, runner_up) =
            self.choose_path(&q, &mut analysis, entity.as_ref(), &others)?;
        let (choices, patterns) = match &entity {
            Some(e) if !path.is_empty() => {
                let (cues, matches, _) =
                    self.read_cues(&free, &words, e, &analysis.consumed, &catalog, q.meaning);
                let asks_place = free.iter().any(|(_, w)| w.norm == "where");
                let read = paths::read_path(&path, &cues, &matches, &words, asks_place);
                (
                    path_choices(&path, &cues, &matches),
                    vec![(
                        paths::question_pattern(&words, &free, &cues, &matches),
                        paths::pattern_hop(&path, &read.named_hops),
                    )],
                )
            }
            _ => (Vec::new(), Vec::new()),
        };
        // What the path leaves unexplained, and a runner-up that came close.
        let (mut unused, mut doubts) = match &entity {
            Some(e) if !path.is_empty() && conjunct.is_none() => {
                self.path_doubts(&q, &analysis, e, &path, runner_up)
            }
            _ => (Vec::new(), Vec::new()),
        };
        // No entity: the answer is an exploration around the question's words, which no
        // reading checks, so none of them counts as used.
        if entity.is_none() {
            unused.extend(
                free.iter()
                    .filter(|(_, w)| {
                        !crate::vocab::is_stopword(&w.norm)
                            && !w.norm.chars().all(|c| c.is_ascii_digit())
                    })
                    .map(|(_, w)| w.norm.clone()),
            );
        }
        // Another mention the plan does not start from ("the high point of *wyoming*" read from
        // the city High Point).
        for o in &others {
            if conjunct.as_ref().is_none_or(|(c, _)| c.keys != o.keys) {
                unused.push(o.mention.clone());
            }
        }
        if let (QuestionType::Attribute, Some(e), Some(prop)) =
            (qtype, &entity, analysis.attribute.as_deref())
        {
            doubts.extend(self.attribute_rival(&q, &analysis, e, prop)?);
        }
        let aggregate = if qtype == QuestionType::Aggregation {
            Some(analysis.aggregate.clone().unwrap_or(Aggregate::Count))
        } else {
            None
        };
        let mut plan = QueryPlan {
            question: question.to_owned(),
            qtype,
            entity,
            other_entities: others,
            conjunct,
            target: analysis.target.clone(),
            path,
            attribute: analysis.attribute.clone(),
            aggregate,
            sizes,
            text: String::new(),
            plan: placeholder_plan(),
            llm: used_llm,
            choices,
            template,
            patterns,
            reading: None,
            unused,
            doubts,
            modifiers: Vec::new(),
        };
        plan.reading = legacy_reading(&plan);
        self.compile(&mut plan)?;
        Ok(plan)
    }

    /// The structured reading of the question (ranks, counts, comparisons, negation), when its
    /// structure needs one.
    fn plan_from_structure(
        &self,
        question: &str,
        q: &Asked<'_, '_>,
        mentions: &[Vec<Entity>],
        props: &LabelProps,
        named: &[((usize, usize), String)],
        sizes: Sizes,
    ) -> Result<Option<QueryPlan>, AgentError> {
        let infos: Vec<MentionInfo> = mentions.iter().map(|m| MentionInfo::of(m)).collect();
        let s = structure(
            q.words, question, &infos, props, q.catalog, q.meaning, named,
        );
        tracing::debug!(structure = ?s, "question structure");
        if !s.needs_reading() {
            return Ok(None);
        }
        let mut consumed = s.used.clone();
        consumed.extend(q.covered.iter().copied());
        // A group noun that also names a relation ("co-*authors*") still names its hop.
        for g in s.groups.iter().filter(|g| g.names_relation) {
            consumed.remove(&g.at);
        }
        let b = build::Build {
            words: q.words,
            mentions,
            structure: &s,
            catalog: q.catalog,
            meaning: q.meaning,
            consumed: &consumed,
            props,
            template: q.template,
        };
        let all: Vec<Entity> = mentions.iter().filter_map(|m| m.first().cloned()).collect();
        self.plan_structured(question, &b, &all, sizes)
    }

    /// The question type and the best path from the main entity (with a conjunction when two
    /// marked entities must meet), and the closest other path.
    fn choose_path(
        &self,
        q: &Asked<'_, '_>,
        analysis: &mut Analysis,
        entity: Option<&Entity>,
        others: &[Entity],
    ) -> Result<Chosen, AgentError> {
        let e = match (analysis.qtype, entity) {
            (Some(QuestionType::Attribute), _) => {
                return Ok((QuestionType::Attribute, Vec::new(), None, None))
            }
            (t, None) => return Ok((t.unwrap_or(QuestionType::Relation), Vec::new(), None, None)),
            (_, Some(e)) => e,
        };
        let t = analysis.qtype;
        let hops = match t {
            Some(QuestionType::Relation) => (1, 1),
            Some(QuestionType::MultiHop) => (2, MAX_PATH),
            _ => (1, MAX_PATH),
        };
        let consumed = analysis.consumed.clone();
        let mut ranked =
            self.ranked_paths(&q.paths(e, analysis.target.as_deref(), &consumed, hops))?;
        // A label the question seemed to ask for that no path from the entity reaches was a
        // misreading ("recording" is not the label `RecordLabel`): drop it.
        if ranked.is_empty() && analysis.target.is_some() {
            analysis.target = None;
            ranked = self.ranked_paths(&q.paths(e, None, &consumed, hops))?;
        }
        let mut path = ranked.first().map(|(_, p)| p.clone()).unwrap_or_default();
        let best_score = ranked.first().map_or(0.0, |(s, _)| *s);
        let runner_up = ranked
            .iter()
            .find(|(_, p)| *p != path)
            .map(|(s, p)| (best_score - s, p.clone()));
        // Two marked entities and a relation question: a conjunction of two paths that meet at
        // the answers.
        let mut conjunct = None;
        if let Some(second) = others.iter().find(|o| o.marked && e.marked) {
            if let Some((p1, p2)) = self.conjunction(q, analysis, e, second, &ranked)? {
                path = p1;
                conjunct = Some((second.clone(), p2));
            }
        }
        let qtype = match t {
            Some(q) => q,
            None if path.len() <= 1 => QuestionType::Relation,
            None => QuestionType::MultiHop,
        };
        Ok((qtype, path, conjunct, runner_up))
    }

    /// The two paths, from `e` and from `second`, that meet at the answers.
    fn conjunction(
        &self,
        q: &Asked<'_, '_>,
        analysis: &Analysis,
        e: &Entity,
        second: &Entity,
        ranked: &[(f64, Vec<Step>)],
    ) -> Result<Option<PathPair>, AgentError> {
        let target = analysis.target.as_deref();
        let mut second_ranked =
            self.ranked_paths(&q.paths(second, target, &analysis.consumed, (1, 2)))?;
        // Each constraint is short ("in club X", "from country Y"): at most two hops from
        // either entity.
        let mut first_ranked: Vec<(f64, Vec<Step>)> = ranked
            .iter()
            .filter(|(_, p)| p.len() <= 2)
            .cloned()
            .collect();
        // Which cue words go with which mention ("films *directed* by X *star* Y"), and how well
        // each path reads its own mention's words.
        let (cues, matches, _) =
            self.read_cues(q.free, q.words, e, &analysis.consumed, q.catalog, q.meaning);
        let (own_first, own_second) = constraint_words(&cues, e, second);
        for (entity, own, ranked) in [
            (e, &own_first, &mut first_ranked),
            (second, &own_second, &mut second_ranked),
        ] {
            ranked.extend(schema_steps(
                entity, target, own, &matches, ranked, q.catalog,
            ));
        }
        let structure = |own: &[usize], ranked: &[(f64, Vec<Step>)]| -> Vec<f64> {
            ranked
                .iter()
                .map(|(_, p)| own_words_read(p, own, &matches))
                .collect()
        };
        let structure = (
            structure(&own_first, &first_ranked),
            structure(&own_second, &second_ranked),
        );
        self.meeting_paths(
            e,
            &first_ranked,
            second,
            &second_ranked,
            &structure,
            q.catalog,
        )
    }

    /// The words the chosen path leaves unexplained, and the runner-up path as a doubt when it
    /// came close.
    fn path_doubts(
        &self,
        q: &Asked<'_, '_>,
        analysis: &Analysis,
        e: &Entity,
        path: &[Step],
        runner_up: Option<(f64, Vec<Step>)>,
    ) -> (Vec<String>, Vec<Doubt>) {
        let read = self.path_read(
            q.free,
            q.words,
            e,
            &analysis.consumed,
            q.catalog,
            q.meaning,
            path,
        );
        let unused: Vec<String> = read
            .unknown
            .iter()
            .map(|i| q.words[*i].norm.clone())
            .collect();
        let target = analysis.target.clone();
        let hop = |p: &[Step]| Chain {
            source: e.source(),
            ops: vec![Op::Hop {
                path: p.to_vec(),
                target: target.clone(),
            }],
        };
        let doubts = runner_up
            .filter(|(margin, _)| doubtful(*margin, !unused.is_empty()))
            .map(|(margin, other)| Doubt {
                what: "the path".into(),
                margin,
                chosen: hop(path),
                other: hop(&other),
            })
            .into_iter()
            .collect();
        (unused, doubts)
    }

    /// A property asked for by a wh-word alone ("*where* is X": a `country` property) has a
    /// rival: the best path from X (to a place).
    fn attribute_rival(
        &self,
        q: &Asked<'_, '_>,
        analysis: &Analysis,
        e: &Entity,
        prop: &str,
    ) -> Result<Option<Doubt>, AgentError> {
        if q.names_property(prop) {
            return Ok(None);
        }
        let ranked = self.ranked_paths(&q.paths(e, None, &analysis.consumed, (1, MAX_PATH)))?;
        Ok(ranked.first().map(|(_, p)| Doubt {
            what: "the answer (a property of it, or a node it leads to)".into(),
            margin: 0.0,
            chosen: Chain::from(e.source()),
            other: Chain {
                source: e.source(),
                ops: vec![Op::Hop {
                    path: p.clone(),
                    target: None,
                }],
            },
        }))
    }
}
