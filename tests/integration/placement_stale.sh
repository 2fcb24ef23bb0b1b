#!/usr/bin/env bash
# An applied placement whose hostfile no longer matches the cluster becomes
# stale: the cable between two Macs moves to other receptacles, so the RDMA
# devices MLX would open change (RDMA device names and link-local addresses
# change with a reboot or a cable: MLX issue 3207).  The placement turns
# stale with an event naming the change, tbctl placement replan writes the
# new hostfile, and moving the cable back makes it active again.
. "$(dirname "$0")/../lib/common.sh"
CTL=$BIN/tbctl
SC=$TMP/pair.json
cp "$TOP/tests/scenarios/pair-studio.json" "$SC"
start_controller stale --catalog "$TOP/data/catalog.json"
for n in mac1 mac2; do start_sim_agent "$n" "$SC" --interval 0.3; done
wait_for "two nodes ready" 20 sh -c "$CTL nodes --json | jq -e '[.nodes[] | select(.state == \"ready\")] | length == 2'"
"$CTL" cluster create pair >/dev/null
"$CTL" cluster add pair mac1 mac2 >/dev/null

"$CTL" place llama-3.3-70b:4bit --strategy tensor --nodes mac1,mac2 --apply --json >"$TMP/p.json"
check_jq "a tensor placement over mac1 and mac2 is applied" "$TMP/p.json" \
	'.id >= 1 and .state == "active" and .hostfile.backend == "jaccl"'
id=$(jq -r .id "$TMP/p.json")
dev=$(jq -r '.hostfile.hosts[0].rdma[1]' "$TMP/p.json")
check_eq "mac1's device toward mac2 is its receptacle 1's" rdma_en2 "$dev"
sleep 1
check_jq "it stays active while nothing changes" <("$CTL" placement show "$id" --json) '.state == "active"'

# the cable moves to receptacle 3 on mac1 (rdma_en4): still a passing link
jq '.cables[0].a = "mac1:3"' "$TOP/tests/scenarios/pair-studio.json" >"$SC.new" && mv "$SC.new" "$SC"
wait_for "the placement to become stale" 20 sh -c \
	"$CTL placement show $id --json | jq -e '.state == \"stale\"'"
"$CTL" placement show "$id" --json >"$TMP/s.json"
check_jq "it is stale, saying what changed" "$TMP/s.json" \
	'.state == "stale" and (.reason | test("mac1.s RDMA device toward mac2 rdma_en2 is now rdma_en4"))'
check_jq "with an event" <("$CTL" events --json) \
	"[.events[] | select(.what == \"placement $id stale\")] | length == 1"
"$CTL" placement replan "$id" --hostfile "$TMP/new.json" >/dev/null
check_jq "placement replan writes the new hostfile" "$TMP/new.json" \
	'.backend == "jaccl" and .hosts[0].rdma[1] == "rdma_en4" and .hosts[1].rdma[0] == "rdma_en2"'
check_jq "and rank 0's LAN address is the coordinator" "$TMP/new.json" '.hosts[0].ips == ["192.0.2.31"]'

# the cable back where it was: active again
cp "$TOP/tests/scenarios/pair-studio.json" "$SC"
wait_for "the placement to be active again" 20 sh -c \
	"$CTL placement show $id --json | jq -e '.state == \"active\"'"
check_jq "active again, with an event" <("$CTL" events --json) \
	"[.events[] | select(.what == \"placement $id active\")] | length == 1"
done_testing
