#!/usr/bin/env bash
# Install Node.js 22 (from the npm registry, as the node-<os>-<arch> package; the system node is
# left alone) and the pinned MCP conformance suite into a cache outside the source tree, and
# print its directory. `make test` runs it; tests/mcp/conformance runs the suite from there.
# Idempotent and fast when already done: a stamp file records the pins that were installed.
# The directory is $TOOLWIRE_CONFORMANCE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/toolwire/conformance.
# Without npm (or offline) it says so and exits 0, so the tests skip; with CI=true it exits 1.
set -euo pipefail

NODE_VERSION="22.23.3"
SUITE="@modelcontextprotocol/conformance@0.1.16"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform="linux-x64" ;;
  Linux-aarch64 | Linux-arm64) platform="linux-arm64" ;;
  Darwin-x86_64) platform="darwin-x64" ;;
  Darwin-arm64) platform="darwin-arm64" ;;
  *) platform="" ;;
esac

dir="${TOOLWIRE_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toolwire/conformance}"
want="node-$platform@$NODE_VERSION $SUITE"
done_already() {
  [ -f "$dir/.pins" ] && [ "$(cat "$dir/.pins")" = "$want" ] \
    && "$dir/node_modules/.bin/node" --version >/dev/null 2>&1
}
give_up() {
  echo "conformance-setup: $1 (the conformance tests fail with CI=true and skip otherwise)" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
}

if done_already; then
  echo "$dir"
  exit 0
fi
[ -n "$platform" ] || give_up "no Node.js build on npm for $(uname -s) $(uname -m)"
command -v npm >/dev/null 2>&1 || give_up "npm is not installed"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9  # a second caller waits for the first install, then finds it done
if ! done_already; then
  [ -f "$dir/package.json" ] \
    || printf '{"name": "toolwire-conformance", "private": true}\n' >"$dir/package.json"
  # node-<platform> ships the binary itself (the "node" package would fetch it in a script).
  npm install --prefix "$dir" --no-audit --no-fund --save-exact --ignore-scripts \
    --loglevel=error "node-$platform@$NODE_VERSION" "$SUITE" >&2 \
    || give_up "npm install of Node.js $NODE_VERSION and $SUITE failed"
  "$dir/node_modules/.bin/node" --version >/dev/null || give_up "the installed node does not run"
  printf '%s' "$want" >"$dir/.pins"
fi
echo "$dir"
