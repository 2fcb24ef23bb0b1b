#!/usr/bin/env bash
# make dist makes tbmesh-VERSION.tar.gz of exactly the files git tracks, under
# tbmesh-VERSION/; unpacked elsewhere (no .git there) it builds with make and
# its unit tests pass; and make dist there fails, saying why.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
git rev-parse --git-dir >/dev/null 2>&1 && [ -z "$(git rev-parse --show-prefix)" ] ||
	skip_all "$TOP is not the top of a git checkout (an unpacked tarball): nothing to make a release of"
VERSION=$(make --no-print-directory -s B="$B" print-VERSION)
NAME=tbmesh-$VERSION

# An untracked and an ignored file (*.o) in the work tree, which must stay out.
probe_u=$TOP/.dist-probe-untracked.$$ probe_i=$TOP/.dist-probe-ignored.$$.o
trap 'rc=$?; rm -f "$probe_u" "$probe_i"; (exit $rc); cleanup' EXIT
echo probe >"$probe_u"
echo probe >"$probe_i"
check "the probe is untracked" sh -c "git ls-files --others --exclude-standard | grep -qx '${probe_u##*/}'"
check "the other is ignored" git check-ignore -q "$probe_i"

D=$TMP/d
start=$SECONDS
make --no-print-directory B="$D" dist >"$TMP/dist.out" 2>&1
rc=$?
rm -f "$probe_u" "$probe_i"
check_eq "make dist exits 0" 0 "$rc"
[ "$rc" = 0 ] || { sed 's/^/# /' "$TMP/dist.out"; done_testing; }
T=$D/$NAME.tar.gz
check "it made $NAME.tar.gz (the Makefile's VERSION)" test -f "$T"
sum=$( { sha256sum "$T" 2>/dev/null || shasum -a 256 "$T"; } | cut -d' ' -f1)
check "it printed the tarball's sha256 for the Homebrew formula" \
	grep -qx "sha256 \"$sum\" (packaging/homebrew/tbmesh.rb)" "$TMP/dist.out"
tar -tzf "$T" >"$TMP/list" || not_ok "tar -tzf $T"
check_eq "every entry is under $NAME/" 0 "$(grep -cv "^$NAME/" "$TMP/list")"
# the files in it (not the folders) against git's list
grep -v '/$' "$TMP/list" | sed "s|^$NAME/||" | sort >"$TMP/files"
git ls-files | sort >"$TMP/tracked"
check "it holds exactly the files git tracks" cmp -s "$TMP/files" "$TMP/tracked"
diff "$TMP/tracked" "$TMP/files" | grep '^[<>]' | head -n 20 | sed 's/^/# /'
check "not the untracked file" sh -c "! grep -q 'dist-probe-untracked' '$TMP/list'"
check "nor the ignored one" sh -c "! grep -q 'dist-probe-ignored' '$TMP/list'"
check "nor anything of a build directory" sh -c "! grep -Eq '^$NAME/build(-[^/]*)?/' '$TMP/list'"
check "scripts stay executable" sh -c "tar -tvzf '$T' '$NAME/tests/run.sh' | grep -q '^-rwx'"

# Unpacked elsewhere: it builds, its unit tests pass, and it is no checkout.
U=$TMP/u
mkdir -p "$U"
tar -xzf "$T" -C "$U"
W=$U/$NAME
check "no .git in the tarball" test ! -e "$W/.git"
if (cd "$W" && make -j2 B=build SANITIZE="${SANITIZE:-}" >"$TMP/build.log" 2>&1); then
	ok "make -j2 B=build builds the unpacked tree"
	(cd "$W" && B=build tests/run.sh unit >"$TMP/unit.log" 2>&1)
	rc=$?
	check_eq "its unit tests pass (B=build tests/run.sh unit)" 0 "$rc"
	summary=$(tail -n 1 "$TMP/unit.log")
	echo "# $summary"
	check "and there are some" grep -Eq '^tests: [1-9][0-9]* passed, 0 failed' <<<"$summary"
	[ "$rc" = 0 ] || grep -A 5 '^FAIL' "$TMP/unit.log" | head -n 30 | sed 's/^/# /'
	check_eq "the programs built from it print VERSION" "tbctl $VERSION" "$("$W/build/tbctl" --version)"
else
	not_ok "make -j2 in the unpacked tree failed (a file it needs is not tracked?)"
	grep -E 'error|No rule' "$TMP/build.log" | head -n 20 | sed 's/^/# /'
	echo "# files of the work tree git does not track: $(git ls-files --others --exclude-standard |
		grep -v '^\.dist-probe' | head -n 20 | tr '\n' ' ')"
fi
(cd "$W" && make --no-print-directory dist) >"$TMP/dist2.out" 2>&1
rc=$?
check "make dist in the unpacked tree fails" test "$rc" != 0
check "saying it needs a git checkout" grep -q 'not the top of a git checkout' "$TMP/dist2.out"
echo "# took $((SECONDS - start)) s"
# done_testing looks for sanitizer reports in $TMP: the sources (which name
# the sanitizers) go first; the logs stay.
rm -rf "$U" "$D"
done_testing
