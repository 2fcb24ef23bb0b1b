#!/usr/bin/env bash
# When a report was collected decides what it does: one collected too far
# ahead of the controller's clock is refused (400), one older than the
# node's stored report is refused (409), both changing nothing; a stale one
# (collected longer ago than --unreachable-after) is stored but does not
# bring an unreachable node back; a current healthy one does, and so does a
# re-enrolment with a current healthy report.
. "$(dirname "$0")/../lib/common.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 (the command) not installed"
SC=$TOP/tests/scenarios/mesh4-studio.json
CTL=$BIN/tbctl
start_controller rt --unreachable-after 2
start_sim_agent mac1 "$SC" --interval 0.3
wait_for "mac1 ready" 20 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"mac1\" and .state == \"ready\")'"
bg_stop "$(sim_agent_pid mac1)"
TOK=$(cat "$TMP/state-mac1/node-token")
state() { "$CTL" nodes --json | jq -r '.nodes[] | select(.name == "mac1") | .state'; }
wait_for "mac1 unreachable" 15 sh -c "[ \"\$($CTL nodes --json | jq -r '.nodes[] | select(.name == \"mac1\") | .state')\" = unreachable ]"
check_eq "mac1 is unreachable" unreachable "$(state)"
last=$("$CTL" node show mac1 --json | jq '.report.collected_at')
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/r.json"
# report AT: the report collected at AT (unix seconds), every section's own
# collected_at moved with it (a section is never read after its report)
report() {
	jq -c --argjson t "$1" '(($t - .collected_at) as $d | with_entries(
		if (.value | type) == "object" and (.value.collected_at | type) == "number"
		then .value.collected_at += $d else . end)) | .collected_at = $t' "$TMP/r.json"
}
post() {   # post BODY: the status; the answer in $TMP/resp.json
	curl -H 'Content-Type: application/json' -s -o "$TMP/resp.json" -w '%{http_code}' --max-time 10 \
		-H "Authorization: Bearer $TOK" --data-binary "$1" "$CTRL_URL/v1/report"
}
now() { date +%s.%N; }
sqlite3 "$CTRL_DB" .dump >"$TMP/before.sql"

check_eq "a report collected an hour ahead: 400" 400 "$(post "$(report "$(awk -v n="$(now)" 'BEGIN {printf "%.3f", n + 3600}')")")"
check_jq "that says collected_at and the clock" "$TMP/resp.json" '.error | test("collected_at") and test("clock")'
older=$(awk -v l="$last" 'BEGIN {printf "%.3f", l - 10}')
check_eq "a report older than the stored one: 409" 409 "$(post "$(report "$older")")"
check_jq "that says older" "$TMP/resp.json" '.error | test("older")'
sleep 0.5
sqlite3 "$CTRL_DB" .dump >"$TMP/after.sql"
check "the inventory is unchanged by both" cmp -s "$TMP/before.sql" "$TMP/after.sql"

# stale: newer than the stored one, but collected more than 2 s ago
sleep 3
stale=$(awk -v l="$last" 'BEGIN {printf "%.3f", l + 0.5}')
check_eq "a stale report is stored: 204" 204 "$(post "$(report "$stale")")"
"$CTL" node show mac1 --json >"$TMP/show.json"
check_jq "it is the node's latest" "$TMP/show.json" "(.report.collected_at - $stale) | fabs < 0.0005"
sleep 0.5
check_eq "but the node stays unreachable" unreachable "$(state)"
check_eq "and came back by no event" 0 \
	"$("$CTL" events --node mac1 --json | jq '[.events[] | select(.what == "state unreachable -> ready")] | length')"

check_eq "a current healthy report: 204" 204 "$(post "$(report "$(now)")")"
wait_for "mac1 ready" 5 sh -c "[ \"\$($CTL nodes --json | jq -r '.nodes[] | select(.name == \"mac1\") | .state')\" = ready ]"
check_eq "brings it back" ready "$(state)"
check_eq "with its event" 1 \
	"$("$CTL" events --node mac1 --json | jq '[.events[] | select(.what == "state unreachable -> ready")] | length')"

# re-enrolment of an unreachable Mac with a pre-approved token and a current report
wait_for "mac1 unreachable again" 15 sh -c "[ \"\$($CTL nodes --json | jq -r '.nodes[] | select(.name == \"mac1\") | .state')\" = unreachable ]"
"$CTL" token create --ttl 10m --accept >"$TMP/boot2"
code=$(curl -H 'Content-Type: application/json' -s -o "$TMP/enrol.json" -w '%{http_code}' --max-time 10 \
	-H "Authorization: Bearer $(cat "$TMP/boot2")" --data-binary "$(report "$(now)")" "$CTRL_URL/v1/enroll")
check_eq "re-enrolment with a pre-approved token: 201" 201 "$code"
check_jq "answers ready" "$TMP/enrol.json" '.state == "ready"'
TOK=$(jq -r .token "$TMP/enrol.json")   # the node's token from now on
check_eq "the node is ready" ready "$(state)"
"$CTL" events --node mac1 --json >"$TMP/ev.json"
check_jq "with an event that says why" "$TMP/ev.json" \
	'[.events[] | select(.what == "state unreachable -> ready" and (.reason | test("re-enrolled")))] | length == 1'
"$CTL" token create --ttl 10m --accept >"$TMP/boot3"
code=$(curl -H 'Content-Type: application/json' -s -o "$TMP/enrol.json" -w '%{http_code}' --max-time 10 \
	-H "Authorization: Bearer $(cat "$TMP/boot3")" \
	--data-binary "$(report "$(awk -v n="$(now)" 'BEGIN {printf "%.3f", n + 3600}')")" "$CTRL_URL/v1/enroll")
check_eq "an enrolment with a report an hour ahead: 400" 400 "$code"
check_jq "that says collected_at" "$TMP/enrol.json" '.error | test("collected_at")'

# a stale report does not count as the node's last report after a restart
# either: uncordon still wants a fresh one
t_ready=$(now)
"$CTL" node cordon mac1 --reason "stale test" >/dev/null
sleep 6   # the re-enrolment's report is now older than the next controller's 5 s
stale2=$(awk -v t="$t_ready" 'BEGIN {printf "%.3f", t + 0.5}')
check_eq "a stale report of the cordoned node: 204" 204 "$(post "$(report "$stale2")")"
sleep 0.5
bg_stop "$CTRL_PID"
CTRL_DB_OVERRIDE=$CTRL_DB start_controller rt2 --unreachable-after 5
export TBCTL_TOKEN_FILE=$TMP/rt.admin-token   # the first start's: no new one is made
"$CTL" node uncordon mac1 >/dev/null 2>"$TMP/uncordon.err"; rc=$?
check_eq "after a restart, uncordon is refused: the only recent report is stale" 1 $rc
check "saying the node must report first" grep -q "no report in the last" "$TMP/uncordon.err"
done_testing
