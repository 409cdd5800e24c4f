//! Cram by Lemoine and Viennot's method (`retrograde search cram:RxC
//! --engine couples`): a position is the sum of its regions, and the couples
//! engine ([`crate::search::couples`]) proves only the couples `R + *k` an
//! outcome (or a nimber) needs, rather than every region's whole nimber as
//! the component search does.
//!
//! A land is a region's key ([`CramSearch::region_key`]: the live squares
//! in their bounding box, least over the 8 symmetries), which holds the
//! region whole: its children are found on a board of the box's size, so a
//! region met on any board, anywhere, in any orientation, is one land.
//! Nimber tables answer the regions that fit them. What the search proves
//! is kept as the component search keeps it: a proof database of region
//! nimbers (`--save`, `--load`, `--check`, `proofdb merge`), so the regions
//! proved in one run are leaves of the next.

use super::cram::{CramNimberLeaves, CramSearch};
use super::cram_sets::{CramSets, SetsProver};
use crate::error::{Error, Result};
use crate::games::AnyGame;
use crate::search::couples::{Couples, Folded, LandInfo, Lands};
use crate::search::engine::{Answer, Counted, Engine, Notice, Options, SearchOptions, Stats};
use crate::search::hash::{FastBuild, FastHasher};
use crate::search::leaves::{sort_tables, Leaves, NimberLeaves, TableLeaves};
use crate::search::nimber::NimberSearch;
use crate::search::proofdb::{self, CheckReport, Fact, Kind, Record};
use crate::search::prover::{refuse_moves, standard, Engines, Proved, Prover, Purpose, Setup};
use crate::search::{Bounds, SearchGame, Stop};
use crate::value::Value;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// Cram's regions as lands: keys, with a board for every bounding box.
pub struct CramLands<'a> {
    /// `boards[h * 65 + w]`: the h×w board, for h·w ≤ 64.
    boards: Vec<Option<CramSearch>>,
    /// `mirrors[h * 65 + w]`: the involutions of the h×w box (its
    /// symmetries σ with σ∘σ the identity, the identity left out), each as
    /// its permutation of the box's squares and the squares `s` at which
    /// a domino would meet its own image (σ(s) = s, or σ(s) next to s).
    mirrors: Vec<Vec<Mirror>>,
    leaves: Option<&'a dyn NimberLeaves<CramSearch>>,
}

/// An involution of a bounding box, for the mirror strategy.
struct Mirror {
    /// The image of each square of the box (`row·w + col`).
    perm: Vec<u8>,
    /// Squares a region must not hold for the strategy to work.
    bad: u64,
}

/// The involutions of the h×w box, from the board's symmetries
/// ([`crate::games::symmetry::grid_perms`], the one definition of them).
fn mirrors(h: u32, w: u32) -> Vec<Mirror> {
    let perms = crate::games::symmetry::grid_perms(h, w);
    let n = (h * w) as usize;
    perms
        .into_iter()
        .filter(|p| {
            (0..n).any(|s| p[s] as usize != s) && (0..n).all(|s| p[p[s] as usize] as usize == s)
        })
        .map(|p| {
            let mut bad = 0u64;
            for (s, &t) in p.iter().enumerate() {
                let (s, t) = (s as u32, u32::from(t));
                let (r, c, tr, tc) = (s / w, s % w, t / w, t % w);
                if r.abs_diff(tr) + c.abs_diff(tc) <= 1 {
                    bad |= 1 << s;
                }
            }
            Mirror {
                perm: p.into_iter().map(|s| s as u8).collect(),
                bad,
            }
        })
        .collect()
}

impl<'a> CramLands<'a> {
    /// Every board of at most 64 squares, and the nimber tables, if any.
    pub fn new(leaves: Option<&'a dyn NimberLeaves<CramSearch>>) -> CramLands<'a> {
        let mut boards = vec![None; 65 * 65];
        let mut all = Vec::with_capacity(65 * 65);
        all.resize_with(65 * 65, Vec::new);
        for h in 1..=64u32 {
            for w in 1..=64 / h {
                boards[(h * 65 + w) as usize] = CramSearch::new(h, w, false).ok();
                all[(h * 65 + w) as usize] = mirrors(h, w);
            }
        }
        CramLands {
            boards,
            mirrors: all,
            leaves,
        }
    }

    /// The region of `key` on the board of its bounding box, as a position
    /// of that board.
    fn placed(&self, key: u128) -> (&CramSearch, u64) {
        let h = (key >> 72) as u32;
        let w = ((key >> 64) & 0xff) as u32;
        let b = self.boards[(h * 65 + w) as usize]
            .as_ref()
            .expect("a region key's box has at most 64 squares");
        (b, b.full() & !(key as u64))
    }

    /// The regions of a position of `g`, as lands.
    pub fn lands_of(g: &CramSearch, p: u64) -> Vec<u128> {
        g.components(&p).iter().map(|c| g.key(c)).collect()
    }
}

impl Lands for CramLands<'_> {
    type Land = u128;

    /// The region in Glop's notation on its bounding box, and the heap.
    fn text(&self, land: &u128, heap: u32) -> String {
        let (b, p) = self.placed(*land);
        match heap {
            0 => b.format_glop(p),
            k => format!("{} +*{k}", b.format_glop(p)),
        }
    }

    /// Its live squares.
    fn size(&self, land: &u128) -> u32 {
        (*land as u64).count_ones()
    }

    /// Each distinct sum of regions a domino leaves, in the search's move
    /// order (fewest replies first).
    fn children(&self, land: &u128) -> Vec<Vec<u128>> {
        let (b, p) = self.placed(*land);
        let mut seen: std::collections::HashSet<Vec<u128>, FastBuild> = Default::default();
        let mut out = Vec::new();
        for (_, c) in b.moves(&p) {
            let mut lands = CramLands::lands_of(b, c);
            lands.sort_unstable();
            if seen.insert(lands.clone()) {
                out.push(lands);
            }
        }
        out
    }

    /// As [`CramLands::children`], with no allocation per child: each
    /// child's region keys are written in place, sorted, and dropped again
    /// if an earlier move left the same regions.
    fn children_into(&self, land: &u128, lands: &mut Vec<u128>, ends: &mut Vec<u32>) {
        let (b, p) = self.placed(*land);
        // Each child kept: a fingerprint, to find repeats at a glance, and
        // where its lands are.
        let mut kept: Vec<(u64, usize, usize)> = Vec::new();
        for (_, c) in b.moves(&p) {
            let start = lands.len();
            b.region_keys_into(b.live(c), lands);
            lands[start..].sort_unstable();
            let mut h = FastHasher::default();
            lands[start..].hash(&mut h);
            let print = h.finish();
            let end = lands.len();
            let repeat = kept
                .iter()
                .any(|&(q, from, to)| q == print && lands[from..to] == lands[start..end]);
            if repeat {
                lands.truncate(start);
            } else {
                kept.push((print, start, end));
                ends.push(end as u32);
            }
        }
    }

    fn leaf(&self, land: &u128) -> Option<u32> {
        let (b, p) = self.placed(*land);
        self.leaves?.nimber(b, &p)
    }

    /// The mirror strategy: a region mapped onto itself by an involution σ
    /// of its bounding box (any symmetry of a region maps its box onto
    /// itself) such that no domino D of the region meets σ(D) is lost for
    /// the player to move. After any move D, the squares of σ(D) are still
    /// empty (σ(D) is disjoint from D, and was empty in the symmetric
    /// position before D), so the reply σ(D) is legal and leaves a
    /// symmetric position again; the second player never runs out of
    /// moves. A domino meets its image exactly when one of its squares is
    /// fixed by σ or sent next to itself: the `bad` squares, of which the
    /// region may hold none (its squares all lie in some domino: a region
    /// is of live squares, each with a live neighbour). On a connected
    /// region only the half turn can pass (a reflection's axis, or a
    /// diagonal, is crossed by a domino or held by a square), but every
    /// involution is tried: the test checks the rule on all of them.
    fn zero(&self, land: &u128) -> bool {
        let h = (*land >> 72) as u32;
        let w = ((*land >> 64) & 0xff) as u32;
        let bits = *land as u64;
        let Some(mirrors) = self.mirrors.get((h * 65 + w) as usize) else {
            return false;
        };
        mirrors.iter().any(|m| {
            if bits & m.bad != 0 {
                return false;
            }
            let mut b = bits;
            while b != 0 {
                let s = b.trailing_zeros();
                b &= b - 1;
                if bits >> m.perm[s as usize] & 1 == 0 {
                    return false;
                }
            }
            true
        })
    }
}

impl Engines for CramSearch {
    /// The couples engine's entries are regions, not positions.
    fn saves_position(&self, request: &SearchOptions, _p: &u64) -> bool {
        request.engine != Engine::Couples
    }

    /// The engine of couples sums normal-play regions, proves one
    /// position, and keeps region nimbers.
    fn refuse(&self, request: &SearchOptions) -> Result<()> {
        refuse_moves(request)?;
        if request.engine == Engine::Sets {
            let sets = |rule: &str| Error::SearchOption {
                option: "--engine",
                given: "sets".into(),
                rule: rule.into(),
            };
            if self.misere() {
                return Err(sets(
                    "computes normal-play nimbers; misère Cram is not a sum (use --engine dfpn)",
                ));
            }
            if !request.nimber {
                return Err(sets("computes nimbers: add --nimber"));
            }
            if request.save.is_some() || !request.load.is_empty() || !request.tablebases.is_empty()
            {
                return Err(sets(
                    "keeps no proof database and takes no tables (use --engine couples)",
                ));
            }
            if request.openings.is_some() {
                return Err(sets("proves one position: it does not list --openings"));
            }
            return Ok(());
        }
        if request.engine != Engine::Couples {
            return Ok(());
        }
        if self.misere() {
            return Err(refused(
                "sums normal-play Cram's regions; misère Cram is not a sum (use --engine dfpn)",
            ));
        }
        if request.openings.is_some() {
            return Err(refused("proves one position: it does not list --openings"));
        }
        if !request.nimber && (request.save.is_some() || !request.load.is_empty()) {
            return Err(refused(
                "keeps region nimbers: --save and --load go with --nimber",
            ));
        }
        Ok(())
    }

    /// Tables of the same board, and with `--nimber` (or the engine of
    /// couples, which takes only those) Cram nimber tables of any size,
    /// whose regions answer for the regions that fit them.
    fn leaves(
        &self,
        request: &SearchOptions,
        paths: &[PathBuf],
        kind: Kind,
    ) -> Result<Option<Leaves<Self>>> {
        if paths.is_empty() {
            return Ok(None);
        }
        let (same, regions) = if request.engine == Engine::Couples {
            (Vec::new(), paths.to_vec())
        } else {
            let region = |tb: &crate::Tablebase<crate::reader::FileStorage>| {
                kind == Kind::Nimbers && matches!(tb.game(), AnyGame::Cram(_))
            };
            sort_tables(
                self,
                paths,
                region,
                " (or, with --nimber, Cram nimber tables)",
            )?
        };
        let regions: Option<Box<dyn NimberLeaves<Self>>> = match regions.is_empty() {
            true => None,
            false => Some(Box::new(CramNimberLeaves::open(&regions)?)),
        };
        Ok(Some(Leaves::new(TableLeaves::open(&same)?, regions)))
    }

    /// The engine of couples when asked for; a check of a nimber database
    /// also takes it when the database is not closed under moves (as the
    /// engine of couples saves it: only the regions it met), which the
    /// plain component search would re-prove by computing every child's
    /// whole nimber (`cram:5x8`'s 24,042 entries: 1.7 s by couples, where
    /// the plain search had re-proved 18,564 when stopped after 100 s); a
    /// closed one (as the component search saves it) the component search
    /// re-proves without searching (`cram:5x6`'s 356,382 entries: 3.2 s, by
    /// couples 6.9 s).
    fn prover<'a>(&'a self, setup: Setup<'a, Self>) -> Result<Box<dyn Prover<Self> + 'a>> {
        if sets_chosen(self, setup.request, setup.kind) && matches!(setup.purpose, Purpose::Search)
        {
            return Ok(Box::new(SetsProver {
                e: CramSets::new(self, setup.options, setup.progress),
            }));
        }
        let asked = setup.request.engine == Engine::Couples;
        let couples = match setup.purpose {
            Purpose::Search => asked,
            Purpose::Check { db, .. } => {
                setup.kind == Kind::Nimbers
                    && (asked
                        || (setup.request.engine == Engine::Auto
                            && !self.misere()
                            && !closed(self, db)))
            }
        };
        if !couples {
            return standard(self, setup);
        }
        let progress = setup.progress;
        let leaves = setup.leaves.and_then(Leaves::regions);
        let mut e =
            Couples::with_lands(CramLands::new(leaves), setup.options).with_progress(progress);
        if let Some((every, mut save)) = setup.snapshots {
            let g = self;
            e = e.with_snapshots(every, move |lands| save(Proved::Records(records(g, lands))));
        }
        Ok(Box::new(CramCouples {
            g: self,
            e,
            kind: setup.kind,
            options: setup.options,
        }))
    }
}

/// Whether a search runs by sets: when asked, and by default for a
/// normal-play nimber that asks nothing the engine lacks (databases,
/// tables, openings, a move list, a live view, snapshots). It is the
/// faster engine there by far: `cram:5x8`'s nimber in about 2 s of CPU
/// against 5.5 s by couples and over 360 s by components
/// (docs/PERFORMANCE.md).
fn sets_chosen(g: &CramSearch, request: &SearchOptions, kind: Kind) -> bool {
    match request.engine {
        Engine::Sets => true,
        Engine::Auto => {
            kind == Kind::Nimbers
                && !g.misere()
                && request.save.is_none()
                && request.load.is_empty()
                && request.tablebases.is_empty()
                && request.openings.is_none()
                && !request.moves
                && request.watch.is_none()
                && request.save_every.is_none()
        }
        _ => false,
    }
}

/// Normal-play Cram by couples, with what the run asks of it.
struct CramCouples<'a> {
    g: &'a CramSearch,
    e: Couples<'a, CramLands<'a>>,
    kind: Kind,
    options: &'a Options,
}

impl Prover<CramSearch> for CramCouples<'_> {
    fn engine(&self) -> Option<Engine> {
        Some(Engine::Couples)
    }

    fn prove(&mut self, root: &u64) -> Answer {
        let (g, e) = (self.g, &mut self.e);
        let lands = CramLands::lands_of(g, *root);
        if self.kind == Kind::Nimbers {
            return Answer::Nimber(e.nimber_sum(&lands, 0));
        }
        let wins = e.wins_sum(&lands, 0);
        let bounds = match wins {
            Some(true) => Bounds::exact(Value::Win),
            Some(false) => Bounds::exact(Value::Lose),
            None => Bounds::UNKNOWN,
        };
        // A winning move: a child whose sum is proved to lose.
        let best_move = (wins == Some(true))
            .then(|| {
                g.moves(root).into_iter().find_map(|(m, c)| {
                    let ids: Vec<u32> = CramLands::lands_of(g, c).iter().map(|l| e.id(l)).collect();
                    let loses = match e.fold(&ids, 0) {
                        Folded::Heap(x) => x == 0,
                        Folded::Couple(l, k) => e.known(l, k) == Some(false),
                        Folded::Sum(..) => false,
                    };
                    loses.then(|| g.format_move(&m))
                })
            })
            .flatten();
        Answer::Value { bounds, best_move }
    }

    /// A nimber search's counters are a component search's: regions
    /// searched and the nimbers known.
    fn stats(&self) -> Stats {
        let s = self.e.stats();
        match self.kind {
            Kind::Nimbers => Stats {
                counted: Counted::Components,
                tt_used: self.e.nimbers_known() as u64,
                tt_capacity: 0,
                tt_bytes: 0,
                tt_max: 0,
                tt_max_bytes: 0,
                ..s
            },
            Kind::Values => s,
        }
    }

    fn stop_reason(&self) -> Option<Stop> {
        self.e.stop_reason()
    }

    fn renew(&mut self, nodes: Option<u64>, time: Option<std::time::Duration>) -> bool {
        self.e.renew(nodes, time);
        true
    }

    /// A win or a loss another rank proved, kept as its couple (see
    /// [`Couples::learn`]).
    fn learn(&mut self, _: u128, p: &u64, bounds: Bounds) {
        if let Some(v) = bounds.value() {
            let lands = CramLands::lands_of(self.g, *p);
            self.e.learn(&lands, 0, v == Value::Win);
        }
    }

    /// Region nimbers re-proved by couples from their children (or
    /// trusted), handed to the engine.
    fn load(
        &mut self,
        db: &proofdb::Merged<CramSearch>,
        trust: bool,
        stop: &dyn Fn() -> bool,
    ) -> Result<CheckReport> {
        if !trust {
            return verify_by_couples(self.g, db, &mut self.e, stop);
        }
        let mut search = NimberSearch::new(self.g, self.options);
        let r = proofdb::trust_nimbers(db, &mut search);
        for (k, n, _) in search.known() {
            self.e.add_loss(k, n);
        }
        Ok(r)
    }

    fn notices(&self) -> Vec<Notice> {
        match self.e.zero_hits() {
            0 => Vec::new(),
            n => vec![Notice::Mirrored(n)],
        }
    }

    fn proved(self: Box<Self>, _: &[u64], _: bool) -> Proved<CramSearch> {
        Proved::Records(records(self.g, self.e.lands()))
    }
}

fn refused(rule: &str) -> Error {
    Error::SearchOption {
        option: "--engine",
        given: "couples".into(),
        rule: rule.into(),
    }
}

/// Every region whose nimber is known, as a position of `g` (a region of
/// `g` fits it in some orientation), for a proof database of nimbers:
/// regions from the tables too, so the database stands without them.
fn records<'l>(
    g: &CramSearch,
    lands: impl Iterator<Item = &'l LandInfo<u128>>,
) -> Vec<Record<u64, u128>> {
    lands
        .filter_map(|info| {
            let n = info.nimber?;
            let pos = g.position_of_key(&info.land)?;
            Some(Record {
                key: info.land,
                fact: Fact::Nimber(n),
                pos,
            })
        })
        .collect()
}

/// Whether the database looks closed under moves: every region that the
/// moves of its first 256 entries make is an entry (or has no move). A
/// sample, as it only chooses the faster of two sound checks.
fn closed(g: &CramSearch, db: &proofdb::Merged<CramSearch>) -> bool {
    db.records().iter().take(256).all(|r| {
        g.moves(&r.pos).into_iter().all(|(_, c)| {
            g.components(&c)
                .iter()
                .all(|p| g.terminal(p).is_some() || db.fact(&g.key(p)).is_some())
        })
    })
}

/// Re-proves every entry of a nimber database with the engine of couples,
/// smallest region first, and hands each that holds to it: region `R` of
/// nimber n is `R + *n` losing, so every `R + *j` (j < n) must win and every
/// move's sum beside `*n` must win. A child no entry settles is asked only
/// the couples that decide it, where [`proofdb::verify_nimbers`] (the plain
/// component search) computes every child's whole nimber: on the 24,042
/// regions `cram:5x8 --nimber --engine couples` saves (a 3.7 s search), that
/// took more than a minute, and a mex over whole nimbers by couples 184 s.
fn verify_by_couples(
    g: &CramSearch,
    db: &proofdb::Merged<CramSearch>,
    e: &mut Couples<CramLands>,
    stop: &dyn Fn() -> bool,
) -> Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut done = vec![false; db.len()];
    let mut order: Vec<(u32, usize)> = db
        .records()
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.key as u64).count_ones(), i))
        .collect();
    order.sort_unstable();
    let before = e.stats().nodes;
    for (_, i) in order {
        if stop() || e.stop_reason().is_some() {
            break;
        }
        let r = &db.records()[i];
        let Fact::Nimber(n) = r.fact else {
            return Err(db.refuted(
                g,
                i,
                "a value".into(),
                "a Cram region's entry is its nimber".into(),
            ));
        };
        let refuted = |why: String| db.refuted(g, i, format!("nimber {n}"), why);
        // Land numbers are taken afresh before each search: one held across
        // a search may be forgotten and reused when memory is short.
        let l = e.id(&r.key);
        match e.known(l, n) {
            Some(false) => {}
            Some(true) => return Err(refuted("the entries before it say otherwise".into())),
            None => {
                for j in 0..n {
                    let l = e.id(&r.key);
                    match e.couple_wins(l, j) {
                        Some(true) => {}
                        Some(false) => return Err(refuted(format!("its nimber is {j}"))),
                        None => break,
                    }
                }
                for child in e.game().children(&r.key) {
                    let ids: Vec<u32> = child.iter().map(|x| e.id(x)).collect();
                    match e.sum_wins(&ids, n) {
                        Some(true) => {}
                        Some(false) => {
                            return Err(refuted(format!("a move leaves regions of nim-sum {n}")))
                        }
                        None => break,
                    }
                }
                if e.stop_reason().is_some() {
                    break;
                }
            }
        }
        e.add_loss(&r.key, n);
        done[i] = true;
        report.checked += 1;
    }
    report.searched = e.stats().nodes - before;
    report.unchecked = db.len() as u64 - report.checked;
    report.left = (0..db.len() as u32)
        .filter(|&i| !done[i as usize])
        .collect();
    Ok(report)
}
