#!/usr/bin/env bash
# tbagentd --once on every backend: the real macOS captures through fake
# commands (darwin), this machine's own /proc and /sys (linux), a scenario
# node (sim); faults give errors[] entries, never a crash; bad usage exits 2.
. "$(dirname "$0")/../lib/common.sh"
A=$BIN/tbagentd
SC=$TOP/tests/scenarios

# sim
"$A" --once --backend sim --scenario "$SC/mesh4-studio.json" --node mac1 >"$TMP/sim.json"
check_eq "sim --once exits 0" 0 $?
check_jq "sim report has the schema" "$TMP/sim.json" '.schema == "tbmesh.report/1"'
check_jq "sim report names the node" "$TMP/sim.json" '.node.hostname == "mac1"'
check_jq "sim node has 3 connected ports at 80 Gb/s" "$TMP/sim.json" \
	'[.thunderbolt.ports[] | select(.status == "connected" and .speed_gbps == 80)] | length == 3'
check_jq "sim report has no errors" "$TMP/sim.json" '.errors == []'
check_jq "sim node reports the scenario's LAN interface" "$TMP/sim.json" \
	'.network.interfaces == [{"name": "en0", "kind": "ethernet", "port": "Ethernet", "ipv4": ["192.0.2.11"]}]'
"$A" --once --backend sim --scenario "$SC/degraded-40g.json" --node mac1 >"$TMP/simnolan.json"
check_jq "a scenario node without lan: network unknown" "$TMP/simnolan.json" '.network.interfaces == null'
"$A" --once --backend sim --scenario "$SC/mesh4-studio.json" --node mac1 --name renamed >"$TMP/sim2.json"
check_jq "--name overrides the hostname" "$TMP/sim2.json" '.node.hostname == "renamed"'

# sim faults: a node the scenario lacks, a file that does not parse
"$A" --once --backend sim --scenario "$SC/mesh4-studio.json" --node mac9 >"$TMP/sim9.json"
check_eq "unknown sim node still exits 0" 0 $?
check_jq "unknown sim node is an error from sim" "$TMP/sim9.json" \
	'[.errors[] | select(.source == "sim")] | length >= 1'
printf '{"nodes": [' >"$TMP/broken.json"
"$A" --once --backend sim --scenario "$TMP/broken.json" --node mac1 >"$TMP/simbad.json"
check_eq "broken scenario still exits 0" 0 $?
check_jq "broken scenario is an error from sim" "$TMP/simbad.json" \
	'[.errors[] | select(.source == "sim")] | length >= 1'

# linux, on this very machine
"$A" --once --backend linux >"$TMP/linux.json"
check_eq "linux --once exits 0" 0 $?
memtotal=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))
check_jq "linux reports this machine's real memory" "$TMP/linux.json" \
	".memory.total_bytes == $memtotal"
check_jq "linux reports a free ratio between 0 and 1" "$TMP/linux.json" \
	'.memory.free_ratio > 0 and .memory.free_ratio <= 1'
check_jq "linux reports the hostname" "$TMP/linux.json" ".node.hostname == \"$(cat /proc/sys/kernel/hostname)\""

# darwin, through fake commands that print the real captures
mkdir -p "$TMP/mac"
bash "$TOP/tests/fakemac/mkstate.sh" "$TMP/mac" studio
PATH=$(fakemac_path) FAKEMAC_DIR=$TMP/mac "$A" --once --backend darwin --command-timeout 2 >"$TMP/darwin.json"
check_eq "darwin --once exits 0" 0 $?
check_jq "darwin report has no errors" "$TMP/darwin.json" '.errors == []'
check_jq "darwin: receptacle 2 at 80 Gb/s with the MacBook as peer" "$TMP/darwin.json" \
	'.thunderbolt.ports[] | select(.receptacle == "2") | .speed_gbps == 80 and .peer.name == "MacBook Pro" and .peer.domain_uuid == "817DCFA4-B481-4100-80FC-91C7AA969F0B"'
check_jq "darwin: receptacle 4's USB4 drive is not a peer" "$TMP/darwin.json" \
	'.thunderbolt.ports[] | select(.receptacle == "4") | .status == "connected" and .peer == null'
check_jq "darwin: four empty receptacles" "$TMP/darwin.json" \
	'[.thunderbolt.ports[] | select(.status == "empty" and .speed_gbps == null)] | length == 4'
check_jq "darwin: RDMA enabled, six devices" "$TMP/darwin.json" \
	'.rdma.state == "enabled" and (.rdma.devices | length) == 6'
check_jq "darwin: 512 GB Studio, macOS 26.2 25C56" "$TMP/darwin.json" \
	'.memory.total_bytes == 549755813888 and .node.os_build == "25C56" and .node.chip == "Apple M3 Ultra"'
check_jq "darwin: network.interfaces from ifconfig -a: Ethernet, Wi-Fi, a VPN; no Thunderbolt" "$TMP/darwin.json" \
	'[.network.interfaces[] | [.name, .kind, .port, .ipv4]] == [["en0", "ethernet", "Ethernet", ["192.0.2.11"]], ["en1", "wifi", "Wi-Fi", ["192.0.2.111"]], ["utun4", "other", null, ["198.51.100.7"]]]'
mkdir -p "$TMP/mb"
bash "$TOP/tests/fakemac/mkstate.sh" "$TMP/mb" macbook
PATH=$(fakemac_path) FAKEMAC_DIR=$TMP/mb "$A" --once --backend darwin --command-timeout 2 >"$TMP/macbook.json"
check_jq "darwin MacBook: no errors, its LAN is Wi-Fi en0" "$TMP/macbook.json" \
	'.errors == [] and .network.interfaces == [{"name": "en0", "kind": "wifi", "port": "Wi-Fi", "ipv4": ["192.0.2.12"]}]'
mv "$TMP/mac/networksetup.out" "$TMP/mac/networksetup.out.away"
PATH=$(fakemac_path) FAKEMAC_DIR=$TMP/mac "$A" --once --backend darwin --command-timeout 2 >"$TMP/nons.json"
check_jq "darwin without networksetup: network unknown, one error" "$TMP/nons.json" \
	'.network.interfaces == null and ([.errors[].source] == ["networksetup"])'
mv "$TMP/mac/networksetup.out.away" "$TMP/mac/networksetup.out"

# darwin faults: a hung system_profiler is killed at the timeout, the rest collected
touch "$TMP/mac/system_profiler_SPThunderboltDataType.hang"
start=$SECONDS
PATH=$(fakemac_path) FAKEMAC_DIR=$TMP/mac "$A" --once --backend darwin --command-timeout 1 >"$TMP/hang.json"
check_eq "hung command: still exits 0" 0 $?
check "hung command: killed within a few seconds" test $((SECONDS - start)) -le 6
check_jq "hung command: a timeout error from system_profiler" "$TMP/hang.json" \
	'[.errors[] | select(.source == "system_profiler" and (.message | test("timed out")))] | length >= 1'
check_jq "hung command: memory still collected" "$TMP/hang.json" '.memory.total_bytes == 549755813888'
rm -f "$TMP/mac/system_profiler_SPThunderboltDataType.hang"

# usage errors
"$A" --once --backend nosuch >/dev/null 2>"$TMP/err.txt"
check_eq "unknown backend exits 2" 2 $?
check "unknown backend names it" grep -q 'nosuch' "$TMP/err.txt"
"$A" --once --backend sim >/dev/null 2>"$TMP/err.txt"
check_eq "sim without a scenario exits 2" 2 $?
"$A" --bogus >/dev/null 2>"$TMP/err.txt"
check_eq "unknown option exits 2" 2 $?
check "unknown option is named" grep -q -- '--bogus' "$TMP/err.txt"
done_testing
