//! Sprouts against a second, deliberately plain implementation of the rules.
//!
//! The oracle keeps a drawing as the library never does: every spot by its
//! number and degree, each region as the closed walks around it, listing
//! every corner met (a spot of degree d has d corners, a lone spot one).
//! No letters, no `2`, no lands, no region merging, no mirror images: its
//! only tidying is to forget what can never be used again (corners of dead
//! spots, then walks and regions with no corner left) and to list walks and
//! regions in a fixed order (each walk from its least rotation of degrees,
//! walks and regions sorted by their degrees, spots renumbered in order of
//! appearance), so that a drawing reached by two move orders is usually
//! met once. Positions are memoised on that raw drawing (its bytes: every
//! corner's spot and degree, walk by walk, region by region), which is the
//! whole drawing: two different drawings never share it. A move joins two
//! corners of one region, as the rules say:
//!
//! - two corners of one walk (or a lone spot's corner to itself): the walk
//!   is cut at both corners, each part closed by the new curve and its new
//!   spot; every other walk of the region goes to one side or the other;
//! - corners of two walks: the walks become one.
//!
//! Every drawing reachable from 1 to 5 spots is compared with the library,
//! once each, when the oracle first computes its values: written in Glop's
//! notation (letters from degrees and corners), read by `Position::parse`,
//! its normal-play nimber (sum of the lands' nimbers, by mex over the
//! library's moves) and misère outcome must be the oracle's, and so must
//! the sets of values of its children; and the search's two engines
//! (normal play by couples `L + *k`, misère by whole positions) must give
//! the same nimber and outcomes. The library's side is computed once per
//! canonical position and kept; the oracle keeps only its two values per
//! drawing, memoised on the drawing's bytes.
//!
//! That check meets every raw drawing and so stops at 3 or 4 spots on
//! surfaces. The oracle by lands (`Lands`, below) keeps the same moves but
//! memoises on its own canonical key of each independent land (normal
//! play, nimbers added by exclusive or) and of whole positions (misère):
//! it checks the start's values to 4 spots on every surface, and the
//! values of random positions reached from 5 to 8 spots. The outcome
//! search (`couples.rs`: normal play by couples `L + *k`, misère on whole
//! positions, both with cutoffs) takes the starts' check to 5 spots on
//! every surface.

use retrograde::games::sprouts::{Land, Position, Sprouts};
use retrograde::internal::search::sprouts::{Misere, Normal};
use retrograde::search::engine::Options;
use std::collections::{BTreeSet, HashMap};

mod couples;
use couples::{Couples, Hint, MisereSearch};

/// End of a walk in a drawing's key.
const WALK_END: u8 = 254;
/// End of a region in a drawing's key.
const REGION_END: u8 = 255;

/// The surface inside a region: `n` handles, or `n` cross-caps when
/// `cross` (a region with both is one of cross-caps only, two per handle).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Surf {
    cross: bool,
    n: u32,
}

impl Surf {
    /// Glop's topology number: g handles, -c cross-caps.
    fn of(g: i32) -> Surf {
        Surf {
            cross: g < 0,
            n: g.unsigned_abs(),
        }
    }

    fn genus(self) -> i32 {
        if self.cross {
            -(self.n as i32)
        } else {
            self.n as i32
        }
    }

    /// Euler genus: what a closed surface lacks of the sphere's Euler
    /// characteristic 2.
    fn euler(self) -> u32 {
        if self.cross {
            self.n
        } else {
            2 * self.n
        }
    }

    /// Every surface of Euler genus `e` (at most `e`).
    fn all(e: u32) -> Vec<Surf> {
        let mut v = Vec::new();
        for n in 0..=e {
            v.push(Surf { cross: false, n });
            if n >= 1 {
                v.push(Surf { cross: true, n });
            }
        }
        v
    }

    /// Cut along a curve that separates: two parts whose connected sum
    /// is this surface (Euler genera add up; orientable exactly when both
    /// parts are).
    fn separated(self) -> Vec<(Surf, Surf)> {
        let e = self.euler();
        let mut v = Vec::new();
        for a in Surf::all(e) {
            for b in Surf::all(e) {
                if a.euler() + b.euler() == e && (a.cross || b.cross) == self.cross {
                    v.push((a, b));
                }
            }
        }
        v
    }

    /// Cut along a two-sided curve that does not separate: one surface
    /// with Euler genus two less, orientable if this one is (else
    /// either, as the classification allows).
    fn two_sided(self) -> Vec<Surf> {
        let e = self.euler();
        Surf::all(e)
            .into_iter()
            .filter(|s| e >= 2 && s.euler() == e - 2 && (self.cross || !s.cross))
            .collect()
    }

    /// Cut along a one-sided curve: Euler genus one less; only on a
    /// non-orientable surface.
    fn one_sided(self) -> Vec<Surf> {
        let e = self.euler();
        Surf::all(e)
            .into_iter()
            .filter(|s| self.cross && s.euler() + 1 == e)
            .collect()
    }
}

/// A drawing: degrees of the spots, and the regions' walks of spot
/// numbers, each region with its surface. A walk of a non-orientable
/// region has no direction of its own (either way reads the same region).
#[derive(Clone)]
struct Raw {
    deg: Vec<u8>,
    regions: Vec<Vec<Vec<usize>>>,
    surf: Vec<Surf>,
}

/// A region's walks with every way of turning those from `fixed` on,
/// when the region came out of a non-orientable one (`twisted`) and is
/// orientable: its walks had no direction there, and have one now.
fn turned(walks: Vec<Vec<usize>>, fixed: usize, twisted: bool, s: Surf) -> Vec<Vec<Vec<usize>>> {
    if !twisted || s.cross || walks.len() <= fixed {
        return vec![walks];
    }
    let k = walks.len() - fixed;
    (0u32..1 << k)
        .map(|mask| {
            let mut w = walks.clone();
            for i in 0..k {
                if mask >> i & 1 == 1 {
                    w[fixed + i].reverse();
                }
            }
            w
        })
        .collect()
}

/// Two walks compared by their spots' degrees, as the vectors of them
/// would be (lexicographically, a prefix first).
fn by_degrees(deg: &[u8], a: &[usize], b: &[usize]) -> std::cmp::Ordering {
    a.iter().map(|&v| deg[v]).cmp(b.iter().map(|&v| deg[v]))
}

impl Raw {
    fn spots(n: usize, g: i32) -> Raw {
        Raw {
            deg: vec![0; n],
            regions: vec![(0..n).map(|v| vec![v]).collect()],
            surf: vec![Surf::of(g)],
        }
    }

    /// The same drawing tidied: dead corners, and walks and regions left
    /// with no corner, forgotten; each walk from its least rotation of
    /// degrees; walks, then regions, sorted by their degrees; spots
    /// renumbered by first appearance.
    fn tidy(mut self) -> Raw {
        let deg = &self.deg;
        for r in &mut self.regions {
            for w in r.iter_mut() {
                w.retain(|&v| deg[v] < 3);
                // Rotations compared in place (no copy of each).
                let n = w.len();
                let best = {
                    let ws: &[usize] = w;
                    let rot = |s: usize| (0..n).map(move |k| deg[ws[(s + k) % n]]);
                    (0..n).min_by(|&a, &b| rot(a).cmp(rot(b))).unwrap_or(0)
                };
                w.rotate_left(best);
            }
            r.retain(|w| !w.is_empty());
            r.sort_by(|a, b| by_degrees(deg, a, b));
        }
        let mut both: Vec<(Vec<Vec<usize>>, Surf)> = std::mem::take(&mut self.regions)
            .into_iter()
            .zip(self.surf.iter().copied())
            .filter(|(r, _)| !r.is_empty())
            .collect();
        both.sort_by(|(ra, sa), (rb, sb)| {
            sa.cmp(sb).then_with(|| {
                for (wa, wb) in ra.iter().zip(rb) {
                    let o = by_degrees(deg, wa, wb);
                    if o.is_ne() {
                        return o;
                    }
                }
                ra.len().cmp(&rb.len())
            })
        });
        self.surf = both.iter().map(|(_, s)| *s).collect();
        self.regions = both.into_iter().map(|(r, _)| r).collect();
        let mut number: Vec<usize> = vec![usize::MAX; self.deg.len()];
        let mut deg = Vec::new();
        for r in &mut self.regions {
            for w in r.iter_mut() {
                for v in w.iter_mut() {
                    if number[*v] == usize::MAX {
                        number[*v] = deg.len();
                        deg.push(self.deg[*v]);
                    }
                    *v = number[*v];
                }
            }
        }
        self.deg = deg;
        self
    }

    /// The raw drawing as bytes: each corner `4 * spot + degree`, each
    /// walk ended by `WALK_END`, each region by `REGION_END`.
    fn key(&self) -> Box<[u8]> {
        let mut k = Vec::new();
        for (r, s) in self.regions.iter().zip(&self.surf) {
            k.push(u8::from(s.cross) << 7 | s.n as u8);
            for w in r {
                for &v in w {
                    assert!(v < 60, "spot {v}: more spots than the key's byte holds");
                    k.push(4 * v as u8 + self.deg[v]);
                }
                k.push(WALK_END);
            }
            k.push(REGION_END);
        }
        k.into()
    }

    /// Every drawing one move leads to, tidied.
    fn children(&self) -> Vec<Raw> {
        self.moves().into_iter().map(Raw::tidy).collect()
    }

    /// Every drawing one move leads to.
    fn moves(&self) -> Vec<Raw> {
        let mut out = Vec::new();
        for (r, region) in self.regions.iter().enumerate() {
            // Every pair of corners (a, b) with a <= b in (walk, index)
            // order; a corner with itself only for a loop.
            let corners: Vec<(usize, usize)> = region
                .iter()
                .enumerate()
                .flat_map(|(w, walk)| (0..walk.len()).map(move |i| (w, i)))
                .collect();
            for (ka, &(wa, ia)) in corners.iter().enumerate() {
                for &(wb, ib) in &corners[ka..] {
                    let u = region[wa][ia];
                    let v = region[wb][ib];
                    let legal = if (wa, ia) == (wb, ib) {
                        self.deg[u] <= 1
                    } else {
                        u != v && self.deg[u] <= 2 && self.deg[v] <= 2
                    };
                    if legal {
                        out.extend(self.join(r, (wa, ia), (wb, ib)));
                    }
                }
            }
        }
        out
    }

    /// The drawings of the curve from corner `a` to corner `b` of region
    /// `r` (several when it cuts the region: one per sharing of the other
    /// walks).
    fn join(&self, r: usize, a: (usize, usize), b: (usize, usize)) -> Vec<Raw> {
        let region = &self.regions[r];
        let mut next = self.clone();
        let w = next.deg.len();
        next.deg.push(2);
        let u = region[a.0][a.1];
        let v = region[b.0][b.1];
        next.deg[u] += 1;
        next.deg[v] += 1;
        let mut out = Vec::new();
        if a.0 == b.0 {
            let walk = &region[a.0];
            let n = walk.len();
            let (i, j) = (a.1, b.1);
            let (side1, side2) = if i == j {
                // A loop: the corner of u is cut in two, one in each part
                // (a lone spot had one corner; now two).
                let mut s2 = vec![u];
                for k in 1..n {
                    s2.push(walk[(i + k) % n]);
                }
                if self.deg[u] >= 1 {
                    s2.push(u);
                }
                s2.push(w);
                (vec![u, w], s2)
            } else {
                let mut s1: Vec<usize> = walk[i..=j].to_vec();
                s1.push(w);
                let mut s2: Vec<usize> = walk[j..].to_vec();
                s2.extend_from_slice(&walk[..=i]);
                s2.push(w);
                (s1, s2)
            };
            let rest: Vec<&Vec<usize>> = region
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != a.0)
                .map(|(_, x)| x)
                .collect();
            let surf = self.surf[r];
            let twisted = surf.cross;
            // The curve separates the region: the other walks and the
            // surface shared between the sides every way.
            for mask in 0u32..(1 << rest.len()) {
                let mut p1 = vec![side1.clone()];
                let mut p2 = vec![side2.clone()];
                for (bit, x) in rest.iter().enumerate() {
                    if mask >> bit & 1 == 1 {
                        p1.push((*x).clone());
                    } else {
                        p2.push((*x).clone());
                    }
                }
                for (s1, s2) in surf.separated() {
                    for q1 in turned(p1.clone(), 1, twisted, s1) {
                        for q2 in turned(p2.clone(), 1, twisted, s2) {
                            let mut d = next.clone();
                            d.regions[r] = q1.clone();
                            d.surf[r] = s1;
                            d.regions.push(q2);
                            d.surf.push(s2);
                            out.push(d);
                        }
                    }
                }
            }
            let others: Vec<Vec<usize>> = rest.iter().map(|x| (*x).clone()).collect();
            // Through a handle: both sides stay in the region. Out of a
            // non-orientable region into an orientable one the handle is
            // a tube glued with a twist: the second side runs the other
            // way.
            for s in surf.two_sided() {
                let mut second = side2.clone();
                if twisted && !s.cross {
                    second.reverse();
                }
                let mut walks = vec![side1.clone(), second];
                walks.extend(others.iter().cloned());
                for q in turned(walks, 2, twisted, s) {
                    let mut d = next.clone();
                    d.regions[r] = q;
                    d.surf[r] = s;
                    out.push(d);
                }
            }
            // Through a cross-cap: one walk, the first side, then the
            // second side backwards, each closed by the curve.
            for s in surf.one_sided() {
                let mut one = side1.clone();
                let back: Vec<usize> = side2[..side2.len() - 1].iter().rev().copied().collect();
                one.extend(back);
                one.push(w);
                let mut walks = vec![one];
                walks.extend(others.iter().cloned());
                for q in turned(walks, 1, twisted, s) {
                    let mut d = next.clone();
                    d.regions[r] = q;
                    d.surf[r] = s;
                    out.push(d);
                }
            }
        } else {
            // Two walks made one: around the first from u, along the
            // curve, around the second from v, and back. A spot gains a
            // corner unless it was alone.
            let (x, y) = (&region[a.0], &region[b.0]);
            let mut m = Vec::new();
            for k in 0..x.len() {
                m.push(x[(a.1 + k) % x.len()]);
            }
            if self.deg[u] >= 1 {
                m.push(u);
            }
            m.push(w);
            for k in 0..y.len() {
                m.push(y[(b.1 + k) % y.len()]);
            }
            if self.deg[v] >= 1 {
                m.push(v);
            }
            m.push(w);
            let walks: Vec<Vec<usize>> = region
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != a.0 && k != b.0)
                .map(|(_, x)| x.clone())
                .collect();
            if self.surf[r].cross {
                // On a non-orientable surface the second walk may be
                // joined running the other way.
                let mut m2 = Vec::new();
                for k in 0..x.len() {
                    m2.push(x[(a.1 + k) % x.len()]);
                }
                if self.deg[u] >= 1 {
                    m2.push(u);
                }
                m2.push(w);
                for k in 0..y.len() {
                    m2.push(y[(b.1 + y.len() - k) % y.len()]);
                }
                if self.deg[v] >= 1 {
                    m2.push(v);
                }
                m2.push(w);
                let mut d = next.clone();
                let mut ws = walks.clone();
                ws.push(m2);
                d.regions[r] = ws;
                out.push(d);
            }
            let mut walks = walks;
            walks.push(m);
            next.regions[r] = walks;
            out.push(next);
        }
        out
    }

    /// The drawing in Glop's notation, all regions as one land (the
    /// library splits it): live corners only, a spot of degree 2 as a
    /// letter (upper case when its corners are in two regions), regions
    /// with no live corner left out.
    fn glop(&self) -> String {
        let mut regions_of: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        for (r, region) in self.regions.iter().enumerate() {
            for walk in region {
                for &v in walk {
                    regions_of.entry(v).or_default().insert(r);
                }
            }
        }
        let mut name: HashMap<usize, String> = HashMap::new();
        let (mut lower, mut upper) = (0u8, 0u8);
        let mut regions = Vec::new();
        for (regions_written, region) in self.regions.iter().enumerate() {
            let mut walks = Vec::new();
            for walk in region {
                let mut s = String::new();
                for &v in walk {
                    match self.deg[v] {
                        0 => s.push('0'),
                        1 => s.push('1'),
                        2 => {
                            let up = regions_of[&v].len() == 2;
                            let n = name.entry(v).or_insert_with(|| {
                                let (base, k) = if up {
                                    (b'A', &mut upper)
                                } else {
                                    (b'a', &mut lower)
                                };
                                *k += 1;
                                char::from(base + *k - 1).to_string()
                            });
                            s.push_str(n);
                        }
                        _ => {}
                    }
                }
                if !s.is_empty() {
                    walks.push(s);
                }
            }
            if !walks.is_empty() {
                let g = self.surf[regions_written].genus();
                let mut text = walks.join(".");
                if g != 0 {
                    text.push_str(&format!("~{g}"));
                }
                regions.push(text);
            }
        }
        if regions.is_empty() {
            "*0".to_string()
        } else {
            regions.join("|")
        }
    }
}

/// The library's values: land nimbers by mex, memoised.
#[derive(Default)]
struct Fast {
    land: HashMap<Land, u32>,
    misere: HashMap<Position, bool>,
}

impl Fast {
    fn land(&mut self, l: &Land) -> u32 {
        if let Some(&n) = self.land.get(l) {
            return n;
        }
        let mut seen: Vec<u32> = l.children().iter().map(|c| self.sum(c)).collect();
        let n = mex(&mut seen);
        self.land.insert(l.clone(), n);
        n
    }

    fn sum(&mut self, lands: &[Land]) -> u32 {
        lands.iter().fold(0, |a, l| a ^ self.land(l))
    }

    fn nimber(&mut self, p: &Position) -> u32 {
        self.sum(p.lands()) ^ p.heap()
    }

    fn misere(&mut self, p: &Position) -> bool {
        if let Some(&w) = self.misere.get(p) {
            return w;
        }
        let kids = p.children();
        let w = kids.is_empty() || kids.iter().any(|c| !self.misere(c));
        self.misere.insert(p.clone(), w);
        w
    }
}

/// The oracle's values of a drawing.
#[derive(Clone, Copy)]
struct Values {
    /// Normal-play nimber.
    nimber: u8,
    /// Whether the mover wins under misère play.
    misere: bool,
}

/// The library's values of a canonical position and of its children, as
/// bit sets: bit k for a child of nimber k; bit 0 for a child whose mover
/// loses misère, bit 1 for one whose mover wins.
#[derive(Clone, Copy)]
struct Library {
    nimber: u32,
    misere: bool,
    children_nimbers: u64,
    children_misere: u8,
}

/// The library's two search engines, memo and all kept across positions.
struct Engines {
    normal: Normal<'static>,
    misere: Misere<'static>,
}

impl Default for Engines {
    fn default() -> Engines {
        let o = Options {
            memory: 256 << 20,
            ..Options::default()
        };
        Engines {
            normal: Normal::new(&o),
            misere: Misere::new(&o),
        }
    }
}

/// The oracle, memoised on raw drawings, and the library, memoised on
/// canonical positions, compared at every drawing the oracle computes.
#[derive(Default)]
struct Check {
    oracle: HashMap<Box<[u8]>, Values>,
    fast: Fast,
    library: HashMap<Position, Library>,
    engines: Engines,
}

impl Check {
    /// The oracle's values of `p` (by its own moves, memoised), compared
    /// with the library's the first time.
    fn values(&mut self, p: &Raw) -> Values {
        let key = p.key();
        if let Some(&v) = self.oracle.get(&key) {
            return v;
        }
        let kids = p.children();
        let (mut nimbers, mut misere) = (0u64, 0u8);
        for c in &kids {
            let v = self.values(c);
            nimbers |= 1 << v.nimber;
            misere |= 1 << u8::from(v.misere);
        }
        let nimber = (!nimbers).trailing_zeros();
        assert!(nimber < 64, "nimber {nimber}: past the bit set");
        let v = Values {
            nimber: nimber as u8,
            // No move: the mover wins misère; else a child whose mover
            // loses is a winning move.
            misere: kids.is_empty() || misere & 1 != 0,
        };
        self.compare(p, v, nimbers, misere);
        self.oracle.insert(key, v);
        v
    }

    /// Compares the oracle's values of `p` and of its children with the
    /// library's.
    fn compare(&mut self, p: &Raw, v: Values, nimbers: u64, misere: u8) {
        let text = p.glop();
        let q = Position::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let lib = match self.library.get(&q) {
            Some(&lib) => lib,
            None => {
                let lib = self.library_values(&q);
                self.library.insert(q.clone(), lib);
                lib
            }
        };
        assert_eq!(
            u32::from(v.nimber),
            lib.nimber,
            "nimber of {text} (library: {q})"
        );
        assert_eq!(
            v.misere, lib.misere,
            "misère outcome of {text} (library: {q})"
        );
        assert_eq!(
            nimbers, lib.children_nimbers,
            "children's nimbers of {text} (library: {q}), as bit sets"
        );
        assert_eq!(
            misere, lib.children_misere,
            "children's misère outcomes of {text} (library: {q}), as bit sets"
        );
    }

    /// The library's values of `q` and its children, and its engines'
    /// agreement with them.
    fn library_values(&mut self, q: &Position) -> Library {
        let nimber = self.fast.nimber(q);
        let misere = self.fast.misere(q);
        let e = &mut self.engines;
        assert_eq!(e.normal.nimber(q), Some(nimber), "engine's nimber of {q}");
        assert_eq!(
            e.normal.wins(q),
            Some(nimber != 0),
            "engine's outcome of {q}"
        );
        assert_eq!(
            e.misere.wins(q),
            Some(misere),
            "engine's misère outcome of {q}"
        );
        let (mut children_nimbers, mut children_misere) = (0u64, 0u8);
        for c in q.children() {
            let n = self.fast.nimber(&c);
            assert!(n < 64, "nimber {n}: past the bit set");
            children_nimbers |= 1 << n;
            children_misere |= 1 << u8::from(self.fast.misere(&c));
        }
        Library {
            nimber,
            misere,
            children_nimbers,
            children_misere,
        }
    }

    /// Checks every drawing reachable from `n` spots; returns how many
    /// drawings the oracle has met in all.
    fn spots(&mut self, n: usize) -> usize {
        self.spots_on(n, 0)
    }

    /// [`Check::spots`] on the surface of Glop's topology number `g`.
    fn spots_on(&mut self, n: usize, g: i32) -> usize {
        let t = std::time::Instant::now();
        self.values(&Raw::spots(n, g).tidy());
        eprintln!(
            "{n} spots, genus {g}: {} drawings, {} canonical positions met so far, {:?}",
            self.oracle.len(),
            self.library.len(),
            t.elapsed()
        );
        self.oracle.len()
    }
}

fn mex(v: &mut [u32]) -> u32 {
    v.sort_unstable();
    let mut m = 0;
    for &x in v.iter() {
        if x == m {
            m += 1;
        } else if x > m {
            break;
        }
    }
    m
}

/// Every drawing reachable from 1 to 5 spots: 700,909 drawings (17,457
/// canonical positions) at 5 spots, in 52 s of CPU and 84 MiB in a release
/// build (the 5-spot check alone; 1 to 4 spots take 5 s).
#[test]
fn every_position_from_one_to_five_spots_agrees_with_the_oracle() {
    let mut check = Check::default();
    let mut met = 0;
    for n in 1..=5 {
        let now = check.spots(n);
        assert!(now > met, "{n} spots met no new drawing");
        met = now;
    }
}

/// Every drawing reachable from 1 to 3 spots on the torus, the double
/// torus, the projective plane and the Klein bottle, compared with the
/// library as on the plane: the oracle's surfaces are its own (cut along a
/// curve, a region loses a handle, a cross-cap, or shares its surface
/// between the two sides), its walks of a non-orientable region
/// undirected. 25,655 drawings (1,443 canonical positions), 4 s in a
/// release build.
#[test]
fn every_position_on_surfaces_agrees_with_the_oracle() {
    let mut check = Check::default();
    for g in [1, 2, -1, -2] {
        let mut met = 0;
        for n in 1..=3 {
            let now = check.spots_on(n, g);
            assert!(now > met, "{n} spots on genus {g} met no new drawing");
            met = now;
        }
    }
}

/// The same at 4 spots on the torus and the projective plane: 153,736 and
/// 113,171 more drawings, 85 s each in a release build on a loaded machine.
/// Run with `cargo test --release -p retrograde-cli --test oracle
/// surfaces_at_four -- --ignored --nocapture`.
#[test]
#[ignore = "minutes: run with --ignored"]
fn every_position_on_surfaces_at_four_spots_agrees_with_the_oracle() {
    let mut check = Check::default();
    for g in [1, -1] {
        check.spots_on(4, g);
    }
}

/// End of a land in a whole position's key.
const LAND_END: u8 = 253;

impl Raw {
    /// Whether a move is left in region `r`: a corner of a spot with at
    /// most one line (a loop), or corners of two different spots (every
    /// corner left after tidying is of a spot with at most two lines). A
    /// region's moves only grow fewer (lines are only added to its spots,
    /// and nothing but a move in it changes its walks), so a region with
    /// none never has one again and can be forgotten.
    fn region_alive(&self, r: usize) -> bool {
        let mut first = None;
        for w in &self.regions[r] {
            for &v in w {
                if self.deg[v] <= 1 || first.is_some_and(|f| f != v) {
                    return true;
                }
                first = Some(v);
            }
        }
        false
    }

    /// The independent parts of a tidied drawing: regions linked by a
    /// spot on both, regions with no move left forgotten, each part
    /// tidied on its own. A move is in one region and changes only it and
    /// its spots' lines, so parts with no spot in common are a sum of
    /// games (normal-play nimbers add by exclusive or).
    fn lands(&self) -> Vec<Raw> {
        let alive: Vec<usize> = (0..self.regions.len())
            .filter(|&r| self.region_alive(r))
            .collect();
        // Union-find over the live regions, joined through their spots.
        let mut parent: Vec<usize> = (0..alive.len()).collect();
        fn root(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let mut region_of_spot: Vec<usize> = vec![usize::MAX; self.deg.len()];
        for (i, &r) in alive.iter().enumerate() {
            for w in &self.regions[r] {
                for &v in w {
                    let j = region_of_spot[v];
                    if j != usize::MAX {
                        let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                        parent[a] = b;
                    } else {
                        region_of_spot[v] = i;
                    }
                }
            }
        }
        let mut parts: Vec<(usize, Vec<usize>)> = Vec::new();
        for (i, &r) in alive.iter().enumerate() {
            let k = root(&mut parent, i);
            match parts.iter_mut().find(|(x, _)| *x == k) {
                Some((_, rs)) => rs.push(r),
                None => parts.push((k, vec![r])),
            }
        }
        parts
            .into_iter()
            .map(|(_, rs)| {
                Raw {
                    deg: self.deg.clone(),
                    regions: rs.iter().map(|&r| self.regions[r].clone()).collect(),
                    surf: rs.iter().map(|&r| self.surf[r]).collect(),
                }
                .tidy()
            })
            .collect()
    }

    /// A land's canonical key: the least encoding over every way of
    /// writing it. Each corner is written by its spot's class (0 or 1
    /// line: `0`, `1`; two lines and no other corner in the land: `2`),
    /// a spot with two corners in the land by `3 + k` for the k-th such
    /// spot met; each walk ended by `WALK_END`, each region (after its
    /// surface's byte) by `REGION_END`. The ways tried: regions in any
    /// order, walks of a region in any order, each walk from any corner;
    /// a walk of a non-orientable region either way (it has no direction
    /// there: the moves above join and turn it both ways), and every
    /// walk of an orientable region reversed at once (its mirror image:
    /// a region's moves depend only on its own walks and its spots'
    /// lines, and the mirror of a cut is the cut of the mirror, so a
    /// region and its mirror are one game). Only the ways whose refined
    /// colours ([`Raw::colours`]) are least are tried, letters named as
    /// met, and a way is dropped as soon as its encoding passes the best
    /// one (the search bounded by `Canon::STEPS`). The
    /// drawing is rebuilt from the key up to those changes, so two lands
    /// with one key are one game.
    fn land_key(&self) -> Box<[u8]> {
        let mut occ = vec![0u8; self.deg.len()];
        for r in &self.regions {
            for w in r {
                for &v in w {
                    occ[v] += 1;
                }
            }
        }
        let class = |v: usize| -> u8 {
            match self.deg[v] {
                d @ (0 | 1) => d,
                _ if occ[v] == 1 => 2,
                _ => 3,
            }
        };
        let classes: Vec<u8> = (0..self.deg.len()).map(class).collect();
        // The writings tried are those least by refined colours (each
        // spot's class refined by what surrounds it), not by classes
        // alone: fewer ties, so far fewer writings to compare.
        let col = self.colours(&classes);
        let seq = |w: &[usize]| -> Vec<u64> { w.iter().map(|&v| col[v]).collect() };
        let lettered = |w: &[usize]| w.iter().any(|&v| classes[v] == 3);
        // Every least writing of one walk: its classes, and each rotation
        // (and reversal, when allowed) that gives them.
        let walk = |w: &Vec<usize>, both_ways: bool| -> WalkC {
            let mut ways = vec![w.clone()];
            if both_ways {
                ways.push(w.iter().rev().copied().collect());
            }
            let mut best: Option<Vec<u64>> = None;
            let mut rots: Vec<Vec<usize>> = Vec::new();
            for x in &ways {
                for s in 0..x.len() {
                    let mut r = x[s..].to_vec();
                    r.extend_from_slice(&x[..s]);
                    keep_least(&mut best, &mut rots, seq(&r), r);
                }
            }
            let sig = best.unwrap_or_default();
            // With no letter, every least writing encodes the same (a
            // colour determines the class).
            let letters = lettered(w);
            if !letters {
                rots.truncate(1);
            }
            WalkC { sig, rots, letters }
        };
        let mut regions = Vec::new();
        for (r, s) in self.regions.iter().zip(&self.surf) {
            let surf = u8::from(s.cross) << 7 | s.n as u8;
            let mut variants: Vec<Vec<WalkC>> = Vec::new();
            let mut sig: Option<Vec<Vec<u64>>> = None;
            let mirrors: Vec<Vec<Vec<usize>>> = if s.cross {
                vec![r.clone()]
            } else {
                vec![
                    r.clone(),
                    r.iter()
                        .map(|w| w.iter().rev().copied().collect())
                        .collect(),
                ]
            };
            for m in &mirrors {
                let mut ws: Vec<WalkC> = m.iter().map(|w| walk(w, s.cross)).collect();
                ws.sort_by(|a, b| a.sig.cmp(&b.sig));
                let g: Vec<Vec<u64>> = ws.iter().map(|w| w.sig.clone()).collect();
                keep_least(&mut sig, &mut variants, g, ws);
            }
            let sig = sig.unwrap_or_default();
            let letters = r.iter().any(|w| lettered(w));
            if !letters {
                variants.truncate(1);
            }
            regions.push(RegionC {
                sig: (surf, sig),
                variants,
                letters,
            });
        }
        regions.sort_by(|a, b| a.sig.cmp(&b.sig));
        let mut c = Canon {
            label: vec![0; self.deg.len()],
            next: 3,
            cur: Vec::new(),
            best: None,
            used: vec![false; regions.len()],
            class: classes,
            steps: 0,
        };
        c.region(&regions, 0, false);
        c.best.expect("a land has a writing").into()
    }
}

/// Mixes `x` into the hash `h` (splitmix64's finaliser): a fixed
/// function, so that colours, and the order they give, are the same in
/// every run.
fn mix(h: u64, x: u64) -> u64 {
    let mut z = h ^ x.wrapping_add(0x9E37_79B9_7F4A_7C15).wrapping_add(h << 6);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Raw {
    /// Each spot's class refined by what surrounds its corners (colour
    /// refinement): a corner's context is its region's surface and
    /// multiset of walks, its walk's multiset of corners, and its two
    /// neighbours along the walk as an unordered pair, all in the colours
    /// of the round before. Each is unchanged by every rewriting the land
    /// key allows (regions and walks reordered, walks rotated, reversed
    /// or mirrored), so equal lands give their spots equal colours, and
    /// the writings least by colours are the same set for both; the
    /// colours are only compared, never written, so a collision of the
    /// hash only merges two colours (fewer ties broken), never two lands.
    /// A colour determines the class (its first ingredient).
    fn colours(&self, class: &[u8]) -> Vec<u64> {
        let n = self.deg.len();
        let mut col: Vec<u64> = class.iter().map(|&c| u64::from(c)).collect();
        let mut ctx: Vec<Vec<u64>> = vec![Vec::new(); n];
        let mut corners: Vec<u64> = Vec::new();
        let mut walks: Vec<u64> = Vec::new();
        let mut groups = 0;
        for _ in 0..4 {
            for c in &mut ctx {
                c.clear();
            }
            for (r, s) in self.regions.iter().zip(&self.surf) {
                walks.clear();
                for w in r {
                    corners.clear();
                    let len = w.len();
                    for i in 0..len {
                        let (p, q) = (col[w[(i + len - 1) % len]], col[w[(i + 1) % len]]);
                        corners.push(mix(mix(col[w[i]], p.min(q)), p.max(q)));
                    }
                    corners.sort_unstable();
                    walks.push(corners.iter().fold(len as u64, |h, &c| mix(h, c)));
                }
                let whash: Vec<u64> = walks.clone();
                walks.sort_unstable();
                let rh = walks
                    .iter()
                    .fold(u64::from(s.cross) << 32 | u64::from(s.n), |h, &x| mix(h, x));
                for (w, &wh) in r.iter().zip(&whash) {
                    let len = w.len();
                    for i in 0..len {
                        let (p, q) = (col[w[(i + len - 1) % len]], col[w[(i + 1) % len]]);
                        ctx[w[i]].push(mix(mix(mix(rh, wh), p.min(q)), p.max(q)));
                    }
                }
            }
            let mut next: Vec<u64> = Vec::with_capacity(n);
            for v in 0..n {
                ctx[v].sort_unstable();
                next.push(
                    ctx[v]
                        .iter()
                        .fold(mix(u64::from(class[v]), col[v]), |h, &x| mix(h, x)),
                );
            }
            col = next;
            let mut distinct = col.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if distinct.len() == groups {
                break;
            }
            groups = distinct.len();
        }
        col
    }
}

/// Keeps in `all` every candidate whose key is the least met so far
/// (`least`): a smaller key starts the list again, an equal one joins it.
fn keep_least<K: Ord, T>(least: &mut Option<K>, all: &mut Vec<T>, key: K, t: T) {
    match least {
        Some(b) if key > *b => {}
        Some(b) if key == *b => all.push(t),
        _ => {
            *least = Some(key);
            *all = vec![t];
        }
    }
}

/// One walk's least writings: its classes and every corner (and way) to
/// start it from that gives them.
struct WalkC {
    sig: Vec<u64>,
    rots: Vec<Vec<usize>>,
    /// Whether a spot of the walk is written by a letter.
    letters: bool,
}

/// One region's least writings: its surface and walks' classes, and its
/// walks as they are and mirrored, when both give those.
struct RegionC {
    sig: (u8, Vec<Vec<u64>>),
    variants: Vec<Vec<WalkC>>,
    /// Whether a spot of the region is written by a letter.
    letters: bool,
}

/// The search for a land's least encoding.
struct Canon {
    /// The letter given to a spot so far (0: none yet).
    label: Vec<u8>,
    next: u8,
    cur: Vec<u8>,
    best: Option<Vec<u8>>,
    used: Vec<bool>,
    class: Vec<u8>,
    /// Steps of the search so far: past `Canon::STEPS`, once a writing is
    /// found, no other is tried.
    steps: u32,
}

impl Canon {
    /// The search's bound. Writings tied by colours are almost always the
    /// same land's symmetries (equal encodings, every one of them walked
    /// to its end); past this many steps the least writing found so far
    /// is the key. Any writing of the land is a sound key (it rebuilds
    /// the land), so a land whose search is cut may get a second key
    /// (met again, searched again), never a wrong one.
    const STEPS: u32 = 4096;

    /// Writes byte `b`; false when the encoding so far is past the best
    /// (`less`: already below it, updated).
    fn push(&mut self, b: u8, less: &mut bool) -> bool {
        self.cur.push(b);
        if *less {
            return true;
        }
        match &self.best {
            None => {
                *less = true;
                true
            }
            Some(best) => {
                let i = self.cur.len() - 1;
                match b.cmp(&best[i]) {
                    std::cmp::Ordering::Greater => false,
                    std::cmp::Ordering::Less => {
                        *less = true;
                        true
                    }
                    std::cmp::Ordering::Equal => true,
                }
            }
        }
    }

    /// Regions from slot `i` on (slot i holds a region of the i-th least
    /// classes).
    fn region(&mut self, regions: &[RegionC], i: usize, less: bool) {
        if i == regions.len() {
            if less {
                self.best = Some(self.cur.clone());
            }
            return;
        }
        for r in 0..regions.len() {
            if self.used[r] || regions[r].sig != regions[i].sig {
                continue;
            }
            if !regions[r].letters
                && (0..r).any(|x| !self.used[x] && regions[x].sig == regions[r].sig)
            {
                continue;
            }
            self.used[r] = true;
            for v in &regions[r].variants {
                let len = self.cur.len();
                let mut l = less;
                if self.push(regions[r].sig.0, &mut l) {
                    let mut taken = vec![false; v.len()];
                    self.walks(regions, i, v, &mut taken, 0, l);
                }
                self.cur.truncate(len);
            }
            self.used[r] = false;
        }
    }

    /// Walks of the region in slot `i` from walk slot `j` on.
    fn walks(
        &mut self,
        regions: &[RegionC],
        i: usize,
        v: &[WalkC],
        taken: &mut [bool],
        j: usize,
        less: bool,
    ) {
        if j == v.len() {
            let len = self.cur.len();
            let mut l = less;
            if self.push(REGION_END, &mut l) {
                self.region(regions, i + 1, l);
            }
            self.cur.truncate(len);
            return;
        }
        self.steps += 1;
        if self.steps > Canon::STEPS && self.best.is_some() {
            return;
        }
        for w in 0..v.len() {
            if taken[w] || v[w].sig != v[j].sig {
                continue;
            }
            // Walks with no letter and the same classes encode the same
            // in any order: the first one free stands for all.
            if !v[w].letters && (0..w).any(|x| !taken[x] && v[x].sig == v[w].sig) {
                continue;
            }
            taken[w] = true;
            for rot in &v[w].rots {
                let len = self.cur.len();
                let next = self.next;
                let mut l = less;
                let mut ok = true;
                for &x in rot {
                    let b = if self.class[x] < 3 {
                        self.class[x]
                    } else {
                        if self.label[x] == 0 {
                            assert!(self.next < LAND_END, "too many letters");
                            self.label[x] = self.next;
                            self.next += 1;
                        }
                        self.label[x]
                    };
                    if !self.push(b, &mut l) {
                        ok = false;
                        break;
                    }
                }
                if ok && self.push(WALK_END, &mut l) {
                    self.walks(regions, i, v, taken, j + 1, l);
                }
                // The letters named by this walk are those from `next` on.
                for &x in rot {
                    if self.label[x] >= next {
                        self.label[x] = 0;
                    }
                }
                self.next = next;
                self.cur.truncate(len);
            }
            taken[w] = false;
        }
    }
}

/// A drawing split into its lands, each with its key, sorted by key.
struct Split {
    lands: Vec<(Box<[u8]>, Raw)>,
}

impl Split {
    fn of(p: &Raw) -> Split {
        let mut lands: Vec<(Box<[u8]>, Raw)> =
            p.lands().into_iter().map(|l| (l.land_key(), l)).collect();
        lands.sort_by(|a, b| a.0.cmp(&b.0));
        Split { lands }
    }

    /// The whole position's key: the lands' keys in order.
    fn key(&self) -> Box<[u8]> {
        let mut k = Vec::new();
        for (l, _) in &self.lands {
            k.extend_from_slice(l);
            k.push(LAND_END);
        }
        k.into()
    }

    /// Every position one move leads to: a move in one land, the others
    /// kept.
    fn children(&self) -> Vec<Split> {
        let mut out = Vec::new();
        for (i, (_, l)) in self.lands.iter().enumerate() {
            for c in l.children() {
                let mut lands: Vec<(Box<[u8]>, Raw)> = self
                    .lands
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, x)| (x.0.clone(), x.1.clone()))
                    .collect();
                lands.extend(c.lands().into_iter().map(|l| (l.land_key(), l)));
                lands.sort_by(|a, b| a.0.cmp(&b.0));
                out.push(Split { lands });
            }
        }
        out
    }
}

/// The oracle's values by lands: normal-play nimbers of lands by mex,
/// memoised on the land's key, and misère outcomes of whole positions
/// (misère values do not add), memoised on the position's key. Nothing
/// of the library's is used.
#[derive(Default)]
struct Lands {
    nimber: HashMap<Box<[u8]>, u8>,
    misere: HashMap<Box<[u8]>, bool>,
}

impl Lands {
    /// The normal-play nimber of a tidied land.
    fn land_nimber(&mut self, key: &[u8], l: &Raw) -> u8 {
        if let Some(&n) = self.nimber.get(key) {
            return n;
        }
        let mut seen = 0u64;
        for c in l.children() {
            seen |= 1 << self.nimber_of(&Split::of(&c));
        }
        let n = (!seen).trailing_zeros();
        assert!(n < 64, "nimber {n}: past the bit set");
        self.nimber.insert(key.into(), n as u8);
        n as u8
    }

    /// The normal-play nimber of a position: its lands' nimbers added.
    fn nimber_of(&mut self, p: &Split) -> u8 {
        p.lands
            .iter()
            .fold(0, |a, (k, l)| a ^ self.land_nimber(k, l))
    }

    /// Whether the mover wins `p` under misère play: no move left, or a
    /// move to a position whose mover loses (those already known are
    /// looked for first).
    fn misere_wins(&mut self, p: &Split) -> bool {
        let key = p.key();
        if let Some(&w) = self.misere.get(&key) {
            return w;
        }
        let kids = p.children();
        let keys: Vec<Box<[u8]>> = kids.iter().map(Split::key).collect();
        let mut w = kids.is_empty() || keys.iter().any(|k| self.misere.get(k) == Some(&false));
        if !w {
            // A child may have become known while an earlier one was
            // computed: each is asked again (known ones answer at once).
            for c in &kids {
                if !self.misere_wins(c) {
                    w = true;
                    break;
                }
            }
        }
        self.misere.insert(key, w);
        w
    }
}

/// The oracle by lands from `n` spots on genus `g`: (nimber, misère win),
/// with its time, printed.
fn oracle_start(o: &mut Lands, n: usize, g: i32, misere: bool) -> (u8, Option<bool>) {
    let t = std::time::Instant::now();
    let p = Split::of(&Raw::spots(n, g).tidy());
    let nim = o.nimber_of(&p);
    let t1 = t.elapsed();
    let mis = misere.then(|| o.misere_wins(&p));
    eprintln!(
        "oracle {n} spots genus {g}: nimber {nim} ({t1:?}, {} lands), misère {mis:?} ({:?}, {} positions)",
        o.nimber.len(),
        t.elapsed() - t1,
        o.misere.len()
    );
    (nim, mis)
}

/// The library's values of `0*N` on genus `g` from its own start and
/// search engines: (nimber, whether the mover wins misère).
fn library_start(e: &mut Engines, n: u32, g: i32) -> (u32, bool) {
    let p = Sprouts::new(n, false)
        .and_then(|s| s.on_surface(g))
        .expect("a valid spec")
        .start();
    let nimber = e.normal.nimber(&p).expect("no stop");
    assert_eq!(
        e.normal.wins(&p),
        Some(nimber != 0),
        "engine's outcome of {p}"
    );
    (nimber, e.misere.wins(&p).expect("no stop"))
}

/// The start from `n` spots on genus `g`, by the oracle by lands and by
/// the library: normal-play nimbers and misère outcomes must agree.
fn start_agrees(o: &mut Lands, e: &mut Engines, n: usize, g: i32) {
    let (nimber, misere) = oracle_start(o, n, g, true);
    let lib = library_start(e, n as u32, g);
    assert_eq!(
        (u32::from(nimber), misere),
        (lib.0, Some(lib.1)),
        "0*{n} on genus {g}: (nimber, misère win), oracle against library"
    );
}

/// The start from 1 to 3 spots on the plane and the four surfaces, by the
/// oracle by lands (its own keys, no library call for its values) and by
/// the library's search engines. Under a second in a release build.
#[test]
fn starts_by_lands_agree_with_the_library() {
    let mut e = Engines::default();
    for g in [0, 1, 2, -1, -2] {
        let mut o = Lands::default();
        for n in 1..=3 {
            start_agrees(&mut o, &mut e, n, g);
        }
    }
}

/// The same at 4 spots on every surface and 5 on the plane (SURFACE_SPOTS
/// to go further). Run with `cargo test --release -p retrograde-cli --test
/// oracle starts_by_lands_further -- --ignored --nocapture`; times in
/// docs/SPROUTS-SURFACES.md.
#[test]
#[ignore = "minutes: run with --ignored"]
fn starts_by_lands_further_agree_with_the_library() {
    let most: usize = std::env::var("SURFACE_SPOTS").map_or(4, |s| s.parse().expect("a number"));
    let mut e = Engines::default();
    for g in [0, 1, 2, -1, -2] {
        let mut o = Lands::default();
        let top = if g == 0 { most.max(5) } else { most };
        for n in 1..=top {
            start_agrees(&mut o, &mut e, n, g);
        }
    }
}

/// A small generator of pseudo-random numbers (xorshift), fixed seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// `p` after random moves, until at most `stop` lives are left or no
    /// move is.
    fn walk(&mut self, mut p: Raw, stop: u32) -> Raw {
        while p.lives() > stop {
            let kids = p.children();
            if kids.is_empty() {
                break;
            }
            p = kids[self.below(kids.len())].clone();
        }
        p
    }
}

impl Raw {
    /// Lives left in the drawing: 3 less the lines, over spots still on a
    /// walk.
    fn lives(&self) -> u32 {
        let mut seen = vec![false; self.deg.len()];
        let mut lives = 0;
        for r in &self.regions {
            for w in r {
                for &v in w {
                    if !seen[v] {
                        seen[v] = true;
                        lives += 3 - u32::from(self.deg[v]);
                    }
                }
            }
        }
        lives
    }
}

/// Positions reached by random moves (the oracle's) from 5 to 8 spots on
/// the four surfaces, played until a few lives are left: at each, the
/// oracle by lands and the library (the position written in Glop's
/// notation, values by its engines) must give the same nimber and misère
/// outcome, and the same sets of its children's values. 320 positions;
/// 13 s in a release build at load 6.
#[test]
fn random_positions_on_surfaces_agree_with_the_oracle_by_lands() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut e = Engines::default();
    let mut o = Lands::default();
    let mut checked = 0;
    for g in [1, 2, -1, -2] {
        for n in 5..=8 {
            for _ in 0..20 {
                let stop = 5 + rng.below(6) as u32;
                let p = rng.walk(Raw::spots(n, g).tidy(), stop);
                let text = p.glop();
                let q = Position::parse(&text).unwrap_or_else(|err| panic!("{text}: {err}"));
                let split = Split::of(&p);
                let nimber = u32::from(o.nimber_of(&split));
                let misere = o.misere_wins(&split);
                assert_eq!(e.normal.nimber(&q), Some(nimber), "nimber of {text} ({q})");
                assert_eq!(
                    e.misere.wins(&q),
                    Some(misere),
                    "misère outcome of {text} ({q})"
                );
                let (mut mine, mut lib) = ((0u64, 0u8), (0u64, 0u8));
                for c in split.children() {
                    mine.0 |= 1 << o.nimber_of(&c);
                    mine.1 |= 1 << u8::from(o.misere_wins(&c));
                }
                for c in q.children() {
                    lib.0 |= 1 << e.normal.nimber(&c).expect("no stop");
                    lib.1 |= 1 << u8::from(e.misere.wins(&c).expect("no stop"));
                }
                assert_eq!(mine, lib, "children's values of {text} ({q}), as bit sets");
                checked += 1;
            }
        }
    }
    eprintln!(
        "{checked} random positions checked, {} lands known",
        o.nimber.len()
    );
}

/// The oracle by lands alone from 1 to SPOTS spots on GENUS (MISERE set:
/// misère too), with its times and sizes: `SPOTS=4 GENUS=-2 MISERE=1
/// cargo test --release -p retrograde-cli --test oracle
/// oracle_by_lands_profile -- --ignored --nocapture`.
#[test]
#[ignore = "profiling"]
fn oracle_by_lands_profile() {
    let n: usize = std::env::var("SPOTS").map_or(5, |s| s.parse().unwrap());
    let g: i32 = std::env::var("GENUS").map_or(1, |s| s.parse().unwrap());
    let mis = std::env::var("MISERE").is_ok();
    let mut o = Lands::default();
    for k in 1..=n {
        oracle_start(&mut o, k, g, mis);
    }
}

/// A hint of a land's nimber from the library (its text in Glop's
/// notation, read and searched by the library's engine): only orders the
/// oracle's children.
fn library_hint() -> Hint<u8> {
    let mut e = Engines::default();
    Box::new(move |l: &Raw| {
        let q = Position::parse(&l.glop()).ok()?;
        e.normal.nimber(&q).and_then(|n| u8::try_from(n).ok())
    })
}

/// A hint of a position's misère outcome from the library.
fn library_misere_hint() -> Hint<bool> {
    let mut e = Engines::default();
    Box::new(move |p: &Raw| {
        let q = Position::parse(&p.glop()).ok()?;
        e.misere.wins(&q)
    })
}

/// The oracle's couples search and misère search (`couples.rs`) against
/// the oracle by lands (every land's nimber by mex, misère on every
/// child; no cutoff, no hint): the starts from 1 to 3 spots on the plane
/// and the four surfaces, 4 spots on the plane, and 80 positions reached
/// by random moves from 5 to 8 spots on the four surfaces. At each, the
/// outcome of the position plus `*k` for k from 0 to 3 must be
/// `nimber != k`, the exact nimbers and the misère outcomes must agree,
/// with no hint, with a hint that guesses wrong, and with the library's
/// hint (a hint only orders the children).
#[test]
fn couples_agree_with_the_oracle_by_lands() {
    let mut positions = Vec::new();
    for g in [0, 1, 2, -1, -2] {
        for n in 1..=3 {
            positions.push(Raw::spots(n, g).tidy());
        }
    }
    positions.push(Raw::spots(4, 0).tidy());
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for g in [1, 2, -1, -2] {
        for n in 5..=8 {
            for _ in 0..5 {
                let stop = 5 + rng.below(5) as u32;
                let p = rng.walk(Raw::spots(n, g).tidy(), stop);
                positions.push(p);
            }
        }
    }
    let mut lands = Lands::default();
    let hints: [fn() -> Option<Hint<u8>>; 3] = [
        || None,
        || Some(Box::new(|l: &Raw| Some((l.lives() % 3) as u8))),
        || Some(library_hint()),
    ];
    let misere_hints: [fn() -> Option<Hint<bool>>; 3] = [
        || None,
        || Some(Box::new(|l: &Raw| Some(l.lives().is_multiple_of(2)))),
        || Some(library_misere_hint()),
    ];
    for (hint, misere_hint) in hints.iter().zip(&misere_hints) {
        for p in &positions {
            let split = Split::of(p);
            let nimber = lands.nimber_of(&split);
            let misere = lands.misere_wins(&split);
            // A fresh search per position, so that its cutoffs are
            // exercised from an empty memo.
            let mut c = Couples::with(hint());
            for k in 0..4 {
                assert_eq!(
                    c.wins_with(&split, k),
                    nimber != k,
                    "{} + *{k}: couples against the nimber {nimber}",
                    p.glop()
                );
            }
            assert_eq!(c.nimber_of(&split), nimber, "nimber of {}", p.glop());
            let mut m = MisereSearch::with(misere_hint());
            assert_eq!(m.wins(&split, p), misere, "misère outcome of {}", p.glop());
        }
    }
}

/// The start `0*N` on genus `g` by the couples search: whether the mover
/// wins under normal play, with its time printed.
fn couples_start(c: &mut Couples, n: usize, g: i32) -> bool {
    let t = std::time::Instant::now();
    let p = Split::of(&Raw::spots(n, g).tidy());
    let w = c.wins_with(&p, 0);
    eprintln!(
        "couples {n} spots genus {g}: {} ({:?}, {} couples searched, {} lands known)",
        if w { "W" } else { "L" },
        t.elapsed(),
        c.nodes,
        c.lands()
    );
    w
}

/// The start `0*N` on genus `g` by the misère search, with its time.
fn misere_start(m: &mut MisereSearch, n: usize, g: i32) -> bool {
    let t = std::time::Instant::now();
    let p = Raw::spots(n, g).tidy();
    let w = m.wins(&Split::of(&p), &p);
    eprintln!(
        "misère {n} spots genus {g}: {} ({:?}, {} positions searched, {} known)",
        if w { "W" } else { "L" },
        t.elapsed(),
        m.nodes,
        m.known()
    );
    w
}

/// The starts from 1 to SURFACE_SPOTS spots (default `spots`) on genus
/// GENUS (default: the given ones in turn), normal play, by the oracle's
/// couples search, and misère from 1 to MISERE_SPOTS spots (default
/// `spots`),
/// against the library's search engines. The library's hint orders the
/// oracle's children unless ORACLE_BLIND is set.
fn starts_by_couples(default_genera: &[i32], spots: usize) {
    let var = |v: &str, d: usize| std::env::var(v).map_or(d, |s| s.parse().expect("a number"));
    let (most, misere) = (var("SURFACE_SPOTS", spots), var("MISERE_SPOTS", spots));
    let genera: Vec<i32> = std::env::var("GENUS").map_or(default_genera.to_vec(), |s| {
        vec![s.parse().expect("a number")]
    });
    let blind = std::env::var("ORACLE_BLIND").is_ok();
    let mut e = Engines::default();
    for g in genera {
        let mut c = Couples::with((!blind).then(library_hint));
        let mut m = MisereSearch::with((!blind).then(library_misere_hint));
        for n in 1..=most.max(misere) {
            let p = Sprouts::new(n as u32, false)
                .and_then(|s| s.on_surface(g))
                .expect("a valid spec")
                .start();
            if n <= most {
                let w = couples_start(&mut c, n, g);
                assert_eq!(
                    e.normal.wins(&p),
                    Some(w),
                    "0*{n} on genus {g}: normal-play outcome, oracle against library"
                );
            }
            if n <= misere {
                let w = misere_start(&mut m, n, g);
                assert_eq!(
                    e.misere.wins(&p),
                    Some(w),
                    "0*{n} on genus {g}: misère outcome, oracle against library"
                );
            }
        }
    }
}
/// The starts from 1 to 5 spots on the torus and the double torus,
/// normal play and misère. `cargo test --release -p retrograde-cli --test
/// oracle starts_by_couples_orientable -- --ignored --nocapture`
/// (SURFACE_SPOTS=n, MISERE_SPOTS=n, GENUS=g to choose): about 10 s for
/// the torus and 17 s for the double torus at load 7–9.
#[test]
#[ignore = "minutes: run with --ignored"]
fn starts_by_couples_orientable_agree_with_the_library() {
    starts_by_couples(&[1, 2], 5);
}

/// The starts from 1 to 5 spots on the projective plane and the Klein
/// bottle, normal play and misère: `cargo test --release -p
/// retrograde-cli --test oracle starts_by_couples_non_orientable --
/// --ignored --nocapture` (about 40 s and 110 s at load 7–9).
#[test]
#[ignore = "minutes: run with --ignored"]
fn starts_by_couples_non_orientable_agree_with_the_library() {
    starts_by_couples(&[-1, -2], 5);
}
