#!/usr/bin/env bash
# Compares `retrograde search` variants on the same searches: each search is
# run by every variant in turn, RUNS rounds (so load that comes and goes
# hits all variants alike), each under /usr/bin/time -v. For start-up
# (memory, wall of an easy position), big searches old binary against new,
# and speedup by thread count.
#
# Usage: tools/search-compare.sh [-n RUNS] VARIANT... -- SEARCH...
#   VARIANT  "LABEL=BINARY [ARGS...]", e.g.
#            "before=/tmp/retrograde-old" "t1=target/release/retrograde --threads 1"
#   SEARCH   a quoted argument list for `retrograde search`, e.g.
#            'connect:6x4' 'connect:6x4 34432156' 'mnk:3x3x3'
# Example (threads 1 against 2):
#   tools/search-compare.sh -n 3 "t1=target/release/retrograde --threads 1" \
#     "t2=target/release/retrograde --threads 2" -- connect:6x4 mnk:4x4x4
#
# Environment: NICE, a niceness to run the searches at (e.g. -15, as root,
# so that other work on a shared machine disturbs the timings less).
#
# Prints one markdown row per run: search, variant, round, value, nodes,
# wall seconds, CPU seconds (user + system), peak RSS; the load (uptime)
# before and after. Wall figures are only comparable on a quiet machine;
# CPU seconds and nodes are less sensitive to other work.
set -euo pipefail

runs=1
if [ "${1:-}" = -n ]; then
  runs=$2
  shift 2
fi
variants=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  variants+=("$1")
  shift
done
[ "${1:-}" = -- ] || { echo "usage: $0 [-n RUNS] VARIANT... -- SEARCH..." >&2; exit 2; }
shift
searches=("$@")
[ ${#variants[@]} -gt 0 ] && [ ${#searches[@]} -gt 0 ] || { echo "usage: $0 [-n RUNS] VARIANT... -- SEARCH..." >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/search-compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "load before: $(uptime)"
echo
echo "| search | variant | round | value | nodes | wall s | CPU s | peak RSS |"
echo "|---|---|---:|---|---:|---:|---:|---:|"
for s in "${searches[@]}"; do
  for r in $(seq 1 "$runs"); do
    for v in "${variants[@]}"; do
      label=${v%%=*}
      read -r -a cmd <<< "${v#*=}"
      read -r -a args <<< "$s"
      set +e
      /usr/bin/time -v nice -n "${NICE:-0}" "${cmd[0]}" search "${args[@]}" --json --quiet "${cmd[@]:1}" \
        > "$tmp/out" 2> "$tmp/err"
      set -e
      value=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j.get("value") or "unproven", j.get("nodes"))' "$tmp/out" 2>/dev/null || echo "error -")
      wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/err")
      cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$tmp/err")
      rss=$(awk -F': ' '/Maximum resident/ {printf "%.1f MB", $2/1000}' "$tmp/err")
      echo "| \`$s\` | $label | $r | ${value% *} | ${value#* } | $wall | $cpu | $rss |"
    done
  done
done
echo
echo "load after: $(uptime)"
