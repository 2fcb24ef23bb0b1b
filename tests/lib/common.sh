# Shared by the integration tests (bash).  Source it first thing:
#   . "$(dirname "$0")/../lib/common.sh"
# It sets TOP, B, BIN, a private TMP (removed at exit), stops every process
# started with bg_start at exit, and counts checks; finish with `done_testing`.
set -u
TOP=${TBMESH_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
B=${B:-build}
case "$B" in /*) BIN=$B ;; *) BIN=$TOP/$B ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tbmesh-test.XXXXXX")
T_PASS=0 T_FAIL=0
BG_PIDS=()

cleanup() {
	local p
	for p in "${BG_PIDS[@]:-}"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	for p in "${BG_PIDS[@]:-}"; do
		[ -n "$p" ] && wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

ok() { T_PASS=$((T_PASS + 1)); echo "ok - $*"; }
not_ok() { T_FAIL=$((T_FAIL + 1)); echo "NOT OK - $*"; }

# check DESCRIPTION COMMAND...: passes when the command exits 0.
check() {
	local what=$1; shift
	if "$@"; then ok "$what"; else not_ok "$what (command: $*)"; fi
}

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi
}

# check_jq DESCRIPTION FILE FILTER: passes when jq -e FILTER is true on FILE.
check_jq() {
	if jq -e "$3" "$2" >/dev/null 2>&1; then ok "$1"
	else not_ok "$1: jq '$3' is not true on $2"; head -c 2000 "$2"; echo; fi
}

skip_all() { echo "skipped: $*"; exit 77; }

done_testing() {
	echo "# $T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
	exit $?
}

# bg_start LOGFILE COMMAND...: start in the background, remember the pid in BG_PID.
bg_start() {
	local log=$1; shift
	"$@" >"$log" 2>&1 &
	BG_PID=$!
	BG_PIDS+=("$BG_PID")
}

# wait_for DESCRIPTION SECONDS COMMAND...: retry until it succeeds (bounded).
wait_for() {
	local what=$1 secs=$2; shift 2
	local deadline=$((SECONDS + secs))
	while [ $SECONDS -lt $deadline ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "timed out after ${secs}s waiting for: $what"
	return 1
}

# listen_port LOGFILE: the port a daemon logged ("listening on HOST:PORT").
listen_port() {
	sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$1" | head -n 1
}

# start_agent NAME ARGS...: tbagentd on a free loopback port; sets AGENT_PID,
# AGENT_PORT, AGENT_LOG.
start_agent() {
	local name=$1; shift
	AGENT_LOG=$TMP/$name.log
	bg_start "$AGENT_LOG" "$BIN/tbagentd" --listen 127.0.0.1:0 "$@"
	AGENT_PID=$BG_PID
	wait_for "$name to listen" 10 grep -q 'listening on' "$AGENT_LOG" || { cat "$AGENT_LOG"; return 1; }
	AGENT_PORT=$(listen_port "$AGENT_LOG")
}

# http_get URL OUTFILE: prints the status code; body in OUTFILE.
http_get() {
	curl -s -o "$2" -w '%{http_code}' --max-time 10 "$1"
}

# fakemac_path: PATH with the fake macOS commands first.
fakemac_path() { echo "$TOP/tests/fakemac/bin:$PATH"; }

# start_controller NAME ARGS...: tbcontrollerd on a free loopback port with a
# fresh inventory in $TMP/NAME.db; sets CTRL_PID, CTRL_URL, CTRL_DB, ADMIN_TOKEN_FILE.
start_controller() {
	local name=$1; shift
	CTRL_DB=${CTRL_DB_OVERRIDE:-$TMP/$name.db}
	ADMIN_TOKEN_FILE=$TMP/$name.admin-token
	CTRL_LOG=$TMP/$name.log
	bg_start "$CTRL_LOG" "$BIN/tbcontrollerd" --db "$CTRL_DB" --listen 127.0.0.1:0 \
		--admin-token-file "$ADMIN_TOKEN_FILE" "$@"
	CTRL_PID=$BG_PID
	wait_for "$name to listen" 10 grep -q 'listening on' "$CTRL_LOG" || { cat "$CTRL_LOG"; return 1; }
	CTRL_URL=http://127.0.0.1:$(listen_port_any "$CTRL_LOG")
	export TBCTL_URL=$CTRL_URL TBCTL_TOKEN_FILE=$ADMIN_TOKEN_FILE
}

# listen_port_any LOGFILE: like listen_port, for lines that end in "(http)" etc.
listen_port_any() {
	sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1
}

# api METHOD PATH [BODY]: curl with the admin token; prints the status, body in $TMP/api.out
api() {
	local m=$1 p=$2 body=${3:-}
	curl -s -o "$TMP/api.out" -w '%{http_code}' --max-time 10 -X "$m" \
		-H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" \
		${body:+-H 'Content-Type: application/json' --data-binary "$body"} "$CTRL_URL$p"
}

# start_sim_agent NODE SCENARIO [ARGS...]: a sim agent of NODE that enrols with a
# new bootstrap token; sets AGENT_PID.
start_sim_agent() {
	local node=$1 scen=$2; shift 2
	mkdir -p "$TMP/state-$node"
	"$BIN/tbctl" token create --ttl 10m >"$TMP/boot-$node" || return 1
	start_agent "agent-$node" --backend sim --scenario "$scen" --node "$node" \
		--controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot-$node" \
		--state-dir "$TMP/state-$node" "$@"
}
