//! Gravity games, and the Connect-Four family `connect:WxH[xK]`.
//!
//! # The gravity board ([`Gravity`])
//!
//! A gravity game is played on vertical columns of height H standing on an
//! `nx × ny` floor (Connect-Four: `ny = 1`; Sogo: an N×N floor). A move drops
//! the mover's piece into a column that is not full; it lands on the lowest
//! empty cell. Player 0 (`x`) moves first, so player 0 is to move exactly when
//! both players have the same number of pieces. Whoever first completes one of
//! the game's winning lines (K cells in a row along any of the 13 directions
//! of the box that fit: horizontal, vertical, diagonal) wins; a full board
//! with no line is a tie. Both games share this module's board, index, move
//! generation and tier enumeration; they differ in geometry and notation.
//!
//! Cells: column `c = x + nx·y`, level `z` (0 = bottom); cell bit `c·H + z` of
//! a `u64` mask ([`GravityPosition::pieces`]), so at most 64 cells.
//!
//! Legal positions (what `decode` accepts): any board respecting gravity in
//! which `#x − #o ∈ {0, 1}` and the player to move has no line (so never
//! both players). If the player who just moved has a line the position is a
//! primitive loss in 0 for the player to move (a win under `:misere`, where
//! completing a line loses). A full board without a line is a tie in 0.
//!
//! Tier = number of empty cells; every move fills one, so children are one
//! tier lower. `max_remoteness` = number of cells.
//!
//! ## Index scheme "mixed radix" (connect, scheme 1)
//!
//! A column of height `h` with player 1's pieces at the bits `b` of its `h`
//! lowest levels is the digit `d = (2^h − 1) + b`, i.e. the classic
//! "1 followed by the pieces" pattern `(1 << h) | b` minus 1. Digits run over
//! `0 ..= 2^(H+1) − 2`, so the radix is `R = 2^(H+1) − 1` and
//!
//! ```text
//! index = Σ_c d_c · R^c        size = R^W
//! ```
//!
//! (column 1, the leftmost, is the least significant digit). 4×4: 31^4 =
//! 923,521 entries; 5×4: 31^5 = 28,629,151. Dropping a piece on a column of
//! height `h` adds `2^h · R^c` (player 0) or `2^(h+1) · R^c` (player 1) to the
//! index. A work unit of a tier fixes the digits of the top columns (enough
//! of them for at least 256 units); within it the remaining columns' heights
//! and colourings are chosen recursively with exactly the tier's piece counts,
//! in increasing index order.
//!
//! ## Index scheme "mirror-folded" (connect, scheme 2)
//!
//! `solve --fold` (header flag bit 0) folds the left-right mirror, which
//! reverses the column digits `d_0 … d_{W−1}` of the mixed-radix index. A
//! position is stored in its canonical orientation, the one with
//! `d_0 ≤ d_{W−1}` (mirrored first if `d_0 > d_{W−1}`). The two outer digits
//! `a = d_0 ≤ b = d_{W−1}` become one pair digit `P = b(b+1)/2 + a` of
//! `T = R(R+1)/2` values, the most significant one:
//!
//! ```text
//! index = P · R^(W−2) + Σ_{c=1}^{W−2} d_c · R^(c−1)      size = T · R^(W−2)
//! ```
//!
//! 4×4: 476,656 entries (plain 923,521); 6×4: 458,066,416 (887,503,681);
//! 5×5: 504,094,752 (992,436,543). When `a = b` both mirror images are kept,
//! each at its own index (the same index if the board is symmetric): `1/R`
//! of the table, about 3 % on height 4, for an index that stays linear in
//! the digits — a move changes one digit, so a child's index is its parent's
//! plus a constant, except when a move on column 0 makes `d_0 > d_{W−1}` and
//! the child flips. With the pair digit on top, a work unit (a pair digit,
//! plus the top middle columns when `T < 256`) is one contiguous run of
//! indices, enumerated in increasing order like the plain index's units.
//! One column (W = 1) is its own mirror image: folding is refused there.
//! Sogo folds its floor instead (scheme 2 of the tight index, below).
//!
//! ## Index scheme "tight" (sogo, scheme 1)
//!
//! Positions with k pieces form one block, blocks in increasing k. Within
//! block k the height vector `(h_0, …, h_{C−1})` (column 0 first) is ranked
//! among the vectors with `Σ h = k` in increasing order of `Σ h_c·(H+1)^c`,
//! and the colouring is ranked among the `B_k = C(k, ⌊k/2⌋)` ways to give
//! ⌊k/2⌋ of the k pieces to player 1:
//!
//! ```text
//! index = offset_k + rank(h) · B_k + colex(s)
//! ```
//!
//! where `s` is the k-bit string of the pieces in column-major order (column
//! 0 bottom to top, then column 1, …), bit set for player 1, and
//! `colex(s) = Σ_i C(p_i, i)` over its set bits `p_1 < p_2 < …` (i from 1),
//! the rank of `s` among k-bit strings with the same number of set bits in
//! increasing numeric order. Size `Σ_k N_k · B_k` with `N_k` the number of
//! height vectors summing to k. Only the player-to-move-has-a-line positions
//! are holes. A work unit is a run of 2^16 consecutive indices of a tier.
//!
//! ## Index scheme "tight, floor-folded" (sogo, scheme 2)
//!
//! `solve --fold` (header flag bit 0) folds the symmetries of the floor
//! (the 8 of a square floor: rotations and reflections of the columns, in
//! [`BoardSymmetries::grid`]'s order, identity first; levels unchanged, both
//! players' pieces mapped together: cell (c, z) goes to (g(c), z)). They
//! keep levels, so they map lines onto lines and gravity onto gravity. The
//! height vectors fall into orbits; each orbit's representative is its
//! smallest height code `Σ h_c·(H+1)^c` (so also its first in rank order),
//! and `slot(h)` numbers the representatives with k pieces in increasing
//! code order. A position is stored at its image under the first symmetry
//! g (in that order) taking its height vector to the representative:
//!
//! ```text
//! index = offset2_k + slot(h) · B_k + colex(s')      offset2_k = Σ_{j<k} slots(j) · B_j
//! ```
//!
//! with `s'` the colouring string of the mapped position. A table over the
//! `(H+1)^C` height codes holds `slot << 3 | g`; cell masks are mapped by
//! byte lookup tables. Representatives fixed by a symmetry keep every
//! colouring (both images of such a position have their own index, or
//! share one if the position is symmetric too), for an index that stays a
//! product of a slot and a colex rank. sogo:2: 242 entries (plain 757);
//! sogo:3: 1,031,368,848 (plain 6,676,791,201), about 1/6.5 rather than
//! 1/8, because the blocks with many pieces, which hold most colourings,
//! have few height vectors and many of them symmetric (the full cube's is
//! fixed by all 8). A work unit is a run of 2^16 consecutive indices of a
//! tier, walked as the plain index's over the representatives only. A
//! child's index extends the parent's colouring string by one bit when
//! the child's height vector is its own representative, and maps the
//! child otherwise. A floor of one column (sogo:1) has nothing to fold.
//!
//! # Connect: spec and notation
//!
//! Spec `connect:WxH[xK][:misere]`: W columns, H rows, K in a row (default
//! 4; canonical spec always includes K, e.g. `connect:4x4x4`).
//!
//! A position is written either as the columns played from the empty board,
//! 1-based as Connect-Four solvers write them (`4453`; `-` or the empty
//! string for the empty board; separate numbers by spaces or commas when a
//! column number has two digits, e.g. `10,3,3`), or as a picture: rows top to
//! bottom separated by `/`, `.` empty, `x` player 0, `o` player 1, e.g.
//! `..../..../.o../oxx.` (= `2231` on 4×4). Positions are always printed as
//! pictures. A move is a column number 1..=W.

use super::symmetry::BoardSymmetries;
use crate::game::Game;
use crate::value::Value;
use std::fmt;
use std::sync::Arc;

/// Largest index space the gravity games accept (a one-byte-per-entry table
/// of this size is a terabyte).
pub const MAX_ENTRIES: u64 = 1 << 40;

/// Largest number of height vectors for which the tight index keeps its
/// rank tables ((H+1)^C entries).
const MAX_HEIGHT_TABLE: u64 = 1 << 22;

/// Indices per work unit of the tight index.
const TIGHT_CHUNK: u64 = 1 << 16;

/// A position of a gravity game: the cells of each player's pieces.
///
/// Cell (column c, level z, 0 = bottom) is bit `c·H + z`. Player 0 is to move
/// when both players have the same number of pieces, player 1 otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GravityPosition {
    /// Masks of player 0's (`x`) and player 1's (`o`) pieces.
    pub pieces: [u64; 2],
}

impl GravityPosition {
    /// The empty board.
    pub const EMPTY: GravityPosition = GravityPosition { pieces: [0, 0] };

    /// Every occupied cell.
    #[inline(always)]
    pub fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    /// The player to move: 0 when the piece counts are equal.
    #[inline(always)]
    pub fn mover(&self) -> usize {
        (self.occupied().count_ones() & 1) as usize
    }
}

/// How a [`Gravity`] board numbers its positions (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GravityIndex {
    /// One mixed-radix digit of `2^(H+1) − 1` values per column.
    MixedRadix,
    /// Tier-major: rank of the height vector times the colourings with the
    /// right piece counts, ranked combinatorially.
    Tight,
}

/// What a mixed-radix digit (one column's state) holds.
#[derive(Clone, Copy, Debug)]
struct Digit {
    /// Player 0's and player 1's cells in the column (levels from bit 0).
    masks: [u64; 2],
    /// Their piece counts.
    counts: [u32; 2],
}

/// Tables of the tight index.
#[derive(Clone)]
struct Tight {
    /// `(H+1)^c` per column.
    hpow: Vec<u64>,
    /// Rank of each height code among the codes with the same piece count.
    hrank: Vec<u32>,
    /// Occupied masks of the height vectors with k pieces, in rank order.
    hocc: Vec<Vec<u64>>,
    /// `binom[i][p] = C(p, i)` for i ≤ 32, p ≤ 64.
    binom: Vec<[u64; 65]>,
    /// `B_k = C(k, ⌊k/2⌋)`.
    colourings: Vec<u64>,
    /// First index of block k (length cells + 2).
    offset: Vec<u64>,
}

/// A gravity board: geometry, winning lines, index. Connect-Four and Sogo
/// are this board with their own line lists and notations.
#[derive(Clone)]
pub struct Gravity {
    nx: u32,
    ny: u32,
    height: u32,
    line: u32,
    misere: bool,
    cols: u32,
    cells: u32,
    col_mask: u64,
    lines: Vec<u64>,
    scheme: GravityIndex,
    size: u64,
    // Mixed radix.
    radix: u64,
    pow: Vec<u64>,
    prefix_cols: u32,
    digits: Vec<Digit>,
    // Tight.
    // Shared with a folded index built on this board (see [`TightFold`]).
    tight: Option<Arc<Tight>>,
}

impl fmt::Debug for Gravity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gravity")
            .field("nx", &self.nx)
            .field("ny", &self.ny)
            .field("height", &self.height)
            .field("line", &self.line)
            .field("misere", &self.misere)
            .field("scheme", &self.scheme)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Gravity {
    fn eq(&self, o: &Gravity) -> bool {
        (
            self.nx,
            self.ny,
            self.height,
            self.line,
            self.misere,
            self.scheme,
        ) == (o.nx, o.ny, o.height, o.line, o.misere, o.scheme)
    }
}

impl Eq for Gravity {}

/// `C(n, r)` in `u128` (n ≤ 64).
fn binom128(n: u32, r: u32) -> u128 {
    if r > n {
        return 0;
    }
    let r = r.min(n - r);
    let mut v: u128 = 1;
    for i in 0..r {
        v = v * u128::from(n - i) / u128::from(i + 1);
    }
    v
}

/// Next integer with the same number of set bits (Gosper's hack); `x > 0`.
#[inline(always)]
fn next_combination(x: u64) -> u64 {
    let c = x & x.wrapping_neg();
    let r = x + c;
    (((r ^ x) >> 2) >> c.trailing_zeros()) | r
}

impl Gravity {
    /// A gravity board on an `nx × ny` floor of columns of height `height`,
    /// won by `line` in a row, indexed by `scheme`.
    pub fn new(
        nx: u32,
        ny: u32,
        height: u32,
        line: u32,
        misere: bool,
        scheme: GravityIndex,
    ) -> Result<Gravity, String> {
        if nx == 0 || ny == 0 || height == 0 {
            return Err("the board needs at least one column and one row".into());
        }
        if line == 0 {
            return Err("the line length must be at least 1".into());
        }
        let cells = u64::from(nx) * u64::from(ny) * u64::from(height);
        if cells > 63 {
            return Err(format!(
                "the board has {cells} cells; at most 63 are supported"
            ));
        }
        let cells = cells as u32;
        let cols = nx * ny;
        let col_mask = (1u64 << height) - 1;
        let lines = Self::lines_of(nx, ny, height, line);
        if lines.is_empty() {
            return Err(format!(
                "no line of {line} fits on the board: the line length must not exceed its largest side"
            ));
        }
        let mut g = Gravity {
            nx,
            ny,
            height,
            line,
            misere,
            cols,
            cells,
            col_mask,
            lines,
            scheme,
            size: 0,
            radix: 0,
            pow: Vec::new(),
            prefix_cols: 0,
            digits: Vec::new(),
            tight: None,
        };
        match scheme {
            GravityIndex::MixedRadix => g.init_mixed()?,
            GravityIndex::Tight => g.init_tight()?,
        }
        Ok(g)
    }

    fn too_large(entries: u128) -> String {
        format!(
            "the index would have {entries} entries ({:.1e}); at most 2^40 = {MAX_ENTRIES} are supported",
            entries as f64
        )
    }

    fn init_mixed(&mut self) -> Result<(), String> {
        // H ≤ 63 here, so the radix fits a u128.
        let radix = (1u128 << (self.height + 1)) - 1;
        let entries = (0..self.cols).try_fold(1u128, |a, _| a.checked_mul(radix));
        match entries {
            Some(e) if e <= u128::from(MAX_ENTRIES) => self.size = e as u64,
            Some(e) => return Err(Self::too_large(e)),
            None => {
                return Err(format!(
                    "the index would have more than 2^128 entries; at most 2^40 = {MAX_ENTRIES} are supported"
                ))
            }
        }
        // The per-column-state table has `radix` entries: bound it before
        // building it (a 1x39 board is small but its column is not).
        if radix > 1 << 16 {
            return Err(format!(
                "columns of height {} have {radix} states; at most 2^16 (height 15) are supported",
                self.height
            ));
        }
        let radix = radix as u64;
        self.radix = radix;
        self.pow = (0..self.cols).map(|c| radix.pow(c)).collect();
        let mut p = 0;
        while p + 1 < self.cols && radix.pow(p) < 256 {
            p += 1;
        }
        self.prefix_cols = p;
        self.digits = (0..radix)
            .map(|d| {
                let h = (d + 1).ilog2();
                let occ = (1u64 << h) - 1;
                let p1 = d - occ;
                let masks = [occ & !p1, p1];
                Digit {
                    masks,
                    counts: [masks[0].count_ones(), masks[1].count_ones()],
                }
            })
            .collect();
        Ok(())
    }

    fn init_tight(&mut self) -> Result<(), String> {
        let base = u64::from(self.height) + 1;
        let codes = (0..self.cols).try_fold(1u64, |a, _| a.checked_mul(base));
        let codes = match codes {
            Some(n) if n <= MAX_HEIGHT_TABLE => n,
            _ => {
                // Report the size the index would have.
                let mut ways = vec![0u128; self.cells as usize + 1];
                ways[0] = 1;
                for _ in 0..self.cols {
                    let mut next = vec![0u128; ways.len()];
                    for (s, &w) in ways.iter().enumerate() {
                        for h in 0..=self.height as usize {
                            if s + h < next.len() {
                                next[s + h] += w;
                            }
                        }
                    }
                    ways = next;
                }
                let total: u128 = ways
                    .iter()
                    .enumerate()
                    .map(|(k, &w)| w * binom128(k as u32, k as u32 / 2))
                    .sum();
                return Err(Self::too_large(total));
            }
        };
        let hpow: Vec<u64> = (0..self.cols).map(|c| base.pow(c)).collect();
        let mut hocc = vec![Vec::new(); self.cells as usize + 1];
        let mut hrank = vec![0u32; codes as usize];
        for code in 0..codes {
            let mut k = 0;
            let mut occ = 0u64;
            let mut x = code;
            for c in 0..self.cols {
                let h = x % base;
                x /= base;
                k += h;
                occ |= ((1u64 << h) - 1) << (c * self.height);
            }
            let list = &mut hocc[k as usize];
            hrank[code as usize] = list.len() as u32;
            list.push(occ);
        }
        let mut binom = vec![[0u64; 65]; 33];
        for (i, row) in binom.iter_mut().enumerate() {
            for (p, v) in row.iter_mut().enumerate() {
                *v = binom128(p as u32, i as u32) as u64;
            }
        }
        let colourings: Vec<u64> = (0..=self.cells)
            .map(|k| binom128(k, k / 2) as u64)
            .collect();
        let mut offset = vec![0u64; self.cells as usize + 2];
        let mut total: u128 = 0;
        for k in 0..=self.cells as usize {
            offset[k] = total.min(u128::from(u64::MAX)) as u64;
            total += hocc[k].len() as u128 * u128::from(colourings[k]);
        }
        if total > u128::from(MAX_ENTRIES) {
            return Err(Self::too_large(total));
        }
        offset[self.cells as usize + 1] = total as u64;
        self.size = total as u64;
        self.tight = Some(Arc::new(Tight {
            hpow,
            hrank,
            hocc,
            binom,
            colourings,
            offset,
        }));
        Ok(())
    }

    /// Every line of `k` cells along one of the 13 directions of the box.
    fn lines_of(nx: u32, ny: u32, h: u32, k: u32) -> Vec<u64> {
        let mut out = Vec::new();
        let dims = [nx as i64, ny as i64, h as i64];
        for dx in -1i64..=1 {
            for dy in -1i64..=1 {
                for dz in -1i64..=1 {
                    // One direction of each opposite pair.
                    if (dx, dy, dz) <= (0, 0, 0) {
                        continue;
                    }
                    for x in 0..dims[0] {
                        for y in 0..dims[1] {
                            for z in 0..dims[2] {
                                let mut mask = 0u64;
                                let mut ok = true;
                                for i in 0..k as i64 {
                                    let (a, b, c) = (x + i * dx, y + i * dy, z + i * dz);
                                    if !(0..dims[0]).contains(&a)
                                        || !(0..dims[1]).contains(&b)
                                        || !(0..dims[2]).contains(&c)
                                    {
                                        ok = false;
                                        break;
                                    }
                                    mask |= 1 << (((a + b * dims[0]) * dims[2] + c) as u32);
                                }
                                if ok {
                                    out.push(mask);
                                }
                            }
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Columns along x.
    pub fn nx(&self) -> u32 {
        self.nx
    }

    /// Columns along y.
    pub fn ny(&self) -> u32 {
        self.ny
    }

    /// Height of every column.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Pieces in a row needed to win.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// Whether completing a line loses instead of wins.
    pub fn misere(&self) -> bool {
        self.misere
    }

    /// Number of columns.
    pub fn columns(&self) -> u32 {
        self.cols
    }

    /// Number of cells.
    pub fn cells(&self) -> u32 {
        self.cells
    }

    /// The winning lines as cell masks.
    pub fn lines(&self) -> &[u64] {
        &self.lines
    }

    /// The index scheme.
    pub fn scheme(&self) -> GravityIndex {
        self.scheme
    }

    /// Bit of the cell at column `c`, level `z`.
    #[inline(always)]
    pub fn cell(&self, c: u32, z: u32) -> u64 {
        1u64 << (c * self.height + z)
    }

    /// Pieces in column `c`.
    #[inline(always)]
    pub fn column_height(&self, p: &GravityPosition, c: u32) -> u32 {
        ((p.occupied() >> (c * self.height)) & self.col_mask).count_ones()
    }

    /// Whether `mask` contains a whole line.
    #[inline(always)]
    pub fn has_line(&self, mask: u64) -> bool {
        self.lines.iter().any(|&l| l & !mask == 0)
    }

    /// Drops the mover's piece into column `c`, or explains why it cannot
    /// (column out of range or full, game over).
    pub fn play(&self, p: &GravityPosition, c: u32) -> Result<GravityPosition, String> {
        if c >= self.cols {
            return Err(format!("there is no column {}", c + 1));
        }
        if let Some(v) = self.primitive(p) {
            return Err(match v {
                Value::Tie => "the board is full".to_string(),
                _ => format!(
                    "the game is over: {} has {} in a row",
                    ['x', 'o'][1 - p.mover()],
                    self.line
                ),
            });
        }
        let h = self.column_height(p, c);
        if h == self.height {
            return Err("the column is full".into());
        }
        let mut q = *p;
        q.pieces[p.mover()] |= self.cell(c, h);
        Ok(q)
    }

    /// Checks a board built from a picture: gravity, piece counts, and that
    /// the player to move has no line. Columns are named by `name`.
    pub fn check(&self, p: &GravityPosition, name: impl Fn(u32) -> String) -> Result<(), String> {
        if p.pieces[0] & p.pieces[1] != 0 {
            return Err("a cell holds two pieces".into());
        }
        for c in 0..self.cols {
            let col = (p.occupied() >> (c * self.height)) & self.col_mask;
            if col & (col + 1) != 0 {
                return Err(format!(
                    "column {} has a piece above an empty cell (pieces fall to the lowest empty cell)",
                    name(c)
                ));
            }
        }
        let (a, b) = (p.pieces[0].count_ones(), p.pieces[1].count_ones());
        if a != b && a != b + 1 {
            return Err(format!(
                "x has {a} pieces and o has {b}: x (who moves first) must have as many as o or one more"
            ));
        }
        let m = p.mover();
        if self.has_line(p.pieces[m]) {
            return Err(format!(
                "{} is to move but already has {} in a row: not a legal position",
                ['x', 'o'][m],
                self.line
            ));
        }
        Ok(())
    }

    /// Index of a position (see the module docs).
    #[inline]
    pub fn encode(&self, p: &GravityPosition) -> u64 {
        match &self.tight {
            None => {
                let occ = p.occupied();
                let mut index = 0u64;
                for c in (0..self.cols).rev() {
                    let s = c * self.height;
                    let d = ((occ >> s) & self.col_mask) + ((p.pieces[1] >> s) & self.col_mask);
                    index = index * self.radix + d;
                }
                index
            }
            Some(t) => {
                let occ = p.occupied();
                let k = occ.count_ones() as usize;
                let (code, s) = self.compress(t, p);
                t.offset[k]
                    + u64::from(t.hrank[code as usize]) * t.colourings[k]
                    + Self::colex(t, s)
            }
        }
    }

    /// Height code and column-major colouring string of a position.
    #[inline(always)]
    fn compress(&self, t: &Tight, p: &GravityPosition) -> (u64, u64) {
        let occ = p.occupied();
        let mut code = 0u64;
        let mut s = 0u64;
        let mut at = 0u32;
        for c in 0..self.cols {
            let sh = c * self.height;
            let h = ((occ >> sh) & self.col_mask).count_ones();
            code += u64::from(h) * t.hpow[c as usize];
            s |= ((p.pieces[1] >> sh) & self.col_mask) << at;
            at += h;
        }
        (code, s)
    }

    /// Colex rank of a bit string among those with as many set bits.
    #[inline(always)]
    fn colex(t: &Tight, mut s: u64) -> u64 {
        let mut r = 0;
        let mut i = 1;
        while s != 0 {
            r += t.binom[i][s.trailing_zeros() as usize];
            s &= s - 1;
            i += 1;
        }
        r
    }

    /// The string of `k` bits with `m` set bits of colex rank `r`.
    fn colex_unrank(t: &Tight, mut r: u64, m: u32, k: u32) -> u64 {
        let mut s = 0u64;
        let mut top = k;
        for i in (1..=m as usize).rev() {
            let mut p = top;
            loop {
                p -= 1;
                if t.binom[i][p as usize] <= r {
                    break;
                }
            }
            s |= 1 << p;
            r -= t.binom[i][p as usize];
            top = p;
        }
        s
    }

    /// Spreads a column-major string of pieces over the occupied cells
    /// `occ` (a gravity-shaped mask): the inverse of [`Gravity::squeeze`].
    #[inline(always)]
    fn spread(&self, occ: u64, s: u64) -> u64 {
        let mut out = 0u64;
        let mut at = 0u32;
        for c in 0..self.cols {
            let col = (occ >> (c * self.height)) & self.col_mask;
            out |= ((s >> at) & col) << (c * self.height);
            at += col.count_ones();
        }
        out
    }

    /// The cells of `mask` (within `occ`) as a column-major string over the
    /// occupied cells.
    #[inline(always)]
    fn squeeze(&self, occ: u64, mask: u64) -> u64 {
        let mut out = 0u64;
        let mut at = 0u32;
        for c in 0..self.cols {
            let col = (occ >> (c * self.height)) & self.col_mask;
            out |= ((mask >> (c * self.height)) & col) << at;
            at += col.count_ones();
        }
        out
    }

    /// Whether a board with valid counts is legal: the mover has no line.
    #[inline(always)]
    fn mover_free(&self, p: &GravityPosition) -> bool {
        !self.has_line(p.pieces[p.mover()])
    }

    /// The position at an index, or `None` for a hole.
    pub fn decode(&self, index: u64) -> Option<GravityPosition> {
        if index >= self.size {
            return None;
        }
        let p = match &self.tight {
            None => {
                let mut x = index;
                let mut pieces = [0u64; 2];
                for c in 0..self.cols {
                    let d = &self.digits[(x % self.radix) as usize];
                    x /= self.radix;
                    pieces[0] |= d.masks[0] << (c * self.height);
                    pieces[1] |= d.masks[1] << (c * self.height);
                }
                let (a, b) = (pieces[0].count_ones(), pieces[1].count_ones());
                if a != b && a != b + 1 {
                    return None;
                }
                GravityPosition { pieces }
            }
            Some(t) => {
                let k = t.offset.partition_point(|&o| o <= index) - 1;
                let r = index - t.offset[k];
                let b = t.colourings[k];
                let occ = t.hocc[k][(r / b) as usize];
                let s = Self::colex_unrank(t, r % b, k as u32 / 2, k as u32);
                let p1 = self.spread(occ, s);
                GravityPosition {
                    pieces: [occ & !p1, p1],
                }
            }
        };
        self.mover_free(&p).then_some(p)
    }

    /// Size of the index space.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Value of a game-over position for the player to move.
    #[inline]
    pub fn primitive(&self, p: &GravityPosition) -> Option<Value> {
        if self.has_line(p.pieces[1 - p.mover()]) {
            Some(if self.misere { Value::Win } else { Value::Lose })
        } else if p.occupied().count_ones() == self.cells {
            Some(Value::Tie)
        } else {
            None
        }
    }

    /// Every move (0-based column) with its child, columns in order.
    pub fn moves(&self, p: &GravityPosition) -> Vec<(u8, GravityPosition)> {
        if self.primitive(p).is_some() {
            return Vec::new();
        }
        (0..self.cols)
            .filter_map(|c| self.play(p, c).ok().map(|q| (c as u8, q)))
            .collect()
    }

    /// Calls `f` with each child's index, straight from the parent's index.
    #[inline(always)]
    pub fn for_each_child_index(&self, p: &GravityPosition, mut f: impl FnMut(u64)) {
        let occ = p.occupied();
        let mover = p.mover() as u64;
        match &self.tight {
            None => {
                let base = self.encode(p);
                for c in 0..self.cols {
                    let h = ((occ >> (c * self.height)) & self.col_mask).count_ones();
                    if h < self.height {
                        f(base + ((1u64 << h) << mover) * self.pow[c as usize]);
                    }
                }
            }
            Some(t) => {
                let k = occ.count_ones() as usize;
                let (code, s) = self.compress(t, p);
                let first = t.offset[k + 1];
                let b = t.colourings[k + 1];
                let mut at = 0u32;
                for c in 0..self.cols {
                    let h = ((occ >> (c * self.height)) & self.col_mask).count_ones();
                    at += h;
                    if h < self.height {
                        let child = code + t.hpow[c as usize];
                        let low = s & ((1u64 << at) - 1);
                        let s2 = low | (mover << at) | ((s >> at) << (at + 1));
                        f(first + u64::from(t.hrank[child as usize]) * b + Self::colex(t, s2));
                    }
                }
            }
        }
    }

    /// Number of children of a non-primitive position.
    #[inline]
    pub fn move_count(&self, p: &GravityPosition) -> u64 {
        let occ = p.occupied();
        (0..self.cols)
            .filter(|&c| (occ >> (c * self.height)) & self.col_mask != self.col_mask)
            .count() as u64
    }

    /// Tier = empty cells.
    #[inline]
    pub fn tier(&self, p: &GravityPosition) -> u32 {
        self.cells - p.occupied().count_ones()
    }

    /// Tiers: 0 (full board) to the number of cells (empty board).
    pub fn tier_count(&self) -> u32 {
        self.cells + 1
    }

    /// Work units of a tier.
    pub fn tier_units(&self, tier: u32) -> u64 {
        match &self.tight {
            None => self.radix.pow(self.prefix_cols),
            Some(t) => {
                let k = (self.cells - tier) as usize;
                (t.offset[k + 1] - t.offset[k]).div_ceil(TIGHT_CHUNK)
            }
        }
    }

    /// The legal positions of a tier in a unit, in increasing index order.
    pub fn for_each_in_unit(&self, tier: u32, unit: u64, mut f: impl FnMut(u64, &GravityPosition)) {
        let k = self.cells - tier;
        match &self.tight {
            None => {
                // Fix the top `prefix_cols` columns from the unit number.
                let free = self.cols - self.prefix_cols;
                let mut pieces = [0u64; 2];
                let mut x = unit;
                for c in free..self.cols {
                    let d = &self.digits[(x % self.radix) as usize];
                    x /= self.radix;
                    pieces[0] |= d.masks[0] << (c * self.height);
                    pieces[1] |= d.masks[1] << (c * self.height);
                }
                let have = [pieces[0].count_ones(), pieces[1].count_ones()];
                let want = [k - k / 2, k / 2];
                if have[0] > want[0] || have[1] > want[1] {
                    return;
                }
                let need = [want[0] - have[0], want[1] - have[1]];
                if need[0] + need[1] > free * self.height {
                    return;
                }
                let base = unit * self.pow.get(free as usize).copied().unwrap_or(self.size);
                let mover = (k & 1) as usize;
                self.fill(free, 0, base, pieces, need, mover, &mut f);
            }
            Some(t) => {
                let k = k as usize;
                self.tight_unit(t, k, t.offset[k], &t.hocc[k], unit, &mut f);
            }
        }
    }

    /// The legal positions of work unit `unit` of block k of a tight index
    /// (plain or folded): block k starts at index `first` and holds the
    /// height vectors `occs` (occupied masks, in index order), each with
    /// its `B_k` colourings. Increasing index order.
    #[inline(always)]
    fn tight_unit(
        &self,
        t: &Tight,
        k: usize,
        first: u64,
        occs: &[u64],
        unit: u64,
        f: &mut impl FnMut(u64, &GravityPosition),
    ) {
        let b = t.colourings[k];
        let count = occs.len() as u64 * b;
        let start = unit.saturating_mul(TIGHT_CHUNK);
        let end = start.saturating_add(TIGHT_CHUNK).min(count);
        if start >= end {
            return;
        }
        let m = (k / 2) as u32;
        let mover = k & 1;
        // The mover's pieces as a k-bit string: the colouring string
        // itself for o, its complement for x.
        let flip = if mover == 1 { 0 } else { (1u64 << k) - 1 };
        let mut hr = start / b;
        let mut cr = start % b;
        let mut s = Self::colex_unrank(t, cr, m, k as u32);
        let mut live = Vec::with_capacity(self.lines.len());
        let mut occ = occs[hr as usize];
        self.live_lines(occ, &mut live);
        for r in start..end {
            // Lines lying on occupied cells, in the string's bits:
            // cheaper than spreading every colouring over the board.
            let mine = s ^ flip;
            if !live.iter().any(|&l| l & !mine == 0) {
                let p1 = self.spread(occ, s);
                let p = GravityPosition {
                    pieces: [occ & !p1, p1],
                };
                f(first + r, &p);
            }
            cr += 1;
            if cr == b {
                cr = 0;
                hr += 1;
                s = (1u64 << m) - 1;
                if r + 1 < end {
                    occ = occs[hr as usize];
                    self.live_lines(occ, &mut live);
                }
            } else {
                s = next_combination(s);
            }
        }
    }

    /// Puts in `live` the lines whose cells are all in `occ`, as masks over
    /// the column-major string of the pieces.
    fn live_lines(&self, occ: u64, live: &mut Vec<u64>) {
        live.clear();
        for &l in &self.lines {
            if l & occ == l {
                live.push(self.squeeze(occ, l));
            }
        }
    }

    /// Chooses the states of columns `cols-1 ..= lo` (of those still free)
    /// with exactly `need` more pieces of each player, in increasing order.
    /// Column `c` weighs `R^(c−lo)`: the plain index fills from column 0,
    /// the mirror-folded one the middle columns from column 1.
    #[allow(clippy::too_many_arguments)]
    fn fill(
        &self,
        cols: u32,
        lo: u32,
        index: u64,
        pieces: [u64; 2],
        need: [u32; 2],
        mover: usize,
        f: &mut impl FnMut(u64, &GravityPosition),
    ) {
        if cols == lo {
            let p = GravityPosition { pieces };
            if !self.has_line(pieces[mover]) {
                f(index, &p);
            }
            return;
        }
        let c = cols - 1;
        let room = (c - lo) * self.height;
        let total = need[0] + need[1];
        let shift = c * self.height;
        let weight = self.pow[(c - lo) as usize];
        for (d, digit) in self.digits.iter().enumerate() {
            let [a, b] = digit.counts;
            if a + b > total {
                // Digits come in increasing height.
                break;
            }
            if a > need[0] || b > need[1] || total - a - b > room {
                continue;
            }
            self.fill(
                c,
                lo,
                index + d as u64 * weight,
                [
                    pieces[0] | digit.masks[0] << shift,
                    pieces[1] | digit.masks[1] << shift,
                ],
                [need[0] - a, need[1] - b],
                mover,
                f,
            );
        }
    }

    /// Parses one picture of `rows` rows separated by `/`, each `width`
    /// characters of `.`, `x`, `o`; `cell(row, i)` names the cell's bit.
    /// Returns the masks of `x` and `o`. `what` prefixes error messages.
    pub(crate) fn parse_cells(
        text: &str,
        rows: u32,
        width: u32,
        what: &str,
        mut cell: impl FnMut(u32, u32) -> u64,
    ) -> Result<[u64; 2], String> {
        let lines: Vec<&str> = text.split('/').map(str::trim).collect();
        if lines.len() != rows as usize {
            return Err(format!(
                "{what}: expected {rows} rows separated by '/', found {}",
                lines.len()
            ));
        }
        let mut pieces = [0u64; 2];
        for (r, line) in lines.iter().enumerate() {
            let n = line.chars().count();
            if n != width as usize {
                let e = crate::games::row_length(r + 1, line, n, width, "cells");
                return Err(format!("{what}: {e}"));
            }
            for (i, ch) in line.chars().enumerate() {
                let bit = cell(r as u32, i as u32);
                match ch {
                    '.' => {}
                    'x' | 'X' => pieces[0] |= bit,
                    'o' | 'O' => pieces[1] |= bit,
                    other => {
                        return Err(format!(
                        "{what}: unexpected '{other}' (use '.' empty, 'x' player 0, 'o' player 1)"
                    ))
                    }
                }
            }
        }
        Ok(pieces)
    }

    /// The character of a cell: `.`, `x` or `o`.
    pub(crate) fn cell_char(p: &GravityPosition, bit: u64) -> char {
        if p.pieces[0] & bit != 0 {
            'x'
        } else if p.pieces[1] & bit != 0 {
            'o'
        } else {
            '.'
        }
    }

    /// Plays a list of moves (0-based columns) from the empty board.
    pub(crate) fn play_all(
        &self,
        moves: &[u32],
        name: impl Fn(u32) -> String,
    ) -> Result<GravityPosition, String> {
        let mut p = GravityPosition::EMPTY;
        for (i, &c) in moves.iter().enumerate() {
            p = self
                .play(&p, c)
                .map_err(|e| format!("move {} ({}): {e}", i + 1, name(c)))?;
        }
        Ok(p)
    }
}

/// The tight index with the floor's symmetries folded in (scheme 2, see the
/// module docs): the height vectors fall into orbits under the symmetries
/// of the floor, and each orbit keeps one block of colourings, for its
/// representative.
#[derive(Clone)]
pub(crate) struct TightFold {
    /// The plain tight index's tables (height codes, colex ranks).
    tight: Arc<Tight>,
    /// Number of floor symmetries (at most 8; element 0 the identity).
    syms: usize,
    /// `luts[g][j][b]`: the image under symmetry g of byte `b` of a cell
    /// mask at byte position j (cell (c, z) goes to (g(c), z)).
    luts: Vec<[[u64; 256]; 8]>,
    /// Bytes of a cell mask that hold cells.
    bytes: usize,
    /// For each height code: `slot << 3 | g`, g the first symmetry taking
    /// the height vector to its orbit's representative.
    slot_of: Vec<u32>,
    /// `reps[k]`: the occupied masks of the representatives with k pieces,
    /// in slot order (increasing height code).
    reps: Vec<Vec<u64>>,
    /// First folded index of block k (length cells + 2; the last is the size).
    offset: Vec<u64>,
}

impl fmt::Debug for TightFold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TightFold")
            .field("symmetries", &self.syms)
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}

/// The folded index follows from the board, which games compare anyway.
impl PartialEq for TightFold {
    fn eq(&self, _: &TightFold) -> bool {
        true
    }
}

impl Eq for TightFold {}

impl TightFold {
    /// The folded index of a board with the tight index, or why not.
    pub(crate) fn new(b: &Gravity) -> Result<TightFold, String> {
        let Some(tight) = &b.tight else {
            return Err("only the tight index can fold symmetries".into());
        };
        let t = &**tight;
        let sym = BoardSymmetries::grid(b.ny, b.nx);
        if sym.len() < 2 {
            return Err(
                "a single column is its own image under every symmetry: there is nothing to fold"
                    .into(),
            );
        }
        let (cols, height) = (b.cols, b.height);
        // Floor symmetries keep levels, so they map the box's lines onto
        // lines and gravity-shaped boards onto gravity-shaped boards.
        let luts: Vec<[[u64; 256]; 8]> = (0..sym.len())
            .map(|g| {
                let mut lut = [[0u64; 256]; 8];
                for (j, table) in lut.iter_mut().enumerate() {
                    for (v, out) in table.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let cell = (j * 8 + bit) as u32;
                            if v & (1 << bit) != 0 && cell < b.cells {
                                let (c, z) = (cell / height, cell % height);
                                *out |= 1u64 << (sym.square(g, c) * height + z);
                            }
                        }
                    }
                }
                lut
            })
            .collect();
        let base = u64::from(height) + 1;
        let codes = t.hrank.len();
        // Codes in increasing order: a representative (the orbit's smallest
        // code) is met before the rest of its orbit, which copy its slot.
        let mut slot_of = vec![0u32; codes];
        let mut reps: Vec<Vec<u64>> = vec![Vec::new(); b.cells as usize + 1];
        let mut h = vec![0u64; cols as usize];
        for code in 0..codes {
            let mut x = code as u64;
            for hc in h.iter_mut() {
                *hc = x % base;
                x /= base;
            }
            let (rep, g) = (0..sym.len())
                .map(|g| {
                    let image: u64 = (0..cols)
                        .map(|c| h[c as usize] * t.hpow[sym.square(g, c) as usize])
                        .sum();
                    (image, g as u32)
                })
                .min()
                .unwrap_or((code as u64, 0));
            slot_of[code] = if rep == code as u64 {
                let k = h.iter().sum::<u64>() as usize;
                let occ = t.hocc[k][t.hrank[code] as usize];
                reps[k].push(occ);
                (reps[k].len() as u32 - 1) << 3
            } else {
                slot_of[rep as usize] & !7 | g
            };
        }
        let mut offset = vec![0u64; b.cells as usize + 2];
        for k in 0..=b.cells as usize {
            // At most the plain size, which fits.
            offset[k + 1] = offset[k] + reps[k].len() as u64 * t.colourings[k];
        }
        Ok(TightFold {
            tight: Arc::clone(tight),
            syms: sym.len(),
            luts,
            bytes: b.cells.div_ceil(8) as usize,
            slot_of,
            reps,
            offset,
        })
    }

    /// Size of the folded index.
    pub(crate) fn size(&self) -> u64 {
        self.offset.last().copied().unwrap_or(0)
    }

    /// The image of a cell mask under symmetry `g`.
    #[inline(always)]
    fn map(&self, g: usize, m: u64) -> u64 {
        let lut = &self.luts[g];
        let mut out = 0;
        for (j, table) in lut.iter().enumerate().take(self.bytes) {
            out |= table[((m >> (8 * j)) & 0xff) as usize];
        }
        out
    }

    /// The colouring string of `p` mapped by symmetry `g`.
    #[inline(always)]
    fn mapped_string(&self, b: &Gravity, g: usize, p: &GravityPosition) -> u64 {
        let q = GravityPosition {
            pieces: [self.map(g, p.pieces[0]), self.map(g, p.pieces[1])],
        };
        b.compress(&self.tight, &q).1
    }

    /// Folded index of any position: its representative image's.
    #[inline]
    pub(crate) fn encode(&self, b: &Gravity, p: &GravityPosition) -> u64 {
        let t = &*self.tight;
        let k = p.occupied().count_ones() as usize;
        let (code, s) = b.compress(t, p);
        let e = self.slot_of[code as usize];
        let g = (e & 7) as usize;
        let s = if g == 0 {
            s
        } else {
            self.mapped_string(b, g, p)
        };
        self.offset[k] + u64::from(e >> 3) * t.colourings[k] + Gravity::colex(t, s)
    }

    /// The position stored at a folded index, or `None` for a hole.
    pub(crate) fn decode(&self, b: &Gravity, index: u64) -> Option<GravityPosition> {
        if index >= self.size() {
            return None;
        }
        let t = &*self.tight;
        let k = self.offset.partition_point(|&o| o <= index) - 1;
        let r = index - self.offset[k];
        let bk = t.colourings[k];
        let occ = *self.reps[k].get((r / bk) as usize)?;
        let s = Gravity::colex_unrank(t, r % bk, k as u32 / 2, k as u32);
        let p1 = b.spread(occ, s);
        let p = GravityPosition {
            pieces: [occ & !p1, p1],
        };
        b.mover_free(&p).then_some(p)
    }

    /// Folded indices of the children, columns in order. A child whose
    /// height vector is its own representative extends the parent's
    /// colouring string by one bit, as in the plain index; any other is
    /// mapped to its representative first.
    #[inline(always)]
    pub(crate) fn for_each_child_index(
        &self,
        b: &Gravity,
        p: &GravityPosition,
        mut f: impl FnMut(u64),
    ) {
        let t = &*self.tight;
        let occ = p.occupied();
        let mover = p.mover();
        let k = occ.count_ones() as usize;
        let (code, s) = b.compress(t, p);
        let first = self.offset[k + 1];
        // A full board has no children.
        let Some(&bk) = t.colourings.get(k + 1) else {
            return;
        };
        let mut at = 0u32;
        for c in 0..b.cols {
            let h = ((occ >> (c * b.height)) & b.col_mask).count_ones();
            at += h;
            if h == b.height {
                continue;
            }
            let e = self.slot_of[(code + t.hpow[c as usize]) as usize];
            let g = (e & 7) as usize;
            let s2 = if g == 0 {
                let low = s & ((1u64 << at) - 1);
                low | ((mover as u64) << at) | ((s >> at) << (at + 1))
            } else {
                let mut q = *p;
                q.pieces[mover] |= b.cell(c, h);
                self.mapped_string(b, g, &q)
            };
            f(first + u64::from(e >> 3) * bk + Gravity::colex(t, s2));
        }
    }

    /// Work units of a tier: runs of consecutive folded indices.
    pub(crate) fn tier_units(&self, b: &Gravity, tier: u32) -> u64 {
        let Some(k) = b.cells.checked_sub(tier) else {
            return 0;
        };
        let k = k as usize;
        (self.offset[k + 1] - self.offset[k]).div_ceil(TIGHT_CHUNK)
    }

    /// The legal positions of a tier in a unit, in increasing index order:
    /// the plain walk over the representatives' height vectors only.
    pub(crate) fn for_each_in_unit(
        &self,
        b: &Gravity,
        tier: u32,
        unit: u64,
        mut f: impl FnMut(u64, &GravityPosition),
    ) {
        let Some(k) = b.cells.checked_sub(tier) else {
            return;
        };
        let k = k as usize;
        b.tight_unit(&self.tight, k, self.offset[k], &self.reps[k], unit, &mut f);
    }
}

/// The rule methods of [`Game`] that do not depend on the index, for a game
/// struct with a `board: Gravity` field (Connect and Sogo implement the
/// index methods themselves, to add their folded indices).
macro_rules! gravity_play {
    () => {
        fn start(&self) -> $crate::games::connect::GravityPosition {
            $crate::games::connect::GravityPosition::EMPTY
        }

        #[inline]
        fn primitive(
            &self,
            p: &$crate::games::connect::GravityPosition,
        ) -> Option<$crate::value::Value> {
            self.board.primitive(p)
        }

        fn moves(
            &self,
            p: &$crate::games::connect::GravityPosition,
        ) -> Vec<(u8, $crate::games::connect::GravityPosition)> {
            self.board.moves(p)
        }

        #[inline]
        fn move_count(&self, p: &$crate::games::connect::GravityPosition) -> u64 {
            self.board.move_count(p)
        }

        fn tier_count(&self) -> u32 {
            self.board.tier_count()
        }

        #[inline]
        fn tier(&self, p: &$crate::games::connect::GravityPosition) -> u32 {
            self.board.tier(p)
        }

        fn max_remoteness(&self) -> u32 {
            self.board.cells()
        }

        fn player_to_move(&self, p: &$crate::games::connect::GravityPosition) -> Option<u8> {
            Some(p.mover() as u8)
        }
    };
}
pub(crate) use gravity_play;

/// Parses the parameters after a gravity game's size: nothing, `normal` or
/// `misere`.
pub(crate) fn parse_rest(rest: Option<&str>) -> Result<bool, String> {
    crate::games::parse_play(rest)
}

/// Splits a move list into tokens: on spaces and commas if it has any, else
/// one token per character. Lazy, so a caller that stops at the board's
/// capacity never builds a token list as long as a huge input.
pub(crate) fn move_tokens(s: &str) -> impl Iterator<Item = &str> {
    let spaced = s.contains(|c: char| c.is_whitespace() || c == ',');
    let words = spaced.then(|| {
        s.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
    });
    let chars = (!spaced).then(|| s.char_indices().map(|(i, c)| &s[i..i + c.len_utf8()]));
    words
        .into_iter()
        .flatten()
        .chain(chars.into_iter().flatten())
}

/// The refusal of a move list longer than the board has cells.
pub(crate) fn too_many_moves(cells: u32) -> String {
    format!("more moves than the board has cells ({cells})")
}

/// The Connect-Four family: W columns of H rows, K in a row.
///
/// Equality includes the index: a mirror-folded game differs from the plain
/// one (same spec; the file header's flag tells them apart).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect {
    board: Gravity,
    /// The mirror-folded index (scheme 2), when chosen.
    mirror: Option<Mirror>,
}

/// Constants of the mirror-folded index (see the module docs); they follow
/// from the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mirror {
    /// `R^(W−2)`: entries per value of the pair digit.
    span: u64,
    /// `T · R^(W−2)`.
    size: u64,
    /// Top middle columns a work unit fixes besides the pair digit.
    unit_cols: u32,
    /// Entries per work unit: `R^(W−2−unit_cols)`.
    unit_span: u64,
    /// Work units per tier: `T · R^unit_cols`.
    units: u64,
}

/// `x(x+1)/2`: the pair digits whose larger digit is below `x`.
#[inline(always)]
fn tri(x: u64) -> u64 {
    x * (x + 1) / 2
}

impl Mirror {
    /// The folded index of a mixed-radix board of `w ≥ 2` columns.
    fn new(board: &Gravity) -> Mirror {
        let r = board.radix;
        let w = board.cols;
        // R ≤ 2^16 - 1 and the plain size R^W ≤ 2^40, so none of these
        // overflow: T · R^(W−2) ≤ R^W.
        let pairs = tri(r);
        let span = board.pow[(w - 2) as usize];
        // Enough units to keep both cores busy and the progress bar moving,
        // as the plain index's at least 256.
        let mut unit_cols = 0;
        while unit_cols < w - 2 && pairs * r.pow(unit_cols) < 256 {
            unit_cols += 1;
        }
        Mirror {
            span,
            size: pairs * span,
            unit_cols,
            unit_span: board.pow[(w - 2 - unit_cols) as usize],
            units: pairs * r.pow(unit_cols),
        }
    }
}

impl Connect {
    /// Connect on `width` columns of `height` rows, `line` in a row.
    pub fn new(width: u32, height: u32, line: u32, misere: bool) -> Result<Connect, String> {
        Ok(Connect {
            board: Gravity::new(width, 1, height, line, misere, GravityIndex::MixedRadix)?,
            mirror: None,
        })
    }

    /// Parses the parameters after `connect:`, e.g. `4x4`, `5x4x3`,
    /// `4x4x4:misere`.
    pub fn from_params(params: &str) -> Result<Connect, String> {
        let (size, rest) = match params.split_once(':') {
            Some((s, r)) => (s, Some(r)),
            None => (params, None),
        };
        let usage = "expected connect:WxH or connect:WxHxK, e.g. connect:4x4 or connect:5x4x3";
        let wrong = || {
            format!(
                "bad board size {} ({usage})",
                crate::error::Error::quote(size)
            )
        };
        let mut nums = size.split(['x', 'X']).map(crate::games::parse_num::<u32>);
        let (w, h, k) = match (nums.next(), nums.next(), nums.next(), nums.next()) {
            (Some(Some(w)), Some(Some(h)), None, None) => (w, h, 4),
            (Some(Some(w)), Some(Some(h)), Some(Some(k)), None) => (w, h, k),
            _ => return Err(wrong()),
        };
        let misere = parse_rest(rest)?;
        Connect::new(w, h, k, misere)
    }

    /// The shared gravity board.
    pub fn board(&self) -> &Gravity {
        &self.board
    }

    /// Number of columns (W).
    pub fn width(&self) -> u32 {
        self.board.nx()
    }

    /// Number of rows (H).
    pub fn height(&self) -> u32 {
        self.board.height()
    }

    fn parse_moves(&self, s: &str) -> Result<GravityPosition, String> {
        let w = self.width();
        let mut moves = Vec::new();
        for (i, t) in move_tokens(s).enumerate() {
            if i as u32 >= self.board.cells() {
                return Err(too_many_moves(self.board.cells()));
            }
            match crate::games::parse_num::<u32>(t) {
                Some(c) if (1..=w).contains(&c) => moves.push(c - 1),
                _ => {
                    return Err(format!(
                        "move {} {} is not a column number 1..={w}",
                        i + 1,
                        crate::error::Error::quote(t)
                    ))
                }
            }
        }
        self.board.play_all(&moves, |c| format!("column {}", c + 1))
    }

    /// The mixed-radix digit of column `c` given the occupied cells and
    /// player 1's cells: `(2^h − 1) + b`.
    #[inline(always)]
    fn digit(&self, occ: u64, p1: u64, c: u32) -> u64 {
        let s = c * self.board.height;
        ((occ >> s) & self.board.col_mask) + ((p1 >> s) & self.board.col_mask)
    }

    /// The middle columns' part of the folded index, `Σ d_c · R^(c−1)` for
    /// c in 1..W−1, or of the mirror image's (`d_{W−1−c}` in place of `d_c`).
    #[inline(always)]
    fn middle(&self, occ: u64, p1: u64, flip: bool) -> u64 {
        let w = self.board.cols;
        let mut mid = 0u64;
        if flip {
            for c in 1..w - 1 {
                mid = mid * self.board.radix + self.digit(occ, p1, c);
            }
        } else {
            for c in (1..w - 1).rev() {
                mid = mid * self.board.radix + self.digit(occ, p1, c);
            }
        }
        mid
    }

    /// Folded index of any position: its canonical orientation's.
    #[inline]
    fn fold_encode(&self, m: &Mirror, p: &GravityPosition) -> u64 {
        let (occ, p1) = (p.occupied(), p.pieces[1]);
        let a = self.digit(occ, p1, 0);
        let b = self.digit(occ, p1, self.board.cols - 1);
        let flip = a > b;
        let pair = if flip { tri(a) + b } else { tri(b) + a };
        pair * m.span + self.middle(occ, p1, flip)
    }

    /// The canonical position stored at a folded index, or `None` for a hole.
    fn fold_decode(&self, m: &Mirror, index: u64) -> Option<GravityPosition> {
        if index >= m.size {
            return None;
        }
        let g = &self.board;
        let pair = index / m.span;
        // The largest b with tri(b) ≤ pair; pair < T < 2^31, so exact.
        let b = ((8 * pair + 1).isqrt() - 1) / 2;
        let a = pair - tri(b);
        let mut pieces = [0u64; 2];
        let mut put = |c: u32, d: u64| {
            let d = &g.digits[d as usize];
            pieces[0] |= d.masks[0] << (c * g.height);
            pieces[1] |= d.masks[1] << (c * g.height);
        };
        put(0, a);
        put(g.cols - 1, b);
        let mut x = index % m.span;
        for c in 1..g.cols - 1 {
            put(c, x % g.radix);
            x /= g.radix;
        }
        let (n0, n1) = (pieces[0].count_ones(), pieces[1].count_ones());
        if n0 != n1 && n0 != n1 + 1 {
            return None;
        }
        let p = GravityPosition { pieces };
        g.mover_free(&p).then_some(p)
    }

    /// Folded indices of the children, columns in order. From a canonical
    /// position (all the solver sees) a move changes one digit, so each
    /// child's index is the parent's plus a constant, unless a move on
    /// column 0 makes its digit exceed column W−1's and the child flips.
    #[inline(always)]
    fn fold_children(&self, m: &Mirror, p: &GravityPosition, mut f: impl FnMut(u64)) {
        let g = &self.board;
        let w = g.cols;
        let occ = p.occupied();
        let p1 = p.pieces[1];
        let mover = p.mover();
        let a = self.digit(occ, p1, 0);
        let b = self.digit(occ, p1, w - 1);
        if a > b {
            // A mirrored parent's children may land either way round: encode
            // each one.
            for c in 0..w {
                let h = g.column_height(p, c);
                if h < g.height {
                    let mut q = *p;
                    q.pieces[mover] |= g.cell(c, h);
                    f(self.fold_encode(m, &q));
                }
            }
            return;
        }
        let base = (tri(b) + a) * m.span + self.middle(occ, p1, false);
        for c in 0..w {
            let h = ((occ >> (c * g.height)) & g.col_mask).count_ones();
            if h == g.height {
                continue;
            }
            // The column's digit grows by this much.
            let step = (1u64 << h) << mover;
            f(if c == 0 {
                if a + step <= b {
                    base + step * m.span
                } else {
                    (tri(a + step) + b) * m.span + self.middle(occ, p1, true)
                }
            } else if c == w - 1 {
                base + (tri(b + step) - tri(b)) * m.span
            } else {
                base + step * g.pow[(c - 1) as usize]
            });
        }
    }

    /// The legal positions of a tier in a folded work unit: a pair digit
    /// and the top `unit_cols` middle columns fixed, the other middle
    /// columns filled in increasing index order.
    fn fold_unit(
        &self,
        m: &Mirror,
        tier: u32,
        unit: u64,
        mut f: impl FnMut(u64, &GravityPosition),
    ) {
        let g = &self.board;
        if unit >= m.units || tier > g.cells {
            return;
        }
        let k = g.cells - tier;
        let w = g.cols;
        let top = w - 1 - m.unit_cols;
        let mut pieces = [0u64; 2];
        let mut put = |c: u32, d: u64| {
            let d = &g.digits[d as usize];
            pieces[0] |= d.masks[0] << (c * g.height);
            pieces[1] |= d.masks[1] << (c * g.height);
        };
        let mut x = unit;
        for c in top..w - 1 {
            put(c, x % g.radix);
            x /= g.radix;
        }
        let b = ((8 * x + 1).isqrt() - 1) / 2;
        put(0, x - tri(b));
        put(w - 1, b);
        let have = [pieces[0].count_ones(), pieces[1].count_ones()];
        let want = [k - k / 2, k / 2];
        if have[0] > want[0] || have[1] > want[1] {
            return;
        }
        let need = [want[0] - have[0], want[1] - have[1]];
        if need[0] + need[1] > (top - 1) * g.height {
            return;
        }
        let mover = (k & 1) as usize;
        g.fill(top, 1, unit * m.unit_span, pieces, need, mover, &mut f);
    }

    fn parse_picture(&self, s: &str) -> Result<GravityPosition, String> {
        let (w, h) = (self.width(), self.height());
        let pieces =
            Gravity::parse_cells(s, h, w, "picture", |r, c| self.board.cell(c, h - 1 - r))?;
        let p = GravityPosition { pieces };
        self.board.check(&p, |c| (c + 1).to_string())?;
        Ok(p)
    }
}

impl Game for Connect {
    type Position = GravityPosition;
    type Move = u8;

    fn spec(&self) -> String {
        format!(
            "connect:{}x{}x{}{}",
            self.width(),
            self.height(),
            self.board.line(),
            if self.board.misere() { ":misere" } else { "" }
        )
    }

    fn file_stem(&self) -> String {
        format!(
            "connect-{}x{}x{}{}{}",
            self.width(),
            self.height(),
            self.board.line(),
            if self.board.misere() { "-misere" } else { "" },
            if self.is_folded() { "-folded" } else { "" }
        )
    }

    /// Scheme 1: the plain mixed-radix index; scheme 2: mirror-folded.
    fn index_scheme(&self) -> u16 {
        if self.is_folded() {
            2
        } else {
            1
        }
    }

    fn size(&self) -> u64 {
        match &self.mirror {
            None => self.board.size(),
            Some(m) => m.size,
        }
    }

    #[inline]
    fn encode(&self, p: &GravityPosition) -> u64 {
        match &self.mirror {
            None => self.board.encode(p),
            Some(m) => self.fold_encode(m, p),
        }
    }

    #[inline]
    fn decode(&self, index: u64) -> Option<GravityPosition> {
        match &self.mirror {
            None => self.board.decode(index),
            Some(m) => self.fold_decode(m, index),
        }
    }

    #[inline(always)]
    fn for_each_child_index(&self, p: &GravityPosition, f: impl FnMut(u64)) {
        match &self.mirror {
            None => self.board.for_each_child_index(p, f),
            Some(m) => self.fold_children(m, p, f),
        }
    }

    fn tier_units(&self, tier: u32) -> u64 {
        match &self.mirror {
            None => self.board.tier_units(tier),
            Some(m) => m.units,
        }
    }

    #[inline]
    fn for_each_in_unit(&self, tier: u32, unit: u64, f: impl FnMut(u64, &GravityPosition)) {
        match &self.mirror {
            None => self.board.for_each_in_unit(tier, unit, f),
            Some(m) => self.fold_unit(m, tier, unit, f),
        }
    }

    /// The left-right mirror folded into the index (scheme 2); refused for
    /// a single column, which is its own mirror image.
    fn folded(&self) -> Result<Connect, String> {
        if self.width() < 2 {
            return Err(format!(
                "{} has a single column, which is its own mirror image: there is nothing to fold",
                self.spec()
            ));
        }
        Ok(Connect {
            board: self.board.clone(),
            mirror: Some(Mirror::new(&self.board)),
        })
    }

    fn unfolded(&self) -> Connect {
        Connect {
            board: self.board.clone(),
            mirror: None,
        }
    }

    fn is_folded(&self) -> bool {
        self.mirror.is_some()
    }

    gravity_play!();

    /// Moves (`4453`, `10,3,3`, `-` or empty) or a picture (`..../.o../oxx.`).
    fn parse_position(&self, s: &str) -> Result<GravityPosition, String> {
        let s = s.trim();
        if s.is_empty() || s == "-" {
            return Ok(GravityPosition::EMPTY);
        }
        // A picture has a '/' or a '.', or is all pieces (a full one-row
        // board); anything else is a move list, so `12a` blames the 'a' as
        // a move rather than counting rows of a picture.
        if s.contains(['/', '.']) || s.chars().all(|c| matches!(c, 'x' | 'o' | 'X' | 'O')) {
            self.parse_picture(s)
        } else {
            self.parse_moves(s)
        }
    }

    fn format_position(&self, p: &GravityPosition) -> String {
        let (w, h) = (self.width(), self.height());
        let mut s = String::with_capacity(((w + 1) * h) as usize);
        for r in (0..h).rev() {
            if r + 1 < h {
                s.push('/');
            }
            for c in 0..w {
                s.push(Gravity::cell_char(p, self.board.cell(c, r)));
            }
        }
        s
    }

    fn format_move(&self, m: &u8) -> String {
        (u32::from(*m) + 1).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(spec: &str) -> Connect {
        Connect::from_params(spec).unwrap()
    }

    #[test]
    fn sizes_and_specs() {
        assert_eq!(g("4x4").size(), 923_521);
        assert_eq!(g("5x4").size(), 28_629_151);
        assert_eq!(g("4x4").spec(), "connect:4x4x4");
        assert_eq!(g("4x4").file_stem(), "connect-4x4x4");
        assert_eq!(g("5x4x3:misere").spec(), "connect:5x4x3:misere");
        for spec in ["4x4", "3x3x3", "5x4x3:misere"] {
            let a = g(spec);
            let b = Connect::from_params(a.spec().split_once(':').unwrap().1).unwrap();
            assert_eq!(a, b);
        }
        // 4x4x4: 4 rows + 4 columns + 2 diagonals.
        assert_eq!(g("4x4").board().lines().len(), 10);
        assert_eq!(g("5x4").board().lines().len(), 8 + 5 + 4);
    }

    #[test]
    fn bad_params_are_refused() {
        for p in [
            "",
            "4",
            "4x",
            "axb",
            "4x4x4x4",
            "0x4",
            "4x0",
            "4x4x0",
            "4x4x5",
            "7x6",
            "8x8",
            "1x63x2",
            "1x40",
            "2x31x2",
            "4294967295x4294967295",
            "99999999999x4",
            "4x4:sideways",
            "-1x4",
        ] {
            assert!(Connect::from_params(p).is_err(), "{p}");
        }
        assert!(Connect::from_params("6x5").is_ok());
    }

    #[test]
    fn column_digits_are_one_followed_by_the_pieces_minus_one() {
        let c = g("4x4");
        // Column 1 holds x (bottom) then o: pattern 1·o·x = 0b110, digit 5.
        let p = c.parse_position("11").unwrap();
        assert_eq!(c.encode(&p), 0b110 - 1);
        let p = c.parse_position("2").unwrap();
        // Column 2 holds x: pattern 0b10, digit 1, weight 31.
        assert_eq!(c.encode(&p), 31);
        assert_eq!(c.encode(&GravityPosition::EMPTY), 0);
    }

    #[test]
    fn index_round_trips_and_holes() {
        for spec in ["3x3x3", "4x3x3", "3x4x3", "4x2x2"] {
            let c = g(spec);
            for i in 0..c.size() {
                if let Some(p) = c.decode(i) {
                    assert_eq!(c.encode(&p), i, "{spec}");
                    let (a, b) = (p.pieces[0].count_ones(), p.pieces[1].count_ones());
                    assert!(a == b || a == b + 1);
                    assert!(!c.board.has_line(p.pieces[p.mover()]));
                }
            }
            assert_eq!(c.decode(c.size()), None);
        }
    }

    #[test]
    fn children_agree_with_moves() {
        let c = g("4x4");
        for i in (0..c.size()).step_by(3) {
            let Some(p) = c.decode(i) else { continue };
            if c.primitive(&p).is_some() {
                assert!(c.moves(&p).is_empty());
                continue;
            }
            let mut fast = Vec::new();
            c.for_each_child_index(&p, |x| fast.push(x));
            let slow: Vec<u64> = c.moves(&p).iter().map(|(_, q)| c.encode(q)).collect();
            assert_eq!(fast, slow, "{}", c.format_position(&p));
            assert_eq!(c.move_count(&p), slow.len() as u64);
            for (_, q) in c.moves(&p) {
                assert_eq!(c.tier(&q) + 1, c.tier(&p));
                assert_eq!(c.decode(c.encode(&q)), Some(q));
            }
        }
    }

    #[test]
    fn units_cover_every_legal_index_once() {
        for spec in ["4x4", "3x3x3", "1x3x2", "2x1x1"] {
            let c = g(spec);
            let mut seen = vec![0u8; c.size() as usize];
            for t in 0..c.tier_count() {
                let mut last = None;
                for u in 0..c.tier_units(t) {
                    c.for_each_in_unit(t, u, |i, p| {
                        assert_eq!(c.encode(p), i);
                        assert_eq!(c.tier(p), t);
                        assert!(last < Some(i), "increasing order");
                        last = Some(i);
                        seen[i as usize] += 1;
                    });
                }
            }
            for (i, &n) in seen.iter().enumerate() {
                assert_eq!(
                    n,
                    u8::from(c.decode(i as u64).is_some()),
                    "{spec} index {i}"
                );
            }
        }
    }

    #[test]
    fn notation() {
        let c = g("4x4");
        let p = c.parse_position("2231").unwrap();
        assert_eq!(c.format_position(&p), "..../..../.o../oxx.");
        assert_eq!(c.parse_position("..../..../.o../oxx.").unwrap(), p);
        assert_eq!(c.parse_position("2 2,3 1").unwrap(), p);
        assert_eq!(c.parse_position("-").unwrap(), GravityPosition::EMPTY);
        assert_eq!(c.parse_position("").unwrap(), GravityPosition::EMPTY);
        assert_eq!(c.player_to_move(&p), Some(0));
        assert_eq!(c.format_move(&0), "1");
        for bad in [
            "5",
            "0",
            "11111",
            "a",
            "..../..../..../xx..",
            "..../..../x.../....",
            "..../..../..../...",
            "..../..../..../..x.x",
            "12121212",
            "o.../o.../o.../o...",
            "ox/../",
            "x..,",
            "x.../x.../x.../xooo/",
            "x.../x.../x.../x.oo",
            "..../..../..../xq..",
        ] {
            assert!(c.parse_position(bad).is_err(), "{bad}");
        }
        // Four x in a row with o to move: a lost position for o.
        let p = c.parse_position("1212121").unwrap();
        assert_eq!(c.primitive(&p), Some(Value::Lose));
        assert_eq!(c.moves(&p), vec![]);
        assert_eq!(c.parse_position("x.../xo../xo../xo..").unwrap(), p);
        // Wide boards take separated column numbers.
        let w = g("10x2x2");
        let p = w.parse_position("10,10").unwrap();
        assert_eq!(w.format_position(&p), ".........o/.........x");
    }

    /// Boards for the folded index: odd and even widths, W = 2, and short
    /// columns, where a work unit also fixes middle columns.
    const FOLD_SPECS: [&str; 9] = [
        "3x3x3",
        "4x3",
        "4x4",
        "5x3",
        "2x3x2",
        "5x2x2:misere",
        "6x2x3",
        "8x1x3",
        "3x1x1",
    ];

    /// The mirror image of a position.
    fn mirror(c: &Connect, p: &GravityPosition) -> GravityPosition {
        let (w, h) = (c.width(), c.height());
        let mask = (1u64 << h) - 1;
        let flip = |m: u64| {
            (0..w).fold(0, |acc, col| {
                acc | ((m >> (col * h)) & mask) << ((w - 1 - col) * h)
            })
        };
        GravityPosition {
            pieces: p.pieces.map(flip),
        }
    }

    /// Digits of the outer columns.
    fn outer(c: &Connect, p: &GravityPosition) -> (u64, u64) {
        let (occ, p1) = (p.occupied(), p.pieces[1]);
        (c.digit(occ, p1, 0), c.digit(occ, p1, c.width() - 1))
    }

    #[test]
    fn folded_sizes_specs_and_refusals() {
        assert_eq!(g("4x4").folded().unwrap().size(), 476_656);
        assert_eq!(g("6x4").folded().unwrap().size(), 458_066_416);
        assert_eq!(g("5x5").folded().unwrap().size(), 504_094_752);
        let plain = g("5x4x3:misere");
        let f = plain.folded().unwrap();
        assert_eq!(f.spec(), plain.spec());
        assert_eq!(f.file_stem(), "connect-5x4x3-misere-folded");
        assert_eq!(
            g("4x4").folded().unwrap().file_stem(),
            "connect-4x4x4-folded"
        );
        assert_eq!((plain.index_scheme(), f.index_scheme()), (1, 2));
        assert!(f.is_folded() && !plain.is_folded());
        assert_ne!(f, plain);
        assert_eq!(f.unfolded(), plain);
        assert_eq!(plain.unfolded(), plain);
        assert_eq!(f.folded().unwrap(), f);
        // Work units: T = 6 pair digits on height 1, times 3^4 top columns.
        assert_eq!(g("8x1x3").folded().unwrap().tier_units(0), 6 * 81);
        assert_eq!(g("4x4").folded().unwrap().tier_units(0), 496);
        let e = g("1x4x2").folded().unwrap_err();
        assert!(e.contains("single column"), "{e}");
        // sogo:1's single column is its own image.
        assert!(crate::games::Sogo::new(1, false).unwrap().folded().is_err());
    }

    #[test]
    fn folded_index_round_trips() {
        for spec in FOLD_SPECS {
            let plain = g(spec);
            let f = plain.folded().unwrap();
            assert!(f.size() < plain.size(), "{spec}");
            let mut legal = 0u64;
            for i in 0..f.size() {
                if let Some(p) = f.decode(i) {
                    legal += 1;
                    assert_eq!(f.encode(&p), i, "{spec}");
                    let (a, b) = outer(&f, &p);
                    assert!(a <= b, "{spec}: stored positions are canonical");
                    assert_eq!(plain.decode(plain.encode(&p)), Some(p), "{spec}");
                }
            }
            assert_eq!(f.decode(f.size()), None);
            assert_eq!(f.decode(u64::MAX), None);
            let mut plain_legal = 0u64;
            for i in 0..plain.size() {
                let Some(p) = plain.decode(i) else { continue };
                plain_legal += 1;
                let q = mirror(&f, &p);
                let stored = f.decode(f.encode(&p)).unwrap();
                assert!(stored == p || stored == q, "{spec}");
                let (a, b) = outer(&f, &p);
                if a != b {
                    assert_eq!(f.encode(&p), f.encode(&q), "{spec}");
                }
            }
            // Every legal position or its mirror image is stored, never
            // both unless the outer columns agree.
            assert!(2 * legal >= plain_legal && legal < plain_legal, "{spec}");
        }
    }

    #[test]
    fn folded_units_cover_every_legal_index_once() {
        for spec in FOLD_SPECS {
            crate::game::testing::check_units(&g(spec).folded().unwrap(), true);
        }
    }

    #[test]
    fn folded_children_agree_with_moves() {
        for spec in FOLD_SPECS {
            let plain = g(spec);
            let f = plain.folded().unwrap();
            // Every legal position, canonical or not.
            for i in 0..plain.size() {
                let Some(p) = plain.decode(i) else { continue };
                if f.primitive(&p).is_some() {
                    continue;
                }
                let mut fast = Vec::new();
                f.for_each_child_index(&p, |x| fast.push(x));
                let slow: Vec<u64> = f.moves(&p).iter().map(|(_, q)| f.encode(q)).collect();
                assert_eq!(fast, slow, "{spec}: {}", f.format_position(&p));
                assert_eq!(f.move_count(&p), slow.len() as u64);
                for (_, q) in f.moves(&p) {
                    let stored = f.decode(f.encode(&q)).unwrap();
                    assert!(stored == q || stored == mirror(&f, &q), "{spec}");
                }
            }
        }
    }
}
