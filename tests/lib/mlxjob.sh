# Jobs (tbctl run) on simulated Macs that run the fake MLX runtime
# (tests/fakemac/mlx/python3).  Source after common.sh, macnode.sh and
# rollout.sh:
#   . "$TOP/tests/lib/mlxjob.sh"
#
#   mlx_setup CLUSTER NODE...   as rollout_setup (a controller with an SSH key,
#                               the catalog and the short job timings of
#                               MLX_JOB_OPTS, more in MLX_CTRL_OPTS; the nodes
#                               enrolled, registered, trusted), the nodes
#                               cabled in a full mesh and their links passing,
#                               each node's `python3` the fake runtime.  Every simulated Mac reports the
#                               same LAN addresses (192.0.2.11 on en0,
#                               192.0.2.111 on Wi-Fi; not on this host): they
#                               are taken out of each node's ifconfig, so a
#                               jaccl plan's coordinator is rank 0's SSH
#                               address, its own loopback address
#                               (placement_hostfile.c, coordinator()), which
#                               rank 0 can bind and the others reach
#   mlx_place NODES [ARGS...]   apply a tensor placement of MLX_MODEL on NODES
#                               (a,b) with the server entry point; prints its id
#   mlx_fault NODE [RANK] WHAT [CONTENT]
#                               a control file of the fake runtime on NODE
#                               (crash, hang, silent, ignore-term, slow-start;
#                               with RANK, for that rank only)
#   mlx_clear NODE...           every control file gone
#   mlx_pids NODE               the pids of the fake runtime's ranks on NODE
#   mlx_count NODE...           how many ranks run on those nodes
#   mlx_kill_all                SIGKILL every rank on this test's nodes (a
#                               cleanup hook: a rank is started with nohup by
#                               the controller and outlives it on purpose)
#   mlx_install_watch NODE...   each node's `softwareupdate` (first on its
#                               PATH, sudo's too) counts, at every --install,
#                               before it installs, the ranks alive on every
#                               simulated Mac of the test: a line
#                               "TIME ranks=N" in $TMP/mac-NODE/install-ranks
#   pid_gone PID                no such process, or a dead one not yet reaped
#                               (a zombie: a rank's parent is pid 1, which
#                               here may reap late)
#   job_json ID                 `tbctl job show ID --json` in $TMP/job.json
#   job_field ID JQ             one value of it
#   job_wait ID STATE SECS      wait until job ID is in STATE (its JSON is
#                               shown when it is not)
#   mlx_ctrl_args PORT          the controller's options (for a restart) in
#                               MLX_CTRL_ARGS
#   mlx_node_down NODE          the Mac is lost: its agent held stopped (the
#                               supervisor's "restarting" file) and its sshd
#                               stopped; its ranks are left running (a
#                               partition: the controller cannot reach them)
#   mlx_node_up NODE            its sshd and its agent back (same host key
#                               and port): it reports, and becomes ready
MLX_MODEL=${MLX_MODEL:-llama-3.3-70b:4bit}
MLX_JOB_OPTS="--job-check-interval 1 --job-probe-timeout 2 --job-hang-after 4 --job-start-timeout 20"
MLX_NODES=()

mlx_setup() {
	local cluster=$1 i=1 n addr; shift
	MLX_NODES=("$@")
	CLEANUP_HOOKS+=(mlx_kill_all)
	macnode_init || return 1
	# shellcheck disable=SC2086 # the options are words
	start_controller ctl --ssh-key "$MACNODE_KEY" --state-dir "$TMP/ctl-state" \
		--boot-timeout 60 --ssh-timeout 5 --ssh-command-timeout 20 --install-timeout 60 \
		--catalog "$TOP/data/catalog.json" $MLX_JOB_OPTS ${MLX_CTRL_OPTS:-} || return 1
	"$CTL" cluster create "$cluster" >/dev/null || return 1
	# the Macs cabled before their agents start: the first report has the
	# links (the agent reads the topology once a minute)
	for n in "$@"; do
		macnode_start "$n" "$i" --no-agent || return 1
		i=$((i + 1))
	done
	rollout_cable "$@" || return 1
	for n in "$@"; do
		sed -i -E '/^[[:space:]]inet 192\.0\.2\.(11|111) /d' "$(macnode_dir "$n")/ifconfig.out"
		macnode_mlx "$n" || return 1
		macnode_supervise "$n" || return 1
	done
	for n in "$@"; do
		wait_for "$n to enrol" 20 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"$n\" and .state == \"ready\")'" ||
			{ cat "$TMP/mac-$n/agent.log"; return 1; }
		"$CTL" cluster add "$cluster" "$n" >/dev/null || return 1
		macnode_register "$n" || return 1
	done
	rollout_wiring_pass "$cluster" 30 || { "$CTL" wiring check "$cluster"; return 1; }
	# a plan's coordinator is rank 0's SSH address
	addr=$(macnode_addr "$1")
	# the coordinator's port is fixed (32323, launch.py:507-513): another
	# test on this host may hold it for a while
	wait_for "$addr:32323 to be free" 60 bash -c "! (exec 3<>/dev/tcp/$addr/32323) 2>/dev/null" ||
		return 1
	wait_for "a plan on $1 to use $addr as coordinator" 20 sh -c \
		"$CTL place $MLX_MODEL --strategy tensor --nodes $1,${2:-$1} --entry server --json | jq -e '.hostfile.hosts[0].ips[0] == \"$addr\"'" ||
		{ "$CTL" place "$MLX_MODEL" --strategy tensor --nodes "$1,${2:-$1}" --entry server; return 1; }
}

mlx_place() {
	local nodes=$1; shift
	"$CTL" place "$MLX_MODEL" --strategy tensor --nodes "$nodes" --entry server --apply --json "$@" |
		jq -r .id
}

mlx_fault() {
	local dir f; dir=$(macnode_dir "$1")/mlx
	if [ $# -ge 3 ] && [[ $2 =~ ^[0-9]+$ ]]; then
		f=rank$2.$3; shift 3
	else
		f=$2; shift 2
	fi
	printf '%s' "${1:-}" >"$dir/$f"
}

mlx_clear() {
	local n
	for n in "$@"; do rm -f "$(macnode_dir "$n")"/mlx/*; done
}

# A rank of the fake runtime: /usr/bin/python3 NODE-BIN/python3 -m mlx_lm...
# (the symlink macnode_mlx made, run through its #! line), with the node's
# FAKEMAC_DIR in its environment.  Not the shell that started it.
mlx_pids() {
	local dir e p args; dir=$(macnode_dir "$1")
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}; p=${p%/environ}
		{ tr '\0' '\n' <"$e" | grep -qxF "FAKEMAC_DIR=$dir"; } 2>/dev/null || continue
		mapfile -d '' -t args <"/proc/$p/cmdline" 2>/dev/null || continue
		if [ "${#args[@]}" -ge 4 ] && [ "${args[1]}" = "$TMP/mac-$1/bin/python3" ] &&
			[ "${args[2]}" = -m ] && [[ ${args[3]} == mlx_lm* ]]; then
			echo "$p"
		fi
	done
}

mlx_count() {
	local n c=0
	for n in "$@"; do c=$((c + $(mlx_pids "$n" | wc -l))); done
	echo "$c"
}

mlx_kill_all() {
	local n p
	for n in ${MLX_NODES[@]+"${MLX_NODES[@]}"}; do
		for p in $(mlx_pids "$n"); do kill -KILL "$p" 2>/dev/null; done
	done
	return 0
}

mlx_install_watch() {
	local n w
	for n in "$@"; do
		w=$TMP/mac-$n/bin/softwareupdate
		cat >"$w" <<WATCH
#!/bin/bash
# $n's softwareupdate, watched (tests/lib/mlxjob.sh, mlx_install_watch)
case " \$* " in
*" --install "*)
	c=0
	for f in /proc/[0-9]*/cmdline; do
		mapfile -d '' -t a <"\$f" 2>/dev/null || continue
		[ "\${#a[@]}" -ge 4 ] && [[ \${a[1]} == '$TMP'/mac-*/bin/python3 ]] &&
			[ "\${a[2]}" = -m ] && [[ \${a[3]} == mlx_lm* ]] && c=\$((c + 1))
	done
	echo "\$(date +%s.%N) ranks=\$c" >>'$TMP/mac-$n/install-ranks' ;;
esac
exec '$TOP/tests/fakemac/node/softwareupdate' "\$@"
WATCH
		chmod 755 "$w" || return 1
	done
}

pid_gone() {
	[ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

job_json() { "$CTL" job show "$1" --json >"$TMP/job.json" 2>"$TMP/job.err"; }
job_field() { job_json "$1"; jq -r "$2" "$TMP/job.json" 2>/dev/null; }

job_wait() {
	wait_for "job $1 $2" "$3" sh -c "\"$CTL\" job show $1 --json | jq -e '.state == \"$2\"'" && return 0
	job_json "$1"
	sed 's/^/# /' "$TMP/job.json" "$TMP/job.err" | head -c 3000
	return 1
}

mlx_ctrl_args() {
	# shellcheck disable=SC2206 # the options are words
	MLX_CTRL_ARGS=(--db "$CTRL_DB" --listen "127.0.0.1:$1" --admin-token-file "$ADMIN_TOKEN_FILE"
		--ssh-key "$MACNODE_KEY" --state-dir "$TMP/ctl-state" --boot-timeout 60 --ssh-timeout 5
		--ssh-command-timeout 20 --install-timeout 60 --catalog "$TOP/data/catalog.json"
		$MLX_JOB_OPTS ${MLX_CTRL_OPTS:-})
}

mlx_node_down() {
	local d; d=$(macnode_dir "$1")
	touch "$d/rebooting"
	[ -f "$d/agent.pid" ] && kill "$(cat "$d/agent.pid")" 2>/dev/null
	bg_stop "${MACNODE_SSHD[$1]}"
}

mlx_node_up() {
	macnode_sshd "$1" || return 1
	rm -f "$(macnode_dir "$1")/rebooting"
}
