//! A whole search as one call: what `retrograde search` does, for any
//! program, and the one session loop every engine runs in. [`run`] checks
//! the options, prepares the output, opens the tables, lists the openings,
//! asks the game for its engine ([`Engines::prover`]), loads and re-proves
//! proof databases, proves the position (or each opening) and saves what it
//! proved; [`check`] re-proves a proof database with the same engine. No
//! game is named here: what differs between games (their engines, the
//! tables they take, the options they refuse) each game representation
//! declares ([`Engines`]). The command line only parses its arguments into
//! [`SearchOptions`], calls one of them and prints the report.
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

use super::distance::Exact;
pub use super::engine::{Answer, Engine, Notice, Saved, SearchOptions};
use super::engine::{Options, Stats};
use super::games::AnySearch;
use super::proofdb::{self, CheckReport, Fact, Kind, Record, Records, SaveTarget};
use super::prover::{Engines, Proved, Prover, Purpose, Setup, SnapshotFn};
use super::{Bounds, Limits, SearchGame, Stop};
use crate::error::{Error, Result};
use crate::solve::memory_available;
use crate::value::{Outcome, Value};
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;
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
    /// The engine's counters, about once a second.
    fn progress(&self, _stats: &Stats) {}
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

/// One position searched: the position itself, one of its openings, or
/// with [`SearchOptions::moves`] the position after one of its moves.
#[derive(Clone, Debug)]
pub struct Searched {
    /// The position, in the game's notation.
    pub position: String,
    /// With `moves`, for each listed move: the move that leads from the
    /// searched position to this one, in the game's notation (Sprouts,
    /// whose moves are written as the positions they lead to: the
    /// position). `None` for the searched position and for openings.
    pub mv: Option<String>,
    /// The player to move in `position`, for games whose players take
    /// turns and are named (`player 0`, as the tables' `probe` says);
    /// `None` for impartial games and games that do not say.
    pub to_move: Option<u8>,
    /// What was proven, for the player to move in `position` (for a listed
    /// move: for the mover's opponent; [`Searched::for_mover`] turns it).
    pub answer: Answer,
    /// Plies from `position` to the end of the game under perfect play, as
    /// the tables count remoteness (the fastest win, the slowest loss), when
    /// the engine gave it: alpha-beta on the gravity boards always, the
    /// other engines with [`SearchOptions::exact`].
    pub remoteness: Option<u32>,
    /// Connect-Four's score of `position` for its player to move, as
    /// Pascal Pons' solver gives it: positive a win (the more the sooner:
    /// 1 + the stones the winner has left when the game ends), 0 a draw,
    /// negative a loss (the same count for the opponent). `None` where the
    /// engine gives no score.
    pub score: Option<i32>,
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

    /// A listed move's worth for the player who makes it: the value of
    /// the position it leads to turned over, with that position's
    /// remoteness (as the tables' `probe --moves` gives it: "win in 0" is a
    /// move that wins at once). `None` when unproven.
    pub fn for_mover(&self) -> Option<Outcome> {
        self.value().map(|v| Outcome {
            value: v.flip(),
            remoteness: self.remoteness,
        })
    }

    /// A listed move's score for the player who makes it (Connect-Four,
    /// Pons' score: see [`Searched::score`]).
    pub fn mover_score(&self) -> Option<i32> {
        self.score.map(|s| -s)
    }

    /// How a listed move ranks for its mover, smaller first: a win by the
    /// fewest plies, a tie, an unproven move, a loss by the most plies
    /// (the tables' order, [`Outcome::child_rank`]).
    pub(crate) fn rank(&self) -> (u8, i64) {
        match self.value() {
            Some(v) => Outcome {
                value: v,
                remoteness: self.remoteness,
            }
            .child_rank(),
            None => (2, 0),
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

/// What [`run`] did.
#[derive(Debug)]
pub struct SearchReport {
    /// The game's canonical spec.
    pub game: String,
    /// Values or nimbers.
    pub kind: Kind,
    /// Whether the openings were searched (else the one position).
    pub openings: bool,
    /// Whether the results are the position and its moves
    /// ([`SearchReport::moves`]).
    pub listed_moves: bool,
    /// Each position searched, in order. Empty only if the search was
    /// stopped while it listed the openings: nothing was searched (and
    /// nothing is saved).
    pub results: Vec<Searched>,
    /// Whether every position was proven.
    pub proven: bool,
    /// Why the search stopped before it proved them all.
    pub stopped: Option<Stop>,
    /// The engine's counters at the end.
    pub stats: Stats,
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

impl SearchReport {
    /// With [`SearchOptions::moves`]: the searched position's result, and
    /// one result per legal move ([`Searched::mv`]), best first for the
    /// mover ([`Searched::for_mover`]). `None` for other searches, or when
    /// nothing was searched.
    pub fn moves(&self) -> Option<(&Searched, &[Searched])> {
        match self.listed_moves {
            true => self.results.split_first(),
            false => None,
        }
    }
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
    crate::with_search!(game, g => run_game(g, options, observer))
}

/// [`run`] for any game representation: the session loop.
pub fn run_game<G: Engines>(
    g: &G,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<SearchReport> {
    g.refuse(options)?;
    let begun = Instant::now();
    let (root, mut engine) = prepare(g, options)?;
    let kind = g.kind(options);
    // The periodic saves and the last one share the target.
    let target = RefCell::new(save_target(options, observer)?);
    let leaves = g.leaves(options, &options.tablebases, kind)?;
    observer.started();
    let roots = match listed(g, &root, options, &engine)? {
        Ok(roots) => roots,
        Err(stop) => {
            return Ok(SearchReport {
                game: g.spec(),
                kind,
                openings: true,
                listed_moves: options.moves,
                results: Vec::new(),
                proven: false,
                stopped: Some(stop),
                stats: Stats::default(),
                elapsed: Duration::ZERO,
                memory: engine.memory,
                engine: None,
                loaded: None,
                saved: None,
            })
        }
    };
    // The time limit bounds the run, the listing of the openings included
    // (thousands of Sprouts positions of hundreds of lands take a good part
    // of a second): what is left of it bounds the search.
    engine.time_limit = engine.time_limit.map(|t| {
        t.saturating_sub(begun.elapsed())
            .max(Duration::from_nanos(1))
    });
    // Entries loaded but not re-proven (the load was stopped first): carried
    // into every save as they were read, so that a run stopped while loading
    // loses nothing it was given (the next load re-proves them).
    let carried: RefCell<Records<G>> = RefCell::new(Vec::new());
    let snapshots = match (options.save_every, target.borrow().is_some()) {
        (Some(every), true) => {
            let (target, carried) = (&target, &carried);
            let save: SnapshotFn<'_, G> = Box::new(move |proved| {
                if let Some(t) = target.borrow_mut().as_mut() {
                    observer.notice(
                        &match write(g, Err(t), kind, proved, &carried.borrow(), None) {
                            Ok(saved) => Notice::Saved(saved),
                            Err(e) => Notice::SaveFailed(e.to_string()),
                        },
                    );
                }
            });
            Some((every, save))
        }
        _ => None,
    };
    let (progress, notice) = tell(observer);
    let mut prover = g.prover(Setup {
        request: options,
        options: &engine,
        kind,
        leaves: leaves.as_ref(),
        progress: &progress,
        notice: &notice,
        snapshots,
        purpose: Purpose::Search,
    })?;
    let loaded = load(g, options, &engine, kind, &mut *prover, observer, &carried)?;
    let started = Instant::now();
    let mut results = Vec::new();
    // The positions proven, for an engine that saves their proofs only.
    let mut proved = Vec::new();
    // With --exact, the distances no engine gives of its own.
    let mut exact = options.exact.then(|| {
        let left = engine
            .time_limit
            .map(|t| t.saturating_sub(started.elapsed()));
        Exact::new(g, &engine, left)
    });
    // With scores (Connect-Four), a position's score is its moves' best:
    // the position is not searched apart.
    let from_moves = options.moves && options.save.is_none() && prover.scores() && roots.len() > 1;
    // Then every move's score first, the moves shared among the threads:
    // by root, the distance, nodes and time.
    let mut scored_first: Vec<Option<super::prover::Distanced>> = if from_moves {
        let moves: Vec<G::Pos> = roots[1..].iter().map(|(_, p)| p.clone()).collect();
        std::iter::once(None)
            .chain(prover.distances(&moves).into_iter().map(Some))
            .collect()
    } else {
        Vec::new()
    };
    for (i, (mv, p)) in roots.iter().enumerate() {
        let t = Instant::now();
        let before = prover.stats().nodes;
        let first = scored_first.get_mut(i).and_then(Option::take);
        if i == 0 && from_moves {
            results.push(Searched {
                position: g.format_position(p),
                mv: None,
                to_move: g.to_move(p),
                answer: Answer::Value {
                    bounds: Bounds::UNKNOWN,
                    best_move: None,
                },
                remoteness: None,
                score: None,
                nodes: 0,
                elapsed: Duration::ZERO,
            });
            continue;
        }
        // An engine with scores (Connect-Four) gives the value with the
        // score: with --moves, not proven twice (unless saved, which keeps
        // the value search's proofs).
        let by_score = (options.moves || options.scored) && options.save.is_none();
        let scored = match (&first, by_score) {
            (Some((d, _, _)), _) => *d,
            (None, true) => prover.distance(p),
            (None, false) => None,
        };
        let answer = match scored {
            Some((_, Some(s))) => Answer::Value {
                bounds: Bounds::exact(super::value_of(s.signum() as i8)),
                best_move: None,
            },
            _ => prover.prove(p),
        };
        let proven = match &answer {
            Answer::Value { bounds, .. } => bounds.value().is_some(),
            Answer::Nimber(_) => false,
        };
        let mut remoteness = scored.map(|(r, _)| r);
        let mut score = scored.and_then(|(_, s)| s);
        if proven && scored.is_none() && (options.moves || options.exact) {
            if let Some((r, s)) = prover.distance(p) {
                (remoteness, score) = (Some(r), s);
            } else if let Some(e) = exact.as_mut() {
                remoteness = e.outcome(p).and_then(|o| o.remoteness);
            }
        }
        results.push(Searched {
            position: g.format_position(p),
            mv: mv.clone(),
            to_move: g.to_move(p),
            answer,
            remoteness,
            score,
            nodes: prover.stats().nodes - before + first.map_or(0, |f| f.1),
            elapsed: t.elapsed() + first.map_or(Duration::ZERO, |f| f.2),
        });
        if results.last().is_some_and(|r| r.value().is_some()) {
            proved.push(p.clone());
        }
        // Once stopped, every later proof would return at once, unproven.
        if prover.stop_reason().is_some() {
            break;
        }
    }
    if options.moves {
        // Best first for the mover; moves of equal rank in the game's order.
        if let Some((root, moves)) = results.split_first_mut() {
            moves.sort_by_key(Searched::rank);
            let best = moves.first().filter(|_| moves.len() + 1 == roots.len());
            if let (true, Some(Some(s)), Some(r)) = (
                from_moves && moves.iter().all(|m| m.score.is_some()),
                best.map(Searched::mover_score),
                best.and_then(|b| b.remoteness),
            ) {
                root.answer = Answer::Value {
                    bounds: Bounds::exact(super::value_of(s.signum() as i8)),
                    best_move: None,
                };
                root.score = Some(s);
                root.remoteness = Some(r + 1);
                root.nodes = moves.iter().map(|m| m.nodes).sum();
                root.elapsed = moves.iter().map(|m| m.elapsed).sum();
                proved.push(roots[0].1.clone());
            }
            // A value found from scores names its best move from the list.
            if let (Answer::Value { bounds, best_move }, Some(first)) =
                (&mut root.answer, moves.first())
            {
                let wins_or_ties = bounds.value().is_some_and(|v| v != Value::Lose);
                if best_move.is_none() && wins_or_ties && first.value().is_some() {
                    *best_move = first.mv.clone();
                }
            }
        }
    }
    let elapsed = started.elapsed();
    if let Some(stop) = exact.as_ref().and_then(Exact::stop) {
        observer.notice(&Notice::NoDistance(stop));
    }
    for n in prover.notices() {
        observer.notice(&n);
    }
    let proven = results.len() == roots.len() && results.iter().all(|r| r.value().is_some());
    let mut report = SearchReport {
        game: g.spec(),
        kind,
        openings: options.openings.is_some() || options.moves,
        listed_moves: options.moves,
        proven,
        stopped: prover.stop_reason().filter(|_| !proven),
        stats: prover.stats(),
        elapsed,
        memory: engine.memory,
        engine: prover.engine(),
        loaded,
        saved: None,
        results,
    };
    observer.proven(&report);
    if target.borrow().is_some() {
        // Gathered before the engine is freed, written after: the save
        // never holds the table and the file's records at once.
        let proved = prover.proved(&proved, report.stopped.is_some());
        let t = target.borrow_mut().take();
        report.saved = t.map(|t| write(g, Ok(t), kind, proved, &carried.borrow(), Some(observer)));
    }
    Ok(report)
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
    crate::with_search!(game, g => check_game(g, database, options, observer))
}

/// [`check`] for any game representation, by the engine the game names
/// for the database.
pub fn check_game<G: Engines>(
    g: &G,
    database: &Path,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<CheckOutcome> {
    if !options.load.is_empty() || options.save.is_some() || options.openings.is_some() {
        return Err(Error::SearchOption {
            option: "--check",
            given: Error::quote_path(database),
            rule: "re-proves one database: it does not load, save or list openings".into(),
        });
    }
    g.refuse(options)?;
    let (root, engine) = prepare(g, options)?;
    let leaves = g.leaves(options, &options.tablebases, g.kind(options))?;
    observer.started();
    let (kind, db) = proofdb::read(
        g,
        std::slice::from_ref(&database.to_path_buf()),
        None,
        engine.memory,
    )?;
    let started = Instant::now();
    let (progress, notice) = tell(observer);
    let mut prover = g.prover(Setup {
        request: options,
        options: &engine,
        kind,
        leaves: leaves.as_ref(),
        progress: &progress,
        notice: &notice,
        snapshots: None,
        purpose: Purpose::Check {
            db: &db,
            path: database,
        },
    })?;
    // The limits bound the searches the check makes, as they bound a
    // search; a stop (a limit, a cancel) leaves no verdict.
    let cancel = options.cancel.clone();
    let report = prover.load(&db, false, &move || cancel.is_cancelled())?;
    // A cancel may be seen first between entries, outside a search.
    let stopped = (report.unchecked > 0).then(|| prover.stop_reason().unwrap_or(Stop::Requested));
    // The position's entry, or what the entries re-proven give it.
    let entry = db.fact(&g.key(&root)).or_else(|| prover.known(&root));
    Ok(CheckOutcome {
        game: g.spec(),
        position: g.format_position(&root),
        kind,
        report,
        entries: db.len() as u64,
        entry,
        stopped,
        deepest: prover.stats().deepest,
        memory: engine.memory,
        elapsed: started.elapsed(),
    })
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
    let epsilon = options.epsilon.unwrap_or(Options::default().dfpn.epsilon);
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
    let mut engine = Options {
        memory,
        node_limit: options.node_limit,
        time_limit: options.time_limit,
        cancel: options.cancel.clone(),
        threads,
        watch: options.watch.clone(),
        ..Options::default()
    };
    engine.dfpn.epsilon = epsilon;
    Ok((root, engine))
}

/// `load`: reads and merges the databases and has the engine re-prove
/// every entry, keeping those that hold (or, trusted, take them all, with a
/// warning). A stop (a cancel, the time limit) ends the re-proving early:
/// the entries not re-proven are not used, but carried into the run's
/// saves as read.
fn load<G: SearchGame>(
    g: &G,
    options: &SearchOptions,
    engine: &Options,
    kind: Kind,
    prover: &mut dyn Prover<G>,
    observer: &dyn Observer,
    carried: &RefCell<Records<G>>,
) -> Result<Option<Loaded>> {
    if options.load.is_empty() {
        return Ok(None);
    }
    let started = Instant::now();
    let (_, db) = proofdb::read(g, &options.load, Some(kind), engine.memory)?;
    let deadline = engine.time_limit.map(|t| started + t);
    let cancel = &engine.cancel;
    let stop = || cancel.is_cancelled() || deadline.is_some_and(|d| Instant::now() >= d);
    // With periodic saves on, every entry read is carried until the
    // re-proving ends (then only those it left), so that a save made while
    // re-proving — the run killed before it ends — holds them all. Without
    // periodic saves no copy is made.
    if options.save_every.is_some() && options.save.is_some() {
        *carried.borrow_mut() = db.records().to_vec();
    }
    let report = prover.load(&db, options.trust_load, &stop)?;
    if report.trusted > 0 {
        observer.notice(&Notice::Trusted(report.trusted));
    }
    *carried.borrow_mut() = prover.carried(&db, &report);
    Ok(Some(Loaded {
        report,
        elapsed: started.elapsed(),
    }))
}

/// `save`: the output checked, locked and given its temporary file before
/// the search (see [`SaveTarget`]). The run's inputs — `inputs` (a pattern
/// file), the databases loaded, the tables — are never replaced, whatever
/// path names them.
fn save_target(options: &SearchOptions, observer: &dyn Observer) -> Result<Option<SaveTarget>> {
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

/// Writes what an engine proved through `target` — the last save (which
/// releases the output), or with `target` kept, a periodic one — with the
/// entries a stopped load carried. Bounds that contradict each other are a
/// bug, not a fact: they are left out, and said to `observer` when given.
/// Positions whose key the game cannot turn back into a position are not
/// saved.
fn write<G: SearchGame>(
    g: &G,
    target: Result<SaveTarget, &mut SaveTarget>,
    kind: Kind,
    proved: Proved<G>,
    carried: &[Record<G::Pos, G::Key>],
    observer: Option<&dyn Observer>,
) -> Result<Saved> {
    let holds = |f: &Fact| !matches!(f, Fact::Value(b) if b.lo > b.hi);
    let mut impossible = 0u64;
    let mut count = |f: &Fact| {
        let ok = holds(f);
        impossible += u64::from(!ok);
        ok
    };
    match proved {
        Proved::Keys(mut facts) => {
            facts.retain(|(_, f)| count(f));
            tell_not_saved(observer, impossible);
            proofdb::nameable(g, &mut facts);
            with_carried(g, &mut facts, carried, value_fact);
            save_records(g, target, kind, &mut facts)
        }
        Proved::Records(mut records) => {
            records.retain(|r| count(&r.fact));
            tell_not_saved(observer, impossible);
            with_carried(g, &mut records, carried, Record::with_fact);
            save_records(g, target, kind, &mut records)
        }
    }
}

/// The observer's progress and notices, as the engines take them.
fn tell(observer: &dyn Observer) -> (impl Fn(&Stats) + '_, impl Fn(&Notice) + '_) {
    (
        move |s: &Stats| observer.progress(s),
        move |n: &Notice| observer.notice(n),
    )
}

/// Says that `impossible` entries were left out of a save.
fn tell_not_saved(observer: Option<&dyn Observer>, impossible: u64) {
    if let (Some(o), true) = (observer, impossible > 0) {
        o.notice(&Notice::NotSaved(impossible));
    }
}

/// Adds to `records` the entries a stopped load left unchecked (`carried`,
/// see [`CheckReport::left`]), each made by `make` from the entry read and
/// its fact: a key both hold keeps the bounds both give (each was proven,
/// so their meet holds), or the run's if they contradict (a forged file's
/// entry is never preferred to what the run proved).
fn with_carried<G: SearchGame, T: proofdb::Written<G>>(
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

/// A carried entry as a search's value fact (its position named from the
/// key when written, as the run's own).
fn value_fact<P, K: Copy>(r: &Record<P, K>, fact: Fact) -> (K, Fact) {
    (r.key, fact)
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

/// The positions a run proves: the position, or with `moves` the position
/// and the position after each of its legal moves (named: every move, also
/// those a symmetry maps onto another, which the shared table then answers
/// at once), or with `openings` the distinct positions (up to symmetry)
/// that many plies after it, stopping at game-over positions on the way.
/// Listed within the run's limits (one position may have very many
/// children); what stopped it when they did.
#[allow(clippy::type_complexity)]
fn listed<G: Engines>(
    g: &G,
    root: &G::Pos,
    options: &SearchOptions,
    engine: &Options,
) -> Result<std::result::Result<Vec<(Option<String>, G::Pos)>, Stop>> {
    let mut limits = Limits::new(
        engine.memory,
        engine.node_limit,
        engine.time_limit,
        engine.cancel.clone(),
    );
    let mut stop = |made: u64, bytes: u64| limits.generation_stops(0, made, bytes);
    let unnamed = |ps: Vec<G::Pos>| ps.into_iter().map(|p| (None, p)).collect();
    let roots = if options.moves {
        g.move_list(root, &mut stop).map(|kids| {
            std::iter::once((None, root.clone()))
                .chain(kids.into_iter().map(|(m, p)| (Some(m), p)))
                .collect()
        })
    } else if let Some(plies) = options.openings {
        openings(g, root, plies, &mut stop)?.map(unnamed)
    } else {
        Some(vec![(None, root.clone())])
    };
    Ok(roots.ok_or_else(|| limits.stop().unwrap_or(Stop::Requested)))
}

/// The distinct positions (up to symmetry) `plies` moves after `root`,
/// stopping at game-over positions on the way; `None` if `stop` said to
/// stop while listing them.
pub(crate) fn openings<G: Engines>(
    g: &G,
    root: &G::Pos,
    plies: u32,
    stop: &mut dyn FnMut(u64, u64) -> bool,
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
            if stop(0, 0) {
                return Ok(None);
            }
            if g.terminal(p).is_some() {
                if seen.insert(g.key(p)) {
                    next.push(p.clone());
                }
                continue;
            }
            let Some(kids) = g.successors(p, stop) else {
                return Ok(None);
            };
            for c in kids {
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
/// distinct positions after `ply` of its `plies`.
fn too_many_openings(plies: impl ToString, ply: impl std::fmt::Display) -> Error {
    Error::SearchOption {
        option: "--openings",
        given: plies.to_string(),
        rule: format!(
            "more than {MAX_OPENINGS} distinct positions after {ply} plies; use fewer plies"
        ),
    }
}
