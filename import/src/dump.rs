//! The records of a graph dump, independent of the file format. The JSON Lines schema is these
//! types' serde form; the CSV reader produces the same records from typed columns.

use cairn_storage_format::Value;
use serde::{Deserialize, Serialize};

/// One line of a JSON Lines dump.
///
/// ```text
/// {"type":"node","label":"Author","key":"a1","props":{"name":"Ann Lee"},"description":"…","vector":[0.1,…]}
/// {"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"a1"},"to":{"label":"Paper","key":"p1"},"props":{},"weight":0.5}
/// {"type":"schema","kind":"relation","name":"AUTHORED","description":"…","aliases":["wrote"]}
/// {"type":"schema","kind":"label","name":"Term","linking":false}
/// {"type":"embedder","id":"cairn-hash-v1/384","dim":384}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum DumpRecord {
    Node(DumpNode),
    Edge(DumpEdge),
    Schema(DumpSchema),
    Embedder(DumpEmbedder),
}

/// Which embedder made the dump's vectors (`cairn export` writes it): the id a catalog records
/// (`cairn-hash-v1/384`, `all-MiniLM-L6-v2`, or `supplied` for vectors that came with the
/// data) and the dimension, or [`NO_EMBEDDER`] with dimension 0 for a database without one. An
/// import given no embedder of its own follows it: it records this embedder and stores the
/// dump's vectors without computing others (docs/IMPORT.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpEmbedder {
    pub id: String,
    pub dim: u32,
}

/// The [`DumpEmbedder`] id of a database that records no embedder (and holds no vectors).
pub const NO_EMBEDDER: &str = "none";

/// What a label, relation or property means: its description and aliases, and whether a label's
/// nodes are linked from unmarked words (as `ANNOTATE` sets them). The element must exist once the import's own data is in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpSchema {
    pub kind: SchemaKind,
    pub name: String,
    /// Replaces the description (`""` clears it); absent keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Replace the aliases (`[]` clears them); absent keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    /// Labels only: whether `ASK` links the label's nodes from unmarked words (as `LINKING`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linking: Option<bool>,
}

/// Which kind of schema element a [`DumpSchema`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaKind {
    Label,
    Relation,
    Property,
}

/// A node: unique by (label, key). Importing a node that exists updates its properties.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpNode {
    pub label: String,
    pub key: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "props_as_map")]
    pub props: Vec<(String, Value)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A vector computed elsewhere, for databases whose embedder is "vectors supplied".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<Vec<f32>>,
}

/// A reference to a node by label and external key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeRef {
    pub label: String,
    pub key: String,
}

/// An edge between two nodes of the dump or of the database.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpEdge {
    pub rel: String,
    pub from: NodeRef,
    pub to: NodeRef,
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "props_as_map")]
    pub props: Vec<(String, Value)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f32>,
}

/// A graph value in its JSON form, the one dumps and `--format json` documents use: `null`, a
/// boolean, an integer, a float (written with a fraction or an exponent, so it reads back as a
/// float, to the same bits), a string, an array. `serde_json::json!(JsonValue(&v))` embeds one.
#[derive(Clone, Copy, Debug)]
pub struct JsonValue<'a>(pub &'a Value);

impl Serialize for JsonValue<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(x) => s.serialize_f64(*x),
            Value::Str(t) => s.serialize_str(t),
            Value::List(items) => s.collect_seq(items.iter().map(JsonValue)),
        }
    }
}

/// Properties are a JSON object in the dump; values map to [`Value`] (integers that fit i64 to
/// `Int`, other numbers to `Float`, arrays to `List`; nested objects are refused).
mod props_as_map {
    use cairn_storage_format::Value;
    use serde::de::{Error, MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};
    use std::fmt;

    pub fn serialize<S: Serializer>(props: &[(String, Value)], s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(props.len()))?;
        for (k, v) in props {
            map.serialize_entry(k, &super::JsonValue(v))?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, Value)>, D::Error> {
        d.deserialize_map(PropsVisitor)
    }

    struct PropsVisitor;
    impl<'de> Visitor<'de> for PropsVisitor {
        type Value = Vec<(String, Value)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object of property values")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                let v =
                    from_json(&v).map_err(|e| A::Error::custom(format!("property `{k}`: {e}")))?;
                out.push((k, v));
            }
            Ok(out)
        }
    }

    fn from_json(v: &serde_json::Value) -> Result<Value, &'static str> {
        Ok(match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().ok_or("number out of range")?),
            },
            serde_json::Value::String(s) => Value::Str(s.clone()),
            serde_json::Value::Array(items) => {
                Value::List(items.iter().map(from_json).collect::<Result<_, _>>()?)
            }
            serde_json::Value::Object(_) => return Err("nested objects are not supported"),
        })
    }
}
