//! The generator's text resembles real bibliographic data: names and titles are distinct but
//! for realistic rates of homonyms and reused titles, at every scale.

use cairn_generate::{Academic, AcademicConfig};
use std::collections::HashSet;

fn distinct_share<'a>(texts: impl Iterator<Item = &'a str>) -> (usize, f64) {
    let texts: Vec<&str> = texts.collect();
    let distinct: HashSet<&str> = texts.iter().copied().collect();
    (texts.len(), distinct.len() as f64 / texts.len() as f64)
}

#[test]
fn every_large_label_has_95_percent_distinct_descriptions() {
    let g = Academic::generate(&AcademicConfig::with_nodes(50_000, 42));
    let labels = [
        (
            "Author",
            distinct_share(g.authors.iter().map(|a| a.name.as_str())),
        ),
        (
            "Paper",
            distinct_share(g.papers.iter().map(|p| p.title.as_str())),
        ),
        (
            "Venue",
            distinct_share(g.venues.iter().map(|v| v.name.as_str())),
        ),
        (
            "Topic",
            distinct_share(g.topics.iter().map(|t| t.name.as_str())),
        ),
    ];
    let mut checked = 0;
    for (label, (n, share)) in labels {
        if n > 1_000 {
            checked += 1;
            assert!(share >= 0.95, "{label}: {share:.4} of {n} distinct");
        }
    }
    assert_eq!(
        checked, 2,
        "authors and papers both exceed 1,000 at 50k nodes"
    );
}

#[test]
fn homonyms_and_reused_titles_occur_at_small_rates() {
    let g = Academic::generate(&AcademicConfig::with_nodes(50_000, 7));
    let (_, authors) = distinct_share(g.authors.iter().map(|a| a.name.as_str()));
    let (_, papers) = distinct_share(g.papers.iter().map(|p| p.title.as_str()));
    assert!(
        (0.97..0.995).contains(&authors),
        "author names {authors:.4}"
    );
    assert!((0.995..1.0).contains(&papers), "titles {papers:.4}");
    // Venues and topics never repeat.
    let (_, venues) = distinct_share(g.venues.iter().map(|v| v.name.as_str()));
    let (_, topics) = distinct_share(g.topics.iter().map(|t| t.name.as_str()));
    assert_eq!((venues, topics), (1.0, 1.0));
}

#[test]
fn titles_of_a_topic_use_its_terms() {
    let g = Academic::generate(&AcademicConfig::with_nodes(5_000, 3));
    let topic = g.topics[0].name.as_str();
    assert_eq!(topic, "data mining");
    let terms = [
        "frequent pattern",
        "clustering",
        "association rule",
        "outlier",
        "pattern mining",
    ];
    for p in g.papers.iter().filter(|p| p.topics[0] == 0) {
        let t = p.title.to_lowercase();
        assert!(
            terms.iter().any(|w| t.contains(w)) || t.contains(topic),
            "{:?} has no data-mining term",
            p.title
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_texts() {
    let c = AcademicConfig::with_nodes(3_000, 11);
    assert_eq!(Academic::generate(&c), Academic::generate(&c));
    let other = Academic::generate(&AcademicConfig::with_nodes(3_000, 12));
    assert_ne!(
        Academic::generate(&c).papers[0].title,
        other.papers[0].title
    );
}

#[test]
fn fresh_titles_look_generated_and_avoid_marked_ones() {
    use cairn_generate::Titles;
    use rand::SeedableRng;
    let g = Academic::generate(&AcademicConfig::with_nodes(5_000, 42));
    let mut titles = Titles::new();
    for p in &g.papers {
        titles.mark_used(&p.title);
    }
    let existing: HashSet<&str> = g.papers.iter().map(|p| p.title.as_str()).collect();
    let vocabulary: HashSet<String> = g
        .papers
        .iter()
        .flat_map(|p| p.title.split(' ').map(str::to_lowercase))
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut drawn = HashSet::new();
    for topic in 0..500 {
        let Some(t) = titles.fresh(&mut rng, topic) else {
            panic!("no fresh title of topic {topic} in 64 draws");
        };
        assert!(!existing.contains(t.as_str()), "{t:?} already exists");
        assert!(drawn.insert(t.clone()), "{t:?} drawn twice");
        let known = t
            .split(' ')
            .filter(|w| vocabulary.contains(&w.to_lowercase()))
            .count();
        // the generator's own words, not random ones (topics past the graph's few add terms)
        assert!(
            known * 2 >= t.split(' ').count(),
            "{t:?}: {known} known words"
        );
    }
}
