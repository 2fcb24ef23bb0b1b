# Simulated Macs reachable over real SSH, for the rollout and provisioning
# tests.  Source it after common.sh and start_controller:
#   . "$(dirname "$0")/../lib/macnode.sh"
#
# Privileges as on a real Mac (DESIGN.md, "Provisioning"): root cannot log
# in (PermitRootLogin no); the controller logs in as the admin account
# $MACNODE_USER (tbmeshmac, made with useradd if missing: no password, a
# home); `sudo` on the node's PATH is tests/fakemac/node/sudo, which honours
# only `sudo -n` and hands the command to the real /usr/bin/sudo -n through
# the node's asroot wrapper, allowed by a sudoers drop-in
# (/etc/sudoers.d/tbmesh-test-*-NAME, removed when the test ends); every
# fake command that changes the Mac refuses a caller that is not root with
# macOS's own message; the node's system folders ($TMP/root-ADDRESS, the
# controller's --provision-root) belong to root.  MACNODE_ROOT_LOGIN=1
# before macnode_init keeps the old way instead: root logs in, no sudo.
#
#   macnode_init            checks sshd (and sudo), makes the login user and
#                           the controller's SSH key ($MACNODE_KEY,
#                           $MACNODE_KEY.pub); call once.  $MACNODE_LOGIN is
#                           the account the controller uses
#   macnode_start NAME I [--no-agent]
#                           node I (1, 2, ...) at 127.0.0.$((I+1)): its own
#                           state directory (tests/fakemac/mkstate.sh studio,
#                           with its own hostname, hardware UUID and serial),
#                           its own OpenSSH sshd on a free port (own host key,
#                           $MACNODE_KEY.pub authorised, commands run with the
#                           fake macOS commands first on PATH), its system
#                           folders, its sudoers drop-in, and, unless
#                           --no-agent, its tbagentd (darwin backend, that
#                           PATH, reports every second) under a supervisor
#                           that holds it stopped while the node "restarts";
#                           the agent enrols as NAME with a pre-approved
#                           bootstrap token (token create --accept): ready
#   macnode_addr NAME / macnode_port NAME / macnode_fp NAME
#                           its address, SSH port, host key fingerprint
#   macnode_dir NAME        its state directory ($FAKEMAC_DIR of its commands)
#   macnode_root NAME       its system folders (/Library, /usr/local, /var)
#   macnode_log NAME        the file every fake command run over SSH appends
#                           "CMD ARGS" to ("sudo -n CMD ARGS" first when it
#                           came through sudo)
#   macnode_agent_log NAME  the same for the commands its agent runs
#   macnode_jobs NAME       its jobs directory: TBMESH_JOBS of its SSH
#                           sessions (the controller's start line writes the
#                           ranks' pid files there) and its agent's --jobs-dir
#   macnode_agent_stop NAME / macnode_agent_start NAME
#                           stop its agent (and its supervisor) / start them again
#   macnode_build NAME      its macOS build now
#   macnode_installs NAME   how many updates were installed
#   macnode_set NAME KEY VALUE
#                           change node.env: NEW_VERSION, NEW_BUILD, SIZE_KIB,
#                           OWNER (the volume owner; the update's user must
#                           be it), PASSWORD, REBOOT_SECS, INSTALL_SECS, FAULT
#   macnode_fault NAME FAULT
#                           install-fails, never-back, old-build, rdma-off,
#                           disk-full (free disk below the update's size),
#                           hostkey-changed (sshd restarts with a new host key),
#                           no-sudo (its sudoers drop-in removed: the real sudo
#                           then wants a password), sudo (put back),
#                           not-volume-owner (OWNER is another account)
#   macnode_register NAME   tells the controller the node's SSH address, port
#                           and user, and pins its host key (tbctl)
#   macnode_mlx NAME        the fake MLX runtime (tests/fakemac/mlx/python3) is
#                           the node's `python3` ($TMP/mac-NAME/bin, first on its PATH);
#                           its control files go in $(macnode_dir NAME)/mlx
#
# Every sshd and supervisor runs under `timeout` so it stops by itself;
# done_testing stops them with SIGTERM like any daemon.
MACNODE_SECS=${MACNODE_SECS:-900}
MACNODE_USER=${MACNODE_USER:-tbmeshmac}
MACNODE_ROOT_LOGIN=${MACNODE_ROOT_LOGIN:-0}
MACNODE_SUDOERS_DIR=${MACNODE_SUDOERS_DIR:-/etc/sudoers.d}
declare -A MACNODE_ADDR MACNODE_PORT MACNODE_SSHD MACNODE_SUP

macnode_init() {
	[ -x /usr/sbin/sshd ] || skip_all "no /usr/sbin/sshd (apt-get install openssh-server)"
	command -v ssh-keygen >/dev/null || skip_all "no ssh-keygen"
	if [ "$MACNODE_ROOT_LOGIN" = 1 ]; then
		MACNODE_LOGIN=$(id -un)
	else
		[ "$(id -u)" = 0 ] || skip_all "simulated Macs with privileges need root here" \
			"(a login user, sudoers drop-ins, root-owned system folders)"
		[ -u /usr/bin/sudo ] && command -v visudo >/dev/null ||
			skip_all "no sudo (apt-get install sudo, or packaging/deps.sh)"
		id -u "$MACNODE_USER" >/dev/null 2>&1 ||
			useradd -m -s /bin/sh -p '*' -c "tbmesh test Mac admin" "$MACNODE_USER" || return 1
		MACNODE_LOGIN=$MACNODE_USER
		# the login user walks into $TMP (each node's files), reads nothing else of it
		chmod 711 "$TMP"
		macnode_sweep_sudoers
		CLEANUP_HOOKS+=(macnode_cleanup)
	fi
	MACNODE_KEY=$TMP/ctrl_ed25519
	ssh-keygen -q -t ed25519 -N '' -C tbmesh-test -f "$MACNODE_KEY" || return 1
	mkdir -p /run/sshd 2>/dev/null || true
}

# The sudoers drop-in of node NAME in this test (no "." in it: sudo skips
# such names in /etc/sudoers.d).
macnode_sudoers() { echo "$MACNODE_SUDOERS_DIR/tbmesh-test-${TMP##*.}-$1"; }

# Drop-ins of tests that ended without cleaning up (their $TMP is gone).
macnode_sweep_sudoers() {
	local f d
	for f in "$MACNODE_SUDOERS_DIR"/tbmesh-test-*; do
		[ -f "$f" ] || continue
		d=$(sed -n 's/.*NOPASSWD: \(.*\)\/mac-[^/]*\/asroot$/\1/p' "$f")
		[ -n "$d" ] && [ ! -d "$d" ] && rm -f "$f"
	done
	return 0
}

macnode_cleanup() {
	rm -f "$MACNODE_SUDOERS_DIR"/tbmesh-test-"${TMP##*.}"-*
}

# macnode_grant NAME: the login user may run NAME's commands as root
# without a password (what `tbctl node add --print-sudoers` asks of a
# Mac): a drop-in allowing NAME's asroot wrapper, checked with visudo.
macnode_grant() {
	local d=$TMP/mac-$1 f; f=$(macnode_sudoers "$1")
	[ "$MACNODE_ROOT_LOGIN" = 1 ] && return 0
	printf '%s ALL=(root) NOPASSWD: %s/asroot\n' "$MACNODE_USER" "$d" >"$d/sudoers"
	visudo -cqf "$d/sudoers" || { echo "macnode: visudo refuses $d/sudoers"; return 1; }
	install -m 0440 -o root -g root "$d/sudoers" "$f"
}

macnode_dir() { echo "$TMP/mac-$1/state"; }
macnode_root() { echo "$TMP/root-${MACNODE_ADDR[$1]}"; }
macnode_log() { echo "$TMP/mac-$1/commands.log"; }
macnode_agent_log() { echo "$TMP/mac-$1/agent-commands.log"; }
macnode_jobs() { echo "$TMP/mac-$1/home/tbmesh-jobs"; }
macnode_addr() { echo "${MACNODE_ADDR[$1]}"; }
macnode_port() { echo "${MACNODE_PORT[$1]}"; }
macnode_fp() { ssh-keygen -l -E sha256 -f "$TMP/mac-$1/host_key.pub" | awk '{print $2}'; }
macnode_build() { sed -n 's/^BuildVersion:[[:space:]]*//p' "$(macnode_dir "$1")/sw_vers.out"; }
macnode_installs() { local f; f=$(macnode_dir "$1")/installs; [ -f "$f" ] && wc -l <"$f" || echo 0; }

macnode_set() {
	local env; env=$(macnode_dir "$1")/node.env
	sed -i "/^$2=/d" "$env"
	printf "%s='%s'\n" "$2" "$3" >>"$env"
}

# macnode_state NAME I: the node's fake macOS state.
macnode_state() {
	local name=$1 i=$2 dir; dir=$(macnode_dir "$1")
	"$TOP/tests/fakemac/mkstate.sh" "$dir" studio >/dev/null || return 1
	echo "$name" >"$dir/hostname.out"
	sed -i -e "s/4C1D6A0E-0000-5000-8000-1A2B3C4D5E6F/4C1D6A0E-0000-5000-8000-0000000000$(printf %02d "$i")/" \
	    -e "s/H7XQ0000PF/H7XQ00$(printf %02d "$i")PF/" "$dir/system_profiler_SPHardwareDataType.out"
	printf 'Filesystem 1024-blocks Used Available Capacity iused ifree %%iused Mounted on\n' >"$dir/df.out"
	printf '/dev/disk3s1s1 971350180 11069412 800000000 2%% 453019 4294967295 0%% /\n' >>"$dir/df.out"
	cat >"$dir/node.env" <<ENV
NEW_VERSION='26.3'
NEW_BUILD='25D125'
SIZE_KIB='3829595'
OWNER='admin'
PASSWORD='correct horse battery staple'
REBOOT_SECS='2'
FAULT=''
ENV
}

# macnode_fs NAME: NAME's privileges.  The state directory is the
# simulator's own (the login user's, since its fakes keep their state
# there); the system folders, the asroot wrapper, sshd's files are root's.
macnode_fs() {
	local name=$1 d=$TMP/mac-$1 path root; root=$(macnode_root "$1")
	path="$d/bin:$TOP/tests/fakemac/node:$TOP/tests/fakemac/bin:/usr/bin:/bin"
	mkdir -p "$d/home" "$root"/Library/LaunchDaemons "$root"/usr/local/sbin \
		"$root"/usr/local/etc "$root"/var/lib "$root"/var/log || return 1
	: >>"$d/commands.log"
	# sudo resets the environment: the wrapper gives the command the node's
	cat >"$d/asroot" <<WRAP
#!/bin/sh
# $name's commands as root (tests/fakemac/node/sudo runs them through sudo -n)
export PATH='$path' FAKEMAC_DIR='$d/state' FAKEMAC_LOG='$d/commands.log' HOME=/var/root \\
	TBMESH_JOBS='$d/home/tbmesh-jobs'
exec "\$@"
WRAP
	chmod 755 "$d" "$d/asroot" "$root"
	[ "$MACNODE_ROOT_LOGIN" = 1 ] && return 0
	chown -R root:root "$root"
	chmod -R go-w "$root"
	chown -R "$MACNODE_USER" "$d/state" "$d/home" "$d/commands.log"
}

# macnode_sshd NAME: (re)start the node's sshd on its port.
macnode_sshd() {
	local name=$1 d=$TMP/mac-$1
	local path="$d/bin:$TOP/tests/fakemac/node:$TOP/tests/fakemac/bin:/usr/bin:/bin"
	local root_login=no env
	[ "$MACNODE_ROOT_LOGIN" = 1 ] && root_login=prohibit-password
	env="PATH=$path FAKEMAC_DIR=$d/state FAKEMAC_LOG=$d/commands.log HOME=$d/home"
	# HOME is the node's own: the account's shell start-up files (~/.bashrc)
	# are not read by the commands the controller runs.
	cat >"$d/sshd_config" <<CONF
ListenAddress ${MACNODE_ADDR[$name]}:${MACNODE_PORT[$name]}
HostKey $d/host_key
PidFile none
AuthorizedKeysFile $d/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin $root_login
AllowUsers $MACNODE_LOGIN
PermitUserEnvironment no
SetEnv $env TBMESH_JOBS=$d/home/tbmesh-jobs
LogLevel ERROR
CONF
	bg_start "$d/sshd.log" timeout "$MACNODE_SECS" /usr/sbin/sshd -D -e -f "$d/sshd_config"
	MACNODE_SSHD[$name]=$BG_PID
	wait_for "sshd of $name" 10 bash -c "exec 3<>/dev/tcp/${MACNODE_ADDR[$name]}/${MACNODE_PORT[$name]}" ||
		{ cat "$d/sshd.log"; return 1; }
}

# macnode_supervise NAME: the node's agent, held stopped while it restarts.
# On SIGTERM the agent has 8 s to exit (within common.sh's BG_STOP_SECS),
# then SIGKILL, and the supervisor fails: an agent that outlives its test
# holds its address.  In a sanitizer build that is only said: LeakSanitizer's
# exit check stops the process under ptrace and has been seen to hang there
# (once for 20 minutes).  (Nothing of the sanitizers is named in the script:
# common.sh takes such words in $TMP for a report.)  Its grace loop uses
# builtins only (no $(seq ...)): timeout(1) sends SIGTERM to its whole
# process group too, and a second one kills a command substitution's
# subshell, which left the loop empty.
macnode_supervise() {
	local name=$1 d=$TMP/mac-$1
	local path="$d/bin:$TOP/tests/fakemac/node:$TOP/tests/fakemac/bin:$PATH"
	"$BIN/tbctl" token create --ttl 10m --accept >"$d/bootstrap" || return 1
	mkdir -p "$d/agent-state"
	local san_rc=1 san_note=''
	if grep -q -a __asan_init "$BIN/tbagentd"; then
		san_rc=0 san_note=' (a sanitizer build: not counted)'
	fi
	cat >"$d/supervise.sh" <<SUP
#!/bin/bash
# Runs $name's agent; stops it for good on SIGTERM.
stop=0 pid=
trap 'stop=1; [ -n "\$pid" ] && kill \$pid 2>/dev/null' TERM
export PATH='$path' FAKEMAC_DIR='$d/state' FAKEMAC_LOG='$d/agent-commands.log'
while [ \$stop = 0 ]; do
	if [ -e '$d/state/rebooting' ]; then sleep 0.2; continue; fi
	'$BIN/tbagentd' --backend darwin --name '$name' --interval 1 --listen none \\
		--controller '$CTRL_URL' --bootstrap-token-file '$d/bootstrap' \\
		--state-dir '$d/agent-state' --command-timeout 10 \\
		--jobs-dir '$d/home/tbmesh-jobs' >>'$d/agent.log' 2>&1 &
	pid=\$!
	echo \$pid >'$d/state/agent.pid'
	wait \$pid
	[ \$stop = 1 ] && break
	pid=
	sleep 0.2
done
# SIGTERM: the agent has 8 s to exit, then SIGKILL (see macnode_supervise).
[ -z "\$pid" ] && exit 0
i=0
while [ \$i -lt 80 ]; do
	kill -0 \$pid 2>/dev/null || exit 0
	sleep 0.1
	i=\$((i + 1))
done
kill -KILL \$pid 2>/dev/null
echo "supervise: $name's agent (pid \$pid) did not exit within 8 s of SIGTERM: SIGKILL$san_note"
exit $san_rc
SUP
	chmod +x "$d/supervise.sh"
	bg_start "$d/supervise.log" timeout "$MACNODE_SECS" "$d/supervise.sh"
	MACNODE_SUP[$name]=$BG_PID
}

macnode_agent_stop() {
	[ -n "${MACNODE_SUP[$1]:-}" ] || return 0
	bg_stop "${MACNODE_SUP[$1]}"
	MACNODE_SUP[$1]=
}

macnode_agent_start() {
	[ -z "${MACNODE_SUP[$1]:-}" ] || return 0
	macnode_supervise "$1"
}

macnode_start() {
	local name=$1 i=$2 d=$TMP/mac-$1
	mkdir -p "$d/bin"
	MACNODE_ADDR[$name]=127.0.0.$((i + 1))
	MACNODE_PORT[$name]=$(macnode_free_port "${MACNODE_ADDR[$name]}")
	macnode_state "$name" "$i" || return 1
	macnode_fs "$name" || return 1
	macnode_grant "$name" || return 1
	ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$d/host_key" || return 1
	cp "$MACNODE_KEY.pub" "$d/authorized_keys"
	chmod 644 "$d/authorized_keys"
	macnode_sshd "$name" || return 1
	[ "${3:-}" = --no-agent ] || macnode_supervise "$name"
}

# macnode_free_port ADDR: a TCP port nobody listens on, at ADDR or on any
# other address (a rank's server binds 0.0.0.0, so another node's listener
# on that port would take it), below the kernel's ephemeral range (where
# the agents' own listeners on port 0 land).
macnode_free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 12000))
		(exec 3<>"/dev/tcp/$1/$p") 2>/dev/null && continue
		python3 -c 'import socket, sys
s = socket.socket()
s.bind(("0.0.0.0", int(sys.argv[1])))' "$p" 2>/dev/null && { echo "$p"; return 0; }
	done
	return 1
}

macnode_fault() {
	local name=$1 f=$2 d=$TMP/mac-$1
	case $f in
	disk-full)
		sed -i '2s/ 800000000 / 1000000 /' "$d/state/df.out" ;;
	hostkey-changed)
		bg_stop "${MACNODE_SSHD[$name]}"
		rm -f "$d/host_key" "$d/host_key.pub"
		ssh-keygen -q -t ed25519 -N '' -C "$name-new" -f "$d/host_key" || return 1
		macnode_sshd "$name" ;;
	install-fails|never-back|old-build|rdma-off)
		macnode_set "$name" FAULT "$f" ;;
	no-sudo)
		rm -f "$(macnode_sudoers "$name")" ;;
	sudo)
		macnode_grant "$name" ;;
	not-volume-owner)
		macnode_set "$name" OWNER "$MACNODE_USER-owner" ;;
	*) echo "macnode_fault: unknown fault $f" >&2; return 1 ;;
	esac
}

macnode_register() {
	local name=$1
	"$BIN/tbctl" node ssh "$name" --host "${MACNODE_ADDR[$name]}" --port "${MACNODE_PORT[$name]}" \
		--user "$MACNODE_LOGIN" >/dev/null &&
	"$BIN/tbctl" node trust "$name" --fingerprint "$(macnode_fp "$name")" >/dev/null
}

macnode_mlx() {
	local d=$TMP/mac-$1
	ln -sf "$TOP/tests/fakemac/mlx/python3" "$d/bin/python3" &&
	mkdir -p "$d/state/mlx" && chmod 755 "$d/state/mlx"
}
