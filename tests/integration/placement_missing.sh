#!/usr/bin/env bash
# A cluster with a missing cable (mesh4-studio without mac3-mac4): no tensor
# plan over the four nodes, with the pair named; auto still places the
# model on what the links allow, and pipeline's ranks follow the links.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/missing-cable.json
CTL=$BIN/tbctl
start_controller missing --catalog "$TOP/data/catalog.json"
for n in mac1 mac2 mac3 mac4; do start_sim_agent "$n" "$SC" --interval 0.5; done
wait_for "four nodes ready" 20 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\")] | length == 4'"
"$CTL" cluster create studio4 >/dev/null
"$CTL" cluster add studio4 mac1 mac2 mac3 mac4 >/dev/null

"$CTL" place deepseek-v3.1:4bit --strategy tensor --nodes mac1,mac2,mac3,mac4 >"$TMP/out" 2>"$TMP/err"; rc=$?
check_eq "no tensor plan over the four nodes (status 1)" 1 $rc
check "it says which link is missing" grep -q 'tensor needs a full RDMA mesh: mac3 to mac4 is missing' "$TMP/err"
check_eq "nothing on stdout" 0 "$(wc -c <"$TMP/out")"
code=$(api POST /v1/placements/plan '{"model":"deepseek-v3.1:4bit","strategy":"tensor","nodes":["mac1","mac2","mac3","mac4"]}')
check_eq "the API answers 422" 422 "$code"
check_jq "with the same reason" "$TMP/api.out" '.error | contains("mac3 to mac4 is missing")'

# glm-4.5: 92 layers, 23 a rank under mlx-lm's even split (kimi's 61 it cannot split)
"$CTL" place glm-4.5:4bit --strategy pipeline --nodes mac1,mac2,mac3,mac4 --json >"$TMP/p.json"
check_jq "pipeline still places over the four" "$TMP/p.json" '.strategy == "pipeline" and (.ranks | length) == 4'
check_jq "with mac3 and mac4 not next to each other in the ring" "$TMP/p.json" \
	'[.ranks[].node] as $r | all(range(0; 4); ([$r[.], $r[(. + 1) % 4]] | sort) != ["mac3","mac4"])'
check_jq "and the jaccl-ring hostfile has devices only towards neighbours" "$TMP/p.json" \
	'.hostfile.backend == "jaccl-ring" and (.hostfile.hosts as $h | [range(0; 4) as $i | range(0; 4) | ($h[$i].rdma[.] != null) == (. == ($i + 1) % 4 or . == ($i + 3) % 4)] | length == 16 and all)'
"$CTL" place deepseek-v3.1:4bit --json >"$TMP/auto.json"
check_jq "auto places it on what the links allow" "$TMP/auto.json" '.estimate_tokens_per_second > 0'
done_testing
