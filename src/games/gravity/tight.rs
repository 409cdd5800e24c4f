//! The tight index of a gravity board, plain and floor-folded: Sogo's
//! index schemes 1 and 2, Connect's 3 and 4 (the same index; Connect's
//! numbers follow its retired mixed-radix schemes 1 and 2).
//!
//! # Index scheme "tight" (sogo scheme 1, connect scheme 3)
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
//! Encoding is O(C + k): the height code's rank is one table lookup, the
//! colex rank one binomial lookup per piece of player 1.
//!
//! Every entry has legal piece counts, so the index is as tight as a
//! ranking by heights and colourings can be. Connect 6×4: 159,643,961
//! entries (the mixed-radix index had 887,503,681); 5×5: 171,976,899
//! (992,436,543); 7×4: 4,593,382,831; 6×5: 9,918,556,649. 7×6 would have
//! 7.1·10^13 and stays refused.
//!
//! # Index scheme "tight, floor-folded" (sogo scheme 2, connect scheme 4)
//!
//! `solve --fold` (header flag bit 0) folds the symmetries of the floor
//! (the 8 of a square floor: rotations and reflections of the columns, in
//! `BoardSymmetries::grid`'s order, identity first; levels unchanged, both
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
//! Connect's floor is one row of W columns: its one symmetry besides the
//! identity is the left-right mirror. Palindromic height vectors keep all
//! their colourings: 6×4 folds to 83,168,680 entries (0.521 of plain),
//! 7×4 to 2,393,194,091 (0.521), 6×5 to 5,149,807,912 (0.519). Smaller
//! boards keep more, as their nearly full blocks (few height vectors, many
//! colourings, the full board's a palindrome) weigh more: 4×4 112,861
//! (0.559), 5×4 3,145,591 (0.560), 5×5 95,598,887 (0.556).

use super::{Gravity, GravityPosition, MAX_ENTRIES};
use crate::games::bits::next_combination;
use crate::games::symmetry::BoardSymmetries;
use std::fmt;
use std::sync::Arc;

/// Largest number of height vectors for which the tight index keeps its
/// rank tables ((H+1)^C entries).
const MAX_HEIGHT_TABLE: u64 = 1 << 22;

/// Indices per work unit of the tight index.
pub(super) const TIGHT_CHUNK: u64 = 1 << 16;

/// Tables of the tight index.
#[derive(Clone)]
pub(super) struct Tight {
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
    pub(super) offset: Vec<u64>,
}

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

impl Tight {
    /// The tables of the tight index of `cols` columns of height `height`,
    /// and its size, or why it is too large (past [`MAX_ENTRIES`], or its
    /// table of column heights too large).
    pub(super) fn new(cols: u32, height: u32) -> Result<(Tight, u64), String> {
        let cells = cols * height;
        let base = u64::from(height) + 1;
        let codes = (0..cols).try_fold(1u64, |a, _| a.checked_mul(base));
        let codes = match codes {
            Some(n) if n <= MAX_HEIGHT_TABLE => n,
            _ => {
                // Report the size the index would have.
                let mut ways = vec![0u128; cells as usize + 1];
                ways[0] = 1;
                for _ in 0..cols {
                    let mut next = vec![0u128; ways.len()];
                    for (s, &w) in ways.iter().enumerate() {
                        for h in 0..=height as usize {
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
                if total <= u128::from(MAX_ENTRIES) {
                    return Err(format!(
                        "the index would have {total} entries, but its table of column heights \
                         ({base}^{cols}) is larger than the supported {MAX_HEIGHT_TABLE}"
                    ));
                }
                return Err(Gravity::too_large(total));
            }
        };
        let hpow: Vec<u64> = (0..cols).map(|c| base.pow(c)).collect();
        let mut hocc = vec![Vec::new(); cells as usize + 1];
        let mut hrank = vec![0u32; codes as usize];
        for code in 0..codes {
            let mut k = 0;
            let mut occ = 0u64;
            let mut x = code;
            for c in 0..cols {
                let h = x % base;
                x /= base;
                k += h;
                occ |= ((1u64 << h) - 1) << (c * height);
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
        let colourings: Vec<u64> = (0..=cells).map(|k| binom128(k, k / 2) as u64).collect();
        let mut offset = vec![0u64; cells as usize + 2];
        let mut total: u128 = 0;
        for k in 0..=cells as usize {
            offset[k] = total.min(u128::from(u64::MAX)) as u64;
            total += hocc[k].len() as u128 * u128::from(colourings[k]);
        }
        if total > u128::from(MAX_ENTRIES) {
            return Err(Gravity::too_large(total));
        }
        offset[cells as usize + 1] = total.min(u128::from(u64::MAX)) as u64;
        let tight = Tight {
            hpow,
            hrank,
            hocc,
            binom,
            colourings,
            offset,
        };
        Ok((tight, total as u64))
    }
}

impl Gravity {
    /// Plain tight index of a position.
    #[inline(always)]
    pub(super) fn tight_encode(&self, t: &Tight, p: &GravityPosition) -> u64 {
        let k = p.occupied().count_ones() as usize;
        let (code, s) = self.compress(t, p);
        t.offset[k] + u64::from(t.hrank[code as usize]) * t.colourings[k] + Self::colex(t, s)
    }

    /// The board at a plain tight index below the size (the mover may have
    /// a line).
    #[inline]
    pub(super) fn tight_decode(&self, t: &Tight, index: u64) -> GravityPosition {
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

    /// Plain tight indices of the children, columns in order: each extends
    /// the parent's colouring string by one bit.
    #[inline(always)]
    pub(super) fn tight_children(&self, t: &Tight, p: &GravityPosition, mut f: impl FnMut(u64)) {
        let occ = p.occupied();
        let mover = p.mover();
        let k = occ.count_ones() as usize;
        // A full board has no children.
        let Some(&b) = t.colourings.get(k + 1) else {
            return;
        };
        let (code, s) = self.compress(t, p);
        let first = t.offset[k + 1];
        let ext = Extension::new(t, s, mover);
        let mut at = 0u32;
        for c in 0..self.cols {
            let h = ((occ >> (c * self.height)) & self.col_mask).count_ones();
            at += h;
            if h < self.height {
                let child = code + t.hpow[c as usize];
                f(first + u64::from(t.hrank[child as usize]) * b + ext.colex(t, s, at));
            }
        }
    }

    /// Work units of a tier of the plain tight index.
    pub(super) fn tight_units(&self, t: &Tight, tier: u32) -> u64 {
        let Some(k) = self.cells.checked_sub(tier) else {
            return 0;
        };
        let k = k as usize;
        (t.offset[k + 1] - t.offset[k]).div_ceil(TIGHT_CHUNK)
    }

    /// The legal positions of a tier in a plain work unit, in increasing
    /// index order.
    pub(super) fn tight_plain_unit(
        &self,
        t: &Tight,
        tier: u32,
        unit: u64,
        mut f: impl FnMut(u64, &GravityPosition),
    ) {
        let Some(k) = self.cells.checked_sub(tier) else {
            return;
        };
        let k = k as usize;
        self.tight_unit(t, k, t.offset[k], &t.hocc[k], unit, &mut f);
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
}

/// The colex ranks of a colouring string with one bit inserted, for every
/// place at once: what a move does to the string (the mover's piece enters
/// between the pieces below and above it in column-major order). With the
/// string's set bits `p_1 < … < p_m`, inserting at `at` above the first j
/// of them gives
///
/// ```text
/// colex = Σ_{i≤j} C(p_i, i) + [o moves]·C(at, j+1) + Σ_{i>j} C(p_i + 1, i + [o moves])
/// ```
///
/// Both sums are tabled once per parent, so each child costs O(1) rather
/// than O(m).
struct Extension {
    /// `low[j]`: the first sum, over the first j set bits.
    low: [u64; 33],
    /// `high[j]`: the last sum, over the set bits after the j-th.
    high: [u64; 33],
    /// 1 when o (whose pieces are the set bits) moves.
    mover: usize,
}

impl Extension {
    // i is the rank of a set bit in two tables and the binomial's row.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn new(t: &Tight, s: u64, mover: usize) -> Extension {
        let mut e = Extension {
            low: [0; 33],
            high: [0; 33],
            mover,
        };
        let m = s.count_ones() as usize;
        // The terms of the last sum, by i.
        let mut term = [0u64; 33];
        let mut rest = s;
        for i in 1..=m {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            e.low[i] = e.low[i - 1] + t.binom[i][p];
            term[i] = t.binom[i + mover][p + 1];
        }
        for j in (0..m).rev() {
            e.high[j] = e.high[j + 1] + term[j + 1];
        }
        e
    }

    /// Colex rank of `s` with the mover's bit inserted at `at`.
    #[inline(always)]
    fn colex(&self, t: &Tight, s: u64, at: u32) -> u64 {
        let j = (s & ((1u64 << at) - 1)).count_ones() as usize;
        let new = if self.mover == 1 {
            t.binom[j + 1][at as usize]
        } else {
            0
        };
        self.low[j] + new + self.high[j]
    }
}

/// The tight index with the floor's symmetries folded in (scheme 2, see the
/// module docs): the height vectors fall into orbits under the symmetries
/// of the floor, and each orbit keeps one block of colourings, for its
/// representative.
#[derive(Clone)]
pub(super) struct TightFold {
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
    pub(super) fn new(b: &Gravity) -> Result<TightFold, String> {
        let Some(tight) = &b.tight else {
            return Err("a board made only to be drawn has no index to fold".into());
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
    pub(super) fn size(&self) -> u64 {
        self.offset.last().copied().unwrap_or(0)
    }

    /// Where each block of k pieces starts (and, last, the size).
    pub(super) fn offsets(&self) -> &[u64] {
        &self.offset
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
    pub(super) fn encode(&self, b: &Gravity, p: &GravityPosition) -> u64 {
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
    pub(super) fn decode(&self, b: &Gravity, index: u64) -> Option<GravityPosition> {
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
    pub(super) fn for_each_child_index(
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
        let ext = Extension::new(t, s, mover);
        let mut at = 0u32;
        for c in 0..b.cols {
            let h = ((occ >> (c * b.height)) & b.col_mask).count_ones();
            at += h;
            if h == b.height {
                continue;
            }
            let e = self.slot_of[(code + t.hpow[c as usize]) as usize];
            let g = (e & 7) as usize;
            let colex = if g == 0 {
                ext.colex(t, s, at)
            } else {
                let mut q = *p;
                q.pieces[mover] |= b.cell(c, h);
                Gravity::colex(t, self.mapped_string(b, g, &q))
            };
            f(first + u64::from(e >> 3) * bk + colex);
        }
    }

    /// Work units of a tier: runs of consecutive folded indices.
    pub(super) fn tier_units(&self, b: &Gravity, tier: u32) -> u64 {
        let Some(k) = b.cells.checked_sub(tier) else {
            return 0;
        };
        let k = k as usize;
        (self.offset[k + 1] - self.offset[k]).div_ceil(TIGHT_CHUNK)
    }

    /// The legal positions of a tier in a unit, in increasing index order:
    /// the plain walk over the representatives' height vectors only.
    pub(super) fn for_each_in_unit(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::Sogo;

    fn g(spec: &str) -> Sogo {
        Sogo::from_params(spec).unwrap()
    }

    #[test]
    fn index_round_trips_and_units_cover_each_legal_index_once() {
        for spec in ["1", "2"] {
            let s = g(spec);
            let mut seen = vec![0u8; s.size() as usize];
            for t in 0..s.tier_count() {
                let mut last = None;
                for u in 0..s.tier_units(t) {
                    s.for_each_in_unit(t, u, |i, p| {
                        assert_eq!(s.encode(p), i);
                        assert_eq!(s.tier(p), t);
                        assert!(last < Some(i));
                        last = Some(i);
                        seen[i as usize] += 1;
                    });
                }
            }
            for i in 0..s.size() {
                let d = s.decode(i);
                assert_eq!(seen[i as usize], u8::from(d.is_some()), "{spec} {i}");
                if let Some(p) = d {
                    assert_eq!(s.encode(&p), i);
                }
            }
        }
    }

    #[test]
    fn sogo3_samples_round_trip_and_children_agree_with_moves() {
        let s = g("3");
        let mut checked = 0;
        for i in (0..s.size()).step_by(999_983) {
            let Some(p) = s.decode(i) else { continue };
            assert_eq!(s.encode(&p), i);
            checked += 1;
            if s.primitive(&p).is_some() {
                continue;
            }
            let mut fast = Vec::new();
            s.for_each_child_index(&p, |x| fast.push(x));
            let slow: Vec<u64> = s.moves(&p).iter().map(|(_, q)| s.encode(q)).collect();
            assert_eq!(fast, slow);
            for x in fast {
                assert!(s.decode(x).is_some());
            }
        }
        assert!(checked > 300, "{checked}");
        // A tier's units start where the previous tier ends.
        let t = s.tier_count() - 1 - 13;
        let mut first = None;
        s.for_each_in_unit(t, 0, |i, _| {
            first.get_or_insert(i);
        });
        assert!(first.is_some());
    }

    /// The images of a position under the floor's symmetries, identity first.
    fn images(s: &Sogo, p: &GravityPosition) -> Vec<GravityPosition> {
        let n = s.side();
        let sym = crate::games::symmetry::BoardSymmetries::grid(n, n);
        (0..sym.len())
            .map(|g| {
                let map = |m: u64| {
                    (0..n * n * n)
                        .filter(|&cell| m >> cell & 1 != 0)
                        .fold(0u64, |acc, cell| {
                            acc | 1 << (sym.square(g, cell / n) * n + cell % n)
                        })
                };
                GravityPosition {
                    pieces: p.pieces.map(map),
                }
            })
            .collect()
    }

    /// Whether two positions have the same occupied cells.
    fn same_heights(a: &GravityPosition, b: &GravityPosition) -> bool {
        a.occupied() == b.occupied()
    }

    #[test]
    fn folded_round_trips_units_and_children_on_sogo2() {
        for spec in ["2", "2:misere"] {
            let plain = g(spec);
            let f = plain.folded().unwrap();
            let legal = crate::testing::check_units(&f, true);
            for i in 0..f.size() {
                if let Some(p) = f.decode(i) {
                    assert_eq!(plain.decode(plain.encode(&p)), Some(p));
                }
            }
            assert_eq!(f.decode(f.size()), None);
            assert_eq!(f.decode(u64::MAX), None);
            // Every legal position is stored as one of its images (all of
            // them at one index unless a symmetry fixes the height vector);
            // children agree with the moves.
            let mut plain_legal = 0u64;
            for i in 0..plain.size() {
                let Some(p) = plain.decode(i) else { continue };
                plain_legal += 1;
                let imgs = images(&f, &p);
                for q in &imgs {
                    let stored = f.decode(f.encode(q)).unwrap();
                    assert!(imgs.contains(&stored), "{spec} {}", f.format_position(q));
                }
                if (1..imgs.len()).all(|g| !same_heights(&imgs[0], &imgs[g])) {
                    assert!(imgs.iter().all(|q| f.encode(q) == f.encode(&p)));
                }
                if f.primitive(&p).is_some() {
                    continue;
                }
                let mut fast = Vec::new();
                f.for_each_child_index(&p, |x| fast.push(x));
                let slow: Vec<u64> = f.moves(&p).iter().map(|(_, q)| f.encode(q)).collect();
                assert_eq!(fast, slow, "{spec}: {}", f.format_position(&p));
                assert_eq!(f.move_count(&p), slow.len() as u64);
            }
            assert!(
                8 * legal >= plain_legal && 2 * legal < plain_legal,
                "{spec}"
            );
        }
    }

    #[test]
    fn folded_sogo3_samples_round_trip_and_small_tiers_are_covered() {
        let f = g("3").folded().unwrap();
        let mut checked = 0;
        for i in (0..f.size()).step_by(99_991) {
            let Some(p) = f.decode(i) else { continue };
            assert_eq!(f.encode(&p), i);
            checked += 1;
            for q in images(&f, &p) {
                assert_eq!(
                    f.decode(f.encode(&q)).map(|r| same_heights(&r, &p)),
                    Some(true)
                );
            }
            if f.primitive(&p).is_some() {
                continue;
            }
            let mut fast = Vec::new();
            f.for_each_child_index(&p, |x| fast.push(x));
            let slow: Vec<u64> = f.moves(&p).iter().map(|(_, q)| f.encode(q)).collect();
            assert_eq!(fast, slow, "{}", f.format_position(&p));
            for x in fast {
                assert!(f.decode(x).is_some());
            }
        }
        assert!(checked > 1000, "{checked}");
        // The blocks of 0..=6 pieces, index by index; then the first units
        // of the largest tier.
        let blocks = |t: u32| {
            let mut v = Vec::new();
            for u in 0..f.tier_units(t) {
                f.for_each_in_unit(t, u, |i, p| {
                    assert_eq!(f.encode(p), i);
                    v.push(i);
                });
            }
            v
        };
        let mut next = 0;
        for k in 0..=6 {
            let found = blocks(27 - k);
            let first = found.first().copied().unwrap_or(next);
            let mut want = Vec::new();
            let mut i = next;
            while f.decode(i).is_none_or(|p| f.tier(&p) == 27 - k) {
                if f.decode(i).is_some() {
                    want.push(i);
                }
                i += 1;
            }
            assert!(first >= next);
            assert_eq!(found, want, "{k} pieces");
            next = i;
        }
        let t = 27 - 14;
        let mut last = None;
        for u in 0..3 {
            f.for_each_in_unit(t, u, |i, p| {
                assert!(last < Some(i));
                last = Some(i);
                assert_eq!(f.decode(i).as_ref(), Some(p));
                assert_eq!(f.encode(p), i);
            });
        }
        assert!(last.is_some());
    }
}
