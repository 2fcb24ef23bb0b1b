#!/usr/bin/env bash
# make install and make uninstall honour PREFIX and DESTDIR, and leave
# nothing behind.
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
make --no-print-directory -s uninstall B="$B" SANITIZE="${SANITIZE:-}" PREFIX=/opt/tb DESTDIR="$D" >/dev/null
check_eq "make uninstall exits 0" 0 $?
left=$(find "$D" -type f | wc -l)
check_eq "nothing left after uninstall" 0 "$left"
done_testing
