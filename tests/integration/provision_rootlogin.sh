#!/usr/bin/env bash
# Provisioning where an operator really lets root log in over SSH
# (MACNODE_ROOT_LOGIN=1: the simulated Mac's sshd has PermitRootLogin
# prohibit-password and the controller logs in as root): no sudo at all,
# the preflight says so, the Mac becomes ready, a second run changes
# nothing, deprovision --network undoes it.  Every other provisioning and
# rollout test logs in as a non-root admin through sudo -n.
. "$(dirname "$0")/../lib/common.sh"
MACNODE_ROOT_LOGIN=1
. "$(dirname "$0")/../lib/macnode.sh"
macnode_init
[ "$(id -u)" = 0 ] || skip_all "root login needs the test to run as root"
start_controller prov --ssh-key "$MACNODE_KEY" --provision-agent "$BIN/tbagentd" \
    --provision-root "$TMP/root-%h" --provision-report-wait 30
stop_jobs() {   # the agent fake launchd started
	for p in "$TMP"/mac-*/state/launchd/*.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	return 0
}
trap 'stop_jobs; cleanup' EXIT

macnode_start mac1 1 --no-agent
d=$(macnode_dir mac1)
for f in pmset networksetup sysctl launchctl; do
	ln -sf "$TOP/tests/fakemac/prov/$f" "$TMP/mac-mac1/bin/$f"
done
echo "Apple M3 Ultra" >"$d/sysctl_machdep.cpu.brand_string.out"
check "sshd lets root in, with a key" grep -qx "PermitRootLogin prohibit-password" "$TMP/mac-mac1/sshd_config"
check_eq "the controller logs in as root" root "$MACNODE_LOGIN"
add() {
	"$BIN/tbctl" node add "$(macnode_addr mac1)" --port "$(macnode_port mac1)" --user root \
	    "$@" >"$TMP/out" 2>&1
}
add --accept-new --wired-limit-mb 458752
check_eq "node add as root: exit 0" 0 $?
check "mac1 is ready" grep -q "^mac1 is ready." "$TMP/out"
check "the preflight says no sudo is needed" grep -q "pass logged in as root: no sudo needed" "$TMP/out"
check_eq "no command went through sudo" "" "$(grep '^sudo' "$(macnode_log mac1)" | grep -v '^sudo -n true$')"
check "the commands are the plain ones" grep -q "^  *\$ pmset -a sleep 0$" "$TMP/out"
check "no sleep" grep -qx "sleep=0" "$d/pmset.env"
check_eq "Thunderbolt Bridge off" 0 "$(cat "$d/services/Thunderbolt Bridge/enabled")"
check "the agent is installed" test -x "$TMP/root-$(macnode_addr mac1)/usr/local/sbin/tbagentd"
: >"$(macnode_log mac1)"
add
check_eq "second run: exit 0" 0 $?
check "second run: every step done already" sh -c "! grep -qE '^  (applied|would apply)' '$TMP/out'"
"$BIN/tbctl" node deprovision mac1 --network >"$TMP/out" 2>&1
check_eq "deprovision --network as root: exit 0" 0 $?
check "the agent removed" test ! -e "$TMP/root-$(macnode_addr mac1)/usr/local/sbin/tbagentd"
check_eq "the bridge is back on" 1 "$(cat "$d/services/Thunderbolt Bridge/enabled")"
check_eq "still no sudo" "" "$(grep '^sudo' "$(macnode_log mac1)" | grep -v '^sudo -n true$')"
stop_jobs
done_testing
