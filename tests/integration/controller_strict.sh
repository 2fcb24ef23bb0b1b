#!/usr/bin/env bash
# One strict parse for every body, on every route that takes one: a byte
# order mark, a NUL byte (leading or trailing), data after the value,
# invalid UTF-8, "\u0000" or a lone surrogate in a string, a key given twice
# are each refused with 400; so is a field the route does not know (a
# misspelt "dryrun" must not be ignored), and any field on the routes that
# take none.  None of it changes the inventory, and GET /v1/nodes stays
# valid JSON (a cordon reason "x\xff\xfe" used to be stored and broke it).
# Then a report carrying fields of a newer agent is stored re-encoded: what
# is served is what was validated.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
start_controller strict --unreachable-after 3600
for n in mac1 mac2; do start_sim_agent "$n" "$SC" --interval 0.3; done
wait_for "two nodes" 20 sh -c "$BIN/tbctl nodes --json | jq -e '.nodes | length == 2'"
bg_stop "$(sim_agent_pid mac1)" "$(sim_agent_pid mac2)"
"$BIN/tbctl" cluster create lab >/dev/null
"$BIN/tbctl" token create --ttl 10m >"$TMP/boot"
tok1=$(cat "$TMP/state-mac1/node-token")
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/mac1.json"
wait_for "the inventory to settle" 10 inventory_settled

ADMIN=$(cat "$ADMIN_TOKEN_FILE") NODE=$tok1 BOOT=$(cat "$TMP/boot")
# METHOD PATH TOKEN BODY: every route that takes a body, with a valid one
# (the token names the role the route needs)
ROUTES=(
	"POST /v1/enroll BOOT @$TMP/mac1.json"
	"POST /v1/report NODE @$TMP/mac1.json"
	"POST /v1/nodes/mac1/cordon ADMIN {\"reason\":\"x\"}"
	"POST /v1/nodes/mac1/uncordon ADMIN {}"
	"POST /v1/nodes/mac1/down ADMIN {\"reason\":\"x\"}"
	"POST /v1/nodes/mac1/accept ADMIN {}"
	"POST /v1/tokens ADMIN {\"role\":\"viewer\"}"
	"POST /v1/clusters ADMIN {\"name\":\"lab2\"}"
	"POST /v1/clusters/lab/nodes ADMIN {\"nodes\":[\"mac1\"]}"
	"POST /v1/clusters/lab/allow ADMIN {\"serials\":[\"H7XQ0001PF\"]}"
	"POST /v1/clusters/lab/disallow ADMIN {\"serials\":[\"H7XQ0001PF\"]}"
	"PUT /v1/clusters/lab/wiring/plan ADMIN {\"topology\":\"mesh\",\"links\":[]}"
	"POST /v1/clusters/lab/wiring/plan ADMIN {}"
	"POST /v1/provisions ADMIN {\"host\":\"127.0.0.9\"}"
	"POST /v1/nodes/mac1/deprovision ADMIN {}"
	"POST /v1/models ADMIN {\"name\":\"x\"}"
	"POST /v1/placements/plan ADMIN {\"model\":\"llama-3.3-70b:4bit\"}"
	"POST /v1/placements ADMIN {\"model\":\"llama-3.3-70b:4bit\"}"
	"POST /v1/placements/1/replan ADMIN {}"
	"DELETE /v1/placements/1 ADMIN {}"
	"POST /v1/nodes/mac1/ssh ADMIN {\"host\":\"127.0.0.9\",\"user\":\"admin\"}"
	"POST /v1/nodes/mac1/trust ADMIN {\"fingerprint\":\"SHA256:x\"}"
	"POST /v1/credentials ADMIN {\"cluster\":\"lab\",\"user\":\"a\",\"password\":\"b\"}"
	"POST /v1/rollouts ADMIN {\"cluster\":\"lab\",\"target\":\"26.3\",\"mode\":\"rolling\",\"dry_run\":true}"
	"POST /v1/rollouts/1/pause ADMIN {}"
	"POST /v1/rollouts/1/resume ADMIN {}"
	"POST /v1/rollouts/1/abort ADMIN {}"
	"POST /v1/rollouts/1/retry ADMIN {\"node\":\"mac1\"}"
	"DELETE /v1/tokens/0123456789ab ADMIN {}"
	"DELETE /v1/nodes/mac2 ADMIN {}"
)
# send METHOD PATH TOKEN FILE: status in $code, the answer in $TMP/resp.json
send() {
	code=$(curl -s -o "$TMP/resp.json" -w '%{http_code}' --max-time 10 -X "$1" \
		-H "Authorization: Bearer ${!3}" -H 'Content-Type: application/json' \
		--data-binary @"$4" "$CTRL_URL$2")
}
# body BODY: the route's valid body as a file, $TMP/body.json
body() {
	case $1 in @*) cp "${1#@}" "$TMP/body.json" ;; *) printf '%s' "$1" >"$TMP/body.json" ;; esac
}
# inject FILE MEMBERS: FILE's object with MEMBERS first, into FILE.x; in
# MEMBERS \xHH is that byte, anything else (JSON's \u escapes) is as is
inject() {
	python3 - "$1" "$2" <<'PY'
import re, sys
d = open(sys.argv[1], "rb").read()
m = re.sub(rb"\\x([0-9a-f]{2})", lambda g: bytes([int(g.group(1), 16)]), sys.argv[2].encode())
i = d.index(b"{") + 1
rest = d[i:]
open(sys.argv[1] + ".x", "wb").write(d[:i] + m + (b"" if rest.lstrip().startswith(b"}") else b",") + rest)
PY
}
# bad KIND: turn $TMP/body.json into one that must be refused, and say
# what the error says (a word of it)
bad() {
	local f=$TMP/body.json
	case $1 in
	bom) { printf '\xef\xbb\xbf'; cat "$f"; } >"$f.x"; want="byte order mark" ;;
	nul-lead) { printf '\0'; cat "$f"; } >"$f.x"; want="nul byte at byte 0" ;;
	nul-trail) { cat "$f"; printf '\0'; } >"$f.x"; want="nul byte" ;;
	trailing) { cat "$f"; printf ' {}'; } >"$f.x"; want="after the json value" ;;
	utf8) inject "$f" '"k":"x\xff\xfe"'; want="invalid utf-8" ;;
	u0000) inject "$f" '"k":"a\u0000b"'; want="\\u0000 in a string" ;;
	surrogate) inject "$f" '"k":"\ud800"'; want="lone surrogate" ;;
	dup) inject "$f" '"dupkey":1,"dupkey":2'; want="dupkey" ;;
	esac
	mv "$f.x" "$f" || not_ok "no $1 body could be made"
}
n_routes=0 n_bad=0
for r in "${ROUTES[@]}"; do
	read -r m p t b <<<"$r"
	n_routes=$((n_routes + 1))
	for kind in bom nul-lead nul-trail trailing utf8 u0000 surrogate dup; do
		body "$b"; bad "$kind"; send "$m" "$p" "$t" "$TMP/body.json"
		if [ "$code" = 400 ] && jq_true "$TMP/resp.json" ".error | ascii_downcase | contains(\"$want\")"; then
			n_bad=$((n_bad + 1))
		else
			not_ok "$m $p ($kind): $code $(head -c 200 "$TMP/resp.json")"
		fi
	done
done
check_eq "every route refuses each of 8 kinds of bad body ($n_routes routes)" "$((n_routes * 8))" "$n_bad"

# a field the route does not know; on /v1/enroll and /v1/report a newer
# agent's fields are taken (and dropped: see the end)
n_unknown=0 n_checked=0
for r in "${ROUTES[@]}"; do
	read -r m p t b <<<"$r"
	case $p in /v1/enroll|/v1/report) continue ;; esac
	n_checked=$((n_checked + 1))
	body "$b"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["frob"]=1; open(sys.argv[1],"w").write(json.dumps(d))' "$TMP/body.json"
	send "$m" "$p" "$t" "$TMP/body.json"
	if [ "$code" = 400 ] && jq_true "$TMP/resp.json" '.error | test("^(plan\\.)?frob: ")'; then
		n_unknown=$((n_unknown + 1))
	else
		not_ok "$m $p with an unknown field: $code $(head -c 200 "$TMP/resp.json")"
	fi
done
check_eq "every write route refuses a field it does not know ($n_checked routes)" "$n_checked" "$n_unknown"
body '{"cluster":"lab","target":"26.3","mode":"rolling","dryrun":true}'
send POST /v1/rollouts ADMIN "$TMP/body.json"
check_eq "a misspelt dry_run is refused" 400 "$code"
check_jq "and named" "$TMP/resp.json" '.error | startswith("dryrun: not a field of a rollout")'
printf '{"reason":"x\xff\xfe"}' >"$TMP/body.json"
send POST /v1/nodes/mac1/cordon ADMIN "$TMP/body.json"
check_eq "a cordon reason that is not UTF-8 is refused" 400 "$code"

# what the headers say of the body: not JSON is 415, two different lengths 400
# (RFC 9110 section 8.6: a recipient may reject differing Content-Length
# values; libmicrohttpd alone reads the first and ignores the other)
ctype() {
	curl -s -o "$TMP/resp.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $ADMIN" \
		"$@" --data-binary '{"name":"lab3"}' "$CTRL_URL/v1/clusters"
}
check_eq "a body sent as a form (curl's default) is 415" 415 "$(ctype)"
check_jq "saying what to send" "$TMP/resp.json" '.error | contains("Content-Type: application/json")'
check_eq "a body sent as text/plain is 415" 415 "$(ctype -H 'Content-Type: text/plain')"
check_eq "a body with no Content-Type is 415" 415 "$(ctype -H 'Content-Type:')"
check_eq "a JSON body with no token is still 401" 401 \
	"$(curl -s -o /dev/null -w '%{http_code}' --data-binary '{}' "$CTRL_URL/v1/clusters")"
python3 - "$CTRL_URL" "$ADMIN" >"$TMP/cl.txt" <<'PY'
import socket, sys
host, port = sys.argv[1].split("//")[1].split(":")
def send(lengths, body):
    s = socket.create_connection((host, int(port)), timeout=5)
    head = "POST /v1/clusters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n" \
        "Content-Type: application/json\r\n" % sys.argv[2]
    head += "".join("Content-Length: %d\r\n" % n for n in lengths) + "\r\n"
    s.sendall(head.encode() + body)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except socket.timeout:
        pass
    s.close()
    print(out.split(b"\r\n", 1)[0].decode())
send([15, 5], b'{"name":"lab4"}')
PY
check "two Content-Length headers that differ are 400" grep -q '^HTTP/1.1 400' "$TMP/cl.txt"

inventory_dump >"$TMP/after.sql"
check "the inventory is unchanged by all of it" cmp -s "$TMP/before.sql" "$TMP/after.sql"
"$BIN/tbctl" nodes --json >"$TMP/nodes.json"
check "GET /v1/nodes is valid JSON" jq -e '.nodes | length == 2' "$TMP/nodes.json"

# A newer agent's report: two fields this controller does not know.  Taken,
# and stored (and served) as the controller read it, without them.
jq -c '.collected_at += 5 | .future = {"a": [1, 2]} | .node.color = "blue"' "$TMP/mac1.json" >"$TMP/newer.json"
send POST /v1/report NODE "$TMP/newer.json"
check_eq "a report with fields of a newer agent is taken" 204 "$code"
stored_now() {
	curl -s -H "Authorization: Bearer $ADMIN" "$CTRL_URL/v1/nodes/mac1" >"$TMP/node.json" &&
	jq -e ".report.collected_at == $(jq .collected_at "$TMP/newer.json")" "$TMP/node.json" >/dev/null
}
wait_for "it to be stored" 10 stored_now
check_jq "served without the fields it did not validate" "$TMP/node.json" \
	'.report | has("future") == false and (.node | has("color")) == false and .node.hostname == "mac1"'
stored=$(sqlite3 "$CTRL_DB" "SELECT report_json FROM nodes WHERE name = 'mac1'")
check "stored without them" test -n "$stored" -a "${stored/future/}" = "$stored"
check_eq "integrity" ok "$(sqlite3 "$CTRL_DB" 'PRAGMA integrity_check')"
done_testing
