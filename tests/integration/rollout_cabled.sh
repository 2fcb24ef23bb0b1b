#!/usr/bin/env bash
# OS updates of a cabled cluster (issue 16): three simulated Macs in a full
# mesh of Thunderbolt cables, every link passing.  While a rollout runs, a
# link between a node it has updated and one it has not reached yet is
# os-skew, and expected: verify passes it, `tbctl wiring check` and the API
# say "os-skew, expected during rollout N" (expected_during_rollout: N).  A
# rolling update (one node at a time) finishes, every node on the target,
# the links passing again; after the rollout no link is expected any more.
# Lockstep: rollout_cabled_lockstep.sh.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
rollout_setup mesh3 a1 a2 a3 || { not_ok "setup"; done_testing; }
rollout_cable a1 a2 a3 || { not_ok "cabling"; done_testing; }
rollout_wiring_pass mesh3 30 || { "$CTL" wiring check mesh3; not_ok "cabled mesh passes"; done_testing; }
ok "the cabled mesh of three passes"

# rolling, one node at a time
"$CTL" rollout start --cluster mesh3 --target 26.3 --mode rolling --max-unavailable 1 >/dev/null
id=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
deadline=$((SECONDS + 150))
while [ $SECONDS -lt $deadline ]; do
	rollout_json "$id"
	st=$(jq -r .state "$TMP/ro.json")
	if [ -z "${seen:-}" ] && jq_true "$TMP/ro.json" '(.nodes[] | select(.node == "a1") | .step == "done") and (.nodes[] | select(.node == "a3") | .step == "pending")'; then
		"$CTL" wiring check mesh3 --json >"$TMP/mid.json"
		"$CTL" wiring check mesh3 >"$TMP/mid.txt"
		jq_true "$TMP/mid.json" '[.links[] | select(.verdict == "os-skew")] | length > 0' && seen=1
	fi
	[ "$st" = running ] || break
	sleep 0.2
done
check_eq "the rolling update of the cabled mesh finished" finished "$st"
[ "$st" = finished ] || { cat "$TMP/ro.json"; "$CTL" wiring check mesh3; }
check_eq "mid-rollout, a1 (updated) and a3 (not yet) were on different builds" 1 "${seen:-0}"
check_jq "the API said a1--a3 is os-skew expected during rollout $id" "$TMP/mid.json" \
	"[.links[] | select(.id | test(\"a1.*--a3\")) | select(.verdict == \"os-skew\" and .expected_during_rollout == $id and .pass == false)] | length == 1"
check_jq "with the fix saying so" "$TMP/mid.json" \
	"[.links[] | select((.fix // \"\") | startswith(\"os-skew, expected during rollout $id: a1 (25D125) updated, a3 (25C56) not updated yet\"))] | length == 1"
check "tbctl wiring check shows it" grep -q "os-skew, expected during rollout $id" "$TMP/mid.txt"
check_jq "no link between two nodes on the same build was expected" "$TMP/mid.json" \
	'[.links[] | select(.verdict != "os-skew" and .expected_during_rollout != null)] | length == 0'
for n in a1 a2 a3; do
	check_eq "$n is on 25D125" 25D125 "$(macnode_build $n)"
done
rollout_wiring_pass mesh3 20
check "after the rollout every link passes again" test $? -eq 0
"$CTL" wiring check mesh3 --json >"$TMP/after.json"
check_jq "and none is marked expected" "$TMP/after.json" '[.links[] | select(.expected_during_rollout != null)] | length == 0'

done_testing
