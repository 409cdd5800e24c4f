//! Sprouts (Conway and Paterson, 1967), as Glop writes its positions: the
//! one description of the game. The search (`src/search/games/sprouts.rs`)
//! is built on it; Sprouts has no table (its positions have no perfect
//! index), so it is a search-only game of the registry.
//!
//! Rules: n spots on the plane (the sphere is the same game). A move joins
//! two spots, or a spot to itself, by a curve that crosses no curve, and
//! puts a new spot on it; a spot takes at most three curve ends (its
//! "lives": a fresh spot has 3, the new spot 1). Normal play: who cannot
//! move loses; misère (`:misere`): who cannot move wins. Spec
//! `sprouts:N[:misere][:genus=G]`, starting from `0*N` (`0*N~G`).
//!
//! # Compact surfaces
//!
//! `genus=G` plays on another closed surface (Lemoine and Viennot,
//! "Sprouts game on compact surfaces", arXiv 0812.0081), with Glop's
//! topology number: 0 the plane (the default: texts and keys are the
//! plane's as before), G > 0 a sphere with G handles (1 the torus), G < 0
//! a sum of −G projective planes (−1 the projective plane, −2 the Klein
//! bottle). Each region carries the part of the surface inside it,
//! written `~G` after the region (`~2` two handles, `~-1` one cross-cap;
//! nothing for none), and its key holds it: regions of different surfaces
//! never compare equal. A region is a surface with boundary; a curve
//! between two of its spots cuts it, and topology leaves these cases
//! (derived here from the classification of surfaces, as the paper does):
//!
//! - between two boundaries: they become one, as on the plane; in a
//!   non-orientable region the second may be joined walked either way;
//! - from a boundary to itself, separating: the region is cut in two, the
//!   other boundaries and the surface shared between the sides every way
//!   (Euler genera add up; both sides orientable exactly when the region
//!   is: a non-orientable region of c cross-caps gives handles and
//!   cross-caps to its sides in every way that sums to c);
//! - from a boundary to itself through a handle (not separating,
//!   two-sided): both parts stay in the region, which loses 2 of its Euler
//!   genus (a handle; or two cross-caps, the rest either orientable or
//!   not when the count allows); out of a non-orientable region into an
//!   orientable one the second part is walked the other way;
//! - from a boundary to itself through a cross-cap (one-sided): one
//!   boundary, the first part then the second walked back, each closed by
//!   the curve; the region loses one cross-cap.
//!
//! A spot may so lie twice in a region on two of its boundaries (written
//! in lower case; even in a region with no handle left, as the annulus a
//! torus cut through its handle leaves). In a non-orientable region a boundary has no direction
//! of its own; where such a region leaves an orientable one, each way of
//! walking its boundaries is a child. A region of at most three lives
//! forgets its surface (at most two moves are left in it, whatever it
//! holds). The paper's reduction of large genera to smaller ones is not
//! used: each region keeps all its handles and cross-caps.
//!
//! # Glop's notation
//!
//! A position is its *lands* (independent parts) separated by `+`; a land
//! its *regions* (faces of the drawing where a move can still be made)
//! separated by `|`; a region its *boundaries* (one per connected piece of
//! the drawing that touches it) separated by `.`; a boundary the live
//! vertices met walking around it, in order (counter-clockwise around a
//! region's outer boundary, clockwise around the others):
//!
//! - `0`: a spot with no curve (3 lives), a boundary of its own; `0*x`
//!   stands for x of them (`0*3` is `0.0.0`);
//! - `1`: a spot with one curve end (2 lives);
//! - a letter: a spot with one life, met twice: upper case when it lies on
//!   two regions (once in each), lower case when twice in one boundary;
//! - `2`: a spot with one life met once (its other side is in a region
//!   where no move is left, or its two sides are next to each other).
//!
//! Letters are named per land. Dead spots (no life) are not written. So
//! `0*12` is the 12-spot start, and `0*8.AB|0*3.AB` one of its children (a
//! loop drawn from one spot, 8 spots inside and 3 outside).
//!
//! This project adds one term, `*k`: a Nim heap of size k (at most 255,
//! `MAX_HEAP`) added to the position (so `0*4.A|0*4.A+*2` is that land
//! beside a heap of 2, and `*0` the empty game). The normal-play search proves positions of this form
//! (Lemoine and Viennot's G + *k), and its proof databases write them so.
//! Past 26 letters of one case in a land (no position of Glop's papers has
//! so many) a letter takes primes: `a'` is the 27th lower-case letter.
//!
//! # Reductions and canonical form
//!
//! Every position is kept reduced, as Glop and SPOTS keep theirs: dead
//! spots are dropped; a region with fewer than 2 lives (where no move is
//! possible) is dropped, and a letter whose other side was there becomes
//! `2`; a letter met twice in a row (only dead spots between) becomes `2`;
//! a region with 2 or 3 lives is written as one boundary (its shape cannot
//! matter: any move in it leaves at most 2 lives) in which lower-case
//! letters are `2`; and the regions are split into lands, linked by
//! upper-case letters. A land is then written in its canonical form: the
//! least text, in the order `0 < 1 < 2 < lower case < upper case < .  <
//! | `, over every naming of the letters (by first appearance), rotation of
//! each boundary, orientation of each region (a region can be mirrored on
//! its own: its only link to the others is letters with one life), order
//! of boundaries and of regions; lands are sorted the same way. So equal
//! positions have equal text, and that text is the key a search memoises.
//! (Ties between equal-looking regions are resolved by trying each, up to
//! a bound; past it a position may get a second key, never a wrong one.)

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "Start with N spots. A move draws a curve joining two spots, or a spot to itself, crossing no curve, and puts a new spot on it. A spot may have at most three curve ends. The player who cannot move loses (with :misere, wins).";

mod canon;
mod notation;
mod rules;
mod working;

use crate::error::Error;
use std::fmt;

pub(crate) use notation::{format_land, format_position};

/// The largest number of starting spots a spec takes: a land holds at most
/// [`MAX_LETTERS`] lives (so its letters fit a byte each), and `0*80` has
/// 240. Past anything a search proves (Glop's largest is 47 spots, SPOTS's
/// 62).
pub const MAX_SPOTS: u32 = 80;

/// The largest Nim heap a position holds (`*255`). No search needs more:
/// a land holds at most [`MAX_LETTERS`] lives, so its nimber (at most the
/// moves left) is below 256, and so is the nim-sum of any lands' nimbers;
/// so `G + *k` for k past 255 is always won the same way (move the heap
/// to the lands' nim-sum). A larger heap would cost a child per size below
/// it, which a search must list: a heap of 4·10⁹ asked for 128 GiB.
pub const MAX_HEAP: u32 = 255;

/// Sprouts from `0*N`, normal or misère play: what a spec
/// `sprouts:N[:misere]` describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sprouts {
    spots: u32,
    misere: bool,
    /// Glop's topology number: 0 the plane, g > 0 g handles, -c c
    /// cross-caps.
    genus: i32,
}

/// The largest |genus| a spec takes: far past where a surface stops
/// mattering (a game of N spots has at most 3N - 1 moves, each using at
/// most one handle or cross-cap).
pub const MAX_GENUS: i32 = working::surface::MAX as i32;

impl Sprouts {
    /// Sprouts from `spots` spots (1 to [`MAX_SPOTS`]).
    pub fn new(spots: u32, misere: bool) -> Result<Sprouts, String> {
        if !(1..=MAX_SPOTS).contains(&spots) {
            return Err(format!(
                "the number of spots must be from 1 to {MAX_SPOTS}, not {spots}"
            ));
        }
        Ok(Sprouts {
            spots,
            misere,
            genus: 0,
        })
    }

    /// The same game on the surface of Glop's topology number `genus`
    /// (0 the plane, g > 0 a sphere with g handles, -c a sum of c
    /// projective planes), from -[`MAX_GENUS`] to [`MAX_GENUS`].
    pub fn on_surface(self, genus: i32) -> Result<Sprouts, String> {
        if !(-MAX_GENUS..=MAX_GENUS).contains(&genus) {
            return Err(format!(
                "the genus must be from -{MAX_GENUS} to {MAX_GENUS}, not {genus}"
            ));
        }
        Ok(Sprouts { genus, ..self })
    }

    /// Glop's topology number of the surface (0 the plane).
    pub fn genus(&self) -> i32 {
        self.genus
    }

    /// What `sprouts:PARAMS` describes: `N` or `N:misere`. Only the
    /// search calls it (Sprouts has no table), and the reader-only build
    /// has no search.
    #[cfg_attr(not(feature = "solve"), allow(dead_code))]
    pub(crate) fn describe(params: &str) -> Result<Sprouts, String> {
        let (n, rest) = match params.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (params, None),
        };
        if n.is_empty() {
            return Err(crate::games::empty_param());
        }
        let spots = crate::games::parse_num::<u32>(n).ok_or_else(|| {
            format!(
                "expected the number of spots, like sprouts:5, found {}",
                Error::quote(n)
            )
        })?;
        // `genus=G` anywhere among the options; the others are the play.
        let mut genus = None;
        let mut play = Vec::new();
        for part in rest.into_iter().flat_map(|r| r.split(':')) {
            match part.split_once('=') {
                Some((k, v)) if k.eq_ignore_ascii_case("genus") => {
                    if genus.is_some() {
                        return Err("'genus' is given twice".into());
                    }
                    let g = crate::games::parse_num::<i64>(v.strip_prefix('-').unwrap_or(v))
                        .map(|g| if v.starts_with('-') { -g } else { g })
                        .ok_or_else(|| {
                            format!(
                                "expected genus=G with G a whole number (0 the plane, 1 the torus, -1 the projective plane, -2 the Klein bottle), found {}",
                                Error::quote(part)
                            )
                        })?;
                    let g = i32::try_from(g).unwrap_or(i32::MAX);
                    genus = Some(g);
                }
                _ => play.push(part),
            }
        }
        let rest = (!play.is_empty()).then(|| play.join(":"));
        Sprouts::new(spots, crate::games::parse_play(rest.as_deref())?)?
            .on_surface(genus.unwrap_or(0))
    }

    /// Spots at the start.
    pub fn spots(&self) -> u32 {
        self.spots
    }

    /// Whether this is misère play.
    pub fn misere(&self) -> bool {
        self.misere
    }

    /// The canonical spec, `sprouts:N` or `sprouts:N:misere`.
    pub fn spec(&self) -> String {
        format!(
            "sprouts:{}{}{}",
            self.spots,
            if self.misere { ":misere" } else { "" },
            if self.genus != 0 {
                format!(":genus={}", self.genus)
            } else {
                String::new()
            }
        )
    }

    /// The start, `0*N` (`0*N~G` on a surface).
    pub fn start(&self) -> Position {
        if self.genus == 0 {
            return Position::spots(self.spots);
        }
        // Reduced as any position: one spot's region is free, its surface
        // forgotten.
        let region = working::WRegion {
            zeros: self.spots,
            bounds: Vec::new(),
            surface: working::surface::of_genus(self.genus),
        };
        Position::new(rules::reduce(vec![region]), 0)
    }
}

/// One land in canonical form: its regions as bytes, each boundary's
/// vertices (`ZERO`, `ONE`, `TWO`, the letter of rank i `LETTERS + i`,
/// ranked by first appearance) followed by
/// `BOUNDARY_END`, each region by `REGION_END`, the land by `LAND_END`. The
/// byte order is the canonical order, so sorting lands by their bytes
/// sorts them as the notation does, and equal lands have equal bytes.
#[derive(Clone)]
pub struct Land(Bytes);

/// Bytes a land holds in place rather than in an allocation of its own.
const INLINE: usize = 38;

/// A land's bytes: a search keeps hundreds of thousands of lands, most of
/// them of 20 to 38 bytes, so those up to [`INLINE`] bytes are held in
/// place (40 bytes in all, where a box is 16 plus an allocation of 32 or
/// 48 bytes, and the work of making and freeing it).
#[derive(Clone)]
enum Bytes {
    Inline(u8, [u8; INLINE]),
    Heap(Box<[u8]>),
}

impl Bytes {
    fn of(b: &[u8]) -> Bytes {
        if b.len() <= INLINE {
            let mut a = [0; INLINE];
            a[..b.len()].copy_from_slice(b);
            Bytes::Inline(b.len() as u8, a)
        } else {
            Bytes::Heap(b.into())
        }
    }

    fn get(&self) -> &[u8] {
        match self {
            Bytes::Inline(n, a) => &a[..*n as usize],
            Bytes::Heap(b) => b,
        }
    }
}

// Equality, order and hash are the bytes' (so as the notation's order),
// whichever way they are held.
impl PartialEq for Land {
    fn eq(&self, other: &Land) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Land {}

impl std::hash::Hash for Land {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialOrd for Land {
    fn partial_cmp(&self, other: &Land) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Land {
    fn cmp(&self, other: &Land) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

/// Byte of a spot with 3 lives.
pub(crate) const ZERO: u8 = 0;
/// Byte of a spot with 2 lives.
pub(crate) const ONE: u8 = 1;
/// Byte of a spot with 1 life met once.
pub(crate) const TWO: u8 = 2;
/// Byte of the first letter: letters of both cases share the bytes from
/// here, named in order of first appearance (a letter's case follows from
/// where it is written: twice in one region, or once in each of two).
pub(crate) const LETTERS: u8 = 3;
/// Letters a land may hold: a letter has one life, so a land has at most
/// as many letters as lives, and parsing bounds a land's lives by this.
pub(crate) const MAX_LETTERS: usize = (BOUNDARY_END - LETTERS) as usize;
/// End of a boundary.
pub(crate) const BOUNDARY_END: u8 = 253;
/// End of a region.
pub(crate) const REGION_END: u8 = 254;
/// End of a land.
pub(crate) const LAND_END: u8 = 255;

impl Land {
    /// No land: what a search puts in the slot of a land it forgot, so
    /// that the slot holds no bytes until reused.
    #[cfg(feature = "solve")]
    pub(crate) fn placeholder() -> Land {
        Land(Bytes::Inline(0, [0; INLINE]))
    }

    /// The canonical bytes (see [`Land`]).
    pub fn as_bytes(&self) -> &[u8] {
        self.0.get()
    }

    /// The land of canonical bytes `b` (the caller's to make canonical).
    pub(crate) fn of(b: &[u8]) -> Land {
        Land(Bytes::of(b))
    }

    /// A land from bytes some [`Land::as_bytes`] gave, or `None` if they
    /// are not a canonical land (read back from a file, say).
    pub fn from_bytes(b: &[u8]) -> Option<Land> {
        let land = Land::of(b);
        // Parsing bounds a land's lives (its letters fit a byte, and its
        // nimber and any heap a search makes beside it stay below 256).
        if land.lives() as usize > MAX_LETTERS {
            return None;
        }
        // Decoding and re-encoding is the check: a canonical land is its
        // own canonical form.
        let again = rules::canonical_lands(rules::decode(&land)).ok()?;
        (again.len() == 1 && again[0] == land).then_some(land)
    }

    /// Lives left in the land: the moves left are at most this minus one.
    pub fn lives(&self) -> u32 {
        let mut lives = 0;
        // A region's first bytes may be its surface (`BOUNDARY_END` and a
        // code), which holds no life.
        let mut start = true;
        let mut code = false;
        for &b in self.as_bytes() {
            if code {
                code = false;
                continue;
            }
            if start && b == BOUNDARY_END {
                code = true;
                start = false;
                continue;
            }
            start = b == REGION_END;
            lives += match b {
                ZERO => 6,
                ONE => 4,
                TWO => 2,
                // A letter is met twice and has one life.
                LETTERS..BOUNDARY_END => 1,
                _ => 0,
            };
        }
        lives / 2
    }

    /// Regions in the land.
    pub fn regions(&self) -> usize {
        self.as_bytes().iter().filter(|&&b| b == REGION_END).count()
    }

    /// Every child of the land (one per distinct result of a move), each
    /// as its lands in canonical order (none when the move leaves no move
    /// in this part of the position).
    pub fn children(&self) -> Vec<Vec<Land>> {
        rules::land_children(self)
    }

    /// [`Land::children`], asking `stop` every few hundred move results
    /// (with the results made so far and about the bytes they hold)
    /// whether to give up: `None` if it said so. A land's moves can make
    /// many results (a region of n boundaries of different shapes is cut
    /// 2^n ways by one move), so a search with limits makes them so.
    pub fn children_until(&self, stop: &mut dyn FnMut(u64, u64) -> bool) -> Option<Vec<Vec<Land>>> {
        rules::land_children_until(self, stop)
    }
}

impl fmt::Debug for Land {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Land({})", format_land(self))
    }
}

impl fmt::Display for Land {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_land(self))
    }
}

/// A position: its lands in canonical order, and a Nim heap (`*k`, 0 for
/// none) beside them.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Position {
    lands: Vec<Land>,
    heap: u32,
}

impl Position {
    /// The position of `lands` (in any order) and a heap of `heap`.
    ///
    /// # Panics
    ///
    /// If `heap` is past [`MAX_HEAP`] (see [`Position::try_new`]): every
    /// position the crate makes has a smaller heap, as parsing refuses more.
    pub fn new(lands: Vec<Land>, heap: u32) -> Position {
        match Position::try_new(lands, heap) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`Position::new`], or a one-line refusal of a heap past
    /// [`MAX_HEAP`].
    pub fn try_new(mut lands: Vec<Land>, heap: u32) -> Result<Position, String> {
        if heap > MAX_HEAP {
            return Err(heap_too_large(heap));
        }
        lands.sort_unstable();
        Ok(Position { lands, heap })
    }

    /// `n` spots and nothing else: `0*n` (the empty game for 0).
    pub fn spots(n: u32) -> Position {
        if n == 0 {
            return Position::new(Vec::new(), 0);
        }
        let mut b = Vec::with_capacity(2 * n as usize + 2);
        for _ in 0..n {
            b.push(ZERO);
            b.push(BOUNDARY_END);
        }
        b.push(REGION_END);
        b.push(LAND_END);
        Position::new(vec![Land::of(&b)], 0)
    }

    /// Reads a position in Glop's notation (module doc), reduced and in
    /// canonical form.
    pub fn parse(s: &str) -> Result<Position, String> {
        notation::parse_position(s)
    }

    /// The lands, in canonical order.
    pub fn lands(&self) -> &[Land] {
        &self.lands
    }

    /// The Nim heap beside the lands (0 for none).
    pub fn heap(&self) -> u32 {
        self.heap
    }

    /// Whether no move is left (no land and no heap).
    pub fn is_over(&self) -> bool {
        self.lands.is_empty() && self.heap == 0
    }

    /// Lives left in all the lands.
    pub fn lives(&self) -> u32 {
        self.lands.iter().map(Land::lives).sum()
    }

    /// Every child: a move in one land (its children replace it), or a
    /// smaller heap. Distinct positions only, in canonical order.
    pub fn children(&self) -> Vec<Position> {
        self.children_until(&mut |_, _| false).unwrap_or_default()
    }

    /// [`Position::children`], asking `stop` every few hundred move
    /// results whether to give up, as [`Land::children_until`] does (the
    /// results and bytes it is given count from the first land).
    pub fn children_until(&self, stop: &mut dyn FnMut(u64, u64) -> bool) -> Option<Vec<Position>> {
        let mut out = Vec::new();
        let (mut made, mut bytes) = (0u64, 0u64);
        for (i, land) in self.lands.iter().enumerate() {
            let kids = land.children_until(&mut |m, b| stop(made + m, bytes + b))?;
            made += kids.len() as u64;
            bytes += kids
                .iter()
                .map(|c| {
                    48 + c
                        .iter()
                        .map(|l| 40 + l.as_bytes().len() as u64)
                        .sum::<u64>()
                })
                .sum::<u64>();
            for child in kids {
                let mut lands: Vec<Land> = Vec::with_capacity(self.lands.len() + child.len());
                lands.extend(self.lands[..i].iter().cloned());
                lands.extend(self.lands[i + 1..].iter().cloned());
                lands.extend(child);
                out.push(Position::new(lands, self.heap));
            }
        }
        for k in 0..self.heap {
            out.push(Position::new(self.lands.clone(), k));
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }
}

/// The refusal of a heap of `k`, past [`MAX_HEAP`].
pub(crate) fn heap_too_large(k: impl fmt::Display) -> String {
    format!(
        "a heap is at most *{MAX_HEAP}, not *{k} (a land's nimber is below 256, so a larger heap changes no outcome)"
    )
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_position(self))
    }
}

#[cfg(test)]
mod tests;
