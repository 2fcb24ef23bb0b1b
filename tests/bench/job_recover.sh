#!/usr/bin/env bash
# How long a model is out of service when a rank hangs or crashes: a job of
# two ranks (jaccl, tensor) on two simulated Macs running the fake MLX
# runtime (tests/lib/mlxjob.sh), the controller checking every CHECK s,
# probing rank 0 with a one-token completion that may take PROBE s, and
# calling the job hung once the probe has failed for HANG s while a rank
# burns a core (twice HANG whatever the CPU).  Each round, rank 1 is made to
# hang at 100% CPU (MLX issue 4278: out of the collectives, spinning; its
# peer spins too and /health stays green) or to crash (a C++ abort), and
# the time from the fault to the job running again (restarted, rank 0
# answering) is measured, polling the job every 0.05 s.
# The peer: the probe's own budget, what the rules allow at the least
#   hang:  CHECK + HANG + PROBE + START
#   crash: CHECK + PROBE + START
# where START is this run's time from tbctl run to running (SSH, the fake's
# start, the first probe).  Each recovery is printed with its ratio to that
# budget; the median too.  A check whose probe fails takes CHECK + PROBE
# and one ps over SSH: a cycle, CYCLE = CHECK + PROBE + 1.
# Goals (each median): hang <= HANG' + 2 CYCLE + START, where HANG' is
# HANG, or twice HANG when a round saw no rank burn a core (a host too busy
# to give the spinning ranks a core each; the hung event says which): one
# cycle for the first failing probe, one for the stop and the first probe
# of the new ranks; crash <= 2 CYCLE + START; and one restart per fault,
# no more.  Exit 1 if missed.
# Needs root and /usr/sbin/sshd (the simulated Macs of tests/lib/macnode.sh).
. "$(dirname "$0")/../lib/common.sh"
[ "$(uname -s)" = Linux ] || skip_all "simulated Macs need Linux (loopback addresses, /proc)"
[ "$(id -u)" = 0 ] || skip_all "simulated Macs need root (a login user, sudoers drop-ins)"
[ -x /usr/sbin/sshd ] || skip_all "no /usr/sbin/sshd (apt-get install openssh-server)"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
ROUNDS=${BENCH_ROUNDS:-5}
CHECK=1 PROBE=2 HANG=4
CYCLE=$((CHECK + PROBE + 1))
MLX_JOB_OPTS="--job-check-interval $CHECK --job-probe-timeout $PROBE --job-hang-after $HANG"
MLX_JOB_OPTS="$MLX_JOB_OPTS --job-start-timeout 30"
mlx_setup recover r1 r2 >"$TMP/setup.log" 2>&1 || { cat "$TMP/setup.log"; exit 1; }
PORT=$(macnode_free_port "$(macnode_addr r1)")
P=$(mlx_place r1,r2)
[ "${P:-0}" -gt 0 ] || { echo "no placement on r1, r2"; exit 1; }

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
median() {
	sort -n | awk '{ v[NR] = $1 }
		END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# until_job JQ SECS: poll job $J until JQ holds on its JSON ($TMP/poll.json);
# FAULT_FILE, when set, is removed once the job has left running or been
# restarted (a hung rank is then being stopped; the new one must not hang).
until_job() {
	local deadline=$((SECONDS + $2))
	while [ $SECONDS -lt $deadline ]; do
		if "$CTL" job show "$J" --json >"$TMP/poll.json" 2>/dev/null; then
			if [ -n "${FAULT_FILE:-}" ] &&
				jq_true "$TMP/poll.json" ".state != \"running\" or .restarts > $restarts"; then
				rm -f "$FAULT_FILE"; FAULT_FILE=
			fi
			jq_true "$TMP/poll.json" "$1" && return 0
		fi
		sleep 0.05
	done
	echo "timed out after $2 s waiting for job $J: $1"
	jq -c '{state, reason, generation, restarts}' "$TMP/poll.json"
	"$CTL" events --json | jq -r ".events[] | select(.what | startswith(\"job $J \")) |
		\"  \\(.time | floor) \\(.what): \\(.reason)\"" | head -n 30
	return 1
}

restarts=0
t0=$(now)
J=$("$CTL" run "$P" --port "$PORT" --max-restarts 100 --json | jq -r .id)
[ "${J:-0}" -gt 0 ] 2>/dev/null || { echo "tbctl run $P failed"; exit 1; }
until_job '.state == "running"' 30 || exit 1
START=$(secs "$t0" "$(now)")

# restarted SECS: until the job runs again after one more restart;
# a restart more than the fault called for is counted in $TMP/extra.
restarted() {
	local want=$((restarts + 1)) got
	until_job "(.state == \"running\") and .restarts >= $want" "$1" || return 1
	got=$(jq -r .restarts "$TMP/poll.json")
	[ "$got" -eq "$want" ] || echo "$((got - want))" >>"$TMP/extra"
	restarts=$got
}

hang_round() {
	local t0 t1 old why
	old=$(jq -r '.ranks[1].pid' "$TMP/poll.json")
	t0=$(now)
	mlx_fault r2 1 hang
	FAULT_FILE=$(macnode_dir r2)/mlx/rank1.hang
	restarted 60 || return 1
	t1=$(now)
	pid_gone "$old" || { echo "the hung rank 1 ($old) is still there"; return 1; }
	# the newest hung event says why: a rank burned a core, or none was busy
	why=$("$CTL" events --json |
		jq -r "[.events[] | select(.what == \"job $J hung\")][0].reason // \"\"")
	case $why in
	*burned*) echo "$(secs "$t0" "$t1") burned" ;;
	*) echo "$(secs "$t0" "$t1") idle" ;;
	esac
}
crash_round() {
	local t0 t1 old
	old=$(jq -r '.ranks[1].pid' "$TMP/poll.json")
	t0=$(now)
	mlx_fault r2 1 crash
	wait_for "rank 1 ($old) to abort" 5 pid_gone "$old" || return 1
	mlx_clear r2
	restarted 60 || return 1
	t1=$(now)
	secs "$t0" "$t1"; echo
}

: >"$TMP/hang"
: >"$TMP/crash"
: >"$TMP/extra"
for _ in $(seq "$ROUNDS"); do
	hang_round >>"$TMP/hang" || { cat "$TMP/hang"; exit 1; }
	crash_round >>"$TMP/crash" || { cat "$TMP/crash"; exit 1; }
done
"$CTL" job stop "$J" >/dev/null

B_HANG=$(awk -v c=$CHECK -v h=$HANG -v p=$PROBE -v s="$START" \
	'BEGIN { printf "%.2f", c + h + p + s }')
B_CRASH=$(awk -v c=$CHECK -v p=$PROBE -v s="$START" 'BEGIN { printf "%.2f", c + p + s }')
idle=$(grep -c idle "$TMP/hang")
H=$HANG rule=hang-after
[ "$idle" -eq 0 ] || H=$((2 * HANG)) rule="twice hang-after (a round saw no rank busy)"
G_HANG=$(awk -v h=$H -v y=$CYCLE -v s="$START" 'BEGIN { printf "%.2f", h + 2 * y + s }')
G_CRASH=$(awk -v y=$CYCLE -v s="$START" 'BEGIN { printf "%.2f", 2 * y + s }')
M_HANG=$(cut -d ' ' -f 1 "$TMP/hang" | median)
M_CRASH=$(median <"$TMP/crash")

echo "job_recover: a 2-rank jaccl job on simulated Macs, $ROUNDS rounds each"
echo "  check every $CHECK s, probe timeout $PROBE s, hung after $HANG s;" \
	"start (run to running) $START s"
echo "  rank 1 hangs at 100% CPU -> running again" \
	"(budget $B_HANG s = check + hang-after + probe + start):"
n=0
while read -r t how; do
	n=$((n + 1))
	printf '    round %d  %6.2f s  ratio %s  (%s)\n' "$n" "$t" "$(ratio "$t" "$B_HANG")" \
		"$([ "$how" = burned ] && echo "a rank burned a core" ||
			echo "no rank seen busy: twice hang-after")"
done <"$TMP/hang"
echo "  rank 1 crashes -> running again (budget $B_CRASH s = check + probe + start):"
n=0
while read -r t; do
	n=$((n + 1))
	printf '    round %d  %6.2f s  ratio %s\n' "$n" "$t" "$(ratio "$t" "$B_CRASH")"
done <"$TMP/crash"
echo "  hang:  median $M_HANG s, ratio to budget $(ratio "$M_HANG" "$B_HANG")," \
	"$(ratio "$M_HANG" "$CHECK") check intervals"
echo "         (goal <= $G_HANG s: $rule + 2 cycles of $CYCLE s + start)"
echo "  crash: median $M_CRASH s, ratio to budget $(ratio "$M_CRASH" "$B_CRASH")," \
	"$(ratio "$M_CRASH" "$CHECK") check intervals"
echo "         (goal <= $G_CRASH s: 2 cycles of $CYCLE s + start)"
EXTRA=$(awk '{ n += $1 } END { print n + 0 }' "$TMP/extra")
echo "  restarts beyond one per fault: $EXTRA  (goal 0)"
rc=0
[ "$EXTRA" -eq 0 ] || rc=1
le "$M_HANG" "$G_HANG" || rc=1
le "$M_CRASH" "$G_CRASH" || rc=1
exit $rc
