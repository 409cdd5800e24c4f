//! Depth-first proof-number search (Nagai 2002), in negamax form.
//!
//! Every node asks one question about its player to move: "is my value at
//! least `k`?" (`k` = 1: can I win; `k` = 0: can I avoid losing). A node
//! says yes when some child says no to the mirrored question `1 − k`. Its
//! proof number φ is the least work to say yes, its disproof number δ the
//! work to say no: φ(n) = min δ(c) and δ(n) = Σ φ(c). The search descends
//! into the child of least δ with thresholds, so that it works depth-first
//! in memory bounded by the transposition table, and returns as soon as a
//! threshold is reached; the **1+ε trick** (Pawlewicz & Lew 2007) gives the
//! chosen child a threshold of ⌈δ₂·(1+ε)⌉ instead of δ₂ + 1, so it keeps
//! working a while longer before its sibling overtakes it, which saves most
//! of the re-expansions plain df-pn suffers.
//!
//! A value with ties needs two proofs, as GABOR does: `k` = 1 (win or not)
//! and, if not, `k` = 0 (tie or loss). What each proof learns is kept as
//! [`Bounds`] on the position's value, which both proofs (and a saved proof
//! database) share.
//!
//! The transposition table ([`super::tt`]) is an array of 4-entry
//! buckets that doubles as the search fills it, up to the memory given. A
//! new entry replaces the one of its bucket whose subtree took the least
//! work (SmallTreeReplacement, Breuker et al.), so big proved subtrees
//! survive; entries that settle a question get their work raised to keep
//! them.
//!
//! **Threads** ([`Options::threads`]) search together as in Kaneko's
//! parallel df-pn (AAAI 2010): each runs the whole df-pn from the root on
//! the one shared table, and they spread over the tree by **virtual proof
//! numbers** (file `threads.rs` tells how, and why this scheme). What a
//! proof says never depends on the threads: a node is settled only when
//! its children are, in the table every thread reads, and a value with
//! ties still takes its two proofs, one after the other. Node counts, and
//! which of several winning moves is shown, may differ from run to run
//! with more than one thread.
//!
//! A search of several threads starts with one: the others join after
//! [`WARM_UP`] nodes, so the many small searches a database check makes do
//! not each start threads.
//!
//! This file holds the engine ([`Dfpn`]: its options, what it knows, the
//! questions at the root); `worker.rs` one thread's search (the
//! proof-number descent itself); `threads.rs` what several threads share.

mod threads;
mod worker;

use super::engine::{Options, Stats};
use super::leaves::ValueLeaves;
use super::tt::{Exclusive, Table};
use super::{Bounds, Key, Limits, SearchGame, Stop};
use crate::value::Value;
use std::collections::HashMap;
use std::sync::atomic::AtomicU32;
use std::sync::{PoisonError, RwLock};
use std::time::Duration;
use worker::{Child, Worker};

/// "Infinity" for proof and disproof numbers.
pub(crate) const INF: u32 = u32::MAX;
/// Sums of proof numbers saturate here, below [`INF`], so that only a real
/// proof reaches infinity.
const BIG: u32 = u32::MAX - 1;

/// The largest initial proof or disproof number a game's
/// [`SearchGame::estimate`] may give: far below [`BIG`], so that sums of
/// estimates never look like a proof.
const ESTIMATE_MAX: u32 = 1 << 16;

/// What a search proved about its root.
#[derive(Clone, Debug)]
pub struct Proof<M> {
    /// What is known about the root's value for the player to move.
    pub bounds: Bounds,
    /// The value, when proven.
    pub value: Option<Value>,
    /// A move that achieves the value (none at a terminal position or a loss).
    pub best_move: Option<M>,
    /// Counters at the end.
    pub stats: Stats,
    /// The search stopped (a limit or a request) before a value was proven.
    pub stopped: bool,
    /// Why it stopped, when it did (a value may still have been proven
    /// before the stop).
    pub stop: Option<Stop>,
}

pub use super::engine::WARM_UP;

/// Periodic snapshots of what the search has proven (`--save-every`): what
/// [`Dfpn::with_snapshots`] hands the proven positions to.
type Snapshots<'a, K> = super::Snapshots<dyn FnMut(Vec<(K, Bounds)>) + 'a>;

/// A proof-number search over one game.
// The engine's insides ([`prove`] is its entry point): for the run and the
// tests, which reach it through `crate::internal`.
#[doc(hidden)]
pub struct Dfpn<'a, G: SearchGame> {
    game: &'a G,
    options: Options,
    table: RwLock<Table<G::Key>>,
    /// Proven bounds loaded from a proof database: never evicted.
    known: HashMap<G::Key, Bounds>,
    leaves: Option<&'a dyn ValueLeaves<G>>,
    stats: Stats,
    progress: Option<super::engine::ProgressFn<'a>>,
    snapshots: Option<Snapshots<'a, G::Key>>,
    limits: Limits,
    /// Children vectors of finished frames, reused by the next ones.
    spare: Vec<Vec<Child<G>>>,
    /// The threads' counters per node, made when threads first join.
    busy: Option<Box<[AtomicU32]>>,
    /// The computing branch of the main thread, when watched.
    watcher: Option<super::watch::Watcher>,
}

impl<'a, G: SearchGame> Dfpn<'a, G> {
    /// A search with a fresh transposition table.
    pub fn new(game: &'a G, mut options: Options) -> Dfpn<'a, G> {
        options.threads = options.threads.max(1);
        let table = Table::new(options.memory);
        let stats = Stats {
            tt_capacity: table.capacity(),
            tt_bytes: table.bytes(),
            tt_max: table.max_capacity(),
            tt_max_bytes: table.max_bytes(),
            threads: options.threads,
            ..Stats::default()
        };
        let limits = Limits::new(
            options.memory,
            options.node_limit,
            options.time_limit,
            options.cancel.clone(),
        );
        Dfpn {
            game,
            table: RwLock::new(table),
            known: HashMap::new(),
            leaves: None,
            stats,
            progress: None,
            snapshots: None,
            limits,
            spare: Vec::new(),
            busy: None,
            watcher: options.watch.clone().map(super::watch::Watcher::new),
            options,
        }
    }

    /// Answers positions from tables wherever they hold them.
    pub fn with_leaves(mut self, leaves: &'a dyn ValueLeaves<G>) -> Self {
        self.leaves = Some(leaves);
        self
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&Stats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Hands `save` everything proven so far (as [`Dfpn::proven`] gives it)
    /// about every `every`, while the search runs: the main thread calls it
    /// between two nodes (checked every 1,024 of its nodes), the others go
    /// on searching meanwhile. For saves that outlast a crash.
    pub fn with_snapshots(
        mut self,
        every: Duration,
        save: impl FnMut(Vec<(G::Key, Bounds)>) + 'a,
    ) -> Self {
        self.snapshots = Some(Snapshots::new(every, Box::new(save)));
        self
    }

    /// Positions whose value is already (partly) proven, e.g. from a proof
    /// database: the search starts from them.
    pub fn add_known(&mut self, key: G::Key, bounds: Bounds) {
        let b = self.known.entry(key).or_insert(Bounds::UNKNOWN);
        *b = b.meet(bounds);
    }

    /// Every position whose value the search has (partly) proven and still
    /// holds, with what is known: the proof database to save. Each key once:
    /// the table holds a key in one slot, and a known key the table also
    /// proved is given there, its bounds met. The pairs are gathered first
    /// (the table may be shared with threads), key and bounds only: a save
    /// names each position when it writes it.
    pub fn proven(&self) -> impl Iterator<Item = (G::Key, Bounds)> + '_ {
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        proven_facts(&table, &self.known).into_iter()
    }

    /// The game searched.
    pub fn game(&self) -> &'a G {
        self.game
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        table_stats(&mut s, &table);
        s.elapsed = self.limits.elapsed();
        s
    }

    /// Proves the value of `root` for the player to move, or as much of it
    /// as the limits allow.
    pub fn prove(&mut self, root: &G::Pos) -> Proof<G::Move> {
        let mut bounds = self.serial().settled(root).unwrap_or(Bounds::UNKNOWN);
        // Win first: a won position needs one proof. Without ties, "at least
        // a tie" is the same question.
        let targets: &[i8] = if self.game.ties() { &[1, 0] } else { &[1] };
        for &k in targets {
            if bounds.value().is_some() || self.limits.stop().is_some() {
                break;
            }
            if bounds.lo >= k || bounds.hi < k {
                continue;
            }
            self.stats.target = k;
            let (phi, delta) = self.root_search(root, k);
            if phi == 0 {
                bounds.lo = bounds.lo.max(k);
            } else if delta == 0 {
                bounds.hi = bounds.hi.min(k - 1);
            }
        }
        if !self.game.ties() {
            // No ties: "not a win" is a loss.
            if bounds.hi <= 0 {
                bounds.hi = -1;
                bounds.lo = -1;
            } else if bounds.lo >= 0 {
                bounds.lo = 1;
            }
        }
        // The two questions' answers may sit in two table entries of the
        // root, the first evicted by the second's search: what the root is
        // known to be is kept where nothing evicts it, so a saved proof
        // database holds the value the search printed.
        if bounds != Bounds::UNKNOWN && self.game.terminal(root).is_none() {
            self.add_known(self.game.key(root), bounds);
        }
        let value = bounds.value();
        let best_move = match value {
            Some(v) if v != Value::Lose && self.game.terminal(root).is_none() => {
                self.best_move(root, v)
            }
            _ => None,
        };
        let stopped = value.is_none();
        Proof {
            bounds,
            value,
            best_move,
            stats: self.stats(),
            stopped,
            stop: self.limits.stop(),
        }
    }

    /// Answers one question about `p`: is its value for the player to move
    /// at least `k` (1 win, 0 tie)? `None` if the search was stopped first.
    pub fn decide(&mut self, p: &G::Pos, k: i8) -> Option<bool> {
        let (phi, delta) = self.root_search(p, k);
        if phi == 0 {
            Some(true)
        } else if delta == 0 {
            Some(false)
        } else {
            None
        }
    }

    /// Why the search stopped, if it has: once stopped it stays stopped
    /// (each later question returns at once, unproven) until
    /// [`Dfpn::renew`].
    pub fn stop_reason(&self) -> Option<Stop> {
        self.limits.stop()
    }

    /// A budget of its own for the next proofs (`nodes` more nodes, `time`
    /// from now), the table kept: what a stopped proof left in it (numbers,
    /// settled subtrees) is where the next one starts. Sound because a
    /// stopped search stores only numbers, never a bound its children do
    /// not prove.
    pub fn renew(&mut self, nodes: Option<u64>, time: Option<Duration>) {
        self.limits.renew(self.stats.nodes, nodes, time);
    }

    /// The search as one thread: the table held exclusively.
    fn serial(&mut self) -> Worker<'_, 'a, G, Exclusive<'_, G::Key>> {
        Worker {
            game: self.game,
            known: &self.known,
            leaves: self.leaves,
            epsilon: self.options.dfpn.epsilon,
            tt: Exclusive(self.table.get_mut().unwrap_or_else(PoisonError::into_inner)),
            limits: &mut self.limits,
            stats: &mut self.stats,
            spare: &mut self.spare,
            crew: None,
            allowance: 0,
            main: true,
            yield_at: None,
            yielded: false,
            progress: self.progress.as_deref_mut(),
            snapshots: self.snapshots.as_mut(),
            watch: self.watcher.as_mut(),
            publish_due: false,
        }
    }

    /// Runs one question at the root until it is answered or stopped.
    fn root_search(&mut self, root: &G::Pos, k: i8) -> (u32, u32) {
        let warm_until = self.stats.nodes.saturating_add(self.options.dfpn.warm_up);
        loop {
            if let Some(b) = self.serial().settled(root) {
                if b.lo >= k {
                    return (0, INF);
                }
                if b.hi < k {
                    return (INF, 0);
                }
            }
            if self.game.terminal(root).is_some() {
                // settled() covers terminals; unreachable in practice.
                return (INF, INF);
            }
            let key = self.game.key(root);
            let threads = self.options.threads;
            let r = if threads > 1 && self.stats.nodes >= warm_until {
                self.crew_search(root, key, k)
            } else {
                let mut alone = self.serial();
                if threads > 1 {
                    alone.yield_at = Some(warm_until);
                }
                alone.mid(root, key, k, INF, INF)
            };
            self.stats.root_pn = r.0;
            self.stats.root_dn = r.1;
            if r.0 == 0 || r.1 == 0 || self.limits.stop().is_some() {
                return r;
            }
        }
    }

    /// A move achieving the proven value `v` (a win or a tie).
    fn best_move(&mut self, root: &G::Pos, v: Value) -> Option<G::Move> {
        // A winning move leads to a child that loses: "child ≥ tie" is no.
        // A tying move leads to a child that cannot win: "child ≥ win" is no.
        let k = if v == Value::Win { 0 } else { 1 };
        let moves = self.game.moves(root);
        for (m, c) in &moves {
            if let Some(b) = self.serial().settled(c) {
                if b.hi < k {
                    return Some(m.clone());
                }
            }
        }
        // Evicted from the table: ask each child again (cheap, its proof
        // was found once).
        for (m, c) in moves {
            if self.limits.stop().is_some() {
                break;
            }
            let (_, delta) = self.root_search(&c, k);
            if delta == 0 {
                return Some(m);
            }
        }
        None
    }
}

/// The table's counters in `s`.
fn table_stats<K: Key>(s: &mut Stats, t: &Table<K>) {
    s.tt_used = t.used();
    s.tt_capacity = t.capacity();
    s.tt_bytes = t.bytes();
    s.tt_max = t.max_capacity();
    s.tt_max_bytes = t.max_bytes();
}

/// What the table and the loaded positions prove (see [`Dfpn::proven`]).
fn proven_facts<K: Key>(table: &Table<K>, known: &HashMap<K, Bounds>) -> Vec<(K, Bounds)> {
    let mut facts: Vec<(K, Bounds)> = table
        .entries()
        .filter(|e| e.bounds != Bounds::UNKNOWN)
        .map(|e| {
            let b = known.get(&e.key).map_or(e.bounds, |k| k.meet(e.bounds));
            (e.key, b)
        })
        .collect();
    facts.extend(
        known
            .iter()
            .filter(|(k, _)| table.get(k).is_none_or(|e| e.bounds == Bounds::UNKNOWN))
            .map(|(k, b)| (*k, *b)),
    );
    facts
}

/// Proves `root` of `game` with the given options (no leaves, no progress).
pub fn prove<G: SearchGame>(game: &G, root: &G::Pos, options: Options) -> Proof<G::Move> {
    Dfpn::new(game, options).prove(root)
}
