#!/usr/bin/env bash
# packaging/deps.sh as a fresh machine sees it (make check-deps): a PATH on
# which none of the commands it checks is found and where pkg-config, so
# every pkg-config module, is missing; apt-get simulating the install
# (apt-get install -s) against this machine's real package database.  This
# image's Node.js comes from NodeSource and ships its own npm, which
# Debian's npm conflicts with ("nodejs : Conflicts: npm"): the simulation
# must not ask for npm, and must neither replace nor remove a package.
. "$(dirname "$0")/../lib/common.sh"

DEPS=$TOP/packaging/deps.sh
command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 ||
	skip_all "no apt-get and dpkg here: the fresh-machine simulation is Debian's"

# A PATH with only what deps.sh itself runs, none of what it checks.
FRESH=$TMP/fresh-bin
mkdir -p "$FRESH"
for c in sh uname id tr sed awk grep cat ls head dpkg dpkg-query apt-get apt-config; do
	p=$(command -v "$c") || skip_all "no $c here"
	ln -s "$p" "$FRESH/$c"
done
# DEPS_SYSROOT: the table's absolute paths (/usr/sbin/sshd) are not there either.
fresh() { env -i HOME="$HOME" PATH="$FRESH" LANG=C DEPS_SYSROOT="$TMP/empty-root" "$@"; }

# Every row of the table is missing on that PATH.
names=$(fresh sh "$DEPS" --list | awk '{ print $2 }' | sort | tr '\n' ' ')
check "the table lists the modules and commands" test "$(echo "$names" | wc -w)" -ge 20
fresh sh "$DEPS" --check >"$TMP/check.out" 2>&1
check_eq "--check fails on the fresh PATH" 1 "$?"
missing=$(sed -n 's/^missing: //p' "$TMP/check.out" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
check_eq "and names every row of the table" "$names" "$missing"

# The dry run: the packages, and apt-get's simulation of exactly those.
fresh sh "$DEPS" --dry-run >"$TMP/dry.out" 2>&1
rc=$?
sed 's/^/# /' "$TMP/dry.out"
check_eq "--dry-run on the fresh PATH: exit 0 (apt-get can install it all)" 0 "$rc"
pkgs=$(sed -n 's/^deps.sh: would install (debian): //p' "$TMP/dry.out")
check "it prints the packages" test -n "$pkgs"
check "it ran apt-get install -s on them" grep -q "^deps.sh: apt-get install -s --no-install-recommends $pkgs" "$TMP/dry.out"
check "apt-get's verdict is printed" grep -q 'apt-get would install [0-9]* packages; nothing was changed' "$TMP/dry.out"
for p in build-essential pkg-config libmicrohttpd-dev libcurl4-gnutls-dev libcjson-dev libcmocka-dev \
	libsqlite3-dev libssh-dev libgnutls28-dev prometheus prometheus-node-exporter chromium jq \
	openssh-server coreutils sudo mandoc; do
	case " $pkgs " in *" $p "*) ok "asks for $p" ;; *) not_ok "does not ask for $p: $pkgs" ;; esac
done
case " $pkgs " in *" nodejs "*) ok "a node not on PATH: asks for nodejs" ;; *) not_ok "no nodejs in: $pkgs" ;; esac

npm_owner=$(dpkg -S /usr/bin/npm 2>/dev/null | sed -n 's/:.*//p' | head -n 1)
apt-get install -s --no-install-recommends $pkgs >"$TMP/sim.out" 2>&1
check_eq "the same simulation, run here: exit 0" 0 "$?"
check_eq "it removes no package" "" "$(grep '^Remv ' "$TMP/sim.out")"
if [ -n "$npm_owner" ] && [ "$npm_owner" != npm ]; then
	case " $pkgs " in *" npm "*) not_ok "asks for npm though $npm_owner ships it" ;;
	*) ok "npm is shipped by $npm_owner: not asked of apt" ;; esac
	check_eq "and $npm_owner is not replaced" "" "$(grep "^Inst $npm_owner " "$TMP/sim.out")"
else
	case " $pkgs " in *" npm "*) ok "no package ships npm: npm is asked for" ;;
	*) not_ok "npm is missing and nobody ships it, yet it is not asked for" ;; esac
fi

# The check can fail: an apt-get that is also asked for Debian's npm is
# refused on this image, and deps.sh fails with apt's reason.
if [ -n "$npm_owner" ] && [ "$npm_owner" != npm ]; then
	cat >"$FRESH/apt-with-npm" <<EOS
#!/bin/sh
exec $(command -v apt-get) "\$@" npm
EOS
	chmod +x "$FRESH/apt-with-npm"
	fresh APT_GET=apt-with-npm sh "$DEPS" --dry-run >"$TMP/npm.out" 2>&1
	check_eq "asking apt for npm beside $npm_owner's npm: --dry-run fails" 1 "$?"
	check "with apt's reason" grep -qiE 'conflict|broken|unmet' "$TMP/npm.out"
	check "and says what it means" grep -q 'cannot install these packages together' "$TMP/npm.out"
fi

# The other systems' names for the same fresh machine (no simulation there).
fresh DEPS_OS=ubuntu sh "$DEPS" --dry-run >"$TMP/ubuntu.out" 2>&1
check "Ubuntu: Chromium is chromium-browser" grep -q '^deps.sh: would install (ubuntu): .*chromium-browser' "$TMP/ubuntu.out"
fresh DEPS_OS=macos sh "$DEPS" --dry-run >"$TMP/mac.out" 2>&1
check_eq "macOS: a dry run exits 0" 0 "$?"
brew=$(sed -n 's/^deps.sh: would install (macos): //p' "$TMP/mac.out" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
check_eq "macOS: Homebrew's formulae, each once" \
	"chromium cjson cmocka coreutils curl gnutls jq libmicrohttpd libssh llvm node node_exporter pkgconf prometheus sqlite " \
	"$brew"

# Nothing is missing on this machine's own PATH once make check has run deps.
check "on the real PATH nothing is missing" sh "$DEPS" --check
done_testing
