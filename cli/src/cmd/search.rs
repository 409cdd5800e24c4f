//! `retrograde search`: proves the value of one position by proof-number
//! search (or an impartial position's nimber by component search), past the
//! sizes a table can hold, with tables as leaves and proof databases.

use super::output::{human_bytes, thousands};
use super::resources::memory_available;
use super::solve::parse_size;
use anyhow::{anyhow, bail, Context, Result};
use retrograde::search::dfpn::{Dfpn, Options, Stats};
use retrograde::search::games::AnySearch;
use retrograde::search::leaves::{NimberLeaves, TableLeaves, ValueLeaves};
use retrograde::search::nimber::{NimberSearch, NimberStats};
use retrograde::search::proofdb::{self, CheckReport, Fact, Kind, Merged, Record, SaveTarget};
use retrograde::search::{Bounds, Listening, SearchGame, Stop};
use retrograde::with_search;
use serde_json::json;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Exit status of a search stopped (by a limit or Ctrl-C) before it proved
/// the value: its own status, apart from 1 (an error) and 2 (clap's usage
/// errors: the command line does not parse).
const NOT_PROVEN: u8 = 3;

/// The smallest `--memory`: below it even a 16-square game's table thrashes
/// (`mnk:4x4x4` makes no progress in 64 KiB at the default ε; it is proven
/// in 2 s with 1 MiB).
const MIN_MEMORY: u64 = 1 << 20;

/// The smallest `--epsilon`: below it the 1+ε trick does not widen the
/// small thresholds and the search is plain df-pn, which re-expands the
/// same positions over and over once the table cannot hold its working set
/// (`connect:5x4` in 256 KiB: no progress in 30 s at ε 0 or 0.01, proven in
/// 6 s at 0.05).
const MIN_EPSILON: f64 = 0.05;

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
    with_search!(&game, g => search(g, &args))
}

fn search<G: SearchGame>(g: &G, args: &Args) -> Result<ExitCode> {
    let root = match &args.position {
        Some(s) => g.parse_position(s).map_err(|reason| {
            anyhow!(retrograde::Error::BadPosition {
                input: s.clone(),
                reason
            })
        })?,
        None => g.start(),
    };
    let epsilon = args.epsilon.unwrap_or(0.25);
    if !(MIN_EPSILON..=100.0).contains(&epsilon) {
        bail!(
            "--epsilon {epsilon}: must be from {MIN_EPSILON} to 100 (below {MIN_EPSILON} the search is plain df-pn, which re-expands the same positions without end once its table is full)"
        );
    }
    let time_limit = match args.time {
        Some(t) if !(t > 0.0 && t < 1e9) => bail!("--time must be a positive number of seconds"),
        t => t.map(Duration::from_secs_f64),
    };
    if args.nodes == Some(0) {
        bail!("--nodes 0: must be at least 1 (the nodes a search may expand)");
    }
    let memory = args.memory.unwrap_or_else(|| {
        let half = memory_available().map_or(1 << 30, |m| m / 2);
        half.clamp(MIN_MEMORY, 1 << 30)
    });
    if memory < MIN_MEMORY {
        bail!(
            "--memory {} bytes is too small: a search needs at least {} ({} bytes)",
            thousands(memory),
            human_bytes(MIN_MEMORY),
            thousands(MIN_MEMORY)
        );
    }
    if let Some(avail) = memory_available() {
        if memory > avail {
            bail!(
                "--memory {} is more than this machine has available ({})",
                human_bytes(memory),
                human_bytes(avail)
            );
        }
    }
    if args.nimber && !g.impartial() {
        bail!(
            "{}: --nimber needs an impartial game under normal play (Cram, take-away games)",
            g.spec()
        );
    }
    let target = save_target(args)?;
    let leaves = open_leaves(g, &args.tablebases, args.nimber)?;
    let _listening = Listening::start();
    let options = Options {
        memory,
        epsilon,
        node_limit: args.nodes,
        time_limit,
    };
    if let Some(path) = &args.check {
        return check(g, &root, path, &options, leaves.as_ref(), args);
    }
    let roots = match args.openings {
        None => vec![root.clone()],
        Some(k) => match openings(g, &root, k)? {
            Some(roots) => roots,
            None => {
                eprintln!("retrograde: stopped while listing the openings; nothing was searched");
                return Ok(ExitCode::from(NOT_PROVEN));
            }
        },
    };
    if args.nimber {
        return nimber(g, &roots, &options, leaves.as_ref(), target, args);
    }
    let quiet = args.quiet;
    let mut stall = Stall::default();
    let mut dfpn = Dfpn::new(g, options).with_progress(move |s: &Stats| {
        if !quiet {
            eprintln!("{}", progress_line(s));
        }
        if stall.update(s) {
            eprintln!("{STALL_WARNING}");
        }
    });
    if let Some(l) = &leaves {
        dfpn = dfpn.with_leaves(l.values());
    }
    // The records are consumed here, not kept through the search: those
    // re-proven are handed to the search.
    let loaded = load(g, args, Kind::Values, memory, time_limit, |db, stop| {
        if args.trust_load {
            Ok(proofdb::trust_values(db, &mut dfpn))
        } else {
            proofdb::verify_values(g, db, &mut dfpn, stop)
        }
    })?;
    let started = Instant::now();
    let mut results = Vec::new();
    let mut all_proven = true;
    for p in &roots {
        let t = Instant::now();
        let nodes_before = dfpn.stats().nodes;
        let proof = dfpn.prove(p);
        all_proven &= proof.value.is_some();
        results.push((p.clone(), proof, t.elapsed(), nodes_before));
        // Once stopped, every later proof would return at once, unproven.
        if dfpn.stop_reason().is_some() {
            break;
        }
    }
    // Openings after a stop were not searched.
    all_proven &= results.len() == roots.len();
    let stats = dfpn.stats();
    let stopped = dfpn.stop_reason().filter(|_| !all_proven);
    let elapsed = started.elapsed();
    let rate = stats.nodes as f64 / elapsed.as_secs_f64().max(1e-9);
    // The text result is printed before the save and the JSON one with the
    // save's outcome: a failed save never hides what was proven.
    let mut json_out = None;
    if args.json {
        let positions: Vec<_> = results
            .iter()
            .map(|(p, proof, t, before)| {
                json!({
                    "position": g.format_position(p),
                    "value": proof.value.map(|v| v.name()),
                    "bounds": bounds_json(proof.bounds),
                    "best_move": proof.best_move.as_ref().map(|m| g.format_move(m)),
                    "nodes": proof.stats.nodes - before,
                    "seconds": t.as_secs_f64(),
                })
            })
            .collect();
        let mut out = json!({
            "game": g.spec(),
            "nodes": stats.nodes,
            "seconds": elapsed.as_secs_f64(),
            "nodes_per_second": rate,
            "table_entries": stats.tt_capacity,
            "table_used": stats.tt_used,
            "leaf_hits": stats.leaf_hits,
            "proven": all_proven,
            "stopped": stopped.map(stop_name),
            "deepest": stats.deepest,
        });
        if args.openings.is_some() {
            out["openings"] = json!(positions);
        } else if let Some(first) = positions.into_iter().next() {
            for (k, v) in first.as_object().expect("an object") {
                if k != "nodes" && k != "seconds" {
                    out[k] = v.clone();
                }
            }
        }
        json_out = Some(out);
    } else {
        println!("game        {}", g.spec());
        for (p, proof, t, before) in &results {
            if args.openings.is_some() {
                println!(
                    "{:<40} {:<10} {:>12} nodes {:>9.2} s",
                    g.format_position(p),
                    describe(proof.bounds),
                    thousands(proof.stats.nodes - before),
                    t.as_secs_f64()
                );
                continue;
            }
            println!("position    {}", g.format_position(p));
            println!("value       {}", describe(proof.bounds));
            if let Some(m) = &proof.best_move {
                println!("best move   {}", g.format_move(m));
            }
        }
        if let Some(stop) = stopped {
            println!(
                "stopped     {}",
                stop_note(stop, args, memory, stats.deepest)
            );
        }
        println!(
            "nodes       {} in {:.2} s ({}/s)",
            thousands(stats.nodes),
            elapsed.as_secs_f64(),
            thousands(rate as u64)
        );
        println!(
            "table       {} of {} entries used ({})",
            thousands(stats.tt_used),
            thousands(stats.tt_capacity),
            human_bytes(memory)
        );
        if !args.tablebases.is_empty() {
            println!(
                "leaves      {} positions answered by tables",
                thousands(stats.leaf_hits)
            );
        }
        print_loaded(loaded.as_ref(), "proven positions");
    }
    let saved = target.map(|t| {
        let records = dfpn.proven().filter_map(|(key, b)| {
            Some(Record {
                key,
                fact: Fact::Value(b),
                pos: g.position_of_key(&key)?,
            })
        });
        save(g, t, Kind::Values, records)
    });
    finish(json_out, loaded.as_ref(), saved, args, "proven positions")?;
    Ok(status(all_proven))
}

/// The nimbers of impartial positions (the root, or the openings), by
/// component search, one memo shared by all of them.
fn nimber<G: SearchGame>(
    g: &G,
    roots: &[G::Pos],
    options: &Options,
    leaves: Option<&Leaves>,
    target: Option<SaveTarget>,
    args: &Args,
) -> Result<ExitCode> {
    let quiet = args.quiet;
    let view = leaves.map(Leaves::nimbers);
    let mut search = NimberSearch::new(g, options.memory)
        .with_time_limit(options.time_limit)
        .with_node_limit(options.node_limit)
        .with_progress(move |s: &NimberStats| {
            if !quiet {
                eprintln!(
                    "components {}  memo {}  table hits {}  {:.0} s",
                    thousands(s.nodes),
                    thousands(s.memo),
                    thousands(s.leaf_hits),
                    s.elapsed.as_secs_f64()
                );
            }
        });
    if let Some(v) = &view {
        search = search.with_leaves(v);
    }
    let loaded = load(
        g,
        args,
        Kind::Nimbers,
        options.memory,
        options.time_limit,
        |db, stop| {
            if args.trust_load {
                Ok(proofdb::trust_nimbers(db, &mut search))
            } else {
                proofdb::verify_nimbers(g, db, &mut search, stop)
            }
        },
    )?;
    let started = Instant::now();
    let mut results = Vec::new();
    for p in roots {
        let t = Instant::now();
        let before = search.stats().nodes;
        let n = search.nimber(p);
        results.push((p.clone(), n, t.elapsed(), search.stats().nodes - before));
        if search.stop_reason().is_some() {
            break;
        }
    }
    let all_proven = results.len() == roots.len() && results.iter().all(|r| r.1.is_some());
    let elapsed = started.elapsed();
    let stats = search.stats();
    let stopped = search.stop_reason().filter(|_| !all_proven);
    let outcome = |n: u32| if n == 0 { "lose" } else { "win" };
    // As for values: the text result before the save, the JSON with it.
    let mut json_out = None;
    if args.json {
        let mut out = json!({
            "game": g.spec(),
            "components": stats.nodes,
            "memo": stats.memo,
            "leaf_hits": stats.leaf_hits,
            "seconds": elapsed.as_secs_f64(),
            "proven": all_proven,
            "stopped": stopped.map(stop_name),
            "deepest": stats.deepest,
        });
        if args.openings.is_some() {
            out["openings"] = results
                .iter()
                .map(|(p, n, t, nodes)| {
                    json!({
                        "position": g.format_position(p),
                        "nimber": n,
                        "value": n.map(outcome),
                        "components": nodes,
                        "seconds": t.as_secs_f64(),
                    })
                })
                .collect();
        } else if let Some((p, n, _, _)) = results.first() {
            out["position"] = json!(g.format_position(p));
            out["nimber"] = json!(n);
            out["value"] = json!(n.map(outcome));
        }
        json_out = Some(out);
    } else {
        println!("game        {}", g.spec());
        for (p, n, t, nodes) in &results {
            if args.openings.is_some() {
                let shown = match n {
                    Some(n) => format!("nimber {n} ({})", outcome(*n)),
                    None => "not proven".to_string(),
                };
                println!(
                    "{:<40} {:<18} {:>12} components {:>9.2} s",
                    g.format_position(p),
                    shown,
                    thousands(*nodes),
                    t.as_secs_f64()
                );
                continue;
            }
            println!("position    {}", g.format_position(p));
            match n {
                Some(n) => println!("nimber      {n} ({} for the player to move)", outcome(*n)),
                None => println!("nimber      not proven (stopped)"),
            }
        }
        if let Some(stop) = stopped {
            println!(
                "stopped     {}",
                stop_note(stop, args, options.memory, stats.deepest)
            );
        }
        println!(
            "components  {} searched, {} in memo, {} from tables, in {:.2} s",
            thousands(stats.nodes),
            thousands(stats.memo),
            thousands(stats.leaf_hits),
            elapsed.as_secs_f64()
        );
        print_loaded(loaded.as_ref(), "components");
    }
    let saved = target.map(|t| {
        let records = search.known().map(|(k, n, p)| Record {
            key: *k,
            fact: Fact::Nimber(n),
            pos: p.clone(),
        });
        save(g, t, Kind::Nimbers, records)
    });
    finish(json_out, loaded.as_ref(), saved, args, "components")?;
    Ok(status(all_proven))
}

/// A stop reason as JSON names it.
fn stop_name(stop: Stop) -> &'static str {
    match stop {
        Stop::Nodes => "nodes",
        Stop::Time => "time",
        Stop::Requested => "signal",
        Stop::Depth => "depth",
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

/// Watches the progress for a search that has stalled: its table full and
/// the root's proof and disproof numbers unchanged for [`STALL_SECONDS`] —
/// what a table too small for the game looks like.
#[derive(Default)]
struct Stall {
    last: Option<(u32, u32, i8)>,
    since: Duration,
    warned: bool,
}

/// How long the root's numbers may stay put in a full table before
/// [`Stall`] warns.
const STALL_SECONDS: u64 = 60;

const STALL_WARNING: &str = "retrograde: warning: the table is full and the root's proof numbers have not moved for a minute: it is probably too small for this game; a larger --memory is usually far faster";

impl Stall {
    /// Takes the counters of one progress report; `true` once, when the
    /// search has stalled.
    fn update(&mut self, s: &Stats) -> bool {
        let now = (s.root_pn, s.root_dn, s.target);
        // 4-way buckets rarely fill every slot: 99% is full.
        let full = s.tt_used * 100 >= s.tt_capacity * 99;
        if self.last != Some(now) || !full {
            self.last = Some(now);
            self.since = s.elapsed;
            return false;
        }
        if self.warned || s.elapsed - self.since < Duration::from_secs(STALL_SECONDS) {
            return false;
        }
        self.warned = true;
        true
    }
}

/// `--check`: re-proves a database and reports the position's entry.
fn check<G: SearchGame>(
    g: &G,
    root: &G::Pos,
    path: &std::path::Path,
    options: &Options,
    leaves: Option<&Leaves>,
    args: &Args,
) -> Result<ExitCode> {
    let (kind, db) = read(
        g,
        std::slice::from_ref(&path.to_path_buf()),
        None,
        options.memory,
    )?;
    let started = Instant::now();
    // The limits bound the searches the check makes, as they bound a
    // search; a stop (a limit, Ctrl-C) leaves no verdict.
    let requested = retrograde::search::stop_requested;
    let (checked, stop, deepest) = match kind {
        Kind::Values => {
            let mut dfpn = Dfpn::new(g, options.clone());
            if let Some(l) = leaves {
                dfpn = dfpn.with_leaves(l.values());
            }
            let r = proofdb::verify_values(g, &db, &mut dfpn, &requested);
            (r, dfpn.stop_reason(), dfpn.stats().deepest)
        }
        Kind::Nimbers => {
            let view = leaves.map(Leaves::nimbers);
            let mut search = NimberSearch::new(g, options.memory)
                .with_time_limit(options.time_limit)
                .with_node_limit(options.node_limit);
            if let Some(v) = &view {
                search = search.with_leaves(v);
            }
            let r = proofdb::verify_nimbers(g, &db, &mut search, &requested);
            (r, search.stop_reason(), search.stats().deepest)
        }
    };
    let report = checked.map_err(|e| anyhow!("check failed: {e}"))?;
    if report.unchecked > 0 {
        // A stop request may be seen first between entries, outside a search.
        let stop = stop.unwrap_or(Stop::Requested);
        eprintln!(
            "retrograde: {}: the check was stopped {} before it finished ({} of {} entries re-proven)",
            retrograde::Error::quote_path(path),
            stop_note(stop, args, options.memory, deepest),
            thousands(report.checked),
            thousands(db.len() as u64)
        );
        return Ok(ExitCode::from(NOT_PROVEN));
    }
    let shown = match db.fact(&g.key(root)) {
        Some(Fact::Value(b)) => describe(b),
        Some(Fact::Nimber(n)) => format!("nimber {n}"),
        None => "not in the database".to_string(),
    };
    if args.json {
        println!(
            "{}",
            json!({
                "game": g.spec(),
                "position": g.format_position(root),
                "checked": report.checked,
                "searched": report.searched,
                "entry": shown,
                "seconds": started.elapsed().as_secs_f64(),
            })
        );
    } else {
        println!("game        {}", g.spec());
        println!(
            "checked     {} entries re-proven from their moves ({} children searched)",
            thousands(report.checked),
            thousands(report.searched)
        );
        println!("position    {}: {shown}", g.format_position(root));
        println!("time        {:.2} s", started.elapsed().as_secs_f64());
    }
    Ok(ExitCode::SUCCESS)
}

/// Exit status: 0 proven, [`NOT_PROVEN`] when a limit or Ctrl-C stopped the
/// search first.
fn status(proven: bool) -> ExitCode {
    if proven {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_PROVEN)
    }
}

/// The databases in `paths`, read and merged (see [`proofdb::merge`]), all
/// of `want` if given, else of the first one's kind (a database of the other
/// kind is refused: its facts answer another question). Every header is
/// read before any entry, and a load the machine has no memory for beside
/// the search's `memory` is refused before it starts.
fn read<G: SearchGame>(
    g: &G,
    paths: &[PathBuf],
    want: Option<Kind>,
    memory: u64,
) -> Result<(Kind, Merged<G>)> {
    let mut dbs = Vec::new();
    for path in paths {
        dbs.push(proofdb::Database::open(g, path).map_err(|e| anyhow!(e))?);
    }
    let kind = want
        .or(dbs.first().map(proofdb::Database::kind))
        .unwrap_or(Kind::Values);
    let mut entries = 0u64;
    for db in &dbs {
        if db.kind() != kind {
            bail!(
                "{}: a database of {}, not of {}",
                retrograde::Error::quote_path(db.path()),
                db.kind().name(),
                kind.name()
            );
        }
        entries = entries.saturating_add(db.count());
    }
    let needed = entries
        .saturating_mul(proofdb::memory_per_entry::<G>())
        .saturating_add(memory);
    if let Some(avail) = memory_available() {
        if needed > avail {
            bail!(
                "loading {} entries needs about {} with the search's {}; this machine has {} available",
                thousands(entries),
                human_bytes(needed - memory),
                human_bytes(memory),
                human_bytes(avail)
            );
        }
    }
    let mut parts = Vec::new();
    for db in dbs {
        let path = db.path().to_path_buf();
        parts.push((path, db.read(g).map_err(|e| anyhow!(e))?));
    }
    let merged = proofdb::merge(g, parts).map_err(|e| anyhow!(e))?;
    Ok((kind, merged))
}

/// What `--load` read and re-proved.
struct Loaded {
    report: CheckReport,
    seconds: f64,
}

/// `--load`: reads and merges the databases and has `verify` re-prove every
/// entry, handing those that hold to the search (or, with `--trust-load`,
/// hand them all over, with a warning). A stop (Ctrl-C, `--time`) ends the
/// re-proving early: the entries not re-proven are not used.
fn load<G: SearchGame>(
    g: &G,
    args: &Args,
    kind: Kind,
    memory: u64,
    time_limit: Option<Duration>,
    verify: impl FnOnce(&Merged<G>, &dyn Fn() -> bool) -> Result<CheckReport, String>,
) -> Result<Option<Loaded>> {
    if args.load.is_empty() {
        return Ok(None);
    }
    let started = Instant::now();
    let (_, db) = read(g, &args.load, Some(kind), memory)?;
    let deadline = time_limit.map(|t| started + t);
    let stop = move || {
        retrograde::search::stop_requested() || deadline.is_some_and(|d| Instant::now() >= d)
    };
    let report = verify(&db, &stop).map_err(|e| anyhow!(e))?;
    if report.trusted > 0 {
        eprintln!(
            "retrograde: warning: --trust-load: {} loaded entries are used without being re-proven; a wrong or forged database gives wrong answers",
            thousands(report.trusted)
        );
    }
    Ok(Some(Loaded {
        report,
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// `--save`: the output checked, locked and given its temporary file before
/// the search (see [`SaveTarget`]). The run's inputs — the game's pattern
/// file, the `--load` databases, the `--tablebase` tables — are never
/// replaced, whatever path names them.
fn save_target(args: &Args) -> Result<Option<SaveTarget>> {
    let Some(path) = &args.save else {
        return Ok(None);
    };
    let mut inputs = retrograde::solve::output::input_files(&args.game);
    inputs.extend(args.load.iter().cloned());
    inputs.extend(args.tablebases.iter().cloned());
    let target = SaveTarget::prepare(path, &inputs).map_err(|e| anyhow!(e))?;
    if let Some(notice) = retrograde::format::stale_notice(target.removed_stale()) {
        eprintln!("retrograde: {notice}");
    }
    Ok(Some(target))
}

/// Writes `records` through `target`: how many and the bytes, or why not
/// (the caller prints the result first, then this error). Bounds that
/// contradict each other are a bug, not a fact: they are left out, and said.
fn save<G: SearchGame>(
    g: &G,
    target: SaveTarget,
    kind: Kind,
    records: impl Iterator<Item = Record<G::Pos, G::Key>>,
) -> Result<(usize, u64), String> {
    let mut impossible = 0u64;
    let mut records: Vec<_> = records
        .filter(|r| match r.fact {
            Fact::Value(b) if b.lo > b.hi => {
                impossible += 1;
                false
            }
            _ => true,
        })
        .collect();
    if impossible > 0 {
        eprintln!(
            "retrograde: warning: {} positions with contradictory bounds were not saved (a bug: please report it)",
            thousands(impossible)
        );
    }
    let bytes = target.save(g, kind, &mut records)?;
    Ok((records.len(), bytes))
}

/// The `loaded` line, when something was loaded.
fn print_loaded(loaded: Option<&Loaded>, what: &str) {
    let Some(l) = loaded else { return };
    if l.report.trusted > 0 {
        println!(
            "loaded      {} {what}, not re-proven (--trust-load, {:.2} s)",
            thousands(l.report.trusted),
            l.seconds
        );
        return;
    }
    println!(
        "loaded      {} {what}, each re-proven from its moves ({} children searched, {:.2} s)",
        thousands(l.report.checked),
        thousands(l.report.searched),
        l.seconds
    );
    if l.report.unchecked > 0 {
        println!(
            "            {} more not re-proven before the stop: not used",
            thousands(l.report.unchecked)
        );
    }
}

/// Ends a report after the save: the JSON object with what was loaded and
/// saved, or the text `saved` line; then the save's error, if any, so that
/// it comes after the result.
fn finish(
    json_out: Option<serde_json::Value>,
    loaded: Option<&Loaded>,
    saved: Option<Result<(usize, u64), String>>,
    args: &Args,
    what: &str,
) -> Result<()> {
    match json_out {
        Some(mut out) => {
            out["loaded"] = json!(loaded.map_or(0, |l| l.report.checked + l.report.trusted));
            if let Some(l) = loaded {
                out["loaded_unchecked"] = json!(l.report.unchecked);
                out["loaded_trusted"] = json!(l.report.trusted);
                out["load_seconds"] = json!(l.seconds);
            }
            out["saved"] = json!(saved.as_ref().and_then(|s| s.as_ref().ok()).map(|s| s.0));
            if let Some(Err(e)) = &saved {
                out["save_error"] = json!(e);
            }
            println!("{out}");
        }
        None => {
            if let (Some(Ok((n, bytes))), Some(path)) = (&saved, &args.save) {
                println!(
                    "saved       {} {what} to {} ({})",
                    thousands(*n as u64),
                    path.display(),
                    human_bytes(*bytes)
                );
            }
        }
    }
    match saved {
        Some(Err(e)) => Err(anyhow!("the result above was not saved: {e}")),
        _ => Ok(()),
    }
}

/// The tables given with `--tablebase`.
struct Leaves {
    tables: TableLeaves,
    cram: Option<retrograde::search::games::cram::CramNimberLeaves>,
}

impl Leaves {
    fn values<G: SearchGame>(&self) -> &dyn ValueLeaves<G> {
        &self.tables
    }

    fn nimbers(&self) -> NimberView<'_> {
        NimberView(self.cram.as_ref(), &self.tables)
    }
}

/// Cram regions from the nimber tables (any placement), else a table of the
/// same spec.
struct NimberView<'a>(
    Option<&'a retrograde::search::games::cram::CramNimberLeaves>,
    &'a TableLeaves,
);

impl<G: SearchGame> NimberLeaves<G> for NimberView<'_> {
    fn nimber(&self, g: &G, p: &G::Pos) -> Option<u32> {
        self.0
            .and_then(|c| c.nimber_of(g, p))
            .or_else(|| NimberLeaves::nimber(self.1, g, p))
    }
}

/// Opens the `--tablebase` files, refusing tables no position of this
/// search can be in. Every table is opened verified (its data CRC checked)
/// by [`TableLeaves::open`] or the Cram nimber leaves, whichever uses it.
fn open_leaves<G: SearchGame>(g: &G, paths: &[PathBuf], nimber: bool) -> Result<Option<Leaves>> {
    if paths.is_empty() {
        return Ok(None);
    }
    let spec = g.spec();
    let is_cram = spec.starts_with("cram:") && g.impartial();
    let mut same = Vec::new();
    let mut cram = Vec::new();
    for path in paths {
        let shown = retrograde::Error::quote_path(path);
        let tb = retrograde::Tablebase::open(path).with_context(|| shown.clone())?;
        let table_spec = tb.header().spec.clone();
        let unfolded = retrograde::with_game!(tb.game(), t => retrograde::Game::spec(&retrograde::Game::unfolded(t)));
        if unfolded == spec {
            same.push(path.clone());
        } else if is_cram && nimber && table_spec.starts_with("cram:") {
            cram.push(path.clone());
        } else {
            bail!(
                "{shown}: a table of {}; this search of {spec} can use tables of the same game{}",
                retrograde::Error::quote(&table_spec),
                if is_cram {
                    " (or, with --nimber, Cram nimber tables)"
                } else {
                    ""
                }
            );
        }
    }
    let tables = TableLeaves::open(&same).map_err(|e| anyhow!(e))?;
    let cram = if cram.is_empty() {
        None
    } else {
        Some(
            retrograde::search::games::cram::CramNimberLeaves::open(&cram)
                .map_err(|e| anyhow!(e))?,
        )
    };
    Ok(Some(Leaves { tables, cram }))
}

/// More openings than this are refused before any is searched: the frontier
/// grows by the branching factor each ply, so a few plies too many would
/// exhaust memory while listing positions no run could prove one by one.
const MAX_OPENINGS: usize = 100_000;

/// The distinct positions (up to symmetry) `plies` moves after `root`,
/// stopping at game-over positions on the way; `None` if a stop was
/// requested (Ctrl-C) while listing them.
fn openings<G: SearchGame>(g: &G, root: &G::Pos, plies: u32) -> Result<Option<Vec<G::Pos>>> {
    let mut level = vec![root.clone()];
    for ply in 1..=plies {
        // Once every position is over, later plies would carry the same
        // positions forward: plies in the billions would loop for hours.
        if level.iter().all(|p| g.terminal(p).is_some()) {
            break;
        }
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for p in &level {
            if retrograde::search::stop_requested() {
                return Ok(None);
            }
            if g.terminal(p).is_some() {
                if seen.insert(g.key(p)) {
                    next.push(p.clone());
                }
                continue;
            }
            for (_, c) in g.moves(p) {
                if seen.insert(g.key(&c)) {
                    next.push(c);
                }
            }
            if next.len() > MAX_OPENINGS {
                bail!(
                    "--openings {plies}: more than {MAX_OPENINGS} distinct positions after {ply} plies; use fewer plies"
                );
            }
        }
        level = next;
    }
    Ok(Some(level))
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

fn describe(b: Bounds) -> String {
    match (b.value(), b.lo, b.hi) {
        (Some(v), _, _) => v.name().to_string(),
        (None, 0, 1) => "not a loss (win or tie; unproven which)".into(),
        (None, -1, 0) => "not a win (tie or loss; unproven which)".into(),
        _ => "unproven".into(),
    }
}

fn bounds_json(b: Bounds) -> serde_json::Value {
    let name = |s: i8| retrograde::search::value_of(s).name();
    json!({ "at_least": name(b.lo), "at_most": name(b.hi) })
}

fn progress_line(s: &Stats) -> String {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    let pct = 100.0 * s.tt_used as f64 / s.tt_capacity.max(1) as f64;
    let num = |x: u32| {
        if x == u32::MAX {
            "inf".to_string()
        } else {
            thousands(u64::from(x))
        }
    };
    format!(
        "nodes {}  {}/s  table {:.0}%  root pn {} dn {}  ({}?)  {:.0} s",
        thousands(s.nodes),
        thousands((s.nodes as f64 / secs) as u64),
        pct,
        num(s.root_pn),
        num(s.root_dn),
        if s.target == 1 { "win" } else { "not lose" },
        secs
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(secs: u64, pn: u32, used: u64) -> Stats {
        Stats {
            root_pn: pn,
            root_dn: 7,
            target: 1,
            tt_used: used,
            tt_capacity: 1000,
            elapsed: Duration::from_secs(secs),
            ..Stats::default()
        }
    }

    #[test]
    fn a_full_table_whose_root_numbers_stay_put_warns_once() {
        let mut stall = Stall::default();
        // Moving numbers, or a table with room: no warning however long.
        for t in 0..200 {
            assert!(!stall.update(&report(t, t as u32, 1000)));
        }
        let mut stall = Stall::default();
        for t in 0..200 {
            assert!(!stall.update(&report(t, 5, 900)));
        }
        // Full and still: a warning after a minute, then no more.
        let mut stall = Stall::default();
        let warned: Vec<u64> = (0..200)
            .filter(|&t| stall.update(&report(t, 5, 995)))
            .collect();
        assert_eq!(warned, [STALL_SECONDS]);
    }

    #[test]
    fn memory_zero_reaches_the_minimum_check() {
        assert_eq!(parse_memory("0"), Ok(0));
        assert_eq!(parse_memory("0K"), Ok(0));
        assert_eq!(parse_memory("65535"), Ok(65535));
        assert!(parse_memory("-1").is_err());
        assert!(parse_memory("x").is_err());
    }
}
