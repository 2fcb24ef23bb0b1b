#!/usr/bin/env bash
# OS update campaigns: bad input is refused and changes nothing; a dry run
# prints every step with its commands and changes nothing; a window that
# excludes now starts no node; pause and resume; lockstep takes the three
# nodes out together and brings them all to the target, stopping the
# cluster's placements before any node installs and restoring them after
# every node passes.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
ROLLOUT_CTRL_OPTS="--catalog $TOP/data/catalog.json"
rollout_setup lock3 mac1 mac2 mac3 || { not_ok "setup"; done_testing; }

# bad input: exit 2 for usage, 1 for a refusal; nothing stored
"$CTL" rollout start --cluster lock3 --target 26.3 --mode sideways >/dev/null 2>"$TMP/e"; rc=$?
check_eq "an unknown mode is a usage error" 2 $rc
check "that names the mode" grep -q 'sideways' "$TMP/e"
"$CTL" rollout start --cluster lock3 --target 26.3 --mode rolling --window 25:00-02:00 >/dev/null 2>&1
check_eq "a bad window is a usage error" 2 $?
"$CTL" rollout start --cluster nosuch --target 26.3 --mode rolling >/dev/null 2>"$TMP/e"; rc=$?
check_eq "an unknown cluster fails" 1 $rc
check_eq "with one line" 1 "$(wc -l <"$TMP/e")"
"$CTL" node trust mac1 --fingerprint SHA256:short >/dev/null 2>&1
check_eq "a malformed fingerprint is a usage error" 2 $?
code=$(api POST /v1/rollouts '{"cluster":"lock3","target":"26.3","mode":"rolling","max_unavailable":0}')
check_eq "the API refuses max_unavailable 0" 400 "$code"
code=$(api POST /v1/nodes/mac1/trust '{"fingerprint":"MD5:aa"}')
check_eq "the API refuses a fingerprint that is not SHA256" 400 "$code"
code=$(api POST /v1/credentials '{"node":"mac1","cluster":"lock3","user":"admin","password":"x"}')
check_eq "credentials for a node and a cluster at once are refused" 400 "$code"
check_jq "and the error does not echo the password" "$TMP/api.out" '.error | contains("x\"") | not'
check_eq "nothing was stored" '[]' "$("$CTL" rollout status --json | jq -c .rollouts)"

# dry run
"$CTL" events --json | jq '.events | length' >"$TMP/nev"
"$CTL" rollout start --cluster lock3 --target 26.3 --mode rolling --dry-run >"$TMP/dry.txt"
check "dry run says nothing is changed" grep -q '^Dry run: nothing is changed' "$TMP/dry.txt"
check_eq "dry run shows the install command for each node" 3 \
	"$(grep -c "install: sudo -n softwareupdate --install '<label of 26.3>' --restart --agree-to-license --no-scan --user 'admin' --stdinpass" "$TMP/dry.txt")"
check "and the preflight, download, wait, verify and uncordon steps" sh -c \
	"grep -q 'preflight: softwareupdate --list' $TMP/dry.txt && grep -q 'download: sudo -n softwareupdate --download' $TMP/dry.txt && grep -q 'wait: ' $TMP/dry.txt && grep -q 'verify: ' $TMP/dry.txt && grep -q 'uncordon: ' $TMP/dry.txt"
check "and the preflight's privilege and volume owner checks" \
	grep -q "preflight: sudo -n true; dscl . -read /Users/'admin' GeneratedUID; diskutil apfs listcryptousers /" "$TMP/dry.txt"
"$CTL" rollout start --cluster lock3 --target 26.3 --mode rolling --dry-run --json >"$TMP/dry.json"
check_jq "dry run JSON: no id, every node with its commands" "$TMP/dry.json" \
	'.id == null and .dry_run and ([.nodes[] | select((.commands | length) >= 8)] | length == 3)'
sleep 1
check_eq "dry run stored no rollout" '[]' "$("$CTL" rollout status --json | jq -c .rollouts)"
check_eq "dry run ran nothing on the nodes" 0 "$(cat "$TMP"/mac-*/commands.log 2>/dev/null | wc -l)"
check_eq "dry run recorded no event" "$(cat "$TMP/nev")" "$("$CTL" events --json | jq '.events | length')"
check_eq "dry run cordoned nothing" 3 "$("$CTL" nodes --json | jq '[.nodes[] | select(.state == "ready")] | length')"

# a window that excludes now: no node starts
h=$(date -u +%H); w=$(printf '%02d:00-%02d:00' $(( (10#$h + 2) % 24 )) $(( (10#$h + 3) % 24 )))
"$CTL" rollout start --cluster lock3 --target 26.3 --mode rolling --window "$w" >/dev/null
id=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
sleep 2
rollout_json "$id"
check_jq "outside its window ($w UTC) no node starts" "$TMP/ro.json" \
	".window == \"$w\" and ([.nodes[] | select(.step == \"pending\")] | length == 3)"
"$CTL" rollout start --cluster lock3 --target 26.3 --mode rolling >/dev/null 2>"$TMP/e"
check "a second open rollout on the cluster is refused" grep -q "still open" "$TMP/e"
check "abort" "$CTL" rollout abort "$id"
"$CTL" rollout resume "$id" >/dev/null 2>"$TMP/e"
check_eq "an aborted rollout cannot resume" 1 $?

# placements on mac1 and mac3 (the window test above drained nothing: no node started)
p1=$("$CTL" place llama-3.3-70b:4bit --nodes mac1 --apply --json | jq -r .id)
p3=$("$CTL" place llama-3.3-70b:4bit --nodes mac3 --apply --json | jq -r .id)
check_eq "two active placements before lockstep" 2 "$("$CTL" placements --json | jq '[.placements[] | select(.state == "active")] | length')"

# lockstep, paused at once and resumed; each restart takes 8 s so that the
# three are down together
for n in mac1 mac2 mac3; do macnode_set $n REBOOT_SECS 8; done
"$CTL" rollout start --cluster lock3 --target 26.3 --mode lockstep >/dev/null
id=$("$CTL" rollout status --json | jq -r '.rollouts[0].id')
check "pause" "$CTL" rollout pause
sleep 2
rollout_json "$id"
check_jq "paused: no node goes past its current step" "$TMP/ro.json" \
	'.state == "paused" and ([.nodes[] | select(.step == "pending" or .step == "preflight" or .step == "cordon")] | length == 3)'
check "resume" "$CTL" rollout resume
maxout=0
deadline=$((SECONDS + 150))
while [ $SECONDS -lt $deadline ]; do
	rollout_json "$id"
	out=$(jq '[.nodes[] | select(.step != "pending" and .step != "done")] | length' "$TMP/ro.json")
	[ "$out" -gt "$maxout" ] && maxout=$out
	[ "$(jq -r .state "$TMP/ro.json")" = running ] || break
	sleep 0.2
done
check_jq "lockstep finished" "$TMP/ro.json" '.state == "finished"'
check_eq "lockstep had all three nodes out of service together" 3 "$maxout"
for n in mac1 mac2 mac3; do
	check_eq "$n is on the target" 25D125 "$(macnode_build $n)"
done
lid=$id
"$CTL" events --json >"$TMP/ev.json"
for p in $p1 $p3; do
	check_jq "placement $p was stopped by the lockstep rollout, with an event" "$TMP/ev.json" \
		"[.events[] | select(.what == \"placement $p stopped\" and .actor == \"rollout:$lid\" and (.reason | startswith(\"stopped by rollout $lid (lockstep)\")))] | length == 1"
	check_jq "and restored after every node passed" "$TMP/ev.json" \
		"[.events[] | select(.what == \"placement $p restored\")] | length == 1"
done
stopped=$(jq "[.events[] | select(.what | test(\"^placement [0-9]+ stopped\$\")) | .time] | max" "$TMP/ev.json")
first_install=$(sqlite3 "$CTRL_DB" "SELECT min(time) FROM rollout_log WHERE rollout_id = $lid AND step = 'install'")
check "they were stopped before any node installed ($stopped < $first_install)" \
	awk -v a="$stopped" -v b="$first_install" 'BEGIN { exit !(a + 0 > 0 && a < b) }'
restored=$(jq "[.events[] | select(.what | test(\"^placement [0-9]+ restored\$\")) | .time] | min" "$TMP/ev.json")
last_end=$(sqlite3 "$CTRL_DB" "SELECT max(time) FROM rollout_log WHERE rollout_id = $lid AND step = 'uncordon' AND phase = 'end'")
check "and restored once the last node passed ($restored, $last_end: the same transaction)" \
	awk -v a="$restored" -v b="$last_end" 'BEGIN { exit !(a + 0 > 0 && a + 0.001 >= b) }'
check_eq "both placements are active again" 2 "$("$CTL" placements --json | jq '[.placements[] | select(.state == "active" and .reason == "")] | length')"
check "the three were down at the same time" sh -c \
	"test \$(cat $TMP/mac-*/state/reboots | sort -n -s -k1,1 | awk '{print \$2}' | head -3 | tr -d '\n') = downdowndown"
done_testing
