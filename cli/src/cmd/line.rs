//! `retrograde line`: the principal line of perfect play.

use super::open::open;
use super::output::{describe, outcome_json, thousands};
use super::MAX_PLIES;
use anyhow::Result;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The principal line of perfect play from a position to the end.
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
    /// Print one JSON object per position.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let as_json = args.json;
    let tb = open(&args.tables.resolve(&args.file)?)?;
    let steps = tb.line(args.position.as_deref(), MAX_PLIES)?;
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
            let (value, remoteness) = outcome_json(p.outcome);
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
