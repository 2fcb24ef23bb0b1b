#!/usr/bin/env bash
# make demo's script: starts one agent per node of the four-node scenario,
# prints their addresses and what to try, and stops everything it started.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
DEMO_SECONDS=4 B=$B bash packaging/demo.sh >"$TMP/demo.out" 2>&1 &
demo=$!
wait_for "the demo to print its agents" 20 grep -q 'Try:' "$TMP/demo.out"
check_eq "four agents listed" 4 "$(grep -cE '^mac[0-9] +http://127.0.0.1:[0-9]+' "$TMP/demo.out")"
for url in $(grep -oE 'http://127.0.0.1:[0-9]+' "$TMP/demo.out" | sort -u); do
	check "agent at $url serves a report" curl -sf "$url/v1/report" -o /dev/null
done
port=$(grep -oE '^mac3 +http://127.0.0.1:[0-9]+' "$TMP/demo.out" | grep -oE '[0-9]+$')
curl -sf "http://127.0.0.1:$port/v1/report" >"$TMP/mac3.json"
check_jq "mac3 is a 256 GB Studio with three 80 Gb/s links" "$TMP/mac3.json" \
	'.memory.total_bytes == 274877906944 and ([.thunderbolt.ports[] | select(.speed_gbps == 80)] | length) == 3'
check "the demo shows commands to try" grep -q 'tbagentd --once' "$TMP/demo.out"
wait "$demo"; check_eq "the demo stops by itself with status 0" 0 $?
sleep 0.5
for url in $(grep -oE 'http://127.0.0.1:[0-9]+' "$TMP/demo.out" | sort -u); do
	check "agent at $url was stopped" sh -c "! curl -sf $url/healthz -o /dev/null"
done
done_testing
