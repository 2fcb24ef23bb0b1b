#!/usr/bin/env bash
# The dashboard in a real browser: Debian's chromium, headless, driven by
# playwright-core (tests/browser/package.json, installed here with npm ci
# when missing), against tbcontrollerd serving its compiled-in dashboard (and
# web/ through --web-root for the wiring view) and simulated agents.
#   1. mesh4-studio (four nodes, six 80 Gb/s links), with a viewer token:
#      the fleet's figures, six passing links, a wrong token refused, an
#      agent stopped shown unreachable without a reload (the controller's
#      --unreachable-after is 2 s here), the controller stopped shown.
#   2. degraded-40g, with the admin token: the 40 Gb/s cable drawn as
#      degraded, its fix shown on keyboard focus.
#   3. os-skew: the node on another macOS build marked; a rollout that
#      halted at mac1's preflight (the controller has no SSH key), as GET
#      /v1/rollouts gives it, shown in the rollouts panel.
#   4. jobs: mesh4-studio again, a controller with an SSH key, two applied
#      placements, one with a job whose nodes' SSH is a listener that never
#      speaks (the job starts, then fails with its reason): the placement's
#      job line, running with its endpoint (GET /v1/jobs answered with the
#      job running) then failed with the reason, without a reload; the
#      other placement shows none.
#   5. the wiring view alone, on answers shaped as the wiring API's contract
#      (tests/browser/topology/), served by tbcontrollerd from a copy of web/.
# Screenshots go to $B/screenshots/.  Skipped (77) only where no Chromium
# can be found or playwright-core cannot be installed.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1
SHOTS=$BIN/screenshots
DIR=$TOP/tests/browser

# shellcheck source=tests/browser/setup.sh
. "$DIR/setup.sh"
browser_setup || exit $?

# run_case CASE ARGS...: the node side's "ok"/"NOT OK"/"skip" lines counted
# here.  A case that crashes or times out (node exits non-zero without a NOT OK
# line) fails, and so does one that asserted nothing.
run_case() {
	local line rc=none n_ok=0 n_bad=0
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) ok "${line#ok - }"; n_ok=$((n_ok + 1)) ;;
		"skip - "*) echo "# SKIP ${line#skip - }" ;;
		"NOT OK - "*) not_ok "${line#NOT OK - }"; n_bad=$((n_bad + 1)) ;;
		"# node exited "*) rc=${line#\# node exited } ;;
		*) echo "$line" ;;
		esac
	done < <(cd "$DIR" && timeout 120 node dashboard.mjs "$@" 2>&1; echo "# node exited $?")
	if [ "$rc" != 0 ] && [ "$n_bad" = 0 ]; then
		not_ok "case $1: dashboard.mjs exited $rc (crashed or timed out)"
	fi
	[ "$n_ok" -gt 0 ] || not_ok "case $1: no assertion passed"
}

# cluster SCENARIO [OPTION...]: a controller (with those options; named
# ctl-SCENARIO, or $CTL_NAME) and one sim agent per node of the scenario,
# all in its cluster; waits until every node has reported.
cluster() {
	local scen=$1 n c; shift
	start_controller "${CTL_NAME:-ctl-$(basename "$scen" .json)}" --unreachable-after 2 "$@" ||
		return 1
	c=$(jq -r .cluster "$scen")
	"$BIN/tbctl" cluster create "$c" >/dev/null || return 1
	for n in $(jq -r '.nodes[].name' "$scen"); do
		mkdir -p "$TMP/$c-$n"
		"$BIN/tbctl" token create --ttl 10m --cluster "$c" --accept >"$TMP/$c-$n/boot" || return 1
		start_agent "agent-$c-$n" --backend sim --scenario "$scen" --node "$n" --interval 1 \
			--controller "$CTRL_URL" --bootstrap-token-file "$TMP/$c-$n/boot" \
			--state-dir "$TMP/$c-$n" || return 1
		eval "AGENT_$n=$AGENT_PID"
	done
	wait_for "every node ready" 20 sh -c \
		"[ \"\$('$BIN/tbctl' nodes --json | jq '[.nodes[] | select(.state == \"ready\")] | length')\" = $(jq '.nodes | length' "$scen") ]"
}

# -- the static files themselves --
cluster tests/scenarios/mesh4-studio.json || { not_ok "mesh4-studio started"; done_testing; }
code=$(curl -s -o "$TMP/index" -D "$TMP/h" -w '%{http_code}' "$CTRL_URL/")
check_eq "GET / serves index.html" 200 "$code"
check "index.html is text/html" grep -qi '^content-type: text/html' "$TMP/h"
check "with an ETag and no-cache" sh -c "grep -qi '^etag: \"' '$TMP/h' && grep -qi '^cache-control: no-cache' '$TMP/h'"
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' "$TMP/h" | tr -d '\r')
check_eq "If-None-Match with that ETag gets 304" 304 \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$CTRL_URL/")"
check_eq "a module is text/javascript" "text/javascript; charset=utf-8" \
	"$(curl -s -o /dev/null -w '%{content_type}' "$CTRL_URL/js/main.js")"
check_eq "a missing file is 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$CTRL_URL/nothing.js")"
check_eq "no way out of the web root" 404 \
	"$(curl -s -o /dev/null -w '%{http_code}' --path-as-is "$CTRL_URL/js/../../README.md")"
check_eq "no way out, percent-encoded" 404 \
	"$(curl -s -o /dev/null -w '%{http_code}' --path-as-is "$CTRL_URL/%2e%2e/README.md")"
check_eq "a directory is 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$CTRL_URL/js")"
check_eq "a hidden file is 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$CTRL_URL/.gitignore")"
check_eq "POST on a file is refused" 404 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$CTRL_URL/")"
check "the page asks no other host" sh -c "! grep -rEn 'https?://' '$TOP/web'"

# -- the samples API the sparklines read --
code=$(api GET "/v1/nodes/mac1/samples?since=0")
check_eq "GET /v1/nodes/mac1/samples answers 200" 200 "$code"
check_jq "with mac1's samples, oldest first" "$TMP/api.out" \
	'.node == "mac1" and (.samples | length) >= 1 and (.samples | map(.t) | . == sort) and (.samples[0].power_watts | type) == "number"'
check_eq "an unknown node's samples: 404" 404 "$(api GET /v1/nodes/nosuch/samples)"
check_eq "a bad since: 400" 400 "$(api GET '/v1/nodes/mac1/samples?since=soon')"
check_eq "a bad step: 400" 400 "$(api GET '/v1/nodes/mac1/samples?step=-1')"
"$BIN/tbctl" node history mac1 --since 10m >"$TMP/hist" 2>&1
check "tbctl node history prints mac1's samples" sh -c "head -n 1 '$TMP/hist' | grep -q '^TIME *MEMORY *POWER' && [ \$(wc -l <'$TMP/hist') -ge 2 ] && grep -q ' W ' '$TMP/hist'"
"$BIN/tbctl" node history mac1 --json >"$TMP/hist.json"
check_jq "tbctl node history --json is the API's answer" "$TMP/hist.json" '.node == "mac1" and (.samples | length) >= 1'
"$BIN/tbctl" node history nosuch >/dev/null 2>"$TMP/hist.err"
check_eq "tbctl node history of an unknown node exits 1" 1 $?
check_eq "without a token: 401" 401 "$(curl -s -o /dev/null -w '%{http_code}' "$CTRL_URL/v1/nodes/mac1/samples")"

"$BIN/tbctl" token create --role viewer --label dashboard-test >"$TMP/viewer" || not_ok "viewer token"
run_case mesh4 "$CTRL_URL" "$(cat "$TMP/viewer")" "$SHOTS" "$AGENT_mac4" "$CTRL_PID"
# the node side stopped these two (if it got that far); their exit must be clean
kill -TERM "$AGENT_mac4" "$CTRL_PID" 2>/dev/null
bg_reap "$AGENT_mac4" "$CTRL_PID"
bg_check_all

# -- a 40 Gb/s cable --
cluster tests/scenarios/degraded-40g.json || { not_ok "degraded-40g started"; done_testing; }
run_case degraded "$CTRL_URL" "$(cat "$ADMIN_TOKEN_FILE")" "$SHOTS"
bg_check_all

# -- another macOS build on one node --
cluster tests/scenarios/os-skew.json || { not_ok "os-skew started"; done_testing; }
for n in mac1 mac2 mac3 mac4; do "$BIN/tbctl" node ssh "$n" --host 127.0.0.1 --user admin >/dev/null; done
"$BIN/tbctl" rollout start --cluster studio4 --target 26.3 --mode rolling >/dev/null ||
	not_ok "a rollout started"
wait_for "the rollout halted" 20 sh -c "$BIN/tbctl rollout status 1 --json | jq -e '.state == \"halted\"'"
run_case osskew "$CTRL_URL" "$(cat "$ADMIN_TOKEN_FILE")" "$SHOTS"
bg_check_all

# -- a placement's job --
ssh-keygen -q -t ed25519 -N '' -f "$TMP/ctl_key" || not_ok "a controller key"
# free_port: a TCP port nothing listens on, on 127.0.0.1
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
SILENT=$(free_port)
# a "node" that accepts SSH connections and never speaks: the job's start
# waits for --ssh-timeout, then fails
timeout 120 python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
conns = []
end = time.time() + 120
while time.time() < end:
    s.settimeout(max(0.1, end - time.time()))
    try:
        conns.append(s.accept()[0])
    except OSError:
        pass' "$SILENT" &
silent_pid=$!
CTL_NAME=ctl-jobs cluster tests/scenarios/mesh4-studio.json --ssh-key "$TMP/ctl_key" --ssh-timeout 6 \
	--catalog "$TOP/data/catalog.json" || { not_ok "mesh4-studio with an SSH key started"; done_testing; }
# SSH settings first: a plan names each rank's SSH host (a later change makes it stale)
for n in mac1 mac2; do
	"$BIN/tbctl" node ssh "$n" --host 127.0.0.1 --port "$SILENT" --user tbmesh >/dev/null &&
		"$BIN/tbctl" node trust "$n" --fingerprint "SHA256:$(head -c 32 /dev/urandom | base64 | tr -d '=' | head -c 43)" >/dev/null ||
		not_ok "$n's SSH settings"
done
P1=$("$BIN/tbctl" place llama-3.3-70b:4bit --strategy tensor --nodes mac1,mac2 --entry server --apply --json | jq -r .id)
P2=$("$BIN/tbctl" place llama-3.3-70b:4bit --strategy tensor --nodes mac3,mac4 --entry server --apply --json | jq -r .id)
check "two placements applied ($P1, $P2)" test "${P1:-0}" -gt 0 -a "${P2:-0}" -gt 0
JPORT=$(free_port)
"$BIN/tbctl" run "$P1" --port "$JPORT" --restart never --json >"$TMP/job.json" 2>"$TMP/job.err"
check_jq "a job on placement $P1, starting" "$TMP/job.json" ".state == \"starting\" and .placement == $P1" ||
	sed 's/^/# /' "$TMP/job.err"
"$BIN/tbctl" token create --role viewer --label dashboard-jobs >"$TMP/viewer2" || not_ok "viewer token"
run_case jobs "$CTRL_URL" "$(cat "$TMP/viewer2")" "$SHOTS" "$P1" "$P2" "$(jq -r .id "$TMP/job.json")" "$JPORT"
kill "$silent_pid" 2>/dev/null; builtin wait "$silent_pid" 2>/dev/null
bg_check_all

# -- the wiring view on the contract's shapes --
mkdir -p "$TMP/www" && cp -R web/. "$TMP/www/" && cp -R tests/browser/topology "$TMP/www/topology-test" ||
	not_ok "copy the web root"
start_controller ctl-topology --web-root "$TMP/www" || { not_ok "controller for the topology"; done_testing; }
# a web root's files also carry their Last-Modified (the compiled-in ones an ETag only)
curl -s -o /dev/null -D "$TMP/h" "$CTRL_URL/"
lm=$(sed -n 's/^[Ll]ast-[Mm]odified: *//p' "$TMP/h" | tr -d '\r')
check_eq "--web-root: If-Modified-Since its Last-Modified gets 304" 304 \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "If-Modified-Since: $lm" "$CTRL_URL/")"
run_case topology "$CTRL_URL" - "$SHOTS"
done_testing
