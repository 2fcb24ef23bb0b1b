#!/usr/bin/env bash
# tbagentd -n: a valid configuration passes; each kind of mistake is refused
# with exit 2 and a message that names the file, line or option.
. "$(dirname "$0")/../lib/common.sh"
A=$BIN/tbagentd

printf 'backend = linux\ninterval = 10\nlisten = 127.0.0.1:9469\n' >"$TMP/good.conf"
out=$("$A" -n -f "$TMP/good.conf" 2>&1); rc=$?
check_eq "-n on a good file exits 0" 0 $rc
check_eq "-n says so" "configuration OK" "$out"

refused() {  # description, expected text, args...
	local what=$1 want=$2; shift 2
	local out rc
	out=$("$A" -n "$@" 2>&1); rc=$?
	check_eq "$what: exit 2" 2 $rc
	case "$out" in *"$want"*) ok "$what: message names it" ;; *) not_ok "$what: '$out' lacks '$want'" ;; esac
}
printf 'backend = linux\nbogus = 1\n' >"$TMP/k.conf"
refused "unknown key" "k.conf:2: unknown key \"bogus\"" -f "$TMP/k.conf"
printf 'interval 5\n' >"$TMP/s.conf"
refused "line without =" "s.conf:1: expected" -f "$TMP/s.conf"
refused "missing file" "nofile.conf" -f "$TMP/nofile.conf"
refused "bad interval" "interval" --interval abc
refused "negative interval" "interval" --interval -1
refused "bad listen" "listen" --listen nonsense
refused "bad port" "listen" --listen 127.0.0.1:70000
refused "bad controller URL" "controller" --controller ftp://x
refused "unknown backend" "backend" --backend plan9
refused "sim without node" "--node" --backend sim --scenario x.json
refused "bad log level" "log-level" --log-level loud
touch "$TMP/boot"
refused "a node name the controller would refuse" "not a node name" \
	--controller http://127.0.0.1:9 --bootstrap-token-file "$TMP/boot" --name "bad name"
# settings the daemon could not use: -n and a start refuse them alike
refused "a CA file that is not there" "ca-file: /nonexistent: No such file" --ca-file /nonexistent
refused "a scenario that is not there" "scenario: /nonexistent: No such file" \
	--backend sim --scenario /nonexistent --node mac1
refused "a root that is not there" "root: /nonexistent: No such file" --root /nonexistent
refused "a root that is a file" "root: $TMP/good.conf: not a directory" --root "$TMP/good.conf"
refused "a --name the controller refuses, without a controller" "name: \"my mac\" is not a node name" \
	--name "my mac"
out=$("$A" -n --ca-file /nonexistent 2>&1)
check_eq "the reason on one line, then the hint" 2 "$(printf '%s\n' "$out" | wc -l)"
timeout 10 "$A" --listen 127.0.0.1:0 --ca-file /nonexistent >"$TMP/start.out" 2>&1; rc=$?
check_eq "a start with it exits 2 at once" 2 $rc
check "and says why" grep -q "ca-file: /nonexistent: No such file" "$TMP/start.out"
out=$("$A" -n --backend sim --scenario "$TOP/tests/scenarios/mesh4-studio.json" --node mac1 \
	--root / --ca-file "$TMP/good.conf" --name mac-1.lab 2>&1)
check_eq "paths that are there and a good name pass" "configuration OK" "$out"
out=$("$A" -n -f "$TMP/good.conf" --interval 2 2>&1)
check_eq "flags on top of a file" "configuration OK" "$out"
"$A" --help | grep -q -- '--bootstrap-token-file'; check_eq "--help documents the options" 0 $?
check_eq "--version" "tbagentd 0.1.0" "$("$A" --version)"
done_testing
