#!/usr/bin/env bash
# Wiring validation end to end: simulated Mac Studios report to
# tbcontrollerd, and `tbctl wiring check --json` gives every verdict of
# DESIGN.md as the scenario file under the agents is swapped for a faulty
# one; exit status 0/1/2; a verdict change is an event; /metrics has one
# gauge per expected link (promtool-checked); cabling plans are proposed,
# saved, exported and imported as DOT; bad input is refused with 4xx and
# changes nothing.  Then a ring of five and a seven-node mesh.
. "$(dirname "$0")/../lib/common.sh"
SCN=$TOP/tests/scenarios
CTL=$BIN/tbctl
LIVE=$TMP/live.json

# use SCENARIO: the agents read this scenario from their next collection on.
use() { cp "$SCN/$1" "$LIVE.tmp" && mv "$LIVE.tmp" "$LIVE"; }
# wjson CLUSTER: the check's JSON into $TMP/w.json; prints tbctl's status.
wjson() { "$CTL" wiring check "$1" --json >"$TMP/w.json" 2>"$TMP/w.err"; echo $?; }
# until_jq WHAT CLUSTER FILTER: wait until the check satisfies FILTER.
until_jq() {
	wait_for "$1" 20 sh -c "$CTL wiring check $2 --json 2>/dev/null | jq -e '$3'"
	check "$1" test $? -eq 0
	wjson "$2" >/dev/null
}
link() { echo "[.links[] | select(.a.node == \"$1\" and .b.node == \"$2\")][0]"; }

start_controller ctl --unreachable-after 3
use mesh4-studio.json
for n in mac1 mac2 mac3 mac4; do start_sim_agent "$n" "$LIVE" --interval 0.5; done
wait_for "four nodes" 20 sh -c "$CTL nodes --json | jq -e '.nodes | length == 4'"
"$CTL" cluster create studio4 >/dev/null
"$CTL" cluster add studio4 mac1 mac2 mac3 mac4 >/dev/null

# healthy: a full mesh of four
until_jq "mesh4: six links pass" studio4 '.verdict == "tensor-ready" and ([.links[] | select(.pass)] | length) == 6'
check_eq "tbctl wiring check exits 0 when every link passes" 0 "$(wjson studio4)"
check_jq "the contract's fields" "$TMP/w.json" '.cluster == "studio4" and .topology == "mesh" and
	(.checked_at | type) == "number" and .verdict_text == "tensor-parallel ready: full RDMA mesh of 4" and
	.nodes == ["mac1","mac2","mac3","mac4"] and .unexpected == [] and .reasons == []'
check_jq "a link's ends carry receptacle, interface, RDMA device and IPv4" "$TMP/w.json" "$(link mac1 mac3) |
	.id == \"mac1:2--mac3:1\" and .a.receptacle == \"2\" and .a.interface == \"en3\" and
	.a.rdma_device == \"rdma_en3\" and (.a.ipv4 | startswith(\"169.254.\")) and .b.rdma_device == \"rdma_en2\" and
	.speed_gbps == 80 and .verdict == \"pass\" and .problems == [] and .fix == null and
	.expected == \"mac1 -- mac3\" and .actual == \"mac1 tb2 -- mac3 tb1 at 80 Gb/s\" and
	(.evidence.a | contains(\"rdma_en3 active\"))"
"$CTL" wiring check studio4 >"$TMP/table.txt"; rc=$?
check_eq "the table exits 0 too" 0 $rc
check "the table has a header like ptmctl's" grep -q '^LINK  *VERDICT  *EXPECTED  *ACTUAL  *GB/S  *FIX' "$TMP/table.txt"
check "and the cluster's verdict" grep -q 'tensor-parallel ready: full RDMA mesh of 4' "$TMP/table.txt"

# metrics: one gauge per expected link, from the wmon thread's pass after
# the cluster was filled (it may come just after the on-demand check above)
for _ in $(seq 50); do
	curl -s "$CTRL_URL/metrics" >"$TMP/metrics.txt"
	[ "$(grep -c '^tbmesh_wiring_link_pass{cluster="studio4"' "$TMP/metrics.txt")" = 6 ] && break
	sleep 0.2
done
check_eq "six link gauges" 6 "$(grep -c '^tbmesh_wiring_link_pass{cluster="studio4"' "$TMP/metrics.txt")"
check "a passing link is 1 with its verdict" grep -q '^tbmesh_wiring_link_pass{cluster="studio4",link="mac1 -- mac3",a="mac1",b="mac3",verdict="pass"} 1$' "$TMP/metrics.txt"
check "promtool accepts /metrics" sh -c "promtool check metrics <'$TMP/metrics.txt'"

# each fault: its verdict, its fix, exit status 1
fault() {  # SCENARIO A B VERDICT FIX-SUBSTRING
	use "$1"
	# every agent on the new scenario: no link left with the previous one's
	# verdict, and both ends of the link reporting it (the fix names the end
	# at fault, which only the later of the two reports tells)
	until_jq "$1: $2--$3 is $4" studio4 "($(link "$2" "$3") | .verdict == \"$4\" and .pass == false and
		(.fix // \"\" | contains(\"$5\"))) and
		all(.links[]; .verdict == \"pass\" or .verdict == \"$4\" or .verdict == \"missing\")"
	check_eq "$1: tbctl wiring check exits 1" 1 "$(wjson studio4)"
	check_jq "$1: the fix says what to do" "$TMP/w.json" "$(link "$2" "$3") | .fix | contains(\"$5\")"
}
fault degraded-40g.json mac2 mac3 degraded "replace the cable between mac2 tb2 and mac3 tb3: it runs at 40 Gb/s"
until_jq "degraded: 40 Gb/s in both ends' evidence" studio4 "$(link mac2 mac3) | .speed_gbps == 40 and (.evidence.a | contains(\"40 Gb/s\")) and (.evidence.b | contains(\"40 Gb/s\"))"
check_jq "degraded: a mesh with a slow link is a ring" "$TMP/w.json" '.verdict == "ring-only" and .reasons == ["mac2 -- mac3: degraded"]'
wait_for "the verdict change is an event" 10 sh -c "$CTL events --json | jq -e '[.events[] | select(.what == \"wiring pass -> degraded\" and .node == \"mac2\" and (.reason | contains(\"replace the cable\")))] | length == 1'"
check "the verdict change is an event" test $? -eq 0
curl -s "$CTRL_URL/metrics" >"$TMP/metrics.txt"
check "the degraded link's gauge is 0 with its verdict" grep -q '^tbmesh_wiring_link_pass{cluster="studio4",link="mac2 -- mac3",a="mac2",b="mac3",verdict="degraded"} 0$' "$TMP/metrics.txt"
check "promtool still accepts /metrics" sh -c "promtool check metrics <'$TMP/metrics.txt'"

fault missing-cable.json mac3 mac4 missing "connect a Thunderbolt 5 cable between mac3 and mac4"
check_jq "missing: no speed, no receptacle" "$TMP/w.json" "$(link mac3 mac4) | .speed_gbps == null and .a.receptacle == null and .actual == \"no cable\""
fault bridge-active.json mac1 mac2 bridge-loop "turn off the Thunderbolt Bridge on mac2"
check_jq "bridge-loop on all three of mac2's links" "$TMP/w.json" '[.links[] | select(.verdict == "bridge-loop")] | length == 3'
fault rdma-off.json mac1 mac3 rdma-off "boot mac3 into Recovery and run rdma_ctl enable"
# mac4 an M4 Mac mini (Thunderbolt 4): rdma_ctl says enabled, ibv_devices lists
# nothing (ml-explore/mlx issue 3777): rdma-unavailable, not rdma-off, with why
fault rdma-unavailable.json mac1 mac4 rdma-unavailable "mac4 reports RDMA enabled but no RDMA device: RDMA over Thunderbolt needs Thunderbolt 5 at both ends (MLX issue 3777); use a Mac with Thunderbolt 5 ports"
check_jq "rdma-unavailable: mac4's three links, none rdma-off, mac4 without a device" "$TMP/w.json" '
	([.links[] | select(.verdict == "rdma-unavailable" and (.a.node == "mac4" or .b.node == "mac4"))] | length) == 3 and
	([.links[] | select(.pass)] | length) == 3 and ([.links[].problems[] | select(. == "rdma-off" or . == "port-down")] | length) == 0 and
	([.links[] | select(.b.node == "mac4")][0] | .b.rdma_device == null and (.evidence.b | contains("RDMA enabled, ibv_devices lists none")))'
"$CTL" wiring check studio4 >"$TMP/table.txt"; rc=$?
check_eq "rdma-unavailable: the table exits 1" 1 $rc
check "rdma-unavailable: the table gives the verdict and the fix" grep -qE '^mac1:3--mac4:2 +rdma-unavailable +.*mac4 reports RDMA enabled but no RDMA device: RDMA over Thunderbolt needs Thunderbolt 5 at both ends' "$TMP/table.txt"
sed -n '1p; /rdma-unavailable/p' "$TMP/table.txt" | sed 's/^/# /'
for _ in $(seq 50); do
	curl -s "$CTRL_URL/metrics" >"$TMP/metrics.txt"
	grep -q 'link="mac1 -- mac4",a="mac1",b="mac4",verdict="rdma-unavailable"} 0$' "$TMP/metrics.txt" && break
	sleep 0.2
done
check "rdma-unavailable: the link's gauge is 0 with its verdict" grep -q '^tbmesh_wiring_link_pass{cluster="studio4",link="mac1 -- mac4",a="mac1",b="mac4",verdict="rdma-unavailable"} 0$' "$TMP/metrics.txt"
# mac2's end of mac1:1 -- mac2:4 goes through a CalDigit TS4: mac2 reports mac1
# nested under the dock, mac1 reports mac2 as direct (as the real captures
# show): via-hub, not degraded or port-down, with a fix naming the dock and both ends
fault via-hub.json mac1 mac2 via-hub "unplug mac2 receptacle 4 from the CalDigit TS4 and cable it directly to mac1 receptacle 1: RDMA needs a direct Thunderbolt 5 cable"
check_jq "via-hub: that link only, no degraded or port-down, the dock in mac2's evidence" "$TMP/w.json" '
	([.links[] | select(.verdict == "via-hub")] | length) == 1 and ([.links[] | select(.pass)] | length) == 5 and
	([.links[].problems[] | select(. == "degraded" or . == "port-down")] | length) == 0 and
	([.links[] | select(.verdict == "via-hub")][0] | .speed_gbps == 40 and (.evidence.b | contains("behind a dock or hub (CalDigit TS4)")) and (.evidence.a | contains("behind") | not))'
"$CTL" wiring check studio4 >"$TMP/table.txt"; rc=$?
check_eq "via-hub: the table exits 1" 1 $rc
check "via-hub: the table gives the verdict and the fix" grep -qE '^mac1:1--mac2:4 +via-hub +.*unplug mac2 receptacle 4 from the CalDigit TS4 and cable it directly to mac1 receptacle 1' "$TMP/table.txt"
sed -n '1p; /via-hub/p' "$TMP/table.txt" | sed 's/^/# /'
for _ in $(seq 50); do
	curl -s "$CTRL_URL/metrics" >"$TMP/metrics.txt"
	grep -q 'link="mac1 -- mac2",a="mac1",b="mac2",verdict="via-hub"} 0$' "$TMP/metrics.txt" && break
	sleep 0.2
done
check "via-hub: the link's gauge is 0 with its verdict" grep -q '^tbmesh_wiring_link_pass{cluster="studio4",link="mac1 -- mac2",a="mac1",b="mac2",verdict="via-hub"} 0$' "$TMP/metrics.txt"
# mac1, an M4 Max Mac Studio reporting its machine name, has its cable to mac2
# in receptacle 1, en2: the port next to Ethernet, which carries no RDMA
# (exo-explore/exo PR 1551, README caveat 3): bad-port, the fix naming the
# free port its report shows (4), and no plan puts an RDMA cable there
fault bad-port.json mac1 mac2 bad-port "move the cable from mac1 receptacle 1 (next to Ethernet) to a free Thunderbolt 5 port: 4; on a Mac Studio the port next to Ethernet (en2) carries no RDMA"
check_jq "bad-port: that link only, next to Ethernet in mac1's evidence" "$TMP/w.json" '
	([.links[] | select(.verdict == "bad-port")] | length) == 1 and ([.links[] | select(.pass)] | length) == 5 and
	([.links[] | select(.verdict == "bad-port")][0] | .problems == ["bad-port"] and (.evidence.a | contains("(en2) next to Ethernet")))'
"$CTL" wiring check studio4 >"$TMP/table.txt"; rc=$?
check_eq "bad-port: the table exits 1" 1 $rc
check "bad-port: the table gives the verdict and the fix" grep -qE '^mac1:1--mac2:4 +bad-port +.*move the cable from mac1 receptacle 1 \(next to Ethernet\) to a free Thunderbolt 5 port: 4' "$TMP/table.txt"
sed -n '1p; /bad-port/p' "$TMP/table.txt" | sed 's/^/# /'
"$CTL" wiring plan studio4 --topology mesh --json >"$TMP/plan-bad.json"; rc=$?
check_eq "bad-port: a plan can still be made" 0 $rc
check_jq "bad-port: the plan never uses a Studio's receptacle 1 (en2), and mac1's 2, 3 and 4" "$TMP/plan-bad.json" '
	(.links | length) == 6 and ([.links[] | .a, .b | select(.receptacle == "1")] | length) == 0 and
	([.links[] | .a, .b | select(.node == "mac1") | .receptacle] | sort) == ["2","3","4"]'
for _ in $(seq 50); do
	curl -s "$CTRL_URL/metrics" >"$TMP/metrics.txt"
	grep -q 'link="mac1 -- mac2",a="mac1",b="mac2",verdict="bad-port"} 0$' "$TMP/metrics.txt" && break
	sleep 0.2
done
check "bad-port: the link's gauge is 0 with its verdict" grep -q '^tbmesh_wiring_link_pass{cluster="studio4",link="mac1 -- mac2",a="mac1",b="mac2",verdict="bad-port"} 0$' "$TMP/metrics.txt"
# mac2's RDMA device toward mac3 lists no IPv4-mapped GID though en3 has its
# address: JACCL's GID selection fails there (ml-explore/mlx PR 4191)
fault no-gid.json mac2 mac3 no-gid "rdma_en3 on mac2 lists no IPv4-mapped GID, which JACCL needs (MLX PR 4191): give en3 its static per-cable address (tbctl node add mac2 --cluster studio4)"
check_jq "no-gid: that link only, with its address, the GID in mac2's evidence" "$TMP/w.json" '
	([.links[] | select(.verdict == "no-gid")] | length) == 1 and ([.links[] | select(.pass)] | length) == 5 and
	([.links[] | select(.verdict == "no-gid")][0] | .a.ipv4 != null and (.evidence.a | contains("rdma_en3 active without an IPv4-mapped GID")))'
"$CTL" wiring check studio4 >"$TMP/table.txt"; rc=$?
check_eq "no-gid: the table exits 1" 1 $rc
check "no-gid: the table gives the verdict and the fix" grep -qE '^mac2:2--mac3:3 +no-gid +.*rdma_en3 on mac2 lists no IPv4-mapped GID' "$TMP/table.txt"
sed -n '1p; /no-gid/p' "$TMP/table.txt" | sed 's/^/# /'
for _ in $(seq 50); do
	curl -s "$CTRL_URL/metrics" >"$TMP/metrics.txt"
	grep -q 'link="mac2 -- mac3",a="mac2",b="mac3",verdict="no-gid"} 0$' "$TMP/metrics.txt" && break
	sleep 0.2
done
check "no-gid: the link's gauge is 0 with its verdict" grep -q '^tbmesh_wiring_link_pass{cluster="studio4",link="mac2 -- mac3",a="mac2",b="mac3",verdict="no-gid"} 0$' "$TMP/metrics.txt"
# the 40 Gb/s mac2-mac3 link of degraded-40g.json with mac3 a Thunderbolt 4
# Mac (its free ports "Up to 40 Gb/s", as degraded-tb4.json's mac5): still
# degraded, but the fix says why, not "replace the cable"
jq '.nodes[2] += {"machine_name": "Mac mini", "max_speed_gbps": 40}' "$SCN/degraded-40g.json" >"$LIVE.tmp" && mv "$LIVE.tmp" "$LIVE"
until_jq "degraded on a Thunderbolt 4 end: the fix says so" studio4 "$(link mac2 mac3) | .verdict == \"degraded\" and
	(.fix | contains(\"port is Thunderbolt 4: RDMA needs Thunderbolt 5 at both ends\"))"
check_jq "degraded on Thunderbolt 4: the fix names mac3, mac3's evidence says Thunderbolt 4, the rest pass" "$TMP/w.json" "
	([.links[] | select(.pass)] | length) == 5 and ($(link mac2 mac3) | .problems == [\"degraded\"] and
	.fix == \"mac3's port is Thunderbolt 4: RDMA needs Thunderbolt 5 at both ends (the link runs at 40 Gb/s; its free ports say \\\"Up to 40 Gb/s\\\")\" and
	(.evidence.b | contains(\"Thunderbolt 4 (free ports up to 40 Gb/s)\")))"
"$CTL" wiring check studio4 >"$TMP/table.txt"; rc=$?
check_eq "degraded on Thunderbolt 4: the table exits 1" 1 $rc
check "degraded on Thunderbolt 4: the table gives the verdict and the fix" grep -qE "^mac2:2--mac3:3 +degraded +.*mac3's port is Thunderbolt 4: RDMA needs Thunderbolt 5 at both ends" "$TMP/table.txt"
sed -n '1p; /degraded/p' "$TMP/table.txt" | sed 's/^/# /'
fault port-down.json mac1 mac4 port-down "rdma_en4 on mac1 is down"
fault no-ipv4.json mac1 mac3 no-ipv4 "give mac3 en2 (receptacle 1) an IPv4 address"
check_jq "no-ipv4: that end has no address" "$TMP/w.json" "$(link mac1 mac3) | .b.ipv4 == null and .a.ipv4 != null"
fault os-skew.json mac1 mac4 os-skew "bring mac1 (25C56) and mac4 (25D125) to the same macOS build"
fault one-sided.json mac1 mac2 one-sided "only mac1 sees the cable between mac1 tb1 and mac2 tb4"
check_jq "one-sided: seen from mac1 only, as the other end reports its port empty" "$TMP/w.json" "$(link mac1 mac2) |
	.actual == \"mac1 tb1 -- mac2 tb4 (seen from mac1 only) at 80 Gb/s\" and .problems == [\"one-sided\"] and
	(.evidence.b | contains(\"empty\"))"
check_jq "one-sided: the other five pass, a ring remains, nothing unexpected" "$TMP/w.json" \
	'([.links[] | select(.pass)] | length) == 5 and .verdict == "ring-only" and (.unexpected | length) == 0'

# two cables between one pair: every link passes, the extra one is unexpected
use two-cables-one-pair.json
until_jq "two cables: the second mac1-mac2 cable is unexpected, with what to do" studio4 '(.unexpected | length) == 1 and (.unexpected[0] |
	.id == "mac1:4--mac2:6" and .speed_gbps == 80 and .actual == "mac1 tb4 -- mac2 tb6 at 80 Gb/s" and
	(.fix | startswith("a second cable joins mac1 and mac2")))'
check_eq "an unexpected spare cable fails nothing" 0 "$(wjson studio4)"

# a combination: degraded and no address on the same link
jq '.ports = [{"port": "mac3:3", "ipv4": false}]' "$SCN/degraded-40g.json" >"$LIVE.tmp" && mv "$LIVE.tmp" "$LIVE"
until_jq "degraded and no-ipv4 together" studio4 "$(link mac2 mac3) | .problems == [\"no-ipv4\", \"degraded\"]"
check_jq "the verdict is the first to fix, the fix names both" "$TMP/w.json" "$(link mac2 mac3) | .verdict == \"no-ipv4\" and
	(.fix | contains(\"IPv4\")) and (.fix | contains(\"replace the cable\"))"

# plans: propose, save, export, import; miswired against the plan
use mesh4-studio.json
until_jq "healthy again" studio4 '.verdict == "tensor-ready"'
"$CTL" wiring plan studio4 --topology mesh >"$TMP/plan.txt"; rc=$?
check_eq "wiring plan exits 0" 0 $rc
check "the plan is a table to cable from" grep -q '^CABLE  *FROM  *RECEPTACLE  *TO  *RECEPTACLE' "$TMP/plan.txt"
check_eq "six cables" 6 "$(grep -c '^[1-6] ' "$TMP/plan.txt")"
api GET /v1/clusters/studio4/wiring/plan >/dev/null
check_jq "proposing does not store" "$TMP/api.out" '.topology == "mesh" and .dot == null'
"$CTL" wiring plan studio4 --save --json >"$TMP/saved.json"
check_jq "--save stores the plan" "$TMP/saved.json" '.topology == "plan" and (.links | length) == 6'
"$CTL" wiring export studio4 >"$TMP/studio4.dot"
check "export writes DOT" grep -q '"mac1":"tb1" -- "mac2":"tb4";' "$TMP/studio4.dot"
until_jq "the saved plan is checked port by port" studio4 '.topology == "plan" and ([.links[] | select(.pass)] | length) == 6'
check_jq "plan links name both receptacles" "$TMP/w.json" '.links[0].expected == "mac1 tb1 -- mac2 tb4"'
use miswired.json
until_jq "miswired against the plan" studio4 '([.links[] | select(.verdict == "miswired")] | length) == 3'
check_jq "the fix says which cable to move where" "$TMP/w.json" '[.links[] | select(.expected == "mac1 tb2 -- mac3 tb1")][0].fix == "move the cable on mac3 receptacle 4 to mac3 receptacle 1"'
check_jq "miswired cables still carry RDMA: the mesh works" "$TMP/w.json" '.verdict == "tensor-ready" and (.reasons | length) == 3'
cat >"$TMP/hand.dot" <<'DOT'
// written by hand, PTM style
graph "studio4" {
  node [shape=box]
  "mac1":"tb1" -- "mac2":"tb4"; "mac1":"tb2" -- "mac3":"tb4" [color=red]
  mac1:tb3 -- mac4:tb1
  /* the rest */ mac2:2 -- mac3:3; mac2:5 -- mac4:2; mac3:6 -- mac4:5
}
DOT
"$CTL" wiring import studio4 "$TMP/hand.dot" >/dev/null; rc=$?
check_eq "import a DOT plan" 0 $rc
until_jq "the imported plan matches the miswired cabling" studio4 '[.links[] | select(.pass)] | length == 6'
check_eq "and check exits 0" 0 "$(wjson studio4)"

# bad input: refused, nothing changed
printf 'graph g {\n  "mac1":"tb1" -- "mac2":"tb4"\n  "mac1":"tb1" -- "mac3":"tb2"\n}\n' >"$TMP/bad.dot"
"$CTL" wiring import studio4 "$TMP/bad.dot" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "a plan using a receptacle twice is refused" 1 $rc
check "with the line number" grep -q 'line 3: mac1 tb1 is used twice (also on line 2)' "$TMP/err"
check_eq "in one line" 1 "$(wc -l <"$TMP/err")"
code=$(api PUT /v1/clusters/studio4/wiring/plan '{"topology":"star"}')
check_eq "an unknown topology is a 400" 400 "$code"
check_jq "naming the field" "$TMP/api.out" '.error | contains("topology")'
code=$(api PUT /v1/clusters/studio4/wiring/plan '{"topology":"plan","dot":"graph { a -- }"}')
check_eq "a DOT syntax error is a 400" 400 "$code"
check_jq "with its line" "$TMP/api.out" '.error | startswith("dot: line 1:")'
code=$(api PUT /v1/clusters/studio4/wiring/plan '{"topology":"mesh","dot":"graph { a -- b }"}')
check_eq "a mesh with a plan is a 400" 400 "$code"
api GET /v1/clusters/studio4/wiring/plan >"$TMP/plan-before.code"
cp "$TMP/api.out" "$TMP/plan-before.json"
code=$(api PUT /v1/clusters/studio4/wiring/plan '{"topology":"plan","dot":"graph { mac1 -- mac2; mac1 -- mac2; mac2 -- mac1 }"}')
check_eq "the same cable said twice without receptacles is a 400" 400 "$code"
check_jq "saying so" "$TMP/api.out" '.error | contains("mac1 -- mac2 is listed twice")'
api GET /v1/clusters/studio4/wiring/plan >/dev/null
check "and the plan in place stays" cmp -s "$TMP/api.out" "$TMP/plan-before.json"
code=$(api PUT /v1/clusters/studio4/wiring/plan '{"topology":"plan","dot":"graph { mac1:tb2 -- mac9:tb2 }"}')
check_eq "a node not in the cluster is a 400" 400 "$code"
check_jq "saying which" "$TMP/api.out" '.error == "links[0].b: mac9 is not in the cluster"'
code=$(api PUT /v1/clusters/studio4/wiring/plan '{"topology":"plan","dot":"graph { mac1:tb9 -- mac2:tb2 }"}')
check_eq "a receptacle the Mac does not have is a 400" 400 "$code"
check_jq "saying what it has" "$TMP/api.out" '.error | test("^links\\[0\\]\\.a: mac1 has no receptacle 9 \\(it has [0-9, ]+\\)$")'
api GET /v1/clusters/studio4/wiring/plan >/dev/null
check "and the plan in place stays" cmp -s "$TMP/api.out" "$TMP/plan-before.json"
code=$(api POST '/v1/clusters/studio4/wiring/plan?topology=star')
check_eq "proposing a star is a 400" 400 "$code"
api GET /v1/clusters/studio4/wiring/plan >/dev/null
check_jq "the imported plan is unchanged" "$TMP/api.out" '.topology == "plan" and (.links | length) == 6 and .links[1].b.receptacle == "4"'
code=$(api GET /v1/clusters/nope/wiring)
check_eq "an unknown cluster is a 404" 404 "$code"
"$CTL" wiring check nope >/dev/null 2>&1; rc=$?
check_eq "tbctl wiring check of an unknown cluster exits 2" 2 $rc
"$CTL" wiring plan studio4 --topology star >/dev/null 2>&1; rc=$?
check_eq "a bad --topology is a usage error" 2 $rc
"$CTL" token create --role viewer --ttl 1h >"$TMP/viewer"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$TMP/viewer")" "$CTRL_URL/v1/clusters/studio4/wiring")
check_eq "a viewer may read the check" 200 "$code"
code=$(curl -H 'Content-Type: application/json' -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $(cat "$TMP/viewer")" --data-binary '{"topology":"mesh"}' "$CTRL_URL/v1/clusters/studio4/wiring/plan")
check_eq "a viewer may not change the plan" 403 "$code"
# (the longest names and receptacles written as DOT and read back:
# tests/unit/test_wiring_dot.c; a plan names only the cluster's nodes)
"$CTL" wiring expect studio4 mesh >/dev/null
until_jq "back to a mesh on any receptacles" studio4 '.topology == "mesh" and .verdict == "tensor-ready"'


# a ring of five, checked as a ring, and refused as a mesh of 8
sed 's/"mac\([1-5]\)"/"ring\1"/g; s/"mac\([1-5]\):/"ring\1:/g' "$SCN/ring5.json" >"$TMP/ring5.json"
for n in ring1 ring2 ring3 ring4 ring5; do start_sim_agent "$n" "$TMP/ring5.json" --interval 0.5; done
wait_for "nine nodes" 20 sh -c "$CTL nodes --json | jq -e '.nodes | length == 9'"
"$CTL" cluster create ring5 >/dev/null
"$CTL" cluster add ring5 ring1 ring2 ring3 ring4 ring5 >/dev/null
until_jq "ring5 as a mesh: five links pass, five missing" ring5 '([.links[] | select(.verdict == "missing")] | length) == 5 and .verdict == "ring-only"'
"$CTL" wiring expect ring5 ring >/dev/null
until_jq "ring5 as a ring: every link passes" ring5 '.topology == "ring" and (.links | length) == 5 and ([.links[] | select(.pass)] | length) == 5 and .verdict == "ring-only"'
check_eq "and check exits 0" 0 "$(wjson ring5)"
"$CTL" wiring check --json >"$TMP/all.json"; rc=$?
check_eq "checking every cluster exits 0 when all pass" 0 $rc
check_jq "both clusters" "$TMP/all.json" '[.clusters[].cluster] == ["ring5", "studio4"]'

# seven nodes, every receptacle in use
sed 's/"mac\([1-7]\)/"m7n\1/g' "$SCN/mesh7-studio.json" >"$TMP/mesh7.json"
for i in 1 2 3 4 5 6 7; do start_sim_agent "m7n$i" "$TMP/mesh7.json" --interval 1; done
wait_for "sixteen nodes" 30 sh -c "$CTL nodes --json | jq -e '.nodes | length == 16'"
"$CTL" cluster create mesh7 >/dev/null
"$CTL" cluster add mesh7 m7n1 m7n2 m7n3 m7n4 m7n5 m7n6 m7n7 >/dev/null
until_jq "mesh7: 21 links pass" mesh7 '([.links[] | select(.pass)] | length) == 21 and .verdict_text == "tensor-parallel ready: full RDMA mesh of 7"'
"$CTL" wiring plan mesh7 --topology mesh --json >"$TMP/p7.json"; rc=$?
check_eq "a mesh7 plan" 0 $rc
check_jq "uses the cables in place" "$TMP/p7.json" '(.links | length) == 21'
"$CTL" cluster add mesh7 ring1 >/dev/null
"$CTL" wiring plan mesh7 --topology mesh >/dev/null 2>"$TMP/err"; rc=$?
check_eq "a mesh of 8 is refused" 1 $rc
check "with the reason" grep -q 'a full mesh of 8 needs 7 receptacles carrying RDMA on each node; .* has 6' "$TMP/err"

# a node that stops reporting: its links become unknown
bg_stop "$(sim_agent_pid mac4)"
until_jq "mac4 silent: its links are unknown" studio4 '([.links[] | select(.verdict == "unknown")] | length) == 3'
check_jq "the fix says to get a report" "$TMP/w.json" "$(link mac1 mac4) | .fix | contains(\"get a fresh report from mac4\")"
check_jq "and the cluster is not usable" "$TMP/w.json" '.verdict == "unusable" and (.reasons | index("mac4 has no passing RDMA link")) != null'
done_testing
