//! The gravity board that Connect and Sogo share: rules, move generation,
//! tiers, and its two index schemes, each plain or folded by symmetry.
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
//! Both games use the [`tight`] index: blocks of piece counts, the column
//! heights ranked within a block, the colourings ranked combinatorially;
//! folded, the floor's symmetries (Connect's one-row floor has one: the
//! left-right mirror). Only the scheme numbers differ: Sogo's are 1 and 2,
//! Connect's 3 and 4 (its schemes 1 and 2 were a mixed-radix index, one
//! digit of `2^(H+1) − 1` values per column, up to 9.4× larger). A game
//! holds the board and forwards its index methods to it through
//! `gravity_play!`, so it writes only its spec and notation.

pub mod tight;

use crate::games::board::CellState;
use crate::value::Value;
use std::fmt;
use std::sync::Arc;

/// Largest index space the gravity games accept (a one-byte-per-entry table
/// of this size is a terabyte).
pub(crate) const MAX_ENTRIES: u64 = 1 << 40;

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

/// A gravity board's rules as a spec describes them: the floor, the column
/// height, the line length, the play convention and the winning lines, with
/// the moves and the checks of a position; no index. The tables add theirs
/// ([`Gravity`]: at most 63 cells and 2^40 positions), the search builds its
/// bitboards on it (at most 64 cells).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    nx: u32,
    ny: u32,
    height: u32,
    line: u32,
    misere: bool,
    cols: u32,
    cells: u32,
    col_mask: u64,
    lines: Vec<u64>,
}

/// A gravity board with its index: the [`Geometry`], which it dereferences
/// to, and the tight index, plain or folded. Connect-Four and Sogo are this
/// board with their own notations.
#[derive(Clone)]
pub struct Gravity {
    geometry: Geometry,
    /// The index scheme number of the plain index; the folded one is the
    /// next.
    scheme: u16,
    size: u64,
    // Shared with a folded index built on this board (see `TightFold`).
    // `None` on a board only drawn ([`Gravity::for_view`]): Sogo's 4×4×4
    // has 5^16 height vectors, too many for the index's tables, and a
    // drawing never needs them.
    tight: Option<Arc<tight::Tight>>,
    /// The symmetries folded into the index, if any.
    fold: Fold,
}

/// The folding a board's index applies: none, or the one its scheme has.
#[derive(Clone, Debug)]
enum Fold {
    Plain,
    /// The floor's symmetries (Connect: the mirror).
    Floor(Arc<tight::TightFold>),
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
            .field("folded", &self.is_folded())
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}

impl PartialEq for Gravity {
    fn eq(&self, o: &Gravity) -> bool {
        (&self.geometry, self.scheme, self.is_folded()) == (&o.geometry, o.scheme, o.is_folded())
    }
}

impl Eq for Gravity {}

/// A board is its geometry plus an index: the rules are the geometry's.
impl std::ops::Deref for Gravity {
    type Target = Geometry;

    #[inline(always)]
    fn deref(&self) -> &Geometry {
        &self.geometry
    }
}

impl Geometry {
    /// A gravity board on an `nx × ny` floor of columns of height `height`,
    /// won by `line` in a row, of at most `max_cells` cells (at most 64: a
    /// position's pieces are `u64` masks).
    pub(crate) fn new(
        nx: u32,
        ny: u32,
        height: u32,
        line: u32,
        misere: bool,
        max_cells: u32,
    ) -> Result<Geometry, String> {
        debug_assert!(max_cells <= 64);
        if nx == 0 || ny == 0 || height == 0 {
            return Err("the board needs at least one column and one row".into());
        }
        if line == 0 {
            return Err("the line length must be at least 1".into());
        }
        let cells = u64::from(nx) * u64::from(ny) * u64::from(height);
        if cells > u64::from(max_cells) {
            return Err(format!(
                "the board has {cells} cells; at most {max_cells} are supported"
            ));
        }
        let lines = Self::lines_of(nx, ny, height, line);
        if lines.is_empty() {
            return Err(format!(
                "no line of {line} fits on the board: the line length must not exceed its largest side"
            ));
        }
        Ok(Geometry {
            nx,
            ny,
            height,
            line,
            misere,
            cols: nx * ny,
            cells: cells as u32,
            // A column of 64 cells is the whole word.
            col_mask: u64::MAX >> (64 - height),
            lines,
        })
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
    pub(crate) fn play(&self, p: &GravityPosition, c: u32) -> Result<GravityPosition, String> {
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
    pub(crate) fn check(
        &self,
        p: &GravityPosition,
        name: impl Fn(u32) -> String,
    ) -> Result<(), String> {
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

    /// Whether a board with valid counts is legal: the mover has no line.
    #[inline(always)]
    fn mover_free(&self, p: &GravityPosition) -> bool {
        !self.has_line(p.pieces[p.mover()])
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
        Geometry::cell_view(p, bit).1
    }

    /// What a cell holds, and its character: the one table behind both
    /// the notation and the board view.
    pub(crate) fn cell_view(p: &GravityPosition, bit: u64) -> (CellState, char) {
        if p.pieces[0] & bit != 0 {
            (CellState::Piece(0), 'x')
        } else if p.pieces[1] & bit != 0 {
            (CellState::Piece(1), 'o')
        } else {
            (CellState::Empty, '.')
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

/// The search's face of a gravity board.
#[cfg(feature = "solve")]
impl Geometry {
    /// The floor's symmetries (rotations and reflections of the columns,
    /// levels kept) as cell permutations, identity first: what the folded
    /// index folds and the search's keys fold.
    pub(crate) fn cell_symmetries(&self) -> Vec<Vec<u16>> {
        let h = self.height;
        crate::games::symmetry::grid_perms(self.ny, self.nx)
            .iter()
            .map(|cols| {
                (0..self.cells)
                    .map(|cell| (u32::from(cols[(cell / h) as usize]) * h + cell % h) as u16)
                    .collect()
            })
            .collect()
    }

    /// The search's face of a gravity game whose canonical spec is `spec`
    /// and whose notation is `notation`.
    pub(crate) fn placement(
        &self,
        spec: String,
        notation: Notation,
    ) -> crate::games::placement::Placement {
        let mut patterns: Vec<Vec<u16>> = self
            .lines
            .iter()
            .map(|&l| (0..64).filter(|&c| l >> c & 1 != 0).collect())
            .collect();
        patterns.sort();
        crate::games::placement::Placement {
            spec,
            squares: self.cells,
            patterns,
            floor: Some(crate::games::placement::Floor {
                nx: self.nx,
                ny: self.ny,
                height: self.height,
            }),
            symmetries: self.cell_symmetries(),
            misere: self.misere,
            notation: Box::new(OnGeometry(self.clone(), notation)),
        }
    }
}

/// A gravity family's notation, as its file writes it: positions read and
/// written on a geometry, and a column's name in a move.
#[cfg(feature = "solve")]
pub(crate) struct Notation {
    pub parse: fn(&Geometry, &str) -> Result<GravityPosition, String>,
    pub format: fn(&Geometry, &GravityPosition) -> String,
    pub column: fn(&Geometry, u32) -> String,
}

/// A family's [`Notation`] on one geometry, over the search's stones (a
/// gravity board is one word).
#[cfg(feature = "solve")]
struct OnGeometry(Geometry, Notation);

#[cfg(feature = "solve")]
impl crate::games::placement::Notation for OnGeometry {
    fn parse_position(&self, s: &str) -> Result<crate::games::placement::Stones, String> {
        let p = (self.1.parse)(&self.0, s)?;
        Ok([[p.pieces[0], 0, 0, 0], [p.pieces[1], 0, 0, 0]])
    }
    fn format_position(&self, p: &crate::games::placement::Stones) -> String {
        let pieces = [p[0][0], p[1][0]];
        (self.1.format)(&self.0, &GravityPosition { pieces })
    }
    fn format_move(&self, cell: u16) -> String {
        (self.1.column)(&self.0, u32::from(cell) / self.0.height)
    }
}

impl Gravity {
    /// The tables' board on `geometry` (at most 63 cells), whose plain
    /// tight index has the number `scheme` (the folded one `scheme + 1`).
    pub(crate) fn new(geometry: Geometry, scheme: u16) -> Result<Gravity, String> {
        debug_assert!(geometry.cells <= 63);
        let (tight, size) = tight::Tight::new(geometry.cols, geometry.height)?;
        Ok(Gravity {
            geometry,
            scheme,
            size,
            tight: Some(Arc::new(tight)),
            fold: Fold::Plain,
        })
    }

    /// A board past the tables' sizes, to draw its positions
    /// ([`crate::games::board::ForView`]): no index is built (no table of
    /// it is made or read), so any geometry of up to 64 cells is drawn.
    /// Its size is 0; the index methods must not be called on it.
    pub(crate) fn for_view(geometry: Geometry, scheme: u16) -> Result<Gravity, String> {
        Ok(Gravity {
            geometry,
            scheme,
            size: 0,
            tight: None,
            fold: Fold::Plain,
        })
    }

    /// The index's tables. A drawn board has none, and nothing indexes
    /// one: no table of it exists (a broken invariant, hence the panic).
    #[inline(always)]
    fn tight(&self) -> &Arc<tight::Tight> {
        self.tight
            .as_ref()
            .expect("a board made only to be drawn has no index")
    }

    /// The rules, without the index.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    fn too_large(entries: u128) -> String {
        format!(
            "the index would have {entries} entries ({:.1e}); at most 2^40 = {MAX_ENTRIES} are supported",
            entries as f64
        )
    }

    /// Size of the index space.
    pub fn size(&self) -> u64 {
        match &self.fold {
            Fold::Plain => self.size,
            Fold::Floor(f) => f.size(),
        }
    }

    /// Index of a position (see the module docs); folded, its canonical
    /// image's.
    #[inline]
    pub fn encode(&self, p: &GravityPosition) -> u64 {
        match &self.fold {
            Fold::Plain => self.tight_encode(self.tight(), p),
            Fold::Floor(f) => f.encode(self, p),
        }
    }

    /// The position at an index, or `None` for a hole.
    pub fn decode(&self, index: u64) -> Option<GravityPosition> {
        match &self.fold {
            Fold::Plain if index >= self.size => None,
            Fold::Plain => {
                Some(self.tight_decode(self.tight(), index)).filter(|p| self.mover_free(p))
            }
            Fold::Floor(f) => f.decode(self, index),
        }
    }

    /// Calls `f` with each child's index, columns in order, straight from
    /// the parent's.
    #[inline(always)]
    pub fn for_each_child_index(&self, p: &GravityPosition, f: impl FnMut(u64)) {
        match &self.fold {
            Fold::Plain => self.tight_children(self.tight(), p, f),
            Fold::Floor(fold) => fold.for_each_child_index(self, p, f),
        }
    }

    /// Work units of a tier.
    pub fn tier_units(&self, tier: u32) -> u64 {
        match &self.fold {
            Fold::Plain => self.tight_units(self.tight(), tier),
            Fold::Floor(f) => f.tier_units(self, tier),
        }
    }

    /// The indices of a tier: block k = cells − tier of the tight index,
    /// plain or folded (every move adds one piece, so leads to tier − 1).
    pub fn tier_range(&self, tier: u32) -> Option<std::ops::Range<u64>> {
        let k = self.cells.checked_sub(tier)? as usize;
        let offset = match &self.fold {
            Fold::Plain => &self.tight().offset,
            Fold::Floor(f) => f.offsets(),
        };
        Some(offset[k]..offset[k + 1])
    }

    /// The run of indices of a unit: plain or folded, a tier's units are
    /// consecutive runs of [`tight::TIGHT_CHUNK`] of its indices.
    pub fn unit_span(&self, tier: u32, unit: u64) -> Option<std::ops::Range<u64>> {
        let r = self.tier_range(tier)?;
        let start = r.start.checked_add(unit.checked_mul(tight::TIGHT_CHUNK)?)?;
        (start < r.end).then(|| start..start.saturating_add(tight::TIGHT_CHUNK).min(r.end))
    }

    /// The legal positions of a tier in a unit, in increasing index order.
    #[inline]
    pub fn for_each_in_unit(&self, tier: u32, unit: u64, f: impl FnMut(u64, &GravityPosition)) {
        match &self.fold {
            Fold::Plain => self.tight_plain_unit(self.tight(), tier, unit, f),
            Fold::Floor(fold) => fold.for_each_in_unit(self, tier, unit, f),
        }
    }

    /// The same board with the floor's symmetries folded into the index
    /// (the next index scheme), or why there are none to fold.
    pub fn folded(&self) -> Result<Gravity, String> {
        if self.is_folded() {
            return Ok(self.clone());
        }
        let fold = Fold::Floor(Arc::new(tight::TightFold::new(self)?));
        Ok(Gravity {
            fold,
            ..self.clone()
        })
    }

    /// The same board with the plain index.
    pub fn unfolded(&self) -> Gravity {
        Gravity {
            fold: Fold::Plain,
            ..self.clone()
        }
    }

    /// Whether the index folds symmetries.
    pub fn is_folded(&self) -> bool {
        !matches!(self.fold, Fold::Plain)
    }

    /// The plain index's scheme number, or the next one folded.
    pub fn index_scheme(&self) -> u16 {
        self.scheme + u16::from(self.is_folded())
    }
}

/// The methods of [`Game`](crate::game::Game) a gravity game forwards to
/// its `board: Gravity` field (its only field): the rules and the index,
/// plain or folded (the board holds the choice, as
/// [`PatternBoard`](crate::games::PatternBoard) does). The game writes its
/// spec, file stem and notation.
macro_rules! gravity_play {
    () => {
        /// The plain index's scheme number, or the next one folded.
        fn index_scheme(&self) -> u16 {
            self.board.index_scheme()
        }

        fn size(&self) -> u64 {
            self.board.size()
        }

        #[inline]
        fn encode(&self, p: &$crate::games::gravity::GravityPosition) -> u64 {
            self.board.encode(p)
        }

        #[inline]
        fn decode(&self, index: u64) -> Option<$crate::games::gravity::GravityPosition> {
            self.board.decode(index)
        }

        #[inline(always)]
        fn for_each_child_index(
            &self,
            p: &$crate::games::gravity::GravityPosition,
            f: impl FnMut(u64),
        ) {
            self.board.for_each_child_index(p, f)
        }

        fn tier_units(&self, tier: u32) -> u64 {
            self.board.tier_units(tier)
        }

        fn tier_range(&self, tier: u32) -> Option<std::ops::Range<u64>> {
            self.board.tier_range(tier)
        }

        fn unit_span(&self, tier: u32, unit: u64) -> Option<std::ops::Range<u64>> {
            self.board.unit_span(tier, unit)
        }

        #[inline]
        fn for_each_in_unit(
            &self,
            tier: u32,
            unit: u64,
            f: impl FnMut(u64, &$crate::games::gravity::GravityPosition),
        ) {
            self.board.for_each_in_unit(tier, unit, f)
        }

        /// The board's symmetries folded into the index (scheme 2), or why
        /// there are none.
        fn folded(&self) -> Result<Self, String> {
            let board = self
                .board
                .folded()
                .map_err(|e| format!("{}: {e}", $crate::game::Game::spec(self)))?;
            Ok(Self { board })
        }

        fn unfolded(&self) -> Self {
            Self {
                board: self.board.unfolded(),
            }
        }

        fn is_folded(&self) -> bool {
            self.board.is_folded()
        }

        fn start(&self) -> $crate::games::gravity::GravityPosition {
            $crate::games::gravity::GravityPosition::EMPTY
        }

        #[inline]
        fn primitive(
            &self,
            p: &$crate::games::gravity::GravityPosition,
        ) -> Option<$crate::value::Value> {
            self.board.primitive(p)
        }

        fn moves(
            &self,
            p: &$crate::games::gravity::GravityPosition,
        ) -> Vec<(u8, $crate::games::gravity::GravityPosition)> {
            self.board.moves(p)
        }

        #[inline]
        fn move_count(&self, p: &$crate::games::gravity::GravityPosition) -> u64 {
            self.board.move_count(p)
        }

        fn tier_count(&self) -> u32 {
            self.board.tier_count()
        }

        #[inline]
        fn tier(&self, p: &$crate::games::gravity::GravityPosition) -> u32 {
            self.board.tier(p)
        }

        fn max_remoteness(&self) -> u32 {
            self.board.cells()
        }

        fn player_to_move(&self, p: &$crate::games::gravity::GravityPosition) -> Option<u8> {
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
