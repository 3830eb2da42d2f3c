#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, offline apart from the npm
# registry: code-server (npm ci), the native modules of its bundled VS Code
# (code-server's own postinstall, with npm's install-script approvals written
# where the nested installs read them), and Debian's ripgrep in place of the
# binary @vscode/ripgrep would download.
# Needs: node 20, npm, rg, a C++ toolchain and libkrb5-dev libsecret-1-dev
# libxkbfile-dev libx11-dev (see editors/README.md).
set -euo pipefail
cd "$(dirname "$0")"
command -v rg >/dev/null || { echo "setup: rg not found (apt-get install ripgrep)" >&2; exit 1; }

npm ci --no-audit --no-fund
cs=node_modules/code-server
if [ -e "$cs/lib/vscode/node_modules/@vscode/spdlog" ] && [ -x "$cs/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]; then
  echo "setup: code-server's VS Code already installed"
  exit 0
fi

# Native modules VS Code's server loads; @vscode/ripgrep's download is left out.
cat > "$cs/lib/vscode/.npmrc" <<'RC'
allow-scripts=@parcel/watcher,@vscode/spdlog,node-pty,kerberos,native-watchdog,@vscode/deviceid,@vscode/vscode-languagedetection,@microsoft/dynamicproto-js,@tootallnate/once
RC
cat > "$cs/lib/vscode/extensions/.npmrc" <<'RC'
allow-scripts=@parcel/watcher,esbuild
RC
# @vscode/ripgrep's postinstall downloads a prebuilt rg unless its download
# cache (under TMPDIR) already holds the archive: put Debian's rg there.
rg_pkg=$(node -p "require('./$cs/lib/vscode/npm-shrinkwrap.json').packages['node_modules/@vscode/ripgrep'].version")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/vscode-ripgrep-cache-$rg_pkg" "$tmp/rg"
cp "$(command -v rg)" "$tmp/rg/rg"
# The archive name is the one @vscode/ripgrep 1.15.x asks for on x86-64 Linux.
tar czf "$tmp/vscode-ripgrep-cache-$rg_pkg/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$tmp/rg" rg
(
  cd "$cs"
  TMPDIR="$tmp" npm_config_yes=true npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64" \
  npm_config_unsafe_perm=true sh ./postinstall.sh
)
echo "setup: done"
