//! An application that embeds Cairn: opens a database next to it, writes a few nodes and edges
//! in one atomic batch, explores from an author, asks a question, and reads neighbours directly.
//!
//! Run: `cargo run --example embedded -- /tmp/embedded.cairn`

use cairn::{Cairn, CairnError, CancelToken, Direction, GraphRead, Output, Value};

fn main() -> Result<(), CairnError> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "embedded.cairn".to_owned());
    let db = Cairn::open(&path)?;

    // Writes: one transaction, committed when the closure returns Ok (rolled back on Err or
    // panic). Reads inside it see its own writes.
    let fp = db.transaction(|tx| {
        let han = tx.upsert_node("Author", "han", [("name", Value::from("Jiawei Han"))], None)?;
        let pei = tx.upsert_node("Author", "pei", [("name", Value::from("Jian Pei"))], None)?;
        let fp = tx.upsert_node(
            "Paper",
            "fp",
            [
                (
                    "title",
                    Value::from("Mining frequent patterns without candidate generation"),
                ),
                ("year", Value::Int(2000)),
            ],
            None,
        )?;
        let sigmod = tx.upsert_node("Venue", "sigmod", [("name", Value::from("SIGMOD"))], None)?;
        tx.add_edge(han, "AUTHORED", fp, Default::default())?;
        tx.add_edge(pei, "AUTHORED", fp, Default::default())?;
        tx.add_edge(fp, "PUBLISHED_IN", sigmod, Default::default())?;
        Ok::<_, CairnError>(fp)
    })?;

    // EXPLORE: ranked results with the path that reached each.
    let found = db.explore(r#"EXPLORE "Jiawei Han's co-authors" FROM Author "han" VIA AUTHORED -> <AUTHORED TARGET Author"#)?;
    for r in &found.results {
        let steps: Vec<String> = r
            .path
            .iter()
            .map(|s| format!("{}{}", if s.reversed { "<" } else { "" }, s.relation))
            .collect();
        println!(
            "co-author: {} (score {:.3}, via {})",
            r.name,
            r.score,
            steps.join(" -> ")
        );
    }

    // ASK: the planner turns the question into a plan; the answer carries its evidence.
    if let Output::Answer(a) = db.execute(
        r#"ASK "How many papers did Jiawei Han write?""#,
        &CancelToken::default(),
    )? {
        println!("answer: {}", a.answer.text);
    }

    // The primitive operations an external agent calls as tools.
    for n in db.graph().neighbors(fp, Direction::Both, &[])? {
        let rel = db
            .graph()
            .catalog()
            .relation_name(n.rel)
            .unwrap_or("?")
            .to_owned();
        println!("{:?} {rel} {}", n.direction, db.names(&[n.node])?.join(""));
    }
    Ok(())
}
