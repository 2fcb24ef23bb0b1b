#!/usr/bin/env bash
# Another process reading the inventory while tbcontrollerd runs (sqlite3,
# as operators and these tests do) takes nothing from it: the controller
# keeps its locks on the file, its WAL is not deleted under it, and what it
# acknowledged after the read survives kill -9.
. "$(dirname "$0")/../lib/common.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 (the command) not installed"
CTL=$BIN/tbctl

start_controller readers
"$CTL" cluster create alpha >/dev/null
check_eq "a reader sees the first cluster" alpha "$(sqlite3 "$CTRL_DB" 'SELECT name FROM clusters')"
# /proc/locks: "1: POSIX ADVISORY READ PID MAJOR:MINOR:INODE START END"
locked() {
	awk -v p="$CTRL_PID" -v i="$(stat -c %i "$CTRL_DB")" \
		'$5 == p && $6 ~ ":" i "$" {n++} END {exit !n}' /proc/locks
}
check "the controller holds a lock on its inventory" locked
"$CTL" cluster create beta >/dev/null
"$CTL" cluster create gamma >/dev/null
check "no file the controller has open was deleted (its WAL, its -shm)" \
	sh -c "! ls -l /proc/$CTRL_PID/fd | grep -q '(deleted)'"
check_eq "a second read sees all three" "alpha beta gamma" \
	"$(sqlite3 "$CTRL_DB" 'SELECT name FROM clusters ORDER BY name' | tr '\n' ' ' | sed 's/ $//')"
kill -KILL "$CTRL_PID"
wait "$CTRL_PID" 2>/dev/null
bg_forget "$CTRL_PID"
CTRL_DB_OVERRIDE=$CTRL_DB start_controller readers2
export TBCTL_TOKEN_FILE=$TMP/readers.admin-token   # the first start's: no new one is made
check_eq "after kill -9 every acknowledged cluster is there" "alpha beta gamma" \
	"$("$CTL" clusters --json | jq -r '[.clusters[].name] | sort | join(" ")')"
check_eq "integrity_check is ok" ok "$(sqlite3 "$CTRL_DB" 'PRAGMA integrity_check')"
done_testing
