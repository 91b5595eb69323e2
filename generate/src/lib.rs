//! A generator of heterogeneous academic graphs, deterministic from a seed: Authors, Papers,
//! Venues and Topics connected by AUTHORED, PUBLISHED_IN, CITES and HAS_TOPIC. Tests,
//! benchmarks, the demo and the QA evaluation all use it, and its in-memory form gives them
//! gold answers computed from the same structure that is imported.
//!
//! Shape: authors belong to a topic community and have power-law (Zipf) productivity; papers
//! are written mostly inside one community, published in a venue of their topic, and cite
//! earlier papers with preferential attachment (so citation counts follow a power law).
//!
//! Text: author names and paper titles are distinct at every scale but for realistic rates of
//! homonyms and reused titles (`HOMONYM_RATE`, `TITLE_REUSE_RATE`), and titles are made of their
//! topic's terms, so vector search and exploration are measured on data that does not repeat
//! itself. They come from their own random stream: the structure does not depend on them.

use cairn_import::dump::{DumpEdge, DumpNode, DumpRecord, NodeRef};
use cairn_storage_format::Value;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::{Path, PathBuf};

mod text;
mod words;

pub use text::Titles;
use text::{roman, title_case, Names, HOMONYM_RATE, TITLE_REUSE_RATE};
use words::{TOPICS, VENUE_FORMS};

/// Sizes and seed of a generated graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcademicConfig {
    pub seed: u64,
    pub authors: usize,
    pub papers: usize,
    pub venues: usize,
    pub topics: usize,
    /// Mean number of earlier papers each paper cites.
    pub citations_per_paper: usize,
    pub first_year: i64,
    pub last_year: i64,
}

impl AcademicConfig {
    /// About `nodes` nodes in realistic proportions (35% authors, 64% papers, venues and topics
    /// the rest), about 6.5 edges per node.
    pub fn with_nodes(nodes: usize, seed: u64) -> Self {
        let topics = (nodes / 200).clamp(4, TOPICS.len());
        let venues = (nodes / 500).clamp(3, 4_000);
        let rest = nodes.saturating_sub(topics + venues).max(10);
        AcademicConfig {
            seed,
            authors: (rest * 35 / 100).max(4),
            papers: (rest * 65 / 100).max(6),
            venues,
            topics,
            citations_per_paper: 5,
            first_year: 1995,
            last_year: 2024,
        }
    }

    /// A few hundred nodes: the size tests use.
    pub fn small(seed: u64) -> Self {
        Self::with_nodes(400, seed)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Topic {
    pub name: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Venue {
    pub name: String,
    pub kind: &'static str,
    pub topic: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Author {
    pub name: String,
    /// The topic community the author mostly publishes in.
    pub community: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Paper {
    pub title: String,
    pub year: i64,
    pub venue: u32,
    /// Author indexes, first author first.
    pub authors: Vec<u32>,
    /// Topic indexes, main topic first.
    pub topics: Vec<u32>,
    /// Indexes of the (earlier) papers this one cites.
    pub cites: Vec<u32>,
    /// How many papers cite this one.
    pub citations: u32,
}

/// A generated academic graph, held in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Academic {
    pub config: AcademicConfig,
    pub topics: Vec<Topic>,
    pub venues: Vec<Venue>,
    pub authors: Vec<Author>,
    pub papers: Vec<Paper>,
}

/// External keys: `a{i}`, `p{i}`, `v{i}`, `t{i}`.
pub fn author_key(i: u32) -> String {
    format!("a{i}")
}
pub fn paper_key(i: u32) -> String {
    format!("p{i}")
}
pub fn venue_key(i: u32) -> String {
    format!("v{i}")
}
pub fn topic_key(i: u32) -> String {
    format!("t{i}")
}

impl Academic {
    /// Generates the graph described by `config`. The same config gives the same graph.
    pub fn generate(config: &AcademicConfig) -> Academic {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let n_topics = config.topics.clamp(1, TOPICS.len());
        let topics: Vec<Topic> = TOPICS[..n_topics]
            .iter()
            .map(|(name, _)| Topic {
                name: (*name).to_owned(),
            })
            .collect();

        let venues: Vec<Venue> = (0..config.venues.max(1))
            .map(|i| {
                let topic = (i % n_topics) as u32;
                let (prefix, kind) = VENUE_FORMS[(i / n_topics) % VENUE_FORMS.len()];
                let round = i / (n_topics * VENUE_FORMS.len());
                let suffix = if round == 0 {
                    String::new()
                } else {
                    format!(" {}", roman(round + 1))
                };
                Venue {
                    name: format!("{prefix} {}{suffix}", title_case(TOPICS[topic as usize].0)),
                    kind,
                    topic,
                }
            })
            .collect();
        let venues_of_topic: Vec<Vec<u32>> = (0..n_topics)
            .map(|t| {
                (0..venues.len() as u32)
                    .filter(|v| venues[*v as usize].topic as usize == t)
                    .collect()
            })
            .collect();

        let authors: Vec<Author> = (0..config.authors.max(1))
            .map(|_| Author {
                name: String::new(),
                community: rng.random_range(0..n_topics as u32),
            })
            .collect();
        // Zipf productivity inside each community: the author ranked r gets weight 1/(r+1)^1.1.
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); n_topics];
        for (i, a) in authors.iter().enumerate() {
            members[a.community as usize].push(i as u32);
        }
        let pickers: Vec<Weighted> = members
            .iter()
            .map(|m| Weighted::zipf(m.len(), 1.1))
            .collect();
        let all_authors = Weighted::zipf(authors.len(), 1.1);

        let n_papers = config.papers.max(1);
        let span = (config.last_year - config.first_year).max(0) + 1;
        let mut papers: Vec<Paper> = Vec::with_capacity(n_papers);
        // Preferential attachment pools: a paper appears once, plus once per citation received.
        let mut pool: Vec<u32> = Vec::new();
        let mut topic_pool: Vec<Vec<u32>> = vec![Vec::new(); n_topics];
        for i in 0..n_papers {
            let mut topic = rng.random_range(0..n_topics as u32);
            let first = if members[topic as usize].is_empty() {
                let a = all_authors.sample(&mut rng) as u32;
                topic = authors[a as usize].community;
                a
            } else {
                members[topic as usize][pickers[topic as usize].sample(&mut rng)]
            };
            let mut paper_authors = vec![first];
            let n_authors = [1, 2, 2, 3, 3, 3, 4, 4, 5][rng.random_range(0..9)];
            let community = &members[topic as usize];
            for _ in 1..n_authors {
                let a = if rng.random_bool(0.75) && !community.is_empty() {
                    community[pickers[topic as usize].sample(&mut rng)]
                } else {
                    all_authors.sample(&mut rng) as u32
                };
                if !paper_authors.contains(&a) {
                    paper_authors.push(a);
                }
            }
            let mut paper_topics = vec![topic];
            if rng.random_bool(0.6) {
                let t = rng.random_range(0..n_topics as u32);
                if t != topic {
                    paper_topics.push(t);
                }
            }
            let vs = &venues_of_topic[topic as usize];
            let venue = if vs.is_empty() {
                rng.random_range(0..venues.len() as u32)
            } else {
                vs[rng.random_range(0..vs.len())]
            };
            let mut cites = Vec::new();
            if !pool.is_empty() {
                let wanted = rng.random_range(0..=config.citations_per_paper * 2);
                for _ in 0..wanted {
                    let tp = &topic_pool[topic as usize];
                    let target = if rng.random_bool(0.7) && !tp.is_empty() {
                        tp[rng.random_range(0..tp.len())]
                    } else {
                        pool[rng.random_range(0..pool.len())]
                    };
                    if !cites.contains(&target) {
                        cites.push(target);
                    }
                }
            }
            for &c in &cites {
                papers[c as usize].citations += 1;
                pool.push(c);
                topic_pool[papers[c as usize].topics[0] as usize].push(c);
            }
            let year = config.first_year + (i as i64 * span) / n_papers as i64;
            papers.push(Paper {
                title: String::new(),
                year,
                venue,
                authors: paper_authors,
                topics: paper_topics,
                cites,
                citations: 0,
            });
            pool.push(i as u32);
            topic_pool[topic as usize].push(i as u32);
        }
        let mut g = Academic {
            config: config.clone(),
            topics,
            venues,
            authors,
            papers,
        };
        g.write_texts();
        g
    }

    /// Names the authors and titles the papers from a separate random stream, so the text
    /// vocabulary can change without changing the graph's structure.
    fn write_texts(&mut self) {
        let mut rng = ChaCha8Rng::seed_from_u64(self.config.seed);
        rng.set_stream(1);
        let mut names = Names::new();
        for i in 0..self.authors.len() {
            self.authors[i].name = if i > 0 && rng.random_bool(HOMONYM_RATE) {
                self.authors[rng.random_range(0..i)].name.clone()
            } else {
                names.next(&mut rng)
            };
        }
        let mut titles = Titles::new();
        let mut of_topic: Vec<Vec<u32>> = vec![Vec::new(); self.topics.len()];
        for i in 0..self.papers.len() {
            let topic = self.papers[i].topics[0] as usize;
            let earlier = &of_topic[topic];
            self.papers[i].title = if !earlier.is_empty() && rng.random_bool(TITLE_REUSE_RATE) {
                self.papers[earlier[rng.random_range(0..earlier.len())] as usize]
                    .title
                    .clone()
            } else {
                titles.next(&mut rng, topic)
            };
            of_topic[topic].push(i as u32);
        }
    }

    pub fn node_count(&self) -> usize {
        self.topics.len() + self.venues.len() + self.authors.len() + self.papers.len()
    }

    pub fn edge_count(&self) -> usize {
        self.papers
            .iter()
            .map(|p| p.authors.len() + 1 + p.topics.len() + p.cites.len())
            .sum()
    }

    /// Every node as a dump record: topics, venues, authors, papers.
    pub fn nodes(&self) -> impl Iterator<Item = DumpNode> + '_ {
        let node = |label: &str, key: String, props: Vec<(&str, Value)>| DumpNode {
            label: label.to_owned(),
            key,
            props: props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            description: None,
            vector: None,
        };
        let topics = self.topics.iter().enumerate().map(move |(i, t)| {
            node(
                "Topic",
                topic_key(i as u32),
                vec![("name", Value::from(t.name.as_str()))],
            )
        });
        let venues = self.venues.iter().enumerate().map(move |(i, v)| {
            node(
                "Venue",
                venue_key(i as u32),
                vec![
                    ("name", Value::from(v.name.as_str())),
                    ("kind", Value::from(v.kind)),
                ],
            )
        });
        let authors = self.authors.iter().enumerate().map(move |(i, a)| {
            node(
                "Author",
                author_key(i as u32),
                vec![("name", Value::from(a.name.as_str()))],
            )
        });
        let papers = self.papers.iter().enumerate().map(move |(i, p)| {
            node(
                "Paper",
                paper_key(i as u32),
                vec![
                    ("title", Value::from(p.title.as_str())),
                    ("year", Value::Int(p.year)),
                    ("citations", Value::Int(i64::from(p.citations))),
                ],
            )
        });
        topics.chain(venues).chain(authors).chain(papers)
    }

    /// Every edge as a dump record: AUTHORED, PUBLISHED_IN, HAS_TOPIC, CITES.
    pub fn edges(&self) -> impl Iterator<Item = DumpEdge> + '_ {
        let r = |label: &str, key: String| NodeRef {
            label: label.to_owned(),
            key,
        };
        let e = |rel: &str, from: NodeRef, to: NodeRef| DumpEdge {
            rel: rel.to_owned(),
            from,
            to,
            props: Vec::new(),
            weight: None,
        };
        self.papers.iter().enumerate().flat_map(move |(i, p)| {
            let pk = paper_key(i as u32);
            let authored = p.authors.iter().map(move |a| {
                e(
                    "AUTHORED",
                    r("Author", author_key(*a)),
                    r("Paper", paper_key(i as u32)),
                )
            });
            let venue = std::iter::once(e(
                "PUBLISHED_IN",
                r("Paper", pk.clone()),
                r("Venue", venue_key(p.venue)),
            ));
            let topics = p.topics.iter().map(move |t| {
                e(
                    "HAS_TOPIC",
                    r("Paper", paper_key(i as u32)),
                    r("Topic", topic_key(*t)),
                )
            });
            let cites = p.cites.iter().map(move |c| {
                e(
                    "CITES",
                    r("Paper", paper_key(i as u32)),
                    r("Paper", paper_key(*c)),
                )
            });
            authored.chain(venue).chain(topics).chain(cites)
        })
    }

    /// The whole graph as one stream of dump records, nodes before the edges that need them:
    /// what an import of the generated graph reads.
    pub fn records(&self) -> impl Iterator<Item = DumpRecord> + '_ {
        self.nodes()
            .map(DumpRecord::Node)
            .chain(self.edges().map(DumpRecord::Edge))
    }

    /// Writes `nodes.jsonl` and `edges.jsonl` into `dir`; returns their paths.
    pub fn write_jsonl(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let nodes = dir.join("nodes.jsonl");
        let edges = dir.join("edges.jsonl");
        let mut w = std::io::BufWriter::new(std::fs::File::create(&nodes)?);
        for n in self.nodes() {
            serde_json::to_writer(&mut w, &DumpRecord::Node(n))?;
            w.write_all(b"\n")?;
        }
        w.flush()?;
        let mut w = std::io::BufWriter::new(std::fs::File::create(&edges)?);
        for e in self.edges() {
            serde_json::to_writer(&mut w, &DumpRecord::Edge(e))?;
            w.write_all(b"\n")?;
        }
        w.flush()?;
        Ok(vec![nodes, edges])
    }

    /// Writes Neo4j-admin-style CSV files into `dir` (one per label and per relation, ids
    /// grouped by label); returns their paths, node files first.
    pub fn write_csv(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut files = Vec::new();
        let mut open =
            |name: &str, header: &[&str]| -> std::io::Result<csv::Writer<std::fs::File>> {
                let path = dir.join(name);
                files.push(path.clone());
                let mut w = csv::Writer::from_path(&path)?;
                w.write_record(header)?;
                Ok(w)
            };
        let mut w = open("topics.csv", &["key:ID(Topic)", "name"])?;
        for (i, t) in self.topics.iter().enumerate() {
            w.write_record([topic_key(i as u32), t.name.clone()])?;
        }
        w.flush()?;
        let mut w = open("venues.csv", &["key:ID(Venue)", "name", "kind"])?;
        for (i, v) in self.venues.iter().enumerate() {
            w.write_record([venue_key(i as u32), v.name.clone(), v.kind.to_owned()])?;
        }
        w.flush()?;
        let mut w = open("authors.csv", &["key:ID(Author)", "name"])?;
        for (i, a) in self.authors.iter().enumerate() {
            w.write_record([author_key(i as u32), a.name.clone()])?;
        }
        w.flush()?;
        let mut w = open(
            "papers.csv",
            &["key:ID(Paper)", "title", "year:int", "citations:int"],
        )?;
        for (i, p) in self.papers.iter().enumerate() {
            w.write_record([
                paper_key(i as u32),
                p.title.clone(),
                p.year.to_string(),
                p.citations.to_string(),
            ])?;
        }
        w.flush()?;
        let rels: [(&str, &str, &str, &str); 4] = [
            ("authored.csv", "Author", "Paper", "AUTHORED"),
            ("published_in.csv", "Paper", "Venue", "PUBLISHED_IN"),
            ("has_topic.csv", "Paper", "Topic", "HAS_TOPIC"),
            ("cites.csv", "Paper", "Paper", "CITES"),
        ];
        for (file, from, to, rel) in rels {
            let mut w = open(
                file,
                &[
                    &format!(":START_ID({from})"),
                    &format!(":END_ID({to})"),
                    ":TYPE",
                ],
            )?;
            for e in self.edges().filter(|e| e.rel == rel) {
                w.write_record([e.from.key.as_str(), e.to.key.as_str(), rel])?;
            }
            w.flush()?;
        }
        Ok(files)
    }
}

/// Cumulative weights for sampling an index in O(log n).
#[derive(Debug)]
struct Weighted {
    cumulative: Vec<f64>,
}

impl Weighted {
    fn zipf(n: usize, s: f64) -> Self {
        let mut total = 0.0;
        let cumulative = (0..n)
            .map(|r| {
                total += 1.0 / ((r + 1) as f64).powf(s);
                total
            })
            .collect();
        Weighted { cumulative }
    }

    fn sample(&self, rng: &mut impl Rng) -> usize {
        let Some(&total) = self.cumulative.last() else {
            return 0;
        };
        let x = rng.random_range(0.0..total);
        self.cumulative
            .partition_point(|&c| c <= x)
            .min(self.cumulative.len() - 1)
    }

    /// A sample that differs from `last` (its neighbour when it does not), then remembered
    /// in `last`.
    fn sample_other(&self, rng: &mut impl Rng, last: &mut usize) -> usize {
        let mut i = self.sample(rng);
        if i == *last {
            i = (i + 1) % self.cumulative.len().max(1);
        }
        *last = i;
        i
    }
}
