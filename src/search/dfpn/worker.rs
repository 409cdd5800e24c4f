//! One thread's df-pn ([`Worker`]): the multiple iterative deepening below
//! a root over an explicit stack of [`Frame`]s, the expansion and
//! evaluation of children, and what a finished node stores in the table.
//! A worker holds the table alone ([`Dfpn`](super::Dfpn)'s serial search)
//! or shares it with other threads (`threads.rs`).

use super::threads::{Crew, NODE_CHUNK};
use super::{proven_facts, table_stats, Snapshots, BIG, ESTIMATE_MAX, INF};
use crate::search::engine::Stats;
use crate::search::leaves::ValueLeaves;
use crate::search::tt::Access;
use crate::search::watch::Watcher;
use crate::search::{Bounds, Key, Limits, SearchGame, Stop};
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// A child during an expansion.
pub(super) struct Child<G: SearchGame> {
    pos: G::Pos,
    key: G::Key,
    phi: u32,
    delta: u32,
}

/// A node on the line being searched: what a recursive `mid` would hold in
/// its call frame. The frames live in a vector on the heap, so the depth of
/// a line is bounded by memory ([`crate::search::path_budget`]), not by the
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

/// One thread's search: the table (held alone or shared), its limits and
/// counters, and, for the main thread, the progress reports and snapshots.
pub(super) struct Worker<'w, 'a, G: SearchGame, T: Access<G::Key>> {
    pub(super) game: &'w G,
    pub(super) known: &'w HashMap<G::Key, Bounds>,
    pub(super) leaves: Option<&'w dyn ValueLeaves<G>>,
    pub(super) epsilon: f64,
    pub(super) tt: T,
    pub(super) limits: &'w mut Limits,
    /// Counters: the search's own when alone, this thread's with others.
    pub(super) stats: &'w mut Stats,
    pub(super) spare: &'w mut Vec<Vec<Child<G>>>,
    /// What the threads share, when there are several.
    pub(super) crew: Option<&'w Crew<'w>>,
    /// Nodes this thread took from the shared budget and has not expanded.
    pub(super) allowance: u64,
    /// The thread that reports progress and takes snapshots.
    pub(super) main: bool,
    /// A thread alone that others will join stops here ...
    pub(super) yield_at: Option<u64>,
    /// ... and says so.
    pub(super) yielded: bool,
    pub(super) progress: Option<&'w mut (dyn FnMut(&Stats) + 'a)>,
    pub(super) snapshots: Option<&'w mut Snapshots<'a, G::Key>>,
    /// The computing branch, on the main thread when watched.
    pub(super) watch: Option<&'w mut Watcher>,
    /// A publication of the branch is due (set every 1,024 nodes).
    pub(super) publish_due: bool,
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
    pub(super) fn crew_loop(&mut self, root: &G::Pos, key: G::Key, k: i8) -> (u32, u32) {
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
    pub(super) fn settled(&mut self, p: &G::Pos) -> Option<Bounds> {
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
    /// depth is bounded by [`crate::search::path_budget`] and a deeper one stops the
    /// search with [`Stop::Depth`].
    pub(super) fn mid(
        &mut self,
        root: &G::Pos,
        key: G::Key,
        k: i8,
        th_phi: u32,
        th_delta: u32,
    ) -> (u32, u32) {
        let mut path: Vec<Frame<G>> = Vec::new();
        self.limits.new_path();
        if !self.expand(&mut path, root, key, k, th_phi, th_delta) {
            return self.numbers(&key, k);
        }
        let eps = 1.0 + self.epsilon;
        let weak = self.game.weak_sums();
        loop {
            self.tt.maintain();
            if self.publish_due {
                self.publish(&path, root);
            }
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
            let mut steered = false;
            if let Some(w) = self.watch.as_deref_mut() {
                // The user's child instead, when asked: any order of the
                // children proves the same (a node is settled only by
                // their proofs).
                let kids = &f.children[..f.active];
                let open = |c: &Child<G>| c.phi != 0 && c.delta != 0;
                let unknown = kids.iter().filter(|c| open(c)).count();
                let chosen = w.choose(depth - 1, f.key.hash64(), kids.len(), unknown, best, |i| {
                    kids.get(i).is_some_and(open)
                });
                steered = chosen != best;
                best = chosen;
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
            let child_th_delta = match steered {
                // Searched until its own δ has grown by the 1+ε margin at
                // least (it may already be past our φ threshold).
                true => {
                    let own = ((f64::from(c.delta) * eps).ceil() as u64 + 1).min(u64::from(BIG));
                    f.th_phi.max(own as u32)
                }
                false => f.th_phi.min(widened),
            };
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
        if let Some(w) = self.watch.as_deref_mut() {
            self.publish_due = w.due();
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

    /// Publishes the computing branch: the line's positions, the root's
    /// then each frame's child being searched.
    fn publish(&mut self, path: &[Frame<G>], root: &G::Pos) {
        self.publish_due = false;
        let nodes = self.progress_stats().nodes;
        let game = self.game;
        if let Some(w) = self.watch.as_deref_mut() {
            w.up_to(path.len());
            w.publish(nodes, |depth, _, _| match depth {
                0 => game.format_position(root),
                d => path
                    .get(d - 1)
                    .and_then(|f| f.children.get(f.best))
                    .map_or_else(String::new, |c| game.format_position(&c.pos)),
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
