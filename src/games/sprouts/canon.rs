//! The canonical form of a land, in two steps.
//!
//! 1. Each region's *shape*: its least writing with every upper-case letter
//!    written alike (`U`, after every lower-case letter), over its two
//!    orientations (read forwards or mirrored: a region can be mirrored on
//!    its own, its only link to others being letters with one life), each
//!    boundary's starting point, and the order of its boundaries (the `0`s
//!    first, the least). Lower-case letters are named by first appearance
//!    in their boundary. A region of two or three lives is free (its
//!    shape cannot matter): its `1`s, `2`s, then its `U`s.
//! 2. The regions in order of shape; then, among the writings that give
//!    each region its shape (the orientations, rotations and orders of
//!    equal boundaries that tie, and the orders of regions of equal shape),
//!    the least text once the letters are named by first appearance
//!    (letters of both cases share the ranks). This is built from the
//!    front: the next region or boundary is the one that writes least, and
//!    a tie between two that write alike but name different letters is
//!    resolved by trying each, up to [`BRANCHES`] in all.
//!
//! Both steps depend only on the land, not on how it was written, so equal
//! lands get equal bytes. Past the bound the first choice is taken: the
//! bytes are still this land's (a correct key), only perhaps not the
//! canonical ones, so one land may get two keys (never two lands one).

use super::rules::{Census, Tok, WRegion, T_ONE, T_TWO};
use super::{Land, BOUNDARY_END, LAND_END, LETTERS, MAX_LETTERS, ONE, REGION_END, TWO, ZERO};
use std::cmp::Ordering;

/// Tie branches a canonical form may try beyond the first.
const BRANCHES: u32 = 4096;

/// The shape byte of every upper-case letter: after every lower-case one.
const U: u8 = BOUNDARY_END - 1;

/// A vertex as written: its class, and for a letter its id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    One,
    Two,
    Lower(Tok),
    Upper(Tok),
}

/// A boundary's shape at one rotation: lower-case letters named from 0 in
/// order of appearance, upper-case ones `U`, ended by `BOUNDARY_END`.
fn shape_at(b: &[Class], s: usize, out: &mut Vec<u8>) {
    let n = b.len();
    let start = out.len();
    let mut lower: [Tok; 16] = [0; 16];
    let mut nl = 0usize;
    for k in 0..n {
        let c = b[if s + k < n { s + k } else { s + k - n }];
        out.push(match c {
            Class::One => ONE,
            Class::Two => TWO,
            Class::Upper(_) => U,
            Class::Lower(id) => {
                // A boundary has few lower-case letters; past 16 the rank
                // is found by searching what is written so far.
                let r = match lower[..nl.min(16)].iter().position(|&t| t == id) {
                    Some(r) => r,
                    None if nl < 16 => {
                        lower[nl] = id;
                        nl += 1;
                        nl - 1
                    }
                    None => {
                        let earlier = (0..k).find(|&j| {
                            let c2 = b[if s + j < n { s + j } else { s + j - n }];
                            c2 == Class::Lower(id)
                        });
                        match earlier {
                            Some(j) => usize::from(out[start + j] - LETTERS),
                            None => {
                                nl += 1;
                                nl - 1
                            }
                        }
                    }
                };
                LETTERS + r.min(usize::from(U - LETTERS - 1)) as u8
            }
        });
    }
    out.push(BOUNDARY_END);
}

/// A boundary's least shape and the rotations that give it.
fn boundary_shape(b: &[Class]) -> (Vec<u8>, Vec<usize>) {
    let mut best: Vec<u8> = Vec::new();
    let mut at = Vec::new();
    let mut buf = Vec::with_capacity(b.len() + 1);
    for s in 0..b.len() {
        buf.clear();
        shape_at(b, s, &mut buf);
        match (at.is_empty(), buf.cmp(&best)) {
            (true, _) | (false, Ordering::Less) => {
                best.clone_from(&buf);
                at.clear();
                at.push(s);
            }
            (false, Ordering::Equal) => at.push(s),
            _ => {}
        }
    }
    (best, at)
}

/// One orientation of a region that gives it its shape: its boundaries in
/// shape order, each with the rotations that give its shape, and where
/// runs of boundaries of equal shape (which may be written in any order)
/// begin.
struct Writing {
    bounds: Vec<(Vec<Class>, Vec<usize>)>,
    /// `group[i]`: the index of the first boundary of i's run of equals.
    group: Vec<usize>,
}

/// A region ready for naming.
struct Region {
    shape: Vec<u8>,
    zeros: u32,
    free: bool,
    /// Whether it has upper-case letters (else its bytes are its shape
    /// with its letters ranked after the names so far).
    upper: bool,
    writings: Vec<Writing>,
    /// A free region's `1`s, `2`s and upper-case letters.
    ones: usize,
    twos: usize,
    uppers: Vec<Tok>,
}

impl Region {
    fn new(reg: &WRegion, census: &Census) -> Region {
        let class = |t: Tok| match t {
            T_ONE => Class::One,
            T_TWO => Class::Two,
            _ if census.upper(t) => Class::Upper(t),
            _ if census.lower(t) => Class::Lower(t),
            _ => Class::Two,
        };
        let mut shape = Vec::new();
        for _ in 0..reg.zeros {
            shape.push(ZERO);
            shape.push(BOUNDARY_END);
        }
        let free = census.half_lives(reg) <= 6;
        let mut region = Region {
            shape,
            zeros: reg.zeros,
            free,
            upper: false,
            writings: Vec::new(),
            ones: 0,
            twos: 0,
            uppers: Vec::new(),
        };
        if free {
            for b in &reg.bounds {
                for &t in b {
                    match class(t) {
                        Class::One => region.ones += 2,
                        Class::Two => region.twos += 2,
                        // A lower-case letter here is one `2` for its two
                        // sides (the reduction writes it so already).
                        Class::Lower(_) => region.twos += 1,
                        Class::Upper(id) => region.uppers.push(id),
                    }
                }
            }
            region.ones /= 2;
            region.twos /= 2;
            region.upper = !region.uppers.is_empty();
            if !reg.bounds.is_empty() {
                region.shape.extend(std::iter::repeat_n(ONE, region.ones));
                region.shape.extend(std::iter::repeat_n(TWO, region.twos));
                region
                    .shape
                    .extend(std::iter::repeat_n(U, region.uppers.len()));
                region.shape.push(BOUNDARY_END);
            }
            region.shape.push(REGION_END);
            return region;
        }
        let head = region.shape.len();
        let mut best: Option<Vec<u8>> = None;
        for mirror in [false, true] {
            let mut bounds: Vec<(Vec<u8>, Vec<Class>, Vec<usize>)> = reg
                .bounds
                .iter()
                .map(|b| {
                    let mut c: Vec<Class> = b.iter().map(|&t| class(t)).collect();
                    if mirror {
                        c.reverse();
                    }
                    let (s, at) = boundary_shape(&c);
                    (s, c, at)
                })
                .collect();
            bounds.sort_by(|a, b| a.0.cmp(&b.0));
            let mut shape = region.shape[..head].to_vec();
            for (s, _, _) in &bounds {
                shape.extend_from_slice(s);
            }
            shape.push(REGION_END);
            let mut group = Vec::with_capacity(bounds.len());
            for i in 0..bounds.len() {
                group.push(if i > 0 && bounds[i].0 == bounds[i - 1].0 {
                    group[i - 1]
                } else {
                    i
                });
            }
            let w = Writing {
                bounds: bounds.into_iter().map(|(_, c, at)| (c, at)).collect(),
                group,
            };
            match best.as_ref().map(|b| shape.cmp(b)) {
                Some(Ordering::Greater) => {}
                Some(Ordering::Equal) => region.writings.push(w),
                _ => {
                    best = Some(shape);
                    region.writings.clear();
                    region.writings.push(w);
                }
            }
        }
        region.shape = best.expect("two orientations");
        region.upper = reg
            .bounds
            .iter()
            .any(|b| b.iter().any(|&t| census.upper(t)));
        region
    }
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
    prepared.sort_by(|a, b| a.shape.cmp(&b.shape));
    let mut c = Canon {
        regions: &prepared,
        best: None,
        budget: BRANCHES,
    };
    let mut used = vec![false; prepared.len()];
    c.solve(Vec::new(), Names::default(), &mut used, 0);
    let mut best = c.best.expect("a land has a writing");
    best.push(LAND_END);
    Land(best.into())
}

/// Whether `out` is already past `best` where both are written.
fn past(out: &[u8], best: &[u8]) -> bool {
    let n = out.len().min(best.len());
    out[..n] > best[..n]
}

struct Canon<'a> {
    regions: &'a [Region],
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
        let shape = &self.regions[first].shape;
        // The candidates: unused regions of this shape, and each writing.
        let mut least: Option<Vec<u8>> = None;
        let mut ties: Vec<(usize, Names)> = Vec::new();
        for r in first..self.regions.len() {
            if used[r] || self.regions[r].shape != *shape {
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
        for (i, (r, after)) in ties.into_iter().enumerate() {
            if i > 0 {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
            }
            let mut next = out.clone();
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
        let mut head = Vec::with_capacity(p.shape.len());
        for _ in 0..p.zeros {
            head.push(ZERO);
            head.push(BOUNDARY_END);
        }
        if p.free {
            return free_region(p, head, names);
        }
        if !p.upper {
            // No upper-case letter: every writing of its shape is the
            // shape itself, its letters ranked after the names so far.
            let mut out = Vec::with_capacity(p.shape.len());
            let mut after = names.clone();
            let mut top = 0u8;
            for &b in &p.shape {
                if (LETTERS..U).contains(&b) {
                    let local = b - LETTERS;
                    top = top.max(local + 1);
                    out.push(letter(after.next.saturating_add(local)));
                } else {
                    if b == BOUNDARY_END {
                        after.next = after.next.saturating_add(top);
                        top = 0;
                    }
                    out.push(b);
                }
            }
            return vec![(out, after)];
        }
        let mut found: Vec<(Vec<u8>, Names)> = Vec::new();
        for w in &p.writings {
            let mut left: Vec<bool> = vec![true; w.bounds.len()];
            self.bounds(w, &mut left, 0, head.clone(), names.clone(), &mut found);
        }
        found
    }

    /// Writes boundary number `done` on of writing `w` (those still `left`)
    /// after `out`: the next is one of its run of equal shapes, the one
    /// that writes least. Each least complete writing (with the region's
    /// end) goes to `found`, which keeps only the least.
    fn bounds(
        &mut self,
        w: &Writing,
        left: &mut [bool],
        done: usize,
        out: Vec<u8>,
        names: Names,
        found: &mut Vec<(Vec<u8>, Names)>,
    ) {
        if found.first().is_some_and(|(b, _)| past(&out, b)) {
            return;
        }
        if done == w.bounds.len() {
            let mut out = out;
            out.push(REGION_END);
            match found.first().map(|(b, _)| out.cmp(b)) {
                Some(Ordering::Greater) => {}
                Some(Ordering::Equal) => {
                    if !found.iter().any(|(_, n)| *n == names) {
                        found.push((out, names));
                    }
                }
                _ => {
                    found.clear();
                    found.push((out, names));
                }
            }
            return;
        }
        // Boundaries are taken in shape order: the next one is from the
        // run of the first boundary left.
        let first = left.iter().position(|&l| l).expect("a boundary left");
        let run = w.group[first];
        let mut least: Option<Vec<u8>> = None;
        let mut ties: Vec<(usize, Names)> = Vec::new();
        let mut buf = Vec::new();
        for k in first..w.bounds.len() {
            if w.group[k] != run {
                break;
            }
            if !left[k] {
                continue;
            }
            let (b, rotations) = &w.bounds[k];
            for &s in rotations {
                buf.clear();
                let after = write_boundary(b, s, &names, &mut buf);
                match least.as_ref().map(|l| buf.as_slice().cmp(l)) {
                    Some(Ordering::Greater) => continue,
                    Some(Ordering::Equal) => {}
                    _ => {
                        least = Some(buf.clone());
                        ties.clear();
                    }
                }
                if !ties.iter().any(|(q, n)| *q == k && *n == after) {
                    ties.push((k, after));
                }
            }
        }
        let least = least.expect("a boundary left");
        for (i, (k, after)) in ties.into_iter().enumerate() {
            if i > 0 {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
            }
            let mut next = out.clone();
            next.extend_from_slice(&least);
            left[k] = false;
            self.bounds(w, left, done + 1, next, after, found);
            left[k] = true;
        }
    }
}

/// Writes boundary `b` from its vertex `s` into `out` after `names`, with
/// its end; returns the names after it. A lower-case letter is this
/// boundary's own: it is named here, at its first side.
fn write_boundary(b: &[Class], s: usize, names: &Names, out: &mut Vec<u8>) -> Names {
    let mut after = names.clone();
    let n = b.len();
    let start = out.len();
    for k in 0..n {
        let c = b[if s + k < n { s + k } else { s + k - n }];
        let byte = match c {
            Class::One => ONE,
            Class::Two => TWO,
            Class::Lower(_) => {
                // Its first side, if already written, gave its rank.
                let earlier = (0..k).find(|&j| b[if s + j < n { s + j } else { s + j - n }] == c);
                match earlier {
                    Some(j) => out[start + j],
                    None => letter(after.take()),
                }
            }
            Class::Upper(id) => match after.rank(id) {
                Some(r) => letter(r),
                None => {
                    let r = after.take();
                    after.upper.push((id, r));
                    letter(r)
                }
            },
        };
        out.push(byte);
    }
    out.push(BOUNDARY_END);
    after
}

/// A free region (two or three lives, one boundary; or a lone `0`, which
/// `head` holds): `1`s, `2`s, then its upper-case letters, those already
/// named by rank, then the new ones, in each order (each a naming of the
/// same bytes).
fn free_region(p: &Region, head: Vec<u8>, names: &Names) -> Vec<(Vec<u8>, Names)> {
    let mut out = head;
    let mut named: Vec<u8> = Vec::new();
    let mut new: Vec<Tok> = Vec::new();
    for &id in &p.uppers {
        match names.rank(id) {
            Some(r) => named.push(r),
            None => new.push(id),
        }
    }
    if p.zeros == 0 {
        out.extend(std::iter::repeat_n(ONE, p.ones));
        out.extend(std::iter::repeat_n(TWO, p.twos));
        named.sort_unstable();
        out.extend(named.into_iter().map(letter));
        out.extend((0..new.len()).map(|i| letter(names.next.saturating_add(i as u8))));
        out.push(BOUNDARY_END);
    }
    out.push(REGION_END);
    // Each order of the new letters names them differently.
    permutations(&new)
        .into_iter()
        .map(|order| {
            let mut n = names.clone();
            for id in order {
                let r = n.take();
                n.upper.push((id, r));
            }
            (out.clone(), n)
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
