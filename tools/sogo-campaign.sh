#!/bin/bash
# The Sogo 4 campaign (docs/campaigns/sogo4.md): rounds of
#   retrograde search sogo:4 OPENING --load sogo4-N.proof --save sogo4-(N+1).proof
# each proving one first move for SLICE seconds, the three first moves up to
# symmetry (corner a1, edge b1, centre b2) in turn, each round starting from
# every position the rounds before proved (re-proven on loading) and saving
# every SAVE_EVERY seconds. Resumable at any time: run this script again
# (after a kill, a crash, or with a newer binary in BIN); it takes the newest
# whole database and the next opening in turn.
#
# OPENINGS (space-separated positions in Sogo's column notation, default
# "a1 b1 b2") replaces the three first moves by any list, proven in turn the
# same way: c43d's 9-stone position and black's replies, for example.
#
# ENGINE (default alphabeta: the cube's own search; dfpn for the proof-number
# search, which also saves every SAVE_EVERY seconds — alpha-beta saves what it
# proved when its slice ends or it is stopped by SIGTERM).
#
# Environment: DIR (default ./sogo4-campaign), BIN (default: retrograde on
# PATH, else this checkout's target/release/retrograde), SLICE, SAVE_EVERY,
# MEMORY (the search's --memory), TRUST_LOAD=1 to load the newest database
# with --trust-load (not re-proven: a round that re-proves a large database
# can spend its whole slice doing so; re-prove the last one once with
# `retrograde search sogo:4 --check FILE`). Run it detached and at low priority, e.g.
#   setsid nohup tools/sogo-campaign.sh > /dev/null 2>&1 &
set -u
DIR=${DIR:-$PWD/sogo4-campaign}
BIN=${BIN:-$(command -v retrograde || echo "$(dirname "$0")/../target/release/retrograde")}
SLICE=${SLICE:-7200}
SAVE_EVERY=${SAVE_EVERY:-600}
MEMORY=${MEMORY:-3G}
ENGINE=${ENGINE:-alphabeta}
periodic=()
if [ "$ENGINE" = dfpn ]; then periodic=(--save-every "$SAVE_EVERY"); fi
read -r -a OPENINGS <<< "${OPENINGS:-a1 b1 b2}"
COUNT=${#OPENINGS[@]}
# Resolved before the cd below, so a relative BIN names the same file.
BIN=$(realpath "$BIN") || exit 1
mkdir -p "$DIR" && cd "$DIR" || exit 1
# Low priority for the whole session, not only against this session's own
# processes: with the kernel's autogroups, a session (setsid) is scheduled
# as one group beside every other, whatever its processes' nice.
echo 19 > /proc/self/autogroup 2>/dev/null
while true; do
    # `touch STOP` ends the campaign after the round under way (SIGTERM to
    # the search ends that round at once: it saves what it proved).
    if [ -e STOP ]; then echo "$(date -Is) stopped (STOP)" >> campaign.log; exit 0; fi
    # The newest database a run finished or saved periodically (each save
    # is renamed into place whole, so any sogo4-N.proof present is whole).
    # Every one present is loaded (merged key by key): a round's last save
    # holds all it loaded (re-proved, or carried as read when it was stopped
    # first), but a round killed early may have left only a periodic save
    # made before it had read its load, so older files go only after a
    # round ended of itself.
    rounds=$(ls sogo4-*.proof 2>/dev/null | sed -n 's/^sogo4-\([0-9]*\)\.proof$/\1/p' | sort -n)
    last=$(echo "$rounds" | tail -1)
    load=()
    if [ -z "$last" ]; then next=1; else
        next=$((last + 1))
        load=(--load)
        for r in $rounds; do load+=("sogo4-$r.proof"); done
        if [ "${TRUST_LOAD:-0}" = 1 ]; then load+=(--trust-load); fi
    fi
    # The next opening in turn not yet proven (proven.txt: one per line).
    opening=
    for ((i = 0; i < COUNT; i++)); do
        o=${OPENINGS[$(( (next - 1 + i) % COUNT ))]}
        if ! grep -qx "$o" proven.txt 2>/dev/null; then opening=$o; break; fi
    done
    if [ -z "$opening" ]; then echo "$(date -Is) every position proven" >> campaign.log; exit 0; fi
    echo "$(date -Is) round $next: opening $opening, ${load[*]:-nothing loaded}" >> campaign.log
    nice -n 19 "$BIN" search sogo:4 "$opening" --engine "$ENGINE" --memory "$MEMORY" --time "$SLICE" \
        "${periodic[@]}" --save "sogo4-$next.proof" "${load[@]}" --json \
        > "sogo4-$next.json" 2> "sogo4-$next.log"
    code=$?
    echo "$(date -Is) round $next: exit $code" >> campaign.log
    if [ "$code" = 0 ]; then echo "$opening" >> proven.txt; fi
    # The older databases go once a round ended of itself (proven, or
    # stopped by --time) with its last save written.
    if [ -n "$last" ] && [ -e "sogo4-$next.proof" ] &&
        { [ "$code" = 0 ] || [ "$code" = 3 ]; } &&
        grep -q '"saved":[1-9]' "sogo4-$next.json"; then
        for r in $rounds; do rm -f "sogo4-$r.proof"; done
    fi
    # 0 proven, 3 stopped by --time: go on; anything else (a kill, an
    # error) ends the campaign until this script is run again.
    if [ "$code" != 0 ] && [ "$code" != 3 ]; then exit "$code"; fi
done
