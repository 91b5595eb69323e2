//! Embeds one text per line with all-MiniLM-L6-v2 and writes the unit vectors as little-endian
//! f32, row after row: the real-embedding set of the vector benchmark
//! (`benches/vector/minilm_set.sh` runs it; docs/VECTOR.md).
//!
//! `CAIRN_MINILM_DIR=... cargo run --release -p cairn-embed --features minilm --example embed_lines -- IN.txt OUT.f32`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_embed::{Embedder, MiniLmEmbedder};
use std::io::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = args.as_slice() else {
        eprintln!("usage: embed_lines IN.txt OUT.f32");
        std::process::exit(2);
    };
    let model = MiniLmEmbedder::from_env().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let text = std::fs::read_to_string(input).expect("read input");
    let lines: Vec<&str> = text.lines().collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(output).expect("create output"));
    let start = Instant::now();
    for (i, batch) in lines.chunks(256).enumerate() {
        for v in model.embed_batch(batch).expect("embed") {
            assert_eq!(v.len(), model.dim());
            v.iter()
                .for_each(|x| out.write_all(&x.to_le_bytes()).expect("write"));
        }
        if i % 40 == 0 {
            eprintln!(
                "{} / {} in {:.0} s",
                (i + 1) * batch.len(),
                lines.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    out.flush().expect("flush");
    eprintln!(
        "{} vectors in {:.0} s",
        lines.len(),
        start.elapsed().as_secs_f64()
    );
}
