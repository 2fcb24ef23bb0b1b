#!/usr/bin/env bash
# The controller's review fixes: a request without the right token is
# refused on its headers, before its body is read; the inventory and its
# -wal/-shm are 0600; the admin token file's directory is synced when it is
# made; a restart loads whether each node's latest report was healthy;
# re-enrolment clears the unexpected-reboot flag on disk; SIGHUP reads the
# configuration again; an admin token file naming a revoked token is said
# to be revoked.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
CTL=$BIN/tbctl

# ---- the admin token file's directory is fsynced after the file is made
mkdir -p "$TMP/adm"
# (LeakSanitizer cannot run under ptrace: a sanitized build leaves it out here)
bg_start "$TMP/traced.log" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -e trace=openat,fsync -o "$TMP/strace.out" \
	"$BIN/tbcontrollerd" --db "$TMP/traced.db" --listen 127.0.0.1:0 \
	--admin-token-file "$TMP/adm/admin-token"
tracer=$BG_PID
wait_for "the traced controller to listen" 20 grep -q 'listening on' "$TMP/traced.log"
kill -TERM "$(pgrep -P "$tracer" -x tbcontrollerd)"
bg_reap "$tracer"
# an fsync of the fd of the directory's open, after that open
synced=$(awk -v d="\"$TMP/adm\"" '
	/openat\(/ && index($0, d ",") && /O_DIRECTORY/ { fd = $0; sub(/.*= /, "", fd); next }
	fd != "" && index($0, "fsync(" fd ")") && / = 0$/ { print "yes"; exit }' "$TMP/strace.out")
check_eq "the directory of the admin token file is opened and fsynced" yes "$synced"

echo "log-level = info" >"$TMP/hard.conf"
start_controller hard --unreachable-after 60 -f "$TMP/hard.conf"

# ---- file modes
check_eq "the inventory is mode 0600" 600 "$(stat -c %a "$CTRL_DB")"
check_eq "its write-ahead log too" 600 "$(stat -c %a "$CTRL_DB-wal")"
check_eq "and its shared-memory index" 600 "$(stat -c %a "$CTRL_DB-shm")"

# ---- authentication on the headers, before the body
port=${CTRL_URL##*:}
# raw_status TOKEN PATH: POST announcing a 200 kB body that never comes; the status line
raw_status() {
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	if [ -n "$1" ]; then
		printf 'POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: 200000\r\n\r\n' "$2" "$1" >&3
	else
		printf 'POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200000\r\n\r\n' "$2" >&3
	fi
	timeout 5 head -n 1 <&3 | tr -d '\r'
	exec 3>&-
}
check_eq "a bad token is refused without waiting for the body" "HTTP/1.1 401 Unauthorized" \
	"$(raw_status tbm_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA /v1/report)"
check_eq "no token is refused without waiting for the body" "HTTP/1.1 401 Unauthorized" \
	"$(raw_status "" /v1/enroll)"
"$CTL" token create --role viewer --ttl 1h >"$TMP/viewer"
check_eq "a token of the wrong role: 403 without waiting for the body" "HTTP/1.1 403 Forbidden" \
	"$(raw_status "$(cat "$TMP/viewer")" /v1/tokens)"

# ---- a restart knows whether the latest report was healthy
post() {
	curl -H 'Content-Type: application/json' -s -o "$TMP/post.out" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $1" \
		--data-binary @"$3" "$CTRL_URL$2"
}
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac1 >"$TMP/r1.json"
"$CTL" token create --ttl 10m --accept >"$TMP/boot1"
check_eq "mac1 enrols" 201 "$(post "$(cat "$TMP/boot1")" /v1/enroll "$TMP/r1.json")"
tok1=$(jq -r .token "$TMP/post.out")
check "cordon mac1" "$CTL" node cordon mac1 --reason "checking"
jq '.memory.total_bytes = null' "$TMP/r1.json" >"$TMP/sick.json"
check_eq "an unhealthy report is stored" 204 "$(post "$tok1" /v1/report "$TMP/sick.json")"
"$CTL" node uncordon mac1 >/dev/null 2>"$TMP/err"; rc=$?
check_eq "uncordon is refused: the latest report is not healthy" 1 $rc
bg_stop "$CTRL_PID"
CTRL_DB_OVERRIDE=$CTRL_DB start_controller hard2 --unreachable-after 60
export TBCTL_TOKEN_FILE=$TMP/hard.admin-token
"$CTL" node uncordon mac1 >/dev/null 2>"$TMP/err"; rc=$?
check_eq "after a restart too" 1 $rc
check "for that reason" grep -q 'not healthy' "$TMP/err"
check_eq "a healthy report" 204 "$(post "$tok1" /v1/report "$TMP/r1.json")"
check "then uncordon works" "$CTL" node uncordon mac1

# ---- re-enrolment clears the unexpected-reboot flag, on disk
jq '.node.boot_time += 5000' "$TMP/r1.json" >"$TMP/rebooted.json"
check_eq "a report with a new boot time" 204 "$(post "$tok1" /v1/report "$TMP/rebooted.json")"
check_eq "flags an unexpected reboot" true "$("$CTL" node show mac1 --json | jq .unexpected_reboot)"
"$CTL" token create --ttl 10m --accept >"$TMP/boot2"
check_eq "mac1 re-enrols" 201 "$(post "$(cat "$TMP/boot2")" /v1/enroll "$TMP/rebooted.json")"
check_eq "the flag is cleared in the inventory" false "$("$CTL" node show mac1 --json | jq .unexpected_reboot)"

# ---- SIGHUP
kill -HUP "$CTRL_PID"
wait_for "SIGHUP is logged" 5 grep -q 'SIGHUP: configuration read again; log level info' "$CTRL_LOG"
check "the controller is still serving" curl -sf -o /dev/null "$CTRL_URL/healthz"
bg_stop "$CTRL_PID"
CTRL_DB_OVERRIDE=$CTRL_DB start_controller hard3 --unreachable-after 60 -f "$TMP/hard.conf"
export TBCTL_TOKEN_FILE=$TMP/hard.admin-token
"$CTL" cluster create before >/dev/null
check "at level info an event is logged" grep -q 'cluster created: before' "$CTRL_LOG"
echo "log-level = warning" >"$TMP/hard.conf"
kill -HUP "$CTRL_PID"
wait_for "the new level is applied" 5 grep -q 'log level warning' "$CTRL_LOG"
"$CTL" cluster create after >/dev/null
check "at level warning, after SIGHUP, it is not" sh -c "! grep -q 'cluster created: after' $CTRL_LOG"
echo "log-level = loud" >"$TMP/hard.conf"
kill -HUP "$CTRL_PID"
wait_for "a bad file changes nothing" 5 grep -q 'SIGHUP: .*loud.*settings unchanged' "$CTRL_LOG"
check "still serving" curl -sf -o /dev/null "$CTRL_URL/healthz"
bg_stop "$CTRL_PID"

# ---- an admin token file naming a revoked token
CTRL_DB_OVERRIDE=$CTRL_DB start_controller hard4
# ---- a second controller on the same port: refused, the first one serves on
port=$(listen_port_any "$CTRL_LOG")
timeout 10 "$BIN/tbcontrollerd" --db "$TMP/second.db" --listen "127.0.0.1:$port" \
	--admin-token-file "$TMP/second.admin-token" >/dev/null 2>"$TMP/second.err"; rc=$?
check_eq "a second controller on the port in use does not start" 1 $rc
check "and says why" grep -q "cannot serve on 127.0.0.1:$port (in use" "$TMP/second.err"
check "the first one still serves" curl -sf -o /dev/null "$CTRL_URL/healthz"
export TBCTL_TOKEN_FILE=$TMP/hard.admin-token
"$CTL" token create --role admin --ttl 10s >"$TMP/admin2"
admin2_expires=$(( $(date +%s) + 11 ))
check "revoke the first admin token" "$CTL" token revoke "$(cut -d_ -f2 "$TMP/hard.admin-token")"
bg_stop "$CTRL_PID"
bg_start "$TMP/hard5.log" "$BIN/tbcontrollerd" --db "$CTRL_DB" --listen 127.0.0.1:0 \
	--admin-token-file "$TMP/hard.admin-token"
wait_for "it starts while another admin token is valid" 10 grep -q 'listening on' "$TMP/hard5.log"
check "saying the file's token is revoked" grep -q 'which is revoked; 1 other admin token works' "$TMP/hard5.log"
bg_stop "$BG_PID"
while [ "$(date +%s)" -lt "$admin2_expires" ]; do sleep 0.5; done   # the other admin token expires
timeout 10 "$BIN/tbcontrollerd" --db "$CTRL_DB" --listen 127.0.0.1:0 \
	--admin-token-file "$TMP/hard.admin-token" >/dev/null 2>"$TMP/revoked.err"; rc=$?
check_eq "with no admin token valid it does not start" 1 $rc
check "and says the file's token is revoked and none works" \
	grep -q 'holds admin token .*, which is revoked, and no other admin token works' "$TMP/revoked.err"
check "not that the inventory could not be read" sh -c "! grep -q 'could not be read' $TMP/revoked.err"
done_testing
