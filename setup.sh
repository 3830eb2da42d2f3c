#!/usr/bin/env bash
# Sets faultline up on a Debian or Ubuntu machine with Go installed, as root
# or as a user with sudo: installs the Debian packages it needs when they
# are missing (gcc to build it with cgo, and Z3's runtime library libz3-4
# for the angelic analysis, which faultline loads when it runs; the list is
# .ci/packages), installs the faultline binary into $(go env GOPATH)/bin (or $GOBIN),
# and ranks the suspicious lines of a bundled buggy example so that you see
# it at work. Takes about a minute, plus the installs.
set -euo pipefail
cd "$(dirname "$0")"
source .ci/packages.sh

command -v go >/dev/null || { echo "setup.sh: no go command on PATH: install Go $(sed -n 's/^go //p' go.mod) or later (https://go.dev/dl/)" >&2; exit 1; }
mapfile -t missing < <(missing_packages $(packages_for setup))
install_packages "${missing[@]}"

go install ./cmd/faultline
bindir=$(go env GOBIN)
[ -n "$bindir" ] || bindir="$(go env GOPATH)/bin"
bin="$bindir/faultline"
echo "installed $bin ($("$bin" version))"
case ":$PATH:" in *":$bindir:"*) ;; *) echo "(add $bindir to your PATH to run it as faultline)" ;; esac

echo
echo "== faultline rank, in examples/money (a money library whose Allocate has one seeded fault) =="
cd examples/money
"$bin" rank -top 10
