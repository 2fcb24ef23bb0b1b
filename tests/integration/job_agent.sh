#!/usr/bin/env bash
# The agents watch the jobs' processes (issue 20): on two simulated Macs
# running the fake MLX runtime, each agent (--jobs-dir, the nodes' job
# directory, TBMESH_JOBS of their SSH sessions) lists the ranks' pid files
# and reports their processes in its report's jobs section; the job runner
# takes them from there (seen_by "agent") and runs no ps over SSH while the
# agents report.  With a2's agent stopped, the runner reads a2's rank over
# SSH again (seen_by "ssh") and still finds it killed.
#
# Who ran a fake command is told by its log: the node's commands over SSH
# go to macnode_log, its agent's to macnode_agent_log.
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lib/macnode.sh"
. "$TOP/tests/lib/rollout.sh"
. "$TOP/tests/lib/mlxjob.sh"
mlx_setup agentjobs a1 a2 || { not_ok "setup"; done_testing; }
A1=$(macnode_addr a1)
PORT=$(macnode_free_port "$A1")
P=$(mlx_place a1,a2)
check "a tensor placement on a1, a2 ($P)" test "$P" -gt 0
PS_LINE='ps -o pid=,stat=,time=,rss= -p'
ssh_ps() { grep -c "^$PS_LINE" "$(macnode_log "$1")"; }
agent_ps() { grep -c "^$PS_LINE" "$(macnode_agent_log "$1")"; }

check_eq "no job: the agents run no ps" "0 0" "$(agent_ps a1) $(agent_ps a2)"

J=$("$CTL" run "$P" --port "$PORT" --json | jq -r .id)
job_wait "$J" running 20
check "job $J running" test $? -eq 0
job_json "$J"
pid0=$(jq -r '.ranks[0].pid' "$TMP/job.json") pid1=$(jq -r '.ranks[1].pid' "$TMP/job.json")
check "the pid files are in the nodes' job directories" \
	test "$(cat "$(macnode_jobs a1)/job$J/rank0.pid")" = "$pid0" -a \
	"$(cat "$(macnode_jobs a2)/job$J/rank1.pid")" = "$pid1"

# each node's report lists its rank
for n in a1 a2; do
	r=0 pid=$pid0
	[ $n = a2 ] && r=1 pid=$pid1
	wait_for "$n's report to list rank $r ($pid)" 15 sh -c "\"$CTL\" node show $n --json |
		jq -e '.report.jobs.processes[] |
			select(.job == $J and .rank == $r and .pid == $pid and .alive)'" ||
		"$CTL" node show "$n" --json | jq .report.jobs
	"$CTL" node show "$n" --json >"$TMP/$n.json"
	check_jq "$n: rank $r's generation, state, CPU seconds and RSS" "$TMP/$n.json" \
		".report.jobs.processes[] | select(.job == $J and .rank == $r) |
		 .generation == 1 and
		 (.stat | test(\"^[RS]\")) and .cpu_seconds >= 0 and .rss_bytes > 1048576"
	check_jq "$n: the section read with the report (its collected_at null: the report's)" \
		"$TMP/$n.json" '.report.jobs.collected_at == null'
	check "$n's agent ran ps for its rank" grep -q "^$PS_LINE $pid\$" "$(macnode_agent_log $n)"
done
# the simulated Mac's ps prints what Apple's does: CPU time as M:SS.hh
# (adv_cmds ps/print.c, cputime(): "%3ld:%02ld.%02ld"), not Linux's
# [[DD-]hh:]mm:ss, so the agents and the runner read hundredths here as on a Mac
FAKEMAC_DIR=$(macnode_dir a1) "$TOP/tests/fakemac/node/ps" -o pid=,stat=,time=,rss= -p "$pid0" \
	>"$TMP/ps.out" 2>&1
check "a1's ps prints rank 0 as a Mac: $(cat "$TMP/ps.out")" \
	grep -qE "^ *$pid0 [RSUTZI][<Ns+]* +[0-9]+:[0-5][0-9][.][0-9]{2} +[0-9]+\$" "$TMP/ps.out"
check_eq "GET /v1/nodes/a1" 200 "$(api GET /v1/nodes/a1)"
check_jq "/v1/nodes/a1 has it too" "$TMP/api.out" \
	".report.jobs.processes | any(.job == $J and .pid == $pid0)"

# the runner reads the ranks from the agents
wait_for "both ranks read by the agents" 15 sh -c "\"$CTL\" job show $J --json |
	jq -e 'all(.ranks[]; .seen_by == \"agent\")'"
job_json "$J"
check_jq "job show: both ranks seen by agent, alive, with CPU and RSS" "$TMP/job.json" \
	'all(.ranks[]; .seen_by == "agent" and .alive == true and .cpu_seconds >= 0 and
	 .rss_bytes > 1048576 and .seen_at > 0)'
"$CTL" job show "$J" >"$TMP/show.txt"
check "tbctl job show: a READ BY column" grep -qE '^RANK .* READ BY$' "$TMP/show.txt"
check "rank 1 read by agent" grep -qE "^1 +a2 +$pid1 .* agent\$" "$TMP/show.txt"
# no ps over SSH while the agents report
s1=$(ssh_ps a1) s2=$(ssh_ps a2) g1=$(agent_ps a1)
sleep 5
check_eq "no ps over SSH on a1 or a2 in 5 s of checks" "$s1 $s2" "$(ssh_ps a1) $(ssh_ps a2)"
check "while a1's agent ran ps ($g1 then $(agent_ps a1))" test "$(agent_ps a1)" -gt "$g1"
check_eq "the job still running" running "$(job_field "$J" .state)"
curl -sf "$CTRL_URL/metrics" >"$TMP/m.prom"
agent_reads=$(sed -n 's/^tbmesh_controller_job_rank_reads_total{by="agent"} //p' "$TMP/m.prom")
check "ranks read by the agents are counted ($agent_reads)" test "${agent_reads:-0}" -ge 4

# a2's agent stopped: a2's rank read over SSH, a1's still by its agent
macnode_agent_stop a2
wait_for "rank 1 read over SSH" 30 sh -c "\"$CTL\" job show $J --json |
	jq -e '.ranks[1].seen_by == \"ssh\" and .ranks[1].alive == true'"
check "rank 1 read over SSH once a2's agent stopped" test $? -eq 0
check "ps ran over SSH on a2" test "$(ssh_ps a2)" -gt "$s2"
job_json "$J"
check_jq "rank 0 still read by a1's agent" "$TMP/job.json" '.ranks[0].seen_by == "agent"'
"$CTL" job show "$J" >"$TMP/show.txt"
check "tbctl job show: rank 1 read by ssh" grep -qE "^1 +a2 +$pid1 .* ssh\$" "$TMP/show.txt"
ssh_reads=$(curl -sf "$CTRL_URL/metrics" |
	sed -n 's/^tbmesh_controller_job_rank_reads_total{by="ssh"} //p')
check "ranks read over SSH are counted ($ssh_reads)" test "${ssh_reads:-0}" -ge 1

# rank 1 killed: found gone over SSH, the job restarted by its policy
kill -KILL "$pid1"
wait_for "rank 1 ($pid1) gone" 5 pid_gone "$pid1"
wait_for "job $J restarted" 30 sh -c "\"$CTL\" job show $J --json | jq -e '.restarts >= 1'"
check "the killed rank was found, the job restarted" test $? -eq 0
"$CTL" events --json >"$TMP/events.json"
check_jq "hung: rank 1 on a2 exited while rank 0 lives" "$TMP/events.json" \
	"any(.events[]; .what == \"job $J hung\" and (.reason | test(\"rank 1 on a2 exited\")))"
job_wait "$J" running 30
check "running again" test $? -eq 0

"$CTL" job stop "$J" >/dev/null
check_eq "stopped, no rank left" "stopped 0" "$(job_field "$J" .state) $(mlx_count a1 a2)"
done_testing
