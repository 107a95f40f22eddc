#!/usr/bin/env bash
# Proof times: `ioa prove` on the composite Paxos (and any other models given), one line per
# model with obligations proved/total, wall-clock and CPU seconds, and the machine's load
# average before the run. Verdicts are budgeted by Z3's deterministic resource count
# (`--rlimit`), so they do not depend on the load; only the times do.
#
#   bench/prove.sh                                   examples/paxos/paxos.ioa
#   bench/prove.sh examples/consensus/global1_to_cons.ioa examples/paxos/paxos.ioa
#   bench/prove.sh examples/consensus/global1_to_cons_proof.ioa examples/paxos/paxos_to_global1.ioa
#                                                    (the chain Paxos → Global1 → Cons)
#   IOA=target/debug/ioa bench/prove.sh              (default: the release binary, built first)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${IOA:-}" ]; then
  cargo build --release --quiet --bin ioa
  IOA=$PWD/target/release/ioa
fi
MODELS=("$@")
[ ${#MODELS[@]} -eq 0 ] && MODELS=(examples/paxos/paxos.ioa)
printf '%-45s %-22s %9s %9s %s\n' model obligations wall_s cpu_s load_before
for m in "${MODELS[@]}"; do
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  out=$(mktemp)
  start=$(date +%s.%N)
  # `ioa prove` exits 1 when an obligation is not proved; the table says which.
  /usr/bin/time -f '%U %S' -o "$out.cpu" "$IOA" prove "$m" --color never >"$out" 2>&1 || true
  end=$(date +%s.%N)
  summary=$(grep -E '^[0-9]+ obligation\(s\)' "$out" | sed -E 's/^([0-9]+) obligation\(s\): ([0-9]+) proved.*/\2\/\1/')
  # GNU time writes "Command exited with non-zero status 1" first when a proof is missing.
  cpu=$(tail -n 1 "$out.cpu" | awk '{printf "%.1f", $1 + $2}')
  printf '%-45s %-22s %9.1f %9s %s\n' "$m" "${summary:-?}" "$(echo "$end - $start" | bc)" "$cpu" "$load"
  rm -f "$out" "$out.cpu"
done
