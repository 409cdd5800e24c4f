#!/usr/bin/env bash
# The search targets of issue 14 (README "Beyond the table"): builds the
# release binary, runs each `retrograde search` under /usr/bin/time -v with a
# time limit, and prints a markdown table of what was proven.
#
# Usage: tools/search-targets.sh [ROW...]
#   ROW is a quoted argument list for `retrograde search`, e.g.
#   tools/search-targets.sh 'mnk:5x5x4' 'connect:7x6 --memory 8G'
#   Without rows: the quick set (a few minutes on 2 cores); `all` adds the
#   long ones (hours: 7x6 Connect-Four, Qubic, Qango, Sogo openings, Cram).
# Environment:
#   LIMIT   seconds each search may run (default 600; 0 = no limit)
#   OUT     directory for proof databases and logs (default: a fresh one
#           under ${TMPDIR:-/tmp}, kept and printed at the end)
#
# Columns: the value (or "unproven" when the limit stopped it; "not a
# loss"/"not a win" when one of the two proofs finished), nodes and nodes/s
# (the search's own count of expanded nodes), wall seconds and peak RSS from
# /usr/bin/time -v. The machine's load is printed before and after: figures
# are only comparable on a quiet machine.
set -euo pipefail

cd "$(dirname "$0")/.."
cargo build --release --quiet
bin="$PWD/target/release/retrograde"
LIMIT="${LIMIT:-600}"
OUT="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/search-targets.XXXXXX")}"
mkdir -p "$OUT"

quick=(
  'tictactoe'
  'mnk:4x4x4'
  'mnk:5x5x3'
  'connect:5x4'
  'connect:6x4'
  'mnk:5x5x4'
  'cram:5x7 --nimber'
)
long=(
  'connect:7x4'
  'connect:6x5'
  'connect:8x4'
  'mnk:6x5x4'
  'mnk:5x6x4'
  'mnk:7x7x5'
  'pattern:games/qango6.txt'
  'pattern:games/qubic.txt'
  'sogo:4 --openings 1'
  'connect:7x6'
  'cram:6x7 --nimber'
  'cram:7x7 --nimber'
)
if [ $# -eq 0 ]; then
  rows=("${quick[@]}")
elif [ "$1" = all ]; then
  rows=("${quick[@]}" "${long[@]}")
else
  rows=("$@")
fi

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; limit ${LIMIT}s per search"
echo
echo "| search | value | nodes | nodes/s | wall s | peak RSS |"
echo "|---|---|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
  # shellcheck disable=SC2206 # the row is an argument list on purpose
  args=($row)
  name=$(echo "$row" | tr ' :/' '___')
  limit=()
  [ "$LIMIT" != 0 ] && limit=(--time "$LIMIT")
  set +e
  /usr/bin/time -v "$bin" search "${args[@]}" "${limit[@]}" --json --quiet \
    --save "$OUT/$name.proof" >"$OUT/$name.json" 2>"$OUT/$name.time"
  set -e
  python3 - "$OUT/$name.json" "$OUT/$name.time" "$row" <<'EOF'
import json, re, sys
j = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
parts = [float(x) for x in wall.split(":")]
secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
if "nimber" in j:
    value = "nimber %s" % j["nimber"] if j["nimber"] is not None else "unproven"
    nodes = j["components"]
elif "openings" in j:
    vals = [o["value"] or "unproven" for o in j["openings"]]
    value = ", ".join("%s %d" % (v, vals.count(v)) for v in sorted(set(vals)))
    # --nimber --openings counts components, as --nimber does.
    nodes = j.get("nodes", j.get("components"))
else:
    value = j["value"] or {("tie", "win"): "not a loss", ("lose", "tie"): "not a win"}.get(
        (j["bounds"]["at_least"], j["bounds"]["at_most"]), "unproven")
    nodes = j["nodes"]
rate = nodes / max(secs, 1e-9)
print("| `%s` | %s | %s | %s | %.1f | %.0f MiB |" % (sys.argv[3], value, f"{nodes:,}", f"{rate:,.0f}", secs, rss / 1024))
EOF
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); proof databases and logs in $OUT"
