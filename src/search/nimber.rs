//! Nimbers of impartial games by search, as Glop computes them: a position
//! that splits into independent components ([`SearchGame::components`]) has
//! the nim-sum of their nimbers, and a component's nimber is the mex of its
//! children's (each child split again). Components are memoised by key, so
//! a region met in many positions is computed once; nimber tables answer
//! the regions they hold (`NimberLeaves`).

use super::engine::{Counted, Options, ProgressFn, Stats};
use super::leaves::NimberLeaves;
use super::{Limits, SearchGame, Stop};
use crate::solve::mex;
use std::collections::HashMap;
use std::time::Duration;

/// A component on the line being searched: what a recursive search would
/// hold in its call frames. The frames live in a vector on the heap, so the
/// depth of a line is bounded by memory ([`super::path_budget`]), not by
/// the thread's stack.
struct Frame<G: SearchGame> {
    key: G::Key,
    pos: G::Pos,
    /// The positions its moves lead to, and the next one to sum.
    children: Vec<G::Pos>,
    next_child: usize,
    /// The components of the child being summed, the next one to add, and
    /// the nim-sum so far; `summing` while a child is under way.
    parts: Vec<G::Pos>,
    next_part: usize,
    sum: u32,
    summing: bool,
    /// The nimbers of the children summed so far.
    seen: Vec<u32>,
    /// Bytes counted against the path's budget when it was pushed.
    bytes: u64,
}

impl<G: SearchGame> Frame<G> {
    /// About the bytes this frame holds, for the path's budget: its
    /// children, as many again for a child's components, and their nimbers.
    fn size(&self) -> u64 {
        let pos = std::mem::size_of::<G::Pos>();
        (std::mem::size_of::<Frame<G>>() + self.children.capacity() * (2 * pos + 4)) as u64
    }
}

/// A nimber search over one impartial game.
pub struct NimberSearch<'a, G: SearchGame> {
    game: &'a G,
    memo: HashMap<G::Key, (u32, G::Pos)>,
    cap: usize,
    leaves: Option<&'a dyn NimberLeaves<G>>,
    stats: Stats,
    limits: Limits,
    progress: Option<ProgressFn<'a>>,
    snapshots: Option<Snapshots<'a, G>>,
}

/// Periodic snapshots of the memo (`--save-every`): what
/// [`NimberSearch::with_snapshots`] hands the memo to.
type Snapshots<'a, G> = super::Snapshots<
    dyn FnMut(&mut dyn Iterator<Item = (&<G as SearchGame>::Key, u32, &<G as SearchGame>::Pos)>)
        + 'a,
>;

impl<'a, G: SearchGame> NimberSearch<'a, G> {
    /// A search whose memo holds about `options.memory` bytes (beyond it,
    /// new components are computed but not remembered), within the limits
    /// of `options` (the node limit counts components). One thread.
    pub fn new(game: &'a G, options: &Options) -> NimberSearch<'a, G> {
        let memory = options.memory;
        // A memo entry: the key, the nimber, a representative position and
        // the hash map's overhead.
        let per = (std::mem::size_of::<(G::Key, u32, G::Pos)>() + 16) as u64;
        NimberSearch {
            game,
            memo: HashMap::new(),
            cap: (memory / per).max(1024) as usize,
            leaves: None,
            stats: Stats {
                counted: Counted::Components,
                threads: 1,
                ..Stats::default()
            },
            limits: Limits::new(
                memory,
                options.node_limit,
                options.time_limit,
                options.cancel.clone(),
            ),
            progress: None,
            snapshots: None,
        }
    }

    /// Answers components from tables wherever they hold them.
    pub fn with_leaves(mut self, leaves: &'a dyn NimberLeaves<G>) -> Self {
        self.leaves = Some(leaves);
        self
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&Stats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Hands `save` every component computed so far (as
    /// [`NimberSearch::known`] gives them) about every `every` while the
    /// search runs (checked every 4,096 components): for saves that outlast
    /// a crash.
    pub fn with_snapshots(
        mut self,
        every: Duration,
        save: impl FnMut(&mut dyn Iterator<Item = (&G::Key, u32, &G::Pos)>) + 'a,
    ) -> Self {
        self.snapshots = Some(super::Snapshots::new(every, Box::new(save)));
        self
    }

    /// Components with a known nimber (from a proof database).
    pub fn add_known(&mut self, key: G::Key, nimber: u32, pos: G::Pos) {
        self.memo.insert(key, (nimber, pos));
    }

    /// Every component computed so far, with its nimber and a representative.
    pub fn known(&self) -> impl Iterator<Item = (&G::Key, u32, &G::Pos)> {
        self.memo.iter().map(|(k, (n, p))| (k, *n, p))
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.tt_used = self.memo.len() as u64;
        s.elapsed = self.limits.elapsed();
        s
    }

    /// The game searched.
    pub fn game(&self) -> &'a G {
        self.game
    }

    /// Why the search stopped, if it has: once stopped it stays stopped
    /// (each later question returns `None` at once).
    pub fn stop_reason(&self) -> Option<Stop> {
        self.limits.stop()
    }

    /// The nimber of `p`, or `None` if the search was stopped first.
    pub fn nimber(&mut self, p: &G::Pos) -> Option<u32> {
        if self.limits.stop().is_some() {
            return None;
        }
        let mut n = 0;
        for c in self.game.components(p) {
            n ^= self.component(&c);
            if self.limits.stop().is_some() {
                return None;
            }
        }
        Some(n)
    }

    /// A component's nimber when no search is needed: game over, the memo
    /// or a table.
    fn settled(&mut self, c: &G::Pos, key: &G::Key) -> Option<u32> {
        if self.game.terminal(c).is_some() {
            return Some(0);
        }
        if let Some(&(n, _)) = self.memo.get(key) {
            return Some(n);
        }
        if let Some(leaves) = self.leaves {
            if let Some(n) = leaves.nimber(self.game, c) {
                self.stats.leaf_hits += 1;
                self.remember(*key, n, c);
                return Some(n);
            }
        }
        None
    }

    /// The nimber of one component: the mex of its children's nim-sums.
    ///
    /// A loop over an explicit stack of [`Frame`]s rather than a recursion,
    /// so that a line thousands of components deep (`digits:1000000`) needs
    /// heap, not call stack: the depth is bounded by [`super::path_budget`]
    /// and a deeper line stops the search with [`Stop::Depth`]. The value
    /// returned after a stop is meaningless (the caller checks the stop).
    fn component(&mut self, c: &G::Pos) -> u32 {
        let key = self.game.key(c);
        if let Some(n) = self.settled(c, &key) {
            return n;
        }
        let mut path: Vec<Frame<G>> = Vec::new();
        self.limits.new_path();
        if !self.expand(&mut path, c.clone(), key) {
            return 0;
        }
        loop {
            let f = path.last_mut().expect("a frame on the path");
            if f.next_part < f.parts.len() {
                let part = f.parts[f.next_part].clone();
                f.next_part += 1;
                let key = self.game.key(&part);
                match self.settled(&part, &key) {
                    Some(n) => f.sum ^= n,
                    None => {
                        if !self.expand(&mut path, part, key) {
                            return 0;
                        }
                    }
                }
                continue;
            }
            if f.summing {
                f.seen.push(f.sum);
                f.summing = false;
            }
            if f.next_child < f.children.len() {
                f.parts = self.game.components(&f.children[f.next_child]);
                f.next_child += 1;
                f.next_part = 0;
                f.sum = 0;
                f.summing = true;
                continue;
            }
            let mut f = path.pop().expect("a frame on the path");
            self.limits.pop_frame(f.bytes);
            let n = mex(&mut f.seen);
            self.remember(f.key, n, &f.pos);
            match path.last_mut() {
                None => return n,
                Some(parent) => parent.sum ^= n,
            }
        }
    }

    /// Pushes component `c` onto the path with its children. Returns
    /// `false`, pushing nothing, when a limit stops the search first: the
    /// node budget (exact), the path's memory, the time or a stop request.
    fn expand(&mut self, path: &mut Vec<Frame<G>>, c: G::Pos, key: G::Key) -> bool {
        if !self.limits.may_expand(self.stats.nodes) {
            return false;
        }
        let children: Vec<G::Pos> = self.game.moves(&c).into_iter().map(|(_, p)| p).collect();
        let mut frame = Frame {
            key,
            pos: c,
            seen: Vec::with_capacity(children.len()),
            children,
            next_child: 0,
            parts: Vec::new(),
            next_part: 0,
            sum: 0,
            summing: false,
            bytes: 0,
        };
        frame.bytes = frame.size();
        if !self.limits.push_frame(frame.bytes) {
            return false;
        }
        path.push(frame);
        self.stats.deepest = self.stats.deepest.max(path.len() as u64);
        self.stats.nodes += 1;
        if self.stats.nodes & 0xfff == 0 {
            self.check_limits();
        }
        // A stop found here is seen by the next expansion or by the caller.
        true
    }

    fn remember(&mut self, key: G::Key, n: u32, c: &G::Pos) {
        if self.memo.len() < self.cap {
            self.memo.insert(key, (n, c.clone()));
        }
    }

    fn check_limits(&mut self) {
        if self.limits.check() {
            let s = self.stats();
            if let Some(f) = self.progress.as_mut() {
                f(&s);
            }
        }
        if let Some(snap) = self.snapshots.as_mut() {
            snap.when_due(|save| save(&mut self.memo.iter().map(|(k, (n, p))| (k, *n, p))));
        }
    }
}
