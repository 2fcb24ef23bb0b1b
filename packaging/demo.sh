#!/usr/bin/env bash
# make demo: tbcontrollerd with a fresh inventory, and one tbagentd per
# simulated Mac Studio of the scenario (default: four M3 Ultras, two 512 GB
# and two 256 GB, in a full Thunderbolt 5 mesh), each enrolled with its own
# one-time, pre-approved bootstrap token (tbctl token create --accept), so
# that they are ready without tbctl node accept; the dashboard and the model
# catalog are the ones compiled into tbcontrollerd.  Prints the addresses, a
# viewer token file for the dashboard and the tbctl commands to try; Ctrl-C
# stops everything it started.
#
# Jobs (tbctl run): each simulated Mac also has its own OpenSSH server
# (/usr/sbin/sshd run by the user who runs the demo, no other account, no
# sudo, on a free high port, with its own host key and the controller's key
# authorised; root may log in to it, with that key only, when root runs the
# demo), registered with tbctl node ssh and its host key pinned with tbctl
# node trust.  The commands the controller runs there find the fake MLX runtime
# (tests/fakemac/mlx/python3) as python3, first on their PATH; their HOME
# and their jobs directory (TBMESH_JOBS: the ranks' pid files and logs,
# which the Mac's agent reads, --jobs-dir) are the Mac's own.  On Linux Mac I
# is at 127.0.0.(10+I); its agent reports no LAN address (a copy of the
# scenario without them), so that a jaccl plan's coordinator is rank 0's
# SSH address, which rank 0 can bind and the others reach; on macOS,
# which has only 127.0.0.1, all of them are there, each on its own SSH
# port, and one job runs at a time (rank 0's ports would collide).  Without
# sshd or ssh-keygen, or when a server does not start, the demo runs
# without jobs and says why.  The ranks the controller starts outlive it
# (nohup): the demo ends them when it stops.
#
# DEMO_SECONDS=N stops by itself.
# DEMO_SSHD=PATH: the sshd to run (default /usr/sbin/sshd).
# DEMO_PIDFILE=FILE: the pids of the daemons it starts (the controller, the
# agents, the SSH servers) are written there, one a line, as they start.
# Exit status: 0 after a normal stop; 1 when something did not start, or
# when a daemon did not end with status 0 (within 10 s of SIGTERM), or a
# rank would not end.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
B=${B:-build}
SCENARIO=${DEMO_SCENARIO:-tests/scenarios/mesh4-studio.json}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tbmesh-demo.XXXXXX")
SSHD=${DEMO_SSHD:-/usr/sbin/sshd}
PIDS=()
SLEEPER=
JOBS_OFF=           # why jobs are off; empty when they are on
FIRST_ADDR=         # the first Mac's SSH address (rank 0's endpoint)

# end_daemons PID...: SIGTERM, then each collected; 1 if one misbehaved.
end_daemons() {
	local rc=0 p st
	for p in "$@"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	for p in "$@"; do
		[ -n "$p" ] || continue
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$p" 2>/dev/null; then
			echo "demo: process $p did not stop within 10 s; killed" >&2
			kill -KILL "$p" 2>/dev/null
			rc=1
		fi
		wait "$p"; st=$?
		[ "$st" -eq 0 ] || { echo "demo: process $p exited with status $st" >&2; rc=1; }
	done
	return $rc
}

# rank_pids: the fake runtime's ranks on this demo's Macs, whoever started
# them: "/usr/bin/python3 $WORK/NODE/bin/python3 -m mlx_lm ..." (the link's
# path, through its #! line).
rank_pids() {
	ps -ax -o pid= -o command= 2>/dev/null |
		awk -v w="$WORK/" 'index($3, w) == 1 && $4 == "-m" && $5 ~ /^mlx_lm/ { print $1 }'
}

# end_ranks: every rank gone (SIGTERM, SIGKILL after 3 s); 1 if one stays.
end_ranks() {
	local p left
	for p in $(rank_pids); do kill -TERM "$p" 2>/dev/null; done
	for _ in $(seq 30); do [ -z "$(rank_pids)" ] && return 0; sleep 0.1; done
	for p in $(rank_pids); do kill -KILL "$p" 2>/dev/null; done
	for _ in $(seq 20); do [ -z "$(rank_pids)" ] && return 0; sleep 0.1; done
	left=$(rank_pids | tr '\n' ' ')
	echo "demo: ranks still running: $left" >&2
	return 1
}

# stop STATUS: stop the daemons; exits with STATUS, or 1 if one misbehaved.
# The controller first (it would start a rank it sees gone again), then the
# agents and SSH servers, then the ranks the controller left running.
stop() {
	local rc=$1
	trap - INT TERM EXIT
	echo
	echo "Stopping the demo..."
	[ -z "$SLEEPER" ] || kill "$SLEEPER" 2>/dev/null
	end_daemons "${PIDS[0]:-}" || rc=1
	end_daemons ${PIDS[@]+"${PIDS[@]:1}"} || rc=1
	end_ranks || rc=1
	sleep 0.5      # an SSH session cut short may still have been starting one
	end_ranks || rc=1
	rm -rf "$WORK"
	exit "$rc"
}
trap 'stop 0' INT TERM
trap 'stop $?' EXIT

# started PID: remember a daemon this script started.
started() {
	PIDS+=("$1")
	[ -z "${DEMO_PIDFILE:-}" ] || echo "$1" >>"$DEMO_PIDFILE"
}

port_of() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }
# wait_listen LOG PID: until the daemon says it listens; exit 1 if it does not.
wait_listen() {
	for _ in $(seq 100); do
		grep -q 'listening on' "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "did not start:"; cat "$1"; exit 1
}

# mac_addr I: Mac I's address (1, 2, ...).
mac_addr() {
	case "$(uname -s)" in
	Linux) echo "127.0.0.$((10 + $1))" ;;
	*) echo 127.0.0.1 ;;
	esac
}

# demo_scenario: the scenario without its LAN addresses (documentation
# addresses, not on this host): a jaccl plan's coordinator is then rank 0's
# SSH address (placement_hostfile.c, coordinator()), which rank 0 can bind
# and the others reach, as on the tests' simulated Macs (tests/lib/mlxjob.sh).
demo_scenario() {
	jq '.description |= sub(" *LAN: .*$"; "") +
		" No LAN addresses: a job'"'"'s coordinator is rank 0'"'"'s SSH address." |
		.nodes |= map(del(.lan))' "$SCENARIO" >"$WORK/scenario.json"
}

# ssh_prepare: the controller's key; sets JOBS_OFF when SSH cannot be had.
ssh_prepare() {
	[ -x "$SSHD" ] || { JOBS_OFF="no $SSHD (packaging/deps.sh installs openssh-server)"; return; }
	command -v ssh-keygen >/dev/null ||
		{ JOBS_OFF="no ssh-keygen (packaging/deps.sh installs openssh-client)"; return; }
	mkdir -p "$WORK/ssh" &&
		ssh-keygen -q -t ed25519 -N '' -C tbmesh-demo -f "$WORK/ssh/controller_key" ||
		{ JOBS_OFF="ssh-keygen could not make the controller's key"; return; }
	# OpenSSH's privilege separation directory, which sshd wants when root
	# starts it (Debian's is /run/sshd; macOS's /var/empty is there)
	[ "$(id -u)" != 0 ] || [ "$(uname -s)" != Linux ] || mkdir -p /run/sshd
}

# mac_sshd NAME I: Mac I's SSH server on a free port; 0 once it answers.
mac_sshd() {
	local name=$1 d=$WORK/$1 addr port pid user root_login=no
	addr=$(mac_addr "$2") user=$(id -un)
	[ "$(id -u)" != 0 ] || root_login=prohibit-password
	mkdir -p "$d/bin" "$d/home" "$d/mlx" "$d/ssh" || return 1
	ln -sf "$TOP/tests/fakemac/mlx/python3" "$d/bin/python3" || return 1
	ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$d/ssh/host_key" || return 1
	cp "$WORK/ssh/controller_key.pub" "$d/ssh/authorized_keys" || return 1
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/$addr/$port") 2>/dev/null && continue
		# HOME is the Mac's own: the account's shell start-up files are
		# not read; the ranks' files stay on their Mac (TBMESH_JOBS)
		cat >"$d/ssh/sshd_config" <<CONF
ListenAddress $addr:$port
HostKey $d/ssh/host_key
PidFile none
AuthorizedKeysFile $d/ssh/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin $root_login
AllowUsers $user
PermitUserEnvironment no
SetEnv PATH=$d/bin:/usr/bin:/bin:/usr/sbin:/sbin FAKEMAC_DIR=$d HOME=$d/home TBMESH_JOBS=$d/jobs
LogLevel ERROR
CONF
		"$SSHD" -D -e -f "$d/ssh/sshd_config" >"$d/sshd.log" 2>&1 &
		pid=$!
		for _ in $(seq 50); do
			if (exec 3<>"/dev/tcp/$addr/$port") 2>/dev/null; then
				started "$pid"
				echo "$addr $port" >"$d/ssh/address"
				return 0
			fi
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	JOBS_OFF="$name's sshd did not start: $(tail -n 1 "$d/sshd.log")"
	return 1
}

# mac_ssh_check NAME: the controller's key logs in to NAME, whose python3
# is the fake runtime (with ssh, when there is one); sets JOBS_OFF if not.
mac_ssh_check() {
	local d=$WORK/$1 addr port got
	command -v ssh >/dev/null || return 0
	read -r addr port <"$d/ssh/address"
	printf '[%s]:%s %s\n' "$addr" "$port" "$(cut -d ' ' -f 1,2 "$d/ssh/host_key.pub")" \
		>"$WORK/ssh/known_hosts"
	got=$(ssh -n -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=yes \
		-o UserKnownHostsFile="$WORK/ssh/known_hosts" -o LogLevel=ERROR \
		-i "$WORK/ssh/controller_key" -p "$port" "$(id -un)@$addr" 'command -v python3' 2>&1)
	[ "$got" = "$d/bin/python3" ] && return 0
	JOBS_OFF="the controller's key does not log in to $1 ($addr:$port): $(echo "$got" | tail -n 1)"
	return 1
}

# mac_register NAME: the controller reaches NAME over SSH, its host key pinned.
mac_register() {
	local d=$WORK/$1 addr port fp
	read -r addr port <"$d/ssh/address"
	fp=$(ssh-keygen -l -E sha256 -f "$d/ssh/host_key.pub" | awk '{ print $2 }')
	"$B/tbctl" node ssh "$1" --host "$addr" --port "$port" --user "$(id -un)" >/dev/null &&
		"$B/tbctl" node trust "$1" --fingerprint "$fp" >/dev/null
}

# macs_ssh: every Mac's SSH server, checked and registered, or JOBS_OFF set.
macs_ssh() {
	local i=1 n
	[ -z "$JOBS_OFF" ] || return 0
	for n in $nodes; do
		mac_sshd "$n" "$i" && mac_ssh_check "$n" || return 0
		i=$((i + 1))
	done
	for n in $nodes; do
		mac_register "$n" || { JOBS_OFF="tbctl node ssh $n failed"; return 0; }
	done
	FIRST_ADDR=$(mac_addr 1)
}

[ -z "${DEMO_PIDFILE:-}" ] || : >"$DEMO_PIDFILE" || exit 1
ssh_prepare
ctl_ssh=()
[ -n "$JOBS_OFF" ] || ctl_ssh=(--ssh-key "$WORK/ssh/controller_key" --ssh-timeout 5
	--ssh-command-timeout 30)
# jobs checked every 2 s, probes of 2 s, a job hung after 6 s of silence
"$B/tbcontrollerd" --db "$WORK/inventory.db" --listen 127.0.0.1:0 \
	--admin-token-file "$WORK/admin-token" --unreachable-after 10 \
	--state-dir "$WORK/controller" ${ctl_ssh[@]+"${ctl_ssh[@]}"} \
	--job-check-interval 2 --job-probe-timeout 2 --job-hang-after 6 --job-start-timeout 60 \
	>"$WORK/controller.log" 2>&1 &
started $!
wait_listen "$WORK/controller.log" $!
URL=http://127.0.0.1:$(port_of "$WORK/controller.log")
export TBCTL_URL=$URL TBCTL_TOKEN_FILE=$WORK/admin-token

nodes=$(jq -r '.nodes[].name' "$SCENARIO") && cluster=$(jq -r '.cluster' "$SCENARIO") &&
	[ -n "$nodes" ] || { echo "demo: no nodes in the scenario $SCENARIO" >&2; exit 1; }
demo_scenario || { echo "demo: cannot read the scenario $SCENARIO" >&2; exit 1; }
"$B/tbctl" cluster create "$cluster" >/dev/null || exit 1
for n in $nodes; do
	mkdir -p "$WORK/$n"
	# pre-approved: the demo's own agents need no tbctl node accept
	"$B/tbctl" token create --ttl 10m --cluster "$cluster" --label "demo $n" --accept \
		>"$WORK/$n/bootstrap-token" || exit 1
	"$B/tbagentd" --backend sim --scenario "$WORK/scenario.json" --node "$n" --interval 2 \
		--listen 127.0.0.1:0 --controller "$URL" --state-dir "$WORK/$n" --jobs-dir "$WORK/$n/jobs" \
		--bootstrap-token-file "$WORK/$n/bootstrap-token" >"$WORK/$n/agent.log" 2>&1 &
	started $!
	wait_listen "$WORK/$n/agent.log" $!
done
count=$(echo "$nodes" | wc -w)
for _ in $(seq 100); do
	ready=$("$B/tbctl" nodes --json 2>/dev/null | jq '[.nodes[] | select(.state == "ready")] | length')
	[ "${ready:-0}" -ge "$count" ] && break
	sleep 0.2
done
macs_ssh

echo "tbmesh demo: $(jq -r .description "$WORK/scenario.json")"
echo
echo "Controller:  $URL   (inventory and logs in $WORK)"
if "$B/tbctl" token create --role viewer --label "demo dashboard" >"$WORK/viewer-token"; then
	echo "Dashboard:   $URL/   (log in with the viewer token in $WORK/viewer-token)"
fi
if [ -z "$JOBS_OFF" ]; then
	echo "Jobs:        on: each Mac's SSH server runs the fake MLX runtime as python3"
	[ "$(mac_addr 2)" != "$FIRST_ADDR" ] ||
		echo "             (every Mac is at $FIRST_ADDR here: one job at a time)"
else
	echo "Jobs:        off: $JOBS_OFF"
fi
echo
"$B/tbctl" nodes
echo
echo "Try (in another terminal):"
echo "  export TBCTL_URL=$URL TBCTL_TOKEN_FILE=$WORK/admin-token"
echo "  $B/tbctl nodes"
echo "  $B/tbctl clusters"
echo "  $B/tbctl node show mac1"
echo "  $B/tbctl node history mac1 --since 5m"
echo "  $B/tbctl node cordon mac3 --reason 'replacing a cable'"
echo "  $B/tbctl events"
echo "  $B/tbctl token create --ttl 1h     (an agent enrolled with it waits as"
echo "                                  pending until: tbctl node accept NODE)"
echo "  $B/tbctl models"
echo "  $B/tbctl place deepseek-v3.1:4bit --hostfile /tmp/hosts.json"
echo "  $B/tbctl place glm-4.5:4bit --strategy pipeline --apply"
echo "  curl -s $URL/metrics"
if [ -z "$JOBS_OFF" ]; then
	echo "Run a model (the first placement applied is 1, its first job 1):"
	echo "  $B/tbctl place deepseek-v3.1:4bit --apply"
	echo "  $B/tbctl run 1"
	echo "  $B/tbctl jobs"
	echo "  $B/tbctl job show 1"
	q='{"prompt": "Hi", "max_tokens": 1}'
	echo "  curl -s http://$FIRST_ADDR:8080/v1/completions -H 'Content-Type: application/json'" \
		"-d '$q' | jq -c .choices"
	echo "  $B/tbctl job logs 1 --rank 1"
	echo "  touch $WORK/mac2/mlx/hang   (rank 1 spins at 100% CPU: within about 15 s"
	echo "                          the job is hung and restarted; rm the file and it runs again)"
	echo "  $B/tbctl job stop 1"
fi
echo
# sleep in the background, so that a signal is handled at once
if [ -n "${DEMO_SECONDS:-}" ]; then
	echo "(stopping in $DEMO_SECONDS s)"
	sleep "$DEMO_SECONDS" &
	SLEEPER=$!
	wait "$SLEEPER"
else
	echo "Press Ctrl-C to stop."
	while :; do
		sleep 3600 &
		SLEEPER=$!
		wait "$SLEEPER"
	done
fi
