//! `retrograde play`: a human against the perfect player.

use super::color::{paint, paint_padded};
use super::open::open;
use super::output::{describe, move_result};
use super::MAX_PLIES;
use anyhow::{bail, Result};
use retrograde::games::board::{Cell, CellState, Labels, Layout};
use retrograde::games::{AnyGame, BoardView};
use retrograde::{PositionInfo, Tablebase};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Play against the perfect player in the terminal.
#[derive(clap::Args)]
pub struct Args {
    /// Tablebase file, or a game spec (`isolation:4x4`) whose table is
    /// found in --tables by the game in its header. An existing file wins
    /// over a spec of the same spelling.
    #[arg(value_name = "FILE|SPEC")]
    file: PathBuf,
    #[command(flatten)]
    tables: super::open::Tables,
    /// Start from this position (default: the game's start).
    position: Option<String>,
    /// Your side: `first` (you move first) or `second`.
    #[arg(long, default_value = "first")]
    side: String,
}

/// The position drawn with the names its moves are typed in, from the
/// game's board view (the one the explorer's page draws, so the terminal
/// and the page name squares alike): numbered squares with a key of the
/// numbers beside the board, squares named by file and rank with the ranks
/// left and the files below, columns with their names below, layers side
/// by side (bottom first), a pile as its number. A text the game does not
/// read back is drawn one notation row per line.
fn board(game: &AnyGame, position: &str) -> String {
    let lines = game
        .view(position)
        .ok()
        .and_then(|view| draw(&view))
        .unwrap_or_else(|| position.split('/').map(str::to_string).collect());
    lines
        .iter()
        .map(|l| format!("    {l}").trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The view's lines, or `None` where it has no squares to draw, or labels
/// that are not what it says they are.
pub(crate) fn draw(view: &BoardView) -> Option<Vec<String>> {
    if let Layout::Number(n) = view.layout {
        return Some(vec![n.to_string()]);
    }
    let squares: Vec<&Cell> = view
        .cells
        .iter()
        .filter(|c| !matches!(c.state, CellState::Exit(_)))
        .collect();
    match view.layout {
        Layout::Layers { .. } => layers(&squares, view.labels),
        _ => flat(&squares, view.labels),
    }
}

/// One grid of squares, named as `labels` says.
fn flat(squares: &[&Cell], labels: Labels) -> Option<Vec<String>> {
    if squares.is_empty() {
        return None;
    }
    match labels {
        Labels::Squares => Some(keyed(squares)),
        Labels::Columns => Some(columns(squares)),
        Labels::Coordinates => ranked(squares),
    }
}

/// Squares grouped by row, top first, each row in column order.
fn by_row<'a>(squares: &[&'a Cell]) -> Vec<Vec<&'a Cell>> {
    let mut rows: BTreeMap<i32, Vec<&Cell>> = BTreeMap::new();
    for &c in squares {
        rows.entry(c.row).or_default().push(c);
    }
    rows.into_values()
        .map(|mut r| {
            r.sort_by_key(|c| c.col);
            r
        })
        .collect()
}

fn joined(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(" ")
}

/// Numbered squares: the board, and beside it the same grid of square
/// numbers.
fn keyed(squares: &[&Cell]) -> Vec<String> {
    let w = squares.iter().map(|c| c.label.len()).max().unwrap_or(1);
    let rows = by_row(squares);
    let board_w = rows.iter().map(Vec::len).max().unwrap_or(0) * 2;
    rows.iter()
        .map(|r| {
            let left = joined(r.iter().map(|c| c.glyph.to_string()));
            let key = joined(r.iter().map(|c| format!("{:>w$}", c.label)));
            format!("{left:<board_w$}   {key}")
        })
        .collect()
}

/// Named columns: the board, and under it each column's name.
fn columns(squares: &[&Cell]) -> Vec<String> {
    let w = squares.iter().map(|c| c.label.len()).max().unwrap_or(1);
    let rows = by_row(squares);
    let mut lines: Vec<String> = rows
        .iter()
        .map(|r| joined(r.iter().map(|c| format!("{:>w$}", c.glyph))))
        .collect();
    if let Some(widest) = rows.iter().max_by_key(|r| r.len()) {
        lines.push(joined(widest.iter().map(|c| format!("{:>w$}", c.label))));
    }
    lines
}

/// Squares named file letter then rank: each row with its rank on the
/// left, the files underneath.
fn ranked(squares: &[&Cell]) -> Option<Vec<String>> {
    let split = |c: &Cell| -> Option<(char, String)> {
        let mut chars = c.label.chars();
        let file = chars.next().filter(char::is_ascii_alphabetic)?;
        let rank = chars.as_str();
        (!rank.is_empty()).then(|| (file, rank.to_string()))
    };
    let rows = by_row(squares);
    let rank_w = squares
        .iter()
        .filter_map(|c| split(c))
        .map(|(_, r)| r.len())
        .max()?;
    let mut lines = Vec::new();
    for r in &rows {
        let (_, rank) = split(r.first()?)?;
        let glyphs = joined(r.iter().map(|c| c.glyph.to_string()));
        lines.push(format!("{rank:>rank_w$}  {glyphs}"));
    }
    let widest = rows.iter().max_by_key(|r| r.len())?;
    let files = widest
        .iter()
        .map(|c| split(c).map(|(f, _)| f.to_string()))
        .collect::<Option<Vec<_>>>()?;
    lines.push(format!("{:rank_w$}  {}", "", files.join(" ")));
    Some(lines)
}

/// Layers: one grid per layer, side by side, bottom layer first.
fn layers(squares: &[&Cell], labels: Labels) -> Option<Vec<String>> {
    let mut by_layer: BTreeMap<u32, Vec<&Cell>> = BTreeMap::new();
    for &c in squares {
        by_layer.entry(c.layer).or_default().push(c);
    }
    let n = by_layer.len();
    let mut blocks = Vec::new();
    for (k, layer) in by_layer.values().enumerate() {
        let which = match k {
            _ if n == 1 => "",
            0 => " (bottom)",
            _ if k + 1 == n => " (top)",
            _ => "",
        };
        let mut block = vec![format!("layer {}{which}", k + 1)];
        block.extend(flat(layer, labels)?);
        blocks.push(block);
    }
    let height = blocks.iter().map(Vec::len).max()?;
    let mut lines = vec![String::new(); height];
    for block in &blocks {
        let w = block.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 4;
        for (i, line) in lines.iter_mut().enumerate() {
            let part = block.get(i).map_or("", String::as_str);
            line.push_str(&format!("{part:<w$}"));
        }
    }
    Some(lines)
}

/// An outcome of the player to move, as the human is told it after the
/// computer's move: `lose in 4`, or `lose, the game is over`.
fn for_the_one_to_move(o: retrograde::Outcome) -> String {
    match o.remoteness {
        Some(0) => format!("{}, the game is over", o.value),
        _ => o.to_string(),
    }
}

fn hint(p: &PositionInfo, out: &mut impl Write) -> Result<()> {
    writeln!(
        out,
        "  move        result for you   (remoteness after the move)"
    )?;
    for m in &p.moves {
        let o = m.for_mover();
        let mut value = move_result(o);
        if let Some(k) = m.nimber {
            value = format!("{value} (nimber {k} after)");
        }
        let line = format!(
            "  {:<10}  {} {}",
            m.mv,
            paint_padded(o.value, &value, 16),
            if m.best { "best" } else { "" }
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Plays from `start` (the game's start if `None`); the human moves first
/// when `human_first`. Reads moves from `input`, writes to `out`.
pub fn play_with(
    tb: &Tablebase,
    start: Option<&str>,
    human_first: bool,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let mut info = tb.probe_text(start, true)?;
    let mut human_to_move = human_first;
    writeln!(
        out,
        "{} — you move {}. Type a move, 'hint' for every move's value, 'quit' to stop.",
        tb.header().spec,
        if human_first { "first" } else { "second" }
    )?;
    for _ in 0..MAX_PLIES {
        writeln!(out)?;
        writeln!(out, "{}", board(tb.game(), &info.position))?;
        writeln!(out, "  {}", describe(&info))?;
        if info.moves.is_empty() {
            let mover_won = matches!(info.outcome.value, retrograde::Value::Win);
            let verdict = match info.outcome.value {
                retrograde::Value::Tie | retrograde::Value::Draw => "Game over: a tie.".to_string(),
                _ => {
                    let human_won = mover_won == human_to_move;
                    format!(
                        "Game over: {}.",
                        if human_won {
                            "you win"
                        } else {
                            "the computer wins"
                        }
                    )
                }
            };
            writeln!(out, "{verdict}")?;
            return Ok(ExitCode::SUCCESS);
        }
        if human_to_move {
            loop {
                write!(out, "your move> ")?;
                out.flush()?;
                let mut raw = Vec::new();
                if input.read_until(b'\n', &mut raw)? == 0 {
                    writeln!(out)?;
                    writeln!(out, "(end of input: game abandoned)")?;
                    return Ok(ExitCode::SUCCESS);
                }
                // A line that is not UTF-8 (a stray byte, another encoding)
                // is a typo to re-prompt for, not the end of the game.
                let Ok(line) = std::str::from_utf8(&raw) else {
                    writeln!(
                        out,
                        "that line is not valid UTF-8 text; type a move, 'hint' or 'quit'"
                    )?;
                    continue;
                };
                let typed = line.trim();
                match typed {
                    "" => continue,
                    "quit" | "q" | "exit" => {
                        writeln!(out, "Bye.")?;
                        return Ok(ExitCode::SUCCESS);
                    }
                    "hint" | "h" | "?" => {
                        hint(&info, out)?;
                        continue;
                    }
                    _ => {}
                }
                match info.moves.iter().find(|m| m.mv.eq_ignore_ascii_case(typed)) {
                    Some(m) => {
                        let o = m.for_mover();
                        writeln!(
                            out,
                            "you play {} (for you: {})",
                            m.mv,
                            paint(o.value, &move_result(o))
                        )?;
                        info = tb.probe_text(Some(&m.position.clone()), true)?;
                        break;
                    }
                    None => {
                        let some: Vec<&str> =
                            info.moves.iter().take(6).map(|m| m.mv.as_str()).collect();
                        writeln!(
                            out,
                            "{} is not a legal move here (legal moves include {}; 'hint' lists all {})",
                            retrograde::Error::quote(typed),
                            some.join(", "),
                            info.moves.len()
                        )?;
                    }
                }
            }
        } else {
            // The first best move: the shortest win, else a tie, else the
            // longest loss (the ranking probe_text gives).
            // Said as the human now stands: the position the move leads to
            // is the human's to move, so its outcome is the human's.
            let m = info.moves[0].clone();
            writeln!(
                out,
                "computer plays {} (for you: {})",
                m.mv,
                paint(m.child.value, &for_the_one_to_move(m.child))
            )?;
            info = tb.probe_text(Some(&m.position), true)?;
        }
        human_to_move = !human_to_move;
    }
    writeln!(
        out,
        "Stopped after {MAX_PLIES} moves (a drawn game never ends)."
    )?;
    Ok(ExitCode::SUCCESS)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let tb = open(&args.tables.resolve(&args.file)?)?;
    let human_first = match args.side.to_ascii_lowercase().as_str() {
        "first" | "1" | "0" | "player0" => true,
        "second" | "2" | "player1" => false,
        other => bail!(
            "--side must be 'first' or 'second', not {}",
            retrograde::Error::quote(other)
        ),
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    play_with(
        &tb,
        args.position.as_deref(),
        human_first,
        &mut stdin.lock(),
        &mut stdout.lock(),
    )
}

#[cfg(test)]
mod tests {
    use super::board;
    use retrograde::AnyGame;

    /// Each family's board carries the names its moves are typed in (it
    /// showed the notation's rows alone: "2x10" named squares nowhere on
    /// screen).
    #[test]
    fn boards_show_the_names_moves_are_typed_in() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "isolation:4x4",
                ".0../..../..x./..1.",
                "    . 0 . .     0  1  2  3
    . . . .     4  5  6  7
    . . x .     8  9 10 11
    . . 1 .    12 13 14 15",
            ),
            (
                "cram:3x3",
                "##./.../...",
                "    # # .    0 1 2
    . . .    3 4 5
    . . .    6 7 8",
            ),
            (
                "pattern:two-rows:squares=8:rows=4.4:lines=0.1.2",
                "x.o./.x..",
                "    x . o .    0 1 2 3
    . x . .    4 5 6 7",
            ),
            (
                "connect:4x4",
                "..../..../.o../oxx.",
                "    . . . .
    . . . .
    . o . .
    o x x .
    1 2 3 4",
            ),
            (
                "connect:10x2",
                "........../ox........",
                "     .  .  .  .  .  .  .  .  .  .
     o  x  .  .  .  .  .  .  .  .
     1  2  3  4  5  6  7  8  9 10",
            ),
            (
                "dodgem:3",
                "b../b../.rr b",
                "    3  b . .
    2  b . .
    1  . r r
       a b c",
            ),
            (
                "sogo:2",
                "../x.|../..",
                "    layer 1 (bottom)    layer 2 (top)
    2  . .              2  . .
    1  x .              1  . .
       a b                 a b",
            ),
            ("subtraction:20:1,3,4", "17", "    17"),
            // Text the game does not read: the notation's rows.
            ("mnk:3x3x3", "x?o/...", "    x?o\n    ..."),
        ];
        for (spec, position, drawn) in cases {
            let game = AnyGame::parse(spec).unwrap();
            assert_eq!(board(&game, position), *drawn, "{spec} {position}");
        }
    }
}
