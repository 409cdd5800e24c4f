//! The `board` of the API's answers (docs/SERVE-API.md): a game's
//! [`BoardView`] written as JSON. The view is the game's own
//! (`retrograde::games::View`, in the game's file), so this names no game: a
//! game added to the registry is drawn by the page with no change here.

use retrograde::games::board::{CellShape, CellState, Facing, Join, Labels, Layout, Shape};
use retrograde::games::BoardView;
use serde_json::{json, Value as Json};

/// The board's JSON: layout and size, how it is drawn, and its cells.
pub fn to_json(view: &BoardView) -> Json {
    let (layout, rows, cols, layers, pile) = match view.layout {
        Layout::Grid { rows, cols } => ("grid", rows, cols, 1, None),
        Layout::Layers { layers, rows, cols } => ("layers", rows, cols, layers, None),
        Layout::Number(n) => ("pile", 0, 0, 0, Some(n)),
    };
    json!({
        "layout": layout,
        "rows": rows,
        "cols": cols,
        "layers": layers,
        "gravity": view.gravity,
        "pile": pile,
        "steps_any_order": view.steps_any_order,
        "steps_join": match view.join {
            Join::None => "none",
            Join::Arrow => "arrow",
            Join::Span => "span",
        },
        "cell_shape": match view.cell_shape {
            CellShape::Square => "square",
            CellShape::Hole => "hole",
        },
        "labels": match view.labels {
            Labels::Squares => "squares",
            Labels::Coordinates => "coordinates",
            Labels::Columns => "columns",
        },
        "pieces": view.pieces.iter().map(|p| {
            let mut piece = json!({ "name": p.name, "shape": shape(p.shape) });
            if let Shape::Car(facing) = p.shape {
                piece["facing"] = json!(match facing {
                    Facing::Right => "right",
                    Facing::Up => "up",
                    Facing::Left => "left",
                    Facing::Down => "down",
                });
            }
            piece
        }).collect::<Vec<_>>(),
        "cells": view.cells.iter().map(|c| {
            let mut cell = json!({
                "layer": c.layer, "row": c.row, "col": c.col,
                "state": state(c.state), "label": c.label,
            });
            if let CellState::Exit(player) = c.state {
                cell["player"] = json!(player);
            }
            cell
        }).collect::<Vec<_>>(),
    })
}

fn shape(s: Shape) -> &'static str {
    match s {
        Shape::Cross => "cross",
        Shape::Ring => "ring",
        Shape::Disc => "disc",
        Shape::Token => "token",
        Shape::Car(_) => "car",
    }
}

fn state(s: CellState) -> &'static str {
    match s {
        CellState::Empty => "empty",
        CellState::Piece(0) => "p0",
        CellState::Piece(_) => "p1",
        CellState::Removed => "removed",
        CellState::Covered => "covered",
        CellState::Exit(_) => "exit",
    }
}

#[cfg(test)]
mod tests {
    use super::to_json;
    use retrograde::games::board::{Cell, CellState, Labels, Layout, Shape};
    use retrograde::games::{BoardView, View};
    use retrograde::{Game, Value};
    use serde_json::json;

    /// A game no part of the server or of `play` has heard of: two players
    /// claim the squares of a 2×2 board, and two in a row or column wins.
    #[derive(Clone)]
    struct Corners;

    /// Owner of each square: 0 nobody, 1 the sun, 2 the moon.
    type Squares = [u8; 4];

    const LINES: [[usize; 2]; 4] = [[0, 1], [2, 3], [0, 2], [1, 3]];
    const NAMES: [&str; 4] = ["a2", "b2", "a1", "b1"];

    fn count(p: &Squares, who: u8) -> usize {
        p.iter().filter(|&&s| s == who).count()
    }

    impl Game for Corners {
        type Position = Squares;
        type Move = usize;

        fn spec(&self) -> String {
            "corners".into()
        }
        fn file_stem(&self) -> String {
            "corners".into()
        }
        fn index_scheme(&self) -> u16 {
            1
        }
        fn size(&self) -> u64 {
            81
        }
        fn encode(&self, p: &Squares) -> u64 {
            p.iter().rev().fold(0, |i, &s| i * 3 + u64::from(s))
        }
        fn decode(&self, index: u64) -> Option<Squares> {
            let mut p = [0u8; 4];
            let mut i = index;
            for s in &mut p {
                *s = (i % 3) as u8;
                i /= 3;
            }
            let (sun, moon) = (count(&p, 1), count(&p, 2));
            let won = |who| LINES.iter().any(|l| l.iter().all(|&s| p[s] == who));
            (i == 0 && (sun == moon || sun == moon + 1) && !(won(1) && won(2))).then_some(p)
        }
        fn start(&self) -> Squares {
            [0; 4]
        }
        fn primitive(&self, p: &Squares) -> Option<Value> {
            let won = LINES.iter().any(|l| p[l[0]] != 0 && p[l[0]] == p[l[1]]);
            if won {
                Some(Value::Lose)
            } else {
                (count(p, 0) == 0).then_some(Value::Tie)
            }
        }
        fn moves(&self, p: &Squares) -> Vec<(usize, Squares)> {
            let me = 1 + self.player_to_move(p).unwrap_or(0);
            (0..4)
                .filter(|&s| p[s] == 0)
                .map(|s| {
                    let mut c = *p;
                    c[s] = me;
                    (s, c)
                })
                .collect()
        }
        fn tier_count(&self) -> u32 {
            5
        }
        fn tier(&self, p: &Squares) -> u32 {
            count(p, 0) as u32
        }
        fn max_remoteness(&self) -> u32 {
            4
        }
        fn player_to_move(&self, p: &Squares) -> Option<u8> {
            Some(u8::from(count(p, 1) > count(p, 2)))
        }
        fn parse_position(&self, s: &str) -> Result<Squares, String> {
            let mut p = [0u8; 4];
            let glyphs: Vec<char> = s.chars().filter(|&c| c != '/').collect();
            if glyphs.len() != 4 {
                return Err("four squares".into());
            }
            for (sq, g) in p.iter_mut().zip(glyphs) {
                *sq = match g {
                    '-' => 0,
                    'S' => 1,
                    'M' => 2,
                    _ => return Err(format!("not a square: {g}")),
                };
            }
            Ok(p)
        }
        fn format_position(&self, p: &Squares) -> String {
            let g: String = p.iter().map(|&s| ['-', 'S', 'M'][usize::from(s)]).collect();
            format!("{}/{}", &g[..2], &g[2..])
        }
        fn format_move(&self, m: &usize) -> String {
            NAMES[*m].to_string()
        }
    }

    /// What the game's author writes to be drawn: the board in its own
    /// words, and each move's square.
    impl View for Corners {
        fn board_view(&self, p: &Squares) -> BoardView {
            let cells = (0..4)
                .map(|s| {
                    let state = match p[s] {
                        0 => CellState::Empty,
                        who => CellState::Piece(who - 1),
                    };
                    let glyph = ['-', 'S', 'M'][usize::from(p[s])];
                    Cell::square(0, s as u32 / 2, s as u32 % 2, state, NAMES[s].into(), glyph)
                })
                .collect();
            let mut view = BoardView::new(Layout::Grid { rows: 2, cols: 2 }, cells)
                .with_pieces([("sun", Shape::Token), ("moon", Shape::Disc)])
                .with_moves(self, p, |&s| vec![s]);
            view.labels = Labels::Coordinates;
            view
        }
    }

    /// A new game is drawn by the page and by `play` from its view alone:
    /// nothing in the server, the page or `play` names it.
    #[test]
    fn a_game_outside_the_registry_is_served_and_played_from_its_view() {
        let g = Corners;
        assert!(retrograde::testing::check_view(&g) > 20);
        let p = g.parse_position("S-/-M").unwrap();
        let view = g.board_view(&p);
        let j = to_json(&view);
        assert_eq!(
            (&j["layout"], &j["rows"], &j["cols"], &j["labels"]),
            (&json!("grid"), &json!(2), &json!(2), &json!("coordinates"))
        );
        assert_eq!(
            j["pieces"],
            json!([{"name": "sun", "shape": "token"}, {"name": "moon", "shape": "disc"}])
        );
        assert_eq!(
            j["cells"][3],
            json!({"layer": 0, "row": 1, "col": 1, "state": "p1", "label": "b1"})
        );
        assert_eq!(view.steps("b2"), [1]);
        assert_eq!(view.steps("a1"), [2]);
        assert_eq!(
            crate::cli::play::draw(&view).unwrap(),
            ["2  S -", "1  - M", "   a b"]
        );
    }

    /// Exits carry their player, and every kind of board its fields.
    #[test]
    fn the_json_says_how_to_draw_each_board() {
        let game = retrograde::AnyGame::parse("dodgem:3").unwrap();
        let j = to_json(&game.view("b../b../.rr b").unwrap());
        assert_eq!(
            j["cells"][9],
            json!({"layer": 0, "row": 0, "col": 3, "state": "exit", "label": "off", "player": 0})
        );
        assert_eq!(j["cells"][12]["player"], 1);
        assert_eq!(
            j["pieces"],
            json!([{"name": "blue", "shape": "car", "facing": "right"},
                   {"name": "red", "shape": "car", "facing": "up"}])
        );
        assert_eq!(j["steps_join"], "arrow");
        let game = retrograde::AnyGame::parse("connect:4x4").unwrap();
        let j = to_json(&game.view("-").unwrap());
        assert_eq!(
            (&j["cell_shape"], &j["labels"], &j["gravity"]),
            (&json!("hole"), &json!("columns"), &json!(true))
        );
        let game = retrograde::AnyGame::parse("digits:40").unwrap();
        let j = to_json(&game.view("17").unwrap());
        assert_eq!(
            (&j["layout"], &j["pile"], &j["cells"], &j["pieces"]),
            (&json!("pile"), &json!(17), &json!([]), &json!([]))
        );
    }
}
