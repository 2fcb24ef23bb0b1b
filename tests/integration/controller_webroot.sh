#!/usr/bin/env bash
# A --web-root serves the regular files inside it only: a FIFO there gets
# 404 at once (opening it used to block the one HTTP thread, and with it
# every route), a symbolic link is not followed (one to the admin token
# file used to be served), a directory is no file.  Every dashboard answer,
# compiled in or from a web root, forbids framing: X-Frame-Options: DENY
# and Content-Security-Policy: frame-ancestors 'none'.
. "$(dirname "$0")/../lib/common.sh"

W=$TMP/www
mkdir -p "$W/js" "$W/sub"
echo '<!doctype html><title>mine</title>' >"$W/index.html"
echo 'export const x = 1;' >"$W/js/app.js"
mkfifo "$W/pipe.js"
echo "outside" >"$TMP/outside.txt"
ln -s "$TMP/outside.txt" "$W/leak.txt"
ln -s "$TMP" "$W/up"
start_controller web --web-root "$W"
ln -s "$ADMIN_TOKEN_FILE" "$W/token.txt"

code() { curl -s -o "$TMP/body" -D "$TMP/h" -w '%{http_code}' --max-time 5 "$CTRL_URL$1"; }
check_eq "a regular file is served" 200 "$(code /js/app.js)"
check_eq "a FIFO: 404, at once" 404 "$(code /pipe.js)"
check_eq "and every route still answers" 200 "$(code /healthz)"
check_eq "a second FIFO request: 404 too" 404 "$(code /pipe.js)"
check_eq "a symbolic link to a file outside: 404" 404 "$(code /leak.txt)"
check_eq "a symbolic link to the admin token: 404" 404 "$(code /token.txt)"
check "and its secret is not in the body" sh -c "! grep -qF \"\$(cat '$ADMIN_TOKEN_FILE')\" '$TMP/body'"
check_eq "a file under a linked directory: 404" 404 "$(code /up/outside.txt)"
check_eq "a directory: 404" 404 "$(code /sub)"
check_eq "the index: 200" 200 "$(code /)"
check "X-Frame-Options: DENY" grep -qi '^x-frame-options: DENY' "$TMP/h"
check "CSP frame-ancestors 'none'" grep -qi "^content-security-policy: frame-ancestors 'none'" "$TMP/h"
bg_stop "$CTRL_PID"

start_controller embedded
check_eq "the compiled-in dashboard: 200" 200 "$(code /)"
check "X-Frame-Options: DENY there too" grep -qi '^x-frame-options: DENY' "$TMP/h"
check "and the CSP" grep -qi "^content-security-policy: frame-ancestors 'none'" "$TMP/h"
done_testing
