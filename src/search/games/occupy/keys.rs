//! Canonical keys: a position's key is the least of its images under the
//! board's symmetries, compared as the pair (x's squares, o's squares),
//! word 0 first. The key is the canonical board itself, not a hash of it:
//! two positions share a key exactly when a symmetry maps one onto the
//! other, so the transposition table can never confuse two positions, and
//! a proof database names each key's position by reading the key back.
//!
//! Computing it from scratch maps the position through every symmetry (48
//! for Qubic). A node's children differ from it by one piece, so the
//! expansion maps the node once ([`NodeImages`]: each image of x's and of
//! o's squares, and the symmetries sorted by the image of x's squares) and
//! each child's key follows from a few of them ([`NodeImages::child`]):
//!
//! - o moves: x's images do not change, so only the symmetries giving the
//!   least image of x's squares (usually one) can give the least child.
//! - x moves: each image of x's squares gains one square, and so grows; in
//!   the sorted order, once an image of x's squares (before the move) is
//!   no smaller than the best child's so far, neither it nor any later one
//!   can give a smaller child, and the scan stops.

use super::{or, Bits};

/// The symmetries of a board as bit tables.
pub(super) struct Symmetries<const W: usize> {
    /// Symmetries, the identity first.
    count: usize,
    /// `image[s · count + g]`: square `s`'s image under symmetry `g`, as a
    /// bitboard.
    image: Vec<Bits<W>>,
}

impl<const W: usize> Symmetries<W> {
    pub fn new(perms: &[Vec<u16>], squares: usize) -> Symmetries<W> {
        let count = perms.len();
        let mut image = vec![[0u64; W]; squares * count];
        for (g, p) in perms.iter().enumerate() {
            for s in 0..squares {
                image[s * count + g] = super::bit(p[s] as usize);
            }
        }
        Symmetries { count, image }
    }

    /// Square `s`'s images, one per symmetry.
    #[inline(always)]
    fn of(&self, s: usize) -> &[Bits<W>] {
        &self.image[s * self.count..(s + 1) * self.count]
    }

    /// The image of one player's squares under symmetry `g`.
    #[inline]
    fn map_one(&self, set: &Bits<W>, g: usize) -> Bits<W> {
        let mut out = [0u64; W];
        super::for_each(set, |s| out = or(&out, &self.image[s * self.count + g]));
        out
    }

    /// The canonical key of a position, from scratch.
    pub fn canonical(&self, stones: &[Bits<W>; 2]) -> [Bits<W>; 2] {
        let node = NodeImages::new(self, stones);
        [node.x[node.order[0] as usize], node.least_o]
    }
}

/// A node's images under every symmetry, for its children's keys: every
/// image of x's squares, and of o's only those the keys need (o's images
/// decide only between equal images of x's squares).
pub(super) struct NodeImages<const W: usize> {
    /// Per symmetry, the image of x's squares.
    x: Vec<Bits<W>>,
    /// The symmetries in increasing order of `x`'s image.
    order: Vec<u16>,
    /// The symmetries giving the least image of x's squares (a prefix of
    /// `order`), with their images of o's squares.
    least: Vec<(u16, Bits<W>)>,
    /// The least of those images of o's squares: the node's key is
    /// `(x[order[0]], least_o)`.
    least_o: Bits<W>,
    /// o's squares.
    o: Bits<W>,
}

impl<const W: usize> NodeImages<W> {
    pub fn new(sym: &Symmetries<W>, stones: &[Bits<W>; 2]) -> NodeImages<W> {
        let mut x = vec![[0u64; W]; sym.count];
        super::for_each(&stones[0], |s| {
            for (o, b) in x.iter_mut().zip(sym.of(s)) {
                *o = or(o, b);
            }
        });
        let mut order: Vec<u16> = (0..sym.count as u16).collect();
        order.sort_unstable_by_key(|&g| x[g as usize]);
        let x0 = x[order[0] as usize];
        let least: Vec<(u16, Bits<W>)> = order
            .iter()
            .take_while(|&&g| x[g as usize] == x0)
            .map(|&g| (g, sym.map_one(&stones[1], g as usize)))
            .collect();
        let least_o = least.iter().map(|l| l.1).min().expect("the identity");
        NodeImages {
            x,
            order,
            least,
            least_o,
            o: stones[1],
        }
    }

    /// The key of the child where `mover` (0 x, 1 o) takes the empty
    /// square `s`.
    #[inline]
    pub fn child(&self, sym: &Symmetries<W>, mover: usize, s: usize) -> [Bits<W>; 2] {
        let images = sym.of(s);
        if mover == 1 {
            // x's images are the node's: only the symmetries giving the
            // least of them can give the least child.
            let x = self.x[self.order[0] as usize];
            let mut o = [u64::MAX; W];
            for &(g, og) in &self.least {
                o = o.min(or(&og, &images[g as usize]));
            }
            [x, o]
        } else {
            let first = self.order[0] as usize;
            let mut best_x = or(&self.x[first], &images[first]);
            let mut best_g = first;
            // o's image of the best so far, once a tie needed it.
            let mut best_o: Option<Bits<W>> = None;
            for &g in &self.order[1..] {
                let g = g as usize;
                // Every later image of x's squares is at least this one,
                // and gains a square it lacks: none can beat the best.
                if self.x[g] >= best_x {
                    break;
                }
                let cand = or(&self.x[g], &images[g]);
                if cand < best_x {
                    (best_x, best_g, best_o) = (cand, g, None);
                } else if cand == best_x {
                    let mine = best_o.unwrap_or_else(|| sym.map_one(&self.o, best_g));
                    let theirs = sym.map_one(&self.o, g);
                    best_o = Some(mine.min(theirs));
                }
            }
            [
                best_x,
                best_o.unwrap_or_else(|| sym.map_one(&self.o, best_g)),
            ]
        }
    }
}
