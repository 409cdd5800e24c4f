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
# Prints a markdown table: run, the load average before each pair, peer and
# ours wall s and CPU s (user + system), the ratios (peer/ours), and the
# medians. Wall times come from bash's own clock around each process (the
# whole process: ours solves, writes and syncs its file; the peer solves and
# writes its database); CPU times from GNU time when /usr/bin/time exists.
# The peer runs on one thread, ours on every core: on a loaded machine the
# wall ratio depends on the load, the CPU ratio much less.
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

# "WALL CPU" seconds of one command run in directory $1 (CPU "-" without
# GNU time).
timed() {
    local d=$1
    shift
    local t0 t1 cpu=-
    t0=$(date +%s.%N)
    if [[ -x /usr/bin/time ]]; then
        (cd "$d" && /usr/bin/time -o "$d/time" -f "%U %S" nice -n "$nice_n" "$@") >"$d/out" 2>"$d/err"
        cpu=$(awk '{printf "%.2f", $1 + $2}' "$d/time")
    else
        (cd "$d" && nice -n "$nice_n" "$@") >"$d/out" 2>"$d/err"
    fi
    t1=$(date +%s.%N)
    echo "$t0 $t1 $cpu" | awk '{printf "%.3f %s\n", $2 - $1, $3}'
}

# a / b to one decimal, or "-".
ratio() {
    echo "$1 $2" | awk '{ if ($1 == "-" || $2 == "-" || $2 == 0) print "-"; else printf "%.1f×", $1 / $2 }'
}

n=$((rows * cols))
want=$((n * n * (1 << n)))
peers=()
oursl=()
peerc=()
oursc=()
echo "| run | load (1 min) | peer wall s | ours wall s | wall ratio | peer CPU s | ours CPU s | CPU ratio |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
for ((i = 1; i <= runs; i++)); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    rm -rf "$dir/peer" "$dir/ours"
    mkdir "$dir/peer" "$dir/ours"
    read -r p pc < <(timed "$dir/peer" "$peer")
    if ! grep -q "TOTAL_POSITION=$want\$" "$dir/peer/err"; then
        echo "error: the peer was not built for ${rows}x$cols (want TOTAL_POSITION=$want):" >&2
        head -n 3 "$dir/peer/err" >&2
        exit 1
    fi
    if ! read -r o oc < <(timed "$dir/ours" "$ours" solve "isolation:$board" "${opts[@]}" -o "$dir/ours/t.rtb"); then
        echo "error: our solve failed:" >&2
        cat "$dir/ours/err" >&2
        exit 1
    fi
    peers+=("$p")
    oursl+=("$o")
    peerc+=("$pc")
    oursc+=("$oc")
    echo "| $i | $load | $p | $o | $(ratio "$p" "$o") | $pc | $oc | $(ratio "$pc" "$oc") |"
done

median() {
    printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
mp=$(median "${peers[@]}")
mo=$(median "${oursl[@]}")
mpc=$(median "${peerc[@]}")
moc=$(median "${oursc[@]}")
echo "| median | | $mp | $mo | $(ratio "$mp" "$mo") | $mpc | $moc | $(ratio "$mpc" "$moc") |"
echo
echo "ours: $(head -n 1 "$dir/ours/out")"
echo "peer: $(grep -h "Start position" "$dir/peer"/log_* 2>/dev/null || echo '(no log)')"
