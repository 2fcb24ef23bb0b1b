#!/usr/bin/env bash
# The version is said in one place, the Makefile's VERSION: the programs print
# it (-DTBMESH_VERSION), proto/util/version.h's fallback repeats it, the Homebrew
# formula's url and make dist's tarball name come from it (formula.sh,
# dist.sh).  A build with another VERSION prints that one, and a change of
# VERSION rebuilds what compiled the last one in.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
VERSION=$(make --no-print-directory -s B="$B" print-VERSION)
check "the Makefile's VERSION looks like a version ($VERSION)" grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' <<<"$VERSION"
fallback=$(sed -n 's/^#define TBMESH_VERSION "\(.*\)"$/\1/p' proto/util/version.h)
check_eq "proto/util/version.h's fallback is the Makefile's VERSION" "$VERSION" "$fallback"
for p in tbctl tbagentd tbcontrollerd; do
	check_eq "$p --version prints the Makefile's VERSION" "$p $VERSION" "$("$BIN/$p" --version 2>&1)"
	check_eq "$p -V too" "$p $VERSION" "$("$BIN/$p" -V 2>&1)"
done
check "the Homebrew formula's url names it" grep -q "/tbmesh-$VERSION\.tar\.gz\"$" packaging/homebrew/tbmesh.rb

# Another VERSION, in a build of its own: tbctl says it; then a third, and
# the same build directory is rebuilt for it.
B2=$TMP/build
for v in 9.8.7 9.8.8; do
	make --no-print-directory -s -j2 B="$B2" SANITIZE="${SANITIZE:-}" VERSION=$v "$B2/tbctl" \
		>"$TMP/make.log" 2>&1 || { not_ok "make VERSION=$v failed"; tail -n 20 "$TMP/make.log"; }
	check_eq "built with VERSION=$v, tbctl --version says it" "tbctl $v" "$("$B2/tbctl" --version 2>&1)"
done
done_testing
