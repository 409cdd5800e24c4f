#!/usr/bin/env python3
"""Connect-Four 7x6 positions, side by side: `retrograde search` against
Pascal Pons' solver (`c4solver -w`, a weak solve: win, loss or tie), on his
six published test sets, each position run by both programs one after the
other in one run (which goes first alternates), so that both see the same
load. Prints each position's values and times, then per set the median
and the worst ratio of our time to his, and how many are within 3x.

Neither program nor the data sets are part of this repository. To fetch
them (the solver is AGPL; build it for the measurement only, commit
nothing of it):

    git clone https://github.com/PascalPons/connect4 /tmp/pons
    make -C /tmp/pons c4solver
    git clone https://github.com/Red-Rapious/Connect-4-AI /tmp/c4sets
    # the sets: /tmp/c4sets/libs/benchmark/datasets/Test_L{1,2,3}_R{1,2,3}

Pons' solver opens `7x6.book` in its working directory when there is one:
it is run from an empty directory, so it searches every position without
its opening book. Each program is a fresh process per position, so the
times include start-up (his allocates and clears a 2^24-entry table; ours
starts with a 2 MiB table that grows with the work).

Sets (Pons' names): L3_R1 End-Easy, L2_R1 Middle-Easy, L2_R2
Middle-Medium, L1_R1 Begin-Easy, L1_R2 Begin-Medium, L1_R3 Begin-Hard.

Usage:
    tools/c4-compare.py [--per-set N] [--sets L1_R3,L2_R2] [--threads T]
                        [--timeout S] [--extra '--engine dfpn']

Run it niced (`nice -n 10 tools/c4-compare.py ...`) and quote `uptime`
with the figures: the machine is shared.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

SETS = ["L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3"]
NAMES = {
    "L3_R1": "End-Easy",
    "L2_R1": "Middle-Easy",
    "L2_R2": "Middle-Medium",
    "L1_R1": "Begin-Easy",
    "L1_R2": "Begin-Medium",
    "L1_R3": "Begin-Hard",
}


def timed(cmd, stdin=None, cwd=None, timeout=None):
    """Runs `cmd` under /usr/bin/time: (stdout, seconds, peak KiB) or
    (None, seconds, None) on a timeout or failure. The seconds are the
    wall time measured here (time's own %e has 10 ms steps, coarser than
    an easy position takes); time gives the peak memory."""
    full = ["/usr/bin/time", "-f", "@@TIME %e %M"] + cmd
    start = time.perf_counter()
    try:
        p = subprocess.run(
            full,
            input=stdin,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - start, None
    wall = time.perf_counter() - start
    kib = None
    for line in p.stderr.splitlines():
        if line.startswith("@@TIME"):
            kib = int(line.split()[2])
    return p.stdout, wall, kib


def sign(score):
    return "win" if score > 0 else "tie" if score == 0 else "lose"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-set", type=int, default=10)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--extra", default="", help="more `retrograde search` options")
    ap.add_argument("--pons", default="/tmp/pons/c4solver")
    ap.add_argument("--data", default="/tmp/c4sets/libs/benchmark/datasets")
    ap.add_argument("--retrograde", default="target/release/retrograde")
    a = ap.parse_args()
    ours_cmd = [os.path.abspath(a.retrograde), "search", "connect:7x6"]
    extra = shlex.split(a.extra)
    if a.threads:
        extra += ["--threads", str(a.threads)]
    print("load:", os.getloadavg())
    print("ours:", " ".join(ours_cmd), "MOVES --json -q", " ".join(extra))
    print("pons:", a.pons, "-w (from an empty directory: no book)")
    empty = tempfile.mkdtemp(prefix="c4-compare-")
    summary = []
    for s in a.sets.split(","):
        with open(os.path.join(a.data, "Test_" + s)) as f:
            lines = [l.split() for l in f if l.strip()]
        # Evenly spaced over the set, so hard and easy ones alike.
        step = max(1, len(lines) // a.per_set)
        picked = lines[::step][: a.per_set]
        ratios, mine, his, disagree, unproven = [], [], [], 0, 0
        print(f"\n{s} ({NAMES.get(s, '?')}): {len(picked)} positions")
        print(f"{'moves':<44} {'value':<5} {'pons s':>8} {'ours s':>8} {'ratio':>6} {'pons MB':>8} {'ours MB':>8}")
        for i, (moves, score) in enumerate(picked):
            expect = sign(int(score))

            def run_pons():
                out, t, kib = timed([a.pons, "-w"], stdin=moves + "\n", cwd=empty, timeout=a.timeout)
                v = None
                if out and out.split():
                    v = sign(int(out.split()[-1]))
                return v, t, kib

            def run_ours():
                out, t, kib = timed(ours_cmd + [moves, "--json", "-q"] + extra, timeout=a.timeout)
                v = None
                if out:
                    try:
                        v = json.loads(out).get("value")
                    except json.JSONDecodeError:
                        v = None
                return v, t, kib

            if i % 2 == 0:
                pv, pt, pk = run_pons()
                ov, ot, ok = run_ours()
            else:
                ov, ot, ok = run_ours()
                pv, pt, pk = run_pons()
            if ov is None:
                unproven += 1
            elif ov != expect or (pv is not None and pv != expect):
                disagree += 1
            ratio = ot / pt if pt > 0 else float("inf")
            ratios.append(ratio)
            mine.append(ot)
            his.append(pt)
            mb = lambda k: f"{k / 1024:.0f}" if k else "-"
            flag = "" if ov == expect else "  <-- " + str(ov)
            print(f"{moves:<44} {expect:<5} {pt:8.3f} {ot:8.3f} {ratio:6.2f} {mb(pk):>8} {mb(ok):>8}{flag}")
            sys.stdout.flush()
        within = sum(r <= 3 for r in ratios)
        row = (
            s,
            NAMES.get(s, "?"),
            len(picked),
            statistics.median(ratios),
            max(ratios),
            within,
            sum(his),
            sum(mine),
            disagree,
            unproven,
        )
        summary.append(row)
    print("\nload:", os.getloadavg())
    print(f"\n{'set':<6} {'name':<14} {'n':>3} {'median':>7} {'worst':>7} {'<=3x':>5} {'pons s':>9} {'ours s':>9} {'wrong':>5} {'unproven':>8}")
    for s, name, n, med, worst, within, ph, om, bad, un in summary:
        print(f"{s:<6} {name:<14} {n:>3} {med:7.2f} {worst:7.2f} {within:>5} {ph:9.2f} {om:9.2f} {bad:>5} {un:>8}")
    os.rmdir(empty)
    if any(row[8] for row in summary):
        sys.exit(1)


if __name__ == "__main__":
    main()
