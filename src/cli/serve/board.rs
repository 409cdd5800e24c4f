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
