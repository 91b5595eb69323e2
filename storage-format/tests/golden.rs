//! Golden bytes: the exact encoding of every key type and record. If one of these fails, the
//! on-disk format changed: bump FORMAT_VERSION / RECORD_VERSION and update docs/FORMAT.md
//! deliberately, never by editing the expected bytes alone.
#![allow(clippy::unwrap_used)]

use cairn_storage_format::*;

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn golden_node_key() {
    assert_eq!(
        hex(&NodeKey(NodeId(0x0102_0304_0506_0708)).encode()),
        "01 02 03 04 05 06 07 08"
    );
}

#[test]
fn golden_external_key() {
    let k = ExternalKey {
        label: LabelId(2),
        key: "a-1".into(),
    };
    assert_eq!(hex(&k.encode()), "00 00 00 02 61 2d 31");
}

#[test]
fn golden_name_key() {
    let k = NameKey {
        name: "ann lee".into(),
        node: NodeId(5),
    };
    assert_eq!(
        hex(&k.encode()),
        "61 6e 6e 20 6c 65 65 00 00 00 00 00 00 00 00 05"
    );
    assert_eq!(NameKey::decode(&k.encode()).unwrap(), k);
    assert_eq!(hex(&NameKey::name_prefix("ann")), "61 6e 6e 00");
    assert!(NameKey::decode(&[0, 0, 0]).is_err());
    assert!(NameKey::decode(b"ann\x01\0\0\0\0\0\0\0\x05").is_err());
}

#[test]
fn golden_edge_keys() {
    let k = OutEdgeKey {
        src: NodeId(1),
        rel: RelId(3),
        dst: NodeId(258),
    };
    assert_eq!(
        hex(&k.encode()),
        "00 00 00 00 00 00 00 01 00 00 00 03 00 00 00 00 00 00 01 02"
    );
    assert_eq!(
        hex(&k.reversed().encode()),
        "00 00 00 00 00 00 01 02 00 00 00 03 00 00 00 00 00 00 00 01"
    );
}

#[test]
fn golden_prop_index_keys() {
    let key = |value: Value| PropIndexKey {
        label: LabelId(1),
        prop: PropKeyId(2),
        value,
        node: NodeId(5),
    };
    let node = "00 00 00 00 00 00 00 05";
    let head = "00 00 00 01 00 00 00 02";
    assert_eq!(
        hex(&key(Value::Null).encode().unwrap()),
        format!("{head} 00 {node}")
    );
    assert_eq!(
        hex(&key(Value::Bool(true)).encode().unwrap()),
        format!("{head} 01 01 {node}")
    );
    assert_eq!(
        hex(&key(Value::Int(-1)).encode().unwrap()),
        format!("{head} 02 7f ff ff ff ff ff ff ff {node}")
    );
    assert_eq!(
        hex(&key(Value::Int(1)).encode().unwrap()),
        format!("{head} 02 80 00 00 00 00 00 00 01 {node}")
    );
    assert_eq!(
        hex(&key(Value::Float(1.0)).encode().unwrap()),
        format!("{head} 03 bf f0 00 00 00 00 00 00 {node}")
    );
    assert_eq!(
        hex(&key(Value::Float(-1.0)).encode().unwrap()),
        format!("{head} 03 40 0f ff ff ff ff ff ff {node}")
    );
    assert_eq!(
        hex(&key(Value::Str("a\0b".into())).encode().unwrap()),
        format!("{head} 04 61 00 ff 62 00 01 {node}")
    );
}

#[test]
fn golden_meta_keys() {
    assert_eq!(MetaKey::Format.encode(), b"format");
    assert_eq!(MetaKey::Catalog.encode(), b"catalog");
    assert_eq!(MetaKey::NextNodeId.encode(), b"next_node_id");
    assert_eq!(MetaKey::ImportPending.encode(), b"import_pending");
    assert_eq!(MetaKey::Commits.encode(), b"commits");
    assert_eq!(MetaKey::Annotations.encode(), b"annotations");
    assert_eq!(MetaKey::Strategies.encode(), b"strategies");
    assert_eq!(MetaKey::MaxDegree.encode(), b"max_degree");
    assert_eq!(MetaKey::Linking.encode(), b"linking");
    assert_eq!(
        hex(&records::encode_id_range(1, 258)),
        "00 00 00 00 00 00 00 01 00 00 00 00 00 00 01 02"
    );
}

#[test]
fn golden_degree() {
    assert_eq!(
        hex(&Degree { out: 2, inc: -1 }.encode()),
        "00 00 00 00 00 00 00 02 ff ff ff ff ff ff ff ff"
    );
}

#[test]
fn golden_vector() {
    assert_eq!(
        hex(&records::encode_vector(&[1.0, -2.0])),
        "00 00 80 3f 00 00 00 c0"
    );
}

#[test]
fn golden_node_record() {
    let rec = NodeRecord {
        label: LabelId(1),
        key: "a1".into(),
        props: vec![
            (PropKeyId(0), Value::Str("Ann".into())),
            (PropKeyId(1), Value::Int(-3)),
        ],
        description: Some("x".into()),
    };
    // version 01 | label 01 | key len 02 "a1" | 2 props: (0, Str=4 len 3 "Ann"), (1, Int=2 zigzag(-3)=5) | Some "x"
    assert_eq!(
        hex(&rec.encode().unwrap()),
        "01 01 02 61 31 02 00 04 03 41 6e 6e 01 02 05 01 01 78"
    );
}

#[test]
fn golden_edge_props() {
    assert_eq!(EdgeProps::default().encode().unwrap(), Vec::<u8>::new());
    let e = EdgeProps {
        weight: Some(0.5),
        props: vec![(PropKeyId(3), Value::Bool(true))],
    };
    assert_eq!(hex(&e.encode().unwrap()), "01 01 00 00 00 3f 01 03 01 01");
}

#[test]
fn golden_catalog_record() {
    let c = CatalogRecord {
        labels: vec!["A".into()],
        relations: vec![RelationDef {
            name: "R".into(),
            parent: None,
            endpoints: vec![(LabelId(0), LabelId(0))],
        }],
        prop_keys: vec!["p".into()],
        indexes: vec![IndexDef {
            label: LabelId(0),
            prop: PropKeyId(0),
        }],
        embedder: Some(EmbedderDef {
            id: "e".into(),
            dim: 4,
        }),
    };
    assert_eq!(
        hex(&c.encode().unwrap()),
        "01 01 01 41 01 01 52 00 01 00 00 01 01 70 01 00 00 01 01 65 04"
    );
}

#[test]
fn golden_annotations_record() {
    let a = AnnotationsRecord {
        labels: vec![],
        relations: vec![(
            RelId(2),
            Annotation {
                description: Some("d".into()),
                aliases: vec!["x".into(), "yz".into()],
            },
        )],
        props: vec![],
    };
    assert_eq!(
        hex(&a.encode().unwrap()),
        "01 00 01 02 01 01 64 02 01 78 02 79 7a 00"
    );
    assert_eq!(AnnotationsRecord::decode(&a.encode().unwrap()).unwrap(), a);
}

#[test]
fn golden_linking_record() {
    let l = LinkingRecord {
        unlinked_labels: vec![LabelId(3), LabelId(200)],
    };
    assert_eq!(hex(&l.encode().unwrap()), "01 02 03 c8 01");
    assert_eq!(LinkingRecord::decode(&l.encode().unwrap()).unwrap(), l);
}

#[test]
fn golden_format_version() {
    assert_eq!(FORMAT_VERSION, 2);
    assert_eq!(codec::RECORD_VERSION, 1);
}

#[test]
fn golden_change_key_and_record() {
    assert_eq!(hex(&ChangeKey(0x0102).encode()), "00 00 00 00 00 00 01 02");
    assert_eq!(
        ChangeKey::decode(&ChangeKey(7).encode()).unwrap(),
        ChangeKey(7)
    );
    assert!(ChangeKey::decode(&[0; 7]).is_err());
    let r = ChangeRecord {
        nodes_upserted: vec![NodeId(1), NodeId(300)],
        nodes_removed: vec![NodeId(2)],
        edges_added: vec![(NodeId(1), RelId(3), NodeId(300))],
        edges_removed: vec![],
        props_touched: vec![NodeId(1)],
        vectors_touched: vec![NodeId(300)],
        imported: Some((5, 9)),
        catalog_changed: true,
    };
    assert_eq!(
        hex(&r.encode().unwrap()),
        "01 02 01 ac 02 01 02 01 01 03 ac 02 00 01 01 01 ac 02 01 05 09 01"
    );
    assert_eq!(ChangeRecord::decode(&r.encode().unwrap()).unwrap(), r);
    let empty = ChangeRecord::default();
    assert_eq!(hex(&empty.encode().unwrap()), "01 00 00 00 00 00 00 00 00");
}
