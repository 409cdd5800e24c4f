//! Cram on an R×C board (R, C ≥ 1, R·C ≤ 30): rules, index, notation.
//!
//! Rules (Winning Ways; Glop): players alternately place a domino on two
//! empty orthogonally adjacent cells. Normal play: the player who cannot move
//! loses; misère (`:misere`): the player who cannot move wins. Both players
//! have the same moves, so the game is impartial: positions do not record
//! whose turn it is, and under normal play a nimber table can be built.
//!
//! Spec `cram:RxC[:misere]`, e.g. `cram:5x5` or `cram:4x4:misere` (R rows,
//! C columns).
//!
//! Index (scheme 1): bit s of the index is set when square s is covered,
//! where square = row·C + col (row 0 at the top). Every one of the 2^(R·C)
//! masks is a position, unreachable ones (an odd number of covered cells, say)
//! included. Tier = number of empty cells; a move covers two, so children lie
//! two tiers down. A work unit of a tier fixes the top `h` bits of the mask
//! (`h = min(⌊R·C/2⌋, 10)`), and its masks with the tier's number of set bits
//! are enumerated directly (Gosper's hack over the low bits).
//!
//! Position notation, two forms accepted on input:
//!
//! - a picture, rows top to bottom separated by `/`, `.` empty and `#`
//!   covered: `.#./.../...` (3×3, square 1 covered). This is what is printed.
//! - Glop's notation: `B`, then the cells row by row (`0` empty, `G` covered)
//!   with a `*` after the first row (which gives the number of columns), then
//!   `E`. `B000*0GG000000E` is the 4-row, 3-column board (`cram:4x3`) with
//!   one horizontal domino at the end of the second row, i.e. `.../.##/.../...`.
//!
//! Move notation: the two squares covered, smaller first, `A-B`; e.g. on a
//! 3×3 board `3-4` covers the first two cells of the middle row and `1-4` the
//! middle of the top two rows.

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "Players take turns placing a domino on two empty squares side by side (across or down); both players place the same dominoes. The player who cannot place one loses (with :misere, wins).";

use crate::game::Game;
use crate::games::bits::next_combination;
use crate::games::board::{BoardView, CellState, Join, View};
use crate::value::Value;

/// Largest board: 30 squares keeps masks in a `u32` and the table at 2^30 cells.
pub const MAX_SQUARES: u32 = 30;

/// Most high bits fixed per work unit (so at most 1024 units per tier).
const MAX_UNIT_BITS: u32 = 10;

/// Cram with a given board size and play convention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cram {
    rows: u32,
    cols: u32,
    n: u32,
    misere: bool,
    /// Where a domino fits.
    dominoes: Dominoes,
    /// High bits fixed by a work unit.
    unit_bits: u32,
}

/// A Cram position: bit s set when square s (= row·C + col) is covered.
pub type CramPosition = u32;

/// A move: a domino on squares `a` < `b` (`b = a + 1` horizontal,
/// `b = a + C` vertical). Written `A-B`, e.g. `3-4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CramMove {
    /// The smaller square covered.
    pub a: u8,
    /// The larger square covered.
    pub b: u8,
}

/// Cram's move rule on a board of at most 64 squares (square s = row·C +
/// col, bit s set when covered): where a domino fits. Stated once, for the
/// table's positions (30 squares at most) and the search's (64).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dominoes {
    /// Every square of the board.
    pub(crate) full: u64,
    /// Squares with a right neighbour (not in the last column).
    pub(crate) has_right: u64,
    /// Squares with a left neighbour (not in the first column).
    pub(crate) has_left: u64,
    /// Squares with a neighbour below (not in the last row).
    pub(crate) has_below: u64,
    cols: u32,
}

/// `x >> k`, zero when `k` is 64 (a 1×64 board shifts by its width).
#[inline(always)]
pub(crate) fn shr(x: u64, k: u32) -> u64 {
    x.checked_shr(k).unwrap_or(0)
}

impl Dominoes {
    /// The masks of a `rows`×`cols` board (`rows`·`cols` ≤ 64, checked by
    /// the caller).
    pub(crate) fn new(rows: u32, cols: u32) -> Dominoes {
        let n = rows * cols;
        let full = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let (mut has_right, mut has_left) = (0, 0);
        for s in 0..n {
            if s % cols + 1 < cols {
                has_right |= 1u64 << s;
            }
            if s % cols > 0 {
                has_left |= 1u64 << s;
            }
        }
        Dominoes {
            full,
            has_right,
            has_left,
            has_below: shr(full, cols),
            cols,
        }
    }

    /// Squares `s` with `s` and `s + 1` both empty: horizontal dominoes.
    #[inline(always)]
    pub(crate) fn horizontal(&self, covered: u64) -> u64 {
        let e = !covered & self.full;
        e & (e >> 1) & self.has_right
    }

    /// Squares `s` with `s` and `s + C` both empty: vertical dominoes.
    #[inline(always)]
    pub(crate) fn vertical(&self, covered: u64) -> u64 {
        let e = !covered & self.full;
        e & shr(e, self.cols) & self.has_below
    }
}

impl Cram {
    /// Cram on `rows`×`cols`, misère play when `misere`.
    pub fn new(rows: u32, cols: u32, misere: bool) -> crate::Result<Cram> {
        Cram::build(rows, cols, misere).map_err(crate::games::bad_parameters("cram"))
    }

    fn build(rows: u32, cols: u32, misere: bool) -> Result<Cram, String> {
        let n = check_board(
            rows,
            cols,
            MAX_SQUARES,
            &format!("at most {MAX_SQUARES} are supported"),
        )?;
        Ok(Cram {
            rows,
            cols,
            n,
            misere,
            dominoes: Dominoes::new(rows, cols),
            unit_bits: (n / 2).min(MAX_UNIT_BITS),
        })
    }

    /// Parses the parameters after `cram:`, e.g. `5x5` or `4x4:misere`.
    pub fn from_params(params: &str) -> Result<Cram, String> {
        let p = Cram::describe(params)?;
        Cram::build(p.rows, p.cols, p.misere)
    }

    /// What `cram:PARAMS` describes, before the tables' size limit.
    pub(crate) fn describe(params: &str) -> Result<Params, String> {
        Params::parse(params)
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

    /// Squares `s` with `s` and `s + 1` both empty (horizontal dominoes).
    #[inline(always)]
    fn horizontal(&self, p: u32) -> u32 {
        // A table's board has at most 30 squares: the result fits.
        self.dominoes.horizontal(u64::from(p)) as u32
    }

    /// Squares `s` with `s` and `s + C` both empty (vertical dominoes).
    #[inline(always)]
    fn vertical(&self, p: u32) -> u32 {
        self.dominoes.vertical(u64::from(p)) as u32
    }

    /// Writes a position in Glop's notation, e.g. `B000*0GG000000E`.
    pub fn format_glop(&self, p: &CramPosition) -> String {
        format_glop(self.rows, self.cols, u64::from(*p))
    }
}

/// Checks an R×C Cram board of at most `max` squares (`limit` says why, in
/// the error) and returns its number of squares. Shared with the search
/// (`src/search/games/cram.rs`), as are the parameters and the notation.
pub(crate) fn check_board(rows: u32, cols: u32, max: u32, limit: &str) -> Result<u32, String> {
    if rows < 1 || cols < 1 {
        return Err(format!(
            "board {rows}x{cols} is empty: rows and columns must be at least 1"
        ));
    }
    let n = u64::from(rows) * u64::from(cols);
    if n > u64::from(max) {
        return Err(format!("board {rows}x{cols} has {n} squares; {limit}"));
    }
    Ok(n as u32)
}

/// Cram's rule parameters as a spec gives them after `cram:`,
/// `RxC[:misere]`: read here once for the table game and the search
/// (`src/search/games/cram.rs`), which differ only in the largest board.
pub(crate) struct Params {
    pub rows: u32,
    pub cols: u32,
    pub misere: bool,
}

impl Params {
    pub(crate) fn parse(params: &str) -> Result<Params, String> {
        let (size, rest) = match params.split_once(':') {
            Some((s, r)) => (s, Some(r)),
            None => (params, None),
        };
        let (rows, cols) = crate::games::parse_dims(size)?;
        Ok(Params {
            rows,
            cols,
            misere: crate::games::parse_play(rest)?,
        })
    }
}

/// The canonical spec: a table's and a search's game are the same game
/// exactly when their specs are equal.
pub(crate) fn spec(rows: u32, cols: u32, misere: bool) -> String {
    format!("cram:{rows}x{cols}{}", if misere { ":misere" } else { "" })
}

/// Reads a position of an R×C board (up to 64 squares) in either notation
/// (the module's doc): bit s of the result is set when square s is covered.
pub(crate) fn parse_board(rows: u32, cols: u32, s: &str) -> Result<u64, String> {
    let s = s.trim();
    if s.starts_with(['B', 'b']) {
        parse_glop(rows, cols, s)
    } else {
        parse_picture(rows, cols, s)
    }
}

/// Writes a position as the picture [`parse_board`] reads, e.g. `.#./.../...`.
pub(crate) fn format_board(rows: u32, cols: u32, p: u64) -> String {
    let n = rows * cols;
    let mut s = String::with_capacity((n + rows) as usize);
    for sq in 0..n {
        if sq > 0 && sq % cols == 0 {
            s.push('/');
        }
        s.push(square(p, sq).1);
    }
    s
}

/// What square `sq` holds, and the character the picture writes for it:
/// the one table behind both the notation and the board view.
fn square(p: u64, sq: u32) -> (CellState, char) {
    if p & (1u64 << sq) != 0 {
        (CellState::Covered, '#')
    } else {
        (CellState::Empty, '.')
    }
}

/// Writes a position in Glop's notation, e.g. `B000*0GG000000E`.
pub(crate) fn format_glop(rows: u32, cols: u32, p: u64) -> String {
    let n = rows * cols;
    let mut s = String::with_capacity(n as usize + 3);
    s.push('B');
    for sq in 0..n {
        s.push(if p & (1u64 << sq) != 0 { 'G' } else { '0' });
        if sq + 1 == cols {
            s.push('*');
        }
    }
    s.push('E');
    s
}

fn parse_glop(rows: u32, cols: u32, s: &str) -> Result<u64, String> {
    let inner = s
        .strip_prefix(['B', 'b'])
        .and_then(|t| t.strip_suffix(['E', 'e']))
        .ok_or_else(|| {
            "a Glop board starts with 'B' and ends with 'E', e.g. B000*0GG000000E".to_string()
        })?;
    let (first, rest) = inner.split_once('*').ok_or_else(|| {
        "a Glop board needs a '*' after its first row, e.g. B000*0GG000000E".to_string()
    })?;
    // Before counting cells: a second '*' is not a cell, and counting
    // it would blame the board's size for a misplaced mark.
    if rest.contains('*') {
        let first_row = first.chars().count();
        return Err(format!(
            "a Glop board has one '*', after its first row; this one has {} (the first after {first_row} cells)",
            inner.matches('*').count()
        ));
    }
    let first_len = first.chars().count();
    if first_len != cols as usize {
        return Err(format!(
            "the Glop board's first row has {first_len} cells; this board has {} columns \
             (a board with {first_len} columns needs cram:Rx{first_len})",
            cols
        ));
    }
    let cells = first_len + rest.chars().count();
    if cells != (rows * cols) as usize {
        return Err(format!(
            "the Glop board has {cells} cells; a {}x{} board has {}",
            rows,
            cols,
            rows * cols
        ));
    }
    let mut p = 0u64;
    for (sq, ch) in first.chars().chain(rest.chars()).enumerate() {
        match ch {
            '0' => {}
            'G' | 'g' => p |= 1u64 << sq,
            other => {
                return Err(format!(
                    "unexpected '{other}' in a Glop board (use '0' empty, 'G' covered, \
                     one '*' after the first row)"
                ))
            }
        }
    }
    Ok(p)
}

fn parse_picture(rows: u32, cols: u32, s: &str) -> Result<u64, String> {
    let lines: Vec<&str> = s.split('/').collect();
    if lines.len() != rows as usize {
        return Err(format!(
            "expected {rows} rows separated by '/', found {}",
            lines.len()
        ));
    }
    let mut p = 0u64;
    for (r, row) in lines.iter().enumerate() {
        let row = row.trim();
        let len = row.chars().count();
        if len != cols as usize {
            return Err(crate::games::row_length(r + 1, row, len, cols, "cells"));
        }
        for (c, ch) in row.chars().enumerate() {
            match ch {
                '.' => {}
                '#' => p |= 1u64 << (r as u32 * cols + c as u32),
                other => {
                    return Err(format!(
                        "unexpected '{other}' (use '.' empty, '#' covered, '/' between rows; \
                         or Glop's B...E notation)"
                    ))
                }
            }
        }
    }
    Ok(p)
}

impl Game for Cram {
    type Position = CramPosition;
    type Move = CramMove;

    fn spec(&self) -> String {
        spec(self.rows, self.cols, self.misere)
    }

    fn file_stem(&self) -> String {
        format!(
            "cram-{}x{}{}",
            self.rows,
            self.cols,
            if self.misere { "-misere" } else { "" }
        )
    }

    fn index_scheme(&self) -> u16 {
        1
    }

    fn size(&self) -> u64 {
        1u64 << self.n
    }

    #[inline(always)]
    fn encode(&self, p: &CramPosition) -> u64 {
        u64::from(*p)
    }

    #[inline]
    fn decode(&self, index: u64) -> Option<CramPosition> {
        (index < self.size()).then_some(index as u32)
    }

    fn start(&self) -> CramPosition {
        0
    }

    #[inline]
    fn primitive(&self, p: &CramPosition) -> Option<Value> {
        if self.horizontal(*p) | self.vertical(*p) == 0 {
            Some(if self.misere { Value::Win } else { Value::Lose })
        } else {
            None
        }
    }

    fn moves(&self, p: &CramPosition) -> Vec<(CramMove, CramPosition)> {
        let h = self.horizontal(*p);
        let v = self.vertical(*p);
        let mut out = Vec::with_capacity((h.count_ones() + v.count_ones()) as usize);
        for s in 0..self.n {
            if h & (1 << s) != 0 {
                let m = CramMove {
                    a: s as u8,
                    b: (s + 1) as u8,
                };
                out.push((m, p | 3 << s));
            }
            if v & (1 << s) != 0 {
                let m = CramMove {
                    a: s as u8,
                    b: (s + self.cols) as u8,
                };
                out.push((m, p | 1 << s | 1 << (s + self.cols)));
            }
        }
        out
    }

    #[inline(always)]
    fn for_each_child_index(&self, p: &CramPosition, mut f: impl FnMut(u64)) {
        let base = u64::from(*p);
        let mut h = self.horizontal(*p);
        while h != 0 {
            let s = h.trailing_zeros();
            h &= h - 1;
            f(base | 3u64 << s);
        }
        let vertical = 1u64 | 1u64 << self.cols;
        let mut v = self.vertical(*p);
        while v != 0 {
            let s = v.trailing_zeros();
            v &= v - 1;
            f(base | vertical << s);
        }
    }

    #[inline]
    fn move_count(&self, p: &CramPosition) -> u64 {
        u64::from(self.horizontal(*p).count_ones() + self.vertical(*p).count_ones())
    }

    fn tier_count(&self) -> u32 {
        self.n + 1
    }

    /// Tier = number of empty cells; each move covers two.
    #[inline]
    fn tier(&self, p: &CramPosition) -> u32 {
        self.n - p.count_ones()
    }

    fn tier_units(&self, _tier: u32) -> u64 {
        1u64 << self.unit_bits
    }

    /// A unit fixes the top `unit_bits` bits of the mask to the unit number;
    /// the low bits run over every pattern with the remaining number of
    /// covered cells, in increasing order (Gosper's hack).
    #[inline]
    fn for_each_in_unit(&self, tier: u32, unit: u64, mut f: impl FnMut(u64, &CramPosition)) {
        if tier > self.n || unit >= 1u64 << self.unit_bits {
            return;
        }
        let low_bits = self.n - self.unit_bits;
        let covered = self.n - tier;
        let high_covered = unit.count_ones();
        if high_covered > covered || covered - high_covered > low_bits {
            return;
        }
        let k = covered - high_covered;
        let base = unit << low_bits;
        let limit = 1u64 << low_bits;
        let mut low: u64 = (1u64 << k) - 1;
        loop {
            let index = base | low;
            f(index, &(index as u32));
            if low == 0 {
                break;
            }
            low = next_combination(low);
            if low >= limit {
                break;
            }
        }
    }

    fn nimbers(&self) -> Result<(), String> {
        if self.misere {
            Err("nimbers are defined for normal play; this is misère Cram".into())
        } else {
            Ok(())
        }
    }

    /// Each move covers two of the n cells.
    fn max_remoteness(&self) -> u32 {
        self.n / 2
    }

    /// A nimber is at most the number of moves from its position, which is
    /// at most the number of dominoes that fit on the empty board.
    fn max_nimber(&self) -> u32 {
        self.move_count(&0) as u32
    }

    fn player_to_move(&self, _: &CramPosition) -> Option<u8> {
        None
    }

    fn parse_position(&self, s: &str) -> Result<CramPosition, String> {
        // At most 30 squares (MAX_SQUARES), so the mask fits.
        parse_board(self.rows, self.cols, s).map(|p| p as u32)
    }

    fn format_position(&self, p: &CramPosition) -> String {
        format_board(self.rows, self.cols, u64::from(*p))
    }

    fn format_move(&self, m: &CramMove) -> String {
        format!("{}-{}", m.a, m.b)
    }
}

/// Numbered squares; a domino is clicked as its two squares, either first.
impl View for Cram {
    fn board_view(&self, p: &CramPosition) -> BoardView {
        let mut view =
            BoardView::numbered_grid(self.rows, self.cols, |sq| square(u64::from(*p), sq))
                .with_moves(self, p, |m| vec![usize::from(m.a), usize::from(m.b)]);
        view.steps_any_order = true;
        view.join = Join::Span;
        view
    }
}

/// Drawn at the sizes its tables take.
impl crate::games::board::ForView for Cram {
    fn for_view(params: &str) -> Result<Cram, String> {
        Cram::from_params(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glop_examples_parse() {
        // The two examples from Glop's help: a board of 3 columns and 4 rows.
        let g = Cram::new(4, 3, false).unwrap();
        let p = g.parse_position("B000*0GG000000E").unwrap();
        assert_eq!(g.format_position(&p), ".../.##/.../...");
        assert_eq!(g.format_glop(&p), "B000*0GG000000E");
        let q = g.parse_position("B000*0GG00G00GE").unwrap();
        assert_eq!(g.format_position(&q), ".../.##/..#/..#");
        assert_eq!(g.parse_position(".../.##/..#/..#"), Ok(q));
        // Glop's board of 3 columns is not a 3-row board here.
        assert!(Cram::new(3, 4, false)
            .unwrap()
            .parse_position("B000*0GG000000E")
            .is_err());
        let one = Cram::new(1, 3, false).unwrap();
        assert_eq!(one.format_glop(&0b010), "B0G0*E");
        assert_eq!(one.parse_position("B0G0*E"), Ok(0b010));
    }

    #[test]
    fn bad_positions_are_one_line_errors() {
        let g = Cram::new(3, 3, false).unwrap();
        for s in [
            "",
            "...",
            "..././...",
            "..../.../...",
            ".x./.../...",
            "B000*000000",
            "000*000000E",
            "B000000000E",
            "B00*0000000E",
            "B000*00000E",
            "B000*000X00E",
            "B000*0000000E",
            "B",
            "BE",
            "B*E",
            "é/é/é",
        ] {
            let e = g.parse_position(s).unwrap_err();
            assert!(!e.contains('\n'), "{s}: {e}");
        }
        assert_eq!(g.parse_position(" .#./.../... "), Ok(0b10));
    }

    #[test]
    fn index_round_trips_and_moves_notation() {
        let g = Cram::new(3, 3, false).unwrap();
        assert_eq!(g.size(), 512);
        for i in 0..g.size() {
            let p = g.decode(i).unwrap();
            assert_eq!(g.encode(&p), i);
            assert_eq!(g.parse_position(&g.format_position(&p)), Ok(p));
            assert_eq!(g.parse_position(&g.format_glop(&p)), Ok(p));
        }
        assert_eq!(g.decode(512), None);
        let names: Vec<String> = g.moves(&0).iter().map(|(m, _)| g.format_move(m)).collect();
        assert_eq!(
            names,
            ["0-1", "0-3", "1-2", "1-4", "2-5", "3-4", "3-6", "4-5", "4-7", "5-8", "6-7", "7-8"]
        );
        assert_eq!(g.max_nimber(), 12);
        assert_eq!(g.max_remoteness(), 4);
    }

    #[test]
    fn child_indices_agree_with_moves() {
        for (r, c) in [(3, 4), (4, 3), (1, 7), (5, 1), (2, 5)] {
            let g = Cram::new(r, c, false).unwrap();
            for i in 0..g.size() {
                let p = g.decode(i).unwrap();
                let moves = g.moves(&p);
                assert_eq!(moves.is_empty(), g.primitive(&p).is_some());
                if moves.is_empty() {
                    continue;
                }
                let mut fast = Vec::new();
                g.for_each_child_index(&p, |c| fast.push(c));
                let mut slow: Vec<u64> = moves.iter().map(|(_, c)| g.encode(c)).collect();
                fast.sort_unstable();
                slow.sort_unstable();
                assert_eq!(fast, slow, "position {}", g.format_position(&p));
                assert_eq!(g.move_count(&p), slow.len() as u64);
                for (m, child) in &moves {
                    assert_eq!(g.tier(child) + 2, g.tier(&p));
                    assert_eq!(child ^ p, 1 << m.a | 1 << m.b);
                    assert!(m.b == m.a + 1 || u32::from(m.b) == u32::from(m.a) + g.cols());
                }
            }
        }
    }

    #[test]
    fn units_cover_every_index_once() {
        for (r, c) in [(3, 3), (1, 1), (1, 2), (2, 5), (4, 4)] {
            let g = Cram::new(r, c, false).unwrap();
            let mut seen = vec![0u8; g.size() as usize];
            for t in 0..g.tier_count() {
                for u in 0..g.tier_units(t) {
                    let mut last = None;
                    g.for_each_in_unit(t, u, |i, p| {
                        assert_eq!(g.encode(p), i);
                        assert_eq!(g.tier(p), t);
                        assert!(last < Some(i));
                        last = Some(i);
                        seen[i as usize] += 1;
                    });
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{r}x{c}");
        }
    }

    #[test]
    fn specs_are_canonical_and_bad_ones_refused() {
        let g = Cram::from_params("4X5:Misere").unwrap();
        assert_eq!(g.spec(), "cram:4x5:misere");
        assert_eq!(g.file_stem(), "cram-4x5-misere");
        assert_eq!(Cram::from_params("4x5:misere"), Ok(g));
        let g = Cram::from_params("4x5:normal").unwrap();
        assert_eq!(g.spec(), "cram:4x5");
        assert!(g.nimbers().is_ok());
        assert!(Cram::from_params("4x5:misere").unwrap().nimbers().is_err());
        for bad in [
            "",
            "5",
            "0x5",
            "5x0",
            "6x6",
            "1x31",
            "4x4:sideways",
            "axb",
            "-1x3",
            "4294967295x4294967295",
        ] {
            assert!(Cram::from_params(bad).is_err(), "{bad}");
        }
        assert!(Cram::from_params("5x6").is_ok());
        assert!(Cram::from_params("1x30").is_ok());
    }
}
