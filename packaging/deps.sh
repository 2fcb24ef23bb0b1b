#!/bin/sh
# Installs what tbmesh needs to build, test and benchmark: with apt-get on
# Debian 12 and 13 and Ubuntu 24.04, with brew on macOS.  Only what is
# missing is installed, each missing command or pkg-config module mapped to
# the one package that brings it (the table below); what is already there,
# from whatever origin, is used as it is and never replaced.  A node that is
# on PATH is never replaced by the distribution's nodejs, and npm is never
# asked of apt when an installed package already ships it (Node.js from
# NodeSource carries its own npm, and Debian's npm conflicts with it).
#
#   packaging/deps.sh            install what is missing
#   packaging/deps.sh --check    exit 0 if nothing is missing, else list it, exit 1
#   packaging/deps.sh --dry-run  print what would be installed; on Debian and
#                                Ubuntu also ask apt-get to simulate exactly
#                                that (apt-get install -s), failing with apt's
#                                reason
#   packaging/deps.sh --list     print the table: what is checked, and the
#                                package that brings it on each system
#
# On a Debian host with systemd, the services that the prometheus and
# prometheus-node-exporter packages start on install are stopped and
# disabled again: tbmesh only uses their binaries (promtool, and
# node_exporter as the benchmark's peer).
#
# Environment: DEPS_OS=debian|ubuntu|macos overrides the detected system
# (the dry run of another system's names); APT_GET, BREW name the clients;
# DEPS_SYSROOT is put before the table's absolute paths (/usr/sbin/sshd),
# so that a test can show deps.sh a machine where none of them exists.
set -eu

# The table: kind (mod: a pkg-config module, cmd: a command), the name said
# when it is missing, how it is found, its package on Debian/Ubuntu and its
# Homebrew formula.
# kind  what            found as (':' separated; a path or a command)     Debian/Ubuntu            Homebrew
# "-" as a package: nothing to install there (macOS ships it, or the
# Xcode command line tools do).
TABLE='
mod libmicrohttpd  libmicrohttpd                        libmicrohttpd-dev        libmicrohttpd
mod libcurl        libcurl                              libcurl4-gnutls-dev      curl
mod libcjson       libcjson                             libcjson-dev             cjson
mod cmocka         cmocka                               libcmocka-dev            cmocka
mod libsqlite3     sqlite3                              libsqlite3-dev           sqlite
mod libssh         libssh                               libssh-dev               libssh
mod gnutls         gnutls                               libgnutls28-dev          gnutls
cmd cc             cc                                   build-essential          -
cmd make           make                                 make                     -
cmd pkg-config     pkg-config:pkgconf                   pkg-config               pkgconf
cmd curl           curl                                 curl                     -
cmd jq             jq                                   jq                       jq
cmd openssl        openssl                              openssl                  -
cmd sqlite3        sqlite3                              sqlite3                  -
cmd timeout        timeout:gtimeout                     coreutils                coreutils
cmd promtool       promtool                             prometheus               prometheus
cmd node_exporter  node_exporter:prometheus-node-exporter prometheus-node-exporter node_exporter
cmd node           node:nodejs                          nodejs                   node
cmd npm            npm                                  npm                      node
cmd python3        python3                              python3                  -
cmd ruby           ruby                                 ruby                     -
cmd clang          clang                                clang                    llvm
cmd libfuzzer      /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a:/usr/lib/llvm-*/lib/clang/*/lib/*-linux-gnu/libclang_rt.fuzzer.a libclang-rt-dev -
cmd ssh            ssh                                  openssh-client           -
cmd sshd           sshd:/usr/sbin/sshd                  openssh-server           -
cmd sudo           sudo:/usr/bin/sudo                   sudo                     -
cmd ip             ip:/usr/sbin/ip:/sbin/ip             iproute2                 -
cmd ps             ps:pgrep                             procps                   -
cmd strace         strace                               strace                   -
cmd mandoc         mandoc                               mandoc                   -
cmd chromium       chromium:chromium-browser:/Applications/Chromium.app/Contents/MacOS/Chromium chromium chromium
'

die() { echo "deps.sh: $*" >&2; exit 1; }

detect_os() {
	[ -z "${DEPS_OS:-}" ] || { echo "$DEPS_OS"; return; }
	case "$(uname -s)" in
	Darwin) echo macos ;;
	Linux)
		id=
		[ ! -r /etc/os-release ] || id=$(sed -n 's/^ID=//p' /etc/os-release | tr -d '"')
		case "$id" in
		ubuntu) echo ubuntu ;;
		*) echo debian ;;
		esac ;;
	*) echo other ;;
	esac
}
OS=$(detect_os)

# found SPEC: is one of SPEC's ':'-separated commands or paths there?  A path
# may hold globs (the fuzzer runtime's directory names clang's version).
found() {
	for c in $(echo "$1" | tr ':' ' '); do
		case "$c" in
		/*) for f in ${DEPS_SYSROOT:-}$c; do [ -e "$f" ] && return 0; done ;;
		*) command -v "$c" >/dev/null 2>&1 && return 0 ;;
		esac
	done
	return 1
}

# applies NAME: is NAME checked on this system?  ip and strace are Linux's
# (a test that needs them skips on macOS, and brew has neither); macOS
# ships ssh, sshd, sudo, curl, openssl, sqlite3, python3, ruby and ps itself.
applies() {
	case "$OS:$1" in
	macos:ip|macos:strace|macos:libfuzzer) return 1 ;;
	esac
	return 0
}

# missing: the table's rows whose thing is not here, one a line.
missing() {
	have_pc=
	command -v pkg-config >/dev/null 2>&1 && have_pc=1
	echo "$TABLE" | while read -r kind name how deb brew; do
		[ -n "$kind" ] || continue
		applies "$name" || continue
		case "$kind" in
		mod) [ -n "$have_pc" ] && pkg-config --exists "$how" 2>/dev/null && continue ;;
		cmd) found "$how" && continue ;;
		esac
		echo "$kind $name $how $deb $brew"
	done
}

# npm_package: the package for a missing npm, or "-".  An installed package
# other than npm that ships the npm command (NodeSource's nodejs does;
# Debian's own does not) means that npm is that Node's, and Debian's npm
# would conflict with it; a node on PATH that no Debian package owns (nvm,
# a tarball) brings its own npm too.  Either way apt is not asked.
npm_package() {
	command -v dpkg >/dev/null 2>&1 || { echo npm; return; }
	owner=$(dpkg -S /usr/bin/npm 2>/dev/null | sed -n 's/:.*//p' | head -n 1)
	if [ -n "$owner" ] && [ "$owner" != npm ]; then echo -; return; fi
	node=$(command -v node 2>/dev/null || true)
	if [ -n "$node" ] && ! dpkg -S "$node" >/dev/null 2>&1; then echo -; return; fi
	echo npm
}

# packages: the packages that bring what is missing, one a line, each once.
packages() {
	missing | while read -r kind name how deb brew; do
		case "$OS" in
		macos)
			pkg=$brew
			# brew's node carries npm; a node from elsewhere brings its own
			[ "$name" = npm ] && found node && pkg=- ;;
		*)
			pkg=$deb
			case "$name" in
			npm) pkg=$(npm_package) ;;
			chromium) [ "$OS" = ubuntu ] && pkg=chromium-browser ;;
			esac ;;
		esac
		[ "$pkg" = - ] || echo "$pkg"
	done | awk '!seen[$0]++'
}

missing_names() { missing | awk '{ printf "%s ", $2 }'; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"
	elif command -v sudo >/dev/null 2>&1; then sudo "$@"
	else die "need root to run: $*"
	fi
}

APT_GET=${APT_GET:-apt-get}
BREW=${BREW:-brew}

apt_lists_present() {
	ls /var/lib/apt/lists/ 2>/dev/null | grep -q '_Packages'
}

install_debian() {  # PACKAGES...
	command -v "$APT_GET" >/dev/null 2>&1 || die "no apt-get here; install by hand: $*"
	had_prom=$(dpkg-query -W -f='${Status}' prometheus 2>/dev/null | grep -c installed || true)
	had_ne=$(dpkg-query -W -f='${Status}' prometheus-node-exporter 2>/dev/null | grep -c installed || true)
	echo "deps.sh: installing with apt-get: $*"
	as_root env DEBIAN_FRONTEND=noninteractive "$APT_GET" update -qq
	as_root env DEBIAN_FRONTEND=noninteractive "$APT_GET" install -y -qq --no-install-recommends "$@"
	if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
		[ "$had_prom" = 1 ] || as_root systemctl disable --now prometheus >/dev/null 2>&1 || true
		[ "$had_ne" = 1 ] || as_root systemctl disable --now prometheus-node-exporter >/dev/null 2>&1 || true
	fi
}

simulate_debian() {  # PACKAGES...
	command -v "$APT_GET" >/dev/null 2>&1 || die "no apt-get here to simulate with"
	if ! apt_lists_present; then
		echo "deps.sh: apt has no package lists yet; running apt-get update"
		as_root env DEBIAN_FRONTEND=noninteractive "$APT_GET" update -qq
	fi
	echo "deps.sh: apt-get install -s --no-install-recommends $*"
	out=$("$APT_GET" install -s --no-install-recommends "$@" 2>&1) || {
		echo "$out" | sed 's/^/  /' >&2
		die "apt-get cannot install these packages together (its reason is above)"
	}
	n=$(echo "$out" | grep -c '^Inst ' || true)
	echo "deps.sh: apt-get would install $n packages; nothing was changed"
}

install_macos() {  # FORMULAE...
	command -v "$BREW" >/dev/null 2>&1 || die "Homebrew is needed: https://brew.sh"
	for f in "$@"; do
		case "$f" in
		chromium) "$BREW" install --cask chromium ;;
		*) "$BREW" install "$f" ;;
		esac
	done
}

cmd=${1:-install}
case "$cmd" in
--check)
	m=$(missing_names)
	[ -z "$m" ] || { echo "missing: $m"; exit 1; }
	exit 0 ;;
--list)
	echo "$TABLE" | awk 'NF { printf "%-4s %-15s debian: %-26s brew: %s\n", $1, $2, $4, $5 }'
	exit 0 ;;
--dry-run|install) ;;
-h|--help) sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'; exit 0 ;;
*) die "unknown option $cmd (see --help)" ;;
esac

m=$(missing_names)
if [ -z "$m" ]; then
	echo "deps.sh: all dependencies present"
	exit 0
fi
pkgs=$(packages | tr '\n' ' ' | sed 's/ $//')
echo "deps.sh: missing: $m"
echo "deps.sh: would install ($OS): ${pkgs:-nothing}"
if [ -z "$pkgs" ]; then
	die "nothing here installs: $m (install them by hand)"
fi
case "$OS:$cmd" in
debian:--dry-run|ubuntu:--dry-run) simulate_debian $pkgs; exit 0 ;;
*:--dry-run) exit 0 ;;
debian:install|ubuntu:install) install_debian $pkgs ;;
macos:install) install_macos $pkgs ;;
*) die "$(uname -s) is not supported; install by hand: $m" ;;
esac
m=$(missing_names)
[ -z "$m" ] || die "still missing after install: $m"
echo "deps.sh: all dependencies present"
