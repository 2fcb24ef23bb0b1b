#!/usr/bin/env bash
# What the darwin collector runs, on a fake Mac Studio that logs every
# command (tests/fakemac): three commands a collection and nothing else
# while nothing changes; a pulled cable seen in the very next report; the
# macmon child killed and started again, with a growing backoff when it
# keeps failing; a new boot time reading the identity again.
. "$(dirname "$0")/../lib/common.sh"
M=$TMP/mac
mkdir -p "$M"
bash "$TOP/tests/fakemac/mkstate.sh" "$M" studio
export FAKEMAC_DIR=$M
CALLS=$TMP/calls
: >"$CALLS"
PATH=$(fakemac_path) FAKEMAC_LOG=$CALLS start_agent cadence --backend darwin --interval 1 \
	--command-timeout 4
U=http://127.0.0.1:$AGENT_PORT
collections() { curl -sf "$U/metrics" | sed -n 's/^tbmesh_agent_collections_total //p'; }
report() { curl -sf "$U/v1/report"; }
calls_since() { tail -n +$(($1 + 1)) "$CALLS"; }
wait_for "two collections" 15 sh -c "[ \"\$(curl -sf $U/metrics | sed -n 's/^tbmesh_agent_collections_total //p')\" -ge 2 ]"

# the first collection read everything once
check_eq "identity read once" 1 "$(grep -c '^system_profiler SPHardwareDataType' "$CALLS")"
check_eq "one macmon child, started once" 1 "$(grep -c '^macmon pipe -i 1000' "$CALLS")"
check_eq "no macmon started a sample at a time" 0 "$(grep -c '^macmon pipe -s' "$CALLS")"
check_eq "no memory_pressure, hostname or per-port ifconfig" 0 \
	"$(grep -Ec '^(memory_pressure|hostname|ifconfig en|ifconfig bridge|ibv_devices)' "$CALLS")"

# eight collections with nothing changing: sysctl, vm_stat, ifconfig -a each, nothing else
c0=$(collections) n0=$(wc -l <"$CALLS")
wait_for "eight more collections" 20 sh -c "[ \"\$(curl -sf $U/metrics | sed -n 's/^tbmesh_agent_collections_total //p')\" -ge $((c0 + 8)) ]"
c1=$(collections) n1=$(wc -l <"$CALLS")
calls_since "$n0" | head -n $((n1 - n0)) >"$TMP/window"
other=$(grep -Evc '^(sysctl hw.memsize vm.swapusage iogpu.wired_limit_mb kern.memorystatus_level kern.boottime kern.hostname|vm_stat |ifconfig -a)$' "$TMP/window")
check_eq "nothing but the three every-collection commands ($(sort "$TMP/window" | uniq -c | tr '\n' ';'))" 0 "$other"
check "at most 3 commands a collection: $((n1 - n0)) in $((c1 - c0))" \
	test $((n1 - n0)) -le $((3 * (c1 - c0 + 1)))
report >"$TMP/r0.json"
check_jq "the topology's time is the first collection's, older than the report" "$TMP/r0.json" \
	'.thunderbolt.collected_at < .collected_at and .rdma.collected_at == .thunderbolt.collected_at'
check_jq "memory, network, power: read now" "$TMP/r0.json" \
	'.memory.collected_at == .collected_at and .network.collected_at == .collected_at and
	 .power.collected_at <= .collected_at and .power.source == "macmon"'
check_jq "node: same boot, so as of now" "$TMP/r0.json" '.node.collected_at == .collected_at'
curl -sf "$U/metrics" >"$TMP/m.prom"
check "promtool accepts the metrics" promtool check metrics <"$TMP/m.prom"
check "each section's read time is a metric" grep -q \
	'^tbmesh_report_section_timestamp_seconds{section="thunderbolt"} ' "$TMP/m.prom"

# pull the cable on receptacle 2 (en2): the next report shows it
jq '.SPThunderboltDataType |= map(if .receptacle_1_tag.receptacle_id_key == "2" then del(._items) |
	.receptacle_1_tag = {"current_speed_key": "Up to 120 Gb/s", "link_status_key": "0x100",
	"receptacle_id_key": "2", "receptacle_status_key": "receptacle_no_devices_connected"} else . end)' \
	"$M/system_profiler_SPThunderboltDataType.out" >"$TMP/sp" &&
	mv "$TMP/sp" "$M/system_profiler_SPThunderboltDataType.out"
sed -e '/inet 169.254.205.255/d' -e '/^en2:/,/status:/s/status: active/status: inactive/' \
	"$M/ifconfig.out" >"$TMP/ifc" && mv "$TMP/ifc" "$M/ifconfig.out"
t_pull=$(date +%s.%N) n_pull=$(wc -l <"$CALLS")
first=
for _ in $(seq 100); do
	report >"$TMP/r1.json" 2>/dev/null || true
	if jq -e --argjson t "$t_pull" '.collected_at > $t' "$TMP/r1.json" >/dev/null 2>&1; then
		first=yes; break
	fi
	sleep 0.1
done
check_eq "a report collected after the pull" yes "$first"
check_jq "the first report after it shows receptacle 2 empty, no address" "$TMP/r1.json" \
	'.thunderbolt.ports[] | select(.receptacle == "2") | .status == "empty" and .peer == null and .ipv4 == []'
check_jq "and its topology was read with it" "$TMP/r1.json" '.thunderbolt.collected_at == .collected_at'
check "system_profiler ran again for it" sh -c "tail -n +$((n_pull + 1)) '$CALLS' | grep -q '^system_profiler SPThunderboltDataType'"

# kill the macmon child: started again after 1 s
mpid=$(ps -o pid=,args= --ppid "$AGENT_PID" | awk '/macmon pipe/ {print $1; exit}')
check "the agent's macmon child is found" test -n "$mpid"
n_kill=$(wc -l <"$CALLS")
kill -9 "$mpid"
wait_for "macmon started again" 10 sh -c "tail -n +$((n_kill + 1)) '$CALLS' | grep -q '^macmon pipe -i 1000'"
wait_for "power back from the new child" 10 sh -c "curl -sf $U/v1/report | jq -e '.power.source == \"macmon\" and .errors == []'"

# both power commands failing at once: each start waits twice as long as the last
rm -f "$M/macmon_pipe.out" "$M/powermetrics_cpu_power,gpu_power.out"
n_fail=$(wc -l <"$CALLS")
mpid=$(ps -o pid=,args= --ppid "$AGENT_PID" | awk '/macmon pipe/ {print $1; exit}')
[ -n "$mpid" ] && kill -9 "$mpid"
# (waits of 1, 2 and 4 s, each seen at a collection: 3 starts take some 10 s
# on an idle machine; 40 s leaves room for a loaded one)
starts=()
t_end=$(( $(date +%s) + 40 ))
seen=0
while [ "$(date +%s)" -lt $t_end ] && [ "$seen" -lt 3 ]; do
	k=$(tail -n +$((n_fail + 1)) "$CALLS" | grep -Ec '^(macmon pipe|powermetrics --samplers)')
	while [ "$seen" -lt "$k" ]; do starts+=("$(date +%s.%N)"); seen=$((seen + 1)); done
	sleep 0.1
done
check "3 starts within 40 s (${#starts[@]})" test "${#starts[@]}" -ge 3
if [ "${#starts[@]}" -ge 3 ]; then
	g1=$(echo "${starts[1]} - ${starts[0]}" | bc) g2=$(echo "${starts[2]} - ${starts[1]}" | bc)
	check "backoff grows: $g1 s, then $g2 s" sh -c "echo '$g2 > $g1 + 0.5' | bc | grep -qx 1"
	check "the first wait is a second at least: $g1 s" sh -c "echo '$g1 >= 0.9' | bc | grep -qx 1"
fi
report >"$TMP/r2.json"
check_jq "the report says why, and its power (if any) is older than it" "$TMP/r2.json" \
	'(.power.collected_at == null or .power.collected_at < .collected_at) and
	 ([.errors[] | select(.source == "macmon" or .source == "powermetrics") |
	 select(.message | test("next start in|started again"))] | length) >= 1'
wait_for "after the silence limit (30 s), no power values" 40 sh -c "curl -sf $U/v1/report | jq -e '.power.source == null'"
# both commands work again: the next start, of either one, brings power back
# (within the backoff, 60 s at most), whichever one's turn it is
cp "$TOP/tests/fixtures/macos/macmon-pipe.jsonl" "$M/macmon_pipe.out"
cp "$TOP/tests/fixtures/macos/powermetrics-cpu_power-gpu_power.txt" \
	"$M/powermetrics_cpu_power,gpu_power.out"
wait_for "power back once the commands work" 80 sh -c \
	"curl -sf $U/v1/report | jq -e '.power.source == \"macmon\" or .power.source == \"powermetrics\"'"

# a new boot time: the identity is read again
n_boot=$(wc -l <"$CALLS")
echo '{ sec = 1763999999, usec = 0 } Mon Nov 24 15:59:59 2025' >"$M/sysctl_kern.boottime.out"
sed 's/25C56/25D5/' "$M/sw_vers.out" >"$TMP/sv" && mv "$TMP/sv" "$M/sw_vers.out"
wait_for "the new OS build reported" 10 sh -c "curl -sf $U/v1/report | jq -e '.node.os_build == \"25D5\" and .node.boot_time == 1763999999'"
check_eq "the hardware read once more" 1 \
	"$(tail -n +$((n_boot + 1)) "$CALLS" | grep -c '^system_profiler SPHardwareDataType')"

mpid=$(ps -o pid=,args= --ppid "$AGENT_PID" | awk '/macmon pipe|powermetrics --samplers/ {print $1; exit}')
check "the agent's power child is found" test -n "$mpid"
bg_stop "$AGENT_PID"
check "and gone with the agent" sh -c "! kill -0 $mpid 2>/dev/null"
done_testing
