#!/usr/bin/env bash
# The installed systemd units and launchd plists are ones systemd and launchd
# take: the units pass `systemd-analyze verify` (against the programs and man
# pages make install placed under DESTDIR) and the controller's sandbox
# leaves it exactly what it writes; the plists parse as property lists
# (python3's plistlib), carry the keys launchd needs, and their command lines
# are ones the installed programs accept.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
D=$TMP/root
P=$D/usr/local
make --no-print-directory -s B="$B" SANITIZE="${SANITIZE:-}" install DESTDIR="$D" >/dev/null ||
	{ not_ok "make install DESTDIR=$D failed"; done_testing; }
S=$P/share/tbmesh
U=$P/lib/systemd/system

quiet() { "$@" >/dev/null; }
# unit_key FILE KEY: the values of KEY= in FILE, one a line.
unit_key() { sed -n "s/^$2=//p" "$1"; }

# --- systemd -------------------------------------------------------------
# Each installed unit, its programs' paths moved under DESTDIR, verified with
# the installed man pages on MANPATH (Documentation=man:...).
verify_unit() {
	local name=$1 dir=$TMP/units
	mkdir -p "$dir"
	sed "s|/usr/local/sbin/|$P/sbin/|g" "$U/$name" >"$dir/$name"
	MANPATH=$P/share/man systemd-analyze verify "$dir/$name" >"$TMP/verify.out" 2>&1
}
sa_ok=
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "# no systemd-analyze here: the units are not verified"
else
	# Can it verify at all here?  A unit that can only be right.
	mkdir -p "$TMP/probe"
	printf '[Service]\nExecStart=/bin/true\n' >"$TMP/probe/probe.service"
	if systemd-analyze verify "$TMP/probe/probe.service" >"$TMP/probe.out" 2>&1; then
		sa_ok=1
	else
		echo "# systemd-analyze cannot verify in this environment ($(head -n 1 "$TMP/probe.out")): the units are not verified"
	fi
fi
for name in tbagentd.service tbcontrollerd.service; do
	check "$name installed in PREFIX/lib/systemd/system" test -f "$U/$name"
	[ -n "$sa_ok" ] || continue
	if verify_unit "$name" && [ ! -s "$TMP/verify.out" ]; then ok "systemd-analyze verify $name: clean"
	else not_ok "systemd-analyze verify $name:"; sed 's/^/# /' "$TMP/verify.out"; fi
done
if [ -n "$sa_ok" ]; then
	systemd-analyze security --offline=yes --threshold=20 "$TMP/units/tbcontrollerd.service" \
		>"$TMP/security.out" 2>&1
	rc=$?
	level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$TMP/security.out")
	check_eq "systemd-analyze security: tbcontrollerd.service's exposure is at most 2.0 (it is ${level:-?})" 0 "$rc"
fi

C=$U/tbcontrollerd.service
check_eq "the controller runs as a user of its own (DynamicUser)" yes "$(unit_key "$C" DynamicUser)"
for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes PrivateDevices=yes \
	CapabilityBoundingSet= AmbientCapabilities= UMask=0077 StateDirectoryMode=0700; do
	check "the controller's unit sets $k" grep -qx "$k" "$C"
done
state=/var/lib/$(unit_key "$C" StateDirectory)
check_eq "its state directory is /var/lib/tbcontrollerd" /var/lib/tbcontrollerd "$state"
check_eq "and the only place it writes: no ReadWritePaths" "" "$(unit_key "$C" ReadWritePaths)"
# tbcontrollerd's defaults (its --help) are all in that directory.
"$P/sbin/tbcontrollerd" --help >"$TMP/help"
for opt in db admin-token-file; do
	def=$(sed -n "s/^  --$opt .*(default \([^)]*\)).*/\1/p; /^  --$opt /{n; s/.*(default \([^)]*\)).*/\1/p}" "$TMP/help" | head -n 1)
	check_eq "its default --$opt ($def) is in the state directory" "$state" "$(dirname "${def:-/x/x}")"
done
check "its ExecStartPre checks the configuration ExecStart reads" sh -c \
	"[ \"\$(sed -n 's/^ExecStartPre=\(.*\) -n \(-f .*\)/\1 \2/p' '$C')\" = \"\$(sed -n 's/^ExecStart=//p' '$C')\" ]"
conf=$(sed -n 's/^ExecStart=.* -f \(.*\)/\1/p' "$C")
check_eq "which is /etc/tbmesh/tbcontrollerd.conf" /etc/tbmesh/tbcontrollerd.conf "$conf"
check "the installed example passes the installed tbcontrollerd's -n" \
	quiet "$P/sbin/tbcontrollerd" -n -f "$S/tbcontrollerd.conf.example"
check "ExecReload is SIGHUP, which both daemons handle" sh -c \
	"grep -qx 'ExecReload=/bin/kill -HUP \$MAINPID' '$C' && grep -qx 'ExecReload=/bin/kill -HUP \$MAINPID' '$U/tbagentd.service'"

# --- launchd --------------------------------------------------------------
# plist_check FILE ROOT: python3 prints one "ok -"/"NOT OK -" line a check.
cat >"$TMP/plist_check.py" <<'EOF'
import os, plistlib, sys
path, root = sys.argv[1], sys.argv[2]
name = os.path.basename(path)
label = name[:-len(".plist")]
prog = label.split(".")[-1]
res = []
def check(what, cond):
    res.append(("ok - " if cond else "NOT OK - ") + name + ": " + what)
try:
    with open(path, "rb") as f:
        p = plistlib.load(f)
except Exception as e:
    print("NOT OK - %s does not parse as a property list: %s" % (name, e))
    sys.exit(0)
check("a dictionary", isinstance(p, dict))
known = {"Label", "ProgramArguments", "EnvironmentVariables", "RunAtLoad", "KeepAlive",
         "ThrottleInterval", "ProcessType", "StandardOutPath", "StandardErrorPath",
         "ExitTimeOut", "Umask", "WorkingDirectory", "UserName", "GroupName"}
unknown = sorted(set(p) - known)
check("only keys launchd knows" + (" (not: %s)" % ", ".join(unknown) if unknown else ""), not unknown)
check("Label is the file's name", p.get("Label") == label)
args = p.get("ProgramArguments")
check("ProgramArguments is a list of strings", isinstance(args, list) and args
      and all(isinstance(a, str) for a in args))
args = args or [""]
check("it runs the installed /usr/local/sbin/" + prog, args[0] == "/usr/local/sbin/" + prog)
exe = root + args[0]
check("which make install placed", os.path.isfile(exe) and os.access(exe, os.X_OK))
check("with -f /usr/local/etc/tbmesh/%s.conf" % prog,
      "-f" in args and args[args.index("-f") + 1:][:1] == ["/usr/local/etc/tbmesh/%s.conf" % prog])
check("RunAtLoad is true", p.get("RunAtLoad") is True)
check("KeepAlive is true (or a condition)", p.get("KeepAlive") is True or isinstance(p.get("KeepAlive"), dict))
log = p.get("StandardErrorPath", "")
check("its standard error goes to a log in /var/log (%s)" % log,
      log.startswith("/var/log/") and log.endswith(".log"))
if "--syslog" not in args:
    check("and, without --syslog, its standard output too", p.get("StandardOutPath") == log)
for k in ("ThrottleInterval", "ExitTimeOut", "Umask"):
    if k in p:
        check(k + " is an integer", type(p[k]) is int)
env = p.get("EnvironmentVariables", {})
check("EnvironmentVariables are strings", all(isinstance(v, str) for v in env.values()))
for line in res:
    print(line)
# for the shell: the arguments, one a line
with open(os.environ["ARGS_OUT"], "w") as f:
    f.write("\n".join(args) + "\n")
EOF
for p in tbagentd tbcontrollerd; do
	f=$S/com.tbmesh.$p.plist
	check "com.tbmesh.$p.plist installed in PREFIX/share/tbmesh" test -f "$f" || continue
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) ok "${line#ok - }" ;;
		*) not_ok "${line#NOT OK - }" ;;
		esac
	done < <(ARGS_OUT=$TMP/$p.args python3 "$TMP/plist_check.py" "$f" "$D")
	# The program takes that command line: the same arguments, the installed
	# example as the configuration, and -n.
	mapfile -t args <"$TMP/$p.args" 2>/dev/null || args=()
	args=("${args[@]/#\/usr\/local\/sbin\//$P/sbin/}")
	args=("${args[@]/#\/usr\/local\/etc\/tbmesh\/$p.conf/$S/$p.conf.example}")
	check "$p accepts the plist's command line (with -n)" quiet "${args[@]:-false}" -n
done
done_testing
