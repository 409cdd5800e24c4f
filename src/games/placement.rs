//! Placement games (m,n,k-games, pattern files, Connect, Sogo) as their
//! specs describe them, apart from any table index: the squares, the
//! winning patterns, the gravity, the candidate symmetries and the
//! notation. The search builds its bitboards from a [`Placement`]
//! (`src/search/games/occupy`), so a spec and a position mean the same to a
//! table and to the search, read by the same code.
//!
//! Each family's description type (`mnk::Params`, `pattern::Description`,
//! `connect::Params`, `sogo::Params`) implements [`Placed`]: the tables'
//! constructors check it against their own limits (25 squares; 63 cells
//! and 2^40 positions with gravity), and [`Placed::placement`] against the
//! widest board a placement holds, [`MAX_SQUARES`] squares (64 cells with
//! gravity, whose columns are read as one word). Only the search uses a
//! placement, so that face is built with it (feature `solve`); the wide
//! square sets ([`Stones`]) are the pattern boards' notation everywhere.

/// Most squares of a placement: four 64-bit words.
pub(crate) const MAX_SQUARES: u32 = 256;

/// Words of a [`Stones`] set.
pub(crate) const WORDS: usize = MAX_SQUARES as usize / 64;

/// Both players' squares (`x`'s first): square `s` is bit `s % 64` of word
/// `s / 64`.
pub(crate) type Stones = [[u64; WORDS]; 2];

/// The columns of a gravity board: an `nx × ny` floor of columns of
/// `height` cells; cell `c·height + z` is level `z` (0 at the bottom) of
/// column `c = x + nx·y`.
#[cfg(feature = "solve")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Floor {
    pub nx: u32,
    pub ny: u32,
    pub height: u32,
}

/// A family's position and move notation over [`Stones`]: the tables'
/// notation, so positions pass between a table and a search as text.
#[cfg(feature = "solve")]
pub(crate) trait Notation: Send + Sync {
    /// Reads a position, refusing what no game reaches (piece counts, pieces
    /// in the air, a mover who already owns a pattern).
    fn parse_position(&self, s: &str) -> Result<Stones, String>;
    /// Writes a position as [`Notation::parse_position`] reads it.
    fn format_position(&self, stones: &Stones) -> String;
    /// Writes the move that occupies `square` (with gravity: the cell the
    /// piece lands on).
    fn format_move(&self, square: u16) -> String;
}

/// A placement game as its spec describes it.
#[cfg(feature = "solve")]
pub(crate) struct Placement {
    /// The canonical spec, as the table game writes it.
    pub spec: String,
    /// Number of squares (cells).
    pub squares: u32,
    /// Minimal winning patterns, each a sorted square list, in canonical
    /// order (the tables' order).
    pub patterns: Vec<Vec<u16>>,
    /// Gravity: the columns.
    pub floor: Option<Floor>,
    /// Candidate symmetries as square permutations, identity first; those
    /// that do not map the patterns onto themselves are the user's to drop.
    pub symmetries: Vec<Vec<u16>>,
    /// Completing a pattern loses.
    pub misere: bool,
    /// The family's notation.
    pub notation: Box<dyn Notation>,
}

/// A placement family's description (what its spec says, no limit
/// applied yet).
#[cfg(feature = "solve")]
pub(crate) trait Placed {
    /// The words of 64 squares the board takes, at most [`WORDS`] (a
    /// gravity board takes one: a larger one is refused by
    /// [`Placed::placement`]).
    fn words(&self) -> usize;
    /// The placement, or why the spec's board is not one: too large (more
    /// than [`MAX_SQUARES`] squares, 64 cells with gravity) or not a game.
    fn placement(&self) -> Result<Placement, String>;
}

/// The words of 64 squares a board of `squares` squares takes (at least one,
/// at most [`WORDS`]).
#[cfg(feature = "solve")]
pub(crate) fn words(squares: u64) -> usize {
    squares.div_ceil(64).clamp(1, WORDS as u64) as usize
}

/// Whether square `s` is in `set`.
#[inline]
pub(crate) fn has(set: &[u64; WORDS], s: usize) -> bool {
    set[s / 64] >> (s % 64) & 1 != 0
}

/// Puts square `s` into `set`.
#[inline]
pub(crate) fn put(set: &mut [u64; WORDS], s: usize) {
    set[s / 64] |= 1 << (s % 64);
}
