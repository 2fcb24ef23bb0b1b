#!/usr/bin/env bash
# make demo: tbcontrollerd with a fresh inventory, and one tbagentd per
# simulated Mac Studio of the scenario (default: four M3 Ultras, two 512 GB
# and two 256 GB, in a full Thunderbolt 5 mesh), each enrolled with its own
# one-time, pre-approved bootstrap token (tbctl token create --accept), so
# that they are ready without tbctl node accept; the dashboard and the model
# catalog are the ones compiled into tbcontrollerd.  Prints the addresses, a
# viewer token file for the dashboard and the tbctl commands to try; Ctrl-C
# stops everything it started.
# DEMO_SECONDS=N stops by itself.
# DEMO_PIDFILE=FILE: the pids of the daemons it starts are written there, one
# a line, as they start.
# Exit status: 0 after a normal stop; 1 when something did not start, or
# when a daemon did not end with status 0 (within 10 s of SIGTERM).
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
SCENARIO=${DEMO_SCENARIO:-tests/scenarios/mesh4-studio.json}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tbmesh-demo.XXXXXX")
PIDS=()
SLEEPER=

# stop STATUS: stop the daemons; exits with STATUS, or 1 if one misbehaved.
stop() {
	local rc=$1 p st
	trap - INT TERM EXIT
	echo
	echo "Stopping the demo..."
	[ -z "$SLEEPER" ] || kill "$SLEEPER" 2>/dev/null
	for p in "${PIDS[@]:-}"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]:-}"; do
		[ -n "$p" ] || continue
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$p" 2>/dev/null; then
			echo "demo: process $p did not stop within 10 s; killed" >&2
			kill -KILL "$p" 2>/dev/null
			rc=1
		fi
		wait "$p"; st=$?
		[ "$st" -eq 0 ] || { echo "demo: process $p exited with status $st" >&2; rc=1; }
	done
	rm -rf "$WORK"
	exit "$rc"
}
trap 'stop 0' INT TERM
trap 'stop $?' EXIT

# started PID: remember a daemon this script started.
started() {
	PIDS+=("$1")
	[ -z "${DEMO_PIDFILE:-}" ] || echo "$1" >>"$DEMO_PIDFILE"
}

port_of() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }
# wait_listen LOG PID: until the daemon says it listens; exit 1 if it does not.
wait_listen() {
	for _ in $(seq 100); do
		grep -q 'listening on' "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "did not start:"; cat "$1"; exit 1
}

[ -z "${DEMO_PIDFILE:-}" ] || : >"$DEMO_PIDFILE" || exit 1
"$B/tbcontrollerd" --db "$WORK/inventory.db" --listen 127.0.0.1:0 \
	--admin-token-file "$WORK/admin-token" --unreachable-after 10 >"$WORK/controller.log" 2>&1 &
started $!
wait_listen "$WORK/controller.log" $!
URL=http://127.0.0.1:$(port_of "$WORK/controller.log")
export TBCTL_URL=$URL TBCTL_TOKEN_FILE=$WORK/admin-token

nodes=$(jq -r '.nodes[].name' "$SCENARIO") && cluster=$(jq -r '.cluster' "$SCENARIO") &&
	[ -n "$nodes" ] || { echo "demo: no nodes in the scenario $SCENARIO" >&2; exit 1; }
"$B/tbctl" cluster create "$cluster" >/dev/null || exit 1
for n in $nodes; do
	mkdir -p "$WORK/$n"
	# pre-approved: the demo's own agents need no tbctl node accept
	"$B/tbctl" token create --ttl 10m --cluster "$cluster" --label "demo $n" --accept \
		>"$WORK/$n/bootstrap-token" || exit 1
	"$B/tbagentd" --backend sim --scenario "$SCENARIO" --node "$n" --interval 2 \
		--listen 127.0.0.1:0 --controller "$URL" --state-dir "$WORK/$n" \
		--bootstrap-token-file "$WORK/$n/bootstrap-token" >"$WORK/$n/agent.log" 2>&1 &
	started $!
	wait_listen "$WORK/$n/agent.log" $!
done
count=$(echo "$nodes" | wc -w)
for _ in $(seq 100); do
	ready=$("$B/tbctl" nodes --json 2>/dev/null | jq '[.nodes[] | select(.state == "ready")] | length')
	[ "${ready:-0}" -ge "$count" ] && break
	sleep 0.2
done

echo "tbmesh demo: $(jq -r .description "$SCENARIO")"
echo
echo "Controller:  $URL   (inventory and logs in $WORK)"
if "$B/tbctl" token create --role viewer --label "demo dashboard" >"$WORK/viewer-token"; then
	echo "Dashboard:   $URL/   (log in with the viewer token in $WORK/viewer-token)"
fi
echo
"$B/tbctl" nodes
echo
echo "Try (in another terminal):"
echo "  export TBCTL_URL=$URL TBCTL_TOKEN_FILE=$WORK/admin-token"
echo "  $B/tbctl nodes"
echo "  $B/tbctl clusters"
echo "  $B/tbctl node show mac1"
echo "  $B/tbctl node history mac1 --since 5m"
echo "  $B/tbctl node cordon mac3 --reason 'replacing a cable'"
echo "  $B/tbctl events"
echo "  $B/tbctl token create --ttl 1h     (an agent enrolled with it waits as"
echo "                                  pending until: tbctl node accept NODE)"
echo "  $B/tbctl models"
echo "  $B/tbctl place deepseek-v3.1:4bit --hostfile /tmp/hosts.json"
echo "  $B/tbctl place glm-4.5:4bit --strategy pipeline --apply"
echo "  curl -s $URL/metrics"
echo
# sleep in the background, so that a signal is handled at once
if [ -n "${DEMO_SECONDS:-}" ]; then
	echo "(stopping in $DEMO_SECONDS s)"
	sleep "$DEMO_SECONDS" &
	SLEEPER=$!
	wait "$SLEEPER"
else
	echo "Press Ctrl-C to stop."
	while :; do
		sleep 3600 &
		SLEEPER=$!
		wait "$SLEEPER"
	done
fi
