#!/usr/bin/env bash
# tbagentd against prometheus-node-exporter, measured in the same run on the
# same machine: resident memory of the running daemon (VmRSS after both have
# served the same number of scrapes) and the median latency of GET /metrics
# (one kept-alive connection, same client).  Goals: memory ratio <= 0.10,
# latency ratio <= 0.20.  Exit 1 if a goal is missed.
. "$(dirname "$0")/../lib/common.sh"
NE=$(command -v prometheus-node-exporter || command -v node_exporter) || skip_all "node_exporter not installed"
N=${BENCH_REQUESTS:-500}
GET=$BIN/tests/bench/httpget

# The agent as it runs on a Mac: darwin backend over the real captures.
mkdir -p "$TMP/mac"
bash "$TOP/tests/fakemac/mkstate.sh" "$TMP/mac" studio
export FAKEMAC_DIR=$TMP/mac
PATH=$(fakemac_path) start_agent bench --backend darwin --interval 5
AU=http://127.0.0.1:$AGENT_PORT/metrics
wait_for "agent report" 10 curl -sf "$AU"

bg_start "$TMP/ne.log" "$NE" --web.listen-address=127.0.0.1:0
NE_PID=$BG_PID
wait_for "node_exporter to listen" 10 grep -q 'Listening on' "$TMP/ne.log"
NP=$(sed -n 's/.*address=127.0.0.1:\([0-9]*\).*/\1/p' "$TMP/ne.log" | head -n 1)
NU=http://127.0.0.1:$NP/metrics
wait_for "node_exporter metrics" 10 curl -sf "$NU"

a_lat=$("$GET" "$AU" "$N" 20) || { echo "agent benchmark failed"; exit 1; }
n_lat=$("$GET" "$NU" "$N" 20) || { echo "node_exporter benchmark failed"; exit 1; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# private memory: pages no other process shares (the daemon's own cost)
uss() { awk '/^Private_(Clean|Dirty):/ {s += $2} END {print s}' "/proc/$1/smaps_rollup"; }
a_rss=$(rss "$AGENT_PID"); n_rss=$(rss "$NE_PID")
a_uss=$(uss "$AGENT_PID"); n_uss=$(uss "$NE_PID")
a_med=$(echo "$a_lat" | sed 's/.*median_us=\([0-9.]*\).*/\1/')
n_med=$(echo "$n_lat" | sed 's/.*median_us=\([0-9.]*\).*/\1/')
mem_ratio=$(awk -v a="$a_rss" -v b="$n_rss" 'BEGIN {printf "%.3f", a / b}')
lat_ratio=$(awk -v a="$a_med" -v b="$n_med" 'BEGIN {printf "%.4f", a / b}')

echo "agent_vs_node_exporter: $N scrapes of /metrics each, same client, same run"
printf '  %-14s rss %6s KiB  private %6s KiB  GET /metrics %s\n' tbagentd "$a_rss" "$a_uss" "$a_lat"
printf '  %-14s rss %6s KiB  private %6s KiB  GET /metrics %s\n' node_exporter "$n_rss" "$n_uss" "$n_lat"
echo "  memory ratio  (tbagentd / node_exporter, RSS): $mem_ratio  (goal <= 0.10)"
echo "  private memory ratio (for reference):        $(awk -v a="$a_uss" -v b="$n_uss" 'BEGIN {printf "%.3f", a / b}')"
echo "  latency ratio (tbagentd / node_exporter, median): $lat_ratio  (goal <= 0.20)"
awk -v m="$mem_ratio" -v l="$lat_ratio" 'BEGIN {exit !(m <= 0.10 && l <= 0.20)}'
