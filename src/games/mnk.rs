//! m,n,k-games: K in a row on an R×C board, horizontally, vertically or
//! diagonally; tic-tac-toe is `mnk:3x3x3`.
//!
//! Spec `mnk:RxCxK` (1 ≤ R, C; 1 ≤ K ≤ max(R, C); R·C ≤ 25), and the alias
//! `tictactoe` for `mnk:3x3x3` (its canonical spec). Player 0 (`x`) moves
//! first; the first to own K squares in a line wins; a full board without
//! one is a tie.
//!
//! An m,n,k-game is a pattern game whose patterns are the K-square segments
//! of the board's lines: this file only lists them and builds a
//! [`PatternBoard`], which holds the rules, the index (scheme 1, or 2 with
//! the board's 8 or 4 symmetries folded in by `solve --fold`; see
//! [`crate::games::pattern`]), the tier walk and the notation.
//!
//! Notation: rows top to bottom separated by `/`, `.` empty, `x` player 0,
//! `o` player 1, e.g. `x.o/.x./...` (the `/` may be left out on input). A move
//! is the square number row·C + col, 0-based.

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "Players take turns putting their mark (x first, then o) on an empty square of an R×C board. The first to own K squares in a row, across, down or diagonally, wins; a full board with no such row is a tie. Tic-tac-toe is 3×3 with K = 3.";

use super::pattern::{impl_pattern_game, Layout, PatternBoard, MAX_SQUARES};

/// An m,n,k-game as its spec describes it (`RxCxK`), before a size limit:
/// the tables' ([`MAX_SQUARES`]) or the search's (256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    rows: u32,
    cols: u32,
    k: u32,
}

impl Params {
    /// Parses the parameters after `mnk:`, e.g. `4x4x4`.
    pub(crate) fn parse(params: &str) -> Result<Params, String> {
        let usage = || {
            format!(
                "expected a board and line length like 3x3x3 (RxCxK), found {}",
                crate::error::Error::quote(params)
            )
        };
        let mut parts = params.split(['x', 'X']);
        let (Some(r), Some(c), Some(k), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(usage());
        };
        let num = |t: &str| crate::games::parse_num::<u32>(t).ok_or_else(usage);
        Ok(Params {
            rows: num(r)?,
            cols: num(c)?,
            k: num(k)?,
        })
    }

    /// The board with its K-square segments of lines as the patterns, if it
    /// is not empty, has at most `max` squares and K fits it.
    pub(crate) fn layout(&self, max: u32) -> Result<Layout, String> {
        let Params { rows, cols, k } = *self;
        if rows == 0 || cols == 0 {
            return Err(format!(
                "board {rows}x{cols} is empty: rows and columns must be at least 1"
            ));
        }
        if rows.saturating_mul(cols) > max {
            return Err(format!(
                "board {rows}x{cols} has {} squares; at most {max} are supported",
                u64::from(rows) * u64::from(cols)
            ));
        }
        if k == 0 || k > rows.max(cols) {
            return Err(format!(
                "k = {k} in a row does not fit: on {rows}x{cols} k must be 1 to {}",
                rows.max(cols)
            ));
        }
        let (r, c, k) = (rows as i32, cols as i32, k as i32);
        let mut lines = Vec::new();
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
            for r0 in 0..r {
                for c0 in 0..c {
                    let (r1, c1) = (r0 + dr * (k - 1), c0 + dc * (k - 1));
                    if !(0..r).contains(&r1) || !(0..c).contains(&c1) {
                        continue;
                    }
                    lines.push(
                        (0..k)
                            .map(|i| ((r0 + dr * i) * c + c0 + dc * i) as u32)
                            .collect(),
                    );
                }
            }
        }
        Layout::new(
            rows * cols,
            &vec![cols; rows as usize],
            &lines,
            max,
            "",
            |i| format!("line {}", i + 1),
        )
    }

    /// The canonical spec, `mnk:RxCxK`.
    fn spec(&self) -> String {
        format!("mnk:{}x{}x{}", self.rows, self.cols, self.k)
    }
}

/// The search's face: up to 256 squares, the grid's symmetries.
#[cfg(feature = "solve")]
impl crate::games::placement::Placed for Params {
    fn words(&self) -> usize {
        crate::games::placement::words(u64::from(self.rows) * u64::from(self.cols))
    }

    fn placement(&self) -> Result<crate::games::placement::Placement, String> {
        let layout = self.layout(crate::games::placement::MAX_SQUARES)?;
        Ok(crate::games::placement::Placement {
            spec: self.spec(),
            squares: layout.squares(),
            patterns: layout.patterns().to_vec(),
            floor: None,
            symmetries: crate::games::symmetry::grid_perms(self.rows, self.cols),
            misere: false,
            notation: Box::new(layout),
        })
    }
}

/// An m,n,k-game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mnk {
    params: Params,
    board: PatternBoard,
}

impl_pattern_game!(Mnk);

impl Mnk {
    /// K in a row on `rows`×`cols`.
    pub fn new(rows: u32, cols: u32, k: u32) -> crate::Result<Mnk> {
        Mnk::from_description(Params { rows, cols, k }).map_err(crate::games::bad_parameters("mnk"))
    }

    /// Tic-tac-toe: `mnk:3x3x3`.
    pub fn tictactoe() -> Mnk {
        Mnk::new(3, 3, 3).expect("3x3x3 is a valid m,n,k-game")
    }

    /// Parses the parameters after `mnk:`, e.g. `4x4x4`.
    pub fn from_params(params: &str) -> Result<Mnk, String> {
        Mnk::from_description(Mnk::describe(params)?)
    }

    /// What `mnk:PARAMS` describes, before the tables' size limit.
    pub(crate) fn describe(params: &str) -> Result<Params, String> {
        Params::parse(params)
    }

    /// The table game of a description: at most [`MAX_SQUARES`] squares.
    pub(crate) fn from_description(params: Params) -> Result<Mnk, String> {
        let board = PatternBoard::from_layout(params.layout(MAX_SQUARES)?);
        Ok(Mnk { params, board })
    }

    /// Parses the parameters after the alias `tictactoe`: there are none.
    pub fn from_tictactoe_params(params: &str) -> Result<Mnk, String> {
        if params.is_empty() {
            Ok(Mnk::tictactoe())
        } else {
            Err(format!(
                "tictactoe takes no parameters, found {} (use mnk:RxCxK for other boards)",
                crate::error::Error::quote(params)
            ))
        }
    }

    /// Rows of the board.
    pub fn rows(&self) -> u32 {
        self.params.rows
    }

    /// Columns of the board.
    pub fn cols(&self) -> u32 {
        self.params.cols
    }

    /// Squares in a row needed to win.
    pub fn k(&self) -> u32 {
        self.params.k
    }

    /// The pattern board (the lines as patterns).
    pub fn board(&self) -> &PatternBoard {
        &self.board
    }

    fn canonical_spec(&self) -> String {
        self.params.spec()
    }

    fn stem(&self) -> String {
        self.params.spec().replacen(':', "-", 1)
    }
}

/// Drawn at the sizes its tables take.
impl crate::games::board::ForView for Mnk {
    fn for_view(params: &str) -> Result<Mnk, String> {
        Mnk::from_params(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::value::Value;

    #[test]
    fn line_counts() {
        // Tic-tac-toe: 3 rows, 3 columns, 2 diagonals.
        assert_eq!(Mnk::tictactoe().board().patterns().len(), 8);
        // 4x4x4: 4 + 4 + 2; 4x4x3: 8 + 8 + 4 + 4.
        assert_eq!(Mnk::new(4, 4, 4).unwrap().board().patterns().len(), 10);
        assert_eq!(Mnk::new(4, 4, 3).unwrap().board().patterns().len(), 24);
        // 2x4x3: only rows (2 per row); no column or diagonal has 3 squares.
        assert_eq!(Mnk::new(2, 4, 3).unwrap().board().patterns().len(), 4);
        // k = 1: every square.
        assert_eq!(Mnk::new(2, 3, 1).unwrap().board().patterns().len(), 6);
        assert_eq!(Mnk::tictactoe().size(), 6_046);
    }

    #[test]
    fn specs_and_bad_params() {
        let g = Mnk::from_params("4x4x4").unwrap();
        assert_eq!(g.spec(), "mnk:4x4x4");
        assert_eq!(g.file_stem(), "mnk-4x4x4");
        assert_eq!(Mnk::from_tictactoe_params("").unwrap().spec(), "mnk:3x3x3");
        for bad in [
            "", "3x3", "3x3x4", "0x3x1", "3x0x1", "5x6x3", "3x3x0", "axbxc", "3x3x3x3",
        ] {
            let e = Mnk::from_params(bad).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        assert!(Mnk::from_tictactoe_params("3x3").is_err());
        assert!(Mnk::new(1, 5, 5).is_ok());
        assert!(Mnk::new(5, 5, 5).is_ok());
    }

    #[test]
    fn notation() {
        let g = Mnk::new(2, 4, 3).unwrap();
        let p = g.parse_position("xx../oo..").unwrap();
        assert_eq!(g.format_position(&p), "xx../oo..");
        assert_eq!(g.player_to_move(&p), Some(0));
        assert_eq!(g.primitive(&p), None);
        let moves: Vec<String> = g.moves(&p).iter().map(|(m, _)| g.format_move(m)).collect();
        assert_eq!(moves, ["2", "3", "6", "7"]);
        let won = g.parse_position("xxx./oo..").unwrap();
        assert_eq!(g.primitive(&won), Some(Value::Lose));
        assert!(g.parse_position("xxx./ooo.").is_err());
        assert!(g.parse_position("xx./oo..").is_err());
    }

    #[test]
    fn units_cover_every_index_once_and_children_agree() {
        for g in [Mnk::new(3, 4, 3).unwrap(), Mnk::new(1, 5, 2).unwrap()] {
            let mut seen = vec![0u8; g.size() as usize];
            for t in 0..g.tier_count() {
                for u in 0..g.tier_units(t) {
                    g.for_each_in_unit(t, u, |i, p| {
                        assert_eq!(g.encode(p), i);
                        assert_eq!(g.tier(p), t);
                        seen[i as usize] += 1;
                        if g.primitive(p).is_none() {
                            let mut fast = Vec::new();
                            g.for_each_child_index(p, |c| fast.push(c));
                            let slow: Vec<u64> =
                                g.moves(p).iter().map(|(_, c)| g.encode(c)).collect();
                            assert_eq!(fast, slow);
                        }
                    });
                }
            }
            for (i, &c) in seen.iter().enumerate() {
                assert_eq!(u64::from(c), u64::from(g.decode(i as u64).is_some()));
            }
        }
    }
}
