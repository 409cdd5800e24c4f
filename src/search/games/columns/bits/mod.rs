//! The gravity boards' bitboard, as the strongest Connect-Four solvers
//! keep it (Tromp's Fhourstones, Pons' solver): one word for the pieces of
//! the player to move and one for every occupied cell, each column a run
//! of `H + 1` bits, the top one a **sentinel** that is never occupied.
//! Every operation on these words lives here, for the game's
//! representation ([`super::Columns`], df-pn and the reference) and the
//! alpha-beta search (`crate::search::alphabeta`) alike.
//!
//! Layout: column `(x, y)` of the floor starts at bit
//! `(y·(nx + 1) + x)·(H + 1)`, level `z` is `z` bits up. The sentinel row
//! (and, on a floor of several rows, a sentinel column after each row of
//! columns) makes every step off the board land on a cell that is always
//! empty, so a line of `K` cells along a direction is `K` bits spaced by
//! that direction's stride, and the empty cells that complete a line for a
//! player are computed for all lines at once by shifts
//! ([`Layout::winning`]): per direction, the cells with `j` of the
//! player's pieces behind them and `K − 1 − j` ahead. This holds only when
//! the placement's patterns are exactly the `K`-in-a-row lines of the grid:
//! checked when the board is built, else the winning cells are found
//! pattern by pattern.
//!
//! A position's key is `pieces + occupied + bottom row` (one bit above
//! each column's top piece marks its height, so the word is the position),
//! the least of its images under the floor's symmetries.
//!
//! The search asks its questions through [`Bits`], answered by the
//! [`Layout`]'s tables for any board, by [`Shifted`](fast::Shifted) with the line length
//! a constant, or by [`Fixed`](fast::Fixed) with every shift and mask a constant
//! (Connect-Four's usual sizes); [`Layout::with_bits`] picks the fastest
//! the board allows.

mod fast;

use crate::games::placement::Placement;

/// Most columns a board holds (each takes at least two bits).
pub const MAX_COLUMNS: usize = 32;

/// The cells that complete a line, by shifts or by patterns.
#[derive(Clone, Debug)]
enum Lines {
    /// Every pattern is a line of `k` cells along one of `dirs` (strides in
    /// bits); the vertical direction (stride 1) is `vertical`, apart from
    /// the others, since under gravity a vertical line is completed only on
    /// top.
    Shifts {
        k: u32,
        vertical: bool,
        dirs: Vec<u32>,
    },
    /// The patterns, as masks in this layout.
    Patterns(Vec<u64>),
}

/// A gravity board's word layout, its lines and its symmetries.
pub struct Layout {
    /// Columns of the floor and their height.
    nx: u32,
    cols: usize,
    height: u32,
    cells: u32,
    /// Bit of level 0 of each column.
    base: Vec<u32>,
    /// Level 0 of every column.
    bottom: u64,
    /// Every cell of the board (no sentinel).
    board: u64,
    /// Each column's cells.
    col_mask: Vec<u64>,
    /// How the cells that complete a line are found.
    lines: Lines,
    /// The patterns as masks in this layout (the open-line test and tests).
    patterns: Vec<u64>,
    /// The floor's symmetries other than the identity, as column
    /// permutations (`perm[c]` is the image of column `c`).
    syms: Vec<Vec<u8>>,
    /// Their inverses.
    inverse: Vec<Vec<u8>>,
    /// Columns centre first: the move order's tie-break.
    order: Vec<u8>,
}

/// Bits of a floor of `nx × ny` columns of `h` cells with sentinels.
fn layout_bits(nx: u32, ny: u32, h: u32) -> u64 {
    (u64::from(ny - 1) * u64::from(nx + 1) + u64::from(nx)) * u64::from(h + 1)
}

/// The cells of a column of `h` levels, from bit 0.
fn levels(h: u32) -> u64 {
    if h >= 64 {
        u64::MAX
    } else {
        (1u64 << h) - 1
    }
}

impl Layout {
    /// The layout of a placement, or `None` when it has none (no gravity,
    /// misère, more than 64 bits with sentinels, a symmetry that moves a
    /// cell to another level).
    pub(crate) fn new(p: &Placement) -> Option<Layout> {
        let f = p.floor.as_ref()?;
        if p.misere || f.nx == 0 || f.ny == 0 || f.height == 0 {
            return None;
        }
        if layout_bits(f.nx, f.ny, f.height) > 64 {
            return None;
        }
        let (nx, ny, h) = (f.nx, f.ny, f.height);
        let cols = (nx * ny) as usize;
        let stride = h + 1;
        let base: Vec<u32> = (0..cols as u32)
            .map(|c| ((c / nx) * (nx + 1) + c % nx) * stride)
            .collect();
        let col_mask: Vec<u64> = base.iter().map(|&b| levels(h) << b).collect();
        let bottom = base.iter().fold(0u64, |m, &b| m | 1 << b);
        let board = col_mask.iter().fold(0u64, |m, &c| m | c);
        let cell_bit = |cell: u16| -> u64 {
            let (c, z) = (u32::from(cell) / h, u32::from(cell) % h);
            1u64 << (base[c as usize] + z)
        };
        let patterns: Vec<u64> = p
            .patterns
            .iter()
            .map(|pat| pat.iter().fold(0u64, |m, &s| m | cell_bit(s)))
            .collect();
        let lines = Self::lines(nx, ny, h, &base, &patterns);
        // The floor's symmetries as column permutations: a gravity symmetry
        // keeps every cell's level.
        let group = crate::games::symmetry::symmetry_group(
            &p.symmetries,
            &p.patterns,
            p.squares as usize,
            384,
        );
        let mut syms = Vec::new();
        for perm in &group[1..] {
            let cperm: Vec<u8> = (0..cols as u32)
                .map(|c| (u32::from(perm[(c * h) as usize]) / h) as u8)
                .collect();
            let keeps_levels = (0..p.squares).all(|cell| {
                let (c, z) = (cell / h, cell % h);
                u32::from(perm[cell as usize]) == u32::from(cperm[c as usize]) * h + z
            });
            if !keeps_levels {
                // Not a symmetry of a gravity board: never offered, but a
                // key folded by it would merge different positions.
                return None;
            }
            syms.push(cperm);
        }
        let centre = |c: u32| {
            let (x, y) = (c % nx, c / nx);
            (2 * x).abs_diff(nx - 1) + (2 * y).abs_diff(ny - 1)
        };
        let mut order: Vec<u8> = (0..cols as u8).collect();
        order.sort_by_key(|&c| (centre(u32::from(c)), c));
        let inverse = syms
            .iter()
            .map(|perm| {
                let mut inv = vec![0u8; cols];
                for (c, &img) in perm.iter().enumerate() {
                    inv[img as usize] = c as u8;
                }
                inv
            })
            .collect();
        Some(Layout {
            nx,
            cols,
            height: h,
            cells: p.squares,
            base,
            bottom,
            board,
            col_mask,
            lines,
            patterns,
            syms,
            inverse,
            order,
        })
    }

    /// Shifts when the patterns are exactly the lines of `k` cells of the
    /// grid along its 13 directions (those whose lines fit in the word),
    /// else the patterns themselves.
    fn lines(nx: u32, ny: u32, h: u32, base: &[u32], patterns: &[u64]) -> Lines {
        let fallback = Lines::Patterns(patterns.to_vec());
        let Some(first) = patterns.first() else {
            return fallback;
        };
        let k = first.count_ones();
        if k == 0 || patterns.iter().any(|p| p.count_ones() != k) {
            return fallback;
        }
        let stride = h as i64 + 1;
        let row = (nx as i64 + 1) * stride;
        let dims = [nx as i64, ny as i64, h as i64];
        let mut lines = Vec::new();
        let mut dirs = Vec::new();
        let mut vertical = false;
        for dx in -1i64..=1 {
            for dy in -1i64..=1 {
                for dz in -1i64..=1 {
                    if (dx, dy, dz) <= (0, 0, 0) {
                        continue;
                    }
                    let s = dx * stride + dy * row + dz;
                    // Directions are kept with a positive stride; a line
                    // spans (k − 1)·|s| bits, which must fit in a word.
                    let s = s.unsigned_abs();
                    if s == 0 || (k as u64 - 1) * s >= 64 {
                        continue;
                    }
                    let mut any = false;
                    for x in 0..dims[0] {
                        for y in 0..dims[1] {
                            for z in 0..dims[2] {
                                let cells: Option<u64> = (0..k as i64)
                                    .map(|i| (x + i * dx, y + i * dy, z + i * dz))
                                    .try_fold(0u64, |m, (a, b, c)| {
                                        let inside = (0..dims[0]).contains(&a)
                                            && (0..dims[1]).contains(&b)
                                            && (0..dims[2]).contains(&c);
                                        inside.then(|| {
                                            m | 1u64
                                                << (base[(a + b * dims[0]) as usize] as i64 + c)
                                        })
                                    });
                                if let Some(m) = cells {
                                    lines.push(m);
                                    any = true;
                                }
                            }
                        }
                    }
                    if any {
                        if (dx, dy, dz) == (0, 0, 1) {
                            vertical = true;
                        } else if !dirs.contains(&(s as u32)) {
                            dirs.push(s as u32);
                        }
                    }
                }
            }
        }
        // Two directions may share a stride (never on boards with
        // sentinels, but the comparison below is what decides).
        let mut mine = lines;
        mine.sort_unstable();
        mine.dedup();
        let mut theirs = patterns.to_vec();
        theirs.sort_unstable();
        theirs.dedup();
        if mine != theirs || !Self::shifts_exact(k, vertical, &dirs, h, base, &theirs) {
            return fallback;
        }
        Lines::Shifts { k, vertical, dirs }
    }

    /// Whether the shift computation finds, for every single piece
    /// configuration of one line minus one cell, exactly that cell: a
    /// check of the sentinel argument on this very board (a stride shared
    /// by two directions, or a step that wraps onto a board cell, fails
    /// it).
    fn shifts_exact(
        k: u32,
        vertical: bool,
        dirs: &[u32],
        h: u32,
        base: &[u32],
        lines: &[u64],
    ) -> bool {
        let board = base.iter().fold(0u64, |m, &b| m | levels(h) << b);
        let probe = Lines::Shifts {
            k,
            vertical,
            dirs: dirs.to_vec(),
        };
        lines.iter().all(|&l| {
            let mut rest = l;
            while rest != 0 {
                let cell = rest & rest.wrapping_neg();
                rest &= rest - 1;
                // A vertical line (k consecutive bits) is completed only on
                // top: gravity fills the cells below a piece.
                let low = l & l.wrapping_neg();
                let consecutive = l == low.wrapping_mul(u64::MAX >> (64 - k));
                if consecutive && cell != 1u64 << (63 - l.leading_zeros()) {
                    continue;
                }
                let pieces = l & !cell;
                let expect = lines
                    .iter()
                    .filter(|&&m| m & !pieces == cell)
                    .fold(0u64, |a, &m| a | (m & !pieces));
                let got = winning_by(&probe, pieces, pieces, board);
                // `got` may include other cells completing other lines of
                // the same pieces; it must include `cell` iff some line does.
                if got & cell != expect & cell {
                    return false;
                }
                let others = got & !cell;
                let allowed = lines
                    .iter()
                    .filter(|&&m| (m & !pieces).count_ones() == 1)
                    .fold(0u64, |a, &m| a | (m & !pieces));
                if others & !allowed != 0 {
                    return false;
                }
            }
            true
        })
    }

    /// Number of columns.
    #[inline(always)]
    pub fn columns(&self) -> usize {
        self.cols
    }

    /// Cells of the board.
    #[inline(always)]
    pub fn cells(&self) -> u32 {
        self.cells
    }

    /// The mask of column `c`'s cells.
    #[inline(always)]
    pub(crate) fn col_mask(&self, c: usize) -> u64 {
        self.col_mask[c]
    }

    /// Columns centre first.
    #[inline(always)]
    pub(crate) fn order(&self) -> &[u8] {
        &self.order
    }

    /// Every cell of the board.
    #[inline(always)]
    pub(crate) fn board(&self) -> u64 {
        self.board
    }

    /// `(W, H)` when the board is Connect-Four's kind: one row of `W`
    /// columns of `H` cells side by side (column `c` at bit `c·(H+1)`),
    /// won by four in a row vertically, horizontally and diagonally (each
    /// direction's lines present, the patterns exactly the shifts'), the
    /// mirror its one symmetry: what [`Fixed`](fast::Fixed) computes
    /// with constants.
    pub(crate) fn connect_four(&self) -> Option<(u32, u32)> {
        let h = self.height;
        let Lines::Shifts {
            k: 4,
            vertical: true,
            dirs,
        } = &self.lines
        else {
            return None;
        };
        let mut d = dirs.clone();
        d.sort_unstable();
        let w = self.cols as u32;
        let mirror: Vec<u8> = (0..w as u8).rev().collect();
        let side_by_side = (0..w).all(|c| self.base[c as usize] == c * (h + 1));
        (self.nx == w && side_by_side && d == [h, h + 1, h + 2] && self.syms == [mirror])
            .then_some((w, h))
    }

    /// The winning patterns as masks of this layout.
    pub fn patterns(&self) -> &[u64] {
        &self.patterns
    }

    /// Whether the winning cells are computed by shifts (the placement's
    /// patterns are exactly the grid's lines).
    pub fn by_shifts(&self) -> bool {
        matches!(self.lines, Lines::Shifts { .. })
    }

    /// The symmetries folded into keys, besides the identity.
    pub fn symmetry_count(&self) -> usize {
        self.syms.len() + 1
    }

    /// The cells a piece may drop into.
    #[inline(always)]
    pub(crate) fn possible(&self, mask: u64) -> u64 {
        mask.wrapping_add(self.bottom) & self.board
    }

    /// The empty cells that complete a pattern for `pieces` (any cell of the
    /// board, playable now or not).
    #[inline(always)]
    pub(crate) fn winning(&self, pieces: u64, mask: u64) -> u64 {
        winning_by(&self.lines, pieces, mask, self.board)
    }

    /// Whether a player whose opponent's pieces are `theirs` can still
    /// complete a pattern: some line holds none of the opponent's pieces.
    #[inline]
    pub(crate) fn open_line(&self, theirs: u64) -> bool {
        let free = self.board & !theirs;
        match &self.lines {
            Lines::Shifts { k, vertical, dirs } => {
                let k = *k;
                let run = |s: u32| {
                    let mut m = free;
                    for i in 1..k {
                        m &= free >> (i * s);
                    }
                    m != 0
                };
                (*vertical && run(1)) || dirs.iter().any(|&s| run(s))
            }
            Lines::Patterns(ps) => ps.iter().any(|&p| p & theirs == 0),
        }
    }

    /// Whether `pieces` own a pattern.
    pub(crate) fn owns(&self, pieces: u64) -> bool {
        self.patterns.iter().any(|&p| p & !pieces == 0)
    }

    /// The key of a position: `pieces + mask + bottom`, the position in
    /// one word (one bit above each column's top piece).
    #[inline(always)]
    pub(crate) fn raw_key(&self, cur: u64, mask: u64) -> u64 {
        cur.wrapping_add(mask).wrapping_add(self.bottom)
    }

    /// The position of a raw key: the mover's pieces and the mask.
    pub(crate) fn of_raw_key(&self, key: u64) -> (u64, u64) {
        let mut cur = 0;
        let mut mask = 0;
        for &b in &self.base {
            let seg = (key >> b) & ((1u64 << (self.height + 1)) - 1);
            // The highest bit is the marker above the top piece.
            let top = 63 - seg.leading_zeros();
            let below = (1u64 << top) - 1;
            cur |= (seg & below) << b;
            mask |= below << b;
        }
        (cur, mask)
    }

    /// The image of a word (a key, or pieces) under column permutation `perm`.
    #[inline]
    fn permute(&self, w: u64, perm: &[u8]) -> u64 {
        let seg = (1u64 << (self.height + 1)) - 1;
        let mut out = 0;
        for (c, &b) in self.base.iter().enumerate() {
            out |= ((w >> b) & seg) << self.base[perm[c] as usize];
        }
        out
    }

    /// The images of a word under the symmetries other than the identity.
    pub(crate) fn images(&self, w: u64) -> impl Iterator<Item = u64> + '_ {
        self.syms.iter().map(move |perm| self.permute(w, perm))
    }

    /// The canonical key: the least raw key of the position's images.
    #[inline]
    pub(crate) fn sym_key(&self, cur: u64, mask: u64) -> u64 {
        self.sym_key_image(cur, mask).0
    }

    /// The canonical key and the symmetry that gives it (0: the identity,
    /// `i`: the `i`-th other).
    #[inline]
    pub(crate) fn sym_key_image(&self, cur: u64, mask: u64) -> (u64, u8) {
        let k = self.raw_key(cur, mask);
        let mut best = (k, 0);
        for (i, perm) in self.syms.iter().enumerate() {
            let img = self.permute(k, perm);
            if img < best.0 {
                best = (img, i as u8 + 1);
            }
        }
        best
    }

    /// The image of column `c` under symmetry `sym` (as
    /// [`Layout::sym_key_image`] numbers them).
    #[inline]
    pub(crate) fn column_image(&self, c: u8, sym: u8) -> u8 {
        match sym {
            0 => c,
            s => self.syms[s as usize - 1][c as usize],
        }
    }

    /// The column whose image under symmetry `sym` is `c`.
    #[inline]
    pub(crate) fn column_preimage(&self, c: u8, sym: u8) -> u8 {
        match sym {
            0 => c,
            s => self.inverse[s as usize - 1][c as usize],
        }
    }

    /// A word's cells in the notation's cell numbering (`c·H + z`).
    pub(crate) fn compact(&self, w: u64) -> u64 {
        let lm = levels(self.height);
        self.base.iter().enumerate().fold(0u64, |m, (c, &b)| {
            m | ((w >> b) & lm) << (c as u32 * self.height)
        })
    }

    /// Cells in the notation's numbering, in this layout.
    pub(crate) fn spread(&self, w: u64) -> u64 {
        let lm = levels(self.height);
        self.base.iter().enumerate().fold(0u64, |m, (c, &b)| {
            m | ((w >> (c as u32 * self.height)) & lm) << b
        })
    }

    /// The cell (notation numbering) of the bit `m`.
    #[inline]
    pub(crate) fn cell_of(&self, m: u64) -> u16 {
        let bit = m.trailing_zeros();
        let c = self.column_of(m);
        (c as u32 * self.height + bit - self.base[c]) as u16
    }

    /// The column of the bit `m`.
    #[inline]
    pub(crate) fn column_of(&self, m: u64) -> usize {
        let bit = m.trailing_zeros();
        let stride = self.height + 1;
        let slot = bit / stride;
        (slot / (self.nx + 1) * self.nx + slot % (self.nx + 1)) as usize
    }
}

/// The position after the mover (pieces `cur`, every piece `mask`) drops a
/// piece on cell `m`: the opponent's pieces (now to move), every piece.
#[inline(always)]
pub(crate) fn play(cur: u64, mask: u64, m: u64) -> (u64, u64) {
    (cur ^ mask, mask | m)
}

/// The cells right under `cells` (under gravity, a piece there makes each
/// of `cells` playable).
#[inline(always)]
pub(crate) fn below(cells: u64) -> u64 {
    cells >> 1
}

/// The empty cells of `board` (not in `mask`) that complete a line for
/// `pieces`.
#[inline(always)]
fn winning_by(lines: &Lines, pieces: u64, mask: u64, board: u64) -> u64 {
    match lines {
        Lines::Shifts { k, vertical, dirs } => {
            let k = *k;
            let mut r = 0;
            if *vertical {
                // Completed only on top: k − 1 pieces right below.
                let mut m = pieces << 1;
                for i in 2..k {
                    m &= pieces << i;
                }
                r |= if k == 1 { !0 } else { m };
            }
            for &s in dirs {
                r |= line_wins(pieces, s, k);
            }
            r & board & !mask
        }
        Lines::Patterns(ps) => {
            let mut r = 0;
            for &p in ps {
                let need = p & !pieces;
                if need & need.wrapping_sub(1) == 0 {
                    r |= need;
                }
            }
            r & board & !mask
        }
    }
}

/// Cells with `j` of `p` behind them and `k − 1 − j` ahead along stride
/// `s`, for some `j`.
#[inline(always)]
fn line_wins(p: u64, s: u32, k: u32) -> u64 {
    match k {
        4 => line_wins_k::<4>(p, s),
        3 => line_wins_k::<3>(p, s),
        5 => line_wins_k::<5>(p, s),
        _ => {
            let mut back = [!0u64; 64];
            let mut ahead = [!0u64; 64];
            for m in 1..k as usize {
                back[m] = back[m - 1] & (p << (m as u32 * s));
                ahead[m] = ahead[m - 1] & (p >> (m as u32 * s));
            }
            (0..k as usize).fold(0, |r, j| r | (back[j] & ahead[k as usize - 1 - j]))
        }
    }
}

/// [`line_wins`] with the line length a constant.
#[inline(always)]
fn line_wins_k<const K: usize>(p: u64, s: u32) -> u64 {
    let mut back = [!0u64; K];
    let mut ahead = [!0u64; K];
    for m in 1..K {
        back[m] = back[m - 1] & (p << (m as u32 * s));
        ahead[m] = ahead[m - 1] & (p >> (m as u32 * s));
    }
    let mut r = 0;
    for j in 0..K {
        r |= back[j] & ahead[K - 1 - j];
    }
    r
}

/// The top cells of `K − 1` pieces of `p` in a column: the cells that
/// complete a vertical line of `K` (`K` ≥ 2).
#[inline(always)]
fn vertical_wins_k<const K: usize>(p: u64) -> u64 {
    let mut m = p << 1;
    for i in 2..K {
        m &= p << i;
    }
    m
}

/// The first cells of the runs of `K` cells of `free` along stride `s`.
#[inline(always)]
fn line_free_k<const K: usize>(free: u64, s: u32) -> u64 {
    let mut m = free;
    for i in 1..K {
        m &= free >> (i as u32 * s);
    }
    m
}

/// What the search asks of a board: the playable cells, the cells that
/// complete lines, the open-line test, and the canonical key with the
/// symmetry that gives it (moves in the table are kept as the canonical
/// image's columns). Each implementation answers as the [`Layout`] does.
pub(crate) trait Bits: Sync {
    /// The cells a piece may drop into.
    fn possible(&self, mask: u64) -> u64;
    /// The empty cells that complete a line for `pieces`.
    fn winning(&self, pieces: u64, mask: u64) -> u64;
    /// Whether some line holds none of `theirs`.
    fn open(&self, theirs: u64) -> bool;
    /// The least raw key of the position's images, and which image
    /// ([`Layout::sym_key_image`]'s key and numbering).
    fn key(&self, cur: u64, mask: u64) -> (u64, u8);
    /// Column `c` in image `image`.
    fn column_image(&self, c: u8, image: u8) -> u8;
    /// The column whose image in `image` is `c`.
    fn column_preimage(&self, c: u8, image: u8) -> u8;
}

/// A computation over a board's [`Bits`], run by [`Layout::with_bits`]
/// with the implementation that fits the board.
pub(crate) trait WithBits {
    type Out;
    fn with<B: Bits>(self, bits: &B) -> Self::Out;
}

/// Any board, through its tables.
impl Bits for Layout {
    #[inline(always)]
    fn possible(&self, mask: u64) -> u64 {
        Layout::possible(self, mask)
    }
    #[inline]
    fn winning(&self, p: u64, mask: u64) -> u64 {
        Layout::winning(self, p, mask)
    }
    #[inline]
    fn open(&self, theirs: u64) -> bool {
        self.open_line(theirs)
    }
    #[inline(always)]
    fn key(&self, cur: u64, mask: u64) -> (u64, u8) {
        self.sym_key_image(cur, mask)
    }
    #[inline(always)]
    fn column_image(&self, c: u8, image: u8) -> u8 {
        Layout::column_image(self, c, image)
    }
    #[inline(always)]
    fn column_preimage(&self, c: u8, image: u8) -> u8 {
        Layout::column_preimage(self, c, image)
    }
}
