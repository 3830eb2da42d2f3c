#!/usr/bin/env bash
# Runs faultline's whole test suite: vet and build with and without cgo, the
# Go tests (spectra, server, solver, analysis, and the CLI on the bundled
# examples, also as built without cgo or run without libz3), then the editor
# integrations in real editors: Neovim, Emacs with eglot, and VS Code
# (code-server driven by headless Chromium), and the exports with the tools
# that read them (Microsoft's SARIF multitool, the HTML report in headless
# Chromium). Installs the Debian packages it needs when missing.
set -euo pipefail
cd "$(dirname "$0")"

# Z3's runtime library for the solver, and its headers only for the test that
# compares the binding's own declarations with them; Neovim; Emacs, eglot and
# lsp-mode; Chromium, ripgrep and code-server's native build dependencies for
# the VS Code test.
packages=(libz3-4 libz3-dev gcc neovim emacs-nox elpa-eglot elpa-lsp-mode chromium ripgrep libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev build-essential python3)
missing=()
for p in "${packages[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "== installing ${missing[*]}"
	$sudo apt-get update -q
	$sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
command -v npm >/dev/null || { echo "test.sh: the VS Code tests need Node.js 20 and npm" >&2; exit 1; }

echo "== go vet"
go vet ./...
echo "== without cgo: go build, go vet, the Z3 package's test"
CGO_ENABLED=0 go build ./...
CGO_ENABLED=0 go vet ./...
CGO_ENABLED=0 go test -count=1 ./solver/z3
echo "== go test"
go test -count=1 -timeout 45m ./...

bin="$(mktemp -d)/faultline"
go build -o "$bin" .
echo "== Neovim plugin"
editors/nvim/test/plugin.sh
FAULTLINE_BIN="$bin" editors/nvim/test/e2e.sh
echo "== Emacs (eglot)"
FAULTLINE_BIN="$bin" editors/emacs/test/e2e.sh
echo "== Exports: SARIF multitool, report in Chromium"
FAULTLINE_BIN="$bin" test/exports/check.sh
echo "== VS Code extension"
(cd editors/vscode && npm ci --no-audit --no-fund && npm test)
FAULTLINE_BIN="$bin" editors/vscode/test/e2e.sh
