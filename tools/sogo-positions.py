#!/usr/bin/env python3
"""Seeded random positions of Sogo's 4x4x4 cube (`sogo:4`) for benchmarks.

Usage: tools/sogo-positions.py STONES COUNT [SEED]

Each position is a game of STONES random moves from the empty cube, every
move a column drawn uniformly among those not full (Python's `random` with
the given seed, default 1). A game is drawn again from the start when one of
its moves completes a line, or when, after the last move, the side to move
has a playable cell that completes a line (an immediate win): every
position printed is open, and its value is not decided by one move.

Each line printed is one position in two notations, separated by a tab:
retrograde's (`retrograde search sogo:4 POSITION`: the columns played as
squares, file a+x and rank y+1) and Deutrich's solver's columns x + 4y
(0..15), comma-separated, in the same order.
"""
import random
import sys


def lines():
    """The 76 lines of the cube as sets of cells x + 4y + 16z."""
    out = set()
    dirs = [(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)
            if (dx, dy, dz) != (0, 0, 0)]
    for x in range(4):
        for y in range(4):
            for z in range(4):
                for dx, dy, dz in dirs:
                    cells = [(x + i * dx, y + i * dy, z + i * dz) for i in range(4)]
                    if all(0 <= a < 4 and 0 <= b < 4 and 0 <= c < 4 for a, b, c in cells):
                        out.add(frozenset(a + 4 * b + 16 * c for a, b, c in cells))
    assert len(out) == 76
    return [tuple(sorted(l)) for l in out]


LINES = lines()


def owns_line(stones):
    return any(all(c in stones for c in l) for l in LINES)


def wins_now(mine, heights):
    for col in range(16):
        if heights[col] < 4:
            cell = col + 16 * heights[col]
            if owns_line(mine | {cell}):
                return True
    return False


def game(rng, stones):
    """One random game of `stones` moves meeting the filter, or None."""
    heights = [0] * 16
    pieces = [set(), set()]
    cols = []
    for ply in range(stones):
        free = [c for c in range(16) if heights[c] < 4]
        col = rng.choice(free)
        cell = col + 16 * heights[col]
        heights[col] += 1
        pieces[ply % 2].add(cell)
        cols.append(col)
        if owns_line(pieces[ply % 2]):
            return None
    if wins_now(pieces[stones % 2], heights):
        return None
    return cols


def ours(col):
    return "abcd"[col % 4] + str(col // 4 + 1)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2])
    try:
        stones, count = int(sys.argv[1]), int(sys.argv[2])
        seed = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    except ValueError:
        sys.exit("tools/sogo-positions.py: STONES, COUNT and SEED must be integers")
    if not 0 <= stones <= 63:
        sys.exit("tools/sogo-positions.py: STONES must be 0..63")
    rng = random.Random(seed)
    for _ in range(count):
        cols = None
        while cols is None:
            cols = game(rng, stones)
        print("".join(ours(c) for c in cols) + "\t" + ",".join(str(c) for c in cols))


if __name__ == "__main__":
    main()
