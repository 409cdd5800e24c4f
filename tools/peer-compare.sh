#!/usr/bin/env bash
# Isolation solve times side by side with a peer solver: the published C++
# solver of Gao & Li (github.com/GaoFangshu/solve-games,
# final_project/Isolate_Solver.cpp), which you build yourself: this script
# neither downloads nor contains its code.
#
# Usage: tools/peer-compare.sh PEER BOARD [RUNS] [-- SOLVE-OPTIONS...]
#   PEER   the peer's binary, built for BOARD: set its `#define N` (rows) and
#          `#define M` (columns), replace `%I64d` by `%lld`, then
#          `g++ -O3 -o PEER Isolate_Solver.cpp`
#   BOARD  RxC, e.g. 4x5 (must be the size PEER was built for: the script
#          checks the peer's "TOTAL_POSITION" line against R·C·R·C·2^(R·C))
#   RUNS   alternations (default 3): each runs the peer, then ours, in a
#          fresh scratch directory (each writes its own table there)
#   SOLVE-OPTIONS  passed to `retrograde solve isolation:BOARD` (default:
#          none, the default command, checkpoints on)
# Environment:
#   RETROGRADE  our binary (default: target/release/retrograde, built first)
#   NICE        niceness for both programs (default 0; use 10 on a shared box)
#
# Prints a markdown table: run, peer wall s, ours wall s, ratio (peer/ours),
# the load average before each pair, and the medians. Wall times come from
# bash's own clock around each process (the whole process: ours solves,
# writes and syncs its file; the peer solves and writes its database).
set -euo pipefail

cd "$(dirname "$0")/.."

if [[ $# -lt 2 ]]; then
    sed -n '2,25p' "$0" >&2
    exit 2
fi
peer=$(realpath "$1")
board=$2
shift 2
runs=3
if [[ $# -gt 0 && $1 != -- ]]; then
    runs=$1
    shift
fi
[[ ${1:-} == -- ]] && shift
opts=("$@")

if [[ ! $board =~ ^([0-9]+)x([0-9]+)$ ]]; then
    echo "error: BOARD must be RxC, e.g. 4x5 (got '$board')" >&2
    exit 2
fi
rows=${BASH_REMATCH[1]}
cols=${BASH_REMATCH[2]}
if [[ ! -x $peer ]]; then
    echo "error: $peer is not an executable" >&2
    exit 2
fi
if [[ ! $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "error: RUNS must be a positive number (got '$runs')" >&2
    exit 2
fi

if [[ -z ${RETROGRADE:-} ]]; then
    echo "building the release binary..." >&2
    cargo build --release --quiet -p retrograde-cli
    ours=$(realpath "${CARGO_TARGET_DIR:-target}/release/retrograde")
else
    ours=$(realpath "$RETROGRADE")
fi
nice_n=${NICE:-0}

dir=$(mktemp -d "${TMPDIR:-/tmp}/peer-compare.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# Seconds (3 decimals) of one command run in directory $1.
timed() {
    local d=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    (cd "$d" && nice -n "$nice_n" "$@") >"$d/out" 2>"$d/err"
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}'
}

n=$((rows * cols))
want=$((n * n * (1 << n)))
peers=()
oursl=()
echo "| run | load (1 min) | peer s | ours s | peer / ours |"
echo "|---:|---:|---:|---:|---:|"
for ((i = 1; i <= runs; i++)); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    rm -rf "$dir/peer" "$dir/ours"
    mkdir "$dir/peer" "$dir/ours"
    p=$(timed "$dir/peer" "$peer")
    if ! grep -q "TOTAL_POSITION=$want\$" "$dir/peer/err"; then
        echo "error: the peer was not built for ${rows}x$cols (want TOTAL_POSITION=$want):" >&2
        head -n 3 "$dir/peer/err" >&2
        exit 1
    fi
    o=$(timed "$dir/ours" "$ours" solve "isolation:$board" "${opts[@]}" -o "$dir/ours/t.rtb")
    peers+=("$p")
    oursl+=("$o")
    echo "| $i | $load | $p | $o | $(echo "$p $o" | awk '{printf "%.1f", $1 / $2}')× |"
done

median() {
    printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
mp=$(median "${peers[@]}")
mo=$(median "${oursl[@]}")
echo "| median | | $mp | $mo | $(echo "$mp $mo" | awk '{printf "%.1f", $1 / $2}')× |"
echo
echo "ours: $(head -n 1 "$dir/ours/out")"
echo "peer: $(grep -h "Start position" "$dir/peer"/log_* 2>/dev/null || echo '(no log)')"
