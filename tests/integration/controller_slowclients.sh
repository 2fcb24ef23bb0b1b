#!/usr/bin/env bash
# No client without a token can take the API down (issue 16).  From one
# address, 127.0.0.2 (tests/integration/slowclients.py): 1,100 idle
# connections, five that trickle a header line every second, one that sends
# a request line and stops, one that trickles its second request after a
# first one answered, and two kept alive, silent between requests.  Meanwhile:
#  - from 127.0.0.1, /healthz, tbctl and reports on new connections are
#    answered within a second, and an agent's pushes go on;
#  - 127.0.0.2 holds its share (--max-connections-per-client, 64) and no
#    more: the others are closed at once, and so is a new /healthz from it,
#    which is answered once the deadline has closed the slow ones;
#  - the request deadline (3 s here) closes every slow connection 3 to 4.5 s
#    after it started (the one kept alive: after its first trickled byte),
#    and not the kept-alive ones silent between requests, which are still
#    answered after twice the deadline;
#  - a report that waits for its commit longer than the deadline (the
#    inventory locked by another process) is still answered;
#  - the agent's /metrics (per client 8) survives the same.
# Before the limits, the 1,100 idle connections filled the 1,024 the API
# took and every probe timed out; the agent's 64 likewise.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
SLOW=$TOP/tests/integration/slowclients.py
CTL=$BIN/tbctl
DL=3
command -v python3 >/dev/null || skip_all "python3 is needed for the slow clients"
python3 -c 'import socket; socket.socket().bind(("127.0.0.2", 0))' 2>/dev/null ||
	skip_all "127.0.0.2 is not an address of this host (macOS: ifconfig lo0 alias 127.0.0.2)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}'; }
# within SECONDS START: START was at most SECONDS ago
within() { awk -v a="$2" -v b="$(now)" -v s="$1" 'BEGIN {exit !(b - a <= s)}'; }
# all_between LO HI JSON-ARRAY: every number of the array is in [LO, HI] (and there is one)
all_between() { jq -e --argjson lo "$1" --argjson hi "$2" \
	'length > 0 and all(.[]; . >= $lo and . <= $hi)' <<<"$3" >/dev/null; }
metric() { awk -v m="$1" '$1 == m {print $2}' "$2"; }

start_controller slow --request-deadline $DL
PORT=${CTRL_URL##*:}
if [ -d "/proc/$CTRL_PID/fd" ]; then
	check "the API polls with epoll" sh -c "ls -l /proc/$CTRL_PID/fd | grep -q eventpoll"
fi
start_sim_agent mac1 "$SC" --interval 1
AGENT1_PORT=$AGENT_PORT
wait_for "mac1's first report" 20 sh -c "'$CTL' nodes | grep -q '^mac1 .*ready'"
# mac2's reports are posted by hand, each on a new connection
"$CTL" token create --ttl 10m --accept >"$TMP/boot2"
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac2 >"$TMP/r2.json"
post() {
	curl -H 'Content-Type: application/json' -s -o "$TMP/post.out" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $1" \
		--data-binary @"$3" "$CTRL_URL$2"
}
check_eq "mac2 enrols" 201 "$(post "$(cat "$TMP/boot2")" /v1/enroll "$TMP/r2.json")"
TOK2=$(jq -r .token "$TMP/post.out")
curl -s --max-time 5 "http://127.0.0.1:$AGENT1_PORT/metrics" >"$TMP/a0"

# ---- the attack
t0=$(now)
python3 "$SLOW" 127.0.0.1 "$PORT" --source 127.0.0.2 --idle 1100 --trickle 5 --stall 1 \
	--kept 1 --kept-idle 2 --every 1 --wait 1 --seconds $((DL * 3)) \
	--ready "$TMP/ready" >"$TMP/slow.json" 2>"$TMP/slow.err" &
SLOWPID=$!
wait_for "the slow clients to connect" 20 test -s "$TMP/ready" || cat "$TMP/slow.err"
held_at=$(now)

t=$(now)
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$CTRL_URL/healthz")
took=$(since "$t")
check_eq "GET /healthz from 127.0.0.1 while 127.0.0.2 holds its share: 200" 200 "$code"
check "within a second ($took s)" within 1 "$t"
t=$(now)
"$CTL" nodes >"$TMP/nodes"; rc=$?
took=$(since "$t")
check_eq "tbctl nodes answers" 0 "$rc"
check "within a second ($took s)" within 1 "$t"
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac2 >"$TMP/r2.json"
t=$(now)
code=$(post "$TOK2" /v1/report "$TMP/r2.json")
took=$(since "$t")
check_eq "a report on a new connection: 204" 204 "$code"
check "within a second ($took s)" within 1 "$t"
t=$(now)
curl -s -o /dev/null --max-time 5 --interface 127.0.0.2 "$CTRL_URL/healthz"; rc=$?
took=$(since "$t")
check "a new connection from 127.0.0.2 itself is closed at once (curl exit $rc)" \
	test "$rc" = 52 -o "$rc" = 56
check "without waiting ($took s)" within 1 "$t"
check "127.0.0.2 still held its share then (the deadline had not passed)" within $((DL - 1)) "$held_at"

# ---- once the deadline has closed the slow ones, 127.0.0.2 is answered too
t=$(now)
wait_for "GET /healthz from 127.0.0.2" $((DL + 5)) \
	curl -sf -o /dev/null --max-time 2 --interface 127.0.0.2 "$CTRL_URL/healthz"
check "GET /healthz from 127.0.0.2 is answered $(since "$held_at") s after the attack began" \
	within $((DL + 3)) "$held_at"

wait "$SLOWPID"
S=$(cat "$TMP/slow.json")
echo "# slow clients: $S"
check_eq "127.0.0.2 opened 1,109 connections" 1109 \
	"$(jq '[.[] | .opened] | add' <<<"$S")"
check_eq "and held 64 of them (--max-connections-per-client)" 64 \
	"$(jq '[.[] | .held] | add' <<<"$S")"
check_eq "the other idle ones were closed at once" $((1100 - (64 - 9))) "$(jq .idle.refused <<<"$S")"
check "the idle ones held were closed $DL to $DL+1.5 s after they connected" \
	all_between $DL $((DL + 1)).5 "$(jq -c .idle.closed <<<"$S")"
check "so were those trickling a header line a second" \
	all_between $DL $((DL + 1)).5 "$(jq -c .trickle.closed <<<"$S")"
check "and the one that sent a request line and stopped" \
	all_between $DL $((DL + 1)).5 "$(jq -c .stall.closed <<<"$S")"
check_eq "the kept-alive one got its first answer" '[200]' "$(jq -c .kept.answered <<<"$S")"
check "and was closed $DL to $DL+1.5 s after the first byte of its trickled second" \
	all_between $DL $((DL + 1)).5 "$(jq -c .kept.closed <<<"$S")"
check_eq "the two kept alive and silent between requests were not closed" '[]' \
	"$(jq -c .kept_idle.closed <<<"$S")"
check_eq "and their next request, $((DL * 3)) s later, is answered" '[200,200]' \
	"$(jq -c .kept_idle.second <<<"$S")"
check "the log says what the deadline closed, and from where" grep -q \
	"api: closed [0-9]* connections whose request had not arrived within the $DL s deadline (the last from 127.0.0.2)" \
	"$CTRL_LOG"
refusals=$(grep -c 'libmicrohttpd: Server reached connection limit' "$CTRL_LOG")
check "libmicrohttpd's refusals are not logged one by one ($refusals lines)" \
	test "$refusals" -ge 1 -a "$refusals" -le 5
check "the others are counted within 10 s" wait_for "the count of the messages not logged" 12 \
	grep -q 'libmicrohttpd: [0-9]* more messages not logged' "$CTRL_LOG"

curl -s --max-time 5 "http://127.0.0.1:$AGENT1_PORT/metrics" >"$TMP/a1"
check_eq "the agent's pushes did not fail meanwhile" "$(metric tbmesh_agent_push_failures_total "$TMP/a0")" \
	"$(metric tbmesh_agent_push_failures_total "$TMP/a1")"
pushed=$(($(metric tbmesh_agent_reports_pushed_total "$TMP/a1") - \
	$(metric tbmesh_agent_reports_pushed_total "$TMP/a0")))
check "and went on ($pushed reports pushed)" test "$pushed" -ge $((DL * 2))

# ---- a report waiting for its commit is not cut by the deadline
"$BIN/tbagentd" --once --backend sim --scenario "$SC" --node mac2 >"$TMP/r2.json"
python3 - "$CTRL_DB" "$DL" "$TMP/locked" <<'EOF' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
db.execute("BEGIN IMMEDIATE")
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]) + 1.2)
db.execute("COMMIT")
EOF
LOCKPID=$!
wait_for "the inventory to be locked" 10 test -e "$TMP/locked"
t=$(now)
check_eq "a report whose commit waits $((DL + 1)) s: 204" 204 "$(post "$TOK2" /v1/report "$TMP/r2.json")"
took=$(since "$t")
check "after longer than the deadline ($took s)" awk -v t="$took" -v d=$DL 'BEGIN {exit !(t > d)}'
wait "$LOCKPID"

# ---- the agent's /metrics
start_agent metrics --backend sim --scenario "$SC" --node mac3 --request-deadline $DL
t0=$(now)
python3 "$SLOW" 127.0.0.1 "$AGENT_PORT" --source 127.0.0.2 --path /metrics --idle 100 \
	--trickle 2 --stall 1 --kept 1 --kept-idle 1 --every 1 --wait 1 --seconds $((DL * 3)) \
	--ready "$TMP/ready-agent" >"$TMP/slow-agent.json" 2>"$TMP/slow-agent.err" &
SLOWPID=$!
wait_for "the slow clients to connect to the agent" 20 test -s "$TMP/ready-agent" ||
	cat "$TMP/slow-agent.err"
t=$(now)
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$AGENT_PORT/metrics")
took=$(since "$t")
check_eq "the agent's GET /metrics from 127.0.0.1 meanwhile: 200" 200 "$code"
check "within a second ($took s)" within 1 "$t"
wait "$SLOWPID"
S=$(cat "$TMP/slow-agent.json")
echo "# slow clients of the agent: $S"
check_eq "127.0.0.2 held 8 of the agent's connections (its per-client default)" 8 \
	"$(jq '[.[] | .held] | add' <<<"$S")"
check "the slow ones were closed $DL to $DL+1.5 s after they started" \
	all_between $DL $((DL + 1)).5 "$(jq -c '[.idle, .trickle, .stall, .kept | .closed[]]' <<<"$S")"
check_eq "the one kept alive and silent was answered again" '[200]' \
	"$(jq -c .kept_idle.second <<<"$S")"
done_testing
