//! `retrograde play`: a human against the perfect player.

use super::open::open;
use super::output::describe;
use super::MAX_PLIES;
use anyhow::{bail, Result};
use retrograde::{PositionInfo, Tablebase};
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

/// The position drawn one row per line, if the notation has rows.
fn board(p: &PositionInfo) -> String {
    p.position
        .split('/')
        .map(|row| format!("    {row}"))
        .collect::<Vec<_>>()
        .join("\n")
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
    writeln!(
        out,
        "{} — you move {}. Type a move, 'hint' for every move's value, 'quit' to stop.",
        tb.header().spec,
        if human_first { "first" } else { "second" }
    )?;
    for _ in 0..MAX_PLIES {
        writeln!(out)?;
        writeln!(out, "{}", board(&info))?;
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
