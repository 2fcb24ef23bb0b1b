#!/usr/bin/env bash
# Zero-touch enrolment: an agent with a plain bootstrap token enrols as
# pending and is never ready until tbctl node accept; a serial on its
# cluster's allow-list, or a pre-approved token, makes it ready at once.  A
# re-enrolment of a known Mac (its hardware UUID is no secret) changes
# nothing until accepted: the node keeps its state and its token, and the
# new token's reports never make it ready.  A re-enrolment into another
# cluster is refused with 409.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
CTL=$BIN/tbctl
start_controller enrol --unreachable-after 5

state_of() { "$CTL" nodes --json | jq -r ".nodes[] | select(.name == \"$1\") | .state"; }
# post TOKEN ROUTE FILE: the status of a POST of FILE with TOKEN; body in $TMP/post.out
post() {
	curl -H 'Content-Type: application/json' -s -o "$TMP/post.out" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $1" \
		--data-binary @"$3" "$CTRL_URL$2"
}
report_of() { "$BIN/tbagentd" --once --backend sim --scenario "$SC" --node "$1"; }

# ---- pending, then accepted
start_pending_sim_agent mac1 "$SC" --interval 0.3
wait_for "mac1 enrolled" 10 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"mac1\")'"
check_eq "a plain bootstrap token enrols mac1 as pending" pending "$(state_of mac1)"
t0=$("$CTL" node show mac1 --json | jq '.last_report_at')
sleep 1.5
"$CTL" node show mac1 --json >"$TMP/mac1.json"
check_jq "its reports are stored" "$TMP/mac1.json" ".last_report_at > $t0 and (.report.thunderbolt.ports | length) == 6"
check_eq "but it stays pending while it reports" pending "$(state_of mac1)"
check_jq "with the command to accept it as the reason" "$TMP/mac1.json" '.reason | test("tbctl node accept mac1")'
"$CTL" node accept mac1 --reason "racked by hand" >"$TMP/accept.out"; rc=$?
check_eq "tbctl node accept succeeds" 0 $rc
check "and says the node is ready" grep -q '^mac1 accepted: ready' "$TMP/accept.out"
check_eq "mac1 is ready" ready "$(state_of mac1)"
"$CTL" events --node mac1 --json >"$TMP/ev.json"
check_jq "the acceptance is an event with the admin as actor and the reason" "$TMP/ev.json" \
	'[.events[] | select(.what == "state pending -> ready" and .reason == "racked by hand" and (.actor | startswith("admin:")))] | length == 1'
"$CTL" node accept mac1 >/dev/null 2>"$TMP/err"; rc=$?
check_eq "accepting a ready node fails" 1 $rc
check "saying it is not pending" grep -q 'not pending' "$TMP/err"
check "node accept has --help" sh -c "$CTL node accept --help | grep -q -- '--reason'"

# ---- accepted before its first healthy report: ready when one comes
"$CTL" token create --ttl 10m >"$TMP/boot-late"
report_of mac4 | jq '.memory.total_bytes = null' >"$TMP/sick.json"
check_eq "mac4 enrols with an unhealthy report" 201 "$(post "$(cat "$TMP/boot-late")" /v1/enroll "$TMP/sick.json")"
check_jq "as pending" "$TMP/post.out" '.state == "pending" and .node == "mac4"'
tok4=$(jq -r .token "$TMP/post.out")
"$CTL" node accept mac4 >"$TMP/accept4.out"
check "accepted without a healthy report it stays pending" grep -q '^mac4 accepted: pending' "$TMP/accept4.out"
check_eq "mac4 is still pending" pending "$(state_of mac4)"
report_of mac4 >"$TMP/well.json"
check_eq "its next report is stored" 204 "$(post "$tok4" /v1/report "$TMP/well.json")"
check_eq "and, healthy, makes it ready" ready "$(state_of mac4)"

# ---- allow-list of serials per cluster
check "cluster create" "$CTL" cluster create studio4
serial2=$(report_of mac2 | jq -r .node.serial)
serial3=$(report_of mac3 | jq -r .node.serial)
"$CTL" cluster allow studio4 "$serial2" >"$TMP/allow.out"; rc=$?
check_eq "tbctl cluster allow succeeds" 0 $rc
check "and says so" grep -q "$serial2 on cluster studio4's allow-list" "$TMP/allow.out"
"$CTL" clusters --json >"$TMP/clusters.json"
check_jq "tbctl clusters --json shows the allow-list" "$TMP/clusters.json" \
	".clusters[] | select(.name == \"studio4\") | .allow == [\"$serial2\"]"
check "tbctl clusters shows it in its table" sh -c "$CTL clusters | grep '^studio4 ' | grep -q '$serial2'"
"$CTL" cluster allow studio4 "bad serial" >/dev/null 2>&1; rc=$?
check_eq "a serial that is not one is a usage error" 2 $rc
"$CTL" cluster allow nosuch "$serial2" >/dev/null 2>&1; rc=$?
check_eq "an unknown cluster fails" 1 $rc
for n in mac2 mac3; do
	"$CTL" token create --ttl 10m --cluster studio4 >"$TMP/boot-$n"
	mkdir -p "$TMP/state-$n"
	start_agent "agent-$n" --backend sim --scenario "$SC" --node "$n" --interval 0.3 \
		--controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot-$n" --state-dir "$TMP/state-$n"
done
wait_for "mac2 ready" 10 sh -c "[ \"\$($CTL nodes --json | jq -r '.nodes[] | select(.name == \"mac2\") | .state')\" = ready ]"
check_eq "mac2, whose serial is allowed, is ready without node accept" ready "$(state_of mac2)"
wait_for "mac3 enrolled" 10 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"mac3\")'"
sleep 1
check_eq "mac3, same cluster, serial not allowed, is pending" pending "$(state_of mac3)"
"$CTL" events --node mac2 --json >"$TMP/ev-mac2.json"
check_jq "enrolling with a cluster's token is a 'joined cluster' event" "$TMP/ev-mac2.json" \
	'[.events[] | select(.what == "joined cluster" and .reason == "studio4")] | length == 1'
check "cluster disallow" "$CTL" cluster disallow studio4 "$serial2"
"$CTL" clusters --json >"$TMP/clusters.json"
check_jq "the allow-list is empty again" "$TMP/clusters.json" '.clusters[] | select(.name == "studio4") | .allow == []'
"$CTL" cluster allow studio4 "$serial3" >/dev/null

# ---- bad input changes nothing
"$CTL" clusters --json >"$TMP/clusters.before"
for body in '{"serials":[]}' '{"serials":"H9XK2J4F7Q"}' '{"serials":["a b"]}' '{}' 'not json'; do
	code=$(api POST /v1/clusters/studio4/allow "$body")
	check_eq "allow with $body: 400" 400 "$code"
done
api POST /v1/clusters/studio4/allow '{"serials":[]}' >/dev/null
check_jq "with a JSON error naming the problem" "$TMP/api.out" '.error | test("at least one serial")'
check_eq "allow on an unknown cluster: 404" 404 "$(api POST /v1/clusters/nosuch/allow '{"serials":["X1"]}')"
"$CTL" clusters --json >"$TMP/clusters.after"
check "the allow-lists are unchanged" cmp -s "$TMP/clusters.before" "$TMP/clusters.after"
check_eq "an admin token cannot be pre-approved: 400" 400 \
	"$(api POST /v1/tokens '{"role":"admin","accept":true}')"
check_jq "saying so" "$TMP/api.out" '.error | test("only a bootstrap token")'
check_eq "accept must be a boolean: 400" 400 \
	"$(api POST /v1/tokens '{"role":"bootstrap","ttl_seconds":60,"accept":"yes"}')"
check_eq "accepting an unknown node: 404" 404 "$(api POST /v1/nodes/nosuch/accept '{}')"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$TMP/state-mac1/node-token")" \
	"$CTRL_URL/v1/nodes/mac3/accept")
check_eq "a node token cannot accept a node: 403" 403 "$code"
check_eq "mac3 is still pending" pending "$(state_of mac3)"

# ---- re-enrolment of a known Mac: pending, nothing changes until accepted
tok1=$(cat "$TMP/state-mac1/node-token")
"$CTL" token create --ttl 10m >"$TMP/attacker-boot"
report_of mac1 | jq '.memory.total_bytes = 1099511627776' >"$TMP/forged.json"
mem=$("$CTL" node show mac1 --json | jq .memory_total_bytes)
check_eq "a re-enrolment with mac1's hardware UUID gets a token" 201 \
	"$(post "$(cat "$TMP/attacker-boot")" /v1/enroll "$TMP/forged.json")"
check_jq "marked pending" "$TMP/post.out" '.state == "pending" and .node == "mac1"'
tok2=$(jq -r .token "$TMP/post.out")
check_eq "mac1 stays ready" ready "$(state_of mac1)"
# mac1's agent reports every 0.3 s: a report made here can be overtaken by
# one of the agent's before it is posted (409: older than the stored one);
# then another is made, a few times at most.
for try in 1 2 3 4 5; do
	report_of mac1 >"$TMP/r1.json"
	code=$(post "$tok1" /v1/report "$TMP/r1.json")
	[ "$code" = 409 ] || break
	echo "# try $try overtaken by the agent: $(cat "$TMP/post.out")"
done
check_eq "mac1's own token still works" 204 "$code"
check_eq "the new token's report is kept with the request" 202 "$(post "$tok2" /v1/report "$TMP/forged.json")"
check_eq "it does not make mac1 anything" ready "$(state_of mac1)"
check_eq "nor change its record" "$mem" "$("$CTL" node show mac1 --json | jq .memory_total_bytes)"
"$CTL" token list --json >"$TMP/tokens.json"
id2=$(echo "$tok2" | cut -d_ -f2); id1=$(echo "$tok1" | cut -d_ -f2)
check_jq "token list shows the new token pending" "$TMP/tokens.json" \
	".tokens[] | select(.id == \"$id2\") | .pending == true and .revoked == false"
check_jq "and the old one not revoked" "$TMP/tokens.json" ".tokens[] | select(.id == \"$id1\") | .revoked == false"
"$CTL" events --node mac1 --json >"$TMP/ev.json"
check_jq "the request is an event by the bootstrap token" "$TMP/ev.json" \
	'[.events[] | select(.what == "re-enrolment pending" and (.actor | startswith("bootstrap:")))] | length == 1'
# an approved re-enrolment (pre-approved token) of mac3, pending: ready, new token
"$CTL" token create --ttl 10m --accept >"$TMP/boot-ok"
report_of mac3 >"$TMP/r3.json"
check_eq "a pre-approved re-enrolment of pending mac3" 201 "$(post "$(cat "$TMP/boot-ok")" /v1/enroll "$TMP/r3.json")"
check_eq "makes it ready at once" ready "$(state_of mac3)"

# ---- a re-enrolment into another cluster: 409, token not used
check "cluster create other" "$CTL" cluster create other
"$CTL" token create --ttl 10m --cluster other --accept >"$TMP/boot-other"
report_of mac2 >"$TMP/r2.json"
check_eq "re-enrolling mac2 (studio4) with a token for cluster other: 409" 409 \
	"$(post "$(cat "$TMP/boot-other")" /v1/enroll "$TMP/r2.json")"
check "the error names both clusters" grep -q 'studio4.*other' "$TMP/post.out"
"$CTL" token list --json >"$TMP/tokens.json"
check_jq "the bootstrap token is not spent" "$TMP/tokens.json" \
	".tokens[] | select(.id == \"$(cut -d_ -f2 "$TMP/boot-other")\") | .used_at == null"

# ---- accepting the re-enrolment: its token is the node's, the old one revoked
bg_stop "$(sim_agent_pid mac1)"   # the old agent would report with the old token
"$CTL" node accept mac1 >"$TMP/accept.out"; rc=$?
check_eq "tbctl node accept mac1 accepts the re-enrolment" 0 $rc
check_eq "the request's report became the node's" 1099511627776 \
	"$("$CTL" node show mac1 --json | jq .memory_total_bytes)"
check_eq "the old token is revoked" 401 "$(post "$tok1" /v1/report "$TMP/r1.json")"
check_eq "the new one reports" 204 "$(post "$tok2" /v1/report "$TMP/r1.json")"
check_eq "mac1 is ready" ready "$(state_of mac1)"
"$CTL" events --node mac1 --json >"$TMP/ev.json"
check_jq "the acceptance is an event by the admin" "$TMP/ev.json" \
	'[.events[] | select(.what == "re-enrolment accepted" and (.actor | startswith("admin:")))] | length == 1'

# ---- a restart keeps pending nodes pending and the allow-list
report_of mac4 | jq '.node.hardware_uuid = "00000000-0000-0000-0000-00000000F00D" | .node.hostname = "mac9"' >"$TMP/r9.json"
"$CTL" token create --ttl 10m >"$TMP/boot9"
check_eq "a new Mac mac9 enrols" 201 "$(post "$(cat "$TMP/boot9")" /v1/enroll "$TMP/r9.json")"
bg_stop "$CTRL_PID"
CTRL_DB_OVERRIDE=$CTRL_DB start_controller enrol2 --unreachable-after 5
export TBCTL_TOKEN_FILE=$TMP/enrol.admin-token
check_eq "mac9 is still pending after a restart" pending "$(state_of mac9)"
"$CTL" clusters --json >"$TMP/clusters.json"
check_jq "the allow-list survives it" "$TMP/clusters.json" \
	".clusters[] | select(.name == \"studio4\") | .allow == [\"$serial3\"]"
done_testing
