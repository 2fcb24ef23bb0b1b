#!/usr/bin/env bash
# tbctl node add and node deprovision against simulated Macs over real SSH
# (tests/lib/macnode.sh: sshd per node on its own 127.0.0.x address; the
# stateful fakes of tests/fakemac/prov first on its PATH; files written
# under $TMP/root-HOST), with a Mac's privileges: the controller logs in as
# the admin $MACNODE_LOGIN (root may not log in), every command that
# changes the Mac must go through `sudo -n` (the fakes refuse any other
# caller, the system folders are root's).  Wrong and unknown host keys
# refused, a dry run changes nothing, a fresh Mac becomes ready, the
# cluster's cabling plan imported later gives its ports their addresses, a
# second run changes nothing, RDMA disabled ends with the manual step, each
# preflight failure stops with its reason (no sudo rights among them), a
# failing step is undone, deprovision; the commands the fakes recorded are
# checked against the ones a Mac needs, each of them run through sudo -n.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/macnode.sh"
macnode_init
start_controller prov --ssh-key "$MACNODE_KEY" --provision-agent "$BIN/tbagentd" \
    --provision-root "$TMP/root-%h" --provision-report-wait 30
"$BIN/tbctl" cluster create studio4 >/dev/null
# the cabling plan (imported once both Macs are in the cluster): cable 0 is
# 192.168.0.0/30, mac1's receptacle 2 (.1) to mac2's 5 (.2)
echo 'graph "studio4" { "mac1":"tb2" -- "mac2":"tb5"; }' >"$TMP/plan.dot"

# prov_node NAME I: a simulated Mac without an agent, with the provisioning fakes
prov_node() {
	macnode_start "$1" "$2" --no-agent || return 1
	local d; d=$(macnode_dir "$1")
	for f in pmset networksetup sysctl launchctl; do
		ln -sf "$TOP/tests/fakemac/prov/$f" "$TMP/mac-$1/bin/$f"
	done
	echo "Apple M3 Ultra" >"$d/sysctl_machdep.cpu.brand_string.out"
	echo "$1" >"$d/hostname.out"
}
add() {   # NAME tbctl-args...: node add to NAME's address; output in $TMP/out
	local n=$1; shift
	"$BIN/tbctl" node add "$(macnode_addr "$n")" --port "$(macnode_port "$n")" \
	    --user "$MACNODE_LOGIN" "$@" \
	    >"$TMP/out" 2>"$TMP/err"
}
# what changes a Mac, among the recorded commands
MUTATING='^(pmset -a|networksetup -(set|create|remove|switchto|delete)|sysctl iogpu.wired_limit_mb=|launchctl (bootstrap|bootout|kickstart))'
changes() { grep -E "$MUTATING" "$(macnode_log "$1")" || true; }
# each of them came through sudo -n: the fake sudo logged "sudo -n CMD"
# before CMD logged itself (the agents' own read-only commands may come in
# between), or launchd ran it as root: the wired-limit job that launchctl
# bootstrap had just loaded
unprivileged() {
	awk -v re="$MUTATING" '
	    /^sudo -n / { pending[substr($0, 9)]++; next }
	    /^launchctl bootstrap .*wiredlimit/ { job++ }
	    $0 ~ re {
		if (pending[$0] > 0) pending[$0]--
		else if (job > 0 && $0 ~ /^sysctl iogpu/) job--
		else print
	    }' "$(macnode_log "$1")"
}
# fresh_log NAME: empty NAME's command log, keeping what it held in all.log
fresh_log() {
	cat "$(macnode_log "$1")" >>"$TMP/mac-$1/all.log"
	: >"$(macnode_log "$1")"
}
stop_jobs() {   # the agents fake launchd started
	for p in "$TMP"/mac-*/state/launchd/*.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	return 0
}
trap 'stop_jobs; cleanup' EXIT

prov_node mac1 1
# host keys: a wrong one and none at all are refused before any command runs
add mac1 --fingerprint SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
check_eq "wrong host key: exit 1" 1 $?
check "wrong host key: refused, saying so" grep -q "host key changed" "$TMP/out" "$TMP/err"
add mac1
check_eq "unknown host key: exit 1" 1 $?
check "unknown host key: refused" grep -q "unknown host key" "$TMP/out" "$TMP/err"
check "no command ran on mac1" test ! -s "$(macnode_log mac1)"

# dry run: every command printed, nothing changed
add mac1 --accept-new --dry-run --wired-limit-mb 458752
check_eq "dry run: exit 0" 0 $?
check "dry run: says it changed nothing" grep -q "Dry run: nothing was changed" "$TMP/out"
for c in "pmset -a sleep 0" "pmset -a autorestart 1" \
    "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' off" \
    "sysctl iogpu.wired_limit_mb=458752" "launchctl bootstrap system"; do
	check "dry run prints: $c" grep -qF "$c" "$TMP/out"
done
check_eq "dry run: nothing changed on mac1" "" "$(changes mac1)"
check "dry run: no agent installed" test ! -e "$TMP/root-$(macnode_addr mac1)/usr/local/sbin/tbagentd"

# a fresh Mac to ready
fresh_log mac1
add mac1 --accept-new --wired-limit-mb 458752 --cluster studio4
check_eq "node add: exit 0" 0 $?
check "node add: mac1 is ready" grep -q "^mac1 is ready." "$TMP/out"
"$BIN/tbctl" node show mac1 --json >"$TMP/show.json"
check_jq "mac1 is ready in the inventory" "$TMP/show.json" '.state == "ready"'
check_jq "mac1 joined studio4, ready at once (pre-approved token, not pending)" \
    "$TMP/show.json" '.cluster == "studio4" and .state == "ready"'
curl -s --max-time 10 -H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" \
    "$CTRL_URL/v1/nodes/mac1/ssh" >"$TMP/ssh.json"
check_jq "OS updates can reach mac1: its SSH address and pinned host key are kept" "$TMP/ssh.json" \
    ".host == \"$(macnode_addr mac1)\" and .port == $(macnode_port mac1) and .host_key == \"$(macnode_fp mac1)\""
d=$(macnode_dir mac1)
check "no sleep" grep -qx "sleep=0" "$d/pmset.env"
check "restart after power failure" grep -qx "autorestart=1" "$d/pmset.env"
check_eq "Thunderbolt Bridge off" 0 "$(cat "$d/services/Thunderbolt Bridge/enabled")"
check_eq "wired limit now" 458752 "$(cat "$d/wired_limit_mb")"
check "wired limit at boot" grep -q "iogpu.wired_limit_mb=458752" \
    "$TMP/root-$(macnode_addr mac1)/Library/LaunchDaemons/com.tbmesh.wiredlimit.plist"
root=$TMP/root-$(macnode_addr mac1)
# the LaunchDaemon sets the wired limit as it loads: the next step's check,
# run right after, finds it set
cat >"$TMP/want" <<WANT
networksetup -setnetworkserviceenabled Thunderbolt Bridge off
pmset -a sleep 0
pmset -a autorestart 1
launchctl bootstrap system $root/Library/LaunchDaemons/com.tbmesh.wiredlimit.plist
sysctl iogpu.wired_limit_mb=458752
launchctl bootout system/com.tbmesh.tbagentd
launchctl bootstrap system $root/Library/LaunchDaemons/com.tbmesh.tbagentd.plist
WANT
changes mac1 >"$TMP/got"
check "the commands mac1 recorded are the ones a Mac needs" diff -u "$TMP/want" "$TMP/got"
check_eq "each of them ran through sudo -n" "" "$(unprivileged mac1)"
check "the preflight says the admin may use sudo -n" grep -q "pass $MACNODE_LOGIN runs what needs root with sudo -n" "$TMP/out"
check "the files are root's" test "$(stat -c %u "$root/usr/local/sbin/tbagentd" "$root/Library/LaunchDaemons/com.tbmesh.tbagentd.plist" "$root/var/lib/tbagentd" | sort -u)" = 0
check "the agent's state is root's alone" test "$(stat -c %a "$root/var/lib/tbagentd")" = 700
check "the agent runs as root" test "$(stat -c %u "/proc/$(cat "$(macnode_dir mac1)/launchd/com.tbmesh.tbagentd.pid")")" = 0

# RDMA disabled ends with the manual step, and node show keeps saying it
prov_node mac2 2
cp "$(macnode_dir mac2)/rdma_ctl_status.out" "$TMP/rdma_enabled"
echo disabled >"$(macnode_dir mac2)/rdma_ctl_status.out"
add mac2 --accept-new --cluster studio4
check_eq "RDMA off: exit 0" 0 $?
check "RDMA off: ends with the manual step" grep -q \
    "^Manual step for mac2: boot into Recovery, Terminal, rdma_ctl enable, reboot" "$TMP/out"
"$BIN/tbctl" node show mac2 >"$TMP/show"
check "node show mac2: the manual step" grep -q "Manual step: *boot into Recovery" "$TMP/show"
# done at the Mac: the next report says enabled, and node show stops asking
cp "$TMP/rdma_enabled" "$(macnode_dir mac2)/rdma_ctl_status.out"
wait_for "mac2 reports RDMA enabled" 30 \
    sh -c "'$BIN/tbctl' node show mac2 --json | jq -e '.rdma == \"enabled\"'"
"$BIN/tbctl" node show mac2 >"$TMP/show"
check "node show mac2: RDMA enabled" grep -q "^RDMA: *enabled" "$TMP/show"
check "node show mac2: no manual step once RDMA is enabled" sh -c "! grep -q 'Manual step' '$TMP/show'"

# both in the cluster: its cabling plan; a new run gives the ports their /30s
"$BIN/tbctl" wiring import studio4 "$TMP/plan.dot" >/dev/null
check_eq "the cabling plan is imported" 0 $?
fresh_log mac1
add mac1 --wired-limit-mb 458752 --cluster studio4
check_eq "with the plan: exit 0" 0 $?
d=$(macnode_dir mac1)
# the ports' services live in a location of their own, "tbmesh", made as exo
# makes its own: a service for each LAN port first, so the LAN goes on
loc=$d/locations/tbmesh
check_eq "the Mac is in the tbmesh location" tbmesh "$(cat "$d/netloc")"
check_eq "Thunderbolt 2: its cable's address" 192.168.0.1 "$(cat "$loc/tbmesh Thunderbolt 2/ip")"
check_eq "Thunderbolt 2: a /30" 255.255.255.252 "$(cat "$loc/tbmesh Thunderbolt 2/mask")"
check "the location has the LAN's services too" test -d "$loc/Ethernet" -a -d "$loc/Wi-Fi"
check "and no bridge: the Thunderbolt ports are not bridged there" test ! -e "$loc/Thunderbolt Bridge"
printf '%s\n' "networksetup -createlocation tbmesh" "networksetup -switchtolocation tbmesh" \
    "networksetup -createnetworkservice Ethernet Ethernet" "networksetup -createnetworkservice Wi-Fi Wi-Fi" \
    "networksetup -createnetworkservice tbmesh Thunderbolt 2 Thunderbolt 2" \
    "networksetup -setmanual tbmesh Thunderbolt 2 192.168.0.1 255.255.255.252" >"$TMP/want"
changes mac1 >"$TMP/got"
check "with the plan: the location, the port's service and address are new (a new service is enabled)" \
    diff -u "$TMP/want" "$TMP/got"
check_eq "with the plan: through sudo -n" "" "$(unprivileged mac1)"
add mac2 --cluster studio4
check_eq "mac2 Thunderbolt 5: the other end of the cable" 192.168.0.2 \
    "$(cat "$(macnode_dir mac2)/locations/tbmesh/tbmesh Thunderbolt 5/ip")"

# a second run changes nothing
fresh_log mac1
add mac1 --wired-limit-mb 458752 --cluster studio4
check_eq "second run: exit 0" 0 $?
check_eq "second run: nothing changed" "" "$(changes mac1)"
check "second run: every step done already" sh -c "! grep -qE '^  (applied|would apply)' '$TMP/out'"
check_eq "second run: sudo only for what only root may read (the agent's state)" \
    "sudo -n test -s $root/var/lib/tbagentd/node-token" "$(grep '^sudo ' "$(macnode_log mac1)" | grep -v '^sudo -n true$')"

# the cables' base: refused when a cable's /24 holds a LAN address (here the
# address SSH reaches mac1 at), taken when it does not
fresh_log mac1
add mac1 --cluster studio4 --ip-base 127.0.0.0
check_eq "a base whose cable /24 holds mac1's address: exit 1" 1 $?
check "saying which cable and address, and what to do" grep -q \
    "cable 0's 127.0.0.0/30 is in the /24 of mac1's LAN address 127.0.0.2: give the cables another base (tbctl node add --ip-base A.B.0.0, such as 10.254.0.0)" "$TMP/out"
check_eq "nothing changed" "" "$(changes mac1)"
add mac1 --cluster studio4 --ip-base 10.254.0.0
check_eq "--ip-base 10.254.0.0: exit 0" 0 $?
check_eq "Thunderbolt 2 is cable 0's .1 in 10.254.0.0/30" 10.254.0.1 \
    "$(cat "$(macnode_dir mac1)/locations/tbmesh/tbmesh Thunderbolt 2/ip")"
add mac1 --cluster studio4 --ip-base 10.254.1.0
check_eq "a base that is not A.B.0.0 is a usage error" 2 $?

# a LaunchDaemon plist that differs from tbmesh's: its step rewrites it and
# boots the agent out; the next step's check, run right after, finds the
# agent unloaded and loads it again (checked all first, it passed before the
# bootout and left the agent unloaded until a reboot)
echo "<!-- edited -->" >>"$root/Library/LaunchDaemons/com.tbmesh.tbagentd.plist"
add mac1 --cluster studio4 --ip-base 10.254.0.0
check_eq "an edited plist: exit 0" 0 $?
check "the plist step applied" grep -q "^  applied *agent-plist " "$TMP/out"
check "and the agent was loaded again right after" grep -q "^  applied *agent-daemon " "$TMP/out"
check "the agent runs" sh -c "FAKEMAC_DIR='$(macnode_dir mac1)' '$TOP/tests/fakemac/prov/launchctl' print system/com.tbmesh.tbagentd | grep -q 'state = running'"

# a step that fails stops the run; what the run changed is undone
prov_node mac4 4
d=$(macnode_dir mac4)
touch "$d/pmset.fail"
add mac4 --accept-new
check_eq "failing step: exit 1" 1 $?
check "failing step: says which and why" grep -q \
    "^Stopped at pmset-autorestart: exit status 1: Error: autorestart is not supported" "$TMP/out"
check "failing step: says what was undone" grep -q "^Undone: pmset-sleep, bridge-off" "$TMP/out"
check "failing step: sleep is back" grep -qx "sleep=1" "$d/pmset.env"
check_eq "failing step: the bridge is back on" 1 "$(cat "$d/services/Thunderbolt Bridge/enabled")"
check "failing step: no agent installed" test ! -e "$TMP/root-$(macnode_addr mac4)/usr/local/sbin/tbagentd"

# each preflight failure stops with its reason, changing nothing
prov_node mac3 3
d=$(macnode_dir mac3)
cp "$d/sw_vers.out" "$TMP/sw_vers"
preflight_fails() {   # WHAT REASON
	fresh_log mac3
	add mac3 --accept-new
	check_eq "$1: exit 1" 1 $?
	check "$1: says $2" grep -qF "$2" "$TMP/out"
	check_eq "$1: nothing changed" "" "$(changes mac3)"
}
sed -i 's/26.2/15.5/; s/25C56/24F74/' "$d/sw_vers.out"
preflight_fails "old macOS" "needs 26.2 or later"
cp "$TMP/sw_vers" "$d/sw_vers.out"
echo "Intel(R) Xeon(R) W-3245 CPU @ 3.20GHz" >"$d/sysctl_machdep.cpu.brand_string.out"
preflight_fails "Intel" "not Apple silicon"
echo "Apple M3 Ultra" >"$d/sysctl_machdep.cpu.brand_string.out"
cp "$d/system_profiler_SPThunderboltDataType.out" "$TMP/tb"
sed -i 's/Up to 120 Gb\/s/Up to 40 Gb\/s/; s/"80 Gb\/s"/"40 Gb\/s"/' "$d/system_profiler_SPThunderboltDataType.out"
preflight_fails "no Thunderbolt 5" "is Thunderbolt 5"
cp "$TMP/tb" "$d/system_profiler_SPThunderboltDataType.out"
macnode_fault mac3 disk-full
preflight_fails "full disk" "GiB needed"
sed -i '2s/ 1000000 / 800000000 /' "$d/df.out"
# no sudo rights: the real sudo -n wants a password; the preflight says how to grant them
macnode_fault mac3 no-sudo
preflight_fails "no sudo rights" \
    "$MACNODE_LOGIN cannot run commands as root without a password (sudo -n true: sudo: a password is required): install what \`tbctl node add --print-sudoers --user $MACNODE_LOGIN\` prints as /etc/sudoers.d/tbmesh"
check "no sudo rights: only sudo -n true was tried" test "$(grep -c '^sudo' "$(macnode_log mac3)")" = 1
macnode_fault mac3 sudo
# a MacBook: pmset -g has no autorestart, the step does not apply; and its
# bridge's service has another name (a Mac set up in German): found by its
# device, bridge0, and turned off all the same
touch "$d/pmset.laptop"
mv "$d/services/Thunderbolt Bridge" "$d/services/Thunderbolt-Brücke"
fresh_log mac3
add mac3 --accept-new
check_eq "a laptop: exit 0" 0 $?
check_eq "the bridge found by its device, whatever its name: off" 0 "$(cat "$d/services/Thunderbolt-Brücke/enabled")"
check "the preflight named it" grep -q "Thunderbolt Bridge (\"Thunderbolt-Brücke\" on bridge0): enabled" "$TMP/out"
check "a laptop: restart after a power failure is not applicable" \
    grep -q "^  not applicable *pmset-autorestart" "$TMP/out"
check_eq "a laptop: autorestart never set" "" "$(grep 'autorestart' "$(macnode_log mac3)")"

# deprovision: the agent and its LaunchDaemons go, the network stays
fresh_log mac1
"$BIN/tbctl" node deprovision mac1 >"$TMP/out" 2>&1
check_eq "deprovision: exit 0" 0 $?
root=$TMP/root-$(macnode_addr mac1)
check "deprovision: agent removed" test ! -e "$root/usr/local/sbin/tbagentd"
check "deprovision: its LaunchDaemon removed" test ! -e "$root/Library/LaunchDaemons/com.tbmesh.tbagentd.plist"
check "deprovision: the wired-limit LaunchDaemon removed" \
    test ! -e "$root/Library/LaunchDaemons/com.tbmesh.wiredlimit.plist"
check "deprovision: the port's service stays" test -d "$(macnode_dir mac1)/locations/tbmesh/tbmesh Thunderbolt 2"
printf '%s\n' "launchctl bootout system/com.tbmesh.tbagentd" \
    "launchctl bootout system/com.tbmesh.wiredlimit" >"$TMP/want"
changes mac1 >"$TMP/got"
check "deprovision: the commands mac1 recorded are the ones a Mac needs" diff -u "$TMP/want" "$TMP/got"
check_eq "deprovision: through sudo -n" "" "$(unprivileged mac1)"
check "deprovision: the files went through sudo -n rm" grep -q "^sudo -n rm -rf $root/var/lib/tbagentd$" "$(macnode_log mac1)"
fresh_log mac1
check "deprovision: the agent stopped" test ! -e "$(macnode_dir mac1)/launchd/com.tbmesh.tbagentd.pid"
check_eq "deprovision: the bridge stays off" 0 "$(cat "$(macnode_dir mac1)/services/Thunderbolt Bridge/enabled")"
"$BIN/tbctl" node deprovision mac1 --network >"$TMP/out" 2>&1
check_eq "deprovision --network: exit 0" 0 $?
check_eq "deprovision --network: the bridge is back on" 1 "$(cat "$(macnode_dir mac1)/services/Thunderbolt Bridge/enabled")"
check "deprovision --network: the port's service removed with its location" \
    test ! -e "$(macnode_dir mac1)/locations/tbmesh"
check_eq "deprovision --network: back in Automatic" Automatic "$(cat "$(macnode_dir mac1)/netloc")"
printf '%s\n' "networksetup -switchtolocation Automatic" "networksetup -deletelocation tbmesh" \
    "networksetup -setnetworkserviceenabled Thunderbolt Bridge on" >"$TMP/want"
changes mac1 >"$TMP/got"
check "deprovision --network: the network commands mac1 recorded" diff -u "$TMP/want" "$TMP/got"
check_eq "deprovision --network: through sudo -n" "" "$(unprivileged mac1)"
# why a location: networksetup will not remove a port's only service
# (networksetup -help), which the tbmesh services are in their location
ns() { FAKEMAC_DIR=$(macnode_dir mac1) "$TOP/tests/fakemac/prov/networksetup" "$@" >/dev/null; }
ns -createnetworkservice "tbmesh Thunderbolt 3" "Thunderbolt 3"
ns -removenetworkservice "tbmesh Thunderbolt 3"
check_eq "a port's only service cannot be removed" 4 $?
# the sudoers drop-in tbctl prints allows every command that went through
# sudo on every Mac (the real visudo checks its syntax), and nothing more
# than its list: a command it lacks is refused by the same check
"$BIN/tbctl" node add --print-sudoers --user "$MACNODE_LOGIN" >"$TMP/tbmesh.sudoers"
check_eq "node add --print-sudoers: exit 0" 0 $?
check "the drop-in is valid sudoers (visudo -c)" visudo -cqf "$TMP/tbmesh.sudoers"
check "it is for $MACNODE_LOGIN, without a password" grep -q "^$MACNODE_LOGIN ALL = (root) NOPASSWD: " "$TMP/tbmesh.sudoers"
for n in mac1 mac2 mac3 mac4; do
	fresh_log "$n"
	check "$n: every sudo -n command is one the drop-in allows" \
	    python3 "$TOP/tests/lib/sudoers_check.py" "$TMP/tbmesh.sudoers" "$TMP/mac-$n/all.log" \
	    "$TMP/root-$(macnode_addr "$n")"
done
echo "sudo -n rm -rf /" >"$TMP/rogue.log"
check "a command it does not list is refused by that check" \
    sh -c "! python3 '$TOP/tests/lib/sudoers_check.py' '$TMP/tbmesh.sudoers' '$TMP/rogue.log'"
stop_jobs
done_testing
