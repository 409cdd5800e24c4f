#!/usr/bin/env bash
# The Python package as a user gets it: `pip install ./python` (maturin builds
# the PyO3 extension from source) into a fresh virtual environment, then its
# pytest suite against tables solved by the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${PYTHON_VENV:-target/python-venv}"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet ./python pytest
cargo build --release --bin retrograde
RETROGRADE_BIN="$PWD/target/release/retrograde" "$venv/bin/pytest" -q python/tests
