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
use retrograde::search::{Bounds, Listening, SearchGame};
use retrograde::with_search;
use serde_json::json;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Exit status of a search stopped (by a limit or Ctrl-C) before it proved
/// the value.
const NOT_PROVEN: u8 = 2;

/// Prove the value of one position by search: win, lose or tie for the
/// player to move, at sizes past the tables (Connect-Four 7x6, mnk 15x15,
/// sogo:4, isolation:6x6, Cram past 30 squares, pattern files up to 256
/// squares). Exits 0 when proven, 2 when stopped first.
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
    /// (default: 1G, or half the available memory if less).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
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
    /// from the position, one after another: the values of the openings.
    #[arg(long, value_name = "PLIES")]
    openings: Option<u32>,
    /// Stop after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    time: Option<f64>,
    /// Stop after this many expanded nodes.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// ε of the 1+ε trick (0: plain df-pn).
    #[arg(long, default_value_t = 0.25)]
    epsilon: f64,
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
    if !(args.epsilon >= 0.0 && args.epsilon <= 100.0) {
        bail!("--epsilon must be between 0 and 100");
    }
    let time_limit = match args.time {
        Some(t) if !(t > 0.0 && t < 1e9) => bail!("--time must be a positive number of seconds"),
        t => t.map(Duration::from_secs_f64),
    };
    let memory = args.memory.unwrap_or_else(|| {
        let half = memory_available().map_or(1 << 30, |m| m / 2);
        half.min(1 << 30)
    });
    if memory < 1 << 16 {
        bail!(
            "--memory {} is too small for a search (64K at least)",
            human_bytes(memory)
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
    if let Some(path) = &args.check {
        return check(g, &root, path, memory, leaves.as_ref(), args);
    }
    if args.nimber {
        return nimber(g, &root, memory, time_limit, leaves.as_ref(), target, args);
    }
    let options = Options {
        memory,
        epsilon: args.epsilon,
        node_limit: args.nodes,
        time_limit,
    };
    let quiet = args.quiet;
    let mut dfpn = Dfpn::new(g, options).with_progress(move |s: &Stats| {
        if !quiet {
            eprintln!("{}", progress_line(s));
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
    let roots = match args.openings {
        None => vec![root.clone()],
        Some(k) => openings(g, &root, k)?,
    };
    let started = Instant::now();
    let mut results = Vec::new();
    let mut all_proven = true;
    for p in &roots {
        let t = Instant::now();
        let nodes_before = dfpn.stats().nodes;
        let proof = dfpn.prove(p);
        all_proven &= proof.value.is_some();
        results.push((p.clone(), proof, t.elapsed(), nodes_before));
        if retrograde::search::stop_requested() {
            break;
        }
    }
    let stats = dfpn.stats();
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

/// The nimber of an impartial position, by component search.
fn nimber<G: SearchGame>(
    g: &G,
    root: &G::Pos,
    memory: u64,
    time_limit: Option<Duration>,
    leaves: Option<&Leaves>,
    target: Option<SaveTarget>,
    args: &Args,
) -> Result<ExitCode> {
    let quiet = args.quiet;
    let view = leaves.map(Leaves::nimbers);
    let mut search = NimberSearch::new(g, memory)
        .with_time_limit(time_limit)
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
    let loaded = load(g, args, Kind::Nimbers, memory, time_limit, |db, stop| {
        if args.trust_load {
            Ok(proofdb::trust_nimbers(db, &mut search))
        } else {
            proofdb::verify_nimbers(g, db, &mut search, stop)
        }
    })?;
    let started = Instant::now();
    let n = search.nimber(root);
    let elapsed = started.elapsed();
    let stats = search.stats();
    let mut json_out = None;
    if args.json {
        json_out = Some(json!({
                "game": g.spec(),
                "position": g.format_position(root),
                "nimber": n,
                "value": n.map(|n| if n == 0 { "lose" } else { "win" }),
                "components": stats.nodes,
                "memo": stats.memo,
                "leaf_hits": stats.leaf_hits,
                "seconds": elapsed.as_secs_f64(),
                "proven": n.is_some(),
        }));
    } else {
        println!("game        {}", g.spec());
        println!("position    {}", g.format_position(root));
        match n {
            Some(n) => println!(
                "nimber      {n} ({} for the player to move)",
                if n == 0 { "lose" } else { "win" }
            ),
            None => println!("nimber      not proven (stopped)"),
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
    Ok(status(n.is_some()))
}

/// `--check`: re-proves a database and reports the position's entry.
fn check<G: SearchGame>(
    g: &G,
    root: &G::Pos,
    path: &std::path::Path,
    memory: u64,
    leaves: Option<&Leaves>,
    args: &Args,
) -> Result<ExitCode> {
    let (kind, db) = read(g, std::slice::from_ref(&path.to_path_buf()), None, memory)?;
    let started = Instant::now();
    // Only a stop (Ctrl-C) ends a check early, and then it has no verdict.
    let stop = retrograde::search::stop_requested;
    let report = match kind {
        Kind::Values => {
            let mut dfpn = Dfpn::new(
                g,
                Options {
                    memory,
                    ..Options::default()
                },
            );
            if let Some(l) = leaves {
                dfpn = dfpn.with_leaves(l.values());
            }
            proofdb::verify_values(g, &db, &mut dfpn, &stop)
        }
        Kind::Nimbers => {
            let view = leaves.map(Leaves::nimbers);
            let mut search = NimberSearch::new(g, memory);
            if let Some(v) = &view {
                search = search.with_leaves(v);
            }
            proofdb::verify_nimbers(g, &db, &mut search, &stop)
        }
    }
    .map_err(|e| anyhow!("check failed: {e}"))?;
    if report.unchecked > 0 {
        bail!(
            "{}: the check was stopped before it finished ({} of {} entries re-proven)",
            retrograde::Error::quote_path(path),
            thousands(report.checked),
            thousands(db.len() as u64)
        );
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
/// stopping at game-over positions on the way.
fn openings<G: SearchGame>(g: &G, root: &G::Pos, plies: u32) -> Result<Vec<G::Pos>> {
    let mut level = vec![root.clone()];
    for ply in 1..=plies {
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for p in &level {
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
    Ok(level)
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
