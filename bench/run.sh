#!/usr/bin/env bash
# Peers in the same run: ioa explore, SPIN and Stateright on the GROOVE-vs-SPIN Paxos model
# (examples/groove_paxos/paxos.ioa, bench/promela/paxos.pml, bench/stateright-paxos), one table.
#
#   bench/run.sh                      the default configurations (high majority, exhaustive)
#   bench/run.sh 2/3 3/3 2/12:sym     P/A configurations; maj defaults to the high majority
#   bench/run.sh 2/3/1                P/A/MAJ with an explicit majority (1 = low for 2 or 3 acceptors)
#   TOOLS="ioa spin" bench/run.sh 3/3 run only some tools (ioa, ioa-words, ioa-sym, ioa-sym2,
#                                     ioa-interp, spin, sr, sr-sym)
#   THREADS=2 TIMEOUT=900 …           worker threads for ioa and Stateright; seconds per run
#
# ioa-sym is `--symmetric Acc`, ioa-sym2 `--symmetric Acc --symmetric Prop` (GROOVE's
# isomorphism reduction), ioa-interp the unreduced search with `--engine interpreter` (ioa's
# own earlier engine, for the ratio), ioa-words the unreduced search with `--engine words` (the
# compiled engine with its expressions walked as word code instead of run as machine code). A configuration ending in `:sym` runs only the symmetric
# variants (ioa-sym, ioa-sym2 and Stateright with sorted acceptors), for sizes whose unreduced
# space is out of reach.
# Needs: spin and gcc (Debian package `spin`), /usr/bin/time. Builds release binaries first.
# Columns: states (distinct states stored), time (wall seconds of the search: for ioa and
# Stateright the whole process, for SPIN pan's run; compiling pan is reported apart), CPU (user +
# system seconds: on a shared machine the fairer figure), memory (peak resident set, MiB). SPIN runs with -DNOREDUCE so that it stores exactly the states of the
# other two (its partial-order reduction is reported in a second SPIN row when it differs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
THREADS=${THREADS:-2}
TIMEOUT=${TIMEOUT:-900}
TOOLS=${TOOLS:-"ioa ioa-sym ioa-sym2 spin sr sr-sym"}
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=(2/2 2/3 2/4 3/2 3/3 4/2)

want() { [[ " $TOOLS " == *" $1 "* ]]; }

cargo build --release --quiet --bin ioa
if want sr || want sr-sym; then
  cargo build --release --quiet -p stateright-paxos --example check
fi
IOA=$ROOT/target/release/ioa
SR=$ROOT/target/release/examples/check
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Runs a command under /usr/bin/time; sets OUT (its output), SECS (wall), CPU (user + system
# seconds), MIB, RC.
measure() {
  set +e
  timeout "$TIMEOUT" /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  set -e
  OUT=$(cat "$WORK/out" "$WORK/err")
  if [ "$RC" = 124 ]; then SECS=">$TIMEOUT"; CPU="-"; MIB="-"; return; fi
  read -r SECS USR SYS KIB < <(tail -1 "$WORK/time")
  CPU=$(echo "$USR + $SYS" | bc)
  MIB=$((KIB / 1024))
}

row() { printf '| %-12s | %-32s | %-36s | %10s | %9s | %9s | %7s |\n' "$@"; }
row configuration tool outcome states "time (s)" "CPU (s)" "MiB"
row ------------ -------------------------------- ------------------------------------ ---------- --------- --------- -------

for cfg in "${CONFIGS[@]}"; do
  only_sym=0
  if [[ $cfg == *:sym ]]; then only_sym=1; cfg=${cfg%:sym}; fi
  IFS=/ read -r P A MAJ <<<"$cfg"
  MAJ=${MAJ:-$((A / 2 + 1))}
  name="${P}P/${A}A maj $MAJ"
  universe=(--universe "Prop = [1]..[$P]" --universe "Acc = [0]..[$((A - 1))]" --universe "Int = -1..$P")

  for variant in ioa ioa-words ioa-interp ioa-sym ioa-sym2; do
    want $variant || continue
    [ $only_sym = 1 ] && [[ $variant = ioa || $variant = ioa-words || $variant = ioa-interp ]] && continue
    sym=()
    label="ioa explore"
    case $variant in
      ioa-sym) sym=(--symmetric Acc); label="ioa explore --symmetric Acc" ;;
      ioa-sym2) sym=(--symmetric Acc --symmetric Prop); label="ioa explore --symmetric Acc,Prop" ;;
      ioa-interp) sym=(--engine interpreter); label="ioa explore --engine interpreter" ;;
      ioa-words) sym=(--engine words); label="ioa explore --engine words" ;;
    esac
    measure "$IOA" explore examples/groove_paxos/paxos.ioa --param "maj=$MAJ" "${universe[@]}" \
      "${sym[@]}" --threads "$THREADS" --quiet --format json
    if [[ $SECS == \>* ]]; then row "$name" "$variant" "timeout" - "$SECS" - -; continue; fi
    states=$(grep '"states"' <<<"$OUT" | tr -dc 0-9)
    verdict=$(grep '"verdict"' <<<"$OUT" | sed 's/.*: "\(.*\)".*/\1/')
    steps=$(grep '"counterexample_steps"' <<<"$OUT" | tr -dc 0-9)
    [ -n "$steps" ] && verdict="$verdict ($steps steps)"
    row "$name" "$label" "$verdict" "$states" "$SECS" "$CPU" "$MIB"
  done

  if want spin && [ $only_sym = 0 ]; then
    last_spin=""
    for reduce in -DNOREDUCE ""; do
      rm -rf "$WORK/spin" && mkdir -p "$WORK/spin" && pushd "$WORK/spin" >/dev/null
      spin -a -DNP="$P" -DNA="$A" -DMAJ="$MAJ" "$ROOT/bench/promela/paxos.pml" >/dev/null
      start=$(date +%s%N)
      gcc -O2 -w -DSAFETY -DMEMLIM=16384 $reduce -o pan pan.c
      compile=$(( ($(date +%s%N) - start) / 10000000 ))
      measure ./pan -m1000 -w26
      popd >/dev/null
      label="SPIN -DNOREDUCE"; [ -z "$reduce" ] && label="SPIN (partial order)"
      if [[ $SECS == \>* ]]; then row "$name" "$label" "timeout" - "$SECS" - -; continue; fi
      states=$(grep 'states, stored' <<<"$OUT" | awk '{print $1}')
      if grep -q 'assertion violated' <<<"$OUT"; then verdict="violated (depth first)"
      elif grep -q 'out of memory' <<<"$OUT"; then verdict="out of memory"
      else verdict=verified; fi
      [ -z "$reduce" ] && [ "$states" = "$last_spin" ] && continue
      last_spin=$states
      row "$name" "$label" "$verdict; gcc $((compile / 100)).$(printf %02d $((compile % 100)))s" "$states" "$SECS" "$CPU" "$MIB"
    done
  fi

  for variant in sr sr-sym; do
    want $variant || continue
    [ $only_sym = 1 ] && [ $variant = sr ] && continue
    sym=(); [ $variant = sr-sym ] && sym=(--symmetric)
    measure "$SR" "$P" "$A" "$MAJ" "${sym[@]}" --threads "$THREADS"
    if [[ $SECS == \>* ]]; then row "$name" "$variant" "timeout" - "$SECS" - -; continue; fi
    states=$(sed -n 's/.*states \([0-9]*\);.*/\1/p' <<<"$OUT")
    verdict=$(cut -d';' -f1 <<<"$OUT")
    row "$name" "Stateright${sym:+ (sorted acceptors, DFS)}" "$verdict" "$states" "$SECS" "$CPU" "$MIB"
  done
done
