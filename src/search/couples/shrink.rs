//! Shrinking a couples proof to the few entries a check needs (Glop's
//! "check computation"): from a pool of proven couples `L + *k`, keep a
//! small set from which the checker ([`crate::search::games::sprouts::proof`]'s
//! `verify_normal`) re-proves the root with no search.
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
//! ([`Lands::zero`], [`Lands::leaf`]), and a couple known to win from an
//! entry or, with no entry, from one of its children shown lost as above
//! (the checker's one-level rule). So a win is never needed as an entry
//! but for the root (the check's answer reads the root's entry): the set
//! kept is the losses, the nimbers the proof rests on, as Glop's check
//! databases count. Knowing more never makes an entry fail, so a set's
//! validity is monotone and an entry can be dropped whenever the entries
//! that use it still pass without it.
//!
//! The shrinking: the pool is first cut to what the model accepts (a
//! closed proof); each nimber gets an estimate of its proof tree's size,
//! computed children first; a proof is then chosen from the root down,
//! largest lands first (so that every demand on a land is known before
//! its proof is chosen), each win by the child whose nimbers cost least, a
//! nimber already chosen costing nothing, and each child of a loss leaving
//! out of the nimbers the land whose nimber costs most. The choice is
//! repeated within what it kept until it keeps no less, then every entry
//! whose users pass without it is dropped, the costliest first; and all
//! that is done again with the estimates perturbed ([`ROUNDS`] times,
//! fixed seeds), the smallest result kept. Last, a local search
//! ([`Local`]) takes one to three related losses away at a time, restores
//! the entries that looked at them with the fewest nimbers of the pool,
//! drops what is no longer needed, and keeps the change unless the set
//! grew (now and then by one, to leave a valley); the smallest set met is
//! the result.

use super::Lands;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::path::Path;

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

    /// The children of `l` and of every land of theirs made and kept, so
    /// that [`Model::known`] finds them.
    fn expand(&mut self, l: u32) {
        for c in self.kids(l) {
            for m in c {
                self.kids(m);
            }
        }
    }

    fn nimber(&self, k: &Know, l: u32) -> Option<u32> {
        self.fixed[l as usize].or_else(|| k.nim.get(&l).copied())
    }

    /// What `k` says of `l + *x`: a win may be shown by an entry, or by a
    /// child whose nimbers, all known, cancel the heap (the checker's
    /// one-level rule, `wins_by_a_child`; the children of a land not
    /// expanded are not looked at).
    fn known(&self, k: &Know, l: u32, x: u32) -> Option<bool> {
        match self.nimber(k, l) {
            Some(n) => Some(n != x),
            None => (k.win.contains(&(l, x)) || self.by_child(k, l, x)).then_some(true),
        }
    }

    /// Whether a child of `l` loses beside heap `x` by what `k` knows.
    fn by_child(&self, k: &Know, l: u32, x: u32) -> bool {
        self.kids[l as usize]
            .as_ref()
            .is_some_and(|kids| kids.iter().any(|c| self.sum_loses(k, c, x)))
    }

    /// Whether the root, the sum `c + *x`, is settled by `k` as the check's
    /// answer reads it: by entries and nimbers alone, no child looked at
    /// (so a root that wins keeps its entry).
    fn root_settled(&self, k: &Know, c: &[u32], x: u32) -> bool {
        if self.sum_loses(k, c, x) {
            return true;
        }
        match self.fold_known(k, c, x) {
            Some((None, x)) => x != 0,
            Some((Some(m), x)) => k.win.contains(&(m, x)),
            None => false,
        }
    }

    /// The sum `c + *x` with the nimbers `k` knows folded into the heap:
    /// the one land left unknown (if any) and the heap, or `None` when two
    /// or more are unknown.
    fn fold_known(&self, k: &Know, c: &[u32], x: u32) -> Option<(Option<u32>, u32)> {
        let mut unknown = None;
        let mut x = x;
        for &m in c {
            match self.nimber(k, m) {
                Some(n) => x ^= n,
                None if unknown.is_none() => unknown = Some(m),
                None => return None,
            }
        }
        Some((unknown, x))
    }

    /// Whether the sum `c + *x` is settled as a win by `k` (a loss's
    /// child, or a winning root).
    fn sum_wins(&self, k: &Know, c: &[u32], x: u32) -> bool {
        match self.fold_known(k, c, x) {
            Some((None, x)) => x != 0,
            Some((Some(m), x)) => self.known(k, m, x) == Some(true),
            None => false,
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
    /// The seed of the estimates' noise (0: none).
    seed: u64,
}

impl<L: Lands> Chooser<'_, '_, L> {
    fn cost(&self, n: Need) -> f64 {
        self.priced(n, &|l| self.cost(Need::Nimber(l)))
    }

    /// The cost of need `n`, a nimber's from the estimates, a win's the
    /// least of its entry's, its land's nimber's, and its cheapest child's
    /// nimbers' (under `nimber`).
    fn priced(&self, n: Need, nimber: &dyn Fn(u32) -> f64) -> f64 {
        match n {
            Need::Nimber(l) if self.m.fixed[l as usize].is_some() => 0.0,
            Need::Nimber(_) => self.est.get(&n).copied().unwrap_or(f64::INFINITY),
            Need::Win(l, x) => match self.m.fixed[l as usize] {
                Some(f) => {
                    if f != x {
                        0.0
                    } else {
                        f64::INFINITY
                    }
                }
                None => {
                    let mut c = self.est.get(&n).copied().unwrap_or(f64::INFINITY);
                    if self.know.nim.get(&l).is_some_and(|&v| v != x) {
                        c = c.min(nimber(l));
                    }
                    c.min(self.by_child_cost(l, x, nimber))
                }
            },
        }
    }

    /// The least cost (under `nimber`) of the nimbers of a child of `l`
    /// that loses beside heap `x`.
    fn by_child_cost(&self, l: u32, x: u32, nimber: &dyn Fn(u32) -> f64) -> f64 {
        let Some(kids) = self.m.kids[l as usize].as_ref() else {
            return f64::INFINITY;
        };
        kids.iter()
            .filter(|c| self.m.sum_loses(&self.know, c, x))
            .map(|c| c.iter().map(|&o| nimber(o)).sum::<f64>())
            .fold(f64::INFINITY, f64::min)
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
            if !ok || self.m.known(&self.know, m, y) != Some(true) {
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

    /// Estimates every need the closed set holds, smallest lands first
    /// (a win not kept as an entry is priced by its child when asked,
    /// [`Chooser::priced`]).
    fn estimate(&mut self, set: &[(u32, u32, bool)]) {
        let mut order: Vec<(u32, u32, bool)> = set.to_vec();
        order.sort_by_key(|&(l, x, _)| (self.m.size[l as usize], l, x));
        for (l, x, wins) in order {
            let kids = self.m.kids(l);
            if wins {
                // An entry kept for the root.
                if let Some((c, _)) = self.win_proof(&kids, x, &|n| self.cost(n)) {
                    self.est.insert(Need::Win(l, x), 1.0 + c);
                }
            } else if let Some((c, _)) = self.loss_proof(&kids, x, &|n| self.cost(n)) {
                // The smaller heaps win by a child each (the land's
                // nimber, being proved, is not known to them).
                let below: f64 = (0..x)
                    .map(|j| self.by_child_cost(l, j, &|o| self.cost(Need::Nimber(o))))
                    .sum();
                let c = (1.0 + c + below) * noise(self.seed, l);
                self.est.insert(Need::Nimber(l), c);
            }
        }
    }
}

/// Shrinks each of `pools` to a small set of entries from which the
/// checker re-proves the sum of `root` and heap `heap` with no search,
/// and keeps the smallest result (the first of equals; the choice is a
/// heuristic's, a larger pool is not always a smaller result). The lands of all pools are numbered and their
/// children made once (most of the work on large proofs). `None` if no
/// pool settles the root.
pub fn shrink_pools<L: Lands>(
    game: &L,
    pools: &[&[Entry<L::Land>]],
    root: &[L::Land],
    heap: u32,
) -> Option<Vec<Entry<L::Land>>> {
    let mut m = Model::new(game);
    let sets: Vec<Vec<(u32, u32, bool)>> = pools
        .iter()
        .map(|pool| {
            let mut set: Vec<(u32, u32, bool)> = pool
                .iter()
                .map(|(land, x, w)| (m.id(land), *x, *w))
                .collect();
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect();
    let root = m.odd(root);
    // In the order of the lands' numbers, so that the lands met are
    // numbered the same every run.
    let mut lands: Vec<u32> = sets
        .iter()
        .flatten()
        .map(|e| e.0)
        .chain(root.iter().copied())
        .collect();
    lands.sort_unstable();
    lands.dedup();
    for l in lands {
        m.expand(l);
    }
    // A diagnostic: the model written out, for an exact solver to find
    // its true minimum (`tools/shrink-ilp.py`); the shrinking is the same
    // with it or without.
    if let Some(path) = std::env::var_os(MODEL_DUMP) {
        if let Err(e) = write_model(&m, &sets, &root, heap, Path::new(&path)) {
            eprintln!("{MODEL_DUMP}: {e}");
        }
    }
    let mut smallest: Option<Vec<(u32, u32, bool)>> = None;
    for set in sets {
        if let Some(s) = shrink_in(&mut m, set, &root, heap) {
            if smallest.as_ref().is_none_or(|b| s.len() < b.len()) {
                smallest = Some(s);
            }
        }
    }
    Some(
        smallest?
            .into_iter()
            .map(|(l, x, w)| (m.lands[l as usize].clone(), x, w))
            .collect(),
    )
}

/// The environment variable naming the file [`write_model`] writes.
pub const MODEL_DUMP: &str = "RETROGRADE_SHRINK_MODEL";

/// Writes model `m` as text, one line each: `R heap lands` (the root's
/// odd lands, by number), `P pool land heap wins` (each pool's entries),
/// `L land size fixed kids` (every land numbered: its size, the nimber the
/// game gives it or -1, its children's odd lands, `,` within a child and
/// `;` between children, an empty child for one with no land left, `-` if
/// its children were not made).
fn write_model<L: Lands>(
    m: &Model<'_, L>,
    sets: &[Vec<(u32, u32, bool)>],
    root: &[u32],
    heap: u32,
    path: &Path,
) -> std::io::Result<()> {
    use std::io::Write;
    let join = |v: &[u32]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    // A new file only: an existing path (a file, a device, the input) is
    // refused rather than written over.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    let mut f = std::io::BufWriter::new(file);
    writeln!(f, "R {heap} {}", join(root))?;
    for (p, set) in sets.iter().enumerate() {
        for &(l, x, w) in set {
            writeln!(f, "P {p} {l} {x} {}", u8::from(w))?;
        }
    }
    for l in 0..m.lands.len() {
        let kids = match &m.kids[l] {
            None => "-".to_string(),
            Some(k) => k.iter().map(|c| join(c)).collect::<Vec<_>>().join(";"),
        };
        let fixed = m.fixed[l].map_or(-1, i64::from);
        writeln!(f, "L {l} {} {fixed} {kids}", m.size[l])?;
    }
    f.flush()
}

/// The shrinking of `set` in model `m` (its lands expanded).
fn shrink_in<L: Lands>(
    m: &mut Model<'_, L>,
    set: Vec<(u32, u32, bool)>,
    root: &[u32],
    heap: u32,
) -> Option<Vec<(u32, u32, bool)>> {
    // The estimates are guesses (trees, where the proof shares): the
    // choice is made again with them perturbed, and the smallest valid
    // result kept; the seeds are fixed, so the output is the same from run
    // to run.
    let pool = set;
    let mut smallest: Option<Vec<(u32, u32, bool)>> = None;
    for seed in 0..ROUNDS {
        let mut set = pool.clone();
        let mut best: Option<Vec<(u32, u32, bool)>> = None;
        loop {
            let (ok, know) = m.accepts(&set);
            let closed: Vec<(u32, u32, bool)> = set
                .iter()
                .zip(&ok)
                .filter_map(|(&e, &ok)| ok.then_some(e))
                .collect();
            let chosen = choose(m, know, &closed, root, heap, seed)?;
            if best.as_ref().is_some_and(|b| chosen.len() >= b.len()) {
                break;
            }
            set = chosen.clone();
            best = Some(chosen);
        }
        let best = best?;
        let mut set = best.clone();
        drop_unneeded(m, &mut set, root, heap);
        // The model's own pass has the last word: a drop it refuses is
        // undone.
        if !valid(m, &set, root, heap) {
            set = best;
            if !valid(m, &set, root, heap) {
                continue;
            }
        }
        if smallest.as_ref().is_none_or(|s| set.len() < s.len()) {
            smallest = Some(set);
        }
    }
    let mut set = smallest?;
    // The pool's nimbers, each a land the local search may keep.
    let nim: HashMap<u32, u32> = pool
        .iter()
        .filter(|&&(l, _, w)| !w && m.kids[l as usize].is_some())
        .map(|&(l, x, _)| (l, x))
        .collect();
    let better = Local {
        m,
        nim,
        near: HashMap::new(),
        users: HashMap::new(),
    }
    .improve(set.clone(), root, heap);
    if better.len() < set.len() && valid(m, &better, root, heap) {
        set = better;
    }
    Some(set)
}

/// How many times the proof is chosen (the first with the estimates as
/// they are).
const ROUNDS: u64 = 12;

/// A factor from 0.5 to 1.5 for land `l`'s estimate in round `seed`
/// (1 in round 0): a hash, so the same every run.
fn noise(seed: u64, l: u32) -> f64 {
    if seed == 0 {
        return 1.0;
    }
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(l);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    0.5 + (z >> 11) as f64 / (1u64 << 53) as f64
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
    ok.iter().all(|&o| o) && m.root_settled(&k, root, heap)
}

/// One choice of a proof within `closed` (which `know` describes).
fn choose<L: Lands>(
    m: &mut Model<'_, L>,
    know: Know,
    closed: &[(u32, u32, bool)],
    root: &[u32],
    heap: u32,
    seed: u64,
) -> Option<Vec<(u32, u32, bool)>> {
    let mut ch = Chooser {
        m,
        know,
        est: HashMap::new(),
        seed,
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
    // The root's win, if it needs one, is kept as an entry: the check's
    // answer reads it so (a win below is shown by its child).
    let root_wins: HashSet<Need> = root_needs
        .iter()
        .copied()
        .filter(|n| matches!(n, Need::Win(..)))
        .collect();
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
            if !w || root_wins.contains(&Need::Win(l, x)) {
                out.push((l, x, w));
            }
            // A need already chosen costs nothing.
            let nim_price = |o: u32| -> f64 {
                if nimber.contains(&o) {
                    0.0
                } else {
                    ch.cost(Need::Nimber(o))
                }
            };
            let price = |n: Need| -> f64 {
                match n {
                    Need::Nimber(o) => nim_price(o),
                    Need::Win(o, y)
                        if nimber.contains(&o) || wins.get(&o).is_some_and(|v| v.contains(&y)) =>
                    {
                        0.0
                    }
                    Need::Win(..) => ch.priced(n, &nim_price),
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
    loop {
        let mut know = Know::default();
        for &e in set.iter() {
            learn(&mut know, e);
        }
        // Entries by the lands their proofs look at: their children's,
        // and those children's children's (a win shown by its child).
        let mut users: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &(l, _, _)) in set.iter().enumerate() {
            let mut seen: HashSet<u32> = HashSet::from([l]);
            for c in m.kids(l) {
                for o in c {
                    if seen.insert(o) {
                        for g in m.kids(o).into_iter().flatten() {
                            seen.insert(g);
                        }
                    }
                }
            }
            for o in seen {
                users.entry(o).or_default().push(i);
            }
        }
        let mut order: Vec<usize> = (0..set.len()).collect();
        order.sort_by_key(|&i| {
            let (l, x, w) = set[i];
            (w, Reverse(m.size[l as usize]), Reverse(x))
        });
        let mut gone = vec![false; set.len()];
        let mut dropped = false;
        // Entries kept, counted: another entry may say the same.
        let mut count: HashMap<(u32, u32, bool), usize> = HashMap::new();
        for &e in set.iter() {
            *count.entry(e).or_default() += 1;
        }
        // What is known is changed in place and restored (a copy per
        // entry and per user costs the set's size squared).
        for i in order {
            let e = set[i];
            let removed = if count[&e] == 1 {
                unlearn(&mut know, e)
            } else {
                None
            };
            let ok = m.root_settled(&know, root, heap)
                && users.get(&e.0).into_iter().flatten().all(|&u| {
                    u == i || gone[u] || {
                        // A user is checked with what smaller entries give.
                        let (ul, ux, uw) = set[u];
                        let mut back: Vec<(u32, u32, bool)> = Vec::new();
                        if uw {
                            if know.win.remove(&(ul, ux)) {
                                back.push((ul, ux, true));
                            }
                            // The land's loss entry comes after its smaller
                            // heaps.
                            if let Some(n) = know.nim.get(&ul).copied().filter(|&n| n > ux) {
                                know.nim.remove(&ul);
                                back.push((ul, n, false));
                            }
                        } else if let Some(n) = know.nim.remove(&ul) {
                            back.push((ul, n, false));
                        }
                        let pass = m.passes(&know, set[u]);
                        for b in back {
                            learn(&mut know, b);
                        }
                        pass
                    }
                });
            if ok {
                gone[i] = true;
                *count.get_mut(&e).unwrap() -= 1;
                dropped = true;
            } else if let Some(r) = removed {
                learn(&mut know, r);
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

/// Takes entry `e`'s fact out of `k`, returning the fact taken (to put
/// back).
fn unlearn(k: &mut Know, (l, x, w): (u32, u32, bool)) -> Option<(u32, u32, bool)> {
    if w {
        k.win.remove(&(l, x)).then_some((l, x, true))
    } else {
        k.nim.remove(&l).map(|n| (l, n, false))
    }
}

/// A local search over valid sets (the choice above is greedy): take one
/// loss away, keep the checker's rules met by adding the fewest nimbers of
/// the pool that restore the entries that looked at it, drop what is no
/// longer needed, and keep the change unless the set grew. The rounds are
/// counted, not timed, so the output is the same every run.
struct Local<'a, 'g, L: Lands> {
    m: &'a mut Model<'g, L>,
    /// The nimbers the pool holds for lands whose children are made.
    nim: HashMap<u32, u32>,
    /// The lands an entry's proof looks at (its children's and their
    /// children's), by land.
    near: HashMap<u32, HashSet<u32>>,
    /// The reverse of `near`: the lands whose proofs look at a land (of
    /// the lands whose `near` is made: every land the set ever held).
    users: HashMap<u32, Vec<u32>>,
}

/// Rounds of [`Local::improve`] with no smaller set before it stops, per
/// entry of the set.
const PATIENCE: usize = 100;
/// Rounds of [`Local::improve`] at most, and their work at most (rounds
/// times the set's size).
const MAX_ROUNDS: usize = 30_000;
const MAX_WORK: usize = 50_000_000;
/// Nimbers one round may add.
const REPAIR_CAP: usize = 10;

impl<L: Lands> Local<'_, '_, L> {
    fn near(&mut self, l: u32) -> &HashSet<u32> {
        if !self.near.contains_key(&l) {
            let mut seen = HashSet::new();
            if let Some(kids) = self.m.kids[l as usize].as_ref() {
                for c in kids {
                    for &o in c {
                        if seen.insert(o) {
                            if let Some(g) = self.m.kids[o as usize].as_ref() {
                                seen.extend(g.iter().flatten().copied());
                            }
                        }
                    }
                }
            }
            for &o in &seen {
                self.users.entry(o).or_default().push(l);
            }
            self.near.insert(l, seen);
        }
        &self.near[&l]
    }

    /// Whether entry `e` passes by what `k` knows of other lands (its own
    /// land's facts set aside as the checker's order does).
    fn ok(&self, k: &mut Know, e: (u32, u32, bool)) -> bool {
        let (l, x, w) = e;
        let nim = k.nim.get(&l).copied();
        let won = w && k.win.remove(&(l, x));
        if !w || nim.is_some_and(|n| n > x) {
            k.nim.remove(&l);
        }
        let r = match self.m.kids[l as usize].as_ref() {
            None => false,
            Some(kids) => match self.m.known(k, l, x) {
                Some(v) => v == w,
                None if w => kids.iter().any(|c| self.m.sum_loses(k, c, x)),
                None => {
                    (0..x).all(|j| self.m.known(k, l, j) == Some(true))
                        && kids.iter().all(|c| self.m.sum_wins(k, c, x))
                }
            },
        };
        if let Some(n) = nim {
            k.nim.insert(l, n);
        }
        if won {
            k.win.insert((l, x));
        }
        r
    }

    /// The lands to add so that `c + *j` is shown lost (every nimber
    /// known, nim-sum 0), none of them `tabu`.
    fn complete(&self, k: &Know, c: &[u32], j: u32, tabu: &[u32]) -> Option<Vec<u32>> {
        let mut x = j;
        let mut add = Vec::new();
        for &o in c {
            match self.m.nimber(k, o) {
                Some(n) => x ^= n,
                None if !tabu.contains(&o) => {
                    x ^= *self.nim.get(&o)?;
                    add.push(o);
                }
                None => return None,
            }
        }
        (x == 0).then_some(add)
    }

    /// The fewest lands to add so that a child of `l` is shown lost
    /// beside heap `x`.
    fn by_child(&self, k: &Know, l: u32, x: u32, tabu: &[u32]) -> Option<Vec<u32>> {
        self.m.kids[l as usize]
            .as_ref()?
            .iter()
            .filter_map(|c| self.complete(k, c, x, tabu))
            .min_by_key(|a| a.len())
    }

    /// The fewest lands to add so that the sum `c + *x` is shown to win:
    /// all its nimbers, or all but one whose couple a child shows won.
    fn win_fix(&self, k: &mut Know, c: &[u32], x: u32, tabu: &[u32]) -> Option<Vec<u32>> {
        let unknown: Vec<u32> = c
            .iter()
            .copied()
            .filter(|&o| self.m.nimber(k, o).is_none())
            .collect();
        let mut best: Option<Vec<u32>> = None;
        let usable = |o: u32| !tabu.contains(&o) && self.nim.contains_key(&o);
        if unknown.iter().all(|&o| usable(o)) {
            let y = c
                .iter()
                .map(|&o| {
                    self.m
                        .nimber(k, o)
                        .or(self.nim.get(&o).copied())
                        .unwrap_or(0)
                })
                .fold(x, |a, b| a ^ b);
            if y != 0 {
                best = Some(unknown.clone());
            }
        }
        for (i, &o) in unknown.iter().enumerate() {
            let others: Vec<u32> = unknown
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &p)| p)
                .collect();
            if !others.iter().all(|&p| usable(p)) {
                continue;
            }
            if best.as_ref().is_some_and(|b| b.len() <= others.len()) {
                continue;
            }
            let mut y = x;
            for &p in c {
                if p != o {
                    y ^= self
                        .m
                        .nimber(k, p)
                        .or(self.nim.get(&p).copied())
                        .unwrap_or(0);
                }
            }
            for &p in &others {
                k.nim.insert(p, self.nim[&p]);
            }
            let more = if self.m.known(k, o, y) == Some(true) {
                Some(Vec::new())
            } else {
                self.by_child(k, o, y, tabu)
            };
            for &p in &others {
                k.nim.remove(&p);
            }
            if let Some(more) = more {
                let mut add = others;
                add.extend(more);
                add.sort_unstable();
                add.dedup();
                if best.as_ref().is_none_or(|b| add.len() < b.len()) {
                    best = Some(add);
                }
            }
        }
        best
    }

    /// Adds to `k` the nimbers that make entry `e` pass (none `tabu`),
    /// returning them; `None` if the pool cannot.
    fn fix(&self, k: &mut Know, e: (u32, u32, bool), tabu: &[u32]) -> Option<Vec<u32>> {
        let (l, x, w) = e;
        let kids = self.m.kids[l as usize].clone()?;
        let own = k.nim.remove(&l);
        let mut added = Vec::new();
        let learn_all = |k: &mut Know, a: Vec<u32>, added: &mut Vec<u32>| {
            for o in a {
                if let Some(&n) = self.nim.get(&o) {
                    if k.nim.insert(o, n).is_none() {
                        added.push(o);
                    }
                }
            }
        };
        let done = if w {
            match self.by_child(k, l, x, tabu) {
                Some(a) => {
                    learn_all(k, a, &mut added);
                    true
                }
                None => false,
            }
        } else {
            let mut fine = true;
            for j in 0..x {
                if self.m.known(k, l, j) == Some(true) {
                    continue;
                }
                match self.by_child(k, l, j, tabu) {
                    Some(a) => learn_all(k, a, &mut added),
                    None => {
                        fine = false;
                        break;
                    }
                }
            }
            for c in kids.iter().filter(|_| fine) {
                if self.m.sum_wins(k, c, x) {
                    continue;
                }
                match self.win_fix(k, c, x, tabu) {
                    Some(a) => learn_all(k, a, &mut added),
                    None => {
                        fine = false;
                        break;
                    }
                }
            }
            fine
        };
        if let Some(n) = own {
            k.nim.insert(l, n);
        }
        done.then_some(added)
    }

    /// Whether every entry of the set that looks at one of `lands` passes:
    /// its losses are what `k` knows of nimbers (the set's lands' `near`
    /// made), its wins are `wins`.
    fn users_pass(&mut self, k: &mut Know, wins: &[(u32, u32, bool)], lands: &[u32]) -> bool {
        let mut looking: Vec<u32> = lands
            .iter()
            .flat_map(|o| self.users.get(o).into_iter().flatten().copied())
            .collect();
        looking.sort_unstable();
        looking.dedup();
        for u in looking {
            if let Some(&n) = k.nim.get(&u) {
                if !self.ok(k, (u, n, false)) {
                    return false;
                }
            }
        }
        for &e in wins {
            let looks = {
                let near = self.near(e.0);
                lands.iter().any(|o| near.contains(o))
            };
            if looks && !self.ok(k, e) {
                return false;
            }
        }
        true
    }

    /// Drops every loss of `set` whose users pass without it, largest lands
    /// first. Only the losses in `only` (if given) are tried: the others
    /// were refused by an earlier drop, and are moved as a refused drop
    /// moves them (to the end), so that the set's order, which the rounds'
    /// choices read, is the same. A loss refused earlier for a user that
    /// the same drop went on to remove could now go, and is kept: the
    /// restricted drop may keep a little more than a full one would, never
    /// a set the check refuses.
    fn drop(
        &mut self,
        k: &mut Know,
        set: &mut Vec<(u32, u32, bool)>,
        root: &[u32],
        heap: u32,
        only: Option<&HashSet<u32>>,
    ) {
        let wins: Vec<(u32, u32, bool)> = set.iter().copied().filter(|e| e.2).collect();
        let mut order: Vec<(u32, u32, bool)> = set.iter().copied().filter(|e| !e.2).collect();
        order.sort_by_key(|&(l, x, _)| (Reverse(self.m.size[l as usize]), Reverse(x), l));
        let mut pos: HashMap<(u32, u32, bool), usize> = HashMap::new();
        for (i, &e) in set.iter().enumerate() {
            pos.entry(e).or_insert(i);
        }
        for e in order {
            let Some(&i) = pos.get(&e) else {
                continue;
            };
            let last = set.len() - 1;
            if only.is_none_or(|o| o.contains(&e.0)) {
                k.nim.remove(&e.0);
                if self.m.root_settled(k, root, heap) && self.users_pass(k, &wins, &[e.0]) {
                    let moved = set[last];
                    set.swap_remove(i);
                    pos.remove(&e);
                    if i < last {
                        pos.insert(moved, i);
                    }
                    continue;
                }
                k.nim.insert(e.0, e.1);
            }
            // A refused drop takes `e` out and puts it back at the end: the
            // last entry comes to `i`.
            set.swap(i, last);
            pos.insert(set[i], i);
            pos.insert(e, last);
        }
        // The tests check that every drop leaves a set the check accepts:
        // the root settled and every entry re-proved from the others.
        #[cfg(test)]
        {
            assert!(self.m.root_settled(k, root, heap));
            for &e in set.iter() {
                assert!(self.ok(k, e), "{e:?} no longer re-proves");
            }
        }
    }

    fn improve(
        &mut self,
        start: Vec<(u32, u32, bool)>,
        root: &[u32],
        heap: u32,
    ) -> Vec<(u32, u32, bool)> {
        let mut cur = start;
        let mut k = Know::default();
        for &e in &cur {
            learn(&mut k, e);
            self.near(e.0);
        }
        self.drop(&mut k, &mut cur, root, heap, None);
        let mut best = cur.clone();
        let mut idle = 0;
        let mut z: u64 = 0x2545_F491_4F6C_DD1D;
        // A round costs about the set's size (its copies and sorts; the
        // drop tries only the losses the round may have freed).
        let most = MAX_ROUNDS.min(MAX_WORK / cur.len().max(1));
        let mut rounds = 0;
        while idle < PATIENCE * best.len().max(8) && rounds < most {
            rounds += 1;
            idle += 1;
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            let losses: Vec<usize> = (0..cur.len()).filter(|&i| !cur[i].2).collect();
            if losses.is_empty() {
                break;
            }
            // One loss taken away, with up to two more whose proofs touch
            // it (the repair may then share what it adds).
            let first = cur[losses[(z % losses.len() as u64) as usize]].0;
            let mut gone: Vec<u32> = vec![first];
            let more = (z >> 40) % 3;
            if more > 0 {
                let mut related: Vec<u32> = Vec::new();
                for &i in &losses {
                    let o = cur[i].0;
                    if o != first
                        && (self.near(first).contains(&o) || self.near(o).contains(&first))
                    {
                        related.push(o);
                    }
                }
                let mut y = z >> 20;
                for _ in 0..more {
                    if related.is_empty() {
                        break;
                    }
                    let o = related.swap_remove((y % related.len() as u64) as usize);
                    gone.push(o);
                    y /= 7;
                }
            }
            let (saved_set, saved_k) = (cur.clone(), k.clone());
            cur.retain(|e| e.2 || !gone.contains(&e.0));
            for g in &gone {
                k.nim.remove(g);
            }
            let mut ok = self.m.root_settled(&k, root, heap);
            // The entries that looked at them, restored by additions (which
            // may need additions of their own).
            let mut queue: Vec<(u32, u32, bool)> = Vec::new();
            if ok {
                for &e in &cur {
                    let near = self.near(e.0);
                    if gone.iter().any(|g| near.contains(g)) {
                        queue.push(e);
                    }
                }
            }
            let mut added = 0;
            let mut adds: Vec<u32> = Vec::new();
            while ok {
                let Some(e) = queue.pop() else { break };
                if self.ok(&mut k, e) {
                    continue;
                }
                match self.fix(&mut k, e, &gone) {
                    Some(a) if added + a.len() <= REPAIR_CAP => {
                        added += a.len();
                        for o in a {
                            let n = self.nim[&o];
                            self.near(o);
                            adds.push(o);
                            cur.push((o, n, false));
                            queue.push((o, n, false));
                        }
                        ok = self.ok(&mut k, e);
                    }
                    _ => ok = false,
                }
            }
            if ok {
                // The losses this round may have freed: those the entries
                // taken away looked at, the ones added, and those that
                // entries looking at an added one look at. Every other loss
                // was refused by the last drop, and its users know no less
                // now of what they look at (knowing more never makes an
                // entry fail).
                let mut only: HashSet<u32> = adds.iter().copied().collect();
                let mut looking: Vec<u32> = adds.clone();
                for a in &adds {
                    looking.extend(self.users.get(a).into_iter().flatten().copied());
                }
                looking.extend(gone.iter().copied());
                for u in looking {
                    only.extend(self.near(u).iter().copied());
                }
                self.drop(&mut k, &mut cur, root, heap, Some(&only));
            }
            // A set one larger is kept now and then, to leave a valley.
            let worse = cur.len() == saved_set.len() + 1 && (z >> 50).is_multiple_of(10);
            if !ok || (cur.len() > saved_set.len() && !worse) {
                cur = saved_set;
                k = saved_k;
                continue;
            }
            if cur.len() < best.len() {
                best = cur.clone();
                idle = 0;
            }
        }
        best.sort_unstable();
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::sprouts::Position;
    use crate::search::engine::Options;
    use crate::search::games::sprouts::normal::{Normal, SproutsLands};

    /// The local search's drop tries only the losses its round may have
    /// freed: on the nimbers a search of `sprouts:7` found, every drop
    /// leaves the root settled and every entry re-proved from the others
    /// (checked in [`Local::drop`] under test); the result is losses only
    /// (the start loses), fewer than the pool's.
    #[test]
    fn the_local_search_s_drops_keep_a_set_the_check_accepts() {
        let p = Position::parse("0*7").unwrap();
        let mut e = Normal::new(&Options::default());
        assert_eq!(e.nimber(&p), Some(0));
        let pool: Vec<Entry<_>> = e
            .lands()
            .filter_map(|i| i.nimber.map(|n| (i.land.clone(), n, false)))
            .collect();
        let set = shrink_pools(&SproutsLands, &[&pool], p.lands(), p.heap()).unwrap();
        assert!(!set.is_empty() && set.len() < pool.len(), "{}", set.len());
        assert!(set.iter().all(|e| !e.2));
    }
}
