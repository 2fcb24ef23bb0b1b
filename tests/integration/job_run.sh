#!/usr/bin/env bash
# tbctl run (issue 20): a job's ranks started over SSH by the controller on
# two simulated Macs cabled in a full mesh, each running the fake MLX
# runtime (tests/fakemac/mlx/python3).  Bad input is refused before anything
# starts: a placement never applied, one removed, one for exo, a node
# without SSH settings, rank 0's port or the coordinator's port in use, a
# second job on the same placement.  Then a 2-node jaccl job: running within
# 20 s, rank 0's endpoint answering a completion, each rank with the
# environment MLX's launcher gives it (launch.py:373-400: MLX_RANK,
# MLX_JACCL_COORDINATOR = rank 0's address and --starting-port 32323,
# MLX_IBV_DEVICES a file holding the N x N matrix with an empty diagonal;
# no MLX_HOSTFILE, which would make the rank a ring one, distributed.cpp:
# 182-201), its pids alive, its logs; stopped: no rank left; the events.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
mlx_setup jobs a1 a2 || { not_ok "setup"; done_testing; }
ok "two cabled Macs running the fake MLX runtime, links passing"
A1=$(macnode_addr a1)
PORT=$(macnode_free_port "$A1")

# nothing_started WHAT: no job stored, no rank on any node, no job directory
nothing_started() {
	check_eq "$1: no job" 0 "$("$CTL" jobs --json | jq '.jobs | length')"
	check_eq "$1: no rank runs" 0 "$(mlx_count a1 a2)"
	check "$1: no job directory on the nodes" test -z "$(ls -A "$TMP"/mac-a*/home/tbmesh-jobs 2>/dev/null)"
}
# refused WHAT MESSAGE ARGS...: tbctl run ARGS fails with MESSAGE on stderr
refused() {
	local what=$1 msg=$2 rc; shift 2
	"$CTL" run "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	check_eq "$what: refused" 1 "$rc"
	check "$what: says so ($(head -c 200 "$TMP/err"))" grep -qF -- "$msg" "$TMP/err"
	nothing_started "$what"
}

# --- refusals
refused "a placement never applied" "placement 999 not found" 999 --port "$PORT"
X=$("$CTL" place "$MLX_MODEL" --strategy tensor --nodes a1,a2 --runtime exo --apply --json | jq -r .id)
refused "an exo placement" "placement $X is for exo" "$X" --port "$PORT"
"$CTL" placement remove "$X" >/dev/null
refused "a removed placement" "placement $X" "$X" --port "$PORT"

# a third Mac, enrolled, in the cluster, without SSH settings
macnode_start a3 3 || not_ok "a3 starts"
wait_for "a3 to enrol" 20 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"a3\" and .state == \"ready\")'"
"$CTL" cluster add jobs a3 >/dev/null
S=$("$CTL" place "$MLX_MODEL" --strategy single --nodes a3 --entry server --apply --json | jq -r .id)
check "a single placement on a3 ($S)" test "$S" -gt 0
refused "a node without SSH settings" "a3 has no SSH address (tbctl node ssh a3" "$S" --port "$PORT"
check "a3 saw no SSH login" test ! -s "$(macnode_log a3)"
"$CTL" placement remove "$S" >/dev/null

P=$(mlx_place a1,a2)
check "a tensor placement on a1, a2 ($P)" test "$P" -gt 0
"$CTL" placement show "$P" --json >"$TMP/place.json"
check_jq "jaccl, coordinator on a1's address" "$TMP/place.json" \
	".hostfile.backend == \"jaccl\" and .coordinator == \"$A1:32323\""
listen() {   # listen ADDR PORT: a listener for 60 s at most; pid in LPID
	timeout 60 python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(); print("up", flush=True); time.sleep(60)' "$1" "$2" >"$TMP/listen.out" 2>&1 &
	LPID=$!
	wait_for "a listener on $1:$2" 5 grep -q up "$TMP/listen.out"
}
listen "$A1" "$PORT"
refused "rank 0's port in use" "rank 0's port $PORT on $A1 is in use" "$P" --port "$PORT"
kill "$LPID"; builtin wait "$LPID" 2>/dev/null
listen "$A1" 32323
refused "the coordinator's port in use" "the coordinator's port 32323 on $A1 is in use" "$P" --port "$PORT"
kill "$LPID"; builtin wait "$LPID" 2>/dev/null

# --- a 2-node jaccl job
t0=$SECONDS
"$CTL" run "$P" --port "$PORT" --json >"$TMP/run.json" 2>"$TMP/err"
check_jq "tbctl run: job starting" "$TMP/run.json" '.state == "starting" and .id > 0' || cat "$TMP/err"
J=$(jq -r .id "$TMP/run.json")
"$CTL" run "$P" --port "$((PORT + 1))" >/dev/null 2>"$TMP/err"
check "a second job on the placement is refused" grep -qF "placement $P already has job $J" "$TMP/err"
job_wait "$J" running 20
check "running within 20 s ($((SECONDS - t0)) s)" test $? -eq 0
job_json "$J"
cp "$TMP/job.json" "$TMP/running.json"
check_jq "its endpoint is rank 0's address and the port" "$TMP/running.json" \
	".endpoint == \"http://$A1:$PORT\" and .backend == \"jaccl\" and .generation == 1 and .restarts == 0"
EP=$(jq -r .endpoint "$TMP/running.json")
code=$(curl -s -o "$TMP/c.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
	--data-binary '{"prompt": "hello", "max_tokens": 1}' "$EP/v1/completions")
check_eq "the endpoint answers a completion" 200 "$code"
check_jq "one token, mlx-lm's shape" "$TMP/c.json" '.object == "text_completion" and (.choices[0].text | type) == "string" and .usage.completion_tokens == 1'

# each rank's environment, from the fake's first line
log0=$(find "$TMP/mac-a1/home" -name rank0.log | head -n 1)
log1=$(find "$TMP/mac-a2/home" -name rank1.log | head -n 1)
check "rank 0's log on a1" test -n "$log0"
check "rank 1's log on a2" test -n "$log1"
for r in 0 1; do
	f=$log0; [ $r = 1 ] && f=$log1
	line=$(grep -m1 'fake-mlx: started' "$f")
	check "rank $r: MLX_RANK=$r" grep -q " MLX_RANK=$r " <<<"$line"
	check "rank $r: MLX_JACCL_COORDINATOR=$A1:32323" grep -q " MLX_JACCL_COORDINATOR=$A1:32323 " <<<"$line"
	check "rank $r: MLX_IBV_DEVICES names a file" grep -qE ' MLX_IBV_DEVICES=/[^ ]+ ' <<<"$line"
	check "rank $r: no MLX_HOSTFILE" eval '! grep -q MLX_HOSTFILE <<<"$line"'
	check "rank $r: the server's command line" grep -qE "argv=-m mlx_lm server --model [^ ]+ .*--port $PORT" <<<"$line"
	sed -n 's/^fake-mlx: MLX_IBV_DEVICES holds //p' "$f" | head -n 1 >"$TMP/dev$r.json"
	check_jq "rank $r: a 2x2 matrix, empty diagonal, a device each way" "$TMP/dev$r.json" \
		'length == 2 and all(.[]; length == 2) and .[0][0] == null and .[1][1] == null and (.[0][1] | type) == "string" and (.[1][0] | type) == "string"'
	check "rank $r: a jaccl mesh of 2" grep -q "group jaccl mesh rank $r of 2" "$f"
done
check "both ranks read the same matrix" cmp -s "$TMP/dev0.json" "$TMP/dev1.json"

# the pids
pid0=$(jq -r '.ranks[0].pid' "$TMP/running.json") pid1=$(jq -r '.ranks[1].pid' "$TMP/running.json")
check_jq "job show: both ranks alive, each on its node" "$TMP/running.json" \
	'(.ranks | length) == 2 and .ranks[0].node == "a1" and .ranks[1].node == "a2" and all(.ranks[]; .alive == true and .pid > 0)'
check_eq "rank 0's pid is a1's one python" "$pid0" "$(mlx_pids a1)"
check_eq "rank 1's pid is a2's one python" "$pid1" "$(mlx_pids a2)"
"$CTL" job show "$J" >"$TMP/show.txt"
check "tbctl job show says running" grep -q "job $J: running" "$TMP/show.txt"
check "and lists rank 1's pid" grep -qE "^1 +a2 +$pid1 " "$TMP/show.txt"
"$CTL" jobs >"$TMP/jobs.txt"
check "tbctl jobs lists it" grep -qE "^$J +$P .*running" "$TMP/jobs.txt"

# logs
"$CTL" job logs "$J" --json >"$TMP/logs.json"
check_jq "job logs: both ranks' lines" "$TMP/logs.json" \
	'(.ranks | length) == 2 and all(.ranks[]; any(.lines[]; test("fake-mlx: started")))'
"$CTL" job logs "$J" --rank 1 >"$TMP/logs1.txt"
check "job logs --rank 1: rank 1's output" grep -q 'MLX_RANK=1 ' "$TMP/logs1.txt"
check "and not rank 0's" eval '! grep -q "MLX_RANK=0 " "$TMP/logs1.txt"'

# stop
"$CTL" job stop "$J" >"$TMP/stop.txt" 2>&1
check_eq "tbctl job stop" "job $J stopped: 2 ranks ended, none left" "$(cat "$TMP/stop.txt")"
check_eq "the job is stopped" stopped "$(job_field "$J" .state)"
check "rank 0's pid is gone" pid_gone "$pid0"
check "rank 1's pid is gone" pid_gone "$pid1"
check_eq "no rank left on a1, a2" 0 "$(mlx_count a1 a2)"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$EP/health")
check_eq "nothing answers at the endpoint" 000 "$code"

# events
"$CTL" events --json >"$TMP/events.json"
for w in starting running stopped; do
	check_jq "event: job $J $w" "$TMP/events.json" "[.events[] | select(.what == \"job $J $w\" and .actor == \"job:$J\")] | length >= 1"
done
check_jq "no event of job $J failed or hung" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J failed\" or .what == \"job $J hung\")] | length == 0"
# a stopped job's placement runs again
"$CTL" run "$P" --port "$PORT" --json >"$TMP/run2.json"
J2=$(jq -r .id "$TMP/run2.json")
job_wait "$J2" running 20
check "after a stop, the placement runs again (job $J2)" test $? -eq 0
"$CTL" job stop "$J2" >/dev/null
check_eq "stopped again, no rank left" "stopped 0" "$(job_field "$J2" .state) $(mlx_count a1 a2)"

# The logs are read over SSH on a thread of their own, not the API's: with
# a1's SSH pointed at a listener that accepts and never speaks, the request
# waits for the SSH timeout (--ssh-timeout 5) while the API answers at once.
SILENT=$(macnode_free_port "$A1")
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(8)
conns = []
end = time.time() + 40
while time.time() < end:
    s.settimeout(max(0.1, end - time.time()))
    try:
        conns.append(s.accept()[0])
    except OSError:
        pass' "$A1" "$SILENT" &
silent_pid=$!
for i in $(seq 50); do (exec 3<>"/dev/tcp/$A1/$SILENT") 2>/dev/null && break; sleep 0.1; done
"$CTL" node ssh a1 --host "$A1" --port "$SILENT" --user "$MACNODE_LOGIN" >/dev/null &&
	"$CTL" node trust a1 --fingerprint "$(macnode_fp a1)" >/dev/null
check "a1's SSH now points at a silent listener" test $? -eq 0
t0=$(date +%s.%N)
"$CTL" job logs "$J2" --rank 0 >"$TMP/slow.out" 2>&1 &
logs_pid=$!
sleep 1
check "the logs request is still waiting" kill -0 "$logs_pid"
h=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 3 "$CTRL_URL/healthz")
check_eq "meanwhile the API answers" 200 "${h%% *}"
check "at once (${h#* } s)" awk -v t="${h#* }" 'BEGIN {exit !(t < 0.5)}'
wait "$logs_pid"; rc=$?
t1=$(date +%s.%N)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
check "the logs request fails once SSH gives up (exit $rc, $took s): $(head -c 150 \
	"$TMP/slow.out")" test "$rc" -ne 0
check "after the SSH timeout, not before ($took s)" awk -v t="$took" 'BEGIN {exit !(t >= 4)}'
kill "$silent_pid" 2>/dev/null; wait "$silent_pid" 2>/dev/null
macnode_register a1
check "a1's SSH settings are back" test $? -eq 0

done_testing
