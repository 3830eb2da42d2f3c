#!/usr/bin/env bash
# End-to-end test of the VS Code extension: package the .vsix, install
# code-server and playwright-core (test/e2e/setup.sh), build faultline, and
# run test/e2e/e2e.js against an example module in headless Chromium, then
# test/e2e/explain.js on a git history holding a regression and
# test/e2e/operator.js on a module with an operator fault.
#
# usage: editors/vscode/test/e2e.sh [example]     (default: booking)
# env:   FAULTLINE_BIN  server binary (default: built from the repo root)
#        CHROMIUM       browser (default: /usr/bin/chromium)
#        ARTIFACTS      where the screenshot and code-server log go
#                       (default: editors/vscode/test-results)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ext=$(cd "$here/.." && pwd)
repo=$(cd "$ext/../.." && pwd)
example=${1:-booking}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "${FAULTLINE_BIN:-}" ]; then
  echo "vscode-e2e: building faultline"
  (cd "$repo" && go build -o "$work/faultline" ./cmd/faultline)
  export FAULTLINE_BIN="$work/faultline"
fi

echo "vscode-e2e: packaging the extension"
(cd "$ext" && npm ci --no-audit --no-fund && npm run package)

echo "vscode-e2e: installing code-server and playwright-core"
"$here/e2e/setup.sh"

export VSIX="$ext/faultline.vsix"
node "$here/e2e/e2e.js" "$repo/examples/$example"
