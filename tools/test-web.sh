#!/usr/bin/env bash
# The explorer in a real browser: headless Chromium (Debian's package) driven
# by playwright-core against `retrograde serve` (tests/browser/). Installs what
# is missing: Chromium with apt-get when run as root (as CI is), the npm
# packages from tests/browser/package-lock.json. Builds the release binary if
# needed. Prints the screenshot's path.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
  else
    echo "test-web: Chromium is missing: apt-get install chromium (as root)" >&2
    exit 1
  fi
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  else
    echo "test-web: Node.js and npm are missing" >&2
    exit 1
  fi
fi
cargo build --release --bin retrograde
npm ci --prefix tests/browser --no-audit --no-fund --silent
RETROGRADE_BIN="$PWD/target/release/retrograde" node --test tests/browser/
