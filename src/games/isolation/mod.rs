//! Isolation on an R×C board (R, C ≥ 2, R·C ≤ 30): rules and index here;
//! the spec's parameters and the position notation in `notation.rs`, the
//! index arithmetic (colex ranks, step ranks, folding) in `index.rs`.
//!
//! Rules (REFERENCE.md, after Gao & Li's solver): two pieces; a turn is a king
//! step of the mover's piece onto a present square not occupied by the other
//! piece, then the removal of any present square no piece stands on (the
//! square just vacated included). A player with no step loses. Player 0 moves
//! when the number of removed squares is even.
//!
//! Index (scheme 3), tier-major: positions grouped by k, the number of
//! removed squares, blocks in increasing k:
//!
//! ```text
//! index = offset_k + pair · C(n−2, k) + colex(board)
//! offset_k = n·(n−1) · Σ_{j<k} C(n−2, j)
//! ```
//!
//! where n = R·C, `pair = p0 · (n−1) + rank(p1)` for the pieces' squares `p0`,
//! `p1` (`rank(p1)` is `p1` with `p0` skipped: `p1 − [p1 > p0]`), bit j of
//! `board` is 1 when the j-th square other than the two pieces' (in square
//! order) is removed, and `colex(board) = Σ_i C(s_i, i)` over its set bits
//! `s_1 < s_2 < …` (i from 1): its rank among the k-subsets in increasing
//! numeric order. Every index is a legal position: n·(n−1)·2^(n−2) entries.
//! Tier t holds k = n−2−t, so each tier is one contiguous run of indices
//! ([`Game::tier_range`]) and a solve can stream tiers. A work unit is one
//! pair of one tier, its boards in increasing index order (Gosper's next
//! combination walks colex order). Scheme 4 is the same with the
//! symmetry-folded pairs (`Folding`, in `index.rs`): `pair` is the slot of the
//! representative pair and `board` that of the position mapped by the
//! symmetry first. (Schemes 1 and 2, retired, put the board bits lowest,
//! so tiers interleaved.)

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "Each player has one piece on the board. A turn is two steps: move your piece one square in any of the eight directions (a king's step) onto a square that is still on the board and free, then remove any empty square from the board (the one just left included). A player who cannot move their piece loses (with :misere, wins).";

use crate::game::{Game, SubsetExtensions};
use crate::games::bits::{insert_zero, next_combination};
use crate::games::board::{BoardView, Shape, View};
use crate::value::Value;
use std::sync::{Arc, OnceLock};

mod index;
mod notation;
use index::*;
use notation::square;
pub(crate) use notation::{check_board, format_board, parse_board, spec, Params};

/// Largest board: 30 squares keeps masks in a `u32` (the board bits, n−2 ≤
/// 28, and every colex rank, below C(28, 14), too) and the index in a `u64`
/// (5×6: 233.5 G entries).
const MAX_SQUARES: u32 = 30;

/// Isolation with given board size and start squares.
#[derive(Clone, Debug)]
pub struct Isolation {
    rows: u32,
    cols: u32,
    n: u32,
    start: [u8; 2],
    /// King-step neighbours of each square, as masks.
    neighbours: [u32; MAX_SQUARES as usize],
    /// `cum[k]` = Σ_{j<k} C(n−2, j): the boards with fewer than k removed
    /// squares, so block k starts at `blocks · cum[k]`.
    cum: [u64; 32],
    /// The symmetry-folded index (scheme 4), when chosen.
    folding: Option<Arc<Folding>>,
    /// Misère play: the player who cannot step wins.
    misere: bool,
    /// The solver's step ranks, built on first use (see [`StepDeltas`]).
    deltas: Arc<OnceLock<StepDeltas>>,
}

impl PartialEq for Isolation {
    fn eq(&self, o: &Isolation) -> bool {
        // The folding tables follow from the rest.
        (
            self.rows,
            self.cols,
            self.start,
            self.misere,
            self.folding.is_some(),
        ) == (o.rows, o.cols, o.start, o.misere, o.folding.is_some())
    }
}

impl Eq for Isolation {}

/// An Isolation position: the pieces' squares and the removed squares.
/// The player to move follows from the parity of the removed count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IsolationPosition {
    /// Squares of player 0's and player 1's pieces.
    pub pieces: [u8; 2],
    /// Bit s set when square s is removed. Never includes a piece's square.
    pub removed: u32,
}

/// A move: step the mover's piece to `to`, then remove square `remove`.
/// Written `TOxREMOVE` with square numbers, e.g. `2x10`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsolationMove {
    /// Square the mover's piece steps to.
    pub to: u8,
    /// Square removed after the step.
    pub remove: u8,
}

impl Isolation {
    /// Isolation on `rows`×`cols` with the default start squares (player 0 on
    /// row 0, column ⌊(C−1)/2⌋; player 1 on row R−1, column ⌊C/2⌋).
    pub fn new(rows: u32, cols: u32) -> crate::Result<Isolation> {
        Self::with_start(rows, cols, None)
    }

    /// Isolation with explicit start squares `[a, b]` for players 0 and 1.
    pub fn with_start(rows: u32, cols: u32, start: Option<[u32; 2]>) -> crate::Result<Isolation> {
        Self::build(rows, cols, start.map_or([None; 2], |s| s.map(Some)))
            .map_err(crate::games::bad_parameters("isolation"))
    }

    /// Isolation with the start squares given (a missing one at its default).
    fn build(rows: u32, cols: u32, start: [Option<u32>; 2]) -> Result<Isolation, String> {
        let [a, b] = check_board(
            rows,
            cols,
            start,
            MAX_SQUARES,
            &format!("at most {MAX_SQUARES} are supported"),
        )?;
        let n = rows * cols;
        let mut neighbours = [0u32; MAX_SQUARES as usize];
        for s in 0..n {
            let (r, c) = ((s / cols) as i32, (s % cols) as i32);
            for dr in -1..=1 {
                for dc in -1..=1 {
                    let (rr, cc) = (r + dr, c + dc);
                    if (dr, dc) != (0, 0)
                        && (0..rows as i32).contains(&rr)
                        && (0..cols as i32).contains(&cc)
                    {
                        neighbours[s as usize] |= 1 << (rr as u32 * cols + cc as u32);
                    }
                }
            }
        }
        let mut cum = [0u64; 32];
        for k in 1..=n as usize - 1 {
            cum[k] = cum[k - 1] + u64::from(BINOM[n as usize - 2][k - 1]);
        }
        Ok(Isolation {
            rows,
            cols,
            n,
            start: [a as u8, b as u8],
            neighbours,
            cum,
            folding: None,
            misere: false,
            deltas: Arc::new(OnceLock::new()),
        })
    }

    /// Parses the parameters after `isolation:`, e.g. `4x4` or `4x4:a=1,b=14`.
    pub fn from_params(params: &str) -> Result<Isolation, String> {
        Isolation::from_description(&Isolation::describe(params)?)
    }

    /// What `isolation:PARAMS` describes, before the tables' size limit.
    pub(crate) fn describe(params: &str) -> Result<Params, String> {
        Params::parse(params)
    }

    /// The table game of a description: at most [`MAX_SQUARES`] squares.
    pub(crate) fn from_description(p: &Params) -> Result<Isolation, String> {
        let mut g = Isolation::build(p.rows, p.cols, p.start)?;
        g.misere = p.misere;
        Ok(g)
    }

    /// Rows of the board.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Columns of the board.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// Start squares of players 0 and 1.
    pub fn start_squares(&self) -> [u8; 2] {
        self.start
    }

    /// Whether the symmetry-folded index is in use.
    pub fn is_folded(&self) -> bool {
        self.folding.is_some()
    }

    fn is_default_start(&self) -> bool {
        Isolation::new(self.rows, self.cols).ok().map(|d| d.start) == Some(self.start)
    }

    #[inline(always)]
    fn board_bits(&self) -> u32 {
        self.n - 2
    }

    #[inline(always)]
    fn block(&self, p0: u32, p1: u32) -> u64 {
        (p0 * (self.n - 1) + p1 - u32::from(p1 > p0)) as u64
    }

    /// The pair number (plain) or slot (folded) of pieces `q` (by player)
    /// with removed squares `removed`, and the board bits in that pair's
    /// layout (under folding, of the position mapped by the slot's symmetry).
    #[inline(always)]
    fn pair_board(&self, q: [u32; 2], removed: u32) -> (u64, u32) {
        match &self.folding {
            None => (self.block(q[0], q[1]), Self::compress(removed, q[0], q[1])),
            Some(f) => {
                let (slot, g) = f.slot_of[(q[0] * self.n + q[1]) as usize];
                let rep = f.reps[slot as usize];
                let board = Self::compress(
                    f.sym.mask(g as usize, removed),
                    u32::from(rep[0]),
                    u32::from(rep[1]),
                );
                (u64::from(slot), board)
            }
        }
    }

    /// The first index of pair (or slot) `pair` in block k.
    #[inline(always)]
    fn unit_base(&self, k: u32, pair: u64) -> u64 {
        self.blocks() * self.cum[k as usize]
            + pair * u64::from(BINOM[self.board_bits() as usize][k as usize])
    }

    /// Number of blocks (piece placements) in the index.
    fn blocks(&self) -> u64 {
        match &self.folding {
            None => u64::from(self.n * (self.n - 1)),
            Some(f) => f.reps.len() as u64,
        }
    }

    /// The pieces of a block.
    #[inline(always)]
    fn block_pieces(&self, block: u32) -> [u32; 2] {
        match &self.folding {
            None => {
                let p0 = block / (self.n - 1);
                let r = block % (self.n - 1);
                [p0, r + u32::from(r >= p0)]
            }
            Some(f) => {
                let rep = f.reps[block as usize];
                [u32::from(rep[0]), u32::from(rep[1])]
            }
        }
    }

    #[inline(always)]
    fn mover(p: &IsolationPosition) -> usize {
        (p.removed.count_ones() & 1) as usize
    }

    /// Squares the mover can step to.
    #[inline(always)]
    fn steps(&self, p: &IsolationPosition) -> u32 {
        let m = Self::mover(p);
        let from = p.pieces[m] as usize;
        let other = p.pieces[1 - m];
        self.neighbours[from] & !p.removed & !(1 << other)
    }

    /// The board bits of `removed` in the layout of the block whose pieces
    /// stand on `x` and `y` (the pieces' own bits of `removed` are zero).
    #[inline(always)]
    fn compress(removed: u32, x: u32, y: u32) -> u32 {
        let (lo, hi) = if x < y { (x, y) } else { (y, x) };
        squeeze(squeeze(removed, hi), lo)
    }
}

impl Game for Isolation {
    type Position = IsolationPosition;
    type Move = IsolationMove;

    fn spec(&self) -> String {
        spec(self.rows, self.cols, self.start, self.misere)
    }

    fn file_stem(&self) -> String {
        let fold = match (self.misere, self.is_folded()) {
            (false, false) => "",
            (false, true) => "-folded",
            (true, false) => "-misere",
            (true, true) => "-misere-folded",
        };
        if self.is_default_start() {
            format!("isolation-{}x{}{fold}", self.rows, self.cols)
        } else {
            format!(
                "isolation-{}x{}-a{}-b{}{fold}",
                self.rows, self.cols, self.start[0], self.start[1]
            )
        }
    }

    /// Scheme 3: the plain tier-major index; scheme 4: symmetry-folded.
    /// (Files of the retired schemes 1 and 2 are refused: re-solve them.)
    fn index_scheme(&self) -> u16 {
        if self.is_folded() {
            4
        } else {
            3
        }
    }

    fn size(&self) -> u64 {
        self.blocks() << self.board_bits()
    }

    #[inline]
    fn encode(&self, p: &IsolationPosition) -> u64 {
        let (pair, board) = self.pair_board([p.pieces[0] as u32, p.pieces[1] as u32], p.removed);
        self.unit_base(p.removed.count_ones(), pair) + u64::from(colex(board))
    }

    fn decode(&self, index: u64) -> Option<IsolationPosition> {
        if index >= self.size() {
            return None;
        }
        let m = self.board_bits();
        let blocks = self.blocks();
        // The block k holding the index: the last whose offset is not past it.
        let k = (0..=m)
            .rev()
            .find(|&k| blocks * self.cum[k as usize] <= index)
            .unwrap_or(0);
        let within = u64::from(BINOM[m as usize][k as usize]);
        let rest = index - blocks * self.cum[k as usize];
        let board = uncolex((rest % within) as u32, k, m);
        let [p0, p1] = self.block_pieces((rest / within) as u32);
        let (lo, hi) = if p0 < p1 { (p0, p1) } else { (p1, p0) };
        Some(IsolationPosition {
            pieces: [p0 as u8, p1 as u8],
            removed: insert_zero(insert_zero(board, lo), hi),
        })
    }

    fn folded(&self) -> Result<Isolation, String> {
        let mut g = self.clone();
        g.folding = Some(Arc::new(Folding::new(self.rows, self.cols)));
        Ok(g)
    }

    fn unfolded(&self) -> Isolation {
        let mut g = self.clone();
        g.folding = None;
        g
    }

    fn is_folded(&self) -> bool {
        self.folding.is_some()
    }

    fn start(&self) -> IsolationPosition {
        IsolationPosition {
            pieces: self.start,
            removed: 0,
        }
    }

    #[inline]
    fn primitive(&self, p: &IsolationPosition) -> Option<Value> {
        (self.steps(p) == 0).then_some(if self.misere { Value::Win } else { Value::Lose })
    }

    fn moves(&self, p: &IsolationPosition) -> Vec<(IsolationMove, IsolationPosition)> {
        let m = Self::mover(p);
        let other = p.pieces[1 - m];
        let mut out = Vec::new();
        let mut steps = self.steps(p);
        while steps != 0 {
            let to = steps.trailing_zeros();
            steps &= steps - 1;
            let mut pieces = p.pieces;
            pieces[m] = to as u8;
            for r in 0..self.n {
                let bit = 1 << r;
                if p.removed & bit == 0 && r != to && r != other as u32 {
                    out.push((
                        IsolationMove {
                            to: to as u8,
                            remove: r as u8,
                        },
                        IsolationPosition {
                            pieces,
                            removed: p.removed | bit,
                        },
                    ));
                }
            }
        }
        out
    }

    #[inline(always)]
    fn for_each_child_index(&self, p: &IsolationPosition, mut f: impl FnMut(u64)) {
        let m = Self::mover(p);
        let other = p.pieces[1 - m] as u32;
        let bits = self.board_bits();
        let k = p.removed.count_ones();
        let block = self.blocks() * self.cum[k as usize + 1];
        let per_pair = u64::from(BINOM[bits as usize][k as usize + 1]);
        let mut steps = self.steps(p);
        while steps != 0 {
            let to = steps.trailing_zeros();
            steps &= steps - 1;
            let q = if m == 0 { [to, other] } else { [other, to] };
            // The child's board in its own pair's layout, before the removal;
            // the vacated square is present there, so it is a removal candidate.
            let (pair, board) = self.pair_board(q, p.removed);
            for_each_extension(board, bits, block + pair * per_pair, &mut f);
        }
    }

    fn compound_moves(&self) -> bool {
        true
    }

    /// The intermediate of a step is the position with the piece moved and
    /// nothing removed yet: same removed count, so the same tier and mover.
    #[inline(always)]
    fn for_each_intermediate(&self, p: &IsolationPosition, mut f: impl FnMut(u64)) {
        let m = Self::mover(p);
        let k = p.removed.count_ones();
        let other = p.pieces[1 - m] as u32;
        let mut steps = self.steps(p);
        while steps != 0 {
            let to = steps.trailing_zeros();
            steps &= steps - 1;
            let q = if m == 0 { [to, other] } else { [other, to] };
            let (pair, board) = self.pair_board(q, p.removed);
            f(self.unit_base(k, pair) + u64::from(colex(board)));
        }
    }

    /// Completing an intermediate removes one present free square: one more
    /// board bit for the same pair, in block k+1 (a representative pair stays
    /// canonical under folding, as its own symmetry is the identity, so the
    /// decoded `x` is already in its pair's layout).
    #[inline(always)]
    fn for_each_completion(&self, _index: u64, x: &IsolationPosition, mut f: impl FnMut(u64)) {
        let k = x.removed.count_ones();
        let [p0, p1] = [u32::from(x.pieces[0]), u32::from(x.pieces[1])];
        let pair = match &self.folding {
            None => self.block(p0, p1),
            Some(f) => u64::from(f.slot_of[(p0 * self.n + p1) as usize].0),
        };
        let board = Self::compress(x.removed, p0, p1);
        let bits = self.board_bits();
        for_each_extension(board, bits, self.unit_base(k + 1, pair), &mut f);
    }

    /// A unit is one pair's boards of one block: they are walked in colex
    /// order as they lie in the index, with no position decoded, and each
    /// one's completions are its extensions in the same pair's next block.
    #[inline]
    fn for_each_unit_completions(&self, tier: u32, unit: u64, mut f: impl FnMut(u64, &[u64])) {
        if tier >= self.tier_count() || unit >= self.blocks() {
            return;
        }
        let bits = self.board_bits();
        let k = bits - tier;
        let next = self.unit_base(k + 1, unit);
        // 32 slots for at most 28 completions: the index mask cannot miss.
        let mut buf = [0u64; 32];
        let mut index = self.unit_base(k, unit);
        walk_boards(k, bits, |board| {
            let mut n = 0;
            for_each_extension(board, bits, next, &mut |c| {
                buf[n & 31] = c;
                n += 1;
            });
            f(index, &buf[..n]);
            index += 1;
        });
    }

    /// A unit is one pair's boards of one block in colex order, and a
    /// board's completions are its extensions in the same pair's next block
    /// (as in [`Game::for_each_unit_completions`], folded or not).
    fn unit_extensions(&self, tier: u32, unit: u64) -> Option<SubsetExtensions> {
        if tier >= self.tier_count() || unit >= self.blocks() {
            return None;
        }
        let bits = self.board_bits();
        let k = bits - tier;
        Some(SubsetExtensions {
            bits,
            removed: k,
            first: self.unit_base(k, unit),
            completions: if k < bits {
                self.unit_base(k + 1, unit)
            } else {
                0
            },
        })
    }

    /// Plain index: the pair is fixed in a unit, so each step's new pair,
    /// its block and its window are worked out once per unit, and each
    /// intermediate's index is the new pair's base plus the parent's own
    /// rank (its place in the walk) plus a [`StepDeltas`] entry. Every step
    /// is ranked, legal or not, and the legal ones kept by the count: no
    /// branch on which squares are present. The folded index maps each
    /// intermediate by a symmetry, and goes through the positions.
    #[inline]
    fn for_each_unit_intermediates(
        &self,
        tier: u32,
        unit: u64,
        mut f: impl FnMut(u64, Option<Value>, &[u64]),
    ) {
        if self.folding.is_some() || tier >= self.tier_count() || unit >= self.blocks() {
            crate::game::unit_intermediates_by_position(self, tier, unit, f);
            return;
        }
        let bits = self.board_bits();
        let k = bits - tier;
        let deltas = (self.cols <= DELTA_COLS)
            .then(|| self.deltas.get_or_init(|| StepDeltas::new(bits, self.cols)));
        let counts = deltas.map_or(0, |d| d.counts);
        let mover = (k & 1) as usize;
        let pieces = self.block_pieces(unit as u32);
        let (s, o) = (pieces[mover], pieces[1 - mover]);
        let mut steps = [Step::default(); 8];
        let mut ns = 0;
        let mut targets = self.neighbours[s as usize] & !(1 << o);
        while targets != 0 {
            let t = targets.trailing_zeros();
            targets &= targets - 1;
            let to_bit = t - u32::from(t > s) - u32::from(t > o);
            let s_bit = s - u32::from(s > o);
            let (lo, hi, down) = if t > s {
                (s_bit, to_bit, 0)
            } else {
                (to_bit + 1, s_bit, 1)
            };
            let pair = if mover == 0 {
                self.block(t, o)
            } else {
                self.block(o, t)
            };
            steps[ns] = Step {
                base: self.unit_base(k, pair),
                to_bit,
                lo,
                window: (1 << (hi - lo)) - 1,
                byte: (lo / 8) as usize & 3,
                below: (1 << (lo % 8)) - 1,
                row: deltas.map_or(0, |d| down * d.table.len() / 2)
                    + ((lo as usize * counts) << self.cols),
                from_bit: s - u32::from(s > t) - u32::from(s > o),
            };
            ns += 1;
        }
        let steps = &steps[..ns];
        let primitive = if self.misere { Value::Win } else { Value::Lose };
        let start = self.unit_base(k, unit);
        let mut rank = 0u32;
        let mut buf = [0u64; 8];
        walk_boards(k, bits, |board| {
            let mut n = 0;
            match deltas {
                Some(d) => {
                    let b = board.to_le_bytes();
                    let c1 = u32::from(POP8[b[0] as usize]);
                    let c2 = c1 + u32::from(POP8[b[1] as usize]);
                    let c3 = c2 + u32::from(POP8[b[2] as usize]);
                    let below = [0, c1, c2, c3];
                    for st in steps {
                        let byte = st.byte & 3;
                        let c0 =
                            below[byte] + u32::from(POP8[(u32::from(b[byte]) & st.below) as usize]);
                        let window = (board >> st.lo) & st.window;
                        let at = st.row + ((c0 as usize) << self.cols) + window as usize;
                        buf[n & 7] = st.base + u64::from(rank.wrapping_add(d.table[at]));
                        n += ((board >> st.to_bit) & 1 ^ 1) as usize;
                    }
                }
                None => {
                    for st in steps {
                        let moved = insert_zero(squeeze(board, st.to_bit), st.from_bit);
                        buf[n & 7] = st.base + u64::from(colex(moved));
                        n += ((board >> st.to_bit) & 1 ^ 1) as usize;
                    }
                }
            }
            let index = start + u64::from(rank);
            if n == 0 {
                f(index, Some(primitive), &[]);
            } else {
                f(index, None, &buf[..n]);
            }
            rank += 1;
        });
    }

    /// A unit is one pair's boards of one block, in index order.
    fn unit_range(&self, tier: u32, unit: u64) -> Option<std::ops::Range<u64>> {
        if tier >= self.tier_count() || unit >= self.blocks() {
            return None;
        }
        let bits = self.board_bits();
        let k = bits - tier;
        let start = self.unit_base(k, unit);
        Some(start..start + u64::from(BINOM[bits as usize][k as usize]))
    }

    /// A step moves the mover's piece to a neighbouring square and keeps the
    /// other's: the pairs (or, folded, their slots) of every neighbour.
    fn for_each_intermediate_unit(&self, tier: u32, unit: u64, mut f: impl FnMut(u64)) {
        if tier >= self.tier_count() || unit >= self.blocks() {
            return;
        }
        let k = self.board_bits() - tier;
        let mover = (k & 1) as usize;
        let pieces = self.block_pieces(unit as u32);
        let (s, o) = (pieces[mover], pieces[1 - mover]);
        let mut targets = self.neighbours[s as usize] & !(1 << o);
        while targets != 0 {
            let t = targets.trailing_zeros();
            targets &= targets - 1;
            let q = if mover == 0 { [t, o] } else { [o, t] };
            f(match &self.folding {
                None => self.block(q[0], q[1]),
                Some(fold) => u64::from(fold.slot_of[(q[0] * self.n + q[1]) as usize].0),
            });
        }
    }

    /// A position's intermediates keep the non-mover's square, so the units
    /// sharing it form a closed group. Folding maps that square within its
    /// orbit under the board's symmetries, so folded groups are the orbits
    /// of the non-mover's square in the representative pair.
    fn tier_groups(&self, _tier: u32) -> u64 {
        match &self.folding {
            None => u64::from(self.n),
            Some(f) => u64::from(f.orbits),
        }
    }

    fn group_units(&self, tier: u32, group: u64) -> Vec<u64> {
        if tier >= self.tier_count() {
            return Vec::new();
        }
        let mover = (self.n - 2 - tier) & 1;
        if let Some(f) = &self.folding {
            let other = 1 - mover as usize;
            return (0..f.reps.len() as u64)
                .filter(|&s| u64::from(f.orbit_of[f.reps[s as usize][other] as usize]) == group)
                .collect();
        }
        let fixed = group as u32;
        (0..self.n)
            .filter(|&x| x != fixed)
            .map(|x| {
                let q = if mover == 0 { [x, fixed] } else { [fixed, x] };
                self.block(q[0], q[1])
            })
            .collect()
    }

    #[inline]
    fn move_count(&self, p: &IsolationPosition) -> u64 {
        // Every step leaves the same number of removable squares: the present
        // squares minus the two now occupied.
        let free = self.n - 2 - p.removed.count_ones();
        u64::from(self.steps(p).count_ones() * free)
    }

    fn tier_count(&self) -> u32 {
        self.n - 1
    }

    /// Tier = present squares no piece stands on; each move removes one.
    #[inline]
    fn tier(&self, p: &IsolationPosition) -> u32 {
        self.n - 2 - p.removed.count_ones()
    }

    fn tier_units(&self, _tier: u32) -> u64 {
        self.blocks()
    }

    /// Tier t is block k = n−2−t: tiers run downwards through the index.
    fn tier_range(&self, tier: u32) -> Option<std::ops::Range<u64>> {
        if tier >= self.tier_count() {
            return None;
        }
        let k = (self.board_bits() - tier) as usize;
        Some(self.blocks() * self.cum[k]..self.blocks() * self.cum[k + 1])
    }

    /// A unit is one pair (one placement of the two pieces) of one tier:
    /// its boards with the tier's number of removed squares, in colex order,
    /// which is increasing index order.
    #[inline]
    fn for_each_in_unit(&self, tier: u32, unit: u64, mut f: impl FnMut(u64, &IsolationPosition)) {
        if tier >= self.tier_count() || unit >= self.blocks() {
            return;
        }
        let bits = self.board_bits();
        let k = bits - tier;
        let [p0, p1] = self.block_pieces(unit as u32);
        let (lo, hi) = if p0 < p1 { (p0, p1) } else { (p1, p0) };
        let mut index = self.unit_base(k, unit);
        let limit = 1u64 << bits;
        let mut board: u64 = (1u64 << k) - 1;
        loop {
            let pos = IsolationPosition {
                pieces: [p0 as u8, p1 as u8],
                removed: insert_zero(insert_zero(board as u32, lo), hi),
            };
            f(index, &pos);
            index += 1;
            if board == 0 {
                break;
            }
            board = next_combination(board);
            if board >= limit {
                break;
            }
        }
    }

    fn max_remoteness(&self) -> u32 {
        self.n - 2
    }

    fn player_to_move(&self, p: &IsolationPosition) -> Option<u8> {
        Some(Self::mover(p) as u8)
    }

    fn parse_position(&self, s: &str) -> Result<IsolationPosition, String> {
        let (pieces, removed) = parse_board(self.rows, self.cols, s)?;
        // At most 30 squares (MAX_SQUARES), so the mask fits.
        Ok(IsolationPosition {
            pieces,
            removed: removed as u32,
        })
    }

    fn format_position(&self, p: &IsolationPosition) -> String {
        format_board(self.rows, self.cols, p.pieces, u64::from(p.removed))
    }

    fn format_move(&self, m: &IsolationMove) -> String {
        format!("{}x{}", m.to, m.remove)
    }
}

/// Numbered squares; a move is clicked as the square stepped to, then the
/// square removed.
impl View for Isolation {
    fn board_view(&self, p: &IsolationPosition) -> BoardView {
        BoardView::numbered_grid(self.rows, self.cols, |sq| {
            square(sq, p.pieces, u64::from(p.removed))
        })
        .with_pieces([("0", Shape::Token), ("1", Shape::Token)])
        .with_moves(self, p, |m| vec![usize::from(m.to), usize::from(m.remove)])
    }
}

/// Drawn at the sizes its tables take.
impl crate::games::board::ForView for Isolation {
    fn for_view(params: &str) -> Result<Isolation, String> {
        Isolation::from_params(params)
    }
}

#[cfg(test)]
mod tests;
