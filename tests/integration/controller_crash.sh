#!/usr/bin/env bash
# A 204 on POST /v1/report means the report is on disk: 50 simulated agents
# report as fast as they can (loadgen, one request at a time per node,
# logging every acknowledged report), the controller is killed with SIGKILL
# in the middle, then restarted on the same inventory.  Checks: the file
# passes SQLite's integrity check; every node is still there; for every
# node, at least as many samples are stored as reports were acknowledged,
# and its latest stored report is at least as recent as the last one
# acknowledged.  Then the restarted controller takes reports again.
. "$(dirname "$0")/../lib/common.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 (the command) not installed"
command -v jq >/dev/null || skip_all "jq not installed"
NODES=50
LG=$BIN/tests/bench/loadgen
DB=$TMP/inventory.db
ADMIN=$TMP/admin-token

logged_port() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }

# start_controller LOG: sets CTL_PID and URL.
start_controller() {
	bg_start "$1" "$BIN/tbcontrollerd" --db "$DB" --listen 127.0.0.1:0 \
		--admin-token-file "$ADMIN" --unreachable-after 3600
	CTL_PID=$BG_PID
	wait_for "tbcontrollerd to listen" 10 grep -q 'listening on' "$1" || { cat "$1"; return 1; }
	URL=http://127.0.0.1:$(logged_port "$1")
}

start_controller "$TMP/ctl1.log" || exit 1
if "$LG" setup "$URL" "$ADMIN" "$NODES" "$TMP/tokens" --prefix crash --concurrency 8; then
	ok "loadgen setup enrolled $NODES nodes"
else
	not_ok "loadgen setup enrolled $NODES nodes"; done_testing
fi

bg_start "$TMP/run.log" "$LG" run "$URL" "$TMP/tokens" --seconds 30 --concurrency "$NODES" \
	--ack-log "$TMP/acks"
LG_PID=$BG_PID
sleep 3
kill -KILL "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
kill -TERM "$LG_PID"
wait_for "loadgen to stop" 15 sh -c "! kill -0 $LG_PID" || kill -KILL "$LG_PID"
wait "$LG_PID" 2>/dev/null
echo "# loadgen: $(grep '^sent=' "$TMP/run.log")"
acked=$(wc -l <"$TMP/acks" 2>/dev/null || echo 0)
check "reports were acknowledged before the crash ($acked)" test "$acked" -gt 0

start_controller "$TMP/ctl2.log" || exit 1
check_eq "integrity_check after SIGKILL" ok "$(sqlite3 "$DB" 'PRAGMA integrity_check')"
AUTH="Authorization: Bearer $(head -n 1 "$ADMIN")"
code=$(curl -s -o "$TMP/nodes.json" -w '%{http_code}' --max-time 10 -H "$AUTH" "$URL/v1/nodes")
check_eq "GET /v1/nodes after the restart" 200 "$code"
check_jq "all $NODES nodes are there" "$TMP/nodes.json" ".nodes | length == $NODES"

# Per node: acknowledged count and latest collected_at (ms) from the ack log;
# stored samples from the file; latest stored collected_at from the API.
awk '{ms = sprintf("%.0f", $2 * 1000); n[$1]++; if (!($1 in m) || ms + 0 > m[$1] + 0) m[$1] = ms}
	END {for (k in n) print k, n[k], m[k]}' "$TMP/acks" | sort >"$TMP/acked"
# a node's samples: those of the table, and those still waiting in its row
sqlite3 -separator ' ' "$DB" 'SELECT n.name, (SELECT count(*) FROM samples s
	WHERE s.node_id = n.id) + coalesce(n.samples_pending_n, 0)
	FROM nodes n' | sort >"$TMP/stored"
fewer=0 older=0 missing=0
while read -r name count last; do
	samples=$(awk -v n="$name" '$1 == n {print $2}' "$TMP/stored")
	if [ -z "$samples" ]; then
		missing=$((missing + 1)); continue
	fi
	[ "$samples" -ge "$count" ] ||
		{ fewer=$((fewer + 1)); echo "# $name: $count acknowledged, $samples stored"; }
	curl -s -o "$TMP/node.json" --max-time 10 -H "$AUTH" "$URL/v1/nodes/$name"
	stored=$(jq -r '.report.collected_at * 1000 | round' "$TMP/node.json" 2>/dev/null)
	[ -n "$stored" ] && [ "$stored" != null ] && [ "$stored" -ge "$last" ] ||
		{ older=$((older + 1)); echo "# $name: acknowledged up to $last ms, stored ${stored:-none}"; }
done <"$TMP/acked"
check_eq "nodes with acknowledged reports" "$NODES" "$(wc -l <"$TMP/acked")"
check_eq "acknowledged nodes missing from the file" 0 "$missing"
check_eq "nodes with fewer samples stored than reports acknowledged" 0 "$fewer"
check_eq "nodes whose latest stored report is older than the last acknowledged" 0 "$older"

out=$("$LG" run "$URL" "$TMP/tokens" --seconds 1 --concurrency 8 2>&1)
check "the restarted controller takes reports ($out)" \
	awk -v s="$out" 'BEGIN {exit !(s ~ /failed=0 / && s !~ / ok=0 /)}'
done_testing
