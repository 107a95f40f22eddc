#!/usr/bin/env bash
# Liveness walks (ioa liveness) against plain random runs (ioa run --random) on the composite
# Paxos of examples/paxos/paxos_liveness.ioa (PaxosQuiet: no loss, no duplication), in the same
# script and with the same weights, seed and walk length, release build:
#
#   walks/s and steps/s of MaceMC's random walks (the walk time only: breadth-first search and
#   FindCriticalTransition's bookkeeping excluded), steps/s of `ioa run --random` (wall time of
#   the whole command, loading included; it also checks invariants, and PaxosQuiet has none),
#   and the ratio of the two steps/s figures.
#
#   bench/liveness.sh                  30 walks / 30 runs of at most 400 steps
#   WALKS=100 STEPS=1000 bench/liveness.sh
# Walks stop when a node decides, so they are shorter than the runs; steps/s is the figure to
# compare. `--weights fail=0` keeps every node up (MaceMC §4.2's biased walks).
set -euo pipefail
cd "$(dirname "$0")/.."
WALKS=${WALKS:-30}
STEPS=${STEPS:-400}
SEED=${SEED:-1}
WEIGHTS=${WEIGHTS:-fail=0}
cargo build --release --quiet --bin ioa
IOA=$PWD/target/release/ioa
MODEL=examples/paxos/paxos_liveness.ioa

walk_out=$("$IOA" liveness "$MODEL" --automaton PaxosQuiet --property SomeNodeDecides \
  --seed "$SEED" --walks "$WALKS" --depth-max "$STEPS" --bfs-depth 2 --weights "$WEIGHTS" 2>&1 || true)
# "N walks (…), M steps; W walks/s, S steps/s; time T s"
line=$(grep -E 'walks/s' <<<"$walk_out")
walk_steps=$(sed -E 's/.*, ([0-9,]+) steps;.*/\1/' <<<"$line" | tr -d ,)
walks_per_s=$(sed -E 's/.*; ([0-9,]+) walks\/s.*/\1/' <<<"$line" | tr -d ,)
walk_steps_per_s=$(sed -E 's/.*walks\/s, ([0-9,]+) steps\/s.*/\1/' <<<"$line" | tr -d ,)
verdict=$(grep -E '^(no dead path|suspected|C2)' <<<"$walk_out" | head -1)

start=$(date +%s.%N)
run_out=$("$IOA" run "$MODEL" --automaton PaxosQuiet --random --runs "$WALKS" --steps "$STEPS" \
  --seed "$SEED" --weights "$WEIGHTS" --quiet 2>&1 || true)
end=$(date +%s.%N)
run_steps=$(grep -oE '[0-9]+ step\(s\) in all' <<<"$run_out" | grep -oE '^[0-9]+')
run_secs=$(echo "$end - $start" | bc -l)
run_steps_per_s=$(echo "$run_steps / $run_secs" | bc)

row() { printf '| %-24s | %10s | %10s | %12s |\n' "$@"; }
row "PaxosQuiet, seed $SEED" "walks/runs" "steps" "steps/s"
row "------------------------" "----------" "----------" "------------"
row "ioa liveness (walks)" "$WALKS" "$walk_steps" "$walk_steps_per_s"
row "ioa run --random" "$WALKS" "$run_steps" "$run_steps_per_s"
echo
echo "walks/s: $walks_per_s; walk steps/s ÷ run steps/s: $(echo "scale=2; $walk_steps_per_s / $run_steps_per_s" | bc)"
echo "walk verdict: $verdict"
