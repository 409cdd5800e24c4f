#!/bin/bash
# A search of hours or days in rounds (docs/campaigns/sprouts20.md):
#   retrograde search SPEC [POSITION] --load round-N.proof --save round-(N+1).proof
# each round SLICE seconds long, saving every SAVE_EVERY seconds, and starting
# from what the round before saved (a stopped search saves every position or
# couple it settled). Resumable at any time: run it again (after a kill, a
# crash, or with a newer binary in BIN); it loads the newest whole database.
# The campaign ends when a round proves the position (exit 0).
#
# Usage: tools/search-campaign.sh SPEC [POSITION]
# Environment: DIR (default ./campaign-SPEC), BIN (default: retrograde on
# PATH, else this checkout's target/release/retrograde), SLICE (3600),
# SAVE_EVERY (1200), MEMORY (4G), TRUST_LOAD=1 to load with --trust-load
# (not re-proven first; re-prove the last database once with --check).
# `touch DIR/STOP` ends it after the round under way. Run it detached and at
# low priority, e.g.
#   setsid nohup tools/search-campaign.sh sprouts:20 > /dev/null 2>&1 &
set -u
[ $# -ge 1 ] || { echo "usage: $0 SPEC [POSITION]" >&2; exit 2; }
SPEC=$1
shift
DIR=${DIR:-$PWD/campaign-${SPEC//[:\/]/-}}
BIN=${BIN:-$(command -v retrograde || echo "$(dirname "$0")/../target/release/retrograde")}
SLICE=${SLICE:-3600}
SAVE_EVERY=${SAVE_EVERY:-1200}
MEMORY=${MEMORY:-4G}
# Resolved before the cd below, so a relative BIN names the same file.
BIN=$(realpath "$BIN") || exit 1
mkdir -p "$DIR" && cd "$DIR" || exit 1
# Low priority for the whole session (autogroups: see sogo-campaign.sh).
echo 19 > /proc/self/autogroup 2>/dev/null
while true; do
    if [ -e STOP ]; then echo "$(date -Is) stopped (STOP)" >> campaign.log; exit 0; fi
    # Each save is renamed into place whole: any round-N.proof present is.
    # Every one present is loaded (merged key by key): a round's last save
    # holds all it loaded (re-proved, or carried as read when it was stopped
    # first), but a round killed early may have left only a periodic save
    # made before it had read its load, so older files go only after a
    # round ended of itself.
    rounds=$(ls round-*.proof 2>/dev/null | sed -n 's/^round-\([0-9]*\)\.proof$/\1/p' | sort -n)
    last=$(echo "$rounds" | tail -1)
    load=()
    if [ -z "$last" ]; then next=1; else
        next=$((last + 1))
        load=(--load)
        for r in $rounds; do load+=("round-$r.proof"); done
        if [ "${TRUST_LOAD:-0}" = 1 ]; then load+=(--trust-load); fi
    fi
    echo "$(date -Is) round $next: ${load[*]:-nothing loaded}" >> campaign.log
    nice -n 19 "$BIN" search "$SPEC" "$@" --memory "$MEMORY" --time "$SLICE" \
        --save-every "$SAVE_EVERY" --save "round-$next.proof" "${load[@]}" --json \
        > "round-$next.json" 2> "round-$next.log"
    code=$?
    echo "$(date -Is) round $next: exit $code" >> campaign.log
    # 0 proven: done; 3 stopped by --time: the next round; anything else (a
    # kill, an error) ends the campaign until this script is run again.
    if [ "$code" != 3 ]; then exit "$code"; fi
    # The older databases go once a round ended of itself (proven, or
    # stopped by --time) with its last save written.
    if [ -n "$last" ] && [ -e "round-$next.proof" ] &&
        { [ "$code" = 0 ] || [ "$code" = 3 ]; } &&
        grep -q '"saved":[1-9]' "round-$next.json"; then
        for r in $rounds; do rm -f "round-$r.proof"; done
    fi
done
