#!/usr/bin/env bash
# The fake MLX runtime alone (tests/fakemac/mlx/python3), ranks started by
# hand on 127.0.0.1 with the environment MLX's launcher gives them
# (launch.py:373-400): mlx-lm's command line (server.py:1720-1865, argparse
# refuses an unknown flag with status 2), a 2-rank jaccl group (rank 0
# binds the coordinator, rank 1 connects: rdma.cpp:327-360) answering
# completions in mlx-lm's shapes, a wrong coordinator failing after
# jaccl's 4 attempts (tcp.cpp:163-201) with its message, the device matrix
# checked as jaccl.cpp:17-57 and 141-181 do, a ring of two, and the
# control files: crash, hang, silent, ignore-term.
. "$(dirname "$0")/../lib/common.sh"
FAKE=$TOP/tests/fakemac/mlx/python3
export FAKE_MLX_LIFETIME=120
PIDS=()
fake_cleanup() { local p; for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -KILL "$p" 2>/dev/null; done; return 0; }
CLEANUP_HOOKS+=(fake_cleanup)

free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}
# cpu PID: its CPU seconds (user + system) so far
cpu() { awk -v t="$(getconf CLK_TCK)" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }
# cores PID SECS: the cores PID burnt over SECS seconds
cores() {
	local a b; a=$(cpu "$1"); sleep "$2"; b=$(cpu "$1")
	awk -v a="$a" -v b="$b" -v s="$2" 'BEGIN { printf "%.2f", (b - a) / s }'
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
post() {   # post PATH BODY: the status; body in $TMP/post.out
	curl -s -o "$TMP/post.out" -w '%{http_code}' --max-time "${POST_SECS:-5}" \
		-H 'Content-Type: application/json' --data-binary "$2" "http://127.0.0.1:$HTTP$1"
}
# rank NODE RANK ENV...: start rank RANK of the fake with FAKEMAC_DIR=$TMP/NODE
rank() {
	local node=$1 r=$2; shift 2
	mkdir -p "$TMP/$node/mlx"
	env FAKEMAC_DIR="$TMP/$node" MLX_RANK="$r" "$@" "$FAKE" -m mlx_lm server \
		--model /Users/Shared/tbmesh/models/x --host 127.0.0.1 --port "$HTTP" \
		>"$TMP/$node.r$r.log" 2>&1 &
	RANK_PID=$!
	PIDS+=("$RANK_PID")
}

# --- the command line
"$FAKE" -m mlx_lm server --model m --max-kv-size 10 >"$TMP/out" 2>"$TMP/err"; rc=$?
check_eq "an unknown flag is refused as argparse does" 2 "$rc"
check "with argparse's message" grep -q 'error: unrecognized arguments: --max-kv-size 10' "$TMP/err"
"$FAKE" -m mlx_lm server --port eighty >/dev/null 2>"$TMP/err"; rc=$?
check_eq "a port that is not a number too" 2 "$rc"
check "with argparse's message" grep -q "argument --port: invalid int value: 'eighty'" "$TMP/err"
"$FAKE" -m mlx_lm.server --bogus >"$TMP/out" 2>/dev/null; rc=$?
check "-m mlx_lm.server is taken, with mlx-lm's deprecation line" \
	grep -q 'Calling `python -m mlx_lm.server...` directly is deprecated' "$TMP/out"
check_eq "and the same flags" 2 "$rc"
check_eq "any other command is the real python's" "3 ok" "$("$FAKE" -c 'import sys; print(sys.version_info[0], "ok")')"
"$FAKE" -m mlx_lm chat --model m >/dev/null 2>"$TMP/err"; rc=$?
check "a subcommand other than server is the real python's (no mlx_lm here)" \
	grep -q 'No module named mlx_lm' "$TMP/err"

# --- a wrong coordinator: 4 attempts, 1 s doubling, then jaccl's message (runs meanwhile)
HTTP=$(free_port) COORD=$(free_port)
printf '[[null,"rdma_en2"],["rdma_en2",null]]\n' >"$TMP/dev2.json"
start=$SECONDS
rank nowhere 1 MLX_JACCL_COORDINATOR="127.0.0.1:$COORD" MLX_IBV_DEVICES="$TMP/dev2.json"
WRONG=$RANK_PID

# --- two ranks, jaccl
COORD=$(free_port)
rank m1 0 MLX_JACCL_COORDINATOR="127.0.0.1:$COORD" MLX_IBV_DEVICES="$TMP/dev2.json" TBMESH_JOB=1.1.0
R0=$RANK_PID
rank m2 1 MLX_JACCL_COORDINATOR="127.0.0.1:$COORD" MLX_IBV_DEVICES="$TMP/dev2.json" TBMESH_JOB=1.1.1
R1=$RANK_PID
wait_for "rank 0 to serve" 10 grep -q 'serving http' "$TMP/m1.r0.log" || cat "$TMP"/m*.log
check_eq "a completion is answered" 200 "$(post /v1/completions '{"prompt": "ping", "max_tokens": 1, "temperature": 0}')"
check_jq "in mlx-lm's shape, one token" "$TMP/post.out" \
	'.object == "text_completion" and (.id | startswith("cmpl-")) and .model == "default_model" and (.choices[0].text | type) == "string" and .choices[0].finish_reason == "length" and .usage.completion_tokens == 1'
check_eq "a chat completion too" 200 "$(post /v1/chat/completions '{"messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}')"
check_jq "with a message" "$TMP/post.out" '.object == "chat.completion" and .choices[0].message.content == "ok"'
check_eq "/health" 200 "$(http_get "http://127.0.0.1:$HTTP/health" "$TMP/h")"
check_eq "says ok" '{"status": "ok"}' "$(cat "$TMP/h")"
http_get "http://127.0.0.1:$HTTP/v1/models" "$TMP/models" >/dev/null
check_jq "/v1/models lists the model" "$TMP/models" '.object == "list" and .data[0].id == "/Users/Shared/tbmesh/models/x"'
code=$(exec 3<>"/dev/tcp/127.0.0.1/$HTTP"; printf 'POST /v1/completions HTTP/1.0\r\n\r\n' >&3; head -n 1 <&3)
check "a POST without Content-Length is 411 (server.py:1067-1074)" grep -q ' 411 ' <<<"$code"
check_eq "no prompt: 400" 400 "$(post /v1/completions '{"max_tokens": 1}')"
check "rank 0 logged the variables it saw" grep -q "MLX_IBV_DEVICES=$TMP/dev2.json MLX_JACCL_COORDINATOR=127.0.0.1:$COORD MLX_RANK=0 TBMESH_JOB=1.1.0" "$TMP/m1.r0.log"
check "and the matrix" grep -qF 'MLX_IBV_DEVICES holds [[null,"rdma_en2"],["rdma_en2",null]]' "$TMP/m1.r0.log"
check "rank 1 is rank 1 of a jaccl mesh of 2" grep -q 'group jaccl mesh rank 1 of 2' "$TMP/m2.r1.log"
c=$(cores "$R1" 1)
check "an idle group is idle ($c cores)" ge 0.3 "$c"

# hang on rank 1: out of the collectives, spinning; the survivors spin too
mlx=$TMP/m2/mlx
touch "$mlx/rank1.hang"
sleep 1.5
POST_SECS=2
check_eq "a hung rank: the completion gets no answer" 000 "$(post /v1/completions '{"prompt": "ping"}')"
check_eq "while /health stays 200 (MLX issue 4278)" 200 "$(http_get "http://127.0.0.1:$HTTP/health" "$TMP/h")"
# (a spinning rank takes a core when the host has one free: the bound is
# low, an idle rank uses 0.01)
c0=$(cores "$R0" 2) c1=$(cores "$R1" 2)
check "the hung rank spins ($c1 cores)" ge "$c1" 0.2
check "and so does the survivor ($c0 cores)" ge "$c0" 0.2
rm -f "$mlx/rank1.hang"
sleep 0.5
POST_SECS=5
check_eq "the hang over, completions come back" 200 "$(post /v1/completions '{"prompt": "ping"}')"

# silent on rank 0's node: heartbeat kept, CPU idle, no answer
touch "$TMP/m1/mlx/silent"
sleep 0.3
POST_SECS=2
check_eq "silent: no answer" 000 "$(post /v1/completions '{"prompt": "ping"}')"
c0=$(cores "$R0" 1) c1=$(cores "$R1" 1)
check "with both ranks idle ($c0, $c1; MLX issue 3830)" ge 0.3 "$(awk -v a="$c0" -v b="$c1" 'BEGIN { print (a > b ? a : b) }')"
rm -f "$TMP/m1/mlx/silent"
POST_SECS=5

# ignore-term on rank 1 (MLX issue 3910)
touch "$mlx/ignore-term"
sleep 0.3
kill -TERM "$R1"
sleep 0.5
check "ignore-term: SIGTERM does not end it" kill -0 "$R1"
rm -f "$mlx/ignore-term"
sleep 0.3
check_eq "still answering" 200 "$(post /v1/completions '{"prompt": "ping"}')"

# crash on rank 1: abort; rank 0 spins for ever, /health green
touch "$mlx/rank1.crash"
builtin wait "$R1" 2>/dev/null; rc=$?
check_eq "crash: the rank aborts as a C++ exception does (SIGABRT)" 134 "$rc"
check "with libc++abi's line" grep -q 'libc++abi: terminating due to uncaught exception' "$TMP/m2.r1.log"
sleep 0.5
c0=$(cores "$R0" 2)
check "the survivor spins ($c0 cores)" ge "$c0" 0.2
POST_SECS=2
check_eq "and never answers" 000 "$(post /v1/completions '{"prompt": "ping"}')"
check_eq "while /health stays 200" 200 "$(http_get "http://127.0.0.1:$HTTP/health" "$TMP/h")"
POST_SECS=5
kill -TERM "$R0"; builtin wait "$R0"
check "SIGTERM ends it (no ignore-term)" test $? -eq 143

# the wrong coordinator, started at the beginning
builtin wait "$WRONG"; rc=$?
took=$((SECONDS - start))
check_eq "a wrong coordinator: exit 1" 1 "$rc"
check "after about 15 s of attempts ($took s)" test "$took" -ge 14
check_eq "4 attempts, 1000 ms doubling" "0 1000|1 2000|2 4000|3 8000|" \
	"$(sed -n 's/^\[jaccl\] Connection attempt \([0-9]*\) waiting \([0-9]*\) ms$/\1 \2/p' "$TMP/nowhere.r1.log" | tr '\n' '|')"
check "then jaccl's message" grep -q "RuntimeError: \[jaccl\] Couldn't connect (error: 111)" "$TMP/nowhere.r1.log"

# the device matrix: a row too short throws; a matrix that is neither a mesh nor a ring: alone
printf '[[null,"rdma_en2"],["rdma_en2"]]\n' >"$TMP/short.json"
env MLX_RANK=0 MLX_JACCL_COORDINATOR=127.0.0.1:1 MLX_IBV_DEVICES="$TMP/short.json" \
	"$FAKE" -m mlx_lm server >/dev/null 2>"$TMP/err"; rc=$?
check_eq "a short row: exit 1" 1 "$rc"
check "with jaccl's message" grep -q 'but rank 1 contains only 1 entries' "$TMP/err"
printf '[[null,"rdma_en2"],[null,null]]\n' >"$TMP/diag.json"
HTTP=$(free_port)
rank diag 0 MLX_JACCL_COORDINATOR="127.0.0.1:$(free_port)" MLX_IBV_DEVICES="$TMP/diag.json"
wait_for "the lone rank to serve" 10 grep -q 'serving http' "$TMP/diag.r0.log"
check "rank 1 without a device to rank 0: no group, the rank runs alone (distributed.cpp:150-159)" \
	grep -q 'group single rank 0 of 1' "$TMP/diag.r0.log"
check_eq "and answers by itself" 200 "$(post /v1/completions '{"prompt": "ping"}')"
kill -KILL "$RANK_PID"; builtin wait "$RANK_PID" 2>/dev/null

# a ring of two on loopback ports; a peer gone makes the ring throw
HTTP=$(free_port) P0=$(free_port) P1=$(free_port)
printf '[["127.0.0.1:%s"],["127.0.0.1:%s"]]\n' "$P0" "$P1" >"$TMP/hosts.json"
rank ring1 1 MLX_HOSTFILE="$TMP/hosts.json"
G1=$RANK_PID
rank ring0 0 MLX_HOSTFILE="$TMP/hosts.json"
G0=$RANK_PID
wait_for "the ring's rank 0 to serve" 10 grep -q 'serving http' "$TMP/ring0.r0.log"
check "rank 0 of a ring of 2" grep -q 'group ring rank 0 of 2' "$TMP/ring0.r0.log"
check_eq "the ring answers" 200 "$(post /v1/completions '{"prompt": "ping"}')"
kill -KILL "$G1"; builtin wait "$G1" 2>/dev/null
builtin wait "$G0"; rc=$?
check_eq "its peer killed, the ring's rank 0 exits 1" 1 "$rc"
check "with ring's message" grep -qE 'RuntimeError: \[ring\] (Recv|Send) failed with errno=' "$TMP/ring0.r0.log"
grep -qE 'RuntimeError: \[ring\]' "$TMP/ring0.r0.log" || sed 's/^/# /' "$TMP"/ring*.log

done_testing
