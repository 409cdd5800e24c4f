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
//! The transposition table is a fixed array of 4-entry buckets. A new
//! entry replaces the one of its bucket whose subtree took the least work
//! (SmallTreeReplacement, Breuker et al.), so big proved subtrees survive;
//! entries that settle a question get their work raised to keep them.

use super::leaves::ValueLeaves;
use super::{Bounds, Cancel, Key, Limits, SearchGame, Stop};
use crate::value::Value;
use std::collections::HashMap;
use std::time::Duration;

/// "Infinity" for proof and disproof numbers.
pub(crate) const INF: u32 = u32::MAX;
/// Sums of proof numbers saturate here, below [`INF`], so that only a real
/// proof reaches infinity.
const BIG: u32 = u32::MAX - 1;

/// How a search runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes for the transposition table.
    pub memory: u64,
    /// ε of the 1+ε trick (0 gives plain df-pn, which re-expands the same
    /// positions over and over once the table is too small to hold its
    /// working set: see the README's "Beyond the table").
    pub epsilon: f64,
    /// Stop after this many nodes (expansions): exactly, never one more.
    pub node_limit: Option<u64>,
    /// Stop after this long (checked every 1,024 nodes).
    pub time_limit: Option<Duration>,
    /// Stop when this token is cancelled (checked every 1,024 nodes): by
    /// default a token of the search's own, which nothing cancels.
    pub cancel: Cancel,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            memory: 256 << 20,
            epsilon: 0.25,
            node_limit: None,
            time_limit: None,
            cancel: Cancel::default(),
        }
    }
}

/// Counters, for progress lines and the final report.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Nodes expanded (children generated).
    pub nodes: u64,
    /// Positions answered by a table.
    pub leaf_hits: u64,
    /// Entries in use in the transposition table.
    pub tt_used: u64,
    /// Its capacity in entries.
    pub tt_capacity: u64,
    /// The root's current proof and disproof numbers.
    pub root_pn: u32,
    /// The root's disproof number.
    pub root_dn: u32,
    /// The question being proved: the root's value at least this (1 win, 0 tie).
    pub target: i8,
    /// Time since the search began.
    pub elapsed: Duration,
    /// The longest line searched so far, in plies from the root.
    pub deepest: u64,
}

/// The progress line `retrograde search` prints about once a second.
impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::format::thousands;
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        let pct = 100.0 * self.tt_used as f64 / self.tt_capacity.max(1) as f64;
        let num = |x: u32| {
            if x == u32::MAX {
                "inf".to_string()
            } else {
                thousands(u64::from(x))
            }
        };
        write!(
            f,
            "nodes {}  {}/s  table {:.0}%  root pn {} dn {}  ({}?)  {:.0} s",
            thousands(self.nodes),
            thousands((self.nodes as f64 / secs) as u64),
            pct,
            num(self.root_pn),
            num(self.root_dn),
            if self.target == 1 { "win" } else { "not lose" },
            secs
        )
    }
}

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

#[derive(Clone, Copy)]
struct Entry<K> {
    key: K,
    phi: u32,
    delta: u32,
    /// Nodes spent below this entry (saturating): the replacement priority.
    work: u32,
    bounds: Bounds,
    /// The question `phi` and `delta` belong to (−1: none yet).
    k: i8,
    used: bool,
}

const WAYS: usize = 4;

/// The bounded transposition table.
struct Table<K: Key> {
    entries: Vec<Entry<K>>,
    mask: usize,
    used: u64,
}

impl<K: Key> Table<K> {
    fn new(bytes: u64) -> Table<K> {
        let per = std::mem::size_of::<Entry<K>>() as u64;
        let want = (bytes / per).max(WAYS as u64 * 16);
        // A power of two of buckets, the largest that fits.
        let buckets = 1u64 << (63 - (want / WAYS as u64).leading_zeros());
        let empty = Entry {
            key: K::read(&vec![0; K::BYTES]),
            phi: 1,
            delta: 1,
            work: 0,
            bounds: Bounds::UNKNOWN,
            k: -1,
            used: false,
        };
        Table {
            entries: vec![empty; (buckets as usize) * WAYS],
            mask: buckets as usize - 1,
            used: 0,
        }
    }

    fn bucket(&self, key: &K) -> usize {
        (key.hash64() as usize & self.mask) * WAYS
    }

    /// Starts loading the bucket of `key` into the cache (a hint only).
    #[inline]
    fn prefetch(&self, key: &K) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.entries[self.bucket(key)..].as_ptr();
            // SAFETY: a prefetch is a hint that never faults, and `p`
            // points into `entries` anyway.
            unsafe {
                std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    fn get(&self, key: &K) -> Option<&Entry<K>> {
        let b = self.bucket(key);
        self.entries[b..b + WAYS]
            .iter()
            .find(|e| e.used && e.key == *key)
    }

    /// The entry of `key`, making room for it if absent.
    fn slot(&mut self, key: &K) -> &mut Entry<K> {
        let b = self.bucket(key);
        let ways = &mut self.entries[b..b + WAYS];
        let i = match ways.iter().position(|e| e.used && e.key == *key) {
            Some(i) => i,
            None => {
                let i = ways
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, e)| if e.used { u64::from(e.work) + 1 } else { 0 })
                    .map(|(i, _)| i)
                    .expect("a bucket has ways");
                if !ways[i].used {
                    self.used += 1;
                }
                ways[i] = Entry {
                    key: *key,
                    phi: 1,
                    delta: 1,
                    work: 0,
                    bounds: Bounds::UNKNOWN,
                    k: -1,
                    used: true,
                };
                i
            }
        };
        &mut self.entries[b + i]
    }

    fn capacity(&self) -> u64 {
        self.entries.len() as u64
    }
}

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

/// A proof-number search over one game.
// The engine's insides ([`prove`] is its entry point): for the run and the
// tests, which reach it through `crate::internal`.
#[doc(hidden)]
pub struct Dfpn<'a, G: SearchGame> {
    game: &'a G,
    options: Options,
    table: Table<G::Key>,
    /// Proven bounds loaded from a proof database: never evicted.
    known: HashMap<G::Key, Bounds>,
    leaves: Option<&'a dyn ValueLeaves<G>>,
    stats: Stats,
    progress: Option<super::ProgressFn<'a, Stats>>,
    limits: Limits,
    /// Children vectors of finished frames, reused by the next ones.
    spare: Vec<Vec<Child<G>>>,
}

impl<'a, G: SearchGame> Dfpn<'a, G> {
    /// A search with a fresh transposition table.
    pub fn new(game: &'a G, options: Options) -> Dfpn<'a, G> {
        let table = Table::new(options.memory);
        let stats = Stats {
            tt_capacity: table.capacity(),
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
            table,
            known: HashMap::new(),
            leaves: None,
            stats,
            progress: None,
            limits,
            spare: Vec::new(),
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

    /// Positions whose value is already (partly) proven, e.g. from a proof
    /// database: the search starts from them.
    pub fn add_known(&mut self, key: G::Key, bounds: Bounds) {
        let b = self.known.entry(key).or_insert(Bounds::UNKNOWN);
        *b = b.meet(bounds);
    }

    /// Every position whose value the search has (partly) proven and still
    /// holds, with what is known: the proof database to save. Each key once:
    /// the table holds a key in one slot, and a known key the table also
    /// proved is given there, its bounds met. An iterator, so a caller
    /// building records from it holds no second copy (a copy of `known` as a
    /// map was once the largest thing a save allocated).
    pub fn proven(&self) -> impl Iterator<Item = (G::Key, Bounds)> + '_ {
        let in_table = self
            .table
            .entries
            .iter()
            .filter(|e| e.used && e.bounds != Bounds::UNKNOWN)
            .map(|e| {
                let b = self
                    .known
                    .get(&e.key)
                    .map_or(e.bounds, |k| k.meet(e.bounds));
                (e.key, b)
            });
        let only_known = self
            .known
            .iter()
            .filter(|(k, _)| {
                self.table
                    .get(k)
                    .is_none_or(|e| e.bounds == Bounds::UNKNOWN)
            })
            .map(|(k, b)| (*k, *b));
        in_table.chain(only_known)
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.tt_used = self.table.used;
        s.elapsed = self.limits.elapsed();
        s
    }

    /// Proves the value of `root` for the player to move, or as much of it
    /// as the limits allow.
    pub fn prove(&mut self, root: &G::Pos) -> Proof<G::Move> {
        let mut bounds = self.settled(root).unwrap_or(Bounds::UNKNOWN);
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

    /// Runs one question at the root until it is answered or stopped.
    fn root_search(&mut self, root: &G::Pos, k: i8) -> (u32, u32) {
        loop {
            if let Some(b) = self.settled(root) {
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
            let r = self.mid(root, key, k, INF, INF);
            self.stats.root_pn = r.0;
            self.stats.root_dn = r.1;
            if r.0 == 0 || r.1 == 0 || self.limits.stop().is_some() {
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
        if let Some(e) = self.table.get(&key) {
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
        let mut b = self.known.get(key).copied().unwrap_or(Bounds::UNKNOWN);
        let mut numbers = (1, 1);
        if let Some(e) = self.table.get(key) {
            b = b.meet(e.bounds);
            if e.k == k {
                numbers = (e.phi, e.delta);
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
                self.table.slot(key).bounds = exact;
                return answer(exact, k);
            }
        }
        numbers
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
        let eps = 1.0 + self.options.epsilon;
        loop {
            let depth = path.len();
            let f = path.last_mut().expect("a frame on the path");
            // φ(n) = min δ(c); δ(n) = Σ φ(c); best = argmin δ, second = next δ.
            let mut phi = INF;
            let mut delta = 0u32;
            let mut best = usize::MAX;
            let mut second = INF;
            for (i, c) in f.children.iter().enumerate() {
                if c.delta < phi {
                    second = phi;
                    phi = c.delta;
                    best = i;
                } else if c.delta < second {
                    second = c.delta;
                }
                delta = if c.phi == INF || delta == INF {
                    INF
                } else {
                    delta.saturating_add(c.phi).min(BIG)
                };
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
            if phi >= f.th_phi || delta >= f.th_delta || self.limits.stop().is_some() {
                let f = path.pop().expect("a frame on the path");
                self.limits.pop_frame(f.bytes());
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
                    }
                }
                continue;
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

    /// Expands `pos` onto the path: counts the node, generates and
    /// evaluates its children. Returns `false`, expanding nothing, when a
    /// limit stops the search first: the node budget (exact), the path's
    /// memory, or (every 1,024 nodes) the time or a stop request.
    fn expand(
        &mut self,
        path: &mut Vec<Frame<G>>,
        pos: &G::Pos,
        key: G::Key,
        k: i8,
        th_phi: u32,
        th_delta: u32,
    ) -> bool {
        if !self.limits.may_expand(self.stats.nodes) {
            return false;
        }
        let moves = self.game.moves(pos);
        let mut children = self.spare.pop().unwrap_or_default();
        children.extend(moves.into_iter().map(|(_, c)| {
            let key = self.game.key(&c);
            // Much of a node's time is waiting for its children's
            // table entries: ask for all of them before reading any.
            self.table.prefetch(&key);
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
            best: 0,
        };
        if !self.limits.push_frame(frame.bytes()) {
            let mut spare = frame.children;
            spare.clear();
            self.spare.push(spare);
            return false;
        }
        path.push(frame);
        self.stats.deepest = self.stats.deepest.max(path.len() as u64);
        self.stats.nodes += 1;
        if self.stats.nodes & 0x3ff == 0 {
            self.check_limits();
        }
        true
    }

    /// What the table holds for question `k` of a node that could not be
    /// expanded.
    fn numbers(&self, key: &G::Key, k: i8) -> (u32, u32) {
        match self.table.get(key) {
            Some(e) if e.k == k => (e.phi, e.delta),
            _ => (1, 1),
        }
    }

    /// Records a finished node's numbers and what they settle.
    fn store(&mut self, f: &Frame<G>, phi: u32, delta: u32) {
        let work = (self.stats.nodes - f.nodes_before + 1).min(u64::from(u32::MAX - 1)) as u32;
        let k = f.k;
        let e = self.table.slot(&f.key);
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
    }

    fn check_limits(&mut self) {
        if self.limits.check() {
            let s = self.stats();
            if let Some(f) = self.progress.as_mut() {
                f(&s);
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
            if let Some(b) = self.settled(c) {
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
