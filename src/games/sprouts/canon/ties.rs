//! Step 2 of the canonical form: the least text over the writings that
//! give each region its shape, built from the front, ties tried in turn.

use super::shape::{Region, Writing};
use super::{at, HIGH, LOW, S_BOUNDARY, S_REGION, S_SURFACE, V_ID, V_LOWER, V_UPPER};
use crate::games::sprouts::{BOUNDARY_END, LETTERS, MAX_LETTERS, ONE, REGION_END, TWO, ZERO};
use std::cmp::Ordering;

/// A naming (the upper-case letters named so far and the next rank) is a
/// *frame* of bytes: the rank of each upper-case letter of the land by its
/// dense number ([`UNNAMED`] if none yet), then the next rank. Letters of
/// both cases share the ranks, in order of appearance; two namings are
/// equal exactly when their frames are.
const UNNAMED: u8 = u8::MAX;

/// The byte of the letter of rank `r`.
fn letter(r: u8) -> u8 {
    LETTERS + r.min(MAX_LETTERS as u8 - 1)
}

/// Whether `out` is already past `best` where both are written.
fn past(out: &[u8], best: &[u8]) -> bool {
    let n = out.len().min(best.len());
    out[..n] > best[..n]
}

/// The tie search's stacks and buffers. Frames are namings (see
/// [`UNNAMED`]), each `stride` bytes.
#[derive(Default)]
pub(super) struct Bufs {
    /// The least complete writing so far.
    pub(super) best: Vec<u8>,
    has_best: bool,
    /// The regions written so far.
    out: Vec<u8>,
    used: Vec<bool>,
    /// Per level of [`Canon::solve`]: the least bytes of the next region,
    /// and the ties that write them (region, frame in `names`).
    least: Vec<u8>,
    ties: Vec<(u32, u32)>,
    names: Vec<u8>,
    /// One region's least writings ([`Canon::region`]): their bytes and
    /// their distinct namings (frames).
    found: Vec<u8>,
    found_names: Vec<u8>,
    found_any: bool,
    /// [`Canon::bounds`]' writing of the region so far, boundaries left,
    /// ties (boundary, frame in `bnames`) per level, and scratch.
    rout: Vec<u8>,
    left: Vec<bool>,
    bties: Vec<(u32, u32)>,
    bnames: Vec<u8>,
    wbuf: Vec<u8>,
    fresh: Vec<(u16, u8)>,
    frame: Vec<u8>,
    /// A free region's letters (colour, rank or [`UNNAMED`], dense
    /// number), and one order of them with the runs that may permute.
    fletters: Vec<(u16, u8, u16)>,
    forder: Vec<u16>,
    fgroups: Vec<(u32, u32)>,
}

impl Bufs {
    /// Ready for a land of `n` regions and frames of `stride` bytes: the
    /// naming with nothing named is the first frame.
    pub(super) fn reset(&mut self, n: usize, stride: usize) {
        self.best.clear();
        self.has_best = false;
        self.out.clear();
        self.used.clear();
        self.used.resize(n, false);
        self.least.clear();
        self.ties.clear();
        self.names.clear();
        self.names.resize(stride, UNNAMED);
        self.names[stride - 1] = 0;
    }
}

/// Offers a complete writing of a region (`bytes`, naming `frame`) to the
/// least found so far: kept if less (the others dropped) or equal with a
/// naming not yet found.
fn offer(
    found: &mut Vec<u8>,
    found_names: &mut Vec<u8>,
    found_any: &mut bool,
    bytes: &[u8],
    frame: &[u8],
) {
    match (*found_any).then(|| bytes.cmp(found)) {
        Some(Ordering::Greater) => {}
        Some(Ordering::Equal) => {
            if !found_names.chunks(frame.len()).any(|f| f == frame) {
                found_names.extend_from_slice(frame);
            }
        }
        _ => {
            found.clear();
            found.extend_from_slice(bytes);
            found_names.clear();
            found_names.extend_from_slice(frame);
            *found_any = true;
        }
    }
}

/// A rank taken for a new letter. A land has at most [`MAX_LETTERS`]
/// letters (they are at most its lives, which parsing bounds and moves
/// never raise).
fn take(next: &mut u8) -> u8 {
    debug_assert!(usize::from(*next) < MAX_LETTERS);
    let r = *next;
    *next = next.saturating_add(1);
    r
}

pub(super) struct Canon<'a> {
    pub(super) regions: &'a [Region],
    pub(super) colours: &'a [u16],
    pub(super) stride: usize,
    pub(super) budget: u32,
    pub(super) b: &'a mut Bufs,
}

impl Canon<'_> {
    /// Completes the writing `b.out` (naming: frame `nm` of `b.names`) from
    /// region number `done` on, keeping the least result. The next region
    /// is one of the unused regions of the least shape left.
    pub(super) fn solve(&mut self, done: usize, nm: usize) {
        if self.b.has_best && past(&self.b.out, &self.b.best) {
            return;
        }
        let regions = self.regions;
        if done == regions.len() {
            let b = &mut *self.b;
            if !b.has_best || b.out < b.best {
                b.best.clear();
                b.best.extend_from_slice(&b.out);
                b.has_best = true;
            }
            return;
        }
        let first = self.b.used.iter().position(|&u| !u).expect("a region left");
        let (free, shape) = (regions[first].free, &regions[first].shape);
        let stride = self.stride;
        let (least_at, ties_at, names_at) =
            (self.b.least.len(), self.b.ties.len(), self.b.names.len());
        // The candidates: unused regions of this shape, and each writing.
        let mut have = false;
        for (r, region) in regions.iter().enumerate().skip(first) {
            if region.shape != *shape || region.free != free {
                break;
            }
            if self.b.used[r] {
                continue;
            }
            self.region(r, nm);
            let b = &mut *self.b;
            let order = if have {
                b.found.as_slice().cmp(&b.least[least_at..])
            } else {
                Ordering::Less
            };
            if order != Ordering::Greater {
                if order == Ordering::Less {
                    b.least.truncate(least_at);
                    b.least.extend_from_slice(&b.found);
                    b.ties.truncate(ties_at);
                    b.names.truncate(names_at);
                    have = true;
                }
                for f in b.found_names.chunks(stride) {
                    let known = b.ties[ties_at..].iter().any(|&(q, off)| {
                        q as usize == r && b.names[off as usize..off as usize + stride] == *f
                    });
                    if !known {
                        b.ties.push((r as u32, b.names.len() as u32));
                        b.names.extend_from_slice(f);
                    }
                }
            }
            if !region.upper {
                // Regions of one shape without upper-case letters write
                // alike whichever is taken.
                break;
            }
        }
        assert!(have, "a region of this shape");
        let count = self.b.ties.len() - ties_at;
        for i in 0..count {
            if i > 0 {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
            }
            let (r, off) = self.b.ties[ties_at + i];
            let b = &mut *self.b;
            let mark = b.out.len();
            b.out.extend_from_slice(&b.least[least_at..]);
            b.used[r as usize] = true;
            self.solve(done + 1, off as usize);
            self.b.used[r as usize] = false;
            self.b.out.truncate(mark);
        }
        self.b.least.truncate(least_at);
        self.b.ties.truncate(ties_at);
        self.b.names.truncate(names_at);
    }

    /// The least writings of region `r` after naming `nm`: their bytes to
    /// `b.found`, and one frame per distinct naming that writes them to
    /// `b.found_names`.
    fn region(&mut self, r: usize, nm: usize) {
        let regions = self.regions;
        let p = &regions[r];
        let stride = self.stride;
        let b = &mut *self.b;
        b.found.clear();
        b.found_names.clear();
        b.found_any = false;
        b.rout.clear();
        if p.surface != 0 {
            b.rout.push(BOUNDARY_END);
            b.rout.push(p.surface);
        }
        for _ in 0..p.zeros {
            b.rout.push(ZERO);
            b.rout.push(BOUNDARY_END);
        }
        if p.free {
            self.free_region(p, nm);
            return;
        }
        if !p.upper {
            // No upper-case letter: every writing of its shape is the
            // shape itself, its letters ranked after the names so far.
            b.frame.clear();
            b.frame.extend_from_slice(&b.names[nm..nm + stride]);
            let mut next = b.frame[stride - 1];
            let mut top = 0u16;
            for &c in &p.shape {
                match c {
                    S_BOUNDARY => {
                        next = next.saturating_add(top as u8);
                        top = 0;
                        b.found.push(BOUNDARY_END);
                    }
                    S_REGION => b.found.push(REGION_END),
                    c if c > S_SURFACE && c < S_SURFACE + 256 => {
                        b.found.push(BOUNDARY_END);
                        b.found.push((c - S_SURFACE) as u8);
                    }
                    c if (LOW..HIGH).contains(&c) => {
                        let local = c - LOW;
                        top = top.max(local + 1);
                        b.found.push(letter(next.saturating_add(local as u8)));
                    }
                    c => b.found.push(c as u8),
                }
            }
            b.frame[stride - 1] = next;
            b.found_names.extend_from_slice(&b.frame);
            b.found_any = true;
            return;
        }
        let head = b.rout.len();
        for w in &p.writings[..p.writings_len] {
            let b = &mut *self.b;
            b.left.clear();
            b.left.resize(w.order.len(), true);
            b.rout.truncate(head);
            b.bties.clear();
            b.bnames.clear();
            b.bnames.extend_from_slice(&b.names[nm..nm + stride]);
            self.bounds(p, w, 0, 0);
        }
    }

    /// Writes boundary number `done` on of writing `w` of region `p` (those
    /// still `b.left`) after `b.rout` (naming: frame `nf` of `b.bnames`):
    /// the next is one of its run of equal shapes, the one that writes
    /// least. Each least complete writing (with the region's end) is
    /// offered to `b.found`.
    fn bounds(&mut self, p: &Region, w: &Writing, done: usize, nf: usize) {
        let stride = self.stride;
        let b = &mut *self.b;
        if b.found_any && past(&b.rout, &b.found) {
            return;
        }
        if done == w.order.len() {
            b.rout.push(REGION_END);
            offer(
                &mut b.found,
                &mut b.found_names,
                &mut b.found_any,
                &b.rout,
                &b.bnames[nf..nf + stride],
            );
            b.rout.pop();
            return;
        }
        // Boundaries are taken in shape order: the next one is from the
        // run of the first boundary left.
        let first = b.left.iter().position(|&l| l).expect("a boundary left");
        let run = w.run[first];
        let mark = b.rout.len();
        let (ties_at, names_at) = (b.bties.len(), b.bnames.len());
        let mut least_len = 0;
        let mut have = false;
        for (k, &(bi, mut rotations)) in w.order.iter().enumerate().skip(first) {
            if w.run[k] != run {
                break;
            }
            if !b.left[k] {
                continue;
            }
            let bound = p.boundary(bi as usize);
            while rotations != 0 {
                let s = rotations.trailing_zeros() as usize;
                rotations &= rotations - 1;
                b.wbuf.clear();
                b.fresh.clear();
                let next = write_boundary(
                    bound,
                    s,
                    w.mirror,
                    &b.bnames[nf..nf + stride],
                    &mut b.wbuf,
                    &mut b.fresh,
                );
                let order = if have {
                    b.wbuf.as_slice().cmp(&b.rout[mark..mark + least_len])
                } else {
                    Ordering::Less
                };
                match order {
                    Ordering::Greater => continue,
                    Ordering::Equal => {}
                    Ordering::Less => {
                        b.rout.truncate(mark);
                        b.rout.extend_from_slice(&b.wbuf);
                        least_len = b.wbuf.len();
                        b.bties.truncate(ties_at);
                        b.bnames.truncate(names_at);
                        have = true;
                    }
                }
                b.frame.clear();
                b.frame.extend_from_slice(&b.bnames[nf..nf + stride]);
                for &(d, r) in &b.fresh {
                    b.frame[usize::from(d)] = r;
                }
                b.frame[stride - 1] = next;
                let known = b.bties[ties_at..].iter().any(|&(q, off)| {
                    q as usize == k && b.bnames[off as usize..off as usize + stride] == *b.frame
                });
                if !known {
                    b.bties.push((k as u32, b.bnames.len() as u32));
                    b.bnames.extend_from_slice(&b.frame);
                }
            }
        }
        let count = b.bties.len() - ties_at;
        for i in 0..count {
            if i > 0 {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
            }
            let (k, off) = self.b.bties[ties_at + i];
            self.b.left[k as usize] = false;
            self.bounds(p, w, done + 1, off as usize);
            self.b.rout.truncate(mark + least_len);
            self.b.left[k as usize] = true;
        }
        let b = &mut *self.b;
        b.bties.truncate(ties_at);
        b.bnames.truncate(names_at);
        b.rout.truncate(mark);
    }

    /// A free region (two or three lives, one boundary; or a lone `0`,
    /// which `b.rout` holds): `1`s, `2`s, then its upper-case letters by
    /// colour (as its shape has them); within a colour, those named by
    /// rank, then the new ones, in each order (each a naming of the same
    /// bytes). The orders go as an odometer, the last colour's fastest,
    /// each colour's new letters in lexicographic order of permutation.
    fn free_region(&mut self, p: &Region, nm: usize) {
        let stride = self.stride;
        let colours = self.colours;
        let b = &mut *self.b;
        b.fletters.clear();
        for &d in &p.uppers {
            let rank = b.names[nm + usize::from(d)];
            b.fletters.push((colours[usize::from(d)], rank, d));
        }
        b.fletters.sort_unstable();
        // One order: per colour, the named letters, then the new ones
        // (whose run `fgroups` holds, to be permuted).
        b.forder.clear();
        b.fgroups.clear();
        let mut i = 0;
        while i < b.fletters.len() {
            let mut j = i;
            while j < b.fletters.len() && b.fletters[j].0 == b.fletters[i].0 {
                j += 1;
            }
            // Named letters sort before the new ones (rank `UNNAMED`).
            let start = b.forder.len() as u32;
            let mut new_at = start;
            for l in &b.fletters[i..j] {
                if l.1 != UNNAMED {
                    new_at += 1;
                }
                b.forder.push(l.2);
            }
            if b.forder.len() as u32 - new_at >= 2 {
                b.fgroups.push((new_at, b.forder.len() as u32));
            }
            i = j;
        }
        let head = b.rout.len();
        loop {
            b.frame.clear();
            b.frame.extend_from_slice(&b.names[nm..nm + stride]);
            let mut next = b.frame[stride - 1];
            b.rout.truncate(head);
            if p.zeros == 0 {
                b.rout.extend(std::iter::repeat_n(ONE, p.ones));
                b.rout.extend(std::iter::repeat_n(TWO, p.twos));
                for &d in &b.forder {
                    let slot = &mut b.frame[usize::from(d)];
                    if *slot == UNNAMED {
                        *slot = take(&mut next);
                    }
                    b.rout.push(letter(*slot));
                }
                b.rout.push(BOUNDARY_END);
            }
            b.rout.push(REGION_END);
            b.frame[stride - 1] = next;
            offer(
                &mut b.found,
                &mut b.found_names,
                &mut b.found_any,
                &b.rout,
                &b.frame,
            );
            // The next order: the last run that has one left moves on,
            // and the runs after it start again.
            let mut moved = false;
            for &(s, e) in b.fgroups.iter().rev() {
                if next_permutation(&mut b.forder[s as usize..e as usize]) {
                    moved = true;
                    break;
                }
            }
            if !moved {
                break;
            }
        }
    }
}

/// The next order of `v` in lexicographic order, or `false` (and `v`
/// sorted again) after the last.
fn next_permutation(v: &mut [u16]) -> bool {
    let n = v.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && v[i - 1] >= v[i] {
        i -= 1;
    }
    if i == 0 {
        v.reverse();
        return false;
    }
    let mut j = n - 1;
    while v[j] <= v[i - 1] {
        j -= 1;
    }
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// Writes boundary `b` from vertex `s` (mirrored or not) into `out` after
/// the naming `frame`, with its end; the upper-case letters it names anew
/// go to `fresh` with their ranks; returns the next rank. A lower-case
/// letter is this boundary's own: it is named here, at its first side.
fn write_boundary(
    b: &[u16],
    s: usize,
    mirror: bool,
    frame: &[u8],
    out: &mut Vec<u8>,
    fresh: &mut Vec<(u16, u8)>,
) -> u8 {
    let start = out.len();
    let mut next = frame[frame.len() - 1];
    for k in 0..b.len() {
        let v = at(b, s, k, mirror);
        let byte = if v & V_UPPER != 0 {
            let d = v & V_ID;
            match frame[usize::from(d)] {
                UNNAMED => match fresh.iter().find(|&&(t, _)| t == d) {
                    Some(&(_, r)) => letter(r),
                    // An upper-case letter is once in a region: new here.
                    None => {
                        debug_assert!(usize::from(next) < MAX_LETTERS);
                        fresh.push((d, next));
                        next = next.saturating_add(1);
                        letter(next - 1)
                    }
                },
                r => letter(r),
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
