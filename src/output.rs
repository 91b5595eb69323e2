//! What a statement produces, as data: the CLI prints each kind as text (its `Display`, the
//! words the REPL shows) or as JSON (docs/JSON.md) from the same value, and an application reads
//! the fields instead of parsing the text.

use cairn_exec::Exploration;
use std::fmt;

/// What a statement produced.
// One per statement, moved once or twice: the exploration's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Output {
    /// An exploration's results (`EXPLORE`).
    Exploration(Exploration),
    /// An `ASK` answer with its plan, evidence and validation.
    Answer(Box<cairn_agent::AskOutcome>),
    /// `EXPLAIN`: the compiled plan.
    Plan(Plan),
    /// `SHOW …`: a listing of the catalog.
    Listing(Listing),
    /// `DESCRIBE Label`.
    Description(Description),
    /// A statement that changed the database or the session: data statements, transaction
    /// control, `CREATE INDEX`, `RELATION … UNDER …`, `ANNOTATE`.
    Done(Done),
}

impl Output {
    /// The text the REPL prints for every kind but an exploration or an answer (which have
    /// their own table forms); `None` for those two.
    pub fn text(&self) -> Option<String> {
        match self {
            Output::Exploration(_) | Output::Answer(_) => None,
            Output::Plan(p) => Some(p.to_string()),
            Output::Listing(l) => Some(l.to_string()),
            Output::Description(d) => Some(d.to_string()),
            Output::Done(d) => Some(d.to_string()),
        }
    }
}

/// `EXPLAIN`'s plan: the compiled statement with every default filled in, as the language's
/// printer writes it (a statement one can run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The explained statement's kind, lower case: `explore`, `ask`, `show`, `upsert`, …
    pub statement: String,
    /// `EXPLAIN ASK`: the question type the planner chose.
    pub question_type: Option<String>,
    /// The plan as text.
    pub text: String,
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `SHOW LABELS | RELATIONS | INDEXES | STRATEGIES`, sorted by name.
#[derive(Clone, Debug)]
pub enum Listing {
    Labels(Vec<String>),
    Relations(Vec<RelationInfo>),
    Indexes(Vec<IndexInfo>),
    /// What the strategy feedback loop has learned.
    Strategies(cairn_agent::strategy::Strategies),
}

/// A relation as `SHOW RELATIONS` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelationInfo {
    pub name: String,
    /// The relation it is declared under (`RELATION r UNDER parent`).
    pub parent: Option<String>,
    /// The (source label, target label) pairs its edges join.
    pub endpoints: Vec<(String, String)>,
}

/// A property index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IndexInfo {
    pub label: String,
    pub property: String,
}

impl fmt::Display for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = match self {
            Listing::Labels(l) => l.clone(),
            Listing::Relations(r) => r
                .iter()
                .map(|r| match &r.parent {
                    Some(p) => format!("{} (under {p})", r.name),
                    None => r.name.clone(),
                })
                .collect(),
            Listing::Indexes(i) => i
                .iter()
                .map(|i| format!("{}({})", i.label, i.property))
                .collect(),
            Listing::Strategies(s) => return f.write_str(&s.render()),
        };
        f.write_str(&lines.join("\n"))
    }
}

/// `DESCRIBE Label`: node count, the properties its nodes have, annotations, indexes and the
/// relations it is an endpoint of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    pub label: String,
    pub nodes: usize,
    /// How many nodes (the first, in key order) the property counts were taken from.
    pub sampled: usize,
    /// Property names with how many of the sampled nodes have each, by name.
    pub properties: Vec<(String, usize)>,
    /// The `ANNOTATE` statements of the label and of its properties.
    pub annotations: Vec<String>,
    /// Indexed properties.
    pub indexes: Vec<String>,
    /// Relations with this label at one end.
    pub relations: Vec<LabelRelation>,
}

/// A relation with the (source, target) label pairs in which the described label takes part,
/// and the relation's annotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelRelation {
    pub relation: String,
    pub endpoints: Vec<(String, String)>,
    pub annotation: Option<String>,
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} nodes", self.label, self.nodes)?;
        if !self.properties.is_empty() {
            let props: Vec<String> = self
                .properties
                .iter()
                .map(|(k, n)| format!("{k} ({n})"))
                .collect();
            let of = if self.sampled < self.nodes {
                format!(" of the first {} nodes", self.sampled)
            } else {
                String::new()
            };
            write!(f, "\n  properties{of}: {}", props.join(", "))?;
        }
        for a in &self.annotations {
            write!(f, "\n  {a}")?;
        }
        for p in &self.indexes {
            write!(f, "\n  index on {p}")?;
        }
        for r in &self.relations {
            for (from, to) in &r.endpoints {
                write!(f, "\n  ({from})-[{}]->({to})", r.relation)?;
            }
            if let Some(a) = &r.annotation {
                write!(f, "\n    {a}")?;
            }
        }
        Ok(())
    }
}

/// What a statement that changes something did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    /// The statement, upper case: `UPSERT`, `ADD EDGE`, `REMOVE EDGE`, `REMOVE NODE`, `BEGIN`,
    /// `COMMIT`, `ROLLBACK`, `SAVEPOINT`, `ROLLBACK TO`, `CREATE INDEX`, `RELATION UNDER`,
    /// `ANNOTATE`.
    pub statement: &'static str,
    /// What happened, one word: `added`, `updated`, `removed`, `unchanged`, `started`,
    /// `committed`, `rolled back`, `set`, `created`, `exists`, `cleared`.
    pub outcome: &'static str,
    /// `COMMIT`, `ROLLBACK`, `ROLLBACK TO`: how many data statements it committed or undid.
    pub statements: Option<u64>,
    /// The sentence the REPL prints.
    pub message: String,
}

impl fmt::Display for Done {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
