#!/usr/bin/env bash
# What partial-order reduction and symmetry save (`ioa explore --reduction none|por|symmetry|all`)
# on the models of issue 37: LCR with 4-6 processes, two-phase commit with 3-4 participants
# (indexed by Int, and by a symmetric type of their own: tests/data/symmetry/tpc_family.ioa), the
# composite Paxos on examples/paxos/explore.universe (every invariant, Agreement alone, and over a
# reliable network: tests/data/reduction/paxos_reliable.ioa; and with two ballots,
# paxos_reliable2, the model issue 37 asks to verify in 10 minutes), the
# one-shot vote of the reduction suite with 3 nodes (reliable and lossy network), the
# GROOVE-vs-SPIN Paxos with 3 proposers and 3 acceptors (high majority). One run after the other, release build, 2 threads.
#
#   bench/reduction.sh                 every row
#   ROWS="lcr4 tpc3" bench/reduction.sh  some rows
#   TIME_LIMIT=600 bench/reduction.sh  seconds per run (default 600)
#
# Columns: model, reduction, verdict, states stored, generated, wall seconds as ioa measured
# it, and the states expanded with a reduced set (POR). A reduction the model refuses (for
# example Node symmetry of the composite Paxos, whose ballots belong to particular nodes) shows
# the diagnostic's code. SPIN is not run here (see bench/promela and the README's table).
set -euo pipefail
cd "$(dirname "$0")/.."
TIME_LIMIT=${TIME_LIMIT:-600}
THREADS=${THREADS:-2}
if [ -z "${IOA:-}" ]; then
  cargo build --release --bin ioa -q
  IOA=$PWD/target/release/ioa
fi
declare -A ARGS SYM
ARGS[lcr4]="examples/lcr/lcr.ioa --automaton LCR --param n=4"
ARGS[lcr5]="examples/lcr/lcr.ioa --automaton LCR --param n=5"
ARGS[lcr6]="examples/lcr/lcr.ioa --automaton LCR --param n=6"
ARGS[tpc3]="tests/data/elsewhere/two_phase_commit.ioa --automaton TwoPhaseCommit --param n=3"
ARGS[tpc4]="tests/data/elsewhere/two_phase_commit.ioa --automaton TwoPhaseCommit --param n=4 --universe Int=0..3"
ARGS[tpc_family3]="tests/data/symmetry/tpc_family.ioa --automaton TwoPhaseCommit --universe RM=[0]..[2]"
ARGS[tpc_family4]="tests/data/symmetry/tpc_family.ioa --automaton TwoPhaseCommit --universe RM=[0]..[3]"
ARGS[paxos]="examples/paxos/paxos.ioa --automaton Paxos --universe-file examples/paxos/explore.universe"
ARGS[paxos_agreement]="examples/paxos/paxos.ioa --automaton Paxos --universe-file examples/paxos/explore.universe --invariant Agreement"
ARGS[paxos_reliable]="tests/data/reduction/paxos_reliable.ioa --automaton PaxosReliable --universe-file examples/paxos/explore.universe"
ARGS[paxos_reliable2]="tests/data/reduction/paxos_reliable.ioa --automaton PaxosReliable --universe Node=[0]..[2] --universe Value=[1]..[1] --universe Ballot=[0]..[1] --universe fail.i=[2]"
ARGS[quorum3]="tests/data/reduction/quorum_vote.ioa --automaton Vote --param n=3 --param lossy=false --param dup=false --param bug=false --universe Int=0..2 --universe fail.i=2"
ARGS[quorum3_lossy]="tests/data/reduction/quorum_vote.ioa --automaton Vote --param n=3 --param lossy=true --param dup=false --param bug=false --universe Int=0..2 --universe fail.i=2"
ARGS[groove33]="examples/groove_paxos/paxos.ioa --param maj=2 --universe Prop=[1]..[3] --universe Acc=[0]..[2] --universe Int=-1..3"
SYM[lcr4]=""; SYM[lcr5]=""; SYM[lcr6]=""
SYM[tpc3]=""; SYM[tpc4]=""
SYM[tpc_family3]="--symmetric RM"; SYM[tpc_family4]="--symmetric RM"
SYM[paxos]="--symmetric Node"; SYM[paxos_agreement]="--symmetric Node"
SYM[quorum3]=""; SYM[quorum3_lossy]=""; SYM[paxos_reliable]="--symmetric Node"
SYM[paxos_reliable2]="--symmetric Node"
SYM[groove33]="--symmetric Acc --symmetric Prop"
ROWS=${ROWS:-"lcr4 lcr5 lcr6 tpc3 tpc4 tpc_family3 tpc_family4 paxos paxos_agreement paxos_reliable quorum3 quorum3_lossy groove33 paxos_reliable2"}
printf '| model | reduction | verdict | states | generated | seconds | states reduced by POR |\n'
printf '|---|---|---|---|---|---|---|\n'
for row in $ROWS; do
  for reduction in none por symmetry all; do
    sym=""
    if [ "$reduction" = symmetry ] || [ "$reduction" = all ]; then sym=${SYM[$row]}; fi
    if [ "$reduction" = symmetry ] && [ -z "$sym" ]; then
      printf '| %s | %s | no symmetric type | | | | |\n' "$row" "$reduction"
      continue
    fi
    # shellcheck disable=SC2086
    out=$("$IOA" explore ${ARGS[$row]} $sym --reduction "$reduction" --threads "$THREADS" \
      --time-limit "$TIME_LIMIT" --format json --quiet 2>/tmp/reduction-bench.err || true)
    if [ -z "$out" ]; then
      code=$(grep -o 'E[0-9]\{4\}' /tmp/reduction-bench.err | head -1 || true)
      printf '| %s | %s | refused (%s) | | | | |\n' "$row" "$reduction" "${code:-error}"
      continue
    fi
    echo "$out" | python3 -c '
import json, sys
row, reduction = sys.argv[1], sys.argv[2]
j = json.load(sys.stdin)
por = (j.get("reduction") or {}).get("por") or {}
reduced = por.get("reduced_states")
reduced = "" if reduced is None else format(reduced, ",")
cells = [row, reduction, j["verdict"], format(j["states"], ","), format(j["generated"], ","),
         format(j["seconds"], ".2f"), reduced]
print("| " + " | ".join(cells) + " |")
' "$row" "$reduction"
  done
done
