#!/usr/bin/env bash
# The controller's HTTP surface: HEAD is answered like GET without the body
# (curl -I), Allow lists HEAD wherever GET is allowed, a start prints no
# warning of libmicrohttpd on stderr, and large headers are taken.
. "$(dirname "$0")/../lib/common.sh"

start_controller http --catalog "$TOP/data/catalog.json"
TOK=$(cat "$ADMIN_TOKEN_FILE")
PORT=${CTRL_URL##*:}

# nothing from libmicrohttpd at start (it warned about a thread pool of 0)
check_eq "no thread pool warning on stderr" "" "$(grep -i 'thread pool' "$CTRL_LOG")"
check_eq "every line of the log is the controller's own" "" "$(grep -v '^tbcontrollerd\[' "$CTRL_LOG")"
check_eq "and none is a warning" "" "$(grep -i 'warning' "$CTRL_LOG")"

# head PATH [CURL ARGS...]: the status of HEAD PATH; headers in $TMP/h
head() {
	local p=$1; shift
	curl -s -I -o "$TMP/h" -w '%{http_code}' --max-time 10 "$@" "$CTRL_URL$p"
}
check_eq "HEAD /healthz: 200" 200 "$(head /healthz)"
check "with GET's content type" grep -qi '^content-type: application/json' "$TMP/h"
len=$(curl -s --max-time 10 "$CTRL_URL/healthz" | wc -c)
check "and GET's length ($len)" grep -qi "^content-length: $len" "$TMP/h"
check_eq "HEAD /metrics: 200" 200 "$(head /metrics)"
check_eq "HEAD /v1/nodes with a token: 200" 200 "$(head /v1/nodes -H "Authorization: Bearer $TOK")"
check_eq "HEAD /v1/nodes without one: 401, like GET" 401 "$(head /v1/nodes)"
check_eq "HEAD of an unknown node: 404, like GET" 404 \
	"$(head /v1/nodes/mac9 -H "Authorization: Bearer $TOK")"
check_eq "HEAD of a POST-only path: 405" 405 "$(head /v1/enroll)"
check "whose Allow is POST" grep -qi '^allow: POST' "$TMP/h"
check_eq "HEAD of no path: 404" 404 "$(head /v1/nothing)"

# a connection's memory (API_CONN_MEMORY) still takes 12 KiB of headers
long=$(head -c 12288 /dev/zero | tr '\0' a)
check_eq "GET /v1/nodes with a 12 KiB header: 200" 200 "$(curl -s -o /dev/null -w '%{http_code}' \
	--max-time 10 -H "Authorization: Bearer $TOK" -H "X-Padding: $long" "$CTRL_URL/v1/nodes")"

# the body is not sent: a raw HTTP/1.0 HEAD, read to the end of the connection
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'HEAD /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
timeout 10 cat <&3 >"$TMP/raw"
exec 3<&-
check "the raw HEAD got 200" grep -q '^HTTP/1.[01] 200' "$TMP/raw"
check "and no body" sh -c "! grep -q '\"status\"' '$TMP/raw'"

# Allow lists HEAD beside GET
code=$(curl -s -o /dev/null -D "$TMP/h" -w '%{http_code}' --max-time 10 -X DELETE "$CTRL_URL/healthz")
check_eq "DELETE /healthz: 405" 405 "$code"
check_eq "Allow: GET, HEAD" "GET, HEAD" "$(sed -n 's/^[Aa]llow: \(.*\)\r$/\1/p' "$TMP/h")"
code=$(curl -s -o /dev/null -D "$TMP/h" -w '%{http_code}' --max-time 10 -X PUT \
	-H "Authorization: Bearer $TOK" "$CTRL_URL/v1/nodes/mac1")
check_eq "PUT /v1/nodes/mac1: 405" 405 "$code"
check_eq "Allow: GET, HEAD, DELETE" "GET, HEAD, DELETE" "$(sed -n 's/^[Aa]llow: \(.*\)\r$/\1/p' "$TMP/h")"
# query numbers: out of range or not a number is a 400 naming the key
qget() { curl -s -o "$TMP/q.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $TOK" "$CTRL_URL$1"; }
for q in "/v1/events?since=abc:since" "/v1/events?limit=0:limit" "/v1/events?limit=1e9:limit" \
	"/v1/nodes/mac1/samples?step=-1:step" "/v1/nodes/mac1/samples?since=inf:since"; do
	check_eq "GET ${q%:*}: 400" 400 "$(qget "${q%:*}")"
	check_jq "naming ${q##*:}" "$TMP/q.json" ".error | startswith(\"${q##*:}: \")"
done
check_eq "GET /v1/events?since=0&limit=5: 200" 200 "$(qget '/v1/events?since=0&limit=5')"
done_testing
