#!/usr/bin/env bash
# make demo's script: a controller and four enrolled simulated Studios,
# the tbctl commands to try, and everything stopped at the end, with status 0
# when it ran (by itself after DEMO_SECONDS, or on SIGTERM), 1 when it could
# not start.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"

# tb_gone PID: no tbagentd or tbcontrollerd runs with that pid any more.
tb_gone() { ! ps -o comm= -p "$1" 2>/dev/null | grep -q '^tb'; }

# demo_pids_ok FILE DEMO-PID: FILE names the five daemons, children of the demo.
demo_pids_ok() {
	local p
	check_eq "the demo names the five daemons it started" 5 "$(wc -w <"$1")"
	for p in $(cat "$1"); do
		check "daemon $p is running, started by the demo" \
			test "$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')" = "$2"
	done
}

bg_start "$TMP/demo.out" env DEMO_SECONDS=4 DEMO_PIDFILE="$TMP/demo.pids" B="$B" \
	bash packaging/demo.sh
demo=$BG_PID
wait_for "the demo to print what to try" 30 grep -q 'Try' "$TMP/demo.out"
check_eq "tbctl nodes shows four ready Studios" 4 "$(grep -cE '^mac[1-4] .*ready' "$TMP/demo.out")"
url=$(sed -n 's/^Controller: *\(http[^ ]*\).*/\1/p' "$TMP/demo.out")
check "the controller answers at the printed address" curl -sf "$url/healthz" -o /dev/null
check "the demo shows tbctl commands" grep -q 'tbctl node show mac1' "$TMP/demo.out"
demo_pids_ok "$TMP/demo.pids" "$demo"
wait "$demo"; check_eq "the demo stops by itself with status 0" 0 $?
check "the controller was stopped" sh -c "! curl -sf $url/healthz -o /dev/null"
for p in $(cat "$TMP/demo.pids"); do
	check "the demo's daemon $p is gone" tb_gone "$p"
done

# stopped with SIGTERM, as by Ctrl-C: status 0 within 10 s
bg_start "$TMP/demo2.out" env DEMO_PIDFILE="$TMP/demo2.pids" B="$B" bash packaging/demo.sh
demo=$BG_PID
wait_for "the second demo to print what to try" 30 grep -q 'Press Ctrl-C' "$TMP/demo2.out"
demo_pids_ok "$TMP/demo2.pids" "$demo"
bg_stop "$demo"
for p in $(cat "$TMP/demo2.pids"); do
	check "the stopped demo's daemon $p is gone" tb_gone "$p"
done

# a demo that cannot start says why and fails, and stops what it started
bg_start "$TMP/demo3.out" env DEMO_SCENARIO="$TMP/nosuch.json" DEMO_PIDFILE="$TMP/demo3.pids" \
	B="$B" bash packaging/demo.sh
demo=$BG_PID
for _ in $(seq 200); do bg_alive "$demo" || break; sleep 0.1; done
if bg_alive "$demo"; then
	not_ok "a demo that cannot start gives up within 20 s"
	bg_stop "$demo"
else
	wait "$demo"; rc=$?
	check "a demo that cannot start exits with a failure status ($rc)" test "$rc" -ne 0
fi
check "and says why" grep -q 'no nodes in the scenario' "$TMP/demo3.out"
check_eq "it had started the controller" 1 "$(wc -w <"$TMP/demo3.pids")"
for p in $(cat "$TMP/demo3.pids"); do
	check "the failed demo's controller $p is gone" tb_gone "$p"
done
done_testing
