#!/usr/bin/env bash
# The Python package as a user gets it: `pip install ./python` (maturin builds
# the PyO3 extension from source, with python/Cargo.lock) into a fresh virtual
# environment, then its pytest suite against tables solved by the release
# binary. PYTHON_VENV sets where the environment goes.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${PYTHON_VENV:-target/python-venv}"
rm -rf "$venv"
# Debian's packaged python3 has no venv module until python3-venv is
# installed; pyenv's and python.org's have it.
python3 -m venv "$venv" 2>/dev/null || {
  if [ "$(id -u)" != 0 ]; then
    echo "test-python: python3 has no venv module: apt-get install python3-venv (as root)" >&2
    exit 1
  fi
  rm -rf "$venv"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$venv"
}
"$venv/bin/pip" install --quiet ./python pytest
cargo build --release --bin retrograde
bin="${CARGO_TARGET_DIR:-target}/release/retrograde"
RETROGRADE_BIN="$(cd "$(dirname "$bin")" && pwd)/retrograde" "$venv/bin/pytest" -q python/tests
