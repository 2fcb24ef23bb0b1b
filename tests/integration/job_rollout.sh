#!/usr/bin/env bash
# A rollout across a running job (issue 20): two simulated Macs running the
# fake MLX runtime (tests/fakemac/mlx/python3), a job on a tensor
# placement over both, a rolling OS update to a new build:
#   - the first node's drain marks the placement degraded; the job runner
#     stops the job (waiting, its reason naming the rollout) and the drain
#     step waits for it: when the first node's `softwareupdate --install`
#     runs, no rank is alive on either node (the install restarts the Mac:
#     a rank left would be cut off mid-collective, and its peer would spin,
#     MLX issue 4278); the drain's output and an event say "job J stopped
#     for the update";
#   - while the rollout runs, no rank runs anywhere;
#   - the rollout finishes, the placement is restored, and the job starts
#     again by itself: running, its endpoint answering, a new generation,
#     restarts 0 (an update is no failure), new pids, the old ones gone;
#   - the events in order: a1 cordoned, placement drained, job waiting, job
#     stopped for the update, (a1's install, by the watch's clock), a1 ready
#     again, rollout finished, placement restored, job starting, job running;
#   - again to a newer build with every rank ignoring SIGTERM (MLX issue
#     3910): the stop ends with SIGKILL after the runner's grace (10 s,
#     JOB_STOP_GRACE), and the install still comes after it;
#   - lockstep: the first drain stops the job, before any node installs;
#   - a job the runner cannot stop (its node's host key changed): the drain
#     step fails after its bound, the rollout halts, a1 stays cordoned and
#     nothing is downloaded or installed.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
mlx_setup upd a1 a2 || { not_ok "setup"; done_testing; }
rollout_creds upd || { not_ok "update credentials"; done_testing; }
mlx_install_watch a1 a2 || { not_ok "watching the installs"; done_testing; }
A1=$(macnode_addr a1)
PORT=$(macnode_free_port "$A1")
P=$(mlx_place a1,a2)
check "a tensor placement on a1, a2 ($P)" test "$P" -gt 0
GRACE=10    # JOB_STOP_GRACE (controller/run/job_env.h)

pids() { job_json "$1"; jq -r '[.ranks[].pid] | join(" ")' "$TMP/job.json"; }
events() { "$CTL" events --json >"$TMP/events.json"; }
# ev_id WHAT [AFTER]: the id of the first event WHAT (after event id AFTER), or 0
ev_id() {
	jq -r --arg w "$1" --argjson a "${2:-0}" \
		'[.events[] | select(.what == $w and .id > $a) | .id] | min // 0' "$TMP/events.json"
}
# show_events AFTER: the events after id AFTER, one a line (for a failure)
show_events() {
	jq -r --argjson a "$1" '.events[] | select(.id > $a) | "# \(.id) \(.time) \(.actor) \(.node // "-") \(.what): \(.reason)"' \
		"$TMP/events.json" | cut -c 1-300
}
# show_rank_logs: the last lines of every rank's log (for a failure)
show_rank_logs() {
	local f
	find "$TMP"/mac-*/home -name 'rank*.log' 2>/dev/null | while IFS= read -r f; do
		echo "# == $f"
		tail -n 12 "$f" | cut -c 1-250 | sed 's/^/# /'
	done
}
ev_time() { jq -r --argjson i "$1" '.events[] | select(.id == $i) | .time' "$TMP/events.json"; }
completion() {
	curl -s -o "$TMP/c.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
		--data-binary '{"prompt": "hello", "max_tokens": 1}' "$1/v1/completions"
}

# rollout_across TARGET [MODE]: a rollout of upd to TARGET (rolling, one node
# at a time, unless MODE is lockstep), watched until it
# ends: ROLL (its id), ROLL_STATE, WAITING_JSON (the job when first seen
# waiting), RANKS_DURING (the most ranks seen alive while a node of the
# rollout was past its drain and the rollout not finished)
rollout_across() {
	local deadline st out n mode=(--mode rolling --max-unavailable 1)
	[ "${2:-}" = lockstep ] && mode=(--mode lockstep)
	"$CTL" rollout start --cluster upd --target "$1" "${mode[@]}" \
		>"$TMP/start.txt" || { cat "$TMP/start.txt"; return 1; }
	ROLL=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
	ROLL_STATE='' WAITING_JSON='' RANKS_DURING=0
	rm -f "$TMP/waiting.json"
	deadline=$((SECONDS + 240))
	while [ $SECONDS -lt $deadline ]; do
		rollout_json "$ROLL"
		st=$(jq -r .state "$TMP/ro.json")
		[ "$st" = running ] || break
		if [ ! -e "$TMP/waiting.json" ] && "$CTL" job show "$J" --json >"$TMP/poll.json" 2>/dev/null &&
			jq_true "$TMP/poll.json" '.state == "waiting"'; then
			cp "$TMP/poll.json" "$TMP/waiting.json"
		fi
		# past a drain: download, install, wait, verify, uncordon, done
		out=$(jq '[.nodes[] | select(.step as $s | ["download", "install", "wait", "verify", "uncordon", "done"] | index($s))] | length' "$TMP/ro.json")
		if [ "$out" -gt 0 ]; then
			n=$(mlx_count a1 a2)
			# counted while the rollout still ran (its end restarts the job)
			rollout_json "$ROLL"
			[ "$(jq -r .state "$TMP/ro.json")" = running ] && [ "$n" -gt "$RANKS_DURING" ] &&
				RANKS_DURING=$n
		fi
		sleep 0.2
	done
	ROLL_STATE=$st
	[ -e "$TMP/waiting.json" ] && WAITING_JSON=$TMP/waiting.json
	[ "$st" = finished ] || { cat "$TMP/ro.json"; "$CTL" job show "$J"; }
	return 0
}

# --- a job running on both nodes
J=$("$CTL" run "$P" --port "$PORT" --json | jq -r .id)
job_wait "$J" running 20
check "job $J running" test $? -eq 0
read -r old0 old1 <<<"$(pids "$J")"
gen0=$(jq -r .generation "$TMP/job.json")
EP=$(jq -r .endpoint "$TMP/job.json")
check_eq "one rank on each node" "1 1" "$(mlx_count a1) $(mlx_count a2)"

# --- a rolling rollout to 26.3
rollout_across 26.3 || { not_ok "rollout start"; done_testing; }
id=$ROLL
check_eq "rollout $id finished" finished "$ROLL_STATE"
for n in a1 a2; do
	check_eq "$n is on 25D125" 25D125 "$(macnode_build "$n")"
	check_eq "$n installed once, with no rank alive on either node at that moment" \
		"ranks=0" "$(awk '{print $2}' "$TMP/mac-$n/install-ranks" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
done
check_eq "no rank ran while the rollout updated the nodes" 0 "$RANKS_DURING"
check "the job was seen waiting during the rollout" test -n "$WAITING_JSON"
[ -n "$WAITING_JSON" ] || sed 's/^/# /' "$TMP/poll.json" | head -c 2000
check_jq "waiting: its reason names rollout $id, every rank seen gone" "${WAITING_JSON:-/dev/null}" \
	"(.reason | test(\"rollout $id\")) and all(.ranks[]; .alive != true)"
check "the old rank 0 ($old0) is gone" pid_gone "$old0"
check "the old rank 1 ($old1) is gone" pid_gone "$old1"
check "the drain step's output names the job" sh -c \
	"sqlite3 '$CTRL_DB' \"SELECT output FROM rollout_log WHERE rollout_id = $id AND node = 'a1' AND step = 'drain' AND phase = 'end'\" | grep -q 'drained placement $P of a1.*job $J stopped for the update (2 ranks gone)'"

# --- the rollout's end restarts it
job_wait "$J" running 30
check "job $J running again after the rollout" test $? -eq 0
job_json "$J"
cp "$TMP/job.json" "$TMP/after.json"
check_jq "a new generation, no restart counted" "$TMP/after.json" \
	".generation > $gen0 and .restarts == 0 and .state == \"running\""
read -r new0 new1 <<<"$(jq -r '[.ranks[].pid] | join(" ")' "$TMP/after.json")"
check "new pids ($new0 $new1)" test "$new0" != "$old0" -a "$new1" != "$old1"
check_eq "one rank on each node again" "$new0 $new1" "$(mlx_pids a1) $(mlx_pids a2)"
check_eq "the endpoint answers a completion" 200 "$(completion "$EP")"

events
e_cord=$(jq -r --arg r "rollout $id" '[.events[] | select(.node == "a1" and .what == "state ready -> cordoned" and (.reason | contains($r))) | .id] | min // 0' "$TMP/events.json")
e_drain=$(ev_id "placement $P drained" "$e_cord")
e_wait=$(ev_id "job $J waiting" "$e_drain")
e_held=$(ev_id "job $J stopped for the update" "$e_wait")
e_up=$(jq -r --argjson a "$e_held" '[.events[] | select(.node == "a1" and .id > $a and .what == "state cordoned -> ready") | .id] | min // 0' "$TMP/events.json")
e_fin=$(ev_id rollout-finished "$e_up")
e_rest=$(ev_id "placement $P restored" "$e_fin")
e_start=$(ev_id "job $J starting" "$e_rest")
e_run=$(ev_id "job $J running" "$e_start")
check "events in order: a1 cordoned ($e_cord), placement drained ($e_drain), job waiting ($e_wait), stopped for the update ($e_held), a1 ready again ($e_up), rollout finished ($e_fin), placement restored ($e_rest), job starting ($e_start), running ($e_run)" \
	test "$e_cord" -gt 0 -a "$e_drain" -gt 0 -a "$e_wait" -gt 0 -a "$e_held" -gt 0 -a "$e_up" -gt 0 -a "$e_fin" -gt 0 -a "$e_rest" -gt 0 -a "$e_start" -gt 0 -a "$e_run" -gt 0
[ "$e_run" -gt 0 ] || show_events 0 | tail -n 40
t_inst=$(awk 'NR == 1 {print $1}' "$TMP/mac-a1/install-ranks" 2>/dev/null)
if [ "$e_held" -gt 0 ] && [ "$e_up" -gt 0 ] && [ -n "$t_inst" ]; then
	check "a1 installed ($t_inst) after the job was stopped ($(ev_time "$e_held")), before it was ready again" \
		jq -n -e --argjson i "$t_inst" --argjson h "$(ev_time "$e_held")" --argjson u "$(ev_time "$e_up")" '$h <= $i and $i <= $u'
else
	not_ok "a1's install, the job's stop and a1's return are all known"
fi
check_jq "the stop's event is the rollout's, on a1, with the job's reason" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J stopped for the update\" and .actor == \"rollout:$id\" and .node == \"a1\" and (.reason | test(\"rollout $id\")))] | length == 1"
check_jq "the job was stopped once, not at a2's drain again" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J stopped for the update\")] | length == 1"
check_jq "no failure, no restart by policy" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J failed\" or .what == \"job $J restarted\" or .what == \"job $J hung\")] | length == 0"

# --- again, to 26.4, every rank ignoring SIGTERM: the stop needs SIGKILL
for n in a1 a2; do
	macnode_set "$n" NEW_VERSION 26.4
	macnode_set "$n" NEW_BUILD 25E5207k
done
mlx_fault a1 ignore-term
mlx_fault a2 ignore-term
sleep 0.5   # the fake reads its control files every 0.1 s
read -r old0 old1 <<<"$(pids "$J")"
gen1=$(jq -r .generation "$TMP/job.json")
rollout_across 26.4 || { not_ok "second rollout start"; done_testing; }
id2=$ROLL
check_eq "rollout $id2 finished" finished "$ROLL_STATE"
for n in a1 a2; do
	check_eq "$n is on 25E5207k" 25E5207k "$(macnode_build "$n")"
	check_eq "$n's second install came with no rank alive" "ranks=0 ranks=0" \
		"$(awk '{print $2}' "$TMP/mac-$n/install-ranks" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
done
check_eq "no rank ran while the second rollout updated the nodes" 0 "$RANKS_DURING"
check "the old rank 0 ($old0), deaf to SIGTERM, is gone" pid_gone "$old0"
check "the old rank 1 ($old1), deaf to SIGTERM, is gone" pid_gone "$old1"
events
e_drain=$(ev_id "placement $P drained" "$e_run")
check "rollout $id2 drained the placement again" test "$e_drain" -gt 0
e_held=$(ev_id "job $J stopped for the update" "$e_drain")
if [ "$e_drain" -gt 0 ] && [ "$e_held" -gt 0 ]; then
	took=$(jq -n --argjson a "$(ev_time "$e_drain")" --argjson b "$(ev_time "$e_held")" '$b - $a')
else
	took=0
fi
check "the stop took the grace at least: SIGKILL ended it ($took s after the drain)" \
	jq -n -e --argjson t "$took" "\$t >= $GRACE"
check "the drain step waited for it" sh -c \
	"sqlite3 '$CTRL_DB' \"SELECT output FROM rollout_log WHERE rollout_id = $id2 AND node = 'a1' AND step = 'drain' AND phase = 'end'\" | grep -q 'job $J stopped for the update'"
mlx_clear a1 a2
job_wait "$J" running 30
rc=$?
check "job $J running again after the second rollout" test $rc -eq 0
[ $rc -eq 0 ] || { events; show_events "$e_run"; show_rank_logs; }
job_json "$J"
check_jq "a new generation again, still no restart counted" "$TMP/job.json" \
	".generation > $gen1 and .restarts == 0"
check_eq "the endpoint answers a completion" 200 "$(completion "$EP")"

# --- lockstep to 26.5: the first drain stops every placement of the
# cluster, and so every job, before any node downloads or installs
new_build() { local n; for n in a1 a2; do macnode_set "$n" NEW_VERSION "$1"; macnode_set "$n" NEW_BUILD "$2"; done; }
new_build 26.5 25F71
read -r old0 old1 <<<"$(pids "$J")"
gen2=$(jq -r .generation "$TMP/job.json")
rollout_across 26.5 lockstep || { not_ok "lockstep rollout start"; done_testing; }
id3=$ROLL
check_eq "lockstep rollout $id3 finished" finished "$ROLL_STATE"
for n in a1 a2; do
	check_eq "$n is on 25F71" 25F71 "$(macnode_build "$n")"
	check_eq "$n's third install came with no rank alive" "ranks=0 ranks=0 ranks=0" \
		"$(awk '{print $2}' "$TMP/mac-$n/install-ranks" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
done
check_eq "no rank ran while the lockstep rollout updated the nodes" 0 "$RANKS_DURING"
check_jq "the job waited for the lockstep rollout, with its reason" "${WAITING_JSON:-/dev/null}" \
	"(.reason | test(\"rollout $id3 [(]lockstep[)]\")) and all(.ranks[]; .alive != true)"
check "the old rank 0 ($old0) is gone" pid_gone "$old0"
check "the old rank 1 ($old1) is gone" pid_gone "$old1"
events
check_jq "the lockstep stop is the rollout's event, on no one node" "$TMP/events.json" \
	"[.events[] | select(.what == \"job $J stopped for the update\" and .actor == \"rollout:$id3\" and (.node // \"\") == \"\")] | length == 1"
job_wait "$J" running 30
check "job $J running again after the lockstep rollout" test $? -eq 0
job_json "$J"
check_jq "a new generation, no restart counted" "$TMP/job.json" ".generation > $gen2 and .restarts == 0"
jq_true "$TMP/job.json" '.restarts == 0' || { events; show_events "$e_run"; }

# --- a job the runner cannot stop (a2's host key changed: the controller
# refuses to talk to it, so rank 1 cannot be stopped nor seen gone): the
# drain step fails after its bound (30 s + 15 s a rank), the rollout halts
# and a1 stays cordoned, nothing downloaded or installed
new_build 26.6 25G5
inst=$(macnode_installs a1)
dl=$(grep -c -- '--download' "$(macnode_log a1)")
macnode_fault a2 hostkey-changed
"$CTL" rollout start --cluster upd --target 26.6 --mode rolling --max-unavailable 1 >/dev/null
id4=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
t0=$SECONDS
rollout_wait "$id4" 150 halted
check "rollout $id4 halted ($((SECONDS - t0)) s)" test $? -eq 0
rollout_json "$id4"
check_jq "at a1's drain, naming the job and its rank left" "$TMP/ro.json" \
	".nodes[] | select(.node == \"a1\") | .step == \"failed\" and .failed_step == \"drain\" and (.reason | test(\"job $J is [a-z]+ and its rank 1 [(]pid [0-9]+ on a2[)] (is alive|was not seen gone)\")) and (.reason | test(\"the update would cut its ranks off\"))"
[ "$(jq -r '.nodes[] | select(.node == "a1") | .failed_step' "$TMP/ro.json")" = drain ] || sed 's/^/# /' "$TMP/ro.json" | head -c 3000
check "the drain waited its bound first (>= 60 s: 30 + 2 ranks x 15)" test $((SECONDS - t0)) -ge 60
check_eq "a1 downloaded nothing more" "$dl" "$(grep -c -- '--download' "$(macnode_log a1)")"
check_eq "a1 installed nothing more" "$inst" "$(macnode_installs a1)"
check_eq "a1 is still on 25F71" 25F71 "$(macnode_build a1)"
"$CTL" nodes --json >"$TMP/nodes.json"
check_jq "a1 stays cordoned with the reason" "$TMP/nodes.json" \
	".nodes[] | select(.name == \"a1\") | .state == \"cordoned\" and (.reason | test(\"rollout $id4 failed at drain\"))"
done_testing
