//! Alpha-beta search with a transposition table, on every core: what the
//! fastest Connect-Four solvers use (Tromp's Fhourstones, Pons' solver).
//!
//! A value is settled by **null-window probes**: "is the value for the
//! player to move at least `k`?" (`k` = 1: a win; `k` = 0: at least a
//! tie), each a negamax search with the window `(k − 1, k)` over the
//! values lose −1, tie 0, win 1. A value with ties takes at most two
//! probes, a win first, as df-pn's two proofs ([`super::dfpn`]). The search
//! goes to the end of the game (no depth limit, no evaluation): every
//! result it stores is a proof, a bound on the true value, so the
//! transposition table's entries are proven positions that a proof
//! database can keep (`--save`), and a search stopped part-way stores
//! nothing it has not finished.
//!
//! **Every core** (Lazy SMP with ABDADA's rule): `threads` threads run the
//! same probe from the root, in the same move order, sharing the table; a
//! thread of the gravity boards' search puts off a move whose position
//! another thread is searching ([`Busy`]) and takes it last, by when the table usually holds its proof.
//! So the threads split a node's moves instead of searching the same ones
//! at once. Measured quiet on `connect:7x6 653` at two threads: 14.7–16.9 s
//! against one thread's 21.9–24.1 s; without the rule, in one order,
//! 23.4–23.9 s; with the helpers' first plies in other orders (the usual
//! Lazy SMP device, used here before) 17.2–21.1 s. (On a loaded machine the
//! one-order threads seemed to share well: time-sliced, one runs ahead and
//! the other finds its proofs; with a core each they walk together.) The
//! generic search keeps one order without the rule. The first thread to
//! finish answers and the others stop. Since every answer is a proof, the value never depends on the
//! number of threads or on their timing (only the nodes and the best move
//! among equally good ones may).
//!
//! **The table grows with the work**: it starts at 1 MiB and doubles, up to
//! `memory`, whenever half of its entries are in use; the probe then starts
//! again from the root with the proofs kept (a restart costs the lines in
//! progress, which the table's proofs make cheap to walk again). An easy
//! position thus takes a few MiB, a hard one the memory it is given. The
//! gravity boards' one-word table doubles in place, on every core, in huge
//! pages where Linux gives them ([`table::Compact::double`]).
//!
//! Two searches behind one interface ([`Solver`]): the generic one works on
//! any [`SearchGame`] through its moves, keys and hooks (immediate wins,
//! decided positions); a game may offer its own (the hook
//! [`SearchGame::alphabeta_native`]): the gravity boards
//! ([`crate::search::games::columns`]) are searched as Pons' solver does,
//! on the bitboards with make-by-copy, "non-losing moves" pruning, move
//! ordering by the threats a move makes and one-word table entries.

mod cube;
mod generic;
mod gravity;
mod scores;
pub(crate) mod table;

use super::engine::{Counted, Options, Stats};
use super::leaves::ValueLeaves;
use super::{score, Bounds, Cancel, SearchGame, Stop};
use crate::value::Value;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

pub(crate) use cube::native as cube_native;
pub(crate) use gravity::native as gravity_native;

/// The table's size before it grows.
pub const INITIAL_TABLE: u64 = 1 << 20;

/// Nodes a thread counts between looks at the clock and the shared
/// counters (and reserves at once from a node budget).
const CHUNK: u64 = 1024;

/// Nodes of a probe's first attempt on the caller's thread.
const ATTEMPT_NODES: u64 = 16 * CHUNK;

/// The stack a first attempt may take on the caller's thread (any thread
/// has this much: Rust's spawned threads 2 MiB).
const ATTEMPT_STACK: usize = 256 << 10;

/// A root's score as [`AlphaBeta::scores`] gives it: the plies to the end
/// and the score (`None` when stopped first), the nodes and the time its
/// search took.
pub type ScoredRoot = (Option<(u32, i32)>, u64, Duration);

/// What a search proved about its root.
#[derive(Clone, Debug)]
pub struct Proof<M> {
    /// What is known about the root's value for the player to move.
    pub bounds: Bounds,
    /// The value, when proven.
    pub value: Option<Value>,
    /// A move that achieves the value (none at a terminal position or a
    /// loss).
    pub best_move: Option<M>,
    /// Counters at the end.
    pub stats: Stats,
    /// Why it stopped, when it did before proving the value.
    pub stop: Option<Stop>,
}

/// What the threads of one search share besides the table.
pub(crate) struct Control {
    /// Every thread returns at once: a thread answered, a limit stopped the
    /// search, or the table is to grow.
    abort: AtomicBool,
    /// The table wants to grow (set with `abort`).
    grow: AtomicBool,
    /// Why the search stopped (a [`Stop`] as a number, 0 for none).
    stop: AtomicU8,
    /// Nodes left to the budget, if there is one.
    limited: bool,
    remaining: AtomicU64,
    /// Counters the threads add to every [`CHUNK`] nodes.
    nodes: AtomicU64,
    leaf_hits: AtomicU64,
    deepest: AtomicU64,
    /// Table slots filled since the table was built.
    used: AtomicU64,
    /// Filled slots at which the table should grow (0: it may not).
    grow_at: AtomicU64,
    cancel: Cancel,
    time_limit: Option<Duration>,
    /// Raised when the time limit passes (by the alarm thread, see
    /// `super::Limits`): looked at before every node, as `abort` is.
    time_up: Option<Arc<AtomicBool>>,
    start: Instant,
}

fn stop_code(s: Stop) -> u8 {
    match s {
        Stop::Nodes => 1,
        Stop::Time => 2,
        Stop::Requested => 3,
        Stop::Depth => 4,
        Stop::Memory => 5,
    }
}

fn stop_of(c: u8) -> Option<Stop> {
    match c {
        1 => Some(Stop::Nodes),
        2 => Some(Stop::Time),
        3 => Some(Stop::Requested),
        4 => Some(Stop::Depth),
        5 => Some(Stop::Memory),
        _ => None,
    }
}

impl Control {
    fn new(o: &Options) -> Control {
        Control {
            abort: AtomicBool::new(false),
            grow: AtomicBool::new(false),
            stop: AtomicU8::new(0),
            limited: o.node_limit.is_some(),
            remaining: AtomicU64::new(o.node_limit.unwrap_or(u64::MAX)),
            nodes: AtomicU64::new(0),
            leaf_hits: AtomicU64::new(0),
            deepest: AtomicU64::new(0),
            used: AtomicU64::new(0),
            grow_at: AtomicU64::new(0),
            cancel: o.cancel.clone(),
            time_limit: o.time_limit,
            time_up: o
                .time_limit
                .and_then(|t| super::alarm_at(Instant::now() + t)),
            start: Instant::now(),
        }
    }

    /// Whether the time-up flag is raised (stopping the search if so).
    #[inline(always)]
    fn time_up(&self) -> bool {
        let up = self
            .time_up
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed));
        if up {
            self.set_stop(Stop::Time);
        }
        up
    }

    fn stopped(&self) -> Option<Stop> {
        stop_of(self.stop.load(Ordering::Relaxed))
    }

    /// Stops the search for `why` (the first reason stays).
    fn set_stop(&self, why: Stop) {
        let _ = self
            .stop
            .compare_exchange(0, stop_code(why), Ordering::Relaxed, Ordering::Relaxed);
        self.abort.store(true, Ordering::Relaxed);
    }

    /// Looks at the clock and the cancel token.
    fn check_time(&self) {
        if self.cancel.is_cancelled() {
            self.set_stop(Stop::Requested);
        } else if self.time_limit.is_some_and(|t| self.start.elapsed() >= t) {
            self.set_stop(Stop::Time);
        }
    }
}

/// The positions the threads are searching at this moment, for the rule of
/// ABDADA (Weill 1996, in Kerrigan's simplified form): a thread puts off a
/// move whose position another thread is searching and tries it after the
/// node's other moves, by when the other thread has usually stored its
/// answer. Only the order of the moves changes, never an answer: a slot
/// holds one key, and a collision or a stale slot makes a move wait,
/// nothing more.
pub(crate) struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Busy {
    /// 16,384 slots (128 KiB): a few threads each have a path of ~60 plies
    /// in them at most.
    const BITS: u32 = 14;
    /// Keys are stored changed by this, so that 0 means an empty slot.
    const TAG: u64 = 0x5bd1_e995_9e37_79b9;

    pub fn new() -> Busy {
        Busy {
            slots: (0..1usize << Self::BITS)
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - Self::BITS)) as usize]
    }

    /// This thread starts searching the moves of `key`.
    #[inline]
    pub fn enter(&self, key: u64) {
        self.slot(key).store(key ^ Self::TAG, Ordering::Relaxed);
    }

    /// This thread is done with `key` (the slot is emptied unless another
    /// key took it since).
    #[inline]
    pub fn leave(&self, key: u64) {
        let _ = self.slot(key).compare_exchange(
            key ^ Self::TAG,
            0,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// Whether a thread is searching `key`'s moves.
    #[inline]
    pub fn has(&self, key: u64) -> bool {
        self.slot(key).load(Ordering::Relaxed) == key ^ Self::TAG
    }
}

/// One thread's view of a search: its share of the node budget, its
/// counters, and the bound on its stack.
pub(crate) struct Worker<'c> {
    /// Whether other threads search beside this one (then a search may
    /// put off a move another thread is searching: [`Busy`]).
    pub shared: bool,
    ctl: &'c Control,
    /// Nodes reserved from the budget and not yet visited.
    reserved: u64,
    /// Nodes this thread visited (ever: subtree work is a difference).
    pub visited: u64,
    flushed: u64,
    pub leaf_hits: u64,
    pub deepest: u64,
    /// Table slots this thread filled since its last report.
    pub filled: u64,
    /// Where the thread's stack started and how far it may go.
    stack_base: usize,
    stack_room: usize,
    /// A first attempt on the caller's thread: past `cap` nodes, or past
    /// its stack room, it gives up (`gave_up`) rather than stop the search.
    cap: u64,
    gave_up: bool,
}

impl<'c> Worker<'c> {
    fn new(ctl: &'c Control, stack_base: usize, stack_room: usize) -> Worker<'c> {
        Worker {
            shared: false,
            ctl,
            reserved: 0,
            visited: 0,
            flushed: 0,
            leaf_hits: 0,
            deepest: 0,
            filled: 0,
            stack_base,
            stack_room,
            cap: u64::MAX,
            gave_up: false,
        }
    }

    /// A worker that gives up after about `cap` nodes or past its stack
    /// room, leaving the search running.
    fn attempt(ctl: &'c Control, stack_base: usize, stack_room: usize, cap: u64) -> Worker<'c> {
        Worker {
            cap,
            ..Worker::new(ctl, stack_base, stack_room)
        }
    }

    /// Counts one node; `false` when the thread must return instead (the
    /// search is aborted, or its budget is spent).
    #[inline(always)]
    pub fn visit(&mut self) -> bool {
        if self.ctl.abort.load(Ordering::Relaxed) || self.ctl.time_up() {
            return false;
        }
        if self.reserved == 0 && !self.refill() {
            return false;
        }
        self.reserved -= 1;
        self.visited += 1;
        true
    }

    /// Whether a frame at `addr` (a local's address) is still within the
    /// thread's stack budget; if not, stops the search ([`Stop::Depth`]).
    #[inline(always)]
    pub fn room(&mut self, addr: usize) -> bool {
        if self.stack_base.saturating_sub(addr) > self.stack_room {
            if self.cap == u64::MAX {
                self.ctl.set_stop(Stop::Depth);
            } else {
                self.gave_up = true;
            }
            return false;
        }
        true
    }

    /// Reports the counters, looks at the clock, and reserves the next
    /// nodes; `false` when the budget is spent.
    #[cold]
    fn refill(&mut self) -> bool {
        self.flush();
        if self.visited >= self.cap {
            self.gave_up = true;
            return false;
        }
        self.ctl.check_time();
        let grow_at = self.ctl.grow_at.load(Ordering::Relaxed);
        if grow_at != 0 && self.ctl.used.load(Ordering::Relaxed) >= grow_at {
            self.ctl.grow.store(true, Ordering::Relaxed);
            self.ctl.abort.store(true, Ordering::Relaxed);
        }
        if self.ctl.abort.load(Ordering::Relaxed) {
            return false;
        }
        if !self.ctl.limited {
            self.reserved = CHUNK;
            return true;
        }
        let mut left = self.ctl.remaining.load(Ordering::Relaxed);
        loop {
            if left == 0 {
                // Out of budget: the others spend what they hold, and the
                // search stops when every thread is out.
                let _ = self.ctl.stop.compare_exchange(
                    0,
                    stop_code(Stop::Nodes),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
                return false;
            }
            let take = left.min(CHUNK);
            match self.ctl.remaining.compare_exchange_weak(
                left,
                left - take,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.reserved = take;
                    return true;
                }
                Err(now) => left = now,
            }
        }
    }

    /// Adds this thread's counters to the shared ones.
    fn flush(&mut self) {
        let c = self.ctl;
        c.nodes
            .fetch_add(self.visited - self.flushed, Ordering::Relaxed);
        self.flushed = self.visited;
        c.leaf_hits.fetch_add(self.leaf_hits, Ordering::Relaxed);
        self.leaf_hits = 0;
        c.used.fetch_add(self.filled, Ordering::Relaxed);
        self.filled = 0;
        c.deepest.fetch_max(self.deepest, Ordering::Relaxed);
    }

    /// The thread is done: counters reported, unspent budget handed back.
    fn finish(&mut self) {
        self.flush();
        if self.ctl.limited && self.reserved > 0 {
            self.ctl
                .remaining
                .fetch_add(self.reserved, Ordering::Relaxed);
            self.reserved = 0;
        }
    }
}

/// A search of one game behind the engine: the generic one, or a game's
/// own ([`SearchGame::alphabeta_native`]).
pub(crate) trait Solver<'a, G: SearchGame>: Send + Sync {
    /// One thread's probe: whether the value of `root` for its mover is at
    /// least `k`, with a move that shows it when it is (and the root is not
    /// over) as a token for [`Solver::move_of`]; `None` when the thread was
    /// stopped first.
    fn probe(&self, w: &mut Worker<'_>, root: &G::Pos, k: i8) -> Option<(bool, Option<usize>)>;
    /// The move of a token [`Solver::probe`] gave for `root`.
    fn move_of(&self, root: &G::Pos, token: usize) -> Option<G::Move>;
    /// Tables to answer positions from.
    fn set_leaves(&mut self, leaves: &'a dyn ValueLeaves<G>);
    /// The plies from `root` to the end under perfect play and the score
    /// that gives them, where the search has scores (the gravity boards:
    /// Pons'), with a score table of `table_bytes` made at the first call;
    /// `Some(None)` where it has none (the default), `None` when stopped.
    /// Whether [`Solver::score`] gives scores.
    fn scores(&self) -> bool {
        false
    }
    fn score(
        &self,
        _w: &mut Worker<'_>,
        _root: &G::Pos,
        _table_bytes: u64,
    ) -> Option<Option<(u32, i32)>> {
        Some(None)
    }
    /// The score table's use, once [`Solver::score`] made it.
    fn score_table(&self) -> Option<super::engine::TableUse> {
        None
    }
    /// Bounds proven elsewhere (a proof database): kept apart from the
    /// table, never evicted.
    fn add_known(&mut self, key: G::Key, bounds: Bounds);
    /// Every position the table and the known bounds hold, each key once.
    fn proven(&self) -> Vec<(G::Key, Bounds)>;
    /// Entries and bytes of the table.
    fn capacity(&self) -> u64;
    fn bytes(&self) -> u64;
    /// Doubles the table, keeping its entries; returns how many it holds.
    fn grow(&mut self) -> u64;
}

/// A game's own alpha-beta search, as [`SearchGame::alphabeta_native`]
/// hands it to the engine.
pub struct Native<'a, G: SearchGame>(pub(crate) Box<dyn Solver<'a, G> + 'a>);

/// An alpha-beta search over one game (see the module doc).
pub struct AlphaBeta<'a, G: SearchGame> {
    game: &'a G,
    options: Options,
    solver: Box<dyn Solver<'a, G> + 'a>,
    ctl: Control,
    target: i8,
    progress: Option<super::engine::ProgressFn<'a>>,
}

impl<'a, G: SearchGame> AlphaBeta<'a, G> {
    /// A search with a fresh table of [`INITIAL_TABLE`] bytes (or `memory`
    /// if less), which grows up to `memory`.
    pub fn new(game: &'a G, options: Options) -> AlphaBeta<'a, G> {
        let first = INITIAL_TABLE.min(options.memory);
        let native = if options.alphabeta.native {
            game.alphabeta_native(first)
        } else {
            None
        };
        let solver = match native {
            Some(Native(s)) => s,
            None => Box::new(generic::Generic::new(game, first)),
        };
        let ctl = Control::new(&options);
        let mut ab = AlphaBeta {
            game,
            options,
            solver,
            ctl,
            target: 1,
            progress: None,
        };
        ab.set_grow_at();
        ab
    }

    /// Answers positions from tables wherever they hold them.
    pub fn with_leaves(mut self, leaves: &'a dyn ValueLeaves<G>) -> Self {
        self.solver.set_leaves(leaves);
        self
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&Stats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Positions whose value is already (partly) proven, e.g. from a proof
    /// database.
    pub fn add_known(&mut self, key: G::Key, bounds: Bounds) {
        self.solver.add_known(key, bounds);
    }

    /// Every position the search has (partly) proven and still holds, with
    /// what is known: the proof database to save. Each key once.
    pub fn proven(&self) -> Vec<(G::Key, Bounds)> {
        self.solver.proven()
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        Stats {
            score_table: self.solver.score_table(),
            ..counters(
                &self.ctl,
                &*self.solver,
                self.target,
                self.options.threads.max(1),
                self.options.memory,
            )
        }
    }

    /// The game searched.
    pub fn game(&self) -> &'a G {
        self.game
    }

    /// Why the search stopped, if it has: once stopped it stays stopped
    /// until [`AlphaBeta::renew`].
    pub fn stop_reason(&self) -> Option<Stop> {
        self.ctl.stopped()
    }

    /// A budget of its own for the next proofs (`nodes` more nodes, `time`
    /// from now), the table kept: a stopped probe stores nothing it did
    /// not finish, so what is in the table holds.
    pub fn renew(&mut self, nodes: Option<u64>, time: Option<Duration>) {
        let c = &mut self.ctl;
        c.stop.store(0, Ordering::Relaxed);
        c.abort.store(false, Ordering::Relaxed);
        c.grow.store(false, Ordering::Relaxed);
        c.limited = nodes.is_some();
        c.remaining
            .store(nodes.unwrap_or(u64::MAX), Ordering::Relaxed);
        c.time_limit = time;
        c.start = Instant::now();
        c.time_up = time.and_then(|t| super::alarm_at(Instant::now() + t));
    }

    /// Proves the value of `root` for the player to move, or as much of it
    /// as the limits allow.
    pub fn prove(&mut self, root: &G::Pos) -> Proof<G::Move> {
        let mut bounds = Bounds::UNKNOWN;
        let mut best_move = None;
        if let Some(v) = self.game.terminal(root) {
            bounds = Bounds::exact(v);
        }
        let targets: &[i8] = if self.game.ties() { &[1, 0] } else { &[1] };
        for &k in targets {
            if bounds.value().is_some() || self.stop_reason().is_some() {
                break;
            }
            self.target = k;
            match self.probe(root, k) {
                Some((true, m)) => {
                    bounds.lo = bounds.lo.max(k);
                    best_move = m.and_then(|t| self.solver.move_of(root, t));
                }
                Some((false, _)) => bounds.hi = bounds.hi.min(k - 1),
                None => break,
            }
        }
        if !self.game.ties() {
            // No ties: "not a win" is a loss.
            if bounds.hi <= 0 {
                bounds = Bounds::exact(Value::Lose);
            } else if bounds.lo >= 0 {
                bounds.lo = 1;
            }
        }
        // The root's bounds may sit in two table entries, or none (the root
        // skips the table): kept where a save finds them.
        if bounds != Bounds::UNKNOWN && self.game.terminal(root).is_none() {
            self.solver.add_known(self.game.key(root), bounds);
        }
        let value = bounds.value();
        if value.is_none_or(|v| v == Value::Lose) {
            best_move = None;
        }
        Proof {
            bounds,
            value,
            best_move,
            stats: self.stats(),
            stop: if value.is_none() {
                self.stop_reason()
            } else {
                None
            },
        }
    }

    /// Whether the game's search gives scores ([`AlphaBeta::score`]).
    pub fn has_scores(&self) -> bool {
        self.solver.scores()
    }

    /// The plies from `root` to the end under perfect play (the fastest
    /// win, the slowest loss) and the score that gives them (Pons' for the
    /// gravity boards: see [`Searched::score`]), on this thread; `None`
    /// where the game's search has no scores, or when stopped first.
    ///
    /// [`Searched::score`]: super::run::Searched::score
    pub fn score(&mut self, root: &G::Pos) -> Option<(u32, i32)> {
        if self.stop_reason().is_some() {
            return None;
        }
        self.ctl.abort.store(false, Ordering::Relaxed);
        let base = 0u8;
        let base = std::hint::black_box(&base) as *const u8 as usize;
        // A gravity board's line is at most 64 plies: any thread's stack.
        let mut w = Worker::new(&self.ctl, base, ATTEMPT_STACK);
        // A quarter of the memory, at most 64 MiB: the value search's
        // table keeps the rest.
        let bytes = (self.options.memory / 4).min(64 << 20);
        // The value table does not grow meanwhile: its fill would abort
        // a search that does not use it.
        let grow_at = self.ctl.grow_at.swap(0, Ordering::Relaxed);
        let r = self.solver.score(&mut w, root, bytes);
        w.finish();
        self.ctl.grow_at.store(grow_at, Ordering::Relaxed);
        r.flatten()
    }

    /// [`AlphaBeta::score`] of each of `roots` (a position's moves, for
    /// `--moves`), with the nodes and the time each took: the roots shared
    /// among the search's threads, each taking the next root not taken
    /// (a move's score is one sequence of null-window probes, whose
    /// narrowing does not split), all sharing one score table. Exact
    /// whatever the threads' timing: every entry is a proof. Measured in
    /// docs/SEARCH-MOVES.md against Lazy SMP's split of one probe.
    pub fn scores(&mut self, roots: &[G::Pos]) -> Vec<ScoredRoot> {
        let threads = self.options.threads.max(1).min(roots.len());
        if threads <= 1 || !self.has_scores() {
            return roots
                .iter()
                .map(|r| {
                    let (t, before) = (Instant::now(), self.ctl.nodes.load(Ordering::Relaxed));
                    let score = self.score(r);
                    let nodes = self.ctl.nodes.load(Ordering::Relaxed) - before;
                    (score, nodes, t.elapsed())
                })
                .collect();
        }
        let mut out = vec![(None, 0, Duration::ZERO); roots.len()];
        if self.stop_reason().is_some() {
            return out;
        }
        self.ctl.abort.store(false, Ordering::Relaxed);
        let bytes = (self.options.memory / 4).min(64 << 20);
        let grow_at = self.ctl.grow_at.swap(0, Ordering::Relaxed);
        // A gravity board's line is at most 64 plies.
        let stack = 8 << 20;
        let (solver, ctl) = (&*self.solver, &self.ctl);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let memory = self.options.memory;
        let mut progress = self.progress.take();
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel();
            let mut running = 0;
            for id in 0..threads {
                let (tx, next) = (tx.clone(), &next);
                let spawned = std::thread::Builder::new()
                    .name(format!("scores-{id}"))
                    .stack_size(stack)
                    .spawn_scoped(s, move || {
                        let base = 0u8;
                        let base = std::hint::black_box(&base) as *const u8 as usize;
                        let mut w = Worker::new(ctl, base, stack / 2);
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= roots.len() || ctl.stopped().is_some() {
                                break;
                            }
                            let (t, before) = (Instant::now(), w.visited);
                            let r = solver.score(&mut w, &roots[i], bytes).flatten();
                            let _ = tx.send((i, r, w.visited - before, t.elapsed()));
                        }
                        w.finish();
                    });
                if spawned.is_ok() {
                    running += 1;
                }
            }
            drop(tx);
            if running == 0 {
                return;
            }
            let mut next_report = Instant::now() + Duration::from_secs(1);
            loop {
                match rx.recv_timeout(Duration::from_millis(20)) {
                    Ok((i, r, nodes, took)) => out[i] = (r, nodes, took),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        ctl.check_time();
                        let now = Instant::now();
                        if now >= next_report {
                            next_report = now + Duration::from_secs(1);
                            if let Some(f) = progress.as_mut() {
                                f(&counters(ctl, solver, 1, threads, memory));
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
        });
        if next.load(Ordering::Relaxed) < roots.len() && self.stop_reason().is_none() {
            // No thread could be started for some roots: scored here.
            for (i, r) in roots.iter().enumerate() {
                if out[i].0.is_none() && self.stop_reason().is_none() {
                    let (t, before) = (Instant::now(), self.ctl.nodes.load(Ordering::Relaxed));
                    let score = self.score(r);
                    out[i] = (
                        score,
                        self.ctl.nodes.load(Ordering::Relaxed) - before,
                        t.elapsed(),
                    );
                }
            }
        }
        self.progress = progress;
        self.ctl.grow_at.store(grow_at, Ordering::Relaxed);
        out
    }

    /// Answers one question about `p`: is its value for the player to move
    /// at least `k` (1 win, 0 tie)? `None` if the search was stopped first.
    pub fn decide(&mut self, p: &G::Pos, k: i8) -> Option<bool> {
        if let Some(v) = self.game.terminal(p) {
            return Some(score(v) >= k);
        }
        self.probe(p, k).map(|(yes, _)| yes)
    }

    /// Sets when the table should grow: once half its entries are in use,
    /// if doubling it stays within `memory`.
    fn set_grow_at(&mut self) {
        let may = self.solver.bytes() * 2 <= self.options.memory;
        let at = if may { self.solver.capacity() / 2 } else { 0 };
        self.ctl.grow_at.store(at, Ordering::Relaxed);
    }

    /// One question to the end (or a stop), growing the table on the way.
    fn probe(&mut self, root: &G::Pos, k: i8) -> Option<(bool, Option<usize>)> {
        loop {
            if self.stop_reason().is_some() {
                return None;
            }
            self.ctl.abort.store(false, Ordering::Relaxed);
            self.ctl.grow.store(false, Ordering::Relaxed);
            if let Some(answer) = self.run_threads(root, k) {
                return Some(answer);
            }
            if self.stop_reason().is_some() || !self.ctl.grow.load(Ordering::Relaxed) {
                // Every thread out of budget is a stop for nodes, set by the
                // threads; anything else unanswered is a stop too.
                if self.stop_reason().is_none() {
                    self.ctl.set_stop(Stop::Nodes);
                }
                return None;
            }
            let used = self.solver.grow();
            self.ctl.used.store(used, Ordering::Relaxed);
            self.set_grow_at();
        }
    }

    /// Runs the probe on every thread until one answers or all stop.
    fn run_threads(&mut self, root: &G::Pos, k: i8) -> Option<(bool, Option<usize>)> {
        // Most probes are small (re-proving a database's entries, easy
        // positions): tried first on this thread, so that they start no
        // thread, within a stack room any thread has.
        {
            let base = 0u8;
            let base = std::hint::black_box(&base) as *const u8 as usize;
            let mut w = Worker::attempt(&self.ctl, base, ATTEMPT_STACK, ATTEMPT_NODES);
            let r = self.solver.probe(&mut w, root, k);
            w.finish();
            if r.is_some() || !w.gave_up {
                return r;
            }
        }
        let (threads, memory) = (self.options.threads.max(1), self.options.memory);
        // A generic game's line may be thousands of plies (a take-away
        // game): its frames go on the thread's stack, bounded by the
        // memory a search's path may take.
        let stack = super::path_budget(self.options.memory).min(1 << 30) as usize;
        let solver = &*self.solver;
        let ctl = &self.ctl;
        let mut answer = None;
        let mut progress = self.progress.take();
        let mut next_report = Instant::now() + Duration::from_secs(1);
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel();
            let mut running = 0;
            for id in 0..threads {
                let tx = tx.clone();
                let spawned = std::thread::Builder::new()
                    .name(format!("alphabeta-{id}"))
                    .stack_size(stack)
                    .spawn_scoped(s, move || {
                        let base = 0u8;
                        let base = std::hint::black_box(&base) as *const u8 as usize;
                        let mut w = Worker::new(ctl, base, stack - (1 << 20).min(stack / 2));
                        w.shared = threads > 1;
                        let r = solver.probe(&mut w, root, k);
                        w.finish();
                        if r.is_some() {
                            ctl.abort.store(true, Ordering::Relaxed);
                        }
                        let _ = tx.send(r);
                    });
                if spawned.is_ok() {
                    running += 1;
                }
            }
            drop(tx);
            if running == 0 {
                // No thread could be started: search on this one, within
                // the stack it has.
                let base = 0u8;
                let base = std::hint::black_box(&base) as *const u8 as usize;
                let mut w = Worker::new(ctl, base, 1 << 20);
                answer = solver.probe(&mut w, root, k);
                w.finish();
                return;
            }
            while running > 0 {
                match rx.recv_timeout(Duration::from_millis(20)) {
                    Ok(r) => {
                        running -= 1;
                        if answer.is_none() {
                            answer = r;
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        ctl.check_time();
                        let now = Instant::now();
                        if now >= next_report {
                            next_report = now + Duration::from_secs(1);
                            if let Some(f) = progress.as_mut() {
                                f(&counters(ctl, solver, k, threads, memory));
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
        });
        self.progress = progress;
        answer
    }
}

/// The counters of a search on `solver`'s table, which doubles while it
/// stays within `memory`: what it may grow to, in bytes and entries.
fn counters<'a, G: SearchGame>(
    ctl: &Control,
    solver: &(dyn Solver<'a, G> + 'a),
    target: i8,
    threads: usize,
    memory: u64,
) -> Stats {
    let (capacity, bytes) = (solver.capacity(), solver.bytes());
    let mut max_bytes = bytes.max(1);
    while max_bytes * 2 <= memory {
        max_bytes *= 2;
    }
    Stats {
        counted: Counted::AlphaBeta,
        nodes: ctl.nodes.load(Ordering::Relaxed),
        leaf_hits: ctl.leaf_hits.load(Ordering::Relaxed),
        tt_used: ctl.used.load(Ordering::Relaxed).min(capacity),
        tt_capacity: capacity,
        tt_bytes: bytes,
        tt_max: capacity * (max_bytes / bytes.max(1)),
        tt_max_bytes: max_bytes,
        target,
        threads,
        elapsed: ctl.start.elapsed(),
        deepest: ctl.deepest.load(Ordering::Relaxed),
        ..Stats::default()
    }
}

impl<G: SearchGame> super::proofdb::Decider<G> for AlphaBeta<'_, G> {
    fn decide(&mut self, p: &G::Pos, k: i8) -> Option<bool> {
        AlphaBeta::decide(self, p, k)
    }
    fn add_known(&mut self, key: G::Key, bounds: Bounds) {
        AlphaBeta::add_known(self, key, bounds)
    }
}

/// Whether alpha-beta is the faster engine for `game` (what `search
/// --engine auto` picks): where the game has its own alpha-beta search
/// (the gravity boards), measured several times faster than df-pn
/// (README, "Beyond the table"); elsewhere df-pn, whose proof numbers
/// find the narrow wins of pattern games that a depth-first search
/// ordered by a static score misses.
pub fn preferred<G: SearchGame>(game: &G) -> bool {
    game.alphabeta_native(0).is_some()
}

/// Proves `root` of `game` with the given options (no leaves, no progress).
pub fn prove<G: SearchGame>(game: &G, root: &G::Pos, options: Options) -> Proof<G::Move> {
    AlphaBeta::new(game, options).prove(root)
}
