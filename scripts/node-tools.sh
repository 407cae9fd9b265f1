#!/usr/bin/env bash
# Install the pinned npm packages the code tools' TypeScript/JavaScript tests use (typescript,
# eslint, vitest, jest) into a cache outside the source tree, and print its directory.
# Idempotent and fast when already done: a stamp file records the pins that were installed.
# The directory is $TOOLWIRE_NODE_TOOLS, else ${XDG_CACHE_HOME:-~/.cache}/toolwire/node-tools.
set -euo pipefail

PINS=(
  "typescript@5.9.3"
  "eslint@9.9.1"
  "vitest@2.1.9"
  "jest@29.6.3"
)

dir="${TOOLWIRE_NODE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/toolwire/node-tools}"
want="${PINS[*]}"
done_already() { [ -f "$dir/.pins" ] && [ "$(cat "$dir/.pins")" = "$want" ] && [ -d "$dir/node_modules/.bin" ]; }

if done_already; then
  echo "$dir"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "node-tools: npm is not installed (install Node.js 18 or newer)" >&2
  exit 1
fi
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9  # a second caller waits for the first install, then finds it done
if ! done_already; then
  [ -f "$dir/package.json" ] || printf '{"name": "toolwire-node-tools", "private": true}\n' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --save-exact --loglevel=error "${PINS[@]}" >&2
  printf '%s' "$want" >"$dir/.pins"
fi
echo "$dir"
