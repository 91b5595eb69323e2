//! Helpers shared by the import tests.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use cairn_store::{Direction, Graph, GraphRead};

/// The database as sorted text lines, independent of node ids: nodes with their properties
/// and description, edges by endpoint keys, degrees, relation endpoints.
pub fn canonical(g: &Graph) -> Vec<String> {
    let cat = g.catalog();
    let mut lines = Vec::new();
    let name = |id| {
        let rec = g.node(id).unwrap().unwrap();
        format!("{}:{}", cat.label_name(rec.label).unwrap(), rec.key)
    };
    for (label, label_name) in cat.labels() {
        for id in g.label_nodes(label).unwrap() {
            let rec = g.node(id).unwrap().unwrap();
            let props: Vec<String> = rec
                .props
                .iter()
                .map(|(k, v)| format!("{}={v}", cat.prop_name(*k).unwrap()))
                .collect();
            let d = g.degree(id).unwrap();
            lines.push(format!(
                "N {label_name}:{} {{{}}} {:?} deg={}/{}",
                rec.key,
                props.join(","),
                rec.description,
                d.out,
                d.inc
            ));
            for n in g.neighbors(id, Direction::Out, &[]).unwrap() {
                lines.push(format!(
                    "E {} -{}-> {} {:?}",
                    name(id),
                    cat.relation_name(n.rel).unwrap(),
                    name(n.node),
                    n.props
                ));
            }
            let inc = g.neighbors(id, Direction::In, &[]).unwrap().len();
            lines.push(format!("I {label_name}:{} in={inc}", rec.key));
        }
    }
    for (_, r) in cat.relations() {
        let ends: Vec<String> = r
            .endpoints
            .iter()
            .map(|(s, d)| {
                format!(
                    "{}>{}",
                    cat.label_name(*s).unwrap(),
                    cat.label_name(*d).unwrap()
                )
            })
            .collect();
        lines.push(format!("R {} {}", r.name, ends.join(" ")));
    }
    lines.sort();
    lines
}
