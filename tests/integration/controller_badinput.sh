#!/usr/bin/env bash
# Bad requests get a 4xx with a JSON error naming the problem, and change
# nothing: the inventory is dumped before and after and compared.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
start_controller bad --unreachable-after 3600
for n in mac1 mac2; do start_sim_agent "$n" "$SC" --interval 0.3; done
wait_for "two nodes" 20 sh -c "$BIN/tbctl nodes --json | jq -e '.nodes | length == 2'"
# the agents stop, so that nothing but the requests below reaches the
# controller: SIGTERM, then each is gone (status 0) within 10 s
bg_stop "$(sim_agent_pid mac1)" "$(sim_agent_pid mac2)"
tok1=$(cat "$TMP/state-mac1/node-token")
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac2 >"$TMP/mac2.json"
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/mac1.json"
wait_for "the inventory to settle" 10 inventory_settled
check "the inventory is settled before the requests" inventory_settled

# expect STATUS WORDS DESCRIPTION curl-args...: status and a JSON error containing WORDS
expect() {
	local want=$1 words=$2 what=$3; shift 3
	local code
	code=$(curl -H 'Content-Type: application/json' -s -o "$TMP/resp.json" -w '%{http_code}' --max-time 10 "$@")
	check_eq "$what: status" "$want" "$code"
	if jq_true "$TMP/resp.json" ".error | ascii_downcase | contains(\"$words\")"; then
		ok "$what: the error says \"$words\""
	else
		not_ok "$what: error lacks \"$words\": $(head -c 300 "$TMP/resp.json")"
	fi
}
N=(-H "Authorization: Bearer $tok1")
A=(-H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")")
expect 400 "json" "malformed JSON report" "${N[@]}" --data-binary '{"schema": "tbmesh.report/1", "collected_at": ' "$CTRL_URL/v1/report"
expect 400 "memory.total_bytes" "wrong type in a report" "${N[@]}" \
	--data-binary "$(jq -c '.memory.total_bytes = "lots"' "$TMP/mac1.json")" "$CTRL_URL/v1/report"
expect 400 "speed_gbps" "out-of-range speed" "${N[@]}" \
	--data-binary "$(jq -c '.thunderbolt.ports[0].speed_gbps = 1e9' "$TMP/mac1.json")" "$CTRL_URL/v1/report"
printf '%s' "$(jq -c '.node.serial = "AB"' "$TMP/mac1.json")" | sed 's/"AB"/"A\x01B"/' >"$TMP/ctl.json"
expect 400 "control character" "a raw control character in a string" "${N[@]}" --data-binary @"$TMP/ctl.json" "$CTRL_URL/v1/report"
expect 400 "node.hostname" "a report whose hostname is a path" "${N[@]}" \
	--data-binary "$(jq -c '.node.hostname = "../../etc"' "$TMP/mac1.json")" "$CTRL_URL/v1/report"
expect 400 "node.hostname" "a report whose hostname is empty" "${N[@]}" \
	--data-binary "$(jq -c '.node.hostname = ""' "$TMP/mac1.json")" "$CTRL_URL/v1/report"
expect 403 "another mac" "a report for another node's token" "${N[@]}" --data-binary @"$TMP/mac2.json" "$CTRL_URL/v1/report"
head -c 400000 /dev/zero | tr '\0' 'x' >"$TMP/big"
expect 413 "too large" "an oversized body" "${N[@]}" --data-binary @"$TMP/big" "$CTRL_URL/v1/report"
expect 404 "no such path" "an unknown route" "${A[@]}" "$CTRL_URL/v1/nope"
expect 405 "not allowed" "a wrong method" "${A[@]}" -X PUT "$CTRL_URL/v1/nodes"
allow=$(curl -s -D - -o /dev/null -X PUT "${A[@]}" "$CTRL_URL/v1/nodes" | tr -d '\r' | sed -n 's/^Allow: //Ip')
check_eq "405 carries Allow (HEAD with GET)" "GET, HEAD" "$allow"
expect 400 "reason" "cordon with a reason of the wrong type" "${A[@]}" --data-binary '{"reason": 5}' "$CTRL_URL/v1/nodes/mac1/cordon"
expect 400 "reason" "cordon with no reason" "${A[@]}" --data-binary '{}' "$CTRL_URL/v1/nodes/mac1/cordon"
expect 404 "no such node" "cordon of an unknown node" "${A[@]}" --data-binary '{"reason":"x"}' "$CTRL_URL/v1/nodes/mac9/cordon"
expect 400 "role" "a token request without a role" "${A[@]}" --data-binary '{"ttl_seconds": 60}' "$CTRL_URL/v1/tokens"
expect 400 "ttl" "a bootstrap token without a ttl" "${A[@]}" --data-binary '{"role":"bootstrap"}' "$CTRL_URL/v1/tokens"
expect 400 "name" "a cluster with a bad name" "${A[@]}" --data-binary '{"name":"../etc"}' "$CTRL_URL/v1/clusters"
expect 401 "token" "a garbage token" -H "Authorization: Bearer tbm_nonsense" --data-binary @"$TMP/mac1.json" "$CTRL_URL/v1/report"
expect 400 "since" "events with a bad since" "${A[@]}" "$CTRL_URL/v1/events?since=yesterday"

admin_id=$(cut -d_ -f2 "$ADMIN_TOKEN_FILE")
expect 409 "last admin token" "revoking the last admin token" "${A[@]}" -X DELETE "$CTRL_URL/v1/tokens/$admin_id"

inventory_dump >"$TMP/after.sql"
check "the inventory is unchanged by all of it" cmp -s "$TMP/before.sql" "$TMP/after.sql"
check_eq "integrity" ok "$(sqlite3 "$CTRL_DB" 'PRAGMA integrity_check')"
done_testing
