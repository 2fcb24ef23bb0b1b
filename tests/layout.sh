#!/usr/bin/env bash
# The source tree's layers, checked (README.md "Layout", the Makefile's
# INC_<folder>).  Each folder may include its own headers and those of the
# layers below it, never one above or beside it:
#
#   proto/util         logging, configuration files, natural sort, HTTP guard
#   proto              the wire format                      (+ proto/util)
#   agent              tbagentd                              (+ proto)
#   controller/engine  pure judgement: wiring, placement, rollout, lifecycle
#                                                            (+ proto)
#   controller/store   the inventory, registry, credentials (+ engine)
#   controller/run     what runs: ingest, monitors, rollouts (+ store)
#   controller/api     the HTTP API                          (+ run)
#   controller         tbcontrollerd's main, configuration, ticker (+ api)
#   controller/ctl     tbctl                                 (+ proto only)
#
# and each outside library is included by its one module only; the
# inventory's lock and transactions are taken in controller/store only.  Then the
# checker is shown to fail on a copy of the tree with one include moved up
# a layer, and the Makefile is shown to refuse to compile it.
#   tests/layout.sh [--count]   --count: print the cross-folder includes too
. "$(dirname "$0")/lib/common.sh"
shopt -s extglob
cd "$TOP" || exit 1

# folder -> the folders whose headers it may include, its own first
declare -A ALLOWED=(
	[proto/util]="proto/util"
	[proto]="proto proto/util"
	[agent]="agent proto proto/util"
	[controller/engine]="controller/engine proto proto/util"
	[controller/store]="controller/store controller/engine proto proto/util"
	[controller/run]="controller/run controller/store controller/engine proto proto/util"
	[controller/api]="controller/api controller/run controller/store controller/engine proto proto/util"
	[controller]="controller controller/api controller/run controller/store controller/engine proto proto/util"
	[controller/ctl]="controller/ctl proto proto/util"
)
FOLDERS=(proto/util proto agent controller/engine controller/store controller/run
	controller/api controller controller/ctl)

# library include pattern -> the files (shell patterns) that may include it
declare -A LIBS=(
	['sqlite3.h']='controller/store/*'
	['microhttpd.h']='proto/util/http_guard.h agent/httpd.c controller/api/api_server.c controller/api/api_static.c'
	['libssh/']='controller/run/ssh.c'
	['cjson/']='proto/+([a-z_]).[ch]'
	['curl/']='controller/ctl/ctl_http.c agent/push.c'
	['gnutls/']='controller/store/auth.c'
)

# layout_check ROOT: prints one line per include that breaks a rule; the
# number of cross-folder includes (allowed ones) goes to $ROOT.cross.
layout_check() {
	local root=$1 dir f inc d found owner cross=0 lib pat okf
	for dir in "${FOLDERS[@]}"; do
		for f in "$root/$dir"/*.[ch]; do
			[ -f "$f" ] || continue
			while IFS= read -r inc; do
				found=
				for d in ${ALLOWED[$dir]}; do
					if [ -f "$root/$d/$inc" ]; then found=$d; break; fi
				done
				if [ -z "$found" ]; then
					owner=
					for d in "${FOLDERS[@]}"; do
						[ -f "$root/$d/$inc" ] && owner=$d
					done
					echo "${f#"$root"/}: \"$inc\" is in ${owner:-no folder of the tree}, which $dir may not include"
				elif [ "$found" != "$dir" ]; then
					cross=$((cross + 1))
					[ -n "${COUNT:-}" ] && echo "  cross: $dir -> $found ($inc)" >&2
				fi
			done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
			for lib in "${!LIBS[@]}"; do
				grep -q "^[[:space:]]*#[[:space:]]*include[[:space:]]*<$lib" "$f" || continue
				okf=
				for pat in ${LIBS[$lib]}; do
					# shellcheck disable=SC2053 # pat is a pattern
					[[ ${f#"$root"/} == $pat ]] && okf=1
				done
				[ -n "$okf" ] || echo "${f#"$root"/}: includes <$lib...>, which only ${LIBS[$lib]} may"
			done
		done
	done
	echo "$cross" >"$root.cross"
}

[ "${1:-}" = --count ] && COUNT=1
out=$(layout_check "$TOP")
check_eq "no include goes up a layer or outside its library's module" "" "$out"
[ -n "$out" ] && echo "$out"
echo "cross-folder includes (downward, allowed): $(cat "$TOP.cross")"
rm -f "$TOP.cross"

# The inventory's lock and transactions belong to the store: elsewhere the
# inventory is reached through store_with/store_txn (store.h) only.
lock_check() {  # ROOT: the places that take the lock or open a transaction
	(cd "$1" && grep -rnE '\binv_(begin|commit|rollback)\(|store(\.|->)mu\b|inv_mu' \
		--include='*.[ch]' agent controller proto | grep -v '^controller/store/')
}
check_eq "only the store takes the inventory's lock or opens a transaction" "" "$(lock_check "$TOP")"

# Every source file is in one of the folders (a new folder gets a row above).
stray=$(find agent controller proto -name '*.[ch]' | while read -r f; do
	d=$(dirname "$f"); [ -n "${ALLOWED[$d]+x}" ] || echo "$f"; done)
check_eq "every source file is in a folder of the layout" "" "$stray"

# Each folder says what it holds and may include: a README.md.
for dir in "${FOLDERS[@]}"; do
	check "$dir/README.md says what the room holds" test -s "$dir/README.md"
done

# The checker fails on a tree with one include moved up a layer and one
# library included outside its module, and the Makefile refuses to compile
# the first.
# (outside $TMP: done_testing reads the files there for sanitizer reports)
copy=$(mktemp -d "${TMPDIR:-/tmp}/tbmesh-layout.XXXXXX")
layout_rm_copy() { rm -rf "$copy"; }
CLEANUP_HOOKS+=(layout_rm_copy)
cp -R Makefile agent controller proto "$copy"/
printf '#include "inventory.h"\n' >>"$copy/controller/engine/lifecycle.c"
printf '#include <sqlite3.h>\n' >>"$copy/controller/run/ingest.c"
bad=$(layout_check "$copy")
printf 'static void f(struct ctrl *c) { pthread_mutex_lock(&c->store.mu); }\n' \
	>>"$copy/controller/run/wmon.c"
check "and a lock taken by hand outside the store" grep -q '^controller/run/wmon.c:.*store.mu' \
	<<<"$(lock_check "$copy")"
check "the checker names an engine file including the store" \
	grep -q 'controller/engine/lifecycle.c: "inventory.h" is in controller/store' <<<"$bad"
check "the checker names SQLite included outside the store" \
	grep -q 'controller/run/ingest.c: includes <sqlite3.h' <<<"$bad"
printf '#include "ctrl.h"\n' >>"$copy/controller/ctl/ctl_parse.c"
if make -C "$copy" -s B="$TMP/b" "$TMP/b/controller/engine/lifecycle.o" >"$TMP/make.log" 2>&1; then
	not_ok "the Makefile compiled an engine file that includes the store"
else
	check "the Makefile refuses an engine file that includes the store" \
		grep -q 'inventory.h' "$TMP/make.log"
fi
if make -C "$copy" -s B="$TMP/b" "$TMP/b/controller/ctl/ctl_parse.o" >"$TMP/make2.log" 2>&1; then
	not_ok "the Makefile compiled a tbctl file that includes the daemon's ctrl.h"
else
	check "the Makefile refuses a tbctl file that includes the daemon's ctrl.h" \
		grep -q 'ctrl.h' "$TMP/make2.log"
fi
done_testing
