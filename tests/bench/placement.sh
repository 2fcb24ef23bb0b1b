#!/usr/bin/env bash
# The placement engine: every variant of every catalog model planned on a
# seven-node cluster and on a fleet of 100 seven-node clusters (see
# tests/bench/placebench.c), beside the peer measured in the same run:
# encoding each plan as the API's JSON.  Goal: under 1 ms per model on
# seven nodes.  Exit 1 if missed.
. "$(dirname "$0")/../lib/common.sh"
PB=$BIN/tests/bench/placebench
[ -x "$PB" ] || { echo "$PB is not built"; exit 1; }
"$PB" "$TOP/data/catalog.json" "${BENCH_ROUNDS:-20}"
