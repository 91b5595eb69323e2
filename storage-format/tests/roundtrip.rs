//! Property tests: every key type and record round-trips, and the ordered value encoding sorts
//! exactly like the values.
#![allow(clippy::unwrap_used)]

use cairn_storage_format::value::{decode_ordered, encode_ordered};
use cairn_storage_format::*;
use proptest::prelude::*;

fn indexable_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        // Every bit pattern, NaNs and signed zeros included: the encoding follows total order.
        any::<u64>().prop_map(|b| Value::Float(f64::from_bits(b))),
        prop_oneof![any::<f64>(), Just(0.0), Just(-0.0), Just(1.5), Just(-1.5)]
            .prop_map(Value::Float),
        ".{0,12}".prop_map(Value::Str),
        // Strings with NULs and shared prefixes stress the escape and terminator.
        proptest::collection::vec(
            prop_oneof![
                Just('\0'),
                Just('a'),
                Just('b'),
                Just('\u{1}'),
                Just('\u{ff}')
            ],
            0..6
        )
        .prop_map(|cs| Value::Str(cs.into_iter().collect())),
    ]
}

fn any_value() -> impl Strategy<Value = Value> {
    indexable_value().prop_recursive(2, 8, 4, |inner| {
        proptest::collection::vec(inner, 0..4).prop_map(Value::List)
    })
}

/// Equality on values where NaN equals itself bitwise (the encoding is bit-exact).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

proptest! {
    #[test]
    fn ordered_value_roundtrips(v in indexable_value(), tail in proptest::collection::vec(any::<u8>(), 0..4)) {
        let mut bytes = Vec::new();
        encode_ordered(&v, &mut bytes).unwrap();
        bytes.extend_from_slice(&tail);
        let (back, rest) = decode_ordered(&bytes).unwrap();
        prop_assert!(same(&back, &v));
        prop_assert_eq!(rest, &tail[..]);
    }

    #[test]
    fn ordered_value_bytes_sort_like_values(a in indexable_value(), b in indexable_value()) {
        let (mut ea, mut eb) = (Vec::new(), Vec::new());
        encode_ordered(&a, &mut ea).unwrap();
        encode_ordered(&b, &mut eb).unwrap();
        prop_assert_eq!(a.index_cmp(&b).unwrap(), ea.cmp(&eb));
    }

    #[test]
    fn node_key_roundtrips(id in any::<u64>()) {
        let k = NodeKey(NodeId(id));
        prop_assert_eq!(NodeKey::decode(&k.encode()).unwrap(), k);
    }

    #[test]
    fn node_keys_sort_numerically(a in any::<u64>(), b in any::<u64>()) {
        prop_assert_eq!(a.cmp(&b), NodeKey(NodeId(a)).encode().cmp(&NodeKey(NodeId(b)).encode()));
    }

    #[test]
    fn external_key_roundtrips(label in any::<u32>(), key in ".{0,24}") {
        let k = ExternalKey { label: LabelId(label), key };
        prop_assert_eq!(ExternalKey::decode(&k.encode()).unwrap(), k);
    }

    #[test]
    fn edge_keys_roundtrip_and_sort(a in any::<(u64, u32, u64)>(), b in any::<(u64, u32, u64)>()) {
        let ka = OutEdgeKey { src: NodeId(a.0), rel: RelId(a.1), dst: NodeId(a.2) };
        let kb = OutEdgeKey { src: NodeId(b.0), rel: RelId(b.1), dst: NodeId(b.2) };
        prop_assert_eq!(OutEdgeKey::decode(&ka.encode()).unwrap(), ka);
        prop_assert_eq!(InEdgeKey::decode(&ka.reversed().encode()).unwrap(), ka.reversed());
        prop_assert_eq!(ka.reversed().reversed(), ka);
        prop_assert_eq!(ka.cmp(&kb), ka.encode().cmp(&kb.encode()));
    }

    #[test]
    fn prop_index_key_roundtrips(label in any::<u32>(), prop in any::<u32>(), v in indexable_value(), node in any::<u64>()) {
        let k = PropIndexKey { label: LabelId(label), prop: PropKeyId(prop), value: v, node: NodeId(node) };
        let back = PropIndexKey::decode(&k.encode().unwrap()).unwrap();
        prop_assert!(same(&back.value, &k.value));
        prop_assert_eq!((back.label, back.prop, back.node), (k.label, k.prop, k.node));
    }

    #[test]
    fn prop_index_keys_sort_by_value_then_node(v1 in indexable_value(), v2 in indexable_value(), n1 in any::<u64>(), n2 in any::<u64>()) {
        let k1 = PropIndexKey { label: LabelId(3), prop: PropKeyId(7), value: v1.clone(), node: NodeId(n1) }.encode().unwrap();
        let k2 = PropIndexKey { label: LabelId(3), prop: PropKeyId(7), value: v2.clone(), node: NodeId(n2) }.encode().unwrap();
        let expected = v1.index_cmp(&v2).unwrap().then(n1.cmp(&n2));
        prop_assert_eq!(k1.cmp(&k2), expected);
    }

    #[test]
    fn degree_roundtrips(out in any::<i64>(), inc in any::<i64>()) {
        let d = Degree { out, inc };
        prop_assert_eq!(Degree::decode(&d.encode()).unwrap(), d);
    }

    #[test]
    fn node_record_roundtrips(label in any::<u32>(), key in ".{0,16}", props in proptest::collection::vec((any::<u32>(), any_value()), 0..5), description in proptest::option::of(".{0,40}")) {
        let mut props: Vec<(PropKeyId, Value)> = props.into_iter().map(|(k, v)| (PropKeyId(k), v)).collect();
        props.sort_by_key(|(k, _)| *k);
        props.dedup_by_key(|(k, _)| *k);
        // NaN != NaN: compare through the encoding instead of PartialEq.
        let rec = NodeRecord { label: LabelId(label), key, props, description };
        let bytes = rec.encode().unwrap();
        prop_assert_eq!(NodeRecord::decode(&bytes).unwrap().encode().unwrap(), bytes);
    }

    #[test]
    fn vector_roundtrips(v in proptest::collection::vec(-1.0f32..1.0, 0..64)) {
        let bytes = records::encode_vector(&v);
        prop_assert_eq!(records::decode_vector(&bytes, v.len()).unwrap(), v);
    }

    /// Decoders answer arbitrary bytes with an error, never a panic.
    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let _ = NodeKey::decode(&bytes);
        let _ = ExternalKey::decode(&bytes);
        let _ = OutEdgeKey::decode(&bytes);
        let _ = InEdgeKey::decode(&bytes);
        let _ = PropIndexKey::decode(&bytes);
        let _ = MetaKey::decode(&bytes);
        let _ = Degree::decode(&bytes);
        let _ = NodeRecord::decode(&bytes);
        let _ = EdgeProps::decode(&bytes);
        let _ = CatalogRecord::decode(&bytes);
        let _ = decode_ordered(&bytes);
        let _ = records::decode_vector(&bytes, 3);
    }
}

#[test]
fn meta_keys_roundtrip() {
    for k in MetaKey::ALL {
        assert_eq!(MetaKey::decode(k.encode()).unwrap(), k);
    }
    assert!(MetaKey::decode(b"nope").is_err());
}

#[test]
fn lists_are_not_indexable() {
    let mut out = Vec::new();
    assert_eq!(
        encode_ordered(&Value::List(vec![]), &mut out),
        Err(FormatError::NotIndexable("list"))
    );
}

#[test]
fn unknown_record_version_is_refused() {
    let mut bytes = NodeRecord {
        label: LabelId(1),
        key: "k".into(),
        props: vec![],
        description: None,
    }
    .encode()
    .unwrap();
    bytes[0] = 9;
    assert_eq!(
        NodeRecord::decode(&bytes),
        Err(FormatError::UnknownRecordVersion {
            found: 9,
            supported: codec::RECORD_VERSION
        })
    );
}

/// A value whose serialisation fails, as a future record type's might:
/// the codec must report it, not store a 1-byte record that no longer decodes.
struct Unencodable;

impl serde::Serialize for Unencodable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("refused on purpose"))
    }
}

#[test]
fn a_serialisation_error_is_an_error_not_a_short_record() {
    match codec::encode(&Unencodable) {
        Err(FormatError::Codec(_)) => {}
        other => panic!("expected a codec error, got {other:?}"),
    }
}
