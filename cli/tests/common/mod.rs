//! Helpers shared by the tests that run the `cairn` binary.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `cairn` with `args`, without the caller's `CAIRN_DB`.
pub fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .env_remove("CAIRN_DB")
        .output()
        .unwrap()
}

/// Runs `cairn` with `args` and `input` on standard input, without the caller's `CAIRN_DB`.
pub fn cairn_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .env_remove("CAIRN_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Fails unless `bytes` hold nothing a terminal would act on or reorder: C0 controls but line
/// end and tab, DEL, C1 controls, bidirectional controls and zero-width characters.
pub fn assert_inert(what: &str, bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = s
        .chars()
        .filter(|&c| {
            (cairn::format::rules::is_control(c) && c != '\n' && c != '\t')
                || cairn::format::rules::is_invisible(c)
        })
        .collect();
    assert!(bad.is_empty(), "{what} prints raw {bad:?}: {s}");
}

/// The database `dir/db`, made by importing `lines` as one JSON Lines file `dir/d.jsonl`.
pub fn import_json(dir: &Path, lines: &[serde_json::Value]) -> std::path::PathBuf {
    let dump = dir.join("d.jsonl");
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&dump, body).unwrap();
    let db = dir.join("db");
    let o = cairn(&["--db", path(&db), "import", path(&dump)]);
    assert!(o.status.success(), "{:?}", text(&o));
    db
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

/// The database `dir/db`, made by importing `dump` with hash vectors (not the default), so
/// that the vector index's paths are exercised too.
pub fn imported(dir: &Path, dump: &Path) -> std::path::PathBuf {
    let db = dir.join("db");
    let o = cairn(&[
        "--db",
        path(&db),
        "import",
        path(dump),
        "--embedder",
        "hash",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    db
}
