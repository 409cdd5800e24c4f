//! The alpha-beta search of Sogo's 4×4×4 cube (`sogo:4`), as the field
//! searches it (Deutrich's solver; c43d, TUM 2020): the cube's 64 cells on
//! one word, a layer per 16 bits (cell `x + 4y + 16z`), no sentinel. The
//! gravity boards' search ([`super::gravity`]) needs a sentinel row, which
//! does not fit 64 bits for 64 cells; this search keeps its design and
//! machinery (the threads, the growing table, ETC, the shared-move rule)
//! with what the cube needs:
//!
//! - **playable cells** from the occupied ones: the bottom layer and the
//!   cells above a piece, not occupied (`(bottom | mask << 16) & !mask`);
//! - **winning cells** by shifts along the 13 directions: every line of the
//!   cube spans it, so a cell at position `i` of a line along stride `s`
//!   (the 4 positions' cells are constant masks) wins when the `i` cells
//!   behind and the `3 − i` ahead are the player's; vertically only the top
//!   of a column can complete a line;
//! - **forced moves** (the field's rules): a node is never entered whose
//!   mover can win at once; the opponent's one playable winning cell is the
//!   only move, two are a loss without a child; a move onto the cell under
//!   an opponent's winning cell is never tried; a mover with no line free
//!   of the opponent's pieces cannot win, one whose opponent has none
//!   cannot lose; with at most two empty cells and a move left, a tie;
//! - **move order**: the table's move, then by the lines through the cell
//!   (c43d's weights: 1, 10, 100, 1000 for a line holding 0, 1, 2, 3 of
//!   the mover's pieces and none of the opponent's; a line the opponent
//!   holds alone counts 2, 20, 200 for blocking it), centre and corner
//!   columns first on ties;
//! - the **key**: the column heights (3 bits each, 48 bits) and the mover's
//!   pieces, the least of the position's 8 images under the floor's
//!   symmetries (rotations and reflections of the 4×4 floor, each a few
//!   shifts of the word per layer), kept whole in a two-word table entry
//!   ([`Wide`]): no hash stands for a position.

use super::table::{work_of, Info, Wide, NO_MOVE};
use super::{Busy, Native, Solver, Worker};
use crate::search::games::occupy::{Occupy, OccupyPos};
use crate::search::leaves::ValueLeaves;
use crate::search::{score, Bounds, SearchGame};
use std::collections::HashMap;

/// Cells of the cube.
const CELLS: u32 = 64;
/// The bottom layer.
const BOTTOM: u64 = 0xFFFF;

/// A direction's stride (positive) and the cells at each of the 4
/// positions of its lines.
type Dir = (u32, [u64; 4]);

/// The 13 directions of the cube's lines (oriented so that the stride is
/// positive), with the cells at each position of their lines; the vertical
/// one (stride 16) last.
const DIRS: [Dir; 13] = {
    let mut out = [(0u32, [0u64; 4]); 13];
    let mut n = 0;
    let mut dz = -1i32;
    while dz <= 1 {
        let mut dy = -1i32;
        while dy <= 1 {
            let mut dx = -1i32;
            while dx <= 1 {
                let s = dx + 4 * dy + 16 * dz;
                // One of each pair ±d; the vertical one is placed last.
                if s > 0 && s != 16 {
                    out[n] = (s as u32, positions(dx, dy, dz));
                    n += 1;
                }
                dx += 1;
            }
            dy += 1;
        }
        dz += 1;
    }
    out[12] = (16, positions(0, 0, 1));
    out
};

/// The cells at each position of the lines along `(dx, dy, dz)`.
const fn positions(dx: i32, dy: i32, dz: i32) -> [u64; 4] {
    let mut m = [0u64; 4];
    let mut c = 0;
    while c < 64 {
        let (x, y, z) = (c % 4, c / 4 % 4, c / 16);
        let (ex, ey, ez) = (x + 3 * dx, y + 3 * dy, z + 3 * dz);
        if ex >= 0 && ex < 4 && ey >= 0 && ey < 4 && ez >= 0 && ez < 4 {
            let mut i = 0;
            while i < 4 {
                let cell = (x + i * dx) + 4 * (y + i * dy) + 16 * (z + i * dz);
                m[i as usize] |= 1 << cell;
                i += 1;
            }
        }
        c += 1;
    }
    m
}

/// The 76 lines as masks.
const LINES: [u64; 76] = {
    let mut out = [0u64; 76];
    let mut n = 0;
    let mut d = 0;
    while d < 13 {
        let (s, m) = DIRS[d];
        let mut starts = m[0];
        while starts != 0 {
            let c = starts.trailing_zeros();
            starts &= starts - 1;
            out[n] = 1 << c | 1 << (c + s) | 1 << (c + 2 * s) | 1 << (c + 3 * s);
            n += 1;
        }
        d += 1;
    }
    assert!(n == 76);
    out
};

/// Most lines through a cell.
const MAX_THROUGH: usize = 7;

/// The lines through each cell (unused slots 0).
const THROUGH: [[u64; MAX_THROUGH]; 64] = {
    let mut out = [[0u64; MAX_THROUGH]; 64];
    let mut c = 0;
    while c < 64 {
        let mut n = 0;
        let mut l = 0;
        while l < 76 {
            if LINES[l] >> c & 1 != 0 {
                out[c][n] = LINES[l];
                n += 1;
            }
            l += 1;
        }
        c += 1;
    }
    out
};

/// The move order's weight of a line through the move holding
/// `[mine][theirs]` pieces (before the move).
const WEIGHT: [[u32; 4]; 4] = [
    [W_OWN[0], W_BLOCK[1], W_BLOCK[2], W_BLOCK[3]],
    [W_OWN[1], 0, 0, 0],
    [W_OWN[2], 0, 0, 0],
    [W_OWN[3], 0, 0, 0],
];
const W_OWN: [u32; 4] = [1, 10, 100, 0];
const W_BLOCK: [u32; 4] = [0, 1, 10, 0];
/// A move that makes a threat: playable at once (the move itself may make
/// it so), or later.
const W_THREAT_NOW: u32 = 1000;
const W_THREAT_LATER: u32 = 100;

/// The move order's score of the move `m` (a playable cell).
#[inline(always)]
fn order_score(m: u64, cur: u64, opp: u64, poss: u64) -> u32 {
    let cell = m.trailing_zeros() as usize;
    let mut s = 0;
    for &l in &THROUGH[cell] {
        if l == 0 {
            break;
        }
        let mine = (l & cur).count_ones() as usize;
        let theirs = (l & opp).count_ones() as usize;
        s += WEIGHT[mine.min(3)][theirs.min(3)];
        if mine == 2 && theirs == 0 {
            let t = l & !cur & !m;
            s += if t & (poss | m << 16) != 0 {
                W_THREAT_NOW
            } else {
                W_THREAT_LATER
            };
        }
    }
    s
}

/// Columns in the order ties are broken: the 4 centre ones and the 4
/// corners (7 lines through each cell), then the edges (4).
const ORDER: [u8; 16] = [5, 6, 9, 10, 0, 3, 12, 15, 1, 2, 4, 7, 8, 11, 13, 14];

/// Reflects each layer's columns left to right (`x → 3 − x`).
#[inline(always)]
fn flip_x(w: u64) -> u64 {
    const X0: u64 = 0x1111_1111_1111_1111;
    const X1: u64 = 0x2222_2222_2222_2222;
    (w & X0) << 3 | (w >> 3) & X0 | (w & X1) << 1 | (w >> 1) & X1
}

/// Reflects each layer's rows (`y → 3 − y`).
#[inline(always)]
fn flip_y(w: u64) -> u64 {
    const Y0: u64 = 0x000F_000F_000F_000F;
    const Y1: u64 = 0x00F0_00F0_00F0_00F0;
    (w & Y0) << 12 | (w >> 12) & Y0 | (w & Y1) << 4 | (w >> 4) & Y1
}

/// Transposes each layer (`(x, y) → (y, x)`): two delta swaps, the 2×2
/// blocks off the diagonal, then the cells off each block's diagonal.
#[inline(always)]
fn transpose(mut w: u64) -> u64 {
    let t = (w ^ (w >> 6)) & 0x00CC_00CC_00CC_00CC;
    w ^= t ^ (t << 6);
    let t = (w ^ (w >> 3)) & 0x0A0A_0A0A_0A0A_0A0A;
    w ^ t ^ (t << 3)
}

/// A word's 8 images under the floor's symmetries, the identity first
/// (the same permutation of every 16-bit layer).
#[inline(always)]
fn images(w: u64) -> [u64; 8] {
    let a = flip_x(w);
    let b = flip_y(w);
    let c = flip_y(a);
    [
        w,
        a,
        b,
        c,
        transpose(w),
        transpose(a),
        transpose(b),
        transpose(c),
    ]
}

/// Image `i` of a word (as [`images`] numbers them: bit 0 reflects the
/// columns, bit 1 the rows, bit 2 then transposes).
#[inline(always)]
fn image(mut w: u64, i: usize) -> u64 {
    if i & 1 != 0 {
        w = flip_x(w);
    }
    if i & 2 != 0 {
        w = flip_y(w);
    }
    if i & 4 != 0 {
        w = transpose(w);
    }
    w
}

/// Each column's height in 3 bits, a bit plane per 16 bits (48 bits): the
/// position's occupied cells, under gravity.
#[inline(always)]
fn heights(mask: u64) -> u64 {
    let (l0, l1, l2, l3) = (
        mask & BOTTOM,
        mask >> 16 & BOTTOM,
        mask >> 32 & BOTTOM,
        mask >> 48,
    );
    let b2 = l3;
    let b1 = l1 & !l3;
    let b0 = (l0 & !l1) | (l2 & !l3);
    b0 | b1 << 16 | b2 << 32
}

/// The occupied cells of [`heights`]' word.
fn mask_of_heights(h: u64) -> u64 {
    let (b0, b1, b2) = (h & BOTTOM, h >> 16 & BOTTOM, h >> 32 & BOTTOM);
    let l3 = b2;
    let l2 = l3 | (b0 & b1);
    let l1 = l3 | b1;
    let l0 = l1 | b0;
    l0 | l1 << 16 | l2 << 32 | l3 << 48
}

/// The playable cells.
#[inline(always)]
fn possible(mask: u64) -> u64 {
    (BOTTOM | mask << 16) & !mask
}

/// The empty cells that complete a line for `p`.
#[inline(always)]
fn winning(p: u64, mask: u64) -> u64 {
    // Vertically only a column's top.
    let mut r = (p << 16) & (p << 32) & (p << 48);
    let mut d = 0;
    while d < 12 {
        let (s, m) = DIRS[d];
        let b1 = p << s;
        let b2 = b1 & (p << (2 * s));
        let b3 = b2 & (p << (3 * s));
        let a1 = p >> s;
        let a2 = a1 & (p >> (2 * s));
        let a3 = a2 & (p >> (3 * s));
        r |= (m[0] & a3) | (m[1] & b1 & a2) | (m[2] & b2 & a1) | (m[3] & b3);
        d += 1;
    }
    r & !mask
}

/// Whether some line holds none of `theirs`.
#[inline(always)]
fn open(theirs: u64) -> bool {
    let free = !theirs;
    let mut any = 0;
    for (s, m) in DIRS {
        any |= free & (free >> s) & (free >> (2 * s)) & (free >> (3 * s)) & m[0];
    }
    any != 0
}

/// The canonical key of a position (the mover's pieces, the occupied
/// cells) and the image that gives it: the least of the 8 images of
/// (heights, pieces), heights first.
#[inline(always)]
fn key(cur: u64, mask: u64) -> (u128, u8) {
    let hs = images(heights(mask));
    let mut least = hs[0];
    for &h in &hs[1..] {
        least = least.min(h);
    }
    // The pieces' images only where the heights tie for the least
    // (usually one image: most positions' heights have no symmetry).
    let mut best = u64::MAX;
    let mut which = 0;
    for (i, &h) in hs.iter().enumerate() {
        if h == least {
            let c = image(cur, i);
            if c < best {
                best = c;
                which = i as u8;
            }
        }
    }
    (u128::from(least) << 64 | u128::from(best), which)
}

/// The position of a key: the mover's pieces and the occupied cells.
fn of_key(k: u128) -> (u64, u64) {
    (k as u64, mask_of_heights((k >> 64) as u64))
}

/// Column `c`'s image under image `i`, and the inverse.
struct Columns {
    image: [[u8; 16]; 8],
    preimage: [[u8; 16]; 8],
}

impl Columns {
    fn new() -> Columns {
        let mut image = [[0u8; 16]; 8];
        let mut preimage = [[0u8; 16]; 8];
        for (i, (img, pre)) in image.iter_mut().zip(&mut preimage).enumerate() {
            for (c, slot) in img.iter_mut().enumerate() {
                let d = image_of(c, i);
                *slot = d;
                pre[d as usize] = c as u8;
            }
        }
        Columns { image, preimage }
    }
}

fn image_of(c: usize, i: usize) -> u8 {
    image(1 << c, i).trailing_zeros() as u8
}

/// A notation cell (`column · 4 + level`) in this layout.
#[inline]
fn cube_cell(n: u32) -> u32 {
    n / 4 + 16 * (n % 4)
}

/// A word of notation cells in this layout.
fn to_cube(w: u64) -> u64 {
    let mut out = 0;
    let mut rest = w;
    while rest != 0 {
        out |= 1 << cube_cell(rest.trailing_zeros());
        rest &= rest - 1;
    }
    out
}

/// A word of this layout in notation cells.
fn from_cube(w: u64) -> u64 {
    let mut out = 0;
    let mut rest = w;
    while rest != 0 {
        let c = rest.trailing_zeros();
        rest &= rest - 1;
        out |= 1 << ((c % 16) * 4 + c / 16);
    }
    out
}

/// Whether `g` is Sogo's 4×4×4 cube: gravity on 16 columns of 4, won by the
/// cube's 76 lines and nothing else, completing one wins.
pub(crate) fn is_cube(g: &Occupy<1>) -> bool {
    if !g.gravity_columns_of(4, 16) {
        return false;
    }
    let mut theirs: Vec<u64> = g.patterns().iter().map(|p| to_cube(p[0])).collect();
    theirs.sort_unstable();
    theirs.dedup();
    let mut mine = LINES.to_vec();
    mine.sort_unstable();
    theirs == mine
}

/// The native search of the cube with a table of `bytes`, where `g` is
/// the cube ([`is_cube`]).
pub(crate) fn native(g: &Occupy<1>, bytes: u64) -> Option<Native<'_, Occupy<1>>> {
    is_cube(g).then(|| {
        Native(Box::new(Cube {
            g,
            table: Wide::new(bytes),
            known: HashMap::new(),
            leaves: None,
            busy: Busy::new(),
            cols: Columns::new(),
        }) as Box<dyn Solver<'_, Occupy<1>>>)
    })
}

/// The native search: the game, its table, the known bounds (keyed by the
/// canonical key), leaves.
struct Cube<'a> {
    g: &'a Occupy<1>,
    table: Wide,
    known: HashMap<u128, Bounds>,
    leaves: Option<&'a dyn ValueLeaves<Occupy<1>>>,
    busy: Busy,
    cols: Columns,
}

/// Empty cells from which a node shares its moves among the threads (as
/// the gravity boards' search).
const SHARE_EMPTY: u32 = 8;

/// Empty cells from which a node first looks its children up in the table
/// (enhanced transposition cutoff).
const ETC_EMPTY: u32 = 6;

impl Cube<'_> {
    /// The game's position of cube words (`cur` the mover's pieces).
    fn position(&self, cur: u64, mask: u64) -> OccupyPos<1> {
        let (cur, other) = (from_cube(cur), from_cube(cur ^ mask));
        let stones = if mask.count_ones().is_multiple_of(2) {
            [[cur], [other]]
        } else {
            [[other], [cur]]
        };
        self.g.position(stones)
    }

    /// The cube words of a position: the mover's pieces, every piece.
    fn words(p: &OccupyPos<1>) -> (u64, u64) {
        let x = to_cube(p.stones[0][0]);
        let o = to_cube(p.stones[1][0]);
        let cur = if p.mover() == 0 { x } else { o };
        (cur, x | o)
    }

    /// Whether the value of the position (the mover cannot win at once) is
    /// at least `k`, with the column that shows it; `None` when stopped.
    /// The root (`ply` 0) does not take its answer from the table.
    fn negamax(
        &self,
        w: &mut Worker<'_>,
        cur: u64,
        mask: u64,
        k: i8,
        ply: u32,
    ) -> Option<(bool, u8)> {
        if !w.visit() {
            return None;
        }
        let opp = cur ^ mask;
        let poss = possible(mask);
        let opp_win = winning(opp, mask);
        let forced = poss & opp_win;
        let mut playable = poss;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                // Two threats: whatever the mover blocks, the other wins.
                return Some((false, NO_MOVE));
            }
            playable = forced;
        }
        // Never under an opponent's winning cell.
        playable &= !(opp_win >> 16);
        if playable == 0 {
            return Some((false, NO_MOVE));
        }
        let root = ply == 0;
        let filled = mask.count_ones();
        if filled + 2 >= CELLS {
            // Two cells at most and no move loses: neither side can win.
            let c = if root && k <= 0 {
                (playable.trailing_zeros() % 16) as u8
            } else {
                NO_MOVE
            };
            return Some((k <= 0, c));
        }
        if !root {
            // A side with no line left cannot win.
            if k == 1 {
                if !open(opp) {
                    return Some((false, NO_MOVE));
                }
            } else if !open(cur) {
                return Some((true, NO_MOVE));
            }
        }
        let (key, image) = key(cur, mask);
        let mut hint = NO_MOVE;
        if let Some(info) = self.table.get(key) {
            let b = info.bounds;
            if !root {
                if b.lo >= k {
                    return Some((true, NO_MOVE));
                }
                if b.hi < k {
                    return Some((false, NO_MOVE));
                }
            }
            if info.mv != NO_MOVE {
                hint = self.cols.preimage[image as usize][info.mv as usize];
            }
        }
        if !root {
            if !self.known.is_empty() {
                if let Some(b) = self.known.get(&key) {
                    if b.lo >= k {
                        return Some((true, NO_MOVE));
                    }
                    if b.hi < k {
                        return Some((false, NO_MOVE));
                    }
                }
            }
            if let Some(leaves) = self.leaves {
                if let Some(v) = leaves.value(self.g, &self.position(cur, mask)) {
                    w.leaf_hits += 1;
                    let info = Info {
                        bounds: Bounds::exact(v),
                        mv: NO_MOVE,
                        work: 1,
                    };
                    if self.table.put(key, info) {
                        w.filled += 1;
                    }
                    return Some((score(v) >= k, NO_MOVE));
                }
            }
        }
        w.deepest = w.deepest.max(u64::from(ply) + 1);
        let before = w.visited;
        let share = w.shared && CELLS - filled >= SHARE_EMPTY;
        let etc = CELLS - filled >= ETC_EMPTY;
        // The table's move first, before the children's lookups: it
        // usually refutes again, and the lookups are a cache miss each
        // (the node's heaviest cost). Not where threads share the moves
        // (the move would be searched outside the sharing).
        let first = if hint != NO_MOVE && !share {
            playable & (0x0001_0001_0001_0001u64 << hint)
        } else {
            0
        };
        if first != 0 {
            let (child, _) = self.negamax(w, opp, mask | first, 1 - k, ply + 1)?;
            if !child {
                let canonical = self.cols.image[image as usize][hint as usize];
                self.store(w, key, Bounds { lo: k, hi: 1 }, canonical, before);
                return Some((true, hint));
            }
        }
        if etc {
            // Enhanced transposition cutoff: a child the table proves below
            // `1 - k` for the opponent answers the node.
            let mut keys = [(0u64, 0u128); 16];
            let mut n = 0;
            let mut rest = playable & !first;
            while rest != 0 {
                let m = rest & rest.wrapping_neg();
                rest &= rest - 1;
                let child = key_only(opp, mask | m);
                self.table.prefetch(child);
                keys[n] = (m, child);
                n += 1;
            }
            for &(m, child) in &keys[..n] {
                if let Some(info) = self.table.get(child) {
                    if info.bounds.hi < 1 - k {
                        let c = (m.trailing_zeros() % 16) as u8;
                        let canonical = self.cols.image[image as usize][c as usize];
                        self.store(w, key, Bounds { lo: k, hi: 1 }, canonical, before);
                        return Some((true, c));
                    }
                }
            }
        }
        // The moves, best first: insertion by score (ties keep the order
        // of `ORDER`), each its score above its column.
        let mut moves = [0u32; 16];
        let mut n = 0;
        let rest = playable & !first;
        for &c in &ORDER {
            let col = 0x0001_0001_0001_0001u64 << c;
            let m = rest & col;
            if m == 0 {
                continue;
            }
            let score = if c == hint {
                u32::MAX >> 8
            } else {
                order_score(m, cur, opp, poss)
            };
            let mut i = n;
            while i > 0 && moves[i - 1] >> 8 < score {
                moves[i] = moves[i - 1];
                i -= 1;
            }
            moves[i] = score << 8 | u32::from(c);
            n += 1;
        }
        let moves = &moves[..n];
        if share {
            self.busy.enter(key as u64 ^ (key >> 64) as u64);
        }
        let refuted = self.refuted(w, moves, playable, opp, mask, k, ply, share);
        if share {
            self.busy.leave(key as u64 ^ (key >> 64) as u64);
        }
        let c = refuted?;
        if c != NO_MOVE {
            let canonical = self.cols.image[image as usize][c as usize];
            self.store(w, key, Bounds { lo: k, hi: 1 }, canonical, before);
            return Some((true, c));
        }
        self.store(w, key, Bounds { lo: -1, hi: k - 1 }, NO_MOVE, before);
        Some((false, NO_MOVE))
    }

    /// The first of `moves` (columns in their low byte) whose position is
    /// not at least `1 - k` for the opponent, or `NO_MOVE`; `None` when
    /// stopped. With `share`, a move another thread is searching waits.
    #[allow(clippy::too_many_arguments)]
    fn refuted(
        &self,
        w: &mut Worker<'_>,
        moves: &[u32],
        playable: u64,
        opp: u64,
        mask: u64,
        k: i8,
        ply: u32,
        share: bool,
    ) -> Option<u8> {
        let mut later = [0u8; 16];
        let mut n = 0;
        for (i, &e) in moves.iter().enumerate() {
            let c = e as u8;
            let m = playable & (0x0001_0001_0001_0001u64 << c);
            if share && i > 0 {
                let child = key_only(opp, mask | m);
                if self.busy.has(child as u64 ^ (child >> 64) as u64) {
                    later[n] = c;
                    n += 1;
                    continue;
                }
            }
            let (child, _) = self.negamax(w, opp, mask | m, 1 - k, ply + 1)?;
            if !child {
                return Some(c);
            }
        }
        for &c in &later[..n] {
            let m = playable & (0x0001_0001_0001_0001u64 << c);
            let (child, _) = self.negamax(w, opp, mask | m, 1 - k, ply + 1)?;
            if !child {
                return Some(c);
            }
        }
        Some(NO_MOVE)
    }

    #[inline]
    fn store(&self, w: &mut Worker<'_>, key: u128, bounds: Bounds, mv: u8, before: u64) {
        let info = Info {
            bounds,
            mv,
            work: work_of(w.visited - before),
        };
        if self.table.put(key, info) {
            w.filled += 1;
        }
    }
}

/// The canonical key alone.
#[inline(always)]
fn key_only(cur: u64, mask: u64) -> u128 {
    key(cur, mask).0
}

impl<'a> Solver<'a, Occupy<1>> for Cube<'a> {
    /// The token is the move's column.
    fn move_of(&self, root: &OccupyPos<1>, token: usize) -> Option<u16> {
        if token >= 16 {
            return None;
        }
        let (_, mask) = Self::words(root);
        let m = possible(mask) & (0x0001_0001_0001_0001u64 << token);
        (m != 0).then(|| {
            let c = m.trailing_zeros();
            ((c % 16) * 4 + c / 16) as u16
        })
    }

    fn probe(
        &self,
        w: &mut Worker<'_>,
        root: &OccupyPos<1>,
        k: i8,
    ) -> Option<(bool, Option<usize>)> {
        if let Some(v) = self.g.terminal(root) {
            return Some((score(v) >= k, None));
        }
        let (cur, mask) = Self::words(root);
        // The search's nodes never have a win at once: the root may.
        let now = winning(cur, mask) & possible(mask);
        if now != 0 {
            if !w.visit() {
                return None;
            }
            return Some((true, Some((now.trailing_zeros() % 16) as usize)));
        }
        let (yes, c) = self.negamax(w, cur, mask, k, 0)?;
        Some((yes, (yes && c != NO_MOVE).then_some(usize::from(c))))
    }

    fn set_leaves(&mut self, leaves: &'a dyn ValueLeaves<Occupy<1>>) {
        self.leaves = Some(leaves);
    }

    fn add_known(&mut self, key: [u64; 2], bounds: Bounds) {
        let Some(p) = self.g.position_of_key(&key) else {
            return;
        };
        let (cur, mask) = Self::words(&p);
        let b = self
            .known
            .entry(self::key(cur, mask).0)
            .or_insert(Bounds::UNKNOWN);
        *b = b.meet(bounds);
    }

    fn proven(&self) -> Vec<([u64; 2], Bounds)> {
        let mut out: HashMap<u128, Bounds> = self.known.clone();
        for (raw, b) in self.table.entries() {
            if b != Bounds::UNKNOWN {
                let e = out.entry(raw).or_insert(Bounds::UNKNOWN);
                *e = e.meet(b);
            }
        }
        out.into_iter()
            .map(|(raw, b)| {
                let (cur, mask) = of_key(raw);
                (self.g.key(&self.position(cur, mask)), b)
            })
            .collect()
    }

    fn capacity(&self) -> u64 {
        self.table.capacity()
    }

    fn bytes(&self) -> u64 {
        self.table.bytes()
    }

    fn grow(&mut self) -> u64 {
        self.table.double()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::games::AnySearch;

    fn cube() -> Occupy<1> {
        match AnySearch::parse("sogo:4").unwrap() {
            AnySearch::Sogo(g) => g,
            _ => panic!("sogo:4 is not an Occupy<1>"),
        }
    }

    /// The shifts find exactly the cells the lines find, the 8 images are
    /// the floor's symmetries and permute the lines, and heights encode
    /// every gravity position, on positions of random play.
    #[test]
    fn shifts_keys_and_images_agree_with_the_lines() {
        assert!(is_cube(&cube()));
        // Each image maps every layer by the same column permutation,
        // and the lines onto lines.
        let mut lines = LINES.to_vec();
        lines.sort_unstable();
        for i in 0..8 {
            let mut img: Vec<u64> = LINES.iter().map(|&l| image(l, i)).collect();
            img.sort_unstable();
            assert_eq!(img, lines, "image {i}");
            for c in 0..64 {
                let d = image(1 << c, i);
                assert_eq!(d.count_ones(), 1);
                assert_eq!(d.trailing_zeros() / 16, c / 16);
            }
        }
        let distinct: std::collections::HashSet<u64> =
            (0..8).map(|i| image(0x1234_5678_9abc_def0, i)).collect();
        assert_eq!(distinct.len(), 8);
        let mut x = 7u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..2000 {
            let (mut cur, mut mask) = (0u64, 0u64);
            loop {
                let opp = cur ^ mask;
                for (p, q) in [(cur, opp), (opp, cur)] {
                    // (A vertical line's lower cell is never the one
                    // left empty under gravity.)
                    let want = LINES
                        .iter()
                        .filter(|&&l| (l & !p).count_ones() == 1 && l & !p & mask == 0)
                        .fold(0, |a, &l| a | (l & !p));
                    assert_eq!(winning(p, mask), want);
                    assert_eq!(open(q), LINES.iter().any(|&l| l & q == 0));
                }
                assert_eq!(mask_of_heights(heights(mask)), mask);
                let (k, img) = key(cur, mask);
                assert_eq!(
                    of_key(k),
                    (image(cur, img as usize), image(mask, img as usize))
                );
                for i in 0..8 {
                    assert!(key(image(cur, i), image(mask, i)).0 == k);
                }
                let poss = possible(mask);
                if poss == 0 || LINES.iter().any(|&l| l & !opp == 0) {
                    break;
                }
                let n = poss.count_ones() as u64;
                let mut pick = next() % n;
                let mut rest = poss;
                while pick > 0 {
                    rest &= rest - 1;
                    pick -= 1;
                }
                let m = rest & rest.wrapping_neg();
                cur ^= mask;
                mask |= m;
            }
        }
    }

    #[test]
    fn layouts_convert_both_ways() {
        for n in 0..64u32 {
            let w = 1u64 << n;
            assert_eq!(from_cube(to_cube(w)), w);
        }
        let cols = Columns::new();
        for i in 0..8 {
            for c in 0..16u8 {
                assert_eq!(cols.preimage[i][cols.image[i][c as usize] as usize], c);
            }
        }
    }
}
