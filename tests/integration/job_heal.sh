#!/usr/bin/env bash
# A job that fails or hangs is brought back by its policy (issue 20), on two
# simulated Macs running the fake MLX runtime (tests/fakemac/mlx/python3),
# controller checks every 1 s, probes of 2 s, hung after 4 s
# (tests/lib/mlxjob.sh's MLX_JOB_OPTS):
#   - rank 1 crashes (a C++ abort): the job is hung (rank 1 exited while
#     rank 0 lives, the probe unanswered: a JACCL survivor spins, MLX issue
#     4278; the issue's definition of hung), its ranks stopped, then
#     restarted: restarts 1, new pids, the old ones gone; no "failed";
#   - rank 1 hangs (out of the collectives, spinning; /health still 200):
#     hung within hang-after plus two checks, restarted: restarts 2, both
#     old pids gone;
#   - --restart never: hung stays hung, with its reason, its ranks untouched;
#     stopped even with rank 1 ignoring SIGTERM (MLX issue 3910: the stop
#     ends with SIGKILL);
#   - rank 0 silent (completions unanswered, CPU idle: MLX issue 3830):
#     hung after twice hang-after, no rank busy;
#   - --max-restarts 1 and a rank that crashes at every start: failed, the
#     restarts used up, no rank left.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
mlx_setup heal a1 a2 || { not_ok "setup"; done_testing; }
A1=$(macnode_addr a1)
PORT=$(macnode_free_port "$A1")
P=$(mlx_place a1,a2)
check "a tensor placement on a1, a2 ($P)" test "$P" -gt 0
HANG_AFTER=4 CHECK=1 PROBE=2

pids() { job_json "$1"; jq -r '[.ranks[].pid] | join(" ")' "$TMP/job.json"; }
events() { "$CTL" events --json >"$TMP/events.json"; }
# until_job ID JQ SECS: poll the job as fast as tbctl answers until JQ holds
until_job() {
	local deadline=$((SECONDS + $3))
	while [ $SECONDS -lt $deadline ]; do
		"$CTL" job show "$1" --json >"$TMP/poll.json" 2>/dev/null && jq_true "$TMP/poll.json" "$2" && return 0
		sleep 0.05
	done
	echo "# timed out after $3 s waiting for job $1: $2"
	sed 's/^/# /' "$TMP/poll.json" | head -c 3000
	return 1
}

# --- a crash
J=$("$CTL" run "$P" --port "$PORT" --json | jq -r .id)
job_wait "$J" running 20
check "job $J running" test $? -eq 0
read -r old0 old1 <<<"$(pids "$J")"
mlx_fault a2 1 crash
wait_for "rank 1 ($old1) to abort" 5 pid_gone "$old1"
mlx_clear a2
until_job "$J" '.restarts == 1 and .state == "running"' 30
check "rank 1 crashed: restarted and running again" test $? -eq 0
job_json "$J"
check_jq "restarts 1, generation 2" "$TMP/job.json" '.restarts == 1 and .generation == 2'
read -r new0 new1 <<<"$(pids "$J")"
check "the old rank 0 ($old0, a spinning survivor) is gone" pid_gone "$old0"
check "new pids ($new0 $new1)" test "$new0" != "$old0" -a "$new1" != "$old1"
check_eq "one rank per node" "$new0 $new1" "$(mlx_pids a1) $(mlx_pids a2)"
events
check_jq "event: job $J hung, rank 1 exited while rank 0 lives, with its last line" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J hung\" and (.reason | test(\"rank 1 on a2 exited: .*libc[+][+]abi.* while 1 other lives\")))] | length == 1"
check_jq "no event: job $J failed" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J failed\")] | length == 0"
check_jq "event: job $J restarted" "$TMP/events.json" "[.events[] | select(.what == \"job $J restarted\")] | length == 1"
log1=$(find "$TMP/mac-a2/home" -name rank1.log | head -n 1)
check "the new rank 1 logged its generation (TBMESH_JOB=$J.2.1)" grep -q "TBMESH_JOB=$J.2.1 " "$log1"

# --- a hang
old0=$new0 old1=$new1
t0=$SECONDS
mlx_fault a2 1 hang
until_job "$J" '.state == "hung" or .restarts == 2' 30
took=$((SECONDS - t0))
mlx_clear a2
cp "$TMP/poll.json" "$TMP/hung.json"
# a check is the interval, a probe that times out and one ps per node over
# SSH (about 1 s with the simulated Macs' ps): the failing probes start at
# most one check after the fault, hung at most one check after hang-after
# when a rank burns a core; when none is seen to (a host too busy to give
# the spinning ranks a whole core each), after twice hang-after
CYCLE=$((CHECK + PROBE + 1))
events
why=$(jq -r "[.events[] | select(.what == \"job $J hung\")] | last | .reason // \"\"" "$TMP/events.json")
echo "# hung: $why"
case $why in
*burned*) limit=$((HANG_AFTER + 2 * CYCLE)) rule="hang-after $HANG_AFTER s" ;;
*) limit=$((2 * HANG_AFTER + 2 * CYCLE)) rule="no rank seen busy: twice hang-after, $((2 * HANG_AFTER)) s" ;;
esac
check "rank 1 hung: hung within $limit s ($took s: $rule and two checks of $CYCLE s)" \
	test "$took" -le "$limit"
events
check_jq "event: job $J hung, with why" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J hung\" and (.reason | test(\"^rank [0-9]+ burned|^the probe got no answer\")))] | length == 1"
until_job "$J" '.restarts == 2 and .state == "running"' 30
check "restarted and running again" test $? -eq 0
read -r new0 new1 <<<"$(pids "$J")"
check "the hung rank 1 ($old1) is gone" pid_gone "$old1"
check "and the spinning rank 0 ($old0)" pid_gone "$old0"
check_eq "one rank per node, the job's" "$new0 $new1" "$(mlx_pids a1) $(mlx_pids a2)"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H 'Content-Type: application/json' \
	--data-binary '{"prompt": "hi", "max_tokens": 1}' "http://$A1:$PORT/v1/completions")
check_eq "the endpoint answers again" 200 "$code"
"$CTL" job stop "$J" >/dev/null
check_eq "stopped, no rank left" "stopped 0" "$(job_field "$J" .state) $(mlx_count a1 a2)"

# --- --restart never: hung stays hung
J=$("$CTL" run "$P" --port "$PORT" --restart never --json | jq -r .id)
job_wait "$J" running 20
check "job $J (--restart never) running" test $? -eq 0
read -r old0 old1 <<<"$(pids "$J")"
mlx_fault a2 1 ignore-term
mlx_fault a2 1 hang
until_job "$J" '.state == "hung"' 30
check "hung" test $? -eq 0
sleep $((2 * (CHECK + PROBE)))
job_json "$J"
check_jq "still hung two checks later, restarts 0, with its reason" "$TMP/job.json" \
	'.state == "hung" and .restarts == 0 and .generation == 1 and (.reason | length) > 0'
check_eq "its ranks untouched" "$old0 $old1" "$(mlx_pids a1) $(mlx_pids a2)"
t0=$SECONDS
"$CTL" job stop "$J" >"$TMP/stop.txt" 2>&1
check_eq "stopped although rank 1 ignores SIGTERM ($((SECONDS - t0)) s)" \
	"job $J stopped: 2 ranks ended, none left" "$(cat "$TMP/stop.txt")"
check "rank 1 is gone" pid_gone "$old1"
check_eq "no rank left" 0 "$(mlx_count a1 a2)"
mlx_clear a2
mlx_kill_all   # what a failed stop left: the next job starts on clean nodes

# --- silent (MLX issue 3830's wedge: no answer, idle CPU): hung after twice hang-after
J=$("$CTL" run "$P" --port "$PORT" --restart never --json | jq -r .id)
job_wait "$J" running 20
check "job $J running" test $? -eq 0
t0=$SECONDS
mlx_fault a1 0 silent
until_job "$J" '.state == "hung"' 40
took=$((SECONDS - t0))
limit=$((2 * HANG_AFTER + 2 * CYCLE))
check "a silent rank 0: hung within $limit s ($took s)" test "$took" -le "$limit"
check_jq "no rank busy, the probe unanswered" "$TMP/poll.json" '.reason | test("no answer for [0-9]+ s, no rank busy")'
check_jq "both ranks alive" "$TMP/poll.json" 'all(.ranks[]; .alive == true)'
mlx_clear a1
"$CTL" job stop "$J" >/dev/null
check_eq "stopped, no rank left" "stopped 0" "$(job_field "$J" .state) $(mlx_count a1 a2)"

# --- --max-restarts 1, rank 1 crashing at every start
J=$("$CTL" run "$P" --port "$PORT" --max-restarts 1 --json | jq -r .id)
job_wait "$J" running 20
check "job $J (--max-restarts 1) running" test $? -eq 0
mlx_fault a2 1 crash
until_job "$J" '.state == "failed" and .restarts == 1' 40
check "failed after one restart" test $? -eq 0
sleep $((2 * CHECK))
job_json "$J"
check_jq "and stays failed: restarts used up" "$TMP/job.json" \
	'.state == "failed" and .restarts == 1 and (.reason | test("restarts used up"))'
jq -r .reason "$TMP/job.json" | sed 's/^/# failed: /'
mlx_clear a2
check_eq "no rank left" 0 "$(mlx_count a1 a2)"
events
check_eq "restarted once" 1 "$(jq "[.events[] | select(.what == \"job $J restarted\")] | length" "$TMP/events.json")"
curl -s --max-time 5 "$CTRL_URL/metrics" >"$TMP/metrics.txt"
check "the restarts are counted (tbmesh_controller_job_restarts_total 3)" \
	grep -qE '^tbmesh_controller_job_restarts_total 3$' "$TMP/metrics.txt"
grep -E '^tbmesh_controller_job' "$TMP/metrics.txt" | sed 's/^/# /'

done_testing
