//! The one interface through which the session loop ([`super::run`])
//! drives any engine ([`Prover`]: prove a position's value or nimber, take
//! the entries of a proof database, re-proven or trusted, and hand over
//! what it proved for saving), and what a game representation declares
//! about its search ([`Engines`]: the options it refuses, the tables it
//! takes as leaves, the engine that proves it). The defaults ([`standard`]:
//! df-pn, alpha-beta where the game has its own, the component search for
//! nimbers, tables of the same game as leaves) serve every game that has
//! nothing of its own; Cram and Sprouts name their own engines in their
//! representations' files.

use super::alphabeta::{self, AlphaBeta};
use super::dfpn::Dfpn;
use super::engine::{Answer, Engine, Notice, Options, SearchOptions, Stats};
use super::leaves::{open_tables, Leaves};
use super::nimber::NimberSearch;
use super::proofdb::{self, CheckReport, Fact, Kind, Merged, Record, Records};
use super::{Bounds, SearchGame, Stop};
use crate::error::{Error, Result};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    /// Gives what the engine proves next a budget of its own, keeping
    /// what it has learnt (its table, what it proved): at most `nodes`
    /// more nodes, until `time` from now, an earlier budget's stop
    /// cleared. For a search over ranks, whose jobs each rank's one
    /// engine proves in turn. `false` when the engine cannot, and a new
    /// one must be made for each budget.
    fn renew(&mut self, _nodes: Option<u64>, _time: Option<Duration>) -> bool {
        false
    }
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
    /// The plies from `p` to the end under perfect play and its score
    /// (see [`Searched`](super::run::Searched)), where the engine gives
    /// them of its own (alpha-beta on the gravity boards: Pons' score);
    /// `None` else, or when stopped first. Asked only for a proven `p`.
    fn distance(&mut self, _p: &G::Pos) -> Option<(u32, Option<i32>)> {
        None
    }
    /// [`Prover::distance`] of each of `ps` (a position's moves), with the
    /// nodes and the time each took; an engine with threads may share the
    /// positions among them.
    fn distances(&mut self, ps: &[G::Pos]) -> Vec<Distanced> {
        ps.iter()
            .map(|p| {
                let (t, before) = (Instant::now(), self.stats().nodes);
                let d = self.distance(p);
                (d, self.stats().nodes - before, t.elapsed())
            })
            .collect()
    }
    /// Whether [`Prover::distance`] gives scores, from which a position's
    /// score is its moves' best.
    fn scores(&self) -> bool {
        false
    }
    /// What the engine knows of `p` without searching.
    fn known(&mut self, _p: &G::Pos) -> Option<Fact> {
        None
    }
    /// Takes bounds another engine proved on `pos` (key `key`; a search
    /// over ranks: what the other ranks' jobs settled), used from then on
    /// as settled. An engine that cannot take them ignores them: they only
    /// save work.
    fn learn(&mut self, _key: G::Key, _pos: &G::Pos, _bounds: Bounds) {}
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

/// A position's [`Prover::distance`] as [`Prover::distances`] gives it,
/// with the nodes and the time its search took.
pub type Distanced = (Option<(u32, Option<i32>)>, u64, Duration);

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
    /// Told the engine's counters about once a second.
    pub progress: &'a dyn Fn(&Stats),
    /// Told what the user should know.
    pub notice: &'a dyn Fn(&Notice),
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
        if request.engine == Engine::Sets {
            return Err(Error::SearchOption {
                option: "--engine",
                given: "sets".into(),
                rule: "computes normal-play Cram nimbers".into(),
            });
        }
        refuse_moves(request)
    }

    /// Every legal move of `p` in the game's notation with the position it
    /// leads to, for `--moves`: none for a game-over position, and every
    /// move a symmetry maps onto another kept (the table answers the
    /// second at once). `None` when `stop` (given the positions made so
    /// far and their bytes) says to stop first.
    fn move_list(
        &self,
        p: &Self::Pos,
        _stop: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Option<Vec<(String, Self::Pos)>> {
        if self.terminal(p).is_some() {
            return Some(Vec::new());
        }
        Some(
            self.moves(p)
                .into_iter()
                .map(|(m, c)| (self.format_move(&m), c))
                .collect(),
        )
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

    /// Whether a proof database of this game's search, as `request` asks
    /// for it, can hold `p`'s value as an entry, so that a search over
    /// ranks (`super::jobs`) may add its tree's proven positions to the
    /// jobs' entries. The default (`true`) suits the standard engines; an
    /// engine whose entries are parts of positions (lands, regions) says
    /// which positions are such a part.
    fn saves_position(&self, _request: &SearchOptions, _p: &Self::Pos) -> bool {
        true
    }

    /// The engine that proves this game's positions as `setup` asks.
    fn prover<'a>(&'a self, setup: Setup<'a, Self>) -> Result<Box<dyn Prover<Self> + 'a>> {
        standard(self, setup)
    }
}

/// `--moves` lists one position's moves: it does not go with
/// `--openings`; `--exact` gives distances, which nimbers do not have.
pub fn refuse_moves(request: &SearchOptions) -> Result<()> {
    if request.exact && request.nimber {
        return Err(Error::SearchOption {
            option: "--exact",
            given: String::new(),
            rule: "finds distances to the end: a nimber search has none (leave out --nimber)"
                .into(),
        });
    }
    match request.moves && request.openings.is_some() {
        true => Err(Error::SearchOption {
            option: "--moves",
            given: String::new(),
            rule: "lists one position's moves: it does not go with --openings".into(),
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
        progress,
        notice,
        snapshots,
        ..
    } = setup;
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
        progress(s);
        if stall.update(s) {
            notice(&Notice::Stalled);
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

/// A value database taken by an engine that answers its questions
/// ([`proofdb::Decider`]): trusted as it is, or re-proven entry by entry.
fn load_values<G: SearchGame>(
    g: &G,
    engine: &mut impl proofdb::Decider<G>,
    db: &Merged<G>,
    trust: bool,
    stop: &dyn Fn() -> bool,
) -> Result<CheckReport> {
    match trust {
        true => Ok(proofdb::trust_values(db, engine)),
        false => proofdb::verify_values(g, db, engine, stop),
    }
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
    fn renew(&mut self, nodes: Option<u64>, time: Option<Duration>) -> bool {
        Dfpn::renew(self, nodes, time);
        true
    }
    fn learn(&mut self, key: G::Key, _: &G::Pos, bounds: Bounds) {
        self.add_known(key, bounds);
    }
    fn load(
        &mut self,
        db: &Merged<G>,
        trust: bool,
        stop: &dyn Fn() -> bool,
    ) -> Result<CheckReport> {
        load_values(self.game(), self, db, trust, stop)
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
    fn distance(&mut self, p: &G::Pos) -> Option<(u32, Option<i32>)> {
        self.score(p).map(|(r, s)| (r, Some(s)))
    }
    fn distances(&mut self, ps: &[G::Pos]) -> Vec<Distanced> {
        AlphaBeta::scores(self, ps)
            .into_iter()
            .map(|(d, nodes, took)| (d.map(|(r, s)| (r, Some(s))), nodes, took))
            .collect()
    }
    fn scores(&self) -> bool {
        self.has_scores()
    }
    fn stats(&self) -> Stats {
        AlphaBeta::stats(self)
    }
    fn stop_reason(&self) -> Option<Stop> {
        AlphaBeta::stop_reason(self)
    }
    fn renew(&mut self, nodes: Option<u64>, time: Option<Duration>) -> bool {
        AlphaBeta::renew(self, nodes, time);
        true
    }
    fn learn(&mut self, key: G::Key, _: &G::Pos, bounds: Bounds) {
        self.add_known(key, bounds);
    }
    fn load(
        &mut self,
        db: &Merged<G>,
        trust: bool,
        stop: &dyn Fn() -> bool,
    ) -> Result<CheckReport> {
        load_values(self.game(), self, db, trust, stop)
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
