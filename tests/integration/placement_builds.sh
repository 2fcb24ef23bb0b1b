#!/usr/bin/env bash
# Nodes on different macOS builds (os-skew: mac4 on 25D125, the others on
# 25C56, every cable healthy), as during a rolling OS update: no RDMA peers
# across the builds, so no tensor plan and no jaccl ring that spans them,
# with the builds named; pipeline over TCP (the ring backend) still places;
# nodes on the same build keep RDMA.
. "$(dirname "$0")/../lib/common.sh"
SC=$TOP/tests/scenarios/os-skew.json
CTL=$BIN/tbctl
start_controller builds --catalog "$TOP/data/catalog.json"
for n in mac1 mac2 mac3 mac4; do start_sim_agent "$n" "$SC" --interval 0.5; done
wait_for "four nodes ready" 20 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\")] | length == 4'"
"$CTL" cluster create studio4 >/dev/null
"$CTL" cluster add studio4 mac1 mac2 mac3 mac4 >/dev/null

"$CTL" place deepseek-v3.1:4bit --strategy tensor --nodes mac1,mac2,mac3,mac4 >"$TMP/out" 2>"$TMP/err"; rc=$?
check_eq "no tensor plan across two builds (status 1)" 1 $rc
check_eq "the refusal names the builds" \
	"tbctl: deepseek-v3.1:4bit: tensor needs RDMA between every pair: mac1 runs 25C56, mac4 25D125: RDMA peers need matching builds; mac2 runs 25C56, mac4 25D125: RDMA peers need matching builds; mac3 runs 25C56, mac4 25D125: RDMA peers need matching builds (422)" \
	"$(cat "$TMP/err")"
code=$(api POST /v1/placements/plan '{"model":"deepseek-v3.1:4bit","strategy":"tensor","nodes":["mac2","mac4"]}')
check_eq "the API answers 422" 422 "$code"
check_jq "with the same reason" "$TMP/api.out" '.error | contains("mac2 runs 25C56, mac4 25D125: RDMA peers need matching builds")'

# glm-4.5: 92 layers, which mlx-lm's pipeline splits over 2 (deepseek's 61 it cannot)
"$CTL" place glm-4.5:4bit --nodes mac2,mac4 --json >"$TMP/auto.json"
check_jq "auto over mac2 and mac4 falls back to a pipeline over TCP" "$TMP/auto.json" \
	'.strategy == "pipeline" and .hostfile.backend == "ring" and (.hostfile.hosts | all(has("rdma") | not))'
check_jq "and its why says the builds differ" "$TMP/auto.json" \
	'.why | contains("tensor: tensor needs RDMA between every pair: mac2 runs 25C56, mac4 25D125")'
"$CTL" place glm-4.5:4bit --nodes mac2,mac4 >"$TMP/auto.txt"
check "tbctl place prints that why" grep -q 'RDMA peers need matching builds' "$TMP/auto.txt"

"$CTL" place deepseek-v3.1:4bit --strategy tensor --nodes mac1,mac2 --json >"$TMP/same.json"
check_jq "two nodes on the same build keep tensor over RDMA" "$TMP/same.json" \
	'.strategy == "tensor" and .hostfile.backend == "jaccl"'
done_testing
