#!/usr/bin/env bash
# kill -9 of the controller while a job is starting (issue 20): rank 0
# loads slowly (the fake MLX runtime's slow-start, 3 s), the controller is
# killed once its start line has gone out, restarted, killed again in the
# middle of the start it resumed, and restarted again.  The job ends up
# running with exactly one python per rank, each of the job's current
# generation (TBMESH_JOB=ID.GEN.RANK in its environment), every rank any
# earlier start left behind gone: no orphan rank, no second copy.  A stop
# cut short by another kill -9 is finished by the next controller.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
mlx_setup crash a1 a2 || { not_ok "setup"; done_testing; }
A1=$(macnode_addr a1)
PORT=$(macnode_free_port "$A1")
P=$(mlx_place a1,a2)
check "a tensor placement on a1, a2 ($P)" test "$P" -gt 0
mlx_ctrl_args "${CTRL_URL##*:}"
mlx_fault a1 0 slow-start 3

J=$("$CTL" run "$P" --port "$PORT" --json | jq -r .id)
check "job $J submitted" test "$J" -gt 0
jobdir() { echo "$TMP/mac-$1/home/tbmesh-jobs/job$J"; }
db() { sqlite3 "$CTRL_DB" "$1" 2>/dev/null; }
seen=()   # every rank seen on the nodes before a kill

# kill_during GEN: once rank 0 of generation GEN is in its slow start, kill -9
kill_during() {
	wait_for "rank 0 of generation $1 in its slow start" 20 \
		sh -c "grep -A1 'TBMESH_JOB=$J.$1.0 ' '$(jobdir a1)/rank0.log' | grep -q 'slow start'" ||
		{ not_ok "rank 0 of generation $1 never started"; return 1; }
	kill -KILL "$CTRL_PID"; bg_forget "$CTRL_PID"; builtin wait "$CTRL_PID" 2>/dev/null
	mapfile -t -O "${#seen[@]}" seen < <(mlx_pids a1; mlx_pids a2)
	check_eq "killed while job $J was starting (generation $1)" "starting $1" \
		"$(db "SELECT state || ' ' || generation FROM jobs WHERE id = $J")"
}
restart() {
	bg_start "$TMP/ctl-run$1.log" "$BIN/tbcontrollerd" "${MLX_CTRL_ARGS[@]}"
	CTRL_PID=$BG_PID
	wait_for "the controller to listen again" 10 grep -q 'listening on' "$TMP/ctl-run$1.log" ||
		{ cat "$TMP/ctl-run$1.log"; return 1; }
}

kill_during 1
restart 1
kill_during 2
restart 2
job_wait "$J" running 40
check "after two kills the job is running" test $? -eq 0
job_json "$J"
cp "$TMP/job.json" "$TMP/final.json"
gen=$(jq -r .generation "$TMP/final.json")
read -r pid0 pid1 <<<"$(jq -r '[.ranks[].pid] | join(" ")' "$TMP/final.json")"
check "generation 3: each start stopped what the last one left, then started once ($gen)" test "$gen" -eq 3
check_eq "exactly one python on a1, rank 0's" "$pid0" "$(mlx_pids a1)"
check_eq "exactly one python on a2, rank 1's" "$pid1" "$(mlx_pids a2)"
for r in 0 1; do
	p=$pid0; [ $r = 1 ] && p=$pid1
	check_eq "rank $r is of generation $gen" "TBMESH_JOB=$J.$gen.$r" \
		"$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep '^TBMESH_JOB=')"
done
left=0
for p in ${seen[@]+"${seen[@]}"}; do
	[ "$p" = "$pid0" ] || [ "$p" = "$pid1" ] || pid_gone "$p" || { left=$((left + 1)); echo "# left: $p"; }
done
check_eq "no rank of an earlier start is left (${#seen[@]} seen at the kills)" 0 "$left"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H 'Content-Type: application/json' \
	--data-binary '{"prompt": "hi", "max_tokens": 1}' "http://$A1:$PORT/v1/completions")
check_eq "the endpoint answers" 200 "$code"
check "the restarted controller said what it stopped" \
	grep -q "job $J resumed: it was starting when the controller stopped" "$TMP/ctl-run2.log"
"$CTL" events --limit 1000 --json >"$TMP/events.json"
check_jq "events: one \"job $J starting\" (the submit's), two \"job $J resumed\"" \
	"$TMP/events.json" "([.events[] | select(.what == \"job $J starting\")] | length == 1) and
	([.events[] | select(.what == \"job $J resumed\")] | length == 2)"

# a stop survives a kill -9 too: rank 1 ignores SIGTERM (MLX issue 3910),
# so the stop is still waiting out its grace when the controller dies
mlx_clear a1
mlx_fault a2 1 ignore-term
check_eq "job stop asked" 202 "$(api POST "/v1/jobs/$J/stop" '{}')"
wait_for "the stop under way" 10 sh -c "$CTL job show $J --json | jq -e '.state == \"stopping\"'"
sleep 1
kill -KILL "$CTRL_PID"; bg_forget "$CTRL_PID"; builtin wait "$CTRL_PID" 2>/dev/null
check_eq "killed while stopping, the stop stored" "stopping stop" \
	"$(db "SELECT state || ' ' || want FROM jobs WHERE id = $J")"
restart 3
job_wait "$J" stopped 40
check "the restarted controller finished the stop" test $? -eq 0
check_eq "no rank left" 0 "$(mlx_count a1 a2)"
check "rank 1, which ignored SIGTERM, is gone" pid_gone "$pid1"
check_eq "and it was not started again" "$gen" "$(job_field "$J" .generation)"
mlx_clear a2

done_testing
