#!/usr/bin/env bash
# Installs the system packages Cairn builds against, if they are missing (Debian/Ubuntu):
#   librocksdb-dev  RocksDB 7.8, linked dynamically (see docs/BUILD.md: the bundled C++ build
#                   takes over an hour on 2 cores)
#   libclang-dev    for bindgen in librocksdb-sys
#   wordnet-base    WordNet 3.0 files the planner reads for synonyms (docs/AGENTS.md)
#   redis-server, redis-tools
#                   Redis 7.0 for the cluster backend's tests (scripts/redis-cluster.sh starts a
#                   local cluster on loopback ports; nothing else runs it)
#   python3-venv    a virtual environment to install the Python package into (docs/PYTHON.md;
#                   Debian's Python refuses `pip install` outside one)
set -euo pipefail
packages=(librocksdb-dev libclang-dev wordnet-base redis-server redis-tools python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
