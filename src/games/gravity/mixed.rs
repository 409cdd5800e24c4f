//! The mixed-radix index of a gravity board (Connect's), plain and
//! mirror-folded.
//!
//! # Index scheme "mixed radix" (connect, scheme 1)
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
//! # Index scheme "mirror-folded" (connect, scheme 2)
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

use super::{Gravity, GravityPosition, MAX_ENTRIES};

/// What a mixed-radix digit (one column's state) holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Digit {
    /// Player 0's and player 1's cells in the column (levels from bit 0).
    masks: [u64; 2],
    /// Their piece counts.
    counts: [u32; 2],
}

impl Gravity {
    pub(super) fn init_mixed(&mut self) -> Result<(), String> {
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

    /// Plain mixed-radix index of a position.
    #[inline(always)]
    pub(super) fn mixed_encode(&self, p: &GravityPosition) -> u64 {
        let occ = p.occupied();
        let mut index = 0u64;
        for c in (0..self.cols).rev() {
            let s = c * self.height;
            let d = ((occ >> s) & self.col_mask) + ((p.pieces[1] >> s) & self.col_mask);
            index = index * self.radix + d;
        }
        index
    }

    /// The board at a plain mixed-radix index with valid piece counts, or
    /// `None`; `index` is below the size.
    #[inline]
    pub(super) fn mixed_decode(&self, index: u64) -> Option<GravityPosition> {
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
        Some(GravityPosition { pieces })
    }

    /// Plain mixed-radix indices of the children, columns in order: a
    /// move adds one constant to the parent's index.
    #[inline(always)]
    pub(super) fn mixed_children(&self, p: &GravityPosition, mut f: impl FnMut(u64)) {
        let occ = p.occupied();
        let mover = p.mover() as u64;
        let base = self.mixed_encode(p);
        for c in 0..self.cols {
            let h = ((occ >> (c * self.height)) & self.col_mask).count_ones();
            if h < self.height {
                f(base + ((1u64 << h) << mover) * self.pow[c as usize]);
            }
        }
    }

    /// Work units of every tier of the plain index.
    pub(super) fn mixed_units(&self) -> u64 {
        self.radix.pow(self.prefix_cols)
    }

    /// The legal positions of a tier in a plain work unit, in increasing
    /// index order.
    pub(super) fn mixed_unit(
        &self,
        tier: u32,
        unit: u64,
        mut f: impl FnMut(u64, &GravityPosition),
    ) {
        let k = self.cells - tier;
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
}

/// Constants of the mirror-folded index (see the module docs); they follow
/// from the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Mirror {
    /// `R^(W−2)`: entries per value of the pair digit.
    span: u64,
    /// `T · R^(W−2)`.
    pub(super) size: u64,
    /// Top middle columns a work unit fixes besides the pair digit.
    unit_cols: u32,
    /// Entries per work unit: `R^(W−2−unit_cols)`.
    unit_span: u64,
    /// Work units per tier: `T · R^unit_cols`.
    pub(super) units: u64,
}

/// `x(x+1)/2`: the pair digits whose larger digit is below `x`.
#[inline(always)]
fn tri(x: u64) -> u64 {
    x * (x + 1) / 2
}

impl Mirror {
    /// The folded index of a mixed-radix board of `w ≥ 2` columns.
    pub(super) fn new(board: &Gravity) -> Mirror {
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

impl Gravity {
    /// player 1's cells: `(2^h − 1) + b`.
    #[inline(always)]
    fn digit(&self, occ: u64, p1: u64, c: u32) -> u64 {
        let s = c * self.height;
        ((occ >> s) & self.col_mask) + ((p1 >> s) & self.col_mask)
    }

    /// The middle columns' part of the folded index, `Σ d_c · R^(c−1)` for
    /// c in 1..W−1, or of the mirror image's (`d_{W−1−c}` in place of `d_c`).
    #[inline(always)]
    fn middle(&self, occ: u64, p1: u64, flip: bool) -> u64 {
        let w = self.cols;
        let mut mid = 0u64;
        if flip {
            for c in 1..w - 1 {
                mid = mid * self.radix + self.digit(occ, p1, c);
            }
        } else {
            for c in (1..w - 1).rev() {
                mid = mid * self.radix + self.digit(occ, p1, c);
            }
        }
        mid
    }

    /// Folded index of any position: its canonical orientation's.
    #[inline]
    pub(super) fn mirror_encode(&self, m: &Mirror, p: &GravityPosition) -> u64 {
        let (occ, p1) = (p.occupied(), p.pieces[1]);
        let a = self.digit(occ, p1, 0);
        let b = self.digit(occ, p1, self.cols - 1);
        let flip = a > b;
        let pair = if flip { tri(a) + b } else { tri(b) + a };
        pair * m.span + self.middle(occ, p1, flip)
    }

    /// The canonical position stored at a folded index, or `None` for a hole.
    pub(super) fn mirror_decode(&self, m: &Mirror, index: u64) -> Option<GravityPosition> {
        if index >= m.size {
            return None;
        }
        let g = self;
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
    pub(super) fn mirror_children(&self, m: &Mirror, p: &GravityPosition, mut f: impl FnMut(u64)) {
        let g = self;
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
                    f(self.mirror_encode(m, &q));
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
    pub(super) fn mirror_unit(
        &self,
        m: &Mirror,
        tier: u32,
        unit: u64,
        mut f: impl FnMut(u64, &GravityPosition),
    ) {
        let g = self;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::Connect;

    fn g(spec: &str) -> Connect {
        Connect::from_params(spec).unwrap()
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
                    assert!(!c.board().has_line(p.pieces[p.mover()]));
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
        (
            c.board().digit(occ, p1, 0),
            c.board().digit(occ, p1, c.width() - 1),
        )
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
