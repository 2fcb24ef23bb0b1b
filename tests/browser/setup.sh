# Sourced by the browser tests and the benchmark: browser_setup finds
# Chromium and node, and installs playwright-core (npm ci, from
# tests/browser/package-lock.json) when it is missing.  Returns 0, or 77
# with the reason on stdout when the browser cannot be had here.
browser_setup() {
	local dir=$TOP/tests/browser c found=
	for c in "${TBMESH_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser \
		/Applications/Chromium.app/Contents/MacOS/Chromium; do
		[ -n "$c" ] && [ -x "$c" ] && { found=$c; break; }
	done
	if [ -z "$found" ]; then
		echo "skipped: no Chromium (packaging/deps.sh installs Debian's chromium, or brew's; or set TBMESH_CHROMIUM)"
		return 77
	fi
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "skipped: node and npm are needed to drive Chromium (packaging/deps.sh installs them)"
		return 77
	fi
	if [ ! -f "$dir/node_modules/playwright-core/package.json" ]; then
		echo "# installing playwright-core with npm ci"
		if ! (cd "$dir" && timeout 300 npm ci --no-audit --no-fund --loglevel=error) >&2; then
			echo "skipped: npm ci could not install playwright-core (no access to the npm registry?)"
			return 77
		fi
	fi
	return 0
}
