#!/usr/bin/env bash
# SIGTERM while agents report: the controller stops taking connections,
# stores and answers every queued report, and exits 0; every report it
# acknowledged is in the inventory afterwards.
. "$(dirname "$0")/../lib/common.sh"
LG=$BIN/tests/bench/loadgen
start_controller stop
"$LG" setup "$CTRL_URL" "$ADMIN_TOKEN_FILE" 30 "$TMP/tokens" >"$TMP/setup.log" 2>&1
check_eq "30 simulated nodes enrolled" 30 "$(wc -l <"$TMP/tokens")"
"$LG" run "$CTRL_URL" "$TMP/tokens" --seconds 6 --concurrency 30 --ack-log "$TMP/acks" \
	>"$TMP/run.log" 2>&1 &
lg=$!
wait_for "reports flowing" 10 test -s "$TMP/acks"
sleep 1
kill -TERM "$CTRL_PID"
wait "$CTRL_PID"; rc=$?
check_eq "the controller exits 0 on SIGTERM under load" 0 "$rc"
check "no fatal error in its log" sh -c "! grep -qi 'fatal' '$CTRL_LOG'"
wait "$lg" 2>/dev/null
check_eq "integrity" ok "$(sqlite3 "$CTRL_DB" 'PRAGMA integrity_check')"
# every acknowledged report is stored: per node, the stored collected_at is the last acknowledged one or later
bad=0
while read -r name last; do
	stored=$(sqlite3 "$CTRL_DB" "SELECT json_extract(report_json, '$.collected_at') FROM nodes WHERE name = '$name'")
	awk -v s="$stored" -v a="$last" 'BEGIN {exit !(s + 0 >= a + 0)}' || bad=$((bad + 1))
done < <(awk '{ if ($2 > m[$1]) m[$1] = $2 } END { for (n in m) print n, m[n] }' "$TMP/acks")
check_eq "no acknowledged report is missing" 0 "$bad"
done_testing
