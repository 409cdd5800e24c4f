//! `retrograde search`: proves the value of one position by proof-number
//! search (or an impartial position's nimber by component search), past the
//! sizes a table can hold, with tables as leaves and proof databases. The
//! search is the library's ([`retrograde::search::run`]); this file parses
//! the arguments, cancels the search on a signal, and prints.

use super::output::{human_bytes, thousands};
use super::solve::parse_size;
use anyhow::{anyhow, bail, Result};
use retrograde::search::dfpn::Stats;
use retrograde::search::games::AnySearch;
use retrograde::search::nimber::NimberStats;
use retrograde::search::proofdb::Fact;
use retrograde::search::run::{
    self, Answer, CheckOutcome, Loaded, Notice, Observer, SearchOptions, SearchReport,
};
use retrograde::search::{Bounds, Cancel, Stop};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

/// Exit status of a search stopped (by a limit or Ctrl-C) before it proved
/// the value: its own status, apart from 1 (an error) and 2 (clap's usage
/// errors: the command line does not parse).
const NOT_PROVEN: u8 = 3;

/// Prove the value of one position by search: win, lose or tie for the
/// player to move, at sizes past the tables (Connect-Four 7x6, mnk 15x15,
/// sogo:4, isolation:6x6, Cram past 30 squares, pattern files up to 256
/// squares). Exits 0 when proven, 3 when stopped first (a limit, Ctrl-C),
/// 1 on an error, 2 on a command line that does not parse.
#[derive(clap::Args)]
pub struct Args {
    /// Game spec, e.g. connect:7x6, mnk:5x5x4, sogo:4, pattern:games/qubic.txt, cram:5x7.
    game: String,
    /// Position in the game's notation (default: the start).
    position: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Memory for the transposition table (or the nimber memo), e.g. 2G
    /// (default: 1G, or half the available memory if less; at least 1M).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    memory: Option<u64>,
    /// Tables to answer positions from: any table of the searched game (same
    /// spec), and for Cram nimbers any `cram:RxC --nimbers` table (regions
    /// that fit it, in any placement and orientation).
    #[arg(long = "tablebase", value_name = "FILE", num_args = 1..)]
    tablebases: Vec<PathBuf>,
    /// Compute the nimber of an impartial position (Cram, take-away games)
    /// by summing independent components, instead of its win/lose value.
    #[arg(long)]
    nimber: bool,
    /// Keep the proven positions in FILE (a proof database), also when the
    /// search is stopped by a limit or Ctrl-C.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Start from the positions proven in FILE (a proof database).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    load: Vec<PathBuf>,
    /// Use the --load entries without re-proving them from their moves first
    /// (faster, above all for nimbers, whose re-proving costs about what
    /// computing them did); a wrong or forged database then gives wrong
    /// answers, and a warning says so.
    #[arg(long, requires = "load")]
    trust_load: bool,
    /// Re-prove every entry of the proof database FILE from its children,
    /// and report the position's value it holds.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["save", "load"])]
    check: Option<PathBuf>,
    /// Prove every distinct position (up to symmetry) after this many plies
    /// from the position, one after another: the values (or with --nimber
    /// the nimbers) of the openings.
    #[arg(long, value_name = "PLIES", conflicts_with = "check")]
    openings: Option<u32>,
    /// Stop after this many seconds (checked every 1,024 nodes, or 4,096
    /// components with --nimber).
    #[arg(long, value_name = "SECONDS")]
    time: Option<f64>,
    /// Stop after this many expanded nodes (components with --nimber):
    /// exactly that many, never one more.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// ε of the 1+ε trick, from 0.05 to 100 (default 0.25).
    #[arg(long, conflicts_with = "nimber")]
    epsilon: Option<f64>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let game = AnySearch::parse(&args.game).map_err(|e| anyhow!(e))?;
    let time_limit = match args.time {
        Some(t) if !(t > 0.0 && t < 1e9) => bail!("--time must be a positive number of seconds"),
        t => t.map(Duration::from_secs_f64),
    };
    let options = SearchOptions {
        position: args.position.clone(),
        nimber: args.nimber,
        memory: args.memory,
        epsilon: args.epsilon,
        node_limit: args.nodes,
        time_limit,
        tablebases: args.tablebases.clone(),
        load: args.load.clone(),
        trust_load: args.trust_load,
        save: args.save.clone(),
        openings: args.openings,
        inputs: retrograde::solve::output::input_files(&args.game),
        cancel: Cancel::new(),
    };
    let printer = Printer {
        args: &args,
        cancel: options.cancel.clone(),
    };
    let _listening = Listening;
    if let Some(path) = &args.check {
        let outcome = run::check(&game, path, &options, &printer)?;
        return print_check(&outcome, path, &args);
    }
    let report = run::run(&game, &options, &printer)?;
    if report.results.is_empty() {
        eprintln!("retrograde: stopped while listing the openings; nothing was searched");
        return Ok(ExitCode::from(NOT_PROVEN));
    }
    finish(&report, &args)?;
    Ok(if report.proven {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_PROVEN)
    })
}

/// The token of the search this process runs once it has started, for the
/// signal handler: a signal then cancels the search (which returns and
/// saves what it proved) instead of ending the process.
static RUNNING: Mutex<Option<Cancel>> = Mutex::new(None);

/// For the signal handler: cancels the running search, if one has started;
/// returns whether one had (else the handler ends the process at once).
pub fn request_stop() -> bool {
    let running = match RUNNING.lock() {
        Ok(r) => r.clone(),
        Err(p) => p.into_inner().clone(),
    };
    running.is_some_and(|c| {
        c.cancel();
        true
    })
}

/// Takes the running search's token off [`RUNNING`] when the command ends.
struct Listening;

impl Drop for Listening {
    fn drop(&mut self) {
        if let Ok(mut r) = RUNNING.lock() {
            *r = None;
        }
    }
}

/// The command line's [`Observer`]: progress lines and notices on stderr,
/// the text result on stdout before the save.
struct Printer<'a> {
    args: &'a Args,
    cancel: Cancel,
}

impl Observer for Printer<'_> {
    fn started(&self) {
        if let Ok(mut r) = RUNNING.lock() {
            *r = Some(self.cancel.clone());
        }
    }

    fn values(&self, s: &Stats) {
        if !self.args.quiet {
            eprintln!("{s}");
        }
    }

    fn nimbers(&self, s: &NimberStats) {
        if !self.args.quiet {
            eprintln!("{s}");
        }
    }

    fn notice(&self, notice: &Notice) {
        eprintln!("retrograde: {notice}");
    }

    fn proven(&self, report: &SearchReport) {
        if !self.args.json {
            print_text(report, self.args);
        }
    }
}

/// The text result, printed before the save.
fn print_text(r: &SearchReport, args: &Args) {
    println!("game        {}", r.game);
    for s in &r.results {
        match (&s.answer, r.openings) {
            (Answer::Value { bounds, .. }, true) => println!(
                "{:<40} {:<10} {:>12} nodes {:>9.2} s",
                s.position,
                bounds.describe(),
                thousands(s.nodes),
                s.elapsed.as_secs_f64()
            ),
            (Answer::Value { bounds, best_move }, false) => {
                println!("position    {}", s.position);
                println!("value       {}", bounds.describe());
                if let Some(m) = best_move {
                    println!("best move   {m}");
                }
            }
            (Answer::Nimber(n), true) => {
                let shown = match n {
                    Some(n) => format!("nimber {n} ({})", outcome(*n)),
                    None => "not proven".to_string(),
                };
                println!(
                    "{:<40} {:<18} {:>12} components {:>9.2} s",
                    s.position,
                    shown,
                    thousands(s.nodes),
                    s.elapsed.as_secs_f64()
                );
            }
            (Answer::Nimber(n), false) => {
                println!("position    {}", s.position);
                match n {
                    Some(n) => println!("nimber      {n} ({} for the player to move)", outcome(*n)),
                    None => println!("nimber      not proven (stopped)"),
                }
            }
        }
    }
    if let Some(stop) = r.stopped {
        println!(
            "stopped     {}",
            stop_note(stop, args, r.memory, r.counters.deepest())
        );
    }
    let seconds = r.elapsed.as_secs_f64();
    match &r.counters {
        run::Counters::Values(stats) => {
            let rate = stats.nodes as f64 / seconds.max(1e-9);
            println!(
                "nodes       {} in {seconds:.2} s ({}/s)",
                thousands(stats.nodes),
                thousands(rate as u64)
            );
            println!(
                "table       {} of {} entries used ({})",
                thousands(stats.tt_used),
                thousands(stats.tt_capacity),
                human_bytes(r.memory)
            );
            if !args.tablebases.is_empty() {
                println!(
                    "leaves      {} positions answered by tables",
                    thousands(stats.leaf_hits)
                );
            }
            print_loaded(r.loaded.as_ref(), "proven positions");
        }
        run::Counters::Nimbers(stats) => {
            println!(
                "components  {} searched, {} in memo, {} from tables, in {seconds:.2} s",
                thousands(stats.nodes),
                thousands(stats.memo),
                thousands(stats.leaf_hits),
            );
            print_loaded(r.loaded.as_ref(), "components");
        }
    }
}

/// The JSON result (with the save's outcome) or the text `saved` line,
/// then the save's error, if any, so that it comes after the result.
fn finish(r: &SearchReport, args: &Args) -> Result<()> {
    let saved = r.saved.as_ref().map(|s| s.as_ref());
    if args.json {
        let mut out = report_json(r);
        out["loaded"] = json!(r
            .loaded
            .as_ref()
            .map_or(0, |l| l.report.checked + l.report.trusted));
        if let Some(l) = &r.loaded {
            out["loaded_unchecked"] = json!(l.report.unchecked);
            out["loaded_trusted"] = json!(l.report.trusted);
            out["load_seconds"] = json!(l.elapsed.as_secs_f64());
        }
        out["saved"] = json!(saved.and_then(|s| s.ok()).map(|s| s.entries));
        if let Some(Err(e)) = saved {
            out["save_error"] = json!(e.to_string());
        }
        println!("{out}");
    } else if let Some(Ok(s)) = saved {
        let what = match r.counters {
            run::Counters::Values(_) => "proven positions",
            run::Counters::Nimbers(_) => "components",
        };
        println!(
            "saved       {} {what} to {} ({})",
            thousands(s.entries as u64),
            s.path.display(),
            human_bytes(s.bytes)
        );
    }
    match saved {
        Some(Err(e)) => Err(anyhow!("the result above was not saved: {e}")),
        _ => Ok(()),
    }
}

/// The report as JSON, before what was loaded and saved.
fn report_json(r: &SearchReport) -> serde_json::Value {
    let seconds = r.elapsed.as_secs_f64();
    let stopped = r.stopped.map(Stop::name);
    match &r.counters {
        run::Counters::Values(stats) => {
            let mut out = json!({
                "game": r.game,
                "nodes": stats.nodes,
                "seconds": seconds,
                "nodes_per_second": stats.nodes as f64 / seconds.max(1e-9),
                "table_entries": stats.tt_capacity,
                "table_used": stats.tt_used,
                "leaf_hits": stats.leaf_hits,
                "proven": r.proven,
                "stopped": stopped,
                "deepest": stats.deepest,
            });
            let positions = r.results.iter().map(|s| {
                let (bounds, best_move) = match &s.answer {
                    Answer::Value { bounds, best_move } => (*bounds, best_move.as_deref()),
                    Answer::Nimber(_) => (Bounds::UNKNOWN, None),
                };
                json!({
                    "position": s.position,
                    "value": bounds.value().map(|v| v.name()),
                    "bounds": bounds_json(bounds),
                    "best_move": best_move,
                    "nodes": s.nodes,
                    "seconds": s.elapsed.as_secs_f64(),
                })
            });
            if r.openings {
                out["openings"] = positions.collect();
            } else if let Some(first) = positions.into_iter().next() {
                for (k, v) in first.as_object().expect("an object") {
                    if k != "nodes" && k != "seconds" {
                        out[k] = v.clone();
                    }
                }
            }
            out
        }
        run::Counters::Nimbers(stats) => {
            let mut out = json!({
                "game": r.game,
                "components": stats.nodes,
                "memo": stats.memo,
                "leaf_hits": stats.leaf_hits,
                "seconds": seconds,
                "proven": r.proven,
                "stopped": stopped,
                "deepest": stats.deepest,
            });
            let nimber = |s: &run::Searched| match s.answer {
                Answer::Nimber(n) => n,
                Answer::Value { .. } => None,
            };
            if r.openings {
                out["openings"] = r
                    .results
                    .iter()
                    .map(|s| {
                        json!({
                            "position": s.position,
                            "nimber": nimber(s),
                            "value": nimber(s).map(outcome),
                            "components": s.nodes,
                            "seconds": s.elapsed.as_secs_f64(),
                        })
                    })
                    .collect();
            } else if let Some(s) = r.results.first() {
                out["position"] = json!(s.position);
                out["nimber"] = json!(nimber(s));
                out["value"] = json!(nimber(s).map(outcome));
            }
            out
        }
    }
}

/// `--check`: what the database holds for the position, or why the check
/// stopped (exit 3).
fn print_check(c: &CheckOutcome, path: &std::path::Path, args: &Args) -> Result<ExitCode> {
    if let Some(stop) = c.stopped {
        eprintln!(
            "retrograde: {}: the check was stopped {} before it finished ({} of {} entries re-proven)",
            retrograde::Error::quote_path(path),
            stop_note(stop, args, c.memory, c.deepest),
            thousands(c.report.checked),
            thousands(c.entries)
        );
        return Ok(ExitCode::from(NOT_PROVEN));
    }
    let shown = match c.entry {
        Some(Fact::Value(b)) => b.describe(),
        Some(Fact::Nimber(n)) => format!("nimber {n}"),
        None => "not in the database".to_string(),
    };
    if args.json {
        println!(
            "{}",
            json!({
                "game": c.game,
                "position": c.position,
                "checked": c.report.checked,
                "searched": c.report.searched,
                "entry": shown,
                "seconds": c.elapsed.as_secs_f64(),
            })
        );
    } else {
        println!("game        {}", c.game);
        println!(
            "checked     {} entries re-proven from their moves ({} children searched)",
            thousands(c.report.checked),
            thousands(c.report.searched)
        );
        println!("position    {}: {shown}", c.position);
        println!("time        {:.2} s", c.elapsed.as_secs_f64());
    }
    Ok(ExitCode::SUCCESS)
}

/// The `loaded` line, when something was loaded.
fn print_loaded(loaded: Option<&Loaded>, what: &str) {
    let Some(l) = loaded else { return };
    let seconds = l.elapsed.as_secs_f64();
    if l.report.trusted > 0 {
        println!(
            "loaded      {} {what}, not re-proven (--trust-load, {seconds:.2} s)",
            thousands(l.report.trusted),
        );
        return;
    }
    println!(
        "loaded      {} {what}, each re-proven from its moves ({} children searched, {seconds:.2} s)",
        thousands(l.report.checked),
        thousands(l.report.searched),
    );
    if l.report.unchecked > 0 {
        println!(
            "            {} more not re-proven before the stop: not used",
            thousands(l.report.unchecked)
        );
    }
}

/// What stopped a search, in words.
fn stop_note(stop: Stop, args: &Args, memory: u64, deepest: u64) -> String {
    match stop {
        Stop::Nodes => format!(
            "by --nodes {} (every one expanded)",
            thousands(args.nodes.unwrap_or(0))
        ),
        Stop::Time => format!("by --time {} s", args.time.unwrap_or(0.0)),
        Stop::Requested => "by a signal (Ctrl-C)".to_string(),
        Stop::Depth => format!(
            "a line {} plies deep filled the {} its path may hold (half of --memory, at least 64 MiB); give more --memory",
            thousands(deepest),
            human_bytes(retrograde::search::path_budget(memory))
        ),
    }
}

/// A nimber's outcome for the player to move.
fn outcome(n: u32) -> &'static str {
    if n == 0 {
        "lose"
    } else {
        "win"
    }
}

/// `--memory`: a size as `solve` reads it, and also 0, so that the
/// minimum check can say what was given and what is needed.
fn parse_memory(s: &str) -> std::result::Result<u64, String> {
    parse_size(s).or_else(|e| {
        let t = s.trim();
        let number = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let zero = number.trim().parse::<f64>() == Ok(0.0);
        if zero {
            Ok(0)
        } else {
            Err(e)
        }
    })
}

fn bounds_json(b: Bounds) -> serde_json::Value {
    let name = |s: i8| retrograde::search::value_of(s).name();
    json!({ "at_least": name(b.lo), "at_most": name(b.hi) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_zero_reaches_the_minimum_check() {
        assert_eq!(parse_memory("0"), Ok(0));
        assert_eq!(parse_memory("0K"), Ok(0));
        assert_eq!(parse_memory("65535"), Ok(65535));
        assert!(parse_memory("-1").is_err());
        assert!(parse_memory("x").is_err());
    }
}
