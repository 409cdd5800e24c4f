//! `retrograde search`: proves the value of one position by proof-number
//! search (or an impartial position's nimber by component search), past the
//! sizes a table can hold, with tables as leaves and proof databases. The
//! search is the library's ([`retrograde::search::run`]); this file parses
//! the arguments, cancels the search on a signal, and prints.

use super::cancel;
use super::output::{check_json, search_json};
use super::solve::parse_memory;
use anyhow::{bail, Result};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use retrograde::internal::solve::input_files;
use retrograde::search::engine::Stats;
use retrograde::search::games::AnySearch;
use retrograde::search::run::{self, Engine, Notice, Observer, SearchOptions, SearchReport};
use retrograde::search::watch::Watch;
use retrograde::search::{Cancel, Stop};
use retrograde::Error;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
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
    /// e.g. 2G (default: 1G, or half the available memory if less;
    /// normal-play Sprouts 10M up to 18 spots, twice that for every two
    /// spots more; at least 1M). The table starts at 1M and doubles as it fills, so an easy
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
    /// Also prove the position after each legal move and list every move,
    /// best first, with its value for the player to move (a win soonest
    /// first, a loss latest last), its distance where the engine gives it
    /// (Connect-Four by alpha-beta: Pons' score; others with --exact), or
    /// with --nimber the nimber of the position it leads to.
    #[arg(long, conflicts_with_all = ["check", "openings"])]
    moves: bool,
    /// Also find the distance to the end under perfect play (the fastest
    /// win, the slowest loss: the tables' remoteness) of the position and,
    /// with --moves, of each move, where the engine does not give it (it
    /// costs about what a table of the positions below would). Not with
    /// --nimber or Sprouts.
    #[arg(long, conflicts_with = "check")]
    exact: bool,
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
    /// couples region + *k a sum needs; one thread. sets (normal-play Cram
    /// --nimber): each region asked whether its nimber is among candidates
    /// (Beling's method), one thread; auto takes it for such a nimber
    /// unless --save, --load, --tablebase, --openings, --moves, --watch or
    /// --save-every asks for what the others do.
    #[arg(long, default_value = "auto", value_parser = engine_name())]
    engine: Engine,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Show the computing branch full screen while the search runs (the
    /// line from the root down, each level's children still unknown
    /// coloured as Glop does) and steer it: ↑↓ choose a level, ←→ or a
    /// number and Enter the child it computes next, n the next unknown
    /// child, q stops the search (what it proved is kept, as at Ctrl-C).
    /// The value never depends on the choices. Needs a terminal.
    #[arg(long, conflicts_with_all = ["json", "check", "openings"])]
    watch: bool,
    /// Spread the search over the ranks of an MPI job (`mpirun -np K
    /// retrograde search SPEC --mpi`): rank 0 keeps a proof-number tree
    /// near the root and hands its leaves as jobs to the other ranks, each
    /// proving its job with the game's own engine within a budget (with
    /// one rank, rank 0 proves them). The value never depends on K. Needs
    /// a build with the feature `mpi`.
    #[arg(long, conflicts_with_all = ["check", "openings", "moves", "watch", "load", "save_every", "nimber", "exact", "json"])]
    pub(super) mpi: bool,
    /// With --mpi: nodes each job's engine may expand before the job
    /// comes back undecided and the master expands its position (default
    /// 100,000 unless --job-time is given).
    #[arg(long, value_name = "N", requires = "mpi")]
    pub(super) job_nodes: Option<u64>,
    /// With --mpi: seconds each job may take.
    #[arg(long, value_name = "SECONDS", requires = "mpi")]
    pub(super) job_time: Option<f64>,
}

impl Args {
    /// The game spec, as given.
    #[cfg(feature = "mpi")]
    pub(super) fn spec(&self) -> &str {
        &self.game
    }

    /// With --mpi: what each job may spend.
    #[cfg(feature = "mpi")]
    pub(super) fn job_budget(&self) -> Result<retrograde::search::jobs::JobBudget> {
        if self.job_nodes == Some(0) {
            bail!("--job-nodes must be at least 1");
        }
        Ok(retrograde::search::jobs::JobBudget {
            nodes: self.job_nodes,
            time: seconds("--job-time", self.job_time)?,
        })
    }
}

/// `--engine`'s values: the library's engine names.
fn engine_name() -> impl TypedValueParser<Value = Engine> {
    PossibleValuesParser::new(Engine::ALL.map(Engine::name))
        .map(|name: String| Engine::from_name(&name).expect("a possible value"))
}

/// `option`'s positive number of seconds (below about 31 years, which
/// would overflow soon after), refused in one line.
fn seconds(option: &str, t: Option<f64>) -> Result<Option<Duration>> {
    match t {
        Some(t) if !(t > 0.0 && t < 1e9) => bail!("{option} must be a positive number of seconds"),
        t => Ok(t.map(Duration::from_secs_f64)),
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.mpi {
        #[cfg(feature = "mpi")]
        return super::ranks::search(args);
        #[cfg(not(feature = "mpi"))]
        bail!("--mpi: this retrograde was built without MPI (cargo build --release --features retrograde-cli/mpi)");
    }
    if args.watch && !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        bail!("--watch draws on a terminal: standard input and output must be one (not a pipe or a file)");
    }
    let game = AnySearch::parse(&args.game)?;
    let options = request(&args)?;
    let printer = Printer {
        args: &args,
        options: &options,
    };
    let _listening = cancel::Listening;
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
    let report = match &options.watch {
        Some(watch) => watched(&game, &options, &args, watch)?,
        None => run::run(&game, &options, &printer)?,
    };
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
        (true, _) => println!("{}", search_json(&report, args.moves)),
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

/// The library's request from the command line's arguments.
pub(super) fn request(args: &Args) -> Result<SearchOptions> {
    Ok(SearchOptions {
        position: args.position.clone(),
        nimber: args.nimber,
        memory: args.memory,
        epsilon: args.epsilon,
        node_limit: args.nodes,
        time_limit: seconds("--time", args.time)?,
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
        save_every: seconds("--save-every", args.save_every)?,
        engine: args.engine,
        moves: args.moves,
        exact: args.exact,
        watch: args.watch.then(Watch::new),
        scored: false,
    })
}

/// The search on a thread of its own, the computing branch full screen on
/// this one until it ends (or `q` stops it); then the result, as without
/// `--watch`.
fn watched(
    game: &AnySearch,
    options: &SearchOptions,
    args: &Args,
    watch: &Watch,
) -> Result<SearchReport> {
    let done = std::sync::atomic::AtomicBool::new(false);
    let quiet = Quiet {
        cancel: &options.cancel,
        notices: std::sync::Mutex::default(),
    };
    let (report, shown) = std::thread::scope(|s| {
        let search = s.spawn(|| {
            let r = run::run(game, options, &quiet);
            done.store(true, std::sync::atomic::Ordering::Release);
            r
        });
        let shown = super::watch::run(
            watch,
            &args.game,
            &|| done.load(std::sync::atomic::Ordering::Acquire),
            &|| options.cancel.cancel(),
        );
        if shown.is_err() {
            // No view: the search is not left running unseen.
            options.cancel.cancel();
        }
        (search.join(), shown)
    });
    let report = match report {
        Ok(r) => r?,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    shown?;
    for n in quiet.notices.into_inner().unwrap_or_default() {
        eprintln!("retrograde: {n}");
    }
    print!(
        "{}",
        super::color::search_text(&report.text(options).to_string())
    );
    Ok(report)
}

/// The watched search's [`Observer`]: nothing on the terminal the view
/// holds (its notices are said after it); a signal still stops it.
struct Quiet<'a> {
    cancel: &'a Cancel,
    notices: std::sync::Mutex<Vec<String>>,
}

impl Observer for Quiet<'_> {
    fn started(&self) {
        cancel::started(self.cancel);
    }

    fn notice(&self, notice: &Notice) {
        if let Ok(mut n) = self.notices.lock() {
            n.push(notice.to_string());
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
        cancel::started(&self.options.cancel);
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
            print!(
                "{}",
                super::color::search_text(&report.text(self.options).to_string())
            );
        }
    }
}
