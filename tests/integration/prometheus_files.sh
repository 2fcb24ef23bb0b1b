#!/usr/bin/env bash
# The Prometheus and Grafana files of packaging/, checked by Prometheus's own
# tool: the example configuration (promtool check config, as shipped and as
# installed with a real token file), the alert rules (promtool check rules)
# and their unit tests (promtool test rules), every alert fired by a test
# and shown silent on healthy series; the Grafana dashboard's form.
# tests/integration/prometheus.sh checks the metric names they use against
# what the programs really export.
#
# Sources of the formats:
#   rules tests   https://prometheus.io/docs/prometheus/latest/configuration/unit_testing_rules/
#                 (prometheus/prometheus cmd/promtool/unittest.go)
#   HTTP SD       https://prometheus.io/docs/prometheus/latest/http_sd/
#                 (prometheus/prometheus discovery/http/http.go)
#   configuration https://prometheus.io/docs/prometheus/latest/configuration/configuration/
#                 (<http_sd_config>, <authorization>: credentials_file)
. "$(dirname "$0")/../lib/common.sh"
command -v promtool >/dev/null || skip_all "promtool not installed (packaging/deps.sh installs it)"
P=$TOP/packaging/prometheus
G=$TOP/packaging/grafana/tbmesh.json

# (a) the example configuration: as shipped (its rules file beside it), and
# installed: a copy in a directory of its own with a real token file.
# promtool 2.42 does not look for an http_sd_config's credentials_file (it
# does for a scrape config's), so the copy is what shows the file is read
# from where the comment says.
check "promtool check config: the example as shipped" promtool check config "$P/prometheus.yml"
mkdir -p "$TMP/etc"
cp "$P/prometheus.yml" "$P/tbmesh.rules.yml" "$TMP/etc/"
echo "tbm_000000000000_notarealtokennotarealtokennotarealtokennotare" >"$TMP/etc/tbmesh-viewer-token"
check "promtool check config: installed, with its token file" promtool check config "$TMP/etc/prometheus.yml"
# the same with the token moved to a scrape config, where promtool checks the file: proof the
# name is resolved beside the configuration (a missing one fails)
sed 's|^    http_sd_configs:|    authorization: {credentials_file: tbmesh-viewer-token}\n    http_sd_configs:|' \
	"$TMP/etc/prometheus.yml" >"$TMP/etc/scrape-auth.yml"
check "a scrape config's credentials_file resolves beside the configuration" \
	promtool check config "$TMP/etc/scrape-auth.yml"
rm "$TMP/etc/tbmesh-viewer-token"
check "... and a missing one fails" sh -c "! promtool check config '$TMP/etc/scrape-auth.yml' >/dev/null 2>&1"
check "the example discovers agents over HTTP SD with a token file" \
	grep -q 'url: http://controller.example:9470/v1/prometheus/targets' "$P/prometheus.yml"
check "... with the Bearer type spelled out (Prometheus 2.42 leaves it out in http_sd_configs)" \
	grep -qE '^ +type: Bearer$' "$P/prometheus.yml"
check "... and scrapes the controller itself" grep -q 'targets: \[controller.example:9470\]' "$P/prometheus.yml"

# (b) the rules and their tests
promtool check rules "$P/tbmesh.rules.yml" >"$TMP/check-rules.out" 2>&1
check "promtool check rules" test $? -eq 0
check "six rules" grep -q 'SUCCESS: 6 rules found' "$TMP/check-rules.out"
(cd "$P" && promtool test rules tbmesh.rules.test.yml) >"$TMP/test-rules.out" 2>&1
rc=$?
check_eq "promtool test rules" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/test-rules.out" | head -n 60

# every alert of the rules file has a test that fires it, and one at a
# later time on healthy series where it is silent
alerts=$(sed -n 's/^ *- alert: *//p' "$P/tbmesh.rules.yml" | sort)
check_eq "the six alerts" "TbmeshCollectionErrors TbmeshLinkBelow80Gbps TbmeshMacOSBuildSkew TbmeshNodeUnreachable TbmeshRdmaDisabled TbmeshWiringLinkFailing" "$(echo $alerts)"
# alertname NAME ... followed by exp_alerts: the test cases that expect it to fire
fired=$(awk '/alertname:/ { a = $2 } /exp_alerts:/ && a != "" { print a; a = "" }
	/eval_time:/ { a = "" }' "$P/tbmesh.rules.test.yml" | sort -u)
check_eq "each alert has a test where it fires" "$(echo $alerts)" "$(echo $fired)"
healthy=$(awk '/- name: a healthy fleet fires nothing/ { h = 1 } h && /alertname:/ { print $2 }' \
	"$P/tbmesh.rules.test.yml" | sort -u)
check_eq "each alert is checked silent on the healthy fleet" "$(echo $alerts)" "$(echo $healthy)"
# every expr on one line, plain (prometheus.sh reads them with sed)
check_eq "one plain one-line expr per rule" "$(grep -c '^ *- alert:' "$P/tbmesh.rules.yml")" \
	"$(grep -cE '^ *expr: [^|>"'"'"' ]' "$P/tbmesh.rules.yml")"

# the tests can fail: a rule that fires on the healthy fleet, a test that
# expects the wrong value
mkdir -p "$TMP/broken"
cp "$P/tbmesh.rules.yml" "$P/tbmesh.rules.test.yml" "$TMP/broken/"
sed -i 's/tbmesh_rdma_enabled == 0/tbmesh_rdma_enabled >= 0/' "$TMP/broken/tbmesh.rules.yml"
check "promtool test rules fails when a rule fires on healthy series" \
	sh -c "cd '$TMP/broken' && ! promtool test rules tbmesh.rules.test.yml >/dev/null 2>&1"

# the Grafana dashboard: JSON, a Prometheus data source variable every
# panel and query uses, panels on the grid
check_jq "the dashboard: schemaVersion 39, uid tbmesh" "$G" '.schemaVersion == 39 and .uid == "tbmesh" and .title == "tbmesh"'
check_jq "a Prometheus data source variable" "$G" \
	'[.templating.list[] | select(.type == "datasource" and .query == "prometheus" and .name == "datasource")] | length == 1'
check_jq "every panel and query uses it" "$G" \
	'[.panels[] | select(.type != "row") | .datasource, .targets[].datasource] | all(. == {"type": "prometheus", "uid": "${datasource}"})'
check_jq "query variables too" "$G" \
	'[.templating.list[] | select(.type == "query") | .datasource] | all(. == {"type": "prometheus", "uid": "${datasource}"})'
check_jq "every panel has a query with an expression" "$G" \
	'[.panels[] | select(.type != "row") | (.targets | length > 0) and all(.targets[]; (.expr | type == "string") and (.expr | length > 0))] | all'
check_jq "panel ids are unique" "$G" '[.panels[].id] | length == (unique | length)'
check_jq "panels stay within the 24 columns" "$G" '[.panels[].gridPos | .x + .w <= 24] | all'
check_jq "no panel names a metric by __name__ (prometheus.sh reads names from expressions)" "$G" \
	'[.. | objects | .expr? // empty | contains("__name__")] | any | not'
check_jq "memory, power, link speeds and verdicts are on it" "$G" \
	'[.. | objects | .expr? // empty] | (any(contains("tbmesh_memory_total_bytes"))) and
	(any(contains("tbmesh_power_watts"))) and (any(contains("tbmesh_thunderbolt_port_speed_bytes_per_second"))) and
	(any(contains("tbmesh_wiring_link_pass")))'
done_testing
