#!/usr/bin/env bash
# The Homebrew formula (packaging/homebrew/tbmesh.rb) stays true to the
# Makefile: its url is the tarball make dist makes for VERSION, it depends on
# the formula of every pkg-config module the Makefile builds with (and on no
# other), and its install, post_install, service and test blocks work: run
# with Ruby against a stand-in for Homebrew (tests/lib/formula_stub.rb), the
# install is the Makefile's make install into a keg under $TMP, the service
# runs a program that install placed with a configuration post_install wrote,
# and the formula's own test passes against what was installed.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
F=packaging/homebrew/tbmesh.rb
mk() { make --no-print-directory -s B="$B" "$@"; }
VERSION=$(mk print-VERSION)
PKGS=$(mk print-ALL_PKGS)
LINKED=" $(mk print-AGENT_PKGS) $(mk print-CONTROLLER_PKGS) $(mk print-CTL_PKGS) "
check "the Makefile names a VERSION" test -n "$VERSION"
check "the Makefile names its pkg-config modules" test -n "$PKGS"

# The formula's url: the release tarball of this VERSION, as make dist names it.
url=$(sed -n 's/^  url "\(.*\)"$/\1/p' "$F")
check_eq "the formula's url is the tarball of the Makefile's VERSION" \
	"tbmesh-$VERSION.tar.gz" "${url##*/}"
check "the url's release tag is the VERSION too" grep -q "/v$VERSION/" <<<"$url"
check "the formula has a sha256 (64 hex digits)" grep -Eq '^  sha256 "[0-9a-f]{64}"$' "$F"
# On macOS make install would write /Library/LaunchDaemons, outside the keg
# (brew's sandbox refuses it): brew services makes its own plist.
check "its make install sets LAUNCHDDIR= (no plist outside the keg)" grep -q '"LAUNCHDDIR=",' "$F"

# pkg-config module -> Homebrew formula (packaging/deps.sh's table has the same).
declare -A BREW=([libmicrohttpd]=libmicrohttpd [libcurl]=curl [libcjson]=cjson
	[sqlite3]=sqlite [libssh]=libssh [gnutls]=gnutls [cmocka]=cmocka)
# depends_on "name" [=> :build]: "name" or "name:build"
deps=$(sed -n 's/^  depends_on "\([^"]*\)"\( => :\([a-z]*\)\)\{0,1\}$/\1:\3/p' "$F" | sed 's/:$//')
has_dep() { grep -qx "$1" <<<"$deps"; }
wanted=(pkgconf:build)
for m in $PKGS; do
	b=${BREW[$m]:-}
	if [ -z "$b" ]; then
		not_ok "the Makefile's module $m has no formula in this test's map (add it, and to the formula)"
		continue
	fi
	# a module no program links (cmocka: the unit tests') may be a build
	# dependency; the programs link the others
	if [[ $LINKED != *" $m "* ]]; then
		if has_dep "$b:build" || has_dep "$b"; then ok "module $m: depends_on \"$b\""
		else not_ok "module $m (not linked): no depends_on \"$b\" => :build in the formula"; fi
		wanted+=("$b:build" "$b")
	else
		check "module $m: depends_on \"$b\" (not :build: the programs link it)" has_dep "$b"
		wanted+=("$b")
	fi
	# packaging/deps.sh installs the same formula for it (when its table has a row)
	row=$(awk -v m="$m" '$1 == "mod" && index(":" $3 ":", ":" m ":") { print $5; exit }' packaging/deps.sh)
	[ -z "$row" ] || check_eq "module $m: packaging/deps.sh names the same formula" "$b" "$row"
done
check "the formula needs pkgconf to build" has_dep pkgconf:build
extra=$(grep -vxF -f <(printf '%s\n' "${wanted[@]}") <<<"$deps" | tr '\n' ' ')
check_eq "no depends_on the Makefile does not need" "" "$extra"

if ! command -v ruby >/dev/null 2>&1; then
	echo "# no ruby on PATH (apt-get install ruby): the formula's Ruby is not checked"
	done_testing
fi
check "the formula is valid Ruby (ruby -wc, no warning)" \
	sh -c "ruby -wc '$F' 2>&1 | grep -qx 'Syntax OK' && test \"\$(ruby -wc '$F' 2>&1 | wc -l)\" = 1"
R=$TMP/brew
mkdir -p "$R"
B="$B" ruby tests/lib/formula_stub.rb "$F" "$R" "$TOP" >"$TMP/stub.out" 2>"$TMP/stub.err"
rc=$?
check_eq "the formula installs and its test block passes (tests/lib/formula_stub.rb)" 0 "$rc"
if [ "$rc" != 0 ]; then
	grep -v '^	\|^cc \|^ar \|^install \|^sed \|^for \|^chmod ' "$TMP/stub.err" | tail -n 20 | sed 's/^/# /'
	done_testing
fi
check "its test ran to the end" grep -qx 'test: ok' "$TMP/stub.out"
IFS=$'\t' read -r -a run < <(sed -n 's/^service-run\t//p' "$TMP/stub.out")
check_eq "the service runs opt_sbin/tbagentd" "$R/opt/tbmesh/sbin/tbagentd" "${run[0]:-}"
check "which make install placed, through the opt link" test -x "${run[0]:-/nonexistent}"
check "the service's configuration was written by post_install" test -f "${run[2]:-/nonexistent}"
check "the service's command accepts that configuration (-n)" sh -c '"$@" >/dev/null' sh "${run[@]:-false}" -n
check "the service is kept alive" grep -qx $'service-keep-alive\ttrue' "$TMP/stub.out"
check "the service logs under var" grep -qx $'service-log-path\t'"$R/var/log/tbagentd.log" "$TMP/stub.out"
check "the service finds brew's commands (macmon) on PATH" \
	grep -q $'^service-environment-variables\tPATH='"$R/bin:" "$TMP/stub.out"
check "post_install made the agent's state directory" test -d "$R/var/lib/tbagentd"
check "the configuration names it" grep -qx "state-dir = $R/var/lib/tbagentd" "$R/etc/tbmesh/tbagentd.conf"
# The keg holds what make install placed for PREFIX=keg: nothing outside it
# but the configuration and state post_install writes (no LaunchDaemons).
outside=$(cd "$R" && find . -type f ! -path './Cellar/*' | sort | tr '\n' ' ')
check_eq "nothing installed outside the keg but post_install's" "./etc/tbmesh/tbagentd.conf " "$outside"
done_testing
