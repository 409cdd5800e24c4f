//! Pattern games: two players alternately occupy empty squares; whoever
//! first owns every square of one winning pattern wins; a full board with no
//! owned pattern is a tie. Player 0 (`x`) moves first. Tic-tac-toe, the
//! m,n,k-games ([`crate::games::Mnk`]), Qango-like boards and patterns on a
//! cube are all of this class.
//!
//! This file owns the machinery every pattern game shares — [`PatternBoard`]:
//! the winning patterns, the index, the tier walk, the child-index
//! generator, the position notation — and the general game read from a
//! pattern file, [`PatternGame`] (spec `pattern:PATH`).
//!
//! # Rules as the solver sees them
//!
//! A position is the pair of square sets (X, O). The player to move is `x`
//! when #X = #O and `o` when #X = #O + 1. If the player who just moved owns
//! a pattern the game is over: a loss in 0 for the player to move. Otherwise
//! a full board is a tie in 0. A board where the player *to move* owns a
//! pattern (both players owning one included) cannot arise — the game ended
//! the move that pattern was completed — and is not a position: `decode`
//! returns `None`, its cell stays empty, and the notation refuses it.
//!
//! # Index (scheme 1)
//!
//! Tight and combinatorial, laid out tier by tier. With n squares and k
//! pieces on the board, x = ⌈k/2⌉ of them are `x`'s. Writing S = X ∪ O:
//!
//! ```text
//! index = offset(k) + rank(S) · C(k, x) + rank(X within S)
//! offset(k) = Σ_{j<k} C(n, j) · C(j, ⌈j/2⌉)          size = offset(n + 1)
//! ```
//!
//! `rank` is the colexicographic rank of a set in the combinatorial number
//! system: for elements s₀ < s₁ < … of a set, rank = Σᵢ C(sᵢ, i + 1). For
//! S the elements are square numbers; for "X within S" they are the
//! positions (0-based, in square order) of X's squares among S's. Colex
//! order is the numeric order of bit masks, so walking a tier's index range
//! is Gosper's next-combination step on S and a masked version of it on X.
//! Sizes: 6,046 entries for 9 squares, 10,165,779 for 16, 741,365,049 for 20
//! (against 3ⁿ = 19,683, 43,046,721 and 3,486,784,401).
//!
//! Tier t holds the positions with n − t empty squares (k = n − t pieces):
//! every move fills a square, so it leads to the tier below. The tier is one
//! contiguous index range, cut into work units of `UNIT` indices.
//!
//! A child's index costs O(1) after an O(n) pass over the parent: inserting
//! square e into S shifts the rank terms of the elements above e by one, so
//! the ranks of all children come from running prefix and suffix sums.
//!
//! # Folded index (scheme 2, `solve --fold`)
//!
//! The symmetries of a rectangular layout (R equal rows) that map the
//! winning patterns onto themselves — all 8 of a square m,n,k board, 4 of a
//! rectangle, 2 of one row, and whichever of them a pattern file's patterns
//! keep — are folded into the occupied set S: each orbit of occupied sets
//! is stored once, at its smallest member, so the table is close to 1/8
//! (1/4, 1/2) of scheme 1's. The `Folding` struct documents the formula.
//!
//! # Notation
//!
//! A position is one character per square in square order: `.` empty, `x`
//! player 0, `o` player 1 (upper case accepted). The board's layout (row
//! lengths) groups the squares into rows written with `/` between them, e.g.
//! `x.o/.x./...` on a 3×3 board; on input the `/` may be left out (`x.o.x....`),
//! but if present the rows must have the layout's lengths. A move is the
//! number (0-based) of the square occupied.
//!
//! # Pattern files
//!
//! A pattern file is plain text, one item per line; `#` starts a comment
//! that runs to the end of the line, and blank lines are ignored:
//!
//! ```text
//! # Tic-tac-toe as a pattern game.
//! name tictactoe        # required: 1-32 letters, digits, '-' or '_'
//! rows 3 3 3            # optional layout: squares per display row, in order
//! squares 9             # optional when rows is given (must then agree)
//! 0 1 2                 # a pattern: its square numbers (0-based), separated
//! 3 4 5                 # by spaces or commas; one pattern per line
//! 0,4,8
//! ```
//!
//! Squares are numbered 0..n−1 (at most [`MAX_SQUARES`]); a file may list up
//! to [`MAX_PATTERNS`] patterns. Without `rows` the board is shown as one
//! row. A pattern that contains another pattern can never decide the game
//! (owning it means owning the smaller one first), so such patterns are
//! dropped, as are repeated patterns; the rest are kept sorted.
//!
//! # Specs
//!
//! `pattern:PATH` reads a pattern file. The canonical spec — the one stored
//! in a tablebase header — does not name the file; it carries the board
//! itself, and `pattern:` accepts it back:
//!
//! ```text
//! pattern:NAME:squares=N[:rows=R1.R2...]:lines=A.B.C,D.E.F,...
//! ```
//!
//! e.g. `pattern:tictactoe:squares=9:rows=3.3.3:lines=0.1.2,0.3.6,...`:
//! `rows` only when the layout has more than one row, `lines` the patterns
//! in canonical order, squares joined by `.`, patterns by `,`.

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "Players take turns putting their mark (x first, then o) on an empty square. The first to own every square of one of the game's winning patterns (listed in its pattern file) wins; a full board with no pattern owned is a tie.";

mod file;
mod folding;
mod layout;

pub(crate) use file::impl_pattern_game;
pub use file::PatternGame;
use folding::Folding;
pub(crate) use layout::Layout;

/// Whether `params` (what follows `pattern:`) is the inline form
/// `NAME:squares=N[:rows=..]:lines=..` rather than a pattern file's path:
/// a name, then only `squares=`, `rows=` and `lines=` fields. The one test
/// the parser, the reader (a header names no file) and the outputs' check
/// (a run may not overwrite its pattern file) share.
pub(crate) fn is_inline(params: &str) -> bool {
    let mut fields = params.split(':');
    fields.next();
    let mut rest = fields.peekable();
    rest.peek().is_some()
        && rest.all(|f| {
            ["squares=", "rows=", "lines="]
                .iter()
                .any(|k| f.trim_start().starts_with(k))
        })
}

/// The pattern file a spec names, if it is a `pattern:PATH` spec (the
/// inline form names none).
pub(crate) fn file_of(spec: &str) -> Option<&str> {
    spec.strip_prefix("pattern:")
        .filter(|params| !is_inline(params))
}

use crate::games::bits::next_combination;
use crate::games::board::{self, BoardView, Cell, CellState, Shape};
use crate::games::symmetry::BoardSymmetries;
use crate::value::Value;
use std::fmt;
use std::sync::Arc;

/// Most squares on a pattern board: masks fit a `u32`, the ownership table
/// 2ⁿ bits (4 MiB at 25).
pub const MAX_SQUARES: u32 = 25;

/// Most patterns a board may have (after dropping repeats and supersets).
pub const MAX_PATTERNS: usize = 10_000;

/// Longest canonical spec: it must fit a tablebase header (64 KiB).
pub const MAX_SPEC_LEN: usize = 60_000;

/// Largest pattern file read.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// Indices per work unit of a tier.
pub(crate) const UNIT: u64 = 1 << 15;

/// The index scheme documented in this module.
pub(crate) const INDEX_SCHEME: u16 = 1;

/// The symmetry-folded index scheme (`solve --fold`).
pub(crate) const FOLDED_INDEX_SCHEME: u16 = 2;

/// Binomial coefficients C(a, b) for a, b < 32 (only ≤ 26 are used); zero
/// when b > a. Sized 32 so masked indices need no bounds checks.
const BINOM: [[u64; 32]; 32] = {
    let mut t = [[0u64; 32]; 32];
    let mut a = 0;
    while a < 32 {
        t[a][0] = 1;
        let mut b = 1;
        while b <= a {
            t[a][b] = t[a - 1][b - 1] + t[a - 1][b];
            b += 1;
        }
        a += 1;
    }
    t
};

#[inline(always)]
fn binom(a: u32, b: u32) -> u64 {
    BINOM[(a & 31) as usize][(b & 31) as usize]
}

/// The `k`-subset of 0..`universe` with colex rank `r`.
#[inline]
fn unrank(mut r: u64, k: u32, universe: u32) -> u32 {
    let mut mask = 0;
    let mut hi = universe;
    for i in (1..=k).rev() {
        // The largest c < hi with C(c, i) ≤ r; C(i − 1, i) = 0 stops the scan.
        let mut c = hi - 1;
        while binom(c, i) > r {
            c -= 1;
        }
        mask |= 1 << c;
        r -= binom(c, i);
        hi = c;
    }
    mask
}

/// The bits of `compact` moved onto the set bits of `within`, in order:
/// bit i of `compact` becomes the i-th lowest set bit of `within`.
#[inline(always)]
fn deposit(mut compact: u32, mut within: u32) -> u32 {
    let mut out = 0;
    while compact != 0 {
        if compact & 1 != 0 {
            out |= within & within.wrapping_neg();
        }
        compact >>= 1;
        within &= within.wrapping_sub(1);
    }
    out
}

/// `low[m]`: the lowest `m` squares of `set`.
#[inline(always)]
fn low_table(set: u32) -> [u32; 27] {
    let mut low = [0u32; 27];
    let mut rest = set;
    let mut i = 1;
    while rest != 0 {
        low[i] = low[i - 1] | (rest & rest.wrapping_neg());
        rest &= rest - 1;
        i += 1;
    }
    low
}

/// The next set with as many elements, in numeric (colex) order.
#[inline(always)]
fn next_set(set: u32) -> u32 {
    next_combination(u64::from(set)) as u32
}

/// The square numbers of a mask, in order, joined by `sep`.
fn squares_of(mask: u32, sep: &str) -> String {
    let mut out = String::new();
    let mut m = mask;
    while m != 0 {
        if !out.is_empty() {
            out.push_str(sep);
        }
        out.push_str(&m.trailing_zeros().to_string());
        m &= m - 1;
    }
    out
}

/// A position on a pattern board: the squares each player owns. The player
/// to move follows from the counts (`x` when they are equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PatternPosition {
    /// Squares of player 0 (`x`), bit s for square s.
    pub x: u32,
    /// Squares of player 1 (`o`). Disjoint from `x`.
    pub o: u32,
}

impl PatternPosition {
    /// Occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> u32 {
        self.x | self.o
    }

    /// The player to move: 0 when both own as many squares, else 1.
    #[inline(always)]
    pub fn mover(&self) -> u8 {
        (self.occupied().count_ones() & 1) as u8
    }
}

/// The ownership table: bit m set when the square set m contains a pattern.
struct Owns {
    words: Vec<u64>,
}

impl Owns {
    /// Builds the table for `n` squares by marking every pattern and closing
    /// the marks upward (a superset of an owning set owns too): one pass per
    /// square, on whole words.
    fn build(n: u32, patterns: &[u32]) -> Owns {
        let bits = 1usize << n;
        let mut words = vec![0u64; bits.div_ceil(64)];
        for &p in patterns {
            words[p as usize >> 6] |= 1 << (p & 63);
        }
        const SPREAD: [u64; 6] = [
            0x5555_5555_5555_5555,
            0x3333_3333_3333_3333,
            0x0f0f_0f0f_0f0f_0f0f,
            0x00ff_00ff_00ff_00ff,
            0x0000_ffff_0000_ffff,
            0x0000_0000_ffff_ffff,
        ];
        for b in 0..n.min(6) {
            for w in words.iter_mut() {
                *w |= (*w & SPREAD[b as usize]) << (1 << b);
            }
        }
        for b in 6..n {
            let step = 1usize << (b - 6);
            for i in 0..words.len() {
                if i & step != 0 {
                    words[i] |= words[i ^ step];
                }
            }
        }
        if bits < 64 {
            words[0] &= (1u64 << bits) - 1;
        }
        Owns { words }
    }

    #[inline(always)]
    fn get(&self, mask: u32) -> bool {
        self.words[mask as usize >> 6] >> (mask & 63) & 1 != 0
    }
}

/// The shared machinery of pattern games: squares, winning patterns, the
/// index, the tier walk, child indices and the position notation. Games
/// ([`PatternGame`], [`crate::games::Mnk`]) wrap one and add their spec.
#[derive(Clone)]
pub struct PatternBoard {
    n: u32,
    /// Minimal patterns as masks, in canonical order.
    patterns: Vec<u32>,
    /// The board as its spec describes it: rows, pattern lists, notation.
    layout: Arc<Layout>,
    /// `offsets[k]`: first index of the positions with k pieces (k ≤ n + 1).
    offsets: [u64; 27],
    owns: Arc<Owns>,
    /// The symmetry-folded index (scheme 2), when chosen.
    folding: Option<Arc<Folding>>,
}

impl PartialEq for PatternBoard {
    fn eq(&self, o: &Self) -> bool {
        self.layout == o.layout && self.folding.is_some() == o.folding.is_some()
    }
}

impl Eq for PatternBoard {}

impl fmt::Debug for PatternBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PatternBoard")
            .field("squares", &self.n)
            .field("rows", &self.rows())
            .field("patterns", &self.pattern_lists(".").join(","))
            .finish()
    }
}

impl PatternBoard {
    /// A board of `squares` squares with winning `patterns` (bit masks) and
    /// display `rows` (squares per row, summing to `squares`; empty for one
    /// row). Repeated patterns and patterns containing another are dropped.
    pub fn new(squares: u32, patterns: &[u32], rows: &[u32]) -> crate::Result<PatternBoard> {
        let lists: Vec<Vec<u32>> = patterns.iter().map(|&p| squares_list(p)).collect();
        let layout = Layout::new(squares, rows, &lists, MAX_SQUARES, "", |i| {
            format!("pattern {}", i + 1)
        })
        .map_err(crate::games::bad_parameters("pattern"))?;
        Ok(PatternBoard::from_layout(layout))
    }

    /// The index on a described board of at most [`MAX_SQUARES`] squares.
    pub(crate) fn from_layout(layout: Layout) -> PatternBoard {
        let squares = layout.squares();
        debug_assert!(squares <= MAX_SQUARES);
        let patterns: Vec<u32> = layout
            .patterns()
            .iter()
            .map(|p| p.iter().fold(0, |m, &s| m | 1 << s))
            .collect();
        let owns = Owns::build(squares, &patterns);
        let mut offsets = [0u64; 27];
        for k in 0..=squares {
            offsets[k as usize + 1] =
                offsets[k as usize] + binom(squares, k) * binom(k, k.div_ceil(2));
        }
        PatternBoard {
            n: squares,
            patterns,
            layout: Arc::new(layout),
            offsets,
            owns: Arc::new(owns),
            folding: None,
        }
    }

    /// The same board with its symmetries folded into the index (scheme 2,
    /// see the `Folding` struct), or why not: the layout is not a rectangle, or no
    /// symmetry of it maps the patterns onto themselves.
    pub fn folded(&self) -> Result<PatternBoard, String> {
        if self.folding.is_some() {
            return Ok(self.clone());
        }
        let folding = Folding::new(self)?;
        Ok(PatternBoard {
            folding: Some(Arc::new(folding)),
            ..self.clone()
        })
    }

    /// The same board with the plain index.
    pub fn unfolded(&self) -> PatternBoard {
        PatternBoard {
            folding: None,
            ..self.clone()
        }
    }

    /// Whether the symmetry-folded index is in use.
    pub fn is_folded(&self) -> bool {
        self.folding.is_some()
    }

    /// Number of symmetries folded into the index (1 when unfolded).
    pub fn symmetries(&self) -> usize {
        self.folding.as_ref().map_or(1, |f| f.sym.len())
    }

    /// Scheme 1, the plain index, or 2, symmetry-folded.
    pub fn index_scheme(&self) -> u16 {
        if self.is_folded() {
            FOLDED_INDEX_SCHEME
        } else {
            INDEX_SCHEME
        }
    }

    /// Number of squares.
    pub fn squares(&self) -> u32 {
        self.n
    }

    /// The winning patterns (minimal ones, canonical order) as bit masks.
    pub fn patterns(&self) -> &[u32] {
        &self.patterns
    }

    /// Squares per display row.
    pub fn rows(&self) -> &[u32] {
        self.layout.rows()
    }

    /// The board as its spec describes it.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The patterns as square lists, squares joined by `sep`.
    pub fn pattern_lists(&self, sep: &str) -> Vec<String> {
        self.patterns.iter().map(|&p| squares_of(p, sep)).collect()
    }

    /// Whether the square set `mask` contains a winning pattern.
    #[inline(always)]
    pub fn owns(&self, mask: u32) -> bool {
        self.owns.get(mask)
    }

    /// A pattern contained in `mask`, if any.
    pub fn owned_pattern(&self, mask: u32) -> Option<u32> {
        self.patterns.iter().copied().find(|&p| p & mask == p)
    }

    /// Number of positions with `k` pieces on the board.
    #[inline(always)]
    fn tier_len(&self, k: u32) -> u64 {
        let offsets = self.offsets();
        offsets[k as usize + 1] - offsets[k as usize]
    }

    /// First index of each tier's block (by pieces on the board).
    #[inline(always)]
    fn offsets(&self) -> &[u64; 27] {
        match &self.folding {
            None => &self.offsets,
            Some(f) => &f.offsets,
        }
    }

    /// Size of the index space: Σₖ C(n, k) · C(k, ⌈k/2⌉) (scheme 1).
    pub fn size(&self) -> u64 {
        self.offsets()[self.n as usize + 1]
    }

    /// Index of a position with legal piece counts (see the module docs).
    #[inline]
    pub fn encode(&self, p: &PatternPosition) -> u64 {
        if let Some(f) = &self.folding {
            return f.encode(p.x, p.o);
        }
        let s = p.occupied();
        let k = s.count_ones();
        let mut rs = 0;
        let mut rx = 0;
        let mut rest = s;
        let (mut j, mut t) = (0, 0);
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let is_x = p.x >> sq & 1;
            rs += binom(sq, j + 1);
            rx += u64::from(is_x) * binom(j, t + 1);
            t += is_x;
            j += 1;
        }
        self.offsets[k as usize] + rs * binom(k, k.div_ceil(2)) + rx
    }

    /// The position with `k` pieces at offset `local` within its tier,
    /// whether or not it is legal.
    #[inline]
    fn unrank_position(&self, k: u32, local: u64) -> PatternPosition {
        let cx = binom(k, k.div_ceil(2));
        let s = unrank(local / cx, k, self.n);
        let x = deposit(unrank(local % cx, k.div_ceil(2), k), s);
        PatternPosition { x, o: s & !x }
    }

    /// Whether the player to move owns a pattern (an unreachable board).
    #[inline(always)]
    fn mover_owns(&self, p: &PatternPosition) -> bool {
        self.owns(if p.mover() == 0 { p.x } else { p.o })
    }

    /// The position at `index`, or `None` past the end or when the player to
    /// move owns a pattern.
    #[inline]
    pub fn decode(&self, index: u64) -> Option<PatternPosition> {
        if index >= self.size() {
            return None;
        }
        let offsets = self.offsets();
        let k = (0..=self.n).rev().find(|&k| offsets[k as usize] <= index)?;
        let local = index - offsets[k as usize];
        let p = match &self.folding {
            None => self.unrank_position(k, local),
            Some(f) => f.unrank_position(k, local),
        };
        (!self.mover_owns(&p)).then_some(p)
    }

    /// The empty board.
    pub fn start(&self) -> PatternPosition {
        PatternPosition::default()
    }

    /// Lose in 0 when the player who just moved owns a pattern, tie in 0 on
    /// a full board, otherwise `None`.
    #[inline]
    pub fn primitive(&self, p: &PatternPosition) -> Option<Value> {
        let last = if p.mover() == 0 { p.o } else { p.x };
        if self.owns(last) {
            Some(Value::Lose)
        } else if p.occupied().count_ones() == self.n {
            Some(Value::Tie)
        } else {
            None
        }
    }

    /// Every move (the square occupied) and its position; none when the
    /// game is over.
    pub fn moves(&self, p: &PatternPosition) -> Vec<(u8, PatternPosition)> {
        if self.primitive(p).is_some() {
            return Vec::new();
        }
        let x_moves = p.mover() == 0;
        (0..self.n)
            .filter(|&sq| p.occupied() >> sq & 1 == 0)
            .map(|sq| {
                let bit = 1 << sq;
                let child = if x_moves {
                    PatternPosition {
                        x: p.x | bit,
                        o: p.o,
                    }
                } else {
                    PatternPosition {
                        x: p.x,
                        o: p.o | bit,
                    }
                };
                (sq as u8, child)
            })
            .collect()
    }

    /// Calls `f` with the index of every child, in square order, from the
    /// parent's rank terms (see the module docs): for the child that fills
    /// square e, with j occupied squares below e and t of them `x`'s,
    ///
    /// ```text
    /// rank(S')  = Σ_{i<j} C(sᵢ, i+1) + C(e, j+1) + Σ_{i≥j} C(sᵢ, i+2)
    /// rank(X'|S') = Σ_{X, i<j} C(i, tᵢ+1) + [x moves] C(j, t+1)
    ///             + Σ_{X, i≥j} C(i+1, tᵢ+1+[x moves])
    /// ```
    ///
    /// where i is an occupied square's position in S and tᵢ its position
    /// among X's squares.
    ///
    /// One branch-free pass over S's squares tabulates everything but
    /// C(e, j+1) for each j (the suffix sums as a total minus running
    /// prefixes, in wrapping arithmetic); each empty square then costs a
    /// popcount and two table reads.
    #[inline]
    pub fn for_each_child_index(&self, p: &PatternPosition, mut f: impl FnMut(u64)) {
        if let Some(fold) = &self.folding {
            // Each child's occupied set has its own representative, so each
            // child is ranked on its own.
            let mut empty = !p.occupied() & ((1u32 << self.n) - 1);
            let x_moves = p.mover() == 0;
            while empty != 0 {
                let bit = empty & empty.wrapping_neg();
                empty &= empty - 1;
                f(if x_moves {
                    fold.encode(p.x | bit, p.o)
                } else {
                    fold.encode(p.x, p.o | bit)
                });
            }
            return;
        }
        let s = p.occupied();
        let k = s.count_ones();
        let dm = u64::from(k & 1 == 0);
        let cx1 = binom(k + 1, (k + 1).div_ceil(2));
        // at[j]: the child index without C(e, j+1)·cx1 for an empty square
        // e with j occupied squares below it.
        let mut at = [0u64; 27];
        let (mut ps, mut qs, mut px, mut qx) = (0u64, 0u64, 0u64, 0u64);
        let (mut j, mut t) = (0u32, 0u32);
        let mut rest = s;
        loop {
            let new_x = dm * binom(j, t + 1);
            at[j as usize] = ps
                .wrapping_sub(qs)
                .wrapping_mul(cx1)
                .wrapping_add(px)
                .wrapping_sub(qx)
                .wrapping_add(new_x);
            if rest == 0 {
                break;
            }
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let is_x = u64::from(p.x >> sq & 1);
            ps += binom(sq, j + 1);
            qs += binom(sq, j + 2);
            px += is_x * binom(j, t + 1);
            qx += is_x * binom(j + 1, t + 1 + dm as u32);
            t += is_x as u32;
            j += 1;
        }
        // The suffix sums over all of S, subtracted above as prefixes.
        let total = self.offsets[k as usize + 1]
            .wrapping_add(qs.wrapping_mul(cx1))
            .wrapping_add(qx);
        let mut empty = !s & ((1u32 << self.n) - 1);
        while empty != 0 {
            let e = empty.trailing_zeros();
            empty &= empty - 1;
            let j = (s & ((1u32 << e) - 1)).count_ones();
            f(total
                .wrapping_add(at[j as usize])
                .wrapping_add(binom(e, j + 1) * cx1));
        }
    }

    /// Number of moves of a non-primitive position: its empty squares.
    #[inline]
    pub fn move_count(&self, p: &PatternPosition) -> u64 {
        u64::from(self.n - p.occupied().count_ones())
    }

    /// Tiers 0..=n.
    pub fn tier_count(&self) -> u32 {
        self.n + 1
    }

    /// Tier = empty squares.
    #[inline]
    pub fn tier(&self, p: &PatternPosition) -> u32 {
        self.n - p.occupied().count_ones()
    }

    /// Units of `UNIT` indices covering the tier's index range.
    pub fn tier_units(&self, tier: u32) -> u64 {
        match self.n.checked_sub(tier) {
            Some(k) => self.tier_len(k).div_ceil(UNIT),
            None => 0,
        }
    }

    /// Walks unit `unit` of `tier`, an index range, calling `f` on each
    /// legal position: S advances by Gosper's step, X within S by the same
    /// step done in S's bits (the holes of S filled with ones so the carry
    /// skips them).
    #[inline]
    pub fn for_each_in_unit(&self, tier: u32, unit: u64, f: impl FnMut(u64, &PatternPosition)) {
        let Some(k) = self.n.checked_sub(tier) else {
            return;
        };
        let start = unit * UNIT;
        let end = (start + UNIT).min(self.tier_len(k));
        if start >= end {
            return;
        }
        match &self.folding {
            None => self.walk(k, start, end, self.unrank_position(k, start), next_set, f),
            Some(fold) => {
                // Folded, the next set is the next representative.
                let reps = &fold.reps[k as usize];
                let mut slot = start / binom(k, k.div_ceil(2));
                let next = |_| {
                    slot += 1;
                    reps.get(slot as usize).copied().unwrap_or(0)
                };
                self.walk(k, start, end, fold.unrank_position(k, start), next, f)
            }
        }
    }

    /// Calls `f` on each legal position with `k` pieces at tier offsets
    /// `start..end`, the first of them being `first`: X advances within S by
    /// Gosper's step done in S's bits (the holes of S filled with ones so
    /// the carry skips them), and when X's choices run out S advances by
    /// `next_set`.
    #[inline(always)]
    fn walk(
        &self,
        k: u32,
        start: u64,
        end: u64,
        first: PatternPosition,
        mut next_set: impl FnMut(u32) -> u32,
        mut f: impl FnMut(u64, &PatternPosition),
    ) {
        let x_count = k.div_ceil(2) as usize;
        let x_moves = k & 1 == 0;
        let base = self.offsets()[k as usize];
        let mut s = first.occupied();
        let mut x = first.x;
        let mut low = low_table(s);
        let mut local = start;
        loop {
            let o = s & !x;
            if !self.owns(if x_moves { x } else { o }) {
                f(base + local, &PatternPosition { x, o });
            }
            local += 1;
            if local == end {
                break;
            }
            let t = x & x.wrapping_neg();
            let r = (x | !s).wrapping_add(t) & s;
            if r == 0 {
                s = next_set(s);
                low = low_table(s);
                x = low[x_count];
            } else {
                x = r | low[(x.count_ones() - r.count_ones()) as usize];
            }
        }
    }

    /// The number of squares bounds any game's length.
    pub fn max_remoteness(&self) -> u32 {
        self.n
    }

    /// Parses a position (see the module docs), refusing impossible piece
    /// counts and boards where the player to move owns a pattern.
    pub fn parse_position(&self, s: &str) -> Result<PatternPosition, String> {
        // At most 25 squares: word 0 holds them all.
        let [x, o] = self.layout.parse_position(s)?;
        Ok(PatternPosition {
            x: x[0] as u32,
            o: o[0] as u32,
        })
    }

    /// Writes a position: a character per square, `/` between rows.
    pub fn format_position(&self, p: &PatternPosition) -> String {
        let word = |m: u32| [u64::from(m), 0, 0, 0];
        self.layout.format_position(&[word(p.x), word(p.o)])
    }

    /// The board of `p`, row by row as the notation writes it, squares
    /// named by number; without moves (the game adds them).
    pub fn view(&self, p: &PatternPosition) -> BoardView {
        let mut cells = Vec::with_capacity(self.n as usize);
        for (row, &len) in self.rows().iter().enumerate() {
            for col in 0..len {
                let sq = cells.len() as u32;
                let (state, glyph) = square(p, sq);
                cells.push(Cell::square(
                    0,
                    row as u32,
                    col,
                    state,
                    sq.to_string(),
                    glyph,
                ));
            }
        }
        let rows = self.rows();
        let layout = board::Layout::Grid {
            rows: rows.len() as u32,
            cols: rows.iter().copied().max().unwrap_or(0),
        };
        BoardView::new(layout, cells).with_pieces([("x", Shape::Cross), ("o", Shape::Ring)])
    }
}

/// What square `sq` holds, and the character the notation writes for it
/// (`Layout::format_position` writes the same characters).
fn square(p: &PatternPosition, sq: u32) -> (CellState, char) {
    if p.x >> sq & 1 != 0 {
        (CellState::Piece(0), 'x')
    } else if p.o >> sq & 1 != 0 {
        (CellState::Piece(1), 'o')
    } else {
        (CellState::Empty, '.')
    }
}

/// The squares of a mask as a list, for sorting patterns.
fn squares_list(mask: u32) -> Vec<u32> {
    let mut v = Vec::with_capacity(mask.count_ones() as usize);
    let mut m = mask;
    while m != 0 {
        v.push(m.trailing_zeros());
        m &= m - 1;
    }
    v
}

/// Drawn at the sizes its tables take.
impl crate::games::board::ForView for PatternGame {
    fn for_view(params: &str) -> Result<PatternGame, String> {
        PatternGame::from_params(params)
    }
}

#[cfg(test)]
mod tests;
