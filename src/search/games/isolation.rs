//! Isolation for the search, on up to 64 squares: the removed squares in a
//! `u64` and the two pieces' squares, with the table game's rules, spec
//! (`isolation:RxC:a=A,b=B[:misere]`), position notation (`0`, `1`, `x`,
//! `.` rows separated by `/`) and move notation (`TOxREMOVE`), so positions
//! pass between a table and a search as text. The spec's parameters and the
//! position notation are read and written by the table game's own functions
//! (`crate::games::isolation::{Params, check_board, parse_board,
//! format_board}`), so the two cannot drift apart.
//!
//! Rules (src/games/isolation/): a turn is a king step of the mover's
//! piece onto a present square the other piece does not hold, then the
//! removal of any present square no piece stands on (the vacated one
//! included). A player with no step loses (wins, in misère). Player 0 moves
//! when an even number of squares is removed.
//!
//! Keys fold the board's symmetries (8 for a square, 4 for a rectangle),
//! moving both pieces together: player 0's piece stays player 0's, and the
//! side to move follows from the removed count, which symmetries keep.

use super::Represents;
use crate::games::isolation;
use crate::search::SearchGame;
use crate::value::Value;

/// Largest board: the removed squares fit a `u64`.
pub const MAX_SQUARES: u32 = 64;

/// An Isolation position for the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IsolationSearchPos {
    /// Squares of player 0's and player 1's pieces.
    pub pieces: [u8; 2],
    /// Bit s set when square s is removed (never a piece's square).
    pub removed: u64,
}

/// A move: the mover's piece steps to `.0`, then square `.1` is removed.
pub type IsolationSearchMove = (u8, u8);

/// Isolation on an R×C board of at most 64 squares.
#[derive(Clone, Debug)]
pub struct IsolationSearch {
    rows: u32,
    cols: u32,
    n: u32,
    start: [u8; 2],
    misere: bool,
    /// King-step neighbours of each square.
    neighbours: Vec<u64>,
    /// `perms[g][s]`: the image of square s under symmetry g (0: identity).
    perms: Vec<Vec<u8>>,
    /// `luts[g][k][b]`: the image of byte b at byte position k of a mask.
    luts: Vec<Box<[[u64; 256]; 8]>>,
}

impl Represents<isolation::Params> for IsolationSearch {
    fn represent(p: &isolation::Params) -> Option<Result<Self, String>> {
        Some(IsolationSearch::build(p.rows, p.cols, p.start, p.misere))
    }
}

impl IsolationSearch {
    /// Isolation on `rows`×`cols` with start squares `[a, b]` (default:
    /// player 0 on row 0, column ⌊(C−1)/2⌋; player 1 on row R−1, column
    /// ⌊C/2⌋, as the table game).
    pub fn new(
        rows: u32,
        cols: u32,
        start: Option<[u32; 2]>,
        misere: bool,
    ) -> Result<IsolationSearch, String> {
        Self::build(rows, cols, start.map_or([None; 2], |s| s.map(Some)), misere)
    }

    /// Isolation with the start squares given (a missing one at its default).
    fn build(
        rows: u32,
        cols: u32,
        start: [Option<u32>; 2],
        misere: bool,
    ) -> Result<IsolationSearch, String> {
        let [a, b] = isolation::check_board(
            rows,
            cols,
            start,
            MAX_SQUARES,
            &format!("the search supports at most {MAX_SQUARES}"),
        )?;
        let n = rows * cols;
        let (r, c) = (rows as i32, cols as i32);
        let mut neighbours = vec![0u64; n as usize];
        for s in 0..n as i32 {
            for dr in -1..=1 {
                for dc in -1..=1 {
                    let (rr, cc) = (s / c + dr, s % c + dc);
                    if (dr, dc) != (0, 0) && (0..r).contains(&rr) && (0..c).contains(&cc) {
                        neighbours[s as usize] |= 1u64 << (rr * c + cc);
                    }
                }
            }
        }
        let perms: Vec<Vec<u8>> = crate::games::symmetry::grid_perms(rows, cols)
            .into_iter()
            .map(|p| p.into_iter().map(|s| s as u8).collect())
            .collect();
        let luts = perms
            .iter()
            .map(|p| {
                let mut t = Box::new([[0u64; 256]; 8]);
                for (k, table) in t.iter_mut().enumerate() {
                    for (byte, out) in table.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let s = k * 8 + bit;
                            if byte & (1 << bit) != 0 && s < p.len() {
                                *out |= 1u64 << p[s];
                            }
                        }
                    }
                }
                t
            })
            .collect();
        Ok(IsolationSearch {
            rows,
            cols,
            n,
            start: [a as u8, b as u8],
            misere,
            neighbours,
            perms,
            luts,
        })
    }

    /// Parses the parameters after `isolation:`, e.g. `6x6` or
    /// `5x5:a=0,b=24:misere` (as the table game).
    pub fn from_params(params: &str) -> Result<IsolationSearch, String> {
        let p = crate::games::Isolation::describe(params)?;
        IsolationSearch::build(p.rows, p.cols, p.start, p.misere)
    }

    /// Start squares of players 0 and 1.
    pub fn start_squares(&self) -> [u8; 2] {
        self.start
    }

    /// Number of symmetries the keys fold (8 square, 4 rectangle).
    pub fn symmetries(&self) -> usize {
        self.perms.len()
    }

    /// The image of `p` under symmetry `g` (0 is the identity).
    pub fn transform(&self, g: usize, p: &IsolationSearchPos) -> IsolationSearchPos {
        let t = &self.luts[g];
        let removed = p
            .removed
            .to_le_bytes()
            .iter()
            .enumerate()
            .fold(0, |m, (k, &b)| m | t[k][b as usize]);
        IsolationSearchPos {
            pieces: p.pieces.map(|s| self.perms[g][s as usize]),
            removed,
        }
    }

    #[inline(always)]
    fn mover(p: &IsolationSearchPos) -> usize {
        (p.removed.count_ones() & 1) as usize
    }

    /// Squares the mover can step to.
    #[inline(always)]
    fn steps(&self, p: &IsolationSearchPos) -> u64 {
        let m = Self::mover(p);
        self.neighbours[p.pieces[m] as usize] & !p.removed & !(1u64 << p.pieces[1 - m])
    }
}

impl SearchGame for IsolationSearch {
    type Pos = IsolationSearchPos;
    type Move = IsolationSearchMove;
    /// The removed squares in the low 64 bits, player 0's square at bit 64,
    /// player 1's at bit 72: least over the symmetries.
    type Key = u128;

    fn spec(&self) -> String {
        isolation::spec(self.rows, self.cols, self.start, self.misere)
    }

    fn start(&self) -> IsolationSearchPos {
        IsolationSearchPos {
            pieces: self.start,
            removed: 0,
        }
    }

    fn parse_position(&self, s: &str) -> Result<IsolationSearchPos, String> {
        let (pieces, removed) = isolation::parse_board(self.rows, self.cols, s)?;
        Ok(IsolationSearchPos { pieces, removed })
    }

    fn format_position(&self, p: &IsolationSearchPos) -> String {
        isolation::format_board(self.rows, self.cols, p.pieces, p.removed)
    }

    fn format_move(&self, m: &IsolationSearchMove) -> String {
        format!("{}x{}", m.0, m.1)
    }

    fn terminal(&self, p: &IsolationSearchPos) -> Option<Value> {
        (self.steps(p) == 0).then_some(if self.misere { Value::Win } else { Value::Lose })
    }

    /// Moves that leave the opponent fewest steps and the mover most first
    /// (mobility decides Isolation; in misère the order still finds the
    /// forcing lines, just less often first).
    fn moves(&self, p: &IsolationSearchPos) -> Vec<(IsolationSearchMove, IsolationSearchPos)> {
        let m = Self::mover(p);
        let other = p.pieces[1 - m];
        let present = !p.removed & shr_full(self.n);
        let mut out: Vec<(i32, IsolationSearchMove, IsolationSearchPos)> = Vec::new();
        let mut steps = self.steps(p);
        while steps != 0 {
            let to = steps.trailing_zeros();
            steps &= steps - 1;
            let mut pieces = p.pieces;
            pieces[m] = to as u8;
            let free = present & !(1u64 << to) & !(1u64 << other);
            let mine = self.neighbours[to as usize] & free;
            let theirs = self.neighbours[other as usize] & free;
            let mut removable = free;
            while removable != 0 {
                let r = removable.trailing_zeros();
                removable &= removable - 1;
                let bit = 1u64 << r;
                let my_mob = (mine & !bit).count_ones() as i32;
                let their_mob = (theirs & !bit).count_ones() as i32;
                out.push((
                    2 * their_mob - my_mob,
                    (to as u8, r as u8),
                    IsolationSearchPos {
                        pieces,
                        removed: p.removed | bit,
                    },
                ));
            }
        }
        out.sort_by_key(|&(score, mv, _)| (score, mv));
        out.into_iter().map(|(_, mv, c)| (mv, c)).collect()
    }

    /// The pieces sit above the removed squares in the key, so only the
    /// symmetries that bring the pieces to their least image (usually one)
    /// need the removed squares mapped.
    fn key(&self, p: &IsolationSearchPos) -> u128 {
        let pieces = |g: usize| {
            let perm = &self.perms[g];
            u128::from(perm[p.pieces[0] as usize]) << 64
                | u128::from(perm[p.pieces[1] as usize]) << 72
        };
        let top = (0..self.perms.len()).map(pieces).min().unwrap_or(0);
        (0..self.perms.len())
            .filter(|&g| pieces(g) == top)
            .map(|g| top | u128::from(self.transform(g, p).removed))
            .min()
            .unwrap_or(0)
    }

    /// The key holds a position (its least image): unpacked as it is.
    fn position_of_key(&self, key: &u128) -> Option<IsolationSearchPos> {
        let pieces = [(key >> 64) as u8, (key >> 72) as u8];
        let p = IsolationSearchPos {
            pieces,
            removed: *key as u64,
        };
        let on_board = |s: u8| u32::from(s) < self.n;
        let valid = key >> 80 == 0
            && pieces[0] != pieces[1]
            && pieces
                .iter()
                .all(|&s| on_board(s) && p.removed >> s & 1 == 0)
            && p.removed & !shr_full(self.n) == 0;
        (valid && self.key(&p) == *key).then_some(p)
    }

    /// A step after which the opponent has at most one square to step to
    /// wins at once: that square (if any) is then removed.
    fn wins_now(&self, p: &IsolationSearchPos) -> bool {
        if self.misere {
            return false;
        }
        let m = Self::mover(p);
        let theirs = self.neighbours[p.pieces[1 - m] as usize] & !p.removed;
        let mut steps = self.steps(p);
        while steps != 0 {
            let to = steps.trailing_zeros();
            steps &= steps - 1;
            if (theirs & !(1u64 << to)).count_ones() <= 1 {
                return true;
            }
        }
        false
    }

    fn ties(&self) -> bool {
        false
    }
}

/// The squares of an n-square board.
#[inline(always)]
fn shr_full(n: u32) -> u64 {
    u64::MAX.checked_shr(64 - n).unwrap_or(0)
}
