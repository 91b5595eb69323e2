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
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

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

/// Research areas and the words their titles are made of.
const TOPICS: &[(&str, &[&str])] = &[
    (
        "data mining",
        &[
            "frequent pattern",
            "clustering",
            "association rule",
            "outlier",
            "pattern mining",
        ],
    ),
    (
        "graph neural networks",
        &[
            "message passing",
            "graph convolution",
            "node embedding",
            "graph representation",
            "graph attention",
        ],
    ),
    (
        "information retrieval",
        &[
            "ranking",
            "query expansion",
            "relevance feedback",
            "dense retrieval",
            "search engine",
        ],
    ),
    (
        "natural language processing",
        &[
            "language model",
            "parsing",
            "named entity",
            "machine translation",
            "text classification",
        ],
    ),
    (
        "computer vision",
        &[
            "object detection",
            "image segmentation",
            "visual recognition",
            "image generation",
            "scene understanding",
        ],
    ),
    (
        "database systems",
        &[
            "query optimization",
            "transaction processing",
            "index structure",
            "storage engine",
            "join processing",
        ],
    ),
    (
        "knowledge graphs",
        &[
            "entity linking",
            "knowledge base completion",
            "link prediction",
            "relation extraction",
            "ontology",
        ],
    ),
    (
        "reinforcement learning",
        &[
            "policy gradient",
            "reward shaping",
            "exploration",
            "value function",
            "multi-agent learning",
        ],
    ),
    (
        "distributed systems",
        &[
            "consensus",
            "replication",
            "fault tolerance",
            "scheduling",
            "stream processing",
        ],
    ),
    (
        "computer security",
        &[
            "intrusion detection",
            "malware analysis",
            "access control",
            "side channel",
            "privacy",
        ],
    ),
    (
        "recommender systems",
        &[
            "collaborative filtering",
            "user modeling",
            "session recommendation",
            "implicit feedback",
            "matrix factorization",
        ],
    ),
    (
        "bioinformatics",
        &[
            "protein structure",
            "gene expression",
            "sequence alignment",
            "drug discovery",
            "genome assembly",
        ],
    ),
    (
        "computer networks",
        &[
            "congestion control",
            "routing",
            "software defined networking",
            "wireless network",
            "traffic analysis",
        ],
    ),
    (
        "human computer interaction",
        &[
            "user study",
            "interaction design",
            "accessibility",
            "visualization",
            "crowdsourcing",
        ],
    ),
    (
        "theory of computation",
        &[
            "approximation algorithm",
            "complexity bound",
            "graph algorithm",
            "randomized algorithm",
            "online algorithm",
        ],
    ),
    (
        "speech processing",
        &[
            "speech recognition",
            "speaker verification",
            "acoustic model",
            "speech synthesis",
            "audio representation",
        ],
    ),
    (
        "robotics",
        &[
            "motion planning",
            "robot manipulation",
            "localization",
            "grasping",
            "legged locomotion",
        ],
    ),
    (
        "software engineering",
        &[
            "program analysis",
            "test generation",
            "code review",
            "bug localization",
            "program repair",
        ],
    ),
    (
        "programming languages",
        &[
            "type system",
            "compiler optimization",
            "program verification",
            "memory safety",
            "static analysis",
        ],
    ),
    (
        "optimization",
        &[
            "convex optimization",
            "stochastic gradient",
            "combinatorial optimization",
            "bayesian optimization",
            "constraint solving",
        ],
    ),
    (
        "computational social science",
        &[
            "social network",
            "information diffusion",
            "opinion dynamics",
            "community detection",
            "misinformation",
        ],
    ),
    (
        "quantum computing",
        &[
            "quantum circuit",
            "error correction",
            "quantum algorithm",
            "qubit control",
            "quantum simulation",
        ],
    ),
    (
        "computer graphics",
        &[
            "rendering",
            "mesh processing",
            "neural radiance field",
            "animation",
            "geometry processing",
        ],
    ),
    (
        "operating systems",
        &[
            "file system",
            "virtual memory",
            "kernel scheduling",
            "device driver",
            "container isolation",
        ],
    ),
    (
        "causal inference",
        &[
            "treatment effect",
            "causal discovery",
            "counterfactual",
            "instrumental variable",
            "confounding",
        ],
    ),
    (
        "federated learning",
        &[
            "client drift",
            "secure aggregation",
            "personalized model",
            "communication efficiency",
            "differential privacy",
        ],
    ),
    (
        "time series analysis",
        &[
            "forecasting",
            "anomaly detection",
            "temporal pattern",
            "seasonality",
            "change point",
        ],
    ),
    (
        "computational biology",
        &[
            "cell type",
            "single cell",
            "protein interaction",
            "phylogenetics",
            "metabolic network",
        ],
    ),
    (
        "medical imaging",
        &[
            "tumor segmentation",
            "radiology report",
            "image registration",
            "lesion detection",
            "mri reconstruction",
        ],
    ),
    (
        "autonomous driving",
        &[
            "trajectory prediction",
            "lidar perception",
            "driving policy",
            "sensor fusion",
            "lane detection",
        ],
    ),
    (
        "question answering",
        &[
            "reading comprehension",
            "multi-hop reasoning",
            "answer extraction",
            "open-domain question",
            "retrieval augmentation",
        ],
    ),
    (
        "web mining",
        &[
            "web crawling",
            "link analysis",
            "web graph",
            "click model",
            "spam detection",
        ],
    ),
    (
        "cloud computing",
        &[
            "resource allocation",
            "serverless computing",
            "virtual machine",
            "autoscaling",
            "workload placement",
        ],
    ),
    (
        "embedded systems",
        &[
            "real-time scheduling",
            "energy efficiency",
            "hardware software codesign",
            "sensor network",
            "firmware",
        ],
    ),
    (
        "computer architecture",
        &[
            "cache hierarchy",
            "branch prediction",
            "accelerator design",
            "memory bandwidth",
            "processor pipeline",
        ],
    ),
    (
        "cryptography",
        &[
            "public key",
            "zero knowledge",
            "homomorphic encryption",
            "post-quantum",
            "secure computation",
        ],
    ),
    (
        "education technology",
        &[
            "learning analytics",
            "intelligent tutoring",
            "student modeling",
            "online course",
            "feedback generation",
        ],
    ),
    (
        "digital libraries",
        &[
            "citation analysis",
            "metadata extraction",
            "author disambiguation",
            "scholarly search",
            "document clustering",
        ],
    ),
    (
        "spatial databases",
        &[
            "trajectory data",
            "spatial index",
            "location query",
            "road network",
            "geographic information",
        ],
    ),
    (
        "explainable ai",
        &[
            "feature attribution",
            "model interpretation",
            "counterfactual explanation",
            "saliency",
            "concept explanation",
        ],
    ),
];

const VENUE_FORMS: &[(&str, &str)] = &[
    ("International Conference on", "conference"),
    ("Journal of", "journal"),
    ("Symposium on", "conference"),
    ("Transactions on", "journal"),
    ("Workshop on", "workshop"),
];

/// Share of authors who take the name of an earlier author: true homonyms, which bibliographic
/// data has at a rate of a few percent (distinct people sharing "Wei Wang").
const HOMONYM_RATE: f64 = 0.015;
/// Share of papers that reuse an earlier title of their topic (a workshop paper and its journal
/// version, a common title such as a survey's).
const TITLE_REUSE_RATE: f64 = 0.001;
/// Draws before a name or title that is already taken is accepted anyway.
const MAX_DRAWS: usize = 64;

/// Author names: Zipf-distributed first and last names (name frequency is heavy-tailed), a
/// middle initial on most, more initials when a draw keeps colliding; names already given
/// are drawn again, so duplicates come only from `HOMONYM_RATE`.
struct Names {
    first: Weighted,
    last: Weighted,
    used: HashSet<String>,
}

impl Names {
    fn new() -> Self {
        Names {
            first: Weighted::zipf(FIRST.len(), 0.7),
            last: Weighted::zipf(LAST.len(), 0.7),
            used: HashSet::new(),
        }
    }

    fn next(&mut self, rng: &mut impl Rng) -> String {
        let mut name = String::new();
        for draw in 0..MAX_DRAWS {
            name.clear();
            name.push_str(FIRST[self.first.sample(rng)]);
            name.push(' ');
            let initials = match draw {
                0..4 => usize::from(rng.random_bool(0.7)),
                _ => (1 + draw / 8).min(3),
            };
            for _ in 0..initials {
                name.push(INITIALS[rng.random_range(0..INITIALS.len())] as char);
                name.push_str(". ");
            }
            name.push_str(LAST[self.last.sample(rng)]);
            if self.used.insert(name.clone()) {
                break;
            }
        }
        name
    }
}

/// Paper titles: a template filled with the paper's topic terms and Zipf-picked general
/// vocabulary, so titles of one topic share words (SEARCH and embedders find them related)
/// while being distinct; a title already given is drawn again. Public so that a benchmark can
/// write new papers whose titles look like the generated ones (the write-then-query loop).
#[derive(Debug)]
pub struct Titles {
    term: Weighted,
    adjective: Weighted,
    method: Weighted,
    setting: Weighted,
    noun: Weighted,
    property: Weighted,
    used: HashSet<String>,
}

impl Default for Titles {
    fn default() -> Self {
        Self::new()
    }
}

impl Titles {
    /// How many topics titles can be drawn for (`topic` of [`fresh`](Self::fresh) is below it).
    pub const TOPICS: usize = TOPICS.len();

    /// A title source that has given no title yet.
    pub fn new() -> Self {
        Titles {
            term: Weighted::zipf(TERMS_PER_TOPIC, 0.8),
            adjective: Weighted::zipf(ADJECTIVES.len(), 0.9),
            method: Weighted::zipf(METHODS.len(), 0.9),
            setting: Weighted::zipf(SETTINGS.len(), 0.9),
            noun: Weighted::zipf(NOUNS.len(), 0.9),
            property: Weighted::zipf(PROPERTIES.len(), 0.9),
            used: HashSet::new(),
        }
    }

    /// Counts `title` as given, so no later draw returns it (titles that exist elsewhere).
    pub fn mark_used(&mut self, title: &str) {
        self.used.insert(title.to_owned());
    }

    /// A title of topic `topic` (modulo [`Self::TOPICS`]) not given or marked before, or `None`
    /// when `MAX_DRAWS` draws were all taken.
    pub fn fresh(&mut self, rng: &mut impl Rng, topic: usize) -> Option<String> {
        let (title, fresh) = self.draw_unused(rng, topic % TOPICS.len());
        fresh.then_some(title)
    }

    fn next(&mut self, rng: &mut impl Rng, topic: usize) -> String {
        self.draw_unused(rng, topic).0
    }

    /// Draws until a title is not taken (at most `MAX_DRAWS` times) and records it; the flag
    /// says whether it was new.
    fn draw_unused(&mut self, rng: &mut impl Rng, topic: usize) -> (String, bool) {
        let mut title = String::new();
        for _ in 0..MAX_DRAWS {
            title = self.draw(rng, topic);
            if self.used.insert(title.clone()) {
                return (title, true);
            }
        }
        (title, false)
    }

    fn draw(&self, rng: &mut impl Rng, topic: usize) -> String {
        let (name, terms) = TOPICS[topic];
        let form = TITLE_FORMS[rng.random_range(0..TITLE_FORMS.len())];
        let mut out = String::with_capacity(96);
        let mut rest = form;
        // A form's second term or method differs from its first ("{a} for {b}").
        let (mut term, mut method) = (usize::MAX, usize::MAX);
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let word = match &rest[open + 1..open + close] {
                "a" | "b" => terms[self.term.sample_other(rng, &mut term) % terms.len()],
                "adj" => ADJECTIVES[self.adjective.sample(rng)],
                "method" => METHODS[self.method.sample_other(rng, &mut method)],
                "setting" => SETTINGS[self.setting.sample(rng)],
                "noun" => NOUNS[self.noun.sample(rng)],
                "property" => PROPERTIES[self.property.sample(rng)],
                "topic" => name,
                // The article agrees with the word after it, drawn next.
                _ => "\u{0}",
            };
            out.push_str(word);
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        if let Some(at) = out.find('\u{0}') {
            let vowel = out[at + 2..].starts_with(['a', 'e', 'i', 'o', 'u']);
            out.replace_range(at..at + 1, if vowel { "an" } else { "a" });
        }
        let mut chars = out.chars();
        match chars.next() {
            Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
            None => out,
        }
    }
}

/// How many terms each entry of `TOPICS` lists.
const TERMS_PER_TOPIC: usize = 5;

/// `{a}`, `{b}`: topic terms; `{an}`: the article of the next word. Every form has at least
/// three open slots, so a topic has hundreds of thousands of titles.
const TITLE_FORMS: &[&str] = &[
    "{adj} {a} for {b} with {method} {setting}",
    "towards {adj} {a} {setting} via {method}",
    "{a} with {method}: {an} {adj} {noun} {setting}",
    "on the {property} of {method} for {a} {setting}",
    "learning {a} for {adj} {b} via {method} {setting}",
    "{a} {setting}: {an} {noun} of {method}",
    "{adj} {a} in {topic} using {method} and {method}",
    "rethinking {a} {setting}: {an} {adj} {noun} based on {method}",
    "{method} meets {a}: {property} {setting}",
    "{an} {noun} of {adj} {a} {setting}",
];

const ADJECTIVES: &[&str] = &[
    "scalable",
    "efficient",
    "robust",
    "adaptive",
    "interpretable",
    "distributed",
    "unsupervised",
    "incremental",
    "fast",
    "accurate",
    "lightweight",
    "self-supervised",
    "probabilistic",
    "hierarchical",
    "differentiable",
    "sparse",
    "multi-scale",
    "federated",
    "explainable",
    "provable",
    "streaming",
    "privacy-preserving",
    "data-efficient",
    "few-shot",
    "online",
    "parallel",
    "compositional",
    "fair",
    "generalizable",
    "low-latency",
];

const METHODS: &[&str] = &[
    "contrastive learning",
    "transformers",
    "graph sampling",
    "random projections",
    "hashing",
    "attention mechanisms",
    "variational inference",
    "knowledge distillation",
    "meta-learning",
    "active learning",
    "curriculum learning",
    "diffusion models",
    "mixture of experts",
    "bayesian inference",
    "spectral methods",
    "tensor decomposition",
    "dynamic programming",
    "sketching",
    "importance sampling",
    "gradient boosting",
    "kernel methods",
    "low-rank adaptation",
    "prompt tuning",
    "adversarial training",
    "data augmentation",
    "self-attention",
    "monte carlo tree search",
    "evolutionary search",
    "integer programming",
    "message compression",
    "quantization",
    "pruning",
    "caching",
    "learned indexes",
    "weak supervision",
    "transfer learning",
    "multi-task learning",
    "causal modeling",
    "symbolic reasoning",
    "neural architecture search",
];

const SETTINGS: &[&str] = &[
    "at scale",
    "under distribution shift",
    "with limited labels",
    "in the wild",
    "on edge devices",
    "in low-resource settings",
    "with noisy data",
    "over streaming data",
    "across domains",
    "in real time",
    "with provable guarantees",
    "under privacy constraints",
    "for large graphs",
    "with human feedback",
    "in heterogeneous environments",
    "under adversarial attacks",
    "with missing data",
    "on commodity hardware",
    "across languages",
    "in dynamic environments",
    "with long-tailed data",
    "at web scale",
    "under resource constraints",
    "with partial observability",
    "in open worlds",
    "for scientific data",
    "over time",
    "with uncertainty",
    "in practice",
    "from first principles",
];

const NOUNS: &[&str] = &[
    "framework",
    "benchmark",
    "study",
    "analysis",
    "system",
    "algorithm",
    "approach",
    "perspective",
    "toolkit",
    "model",
    "method",
    "evaluation",
    "survey",
    "architecture",
    "theory",
];

const PROPERTIES: &[&str] = &[
    "robustness",
    "complexity",
    "limits",
    "convergence",
    "generalization",
    "expressiveness",
    "stability",
    "efficiency",
    "fairness",
    "scalability",
    "reproducibility",
    "sample complexity",
    "calibration",
    "hardness",
    "power",
];

/// Middle initials, without the rare X, Q and Z.
const INITIALS: &[u8] = b"ABCDEFGHIJKLMNOPRSTUVWY";

/// First names, most frequent first (the Zipf rank is the position).
const FIRST: &[&str] = &[
    "Wei",
    "Maria",
    "David",
    "Li",
    "Anna",
    "Michael",
    "Jing",
    "John",
    "Sara",
    "Ahmed",
    "Yan",
    "Elena",
    "James",
    "Mei",
    "Carlos",
    "Laura",
    "Hao",
    "Julia",
    "Ravi",
    "Emma",
    "Chen",
    "Ana",
    "Daniel",
    "Xin",
    "Fatima",
    "Thomas",
    "Yuki",
    "Sofia",
    "Omar",
    "Lena",
    "Peter",
    "Priya",
    "Ivan",
    "Grace",
    "Jiawei",
    "Paula",
    "Ali",
    "Nadia",
    "Martin",
    "Hui",
    "Olga",
    "Pedro",
    "Karen",
    "Kai",
    "Ines",
    "Lars",
    "Mohammed",
    "Rosa",
    "Andrea",
    "Min",
    "Tomas",
    "Uma",
    "Victor",
    "Xiaoming",
    "Yara",
    "Yusuf",
    "Zoe",
    "Amir",
    "Bianca",
    "Cheng",
    "Diego",
    "Eva",
    "Felix",
    "Hana",
    "Igor",
    "Jun",
    "Katarina",
    "Luca",
    "Marco",
    "Nina",
    "Oscar",
    "Pablo",
    "Qiang",
    "Rafael",
    "Sven",
    "Tara",
    "Ulrich",
    "Vera",
    "Wen",
    "Ximena",
    "Yong",
    "Zhen",
    "Ada",
    "Alan",
    "Bo",
    "Dana",
    "Fernando",
    "Gabriel",
    "Helena",
    "Isabel",
    "Jonas",
    "Kenji",
    "Leila",
    "Mateo",
    "Noah",
    "Oliver",
    "Petra",
    "Rahul",
    "Sanjay",
    "Tanvir",
    "Usha",
    "Vikram",
    "Willem",
    "Xavier",
    "Yasmin",
    "Zeynep",
    "Aisha",
    "Bruno",
    "Camila",
    "Dmitri",
    "Emil",
    "Farid",
    "Gustavo",
    "Hiroshi",
    "Ingrid",
    "Jakob",
    "Kwame",
    "Lucia",
    "Mikhail",
    "Nikolai",
    "Ola",
    "Pavel",
    "Quentin",
    "Rania",
    "Sung",
    "Tobias",
    "Ugo",
    "Valentina",
    "Wojciech",
    "Xu",
    "Yiannis",
    "Zanele",
    "Anders",
    "Beatriz",
    "Chiara",
    "Dong",
    "Eitan",
    "Freya",
    "Goran",
    "Hamid",
    "Irina",
    "Jose",
    "Kofi",
    "Lin",
    "Magnus",
    "Nour",
    "Orla",
    "Ping",
    "Rui",
    "Shira",
    "Tariq",
];

/// Last names, most frequent first.
const LAST: &[&str] = &[
    "Wang",
    "Li",
    "Zhang",
    "Smith",
    "Liu",
    "Chen",
    "Kumar",
    "Garcia",
    "Kim",
    "Nguyen",
    "Mueller",
    "Rossi",
    "Tanaka",
    "Silva",
    "Lee",
    "Yang",
    "Huang",
    "Singh",
    "Martin",
    "Lopez",
    "Park",
    "Novak",
    "Cohen",
    "Ivanova",
    "Okafor",
    "Larsen",
    "Dubois",
    "Petrov",
    "Haddad",
    "Jensen",
    "Moreau",
    "Yamamoto",
    "Fischer",
    "Costa",
    "Schmidt",
    "Ahmed",
    "Berg",
    "Chowdhury",
    "Eriksson",
    "Ferreira",
    "Gupta",
    "Hoffmann",
    "Ito",
    "Jovanovic",
    "Kowalski",
    "Lindqvist",
    "Han",
    "Zhao",
    "Wu",
    "Zhou",
    "Xu",
    "Sun",
    "Ma",
    "Zhu",
    "Hu",
    "Guo",
    "He",
    "Lin",
    "Luo",
    "Sato",
    "Suzuki",
    "Takahashi",
    "Watanabe",
    "Nakamura",
    "Kobayashi",
    "Choi",
    "Jung",
    "Kang",
    "Patel",
    "Shah",
    "Sharma",
    "Reddy",
    "Iyer",
    "Rao",
    "Das",
    "Bose",
    "Khan",
    "Hassan",
    "Ali",
    "Ibrahim",
    "Mensah",
    "Adeyemi",
    "Nkosi",
    "Mwangi",
    "Johnson",
    "Brown",
    "Jones",
    "Miller",
    "Davis",
    "Wilson",
    "Anderson",
    "Taylor",
    "Thomas",
    "Moore",
    "Jackson",
    "White",
    "Harris",
    "Clark",
    "Lewis",
    "Walker",
    "Hall",
    "Young",
    "Allen",
    "King",
    "Wright",
    "Scott",
    "Green",
    "Baker",
    "Adams",
    "Nelson",
    "Hill",
    "Campbell",
    "Mitchell",
    "Roberts",
    "Carter",
    "Phillips",
    "Evans",
    "Turner",
    "Torres",
    "Ramirez",
    "Flores",
    "Rivera",
    "Gomez",
    "Diaz",
    "Reyes",
    "Morales",
    "Ortiz",
    "Gutierrez",
    "Santos",
    "Oliveira",
    "Souza",
    "Pereira",
    "Almeida",
    "Becker",
    "Wagner",
    "Weber",
    "Schulz",
    "Koch",
    "Richter",
    "Klein",
    "Wolf",
    "Neumann",
    "Schwarz",
    "Bernard",
    "Lefebvre",
    "Laurent",
    "Girard",
    "Bianchi",
    "Romano",
    "Colombo",
    "Ricci",
    "Marino",
    "Greco",
    "Bruno",
    "Conti",
    "De Luca",
    "Esposito",
    "Popescu",
    "Horvath",
    "Nagy",
    "Dvorak",
    "Nielsen",
    "Hansen",
    "Johansson",
    "Andersson",
    "Virtanen",
    "Korhonen",
    "Papadopoulos",
    "Yilmaz",
    "Kaya",
    "Demir",
    "Sokolov",
    "Volkov",
    "Kuznetsov",
    "Popov",
];

fn title_case(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Roman numerals up to X, then arabic ones, so venue names never repeat.
fn roman(n: usize) -> String {
    ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]
        .get(n.saturating_sub(1))
        .map_or_else(|| n.to_string(), |r| (*r).to_owned())
}
