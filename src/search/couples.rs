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
//! what is proved (a land's nimber, couples that win) is kept with the land,
//! by its exact canonical form. Everything is bounded by `--memory`: the
//! lands too, which are most of it (every region a move makes is one, and
//! few are ever searched). When the lands fill their share, the engine
//! keeps half: first those the search is in (its path and their children,
//! which it holds by number), then those whose nimber it proved, then those
//! with proved wins, then those a table answers, then the rest, each class
//! most recently used first. A land forgotten is met again as a new land
//! and its couples proved again: only time is lost, never a value. A child of several lands of unknown
//! nimber is settled, when the search goes into it, by computing the
//! nimbers of all its lands but the largest (Glop's choice: small lands'
//! nimbers are cheap and met again and again), which makes it a couple.
//! Until then its numbers are those of the couple it will become plus, for
//! each nimber to compute, a fresh couple's and the work already spent on
//! it; and each of those nimber searches runs within a budget (twice the
//! work spent on it before, at least 4,096 couples): one that runs out is
//! put off, its work now in the sum's numbers, and the search turns to
//! other children and comes back with twice the budget. Settled unbounded,
//! one nimber of a 20-spot game's land held `sprouts:20` for two hours with
//! its root's numbers unchanged; bounded, it is proved in about a minute.
//!
//! The engine names no game: a game gives its lands through [`Lands`]
//! (Sprouts' lands in Glop's canonical form, `search::games::sprouts`;
//! Cram's regions by their region keys, `search::games::cram`).

use crate::search::bounded::BoundedCache;
use crate::search::engine::{Options, ProgressFn, Stats};
use crate::search::hash::FastBuild;
use crate::search::{Limits, Stop, RESULTS_PER_NODE};
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::Rc;
use std::time::Duration;

/// An infinite proof or disproof number: proved.
pub const INF: u32 = u32::MAX;

/// A map hashed by [`FastHasher`].
type FastMap<K, V> = HashMap<K, V, FastBuild>;

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
    /// [`Lands::children`] appended flat to `lands`, child `i` ending at
    /// `ends[i]` (an index of `lands`): a game may give them with no
    /// allocation per child, which is most of a couple's cost.
    fn children_into(&self, land: &Self::Land, lands: &mut Vec<Self::Land>, ends: &mut Vec<u32>) {
        for c in self.children(land) {
            lands.extend(c);
            ends.push(lands.len() as u32);
        }
    }
    /// [`Lands::children_into`], asking `stop` every so often (with the
    /// results made so far and about the bytes they hold) whether to give
    /// up; returns `false` if it did (`lands` and `ends` then hold a part).
    /// A game whose lands can have very many children (Sprouts) makes them
    /// so; the default makes them all.
    fn children_until(
        &self,
        land: &Self::Land,
        lands: &mut Vec<Self::Land>,
        ends: &mut Vec<u32>,
        _stop: &mut dyn FnMut(u64, u64) -> bool,
    ) -> bool {
        self.children_into(land, lands, ends);
        true
    }
    /// The disproof number of a couple never expanded whose land has size
    /// `size` (its proof number is 1: one losing child proves a win). The
    /// larger the land, the more children must be shown to win for a loss;
    /// how much more is the game's to tune (see [`Couples`]' `fresh`).
    fn fresh_dn(&self, size: u32) -> u32 {
        1 + size
    }
    /// The land's nimber when something else knows it (a table), so that
    /// the engine never searches it.
    fn leaf(&self, _land: &Self::Land) -> Option<u32> {
        None
    }
    /// Whether a strategy shows, with no search, that the land alone is
    /// lost for the player to move (nimber 0): Cram's mirror strategy on a
    /// region symmetric under an involution that maps no domino onto one
    /// it meets. Nimber 0 is exact, so the land then adds to any sum.
    fn zero(&self, _land: &Self::Land) -> bool {
        false
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
    /// Heaps `k < 64` for which `land + *k` is proved to win (bit k): in
    /// the struct, as heaps are small, so a land costs no allocation.
    wins: u64,
    /// Heaps from 64 on (bit k - 64 of word (k - 64) / 64), rarely any.
    more_wins: Option<Box<[u64]>>,
    /// When it was last used (the engine's clock), for eviction.
    used: u32,
    /// Whether a table gave its nimber (cheap to find again).
    from_leaf: bool,
    /// Couples expanded in searches for its nimber that ran out of their
    /// budget ([`Couples::settle_in_search`]), saturating.
    effort: u32,
    /// Whether the slot holds a land (false once evicted, until reused).
    live: bool,
}

impl<T> LandInfo<T> {
    fn wins(&self, k: u32) -> bool {
        if k < 64 {
            return self.wins >> k & 1 == 1;
        }
        let k = k - 64;
        self.more_wins
            .as_ref()
            .and_then(|m| m.get((k / 64) as usize))
            .is_some_and(|w| w >> (k % 64) & 1 == 1)
    }

    fn set_win(&mut self, k: u32) {
        if k < 64 {
            self.wins |= 1 << k;
            return;
        }
        let k = k - 64;
        let i = (k / 64) as usize;
        let mut m = self.more_wins.take().map(Vec::from).unwrap_or_default();
        if m.len() <= i {
            m.resize(i + 1, 0);
        }
        m[i] |= 1 << (k % 64);
        self.more_wins = Some(m.into_boxed_slice());
    }

    /// The heaps proved to win beside this land.
    pub fn win_heaps(&self) -> impl Iterator<Item = u32> + '_ {
        let low = (0..64u32).filter(move |&b| self.wins >> b & 1 == 1);
        let high = self.more_wins.iter().flat_map(|m| {
            m.iter().enumerate().flat_map(|(i, &w)| {
                (0..64)
                    .filter(move |b| w >> b & 1 == 1)
                    .map(move |b| (64 + i * 64 + b) as u32)
            })
        });
        low.chain(high)
    }

    /// Eviction class: the higher, the longer kept.
    fn class(&self) -> u32 {
        match (self.nimber, self.from_leaf) {
            (Some(_), false) => 3,
            _ if self.wins != 0 || self.more_wins.is_some() => 2,
            (Some(_), true) => 1,
            (None, _) => 0,
        }
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

/// A child in the search's loop: [`Folded`], with a sum not yet settled
/// reduced to the numbers it starts with.
enum Lite {
    Heap(u32),
    Couple(u32, u32),
    Sum((u32, u32)),
}

/// The children of a land, in land numbers, in one allocation: child `i`
/// is `lands[ends[i - 1]..ends[i]]` (its lands, in the game's order).
pub struct KidList {
    lands: Box<[u32]>,
    ends: Box<[u32]>,
}

impl KidList {
    /// How many children.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Child `i`'s lands.
    pub fn child(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.lands[start..self.ends[i] as usize]
    }

    /// Bytes it takes (with its map entry and allocations, about).
    fn bytes(&self) -> usize {
        4 * (self.lands.len() + self.ends.len()) + 96
    }
}

/// Children of lands kept, shared with the search frames using them.
pub type Kids = Rc<KidList>;

/// Periodic snapshots of what the engine has proved (`--save-every`): what
/// [`Couples::with_snapshots`] hands the lands known to.
type Snapshots<'a, T> =
    crate::search::Snapshots<dyn FnMut(&mut dyn Iterator<Item = &LandInfo<T>>) + 'a>;

/// The least budget, in couples, of a nimber search that settles a sum
/// inside the search ([`Couples::settle_in_search`]): most small lands'
/// nimbers take far fewer, so only the hard ones are ever cut.
const SETTLE_MIN: u64 = 4096;

/// Couples spent on a land's unfinished nimber per unit they add to the
/// numbers of a sum it is in ([`Couples::sum_numbers`]). On `sprouts:14`,
/// `15` and `16`, 16 took 141,200, 180,341 and 42,403 couples; 64 took
/// 239,165, 339,844 and 40,841; 256 took 209,878, 230,333 and 42,959.
const EFFORT_SCALE: u32 = 16;

/// Lands short of the cap at which the search evicts: more than one land's
/// children ever make.
const EVICT_MARGIN: usize = 1 << 12;

/// The engine over the lands of `L`.
pub struct Couples<'a, L: Lands> {
    game: L,
    ids: FastMap<L::Land, u32>,
    lands: Vec<LandInfo<L::Land>>,
    /// Slots of evicted lands, for reuse.
    free: Vec<u32>,
    /// Lands kept at most; past it, half are forgotten.
    lands_cap: usize,
    /// The clock of uses (ticks once per couple expanded).
    clock: u32,
    /// Lands held by number by callers up the stack (besides `frames`).
    pins: Vec<u32>,
    /// The lands and children of the couples being expanded, outermost
    /// first: what the search holds by number.
    frames: Vec<(u32, Kids)>,
    /// Lands forgotten so far.
    evicted: u64,
    /// The children's lands as the game gives them (a buffer reused).
    found: Vec<L::Land>,
    /// Proof and disproof numbers of couples in progress, by
    /// `land << 32 | heap`.
    tt: FastMap<u64, (u32, u32)>,
    tt_cap: usize,
    /// Children of lands, while memory allows.
    kids: BoundedCache<u32, Kids>,
    epsilon: f64,
    limits: Limits,
    nodes: u64,
    depth: u64,
    deepest: u64,
    progress: Option<ProgressFn<'a>>,
    /// The numbers of the outermost couple being proved, for the progress
    /// line.
    root: (u32, u32),
    snapshots: Option<Snapshots<'a, L::Land>>,
    /// Lands answered by [`Lands::leaf`].
    leaf_hits: u64,
    /// Lands answered by [`Lands::zero`].
    zero_hits: u64,
    /// The couples count at which the innermost nimber search settling a
    /// sum runs out of budget (`u64::MAX`: none).
    budget_end: u64,
    /// The least budget of such a search, in couples.
    settle_min: u64,
    /// Searches for a nimber that ran out of their budget.
    settles_cut: u64,
}

impl<'a, L: Lands> Couples<'a, L> {
    /// An engine over `game`'s lands with `options`' memory and limits.
    pub fn with_lands(game: L, options: &Options) -> Couples<'a, L> {
        // The budget's shares: couples in progress an eighth (a key and
        // numbers, and the map's slack: 40 bytes), children kept an eighth,
        // lands half; the rest is slack for the allocator, the game's own
        // tables and caches, and the path.
        let tt_cap = (options.memory / 8 / 40).max(1 << 12) as usize;
        let lands_cap = Self::lands_cap(options.memory / 2);
        Couples {
            game,
            // Both at their full size from the start, so that they never
            // grow by doubling past the budget.
            ids: FastMap::with_capacity_and_hasher(lands_cap, Default::default()),
            lands: Vec::with_capacity(lands_cap),
            free: Vec::new(),
            lands_cap,
            clock: 0,
            pins: Vec::new(),
            frames: Vec::new(),
            evicted: 0,
            found: Vec::new(),
            tt: FastMap::default(),
            tt_cap,
            kids: BoundedCache::new((options.memory / 8).max(1 << 20) as usize),
            epsilon: options.dfpn.epsilon,
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
            root: (1, 1),
            snapshots: None,
            leaf_hits: 0,
            zero_hits: 0,
            budget_end: u64::MAX,
            settle_min: SETTLE_MIN,
            settles_cut: 0,
        }
    }

    /// How many lands fit in `bytes`: a slot of the list and a bucket of
    /// the map (its key, number and control byte) per land, the map's
    /// buckets a power of two of which 7/8 are used.
    fn lands_cap(bytes: u64) -> usize {
        let slot = std::mem::size_of::<LandInfo<L::Land>>() as u64;
        let bucket = std::mem::size_of::<(L::Land, u32)>() as u64 + 1;
        // The largest power of two of buckets whose lands fit.
        let mut buckets: u64 = 1 << 10;
        while (buckets * 2) * bucket + (buckets * 2) * 7 / 8 * slot <= bytes {
            buckets *= 2;
        }
        (buckets * 7 / 8) as usize
    }

    /// The game whose lands these are.
    pub fn game(&self) -> &L {
        &self.game
    }

    /// Sets the least budget of a nimber search settling a sum inside the
    /// search (couples; the default is 4,096): a tiny one makes every
    /// such search run out and be put off again and again, which the tests
    /// use to show the values never depend on it.
    pub fn with_settle_min(mut self, couples: u64) -> Self {
        self.settle_min = couples.max(1);
        self
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&Stats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Hands every land known ([`Couples::lands`]) to `save` about every
    /// `every` while the search runs (checked every 1,024 couples): so
    /// that a run of days that dies (a crash, a kill, the machine going
    /// down) leaves what it had proved at its last snapshot to resume from.
    pub fn with_snapshots(
        mut self,
        every: Duration,
        save: impl FnMut(&mut dyn Iterator<Item = &LandInfo<L::Land>>) + 'a,
    ) -> Self {
        self.snapshots = Some(Snapshots::new(every, Box::new(save)));
        self
    }

    /// The land's number, interned (with its nimber when a leaf knows it).
    /// A number stays the land's while the search holds it (the engine's
    /// own frames and pins); a caller outside the engine holds one only
    /// until its next search call.
    pub fn id(&mut self, land: &L::Land) -> u32 {
        if let Some(&i) = self.ids.get(land) {
            self.lands[i as usize].used = self.clock;
            return i;
        }
        // The strategy first: a few bit operations, where a table is a
        // lookup in a file.
        let nimber = match self.game.zero(land) {
            true => {
                self.zero_hits += 1;
                Some(0)
            }
            false => {
                let n = self.game.leaf(land);
                self.leaf_hits += u64::from(n.is_some());
                n
            }
        };
        let info = LandInfo {
            land: land.clone(),
            size: self.game.size(land),
            nimber,
            wins: 0,
            more_wins: None,
            used: self.clock,
            from_leaf: nimber.is_some(),
            effort: 0,
            live: true,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.lands[i as usize] = info;
                i
            }
            None => {
                self.lands.push(info);
                (self.lands.len() - 1) as u32
            }
        };
        self.ids.insert(land.clone(), i);
        i
    }

    /// Runs `make`, a game's child generation outside the search (a proof
    /// database's check), with a poll that gives up when the search's
    /// limits say (see [`Lands::children_until`]).
    pub fn generating<T>(&mut self, make: impl FnOnce(&mut dyn FnMut(u64, u64) -> bool) -> T) -> T {
        let (limits, nodes) = (&mut self.limits, self.nodes);
        make(&mut |results, bytes| limits.generation_stops(nodes, results, bytes))
    }

    /// Lands forgotten to stay within the memory (met again, they are new).
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// Searches for the nimber of a land in a sum that ran out of their
    /// budget and were put off (see [`Couples::settle_in_search`]).
    pub fn settles_cut(&self) -> u64 {
        self.settles_cut
    }

    /// Lands whose nimber [`Lands::zero`] gave (met anew after being
    /// forgotten, a land counts again).
    pub fn zero_hits(&self) -> u64 {
        self.zero_hits
    }

    /// Lands known now.
    pub fn lands_known(&self) -> usize {
        self.ids.len()
    }

    /// Lands short of the cap at which to evict.
    fn margin(&self) -> usize {
        EVICT_MARGIN.min(self.lands_cap / 4)
    }

    /// Evicts, if full, from outside a search (no number is held then).
    fn evict_outside(&mut self) {
        if self.frames.is_empty()
            && self.pins.is_empty()
            && self.ids.len() + self.margin() >= self.lands_cap
        {
            self.evict();
        }
    }

    /// Past the lands' share: keeps about half, by class then by last use,
    /// and every land the search holds; forgets the rest with their
    /// couples in progress and the children kept that name them. Called
    /// only where every number the search holds is in `pins` or `frames`.
    fn evict(&mut self) {
        let mut pinned = vec![false; self.lands.len()];
        for &i in &self.pins {
            pinned[i as usize] = true;
        }
        for (l, kids) in &self.frames {
            pinned[*l as usize] = true;
            for &i in kids.lands.iter() {
                pinned[i as usize] = true;
            }
        }
        // The threshold by a histogram of (class, age bucket): no copy of
        // the lands is sorted.
        let oldest = self
            .lands
            .iter()
            .filter(|i| i.live)
            .map(|i| i.used)
            .min()
            .unwrap_or(0);
        let span = u64::from(self.clock - oldest) + 1;
        const AGES: u64 = 1024;
        let bucket = |info: &LandInfo<L::Land>| -> usize {
            let age = u64::from(info.used - oldest) * AGES / span;
            (u64::from(info.class()) * AGES + age) as usize
        };
        let mut hist = vec![0usize; 4 * AGES as usize];
        for (i, info) in self.lands.iter().enumerate() {
            if info.live && !pinned[i] {
                hist[bucket(info)] += 1;
            }
        }
        // Keep the best buckets up to half the cap (pinned lands on top).
        let held = pinned.iter().filter(|&&p| p).count();
        let budget = (self.lands_cap / 2).saturating_sub(held);
        let mut kept = 0usize;
        let mut cut = hist.len();
        while cut > 0 && kept + hist[cut - 1] <= budget {
            cut -= 1;
            kept += hist[cut];
        }
        self.ids.clear();
        for (i, info) in self.lands.iter_mut().enumerate() {
            if !info.live {
                continue;
            }
            if pinned[i] || bucket(info) >= cut {
                self.ids.insert(info.land.clone(), i as u32);
            } else {
                info.live = false;
                info.nimber = None;
                info.wins = 0;
                info.more_wins = None;
                self.free.push(i as u32);
                self.evicted += 1;
            }
        }
        let lands = &self.lands;
        self.tt.retain(|&key, _| lands[(key >> 32) as usize].live);
        // Children kept name lands by number: only those all of whose
        // lands stay are kept.
        self.kids.retain(
            |&l, kids| lands[l as usize].live && kids.lands.iter().all(|&i| lands[i as usize].live),
            |kids| kids.bytes(),
        );
    }

    /// The land's number, if the engine has met it.
    pub fn find(&self, land: &L::Land) -> Option<u32> {
        self.ids.get(land).copied()
    }

    /// What the engine knows of land number `i`.
    pub fn info(&self, i: u32) -> &LandInfo<L::Land> {
        &self.lands[i as usize]
    }

    /// Every land known (met and not forgotten).
    pub fn lands(&self) -> impl Iterator<Item = &LandInfo<L::Land>> + '_ {
        self.lands.iter().filter(|i| i.live)
    }

    /// Records that `land + *k` loses (the land's nimber is k).
    pub fn add_loss(&mut self, land: &L::Land, k: u32) {
        self.evict_outside();
        let i = self.id(land);
        self.lands[i as usize].nimber = Some(k);
    }

    /// Records that `land + *k` wins.
    pub fn add_win(&mut self, land: &L::Land, k: u32) {
        self.evict_outside();
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
            root_pn: self.root.0,
            root_dn: self.root.1,
            target: 1,
            elapsed: self.limits.elapsed(),
            deepest: self.deepest,
            ..Stats::default()
        }
    }

    /// Lands with a known nimber.
    pub fn nimbers_known(&self) -> usize {
        self.lands().filter(|l| l.nimber.is_some()).count()
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
        self.pins.push(i);
        let n = self.land_nimber_pinned(i);
        self.pins.pop();
        n
    }

    fn land_nimber_pinned(&mut self, i: u32) -> Option<u32> {
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
        self.pins.push(l);
        self.mid(l, k, INF - 1, INF - 1);
        self.pins.pop();
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

    /// The lands `ids` and heap `k` with every known nimber folded in, and
    /// equal lands of unknown nimber cancelled in pairs (`G + G` is a loss
    /// for the mover, who is answered by the same move in the other copy,
    /// so the pair adds nimber 0 to any sum).
    pub fn fold(&self, ids: &[u32], k: u32) -> Folded {
        let mut x = k;
        let mut left: Vec<u32> = Vec::new();
        for &i in ids {
            match self.lands[i as usize].nimber {
                Some(n) => x ^= n,
                None => left.push(i),
            }
        }
        left.sort_unstable();
        let mut kept = 0;
        let mut j = 0;
        while j < left.len() {
            if j + 1 < left.len() && left[j] == left[j + 1] {
                j += 2;
            } else {
                left[kept] = left[j];
                kept += 1;
                j += 1;
            }
        }
        left.truncate(kept);
        match left.len() {
            0 => Folded::Heap(x),
            1 => Folded::Couple(left[0], x),
            _ => Folded::Sum(left, x),
        }
    }

    /// [`Couples::fold`] for the search's loop, with no allocation (but
    /// for sums of more than 8 distinct lands of unknown nimber, which
    /// [`Couples::fold`] takes): a sum of several lands of unknown nimber
    /// comes back as the numbers it starts with ([`Couples::sum_numbers`]).
    fn fold_lite(&self, ids: &[u32], k: u32) -> Lite {
        const KEEP: usize = 8;
        let mut x = k;
        let mut left = [0u32; KEEP];
        let mut n = 0;
        for &i in ids {
            match self.lands[i as usize].nimber {
                Some(v) => x ^= v,
                None => match left[..n].iter().position(|&j| j == i) {
                    Some(at) => {
                        // A pair cancels.
                        left[at] = left[n - 1];
                        n -= 1;
                    }
                    None if n < KEEP => {
                        left[n] = i;
                        n += 1;
                    }
                    None => {
                        return match self.fold(ids, k) {
                            Folded::Sum(left, _) => Lite::Sum(self.sum_numbers(&left)),
                            Folded::Heap(x) => Lite::Heap(x),
                            Folded::Couple(l, x) => Lite::Couple(l, x),
                        }
                    }
                },
            }
        }
        match n {
            0 => Lite::Heap(x),
            1 => Lite::Couple(left[0], x),
            _ => Lite::Sum(self.sum_numbers(&left[..n])),
        }
    }

    /// The numbers of a sum not yet settled, whose lands of unknown
    /// nimber are `unknown`: settling it proves the nimber of each but the
    /// largest, so each of those adds what a couple of its own would start
    /// with to both numbers, and the couple left is one of the largest.
    /// Were a sum as cheap as one move (1, 1), a couple with one would look
    /// a move from proved, and the search would settle every sum first.
    fn sum_numbers(&self, unknown: &[u32]) -> (u32, u32) {
        let size = |i: u32| self.lands[i as usize].size;
        let big = unknown.iter().map(|&i| size(i)).max().unwrap_or(0);
        let all: u32 = unknown.iter().map(|&i| self.game.fresh_dn(size(i))).sum();
        let big_dn = self.game.fresh_dn(big);
        let effort: u32 = unknown
            .iter()
            .map(|&i| self.lands[i as usize].effort / EFFORT_SCALE)
            .fold(0u32, |a, b| a.saturating_add(b));
        let cost = (all - big_dn).saturating_add(effort).min(INF / 4);
        (1 + cost, big_dn + cost)
    }

    /// The sum folded, then settled to at most one land: the nimbers of
    /// all its lands of unknown nimber but the largest are computed.
    fn settle(&mut self, ids: &[u32], k: u32) -> Option<Folded> {
        self.settle_within(ids, k, false)
    }

    /// [`Couples::settle`] from inside the search, each nimber within a
    /// budget of couples: twice what the land's earlier attempts took (at
    /// least a minimum), so that a hard nimber of a small land never holds
    /// the search unbounded, and all attempts together cost at most about
    /// twice the last. A nimber not found adds the couples spent to the
    /// land's `effort`, which the sum's numbers then carry
    /// ([`Couples::sum_numbers`]): the search turns to other children and
    /// comes back with a budget twice as large. `None` when a budget or
    /// the search's limits ran out.
    fn settle_in_search(&mut self, ids: &[u32], k: u32) -> Option<Folded> {
        self.settle_within(ids, k, true)
    }

    /// [`Couples::settle`], each nimber within a budget if `budgeted`.
    fn settle_within(&mut self, ids: &[u32], k: u32, budgeted: bool) -> Option<Folded> {
        match self.fold(ids, k) {
            Folded::Sum(mut left, mut x) => {
                left.sort_by_key(|&i| (self.lands[i as usize].size, i));
                let big = left.pop().expect("two lands");
                // The lands are held across searches: pinned.
                let pins = self.pins.len();
                self.pins.push(big);
                self.pins.extend_from_slice(&left);
                let mut settled = Some(());
                for i in left {
                    let outer = self.budget_end;
                    if budgeted {
                        let effort = u64::from(self.lands[i as usize].effort);
                        self.budget_end = outer.min(self.nodes + (2 * effort).max(self.settle_min));
                    }
                    let before = self.nodes;
                    let n = self.land_nimber(i);
                    self.budget_end = outer;
                    match n {
                        Some(n) => x ^= n,
                        None => {
                            if budgeted {
                                // Pinned, so still this land.
                                let spent = u32::try_from(self.nodes - before).unwrap_or(u32::MAX);
                                let info = &mut self.lands[i as usize];
                                info.effort = info.effort.saturating_add(spent);
                                self.settles_cut += 1;
                            }
                            settled = None;
                            break;
                        }
                    }
                }
                self.pins.truncate(pins);
                settled?;
                Some(self.fold(&[big], x))
            }
            f => Some(f),
        }
    }

    /// Whether the innermost budget of [`Couples::settle_in_search`] is
    /// spent.
    fn over_budget(&self) -> bool {
        self.nodes >= self.budget_end
    }

    /// The children of land number `l`, as land numbers (`None` if the
    /// search's limits stopped their making).
    pub fn children(&mut self, l: u32) -> Option<Kids> {
        if let Some(k) = self.kids.get(&l) {
            return Some(k.clone());
        }
        let mut found = std::mem::take(&mut self.found);
        let mut ends = Vec::new();
        found.clear();
        let (limits, nodes) = (&mut self.limits, self.nodes);
        let mut made = 0;
        let done = self.game.children_until(
            &self.lands[l as usize].land,
            &mut found,
            &mut ends,
            &mut |results, bytes| {
                made = results;
                limits.generation_stops(nodes, results, bytes)
            },
        );
        if !done {
            found.clear();
            self.found = found;
            return None;
        }
        // Work past a node's worth counts against the node budget.
        self.nodes += made / RESULTS_PER_NODE;
        let lands: Box<[u32]> = found.iter().map(|land| self.id(land)).collect();
        self.found = found;
        let kids = Rc::new(KidList {
            lands,
            ends: ends.into_boxed_slice(),
        });
        self.kids.insert(l, kids.clone(), kids.bytes());
        Some(kids)
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
                .unwrap_or_else(|| self.fresh(l)),
        }
    }

    /// The numbers of a couple never expanded: one child to prove a win
    /// (a move to a loss), and as many as the land is large to prove a
    /// loss (every move must be shown to win), as df-pn+'s initial numbers
    /// do with a move count ([`Lands::fresh_dn`]; the default, `1 + size`,
    /// is Cram's: on 5×8 it takes 860,516 couples down to 556,512, 5×7:
    /// 312,695 to 213,970, and did better there than half or twice the
    /// size, or adding the heap).
    fn fresh(&self, l: u32) -> (u32, u32) {
        (1, self.game.fresh_dn(self.lands[l as usize].size))
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
        if !self.limits.may_expand(self.nodes) || self.over_budget() {
            return;
        }
        self.nodes += 1;
        if self.nodes & 0x3ff == 0 {
            if self.limits.check() {
                let s = self.stats();
                if let Some(f) = self.progress.as_mut() {
                    f(&s);
                }
            }
            if let Some(snap) = self.snapshots.as_mut() {
                snap.when_due(|save| save(&mut self.lands.iter().filter(|i| i.live)));
            }
        }
        self.clock = self.clock.saturating_add(1);
        self.lands[l as usize].used = self.clock;
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let Some(kids) = self.children(l) else {
            // Stopped while making them.
            self.depth -= 1;
            return;
        };
        self.frames.push((l, kids.clone()));
        // Here every number the search holds is in a frame or pinned. The
        // margin leaves room for the lands of the next children found,
        // so that the list never grows past its capacity.
        if self.ids.len() + self.margin() >= self.lands_cap {
            self.evict();
        }
        self.expand(l, k, th_pn, th_dn, &kids);
        self.frames.pop();
        self.depth -= 1;
    }

    /// The body of [`Couples::mid`]: the children's numbers, the best
    /// child searched, until proved or past a threshold.
    fn expand(&mut self, l: u32, k: u32, th_pn: u32, th_dn: u32, kids: &KidList) {
        // Each child: a smaller heap (couple l, j) or a move in the land.
        let n = k as usize + kids.len();
        loop {
            if self.limits.stop().is_some() {
                // Stopped below: up at once, without a pass over the
                // children's numbers at every level.
                return;
            }
            let mut sum: u64 = 0;
            let mut best: Option<(usize, u32, u32)> = None;
            let mut dn2 = INF;
            for c in 0..n {
                let (pn, dn) = if c < k as usize {
                    self.numbers(l, c as u32)
                } else {
                    match self.fold_lite(kids.child(c - k as usize), k) {
                        Lite::Heap(0) => (INF, 0),
                        Lite::Heap(_) => (0, INF),
                        Lite::Couple(l2, k2) => self.numbers(l2, k2),
                        Lite::Sum(numbers) => numbers,
                    }
                };
                if dn == 0 {
                    // A child that loses: this couple wins.
                    self.record(l, k, true);
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
                return;
            }
            let (c, cpn, cdn) = best.expect("a land has moves");
            let pn = cdn;
            let dn = sum.min(u64::from(INF - 1)) as u32;
            if self.depth == 1 {
                self.root = (pn, dn);
            }
            if pn >= th_pn || dn >= th_dn || self.limits.stop().is_some() || self.over_budget() {
                self.store(l, k, pn, dn);
                return;
            }
            let c_th_pn =
                (u64::from(th_dn) - u64::from(dn) + u64::from(cpn)).min(u64::from(INF - 1)) as u32;
            let widened = (f64::from(dn2) * (1.0 + self.epsilon)).ceil() as u64 + 1;
            let c_th_dn = widened.min(u64::from(th_pn)).min(u64::from(INF - 1)) as u32;
            if c < k as usize {
                self.mid(l, c as u32, c_th_pn, c_th_dn);
            } else {
                match self.fold_lite(kids.child(c - k as usize), k) {
                    Lite::Couple(l2, k2) => self.mid(l2, k2, c_th_pn, c_th_dn),
                    Lite::Sum(_) => {
                        // Settle it to one land, within a budget.
                        if self
                            .settle_in_search(kids.child(c - k as usize), k)
                            .is_none()
                            && (self.limits.stop().is_some() || self.over_budget())
                        {
                            self.store(l, k, pn, dn);
                            return;
                        }
                        // Settled, or its numbers now carry the effort
                        // spent: choose again.
                    }
                    Lite::Heap(_) => unreachable!("a heap child is proved"),
                }
            }
        }
    }
}
