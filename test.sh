#!/usr/bin/env bash
# Runs faultline's whole test suite: vet, staticcheck and build with and without cgo, the
# Go tests (spectra, server, solver, analysis, and the CLI on the bundled
# examples, also as built without cgo or run without libz3), then the editor
# integrations in real editors: Neovim, Emacs with eglot and lsp-mode, and
# VS Code (code-server driven by headless Chromium), and the exports with
# the tools that read them (Microsoft's SARIF multitool, the HTML report in
# headless Chromium). Works on a fresh Debian or Ubuntu machine with Go, as
# root or as a user with sudo: it installs the Debian packages of
# .ci/packages that are missing, and Node.js 20 with npm when they are.
set -euo pipefail
cd "$(dirname "$0")"
source .ci/packages.sh

command -v go >/dev/null || { echo "test.sh: no go command on PATH: install Go $(sed -n 's/^go //p' go.mod) or later (https://go.dev/dl/)" >&2; exit 1; }

# node_ok says whether node 20 or later and npm are on PATH: the VS Code
# extension's tests and code-server need them.
node_ok() {
	local v
	v=$(node --version 2>/dev/null) || return 1
	v=${v#v}
	((${v%%.*} >= 20)) && command -v npm >/dev/null
}

# install_node installs Node.js 20 or later with npm: Debian's packages when
# their version is 20 or later (Debian 13); else Debian's npm with the Node.js
# 20 build that the npm registry ships as the package node-linux-<arch>,
# installed under ~/.cache/faultline (nothing else on the system changes).
install_node() {
	apt_update
	local candidate
	candidate=$(apt-cache policy nodejs 2>/dev/null | awk '/Candidate:/ {print $2}')
	install_packages nodejs npm
	if [[ $candidate =~ ^([0-9]+)\. ]] && ((BASH_REMATCH[1] >= 20)); then
		return
	fi
	local arch dir
	case $(uname -m) in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) echo "test.sh: no Node.js 20 for $(uname -m): install Node.js 20 and npm yourself" >&2; return 1 ;;
	esac
	dir=${XDG_CACHE_HOME:-$HOME/.cache}/faultline/node20
	echo "test.sh: Debian's nodejs is ${candidate:-not available}: installing node-linux-$arch@20 from the npm registry into $dir"
	npm install --prefix "$dir" --no-audit --no-fund --no-save "node-linux-$arch@20" >/dev/null
	export PATH="$dir/node_modules/node-linux-$arch/bin:$PATH"
}

mapfile -t missing < <(missing_packages $(packages_for setup test))
node=""
node_ok || node="Node.js 20 and npm"
cat <<MSG
test.sh: the whole test suite: go vet, staticcheck, the Go tests with and without cgo, then
Neovim, Emacs and VS Code against the language server, and the exports in the
tools that read them. It takes about 15 minutes on two cores, and needs the
network for npm's registry (the VS Code extension, code-server, the SARIF
multitool) and the Go module proxy (staticcheck).
MSG
if ((${#missing[@]})) || [ -n "$node" ]; then
	echo "test.sh: first installs what is missing, a few minutes more: ${missing[*]}${node:+${missing[*]:+, }$node}"
fi
install_packages "${missing[@]}"
[ -z "$node" ] || install_node
node_ok || { echo "test.sh: the VS Code tests need Node.js 20 and npm" >&2; exit 1; }

echo "== go vet"
go vet ./...
# staticcheck at a pinned version, run by go run outside the module's go.mod:
# a tool directive would add its requirements to what every install of
# faultline resolves. -matrix checks the cgo and cgo-free builds together, so
# code only one of them uses is not reported as unused.
echo "== staticcheck, with and without cgo"
printf 'cgo: CGO_ENABLED=1\nnocgo: CGO_ENABLED=0\n' | go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -matrix ./...
echo "== without cgo: go build, go vet, the Z3 package's test"
CGO_ENABLED=0 go build ./...
CGO_ENABLED=0 go vet ./...
CGO_ENABLED=0 go test -count=1 ./solver/z3
echo "== go test"
go test -count=1 -timeout 45m ./...

bin="$(mktemp -d)/faultline"
go build -o "$bin" ./cmd/faultline
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
