#!/usr/bin/env bash
# A local Redis Cluster on loopback ports, for Cairn's cluster backend (docs/STORAGE.md): tests,
# `.ci/run` and the benchmarks start it and stop it; nothing listens beyond 127.0.0.1.
#
# Usage: bash scripts/redis-cluster.sh start DIR [MASTERS] [REPLICAS_PER_MASTER] [FIRST_PORT]
#        bash scripts/redis-cluster.sh stop DIR
#        (defaults: 3 masters, 1 replica each, ports from 7100; FIRST_PORT `auto`: the first of
#        7100, 7200, ... 7900 whose ports and cluster-bus ports are all free, so that runs side
#        by side do not meet). `start` prints the seed URL (redis://127.0.0.1:FIRST_PORT) on its
#        last line once the cluster reports `ok`.
# Each instance keeps its files (config, append-only file, log, pid) in DIR/PORT/ and runs with
# `appendonly yes` and `appendfsync everysec`; `stop` shuts down exactly the instances whose pid
# files are in DIR, and removes DIR.
# Needs Debian's redis-server and redis-tools 7.0 (scripts/setup.sh installs them).
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?directory for the instances}

stop() {
  [ -d "$dir" ] || return 0
  for pidfile in "$dir"/*/redis.pid; do
    [ -f "$pidfile" ] || continue
    port=$(basename "$(dirname "$pidfile")")
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  # Wait for them to exit before their files go.
  for pidfile in "$dir"/*/redis.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$dir"
}

case "$cmd" in
  stop) stop ;;
  start)
    masters=${3:-3}
    replicas=${4:-1}
    first=${5:-7100}
    total=$((masters * (1 + replicas)))
    stop
    if [ "$first" = auto ]; then
      in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
      first=
      for base in $(seq 7100 100 7900); do
        free=1
        for i in $(seq 0 $((total - 1))); do
          if in_use $((base + i)) || in_use $((base + i + 10000)); then free=0; break; fi
        done
        [ "$free" -eq 1 ] && { first=$base; break; }
      done
      [ -n "$first" ] || { echo "no free range of $total ports in 7100-7999" >&2; exit 1; }
    fi
    mkdir -p "$dir"
    nodes=()
    for i in $(seq 0 $((total - 1))); do
      port=$((first + i))
      d="$dir/$port"
      mkdir -p "$d"
      cat > "$d/redis.conf" <<EOF
port $port
bind 127.0.0.1
protected-mode yes
daemonize yes
pidfile $d/redis.pid
logfile $d/redis.log
dir $d
cluster-enabled yes
cluster-config-file nodes.conf
cluster-node-timeout 2000
cluster-replica-validity-factor 0
appendonly yes
appendfsync everysec
save ""
EOF
      redis-server "$d/redis.conf"
      nodes+=("127.0.0.1:$port")
    done
    for n in "${nodes[@]}"; do
      for _ in $(seq 1 50); do redis-cli -p "${n##*:}" ping >/dev/null 2>&1 && break; sleep 0.1; done
    done
    if [ "$masters" -eq 1 ]; then
      # `--cluster create` wants 3 masters: one master takes every slot by hand.
      redis-cli -p "$first" cluster addslotsrange 0 16383 >/dev/null
      for i in $(seq 1 $((total - 1))); do
        redis-cli -p $((first + i)) cluster meet 127.0.0.1 "$first" >/dev/null
      done
      sleep 1
      id=$(redis-cli -p "$first" cluster myid)
      for i in $(seq 1 $((total - 1))); do
        redis-cli -p $((first + i)) cluster replicate "$id" >/dev/null
      done
    else
      redis-cli --cluster create "${nodes[@]}" --cluster-replicas "$replicas" --cluster-yes >"$dir/create.log" 2>&1
    fi
    for _ in $(seq 1 100); do
      ok=1
      for n in "${nodes[@]}"; do
        redis-cli -p "${n##*:}" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ok=0
      done
      # and every replica attached to its master
      slaves=$(redis-cli -p "$first" cluster nodes 2>/dev/null | grep -c ' slave ' || true)
      [ "$slaves" -eq $((total - masters)) ] || ok=0
      [ "$ok" -eq 1 ] && break
      sleep 0.2
    done
    [ "$ok" -eq 1 ] || { echo "cluster did not reach state ok (see $dir/*/redis.log)" >&2; exit 1; }
    echo "redis://127.0.0.1:$first"
    ;;
  *) echo "usage: $0 start|stop DIR ..." >&2; exit 2 ;;
esac
