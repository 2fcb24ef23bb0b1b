#!/usr/bin/env bash
# kill -9 of the controller at every step boundary of a three-node rolling
# update: the controller is restarted again and again, each time killing
# itself right after it records one step boundary (TBMESH_TEST_CRASH_AFTER=1)
# or, every third time, right after a step ran and before its end is
# recorded (TBMESH_TEST_CRASH_MIDSTEP=1).  The campaign still ends with every
# node on the target, installed exactly once, every step recorded once, and
# never more than one node out of service.  A placement on mac2 is drained
# once and restored once, however often the controller died in between.
# The three Macs are cabled in a full mesh (rollout_cable): each verify
# meets os-skew toward the nodes not reached yet, expected, and passes.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
ROLLOUT_CTRL_OPTS="--boot-timeout 60 --catalog $TOP/data/catalog.json"
rollout_setup trio mac1 mac2 mac3 || { not_ok "setup"; done_testing; }
rollout_cable mac1 mac2 mac3 || { not_ok "cabling"; done_testing; }
rollout_wiring_pass trio 30 || { "$CTL" wiring check trio; not_ok "cabled mesh passes"; done_testing; }
pid2=$("$CTL" place llama-3.3-70b:4bit --nodes mac2 --apply --json | jq -r .id)
check "a placement on mac2 ($pid2)" test "$pid2" -gt 0
PORT=${CTRL_URL##*:}
OPTS=(--db "$CTRL_DB" --listen "127.0.0.1:$PORT" --admin-token-file "$ADMIN_TOKEN_FILE"
	--ssh-key "$MACNODE_KEY" --state-dir "$TMP/ctl-state" --boot-timeout 60 --ssh-timeout 5
	--ssh-command-timeout 20 --install-timeout 60 --catalog "$TOP/data/catalog.json")

"$CTL" rollout start --cluster trio --target 26.3 --mode rolling >/dev/null
kill -KILL "$CTRL_PID"; bg_forget "$CTRL_PID"; builtin wait "$CTRL_PID" 2>/dev/null

# The inventory is read only while no controller runs; during a run its log
# says when the rollout finished.
state() { sqlite3 "$CTRL_DB" "SELECT state FROM rollouts WHERE id = 1" 2>/dev/null; }
finished() { grep -q 'rollout-finished' "$log"; }
kills=0 clean=0
for ((k = 1; k <= 200; k++)); do
	[ "$(state)" = finished ] && break
	log=$TMP/ctl-run$k.log
	if ((k % 3)); then
		TBMESH_TEST_CRASH_AFTER=1 "$BIN/tbcontrollerd" "${OPTS[@]}" >"$log" 2>&1 &
	else
		TBMESH_TEST_CRASH_MIDSTEP=1 "$BIN/tbcontrollerd" "${OPTS[@]}" >"$log" 2>&1 &
	fi
	pid=$!
	deadline=$((SECONDS + 90))
	while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ] && ! finished; do
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"; builtin wait "$pid"; rc=$?
		[ "$rc" = 0 ] && clean=$((clean + 1))
		[ "$(state)" = finished ] || { not_ok "run $k neither crashed nor finished"; tail "$log"; break; }
	else
		builtin wait "$pid"; rc=$?
		[ "$rc" = 137 ] && kills=$((kills + 1))
		[ "$rc" = 137 ] || { not_ok "run $k exited with $rc"; tail "$log"; break; }
	fi
done
echo "# $kills kills, $((k - 1)) runs"
check_eq "the rollout finished" finished "$(state)"
[ "$(state)" = finished ] || sqlite3 "$CTRL_DB" "SELECT reason FROM rollouts; SELECT node, step, phase, status, substr(output, 1, 300) FROM rollout_log"
records=$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM rollout_log WHERE rollout_id = 1")
check_eq "every step of every node recorded once at its start and once at its end" 48 "$records"
check "the controller was killed at least once per boundary ($kills kills, $records boundaries)" \
	test "$kills" -ge "$((records - 1))"
check_eq "no step ended twice" 0 "$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM (SELECT node, step, phase, count(*) c FROM rollout_log GROUP BY node, step, phase HAVING c != 1)")"
for n in mac1 mac2 mac3; do
	check_eq "$n is on the target" 25D125 "$(macnode_build $n)"
	check_eq "$n installed it exactly once" 1 "$(macnode_installs $n)"
done
check_eq "the reboots did not overlap" "down up down up down up" \
	"$(cat "$TMP"/mac-*/state/reboots | sort -n -s -k1,1 | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//')"
check_eq "the placement was drained once" 1 \
	"$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM events WHERE what = 'placement $pid2 drained' AND node = 'mac2'")"
check_eq "and restored once" 1 "$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM events WHERE what = 'placement $pid2 restored'")"
check_eq "it is active, no longer marked by the rollout" "active|" \
	"$(sqlite3 "$CTRL_DB" "SELECT state, rollout_id FROM placements WHERE id = $pid2")"

# a clean start: every node ready again.  An agent whose controller was
# away backs off up to PUSH_BACKOFF_MAX (60 s, agent/push.h) between tries,
# and the controller was away for most of the campaign: its next report
# may be that far off.
bg_start "$TMP/ctl-final.log" "$BIN/tbcontrollerd" "${OPTS[@]}"
wait_for "controller" 10 grep -q 'listening on' "$TMP/ctl-final.log"
wait_for "three ready nodes" 90 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\" and .os_build == \"25D125\")] | length == 3'"
"$CTL" nodes --json >"$TMP/final-nodes.json"
check_jq "the three nodes are ready on 25D125, uncordoned" "$TMP/final-nodes.json" \
	'[.nodes[] | select(.state == "ready" and .os_build == "25D125")] | length == 3' 
done_testing
