# Sourced by the derived-state benches that need a database with vectors (loop.sh, readers.sh,
# search.sh): sets WORK (CAIRN_BENCH_DIR, or a new temporary directory) and makes sure it holds
# dump/ (`cairn generate academic --seed 42`, NODES nodes, default 1,000,000), cairn-db/ (the
# import with `--embedder hash`: hash vectors, vector index) and kuzu-db/ (benches/import/kuzu_import.py);
# sets CAIRN (the release binary, CAIRN_BIN or built here) and DRIVER (examples/derived.rs).
NODES=${NODES:-1000000}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-derived.XXXXXX)}
if [ -z "${CAIRN_BIN:-}" ] || [ -z "${DRIVER:-}" ]; then
  cargo build -q --release -p cairn-cli >&2 && cargo build -q --release -p cairn --example derived >&2
fi
CAIRN=${CAIRN_BIN:-${CARGO_TARGET_DIR:-target}/release/cairn}
DRIVER=${DRIVER:-${CARGO_TARGET_DIR:-target}/release/examples/derived}
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3
if [ ! -e "$WORK/dump" ]; then
  "$CAIRN" generate academic --nodes "$NODES" --seed 42 --format csv --out "$WORK/dump" >&2
  echo "$NODES" > "$WORK/dump.nodes"
fi
[ -e "$WORK/cairn-db" ] || "$CAIRN" --db "$WORK/cairn-db" import --embedder hash "$WORK/dump" >&2
[ -e "$WORK/kuzu-db" ] || python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/kuzu-db" >&2
