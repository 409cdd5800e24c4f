//! A whole search as one call: what `retrograde search` does, for any
//! program. [`run`] checks the options, prepares the output, opens the
//! tables, lists the openings, loads and re-proves proof databases, proves
//! the position (or each opening) and saves what it proved; [`check`]
//! re-proves a proof database. The command line only parses its arguments
//! into [`SearchOptions`], calls one of them and prints the report.
//!
//! A search stops early on its limits or when its [`Cancel`] token is
//! cancelled, from any thread; it then returns what it proved (and saves
//! it). Each search has its own token unless the caller shares one, so
//! cancelling one search stops no other.
//!
//! ```
//! use retrograde::search::games::AnySearch;
//! use retrograde::search::run::{run, Quiet, SearchOptions};
//! use retrograde::Value;
//!
//! let game = AnySearch::parse("mnk:3x3x3")?;
//! let dir = tempfile::tempdir()?;
//! let options = SearchOptions {
//!     memory: Some(16 << 20),
//!     save: Some(dir.path().join("ttt.proof")),
//!     ..SearchOptions::default()
//! };
//! let report = run(&game, &options, &Quiet)?;
//! assert!(report.proven);
//! assert_eq!(report.results[0].value(), Some(Value::Tie));
//! assert!(report.saved.unwrap()?.entries > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::alphabeta::{self, AlphaBeta};
use super::dfpn::{Dfpn, Options, Stats};
use super::games::cram::CramNimberLeaves;
use super::games::AnySearch;
use super::leaves::{NimberLeaves, TableLeaves, ValueLeaves};
use super::nimber::{NimberSearch, NimberStats};
use super::proofdb::{self, CheckReport, Fact, Kind, Merged, Record, SaveTarget};
use super::{Bounds, Cancel, SearchGame, Stop};
use crate::error::{Error, Result};
use crate::solve::memory_available;
use crate::value::Value;
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The smallest memory a search takes: below it even a 16-square game's
/// table thrashes (`mnk:4x4x4` makes no progress in 64 KiB at the default
/// ε; it is proven in 2 s with 1 MiB).
pub const MIN_MEMORY: u64 = 1 << 20;

/// The smallest ε: below it the 1+ε trick does not widen the small
/// thresholds and the search is plain df-pn, which re-expands the same
/// positions over and over once the table cannot hold its working set
/// (`connect:5x4` in 256 KiB: no progress in 30 s at ε 0 or 0.01, proven
/// in 6 s at 0.05).
pub const MIN_EPSILON: f64 = 0.05;

/// The largest ε.
pub const MAX_EPSILON: f64 = 100.0;

/// The most threads a search takes.
pub const MAX_THREADS: usize = 1024;

/// More openings than this are refused before any is searched: the frontier
/// grows by the branching factor each ply, so a few plies too many would
/// exhaust memory while listing positions no run could prove one by one.
pub const MAX_OPENINGS: usize = 100_000;

/// How long the root's numbers may stay put in a full table before a
/// search warns ([`Notice::Stalled`]).
const STALL_SECONDS: u64 = 60;

/// What a search is asked to do. The default proves the start position's
/// value with the default memory and ε, no limits, no tables, nothing
/// loaded or saved.
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    /// The position, in the game's notation (`None`: the start).
    pub position: Option<String>,
    /// The nimber of an impartial position (by components) instead of its
    /// value.
    pub nimber: bool,
    /// Bytes for the transposition table (or the nimber memo); `None`:
    /// [`default_memory`]. At least [`MIN_MEMORY`], and no more than the
    /// machine has available.
    pub memory: Option<u64>,
    /// ε of the 1+ε trick, from [`MIN_EPSILON`] to [`MAX_EPSILON`]
    /// (`None`: 0.25).
    pub epsilon: Option<f64>,
    /// Stop after this many expanded nodes (components for nimbers):
    /// exactly that many, never one more.
    pub node_limit: Option<u64>,
    /// Stop after this long (looked at before every node or component, so
    /// a search ends within one node of it).
    pub time_limit: Option<Duration>,
    /// Tables to answer positions from: any table of the searched game (same
    /// spec), and for Cram nimbers any `cram:RxC --nimbers` table.
    pub tablebases: Vec<PathBuf>,
    /// Proof databases to start from.
    pub load: Vec<PathBuf>,
    /// Use the loaded entries without re-proving them (a wrong or forged
    /// database then gives wrong answers).
    pub trust_load: bool,
    /// Where to keep what the search proved (a proof database), also when
    /// it is stopped. Checked, locked and given its temporary file before
    /// the search starts.
    pub save: Option<PathBuf>,
    /// Prove every distinct position (up to symmetry) this many plies after
    /// the position, one after another.
    pub openings: Option<u32>,
    /// Files the run reads besides `load` and `tablebases` (a pattern
    /// file), which `save` may not replace.
    pub inputs: Vec<PathBuf>,
    /// Cancelled, the search stops and returns (and saves) what it proved.
    pub cancel: Cancel,
    /// Threads proving values together on one table (the nimber search is
    /// one thread): 0 (the default) is one per core
    /// ([`std::thread::available_parallelism`]). The value never depends on
    /// it.
    pub threads: usize,
    /// Also save to `save` this often while the search runs, not only at
    /// its end, so that a run that dies (a crash, a power loss, a kill)
    /// leaves what it had proven at the last save: what a campaign of days
    /// resumes from with `load`. Each save is a whole database, written to
    /// a temporary file and renamed over the last.
    pub save_every: Option<Duration>,
    /// The engine of a value search (also of `check`'s re-proving).
    pub engine: Engine,
    /// Also prove every child of the position (Glop's Children tab): the
    /// results are the position, then each child. Sprouts only, whose moves
    /// are written as the positions they lead to.
    pub moves: bool,
}

/// Which engine proves values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// Per game, from measurements ([`alphabeta::preferred`]): alpha-beta
    /// where the game has its own alpha-beta search (the gravity boards),
    /// df-pn elsewhere, and df-pn whenever `epsilon` is given.
    #[default]
    Auto,
    /// Depth-first proof-number search ([`super::dfpn`]).
    Dfpn,
    /// Alpha-beta with null-window probes, on every thread
    /// ([`super::alphabeta`]).
    AlphaBeta,
    /// Lemoine and Viennot's couples `G + *k` over a sum's components
    /// (`super::couples`): normal-play Cram, values and nimbers.
    Couples,
}

impl Engine {
    /// The engine's name, as `--engine` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Dfpn => "dfpn",
            Engine::AlphaBeta => "alphabeta",
            Engine::Couples => "couples",
        }
    }
}

/// The memory a search may take when given none: 1 GiB, or half of what the
/// machine has available if that is less (and at least [`MIN_MEMORY`]). A
/// cap, not what it takes: the transposition table starts at 1 MiB and
/// doubles as it fills.
pub fn default_memory() -> u64 {
    let half = memory_available().map_or(1 << 30, |m| m / 2);
    half.clamp(MIN_MEMORY, 1 << 30)
}

/// What a search tells as it runs. Every method has a default that does
/// nothing ([`Quiet`] takes them all).
pub trait Observer {
    /// The options, the output and the tables are ready, and the search
    /// (its loading included) begins: from here on a cancel stops it and
    /// it returns what it proved. A program that cancels on a signal may
    /// rather end at once on one that comes before.
    fn started(&self) {}
    /// A value search's counters, about once a second.
    fn values(&self, _stats: &Stats) {}
    /// A nimber search's counters, about once a second.
    fn nimbers(&self, _stats: &NimberStats) {}
    /// An alpha-beta search's counters, about once a second.
    fn alphabeta(&self, _stats: &alphabeta::Stats) {}
    /// Something the user should know (a warning, files removed).
    fn notice(&self, _notice: &Notice) {}
    /// The result, before it is saved: a long save, or one that fails, does
    /// not keep it from the user. [`SearchReport::saved`] is not set yet.
    fn proven(&self, _report: &SearchReport) {}
}

/// An [`Observer`] that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {}

/// What a search tells the user besides its result: each a complete line
/// (without the program's name).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice {
    /// Temporary files that killed runs of the same output left behind were
    /// removed.
    RemovedStale(Vec<PathBuf>),
    /// This many loaded entries are used without being re-proven.
    Trusted(u64),
    /// This many positions with contradictory bounds (a bug) were left out
    /// of the saved database.
    NotSaved(u64),
    /// The table is full and the root's proof numbers have not moved for a
    /// minute: the table is probably too small for the game.
    Stalled,
    /// A periodic save (`save_every`) wrote this database.
    Saved(Saved),
    /// A periodic save failed (the search goes on, and saves again later).
    SaveFailed(String),
    /// This many regions (lands met, counted again when met anew after
    /// being forgotten) were given nimber 0 by a strategy, not searched:
    /// Cram's mirror strategy.
    Mirrored(u64),
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::units::thousands;
        match self {
            Notice::RemovedStale(removed) => {
                f.write_str(&crate::format::stale_notice(removed).unwrap_or_default())
            }
            Notice::Trusted(n) => write!(
                f,
                "warning: --trust-load: {} loaded entries are used without being re-proven; a wrong or forged database gives wrong answers",
                thousands(*n)
            ),
            Notice::NotSaved(n) => write!(
                f,
                "warning: {} positions with contradictory bounds were not saved (a bug: please report it)",
                thousands(*n)
            ),
            Notice::Stalled => f.write_str(
                "warning: the table is full and the root's proof numbers have not moved for a minute: it is probably too small for this game; a larger --memory is usually far faster",
            ),
            Notice::Saved(s) => write!(
                f,
                "saved {} entries to {} ({}); the search goes on",
                thousands(s.entries as u64),
                s.path.display(),
                crate::units::human_bytes(s.bytes)
            ),
            Notice::SaveFailed(e) => write!(
                f,
                "warning: a periodic save failed, the search goes on and saves again later: {e}"
            ),
            Notice::Mirrored(n) => write!(
                f,
                "{} given nimber 0 by the mirror strategy (a symmetric region is lost for the player to move), not searched",
                match n {
                    1 => "1 region was".to_string(),
                    n => format!("{} regions were", thousands(*n)),
                }
            ),
        }
    }
}

/// What a search proved about one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A value search's answer.
    Value {
        /// What is known of the value for the player to move.
        bounds: Bounds,
        /// A move that achieves the value, in the game's notation.
        best_move: Option<String>,
    },
    /// A nimber search's answer: `None` if stopped first.
    Nimber(Option<u32>),
}

/// One position searched: the position itself, or one of its openings.
#[derive(Clone, Debug)]
pub struct Searched {
    /// The position, in the game's notation.
    pub position: String,
    /// What was proven.
    pub answer: Answer,
    /// Nodes (components) this position's search expanded.
    pub nodes: u64,
    /// How long it took.
    pub elapsed: Duration,
}

impl Searched {
    /// The value for the player to move, when proven (a nimber's: 0 loses).
    pub fn value(&self) -> Option<Value> {
        match &self.answer {
            Answer::Value { bounds, .. } => bounds.value(),
            Answer::Nimber(n) => n.map(|n| if n == 0 { Value::Lose } else { Value::Win }),
        }
    }
}

/// A search's counters at the end.
#[derive(Clone, Debug)]
pub enum Counters {
    /// A value search's.
    Values(Stats),
    /// A nimber search's.
    Nimbers(NimberStats),
}

impl Counters {
    /// Nodes (components) expanded.
    pub fn nodes(&self) -> u64 {
        match self {
            Counters::Values(s) => s.nodes,
            Counters::Nimbers(s) => s.nodes,
        }
    }

    /// The longest line searched, in plies (components).
    pub fn deepest(&self) -> u64 {
        match self {
            Counters::Values(s) => s.deepest,
            Counters::Nimbers(s) => s.deepest,
        }
    }
}

/// What `load` read and re-proved.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// Entries re-proven, searched for, left unchecked by a stop, trusted.
    pub report: CheckReport,
    /// How long reading and re-proving took.
    pub elapsed: Duration,
}

/// What a save wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The proof database.
    pub path: PathBuf,
    /// Entries written.
    pub entries: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// What [`run`] did.
#[derive(Debug)]
pub struct SearchReport {
    /// The game's canonical spec.
    pub game: String,
    /// Values or nimbers.
    pub kind: Kind,
    /// Whether the openings were searched (else the one position).
    pub openings: bool,
    /// Each position searched, in order. Empty only if the search was
    /// stopped while it listed the openings: nothing was searched (and
    /// nothing is saved).
    pub results: Vec<Searched>,
    /// Whether every position was proven.
    pub proven: bool,
    /// Why the search stopped before it proved them all.
    pub stopped: Option<Stop>,
    /// The counters at the end.
    pub counters: Counters,
    /// How long the searches took (loading not included).
    pub elapsed: Duration,
    /// The memory the search was given.
    pub memory: u64,
    /// The engine that proved the values (never [`Engine::Auto`]; `None`
    /// for nimbers, which have their own).
    pub engine: Option<Engine>,
    /// What was loaded, when something was.
    pub loaded: Option<Loaded>,
    /// The save's outcome, when one was asked for: the result stands even
    /// when the save failed.
    pub saved: Option<Result<Saved>>,
}

/// Proves the value (or nimber) of a position of `game`, or of each of its
/// openings, as `options` say: checks the options, prepares the output,
/// opens the tables, loads and re-proves the databases, searches, hands
/// the result to `observer` ([`Observer::proven`]) and saves. An error
/// before the search (a bad option, position, table or database) is
/// returned; a failed save is reported in [`SearchReport::saved`].
pub fn run(
    game: &AnySearch,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<SearchReport> {
    // Sprouts has engines of its own (sums of lands, canonical forms).
    if let AnySearch::Sprouts(g) = game {
        return super::games::sprouts::run::run(g, options, observer);
    }
    if options.engine == Engine::Couples {
        return match game {
            AnySearch::Cram(g) => super::games::cram_couples::run(g, options, observer),
            _ => Err(Error::SearchOption {
                option: "--engine",
                given: "couples".into(),
                rule: "sums normal-play Cram's regions (Sprouts' normal play always uses couples)"
                    .into(),
            }),
        };
    }
    if options.moves {
        return Err(Error::SearchOption {
            option: "--moves",
            given: String::new(),
            rule: "lists a Sprouts position's children (Glop's Children tab); other games list the positions after a move with --openings 1".into(),
        });
    }
    crate::with_search!(game, g => run_game(g, options, observer))
}

/// [`run`] for any [`SearchGame`].
pub fn run_game<G: SearchGame>(
    g: &G,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<SearchReport> {
    let (root, engine) = prepare(g, options)?;
    let target = save_target(options, observer)?;
    let leaves = open_leaves(g, &options.tablebases, options.nimber)?;
    observer.started();
    let roots = match options.openings {
        None => vec![root],
        Some(k) => match openings(g, &root, k, &options.cancel)? {
            Some(roots) => roots,
            None => {
                return Ok(SearchReport {
                    game: g.spec(),
                    kind: kind_of(options),
                    openings: true,
                    results: Vec::new(),
                    proven: false,
                    stopped: Some(Stop::Requested),
                    counters: Counters::Values(Stats::default()),
                    elapsed: Duration::ZERO,
                    memory: engine.memory,
                    engine: (!options.nimber).then(|| which_engine(g, options)),
                    loaded: None,
                    saved: None,
                })
            }
        },
    };
    let session = Session {
        g,
        options,
        engine,
        leaves: leaves.as_ref(),
        observer,
        carried: RefCell::new(Vec::new()),
    };
    if options.nimber {
        session.nimbers(&roots, target)
    } else {
        session.values(&roots, target)
    }
}

/// What [`check`] found.
#[derive(Clone, Debug)]
pub struct CheckOutcome {
    /// The game's canonical spec.
    pub game: String,
    /// The position asked about, in the game's notation.
    pub position: String,
    /// Values or nimbers.
    pub kind: Kind,
    /// Entries re-proven (all of them unless stopped), children searched.
    pub report: CheckReport,
    /// Distinct positions in the database.
    pub entries: u64,
    /// What the database says of the position.
    pub entry: Option<Fact>,
    /// Why the check stopped before it re-proved every entry.
    pub stopped: Option<Stop>,
    /// The longest line its searches went down.
    pub deepest: u64,
    /// The memory its searches were given.
    pub memory: u64,
    /// How long it took.
    pub elapsed: Duration,
}

/// Re-proves every entry of the proof database `database` from its
/// children, with the tables and limits of `options` (which may not load,
/// save or list openings), and says what it holds for the position. An
/// entry that does not hold is an [`Error::RefutedProof`]; a stop leaves no
/// verdict ([`CheckOutcome::stopped`]).
pub fn check(
    game: &AnySearch,
    database: &Path,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<CheckOutcome> {
    if let AnySearch::Sprouts(g) = game {
        return super::games::sprouts::run::check(g, database, options, observer);
    }
    // Normal-play Cram's nimber databases: by couples when asked, or
    // when the database is not closed under moves (see
    // `cram_couples::check`).
    if let AnySearch::Cram(g) = game {
        if options.engine == Engine::Couples || (options.engine == Engine::Auto && !g.misere()) {
            return super::games::cram_couples::check(g, database, options, observer);
        }
    }
    crate::with_search!(game, g => check_game(g, database, options, observer))
}

/// How a check re-proves a nimber database: given the database, the
/// engine's options and the stop it must heed, its report, why its search
/// stopped and the longest line it went down; or `None` to leave the
/// database to the plain component search.
pub(crate) type NimberCheck<'c, G> = Box<
    dyn FnOnce(
            &proofdb::Merged<G>,
            &Options,
            &dyn Fn() -> bool,
        ) -> Result<Option<(proofdb::CheckReport, Option<Stop>, u64)>>
        + 'c,
>;

/// [`check`] for any [`SearchGame`].
pub fn check_game<G: SearchGame>(
    g: &G,
    database: &Path,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<CheckOutcome> {
    check_game_with(g, database, options, observer, None)
}

/// [`check_game`], with nimber entries re-proved by `nimbers` if given
/// (else by the plain component search, with the tables as leaves).
pub(crate) fn check_game_with<G: SearchGame>(
    g: &G,
    database: &Path,
    options: &SearchOptions,
    observer: &dyn Observer,
    nimbers: Option<NimberCheck<'_, G>>,
) -> Result<CheckOutcome> {
    if !options.load.is_empty() || options.save.is_some() || options.openings.is_some() {
        return Err(Error::SearchOption {
            option: "--check",
            given: Error::quote_path(database),
            rule: "re-proves one database: it does not load, save or list openings".into(),
        });
    }
    let (root, engine) = prepare(g, options)?;
    let leaves = open_leaves(g, &options.tablebases, options.nimber)?;
    observer.started();
    let (kind, db) = proofdb::read(
        g,
        std::slice::from_ref(&database.to_path_buf()),
        None,
        engine.memory,
    )?;
    let started = Instant::now();
    // The limits bound the searches the check makes, as they bound a
    // search; a stop (a limit, a cancel) leaves no verdict.
    let cancel = options.cancel.clone();
    let requested = move || cancel.is_cancelled();
    // Nimbers by the plain component search, with the tables as leaves.
    let plain = || -> Result<(CheckReport, Option<Stop>, u64)> {
        let view = leaves.as_ref().map(Leaves::nimbers);
        let mut search = nimber_search(g, &engine);
        if let Some(v) = &view {
            search = search.with_leaves(v);
        }
        let r = proofdb::verify_nimbers(g, &db, &mut search, &requested)?;
        Ok((r, search.stop_reason(), search.stats().deepest))
    };
    let (report, stop, deepest) = match kind {
        Kind::Values if which_engine(g, options) == Engine::AlphaBeta => {
            let mut ab = AlphaBeta::new(g, alphabeta_options(&engine));
            if let Some(l) = &leaves {
                ab = ab.with_leaves(l.values());
            }
            let r = proofdb::verify_values(g, &db, &mut ab, &requested)?;
            (r, ab.stop_reason(), ab.stats().deepest)
        }
        Kind::Values => {
            let mut dfpn = Dfpn::new(g, engine.clone());
            if let Some(l) = &leaves {
                dfpn = dfpn.with_leaves(l.values());
            }
            let r = proofdb::verify_values(g, &db, &mut dfpn, &requested)?;
            (r, dfpn.stop_reason(), dfpn.stats().deepest)
        }
        Kind::Nimbers if nimbers.is_some() => {
            let nimbers = nimbers.expect("given");
            match nimbers(&db, &engine, &requested)? {
                Some(r) => r,
                None => plain()?,
            }
        }
        Kind::Nimbers => plain()?,
    };
    // A cancel may be seen first between entries, outside a search.
    let stopped = (report.unchecked > 0).then(|| stop.unwrap_or(Stop::Requested));
    Ok(CheckOutcome {
        game: g.spec(),
        position: g.format_position(&root),
        kind,
        report,
        entries: db.len() as u64,
        entry: db.fact(&g.key(&root)),
        stopped,
        deepest,
        memory: engine.memory,
        elapsed: started.elapsed(),
    })
}

fn kind_of(options: &SearchOptions) -> Kind {
    if options.nimber {
        Kind::Nimbers
    } else {
        Kind::Values
    }
}

/// The engine that proves values: the one asked for, or per game.
fn which_engine<G: SearchGame>(g: &G, options: &SearchOptions) -> Engine {
    match options.engine {
        Engine::Auto
            if options.epsilon.is_none()
                && options.save_every.is_none()
                && alphabeta::preferred(g) =>
        {
            Engine::AlphaBeta
        }
        Engine::Auto => Engine::Dfpn,
        e => e,
    }
}

/// Alpha-beta's options: the memory, limits and threads of `engine` (one
/// `--memory`, one `--threads` for both engines).
fn alphabeta_options(engine: &Options) -> alphabeta::Options {
    alphabeta::Options {
        memory: engine.memory,
        threads: engine.threads.max(1),
        node_limit: engine.node_limit,
        time_limit: engine.time_limit,
        cancel: engine.cancel.clone(),
        native: true,
    }
}

/// The position and the engine's options, once every option is checked.
pub(crate) fn prepare<G: SearchGame>(g: &G, options: &SearchOptions) -> Result<(G::Pos, Options)> {
    let root = match &options.position {
        Some(s) => g.parse_position(s).map_err(|reason| Error::BadPosition {
            input: s.clone(),
            reason,
        })?,
        None => g.start(),
    };
    let epsilon = options.epsilon.unwrap_or(Options::default().epsilon);
    if !(MIN_EPSILON..=MAX_EPSILON).contains(&epsilon) {
        return Err(Error::SearchOption {
            option: "--epsilon",
            given: epsilon.to_string(),
            rule: format!(
                "must be from {MIN_EPSILON} to {MAX_EPSILON} (below {MIN_EPSILON} the search is plain df-pn, which re-expands the same positions without end once its table is full)"
            ),
        });
    }
    if options.time_limit == Some(Duration::ZERO) {
        return Err(Error::SearchOption {
            option: "--time",
            given: "0".into(),
            rule: "must be a positive number of seconds".into(),
        });
    }
    if options.node_limit == Some(0) {
        return Err(Error::SearchOption {
            option: "--nodes",
            given: "0".into(),
            rule: "must be at least 1 (the nodes a search may expand)".into(),
        });
    }
    let memory = options.memory.unwrap_or_else(default_memory);
    if memory < MIN_MEMORY {
        return Err(Error::MemoryTooSmall {
            memory,
            minimum: MIN_MEMORY,
        });
    }
    if let Some(available) = memory_available() {
        if memory > available {
            return Err(Error::MemoryUnavailable {
                memory,
                load: None,
                available,
            });
        }
    }
    if options.nimber && !g.impartial() {
        return Err(Error::NotImpartial { spec: g.spec() });
    }
    if options.threads > MAX_THREADS {
        return Err(Error::SearchOption {
            option: "--threads",
            given: options.threads.to_string(),
            rule: format!("must be from 1 to {MAX_THREADS}"),
        });
    }
    if let Some(every) = options.save_every {
        if options.save.is_none() {
            return Err(Error::SearchOption {
                option: "--save-every",
                given: format!("{}", every.as_secs_f64()),
                rule: "saves to the --save FILE: give one".into(),
            });
        }
        if every.is_zero() {
            return Err(Error::SearchOption {
                option: "--save-every",
                given: "0".into(),
                rule: "must be a positive number of seconds".into(),
            });
        }
    }
    if options.engine == Engine::AlphaBeta {
        if options.nimber {
            return Err(Error::SearchOption {
                option: "--engine",
                given: "alphabeta".into(),
                rule: "proves values; --nimber computes nimbers by component search".into(),
            });
        }
        if let Some(e) = options.epsilon {
            return Err(Error::SearchOption {
                option: "--epsilon",
                given: e.to_string(),
                rule: "is df-pn's (the 1+ε trick); alpha-beta has no ε".into(),
            });
        }
        if let Some(every) = options.save_every {
            return Err(Error::SearchOption {
                option: "--save-every",
                given: format!("{}", every.as_secs_f64()),
                rule: "is df-pn's (periodic saves); alpha-beta saves at its end".into(),
            });
        }
    }
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let engine = Options {
        memory,
        epsilon,
        node_limit: options.node_limit,
        time_limit: options.time_limit,
        cancel: options.cancel.clone(),
        threads,
        ..Options::default()
    };
    Ok((root, engine))
}

/// A nimber search with the limits of `engine`.
fn nimber_search<'a, G: SearchGame>(g: &'a G, engine: &Options) -> NimberSearch<'a, G> {
    NimberSearch::new(g, engine.memory)
        .with_time_limit(engine.time_limit)
        .with_node_limit(engine.node_limit)
        .with_cancel(engine.cancel.clone())
}

/// One search's game, options and tables.
struct Session<'a, G: SearchGame> {
    g: &'a G,
    options: &'a SearchOptions,
    engine: Options,
    leaves: Option<&'a Leaves>,
    observer: &'a dyn Observer,
    /// Entries loaded but not re-proven (the load was stopped first):
    /// carried into every save as they were read.
    carried: RefCell<proofdb::Records<G>>,
}

impl<G: SearchGame> Session<'_, G> {
    /// The values of `roots` by alpha-beta, one table shared by all.
    fn values_alphabeta(
        &self,
        roots: &[G::Pos],
        target: Option<SaveTarget>,
    ) -> Result<SearchReport> {
        let (g, observer) = (self.g, self.observer);
        let options = alphabeta_options(&self.engine);
        let threads = options.threads;
        let mut ab = AlphaBeta::new(g, options)
            .with_progress(move |s: &alphabeta::Stats| observer.alphabeta(s));
        if let Some(l) = self.leaves {
            ab = ab.with_leaves(l.values());
        }
        let loaded = self.load(Kind::Values, |db, stop| {
            if self.options.trust_load {
                Ok(proofdb::trust_values(db, &mut ab))
            } else {
                proofdb::verify_values(g, db, &mut ab, stop)
            }
        })?;
        let (results, elapsed) = each(g, roots, |p| {
            let before = ab.stats().nodes;
            let proof = ab.prove(p);
            let answer = Answer::Value {
                bounds: proof.bounds,
                best_move: proof.best_move.as_ref().map(|m| g.format_move(m)),
            };
            (answer, proof.stats.nodes - before, ab.stop_reason())
        });
        let stop = ab.stop_reason();
        let s = ab.stats();
        // The table doubles while it stays within the memory: what it may
        // grow to, in bytes and entries.
        let mut max_bytes = s.tt_bytes.max(1);
        while max_bytes * 2 <= self.engine.memory {
            max_bytes *= 2;
        }
        let counters = Counters::Values(Stats {
            nodes: s.nodes,
            leaf_hits: s.leaf_hits,
            tt_used: s.tt_used,
            tt_capacity: s.tt_capacity,
            tt_bytes: s.tt_bytes,
            tt_max: s.tt_capacity * (max_bytes / s.tt_bytes.max(1)),
            tt_max_bytes: max_bytes,
            target: s.target,
            elapsed: s.elapsed,
            deepest: s.deepest,
            threads,
            ..Stats::default()
        });
        let mut report = self.report(roots, results, stop, counters, elapsed, loaded);
        report.engine = Some(Engine::AlphaBeta);
        observer.proven(&report);
        if let Some(t) = target {
            // Gathered before the table is freed, written after, as
            // df-pn's are.
            let facts = ab.proven();
            drop(ab);
            let mut facts = value_facts(g, facts, observer, true);
            with_carried(g, &mut facts, &self.carried.borrow(), value_fact);
            report.saved = Some(save_records(g, Ok(t), Kind::Values, &mut facts));
        }
        Ok(report)
    }

    /// The values of `roots`, one transposition table shared by all.
    fn values(&self, roots: &[G::Pos], target: Option<SaveTarget>) -> Result<SearchReport> {
        if which_engine(self.g, self.options) == Engine::AlphaBeta {
            return self.values_alphabeta(roots, target);
        }
        let (g, observer) = (self.g, self.observer);
        let mut stall = Stall::default();
        // The periodic saves and the last one share the target.
        let target = RefCell::new(target);
        let mut dfpn = Dfpn::new(g, self.engine.clone()).with_progress(move |s: &Stats| {
            observer.values(s);
            if stall.update(s) {
                observer.notice(&Notice::Stalled);
            }
        });
        if let (Some(every), true) = (self.options.save_every, target.borrow().is_some()) {
            let (target, carried) = (&target, &self.carried);
            dfpn = dfpn.with_snapshots(every, move |facts| {
                if let Some(t) = target.borrow_mut().as_mut() {
                    let mut facts = value_facts(g, facts, observer, false);
                    with_carried(g, &mut facts, &carried.borrow(), value_fact);
                    observer.notice(&match save_records(g, Err(t), Kind::Values, &mut facts) {
                        Ok(saved) => Notice::Saved(saved),
                        Err(e) => Notice::SaveFailed(e.to_string()),
                    });
                }
            });
        }
        if let Some(l) = self.leaves {
            dfpn = dfpn.with_leaves(l.values());
        }
        // The records are consumed here, not kept through the search: those
        // re-proven are handed to the search.
        let loaded = self.load(Kind::Values, |db, stop| {
            if self.options.trust_load {
                Ok(proofdb::trust_values(db, &mut dfpn))
            } else {
                proofdb::verify_values(g, db, &mut dfpn, stop)
            }
        })?;
        let (results, elapsed) = each(g, roots, |p| {
            let before = dfpn.stats().nodes;
            let proof = dfpn.prove(p);
            let answer = Answer::Value {
                bounds: proof.bounds,
                best_move: proof.best_move.as_ref().map(|m| g.format_move(m)),
            };
            (answer, proof.stats.nodes - before, dfpn.stop_reason())
        });
        let stop = dfpn.stop_reason();
        let counters = Counters::Values(dfpn.stats());
        let mut report = self.report(roots, results, stop, counters, elapsed, loaded);
        observer.proven(&report);
        if target.borrow().is_some() {
            // Gathered before the table is freed, written after: the save
            // never holds the table and the file's records at once.
            let facts: Vec<_> = dfpn.proven().collect();
            drop(dfpn);
            let mut facts = value_facts(g, facts, observer, true);
            with_carried(g, &mut facts, &self.carried.borrow(), value_fact);
            report.saved = target
                .into_inner()
                .map(|t| save_records(g, Ok(t), Kind::Values, &mut facts));
        }
        Ok(report)
    }

    /// The nimbers of `roots` by component search, one memo shared by all.
    fn nimbers(&self, roots: &[G::Pos], target: Option<SaveTarget>) -> Result<SearchReport> {
        let (g, observer) = (self.g, self.observer);
        let view = self.leaves.map(Leaves::nimbers);
        let target = RefCell::new(target);
        let mut search = nimber_search(g, &self.engine)
            .with_progress(move |s: &NimberStats| observer.nimbers(s));
        if let (Some(every), true) = (self.options.save_every, target.borrow().is_some()) {
            let (target, carried) = (&target, &self.carried);
            search = search.with_snapshots(every, move |known| {
                if let Some(t) = target.borrow_mut().as_mut() {
                    let mut records: Vec<_> = known
                        .map(|(k, n, p)| Record {
                            key: *k,
                            fact: Fact::Nimber(n),
                            pos: p.clone(),
                        })
                        .collect();
                    with_carried(g, &mut records, &carried.borrow(), Record::with_fact);
                    observer.notice(
                        &match save_records(g, Err(t), Kind::Nimbers, &mut records) {
                            Ok(saved) => Notice::Saved(saved),
                            Err(e) => Notice::SaveFailed(e.to_string()),
                        },
                    );
                }
            });
        }
        if let Some(v) = &view {
            search = search.with_leaves(v);
        }
        let loaded = self.load(Kind::Nimbers, |db, stop| {
            if self.options.trust_load {
                Ok(proofdb::trust_nimbers(db, &mut search))
            } else {
                proofdb::verify_nimbers(g, db, &mut search, stop)
            }
        })?;
        let (results, elapsed) = each(g, roots, |p| {
            let before = search.stats().nodes;
            let n = search.nimber(p);
            let nodes = search.stats().nodes - before;
            (Answer::Nimber(n), nodes, search.stop_reason())
        });
        let stop = search.stop_reason();
        let counters = Counters::Nimbers(search.stats());
        let mut report = self.report(roots, results, stop, counters, elapsed, loaded);
        observer.proven(&report);
        let target = target.borrow_mut().take();
        report.saved = target.map(|t| {
            let mut records: Vec<_> = search
                .known()
                .map(|(k, n, p)| Record {
                    key: *k,
                    fact: Fact::Nimber(n),
                    pos: p.clone(),
                })
                .collect();
            with_carried(g, &mut records, &self.carried.borrow(), Record::with_fact);
            save_records(g, Ok(t), Kind::Nimbers, &mut records)
        });
        Ok(report)
    }

    /// The report of searching `roots` (the openings after a stop were not
    /// searched).
    fn report(
        &self,
        roots: &[G::Pos],
        results: Vec<Searched>,
        stop: Option<Stop>,
        counters: Counters,
        elapsed: Duration,
        loaded: Option<Loaded>,
    ) -> SearchReport {
        let proven = results.len() == roots.len() && results.iter().all(|r| r.value().is_some());
        SearchReport {
            game: self.g.spec(),
            kind: kind_of(self.options),
            openings: self.options.openings.is_some(),
            results,
            proven,
            stopped: stop.filter(|_| !proven),
            counters,
            elapsed,
            memory: self.engine.memory,
            engine: (!self.options.nimber).then_some(Engine::Dfpn),
            loaded,
            saved: None,
        }
    }

    /// `load`: reads and merges the databases and has `verify` re-prove
    /// every entry, handing those that hold to the search (or, trusted,
    /// hands them all over, with a warning). A stop (a cancel, the time
    /// limit) ends the re-proving early: the entries not re-proven are not
    /// used, but carried into the run's saves as read.
    fn load(
        &self,
        kind: Kind,
        verify: impl FnOnce(&Merged<G>, &dyn Fn() -> bool) -> Result<CheckReport>,
    ) -> Result<Option<Loaded>> {
        if self.options.load.is_empty() {
            return Ok(None);
        }
        let started = Instant::now();
        let (_, db) = proofdb::read(self.g, &self.options.load, Some(kind), self.engine.memory)?;
        let deadline = self.engine.time_limit.map(|t| started + t);
        let cancel = &self.engine.cancel;
        let stop = || cancel.is_cancelled() || deadline.is_some_and(|d| Instant::now() >= d);
        carry_while_loading(self.options, &db, &self.carried);
        let report = verify(&db, &stop)?;
        if report.trusted > 0 {
            self.observer.notice(&Notice::Trusted(report.trusted));
        }
        *self.carried.borrow_mut() = db.carried(&report);
        Ok(Some(Loaded {
            report,
            elapsed: started.elapsed(),
        }))
    }
}

/// Proves `roots` one after another with `prove` (what it answered, the
/// nodes it expanded, why its engine stopped); the searches and how long
/// they took together.
fn each<G: SearchGame>(
    g: &G,
    roots: &[G::Pos],
    mut prove: impl FnMut(&G::Pos) -> (Answer, u64, Option<Stop>),
) -> (Vec<Searched>, Duration) {
    let started = Instant::now();
    let mut results = Vec::new();
    for p in roots {
        let t = Instant::now();
        let (answer, nodes, stop) = prove(p);
        results.push(Searched {
            position: g.format_position(p),
            answer,
            nodes,
            elapsed: t.elapsed(),
        });
        // Once stopped, every later proof would return at once, unproven.
        if stop.is_some() {
            break;
        }
    }
    (results, started.elapsed())
}

/// `save`: the output checked, locked and given its temporary file before
/// the search (see [`SaveTarget`]). The run's inputs — `inputs` (a pattern
/// file), the databases loaded, the tables — are never replaced, whatever
/// path names them.
pub(crate) fn save_target(
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<Option<SaveTarget>> {
    let Some(path) = &options.save else {
        return Ok(None);
    };
    let mut inputs = options.inputs.clone();
    inputs.extend(options.load.iter().cloned());
    inputs.extend(options.tablebases.iter().cloned());
    let target = SaveTarget::prepare(path, &inputs)?;
    if !target.removed_stale().is_empty() {
        observer.notice(&Notice::RemovedStale(target.removed_stale().to_vec()));
    }
    Ok(Some(target))
}

/// Writes `records` through `target` (Sprouts' engines give whole
/// records). Bounds that contradict each other are a bug, not a fact: they
/// are left out, and said.
pub(crate) fn save<G: SearchGame>(
    g: &G,
    target: SaveTarget,
    kind: Kind,
    records: impl Iterator<Item = proofdb::Record<G::Pos, G::Key>>,
    observer: &dyn Observer,
) -> Result<Saved> {
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
        observer.notice(&Notice::NotSaved(impossible));
    }
    save_records(g, Ok(target), kind, &mut records)
}

/// Adds to `records` the entries a stopped load left unchecked (`carried`,
/// see [`CheckReport::left`]), each made by `make` from the entry read and
/// its fact: a key both hold keeps the bounds both give (each was proven,
/// so their meet holds), or the run's if they contradict (a forged file's
/// entry is never preferred to what the run proved).
pub(crate) fn with_carried<G: SearchGame, T: proofdb::Written<G>>(
    _game: &G,
    records: &mut Vec<T>,
    carried: &[Record<G::Pos, G::Key>],
    make: impl Fn(&Record<G::Pos, G::Key>, Fact) -> T,
) {
    if carried.is_empty() {
        return;
    }
    let at: std::collections::HashMap<G::Key, usize> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (*r.key(), i))
        .collect();
    for r in carried {
        match at.get(&r.key) {
            None => records.push(make(r, r.fact)),
            Some(&i) => {
                if let (Fact::Value(a), Fact::Value(b)) = (records[i].fact(), r.fact) {
                    let m = a.meet(b);
                    if m.lo <= m.hi {
                        records[i] = make(r, Fact::Value(m));
                    }
                }
            }
        }
    }
}

/// Before a load re-proves its entries: with periodic saves on, every
/// entry read is carried until the re-proving ends (then only those it
/// left), so that a save made while re-proving — the run killed before it
/// ends — holds them all. Without periodic saves no copy is made.
pub(crate) fn carry_while_loading<G: SearchGame>(
    options: &SearchOptions,
    db: &Merged<G>,
    carried: &RefCell<proofdb::Records<G>>,
) {
    if options.save_every.is_some() && options.save.is_some() {
        *carried.borrow_mut() = db.records().to_vec();
    }
}

/// A carried entry as a search's value fact (its position named from the
/// key when written, as the run's own).
fn value_fact<P, K: Copy>(r: &Record<P, K>, fact: Fact) -> (K, Fact) {
    (r.key, fact)
}

/// A periodic save (`--save-every`) of `records` through `target`, said to
/// the observer whether it was written or failed (a failed save leaves the
/// last one in place, and the search goes on).
pub(crate) fn save_snapshot<G: SearchGame>(
    g: &G,
    target: &mut SaveTarget,
    kind: Kind,
    records: impl Iterator<Item = proofdb::Record<G::Pos, G::Key>>,
    observer: &dyn Observer,
) {
    let mut records: Vec<_> = records
        .filter(|r| !matches!(r.fact, Fact::Value(b) if b.lo > b.hi))
        .collect();
    observer.notice(&match save_records(g, Err(target), kind, &mut records) {
        Ok(saved) => Notice::Saved(saved),
        Err(e) => Notice::SaveFailed(e.to_string()),
    });
}

/// What a value search proved, as the entries of a proof database. Bounds
/// that contradict each other are a bug, not a fact: they are left out, and
/// said (when `tell`). Positions whose key the game cannot turn back into a
/// position are not saved.
fn value_facts<G: SearchGame>(
    g: &G,
    facts: Vec<(G::Key, Bounds)>,
    observer: &dyn Observer,
    tell: bool,
) -> Vec<(G::Key, Fact)> {
    let mut impossible = 0u64;
    let mut facts: Vec<(G::Key, Fact)> = facts
        .into_iter()
        .filter(|(_, b)| {
            let ok = b.lo <= b.hi;
            impossible += u64::from(!ok);
            ok
        })
        .map(|(k, b)| (k, Fact::Value(b)))
        .collect();
    if impossible > 0 && tell {
        observer.notice(&Notice::NotSaved(impossible));
    }
    proofdb::nameable(g, &mut facts);
    facts
}

/// Writes `records` through `target`: the last save (which releases the
/// output), or with `target` kept, a periodic one.
fn save_records<G: SearchGame>(
    g: &G,
    target: Result<SaveTarget, &mut SaveTarget>,
    kind: Kind,
    records: &mut [impl proofdb::Written<G>],
) -> Result<Saved> {
    let (path, bytes) = match target {
        Ok(t) => (t.path().to_path_buf(), t.save(g, kind, records)?),
        Err(t) => (t.path().to_path_buf(), t.save_now(g, kind, records)?),
    };
    Ok(Saved {
        path,
        entries: records.len(),
        bytes,
    })
}

/// The tables given as leaves.
struct Leaves {
    tables: TableLeaves,
    cram: Option<CramNimberLeaves>,
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
struct NimberView<'a>(Option<&'a CramNimberLeaves>, &'a TableLeaves);

impl<G: SearchGame> NimberLeaves<G> for NimberView<'_> {
    fn nimber(&self, g: &G, p: &G::Pos) -> Option<u32> {
        self.0
            .and_then(|c| c.nimber_of(g, p))
            .or_else(|| NimberLeaves::nimber(self.1, g, p))
    }
}

/// Opens the tables, refusing tables no position of this search can be in.
/// Every table is opened verified (its data CRC checked) by
/// [`TableLeaves::open`] or the Cram nimber leaves, whichever uses it.
fn open_leaves<G: SearchGame>(g: &G, paths: &[PathBuf], nimber: bool) -> Result<Option<Leaves>> {
    if paths.is_empty() {
        return Ok(None);
    }
    let spec = g.spec();
    let is_cram = spec.starts_with("cram:") && g.impartial();
    let mut same = Vec::new();
    let mut cram = Vec::new();
    for path in paths {
        let tb = crate::Tablebase::open(path).map_err(|e| Error::File {
            path: path.clone(),
            error: Box::new(e),
        })?;
        let table_spec = tb.header().spec.clone();
        let unfolded =
            crate::with_game!(tb.game(), t => crate::Game::spec(&crate::Game::unfolded(t)));
        if unfolded == spec {
            same.push(path.clone());
        } else if is_cram && nimber && table_spec.starts_with("cram:") {
            cram.push(path.clone());
        } else {
            return Err(Error::LeafTable {
                path: path.clone(),
                reason: format!(
                    "a table of {}; this search of {spec} can use tables of the same game{}",
                    Error::quote(&table_spec),
                    if is_cram {
                        " (or, with --nimber, Cram nimber tables)"
                    } else {
                        ""
                    }
                ),
            });
        }
    }
    let tables = TableLeaves::open(&same)?;
    let cram = if cram.is_empty() {
        None
    } else {
        Some(CramNimberLeaves::open(&cram)?)
    };
    Ok(Some(Leaves { tables, cram }))
}

/// The distinct positions (up to symmetry) `plies` moves after `root`,
/// stopping at game-over positions on the way; `None` if `cancel` was
/// cancelled while listing them.
pub(crate) fn openings<G: SearchGame>(
    g: &G,
    root: &G::Pos,
    plies: u32,
    cancel: &Cancel,
) -> Result<Option<Vec<G::Pos>>> {
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
            if cancel.is_cancelled() {
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
                return Err(too_many_openings(plies, ply));
            }
        }
        level = next;
    }
    Ok(Some(level))
}

/// The refusal of an `--openings` listing that passed [`MAX_OPENINGS`]
/// distinct positions after `ply` of its `plies`: one message for every
/// game's listing.
pub(crate) fn too_many_openings(plies: impl ToString, ply: impl std::fmt::Display) -> Error {
    Error::SearchOption {
        option: "--openings",
        given: plies.to_string(),
        rule: format!(
            "more than {MAX_OPENINGS} distinct positions after {ply} plies; use fewer plies"
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
}
