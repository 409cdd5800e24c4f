#!/usr/bin/env python3
"""Every column's score of Connect-Four 7x6 positions, side by side:
`retrograde search connect:7x6 MOVES --moves --json` against Pascal Pons'
solver's analysis (`c4solver -a`: each column's exact score for the
player who plays it, as his connect4.gamesolver.org shows), on positions
of his test sets, each run by both programs one after the other (which
goes first alternates) so that both see the same load. Prints each
position's scores and times, then the median and worst ratio of our time
to his; exits 1 if any column's score differs.

Neither program nor the data sets are part of this repository; fetch and
build them as tools/c4-compare.py says (his solver from an empty
directory: no opening book).

Usage:
    tools/c4-moves-compare.py [--set L1_R3] [--count 10] [--threads T]
                              [--timeout S]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, stdin=None, cwd=None, timeout=None):
    """(stdout, wall seconds), stdout None on a timeout or failure."""
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - start
    return (p.stdout if p.returncode == 0 else None), time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", default="L1_R3")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--pons", default="/tmp/pons/c4solver")
    ap.add_argument("--data", default="/tmp/c4sets/libs/benchmark/datasets")
    ap.add_argument("--retrograde", default="target/release/retrograde")
    a = ap.parse_args()
    ours = [os.path.abspath(a.retrograde), "search", "connect:7x6"]
    extra = ["--threads", str(a.threads)] if a.threads else []
    print("load:", os.getloadavg())
    print("ours:", " ".join(ours), "MOVES --moves --json -q", " ".join(extra))
    print("pons:", a.pons, "-a (from an empty directory: no book)")
    empty = tempfile.mkdtemp(prefix="c4-moves-")
    with open(os.path.join(a.data, "Test_" + a.set)) as f:
        lines = [l.split() for l in f if l.strip()]
    step = max(1, len(lines) // a.count)
    picked = lines[::step][: a.count]
    ratios, bad = [], 0
    print(f"\n{'moves':<16} {'pons: columns 1-7':<24} {'same':<5} {'pons s':>8} {'ours s':>8} {'ratio':>6}")
    for i, (moves, _) in enumerate(picked):
        def pons():
            out, t = timed([a.pons, "-a"], stdin=moves + "\n", cwd=empty, timeout=a.timeout)
            return (out.split()[1:] if out else None), t

        def mine():
            out, t = timed(ours + [moves, "--moves", "--json", "-q"] + extra, timeout=a.timeout)
            if out is None:
                return None, t
            by_col = {m["move"]: m["score"] for m in json.loads(out)["moves"]}
            # Pons' -a prints -1000 for a full column.
            return [str(by_col.get(str(c), -1000)) for c in range(1, 8)], t

        if i % 2 == 0:
            (p, pt), (o, ot) = pons(), mine()
        else:
            (o, ot), (p, pt) = mine(), pons()
        same = p is not None and o == p
        bad += not same
        ratios.append(ot / pt)
        shown = " ".join(p) if p else "-"
        flag = "" if same else "  <-- ours " + (" ".join(o) if o else "none")
        print(f"{moves:<16} {shown:<24} {'yes' if same else 'NO':<5} {pt:8.2f} {ot:8.2f} {ot / pt:6.2f}{flag}")
        sys.stdout.flush()
    print("\nload:", os.getloadavg())
    print(f"median ratio {statistics.median(ratios):.2f}, worst {max(ratios):.2f}, "
          f"within 3x {sum(r <= 3 for r in ratios)} of {len(ratios)}, differing {bad}")
    os.rmdir(empty)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
