#!/usr/bin/env bash
# Solve benchmark: builds the release binary, solves each game into a scratch
# directory under /usr/bin/time -v, and prints a markdown table.
#
# Usage: tools/bench.sh [GAME...]      (default: isolation:4x4 isolation:4x5)
#        tools/bench.sh memory-wall    (the jobs of issue 13, default options
#                                       unless the row names one: about
#                                       25 minutes and 8 GiB on 2 cores)
#
# A GAME argument may carry solve options after the spec, quoted as one
# argument: tools/bench.sh isolation:4x4 'isolation:5x5 --fold' 'cram:5x6 --nimbers'.
# Isolation 5x5 (4.7 GiB, about 3 minutes and 4.8 GiB of memory on 2 cores)
# runs only on request: tools/bench.sh isolation:5x5 'isolation:5x5 --fold'.
# Environment:
#   THREADS    worker threads passed to --threads (default: all cores, nproc)
#   BENCH_DIR  where the .rtb files go (default: a fresh directory under
#              ${TMPDIR:-/tmp}, removed at exit; a given BENCH_DIR is kept)
#
# Columns:
#   wall s      elapsed time of the whole `retrograde solve` process (solve,
#               CRC, header, fsync, rename, reopen and start-position probe)
#   peak RSS    "Maximum resident set size" from /usr/bin/time -v; the mapped
#               output file's resident pages count here
#   positions/s (entries - non_positions) / the solve's own wall seconds
#               (`solve --json` seconds: /usr/bin/time rounds to 10 ms)
#   lookups/s   child cells read by the solver / labelling seconds (both
#               from `solve --json`: child_lookups, solve_seconds)
#   disk writes "File system outputs" from /usr/bin/time -v (512-byte units),
#               i.e. the kernel's per-process write_bytes accounting, which
#               charges pages of the shared map to the process that dirties
#               them. Chosen over the before/after difference of sectors
#               written in /proc/diskstats because the device is shared: other
#               processes' writes (and journal traffic) land in that counter
#               too, so it over-reports on a busy machine.
#
# Probe throughput is measured by criterion: `cargo bench --bench probe`
# (and solve in memory versus to a mapped file: `cargo bench --bench solve`).
set -euo pipefail

cd "$(dirname "$0")/.."

if [[ ! -x /usr/bin/time ]]; then
    echo "error: /usr/bin/time (GNU time) is required: apt-get install time" >&2
    exit 1
fi

if [[ $# -eq 1 && $1 == memory-wall ]]; then
    games=(isolation:4x5 'isolation:4x5 --no-checkpoint'
        'isolation:5x5 --fold' 'isolation:5x5 --fold --no-checkpoint'
        isolation:5x5 'isolation:5x5 --no-checkpoint' 'isolation:5x5 --memory 2G'
        connect:6x4 connect:5x5 'connect:7x4 --fold' 'connect:6x5 --fold')
elif [[ $# -gt 0 ]]; then
    games=("$@")
else
    games=(isolation:4x4 isolation:4x5)
fi
threads=${THREADS:-$(nproc)}

echo "building the release binary..." >&2
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/retrograde"

if [[ -n ${BENCH_DIR:-} ]]; then
    dir=$BENCH_DIR
    mkdir -p "$dir"
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/retrograde-bench.XXXXXX")
    trap 'rm -rf "$dir"' EXIT
fi

# The value of a numeric field of the one-line JSON `retrograde solve --json` prints.
json_num() {
    grep -o "\"$1\":[0-9]*" "$2" | head -n 1 | cut -d: -f2 || true
}

# The same for a number that may have a fraction or exponent.
json_float() {
    grep -o "\"$1\":[0-9.eE+-]*" "$2" | head -n 1 | cut -d: -f2 || true
}

# The value after "LABEL: " in /usr/bin/time -v output.
time_field() {
    grep -F "$1" "$2" | head -n 1 | sed 's/.*: //' || true
}

cpu=$(grep -m 1 -E '^(model name|Model|cpu model)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
mem=$(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')
echo "## Machine"
echo
echo "- cores (nproc): $(nproc)"
echo "- CPU: ${cpu:-unknown}"
echo "- memory (free -g): $mem"
echo "- kernel: $(uname -srm)"
echo "- load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- scratch directory: $dir ($(df --output=source,fstype "$dir" | tail -n 1 | tr -s ' '))"
echo
echo "## Solve"
echo
echo "| game | threads | wall s | peak RSS MiB | entries | positions/s | lookups/s | file MiB | disk writes MiB | peer solver (published) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"

# The C++ Isolation solver's published figures (Gao & Li's report: win/lose
# and remoteness in a byte, no symmetry folding) for the same boards.
peer() {
    case "$1" in
    isolation:4x4) echo "3.9 s" ;;
    isolation:4x5) echo "106 s" ;;
    isolation:5x5) echo "114 min 58 s, 20 GB file" ;;
    *) echo "" ;;
    esac
}

for arg in "${games[@]}"; do
    read -ra words <<<"$arg"
    game=${words[0]}
    opts=("${words[@]:1}")
    name=${arg//[:\/ ]/-}
    out="$dir/$name.rtb"
    json="$dir/$name.json"
    timing="$dir/$name.time"
    echo "solving $game with $threads threads..." >&2
    if ! /usr/bin/time -v -o "$timing" "$bin" solve "$game" "${opts[@]}" -o "$out" --threads "$threads" --json >"$json"; then
        echo "error: solving $game failed" >&2
        cat "$timing" >&2 || true
        exit 1
    fi
    elapsed=$(time_field "Elapsed (wall clock) time" "$timing")
    # h:mm:ss or m:ss.ss -> seconds.
    wall=$(awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$elapsed")
    rss_kib=$(time_field "Maximum resident set size" "$timing")
    out_blocks=$(time_field "File system outputs" "$timing")
    entries=$(json_num entries "$json")
    non_positions=$(json_num non_positions "$json")
    lookups=$(json_num child_lookups "$json")
    labelling=$(json_float solve_seconds "$json")
    seconds=$(json_float seconds "$json")
    size=$(stat -c %s "$out")
    awk -v g="$arg" -v peer="$([[ " ${opts[*]} " == *" --fold "* ]] || peer "$game")" -v t="$threads" -v lk="${lookups}" -v ls="${labelling:-0}" -v sec="${seconds:-0}" -v w="$wall" -v r="${rss_kib:-0}" \
        -v e="${entries:-0}" -v np="${non_positions:-0}" -v s="$size" -v b="${out_blocks:-0}" '
        function commas(n,   s, r) {
            s = sprintf("%.0f", n); r = ""
            while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
            return s r
        }
        BEGIN {
            # The solver clock: /usr/bin/time rounds to 10 ms.
            rate = (sec > 0) ? (e - np) / sec : 0
            # Loopy solves walk parents, not children: no figure.
            lrate = (lk == "" || ls <= 0) ? "n/a" : commas(lk / ls)
            printf "| %s | %d | %.2f | %.1f | %s | %s | %s | %.1f | %.1f | %s |\n",
                g, t, w, r / 1024, commas(e), commas(rate), lrate, s / 1048576, b * 512 / 1048576, peer
        }'
done

echo
echo "- load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Probe throughput: run \`cargo bench --bench probe\`; solve in memory versus"
echo "to a mapped file: \`cargo bench --bench solve\`."
