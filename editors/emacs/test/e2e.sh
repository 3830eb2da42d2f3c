#!/usr/bin/env bash
# End-to-end test of faultline in Emacs with eglot, in batch mode, on an
# example module: a diagnostic on the faulty line, hover, a code action,
# inlay hints and a clean exit (see e2e.el).
#
# usage: editors/emacs/test/e2e.sh [example]     (default: money)
# env:   FAULTLINE_BIN  server binary (default: built from the repository)
#        EMACS          Emacs binary (default: emacs; Debian: emacs-nox elpa-eglot)
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

if "$emacs" --batch -l "$here/e2e.el"; then
  echo "emacs-e2e: 1 passed, 0 failed"
else
  echo "emacs-e2e: 0 passed, 1 failed"
  exit 1
fi
