#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz/ (the Makefile's fuzz section), each
# run for FUZZ_SECONDS (default 12) on its seeds under ASan+UBSan: a crash,
# a leak, undefined behaviour, a timeout or a broken round trip fails.
# Builds them first (make fuzz-build) unless FUZZ_NOBUILD=1 (make fuzz
# has).  Skipped where clang or its libFuzzer runtime is missing (Apple's
# clang has none: brew's llvm does).  One summary line per target; the
# logs stay in $B/fuzz/log-TARGET.txt, what a run finds in
# $B/fuzz/corpus/TARGET/ (the next run's seeds), a crash in
# $B/fuzz/crash-TARGET-*: rerun one with `$B/fuzz/fuzz_TARGET FILE`.
. "$(dirname "$0")/../lib/common.sh"
FUZZ_SECONDS=${FUZZ_SECONDS:-12}
FZ=$BIN/fuzz

# fuzz_links CC: CC links a libFuzzer target with ASan and UBSan.
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	>"$TMP/probe.c"
fuzz_links() {
	command -v "$1" >/dev/null 2>&1 &&
		"$1" -fsanitize=fuzzer,address,undefined "$TMP/probe.c" -o "$TMP/probe" >>"$TMP/probe.log" 2>&1
}
# FUZZ_CC as given; else clang, or Homebrew's (Apple's clang has no libFuzzer).
if [ -z "${FUZZ_CC:-}" ]; then
	for cc in clang /opt/homebrew/opt/llvm/bin/clang /usr/local/opt/llvm/bin/clang; do
		fuzz_links "$cc" && { FUZZ_CC=$cc; break; }
	done
fi
FUZZ_CC=${FUZZ_CC:-clang}
command -v "$FUZZ_CC" >/dev/null 2>&1 || skip_all "$FUZZ_CC not installed (packaging/deps.sh installs clang)"
fuzz_links "$FUZZ_CC" ||
	skip_all "$FUZZ_CC cannot link -fsanitize=fuzzer (Debian: apt-get install libclang-rt-14-dev; macOS: brew install llvm)"

if [ "${FUZZ_NOBUILD:-0}" != 1 ]; then
	make -C "$TOP" -s --no-print-directory B="$B" FUZZ_CC="$FUZZ_CC" fuzz-build >"$TMP/build.log" 2>&1
	rc=$?
	check_eq "make fuzz-build" 0 "$rc"
	[ "$rc" = 0 ] || { tail -n 30 "$TMP/build.log"; done_testing; }
fi

# seeds TARGET: the directories of seeds for TARGET (all in the repository; libFuzzer
# reads them recursively: captures/ holds a folder per source).
seeds() {
	local F=$TOP/tests/fixtures
	case "$1" in
	report) echo "$TOP/tests/fuzz/corpus/report" ;;
	api) echo "$TOP/tests/fuzz/corpus/api" ;;
	dot) echo "$TOP/tests/fuzz/corpus/dot $F/mlx" ;;
	macos_json) echo "$TOP/tests/fuzz/corpus/macos_json $F/macos $F/captures" ;;
	darwin_text) echo "$TOP/tests/fuzz/corpus/darwin_text $F/macos $F/captures" ;;
	esac
}

fuzz_one() {  # TARGET
	local t=$1 bin=$FZ/fuzz_$1 log=$FZ/log-$1.txt out=$FZ/corpus/$1 rc execs secs dirs d
	dirs=()
	for d in $(seeds "$t"); do [ -d "$d" ] && dirs+=("$d"); done
	mkdir -p "$out"
	rm -f "$FZ/crash-$t-"*
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$FZ/crash-$t-" "$out" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
	if [ "$rc" = 0 ]; then
		ok "fuzz_$t: ${execs:-?} execs in ${secs:-?} s, corpus $(ls "$out" | wc -l | tr -d ' ') inputs"
	else
		not_ok "fuzz_$t: exit $rc after ${execs:-?} execs (log: $log; input: $(ls "$FZ/crash-$t-"* 2>/dev/null | head -n 1))"
		grep -m 1 -B 2 -A 25 -E 'ERROR: |runtime error:|^fuzz: ' "$log" | sed 's/^/# /'
	fi
}

targets=()
for f in "$TOP"/tests/fuzz/fuzz_*.c; do
	t=${f##*/fuzz_}
	targets+=("${t%.c}")
done
for t in "${targets[@]}"; do
	fuzz_one "$t"
done
done_testing
