//! Entity lookup precision: for each `mention<TAB>gold name` line, is the first SEARCH hit a node
//! named the gold name? Measured for the full-text index (BM25 over words) and, when the database
//! has vectors, for the vector index alone (what SEARCH used before the full-text index), with
//! the median time of each lookup. Prints one JSON line. `benches/search/entity_lookup.sh` runs
//! it on the dev QA sets.
//!
//! ```text
//! cargo run --release --example entity_lookup -- DB MENTIONS.tsv
//! ```

use cairn::{Cairn, FUSE_DEPTH};
use cairn_store::describe::normalize_name;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(db), Some(mentions)) = (args.get(1), args.get(2)) else {
        return Err("usage: entity_lookup DB MENTIONS.tsv".into());
    };
    let cairn = Cairn::open_read_only(db)?;
    let lines = std::fs::read_to_string(mentions)?;
    let rows: Vec<(&str, &str)> = lines.lines().filter_map(|l| l.split_once('\t')).collect();
    let (mut text_ok, mut vec_ok, mut fused_ok, mut vec_n) = (0usize, 0usize, 0usize, 0usize);
    let (mut text_us, mut vec_us) = (Vec::new(), Vec::new());
    // first calls open (or build) the indexes: not timed
    cairn.text_search("warm", None, 1)?;
    let has_vectors = cairn.index_search("warm", None, 1)?.is_some();
    for (mention, gold) in &rows {
        let gold = normalize_name(gold);
        let started = Instant::now();
        let hits = cairn.text_search(mention, None, 1)?;
        text_us.push(started.elapsed().as_micros());
        if first_is(&cairn, &hits, &gold)? {
            text_ok += 1;
        }
        if has_vectors {
            let started = Instant::now();
            let hits = cairn.index_search(mention, None, 1)?.unwrap_or_default();
            vec_us.push(started.elapsed().as_micros());
            vec_n += 1;
            if first_is(&cairn, &hits, &gold)? {
                vec_ok += 1;
            }
            let words = cairn.text_search(mention, None, FUSE_DEPTH)?;
            let near = cairn
                .index_search(mention, None, FUSE_DEPTH)?
                .unwrap_or_default();
            if first_is(&cairn, &cairn::fuse(&[&words, &near], 1), &gold)? {
                fused_ok += 1;
            }
        }
    }
    let n = rows.len().max(1) as f64;
    println!(
        "{{\"mentions\": {}, \"text_p_at_1\": {:.4}, \"text_us_p50\": {}, \"vector_p_at_1\": {}, \"vector_us_p50\": {}, \"fused_p_at_1\": {}}}",
        rows.len(),
        text_ok as f64 / n,
        median(&mut text_us),
        if vec_n > 0 { format!("{:.4}", vec_ok as f64 / vec_n as f64) } else { "null".into() },
        median(&mut vec_us),
        if vec_n > 0 { format!("{:.4}", fused_ok as f64 / vec_n as f64) } else { "null".into() },
    );
    Ok(())
}

/// Whether the first hit is named `gold` (normalised as the name index does).
fn first_is(
    cairn: &Cairn,
    hits: &[(cairn_storage_format::NodeId, f32)],
    gold: &str,
) -> Result<bool, cairn::CairnError> {
    let Some((id, _)) = hits.first() else {
        return Ok(false);
    };
    Ok(cairn
        .names(&[*id])?
        .first()
        .is_some_and(|n| normalize_name(n) == gold))
}

fn median(v: &mut [u128]) -> u128 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}
