#!/usr/bin/env bash
# Each fault halts an OS update at the right node with the right reason, and
# leaves the node cordoned (once it was cordoned): host key changed, disk too
# full, no sudo rights for the admin the controller logs in as, an update
# user who is not a volume owner, install fails, RDMA disabled after the
# update, back on the old build, never back.  Then the password is nowhere: not in the controller's
# log, the events, the API's answers, tbctl's output, the inventory file or
# the commands' argv on the nodes.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
ROLLOUT_CTRL_OPTS="--boot-timeout 40"
rollout_setup lab mac1 mac2 mac3 || { not_ok "setup"; done_testing; }
OUT=$TMP/outputs
mkdir -p "$OUT"
n_out=0

# start_halted NODE STEP PATTERN: a rollout that must halt at NODE's STEP
# with a reason matching PATTERN; then it is aborted.
start_halted() {
	local node=$1 step=$2 pat=$3 id
	n_out=$((n_out + 1))
	"$CTL" rollout start --cluster lab --target 26.3 --mode rolling >"$OUT/start$n_out.txt" 2>&1
	id=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
	rollout_wait "$id" 90 halted
	rollout_json "$id"
	cp "$TMP/ro.json" "$OUT/ro$n_out.json"
	"$CTL" rollout status "$id" >"$OUT/status$n_out.txt"
	check_jq "$step fault: halts at $node's $step" "$TMP/ro.json" \
		".nodes[] | select(.node == \"$node\") | .step == \"failed\" and .failed_step == \"$step\""
	# what the steps said, and the Macs' restarts, when it halted elsewhere
	jq_true "$TMP/ro.json" ".nodes[] | select(.node == \"$node\") | .failed_step == \"$step\"" || {
		sqlite3 "$CTRL_DB" "SELECT node, step, substr(output, 1, 800) FROM rollout_log WHERE rollout_id = $id AND phase = 'end'" | tail -n 30 | sed 's/^/# /'
		for m in mac1 mac2 mac3; do echo "# $m reboots: $(tr '\n' ' ' <"$(macnode_dir $m)/reboots" 2>/dev/null)"; done
	}
	check_jq "$step fault: the reason says $pat" "$TMP/ro.json" \
		".reason | test(\"^$node: $step: .*$pat\")"
	check "$step fault: tbctl rollout status shows it" grep -q "$pat" "$OUT/status$n_out.txt"
	"$CTL" events --node "$node" --json >"$OUT/ev$n_out.json"
	check_jq "$step fault: an event says why" "$OUT/ev$n_out.json" \
		"[.events[] | select(.what == \"rollout-failed\" and (.reason | test(\"$pat\")))] | length >= 1"
	"$CTL" rollout abort "$id" >/dev/null
	RO_ID=$id
}

node_state() { "$CTL" nodes --json | jq -r ".nodes[] | select(.name == \"$1\") | .state + \" \" + (.reason // \"\")"; }

# 1. mac1's host key changed: refused with both fingerprints
old_fp=$(macnode_fp mac1)
macnode_fault mac1 hostkey-changed
new_fp=$(macnode_fp mac1)
start_halted mac1 preflight "host key changed"
check_jq "both fingerprints are in the reason" "$TMP/ro.json" \
	".reason | contains(\"$old_fp\") and contains(\"$new_fp\")"
check_eq "nothing ran on mac1 after the refusal" 0 "$(cat "$(macnode_log mac1)" 2>/dev/null | grep -c softwareupdate)"
"$CTL" node trust mac1 --fingerprint "$new_fp" >/dev/null

# 2. mac1's disk is too full
macnode_fault mac1 disk-full
start_halted mac1 preflight "free disk"
check_eq "a node failing its preflight was not cordoned" "ready " "$(node_state mac1)"
sed -i '2s/ 1000000 / 800000000 /' "$(macnode_dir mac1)/df.out"

# 2b. the admin the controller logs in as has no sudo rights (the real sudo
# -n wants a password): refused at preflight, saying how to grant them
macnode_fault mac1 no-sudo
: >"$(macnode_log mac1)"
start_halted mac1 preflight "$MACNODE_LOGIN cannot run softwareupdate as root: sudo -n true: sudo: a password is required; install what \`tbctl node add --print-sudoers --user $MACNODE_LOGIN\` prints as /etc/sudoers.d/tbmesh"
check_eq "no sudo rights: softwareupdate was not asked anything" 0 "$(grep -c '^softwareupdate' "$(macnode_log mac1)")"
check_eq "no sudo rights: not cordoned" "ready " "$(node_state mac1)"
macnode_fault mac1 sudo

# 2c. the update's user (admin) is not a volume owner of the Mac's system volume
macnode_fault mac1 not-volume-owner
start_halted mac1 preflight "the update's user admin is not a volume owner of /"
check "not a volume owner: the reason says where it looked and what to do" grep -qF \
	"(diskutil apfs listcryptousers /): softwareupdate on Apple silicon needs a volume owner's password; give one with tbctl credentials set" \
	"$OUT/status$n_out.txt"
check "not a volume owner: its volume owners were read" grep -q "^diskutil apfs listcryptousers /$" "$(macnode_log mac1)"
macnode_set mac1 OWNER admin

# 3. the install fails
macnode_fault mac1 install-fails
start_halted mac1 install "An error occurred installing"
check_eq "mac1 stays cordoned with the reason" \
	"cordoned rollout $RO_ID failed at install: sudo -n softwareupdate --install 'macOS Tahoe 26.3-25D125' --restart --agree-to-license --no-scan --user 'admin' --stdinpass: exit 1: Failed to install macOS Tahoe 26.3-25D125: An error occurred installing the update." \
	"$(node_state mac1)"
macnode_set mac1 FAULT ''
"$CTL" node uncordon mac1 >/dev/null

# 4. RDMA disabled after the update
macnode_fault mac1 rdma-off
start_halted mac1 verify "RDMA is disabled"
check_eq "mac1 is on the new build" 25D125 "$(macnode_build mac1)"
check "mac1 stays cordoned" sh -c "test \"\$($CTL nodes --json | jq -r '.nodes[] | select(.name == \"mac1\") | .state')\" = cordoned"

# 5. mac2 comes back on the old build (mac1, at the target, is skipped)
macnode_fault mac2 old-build
start_halted mac2 verify "came back on 26.2"
check_jq "mac1, already at the target, was skipped" "$TMP/ro.json" \
	'.nodes[] | select(.node == "mac1") | .step == "skipped"'
macnode_set mac2 FAULT ''

# 6. mac3 never comes back (mac2 now updates normally)
macnode_fault mac3 never-back
"$CTL" node uncordon mac2 >/dev/null
start_halted mac3 wait "did not come back"
check_jq "mac2 was updated on the way" "$OUT/ro$n_out.json" \
	'.nodes[] | select(.node == "mac2") | .step == "done"'
check_eq "mac2 is on the new build" 25D125 "$(macnode_build mac2)"

# 7. a wrong password: refused by softwareupdate, and not shown
printf 'not the password\n' >"$TMP/secret/wrong" && chmod 600 "$TMP/secret/wrong"
macnode_set mac3 FAULT ''
sed -i -e 's/^ProductVersion:.*/ProductVersion:		26.2/' -e 's/^BuildVersion:.*/BuildVersion:		25C56/' \
	"$(macnode_dir mac3)/sw_vers.out"
rm -f "$(macnode_dir mac3)/rebooting"
wait_for "mac3 back" 20 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"mac3\" and .last_report_at > (now - 3))'"
"$CTL" node uncordon mac3 >/dev/null 2>&1
"$CTL" credentials set mac3 --user admin --password-file "$TMP/secret/wrong" >"$OUT/cred.txt"
start_halted mac3 install "Failed to authenticate user admin"

# Where the password must not be
"$CTL" events --json >"$OUT/events.json"
"$CTL" rollout status --json >"$OUT/rollouts.json"
"$CTL" rollout status >"$OUT/rollouts.txt"
"$CTL" nodes --json >"$OUT/nodes.json"
for n in mac1 mac2 mac3; do curl -s -H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" \
	"$CTRL_URL/v1/nodes/$n/ssh" >"$OUT/ssh-$n.json"; done
sqlite3 "$CTRL_DB" .dump >"$OUT/inventory.sql"
check "the inventory dump holds the install outputs" grep -q 'Failed to authenticate' "$OUT/inventory.sql"
for pw in "$PASSWORD" "not the password"; do
	hits=$(grep -rlF -- "$pw" "$OUT" "$CTRL_LOG" "$CTRL_DB" "$CTRL_DB-wal" "$TMP"/mac-*/commands.log "$TMP"/mac-*/home \
		"$TMP"/mac-*/sshd.log "$TMP"/mac-*/agent.log 2>/dev/null)
	check_eq "the password \"$pw\" is in no output, log, event, answer, argv or install log on a Mac" "" "$hits"
done
check_eq "the password files are 0600" "600 600" \
	"$(stat -c %a "$TMP/ctl-state/credentials/cluster-lab" "$TMP/ctl-state/credentials/node-mac3" | tr '\n' ' ' | sed 's/ $//')"
check_eq "in a 0700 directory" 700 "$(stat -c %a "$TMP/ctl-state/credentials")"
done_testing
