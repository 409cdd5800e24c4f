//! The reference the engines are checked against: plain memoised negamax
//! over a [`SearchGame`]'s moves (no proof numbers, no ordering, no
//! component sums), and a plain memoised mex for nimbers. Exponential in
//! memory, and recursive (a line of a few ten thousand plies overflows a
//! thread's stack, where the engines' explicit stacks do not): small boards
//! only.

use super::{score, value_of, SearchGame};
use crate::solve::mex;
use crate::value::Value;
use std::collections::HashMap;

/// The value of `p` for the player to move, by full negamax with a memo
/// keyed by [`SearchGame::key`].
pub fn value<G: SearchGame>(g: &G, p: &G::Pos) -> Value {
    let mut memo = HashMap::new();
    value_of(negamax(g, p, &mut memo))
}

fn negamax<G: SearchGame>(g: &G, p: &G::Pos, memo: &mut HashMap<G::Key, i8>) -> i8 {
    if let Some(v) = g.terminal(p) {
        return score(v);
    }
    let key = g.key(p);
    if let Some(&s) = memo.get(&key) {
        return s;
    }
    let mut best = -1;
    for (_, c) in g.moves(p) {
        best = best.max(-negamax(g, &c, memo));
        if best == 1 {
            break;
        }
    }
    memo.insert(key, best);
    best
}

/// The nimber of an impartial position: the mex of its children's
/// nimbers, memoised by key; components are not split.
pub fn nimber<G: SearchGame>(g: &G, p: &G::Pos) -> u32 {
    let mut memo = HashMap::new();
    mex_nimber(g, p, &mut memo)
}

fn mex_nimber<G: SearchGame>(g: &G, p: &G::Pos, memo: &mut HashMap<G::Key, u32>) -> u32 {
    let key = g.key(p);
    if let Some(&n) = memo.get(&key) {
        return n;
    }
    let mut seen = Vec::new();
    if g.terminal(p).is_none() {
        for (_, c) in g.moves(p) {
            seen.push(mex_nimber(g, &c, memo));
        }
    }
    let n = mex(&mut seen);
    memo.insert(key, n);
    n
}
