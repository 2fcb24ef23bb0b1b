#!/usr/bin/env bash
# A four-node rolling OS update over real SSH (one OpenSSH sshd per
# simulated Mac on 127.0.0.2-5): every node ends on the target build, never
# more than one node out of service at a time, each installed exactly once
# with the password on standard input, every step recorded; a node cordoned
# before the rollout stays cordoned; a second rollout skips every node.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
rollout_setup studio4 mac1 mac2 mac3 mac4 || { not_ok "setup"; done_testing; }
"$CTL" node cordon mac3 --reason "kept for an experiment" >/dev/null

"$CTL" rollout start --cluster studio4 --target 26.3 --mode rolling --max-unavailable 1 \
	>"$TMP/start.txt"; rc=$?
check_eq "rollout start succeeds" 0 $rc
id=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
check "rollout start prints the rollout and its nodes" grep -q '^mac4 ' "$TMP/start.txt"

# Watch: at most one node out of service (cordoned by the rollout, or down
# restarting) at any time.
maxout=0
deadline=$((SECONDS + 150))
while [ $SECONDS -lt $deadline ]; do
	rollout_json "$id"
	out=$(jq '[.nodes[] | select(.step != "pending" and .step != "done" and .step != "skipped")] | length' "$TMP/ro.json")
	down=0
	for n in mac1 mac2 mac3 mac4; do [ -e "$(macnode_dir $n)/rebooting" ] && down=$((down + 1)); done
	[ "$out" -gt "$maxout" ] && maxout=$out
	[ "$down" -gt "$maxout" ] && maxout=$down
	st=$(jq -r .state "$TMP/ro.json")
	[ "$st" = running ] || break
	sleep 0.2
done
check_eq "the rollout finished" finished "$st"
[ "$st" = finished ] || cat "$TMP/ro.json"
check_eq "never more than one node out of service" 1 "$maxout"
for n in mac1 mac2 mac3 mac4; do
	check_eq "$n is on 25D125" 25D125 "$(macnode_build $n)"
	check_eq "$n installed the update once" 1 "$(macnode_installs $n)"
	check "$n's install got the password on stdin, not in argv" \
		grep -q -- "--install macOS Tahoe 26.3-25D125 --restart --agree-to-license --no-scan --user admin --stdinpass" "$(macnode_log $n)"
done
check_eq "the reboots did not overlap (down/up pairs in order)" "down up down up down up down up" \
	"$(cat "$(macnode_dir mac1)/reboots" "$(macnode_dir mac2)/reboots" "$(macnode_dir mac3)/reboots" "$(macnode_dir mac4)/reboots" | sort -n -s -k1,1 | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//')"
"$CTL" nodes --json >"$TMP/nodes.json"
check_jq "mac1, mac2, mac4 are ready again on 25D125" "$TMP/nodes.json" \
	'[.nodes[] | select(.name != "mac3" and .state == "ready" and .os_build == "25D125")] | length == 3'
check_jq "mac3, cordoned before, stays cordoned with its reason" "$TMP/nodes.json" \
	'.nodes[] | select(.name == "mac3") | .state == "cordoned" and .reason == "kept for an experiment"'
check_eq "every step's start and end is in the log (4 nodes x 8 steps x 2)" 64 \
	"$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM rollout_log WHERE rollout_id = $id")"
check_eq "each step ran once per node" 0 \
	"$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM (SELECT node, step, count(*) c FROM rollout_log WHERE rollout_id = $id AND phase = 'end' GROUP BY node, step HAVING c != 1)")"
"$CTL" rollout status "$id" >"$TMP/status.txt"
check "rollout status shows each node's step" grep -q '^mac2 *done' "$TMP/status.txt"
check "and the last output line" grep -q 'RDMA enabled, links pass\|uncordoned' "$TMP/status.txt"
"$CTL" events --json >"$TMP/ev.json"
check_jq "the finish is an event" "$TMP/ev.json" '[.events[] | select(.what == "rollout-finished")] | length == 1'

# everything at the target: a new rollout skips every node
"$CTL" rollout start --cluster studio4 --target 26.3 --mode rolling >/dev/null
id2=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
rollout_wait "$id2" 30 finished
rollout_json "$id2"
check_jq "a second rollout skips the nodes at the target" "$TMP/ro.json" \
	'[.nodes[] | select(.step == "skipped")] | length == 4'
for n in mac1 mac2 mac3 mac4; do
	check_eq "$n was not installed again" 1 "$(macnode_installs $n)"
done
done_testing
