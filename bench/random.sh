#!/usr/bin/env bash
# Random execution speed of the interpreter on Global1 (examples/consensus/global1.ioa, its
# default universe: 3 nodes, 3 values, 20 ballots), the figure the first wave set at 1M
# transitions/s on one thread. One table, all rows measured in this run:
#
#   bench/random.sh            RUNS=300 STEPS=10000 (3M steps per row)
#
# Rows: Global1 with no invariant checked, Global1 with the 9 invariants of
# global1_invariants.ioa checked on every state, and — the peer in the same run — the
# explorer's transitions (successors generated) per CPU second on Global1 with examples/consensus/explore.universe
# (1 thread, compiled engine). steps/CPU-s is steps over user+system seconds: on a shared
# machine the fairer figure; wall steps/s is shown beside it with the load average. With
# valgrind present, instructions per step (callgrind, 10 runs × 10,000 steps) give a count
# that does not depend on the machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-300}
STEPS=${STEPS:-10000}
cargo build --release --quiet --bin ioa
IOA=$PWD/target/release/ioa
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

measure() { # name, then the ioa arguments; prints one row
  local name=$1; shift
  /usr/bin/time -f "%U %S %e" -o "$WORK/time" "$IOA" "$@" >"$WORK/out" 2>&1 || true
  read -r user sys wall <"$WORK/time"
  local steps
  steps=$(grep -Eo '[0-9]+ step\(s\) in all' "$WORK/out" | grep -Eo '^[0-9]+' || true)
  if [ -z "$steps" ]; then # the explorer: transitions
    steps=$(grep -Eo '\([0-9,]+ generated' "$WORK/out" | head -1 | tr -d '(,' | grep -Eo '^[0-9]+')
  fi
  awk -v n="$name" -v s="$steps" -v u="$user" -v y="$sys" -v w="$wall" 'BEGIN {
    cpu = u + y; if (cpu <= 0) cpu = 0.01;
    printf "| %s | %d | %.2f | %.2f | %.0f | %.0f |\n", n, s, cpu, w, s / cpu, s / w }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| row | steps | CPU s | wall s | steps/CPU-s | steps/wall-s |"
echo "|---|---:|---:|---:|---:|---:|"
measure "Global1 random, no invariants" run examples/consensus/global1.ioa --automaton Global1 \
  --random --runs "$RUNS" --steps "$STEPS" --seed 1 --quiet
measure "Global1 random, 9 invariants" run examples/consensus/global1_invariants.ioa \
  --automaton Global1 --universe-file examples/consensus/default.universe \
  --random --runs "$RUNS" --steps "$STEPS" --seed 1 --quiet
measure "peer: explore Global1 (explore.universe, 1 thread)" explore \
  examples/consensus/global1.ioa --automaton Global1 \
  --universe-file examples/consensus/explore.universe --threads 1
if command -v valgrind >/dev/null 2>&1; then
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg" "$IOA" run \
    examples/consensus/global1.ioa --automaton Global1 --random --runs 10 --steps 10000 \
    --seed 1 --quiet >/dev/null 2>"$WORK/vg" || true
  ir=$(grep -Eo 'Collected : [0-9]+' "$WORK/vg" | grep -Eo '[0-9]+$' || true)
  [ -n "$ir" ] && echo && echo "callgrind: $ir instructions for 100,000 steps (start-up included): $((ir / 100000)) per step"
fi
