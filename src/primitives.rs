//! The primitive operations an exploring agent calls, as plain data: a node's metadata with its
//! one-sentence description, its neighbours with their relation types, the details of chosen
//! nodes, and the schema. The Python package and the MCP server both show these; they live here
//! so that both show the same thing.

use crate::db::Cairn;
use crate::error::CairnError;
use crate::{Direction, GraphRead, NodeId, Value};
use cairn_store::describe::{description, display_name};
use cairn_store::Element;

/// A node as an agent reads it: what it is, its one-sentence description (its own, else one
/// built from its label and name), its degree and its properties.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub id: NodeId,
    pub label: String,
    pub key: String,
    /// Display name (name/title property, else the key).
    pub name: String,
    pub description: String,
    /// Edges leaving and arriving at the node.
    pub out_degree: u64,
    pub in_degree: u64,
    /// Property name and value, in the catalog's key order.
    pub properties: Vec<(String, Value)>,
}

/// One edge seen from a node: its relation type, which way it points, and the node at the
/// other end.
#[derive(Clone, Debug, PartialEq)]
pub struct NeighborView {
    pub relation: String,
    /// `Out`: the edge leaves the node listed from; `In`: it arrives there.
    pub direction: Direction,
    pub id: NodeId,
    pub label: String,
    pub key: String,
    pub name: String,
}

/// A node's neighbours, at most the limit asked for, and how many edges there were in all, by
/// relation type and direction (so a bounded listing still tells what lies beyond it).
#[derive(Clone, Debug, PartialEq)]
pub struct Neighbors {
    pub items: Vec<NeighborView>,
    /// Edges that matched the direction and relations, before the limit.
    pub total: usize,
    /// (relation, direction, edges) over all `total` edges, most first.
    pub by_relation: Vec<(String, Direction, usize)>,
}

/// A label of the schema with its annotation.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelInfo {
    pub name: String,
    pub description: Option<String>,
    pub aliases: Vec<String>,
    /// Properties with an index (`CREATE INDEX ON Label(p)`).
    pub indexed: Vec<String>,
}

/// A relation type of the schema: its parent (`RELATION … UNDER …`), the label pairs it has
/// connected, and its annotation.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaRelation {
    pub name: String,
    pub parent: Option<String>,
    /// (source label, destination label) pairs.
    pub endpoints: Vec<(String, String)>,
    pub description: Option<String>,
    pub aliases: Vec<String>,
}

/// The schema as data: labels, relation types, property keys, the embedder and size
/// estimates (RocksDB's, not counts).
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    pub labels: Vec<LabelInfo>,
    pub relations: Vec<SchemaRelation>,
    pub properties: Vec<String>,
    /// The embedder id the database's vectors come from, when it has any.
    pub embedder: Option<String>,
    pub approx_nodes: u64,
    pub approx_edges: u64,
}

impl Cairn {
    /// The node with id `id`, or `None`.
    pub fn node_view(&self, id: NodeId) -> Result<Option<NodeView>, CairnError> {
        Ok(self.node_views(&[id])?.pop().flatten())
    }

    /// The node (`label`, `key`), or `None`.
    pub fn node_view_by_key(&self, label: &str, key: &str) -> Result<Option<NodeView>, CairnError> {
        match self.graph().node_id(label, key)? {
            Some(id) => self.node_view(id),
            None => Ok(None),
        }
    }

    /// Details of several nodes at once (one batched read), `None` where a node does not exist.
    pub fn node_views(&self, ids: &[NodeId]) -> Result<Vec<Option<NodeView>>, CairnError> {
        let graph = self.graph();
        let catalog = graph.catalog();
        let records = graph.nodes(ids)?;
        let mut out = Vec::with_capacity(ids.len());
        for (id, record) in ids.iter().zip(records) {
            let Some(r) = record else {
                out.push(None);
                continue;
            };
            let degree = graph.degree(*id)?;
            out.push(Some(NodeView {
                id: *id,
                label: catalog.label_name(r.label).unwrap_or("?").to_owned(),
                key: r.key.clone(),
                name: display_name(&r, &catalog),
                description: description(&r, &catalog),
                out_degree: degree.out.max(0) as u64,
                in_degree: degree.inc.max(0) as u64,
                properties: r
                    .props
                    .iter()
                    .map(|(k, v)| (catalog.prop_name(*k).unwrap_or("?").to_owned(), v.clone()))
                    .collect(),
            }));
        }
        Ok(out)
    }

    /// The edges of `id` in `direction` through `relations` (every relation when empty), at
    /// most `limit` of them, with the node at the other end of each. A relation the schema does
    /// not know is an error (it names none of the node's edges).
    pub fn neighbor_views(
        &self,
        id: NodeId,
        direction: Direction,
        relations: &[&str],
        limit: usize,
    ) -> Result<Neighbors, CairnError> {
        let graph = self.graph();
        let catalog = graph.catalog();
        let mut rels = Vec::with_capacity(relations.len());
        for name in relations {
            rels.push(catalog.relation_id(name).ok_or_else(|| {
                CairnError::Engine(crate::EngineError::UnknownName {
                    kind: "relation",
                    name: (*name).to_owned(),
                })
            })?);
        }
        let edges = graph.neighbors(id, direction, &rels)?;
        let total = edges.len();
        let mut counts: std::collections::HashMap<(cairn_storage_format::RelId, bool), usize> =
            Default::default();
        for e in &edges {
            *counts
                .entry((e.rel, e.direction == Direction::Out))
                .or_default() += 1;
        }
        let mut by_relation: Vec<(String, Direction, usize)> = counts
            .into_iter()
            .map(|((rel, out), n)| {
                let name = catalog.relation_name(rel).unwrap_or("?").to_owned();
                (name, if out { Direction::Out } else { Direction::In }, n)
            })
            .collect();
        by_relation.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        let shown = &edges[..total.min(limit)];
        let ids: Vec<NodeId> = shown.iter().map(|n| n.node).collect();
        let records = graph.nodes(&ids)?;
        let items = shown
            .iter()
            .zip(records)
            .map(|(n, r)| {
                let (label, key, name) = match r {
                    Some(r) => (
                        catalog.label_name(r.label).unwrap_or("?").to_owned(),
                        r.key.clone(),
                        display_name(&r, &catalog),
                    ),
                    None => ("?".to_owned(), n.node.to_string(), n.node.to_string()),
                };
                NeighborView {
                    relation: catalog.relation_name(n.rel).unwrap_or("?").to_owned(),
                    direction: n.direction,
                    id: n.node,
                    label,
                    key,
                    name,
                }
            })
            .collect();
        Ok(Neighbors {
            items,
            total,
            by_relation,
        })
    }

    /// The schema: labels and relation types with their annotations, property keys, the
    /// embedder, and estimated sizes.
    pub fn schema(&self) -> Result<Schema, CairnError> {
        let graph = self.graph();
        let c = graph.catalog();
        let annotation = |e: Element| {
            c.annotation(e)
                .map(|a| (a.description.clone(), a.aliases.clone()))
                .unwrap_or_default()
        };
        let labels = c
            .labels()
            .map(|(id, name)| {
                let (description, aliases) = annotation(Element::Label(id));
                let indexed = c
                    .indexes()
                    .iter()
                    .filter(|i| i.label == id)
                    .filter_map(|i| c.prop_name(i.prop).map(str::to_owned))
                    .collect();
                LabelInfo {
                    name: name.to_owned(),
                    description,
                    aliases,
                    indexed,
                }
            })
            .collect();
        let relations = c
            .relations()
            .map(|(id, r)| {
                let (description, aliases) = annotation(Element::Relation(id));
                let label = |l| c.label_name(l).unwrap_or("?").to_owned();
                SchemaRelation {
                    name: r.name.clone(),
                    parent: r.parent.and_then(|p| c.relation_name(p)).map(str::to_owned),
                    endpoints: r
                        .endpoints
                        .iter()
                        .map(|(s, d)| (label(*s), label(*d)))
                        .collect(),
                    description,
                    aliases,
                }
            })
            .collect();
        Ok(Schema {
            labels,
            relations,
            properties: c.prop_keys().map(|(_, n)| n.to_owned()).collect(),
            embedder: c.embedder().map(|e| e.id.clone()),
            approx_nodes: graph.estimate_keys("node")?,
            approx_edges: graph.estimate_keys("out")?,
        })
    }
}
