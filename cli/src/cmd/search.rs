//! `retrograde search`: proves the value of one position by proof-number
//! search (or an impartial position's nimber by component search), past the
//! sizes a table can hold, with tables as leaves and proof databases. The
//! search is the library's ([`retrograde::search::run`]); this file parses
//! the arguments, cancels the search on a signal, and prints.

use super::solve::parse_size;
use anyhow::{bail, Result};
use retrograde::internal::solve::input_files;
use retrograde::search::engine::{Counted, Stats};
use retrograde::search::games::AnySearch;
use retrograde::search::run::{
    self, Answer, CheckOutcome, Notice, Observer, SearchOptions, SearchReport, Searched,
};
use retrograde::search::{value_of, Cancel, Stop};
use retrograde::Error;
use serde_json::{json, Value as Json};
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
    /// Memory the transposition table (or the nimber memo) may grow to,
    /// e.g. 2G (default: 1G, or half the available memory if less; at least
    /// 1M). The table starts at 1M and doubles as it fills, so an easy
    /// position takes a few megabytes whatever the cap.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    memory: Option<u64>,
    /// Threads proving values together on one shared table (default: one
    /// per core). The value never depends on it; node counts do. The nimber
    /// search is one thread.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
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
    /// search is stopped by a limit or Ctrl-C. Sprouts keeps the proof of
    /// what it proved, or when stopped every couple or position it settled.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Also save to the --save FILE every this many seconds while the search
    /// runs, each time a whole database replacing the last: a run that dies
    /// leaves what it had proven, to resume from with --load.
    #[arg(long, value_name = "SECONDS", requires = "save")]
    save_every: Option<f64>,
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
    /// and report the position's value it holds (with --engine couples, a
    /// Cram region database is re-proved by couples: much faster for one
    /// that the couples engine saved).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["save", "load"])]
    check: Option<PathBuf>,
    /// Prove every distinct position (up to symmetry) after this many plies
    /// from the position, one after another: the values (or with --nimber
    /// the nimbers) of the openings.
    #[arg(long, value_name = "PLIES", conflicts_with = "check")]
    openings: Option<u32>,
    /// Also list every child of the position with its value, or with
    /// --nimber its nimber (Glop's Children tab: a child that loses is a
    /// winning move). Sprouts only, whose moves are written as the
    /// positions they lead to.
    #[arg(long, conflicts_with_all = ["check", "openings"])]
    moves: bool,
    /// Stop after this many seconds (looked at before every node, or
    /// component with --nimber: the search ends within one node of it).
    #[arg(long, value_name = "SECONDS")]
    time: Option<f64>,
    /// Stop after this many expanded nodes (components with --nimber):
    /// exactly that many, never one more.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// ε of df-pn's 1+ε trick, from 0.05 to 100 (default 0.25).
    #[arg(long, conflicts_with = "nimber")]
    epsilon: Option<f64>,
    /// The engine proving values: alphabeta (alpha-beta with null-window
    /// probes, on every thread), dfpn (proof-number search), or auto:
    /// alpha-beta for the gravity boards (connect, sogo up to 4), where it is
    /// fastest, df-pn elsewhere and whenever --epsilon or --save-every is
    /// given. Both take --threads and --memory. couples (normal-play Cram,
    /// values and --nimber): Lemoine and Viennot's method, proving only the
    /// couples region + *k a sum needs; one thread.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// `--engine`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum EngineArg {
    Auto,
    Dfpn,
    Alphabeta,
    Couples,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let game = AnySearch::parse(&args.game)?;
    let time_limit = match args.time {
        Some(t) if !(t > 0.0 && t < 1e9) => bail!("--time must be a positive number of seconds"),
        t => t.map(Duration::from_secs_f64),
    };
    let save_every = match args.save_every {
        Some(t) if !(t > 0.0 && t < 1e9) => {
            bail!("--save-every must be a positive number of seconds")
        }
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
        inputs: input_files(&args.game),
        cancel: Cancel::new(),
        threads: match args.threads {
            Some(0) => bail!("--threads must be at least 1"),
            Some(n) => n,
            None => 0,
        },
        save_every,
        engine: match args.engine {
            EngineArg::Auto => run::Engine::Auto,
            EngineArg::Dfpn => run::Engine::Dfpn,
            EngineArg::Alphabeta => run::Engine::AlphaBeta,
            EngineArg::Couples => run::Engine::Couples,
        },
        moves: args.moves,
    };
    let printer = Printer {
        args: &args,
        options: &options,
    };
    let _listening = Listening;
    if let Some(path) = &args.check {
        let c = run::check(&game, path, &options, &printer)?;
        if c.stopped.is_some() {
            eprintln!(
                "retrograde: {}: {}",
                Error::quote_path(path),
                c.text(&options)
            );
            return Ok(ExitCode::from(NOT_PROVEN));
        }
        match args.json {
            true => println!("{}", check_json(&c)),
            false => print!("{}", c.text(&options)),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = run::run(&game, &options, &printer)?;
    if report.results.is_empty() {
        // Listing can be stopped by any limit (one position may have
        // millions of children): say which.
        let by = report.stopped.map_or("a signal", |s| match s {
            Stop::Nodes => "--nodes",
            Stop::Time => "--time",
            Stop::Requested => "a signal",
            Stop::Depth | Stop::Memory => "--memory",
        });
        let what = if args.moves { "children" } else { "openings" };
        eprintln!("retrograde: stopped by {by} while listing the {what}; nothing was searched");
        return Ok(ExitCode::from(NOT_PROVEN));
    }
    // The result was printed before the save (Printer::proven); the save's
    // outcome comes after it.
    match (args.json, report.saved_text()) {
        (true, _) => println!("{}", report_json(&report, args.moves)),
        (false, Some(line)) => println!("{line}"),
        (false, None) => {}
    }
    if let Some(Err(e)) = &report.saved {
        bail!("the result above was not saved: {e}");
    }
    Ok(match report.proven {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(NOT_PROVEN),
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
    options: &'a SearchOptions,
}

impl Observer for Printer<'_> {
    fn started(&self) {
        if let Ok(mut r) = RUNNING.lock() {
            *r = Some(self.options.cancel.clone());
        }
    }

    fn progress(&self, s: &Stats) {
        if !self.args.quiet {
            eprintln!("{s}");
        }
    }

    fn notice(&self, notice: &Notice) {
        eprintln!("retrograde: {notice}");
    }

    fn proven(&self, report: &SearchReport) {
        if !self.args.json {
            print!("{}", report.text(self.options));
        }
    }
}

/// The report as JSON, with what was loaded and the save's outcome; with
/// `--moves`, the position's fields and its children as `moves`.
fn report_json(r: &SearchReport, moves: bool) -> Json {
    let seconds = r.elapsed.as_secs_f64();
    let mut out = json!({ "game": r.game });
    let s = &r.stats;
    merge(
        &mut out,
        match s.counted {
            Counted::ProofNumbers | Counted::AlphaBeta => json!({
                "nodes": s.nodes,
                "seconds": seconds,
                "nodes_per_second": s.nodes as f64 / r.node_seconds().max(1e-9),
                "table_entries": s.tt_capacity,
                "table_used": s.tt_used,
                "table_bytes": s.tt_bytes,
                "threads": s.threads,
                "leaf_hits": s.leaf_hits,
                "engine": r.engine.map(|e| e.name()),
            }),
            Counted::Components => json!({
                "components": s.nodes,
                "memo": s.tt_used,
                "leaf_hits": s.leaf_hits,
                "seconds": seconds,
            }),
        },
    );
    out["proven"] = json!(r.proven);
    out["stopped"] = json!(r.stopped.map(Stop::name));
    out["deepest"] = json!(s.deepest);
    if let (true, Some((root, children))) = (moves, r.results.split_first()) {
        merge(&mut out, position_json(root));
        out["moves"] = children.iter().map(position_json).collect();
    } else if r.openings {
        out["openings"] = r
            .results
            .iter()
            .map(|s| {
                let mut p = position_json(s);
                let counted = match s.answer {
                    Answer::Value { .. } => "nodes",
                    Answer::Nimber(_) => "components",
                };
                p[counted] = json!(s.nodes);
                p["seconds"] = json!(s.elapsed.as_secs_f64());
                p
            })
            .collect();
    } else if let Some(s) = r.results.first() {
        // The one position's fields beside the counters, which give its
        // nodes and time.
        merge(&mut out, position_json(s));
    }
    out["loaded"] = json!(r
        .loaded
        .as_ref()
        .map_or(0, |l| l.report.checked + l.report.trusted));
    if let Some(l) = &r.loaded {
        out["loaded_unchecked"] = json!(l.report.unchecked);
        out["loaded_trusted"] = json!(l.report.trusted);
        out["load_seconds"] = json!(l.elapsed.as_secs_f64());
    }
    let saved = r.saved.as_ref();
    out["saved"] = json!(saved.and_then(|s| s.as_ref().ok()).map(|s| s.entries));
    if let Some(Err(e)) = saved {
        out["save_error"] = json!(e.to_string());
    }
    out
}

/// What was proven of one position.
fn position_json(s: &Searched) -> Json {
    match &s.answer {
        Answer::Value { bounds, best_move } => json!({
            "position": s.position,
            "value": bounds.value().map(|v| v.name()),
            "bounds": {
                "at_least": value_of(bounds.lo).name(),
                "at_most": value_of(bounds.hi).name(),
            },
            "best_move": best_move,
        }),
        Answer::Nimber(n) => json!({
            "position": s.position,
            "nimber": n,
            "value": s.value().map(|v| v.name()),
        }),
    }
}

/// `--check --json`: what the database holds for the position.
fn check_json(c: &CheckOutcome) -> Json {
    json!({
        "game": c.game,
        "position": c.position,
        "checked": c.report.checked,
        "searched": c.report.searched,
        "entry": c.entry_text(),
        "seconds": c.elapsed.as_secs_f64(),
    })
}

/// Adds the fields of the object `more` to the object `out`.
fn merge(out: &mut Json, more: Json) {
    if let (Some(out), Json::Object(more)) = (out.as_object_mut(), more) {
        out.extend(more);
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
