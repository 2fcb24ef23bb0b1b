#!/usr/bin/env bash
# TLS: the controller serves HTTPS with a certificate signed by a test CA;
# tbctl and the agent verify it against --ca-file, and refuse it without the
# CA or with another one.
. "$(dirname "$0")/../lib/common.sh"
command -v openssl >/dev/null || skip_all "openssl not installed (packaging/deps.sh installs it)"
SC=$TOP/tests/scenarios/mesh4-studio.json
cd "$TMP"
mkca() {  # NAME
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$1" \
		-keyout "$1.key" -out "$1.pem" 2>/dev/null
}
mkca ca; mkca otherca
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout srv.key -out srv.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
	-extfile san.ext -out srv.pem 2>/dev/null
check "test certificates made" test -s srv.pem

start_controller tls --tls-cert "$TMP/srv.pem" --tls-key "$TMP/srv.key"
check "the controller says it serves https" grep -q '(https)' "$CTRL_LOG"
U=https://127.0.0.1:$(listen_port_any "$CTRL_LOG")
export TBCTL_URL=$U
check "tbctl verifies the controller with --ca-file" "$BIN/tbctl" --ca-file "$TMP/ca.pem" nodes
"$BIN/tbctl" nodes >/dev/null 2>"$TMP/err"; rc=$?
check_eq "tbctl without the CA fails" 1 $rc
check "and says why in one line" test "$(wc -l <"$TMP/err")" -eq 1
"$BIN/tbctl" --ca-file "$TMP/otherca.pem" nodes >/dev/null 2>&1; rc=$?
check_eq "tbctl with another CA fails" 1 $rc
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${U##*:}/healthz")
check "plain HTTP is not served on the TLS port" test "$code" != 200

"$BIN/tbctl" --ca-file "$TMP/ca.pem" token create --ttl 10m --accept >"$TMP/boot"
CTRL_URL=$U
mkdir -p "$TMP/state"
start_agent tlsagent --backend sim --scenario "$SC" --node mac1 --interval 0.3 \
	--controller "$U" --ca-file "$TMP/ca.pem" --bootstrap-token-file "$TMP/boot" --state-dir "$TMP/state"
wait_for "mac1 enrolled over TLS" 15 sh -c "$BIN/tbctl --ca-file $TMP/ca.pem nodes --json | jq -e '.nodes[0].state == \"ready\"'"
check_eq "the agent enrolled and reports over TLS" ready \
	"$("$BIN/tbctl" --ca-file "$TMP/ca.pem" nodes --json | jq -r '.nodes[0].state')"
"$BIN/tbctl" --ca-file "$TMP/ca.pem" token create --ttl 10m >"$TMP/boot2"
mkdir -p "$TMP/state2"
start_agent badca --backend sim --scenario "$SC" --node mac2 --interval 0.3 \
	--controller "$U" --ca-file "$TMP/otherca.pem" --bootstrap-token-file "$TMP/boot2" --state-dir "$TMP/state2"
# what libcurl says: "server certificate verification failed" (GnuTLS),
# "SSL certificate problem: ..." (OpenSSL)
badcert="$U/v1/enroll: .*certificate (verification failed|problem).*; next attempt in"
wait_for "the untrusting agent's enrolment to fail on the certificate" 15 \
	grep -qE "$badcert" "$AGENT_LOG"
check "the untrusting agent refused the certificate" grep -qE "$badcert" "$AGENT_LOG"
check_eq "an agent that does not trust the certificate does not enrol" 1 \
	"$("$BIN/tbctl" --ca-file "$TMP/ca.pem" nodes --json | jq '.nodes | length')"
check "and holds no node token" test ! -e "$TMP/state2/node-token"
done_testing
