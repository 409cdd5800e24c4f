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
use super::working::{surface, Census, Tok, WRegion, IDS, LETTER, T_ONE, T_TWO};
use super::{Land, BOUNDARY_END, LAND_END, LETTERS, ONE, REGION_END, TWO, ZERO};

/// The first id of the letters a move creates: past every byte of a land.
const FRESH: Tok = 256;
/// Where the first (second) end of the curve sits until its fate is known.
const MX: Tok = 0xFFF0;
const MY: Tok = 0xFFF1;

/// The working form of a canonical land, or `None` for bytes that are not
/// a land's (a damaged file): letters keep their byte as id.
pub(crate) fn decode(land: &Land) -> Option<Vec<WRegion>> {
    let mut regions = Vec::new();
    let mut region = WRegion::default();
    let mut bound: Vec<Tok> = Vec::new();
    let mut zero = false;
    // A region on a surface starts with `BOUNDARY_END` and the surface's
    // code (an empty boundary cannot be otherwise).
    let mut code_next = false;
    let bytes = land.as_bytes();
    let (&last, body) = bytes.split_last()?;
    if last != LAND_END {
        return None;
    }
    for &b in body {
        if code_next {
            if b == 0 || !surface::valid(b) {
                return None;
            }
            region.surface = b;
            code_next = false;
            continue;
        }
        match b {
            BOUNDARY_END if !zero && bound.is_empty() && region == WRegion::default() => {
                code_next = true;
            }
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
    if !bound.is_empty() || zero || code_next || region != WRegion::default() || regions.is_empty()
    {
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

/// Move results made between two questions to the caller of
/// [`land_children_until`] whether to go on: a result (a region shared out,
/// reduced and written canonically) costs microseconds, so a stop request
/// or a deadline is heard within a millisecond or so.
pub(crate) const POLL_EVERY: u64 = 256;

/// The children of a land: each move's result, reduced, as its lands in
/// canonical order; distinct results only, sorted.
pub(crate) fn land_children(land: &Land) -> Vec<Vec<Land>> {
    land_children_until(land, &mut |_, _| false).unwrap_or_default()
}

/// [`land_children`], asking `stop` every [`POLL_EVERY`] move results
/// (with the results made so far and about the bytes they hold) whether
/// to give up: `None` if it said so.
pub(crate) fn land_children_until(
    land: &Land,
    stop: &mut dyn FnMut(u64, u64) -> bool,
) -> Option<Vec<Vec<Land>>> {
    land_children_shared(land, Share::Grouped, stop)
}

/// How a move that cuts a region in two shares out the region's other
/// boundaries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Share {
    /// By how many of each group of interchangeable boundaries go to
    /// each side (see [`shape_groups`]): polynomial in the boundaries of
    /// one shape.
    Grouped,
    /// Every boundary to either side, every way (2^n for n boundaries):
    /// the reference the tests compare [`Share::Grouped`] with.
    #[cfg(test)]
    Each,
}

/// [`land_children_until`] with the boundaries shared as `share` says.
pub(crate) fn land_children_shared(
    land: &Land,
    share: Share,
    stop: &mut dyn FnMut(u64, u64) -> bool,
) -> Option<Vec<Vec<Land>>> {
    let Some(regions) = decode(land) else {
        return Some(Vec::new());
    };
    let census = Census::of(&regions);
    let mut out = Vec::new();
    let (mut made, mut bytes) = (0u64, 0u64);
    for r in 0..regions.len() {
        let groups = match share {
            Share::Grouped => shape_groups(&regions[r], &census),
            #[cfg(test)]
            Share::Each => (0..regions[r].bounds.len() as u32).collect(),
        };
        let done = region_moves(&regions, r, &groups, &mut |regs, fx, fy| {
            let lands = finish(regs, fx, fy);
            bytes += 48
                + lands
                    .iter()
                    .map(|l| 40 + l.as_bytes().len() as u64)
                    .sum::<u64>();
            out.push(lands);
            made += 1;
            !(made % POLL_EVERY == 0 && stop(made, bytes))
        });
        if !done {
            return None;
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// A label per boundary of `reg`, equal for boundaries that are the same
/// up to rotation and the naming of their own letters (those written twice
/// in that boundary and nowhere else: lower case): sharing out one or the
/// other of two such boundaries gives the same position, so only how many
/// of each label go to each side matters. Every other token is kept as it
/// is, so a boundary with an upper-case letter (whose other side is in
/// another region) is alone with its label.
fn shape_groups(reg: &WRegion, census: &Census) -> Vec<u32> {
    if reg.bounds.len() <= 1 {
        return vec![0; reg.bounds.len()];
    }
    let mut name = vec![0 as Tok; IDS];
    let keys: Vec<Vec<Tok>> = reg
        .bounds
        .iter()
        .map(|b| shape_key(b, census, &mut name))
        .collect();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let mut labels = vec![0u32; keys.len()];
    let mut label = 0;
    for (n, &i) in order.iter().enumerate() {
        if n > 0 && keys[i] != keys[order[n - 1]] {
            label += 1;
        }
        labels[i] = label;
    }
    labels
}

/// The least of boundary `b`'s rotations with its own letters renamed by
/// first appearance (ids past any other token's), other tokens as they
/// are: equal for boundaries that differ only in where they start and in
/// the names of their own letters. `name` is scratch, all 0 (and left so).
fn shape_key(b: &[Tok], census: &Census, name: &mut [Tok]) -> Vec<Tok> {
    const OWN: Tok = 0x8000;
    let own: Vec<bool> = b
        .iter()
        .map(|&t| t >= LETTER && census.lower(t) && b.iter().filter(|&&x| x == t).count() == 2)
        .collect();
    let mut best: Option<Vec<Tok>> = None;
    let mut key = Vec::with_capacity(b.len());
    for start in 0..b.len() {
        key.clear();
        let mut next = OWN;
        for i in (start..b.len()).chain(0..start) {
            let t = b[i];
            if own[i] {
                let n = &mut name[usize::from(t).min(IDS - 1)];
                if *n == 0 {
                    *n = next;
                    next += 1;
                }
                key.push(*n);
            } else {
                key.push(t);
            }
        }
        for (i, &t) in b.iter().enumerate() {
            if own[i] {
                name[usize::from(t).min(IDS - 1)] = 0;
            }
        }
        if best.as_ref().is_none_or(|k| key < *k) {
            best = Some(key.clone());
        }
    }
    best.unwrap_or_default()
}

/// Calls `emit` with every move's result in region `r` of `regions`,
/// before reduction: the regions and the fates of the curve's two ends
/// (`MX`, `MY`). The region's boundaries of one label in `groups` are
/// interchangeable (see [`shape_groups`]). `emit` returns whether to go
/// on; `false` if it said to stop.
fn region_moves(
    regions: &[WRegion],
    r: usize,
    groups: &[u32],
    emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate) -> bool,
) -> bool {
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
    // The region's surface, and how a curve may use it.
    let splits = surface::splits(reg.surface);
    // A non-orientable region's boundaries have no direction of their
    // own: any may be walked either way. Where a part left is orientable,
    // every way of turning its boundaries (but the one the curve made) is
    // a different child.
    let twisted = !surface::orientable(reg.surface);
    let handle_surfaces = surface::through_handle(reg.surface);
    let cap_surfaces = surface::through_cap(reg.surface);
    // A region cut in two by a curve from side one boundary to itself:
    // the two closed parts, and the other boundaries shared out, by how
    // many of each group go to the first part (boundaries of one group
    // are interchangeable), the 0s by how many.
    let split = |seg1: Vec<Tok>,
                 seg2: Vec<Tok>,
                 zeros: u32,
                 skip: Option<usize>,
                 fx: Fate,
                 fy: Fate,
                 emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate) -> bool|
     -> bool {
        // The other boundaries by group.
        let mut members: Vec<(u32, Vec<usize>)> = Vec::new();
        for i in (0..nb).filter(|&i| Some(i) != skip) {
            match members.iter_mut().find(|(g, _)| *g == groups[i]) {
                Some((_, m)) => m.push(i),
                None => members.push((groups[i], vec![i])),
            }
        }
        // How many of each group go to the first part: an odometer.
        let mut count = vec![0usize; members.len()];
        loop {
            for k in 0..=zeros {
                for &(sa, sb) in &splits {
                    let mut a = WRegion {
                        zeros: k,
                        bounds: vec![seg1.clone()],
                        surface: sa,
                    };
                    let mut b = WRegion {
                        zeros: zeros - k,
                        bounds: vec![seg2.clone()],
                        surface: sb,
                    };
                    for ((_, m), &c) in members.iter().zip(&count) {
                        a.bounds
                            .extend(m[..c].iter().map(|&i| reg.bounds[i].clone()));
                        b.bounds
                            .extend(m[c..].iter().map(|&i| reg.bounds[i].clone()));
                    }
                    for a in orientations(a, 1, twisted) {
                        for b in orientations(b.clone(), 1, twisted) {
                            let mut v = others();
                            v.push(a.clone());
                            v.push(b);
                            if !emit(v, fx, fy) {
                                return false;
                            }
                        }
                    }
                }
            }
            let mut g = 0;
            while g < members.len() && count[g] == members[g].1.len() {
                count[g] = 0;
                g += 1;
            }
            if g == members.len() {
                return true;
            }
            count[g] += 1;
        }
    };
    // Two boundaries made one in the region.
    let merge = |merged: Vec<Tok>,
                 zeros: u32,
                 skip: &[usize],
                 fx: Fate,
                 fy: Fate,
                 emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate) -> bool|
     -> bool {
        let mut bounds: Vec<Vec<Tok>> = (0..nb)
            .filter(|i| !skip.contains(i))
            .map(|i| reg.bounds[i].clone())
            .collect();
        bounds.push(merged);
        let mut v = others();
        v.push(WRegion {
            zeros,
            bounds,
            surface: reg.surface,
        });
        emit(v, fx, fy)
    };
    // A curve from one boundary to itself that does not cut the region:
    // through a handle, both parts stay in the region (`seg1`, `seg2`),
    // which keeps two less of its Euler genus. When a non-orientable
    // region leaves an orientable one, the curve went through a tube
    // glued with a twist: the second part is walked the other way.
    let handle = |seg1: Vec<Tok>,
                  seg2: Vec<Tok>,
                  zeros: u32,
                  skip: Option<usize>,
                  fx: Fate,
                  fy: Fate,
                  emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate) -> bool|
     -> bool {
        for &s in &handle_surfaces {
            let flip = twisted && surface::orientable(s);
            let mut second = seg2.clone();
            if flip {
                second.reverse();
            }
            let mut bounds = vec![seg1.clone(), second];
            bounds.extend(
                (0..nb)
                    .filter(|&i| Some(i) != skip)
                    .map(|i| reg.bounds[i].clone()),
            );
            let w = WRegion {
                zeros,
                bounds,
                surface: s,
            };
            for w in orientations(w, 2, twisted) {
                let mut v = others();
                v.push(w);
                if !emit(v, fx, fy) {
                    return false;
                }
            }
        }
        true
    };
    // A curve from one boundary to itself through a cross-cap: one
    // boundary `seg` (one part, the curve, the other part walked back,
    // the curve again), one less cross-cap.
    let cap = |seg: Vec<Tok>,
               zeros: u32,
               skip: Option<usize>,
               fx: Fate,
               fy: Fate,
               emit: &mut dyn FnMut(Vec<WRegion>, Fate, Fate) -> bool|
     -> bool {
        for &s in &cap_surfaces {
            let mut bounds = vec![seg.clone()];
            bounds.extend(
                (0..nb)
                    .filter(|&i| Some(i) != skip)
                    .map(|i| reg.bounds[i].clone()),
            );
            let w = WRegion {
                zeros,
                bounds,
                surface: s,
            };
            for w in orientations(w, 1, twisted) {
                let mut v = others();
                v.push(w);
                if !emit(v, fx, fy) {
                    return false;
                }
            }
        }
        true
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
        if !split(
            vec![MX, z],
            vec![MX, z],
            zs - 1,
            None,
            Fate::Becomes(x_new),
            Fate::Becomes(x_new),
            emit,
        ) || !handle(
            vec![MX, z],
            vec![MX, z],
            zs - 1,
            None,
            Fate::Becomes(x_new),
            Fate::Becomes(x_new),
            emit,
        ) || !cap(
            vec![MX, z, MX, z],
            zs - 1,
            None,
            Fate::Becomes(x_new),
            Fate::Becomes(x_new),
            emit,
        ) {
            return false;
        }
    }
    if zs >= 2 {
        // Two 0s joined: both become 1s on one new boundary.
        if !merge(
            vec![MX, z, MY, z],
            zs - 2,
            &[],
            Fate::Becomes(T_ONE),
            Fate::Becomes(T_ONE),
            emit,
        ) {
            return false;
        }
    }
    for (bi, b) in reg.bounds.iter().enumerate() {
        for (i, &y) in b.iter().enumerate() {
            if zs >= 1 {
                // A 0 joined to a spot of this boundary.
                let mut m = vec![MX, z, MY];
                m.extend(around(b, i));
                m.extend([MY, z]);
                if !merge(
                    m,
                    zs - 1,
                    &[bi],
                    Fate::Becomes(T_ONE),
                    joined(y, y_new),
                    emit,
                ) {
                    return false;
                }
            }
            // Joined to a spot of a later boundary: the two become one.
            for (bj, c) in reg.bounds.iter().enumerate().skip(bi + 1) {
                for (j, &w) in c.iter().enumerate() {
                    if y == w && y >= LETTER {
                        // The two sides of one letter on two boundaries
                        // (a loop through a handle left it so): a spot
                        // with one life cannot be joined to itself.
                        continue;
                    }
                    let mut m = vec![MX];
                    m.extend(around(b, i));
                    m.extend([MX, z, MY]);
                    m.extend(around(c, j));
                    m.extend([MY, z]);
                    if !merge(m, zs, &[bi, bj], joined(y, x_new), joined(w, y_new), emit) {
                        return false;
                    }
                    if twisted {
                        // The second boundary walked the other way.
                        let mut m = vec![MX];
                        m.extend(around(b, i));
                        m.extend([MX, z, MY]);
                        m.extend(around(c, j).into_iter().rev());
                        m.extend([MY, z]);
                        if !merge(m, zs, &[bi, bj], joined(y, x_new), joined(w, y_new), emit) {
                            return false;
                        }
                    }
                }
            }
            // A loop from a 1: it dies; the loop's inside holds the new
            // spot only, its outside the rest of the boundary.
            if y == T_ONE {
                let mut s2 = vec![MX];
                s2.extend(around(b, i));
                s2.extend([MX, z]);
                let mut one = vec![MX, z, MX];
                one.extend(around(b, i).into_iter().rev());
                one.extend([MX, z]);
                if !split(
                    vec![MX, z],
                    s2.clone(),
                    zs,
                    Some(bi),
                    Fate::Dies(T_ONE),
                    Fate::Dies(T_ONE),
                    emit,
                ) || !handle(
                    vec![MX, z],
                    s2,
                    zs,
                    Some(bi),
                    Fate::Dies(T_ONE),
                    Fate::Dies(T_ONE),
                    emit,
                ) || !cap(
                    one,
                    zs,
                    Some(bi),
                    Fate::Dies(T_ONE),
                    Fate::Dies(T_ONE),
                    emit,
                ) {
                    return false;
                }
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
                // Through a cross-cap: the first part, the curve, the
                // second part walked back, the curve.
                let mut one = vec![MX];
                one.extend_from_slice(&b[i + 1..j]);
                one.extend([MY, z, MX]);
                one.extend(b[..i].iter().rev());
                one.extend(b[j + 1..].iter().rev());
                one.extend([MY, z]);
                let (fx, fy) = (joined(y, x_new), joined(w, y_new));
                if !split(s1.clone(), s2.clone(), zs, Some(bi), fx, fy, emit)
                    || !handle(s1, s2, zs, Some(bi), fx, fy, emit)
                    || !cap(one, zs, Some(bi), fx, fy, emit)
                {
                    return false;
                }
            }
        }
    }
    true
}

/// `w` with every way of walking its boundaries from `fixed` on (each
/// forwards or back) when `twisted` and `w` is orientable: the boundaries
/// came from a non-orientable region, where they had no direction, into
/// an orientable one, where they have; else `w` alone.
fn orientations(w: WRegion, fixed: usize, twisted: bool) -> Vec<WRegion> {
    if !twisted || !surface::orientable(w.surface) || w.bounds.len() <= fixed {
        return vec![w];
    }
    // A boundary of one or two spots reads the same both ways: turning it
    // makes no new child.
    let turn: Vec<usize> = (fixed..w.bounds.len())
        .filter(|&i| w.bounds[i].len() > 2)
        .collect();
    let mut out = Vec::with_capacity(1 << turn.len());
    for mask in 0u32..(1 << turn.len()) {
        let mut v = w.clone();
        for (k, &i) in turn.iter().enumerate() {
            if mask >> k & 1 == 1 {
                v.bounds[i].reverse();
            }
        }
        out.push(v);
    }
    out.dedup();
    out
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
            // At most two moves are left in it, whatever it holds: its
            // surface cannot matter either.
            reg.surface = 0;
            free(reg, &census);
        } else if !surface::orientable(reg.surface) {
            for b in &mut reg.bounds {
                direct(b, &census);
            }
        }
    }
    lands(regions, &census)
}

/// A boundary of a non-orientable region (which may be walked either
/// way) turned to the way whose least rotation of kinds of spots (`1`,
/// `2`, letter of this region, letter of two) is least; kept as it is on a
/// tie. Only a step towards the canonical form, which then takes each
/// region as it is written: a tie may give one land two keys, never two
/// lands one.
fn direct(b: &mut [Tok], census: &Census) {
    if b.len() <= 2 {
        return;
    }
    let kinds: Vec<u8> = b
        .iter()
        .map(|&t| match t {
            T_ONE => 1,
            T_TWO => 2,
            _ if census.upper(t) => 4,
            _ => 3,
        })
        .collect();
    let least = |k: &[u8]| -> Vec<u8> {
        (0..k.len())
            .map(|s| k[s..].iter().chain(&k[..s]).copied().collect::<Vec<u8>>())
            .min()
            .unwrap_or_default()
    };
    let back: Vec<u8> = kinds.iter().rev().copied().collect();
    if least(&back) < least(&kinds) {
        b.reverse();
    }
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
