//! Sprouts proof databases: the facts a result rests on, re-proved from
//! their children (Glop's "check computation").
//!
//! Normal play: each entry is a couple, one land and a heap (`L` or
//! `L+*k`), that wins or loses. A loss of `L + *k` says the nimber of `L`
//! is k; so a sum's value follows from the entries of its lands. A proof
//! of a couple that wins is one child that loses; of one that loses, every
//! child winning; a child, a sum of lands, is settled by the nimbers of all
//! its lands but one (their losing couples) and the couple of that one
//! (the one the engine left unknown, as the checker folds the sum). [`normal_records`] collects, from what the engine proved, such
//! a proof of the root and nothing more, choosing for each win the losing
//! child that needs fewest new entries.
//!
//! Misère play: each entry is a whole position that wins or loses, and a
//! proof is the tree of positions the same rules give.
//!
//! Re-proving ([`verify_normal`], [`verify_misere`]) takes the entries
//! smallest first (children have fewer lives; a smaller heap comes first),
//! checks each from its children with the rules and the entries already
//! re-proved, and only then hands it to the engine; a child not settled so
//! is searched by the engine, which knows nothing else. An entry that does
//! not hold refuses the database.

use super::misere::Misere;
use super::normal::{Folded, Normal, SproutsLands};
use super::{key_of, SproutsSearch};
use crate::games::sprouts::{Land, Position};
use crate::search::couples::shrink::{shrink_pools, Entry};
use crate::search::couples::LandInfo;
use crate::search::proofdb::{CheckReport, Fact, Merged, Record, Records};
use crate::search::Bounds;
use crate::value::Value;
use std::collections::{HashMap, HashSet};

/// A record of `p`: its mover wins or loses.
fn record(p: Position, wins: bool) -> Record<Position, u128> {
    Record {
        key: key_of(&p),
        fact: Fact::Value(Bounds::exact(if wins { Value::Win } else { Value::Lose })),
        pos: p,
    }
}

/// The couples (land number, heap) a normal-play proof of `roots` rests on,
/// with whether each wins, as records. Every root must be proved.
pub fn normal_records(e: &Normal, roots: &[Position]) -> Records<SproutsSearch> {
    let mut x = Extract {
        e,
        out: HashMap::new(),
    };
    for root in roots {
        let ids: Vec<u32> = root.lands().iter().filter_map(|l| e.find(l)).collect();
        if ids.len() == root.lands().len() {
            x.sum(&ids, root.heap());
        }
    }
    x.out
        .into_iter()
        .map(|((l, k), w)| record(Position::new(vec![e.info(l).land.clone()], k), w))
        .collect()
}

/// Every couple settled among `lands` (what the normal-play engine knows):
/// each land's nimber as the couple that loses, else each heap proved to
/// win beside it. Not a closed proof (a child an entry rests on may have
/// been forgotten), but each entry re-proves from its children, searching
/// what the others do not settle: what a stopped search saves to resume.
pub fn normal_settled<'l, I: Iterator<Item = &'l LandInfo<Land>>>(
    lands: I,
) -> impl Iterator<Item = Record<Position, u128>> + use<'l, I> {
    lands.flat_map(|info| {
        let land = || vec![info.land.clone()];
        let facts: Vec<Record<Position, u128>> = match info.nimber {
            Some(n) => vec![record(Position::new(land(), n), false)],
            None => info
                .win_heaps()
                .map(|k| record(Position::new(land(), k), true))
                .collect(),
        };
        facts
    })
}

/// Every position the misère engine has proved and kept, as records.
pub fn misere_settled(
    proved: impl Iterator<Item = (Position, bool)>,
) -> impl Iterator<Item = Record<Position, u128>> {
    proved.map(|(p, wins)| record(p, wins))
}

struct Extract<'e, 'a> {
    e: &'e Normal<'a>,
    out: HashMap<(u32, u32), bool>,
}

impl Extract<'_, '_> {
    /// Entries that settle the sum of `ids` and heap `k` (see
    /// [`Extract::sum_needs`]).
    fn sum(&mut self, ids: &[u32], k: u32) -> bool {
        if matches!(self.e.fold(ids, k), Folded::Sum(..)) {
            return false;
        }
        if let Folded::Couple(l, x) = self.e.fold(ids, k) {
            if self.e.known(l, x).is_none() {
                return false;
            }
        }
        for (l, x) in self.sum_needs(ids, k) {
            self.couple(l, x);
        }
        true
    }

    /// The entries of couple `l + *k` (proved) and of its proof.
    fn couple(&mut self, l: u32, k: u32) {
        let mut stack = vec![(l, k)];
        while let Some((l, k)) = stack.pop() {
            if self.out.contains_key(&(l, k)) {
                continue;
            }
            let Some(wins) = self.e.known(l, k) else {
                continue;
            };
            self.out.insert((l, k), wins);
            let kids = self.kids(l);
            if wins {
                // The losing child that needs fewest new entries.
                let mut best: Option<(usize, Vec<(u32, u32)>)> = None;
                if let Some(n) = self.e.info(l).nimber.filter(|&n| n < k) {
                    best = Some((self.new_count(&[(l, n)]), vec![(l, n)]));
                }
                for c in &kids {
                    if let Some(need) = self.loss_needs(c, k) {
                        let cost = self.new_count(&need);
                        if best.as_ref().is_none_or(|(b, _)| cost < *b) {
                            best = Some((cost, need));
                        }
                    }
                }
                if let Some((_, need)) = best {
                    stack.extend(need);
                }
            } else {
                stack.extend((0..k).map(|j| (l, j)));
                for c in &kids {
                    stack.extend(self.sum_needs(c, k));
                }
            }
        }
    }

    /// The children of land `l` whose lands are all interned, as land
    /// numbers. A land the engine never went into has no number and
    /// nothing proved of it, so a child holding one settles nothing here;
    /// dropping only that land would make the child a smaller sum than it
    /// is (an empty one reads as a loss).
    fn kids(&self, l: u32) -> Vec<Vec<u32>> {
        self.e
            .info(l)
            .land
            .children()
            .iter()
            .filter_map(|c| c.iter().map(|land| self.e.find(land)).collect())
            .collect()
    }

    fn new_count(&self, need: &[(u32, u32)]) -> usize {
        need.iter().filter(|c| !self.out.contains_key(c)).count()
    }

    /// The couples that settle the sum `c + *k` (all known) as the checker
    /// folds it, or nothing if it is not settled: the nimbers of its lands
    /// but one and the couple of that one, which is the land the engine
    /// left unknown if there is one (not the sum's largest: that one's
    /// nimber may be the one known), else the largest (its couple is
    /// cheaper to prove than its nimber).
    fn sum_needs(&self, c: &[u32], k: u32) -> Vec<(u32, u32)> {
        let left = match self.e.fold(c, k) {
            Folded::Heap(_) => c.iter().copied().max_by_key(|&i| (self.e.info(i).size, i)),
            Folded::Couple(l, _) => Some(l),
            Folded::Sum(..) => return Vec::new(),
        };
        let Some(left) = left else {
            return Vec::new();
        };
        let mut need = Vec::new();
        let mut x = k;
        let mut odd: Vec<u32> = c.to_vec();
        odd.sort_unstable();
        let mut j = 0;
        let mut skipped = false;
        while j < odd.len() {
            if j + 1 < odd.len() && odd[j] == odd[j + 1] {
                // A pair cancels in the checker's fold, known or not.
                j += 2;
                continue;
            }
            let i = odd[j];
            j += 1;
            if i == left && !skipped {
                skipped = true;
                continue;
            }
            match self.e.info(i).nimber {
                Some(n) => {
                    x ^= n;
                    need.push((i, n));
                }
                None => return Vec::new(),
            }
        }
        if skipped {
            need.push((left, x));
        }
        need
    }

    /// The couples that show the sum `c + *k` loses, if it is known to.
    fn loss_needs(&self, c: &[u32], k: u32) -> Option<Vec<(u32, u32)>> {
        match self.e.fold(c, k) {
            Folded::Heap(0) => Some(self.sum_needs(c, k)),
            Folded::Couple(l2, k2) if self.e.known(l2, k2) == Some(false) => {
                Some(self.sum_needs(c, k))
            }
            _ => None,
        }
    }
}

/// The positions a misère proof of `roots` rests on, as records.
pub fn misere_records(e: &Misere, roots: &[Position]) -> Records<SproutsSearch> {
    let mut out: HashMap<Position, bool> = HashMap::new();
    let mut stack: Vec<Position> = roots.to_vec();
    while let Some(p) = stack.pop() {
        if p.is_over() || out.contains_key(&p) {
            continue;
        }
        let Some(wins) = e.known(&p) else { continue };
        out.insert(p.clone(), wins);
        let kids = p.children();
        if wins {
            let pick = kids
                .iter()
                .filter(|c| e.known(c) == Some(false))
                .min_by_key(|c| (!out.contains_key(*c), c.lives()));
            stack.extend(pick.cloned());
        } else {
            stack.extend(kids);
        }
    }
    out.into_iter().map(|(p, w)| record(p, w)).collect()
}

/// An entry's claim: whether its mover wins.
fn claim(g: &SproutsSearch, db: &Merged<SproutsSearch>, i: usize) -> crate::Result<bool> {
    let r = &db.records()[i];
    match r.fact {
        Fact::Value(b) if b.lo == b.hi && b.lo != 0 => Ok(b.lo > 0),
        _ => Err(db.refuted(
            g,
            i,
            "a value".into(),
            "a Sprouts entry says win or lose".into(),
        )),
    }
}

/// Re-proves every normal-play entry and hands those that hold to the
/// engine. `stop` ends the pass early (the rest unused).
pub fn verify_normal(
    g: &SproutsSearch,
    db: &Merged<SproutsSearch>,
    e: &mut Normal,
    stop: &dyn Fn() -> bool,
) -> crate::Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut order: Vec<(u32, u32, usize)> = Vec::with_capacity(db.len());
    for (i, r) in db.records().iter().enumerate() {
        if r.pos.lands().len() != 1 {
            return Err(db.refuted(
                g,
                i,
                "an entry".into(),
                "a normal-play Sprouts entry is one land and a heap".into(),
            ));
        }
        order.push((r.pos.lands()[0].lives(), r.pos.heap(), i));
    }
    order.sort_unstable();
    for (_, k, i) in order {
        if stop() || e.stop_reason().is_some() {
            break;
        }
        let wins = claim(g, db, i)?;
        let land: Land = db.records()[i].pos.lands()[0].clone();
        let l = e.id(&land);
        // Land numbers are taken afresh before each search: one held
        // across a search may be forgotten and reused when memory is short.
        // Made within the engine's limits: a land can have very many.
        let Some(kids) = e.generating(|stop| land.children_until(stop)) else {
            return Ok(unchecked(report, db));
        };
        let ids = |e: &mut Normal, c: &[Land]| -> Vec<u32> { c.iter().map(|x| e.id(x)).collect() };
        let before = e.stats().nodes;
        let refuted = |why: String| db.refuted(g, i, if wins { "win" } else { "loss" }.into(), why);
        if let Some(w) = e.known(l, k) {
            // Already settled by entries re-proved before it.
            if w != wins {
                return Err(refuted("the entries before it say otherwise".into()));
            }
        } else if wins {
            // A child that loses: the rules or an entry first, then search.
            let settled = (0..k).any(|j| e.known(l, j) == Some(false))
                || kids.iter().any(|c| {
                    let c = ids(e, c);
                    match e.fold(&c, k) {
                        Folded::Heap(x) => x == 0,
                        Folded::Couple(l2, k2) => e.known(l2, k2) == Some(false),
                        Folded::Sum(..) => false,
                    }
                });
            if !settled {
                let mut found = false;
                for j in 0..k {
                    let l = e.id(&land);
                    match e.couple_wins(l, j) {
                        Some(false) => {
                            found = true;
                            break;
                        }
                        Some(true) => {}
                        None => return Ok(unchecked(report, db)),
                    }
                }
                if !found {
                    for c in &kids {
                        let c = ids(e, c);
                        match e.sum_wins(&c, k) {
                            Some(false) => {
                                found = true;
                                break;
                            }
                            Some(true) => {}
                            None => return Ok(unchecked(report, db)),
                        }
                    }
                }
                if !found {
                    return Err(refuted("no move achieves it".into()));
                }
            }
        } else {
            for j in 0..k {
                let l = e.id(&land);
                if e.known(l, j).is_none() && wins_by_a_child(e, l, j).is_none() {
                    return Ok(unchecked(report, db));
                }
                let l = e.id(&land);
                match e.couple_wins(l, j) {
                    Some(true) => {}
                    Some(false) => {
                        return Err(refuted(format!(
                            "taking the heap to {j} leaves a loss (the land's nimber is {j})"
                        )))
                    }
                    None => return Ok(unchecked(report, db)),
                }
            }
            for c in &kids {
                let c_ids = ids(e, c);
                if let Folded::Couple(l2, k2) = e.fold(&c_ids, k) {
                    if e.known(l2, k2).is_none() && wins_by_a_child(e, l2, k2).is_none() {
                        return Ok(unchecked(report, db));
                    }
                }
                // Afresh: a win recorded may have made room.
                let c_ids = ids(e, c);
                match e.sum_wins(&c_ids, k) {
                    Some(true) => {}
                    Some(false) => {
                        let child = Position::new(c.clone(), k);
                        return Err(refuted(format!("the move to {child} leaves a loss")));
                    }
                    None => return Ok(unchecked(report, db)),
                }
            }
        }
        report.searched += e.stats().nodes - before;
        if wins {
            e.add_win(&land, k);
        } else {
            e.add_loss(&land, k);
        }
        report.checked += 1;
    }
    Ok(unchecked(report, db))
}

/// Whether `l + *k` (land number `l`) wins by a child that the nimbers
/// known already show lost (a sum whose nimbers, all known, cancel the
/// heap), recorded if so: the rule by which a database may leave out the
/// wins a loss needs of its children (as Glop's check databases, which
/// keep the losses), each re-proven from one level of children with no
/// search. `None` if the engine's limits stopped the making of the
/// children; `Some(false)` if no child is so shown lost (a search would be
/// needed).
fn wins_by_a_child(e: &mut Normal, l: u32, k: u32) -> Option<bool> {
    let land = e.info(l).land.clone();
    let kids = e.generating(|stop| land.children_until(stop))?;
    let found = kids.iter().any(|c| {
        let ids: Vec<u32> = c.iter().map(|x| e.id(x)).collect();
        e.fold(&ids, k) == Folded::Heap(0)
    });
    if found {
        e.add_win(&land, k);
    }
    Some(found)
}

/// The report with the entries not re-proved counted.
fn unchecked(mut report: CheckReport, db: &Merged<SproutsSearch>) -> CheckReport {
    report.unchecked = db.len() as u64 - report.checked;
    report
}

/// Re-proves every misère entry and hands those that hold to the engine.
pub fn verify_misere(
    g: &SproutsSearch,
    db: &Merged<SproutsSearch>,
    e: &mut Misere,
    stop: &dyn Fn() -> bool,
) -> crate::Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut order: Vec<(u32, u32, usize)> = db
        .records()
        .iter()
        .enumerate()
        .map(|(i, r)| (r.pos.lives(), r.pos.heap(), i))
        .collect();
    order.sort_unstable();
    for (_, _, i) in order {
        if stop() || e.stop_reason().is_some() {
            break;
        }
        let wins = claim(g, db, i)?;
        let p = db.records()[i].pos.clone();
        let refuted = |why: String| db.refuted(g, i, if wins { "win" } else { "loss" }.into(), why);
        if p.is_over() {
            if !wins {
                return Err(refuted("no move is left: its mover wins".into()));
            }
            report.checked += 1;
            continue;
        }
        let before = e.stats().nodes;
        // Made within the engine's limits: a position can have very many.
        let Some(kids) = e.generating(|stop| p.children_until(stop)) else {
            return Ok(unchecked(report, db));
        };
        if wins {
            if !kids.iter().any(|c| e.known(c) == Some(false)) {
                let mut found = false;
                for c in &kids {
                    match e.wins(c) {
                        Some(false) => {
                            found = true;
                            break;
                        }
                        Some(true) => {}
                        None => return Ok(unchecked(report, db)),
                    }
                }
                if !found {
                    return Err(refuted("no move achieves it".into()));
                }
            }
        } else {
            for c in &kids {
                match e.wins(c) {
                    Some(true) => {}
                    Some(false) => return Err(refuted(format!("the move to {c} leaves a loss"))),
                    None => return Ok(unchecked(report, db)),
                }
            }
        }
        report.searched += e.stats().nodes - before;
        e.add(p, wins);
        report.checked += 1;
    }
    Ok(unchecked(report, db))
}

/// Hands every normal-play entry to the engine unchecked (`--trust-load`).
pub fn trust_normal(db: &Merged<SproutsSearch>, e: &mut Normal) -> CheckReport {
    let mut seen = HashSet::new();
    for r in db.records() {
        if let (Fact::Value(b), [land]) = (r.fact, r.pos.lands()) {
            if seen.insert(r.key) {
                if b.lo > 0 {
                    e.add_win(land, r.pos.heap());
                } else if b.hi < 0 {
                    e.add_loss(land, r.pos.heap());
                }
            }
        }
    }
    CheckReport {
        trusted: db.len() as u64,
        ..CheckReport::default()
    }
}

/// Hands every misère entry to the engine unchecked (`--trust-load`).
pub fn trust_misere(db: &Merged<SproutsSearch>, e: &mut Misere) -> CheckReport {
    for r in db.records() {
        if let Fact::Value(b) = r.fact {
            if b.lo == b.hi && b.lo != 0 {
                e.add(r.pos.clone(), b.lo > 0);
            }
        }
    }
    CheckReport {
        trusted: db.len() as u64,
        ..CheckReport::default()
    }
}

/// Shrinks a normal-play proof to few entries from which
/// [`verify_normal`] re-proves `root` with no search (Glop's check
/// database): see [`crate::search::couples::shrink`]. `records` may be any
/// true entries (a saved proof, or all a search settled); `None` if they
/// do not settle `root` without search.
pub fn shrink_normal(
    records: &[Record<Position, u128>],
    root: &Position,
) -> Option<Records<SproutsSearch>> {
    let pool: Vec<Entry<Land>> = records
        .iter()
        .filter_map(|r| match (r.fact, r.pos.lands()) {
            (Fact::Value(b), [land]) if b.lo == b.hi && b.lo != 0 => {
                Some((land.clone(), r.pos.heap(), b.lo > 0))
            }
            _ => None,
        })
        .collect();
    // The richer pool usually gives the smaller set, not always (the
    // choice is a heuristic's): both are tried.
    let rich = enrich(pool.clone(), root);
    let set = shrink_pools(&SproutsLands, &[&pool, &rich], root.lands(), root.heap())?;
    Some(
        set.into_iter()
            .map(|(land, k, wins)| record(Position::new(vec![land], k), wins))
            .collect(),
    )
}

/// The nimbers the shrinking may choose from: those of `pool` and, found
/// by a search of a bounded budget, those of the lands of the children and
/// grandchildren of its lands and of `root`'s (smallest first): a proof
/// saved holds one child per win, and a loss's children are settled most
/// cheaply by nimbers it did not need. Every nimber added is re-proven by
/// the check of the database written, as any other entry.
fn enrich(mut pool: Vec<Entry<Land>>, root: &Position) -> Vec<Entry<Land>> {
    let mut lands: HashSet<Land> = pool.iter().map(|e| e.0.clone()).collect();
    lands.extend(root.lands().iter().cloned());
    let mut wanted: HashSet<Land> = HashSet::new();
    // Making the children of every land costs what the shrinking's own
    // model does: on a large proof, only the smallest lands' are looked
    // at (the budget would not reach further).
    let mut level: Vec<Land> = lands.iter().cloned().collect();
    level.sort_by_cached_key(|l| (l.lives(), l.to_string()));
    level.truncate(ENRICH_LANDS);
    for _ in 0..overridden("RETROGRADE_ENRICH_DEPTH", ENRICH_DEPTH) {
        let mut next = Vec::new();
        for l in &level {
            for c in l.children() {
                for m in c {
                    if !lands.contains(&m) && wanted.insert(m.clone()) {
                        next.push(m);
                    }
                }
            }
        }
        level = next;
    }
    let mut wanted: Vec<Land> = wanted.into_iter().collect();
    wanted.sort_by_key(|l| (l.lives(), l.to_string()));
    let budget = overridden("RETROGRADE_ENRICH_NODES", ENRICH_NODES)
        + ENRICH_NODES_PER_ENTRY * pool.len().min(ENRICH_ENTRIES) as u64;
    let mut e = Normal::new(&crate::search::engine::Options {
        node_limit: Some(budget),
        ..Default::default()
    });
    for m in &wanted {
        if e.nimber(&Position::new(vec![m.clone()], 0)).is_none() {
            break;
        }
    }
    for info in e.lands() {
        if let Some(n) = info.nimber {
            if !lands.contains(&info.land) {
                pool.push((info.land.clone(), n, false));
            }
        }
    }
    pool
}

/// `default`, or the number in environment variable `name`: a diagnostic
/// (docs/CHECKING.md, "The model's floor") to see what a richer pool
/// would give, at the cost of time the default bounds.
fn overridden<T: std::str::FromStr>(name: &str, default: T) -> T {
    let Ok(v) = std::env::var(name) else {
        return default;
    };
    v.parse().unwrap_or_else(|_| {
        // Said, not silently dropped: the figures a user measures with it
        // would otherwise be the default's.
        eprintln!("{name}: {v:?} is not a number; the default is used");
        default
    })
}

/// How many levels of children [`enrich`] looks for nimbers in.
const ENRICH_DEPTH: usize = 2;
/// The search budget of [`enrich`] (couples), fixed and per entry read:
/// on `sprouts:6` and `sprouts:11` it finds every nimber looked for
/// (354 entries read become 4,294, 792 become 6,987).
const ENRICH_NODES: u64 = 20_000;
const ENRICH_NODES_PER_ENTRY: u64 = 20;
/// The entries read that raise [`enrich`]'s budget, and the lands whose
/// children it looks at, at most: its time is bounded however large the
/// proof (on `sprouts:15`, 24,765 entries read, the unbounded budget took
/// ten minutes).
const ENRICH_ENTRIES: usize = 5_000;
const ENRICH_LANDS: usize = 10_000;

/// Shrinks a misère proof to few positions from which [`verify_misere`]
/// re-proves `root` with no search: the proof tree whose wins each keep
/// the losing child already kept, else the one of smallest estimated
/// proof, chosen from the root down (most lives first), repeated within
/// what it kept until it keeps no less; then every position whose users
/// pass without it is dropped. `None` if `records` do not settle `root`.
pub fn shrink_misere(
    records: &[Record<Position, u128>],
    root: &Position,
) -> Option<Records<SproutsSearch>> {
    let mut pool: HashMap<u128, (Position, bool)> = HashMap::new();
    for r in records {
        if let Fact::Value(b) = r.fact {
            if b.lo == b.hi && b.lo != 0 {
                pool.insert(key_of(&r.pos), (r.pos.clone(), b.lo > 0));
            }
        }
    }
    let mut kids: HashMap<u128, Vec<Position>> = HashMap::new();
    let mut best: Option<HashMap<u128, (Position, bool)>> = None;
    loop {
        let closed = misere_closed(&pool, &mut kids);
        let chosen = misere_choose(&closed, &mut kids, root)?;
        if best.as_ref().is_some_and(|b| chosen.len() >= b.len()) {
            break;
        }
        pool = chosen.clone();
        best = Some(chosen);
    }
    let mut set = best?;
    misere_drop(&mut set, &mut kids, root);
    if misere_closed(&set, &mut kids).len() != set.len() {
        return None;
    }
    Some(set.into_values().map(|(p, w)| record(p, w)).collect())
}

/// The children of `p`, made once.
fn kids_of<'k>(kids: &'k mut HashMap<u128, Vec<Position>>, p: &Position) -> &'k [Position] {
    kids.entry(key_of(p)).or_insert_with(|| p.children())
}

/// What the misère checker says of `c` given the entries `set`.
fn misere_known(set: &HashMap<u128, (Position, bool)>, c: &Position) -> Option<bool> {
    if c.is_over() {
        return Some(true);
    }
    set.get(&key_of(c)).map(|e| e.1)
}

/// The entries of `set` the misère checker takes with no search, fewest
/// lives first.
fn misere_closed(
    set: &HashMap<u128, (Position, bool)>,
    kids: &mut HashMap<u128, Vec<Position>>,
) -> HashMap<u128, (Position, bool)> {
    let mut order: Vec<(&u128, &(Position, bool))> = set.iter().collect();
    order.sort_by_key(|(k, (p, _))| (p.lives(), p.heap(), **k));
    let mut ok: HashMap<u128, (Position, bool)> = HashMap::new();
    for (&k, (p, wins)) in order {
        let passes = if p.is_over() {
            *wins
        } else if *wins {
            kids_of(kids, p)
                .iter()
                .any(|c| misere_known(&ok, c) == Some(false))
        } else {
            kids_of(kids, p)
                .iter()
                .all(|c| misere_known(&ok, c) == Some(true))
        };
        if passes {
            ok.insert(k, (p.clone(), *wins));
        }
    }
    ok
}

/// One choice of a misère proof of `root` within `closed`.
fn misere_choose(
    closed: &HashMap<u128, (Position, bool)>,
    kids: &mut HashMap<u128, Vec<Position>>,
    root: &Position,
) -> Option<HashMap<u128, (Position, bool)>> {
    // Estimated proof sizes, as trees, fewest lives first.
    let mut order: Vec<(&u128, &(Position, bool))> = closed.iter().collect();
    order.sort_by_key(|(k, (p, _))| (p.lives(), p.heap(), **k));
    let mut est: HashMap<u128, f64> = HashMap::new();
    for (&k, (p, wins)) in order {
        let cost = |c: &Position| -> Option<f64> {
            if c.is_over() {
                return Some(0.0);
            }
            est.get(&key_of(c)).copied()
        };
        let e = if p.is_over() {
            Some(1.0)
        } else if *wins {
            kids_of(kids, p)
                .iter()
                .filter(|c| misere_known(closed, c) == Some(false))
                .filter_map(cost)
                .min_by(f64::total_cmp)
                .map(|c| c + 1.0)
        } else {
            kids_of(kids, p)
                .iter()
                .map(cost)
                .sum::<Option<f64>>()
                .map(|c| c + 1.0)
        };
        if let Some(e) = e {
            est.insert(k, e);
        }
    }
    let mut out: HashMap<u128, (Position, bool)> = HashMap::new();
    let mut queue: std::collections::BinaryHeap<(u32, u32, u128)> = Default::default();
    let rk = key_of(root);
    if root.is_over() {
        return Some(out);
    }
    let (p, w) = closed.get(&rk)?.clone();
    queue.push((p.lives(), p.heap(), rk));
    out.insert(rk, (p, w));
    while let Some((_, _, k)) = queue.pop() {
        let (p, wins) = out[&k].clone();
        let picked: Vec<Position> = if wins {
            let pick = kids_of(kids, &p)
                .iter()
                .filter(|c| misere_known(closed, c) == Some(false))
                .min_by(|a, b| {
                    let price = |c: &Position| -> f64 {
                        if out.contains_key(&key_of(c)) {
                            0.0
                        } else {
                            est.get(&key_of(c)).copied().unwrap_or(f64::INFINITY)
                        }
                    };
                    price(a)
                        .total_cmp(&price(b))
                        .then(a.lives().cmp(&b.lives()))
                })?
                .clone();
            vec![pick]
        } else {
            kids_of(kids, &p).to_vec()
        };
        for c in picked {
            if c.is_over() {
                continue;
            }
            let ck = key_of(&c);
            if out.contains_key(&ck) {
                continue;
            }
            let (cp, cw) = closed.get(&ck)?.clone();
            queue.push((cp.lives(), cp.heap(), ck));
            out.insert(ck, (cp, cw));
        }
    }
    Some(out)
}

/// Drops every misère position whose users (the positions of `set` one
/// move above it, and the root) all pass without it, most lives first.
fn misere_drop(
    set: &mut HashMap<u128, (Position, bool)>,
    kids: &mut HashMap<u128, Vec<Position>>,
    root: &Position,
) {
    let mut users: HashMap<u128, Vec<u128>> = HashMap::new();
    let keys: Vec<u128> = set.keys().copied().collect();
    for &k in &keys {
        let p = set[&k].0.clone();
        for c in kids_of(kids, &p) {
            users.entry(key_of(c)).or_default().push(k);
        }
    }
    let mut order: Vec<(u32, u128)> = keys.iter().map(|&k| (set[&k].0.lives(), k)).collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let rk = key_of(root);
    for (_, k) in order {
        if k == rk {
            continue;
        }
        let gone = set.remove(&k).expect("an entry");
        let ok = users.get(&k).into_iter().flatten().all(|u| {
            let Some((p, wins)) = set.get(u) else {
                return true;
            };
            // A loss needs every child; a win one losing child.
            *wins
                && kids_of(kids, &p.clone())
                    .iter()
                    .any(|c| misere_known(set, c) == Some(false))
        });
        if !ok {
            set.insert(k, gone);
        }
    }
}
