//! Search past the tables: proving the value of one position of a game too
//! big to enumerate.
//!
//! A table labels every position; a search proves one. [`SearchGame`] is
//! what a game tells the search: its rules on positions of any size (no
//! index, so no enumeration limit), a canonical key per position (its
//! symmetries folded, for the transposition table and the proof database),
//! and hooks for move ordering and immediate wins. The engines:
//!
//! - [`dfpn`]: depth-first proof-number search (Nagai 2002) with the 1+ε
//!   trick (Pawlewicz & Lew) and a bounded transposition table. A value
//!   with ties is settled by two proofs, as GABOR does: can the mover win?
//!   If not, can the mover avoid losing?
//! - [`nimber`]: Sprague–Grundy values of impartial games, summing
//!   independent components (Glop's method), with nimber tables as leaves.
//! - [`alphabeta`]: alpha-beta with a transposition table and null-window
//!   probes on the value, on every core (Lazy SMP), with a fast path for
//!   the gravity boards (Pons-style bitboards).
//! - [`reference`](mod@reference): plain memoised negamax, the independent check of all.
//!
//! Tables serve as leaves (`leaves`): wherever a searched position is a
//! position a given table indexes, its value is read, not searched.
//! Proven positions can be saved and reloaded ([`proofdb`]). [`run`] does
//! all of it in one call (`retrograde search`), stopped early by its
//! limits or its [`Cancel`] token.

pub mod alphabeta;
pub(crate) mod bounded;
pub(crate) mod couples;
pub mod dfpn;
mod distance;
pub mod engine;
pub mod games;
pub(crate) mod hash;
pub mod jobs;
pub(crate) mod leaves;
pub mod nimber;
pub mod proofdb;
pub mod prover;
#[cfg(feature = "mpi")]
pub mod ranks;
pub mod reference;
mod report;
pub mod run;
pub(crate) mod tt;
pub mod watch;

use crate::value::Value;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A canonical position key of fixed width: what the transposition table
/// compares and what a proof database stores.
pub trait Key: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    /// Bytes in the stored form.
    const BYTES: usize;
    /// Writes the key's `BYTES` bytes (little-endian words).
    fn write(&self, out: &mut Vec<u8>);
    /// Reads a key written by [`Key::write`] (`b` holds exactly `BYTES` bytes).
    fn read(b: &[u8]) -> Self;
    /// A well-mixed 64-bit hash (transposition table slots).
    fn hash64(&self) -> u64;
}

/// Mixes a word (splitmix64's finaliser): neighbouring boards land far apart.
#[inline]
pub(crate) fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Key for u64 {
    const BYTES: usize = 8;
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
    }
    #[inline]
    fn hash64(&self) -> u64 {
        mix64(*self)
    }
}

impl Key for u128 {
    const BYTES: usize = 16;
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        u128::from_le_bytes(b[..16].try_into().expect("16 bytes"))
    }
    #[inline]
    fn hash64(&self) -> u64 {
        mix64(*self as u64 ^ mix64((*self >> 64) as u64))
    }
}

impl<const N: usize> Key for [u64; N] {
    const BYTES: usize = 8 * N;
    fn write(&self, out: &mut Vec<u8>) {
        for w in self {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    fn read(b: &[u8]) -> Self {
        std::array::from_fn(|i| {
            u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        })
    }
    #[inline]
    fn hash64(&self) -> u64 {
        let mut h = 0x9e37_79b9_7f4a_7c15u64;
        for w in self {
            h = mix64(h ^ *w);
        }
        h
    }
}

/// A game as the search sees it: rules on positions of any size.
///
/// Positions record the player to move (partizan games) or need not
/// (impartial games: [`SearchGame::impartial`]). Games must be acyclic: no
/// sequence of moves returns to a position (the search would not end).
pub trait SearchGame: Send + Sync + 'static {
    /// A position, side to move included.
    type Pos: Clone + Debug + Send + Sync + 'static;
    /// A move, as shown to users.
    type Move: Clone + Debug + 'static;
    /// The canonical key of a position.
    type Key: Key;

    /// The canonical spec, in the same syntax as the tables' specs
    /// (`connect:7x6`), so that a table of the same game is recognised.
    fn spec(&self) -> String;

    /// The starting position.
    fn start(&self) -> Self::Pos;

    /// Parses a position in the game's notation (the tables' notation).
    fn parse_position(&self, s: &str) -> Result<Self::Pos, String>;

    /// Writes a position in the game's notation.
    fn format_position(&self, p: &Self::Pos) -> String;

    /// Writes a move in the game's notation.
    fn format_move(&self, m: &Self::Move) -> String;

    /// The value of a game-over position for the player to move, or `None`
    /// if the game goes on.
    fn terminal(&self, p: &Self::Pos) -> Option<Value>;

    /// Every legal move of a non-terminal position with the position it
    /// leads to, most promising first (the search tries them in this order).
    fn moves(&self, p: &Self::Pos) -> Vec<(Self::Move, Self::Pos)>;

    /// The key of a position: equal for positions a symmetry of the game
    /// maps onto each other, different otherwise.
    fn key(&self, p: &Self::Pos) -> Self::Key;

    /// A position whose key is `key` (any of the symmetric images), so that
    /// a proof database can store keys and still name positions. `None`
    /// (the default) when the key cannot be turned back: such positions are
    /// not saved.
    fn position_of_key(&self, _key: &Self::Key) -> Option<Self::Pos> {
        None
    }

    /// Whether the player to move of a non-terminal position can win with
    /// this very move (a pattern game's completed pattern). A quick check
    /// that may answer `false` when unsure; the default always does.
    fn wins_now(&self, _p: &Self::Pos) -> bool {
        false
    }

    /// The value of a position the rules do not end yet but whose value the
    /// game can tell without search: a placement game where no pattern can
    /// be completed any more (each holds pieces of both players) fills up
    /// to a tie, so the search need not play it out. `None` when unsure
    /// (the default); never different from what the rules give in the end.
    fn decided(&self, _p: &Self::Pos) -> Option<Value> {
        None
    }

    /// Proof and disproof numbers for a position df-pn has not expanded
    /// yet: (φ, δ), the work it expects to prove and to disprove that the
    /// player to move reaches the value asked. Only a guess that orders the
    /// search, never a value: both at least 1 and below `u32::MAX - 1`
    /// (the dfpn clamps them). The default (1, 1) is plain df-pn's.
    fn estimate(&self, _p: &Self::Pos) -> (u32, u32) {
        (1, 1)
    }

    /// At a node whose player to move is asked to win (df-pn's question
    /// `k` = 1), moves `moves` (as [`SearchGame::moves`] gave them) so that
    /// the ones df-pn should search first come first, and returns how many
    /// of them df-pn searches alone: a win proved among those is a proof,
    /// and df-pn widens to every move once they are all refuted, so the
    /// subset orders the search and never decides a value. The default
    /// (all of them) is plain df-pn's. Pattern games give their threats
    /// (`games::occupy`'s λ-moves).
    fn focus(&self, _p: &Self::Pos, moves: &mut [(Self::Move, Self::Pos)]) -> usize {
        moves.len()
    }

    /// Whether df-pn sums a node's children as *weak* disproof numbers
    /// (the largest child's number plus one for each other unsolved child,
    /// Ueda et al. 2008) instead of their sum, which counts a position
    /// reached by several moves once per move. Only the search's order
    /// changes, never a value. The default (`false`) is the plain sum.
    fn weak_sums(&self) -> bool {
        false
    }

    /// The alpha-beta engine's own search of this game with a table of
    /// `table_bytes`, when the game has one faster than the generic search
    /// over these methods (the gravity boards'). `None` (the default): the
    /// generic search.
    fn alphabeta_native(&self, _table_bytes: u64) -> Option<alphabeta::Native<'_, Self>>
    where
        Self: Sized,
    {
        None
    }

    /// The player to move in `p` (0 the first), for a game whose players
    /// take turns and are named, as the tables' `probe` names them
    /// (`player 0 to move`). `None` (the default): not said.
    fn to_move(&self, _p: &Self::Pos) -> Option<u8> {
        None
    }

    /// Whether the game is impartial (both players have the same moves, the
    /// player who cannot move loses): nimbers apply.
    fn impartial(&self) -> bool {
        false
    }

    /// Whether a tie is a possible result: if not, one proof settles a value.
    fn ties(&self) -> bool {
        true
    }

    /// An impartial position as a sum of independent components (Cram:
    /// regions of empty squares no domino can join). The default is the
    /// position itself. Called only when [`SearchGame::impartial`].
    fn components(&self, p: &Self::Pos) -> Vec<Self::Pos> {
        vec![p.clone()]
    }

    /// The fewest value entries of `records` (a proof database's) this
    /// game finds from which the check re-proves `root` with no search
    /// (`proofdb shrink`). The default has no shrinking.
    fn shrink(
        &self,
        _records: &[proofdb::Record<Self::Pos, Self::Key>],
        _root: &Self::Pos,
    ) -> Result<proofdb::Records<Self>, proofdb::Shrink>
    where
        Self: Sized,
    {
        Err(proofdb::Shrink::Unsupported)
    }
}

/// The knowledge about a position's value for the player to move: it lies
/// between `lo` and `hi` (as `-1` lose, `0` tie, `1` win).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Lowest value still possible.
    pub lo: i8,
    /// Highest value still possible.
    pub hi: i8,
}

impl Bounds {
    /// Nothing known.
    pub const UNKNOWN: Bounds = Bounds { lo: -1, hi: 1 };

    /// Exactly `v`.
    pub fn exact(v: Value) -> Bounds {
        let s = score(v);
        Bounds { lo: s, hi: s }
    }

    /// The value, once the bounds meet.
    pub fn value(self) -> Option<Value> {
        (self.lo == self.hi).then(|| value_of(self.lo))
    }

    /// The bounds in words, as `retrograde search` prints them: the value
    /// once proven, else what is known ("not a loss (win or tie; unproven
    /// which)"), else "unproven".
    pub fn describe(self) -> String {
        match (self.value(), self.lo, self.hi) {
            (Some(v), _, _) => v.name().to_string(),
            (None, 0, 1) => "not a loss (win or tie; unproven which)".into(),
            (None, -1, 0) => "not a win (tie or loss; unproven which)".into(),
            _ => "unproven".into(),
        }
    }

    /// The same knowledge for the other player.
    pub fn flip(self) -> Bounds {
        Bounds {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    /// Both pieces of knowledge at once.
    pub fn meet(self, other: Bounds) -> Bounds {
        Bounds {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }
}

/// A value as a score for the player to move: lose −1, tie 0, win 1.
pub fn score(v: Value) -> i8 {
    match v {
        Value::Win => 1,
        Value::Lose => -1,
        Value::Tie | Value::Draw => 0,
    }
}

/// The value of a score.
pub fn value_of(s: i8) -> Value {
    match s {
        1.. => Value::Win,
        0 => Value::Tie,
        _ => Value::Lose,
    }
}

/// Why a search stopped before it proved its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The node budget (`node_limit`) was spent: exactly that many nodes
    /// were expanded.
    Nodes,
    /// The time limit passed (a timer raises a flag the engines look at
    /// before every node: see [`Limits`]).
    Time,
    /// The search's [`Cancel`] token was cancelled (the command line's on
    /// Ctrl-C or SIGTERM).
    Requested,
    /// The line being searched got deeper than the memory allowed for the
    /// search's path (see [`path_budget`]), or one node's children alone
    /// would have filled it.
    Depth,
    /// What the search must hold at once (a position's children and
    /// their lands, the proofs the line rests on) would pass `--memory`:
    /// the engine stopped rather than use more.
    Memory,
}

impl Stop {
    /// The reason as one word, as `retrograde search --json` names it.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Nodes => "nodes",
            Stop::Time => "time",
            Stop::Requested => "signal",
            Stop::Depth => "depth",
            Stop::Memory => "memory",
        }
    }
}

/// Bytes the search's path may take besides its table or memo: half of
/// `memory`, and at least 64 MiB. The path is an explicit stack (one frame
/// per ply of the line being searched, with that position's children), so
/// the depth a search reaches does not depend on the thread's call stack;
/// ordinary games need a few MiB at most (15×15 boards: under 4 MiB), and a
/// game deeper than the budget allows (a take-away game from a number in
/// the millions) stops with [`Stop::Depth`] instead of exhausting memory.
pub fn path_budget(memory: u64) -> u64 {
    (memory / 2).max(64 << 20)
}

/// Periodic snapshots of what a search has proved (`--save-every`): the
/// engine asks [`Snapshots::when_due`] where it checks its limits, and the
/// save gets what the engine knows then.
pub(crate) struct Snapshots<F: ?Sized> {
    every: Duration,
    next: Instant,
    save: Box<F>,
}

impl<F: ?Sized> Snapshots<F> {
    /// The first snapshot `every` from now.
    pub(crate) fn new(every: Duration, save: Box<F>) -> Snapshots<F> {
        Snapshots {
            every,
            next: Instant::now() + every,
            save,
        }
    }

    /// Calls `take` with the save if one is due, and schedules the next
    /// from the save's end (a save longer than the period does not follow
    /// itself at once).
    pub(crate) fn when_due(&mut self, take: impl FnOnce(&mut F)) {
        if Instant::now() >= self.next {
            take(&mut self.save);
            self.next = Instant::now() + self.every;
        }
    }
}

/// What bounds one search, for both engines: the node budget (exact), the
/// time limit and stop requests (flags looked at before every node), and the
/// memory the line being searched may hold ([`path_budget`]). Once a
/// search stops it stays stopped.
pub(crate) struct Limits {
    stop: Option<Stop>,
    cancel: Cancel,
    node_cap: u64,
    time_limit: Option<Duration>,
    /// Raised by the alarm thread when `time_limit` has passed (`None`: no
    /// limit, or no alarm thread, when the clock alone tells).
    time_up: Option<Arc<AtomicBool>>,
    start: Instant,
    next_report: Instant,
    path_budget: u64,
    path_bytes: u64,
}

impl Limits {
    pub(crate) fn new(
        memory: u64,
        node_limit: Option<u64>,
        time_limit: Option<Duration>,
        cancel: Cancel,
    ) -> Limits {
        let now = Instant::now();
        Limits {
            stop: None,
            cancel,
            node_cap: node_limit.unwrap_or(u64::MAX),
            time_limit,
            time_up: time_limit.and_then(|t| alarm::set(now + t)),
            start: now,
            next_report: now + Duration::from_secs(1),
            path_budget: path_budget(memory),
            path_bytes: 0,
        }
    }

    /// A budget of its own for what the engine proves next, its table
    /// kept: at most `node_limit` nodes past the `nodes` already expanded,
    /// until `time_limit` from now; an earlier budget's stop is cleared
    /// (a cancel request still stops at the next node). For an engine that
    /// proves one job after another (a search over ranks), where a job's
    /// undecided work helps the next.
    pub(crate) fn renew(
        &mut self,
        nodes: u64,
        node_limit: Option<u64>,
        time_limit: Option<Duration>,
    ) {
        let now = Instant::now();
        self.stop = None;
        self.node_cap = node_limit.map_or(u64::MAX, |n| nodes.saturating_add(n));
        self.time_limit = time_limit;
        self.time_up = time_limit.and_then(|t| alarm::set(now + t));
        self.start = now;
        self.path_bytes = 0;
    }

    /// The limits of a thread helping the search these limits bound: the
    /// same clock, time limit and stop requests, no node budget of its own
    /// (the threads share one), and a path of at most `path_budget` bytes.
    pub(crate) fn helper(&self, path_budget: u64) -> Limits {
        Limits {
            stop: None,
            cancel: self.cancel.clone(),
            node_cap: u64::MAX,
            time_limit: self.time_limit,
            time_up: self.time_up.clone(),
            start: self.start,
            next_report: self.next_report,
            path_budget,
            path_bytes: 0,
        }
    }

    /// Nodes still allowed after `nodes` (`u64::MAX`: no budget).
    pub(crate) fn nodes_left(&self, nodes: u64) -> u64 {
        if self.node_cap == u64::MAX {
            u64::MAX
        } else {
            self.node_cap.saturating_sub(nodes)
        }
    }

    /// The bytes a line's path may hold.
    pub(crate) fn path_budget(&self) -> u64 {
        self.path_budget
    }

    /// Stops the search for `why` (once stopped, the first reason stays).
    pub(crate) fn set_stop(&mut self, why: Stop) {
        self.stop.get_or_insert(why);
    }

    /// Why the search stopped, if it has.
    #[inline]
    pub(crate) fn stop(&self) -> Option<Stop> {
        self.stop
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether one more node may be expanded after `nodes`: never past the
    /// budget, never once stopped, never once the time is up or a stop is
    /// asked for. The time and the request are looked at here, before
    /// every node (two loads of flags that change once), not every so many
    /// nodes: a node can be costly (a misère Sprouts position of 1,500
    /// lands takes about 10 ms), so that counting nodes let a `--time 1`
    /// run for 11 s.
    #[inline]
    pub(crate) fn may_expand(&mut self, nodes: u64) -> bool {
        !self.halted() && self.within_nodes(nodes)
    }

    /// Whether the search is stopped, now that the flags of the time limit
    /// and of the cancel token have been looked at.
    #[inline]
    pub(crate) fn halted(&mut self) -> bool {
        if self.stop.is_some() {
            return true;
        }
        if self.cancel.is_cancelled() {
            self.stop = Some(Stop::Requested);
            return true;
        }
        if self
            .time_up
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
        {
            self.stop = Some(Stop::Time);
            return true;
        }
        false
    }

    #[inline]
    fn within_nodes(&mut self, nodes: u64) -> bool {
        if nodes >= self.node_cap {
            self.stop = Some(Stop::Nodes);
            return false;
        }
        true
    }

    /// A new line from the root: its path is empty.
    #[inline]
    pub(crate) fn new_path(&mut self) {
        self.path_bytes = 0;
    }

    /// Counts a frame of `bytes` onto the path, or stops the search
    /// ([`Stop::Depth`]) if the path cannot hold it.
    #[inline]
    pub(crate) fn push_frame(&mut self, bytes: u64) -> bool {
        if self.path_bytes + bytes > self.path_budget {
            self.stop = Some(Stop::Depth);
            return false;
        }
        self.path_bytes += bytes;
        true
    }

    /// Takes a frame pushed with [`Limits::push_frame`] off the path.
    #[inline]
    pub(crate) fn pop_frame(&mut self, bytes: u64) {
        self.path_bytes -= bytes;
    }

    /// Looks at the clock and for a stop request (the clock itself, in
    /// case no alarm thread could be started; callers check every 1,024
    /// or 4,096 nodes, as they report progress); returns whether a
    /// progress report is due (about once a second).
    pub(crate) fn check(&mut self) -> bool {
        let now = Instant::now();
        if self.stop.is_none() {
            if self.cancel.is_cancelled() {
                self.stop = Some(Stop::Requested);
            } else if self.time_limit.is_some_and(|t| now - self.start >= t) {
                self.stop = Some(Stop::Time);
            }
        }
        if now >= self.next_report {
            self.next_report = now + Duration::from_secs(1);
            return true;
        }
        false
    }
}

/// Results a node's child generation makes before each further this many
/// count as one node more against the node budget (`--nodes`): a node's
/// children are usually tens (a Sprouts land's moves), but one node can
/// have millions (a region of many boundaries of different shapes), and
/// its expansion must not outrun the budget.
pub(crate) const RESULTS_PER_NODE: u64 = 4096;

impl Limits {
    /// Whether the making of one node's children must give up, polled by
    /// the game every few hundred results with the results made so far and
    /// about the bytes they hold (after `nodes` nodes expanded): stops the
    /// search for the node budget (each [`RESULTS_PER_NODE`] results past
    /// the first count as a node), the path's memory (a list of children
    /// past what the path may hold: [`Stop::Depth`]), the time limit or a
    /// stop request; the first reason stays.
    pub(crate) fn generation_stops(&mut self, nodes: u64, results: u64, bytes: u64) -> bool {
        if self.stop.is_none() {
            if self.nodes_left(nodes) < results / RESULTS_PER_NODE {
                self.stop = Some(Stop::Nodes);
            } else if bytes > self.path_budget {
                self.stop = Some(Stop::Depth);
            } else {
                self.check();
            }
        }
        self.stop.is_some()
    }
}

/// A flag raised at `deadline` by the alarm thread (`None` if it could not
/// be started: then only the clock tells).
pub(crate) fn alarm_at(deadline: Instant) -> Option<Arc<AtomicBool>> {
    alarm::set(deadline)
}

/// A cancellation token: what asks one search (or several, sharing the
/// token) to stop and return what it proved so far. Clones share the flag;
/// each [`Default`] token is new, so cancelling one search leaves every
/// later search with its own token running. Cancelling is a store to an
/// atomic flag: safe from any thread, a signal-handling thread included.
/// The engines look at it before every node (component), so a search
/// stops within one node of the cancel.
///
/// ```
/// use retrograde::search::Cancel;
///
/// let cancel = Cancel::new();
/// let handle = cancel.clone();
/// std::thread::spawn(move || handle.cancel()).join().unwrap();
/// assert!(cancel.is_cancelled());
/// assert!(!Cancel::new().is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token not cancelled, shared with no other.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every search holding this token (or a clone) to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The alarm thread: raises each search's time-up flag when its time limit
/// passes. The engines look at the flag before every node (a load), where
/// reading the clock before every node would cost as much as a cheap node,
/// and reading it every so many nodes let a search run on for seconds when
/// its nodes are costly. One thread for the process, started with the first
/// time limit; it sleeps until the next deadline.
mod alarm {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
    use std::time::Instant;

    /// The deadlines set, each with the flag it raises (dropped with its
    /// search: a flag no search holds is forgotten).
    struct Alarms {
        due: Mutex<Vec<(Instant, Weak<AtomicBool>)>>,
        changed: Condvar,
    }

    /// `None` when the thread could not be started: the searches then look
    /// at the clock only (every so many nodes).
    static ALARMS: OnceLock<Option<&'static Alarms>> = OnceLock::new();

    /// A flag raised at `deadline`, or `None` when there is no alarm thread.
    pub(super) fn set(deadline: Instant) -> Option<Arc<AtomicBool>> {
        let alarms = (*ALARMS.get_or_init(start))?;
        let flag = Arc::new(AtomicBool::new(deadline <= Instant::now()));
        let mut due = alarms.due.lock().unwrap_or_else(|e| e.into_inner());
        // Searches that ended before their deadline leave their entry:
        // forgotten here, so that the list holds only live searches.
        due.retain(|(_, f)| f.strong_count() > 0);
        due.push((deadline, Arc::downgrade(&flag)));
        alarms.changed.notify_one();
        Some(flag)
    }

    fn start() -> Option<&'static Alarms> {
        let alarms: &'static Alarms = Box::leak(Box::new(Alarms {
            due: Mutex::new(Vec::new()),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("search-alarm".into())
            .spawn(move || ring(alarms))
            .ok()?;
        Some(alarms)
    }

    fn ring(alarms: &Alarms) {
        let mut due = alarms.due.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            due.retain(|(at, flag)| match flag.upgrade() {
                None => false,
                Some(f) if *at <= now => {
                    f.store(true, Ordering::Relaxed);
                    false
                }
                Some(_) => true,
            });
            due = match due.iter().map(|(at, _)| *at).min() {
                None => alarms.changed.wait(due).unwrap_or_else(|e| e.into_inner()),
                Some(next) => {
                    let wait = next.saturating_duration_since(now);
                    match alarms.changed.wait_timeout(due, wait) {
                        Ok((g, _)) => g,
                        Err(e) => e.into_inner().0,
                    }
                }
            };
        }
    }
}
