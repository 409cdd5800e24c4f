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
//! o's squares) and each child's key follows from a few of them
//! ([`NodeImages::child`]):
//!
//! - o moves: x's images do not change, so only the symmetries giving the
//!   least image of x's squares (usually one) can give the least child.
//! - x moves: each image of x's squares gains the image of the square
//!   taken. A bitboard's order is decided first by its most significant
//!   square, and an image's most significant square after the move is the
//!   more significant of its own before the move and the new square's
//!   image. With each square's *rank* (its significance), the least child
//!   comes from the symmetries `g` for which `max(top(x_g), rank(g(s)))` is
//!   least: the smallest `L` for which some `g` has both `top(x_g) ≤ L`
//!   (a set of symmetries the node computes once per `L`) and
//!   `rank(g(s)) ≤ L` (a set the board computes once per square and `L`).
//!   Each set is a word per 64 symmetries (Qubic's 192: three), so a
//!   child's candidates are an AND of two words per 64 symmetries (rarely
//!   at a few ranks), and only those candidates' images are compared whole.

use super::{or, Bits};

/// The significance of square `s` in the order of bitboards of `W` words
/// (word 0 first, each word's high bit first): 0 least significant.
#[inline(always)]
fn rank<const W: usize>(s: usize) -> u8 {
    ((W - 1 - s / 64) * 64 + s % 64) as u8
}

/// The rank of a bitboard's most significant square (0 for no square: an
/// empty image gains its first square, whose rank is then the maximum).
#[inline(always)]
fn top<const W: usize>(b: &Bits<W>) -> u8 {
    for (w, &word) in b.iter().enumerate() {
        if word != 0 {
            return ((W - 1 - w) * 64 + 63 - word.leading_zeros() as usize) as u8;
        }
    }
    0
}

/// The symmetries of a board as bit tables.
pub(super) struct Symmetries<const W: usize> {
    /// Symmetries, the identity first.
    count: usize,
    /// `image[s · count + g]`: square `s`'s image under symmetry `g`, as a
    /// bitboard.
    image: Vec<Bits<W>>,
    /// Words in a set of symmetries (one bit each): ⌈count / 64⌉.
    masks: usize,
    /// `reach[(s · 64W + L) · masks + w]`: word `w` of the set of
    /// symmetries `g` under which square `s`'s image has rank at most `L`;
    /// `low[s]` is the least rank of square `s`'s images. Empty for
    /// [`FEW`] symmetries or fewer.
    reach: Vec<u64>,
    low: Vec<u8>,
}

impl<const W: usize> Symmetries<W> {
    /// Ranks of a board of `W` words.
    const RANKS: usize = 64 * W;

    pub fn new(perms: &[Vec<u16>], squares: usize) -> Symmetries<W> {
        let count = perms.len();
        let mut image = vec![[0u64; W]; squares * count];
        let mut rank = vec![0u8; squares * count];
        for (g, p) in perms.iter().enumerate() {
            for s in 0..squares {
                image[s * count + g] = super::bit(p[s] as usize);
                rank[s * count + g] = self::rank::<W>(p[s] as usize);
            }
        }
        let masks = count.div_ceil(64);
        let (mut reach, mut low) = (Vec::new(), Vec::new());
        if count > FEW {
            reach = vec![0u64; squares * Self::RANKS * masks];
            low = vec![u8::MAX; squares];
            for s in 0..squares {
                for g in 0..count {
                    let r = rank[s * count + g];
                    low[s] = low[s].min(r);
                    for l in r as usize..Self::RANKS {
                        reach[(s * Self::RANKS + l) * masks + g / 64] |= 1 << (g % 64);
                    }
                }
            }
        }
        Symmetries {
            count,
            masks,
            image,
            reach,
            low,
        }
    }

    /// Square `s`'s images, one per symmetry.
    #[inline(always)]
    fn of(&self, s: usize) -> &[Bits<W>] {
        &self.image[s * self.count..(s + 1) * self.count]
    }

    /// Every image of one player's squares, into `out` (one entry per
    /// symmetry).
    fn map_all(&self, set: &Bits<W>, out: &mut [Bits<W>]) {
        out.fill([0; W]);
        super::for_each(set, |s| {
            for (o, b) in out.iter_mut().zip(self.of(s)) {
                *o = or(o, b);
            }
        });
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
        let node = NodeImages::new(self, stones, 1);
        [node.least_x, node.least_o]
    }
}

/// The vectors of a [`NodeImages`], kept per thread between nodes (as
/// the boards' are): allocating and freeing them at every expansion cost
/// as much as the images on boards with few symmetries (Connect-Four's
/// two). Bitboards are stored as their words, `W` per board, so that one
/// pool serves every width.
#[derive(Default)]
struct ImageBuffers {
    x: Vec<u64>,
    o: Vec<u64>,
    top: Vec<u8>,
    below: Vec<u64>,
    least: Vec<u16>,
    least_o: Vec<u64>,
}

thread_local! {
    static POOL: std::cell::RefCell<Vec<ImageBuffers>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Symmetries few enough (Connect-Four's 2, a square board's 8) that a
/// child's key compares every image rather than first narrowing them by
/// rank: the narrowing's tables cost more than the comparisons.
const FEW: usize = 8;

/// A vector of `n` bitboards of `W` words, zeroed, from a pooled vector.
fn boards<const W: usize>(v: &mut Vec<u64>, n: usize) -> &mut [Bits<W>] {
    v.clear();
    v.resize(n * W, 0);
    v.as_chunks_mut::<W>().0
}

/// A node's images under every symmetry, for its children's keys: every
/// image of x's squares, and of o's those the keys need (o's images decide
/// only between equal images of x's squares).
pub(super) struct NodeImages<const W: usize> {
    /// Per symmetry, the image of x's squares and of o's (the latter when
    /// x is to move); when x is to move, the rank of the most significant
    /// square of each image of x's squares; `below[L · masks + w]` holds
    /// bit `g % 64` of word `w = g / 64` when that rank is at most `L`; and the
    /// symmetries giving the least image of x's squares with their images
    /// of o's squares.
    buf: ImageBuffers,
    /// The least of the ranks in `buf.top`.
    least_top: u8,
    /// The least image of x's squares.
    least_x: Bits<W>,
    /// The least of the images of o's squares in `buf.least_o`: the
    /// node's key is `(least_x, least_o)`.
    least_o: Bits<W>,
}

impl<const W: usize> Drop for NodeImages<W> {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        // At a thread's exit the pool may be gone: the vectors are freed.
        let _ = POOL.try_with(|p| p.borrow_mut().push(buf));
    }
}

impl<const W: usize> NodeImages<W> {
    /// The images of a node whose player to move is `mover` (0 x, 1 o).
    pub fn new(sym: &Symmetries<W>, stones: &[Bits<W>; 2], mover: usize) -> NodeImages<W> {
        let mut buf = POOL
            .try_with(|p| p.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        let x = boards::<W>(&mut buf.x, sym.count);
        sym.map_all(&stones[0], x);
        let least_x = x.iter().copied().min().expect("the identity");
        buf.least.clear();
        buf.least_o.clear();
        let mut least_o = [u64::MAX; W];
        for (g, xg) in x.iter().enumerate() {
            if *xg == least_x {
                let og = sym.map_one(&stones[1], g);
                least_o = least_o.min(og);
                buf.least.push(g as u16);
                buf.least_o.extend_from_slice(&og);
            }
        }
        let mut least_top = 0;
        if mover == 0 {
            sym.map_all(&stones[1], boards::<W>(&mut buf.o, sym.count));
            if sym.count <= FEW {
                return NodeImages {
                    buf,
                    least_top,
                    least_x,
                    least_o,
                };
            }
            let x = buf.x.as_chunks::<W>().0;
            buf.top.clear();
            buf.top.extend(x.iter().map(top::<W>));
            least_top = buf.top.iter().copied().min().expect("the identity");
            let m = sym.masks;
            buf.below.clear();
            buf.below.resize(Symmetries::<W>::RANKS * m, 0);
            for (g, &t) in buf.top.iter().enumerate() {
                buf.below[t as usize * m + g / 64] |= 1 << (g % 64);
            }
            for i in m..buf.below.len() {
                buf.below[i] |= buf.below[i - m];
            }
        }
        NodeImages {
            buf,
            least_top,
            least_x,
            least_o,
        }
    }

    /// The key of the child where `mover` (the node's: 0 x, 1 o) takes
    /// the empty square `s`.
    #[inline]
    pub fn child(&self, sym: &Symmetries<W>, mover: usize, s: usize) -> [Bits<W>; 2] {
        let images = sym.of(s);
        if mover == 1 {
            // x's images are the node's: only the symmetries giving the
            // least of them can give the least child.
            let mut o = [u64::MAX; W];
            let least_o = self.buf.least_o.as_chunks::<W>().0;
            for (&g, og) in self.buf.least.iter().zip(least_o) {
                o = o.min(or(og, &images[g as usize]));
            }
            return [self.least_x, o];
        }
        let x = self.buf.x.as_chunks::<W>().0;
        let o = self.buf.o.as_chunks::<W>().0;
        let mut best = [[u64::MAX; W]; 2];
        let mut consider = |g: usize| {
            let cand = [or(&x[g], &images[g]), o[g]];
            if cand < best {
                best = cand;
            }
        };
        if sym.count <= FEW {
            (0..sym.count).for_each(consider);
        } else {
            // The least rank reached, and the symmetries reaching it.
            let m = sym.masks;
            let reach = &sym.reach[s * Symmetries::<W>::RANKS * m..];
            let below = &self.buf.below;
            // Both sets only grow with the rank, so whether they meet
            // does too: a binary search finds the least rank where they
            // do (the last rank always: every image's top is at most it).
            let meet = |l: usize| (0..m).any(|w| below[l * m + w] & reach[l * m + w] != 0);
            let (mut lo, mut hi) = (
                self.least_top.max(sym.low[s]) as usize,
                Symmetries::<W>::RANKS - 1,
            );
            while lo < hi {
                let mid = (lo + hi) / 2;
                if meet(mid) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            let l = lo;
            for w in 0..m {
                let mut hits = below[l * m + w] & reach[l * m + w];
                while hits != 0 {
                    consider(w * 64 + hits.trailing_zeros() as usize);
                    hits &= hits - 1;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation of `squares` (the symmetric group), as
    /// permutations of a board of `n` squares fixing the others.
    fn all_perms(squares: &[u16], n: usize) -> Vec<Vec<u16>> {
        let mut out = Vec::new();
        let mut order = squares.to_vec();
        heap(&mut order, squares.len(), &mut |o: &[u16]| {
            let mut p: Vec<u16> = (0..n as u16).collect();
            for (from, to) in squares.iter().zip(o) {
                p[*from as usize] = *to;
            }
            out.push(p);
        });
        // The identity first, as the boards have it.
        let id: Vec<u16> = (0..n as u16).collect();
        let at = out.iter().position(|p| *p == id).expect("the identity");
        out.swap(0, at);
        out
    }

    fn heap(a: &mut [u16], k: usize, f: &mut impl FnMut(&[u16])) {
        if k <= 1 {
            f(a);
            return;
        }
        for i in 0..k {
            heap(a, k - 1, f);
            let j = if k.is_multiple_of(2) { i } else { 0 };
            a.swap(j, k - 1);
        }
    }

    /// The least image by brute force.
    fn brute<const W: usize>(perms: &[Vec<u16>], stones: &[Bits<W>; 2]) -> [Bits<W>; 2] {
        let map = |p: &Vec<u16>, b: &Bits<W>| {
            let mut out = [0u64; W];
            super::super::for_each(b, |s| out = or(&out, &super::super::bit(p[s] as usize)));
            out
        };
        perms
            .iter()
            .map(|p| [map(p, &stones[0]), map(p, &stones[1])])
            .min()
            .expect("the identity")
    }

    /// Random positions: the key from scratch and every child's key from
    /// its parent's images are the brute-force least image.
    fn check<const W: usize>(perms: &[Vec<u16>], squares: usize, seed: u64) -> usize {
        let sym = Symmetries::<W>::new(perms, squares);
        let mut rng = seed;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut checked = 0;
        for _ in 0..10 {
            let mut stones = [[0u64; W]; 2];
            for ply in 0..squares {
                let mover = ply % 2;
                assert_eq!(sym.canonical(&stones), brute(perms, &stones));
                let node = NodeImages::new(&sym, &stones, mover);
                let occupied = or(&stones[0], &stones[1]);
                let empty: Vec<usize> = (0..squares)
                    .filter(|&s| !super::super::has(&occupied, s))
                    .collect();
                for &s in &empty {
                    let mut child = stones;
                    child[mover] = or(&child[mover], &super::super::bit(s));
                    assert_eq!(
                        node.child(&sym, mover, s),
                        brute(perms, &child),
                        "{stones:?} {s}"
                    );
                    checked += 1;
                }
                let s = empty[next() as usize % empty.len()];
                stones[mover] = or(&stones[mover], &super::super::bit(s));
            }
        }
        checked
    }

    #[test]
    fn child_keys_are_the_least_images() {
        // 24 and 120 symmetries (one word of candidates, and past it), on
        // one word and across the words of a wide board.
        assert!(check::<1>(&all_perms(&[0, 5, 9, 30], 40), 40, 1) > 2_000);
        assert!(check::<1>(&all_perms(&[2, 3, 17, 40, 63], 64), 64, 2) > 2_000);
        assert!(check::<4>(&all_perms(&[1, 62, 63, 64, 200], 210), 210, 3) > 2_000);
        // Two commuting reflections of a 4x4 grid (4 symmetries).
        let refl = |f: &dyn Fn(u16, u16) -> (u16, u16)| -> Vec<u16> {
            (0..16u16)
                .map(|s| {
                    let (r, c) = f(s / 4, s % 4);
                    r * 4 + c
                })
                .collect()
        };
        let perms = vec![
            refl(&|r, c| (r, c)),
            refl(&|r, c| (3 - r, c)),
            refl(&|r, c| (r, 3 - c)),
            refl(&|r, c| (3 - r, 3 - c)),
        ];
        assert!(check::<1>(&perms, 16, 4) > 1_000);
        // Two and six symmetries across the words of a wide board (every
        // image compared, no narrowing by rank).
        assert!(check::<4>(&all_perms(&[3, 100], 130), 130, 5) > 1_000);
        assert!(check::<4>(&all_perms(&[0, 64, 129], 130), 130, 6) > 1_000);
    }
}
