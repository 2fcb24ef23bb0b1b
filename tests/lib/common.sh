# Shared by the integration tests (bash).  Source it first thing:
#   . "$(dirname "$0")/../lib/common.sh"
# It sets TOP, B, BIN, a private TMP (removed at exit), counts checks, and
# keeps every process started with bg_start.  Finish with `done_testing`: it
# stops the daemons still running with SIGTERM and checks each one was still
# alive and exits 0, fails on any sanitizer report in $TMP, then prints the
# summary.  A daemon the test stops itself goes through bg_stop (or bg_reap
# after its own signal), or is collected by the test with `wait`; one it
# SIGKILLs or leaves running on purpose is handed over with bg_forget.
set -u
TOP=${TBMESH_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
B=${B:-build}
case "$B" in /*) BIN=$B ;; *) BIN=$TOP/$B ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tbmesh-test.XXXXXX")
T_PASS=0 T_FAIL=0
BG_STOP_SECS=10     # how long a daemon may take to exit after SIGTERM
BG_PIDS=()          # every pid bg_start started (cleanup kills what is left)
BG_CHECK=()         # the same, emptied once the test takes a pid over
BG_LOGS=()          # their log files
CLEANUP_HOOKS=()    # functions cleanup runs before $TMP goes (tests/lib/macnode.sh's)

# AddressSanitizer's reports go to $TMP/asan.PID whoever runs a binary and
# wherever its standard error goes (the demo's daemons, a command run with
# 2>/dev/null); done_testing fails on them like on a report in a log.
case "${ASAN_OPTIONS:-}" in
*log_path=*) ;;
*) export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$TMP/asan ;;
esac

# bg_alive PID: PID is a child of this shell that has not exited (never a
# recycled pid of some other process).
bg_alive() {
	local ppid stat
	read -r ppid stat < <(ps -o ppid= -o stat= -p "$1" 2>/dev/null) || return 1
	[ "$ppid" = "$$" ] && case "$stat" in Z*) return 1 ;; *) return 0 ;; esac
}

cleanup() {
	local rc=$? i p deadline
	for ((i = 0; i < ${#BG_PIDS[@]}; i++)); do
		p=${BG_PIDS[i]}
		bg_alive "$p" && kill "$p" 2>/dev/null
	done
	deadline=$((SECONDS + BG_STOP_SECS))
	for ((i = 0; i < ${#BG_PIDS[@]}; i++)); do
		p=${BG_PIDS[i]}
		while bg_alive "$p" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
		bg_alive "$p" && kill -KILL "$p" 2>/dev/null
		builtin wait "$p" 2>/dev/null
	done
	for ((i = 0; i < ${#CLEANUP_HOOKS[@]}; i++)); do "${CLEANUP_HOOKS[i]}"; done
	rm -rf "$TMP"
	exit $rc
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

# jq_true FILE FILTER: FILTER is true on FILE ("-": stdin), which must hold
# exactly one JSON value (jq -e alone passes an empty input).
jq_true() { jq -e -s "length == 1 and (.[0] | $2)" "$1" >/dev/null 2>&1; }

# check_jq DESCRIPTION FILE FILTER: passes when jq_true FILE FILTER.
check_jq() {
	if jq_true "$2" "$3"; then ok "$1"
	else not_ok "$1: jq '$3' is not true on $2"; head -c 2000 "$2"; echo; fi
}

skip_all() { echo "skipped: $*"; exit 77; }

done_testing() {
	bg_check_all
	sanitizer_check
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
	BG_CHECK+=("$BG_PID")
	BG_LOGS+=("$log")
}

# bg_log PID: the log bg_start gave it (empty if none).
bg_log() {
	local i
	for ((i = 0; i < ${#BG_PIDS[@]}; i++)); do
		[ "${BG_PIDS[i]}" = "$1" ] && { echo "${BG_LOGS[i]}"; return; }
	done
}

# bg_what PID: how the messages name it: "pid 123 [agent-mac1.log]".
bg_what() {
	local log
	log=$(bg_log "$1")
	echo "pid $1${log:+ [${log##*/}]}"
}

# bg_tail PID: the end of its log, as comments.
bg_tail() {
	local log
	log=$(bg_log "$1")
	[ -n "$log" ] && [ -f "$log" ] && tail -n 20 "$log" | sed 's/^/# /'
}

# bg_forget PID...: the test takes these over (it SIGKILLed them, collects
# them itself, or leaves them running on purpose): done_testing neither stops
# nor checks them.  cleanup still kills one left running at exit.
bg_forget() {
	local p i
	for p in "$@"; do
		for ((i = 0; i < ${#BG_CHECK[@]}; i++)); do
			[ "${BG_CHECK[i]}" = "$p" ] && BG_CHECK[i]=
		done
	done
}

# wait PID...: the builtin; a pid the test collects itself is the test's to
# check, so done_testing forgets it.
wait() {
	bg_forget "$@"
	builtin wait "$@"
}

# bg_exited PID: fails the test, with the end of the log, for a daemon that
# exited without being asked to.
bg_exited() {
	local rc
	builtin wait "$1" 2>/dev/null; rc=$?
	not_ok "$(bg_what "$1") exited by itself during the test (status $rc)"
	bg_tail "$1"
}

# bg_reap PID...: after the test signalled them, wait for each to exit
# ($BG_STOP_SECS at most, then SIGKILL) and check its status is 0.
bg_reap() {
	local p rc deadline=$((SECONDS + BG_STOP_SECS))
	bg_forget "$@"
	for p in "$@"; do
		while bg_alive "$p" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
		if bg_alive "$p"; then
			not_ok "$(bg_what "$p") did not exit within ${BG_STOP_SECS} s"
			bg_tail "$p"
			kill -KILL "$p" 2>/dev/null
			builtin wait "$p" 2>/dev/null
			continue
		fi
		builtin wait "$p" 2>/dev/null; rc=$?
		check_eq "$(bg_what "$p") exits with status 0" 0 "$rc"
		[ "$rc" = 0 ] || bg_tail "$p"
	done
}

# bg_stop PID...: SIGTERM to each, which must still be running, then bg_reap.
bg_stop() {
	local p live=()
	bg_forget "$@"
	for p in "$@"; do
		if bg_alive "$p"; then
			kill -TERM "$p"
			live+=("$p")
		else
			bg_exited "$p"
		fi
	done
	[ ${#live[@]} -eq 0 ] || bg_reap "${live[@]}"
}

# Every daemon the test did not take over must still be running: stop them
# all with SIGTERM and check they exit 0.
bg_check_all() {
	local i p left=()
	for ((i = 0; i < ${#BG_CHECK[@]}; i++)); do
		p=${BG_CHECK[i]}
		[ -n "$p" ] && left+=("$p")
	done
	[ ${#left[@]} -eq 0 ] || bg_stop "${left[@]}"
}

# A sanitizer report anywhere in $TMP (daemons' logs, saved output, the
# asan.PID files) fails the test; the lines are shown.
sanitizer_check() {
	local f
	while IFS= read -r f; do
		not_ok "sanitizer report in ${f#"$TMP"/}"
		grep -n -A 12 -E 'Sanitizer|runtime error:' "$f" | head -n 40 | sed 's/^/# /'
	done < <(grep -rlI -E 'Sanitizer|runtime error:' "$TMP" 2>/dev/null)
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

# inventory_dump: the controller's inventory ($CTRL_DB) as SQL text.
inventory_dump() { sqlite3 "$CTRL_DB" .dump; }
# inventory_settled: two dumps 0.5 s apart agree (a report the controller
# took just before its agent went is stored by now); the first is left in
# $TMP/before.sql, to compare with after the requests.
inventory_settled() {
	inventory_dump >"$TMP/before.sql"
	sleep 0.5
	inventory_dump | cmp -s - "$TMP/before.sql"
}

# api METHOD PATH [BODY]: curl with the admin token; prints the status, body in $TMP/api.out
api() {
	local m=$1 p=$2 body=${3:-}
	curl -s -o "$TMP/api.out" -w '%{http_code}' --max-time 10 -X "$m" \
		-H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" \
		${body:+-H 'Content-Type: application/json' --data-binary "$body"} "$CTRL_URL$p"
}

# start_sim_agent NODE SCENARIO [ARGS...]: a sim agent of NODE that enrols with a
# new pre-approved bootstrap token (tbctl token create --accept), so that it
# becomes ready without tbctl node accept; sets AGENT_PID, which
# sim_agent_pid NODE gives later.  start_pending_sim_agent does the same with
# a plain bootstrap token: the node waits as pending until accepted.
start_sim_agent() {
	_start_sim_agent --accept "$@"
}

start_pending_sim_agent() {
	_start_sim_agent "" "$@"
}

_start_sim_agent() {
	local accept=$1 node=$2 scen=$3; shift 3
	mkdir -p "$TMP/state-$node"
	"$BIN/tbctl" token create --ttl 10m $accept >"$TMP/boot-$node" || return 1
	start_agent "agent-$node" --backend sim --scenario "$scen" --node "$node" \
		--controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot-$node" \
		--state-dir "$TMP/state-$node" "$@"
	local rc=$?
	echo "$AGENT_PID" >"$TMP/agent-$node.pid"
	return $rc
}

# sim_agent_pid NODE: the pid of the agent start_sim_agent started for NODE.
sim_agent_pid() { cat "$TMP/agent-$1.pid"; }
