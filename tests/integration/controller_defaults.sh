#!/usr/bin/env bash
# A controller with no --web-root and no --catalog, copied alone into an
# empty folder, still serves the dashboard at / and knows the model catalog:
# both are compiled in (packaging/embed.sh, controller/store/embedded.h).  Every
# file of web/ is served byte for byte with its content type and an ETag
# that gives 304; the flags still override both.
. "$(dirname "$0")/../lib/common.sh"

mkdir -p "$TMP/alone"
cp "$BIN/tbcontrollerd" "$TMP/alone/"
bg_start "$TMP/alone.log" env -C "$TMP/alone" ./tbcontrollerd --db x.db --listen 127.0.0.1:0 \
	--admin-token-file tok
wait_for "the lone controller to listen" 10 grep -q 'listening on' "$TMP/alone.log" ||
	{ cat "$TMP/alone.log"; done_testing; }
URL=http://127.0.0.1:$(listen_port_any "$TMP/alone.log")
TOK=$(cat "$TMP/alone/tok")

# get PATH [CURL ARGS]: status; body in $TMP/body, headers in $TMP/h
get() {
	local p=$1; shift
	: >"$TMP/body"   # curl leaves the file as it was when no body comes
	curl -s -D "$TMP/h" -o "$TMP/body" -w '%{http_code}' --max-time 10 "$@" "$URL$p"
}

check_eq "GET /: 200" 200 "$(get /)"
check "/ is web/index.html, byte for byte" cmp -s "$TMP/body" "$TOP/web/index.html"
check "as text/html" grep -qi '^content-type: text/html' "$TMP/h"
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *\([^[:space:]]*\).*/\1/p' "$TMP/h")
check "with an ETag" test -n "$etag"
check_eq "the same ETag in If-None-Match: 304" 304 "$(get / -H "If-None-Match: $etag")"
check_eq "and no body" 0 "$(wc -c <"$TMP/body")"
check_eq "another ETag: 200" 200 "$(get / -H 'If-None-Match: "1-1"')"

n=0
for f in "$TOP"/web/*.html "$TOP"/web/*.css "$TOP"/web/js/*.js; do
	p=${f#"$TOP/web"}
	if [ "$(get "$p")" = 200 ] && cmp -s "$TMP/body" "$f"; then n=$((n + 1))
	else not_ok "$p is not served as it is in web/"; fi
done
total=$(ls "$TOP"/web/*.html "$TOP"/web/*.css "$TOP"/web/js/*.js | wc -l)
check_eq "every file of web/ is served as it is ($total)" "$total" "$n"
check_eq "app.css is text/css" 200 "$(get /app.css)"
check "with its type" grep -qi '^content-type: text/css' "$TMP/h"
check_eq "a file that is not there: 404" 404 "$(get /nothing.js)"
check_eq "a path out of the root: 404" 404 "$(get /../tok --path-as-is)"

want=$(jq '.models | length' "$TOP/data/catalog.json")
check_eq "GET /v1/models: 200" 200 "$(get /v1/models -H "Authorization: Bearer $TOK")"
check_eq "every model of data/catalog.json is known ($want)" "$want" "$(jq '.models | length' "$TMP/body")"
check_eq "the same names" "$(jq -c '[.models[].name] | sort' "$TOP/data/catalog.json")" \
	"$(jq -c '[.models[].name] | sort' "$TMP/body")"
check "the start log says how many" grep -q "model catalog: $want models" "$TMP/alone.log"

# the flags still override: a catalog of one model, a web root of one page
jq '{schema, models: [.models[0]]}' "$TOP/data/catalog.json" >"$TMP/one.json"
mkdir -p "$TMP/www"
echo '<!doctype html><title>mine</title>' >"$TMP/www/index.html"
start_controller over --catalog "$TMP/one.json" --web-root "$TMP/www"
URL=$CTRL_URL
check_eq "--web-root: / is that folder's index.html" 200 "$(get /)"
check "byte for byte" cmp -s "$TMP/body" "$TMP/www/index.html"
check_eq "and the compiled-in files are not served beside it" 404 "$(get /js/main.js)"
get /v1/models -H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" >/dev/null
check_eq "--catalog: only that file's model" 1 "$(jq '.models | length' "$TMP/body")"

# a --catalog that is missing stops the start with its path
"$BIN/tbcontrollerd" --db "$TMP/bad.db" --listen 127.0.0.1:0 --admin-token-file "$TMP/bad.tok" \
	--catalog "$TMP/none.json" >"$TMP/bad.log" 2>&1 </dev/null &
bad=$!
wait_for "a controller with a missing catalog to exit" 10 sh -c "! kill -0 $bad 2>/dev/null"
wait "$bad"
check "a missing --catalog: exit non-zero" test $? -ne 0
check "naming the file" grep -q "$TMP/none.json" "$TMP/bad.log"

done_testing
