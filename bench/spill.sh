#!/usr/bin/env bash
# What spilling the visited set costs: `ioa explore` on the GROOVE-vs-SPIN Paxos model
# (examples/groove_paxos/paxos.ioa, high majority) in memory and with `--memory-limit` below
# what the visited set needs, one run after the other.
#
#   bench/spill.sh                          3P/3A; no limit, 16MiB, 4MiB, 1MiB
#   LIMITS="8MiB 512KiB" bench/spill.sh 3/4 P/A configurations and other limits
#   THREADS=1 bench/spill.sh                explorer threads (default 2)
#
# Columns: limit, states, depth, wall seconds, CPU seconds (user + system), peak resident MiB,
# times spilled, states on disk, MiB written and read, seconds of disk work as the explorer
# measured it, and the load average before the run. Needs /usr/bin/time; builds the release
# binary first (or runs $IOA).
set -euo pipefail
cd "$(dirname "$0")/.."
LIMITS=${LIMITS:-"none 16MiB 4MiB 1MiB"}
THREADS=${THREADS:-2}
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=(3/3)
if [ -z "${IOA:-}" ]; then
  cargo build --release --bin ioa -q
  IOA=$PWD/target/release/ioa
fi
log=$(mktemp -d)
printf '| P/A | memory limit | states | depth | wall s | CPU s | peak MiB | spills | states on disk | MiB written | MiB read | disk s | load avg |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for config in "${CONFIGS[@]}"; do
  p=${config%/*}
  a=${config#*/}
  maj=$((a / 2 + 1))
  args=(examples/groove_paxos/paxos.ioa --param "maj=$maj" --universe "Prop = [1]..[$p]"
        --universe "Acc = [0]..[$((a - 1))]" --threads "$THREADS" --format json)
  for limit in $LIMITS; do
    extra=()
    [ "$limit" = none ] || extra=(--memory-limit "$limit")
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%e %U %S %M' -o "$log/time" "$IOA" explore "${args[@]}" "${extra[@]}" \
      > "$log/out.json" 2> "$log/err" || true
    read -r wall user sys rss < <(tail -1 "$log/time")
    python3 - "$log/out.json" "$config" "$limit" "$wall" "$user" "$sys" "$rss" "$load" <<'PY'
import json, sys
path, config, limit, wall, user, sys_, rss, load = sys.argv[1:]
r = json.load(open(path))
s = r.get("spill") or {}
mib = lambda b: f"{b / 2**20:.1f}"
print(f"| {config} | {limit} | {r['states']:,} | {r['depth']} | {float(wall):.2f} | "
      f"{float(user) + float(sys_):.2f} | {int(rss) / 1024:.0f} | {s.get('spills', '–')} | "
      f"{s.get('states_on_disk', 0):,} | {mib(s.get('bytes_written', 0))} | "
      f"{mib(s.get('bytes_read', 0))} | {s.get('disk_seconds', 0):.2f} | {load} |")
PY
  done
done
echo "logs: $log" >&2
