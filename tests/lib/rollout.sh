# Shared by the rollout tests: a controller with an SSH key and N simulated
# Macs (tests/lib/macnode.sh) in one cluster, reachable and trusted, with
# update credentials.  Source after common.sh and macnode.sh.
#   rollout_setup CLUSTER NODE...   sets CTL, PASSWORD; extra controller
#                                    options in ROLLOUT_CTRL_OPTS
#   rollout_wait ID SECONDS STATE   wait until rollout ID is in STATE
#   rollout_json ID                 its JSON in $TMP/ro.json
#   rollout_creds CLUSTER           update credentials for CLUSTER (as
#                                    rollout_setup gives them; for a setup of
#                                    its own, mlx_setup's)
CTL=$BIN/tbctl
PASSWORD='correct horse battery staple'

rollout_setup() {
	local cluster=$1 i=1 n; shift
	macnode_init
	start_controller ctl --ssh-key "$MACNODE_KEY" --state-dir "$TMP/ctl-state" \
		--boot-timeout 60 --ssh-timeout 5 --ssh-command-timeout 20 --install-timeout 60 \
		${ROLLOUT_CTRL_OPTS:-} || return 1
	"$CTL" cluster create "$cluster" >/dev/null || return 1
	for n in "$@"; do
		macnode_start "$n" "$i" || return 1
		i=$((i + 1))
	done
	for n in "$@"; do
		wait_for "$n to enrol" 20 sh -c "$CTL nodes --json | jq -e '.nodes[] | select(.name == \"$n\" and .state == \"ready\")'" ||
			{ cat "$TMP/mac-$n/agent.log"; return 1; }
		"$CTL" cluster add "$cluster" "$n" >/dev/null || return 1
		macnode_register "$n" || return 1
	done
	mkdir -p "$TMP/secret" && chmod 700 "$TMP/secret"
	printf '%s\n' "$PASSWORD" >"$TMP/secret/pw" && chmod 600 "$TMP/secret/pw"
	"$CTL" credentials set --cluster "$cluster" --user admin --password-file "$TMP/secret/pw" >/dev/null
}

rollout_json() { "$CTL" rollout status "$1" --json >"$TMP/ro.json"; }

rollout_wait() {
	wait_for "rollout $1 $3" "$2" sh -c "$CTL rollout status $1 --json | jq -e '.state == \"$3\"'"
}

# rollout_cable NODE...: a full mesh of Thunderbolt cables between the
# simulated Macs (started, not yet necessarily enrolled): each node's
# receptacles 2, 3, 5, 6 (en2, en4, en6, en7) in turn go to the other nodes
# in order, at 80 Gb/s, each end seeing the other's domain UUID and RDMA
# service, with a link-local IPv4 address and an active rdma_enX whose GID
# maps it.  Domain UUIDs are made unique per node.  At most 5 nodes.
rollout_cable() {
	local n dirs=()
	for n in "$@"; do dirs+=("$(macnode_dir "$n")"); done
	python3 - "$TOP/tests/fixtures/macos" "${dirs[@]}" <<'PY' || return 1
import json, re, sys
fx, dirs = sys.argv[1], sys.argv[2:]
slots = [(2, "en2"), (3, "en4"), (5, "en6"), (6, "en7")]
assert len(dirs) <= len(slots) + 1
def uuid(i, r):
    return "%04X%04X-A263-4C55-B302-953416D0B209" % (i + 1, r)
def peers(i):
    return [j for j in range(len(dirs)) if j != i]
devinfo_down = open(fx + "/ibv_devinfo-one-port-down.txt").read()
devinfo_up = open(fx + "/ibv_devinfo-v-active.txt").read()
ifc = open(fx + "/ifconfig-en3-linklocal.txt").read()
for i, d in enumerate(dirs):
    sp = json.load(open(d + "/system_profiler_SPThunderboltDataType.out"))
    buses = sp["SPThunderboltDataType"]
    peer_item = next(b["_items"][0] for b in buses
                     if b.get("_items") and "domain_uuid_key" in b["_items"][0])
    for b in buses:
        r = int(b["receptacle_1_tag"]["receptacle_id_key"])
        b["domain_uuid_key"] = uuid(i, r)
        if any(r == s for s, _ in slots):
            b.pop("_items", None)
            b["receptacle_1_tag"] = {"current_speed_key": "Up to 120 Gb/s",
                "link_status_key": "0x100", "receptacle_id_key": str(r),
                "receptacle_status_key": "receptacle_no_devices_connected"}
    up = {}
    for k, j in enumerate(peers(i)):
        r, en = slots[k]
        jr = slots[peers(j).index(i)][0]
        item = json.loads(json.dumps(peer_item))
        item["_name"] = item["device_name_key"] = "Mac Studio"
        item["domain_uuid_key"] = uuid(j, jr)
        b = next(b for b in buses if b["receptacle_1_tag"]["receptacle_id_key"] == str(r))
        b["_items"] = [item]
        b["receptacle_1_tag"] = {"current_speed_key": "80 Gb/s", "link_status_key": "0x2",
            "micro_version_key": "0.0.0", "receptacle_id_key": str(r),
            "receptacle_status_key": "receptacle_connected"}
        ip = "169.254.%d.%d" % (10 + i, r)
        up[en] = ip
        open(d + "/ifconfig_%s.out" % en, "w").write(
            ifc.replace("en3", en).replace("169.254.205.255", ip))
    json.dump(sp, open(d + "/system_profiler_SPThunderboltDataType.out", "w"), indent=1)
    out = []
    for en in ["en2", "en3", "en4", "en5", "en6", "en7"]:
        if en in up:
            out.append(devinfo_up.replace("rdma_en2", "rdma_" + en)
                       .replace("169.254.205.255", up[en]))
        else:
            if en not in ("en3", "en5"):
                open(d + "/ifconfig_%s.out" % en, "w").write(
                    re.sub(r"\tinet .*\n", "", ifc.replace("en3", en)).replace(
                        "status: active", "status: inactive"))
            out.append(devinfo_down.replace("rdma_en1", "rdma_" + en))
    open(d + "/ibv_devinfo.out", "w").write("".join(out))
    # `ifconfig -a`, which the agent reads every collection: each cabled
    # port's stanza as its own ifconfig shows it, the others without
    # address and inactive, as a Mac shows them after the change
    stanzas, cur = [], None
    for line in open(d + "/ifconfig.out").read().splitlines(True):
        m = re.match(r"(\S+): flags=", line)
        if m:
            cur = [m.group(1), line]
            stanzas.append(cur)
        elif cur is not None:
            cur[1] += line
    text = ""
    for name, body in stanzas:
        if name in up:
            body = ifc.replace("en3", name).replace("169.254.205.255", up[name])
        elif name in ("en2", "en4", "en6", "en7"):
            body = re.sub(r"\tinet .*\n", "", body).replace("status: active",
                                                              "status: inactive")
        text += body
    open(d + "/ifconfig.out", "w").write(text)
PY
}

# rollout_wiring_pass CLUSTER SECONDS: wait until every expected link passes.
rollout_wiring_pass() {
	wait_for "$1's links to pass" "$2" sh -c \
		"$CTL wiring check $1 --json | jq -e '(.links | length) > 0 and all(.links[]; .pass)'"
}

rollout_creds() {
	mkdir -p "$TMP/secret" && chmod 700 "$TMP/secret"
	printf '%s\n' "$PASSWORD" >"$TMP/secret/pw" && chmod 600 "$TMP/secret/pw"
	"$CTL" credentials set --cluster "$1" --user admin --password-file "$TMP/secret/pw" >/dev/null
}
