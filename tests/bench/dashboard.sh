#!/usr/bin/env bash
# The dashboard with a 1,000-node fleet in the inventory (enrolled through
# the real API by loadgen, which also sends each node's first report; put in
# 250 clusters of four through POST /v1/clusters), in headless Chromium.
# Goals: the first frame with every node's row within 1 s of navigation
# start, and the page (HTML + CSS + JS) under 150 KB.
#
# Peers, measured in the same run on the same machine and browser:
#   - the render time of /static.html, a plain HTML page holding the same
#     1,000-row node table (made from the same GET /v1/nodes answer) and
#     nothing else: what a browser needs to lay out that much table at all;
#     the ratio says what the dashboard's modules, its API calls and its
#     per-cluster sections cost on top;
#   - GET /v1/nodes itself (curl, median of 5): the API's share;
#   - the weight of that static page, beside the dashboard's weight.
# BENCH_WEB_NODES and BENCH_WEB_RUNS override 1000 and 5.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1
NODES=${BENCH_WEB_NODES:-1000}
RUNS=${BENCH_WEB_RUNS:-5}
LG=$BIN/tests/bench/loadgen
. "$TOP/tests/browser/setup.sh"
browser_setup || exit $?

WWW=$TMP/www
cp -R "$TOP/web" "$WWW" || exit 1
start_controller bench --web-root "$WWW" --unreachable-after 86400 || exit 1
"$LG" setup "$CTRL_URL" "$ADMIN_TOKEN_FILE" "$NODES" "$TMP/tokens" --concurrency 16 >"$TMP/setup" ||
	{ echo "loadgen setup failed"; cat "$TMP/setup"; exit 1; }
# clusters of four, as loadgen cables them
awk '{print $1}' "$TMP/tokens" | sort | paste -d' ' - - - - >"$TMP/groups"
i=0
while read -r a b c d; do
	i=$((i + 1))
	name=$(printf 'rack%03d' "$i")
	[ "$(api POST /v1/clusters "{\"name\":\"$name\"}")" = 201 ] || { echo "cluster create failed"; exit 1; }
	nodes=$(printf '"%s",' $a $b $c $d)
	[ "$(api POST "/v1/clusters/$name/nodes" "{\"nodes\":[${nodes%,}]}")" = 200 ] ||
		{ echo "cluster $name: adding nodes failed: $(cat "$TMP/api.out")"; exit 1; }
done <"$TMP/groups"

# the peer page: the same table, as static HTML
api GET /v1/nodes >/dev/null
jq -r '"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>nodes</title>" +
	"<link rel=\"stylesheet\" href=\"app.css\"></head><body><main><table class=\"nodes\"><thead><tr>" +
	"<th>Node</th><th>State</th><th>Model, chip</th><th>Memory</th><th>Power</th><th>OS build</th>" +
	"<th>RDMA</th><th>Last report</th></tr></thead><tbody>" +
	([.nodes[] | "<tr data-node=\"\(.name)\"><th>\(.name)</th><td>\(.state)</td><td>\(.model)<br>\(.chip)</td>" +
	  "<td><svg class=\"bar\" viewBox=\"0 0 100 10\" role=\"img\"><rect class=\"bg\" width=\"100\" height=\"10\"/>" +
	  "<rect width=\"\(.memory_used_bytes * 100 / .memory_total_bytes | floor)\" height=\"10\"/></svg> " +
	  "\(.memory_used_bytes / 1073741824 | floor) GiB / \(.memory_total_bytes / 1073741824 | floor) GiB</td>" +
	  "<td>\(.power_watts) W</td><td>\(.os_version) (\(.os_build))</td><td>\(.rdma)</td>" +
	  "<td>\(.last_report_at)</td></tr>"] | join("")) +
	"</tbody></table></main><script src=\"static.js\"></script></body></html>"' \
	"$TMP/api.out" >"$WWW/static.html" || exit 1
echo "requestAnimationFrame(() => setTimeout(() => performance.mark('static-first-frame')));" \
	>"$WWW/static.js"
rows=$(jq '.nodes | length' "$TMP/api.out")
[ "$rows" = "$NODES" ] || { echo "the inventory holds $rows nodes, not $NODES"; exit 1; }

# GET /v1/nodes itself
for _ in 1 2 3 4 5; do
	curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" \
		"$CTRL_URL/v1/nodes"
done | sort -n | sed -n 3p >"$TMP/api_s"
api_ms=$(awk '{printf "%.1f", $1 * 1000}' "$TMP/api_s")

load=$(uptime | sed 's/.*load average[s]*: *//')
out=$(cd "$TOP/tests/browser" && timeout 300 node render_bench.mjs "$CTRL_URL" \
	"$(cat "$ADMIN_TOKEN_FILE")" "$RUNS") || { echo "render_bench failed: $out"; exit 1; }
echo "$out" | grep '^#'
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$out"; }
dash=$(field dashboard_ms) stat=$(field static_ms) weight=$(field weight_bytes) drawn=$(field rows)
sweight=$(($(wc -c <"$WWW/static.html") + $(wc -c <"$WWW/app.css") + $(wc -c <"$WWW/static.js")))
[ "$drawn" = "$NODES" ] || { echo "the dashboard drew $drawn rows, not $NODES"; exit 1; }

printf '  fleet: %d nodes in %d clusters of four; load average before the browser runs: %s\n' \
	"$NODES" "$i" "$load"
printf '  first render (median of %d cold loads): dashboard %d ms   static table page %d ms   ratio %.2f\n' \
	"$RUNS" "$dash" "$stat" "$(awk -v a="$dash" -v b="$stat" 'BEGIN{print a/b}')"
printf '  GET /v1/nodes alone (curl, median of 5): %s ms, %.2f of the dashboard'"'"'s render\n' \
	"$api_ms" "$(awk -v a="$api_ms" -v b="$dash" 'BEGIN{print a/b}')"
printf '  page weight (HTML+CSS+JS): dashboard %d bytes   static table page %d bytes   ratio %.2f\n' \
	"$weight" "$sweight" "$(awk -v a="$weight" -v b="$sweight" 'BEGIN{print a/b}')"
rc=0
[ "$dash" -lt 1000 ] || { echo "  GOAL MISSED: first render ${dash} ms, goal < 1000 ms"; rc=1; }
[ "$weight" -lt 153600 ] || { echo "  GOAL MISSED: page weight ${weight} bytes, goal < 150 KB"; rc=1; }
[ $rc = 0 ] && echo "  goals met: < 1000 ms and < 150 KB"
bg_check_all
sanitizer_check
[ "$T_FAIL" -eq 0 ] || rc=1
exit $rc
