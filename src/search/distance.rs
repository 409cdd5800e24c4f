//! The exact distance to the end (`search --exact`) for any game: the
//! value and remoteness of a position as the tables count them
//! ([`Outcome`]: a win is 1 + the least remoteness of a losing child, a
//! tie 1 + the least of a tying child, a loss 1 + the most of any child),
//! by a full-width search that remembers every position it finished (up
//! to symmetry: the game's key). The engines prove values and prune every
//! line that cannot change one; a distance needs every child's, so this
//! search costs what a table of the positions below would: it is asked
//! for only with `--exact`, and stops on the run's limits, its memo
//! counted against `--memory`.

use super::engine::Options;
use super::{Limits, SearchGame, Stop};
use crate::value::{Outcome, Value};
use std::collections::HashMap;
use std::time::Duration;

/// Bytes a line's frame is counted for against the path's budget (a
/// frame holds the node's moves; the thread's stack is sized from it).
const FRAME: u64 = 4 << 10;

/// The memo's bytes per entry, about (key, outcome, the map's overhead).
fn entry_bytes<G: SearchGame>() -> u64 {
    (std::mem::size_of::<G::Key>() + std::mem::size_of::<Outcome>() + 16) as u64
}

/// An exhaustive search of `g`'s distances, its memo kept from one
/// position to the next (the positions after a position's moves share
/// most of their trees).
pub(crate) struct Exact<'a, G: SearchGame> {
    g: &'a G,
    memo: HashMap<G::Key, Outcome>,
    limits: Limits,
    memory: u64,
    nodes: u64,
}

impl<'a, G: SearchGame> Exact<'a, G> {
    /// A search within `options`' memory, nodes and cancel token, and
    /// `time` (what is left of the run's time limit).
    pub fn new(g: &'a G, options: &Options, time: Option<Duration>) -> Exact<'a, G> {
        Exact {
            g,
            memo: HashMap::new(),
            limits: Limits::new(
                options.memory,
                options.node_limit,
                time,
                options.cancel.clone(),
            ),
            memory: options.memory,
            nodes: 0,
        }
    }

    /// Why the search stopped, once it has.
    pub fn stop(&self) -> Option<Stop> {
        self.limits.stop()
    }

    /// `p`'s value and remoteness for the player to move; `None` when
    /// stopped first.
    pub fn outcome(&mut self, p: &G::Pos) -> Option<Outcome> {
        if self.limits.stop().is_some() {
            return None;
        }
        // A line may be as long as the game (a take-away game's thousands
        // of plies): on a thread whose stack the path's budget sizes.
        let stack = (self.limits.path_budget() * 2).min(1 << 30) as usize + (8 << 20);
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("exact".into())
                .stack_size(stack)
                .spawn_scoped(s, || {
                    self.limits.new_path();
                    self.search(p)
                })
                .ok()?
                .join()
                .ok()
                .flatten()
        })
    }

    fn search(&mut self, p: &G::Pos) -> Option<Outcome> {
        let g = self.g;
        if let Some(v) = g.terminal(p) {
            return Some(Outcome::primitive(v));
        }
        let key = g.key(p);
        if let Some(&o) = self.memo.get(&key) {
            return Some(o);
        }
        if !self.limits.may_expand(self.nodes) {
            return None;
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) {
            self.limits.check();
        }
        if (self.memo.len() as u64 + 1) * entry_bytes::<G>() > self.memory {
            self.limits.set_stop(Stop::Memory);
            return None;
        }
        if !self.limits.push_frame(FRAME) {
            return None;
        }
        let mut best: Option<Outcome> = None;
        for (_, c) in g.moves(p) {
            let Some(o) = self.search(&c) else {
                self.limits.pop_frame(FRAME);
                return None;
            };
            let mine = Outcome {
                value: o.value.flip(),
                remoteness: o.remoteness.map(|r| r + 1),
            };
            best = Some(best.map_or(mine, |b| better(b, mine)));
        }
        self.limits.pop_frame(FRAME);
        // A position that is not over has a move (the rules' contract).
        let o = best.unwrap_or(Outcome::primitive(Value::Lose));
        self.memo.insert(key, o);
        Some(o)
    }
}

/// The better of two outcomes for the player choosing between them (each
/// already the chooser's): a win soonest, then a tie soonest, a loss
/// latest.
fn better(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: Outcome| {
        let r = i64::from(o.remoteness.unwrap_or(0));
        match o.value {
            Value::Win => (0, r),
            Value::Tie => (1, r),
            Value::Draw => (2, 0),
            Value::Lose => (3, -r),
        }
    };
    if rank(b) < rank(a) {
        b
    } else {
        a
    }
}
