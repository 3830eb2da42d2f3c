#!/usr/bin/env bash
# End-to-end tests of faultline in Emacs, in batch mode, on an example
# module, trusted with `faultline trust`: with eglot, a diagnostic on the faulty line, hover, a code action,
# inlay hints and a clean exit (e2e.el); with lsp-mode, the diagnostic and
# no unknown notification (lsp-mode.el). Then, on an untrusted module whose
# .dir-locals.el tries to trust it through eglot's workspace configuration,
# that no test runs until an explicit run (trust.el).
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
  (cd "$repo" && go build -o "$work/faultline" ./cmd/faultline)
  export FAULTLINE_BIN="$work/faultline"
fi

# eglot finds the project through version control, as in a user's clone.
cp -r "$repo/examples/$example" "$work/$example"
git -C "$work/$example" init -q
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$repo/examples/$example/fault.json" "$1"; }
export MODULE="$work/$example" FAULT_FILE=$(field file) FAULT_LINE=$(field line)
export FAULTLINE_CACHE="$work/cache" HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
mkdir -p "$HOME"
# A batch Emacs cannot answer the server's question whether to run the
# module's tests, so the module is trusted first, as a user of a client
# without that question would.
"$FAULTLINE_BIN" trust "$MODULE"

passed=0 failed=0
# run_el runs one test file, with the environment assignments given after it.
run_el() {
  local test=$1
  shift
  if env "$@" "$emacs" --batch -l "$here/$test.el"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}
run_el e2e
run_el lsp-mode

# A module whose tests leave a marker when they run, in its own repository,
# not trusted, with the .dir-locals.el that once trusted it without a prompt.
marker="$work/marker"
mkdir -p "$marker"
awk -v dir="$marker" '/^-- .* --$/ { file = dir "/" substr($0, 4, length($0) - 6); next } file { print > file }' \
  "$repo/server/testdata/marker.txtar"
cat > "$marker/.dir-locals.el" <<'EL'
((nil . ((eglot-workspace-configuration . (:faultline (:trust "always"))))))
EL
git -C "$marker" init -q
# A go command that logs its invocations: the server runs none before consent.
mkdir -p "$work/go-log"
cat > "$work/go-log/go" <<SH
#!/bin/sh
echo "\$*" >> "$work/go-invocations"
exec "$(command -v go)" "\$@"
SH
chmod +x "$work/go-log/go"
run_el trust MODULE="$marker" GO_LOG="$work/go-invocations" PATH="$work/go-log:$PATH"
echo "emacs-e2e: $passed passed, $failed failed"
[ "$failed" = 0 ]
