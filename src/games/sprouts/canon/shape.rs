//! Step 1 of the canonical form: each region's shape and writings, and
//! the colour refinement of the upper-case letters.

use super::{at, HIGH, LOW, S_BOUNDARY, S_REGION, S_SURFACE, V_ID, V_LOWER, V_ONE, V_TWO, V_UPPER};
use crate::games::sprouts::working::{Census, Tok, WRegion, T_ONE, T_TWO};
use crate::games::sprouts::{ONE, TWO, ZERO};
use std::cmp::Ordering;

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
pub(super) struct Writing {
    pub(super) mirror: bool,
    /// (boundary number, rotations) in shape order.
    pub(super) order: Vec<(u16, u64)>,
    pub(super) run: Vec<u16>,
}

/// A region's vertices and shape. Kept in the scratch and filled again
/// for each land ([`Region::fill`]), so that its vectors are reused.
#[derive(Default)]
pub(super) struct Region {
    pub(super) zeros: u32,
    /// Its surface's code (0 the plane).
    pub(super) surface: u8,
    pub(super) free: bool,
    /// Its vertices, boundary after boundary, and where each boundary lies.
    pub(super) verts: Vec<u16>,
    pub(super) bounds: Vec<(u32, u32)>,
    pub(super) shape: Vec<u16>,
    /// Whether it has upper-case letters (else its bytes are its shape
    /// with its letters ranked after the names so far).
    pub(super) upper: bool,
    /// The writings that give its shape (not for free regions): the first
    /// `writings_len` (one per orientation at most).
    pub(super) writings: [Writing; 2],
    pub(super) writings_len: usize,
    /// A free region's `1`s, `2`s and upper-case letters (dense numbers).
    pub(super) ones: usize,
    pub(super) twos: usize,
    pub(super) uppers: Vec<u16>,
}

impl Region {
    /// The region `reg` of a land whose upper-case letters are `ids`
    /// (sorted: a letter's dense number is its place there).
    pub(super) fn fill(&mut self, reg: &WRegion, census: &Census, ids: &[Tok]) {
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
                    _ if census.upper(t) || ids.binary_search(&t).is_ok() => {
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

    pub(super) fn boundary(&self, i: usize) -> &[u16] {
        let (s, n) = self.bounds[i];
        &self.verts[s as usize..(s + n) as usize]
    }

    /// The shape (and writings) under `colours`.
    pub(super) fn shape(&mut self, colours: &[u16], scratch: &mut ShapeBufs) {
        let mut shape = std::mem::take(&mut self.shape);
        shape.clear();
        if self.surface != 0 {
            shape.push(S_SURFACE + u16::from(self.surface));
        }
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
pub(super) struct ShapeBufs {
    flat: Vec<u16>,
    buf: Vec<u16>,
    cand: Vec<u16>,
    parts: Vec<(u32, u32, u16, u64)>,
}

/// Buffers reused by the colour refinement.
#[derive(Default)]
pub(super) struct RefineBufs {
    /// The two regions of each upper-case letter, by dense number.
    letters: Vec<(u32, u32)>,
    /// Regions by shape, and each region's rank among the shapes.
    order: Vec<u32>,
    rank: Vec<u16>,
    keys: Vec<(u16, u16, u16)>,
    distinct: Vec<(u16, u16, u16)>,
}

/// Colour refinement: a letter's colour from the shapes of the regions it
/// joins, until the number of colours stops growing; leaves each region's
/// shape under the final colours.
pub(super) fn refine(
    prepared: &mut [Region],
    colours: &mut [u16],
    sb: &mut ShapeBufs,
    rb: &mut RefineBufs,
) {
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
