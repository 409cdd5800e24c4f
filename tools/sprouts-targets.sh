#!/usr/bin/env bash
# Sprouts targets (issue 27): the outcome of the n-spot game, normal play
# for n = FROM..TO, or misère, each run as its own `retrograde search`
# under /usr/bin/time -v, saving its proof database, then re-proving that
# database with --check. Prints one markdown row per n:
#
#   | n | outcome | published | wall s | CPU s | peak RSS | db entries | check s |
#
# (wall s: the search's own time; CPU s: user + system time of the process,
# from /usr/bin/time -v, which on a loaded machine is the fairer figure;
# check s: wall time of `--check` re-proving the saved database)
# and stops at the first n not proven within the time limit.
#
# Usage: tools/sprouts-targets.sh normal 1 20
#        tools/sprouts-targets.sh misere 1 12
# Environment:
#   LIMIT   seconds per n (default 600)
#   MEMORY  --memory per run (default 3G)
#   OUT     where the databases go (default a fresh directory under /tmp)
#
# Published values (the same lists as tests/search/sprouts.rs): normal
# play, the first player wins exactly when n mod 6 is 3, 4 or 5 (Applegate,
# Jacobson and Sleator 1991; proved to n = 32 by Glop, Lemoine and Viennot;
# SPOTS, 2025, to 62); misère, OEIS A164950.
set -euo pipefail
cd "$(dirname "$0")/.."

play=${1:?normal or misere}
from=${2:?first n}
to=${3:?last n}
limit=${LIMIT:-600}
memory=${MEMORY:-3G}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/sprouts-targets.XXXXXX")}
bin=target/release/retrograde
[ -x "$bin" ] || cargo build --release -p retrograde-cli

misere_wins=(x 1 0 0 0 1 1 0 0 0 1 1 1 0 0 0 1 1 1 0 0)

echo "load: $(uptime)"
echo "| n | outcome | published | wall s | CPU s | peak RSS | db entries | check s |"
echo "|---|---|---|---|---|---|---|---|"
for n in $(seq "$from" "$to"); do
    if [ "$play" = misere ]; then
        spec="sprouts:$n:misere"
        pub=$([ "${misere_wins[$n]:-?}" = 1 ] && echo win || echo lose)
    else
        spec="sprouts:$n"
        case $((n % 6)) in 3 | 4 | 5) pub=win ;; *) pub=lose ;; esac
    fi
    db="$out/$(echo "$spec" | tr : -).db"
    log="$out/$(echo "$spec" | tr : -).log"
    status=0
    /usr/bin/time -v nice -n 10 "$bin" search "$spec" --memory "$memory" --time "$limit" \
        --save "$db" -q --json >"$log.json" 2>"$log" || status=$?
    secs=$(sed -n 's/.*"seconds":\([0-9.e+-]*\).*/\1/p' "$log.json" | head -1)
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    cpu=$(awk '/User time|System time/ { s += $NF } END { printf "%.2f", s }' "$log")
    value=$(sed -n 's/.*"value":"\([a-z]*\)".*/\1/p' "$log.json" | head -1)
    entries=$(sed -n 's/.*"saved":\([0-9]*\).*/\1/p' "$log.json" | head -1)
    if [ "$status" != 0 ] || [ -z "$value" ]; then
        printf '| %s | not proven in %s s (exit %s) | %s | %s | %s | %s MiB | %s | |\n' \
            "$n" "$limit" "$status" "$pub" "$secs" "$cpu" "$((rss / 1024))" "${entries:-}"
        break
    fi
    check=$( { /usr/bin/time -f '%e' nice -n 10 "$bin" search "$spec" --check "$db" \
        --memory "$memory" >/dev/null; } 2>&1 | tail -1)
    printf '| %s | %s | %s | %.2f | %s | %s MiB | %s | %s |\n' \
        "$n" "$value" "$pub" "$secs" "$cpu" "$((rss / 1024))" "$entries" "$check"
done
echo "databases and logs in $out"
