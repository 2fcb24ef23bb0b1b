#!/usr/bin/env bash
# make demo: tbcontrollerd with a fresh inventory, and one tbagentd per
# simulated Mac Studio of the scenario (default: four M3 Ultras, two 512 GB
# and two 256 GB, in a full Thunderbolt 5 mesh), each enrolled with its own
# one-time bootstrap token.  Prints the addresses and the tbctl commands to
# try; Ctrl-C stops everything it started.  DEMO_SECONDS=N stops by itself.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
SCENARIO=${DEMO_SCENARIO:-tests/scenarios/mesh4-studio.json}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tbmesh-demo.XXXXXX")
PIDS=()

stop() {
	trap - INT TERM EXIT
	echo
	echo "Stopping the demo..."
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$WORK"
	exit 0
}
trap stop INT TERM EXIT

port_of() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }
wait_listen() {
	for _ in $(seq 100); do grep -q 'listening on' "$1" && return 0; sleep 0.1; done
	echo "did not start:"; cat "$1"; exit 1
}

"$B/tbcontrollerd" --db "$WORK/inventory.db" --listen 127.0.0.1:0 \
	--admin-token-file "$WORK/admin-token" --unreachable-after 10 >"$WORK/controller.log" 2>&1 &
PIDS+=($!)
wait_listen "$WORK/controller.log"
URL=http://127.0.0.1:$(port_of "$WORK/controller.log")
export TBCTL_URL=$URL TBCTL_TOKEN_FILE=$WORK/admin-token

nodes=$(jq -r '.nodes[].name' "$SCENARIO")
cluster=$(jq -r '.cluster' "$SCENARIO")
"$B/tbctl" cluster create "$cluster" >/dev/null || exit 1
for n in $nodes; do
	mkdir -p "$WORK/$n"
	"$B/tbctl" token create --ttl 10m --cluster "$cluster" --label "demo $n" \
		>"$WORK/$n/bootstrap-token" || exit 1
	"$B/tbagentd" --backend sim --scenario "$SCENARIO" --node "$n" --interval 2 \
		--listen 127.0.0.1:0 --controller "$URL" --state-dir "$WORK/$n" \
		--bootstrap-token-file "$WORK/$n/bootstrap-token" >"$WORK/$n/agent.log" 2>&1 &
	PIDS+=($!)
	wait_listen "$WORK/$n/agent.log"
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
echo
"$B/tbctl" nodes
echo
echo "Try (in another terminal):"
echo "  export TBCTL_URL=$URL TBCTL_TOKEN_FILE=$WORK/admin-token"
echo "  $B/tbctl nodes"
echo "  $B/tbctl clusters"
echo "  $B/tbctl node show mac1"
echo "  $B/tbctl node cordon mac3 --reason 'replacing a cable'"
echo "  $B/tbctl events"
echo "  $B/tbctl token create --ttl 1h"
echo "  curl -s $URL/metrics"
echo
if [ -n "${DEMO_SECONDS:-}" ]; then
	echo "(stopping in $DEMO_SECONDS s)"
	sleep "$DEMO_SECONDS"
else
	echo "Press Ctrl-C to stop."
	while :; do sleep 3600; done
fi
