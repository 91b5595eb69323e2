//! The engine's catalog seen through the query crate's [`cairn_query::Catalog`] trait, so that
//! the parser and plan compiler stay free of storage.

use cairn_storage_format::{LabelId, PropKeyId, RelId};
use cairn_store::Catalog;
use std::sync::Arc;

/// Adapter from the engine's catalog to the compiler's name resolution.
#[derive(Clone, Debug)]
pub struct EngineCatalog(pub Arc<Catalog>);

impl cairn_query::Catalog for EngineCatalog {
    fn label(&self, name: &str) -> Option<LabelId> {
        self.0.label_id(name)
    }
    fn relation(&self, name: &str) -> Option<RelId> {
        self.0.relation_id(name)
    }
    fn property(&self, name: &str) -> Option<PropKeyId> {
        self.0.prop_id(name)
    }
    fn label_names(&self) -> Vec<String> {
        self.0.labels().map(|(_, n)| n.to_owned()).collect()
    }
    fn relation_names(&self) -> Vec<String> {
        self.0.relations().map(|(_, r)| r.name.clone()).collect()
    }
    fn property_names(&self) -> Vec<String> {
        self.0.prop_keys().map(|(_, n)| n.to_owned()).collect()
    }
}
