//! The moves of a land and the reductions of their results.
//!
//! Moves are made on a *working form* of a land: each region its number of
//! `0` boundaries and its other boundaries as sequences of tokens, where
//! every spot with one life is a letter with an id of its own (whatever its
//! case: the case follows from where its two sides are, and is worked out
//! again after each move). A move joins two vertex sides of one region:
//!
//! - on one boundary (or a spot to itself): the curve cuts the region in
//!   two; the boundary is split at the two ends, each part closed by the
//!   curve and its new spot, and every other boundary of the region goes to
//!   one side or the other (each way is a child);
//! - on two boundaries: they become one, walked around the first from its
//!   end, along the curve, around the second, and back.
//!
//! A spot joined gains one curve end (two for a loop): a `0` becomes a
//! `1`, or a letter for a loop; a `1` becomes a letter whose two sides are
//! those the curve separates, or dies in a loop; a letter dies. The new
//! spot is a letter on both sides of the curve. Then [`finish`] reduces the
//! result and writes its lands in canonical form (`super::canon`).

use super::canon;
use super::{Land, BOUNDARY_END, LAND_END, LETTERS, ONE, REGION_END, TWO, ZERO};

/// A token of the working form: [`T_ONE`], [`T_TWO`], or a letter id
/// (from 3: a canonical land's letters keep their byte, new spots take
/// ids from [`FRESH`]).
pub(crate) type Tok = u16;
/// A spot with 2 lives.
pub(crate) const T_ONE: Tok = 1;
/// A spot with one life met once, of no identity.
pub(crate) const T_TWO: Tok = 2;
/// The first id of the letters a move creates: past every byte of a land.
const FRESH: Tok = 256;
/// Where the first (second) end of the curve sits until its fate is known.
const MX: Tok = 0xFFF0;
const MY: Tok = 0xFFF1;
/// Past every id a land can hold: the size of the letter census.
pub(crate) const IDS: usize = 512;

/// A region of the working form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct WRegion {
    /// Boundaries that are one spot with no curve (`0`).
    pub zeros: u32,
    /// The other boundaries.
    pub bounds: Vec<Vec<Tok>>,
}

/// The working form of a canonical land, or `None` for bytes that are not
/// a land's (a damaged file): letters keep their byte as id.
pub(crate) fn decode(land: &Land) -> Option<Vec<WRegion>> {
    let mut regions = Vec::new();
    let mut region = WRegion::default();
    let mut bound: Vec<Tok> = Vec::new();
    let mut zero = false;
    let bytes = land.as_bytes();
    let (&last, body) = bytes.split_last()?;
    if last != LAND_END {
        return None;
    }
    for &b in body {
        match b {
            ZERO if bound.is_empty() && !zero => zero = true,
            ONE | TWO | LETTERS..BOUNDARY_END if !zero => bound.push(Tok::from(b)),
            BOUNDARY_END if zero => {
                region.zeros += 1;
                zero = false;
            }
            BOUNDARY_END if !bound.is_empty() => region.bounds.push(std::mem::take(&mut bound)),
            REGION_END if bound.is_empty() && !zero => {
                if region.zeros == 0 && region.bounds.is_empty() {
                    return None;
                }
                regions.push(std::mem::take(&mut region));
            }
            _ => return None,
        }
    }
    if !bound.is_empty() || zero || region != WRegion::default() || regions.is_empty() {
        return None;
    }
    Some(regions)
}

/// What becomes of a joined spot once the move is made.
#[derive(Clone, Copy)]
enum Fate {
    /// It has three curve ends: gone, and (a letter) gone from every other
    /// place it was written too.
    Dies(Tok),
    /// It is now this token (a `1`, or a new letter).
    Becomes(Tok),
}

/// The fate of spot `t` joined once (not a loop): a `0` becomes `1`, a `1`
/// becomes the letter `letter`, anything else dies.
fn joined(t: Tok, letter: Tok) -> Fate {
    match t {
        ZERO_TOK => Fate::Becomes(T_ONE),
        T_ONE => Fate::Becomes(letter),
        _ => Fate::Dies(t),
    }
}

/// Stands for a `0` in [`joined`] (zeros are counted, not written).
const ZERO_TOK: Tok = 0;

/// The children of a land: each move's result, reduced, as its lands in
/// canonical order; distinct results only, sorted.
pub(crate) fn land_children(land: &Land) -> Vec<Vec<Land>> {
    let Some(regions) = decode(land) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in 0..regions.len() {
        region_moves(&regions, r, &mut |regs, fx, fy| {
            out.push(finish(regs, fx, fy))
        });
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Calls `emit` with every move's result in region `r` of `regions`,
/// before reduction: the regions and the fates of the curve's two ends
/// (`MX`, `MY`).
fn region_moves(regions: &[WRegion], r: usize, emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate)) {
    let reg = &regions[r];
    let (x_new, y_new, z) = (FRESH, FRESH + 1, FRESH + 2);
    // The land without region r, to which each result adds its regions.
    let others = || -> Vec<WRegion> {
        let mut v = Vec::with_capacity(regions.len() + 1);
        v.extend(regions[..r].iter().cloned());
        v.extend(regions[r + 1..].iter().cloned());
        v
    };
    let nb = reg.bounds.len();
    // A region cut in two by a curve from side one boundary to itself:
    // the two closed parts, and the other boundaries shared out.
    let split = |seg1: Vec<Tok>,
                 seg2: Vec<Tok>,
                 zeros: u32,
                 skip: Option<usize>,
                 fx: Fate,
                 fy: Fate,
                 emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate)| {
        let rest: Vec<usize> = (0..nb).filter(|&i| Some(i) != skip).collect();
        for k in 0..=zeros {
            for mask in 0u64..(1u64 << rest.len()) {
                let mut a = WRegion {
                    zeros: k,
                    bounds: vec![seg1.clone()],
                };
                let mut b = WRegion {
                    zeros: zeros - k,
                    bounds: vec![seg2.clone()],
                };
                for (bit, &i) in rest.iter().enumerate() {
                    if mask >> bit & 1 == 1 {
                        a.bounds.push(reg.bounds[i].clone());
                    } else {
                        b.bounds.push(reg.bounds[i].clone());
                    }
                }
                let mut v = others();
                v.push(a);
                v.push(b);
                emit(v, fx, fy);
            }
        }
    };
    // Two boundaries made one in the region.
    let merge = |merged: Vec<Tok>,
                 zeros: u32,
                 skip: &[usize],
                 fx: Fate,
                 fy: Fate,
                 emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate)| {
        let mut bounds: Vec<Vec<Tok>> = (0..nb)
            .filter(|i| !skip.contains(i))
            .map(|i| reg.bounds[i].clone())
            .collect();
        bounds.push(merged);
        let mut v = others();
        v.push(WRegion { zeros, bounds });
        emit(v, fx, fy);
    };
    // The boundary `b` walked from just after position i, back to just
    // before it.
    let around = |b: &[Tok], i: usize| -> Vec<Tok> {
        let mut v = Vec::with_capacity(b.len());
        v.extend_from_slice(&b[i + 1..]);
        v.extend_from_slice(&b[..i]);
        v
    };
    let zs = reg.zeros;
    if zs >= 1 {
        // A loop from a 0: it keeps one life, on both sides of the loop.
        split(
            vec![MX, z],
            vec![MX, z],
            zs - 1,
            None,
            Fate::Becomes(x_new),
            Fate::Becomes(x_new),
            emit,
        );
    }
    if zs >= 2 {
        // Two 0s joined: both become 1s on one new boundary.
        merge(
            vec![MX, z, MY, z],
            zs - 2,
            &[],
            Fate::Becomes(T_ONE),
            Fate::Becomes(T_ONE),
            emit,
        );
    }
    for (bi, b) in reg.bounds.iter().enumerate() {
        for (i, &y) in b.iter().enumerate() {
            if zs >= 1 {
                // A 0 joined to a spot of this boundary.
                let mut m = vec![MX, z, MY];
                m.extend(around(b, i));
                m.extend([MY, z]);
                merge(
                    m,
                    zs - 1,
                    &[bi],
                    Fate::Becomes(T_ONE),
                    joined(y, y_new),
                    emit,
                );
            }
            // Joined to a spot of a later boundary: the two become one.
            for (bj, c) in reg.bounds.iter().enumerate().skip(bi + 1) {
                for (j, &w) in c.iter().enumerate() {
                    let mut m = vec![MX];
                    m.extend(around(b, i));
                    m.extend([MX, z, MY]);
                    m.extend(around(c, j));
                    m.extend([MY, z]);
                    merge(m, zs, &[bi, bj], joined(y, x_new), joined(w, y_new), emit);
                }
            }
            // A loop from a 1: it dies; the loop's inside holds the new
            // spot only, its outside the rest of the boundary.
            if y == T_ONE {
                let mut s2 = vec![MX];
                s2.extend(around(b, i));
                s2.extend([MX, z]);
                split(
                    vec![MX, z],
                    s2,
                    zs,
                    Some(bi),
                    Fate::Dies(T_ONE),
                    Fate::Dies(T_ONE),
                    emit,
                );
            }
            // Joined to a later spot of the same boundary: the region is
            // cut along the curve.
            for (j, &w) in b.iter().enumerate().skip(i + 1) {
                if y == w && y >= LETTER {
                    // The two sides of one letter: a spot with one life
                    // cannot be joined to itself.
                    continue;
                }
                let mut s1 = vec![MX];
                s1.extend_from_slice(&b[i + 1..j]);
                s1.extend([MY, z]);
                let mut s2 = vec![MY];
                s2.extend_from_slice(&b[j + 1..]);
                s2.extend_from_slice(&b[..i]);
                s2.extend([MX, z]);
                split(
                    s1,
                    s2,
                    zs,
                    Some(bi),
                    joined(y, x_new),
                    joined(w, y_new),
                    emit,
                );
            }
        }
    }
}

/// The first letter id.
pub(crate) const LETTER: Tok = 3;

/// Where the letters of a land are written: per id, how often and in which
/// regions (the first two). A land has few letters: a slot per id points
/// into a short list, so a census costs a small clear, not a table's.
pub(crate) struct Census {
    slot: [u8; IDS],
    letters: Vec<(u8, u16, u16)>,
}

impl Census {
    pub(crate) fn of(regions: &[WRegion]) -> Census {
        let mut c = Census {
            slot: [0; IDS],
            letters: Vec::new(),
        };
        for (r, reg) in regions.iter().enumerate() {
            for b in &reg.bounds {
                for &t in b {
                    if t >= LETTER {
                        let t = t as usize;
                        if c.slot[t] == 0 {
                            c.letters.push((0, r as u16, r as u16));
                            // Letters are at most a land's lives (< 256).
                            c.slot[t] = c.letters.len().min(255) as u8;
                        }
                        let e = &mut c.letters[usize::from(c.slot[t]) - 1];
                        if e.0 >= 1 {
                            e.2 = r as u16;
                        }
                        e.0 = e.0.saturating_add(1);
                    }
                }
            }
        }
        c
    }

    fn entry(&self, t: Tok) -> (u8, u16, u16) {
        match self.slot.get(t as usize) {
            Some(&s) if s > 0 => self.letters[usize::from(s) - 1],
            _ => (0, 0, 0),
        }
    }

    /// The regions of letter `t` (the first and the second it is in).
    pub(crate) fn regions(&self, t: Tok) -> (usize, usize) {
        let (_, a, b) = self.entry(t);
        (usize::from(a), usize::from(b))
    }

    /// Whether letter `t` is written twice in one region (lower case).
    pub(crate) fn lower(&self, t: Tok) -> bool {
        let (n, a, b) = self.entry(t);
        n == 2 && a == b
    }

    /// Whether letter `t` is written once in each of two regions (upper
    /// case).
    pub(crate) fn upper(&self, t: Tok) -> bool {
        let (n, a, b) = self.entry(t);
        n == 2 && a != b
    }

    /// Twice the lives of region `reg` (a letter written twice in it has
    /// one life in all).
    pub(crate) fn half_lives(&self, reg: &WRegion) -> u32 {
        let mut h = 6 * reg.zeros;
        for b in &reg.bounds {
            for &t in b {
                h += match t {
                    T_ONE => 4,
                    T_TWO => 2,
                    _ if self.lower(t) => 1,
                    _ => 2,
                };
            }
        }
        h
    }
}

/// The result of a move (or of parsing), reduced, as canonical lands: the
/// ends of the curve (`MX`, `MY`) take their fates; every side of a dead
/// spot goes; a letter written twice in a row is written once (its two
/// sides touch: only dead spots lie between); empty boundaries go; a region
/// with fewer than two lives goes (a letter with its other side there is
/// then written once: a `2`); a region with two or three lives is written
/// as one boundary, its lower-case letters as `2`s; and the regions are
/// split into lands, linked by the letters they share.
fn finish(mut regions: Vec<WRegion>, fx: Fate, fy: Fate) -> Vec<Land> {
    let mut dead: [Tok; 2] = [0; 2];
    let mut to = |f: Fate, slot: usize| match f {
        Fate::Dies(t) => {
            if t >= LETTER {
                dead[slot] = t;
            }
            None
        }
        Fate::Becomes(t) => Some(t),
    };
    let (tx, ty) = (to(fx, 0), to(fy, 1));
    for reg in &mut regions {
        for b in &mut reg.bounds {
            b.retain_mut(|t| {
                if *t == MX {
                    return tx.map(|n| *t = n).is_some();
                }
                if *t == MY {
                    return ty.map(|n| *t = n).is_some();
                }
                !dead.contains(t) || *t < LETTER
            });
        }
    }
    reduce(regions)
}

/// [`finish`] of a land read from text: the same reductions.
pub(crate) fn reduce(mut regions: Vec<WRegion>) -> Vec<Land> {
    for reg in &mut regions {
        for b in &mut reg.bounds {
            squeeze(b);
        }
        reg.bounds.retain(|b| !b.is_empty());
    }
    let census = Census::of(&regions);
    regions.retain(|reg| census.half_lives(reg) >= 4);
    let census = Census::of(&regions);
    for reg in &mut regions {
        if census.half_lives(reg) <= 6 {
            free(reg, &census);
        }
    }
    lands(regions, &census)
}

/// A boundary with each letter written twice in a row written once
/// (cyclically: the last and first are in a row too).
fn squeeze(b: &mut Vec<Tok>) {
    let mut i = 0;
    while b.len() >= 2 && i < b.len() {
        let j = (i + 1) % b.len();
        if b[i] >= LETTER && b[i] == b[j] {
            b.remove(j);
            // The letter's other side may now touch a token before it.
            i = i.saturating_sub(1);
        } else {
            i += 1;
        }
    }
}

/// A region with two or three lives as one boundary: its shape cannot
/// matter, as any move in it leaves at most two lives, which one move
/// uses. Its `1`s, then its spots met once or twice here as `2`s, then
/// the letters it shares with another region.
fn free(reg: &mut WRegion, census: &Census) {
    if reg.zeros > 0 {
        // A lone 0 (three lives) is one boundary already.
        return;
    }
    let mut ones = 0;
    let mut twos = 0;
    let mut shared = Vec::new();
    for b in &reg.bounds {
        for &t in b {
            match t {
                T_ONE => ones += 1,
                T_TWO => twos += 2,
                _ if census.upper(t) => shared.push(t),
                // Written twice here: one `2`; written once: one `2`.
                _ if census.lower(t) => twos += 1,
                _ => twos += 2,
            }
        }
    }
    let mut b = vec![T_ONE; ones];
    b.extend(std::iter::repeat_n(T_TWO, twos / 2));
    b.extend(shared);
    reg.bounds = vec![b];
}

/// The regions split into lands (linked by upper-case letters), each in
/// canonical form, sorted.
fn lands(regions: Vec<WRegion>, census: &Census) -> Vec<Land> {
    let n = regions.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for reg in &regions {
        for b in &reg.bounds {
            for &t in b {
                if census.upper(t) {
                    let (x, y) = census.regions(t);
                    let (a, c) = (root(&mut parent, x), root(&mut parent, y));
                    parent[a] = c;
                }
            }
        }
    }
    let mut groups: Vec<Vec<WRegion>> = Vec::new();
    let mut group_of = vec![usize::MAX; n];
    for (i, reg) in regions.into_iter().enumerate() {
        let r = root(&mut parent, i);
        if group_of[r] == usize::MAX {
            group_of[r] = groups.len();
            groups.push(Vec::new());
        }
        groups[group_of[r]].push(reg);
    }
    let mut out: Vec<Land> = groups
        .into_iter()
        .map(|g| canon::canonical(&g, census))
        .collect();
    out.sort_unstable();
    out
}

/// The canonical lands of a working form (a land decoded, or read from
/// text): reduced, split and written canonically.
pub(crate) fn canonical_lands(regions: Option<Vec<WRegion>>) -> Result<Vec<Land>, ()> {
    regions.map(reduce).ok_or(())
}
