//! Helpers shared by the integration tests that explore a generated academic graph (the
//! facade's `derived.rs`, `cluster.rs`; the CLI's `search.rs` includes this file too): the
//! import, one EXPLORE on a chosen node source, and what two runs must agree on.
#![allow(dead_code, clippy::unwrap_used)]

use cairn::agent::{Explorer, NodeSource};
use cairn::{Cairn, CancelToken, Exploration, HashEmbedder, ImportEmbedder, ImportOptions};
use cairn_generate::{Academic, AcademicConfig};

/// Imports the generated academic graph of `nodes` nodes (seed 7) into `db`, with hash vectors
/// (not the default), so that the node table's and the vector index's vectors are compared too.
pub fn academic(db: &Cairn, nodes: usize) {
    academic_with(
        db,
        nodes,
        ImportEmbedder::Use(std::sync::Arc::new(HashEmbedder::default())),
    );
}

/// The same graph imported with `embedder` (`ImportEmbedder::Database`: as a plain import).
pub fn academic_with(db: &Cairn, nodes: usize, embedder: ImportEmbedder) {
    let g = Academic::generate(&AcademicConfig::with_nodes(nodes, 7));
    let options = ImportOptions {
        embedder,
        ..Default::default()
    };
    db.import_records(g.records(), options).unwrap();
}

/// What must agree between two runs of one statement (statistics such as cache hits or round
/// trips may differ).
pub fn answer(e: &Exploration) -> String {
    let rows: Vec<String> = e
        .results
        .iter()
        .map(|r| {
            format!(
                "{} {} {:.12} {:.12} {} {:?}",
                r.node, r.name, r.score, r.semantic, r.hops, r.path
            )
        })
        .collect();
    format!(
        "{:?} {:.12} expanded {} scored {}\n{}",
        e.stop,
        e.sufficiency,
        e.stats.nodes_expanded,
        e.stats.nodes_scored,
        rows.join("\n")
    )
}

/// Runs the EXPLORE `statement` on `db` reading node facts from `source`.
pub fn run_on(db: &Cairn, source: &dyn NodeSource, statement: &str) -> Exploration {
    let plan = match db.compile(statement).unwrap() {
        cairn::query::Compiled::Explore(p) => p,
        other => panic!("not an EXPLORE: {other:?}"),
    };
    let embedder = db.embedder();
    Explorer::new(db.graph(), embedder.as_ref(), source)
        .run(&plan, false, &CancelToken::default())
        .unwrap()
}
