#!/usr/bin/env bash
# MLX's own cabling file imported through tbctl: `mlx.distributed_config
# --dot` prints the cluster's cables as a DOT graph of ids a, b, ... whose
# labels are the hosts given to --hosts, one edge per cable labelled with
# the two ends' Thunderbolt interfaces (ml-explore/mlx at commit
# 846d176227a0ac13d2667e58d2bb68b322109ab0, python/mlx/_distributed_utils/
# config.py:277-305; the interfaces are the "Thunderbolt N" devices of
# networksetup -listallhardwareports, config.py:246,252).
# tests/fixtures/mlx/mesh4-two-cables.dot is that output for four Mac
# Studios cabled as tests/scenarios/two-cables-one-pair.json (a full mesh,
# and a second cable between mac1 and mac2).  Simulated agents of that
# scenario report to tbcontrollerd: the file is imported as the plan, each
# label resolved to its node and each interface to its receptacle, every
# link passes, export writes tbmesh's own DOT.  Files that do not fit the
# cluster are refused with the line and the reason, and change nothing;
# a plan naming nodes outside the cluster never reads "ready".
. "$(dirname "$0")/../lib/common.sh"
SCN=$TOP/tests/scenarios
FIX=$TOP/tests/fixtures/mlx
CTL=$BIN/tbctl

wjson() { "$CTL" wiring check "$1" --json >"$TMP/w.json" 2>"$TMP/w.err"; echo $?; }
until_jq() {
	wait_for "$1" 20 sh -c "$CTL wiring check $2 --json 2>/dev/null | jq -e '$3'"
	check "$1" test $? -eq 0
	wjson "$2" >/dev/null
}
plan_now() { api GET /v1/clusters/studio4/wiring/plan >/dev/null; jq -S . "$TMP/api.out"; }
# refused FILE MESSAGE: tbctl wiring import fails with MESSAGE on one line,
# and the stored plan is what it was.
refused() {
	local before after rc
	before=$(plan_now)
	"$CTL" wiring import studio4 "$1" >/dev/null 2>"$TMP/err"; rc=$?
	check_eq "$(basename "$1"): refused" 1 $rc
	check "$(basename "$1"): says $2" grep -qF -- "$2" "$TMP/err"
	check_eq "$(basename "$1"): in one line" 1 "$(wc -l <"$TMP/err")"
	after=$(plan_now)
	check_eq "$(basename "$1"): the plan is unchanged" "$before" "$after"
}

start_controller ctl --unreachable-after 3
for n in mac1 mac2 mac3 mac4; do
	start_sim_agent "$n" "$SCN/two-cables-one-pair.json" --interval 0.5
done
wait_for "four nodes" 20 sh -c "$CTL nodes --json | jq -e '.nodes | length == 4'"
"$CTL" cluster create studio4 >/dev/null
"$CTL" cluster add studio4 mac1 mac2 mac3 mac4 >/dev/null
until_jq "a healthy mesh" studio4 '.verdict == "tensor-ready"'

# the file as MLX prints it
"$CTL" wiring import studio4 "$FIX/mesh4-two-cables.dot" >"$TMP/import.txt"; rc=$?
check_eq "tbctl wiring import takes MLX's file" 0 $rc
check "its table has the second mac1-mac2 cable on receptacles 4 and 6" \
	grep -q '^4  *mac1  *4  *mac2  *6 *$' "$TMP/import.txt"
api GET /v1/clusters/studio4/wiring/plan >/dev/null
check_jq "labels became nodes, interfaces receptacles" "$TMP/api.out" \
	'.topology == "plan" and [.links[] | "\(.a.node):\(.a.receptacle)-\(.b.node):\(.b.receptacle)"] ==
	["mac1:1-mac2:4", "mac1:2-mac3:1", "mac1:3-mac4:2", "mac1:4-mac2:6", "mac2:2-mac3:3", "mac2:5-mac4:1", "mac3:6-mac4:5"]'
check_jq "stored in tbmesh's form, without MLX's ids" "$TMP/api.out" \
	'(.dot | contains("\"mac1\":\"tb4\" -- \"mac2\":\"tb6\";")) and (.dot | contains("label") | not)'
until_jq "every cable passes where the file says" studio4 \
	'.topology == "plan" and (.links | length) == 7 and all(.links[]; .pass) and .unexpected == []'
check_jq "the headline" "$TMP/w.json" '.verdict == "tensor-ready" and .verdict_text == "tensor-parallel ready: full RDMA mesh of 4"'
check_jq "en5/en7 is mac1 tb4 -- mac2 tb6" "$TMP/w.json" \
	'[.links[] | select(.id == "mac1:4--mac2:6")][0] | .a.interface == "en5" and .b.interface == "en7" and .verdict == "pass"'
check_eq "wiring check exits 0" 0 "$(wjson studio4)"
"$CTL" wiring export studio4 >"$TMP/export.dot"; rc=$?
check_eq "wiring export" 0 $rc
check "exports tbmesh's DOT" grep -q '^	"mac1":"tb1" -- "mac2":"tb4";$' "$TMP/export.dot"
check "not MLX's" sh -c "! grep -q 'label' '$TMP/export.dot'"
before=$(plan_now)
"$CTL" wiring import studio4 "$TMP/export.dot" >/dev/null; rc=$?
check_eq "the export imports again" 0 $rc
check_eq "as the same plan" "$before" "$(plan_now)"

# a label may be the SSH host the controller has for the node, a user before it
"$CTL" node ssh mac3 --host studio-c.lan --user admin >/dev/null
cat >"$TMP/ssh.dot" <<'DOT'
graph G {
  node [shape=rectangle];
  a [label="mac1.local"];
  b [label="admin@studio-c.lan"];
  a -- b [label="en3/en2"]
}
DOT
"$CTL" wiring import studio4 "$TMP/ssh.dot" --json >"$TMP/ssh.json"; rc=$?
check_eq "a label that is a node's SSH host" 0 $rc
check_jq "names mac3" "$TMP/ssh.json" '.links == [{"a": {"node": "mac1", "receptacle": "2"}, "b": {"node": "mac3", "receptacle": "1"}}]'
"$CTL" wiring import studio4 "$FIX/mesh4-two-cables.dot" >/dev/null

# refusals: with the line and the reason, and nothing stored
sed 's/mac3\.local/mac9.local/' "$FIX/mesh4-two-cables.dot" >"$TMP/mac9.dot"
refused "$TMP/mac9.dot" 'line 5: c [label="mac9.local"]: no node of studio4 is mac9.local'
sed 's|en4/en3|en9/en3|' "$FIX/mesh4-two-cables.dot" >"$TMP/en9.dot"
refused "$TMP/en9.dot" 'line 9: en9 is not a Thunderbolt interface of mac1 (it reports en2, en3, en4, en5, en6, en7)'
sed 's|en3/en4|en3/en2|' "$FIX/mesh4-two-cables.dot" >"$TMP/twice.dot"
refused "$TMP/twice.dot" 'line 11: mac3 tb1 (en2) is used twice (also on line 8)'
sed 's/mac2\.local/mac1/' "$FIX/mesh4-two-cables.dot" >"$TMP/same.dot"
refused "$TMP/same.dot" 'line 4: b [label="mac1"]: mac1 is already a (line 3)'
code=$(api PUT /v1/clusters/studio4/wiring/plan "$(jq -n --rawfile d "$TMP/mac9.dot" '{topology: "plan", dot: $d}')")
check_eq "through the API: a 400" 400 "$code"
check_jq "with the line" "$TMP/api.out" '.error == "dot: line 5: c [label=\"mac9.local\"]: no node of studio4 is mac9.local"'
code=$(api PUT /v1/clusters/nope/wiring/plan "$(jq -n --rawfile d "$FIX/mesh4-two-cables.dot" '{topology: "plan", dot: $d}')")
check_eq "an unknown cluster is a 404" 404 "$code"

# a plan names only the cluster's nodes: one over MLX's ids a..d (as a
# file read without its labels would give) is refused
jq -n '{topology: "plan", links: [["a","b"],["a","c"],["a","d"],["b","c"],["b","d"],["c","d"]] |
	map({a: {node: .[0]}, b: {node: .[1]}})}' >"$TMP/ids.json"
check_eq "a plan over a..d is refused" 400 "$(api PUT /v1/clusters/studio4/wiring/plan "$(cat "$TMP/ids.json")")"
check_jq "naming the first stranger" "$TMP/api.out" '.error == "links[0].a: a is not in the cluster"'

# the headline never says ready while a link is unknown: the plan in place
# names mac4, which then leaves the inventory; the others are still cabled
bg_stop "$(sim_agent_pid mac4)"
check_eq "mac4 is removed" 204 "$(api DELETE /v1/nodes/mac4)"
until_jq "its links are unknown" studio4 '.topology == "plan" and ([.links[] | select(.a.node == "mac4" or .b.node == "mac4") | .verdict] | length > 0 and all(. == "unknown"))'
check_jq "the API's headline says what is not known, not ready" "$TMP/w.json" \
	'.verdict != "tensor-ready" and .verdict_text == "not known yet: mac4 is not a node of studio4" and
	(.verdict_text | contains("ready") | not)'
"$CTL" wiring check studio4 >"$TMP/table.txt"; rc=$?
check_eq "tbctl wiring check exits 1" 1 $rc
check "its headline too" grep -q '^cluster studio4 (plan): not known yet: mac4 is not a node of studio4$' "$TMP/table.txt"
check "nowhere ready" sh -c "! grep -q 'ready' '$TMP/table.txt'"

# a Mac whose report has no Thunderbolt ports (as when system_profiler
# fails): its interfaces are unknown, so a file naming one is refused
"$BIN/tbagentd" --once --backend sim --scenario "$SCN/mesh7-studio.json" --node mac5 |
	jq 'del(.thunderbolt) | .errors += [{"source": "system_profiler", "message": "SPThunderboltDataType: timed out"}]' >"$TMP/r5.json"
"$CTL" token create --ttl 10m --accept >"$TMP/boot5"
code=$(curl -H 'Content-Type: application/json' -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$TMP/boot5")" \
	--data-binary @"$TMP/r5.json" "$CTRL_URL/v1/enroll")
check_eq "mac5 enrols without its Thunderbolt ports" 201 "$code"
"$CTL" cluster add studio4 mac5 >/dev/null
printf 'graph G {\n  a [label="mac1.local"];\n  e [label="mac5.local"];\n  a -- e [label="en6/en2"]\n}\n' >"$TMP/mac5.dot"
refused "$TMP/mac5.dot" 'line 4: mac5 has not reported its Thunderbolt ports, so its Thunderbolt interfaces are unknown (import the file again once it has)'
done_testing
