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
//! Step 1 is `shape.rs`, step 2 `ties.rs`; this file holds the codes both
//! read and the entry point, [`canonical`].
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

mod shape;
mod ties;

use self::shape::{refine, RefineBufs, Region, ShapeBufs};
use self::ties::{Bufs, Canon};
use super::working::{Census, Tok, WRegion, T_ONE, T_TWO};
use super::{Land, LAND_END};
use std::cell::RefCell;

/// Tie branches a canonical form may try beyond the first.
const BRANCHES: u32 = 256;

/// Vertex codes: `1`, `2`, a lower-case letter's id, and an upper-case
/// letter's dense number in its land (see [`canonical`]).
pub(super) const V_ONE: u16 = T_ONE;
pub(super) const V_TWO: u16 = T_TWO;
pub(super) const V_LOWER: u16 = 1 << 13;
pub(super) const V_UPPER: u16 = 1 << 14;
pub(super) const V_ID: u16 = V_LOWER - 1;

/// Shape codes: `0`, `1`, `2` as their bytes; a lower-case letter of local
/// rank r is `LOW + r`; an upper-case letter of colour c is `HIGH + c`
/// (after every lower-case one); then the ends.
pub(super) const LOW: u16 = 3;
pub(super) const HIGH: u16 = 1 << 12;
pub(super) const S_BOUNDARY: u16 = u16::MAX - 1;
/// A region's surface code `c` (not the plane's) is `S_SURFACE + c`, first
/// in its shape: regions on different surfaces never have one shape.
pub(super) const S_SURFACE: u16 = 0xFD00;
pub(super) const S_REGION: u16 = u16::MAX;

/// The vertex `k` places after `s` of a boundary of `n` vertices, read
/// forwards or mirrored.
#[inline]
pub(super) fn at(b: &[u16], s: usize, k: usize, mirror: bool) -> u16 {
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
        // On a surface a spot may be twice in one region but on two of
        // its boundaries: named across boundaries, it is named as the
        // upper-case letters are.
        // (Even in a region with no handle left: a torus cut through its
        // handle leaves an annulus. Never on the plane.)
        for (i, b) in reg.bounds.iter().enumerate() {
            ids.extend(b.iter().copied().filter(|&t| {
                census.lower(t) && reg.bounds[i + 1..].iter().any(|c| c.contains(&t))
            }));
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
        p.surface = reg.surface;
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
    Land::of(&best)
}
