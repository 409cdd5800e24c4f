//! Isolation's index arithmetic: colex ranks of the removed squares, the
//! rank changes of a step (the solver's walk over a unit's boards), and the
//! folding of the piece pairs by the board's symmetries (scheme 4).

use crate::games::bits::next_combination;
use crate::games::symmetry::BoardSymmetries;

/// `BINOM[p][i]` = C(p, i), for the colex ranks of board subsets.
pub(super) const BINOM: [[u32; 32]; 32] = {
    let mut t = [[0u32; 32]; 32];
    let mut p = 0;
    while p < 32 {
        t[p][0] = 1;
        let mut i = 1;
        while i <= p {
            // C(31, 15) = 300,540,195 fits a u32.
            t[p][i] = t[p - 1][i - 1] + if i < p { t[p - 1][i] } else { 0 };
            i += 1;
        }
        p += 1;
    }
    t
};

/// `COLEX8[m][c][v]`: what byte `v` at bits `8m..8m+8` of a board adds to
/// its colex rank when `c` set bits lie below it: `Σ C(8m+s, c+i)` over
/// the byte's set bits s (i from 1). Four lookups rank any board, where a
/// walk over the bits took one dependent lookup per removed square: the
/// solver ranks every intermediate of every position (118 KiB, in L2).
pub(super) static COLEX8: [[[u32; 256]; 29]; 4] = {
    let mut t = [[[0u32; 256]; 29]; 4];
    let mut m = 0;
    while m < 4 {
        let mut c = 0;
        while c < 29 {
            let mut v = 0;
            while v < 256 {
                let mut rank = 0u32;
                let mut i = c;
                let mut s = 0;
                while s < 8 {
                    if v & (1 << s) != 0 {
                        i += 1;
                        let p = 8 * m + s;
                        if p < 32 && i < 32 {
                            rank = rank.wrapping_add(BINOM[p][i]);
                        }
                    }
                    s += 1;
                }
                t[m][c][v] = rank;
                v += 1;
            }
            c += 1;
        }
        m += 1;
    }
    t
};

/// Set bits of a byte: the portable build has no `popcnt` instruction, and
/// `count_ones` falls back to a dozen instructions.
pub(super) static POP8: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut v = 0;
    while v < 256 {
        t[v] = (v as u32).count_ones() as u8;
        v += 1;
    }
    t
};

/// The colex rank of a set of board bits: `Σ_i C(s_i, i)` over its set bits
/// `s_1 < s_2 < …` (boards of at most 28 bits), a byte at a time.
#[inline(always)]
pub(super) fn colex(board: u32) -> u32 {
    let b = board.to_le_bytes();
    let c1 = POP8[b[0] as usize] as usize;
    let c2 = c1 + POP8[b[1] as usize] as usize;
    let c3 = c2 + POP8[b[2] as usize] as usize;
    COLEX8[0][0][b[0] as usize]
        .wrapping_add(COLEX8[1][c1][b[1] as usize])
        .wrapping_add(COLEX8[2][c2][b[2] as usize])
        .wrapping_add(COLEX8[3][c3][b[3] as usize])
}

/// The colex rank by walking the bits: the definition, for the tests.
#[cfg(test)]
pub(super) fn colex_walk(mut board: u32) -> u32 {
    let mut rank = 0;
    let mut i = 0;
    while board != 0 {
        let s = board.trailing_zeros() as usize;
        board &= board - 1;
        i += 1;
        rank += BINOM[s][i];
    }
    rank
}

/// The set of `k` board bits (below bit `m`) with colex rank `rank`.
pub(super) fn uncolex(mut rank: u32, k: u32, m: u32) -> u32 {
    let mut board = 0;
    let mut s = m as usize;
    for i in (1..=k as usize).rev() {
        // The largest s with C(s, i) <= rank; s falls as i falls.
        s -= 1;
        while BINOM[s][i] > rank {
            s -= 1;
        }
        board |= 1 << s;
        rank -= BINOM[s][i];
    }
    board
}

/// Calls `f(base + colex(board ∪ {j}))` for every bit j < m clear in
/// `board`. A child differs from `board` only in j's byte, and
/// every byte above it counts one more set bit below: so with the sums of
/// the bytes below j's (as they are) and above it (shifted by one) taken
/// once per board, each child costs one table lookup. A walk over the bits
/// cost a dependent step per bit, and dominated the solve.
#[inline(always)]
pub(super) fn for_each_extension(board: u32, m: u32, base: u64, f: &mut impl FnMut(u64)) {
    let b = board.to_le_bytes();
    let mut c = [0usize; 4];
    for k in 1..4 {
        c[k] = c[k - 1] + POP8[b[k - 1] as usize] as usize;
    }
    // below[k]: bytes under byte k as they are; above[k]: bytes over byte k
    // with one more set bit under each.
    let mut below = [0u32; 4];
    let mut above = [0u32; 4];
    for k in 1..4 {
        below[k] = below[k - 1].wrapping_add(COLEX8[k - 1][c[k - 1]][b[k - 1] as usize]);
        let h = 3 - k;
        above[h] = above[h + 1].wrapping_add(COLEX8[h + 1][c[h + 1] + 1][b[h + 1] as usize]);
    }
    // Per byte, its table row and everything else a child adds, taken once
    // per board: each child is then one lookup and one add.
    let row: [&[u32; 256]; 4] = std::array::from_fn(|k| &COLEX8[k][c[k]]);
    let add: [u64; 4] = std::array::from_fn(|k| base + u64::from(below[k].wrapping_add(above[k])));
    let mut free = !board & ((1u32 << m) - 1);
    while free != 0 {
        let j = free.trailing_zeros();
        free &= free - 1;
        let k = (j / 8) as usize & 3;
        let byte = b[k] | 1 << (j % 8);
        f(add[k] + u64::from(row[k][byte as usize]));
    }
}

/// Calls `f` with every set of `k` board bits below bit `m`, in colex order
/// (increasing numeric order), which is their order in a pair's block.
#[inline(always)]
pub(super) fn walk_boards(k: u32, m: u32, mut f: impl FnMut(u32)) {
    let limit = 1u64 << m;
    let mut board: u64 = (1u64 << k) - 1;
    loop {
        f(board as u32);
        if board == 0 {
            break;
        }
        board = next_combination(board);
        if board >= limit {
            break;
        }
    }
}

/// Widest board whose steps rank by [`StepDeltas`]: a window of C bits
/// takes 2^C patterns per table row. Wider boards (2×15, 3×10, ...) rank each
/// intermediate from scratch.
pub(super) const DELTA_COLS: u32 = 7;

/// How a step changes a board's colex rank, for ranking a position's
/// intermediates from its own rank instead of from scratch.
///
/// A step of the mover's piece from s to t keeps the removed squares. In the
/// layout of the new pair (pieces on t and the other's square) the board
/// bits of the squares strictly between s and t move one place up (t > s)
/// or down (t < s), keeping their order among the set bits; every other bit
/// keeps its place (t's bit, which leaves the layout, and s's, which joins
/// it, are both clear). A bit at place p that is the i-th set bit
/// contributes C(p, i) to the rank, so the move changes the rank by C(p, i−1)
/// up, −C(p−1, i−1) down. The window is at most C bits (a diagonal step
/// spans C squares), so the change is a function of the window's lowest
/// place `lo`, the set bits below it `c0` and its bits: one table entry.
pub(super) struct StepDeltas {
    /// Set-bit counts per window place: m + 1 for m board bits.
    pub(super) counts: usize,
    /// Moves up, then down, each indexed `((lo · counts + c0) << C) |
    /// bits`, the change as a wrapping `u32`: one table, so that a step's
    /// row is one offset.
    pub(super) table: Vec<u32>,
}

impl StepDeltas {
    pub(super) fn new(m: u32, cols: u32) -> StepDeltas {
        let counts = m as usize + 1;
        let patterns = 1usize << cols;
        let half = counts * counts * patterns;
        let mut table = vec![0u32; 2 * half];
        for lo in 0..counts {
            for c0 in 0..counts {
                for bits in 0..patterns {
                    let (mut up, mut down) = (0u32, 0u32);
                    let set = (0..cols as usize).filter(|&s| bits & 1 << s != 0);
                    for (i, s) in (c0..).zip(set) {
                        // The bit at place p is set bit number i + 1.
                        let p = lo + s;
                        if p < 32 && i < 32 {
                            up = up.wrapping_add(BINOM[p][i]);
                        }
                        if (1..=32).contains(&p) && i < 32 {
                            down = down.wrapping_sub(BINOM[p - 1][i]);
                        }
                    }
                    let at = ((lo * counts + c0) << cols) | bits;
                    table[at] = up;
                    table[half + at] = down;
                }
            }
        }
        StepDeltas { counts, table }
    }
}

impl std::fmt::Debug for StepDeltas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StepDeltas({} entries)", self.table.len())
    }
}

/// One step of the mover's piece, as the solver's walk over a unit's boards
/// sees it (plain index).
#[derive(Clone, Copy, Default)]
pub(super) struct Step {
    /// First index of the new pair's boards in this block.
    pub(super) base: u64,
    /// The board bit of the square stepped to, in the parent's layout.
    pub(super) to_bit: u32,
    /// The window's lowest place, and its width as a mask.
    pub(super) lo: u32,
    pub(super) window: u32,
    /// The byte holding place `lo`, and the mask of the bits below `lo` in it.
    pub(super) byte: usize,
    pub(super) below: u32,
    /// The row of [`StepDeltas::table`] for this direction and `lo`.
    pub(super) row: usize,
    /// Where the vacated square joins the new layout (ranking from scratch).
    pub(super) from_bit: u32,
}

/// Index scheme 4: the board's symmetries folded into the piece placement.
///
/// The ordered piece pairs fall into orbits under the board's symmetries (8
/// for a square, 4 for a rectangle; both pieces move together, so player 0's
/// piece stays player 0's). Each orbit keeps one representative pair, the
/// smallest by plain pair number, and its C(n−2, k) boards in each block k.
/// A position is stored at its image under the first symmetry that takes its
/// pair to the representative. Pairs fixed by a symmetry (e.g. both pieces on
/// a diagonal) keep both mirror images of a board, each solved on its own: a
/// few percent of space for a much simpler index.
#[derive(Debug)]
pub(super) struct Folding {
    pub(super) sym: BoardSymmetries,
    /// Representative pair of each slot.
    pub(super) reps: Vec<[u8; 2]>,
    /// For pair (p0, p1) at `p0 * n + p1`: its slot and the symmetry to apply.
    pub(super) slot_of: Vec<(u16, u8)>,
    /// The orbit of each square under the symmetries, numbered from 0 in
    /// order of their smallest square: the solver's groups.
    pub(super) orbit_of: Vec<u8>,
    /// Number of square orbits.
    pub(super) orbits: u32,
}

impl Folding {
    pub(super) fn new(rows: u32, cols: u32) -> Folding {
        let n = rows * cols;
        let sym = BoardSymmetries::grid(rows, cols);
        let mut reps: Vec<[u8; 2]> = Vec::new();
        let mut slot_of = vec![(u16::MAX, 0u8); (n * n) as usize];
        for p0 in 0..n {
            for p1 in (0..n).filter(|&q| q != p0) {
                let images = (0..sym.len()).map(|g| (sym.square(g, p0), sym.square(g, p1), g));
                let (r0, r1, g) = images
                    .min_by_key(|&(a, b, _)| (a, b))
                    .unwrap_or((p0, p1, 0));
                let rep = [r0 as u8, r1 as u8];
                let slot = match reps.iter().position(|&r| r == rep) {
                    Some(i) => i,
                    None => {
                        reps.push(rep);
                        reps.len() - 1
                    }
                };
                slot_of[(p0 * n + p1) as usize] = (slot as u16, g as u8);
            }
        }
        // Slots in order of their representative's scheme-1 block, so the
        // layout does not depend on the loop above.
        let mut order: Vec<usize> = (0..reps.len()).collect();
        order.sort_by_key(|&i| reps[i]);
        let mut renumber = vec![0u16; reps.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = new as u16;
        }
        for e in slot_of.iter_mut().filter(|e| e.0 != u16::MAX) {
            e.0 = renumber[e.0 as usize];
        }
        let reps = order.iter().map(|&i| reps[i]).collect();
        let mut orbit_of = vec![u8::MAX; n as usize];
        let mut orbits = 0;
        for s in 0..n {
            if orbit_of[s as usize] == u8::MAX {
                for g in 0..sym.len() {
                    orbit_of[sym.square(g, s) as usize] = orbits as u8;
                }
                orbits += 1;
            }
        }
        Folding {
            sym,
            reps,
            slot_of,
            orbit_of,
            orbits,
        }
    }
}

/// Removes bit `i` from `x`, shifting the bits above it down.
#[inline(always)]
pub(super) fn squeeze(x: u32, i: u32) -> u32 {
    let low = (1u32 << i) - 1;
    (x & low) | ((x >> 1) & !low)
}
