//! `retrograde analyze`: statistics of the positions reachable from the start.

use super::open::{open_mapped, shown};
use super::output::{outcome_json, thousands};
use super::with_threads;
use anyhow::{Context, Result};
use retrograde::internal::analyze::{analyze_with, Analysis};
use retrograde::{with_game, Mmap, Tablebase, Value};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Statistics of the positions reachable from the start.
#[derive(clap::Args)]
pub struct Args {
    /// Tablebase file.
    file: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// No progress bar (it is drawn on stderr only when that is a
    /// terminal).
    #[arg(short, long)]
    quiet: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    with_threads(args.threads, || analyze(&args.file, args.json, args.quiet))
}

fn analyze(file: &Path, as_json: bool, quiet: bool) -> Result<ExitCode> {
    let tb = open_mapped(file)?;
    let bar = super::progress::Bar::task("analyzing", !quiet);
    let a = with_game!(tb.game(), g => analyze_with(g, &tb, &bar));
    bar.finish();
    let a = a.with_context(|| format!("analyzing {}", shown(file)))?;
    if as_json {
        println!("{}", analysis_json(&a, &tb));
        return Ok(ExitCode::SUCCESS);
    }
    println!("game              {}", tb.header().spec);
    println!("reachable         {}", thousands(a.reachable));
    println!("primitive         {}", thousands(a.primitive));
    for v in Value::ALL {
        let c = a.counts[v.ordinal()];
        let np = retrograde::internal::analyze::non_primitive(&a, v);
        println!(
            "{:<17} {} ({} not primitive)",
            v.name(),
            thousands(c),
            thousands(np)
        );
    }
    println!("average moves     {:.3}", a.average_moves());
    if let Some(o) = a.start {
        println!("start             {o}");
    }
    let longest = a.histograms.iter().map(Vec::len).max().unwrap_or(0);
    if longest > 0 {
        println!("remoteness histogram (reachable positions):");
        println!("  {:>4}  {:>14}  {:>14}  {:>14}", "r", "win", "lose", "tie");
    }
    for r in 0..longest {
        let at = |v: Value| a.histograms[v.ordinal()].get(r).copied().unwrap_or(0);
        println!(
            "  {:>4}  {:>14}  {:>14}  {:>14}",
            r,
            thousands(at(Value::Win)),
            thousands(at(Value::Lose)),
            thousands(at(Value::Tie))
        );
    }
    if !a.nimbers.is_empty() {
        println!("nimber histogram (reachable positions):");
        for (k, c) in a.nimbers.iter().enumerate() {
            println!("  {k:>4}  {:>14}", thousands(*c));
        }
    }
    // The solver numbers tiers from the end of the game up (each move goes
    // to a lower tier or, in a loopy game, stays in its one tier), so the
    // order of play is the numbers' reverse: listed that way, and said.
    println!("positions per tier, in the order of play (the start's tier first; no move goes to a higher tier):");
    for (k, (t, c)) in a.tiers.iter().rev().enumerate() {
        println!(
            "  tier {t:>3}  {:>14}{}",
            thousands(*c),
            if k == 0 { "  (the start's tier)" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn analysis_json(a: &Analysis, tb: &Tablebase<Mmap>) -> Json {
    let start = a.start.map(|o| {
        let (value, remoteness) = outcome_json(o);
        json!({"value": value, "remoteness": remoteness})
    });
    let hist = |v: Value| json!(a.histograms[v.ordinal()]);
    json!({
        "game": tb.header().spec,
        "reachable": a.reachable,
        "win": a.counts[0],
        "lose": a.counts[1],
        "tie": a.counts[2],
        "draw": a.counts[3],
        "primitive": a.primitive,
        "win_not_primitive": retrograde::internal::analyze::non_primitive(a, Value::Win),
        "lose_not_primitive": retrograde::internal::analyze::non_primitive(a, Value::Lose),
        "total_moves": a.total_moves,
        "average_moves": a.average_moves(),
        "remoteness": {
            "win": hist(Value::Win), "lose": hist(Value::Lose), "tie": hist(Value::Tie),
        },
        "nimbers": (!a.nimbers.is_empty()).then(|| json!(a.nimbers)),
        "tiers": a.tiers.iter().map(|(t, c)| (t.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
        "start": start,
    })
}
