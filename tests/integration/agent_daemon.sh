#!/usr/bin/env bash
# tbagentd as a daemon: its three documents over real HTTP on loopback,
# promtool on every backend's metrics, 405/404, SIGHUP re-reads the
# configuration, SIGTERM stops it, it keeps serving while a collection is
# stuck on a hung command, and while the controller it reports to is away
# (backing off, counting, memory flat).
. "$(dirname "$0")/../lib/common.sh"
command -v promtool >/dev/null || skip_all "promtool not installed (packaging/deps.sh installs it)"
SC=$TOP/tests/scenarios

cat >"$TMP/agent.conf" <<CONF
# a test configuration
backend = sim
scenario = $SC/mesh4-studio.json
node = mac2
interval = 0.2
CONF
start_agent sim -f "$TMP/agent.conf"
U=http://127.0.0.1:$AGENT_PORT
wait_for "a first report" 5 curl -sf "$U/v1/report"
check_eq "GET /healthz is 200" 200 "$(http_get "$U/healthz" "$TMP/h.json")"
check_jq "healthz says ok" "$TMP/h.json" '.status == "ok"'
check_eq "GET /v1/report is 200" 200 "$(http_get "$U/v1/report" "$TMP/r.json")"
check_jq "the report is mac2's, from the config file" "$TMP/r.json" '.node.hostname == "mac2"'
check_eq "GET /metrics is 200" 200 "$(http_get "$U/metrics" "$TMP/sim.prom")"
check "promtool accepts the sim metrics" promtool check metrics <"$TMP/sim.prom"
check "metrics have build info" grep -q '^tbmesh_agent_build_info{version="0.1.0",backend="sim"} 1$' "$TMP/sim.prom"
check "metrics have memory in bytes" grep -q '^tbmesh_memory_total_bytes 549755813888$' "$TMP/sim.prom"
check "metrics have per-port speed" grep -q '^tbmesh_thunderbolt_port_speed_bytes_per_second{receptacle=.*} 10000000000$' "$TMP/sim.prom"
check "metrics have RDMA enabled" grep -q '^tbmesh_rdma_enabled 1$' "$TMP/sim.prom"
check "metrics count collections" grep -q '^tbmesh_agent_collections_total [1-9]' "$TMP/sim.prom"
ctype=$(curl -s -o /dev/null -w '%{content_type}' "$U/metrics")
check_eq "metrics content type" "text/plain; version=0.0.4; charset=utf-8" "$ctype"

code=$(curl -s -o "$TMP/405.json" -D "$TMP/405.h" -w '%{http_code}' -X POST "$U/metrics")
check_eq "POST /metrics is 405" 405 "$code"
check "405 has Allow" grep -qi '^Allow: GET, HEAD' "$TMP/405.h"
check_jq "405 has a JSON error" "$TMP/405.json" '.error | length > 0'
check_eq "unknown path is 404" 404 "$(http_get "$U/nope" "$TMP/404.json")"
check_jq "404 has a JSON error" "$TMP/404.json" '.error | length > 0'

# SIGHUP: a changed file is picked up; a broken one is refused and ignored
sed -i 's/node = mac2/node = mac3/' "$TMP/agent.conf"
kill -HUP "$AGENT_PID"
wait_for "the reloaded node name" 5 sh -c "curl -sf $U/v1/report | grep -q '\"hostname\":\"mac3\"'"
check "SIGHUP re-read the configuration" sh -c "curl -sf $U/v1/report | grep -q '\"hostname\":\"mac3\"'"
echo "interval = -3" >>"$TMP/agent.conf"
kill -HUP "$AGENT_PID"
wait_for "the refusal in the log" 5 grep -q 'not reloaded' "$AGENT_LOG"
check "a broken configuration is refused on SIGHUP" grep -q 'interval' "$AGENT_LOG"
check "the agent still serves after a refused reload" curl -sf "$U/v1/report" -o /dev/null

# SIGTERM stops it promptly with status 0
kill -TERM "$AGENT_PID"
for _ in $(seq 50); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM stops the agent within 5 s" sh -c "! kill -0 $AGENT_PID 2>/dev/null"
wait "$AGENT_PID"; check_eq "exit status after SIGTERM" 0 $?

# linux backend metrics
start_agent linux --backend linux --interval 1
wait_for "linux report" 5 curl -sf "http://127.0.0.1:$AGENT_PORT/v1/report"
http_get "http://127.0.0.1:$AGENT_PORT/metrics" "$TMP/linux.prom" >/dev/null
check "promtool accepts the linux metrics" promtool check metrics <"$TMP/linux.prom"
bg_stop "$AGENT_PID"

# darwin backend metrics, then a stuck collection
mkdir -p "$TMP/mac"
bash "$TOP/tests/fakemac/mkstate.sh" "$TMP/mac" studio
export FAKEMAC_DIR=$TMP/mac
CALLS=$TMP/fakemac.calls   # every fake command run, one a line
# the topology read at every collection, so that a hung system_profiler is met at once
PATH=$(fakemac_path) FAKEMAC_LOG=$CALLS start_agent darwin --backend darwin --interval 0.5 \
	--topology-interval 0.5 --command-timeout 4
U=http://127.0.0.1:$AGENT_PORT
wait_for "darwin report" 10 curl -sf "$U/v1/report"
http_get "$U/metrics" "$TMP/darwin.prom" >/dev/null
check "promtool accepts the darwin metrics" promtool check metrics <"$TMP/darwin.prom"
check "darwin metrics: receptacle 2 up" grep -q '^tbmesh_thunderbolt_port_up{receptacle="2",interface="en.*"} 1$' "$TMP/darwin.prom"
# A system_profiler call logged after the .hang file exists hangs (fake.sh
# logs a call, then looks for the file): wait for one, then measure while no
# collection finishes (the counter stays put from before to after).
touch "$TMP/mac/system_profiler_SPThunderboltDataType.hang"
n0=$(wc -l <"$CALLS")
hung_call() { tail -n +$((n0 + 1)) "$CALLS" | grep -q '^system_profiler SPThunderboltDataType'; }
wait_for "a collection to run the hung system_profiler" 10 hung_call
check "a collection is inside the hung system_profiler" hung_call
collections() { sed -n 's/^tbmesh_agent_collections_total //p' "$1"; }
http_get "$U/metrics" "$TMP/stuck0.prom" >/dev/null
t0=$(date +%s%N)
code=$(http_get "$U/metrics" "$TMP/during.prom")
t1=$(date +%s%N)
http_get "$U/metrics" "$TMP/stuck1.prom" >/dev/null
c0=$(collections "$TMP/stuck0.prom") c1=$(collections "$TMP/stuck1.prom")
check "collections counted before the measure ($c0)" test -n "$c0"
check_eq "no collection finished while measuring" "$c0" "$c1"
check_eq "metrics answered while a collection is stuck" 200 "$code"
check "and answered within 0.5 s" test $(( (t1 - t0) / 1000000 )) -lt 500
check "what it served is the last full report" grep -q '^tbmesh_memory_total_bytes 549755813888$' "$TMP/during.prom"
check_eq "and the same collection count ($c0)" "$c0" "$(collections "$TMP/during.prom")"
rm -f "$TMP/mac/system_profiler_SPThunderboltDataType.hang"
wait_for "the timeout error counted" 10 sh -c "curl -sf $U/metrics | grep -q '^tbmesh_agent_collection_errors_total{source=\"system_profiler\"} [1-9]'"
check "the hung command is counted as an error" sh -c "curl -sf $U/metrics | grep -q 'collection_errors_total{source=\"system_profiler\"}'"
bg_stop "$AGENT_PID"

# before the first collection ends (it hangs here) /metrics tells that the
# agent runs: its own metrics, no node's
touch "$TMP/mac/system_profiler_SPThunderboltDataType.hang"
PATH=$(fakemac_path) start_agent first --backend darwin --interval 5 --command-timeout 4
U=http://127.0.0.1:$AGENT_PORT
check_eq "/v1/report before the first collection is 503" 503 "$(http_get "$U/v1/report" "$TMP/first.json")"
check_eq "/metrics before the first collection is 200" 200 "$(http_get "$U/metrics" "$TMP/first.prom")"
check "it holds the build info" grep -q '^tbmesh_agent_build_info{version=".*",backend="darwin"} 1$' "$TMP/first.prom"
check "and no collection yet" grep -q '^tbmesh_agent_collections_total 0$' "$TMP/first.prom"
check "and nothing of a node" sh -c "! grep -q '^tbmesh_memory_' $TMP/first.prom"
check "promtool accepts it" promtool check metrics <"$TMP/first.prom"
rm -f "$TMP/mac/system_profiler_SPThunderboltDataType.hang"
bg_stop "$AGENT_PID"

# a controller that is away: a loopback port nothing listens on
closed=
for p in $(seq 20011 20111); do
	(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { closed=$p; break; }
done
[ -n "$closed" ] || { not_ok "no closed loopback port found"; done_testing; }
BOOT=tbm_0123456789ab_SeCrEtSeCrEtSeCrEtSeCrEtSeCrEtSeCrEtSeCrEtSeC
printf '%s\n' "$BOOT" >"$TMP/boot"
out=$("$BIN/tbagentd" -n --controller "http://127.0.0.1:$closed" --state-dir "$TMP/st" 2>&1); rc=$?
check_eq "-n: a controller without a way to enrol is refused" 2 $rc
case "$out" in
*"controller: needs --bootstrap-token-file or a node token in $TMP/st"*) ok "-n says what is missing" ;;
*) not_ok "-n message: $out" ;;
esac
out=$("$BIN/tbagentd" -n --controller "http://127.0.0.1:$closed" --state-dir "$TMP/st" \
	--bootstrap-token-file "$TMP/boot" 2>&1)
check_eq "-n: with a bootstrap token file it is fine" "configuration OK" "$out"

# ASan's own bookkeeping (quarantine, allocation stacks) grows RSS: off here,
# so that RSS measures the agent (memory errors are still caught)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0:malloc_context_size=0 \
start_agent away --backend sim --scenario "$SC/mesh4-studio.json" --node mac1 --interval 0.1 \
	--controller "http://127.0.0.1:$closed/" --bootstrap-token-file "$TMP/boot" \
	--state-dir "$TMP/st"
U=http://127.0.0.1:$AGENT_PORT
metric() { curl -sf --max-time 2 "$U/metrics" | sed -n "s/^$1 //p"; }
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$AGENT_PID/status"; }
wait_for "healthz says the controller is unreachable" 10 \
	sh -c "curl -sf $U/healthz | grep -q '\"controller\":\"unreachable\"'"
check_eq "healthz stays 200 while the controller is away" 200 "$(http_get "$U/healthz" "$TMP/h2.json")"
check_jq "healthz: status ok, controller unreachable" "$TMP/h2.json" \
	'.status == "ok" and .controller == "unreachable"'
check "the state directory was created 0700" test "$(stat -c %a "$TMP/st" 2>/dev/null || stat -f %Lp "$TMP/st")" = 700
check_eq "not enrolled" 0 "$(metric tbmesh_agent_enrolled)"
wait_for "10 collections" 10 sh -c "curl -sf $U/metrics | grep -Eq '^tbmesh_agent_collections_total ([1-9][0-9]+)$'"
f1=$(metric tbmesh_agent_push_failures_total)
c1=$(metric tbmesh_agent_collections_total)
have_rss=0; [ -r "/proc/$AGENT_PID/status" ] && have_rss=1
[ $have_rss = 1 ] && r1=$(rss_kb)
slow=0
for _ in $(seq 40); do   # /metrics answers promptly all along
	t0=$(date +%s%N)
	[ "$(http_get "$U/metrics" "$TMP/away.prom")" = 200 ] || slow=$((slow + 100))
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 500 ] || slow=$((slow + 1))
	sleep 0.1
done
check_eq "/metrics answered within 0.5 s, 40 times in a row" 0 "$slow"
wait_for "40 more collections" 10 sh -c "[ \$(curl -sf $U/metrics | sed -n 's/^tbmesh_agent_collections_total //p') -ge $((c1 + 40)) ]"
f2=$(metric tbmesh_agent_push_failures_total)
check "the failure counter grows ($f1 -> $f2)" test "$f2" -gt "$f1"
check "newer reports replaced unsent ones (dropped: $(metric tbmesh_agent_reports_dropped_total))" \
	test "$(metric tbmesh_agent_reports_dropped_total)" -gt 20
check_eq "nothing was pushed" 0 "$(metric tbmesh_agent_reports_pushed_total)"
backoff=$(metric tbmesh_agent_push_backoff_seconds)
check "it backs off ($backoff s)" awk -v b="$backoff" 'BEGIN { exit !(b >= 1 && b <= 60) }'
if [ $have_rss = 1 ]; then
	r2=$(rss_kb)
	check "resident memory flat over 40 collections ($r1 kB -> $r2 kB)" test $((r2 - r1)) -lt 1024
fi
check "the log says why" grep -q "127.0.0.1:$closed/v1/enroll.*next attempt in" "$AGENT_LOG"
check "the log never holds the token" sh -c "! grep -q SeCrEt '$AGENT_LOG'"
check "no node token was saved" test ! -e "$TMP/st/node-token"
kill -TERM "$AGENT_PID"
for _ in $(seq 50); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM stops it within 5 s while backing off" sh -c "! kill -0 $AGENT_PID 2>/dev/null"
bg_reap "$AGENT_PID"   # and its status is 0
done_testing
