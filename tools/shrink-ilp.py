#!/usr/bin/env python3
"""The true minimum of the shrinking's model (normal-play Sprouts).

`proofdb shrink` chooses its set by a greedy choice and a local search
(src/search/couples/shrink.rs): this finds the smallest set the same
model accepts, as a 0-1 program solved by HiGHS (`pip install highspy`),
so that what the choice misses and what the checker's rule costs can be
told apart (docs/CHECKING.md, "The model's floor").

    RETROGRADE_SHRINK_MODEL=m.txt retrograde proofdb shrink N.db -o N.small
    python3 tools/shrink-ilp.py m.txt [POOL] [SECONDS]

POOL is the pool's number in the dump (0: the entries read, 1: the richer
pool; default 1), SECONDS the solver's time limit (default 600). It
prints the minimum (or the best set and bound at the limit) and checks the
set found by a pass of the checker's rules written again here, smallest
lands first.

The model, for a set S of lands whose nimbers are kept (loss entries):
each land L of S needs, for every j below its nimber, a child whose lands
are all of known nimber (kept or given by the game) with nim-sum j, and,
for every child c, either all its lands known or all but one, m, known
with m + *y shown won by a child of m whose lands are all known with
nim-sum y (y: L's nimber and the others' folded). A losing root needs
its lands' nimbers; a winning one its lands' nimbers, or all but one and
a win entry for that one's couple (counted), shown won by a child.
"""

import sys
import time

import highspy
import numpy as np

# "Always so": a marker, not True (a variable numbered 1 equals True).
ALWAYS = object()


def read(path, pool):
    size, fixed, kids, nim = {}, {}, {}, {}
    root, heap = [], 0
    with open(path) as f:
        for line in f:
            t = line.split()
            if t[0] == "R":
                heap = int(t[1])
                root = [int(x) for x in t[2].split(",")] if len(t) > 2 else []
            elif t[0] == "P":
                p, l, x, w = map(int, t[1:])
                if p == pool and not w:
                    nim[l] = x
            elif t[0] == "L":
                l = int(t[1])
                size[l] = int(t[2])
                f_ = int(t[3])
                fixed[l] = None if f_ < 0 else f_
                k = t[4] if len(t) > 4 else ""
                if k == "-":
                    kids[l] = None
                else:
                    # "" is one child with no land left.
                    kids[l] = [
                        [int(x) for x in c.split(",")] if c else []
                        for c in k.split(";")
                    ]
    return size, fixed, kids, nim, root, heap


def main():
    path = sys.argv[1]
    pool = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    limit = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0
    size, fixed, kids, nim, root, heap = read(path, pool)
    sel = {l for l in nim if fixed[l] is None and kids[l] is not None}

    def value(o):
        return fixed[o] if fixed[o] is not None else nim.get(o)

    def nimsum(d):
        x = 0
        for o in d:
            v = value(o)
            if v is None:
                return None
            x ^= v
        return x

    h = highspy.Highs()
    h.setOptionValue("time_limit", limit)
    h.setOptionValue("output_flag", False)
    cost = []
    rows = []

    def var(c=0.0):
        cost.append(c)
        return len(cost) - 1

    s = {l: var(1.0) for l in sorted(sel)}
    prod = {}

    def le(a, bs):  # x_a <= sum of x_b
        rows.append(([a] + bs, [1.0] + [-1.0] * len(bs), -highspy.kHighsInf, 0.0))

    def all_known(d):
        """A variable for "every land of d known", ALWAYS, or None."""
        d = tuple(sorted({o for o in d if fixed[o] is None}))
        if not d:
            return ALWAYS
        if any(o not in sel for o in d):
            return None
        if len(d) == 1:
            return s[d[0]]
        if d not in prod:
            prod[d] = var()
            for o in d:
                le(prod[d], [s[o]])
        return prod[d]

    def lost_children(l, y):
        """The ways of showing l + *y won by a child shown lost."""
        out = []
        for d in kids[l] or []:
            if nimsum(d) == y:
                a = all_known(d)
                if a is not None:
                    out.append(a)
        return out

    one_out = {}

    def but_one(c, m, y):
        """All of c known but m, and m + *y shown won by a child."""
        key = (tuple(c), m, y)
        if key not in one_out:
            opts = lost_children(m, y)
            others = [o for o in c if o != m and fixed[o] is None]
            if not opts or any(o not in sel for o in others):
                one_out[key] = None
            else:
                v = var()
                if not any(o is ALWAYS for o in opts):
                    le(v, opts)
                for o in others:
                    le(v, [s[o]])
                one_out[key] = v
        return one_out[key]

    def rest_xor(c, m, x):
        """x with the nimbers of c's lands other than m folded in, or None
        when one of them is not known."""
        for o in c:
            if o != m:
                v = value(o)
                if v is None:
                    return None
                x ^= v
        return x

    def sum_wins(c, x):
        """The ways of showing c + *x won (x not its nim-sum)."""
        a = all_known(c)
        if a is ALWAYS:
            return [ALWAYS]
        opts = [] if a is None else [a]
        for m in c:
            if fixed[m] is not None:
                continue
            y = rest_xor(c, m, x)
            if y is None:
                continue
            t = but_one(c, m, y)
            if t is not None:
                opts.append(t)
        return opts

    for l in sorted(sel):
        needs = [lost_children(l, j) for j in range(nim[l])]
        needs += [sum_wins(c, nim[l]) for c in kids[l]]
        for opts in needs:
            if any(o is ALWAYS for o in opts):
                continue
            if not opts:
                rows.append(([s[l]], [1.0], 0.0, 0.0))
                break
            le(s[l], opts)
    if nimsum(root) == heap:
        for o in root:
            if fixed[o] is None:
                if o not in sel:
                    sys.exit("the pool does not hold the root's nimbers")
                rows.append(([s[o]], [1.0], 1.0, 1.0))
    else:
        opts = []
        a = all_known(root)
        if a is ALWAYS:
            sys.exit("the root is settled by the game alone")
        if a is not None:
            opts.append(a)
        for m in root:
            y = rest_xor(root, m, heap)
            if fixed[m] is not None or y is None:
                continue
            t = but_one(root, m, y)
            if t is not None:
                w = var(1.0)  # the root's own win entry
                le(w, [t])
                opts.append(w)
        rows.append((opts, [1.0] * len(opts), 1.0, highspy.kHighsInf))
    n = len(cost)
    for _ in range(n):
        h.addVar(0.0, 1.0)
    idx = np.arange(n, dtype=np.int32)
    h.changeColsCost(n, idx, np.array(cost))
    h.changeColsIntegrality(n, idx, np.array([highspy.HighsVarType.kInteger] * n))
    for i, c, lo, hi in rows:
        h.addRow(lo, hi, len(i), np.array(i, dtype=np.int32), np.array(c))
    print(f"pool {pool}: {len(sel)} nimbers, {n} variables, {len(rows)} rows")
    t0 = time.time()
    h.run()
    info = h.getInfo()
    status = h.modelStatusToString(h.getModelStatus())
    print(
        f"{status}: best {info.objective_function_value:.0f}, "
        f"bound {info.mip_dual_bound:.2f}, {time.time() - t0:.1f} s"
    )
    x = h.getSolution().col_value
    kept = {l for l in sel if x[s[l]] > 0.5}
    # The set found, checked again by the rules themselves, smallest first.
    known = {}

    def known_value(o):
        return fixed[o] if fixed[o] is not None else known.get(o)

    def shown_lost(d, y):
        vs = [known_value(o) for o in d]
        if None in vs:
            return False
        for v in vs:
            y ^= v
        return y == 0

    def passes(l):
        n_ = nim[l]
        if not all(any(shown_lost(d, j) for d in kids[l]) for j in range(n_)):
            return False
        for c in kids[l]:
            unknown = [o for o in c if known_value(o) is None]
            if len(unknown) > 1:
                return False
            if unknown:
                m = unknown[0]
                y = n_
                for o in c:
                    if o != m:
                        y ^= known_value(o)
                if not any(shown_lost(d, y) for d in kids[m] or []):
                    return False
        return True

    for l in sorted(kept, key=lambda l: (size[l], l)):
        if passes(l):
            known[l] = nim[l]
    ok = len(known) == len(kept)
    print(f"kept {len(kept)} losses; every one re-proven by the rules: {ok}")


if __name__ == "__main__":
    main()
