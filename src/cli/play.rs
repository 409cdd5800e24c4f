//! `retrograde play`: a human against the perfect player, and `retrograde
//! line`: the principal line of perfect play.

use super::{describe, thousands};
use anyhow::{bail, Result};
use retrograde::{PositionInfo, Tablebase};
use serde_json::json;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

/// Draws can go on for ever; a line or a game stops after this many moves.
const MAX_PLIES: usize = 1000;

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

pub fn play(file: &Path, start: Option<&str>, side: &str) -> Result<ExitCode> {
    let tb = super::open(file)?;
    let human_first = match side.to_ascii_lowercase().as_str() {
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
        start,
        human_first,
        &mut stdin.lock(),
        &mut stdout.lock(),
    )
}

pub fn line(file: &Path, start: Option<&str>, as_json: bool) -> Result<ExitCode> {
    let tb = super::open(file)?;
    let steps = tb.line(start, MAX_PLIES)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // The ply column is as wide as its largest number ("1,000" is five).
    let width = thousands(steps.len().saturating_sub(1) as u64).len().max(4);
    let cut = steps.len() > MAX_PLIES
        && steps
            .last()
            .is_some_and(|(_, p)| p.moves.iter().any(|m| m.best));
    for (ply, (mv, p)) in steps.iter().enumerate() {
        if as_json {
            let (value, remoteness) = super::outcome_json(p.outcome);
            writeln!(
                out,
                "{}",
                json!({"ply": ply, "move": mv, "position": p.position, "to_move": p.to_move,
                       "value": value, "remoteness": remoteness, "nimber": p.nimber})
            )?;
        } else {
            writeln!(
                out,
                "{:>width$}  {:<10}  {}",
                thousands(ply as u64),
                mv.as_deref().unwrap_or("start"),
                describe(p)
            )?;
        }
    }
    if cut {
        // A drawn line never ends: say the listing was cut (on stderr for
        // JSON, so the stream stays one object per line).
        let note = format!(
            "(line cut after {} moves: perfect play from a drawn position never ends)",
            thousands(MAX_PLIES as u64)
        );
        if as_json {
            eprintln!("{note}");
        } else {
            writeln!(out, "{note}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
