//! Shrinking a couples proof to the few entries a check needs (Glop's
//! "check computation"): from a pool of proven couples `L + *k`, keep a
//! small set from which the checker ([`crate::search::games::sprouts::proof`]'s
//! `verify_normal`, Cram's alike) re-proves the root with no search.
//!
//! What the checker accepts without search, entry by entry, smallest land
//! first (and the same land's smaller heaps first), is modelled here
//! exactly ([`Model::accepts`]):
//!
//! - a win `L + *k`: a child of `L` whose lands, but pairs of equal ones
//!   (which cancel), all have a known nimber, with nim-sum `k`;
//! - a loss `L + *k` (L's nimber is k): every `L + *j`, `j < k`, known to
//!   win, and every child `c` such that `c + *k` is settled: at most one of
//!   its lands of unknown nimber, that one known to win beside the heap the
//!   others leave;
//!
//! a land's nimber being known from a loss entry or from the game itself
//! ([`Lands::zero`], [`Lands::leaf`]). Knowing more never makes an entry
//! fail, so a set's validity is monotone and an entry can be dropped
//! whenever the entries that use it still pass without it.
//!
//! The shrinking: the pool is first cut to what the model accepts (a
//! closed proof); each fact gets an estimate of its proof tree's size,
//! computed children first; a proof is then chosen from the root down,
//! largest lands first (so that every demand on a land is known before
//! its proof is chosen), each win by the child whose needs cost least, a
//! need already chosen costing nothing, and each child of a loss leaving
//! out of the nimbers the land whose nimber costs most. The choice is
//! repeated within what it kept until it keeps no less, then every entry
//! whose users pass without it is dropped, the costliest first.

use super::Lands;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// One entry: a land, a heap, and whether `land + *heap` wins.
pub type Entry<T> = (T, u32, bool);

/// Lands numbered, with their children's odd lands made once.
struct Model<'g, L: Lands> {
    game: &'g L,
    ids: HashMap<L::Land, u32>,
    lands: Vec<L::Land>,
    size: Vec<u32>,
    /// A nimber the game gives without entries.
    fixed: Vec<Option<u32>>,
    /// Each child's lands, those met an even number of times left out
    /// (equal lands cancel in pairs), sorted.
    kids: Vec<Option<Vec<Vec<u32>>>>,
}

/// What a set of entries lets the checker know.
#[derive(Clone, Default)]
struct Know {
    nim: HashMap<u32, u32>,
    win: HashSet<(u32, u32)>,
}

impl<'g, L: Lands> Model<'g, L> {
    fn new(game: &'g L) -> Self {
        Model {
            game,
            ids: HashMap::new(),
            lands: Vec::new(),
            size: Vec::new(),
            fixed: Vec::new(),
            kids: Vec::new(),
        }
    }

    fn id(&mut self, land: &L::Land) -> u32 {
        if let Some(&i) = self.ids.get(land) {
            return i;
        }
        let i = self.lands.len() as u32;
        let fixed = if self.game.zero(land) {
            Some(0)
        } else {
            self.game.leaf(land)
        };
        self.ids.insert(land.clone(), i);
        self.lands.push(land.clone());
        self.size.push(self.game.size(land));
        self.fixed.push(fixed);
        self.kids.push(None);
        i
    }

    /// The odd lands of a sum.
    fn odd(&mut self, lands: &[L::Land]) -> Vec<u32> {
        let mut ids: Vec<u32> = lands.iter().map(|l| self.id(l)).collect();
        ids.sort_unstable();
        let mut out = Vec::with_capacity(ids.len());
        let mut j = 0;
        while j < ids.len() {
            if j + 1 < ids.len() && ids[j] == ids[j + 1] {
                j += 2;
            } else {
                out.push(ids[j]);
                j += 1;
            }
        }
        out
    }

    fn kids(&mut self, l: u32) -> Vec<Vec<u32>> {
        if let Some(k) = &self.kids[l as usize] {
            return k.clone();
        }
        let land = self.lands[l as usize].clone();
        let k: Vec<Vec<u32>> = self
            .game
            .children(&land)
            .iter()
            .map(|c| self.odd(c))
            .collect();
        self.kids[l as usize] = Some(k.clone());
        k
    }

    fn nimber(&self, k: &Know, l: u32) -> Option<u32> {
        self.fixed[l as usize].or_else(|| k.nim.get(&l).copied())
    }

    /// What `k` says of `l + *x`.
    fn known(&self, k: &Know, l: u32, x: u32) -> Option<bool> {
        match self.nimber(k, l) {
            Some(n) => Some(n != x),
            None => k.win.contains(&(l, x)).then_some(true),
        }
    }

    /// Whether the sum `c + *x` is settled as a win by `k` (a loss's
    /// child, or a winning root).
    fn sum_wins(&self, k: &Know, c: &[u32], x: u32) -> bool {
        let mut unknown = None;
        let mut x = x;
        for &m in c {
            match self.nimber(k, m) {
                Some(n) => x ^= n,
                None if unknown.is_none() => unknown = Some(m),
                None => return false,
            }
        }
        match unknown {
            None => x != 0,
            Some(m) => self.known(k, m, x) == Some(true),
        }
    }

    /// Whether the sum `c + *x` is settled as a loss by `k`.
    fn sum_loses(&self, k: &Know, c: &[u32], x: u32) -> bool {
        let mut x = x;
        for &m in c {
            match self.nimber(k, m) {
                Some(n) => x ^= n,
                None => return false,
            }
        }
        x == 0
    }

    /// Whether entry `e` passes given what `k` knows of smaller lands (and
    /// of the same land's smaller heaps).
    fn passes(&mut self, k: &Know, e: (u32, u32, bool)) -> bool {
        let (l, x, wins) = e;
        if let Some(w) = self.known(k, l, x) {
            return w == wins;
        }
        let kids = self.kids(l);
        if wins {
            kids.iter().any(|c| self.sum_loses(k, c, x))
        } else {
            (0..x).all(|j| self.known(k, l, j) == Some(true))
                && kids.iter().all(|c| self.sum_wins(k, c, x))
        }
    }

    /// The checker's pass over `set`, children first: which entries pass,
    /// and what those that pass let it know.
    fn accepts(&mut self, set: &[(u32, u32, bool)]) -> (Vec<bool>, Know) {
        let mut order: Vec<usize> = (0..set.len()).collect();
        order.sort_by_key(|&i| (self.size[set[i].0 as usize], set[i].1, i));
        let mut k = Know::default();
        let mut ok = vec![false; set.len()];
        for i in order {
            let e = set[i];
            if self.passes(&k, e) {
                ok[i] = true;
                learn(&mut k, e);
            }
        }
        (ok, k)
    }
}

fn learn(k: &mut Know, (l, x, wins): (u32, u32, bool)) {
    if wins {
        k.win.insert((l, x));
    } else {
        k.nim.insert(l, x);
    }
}

/// A need of the proof: a land's nimber, or one couple known to win.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Need {
    Nimber(u32),
    Win(u32, u32),
}

/// The proof chosen from a closed set: estimates, then the choice.
struct Chooser<'m, 'g, L: Lands> {
    m: &'m mut Model<'g, L>,
    know: Know,
    /// Estimated proof sizes (as trees: no sharing), by need.
    est: HashMap<Need, f64>,
}

impl<L: Lands> Chooser<'_, '_, L> {
    fn cost(&self, n: Need) -> f64 {
        match n {
            Need::Nimber(l) if self.m.fixed[l as usize].is_some() => 0.0,
            Need::Win(l, x) if self.m.fixed[l as usize].is_some_and(|n| n != x) => 0.0,
            n => self.est.get(&n).copied().unwrap_or(f64::INFINITY),
        }
    }

    /// The needs that settle `c + *x` as a win, cheapest (under `price`)
    /// first: every land's nimber but at most one, left out as a win.
    fn win_needs(
        &self,
        c: &[u32],
        x: u32,
        price: &dyn Fn(Need) -> f64,
    ) -> Option<(f64, Vec<Need>)> {
        // All nimbers known: the heap they leave is not 0 (the facts are
        // true).
        let all: Option<Vec<Need>> = c
            .iter()
            .map(|&m| self.m.nimber(&self.know, m).map(|_| Need::Nimber(m)))
            .collect();
        let mut best: Option<(f64, Vec<Need>)> =
            all.map(|n| (n.iter().map(|&n| price(n)).sum(), n));
        for (i, &m) in c.iter().enumerate() {
            let mut y = x;
            let mut needs = Vec::with_capacity(c.len());
            let mut ok = true;
            for (j, &o) in c.iter().enumerate() {
                if j != i {
                    match self.m.nimber(&self.know, o) {
                        Some(n) => {
                            y ^= n;
                            needs.push(Need::Nimber(o));
                        }
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
            if !ok || !self.know.win.contains(&(m, y)) {
                continue;
            }
            needs.push(Need::Win(m, y));
            let cost: f64 = needs.iter().map(|&n| price(n)).sum();
            if best.as_ref().is_none_or(|(b, _)| cost < *b) {
                best = Some((cost, needs));
            }
        }
        best
    }

    /// The needs that settle `c + *x` as a loss: every land's nimber.
    fn loss_needs(&self, c: &[u32], x: u32) -> Option<Vec<Need>> {
        self.m
            .sum_loses(&self.know, c, x)
            .then(|| c.iter().map(|&m| Need::Nimber(m)).collect())
    }

    /// The proof of win `l + *x` by a child, cheapest under `price`.
    fn win_proof(
        &self,
        kids: &[Vec<u32>],
        x: u32,
        price: &dyn Fn(Need) -> f64,
    ) -> Option<(f64, Vec<Need>)> {
        let mut best: Option<(f64, Vec<Need>)> = None;
        for c in kids {
            if let Some(needs) = self.loss_needs(c, x) {
                let cost: f64 = needs.iter().map(|&n| price(n)).sum();
                let smaller = |b: &(f64, Vec<Need>)| {
                    cost < b.0 || (cost == b.0 && self.lives(&needs) < self.lives(&b.1))
                };
                if best.as_ref().is_none_or(smaller) {
                    best = Some((cost, needs));
                }
            }
        }
        best
    }

    fn lives(&self, needs: &[Need]) -> u64 {
        needs
            .iter()
            .map(|n| match n {
                Need::Nimber(l) | Need::Win(l, _) => u64::from(self.m.size[*l as usize]),
            })
            .sum()
    }

    /// The proof of loss `l + *x` beyond its smaller heaps: each child's
    /// needs, cheapest under `price`.
    fn loss_proof(
        &self,
        kids: &[Vec<u32>],
        x: u32,
        price: &dyn Fn(Need) -> f64,
    ) -> Option<(f64, Vec<Need>)> {
        let mut total = 0.0;
        let mut needs = Vec::new();
        for c in kids {
            let (cost, n) = self.win_needs(c, x, price)?;
            total += cost;
            needs.extend(n);
        }
        Some((total, needs))
    }

    /// Estimates every need the closed set holds, smallest lands first.
    fn estimate(&mut self, set: &[(u32, u32, bool)]) {
        let mut order: Vec<(u32, u32, bool)> = set.to_vec();
        order.sort_by_key(|&(l, x, _)| (self.m.size[l as usize], l, x));
        let mut wins_below = 0.0;
        let mut last = u32::MAX;
        for (l, x, wins) in order {
            if l != last {
                wins_below = 0.0;
                last = l;
            }
            let kids = self.m.kids(l);
            if wins {
                if let Some((c, _)) = self.win_proof(&kids, x, &|n| self.cost(n)) {
                    let c = 1.0 + c;
                    self.est.insert(Need::Win(l, x), c);
                    wins_below += c;
                }
            } else if let Some((c, _)) = self.loss_proof(&kids, x, &|n| self.cost(n)) {
                let c = 1.0 + c + wins_below;
                self.est.insert(Need::Nimber(l), c);
                // A win beside the land is shown by its nimber as well.
                for j in 0..x {
                    let w = self.est.entry(Need::Win(l, j)).or_insert(c);
                    *w = w.min(c);
                }
            }
        }
        // A win known from the nimber costs the nimber's proof.
        let nimbers: Vec<(u32, f64)> = self
            .est
            .iter()
            .filter_map(|(n, &c)| match n {
                Need::Nimber(l) => Some((*l, c)),
                _ => None,
            })
            .collect();
        for (l, c) in nimbers {
            for &(wl, wx, _) in set.iter().filter(|e| e.0 == l && e.2) {
                let w = self.est.entry(Need::Win(wl, wx)).or_insert(c);
                *w = w.min(c);
            }
        }
    }
}

/// Shrinks `pool` to a small set of entries from which the checker
/// re-proves the sum of `root` and heap `heap` with no search. `None` if
/// the pool does not settle the root so.
pub fn shrink<L: Lands>(
    game: &L,
    pool: &[Entry<L::Land>],
    root: &[L::Land],
    heap: u32,
) -> Option<Vec<Entry<L::Land>>> {
    let mut m = Model::new(game);
    let mut set: Vec<(u32, u32, bool)> = pool
        .iter()
        .map(|(land, x, w)| (m.id(land), *x, *w))
        .collect();
    set.sort_unstable();
    set.dedup();
    let root = m.odd(root);
    let mut best: Option<Vec<(u32, u32, bool)>> = None;
    loop {
        let (ok, know) = m.accepts(&set);
        let closed: Vec<(u32, u32, bool)> = set
            .iter()
            .zip(&ok)
            .filter_map(|(&e, &ok)| ok.then_some(e))
            .collect();
        let chosen = choose(&mut m, know, &closed, &root, heap)?;
        if best.as_ref().is_some_and(|b| chosen.len() >= b.len()) {
            break;
        }
        set = chosen.clone();
        best = Some(chosen);
    }
    let best = best?;
    let mut set = best.clone();
    drop_unneeded(&mut m, &mut set, &root, heap);
    // The model's own pass has the last word: a drop it refuses is undone.
    if !valid(&mut m, &set, &root, heap) {
        set = best;
        if !valid(&mut m, &set, &root, heap) {
            return None;
        }
    }
    Some(
        set.into_iter()
            .map(|(l, x, w)| (m.lands[l as usize].clone(), x, w))
            .collect(),
    )
}

/// Whether the checker's pass takes every entry of `set` and settles the
/// root.
fn valid<L: Lands>(
    m: &mut Model<'_, L>,
    set: &[(u32, u32, bool)],
    root: &[u32],
    heap: u32,
) -> bool {
    let (ok, k) = m.accepts(set);
    ok.iter().all(|&o| o) && (m.sum_wins(&k, root, heap) || m.sum_loses(&k, root, heap))
}

/// One choice of a proof within `closed` (which `know` describes).
fn choose<L: Lands>(
    m: &mut Model<'_, L>,
    know: Know,
    closed: &[(u32, u32, bool)],
    root: &[u32],
    heap: u32,
) -> Option<Vec<(u32, u32, bool)>> {
    let mut ch = Chooser {
        m,
        know,
        est: HashMap::new(),
    };
    ch.estimate(closed);
    // Needs chosen so far, by land.
    let mut nimber: HashSet<u32> = HashSet::new();
    let mut wins: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut queue: BinaryHeap<(u32, Reverse<u32>)> = BinaryHeap::new();
    let mut queued: HashSet<u32> = HashSet::new();
    let mut demand = |n: Need,
                      nimber: &mut HashSet<u32>,
                      wins: &mut HashMap<u32, Vec<u32>>,
                      queue: &mut BinaryHeap<(u32, Reverse<u32>)>,
                      size: &[u32],
                      fixed: &[Option<u32>]| {
        let l = match n {
            Need::Nimber(l) | Need::Win(l, _) => l,
        };
        if fixed[l as usize].is_some() {
            return;
        }
        match n {
            Need::Nimber(l) => {
                nimber.insert(l);
            }
            Need::Win(l, x) => wins.entry(l).or_default().push(x),
        }
        if queued.insert(l) {
            queue.push((size[l as usize], Reverse(l)));
        }
    };
    // The root: a sum that wins or loses.
    let root_needs = if ch.m.sum_loses(&ch.know, root, heap) {
        ch.loss_needs(root, heap)?
    } else {
        let price = |n: Need| ch.cost(n);
        ch.win_needs(root, heap, &price)?.1
    };
    for n in root_needs {
        demand(
            n,
            &mut nimber,
            &mut wins,
            &mut queue,
            &ch.m.size,
            &ch.m.fixed,
        );
    }
    let mut out = Vec::new();
    while let Some((_, Reverse(l))) = queue.pop() {
        let mut entries: Vec<(u32, bool)> = Vec::new();
        match nimber.contains(&l) {
            true => {
                let n = ch.know.nim[&l];
                entries.extend((0..n).map(|j| (j, true)));
                entries.push((n, false));
            }
            false => {
                let mut w = wins.remove(&l).unwrap_or_default();
                w.sort_unstable();
                w.dedup();
                entries.extend(w.into_iter().map(|x| (x, true)));
            }
        }
        let kids = ch.m.kids(l);
        for (x, w) in entries {
            out.push((l, x, w));
            // A need already chosen costs nothing.
            let price = |n: Need| -> f64 {
                let chosen = match n {
                    Need::Nimber(o) => nimber.contains(&o),
                    Need::Win(o, y) => {
                        nimber.contains(&o) || wins.get(&o).is_some_and(|v| v.contains(&y))
                    }
                };
                if chosen {
                    0.0
                } else {
                    ch.cost(n)
                }
            };
            let proof = if w {
                ch.win_proof(&kids, x, &price)
            } else {
                ch.loss_proof(&kids, x, &price)
            };
            let (_, needs) = proof?;
            for n in needs {
                demand(
                    n,
                    &mut nimber,
                    &mut wins,
                    &mut queue,
                    &ch.m.size,
                    &ch.m.fixed,
                );
            }
        }
    }
    out.sort_unstable();
    Some(out)
}

/// Drops every entry whose users still pass without it, loss entries of
/// the largest lands first, until none can be dropped.
fn drop_unneeded<L: Lands>(
    m: &mut Model<'_, L>,
    set: &mut Vec<(u32, u32, bool)>,
    root: &[u32],
    heap: u32,
) {
    let root_wins = {
        let (_, k) = m.accepts(set);
        !m.sum_loses(&k, root, heap)
    };
    loop {
        let mut know = Know::default();
        for &e in set.iter() {
            learn(&mut know, e);
        }
        // Entries by the lands their proofs look at.
        let mut users: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &(l, _, _)) in set.iter().enumerate() {
            users.entry(l).or_default().push(i);
            for c in m.kids(l) {
                for o in c {
                    users.entry(o).or_default().push(i);
                }
            }
        }
        let mut order: Vec<usize> = (0..set.len()).collect();
        order.sort_by_key(|&i| {
            let (l, x, w) = set[i];
            (w, Reverse(m.size[l as usize]), Reverse(x))
        });
        let mut gone = vec![false; set.len()];
        let mut dropped = false;
        for i in order {
            let e = set[i];
            let mut without = know.clone();
            unlearn(&mut without, e, set, &gone, i);
            let root_ok = if root_wins {
                m.sum_wins(&without, root, heap)
            } else {
                m.sum_loses(&without, root, heap)
            };
            if !root_ok {
                continue;
            }
            let users_ok = users.get(&e.0).into_iter().flatten().all(|&u| {
                u == i || gone[u] || {
                    // A user is checked with what smaller entries give.
                    let (ul, ux, uw) = set[u];
                    let mut k = without.clone();
                    if uw {
                        k.win.remove(&(ul, ux));
                        // The land's loss entry comes after its smaller
                        // heaps.
                        if k.nim.get(&ul).is_some_and(|&n| n > ux) {
                            k.nim.remove(&ul);
                        }
                    } else {
                        k.nim.remove(&ul);
                    }
                    m.passes(&k, set[u])
                }
            });
            if users_ok {
                gone[i] = true;
                know = without;
                dropped = true;
            }
        }
        let kept: Vec<_> = set
            .iter()
            .zip(&gone)
            .filter_map(|(&e, &g)| (!g).then_some(e))
            .collect();
        *set = kept;
        if !dropped {
            break;
        }
    }
}

/// What `k` knows once entry `i`, `e`, is gone (another entry may say the
/// same).
fn unlearn(k: &mut Know, e: (u32, u32, bool), set: &[(u32, u32, bool)], gone: &[bool], i: usize) {
    let again = set
        .iter()
        .enumerate()
        .any(|(j, &o)| j != i && !gone[j] && o == e);
    if again {
        return;
    }
    let (l, x, w) = e;
    if w {
        k.win.remove(&(l, x));
    } else {
        k.nim.remove(&l);
    }
}
