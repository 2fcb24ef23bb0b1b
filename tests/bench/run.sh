#!/usr/bin/env bash
# make bench: every tests/bench/*.sh but this one; each prints its figures
# beside its peer's and exits 1 when it misses its goal.
set -u
cd "$(dirname "$0")/../.."
export B=${B:-build} TBMESH_TOP=$PWD
rc=0
for b in tests/bench/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	bash "$b"; r=$?
	if [ $r -eq 77 ]; then echo "   (skipped)"; elif [ $r -ne 0 ]; then echo "   GOAL MISSED"; rc=1; fi
	echo
done
exit $rc
