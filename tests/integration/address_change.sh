#!/usr/bin/env bash
# A Thunderbolt interface whose address changes.  Link-local addresses do
# not hold still: macOS self-assigns a 169.254/16 address when DHCP finds
# no server on a cable and it often comes back as another one after a
# link renegotiation (ml-explore/mlx issue 3467), and exo's
# io.exo.networksetup LaunchDaemon puts every Thunderbolt service back on
# DHCP every 1786 s, wiping static addresses (exo-explore/exo issue 2067;
# app/EXO/EXO/Services/NetworkSetupHelper.swift L14, L55).
#
# Two Macs with RDMA off, so a pipeline runs over TCP (MLX's ring backend)
# and the hostfile holds each rank's address on the cable; the cable's
# ends have the static /30 tbctl node add gives cable 0 (192.168.0.1 and
# .2, provision.h).  mac2's end goes back to a self-assigned address: an
# event on mac2 naming en2, old -> new and the fix (the static per-cable
# /30 of node add, and exo's daemon), the placement stale at once with the
# address change as its reason, both in tbctl, the change counted in
# /metrics.  Then mac1's interface flaps 10 times in 3 s: every change
# counted, one event at once, the rest summed up in one event once
# WMON_EVENT_GAP (60 s, controller/engine/wmon_gate.h) is over.
. "$(dirname "$0")/../lib/common.sh"
CTL=$BIN/tbctl
SC=$TMP/pair.json
STATIC='.defaults.rdma = false
	| .ports = [{"port": "mac1:1", "ipv4": ["192.168.0.1"]}, {"port": "mac2:1", "ipv4": ["192.168.0.2"]}]'
jq "$STATIC" "$TOP/tests/scenarios/pair-studio.json" >"$SC"
start_controller addr --catalog "$TOP/data/catalog.json" --unreachable-after 3600
for n in mac1 mac2; do start_sim_agent "$n" "$SC" --interval 0.3; done
wait_for "two nodes ready" 20 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\")] | length == 2'"
"$CTL" cluster create pair >/dev/null
"$CTL" cluster add pair mac1 mac2 >/dev/null

"$CTL" place glm-4.5:4bit --nodes mac1,mac2 --apply --json >"$TMP/p.json"
check_jq "a pipeline over TCP is applied, each rank's cable address in the hostfile" "$TMP/p.json" \
	'.state == "active" and .hostfile.backend == "ring" and .hostfile.hosts[0].ips == ["192.168.0.1"] and .hostfile.hosts[1].ips == ["192.168.0.2"]'
id=$(jq -r .id "$TMP/p.json")
addr_events() { "$CTL" events --json | jq "[.events[] | select(.what | startswith(\"address \"))]"; }
sleep 1.5
check_jq "no address event while nothing changes (a first report is none)" <(addr_events) 'length == 0'

# exo's daemon put mac2's Thunderbolt 1 (en2) back on DHCP: a self-assigned address
jq "$STATIC"' | .ports[1].ipv4 = ["169.254.7.9"]' "$TOP/tests/scenarios/pair-studio.json" >"$SC.new" && mv "$SC.new" "$SC"
wait_for "an address event" 20 sh -c "$CTL events --json | jq -e '[.events[] | select(.what | startswith(\"address \"))] | length == 1'"
"$CTL" events --json >"$TMP/ev.json"
check_jq "the event is mac2's, en2 old -> new, with the fix: node add's static /30, and exo's daemon" "$TMP/ev.json" \
	'[.events[] | select(.what | startswith("address "))][0] | .node == "mac2" and .actor == "controller" and
	 .what == "address en2 192.168.0.2 -> 169.254.7.9" and
	 .reason == "fix: a static /30 per cable (receptacle 1): tbctl node add HOST --cluster C [--ip-base A.B.0.0]; exo'"'"'s io.exo.networksetup resets Thunderbolt services to DHCP every 1786 s (sudo launchctl bootout system/io.exo.networksetup)"'
wait_for "the placement to become stale" 20 sh -c \
	"$CTL placement show $id --json | jq -e '.state == \"stale\"'"
"$CTL" placement show "$id" --json >"$TMP/s.json"
check_jq "stale, saying it was mac2's address change and what no longer matches" "$TMP/s.json" \
	'.reason | startswith("mac2'"'"'s address change en2 192.168.0.2 -> 169.254.7.9: its hostfile no longer matches: mac2'"'"'s address 192.168.0.2 is now 169.254.7.9 (tbctl placement replan")'
"$CTL" events --json >"$TMP/ev.json"
check_jq "its event says so too" "$TMP/ev.json" \
	"[.events[] | select(.what == \"placement $id stale\" and (.reason | contains(\"address change en2\")))] | length == 1"
# at once, by the check the change itself set off, not the next periodic one (every 10 s)
check_jq "the stale event comes before the next periodic check (10 s) would make it" "$TMP/ev.json" \
	"([.events[] | select(.what == \"placement $id stale\")][0].time) - ([.events[] | select(.what | startswith(\"address \"))][0].time) | . >= 0 and . < 5"
"$CTL" events >"$TMP/ev.txt"
check "tbctl events shows the address event" grep -q 'mac2  *address en2 192.168.0.2 -> 169.254.7.9  *fix: a static /30 per cable (receptacle 1): tbctl node add' "$TMP/ev.txt"
check "and the placement's" grep -q "placement $id stale  *mac2's address change en2" "$TMP/ev.txt"
"$CTL" placement show "$id" >"$TMP/show.txt"
check "tbctl placement show says stale and why" grep -q "stale.*mac2's address change en2 192.168.0.2 -> 169.254.7.9" "$TMP/show.txt"

metric() { curl -s --max-time 10 "$CTRL_URL/metrics" | sed -n "s/^tbmesh_wiring_address_changes_total{node=\"$1\",interface=\"$2\"} //p"; }
check_eq "the change is counted in /metrics" 1 "$(metric mac2 en2)"
if command -v promtool >/dev/null; then
	curl -s --max-time 10 "$CTRL_URL/metrics" >"$TMP/metrics.prom"
	check "promtool accepts the metrics" promtool check metrics <"$TMP/metrics.prom"
else
	echo "# promtool not installed: the format is not checked"
fi

# mac1's en2 flaps between its static address and a self-assigned one:
# the test sends mac1's reports from now on, 10 changes in 3 s
bg_stop "$(sim_agent_pid mac1)"
tok=$(cat "$TMP/state-mac1/node-token")
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/static.json"
jq '.thunderbolt.ports |= map(if .ipv4 == ["192.168.0.1"] then .ipv4 = ["169.254.3.4"] else . end)' \
	"$TMP/static.json" >"$TMP/apipa.json"
check "the two reports differ in mac1's en2 address" test "$(jq -c '[.thunderbolt.ports[].ipv4]' "$TMP/static.json")" != "$(jq -c '[.thunderbolt.ports[].ipv4]' "$TMP/apipa.json")"
send() {
	jq -c --argjson t "$(date +%s.%N)" '.collected_at = $t' "$1" >"$TMP/send.json"
	curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $tok" \
		-H 'Content-Type: application/json' --data-binary @"$TMP/send.json" "$CTRL_URL/v1/report"
}
mac1_events() { "$CTL" events --node mac1 --json | jq '[.events[] | select(.what | startswith("address "))] | length'; }
check_eq "mac1's last report was static" 204 "$(send "$TMP/static.json")"
sleep 0.5
before=$(mac1_events)
sent=0
for k in 1 2 3 4 5; do
	for f in apipa static; do
		[ "$(send "$TMP/$f.json")" = 204 ] && sent=$((sent + 1))
		sleep 0.3
	done
done
check_eq "ten reports taken" 10 "$sent"
wait_for "the ten changes counted" 10 sh -c "curl -s $CTRL_URL/metrics | grep -q '^tbmesh_wiring_address_changes_total{node=\"mac1\",interface=\"en2\"} 10\$'"
check_eq "every change counted" 10 "$(metric mac1 en2)"
sleep 1
during=$(( $(mac1_events) - before ))
"$CTL" events --node mac1 --json | jq -r '.events[] | select(.what | startswith("address ")) | .what + ": " + .reason' | sed 's/^/# /'
check_eq "one address event for 10 changes: the first, at once" 1 "$during"
# the nine held back, in one event once the gap is over (checked every 10 s)
wait_for "the changes held back summed up" 85 sh -c "$CTL events --node mac1 --json | jq -e '[.events[] | select(.what | startswith(\"address \"))] | length == 2'"
check_jq "in one event: from what the first said to where it ended, and how many" <("$CTL" events --node mac1 --json) \
	'[.events[] | select(.what | startswith("address "))] | .[0].what == "address en2 192.168.0.1 -> 169.254.3.4" and
	 .[1].what == "address en2 169.254.3.4 -> 192.168.0.1" and
	 (.[1].reason | startswith("8 earlier changes not logged; fix: a static /30 per cable (receptacle 1): "))'
done_testing
