//! Isolation on an R×C board (R, C ≥ 2, R·C ≤ 25): rules, index, notation.
//!
//! Rules (REFERENCE.md, after Gao & Li's solver): two pieces; a turn is a king
//! step of the mover's piece onto a present square not occupied by the other
//! piece, then the removal of any present square no piece stands on (the
//! square just vacated included). A player with no step loses. Player 0 moves
//! when the number of removed squares is even.
//!
//! Index (scheme 1), mixed radix with the board bits lowest:
//!
//! ```text
//! index = (p0 · (n−1) + rank(p1)) · 2^(n−2) + board
//! ```
//!
//! where n = R·C, `p0`, `p1` are the pieces' squares, `rank(p1)` is `p1` with
//! `p0` skipped (`p1 − [p1 > p0]`), and bit j of `board` is 1 when the j-th
//! square other than the two pieces' (in square order) is removed. Every index
//! is a legal position: n·(n−1)·2^(n−2) entries. Keeping the board bits low
//! means the children reached by one step all lie in one block of 2^(n−2)
//! entries, and differ from a common base in one bit.

use crate::game::Game;
use crate::games::bits::{insert_zero, next_combination};
use crate::games::symmetry::BoardSymmetries;
use crate::value::Value;
use std::sync::Arc;

/// Largest board: 25 squares keeps masks in a `u32` and the index in a `u64`.
const MAX_SQUARES: u32 = 25;

/// Isolation with given board size and start squares.
#[derive(Clone, Debug)]
pub struct Isolation {
    rows: u32,
    cols: u32,
    n: u32,
    start: [u8; 2],
    /// King-step neighbours of each square, as masks.
    neighbours: [u32; MAX_SQUARES as usize],
    /// The symmetry-folded index (scheme 2), when chosen.
    folding: Option<Arc<Folding>>,
    /// Misère play: the player who cannot step wins.
    misere: bool,
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

/// Index scheme 2: the board's symmetries folded into the piece placement.
///
/// The ordered piece pairs fall into orbits under the board's symmetries (8
/// for a square, 4 for a rectangle; both pieces move together, so player 0's
/// piece stays player 0's). Each orbit keeps one representative pair, the
/// smallest by scheme-1 block number, and a block of 2^(n−2) board entries.
/// A position is stored at its image under the first symmetry that takes its
/// pair to the representative. Pairs fixed by a symmetry (e.g. both pieces on
/// a diagonal) keep both mirror images of a board, each solved on its own: a
/// few percent of space for a much simpler index.
#[derive(Debug)]
struct Folding {
    sym: BoardSymmetries,
    /// Representative pair of each slot.
    reps: Vec<[u8; 2]>,
    /// For pair (p0, p1) at `p0 * n + p1`: its slot and the symmetry to apply.
    slot_of: Vec<(u16, u8)>,
}

impl Folding {
    fn new(rows: u32, cols: u32) -> Folding {
        let n = rows * cols;
        let sym = BoardSymmetries::grid(rows, cols);
        let mut reps: Vec<[u8; 2]> = Vec::new();
        let mut slot_of = vec![(u16::MAX, 0u8); (n * n) as usize];
        for p0 in 0..n {
            for p1 in (0..n).filter(|&q| q != p0) {
                let images = (0..sym.len()).map(|g| (sym.square(g, p0), sym.square(g, p1), g));
                let (r0, r1, g) = images
                    .min_by_key(|&(a, b, _)| (a, b))
                    .unwrap_or((p0, p1, 0));
                let rep = [r0 as u8, r1 as u8];
                let slot = match reps.iter().position(|&r| r == rep) {
                    Some(i) => i,
                    None => {
                        reps.push(rep);
                        reps.len() - 1
                    }
                };
                slot_of[(p0 * n + p1) as usize] = (slot as u16, g as u8);
            }
        }
        // Slots in order of their representative's scheme-1 block, so the
        // layout does not depend on the loop above.
        let mut order: Vec<usize> = (0..reps.len()).collect();
        order.sort_by_key(|&i| reps[i]);
        let mut renumber = vec![0u16; reps.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = new as u16;
        }
        for e in slot_of.iter_mut().filter(|e| e.0 != u16::MAX) {
            e.0 = renumber[e.0 as usize];
        }
        let reps = order.iter().map(|&i| reps[i]).collect();
        Folding { sym, reps, slot_of }
    }
}

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

/// Removes bit `i` from `x`, shifting the bits above it down.
#[inline(always)]
fn squeeze(x: u32, i: u32) -> u32 {
    let low = (1u32 << i) - 1;
    (x & low) | ((x >> 1) & !low)
}

impl Isolation {
    /// Isolation on `rows`×`cols` with the default start squares (player 0 on
    /// row 0, column ⌊(C−1)/2⌋; player 1 on row R−1, column ⌊C/2⌋).
    pub fn new(rows: u32, cols: u32) -> Result<Isolation, String> {
        Self::with_start(rows, cols, None)
    }

    /// Isolation with explicit start squares `[a, b]` for players 0 and 1.
    pub fn with_start(rows: u32, cols: u32, start: Option<[u32; 2]>) -> Result<Isolation, String> {
        if rows < 2 || cols < 2 {
            return Err(format!(
                "board {rows}x{cols} is too small: rows and columns must be at least 2"
            ));
        }
        if u64::from(rows) * u64::from(cols) > u64::from(MAX_SQUARES) {
            return Err(format!(
                "board {rows}x{cols} has {} squares; at most {MAX_SQUARES} are supported",
                u64::from(rows) * u64::from(cols)
            ));
        }
        let n = rows * cols;
        let [a, b] = start.unwrap_or([(cols - 1) / 2, (rows - 1) * cols + cols / 2]);
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
        Ok(Isolation {
            rows,
            cols,
            n,
            start: [a as u8, b as u8],
            neighbours,
            folding: None,
            misere: false,
        })
    }

    /// Parses the parameters after `isolation:`, e.g. `4x4` or `4x4:a=1,b=14`.
    pub fn from_params(params: &str) -> Result<Isolation, String> {
        let mut parts = params.split(':');
        let (rows, cols) = crate::games::parse_dims(parts.next().unwrap_or(""))?;
        let mut a = None;
        let mut b = None;
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
                    "a" => &mut a,
                    "b" => &mut b,
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
        let misere = misere.unwrap_or(false);
        let default = Isolation::new(rows, cols)?;
        let start = [
            a.unwrap_or(default.start[0] as u32),
            b.unwrap_or(default.start[1] as u32),
        ];
        let mut g = Isolation::with_start(rows, cols, Some(start))?;
        g.misere = misere;
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
        Isolation::new(self.rows, self.cols).map(|d| d.start) == Ok(self.start)
    }

    #[inline(always)]
    fn board_bits(&self) -> u32 {
        self.n - 2
    }

    #[inline(always)]
    fn block(&self, p0: u32, p1: u32) -> u64 {
        (p0 * (self.n - 1) + p1 - u32::from(p1 > p0)) as u64
    }

    /// The index of a position whose pieces are `q` (by player) and whose
    /// removed squares are `removed`, before any removal bit is added: the
    /// block's first index plus the board bits, in the block's own layout.
    #[inline(always)]
    fn block_base(&self, q: [u32; 2], removed: u32) -> u64 {
        let bits = self.board_bits();
        match &self.folding {
            None => {
                (self.block(q[0], q[1]) << bits) | u64::from(Self::compress(removed, q[0], q[1]))
            }
            Some(f) => {
                let (slot, g) = f.slot_of[(q[0] * self.n + q[1]) as usize];
                let rep = f.reps[slot as usize];
                let board = Self::compress(
                    f.sym.mask(g as usize, removed),
                    u32::from(rep[0]),
                    u32::from(rep[1]),
                );
                (u64::from(slot) << bits) | u64::from(board)
            }
        }
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
        format!(
            "isolation:{}x{}:a={},b={}{}",
            self.rows,
            self.cols,
            self.start[0],
            self.start[1],
            if self.misere { ":misere" } else { "" }
        )
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

    /// Scheme 1: the plain index; scheme 2: symmetry-folded.
    fn index_scheme(&self) -> u16 {
        if self.is_folded() {
            2
        } else {
            1
        }
    }

    fn size(&self) -> u64 {
        self.blocks() << self.board_bits()
    }

    #[inline]
    fn encode(&self, p: &IsolationPosition) -> u64 {
        self.block_base([p.pieces[0] as u32, p.pieces[1] as u32], p.removed)
    }

    #[inline]
    fn decode(&self, index: u64) -> Option<IsolationPosition> {
        if index >= self.size() {
            return None;
        }
        let bits = self.board_bits();
        let board = (index & ((1u64 << bits) - 1)) as u32;
        let [p0, p1] = self.block_pieces((index >> bits) as u32);
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
        let all = (1u32 << bits) - 1;
        let mut steps = self.steps(p);
        while steps != 0 {
            let to = steps.trailing_zeros();
            steps &= steps - 1;
            let q = if m == 0 { [to, other] } else { [other, to] };
            // The child's board in its own block's layout, before the removal;
            // the vacated square is present there, so it is a removal candidate.
            let first = self.block_base(q, p.removed);
            let mut free = !(first as u32) & all;
            while free != 0 {
                let j = free.trailing_zeros();
                free &= free - 1;
                f(first | 1u64 << j);
            }
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
        let other = p.pieces[1 - m] as u32;
        let mut steps = self.steps(p);
        while steps != 0 {
            let to = steps.trailing_zeros();
            steps &= steps - 1;
            let q = if m == 0 { [to, other] } else { [other, to] };
            f(self.block_base(q, p.removed));
        }
    }

    /// Completing an intermediate removes one present free square: one more
    /// board bit in the same block (a representative block stays canonical
    /// under folding, as its own symmetry is the identity).
    #[inline(always)]
    fn for_each_completion(&self, index: u64, _x: &IsolationPosition, mut f: impl FnMut(u64)) {
        let all = (1u64 << self.board_bits()) - 1;
        let mut free = !index & all;
        while free != 0 {
            let j = free.trailing_zeros();
            free &= free - 1;
            f(index | 1u64 << j);
        }
    }

    /// Unfolded, a position's intermediates keep the non-mover's square, so
    /// the blocks sharing it form a closed group; folding can move that
    /// square, so folded tables use one group.
    fn tier_groups(&self, _tier: u32) -> u64 {
        if self.is_folded() {
            1
        } else {
            u64::from(self.n)
        }
    }

    fn group_units(&self, tier: u32, group: u64) -> Vec<u64> {
        if self.is_folded() {
            return (0..self.blocks()).collect();
        }
        let mover = (self.n - 2 - tier) & 1;
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

    /// A unit is one block (one placement of the two pieces); within it the
    /// boards with the tier's number of removed squares, in increasing order.
    #[inline]
    fn for_each_in_unit(&self, tier: u32, unit: u64, mut f: impl FnMut(u64, &IsolationPosition)) {
        let bits = self.board_bits();
        let k = bits - tier;
        let [p0, p1] = self.block_pieces(unit as u32);
        let (lo, hi) = if p0 < p1 { (p0, p1) } else { (p1, p0) };
        let base = unit << bits;
        let limit = 1u64 << bits;
        let mut board: u64 = (1u64 << k) - 1;
        loop {
            let pos = IsolationPosition {
                pieces: [p0 as u8, p1 as u8],
                removed: insert_zero(insert_zero(board as u32, lo), hi),
            };
            f(base | board, &pos);
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
        let rows: Vec<&str> = s.trim().split('/').collect();
        if rows.len() != self.rows as usize {
            return Err(format!(
                "expected {} rows separated by '/', found {}",
                self.rows,
                rows.len()
            ));
        }
        let mut pieces = [None::<u8>; 2];
        let mut removed = 0u32;
        for (r, row) in rows.iter().enumerate() {
            let len = row.chars().count();
            if len != self.cols as usize {
                return Err(crate::games::row_length(
                    r + 1,
                    row,
                    len,
                    self.cols,
                    "squares",
                ));
            }
            for (c, ch) in row.chars().enumerate() {
                let sq = r as u32 * self.cols + c as u32;
                match ch {
                    '.' => {}
                    'x' | 'X' => removed |= 1 << sq,
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
            [Some(a), Some(b)] => Ok(IsolationPosition {
                pieces: [a, b],
                removed,
            }),
            [None, _] => Err("player 0's piece ('0') is missing".into()),
            [_, None] => Err("player 1's piece ('1') is missing".into()),
        }
    }

    fn format_position(&self, p: &IsolationPosition) -> String {
        let mut s = String::with_capacity((self.n + self.rows) as usize);
        for sq in 0..self.n {
            if sq > 0 && sq % self.cols == 0 {
                s.push('/');
            }
            s.push(if sq == p.pieces[0] as u32 {
                '0'
            } else if sq == p.pieces[1] as u32 {
                '1'
            } else if p.removed & (1 << sq) != 0 {
                'x'
            } else {
                '.'
            });
        }
        s
    }

    fn format_move(&self, m: &IsolationMove) -> String {
        format!("{}x{}", m.to, m.remove)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn bad_params_are_refused() {
        assert!(Isolation::from_params("1x5").is_err());
        assert!(Isolation::from_params("5x6").is_err());
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
