//! Nimbers of impartial games by search, as Glop computes them: a position
//! that splits into independent components ([`SearchGame::components`]) has
//! the nim-sum of their nimbers, and a component's nimber is the mex of its
//! children's (each child split again). Components are memoised by key, so
//! a region met in many positions is computed once; nimber tables answer
//! the regions they hold ([`NimberLeaves`]).

use super::leaves::NimberLeaves;
use super::reference::mex;
use super::SearchGame;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Counters of a nimber search.
#[derive(Clone, Debug, Default)]
pub struct NimberStats {
    /// Components whose children were generated.
    pub nodes: u64,
    /// Components answered by a table.
    pub leaf_hits: u64,
    /// Components in the memo.
    pub memo: u64,
    /// Time since the search began.
    pub elapsed: Duration,
}

/// A nimber search over one impartial game.
pub struct NimberSearch<'a, G: SearchGame> {
    game: &'a G,
    memo: HashMap<G::Key, (u32, G::Pos)>,
    cap: usize,
    leaves: Option<&'a dyn NimberLeaves<G>>,
    stats: NimberStats,
    start: Instant,
    next_report: Instant,
    time_limit: Option<Duration>,
    stopped: bool,
    progress: Option<super::ProgressFn<'a, NimberStats>>,
}

impl<'a, G: SearchGame> NimberSearch<'a, G> {
    /// A search whose memo holds about `memory` bytes (beyond it, new
    /// components are computed but not remembered).
    pub fn new(game: &'a G, memory: u64) -> NimberSearch<'a, G> {
        // A memo entry: the key, the nimber, a representative position and
        // the hash map's overhead.
        let per = (std::mem::size_of::<(G::Key, u32, G::Pos)>() + 16) as u64;
        NimberSearch {
            game,
            memo: HashMap::new(),
            cap: (memory / per).max(1024) as usize,
            leaves: None,
            stats: NimberStats::default(),
            start: Instant::now(),
            next_report: Instant::now() + Duration::from_secs(1),
            time_limit: None,
            stopped: false,
            progress: None,
        }
    }

    /// Answers components from tables wherever they hold them.
    pub fn with_leaves(mut self, leaves: &'a dyn NimberLeaves<G>) -> Self {
        self.leaves = Some(leaves);
        self
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&NimberStats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Stops after `t`.
    pub fn with_time_limit(mut self, t: Option<Duration>) -> Self {
        self.time_limit = t;
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
    pub fn stats(&self) -> NimberStats {
        let mut s = self.stats.clone();
        s.memo = self.memo.len() as u64;
        s.elapsed = self.start.elapsed();
        s
    }

    /// The nimber of `p`, or `None` if the search was stopped first.
    pub fn nimber(&mut self, p: &G::Pos) -> Option<u32> {
        let n = self.sum(p);
        (!self.stopped).then_some(n)
    }

    /// The nim-sum of a position's components.
    fn sum(&mut self, p: &G::Pos) -> u32 {
        let mut n = 0;
        for c in self.game.components(p) {
            n ^= self.component(&c);
            if self.stopped {
                break;
            }
        }
        n
    }

    fn component(&mut self, c: &G::Pos) -> u32 {
        if self.game.terminal(c).is_some() {
            return 0;
        }
        let key = self.game.key(c);
        if let Some(&(n, _)) = self.memo.get(&key) {
            return n;
        }
        if let Some(leaves) = self.leaves {
            if let Some(n) = leaves.nimber(self.game, c) {
                self.stats.leaf_hits += 1;
                self.remember(key, n, c);
                return n;
            }
        }
        self.stats.nodes += 1;
        if self.stats.nodes & 0xfff == 0 {
            self.check_limits();
        }
        let mut seen = Vec::new();
        for (_, child) in self.game.moves(c) {
            seen.push(self.sum(&child));
            if self.stopped {
                return 0;
            }
        }
        let n = mex(&mut seen);
        self.remember(key, n, c);
        n
    }

    fn remember(&mut self, key: G::Key, n: u32, c: &G::Pos) {
        if self.memo.len() < self.cap {
            self.memo.insert(key, (n, c.clone()));
        }
    }

    fn check_limits(&mut self) {
        let now = Instant::now();
        if super::stop_requested() || self.time_limit.is_some_and(|t| now - self.start >= t) {
            self.stopped = true;
        }
        if now >= self.next_report {
            self.next_report = now + Duration::from_secs(1);
            let s = self.stats();
            if let Some(f) = self.progress.as_mut() {
                f(&s);
            }
        }
    }
}
