#!/usr/bin/env bash
# A controller killed while a Mac installs its update, and restarted a
# second later, does not install again: it finds the install it sent
# (recorded before the command went out), sees what the Mac shows of it
# (softwareupdate's process, softwareupdated's lines in install.log) and
# waits for the restart.  Each of two Macs takes 8 s to install (the fake
# softwareupdated goes on without the SSH session, as on a Mac); the
# controller is killed during each install.  Every Mac installs once and
# restarts once; the rollout finishes.  The install was started detached,
# as root through sudo -n by the admin the controller logs in as, its
# output in ~/Library/Logs/tbmesh-softwareupdate.log on the Mac, which the
# resumed step reads too.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
rollout_setup duo mac1 mac2 || { not_ok "setup"; done_testing; }
for n in mac1 mac2; do macnode_set "$n" INSTALL_SECS 8; done
PORT=${CTRL_URL##*:}
OPTS=(--db "$CTRL_DB" --listen "127.0.0.1:$PORT" --admin-token-file "$ADMIN_TOKEN_FILE"
	--ssh-key "$MACNODE_KEY" --state-dir "$TMP/ctl-state" --boot-timeout 60 --ssh-timeout 5
	--ssh-command-timeout 20 --install-timeout 60)

"$CTL" rollout start --cluster duo --target 26.3 --mode rolling >/dev/null
pid=$CTRL_PID run=0
for n in mac1 mac2; do
	# the install has begun on n: softwareupdated wrote its first line
	wait_for "$n's install to begin" 90 test -s "$(macnode_dir $n)/install.log" || break
	sleep 1
	check "$n: still installing when the controller is killed" test ! -e "$(macnode_dir $n)/rebooting"
	check_eq "$n: still on the old build then" 25C56 "$(macnode_build $n)"
	kill -KILL "$pid"; bg_forget "$pid"; builtin wait "$pid" 2>/dev/null
	sleep 1
	run=$((run + 1))
	bg_start "$TMP/ctl-run$run.log" "$BIN/tbcontrollerd" "${OPTS[@]}"
	pid=$BG_PID
	wait_for "controller run $run" 10 grep -q 'listening on' "$TMP/ctl-run$run.log"
done
rollout_wait 1 120 finished
rollout_json 1
check_jq "the rollout finished" "$TMP/ro.json" '.state == "finished"'
for n in mac1 mac2; do
	check_eq "$n is on the target" 25D125 "$(macnode_build $n)"
	check_eq "$n installed it once" 1 "$(macnode_installs $n)"
	check_eq "$n restarted once" 1 "$(grep -c down "$(macnode_dir $n)/reboots")"
	check_eq "$n was sent one install command" 1 \
		"$(grep -c '^softwareupdate --install' "$(macnode_log $n)")"
	check "$n: the resumed step looked at its processes and install.log" \
		grep -q "^ps -A -ww -o pid= -o etime= -o command=" "$(macnode_log $n)"
	check "$n: and at the detached install's own log" \
		grep -q "^tail -n 20 .*/home/Library/Logs/tbmesh-softwareupdate.log$" "$(macnode_log $n)"
	check_eq "$n: the install ran as root, through sudo -n" \
		"sudo -n softwareupdate --install macOS Tahoe 26.3-25D125 --restart --agree-to-license --no-scan --user admin --stdinpass" \
		"$(grep '^sudo -n softwareupdate --install' "$(macnode_log $n)")"
	check "$n: its log on the Mac ends with softwareupdate's exit status" \
		grep -qx "tbmesh: softwareupdate exited with status 0" "$TMP/mac-$n/home/Library/Logs/tbmesh-softwareupdate.log"
	out=$(sqlite3 "$CTRL_DB" "SELECT output FROM rollout_log WHERE node = '$n' AND step = 'install' AND phase = 'end'")
	check "$n: the install step says it waited for the install it sent" \
		grep -q "^install sent at .*: .*install.log has [0-9]* lines\? of softwareupdate since.*; waiting for the restart, not sending it again" <<<"$out"
	check_jq "$n: its record says when the install was sent" "$TMP/ro.json" \
		".nodes[] | select(.node == \"$n\") | .install_sent_at > 0"
done
check_eq "no restart was taken for an unexpected one" 0 \
	"$(sqlite3 "$CTRL_DB" "SELECT count(*) FROM events WHERE what LIKE '%unexpected reboot%'")"
bg_stop "$pid"
done_testing
