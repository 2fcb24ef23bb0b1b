#!/usr/bin/env bash
# tbcontrollerd's report ingestion against bare204, measured in the same run
# on the same machine with the same load generator: 10,000 simulated nodes
# are enrolled, then each server gets ~10 s of POST /v1/report, round-robin
# over the nodes, at a concurrency that keeps it saturated.  bare204 is
# libmicrohttpd threaded as the controller is, answering 204 without doing
# anything: the HTTP floor.  The controller answers 204 only once the
# report is committed to disk.  Goals: at least 20,000 reports/s, and at
# least 0.5 of bare204's rate.  Exit 1 if a goal is missed.
#
# The load generator runs on the same 2 cores: each round also prints the
# processor time, per answered report, of the server and of the load
# generator, so that the rate can be read against what each side spent.
#
# Both servers run side by side, and the load goes to one, then the other,
# ROUNDS times: the figures compared are each server's median round, so
# that a slow moment of the machine (it varies by +-10% from one 10 s to
# the next) does not fall on one server only.
#
# The concurrency: a report waits for the group commit that stores it (a few
# ms), so the controller needs more reports in flight than bare204 to be
# kept busy.  At 96 this machine (2 cores) still had half a core idle while
# the controller ran, against 0.3 for bare204 at any concurrency (its rate
# was flat from 96 to 384); at 192 the controller is as busy.  10,000 agents
# each on their own connection could have far more in flight.  The idle
# cores of each run are printed.
#
# Every simulated node comes from 127.0.0.1 here, so the controller runs
# without its per-client connection limit (--max-connections-per-client 0).
#   BENCH_NODES, BENCH_SECONDS (per round), BENCH_CONCURRENCY, BENCH_ROUNDS
#   override the defaults.
. "$(dirname "$0")/../lib/common.sh"
NODES=${BENCH_NODES:-10000}
SECS=${BENCH_SECONDS:-10}
CONC=${BENCH_CONCURRENCY:-192}
ROUNDS=${BENCH_ROUNDS:-3}
LG=$BIN/tests/bench/loadgen
for p in "$BIN/tbcontrollerd" "$LG" "$BIN/tests/bench/bare204"; do
	[ -x "$p" ] || { echo "$p is not built"; exit 1; }
done
command -v sqlite3 >/dev/null || skip_all "sqlite3 (the command) not installed"

# The port a daemon logged ("listening on HOST:PORT", maybe more after it).
logged_port() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }
metric() { awk -v m="$1" '$1 == m {print $2}' "$2"; }
# The machine's idle and iowait time so far, in clock ticks (Linux).
idle_ticks() { awk '$1 == "cpu" {print $5 + $6}' /proc/stat 2>/dev/null; }
# Cores idle on average over SECS seconds between two idle_ticks.
idle_cores() {
	[ -n "$1" ] && [ -n "$2" ] || { echo "?"; return; }
	awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" -v s="$SECS" \
		'BEGIN {printf "%.2f", (b - a) / hz / s}'
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
# A process's processor time so far, user and system, in clock ticks (Linux).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }
# Microseconds of processor time per answer: SECONDS over the ok= of LINE.
per_ok() {
	[ -n "$1" ] || { echo "?"; return; }
	awk -v s="$1" -v n="$(field ok "$2")" 'BEGIN {if (n > 0) printf "%.1f", s * 1e6 / n; else print "?"}'
}
# Seconds between two cpu_ticks, or nothing when either is unknown.
ticks_s() {
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.4f", (b - a) / hz}'
}

DB=$TMP/inventory.db
bg_start "$TMP/ctl.log" "$BIN/tbcontrollerd" --db "$DB" --listen 127.0.0.1:0 \
	--admin-token-file "$TMP/admin-token" --unreachable-after 86400 \
	--max-connections-per-client 0
CTL_PID=$BG_PID
wait_for "tbcontrollerd to listen" 10 grep -q 'listening on' "$TMP/ctl.log" ||
	{ cat "$TMP/ctl.log"; exit 1; }
CU=http://127.0.0.1:$(logged_port "$TMP/ctl.log")

enrol=$("$LG" setup "$CU" "$TMP/admin-token" "$NODES" "$TMP/tokens" --concurrency 32) ||
	{ echo "loadgen setup failed"; tail -n 5 "$TMP/ctl.log"; exit 1; }

bg_start "$TMP/bare.log" "$BIN/tests/bench/bare204" --listen 127.0.0.1:0
BARE_PID=$BG_PID
wait_for "bare204 to listen" 10 grep -q 'listening on' "$TMP/bare.log" ||
	{ cat "$TMP/bare.log"; exit 1; }
BU=http://127.0.0.1:$(logged_port "$TMP/bare.log")

# The controller's disk syncs during its rounds, counted by perf when it may,
# from before the first /metrics to after the last (perf stops on SIGINT).
SYNCS=
if command -v perf >/dev/null; then
	perf stat -x, -o "$TMP/syncs" -e syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync \
		-p "$CTL_PID" >/dev/null 2>&1 &
	SYNCS=$!
	sleep 0.5
fi
curl -sf "$CU/metrics" >"$TMP/m0" || { echo "GET /metrics failed"; exit 1; }

# round WHO URL PID: one run of the load against a server; its loadgen
# line, with the machine's idle cores and the processor time per answer of
# the server and of loadgen during it, appended to $TMP/WHO.runs.
round() {
	local out i0 c0 srv
	i0=$(idle_ticks)
	c0=$(cpu_ticks "$3")
	out=$("$LG" run "$2" "$TMP/tokens" --seconds "$SECS" --concurrency "$CONC" \
		2>"$TMP/lg-$1.err") ||
		{ echo "loadgen against $1 failed: $out"; cat "$TMP/lg-$1.err"; return 1; }
	srv=$(ticks_s "$c0" "$(cpu_ticks "$3")")
	echo "$out idle_cores=$(idle_cores "$i0" "$(idle_ticks)")" \
		"server_cpu_us=$(per_ok "$srv" "$out") loadgen_cpu_us=$(per_ok "$(field cpu_s "$out")" "$out")" \
		>>"$TMP/$1.runs"
}
for ((r = 1; r <= ROUNDS; r++)); do
	round tbcontrollerd "$CU" "$CTL_PID" || exit 1
	round bare204 "$BU" "$BARE_PID" || exit 1
done

curl -sf "$CU/metrics" >"$TMP/m1" || { echo "GET /metrics failed"; exit 1; }
[ -n "$SYNCS" ] && kill -INT "$SYNCS" && wait "$SYNCS"
syncs=$(awk -F, '/sys_enter_f(data)?sync/ && $1 ~ /^[0-9]+$/ {s += $1; n++} END {if (n) print s}' \
	"$TMP/syncs" 2>/dev/null)
kill -TERM "$CTL_PID"

# The run of median rate of a server's rounds.
median_run() {
	awk '{for (i = 1; i <= NF; i++) if ($i ~ /^rate=/) {v = $i; sub(/^rate=/, "", v);
		sub(/\/s$/, "", v); print v "\t" $0}}' "$TMP/$1.runs" |
		sort -n | awk -v m="$(((ROUNDS + 1) / 2))" 'NR == m' | cut -f 2-
}
c_run=$(median_run tbcontrollerd)
b_run=$(median_run bare204)
c_rate=$(field rate "$c_run"); b_rate=$(field rate "$b_run")
c_p99=$(field p99_ms "$c_run"); b_p99=$(field p99_ms "$b_run")
c_failed=$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^failed=/) {sub(/^failed=/, "", $i); f += $i}}
	END {print f + 0}' "$TMP/tbcontrollerd.runs")
reports=$(($(metric tbmesh_controller_reports_ingested_total "$TMP/m1") -
	$(metric tbmesh_controller_reports_ingested_total "$TMP/m0")))
commits=$(($(metric tbmesh_controller_commits_total "$TMP/m1") -
	$(metric tbmesh_controller_commits_total "$TMP/m0")))
batch=$(awk -v r="$reports" -v c="$commits" 'BEGIN {printf "%.1f", c ? r / c : 0}')
ratio=$(awk -v a="$c_rate" -v b="$b_rate" 'BEGIN {printf "%.3f", b ? a / b : 0}')
journal=$(sqlite3 "$DB" 'PRAGMA journal_mode')

echo "controller_ingest: $NODES simulated nodes; $ROUNDS rounds of ${SECS} s of POST /v1/report" \
	"to each server in turn, concurrency $CONC, same client, same run"
echo "  enrolment:     $enrol"
for who in tbcontrollerd bare204; do
	r=0
	while read -r line; do
		r=$((r + 1))
		printf '  %-14s round %d: %s\n' "$who" "$r" "$line"
	done <"$TMP/$who.runs"
done
printf '  %-14s %s\n' "tbcontrollerd" "median round: $c_run" bare204 "median round: $b_run"
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
echo "  rate (median): tbcontrollerd $c_rate/s, bare204 $b_rate/s  (goal >= 20000/s)"
echo "  p99 (median round): tbcontrollerd $c_p99 ms, bare204 $b_p99 ms"
echo "  CPU per report (median round): tbcontrollerd $(field server_cpu_us "$c_run") us," \
	"bare204 $(field server_cpu_us "$b_run") us; loadgen $(field loadgen_cpu_us "$c_run") us" \
	"and $(field loadgen_cpu_us "$b_run") us"
echo "  ratio (tbcontrollerd / bare204, rate): $ratio  (goal >= 0.5)"
[ "$c_failed" = 0 ] || echo "  tbcontrollerd refused $c_failed reports: $(cat "$TMP/lg-tbcontrollerd.err")"
awk -v r="$c_rate" -v q="$ratio" -v f="$c_failed" \
	'BEGIN {exit !(r >= 20000 && q >= 0.5 && f == 0)}'
