//! `retrograde compare`: two tablebases of one game, entry by entry.

use super::open::{open_mapped, shown};
use super::output::{show, thousands};
use super::with_threads;
use anyhow::{Context, Result};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Compare two tablebases of the same game entry by entry (exit 0 only
/// when every position has the same value and remoteness).
#[derive(clap::Args)]
pub struct Args {
    /// First tablebase.
    a: PathBuf,
    /// Second tablebase.
    b: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    with_threads(args.threads, || compare(&args.a, &args.b, args.json))
}

fn compare(a: &Path, b: &Path, as_json: bool) -> Result<ExitCode> {
    let (ta, tb) = (open_mapped(a)?, open_mapped(b)?);
    let c = retrograde::internal::compare::compare(&ta, &tb)
        .with_context(|| format!("comparing {} and {}", shown(a), shown(b)))?;
    if as_json {
        println!(
            "{}",
            json!({
                "game": ta.header().spec,
                "positions": c.positions,
                "identical": c.identical(),
                "differ": {"value": c.value, "remoteness": c.remoteness, "nimber": c.nimber, "missing": c.missing},
                "first": c.first.iter().map(|(p, x, y)| json!({"position": p, "a": show(*x), "b": show(*y)})).collect::<Vec<_>>(),
            })
        );
    } else {
        println!("game        {}", ta.header().spec);
        println!("positions   {}", thousands(c.positions));
        if c.identical() {
            println!("identical   every position has the same value and remoteness");
        } else {
            println!(
                "differ      value {}, remoteness {}, nimber {}, answered by one file only {}",
                thousands(c.value),
                thousands(c.remoteness),
                thousands(c.nimber),
                thousands(c.missing)
            );
            for (p, x, y) in &c.first {
                println!("  {p}: {} vs {}", show(*x), show(*y));
            }
        }
    }
    Ok(if c.identical() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
