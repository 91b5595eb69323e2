//! Name resolution: the compiler sees the database's schema only through [`Catalog`].

use cairn_storage_format::{LabelId, PropKeyId, RelId};
use std::collections::HashMap;

/// What the plan compiler needs to know about a database: interned ids of names, and the list of
/// names (for "did you mean" suggestions). Names are case-sensitive.
pub trait Catalog {
    /// Id of a node label.
    fn label(&self, name: &str) -> Option<LabelId>;
    /// Id of a relation type.
    fn relation(&self, name: &str) -> Option<RelId>;
    /// Id of a property key.
    fn property(&self, name: &str) -> Option<PropKeyId>;
    /// Every label name (order irrelevant).
    fn label_names(&self) -> Vec<String>;
    /// Every relation type name.
    fn relation_names(&self) -> Vec<String>;
    /// Every property key name.
    fn property_names(&self) -> Vec<String>;
}

/// A catalog held in memory: names are given ids in the order they are added, from 0.
///
/// Used by tests, benchmarks and tools that compile queries without a database.
#[derive(Clone, Debug, Default)]
pub struct MemoryCatalog {
    labels: Interner,
    relations: Interner,
    properties: Interner,
}

#[derive(Clone, Debug, Default)]
struct Interner {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Interner {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }
}

impl MemoryCatalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or finds) a label.
    pub fn add_label(&mut self, name: &str) -> LabelId {
        LabelId(self.labels.intern(name))
    }

    /// Adds (or finds) a relation type.
    pub fn add_relation(&mut self, name: &str) -> RelId {
        RelId(self.relations.intern(name))
    }

    /// Adds (or finds) a property key.
    pub fn add_property(&mut self, name: &str) -> PropKeyId {
        PropKeyId(self.properties.intern(name))
    }

    /// Builder form: a catalog with these labels, relation types and property keys.
    pub fn with(labels: &[&str], relations: &[&str], properties: &[&str]) -> Self {
        let mut c = Self::new();
        for l in labels {
            c.add_label(l);
        }
        for r in relations {
            c.add_relation(r);
        }
        for p in properties {
            c.add_property(p);
        }
        c
    }
}

impl Catalog for MemoryCatalog {
    fn label(&self, name: &str) -> Option<LabelId> {
        self.labels.ids.get(name).map(|&i| LabelId(i))
    }
    fn relation(&self, name: &str) -> Option<RelId> {
        self.relations.ids.get(name).map(|&i| RelId(i))
    }
    fn property(&self, name: &str) -> Option<PropKeyId> {
        self.properties.ids.get(name).map(|&i| PropKeyId(i))
    }
    fn label_names(&self) -> Vec<String> {
        self.labels.names.clone()
    }
    fn relation_names(&self) -> Vec<String> {
        self.relations.names.clone()
    }
    fn property_names(&self) -> Vec<String> {
        self.properties.names.clone()
    }
}
