#!/usr/bin/env bash
# A flapping cable does not flood the event log: mac1's reports alternate
# between its cable at 80 Gb/s (the link passes) and at 40 Gb/s (degraded)
# three times a second for 12 s, each a wiring change the controller
# checks.  The link makes one event (the first change, at once) and the
# cluster verdict one; the changes after are held for WMON_EVENT_GAP
# (controller/engine/wmon_gate.h) and summed up in one event when it is over.
# Before the gate, each change was two events.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/pair-studio.json
start_controller flap --unreachable-after 3600
for n in mac1 mac2; do start_sim_agent "$n" "$SC" --interval 0.5; done
wait_for "two nodes" 20 sh -c "$BIN/tbctl nodes --json | jq -e '.nodes | length == 2'"
"$BIN/tbctl" cluster create pair >/dev/null
"$BIN/tbctl" cluster add pair mac1 mac2 >/dev/null
wait_for "the pair's link to pass" 20 sh -c "$BIN/tbctl wiring check pair --json | jq -e '.links[0].pass'"
# mac1's own reports stop; the test sends them from now on
bg_stop "$(sim_agent_pid mac1)"
tok=$(cat "$TMP/state-mac1/node-token")
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/fast.json"
jq -c '.thunderbolt.ports |= map(if .speed_gbps == 80 then .speed_gbps = 40 else . end)' \
	"$TMP/fast.json" >"$TMP/slow.json"
check "the slow report differs" test "$(jq -c . "$TMP/fast.json")" != "$(cat "$TMP/slow.json")"
wevents() { "$BIN/tbctl" events --json | jq '[.events[] | select(.what | startswith("wiring"))] | length'; }
before=$(wevents)
send() {
	jq -c --argjson t "$(date +%s.%N)" '.collected_at = $t' "$1" >"$TMP/send.json"
	curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok" \
		-H 'Content-Type: application/json' --data-binary @"$TMP/send.json" "$CTRL_URL/v1/report"
}
sent=0 flips=0 seen=
end=$((SECONDS + 12))
while [ $SECONDS -lt $end ]; do
	for f in slow fast; do
		[ "$(send "$TMP/$f.json")" = 204 ] && sent=$((sent + 1))
		sleep 0.3
		v=$("$BIN/tbctl" wiring check pair --json | jq -r '.links[0].verdict')
		[ "$v" != "$seen" ] && flips=$((flips + 1)) && seen=$v
	done
done
echo "# $sent reports, the link's verdict seen changing $flips times"
check "the reports were taken" test "$sent" -ge 20
check "the link flapped (seen changing at least 10 times)" test "$flips" -ge 10
after=$(wevents)
"$BIN/tbctl" events --json | jq -r '.events[] | select(.what | startswith("wiring")) | .what + ": " + .reason' | sed 's/^/# /'
check "at most two wiring events in 12 s of flapping (the link's first change, the cluster's): $((after - before))" \
	test "$((after - before))" -le 2 -a "$((after - before))" -ge 1
done_testing
