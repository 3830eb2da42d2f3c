#!/usr/bin/env bash
# End-to-end tests of faultline in Emacs, in batch mode, on an example
# module, trusted with `faultline trust`: with eglot, a diagnostic on the faulty line, hover, a code action,
# inlay hints and a clean exit (e2e.el); with lsp-mode, the diagnostic and
# no unknown notification (lsp-mode.el).
#
# usage: editors/emacs/test/e2e.sh [example]     (default: money)
# env:   FAULTLINE_BIN  server binary (default: built from the repository)
#        EMACS          Emacs binary (default: emacs; Debian: emacs-nox
#                       elpa-eglot elpa-lsp-mode)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
example=${1:-money}
emacs=${EMACS:-emacs}
command -v "$emacs" >/dev/null || { echo "emacs-e2e: $emacs not found (apt-get install emacs-nox elpa-eglot)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${FAULTLINE_BIN:-}" ]; then
  (cd "$repo" && go build -o "$work/faultline" .)
  export FAULTLINE_BIN="$work/faultline"
fi

# eglot finds the project through version control, as in a user's clone.
cp -r "$repo/examples/$example" "$work/$example"
git -C "$work/$example" init -q
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$repo/examples/$example/fault.json" "$1"; }
export MODULE="$work/$example" FAULT_FILE=$(field file) FAULT_LINE=$(field line)
export FAULTLINE_CACHE="$work/cache" HOME="$work/home"
mkdir -p "$HOME"
# A batch Emacs cannot answer the server's question whether to run the
# module's tests, so the module is trusted first, as a user of a client
# without that question would.
"$FAULTLINE_BIN" trust "$MODULE"

passed=0 failed=0
for test in e2e lsp-mode; do
  if "$emacs" --batch -l "$here/$test.el"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "emacs-e2e: $passed passed, $failed failed"
[ "$failed" = 0 ]
