#!/usr/bin/env bash
# Checks faultline's exports with the tools that read them, on
# examples/money:
#   - the SARIF log of `faultline rank -format sarif`, and the empty log of a
#     module without failing tests, with Microsoft's SARIF multitool
#     (`validate`): no error;
#   - the page of `faultline report` in headless Chromium (report.js): it
#     renders, logs no console error and makes no request; its screenshot
#     is kept in $ARTIFACTS;
#   - the same page with axe-core's WCAG 2.1 AA rules (a11y.js): no serious
#     or critical violation; the violations found are kept in $ARTIFACTS.
#
# usage: test/exports/check.sh
# env:   FAULTLINE_BIN  faultline binary (default: built from the repository)
#        CHROMIUM       browser (default: /usr/bin/chromium)
#        ARTIFACTS      where the screenshot, the logs and the validation
#                       results go (default: test/exports/test-results)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
artifacts=${ARTIFACTS:-$here/test-results}
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bin=${FAULTLINE_BIN:-}
if [ -z "$bin" ]; then
  echo "exports: building faultline"
  (cd "$repo" && go build -o "$work/faultline" ./cmd/faultline)
  bin="$work/faultline"
fi
export FAULTLINE_CACHE="$work/cache"

(cd "$here" && npm ci --no-audit --no-fund)
# npm 11 may skip the package's postinstall, which only marks it executable.
chmod u+x "$here/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"

cp -r "$repo/examples/money" "$work/money"
mkdir -p "$work/ok"
cat > "$work/ok/go.mod" <<'MOD'
module example.com/ok

go 1.22
MOD
printf 'package ok\n\nfunc One() int { return 1 }\n' > "$work/ok/ok.go"
printf 'package ok\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal("not one")\n\t}\n}\n' > "$work/ok/ok_test.go"

failed=0
validate() { # name sarif-file
  local out="$artifacts/$1.validation.sarif"
  rm -f "$out"
  "$here/node_modules/.bin/sarif-multitool" validate --output "$out" "$2" >"$artifacts/$1.validation.log" 2>&1
  # The multitool exits 0 whatever it finds; its own SARIF log says.
  if node "$here/validation.js" "$out"; then
    echo "exports: $1: valid SARIF 2.1.0"
  else
    failed=$((failed + 1))
  fi
}

(cd "$work/money" && "$bin" rank -format sarif -o "$work/money.sarif")
cp "$work/money.sarif" "$artifacts/money.sarif"
validate money "$work/money.sarif"
(cd "$work/ok" && "$bin" rank -format sarif -o "$work/ok.sarif")
validate no-failure "$work/ok.sarif"

(cd "$work/money" && "$bin" report -o "$work/report.html")
cp "$work/report.html" "$artifacts/report.html"
if node "$here/report.js" "$work/report.html" "$artifacts/report.png"; then
  echo "exports: report: rendered in Chromium"
else
  failed=$((failed + 1))
fi
if node "$here/a11y.js" "$work/report.html" "$artifacts/report.axe.json"; then
  echo "exports: report: no serious or critical WCAG 2.1 AA violation (axe-core)"
else
  failed=$((failed + 1))
fi

passed=$((4 - failed))
echo "exports: $passed passed, $failed failed"
[ "$failed" = 0 ]
