#!/usr/bin/env bash
# tbagentd against prometheus-node-exporter, measured in the same run on the
# same machine: resident memory of the running daemon (VmRSS after both have
# served the same number of scrapes) and the median latency of GET /metrics
# (one kept-alive connection, same client).  Goals: memory ratio <= 0.10,
# latency ratio <= 0.20.  Exit 1 if a goal is missed.
# For reference, in the same run and each measured while no other tbagentd
# runs (so that "private" means the same for all): the same agent while it
# pushes to a tbcontrollerd, and two floors under any program built on the
# project's libraries as Debian ships them: sleep(1), the C library alone,
# and bare204, a program that only runs a libmicrohttpd server.
. "$(dirname "$0")/../lib/common.sh"
NE=$(command -v prometheus-node-exporter || command -v node_exporter) || skip_all "node_exporter not installed"
N=${BENCH_REQUESTS:-500}
GET=$BIN/tests/bench/httpget
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# private memory: pages no other process shares (the daemon's own cost)
uss() { awk '/^Private_(Clean|Dirty):/ {s += $2} END {print s}' "/proc/$1/smaps_rollup"; }
med() { sed 's/.*median_us=\([0-9.]*\).*/\1/' <<<"$1"; }

# The agent as it runs on a Mac: darwin backend over the real captures.
mkdir -p "$TMP/mac"
bash "$TOP/tests/fakemac/mkstate.sh" "$TMP/mac" studio
export FAKEMAC_DIR=$TMP/mac
PATH=$(fakemac_path) start_agent bench --backend darwin --interval 5
AU=http://127.0.0.1:$AGENT_PORT/metrics
# /metrics is empty until the first collection; /v1/report is 503 until then
wait_for "agent report" 10 curl -sf "http://127.0.0.1:$AGENT_PORT/v1/report"

bg_start "$TMP/ne.log" "$NE" --web.listen-address=127.0.0.1:0
NE_PID=$BG_PID
wait_for "node_exporter to listen" 10 grep -q 'Listening on' "$TMP/ne.log"
NP=$(sed -n 's/.*address=127.0.0.1:\([0-9]*\).*/\1/p' "$TMP/ne.log" | head -n 1)
NU=http://127.0.0.1:$NP/metrics
wait_for "node_exporter metrics" 10 curl -sf "$NU"

a_lat=$("$GET" "$AU" "$N" 20) || { echo "agent benchmark failed"; exit 1; }
n_lat=$("$GET" "$NU" "$N" 20) || { echo "node_exporter benchmark failed"; exit 1; }
a_rss=$(rss "$AGENT_PID"); n_rss=$(rss "$NE_PID")
a_uss=$(uss "$AGENT_PID"); n_uss=$(uss "$NE_PID")
bg_stop "$AGENT_PID"

# The same agent enrolled with a controller, pushing every second.
start_controller ctl
"$BIN/tbctl" token create --ttl 10m --accept >"$TMP/boot" || { echo "token create failed"; exit 1; }
mkdir -p "$TMP/push-state"
PATH=$(fakemac_path) start_agent push --backend darwin --interval 1 --name push \
	--controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot" --state-dir "$TMP/push-state"
wait_for "agent report" 10 curl -sf "http://127.0.0.1:$AGENT_PORT/v1/report"
"$GET" "http://127.0.0.1:$AGENT_PORT/metrics" "$N" 20 >/dev/null || { echo "pushing agent failed"; exit 1; }
pushed() {	# three reports pushed and stored
	curl -sf "$CTRL_URL/metrics" |
		awk '$1 == "tbmesh_controller_reports_ingested_total" && $2 >= 3 {ok = 1} END {exit !ok}'
}
wait_for "the pushing agent's 3rd report" 15 pushed ||
	{ echo "the pushing agent did not report"; tail -n 5 "$TMP/push.log"; exit 1; }
p_rss=$(rss "$AGENT_PID"); p_uss=$(uss "$AGENT_PID")
bg_stop "$AGENT_PID"

# The floors.
sleep 600 &
s_rss=$(rss $!); s_uss=$(uss $!)
kill $! && wait $! 2>/dev/null
bg_start "$TMP/bare.log" "$BIN/tests/bench/bare204" --listen 127.0.0.1:0
wait_for "bare204 to listen" 10 grep -q 'listening on' "$TMP/bare.log" || { cat "$TMP/bare.log"; exit 1; }
BU=http://127.0.0.1:$(listen_port_any "$TMP/bare.log")/
for i in 1 2 3 4 5; do curl -sf -o /dev/null "$BU" || { echo "bare204 did not answer"; exit 1; }; done
b_rss=$(rss "$BG_PID"); b_uss=$(uss "$BG_PID")

bytes() { sed -n 's/.*bytes=\([0-9]*\).*/\1/p' <<<"$1"; }
[ "$(bytes "$a_lat")" -gt 1000 ] || { echo "the agent served an empty /metrics: $a_lat"; exit 1; }
mem_ratio=$(awk -v a="$a_rss" -v b="$n_rss" 'BEGIN {printf "%.3f", a / b}')
lat_ratio=$(awk -v a="$(med "$a_lat")" -v b="$(med "$n_lat")" 'BEGIN {printf "%.4f", a / b}')
of() { awk -v a="$1" -v b="$n_rss" 'BEGIN {printf "%.3f", a / b}'; }
row() { printf '  %-14s rss %6s KiB  private %6s KiB  %s\n' "$@"; }

echo "agent_vs_node_exporter: $N scrapes of /metrics each, same client, same run"
row tbagentd "$a_rss" "$a_uss" "GET /metrics $a_lat"
row node_exporter "$n_rss" "$n_uss" "GET /metrics $n_lat"
echo "  for reference, RSS as a share of node_exporter's:"
row pushing "$p_rss" "$p_uss" "$(of "$p_rss")  (tbagentd pushing to tbcontrollerd every 1 s)"
row sleep "$s_rss" "$s_uss" "$(of "$s_rss")  (floor: the C library alone)"
row bare204 "$b_rss" "$b_uss" "$(of "$b_rss")  (floor: a libmicrohttpd server doing nothing)"
echo "  memory ratio  (tbagentd / node_exporter, RSS): $mem_ratio  (goal <= 0.10)"
echo "  private memory ratio (for reference):        $(awk -v a="$a_uss" -v b="$n_uss" 'BEGIN {printf "%.3f", a / b}')"
echo "  latency ratio (tbagentd / node_exporter, median): $lat_ratio  (goal <= 0.20)"
awk -v m="$mem_ratio" -v l="$lat_ratio" 'BEGIN {exit !(m <= 0.10 && l <= 0.20)}'
