//! From structure to reading: the question's groups and mentions become a tree (each attached
//! to the nearest group before it: "rivers in *states* bordering *colorado*"), and the tree a
//! chain. A group starts from a mention attached to it (the words between them name the hop,
//! ranked as any path is), else from a group attached to it, else from every node of its
//! label; further constraints are intersected (`Keep`) and negated ones dropped (`Drop`);
//! then its comparisons and ranks apply. A mention whose name several labels carry is read with
//! the label whose hop reads the words best, ties by label name.

use super::paths::PathRead;
use super::paths::{PathQuery, MAX_PATH};
use super::structure::{
    noun_property, pick_property, Against, CompareSpec, KeySpec, LabelProps, PropChoice, Structure,
    Want,
};
use super::{doubtful, Doubt, Entity, LinkMethod, Planner, Step, Word};
use crate::reading::{Chain, Op, Operand, Output, RankKey, Source};
use crate::semantic::Meaning;
use crate::AgentError;
use cairn_store::{Catalog, GraphRead};
use std::collections::HashSet;

/// Everything a reading is built from.
pub(super) struct Build<'a> {
    pub(super) words: &'a [Word],
    pub(super) mentions: &'a [Vec<Entity>],
    pub(super) structure: &'a Structure,
    pub(super) catalog: &'a Catalog,
    pub(super) meaning: Option<&'a Meaning>,
    /// Words no path may read as a hop (the structure's, and the mentions').
    pub(super) consumed: &'a HashSet<usize>,
    pub(super) props: &'a LabelProps,
    /// The question's shape, for what feedback taught ([`super::paths::PathQuery::template`]).
    pub(super) template: &'a str,
}

/// One place in the question the tree is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    Group(usize),
    Mention(usize),
}

/// A chain built for a part of the question, with how well its hops read their words.
#[derive(Clone, Debug)]
pub(super) struct Built {
    pub(super) chain: Chain,
    pub(super) score: f64,
    /// The mention the chain starts at, as linked (the label chosen).
    pub(super) entity: Option<Entity>,
    /// The first hop's path (what the EXPLORE statement and feedback describe).
    pub(super) path: Vec<Step>,
    /// Decisions another reading came close to (see [`Doubt`]).
    pub(super) doubts: Vec<Doubt>,
    /// Word positions the hops read (a relation's word, a wh-phrase's, a modifier).
    pub(super) read: HashSet<usize>,
    /// Word positions of what the structure read but the reading could not apply (a
    /// comparison on a property the answer's nodes do not carry): reported as unused.
    pub(super) unread: Vec<usize>,
}

impl Built {
    /// A chain with nothing decided yet.
    fn of(chain: Chain, entity: Option<Entity>) -> Built {
        Built {
            chain,
            score: 0.0,
            entity,
            path: Vec::new(),
            doubts: Vec::new(),
            read: HashSet::new(),
            unread: Vec::new(),
        }
    }

    /// Follows a chosen hop: its path, score and read words, and a doubt when its runner-up
    /// came close.
    fn follow(&mut self, h: HopChoice, target: Option<String>, what: &str) {
        let before = self.chain.clone();
        self.chain.ops.push(Op::Hop {
            path: h.path.clone(),
            target: target.clone(),
        });
        if self.path.is_empty() {
            self.path = h.path;
        }
        self.score += h.score;
        self.read.extend(h.read.read.iter().copied());
        if let Some((other, path)) = h.runner_up {
            if doubtful(h.score - other, !h.read.unknown.is_empty()) {
                let mut alternative = before;
                alternative.ops.push(Op::Hop { path, target });
                self.doubts.push(Doubt {
                    what: what.to_owned(),
                    margin: h.score - other,
                    chosen: self.chain.clone(),
                    other: alternative,
                });
            }
        }
    }

    /// Takes over what another part decided and read.
    fn absorb(&mut self, other: &Built) {
        self.doubts.extend(other.doubts.iter().cloned());
        self.read.extend(other.read.iter().copied());
    }
}

/// A hop chosen among ranked paths: its score and path, the runner-up, and the words it read.
#[derive(Clone, Debug)]
struct HopChoice {
    score: f64,
    path: Vec<Step>,
    runner_up: Option<(f64, Vec<Step>)>,
    read: PathRead,
}

/// The most groups and mentions a question's structure is built from.
const MAX_ANCHORS: usize = 12;

impl<'g> Planner<'g> {
    /// The reading of a structured question, `None` when its tree has no root.
    pub(super) fn build(&self, b: &Build<'_>) -> Result<Option<(Built, Output)>, AgentError> {
        let s = b.structure;
        let anchors = anchors(b);
        // Beyond a few sets and mentions, a question is no tree of conditions to build (and
        // the recursion over it stays shallow): the other planner reads it.
        if anchors.len() > MAX_ANCHORS {
            return Ok(None);
        }
        let parents = parents(&anchors, s);
        let wanted: Option<&PropChoice> = match &s.want {
            Want::Property(c) | Want::Aggregate(_, c) => Some(c),
            _ => None,
        };
        let root = match s.focus {
            Some(f) => anchors.iter().position(|(a, _, _)| *a == Anchor::Group(f)),
            // No group to answer about: the first mention (or a mention's type) that is not
            // negated.
            None => anchors.iter().position(|(a, _, _)| match a {
                Anchor::Mention(m) => !s.negated_mentions.contains(m),
                Anchor::Group(g) => s.groups[*g].mention.is_some(),
            }),
        };
        let mut built = match root {
            Some(root) => {
                let Some(mut built) = self.anchor_chain(b, &anchors, &parents, root, wanted)?
                else {
                    return Ok(None);
                };
                // Words before the root that name a relation ("the *capital* of the state …"):
                // one more hop from the root's set.
                let root_at = anchors[root].1;
                let owned: HashSet<usize> = (0..anchors.len())
                    .filter_map(|k| parents[k].map(|p| owned_words(b, &anchors, k, p)))
                    .flatten()
                    .collect();
                let before: Vec<usize> = (0..root_at)
                    .filter(|i| {
                        !b.consumed.contains(i)
                            && !owned.contains(i)
                            && !crate::vocab::is_stopword(&b.words[*i].norm)
                    })
                    .collect();
                if s.focus.is_none() {
                    let object = object_mention(b, &anchors, &parents, root);
                    let reached = match object {
                        Some(k) => self.reach_object(b, &anchors, &parents, root, k, &mut built)?,
                        None => false,
                    };
                    if !reached {
                        self.around_mention(b, &anchors, &parents, root, &mut built)?;
                    }
                } else if !before.is_empty() {
                    let label = built.chain.label().map(str::to_owned);
                    if let Some(h) =
                        self.best_hop(b, &built, label.as_deref(), None, &before, true, root_at)?
                    {
                        built.follow(h, None, "the last hop");
                    }
                }
                built
            }
            // Nothing anchored ("what is the highest point in the usa"): every node of the
            // label that has the property asked for.
            None => {
                let Some(label) = wanted.and_then(|c| label_of_property(c, b.props)) else {
                    return Ok(None);
                };
                Built::of(Chain::from(Source::Label(label)), None)
            }
        };
        // A comparison of the answer itself ("was X hired *before 2010*"), when its nodes
        // carry the property; else its words are reported as unused.
        for c in s.compares.iter().filter(|c| c.group.is_none()) {
            let label = built.chain.label().map(str::to_owned);
            let carried = label.as_deref().is_some_and(|l| {
                b.props
                    .get(l)
                    .is_some_and(|ps| ps.iter().any(|p| p.name == c.property))
            });
            match label.filter(|_| carried).and_then(|l| compare_op(b, c, &l)) {
                Some(op) => built.chain.ops.push(op),
                None => built.unread.push(c.at),
            }
        }
        // A rank of the answer itself ("… most often", "the *highest* point in …").
        for r in s.ranks.iter().filter(|r| r.group.is_none()) {
            built.chain.ops.push(Op::Rank {
                key: match &r.key {
                    KeySpec::Property(p) => RankKey::Property(p.clone()),
                    _ => RankKey::Paths,
                },
                descending: r.descending,
                k: r.k,
                word: Some(r.word.clone()),
            });
        }
        let label: Vec<String> = built.chain.label().map(str::to_owned).into_iter().collect();
        let pick = |c: &PropChoice, words: &[usize]| {
            pick_property(c, &label, b.props)
                .or_else(|| {
                    // A noun none of the label's properties shares: the nearest in WordNet.
                    let l = label.first()?;
                    words
                        .iter()
                        .find_map(|i| noun_property(&b.words[*i].norm, l, b.props))
                })
                .or_else(|| c.first().map(|(p, _)| p.clone()))
                .unwrap_or_default()
        };
        let output = match &s.want {
            Want::Nodes => Output::Nodes,
            Want::Count => Output::Count,
            Want::Aggregate(f, c) => Output::Aggregate(*f, pick(c, &s.want_words)),
            Want::Property(c) => Output::Property(pick(c, &s.want_words)),
            Want::Exists => Output::Exists,
        };
        Ok(Some((built, output)))
    }

    /// A yes/no question's object ("is X signed to *Y*", "did X produce *Y*"): the hop from
    /// the root to the object's label that the words between read, kept where it arrives at
    /// the object's nodes (of the reading that such a hop reaches, when the name is several
    /// nodes'). `false` when no hop reaches any of its readings' labels.
    fn reach_object(
        &self,
        b: &Build<'_>,
        anchors: &[(Anchor, usize, usize)],
        parents: &[Option<usize>],
        root: usize,
        object: usize,
        built: &mut Built,
    ) -> Result<bool, AgentError> {
        let (m, label_of) = match anchors[object].0 {
            Anchor::Mention(m) => (m, None),
            Anchor::Group(g) => match b.structure.groups[g].mention {
                Some(m) => (m, Some(b.structure.groups[g].label.as_str())),
                None => return Ok(false),
            },
        };
        let at = anchors[root].1;
        let words = free_words(b, anchors, parents);
        let label = built.chain.label().map(str::to_owned);
        let mut best: Option<(HopChoice, &Entity)> = None;
        // "the Blue Tide *foundation*": the reading of that label, if it is one.
        let readings: Vec<&Entity> = match label_of {
            Some(l) if b.mentions[m].iter().any(|e| e.label == l) => {
                b.mentions[m].iter().filter(|e| e.label == l).collect()
            }
            _ => b.mentions[m].iter().collect(),
        };
        for e in readings {
            let Some(h) = self.best_hop(
                b,
                built,
                label.as_deref(),
                Some(&e.label),
                &words,
                false,
                at,
            )?
            else {
                continue;
            };
            if !h.path.is_empty() && best.as_ref().is_none_or(|(x, _)| h.score > x.score + 1e-9) {
                best = Some((h, e));
            }
        }
        let Some((h, e)) = best else {
            return Ok(false);
        };
        built.follow(h, Some(e.label.clone()), "the hop to the object");
        built
            .chain
            .ops
            .push(Op::Keep(Box::new(Chain::from(e.source()))));
        Ok(true)
    }

    /// A mention the answer is about ("how many people live in the *capital* of texas"): the
    /// mention right after it names where it is ("austin *texas*": the austin in texas), and
    /// the words no other hop reads name a hop from it, if one of them names a relation.
    fn around_mention(
        &self,
        b: &Build<'_>,
        anchors: &[(Anchor, usize, usize)],
        parents: &[Option<usize>],
        root: usize,
        built: &mut Built,
    ) -> Result<(), AgentError> {
        let (_, at, end) = anchors[root];
        let mut restrict: Option<Chain> = None;
        if let Some(next) = anchors
            .iter()
            .position(|(a, s, _)| *s == end && matches!(a, Anchor::Mention(_)))
        {
            if let (Anchor::Mention(m), None) = (anchors[next].0, parents[next]) {
                let label = built.chain.label().map(str::to_owned);
                let mut best: Option<(f64, Chain)> = None;
                for e in &b.mentions[m] {
                    let from = Built::of(Chain::from(e.source()), Some(e.clone()));
                    let hop = self.best_hop(
                        b,
                        &from,
                        Some(&e.label),
                        label.as_deref(),
                        &[],
                        false,
                        anchors[next].1,
                    )?;
                    if let Some(h) = hop.filter(|h| !h.path.is_empty()) {
                        if best.as_ref().is_none_or(|(s, _)| h.score > *s + 1e-9) {
                            let mut chain = from.chain;
                            chain.ops.push(Op::Hop {
                                path: h.path,
                                target: label.clone(),
                            });
                            best = Some((h.score, chain));
                        }
                    }
                }
                restrict = best.map(|(_, chain)| chain);
            }
        }
        let rest = free_words(b, anchors, parents);
        let label = built.chain.label().map(str::to_owned);
        let hop = if rest.is_empty() {
            None
        } else {
            self.best_hop(b, built, label.as_deref(), None, &rest, true, at)?
        };
        if let Some(chain) = restrict {
            built.chain.ops.push(Op::Keep(Box::new(chain)));
        }
        if let Some(h) = hop {
            // A property the mention has itself, which no end of the hop has ("in what year
            // was X *published*": the paper's year, not its venue's): the words qualify the
            // property, and the hop is not taken.
            let asked = match &b.structure.want {
                Want::Property(c) => Some(c),
                _ => None,
            };
            let own = |labels: &[String]| asked.and_then(|c| pick_property(c, labels, b.props));
            let ends = label
                .as_deref()
                .map(|l| path_end_labels(b.catalog, l, &h.path));
            match (label, ends) {
                (Some(l), Some(ends))
                    if own(std::slice::from_ref(&l)).is_some() && own(&ends).is_none() =>
                {
                    built.read.extend(h.read.read.iter().copied());
                }
                _ => built.follow(h, None, "the hop from the mention"),
            }
        }
        Ok(())
    }

    /// The chain of an anchor: a mention's nodes, or a group's set built from what is attached
    /// to it.
    fn anchor_chain(
        &self,
        b: &Build<'_>,
        anchors: &[(Anchor, usize, usize)],
        parents: &[Option<usize>],
        at: usize,
        wanted: Option<&PropChoice>,
    ) -> Result<Option<Built>, AgentError> {
        let s = b.structure;
        let (anchor, _, _) = anchors[at];
        let g = match anchor {
            Anchor::Mention(m) => {
                // A mention read alone: of the label that has the property asked for or
                // compared, if one does ("the area of *ohio*": the state; "was *X* released
                // before 1995": the album), else the most common.
                let compared: PropChoice = s
                    .compares
                    .iter()
                    .filter(|c| c.group.is_none())
                    .map(|c| (c.property.clone(), 1.0))
                    .collect();
                let e = wanted
                    .into_iter()
                    .flatten()
                    .chain(&compared)
                    .find_map(|(p, _)| {
                        b.mentions[m].iter().find(|e| {
                            b.props
                                .get(&e.label)
                                .is_some_and(|ps| ps.iter().any(|x| x.name == *p))
                        })
                    })
                    .or_else(|| b.mentions[m].first())
                    .cloned();
                return Ok(e.map(|e| Built::of(Chain::from(e.source()), Some(e))));
            }
            Anchor::Group(g) => g,
        };
        let group = &s.groups[g];
        let kids: Vec<usize> = (0..anchors.len())
            .filter(|k| parents[*k] == Some(at))
            .collect();
        let negated = |k: usize| match anchors[k].0 {
            Anchor::Mention(m) => s.negated_mentions.contains(&m),
            Anchor::Group(x) => s.groups[x].negated,
        };
        // Mentions first (their paths are read off the data), then groups, in question order.
        let mut positive: Vec<usize> = kids.iter().copied().filter(|k| !negated(*k)).collect();
        positive.sort_by_key(|k| (matches!(anchors[*k].0, Anchor::Group(_)), anchors[*k].1));
        let label = group.label.clone();
        let mut built = match (group.mention, positive.first()) {
            // "the mississippi river": that river.
            (Some(m), _) => {
                let e = b.mentions[m]
                    .iter()
                    .find(|e| e.label == label)
                    .or_else(|| b.mentions[m].first())
                    .cloned();
                let Some(e) = e else { return Ok(None) };
                Built::of(Chain::from(e.source()), Some(e))
            }
            (None, Some(&first)) => {
                let Some(h) = self.attached(b, anchors, parents, first, at, &label)? else {
                    return Ok(None);
                };
                h
            }
            // Nothing attached: every node of the label; for a relational noun ("the largest
            // *capital*"), every node its relation reaches from its subjects' label.
            (None, None) => match &group.via {
                Some((src, step)) => Built::of(
                    Chain {
                        source: Source::Label(src.clone()),
                        ops: vec![Op::Hop {
                            path: vec![step.clone()],
                            target: Some(label.clone()),
                        }],
                    },
                    None,
                ),
                None => Built::of(Chain::from(Source::Label(label.clone())), None),
            },
        };
        let rest = positive
            .iter()
            .skip(if group.mention.is_some() { 0 } else { 1 });
        for &k in rest {
            if let Some(h) = self.attached(b, anchors, parents, k, at, &label)? {
                built.score += h.score;
                built.absorb(&h);
                built.chain.ops.push(Op::Keep(Box::new(h.chain)));
            }
        }
        for &k in kids.iter().filter(|k| negated(**k)) {
            if let Some(h) = self.attached(b, anchors, parents, k, at, &label)? {
                built.absorb(&h);
                built.chain.ops.push(Op::Drop(Box::new(h.chain)));
            }
        }
        for c in s.compares.iter().filter(|c| c.group == Some(g)) {
            if let Some(op) = compare_op(b, c, &label) {
                built.chain.ops.push(op);
            }
        }
        for r in s.ranks.iter().filter(|r| r.group == Some(g)) {
            let key = match &r.key {
                KeySpec::Property(p) => RankKey::Property(p.clone()),
                KeySpec::Paths => RankKey::Paths,
                KeySpec::Count {
                    label: counted,
                    at: noun,
                } => {
                    // Counted along the way here ("the venue where X published the most
                    // papers"): how many paths; else how many each reaches.
                    let through = built.path.len() > 1
                        && built.chain.source != Source::Label(label.clone())
                        && path_passes(self, &built.path, counted, b.catalog);
                    if through {
                        RankKey::Paths
                    } else {
                        let words: Vec<usize> = r
                            .words
                            .iter()
                            .copied()
                            .filter(|i| *i != *noun && !b.consumed.contains(i))
                            .collect();
                        let from = self.label_entity(&label, group.at, b.catalog)?;
                        match from {
                            Some(from) => {
                                let pseudo = Built::of(Chain::from(from.source()), Some(from));
                                match self.best_hop(
                                    b,
                                    &pseudo,
                                    Some(&label),
                                    Some(counted),
                                    &words,
                                    false,
                                    group.at,
                                )? {
                                    Some(h) => {
                                        built.read.extend(h.read.read.iter().copied());
                                        RankKey::Reach(h.path, Some(counted.clone()))
                                    }
                                    None => continue,
                                }
                            }
                            None => continue,
                        }
                    }
                }
            };
            built.chain.ops.push(Op::Rank {
                key,
                descending: r.descending,
                k: r.k,
                word: Some(r.word.clone()),
            });
        }
        Ok(Some(built))
    }

    /// An anchor attached to the group at `parent`, with the hop into the group's label: for a
    /// mention, the best hop over its candidate labels (ties by label name).
    fn attached(
        &self,
        b: &Build<'_>,
        anchors: &[(Anchor, usize, usize)],
        parents: &[Option<usize>],
        kid: usize,
        parent: usize,
        label: &str,
    ) -> Result<Option<Built>, AgentError> {
        let words = owned_words(b, anchors, kid, parent);
        // Into a relational noun's group ("which *nationality* is X's spouse"): to its
        // subjects, then its relation.
        let via = match anchors[parent].0 {
            Anchor::Group(g) if !b.structure.groups[g].agent => b.structure.groups[g].via.clone(),
            _ => None,
        };
        let label = match &via {
            Some((src, _)) => src.as_str(),
            None => label,
        };
        let dst = match anchors[parent].0 {
            Anchor::Group(g) => b.structure.groups[g].label.clone(),
            Anchor::Mention(_) => label.to_owned(),
        };
        let candidates: Vec<Built> = match anchors[kid].0 {
            Anchor::Mention(m) => b.mentions[m]
                .iter()
                .map(|e| Built::of(Chain::from(e.source()), Some(e.clone())))
                .collect(),
            Anchor::Group(_) => self
                .anchor_chain(b, anchors, parents, kid, None)?
                .into_iter()
                .collect(),
        };
        let mut best: Option<Built> = None;
        let mut second: Option<Built> = None;
        for c in candidates {
            let from_label = c.chain.label().map(str::to_owned);
            let hop = self.best_hop(
                b,
                &c,
                from_label.as_deref(),
                Some(label),
                &words,
                false,
                anchors[kid].1,
            )?;
            // Something of the group's own label with no content word between is the group
            // itself, no hop: a set ("capitals in the states …"), or a mention joined by a
            // copula ("what kind of venue is V"; "cities in wyoming" is a hop). A word left
            // makes it a hop ("what gender is X's *other half*").
            let bare = words
                .iter()
                .all(|i| crate::vocab::is_stopword(&b.words[*i].norm));
            // … or named as excluded ("the states *excluding* alaska": alaska itself).
            let k_at = anchors[kid].1;
            let before = k_at.checked_sub(1).map(|i| b.words[i].norm.as_str());
            let copula = (before.is_some_and(|_| words.contains(&(k_at - 1)))
                && matches!(
                    before,
                    Some("is" | "are" | "was" | "were" | "called" | "named")
                ))
                || matches!(before, Some("excluding" | "except" | "besides"));
            let joined = matches!(anchors[kid].0, Anchor::Group(_)) || copula;
            let same = from_label.as_deref() == Some(label) && bare && joined;
            let mut built = c.clone();
            match hop {
                Some(h) if !same || h.score > 0.0 => {
                    built.follow(
                        h,
                        Some(label.to_owned()),
                        &format!("the hop from {}", c.chain),
                    );
                }
                _ if same => {}
                _ => continue,
            }
            if let Some((_, step)) = &via {
                built.chain.ops.push(Op::Hop {
                    path: vec![step.clone()],
                    target: Some(dst.clone()),
                });
            }
            match &best {
                Some(x) if built.score <= x.score + 1e-9 => {
                    if second.as_ref().is_none_or(|y| built.score > y.score) {
                        second = Some(built);
                    }
                }
                _ => {
                    second = best.take();
                    best = Some(built);
                }
            }
        }
        // Another label of the mention that read the words almost as well ("colorado": the
        // state or the river).
        if let (Some(best), Some(second)) = (&mut best, second) {
            let margin = best.score - second.score;
            if doubtful(margin, false) {
                best.doubts.push(Doubt {
                    what: "which node the mention names".into(),
                    margin,
                    chosen: best.chain.clone(),
                    other: second.chain,
                });
            }
        }
        Ok(best)
    }

    /// The best path from the end of `from` to `to` reading `words`, with the runner-up and
    /// the words it read. From a mention, the relation sequences its nodes have; from a set,
    /// those a sample of the label's nodes (first by key) has. `open`: the path may end
    /// anywhere, and is taken only when a word names it.
    #[allow(clippy::too_many_arguments)]
    fn best_hop(
        &self,
        b: &Build<'_>,
        from: &Built,
        from_label: Option<&str>,
        to: Option<&str>,
        words: &[usize],
        open: bool,
        at: usize,
    ) -> Result<Option<HopChoice>, AgentError> {
        let entity = match (&from.entity, from.chain.ops.is_empty()) {
            (Some(e), true) => e.clone(),
            _ => {
                let Some(l) = from_label else { return Ok(None) };
                match self.label_entity(l, at, b.catalog)? {
                    Some(e) => e,
                    None => return Ok(None),
                }
            }
        };
        let free: Vec<(usize, &Word)> = words.iter().map(|i| (*i, &b.words[*i])).collect();
        let mut ranked = self.ranked_paths(&PathQuery {
            target: if open { None } else { to },
            free: &free,
            words: b.words,
            entity: &entity,
            consumed: b.consumed,
            catalog: b.catalog,
            meaning: b.meaning,
            min: 1,
            max: MAX_PATH,
            template: b.template,
        })?;
        if open {
            // A hop of the root only when a word names it.
            ranked.retain(|(s, p)| {
                *s > 0.0
                    && !self
                        .path_read(&free, b.words, &entity, b.consumed, b.catalog, b.meaning, p)
                        .named
                        .is_empty()
            });
        }
        let named = |p: &[Step]| {
            !self
                .path_read(&free, b.words, &entity, b.consumed, b.catalog, b.meaning, p)
                .named
                .is_empty()
        };
        if !open && ranked.first().is_none_or(|(_, p)| !named(p)) {
            // No such path in the data from here, or none the words name: the relation the
            // schema has between the two labels that the words name, so that the constraint
            // selects nothing ("how many rivers does alaska have": 0; "films directed by X
            // that *star* Y" when Y stars in none) rather than another relation's ends.
            let schema = self.schema_hops(b, &entity, &free, to);
            if ranked.is_empty() {
                ranked = schema;
            } else if let Some(hop) = schema.into_iter().find(|(_, p)| named(p)) {
                ranked.insert(0, hop);
            }
        }
        let mut it = ranked.into_iter();
        let Some((score, path)) = it.next() else {
            return Ok(None);
        };
        let runner_up = it.find(|(_, p)| *p != path);
        let read = self.path_read(
            &free, b.words, &entity, b.consumed, b.catalog, b.meaning, &path,
        );
        Ok(Some(HopChoice {
            score,
            path,
            runner_up,
            read,
        }))
    }

    /// One-step relations the schema has from `entity`'s label to `to`, scored on the words.
    fn schema_hops(
        &self,
        b: &Build<'_>,
        entity: &Entity,
        free: &[(usize, &Word)],
        to: Option<&str>,
    ) -> Vec<(f64, Vec<Step>)> {
        let Some(to) = to else { return Vec::new() };
        let (Some(from_l), Some(to_l)) =
            (b.catalog.label_id(&entity.label), b.catalog.label_id(to))
        else {
            return Vec::new();
        };
        let (cues, matches, _) =
            self.read_cues(free, b.words, entity, b.consumed, b.catalog, b.meaning);
        let mut out: Vec<(f64, Vec<Step>)> = Vec::new();
        let mut rels: Vec<(&str, &cairn_storage_format::RelationDef)> = b
            .catalog
            .relations()
            .map(|(_, r)| (r.name.as_str(), r))
            .collect();
        rels.sort_by_key(|(n, _)| *n);
        for (name, r) in rels {
            for (src, dst) in &r.endpoints {
                for (reversed, ok) in [
                    (false, *src == from_l && *dst == to_l),
                    (true, *dst == from_l && *src == to_l),
                ] {
                    if !ok {
                        continue;
                    }
                    let steps = vec![Step {
                        relation: name.to_owned(),
                        reversed,
                    }];
                    let score = super::paths::path_score(&steps, &cues, &matches, b.words, false);
                    if !out.iter().any(|(_, p)| *p == steps) {
                        out.push((score, steps));
                    }
                }
            }
        }
        out.sort_by(|a, b| b.0.total_cmp(&a.0));
        out
    }

    /// A stand-in mention for every node of `label`: the first nodes by key (which relation
    /// sequences they have is what a set of that label has), placed at word `at`.
    pub(super) fn label_entity(
        &self,
        label: &str,
        at: usize,
        catalog: &Catalog,
    ) -> Result<Option<Entity>, AgentError> {
        let Some(l) = catalog.label_id(label) else {
            return Ok(None);
        };
        let ids = self.graph.label_nodes_first(l, 64)?;
        if ids.is_empty() {
            return Ok(None);
        }
        let mut e = self.entity(
            label,
            ids,
            l,
            (at, at + 1),
            LinkMethod::Exact,
            false,
            catalog,
        )?;
        e.mention = label.to_owned();
        Ok(Some(e))
    }
}

/// Whether a path passes through a node of `label` before its end (the label of its hops'
/// ends read from the catalog's endpoints).
fn path_passes(_p: &Planner<'_>, path: &[Step], label: &str, catalog: &Catalog) -> bool {
    let Some(l) = catalog.label_id(label) else {
        return false;
    };
    path[..path.len() - 1].iter().any(|s| {
        catalog
            .relation_id(&s.relation)
            .and_then(|r| catalog.relation(r))
            .is_some_and(|r| {
                r.endpoints
                    .iter()
                    .any(|(src, dst)| if s.reversed { *src == l } else { *dst == l })
            })
    })
}

/// A number the question states, as a value: whole numbers as integers.
fn number_value(n: f64) -> cairn_storage_format::Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        cairn_storage_format::Value::Int(n as i64)
    } else {
        cairn_storage_format::Value::Float(n)
    }
}

/// The groups and mentions of the question in order: (anchor, first word, end). A group that
/// is a mention's type is that mention.
fn anchors(b: &Build<'_>) -> Vec<(Anchor, usize, usize)> {
    let s = b.structure;
    let counted = s.counted_nouns();
    let mut out: Vec<(Anchor, usize, usize)> = Vec::new();
    for (i, g) in s.groups.iter().enumerate() {
        if counted.contains(&g.at) {
            continue;
        }
        if g.mention.is_some() {
            // The group stands for the mention, at the earlier of the two.
            let m = g.mention.unwrap_or(0);
            let span = b.mentions[m].first().map_or((g.at, g.at + 1), |e| e.span);
            out.push((Anchor::Group(i), span.0.min(g.at), span.1.max(g.at + 1)));
        } else {
            out.push((Anchor::Group(i), g.at, g.at + 1));
        }
    }
    let apposed: HashSet<usize> = s.groups.iter().filter_map(|g| g.mention).collect();
    // A mention a value is compared with ("higher than *colorado*") is the comparison's
    // operand, not a constraint on a group.
    let operands: HashSet<usize> = s
        .compares
        .iter()
        .filter_map(|c| match c.against {
            Against::Mention(m) => Some(m),
            _ => None,
        })
        .collect();
    for (m, cands) in b.mentions.iter().enumerate() {
        if apposed.contains(&m) || operands.contains(&m) {
            continue;
        }
        if let Some(e) = cands.first() {
            out.push((Anchor::Mention(m), e.span.0, e.span.1));
        }
    }
    out.sort_by_key(|(_, at, _)| *at);
    out
}

/// A comparison as an operation on a set of `label`'s nodes; `None` when the mention it
/// compares with has no nodes.
fn compare_op(b: &Build<'_>, c: &CompareSpec, label: &str) -> Option<Op> {
    let value = match &c.against {
        Against::Number(n) => Operand::Value(number_value(*n)),
        Against::Text(t) => Operand::Value(cairn_storage_format::Value::Str(t.clone())),
        Against::Mention(m) => {
            let e = b.mentions[*m]
                .iter()
                .find(|e| e.label == label)
                .or_else(|| b.mentions[*m].first())?;
            let mut operand = Chain::from(e.source());
            for r in &c.operand_ranks {
                if let KeySpec::Property(p) = &r.key {
                    operand.ops.push(Op::Rank {
                        key: RankKey::Property(p.clone()),
                        descending: r.descending,
                        k: r.k,
                        word: Some(r.word.clone()),
                    });
                }
            }
            Operand::Of(Box::new(operand), c.property.clone())
        }
    };
    Some(Op::Compare {
        property: c.property.clone(),
        cmp: c.cmp,
        value,
    })
}

/// The object of a yes/no question about a mention: another mention, attached to no group,
/// not negated and not the root's place ("austin *texas*", right after it, restricts the root).
fn object_mention(
    b: &Build<'_>,
    anchors: &[(Anchor, usize, usize)],
    parents: &[Option<usize>],
    root: usize,
) -> Option<usize> {
    let s = b.structure;
    let a_mention = |k: usize| match anchors[k].0 {
        Anchor::Mention(_) => true,
        Anchor::Group(g) => s.groups[g].mention.is_some(),
    };
    if s.want != Want::Exists || !a_mention(root) {
        return None;
    }
    let root_end = anchors[root].2;
    (0..anchors.len()).find(|&k| {
        k != root
            && parents[k].is_none()
            && anchors[k].1 != root_end
            && a_mention(k)
            && match anchors[k].0 {
                Anchor::Mention(m) => !s.negated_mentions.contains(&m),
                Anchor::Group(g) => !s.groups[g].negated,
            }
    })
}

/// Content words outside every anchor that neither the structure nor a parent's hop reads.
fn free_words(
    b: &Build<'_>,
    anchors: &[(Anchor, usize, usize)],
    parents: &[Option<usize>],
) -> Vec<usize> {
    let owned: HashSet<usize> = (0..anchors.len())
        .filter_map(|k| parents[k].map(|p| owned_words(b, anchors, k, p)))
        .flatten()
        .collect();
    (0..b.words.len())
        .filter(|i| {
            !b.consumed.contains(i)
                && !owned.contains(i)
                && !crate::vocab::is_stopword(&b.words[*i].norm)
                && !anchors.iter().any(|(_, a, e)| i >= a && i < e)
        })
        .collect()
}

/// Each anchor's parent: the nearest group before it that is a set (not a mention's type),
/// else the nearest after it; the focus has none.
fn parents(anchors: &[(Anchor, usize, usize)], s: &Structure) -> Vec<Option<usize>> {
    let open_group =
        |k: usize| matches!(anchors[k].0, Anchor::Group(g) if s.groups[g].mention.is_none());
    let focus = s
        .focus
        .and_then(|f| anchors.iter().position(|(a, _, _)| *a == Anchor::Group(f)));
    let mut parents: Vec<Option<usize>> = (0..anchors.len())
        .map(|k| {
            if Some(k) == focus {
                return None;
            }
            (0..k)
                .rev()
                .find(|j| open_group(*j))
                .or_else(|| (k + 1..anchors.len()).find(|j| open_group(*j)))
        })
        .collect();
    // Two groups each other's nearest (no focus between them): a tree, not a cycle; the first
    // anchor of a cycle is a root.
    for k in 0..parents.len() {
        let mut at = parents[k];
        for _ in 0..parents.len() {
            match at {
                Some(j) if j == k => {
                    parents[k] = None;
                    break;
                }
                Some(j) => at = parents[j],
                None => break,
            }
        }
    }
    parents
}

/// The words that name the hop between an anchor and its parent: those between it and the
/// anchor before it (its parent or a sibling: "states that border colorado *and border* new
/// mexico"), the words after it when it is the last anchor ("which state does the
/// mississippi *run through*"), and the content words right before the parent's noun ("the
/// *capital* cities of the states").
fn owned_words(
    b: &Build<'_>,
    anchors: &[(Anchor, usize, usize)],
    kid: usize,
    parent: usize,
) -> Vec<usize> {
    let (_, k_at, k_end) = anchors[kid];
    let (_, p_at, _) = anchors[parent];
    let mut out: Vec<usize> = Vec::new();
    if p_at < k_at {
        let prev_end = anchors[..kid].iter().map(|(_, _, e)| *e).max().unwrap_or(0);
        out.extend(prev_end..k_at);
        if kid + 1 == anchors.len() {
            out.extend(k_end..b.words.len());
        }
    } else {
        out.extend(k_end..p_at);
    }
    // A modifier of the parent's noun names the hop into it ("the *capital* cities"): content
    // words right before the noun, after a determiner, a wh-word or the question's start.
    let mut j = p_at;
    let mut modifiers = Vec::new();
    while j > 0 {
        j -= 1;
        let w = &b.words[j];
        if b.consumed.contains(&j)
            || crate::vocab::is_stopword(&w.norm)
            || anchors.iter().any(|(_, a, e)| j >= *a && j < *e)
        {
            break;
        }
        modifiers.push(j);
    }
    let opener = j == 0 && modifiers.contains(&0)
        || matches!(
            b.words.get(j).map(|w| w.norm.as_str()),
            Some("the" | "a" | "an" | "all" | "each" | "every" | "which" | "what")
        );
    if opener {
        out.extend(modifiers);
    }
    out.sort_unstable();
    out.dedup();
    let ranks: HashSet<usize> = b
        .structure
        .ranks
        .iter()
        .flat_map(|r| r.words.iter().copied())
        .collect();
    out.retain(|i| !b.consumed.contains(i) && !ranks.contains(i));
    out
}

/// The label that carries the best property of a choice (ties by label name).
/// The labels a relation path can end at from `start`, by the schema's endpoints (empty when
/// a step has none from where the path is).
fn path_end_labels(catalog: &Catalog, start: &str, path: &[Step]) -> Vec<String> {
    let Some(l) = catalog.label_id(start) else {
        return Vec::new();
    };
    let mut at: Vec<cairn_storage_format::LabelId> = vec![l];
    for step in path {
        let Some(rel) = catalog
            .relations()
            .find(|(_, r)| r.name == step.relation)
            .map(|(_, r)| r)
        else {
            return Vec::new();
        };
        let mut next = Vec::new();
        for (src, dst) in &rel.endpoints {
            let (from, to) = if step.reversed {
                (dst, src)
            } else {
                (src, dst)
            };
            if at.contains(from) && !next.contains(to) {
                next.push(*to);
            }
        }
        at = next;
    }
    at.into_iter()
        .filter_map(|l| catalog.label_name(l).map(str::to_owned))
        .collect()
}

/// A reading the language says as one `MEET` clause: a mention's hop kept where another
/// mention's hop to the same label also arrives, listed or counted ("films directed by X that
/// star Y"). The executor then intersects (and counts) it exactly.
fn meet_of(
    chain: &Chain,
    output: &Output,
    mentions: &[Vec<Entity>],
) -> Option<(Entity, Vec<Step>)> {
    if !matches!(output, Output::Nodes | Output::Count) {
        return None;
    }
    let [Op::Hop { target, .. }, Op::Keep(other)] = chain.ops.as_slice() else {
        return None;
    };
    let (Source::Nodes { .. }, Source::Nodes { label, keys, .. }) = (&chain.source, &other.source)
    else {
        return None;
    };
    let [Op::Hop {
        path,
        target: other_target,
    }] = other.ops.as_slice()
    else {
        return None;
    };
    if other_target != target || path.is_empty() {
        return None;
    }
    let e = mentions
        .iter()
        .flatten()
        .find(|e| e.label == *label && e.keys == *keys)?;
    Some((e.clone(), path.clone()))
}

fn label_of_property(choice: &PropChoice, props: &LabelProps) -> Option<String> {
    choice.iter().find_map(|(p, _)| {
        props
            .iter()
            .find(|(_, ps)| ps.iter().any(|x| x.name == *p))
            .map(|(l, _)| l.clone())
    })
}

impl<'g> Planner<'g> {
    /// A plan from the question's structure, `None` when it has no root to start from.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn plan_structured(
        &self,
        question: &str,
        b: &Build<'_>,
        others: &[Entity],
        sizes: super::Sizes,
    ) -> Result<Option<super::QueryPlan>, AgentError> {
        use super::{Aggregate, QueryPlan, QuestionType};
        let Some((built, output)) = self.build(b)? else {
            return Ok(None);
        };
        let s = b.structure;
        let ranked = built
            .chain
            .ops
            .iter()
            .any(|op| matches!(op, Op::Rank { .. }));
        let hops = built.chain.steps().len();
        let qtype = match &output {
            Output::Property(_) => QuestionType::Attribute,
            Output::Count | Output::Aggregate(..) => QuestionType::Aggregation,
            _ if ranked => QuestionType::Aggregation,
            _ if hops <= 1 => QuestionType::Relation,
            _ => QuestionType::MultiHop,
        };
        let aggregate = match (&output, s.ranks.first()) {
            (Output::Count, _) => Some(Aggregate::Count),
            (_, Some(r)) => Some(Aggregate::Top {
                k: r.k,
                by: match &r.key {
                    KeySpec::Property(p) => Some(p.clone()),
                    _ => None,
                },
            }),
            _ => None,
        };
        let attribute = match &output {
            Output::Property(p) => Some(p.clone()),
            _ => None,
        };
        let entity = match &built.chain.source {
            Source::Nodes { .. } => built.entity.clone(),
            Source::Label(_) => None,
        };
        let path = match built.chain.ops.first() {
            Some(Op::Hop { path, .. }) if entity.is_some() => path.clone(),
            _ => Vec::new(),
        };
        // Content words neither a mention, nor the structure's, nor read by a hop.
        let in_mention = |i: usize| {
            b.mentions
                .iter()
                .flatten()
                .any(|e| i >= e.span.0 && i < e.span.1)
        };
        let mut unused: Vec<String> = b
            .words
            .iter()
            .enumerate()
            .filter(|(i, w)| {
                let content = !crate::vocab::is_stopword(&w.norm)
                    && !w.norm.chars().all(|c| c.is_ascii_digit());
                let accounted = in_mention(*i)
                    || (b.consumed.contains(i) && !s.opaque.contains(i))
                    || built.read.contains(i);
                content && !accounted
            })
            .map(|(_, w)| w.norm.clone())
            .collect();
        unused.extend(built.unread.iter().map(|i| b.words[*i].norm.clone()));
        unused.extend(s.unsure.iter().map(|i| b.words[*i].norm.clone()));
        // A mention the reading does not start from anywhere is not used ("the *high point* of
        // wyoming" read as the city High Point).
        let starts = built.chain.starts();
        for m in b.mentions {
            if !m
                .iter()
                .any(|e| starts.iter().any(|s| s.iter().any(|k| e.keys.contains(k))))
            {
                if let Some(e) = m.first() {
                    unused.push(e.mention.clone());
                }
            }
        }
        // "where" asks where something is: a reading that ends at the thing itself does not
        // answer it ("where is the smallest city").
        let ends_with_hop = matches!(built.chain.ops.last(), Some(Op::Hop { .. }));
        if b.words.iter().any(|w| w.norm == "where") && !ends_with_hop {
            unused.push("where".into());
        }
        let doubts = built.doubts.clone();
        let conjunct = meet_of(&built.chain, &output, b.mentions);
        // The mentions besides the one the plan starts from.
        let others: Vec<Entity> = others
            .iter()
            .filter(|o| entity.as_ref().is_none_or(|e| e.keys != o.keys))
            .cloned()
            .collect();
        let mut plan = QueryPlan {
            question: question.to_owned(),
            qtype,
            entity,
            other_entities: others,
            conjunct,
            target: built.chain.label().map(str::to_owned),
            path,
            attribute,
            aggregate,
            sizes,
            text: String::new(),
            plan: super::compile::placeholder_plan(),
            llm: false,
            choices: Vec::new(),
            template: b.template.to_owned(),
            // A reading's hops are read from parts of the question; its lessons are the
            // template's (patterns of parts met questions of other shapes and misled them).
            patterns: Vec::new(),
            unused,
            doubts,
            modifiers: Vec::new(),
            reading: Some(crate::reading::Reading {
                chain: built.chain,
                output,
            }),
        };
        self.compile(&mut plan)?;
        Ok(Some(plan))
    }
}
