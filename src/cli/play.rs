//! `retrograde play`: a human against the perfect player.

use super::open::open;
use super::output::describe;
use super::serve::board::{Board, Cell};
use super::MAX_PLIES;
use anyhow::{bail, Result};
use retrograde::{PositionInfo, Tablebase};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Play against the perfect player in the terminal.
#[derive(clap::Args)]
pub struct Args {
    /// Tablebase file.
    file: PathBuf,
    /// Start from this position (default: the game's start).
    position: Option<String>,
    /// Your side: `first` (you move first) or `second`.
    #[arg(long, default_value = "first")]
    side: String,
}

/// The position drawn with the names its moves are typed in: Isolation,
/// Cram, m,n,k and pattern boards with a key of square numbers beside them,
/// Connect with its column numbers below, Dodgem with ranks and files, Sogo
/// one grid per layer (bottom first) with ranks and files, and take-away
/// games as the pile's number. The squares and their names are the
/// explorer's (`serve`'s [`Board`], read from the same notation), so the
/// terminal and the page name squares alike. A position the board reader
/// does not know is drawn one notation row per line.
fn board(family: &str, position: &str) -> String {
    let drawn = match Board::of(family, position) {
        Some(b) if b.layout != "pile" => squares(&b, position).unwrap_or_default(),
        _ => Vec::new(),
    };
    let lines = if drawn.is_empty() {
        position.split('/').map(str::to_string).collect()
    } else {
        drawn
    };
    lines
        .iter()
        .map(|l| format!("    {l}").trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The board's lines, or `None` if its cells and the notation's characters
/// do not pair up one to one.
fn squares(b: &Board, position: &str) -> Option<Vec<String>> {
    // A Board lists its squares in the order of the notation's characters
    // (rows split by '/', layers by '|'; Dodgem's side to move follows a
    // space), so the n-th character is the n-th square's content.
    let glyphs: Vec<char> = position
        .split(' ')
        .next()?
        .chars()
        .filter(|c| !matches!(c, '/' | '|'))
        .collect();
    let cells: Vec<&Cell> = b.cells.iter().filter(|c| c.state != "exit").collect();
    if cells.len() != glyphs.len() || cells.is_empty() {
        return None;
    }
    let sq: Vec<(&Cell, char)> = cells.into_iter().zip(glyphs).collect();
    let numbered = sq.iter().all(|(c, _)| c.label.parse::<u32>().is_ok());
    if b.layout == "layers" {
        layers(&sq)
    } else if b.gravity {
        Some(columns(&sq))
    } else if numbered {
        Some(keyed(&sq))
    } else {
        ranked(&sq)
    }
}

/// Squares grouped by row, top first, each row in column order.
fn by_row<'a>(sq: &[(&'a Cell, char)]) -> Vec<Vec<(&'a Cell, char)>> {
    let mut rows: BTreeMap<i32, Vec<(&Cell, char)>> = BTreeMap::new();
    for &(c, g) in sq {
        rows.entry(c.row).or_default().push((c, g));
    }
    rows.into_values()
        .map(|mut r| {
            r.sort_by_key(|(c, _)| c.col);
            r
        })
        .collect()
}

fn joined(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(" ")
}

/// Numbered squares (Isolation, Cram, m,n,k, pattern games): the board,
/// and beside it the same grid of square numbers.
fn keyed(sq: &[(&Cell, char)]) -> Vec<String> {
    let w = sq.iter().map(|(c, _)| c.label.len()).max().unwrap_or(1);
    let rows = by_row(sq);
    let board_w = rows.iter().map(Vec::len).max().unwrap_or(0) * 2;
    rows.iter()
        .map(|r| {
            let left = joined(r.iter().map(|(_, g)| g.to_string()));
            let key = joined(r.iter().map(|(c, _)| format!("{:>w$}", c.label)));
            format!("{left:<board_w$}   {key}")
        })
        .collect()
}

/// Connect: the board, and under it each column's number.
fn columns(sq: &[(&Cell, char)]) -> Vec<String> {
    let w = sq.iter().map(|(c, _)| c.label.len()).max().unwrap_or(1);
    let rows = by_row(sq);
    let mut lines: Vec<String> = rows
        .iter()
        .map(|r| joined(r.iter().map(|(_, g)| format!("{g:>w$}"))))
        .collect();
    if let Some(widest) = rows.iter().max_by_key(|r| r.len()) {
        lines.push(joined(
            widest.iter().map(|(c, _)| format!("{:>w$}", c.label)),
        ));
    }
    lines
}

/// Squares named file letter then rank (Dodgem, a Sogo layer): each row
/// with its rank on the left, the files underneath.
fn ranked(sq: &[(&Cell, char)]) -> Option<Vec<String>> {
    let split = |c: &Cell| -> Option<(char, String)> {
        let mut chars = c.label.chars();
        let file = chars.next().filter(char::is_ascii_alphabetic)?;
        let rank = chars.as_str();
        (!rank.is_empty()).then(|| (file, rank.to_string()))
    };
    let rows = by_row(sq);
    let rank_w = sq
        .iter()
        .filter_map(|(c, _)| split(c))
        .map(|(_, r)| r.len())
        .max()?;
    let mut lines = Vec::new();
    for r in &rows {
        let (_, rank) = split(r.first()?.0)?;
        let glyphs = joined(r.iter().map(|(_, g)| g.to_string()));
        lines.push(format!("{rank:>rank_w$}  {glyphs}"));
    }
    let widest = rows.iter().max_by_key(|r| r.len())?;
    let files = widest
        .iter()
        .map(|(c, _)| split(c).map(|(f, _)| f.to_string()))
        .collect::<Option<Vec<_>>>()?;
    lines.push(format!("{:rank_w$}  {}", "", files.join(" ")));
    Some(lines)
}

/// Sogo: one ranked grid per layer, side by side, bottom layer first.
fn layers(sq: &[(&Cell, char)]) -> Option<Vec<String>> {
    let mut by_layer: BTreeMap<u32, Vec<(&Cell, char)>> = BTreeMap::new();
    for &(c, g) in sq {
        by_layer.entry(c.layer).or_default().push((c, g));
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
        block.extend(ranked(layer)?);
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

fn hint(p: &PositionInfo, out: &mut impl Write) -> Result<()> {
    writeln!(
        out,
        "  move        result for you   (remoteness after the move)"
    )?;
    for m in &p.moves {
        let mut value = m.for_mover().to_string();
        if let Some(k) = m.nimber {
            value = format!("{value} (nimber {k} after)");
        }
        let line = format!(
            "  {:<10}  {:<16} {}",
            m.mv,
            value,
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
    let spec = &tb.header().spec;
    let family = spec.split(':').next().unwrap_or_default();
    writeln!(
        out,
        "{} — you move {}. Type a move, 'hint' for every move's value, 'quit' to stop.",
        tb.header().spec,
        if human_first { "first" } else { "second" }
    )?;
    for _ in 0..MAX_PLIES {
        writeln!(out)?;
        writeln!(out, "{}", board(family, &info.position))?;
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
                        writeln!(out, "you play {}", m.mv)?;
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
            let m = info.moves[0].clone();
            writeln!(out, "computer plays {} ({})", m.mv, m.for_mover())?;
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
    let tb = open(&args.file)?;
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

    /// Each family's board carries the names its moves are typed in (it
    /// showed the notation's rows alone: "2x10" named squares nowhere on
    /// screen).
    #[test]
    fn boards_show_the_names_moves_are_typed_in() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "isolation",
                ".0../..../..x./..1.",
                "    . 0 . .     0  1  2  3
    . . . .     4  5  6  7
    . . x .     8  9 10 11
    . . 1 .    12 13 14 15",
            ),
            (
                "cram",
                "##./.../...",
                "    # # .    0 1 2
    . . .    3 4 5
    . . .    6 7 8",
            ),
            (
                "pattern",
                "x.o./.x..",
                "    x . o .    0 1 2 3
    . x . .    4 5 6 7",
            ),
            (
                "connect",
                "..../..../.o../oxx.",
                "    . . . .
    . . . .
    . o . .
    o x x .
    1 2 3 4",
            ),
            (
                "connect",
                "........../ox........",
                "     .  .  .  .  .  .  .  .  .  .
     o  x  .  .  .  .  .  .  .  .
     1  2  3  4  5  6  7  8  9 10",
            ),
            (
                "dodgem",
                "b../b../.rr b",
                "    3  b . .
    2  b . .
    1  . r r
       a b c",
            ),
            (
                "sogo",
                "../x.|../..",
                "    layer 1 (bottom)    layer 2 (top)
    2  . .              2  . .
    1  x .              1  . .
       a b                 a b",
            ),
            ("subtraction", "17", "    17"),
            // Text the board reader does not take: the notation's rows.
            ("mnk", "x?o/...", "    x?o\n    ..."),
        ];
        for (family, position, drawn) in cases {
            assert_eq!(board(family, position), *drawn, "{family} {position}");
        }
    }
}
