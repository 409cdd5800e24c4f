#!/usr/bin/env bash
# The explorer's load figures for the README: `retrograde serve` with its
# default options on an isolation:4x4 table, N keep-alive clients on loopback
# asking for positions with their moves and boards (as the page does) for T
# seconds; prints requests/s and latency percentiles. The clients run on the
# same machine as the server, so on 2 cores they take a share of its CPU.
#   tools/serve-load.sh [CLIENTS] [SECONDS]     (default 16 clients, 10 s)
set -euo pipefail
cd "$(dirname "$0")/.."
SERVE_LOAD_CLIENTS="${1:-16}" SERVE_LOAD_SECONDS="${2:-10}" \
  cargo test --release --test serve load::figures -- --ignored --nocapture 2>&1 \
  | grep -E '^serve load:|test result|panicked'
