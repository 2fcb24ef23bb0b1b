#!/usr/bin/env bash
# make demo's script: a controller and four enrolled simulated Studios,
# the tbctl commands to try, and everything stopped at the end, with status 0
# when it ran (by itself after DEMO_SECONDS, or on SIGTERM), 1 when it could
# not start.  Jobs: each Studio has its own sshd running as this user, and
# the commands the demo prints run a model there (the fake MLX runtime):
# place, run, running, a completion from rank 0's endpoint, job show, job
# logs, job stop; a job left running has its ranks ended with the demo.
# Without sshd the demo runs without jobs and says why.
# The README's transcript of it is checked by docs_pages.sh.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/mlxjob.sh"    # pid_gone
cd "$TOP" || exit 1

# gone PID: no tbagentd, tbcontrollerd or sshd runs with that pid any more.
gone() { ! ps -o comm= -p "$1" 2>/dev/null | grep -qE '^(tb|sshd)'; }

# demo_pids_ok FILE DEMO-PID N: FILE names the N daemons, children of the demo.
demo_pids_ok() {
	local p
	check_eq "the demo names the $3 daemons it started" "$3" "$(wc -w <"$1")"
	for p in $(cat "$1"); do
		check "daemon $p is running, started by the demo" \
			test "$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')" = "$2"
	done
}

# printed PATTERN FILE: the demo's line of what to try that matches, with
# its two leading spaces taken off.
printed() { grep -E "^  ($1)" "$2" | head -n 1 | sed 's/^  //'; }

# --- without sshd: no jobs, and it says why
bg_start "$TMP/demo.out" env DEMO_SECONDS=4 DEMO_PIDFILE="$TMP/demo.pids" B="$B" \
	DEMO_SSHD="$TMP/no-sshd" bash packaging/demo.sh
demo=$BG_PID
wait_for "the demo to print what to try" 30 grep -q 'Try' "$TMP/demo.out"
check_eq "tbctl nodes shows four ready Studios" 4 "$(grep -cE '^mac[1-4] .*ready' "$TMP/demo.out")"
url=$(sed -n 's/^Controller: *\(http[^ ]*\).*/\1/p' "$TMP/demo.out")
check "the controller answers at the printed address" curl -sf "$url/healthz" -o /dev/null
check "the demo shows tbctl commands" grep -q 'tbctl node show mac1' "$TMP/demo.out"
check "without sshd, jobs are off, and it says why" \
	grep -qF "Jobs:        off: no $TMP/no-sshd" "$TMP/demo.out"
check "and it shows no tbctl run" sh -c "! grep -q 'tbctl run' '$TMP/demo.out'"
demo_pids_ok "$TMP/demo.pids" "$demo" 5
wait "$demo"; check_eq "the demo stops by itself with status 0" 0 $?
check "the controller was stopped" sh -c "! curl -sf $url/healthz -o /dev/null"
for p in $(cat "$TMP/demo.pids"); do
	check "the demo's daemon $p is gone" gone "$p"
done

# --- with sshd: a model run as the demo says; stopped with SIGTERM, as by
# Ctrl-C: status 0 within 10 s, the ranks of the job left running ended
[ -x /usr/sbin/sshd ] || { echo "# no /usr/sbin/sshd: the demo's jobs are not tried"; }
bg_start "$TMP/demo2.out" env DEMO_PIDFILE="$TMP/demo2.pids" B="$B" bash packaging/demo.sh
demo=$BG_PID
wait_for "the second demo to print what to try" 30 grep -q 'Press Ctrl-C' "$TMP/demo2.out"
if [ -x /usr/sbin/sshd ]; then
	demo_pids_ok "$TMP/demo2.pids" "$demo" 9
	check "jobs are on" grep -q '^Jobs: *on:' "$TMP/demo2.out"
	eval "$(printed export "$TMP/demo2.out")"
	work=${TBCTL_TOKEN_FILE%/admin-token}
	place=$(printed "$B/tbctl place [^ ]* --apply" "$TMP/demo2.out")
	run=$(printed "$B/tbctl run " "$TMP/demo2.out")
	completion=$(printed "curl -s http://[0-9.]*:8080/v1/completions" "$TMP/demo2.out")
	check "the demo shows place --apply, run and a completion" \
		test -n "$place" -a -n "$run" -a -n "$completion"
	for c in "tbctl jobs" "tbctl job show 1" "tbctl job logs 1" "tbctl job stop 1"; do
		check "the demo shows $c" grep -q "^  $B/$c" "$TMP/demo2.out"
	done
	# the placement, as printed: mac1 and mac2, the coordinator mac1's SSH address
	$place --json >"$TMP/place.json"
	check_jq "$place: placement 1, jaccl on mac1 and mac2" "$TMP/place.json" \
		'.id == 1 and .hostfile.backend == "jaccl" and ([.ranks[].node] == ["mac1", "mac2"])'
	a1=$(jq -r '.hostfile.hosts[0].ssh | sub(".*@"; "")' "$TMP/place.json")
	check_jq "its coordinator is rank 0's SSH address ($a1)" "$TMP/place.json" \
		".coordinator == \"$a1:32323\""
	$run >"$TMP/run.out" 2>&1
	check "$run starts job 1" grep -q '^job 1: placement 1 .* starting on mac1, mac2' "$TMP/run.out"
	wait_for "job 1 running" 30 sh -c "$B/tbctl job show 1 --json | jq -e '.state == \"running\"'"
	"$B/tbctl" job show 1 --json >"$TMP/job.json"
	check_jq "two ranks alive, rank 0's endpoint on $a1:8080" "$TMP/job.json" \
		"([.ranks[] | select(.alive == true and .pid > 0)] | length) == 2 and
		 .endpoint == \"http://$a1:8080\""
	pids=$(jq -r '[.ranks[].pid] | join(" ")' "$TMP/job.json")
	timeout 20 bash -c "$completion" >"$TMP/completion.out" 2>&1
	check_eq "a completion from rank 0, as the demo prints it" \
		'[{"index":0,"finish_reason":"length","text":"ok"}]' "$(cat "$TMP/completion.out")"
	"$B/tbctl" job logs 1 --rank 1 >"$TMP/logs.out" 2>&1
	check "job logs: rank 1 was given the coordinator $a1:32323" \
		grep -q "MLX_JACCL_COORDINATOR=$a1:32323 MLX_RANK=1" "$TMP/logs.out"
	check "and joined the jaccl group" grep -q 'group jaccl mesh rank 1 of 2' "$TMP/logs.out"
	"$B/tbctl" job stop 1 >"$TMP/stop.out" 2>&1
	check_eq "job stop" "job 1 stopped: 2 ranks ended, none left" "$(cat "$TMP/stop.out")"
	for p in $pids; do check "rank pid $p is gone" pid_gone "$p"; done
	# a job left running when the demo stops
	"$B/tbctl" run 1 >/dev/null
	wait_for "job 2 running" 30 sh -c "$B/tbctl job show 2 --json | jq -e '.state == \"running\"'"
	pids=$("$B/tbctl" job show 2 --json | jq -r '[.ranks[].pid] | join(" ")')
	check "job 2 has two ranks ($pids)" test "$(wc -w <<<"$pids")" = 2
else
	demo_pids_ok "$TMP/demo2.pids" "$demo" 5
	work="" pids=""
fi
bg_stop "$demo"
for p in $(cat "$TMP/demo2.pids"); do
	check "the stopped demo's daemon $p is gone" gone "$p"
done
for p in $pids; do
	check "job 2's rank $p ended with the demo" pid_gone "$p"
done
[ -z "$work" ] || check "the demo's files are removed" test ! -e "$work"

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
	check "the failed demo's controller $p is gone" gone "$p"
done
done_testing
