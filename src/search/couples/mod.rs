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
//! few are ever searched); when they fill their share the engine forgets
//! about half of them, which loses only time, never a value (`evict.rs`
//! tells which). A child of several lands of unknown nimber is settled,
//! when the search goes into it, to a couple by computing the nimbers of
//! all its lands but the largest, each within a budget (`sums.rs`).
//!
//! The engine names no game: a game gives its lands through [`Lands`]
//! (Sprouts' lands in Glop's canonical form, `search::games::sprouts`;
//! Cram's regions by their region keys, `search::games::cram`).
//!
//! The parts: this file holds what the engine knows of each land and its
//! interning; `search.rs` the df-pn over couples; `sums.rs` the folding of
//! known nimbers into a sum and the settling of a sum to one couple;
//! `evict.rs` what is forgotten when the lands fill their share.

mod evict;
mod search;
pub mod shrink;
mod sums;

use crate::search::bounded::BoundedCache;
use crate::search::engine::{Options, ProgressFn, Stats};
use crate::search::hash::FastBuild;
use crate::search::{Limits, Stop};
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::time::Duration;

/// An infinite proof or disproof number: proved.
pub const INF: u32 = u32::MAX;

/// One df-pn+ step over a node's children (each child's numbers from its
/// own mover's side): gathered one child at a time, it gives the node's
/// numbers and the child to search next with its thresholds. Shared by the
/// engine of sums and misère Sprouts' engine, which differ only in what
/// their children are.
pub(crate) struct Pick {
    /// The children's proof numbers, summed: the node's disproof number.
    sum: u64,
    /// The child with the smallest disproof number (ties: smaller proof
    /// number), and its numbers.
    best: Option<(usize, u32, u32)>,
    /// The second smallest disproof number.
    dn2: u32,
}

impl Pick {
    pub(crate) fn new() -> Pick {
        Pick {
            sum: 0,
            best: None,
            dn2: INF,
        }
    }

    /// Child `c`'s numbers.
    #[inline]
    pub(crate) fn add(&mut self, c: usize, pn: u32, dn: u32) {
        self.sum = self.sum.saturating_add(u64::from(pn));
        match self.best {
            Some((_, bpn, bdn)) if (dn, pn) >= (bdn, bpn) => self.dn2 = self.dn2.min(dn),
            _ => {
                if let Some((_, _, bdn)) = self.best {
                    self.dn2 = self.dn2.min(bdn);
                }
                self.best = Some((c, pn, dn));
            }
        }
    }

    /// Every child wins: the node loses.
    pub(crate) fn all_win(&self) -> bool {
        self.sum == 0
    }

    /// The child the engine would search (none before any child).
    pub(crate) fn best(&self) -> Option<usize> {
        self.best.map(|(c, _, _)| c)
    }

    /// The node's proof and disproof numbers.
    pub(crate) fn numbers(&self) -> (u32, u32) {
        let cdn = self.best.map_or(INF, |(_, _, dn)| dn);
        (cdn, self.sum.min(u64::from(INF - 1)) as u32)
    }

    /// The child to search under the node's thresholds `th_pn`, `th_dn`,
    /// with its thresholds: the best child, given until its disproof number
    /// passes the second best's by the 1+ε margin, or `steered` (a child and
    /// its numbers a viewer asked for), searched as long as the node's δ
    /// allows and until its own δ has grown by that margin at least (it may
    /// already be past the φ threshold).
    pub(crate) fn child(
        &self,
        th_pn: u32,
        th_dn: u32,
        epsilon: f64,
        steered: Option<(usize, u32, u32)>,
    ) -> (usize, u32, u32) {
        let (c, cpn, _) = self.best.expect("a node with children");
        let (_, dn) = self.numbers();
        let cap = |t: u64| t.min(u64::from(INF - 1)) as u32;
        let margin = |dn: u32| (f64::from(dn) * (1.0 + epsilon)).ceil() as u64 + 1;
        let (c, cpn, c_th_dn) = match steered {
            Some((s, spn, sdn)) => (s, spn, cap(margin(sdn).max(u64::from(th_pn)))),
            None => (c, cpn, cap(margin(self.dn2).min(u64::from(th_pn)))),
        };
        let c_th_pn = cap(u64::from(th_dn) - u64::from(dn) + u64::from(cpn));
        (c, c_th_pn, c_th_dn)
    }
}

/// When watched: records a level of the computing branch at `depth`
/// (position `id`, whose children's numbers are `seen`, the engine's choice
/// `mine`) and returns the child a steering request asks for instead, with
/// its numbers. Any child order proves the same: a node is settled only by
/// its children's proofs.
pub(crate) fn steer(
    w: &mut crate::search::watch::Watcher,
    depth: usize,
    id: u64,
    seen: &[(u32, u32)],
    mine: usize,
) -> Option<(usize, u32, u32)> {
    let unknown = seen.iter().filter(|&&(pn, _)| pn != 0).count();
    let c = w.choose(depth, id, seen.len(), unknown, mine, |i| {
        seen.get(i).is_some_and(|&(pn, dn)| pn != 0 && dn != 0)
    });
    (c != mine).then(|| (c, seen[c].0, seen[c].1))
}

/// A map hashed by [`FastHasher`].
type FastMap<K, V> = HashMap<K, V, FastBuild>;

/// The lands' numbers, found by hashing the land where the engine's list
/// keeps it: a map from land to number would hold every land twice (its
/// key and its slot), the larger part of a land's memory.
struct Index {
    table: hashbrown::HashTable<u32>,
    build: FastBuild,
}

impl Index {
    fn new() -> Index {
        Index {
            table: hashbrown::HashTable::new(),
            build: FastBuild::default(),
        }
    }

    fn get<T: Eq + Hash>(&self, lands: &[LandInfo<T>], land: &T) -> Option<u32> {
        let hash = self.build.hash_one(land);
        self.table
            .find(hash, |&i| lands[i as usize].land == *land)
            .copied()
    }

    /// Adds number `i`, whose land is `lands[i]` and not in the index.
    fn insert<T: Eq + Hash>(&mut self, lands: &[LandInfo<T>], i: u32) {
        let build = &self.build;
        let hash = build.hash_one(&lands[i as usize].land);
        self.table
            .insert_unique(hash, i, |&j| build.hash_one(&lands[j as usize].land));
    }

    fn len(&self) -> usize {
        self.table.len()
    }

    fn clear(&mut self) {
        self.table.clear();
    }
}

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
    /// Whether a land met as a child is interned at once, with what
    /// [`Lands::leaf`] and [`Lands::zero`] tell of it, rather than when the
    /// search goes into it. A game whose lands a table or a strategy often
    /// answers (Cram) interns them, so that a child answered is never
    /// searched; one with no such answers (Sprouts) keeps them as they are
    /// in the lists of children, most of them never searched.
    fn intern_children(&self) -> bool {
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
    /// The couple `land + *heap` written for a person (the computing
    /// branch, [`crate::search::watch`]), in the game's notation.
    fn text(&self, _land: &Self::Land, heap: u32) -> String {
        format!("(a land) +*{heap}")
    }
    /// The sum of `lands` and `*heap` written for a person (a child on the
    /// computing branch): the lands' texts joined by `+`.
    fn sum_text(&self, lands: &[&Self::Land], heap: u32) -> String {
        let mut parts: Vec<String> = lands.iter().map(|l| self.text(l, 0)).collect();
        if heap > 0 || parts.is_empty() {
            parts.push(format!("*{heap}"));
        }
        parts.join(" + ")
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
    /// Heaps from 64 on (bit k - 64 of word (k - 64) / 64), rarely any:
    /// behind one thin pointer, as every land carries the field.
    // A box of a vector is one pointer where a vector is three.
    #[allow(clippy::box_collection)]
    more_wins: Option<Box<Vec<u64>>>,
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
        let mut m = self.more_wins.take().map(|m| *m).unwrap_or_default();
        if m.len() <= i {
            m.resize(i + 1, 0);
        }
        m[i] |= 1 << (k % 64);
        self.more_wins = Some(Box::new(m));
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

/// A land of a list of children not interned (yet): it has no number.
pub(crate) const NONE: u32 = u32::MAX;

/// The children of a land in one allocation: child `i` is
/// `lands[ends[i - 1]..ends[i]]` (its lands, in the game's order), each
/// land kept as itself with its number while the engine knows it
/// ([`NONE`] until then). A land is interned (a slot, an index bucket)
/// only when the search goes into a child of it or something is proved of
/// it: most lands met as children never are (on `sprouts:14`, 566,258 of
/// 612,016 when every child's lands were interned), and a list the cache
/// drops takes its lands with it. A land met anew looks up its number when
/// the list is fetched ([`Couples::children`]); one interned since, while
/// the list was in use, looks fresh until the search chooses it, which
/// finds its number: only the order of the search can change, never a
/// value.
pub struct KidList<T> {
    lands: Box<[T]>,
    ids: Box<[Cell<u32>]>,
    ends: Box<[u32]>,
}

impl<T> KidList<T> {
    /// How many children.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Where child `i`'s lands are.
    fn span(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        start..self.ends[i] as usize
    }

    /// Child `i`'s lands.
    pub fn child(&self, i: usize) -> &[T] {
        &self.lands[self.span(i)]
    }

    /// Child `i`'s lands' numbers ([`NONE`]: not interned).
    fn child_ids(&self, i: usize) -> &[Cell<u32>] {
        &self.ids[self.span(i)]
    }

    /// Bytes it takes (with its map entry and allocations, about; a land
    /// too large to be held in place counts only its place).
    fn bytes(&self) -> usize {
        (std::mem::size_of::<T>() + 4) * self.lands.len() + 4 * self.ends.len() + 96
    }
}

/// Children of lands kept, shared with the search frames using them.
pub type Kids<T> = Rc<KidList<T>>;

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
    ids: Index,
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
    frames: Vec<(u32, Kids<L::Land>)>,
    /// Lands forgotten so far.
    evicted: u64,
    /// The children's lands as the game gives them (a buffer reused).
    found: Vec<L::Land>,
    /// Proof and disproof numbers of couples in progress, by
    /// `land << 32 | heap`.
    tt: FastMap<u64, (u32, u32)>,
    tt_cap: usize,
    /// Children of lands, while memory allows.
    kids: BoundedCache<u32, Kids<L::Land>>,
    /// Where [`Couples::fold_lite`] gathers a child's lands of unknown
    /// nimber (reused: no allocation per child).
    unknown: Vec<usize>,
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
    /// The computing branch shown and steered, when watched.
    watch: Option<crate::search::watch::Watcher>,
    /// The children's numbers of the level choosing, when watched.
    seen: Vec<(u32, u32)>,
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
            // The map grows as lands come: made at its full size, its
            // buckets would be touched at random by the first few thousand
            // lands, a page each, so a small search would be as resident
            // as a large one (55 MB for `sprouts:8` under the default 1G).
            // `lands_cap` leaves room for its last doubling. The list is
            // filled in order, so reserving it costs only what is used.
            ids: Index::new(),
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
            watch: options
                .watch
                .clone()
                .map(crate::search::watch::Watcher::new),
            seen: Vec::new(),
            unknown: Vec::new(),
        }
    }

    /// How many lands fit in `bytes`: a slot of the list and a bucket of
    /// the index (a number and a control byte) per land, the map's
    /// buckets a power of two of which 7/8 are used. The map grows by
    /// doubling, holding its old table beside the new one while it moves
    /// them, so its largest table counts half again.
    fn lands_cap(bytes: u64) -> usize {
        let slot = std::mem::size_of::<LandInfo<L::Land>>() as u64;
        let bucket = std::mem::size_of::<u32>() as u64 + 1;
        // The largest power of two of buckets whose lands fit.
        let mut buckets: u64 = 1 << 10;
        while (buckets * 2) * bucket * 3 / 2 + (buckets * 2) * 7 / 8 * slot <= bytes {
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
        if let Some(i) = self.ids.get(&self.lands, land) {
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
        self.ids.insert(&self.lands, i);
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

    /// The land's number, if the engine has met it.
    pub fn find(&self, land: &L::Land) -> Option<u32> {
        self.ids.get(&self.lands, land)
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

    /// Records that the sum of `lands` and `*k` wins (or loses), as another
    /// engine proved it: kept when the nimbers known fold it to one land of
    /// unknown nimber beside a heap, the couple this engine keeps (a sum of
    /// several unknown lands has no entry of its own).
    pub fn learn(&mut self, lands: &[L::Land], k: u32, wins: bool) {
        self.evict_outside();
        let ids: Vec<u32> = lands.iter().map(|l| self.id(l)).collect();
        if let Folded::Couple(l, x) = self.fold(&ids, k) {
            let info = &mut self.lands[l as usize];
            match wins {
                true => info.set_win(x),
                false => info.nimber = Some(x),
            }
        }
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

    /// A budget of its own for the next proofs (`nodes` more couples,
    /// `time` from now), the lands and what is proved of them kept: a
    /// stopped search unwinds its pins and budgets and keeps only numbers
    /// and proofs, so the next starts from them.
    pub fn renew(&mut self, nodes: Option<u64>, time: Option<Duration>) {
        debug_assert!(self.frames.is_empty() && self.budget_end == u64::MAX);
        self.limits.renew(self.nodes, nodes, time);
    }
}

#[cfg(test)]
mod tests {
    use super::Options;
    use crate::games::sprouts::Position;
    use crate::search::games::sprouts::normal::Normal;

    /// A Sprouts land of up to 38 bytes is held in its slot, with no
    /// allocation of its own, and a slot is 80 bytes: the lands are most
    /// of what a search keeps (612,016 on `sprouts:14`, 566,258 of them
    /// never searched), so each byte here is about 0.6 MB there.
    #[test]
    fn a_land_s_slot_stays_small() {
        use crate::games::sprouts::Land;
        assert_eq!(std::mem::size_of::<Land>(), 40);
        assert_eq!(std::mem::size_of::<super::LandInfo<Land>>(), 80);
    }

    /// Lands met only as children are not interned: on `sprouts:10` the
    /// lands known are fewer than half the distinct lands of the lists of
    /// children kept, and every number a list keeps is its land's.
    #[test]
    fn lands_met_only_as_children_are_not_interned() {
        let mut e = Normal::new(&Options::with_memory(1 << 30));
        let p = Position::parse("0*10").unwrap();
        assert_eq!(e.wins(&p), Some(true));
        let mut met = std::collections::HashSet::new();
        for (_, kids) in e.kids.iter() {
            for (land, id) in kids.lands.iter().zip(kids.ids.iter()) {
                met.insert(land.clone());
                if id.get() != super::NONE {
                    let info = e.info(id.get());
                    assert!(info.live && info.land == *land);
                }
            }
        }
        let known = e.lands_known();
        assert!(
            known > 0 && 2 * known < met.len(),
            "{known} lands known, {} met",
            met.len()
        );
    }

    /// Values and nimbers do not depend on the memory: budgets that evict
    /// lands (and reset the numbers lists of children keep) again and
    /// again, with sums settled within tiny budgets, give the outcomes of
    /// `0*n` (the first player wins exactly when n mod 6 is 3, 4 or 5) and
    /// the same nimbers as a budget that keeps everything; and every number
    /// a list of children keeps is its land's.
    #[test]
    fn values_do_not_depend_on_the_memory() {
        let positions = [
            "0*6",
            "0*4+0*5",
            "0*4.A|0*4.A+0*3",
            "0*4.AB|AB",
            "0*3.AB|0*2.AB+0*3",
        ];
        let mut nimbers = Vec::new();
        for (budget, settle) in [(1u64 << 30, 4096), (1 << 18, 4096), (1 << 18, 1)] {
            let mut e = Normal::new(&Options::with_memory(budget)).with_settle_min(settle);
            for n in 1..=9u32 {
                let p = Position::parse(&format!("0*{n}")).unwrap();
                assert_eq!(
                    e.wins(&p),
                    Some((3..=5).contains(&(n % 6))),
                    "0*{n} at {budget}"
                );
            }
            let found: Vec<Option<u32>> = positions
                .iter()
                .map(|p| e.nimber(&Position::parse(p).unwrap()))
                .collect();
            nimbers.push(found);
            for (_, kids) in e.kids.iter() {
                for (land, id) in kids.lands.iter().zip(kids.ids.iter()) {
                    if id.get() != super::NONE {
                        let info = e.info(id.get());
                        assert!(info.live && info.land == *land);
                    }
                }
            }
            if budget == 1 << 18 {
                assert!(e.evicted() > 0, "a budget that evicts");
            }
        }
        assert!(nimbers.iter().all(|n| *n == nimbers[0]), "{nimbers:?}");
        assert!(nimbers[0].iter().all(Option::is_some));
    }

    /// The lands' index grows with the lands met, not with `--memory`: made
    /// at the budget's size, it was touched a page per land at random, so
    /// `sprouts:8` under the default 1G held 55 MB where 16M gave 11.
    #[test]
    fn the_land_index_grows_with_the_lands_not_the_budget() {
        let mut e = Normal::new(&Options::with_memory(1 << 30));
        assert_eq!(e.ids.table.capacity(), 0);
        let p = Position::parse("0*6").unwrap();
        // Six spots: a loss for the player to move.
        assert_eq!(e.wins(&p), Some(false));
        let (known, cap) = (e.lands_known(), e.ids.table.capacity());
        assert!(
            known > 0 && cap < 4 * known.max(64),
            "{known} lands, room for {cap}"
        );
    }
}
