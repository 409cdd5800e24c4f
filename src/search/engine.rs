//! What every engine and every caller of a search share: one [`Options`]
//! (memory, threads, limits, cancellation, with each engine's own settings
//! nested), one [`Stats`] (the counters every progress line and report
//! reads), what a search is asked ([`SearchOptions`], [`Engine`]), what it
//! answers ([`Answer`]) and tells ([`Notice`]). The engines ([`super::dfpn`], [`super::alphabeta`],
//! [`super::nimber`], the couples engine) build on this module alone; the
//! interface through which the session loop drives them is
//! [`super::prover`].

use super::{Bounds, Cancel};
use std::path::PathBuf;
use std::time::Duration;

/// How an engine runs: the memory, threads and limits every engine takes,
/// and each engine's own settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes the engine's table (or memo) may grow to: it starts small and
    /// doubles as it fills.
    pub memory: u64,
    /// Threads searching together on one table (0 is taken as 1; the
    /// component search and the engines of sums are one thread). The
    /// proven value never depends on it; node counts do.
    pub threads: usize,
    /// Stop after this many nodes (components, couples): exactly, never
    /// one more.
    pub node_limit: Option<u64>,
    /// Stop after this long (looked at before every node).
    pub time_limit: Option<Duration>,
    /// Stop when this token is cancelled (looked at before every node): by
    /// default a token of the search's own, which nothing cancels.
    pub cancel: Cancel,
    /// The proof-number engines' settings (df-pn, couples, Sprouts').
    pub dfpn: DfpnOptions,
    /// Where the engine shows its computing branch and takes steering
    /// requests (df-pn's main thread, the engine of couples, misère
    /// Sprouts'); `None`, the default, costs the search nothing.
    pub watch: Option<super::watch::Watch>,
    /// Alpha-beta's settings.
    pub alphabeta: AlphaBetaOptions,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            memory: 256 << 20,
            threads: 1,
            node_limit: None,
            time_limit: None,
            cancel: Cancel::default(),
            dfpn: DfpnOptions::default(),
            watch: None,
            alphabeta: AlphaBetaOptions::default(),
        }
    }
}

impl Options {
    /// The default options with `memory` bytes.
    pub fn with_memory(memory: u64) -> Options {
        Options {
            memory,
            ..Options::default()
        }
    }
}

/// Nodes a df-pn search of several threads expands with one thread before
/// the others join (per question asked at the root).
pub const WARM_UP: u64 = 4096;

/// The proof-number engines' own settings.
#[derive(Clone, Debug)]
pub struct DfpnOptions {
    /// ε of the 1+ε trick (0 gives plain df-pn, which re-expands the same
    /// positions over and over once the table is too small to hold its
    /// working set).
    pub epsilon: f64,
    /// Nodes one thread expands alone at each question before the others
    /// join ([`WARM_UP`] by default): a small search never starts threads.
    pub warm_up: u64,
}

impl Default for DfpnOptions {
    fn default() -> DfpnOptions {
        DfpnOptions {
            epsilon: 0.25,
            warm_up: WARM_UP,
        }
    }
}

/// Alpha-beta's own settings.
#[derive(Clone, Debug)]
pub struct AlphaBetaOptions {
    /// Use the game's own search when it has one (the gravity boards');
    /// off, the generic search over [`SearchGame`] (tests compare the two).
    pub native: bool,
}

impl Default for AlphaBetaOptions {
    fn default() -> AlphaBetaOptions {
        AlphaBetaOptions { native: true }
    }
}

/// What an engine counts, and so what its progress line shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counted {
    /// Nodes of a proof-number search, with the root's numbers.
    #[default]
    ProofNumbers,
    /// Positions an alpha-beta search visited, on every thread.
    AlphaBeta,
    /// Components of a nimber search ([`Stats::tt_used`]: the memo).
    Components,
}

/// An engine's counters, for progress lines and the final report.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// What the counters count.
    pub counted: Counted,
    /// Nodes expanded (positions visited by alpha-beta, components).
    pub nodes: u64,
    /// Positions answered by a table.
    pub leaf_hits: u64,
    /// Entries in use in the table (in the memo, for components).
    pub tt_used: u64,
    /// Its capacity in entries now.
    pub tt_capacity: u64,
    /// The bytes it takes now.
    pub tt_bytes: u64,
    /// The capacity it may grow to (within the memory given).
    pub tt_max: u64,
    /// The bytes it may grow to (the largest power of two of buckets within
    /// the memory given).
    pub tt_max_bytes: u64,
    /// The root's current proof number (proof-number engines).
    pub root_pn: u32,
    /// The root's disproof number.
    pub root_dn: u32,
    /// The question being proved: the root's value at least this (1 win, 0 tie).
    pub target: i8,
    /// Time since the search began.
    pub elapsed: Duration,
    /// The longest line searched so far, in plies (components) from the root.
    pub deepest: u64,
    /// Threads searching.
    pub threads: usize,
    /// The score table (alpha-beta's scores, `--moves` on the gravity
    /// boards), once a score search made it: entries in use, its
    /// capacity and bytes. `None` where no score was searched.
    pub score_table: Option<TableUse>,
}

/// How much of a table is in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableUse {
    /// Entries holding something.
    pub used: u64,
    /// Entries it has.
    pub capacity: u64,
    /// Bytes it takes.
    pub bytes: u64,
}

/// The progress line `retrograde search` prints about once a second.
impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::units::{human_bytes, thousands};
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        let rate = thousands((self.nodes as f64 / secs) as u64);
        let pct = 100.0 * self.tt_used as f64 / self.tt_capacity.max(1) as f64;
        let question = if self.target == 1 { "win" } else { "not lose" };
        match self.counted {
            Counted::ProofNumbers => {
                let num = |x: u32| match x {
                    u32::MAX => "inf".to_string(),
                    x => thousands(u64::from(x)),
                };
                write!(
                    f,
                    "nodes {}  {rate}/s  table {} {pct:.0}%  root pn {} dn {}  ({question}?)  {secs:.0} s",
                    thousands(self.nodes),
                    human_bytes(self.tt_bytes),
                    num(self.root_pn),
                    num(self.root_dn),
                )
            }
            Counted::AlphaBeta => write!(
                f,
                "nodes {}  {rate}/s  table {pct:.0}% of {} MiB  ({question}?)  {} threads  {secs:.0} s",
                thousands(self.nodes),
                self.tt_bytes >> 20,
                self.threads,
            ),
            Counted::Components => write!(
                f,
                "components {}  memo {}  table hits {}  {:.0} s",
                thousands(self.nodes),
                thousands(self.tt_used),
                thousands(self.leaf_hits),
                self.elapsed.as_secs_f64()
            ),
        }
    }
}

/// A progress callback, called about once a second with the counters.
pub(crate) type ProgressFn<'a> = Box<dyn FnMut(&Stats) + 'a>;

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
    /// The computing branch to publish and be steered through
    /// ([`super::watch`]); the values never depend on it.
    pub watch: Option<super::watch::Watch>,
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
    /// Also prove the position after each legal move of the position
    /// (every move, also those a symmetry maps onto another): the results
    /// are the position, then one per move, named ([`Searched::mv`]) and
    /// best first for the mover ([`Searched::for_mover`]; nimber games:
    /// each with the nimber of the position it leads to). See
    /// [`SearchReport::moves`].
    ///
    /// [`Searched::mv`]: super::run::Searched::mv
    /// [`Searched::for_mover`]: super::run::Searched::for_mover
    /// [`SearchReport::moves`]: super::run::SearchReport::moves
    pub moves: bool,
    /// Also find each searched position's distance to the end under
    /// perfect play ([`Searched::remoteness`]) where the engine does not
    /// give it of its own (alpha-beta on the gravity boards always does),
    /// by an exhaustive search that costs about what a table of the
    /// positions below would. Refused for nimbers and Sprouts.
    ///
    /// [`Searched::remoteness`]: super::run::Searched::remoteness
    pub exact: bool,
    /// Where the engine has scores (alpha-beta on the gravity boards),
    /// prove each position by its score search alone: the value, the score
    /// and the distance in one search, as `moves` does for each move
    /// (there is then no best move). What the explorer's jobs ask of each
    /// move they settle.
    pub scored: bool,
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
    /// Each region asked whether its nimber is in a set of candidates
    /// (Beling's method): normal-play Cram nimbers, no proof database.
    Sets,
}

impl Engine {
    /// Every engine, in the order their names are listed.
    pub const ALL: [Engine; 5] = [
        Engine::Auto,
        Engine::Dfpn,
        Engine::AlphaBeta,
        Engine::Couples,
        Engine::Sets,
    ];

    /// The engine's name, as `--engine` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Dfpn => "dfpn",
            Engine::AlphaBeta => "alphabeta",
            Engine::Couples => "couples",
            Engine::Sets => "sets",
        }
    }

    /// The engine named `name` ([`Engine::name`]).
    pub fn from_name(name: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name() == name)
    }
}

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
    /// `exact`'s search of distances stopped (for this reason) before it
    /// found every one: the values stand, the distances not found are
    /// left out.
    NoDistance(super::Stop),
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
            Notice::NoDistance(stop) => write!(
                f,
                "warning: --exact stopped ({}) before it found every distance: the values stand, the distances not found are left out",
                stop.name()
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
