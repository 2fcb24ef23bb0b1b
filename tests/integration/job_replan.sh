#!/usr/bin/env bash
# A job whose placement cannot run (issue 20): it waits with the reason, or,
# with --replan auto, moves to a new placement of the same model on what is
# left.  Three simulated Macs running the fake MLX runtime
# (tests/fakemac/mlx/python3), a node unreachable after 3 s without a
# report, jobs checked every second (tests/lib/mlxjob.sh's MLX_JOB_OPTS):
#   - --replan auto on a placement of a1, a2; a2 is lost (its agent and sshd
#     stopped): the placement is degraded, the job's ranks are stopped, the
#     model planned again on a1 and a3 (the nodes left), the new placement
#     applied and the old one removed, the job started there: running, its
#     endpoint answering, replans 1, restarts 0, the events in order, the
#     old rank 0 on a1 gone, the metric counted; a3 lost too: no plan fits
#     on a1 alone, the job waits with the planner's reason; a3 back: its
#     placement is active again and the job starts there (replans still 1);
#   - --replan never on a placement of a1, a2; a2 is lost again: waiting,
#     with the placement's reason, no rank of it left on a1, restarts 0; a2
#     comes back and is ready: the placement is active again
#     (placement_node_back) and the job starts again on its own: running,
#     generation 2, restarts 0; the operator's stop makes it stopped;
#   - --replan never on a placement of a1, a3 whose hostfile goes stale (a3's
#     SSH user changed, tbctl node ssh) and matches again (put back): the
#     job waits (its rank on a3, which the wrong user cannot reach, named in
#     the reason), then starts again on its own: generation 2, restarts 0,
#     "placement N is active again", the rank left on a3 stopped first.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
MLX_CTRL_OPTS="--unreachable-after 3"
mlx_setup replan a1 a2 a3 || { not_ok "setup"; done_testing; }
A1=$(macnode_addr a1)
PORT=$(macnode_free_port "$A1")

events() { "$CTL" events --limit 100000 --json >"$TMP/events.json"; }
# the id of the first event "what" (0 none)
event_id() {
	jq -r --arg w "$1" '[.events[] | select(.what == $w) | .id] | min // 0' "$TMP/events.json"
}
# the id of the first event "what" after event id after (0 none)
event_after() {
	jq -r --arg w "$1" --argjson a "$2" \
		'[.events[] | select(.what == $w and .id > $a) | .id] | min // 0' "$TMP/events.json"
}
# one event "what" of job id with reason
event_is() {
	jq_true "$TMP/events.json" "[.events[] | select(.what == \"$1\" and .actor == \"job:$2\" and
		.reason == \"$3\")] | length == 1"
}
node_state() {
	"$CTL" nodes --json | jq -r --arg n "$1" '.nodes[] | select(.name == $n) | .state'
}
node_is() { test "$(node_state "$1")" = "$2"; }
placement_state() { "$CTL" placement show "$1" --json 2>/dev/null | jq -r .state; }
placement_is() { test "$(placement_state "$1")" = "$2"; }
rank_pid() { jq -r ".ranks[$1].pid" "$TMP/job.json"; }

# --- replan auto: a2 lost, the job moved to a1 and a3
P1=$(mlx_place a1,a2)
check "a tensor placement on a1, a2 ($P1)" test "$P1" -gt 0
J=$("$CTL" run "$P1" --server --port "$PORT" --replan auto --json | jq -r .id)
job_wait "$J" running 20
check "job $J (--replan auto) running on placement $P1" test $? -eq 0
job_json "$J"
check_jq "replan auto, replans 0" "$TMP/job.json" '.replan == "auto" and .replans == 0'
old0=$(rank_pid 0)
mlx_node_down a2
wait_for "a2 to be unreachable" 20 node_is a2 unreachable
check_eq "a2 unreachable" unreachable "$(node_state a2)"
# a lost Mac takes its processes with it
for p in $(mlx_pids a2); do kill -KILL "$p"; done
wait_for "job $J replanned and running" 40 sh -c \
	"$CTL job show $J --json | jq -e '.replans == 1 and .state == \"running\"'"
check "job $J replanned and running again" test $? -eq 0
job_json "$J"
P2=$(jq -r .placement "$TMP/job.json")
check "on a new placement ($P2)" test "$P2" != "$P1" -a "$P2" -gt 0
check_jq "its ranks on a1 and a3, replans 1, restarts 0" "$TMP/job.json" \
	'([.ranks[].node] | sort) == ["a1", "a3"] and .replans == 1 and .restarts == 0'
check_eq "placement $P2 is active" active "$(placement_state "$P2")"
"$CTL" placement show "$P2" --json >"$TMP/p2.json"
check_jq "the same model, strategy and entry point" "$TMP/p2.json" \
	".model == \"$MLX_MODEL\" and .strategy == \"tensor\" and (.launch | test(\"mlx_lm server\"))"
check "placement $P1 was removed" sh -c "! $CTL placement show $P1 >/dev/null 2>&1"
ep=$(jq -r .endpoint "$TMP/job.json")
h0=$(jq -r '.ranks[0].host' "$TMP/job.json")
check_eq "the endpoint is the new rank 0's" "http://$h0:$PORT" "$ep"
curl -s --max-time 10 -H 'Content-Type: application/json' \
	-d '{"prompt": "hi", "max_tokens": 1}' "$ep/v1/completions" >"$TMP/answer.json"
check_jq "its endpoint answers a completion" "$TMP/answer.json" '.choices[0].text | length > 0'
check "the old rank 0 ($old0, on a1) is gone" pid_gone "$old0"
check_eq "one rank on a1, one on a3" "1 1" "$(mlx_count a1) $(mlx_count a3)"
events
e_deg=$(event_id "placement $P1 degraded")
e_app=$(event_id "placement $P2 applied")
e_rem=$(event_id "placement $P1 removed")
e_rep=$(event_id "job $J replanned")
e_sta=$(event_after "job $J starting" "$e_rep")
e_run=$(event_after "job $J running" "$e_rep")
order="degraded ($e_deg), applied ($e_app), removed ($e_rem), replanned ($e_rep),"
order="$order starting ($e_sta), running ($e_run)"
check "events in order: $order" test "$e_deg" -gt 0 -a "$e_deg" -lt "$e_app" -a "$e_app" -lt "$e_rem" -a "$e_rem" -lt "$e_rep" \
	-a "$e_rep" -lt "$e_sta" -a "$e_sta" -lt "$e_run"
check "job $J replanned: placement $P1 -> $P2: a2 is unreachable" \
	event_is "job $J replanned" "$J" "placement $P1 -> $P2: a2 is unreachable"
check_jq "no restart, no failure of job $J" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J restarted\" or .what == \"job $J failed\")] | length == 0"
curl -s --max-time 5 "$CTRL_URL/metrics" >"$TMP/metrics.txt"
check "the move is counted (tbmesh_controller_job_replans_total 1)" \
	grep -qE '^tbmesh_controller_job_replans_total 1$' "$TMP/metrics.txt"

# --- replan auto with nothing left that fits: a3 lost too, only a1 ready
mlx_node_down a3
job_wait "$J" waiting 20
check "job $J waiting: no plan fits on a1 alone" test $? -eq 0
for p in $(mlx_pids a3); do kill -KILL "$p"; done
job_json "$J"
check_jq "with its placement's reason and the planner's" "$TMP/job.json" \
	"(.reason | startswith(\"placement $P2 is degraded: a3 is unreachable; no new placement: \"))
	and .placement == $P2 and .replans == 1"
jq -r .reason "$TMP/job.json" | sed 's/^/# waiting: /'
check_eq "no rank on a1" 0 "$(mlx_count a1)"
# a3 back: placement P2 is active again (placement_node_back), the job
# starts there again, no new placement needed
mlx_node_up a3
job_wait "$J" running 40
check "a3 back: job $J running again" test $? -eq 0
job_json "$J"
check_jq "on placement $P2 (a1 and a3) again, replans 1, restarts 0" "$TMP/job.json" \
	"([.ranks[].node] | sort) == [\"a1\", \"a3\"] and .restarts == 0 and .replans == 1 and
	.placement == $P2"
check_eq "placement $P2 active again" active "$(placement_state "$P2")"
events
check_jq "one event job $J waiting" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J waiting\")] | length == 1"
"$CTL" job stop "$J" >/dev/null
check_eq "job $J stopped" stopped "$(job_field "$J" .state)"

# --- replan never: a2 lost, the job waits
mlx_node_up a2
wait_for "a2 to be ready again" 30 node_is a2 ready
check_eq "a2 ready again" ready "$(node_state a2)"
P3=$(mlx_place a1,a2)
check "a tensor placement on a1, a2 ($P3)" test "$P3" -gt 0
J2=$("$CTL" run "$P3" --port "$PORT" --json | jq -r .id)
job_wait "$J2" running 20
check "job $J2 (replan never) running" test $? -eq 0
job_json "$J2"
w0=$(rank_pid 0)
mlx_node_down a2
job_wait "$J2" waiting 20
check "job $J2 waiting" test $? -eq 0
for p in $(mlx_pids a2); do kill -KILL "$p"; done
job_json "$J2"
check_jq "with the placement's reason, on placement $P3, restarts 0, replans 0" "$TMP/job.json" \
	"(.reason | startswith(\"placement $P3 is degraded: a2 is unreachable\")) and
	.placement == $P3 and .restarts == 0 and .replans == 0"
jq -r .reason "$TMP/job.json" | sed 's/^/# waiting: /'
check "its rank 0 ($w0, on a1) is gone" pid_gone "$w0"
curl -s --max-time 5 "$CTRL_URL/metrics" >"$TMP/metrics.txt"
check "the gauge counts it (tbmesh_controller_jobs{state=\"waiting\"} 1)" \
	grep -qxF 'tbmesh_controller_jobs{state="waiting"} 1' "$TMP/metrics.txt"
check_eq "no rank on a1" 0 "$(mlx_count a1)"
mlx_node_up a2
wait_for "a2 to be ready again" 30 node_is a2 ready
wait_for "placement $P3 active again" 20 placement_is "$P3" active
check_eq "a2 back: placement $P3 active again" active "$(placement_state "$P3")"
job_wait "$J2" running 30
check "so job $J2 runs again on its own" test $? -eq 0
job_json "$J2"
check_jq "generation 2, restarts 0, replans 0, still placement $P3" "$TMP/job.json" \
	".generation == 2 and .restarts == 0 and .replans == 0 and .placement == $P3"
events
check_jq "one event job $J2 waiting, one placement $P3 active again" "$TMP/events.json" \
	"([.events[] | select(.what == \"job $J2 waiting\" and .actor == \"job:$J2\")] | length == 1) and
	([.events[] | select(.what == \"placement $P3 active again\" and .node == \"a2\")] | length == 1)"
"$CTL" job stop "$J2" >/dev/null
job_wait "$J2" stopped 30
check "the operator's stop: stopped" test $? -eq 0
"$CTL" placement remove "$P3" >/dev/null

# --- replan never: a placement stale, then active again
A3=$(macnode_addr a3)
P4=$(mlx_place a1,a3)
check "a tensor placement on a1, a3 ($P4)" test "$P4" -gt 0
J3=$("$CTL" run "$P4" --port "$PORT" --replan never --json | jq -r .id)
job_wait "$J3" running 20
check "job $J3 running" test $? -eq 0
job_json "$J3"
s0=$(rank_pid 0) s1=$(rank_pid 1)
"$CTL" node ssh a3 --host "$A3" --port "$(macnode_port a3)" --user "$MACNODE_LOGIN-other" >/dev/null
wait_for "placement $P4 stale" 30 placement_is "$P4" stale
check_eq "a3's SSH user changed: placement $P4 stale" stale "$(placement_state "$P4")"
job_wait "$J3" waiting 10
check "job $J3 waiting" test $? -eq 0
job_json "$J3"
check_jq "placement $P4 is stale: ..., rank 1 on a3 not reached (its SSH user is wrong)" \
	"$TMP/job.json" "(.reason | startswith(\"placement $P4 is stale: \")) and
	(.reason | test(\"rank 1 on a3 not seen gone\")) and .restarts == 0"
jq -r .reason "$TMP/job.json" | sed 's/^/# waiting: /'
check "its rank 0 ($s0, on a1) is gone" pid_gone "$s0"
"$CTL" node ssh a3 --host "$A3" --port "$(macnode_port a3)" --user "$MACNODE_LOGIN" >/dev/null
wait_for "job $J3 running again" 40 sh -c \
	"$CTL job show $J3 --json | jq -e '.state == \"running\" and .generation == 2'"
check "placement $P4 active again: job $J3 running again" test $? -eq 0
job_json "$J3"
check_jq "generation 2, restarts 0, replans 0, same placement" "$TMP/job.json" \
	".generation == 2 and .restarts == 0 and .replans == 0 and .placement == $P4"
events
check "job $J3 starting: placement $P4 is active again" \
	event_is "job $J3 starting" "$J3" "placement $P4 is active again"
check_eq "one rank on a1, one on a3" "1 1" "$(mlx_count a1) $(mlx_count a3)"
check "rank 1 of generation 1 ($s1, on a3) was stopped by the new start" pid_gone "$s1"
"$CTL" job stop "$J3" >/dev/null
check_eq "no rank left" 0 "$(mlx_count a1 a2 a3)"

done_testing
