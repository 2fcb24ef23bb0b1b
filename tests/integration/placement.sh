#!/usr/bin/env bash
# Model placement through the controller with simulated Studios: the
# catalog, plans on the four-node cluster (2 x 512 GB, 2 x 256 GB M3 Ultra)
# for DeepSeek V3.1 4-bit and Kimi K2 4-bit, the refusal of Kimi K2 bf16
# with the shortfall in bytes, the mlx.launch hostfile checked field by
# field against MLX's format and against what the nodes report, apply /
# list / show / degrade on cordon / replan / remove, bad input, a restart.
# (A cluster with a missing cable: placement_missing.sh.)
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/mesh4-studio.json
CTL=$BIN/tbctl
start_controller place --catalog "$TOP/data/catalog.json" --unreachable-after 5
for n in mac1 mac2 mac3 mac4; do start_sim_agent "$n" "$SC" --interval 0.5; done
wait_for "four nodes ready" 20 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\")] | length == 4'"
"$CTL" cluster create studio4 >/dev/null
"$CTL" cluster add studio4 mac1 mac2 mac3 mac4 >/dev/null

# the catalog
"$CTL" models --json >"$TMP/models.json"
check_jq "the catalog has at least ten models" "$TMP/models.json" '.models | length >= 10'
check_jq "with the models the issue names" "$TMP/models.json" \
	'[.models[].name] as $n | ["deepseek-v3.1","kimi-k2-thinking","qwen3-235b-a22b","qwen3-coder-480b-a35b","llama-3.1-405b","llama-3.3-70b","gpt-oss-120b","glm-4.5"] | all(. as $m | $n | index($m))'
check_jq "every number has its source" "$TMP/models.json" \
	'all(.models[]; (.sources.layers | test("config.json")) and (.variants | all(.source | length > 0)))'
"$CTL" models >"$TMP/models.txt"
check "tbctl models prints a table" grep -q '^NAME .*VARIANTS' "$TMP/models.txt"

# DeepSeek V3.1 4-bit: auto picks the fastest that fits and says why
"$CTL" place deepseek-v3.1:4bit --json >"$TMP/ds.json"
check_jq "DeepSeek V3.1 4-bit is placed" "$TMP/ds.json" \
	'.model == "deepseek-v3.1:4bit" and .cluster == "studio4" and (.strategy | IN("tensor","pipeline","single")) and .estimate_tokens_per_second > 0'
check_jq "with a one-line why" "$TMP/ds.json" '(.why | length > 0) and (.why | contains("\n") | not)'
check_jq "no node over its usable memory" "$TMP/ds.json" \
	'all(.ranks[]; .free_after_bytes >= 0 and .total_bytes == .weights_bytes + .kv_cache_bytes and .total_bytes <= .usable_bytes)'
check_jq "usable is 3/4 of RAM less 8 GiB on an M3 Ultra without a wired limit" "$TMP/ds.json" \
	'all(.ranks[]; .usable_bytes == (if .node == "mac1" or .node == "mac2" then 549755813888 else 274877906944 end) / 4 * 3 - 8589934592)'
"$CTL" place deepseek-v3.1:4bit >"$TMP/ds.txt"
check "the plan for people has the rank table" grep -q '^RANK  *NODE  *LAYERS  *WEIGHTS  *KV CACHE  *TOTAL  *USABLE  *FREE AFTER' "$TMP/ds.txt"
check "and the launch line" grep -q '^launch: mlx.launch --backend jaccl' "$TMP/ds.txt"

# Kimi K2 Thinking 4-bit over all four, pipeline: layers add up, ranks along links
# (exo's rules: mlx-lm's even split cannot spread 61 layers over four)
"$CTL" place kimi-k2-thinking:4bit --strategy pipeline --nodes mac1,mac2,mac3,mac4 --runtime exo \
	--hostfile "$TMP/kimi-hosts.json" --json >"$TMP/kimi.json"
check_jq "Kimi K2 4-bit is placed over four nodes" "$TMP/kimi.json" \
	'.strategy == "pipeline" and (.ranks | length) == 4'
check_jq "its layer ranges are contiguous and add up to 61" "$TMP/kimi.json" \
	'.ranks as $r | ($r[0].layer_start == 0) and ($r[-1].layer_end == 61) and all(range(1; $r|length); $r[.].layer_start == $r[. - 1].layer_end)'
check_jq "the 512 GB nodes get more layers than the 256 GB ones" "$TMP/kimi.json" \
	'([.ranks[] | select(.usable_bytes > 300000000000) | .layer_end - .layer_start] | min) > ([.ranks[] | select(.usable_bytes < 300000000000) | .layer_end - .layer_start] | max)'
check_jq "pipeline over RDMA links uses jaccl-ring" "$TMP/kimi-hosts.json" '.backend == "jaccl-ring"'
"$CTL" place kimi-k2-thinking:4bit --json >"$TMP/kimi-auto.json"
check_jq "Kimi K2 4-bit also places on its own" "$TMP/kimi-auto.json" '.estimate_tokens_per_second > 0 and all(.ranks[]; .free_after_bytes >= 0)'

# Kimi K2 bf16 does not fit: refused with the shortfall in bytes
"$CTL" place kimi-k2-thinking:bf16 >"$TMP/out" 2>"$TMP/err"; rc=$?
check_eq "Kimi K2 bf16 is refused with status 1" 1 $rc
check "with the shortfall in bytes" grep -Eq 'pipeline: needs [0-9]+ bytes .* short by [0-9]+ bytes' "$TMP/err"
check_eq "on one line" 1 "$(wc -l <"$TMP/err")"
code=$(api POST /v1/placements/plan '{"model":"kimi-k2-thinking:bf16"}')
check_eq "the API answers 422" 422 "$code"
check_jq "with the reason in error" "$TMP/api.out" '.error | test("short by [0-9]+ bytes")'

# the tensor hostfile, field by field (MLX: backend, envs, hosts[ssh, ips, rdma])
"$CTL" place deepseek-v3.1:4bit --strategy tensor --nodes mac1,mac2,mac3,mac4 \
	--hostfile "$TMP/hosts.json" --json >"$TMP/t.json"
H=$TMP/hosts.json
check "the hostfile parses as JSON" jq_true "$H" 'type == "object"' 
check_jq "backend jaccl for tensor over the full mesh" "$H" '.backend == "jaccl"'
check_jq "only the keys MLX reads" "$H" '(keys == ["backend","envs","hosts"]) and all(.hosts[]; keys == ["ips","rdma","ssh"])'
check_jq "envs is a list of NAME=VALUE" "$H" '.envs | type == "array" and all(test("^[A-Z_]+=."))'
check_jq "exactly four hosts, one per rank" "$H" '.hosts | length == 4'
check_jq "hosts in rank order" "$TMP/t.json" '[.ranks[].node] == [.hostfile.hosts[].ssh]'
check_jq "four entries per rdma list" "$H" 'all(.hosts[]; .rdma | length == 4)'
check_jq "null on the diagonal" "$H" '.hosts as $h | all(range(0; 4); $h[.].rdma[.] == null)'
check_jq "a device everywhere else" "$H" '.hosts as $h | [range(0; 4) as $i | range(0; 4) | select(. != $i) | $h[$i].rdma[.]] | length == 12 and all(type == "string" and test("^rdma_en[0-9]+$"))'
check_jq "every ip is an IPv4 address" "$H" 'all(.hosts[].ips[]; test("^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$"))'
# rdma[i][j] is the device of i's port cabled to j: checked against what the
# nodes report.  MLX's launcher reads hosts[0].ips[0] alone and every rank dials
# it (mlx launch.py:383-386): rank 0's LAN address, the others none.
ok_dev=1
for i in 0 1 2 3; do
	ni=$(jq -r ".hosts[$i].ssh" "$H")
	"$CTL" node show "$ni" --json >"$TMP/n$i.json"
done
for i in 0 1 2 3; do
	for j in 0 1 2 3; do
		[ $i = $j ] && continue
		dev=$(jq -r ".hosts[$i].rdma[$j]" "$H")
		ifc=$(jq -r --arg d "$dev" '.report.rdma.devices[] | select(.name == $d) | .interface' "$TMP/n$i.json")
		peer_dom=$(jq -r --arg i "$ifc" '.report.thunderbolt.ports[] | select(.interface == $i) | .peer.domain_uuid' "$TMP/n$i.json")
		jq_true "$TMP/n$j.json" "[.report.thunderbolt.ports[] | select(.domain_uuid == \"$peer_dom\")] | length == 1" || ok_dev=0
	done
done
check_eq "each device's cable goes to that rank" 1 $ok_dev
lan=$(jq -r '[.report.network.interfaces[]? | select(.kind == "ethernet") | .ipv4[0]] | first // empty' "$TMP/n0.json")
check "rank 0 reports a LAN address" test -n "$lan"
check_jq "hosts[0].ips is rank 0's LAN address alone" "$H" ".hosts[0].ips == [\"$lan\"]"
check_jq "the other hosts list no address" "$H" 'all(.hosts[1:][]; .ips == [])'
check_jq "the plan says where the coordinator comes from" "$TMP/t.json" \
	".coordinator == \"$lan:32323\" and (.coordinator_from | test(\"LAN address\"))"
check "the launch line uses the hostfile" grep -q "mlx.launch --backend jaccl --hostfile $H" \
	<("$CTL" place deepseek-v3.1:4bit --strategy tensor --nodes mac1,mac2,mac3,mac4 --hostfile "$H")

# apply, list, show; what it holds is no longer usable by the next plan
"$CTL" place glm-4.5:4bit --strategy pipeline --nodes mac3,mac4 --apply --json >"$TMP/applied.json"
check_jq "an applied placement has an id and is active" "$TMP/applied.json" '.id >= 1 and .state == "active"'
id=$(jq -r .id "$TMP/applied.json")
held=$(jq '[.ranks[] | select(.node == "mac3") | .total_bytes] | add' "$TMP/applied.json")
"$CTL" placements --json >"$TMP/pl.json"
check_jq "tbctl placements lists it" "$TMP/pl.json" ".placements | length == 1 and .[0].id == $id and .[0].state == \"active\""
check "tbctl placements prints a table" sh -c "$CTL placements | grep -q '^$id  *glm-4.5:4bit  *studio4  *pipeline  *mac3,mac4  *active'"
"$CTL" placement show "$id" --json >"$TMP/show.json"
check_jq "placement show has its ranks and hostfile" "$TMP/show.json" ".id == $id and (.ranks | length) == 2 and .hostfile.backend == \"jaccl-ring\""
# (llama-3.3-70b alone no longer fits on mac3: a pipeline with mac1 shows mac3's rank)
"$CTL" place llama-3.3-70b:4bit --strategy pipeline --nodes mac1,mac3 --runtime exo --json >"$TMP/after.json"
check_jq "mac3's usable memory is less by what the placement holds" "$TMP/after.json" \
	"[.ranks[] | select(.node == \"mac3\") | .usable_bytes] == [274877906944 / 4 * 3 - 8589934592 - $held]"

# a node of the placement is cordoned: degraded, with an event; replan avoids it
"$CTL" node cordon mac4 --reason "fan noise" >/dev/null
check_jq "the placement is degraded" <("$CTL" placement show "$id" --json) '.state == "degraded" and (.reason | test("mac4 is cordoned"))'
"$CTL" events --json >"$TMP/ev.json"
check_jq "with an event" "$TMP/ev.json" "[.events[] | select(.what == \"placement $id degraded\" and .node == \"mac4\")] | length == 1"
"$CTL" placement replan "$id" --json >"$TMP/replan.json"
check_jq "replan proposes a plan without the cordoned node" "$TMP/replan.json" \
	'.id == null and .state == "proposed" and ([.ranks[].node] | index("mac4") == null)'
# the node back: the placement it degraded is active again, with an event
"$CTL" node uncordon mac4 >/dev/null
check_jq "uncordoned, the placement is active again" <("$CTL" placement show "$id" --json) \
	'.state == "active" and (.reason // "") == ""'
"$CTL" events --json >"$TMP/ev.json"
check_jq "with an event naming the node" "$TMP/ev.json" \
	"[.events[] | select(.what == \"placement $id active again\" and .node == \"mac4\" and (.reason | test(\"mac4 is ready again\")))] | length == 1"
check "placement remove" "$CTL" placement remove "$id"
check_jq "the list is empty again" <("$CTL" placements --json) '.placements == []'
"$CTL" placement show "$id" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "a removed placement is gone (status 1)" 1 $rc

# models add: a bad file is refused naming the field; a good one is listed
jq '.models[] | select(.name == "llama-3.3-70b") | .name = "my-llama" | .layers = 81' "$TMP/models.json" >"$TMP/bad-model.json"
"$CTL" models add "$TMP/bad-model.json" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "a model whose KV size disagrees is refused" 1 $rc
check "naming the field" grep -q 'kv_cache_bytes_per_token' "$TMP/err"
code=$(api POST /v1/models "$(cat "$TMP/bad-model.json")")
check_eq "the API refuses it with 400" 400 "$code"
jq '.models[] | select(.name == "llama-3.3-70b") | .name = "my-llama"' "$TMP/models.json" >"$TMP/model.json"
check "models add" "$CTL" models add "$TMP/model.json"
check_jq "it is listed" <("$CTL" models --json) '[.models[].name] | index("my-llama") != null'
"$CTL" models add "$TMP/model.json" >/dev/null 2>&1; rc=$?
check_eq "adding it twice fails" 1 $rc

# bad requests change nothing and say what is wrong
code=$(api POST /v1/placements/plan '{"model":5}')
check_eq "a model that is not a string: 400" 400 "$code"
check_jq "naming the field" "$TMP/api.out" '.error | startswith("model:")'
code=$(api POST /v1/placements/plan '{"model":"nope:4bit"}')
check_eq "an unknown model: 404" 404 "$code"
code=$(api POST /v1/placements/plan '{"model":"llama-3.3-70b:4bit","strategy":"fast"}')
check_eq "an unknown strategy: 400" 400 "$code"
code=$(api POST /v1/placements/plan '{"model":"llama-3.3-70b:4bit","nodes":["mac9"]}')
check_eq "a node not in the cluster: 404" 404 "$code"
"$CTL" place llama-3.3-70b >/dev/null 2>"$TMP/err"; rc=$?
check_eq "tbctl place without :QUANT is a usage error" 2 $rc
code=$(api GET /v1/placements/abc)
check_eq "a placement id that is not a number: 404" 404 "$code"

# restart: models added and placements survive
"$CTL" place glm-4.5:4bit --strategy single --apply >/dev/null
bg_stop "$CTRL_PID"
CTRL_DB_OVERRIDE=$CTRL_DB start_controller place2 --catalog "$TOP/data/catalog.json"
export TBCTL_TOKEN_FILE=$TMP/place.admin-token   # the first start's: no new one is made
check_jq "after a restart the placement is there" <("$CTL" placements --json) '[.placements[] | select(.model == "glm-4.5:4bit")] | length == 1'
check_jq "and the added model" <("$CTL" models --json) '[.models[].name] | index("my-llama") != null'
done_testing
