# Sourced by the bench scripts. `timed NAME COMMAND...` runs COMMAND once with its stdout in
# $WORK/out and stderr in $WORK/err (the caller sets WORK), and sets LOAD (/proc/loadavg's three
# averages just before), T0 and T1 (wall clock around it, seconds), RSS_KB (its peak RSS, from
# /usr/bin/time) and CPU_S (its user + system CPU seconds: on a loaded machine, the part of the
# wall time the command itself spent). A failing command ends the script with its last lines of stderr.
timed() {
  local name=$1; shift
  LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
  T0=$(date +%s.%N)
  /usr/bin/time -f "%U %S"$'\n'"%M" -o "$WORK/rss" "$@" > "$WORK/out" 2> "$WORK/err" \
    || { echo "$name failed:" >&2; tail -n 5 "$WORK/err" >&2; exit 1; }
  T1=$(date +%s.%N)
  RSS_KB=$(tail -n 1 "$WORK/rss")
  CPU_S=$(tail -n 2 "$WORK/rss" | head -n 1 | awk '{print $1 + $2}')
}
