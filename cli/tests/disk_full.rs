//! A full or nearly full disk (docs/RELIABILITY.md, "Full disks"): in a
//! private mount namespace (`unshare --user --map-root-user --mount`, no privileges needed)
//! a small tmpfs holds the database, a file fills it to within a few bytes of full, and the
//! `cairn` binary runs `stats`, a SEARCH that must build and save its index, and an UPSERT.
//! Each must exit cleanly (never 134, RocksDB's abort), leave no `vectors.hnsw.tmp`, and
//! change nothing; once space is freed the database works.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{imported, item_dump};
use std::process::Command;

const SCRIPT: &str = r#"
set -u
M=$(mktemp -d)
mount -t tmpfs -o size=24m tmpfs "$M" || exit 77
cp -r "$SRC" "$M/db"
rm -f "$M/db/vectors.hnsw"
for K in 0 4096 262144 2097152; do
  rm -f "$M/fill"
  avail=$(df --output=avail -B1 "$M" | tail -1)
  head -c $((avail - K)) /dev/zero > "$M/fill" 2>/dev/null
  "$BIN" --db "$M/db" stats > /dev/null 2> "$OUT/$K.stats.err"; echo $? > "$OUT/$K.stats.rc"
  "$BIN" --db "$M/db" query -e 'EXPLORE "x" FROM SEARCH "item" IN Item TOP 3' > /dev/null 2> "$OUT/$K.search.err"; echo $? > "$OUT/$K.search.rc"
  "$BIN" --db "$M/db" query -e 'UPSERT Item "full" SET v = 1' > /dev/null 2> "$OUT/$K.upsert.err"; echo $? > "$OUT/$K.upsert.rc"
  ls "$M/db" > "$OUT/$K.ls"
done
rm -f "$M/fill"
cp -r "$M/db" "$OUT/after-full"
"$BIN" --db "$M/db" query -e 'UPSERT Item "later" SET v = 2' > /dev/null 2> "$OUT/later.err"; echo $? > "$OUT/later.rc"
umount "$M"
"#;

#[test]
fn a_full_disk_gives_clean_errors_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let src = imported(tmp.path(), &item_dump(tmp.path(), 30, false));
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let status = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c", SCRIPT])
        .env("SRC", &src)
        .env("OUT", &out)
        .env("BIN", env!("CARGO_BIN_EXE_cairn"))
        .status();
    match status {
        Ok(s) if s.code() == Some(77) || s.code().is_none() => {
            eprintln!("skipped: this machine allows no tmpfs in a user namespace");
            return;
        }
        Err(e) => {
            eprintln!("skipped: no unshare ({e})");
            return;
        }
        Ok(s) => assert!(s.success(), "the script failed: {s:?}"),
    }
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    for k in ["0", "4096", "262144", "2097152"] {
        for cmd in ["stats", "search", "upsert"] {
            let rc: i32 = read(&format!("{k}.{cmd}.rc")).trim().parse().unwrap();
            let err = read(&format!("{k}.{cmd}.err"));
            // 0, 1 (database error) or 2 (a write in the read-only session a reading
            // command falls back to, saying why) — never 134, RocksDB's abort.
            assert!(
                (0..=2).contains(&rc),
                "{cmd} with {k} bytes free: exit {rc}: {err}"
            );
            if rc != 0 {
                assert!(err.contains("full"), "{cmd} with {k} bytes free: {err}");
            }
            if cmd == "upsert" {
                assert_ne!(rc, 0, "an UPSERT with {k} bytes free succeeded");
                // The refusal says why: the disk, not another process.
                if rc == 2 {
                    assert!(
                        err.contains("because its disk is full: writes are refused"),
                        "{err}"
                    );
                    assert!(!err.contains("holds it for writing"), "{err}");
                }
            }
        }
        let ls = read(&format!("{k}.ls"));
        assert!(!ls.contains(".tmp"), "with {k} bytes free: {ls}");
    }
    // Nothing changed while the disk was full; afterwards writes work again.
    let after = cairn::Cairn::open(out.join("after-full")).unwrap();
    let graph = after.graph();
    use cairn::GraphRead;
    assert!(graph.node_id("Item", "full").unwrap().is_none());
    for i in 0..30 {
        assert!(graph.node_id("Item", &format!("k{i}")).unwrap().is_some());
    }
    assert_eq!(read("later.rc").trim(), "0", "{}", read("later.err"));
}
