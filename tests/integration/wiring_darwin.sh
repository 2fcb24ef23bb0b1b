#!/usr/bin/env bash
# Wiring from real macOS captures: the Mac Studio and the MacBook Pro of
# tests/fixtures/macos (cabled to each other: Studio receptacle 2, MacBook
# receptacle 1), each a tbagentd with the darwin backend on the fake macOS
# commands, make a two-node cluster.  The peer domain UUIDs resolve the one
# cable from both ends; the Studio's USB4 drive (receptacle 4, no domain)
# is neither a node nor a link.
#
# As captured, the MacBook sees no RDMA service from the Studio and its
# rdma_en1 is down, while the Studio's RDMA is enabled: the link is rdma-off
# and the fix is to avoid that Studio receptacle.  With the MacBook's view
# brought into agreement with the Studio's (the RDMA service advertised,
# rdma_en1 active), the single link passes: a full RDMA mesh of two.
. "$(dirname "$0")/../lib/common.sh"
CTL=$BIN/tbctl
FX=$TOP/tests/fixtures/macos

start_controller ctl
for kind in studio macbook; do
	sh "$TOP/tests/fakemac/mkstate.sh" "$TMP/mac-$kind" "$kind"
	mkdir -p "$TMP/state-$kind"
	"$CTL" token create --ttl 10m >"$TMP/boot-$kind"
	bg_start "$TMP/agent-$kind.log" env FAKEMAC_DIR="$TMP/mac-$kind" PATH="$(fakemac_path)" \
		"$BIN/tbagentd" --listen 127.0.0.1:0 --backend darwin --interval 1 --topology-interval 1 \
		--controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot-$kind" \
		--state-dir "$TMP/state-$kind"
done
wait_for "two nodes" 30 sh -c "$CTL nodes --json | jq -e '.nodes | length == 2'"
check_eq "the two Macs enrolled under their host names" "mac-studio-1 macbook-pro-1" \
	"$("$CTL" nodes --json | jq -r '[.nodes[].name] | sort | join(" ")')"
"$CTL" cluster create pair >/dev/null
"$CTL" cluster add pair mac-studio-1 macbook-pro-1 >/dev/null

wait_for "the check" 20 sh -c "$CTL wiring check pair --json | jq -e '(.links | length) == 1 and .links[0].speed_gbps == 80'"
"$CTL" wiring check pair --json >"$TMP/w.json"; rc=$?
check_jq "one expected link, resolved from both ends by domain UUID" "$TMP/w.json" '.nodes == ["mac-studio-1","macbook-pro-1"] and
	(.links | length) == 1 and (.links[0] | .id == "mac-studio-1:2--macbook-pro-1:1" and
	.a.receptacle == "2" and .a.interface == "en2" and .a.rdma_device == "rdma_en2" and .a.ipv4 == "169.254.205.255" and
	.b.receptacle == "1" and .b.interface == "en1" and .b.rdma_device == "rdma_en1" and .b.ipv4 == "169.254.77.12" and
	.actual == "mac-studio-1 tb2 -- macbook-pro-1 tb1 at 80 Gb/s")'
check_jq "the USB4 drive on the Studio's receptacle 4 is not a node or a link" "$TMP/w.json" \
	'.unexpected == [] and (.nodes | length) == 2 and ([.links[] | select(.a.receptacle == "4" or .b.receptacle == "4")] | length) == 0'
check_jq "as captured: the MacBook sees no RDMA service from the Studio: rdma-off" "$TMP/w.json" '.links[0] |
	.verdict == "rdma-off" and .pass == false and (.evidence.b | contains("without RDMA service")) and
	.fix == "move the cable off mac-studio-1 receptacle 2: it does not carry RDMA"'
check_eq "so the check exits 1" 1 $rc
"$CTL" wiring plan pair --json >"$TMP/plan.json"
check_jq "a plan for the pair avoids that receptacle" "$TMP/plan.json" '(.links | length) == 1 and
	.links[0].a.node == "mac-studio-1" and .links[0].a.receptacle != "2" and .links[0].a.receptacle != "4"'

# the MacBook's view in agreement with the Studio's: RDMA service and an active port
mb=$TMP/mac-macbook
jq '(.. | objects | select(.domain_uuid_key? == "28CA4C30-A263-4C55-B302-953416D0B209") | .services_title) +=
	[{"_name": "unknown_xd_service", "protocol_id_key": 64087, "protocol_revision_key": 0, "protocol_version_key": 1}]' \
	"$FX/system_profiler-thunderbolt-macbook.json" >"$mb/sp.tmp" && mv "$mb/sp.tmp" "$mb/system_profiler_SPThunderboltDataType.out"
{
	sed -e 's/rdma_en2/rdma_en1/' -e 's/169.254.205.255/169.254.77.12/' "$FX/ibv_devinfo-v-active.txt"
	sed 's/rdma_en1/rdma_en6/' "$FX/ibv_devinfo-one-port-down.txt"
	sed 's/rdma_en1/rdma_en2/' "$FX/ibv_devinfo-one-port-down.txt"
} >"$mb/ibv_devinfo.tmp" && mv "$mb/ibv_devinfo.tmp" "$mb/ibv_devinfo.out"
wait_for "the link passes" 20 sh -c "$CTL wiring check pair --json | jq -e '.links[0].pass'"
"$CTL" wiring check pair --json >"$TMP/w.json"; rc=$?
check_jq "the single link passes: a full RDMA mesh of two" "$TMP/w.json" '.links[0].verdict == "pass" and .links[0].fix == null and
	.verdict == "tensor-ready" and .verdict_text == "tensor-parallel ready: full RDMA mesh of 2" and .unexpected == []'
check_eq "and the check exits 0" 0 $rc
"$CTL" events --json >"$TMP/ev.json"
check_jq "the change is an event" "$TMP/ev.json" '[.events[] | select(.what == "wiring rdma-off -> pass" and .node == "mac-studio-1")] | length == 1'
done_testing
