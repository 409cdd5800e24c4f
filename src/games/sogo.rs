//! Sogo (3-D Connect Four, "Score Four" family): `sogo:N[:misere]`.
//!
//! An N×N×N cube with gravity: N² vertical columns (pegs) of height N. A
//! move drops the mover's piece onto a column that is not full. Whoever first
//! has N in a row along any of the cube's lines wins: rows, columns and
//! pillars, the diagonals of every axis-parallel plane, and the 4 space
//! diagonals: ((N+2)³ − N³)/2 lines, 28 for N = 2 and 49 for N = 3. Player 0
//! (`x`) moves first; a full cube without a line is a tie. N is 1..=3.
//!
//! The board, move generation, tiers and index are the shared gravity board
//! of [`crate::games::gravity`], with its tight index (scheme 1, documented
//! there): positions with k pieces in one block, the column-height vector
//! ranked among those with k pieces, times the `C(k, ⌊k/2⌋)` colourings
//! ranked in colex order. Sizes: sogo:2 757 entries, sogo:3 6,676,791,201
//! (one byte each: a 6.4 GiB table). Only 752,074,159 of sogo:3's entries
//! are legal (most colourings give the player to move a line); it solves in
//! about 3 minutes on 2 cores: the first player wins in 9, and no position
//! is a tie (every full cube holds a line).
//!
//! `solve --fold` (index scheme 2, documented with the tight index) folds
//! the 8 symmetries of the N×N floor (rotations and reflections of the
//! columns, levels unchanged): a position is stored as its image whose
//! column heights are the smallest height code of their orbit, so its 8
//! images probe alike. sogo:2 242 entries, sogo:3 1,031,368,848 (983 MiB;
//! 103,367,805 legal), solved in under half a minute on 2 cores. sogo:1
//! has a single column and nothing to fold.
//!
//! Notation. Columns are named like chess squares: file letter `a`.. for x
//! (left to right) and rank number `1`.. for y (bottom to top of a diagram),
//! so `a1` is column 1, `b1` column 2, …, `a2` column N+1: column number
//! `x + N·y + 1`. A move is written `b2`; a position is the list of columns
//! played from the empty cube, either as squares (`a1b2b2`, separators
//! allowed) or as 1-based column numbers (`155`; with spaces or commas
//! between numbers above 9), `-` or empty for the empty cube. Positions are
//! printed as a picture of the N layers, bottom layer first, separated by
//! `|`; each layer is N rows from rank N (top) down to rank 1, separated by
//! `/`, cells `.` empty, `x` player 0, `o` player 1. For sogo:2 the position
//! `a1b2b2` (= `144`) is `.o/x.|.x/..`.

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "A cube of N×N pegs, N high. Players take turns dropping a piece (x first, then o) onto a peg that is not full; it rests on the pieces below. The first to have N in a row on any line of the cube (rows, columns, pillars, the diagonals of each plane and the four space diagonals) wins; a full cube with no line is a tie. With :misere, who makes a line first loses.";

use super::gravity::{
    gravity_play, move_tokens, parse_rest, too_many_moves, Geometry, Gravity, GravityPosition,
};
use crate::game::Game;
use crate::games::board::{BoardView, Cell, Labels, Layout, Shape, View};

/// Sogo as its spec describes it (`N[:misere]`), before a size limit: the
/// tables' (N ≤ 3) or the search's (N ≤ 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    side: u32,
    misere: bool,
}

impl Params {
    /// A cube of side `side`, at least 1.
    fn new(side: u32, misere: bool) -> Result<Params, String> {
        if side == 0 {
            return Err("the cube side must be at least 1".into());
        }
        Ok(Params { side, misere })
    }

    /// Parses the parameters after `sogo:`, e.g. `3` or `2:misere`.
    pub(crate) fn parse(params: &str) -> Result<Params, String> {
        let (size, rest) = match params.split_once(':') {
            Some((s, r)) => (s, Some(r)),
            None => (params, None),
        };
        let n: u32 = crate::games::parse_num(size).ok_or_else(|| {
            format!(
                "bad cube side {} (expected sogo:N, e.g. sogo:3)",
                crate::error::Error::quote(size)
            )
        })?;
        let misere = parse_rest(rest)?;
        Params::new(n, misere)
    }

    /// The cube's rules, if its side is at most `max`; `why` says why
    /// not, from the cell count.
    fn geometry(&self, max: u32, why: impl Fn(u64) -> String) -> Result<Geometry, String> {
        let n = self.side;
        if n > max {
            return Err(format!(
                "sogo:{n} is too large {} (N is 1..={max})",
                why(u64::from(n).pow(3))
            ));
        }
        Geometry::new(n, n, n, n, self.misere, 64)
    }
}

/// The search's face of Sogo: its description as a placement, read and
/// written with the table's notation.
#[cfg(feature = "solve")]
mod placed {
    use super::*;
    use crate::games::gravity;
    use crate::games::placement::{Placed, Placement};

    /// The search's face: cubes up to 4×4×4 (64 cells).
    impl Placed for Params {
        fn words(&self) -> usize {
            1
        }

        fn placement(&self) -> Result<Placement, String> {
            let g = self.geometry(4, |cells| {
                format!("for the search: {cells} cells, and its boards hold 64")
            })?;
            let notation = gravity::Notation {
                parse: parse_position,
                format: format_position,
                column: |g, c| column_name(g.nx(), c),
            };
            Ok(g.placement(spec(&g), notation))
        }
    }
}

/// The canonical spec, `sogo:N[:misere]`.
fn spec(g: &Geometry) -> String {
    format!("sogo:{}{}", g.nx(), if g.misere() { ":misere" } else { "" })
}

/// Name of column `c` (0-based) of a cube of side `n`, e.g. `b1`.
fn column_name(n: u32, c: u32) -> String {
    format!("{}{}", char::from(b'a' + (c % n) as u8), c / n + 1)
}

/// Squares (`a1b2b2`), column numbers (`155`), `-`/empty, or a layer
/// picture (`../x.|../..`).
fn parse_position(g: &Geometry, s: &str) -> Result<GravityPosition, String> {
    let s = s.trim();
    if s.is_empty() || s == "-" {
        return Ok(GravityPosition::EMPTY);
    }
    // A picture has a '|', '/' or '.' except sogo:1's "x" (the cube
    // of one cell holding x's piece); 'x' and 'o' are never file letters
    // (N <= 4), so text of cell characters only is a picture too.
    if s.contains(['|', '/', '.']) || s.chars().all(|c| matches!(c, 'x' | 'o' | 'X' | 'O')) {
        return parse_picture(g, s);
    }
    let moves = parse_moves(g, s)?;
    g.play_all(&moves, |c| format!("column {}", column_name(g.nx(), c)))
}

fn parse_moves(g: &Geometry, s: &str) -> Result<Vec<u32>, String> {
    let n = g.nx();
    let cols = n * n;
    let mut moves = Vec::new();
    if s.chars().any(|c| c.is_ascii_alphabetic()) {
        // Squares: a letter then a rank number, optional separators.
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let ch = chars[i];
            if ch.is_whitespace() || ch == ',' {
                i += 1;
                continue;
            }
            if moves.len() as u32 >= g.cells() {
                return Err(too_many_moves(g.cells()));
            }
            let which = moves.len() + 1;
            let file = ch.to_ascii_lowercase();
            if !file.is_ascii_lowercase() || (file as u32 - 'a' as u32) >= n {
                return Err(format!(
                    "move {which}: expected a file letter a..{} at '{ch}'",
                    char::from(b'a' + (n - 1) as u8)
                ));
            }
            i += 1;
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let rank: String = chars[start..i].iter().collect();
            match rank.parse::<u32>() {
                Ok(r) if (1..=n).contains(&r) => {
                    moves.push((r - 1) * n + (file as u32 - 'a' as u32));
                }
                _ => {
                    return Err(format!(
                        "move {which}: {} needs a rank number 1..={n}",
                        crate::error::Error::quote(&format!("{file}{rank}"))
                    ))
                }
            }
        }
    } else {
        for (i, t) in move_tokens(s).enumerate() {
            if i as u32 >= g.cells() {
                return Err(too_many_moves(g.cells()));
            }
            match crate::games::parse_num::<u32>(t) {
                Some(c) if (1..=cols).contains(&c) => moves.push(c - 1),
                _ => {
                    return Err(format!(
                        "move {} {} is not a column number 1..={cols}",
                        i + 1,
                        crate::error::Error::quote(t)
                    ))
                }
            }
        }
    }
    Ok(moves)
}

fn parse_picture(g: &Geometry, s: &str) -> Result<GravityPosition, String> {
    let n = g.nx();
    let layers: Vec<&str> = s.split('|').collect();
    if layers.len() != n as usize {
        return Err(format!(
            "expected {n} layers separated by '|' (bottom layer first), found {}",
            layers.len()
        ));
    }
    let mut pieces = [0u64; 2];
    for (z, layer) in layers.iter().enumerate() {
        let what = format!("layer {}", z + 1);
        let [a, b] = Geometry::parse_cells(layer.trim(), n, n, &what, |r, x| {
            g.cell((n - 1 - r) * n + x, z as u32)
        })?;
        pieces[0] |= a;
        pieces[1] |= b;
    }
    let p = GravityPosition { pieces };
    g.check(&p, |c| column_name(n, c))?;
    Ok(p)
}

/// Layers bottom first, `|` between them; each layer's rows from rank N
/// down to 1, `/` between them.
fn format_position(g: &Geometry, p: &GravityPosition) -> String {
    let n = g.nx();
    let mut s = String::new();
    for z in 0..n {
        if z > 0 {
            s.push('|');
        }
        for y in (0..n).rev() {
            if y + 1 < n {
                s.push('/');
            }
            for x in 0..n {
                s.push(Geometry::cell_char(p, g.cell(y * n + x, z)));
            }
        }
    }
    s
}

/// Sogo on an N×N×N cube.
///
/// Equality includes the index: a symmetry-folded game differs from the
/// plain one (same spec; the file header's flag tells them apart).
#[derive(Clone, Debug, PartialEq)]
pub struct Sogo {
    /// The board, which holds the index (plain or symmetry-folded).
    board: Gravity,
}

impl Sogo {
    /// Sogo with side `n` (1..=3).
    pub fn new(n: u32, misere: bool) -> crate::Result<Sogo> {
        Params::new(n, misere)
            .and_then(Sogo::from_description)
            .map_err(crate::games::bad_parameters("sogo"))
    }

    /// Parses the parameters after `sogo:`, e.g. `3` or `2:misere`.
    pub fn from_params(params: &str) -> Result<Sogo, String> {
        Sogo::from_description(Sogo::describe(params)?)
    }

    /// What `sogo:PARAMS` describes, before the tables' limit.
    pub(crate) fn describe(params: &str) -> Result<Params, String> {
        Params::parse(params)
    }

    /// The table game of a description: N at most 3.
    pub(crate) fn from_description(p: Params) -> Result<Sogo, String> {
        Ok(Sogo {
            board: Gravity::new(
                p.geometry(3, |cells| {
                    format!("to tabulate: {cells} cells and far more than 2^40 positions")
                })?,
                1,
            )?,
        })
    }

    /// The shared gravity board.
    pub fn board(&self) -> &Gravity {
        &self.board
    }

    /// Side of the cube.
    pub fn side(&self) -> u32 {
        self.board.nx()
    }

    /// Name of column `c` (0-based), e.g. `b1`.
    pub fn column_name(&self, c: u32) -> String {
        column_name(self.side(), c)
    }
}

impl Game for Sogo {
    type Position = GravityPosition;
    type Move = u8;

    fn spec(&self) -> String {
        spec(&self.board)
    }

    fn file_stem(&self) -> String {
        format!(
            "{}{}",
            spec(&self.board).replace(':', "-"),
            if self.is_folded() { "-folded" } else { "" }
        )
    }

    gravity_play!();

    /// Squares (`a1b2b2`), column numbers (`155`), `-`/empty, or a layer
    /// picture (`../x.|../..`).
    fn parse_position(&self, s: &str) -> Result<GravityPosition, String> {
        parse_position(&self.board, s)
    }

    fn format_position(&self, p: &GravityPosition) -> String {
        format_position(&self.board, p)
    }

    fn format_move(&self, m: &u8) -> String {
        self.column_name(u32::from(*m))
    }
}

/// The cube as its layers side by side, bottom first, each rank N at the
/// top; a move is clicked as the cell its piece lands in.
impl View for Sogo {
    fn board_view(&self, p: &GravityPosition) -> BoardView {
        let n = self.side();
        let mut cells = Vec::new();
        for z in 0..n {
            for row in 0..n {
                for x in 0..n {
                    let column = (n - 1 - row) * n + x;
                    let (state, glyph) = Geometry::cell_view(p, self.board.cell(column, z));
                    cells.push(Cell::square(
                        z,
                        row,
                        x,
                        state,
                        self.column_name(column),
                        glyph,
                    ));
                }
            }
        }
        let layout = Layout::Layers {
            layers: n,
            rows: n,
            cols: n,
        };
        let mut view = BoardView::new(layout, cells)
            .with_pieces([("x", Shape::Cross), ("o", Shape::Ring)])
            .with_moves(self, p, |&column| {
                let column = u32::from(column);
                let z = self.board.column_height(p, column);
                let (row, x) = (n - 1 - column / n, column % n);
                vec![(z * n * n + row * n + x) as usize]
            });
        view.gravity = true;
        view.labels = Labels::Coordinates;
        view
    }
}

/// Drawn at the sizes the search takes (up to the 4×4×4 cube, whose 64
/// cells are past the tables'): a board with no index.
impl crate::games::board::ForView for Sogo {
    fn for_view(params: &str) -> Result<Sogo, String> {
        let geometry = Sogo::describe(params)?.geometry(4, |cells| {
            format!("to draw: {cells} cells, and its boards hold 64")
        })?;
        Ok(Sogo {
            board: Gravity::for_view(geometry, 1)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn g(spec: &str) -> Sogo {
        Sogo::from_params(spec).unwrap()
    }

    #[test]
    fn sizes_lines_and_specs() {
        assert_eq!(g("2").size(), 757);
        assert_eq!(g("3").size(), 6_676_791_201);
        assert_eq!(g("2").board().lines().len(), 28);
        assert_eq!(g("3").board().lines().len(), 49);
        assert_eq!(g("1").board().lines().len(), 1);
        assert_eq!(g("3").spec(), "sogo:3");
        assert_eq!(g("2:misere").spec(), "sogo:2:misere");
        assert_eq!(g("2:misere").file_stem(), "sogo-2-misere");
        for bad in ["", "0", "4", "x", "3:sideways", "3x3"] {
            assert!(Sogo::from_params(bad).is_err(), "{bad}");
        }
    }

    /// Issue 11: sogo:1 printed its one-piece cube as `x`, which it then
    /// read as a square and refused ("bad position 'x'"), so `line` on a
    /// solved sogo:1 table failed. Every legal position of the small cubes,
    /// plain and folded, must read back from its own notation.
    #[test]
    fn every_position_reads_back_from_its_notation() {
        for spec in ["1", "1:misere", "2", "2:misere"] {
            let plain = g(spec);
            let mut games = vec![plain.clone()];
            games.extend(plain.folded().ok());
            for s in games {
                let mut legal = 0;
                for i in 0..s.size() {
                    let Some(p) = s.decode(i) else { continue };
                    let text = s.format_position(&p);
                    let q = s
                        .parse_position(&text)
                        .unwrap_or_else(|e| panic!("sogo:{spec} {i} '{text}': {e}"));
                    assert_eq!(s.encode(&q), i, "sogo:{spec} '{text}'");
                    legal += 1;
                }
                assert!(legal > 1, "sogo:{spec}");
            }
        }
        let one = g("1");
        let x = one.parse_position("x").unwrap();
        assert_eq!(one.format_position(&x), "x");
        assert_eq!(one.parse_position("a1"), Ok(x));
        assert_eq!(one.parse_position("X"), Ok(x));
        // An o alone is not a position: x moves first.
        assert!(one.parse_position("o").is_err());
        // A stray x among squares is still blamed as a square.
        let e = g("2").parse_position("a1x").unwrap_err();
        assert!(e.contains("move 2: expected a file letter"), "{e}");
    }

    #[test]
    fn folded_sizes_specs_and_refusals() {
        let plain = g("2:misere");
        let f = plain.folded().unwrap();
        assert_eq!(f.spec(), plain.spec());
        assert_eq!(f.file_stem(), "sogo-2-misere-folded");
        assert_eq!(g("3").folded().unwrap().file_stem(), "sogo-3-folded");
        assert_eq!((plain.index_scheme(), f.index_scheme()), (1, 2));
        assert!(f.is_folded() && !plain.is_folded());
        assert_ne!(f, plain);
        assert_eq!(f.unfolded(), plain);
        assert_eq!(plain.unfolded(), plain);
        assert_eq!(f.folded().unwrap(), f);
        assert_eq!(g("2").folded().unwrap().size(), 242);
        assert_eq!(g("3").folded().unwrap().size(), 1_031_368_848);
        let e = g("1").folded().unwrap_err();
        assert!(e.contains("single column"), "{e}");
    }

    #[test]
    fn notation() {
        let s = g("2");
        let p = s.parse_position("a1b2b2").unwrap();
        assert_eq!(s.format_position(&p), ".o/x.|.x/..");
        assert_eq!(s.parse_position(".o/x.|.x/..").unwrap(), p);
        assert_eq!(s.parse_position("144").unwrap(), p);
        assert_eq!(s.parse_position("a1, b2 b2").unwrap(), p);
        assert_eq!(s.format_move(&3), "b2");
        assert_eq!(s.player_to_move(&p), Some(1));
        let s3 = g("3");
        assert_eq!(s3.column_name(8), "c3");
        assert_eq!(
            s3.parse_position("c3").unwrap(),
            s3.parse_position("9").unwrap()
        );
        for bad in [
            "a3",
            "c1",
            "5",
            "0",
            "a1a1a1",
            "ab",
            "a",
            ".o/x.",
            "../..|../..|../..",
            "../..|x./..",
            "../x.|x./..",
            "../.q|../..",
            "a1b1a1b1a2",
        ] {
            assert!(s.parse_position(bad).is_err(), "{bad}");
        }
        // x completes the a1 pillar (2 in a row on a 2-cube): o to move loses.
        let p = s.parse_position("a1b1a1").unwrap();
        assert_eq!(s.primitive(&p), Some(Value::Lose));
    }
}
