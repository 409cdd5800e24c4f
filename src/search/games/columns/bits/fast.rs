//! The [`Bits`] with constants: the line length and the number of
//! directions ([`Shifted`]), or every shift and mask of a Connect-Four size
//! ([`Fixed`]); and the choice among them ([`Layout::with_bits`]).

use super::{line_free_k, line_wins_k, vertical_wins_k, Bits, Layout, Lines, WithBits};

impl Layout {
    /// Runs `f` with the fastest [`Bits`] this board has: [`Fixed`] for
    /// Connect-Four's sizes compiled with constants (the tables' and the
    /// usual ones), [`Shifted`] for other boards of four in a row along
    /// three directions besides the vertical, else the layout itself.
    pub(crate) fn with_bits<F: WithBits>(&self, f: F) -> F::Out {
        if let Some(dims) = self.connect_four() {
            macro_rules! fixed {
                ($(($w:literal, $h:literal)),*) => {
                    match dims {
                        $(($w, $h) => return f.with(&Fixed::<$w, $h>),)*
                        _ => {}
                    }
                };
            }
            fixed!(
                (4, 4),
                (5, 4),
                (6, 4),
                (7, 4),
                (8, 4),
                (4, 5),
                (5, 5),
                (6, 5),
                (7, 5),
                (5, 6),
                (6, 6),
                (7, 6),
                (8, 6),
                (9, 6),
                (6, 7),
                (7, 7),
                (8, 7)
            );
        }
        match &self.lines {
            Lines::Shifts {
                k: 4,
                vertical,
                dirs,
            } if dirs.len() == 3 => f.with(&Shifted::<4, 3> {
                layout: self,
                board: self.board,
                vertical: *vertical,
                dirs: [dirs[0], dirs[1], dirs[2]],
            }),
            _ => f.with(self),
        }
    }
}

/// A board whose lines are `K` cells along `D` directions besides the
/// vertical, with `K` and `D` constants (the layout's own code loops over
/// a line length it reads at every call).
pub(crate) struct Shifted<'a, const K: usize, const D: usize> {
    layout: &'a Layout,
    /// The layout's board, kept here: one load fewer per call.
    board: u64,
    vertical: bool,
    dirs: [u32; D],
}

impl<const K: usize, const D: usize> Bits for Shifted<'_, K, D> {
    #[inline(always)]
    fn possible(&self, mask: u64) -> u64 {
        self.layout.possible(mask)
    }

    #[inline(always)]
    fn winning(&self, p: u64, mask: u64) -> u64 {
        let mut r = if self.vertical {
            vertical_wins_k::<K>(p)
        } else {
            0
        };
        for &s in &self.dirs {
            r |= line_wins_k::<K>(p, s);
        }
        r & self.board & !mask
    }

    #[inline(always)]
    fn open(&self, theirs: u64) -> bool {
        let free = self.board & !theirs;
        let mut any = if self.vertical {
            line_free_k::<K>(free, 1)
        } else {
            0
        };
        for &s in &self.dirs {
            any |= line_free_k::<K>(free, s);
        }
        any != 0
    }

    #[inline(always)]
    fn key(&self, cur: u64, mask: u64) -> (u64, u8) {
        self.layout.sym_key_image(cur, mask)
    }

    #[inline(always)]
    fn column_image(&self, c: u8, image: u8) -> u8 {
        self.layout.column_image(c, image)
    }

    #[inline(always)]
    fn column_preimage(&self, c: u8, image: u8) -> u8 {
        self.layout.column_preimage(c, image)
    }
}

/// Connect-Four on `W` columns of `H` cells, four in a row, the mirror its
/// one symmetry, every shift and mask a constant: where the board's layout
/// is exactly that ([`Layout::connect_four`]). Callgrind on a Begin-Hard
/// position of Pons' sets: the runtime shifts' loops were 30% of the
/// instructions, the mirror through the column table 6%.
pub(crate) struct Fixed<const W: u32, const H: u32>;

impl<const W: u32, const H: u32> Fixed<W, H> {
    /// A column's bits with its sentinel.
    const S: u32 = H + 1;
    const BOTTOM: u64 = {
        let mut b = 0u64;
        let mut c = 0;
        while c < W {
            b |= 1 << (c * Self::S);
            c += 1;
        }
        b
    };
    const BOARD: u64 = Self::BOTTOM * ((1u64 << H) - 1);
}

impl<const W: u32, const H: u32> Bits for Fixed<W, H> {
    #[inline(always)]
    fn possible(&self, mask: u64) -> u64 {
        mask.wrapping_add(Self::BOTTOM) & Self::BOARD
    }

    #[inline(always)]
    fn winning(&self, p: u64, mask: u64) -> u64 {
        // Pons' formula, with fewer operations than `line_wins_k` once
        // the strides are constants (with strides read at run time the
        // loop's form measured fewer instructions): per direction, the
        // cell after three in a row, before them, or in the gap of 2+1
        // and 1+2.
        let mut r = vertical_wins_k::<4>(p);
        for s in [H, H + 1, H + 2] {
            let back = (p << s) & (p << (2 * s));
            let ahead = (p >> s) & (p >> (2 * s));
            r |= back & ((p << (3 * s)) | (p >> s));
            r |= ahead & ((p << s) | (p >> (3 * s)));
        }
        r & Self::BOARD & !mask
    }

    #[inline(always)]
    fn open(&self, theirs: u64) -> bool {
        let free = Self::BOARD & !theirs;
        let mut any = 0;
        for s in [1, H, H + 1, H + 2] {
            let two = free & (free >> s);
            any |= two & (two >> (2 * s));
        }
        any != 0
    }

    #[inline(always)]
    fn key(&self, cur: u64, mask: u64) -> (u64, u8) {
        let k = cur.wrapping_add(mask).wrapping_add(Self::BOTTOM);
        let seg = (1u64 << Self::S) - 1;
        let mut m = 0;
        for c in 0..W {
            m |= ((k >> (c * Self::S)) & seg) << ((W - 1 - c) * Self::S);
        }
        if m < k {
            (m, 1)
        } else {
            (k, 0)
        }
    }

    #[inline(always)]
    fn column_image(&self, c: u8, image: u8) -> u8 {
        match image {
            0 => c,
            _ => W as u8 - 1 - c,
        }
    }

    #[inline(always)]
    fn column_preimage(&self, c: u8, image: u8) -> u8 {
        self.column_image(c, image)
    }
}

#[cfg(test)]
mod tests {
    use super::super::play;
    use super::*;
    use crate::search::games::columns::Columns;
    use crate::search::games::AnySearch;

    fn columns(spec: &str) -> Columns {
        match AnySearch::parse(spec).unwrap() {
            AnySearch::ConnectColumns(g) | AnySearch::SogoColumns(g) => g,
            _ => panic!("{spec}: not a column board"),
        }
    }

    /// `b` answers as the board's own tables do, on positions of random
    /// play (lines and all), for every question the search asks.
    fn same_as_layout<B: Bits>(g: &Layout, b: &B, seed: u64) {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut positions = 0;
        for _ in 0..300 {
            let (mut cur, mut mask) = (0u64, 0u64);
            loop {
                let possible = g.possible(mask);
                assert_eq!(b.possible(mask), possible);
                for (a, o) in [(cur, cur ^ mask), (cur ^ mask, cur)] {
                    assert_eq!(b.winning(a, mask), g.winning(a, mask));
                    assert_eq!(b.open(o), g.open_line(o));
                }
                let (key, image) = b.key(cur, mask);
                assert_eq!((key, image), g.sym_key_image(cur, mask));
                for c in 0..g.columns() as u8 {
                    assert_eq!(b.column_image(c, image), g.column_image(c, image));
                    assert_eq!(b.column_preimage(c, image), g.column_preimage(c, image));
                }
                positions += 1;
                if possible == 0 {
                    break;
                }
                let cols: Vec<u64> = (0..g.columns())
                    .map(|c| possible & g.col_mask(c))
                    .filter(|&m| m != 0)
                    .collect();
                let m = cols[(next() % cols.len() as u64) as usize];
                (cur, mask) = play(cur, mask, m);
            }
        }
        assert!(positions > 300 * g.cells() as usize / 2);
    }

    fn fixed_as_layout<const W: u32, const H: u32>(spec: &str, seed: u64) {
        let c = columns(spec);
        let g = c.layout();
        assert_eq!(g.connect_four(), Some((W, H)), "{spec}");
        same_as_layout(g, &Fixed::<W, H>, seed);
    }

    #[test]
    fn fixed_boards_answer_as_the_layout() {
        fixed_as_layout::<7, 6>("connect:7x6", 1);
        fixed_as_layout::<4, 4>("connect:4x4", 2);
        fixed_as_layout::<6, 5>("connect:6x5", 3);
        fixed_as_layout::<8, 7>("connect:8x7", 4);
        fixed_as_layout::<5, 4>("connect:5x4x4", 5);
    }

    /// What `with_bits` picks for a board, tried against the layout.
    struct Check<'a>(&'a Layout, u64);

    impl WithBits for Check<'_> {
        type Out = &'static str;
        fn with<B: Bits>(self, b: &B) -> &'static str {
            same_as_layout(self.0, b, self.1);
            std::any::type_name::<B>()
        }
    }

    #[test]
    fn each_board_gets_bits_that_answer_as_the_layout() {
        for (spec, kind) in [
            ("connect:7x6", "Fixed<7, 6>"),
            ("connect:4x6", "Shifted<4, 3>"),
            ("connect:10x5", "Shifted<4, 3>"),
            ("connect:5x4x3", "Layout"),
            ("connect:6x5x5", "Layout"),
            ("sogo:3", "Layout"),
        ] {
            let c = columns(spec);
            let g = c.layout();
            let name = g.with_bits(Check(g, spec.len() as u64));
            // (Lifetimes as the compiler prints them, or not.)
            assert!(name.replace("'_, ", "").ends_with(kind), "{spec}: {name}");
        }
    }

    #[test]
    fn only_connect_four_boards_are_fixed() {
        assert_eq!(columns("connect:7x6").layout().connect_four(), Some((7, 6)));
        for spec in ["connect:5x4x3", "connect:4x3x2", "sogo:3"] {
            assert_eq!(columns(spec).layout().connect_four(), None, "{spec}");
        }
    }
}
