#!/usr/bin/env bash
# The provisioning API's edges that need no Mac: bad requests are refused
# naming the problem (and nothing is stored), tbctl refuses bad options as
# usage errors before sending anything, and a run id that does not exist is
# a 404.  Provisioning itself over SSH: tests/integration/provision.sh.
. "$(dirname "$0")/../lib/common.sh"
start_controller prov
A=(-H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")")
expect() {   # STATUS WORDS WHAT curl-args...
	local want=$1 words=$2 what=$3; shift 3
	local code
	code=$(curl -H 'Content-Type: application/json' -s -o "$TMP/resp.json" -w '%{http_code}' --max-time 10 "$@")
	check_eq "$what: status" "$want" "$code"
	if jq_true "$TMP/resp.json" ".error | contains(\"$words\")"; then
		ok "$what: the error says \"$words\""
	else
		not_ok "$what: error lacks \"$words\": $(head -c 300 "$TMP/resp.json")"
	fi
}
P=$CTRL_URL/v1/provisions
expect 401 "" "no token" --data-binary '{"host":"127.0.0.2"}' "$P"
expect 400 "host:" "no host" "${A[@]}" --data-binary '{}' "$P"
expect 400 "host:" "an option as host" "${A[@]}" --data-binary '{"host":"-oProxyCommand=sh"}' "$P"
expect 400 "fingerprint:" "a bad fingerprint" "${A[@]}" \
    --data-binary '{"host":"127.0.0.2","fingerprint":"MD5:00"}' "$P"
expect 400 "frob: unknown key" "an unknown key" "${A[@]}" --data-binary '{"host":"h","frob":1}' "$P"
expect 400 "invalid JSON" "not JSON" "${A[@]}" --data-binary '{"host":' "$P"
expect 400 "not a provisioning id" "a bad id" "${A[@]}" "$P/abc"
expect 404 "no such run" "an unknown id" "${A[@]}" "$P/99"
expect 400 "network: has the wrong type" "a bad deprovision body" "${A[@]}" \
    --data-binary '{"network":"yes"}' "$CTRL_URL/v1/nodes/mac1/deprovision"
check_eq "nothing was stored" 0 "$(sqlite3 "$CTRL_DB" 'SELECT count(*) FROM provisions')"

# tbctl: usage errors (exit 2) before anything is sent
for bad in "node add" "node add h --port 0" "node add h --fingerprint SHA256:x" \
    "node add h --fingerprint SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s --accept-new" \
    "node add h --wired-limit-mb lots" "node add 'h;reboot'" "node deprovision 'a b'" \
    "node deprovision mac1 --accept-new"; do
	eval "\"\$BIN/tbctl\" $bad" >"$TMP/out" 2>"$TMP/err"
	check_eq "tbctl $bad: exit 2" 2 $?
	check "tbctl $bad: one line on stderr" test "$(wc -l <"$TMP/err")" -eq 1
done
"$BIN/tbctl" node add --help >"$TMP/help"
check "node add --help names --dry-run" grep -q -- "--dry-run" "$TMP/help"
check "node add --help names the manual RDMA step" grep -q "rdma_ctl enable" "$TMP/help"
done_testing
