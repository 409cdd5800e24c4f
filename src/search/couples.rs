//! Impartial sums by Lemoine and Viennot's method: the outcome of a sum
//! needs only the nimbers of all its components but one, `L1 + L2 + *k`
//! winning exactly when `L1 + *(k ^ n(L2))` does. The engine proves
//! *couples* `L + *k` (one component, a *land*, and a Nim heap): the mover
//! wins when some child loses, a child being a move in `L` (whose result, a
//! sum of lands, is folded the same way) or a smaller heap `L + *j`. A loss
//! of `L + *k` is exactly `n(L) = k`, and the nimber of a land is found by
//! proving `L + *0`, `L + *1`, ... until one loses. So an outcome asks only
//! for the couples it needs, never a land's whole nimber unless a sum does.
//!
//! Couples are proved by df-pn (Nagai; with the 1+ε trick of Pawlewicz and
//! Lew): proof and disproof numbers of couples not yet proved are kept in a
//! bounded table (by couple, an exact key: a land's number and the heap);
//! what is proved (a land's nimber, couples that win) is kept for good, by
//! the land's exact canonical form. A child of several lands of unknown
//! nimber is settled, when the search first goes into it, by computing the
//! nimbers of all its lands but the largest (Glop's choice: small lands'
//! nimbers are cheap and met again and again), which makes it a couple.
//!
//! The engine names no game: a game gives its lands through [`Lands`]
//! (Sprouts' lands in Glop's canonical form, `search::games::sprouts`;
//! Cram's regions by their region keys, `search::games::cram`).

use crate::search::dfpn::Stats;
use crate::search::{Cancel, Limits, ProgressFn, Stop};
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::Rc;
use std::time::Duration;

/// An infinite proof or disproof number: proved.
pub const INF: u32 = u32::MAX;

/// A game's lands: the components of its positions, each in a canonical
/// form by which equal lands are one.
pub trait Lands {
    /// A land in canonical form.
    type Land: Clone + Eq + Hash;
    /// The land's size, by which a sum's lands are ordered: the largest is
    /// the one left for the couple.
    fn size(&self, land: &Self::Land) -> u32;
    /// The positions the land's moves lead to, each as its lands.
    fn children(&self, land: &Self::Land) -> Vec<Vec<Self::Land>>;
    /// The land's nimber when something else knows it (a table), so that
    /// the engine never searches it.
    fn leaf(&self, _land: &Self::Land) -> Option<u32> {
        None
    }
}

/// What the engine knows of one land.
pub struct LandInfo<T> {
    /// The land.
    pub land: T,
    /// Its size ([`Lands::size`]).
    pub size: u32,
    /// Its nimber, once a couple `land + *k` is proved to lose.
    pub nimber: Option<u32>,
    /// Heaps `k` for which `land + *k` is proved to win (bit k of word
    /// k / 64).
    wins: Vec<u64>,
}

impl<T> LandInfo<T> {
    fn wins(&self, k: u32) -> bool {
        self.wins
            .get((k / 64) as usize)
            .is_some_and(|w| w >> (k % 64) & 1 == 1)
    }

    fn set_win(&mut self, k: u32) {
        let i = (k / 64) as usize;
        if self.wins.len() <= i {
            self.wins.resize(i + 1, 0);
        }
        self.wins[i] |= 1 << (k % 64);
    }

    /// The heaps proved to win beside this land.
    pub fn win_heaps(&self) -> impl Iterator<Item = u32> + '_ {
        self.wins.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| (i * 64 + b) as u32)
        })
    }
}

/// A child of a couple once the nimbers known are folded in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Folded {
    /// No land of unknown nimber is left: a heap of this size (it loses
    /// when 0).
    Heap(u32),
    /// One land of unknown nimber and a heap.
    Couple(u32, u32),
    /// Several lands of unknown nimber and a heap.
    Sum(Vec<u32>, u32),
}

/// The engine's limits and memory, as `retrograde search` gives them.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes for what the engine remembers (couples in progress, lands,
    /// their children); past it the table of couples in progress is
    /// emptied (nothing proved is lost).
    pub memory: u64,
    /// ε of the 1+ε trick.
    pub epsilon: f64,
    /// Stop after this many couples expanded.
    pub node_limit: Option<u64>,
    /// Stop after this long.
    pub time_limit: Option<Duration>,
    /// Stop when cancelled.
    pub cancel: Cancel,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            memory: 1 << 30,
            epsilon: 0.25,
            node_limit: None,
            time_limit: None,
            cancel: Cancel::default(),
        }
    }
}

/// Children of lands kept, in land numbers: each child's lands, sorted.
type Kids = Rc<Vec<Box<[u32]>>>;

/// The engine over the lands of `L`.
pub struct Couples<'a, L: Lands> {
    game: L,
    ids: HashMap<L::Land, u32>,
    lands: Vec<LandInfo<L::Land>>,
    /// Proof and disproof numbers of couples in progress, by
    /// `land << 32 | heap`.
    tt: HashMap<u64, (u32, u32)>,
    tt_cap: usize,
    /// Children of lands, while memory allows.
    kids: HashMap<u32, Kids>,
    kids_words: usize,
    kids_cap: usize,
    epsilon: f64,
    limits: Limits,
    nodes: u64,
    depth: u64,
    deepest: u64,
    progress: Option<ProgressFn<'a, Stats>>,
    /// Lands answered by [`Lands::leaf`].
    leaf_hits: u64,
}

impl<'a, L: Lands> Couples<'a, L> {
    /// An engine over `game`'s lands with `options`' memory and limits.
    pub fn with_lands(game: L, options: &Options) -> Couples<'a, L> {
        // A couple in progress: its key and numbers, and the map's slack.
        let tt_cap = (options.memory / 4 / 40).max(1 << 12) as usize;
        Couples {
            game,
            ids: HashMap::new(),
            lands: Vec::new(),
            tt: HashMap::new(),
            tt_cap,
            kids: HashMap::new(),
            kids_words: 0,
            kids_cap: (options.memory / 4 / 4).max(1 << 16) as usize,
            epsilon: options.epsilon,
            limits: Limits::new(
                options.memory,
                options.node_limit,
                options.time_limit,
                options.cancel.clone(),
            ),
            nodes: 0,
            depth: 0,
            deepest: 0,
            progress: None,
            leaf_hits: 0,
        }
    }

    /// The game whose lands these are.
    pub fn game(&self) -> &L {
        &self.game
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&Stats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// The land's number, interned (with its nimber when a leaf knows it).
    pub fn id(&mut self, land: &L::Land) -> u32 {
        if let Some(&i) = self.ids.get(land) {
            return i;
        }
        let i = self.lands.len() as u32;
        self.ids.insert(land.clone(), i);
        let nimber = self.game.leaf(land);
        self.leaf_hits += u64::from(nimber.is_some());
        self.lands.push(LandInfo {
            land: land.clone(),
            size: self.game.size(land),
            nimber,
            wins: Vec::new(),
        });
        i
    }

    /// The land's number, if the engine has met it.
    pub fn find(&self, land: &L::Land) -> Option<u32> {
        self.ids.get(land).copied()
    }

    /// What the engine knows of land number `i`.
    pub fn info(&self, i: u32) -> &LandInfo<L::Land> {
        &self.lands[i as usize]
    }

    /// Every land met.
    pub fn lands(&self) -> &[LandInfo<L::Land>] {
        &self.lands
    }

    /// Records that `land + *k` loses (the land's nimber is k).
    pub fn add_loss(&mut self, land: &L::Land, k: u32) {
        let i = self.id(land);
        self.lands[i as usize].nimber = Some(k);
    }

    /// Records that `land + *k` wins.
    pub fn add_win(&mut self, land: &L::Land, k: u32) {
        let i = self.id(land);
        self.lands[i as usize].set_win(k);
    }

    /// The counters, as a df-pn search's.
    pub fn stats(&self) -> Stats {
        Stats {
            nodes: self.nodes,
            leaf_hits: self.leaf_hits,
            tt_used: self.tt.len() as u64,
            tt_capacity: self.tt_cap as u64,
            // The map's entries at about the bytes each its cap assumes.
            tt_bytes: self.tt.len() as u64 * 40,
            tt_max: self.tt_cap as u64,
            tt_max_bytes: self.tt_cap as u64 * 40,
            threads: 1,
            root_pn: 0,
            root_dn: 0,
            target: 1,
            elapsed: self.limits.elapsed(),
            deepest: self.deepest,
        }
    }

    /// Lands with a known nimber.
    pub fn nimbers_known(&self) -> usize {
        self.lands.iter().filter(|l| l.nimber.is_some()).count()
    }

    /// Why the engine stopped, if it has.
    pub fn stop_reason(&self) -> Option<Stop> {
        self.limits.stop()
    }

    /// Whether the player to move wins the sum of `lands` and a heap of
    /// `heap` (`None` if stopped first).
    pub fn wins_sum(&mut self, lands: &[L::Land], heap: u32) -> Option<bool> {
        let ids: Vec<u32> = lands.iter().map(|l| self.id(l)).collect();
        self.sum_wins(&ids, heap)
    }

    /// The nimber of the sum of `lands` and a heap of `heap` (`None` if
    /// stopped first).
    pub fn nimber_sum(&mut self, lands: &[L::Land], heap: u32) -> Option<u32> {
        let mut n = heap;
        for land in lands {
            let i = self.id(land);
            n ^= self.land_nimber(i)?;
        }
        Some(n)
    }

    /// Whether the sum of lands `ids` and a heap of `k` wins.
    pub fn sum_wins(&mut self, ids: &[u32], k: u32) -> Option<bool> {
        match self.settle(ids, k)? {
            Folded::Heap(x) => Some(x != 0),
            Folded::Couple(l, x) => self.couple_wins(l, x),
            Folded::Sum(..) => unreachable!("settle leaves at most one land"),
        }
    }

    /// The nimber of land number `i`: the heap beside which it loses.
    pub fn land_nimber(&mut self, i: u32) -> Option<u32> {
        let mut k = 0;
        loop {
            if let Some(n) = self.lands[i as usize].nimber {
                return Some(n);
            }
            if !self.couple_wins(i, k)? {
                return Some(k);
            }
            k += 1;
        }
    }

    /// Whether `land + *k` wins, proving it if need be.
    pub fn couple_wins(&mut self, l: u32, k: u32) -> Option<bool> {
        if let Some(w) = self.known(l, k) {
            return Some(w);
        }
        self.mid(l, k, INF - 1, INF - 1);
        self.known(l, k)
    }

    /// What is proved of `land + *k`: whether it wins.
    pub fn known(&self, l: u32, k: u32) -> Option<bool> {
        let info = &self.lands[l as usize];
        match info.nimber {
            Some(n) => Some(n != k),
            None => info.wins(k).then_some(true),
        }
    }

    /// The lands `ids` and heap `k` with every known nimber folded in.
    pub fn fold(&self, ids: &[u32], k: u32) -> Folded {
        let mut x = k;
        let mut left: Vec<u32> = Vec::new();
        for &i in ids {
            match self.lands[i as usize].nimber {
                Some(n) => x ^= n,
                None => left.push(i),
            }
        }
        match left.len() {
            0 => Folded::Heap(x),
            1 => Folded::Couple(left[0], x),
            _ => Folded::Sum(left, x),
        }
    }

    /// The sum folded, then settled to at most one land: the nimbers of
    /// all its lands of unknown nimber but the largest are computed.
    fn settle(&mut self, ids: &[u32], k: u32) -> Option<Folded> {
        match self.fold(ids, k) {
            Folded::Sum(mut left, mut x) => {
                left.sort_by_key(|&i| (self.lands[i as usize].size, i));
                let big = left.pop().expect("two lands");
                for i in left {
                    x ^= self.land_nimber(i)?;
                }
                Some(self.fold(&[big], x))
            }
            f => Some(f),
        }
    }

    /// The children of land number `l`, as land numbers.
    pub fn children(&mut self, l: u32) -> Kids {
        if let Some(k) = self.kids.get(&l) {
            return k.clone();
        }
        let children = self.game.children(&self.lands[l as usize].land);
        let kids: Vec<Box<[u32]>> = children
            .iter()
            .map(|c| c.iter().map(|land| self.id(land)).collect())
            .collect();
        let words: usize = kids.iter().map(|c| c.len() + 4).sum::<usize>() + 8;
        let kids = Rc::new(kids);
        if self.kids_words + words > self.kids_cap {
            self.kids.clear();
            self.kids_words = 0;
        }
        self.kids_words += words;
        self.kids.insert(l, kids.clone());
        kids
    }

    /// The numbers of `land + *k` for its parent: proved, in progress, or
    /// new.
    fn numbers(&self, l: u32, k: u32) -> (u32, u32) {
        match self.known(l, k) {
            Some(true) => (0, INF),
            Some(false) => (INF, 0),
            None => self
                .tt
                .get(&(u64::from(l) << 32 | u64::from(k)))
                .copied()
                .unwrap_or((1, 1)),
        }
    }

    fn store(&mut self, l: u32, k: u32, pn: u32, dn: u32) {
        if self.tt.len() >= self.tt_cap {
            // Full: what is in progress is forgotten (what is proved is
            // kept apart), and the search rebuilds the numbers it needs.
            self.tt.clear();
        }
        self.tt.insert(u64::from(l) << 32 | u64::from(k), (pn, dn));
    }

    fn record(&mut self, l: u32, k: u32, wins: bool) {
        self.tt.remove(&(u64::from(l) << 32 | u64::from(k)));
        let info = &mut self.lands[l as usize];
        if wins {
            info.set_win(k);
        } else {
            info.nimber = Some(k);
        }
    }

    /// Multiple-iterative deepening at `land + *k` under thresholds: returns
    /// when the couple is proved or its numbers reach a threshold (or the
    /// search stops).
    fn mid(&mut self, l: u32, k: u32, th_pn: u32, th_dn: u32) {
        if self.known(l, k).is_some() {
            return;
        }
        if !self.limits.may_expand(self.nodes) {
            return;
        }
        self.nodes += 1;
        if self.nodes & 0x3ff == 0 && self.limits.check() {
            let s = self.stats();
            if let Some(f) = self.progress.as_mut() {
                f(&s);
            }
        }
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let kids = self.children(l);
        // Each child: a smaller heap (couple l, j) or a move in the land.
        let n = k as usize + kids.len();
        loop {
            let mut sum: u64 = 0;
            let mut best: Option<(usize, u32, u32)> = None;
            let mut dn2 = INF;
            for c in 0..n {
                let (pn, dn) = if c < k as usize {
                    self.numbers(l, c as u32)
                } else {
                    match self.fold(&kids[c - k as usize], k) {
                        Folded::Heap(0) => (INF, 0),
                        Folded::Heap(_) => (0, INF),
                        Folded::Couple(l2, k2) => self.numbers(l2, k2),
                        Folded::Sum(..) => (1, 1),
                    }
                };
                if dn == 0 {
                    // A child that loses: this couple wins.
                    self.record(l, k, true);
                    self.depth -= 1;
                    return;
                }
                sum = sum.saturating_add(u64::from(pn));
                match best {
                    Some((_, bpn, bdn)) if (dn, pn) >= (bdn, bpn) => dn2 = dn2.min(dn),
                    _ => {
                        if let Some((_, _, bdn)) = best {
                            dn2 = dn2.min(bdn);
                        }
                        best = Some((c, pn, dn));
                    }
                }
            }
            if sum == 0 {
                // Every child wins: this couple loses.
                self.record(l, k, false);
                self.depth -= 1;
                return;
            }
            let (c, cpn, cdn) = best.expect("a land has moves");
            let pn = cdn;
            let dn = sum.min(u64::from(INF - 1)) as u32;
            if pn >= th_pn || dn >= th_dn || self.limits.stop().is_some() {
                self.store(l, k, pn, dn);
                self.depth -= 1;
                return;
            }
            let c_th_pn =
                (u64::from(th_dn) - u64::from(dn) + u64::from(cpn)).min(u64::from(INF - 1)) as u32;
            let widened = (f64::from(dn2) * (1.0 + self.epsilon)).ceil() as u64 + 1;
            let c_th_dn = widened.min(u64::from(th_pn)).min(u64::from(INF - 1)) as u32;
            if c < k as usize {
                self.mid(l, c as u32, c_th_pn, c_th_dn);
            } else {
                match self.fold(&kids[c - k as usize], k) {
                    Folded::Couple(l2, k2) => self.mid(l2, k2, c_th_pn, c_th_dn),
                    Folded::Sum(..) => {
                        // First visit of a sum: settle it to one land.
                        if self.settle(&kids[c - k as usize], k).is_none() {
                            self.store(l, k, pn, dn);
                            self.depth -= 1;
                            return;
                        }
                    }
                    Folded::Heap(_) => unreachable!("a heap child is proved"),
                }
            }
        }
    }
}
