#!/usr/bin/env bash
# The compiled engine on composite models (issue #36's targets), with the interpreted engine as
# the peer measured in the same run:
#
#   bench/composite.sh            TIME=60 (seconds per composite Paxos run)
#
# Rows: the composite Paxos over examples/paxos/explore.universe (no depth limit, stopped by
# the time limit: states stored per second and bytes per state as `ioa explore` reports them),
# and LCR of examples/lcr with 6 and 7 processes and of tests/data/manual/lcr.ioa with 8 (run to
# the end: whole-process CPU seconds), each with the default engine and with --engine
# interpreter. One thread.
set -euo pipefail
cd "$(dirname "$0")/.."
TIME=${TIME:-60}
cargo build --release --quiet --bin ioa
IOA=$PWD/target/release/ioa
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

measure() { # name, engine, then the ioa arguments; prints one row
  local name=$1 engine=$2; shift 2
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$IOA" explore "$@" --engine "$engine" --threads 1 \
    >"$WORK/out" 2>&1 || true
  # The last line (a failing exit status is reported on the line before).
  read -r user sys < <(tail -1 "$WORK/time")
  local stored rate bytes
  stored=$(grep -Eo '\([0-9,]+ stored' "$WORK/out" | head -1 | tr -d '(,' | grep -Eo '^[0-9]+' || true)
  [ -z "$stored" ] && stored=$(grep -Eo 'in all [0-9,]+ reachable states' "$WORK/out" | tr -d ',' | grep -Eo '[0-9]+' || true)
  rate=$(grep -Eo '[0-9,]+ states/s' "$WORK/out" | tr -d ',' | grep -Eo '^[0-9]+' || true)
  bytes=$(grep -Eo '[0-9,]+ bytes/state' "$WORK/out" | tr -d ',' | grep -Eo '^[0-9]+' || true)
  awk -v n="$name" -v e="$engine" -v s="${stored:-?}" -v r="${rate:-?}" -v b="${bytes:-?}" \
    -v u="$user" -v y="$sys" 'BEGIN { printf "| %s | %s | %s | %s | %s | %.2f |\n", n, e, s, r, b, u + y }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| model | engine | states stored | states/s | bytes/state | CPU s |"
echo "|---|---|---:|---:|---:|---:|"
for engine in auto interpreter; do
  measure "composite Paxos, explore.universe, ${TIME} s" "$engine" examples/paxos/paxos.ioa \
    --automaton Paxos --universe-file examples/paxos/explore.universe --time-limit "$TIME"
done
for engine in auto interpreter; do
  measure "LCR n = 6 (examples/lcr)" "$engine" examples/lcr/lcr.ioa --automaton LCR --param n=6
  measure "LCR n = 7 (examples/lcr)" "$engine" examples/lcr/lcr.ioa --automaton LCR --param n=7
  measure "LCR n = 8 (tests/data/manual/lcr.ioa)" "$engine" tests/data/manual/lcr.ioa \
    --automaton LCR --param n=8 --universe Int=0..8
done
