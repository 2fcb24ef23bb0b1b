#!/usr/bin/env bash
# Every option a program's --help lists is in its man page: tbagentd(8),
# tbcontrollerd(8) and tbctl(1), -V/--version and -h/--help included.  And
# the other way: every option a page of man/ sets as one (.Fl) is an option
# of tbagentd, tbcontrollerd or tbctl (its global options and each
# command's, from tbctl COMMAND --help), so that a page cannot keep an
# option a program no longer has.
. "$(dirname "$0")/../lib/common.sh"

# options PROGRAM [COMMAND...]: the options its --help names, one a line
options() {
	"$BIN/$1" "${@:2}" --help | grep -oE '(^|[][ ,(|])--?[A-Za-z][A-Za-z0-9-]*' |
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

# Every option of every tbctl command, from the commands tbctl --help lists.
"$BIN/tbctl" --help | sed -n '/^Commands:/,/^$/p' | grep -E '^  [a-z]' |
	awk '{ c = $1; if ($2 ~ /^[a-z][a-z-]*$/) c = c " " $2; print c }' | sort -u >"$TMP/cmds"
check "tbctl --help lists its commands" test "$(wc -l <"$TMP/cmds")" -gt 20
while read -r c; do
	# shellcheck disable=SC2086 # the command's words
	options tbctl $c
done <"$TMP/cmds" >"$TMP/tbctl-cmds.opts"
sort -u "$TMP"/*.opts >"$TMP/all-options"
for page in "$TOP"/man/*.[178]; do
	unknown=
	for o in $(grep -E '^\.' "$page" | grep -oE '(^\.|[ ])Fl [^ ]+' | awk '{ print "-" $2 }' | sort -u); do
		[ "$o" = -- ] && continue        # ".Fl -": the end of the options
		grep -qx -- "$o" "$TMP/all-options" || unknown="$unknown $o"
	done
	check_eq "every option ${page##*/} sets (.Fl) is one of tbagentd, tbcontrollerd or tbctl" "" "$unknown"
done
done_testing
