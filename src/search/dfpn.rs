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
//! numbers**. Each node counts the threads working below it (a small
//! hashed array of counters, raised when a thread expands the node and
//! lowered when it leaves); a thread choosing a child sees the δ of a
//! child that `b` other threads are in as δ·(1 + b), the work it expects
//! them to add, so it takes the next child unless the busy one is still
//! far better. A thread also re-reads its children's entries each time it
//! comes back to a node, so what the others proved meanwhile is used at
//! once. Kaneko's scheme was chosen over Pawlewicz and Hayward's scalable
//! df-pn (SPDFPN), which keeps a tree of jobs at the root and hands its
//! most-proving leaves to the threads under a work budget: it needs a
//! second search structure and a scheduler above the table, while this one
//! is the serial search plus a counter per node, with nothing that can go
//! wrong when the table replaces entries. What a proof says never depends
//! on the threads: a node is settled only when its children are, in the
//! table every thread reads, and a value with ties still takes its two
//! proofs, one after the other. Node counts, and which of several winning
//! moves is shown, may differ from run to run with more than one thread.
//!
//! A search of several threads starts with one: the others join after
//! [`WARM_UP`] nodes, so the many small searches a database check makes do
//! not each start threads.

use super::engine::{Options, Stats};
use super::leaves::ValueLeaves;
use super::tt::{Access, Exclusive, Shared, Table};
use super::{Bounds, Key, Limits, SearchGame, Stop};
use crate::value::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{PoisonError, RwLock};
use std::time::Duration;

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

/// Nodes a thread takes at a time from a shared node budget: enough that
/// the threads rarely meet on the counter, and the budget stays exact (a
/// thread expands all it took unless the search ends first, when it gives
/// the rest back).
const NODE_CHUNK: u64 = 256;

/// Counters of threads per node, hashed: a collision only makes one node
/// look busier than it is.
const BUSY_SLOTS: usize = 1 << 16;

/// A child during an expansion.
struct Child<G: SearchGame> {
    pos: G::Pos,
    key: G::Key,
    phi: u32,
    delta: u32,
}

/// A node on the line being searched: what a recursive `mid` would hold in
/// its call frame. The frames live in a vector on the heap, so the depth of
/// a line is bounded by memory ([`super::path_budget`]), not by the
/// thread's stack.
struct Frame<G: SearchGame> {
    key: G::Key,
    /// The question asked of this node.
    k: i8,
    th_phi: u32,
    th_delta: u32,
    /// The node counter when this node was expanded (its work is the
    /// difference when it returns).
    nodes_before: u64,
    children: Vec<Child<G>>,
    /// The children searched: the first `active` ones, fewer than all
    /// while the game's focus ([`SearchGame::focus`]) has not been refuted.
    active: usize,
    /// The child being searched below this node.
    best: usize,
}

impl<G: SearchGame> Frame<G> {
    /// Bytes this frame holds, for the path's budget.
    fn bytes(&self) -> u64 {
        (std::mem::size_of::<Frame<G>>()
            + self.children.capacity() * std::mem::size_of::<Child<G>>()) as u64
    }
}

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
            options,
            table: RwLock::new(table),
            known: HashMap::new(),
            leaves: None,
            stats,
            progress: None,
            snapshots: None,
            limits,
            spare: Vec::new(),
            busy: None,
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
    /// (each later question returns at once, unproven).
    pub fn stop_reason(&self) -> Option<Stop> {
        self.limits.stop()
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

    /// One question at the root searched by all the threads on the shared
    /// table, until one of them answers it or the search stops.
    fn crew_search(&mut self, root: &G::Pos, key: G::Key, k: i8) -> (u32, u32) {
        let threads = self.options.threads;
        let busy = self
            .busy
            .get_or_insert_with(|| (0..BUSY_SLOTS).map(|_| AtomicU32::new(0)).collect());
        let crew = Crew {
            left: AtomicU64::new(self.limits.nodes_left(self.stats.nodes)),
            out_of_nodes: AtomicBool::new(false),
            expanded: AtomicU64::new(0),
            base_nodes: self.stats.nodes,
            stop: AtomicU8::new(0),
            done: AtomicBool::new(false),
            grow: AtomicBool::new(false),
            busy,
        };
        // A helper's line may take its share of the path's budget; one that
        // gets deeper leaves the search to the others (the main thread's
        // line alone may stop the search for depth, as without threads).
        let share = self.limits.path_budget() / threads as u64;
        let helper_limits: Vec<Limits> = (1..threads).map(|_| self.limits.helper(share)).collect();
        let (game, known, leaves, epsilon) = (
            self.game,
            &self.known,
            self.leaves,
            self.options.dfpn.epsilon,
        );
        let table = &self.table;
        let (limits, spare) = (&mut self.limits, &mut self.spare);
        let (progress, snapshots) = (self.progress.as_deref_mut(), self.snapshots.as_mut());
        let crew = &crew;
        let (main, helpers) = std::thread::scope(|s| {
            let handles: Vec<_> = helper_limits
                .into_iter()
                .map(|mut limits| {
                    s.spawn(move || {
                        let mut stats = Stats::default();
                        let mut spare = Vec::new();
                        let mut w = Worker {
                            game,
                            known,
                            leaves,
                            epsilon,
                            tt: Shared::new(table, &crew.grow),
                            limits: &mut limits,
                            stats: &mut stats,
                            spare: &mut spare,
                            crew: Some(crew),
                            allowance: 0,
                            main: false,
                            yield_at: None,
                            yielded: false,
                            progress: None,
                            snapshots: None,
                        };
                        let r = w.crew_loop(root, key, k);
                        crew.give_back(w.allowance);
                        drop(w);
                        (r, stats)
                    })
                })
                .collect();
            // The main thread's counters are its own, but its progress
            // reports name the question and the threads as the search's do.
            let mut stats = Stats {
                target: k,
                threads,
                ..Stats::default()
            };
            let mut w = Worker {
                game,
                known,
                leaves,
                epsilon,
                tt: Shared::new(table, &crew.grow),
                limits,
                stats: &mut stats,
                spare,
                crew: Some(crew),
                allowance: 0,
                main: true,
                yield_at: None,
                yielded: false,
                progress,
                snapshots,
            };
            let r = w.crew_loop(root, key, k);
            crew.give_back(w.allowance);
            drop(w);
            let helpers: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect();
            ((r, stats), helpers)
        });
        let mut r = main.0;
        for (hr, st) in std::iter::once(main).chain(helpers) {
            self.stats.nodes += st.nodes;
            self.stats.leaf_hits += st.leaf_hits;
            self.stats.deepest = self.stats.deepest.max(st.deepest);
            if hr.0 == 0 || hr.1 == 0 {
                r = hr;
            }
        }
        if let Some(why) = crew.stopped() {
            self.limits.set_stop(why);
        }
        if crew.out_of_nodes.load(Ordering::Relaxed) {
            self.limits.set_stop(Stop::Nodes);
        }
        r
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

/// What the threads of one question share besides the table.
struct Crew<'b> {
    /// Nodes they may still take from the budget (`u64::MAX`: no budget).
    left: AtomicU64,
    /// A thread found the budget spent.
    out_of_nodes: AtomicBool,
    /// Nodes expanded, added by each thread every 1,024 (progress only).
    expanded: AtomicU64,
    /// Nodes the search had expanded before the threads started.
    base_nodes: u64,
    /// Why every thread stops ([`stop_code`]; 0 while none).
    stop: AtomicU8,
    /// The question is answered.
    done: AtomicBool,
    /// A thread asks for the table to be doubled.
    grow: AtomicBool,
    /// Threads in each node, by [`busy_slot`].
    busy: &'b [AtomicU32],
}

impl Crew<'_> {
    #[inline]
    fn halted(&self) -> bool {
        self.done.load(Ordering::Relaxed) || self.stop.load(Ordering::Relaxed) != 0
    }

    /// Stops every thread for `why` (the first reason stays).
    fn halt(&self, why: Stop) {
        let _ = self
            .stop
            .compare_exchange(0, stop_code(why), Ordering::Relaxed, Ordering::Relaxed);
    }

    fn stopped(&self) -> Option<Stop> {
        match self.stop.load(Ordering::Relaxed) {
            1 => Some(Stop::Time),
            2 => Some(Stop::Requested),
            3 => Some(Stop::Depth),
            4 => Some(Stop::Memory),
            _ => None,
        }
    }

    /// Up to `want` nodes from the budget (all of them if there is none).
    fn take(&self, want: u64) -> u64 {
        let mut left = self.left.load(Ordering::Relaxed);
        loop {
            if left == u64::MAX {
                return want;
            }
            let n = want.min(left);
            if n == 0 {
                return 0;
            }
            match self.left.compare_exchange_weak(
                left,
                left - n,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return n,
                Err(now) => left = now,
            }
        }
    }

    /// Returns nodes taken and not expanded.
    fn give_back(&self, n: u64) {
        if n > 0 && self.left.load(Ordering::Relaxed) != u64::MAX {
            self.left.fetch_add(n, Ordering::Relaxed);
        }
    }

    #[inline]
    fn enter<K: Key>(&self, key: &K) {
        self.busy[busy_slot(key)].fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn leave<K: Key>(&self, key: &K) {
        self.busy[busy_slot(key)].fetch_sub(1, Ordering::Relaxed);
    }

    /// The δ a thread choosing a child sees: δ·(1 + b) for a child `b`
    /// other threads are in (Kaneko's virtual proof numbers), a proof's
    /// numbers unchanged.
    #[inline]
    fn virtual_delta<K: Key>(&self, key: &K, delta: u32) -> u32 {
        let b = self.busy[busy_slot(key)].load(Ordering::Relaxed);
        if b == 0 || delta == 0 || delta >= BIG {
            delta
        } else {
            (u64::from(delta) * (1 + u64::from(b))).min(u64::from(BIG)) as u32
        }
    }
}

/// The slot of a node's thread counter: bits of its hash the table's bucket
/// index does not use first.
#[inline]
fn busy_slot<K: Key>(key: &K) -> usize {
    (key.hash64() >> 48) as usize & (BUSY_SLOTS - 1)
}

fn stop_code(why: Stop) -> u8 {
    match why {
        Stop::Time => 1,
        Stop::Requested => 2,
        Stop::Depth => 3,
        Stop::Memory => 4,
        // Each thread runs out of nodes on its own.
        Stop::Nodes => 0,
    }
}

/// One thread's search: the table (held alone or shared), its limits and
/// counters, and, for the main thread, the progress reports and snapshots.
struct Worker<'w, 'a, G: SearchGame, T: Access<G::Key>> {
    game: &'w G,
    known: &'w HashMap<G::Key, Bounds>,
    leaves: Option<&'w dyn ValueLeaves<G>>,
    epsilon: f64,
    tt: T,
    limits: &'w mut Limits,
    /// Counters: the search's own when alone, this thread's with others.
    stats: &'w mut Stats,
    spare: &'w mut Vec<Vec<Child<G>>>,
    /// What the threads share, when there are several.
    crew: Option<&'w Crew<'w>>,
    /// Nodes this thread took from the shared budget and has not expanded.
    allowance: u64,
    /// The thread that reports progress and takes snapshots.
    main: bool,
    /// A thread alone that others will join stops here ...
    yield_at: Option<u64>,
    /// ... and says so.
    yielded: bool,
    progress: Option<&'w mut (dyn FnMut(&Stats) + 'a)>,
    snapshots: Option<&'w mut Snapshots<'a, G::Key>>,
}

impl<G: SearchGame, T: Access<G::Key>> Worker<'_, '_, G, T> {
    /// Whether this thread must unwind: stopped, the question answered by
    /// another, or its time alone over.
    #[inline]
    fn halted(&self) -> bool {
        self.yielded || self.limits.stop().is_some() || self.crew.is_some_and(Crew::halted)
    }

    /// Searches from the root with the other threads until the question is
    /// answered (by any of them) or the search stops.
    fn crew_loop(&mut self, root: &G::Pos, key: G::Key, k: i8) -> (u32, u32) {
        loop {
            let r = self.mid(root, key, k, INF, INF);
            if r.0 == 0 || r.1 == 0 {
                if let Some(c) = self.crew {
                    c.done.store(true, Ordering::Relaxed);
                }
                return r;
            }
            if self.halted() {
                return r;
            }
        }
    }

    /// What is settled about a position without search: a terminal value,
    /// a table's value, or proven bounds.
    fn settled(&mut self, p: &G::Pos) -> Option<Bounds> {
        if let Some(v) = self.game.terminal(p).or_else(|| self.game.decided(p)) {
            return Some(Bounds::exact(v));
        }
        let key = self.game.key(p);
        let mut b = self.known.get(&key).copied().unwrap_or(Bounds::UNKNOWN);
        if let Some(e) = self.tt.get(&key) {
            b = b.meet(e.bounds);
        }
        if let Some(leaves) = self.leaves {
            if let Some(v) = leaves.value(self.game, p) {
                self.stats.leaf_hits += 1;
                b = b.meet(Bounds::exact(v));
            }
        }
        (b != Bounds::UNKNOWN).then_some(b)
    }

    /// Proof and disproof numbers of a child for question `k`, without expanding it.
    fn evaluate(&mut self, pos: &G::Pos, key: &G::Key, k: i8) -> (u32, u32) {
        if let Some(v) = self.game.terminal(pos) {
            return answer(Bounds::exact(v), k);
        }
        if self.game.wins_now(pos) {
            return answer(Bounds { lo: 1, hi: 1 }, k);
        }
        if let Some(v) = self.game.decided(pos) {
            return answer(Bounds::exact(v), k);
        }
        let mut b = if self.known.is_empty() {
            Bounds::UNKNOWN
        } else {
            self.known.get(key).copied().unwrap_or(Bounds::UNKNOWN)
        };
        let mut numbers = None;
        if let Some(e) = self.tt.get(key) {
            b = b.meet(e.bounds);
            if e.k == k {
                numbers = Some((e.phi, e.delta));
            }
        }
        if b != Bounds::UNKNOWN {
            let a = answer(b, k);
            if a.0 == 0 || a.1 == 0 {
                return a;
            }
        }
        if let Some(leaves) = self.leaves {
            if let Some(v) = leaves.value(self.game, pos) {
                self.stats.leaf_hits += 1;
                let exact = Bounds::exact(v);
                self.tt.update(key, |e| e.bounds = exact);
                return answer(exact, k);
            }
        }
        numbers.unwrap_or_else(|| {
            // Not searched for this question yet: the game's guess.
            let (phi, delta) = self.game.estimate(pos);
            (phi.clamp(1, ESTIMATE_MAX), delta.clamp(1, ESTIMATE_MAX))
        })
    }

    /// Multiple iterative deepening from `root`: works below it until its
    /// φ reaches `th_phi` or its δ reaches `th_delta`, and returns (φ, δ).
    ///
    /// Written as a loop over an explicit stack of [`Frame`]s rather than
    /// as a recursion, so that a line thousands of plies deep (a take-away
    /// game from a large number) needs heap, not call stack: the line's
    /// depth is bounded by [`super::path_budget`] and a deeper one stops the
    /// search with [`Stop::Depth`].
    fn mid(&mut self, root: &G::Pos, key: G::Key, k: i8, th_phi: u32, th_delta: u32) -> (u32, u32) {
        let mut path: Vec<Frame<G>> = Vec::new();
        self.limits.new_path();
        if !self.expand(&mut path, root, key, k, th_phi, th_delta) {
            return self.numbers(&key, k);
        }
        let eps = 1.0 + self.epsilon;
        let weak = self.game.weak_sums();
        loop {
            self.tt.maintain();
            let depth = path.len();
            let f = path.last_mut().expect("a frame on the path");
            // φ(n) = min δ(c); δ(n) = Σ φ(c) (weak: max φ(c) + the other
            // unsolved children); best = argmin δ, second = next δ; over
            // the active children, all of them once those are refuted.
            let (mut phi, mut delta, mut best, mut second) =
                numbers_of(&f.children[..f.active], weak);
            if delta == 0 && f.active < f.children.len() {
                // The focus is refuted, not the node: widen to every move
                // (a disproof needs them all). Until then δ counts the
                // active children only, as λ-df-pn's: a parent sees the
                // node as cheap to refute at its threat order (δ over every
                // child instead measured 6× the root's proof number on
                // Qubic after 2 M nodes, docs/QUBIC.md).
                f.active = f.children.len();
                (phi, delta, best, second) = numbers_of(&f.children, weak);
            }
            if f.children.is_empty() {
                // No moves but not terminal: the game says it is over
                // elsewhere; treat as a loss for the mover.
                phi = INF;
                delta = 0;
            }
            if depth == 1 {
                self.stats.root_pn = phi;
                self.stats.root_dn = delta;
            }
            if phi >= f.th_phi || delta >= f.th_delta || self.halted() {
                let f = path.pop().expect("a frame on the path");
                self.limits.pop_frame(f.bytes());
                if let Some(c) = self.crew {
                    c.leave(&f.key);
                }
                self.store(&f, phi, delta);
                let mut spare = f.children;
                spare.clear();
                self.spare.push(spare);
                match path.last_mut() {
                    None => return (phi, delta),
                    Some(parent) => {
                        let c = &mut parent.children[parent.best];
                        c.phi = phi;
                        c.delta = delta;
                        if self.crew.is_some() {
                            self.refresh(parent);
                        }
                    }
                }
                continue;
            }
            if let Some(crew) = self.crew {
                // Virtual numbers: the least δ as seen with the other
                // threads' work to come, among the children this thread can
                // still descend into (δ below our φ threshold).
                let (mut vbest, mut v1, mut v2) = (usize::MAX, INF, INF);
                for (i, c) in f.children[..f.active].iter().enumerate() {
                    let v = crew.virtual_delta(&c.key, c.delta);
                    if v < v1 {
                        (vbest, v2, v1) = (i, v1, v);
                    } else if v < v2 {
                        v2 = v;
                    }
                }
                if vbest != best && vbest != usize::MAX && f.children[vbest].delta < f.th_phi {
                    best = vbest;
                    second = v2;
                } else if vbest == best {
                    second = second.max(v2);
                }
            }
            f.best = best;
            let c = &f.children[best];
            // The child's δ threshold is our φ's; its φ threshold what
            // keeps our δ under its threshold.
            let child_th_phi = {
                let rest = delta - c.phi.min(delta);
                if f.th_delta == INF {
                    BIG
                } else {
                    f.th_delta.saturating_sub(rest).max(1)
                }
            };
            let widened = if second >= BIG {
                INF
            } else {
                ((f64::from(second) * eps).ceil() as u64)
                    .max(u64::from(second) + 1)
                    .min(u64::from(BIG)) as u32
            };
            let child_th_delta = f.th_phi.min(widened);
            let (cpos, ckey, ck) = (c.pos.clone(), c.key, 1 - f.k);
            // A child that cannot be expanded (a limit) leaves its numbers
            // as they were; the stop then unwinds the path.
            self.expand(&mut path, &cpos, ckey, ck, child_th_phi, child_th_delta);
        }
    }

    /// Re-reads the children's entries of a node another thread may have
    /// changed since it was expanded (proofs above all).
    fn refresh(&mut self, f: &mut Frame<G>) {
        let ck = 1 - f.k;
        for c in &mut f.children {
            if c.phi == 0 || c.delta == 0 {
                continue;
            }
            if let Some(e) = self.tt.get(&c.key) {
                let a = answer(e.bounds, ck);
                if a.0 == 0 || a.1 == 0 {
                    (c.phi, c.delta) = a;
                } else if e.k == ck {
                    (c.phi, c.delta) = (e.phi, e.delta);
                }
            }
        }
    }

    /// Whether one more node may be expanded: the search's node budget
    /// (exact; shared by the threads in chunks), its stops, the time a
    /// thread alone has before the others join.
    #[inline]
    fn may_expand(&mut self) -> bool {
        match self.crew {
            None => {
                if !self.limits.may_expand(self.stats.nodes) {
                    return false;
                }
                if self.yield_at.is_some_and(|y| self.stats.nodes >= y) {
                    self.yielded = true;
                    return false;
                }
                true
            }
            Some(c) => {
                if self.limits.halted() || c.halted() {
                    return false;
                }
                if self.allowance == 0 {
                    self.allowance = c.take(NODE_CHUNK);
                    if self.allowance == 0 {
                        c.out_of_nodes.store(true, Ordering::Relaxed);
                        self.limits.set_stop(Stop::Nodes);
                        return false;
                    }
                }
                self.allowance -= 1;
                true
            }
        }
    }

    /// Expands `pos` onto the path: counts the node, generates and
    /// evaluates its children. Returns `false`, expanding nothing, when a
    /// limit stops the search first: the node budget (exact), the path's
    /// memory, the time or a stop request.
    fn expand(
        &mut self,
        path: &mut Vec<Frame<G>>,
        pos: &G::Pos,
        key: G::Key,
        k: i8,
        th_phi: u32,
        th_delta: u32,
    ) -> bool {
        if !self.may_expand() {
            return false;
        }
        let mut moves = self.game.moves(pos);
        // The player asked to win may search a subset of its moves first.
        let active = if k == 1 {
            match self.game.focus(pos, &mut moves) {
                0 => moves.len(),
                n => n.min(moves.len()),
            }
        } else {
            moves.len()
        };
        let mut children = self.spare.pop().unwrap_or_default();
        children.extend(moves.into_iter().map(|(_, c)| {
            let key = self.game.key(&c);
            // Much of a node's time is waiting for its children's
            // table entries: ask for all of them before reading any.
            self.tt.prefetch(&key);
            Child {
                pos: c,
                key,
                phi: 1,
                delta: 1,
            }
        }));
        for c in &mut children {
            (c.phi, c.delta) = self.evaluate(&c.pos, &c.key, 1 - k);
        }
        let frame = Frame {
            key,
            k,
            th_phi,
            th_delta,
            nodes_before: self.stats.nodes + 1,
            children,
            active,
            best: 0,
        };
        if !self.limits.push_frame(frame.bytes()) {
            if let Some(c) = self.crew {
                // Not expanded after all.
                self.allowance += 1;
                if self.main {
                    c.halt(Stop::Depth);
                }
            }
            let mut spare = frame.children;
            spare.clear();
            self.spare.push(spare);
            return false;
        }
        path.push(frame);
        if let Some(c) = self.crew {
            c.enter(&key);
        }
        self.stats.deepest = self.stats.deepest.max(path.len() as u64);
        self.stats.nodes += 1;
        if self.stats.nodes & 0x3ff == 0 {
            self.check_limits();
        }
        true
    }

    /// What the table holds for question `k` of a node that could not be
    /// expanded.
    fn numbers(&mut self, key: &G::Key, k: i8) -> (u32, u32) {
        match self.tt.get(key) {
            Some(e) if e.k == k => (e.phi, e.delta),
            _ => (1, 1),
        }
    }

    /// Records a finished node's numbers and what they settle.
    fn store(&mut self, f: &Frame<G>, phi: u32, delta: u32) {
        let work = (self.stats.nodes - f.nodes_before + 1).min(u64::from(u32::MAX - 1)) as u32;
        let k = f.k;
        self.tt.update(&f.key, |e| {
            e.k = k;
            e.phi = phi;
            e.delta = delta;
            e.work = e.work.saturating_add(work);
            if phi == 0 {
                e.bounds.lo = e.bounds.lo.max(k);
            } else if delta == 0 {
                e.bounds.hi = e.bounds.hi.min(k - 1);
            }
            if phi == 0 || delta == 0 {
                // A settled question is worth keeping: count it as big work.
                e.work = e.work.saturating_add(work).max(1 << 20);
            }
        });
    }

    /// Every 1,024 nodes: the clock and stop requests (a stop for time or
    /// a request stops every thread), and on the main thread the progress
    /// report and the snapshot when due.
    fn check_limits(&mut self) {
        let report = self.limits.check();
        if let Some(c) = self.crew {
            c.expanded.fetch_add(1024, Ordering::Relaxed);
            if let Some(why @ (Stop::Time | Stop::Requested)) = self.limits.stop() {
                c.halt(why);
            }
        }
        if !self.main {
            return;
        }
        if report && self.progress.is_some() {
            let s = self.progress_stats();
            if let Some(f) = self.progress.as_mut() {
                f(&s);
            }
        }
        if let Some(snap) = self.snapshots.as_deref_mut() {
            snap.when_due(|save| {
                let facts = proven_facts(self.tt.table(), self.known);
                self.tt.pause();
                save(facts);
                self.tt.resume();
            });
        }
    }

    /// The search's counters as the main thread sees them.
    fn progress_stats(&self) -> Stats {
        let mut s = self.stats.clone();
        if let Some(c) = self.crew {
            s.nodes = c.base_nodes + c.expanded.load(Ordering::Relaxed);
        }
        table_stats(&mut s, self.tt.table());
        s.elapsed = self.limits.elapsed();
        s
    }
}

/// A node's (φ, δ) from its children's, with the child of least δ and the
/// next least δ: φ = min δ(c), δ = Σ φ(c), or with `weak` δ = max φ(c) +
/// (unsolved children − 1), which counts a child reached again by
/// transposition less often than the sum (still 0 exactly when every
/// child is solved, INF when one is).
#[inline]
fn numbers_of<G: SearchGame>(children: &[Child<G>], weak: bool) -> (u32, u32, usize, u32) {
    let mut phi = INF;
    let mut delta = 0u32;
    let mut best = usize::MAX;
    let mut second = INF;
    let mut max = 0u32;
    let mut open = 0u32;
    for (i, c) in children.iter().enumerate() {
        if c.delta < phi {
            second = phi;
            phi = c.delta;
            best = i;
        } else if c.delta < second {
            second = c.delta;
        }
        if weak {
            max = max.max(c.phi);
            open += u32::from(c.phi != 0);
        } else {
            delta = if c.phi == INF || delta == INF {
                INF
            } else {
                delta.saturating_add(c.phi).min(BIG)
            };
        }
    }
    if weak {
        delta = if max == INF {
            INF
        } else if open == 0 {
            0
        } else {
            max.saturating_add(open - 1).min(BIG)
        };
    }
    (phi, delta, best, second)
}

/// The proof and disproof numbers of question `k` given what is known.
fn answer(b: Bounds, k: i8) -> (u32, u32) {
    if b.lo >= k {
        (0, INF)
    } else if b.hi < k {
        (INF, 0)
    } else {
        (1, 1)
    }
}

/// Proves `root` of `game` with the given options (no leaves, no progress).
pub fn prove<G: SearchGame>(game: &G, root: &G::Pos, options: Options) -> Proof<G::Move> {
    Dfpn::new(game, options).prove(root)
}
