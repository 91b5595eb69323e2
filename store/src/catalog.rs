//! The catalog: interned names of labels, relation types and property keys, the relation
//! hierarchy, declared indexes and the embedder. Persisted as one record under `meta/catalog`,
//! always in the same write batch as the data that first used a new name.

use crate::error::{EngineError, Result};
use cairn_storage_format::{
    Annotation, AnnotationsRecord, CatalogRecord, EmbedderDef, IndexDef, LabelId, LinkingRecord,
    PropKeyId, RelId, RelationDef,
};
use std::collections::HashMap;

/// In-memory catalog: the persisted record plus name lookups.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    record: CatalogRecord,
    /// Descriptions and aliases (persisted under their own meta key, in the catalog's batch).
    annotations: AnnotationsRecord,
    /// Labels linked only from marked mentions (persisted under `meta/linking`, same batch).
    linking: LinkingRecord,
    labels: HashMap<String, LabelId>,
    relations: HashMap<String, RelId>,
    props: HashMap<String, PropKeyId>,
}

/// A label, relation type or property key: what an annotation is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Element {
    Label(LabelId),
    Relation(RelId),
    Property(PropKeyId),
}

/// Upper bound on interned names of one kind; ids are u32 but a catalog this large means the
/// data uses values as names (e.g. a label per node), which we refuse early.
const MAX_NAMES: usize = 1 << 20;

impl Catalog {
    pub(crate) fn from_record(record: CatalogRecord) -> Self {
        let index = |names: &mut dyn Iterator<Item = &String>| -> HashMap<String, u32> {
            names
                .enumerate()
                .map(|(i, n)| (n.clone(), i as u32))
                .collect()
        };
        let labels = index(&mut record.labels.iter())
            .into_iter()
            .map(|(n, i)| (n, LabelId(i)))
            .collect();
        let relations = index(&mut record.relations.iter().map(|r| &r.name))
            .into_iter()
            .map(|(n, i)| (n, RelId(i)))
            .collect();
        let props = index(&mut record.prop_keys.iter())
            .into_iter()
            .map(|(n, i)| (n, PropKeyId(i)))
            .collect();
        Catalog {
            record,
            annotations: AnnotationsRecord::default(),
            linking: LinkingRecord::default(),
            labels,
            relations,
            props,
        }
    }

    /// The catalog with its persisted annotations.
    pub(crate) fn with_annotations(mut self, annotations: AnnotationsRecord) -> Self {
        self.annotations = annotations;
        self
    }

    /// The catalog with its persisted linking record.
    pub(crate) fn with_linking(mut self, linking: LinkingRecord) -> Self {
        self.linking = linking;
        self
    }

    /// The persisted annotations.
    pub fn annotations(&self) -> &AnnotationsRecord {
        &self.annotations
    }

    /// The persisted linking record (which labels link only from marked mentions).
    pub fn linking(&self) -> &LinkingRecord {
        &self.linking
    }

    /// Whether `ASK` may link `label`'s nodes from unmarked words (`LINKING ON`, the default).
    pub fn links_unmarked(&self, label: LabelId) -> bool {
        self.linking.unlinked_labels.binary_search(&label).is_err()
    }

    /// What a user said about `element`, if anything.
    pub fn annotation(&self, element: Element) -> Option<&Annotation> {
        fn find<I: Ord>(list: &[(I, Annotation)], id: I) -> Option<&Annotation> {
            list.binary_search_by(|(i, _)| i.cmp(&id))
                .ok()
                .map(|k| &list[k].1)
        }
        match element {
            Element::Label(id) => find(&self.annotations.labels, id),
            Element::Relation(id) => find(&self.annotations.relations, id),
            Element::Property(id) => find(&self.annotations.props, id),
        }
    }

    /// The persisted form.
    pub fn record(&self) -> &CatalogRecord {
        &self.record
    }

    pub fn label_id(&self, name: &str) -> Option<LabelId> {
        self.labels.get(name).copied()
    }
    pub fn relation_id(&self, name: &str) -> Option<RelId> {
        self.relations.get(name).copied()
    }
    pub fn prop_id(&self, name: &str) -> Option<PropKeyId> {
        self.props.get(name).copied()
    }

    pub fn label_name(&self, id: LabelId) -> Option<&str> {
        self.record.labels.get(id.0 as usize).map(String::as_str)
    }
    pub fn relation_name(&self, id: RelId) -> Option<&str> {
        self.record
            .relations
            .get(id.0 as usize)
            .map(|r| r.name.as_str())
    }
    pub fn prop_name(&self, id: PropKeyId) -> Option<&str> {
        self.record.prop_keys.get(id.0 as usize).map(String::as_str)
    }

    /// Labels in id order.
    pub fn labels(&self) -> impl Iterator<Item = (LabelId, &str)> {
        self.record
            .labels
            .iter()
            .enumerate()
            .map(|(i, n)| (LabelId(i as u32), n.as_str()))
    }
    /// Relation types in id order.
    pub fn relations(&self) -> impl Iterator<Item = (RelId, &RelationDef)> {
        self.record
            .relations
            .iter()
            .enumerate()
            .map(|(i, r)| (RelId(i as u32), r))
    }
    /// Property keys in id order.
    pub fn prop_keys(&self) -> impl Iterator<Item = (PropKeyId, &str)> {
        self.record
            .prop_keys
            .iter()
            .enumerate()
            .map(|(i, n)| (PropKeyId(i as u32), n.as_str()))
    }

    pub fn relation(&self, id: RelId) -> Option<&RelationDef> {
        self.record.relations.get(id.0 as usize)
    }

    /// The parent of a relation in the hierarchy.
    pub fn parent(&self, id: RelId) -> Option<RelId> {
        self.relation(id).and_then(|r| r.parent)
    }

    /// Relations whose parent is `parent`.
    pub fn children(&self, parent: RelId) -> Vec<RelId> {
        self.relations()
            .filter(|(_, r)| r.parent == Some(parent))
            .map(|(id, _)| id)
            .collect()
    }

    pub fn indexes(&self) -> &[IndexDef] {
        &self.record.indexes
    }

    pub fn has_index(&self, label: LabelId, prop: PropKeyId) -> bool {
        self.record
            .indexes
            .iter()
            .any(|i| i.label == label && i.prop == prop)
    }

    pub fn embedder(&self) -> Option<&EmbedderDef> {
        self.record.embedder.as_ref()
    }

    // ---- mutation (on a writer's or bulk load's copy; its commit persists and publishes it) ----

    /// The label's id, allocated if new (true).
    pub fn intern_label(&mut self, name: &str) -> Result<(LabelId, bool)> {
        if let Some(id) = self.labels.get(name) {
            return Ok((*id, false));
        }
        let id = LabelId(next_id(self.record.labels.len(), "label", name)?);
        self.record.labels.push(name.to_owned());
        self.labels.insert(name.to_owned(), id);
        Ok((id, true))
    }

    /// The relation type's id, allocated if new (true).
    pub fn intern_relation(&mut self, name: &str) -> Result<(RelId, bool)> {
        if let Some(id) = self.relations.get(name) {
            return Ok((*id, false));
        }
        let id = RelId(next_id(self.record.relations.len(), "relation", name)?);
        self.record.relations.push(RelationDef {
            name: name.to_owned(),
            parent: None,
            endpoints: Vec::new(),
        });
        self.relations.insert(name.to_owned(), id);
        Ok((id, true))
    }

    /// The property key's id, allocated if new (true).
    pub fn intern_prop(&mut self, name: &str) -> Result<(PropKeyId, bool)> {
        if let Some(id) = self.props.get(name) {
            return Ok((*id, false));
        }
        let id = PropKeyId(next_id(self.record.prop_keys.len(), "property key", name)?);
        self.record.prop_keys.push(name.to_owned());
        self.props.insert(name.to_owned(), id);
        Ok((id, true))
    }

    /// Records that `rel` connected a `src` node to a `dst` node; true if that pair is new.
    pub fn note_endpoints(&mut self, rel: RelId, src: LabelId, dst: LabelId) -> bool {
        let Some(def) = self.record.relations.get_mut(rel.0 as usize) else {
            return false;
        };
        match def.endpoints.binary_search(&(src, dst)) {
            Ok(_) => false,
            Err(pos) => {
                def.endpoints.insert(pos, (src, dst));
                true
            }
        }
    }

    /// Sets (or clears) the parent of `rel`, refusing cycles.
    pub(crate) fn set_parent(&mut self, rel: RelId, parent: Option<RelId>) -> Result<()> {
        let mut cursor = parent;
        while let Some(p) = cursor {
            if p == rel {
                return Err(EngineError::RelationCycle {
                    name: self.relation_name(rel).unwrap_or_default().to_owned(),
                    parent: parent
                        .and_then(|p| self.relation_name(p))
                        .unwrap_or_default()
                        .to_owned(),
                });
            }
            cursor = self.parent(p);
        }
        if let Some(def) = self.record.relations.get_mut(rel.0 as usize) {
            def.parent = parent;
        }
        Ok(())
    }

    pub(crate) fn add_index(&mut self, label: LabelId, prop: PropKeyId) -> bool {
        if self.has_index(label, prop) {
            return false;
        }
        self.record.indexes.push(IndexDef { label, prop });
        true
    }

    /// Sets `element`'s description, aliases and (labels only) linking (each `None` keeps the
    /// old one; an empty description or alias list clears it). The element must exist.
    pub fn annotate(
        &mut self,
        element: Element,
        description: Option<String>,
        aliases: Option<Vec<String>>,
        linking: Option<bool>,
    ) -> Result<()> {
        fn slot<I: Ord + Copy>(list: &mut Vec<(I, Annotation)>, id: I) -> usize {
            match list.binary_search_by(|(i, _)| i.cmp(&id)) {
                Ok(k) => k,
                Err(k) => {
                    list.insert(k, (id, Annotation::default()));
                    k
                }
            }
        }
        fn apply<I: Ord + Copy>(
            list: &mut Vec<(I, Annotation)>,
            id: I,
            description: Option<String>,
            aliases: Option<Vec<String>>,
        ) {
            let k = slot(list, id);
            let a = &mut list[k].1;
            if let Some(d) = description {
                a.description = (!d.is_empty()).then_some(d);
            }
            if let Some(al) = aliases {
                a.aliases = al;
            }
            if a.is_empty() {
                list.remove(k);
            }
        }
        let exists = match element {
            Element::Label(id) => self.label_name(id).is_some(),
            Element::Relation(id) => self.relation_name(id).is_some(),
            Element::Property(id) => self.prop_name(id).is_some(),
        };
        if !exists {
            return Err(EngineError::Invalid(format!(
                "{element:?} is not in the catalog"
            )));
        }
        if let Some(on) = linking {
            let Element::Label(label) = element else {
                return Err(EngineError::Invalid(format!(
                    "linking applies to labels only, not to {element:?}"
                )));
            };
            let list = &mut self.linking.unlinked_labels;
            match (list.binary_search(&label), on) {
                (Ok(k), true) => {
                    list.remove(k);
                }
                (Err(k), false) => list.insert(k, label),
                _ => {}
            }
        }
        let a = &mut self.annotations;
        match element {
            Element::Label(id) => apply(&mut a.labels, id, description, aliases),
            Element::Relation(id) => apply(&mut a.relations, id, description, aliases),
            Element::Property(id) => apply(&mut a.props, id, description, aliases),
        }
        Ok(())
    }

    /// Records which embedder made the vectors (the import checks a later one against it).
    pub fn set_embedder(&mut self, def: Option<EmbedderDef>) {
        self.record.embedder = def;
    }
}

fn next_id(len: usize, kind: &'static str, name: &str) -> Result<u32> {
    if name.is_empty() {
        return Err(EngineError::Invalid(format!("empty {kind} name")));
    }
    if len >= MAX_NAMES {
        return Err(EngineError::Invalid(format!(
            "too many {kind} names (limit {MAX_NAMES}) adding `{name}`"
        )));
    }
    Ok(len as u32)
}
