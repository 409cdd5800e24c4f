//! The Connect-Four family `connect:WxH[xK][:misere]`: the gravity board
//! ([`crate::games::gravity`]) on one row of columns, with its mixed-radix
//! index (index scheme 1; `solve --fold`, scheme 2, folds the left-right
//! mirror; both documented in the gravity module).
//!
//! Spec `connect:WxH[xK][:misere]`: W columns, H rows, K in a row (default
//! 4; canonical spec always includes K, e.g. `connect:4x4x4`).
//!
//! A position is written either as the columns played from the empty board,
//! 1-based as Connect-Four solvers write them (`4453`; `-` or the empty
//! string for the empty board; separate numbers by spaces or commas when a
//! column number has two digits, e.g. `10,3,3`), or as a picture: rows top to
//! bottom separated by `/`, `.` empty, `x` player 0, `o` player 1, e.g.
//! `..../..../.o../oxx.` (= `2231` on 4×4). Positions are always printed as
//! pictures. A move is a column number 1..=W.

use super::gravity::{
    gravity_play, move_tokens, parse_rest, too_many_moves, Gravity, GravityIndex, GravityPosition,
};
use crate::game::Game;

/// The Connect-Four family: W columns of H rows, K in a row.
///
/// Equality includes the index: a mirror-folded game differs from the plain
/// one (same spec; the file header's flag tells them apart).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect {
    /// The board, which holds the index (plain or mirror-folded).
    board: Gravity,
}

impl Connect {
    /// Connect on `width` columns of `height` rows, `line` in a row.
    pub fn new(width: u32, height: u32, line: u32, misere: bool) -> Result<Connect, String> {
        Ok(Connect {
            board: Gravity::new(width, 1, height, line, misere, GravityIndex::MixedRadix)?,
        })
    }

    /// Parses the parameters after `connect:`, e.g. `4x4`, `5x4x3`,
    /// `4x4x4:misere`.
    pub fn from_params(params: &str) -> Result<Connect, String> {
        let (size, rest) = match params.split_once(':') {
            Some((s, r)) => (s, Some(r)),
            None => (params, None),
        };
        let usage = "expected connect:WxH or connect:WxHxK, e.g. connect:4x4 or connect:5x4x3";
        let wrong = || {
            format!(
                "bad board size {} ({usage})",
                crate::error::Error::quote(size)
            )
        };
        let mut nums = size.split(['x', 'X']).map(crate::games::parse_num::<u32>);
        let (w, h, k) = match (nums.next(), nums.next(), nums.next(), nums.next()) {
            (Some(Some(w)), Some(Some(h)), None, None) => (w, h, 4),
            (Some(Some(w)), Some(Some(h)), Some(Some(k)), None) => (w, h, k),
            _ => return Err(wrong()),
        };
        let misere = parse_rest(rest)?;
        Connect::new(w, h, k, misere)
    }

    /// The shared gravity board.
    pub fn board(&self) -> &Gravity {
        &self.board
    }

    /// Number of columns (W).
    pub fn width(&self) -> u32 {
        self.board.nx()
    }

    /// Number of rows (H).
    pub fn height(&self) -> u32 {
        self.board.height()
    }

    fn parse_moves(&self, s: &str) -> Result<GravityPosition, String> {
        let w = self.width();
        let mut moves = Vec::new();
        for (i, t) in move_tokens(s).enumerate() {
            if i as u32 >= self.board.cells() {
                return Err(too_many_moves(self.board.cells()));
            }
            match crate::games::parse_num::<u32>(t) {
                Some(c) if (1..=w).contains(&c) => moves.push(c - 1),
                _ => {
                    return Err(format!(
                        "move {} {} is not a column number 1..={w}",
                        i + 1,
                        crate::error::Error::quote(t)
                    ))
                }
            }
        }
        self.board.play_all(&moves, |c| format!("column {}", c + 1))
    }

    fn parse_picture(&self, s: &str) -> Result<GravityPosition, String> {
        let (w, h) = (self.width(), self.height());
        let pieces =
            Gravity::parse_cells(s, h, w, "picture", |r, c| self.board.cell(c, h - 1 - r))?;
        let p = GravityPosition { pieces };
        self.board.check(&p, |c| (c + 1).to_string())?;
        Ok(p)
    }
}

impl Game for Connect {
    type Position = GravityPosition;
    type Move = u8;

    fn spec(&self) -> String {
        format!(
            "connect:{}x{}x{}{}",
            self.width(),
            self.height(),
            self.board.line(),
            if self.board.misere() { ":misere" } else { "" }
        )
    }

    fn file_stem(&self) -> String {
        format!(
            "connect-{}x{}x{}{}{}",
            self.width(),
            self.height(),
            self.board.line(),
            if self.board.misere() { "-misere" } else { "" },
            if self.is_folded() { "-folded" } else { "" }
        )
    }

    gravity_play!();

    /// Moves (`4453`, `10,3,3`, `-` or empty) or a picture (`..../.o../oxx.`).
    fn parse_position(&self, s: &str) -> Result<GravityPosition, String> {
        let s = s.trim();
        if s.is_empty() || s == "-" {
            return Ok(GravityPosition::EMPTY);
        }
        // A picture has a '/' or a '.', or is all pieces (a full one-row
        // board); anything else is a move list, so `12a` blames the 'a' as
        // a move rather than counting rows of a picture.
        if s.contains(['/', '.']) || s.chars().all(|c| matches!(c, 'x' | 'o' | 'X' | 'O')) {
            self.parse_picture(s)
        } else {
            self.parse_moves(s)
        }
    }

    fn format_position(&self, p: &GravityPosition) -> String {
        let (w, h) = (self.width(), self.height());
        let mut s = String::with_capacity(((w + 1) * h) as usize);
        for r in (0..h).rev() {
            if r + 1 < h {
                s.push('/');
            }
            for c in 0..w {
                s.push(Gravity::cell_char(p, self.board.cell(c, r)));
            }
        }
        s
    }

    fn format_move(&self, m: &u8) -> String {
        (u32::from(*m) + 1).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn g(spec: &str) -> Connect {
        Connect::from_params(spec).unwrap()
    }

    #[test]
    fn sizes_and_specs() {
        assert_eq!(g("4x4").size(), 923_521);
        assert_eq!(g("5x4").size(), 28_629_151);
        assert_eq!(g("4x4").spec(), "connect:4x4x4");
        assert_eq!(g("4x4").file_stem(), "connect-4x4x4");
        assert_eq!(g("5x4x3:misere").spec(), "connect:5x4x3:misere");
        for spec in ["4x4", "3x3x3", "5x4x3:misere"] {
            let a = g(spec);
            let b = Connect::from_params(a.spec().split_once(':').unwrap().1).unwrap();
            assert_eq!(a, b);
        }
        // 4x4x4: 4 rows + 4 columns + 2 diagonals.
        assert_eq!(g("4x4").board().lines().len(), 10);
        assert_eq!(g("5x4").board().lines().len(), 8 + 5 + 4);
    }

    #[test]
    fn bad_params_are_refused() {
        for p in [
            "",
            "4",
            "4x",
            "axb",
            "4x4x4x4",
            "0x4",
            "4x0",
            "4x4x0",
            "4x4x5",
            "7x6",
            "8x8",
            "1x63x2",
            "1x40",
            "2x31x2",
            "4294967295x4294967295",
            "99999999999x4",
            "4x4:sideways",
            "-1x4",
        ] {
            assert!(Connect::from_params(p).is_err(), "{p}");
        }
        assert!(Connect::from_params("6x5").is_ok());
    }

    #[test]
    fn notation() {
        let c = g("4x4");
        let p = c.parse_position("2231").unwrap();
        assert_eq!(c.format_position(&p), "..../..../.o../oxx.");
        assert_eq!(c.parse_position("..../..../.o../oxx.").unwrap(), p);
        assert_eq!(c.parse_position("2 2,3 1").unwrap(), p);
        assert_eq!(c.parse_position("-").unwrap(), GravityPosition::EMPTY);
        assert_eq!(c.parse_position("").unwrap(), GravityPosition::EMPTY);
        assert_eq!(c.player_to_move(&p), Some(0));
        assert_eq!(c.format_move(&0), "1");
        for bad in [
            "5",
            "0",
            "11111",
            "a",
            "..../..../..../xx..",
            "..../..../x.../....",
            "..../..../..../...",
            "..../..../..../..x.x",
            "12121212",
            "o.../o.../o.../o...",
            "ox/../",
            "x..,",
            "x.../x.../x.../xooo/",
            "x.../x.../x.../x.oo",
            "..../..../..../xq..",
        ] {
            assert!(c.parse_position(bad).is_err(), "{bad}");
        }
        // Four x in a row with o to move: a lost position for o.
        let p = c.parse_position("1212121").unwrap();
        assert_eq!(c.primitive(&p), Some(Value::Lose));
        assert_eq!(c.moves(&p), vec![]);
        assert_eq!(c.parse_position("x.../xo../xo../xo..").unwrap(), p);
        // Wide boards take separated column numbers.
        let w = g("10x2x2");
        let p = w.parse_position("10,10").unwrap();
        assert_eq!(w.format_position(&p), ".........o/.........x");
    }
}
