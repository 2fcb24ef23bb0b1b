#!/bin/sh
# Installs what tbmesh needs to build, test and benchmark, with apt-get on
# Debian/Ubuntu or brew on macOS.  Installs only what is missing.
#   packaging/deps.sh           install what is missing
#   packaging/deps.sh --check   exit 0 if nothing is missing, else list it
#
# On a Debian host with systemd, the services that the prometheus and
# prometheus-node-exporter packages start on install are stopped and
# disabled again: tbmesh only uses their binaries (promtool, and
# node_exporter as the benchmark's peer).
set -eu

PKGCONFIG_MODULES="libmicrohttpd libcurl libcjson cmocka sqlite3 libssh gnutls"
# NAME:ALT...: found when one of the commands is; reported as NAME.
# coreutils: tests/run.sh's time limit (timeout; gtimeout from brew).
COMMANDS="cc make pkg-config curl jq openssl promtool prometheus-node-exporter:node_exporter sqlite3
          coreutils:timeout:gtimeout node npm"
# chromium: the dashboard's browser tests and benchmark (tests/browser/),
# driven by playwright-core from npm (installed there by npm ci).
case "$(uname -s)" in
Darwin) COMMANDS="$COMMANDS chromium:/Applications/Chromium.app/Contents/MacOS/Chromium" ;;
*) COMMANDS="$COMMANDS chromium" ;;
esac
# ip (iproute2): only on Linux; macOS has no such command, and brew does not install it.
case "$(uname -s)" in Linux) COMMANDS="$COMMANDS ip" ;; esac

missing_modules() {
	command -v pkg-config >/dev/null 2>&1 || { echo "$PKGCONFIG_MODULES"; return; }
	for m in $PKGCONFIG_MODULES; do
		pkg-config --exists "$m" || printf '%s ' "$m"
	done
}

missing_commands() {
	for spec in $COMMANDS; do
		found=
		for c in $(echo "$spec" | tr ':' ' '); do
			command -v "$c" >/dev/null 2>&1 && found=1
		done
		[ -n "$found" ] || printf '%s ' "${spec%%:*}"
	done
}

if [ "${1:-}" = "--check" ]; then
	m="$(missing_modules)$(missing_commands)"
	if [ -n "$m" ]; then
		echo "missing: $m"
		exit 1
	fi
	exit 0
fi

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"
	elif command -v sudo >/dev/null 2>&1; then sudo "$@"
	else echo "deps.sh: need root to run: $*" >&2; exit 1
	fi
}

install_debian() {
	pkgs="build-essential pkg-config libmicrohttpd-dev libcjson-dev libcmocka-dev
	      libsqlite3-dev sqlite3 libssh-dev libgnutls28-dev curl jq openssl iproute2 procps
	      prometheus prometheus-node-exporter openssh-server openssh-client
	      chromium nodejs npm"
	# libcurl: keep whichever TLS flavour is there; prefer the GnuTLS one,
	# which libmicrohttpd already loads.
	pkg-config --exists libcurl 2>/dev/null || pkgs="$pkgs libcurl4-gnutls-dev"
	had_prom=$(dpkg-query -W -f='${Status}' prometheus 2>/dev/null | grep -c installed || true)
	had_ne=$(dpkg-query -W -f='${Status}' prometheus-node-exporter 2>/dev/null | grep -c installed || true)
	echo "deps.sh: installing with apt-get: $(echo $pkgs)"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs
	if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
		[ "$had_prom" = 1 ] || as_root systemctl disable --now prometheus >/dev/null 2>&1 || true
		[ "$had_ne" = 1 ] || as_root systemctl disable --now prometheus-node-exporter >/dev/null 2>&1 || true
	fi
}

install_macos() {
	command -v brew >/dev/null 2>&1 || { echo "deps.sh: Homebrew is needed: https://brew.sh" >&2; exit 1; }
	brew install pkg-config libmicrohttpd curl cjson cmocka sqlite libssh gnutls jq prometheus node_exporter \
		coreutils node
	[ -x /Applications/Chromium.app/Contents/MacOS/Chromium ] || brew install --cask chromium
}

case "$(uname -s)" in
Darwin) install_macos ;;
Linux)
	if command -v apt-get >/dev/null 2>&1; then install_debian
	else echo "deps.sh: no apt-get here; install by hand: $(missing_modules)$(missing_commands)" >&2; exit 1
	fi ;;
*) echo "deps.sh: $(uname -s) is not supported" >&2; exit 1 ;;
esac
m="$(missing_modules)$(missing_commands)"
if [ -n "$m" ]; then
	echo "deps.sh: still missing after install: $m" >&2
	exit 1
fi
echo "deps.sh: all dependencies present"
