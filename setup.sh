#!/usr/bin/env bash
# Sets faultline up on a Debian or Ubuntu machine with Go installed: installs
# what it needs (gcc to build it with cgo, Z3's runtime library libz3-4 for
# the angelic analysis, which faultline loads when it runs), installs the
# faultline binary into $(go env GOPATH)/bin, and ranks the suspicious lines
# of a bundled buggy example so that you see it at work.
set -euo pipefail
cd "$(dirname "$0")"

missing=()
dpkg -s libz3-4 >/dev/null 2>&1 || missing+=(libz3-4)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
if ((${#missing[@]})); then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "installing ${missing[*]}"
	$sudo apt-get update -q
	$sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

go install .
bin="$(go env GOPATH)/bin/faultline"
echo "installed $bin"
case ":$PATH:" in *":$(go env GOPATH)/bin:"*) ;; *) echo "(add $(go env GOPATH)/bin to your PATH to run it as faultline)" ;; esac

echo
echo "== faultline rank, in examples/money (a money library whose Allocate has one seeded fault) =="
cd examples/money
"$bin" rank -top 10
