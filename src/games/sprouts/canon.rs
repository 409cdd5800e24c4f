//! The canonical form of a land, in two steps.
//!
//! 1. Each region's *shape*: its least writing over its two orientations
//!    (read forwards or mirrored: a region can be mirrored on its own, its
//!    only link to others being letters with one life), each boundary's
//!    starting point, and the order of its boundaries (the `0`s first, the
//!    least), with lower-case letters named by first appearance in their
//!    boundary and every upper-case letter written as its *colour*. Colours
//!    are refined from the shapes: at first all alike, then a letter's
//!    colour is its old colour with the shapes of the two regions it joins,
//!    until no more colours appear. A region of two or three lives is free
//!    (its shape cannot matter): its `1`s, `2`s, then its colours, sorted.
//! 2. The regions in order of shape; then, among the writings that give
//!    each region its shape (the orientations, rotations and orders of
//!    boundaries that tie, and the orders of regions of equal shape), the
//!    least text once the letters are named by first appearance (letters
//!    of both cases share the ranks). This is built from the front: the
//!    next region or boundary is the one that writes least; a tie between
//!    two that write alike but name different letters is resolved by
//!    trying each, up to [`BRANCHES`] in all.
//!
//! Both steps depend only on the land, not on how it was written, so equal
//! lands get equal bytes, except where a tie left by the colours is not a
//! symmetry of the land and the bound cuts the trying short: then the bytes
//! are still this land's (a correct key), only perhaps not the canonical
//! ones, so one land may get two keys (never two lands one). The tests
//! rewrite every land reachable from 5 spots in other ways and read back
//! the same bytes.
//!
//! Written for speed: the canonical form is computed for every child of
//! every land a search meets, so vertices are `u16` codes in flat arrays,
//! rotations that tie are bit masks, and the buffers are reused.

use super::rules::{Census, Tok, WRegion, T_ONE, T_TWO};
use super::{Land, BOUNDARY_END, LAND_END, LETTERS, MAX_LETTERS, ONE, REGION_END, TWO, ZERO};
use std::cmp::Ordering;

/// Tie branches a canonical form may try beyond the first.
const BRANCHES: u32 = 256;

/// Vertex codes: `1`, `2`, and a letter's id with its case.
const V_ONE: u16 = T_ONE;
const V_TWO: u16 = T_TWO;
const V_LOWER: u16 = 1 << 13;
const V_UPPER: u16 = 1 << 14;
const V_ID: u16 = V_LOWER - 1;

/// Shape codes: `0`, `1`, `2` as their bytes; a lower-case letter of local
/// rank r is `LOW + r`; an upper-case letter of colour c is `HIGH + c`
/// (after every lower-case one); then the ends.
const LOW: u16 = 3;
const HIGH: u16 = 1 << 12;
const S_BOUNDARY: u16 = u16::MAX - 1;
const S_REGION: u16 = u16::MAX;

/// The colour of each upper-case letter, by id (a land has few: a short
/// list searched, rather than a table cleared per land).
struct Colours(Vec<(Tok, u16)>);

impl Colours {
    fn of(&self, id: Tok) -> u16 {
        self.0
            .iter()
            .find(|&&(t, _)| t == id)
            .map_or(0, |&(_, c)| c)
    }

    fn set(&mut self, id: Tok, c: u16) {
        match self.0.iter_mut().find(|(t, _)| *t == id) {
            Some(e) => e.1 = c,
            None => self.0.push((id, c)),
        }
    }
}

/// The vertex `k` places after `s` of a boundary of `n` vertices, read
/// forwards or mirrored.
#[inline]
fn at(b: &[u16], s: usize, k: usize, mirror: bool) -> u16 {
    let n = b.len();
    let i = if mirror {
        (s + n - k % n) % n
    } else if s + k < n {
        s + k
    } else {
        s + k - n
    };
    b[i]
}

/// Writes boundary `b` read from `s` (mirrored or not) as shape codes.
fn shape_at(b: &[u16], s: usize, mirror: bool, colours: &Colours, out: &mut Vec<u16>) {
    let start = out.len();
    let mut next_lower = 0u16;
    for k in 0..b.len() {
        let v = at(b, s, k, mirror);
        let code = if v & V_UPPER != 0 {
            HIGH + colours.of(v & V_ID)
        } else if v & V_LOWER != 0 {
            // Its first side, if already written, gave its rank.
            match (0..k).find(|&j| at(b, s, j, mirror) == v) {
                Some(j) => out[start + j],
                None => {
                    next_lower += 1;
                    LOW + next_lower - 1
                }
            }
        } else {
            v
        };
        out.push(code);
    }
    out.push(S_BOUNDARY);
}

/// A boundary's least shape (appended to `out`) and the rotations that
/// give it (bit s: from vertex s; boundaries longer than 64 keep the
/// first 64 starting points, each still a correct writing).
fn boundary_shape(
    b: &[u16],
    mirror: bool,
    colours: &Colours,
    out: &mut Vec<u16>,
    buf: &mut Vec<u16>,
) -> u64 {
    let start = out.len();
    let mut mask = 0u64;
    for s in 0..b.len().min(64) {
        buf.clear();
        shape_at(b, s, mirror, colours, buf);
        let order = if s == 0 {
            Ordering::Less
        } else {
            buf.as_slice().cmp(&out[start..])
        };
        match order {
            Ordering::Less => {
                out.truncate(start);
                out.extend_from_slice(buf);
                mask = 1 << s;
            }
            Ordering::Equal => mask |= 1 << s,
            Ordering::Greater => {}
        }
    }
    mask
}

/// One orientation of a region that gives it its shape: its boundaries in
/// shape order, each with the rotations that give its shape, and for each
/// the first boundary of its run of equal shapes (a run may be written in
/// any order).
struct Writing {
    mirror: bool,
    /// (boundary number, rotations) in shape order.
    order: Vec<(u16, u64)>,
    run: Vec<u16>,
}

/// A region's vertices and shape.
struct Region {
    zeros: u32,
    free: bool,
    /// Its vertices, boundary after boundary, and where each boundary lies.
    verts: Vec<u16>,
    bounds: Vec<(u32, u32)>,
    shape: Vec<u16>,
    /// Whether it has upper-case letters (else its bytes are its shape
    /// with its letters ranked after the names so far).
    upper: bool,
    /// The writings that give its shape (not for free regions).
    writings: Vec<Writing>,
    /// A free region's `1`s, `2`s and upper-case letters.
    ones: usize,
    twos: usize,
    uppers: Vec<Tok>,
}

impl Region {
    fn new(reg: &WRegion, census: &Census) -> Region {
        let mut verts = Vec::with_capacity(reg.bounds.iter().map(Vec::len).sum());
        let mut bounds = Vec::with_capacity(reg.bounds.len());
        let mut upper = false;
        for b in &reg.bounds {
            bounds.push((verts.len() as u32, b.len() as u32));
            for &t in b {
                verts.push(match t {
                    T_ONE => V_ONE,
                    T_TWO => V_TWO,
                    _ if census.upper(t) => {
                        upper = true;
                        V_UPPER | t
                    }
                    _ if census.lower(t) => V_LOWER | t,
                    _ => V_TWO,
                });
            }
        }
        let mut r = Region {
            zeros: reg.zeros,
            free: census.half_lives(reg) <= 6,
            verts,
            bounds,
            shape: Vec::new(),
            upper,
            writings: Vec::new(),
            ones: 0,
            twos: 0,
            uppers: Vec::new(),
        };
        if r.free {
            let (mut ones, mut twos) = (0, 0);
            for &v in &r.verts {
                if v & V_UPPER != 0 {
                    r.uppers.push(v & V_ID);
                } else if v & V_LOWER != 0 {
                    // One `2` for its two sides (the reduction writes it so
                    // already).
                    twos += 1;
                } else if v == V_ONE {
                    ones += 2;
                } else {
                    twos += 2;
                }
            }
            r.ones = ones / 2;
            r.twos = twos / 2;
        }
        r
    }

    fn boundary(&self, i: usize) -> &[u16] {
        let (s, n) = self.bounds[i];
        &self.verts[s as usize..(s + n) as usize]
    }

    /// The shape (and writings) under `colours`.
    fn shape(&mut self, colours: &Colours, scratch: &mut Scratch) {
        let mut shape = std::mem::take(&mut self.shape);
        shape.clear();
        for _ in 0..self.zeros {
            shape.push(u16::from(ZERO));
            shape.push(S_BOUNDARY);
        }
        if self.free {
            if !self.bounds.is_empty() {
                shape.extend(std::iter::repeat_n(u16::from(ONE), self.ones));
                shape.extend(std::iter::repeat_n(u16::from(TWO), self.twos));
                let at = shape.len();
                shape.extend(self.uppers.iter().map(|&id| HIGH + colours.of(id)));
                shape[at..].sort_unstable();
                shape.push(S_BOUNDARY);
            }
            shape.push(S_REGION);
            self.shape = shape;
            return;
        }
        let head = shape.len();
        self.writings.clear();
        let nb = self.bounds.len();
        // A region of one boundary of at most two vertices reads the same
        // mirrored (up to rotation).
        let mirrors: &[bool] = if nb <= 1 && self.verts.len() <= 2 {
            &[false]
        } else {
            &[false, true]
        };
        let mut best_len = 0;
        for &mirror in mirrors {
            // Each boundary's least shape, in one flat buffer.
            let flat = &mut scratch.flat;
            flat.clear();
            let mut parts: Vec<(u32, u32, u16, u64)> = Vec::with_capacity(nb);
            for i in 0..nb {
                let at = flat.len();
                let mask =
                    boundary_shape(self.boundary(i), mirror, colours, flat, &mut scratch.buf);
                parts.push((at as u32, (flat.len() - at) as u32, i as u16, mask));
            }
            let slice = |p: &(u32, u32, u16, u64)| &flat[p.0 as usize..(p.0 + p.1) as usize];
            parts.sort_by(|a, b| slice(a).cmp(slice(b)));
            let mut cand = std::mem::take(&mut scratch.cand);
            cand.clear();
            for p in &parts {
                cand.extend_from_slice(slice(p));
            }
            cand.push(S_REGION);
            let mut run = Vec::with_capacity(nb);
            for i in 0..nb {
                run.push(if i > 0 && slice(&parts[i]) == slice(&parts[i - 1]) {
                    run[i - 1]
                } else {
                    i as u16
                });
            }
            let w = Writing {
                mirror,
                order: parts.iter().map(|p| (p.2, p.3)).collect(),
                run,
            };
            let order = if self.writings.is_empty() {
                Ordering::Less
            } else {
                cand.as_slice().cmp(&shape[head..head + best_len])
            };
            match order {
                Ordering::Greater => {}
                Ordering::Equal => self.writings.push(w),
                Ordering::Less => {
                    shape.truncate(head);
                    shape.extend_from_slice(&cand);
                    best_len = cand.len();
                    self.writings.clear();
                    self.writings.push(w);
                }
            }
            scratch.cand = cand;
        }
        self.shape = shape;
    }
}

/// Buffers reused by the shapes.
#[derive(Default)]
struct Scratch {
    flat: Vec<u16>,
    buf: Vec<u16>,
    cand: Vec<u16>,
}

/// The naming so far: the upper-case letters named (id, rank), and the next
/// rank (letters of both cases share the ranks, in order of appearance).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
struct Names {
    upper: Vec<(Tok, u8)>,
    next: u8,
}

impl Names {
    fn rank(&self, id: Tok) -> Option<u8> {
        self.upper.iter().find(|&&(t, _)| t == id).map(|&(_, r)| r)
    }

    /// A new rank. A land has at most [`MAX_LETTERS`] letters (they are at
    /// most its lives, which parsing bounds and moves never raise).
    fn take(&mut self) -> u8 {
        debug_assert!(usize::from(self.next) < MAX_LETTERS);
        let r = self.next;
        self.next = self.next.saturating_add(1);
        r
    }
}

/// The byte of the letter of rank `r`.
fn letter(r: u8) -> u8 {
    LETTERS + r.min(MAX_LETTERS as u8 - 1)
}

/// The canonical form of the land made of `regions` (reduced: every region
/// alive, free regions written as one boundary); `census` tells each
/// letter's case.
pub(crate) fn canonical(regions: &[WRegion], census: &Census) -> Land {
    let mut prepared: Vec<Region> = regions.iter().map(|r| Region::new(r, census)).collect();
    let mut scratch = Scratch::default();
    let mut colours = Colours(Vec::new());
    if prepared.len() > 1 {
        refine(&mut prepared, &mut colours, &mut scratch);
    } else {
        // One region (so no upper-case letter): no colours to refine.
        prepared[0].shape(&colours, &mut scratch);
    }
    // Free regions last: by then most of their letters are named, so the
    // orders of their new letters (each a tie to try) are few.
    prepared.sort_by(|a, b| (a.free, &a.shape).cmp(&(b.free, &b.shape)));
    let mut c = Canon {
        regions: &prepared,
        colours: &colours,
        best: None,
        budget: BRANCHES,
    };
    let mut used = vec![false; prepared.len()];
    c.solve(Vec::new(), Names::default(), &mut used, 0);
    let mut best = c.best.expect("a land has a writing");
    best.push(LAND_END);
    Land(best.into())
}

/// Colour refinement: a letter's colour from the shapes of the regions it
/// joins, until the number of colours stops growing; leaves each region's
/// shape under the final colours.
fn refine(prepared: &mut [Region], colours: &mut Colours, scratch: &mut Scratch) {
    let mut letters: Vec<(Tok, usize, usize)> = Vec::new();
    for (r, p) in prepared.iter().enumerate() {
        for &v in &p.verts {
            if v & V_UPPER != 0 {
                let id = v & V_ID;
                match letters.iter_mut().find(|(t, _, _)| *t == id) {
                    Some(e) => e.2 = r,
                    None => letters.push((id, r, r)),
                }
            }
        }
    }
    let mut count = 1;
    loop {
        for p in prepared.iter_mut() {
            p.shape(colours, scratch);
        }
        if letters.is_empty() {
            return;
        }
        let mut ranks: Vec<&Vec<u16>> = prepared.iter().map(|p| &p.shape).collect();
        ranks.sort_unstable();
        ranks.dedup();
        let rank = |s: &Vec<u16>| ranks.binary_search(&s).expect("a shape") as u16;
        let keys: Vec<(u16, u16, u16)> = letters
            .iter()
            .map(|&(id, a, b)| {
                let (x, y) = (rank(&prepared[a].shape), rank(&prepared[b].shape));
                (colours.of(id), x.min(y), x.max(y))
            })
            .collect();
        let mut distinct = keys.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() <= count {
            return;
        }
        count = distinct.len();
        for (k, &(id, _, _)) in keys.iter().zip(&letters) {
            colours.set(id, distinct.binary_search(k).expect("a key") as u16);
        }
    }
}

/// Whether `out` is already past `best` where both are written.
fn past(out: &[u8], best: &[u8]) -> bool {
    let n = out.len().min(best.len());
    out[..n] > best[..n]
}

struct Canon<'a> {
    regions: &'a [Region],
    colours: &'a Colours,
    best: Option<Vec<u8>>,
    budget: u32,
}

impl Canon<'_> {
    /// Completes the writing `out` (names `names`) from region number
    /// `done` on, keeping the least result. The next region is one of the
    /// unused regions of the least shape left.
    fn solve(&mut self, out: Vec<u8>, names: Names, used: &mut [bool], done: usize) {
        if self.best.as_ref().is_some_and(|b| past(&out, b)) {
            return;
        }
        if done == self.regions.len() {
            if self.best.as_ref().is_none_or(|b| out < *b) {
                self.best = Some(out);
            }
            return;
        }
        let first = used.iter().position(|&u| !u).expect("a region left");
        let (free, shape) = (self.regions[first].free, &self.regions[first].shape);
        // The candidates: unused regions of this shape, and each writing.
        let mut least: Option<Vec<u8>> = None;
        let mut ties: Vec<(usize, Names)> = Vec::new();
        for (r, region) in self.regions.iter().enumerate().skip(first) {
            if region.shape != *shape || region.free != free {
                break;
            }
            if used[r] {
                continue;
            }
            for (bytes, after) in self.region(r, &names) {
                match least.as_ref().map(|l| bytes.cmp(l)) {
                    Some(Ordering::Greater) => continue,
                    Some(Ordering::Equal) => {}
                    _ => {
                        least = Some(bytes);
                        ties.clear();
                    }
                }
                if !ties.iter().any(|(q, n)| *q == r && *n == after) {
                    ties.push((r, after));
                }
            }
            if !self.regions[r].upper {
                // Regions of one shape without upper-case letters write
                // alike whichever is taken.
                break;
            }
        }
        let least = least.expect("a region of this shape");
        let last = ties.len() - 1;
        let mut out = Some(out);
        for (i, (r, after)) in ties.into_iter().enumerate() {
            if i > 0 {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
            }
            let mut next = if i == last {
                out.take().expect("the prefix")
            } else {
                out.clone().expect("the prefix")
            };
            next.extend_from_slice(&least);
            used[r] = true;
            self.solve(next, after, used, done + 1);
            used[r] = false;
        }
    }

    /// The least writings of region `r` after `names`: its bytes and the
    /// names after it, one per distinct naming that writes it least.
    fn region(&mut self, r: usize, names: &Names) -> Vec<(Vec<u8>, Names)> {
        let p = &self.regions[r];
        let mut head = Vec::with_capacity(p.shape.len() + 1);
        for _ in 0..p.zeros {
            head.push(ZERO);
            head.push(BOUNDARY_END);
        }
        if p.free {
            return free_region(p, head, names, self.colours);
        }
        if !p.upper {
            // No upper-case letter: every writing of its shape is the
            // shape itself, its letters ranked after the names so far.
            let mut out = Vec::with_capacity(p.shape.len());
            let mut after = names.clone();
            let mut top = 0u16;
            for &c in &p.shape {
                match c {
                    S_BOUNDARY => {
                        after.next = after.next.saturating_add(top as u8);
                        top = 0;
                        out.push(BOUNDARY_END);
                    }
                    S_REGION => out.push(REGION_END),
                    c if (LOW..HIGH).contains(&c) => {
                        let local = c - LOW;
                        top = top.max(local + 1);
                        out.push(letter(after.next.saturating_add(local as u8)));
                    }
                    c => out.push(c as u8),
                }
            }
            return vec![(out, after)];
        }
        let mut found: Vec<(Vec<u8>, Names)> = Vec::new();
        for w in &p.writings {
            let mut left: Vec<bool> = vec![true; w.order.len()];
            let mut out = head.clone();
            self.bounds(p, w, &mut left, 0, &mut out, names.clone(), &mut found);
        }
        found
    }

    /// Writes boundary number `done` on of writing `w` of region `p` (those
    /// still `left`) after `out`: the next is one of its run of equal
    /// shapes, the one that writes least. Each least complete writing (with
    /// the region's end) goes to `found`, which keeps only the least.
    #[allow(clippy::too_many_arguments)]
    fn bounds(
        &mut self,
        p: &Region,
        w: &Writing,
        left: &mut [bool],
        done: usize,
        out: &mut Vec<u8>,
        names: Names,
        found: &mut Vec<(Vec<u8>, Names)>,
    ) {
        if found.first().is_some_and(|(b, _)| past(out, b)) {
            return;
        }
        if done == w.order.len() {
            out.push(REGION_END);
            match found.first().map(|(b, _)| out.as_slice().cmp(b)) {
                Some(Ordering::Greater) => {}
                Some(Ordering::Equal) => {
                    if !found.iter().any(|(_, n)| *n == names) {
                        found.push((out.clone(), names));
                    }
                }
                _ => {
                    found.clear();
                    found.push((out.clone(), names));
                }
            }
            out.pop();
            return;
        }
        // Boundaries are taken in shape order: the next one is from the
        // run of the first boundary left.
        let first = left.iter().position(|&l| l).expect("a boundary left");
        let run = w.run[first];
        let mark = out.len();
        let mut least_len = 0;
        let mut ties: Vec<(usize, Names)> = Vec::new();
        let mut buf = Vec::new();
        let mut fresh: Vec<(Tok, u8)> = Vec::new();
        for (k, &(bi, mut rotations)) in w.order.iter().enumerate().skip(first) {
            if w.run[k] != run {
                break;
            }
            if !left[k] {
                continue;
            }
            let b = p.boundary(bi as usize);
            while rotations != 0 {
                let s = rotations.trailing_zeros() as usize;
                rotations &= rotations - 1;
                buf.clear();
                fresh.clear();
                let next = write_boundary(b, s, w.mirror, &names, &mut buf, &mut fresh);
                let order = if ties.is_empty() {
                    Ordering::Less
                } else {
                    buf.as_slice().cmp(&out[mark..mark + least_len])
                };
                match order {
                    Ordering::Greater => continue,
                    Ordering::Equal => {}
                    Ordering::Less => {
                        out.truncate(mark);
                        out.extend_from_slice(&buf);
                        least_len = buf.len();
                        ties.clear();
                    }
                }
                let mut after = names.clone();
                after.upper.extend_from_slice(&fresh);
                after.next = next;
                if !ties.iter().any(|(q, n)| *q == k && *n == after) {
                    ties.push((k, after));
                }
            }
        }
        for (i, (k, after)) in ties.into_iter().enumerate() {
            if i > 0 {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
            }
            left[k] = false;
            self.bounds(p, w, left, done + 1, out, after, found);
            out.truncate(mark + least_len);
            left[k] = true;
        }
        out.truncate(mark);
    }
}

/// Writes boundary `b` from vertex `s` (mirrored or not) into `out` after
/// `names`, with its end; the upper-case letters it names anew go to
/// `fresh` with their ranks; returns the next rank. A lower-case letter is
/// this boundary's own: it is named here, at its first side.
fn write_boundary(
    b: &[u16],
    s: usize,
    mirror: bool,
    names: &Names,
    out: &mut Vec<u8>,
    fresh: &mut Vec<(Tok, u8)>,
) -> u8 {
    let start = out.len();
    let mut next = names.next;
    for k in 0..b.len() {
        let v = at(b, s, k, mirror);
        let byte = if v & V_UPPER != 0 {
            let id = v & V_ID;
            match names.rank(id) {
                Some(r) => letter(r),
                // An upper-case letter is once in a region: new here.
                None => match fresh.iter().find(|&&(t, _)| t == id) {
                    Some(&(_, r)) => letter(r),
                    None => {
                        debug_assert!(usize::from(next) < MAX_LETTERS);
                        fresh.push((id, next));
                        next = next.saturating_add(1);
                        letter(next - 1)
                    }
                },
            }
        } else if v & V_LOWER != 0 {
            match (0..k).find(|&j| at(b, s, j, mirror) == v) {
                Some(j) => out[start + j],
                None => {
                    next = next.saturating_add(1);
                    letter(next - 1)
                }
            }
        } else {
            v as u8
        };
        out.push(byte);
    }
    out.push(BOUNDARY_END);
    next
}

/// A free region (two or three lives, one boundary; or a lone `0`, which
/// `head` holds): `1`s, `2`s, then its upper-case letters by colour (as its
/// shape has them); within a colour, those named by rank, then the new
/// ones, in each order (each a naming of the same bytes).
fn free_region(
    p: &Region,
    head: Vec<u8>,
    names: &Names,
    colours: &Colours,
) -> Vec<(Vec<u8>, Names)> {
    let mut letters: Vec<(u16, u8, Tok)> = p
        .uppers
        .iter()
        .map(|&id| (colours.of(id), names.rank(id).unwrap_or(u8::MAX), id))
        .collect();
    letters.sort_unstable();
    let mut orders: Vec<Vec<Tok>> = vec![Vec::new()];
    let mut i = 0;
    while i < letters.len() {
        let mut j = i;
        while j < letters.len() && letters[j].0 == letters[i].0 {
            j += 1;
        }
        let named: Vec<Tok> = letters[i..j]
            .iter()
            .filter(|l| l.1 != u8::MAX)
            .map(|l| l.2)
            .collect();
        let new: Vec<Tok> = letters[i..j]
            .iter()
            .filter(|l| l.1 == u8::MAX)
            .map(|l| l.2)
            .collect();
        let perms = permutations(&new);
        let mut next = Vec::with_capacity(orders.len() * perms.len());
        for o in &orders {
            for p in &perms {
                let mut o = o.clone();
                o.extend(&named);
                o.extend(p);
                next.push(o);
            }
        }
        orders = next;
        i = j;
    }
    orders
        .into_iter()
        .map(|order| {
            let mut out = head.clone();
            let mut n = names.clone();
            if p.zeros == 0 {
                out.extend(std::iter::repeat_n(ONE, p.ones));
                out.extend(std::iter::repeat_n(TWO, p.twos));
                for id in order {
                    let r = match n.rank(id) {
                        Some(r) => r,
                        None => {
                            let r = n.take();
                            n.upper.push((id, r));
                            r
                        }
                    };
                    out.push(letter(r));
                }
                out.push(BOUNDARY_END);
            }
            out.push(REGION_END);
            (out, n)
        })
        .collect()
}

/// Every order of `v` (at most three letters in a free region).
fn permutations(v: &[Tok]) -> Vec<Vec<Tok>> {
    if v.len() <= 1 {
        return vec![v.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..v.len() {
        let mut rest = v.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}
