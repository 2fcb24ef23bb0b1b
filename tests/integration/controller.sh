#!/usr/bin/env bash
# tbcontrollerd with four simulated Mac Studios: first start writes an admin
# token (0600); agents enrol with one-time bootstrap tokens and report;
# tbctl drives the lifecycle; roles are enforced; a node that stops
# reporting becomes unreachable and comes back; the inventory survives a
# restart.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
CTL=$BIN/tbctl
start_controller ctl --unreachable-after 2
check "admin token file written at first start" test -s "$ADMIN_TOKEN_FILE"
check_eq "admin token file is mode 0600" 600 "$(stat -c %a "$ADMIN_TOKEN_FILE")"

for n in mac1 mac2 mac3 mac4; do start_sim_agent "$n" "$SC" --interval 0.5; done
wait_for "four nodes ready" 20 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\")] | length == 4'"
"$CTL" nodes --json >"$TMP/nodes.json"
check_jq "tbctl nodes: four ready Studios" "$TMP/nodes.json" \
	'[.nodes[] | select(.state == "ready" and .model == "Mac15,14")] | length == 4'
check_jq "memory totals of 2 x 512 GB and 2 x 256 GB" "$TMP/nodes.json" \
	'[.nodes[].memory_total_bytes] | sort == [274877906944, 274877906944, 549755813888, 549755813888]'
"$CTL" nodes >"$TMP/nodes.txt"
check "tbctl nodes prints a table with a header" grep -q '^NAME' "$TMP/nodes.txt"
check_eq "the table has four rows" 4 "$(grep -c '^mac[1-4] ' "$TMP/nodes.txt")"
"$CTL" node show mac1 --json >"$TMP/mac1.json"
check_jq "node show has the report's ports" "$TMP/mac1.json" '(.report.thunderbolt.ports | length) == 6'
check "node show prints the ports for people" sh -c "$CTL node show mac1 | grep -qi 'receptacle\|port'"
check_jq "node show has the report's LAN interface" "$TMP/mac1.json" \
	'.report.network.interfaces == [{"name": "en0", "kind": "ethernet", "port": "Ethernet", "ipv4": ["192.0.2.11"]}]'
check "node show prints the LAN interface for people" sh -c \
	"$CTL node show mac1 | grep -Eq '^  LAN: +en0 \(ethernet\) 192\.0\.2\.11\$'"
check "the agent kept its node token 0600" test "$(stat -c %a "$TMP/state-mac1/node-token")" = 600

# one-time and expiring bootstrap tokens
boot=$(cat "$TMP/boot-mac1")
"$CTL" events --node mac1 --json >"$TMP/ev1.json"
check_jq "the enrolment is an event by bootstrap:ID of the token used" "$TMP/ev1.json" \
	"[.events[] | select(.what == \"enrolled\" and .actor == \"bootstrap:$(echo "$boot" | cut -d_ -f2)\")] | length == 1"
code=$(curl -H 'Content-Type: application/json' -s -o "$TMP/re.json" -w '%{http_code}' -H "Authorization: Bearer $boot" \
	--data-binary @"$TMP/mac1.json" "$CTRL_URL/v1/enroll")
check_eq "a used bootstrap token is refused" 401 "$code"
"$CTL" token create --ttl 1s >"$TMP/short"
sleep 1.5
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/r1.json"
code=$(curl -H 'Content-Type: application/json' -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$TMP/short")" \
	--data-binary @"$TMP/r1.json" "$CTRL_URL/v1/enroll")
check_eq "an expired bootstrap token is refused" 401 "$code"

# lifecycle through tbctl
"$CTL" node cordon mac3 >/dev/null 2>"$TMP/err"; rc=$?
check_eq "cordon without a reason is a usage error" 2 $rc
check "and says the reason is required" grep -qi 'reason' "$TMP/err"
check "cordon with a reason" "$CTL" node cordon mac3 --reason "replacing a cable"
check_eq "mac3 is cordoned" cordoned "$("$CTL" nodes --json | jq -r '.nodes[] | select(.name == "mac3") | .state')"
check "uncordon" "$CTL" node uncordon mac3
check_eq "mac3 is ready again" ready "$("$CTL" nodes --json | jq -r '.nodes[] | select(.name == "mac3") | .state')"
check "down with a reason" "$CTL" node down mac4 --reason "fan noise"
"$CTL" events --node mac3 --json >"$TMP/ev.json"
check_jq "events record the cordon with actor and reason" "$TMP/ev.json" \
	'[.events[] | select(.what == "state ready -> cordoned" and .reason == "replacing a cable" and (.actor | startswith("admin:")))] | length == 1'
"$CTL" node show mac9 >/dev/null 2>"$TMP/err"; rc=$?
check_eq "an unknown node fails with status 1" 1 $rc
check_eq "with one line" 1 "$(wc -l <"$TMP/err")"

# roles: a node token may not do an operator's work; a viewer may look, not act
ntok=$(cat "$TMP/state-mac1/node-token")
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ntok" "$CTRL_URL/v1/nodes")
check_eq "a node token cannot list nodes" 403 "$code"
"$CTL" token create --role viewer --ttl 1h >"$TMP/viewer"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$TMP/viewer")" "$CTRL_URL/v1/nodes")
check_eq "a viewer token can list nodes" 200 "$code"
code=$(curl -H 'Content-Type: application/json' -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$TMP/viewer")" \
	--data-binary '{"reason":"x"}' "$CTRL_URL/v1/nodes/mac1/cordon")
check_eq "a viewer token cannot cordon" 403 "$code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$CTRL_URL/v1/nodes")
check_eq "no token: 401" 401 "$code"
"$CTL" token list --json >"$TMP/tokens.json"
check "token list shows no secrets" sh -c "! grep -q 'tbm_[0-9a-f]*_' $TMP/tokens.json"
vid=$(cut -d_ -f2 "$TMP/viewer")
check "revoke the viewer token" "$CTL" token revoke "$vid"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$TMP/viewer")" "$CTRL_URL/v1/nodes")
check_eq "a revoked token is refused" 401 "$code"

# clusters
check "cluster create" "$CTL" cluster create studio4
check "cluster add" "$CTL" cluster add studio4 mac1 mac2 mac3 mac4
check_eq "the cluster has four nodes" 4 "$("$CTL" clusters --json | jq '.clusters[] | select(.name == "studio4") | .nodes')"
evs() { "$CTL" events --node mac1 --json | jq -c "[.events[] | select(.what == \"$1\") | .reason]"; }
check_eq "joining is an event" '["studio4"]' "$(evs "joined cluster")"
"$CTL" cluster create jj >/dev/null
"$CTL" cluster add jj mac1 >/dev/null
check_eq "moving is an event that says from where" '["from studio4 to jj"]' "$(evs "moved cluster")"
"$CTL" cluster add jj mac1 >/dev/null
check_eq "adding a node where it is already records nothing" \
	'["from studio4 to jj"] ["studio4"]' "$(evs "moved cluster") $(evs "joined cluster")"
"$CTL" cluster add studio4 mac1 >/dev/null
check_eq "and back" 4 "$("$CTL" clusters --json | jq '.clusters[] | select(.name == "studio4") | .nodes')"

# a node that stops reporting becomes unreachable, and ready when it returns
apid=$(sim_agent_pid mac2)
check "mac2's agent ($apid) is running" bg_alive "$apid"
kill -STOP "$apid"
wait_for "mac2 unreachable" 15 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"mac2\") | .state == \"unreachable\"'"
check_eq "mac2 became unreachable" unreachable "$("$CTL" nodes --json | jq -r '.nodes[] | select(.name == "mac2") | .state')"
kill -CONT "$apid"
wait_for "mac2 back" 15 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"mac2\") | .state == \"ready\"'"
check_eq "mac2 is ready after a fresh report" ready "$("$CTL" nodes --json | jq -r '.nodes[] | select(.name == "mac2") | .state')"
"$CTL" events --node mac2 --json >"$TMP/ev2.json"
check_jq "both transitions are events" "$TMP/ev2.json" \
	'([.events[] | select(.what == "state ready -> unreachable")] | length) >= 1 and ([.events[] | select(.what == "state unreachable -> ready")] | length) >= 1'

# restart on the same file: everything is still there
bg_stop "$CTRL_PID"   # SIGTERM; checks it exits with status 0 within 10 s
check_eq "integrity after a clean stop" ok "$(sqlite3 "$CTRL_DB" 'PRAGMA integrity_check')"
CTRL_DB_OVERRIDE=$CTRL_DB start_controller ctl2 --unreachable-after 2
check "no new admin token is made when one exists" test ! -e "$ADMIN_TOKEN_FILE"
ADMIN_TOKEN_FILE=$TMP/ctl.admin-token
export TBCTL_TOKEN_FILE=$ADMIN_TOKEN_FILE
check_eq "four nodes after a restart" 4 "$("$CTL" nodes --json | jq '.nodes | length')"
check_eq "mac4 is still down" down "$("$CTL" nodes --json | jq -r '.nodes[] | select(.name == "mac4") | .state')"
done_testing
