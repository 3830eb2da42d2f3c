#!/usr/bin/env bash
# Plugin tests that need no Go toolchain: the pure-logic unit tests, then the
# e2e driver against the scripted mock server (editors/testdata/mock-server.js)
# on a fixture module. Needs nvim and node.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin_dir=$(cd "$here/.." && pwd)
testdata=$(cd "$plugin_dir/../testdata" && pwd)
nvim=${NVIM:-nvim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

FAULTLINE_PLUGIN_DIR="$plugin_dir" "$nvim" --headless -u NONE -i NONE -n -c "luafile $here/unit.lua" 2>&1 </dev/null

cp -r "$testdata/module" "$work/module"
cd "$work/module"
XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" \
FAULTLINE_CMD="[\"node\",\"$testdata/mock-server.js\",\"$testdata/ranking.json\"]" \
FAULTLINE_PLUGIN_DIR="$plugin_dir" FAULT_FILE="$work/module/calc/calc.go" FAULT_LINE=7 \
FAULTLINE_TOP_N=1 FAULTLINE_E2E_TIMEOUT_MS=20000 \
  "$nvim" --headless -u NONE -i NONE -n -c "luafile $here/e2e.lua" 2>&1 </dev/null
echo "nvim-plugin: 2 passed, 0 failed"
