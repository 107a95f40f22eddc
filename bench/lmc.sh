#!/usr/bin/env bash
# Local model checking (ioa explore --local) against global breadth-first search (ioa explore)
# on the LMC paper's Paxos (examples/lmc_paxos), in the same process and with the same limits
# (--compare-global), one table:
#
#   §5.1  one proposal (--param proposers=1): both exhaustive; transitions, states, time
#   §5.2  two proposals (--param proposers=2): a 60 s budget each; the event depth reached
#   §5.4  the planted bug (lmc_paxos_bug.ioa): the confirmed run, soundness calls, states searched
#
#   bench/lmc.sh                 all three
#   BUDGET=120 bench/lmc.sh      the §5.2 budget in seconds
#   BUG_BUDGET=300 bench/lmc.sh  the §5.4 budget (default 60 s; LMC confirms the bug from the start state in ~8 s
#                                with eager sends, ~175 s with --no-eager-sends; the global search takes the whole budget)
# Needs: jq. Builds the release binary first.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=${BUDGET:-60}
cargo build --release --quiet --bin ioa
IOA=$PWD/target/release/ioa
MODEL=examples/lmc_paxos/lmc_paxos.ioa
BUG=examples/lmc_paxos/lmc_paxos_bug.ioa

run() { "$IOA" explore "$@" --local --compare-global --format json 2>/dev/null || true; }

row() { printf '| %-28s | %-14s | %12s | %12s | %11s | %10s | %-28s |\n' "$@"; }
row "configuration" "search" "states" "transitions" "event depth" "time (s)" "verdict / detail"
row "----------------------------" "--------------" "------------" "------------" "-----------" "----------" "----------------------------"
report() {
  local name=$1 json=$2
  local l g
  l=$(jq -r '[.verdict, (.local_states | add), .transitions, .event_depth, .seconds, .system_states, .soundness_calls, .sequences, .bytes] | @tsv' <<<"$json")
  g=$(jq -r '.global | [.verdict, .states, .transitions, .depth, .seconds] | @tsv' <<<"$json")
  IFS=$'\t' read -r lv ls lt ld lsec lsys lsc lseq lbytes <<<"$l"
  IFS=$'\t' read -r gv gs gt gd gsec <<<"$g"
  row "$name" "LMC (local)" "$ls" "$lt" "$ld" "$(printf %.3f "$lsec")" "$lv; $lsys sys, $lsc calls"
  row "" "global BFS" "$gs" "$gt" "$gd" "$(printf %.3f "$gsec")" "$gv"
  row "" "global/local" "" "$(echo "scale=1; $gt / $lt" | bc)x" "" "$(echo "scale=1; $gsec / $lsec" | bc)x" "LMC memory $((lbytes / 1024)) KiB"
}

report "§5.1 one proposal" "$(run "$MODEL" --automaton LmcPaxos --param proposers=1)"
report "§5.2 two proposals, ${BUDGET} s" "$(run "$MODEL" --automaton LmcPaxos --param proposers=2 --time-limit "$BUDGET")"
report "§5.4 planted bug, start" "$(run "$BUG" --automaton LmcPaxosBug --param proposers=2 --time-limit "${BUG_BUDGET:-60}" --trace "${TRACE:-/dev/null}")"
