//! What a position's patterns say, kept up to date move by move: each
//! pattern's piece count per player, and per player the squares that
//! would complete one of its open patterns ("fours": an open pattern one
//! square short) or bring one to a square short ("threes": two short).
//!
//! A pattern is *open* for a player while the other has no piece in it.
//! Placing or lifting a piece touches only the patterns through its square
//! (Qubic: 4 or 7 of 76), so the threat search ([`super::threats`]) plays
//! and takes back moves at that cost, and a node's analysis is built once
//! per expansion ([`Board::new`]) and read per child in constant time
//! (a child's immediate wins are its parent's fours less the square just
//! taken).
//!
//! Per square and player, counters say in how many patterns the square is
//! a four (or a three); the bitboards `four` and `three` are the squares
//! whose counter is not zero, so a pattern that stops being a four (a
//! piece of the other player lands in it) clears its square only when no
//! other pattern still makes it one.

use super::{andnot, bit, for_each, is_zero, or, Bits};

/// The winning patterns, indexed for the board: each pattern's squares and
/// size, and the patterns through each square.
pub(super) struct Lines<const W: usize> {
    /// The winning patterns as bitboards.
    pub patterns: Vec<Bits<W>>,
    /// Squares per pattern.
    pub size: Vec<u16>,
    /// `through[through_at[s]..through_at[s + 1]]`: the patterns through
    /// square `s` (indices into `patterns`).
    through_at: Vec<u32>,
    through: Vec<u32>,
    /// Every square.
    pub all: Bits<W>,
}

impl<const W: usize> Lines<W> {
    pub fn new(patterns: Vec<Bits<W>>, squares: usize) -> Lines<W> {
        let size = patterns
            .iter()
            .map(|p| p.iter().map(|w| w.count_ones()).sum::<u32>() as u16)
            .collect();
        let mut through_at = vec![0u32];
        let mut through = Vec::new();
        for s in 0..squares {
            for (i, p) in patterns.iter().enumerate() {
                if p[s / 64] >> (s % 64) & 1 != 0 {
                    through.push(i as u32);
                }
            }
            through_at.push(through.len() as u32);
        }
        let mut all = [0u64; W];
        for s in 0..squares {
            all = or(&all, &bit(s));
        }
        Lines {
            patterns,
            size,
            through_at,
            through,
            all,
        }
    }

    /// The patterns through square `s`.
    #[inline(always)]
    pub fn through(&self, s: usize) -> &[u32] {
        &self.through[self.through_at[s] as usize..self.through_at[s + 1] as usize]
    }
}

/// Per square, in how many patterns it is a four and a three, per player.
#[derive(Clone, Copy, Default)]
struct Counters {
    four: [u32; 2],
    three: [u32; 2],
}

/// The vectors of a [`Board`], kept per thread between boards: an
/// expansion builds one or two, and allocating (and freeing) them each
/// time cost more than filling them.
#[derive(Default)]
struct Buffers {
    count: Vec<[u16; 2]>,
    per_square: Vec<Counters>,
}

thread_local! {
    static POOL: std::cell::RefCell<Vec<Buffers>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A position's patterns: counts, fours and threes, updated by
/// [`Board::place`] and [`Board::lift`].
pub(super) struct Board<const W: usize> {
    /// Pieces of each player in each pattern.
    pub count: Vec<[u16; 2]>,
    per_square: Vec<Counters>,
    /// Each player's pieces.
    pub stones: [Bits<W>; 2],
    /// Per player, the empty squares that complete one of its open
    /// patterns.
    pub four: [Bits<W>; 2],
    /// Per player, the empty squares that bring one of its open patterns
    /// to a four.
    pub three: [Bits<W>; 2],
}

impl<const W: usize> Board<W> {
    /// The board of a position (no pattern complete for either player is
    /// assumed: fours and threes are of open, incomplete patterns), with the per-square counters
    /// [`Board::place`] and [`Board::lift`] keep.
    pub fn new(lines: &Lines<W>, stones: [Bits<W>; 2]) -> Board<W> {
        let squares = lines.through_at.len() - 1;
        let mut buffers = POOL
            .try_with(|p| p.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        buffers.count.clear();
        buffers.count.resize(lines.patterns.len(), [0; 2]);
        buffers.per_square.clear();
        buffers.per_square.resize(squares, Counters::default());
        let mut b = Board {
            count: buffers.count,
            per_square: buffers.per_square,
            stones,
            four: [[0; W]; 2],
            three: [[0; W]; 2],
        };
        for (c, set) in stones.iter().enumerate() {
            for_each(set, |s| {
                for &i in lines.through(s) {
                    b.count[i as usize][c] += 1;
                }
            });
        }
        let empty = b.empty(lines);
        for i in 0..lines.patterns.len() {
            let e = and(&lines.patterns[i], &empty);
            b.mark(lines, i, e, true);
        }
        b
    }

    /// The per-square counters of a [`Board::snapshot`], from the counts,
    /// when a [`Board::place`] first needs them.
    #[cold]
    fn build_counters(&mut self, lines: &Lines<W>) {
        let squares = lines.through_at.len() - 1;
        self.per_square.clear();
        self.per_square.resize(squares, Counters::default());
        let empty = self.empty(lines);
        for i in 0..lines.patterns.len() {
            let e = and(&lines.patterns[i], &empty);
            // Sets bits the snapshot set already, and counts them.
            self.mark(lines, i, e, true);
        }
    }

    /// The board of a position for reading: counts, fours and threes,
    /// without the per-square counters [`Board::place`] and [`Board::lift`]
    /// keep (a first [`Board::place`] builds them). An expansion without
    /// threat search needs no more, and on Connect-Four's boards the
    /// counters were a fifth of a node's cost.
    pub fn snapshot(lines: &Lines<W>, stones: [Bits<W>; 2]) -> Board<W> {
        let mut buffers = POOL
            .try_with(|p| p.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        buffers.count.clear();
        buffers.count.resize(lines.patterns.len(), [0; 2]);
        buffers.per_square.clear();
        let mut b = Board {
            count: buffers.count,
            per_square: buffers.per_square,
            stones,
            four: [[0; W]; 2],
            three: [[0; W]; 2],
        };
        for (c, set) in stones.iter().enumerate() {
            for_each(set, |s| {
                for &i in lines.through(s) {
                    b.count[i as usize][c] += 1;
                }
            });
        }
        let empty = b.empty(lines);
        for (i, n) in b.count.iter().enumerate() {
            let short = [lines.size[i] - n[0], lines.size[i] - n[1]];
            for c in 0..2 {
                if n[1 - c] != 0 {
                    continue;
                }
                let e = and(&lines.patterns[i], &empty);
                if short[c] == 1 {
                    b.four[c] = or(&b.four[c], &e);
                } else if short[c] == 2 {
                    b.three[c] = or(&b.three[c], &e);
                }
            }
        }
        b
    }

    /// The empty squares.
    #[inline(always)]
    pub fn empty(&self, lines: &Lines<W>) -> Bits<W> {
        andnot(&lines.all, &or(&self.stones[0], &self.stones[1]))
    }

    /// Adds (or removes) pattern `i`'s contribution to the fours and
    /// threes, its empty squares being `empty`.
    #[inline(always)]
    fn mark(&mut self, lines: &Lines<W>, i: usize, empty: Bits<W>, add: bool) {
        let size = lines.size[i];
        let n = self.count[i];
        for c in 0..2 {
            if n[1 - c] != 0 {
                continue;
            }
            let short = size - n[c];
            if short != 1 && short != 2 {
                continue;
            }
            let four = short == 1;
            for_each(&empty, |s| {
                let counter = if four {
                    &mut self.per_square[s].four[c]
                } else {
                    &mut self.per_square[s].three[c]
                };
                let set = if four {
                    &mut self.four[c]
                } else {
                    &mut self.three[c]
                };
                if add {
                    if *counter == 0 {
                        set[s / 64] |= 1 << (s % 64);
                    }
                    *counter += 1;
                } else {
                    *counter -= 1;
                    if *counter == 0 {
                        set[s / 64] &= !(1 << (s % 64));
                    }
                }
            });
        }
    }

    /// Counts square `s` once more (`add`) or once less as a four
    /// (`four`) or a three of player `c`'s.
    #[inline(always)]
    fn touch(&mut self, c: usize, s: usize, four: bool, add: bool) {
        let counters = &mut self.per_square[s];
        let (counter, set) = if four {
            (&mut counters.four[c], &mut self.four[c])
        } else {
            (&mut counters.three[c], &mut self.three[c])
        };
        if add {
            if *counter == 0 {
                set[s / 64] |= 1 << (s % 64);
            }
            *counter += 1;
        } else {
            *counter -= 1;
            if *counter == 0 {
                set[s / 64] &= !(1 << (s % 64));
            }
        }
    }

    /// Counts every square of `squares` once more or once less.
    #[inline(always)]
    fn touch_all(&mut self, c: usize, squares: &Bits<W>, four: bool, add: bool) {
        for_each(squares, |s| self.touch(c, s, four, add));
    }

    /// The change to pattern `i`'s fours and threes when player `c` takes
    /// (`add`) or gives back one of its squares, `with` its empty squares
    /// counting that square and `without` not: the pattern stays what it
    /// was for `c` but one square nearer (or farther), and closes (or
    /// reopens) for the other player. Written out case by case rather than
    /// as [`Board::mark`] before and after: the threat search places and
    /// lifts pieces at every step, and this was most of its cost.
    #[inline(always)]
    fn shift(
        &mut self,
        lines: &Lines<W>,
        i: usize,
        c: usize,
        with: Bits<W>,
        without: Bits<W>,
        add: bool,
    ) {
        let size = lines.size[i];
        // The counts with the square empty.
        let n = self.count[i];
        let o = 1 - c;
        if n[o] == 0 {
            // Open for `c`: short by `k` with the square empty, `k − 1`
            // with it taken.
            match size - n[c] {
                1 => self.touch(c, first(&with), true, !add),
                2 => {
                    self.touch_all(c, &with, false, !add);
                    self.touch_all(c, &without, true, add);
                }
                3 => self.touch_all(c, &without, false, add),
                _ => {}
            }
        }
        if n[c] == 0 {
            // Open for the other player only while the square is empty.
            match size - n[o] {
                1 => self.touch_all(o, &with, true, !add),
                2 => self.touch_all(o, &with, false, !add),
                _ => {}
            }
        }
    }

    /// Player `c` takes the empty square `s`.
    #[inline]
    pub fn place(&mut self, lines: &Lines<W>, c: usize, s: usize) {
        if self.per_square.is_empty() {
            self.build_counters(lines);
        }
        let empty = self.empty(lines);
        let sb = bit::<W>(s);
        for &i in lines.through(s) {
            let i = i as usize;
            let with = and(&lines.patterns[i], &empty);
            self.shift(lines, i, c, with, andnot(&with, &sb), true);
            self.count[i][c] += 1;
        }
        self.stones[c] = or(&self.stones[c], &sb);
    }

    /// Takes back [`Board::place`] of `c` on `s`.
    #[inline]
    pub fn lift(&mut self, lines: &Lines<W>, c: usize, s: usize) {
        debug_assert!(!self.per_square.is_empty(), "lifts follow places");
        let sb = bit::<W>(s);
        self.stones[c] = andnot(&self.stones[c], &sb);
        let empty = self.empty(lines);
        for &i in lines.through(s) {
            let i = i as usize;
            self.count[i][c] -= 1;
            let with = and(&lines.patterns[i], &empty);
            self.shift(lines, i, c, with, andnot(&with, &sb), false);
        }
    }

    /// Whether player `c` owns a whole pattern through `s`.
    #[cfg(test)]
    pub fn owns_through(&self, lines: &Lines<W>, c: usize, s: usize) -> bool {
        lines
            .through(s)
            .iter()
            .any(|&i| self.count[i as usize][c] == lines.size[i as usize])
    }
}

impl<const W: usize> Drop for Board<W> {
    fn drop(&mut self) {
        let buffers = Buffers {
            count: std::mem::take(&mut self.count),
            per_square: std::mem::take(&mut self.per_square),
        };
        // At a thread's exit the pool may be gone: the vectors are freed.
        let _ = POOL.try_with(|p| p.borrow_mut().push(buffers));
    }
}

#[inline(always)]
fn and<const W: usize>(a: &Bits<W>, b: &Bits<W>) -> Bits<W> {
    std::array::from_fn(|i| a[i] & b[i])
}

/// Whether a set holds at least two squares.
#[inline(always)]
pub(super) fn two_or_more<const W: usize>(b: &Bits<W>) -> bool {
    let mut seen = false;
    for &w in b {
        if w & w.wrapping_sub(1) != 0 || (seen && w != 0) {
            return true;
        }
        seen |= w != 0;
    }
    false
}

/// The one square of a non-empty set (its lowest).
#[inline(always)]
pub(super) fn first<const W: usize>(b: &Bits<W>) -> usize {
    for (i, &w) in b.iter().enumerate() {
        if w != 0 {
            return i * 64 + w.trailing_zeros() as usize;
        }
    }
    debug_assert!(is_zero(b));
    usize::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scan of every pattern: the fours and threes by definition.
    fn scan<const W: usize>(lines: &Lines<W>, stones: &[Bits<W>; 2]) -> [[Bits<W>; 2]; 2] {
        let empty = andnot(&lines.all, &or(&stones[0], &stones[1]));
        let mut out = [[[0u64; W]; 2]; 2];
        for p in &lines.patterns {
            for c in 0..2 {
                if !is_zero(&and(p, &stones[1 - c])) {
                    continue;
                }
                let e = and(p, &empty);
                let n: u32 = e.iter().map(|w| w.count_ones()).sum();
                if n == 1 {
                    out[0][c] = or(&out[0][c], &e);
                } else if n == 2 {
                    out[1][c] = or(&out[1][c], &e);
                }
            }
        }
        out
    }

    #[test]
    fn places_and_lifts_agree_with_a_scan() {
        // 4x4 board, rows, columns and both diagonals of four, plus a
        // pattern of one square and one of two (sizes the scan must handle).
        let mut pats: Vec<Bits<1>> = Vec::new();
        for r in 0..4 {
            pats.push([0xf << (4 * r)]);
            pats.push([0x1111 << r]);
        }
        pats.push([1 | 1 << 5 | 1 << 10 | 1 << 15]);
        pats.push([1 << 3 | 1 << 6 | 1 << 9 | 1 << 12]);
        pats.push([1 << 7]);
        pats.push([1 << 13 | 1 << 14]);
        let lines = Lines::new(pats, 16);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            let mut b = Board::new(&lines, [[0], [0]]);
            let mut played = Vec::new();
            for ply in 0..16 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let empty = b.empty(&lines);
                let n = empty[0].count_ones() as u64;
                if n == 0 {
                    break;
                }
                let mut k = rng % n;
                let mut s = 0;
                for_each(&empty, |q| {
                    if k == 0 {
                        s = q;
                    }
                    k = k.wrapping_sub(1);
                });
                let c = ply % 2;
                b.place(&lines, c, s);
                played.push((c, s));
                let fresh = Board::new(&lines, b.stones);
                assert_eq!(fresh.count, b.count);
                let snap = Board::snapshot(&lines, b.stones);
                assert_eq!(snap.count, b.count);
                let want = scan(&lines, &b.stones);
                assert_eq!([b.four, b.three], want);
                assert_eq!([fresh.four, fresh.three], want);
                assert_eq!([snap.four, snap.three], want);
                if b.owns_through(&lines, c, s) {
                    break;
                }
            }
            // Taking every move back restores the empty board.
            let empty = Board::new(&lines, [[0], [0]]);
            while let Some((c, s)) = played.pop() {
                b.lift(&lines, c, s);
                let want = scan(&lines, &b.stones);
                assert_eq!([b.four, b.three], want);
            }
            assert_eq!(b.count, empty.count);
            assert_eq!([b.four, b.three], [empty.four, empty.three]);
        }
    }

    #[test]
    fn set_sizes() {
        assert!(!two_or_more(&[0u64, 0]));
        assert!(!two_or_more(&[0u64, 8]));
        assert!(two_or_more(&[1u64, 8]));
        assert!(two_or_more(&[0u64, 9]));
        assert_eq!(first(&[0u64, 8]), 67);
    }
}
