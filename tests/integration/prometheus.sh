#!/usr/bin/env bash
# Prometheus against the real programs: a controller and simulated agents on
# loopback.
#  - Each agent reports where its /metrics is (agent.listen); the
#    controller's HTTP service discovery, GET /v1/prometheus/targets, gives
#    that address with the labels cluster, node, model and state (a viewer
#    token; 401 without one, 403 for an agent's), and the target it gives is
#    scraped for real.  A node whose agent listens on a wildcard address is
#    left out until it has an SSH host, which then stands in for it.
#  - Every metric name an expression of the alert rules or the Grafana
#    dashboard uses is one the programs export (read from the /metrics they
#    serve; _bucket, _sum and _count only for a histogram's name), and
#    promtool check metrics accepts those /metrics.
#  - Then the real Prometheus (Debian's prometheus package, which promtool
#    comes with) runs the example configuration of packaging/prometheus,
#    pointed at this controller: it discovers the agents, scrapes them and
#    the controller, and loads the rules.
#
# The HTTP SD format and its rules: https://prometheus.io/docs/prometheus/latest/http_sd/
# and prometheus/prometheus discovery/http/http.go (status 200, Content-Type
# application/json, a JSON array of {"targets": [...], "labels": {...}},
# nothing else in a group: discovery/targetgroup/targetgroup.go).
# Label names: [a-zA-Z_][a-zA-Z0-9_]*
# (https://prometheus.io/docs/concepts/data_model/).
. "$(dirname "$0")/../lib/common.sh"
command -v promtool >/dev/null || skip_all "promtool not installed (packaging/deps.sh installs it)"
command -v python3 >/dev/null || skip_all "python3 not installed (packaging/deps.sh installs it)"
SC=$TOP/tests/scenarios/mesh4-studio.json
P=$TOP/packaging/prometheus
G=$TOP/packaging/grafana/tbmesh.json
CTL=$BIN/tbctl
SDPATH=/v1/prometheus/targets

start_controller ctl
for n in mac1 mac2 mac3 mac4; do start_sim_agent "$n" "$SC" --interval 0.5; done
wait_for "four ready nodes" 20 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\")] | length == 4'"
check "four ready nodes" test $? -eq 0
"$CTL" cluster create studio4 >/dev/null && "$CTL" cluster add studio4 mac1 mac2 mac3 mac4 >/dev/null
check "the nodes are in cluster studio4" test $? -eq 0
"$CTL" token create --role viewer --ttl 1h >"$TMP/viewer"
V=(-H "Authorization: Bearer $(cat "$TMP/viewer")")
port_of() { listen_port "$TMP/agent-$1.log"; }

# ---- each agent says where its /metrics is
for n in mac1 mac2 mac3 mac4; do
	http_get "http://127.0.0.1:$(port_of $n)/v1/report" "$TMP/report-$n.json" >/dev/null
	check_jq "$n reports agent.listen, the address and port it is bound to" "$TMP/report-$n.json" \
		".agent.listen == \"127.0.0.1:$(port_of $n)\""
done

# ---- the service discovery
sd() {  # OUTFILE curl-args...: the status
	local out=$1; shift
	curl -H 'Content-Type: application/json' -s -o "$out" -D "$out.h" -w '%{http_code}' --max-time 10 "$@" "$CTRL_URL$SDPATH"
}
check_eq "SD without a token: 401" 401 "$(sd "$TMP/sd.none")"
check_eq "SD with a token that does not exist: 401" 401 \
	"$(sd "$TMP/sd.bad" -H 'Authorization: Bearer tbm_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')"
check_eq "SD with an agent's node token: 403" 403 \
	"$(sd "$TMP/sd.node" -H "Authorization: Bearer $(cat "$TMP/state-mac1/node-token")")"
check_eq "SD with a viewer token: 200" 200 "$(sd "$TMP/sd.json" "${V[@]}")"
ctype=$(tr -d '\r' <"$TMP/sd.json.h" | sed -n 's/^Content-Type: //Ip')
# discovery/http/http.go: ^(?i:application\/json(;\s*charset=("utf-8"|utf-8))?)$
check "SD Content-Type is what Prometheus accepts ($ctype)" \
	sh -c "echo '$ctype' | grep -qiE '^application/json(;[[:space:]]*charset=(\"utf-8\"|utf-8))?\$'"
check_jq "SD: an array of groups with exactly targets and labels" "$TMP/sd.json" \
	'type == "array" and all(.[]; (keys == ["labels", "targets"]) and (.targets | type == "array" and all(.[]; type == "string")) and
	(.labels | type == "object" and all(.[]; type == "string")))'
check_jq "SD: label names are Prometheus label names" "$TMP/sd.json" \
	'all(.[].labels | keys[]; test("^[a-zA-Z_][a-zA-Z0-9_]*$"))'
for n in mac1 mac2 mac3 mac4; do
	check_jq "SD: $n at its agent's real address, with cluster, node, model and state" "$TMP/sd.json" \
		"[.[] | select(.labels.node == \"$n\")] | length == 1 and (.[0] | .targets == [\"127.0.0.1:$(port_of $n)\"] and
		.labels == {\"cluster\": \"studio4\", \"node\": \"$n\", \"model\": \"Mac15,14\", \"state\": \"ready\"})"
done
# each target is scrapable: a Prometheus text body that promtool accepts
for t in $(jq -r '.[].targets[]' "$TMP/sd.json"); do
	code=$(http_get "http://$t/metrics" "$TMP/scrape.prom")
	check_eq "the target $t answers GET /metrics" 200 "$code"
	check "promtool check metrics accepts what $t serves" sh -c "promtool check metrics <'$TMP/scrape.prom'"
	check "... and it is a tbmesh agent's" grep -q '^tbmesh_agent_build_info{' "$TMP/scrape.prom"
done

# a wildcard listen address: a node whose report says 0.0.0.0:PORT is left
# out until the node has an SSH host, which then stands in for the wildcard.
# Here a hand-made enrolment, whose PORT is that of an agent that is not
# enrolled: on the linux backend over an empty tree, where every source
# fails, so its /metrics also has the collection errors healthy agents do
# not show.
mkdir -p "$TMP/emptyroot"
start_agent errs --backend linux --root "$TMP/emptyroot" --interval 0.5
ERRS_PORT=$AGENT_PORT
wait_for "collection errors on /metrics" 10 sh -c \
	"curl -s http://127.0.0.1:$ERRS_PORT/metrics | grep -q '^tbmesh_agent_collection_errors_total{'"
"$CTL" token create --ttl 10m --accept >"$TMP/boot-wild" || not_ok "bootstrap token for wild1"
jq --arg l "0.0.0.0:$ERRS_PORT" --argjson t "$(date +%s)" \
	'.node.hostname = "wild1" | .node.serial = "WILD00000001" |
	.node.hardware_uuid = "00000000-0000-4000-8000-00000000W1LD" | .collected_at = $t | .agent.listen = $l' \
	"$TMP/report-mac4.json" >"$TMP/wild1.json"
code=$(curl -s -o "$TMP/enrol.out" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $(cat "$TMP/boot-wild")" \
	-H 'Content-Type: application/json' --data-binary @"$TMP/wild1.json" "$CTRL_URL/v1/enroll")
check_eq "a node with agent.listen 0.0.0.0:PORT enrols" 201 "$code"
sd "$TMP/sd2.json" "${V[@]}" >/dev/null
check_jq "SD: a wildcard listen without an SSH host is left out" "$TMP/sd2.json" \
	'length == 4 and all(.[]; .labels.node != "wild1")'
check_eq "the node gets an SSH host" 200 "$(api POST /v1/nodes/wild1/ssh '{"host": "127.0.0.1", "user": "admin"}')"
sd "$TMP/sd3.json" "${V[@]}" >/dev/null
check_jq "SD: ... then its SSH host with the agent's port stands in" "$TMP/sd3.json" \
	"[.[] | select(.labels.node == \"wild1\")][0] | .targets == [\"127.0.0.1:$ERRS_PORT\"] and .labels.cluster == \"\""
check_eq "... and that target is scrapable" 200 "$(http_get "http://127.0.0.1:$ERRS_PORT/metrics" /dev/null)"
check_eq "SD: HEAD is answered too" 200 \
	"$(curl -s -o /dev/null -w '%{http_code}' -I --max-time 10 "${V[@]}" "$CTRL_URL$SDPATH")"
check_eq "SD: POST is 405" 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST --max-time 10 "${V[@]}" "$CTRL_URL$SDPATH")"

# ---- what the programs export
http_get "http://127.0.0.1:$ERRS_PORT/metrics" "$TMP/errs.prom" >/dev/null
http_get "http://127.0.0.1:$(port_of mac1)/metrics" "$TMP/mac1.prom" >/dev/null
# the controller's wiring series come once the wiring thread has checked the cluster
wait_for "the controller's wiring series" 20 sh -c "curl -s $CTRL_URL/metrics | grep -q '^tbmesh_wiring_link_pass{cluster=\"studio4\"'"
http_get "$CTRL_URL/metrics" "$TMP/ctl.prom" >/dev/null
for f in mac1 errs ctl; do
	check "(d) promtool check metrics accepts $f's /metrics" sh -c "promtool check metrics <'$TMP/$f.prom'"
done
check "the controller has a state series per node" \
	grep -q '^tbmesh_controller_node_state{cluster="studio4",node="mac1",state="ready"} 1$' "$TMP/ctl.prom"
check "... an info series with the macOS build" \
	grep -q '^tbmesh_controller_node_info{cluster="studio4",node="mac2",model="Mac15,14",chip="Apple M3 Ultra",os_version="26.2",os_build="25C56"} 1$' "$TMP/ctl.prom"
check "... and when each last reported" \
	grep -qE '^tbmesh_controller_node_last_report_timestamp_seconds\{cluster="studio4",node="mac3"\} [0-9.e+]+$' "$TMP/ctl.prom"

# exported: each family's TYPE; a histogram's samples are NAME_bucket,
# NAME_sum and NAME_count, every other type's NAME
cat "$TMP/mac1.prom" "$TMP/errs.prom" "$TMP/ctl.prom" | awk '$1 == "#" && $2 == "TYPE" {
	if ($4 == "histogram") { print $3 "_bucket"; print $3 "_sum"; print $3 "_count" }
	else if ($4 == "summary") { print $3; print $3 "_sum"; print $3 "_count" }
	else print $3 }' | sort -u >"$TMP/exported"
grep -hv '^#' "$TMP/mac1.prom" "$TMP/errs.prom" "$TMP/ctl.prom" | sed 's/[{ ].*//' | sort -u >"$TMP/sampled"
check_eq "every sample belongs to a family its TYPE line names" "" "$(comm -23 "$TMP/sampled" "$TMP/exported" | tr '\n' ' ')"

# used: the rules' expressions (one line each: prometheus_files.sh checks
# it) and the dashboard's, its variable queries included
sed -n 's/^ *expr: //p' "$P/tbmesh.rules.yml" | jq -R . | jq -s . >"$TMP/rules.exprs"
check_eq "an expression per rule" "$(grep -c '^ *- alert:' "$P/tbmesh.rules.yml")" "$(jq length "$TMP/rules.exprs")"
jq '[.. | objects | .expr? // empty] + [.templating.list[] | select(.type == "query") |
	(.query | if type == "object" then .query else . end)]' "$G" >"$TMP/dash.exprs"
check "the dashboard has expressions" jq -e 'length > 20' "$TMP/dash.exprs"
# the lexer itself, on forms the files use
jq -n '["count by (cluster) (count by (cluster, os_build) (a_info{cluster!=\"\"})) > 1",
	"increase(b_total[10m]) > 0 and on (x) group_left (y) c", "d * 8 / 1e9 < 80 and e{k=\"v\"}",
	"histogram_quantile(0.99, sum by (le) (rate(f_bucket[$__rate_interval])))",
	"label_values(g{cluster=~\"$cluster\"}, node)", "time() - h or vector(0)"]' |
	python3 "$TOP/tests/lib/promql_names.py" >"$TMP/lexer.out"
check_eq "the name lexer finds the names and nothing else" "a_info b_total c d e f_bucket g h" "$(echo $(cat "$TMP/lexer.out"))"
for src in rules dash; do
	python3 "$TOP/tests/lib/promql_names.py" <"$TMP/$src.exprs" >"$TMP/$src.names"
	check "$src: metric names found" test -s "$TMP/$src.names"
	check_eq "$src: every metric name used is exported" "" "$(comm -23 "$TMP/$src.names" "$TMP/exported" | tr '\n' ' ')"
done

# ---- the real Prometheus, on the example configuration
if ! command -v prometheus >/dev/null; then
	echo "# prometheus not installed: the end-to-end part is left out"
	done_testing
fi
PD=$TMP/prom
mkdir -p "$PD"
cp "$P/tbmesh.rules.yml" "$PD/"
cp "$TMP/viewer" "$PD/tbmesh-viewer-token"
CTRL_HOSTPORT=${CTRL_URL#http://}
sed -e "s|http://controller.example:9470|$CTRL_URL|" -e "s|controller.example:9470|$CTRL_HOSTPORT|" \
	-e 's|scrape_interval: 15s|scrape_interval: 1s|' -e 's|evaluation_interval: 15s|evaluation_interval: 1s|' \
	-e 's|refresh_interval: 60s|refresh_interval: 1s|' "$P/prometheus.yml" >"$PD/prometheus.yml"
check "(a) the example, pointed at this controller, passes promtool check config" \
	sh -c "promtool check config '$PD/prometheus.yml' >/dev/null && ! grep -q controller.example '$PD/prometheus.yml'"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for _ in 1 2 3; do
	PPORT=$(free_port)
	bg_start "$TMP/prometheus.log" prometheus --config.file="$PD/prometheus.yml" \
		--storage.tsdb.path="$PD/data" --web.listen-address="127.0.0.1:$PPORT"
	PROM_PID=$BG_PID
	wait_for "prometheus ready" 30 curl -sf "http://127.0.0.1:$PPORT/-/ready" && break
	bg_alive "$PROM_PID" && break
	bg_forget "$PROM_PID"; builtin wait "$PROM_PID" 2>/dev/null   # the port was taken: another
done
PU=http://127.0.0.1:$PPORT
check "prometheus is ready" curl -sf -o /dev/null "$PU/-/ready"
targets_up() {
	curl -s "$PU/api/v1/targets" >"$TMP/targets.json" &&
	jq -e '[.data.activeTargets[] | select(.health == "up")] | length == 6' "$TMP/targets.json" >/dev/null
}
wait_for "prometheus to discover and scrape 5 agents and the controller" 30 targets_up ||
	grep -v 'level=info' "$TMP/prometheus.log" | tail -n 20 | sed 's/^/# /'
check_jq "it scrapes the 5 discovered agents and the controller, all up" "$TMP/targets.json" \
	'[.data.activeTargets[] | select(.health == "up") | .labels.job] | sort == ["tbmesh-agents","tbmesh-agents","tbmesh-agents","tbmesh-agents","tbmesh-agents","tbmesh-controller"]'
for n in mac1:$(port_of mac1) mac4:$(port_of mac4) wild1:$ERRS_PORT; do
	check_jq "the discovered ${n%%:*}: its address, its labels, instance = node" "$TMP/targets.json" \
		"[.data.activeTargets[] | select(.labels.node == \"${n%%:*}\")] | length == 1 and (.[0] |
		.discoveredLabels.__address__ == \"127.0.0.1:${n#*:}\" and .labels.instance == \"${n%%:*}\" and
		(.labels.state | type == \"string\") and (.discoveredLabels.__meta_url | endswith(\"$SDPATH\")))"
done
check_jq "the discovered mac1 has cluster, model and state" "$TMP/targets.json" \
	'[.data.activeTargets[] | select(.labels.node == "mac1")][0].labels | .cluster == "studio4" and .model == "Mac15,14" and .state == "ready"'
query() { curl -s --get --data-urlencode "query=$1" "$PU/api/v1/query" >"$TMP/query.json"; }
query 'tbmesh_memory_total_bytes{node="mac1",cluster="studio4"}'
check_jq "a node's memory is in Prometheus under its node and cluster labels" "$TMP/query.json" \
	'.data.result | length == 1 and .[0].value[1] == "549755813888"'
query 'tbmesh_controller_node_state{node="mac2",state="ready"}'
check_jq "the controller's series too" "$TMP/query.json" '.data.result | length == 1'
rules_ok() {
	curl -s "$PU/api/v1/rules" >"$TMP/rules.json" &&
	jq -e '[.data.groups[].rules[] | select(.health == "ok")] | length == 6' "$TMP/rules.json" >/dev/null
}
wait_for "the six rules evaluated" 20 rules_ok
check "prometheus loaded and evaluates the six rules" rules_ok
# the rules as Prometheus parsed them: their metric names are exported too
jq '[.data.groups[].rules[].query]' "$TMP/rules.json" | python3 "$TOP/tests/lib/promql_names.py" >"$TMP/prom-rules.names"
check_eq "the names of the rules Prometheus parsed are the ones read from the file" \
	"$(cat "$TMP/rules.names")" "$(cat "$TMP/prom-rules.names")"
# and every metric name the dashboard uses has series in Prometheus now
curl -s "$PU/api/v1/label/__name__/values" | jq -r '.data[]' | sort -u >"$TMP/prom.names"
check_eq "every metric the dashboard uses has series in Prometheus" "" \
	"$(comm -23 "$TMP/dash.names" "$TMP/prom.names" | tr '\n' ' ')"
done_testing
