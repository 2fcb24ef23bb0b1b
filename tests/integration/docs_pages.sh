#!/usr/bin/env bash
# The manual pages and README.md say what is so.
#  - Every page of man/ is valid mdoc (mandoc -T lint at the warning level;
#    groff's warnings where mandoc is missing), its .Dt and .Nm are its file's
#    name, and every tbmesh page it refers to (.Xr) exists.
#  - Every section-7 page is named by README.md, by tbmesh(7) and in the SEE
#    ALSO of tbctl(1), tbagentd(8) and tbcontrollerd(8).
#  - What the pages and README.md name is there: every file of the tree;
#    every tbctl command (tbctl COMMAND --help exits 0) with the options it
#    is given; every option given to tbcontrollerd and tbagentd (in the
#    program's --help); every API route, with its method (the controller's
#    routes[] in controller/api/api_server.c, the agent's in agent/httpd.c);
#    every metric (a name in the agent's or the controller's sources); every
#    make target.  tbctl(1) has an entry for every command of tbctl --help,
#    and for no other.
#  - README.md is a front door (at most 150 lines) with the two commands,
#    a Layout table with a row per folder (each folder there), and
#    transcripts that are run against make demo's cluster, in order (its
#    "On the demo", then "Running a model": a model run on the demo's
#    simulated Macs, whose commands are the ones the demo prints): each
#    command (tbctl, or curl to a job's endpoint) exits 0 and prints the
#    lines shown, in order, "..." standing for lines left out and numbers
#    that change from run to run (memory, power, age, pids) aside; after
#    tbctl run, the next command waits until every job is running and its
#    ranks have been read by their agents (the job's READ BY).
# Code is what the pages set as code (.Ic, .Ql, .Li, .Dl and literal
# displays) and what README.md puts between backquotes or in code blocks.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1

PAGES=(man/*.[178])
SEVEN=(man/*.7)
README=README.md
[ -f "${PAGES[0]}" ] || skip_all "no manual pages in man/"
for p in tbctl tbagentd tbcontrollerd; do
	[ -x "$BIN/$p" ] || skip_all "$BIN/$p is not built (make B=$B)"
done

# lint PAGE: the page's mdoc problems, nothing when there are none.
# render PAGE: the page as plain text, paragraphs on as few lines as fit.
if command -v mandoc >/dev/null 2>&1; then
	LINTER="mandoc -T lint -W warning"
	lint() { mandoc -T lint -W warning "$1" 2>&1; }
	render() { mandoc -T ascii -O width=1000 "$1" 2>/dev/null | sed $'s/.\b//g'; }
elif command -v groff >/dev/null 2>&1; then
	LINTER="groff -mdoc -ww (mandoc is missing)"
	lint() { groff -mdoc -Tascii -ww -z "$1" 2>&1; }
	render() { groff -mdoc -Tascii -P-cbou -rLL=1000n "$1" 2>/dev/null | sed $'s/.\b//g'; }
else
	skip_all "neither mandoc nor groff to read the pages with (packaging/deps.sh installs mandoc)"
fi
echo "# linting with $LINTER"

# --- the pages themselves --------------------------------------------------
for f in "${PAGES[@]}"; do
	base=${f##*/} name=${base%.*} sec=${base##*.}
	check_eq "$f is valid mdoc ($LINTER)" "" "$(lint "$f")"
	upper=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
	check "$f: .Dt is $upper $sec" grep -qx "\.Dt $upper $sec" "$f"
	check "$f: .Nm in NAME is $name" sh -c "sed -n '/^\.Sh NAME/,/^\.Nd/p' '$f' | grep -qx '\.Nm $name'"
	bad=
	for x in $(grep -E '^\.' "$f" | grep -oE '(^\.|[ ])Xr [A-Za-z0-9_.-]+ [0-9]' |
		awk '{ print $2 "." $3 }' | sort -u); do
		case "$x" in tbmesh*|tbctl.*|tbagentd.*|tbcontrollerd.*) [ -f "man/$x" ] || bad="$bad $x" ;; esac
	done
	check_eq "every tbmesh page $f refers to (.Xr) is in man/" "" "$bad"
done

bad=
for x in $(grep -oE '(tbmesh[a-z-]*|tbctl|tbagentd|tbcontrollerd)\([0-9]\)' "$README" | sort -u); do
	n=${x%(*} sec=${x#*(}
	[ -f "man/$n.${sec%)}" ] || bad="$bad $x"
done
check_eq "every page $README names is in man/" "" "$bad"

# --- section 7: referred to from the front door and the programs' pages -----
check "there are section-7 pages (man/tbmesh*.7)" test -f "${SEVEN[0]}"
# in_see_also PAGE NAME: PAGE's SEE ALSO has .Xr NAME 7.
in_see_also() { sed -n '/^\.Sh SEE ALSO/,/^\.Sh /p' "$1" | grep -qE "^\.Xr $2 7( ,)?\$"; }
for f in "${SEVEN[@]}"; do
	base=${f##*/} name=${base%.7}
	check "$README names $name(7)" grep -qF "$name(7)" "$README"
	for p in man/tbctl.1 man/tbagentd.8 man/tbcontrollerd.8; do
		check "${p#man/}'s SEE ALSO names $name(7)" in_see_also "$p" "$name"
	done
	[ "$f" = man/tbmesh.7 ] ||
		check "tbmesh(7) lists $name(7)" grep -qx "\.It Xr $name 7" man/tbmesh.7
done

# --- what the programs offer -------------------------------------------------
# help_opts OUTPUT-FILE: the options a --help text names, one a line.
help_opts() { grep -oE '(^|[][ ,(|])--?[A-Za-z][A-Za-z0-9-]*' "$1" | sed 's/^[][ ,(|]*//' | sort -u; }
mkdir -p "$TMP/help"
for p in tbcontrollerd tbagentd; do
	"$BIN/$p" --help >"$TMP/help/$p" 2>&1
	help_opts "$TMP/help/$p" >"$TMP/help/$p.opts"
	check "$p --help names its options" test -s "$TMP/help/$p.opts"
done
"$BIN/tbctl" --help >"$TMP/help/tbctl" 2>&1
# tbctl's commands: the lowercase words that open each line of "Commands:"
sed -n '/^Commands:/,/^$/p' "$TMP/help/tbctl" | grep -E '^  [a-z]' |
	awk '{ c = $1; if ($2 ~ /^[a-z][a-z-]*$/) c = c " " $2; print c }' | sort -u >"$TMP/cmds"
check "tbctl --help lists its commands" test "$(wc -l <"$TMP/cmds")" -gt 20
GLOBAL_OPTS="--url --token-file --ca-file --json -h --help -V --version"

# cmd_help CMD: tbctl CMD --help, kept in $TMP/help/CMD; status as tbctl's.
cmd_help() {
	local f=$TMP/help/tbctl-${1// /_}
	# shellcheck disable=SC2086 # the command's words
	[ -f "$f.rc" ] || { "$BIN/tbctl" $1 --help >"$f" 2>&1; echo $? >"$f.rc"; help_opts "$f" >"$f.opts"; }
	return "$(cat "$f.rc")"
}

# tbctl(1) has an entry (.It Cm WORDS, or .Cm WORDS after .It Xo) for every
# command of tbctl --help and for no other.
awk '/^\.It Cm / { sub(/^\.It /, ""); print; next } prev ~ /^\.It Xo/ && /^\.Cm / { print } { prev = $0 }' man/tbctl.1 |
	awk '{ c = $2; if ($3 ~ /^[a-z][a-z-]*$/) c = c " " $3; print c }' | sort -u >"$TMP/page-cmds"
# The verdicts in tbmesh-wiring(7) are proto's list, in its order, with its
# meanings: what tbctl wiring check --help prints (wiring_verdict_help).
"$BIN/tbctl" wiring check --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *\([^-].*\)$/\1 \2/p' >"$TMP/verdicts.help"
sed -n '/^\.Ss Verdicts/,/^\.El/p' man/tbmesh-wiring.7 |
	awk '/^\.It Cm / { w = $3; next } w != "" { sub(/\.$/, ""); print w " " $0; w = "" }' \
	>"$TMP/verdicts.page"
check "tbctl wiring check --help lists verdicts" test "$(wc -l <"$TMP/verdicts.help")" -ge 10
check_eq "tbmesh-wiring(7)'s verdicts are tbctl wiring check --help's, in order" \
	"$(cat "$TMP/verdicts.help")" "$(cat "$TMP/verdicts.page")"
check_eq "every command of tbctl --help has an entry in tbctl(1)" "" \
	"$(comm -23 "$TMP/cmds" "$TMP/page-cmds" | tr '\n' ',' | sed 's/,$//')"
check_eq "every command tbctl(1) has an entry for is one of tbctl --help" "" \
	"$(comm -13 "$TMP/cmds" "$TMP/page-cmds" | tr '\n' ',' | sed 's/,$//')"

# --- code in the pages and in README.md --------------------------------------
# mdoc_code PAGE: "PAGE:LINE<TAB>text" for each line of code: literal
# displays (a line ending in a backslash joined to the next), and a macro
# line from its first .Ic, .Ql, .Li or .Dl on, macros dropped (Fl x: -x).
mdoc_code() {
	awk '
	/^\.Bd .*-literal/ { lit = 1; next }
	/^\.Ed/ { lit = 0; cont = ""; next }
	lit {
		l = $0; gsub(/\\e/, "\\", l); gsub(/\\&/, "", l)
		if (cont != "") l = cont " " l
		if (l ~ /\\$/) { cont = substr(l, 1, length(l) - 1); next }
		cont = ""; print FILENAME ":" FNR "\t" l; next
	}
	/^\./ {
		n = split(substr($0, 2), w, /[ \t]+/); out = ""; on = 0; fl = 0; ns = 0
		for (i = 1; i <= n; i++) {
			t = w[i]
			if (!on) { if (t ~ /^(Ic|Ql|Li|Dl)$/) on = 1; continue }
			if (t ~ /^(Ic|Ql|Li|Dl|Ar|Cm|Op|Oo|Oc|Pq|Po|Pc|Ns|No|Xo|Xc|Dq|Sq|Pf|Em|Sy|Ev|Pa|Fn|Va|Fl|Xr|Nm)$/) {
				if (t == "Fl") fl = 1
				if (t == "Ns") ns = 1
				continue
			}
			gsub(/\\&/, "", t); gsub(/\\e/, "\\", t)
			if (fl) { t = "-" t; fl = 0 }
			out = out ((out == "" || ns) ? "" : " ") t; ns = 0
		}
		if (on) print FILENAME ":" FNR "\t" out
	}' "$1"
}
# md_code FILE: "FILE:LINE<TAB>text" for each code span and code block line
# ("$ " before a command dropped).
md_code() {
	awk '
	/^```/ { blk = !blk; next }
	blk { l = $0; sub(/^\$ /, "", l); print FILENAME ":" FNR "\t" l; next }
	{
		l = $0
		while (match(l, /`[^`]+`/)) {
			print FILENAME ":" FNR "\t" substr(l, RSTART + 1, RLENGTH - 2)
			l = substr(l, RSTART + RLENGTH)
		}
	}' "$1"
}
{
	for f in "${PAGES[@]}"; do mdoc_code "$f"; done
	md_code "$README"
} >"$TMP/code"
check "the pages and $README hold code to check" test "$(wc -l <"$TMP/code")" -gt 100

# The commands in the code: "PROGRAM<TAB>WHERE<TAB>WORDS<TAB>OPTIONS" for
# tbctl, tbcontrollerd, tbagentd and make, each up to the end of its
# command (; && || > < # or another program; a | before a word that is no
# option).  tbctl: WORDS are its first two lowercase words after its global
# options; make: WORDS is the target.
awk -F '\t' '
function prog(t) {
	sub(/^[$(]+/, "", t); sub(/^.*\//, "", t)
	return (t == "tbctl" || t == "tbcontrollerd" || t == "tbagentd" || t == "make") ? t : ""
}
function opt(t) {
	gsub(/[][(){}]/, "", t); sub(/=.*/, "", t); sub(/[,;.:]+$/, "", t)
	return t ~ /^--?[A-Za-z][A-Za-z0-9-]*$/ ? t : ""
}
{
	n = split($2, w, /[ \t]+/)
	for (i = 1; i <= n; i++) {
		p = prog(w[i]); if (p == "") continue
		if (w[i] ~ /[,;:]$/) continue          # "tbctl:", a message
		words = ""; opts = ""; nw = 0; skipv = 0; target = ""
		for (j = i + 1; j <= n; j++) {
			t = w[j]
			if (t ~ /^(;|&&|\|\||>|>>|<|#)/ || prog(t) != "") break
			if (t == "|" && j < n && w[j + 1] !~ /^-/) break
			if (skipv) { skipv = 0; continue }
			o = opt(t)
			if (o != "") {
				if (p == "tbctl" && nw == 0 && (o == "--url" || o == "--token-file" || o == "--ca-file") && t !~ /=/) skipv = 1
				if (p == "tbctl" && nw == 0 && (skipv || o == "--json" || t ~ /=/)) continue
				if (p == "make") continue
				opts = opts " " o
			} else if (p == "tbctl" && nw < 2 && opts == "" && t ~ /^[a-z][a-z0-9-]*$/) {
				words = words (nw ? " " : "") t; nw++
			} else if (p == "tbctl") {
				nw = 2
			} else if (p == "make" && target == "" && t ~ /^[a-z][a-z0-9-]*$/ && t !~ /=/) {
				target = t
			}
			if (t ~ /;$/) break
		}
		if (p == "make") words = (target == "" ? "all" : target)
		print p "\t" $1 "\t" (words == "" ? "-" : words) "\t" (opts == "" ? "-" : opts)
	}
}' "$TMP/code" | sort -u >"$TMP/uses"
check "the code names tbctl commands" grep -q '^tbctl	' "$TMP/uses"

# tbctl: each command is one of tbctl --help and its --help exits 0; each
# option is one its --help names, or a global one.
bad=
while IFS=$'\t' read -r _ where words opts; do
	[ "$opts" != - ] || opts=
	if [ "$words" = - ]; then     # tbctl alone, or with global options
		for o in $opts; do
			case " $GLOBAL_OPTS " in *" $o "*) ;; *) bad="$bad
  $where: tbctl $o: not a global option of tbctl" ;; esac
		done
		continue
	fi
	read -r w1 w2 <<<"$words"
	if grep -qx "$w1 $w2" "$TMP/cmds"; then cmd="$w1 $w2"
	elif grep -qx "$w1" "$TMP/cmds"; then cmd=$w1
	elif [ -z "$w2" ] && grep -q "^$w1 " "$TMP/cmds"; then cmd=$w1   # a group: "tbctl node --help"
	else bad="$bad
  $where: tbctl $words: no such command (tbctl --help)"; continue
	fi
	if ! cmd_help "$cmd"; then
		bad="$bad
  $where: tbctl $cmd --help exits $(cat "$TMP/help/tbctl-${cmd// /_}.rc")"; continue
	fi
	for o in $opts; do
		case " $GLOBAL_OPTS " in *" $o "*) continue ;; esac
		grep -qx -- "$o" "$TMP/help/tbctl-${cmd// /_}.opts" ||
			bad="$bad
  $where: tbctl $cmd $o: not an option of tbctl $cmd (its --help)"
	done
done < <(grep '^tbctl	' "$TMP/uses")
check_eq "every tbctl command the pages and $README name is one, with its options" "" "$bad"

bad=
while IFS=$'\t' read -r p where _ opts; do
	[ "$opts" != - ] || opts=
	for o in $opts; do
		grep -qx -- "$o" "$TMP/help/$p.opts" || bad="$bad
  $where: $p $o: not in $p --help"
	done
done < <(grep -E '^(tbcontrollerd|tbagentd)	' "$TMP/uses")
check_eq "every option the pages and $README give tbcontrollerd or tbagentd is in its --help" "" "$bad"

bad=
for t in $(grep '^make	' "$TMP/uses" | cut -f3 | sort -u); do
	make --no-print-directory -n -s B="$B" "$t" >/dev/null 2>"$TMP/make.err" ||
		bad="$bad
  make $t ($(grep '^make	' "$TMP/uses" | awk -F '\t' -v t="$t" '$3 == t { print $2 }' | tr '\n' ' '))"
done
check_eq "every make target the pages and $README name is one (make -n)" "" "$bad"
for t in demo check; do
	check "$README gives the command make $t" grep -q "^make $t " "$README"
done

# --- the text of the pages and README.md ------------------------------------
{
	for f in "${PAGES[@]}"; do render "$f" | sed "s|^|$f: |"; done
	sed "s|^|$README: |" "$README"
} >"$TMP/text"

# Files of the tree: paths under its folders (a glob is fine), and the
# tests, scripts and sources named by their file name alone.
find agent controller proto web tests packaging data man -name node_modules -prune -o -type f -print 2>/dev/null |
	sed 's|.*/||' | sort -u >"$TMP/basenames"
# "FILE<TAB>P|B<TAB>NAME": a path (P) or a file name alone (B) in the text.
awk '{
	f = $0; sub(/: .*/, "", f); t = substr($0, length(f) + 3)
	s = t
	while (match(s, /(^|[^A-Za-z0-9_.\/$~-])(agent|controller|proto|web|tests|packaging|data|man)\/[A-Za-z0-9_.\/*-]*/)) {
		tok = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		sub(/^[^a-z]/, "", tok); sub(/[.,;:]+$/, "", tok); print f "\tP\t" tok
	}
	s = t
	while (match(s, /(^|[ (`])[A-Za-z0-9_*-]+\.(sh|c|h)([] ,.;:)`]|$)/)) {
		tok = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		sub(/^[ (`]/, "", tok); sub(/[] ,.;:)`]+$/, "", tok); print f "\tB\t" tok
	}
}' "$TMP/text" | sort -u >"$TMP/files-named"
bad=
while IFS=$'\t' read -r where kind p; do
	if [ "$kind" = P ]; then
		compgen -G "$p" >/dev/null || bad="$bad
  $where: $p"
	else
		grep -qx -- "$(sed 's/[.]/[.]/g; s/[*]/.*/g' <<<"$p")" "$TMP/basenames" || bad="$bad
  $where: $p"
	fi
done <"$TMP/files-named"
check_eq "every file the pages and $README name is in the tree" "" "$bad"

# Metrics: every tbmesh_ name (a * standing for any part) is one the
# programs' sources name.
grep -rhoE '"tbmesh_[a-z_]+' agent controller proto | tr -d '"' | sort -u >"$TMP/metric-names"
check "the sources name their metrics" test "$(wc -l <"$TMP/metric-names")" -gt 20
bad=
while IFS= read -r line; do
	for m in $(grep -oE 'tbmesh_[a-z_*]*[a-z]' <<<"${line#*: }"); do
		grep -qxE "$(sed 's/[*]/[a-z_]+/g' <<<"$m")" "$TMP/metric-names" || bad="$bad
  ${line%%: *}: $m"
	done
done < <(grep 'tbmesh_' "$TMP/text")
check_eq "every metric the pages and $README name is one the programs export" "" "$(sort -u <<<"$bad")"

# API routes: the controller's route table and the agent's paths, as
# "METHOD REGEX" lines; a path named is one of them, with the method before
# it when one is given.
awk '/^} routes\[\] = \{/ { on = 1; next } on && /^};/ { on = 0 }
	on && match($0, /\{ *"[A-Z]+", *"[^"]*", *(NULL|"[^"]*")/) {
		split(substr($0, RSTART + 1, RLENGTH - 1), f, /, */)
		m = f[1]; pre = f[2]; suf = f[3]; gsub(/"/, "", m); gsub(/"/, "", pre); gsub(/"/, "", suf)
		print m " ^" pre (suf == "NULL" ? "" : "[^/]+" suf) "$"
	}' controller/api/api_server.c >"$TMP/routes"
check "controller/api/api_server.c's routes[] read (more than 20 routes)" test "$(wc -l <"$TMP/routes")" -gt 20
sed -n 's/^[[:space:]]*{ *"\(\/[^"]*\)", *HTTPD_.*/\1/p' agent/httpd.c | while read -r p; do
	echo "GET ^$p\$"; echo "HEAD ^$p\$"
done >>"$TMP/routes"
check "agent/httpd.c's paths read" grep -q '^GET \^/v1/report\$$' "$TMP/routes"
bad=
while IFS= read -r line; do
	where=${line%%: *}
	read -ra w <<<"${line#*: }"
	for ((i = 0; i < ${#w[@]}; i++)); do
		p=${w[i]}
		p=${p#(}
		case "$p" in /v1/*|/healthz*|/metrics*) ;; *) continue ;; esac
		p=${p%%\?*}
		p=$(sed -E 's/[],.;:)]+$//' <<<"$p")
		case "$p" in /healthz|/metrics|/v1/*) ;; *) continue ;; esac
		methods=
		if [ "$i" -gt 0 ]; then
			m=${w[i - 1]%,}
			[[ "$m" =~ ^(GET|POST|PUT|DELETE|HEAD)(\|(GET|POST|PUT|DELETE|HEAD))*$ ]] && methods=${m//|/ }
		fi
		# the path, with each method named before it (any when none is)
		for m in ${methods:-any}; do
			ok=
			while read -r rm re; do
				[ "$m" = any ] || [ "$m" = "$rm" ] || continue
				[[ "$p" =~ $re ]] && { ok=1; break; }
			done <"$TMP/routes"
			[ -n "$ok" ] || bad="$bad
  $where: ${methods:+$m }$p"
		done
	done
done < <(grep -E '/v1/|/healthz|/metrics' "$TMP/text")
check_eq "every API route the pages and $README name is in a route table, with its method" "" "$(sort -u <<<"$bad")"

# --- README.md: a front door ----------------------------------------------------
lines=$(wc -l <"$README")
check "$README is a front door: $lines lines, at most 150 (the reference is in man/)" test "$lines" -le 150
# The Layout table: a row per folder (the top level's, and each that has a
# README.md), each row a folder that exists.
sed -n '/^## Layout/,/^## /p' "$README" | sed -n 's/^| `\([^`]*\)\/` |.*/\1/p' | sort -u >"$TMP/layout"
check "$README has a Layout table" test -s "$TMP/layout"
bad=
for d in $(find agent controller proto -name README.md | sed 's|/README.md$||') \
	$(git ls-files 2>/dev/null | sed -n 's|^\([^./][^/]*\)/.*|\1|p' | sort -u); do
	grep -qx "$d" "$TMP/layout" || bad="$bad $d/"
done
check_eq "every folder has a row in $README's Layout table" "" "$bad"
bad=
while read -r d; do [ -d "$d" ] || bad="$bad $d/"; done <"$TMP/layout"
check_eq "every folder of $README's Layout table exists" "" "$bad"

# --- README.md's transcript, on make demo's cluster -------------------------------
# Its commands: the "$ build/tbctl ..." and "$ curl ..." lines of its code
# blocks, each followed by what it prints.
awk '/^```/ { blk = !blk; next } blk' "$README" >"$TMP/blocks"
check "$README's transcript runs tbctl nodes, wiring check and place" sh -c \
	"grep -q '^\\\$ build/tbctl nodes\$' '$TMP/blocks' && grep -q '^\\\$ build/tbctl wiring check ' '$TMP/blocks' && grep -q '^\\\$ build/tbctl place ' '$TMP/blocks'"
sed -n '/^## Running a model$/,/^## /p' "$README" | awk '/^```/ { blk = !blk; next } blk' >"$TMP/run-blocks"
bad=
for c in 'build/tbctl place .* --apply' 'build/tbctl run ' 'build/tbctl jobs' \
	'curl .*/v1/completions' 'build/tbctl job show ' 'build/tbctl job stop '; do
	grep -q "^\\\$ $c" "$TMP/run-blocks" || bad="$bad, $c"
done
check_eq "$README's \"Running a model\" runs place --apply, run, jobs, a completion, job show and stop" \
	"" "${bad#, }"
bg_start "$TMP/demo.out" env DEMO_SECONDS=300 DEMO_PIDFILE="$TMP/demo.pids" B="$B" bash packaging/demo.sh
demo=$BG_PID
if wait_for "the demo to print what to try" 60 grep -q '^Try' "$TMP/demo.out"; then
	TBCTL_URL=$(sed -n 's/^Controller: *\(http[^ ]*\).*/\1/p' "$TMP/demo.out")
	TBCTL_TOKEN_FILE=$(sed -n 's/.*export TBCTL_URL=[^ ]* TBCTL_TOKEN_FILE=\([^ ]*\).*/\1/p' "$TMP/demo.out")
	export TBCTL_URL TBCTL_TOKEN_FILE
	check_eq "$README's export line is the one the demo prints" \
		"$(sed -n 's/^ *export /export /p' "$TMP/demo.out" | sed 's/=[^ ]*/=/g')" \
		"$(sed -n 's/^\$ export /export /p' "$TMP/blocks" | sed 's/=[^ ]*/=/g')"
	# what the demo prints to try, as README.md writes it (build/tbctl)
	demo_cmds=$(sed -n -e "s|^  $B/tbctl |build/tbctl |p" -e 's/^  curl /curl /p' "$TMP/demo.out")
	n=0
	while IFS= read -r cmd; do
		n=$((n + 1))
		awk -v c="$cmd" '$0 == c { on = 1; next } on && /^\$ / { exit } on' "$TMP/blocks" >"$TMP/shown.$n"
		if grep -qxF -- "$cmd" "$TMP/run-blocks"; then
			check "${cmd#\$ }: as the demo prints it" grep -qxF -- "${cmd#\$ }" <<<"$demo_cmds"
		fi
		case $cmd in
		'$ curl '*)
			timeout 20 bash -c "${cmd#\$ }" >"$TMP/got.$n" 2>&1 ;;
		*)
			read -ra args <<<"${cmd#\$ build/tbctl }"
			"$BIN/tbctl" "${args[@]}" >"$TMP/got.$n" 2>&1 ;;
		esac
		check_eq "${cmd#\$ } exits 0 on the demo" 0 $?
		case $cmd in
		'$ build/tbctl run '*)
			wait_for "every job of the demo running, its ranks read by their agents" 30 \
				sh -c "'$BIN/tbctl' jobs --json | jq -e '[.jobs[] | select(.state != \"running\" or
					any(.ranks[]; .seen_by != \"agent\"))] | length == 0'" ||
				not_ok "the job ${cmd#\$ } started did not run within 30 s" ;;
		esac
		missing=$(awk '
		function vol(s) { return s ~ /^[0-9][0-9.]*[A-Za-z]*(\/[0-9][0-9.]*[A-Za-z]*)?$/ }
		function same(e, a,   ne, na, fe, fa, k) {
			if (e == a) return 1
			if (e ~ /\.\.\.$/) { sub(/ *\.\.\.$/, "", e); return index(a, e) == 1 }
			ne = split(e, fe); na = split(a, fa)
			if (ne != na) return 0
			for (k = 1; k <= ne; k++) if (fe[k] != fa[k] && !(vol(fe[k]) && vol(fa[k]))) return 0
			return 1
		}
		FNR == NR { if ($0 != "") got[++ng] = $0; next }
		$0 == "" || $0 == "..." { next }
		{
			ne++
			for (k = j + 1; k <= ng; k++) if (same($0, got[k])) break
			if (k > ng || (ne == 1 && k != 1)) { print "  " $0; next }
			j = k
		}' "$TMP/got.$n" "$TMP/shown.$n")
		check_eq "${cmd#\$ } prints what $README shows, in order (not found:)" "" "$missing"
		[ -z "$missing" ] || sed 's/^/# got: /' "$TMP/got.$n" | head -n 40
	done < <(grep -E '^\$ (build/tbctl|curl) ' "$TMP/blocks")
	check "the transcript ran its commands" test "$n" -ge 9
else
	not_ok "the demo did not start"; sed 's/^/# /' "$TMP/demo.out"
fi
bg_stop "$demo"
# done_testing looks for sanitizer reports in $TMP: the pages' text, which
# names the sanitizers, goes first.
rm -rf "$TMP/text" "$TMP/code" "$TMP/help" "$TMP/blocks" "$TMP/run-blocks" "$TMP"/shown.* \
	"$TMP"/got.*
done_testing
