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
