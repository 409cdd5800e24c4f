//! Misère Sprouts: whole positions, by df-pn.
//!
//! Under misère play the lands of a position do not add (a land's nimber
//! says nothing of a sum's misère outcome), so a position is proved whole:
//! it wins when some child loses, and a position with no move wins (who
//! cannot move wins).
//!
//! The engine works on *nodes*: a position as the numbers of its lands
//! (each canonical land interned once), sorted, then its heap. A land's
//! children (the costly part: every move's result reduced and written in
//! canonical form) are computed once and kept by land number, so a node's
//! children are made by swapping one land number for those of its child,
//! with no canonical form computed again: a position met again (df-pn
//! comes back to the same positions over and over) or a land met in
//! another position costs a lookup. Every position proved is kept by its
//! exact node; proof and disproof numbers of positions in progress are
//! kept in a bounded table by a 64-bit hash of the node (a clash there only
//! misleads the search's choice of line, never a result: results are read
//! from the exact memo).
//!
//! Memory: the land children, the numbers and the proved positions each
//! take at most a quarter of `--memory`. When the proved positions fill
//! theirs, the older half is forgotten (a position proved before is proved
//! again if met again: only time is lost), except the children of the
//! positions on the line being searched: a parent must find its children's
//! proofs when it comes back to them, or each level would prove them again
//! without end (a search in 1 MiB ran for minutes on 8 spots before they
//! were kept). The lands take the last quarter: when they fill it, every
//! land that no proved position, no position on the line and no kept land
//! children hold is forgotten and its number freed for reuse (most lands
//! are met once, as children of a land whose children the full cache has
//! since dropped, and never searched). A land forgotten is interned anew
//! when met again. Before, the lands were not bounded: `sprouts:12:misere
//! --memory 4G` peaked at 5.88 GiB.

use super::normal::{Options, INF};
use crate::games::sprouts::{Land, Position};
use crate::search::bounded::BoundedCache;
use crate::search::couples::FastBuild;
use crate::search::dfpn::Stats;
use crate::search::{Limits, ProgressFn, Stop, RESULTS_PER_NODE};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::rc::Rc;
use std::time::Duration;

/// A position as the engine holds it: its land numbers sorted, then its
/// heap.
type Node = Box<[u32]>;

type FastMap<K, V> = HashMap<K, V, FastBuild>;

/// About the bytes a proved position takes: its node's allocation (a few
/// land numbers) and its slot in the map.
const PROVED_BYTES: u64 = 80;

/// A land's children as land numbers, each sorted.
type LandKids = Rc<[Box<[u32]>]>;

/// About the bytes a land takes besides its canonical bytes (twice: the
/// list and the map's key): two boxes, the map's bucket and slack, its
/// lives.
const LAND_BYTES: u64 = 96;

/// Lands interned at most between two checks of the lands' share (the
/// children of one node's lands): the share is checked this far below it.
const LAND_MARGIN: u64 = 1 << 12;

/// Periodic snapshots of what the engine has proved (`--save-every`): what
/// [`Misere::with_snapshots`] hands the proved positions to.
type Snapshots<'a> =
    crate::search::Snapshots<dyn FnMut(&mut dyn Iterator<Item = (Position, bool)>) + 'a>;

/// The misère engine.
pub struct Misere<'a> {
    /// Land numbers, and the lands by number.
    ids: FastMap<Land, u32>,
    lands: Vec<Land>,
    /// Lives of each land, by number.
    lives: Vec<u32>,
    /// Numbers of forgotten lands, for reuse.
    free: Vec<u32>,
    /// How many times each number was reused: part of a node's hash, so
    /// that the numbers of positions in progress kept for a forgotten land
    /// are not read for a new land of the same number.
    stamps: Vec<u32>,
    /// Bytes the live lands take (about), and their share of the memory.
    land_bytes: u64,
    land_cap: u64,
    /// The bytes of lands at which they are next thinned out.
    land_next: u64,
    /// Lands forgotten so far.
    lands_evicted: u64,
    /// The node being proved from outside ([`Misere::wins`]), which no
    /// list on the line holds.
    outer: Option<Node>,
    /// Children of lands, while memory allows (by land number).
    kids: BoundedCache<u32, LandKids>,
    /// Positions proved: whether the player to move wins, and when it was
    /// proved (a count of insertions), to forget the oldest first.
    proved: FastMap<Node, (bool, u64)>,
    proved_cap: usize,
    /// The count of proved positions at which the older are forgotten: the
    /// cap, or more when the line's children fill most of it (so that each
    /// pass over the map frees room for many positions, not one).
    proved_next: usize,
    proved_at: u64,
    /// The children of each position on the line being searched.
    path: Vec<Rc<[Node]>>,
    tt: FastMap<u64, (u32, u32)>,
    tt_cap: usize,
    epsilon: f64,
    limits: Limits,
    nodes: u64,
    depth: u64,
    deepest: u64,
    progress: Option<ProgressFn<'a, Stats>>,
    /// The numbers of the outermost position being proved, for the
    /// progress line.
    root: (u32, u32),
    snapshots: Option<Snapshots<'a>>,
}

impl<'a> Misere<'a> {
    /// An engine with `options`' memory and limits.
    pub fn new(options: &Options) -> Misere<'a> {
        Misere {
            ids: FastMap::default(),
            lands: Vec::new(),
            lives: Vec::new(),
            free: Vec::new(),
            stamps: Vec::new(),
            land_bytes: 0,
            land_cap: (options.memory / 4).max(1 << 20),
            land_next: (options.memory / 4).max(1 << 20),
            lands_evicted: 0,
            outer: None,
            kids: BoundedCache::new((options.memory / 4).max(1 << 20) as usize),
            proved: FastMap::default(),
            proved_cap: (options.memory / 4 / PROVED_BYTES).max(1 << 14) as usize,
            proved_next: 0,
            proved_at: 0,
            path: Vec::new(),
            tt: FastMap::default(),
            tt_cap: (options.memory / 4 / 40).max(1 << 12) as usize,
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
            root: (1, 1),
            snapshots: None,
        }
    }

    /// Hands every position proved ([`Misere::proved`]) to `save` about
    /// every `every` while the search runs (checked every 1,024 nodes), so
    /// that a run that dies leaves what it had proved to resume from.
    pub fn with_snapshots(
        mut self,
        every: Duration,
        save: impl FnMut(&mut dyn Iterator<Item = (Position, bool)>) + 'a,
    ) -> Self {
        self.snapshots = Some(Snapshots::new(every, Box::new(save)));
        self
    }

    /// Every position proved and still kept, with whether its mover wins.
    pub fn proved(&self) -> impl Iterator<Item = (Position, bool)> + '_ {
        self.proved
            .iter()
            .map(|(n, &(wins, _))| (Self::position(&self.lands, n), wins))
    }

    /// The position of node `n`.
    fn position(lands: &[Land], n: &[u32]) -> Position {
        let (&heap, ids) = n.split_last().expect("a node ends with its heap");
        Position::new(
            ids.iter().map(|&i| lands[i as usize].clone()).collect(),
            heap,
        )
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&Stats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// The counters, as a df-pn search's.
    pub fn stats(&self) -> Stats {
        Stats {
            nodes: self.nodes,
            leaf_hits: 0,
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
        }
    }

    /// Why the engine stopped, if it has.
    pub fn stop_reason(&self) -> Option<Stop> {
        self.limits.stop()
    }

    /// Positions proved.
    pub fn proved_count(&self) -> usize {
        self.proved.len()
    }

    /// The land's number, interned.
    fn id(&mut self, land: &Land) -> u32 {
        if let Some(&i) = self.ids.get(land) {
            return i;
        }
        self.land_bytes += Self::bytes_of(land);
        let i = match self.free.pop() {
            Some(i) => {
                self.lands[i as usize] = land.clone();
                self.lives[i as usize] = land.lives();
                self.stamps[i as usize] = self.stamps[i as usize].wrapping_add(1);
                i
            }
            None => {
                self.lands.push(land.clone());
                self.lives.push(land.lives());
                self.stamps.push(0);
                (self.lands.len() - 1) as u32
            }
        };
        self.ids.insert(land.clone(), i);
        i
    }

    /// About the bytes land `l` takes while interned.
    fn bytes_of(l: &Land) -> u64 {
        LAND_BYTES + 2 * l.as_bytes().len() as u64
    }

    /// Lands forgotten so far to stay within the memory.
    pub fn lands_evicted(&self) -> u64 {
        self.lands_evicted
    }

    /// Lands interned now.
    pub fn lands_known(&self) -> usize {
        self.ids.len()
    }

    /// Past the lands' share: forgets every land that no proved position,
    /// no position on the line, not the outer node and no kept land
    /// children hold. Called only where every number held is in those (the
    /// top of [`Misere::mid`]).
    fn evict_lands(&mut self) {
        let mut held = vec![false; self.lands.len()];
        let mut hold = |n: &[u32]| {
            let (_, ids) = n.split_last().expect("a node ends with its heap");
            for &i in ids {
                held[i as usize] = true;
            }
        };
        self.proved.keys().for_each(|n| hold(n));
        self.path
            .iter()
            .flat_map(|k| k.iter())
            .for_each(|n| hold(n));
        if let Some(n) = &self.outer {
            hold(n);
        }
        // The land children kept (bounded apart) and the lands they name:
        // computing them again is most of a node's cost.
        let kids: Vec<u32> = self
            .kids
            .iter()
            .flat_map(|(&l, kids)| std::iter::once(l).chain(kids.iter().flatten().copied()))
            .collect();
        for i in kids {
            held[i as usize] = true;
        }
        let before = self.ids.len();
        let (lands, free) = (&self.lands, &mut self.free);
        let mut freed = 0u64;
        self.ids.retain(|_, &mut i| {
            let keep = held[i as usize];
            if !keep {
                free.push(i);
                freed += Self::bytes_of(&lands[i as usize]);
            }
            keep
        });
        // The slots freed keep their old land until reused: drop its bytes.
        for &i in &self.free[self.free.len() - (before - self.ids.len())..] {
            self.lands[i as usize] = Land::placeholder();
        }
        self.land_bytes -= freed;
        self.lands_evicted += (before - self.ids.len()) as u64;
    }

    /// The node of `p`, interning its lands.
    fn node(&mut self, p: &Position) -> Node {
        let mut v: Vec<u32> = p.lands().iter().map(|l| self.id(l)).collect();
        v.sort_unstable();
        v.push(p.heap());
        v.into_boxed_slice()
    }

    /// The node of `p` if every land of it is known (else it is proved of
    /// nothing).
    fn find(&self, p: &Position) -> Option<Node> {
        let mut v: Vec<u32> = Vec::with_capacity(p.lands().len() + 1);
        for l in p.lands() {
            v.push(*self.ids.get(l)?);
        }
        v.sort_unstable();
        v.push(p.heap());
        Some(v.into_boxed_slice())
    }

    /// Records a proved position (from a database).
    pub fn add(&mut self, p: Position, wins: bool) {
        let n = self.node(&p);
        self.prove(n, wins);
    }

    /// Keeps `n`'s value, forgetting the older half of the proved
    /// positions first if they fill their share of the memory (never `n`,
    /// the newest).
    fn prove(&mut self, n: Node, wins: bool) {
        if self.proved.len() >= self.proved_next.max(self.proved_cap) {
            let keep_from = self.proved_at.saturating_sub((self.proved_cap / 2) as u64);
            let line: std::collections::HashSet<&[u32]> = self
                .path
                .iter()
                .flat_map(|k| k.iter().map(|c| &**c))
                .collect();
            self.proved
                .retain(|n, &mut (_, at)| at >= keep_from || line.contains(&**n));
            self.proved_next = self.proved.len() + self.proved_cap / 2;
        }
        self.proved_at += 1;
        self.proved.insert(n, (wins, self.proved_at));
    }

    /// What is proved of `p`: whether its mover wins (a position with no
    /// move is won by its mover).
    pub fn known(&self, p: &Position) -> Option<bool> {
        if p.is_over() {
            return Some(true);
        }
        self.proved.get(&self.find(p)?).map(|&(w, _)| w)
    }

    /// Whether the player to move wins `p` (`None` if stopped first).
    pub fn wins(&mut self, p: &Position) -> Option<bool> {
        if let Some(w) = self.known(p) {
            return Some(w);
        }
        let n = self.node(p);
        self.outer = Some(n.clone());
        self.mid(&n, INF - 1, INF - 1);
        self.outer = None;
        self.known_node(&n)
    }

    /// What is proved of a node.
    fn known_node(&self, n: &[u32]) -> Option<bool> {
        if n.len() == 1 && n[0] == 0 {
            return Some(true);
        }
        self.proved.get(n).map(|&(w, _)| w)
    }

    /// The key of node `n` in the table of numbers: its land numbers, each
    /// with its stamp, and its heap.
    fn hash(&self, n: &[u32]) -> u64 {
        let (&heap, ids) = n.split_last().expect("a node ends with its heap");
        let mut h = FastBuild::default().build_hasher();
        for &i in ids {
            h.write_u64(u64::from(i) << 32 | u64::from(self.stamps[i as usize]));
        }
        h.write_u32(heap);
        h.finish()
    }

    /// Runs `make`, child generation outside the search (a proof
    /// database's check), with a poll that gives up when the search's
    /// limits say (see [`Land::children_until`]).
    pub fn generating<T>(&mut self, make: impl FnOnce(&mut dyn FnMut(u64, u64) -> bool) -> T) -> T {
        let (limits, nodes) = (&mut self.limits, self.nodes);
        make(&mut |results, bytes| limits.generation_stops(nodes, results, bytes))
    }

    /// The children of land number `l` as land numbers (`None` if the
    /// search's limits stopped their making).
    fn land_kids(&mut self, l: u32) -> Option<LandKids> {
        if let Some(k) = self.kids.get(&l) {
            return Some(k.clone());
        }
        let (limits, nodes) = (&mut self.limits, self.nodes);
        let mut made = 0;
        let children = self.lands[l as usize].children_until(&mut |results, bytes| {
            made = results;
            limits.generation_stops(nodes, results, bytes)
        })?;
        // Work past a node's worth counts against the node budget.
        self.nodes += made / RESULTS_PER_NODE;
        let mut bytes = 64;
        let list: Vec<Box<[u32]>> = children
            .iter()
            .map(|c| {
                let mut v: Vec<u32> = c.iter().map(|land| self.id(land)).collect();
                v.sort_unstable();
                bytes += 4 * v.len() + 16;
                v.into_boxed_slice()
            })
            .collect();
        let kids: LandKids = list.into();
        self.kids.insert(l, kids.clone(), bytes);
        Some(kids)
    }

    /// The children of a node: a move in one of its lands (equal lands
    /// give equal children: one of them is tried), or a smaller heap.
    /// Distinct nodes only; `None` if the search's limits stopped their
    /// making.
    fn children(&mut self, n: &[u32]) -> Option<Vec<Node>> {
        let (heap, ids) = n.split_last().expect("a node ends with its heap");
        let mut out: Vec<Node> = Vec::new();
        for i in 0..ids.len() {
            if i > 0 && ids[i] == ids[i - 1] {
                continue;
            }
            let kids = self.land_kids(ids[i])?;
            for c in kids.iter() {
                // The other lands and the child's, merged in order.
                let mut v: Vec<u32> = Vec::with_capacity(ids.len() + c.len());
                let (mut a, mut b) = (0, 0);
                while a < ids.len() || b < c.len() {
                    if a == i {
                        a += 1;
                        continue;
                    }
                    if b == c.len() || (a < ids.len() && ids[a] <= c[b]) {
                        v.push(ids[a]);
                        a += 1;
                    } else {
                        v.push(c[b]);
                        b += 1;
                    }
                }
                v.push(*heap);
                out.push(v.into_boxed_slice());
            }
        }
        for k in 0..*heap {
            let mut v = ids.to_vec();
            v.push(k);
            out.push(v.into_boxed_slice());
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    fn numbers(&self, n: &[u32]) -> (u32, u32) {
        match self.known_node(n) {
            Some(true) => (0, INF),
            Some(false) => (INF, 0),
            None => self
                .tt
                .get(&self.hash(n))
                .copied()
                .unwrap_or_else(|| self.fresh(n)),
        }
    }

    /// The numbers of a position never expanded: one child to prove a win,
    /// and more the more lives it has to prove a loss (every move must be
    /// shown to win), as df-pn+'s initial numbers do with a move count.
    /// Measured (CPU s, positions expanded; load 6 to 9): `sprouts:7:misere`
    /// took 6.1 s, 52,749 with `(1, 1)` and 0.7 s, 14,474 with
    /// `1 + lives`; `sprouts:8:misere` 3.9 s, 60,496 with `1 + lives`,
    /// 2.5 s, 53,648 with this, `1 + 2 lives`, and 0.5 s, 47,901 with
    /// `1 + lives² / 4`; `sprouts:9:misere` 29.3 s, 401,469; 18.3 s,
    /// 446,518 and 19.6 s, 1,142,883; `sprouts:10:misere` 56.5 s,
    /// 1,391,327 with this and 92.3 s, 4,777,189 with `1 + lives² / 4`.
    fn fresh(&self, n: &[u32]) -> (u32, u32) {
        let (_, ids) = n.split_last().expect("a node ends with its heap");
        let lives: u32 = ids.iter().map(|&i| self.lives[i as usize]).sum();
        (1, 1 + 2 * lives)
    }

    fn settle(&mut self, n: &[u32], wins: bool) {
        self.prove(n.into(), wins);
        self.tt.remove(&self.hash(n));
        self.depth -= 1;
        self.path.pop();
    }

    fn mid(&mut self, n: &[u32], th_pn: u32, th_dn: u32) {
        if self.known_node(n).is_some() || !self.limits.may_expand(self.nodes) {
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
                let (lands, proved) = (&self.lands, &self.proved);
                snap.when_due(|save| {
                    save(
                        &mut proved
                            .iter()
                            .map(|(n, &(w, _))| (Self::position(lands, n), w)),
                    )
                });
            }
        }
        // Here every land number held is on the line (n is in its parent's
        // list, or the outer node) or in a proved position.
        if self.land_bytes + LAND_MARGIN * LAND_BYTES >= self.land_next {
            self.evict_lands();
            // Not again before half a share more: when the lands held fill
            // the share, each pass must free room for many.
            self.land_next = (self.land_bytes + self.land_cap / 2).max(self.land_cap);
        }
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let Some(kids) = self.children(n) else {
            // Stopped while making them.
            self.depth -= 1;
            return;
        };
        let kids: Rc<[Node]> = kids.into();
        self.path.push(kids.clone());
        loop {
            if self.limits.stop().is_some() {
                // Stopped below: up at once, without a pass over the
                // children's numbers at every level (with 1,500 lands, 3
                // ms a level: 0.4 s past a `--time` at depth 113).
                self.depth -= 1;
                self.path.pop();
                return;
            }
            let mut sum: u64 = 0;
            let mut best: Option<(usize, u32, u32)> = None;
            let mut dn2 = INF;
            for (c, kid) in kids.iter().enumerate() {
                let (pn, dn) = self.numbers(kid);
                if dn == 0 {
                    self.settle(n, true);
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
                self.settle(n, false);
                return;
            }
            let (c, cpn, cdn) = best.expect("a position not over has moves");
            let (pn, dn) = (cdn, sum.min(u64::from(INF - 1)) as u32);
            if self.depth == 1 {
                self.root = (pn, dn);
            }
            if pn >= th_pn || dn >= th_dn || self.limits.stop().is_some() {
                if self.tt.len() >= self.tt_cap {
                    self.tt.clear();
                }
                self.tt.insert(self.hash(n), (pn, dn));
                self.depth -= 1;
                self.path.pop();
                return;
            }
            let c_th_pn =
                (u64::from(th_dn) - u64::from(dn) + u64::from(cpn)).min(u64::from(INF - 1)) as u32;
            let widened = (f64::from(dn2) * (1.0 + self.epsilon)).ceil() as u64 + 1;
            let c_th_dn = widened.min(u64::from(th_pn)).min(u64::from(INF - 1)) as u32;
            self.mid(&kids[c], c_th_pn, c_th_dn);
        }
    }
}
