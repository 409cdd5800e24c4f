//! What every engine shares: one [`Options`] (memory, threads, limits,
//! cancellation, with each engine's own settings nested), one [`Stats`]
//! (the counters every progress line and report reads), and the
//! [`Prover`] interface through which the session loop
//! ([`super::run`]) drives any engine: prove a position's value or
//! nimber, take the entries of a proof database (re-proven or trusted),
//! and hand over what it proved for saving. A game representation names
//! its engines and its leaves by implementing [`Engines`]; the defaults
//! (df-pn, alpha-beta where the game has its own, the component search for
//! nimbers, tables of the same game as leaves) serve every game that has
//! nothing of its own.

use super::alphabeta::{self, AlphaBeta};
use super::dfpn::{Dfpn, WARM_UP};
use super::leaves::{open_tables, Leaves};
use super::nimber::NimberSearch;
use super::proofdb::{self, CheckReport, Fact, Kind, Merged, Record, Records};
use super::run::{Answer, Engine, Notice, Observer, SearchOptions};
use super::{Bounds, Cancel, SearchGame, Stop};
use crate::error::{Error, Result};
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

/// What an engine proved, as the entries of a proof database: keys with
/// their facts (the position is made from the key when written), or whole
/// records.
pub enum Proved<G: SearchGame> {
    /// Keys and facts.
    Keys(Vec<(G::Key, Fact)>),
    /// Records, positions included.
    Records(Records<G>),
}

/// A periodic save: handed what the engine proved so far.
pub(crate) type SnapshotFn<'a, G> = Box<dyn FnMut(Proved<G>) + 'a>;

/// One engine as the session loop drives it, whatever it proves with.
pub trait Prover<G: SearchGame> {
    /// The engine's name in the report (`None`: a nimber search, or a
    /// game's own engine).
    fn engine(&self) -> Option<Engine>;
    /// Proves `p`: its value with a move that achieves it, or its nimber.
    fn prove(&mut self, p: &G::Pos) -> Answer;
    /// The counters now.
    fn stats(&self) -> Stats;
    /// Why the engine stopped (a limit, a cancel), once it has.
    fn stop_reason(&self) -> Option<Stop>;
    /// Takes the entries of `db`: re-proves each from its children (those
    /// that hold are used from then on), or with `trust` uses them as they
    /// are. `stop` ends the re-proving early.
    fn load(&mut self, db: &Merged<G>, trust: bool, stop: &dyn Fn() -> bool)
        -> Result<CheckReport>;
    /// The entries a stopped load left unproven: kept for the saves as
    /// they were read.
    fn carried(&mut self, db: &Merged<G>, report: &CheckReport) -> Records<G> {
        db.carried(report)
    }
    /// What the engine knows of `p` without searching.
    fn known(&mut self, _p: &G::Pos) -> Option<Fact> {
        None
    }
    /// What the user should know at the end.
    fn notices(&self) -> Vec<Notice> {
        Vec::new()
    }
    /// What it proved, for saving (the engine is dropped first: the save
    /// never holds its table and the file's records at once). `proven`:
    /// the roots proven, for an engine that saves the proofs of its roots
    /// only; `stopped`: the run stopped first.
    fn proved(self: Box<Self>, proven: &[G::Pos], stopped: bool) -> Proved<G>;
}

/// Why an engine is made.
pub enum Purpose<'a, G: SearchGame> {
    /// To prove positions.
    Search,
    /// To re-prove the proof database given.
    Check {
        /// The database, read.
        db: &'a Merged<G>,
        /// Its file.
        path: &'a std::path::Path,
    },
}

/// What the session gives the engine it asks a game for.
pub struct Setup<'a, G: SearchGame> {
    /// The run's request.
    pub request: &'a SearchOptions,
    /// The engine's options, checked.
    pub options: &'a Options,
    /// Values or nimbers.
    pub kind: Kind,
    /// The tables given as leaves.
    pub leaves: Option<&'a Leaves<G>>,
    /// Told the progress and notices.
    pub observer: &'a dyn Observer,
    /// Periodic saves (`--save-every`), when asked for and saving.
    pub snapshots: Option<(Duration, SnapshotFn<'a, G>)>,
    /// A search or a check.
    pub purpose: Purpose<'a, G>,
}

/// How a game representation is searched: the options it refuses, the
/// tables it takes as leaves, and the engine that proves it. Every method
/// has the default that suits a game with nothing of its own.
pub trait Engines: SearchGame + Sized {
    /// Refuses the options this game's search cannot honour, before
    /// anything else is done (no file opened).
    fn refuse(&self, request: &SearchOptions) -> Result<()> {
        if request.engine == Engine::Couples {
            return Err(Error::SearchOption {
                option: "--engine",
                given: "couples".into(),
                rule: "sums normal-play Cram's regions (Sprouts' normal play always uses couples)"
                    .into(),
            });
        }
        refuse_moves(request)
    }

    /// What the run proves and its databases hold: values, or with
    /// `request.nimber` nimbers.
    fn kind(&self, request: &SearchOptions) -> Kind {
        match request.nimber {
            true => Kind::Nimbers,
            false => Kind::Values,
        }
    }

    /// Opens the tables given as leaves, refusing those no position of the
    /// search can be in: by default tables of the same game.
    fn leaves(
        &self,
        _request: &SearchOptions,
        paths: &[PathBuf],
        _kind: Kind,
    ) -> Result<Option<Leaves<Self>>> {
        open_tables(self, paths)
    }

    /// The positions after `p`'s moves, for listing openings and children;
    /// `None` when `stop` (given the positions made so far and their
    /// bytes) says to stop first: a position may have very many children.
    fn successors(
        &self,
        p: &Self::Pos,
        _stop: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Option<Vec<Self::Pos>> {
        Some(self.moves(p).into_iter().map(|(_, c)| c).collect())
    }

    /// The engine that proves this game's positions as `setup` asks.
    fn prover<'a>(&'a self, setup: Setup<'a, Self>) -> Result<Box<dyn Prover<Self> + 'a>> {
        standard(self, setup)
    }
}

/// `--moves` is refused by a game whose moves are not written as the
/// positions they lead to.
pub fn refuse_moves(request: &SearchOptions) -> Result<()> {
    match request.moves {
        true => Err(Error::SearchOption {
            option: "--moves",
            given: String::new(),
            rule: "lists a Sprouts position's children (Glop's Children tab); other games list the positions after a move with --openings 1".into(),
        }),
        false => Ok(()),
    }
}

/// The engine the user asked for, or per game: alpha-beta where the game
/// has its own alpha-beta search and nothing asks for df-pn, df-pn else.
pub(crate) fn which<G: SearchGame>(g: &G, request: &SearchOptions) -> Engine {
    match request.engine {
        Engine::Auto
            if request.epsilon.is_none()
                && request.save_every.is_none()
                && alphabeta::preferred(g) =>
        {
            Engine::AlphaBeta
        }
        Engine::Auto => Engine::Dfpn,
        e => e,
    }
}

/// The engines every game has: df-pn or alpha-beta for values, the
/// component search for nimbers, each with the tables as leaves.
pub fn standard<'a, G: SearchGame>(
    g: &'a G,
    setup: Setup<'a, G>,
) -> Result<Box<dyn Prover<G> + 'a>> {
    let Setup {
        request,
        options,
        kind,
        leaves,
        observer,
        snapshots,
        ..
    } = setup;
    let progress = move |s: &Stats| observer.progress(s);
    if kind == Kind::Nimbers {
        let mut search = NimberSearch::new(g, options).with_progress(progress);
        if let Some((every, mut save)) = snapshots {
            search = search.with_snapshots(every, move |known| {
                save(Proved::Records(
                    known
                        .map(|(k, n, p)| Record {
                            key: *k,
                            fact: Fact::Nimber(n),
                            pos: p.clone(),
                        })
                        .collect(),
                ))
            });
        }
        if let Some(l) = leaves {
            search = search.with_leaves(l);
        }
        return Ok(Box::new(search));
    }
    if which(g, request) == Engine::AlphaBeta {
        let mut ab = AlphaBeta::new(g, options.clone()).with_progress(progress);
        if let Some(l) = leaves {
            ab = ab.with_leaves(l.values());
        }
        return Ok(Box::new(ab));
    }
    let mut stall = Stall::default();
    let mut dfpn = Dfpn::new(g, options.clone()).with_progress(move |s: &Stats| {
        observer.progress(s);
        if stall.update(s) {
            observer.notice(&Notice::Stalled);
        }
    });
    if let Some((every, mut save)) = snapshots {
        dfpn = dfpn.with_snapshots(every, move |facts| save(value_facts(facts)));
    }
    if let Some(l) = leaves {
        dfpn = dfpn.with_leaves(l.values());
    }
    Ok(Box::new(dfpn))
}

/// Proven bounds as the facts of a proof database.
fn value_facts<G: SearchGame>(facts: Vec<(G::Key, Bounds)>) -> Proved<G> {
    Proved::Keys(
        facts
            .into_iter()
            .map(|(k, b)| (k, Fact::Value(b)))
            .collect(),
    )
}

/// A value answer from a proof's bounds and best move.
fn value_answer<G: SearchGame>(g: &G, bounds: Bounds, best: Option<&G::Move>) -> Answer {
    Answer::Value {
        bounds,
        best_move: best.map(|m| g.format_move(m)),
    }
}

impl<G: SearchGame> Prover<G> for Dfpn<'_, G> {
    fn engine(&self) -> Option<Engine> {
        Some(Engine::Dfpn)
    }
    fn prove(&mut self, p: &G::Pos) -> Answer {
        let proof = Dfpn::prove(self, p);
        value_answer(self.game(), proof.bounds, proof.best_move.as_ref())
    }
    fn stats(&self) -> Stats {
        Dfpn::stats(self)
    }
    fn stop_reason(&self) -> Option<Stop> {
        Dfpn::stop_reason(self)
    }
    fn load(
        &mut self,
        db: &Merged<G>,
        trust: bool,
        stop: &dyn Fn() -> bool,
    ) -> Result<CheckReport> {
        match trust {
            true => Ok(proofdb::trust_values(db, self)),
            false => proofdb::verify_values(self.game(), db, self, stop),
        }
    }
    fn proved(self: Box<Self>, _: &[G::Pos], _: bool) -> Proved<G> {
        let facts: Vec<_> = self.proven().collect();
        drop(self);
        value_facts(facts)
    }
}

impl<G: SearchGame> Prover<G> for AlphaBeta<'_, G> {
    fn engine(&self) -> Option<Engine> {
        Some(Engine::AlphaBeta)
    }
    fn prove(&mut self, p: &G::Pos) -> Answer {
        let proof = AlphaBeta::prove(self, p);
        value_answer(self.game(), proof.bounds, proof.best_move.as_ref())
    }
    fn stats(&self) -> Stats {
        AlphaBeta::stats(self)
    }
    fn stop_reason(&self) -> Option<Stop> {
        AlphaBeta::stop_reason(self)
    }
    fn load(
        &mut self,
        db: &Merged<G>,
        trust: bool,
        stop: &dyn Fn() -> bool,
    ) -> Result<CheckReport> {
        match trust {
            true => Ok(proofdb::trust_values(db, self)),
            false => proofdb::verify_values(self.game(), db, self, stop),
        }
    }
    fn proved(self: Box<Self>, _: &[G::Pos], _: bool) -> Proved<G> {
        let facts = self.proven();
        drop(self);
        value_facts(facts)
    }
}

impl<G: SearchGame> Prover<G> for NimberSearch<'_, G> {
    fn engine(&self) -> Option<Engine> {
        None
    }
    fn prove(&mut self, p: &G::Pos) -> Answer {
        Answer::Nimber(self.nimber(p))
    }
    fn stats(&self) -> Stats {
        NimberSearch::stats(self)
    }
    fn stop_reason(&self) -> Option<Stop> {
        NimberSearch::stop_reason(self)
    }
    fn load(
        &mut self,
        db: &Merged<G>,
        trust: bool,
        stop: &dyn Fn() -> bool,
    ) -> Result<CheckReport> {
        match trust {
            true => Ok(proofdb::trust_nimbers(db, self)),
            false => proofdb::verify_nimbers(self.game(), db, self, stop),
        }
    }
    fn proved(self: Box<Self>, _: &[G::Pos], _: bool) -> Proved<G> {
        Proved::Records(
            self.known()
                .map(|(k, n, p)| Record {
                    key: *k,
                    fact: Fact::Nimber(n),
                    pos: p.clone(),
                })
                .collect(),
        )
    }
}

/// How long the root's numbers may stay put in a full table before a
/// search warns ([`Notice::Stalled`]).
const STALL_SECONDS: u64 = 60;

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
