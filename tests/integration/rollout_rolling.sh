#!/usr/bin/env bash
# A four-node rolling OS update over real SSH (one OpenSSH sshd per
# simulated Mac on 127.0.0.2-5): every node ends on the target build, never
# more than one node out of service at a time, each installed exactly once
# with the password on standard input, every step recorded; a node cordoned
# before the rollout stays cordoned; a second rollout skips every node.
# Placements: the one on mac2 is drained (marked degraded, memory kept) at
# mac2's drain step and restored when the rollout finishes; the one on mac3,
# cordoned before and so not ready at the end, stays degraded with the
# reason; while builds differ, tbctl place refuses RDMA across builds.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
ROLLOUT_CTRL_OPTS="--catalog $TOP/data/catalog.json"
rollout_setup studio4 mac1 mac2 mac3 mac4 || { not_ok "setup"; done_testing; }
p2=$("$CTL" place llama-3.3-70b:4bit --nodes mac2 --apply --json | jq -r .id)
p3=$("$CTL" place llama-3.3-70b:4bit --nodes mac3 --apply --json | jq -r .id)
check "two placements applied (mac2: $p2, mac3: $p3)" test "$p2" -gt 0 -a "$p3" -gt 0
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
	# mac1 updated, mac4 not yet: no RDMA peers across the two builds
	if [ -z "${mixed:-}" ] && jq_true "$TMP/ro.json" '(.nodes[] | select(.node == "mac1") | .step == "done") and (.nodes[] | select(.node == "mac4") | .step == "pending")' &&
		"$CTL" nodes --json | jq_true - '.nodes[] | select(.name == "mac1") | .os_build == "25D125"'; then
		"$CTL" place llama-3.3-70b:4bit --strategy tensor --nodes mac1,mac4 >/dev/null 2>"$TMP/mixed.err"
		mixed=$?
		"$CTL" place glm-4.5-air:4bit --nodes mac1,mac4 --strategy pipeline --json >"$TMP/mixed.json" 2>&1
	fi
	st=$(jq -r .state "$TMP/ro.json")
	[ "$st" = running ] || break
	sleep 0.2
done
check_eq "the rollout finished" finished "$st"
[ "$st" = finished ] || cat "$TMP/ro.json"
check_eq "never more than one node out of service" 1 "$maxout"
check_eq "while builds differed, tensor across them was refused" 1 "${mixed:-unseen}"
check "saying why" grep -q "mac1 runs 25D125, mac4 25C56: RDMA peers need matching builds during the rollout" "$TMP/mixed.err"
check "pipeline across them is not over RDMA either" grep -q "pipeline needs the 2 nodes linked in a ring\|\"backend\": *\"ring\"" "$TMP/mixed.json"
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
check_jq "mac2's placement was drained at its drain step, with an event" "$TMP/ev.json" \
	"[.events[] | select(.what == \"placement $p2 drained\" and .node == \"mac2\" and (.reason | startswith(\"drained by rollout $id: mac2 updates to 26.3\")))] | length == 1"
check_jq "and restored when the rollout finished" "$TMP/ev.json" \
	"[.events[] | select(.what == \"placement $p2 restored\")] | length == 1"
check_jq "mac3's was drained too, and not restored: mac3 is still cordoned" "$TMP/ev.json" \
	"([.events[] | select(.what == \"placement $p3 drained\")] | length == 1) and ([.events[] | select(.what == \"placement $p3 not restored\" and (.reason | contains(\"mac3 is cordoned\")))] | length == 1)"
check "the drain step's output names the placement" sh -c \
	"sqlite3 '$CTRL_DB' \"SELECT output FROM rollout_log WHERE rollout_id = $id AND node = 'mac2' AND step = 'drain' AND phase = 'end'\" | grep -q 'drained placement $p2 of mac2'"
"$CTL" placements --json >"$TMP/pl.json"
check_jq "mac2's placement is active again" "$TMP/pl.json" ".placements[] | select(.id == $p2) | .state == \"active\" and .reason == \"\""
check_jq "mac3's is degraded with the reason" "$TMP/pl.json" \
	".placements[] | select(.id == $p3) | .state == \"degraded\" and (.reason | contains(\"not restored after rollout $id (finished): mac3 is cordoned\"))"
check_eq "no placement is left marked by the rollout" 0 "$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM placements WHERE rollout_id IS NOT NULL")"

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
