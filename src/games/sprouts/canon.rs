//! The canonical form of a land: the least byte string (in the order of
//! `super::Land`'s bytes) over every way of writing it: the order of its
//! regions, each region's orientation (read forwards or mirrored), the
//! order of its boundaries (the `0`s first: they are the least), each
//! boundary's starting point, and the names of its letters, given by first
//! appearance.
//!
//! The least string is built from the front. The first region written is
//! one whose own least writing is least; within it the first boundary is
//! the least boundary at its least rotation, and so on: since every
//! separator sorts after every vertex, two strings' order is decided region
//! by region and boundary by boundary. The one freedom a prefix does not
//! settle is which of two equal-looking choices (two regions, two
//! rotations, written alike so far) names which upper-case letter: such
//! ties are each tried, up to [`BRANCHES`] in all, and the least result
//! kept. Past the bound the first choice is taken: the text is still this
//! land's (a correct key), only perhaps not the least, so the same land may
//! get two keys (never two lands one).

use super::rules::{Census, Tok, WRegion, T_ONE, T_TWO};
use super::{Land, BOUNDARY_END, LAND_END, LETTERS, MAX_LETTERS, ONE, REGION_END, TWO, ZERO};
use std::cmp::Ordering;

/// Tie branches a canonical form may try beyond the first.
const BRANCHES: u32 = 256;

/// A region prepared for writing: its `0`s, whether its shape is free (two
/// or three lives: one boundary whose order does not matter), and its
/// boundaries as class tokens, forwards and mirrored.
struct Prepared {
    zeros: u32,
    free: bool,
    forward: Vec<Vec<Class>>,
    mirrored: Vec<Vec<Class>>,
}

/// A vertex as written: its class, and for a letter its id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    One,
    Two,
    Lower(Tok),
    Upper(Tok),
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

/// A writing in progress: the bytes so far, the names, the regions used.
#[derive(Clone)]
struct State {
    out: Vec<u8>,
    names: Names,
    used: Vec<bool>,
}

/// The canonical form of the land made of `regions` (reduced: every region
/// alive, free regions written as one boundary); `census` tells each
/// letter's case.
pub(crate) fn canonical(regions: &[WRegion], census: &Census) -> Land {
    let prepared: Vec<Prepared> = regions
        .iter()
        .map(|reg| {
            let forward: Vec<Vec<Class>> = reg
                .bounds
                .iter()
                .map(|b| {
                    b.iter()
                        .map(|&t| match t {
                            T_ONE => Class::One,
                            T_TWO => Class::Two,
                            _ if census.upper(t) => Class::Upper(t),
                            _ if census.lower(t) => Class::Lower(t),
                            _ => Class::Two,
                        })
                        .collect()
                })
                .collect();
            let mirrored = forward
                .iter()
                .map(|b| b.iter().rev().copied().collect())
                .collect();
            Prepared {
                zeros: reg.zeros,
                free: census.half_lives(reg) <= 6,
                forward,
                mirrored,
            }
        })
        .collect();
    let mut c = Canon {
        regions: &prepared,
        best: None,
        budget: BRANCHES,
    };
    c.solve(State {
        out: Vec::new(),
        names: Names::default(),
        used: vec![false; prepared.len()],
    });
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
    regions: &'a [Prepared],
    best: Option<Vec<u8>>,
    budget: u32,
}

impl Canon<'_> {
    /// Completes `st` region by region, keeping the least result.
    fn solve(&mut self, st: State) {
        if self.best.as_ref().is_some_and(|b| past(&st.out, b)) {
            return;
        }
        if st.used.iter().all(|&u| u) {
            if self.best.as_ref().is_none_or(|b| st.out < *b) {
                self.best = Some(st.out);
            }
            return;
        }
        // Every unused region's least writings from here; the least of all.
        let mut least: Option<Vec<u8>> = None;
        let mut ties: Vec<(usize, Names)> = Vec::new();
        for r in 0..self.regions.len() {
            if st.used[r] {
                continue;
            }
            for (bytes, names) in self.region(r, &st.names) {
                match least.as_ref().map(|l| bytes.cmp(l)) {
                    Some(Ordering::Greater) => continue,
                    Some(Ordering::Equal) => {}
                    _ => {
                        least = Some(bytes);
                        ties.clear();
                    }
                }
                if !ties.iter().any(|(q, n)| *q == r && *n == names) {
                    ties.push((r, names));
                }
            }
        }
        let least = least.expect("an unused region");
        for (i, (r, names)) in ties.into_iter().enumerate() {
            if i > 0 {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
            }
            let mut next = st.clone();
            next.out.extend_from_slice(&least);
            next.used[r] = true;
            next.names = names;
            self.solve(next);
        }
    }

    /// The least writings of region `r` after `names`: the bytes (its
    /// boundaries and the region's end) and the names after it, one per
    /// distinct naming that writes it least.
    fn region(&mut self, r: usize, names: &Names) -> Vec<(Vec<u8>, Names)> {
        let p = &self.regions[r];
        let mut head = Vec::with_capacity(2 * p.zeros as usize + 1);
        for _ in 0..p.zeros {
            head.push(ZERO);
            head.push(BOUNDARY_END);
        }
        if p.forward.is_empty() {
            head.push(REGION_END);
            return vec![(head, names.clone())];
        }
        if p.free {
            return free_region(p, head, names);
        }
        let mut found: Vec<(Vec<u8>, Names)> = Vec::new();
        let all: Vec<usize> = (0..p.forward.len()).collect();
        for bounds in [&p.forward, &p.mirrored] {
            self.bounds(bounds, &all, head.clone(), names.clone(), &mut found);
        }
        found
    }

    /// Writes the boundaries `left` of `bounds` after `out`, least first,
    /// adding each least complete writing (with the region's end) to
    /// `found`, which keeps only the least.
    fn bounds(
        &mut self,
        bounds: &[Vec<Class>],
        left: &[usize],
        out: Vec<u8>,
        names: Names,
        found: &mut Vec<(Vec<u8>, Names)>,
    ) {
        if found.first().is_some_and(|(b, _)| past(&out, b)) {
            return;
        }
        if left.is_empty() {
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
        let mut least: Option<Vec<u8>> = None;
        let mut ties: Vec<(usize, Names)> = Vec::new();
        let mut buf = Vec::new();
        for (k, &bi) in left.iter().enumerate() {
            let b = &bounds[bi];
            for s in 0..b.len() {
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
            let mut rest = left.to_vec();
            rest.remove(k);
            let mut next = out.clone();
            next.extend_from_slice(&least);
            self.bounds(bounds, &rest, next, after, found);
        }
    }
}

/// Writes boundary `b` from its vertex `s` into `out` after `names`, with
/// its end; returns the names after it. A lower-case letter is this
/// boundary's own: it is named here, at its first side.
fn write_boundary(b: &[Class], s: usize, names: &Names, out: &mut Vec<u8>) -> Names {
    let mut after = names.clone();
    let mut lower: Vec<(Tok, u8)> = Vec::new();
    let n = b.len();
    for k in 0..n {
        let c = b[if s + k < n { s + k } else { s + k - n }];
        out.push(match c {
            Class::One => ONE,
            Class::Two => TWO,
            Class::Lower(id) => match lower.iter().find(|&&(t, _)| t == id) {
                Some(&(_, r)) => letter(r),
                None => {
                    let r = after.take();
                    lower.push((id, r));
                    letter(r)
                }
            },
            Class::Upper(id) => match after.rank(id) {
                Some(r) => letter(r),
                None => {
                    let r = after.take();
                    after.upper.push((id, r));
                    letter(r)
                }
            },
        });
    }
    out.push(BOUNDARY_END);
    after
}

/// A free region (two or three lives, one boundary; or a lone `0`, which
/// `head` holds): `1`s, `2`s, then its upper-case letters, those already
/// named by rank, then the new ones, in each order (each a naming of the
/// same bytes).
fn free_region(p: &Prepared, head: Vec<u8>, names: &Names) -> Vec<(Vec<u8>, Names)> {
    let mut out = head;
    let mut named: Vec<u8> = Vec::new();
    let mut new: Vec<Tok> = Vec::new();
    let (mut ones, mut twos) = (0, 0);
    for b in &p.forward {
        for &c in b {
            match c {
                Class::One => ones += 1,
                Class::Two => twos += 2,
                // The reduction writes these as `2`s; two sides, one `2`.
                Class::Lower(_) => twos += 1,
                Class::Upper(id) => match names.rank(id) {
                    Some(r) => named.push(r),
                    None => new.push(id),
                },
            }
        }
    }
    out.extend(std::iter::repeat_n(ONE, ones));
    out.extend(std::iter::repeat_n(TWO, twos / 2));
    named.sort_unstable();
    out.extend(named.into_iter().map(letter));
    out.extend((0..new.len()).map(|i| letter(names.next.saturating_add(i as u8))));
    out.push(BOUNDARY_END);
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
