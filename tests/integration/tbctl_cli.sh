#!/usr/bin/env bash
# tbctl's own surface: --help says each thing once and its command summaries
# are whole sentences; every command's --json prints a JSON object, also for
# the requests the controller answers without content (204); --cluster is
# for bootstrap tokens only, in tbctl and in the API; tbctl alone prints its
# usage; the global options are taken after the command too.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
CTL=$BIN/tbctl

# --help
"$CTL" --help >"$TMP/help"; rc=$?
check_eq "tbctl --help exits 0" 0 $rc
dups=$(grep -v '^ *$' "$TMP/help" | sort | uniq -d)
check_eq "no line of tbctl --help is repeated" "" "$dups"
check_eq "it describes tbctl once" 1 "$(grep -c '^The command line of tbmesh' "$TMP/help")"
# the summaries: what follows the 28 columns of a command and its usage
awk '/^Commands:/ { c = 1; next } /^Options/ { c = 0 }
	c && length($0) > 32 && substr($0, 31, 2) == "  " && substr($0, 33, 1) != " " {
		print substr($0, 33) }' "$TMP/help" >"$TMP/summaries"
check_eq "one summary per command" "$(grep -c '^  [a-z]' "$TMP/help")" "$(wc -l <"$TMP/summaries")"
check_eq "no command summary is cut off (each ends its sentence)" "" "$(grep -v '\.$' "$TMP/summaries")"
summary=$(grep -A1 '^  node history' "$TMP/help" | tail -n 1 | sed 's/^ *//')
check_eq "node history's summary is the first line of its own help" \
	"$("$CTL" node history --help | sed -n 3p)" "$summary"
check "and says what a sample holds" grep -qx "Show a node's samples: memory, power, link speeds." \
	<(echo "$summary")

# tbctl alone: the usage, on stderr, as a usage error
"$CTL" >"$TMP/alone.out" 2>"$TMP/alone.err"; rc=$?
check_eq "tbctl alone exits 2 (usage)" 2 $rc
check_eq "nothing on stdout" "" "$(cat "$TMP/alone.out")"
check "its usage on stderr, with the commands" grep -q '^Commands:' "$TMP/alone.err"
check_eq "the same text as --help" "$(cat "$TMP/help")" "$(cat "$TMP/alone.err")"

start_controller cli
# a node to remove: enrolled with one report and a pre-approved token
"$CTL" token create --ttl 10m --accept >"$TMP/boot"
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/r1.json"
code=$(curl -H 'Content-Type: application/json' -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$TMP/boot")" \
	--data-binary @"$TMP/r1.json" "$CTRL_URL/v1/enroll")
check_eq "mac1 enrolled" 201 "$code"

# the global options after the command (kubectl's way), with no environment
nodes_after() { env -u TBCTL_URL -u TBCTL_TOKEN_FILE HOME="$TMP" "$CTL" "$@"; }
nodes_after nodes --url "$CTRL_URL" --token-file "$ADMIN_TOKEN_FILE" --json >"$TMP/after.json"; rc=$?
check_eq "tbctl nodes --url U --token-file F: exit 0" 0 $rc
check_jq "it reached the controller with that token" "$TMP/after.json" '.nodes | length == 1'
nodes_after --url http://127.0.0.1:9 nodes --url="$CTRL_URL" --token-file="$ADMIN_TOKEN_FILE" \
	>/dev/null 2>"$TMP/after.err"; rc=$?
check_eq "one after the command wins over one before it" 0 $rc
nodes_after nodes --url "$CTRL_URL" >/dev/null 2>"$TMP/after.err"; rc=$?
check_eq "no token at all: refused (1)" 1 $rc
check "by the controller (401)" grep -q '(401; no token was sent' "$TMP/after.err"
nodes_after nodes --url "$CTRL_URL" --token-file "$TMP/none" >/dev/null 2>"$TMP/after.err"; rc=$?
check_eq "a token file after the command that is missing: 1" 1 $rc
check "naming it" grep -q "$TMP/none" "$TMP/after.err"
nodes_after nodes --token-file >/dev/null 2>"$TMP/after.err"; rc=$?
check_eq "--token-file without a value after the command: usage error" 2 $rc
check "saying so" grep -q -- '--token-file needs a value' "$TMP/after.err"

# --json on the commands answered with 204
"$CTL" node remove mac1 --json >"$TMP/rm.json"; rc=$?
check_eq "node remove --json exits 0" 0 $rc
check_eq "node remove --json prints an object" '{"removed":"mac1"}' "$(jq -c . "$TMP/rm.json")"
check_eq "mac1 is gone" 0 "$("$CTL" nodes --json | jq '.nodes | length')"
"$CTL" token create --role viewer >"$TMP/viewer"
vid=$(cut -d_ -f2 "$TMP/viewer")
"$CTL" --json token revoke "$vid" >"$TMP/rv.json"; rc=$?
check_eq "token revoke --json exits 0" 0 $rc
check_eq "token revoke --json prints an object" "{\"revoked\":\"$vid\"}" "$(jq -c . "$TMP/rv.json")"
check_jq "the token is revoked" <("$CTL" token list --json) \
	"[.tokens[] | select(.id == \"$vid\" and .revoked)] | length == 1"
check "without --json: one line for people" \
	sh -c "$CTL token create --role viewer | cut -d_ -f2 | xargs $CTL token revoke | grep -qx 'token [0-9a-f]* revoked'"

# --cluster is for bootstrap tokens only
check "cluster create studio4" sh -c "$CTL cluster create studio4 >/dev/null"
for role in viewer admin; do
	"$CTL" token create --role $role --cluster studio4 >"$TMP/out" 2>"$TMP/err"; rc=$?
	check_eq "token create --role $role --cluster: usage error" 2 $rc
	check_eq "with one line" 1 "$(wc -l <"$TMP/err")"
	check "that names --cluster" grep -q -- '--cluster is for bootstrap tokens only' "$TMP/err"
	check_eq "and no token printed" "" "$(cat "$TMP/out")"
	code=$(api POST /v1/tokens "{\"role\":\"$role\",\"cluster\":\"studio4\"}")
	check_eq "POST /v1/tokens $role with a cluster: 400" 400 "$code"
	check_jq "the error names the field" "$TMP/api.out" '.error | startswith("cluster:")'
done
check_eq "no admin or viewer token has a cluster" 0 \
	"$("$CTL" token list --json | jq '[.tokens[] | select(.role != "bootstrap" and .cluster != "" and .cluster != null)] | length')"
check "a bootstrap token may still name a cluster" sh -c "$CTL token create --cluster studio4 --ttl 5m >/dev/null"
code=$(api POST /v1/tokens '{"role":"viewer","cluster":null}')
check_eq "a viewer token with cluster null is fine" 201 "$code"
done_testing
