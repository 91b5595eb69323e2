//! The one-sentence text of a node that agents, LLMs and embedders read.

use crate::catalog::Catalog;
use cairn_storage_format::{NodeRecord, Value};

/// Properties that name a node, in order of preference.
const NAME_PROPS: [&str; 4] = ["name", "title", "label", "text"];

/// The node's display name: its first naming property, else its key.
pub fn display_name(record: &NodeRecord, catalog: &Catalog) -> String {
    NAME_PROPS
        .iter()
        .find_map(|p| {
            catalog
                .prop_id(p)
                .and_then(|id| record.prop(id))
                .and_then(Value::as_str)
        })
        .map(str::to_owned)
        .unwrap_or_else(|| record.key.clone())
}

/// The node's description: the one stored with it, else "`Label`: `name`." built from its label
/// and naming property, so that nodes without a written description still embed meaningfully.
pub fn description(record: &NodeRecord, catalog: &Catalog) -> String {
    if let Some(d) = &record.description {
        return d.clone();
    }
    let label = catalog.label_name(record.label).unwrap_or("Node");
    format!("{label}: {}.", display_name(record, catalog))
}
