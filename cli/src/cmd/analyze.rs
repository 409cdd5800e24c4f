//! `retrograde analyze`: statistics of the positions reachable from the start.

use super::open::{open_mapped, shown};
use super::output::{outcome_json, thousands};
use super::with_threads;
use anyhow::{bail, Context, Result};
use retrograde::internal::analyze::{analyze_with, Analysis};
use retrograde::internal::format::{remove_stale_temporaries, stale_notice, TempFile};
use retrograde::internal::solve::{check_output, OutputLock};
use retrograde::{with_game, Value};
use serde_json::{json, Value as Json};
use std::io::Write;
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
    /// Also draw the remoteness histogram per value and the positions per
    /// tier as an SVG file (replaced whole, as a solve replaces its table).
    #[arg(long, value_name = "OUT.svg")]
    svg: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    with_threads(args.threads, || {
        analyze(&args.file, args.json, args.quiet, args.svg.as_deref())
    })
}

fn analyze(file: &Path, as_json: bool, quiet: bool, svg: Option<&Path>) -> Result<ExitCode> {
    // The output is checked and locked before the work, so a bad one is
    // refused at once rather than after the analysis.
    let target = svg.map(|out| SvgTarget::prepare(out, file)).transpose()?;
    let tb = open_mapped(file)?;
    let bar = super::progress::Bar::task("analyzing", !quiet);
    let a = with_game!(tb.game(), g => analyze_with(g, &tb, &bar));
    bar.finish();
    let a = a.with_context(|| format!("analyzing {}", shown(file)))?;
    let j = analysis_json(&a, &tb.header().spec);
    if let Some(t) = target {
        t.write(&super::chart::analysis_svg(&j))?;
    }
    if as_json {
        println!("{j}");
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

/// What `analyze --json` prints of `a`, an analysis of the game `spec`'s
/// table (the explorer serves the same object).
pub fn analysis_json(a: &Analysis, spec: &str) -> Json {
    let start = a.start.map(|o| {
        let (value, remoteness) = outcome_json(o);
        json!({"value": value, "remoteness": remoteness})
    });
    let hist = |v: Value| json!(a.histograms[v.ordinal()]);
    json!({
        "game": spec,
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

/// Where `--svg` writes: the output checked and locked (as a solve's), its
/// temporary file beside it, renamed over it once written.
struct SvgTarget {
    path: PathBuf,
    inputs: Vec<PathBuf>,
    _lock: OutputLock,
}

impl SvgTarget {
    fn prepare(out: &Path, table: &Path) -> Result<SvgTarget> {
        if out.as_os_str() == "-" {
            bail!("--svg needs a file name: the chart is not written to standard output");
        }
        let inputs = vec![table.to_path_buf()];
        let lock = OutputLock::acquire(out, &inputs)?;
        // Under the lock no other run writes this output: the temporaries
        // of killed runs can go.
        if let Some(notice) = stale_notice(&remove_stale_temporaries(out)) {
            eprintln!("retrograde: {notice}");
        }
        Ok(SvgTarget {
            path: out.to_path_buf(),
            inputs,
            _lock: lock,
        })
    }

    fn write(self, svg: &str) -> Result<()> {
        let named = |e: retrograde::Error| anyhow::anyhow!("{}: {e}", shown(&self.path));
        let tmp = TempFile::create_beside(&self.path).map_err(named)?;
        tmp.write(|w| w.write_all(svg.as_bytes()))
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", shown(&self.path)))?;
        // Checked again just before the rename: the path may have become
        // something else (a device, a link to the table) meanwhile.
        check_output(&self.path, &self.inputs)?;
        tmp.persist(&self.path).map_err(named)?;
        Ok(())
    }
}
