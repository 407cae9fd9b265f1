#!/usr/bin/env bash
# Install the Debian packages the tests use for real, when they are missing (make test runs as
# root; apt-get update runs once, and only when something has to be installed).
# Each line of PACKAGES is "<command that proves it is there> <debian package>".
set -euo pipefail

PACKAGES=(
  "bwrap bubblewrap"
  "go golang-go"
  "curl curl"
  "socat socat"
  "chromium chromium"
  "wrk wrk"
  "haproxy haproxy"
)

missing=()
for entry in "${PACKAGES[@]}"; do
  read -r probe package <<<"$entry"
  command -v "$probe" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: missing ${missing[*]}; install them with your package manager" >&2
  echo "system-deps: (the tests that need them fail with CI=true and skip otherwise)" >&2
  exit 0
fi
echo "system-deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
