#!/usr/bin/env bash
# make install and make uninstall honour PREFIX, DESTDIR, SYSTEMDUNITDIR and
# LAUNCHDDIR: the programs, man pages (sections 1, 7 and 8), example
# configurations and catalog, the systemd units where systemd looks (Linux)
# or the launchd plists where launchd looks (macOS, run here as
# UNAME_S=Darwin), each naming PREFIX's paths and never /usr/local's; make
# uninstall leaves no file behind.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
mk() { make --no-print-directory -s B="$B" SANITIZE="${SANITIZE:-}" PREFIX=/opt/tb "$@"; }
VERSION=$(mk print-VERSION)
D=$TMP/root
P=$D/opt/tb
S=$P/share/tbmesh
mk install DESTDIR="$D" >/dev/null
check_eq "make install exits 0" 0 $?
check "tbagentd installed under DESTDIR/PREFIX" test -x "$P/sbin/tbagentd"
check "tbcontrollerd installed" test -x "$P/sbin/tbcontrollerd"
check "tbctl installed" test -x "$P/bin/tbctl"
check "man pages installed" test -f "$P/share/man/man1/tbctl.1" -a -f "$P/share/man/man8/tbcontrollerd.8" \
	-a -f "$P/share/man/man8/tbagentd.8"
# The section-7 pages (tbmesh(7), tbmesh-wiring(7), ...): every one of man/,
# with PREFIX's paths (MAN_SED), mode 0644.
MAN7=$(cd "$TOP/man" && ls -- *.7 2>/dev/null)
check "there are section-7 pages in man/" test -n "$MAN7"
prefix_sed() {
	sed -e 's|/usr/local/sbin/|/opt/tb/sbin/|g' -e 's|/usr/local/etc/|/opt/tb/etc/|g' \
		-e 's|/usr/local/share/tbmesh|/opt/tb/share/tbmesh|g' \
		-e 's|/usr/local/lib/systemd/system|/opt/tb/lib/systemd/system|g' "$1"
}
for m in $MAN7; do
	check "$m installed in MANDIR/man7, naming PREFIX's paths" \
		cmp -s "$P/share/man/man7/$m" <(prefix_sed "$TOP/man/$m")
	check_eq "$m installed with mode 0644" 644 "$(stat -c %a "$P/share/man/man7/$m" 2>/dev/null)"
done
for f in tbagentd.conf.example tbcontrollerd.conf.example catalog.json tbagentd.service \
	tbcontrollerd.service com.tbmesh.tbagentd.plist com.tbmesh.tbcontrollerd.plist; do
	check "$f in PREFIX/share/tbmesh" test -f "$S/$f"
done
check "the dashboard is not installed as files: tbcontrollerd has it compiled in" test ! -e "$S/web"
for f in prometheus/prometheus.yml prometheus/tbmesh.rules.yml prometheus/tbmesh.rules.test.yml \
	grafana/tbmesh.json; do
	check "$f in PREFIX/share/tbmesh, as in packaging/" cmp -s "$TOP/packaging/$f" "$S/$f"
done
for p in tbagentd tbcontrollerd; do
	check "the systemd unit $p.service in PREFIX/lib/systemd/system" \
		cmp -s "$S/$p.service" "$P/lib/systemd/system/$p.service"
done
check "no launchd plist outside PREFIX on Linux" test ! -e "$D/Library"
for p in tbctl tbagentd tbcontrollerd; do
	b=$P/sbin/$p; [ $p = tbctl ] && b=$P/bin/$p
	check_eq "the installed $p prints the Makefile's VERSION" "$p $VERSION" "$("$b" --version)"
done

# What the service files run: PREFIX's programs; systemd's configuration is /etc/tbmesh,
# launchd's PREFIX/etc/tbmesh.
U=$S/tbagentd.service
check "the agent's unit starts PREFIX's tbagentd" grep -qx 'ExecStart=/opt/tb/sbin/tbagentd -f /etc/tbmesh/tbagentd.conf' "$U"
check "and checks the configuration with it first" \
	grep -qx 'ExecStartPre=/opt/tb/sbin/tbagentd -n -f /etc/tbmesh/tbagentd.conf' "$U"
U=$S/tbcontrollerd.service
check "the controller's unit starts PREFIX's tbcontrollerd" \
	grep -qx 'ExecStart=/opt/tb/sbin/tbcontrollerd -f /etc/tbmesh/tbcontrollerd.conf' "$U"
check "and checks the configuration with it first" \
	grep -qx 'ExecStartPre=/opt/tb/sbin/tbcontrollerd -n -f /etc/tbmesh/tbcontrollerd.conf' "$U"
for p in tbagentd tbcontrollerd; do
	check "the $p plist runs PREFIX's $p" grep -qx "		<string>/opt/tb/sbin/$p</string>" "$S/com.tbmesh.$p.plist"
	check "with PREFIX's etc/tbmesh/$p.conf" grep -qx "		<string>/opt/tb/etc/tbmesh/$p.conf</string>" "$S/com.tbmesh.$p.plist"
done
check "the controller's example configuration names PREFIX's catalog" \
	grep -qx '# catalog = /opt/tb/share/tbmesh/catalog.json' "$S/tbcontrollerd.conf.example"
left=$(grep -rlE '/usr/local/(sbin|etc|share|lib)/' "$S" "$P/share/man" "$P/lib" | sed "s|^$D||" | tr '\n' ' ')
check_eq "no /usr/local program, configuration, data or unit path left in what was installed" "" "$left"
for p in tbagentd tbcontrollerd; do
	check "$p(8) names where its unit was installed" \
		grep -qx ".It Pa /opt/tb/lib/systemd/system/$p.service" "$P/share/man/man8/$p.8"
	check "and its configuration under PREFIX/etc" grep -q "/opt/tb/etc/tbmesh/$p.conf" "$P/share/man/man8/$p.8"
done
check "the installed example configurations pass the installed daemons' -n" sh -c \
	"'$P/sbin/tbagentd' -n -f '$S/tbagentd.conf.example' && '$P/sbin/tbcontrollerd' -n -f '$S/tbcontrollerd.conf.example'" \
	>/dev/null

# The installed controller needs none of PREFIX/share/tbmesh (not there at
# run time under DESTDIR): its catalog is compiled in.
CTRL_BIN=$P/sbin/tbcontrollerd
bg_start "$TMP/ctl.log" "$CTRL_BIN" --db "$TMP/inv.db" --listen 127.0.0.1:0 --admin-token-file "$TMP/tok"
CTRL_PID=$BG_PID
if wait_for "the installed controller to listen" 10 grep -q 'listening on' "$TMP/ctl.log"; then
	code=$(curl -s -o "$TMP/models" -w '%{http_code}' --max-time 10 \
		-H "Authorization: Bearer $(cat "$TMP/tok")" "http://127.0.0.1:$(listen_port_any "$TMP/ctl.log")/v1/models")
	check_eq "the installed controller answers GET /v1/models" 200 "$code"
	check_jq "and knows the catalog's models without PREFIX/share/tbmesh/catalog.json" "$TMP/models" \
		'(.models // .) | length > 0'
else
	not_ok "the installed controller did not start"; bg_tail "$CTRL_PID"
fi
bg_stop "$CTRL_PID"

mk uninstall DESTDIR="$D" >/dev/null 2>&1
check_eq "make uninstall exits 0" 0 $?
check_eq "make uninstall removes the section-7 pages" "" \
	"$(find "$P/share/man/man7" -type f 2>/dev/null | sed "s|^$D||" | tr '\n' ' ')"
left=$(find "$D" -type f | sed "s|^$D||" | tr '\n' ' ')
check_eq "nothing left after uninstall" "" "$left"

# Variables that say "not there": no units installed outside DATADIR.
D=$TMP/nounits
mk install DESTDIR="$D" SYSTEMDUNITDIR= >/dev/null
check "SYSTEMDUNITDIR= installs no unit but DATADIR's copies" test ! -e "$D/opt/tb/lib"
mk uninstall DESTDIR="$D" SYSTEMDUNITDIR= >/dev/null 2>&1
check_eq "and make uninstall removes everything" 0 "$(find "$D" -type f | wc -l)"

# macOS (the same Makefile told it is Darwin; the programs are already built).
D=$TMP/mac
mk install DESTDIR="$D" UNAME_S=Darwin >/dev/null
check_eq "make install on macOS exits 0" 0 $?
check_eq "the section-7 pages installed on macOS too" "$(echo $MAN7)" \
	"$(cd "$D/opt/tb/share/man/man7" 2>/dev/null && echo *.7)"
for p in tbagentd tbcontrollerd; do
	check "the $p plist in /Library/LaunchDaemons" \
		cmp -s "$D/opt/tb/share/tbmesh/com.tbmesh.$p.plist" "$D/Library/LaunchDaemons/com.tbmesh.$p.plist"
done
check "no systemd unit outside PREFIX/share/tbmesh on macOS" test ! -e "$D/opt/tb/lib"
check "the controller's state directory made (its default inventory's)" test -d "$D/var/lib/tbcontrollerd"
check_eq "mode 0700" 700 "$(stat -c %a "$D/var/lib/tbcontrollerd" 2>/dev/null)"
mk uninstall DESTDIR="$D" UNAME_S=Darwin >/dev/null 2>&1
check_eq "make uninstall on macOS leaves no file" "" "$(find "$D" -type f | tr '\n' ' ')"
check "but keeps the controller's state directory (the inventory)" test -d "$D/var/lib/tbcontrollerd"
D=$TMP/mac-nolaunchd
mk install DESTDIR="$D" UNAME_S=Darwin LAUNCHDDIR= >/dev/null
check "LAUNCHDDIR= installs no plist outside PREFIX (Homebrew's way)" test ! -e "$D/Library" -a ! -e "$D/var"
done_testing
