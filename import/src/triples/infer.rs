//! Label inference for triples: which entities are of one kind, and what to call that kind.
//!
//! The subjects of one relation are one *role class*, and so are its objects. Two classes are
//! joined (union-find) when they share at least [`JOIN_SHARE`] (two object classes:
//! [`JOIN_SHARE_OBJECTS`]) of the smaller one's entities, and at least [`MIN_SHARED`]:
//! `plays_in_club`'s subjects and `plays_in_club_inverse`'s objects (the same players) join,
//! while ages and shirt numbers, which share only a few values such as `23`, stay apart. The
//! share test is the guard against one giant class that a few coincidental shared entities would
//! chain together. An entity in several joined classes takes the one it plays most roles in
//! (the caller decides that from the per-class names returned here).

use hashbrown::HashMap;

/// The share of the smaller class's entities two classes must have in common to be joined, when
/// both are object classes: objects are often values (numbers, years) whose strings coincide
/// across kinds, so they need more evidence.
const JOIN_SHARE_OBJECTS: f64 = 0.5;
/// The same share when one of them is a subject class (the things that have relations).
const JOIN_SHARE: f64 = 0.25;

/// Fewer shared entities than this never join two classes: a class of one or two entities would
/// otherwise bridge unrelated kinds (a track that is also a region).
const MIN_SHARED: u32 = 2;

/// An entity playing more roles than this counts only its most frequent ones when measuring
/// overlap, so that hubs do not cost quadratic time.
const MAX_ROLES: usize = 32;

/// Words that start a relation name without naming its object (`plays_in_club` → `Club`). General
/// English function words, not any data set's vocabulary.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "at", "by", "for", "from", "in", "into", "of", "on", "the", "this", "to", "with",
];
const AUXILIARIES: &[&str] = &[
    "are", "be", "been", "had", "has", "have", "is", "was", "were",
];

/// The inferred label of every role class (`class(relation, role)` indexes the result), `None`
/// for a group of classes no relation names. `counted` holds (entity, class, triples) sorted by
/// entity.
pub(super) fn classes(
    relations: &[String],
    counted: &[(u32, u32, u32)],
    classes: usize,
) -> Vec<Option<String>> {
    let mut size = vec![0usize; classes];
    for &(_, c, _) in counted {
        size[c as usize] += 1;
    }
    // Shared entities per pair of classes.
    let mut shared: HashMap<(u32, u32), u32> = HashMap::new();
    for entity in counted.chunk_by(|a, b| a.0 == b.0) {
        let mut mine: Vec<(u32, u32)> = entity.iter().map(|&(_, c, n)| (c, n)).collect();
        if mine.len() > MAX_ROLES {
            mine.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            mine.truncate(MAX_ROLES);
            mine.sort_unstable();
        }
        for (k, &(a, _)) in mine.iter().enumerate() {
            for &(b, _) in &mine[k + 1..] {
                *shared.entry((a, b)).or_default() += 1;
            }
        }
    }
    // Own name of every class; classes of one name are one kind (every `__people__person__…`
    // subject is a Person, and `is_in_country`'s objects are `plays_for_country`'s Countries).
    let own: Vec<Option<(String, bool)>> = (0..classes as u32)
        .map(|c| candidate(&relations[(c / 2) as usize], c % 2 == 0))
        .collect();
    let mut parent: Vec<u32> = (0..classes as u32).collect();
    // The type name of each root, if any: two roots with different type names are never joined
    // by overlap (Freebase types overlap, e.g. every Person is also a Topic; an entity of both
    // then takes the one it has more evidence for).
    let mut type_of: Vec<Option<String>> = own
        .iter()
        .map(|o| o.as_ref().filter(|(_, t)| *t).map(|(n, _)| n.clone()))
        .collect();
    let mut by_name: HashMap<&str, u32> = HashMap::new();
    for (c, o) in own.iter().enumerate() {
        if size[c] == 0 {
            continue;
        }
        if let Some((name, _)) = o {
            match by_name.get(name.as_str()) {
                Some(&first) => {
                    union(&mut parent, &mut type_of, first, c as u32);
                }
                None => {
                    by_name.insert(name, c as u32);
                }
            }
        }
    }
    let mut pairs: Vec<((u32, u32), u32)> = shared.into_iter().collect();
    pairs.sort_unstable();
    for ((a, b), n) in pairs {
        let smaller = size[a as usize].min(size[b as usize]);
        let share = if a % 2 == 1 && b % 2 == 1 {
            JOIN_SHARE_OBJECTS
        } else {
            JOIN_SHARE
        };
        if n >= MIN_SHARED && f64::from(n) >= share * smaller as f64 {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            let clash = matches!(
                (&type_of[ra as usize], &type_of[rb as usize]),
                (Some(x), Some(y)) if x != y
            );
            if !clash {
                union(&mut parent, &mut type_of, a, b);
            }
        }
    }
    // A group is named by its best class name: the largest class, a type name counting double
    // (it says what its entities are; a property name says what they are to someone else).
    // Classes of one name are in one group, so group names are distinct.
    let mut best: HashMap<u32, (usize, &str)> = HashMap::new();
    for c in 0..classes {
        let Some((name, is_type)) = &own[c] else {
            continue;
        };
        if size[c] == 0 {
            continue;
        }
        let root = find(&mut parent, c as u32);
        let mine = (size[c] * if *is_type { 2 } else { 1 }, name.as_str());
        let better = |old: &(usize, &str)| {
            (mine.0, std::cmp::Reverse(mine.1)) > (old.0, std::cmp::Reverse(old.1))
        };
        match best.get(&root) {
            Some(old) if !better(old) => {}
            _ => {
                best.insert(root, mine);
            }
        }
    }
    (0..classes as u32)
        .map(|c| {
            let root = find(&mut parent, c);
            best.get(&root).map(|(_, n)| (*n).to_owned())
        })
        .collect()
}

/// Joins the groups of `a` and `b`; the new root keeps a type name either had.
fn union(parent: &mut [u32], type_of: &mut [Option<String>], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra == rb {
        return;
    }
    let (root, child) = (ra.min(rb), ra.max(rb));
    parent[child as usize] = root;
    if type_of[root as usize].is_none() {
        type_of[root as usize] = type_of[child as usize].take();
    }
}

fn find(parent: &mut [u32], mut c: u32) -> u32 {
    while parent[c as usize] != c {
        let up = parent[parent[c as usize] as usize];
        parent[c as usize] = up;
        c = up;
    }
    c
}

/// What `relation` calls its subjects (`subject`) or objects, if anything: Freebase-style
/// `__domain__type__property` names its subjects `Type` and its objects `Property`; a plain
/// `rel` names its objects, and `rel_inverse` (whose subjects are `rel`'s objects) its subjects.
fn candidate(relation: &str, subject: bool) -> Option<(String, bool)> {
    if let Some(path) = relation.strip_prefix("__") {
        let parts: Vec<&str> = path.split("__").collect();
        if let [.., ty, property] = parts[..] {
            if parts.len() >= 3 {
                return if subject {
                    noun_name(ty).map(|n| (n, true))
                } else {
                    noun_name(property).map(|n| (n, false))
                };
            }
        }
    }
    match (relation.strip_suffix("_inverse"), subject) {
        (Some(base), true) => label_name(base).map(|n| (n, false)),
        (None, false) => label_name(relation).map(|n| (n, false)),
        _ => None,
    }
}

/// A plain relation phrase as a label: words in CamelCase, without a leading verb
/// (`plays_in_club`, `wears_number`, `is_aged`) or function words.
pub(super) fn label_name(phrase: &str) -> Option<String> {
    let mut words = words(phrase);
    // A leading third-person verb or auxiliary, followed by a function word or one more word.
    if let [first, second, ..] = words[..] {
        let lower = first.to_lowercase();
        let verb = AUXILIARIES.contains(&lower.as_str())
            || (lower.len() > 3 && lower.ends_with('s') && !lower.ends_with("ss"));
        if verb && (words.len() == 2 || function(second)) {
            words.remove(0);
        }
    }
    camel(words)
}

/// A Freebase type or property (already a noun phrase: `us_county`, `position_s`) as a label:
/// CamelCase without leading function words or the plural marker `_s`.
fn noun_name(phrase: &str) -> Option<String> {
    let mut words = words(phrase);
    if words.len() >= 2 && words.last() == Some(&"s") {
        words.pop();
    }
    camel(words)
}

fn words(phrase: &str) -> Vec<&str> {
    phrase
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

fn function(word: &str) -> bool {
    FUNCTION_WORDS.contains(&word.to_lowercase().as_str())
}

/// Words in CamelCase, leading function words dropped; a leading digit gets an `L` so that the
/// label is an identifier.
fn camel(mut words: Vec<&str>) -> Option<String> {
    while words.len() > 1 && function(words[0]) {
        words.remove(0);
    }
    let mut name = String::new();
    for w in words {
        let mut chars = w.chars();
        if let Some(c) = chars.next() {
            name.extend(c.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    match name.chars().next() {
        None => None,
        Some(c) if c.is_ascii_digit() => Some(format!("L{name}")),
        Some(_) => Some(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_relation_phrases() {
        assert_eq!(label_name("plays_in_club").as_deref(), Some("Club"));
        assert_eq!(label_name("nationality").as_deref(), Some("Nationality"));
        assert_eq!(label_name("is_in_country").as_deref(), Some("Country"));
        assert_eq!(label_name("wears_number").as_deref(), Some("Number"));
        assert_eq!(
            label_name("place_of_birth").as_deref(),
            Some("PlaceOfBirth")
        );
        assert_eq!(noun_name("position_s").as_deref(), Some("Position"));
        assert_eq!(noun_name("us_county").as_deref(), Some("UsCounty"));
        assert_eq!(label_name("parents").as_deref(), Some("Parents"));
        assert_eq!(label_name("__"), None);
    }

    #[test]
    fn freebase_relations_name_the_subject_type() {
        let r = "__music__album__artist";
        assert_eq!(candidate(r, true), Some(("Album".to_owned(), true)));
        assert_eq!(candidate(r, false), Some(("Artist".to_owned(), false)));
        assert_eq!(candidate("spouse", true), None);
        assert_eq!(
            candidate("plays_in_club_inverse", true),
            Some(("Club".to_owned(), false))
        );
        assert_eq!(candidate("plays_in_club_inverse", false), None);
    }
}
