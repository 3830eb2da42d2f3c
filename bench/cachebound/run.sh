#!/bin/sh
# Runs faultline rank RUNS times (default 50) on a copy of a module
# (default examples/calc) whose code changes before every run, in a fresh
# cache, and prints the file cache's size after each run next to its bound.
# The bound is $FAULTLINE_CACHE_MAX (default 1GiB). Run from the repository
# root: bench/cachebound/run.sh [RUNS] [MODULE]
set -eu
runs=${1:-50}
src=${2:-examples/calc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/faultline" ./cmd/faultline
cp -r "$src" "$work/mod"
export FAULTLINE_CACHE="$work/cache"
# The code edit: a new function in the first non-test file of the root
# package, so every test binary of the package is built again.
file=$(ls "$work"/mod/*.go | grep -v '_test\.go$' | head -1)
echo "module $src, edited file $(basename "$file"), bound ${FAULTLINE_CACHE_MAX:-1GiB}"
echo "run seconds cache-bytes test-binaries"
for i in $(seq 1 "$runs"); do
	printf '\nfunc cacheBoundEdit%d() int { return %d }\n' "$i" "$i" >>"$file"
	start=$(date +%s)
	(cd "$work/mod" && "$work/faultline" rank >/dev/null 2>"$work/stderr") || {
		cat "$work/stderr" >&2
		exit 1
	}
	bytes=$(du -sb "$FAULTLINE_CACHE/filecache" | cut -f1)
	bins=$(find "$FAULTLINE_CACHE/filecache" -path '*testbin*' -type f | wc -l)
	echo "$i $(($(date +%s) - start)) $bytes $bins"
done
"$work/faultline" cache
