/*
 * Single-decree Paxos as in Delzanno, Rensink and Traverso, "Graph- versus
 * Vector-Based Analysis of a Consensus Protocol" (GROOVE vs SPIN), written
 * for SPIN from the paper's description (sections 2-4), as the peer of
 * examples/groove_paxos/paxos.ioa in bench/run.sh.
 *
 * Configuration (preprocessor):  spin -a -DNP=2 -DNA=3 -DMAJ=2 paxos.pml
 *   NP  proposers (1..4), each proposing once with its own value (its index)
 *   NA  acceptors (1..16)
 *   MAJ the majority bound: NA/2 is too low (unsafe), NA/2+1 just enough
 *
 * Modelling, kept step for step equal to the ioa model so that the two
 * explore the same transition system:
 * - Messages are never consumed ("Linda-like" broadcast). Each message set
 *   is a table indexed by what identifies a message, so the state vector is
 *   canonical without sorted channels: an acceptor promises a round at most
 *   once, a round has one Accept, and an acceptor sends one Learn per round.
 * - Every protocol event is one d_step (one transition, no intermediate
 *   states), including the proposer's "majority of promises: pick the value
 *   of the highest previous round, send Accept".
 * - Processes are active from the start and loop at one control location,
 *   so program counters add no states.
 * - Agreement and validity (the paper's Def. 1) are assertions in the only
 *   step that changes the chosen set.
 *
 * -DGROOVE_STEPS gives the GROOVE-granularity variant, step for step equal to
 * examples/groove_paxos/paxos_groove_steps.ioa: a start state before GROOVE's
 * initValue rule, and the proposer's onPromise; try changeMyval; sendAccept
 * as three steps with nothing in between (the reason GROOVE's counts are
 * higher than paxos.ioa's; see examples/groove_paxos/README.md).
 */
#ifndef NP
#define NP 2
#endif
#ifndef NA
#define NA 2
#endif
#ifndef MAJ
#define MAJ 2
#endif

#define IDLE 0
#define PREPARED 1
#define ACCEPTING 2

byte nextRnd;                 /* the next fresh round */
byte phase[NP];               /* proposer phase */
short crnd[NP] = -1;          /* proposer round */
short acrnd[NA] = -1;         /* acceptor: highest round seen */
short aprnd[NA] = -1;         /* acceptor: round of the last accepted value */
short apval[NA] = -1;         /* acceptor: last accepted value */
bool  prom[NA * NP];          /* Promise from acceptor a for round r ... */
short promr[NA * NP];         /* ... with its previous round ... */
short promv[NA * NP];         /* ... and previous value */
byte  promcnt[NP];            /* number of Promises for round r (derived) */
short accv[NP] = -1;          /* Accept of round r: its value (-1: none) */
bool  learn[NA * NP];         /* Learn from acceptor a for round r (value accv[r]) */
byte  learncnt[NP];           /* number of Learns for round r (derived) */
bool  chosen[NP];             /* values the learner chose */
byte  nchosen;                /* how many (derived) */

#ifdef GROOVE_STEPS
#define COUNTED 3
#define CHANGED 4
bool  started;                /* initValue has run */
bool  busy;                   /* a proposer is inside onPromise; changeMyval; sendAccept */
short myval[NP] = -1;         /* the proposer's value if changed (-1: its own) */
byte  promset[NP];            /* Promises for round r reporting a value (derived) */
#define READY (started && !busy)
#else
#define READY 1
#endif

#define M(a, r) ((a) * NP + (r))

#ifdef GROOVE_STEPS
#define PROMSET(r) if :: aprnd[a] >= 0 -> promset[r]++ :: else fi;
#else
#define PROMSET(r)
#endif

/* Proposer p: propose once with a fresh round; on a majority of promises for
 * its round, send Accept with the value of the highest previous round, or its
 * own value if no promise reports one. */
active [NP] proctype Proposer() {
  byte p = _pid;
  byte a;
  short hr, hv;
end:
  do
  :: d_step {
       READY && phase[p] == IDLE ->
       crnd[p] = nextRnd; nextRnd++; phase[p] = PREPARED
     }
#ifdef GROOVE_STEPS
  :: d_step {
       READY && phase[p] == PREPARED && promcnt[crnd[p]] >= MAJ ->
       phase[p] = COUNTED; busy = 1
     }
  :: d_step {
       phase[p] == COUNTED && promset[crnd[p]] > 0 ->
       hr = -1; a = 0;
       do
       :: a < NA ->
          if
          :: prom[M(a, crnd[p])] && promr[M(a, crnd[p])] > hr ->
             hr = promr[M(a, crnd[p])]; hv = promv[M(a, crnd[p])]
          :: else
          fi;
          a++
       :: else -> break
       od;
       myval[p] = hv; phase[p] = CHANGED;
       a = 0; hr = 0; hv = 0
     }
  :: d_step {
       phase[p] == CHANGED || (phase[p] == COUNTED && promset[crnd[p]] == 0) ->
       accv[crnd[p]] = (phase[p] == CHANGED -> myval[p] : p);
       phase[p] = ACCEPTING; busy = 0
     }
#else
  :: d_step {
       READY && phase[p] == PREPARED && promcnt[crnd[p]] >= MAJ ->
       hr = -1; hv = p; a = 0;
       do
       :: a < NA ->
          if
          :: prom[M(a, crnd[p])] && promr[M(a, crnd[p])] > hr ->
             hr = promr[M(a, crnd[p])]; hv = promv[M(a, crnd[p])]
          :: else
          fi;
          a++
       :: else -> break
       od;
       phase[p] = ACCEPTING; accv[crnd[p]] = hv;
       a = 0; hr = 0; hv = 0
     }
#endif
  od
}

/* Acceptor a, on Prepare of proposer q (its round is crnd[q]) with a fresh
 * round: promise, reporting the last accepted round and value. */
#define ON_PREPARE(q) \
  :: d_step { \
       READY && phase[q] != IDLE && crnd[q] > acrnd[a] -> \
       acrnd[a] = crnd[q]; \
       PROMSET(crnd[q]) \
       prom[M(a, crnd[q])] = 1; \
       promr[M(a, crnd[q])] = aprnd[a]; \
       promv[M(a, crnd[q])] = apval[a]; \
       promcnt[crnd[q]]++ \
     }

/* Acceptor a, on the Accept of round r with r >= its round, once: accept
 * and send Learn. */
#define ON_ACCEPT(r) \
  :: d_step { \
       READY && accv[r] >= 0 && r >= acrnd[a] && !learn[M(a, r)] -> \
       acrnd[a] = r; aprnd[a] = r; apval[a] = accv[r]; \
       learn[M(a, r)] = 1; learncnt[r]++ \
     }

active [NA] proctype Acceptor() {
  byte a = _pid - NP;
end:
  do
  ON_PREPARE(0)
  ON_ACCEPT(0)
#if NP > 1
  ON_PREPARE(1)
  ON_ACCEPT(1)
#endif
#if NP > 2
  ON_PREPARE(2)
  ON_ACCEPT(2)
#endif
#if NP > 3
  ON_PREPARE(3)
  ON_ACCEPT(3)
#endif
  od
}

/* The learner: a majority of Learns for round r chooses its value. Def. 1:
 * no two values are chosen, and a chosen value was proposed. */
#define ON_LEARN(r) \
  :: d_step { \
       READY && learncnt[r] >= MAJ && !chosen[accv[r]] -> \
       chosen[accv[r]] = 1; nchosen++; \
       assert(phase[accv[r]] != IDLE); \
       assert(nchosen <= 1) \
     }

active proctype Learner() {
end:
  do
#ifdef GROOVE_STEPS
  :: d_step { !started -> started = 1 }   /* GROOVE's initValue */
#endif
  ON_LEARN(0)
#if NP > 1
  ON_LEARN(1)
#endif
#if NP > 2
  ON_LEARN(2)
#endif
#if NP > 3
  ON_LEARN(3)
#endif
  od
}
