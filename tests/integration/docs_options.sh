#!/usr/bin/env bash
# Every option a program's --help lists is in its man page: tbagentd(8),
# tbcontrollerd(8) and tbctl(1), -V/--version and -h/--help included.
. "$(dirname "$0")/../lib/common.sh"

# options PROGRAM: the options its --help names, one a line
options() {
	"$BIN/$1" --help | grep -oE '(^|[][ ,(|])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[][ ,(|]*//' | sort -u
}

for pair in tbagentd:man/tbagentd.8 tbcontrollerd:man/tbcontrollerd.8 tbctl:man/tbctl.1; do
	prog=${pair%%:*} page=$TOP/${pair#*:}
	options "$prog" >"$TMP/$prog.opts"
	check "$prog --help names options" test "$(wc -l <"$TMP/$prog.opts")" -gt 3
	for o in -V --version -h --help; do
		check "$prog --help lists $o" grep -qx -- "$o" "$TMP/$prog.opts"
	done
	missing=
	while read -r o; do
		case "$o" in
		--*) pat="Fl -${o#--}([^a-z0-9-]|\$)" ;;
		*) pat="Fl ${o#-}([^A-Za-z0-9-]|\$)" ;;
		esac
		grep -qE -- "$pat" "$page" || missing="$missing $o"
	done <"$TMP/$prog.opts"
	check_eq "every option of $prog --help is in ${page##*/}" "" "$missing"
done
done_testing
