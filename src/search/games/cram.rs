//! Cram for the search, on up to 64 squares: a `u64` of covered squares,
//! with the table game's spec (`cram:RxC[:misere]`), position notation (the
//! `.#` picture or Glop's `B…E`) and move notation (`A-B`), so positions
//! pass between a table and a search as text: the spec and the notation are
//! read and written by the table game's own functions
//! (`crate::games::cram::{Params, check_board, parse_board,
//! format_board, format_glop}`).
//!
//! Keys are *region* keys: the empty squares that can still take a domino
//! (an empty square with no empty neighbour never matters again), shifted
//! into their bounding box and minimised over the box's 8 symmetries
//! (rotations, reflections and the transposition, even on a non-square
//! board). Two positions with the same key have the same empty shape up to
//! translation and symmetry, so they are the same game: the same value,
//! normal or misère, and the same nimber. This is much coarser than the
//! board's own symmetries, and it is what lets a nimber search meet a
//! region again wherever it lies on the board.
//!
//! [`SearchGame::components`] splits the empty squares into regions
//! connected by possible dominoes; each is a position of the same board
//! with every other square covered. Nimber tables of smaller boards answer
//! regions that fit them in any placement ([`CramNimberLeaves`]).

use super::Represents;
use crate::games::cram::shr;
use crate::games::{cram, AnyGame};
use crate::reader::{FileStorage, Tablebase};
use crate::search::leaves::{NimberLeaves, ValueLeaves};
use crate::search::SearchGame;
use crate::value::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// Largest board: the covered squares fit a `u64`.
pub const MAX_SQUARES: u32 = 64;

/// Cram on an R×C board of at most 64 squares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CramSearch {
    rows: u32,
    cols: u32,
    n: u32,
    misere: bool,
    full: u64,
    /// Where a domino fits: the table's rule ([`cram::Dominoes`]).
    dominoes: cram::Dominoes,
}

/// A move: a domino on squares `.0` < `.1`, written `A-B`.
pub type CramSearchMove = (u8, u8);

/// `x << k`, zero when `k` is 64.
#[inline(always)]
fn shl(x: u64, k: u32) -> u64 {
    x.checked_shl(k).unwrap_or(0)
}

impl Represents<cram::Params> for CramSearch {
    fn represent(p: &cram::Params) -> Option<Result<Self, String>> {
        Some(CramSearch::new(p.rows, p.cols, p.misere))
    }
}

impl CramSearch {
    /// Cram on `rows`×`cols` (at most 64 squares), misère when `misere`.
    pub fn new(rows: u32, cols: u32, misere: bool) -> Result<CramSearch, String> {
        let n = cram::check_board(
            rows,
            cols,
            MAX_SQUARES,
            &format!("the search supports at most {MAX_SQUARES}"),
        )?;
        let dominoes = cram::Dominoes::new(rows, cols);
        Ok(CramSearch {
            rows,
            cols,
            n,
            misere,
            full: dominoes.full,
            dominoes,
        })
    }

    /// Parses the parameters after `cram:`, e.g. `7x7` or `4x4:misere`.
    pub fn from_params(params: &str) -> Result<CramSearch, String> {
        let p = crate::games::Cram::describe(params)?;
        CramSearch::new(p.rows, p.cols, p.misere)
    }

    /// Rows of the board.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Columns of the board.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// Whether this is misère play.
    pub fn misere(&self) -> bool {
        self.misere
    }

    /// Every square covered: the position with no move.
    pub fn full(&self) -> u64 {
        self.full
    }

    /// Squares `s` with `s` and `s + 1` both empty.
    #[inline(always)]
    fn horizontal(&self, p: u64) -> u64 {
        self.dominoes.horizontal(p)
    }

    /// Squares `s` with `s` and `s + C` both empty.
    #[inline(always)]
    fn vertical(&self, p: u64) -> u64 {
        self.dominoes.vertical(p)
    }

    /// Number of moves of `p`.
    #[inline]
    pub fn move_count(&self, p: u64) -> u32 {
        self.horizontal(p).count_ones() + self.vertical(p).count_ones()
    }

    /// Squares next to a square of `x`.
    #[inline(always)]
    fn neighbours(&self, x: u64) -> u64 {
        ((x >> 1) & self.dominoes.has_right)
            | ((x << 1) & self.dominoes.has_left)
            | shr(x, self.cols)
            | (shl(x, self.cols) & self.full)
    }

    /// The empty squares with an empty neighbour: those a domino may still
    /// cover. The others never matter again.
    #[inline]
    pub fn live(&self, p: u64) -> u64 {
        let e = !p & self.full;
        e & self.neighbours(e)
    }

    /// The region of `live` squares connected by adjacency to `seed`.
    fn region_of(&self, seed: u64, live: u64) -> u64 {
        let mut x = seed;
        loop {
            let y = x | (self.neighbours(x) & live);
            if y == x {
                return x;
            }
            x = y;
        }
    }

    /// The regions of `live` squares connected by adjacency.
    fn regions(&self, mut live: u64) -> Vec<u64> {
        let mut out = Vec::new();
        while live != 0 {
            let x = self.region_of(live & live.wrapping_neg(), live);
            out.push(x);
            live &= !x;
        }
        out
    }

    /// The region keys of the regions of `live` squares, appended to
    /// `out` (no allocation of their own: the couples engine's children).
    pub(crate) fn region_keys_into(&self, mut live: u64, out: &mut Vec<u128>) {
        while live != 0 {
            let x = self.region_of(live & live.wrapping_neg(), live);
            out.push(self.region_key(x));
            live &= !x;
        }
    }

    /// The region key of a set of live squares: `(h, w, grid)` of the
    /// bounding box, least over its 8 symmetries, as
    /// `h << 72 | w << 64 | rows packed row-major` (row i in bits
    /// `i·w .. i·w + w`, column 0 lowest). Zero for no squares.
    ///
    /// No arrays: the grid and its transposition are packed as they are
    /// read, and the half turn of a packed grid is its bit reversal, so
    /// the 8 images cost two packings and two reversals per family. The
    /// family whose height is smaller wins outright (the height is the
    /// key's top field), so a non-square box computes only that one.
    pub fn region_key(&self, live: u64) -> u128 {
        if live == 0 {
            return 0;
        }
        let cols = self.cols;
        let r0 = live.trailing_zeros() / cols;
        let r1 = (63 - live.leading_zeros()) / cols;
        let h = r1 - r0 + 1;
        let row_mask = shr(u64::MAX, 64 - cols);
        let mut or = 0;
        for r in r0..=r1 {
            or |= shr(live, r * cols) & row_mask;
        }
        let c0 = or.trailing_zeros();
        let w = 64 - or.leading_zeros() - c0;
        let x = live >> (r0 * cols + c0);
        let w_mask = shr(u64::MAX, 64 - w);
        let hw = h * w;
        // Images of a family: as read, rows reversed, and the half turns
        // of both (bit reversal of the whole h·w string).
        let best_of = |gh: u32, gw: u32, a: u64, b: u64| -> u128 {
            let rev = |v: u64| v.reverse_bits() >> (64 - hw);
            let top = u128::from(gh) << 72 | u128::from(gw) << 64;
            top | u128::from(a.min(b).min(rev(a)).min(rev(b)))
        };
        let mut best = u128::MAX;
        if h <= w {
            let (mut p, mut flipped) = (0u64, 0u64);
            for i in 0..h {
                let row = (x >> (i * cols)) & w_mask;
                p |= row << (i * w);
                flipped |= row << ((h - 1 - i) * w);
            }
            best = best.min(best_of(h, w, p, flipped));
        }
        if w <= h {
            // Transposed: w rows of h bits; square (i, j) goes to bit j·h + i.
            let (mut t, mut flipped) = (0u64, 0u64);
            for i in 0..h {
                let mut row = (x >> (i * cols)) & w_mask;
                while row != 0 {
                    let j = row.trailing_zeros();
                    row &= row - 1;
                    t |= 1u64 << (j * h + i);
                    flipped |= 1u64 << (j * h + h - 1 - i);
                }
            }
            best = best.min(best_of(w, h, t, flipped));
        }
        best
    }

    /// Glop's notation, e.g. `B000*0GG000000E`.
    pub fn format_glop(&self, p: u64) -> String {
        cram::format_glop(self.rows, self.cols, p)
    }
}

impl SearchGame for CramSearch {
    /// Bit s set when square s (= row·C + col) is covered.
    type Pos = u64;
    type Move = CramSearchMove;
    /// The region key ([`CramSearch::region_key`]).
    type Key = u128;

    fn spec(&self) -> String {
        cram::spec(self.rows, self.cols, self.misere)
    }

    fn start(&self) -> u64 {
        0
    }

    fn parse_position(&self, s: &str) -> Result<u64, String> {
        cram::parse_board(self.rows, self.cols, s)
    }

    fn format_position(&self, p: &u64) -> String {
        cram::format_board(self.rows, self.cols, *p)
    }

    fn format_move(&self, m: &CramSearchMove) -> String {
        format!("{}-{}", m.0, m.1)
    }

    fn terminal(&self, p: &u64) -> Option<Value> {
        (self.horizontal(*p) | self.vertical(*p) == 0).then_some(if self.misere {
            Value::Win
        } else {
            Value::Lose
        })
    }

    /// Moves that leave the opponent fewest moves first: in normal play
    /// they end the game soonest, which is where proofs are short.
    fn moves(&self, p: &u64) -> Vec<(CramSearchMove, u64)> {
        let mut out: Vec<(u32, CramSearchMove, u64)> = Vec::new();
        let mut add = |dominoes: u64, step: u32| {
            let mut d = dominoes;
            while d != 0 {
                let s = d.trailing_zeros();
                d &= d - 1;
                let c = p | 1u64 << s | 1u64 << (s + step);
                out.push((self.move_count(c), (s as u8, (s + step) as u8), c));
            }
        };
        add(self.horizontal(*p), 1);
        add(self.vertical(*p), self.cols);
        out.sort_by_key(|&(k, m, _)| (k, m));
        out.into_iter().map(|(_, m, c)| (m, c)).collect()
    }

    fn key(&self, p: &u64) -> u128 {
        self.region_key(self.live(*p))
    }

    /// The key's region at the board's top-left corner (transposed if only
    /// that fits), every other square covered: a position of this key.
    fn position_of_key(&self, key: &u128) -> Option<u64> {
        if *key == 0 {
            return Some(self.full);
        }
        let h = (key >> 72) as u32;
        let w = ((key >> 64) & 0xff) as u32;
        if h == 0 || w == 0 || key >> 80 != 0 || h * w > 64 {
            return None;
        }
        let bits = *key as u64;
        let row = |i: u32| (bits >> (i * w)) & shr(u64::MAX, 64 - w);
        let mut region = 0u64;
        if h <= self.rows && w <= self.cols {
            for i in 0..h {
                region |= row(i) << (i * self.cols);
            }
        } else if w <= self.rows && h <= self.cols {
            for i in 0..h {
                let mut b = row(i);
                while b != 0 {
                    let j = b.trailing_zeros();
                    b &= b - 1;
                    region |= 1u64 << (j * self.cols + i);
                }
            }
        } else {
            return None;
        }
        let p = self.full & !region;
        (self.key(&p) == *key).then_some(p)
    }

    /// A domino touches at most 7 domino places (its own and three more at
    /// each end), so only a position with at most 7 moves can be ended
    /// by one; those few are tried.
    fn wins_now(&self, p: &u64) -> bool {
        if self.misere || self.move_count(*p) > 7 {
            return false;
        }
        self.moves(p)
            .first()
            .is_some_and(|(_, c)| self.move_count(*c) == 0)
    }

    fn impartial(&self) -> bool {
        // Misère Cram is not a nim sum: searched for win/lose only.
        !self.misere
    }

    fn ties(&self) -> bool {
        false
    }

    /// The regions of empty squares a domino can join, each as a position
    /// of this board with every square outside it covered. Empty squares
    /// with no empty neighbour are dropped (they take no domino), so a
    /// position without moves has no components (nim-sum 0).
    fn components(&self, p: &u64) -> Vec<u64> {
        self.regions(self.live(*p))
            .into_iter()
            .map(|r| self.full & !r)
            .collect()
    }
}

/// Leaf answers cached at most by [`CramNimberLeaves`].
const LEAF_CACHE_CAP: usize = 1 << 20;

/// Cram nimber tables (`retrograde solve cram:RxC --nimbers`) answering
/// the regions of a bigger board that fit their rectangle, in any
/// placement, rotated or reflected: the region's bounding box is put at the
/// table's top-left corner (transposed if only that fits), every other
/// square covered, and the cell read. Answers are cached by region key.
pub struct CramNimberLeaves {
    /// Each table with its board's rows and columns.
    tables: Vec<(u32, u32, Tablebase<FileStorage>)>,
    cache: Mutex<HashMap<u128, u32>>,
}

impl CramNimberLeaves {
    /// Opens Cram nimber tables, checking their headers and their data CRC
    /// (every byte of every table is read once): a leaf answers for many
    /// positions of other boards, so a damaged one must not open. Value
    /// tables, misère Cram and other games are refused.
    pub fn open(paths: &[impl AsRef<Path>]) -> crate::Result<CramNimberLeaves> {
        let mut tables = Vec::new();
        for path in paths {
            let path = path.as_ref();
            let refuse = |reason: String| crate::Error::LeafTable {
                path: path.to_path_buf(),
                reason,
            };
            let tb = Tablebase::open_verified(path).map_err(|e| crate::Error::File {
                path: path.to_path_buf(),
                error: Box::new(e),
            })?;
            let spec = tb.header().spec.clone();
            let AnyGame::Cram(g) = tb.game() else {
                return Err(refuse(format!(
                    "a table of {spec}, not of Cram: Cram nimber leaves need cram:RxC --nimbers tables"
                )));
            };
            if g.misere() {
                return Err(refuse(format!(
                    "a table of misère Cram ({spec}) has no nimbers: use a normal-play cram:RxC --nimbers table"
                )));
            }
            if tb.header().kind() != crate::format::TableKind::Nimber {
                return Err(refuse(format!(
                    "a value table of {spec}, not a nimber table: solve it with --nimbers"
                )));
            }
            tables.push((g.rows(), g.cols(), tb));
        }
        Ok(CramNimberLeaves {
            tables,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The boards (rows, columns) of the tables, in the order given.
    pub fn boards(&self) -> Vec<(u32, u32)> {
        self.tables.iter().map(|&(r, c, _)| (r, c)).collect()
    }

    /// The nimber of the position `p` of `game` (normally one region), if
    /// the bounding box of its live squares fits one of the tables in some
    /// orientation; `None` otherwise and for misère Cram.
    pub fn nimber(&self, game: &CramSearch, p: &u64) -> Option<u32> {
        if game.misere {
            return None;
        }
        let key = game.key(p);
        if key == 0 {
            return Some(0);
        }
        if let Some(&n) = self.cache.lock().ok()?.get(&key) {
            return Some(n);
        }
        // The key holds the canonical grid: h rows of w bits, row-major.
        let h = (key >> 72) as u32;
        let w = ((key >> 64) & 0xff) as u32;
        let bits = key as u64;
        let row = |i: u32| (bits >> (i * w)) & shr(u64::MAX, 64 - w);
        for (tr, tc, tb) in &self.tables {
            let (tr, tc) = (*tr, *tc);
            let mut region = 0u64;
            if h <= tr && w <= tc {
                for i in 0..h {
                    region |= row(i) << (i * tc);
                }
            } else if w <= tr && h <= tc {
                for i in 0..h {
                    let mut b = row(i);
                    while b != 0 {
                        let j = b.trailing_zeros();
                        b &= b - 1;
                        region |= 1u64 << (j * tc + i);
                    }
                }
            } else {
                continue;
            }
            let full = shr(u64::MAX, 64 - tr * tc);
            // The table game's index is its covered-squares mask.
            if let Ok(Some(n)) = tb.nimber_index(full & !region) {
                if let Ok(mut cache) = self.cache.lock() {
                    // Bounded (about 48 MiB): past it the cache starts
                    // again, as the table still answers, only slower.
                    if cache.len() >= LEAF_CACHE_CAP {
                        *cache = HashMap::new();
                    }
                    cache.insert(key, n);
                }
                return Some(n);
            }
        }
        None
    }
}

impl NimberLeaves<CramSearch> for CramNimberLeaves {
    fn nimber(&self, g: &CramSearch, p: &u64) -> Option<u32> {
        CramNimberLeaves::nimber(self, g, p)
    }
}

/// Nimber tables settle a normal-play position's value when every region
/// of it is in a table: the nim-sum is non-zero exactly when the mover wins.
impl ValueLeaves<CramSearch> for CramNimberLeaves {
    fn value(&self, g: &CramSearch, p: &u64) -> Option<Value> {
        if g.misere {
            return None;
        }
        let mut sum = 0;
        for c in g.components(p) {
            sum ^= self.nimber(g, &c)?;
        }
        Some(if sum != 0 { Value::Win } else { Value::Lose })
    }
}
