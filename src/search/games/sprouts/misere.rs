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
//! Memory: everything the engine keeps is counted against `--memory` as
//! the allocator takes it (a box of a few numbers costs a 32-byte chunk,
//! not its numbers' bytes; a map costs its whole table), and the engine
//! stops with [`Stop::Memory`] rather than pass it. The shares: the
//! numbers an eighth, the land children three sixteenths, the proved
//! positions and the lands a quarter each, the lists of children of the
//! line being searched the last three sixteenths. The maps of numbers,
//! proved positions and lands are made at once at their full size (their
//! tables are touched only as they fill) and never grow, so that no map
//! holds two tables while it moves its entries. When the proved positions
//! fill theirs, the older half is forgotten (a position proved before is
//! proved again if met again: only time is lost), except the children of
//! the positions on the line being searched: a parent must find its
//! children's proofs when it comes back to them, or each level would prove
//! them again without end (a search in 1 MiB ran for minutes on 8 spots
//! before they were kept). When the lands fill theirs, every land that no
//! proved position, no position on the line and no kept land children hold
//! is forgotten and its number freed for reuse (most lands are met once, as
//! children of a land whose children the full cache has since dropped, and
//! never searched); if the lands held still fill it, the land children and
//! the older half of the proved positions go too, and the lands again. A
//! land forgotten is interned anew when met again. A position whose
//! children the line's share cannot hold, or whose lands the lands' share
//! cannot, stops the search. Before, the lands were not bounded
//! (`sprouts:12:misere --memory 4G` peaked at 5.88 GiB), and then, with
//! every share counted at a fixed guess per entry and the maps grown by
//! doubling, it still peaked at 5.94 GiB; a position of 2,000 lands took
//! 126 MB within 10 s under `--memory 1M`, its line's children uncounted.

use super::normal::{Options, INF};
use crate::games::sprouts::{Land, Position};
use crate::search::bounded::{chunk, compact, may_insert, sized_map, BoundedCache};
use crate::search::couples::Pick;
use crate::search::engine::{ProgressFn, Stats};
use crate::search::hash::FastBuild;
use crate::search::{Limits, Stop, RESULTS_PER_NODE};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::rc::Rc;
use std::time::Duration;

/// A position as the engine holds it: its land numbers sorted, then its
/// heap.
type Node = Box<[u32]>;

type FastMap<K, V> = HashMap<K, V, FastBuild>;

/// A land's children as land numbers: child `i` is
/// `lands[ends[i - 1]..ends[i]]`, sorted (two allocations, not one per
/// child).
struct KidList {
    lands: Box<[u32]>,
    ends: Box<[u32]>,
}

impl KidList {
    /// The children, each its land numbers.
    fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&e| {
            let c = &self.lands[start..e as usize];
            start = e as usize;
            c
        })
    }

    /// Bytes it takes: the `Rc`'s allocation (counts and two boxes) and
    /// the two boxes' (the map's table is counted by the cache).
    fn bytes(&self) -> usize {
        (chunk(16 + 32) + chunk(4 * self.lands.len()) + chunk(4 * self.ends.len())) as usize
    }
}

/// A land's children as land numbers, shared with the search.
type LandKids = Rc<KidList>;

/// Bytes a slot of the lands takes besides its map bucket: its land in
/// the list (16), its lives, its stamp, its place in the free list and its
/// mark while lands are forgotten.
const LAND_SLOT: u64 = 16 + 4 + 4 + 4 + 1;

/// Bytes a land whose hash another land has takes in the map of such
/// lands besides its bytes: its bucket, twice for the map's slack and
/// growth (there are next to none).
const CLASH_BYTES: u64 = 2 * 2 * 25;

/// Lands interned at most between two checks of the lands' share (the
/// children of one node's lands): the share is checked this far below it
/// (or a quarter of it, if less).
const LAND_MARGIN: usize = 1 << 12;

/// Bytes a land of the margin is counted at, its canonical bytes twice
/// (the list's and the map key's), at the allocator's size.
const MARGIN_LAND_BYTES: u64 = 2 * 48;

/// Bytes a node of the line's lists of children is counted at besides its
/// box: its place in the list, and in the set of them made while the
/// proved positions are thinned out.
const LINE_NODE: u64 = 16 + 40;

/// Periodic snapshots of what the engine has proved (`--save-every`): what
/// [`Misere::with_snapshots`] hands the proved positions to.
type Snapshots<'a> =
    crate::search::Snapshots<dyn FnMut(&mut dyn Iterator<Item = (Position, bool)>) + 'a>;

/// The misère engine.
pub struct Misere<'a> {
    /// Land numbers by a 64-bit hash of the land's bytes (the land itself
    /// is kept once, in `lands`), those of lands whose hash a land kept
    /// already has, and the lands by number.
    ids: FastMap<u64, u32>,
    clash: FastMap<Land, u32>,
    lands: Vec<Land>,
    /// Lives of each land, by number.
    lives: Vec<u32>,
    /// Numbers of forgotten lands, for reuse.
    free: Vec<u32>,
    /// How many times each number was reused: part of a node's hash, so
    /// that the numbers of positions in progress kept for a forgotten land
    /// are not read for a new land of the same number.
    stamps: Vec<u32>,
    /// The lands' map's capacity (it never grows), and the count at which
    /// they are next thinned out.
    lands_max: usize,
    lands_next: usize,
    /// Bytes the live lands' canonical bytes take (twice each), and what
    /// the lands' share leaves them.
    land_bytes: u64,
    land_cap: u64,
    /// Lands forgotten so far.
    lands_evicted: u64,
    /// The node being proved from outside ([`Misere::wins`]), which no
    /// list on the line holds.
    outer: Option<Node>,
    /// The computing branch shown and steered, when watched.
    watch: Option<crate::search::watch::Watcher>,
    /// The children's numbers of the level choosing, when watched.
    seen: Vec<(u32, u32)>,
    /// Children of lands, while memory allows (by land number).
    kids: BoundedCache<u32, LandKids>,
    /// Positions proved: when each was proved (a count of insertions, to
    /// forget the oldest first) times two, plus one if the player to move
    /// wins.
    proved: FastMap<Node, u64>,
    /// The proved positions' map's capacity (it never grows), the bytes
    /// their nodes take, and what the share leaves them.
    proved_max: usize,
    proved_bytes: u64,
    proved_cap: u64,
    proved_at: u64,
    /// The children of each position on the line being searched, and the
    /// bytes they take (the line may take what the rest leaves).
    path: Vec<Rc<[Node]>>,
    path_bytes: Vec<u64>,
    line_bytes: u64,
    tt: FastMap<u64, (u32, u32)>,
    tt_max: usize,
    tt_table: u64,
    /// Bytes all that is counted against the memory takes at most,
    /// and the memory.
    fixed: u64,
    memory: u64,
    epsilon: f64,
    limits: Limits,
    nodes: u64,
    depth: u64,
    deepest: u64,
    progress: Option<ProgressFn<'a>>,
    /// The numbers of the outermost position being proved, for the
    /// progress line.
    root: (u32, u32),
    snapshots: Option<Snapshots<'a>>,
}

impl<'a> Misere<'a> {
    /// An engine with `options`' memory and limits (at least 1 MiB).
    pub fn new(options: &Options) -> Misere<'a> {
        let memory = options.memory.max(1 << 20);
        let share = memory / 16;
        let (tt, tt_max, tt_table) = sized_map(4 * share, 0);
        // The proved positions' nodes take a 32-byte chunk each, mostly,
        // and half an entry's slot (12 bytes) while compacted.
        let (proved, proved_max, proved_table) = sized_map(4 * share, 32 + 12);
        // A land takes a slot of the lists and its bytes (32 or 48 mostly),
        // and half an entry's slot (8 bytes) while compacted.
        let (ids, lands_max, ids_table) = sized_map::<u64, u32>(5 * share, LAND_SLOT + 8 + 48);
        let lands_slots = lands_max as u64 * (LAND_SLOT + 8);
        // The land children what the others leave, but a sixteenth for the
        // line (a few KiB but on positions of many lands).
        let kids = memory.saturating_sub(tt_table + 10 * share).max(share);
        Misere {
            ids,
            clash: FastMap::default(),
            lands: Vec::with_capacity(lands_max),
            lives: Vec::with_capacity(lands_max),
            free: Vec::with_capacity(lands_max),
            stamps: Vec::with_capacity(lands_max),
            lands_max,
            lands_next: 0,
            land_bytes: 0,
            land_cap: (5 * share).saturating_sub(ids_table + lands_slots),
            lands_evicted: 0,
            outer: None,
            watch: options
                .watch
                .clone()
                .map(crate::search::watch::Watcher::new),
            seen: Vec::new(),
            kids: BoundedCache::counting_table(kids as usize),
            proved,
            proved_max,
            proved_bytes: 0,
            proved_cap: (4 * share).saturating_sub(proved_table),
            proved_at: 0,
            path: Vec::new(),
            path_bytes: Vec::new(),
            line_bytes: 0,
            tt,
            tt_max,
            tt_table,
            fixed: tt_table + proved_table + ids_table + lands_slots,
            memory,
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
        }
    }

    /// Bytes held now of what is counted against the memory: the maps'
    /// tables and the lists' slots (whole from the start), the lands', the
    /// proved positions' and the line's allocations, the land children.
    pub fn bytes_held(&self) -> u64 {
        self.fixed + self.land_bytes + self.proved_bytes + self.line_bytes + self.kids.held() as u64
    }

    /// The memory the engine holds itself to (`--memory`, at least 1 MiB).
    pub fn memory(&self) -> u64 {
        self.memory
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
            .map(|(n, &v)| (Self::position(&self.lands, n), v & 1 == 1))
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
        // The map's entries at the bytes of its table per entry it holds
        // at most.
        let per = self.tt_table / self.tt_max as u64;
        Stats {
            nodes: self.nodes,
            leaf_hits: 0,
            tt_used: self.tt.len() as u64,
            tt_capacity: self.tt_max as u64,
            tt_bytes: self.tt.len() as u64 * per,
            tt_max: self.tt_max as u64,
            tt_max_bytes: self.tt_table,
            threads: 1,
            root_pn: self.root.0,
            root_dn: self.root.1,
            target: 1,
            elapsed: self.limits.elapsed(),
            deepest: self.deepest,
            ..Stats::default()
        }
    }

    /// Why the engine stopped, if it has.
    pub fn stop_reason(&self) -> Option<Stop> {
        self.limits.stop()
    }

    /// A budget of its own for the next proofs (`nodes` more nodes, `time`
    /// from now), everything proved kept; a stopped search keeps only
    /// numbers and proofs, so the next starts from them.
    pub fn renew(&mut self, nodes: Option<u64>, time: Option<std::time::Duration>) {
        self.limits.renew(self.nodes, nodes, time);
    }

    /// Positions proved.
    pub fn proved_count(&self) -> usize {
        self.proved.len()
    }

    /// The land's number, interned; `None` if the lands' share has no
    /// room for it (the search then stops: see [`Misere::mid`]).
    fn id(&mut self, land: &Land) -> Option<u32> {
        let h = Self::land_hash(land);
        if let Some(i) = self.lookup(h, land) {
            return Some(i);
        }
        let bytes = Self::bytes_of(land);
        if !may_insert(&self.ids, self.lands_max) || self.land_bytes + bytes > self.land_cap {
            return None;
        }
        self.land_bytes += bytes;
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
        match self.ids.entry(h) {
            std::collections::hash_map::Entry::Occupied(_) => {
                // Two lands of one hash (about one in 10^7 at a million
                // lands): the second is found by its bytes.
                self.land_bytes += CLASH_BYTES + chunk(land.as_bytes().len());
                self.clash.insert(land.clone(), i);
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(i);
            }
        }
        Some(i)
    }

    /// The hash a land is kept by.
    fn land_hash(land: &Land) -> u64 {
        let mut h = FastBuild::default().build_hasher();
        h.write(land.as_bytes());
        h.write_usize(land.as_bytes().len());
        h.finish()
    }

    /// The number of `land`, of hash `h`, if it is kept.
    fn lookup(&self, h: u64, land: &Land) -> Option<u32> {
        match self.ids.get(&h) {
            Some(&i) if self.lands[i as usize] == *land => Some(i),
            Some(_) => self.clash.get(land).copied(),
            None => None,
        }
    }

    /// Bytes land `l` takes while interned besides its slot: its canonical
    /// bytes, as the allocator takes them.
    fn bytes_of(l: &Land) -> u64 {
        chunk(l.as_bytes().len())
    }

    /// Lands forgotten so far to stay within the memory.
    pub fn lands_evicted(&self) -> u64 {
        self.lands_evicted
    }

    /// Lands interned now.
    pub fn lands_known(&self) -> usize {
        self.ids.len() + self.clash.len()
    }

    /// The lands' margin: lands one node's expansion may intern.
    fn margin(&self) -> usize {
        LAND_MARGIN.min(self.lands_max / 4)
    }

    /// Whether the lands are within a margin of their share.
    fn lands_near_full(&self) -> bool {
        (self.ids.len() + self.margin() >= self.ids.capacity()
            && self.ids.len() + self.margin() >= self.lands_max / 2)
            || self.land_bytes + self.margin() as u64 * MARGIN_LAND_BYTES >= self.land_cap
    }

    /// Past the lands' share: forgets every land that no proved position,
    /// no position on the line, not the outer node and no kept land
    /// children hold. Called only where every number held is in those (the
    /// top of [`Misere::mid`], or outside the search).
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
        for (&l, kids) in self.kids.iter() {
            held[l as usize] = true;
            for &i in kids.lands.iter() {
                held[i as usize] = true;
            }
        }
        let before = self.lands_known();
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
        self.clash.retain(|land, &mut i| {
            let keep = held[i as usize];
            if !keep {
                free.push(i);
                freed += 2 * Self::bytes_of(land) + CLASH_BYTES;
            }
            keep
        });
        compact(&mut self.ids, self.lands_max);
        let gone = before - self.lands_known();
        // The slots freed keep their old land until reused: drop its bytes.
        for &i in &self.free[self.free.len() - gone..] {
            self.lands[i as usize] = Land::placeholder();
        }
        self.land_bytes -= freed;
        self.lands_evicted += gone as u64;
    }

    /// Makes room for the lands one node's expansion interns, if they are
    /// near their share: the lands nothing holds go; if those held still
    /// fill it, the land children and the older half of the proved
    /// positions go too, and the lands again. Where [`Misere::evict_lands`]
    /// may be called.
    fn room_for_lands(&mut self) {
        if !self.lands_near_full() || self.ids.len() < self.lands_next {
            return;
        }
        self.evict_lands();
        // The land children hold most lands (each names its children's):
        // they go first, cheaper to make again than proofs.
        if self.lands_near_full() {
            self.kids.clear();
            self.evict_lands();
        }
        if self.lands_near_full() {
            self.forget_proved();
            self.evict_lands();
        }
        // If the lands held still fill the share (the line holds them), not
        // again before a margin's half more are interned: each pass must
        // free room for many (and the search stops once one expansion finds
        // no room at all).
        self.lands_next = if self.lands_near_full() {
            self.ids.len() + self.margin() / 2
        } else {
            0
        };
    }

    /// The node of `p`, interning its lands (`None`: no room for them).
    fn node(&mut self, p: &Position) -> Option<Node> {
        let mut v: Vec<u32> = Vec::with_capacity(p.lands().len() + 1);
        for l in p.lands() {
            v.push(self.id(l)?);
        }
        v.sort_unstable();
        v.push(p.heap());
        Some(v.into_boxed_slice())
    }

    /// The node of `p` if every land of it is known (else it is proved of
    /// nothing).
    fn find(&self, p: &Position) -> Option<Node> {
        let mut v: Vec<u32> = Vec::with_capacity(p.lands().len() + 1);
        for l in p.lands() {
            v.push(self.lookup(Self::land_hash(l), l)?);
        }
        v.sort_unstable();
        v.push(p.heap());
        Some(v.into_boxed_slice())
    }

    /// Records a proved position (from a database); one the memory has
    /// no room for is left out (it is proved again if needed).
    pub fn add(&mut self, p: Position, wins: bool) {
        self.room_for_lands();
        if let Some(n) = self.node(&p) {
            self.prove(n, wins);
        }
    }

    /// Bytes a proved position's node takes: its box.
    fn node_bytes(n: &[u32]) -> u64 {
        chunk(4 * n.len())
    }

    /// Forgets the older half of the proved positions, except the children
    /// of the positions on the line.
    fn forget_proved(&mut self) {
        let keep_from = self
            .proved_at
            .saturating_sub((self.proved.len() / 2) as u64);
        let line: std::collections::HashSet<&[u32]> = self
            .path
            .iter()
            .flat_map(|k| k.iter().map(|c| &**c))
            .collect();
        let mut freed = 0;
        self.proved.retain(|n, &mut v| {
            let keep = v >> 1 >= keep_from || line.contains(&**n);
            if !keep {
                freed += Self::node_bytes(n);
            }
            keep
        });
        self.proved_bytes -= freed;
        compact(&mut self.proved, self.proved_max);
    }

    /// Keeps `n`'s value, forgetting the older half of the proved
    /// positions first if they fill their share of the memory (never `n`,
    /// the newest). If the line's children alone fill it, the search stops
    /// ([`Stop::Memory`]) and `n` is not kept.
    fn prove(&mut self, n: Node, wins: bool) {
        let bytes = Self::node_bytes(&n);
        let full = |e: &Self| {
            !may_insert(&e.proved, e.proved_max) || e.proved_bytes + bytes > e.proved_cap
        };
        if full(self) {
            self.forget_proved();
            if full(self) {
                self.limits.set_stop(Stop::Memory);
                return;
            }
        }
        self.proved_at += 1;
        self.proved_bytes += bytes;
        if let Some(old) = self.proved.insert(n, self.proved_at << 1 | u64::from(wins)) {
            // Proved again (a database's entry, say): counted once.
            let _ = old;
            self.proved_bytes -= bytes;
        }
    }

    /// What is proved of `p`: whether its mover wins (a position with no
    /// move is won by its mover).
    pub fn known(&self, p: &Position) -> Option<bool> {
        if p.is_over() {
            return Some(true);
        }
        self.proved.get(&self.find(p)?).map(|&v| v & 1 == 1)
    }

    /// Whether the player to move wins `p` (`None` if stopped first).
    pub fn wins(&mut self, p: &Position) -> Option<bool> {
        if let Some(w) = self.known(p) {
            return Some(w);
        }
        self.room_for_lands();
        let Some(n) = self.node(p) else {
            self.limits.set_stop(Stop::Memory);
            return None;
        };
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
        self.proved.get(n).map(|&v| v & 1 == 1)
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

    /// The children of land number `l` as land numbers (`None`: the
    /// search's limits stopped their making, or the lands' share has no
    /// room for them).
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
        let mut lands: Vec<u32> = Vec::with_capacity(children.iter().map(Vec::len).sum());
        let mut ends: Vec<u32> = Vec::with_capacity(children.len());
        for c in &children {
            let start = lands.len();
            for land in c {
                lands.push(self.id(land)?);
            }
            lands[start..].sort_unstable();
            ends.push(lands.len() as u32);
        }
        let kids = Rc::new(KidList {
            lands: lands.into_boxed_slice(),
            ends: ends.into_boxed_slice(),
        });
        self.kids.insert(l, kids.clone(), kids.bytes());
        Some(kids)
    }

    /// The children of a node: a move in one of its lands (equal lands
    /// give equal children: one of them is tried), or a smaller heap.
    /// Distinct nodes only, and the bytes they take on the line. `None`:
    /// the search's limits stopped their making (the stop is set), the
    /// lands' share has no room for the children's lands, or the line's
    /// share none for the list.
    fn children(&mut self, n: &[u32]) -> Option<(Vec<Node>, u64)> {
        let (heap, ids) = n.split_last().expect("a node ends with its heap");
        let mut all: Vec<LandKids> = Vec::new();
        for i in 0..ids.len() {
            if i > 0 && ids[i] == ids[i - 1] {
                continue;
            }
            all.push(self.land_kids(ids[i])?);
        }
        // What the list will take, before it is made: each child's box, its
        // place in the list (twice while the list becomes the line's) and
        // in the set made while proved positions are forgotten.
        let count = all.iter().map(|k| k.ends.len()).sum::<usize>() + *heap as usize;
        let mut bytes = 2 * chunk(16 * count) + count as u64 * LINE_NODE;
        for k in &all {
            for c in k.iter() {
                bytes += chunk(4 * (ids.len() + c.len()));
            }
        }
        bytes += u64::from(*heap) * Self::node_bytes(n);
        if self.bytes_held() + bytes > self.memory {
            // The land children are the cheapest to give up.
            self.kids.clear();
            if self.bytes_held() + bytes > self.memory {
                return None;
            }
        }
        let mut out: Vec<Node> = Vec::with_capacity(count);
        let mut j = 0;
        for i in 0..ids.len() {
            if i > 0 && ids[i] == ids[i - 1] {
                continue;
            }
            let kids = &all[j];
            j += 1;
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
        Some((out, bytes))
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
        self.leave();
    }

    /// Takes the innermost position's children off the line.
    fn leave(&mut self) {
        self.depth -= 1;
        self.path.pop();
        self.line_bytes -= self.path_bytes.pop().expect("a list on the line");
    }

    /// When watched: records the level (node `n`, which chose child
    /// `mine`) on the computing branch, and returns the child a steering
    /// request asks for instead, with its numbers. Any child order proves
    /// the same: a position is settled only by its children's proofs.
    fn steered(&mut self, n: &[u32], mine: usize) -> Option<(usize, u32, u32)> {
        let id = self.hash(n);
        let w = self.watch.as_mut()?;
        let depth = (self.depth as usize).saturating_sub(1);
        crate::search::couples::steer(w, depth, id, &self.seen, mine)
    }

    /// When watched and due, publishes the computing branch: the node at
    /// depth 0 is the outer one, at depth d the child computed among the
    /// children of the node above (the line's lists).
    fn publish(&mut self) {
        let Some(w) = self.watch.as_mut() else {
            return;
        };
        if !w.due() {
            return;
        }
        // Deeper levels left from a line the search has come back up from.
        w.up_to(self.depth as usize);
        let (lands, path, outer) = (&self.lands, &self.path, &self.outer);
        w.publish(
            self.nodes,
            |depth, _, child| {
                let node = match (depth, child) {
                    (0, _) => outer.as_deref(),
                    (d, Some(c)) => path.get(d - 1).and_then(|kids| kids.get(c)).map(|n| &**n),
                    _ => None,
                };
                node.map_or_else(String::new, |n| Self::position(lands, n).to_string())
            },
            |depth, _, i| {
                path.get(depth)
                    .and_then(|kids| kids.get(i))
                    .map(|n| Self::position(lands, n).to_string())
            },
        );
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
                            .map(|(n, &v)| (Self::position(lands, n), v & 1 == 1)),
                    )
                });
            }
            self.publish();
        }
        // Here every land number held is on the line (n is in its parent's
        // list, or the outer node), in a proved position or in the land
        // children kept.
        self.room_for_lands();
        // A position whose children's lands or list the memory cannot hold
        // stops the search, rather than pass --memory.
        let Some((kids, bytes)) = self.children(n) else {
            self.limits.set_stop(Stop::Memory);
            return;
        };
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let kids: Rc<[Node]> = kids.into();
        self.path.push(kids.clone());
        self.path_bytes.push(bytes);
        self.line_bytes += bytes;
        loop {
            if self.limits.stop().is_some() {
                // Stopped below: up at once, without a pass over the
                // children's numbers at every level (with 1,500 lands, 3
                // ms a level: 0.4 s past a `--time` at depth 113). Its
                // bytes off the line too: a renewed budget goes on.
                self.leave();
                return;
            }
            let mut pick = Pick::new();
            let watched = self.watch.is_some();
            self.seen.clear();
            for (c, kid) in kids.iter().enumerate() {
                let (pn, dn) = self.numbers(kid);
                if dn == 0 {
                    self.settle(n, true);
                    return;
                }
                if watched {
                    self.seen.push((pn, dn));
                }
                pick.add(c, pn, dn);
            }
            if pick.all_win() {
                self.settle(n, false);
                return;
            }
            let (pn, dn) = pick.numbers();
            if self.depth == 1 {
                self.root = (pn, dn);
            }
            if pn >= th_pn || dn >= th_dn || self.limits.stop().is_some() {
                // Kept within what the map holds without growing.
                if !may_insert(&self.tt, self.tt_max) {
                    self.tt.clear();
                }
                self.tt.insert(self.hash(n), (pn, dn));
                self.leave();
                return;
            }
            let steered = pick.best().and_then(|mine| self.steered(n, mine));
            let (c, c_th_pn, c_th_dn) = pick.child(th_pn, th_dn, self.epsilon, steered);
            self.mid(&kids[c], c_th_pn, c_th_dn);
        }
    }
}
