#!/usr/bin/env bash
# make demo's script: a controller and four enrolled simulated Studios,
# the tbctl commands to try, and everything stopped at the end.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
DEMO_SECONDS=4 B=$B bash packaging/demo.sh >"$TMP/demo.out" 2>&1 &
demo=$!
wait_for "the demo to print what to try" 30 grep -q 'Try' "$TMP/demo.out"
check_eq "tbctl nodes shows four ready Studios" 4 "$(grep -cE '^mac[1-4] .*ready' "$TMP/demo.out")"
url=$(sed -n 's/^Controller: *\(http[^ ]*\).*/\1/p' "$TMP/demo.out")
check "the controller answers at the printed address" curl -sf "$url/healthz" -o /dev/null
check "the demo shows tbctl commands" grep -q 'tbctl node show mac1' "$TMP/demo.out"
wait "$demo"; check_eq "the demo stops by itself with status 0" 0 $?
sleep 0.5
check "the controller was stopped" sh -c "! curl -sf $url/healthz -o /dev/null"
check "no agent of the demo is left" sh -c "! pgrep -f '[t]bmesh-demo' >/dev/null"
done_testing
