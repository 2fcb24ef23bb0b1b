#!/usr/bin/env bash
# Runs the test suites: unit (every cmocka binary in $B/tests, and
# tests/layout.sh, the source tree's layers) and integration
# (every tests/integration/*.sh and tests/browser/*.sh but setup.sh).  Prints each result and closes with the line
# "tests: N passed, N failed[, N skipped]".  Exit 1 if anything failed.
#   tests/run.sh [unit|integration] [NAME-FILTER]
set -u
cd "$(dirname "$0")/.."
export B=${B:-build}
export TBMESH_TOP=$PWD
which=${1:-all}
filter=${2:-}
passed=0 failed=0 skipped=0 failures=()
logdir=$B/test-logs
mkdir -p "$logdir"

run_one() {  # name, command...
	local name=$1; shift
	local log=$logdir/$name.log start=$SECONDS rc
	mkdir -p "$(dirname "$log")"
	"$@" >"$log" 2>&1
	rc=$?
	local took=$((SECONDS - start))
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1)); printf 'PASS  %-40s %3ss\n' "$name" "$took"
	elif [ $rc -eq 77 ]; then
		skipped=$((skipped + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(tail -n 1 "$log")"
	else
		failed=$((failed + 1)); failures+=("$name")
		printf 'FAIL  %-40s %3ss (log: %s)\n' "$name" "$took" "$log"
		tail -n 30 "$log" | sed 's/^/      /'
	fi
}

if [ "$which" = all ] || [ "$which" = unit ]; then
	for t in "$B"/tests/test_*; do
		[ -x "$t" ] || continue
		n=$(basename "$t")
		case "$n" in *"$filter"*) ;; *) continue ;; esac
		run_one "unit/$n" "$t"
	done
fi
if [ "$which" = all ] || [ "$which" = unit ]; then
	case layout in *"$filter"*) run_one layout bash tests/layout.sh ;; esac
fi
if [ "$which" = all ] || [ "$which" = integration ]; then
	# each test gets 600 s: GNU timeout, or gtimeout (brew's coreutils on macOS)
	if command -v timeout >/dev/null 2>&1; then limit=(timeout 600)
	elif command -v gtimeout >/dev/null 2>&1; then limit=(gtimeout 600)
	else
		limit=()
		echo "note: neither timeout nor gtimeout found (brew install coreutils):" \
			"integration tests run without a time limit"
	fi
	for t in tests/integration/*.sh tests/browser/*.sh; do
		[ -f "$t" ] || continue
		[ "$t" = tests/browser/setup.sh ] && continue
		n=$(basename "$t" .sh)
		case "$n" in *"$filter"*) ;; *) continue ;; esac
		run_one "integration/$n" ${limit[@]+"${limit[@]}"} bash "$t"
	done
fi
echo
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
if [ $skipped -gt 0 ]; then
	echo "tests: $passed passed, $failed failed, $skipped skipped"
else
	echo "tests: $passed passed, $failed failed"
fi
[ $failed -eq 0 ]
