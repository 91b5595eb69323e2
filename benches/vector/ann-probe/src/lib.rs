//! Shared loader for the files written by `gen_vectors.py`.
use std::fs;
use std::path::Path;

pub struct Data {
    pub n: usize,
    pub q: usize,
    pub dim: usize,
    pub base: Vec<f32>,
    pub queries: Vec<f32>,
    pub gt: Vec<u32>,
}

fn f32s(p: &Path) -> Vec<f32> {
    let b = fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn num(meta: &str, key: &str) -> usize {
    let at = meta.find(&format!("\"{key}\"")).unwrap_or_else(|| panic!("meta.json lacks {key}"));
    let rest = &meta[at + key.len() + 3..];
    rest.trim_start().chars().take_while(|c| c.is_ascii_digit()).collect::<String>().parse().unwrap()
}

impl Data {
    pub fn load(dir: &Path) -> Data {
        let meta = fs::read_to_string(dir.join("meta.json")).expect("meta.json (run gen_vectors.py)");
        let (n, q, dim) = (num(&meta, "n"), num(&meta, "q"), num(&meta, "dim"));
        let base = f32s(&dir.join("base.f32"));
        let queries = f32s(&dir.join("queries.f32"));
        let g = fs::read(dir.join("gt.u32")).unwrap();
        let gt = g.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert_eq!(base.len(), n * dim);
        Data { n, q, dim, base, queries, gt }
    }
    pub fn row(&self, i: usize) -> &[f32] {
        &self.base[i * self.dim..(i + 1) * self.dim]
    }
    pub fn query(&self, i: usize) -> &[f32] {
        &self.queries[i * self.dim..(i + 1) * self.dim]
    }
    /// recall@10 hits of one query's answer.
    pub fn hits(&self, qi: usize, got: &[usize]) -> usize {
        let want = &self.gt[qi * 10..qi * 10 + 10];
        got.iter().take(10).filter(|g| want.contains(&(**g as u32))).count()
    }
}

pub fn threads() -> usize {
    std::env::var("BENCH_THREADS").ok().and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}
