#!/usr/bin/env bash
# Execution steering on the planted last-promise bug of the composite Paxos (CrystalBall §5.4.2,
# Fig. 16): R seeded runs of the scenario's second round, each run three ways from the same seed
# (unsteered; steered by consequence prediction; steered + the immediate safety check), at view
# lag 0 and at a stale view, one table.
#
# The scenario: the first round is the schedule CrystalBallRound1 of
# examples/paxos/paxos_planted_bug.ioa (node [2] cut off; [0] and [1] vote for [0]'s value, [0]
# decides); every run starts from its last state. In the second round node [0] is cut off
# (examples/paxos/steer.universe) and [1] leads; no message is lost or duplicated and no node
# crashes (weight 0, which steering's predictions honour too). When the promise carrying [1]'s
# own vote reaches [1] before [2]'s empty one, the bug makes [1] propose its own value and
# ChosenAgreement breaks.
#
#   bench/steer.sh                      200 runs, lags 0 and 3
#   RUNS=50 LAGS="0 1 3" bench/steer.sh
# Builds the release binary first.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-200}
LAGS=${LAGS:-"0 3"}
STEPS=${STEPS:-60}
cargo build --release --quiet --bin ioa
IOA=$PWD/target/release/ioa
MODEL=examples/paxos/paxos_planted_bug.ioa
UNIVERSE=examples/paxos/steer.universe
W=init=0,fail=0,prepare=0.05
for a in Prepare Promise Propose Accepted; do W=$W,lose$a=0,duplicate$a=0; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$IOA" run "$MODEL" --schedule CrystalBallRound1 --universe-file "$UNIVERSE" --quiet \
  --trace "$TMP/round1.json" >/dev/null 2>&1

row() { printf '| %-8s | %-12s | %-12s | %-14s | %-12s | %-16s | %-12s | %-12s |\n' "$@"; }
row "view lag" "unsteered" "steered" "steered + ISC" "by steering" "by the check (ISC)" "not avoided" "ms/predict"
row "--------" "------------" "------------" "--------------" "------------" "----------------" "------------" "------------"
for lag in $LAGS; do
  out=$("$IOA" run "$MODEL" --automaton PaxosBug --universe-file "$UNIVERSE" --random \
    --runs "$RUNS" --steps "$STEPS" --seed 0 --weights "$W" --steer --predict-every 1 \
    --predict-depth 6 --predict-states 1000 --view-lag "$lag" --from "$TMP/round1.json" 2>&1 || true)
  v=$(grep -o 'unsteered [0-9]* of [0-9]*, steered [0-9]*, steered with the immediate check [0-9]*' <<<"$out")
  read -r un _ runs st ck < <(sed -E 's/unsteered ([0-9]+) of ([0-9]+), steered ([0-9]+), steered with the immediate check ([0-9]+)/\1 x \2 \3 \4/' <<<"$v")
  a=$(grep -o 'avoided by steering [0-9]* ([^)]*)' <<<"$out" | sed 's/avoided by steering //')
  c=$(grep -o 'caught by the immediate check [0-9]* ([^)]*)' <<<"$out" | sed 's/caught by the immediate check //')
  n=$(grep -o 'not avoided [0-9]*' <<<"$out" | sed 's/not avoided //')
  ms=$(grep -o '[0-9.]* ms per prediction' <<<"$out" | sed 's/ ms per prediction//')
  row "$lag" "$un of $runs" "$st" "$ck" "$a" "$c" "$n" "$ms"
done
