//! `retrograde probe`: value and remoteness of positions, with their moves.

use super::color::paint;
use super::open::{named, open};
use super::output::{describe, move_result, outcome_json, position_json};
use anyhow::{bail, Context, Result};
use retrograde::PositionInfo;
use serde_json::{json, Value as Json};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Value and remoteness of positions (default: the start).
#[derive(clap::Args)]
pub struct Args {
    /// Tablebase file, or a game spec (`isolation:4x4`) whose table is
    /// found in --tables by the game in its header. An existing file wins
    /// over a spec of the same spelling.
    #[arg(value_name = "FILE|SPEC")]
    file: PathBuf,
    #[command(flatten)]
    tables: super::open::Tables,
    /// Positions in the game's notation; `-` reads one per line from
    /// standard input (so `-` is never a position here: Connect's and
    /// Sogo's empty board is `''`, or no position at all).
    positions: Vec<String>,
    /// List every legal move with its result, best first.
    #[arg(long)]
    moves: bool,
    /// Access advice for the file: `random` (no read-ahead: best
    /// for scattered probes of a cold file larger than memory) or
    /// `willneed` (read the whole file into the page cache first).
    #[arg(long, value_name = "ADVICE")]
    advise: Option<String>,
    /// Check the data CRC (read the whole file) before answering: a
    /// damaged file is then an error, not wrong answers.
    #[arg(long)]
    verify: bool,
    /// Print JSON (one object per line).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let Args {
        file,
        tables,
        positions,
        moves: with_moves,
        advise,
        verify,
        json: as_json,
    } = args;
    let file = tables.resolve(&file)?;
    let file = file.as_path();
    let advise = advise.as_deref();
    let tb = open(file)?;
    if verify {
        named(file, tb.verify())?;
    }
    match advise {
        None => {}
        Some("random") => tb.advise_random()?,
        Some("willneed") => tb.advise_willneed()?,
        Some(other) => bail!(
            "--advise must be 'random' or 'willneed', not {}",
            retrograde::Error::quote(other)
        ),
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failures = 0usize;
    let mut one = |text: Option<&str>, out: &mut dyn Write| -> Result<()> {
        match tb.probe_text(text, with_moves) {
            Ok(p) => {
                if as_json {
                    let mut j = position_json(&p);
                    if with_moves {
                        j["moves"] = moves_json(&p);
                    }
                    writeln!(out, "{j}")?;
                } else {
                    writeln!(out, "{}", describe(&p))?;
                    if with_moves {
                        print_moves(&p, out)?;
                    }
                }
            }
            Err(e) => {
                failures += 1;
                if as_json {
                    writeln!(out, "{}", json!({"position": text, "error": e.to_string()}))?;
                } else {
                    eprintln!("retrograde: error: {e}");
                }
            }
        }
        Ok(())
    };
    if positions.is_empty() {
        one(None, &mut out)?;
    }
    for p in &positions {
        if p == "-" {
            // `-` is standard input, as for most Unix tools; an input with
            // no position is an error, not a silent success, since the
            // caller asked for answers and got none.
            let mut read = 0usize;
            for line in std::io::stdin().lock().lines() {
                let line = line.context("reading positions from standard input")?;
                let line = line.trim();
                if !line.is_empty() {
                    read += 1;
                    one(Some(line), &mut out)?;
                }
            }
            if read == 0 {
                out.flush()?;
                bail!(
                    "'-' reads positions from standard input, and it held none \
                     (Connect's and Sogo's empty board is written '')"
                );
            }
        } else {
            one(Some(p), &mut out)?;
        }
    }
    out.flush()?;
    Ok(if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn moves_json(p: &PositionInfo) -> Json {
    Json::Array(
        p.moves
            .iter()
            .map(|m| {
                let (value, remoteness) = outcome_json(m.for_mover());
                json!({
                    "move": m.mv,
                    "position": m.position,
                    "value": value,
                    "remoteness": remoteness,
                    "nimber": m.nimber,
                    "best": m.best,
                })
            })
            .collect(),
    )
}

fn print_moves(p: &PositionInfo, out: &mut dyn Write) -> Result<()> {
    if p.moves.is_empty() {
        writeln!(out, "  no moves")?;
        return Ok(());
    }
    let w = p.moves.iter().map(|m| m.mv.len()).max().unwrap_or(4).max(4);
    let pw = p.moves[0].position.len().max(8);
    writeln!(out, "  {:<w$}  {:<pw$}  for the mover", "move", "position")?;
    for m in &p.moves {
        let o = m.for_mover();
        writeln!(
            out,
            "  {:<w$}  {:<pw$}  {}{}",
            m.mv,
            m.position,
            paint(o.value, &move_result(o)),
            if m.best { "  best" } else { "" }
        )?;
    }
    Ok(())
}
