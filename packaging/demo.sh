#!/usr/bin/env bash
# make demo: four simulated M3 Ultra Mac Studios (two 512 GB, two 256 GB,
# cabled in a full Thunderbolt 5 mesh), each with its own tbagentd on a
# loopback port.  Prints where they are and what to try; Ctrl-C stops
# everything it started.  DEMO_SECONDS=N stops by itself after N seconds.
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

nodes=$(sed -n 's/.*"name" *: *"\(mac[0-9]*\)".*/\1/p' "$SCENARIO" | sort -u)
echo "tbmesh demo: $(sed -n 's/.*"description" *: *"\([^"]*\)".*/\1/p' "$SCENARIO" | head -n 1)"
echo
printf '%-6s %-28s %s\n' NODE "AGENT" "LOG"
for n in $nodes; do
	log=$WORK/$n.log
	"$B/tbagentd" --backend sim --scenario "$SCENARIO" --node "$n" \
		--listen 127.0.0.1:0 --interval 2 >"$log" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 50); do grep -q 'listening on' "$log" && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$log" | head -n 1)
	if [ -z "$port" ]; then echo "tbagentd for $n did not start:"; cat "$log"; exit 1; fi
	printf '%-6s %-28s %s\n' "$n" "http://127.0.0.1:$port" "$log"
	eval "PORT_$n=$port"
done
first=$(echo "$nodes" | head -n 1)
fp=$(eval echo "\$PORT_$first")
sleep 0.5
echo
echo "Try:"
echo "  curl -s http://127.0.0.1:$fp/v1/report | jq .thunderbolt.ports"
echo "  curl -s http://127.0.0.1:$fp/metrics | grep ^tbmesh_thunderbolt"
echo "  curl -s http://127.0.0.1:$fp/healthz"
echo "  $B/tbagentd --once --pretty --backend sim --scenario $SCENARIO --node $first"
echo "  $B/tbagentd --once --pretty --backend linux      # this machine"
echo
echo "One port of $first, as its agent reports it:"
curl -s "http://127.0.0.1:$fp/v1/report" | jq -c '.thunderbolt.ports[0]' 2>/dev/null || true
echo
if [ -n "${DEMO_SECONDS:-}" ]; then
	echo "(stopping in $DEMO_SECONDS s)"
	sleep "$DEMO_SECONDS"
else
	echo "Press Ctrl-C to stop."
	while :; do sleep 3600; done
fi
