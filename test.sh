#!/usr/bin/env bash
# Runs faultline's whole test suite: vet, the Go tests (which need
# libz3-dev), and the end-to-end tests in real editors (Neovim, VS Code).
# .ci/run installs what this needs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")"

echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 -timeout 30m ./...

