#!/usr/bin/env bash
# tbcontrollerd's report ingestion against bare204, measured in the same run
# on the same machine with the same load generator: 10,000 simulated nodes
# are enrolled, then each server gets ~10 s of POST /v1/report, round-robin
# over the nodes, at a concurrency that keeps it saturated.  bare204 is
# libmicrohttpd threaded as the controller is, answering 204 without doing
# anything: the HTTP floor.  The controller answers 204 only once the
# report is committed to disk.  Goals: at least 20,000 reports/s, and at
# least 0.5 of bare204's rate.  Exit 1 if a goal is missed.
#   BENCH_NODES, BENCH_SECONDS, BENCH_CONCURRENCY override the defaults.
. "$(dirname "$0")/../lib/common.sh"
NODES=${BENCH_NODES:-10000}
SECS=${BENCH_SECONDS:-10}
CONC=${BENCH_CONCURRENCY:-96}
LG=$BIN/tests/bench/loadgen
for p in "$BIN/tbcontrollerd" "$LG" "$BIN/tests/bench/bare204"; do
	[ -x "$p" ] || { echo "$p is not built"; exit 1; }
done
command -v sqlite3 >/dev/null || skip_all "sqlite3 (the command) not installed"

# The port a daemon logged ("listening on HOST:PORT", maybe more after it).
logged_port() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }
metric() { awk -v m="$1" '$1 == m {print $2}' "$2"; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }

DB=$TMP/inventory.db
bg_start "$TMP/ctl.log" "$BIN/tbcontrollerd" --db "$DB" --listen 127.0.0.1:0 \
	--admin-token-file "$TMP/admin-token" --unreachable-after 86400
CTL_PID=$BG_PID
wait_for "tbcontrollerd to listen" 10 grep -q 'listening on' "$TMP/ctl.log" ||
	{ cat "$TMP/ctl.log"; exit 1; }
CU=http://127.0.0.1:$(logged_port "$TMP/ctl.log")

enrol=$("$LG" setup "$CU" "$TMP/admin-token" "$NODES" "$TMP/tokens" --concurrency 32) ||
	{ echo "loadgen setup failed"; tail -n 5 "$TMP/ctl.log"; exit 1; }

# The controller's disk syncs during the run, counted by perf when it may,
# from before the first /metrics to after the last (perf stops on SIGINT).
SYNCS=
if command -v perf >/dev/null; then
	perf stat -x, -o "$TMP/syncs" -e syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync \
		-p "$CTL_PID" >/dev/null 2>&1 &
	SYNCS=$!
	sleep 0.5
fi
curl -sf "$CU/metrics" >"$TMP/m0" || { echo "GET /metrics failed"; exit 1; }
c_run=$("$LG" run "$CU" "$TMP/tokens" --seconds "$SECS" --concurrency "$CONC" \
	2>"$TMP/lg-ctl.err") ||
	{ echo "loadgen against tbcontrollerd failed: $c_run"; cat "$TMP/lg-ctl.err"; exit 1; }
curl -sf "$CU/metrics" >"$TMP/m1" || { echo "GET /metrics failed"; exit 1; }
[ -n "$SYNCS" ] && kill -INT "$SYNCS" && wait "$SYNCS"
syncs=$(awk -F, '/sys_enter_f(data)?sync/ && $1 ~ /^[0-9]+$/ {s += $1; n++} END {if (n) print s}' \
	"$TMP/syncs" 2>/dev/null)
kill -TERM "$CTL_PID"

bg_start "$TMP/bare.log" "$BIN/tests/bench/bare204" --listen 127.0.0.1:0
wait_for "bare204 to listen" 10 grep -q 'listening on' "$TMP/bare.log" ||
	{ cat "$TMP/bare.log"; exit 1; }
BU=http://127.0.0.1:$(logged_port "$TMP/bare.log")
b_run=$("$LG" run "$BU" "$TMP/tokens" --seconds "$SECS" --concurrency "$CONC" \
	2>"$TMP/lg-bare.err") ||
	{ echo "loadgen against bare204 failed: $b_run"; cat "$TMP/lg-bare.err"; exit 1; }

c_rate=$(field rate "$c_run"); b_rate=$(field rate "$b_run")
c_p99=$(field p99_ms "$c_run"); b_p99=$(field p99_ms "$b_run")
c_failed=$(field failed "$c_run")
reports=$(($(metric tbmesh_controller_reports_ingested_total "$TMP/m1") -
	$(metric tbmesh_controller_reports_ingested_total "$TMP/m0")))
commits=$(($(metric tbmesh_controller_commits_total "$TMP/m1") -
	$(metric tbmesh_controller_commits_total "$TMP/m0")))
batch=$(awk -v r="$reports" -v c="$commits" 'BEGIN {printf "%.1f", c ? r / c : 0}')
ratio=$(awk -v a="$c_rate" -v b="$b_rate" 'BEGIN {printf "%.3f", b ? a / b : 0}')
journal=$(sqlite3 "$DB" 'PRAGMA journal_mode')

echo "controller_ingest: $NODES simulated nodes, ${SECS} s of POST /v1/report each," \
	"concurrency $CONC, same client, same run"
echo "  enrolment:     $enrol"
printf '  %-14s %s\n' tbcontrollerd "$c_run" bare204 "$b_run"
echo "  durability:    journal_mode=$journal (read from the inventory file)"
if [ -n "$syncs" ]; then
	per=$(awk -v s="$syncs" -v c="$commits" 'BEGIN {printf "%.2f", c ? s / c : 0}')
	echo "                 $syncs fdatasync/fsync by tbcontrollerd during the run for $commits" \
		"commits ($per per commit)"
	if [ "$syncs" -ge "$commits" ]; then
		echo "                 (synchronous=FULL: each commit reaches the disk before its 204s)"
	else
		echo "                 FEWER SYNCS THAN COMMITS: some 204s were not on disk"
	fi
else
	echo "                 disk syncs not counted (perf unavailable)"
fi
echo "                 group commit: $reports reports in $commits commits" \
	"(tbmesh_controller_commits_total): $batch reports per commit on average"
echo "  rate:          tbcontrollerd $c_rate/s, bare204 $b_rate/s  (goal >= 20000/s)"
echo "  p99:           tbcontrollerd $c_p99 ms, bare204 $b_p99 ms"
echo "  ratio (tbcontrollerd / bare204, rate): $ratio  (goal >= 0.5)"
[ "$c_failed" = 0 ] || echo "  tbcontrollerd refused $c_failed reports: $(cat "$TMP/lg-ctl.err")"
awk -v r="$c_rate" -v q="$ratio" -v f="$c_failed" \
	'BEGIN {exit !(r >= 20000 && q >= 0.5 && f == 0)}'
