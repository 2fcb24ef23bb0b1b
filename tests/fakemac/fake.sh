#!/bin/sh
# fake.sh: the one dispatcher behind every fake macOS command in bin/.
#
#   bin/NAME is "exec fake.sh NAME ARGS..."; this script answers from files
#   in the directory $FAKEMAC_DIR (the state of one fake Mac).
#
# Key rule: the command name, then each argument that does not start with
# "-", joined by "_"; a "/" in an argument becomes "_".
#   system_profiler SPThunderboltDataType -json  -> system_profiler_SPThunderboltDataType
#   sysctl -n hw.memsize                         -> sysctl_hw.memsize
#   sysctl vm.swapusage                          -> sysctl_vm.swapusage
#   networksetup -listallhardwareports           -> networksetup
#   ifconfig en3                                 -> ifconfig_en3
#   ifconfig -a                                  -> ifconfig
#   rdma_ctl status                              -> rdma_ctl_status
#   ibv_devinfo -v                               -> ibv_devinfo
#   memory_pressure -Q                           -> memory_pressure
#   macmon pipe -s 1                             -> macmon_pipe_1
#   powermetrics --samplers cpu_power,gpu_power -i 1000 -n 1
#                                  -> powermetrics_cpu_power,gpu_power_1000_1
#
# Files, for KEY (checked in this order):
#   KEY.hang   exists: sleep for an hour (the caller's timeout must kill it)
#   KEY.err    printed to stderr
#   KEY.out    printed to stdout; without it (and without KEY.rc) the command
#              is "not available": a message on stderr and exit 127
#   KEY.rc     the exit status (default 0)
#
# sysctl with more than one name answers as macOS's does: a "NAME: VALUE"
# line a name (only VALUE with -n), from sysctl_NAME.out (which holds
# "NAME: VALUE" or only VALUE); a name without its file is a warning on
# stderr ("sysctl: unknown oid 'NAME'") and counts in the exit status,
# the number of warnings (system_cmds sysctl/sysctl.c L288-291, L484-498).
# A name with sysctl_NAME.hang makes the whole call hang.
#
# Streams: `macmon pipe -i N` (no -s) and `powermetrics ... -i N` (no -n)
# run on like the real ones, printing KEY.out every N ms, where KEY leaves
# the N out (macmon_pipe, powermetrics_cpu_power,gpu_power); powermetrics'
# header (what precedes its first "*** Sampled" line) comes once.  They
# stop when their parent is gone or after FAKEMAC_STREAM_MAX (default
# 100000) samples; with KEY.rc they print one sample and exit with it.
#
# If $FAKEMAC_LOG is set, each call is appended to it as one line: NAME ARGS...
# State changes (an OS update, a reboot) are made by rewriting these files;
# while $FAKEMAC_DIR/rebooting exists every command fails (exit 255).
set -u
name=$1
shift
dir=${FAKEMAC_DIR:?fakemac: FAKEMAC_DIR is not set}
if [ -n "${FAKEMAC_LOG:-}" ]; then
	echo "$name $*" >>"$FAKEMAC_LOG"
fi
# A simulated Mac that is restarting (tests/lib/macnode.sh) answers nothing.
if [ -e "$dir/rebooting" ]; then
	echo "fakemac: $name: the Mac is restarting" >&2
	exit 255
fi
# sysctl NAME NAME...: one line a name, as macOS prints them.
if [ "$name" = sysctl ]; then
	nflag=0 count=0
	for a in "$@"; do
		case $a in -n) nflag=1 ;; -*) ;; *) count=$((count + 1)) ;; esac
	done
	if [ $count -gt 1 ]; then
		warn=0
		for n in "$@"; do	# one name that hangs hangs the call
			case $n in -*) ;; *) [ -e "$dir/sysctl_$n.hang" ] && exec sleep 3600 ;; esac
		done
		for n in "$@"; do
			case $n in -*) continue ;; esac
			f=$dir/sysctl_$n.out
			if [ ! -f "$f" ]; then
				echo "sysctl: unknown oid '$n'" >&2
				warn=$((warn + 1))
				continue
			fi
			v=$(cat "$f")
			v=${v#"$n: "}
			if [ $nflag = 1 ]; then echo "$v"; else echo "$n: $v"; fi
		done
		exit $warn
	fi
fi

# A stream: print KEY.out every N ms while the parent lives.
stream() {  # KEY MS
	f=$dir/$1
	if [ -e "$f.hang" ]; then
		exec sleep 3600
	fi
	if [ ! -f "$f.out" ]; then
		echo "fakemac: $name: command not available (no $1.out)" >&2
		exit 127
	fi
	s=$(awk -v ms="$2" 'BEGIN { printf "%.3f", ms / 1000 }')
	parent=$PPID
	i=0
	case $name in
	powermetrics)
		sed -n '1,/^\*\*\* Sampled/{/^\*\*\* Sampled/!p;}' "$f.out"
		body=$(sed -n '/^\*\*\* Sampled/,$p' "$f.out") ;;
	*) body=$(cat "$f.out") ;;
	esac
	while [ $i -lt "${FAKEMAC_STREAM_MAX:-100000}" ]; do
		printf '%s\n' "$body" || exit 0
		if [ -f "$f.rc" ]; then
			exit "$(cat "$f.rc")"
		fi
		sleep "$s"
		kill -0 "$parent" 2>/dev/null || exit 0
		i=$((i + 1))
	done
	exit 0
}
case "$name $*" in
"macmon pipe"*" -s "*|"macmon pipe"*" --samples "*|"powermetrics"*" -n "*) ;;
"macmon pipe "*-i\ *)
	ms=${*##*-i } ms=${ms%% *}
	stream macmon_pipe "$ms" ;;
"powermetrics "*-i\ *)
	ms=${*##*-i } ms=${ms%% *}
	stream powermetrics_cpu_power,gpu_power "$ms" ;;
esac

key=$name
for a in "$@"; do
	case $a in
	-*) ;;
	*/*) key=${key}_$(printf '%s' "$a" | tr '/' '_') ;;
	*) key=${key}_$a ;;
	esac
done
f=$dir/$key
if [ -e "$f.hang" ]; then
	exec sleep 3600
fi
if [ -f "$f.err" ]; then
	cat "$f.err" >&2
fi
if [ -f "$f.out" ]; then
	cat "$f.out"
elif [ ! -f "$f.rc" ]; then
	echo "fakemac: $name $*: command not available (no $key.out)" >&2
	exit 127
fi
if [ -f "$f.rc" ]; then
	exit "$(cat "$f.rc")"
fi
exit 0
