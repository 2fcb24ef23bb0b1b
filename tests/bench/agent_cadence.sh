#!/usr/bin/env bash
# What watching a Mac costs it: tbagentd (darwin backend, the default 5 s
# interval) on a fake Mac Studio whose commands log every call
# (tests/fakemac, FAKEMAC_LOG), beside a shell loop that polls a second
# such fake for the same 60 s at exo's cadence (exo-explore/exo,
# src/exo/utils/info_gatherer/info_gatherer.py L444-456 at b5375f8c):
# system_profiler SPThunderboltDataType and networksetup every 5 s,
# rdma_ctl every 10 s, its bridge loop (networksetup three ways, ifconfig
# bridge0) every 10 s, system_profiler SPHardwareDataType and sw_vers every
# 60 s, one long-lived macmon.  Both run at once; the agent is measured
# from mid-interval after its first collection (its start-up reads are
# printed apart), over 60 s.  Goals: at most 40 commands and at most 2
# system_profiler runs a minute.  Exit 1 if missed.
. "$(dirname "$0")/../lib/common.sh"
WINDOW=60
for k in agent exo; do
	mkdir -p "$TMP/$k"
	bash "$TOP/tests/fakemac/mkstate.sh" "$TMP/$k" studio >/dev/null
	: >"$TMP/$k.log"
done
export PATH=$(fakemac_path)

FAKEMAC_DIR=$TMP/agent FAKEMAC_LOG=$TMP/agent.log start_agent bench --backend darwin --interval 5 ||
	exit 1
wait_for "the first report" 10 curl -sf "http://127.0.0.1:$AGENT_PORT/v1/report" || exit 1
startup=$(wc -l <"$TMP/agent.log")

# exo's cadence on the other fake, for the same window
exo_loop() {
	export FAKEMAC_DIR=$TMP/exo FAKEMAC_LOG=$TMP/exo.log
	macmon pipe -i 1000 >/dev/null 2>&1 &
	local mm=$! tick=0 next
	next=$(date +%s.%N)
	while [ $tick -lt $((WINDOW / 5)) ]; do
		{
			system_profiler SPThunderboltDataType -json
			networksetup -listallhardwareports
			if [ $((tick % 2)) = 0 ]; then
				rdma_ctl status
				networksetup -listallhardwareports
				networksetup -listnetworkserviceorder
				ifconfig bridge0
				networksetup -getnetworkserviceenabled "Thunderbolt Bridge"
			fi
			if [ $tick = 0 ]; then
				system_profiler SPHardwareDataType
				sw_vers -buildVersion
			fi
		} >/dev/null 2>&1
		tick=$((tick + 1))
		next=$(echo "$next + 5" | bc)
		sleep "$(echo "$next - $(date +%s.%N)" | bc | sed 's/^-.*/0/')"
	done
	kill "$mm" 2>/dev/null
	wait "$mm" 2>/dev/null
}

sleep 2.5                      # mid-interval: no collection cut by the window
a0=$(wc -l <"$TMP/agent.log")
exo_loop &
exo_pid=$!
sleep "$WINDOW"
a1=$(wc -l <"$TMP/agent.log")
wait "$exo_pid"
tail -n +$((a0 + 1)) "$TMP/agent.log" | head -n $((a1 - a0)) >"$TMP/agent.window"

cmds() { wc -l <"$1" | tr -d ' '; }
sps() { grep -c '^system_profiler' "$1"; }
a_cmd=$(cmds "$TMP/agent.window") a_sp=$(sps "$TMP/agent.window")
e_cmd=$(cmds "$TMP/exo.log") e_sp=$(sps "$TMP/exo.log")
per_min() { awk -v n="$1" -v w="$WINDOW" 'BEGIN {printf "%.1f", n * 60 / w}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
echo "agent_cadence: commands started in $WINDOW s on two fake Macs, same run"
printf '  %-22s commands/min %5s   system_profiler/min %4s\n' \
	"tbagentd (5 s)" "$(per_min "$a_cmd")" "$(per_min "$a_sp")" \
	"exo's cadence" "$(per_min "$e_cmd")" "$(per_min "$e_sp")"
echo "  tbagentd's start-up (first collection): $startup commands"
echo "  what tbagentd ran in the window:"
sort "$TMP/agent.window" | uniq -c | sed 's/^/    /'
echo "  commands ratio        (tbagentd / exo): $(ratio "$a_cmd" "$e_cmd")"
echo "  system_profiler ratio (tbagentd / exo): $(ratio "$a_sp" "$e_sp")"
echo "  commands/min:        $(per_min "$a_cmd")  (goal <= 40)"
echo "  system_profiler/min: $(per_min "$a_sp")  (goal <= 2)"
bg_stop "$AGENT_PID" >/dev/null
rc=0
awk -v c="$(per_min "$a_cmd")" 'BEGIN {exit !(c <= 40)}' || rc=1
awk -v c="$(per_min "$a_sp")" 'BEGIN {exit !(c <= 2)}' || rc=1
[ "$a_cmd" -gt 0 ] || rc=1
exit $rc
