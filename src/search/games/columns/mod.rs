//! Gravity games (Connect-Four boards, small Sogo cubes) on the column
//! bitboard of [`bits`] (one word for the mover's pieces, one for every
//! occupied cell, a sentinel above each column), as a [`SearchGame`] for
//! df-pn and the reference; the alpha-beta engine's fast path
//! (`crate::search::alphabeta`) searches the same words through
//! [`bits::Bits`]. Built from the game's own description
//! (`crate::games::placement::Placement`: its floor, patterns, symmetries
//! and notation), so specs, positions and moves are read and written by the
//! game's own functions.
//!
//! Misère boards are left to the generic representation (`occupy`):
//! the pruning this board exists for assumes completing a line wins.

pub(crate) mod bits;

use super::Represents;
use crate::games::placement::{Notation, Placed, Placement};
use crate::search::alphabeta::Native;
use crate::search::SearchGame;
use crate::value::Value;
use bits::{below, play, Layout};

pub use bits::MAX_COLUMNS;

/// A gravity game on one word.
pub struct Columns {
    spec: String,
    notation: Box<dyn Notation>,
    /// The word layout and every operation on it.
    bits: Layout,
}

impl<D: Placed> Represents<D> for Columns {
    /// Every gravity board whose columns and sentinels fit in 64 bits,
    /// unless misère; others are left to the next representation.
    fn represent(d: &D) -> Option<Result<Self, String>> {
        if d.words() != 1 {
            return None;
        }
        match d.placement() {
            Err(e) => Some(Err(e)),
            Ok(p) => Columns::new(p).map(Ok),
        }
    }
}

impl Columns {
    /// The board of a placement, or `None` when this representation does
    /// not take it (no gravity, misère, more than 64 bits with sentinels).
    fn new(p: Placement) -> Option<Columns> {
        let bits = Layout::new(&p)?;
        Some(Columns {
            spec: p.spec,
            notation: p.notation,
            bits,
        })
    }

    /// The canonical spec.
    pub fn spec_str(&self) -> &str {
        &self.spec
    }

    /// The board's word layout and its operations.
    #[inline(always)]
    pub(crate) fn layout(&self) -> &Layout {
        &self.bits
    }

    /// The winning patterns as masks of this layout.
    pub fn patterns(&self) -> &[u64] {
        self.bits.patterns()
    }

    /// Whether the winning cells are computed by shifts (the placement's
    /// patterns are exactly the grid's lines).
    pub fn by_shifts(&self) -> bool {
        self.bits.by_shifts()
    }

    /// The symmetries folded into keys, besides the identity.
    pub fn symmetry_count(&self) -> usize {
        self.bits.symmetry_count()
    }

    /// The position with `x` and `o` pieces (this layout), `done` computed.
    fn position(&self, x: u64, o: u64) -> ColumnsPos {
        let mask = x | o;
        let mover = mask.count_ones() & 1;
        let (cur, last) = if mover == 0 { (x, o) } else { (o, x) };
        ColumnsPos {
            cur,
            mask,
            done: self.bits.owns(last),
        }
    }

    /// Both players' pieces, `x`'s first, in this layout.
    pub fn pieces(&self, p: &ColumnsPos) -> [u64; 2] {
        let other = p.cur ^ p.mask;
        if p.mover() == 0 {
            [p.cur, other]
        } else {
            [other, p.cur]
        }
    }

    /// Both players' pieces in the notation's numbering (`c·H + z`).
    pub fn cells_of(&self, p: &ColumnsPos) -> [u64; 2] {
        self.pieces(p).map(|w| self.bits.compact(w))
    }
}

/// A position: the pieces of the player to move, every occupied cell, and
/// whether the player who just moved completed a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColumnsPos {
    /// The pieces of the player to move.
    pub cur: u64,
    /// Every occupied cell.
    pub mask: u64,
    /// The player who just moved owns a pattern.
    pub done: bool,
}

impl ColumnsPos {
    /// The player to move: 0 (`x`) when both have as many pieces.
    #[inline(always)]
    pub fn mover(&self) -> usize {
        (self.mask.count_ones() & 1) as usize
    }
}

impl SearchGame for Columns {
    type Pos = ColumnsPos;
    /// The cell the piece lands on, in the notation's numbering (`c·H + z`).
    type Move = u16;
    /// The canonical image's pieces in the notation's numbering, `x`'s
    /// first: the generic representation's key, so proof databases of
    /// either representation are the same file.
    type Key = [u64; 2];

    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn start(&self) -> ColumnsPos {
        ColumnsPos {
            cur: 0,
            mask: 0,
            done: false,
        }
    }

    fn parse_position(&self, s: &str) -> Result<ColumnsPos, String> {
        let stones = self.notation.parse_position(s)?;
        let b = &self.bits;
        Ok(self.position(b.spread(stones[0][0]), b.spread(stones[1][0])))
    }

    fn format_position(&self, p: &ColumnsPos) -> String {
        let [x, o] = self.cells_of(p);
        self.notation.format_position(&[[x, 0, 0, 0], [o, 0, 0, 0]])
    }

    fn format_move(&self, m: &u16) -> String {
        self.notation.format_move(*m)
    }

    #[inline]
    fn to_move(&self, p: &ColumnsPos) -> Option<u8> {
        Some(p.mover() as u8)
    }

    fn terminal(&self, p: &ColumnsPos) -> Option<Value> {
        if p.done {
            Some(Value::Lose)
        } else if p.mask == self.bits.board() {
            Some(Value::Tie)
        } else {
            None
        }
    }

    /// Winning moves first, then the block of the opponent's one threat,
    /// then the others by the threats they make (Pons' order: the cells the
    /// mover could then complete, centre columns first on ties), and last
    /// the moves that give the opponent a win (a second threat not
    /// blocked, or the cell under one of theirs).
    fn moves(&self, p: &ColumnsPos) -> Vec<(u16, ColumnsPos)> {
        if self.terminal(p).is_some() {
            return Vec::new();
        }
        let b = &self.bits;
        let possible = b.possible(p.mask);
        let theirs = p.cur ^ p.mask;
        let mine_win = b.winning(p.cur, p.mask);
        let their_win = b.winning(theirs, p.mask);
        let forced = possible & their_win;
        let mut order: Vec<(u32, u64)> = Vec::with_capacity(b.columns());
        for (rank, &c) in b.order().iter().enumerate() {
            let m = possible & b.col_mask(c as usize);
            if m == 0 {
                continue;
            }
            let class = if m & mine_win != 0 {
                0
            } else if forced & !m != 0 || m & below(their_win) != 0 {
                // Leaves an opponent's threat open, or plays under one.
                3
            } else if m & forced != 0 {
                1
            } else {
                2
            };
            let threats = b.winning(p.cur | m, p.mask).count_ones().min(255);
            order.push((class << 16 | (255 - threats) << 8 | rank as u32, m));
        }
        order.sort_unstable();
        order
            .into_iter()
            .map(|(_, m)| {
                let (cur, mask) = play(p.cur, p.mask, m);
                let done = m & mine_win != 0;
                let child = ColumnsPos { cur, mask, done };
                (b.cell_of(m), child)
            })
            .collect()
    }

    fn key(&self, p: &ColumnsPos) -> [u64; 2] {
        let [x, o] = self.cells_of(p);
        let mut best = [x, o];
        let b = &self.bits;
        for (ix, io) in b.images(b.spread(x)).zip(b.images(b.spread(o))) {
            let img = [b.compact(ix), b.compact(io)];
            if img < best {
                best = img;
            }
        }
        best
    }

    fn position_of_key(&self, key: &[u64; 2]) -> Option<ColumnsPos> {
        let p = self.position(self.bits.spread(key[0]), self.bits.spread(key[1]));
        // Only a key some position has turns back into one.
        (self.cells_of(&p) == *key).then_some(p)
    }

    fn alphabeta_native(&self, table_bytes: u64) -> Option<Native<'_, Columns>> {
        Some(crate::search::alphabeta::gravity_native(self, table_bytes))
    }

    fn wins_now(&self, p: &ColumnsPos) -> bool {
        !p.done && self.bits.winning(p.cur, p.mask) & self.bits.possible(p.mask) != 0
    }

    /// A tie once no line is open for either player: each holds pieces of
    /// both, so the board fills up without one.
    fn decided(&self, p: &ColumnsPos) -> Option<Value> {
        if p.done {
            return None;
        }
        let theirs = p.cur ^ p.mask;
        (!self.bits.open_line(theirs) && !self.bits.open_line(p.cur)).then_some(Value::Tie)
    }
}
