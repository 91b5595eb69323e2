//! Data statements (`UPSERT`, `ADD EDGE`, `REMOVE …`) run in a batch of the database's single
//! writer: the one place that turns a compiled [`Mutation`] into writer calls, used by
//! `Cairn::execute` (one statement, one commit) and by [`crate::Session`] (a transaction).

use crate::error::CairnError;
use crate::output::Done;
use crate::{EdgeProps, NodeId, Writer};
use cairn_query::printer::{name, str_lit};
use cairn_query::{Mutation, NodeAt};

/// Runs one data statement in `w`'s batch and says what it did. On error the batch may hold part
/// of the statement: the caller drops or rebuilds it.
pub(crate) fn apply(w: &mut Writer<'_>, m: &Mutation) -> Result<Done, CairnError> {
    match m {
        Mutation::Upsert {
            label,
            key,
            set,
            description,
        } => {
            let existed = match w.catalog().label_id(&label.name) {
                Some(l) => w.node_id(l, key)?.is_some(),
                None => false,
            };
            let props = set.iter().map(|(k, v)| (k.name.as_str(), v.clone()));
            w.upsert_node(&label.name, key, props, description.as_deref())?;
            let outcome = if existed { "updated" } else { "added" };
            Ok(done(
                "UPSERT",
                outcome,
                format!("{outcome} {} {}", name(&label.name), str_lit(key)),
            ))
        }
        Mutation::AddEdge {
            from,
            relation,
            to,
            set,
            weight,
        } => {
            let (src, dst) = (node_id(w, from)?, node_id(w, to)?);
            let mut props = EdgeProps {
                weight: *weight,
                props: Vec::with_capacity(set.len()),
            };
            for (k, v) in set {
                props.props.push((w.prop_key(&k.name)?, v.clone()));
            }
            let new = w.add_edge(src, &relation.name, dst, props)?;
            let outcome = if new { "added" } else { "updated" };
            Ok(done(
                "ADD EDGE",
                outcome,
                format!("{outcome} edge {from} -[{}]-> {to}", name(&relation.name)),
            ))
        }
        Mutation::RemoveEdge { from, relation, to } => {
            let (src, dst) = (node_id(w, from)?, node_id(w, to)?);
            let removed = w.remove_edge(src, &relation.name, dst)?;
            let edge = format!("{from} -[{}]-> {to}", name(&relation.name));
            Ok(if removed {
                done("REMOVE EDGE", "removed", format!("removed edge {edge}"))
            } else {
                done(
                    "REMOVE EDGE",
                    "unchanged",
                    format!("no edge {edge}: nothing removed"),
                )
            })
        }
        Mutation::RemoveNode(n) => {
            let id = node_id(w, n)?;
            w.remove_node(id)?;
            Ok(done(
                "REMOVE NODE",
                "removed",
                format!("removed node {n} and its edges"),
            ))
        }
    }
}

/// The node `n` names, as the batch would leave it; a missing node is an error.
fn node_id(w: &Writer<'_>, n: &NodeAt) -> Result<NodeId, CairnError> {
    let found = match w.catalog().label_id(&n.label.name) {
        Some(label) => w.node_id(label, &n.key)?,
        None => None,
    };
    found.ok_or_else(|| CairnError::NoSuchNode(n.to_string()))
}

fn done(statement: &'static str, outcome: &'static str, message: String) -> Done {
    Done {
        statement,
        outcome,
        statements: None,
        message,
    }
}
