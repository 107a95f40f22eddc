#!/usr/bin/env bash
# Scaling of distributed exploration on one machine: `ioa explore` on the GROOVE-vs-SPIN Paxos
# model (examples/groove_paxos/paxos.ioa, high majority) with 1, 2 and 4 processes of one
# timely worker each, started by scripts/explore-local-cluster over loopback, next to the
# single-process explorer (rayon, 1 thread) on the same configuration.
#
#   bench/distributed.sh                   3P/3A, processes 1 2 4
#   bench/distributed.sh 3/3:sym 2/4       P/A configurations (`:sym` adds --symmetric Acc)
#   bench/distributed.sh 2/5 2/5:sym 3/4   the acceptance's 2P/5A (majority 3) and 3P/4A
#   PROCESSES="1 2" bench/distributed.sh   other process counts
#   EXTRA="--max-depth 17" bench/distributed.sh 3/4   more `ioa explore` options (here: the
#                                          first 17 levels of a configuration too large to finish)
#
# Columns: states (distinct), depth, wall seconds and CPU seconds (user + system, every process
# of the cluster), states per CPU second, the states sent between workers (all levels; the
# per-level lists follow the table), and the load average before each run. Needs
# /usr/bin/time; builds the release binary first (or runs $IOA).
set -euo pipefail
cd "$(dirname "$0")/.."
PROCESSES=${PROCESSES:-"1 2 4"}
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=(3/3)
if [ -z "${IOA:-}" ]; then
  cargo build --release --bin ioa -q
  IOA=$PWD/target/release/ioa
fi
export IOA
log=$(mktemp -d)
# Distinct states and depth from a report (verified, or stopped at a limit).
states_of() { grep -o -e 'all [0-9,]* reachable' -e '([0-9,]* stored' "$1" | head -1 | tr -dc 0-9; }
depth_of() { grep -o -e 'depth [0-9][0-9]*' -e 'depth limit ([0-9]*' "$1" | head -1 | tr -dc 0-9; }
printf '| P/A | engine | states | depth | wall s | CPU s | states/CPU s | sent between workers | load avg |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
levels=$log/levels
for config in "${CONFIGS[@]}"; do
  sym=()
  case $config in *:sym) sym=(--symmetric Acc); config=${config%:sym} ;; esac
  p=${config%/*}
  a=${config#*/}
  maj=$((a / 2 + 1))
  args=(examples/groove_paxos/paxos.ioa --param "maj=$maj" --universe "Prop = [1]..[$p]"
        --universe "Acc = [0]..[$((a - 1))]" "${sym[@]}" ${EXTRA:-})
  label="$p/$a${sym:+ sym}"
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %S' -o "$log/single.time" "$IOA" explore "${args[@]}" --threads 1 \
    > /dev/null 2> "$log/single.err" || true
  read -r wall user sys < <(tail -1 "$log/single.time")
  states=$(states_of "$log/single.err")
  depth=$(depth_of "$log/single.err")
  cpu=$(echo "$user + $sys" | bc)
  printf '| %s | one process, 1 thread | %s | %s | %s | %s | %.0f | – | %s |\n' "$label" "$states" \
    "$depth" "$wall" "$cpu" "$(echo "$states / $cpu" | bc -l)" "$load"
  for n in $PROCESSES; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    IOA_CLUSTER_DIR="$log/c$n" /usr/bin/time -f '%e %U %S' -o "$log/c$n.time" \
      scripts/explore-local-cluster "$n" "${args[@]}" > /dev/null 2> "$log/c$n.err" || true
    read -r wall user sys < <(tail -1 "$log/c$n.time")
    states=$(states_of "$log/c$n.err")
    depth=$(depth_of "$log/c$n.err")
    sent=$(grep 'states sent between workers per level' "$log/c$n.err" | cut -d: -f2 | tr -d , |
      tr ' ' '\n' | awk '{s += $1} END {print s + 0}')
    cpu=$(echo "$user + $sys" | bc)
    printf '| %s | %s process(es) | %s | %s | %s | %s | %.0f | %s | %s |\n' "$label" "$n" "$states" \
      "$depth" "$wall" "$cpu" "$(echo "$states / $cpu" | bc -l)" "$sent" "$load"
    printf '%s, %s processes: %s\n' "$label" "$n" \
      "$(grep 'states sent between workers per level' "$log/c$n.err" | cut -d: -f2)" >> "$levels"
  done
done
printf '\nStates sent between workers, per level:\n\n'
sed 's/^/    /' "$levels"
echo "logs: $log" >&2
