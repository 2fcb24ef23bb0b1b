#!/usr/bin/env bash
# tbctl job logs --follow (issue 20) on two simulated Macs running the fake
# MLX runtime (tests/fakemac/mlx/python3).  A 2-node job runs; followers
# (people's output of both ranks, and --json of rank 0) print the last
# lines, then each new line once, in order, as the ranks' logs grow: lines
# appended the way a rank's output is (to rankR.log, opened with >> by the
# start line), in bursts, a line written in two halves (shown once ended),
# more lines at once than one answer holds (the rest read at once); a log
# truncated under them is read again from its start and said so; a node
# whose SSH stops answering is said on stderr while the other rank's lines
# go on, and its lines come once it answers again.  SIGTERM ends a follower
# with status 0; stopping the job ends the others by themselves, status 0,
# with why.  The answer's offsets: GET /v1/jobs/ID/logs?from=R:OFFSET.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
mlx_setup logs a1 a2 || { not_ok "setup"; done_testing; }
A1=$(macnode_addr a1)
A2=$(macnode_addr a2)
PORT=$(macnode_free_port "$A1")
P=$(mlx_place a1,a2)
"$CTL" run "$P" --port "$PORT" --restart never --json >"$TMP/run.json" || not_ok "tbctl run"
J=$(jq -r .id "$TMP/run.json")
job_wait "$J" running 30
check "job $J runs on a1, a2" test $? -eq 0
LOG0=$(macnode_jobs a1)/job$J/rank0.log
LOG1=$(macnode_jobs a2)/job$J/rank1.log
check "each rank writes its log on its node" test -s "$LOG0" -a -s "$LOG1"

# -- the answer's offsets
size0=$(stat -c %s "$LOG0")
code=$(api GET "/v1/jobs/$J/logs?rank=0&lines=2")
check_eq "GET logs: 200" 200 "$code"
cp "$TMP/api.out" "$TMP/tail.json"
check_jq "the last 2 lines, the offset after them, the file's size" "$TMP/tail.json" \
	"(.ranks | length) == 1 and (.ranks[0].lines | length) == 2 and .ranks[0].end == $size0 and .ranks[0].size == $size0 and .state == \"running\" and .ended == false"
printf 'offset one\noffset two\n' >>"$LOG0"
code=$(api GET "/v1/jobs/$J/logs?rank=0&from=0:$size0")
check_jq "from that offset: only what came since" "$TMP/api.out" \
	"$code == 200 and .ranks[0].lines == [\"offset one\", \"offset two\"] and .ranks[0].start == $size0 and .ranks[0].end == $((size0 + 22))"
check_eq "a from that is not RANK:OFFSET: 400" 400 "$(api GET "/v1/jobs/$J/logs?from=0-5")"
check_eq "a rank the job does not have: 400" 400 "$(api GET "/v1/jobs/$J/logs?rank=5")"

# -- followers
"$CTL" job logs "$J" --follow --interval 0.3 >"$TMP/f.out" 2>"$TMP/f.err" &
FPID=$!
"$CTL" job logs "$J" --rank 0 --follow --interval 0.3 --json >"$TMP/fj.out" 2>"$TMP/fj.err" &
JPID=$!
"$CTL" job logs "$J" --rank 1 --follow >"$TMP/ft.out" 2>"$TMP/ft.err" &
TPID=$!
wait_for "the followers print the last lines" 10 sh -c \
	"grep -q 'offset two' '$TMP/f.out' && grep -q 'offset two' '$TMP/fj.out' && grep -q 'fake-mlx' '$TMP/ft.out'"
check "people's output: a header per rank" sh -c \
	"grep -qx '== rank 0 (a1) ==' '$TMP/f.out' && grep -qx '== rank 1 (a2) ==' '$TMP/f.out'"

# lines as the ranks write them: bursts on both, one line in two halves
for i in $(seq 1 30); do
	echo "r0 tick $i" >>"$LOG0"
	[ $((i % 3)) = 0 ] && echo "r1 tick $i" >>"$LOG1"
	[ $((i % 10)) = 0 ] && sleep 0.4
done
printf 'r0 half' >>"$LOG0"
sleep 1
check "a line not ended is not shown" sh -c "! grep -q 'r0 half' '$TMP/f.out'"
printf ' and the rest\n' >>"$LOG0"
# more than one answer holds (1000 lines)
seq -f 'r1 bulk %g' 1 2500 >>"$LOG1"
echo "r0 marker" >>"$LOG0"
echo "r1 marker" >>"$LOG1"
wait_for "every line reaches the followers" 20 sh -c \
	"grep -qx 'r0 marker' '$TMP/f.out' && grep -qx 'r1 marker' '$TMP/f.out' && grep -q 'r0 marker' '$TMP/fj.out' && grep -qx 'r1 marker' '$TMP/ft.out'"

# once_in_order FILE PATTERN N: lines PATTERN 1..N each once, in order
once_in_order() {
	grep -E "^$2 [0-9]+$" "$1" | awk -v n="$3" '{ k = $NF; if (k != ++i) { print "line " i " is " $0; exit 1 } }
		END { if (i != n) { print i " lines, not " n; exit 1 } }'
}
check "rank 0's ticks: each once, in order" once_in_order "$TMP/f.out" "r0 tick" 30
check "rank 1's bulk: 2500 lines, each once, in order" once_in_order "$TMP/f.out" "r1 bulk" 2500
check "rank 1 alone: the same" once_in_order "$TMP/ft.out" "r1 bulk" 2500
check "--rank 1: no header" sh -c "! grep -q '^== rank' '$TMP/ft.out'"
check_eq "the line written in two halves: once, whole" 1 "$(grep -cx 'r0 half and the rest' "$TMP/f.out")"
check_eq "offset lines: once (the last lines, not again)" 1 "$(grep -cx 'offset two' "$TMP/f.out")"
# --json: one object a line, each answer with something new
check "--json --follow: every line is one JSON object" sh -c \
	"jq -c . '$TMP/fj.out' >/dev/null && [ \$(wc -l <'$TMP/fj.out') = \$(jq -c . '$TMP/fj.out' | wc -l) ]"
jq -r '.ranks[].lines[]' "$TMP/fj.out" >"$TMP/fj.lines"
check "--json: rank 0's ticks each once, in order" once_in_order "$TMP/fj.lines" "r0 tick" 30

# -- a log truncated under the follower
: >"$LOG1"
echo "r1 after truncation" >>"$LOG1"
wait_for "the truncated log is read from its start" 10 grep -qx 'r1 after truncation' "$TMP/f.out"
# (shrank; or replaced, when the truncation came between a read's size and its bytes)
check "and it is said" grep -qE 'rank 1 \(a2\): its log (shrank|was replaced)' "$TMP/f.err" ||
	sed 's/^/# /' "$TMP/f.err"
check_eq "once" 1 "$(grep -cx 'r1 after truncation' "$TMP/f.out")"

# -- a2's SSH stops answering: said, the other rank goes on, nothing lost
SILENT=$(macnode_free_port "$A2")
timeout 60 python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(64)
conns = []
end = time.time() + 60
while time.time() < end:
    s.settimeout(max(0.1, end - time.time()))
    try:
        conns.append(s.accept()[0])
    except OSError:
        pass' "$A2" "$SILENT" &
silent_pid=$!
for i in $(seq 50); do (exec 3<>"/dev/tcp/$A2/$SILENT") 2>/dev/null && break; sleep 0.1; done
"$CTL" node ssh a2 --host "$A2" --port "$SILENT" --user "$MACNODE_LOGIN" >/dev/null &&
	"$CTL" node trust a2 --fingerprint "$(macnode_fp a2)" >/dev/null
check "a2's SSH points at a listener that never speaks" test $? -eq 0
# the lines are written once the follower has said a2 does not answer: a
# poll sent before the settings changed may still read a2's log
wait_for "a2 not answering is said" 20 grep -q 'rank 1 (a2):.*still following' "$TMP/f.err"
echo "r1 while away" >>"$LOG1"
echo "r0 while a2 is away" >>"$LOG0"
wait_for "rank 0's lines go on meanwhile" 20 grep -qx 'r0 while a2 is away' "$TMP/f.out"
check "rank 1's line has not come" sh -c "! grep -q 'r1 while away' '$TMP/f.out'"
check "the follower runs on" kill -0 "$FPID"
kill "$silent_pid" 2>/dev/null; builtin wait "$silent_pid" 2>/dev/null
macnode_register a2
check "a2's SSH settings are back" test $? -eq 0
wait_for "rank 1's line comes once a2 answers" 20 grep -qx 'r1 while away' "$TMP/f.out"
check_eq "once" 1 "$(grep -cx 'r1 while away' "$TMP/f.out")"
check "that is said too" grep -q 'rank 1 (a2): read again' "$TMP/f.err"

# -- SIGTERM: status 0
kill -TERM "$TPID"
t0=$SECONDS
wait "$TPID"; rc=$?
check_eq "SIGTERM ends a follower with status 0 ($((SECONDS - t0)) s)" 0 "$rc"

# -- the job stops: the followers end by themselves, status 0, with why
echo "r0 last words" >>"$LOG0"
"$CTL" job stop "$J" >/dev/null 2>&1 || not_ok "tbctl job stop"
t0=$SECONDS
ended=1
for i in $(seq 100); do
	{ kill -0 "$FPID" || kill -0 "$JPID"; } 2>/dev/null || { ended=0; break; }
	sleep 0.1
done
check "the followers end within 10 s of the stop ($((SECONDS - t0)) s)" test "$ended" = 0
wait "$FPID"; rc=$?
check_eq "people's follower: status 0" 0 "$rc"
wait "$JPID"; rc=$?
check_eq "--json follower: status 0" 0 "$rc"
check "it says why it ended ($(tail -n 1 "$TMP/f.err"))" grep -q "job $J stopped.*no more lines" "$TMP/f.err"
check_eq "the last line written before the stop: once" 1 "$(grep -cx 'r0 last words' "$TMP/f.out")"
tail -n 1 "$TMP/fj.out" >"$TMP/fj.last"
check_jq "--json: the last object says ended" "$TMP/fj.last" '.ended == true and .state == "stopped"'
check_eq "no rank left" 0 "$(mlx_count a1 a2)"

# a follower of a job that has ended: the last lines, then ends at once
timeout 10 "$CTL" job logs "$J" --follow >"$TMP/f2.out" 2>"$TMP/f2.err"
check_eq "following a stopped job: status 0 at once" 0 $?
check "with its last lines" grep -qx 'r0 last words' "$TMP/f2.out"
check_eq "--interval without --follow: a usage error" 2 \
	"$("$CTL" job logs "$J" --interval 1 >/dev/null 2>&1; echo $?)"
timeout 10 "$CTL" job logs 999 --follow >/dev/null 2>"$TMP/f3.err"
check_eq "following a job that is not there: status 1" 1 $?

"$CTL" events --json | jq -r ".events[] | select(.actor == \"job:$J\") | \"# event: \(.what): \(.reason)\"" |
	tail -n 20
done_testing
