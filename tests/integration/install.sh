#!/usr/bin/env bash
# make install and make uninstall honour PREFIX and DESTDIR, and leave
# nothing behind: what is installed names PREFIX's paths, not /usr/local's.
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP"
D=$TMP/root
make --no-print-directory -s install B="$B" SANITIZE="${SANITIZE:-}" PREFIX=/opt/tb DESTDIR="$D" >/dev/null
check_eq "make install exits 0" 0 $?
check "tbagentd installed under DESTDIR/PREFIX" test -x "$D/opt/tb/sbin/tbagentd"
check "tbcontrollerd installed" test -x "$D/opt/tb/sbin/tbcontrollerd"
check "tbctl installed" test -x "$D/opt/tb/bin/tbctl"
check "man pages installed" test -f "$D/opt/tb/share/man/man1/tbctl.1" -a -f "$D/opt/tb/share/man/man8/tbcontrollerd.8"
check "man page installed" test -f "$D/opt/tb/share/man/man8/tbagentd.8"
check "launchd plist installed" test -f "$D/opt/tb/share/tbmesh/com.tbmesh.tbagentd.plist"
check "the dashboard installed" test -f "$D/opt/tb/share/tbmesh/web/index.html" -a -f "$D/opt/tb/share/tbmesh/web/js/main.js"
check "model catalog installed" test -f "$D/opt/tb/share/tbmesh/catalog.json"
check "installed binary runs" "$D/opt/tb/sbin/tbagentd" --version
U=$D/opt/tb/share/tbmesh/tbagentd.service
P=$D/opt/tb/share/tbmesh/com.tbmesh.tbagentd.plist
check "the unit starts PREFIX's tbagentd" grep -qx 'ExecStart=/opt/tb/sbin/tbagentd -f /etc/tbmesh/tbagentd.conf' "$U"
check "the unit checks the configuration with PREFIX's tbagentd" grep -qx 'ExecStartPre=/opt/tb/sbin/tbagentd -n -f /etc/tbmesh/tbagentd.conf' "$U"
check "the plist runs PREFIX's tbagentd" grep -qx '		<string>/opt/tb/sbin/tbagentd</string>' "$P"
check "the plist reads PREFIX's etc" grep -qx '		<string>/opt/tb/etc/tbmesh/tbagentd.conf</string>' "$P"
n=$(grep -c '/usr/local/sbin\|/usr/local/etc\|/usr/local/share' "$U" "$P" | awk -F: '{ s += $2 } END { print s }')
check_eq "no /usr/local program or configuration path left in the unit and plist" 0 "$n"
"$D/opt/tb/sbin/tbcontrollerd" --help >"$TMP/help" 2>&1
check "the installed tbcontrollerd's default catalog is PREFIX's" \
	grep -q '(default /opt/tb/share/tbmesh/catalog.json' "$TMP/help"
check "and not /usr/local's" test "$(grep -c /usr/local/share "$TMP/help")" = 0
M=$D/opt/tb/share/man/man8/tbcontrollerd.8
check "the installed tbcontrollerd(8) gives the same default catalog" \
	grep -qx '.Pa /opt/tb/share/tbmesh/catalog.json' "$M"
check_eq "and no /usr/local path" 0 "$(grep -c /usr/local "$M")"
make --no-print-directory -s uninstall B="$B" SANITIZE="${SANITIZE:-}" PREFIX=/opt/tb DESTDIR="$D" >/dev/null
check_eq "make uninstall exits 0" 0 $?
left=$(find "$D" -type f | wc -l)
check_eq "nothing left after uninstall" 0 "$left"
# The build dir is shared with the other tests: build it back for the
# default PREFIX (a change of PREFIX rebuilds what compiles DATADIR in).
make --no-print-directory -s B="$B" SANITIZE="${SANITIZE:-}" "$B/tbcontrollerd" >/dev/null
check "a build for the default PREFIX names /usr/local's catalog again" \
	sh -c "'$BIN/tbcontrollerd' --help | grep -q '(default /usr/local/share/tbmesh/catalog.json'"
done_testing
