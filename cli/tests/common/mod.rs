//! Helpers shared by the tests that run the `cairn` binary.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `cairn` with `args`, without the caller's `CAIRN_DB`.
pub fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .env_remove("CAIRN_DB")
        .output()
        .unwrap()
}

/// stdout and stderr as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A path as the `&str` an argument list takes.
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A JSON Lines dump `dir/items.jsonl` of `n` `Item` nodes `k0…` with `v = i` and a
/// description (so an import embeds them), chained by `NEXT` edges when `chain`.
pub fn item_dump(dir: &Path, n: usize, chain: bool) -> std::path::PathBuf {
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!(
            "{{\"type\":\"node\",\"label\":\"Item\",\"key\":\"k{i}\",\"props\":{{\"v\":{i}}},\"description\":\"item number {i}\"}}\n"
        ));
        if chain && i > 0 {
            body.push_str(&format!(
                "{{\"type\":\"edge\",\"rel\":\"NEXT\",\"from\":{{\"label\":\"Item\",\"key\":\"k{}\"}},\"to\":{{\"label\":\"Item\",\"key\":\"k{i}\"}}}}\n",
                i - 1
            ));
        }
    }
    let file = dir.join("items.jsonl");
    std::fs::write(&file, body).unwrap();
    file
}

/// The database `dir/db`, made by importing `dump`.
pub fn imported(dir: &Path, dump: &Path) -> std::path::PathBuf {
    let db = dir.join("db");
    let o = cairn(&["--db", path(&db), "import", path(dump)]);
    assert!(o.status.success(), "{:?}", text(&o));
    db
}
