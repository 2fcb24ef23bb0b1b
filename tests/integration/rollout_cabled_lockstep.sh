#!/usr/bin/env bash
# A lockstep OS update of a cabled cluster (issue 16): three simulated Macs
# in a full mesh of Thunderbolt cables, every link passing, all updated in
# one window.  a2 takes longer to restart than the others, so a1 and a3
# verify while a2 still reports the old build: their links to a2 are
# os-skew, expected during the rollout (a2 is being updated), and pass
# verify.  The rollout finishes with every node on the target and every
# link passing again.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
rollout_setup lmesh3 a1 a2 a3 || { not_ok "setup"; done_testing; }
rollout_cable a1 a2 a3 || { not_ok "cabling"; done_testing; }
rollout_wiring_pass lmesh3 30 || { "$CTL" wiring check lmesh3; not_ok "cabled mesh passes"; done_testing; }
ok "the cabled mesh of three passes"
macnode_set a2 REBOOT_SECS 8

"$CTL" rollout start --cluster lmesh3 --target 26.3 --mode lockstep >/dev/null
id=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
deadline=$((SECONDS + 150))
while [ $SECONDS -lt $deadline ]; do
	rollout_json "$id"
	st=$(jq -r .state "$TMP/ro.json")
	if [ -z "${seen:-}" ] && jq_true "$TMP/ro.json" '(.nodes[] | select(.node == "a1") | .step == "uncordon" or .step == "done") and (.nodes[] | select(.node == "a2") | .step == "wait")'; then
		"$CTL" wiring check lmesh3 --json >"$TMP/mid.json"
		jq_true "$TMP/mid.json" '[.links[] | select(.verdict == "os-skew")] | length > 0' && seen=1
	fi
	[ "$st" = running ] || break
	sleep 0.2
done
check_eq "the lockstep update of the cabled mesh finished" finished "$st"
[ "$st" = finished ] || { cat "$TMP/ro.json"; "$CTL" wiring check lmesh3; }
check_eq "a1 passed verify while a2, restarting, still reported the old build" 1 "${seen:-0}"
check_jq "that link was os-skew, expected during rollout $id" "$TMP/mid.json" \
	"[.links[] | select(.verdict == \"os-skew\" and .expected_during_rollout == $id and ((.fix // \"\") | startswith(\"os-skew, expected during rollout $id: a1 (25D125) updated, a2 (25C56) updating\")))] | length == 1"
for n in a1 a2 a3; do
	check_eq "$n is on 25D125" 25D125 "$(macnode_build $n)"
	check_eq "$n installed the update once" 1 "$(macnode_installs $n)"
done
rollout_wiring_pass lmesh3 20
check "after the rollout every link passes again" test $? -eq 0
"$CTL" wiring check lmesh3 --json >"$TMP/after.json"
check_jq "and none is marked expected" "$TMP/after.json" '[.links[] | select(.expected_during_rollout != null)] | length == 0'
done_testing
