//! Isolation on an R×C board (R, C ≥ 2, R·C ≤ 30): rules, index, notation.
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
//! symmetry-folded pairs (`Folding`, below): `pair` is the slot of the
//! representative pair and `board` that of the position mapped by the
//! symmetry first. (Schemes 1 and 2, retired, put the board bits lowest,
//! so tiers interleaved.)

use crate::game::{Game, SubsetExtensions};
use crate::games::bits::{insert_zero, next_combination};
use crate::games::board::{BoardView, CellState, Shape, View};
use crate::value::Value;
use std::sync::{Arc, OnceLock};

mod index;
use index::*;

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

/// Isolation's rule parameters as a spec gives them after `isolation:`,
/// `RxC[:a=A,b=B][:misere]`. Read here once for the table game and the
/// search (`src/search/games/isolation.rs`), which differ only in the
/// largest board they take.
pub(crate) struct Params {
    pub rows: u32,
    pub cols: u32,
    /// Start squares given, of player 0 (`a`) and player 1 (`b`).
    pub start: [Option<u32>; 2],
    pub misere: bool,
}

impl Params {
    pub(crate) fn parse(params: &str) -> Result<Params, String> {
        let mut parts = params.split(':');
        let (rows, cols) = crate::games::parse_dims(parts.next().unwrap_or(""))?;
        let mut start = [None, None];
        let mut misere = None;
        // Each parameter once: `a=1,a=2` or `misere:normal` could mean
        // either, so neither is read.
        for part in parts {
            if let Ok(m) = crate::games::play_word(part) {
                if misere.replace(m).is_some() {
                    return Err("the play convention ('misere' or 'normal') is given twice".into());
                }
                continue;
            }
            if part.is_empty() {
                return Err(crate::games::empty_param());
            }
            for kv in part.split(',') {
                if kv.is_empty() {
                    return Err(crate::games::empty_item(part));
                }
                let (k, v) = kv.split_once('=').ok_or_else(|| {
                    format!(
                        "expected a=SQUARE,b=SQUARE or misere, found {}",
                        crate::error::Error::quote(kv)
                    )
                })?;
                let slot = match k {
                    "a" => &mut start[0],
                    "b" => &mut start[1],
                    other => {
                        return Err(format!(
                            "unknown parameter {} (isolation takes a=SQUARE,b=SQUARE and misere)",
                            crate::error::Error::quote(other)
                        ))
                    }
                };
                let v: u32 = crate::games::parse_num(v).ok_or_else(|| {
                    format!(
                        "start square {k}={} is not a square number",
                        crate::error::Error::quote(v)
                    )
                })?;
                if slot.replace(v).is_some() {
                    return Err(format!("start square '{k}' is given twice"));
                }
            }
        }
        Ok(Params {
            rows,
            cols,
            start,
            misere: misere.unwrap_or(false),
        })
    }
}

/// Checks an R×C board of at most `max` squares (`limit` says why, in the
/// error) and its start squares; returns them, a missing one at its default
/// (player 0 on row 0, column ⌊(C−1)/2⌋; player 1 on row R−1, column ⌊C/2⌋).
pub(crate) fn check_board(
    rows: u32,
    cols: u32,
    start: [Option<u32>; 2],
    max: u32,
    limit: &str,
) -> Result<[u32; 2], String> {
    if rows < 2 || cols < 2 {
        return Err(format!(
            "board {rows}x{cols} is too small: rows and columns must be at least 2"
        ));
    }
    let n = u64::from(rows) * u64::from(cols);
    if n > u64::from(max) {
        return Err(format!("board {rows}x{cols} has {n} squares; {limit}"));
    }
    let n = n as u32;
    let a = start[0].unwrap_or((cols - 1) / 2);
    let b = start[1].unwrap_or((rows - 1) * cols + cols / 2);
    for (name, s) in [("a", a), ("b", b)] {
        if s >= n {
            return Err(format!(
                "start square {name}={s} is off the board (squares are 0..{})",
                n - 1
            ));
        }
    }
    if a == b {
        return Err(format!(
            "start squares a and b are both {a}: they must differ"
        ));
    }
    Ok([a, b])
}

/// Reads Isolation's position notation on an R×C board of up to 64
/// squares: rows top to bottom separated by `/`, `.` present, `x` removed,
/// `0` and `1` the pieces. Returns the pieces' squares and the removed mask.
pub(crate) fn parse_board(rows: u32, cols: u32, s: &str) -> Result<([u8; 2], u64), String> {
    let lines: Vec<&str> = s.trim().split('/').collect();
    if lines.len() != rows as usize {
        return Err(format!(
            "expected {rows} rows separated by '/', found {}",
            lines.len()
        ));
    }
    let mut pieces = [None::<u8>; 2];
    let mut removed = 0u64;
    for (r, row) in lines.iter().enumerate() {
        let len = row.chars().count();
        if len != cols as usize {
            return Err(crate::games::row_length(r + 1, row, len, cols, "squares"));
        }
        for (c, ch) in row.chars().enumerate() {
            let sq = r as u32 * cols + c as u32;
            match ch {
                '.' => {}
                'x' | 'X' => removed |= 1u64 << sq,
                '0' | '1' => {
                    let p = usize::from(ch == '1');
                    if pieces[p].is_some() {
                        return Err(format!("player {p}'s piece appears twice"));
                    }
                    pieces[p] = Some(sq as u8);
                }
                other => {
                    return Err(format!(
                    "unexpected '{other}' (use '.' present, 'x' removed, '0' and '1' the pieces)"
                ))
                }
            }
        }
    }
    match pieces {
        [Some(a), Some(b)] => Ok(([a, b], removed)),
        [None, _] => Err("player 0's piece ('0') is missing".into()),
        [_, None] => Err("player 1's piece ('1') is missing".into()),
    }
}

/// The canonical spec, every parameter spelt out: a table's and a search's
/// game are the same game exactly when their specs are equal.
pub(crate) fn spec(rows: u32, cols: u32, start: [u8; 2], misere: bool) -> String {
    format!(
        "isolation:{rows}x{cols}:a={},b={}{}",
        start[0],
        start[1],
        if misere { ":misere" } else { "" }
    )
}

/// Writes a position in the notation [`parse_board`] reads.
pub(crate) fn format_board(rows: u32, cols: u32, pieces: [u8; 2], removed: u64) -> String {
    let n = rows * cols;
    let mut s = String::with_capacity((n + rows) as usize);
    for sq in 0..n {
        if sq > 0 && sq % cols == 0 {
            s.push('/');
        }
        s.push(square(sq, pieces, removed).1);
    }
    s
}

/// What square `sq` holds, and the character the notation writes for it:
/// the one table behind both the notation and the board view.
fn square(sq: u32, pieces: [u8; 2], removed: u64) -> (CellState, char) {
    if sq == u32::from(pieces[0]) {
        (CellState::Piece(0), '0')
    } else if sq == u32::from(pieces[1]) {
        (CellState::Piece(1), '1')
    } else if removed & (1u64 << sq) != 0 {
        (CellState::Removed, 'x')
    } else {
        (CellState::Empty, '.')
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::symmetry::BoardSymmetries;

    #[test]
    fn default_start_squares_match_the_reference() {
        let g = Isolation::new(4, 4).unwrap();
        assert_eq!(g.format_position(&g.start()), ".0../..../..../..1.");
        let g = Isolation::new(5, 5).unwrap();
        assert_eq!(g.start_squares(), [2, 22]);
        let g = Isolation::new(4, 5).unwrap();
        assert_eq!(g.start_squares(), [2, 17]);
    }

    #[test]
    fn sizes_match_the_tight_index() {
        assert_eq!(Isolation::new(5, 5).unwrap().size(), 5_033_164_800);
        assert_eq!(Isolation::new(4, 4).unwrap().size(), 16 * 15 * (1 << 14));
    }

    #[test]
    fn reference_example_hash_board_bits() {
        // `0.../...x/.x../...1`: squares 7 and 9 removed.
        let g = Isolation::new(4, 4).unwrap();
        let p = g.parse_position("0.../...x/.x../...1").unwrap();
        assert_eq!(p.removed, (1 << 7) | (1 << 9));
        assert_eq!(g.player_to_move(&p), Some(0));
        assert_eq!(g.decode(g.encode(&p)), Some(p));
    }

    #[test]
    fn child_indices_agree_with_moves() {
        let g = Isolation::new(3, 4).unwrap();
        for i in (0..g.size()).step_by(7) {
            let p = g.decode(i).unwrap();
            let mut fast = Vec::new();
            g.for_each_child_index(&p, |c| fast.push(c));
            let mut slow: Vec<u64> = g.moves(&p).iter().map(|(_, c)| g.encode(c)).collect();
            fast.sort_unstable();
            slow.sort_unstable();
            assert_eq!(fast, slow, "position {}", g.format_position(&p));
            assert_eq!(g.move_count(&p), slow.len() as u64);
        }
    }

    #[test]
    fn units_cover_every_index_once() {
        let g = Isolation::new(3, 3).unwrap();
        let mut seen = vec![0u8; g.size() as usize];
        for t in 0..g.tier_count() {
            for u in 0..g.tier_units(t) {
                g.for_each_in_unit(t, u, |i, p| {
                    assert_eq!(g.encode(p), i);
                    assert_eq!(g.tier(p), t);
                    seen[i as usize] += 1;
                });
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
    }

    #[test]
    fn conformance_plain_folded_and_misere() {
        use crate::testing::{check_moves, check_units};
        for spec in ["3x3", "3x4", "4x3", "4x4", "3x3:misere", "3x4:misere"] {
            let plain = Isolation::from_params(spec).unwrap();
            let folded = plain.folded().unwrap();
            assert_eq!((plain.index_scheme(), folded.index_scheme()), (3, 4));
            for g in [&plain, &folded] {
                // Every index is a legal position in both schemes.
                assert_eq!(check_units(g, true), g.size(), "{}", g.spec());
                assert!(check_moves(g) > 0, "{}", g.spec());
            }
        }
    }

    #[test]
    fn tier_ranges_run_down_the_index() {
        let g = Isolation::new(3, 4).unwrap();
        // Tier 10 (nothing removed): 12·11 pairs of one board each.
        assert_eq!(g.tier_range(10), Some(0..132));
        assert_eq!(g.tier_range(9), Some(132..132 * 11));
        assert_eq!(g.tier_range(0), Some(g.size() - 132..g.size()));
        assert_eq!(g.tier_range(11), None);
        let f = g.folded().unwrap();
        assert_eq!(f.tier_range(10), Some(0..f.blocks()));
    }

    /// The solver's compound path needs a position's intermediates in its
    /// own group's units: checked for every position of every tier.
    #[test]
    fn intermediates_stay_in_their_group() {
        for (r, c) in [(3, 3), (3, 4), (4, 4)] {
            for g in [
                Isolation::new(r, c).unwrap(),
                Isolation::new(r, c).unwrap().folded().unwrap(),
            ] {
                let m = g.board_bits();
                for t in 0..g.tier_count() {
                    let k = (m - t) as usize;
                    let within = u64::from(BINOM[m as usize][k]);
                    let start = g.tier_range(t).unwrap().start;
                    let mut group_of = vec![u64::MAX; g.blocks() as usize];
                    for group in 0..g.tier_groups(t) {
                        for u in g.group_units(t, group) {
                            assert_eq!(group_of[u as usize], u64::MAX, "unit {u} twice");
                            group_of[u as usize] = group;
                        }
                    }
                    assert!(group_of.iter().all(|&x| x != u64::MAX), "{}", g.spec());
                    let mut checked = 0;
                    for u in 0..g.tier_units(t) {
                        g.for_each_in_unit(t, u, |_, p| {
                            g.for_each_intermediate(p, |i| {
                                assert!(g.tier_range(t).unwrap().contains(&i));
                                let unit = (i - start) / within;
                                assert_eq!(group_of[unit as usize], group_of[u as usize]);
                                checked += 1;
                            });
                        });
                    }
                    assert!(checked > 0 || t == 0, "{} tier {t}", g.spec());
                }
                if g.is_folded() {
                    // 3 orbits of squares on 3x3 (corner, edge, centre), 3 on
                    // 4x4 (corner, edge, centre), 4 on 3x4.
                    let want = match (r, c) {
                        (3, 4) => 4,
                        _ => 3,
                    };
                    assert_eq!(g.tier_groups(0), want, "{}", g.spec());
                }
            }
        }
    }

    /// The unit walks the solver uses (completions, intermediates, runs)
    /// against the position-by-position definitions, index by index and in
    /// the same order: every unit of small boards, plain, folded and misère,
    /// the step tables (up to 7 columns) and ranking from scratch (2×8), and
    /// some units of every tier of 5×5 and 5×6.
    #[test]
    fn unit_walks_agree_with_positions() {
        let check = |g: &Isolation, t: u32, u: u64| {
            let mut want = Vec::new();
            g.for_each_in_unit(t, u, |i, p| {
                let mut c = Vec::new();
                g.for_each_completion(i, p, |x| c.push(x));
                want.push((i, c));
            });
            let mut got = Vec::new();
            g.for_each_unit_completions(t, u, |i, c| got.push((i, c.to_vec())));
            assert_eq!(got, want, "{} tier {t} unit {u}", g.spec());
            // The same completions from the subset lattice's description.
            let e = g.unit_extensions(t, u).unwrap();
            let mut lattice = Vec::new();
            let mut i = e.first;
            walk_boards(e.removed, e.bits, |b| {
                let kids = (0..e.bits).filter(|&j| b & 1 << j == 0);
                let kids = kids.map(|j| e.completions + u64::from(colex(b | 1 << j)));
                lattice.push((i, kids.collect::<Vec<_>>()));
                i += 1;
            });
            assert_eq!(lattice, want, "{} tier {t} unit {u}", g.spec());
            let mut want = Vec::new();
            crate::game::unit_intermediates_by_position(g, t, u, |i, v, c| {
                want.push((i, v, c.to_vec()))
            });
            let mut got = Vec::new();
            g.for_each_unit_intermediates(t, u, |i, v, c| got.push((i, v, c.to_vec())));
            assert_eq!(got, want, "{} tier {t} unit {u}", g.spec());
            let run = g.unit_range(t, u).unwrap();
            assert_eq!(
                want.iter().map(|w| w.0).collect::<Vec<_>>(),
                run.collect::<Vec<_>>()
            );
            want.len()
        };
        for spec in [
            "3x3",
            "3x4",
            "4x3",
            "4x4",
            "3x3:misere",
            "2x8",
            "2x3:a=0,b=5",
        ] {
            let plain = Isolation::from_params(spec).unwrap();
            for g in [plain.clone(), plain.folded().unwrap()] {
                let mut n = 0;
                for t in 0..g.tier_count() {
                    for u in 0..g.tier_units(t) {
                        n += check(&g, t, u);
                    }
                }
                assert_eq!(n as u64, g.size(), "{}", g.spec());
            }
        }
        for (r, c) in [(5, 5), (5, 6), (6, 5), (4, 7)] {
            let g = Isolation::new(r, c).unwrap();
            // The extreme tiers whole, the middle ones by a few units.
            for t in 0..g.tier_count() {
                let k = g.board_bits() - t;
                let units: Vec<u64> = if BINOM[g.board_bits() as usize][k as usize] <= 30 {
                    (0..g.tier_units(t)).collect()
                } else {
                    vec![0, 7, g.tier_units(t) / 2, g.tier_units(t) - 1]
                };
                if BINOM[g.board_bits() as usize][k as usize] > 200_000 {
                    continue;
                }
                for u in units {
                    check(&g, t, u);
                }
            }
        }
    }

    /// 30 squares: random positions of 5x6 and 6x5, plain and folded, round
    /// trip through the index and their children agree with the moves.
    #[test]
    fn thirty_square_boards_round_trip() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (r, c) in [(5, 6), (6, 5)] {
            let plain = Isolation::new(r, c).unwrap();
            let folded = plain.folded().unwrap();
            assert_eq!(plain.size(), (30 * 29) << 28);
            let sym = BoardSymmetries::grid(r, c);
            for _ in 0..3000 {
                let p0 = (rand() % 30) as u32;
                let p1 = (p0 + 1 + (rand() % 29) as u32) % 30;
                // Sparse and dense boards both: keep each square with odds
                // drawn per position.
                let density = rand() % 64;
                let mut removed = 0u32;
                for s in (0..30).filter(|&s| s != p0 && s != p1) {
                    if rand() % 64 < density {
                        removed |= 1 << s;
                    }
                }
                let p = IsolationPosition {
                    pieces: [p0 as u8, p1 as u8],
                    removed,
                };
                for g in [&plain, &folded] {
                    let i = g.encode(&p);
                    assert!(i < g.size());
                    assert!(g.tier_range(g.tier(&p)).unwrap().contains(&i));
                    let back = g.decode(i).unwrap();
                    assert_eq!(g.encode(&back), i);
                    if g.is_folded() {
                        let image = |h: usize| IsolationPosition {
                            pieces: [sym.square(h, p0) as u8, sym.square(h, p1) as u8],
                            removed: sym.mask(h, removed),
                        };
                        assert!((0..sym.len()).any(|h| image(h) == back));
                    } else {
                        assert_eq!(back, p);
                    }
                    if g.primitive(&p).is_some() {
                        continue;
                    }
                    let mut fast = Vec::new();
                    g.for_each_child_index(&p, |c| fast.push(c));
                    let mut slow: Vec<u64> = g.moves(&p).iter().map(|(_, c)| g.encode(c)).collect();
                    fast.sort_unstable();
                    slow.sort_unstable();
                    assert_eq!(fast, slow, "{} {}", g.spec(), g.format_position(&p));
                }
            }
        }
    }

    #[test]
    fn colex_ranks_and_unranks() {
        let mut board = 0b111u64;
        let mut rank = 0;
        while board < 1 << 28 {
            assert_eq!(colex(board as u32), rank);
            assert_eq!(uncolex(rank, 3, 28), board as u32);
            board = next_combination(board);
            rank += 1;
        }
        assert_eq!(rank, BINOM[28][3]);
        assert_eq!(BINOM[28][14], 40_116_600);
        // The byte tables agree with the definition on boards of every size.
        let mut x = 0x9E37_79B9u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let board = x & ((1 << 28) - 1) & (x.rotate_left(7) | x.rotate_left(19));
            assert_eq!(colex(board), colex_walk(board), "{board:#x}");
        }
        assert_eq!(colex((1 << 28) - 1), colex_walk((1 << 28) - 1));
    }

    #[test]
    fn bad_params_are_refused() {
        assert!(Isolation::from_params("1x5").is_err());
        assert!(Isolation::from_params("6x6").is_err());
        assert!(Isolation::from_params("5x6").is_ok());
        assert!(Isolation::from_params("6x5").is_ok());
        assert!(Isolation::from_params("4x4:a=3,b=3").is_err());
        assert!(Isolation::from_params("4x4:a=16").is_err());
        assert!(Isolation::from_params("4x4:c=1").is_err());
        assert!(Isolation::from_params("4x4:sideways").is_err());
        let m = Isolation::from_params("4x4:misere").unwrap();
        assert_eq!(m.spec(), "isolation:4x4:a=1,b=14:misere");
        assert_eq!(Isolation::from_params("4x4:a=1,b=14:misere").unwrap(), m);
        assert_eq!(m.file_stem(), "isolation-4x4-misere");
        let p = m.parse_position("0x../xx.x/..../...1").unwrap();
        assert_eq!(m.primitive(&p), Some(Value::Win));
        let g = Isolation::from_params("4x4:a=1,b=14").unwrap();
        assert_eq!(g.spec(), "isolation:4x4:a=1,b=14");
        assert_eq!(g.file_stem(), "isolation-4x4");
        let g = Isolation::from_params("4x4:a=0").unwrap();
        assert_eq!(g.file_stem(), "isolation-4x4-a0-b14");
    }
}
