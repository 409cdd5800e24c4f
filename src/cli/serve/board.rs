//! The board a page draws: a position's cells with their coordinates and
//! states, and for each move the cells a person clicks to make it.
//!
//! Everything here reads the game's notation (the canonical text the reader
//! prints), not the games' internal types: the notation is the one form every
//! family already documents and tests, so the page's board cannot disagree
//! with what `probe` prints.

use serde_json::{json, Value as Json};

/// One square (or, for Dodgem, an off-board exit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub layer: u32,
    /// From the top; -1 for Dodgem's exits above the board.
    pub row: i32,
    pub col: i32,
    pub state: &'static str,
    /// The square's name in the game's move notation.
    pub label: String,
}

/// A position as a page draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub layout: &'static str,
    pub rows: u32,
    pub cols: u32,
    pub layers: u32,
    pub gravity: bool,
    pub pile: Option<u64>,
    pub cells: Vec<Cell>,
    /// A move's steps may be clicked in any order (Cram: a domino's two
    /// squares are one move whichever is clicked first).
    pub steps_any_order: bool,
}

impl Board {
    pub fn to_json(&self) -> Json {
        json!({
            "layout": self.layout,
            "rows": self.rows,
            "cols": self.cols,
            "layers": self.layers,
            "gravity": self.gravity,
            "pile": self.pile,
            "steps_any_order": self.steps_any_order,
            "cells": self.cells.iter().map(|c| json!({
                "layer": c.layer, "row": c.row, "col": c.col,
                "state": c.state, "label": c.label,
            })).collect::<Vec<_>>(),
        })
    }

    /// The board of `position` (canonical notation) in `family`; `None` for
    /// a text this module cannot read (then the page shows no board, only
    /// the move list).
    pub fn of(family: &str, position: &str) -> Option<Board> {
        match family {
            "subtraction" | "digits" => Some(Board {
                layout: "pile",
                rows: 0,
                cols: 0,
                layers: 0,
                gravity: false,
                pile: Some(position.trim().parse().ok()?),
                cells: Vec::new(),
                steps_any_order: false,
            }),
            "sogo" => layered(position),
            "dodgem" => dodgem(position),
            "isolation" | "mnk" | "pattern" | "connect" | "cram" => {
                let mut board = grid(position, family == "connect", |ch| {
                    Some(match (family, ch) {
                        (_, '.') => "empty",
                        ("isolation", '0') => "p0",
                        ("isolation", '1') => "p1",
                        ("isolation", 'x') => "removed",
                        ("cram", '#') => "covered",
                        ("mnk" | "pattern" | "connect", 'x') => "p0",
                        ("mnk" | "pattern" | "connect", 'o') => "p1",
                        _ => return None,
                    })
                })?;
                board.steps_any_order = family == "cram";
                Some(board)
            }
            _ => None,
        }
    }

    /// The cells a person clicks, in order, to play `mv` (notation) from
    /// this board; empty where the move has no place on the board (take-away
    /// games) or the text is not understood.
    pub fn steps(&self, family: &str, mv: &str) -> Vec<usize> {
        self.try_steps(family, mv).unwrap_or_default()
    }

    fn try_steps(&self, family: &str, mv: &str) -> Option<Vec<usize>> {
        let square = |s: &str| -> Option<usize> {
            let k: usize = s.trim().parse().ok()?;
            (k < self.squares()).then_some(k)
        };
        match family {
            "isolation" => {
                let (to, removed) = mv.split_once('x')?;
                Some(vec![square(to)?, square(removed)?])
            }
            "cram" => {
                let (a, b) = mv.split_once('-')?;
                Some(vec![square(a)?, square(b)?])
            }
            "mnk" | "pattern" => Some(vec![square(mv)?]),
            "connect" => {
                // The disc lands on the lowest empty square of its column.
                let col = mv.trim().parse::<i32>().ok()? - 1;
                let landing = self
                    .cells
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.col == col && c.state == "empty")
                    .max_by_key(|(_, c)| c.row)?;
                Some(vec![landing.0])
            }
            "sogo" => {
                // The move names a column of the cube; the piece lands on
                // the lowest empty layer.
                let (row, col) = self.named_square(mv)?;
                let landing = self
                    .cells
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.row == row && c.col == col && c.state == "empty")
                    .min_by_key(|(_, c)| c.layer)?;
                Some(vec![landing.0])
            }
            "dodgem" => {
                let dir = mv.chars().last()?;
                let (row, col) = self.named_square(&mv[..mv.len() - dir.len_utf8()])?;
                let (dr, dc) = match dir {
                    '>' => (0, 1),
                    '<' => (0, -1),
                    '^' => (-1, 0),
                    'v' => (1, 0),
                    _ => return None,
                };
                let at = |r: i32, c: i32| self.cells.iter().position(|x| x.row == r && x.col == c);
                Some(vec![at(row, col)?, at(row + dr, col + dc)?])
            }
            _ => None,
        }
    }

    /// Squares on the board proper (Dodgem's exits excluded).
    fn squares(&self) -> usize {
        self.cells.iter().filter(|c| c.state != "exit").count()
    }

    /// Row (from the top) and column of a square named like `b2`: file
    /// letter, then rank counted from the bottom.
    fn named_square(&self, name: &str) -> Option<(i32, i32)> {
        let mut chars = name.chars();
        let file = chars.next()?;
        if !file.is_ascii_lowercase() {
            return None;
        }
        let rank: i32 = chars.as_str().parse().ok()?;
        let col = (file as u8 - b'a') as i32;
        let row = self.rows as i32 - rank;
        ((0..self.cols as i32).contains(&col) && (0..self.rows as i32).contains(&row))
            .then_some((row, col))
    }
}

/// Rows separated by '/', one character per square; rows may differ in
/// length (pattern files).
fn grid(text: &str, gravity: bool, state: impl Fn(char) -> Option<&'static str>) -> Option<Board> {
    let mut cells = Vec::new();
    let rows: Vec<&str> = text.trim().split('/').collect();
    let mut cols = 0;
    for (r, row) in rows.iter().enumerate() {
        cols = cols.max(row.chars().count());
        for (c, ch) in row.chars().enumerate() {
            let label = cells.len().to_string();
            cells.push(Cell {
                layer: 0,
                row: r as i32,
                col: c as i32,
                state: state(ch)?,
                label,
            });
        }
    }
    if gravity {
        // Connect's moves name columns, 1-based.
        for cell in &mut cells {
            cell.label = (cell.col + 1).to_string();
        }
    }
    Some(Board {
        layout: "grid",
        rows: rows.len() as u32,
        cols: cols as u32,
        layers: 1,
        gravity,
        pile: None,
        cells,
        steps_any_order: false,
    })
}

fn square_name(row: usize, col: usize, rows: usize) -> String {
    format!("{}{}", (b'a' + col as u8) as char, rows - row)
}

/// Sogo: layers bottom first separated by '|', each rows rank N to 1.
fn layered(text: &str) -> Option<Board> {
    let layers: Vec<&str> = text.trim().split('|').collect();
    let n = layers.len();
    let mut cells = Vec::new();
    for (l, layer) in layers.iter().enumerate() {
        let rows: Vec<&str> = layer.split('/').collect();
        if rows.len() != n {
            return None;
        }
        for (r, row) in rows.iter().enumerate() {
            if row.chars().count() != n {
                return None;
            }
            for (c, ch) in row.chars().enumerate() {
                cells.push(Cell {
                    layer: l as u32,
                    row: r as i32,
                    col: c as i32,
                    state: match ch {
                        '.' => "empty",
                        'x' => "p0",
                        'o' => "p1",
                        _ => return None,
                    },
                    label: square_name(r, c, n),
                });
            }
        }
    }
    Some(Board {
        layout: "layers",
        rows: n as u32,
        cols: n as u32,
        layers: n as u32,
        gravity: true,
        pile: None,
        cells,
        steps_any_order: false,
    })
}

/// Dodgem: an N×N grid then ` b` or ` r`; blue leaves the board off the
/// right edge, red off the top, so the exits are a column right of the board
/// and a row above it.
fn dodgem(text: &str) -> Option<Board> {
    let (grid_text, _side) = text.trim().rsplit_once(' ')?;
    let mut board = grid(grid_text, false, |ch| {
        Some(match ch {
            '.' => "empty",
            'b' => "p0",
            'r' => "p1",
            _ => return None,
        })
    })?;
    let n = board.rows as usize;
    if board.cells.len() != n * n || board.cols as usize != n {
        return None;
    }
    for cell in &mut board.cells {
        cell.label = square_name(cell.row as usize, cell.col as usize, n);
    }
    let exit = |row: i32, col: i32| Cell {
        layer: 0,
        row,
        col,
        state: "exit",
        label: "off".to_string(),
    };
    for r in 0..n as i32 {
        board.cells.push(exit(r, n as i32));
    }
    for c in 0..n as i32 {
        board.cells.push(exit(-1, c));
    }
    Some(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(b: &Board) -> String {
        b.cells
            .iter()
            .map(|c| match c.state {
                "empty" => '.',
                "p0" => '0',
                "p1" => '1',
                "removed" => 'x',
                "covered" => '#',
                "exit" => 'e',
                _ => '?',
            })
            .collect()
    }

    #[test]
    fn isolation_moves_click_the_square_stepped_to_then_the_one_removed() {
        let b = Board::of("isolation", ".0./.../.1.").unwrap();
        assert_eq!((b.rows, b.cols, b.layout), (3, 3, "grid"));
        assert_eq!(states(&b), ".0.....1.");
        assert_eq!(b.steps("isolation", "3x4"), vec![3, 4]);
        assert_eq!(b.steps("isolation", "3x9"), Vec::<usize>::new());
        let b = Board::of("isolation", ".../0x./.1.").unwrap();
        assert_eq!(b.cells[4].state, "removed");
    }

    #[test]
    fn connect_discs_land_on_the_lowest_empty_square() {
        let b = Board::of("connect", "..../..../.o../oxx.").unwrap();
        assert!(b.gravity);
        assert_eq!(b.steps("connect", "1"), vec![8]);
        assert_eq!(b.steps("connect", "2"), vec![5]);
        assert_eq!(b.steps("connect", "4"), vec![15]);
        assert_eq!(b.cells[13].label, "2");
        assert_eq!(b.steps("connect", "5"), Vec::<usize>::new());
    }

    #[test]
    fn sogo_pieces_land_on_the_lowest_empty_layer() {
        let b = Board::of("sogo", "../x.|../..").unwrap();
        assert_eq!((b.layout, b.layers, b.rows), ("layers", 2, 2));
        // a1 is the bottom-left square: row 1 of each layer.
        assert_eq!(b.cells[2].label, "a1");
        assert_eq!(b.steps("sogo", "a1"), vec![6]);
        assert_eq!(b.steps("sogo", "b2"), vec![1]);
    }

    #[test]
    fn dodgem_cars_move_to_a_neighbour_or_an_exit() {
        let b = Board::of("dodgem", "b../b../.rr b").unwrap();
        assert_eq!(b.cells.len(), 9 + 6);
        assert_eq!(states(&b), "0..0...11eeeeee");
        assert_eq!(b.steps("dodgem", "a3>"), vec![0, 1]);
        assert_eq!(b.steps("dodgem", "a2v"), vec![3, 6]);
        let b = Board::of("dodgem", "..b/.../.r. b").unwrap();
        // Blue off the right edge from c3; red from b1 up to b2.
        assert_eq!(b.steps("dodgem", "c3>"), vec![2, 9]);
        assert_eq!(b.steps("dodgem", "b1^"), vec![7, 4]);
        let b = Board::of("dodgem", ".r./.../... r").unwrap();
        assert_eq!(b.steps("dodgem", "b3^"), vec![1, 13]);
    }

    #[test]
    fn cram_dominoes_and_take_away_piles() {
        let b = Board::of("cram", "##./.../...").unwrap();
        assert_eq!(states(&b), "##.......");
        assert!(b.steps_any_order);
        assert!(
            !Board::of("isolation", ".0./.../.1.")
                .unwrap()
                .steps_any_order
        );
        assert_eq!(b.steps("cram", "2-5"), vec![2, 5]);
        let p = Board::of("subtraction", "17").unwrap();
        assert_eq!((p.layout, p.pile), ("pile", Some(17)));
        assert!(p.steps("subtraction", "3").is_empty());
    }

    #[test]
    fn text_that_is_not_a_board_gives_none() {
        assert_eq!(Board::of("mnk", "x?o"), None);
        assert_eq!(Board::of("sogo", "../..|.."), None);
        assert_eq!(Board::of("digits", "abc"), None);
        assert_eq!(Board::of("chess", "8/8"), None);
    }
}
