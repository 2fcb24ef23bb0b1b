#!/usr/bin/env bash
# The wiring engine on a fleet of 1,000 seven-node clusters (see
# tests/bench/wiring_bench.c): the time to validate one cluster from its
# nodes' reports, beside the time to decode those same reports (the work
# ingestion already does for them) measured in the same loop, as a ratio;
# and the fingerprint ingestion adds per report, beside that report's
# decoding.  Goal: under 100 us per seven-node cluster.  Exit 1 if missed.
#   BENCH_CLUSTERS overrides the fleet size.
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
exe=$B/tests/bench/wiring_bench
[ -x "$exe" ] || { echo "$exe is not built"; exit 1; }
exec "$exe" "$PWD" "${BENCH_CLUSTERS:-1000}"
