#!/usr/bin/env bash
# tbagentd against prometheus-node-exporter, measured in the same run on the
# same machine.  The agent runs as on a Mac: darwin backend over the real
# captures, the default 5 s interval, enrolled with a tbcontrollerd on
# loopback and pushing its reports to it.  Figures:
#  - the median latency of GET /metrics (one kept-alive connection, same
#    client, $BENCH_REQUESTS requests to each);
#  - memory, from /proc/PID/smaps_rollup, read once the agent has run 3
#    collections and pushed 3 reports and both have served the same scrapes:
#    RSS (Rss), PSS (Pss) and private memory (USS: Private_Clean +
#    Private_Dirty), in KiB, each the max of $BENCH_MEM_SAMPLES reads 1 s
#    apart (each read after one GET /metrics to both).
# Goals: private memory ratio <= 0.10, PSS ratio <= 0.20, latency ratio
# <= 0.20.  The RSS ratio is printed without a goal: it counts every page of
# the shared libraries (GnuTLS, libc) that other processes map too, while
# node_exporter is one Go binary (Debian's links only the C library).  Exit
# 1 if a goal is missed.  Then what the agent's private memory is made of:
# Private_Clean + Private_Dirty of each mapping of /proc/PID/smaps, summed
# per file (a library's text, read-only data and relocated data together),
# per [heap], [stack], and anonymous memory (the threads' stacks and malloc
# arenas), the largest first.
#
# The fields (Linux 4.14 and later), from the kernel's documentation:
#  - Documentation/ABI/testing/procfs-smaps_rollup: "pre-summed memory
#    information for a process ... a single entry (tagged "[rollup]") for
#    which each field is the sum of the corresponding fields from all the
#    maps in /proc/pid/smaps".
#  - Documentation/filesystems/proc.rst, /proc/PID/smaps: Rss is the part
#    of a mapping resident in RAM; "The "proportional set size" (PSS) of a
#    process is the count of pages it has in memory, where each page is
#    divided by the number of processes sharing it"; Shared_* and Private_*
#    split Rss, and a page is "private" if it is mapped exactly once
#    (whatever MAP_SHARED says).  So Private_Clean + Private_Dirty (USS) is
#    what only this process holds: what the system gets back when it exits.
#    (Private_Hugetlb is not in Rss; neither program uses hugetlbfs.)
#
# Private and proportional figures depend on what else maps the same pages,
# so each measured program (tbagentd, node_exporter, bare204) runs from its
# own copy of its executable and of the shared libraries it needs, all but
# the C library's (libc, libm, the dynamic loader), through LD_LIBRARY_PATH:
# neither the controller (which maps GnuTLS and libmicrohttpd too), nor the
# load client, nor another tbagentd or node_exporter that happens to run on
# this machine shares its pages: the agent's libraries count as its own,
# as on a Mac where no other process maps them, while the C library is
# shared with every process, as libSystem is on a Mac.  A library a program maps from
# the system all the same (one it dlopens) is named in a note.
#
# For reference, in the same run: the agent as installed (from the system's
# libraries, beside the measured one: the two share no page but the C
# library's), whose private and proportional figures vary with what else
# maps those libraries here; then, each measured while no other tbagentd
# runs, the agent not enrolled (what this bench measured before), the agent
# pushing every second, and two floors under any program built on the
# project's libraries as Debian ships them: sleep(1), the C library alone,
# and bare204, a program that only runs a libmicrohttpd server.
. "$(dirname "$0")/../lib/common.sh"
NE=$(command -v prometheus-node-exporter || command -v node_exporter) || skip_all "node_exporter not installed"
[ -r /proc/self/smaps_rollup ] || skip_all "no /proc/PID/smaps_rollup (Linux 4.14 or later)"
N=${BENCH_REQUESTS:-500}
SAMPLES=${BENCH_MEM_SAMPLES:-5}
WARM=3	# collections run and reports pushed before memory is read
GET=$BIN/tests/bench/httpget
for p in "$BIN/tbagentd" "$BIN/tbcontrollerd" "$BIN/tbctl" "$GET" "$BIN/tests/bench/bare204"; do
	[ -x "$p" ] || { echo "$p is not built"; exit 1; }
done
med() { sed 's/.*median_us=\([0-9.]*\).*/\1/' <<<"$1"; }
NOTES=()

# The libraries every process shares: the C library's.
SYSTEM_LIBS='/(ld-linux[^/]*|lib(c|m|pthread|dl|rt|resolv|util))\.so[.0-9]*$'
# own_copy DIR PROGRAM: copies PROGRAM into DIR and the shared libraries it
# needs, but the C library's, into DIR/lib (once); prints the copy's path.
own_copy() {
	local exe=$1/${2##*/} so path
	local -a files
	if [ ! -e "$exe" ]; then
		mkdir -p "$1/lib" && cp "$2" "$exe" || return 1
		files=("$exe")
		# ldd: "\tSONAME => PATH (ADDRESS)"; a static program has none
		while read -r so path; do
			grep -Eq "$SYSTEM_LIBS" <<<"/$so" && continue
			cp -L "$path" "$1/lib/$so" || return 1
			files+=("$1/lib/$so")
		done < <(ldd "$2" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
		# written back, so that their pages in memory are clean as an
		# installed file's are (Private_Clean, not Private_Dirty)
		sync "${files[@]}" || return 1
	fi
	echo "$exe"
}
# system_libs NAME PID DIR: a note for each library PID maps from outside
# DIR but the C library's (called once its memory is read: a library it
# dlopens while it runs counts).
system_libs() {
	local l
	for l in $(awk -v d="$3/" '$6 ~ /\.so[.0-9]*$/ && index($6, d) != 1 {print $6}' \
		"/proc/$2/maps" | sort -u | grep -Ev "$SYSTEM_LIBS"); do
		NOTES+=("$1 maps $l from the system (it may share it)")
	done
}
# start_own NAME DIR PROGRAM ARGS...: PROGRAM's own copy in DIR (own_copy),
# on a free loopback port; it logs "listening on HOST:PORT" to $TMP/NAME.log.
# Sets OWN_PID, OWN_PORT.
start_own() {
	local name=$1 dir=$2 exe log=$TMP/$1.log
	exe=$(own_copy "$dir" "$3") || { echo "cannot copy $3 into $dir"; return 1; }
	shift 3
	bg_start "$log" env LD_LIBRARY_PATH="$dir/lib" "$exe" --listen 127.0.0.1:0 "$@"
	OWN_PID=$BG_PID
	wait_for "$name to listen" 10 grep -q 'listening on' "$log" || { cat "$log"; return 1; }
	OWN_PORT=$(listen_port_any "$log")
}

# smaps PID: "RSS PSS USS" in KiB, from one read of /proc/PID/smaps_rollup.
smaps() {
	awk '$1 == "Rss:" {r = $2} $1 == "Pss:" {p = $2}
		$1 == "Private_Clean:" || $1 == "Private_Dirty:" {u += $2}
		END {if (r == "") exit 1; print r, p, u}' "/proc/$1/smaps_rollup" 2>/dev/null
}
# Each figure's max over the reads: MEM[LABEL] is "RSS PSS USS".
declare -A MEM
# measure LABEL URL PID [LABEL URL PID]...: $SAMPLES rounds 1 s apart, each
# one GET of every URL, then one read of every PID's smaps_rollup.
measure() {
	local i j cur
	local -a a=("$@")
	for ((i = 1; i <= SAMPLES; i++)); do
		[ $i -eq 1 ] || sleep 1
		for ((j = 0; j < ${#a[@]}; j += 3)); do
			curl -sf -o /dev/null --max-time 10 "${a[j + 1]}" ||
				{ echo "GET ${a[j + 1]} failed"; return 1; }
		done
		for ((j = 0; j < ${#a[@]}; j += 3)); do
			cur=$(smaps "${a[j + 2]}") || { echo "cannot read /proc/${a[j + 2]}/smaps_rollup"; return 1; }
			MEM[${a[j]}]=$(awk -v a="${MEM[${a[j]}]:-0 0 0}" -v b="$cur" 'BEGIN {
				split(a, x); split(b, y)
				for (i = 1; i <= 3; i++)
					printf("%s%d", (i > 1 ? " " : ""), (y[i] + 0 > x[i] + 0 ? y[i] : x[i]))
				print ""}')
		done
	done
}
field_of() { awk -v i="$2" '{print $i}' <<<"${MEM[$1]}"; }

# by_mapping PID: PID's private memory per mapping name, the largest
# first, "KiB (clean+dirty) NAME" (see the top).
by_mapping() {
	awk '$1 ~ /^[0-9a-f]+-[0-9a-f]+$/ {name = NF >= 6 ? $6 : "[anon]"; sub(/.*\//, "", name)}
		$1 == "Private_Clean:" {c[name] += $2}
		$1 == "Private_Dirty:" {d[name] += $2}
		END {for (n in c) if (c[n] + d[n] > 0)
			printf("%d %d %d %s\n", c[n] + d[n], c[n], d[n], n)}' "/proc/$1/smaps" |
		sort -rn | awk '{printf("%6d KiB (%d+%d) %s\n", $1, $2, $3, $4)}'
}

# agent_metric PORT NAME: a sample of the agent's /metrics.
agent_metric() {
	curl -sf --max-time 10 "http://127.0.0.1:$1/metrics" |
		awk -v m="$2" '$1 == m {print $2; f = 1} END {exit !f}'
}
# at_least PORT NAME N: the agent's NAME is N or more.
at_least() {
	local v
	v=$(agent_metric "$1" "$2") && awk -v v="$v" -v n="$3" 'BEGIN {exit !(v >= n)}'
}
# warm_up WHO PORT [push]: the agent has run $WARM collections (and pushed
# $WARM reports); bounded.
warm_up() {
	wait_for "$1's collection $WARM" 40 at_least "$2" tbmesh_agent_collections_total "$WARM" ||
		{ echo "$1 did not collect"; return 1; }
	[ -z "${3:-}" ] && return 0
	wait_for "$1's report $WARM pushed" 40 at_least "$2" tbmesh_agent_reports_pushed_total "$WARM" ||
		{ echo "$1 did not push"; tail -n 5 "$TMP/$1.log"; return 1; }
}
# still_pushing WHO PORT BEFORE: a report pushed after BEFORE were (bounded).
still_pushing() {
	wait_for "$1 to push again" 15 at_least "$2" tbmesh_agent_reports_pushed_total \
		"$(awk -v b="$3" 'BEGIN {print b + 1}')" ||
		{ echo "$1 stopped pushing"; tail -n 5 "$TMP/$1.log"; return 1; }
}

# The fake Mac, node_exporter and the controller.
mkdir -p "$TMP/mac"
bash "$TOP/tests/fakemac/mkstate.sh" "$TMP/mac" studio
export FAKEMAC_DIR=$TMP/mac
NE_EXE=$(own_copy "$TMP/ne" "$NE") || { echo "cannot copy $NE"; exit 1; }
bg_start "$TMP/ne.log" env LD_LIBRARY_PATH="$TMP/ne/lib" "$NE_EXE" --web.listen-address=127.0.0.1:0
NE_PID=$BG_PID
wait_for "node_exporter to listen" 10 grep -q 'Listening on' "$TMP/ne.log" || { cat "$TMP/ne.log"; exit 1; }
NP=$(sed -n 's/.*address=127.0.0.1:\([0-9]*\).*/\1/p' "$TMP/ne.log" | head -n 1)
NU=http://127.0.0.1:$NP/metrics
wait_for "node_exporter metrics" 10 curl -sf "$NU" || exit 1
start_controller ctl || exit 1

# The agent, enrolled and pushing at the default interval.
"$BIN/tbctl" token create --ttl 10m --accept >"$TMP/boot-bench" || { echo "token create failed"; exit 1; }
mkdir -p "$TMP/state-bench"
PATH=$(fakemac_path) start_own bench "$TMP/agent" "$BIN/tbagentd" --backend darwin --interval 5 \
	--name bench --controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot-bench" \
	--state-dir "$TMP/state-bench" || exit 1
A_PID=$OWN_PID
AU=http://127.0.0.1:$OWN_PORT/metrics
# /metrics is empty until the first collection; /v1/report is 503 until then
wait_for "agent report" 10 curl -sf "http://127.0.0.1:$OWN_PORT/v1/report" || exit 1
A_PORT=$OWN_PORT
a_lat=$("$GET" "$AU" "$N" 20) || { echo "agent benchmark failed"; exit 1; }
n_lat=$("$GET" "$NU" "$N" 20) || { echo "node_exporter benchmark failed"; exit 1; }

# For reference, beside it: the same agent as installed, from the system's
# libraries (shared with tbcontrollerd and whatever else runs here); the two
# share no page but the C library's.  Its fake Mac is the same but for its
# hardware UUID and serial: the controller takes one Mac for one node.
mkdir -p "$TMP/mac-inst" "$TMP/state-inst"
cp "$TMP/mac/"* "$TMP/mac-inst/" &&
	sed -i -e 's/"platform_UUID" : "[^"]*"/"platform_UUID" : "4C1D6A0E-0000-5000-8000-00000000B1B1"/' \
		-e 's/"serial_number" : "[^"]*"/"serial_number" : "H7XQ0000B1"/' \
		"$TMP/mac-inst/system_profiler_SPHardwareDataType.out" || exit 1
"$BIN/tbctl" token create --ttl 10m --accept >"$TMP/boot-inst" || { echo "token create failed"; exit 1; }
PATH=$(fakemac_path) FAKEMAC_DIR=$TMP/mac-inst start_agent inst --backend darwin --interval 5 --name inst \
	--controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot-inst" --state-dir "$TMP/state-inst" || exit 1
I_PID=$AGENT_PID I_PORT=$AGENT_PORT
IU=http://127.0.0.1:$I_PORT/metrics
wait_for "agent report" 10 curl -sf "http://127.0.0.1:$I_PORT/v1/report" || exit 1
"$GET" "$IU" "$N" 20 >/dev/null || { echo "agent (as installed) failed"; exit 1; }

warm_up bench "$A_PORT" push || exit 1
warm_up inst "$I_PORT" push || exit 1
before=$(agent_metric "$A_PORT" tbmesh_agent_reports_pushed_total)
measure tbagentd "$AU" "$A_PID" node_exporter "$NU" "$NE_PID" inst "$IU" "$I_PID" || exit 1
A_MAPS=$(by_mapping "$A_PID")
system_libs tbagentd "$A_PID" "$TMP/agent"
system_libs node_exporter "$NE_PID" "$TMP/ne"
still_pushing bench "$A_PORT" "$before" || exit 1
bg_stop "$A_PID" "$I_PID"

# For reference: the agent not enrolled (as this bench measured it before).
PATH=$(fakemac_path) start_own quiet "$TMP/agent" "$BIN/tbagentd" --backend darwin --interval 5 || exit 1
wait_for "agent report" 10 curl -sf "http://127.0.0.1:$OWN_PORT/v1/report" || exit 1
"$GET" "http://127.0.0.1:$OWN_PORT/metrics" "$N" 20 >/dev/null || { echo "agent failed"; exit 1; }
warm_up quiet "$OWN_PORT" || exit 1
measure quiet "http://127.0.0.1:$OWN_PORT/metrics" "$OWN_PID" || exit 1
system_libs "not pushing" "$OWN_PID" "$TMP/agent"
bg_stop "$OWN_PID"

# For reference: the agent pushing every second.
"$BIN/tbctl" token create --ttl 10m --accept >"$TMP/boot-push" || { echo "token create failed"; exit 1; }
mkdir -p "$TMP/state-push"
PATH=$(fakemac_path) start_own push "$TMP/agent" "$BIN/tbagentd" --backend darwin --interval 1 \
	--name push --controller "$CTRL_URL" --bootstrap-token-file "$TMP/boot-push" \
	--state-dir "$TMP/state-push" || exit 1
wait_for "agent report" 10 curl -sf "http://127.0.0.1:$OWN_PORT/v1/report" || exit 1
"$GET" "http://127.0.0.1:$OWN_PORT/metrics" "$N" 20 >/dev/null || { echo "pushing agent failed"; exit 1; }
warm_up push "$OWN_PORT" push || exit 1
measure push "http://127.0.0.1:$OWN_PORT/metrics" "$OWN_PID" || exit 1
system_libs pushing "$OWN_PID" "$TMP/agent"
bg_stop "$OWN_PID"

# The floors, read once.
sleep 600 &
S_PID=$!
# read it once it is sleep(1), not the shell that forked it
wait_for "sleep to start" 5 grep -qx sleep "/proc/$S_PID/comm" && sleep 0.2
MEM[sleep]=$(smaps "$S_PID")
kill "$S_PID" && wait "$S_PID" 2>/dev/null
start_own bare204 "$TMP/bare" "$BIN/tests/bench/bare204" || exit 1
BU=http://127.0.0.1:$OWN_PORT/
for i in 1 2 3 4 5; do curl -sf -o /dev/null "$BU" || { echo "bare204 did not answer"; exit 1; }; done
MEM[bare204]=$(smaps "$OWN_PID")
B_MAPS=$(by_mapping "$OWN_PID")
system_libs bare204 "$OWN_PID" "$TMP/bare"

bytes() { sed -n 's/.*bytes=\([0-9]*\).*/\1/p' <<<"$1"; }
[ "$(bytes "$a_lat")" -gt 1000 ] || { echo "the agent served an empty /metrics: $a_lat"; exit 1; }
# ratio LABEL I: figure I (1 RSS, 2 PSS, 3 private) of LABEL over node_exporter's.
ratio() {
	awk -v a="$(field_of "$1" "$2")" -v b="$(field_of node_exporter "$2")" 'BEGIN {printf "%.3f", a / b}'
}
rss_ratio=$(ratio tbagentd 1); pss_ratio=$(ratio tbagentd 2); uss_ratio=$(ratio tbagentd 3)
lat_ratio=$(awk -v a="$(med "$a_lat")" -v b="$(med "$n_lat")" 'BEGIN {printf "%.4f", a / b}')
row() {	# LABEL NAME TEXT
	printf '  %-14s rss %6s KiB  pss %6s KiB  private %6s KiB  %s\n' "$2" \
		$(field_of "$1" 1) $(field_of "$1" 2) $(field_of "$1" 3) "$3"
}
shares() { echo "$(ratio "$1" 1) / $(ratio "$1" 2) / $(ratio "$1" 3)"; }

echo "agent_vs_node_exporter: $N scrapes of /metrics each, same client, same run;" \
	"tbagentd pushes to a tbcontrollerd every 5 s"
echo "  memory from /proc/PID/smaps_rollup after $WARM collections: the max of $SAMPLES reads 1 s apart"
row tbagentd tbagentd "GET /metrics $a_lat"
row node_exporter node_exporter "GET /metrics $n_lat"
echo "  for reference, RSS / PSS / private as shares of node_exporter's:"
row inst "as installed" "$(shares inst)  (the same, from the system's libraries)"
row quiet "not pushing" "$(shares quiet)  (tbagentd not enrolled, collecting every 5 s)"
row push pushing "$(shares push)  (tbagentd pushing to tbcontrollerd every 1 s)"
row sleep sleep "$(shares sleep)  (floor: the C library alone)"
row bare204 bare204 "$(shares bare204)  (floor: a libmicrohttpd server doing nothing)"
for n in "${NOTES[@]}"; do echo "  note: $n"; done
echo "  memory ratio  (tbagentd / node_exporter, RSS): $rss_ratio  (no goal: counts the shared libraries)"
echo "  memory ratio  (tbagentd / node_exporter, PSS): $pss_ratio  (goal <= 0.20)"
echo "  memory ratio  (tbagentd / node_exporter, private): $uss_ratio  (goal <= 0.10)"
echo "  latency ratio (tbagentd / node_exporter, median): $lat_ratio  (goal <= 0.20)"
# what the private memory is made of: the agent's ten largest, the
# libraries' share, and the same libraries in bare204 (the floor)
libs_kib() { awk '$4 ~ /\.so/ {t += $1} END {print t + 0}' <<<"$1"; }
echo "  tbagentd's private memory by mapping, KiB (clean+dirty), the largest ten:"
head -n 10 <<<"$A_MAPS" | sed 's/^/    /'
echo "    ... $(sed -n '11,$p' <<<"$A_MAPS" | awk '{t += $1} END {print t + 0}') KiB in" \
	"$(sed -n '11,$p' <<<"$A_MAPS" | wc -l) more"
echo "  of which the shared libraries (but the C library's): $(libs_kib "$(grep -Ev \
	'(ld-linux|lib(c|m)\.so)' <<<"$A_MAPS")") KiB; in bare204, the same libraries" \
	"that libmicrohttpd needs: $(libs_kib "$(grep -Ev '(ld-linux|lib(c|m)\.so)' <<<"$B_MAPS")") KiB"
awk -v u="$uss_ratio" -v p="$pss_ratio" -v l="$lat_ratio" -v f="$T_FAIL" \
	'BEGIN {exit !(u <= 0.10 && p <= 0.20 && l <= 0.20 && f == 0)}'
