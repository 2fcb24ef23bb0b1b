# Shared by the rollout tests: a controller with an SSH key and N simulated
# Macs (tests/lib/macnode.sh) in one cluster, reachable and trusted, with
# update credentials.  Source after common.sh and macnode.sh.
#   rollout_setup CLUSTER NODE...   sets CTL, PASSWORD; extra controller
#                                    options in ROLLOUT_CTRL_OPTS
#   rollout_wait ID SECONDS STATE   wait until rollout ID is in STATE
#   rollout_json ID                 its JSON in $TMP/ro.json
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
