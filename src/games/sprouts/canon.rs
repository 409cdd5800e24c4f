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
//! every land a search meets (it was most of a search's time, and half of
//! that in the allocator), so vertices are `u16` codes in flat arrays,
//! upper-case letters are numbered densely per land (a naming is a short
//! byte array, a colour a slot), rotations that tie are bit masks, and no
//! step allocates: the tie search keeps its writings, namings and ties on
//! stacks it truncates as it backtracks, and every buffer (the regions'
//! too) lives in a per-thread scratch reused from one land to the next.

use super::working::{Census, Tok, WRegion, T_ONE, T_TWO};
use super::{Land, BOUNDARY_END, LAND_END, LETTERS, MAX_LETTERS, ONE, REGION_END, TWO, ZERO};
use std::cell::RefCell;
use std::cmp::Ordering;

/// Tie branches a canonical form may try beyond the first.
const BRANCHES: u32 = 256;

/// Vertex codes: `1`, `2`, a lower-case letter's id, and an upper-case
/// letter's dense number in its land (see [`canonical`]).
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

/// A naming (the upper-case letters named so far and the next rank) is a
/// *frame* of bytes: the rank of each upper-case letter of the land by its
/// dense number ([`UNNAMED`] if none yet), then the next rank. Letters of
/// both cases share the ranks, in order of appearance; two namings are
/// equal exactly when their frames are.
const UNNAMED: u8 = u8::MAX;

/// The vertex `k` places after `s` of a boundary of `n` vertices, read
/// forwards or mirrored.
#[inline]
fn at(b: &[u16], s: usize, k: usize, mirror: bool) -> u16 {
    let n = b.len();
    debug_assert!(s < n && k < n);
    let i = if mirror {
        if k <= s {
            s - k
        } else {
            s + n - k
        }
    } else if s + k < n {
        s + k
    } else {
        s + k - n
    };
    b[i]
}

/// Writes boundary `b` read from `s` (mirrored or not) as shape codes,
/// and how they compare with `least` (the same boundary's least writing
/// so far, if any): as soon as they are past it, the writing stops there.
fn shape_at(
    b: &[u16],
    s: usize,
    mirror: bool,
    colours: &[u16],
    out: &mut Vec<u16>,
    least: Option<&[u16]>,
) -> Ordering {
    let start = out.len();
    let mut next_lower = 0u16;
    // Every writing of a boundary has its length: codes compare one by one.
    let mut order = Ordering::Equal;
    for k in 0..b.len() {
        let v = at(b, s, k, mirror);
        let code = if v & V_UPPER != 0 {
            HIGH + colours[usize::from(v & V_ID)]
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
        if let (Ordering::Equal, Some(l)) = (order, least) {
            order = code.cmp(&l[k]);
            if order == Ordering::Greater {
                return order;
            }
        }
    }
    out.push(S_BOUNDARY);
    order
}

/// A boundary's least shape (appended to `out`) and the rotations that
/// give it (bit s: from vertex s; boundaries longer than 64 keep the
/// first 64 starting points, each still a correct writing).
fn boundary_shape(
    b: &[u16],
    mirror: bool,
    colours: &[u16],
    out: &mut Vec<u16>,
    buf: &mut Vec<u16>,
) -> u64 {
    let start = out.len();
    let mut mask = 0u64;
    for s in 0..b.len().min(64) {
        buf.clear();
        let order = if s == 0 {
            shape_at(b, s, mirror, colours, buf, None);
            Ordering::Less
        } else {
            shape_at(b, s, mirror, colours, buf, Some(&out[start..]))
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
#[derive(Default)]
struct Writing {
    mirror: bool,
    /// (boundary number, rotations) in shape order.
    order: Vec<(u16, u64)>,
    run: Vec<u16>,
}

/// A region's vertices and shape. Kept in the scratch and filled again
/// for each land ([`Region::fill`]), so that its vectors are reused.
#[derive(Default)]
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
    /// The writings that give its shape (not for free regions): the first
    /// `writings_len` (one per orientation at most).
    writings: [Writing; 2],
    writings_len: usize,
    /// A free region's `1`s, `2`s and upper-case letters (dense numbers).
    ones: usize,
    twos: usize,
    uppers: Vec<u16>,
}

impl Region {
    /// The region `reg` of a land whose upper-case letters are `ids`
    /// (sorted: a letter's dense number is its place there).
    fn fill(&mut self, reg: &WRegion, census: &Census, ids: &[Tok]) {
        self.verts.clear();
        self.bounds.clear();
        self.uppers.clear();
        self.shape.clear();
        self.writings_len = 0;
        let mut upper = false;
        for b in &reg.bounds {
            self.bounds.push((self.verts.len() as u32, b.len() as u32));
            for &t in b {
                self.verts.push(match t {
                    T_ONE => V_ONE,
                    T_TWO => V_TWO,
                    _ if census.upper(t) => {
                        upper = true;
                        let d = ids.binary_search(&t).expect("an upper-case letter");
                        V_UPPER | d as u16
                    }
                    _ if census.lower(t) => V_LOWER | t,
                    _ => V_TWO,
                });
            }
        }
        self.zeros = reg.zeros;
        self.free = census.half_lives(reg) <= 6;
        self.upper = upper;
        self.ones = 0;
        self.twos = 0;
        if self.free {
            let (mut ones, mut twos) = (0, 0);
            for &v in &self.verts {
                if v & V_UPPER != 0 {
                    self.uppers.push(v & V_ID);
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
            self.ones = ones / 2;
            self.twos = twos / 2;
        }
    }

    fn boundary(&self, i: usize) -> &[u16] {
        let (s, n) = self.bounds[i];
        &self.verts[s as usize..(s + n) as usize]
    }

    /// The shape (and writings) under `colours`.
    fn shape(&mut self, colours: &[u16], scratch: &mut ShapeBufs) {
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
                shape.extend(self.uppers.iter().map(|&d| HIGH + colours[usize::from(d)]));
                shape[at..].sort_unstable();
                shape.push(S_BOUNDARY);
            }
            shape.push(S_REGION);
            self.shape = shape;
            return;
        }
        let head = shape.len();
        self.writings_len = 0;
        let nb = self.bounds.len();
        // A region of one boundary of at most two vertices reads the same
        // mirrored (up to rotation).
        let mirrors: &[bool] = if nb <= 1 && self.verts.len() <= 2 {
            &[false]
        } else {
            &[false, true]
        };
        let mut best_len = 0;
        let ShapeBufs {
            flat,
            buf,
            cand,
            parts,
        } = scratch;
        for &mirror in mirrors {
            // Each boundary's least shape, in one flat buffer.
            flat.clear();
            parts.clear();
            for i in 0..nb {
                let at = flat.len();
                let mask = boundary_shape(self.boundary(i), mirror, colours, flat, buf);
                parts.push((at as u32, (flat.len() - at) as u32, i as u16, mask));
            }
            let slice = |p: &(u32, u32, u16, u64)| &flat[p.0 as usize..(p.0 + p.1) as usize];
            parts.sort_by(|a, b| slice(a).cmp(slice(b)));
            cand.clear();
            for p in parts.iter() {
                cand.extend_from_slice(slice(p));
            }
            cand.push(S_REGION);
            let order = if self.writings_len == 0 {
                Ordering::Less
            } else {
                cand.as_slice().cmp(&shape[head..head + best_len])
            };
            if order == Ordering::Greater {
                continue;
            }
            // The writing goes in the first free slot, then to the front
            // if it is the least so far.
            let slot = self.writings_len;
            let w = &mut self.writings[slot];
            w.mirror = mirror;
            w.order.clear();
            w.order.extend(parts.iter().map(|p| (p.2, p.3)));
            w.run.clear();
            for i in 0..nb {
                let r = if i > 0 && slice(&parts[i]) == slice(&parts[i - 1]) {
                    w.run[i - 1]
                } else {
                    i as u16
                };
                w.run.push(r);
            }
            if order == Ordering::Equal {
                self.writings_len += 1;
            } else {
                shape.truncate(head);
                shape.extend_from_slice(cand);
                best_len = cand.len();
                self.writings.swap(0, slot);
                self.writings_len = 1;
            }
        }
        self.shape = shape;
    }
}

/// Buffers reused by the shapes.
#[derive(Default)]
struct ShapeBufs {
    flat: Vec<u16>,
    buf: Vec<u16>,
    cand: Vec<u16>,
    parts: Vec<(u32, u32, u16, u64)>,
}

/// Buffers reused by the colour refinement.
#[derive(Default)]
struct RefineBufs {
    /// The two regions of each upper-case letter, by dense number.
    letters: Vec<(u32, u32)>,
    /// Regions by shape, and each region's rank among the shapes.
    order: Vec<u32>,
    rank: Vec<u16>,
    keys: Vec<(u16, u16, u16)>,
    distinct: Vec<(u16, u16, u16)>,
}

/// Everything a canonical form works in, kept from one land to the next.
#[derive(Default)]
struct Scratch {
    prepared: Vec<Region>,
    colours: Vec<u16>,
    ids: Vec<Tok>,
    shape: ShapeBufs,
    refine: RefineBufs,
    canon: Bufs,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The byte of the letter of rank `r`.
fn letter(r: u8) -> u8 {
    LETTERS + r.min(MAX_LETTERS as u8 - 1)
}

/// The canonical form of the land made of `regions` (reduced: every region
/// alive, free regions written as one boundary); `census` tells each
/// letter's case.
pub(crate) fn canonical(regions: &[WRegion], census: &Census) -> Land {
    SCRATCH.with(|s| canonical_in(regions, census, &mut s.borrow_mut()))
}

fn canonical_in(regions: &[WRegion], census: &Census, s: &mut Scratch) -> Land {
    let Scratch {
        prepared,
        colours,
        ids,
        shape,
        refine: rb,
        canon,
    } = s;
    // The upper-case letters, numbered densely in the order of their ids
    // (so that every order taken from the ids is the same).
    ids.clear();
    for reg in regions {
        for b in &reg.bounds {
            ids.extend(b.iter().copied().filter(|&t| census.upper(t)));
        }
    }
    ids.sort_unstable();
    ids.dedup();
    let n = regions.len();
    while prepared.len() < n {
        prepared.push(Region::default());
    }
    let prepared = &mut prepared[..n];
    for (p, reg) in prepared.iter_mut().zip(regions) {
        p.fill(reg, census, ids);
    }
    colours.clear();
    colours.resize(ids.len(), 0);
    if n > 1 {
        refine(prepared, colours, shape, rb);
    } else {
        // One region (so no upper-case letter): no colours to refine.
        prepared[0].shape(colours, shape);
    }
    // Free regions last: by then most of their letters are named, so the
    // orders of their new letters (each a tie to try) are few.
    prepared.sort_by(|a, b| (a.free, &a.shape).cmp(&(b.free, &b.shape)));
    let stride = ids.len() + 1;
    canon.reset(n, stride);
    let mut c = Canon {
        regions: prepared,
        colours,
        stride,
        budget: BRANCHES,
        b: canon,
    };
    c.solve(0, 0);
    let mut best = Vec::with_capacity(c.b.best.len() + 1);
    best.extend_from_slice(&c.b.best);
    best.push(LAND_END);
    Land(best.into())
}

/// Colour refinement: a letter's colour from the shapes of the regions it
/// joins, until the number of colours stops growing; leaves each region's
/// shape under the final colours.
fn refine(prepared: &mut [Region], colours: &mut [u16], sb: &mut ShapeBufs, rb: &mut RefineBufs) {
    // An upper-case letter is written once in each of two regions.
    rb.letters.clear();
    rb.letters.resize(colours.len(), (u32::MAX, u32::MAX));
    for (r, p) in prepared.iter().enumerate() {
        for &v in &p.verts {
            if v & V_UPPER != 0 {
                let e = &mut rb.letters[usize::from(v & V_ID)];
                if e.0 == u32::MAX {
                    *e = (r as u32, r as u32);
                } else {
                    e.1 = r as u32;
                }
            }
        }
    }
    let mut count = 1;
    let mut first = true;
    loop {
        for p in prepared.iter_mut() {
            // A region with no upper-case letter has no colour in its shape.
            if first || p.upper {
                p.shape(colours, sb);
            }
        }
        first = false;
        if rb.letters.is_empty() {
            return;
        }
        // Each region's rank among the distinct shapes.
        rb.order.clear();
        rb.order.extend(0..prepared.len() as u32);
        rb.order
            .sort_unstable_by(|&a, &b| prepared[a as usize].shape.cmp(&prepared[b as usize].shape));
        rb.rank.clear();
        rb.rank.resize(prepared.len(), 0);
        let mut k = 0u16;
        for i in 0..rb.order.len() {
            let r = rb.order[i] as usize;
            if i > 0 && prepared[r].shape != prepared[rb.order[i - 1] as usize].shape {
                k += 1;
            }
            rb.rank[r] = k;
        }
        rb.keys.clear();
        for (d, &(a, b)) in rb.letters.iter().enumerate() {
            let (x, y) = (rb.rank[a as usize], rb.rank[b as usize]);
            rb.keys.push((colours[d], x.min(y), x.max(y)));
        }
        rb.distinct.clear();
        rb.distinct.extend_from_slice(&rb.keys);
        rb.distinct.sort_unstable();
        rb.distinct.dedup();
        if rb.distinct.len() <= count {
            return;
        }
        count = rb.distinct.len();
        for (d, k) in rb.keys.iter().enumerate() {
            colours[d] = rb.distinct.binary_search(k).expect("a key") as u16;
        }
    }
}

/// Whether `out` is already past `best` where both are written.
fn past(out: &[u8], best: &[u8]) -> bool {
    let n = out.len().min(best.len());
    out[..n] > best[..n]
}

/// The tie search's stacks and buffers. Frames are namings (see
/// [`UNNAMED`]), each `stride` bytes.
#[derive(Default)]
struct Bufs {
    /// The least complete writing so far.
    best: Vec<u8>,
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
    fn reset(&mut self, n: usize, stride: usize) {
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

struct Canon<'a> {
    regions: &'a [Region],
    colours: &'a [u16],
    stride: usize,
    budget: u32,
    b: &'a mut Bufs,
}

impl Canon<'_> {
    /// Completes the writing `b.out` (naming: frame `nm` of `b.names`) from
    /// region number `done` on, keeping the least result. The next region
    /// is one of the unused regions of the least shape left.
    fn solve(&mut self, done: usize, nm: usize) {
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
