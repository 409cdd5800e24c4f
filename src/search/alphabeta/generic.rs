//! The alpha-beta search of any [`SearchGame`], through its moves (in the
//! game's order, the table's move first), keys and hooks: a position whose
//! mover wins at once ([`SearchGame::wins_now`]) or whose value the game
//! tells ([`SearchGame::decided`]) is not expanded.

use super::table::{work_of, Info, Locked, NO_MOVE};
use super::{Solver, Worker};
use crate::search::leaves::ValueLeaves;
use crate::search::{score, Bounds, SearchGame};
use std::collections::HashMap;

/// The generic search: the game, its table, the known bounds and leaves.
pub(crate) struct Generic<'a, G: SearchGame> {
    game: &'a G,
    table: Locked<G::Key>,
    known: HashMap<G::Key, Bounds>,
    leaves: Option<&'a dyn ValueLeaves<G>>,
}

impl<'a, G: SearchGame> Generic<'a, G> {
    pub(crate) fn new(game: &'a G, bytes: u64) -> Generic<'a, G> {
        Generic {
            game,
            table: Locked::new(bytes),
            known: HashMap::new(),
            leaves: None,
        }
    }

    /// Whether the value of `p` for its mover is at least `k`, and the
    /// index of the move that shows it; `None` when stopped. The root
    /// (`ply` 0) is always expanded, for its move.
    fn node(&self, w: &mut Worker<'_>, p: &G::Pos, k: i8, ply: u32) -> Option<(bool, usize)> {
        let here = 0u8;
        if !w.visit() || !w.room(std::hint::black_box(&here) as *const u8 as usize) {
            return None;
        }
        w.deepest = w.deepest.max(u64::from(ply) + 1);
        let g = self.game;
        if let Some(v) = g.terminal(p) {
            return Some((score(v) >= k, usize::MAX));
        }
        let root = ply == 0;
        if !root {
            if g.wins_now(p) {
                return Some((true, usize::MAX));
            }
            if let Some(v) = g.decided(p) {
                return Some((score(v) >= k, usize::MAX));
            }
        }
        let key = g.key(p);
        let mut b = Bounds::UNKNOWN;
        let mut hint = NO_MOVE;
        if !self.known.is_empty() {
            if let Some(kb) = self.known.get(&key) {
                b = b.meet(*kb);
            }
        }
        if let Some(info) = self.table.get(&key) {
            b = b.meet(info.bounds);
            hint = info.mv;
        }
        if !root {
            if b.lo >= k {
                return Some((true, usize::MAX));
            }
            if b.hi < k {
                return Some((false, usize::MAX));
            }
            if let Some(leaves) = self.leaves {
                if let Some(v) = leaves.value(g, p) {
                    w.leaf_hits += 1;
                    let info = Info {
                        bounds: Bounds::exact(v),
                        mv: NO_MOVE,
                        work: 1,
                    };
                    if self.table.put(&key, info) {
                        w.filled += 1;
                    }
                    return Some((score(v) >= k, usize::MAX));
                }
            }
        }
        let moves = g.moves(p);
        if moves.is_empty() {
            // No move but not over: a loss for the mover, as df-pn has it.
            return Some((-1 >= k, usize::MAX));
        }
        let mut order: Vec<usize> = (0..moves.len()).collect();
        let h = usize::from(hint);
        if h < moves.len() {
            order[..=h].rotate_right(1);
        }
        let before = w.visited;
        for &i in &order {
            let (child_yes, _) = self.node(w, &moves[i].1, 1 - k, ply + 1)?;
            if !child_yes {
                self.store(w, &key, Bounds { lo: k, hi: 1 }, i, before);
                return Some((true, i));
            }
        }
        self.store(w, &key, Bounds { lo: -1, hi: k - 1 }, usize::MAX, before);
        Some((false, usize::MAX))
    }

    fn store(&self, w: &mut Worker<'_>, key: &G::Key, bounds: Bounds, mv: usize, before: u64) {
        let info = Info {
            bounds,
            mv: mv.min(usize::from(NO_MOVE)) as u8,
            work: work_of(w.visited - before),
        };
        if self.table.put(key, info) {
            w.filled += 1;
        }
    }
}

impl<'a, G: SearchGame> Solver<'a, G> for Generic<'a, G> {
    fn probe(&self, w: &mut Worker<'_>, root: &G::Pos, k: i8) -> Option<(bool, Option<usize>)> {
        let (yes, i) = self.node(w, root, k, 0)?;
        Some((yes, (yes && i != usize::MAX).then_some(i)))
    }

    fn move_of(&self, root: &G::Pos, token: usize) -> Option<G::Move> {
        self.game.moves(root).into_iter().nth(token).map(|(m, _)| m)
    }

    fn set_leaves(&mut self, leaves: &'a dyn ValueLeaves<G>) {
        self.leaves = Some(leaves);
    }

    fn add_known(&mut self, key: G::Key, bounds: Bounds) {
        let b = self.known.entry(key).or_insert(Bounds::UNKNOWN);
        *b = b.meet(bounds);
    }

    fn proven(&self) -> Vec<(G::Key, Bounds)> {
        let mut out: HashMap<G::Key, Bounds> = self.known.clone();
        for (key, b) in self.table.entries() {
            if b != Bounds::UNKNOWN {
                let e = out.entry(key).or_insert(Bounds::UNKNOWN);
                *e = e.meet(b);
            }
        }
        out.into_iter().collect()
    }

    fn capacity(&self) -> u64 {
        self.table.capacity()
    }

    fn bytes(&self) -> u64 {
        self.table.bytes()
    }

    fn grow(&mut self) -> u64 {
        let (bigger, used) = self.table.doubled();
        self.table = bigger;
        used
    }
}
