//! Cram nimbers asked within a set (`retrograde search cram:RxC --nimber
//! --engine sets`): a region is asked not "what is your nimber?" but "is
//! your nimber one of these, and which?", and answers "none of them" as
//! soon as its children show it, as Beling's solver `igs` asks (the idea,
//! not its code). The set asked of a child is what could still change its
//! parent's answer, so most regions are settled by a few of their children.
//!
//! A region of `m` moves has nimber `n = mex(children) ≤ m`. The parent
//! keeps `P`, the candidates `0..=m` minus the children's values known
//! exactly; with `r` children left (this one included) `n` is among the
//! `r + 1` smallest of `P`, and a child whose value `v` is not among the `r`
//! smallest of `P` (nor at most the largest value asked of the parent)
//! changes nothing the parent must answer: so a child is asked only those.
//! A child answering "none" removes nothing from `P`; at the end `x = min P`
//! is the nimber exactly when `x` is at most the largest value asked, as `x`
//! was in every set asked of a child that answered "none" (its rank in `P`
//! was never more than that child's `r`), and every value below `x` was
//! removed by a child known exactly. Only exact nimbers are remembered.
//!
//! Regions are reduced before they are keyed, each rule exact (the proofs
//! are at the functions): of several one-cell *tufts* on one cell all but
//! one are dropped, a cell whose every neighbour holds a tuft is dropped,
//! a 2×2 block whose opposite corners are closed on their outer sides
//! splits its region in two, and two equal regions of a sum cancel.

use super::cram::CramSearch;
use crate::search::engine::{Answer, Counted, Engine, Options, Stats};
use crate::search::hash::FastBuild;
use crate::search::proofdb::{self, CheckReport, Merged};
use crate::search::prover::{Proved, Prover};
use crate::search::{Limits, Stop};
use std::collections::HashMap;

/// "Not in the set asked": no nimber of a region of at most 64 squares
/// reaches it (a region has fewer than 128 moves).
const NONE: u8 = u8::MAX;

/// Bytes of one remembered nimber in the table, about (key, value, the
/// map's control byte and slack).
const ENTRY_BYTES: u64 = 48;

/// A set of nimbers below 128.
type Set = u128;

/// The `r` smallest elements of `s` (all of them if it has fewer).
#[inline]
fn smallest(s: Set, r: u32) -> Set {
    if r >= s.count_ones() {
        return s;
    }
    let mut rest = s;
    for _ in 0..r {
        rest &= rest - 1;
    }
    s & !rest
}

/// `{v ^ k : v ∈ s}`.
#[inline]
fn xored(s: Set, k: u8) -> Set {
    if k == 0 {
        return s;
    }
    let mut out = 0;
    let mut b = s;
    while b != 0 {
        let v = b.trailing_zeros();
        b &= b - 1;
        out |= 1 << (v ^ u32::from(k));
    }
    out
}

/// The values up to `v`.
#[inline]
fn upto(v: u32) -> Set {
    if v >= 127 {
        Set::MAX
    } else {
        (1 << (v + 1)) - 1
    }
}

/// A child of a region being searched: its regions not yet known
/// (`parts[first..first + len]`) and the nim-sum of those known.
#[derive(Clone, Copy)]
struct Child {
    first: u32,
    len: u32,
    known: u8,
    /// Its order: the sum of its unknown regions' squared sizes (the
    /// easiest children first), then the domino's distance from the
    /// region's middle.
    cost: u32,
}

/// The search: the board, the nimbers known, the counters.
pub struct CramSets<'a> {
    g: &'a CramSearch,
    /// Each `has_right`/`has_below` of a square: its neighbour exists.
    has_right: u64,
    has_left: u64,
    /// Nimbers of regions by region key.
    table: HashMap<u128, u8, FastBuild>,
    /// Entries the table may hold (`--memory`): past it, nimbers are
    /// computed but not remembered.
    cap: usize,
    limits: Limits,
    stats: Stats,
    progress: &'a dyn Fn(&Stats),
}

impl<'a> CramSets<'a> {
    /// A search of `g`'s normal play, its table within `options.memory`.
    pub fn new(g: &'a CramSearch, options: &Options, progress: &'a dyn Fn(&Stats)) -> Self {
        let cols = g.cols();
        let full = g.full();
        let mut first_col = 0u64;
        for r in 0..g.rows() {
            first_col |= 1 << (r * cols);
        }
        let last_col = first_col << (cols - 1);
        CramSets {
            g,
            has_right: full & !last_col,
            has_left: full & !first_col,
            table: HashMap::default(),
            cap: (options.memory / ENTRY_BYTES).max(1024) as usize,
            limits: Limits::new(
                options.memory,
                options.node_limit,
                options.time_limit,
                options.cancel.clone(),
            ),
            stats: Stats {
                counted: Counted::Components,
                threads: 1,
                ..Stats::default()
            },
            progress,
        }
    }

    /// Squares of `x` with an `x` square on their right, left, below,
    /// above.
    #[inline(always)]
    fn right(&self, x: u64) -> u64 {
        x & (x >> 1) & self.has_right
    }
    #[inline(always)]
    fn left(&self, x: u64) -> u64 {
        x & (x << 1) & self.has_left
    }
    #[inline(always)]
    fn below(&self, x: u64) -> u64 {
        x & (x >> self.g.cols())
    }
    #[inline(always)]
    fn above(&self, x: u64) -> u64 {
        x & (x << self.g.cols())
    }

    /// `x` moved one square right, left, down, up (within the board).
    #[inline(always)]
    fn to_right(&self, x: u64) -> u64 {
        (x & self.has_right) << 1
    }
    #[inline(always)]
    fn to_left(&self, x: u64) -> u64 {
        (x & self.has_left) >> 1
    }
    #[inline(always)]
    fn down(&self, x: u64) -> u64 {
        (x << self.g.cols()) & self.g.full()
    }
    #[inline(always)]
    fn up(&self, x: u64) -> u64 {
        x >> self.g.cols()
    }

    /// The empty squares `p` (not the covered ones, as positions are) with
    /// tufts and bridges reduced:
    ///
    /// - A *tuft* is a square with exactly one empty neighbour, its
    ///   *centre*. Of several tufts on one centre all but one are dropped:
    ///   a tuft is covered only with its centre, and the moves covering the
    ///   centre with one tuft or another leave the same squares but for a
    ///   tuft that can never be covered again.
    /// - A square X, neither a tuft nor a centre, all of whose empty
    ///   neighbours are centres, is dropped (with no neighbour it is dead
    ///   anyway): `G + (G − X)` is lost for the mover, as the second player
    ///   copies every move, answering X–C in `G` by C–T (T the tuft of C)
    ///   in `G − X`, which leaves the same squares but dead ones; X's
    ///   neighbours only ever lose squares, so every later move is copied
    ///   the same way.
    fn reduce(&self, p: u64) -> u64 {
        let (r, l, b, a) = (self.right(p), self.left(p), self.below(p), self.above(p));
        let any = r | l | b | a;
        let two = (r & l) | (b & a) | ((r | l) & (b | a));
        let tufts = any & !two;
        // Each tuft's centre, one direction at a time; a centre claimed by
        // an earlier tuft drops the later one.
        let (tb, tr, ta, tl) = (tufts & b, tufts & r, tufts & a, tufts & l);
        let mut out = p;
        let mut claimed = self.down(tb);
        let c = self.to_right(tr);
        out &= !self.to_left(c & claimed);
        claimed |= c;
        let c = self.up(ta);
        out &= !self.down(c & claimed);
        claimed |= c;
        let c = self.to_left(tl);
        out &= !self.to_right(c & claimed);
        claimed |= c;
        let others = p & !(tufts | claimed);
        let others_next =
            self.to_right(others) | self.to_left(others) | self.down(others) | self.up(others);
        let bridges = others & !others_next;
        out & !bridges
    }

    /// The horizontal neighbours (left squares) whose joint the flood of
    /// a region does not cross: in a 2×2 block a b / c d whose a has no
    /// empty left or upper neighbour and d no right or lower one, the
    /// joints a–b and c–d; likewise with b and c closed. The region is then
    /// the sum of the part through c with a (a tuft on c) and the part
    /// through b with d: the moves a–b and c–d leave what b–d and a–c leave
    /// (d, or a, becoming a tuft on the other side, the same game), a move
    /// of b or c with an outside square leaves two tufts on one centre (one
    /// of which counts), and any other move keeps the block as it was.
    fn cut(&self, p: u64) -> u64 {
        let (r, l, b, a) = (self.right(p), self.left(p), self.below(p), self.above(p));
        let cols = self.g.cols();
        // The a and d corners of the first kind, the b and c of the second.
        let ca = r & b & !l & !a;
        let cd = l & a & !r & !b;
        let cb = l & b & !r & !a;
        let cc = r & a & !l & !b;
        let first = ca & (cd >> (cols + 1));
        let second = (cb & (cc >> (cols - 1))) >> 1;
        let tops = first | second;
        tops | (tops << cols)
    }

    /// Appends the regions of the empty squares `p` (each reduced, equal
    /// ones cancelled) to `out` as (squares, key).
    fn split(&self, p: u64, out: &mut Vec<(u64, u128)>, from: usize) {
        let mut p = p;
        loop {
            let q = self.reduce(p);
            if q == p {
                break;
            }
            p = q;
        }
        let cut = self.cut(p);
        let go_right = self.has_right & !cut;
        let mut rest = p;
        while rest != 0 {
            let mut x = rest & rest.wrapping_neg();
            loop {
                let y = x
                    | (((x & go_right) << 1) | ((x >> 1) & go_right) | self.down(x) | self.up(x))
                        & rest;
                if y == x {
                    break;
                }
                x = y;
            }
            rest &= !x;
            if x.count_ones() < 2 {
                continue;
            }
            if cut != 0 && x != p {
                self.split(x, out, from);
                continue;
            }
            let key = self.g.region_key(x);
            match out[from..].iter().position(|&(_, k)| k == key) {
                // G + G = 0.
                Some(i) => {
                    out.swap_remove(from + i);
                }
                None => out.push((x, key)),
            }
        }
    }

    /// The regions of position `p` (covered squares) as the search keys
    /// them: each as its empty squares with its region key, reduced, split
    /// and equal ones cancelled. Their nimbers sum to `p`'s.
    pub fn regions(&self, p: u64) -> Vec<(u64, u128)> {
        let mut parts = Vec::new();
        self.split(self.g.live(p), &mut parts, 0);
        parts
    }

    /// The nimber of the root position `p` (covered squares), `None` if
    /// stopped first.
    pub fn nimber(&mut self, p: u64) -> Option<u32> {
        let parts = self.regions(p);
        let mut n = 0u32;
        for (x, key) in parts {
            let v = self.exact(x, key);
            if self.limits.stop().is_some() || v == NONE {
                return None;
            }
            n ^= u32::from(v);
        }
        Some(n)
    }

    /// Region `x` (empty squares, reduced, connected) of key `key`: its
    /// nimber, trying 0, 1, 2, ... in turn, each child asked only whether
    /// it has the value tried (Beling's aspiration): the nimber is the
    /// first value no child has. Children whose value is found are put
    /// aside. [`NONE`] only when stopped.
    fn exact(&mut self, x: u64, key: u128) -> u8 {
        if let Some(&v) = self.table.get(&key) {
            return v;
        }
        let Some((m, mut cand, mut parts, mut children)) = self.expand(x) else {
            return NONE;
        };
        'values: for k in 0..=m {
            if cand >> k & 1 == 0 {
                continue;
            }
            let mut i = 0;
            while i < children.len() {
                let Some((v, known)) = self.ask(&mut parts, &mut children[i], 1 << k) else {
                    return NONE;
                };
                if v == NONE {
                    i += 1;
                    continue;
                }
                children.remove(i);
                let v = u32::from(v ^ known);
                cand &= !(1 << v);
                if v == k {
                    continue 'values;
                }
            }
            self.remember(key, k as u8);
            return k as u8;
        }
        unreachable!("m + 1 values and m children: one value is no child's")
    }

    /// Region `x` (empty squares, reduced, connected) of key `key`: its
    /// nimber if it is in `asked`, else [`NONE`] (or its nimber: any value
    /// returned but [`NONE`] is exact). After a stop, meaningless.
    fn within(&mut self, x: u64, key: u128, asked: Set) -> u8 {
        if let Some(&v) = self.table.get(&key) {
            return v;
        }
        let Some((_, mut cand, mut parts, children)) = self.expand(x) else {
            return NONE;
        };
        let max_asked = 127 - asked.leading_zeros();
        let mut left = children.len() as u32;
        let mut unknown = 0u32;
        for mut child in children {
            if cand & upto(max_asked) == 0 || smallest(cand, left + unknown + 1) & asked == 0 {
                return NONE;
            }
            let want = smallest(cand, left) & upto(max_asked);
            left -= 1;
            if want == 0 {
                // Its value can change nothing asked (the check above
                // has already answered in that case).
                unknown += 1;
                continue;
            }
            let Some((v, known)) = self.ask(&mut parts, &mut child, want) else {
                return NONE;
            };
            if v == NONE {
                unknown += 1;
            } else {
                cand &= !(1 << (v ^ known));
            }
        }
        let n = cand.trailing_zeros();
        if n > max_asked {
            return NONE;
        }
        self.remember(key, n as u8);
        n as u8
    }

    /// Asks `child` whether its value is in `want`: its regions but the
    /// first computed whole (and folded into it, once), the first asked
    /// within `want` shifted by their sum. Returns the first's answer and
    /// the sum, `None` if stopped.
    fn ask(&mut self, parts: &mut [(u64, u128)], child: &mut Child, want: Set) -> Option<(u8, u8)> {
        let first = child.first as usize;
        while child.len > 1 {
            let (px, pk) = parts[first + child.len as usize - 1];
            let v = self.exact(px, pk);
            if self.limits.stop().is_some() {
                return None;
            }
            child.known ^= v;
            child.len -= 1;
        }
        let (px, pk) = parts[first];
        let v = self.within(px, pk, xored(want, child.known));
        if self.limits.stop().is_some() {
            return None;
        }
        Some((v, child.known))
    }

    fn remember(&mut self, key: u128, n: u8) {
        if self.table.len() < self.cap {
            self.table.insert(key, n);
        }
    }

    /// Counts a region searched and lists its children: its number of
    /// moves, the values no child known exactly has (of `0..=m`), the
    /// children's unknown regions and the children, easiest first. `None`
    /// when a limit stops the search.
    #[allow(clippy::type_complexity)]
    fn expand(&mut self, x: u64) -> Option<(u32, Set, Vec<(u64, u128)>, Vec<Child>)> {
        if !self.limits.may_expand(self.stats.nodes) {
            return None;
        }
        self.stats.nodes += 1;
        if self.stats.nodes & 0xfff == 0 && self.limits.check() {
            let s = self.stats();
            (self.progress)(&s);
        }
        let g = self.g;
        let cols = g.cols();
        let hz = self.right(x);
        let vt = self.below(x);
        let m = hz.count_ones() + vt.count_ones();
        // The middle of the region's box, doubled, for the move order.
        let (r0, r1) = (x.trailing_zeros() / cols, (63 - x.leading_zeros()) / cols);
        let mut ormask = 0u64;
        let mut y = x;
        while y != 0 {
            ormask |= y;
            y >>= cols;
        }
        ormask &= (1u64 << cols) - 1;
        let (c0, c1) = (ormask.trailing_zeros(), 63 - ormask.leading_zeros());
        let (mr, mc) = (r0 + r1, c0 + c1);

        let mut cand: Set = upto(m);
        let mut parts: Vec<(u64, u128)> = Vec::new();
        let mut children: Vec<Child> = Vec::with_capacity(m as usize);
        for (dominoes, step) in [(vt, cols), (hz, 1)] {
            let mut d = dominoes;
            while d != 0 {
                let s = d.trailing_zeros();
                d &= d - 1;
                let c = x & !(1u64 << s | 1u64 << (s + step));
                let first = parts.len();
                self.split(c, &mut parts, first);
                let mut known = 0u8;
                let mut i = first;
                let mut cost = 0u32;
                while i < parts.len() {
                    match self.table.get(&parts[i].1) {
                        Some(&v) => {
                            known ^= v;
                            parts.swap_remove(i);
                        }
                        None => {
                            let size = parts[i].0.count_ones();
                            cost += size * size;
                            i += 1;
                        }
                    }
                }
                if parts.len() == first {
                    cand &= !(1 << known);
                    continue;
                }
                // The hardest region first: it is the one asked within a
                // set, the others computed whole.
                let mut hardest = first;
                for j in first + 1..parts.len() {
                    if parts[j].0.count_ones() > parts[hardest].0.count_ones() {
                        hardest = j;
                    }
                }
                parts.swap(first, hardest);
                let (sr, sc) = (s / cols, s % cols);
                let (er, ec) = ((s + step) / cols, (s + step) % cols);
                let far = (sr + er).abs_diff(mr) + (sc + ec).abs_diff(mc);
                children.push(Child {
                    first: first as u32,
                    len: (parts.len() - first) as u32,
                    known,
                    cost: cost << 8 | far.min(255),
                });
            }
        }
        children.sort_by_key(|c| c.cost);
        Some((m, cand, parts, children))
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.tt_used = self.table.len() as u64;
        s.elapsed = self.limits.elapsed();
        s
    }
}

/// The engine as the session drives it.
pub(crate) struct SetsProver<'a> {
    pub(crate) e: CramSets<'a>,
}

impl Prover<CramSearch> for SetsProver<'_> {
    fn engine(&self) -> Option<Engine> {
        Some(Engine::Sets)
    }

    fn prove(&mut self, root: &u64) -> Answer {
        Answer::Nimber(self.e.nimber(*root))
    }

    fn stats(&self) -> Stats {
        self.e.stats()
    }

    fn stop_reason(&self) -> Option<Stop> {
        self.e.limits.stop()
    }

    /// Nothing to take: the engine is refused `--load` and `--check`.
    fn load(
        &mut self,
        _db: &Merged<CramSearch>,
        _trust: bool,
        _stop: &dyn Fn() -> bool,
    ) -> crate::Result<CheckReport> {
        Ok(CheckReport::default())
    }

    fn proved(self: Box<Self>, _: &[u64], _: bool) -> Proved<CramSearch> {
        let _ = proofdb::Kind::Nimbers;
        Proved::Keys(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_helpers() {
        assert_eq!(smallest(0b1011_0110, 2), 0b0000_0110);
        assert_eq!(smallest(0b1011_0110, 9), 0b1011_0110);
        assert_eq!(smallest(0b1011_0110, 0), 0);
        assert_eq!(xored(0b0110, 1), 0b1001);
        assert_eq!(upto(0), 1);
        assert_eq!(upto(127), Set::MAX);
    }
}
