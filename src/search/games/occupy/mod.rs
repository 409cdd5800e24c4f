//! Placement games with winning patterns, as the search represents them:
//! m,n,k-games, pattern files (Qango, Qubic), and the gravity games
//! Connect-Four and Sogo, on bitboards of `W` 64-bit words (`W = 1`: up to
//! 64 squares; `W = 4`: up to 256). The bitboards are built from the game's
//! own description (`crate::games::placement::Placement`: its squares,
//! patterns, gravity and symmetries), and positions and moves are read and
//! written by the game's own notation, so a spec and a position mean the
//! same here as in a table.
//!
//! Rules (the tables' rules, see [`crate::games::pattern`] and
//! [`crate::games::gravity`]): players alternately occupy a square (with
//! gravity, the lowest empty cell of a column); who first owns every square
//! of a winning pattern wins (under `:misere` loses); a full board without
//! one is a tie. Player `x` moves first, so the player to move follows from
//! the piece counts.
//!
//! Speed: each square lists the patterns through it, so a move checks only
//! those for a win, and move ordering scores a square from them. Moves come
//! ordered as a Connect-Four or pattern solver orders them: wins, then
//! blocks of the opponent's immediate wins, then the rest by how many
//! patterns through the square are still open (weighted by how full they
//! are), centre columns first on ties; with gravity, a move that lets the
//! opponent win on the cell above comes last.
//!
//! Keys: the minimum over the board's symmetries (those mapping the
//! patterns onto themselves; gravity games: the floor's) of the pair of
//! piece sets, so symmetric positions share a key and the mover (fixed by
//! the piece counts) is implied.

use super::Represents;
use crate::games::placement::{self, Notation, Placed, Placement, Stones};
use crate::search::SearchGame;
use crate::value::Value;

/// Most squares of a board (four 64-bit words).
pub const MAX_SQUARES: usize = placement::MAX_SQUARES as usize;

/// A bitboard of `W` words: square `s` is bit `s % 64` of word `s / 64`.
pub type Bits<const W: usize> = [u64; W];

#[inline(always)]
fn bit<const W: usize>(s: usize) -> Bits<W> {
    let mut b = [0; W];
    b[s / 64] = 1 << (s % 64);
    b
}

#[inline(always)]
fn has<const W: usize>(b: &Bits<W>, s: usize) -> bool {
    b[s / 64] >> (s % 64) & 1 != 0
}

#[inline(always)]
fn count<const W: usize>(b: &Bits<W>) -> u32 {
    b.iter().map(|w| w.count_ones()).sum()
}

#[inline(always)]
fn or<const W: usize>(a: &Bits<W>, b: &Bits<W>) -> Bits<W> {
    std::array::from_fn(|i| a[i] | b[i])
}

#[inline(always)]
fn and<const W: usize>(a: &Bits<W>, b: &Bits<W>) -> Bits<W> {
    std::array::from_fn(|i| a[i] & b[i])
}

#[inline(always)]
fn andnot<const W: usize>(a: &Bits<W>, b: &Bits<W>) -> Bits<W> {
    std::array::from_fn(|i| a[i] & !b[i])
}

#[inline(always)]
fn is_zero<const W: usize>(a: &Bits<W>) -> bool {
    a.iter().all(|&w| w == 0)
}

/// Calls `f` with every set square, in increasing order.
#[inline(always)]
fn for_each<const W: usize>(b: &Bits<W>, mut f: impl FnMut(usize)) {
    for (i, &w) in b.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            f(i * 64 + w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
}

/// A position: each player's squares (`stones[0]` is `x`'s), and whether
/// the player who just moved completed a pattern (computed when the move is
/// made, so `terminal` need not scan the patterns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OccupyPos<const W: usize> {
    /// The squares of `x` (player 0) and `o` (player 1).
    pub stones: [Bits<W>; 2],
    /// The player who just moved owns a pattern.
    pub done: bool,
}

impl<const W: usize> OccupyPos<W> {
    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> Bits<W> {
        or(&self.stones[0], &self.stones[1])
    }

    /// The player to move: 0 when both have as many pieces.
    #[inline(always)]
    pub fn mover(&self) -> usize {
        (count(&self.occupied()) & 1) as usize
    }
}

/// The canonical key of a width: two words per bitboard word.
pub trait KeyWidth<const W: usize> {
    /// The key type.
    type K: crate::search::Key;
    /// Packs both players' canonical sets.
    fn pack(s: &[Bits<W>; 2]) -> Self::K;
    /// The sets of a packed key.
    fn unpack(k: &Self::K) -> [Bits<W>; 2];
}

/// The widths the search uses (1 and 4 words).
pub struct Words;

impl KeyWidth<1> for Words {
    type K = [u64; 2];
    #[inline(always)]
    fn pack(s: &[Bits<1>; 2]) -> [u64; 2] {
        [s[0][0], s[1][0]]
    }
    fn unpack(k: &[u64; 2]) -> [Bits<1>; 2] {
        [[k[0]], [k[1]]]
    }
}

impl KeyWidth<4> for Words {
    type K = [u64; 8];
    #[inline(always)]
    fn pack(s: &[Bits<4>; 2]) -> [u64; 8] {
        let (a, b) = (s[0], s[1]);
        [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
    }
    fn unpack(k: &[u64; 8]) -> [Bits<4>; 2] {
        [[k[0], k[1], k[2], k[3]], [k[4], k[5], k[6], k[7]]]
    }
}

/// A placement game with winning patterns on `64·W` squares at most.
pub struct Occupy<const W: usize> {
    spec: String,
    /// Completing a pattern loses.
    misere: bool,
    /// The game's notation.
    notation: Box<dyn Notation>,
    all: Bits<W>,
    /// The winning patterns as bitboards.
    patterns: Vec<Bits<W>>,
    /// `through[through_at[s]..through_at[s + 1]]`: the patterns through
    /// square `s` (indices into `patterns`).
    through_at: Vec<u32>,
    through: Vec<u32>,
    /// Gravity: the bottom cell of every column (cells `c·H + z`).
    bottom: Option<u64>,
    height: u32,
    /// Per square, a rank for move-order tie-breaks: smaller is more
    /// central (gravity games: the column's distance from the floor's
    /// centre, doubled to stay integral; 0 elsewhere).
    centre: Vec<u32>,
    /// Symmetries other than the identity, as byte lookup tables:
    /// `luts[g][k·256 + b]` is the image of byte `b` at byte position `k`.
    luts: Vec<Vec<Bits<W>>>,
    /// The symmetries as permutations (identity first), for tests.
    perms: Vec<Vec<u16>>,
}

/// Any placement game's description, on the narrowest bitboard that holds
/// it (the registry lists the widths in order).
impl<D: Placed, const W: usize> Represents<D> for Occupy<W> {
    fn represent(d: &D) -> Option<Result<Self, String>> {
        (d.words() <= W).then(|| d.placement().and_then(Occupy::new))
    }
}

impl<const W: usize> Occupy<W> {
    /// The game of a placement (at most `64·W` squares; gravity boards at
    /// most 64).
    fn new(placement: Placement) -> Result<Occupy<W>, String> {
        let n = placement.squares as usize;
        if n > 64 * W || (placement.floor.is_some() && n > 64) {
            return Err(format!("{n} squares do not fit this board representation"));
        }
        let mut all = [0u64; W];
        for s in 0..n {
            all[s / 64] |= 1 << (s % 64);
        }
        let patterns: Vec<Bits<W>> = placement
            .patterns
            .iter()
            .map(|p| p.iter().fold([0; W], |m, &s| or(&m, &bit(s as usize))))
            .collect();
        let mut through_at = vec![0u32];
        let mut through = Vec::new();
        for s in 0..n {
            for (i, p) in patterns.iter().enumerate() {
                if has(p, s) {
                    through.push(i as u32);
                }
            }
            through_at.push(through.len() as u32);
        }
        let (bottom, height, centre) = match placement.floor {
            Some(f) => {
                let h = f.height;
                let cols = n as u32 / h;
                let bottom = (0..cols).fold(0u64, |m, c| m | 1 << (c * h));
                // Centre columns first.
                let centre = (0..n as u32)
                    .map(|cell| {
                        let col = cell / h;
                        let (x, y) = (col % f.nx, col / f.nx);
                        (2 * x).abs_diff(f.nx - 1) + (2 * y).abs_diff(f.ny - 1)
                    })
                    .collect();
                (Some(bottom), h, centre)
            }
            None => (None, 0, vec![0; n]),
        };
        let perms = crate::games::symmetry::symmetry_group(
            &placement.symmetries,
            &placement.patterns,
            n,
            384,
        );
        let luts = perms[1..]
            .iter()
            .map(|p| {
                let mut t = vec![[0u64; W]; W * 8 * 256];
                for k in 0..W * 8 {
                    for b in 0..256usize {
                        let mut img = [0u64; W];
                        for j in 0..8 {
                            let s = k * 8 + j;
                            if b >> j & 1 != 0 && s < n {
                                img = or(&img, &bit(p[s] as usize));
                            }
                        }
                        t[k * 256 + b] = img;
                    }
                }
                t
            })
            .collect();
        Ok(Occupy {
            spec: placement.spec,
            misere: placement.misere,
            notation: placement.notation,
            all,
            patterns,
            through_at,
            through,
            bottom,
            height,
            centre,
            luts,
            perms,
        })
    }

    /// A position as the game's notation has it: `W` of its words.
    fn narrow(s: &Stones) -> [Bits<W>; 2] {
        s.map(|words| std::array::from_fn(|i| words[i]))
    }

    /// A position's pieces as the game's notation takes them.
    fn widen(p: &OccupyPos<W>) -> Stones {
        p.stones.map(|b| {
            let mut words = [0u64; placement::WORDS];
            words[..W].copy_from_slice(&b);
            words
        })
    }

    /// The winning patterns as bitboards.
    pub fn patterns(&self) -> &[Bits<W>] {
        &self.patterns
    }

    /// The symmetries used for keys, as square permutations (identity first).
    pub fn symmetries(&self) -> &[Vec<u16>] {
        &self.perms
    }

    /// The image of a position under symmetry `g` (an index into
    /// [`Occupy::symmetries`]).
    pub fn image(&self, p: &OccupyPos<W>, g: usize) -> OccupyPos<W> {
        let map = |b: &Bits<W>| {
            let mut out = [0u64; W];
            for_each(b, |s| out = or(&out, &bit(self.perms[g][s] as usize)));
            out
        };
        OccupyPos {
            stones: [map(&p.stones[0]), map(&p.stones[1])],
            done: p.done,
        }
    }

    #[inline(always)]
    fn patterns_through(&self, s: usize) -> &[u32] {
        &self.through[self.through_at[s] as usize..self.through_at[s + 1] as usize]
    }

    /// The squares a move may occupy.
    #[inline(always)]
    fn playable(&self, occ: &Bits<W>) -> Bits<W> {
        match self.bottom {
            // The cell above each piece, or a column's bottom: a full
            // column's top shifts onto the next column's bottom, which is
            // in `bottom` anyway.
            Some(bottom) => {
                let mut b = [0u64; W];
                b[0] = ((occ[0] << 1) | bottom) & !occ[0] & self.all[0];
                b
            }
            None => andnot(&self.all, occ),
        }
    }

    /// Whether `stones` (just played on `s`) own a pattern through `s`.
    #[inline(always)]
    fn completes(&self, stones: &Bits<W>, s: usize) -> bool {
        self.patterns_through(s)
            .iter()
            .any(|&i| is_zero(&andnot(&self.patterns[i as usize], stones)))
    }

    /// Whether `stones` own a pattern (a full scan).
    fn owns(&self, stones: &Bits<W>) -> bool {
        self.patterns.iter().any(|p| is_zero(&andnot(p, stones)))
    }

    /// The empty squares that would complete a pattern for `mine` (against
    /// `theirs`).
    #[inline]
    fn threats(&self, mine: &Bits<W>, theirs: &Bits<W>) -> Bits<W> {
        // Branch-free: whether a pattern is open and one square short is
        // as good as random, and mispredicting it cost more than counting.
        let mut out = [0u64; W];
        for p in &self.patterns {
            let need = andnot(p, mine);
            let (mut words, mut many, mut blocked) = (0u32, 0u64, 0u64);
            for i in 0..W {
                words += u32::from(need[i] != 0);
                many |= need[i] & need[i].wrapping_sub(1);
                blocked |= p[i] & theirs[i];
            }
            let take = u64::from(words == 1) & u64::from(many | blocked == 0);
            let mask = take.wrapping_neg();
            for i in 0..W {
                out[i] |= need[i] & mask;
            }
        }
        out
    }

    /// The position after `x` and `o` pieces, with `done` computed.
    pub(crate) fn position(&self, stones: [Bits<W>; 2]) -> OccupyPos<W> {
        let mut p = OccupyPos {
            stones,
            done: false,
        };
        p.done = self.owns(&stones[1 - p.mover()]);
        p
    }

    /// The static score of square `s` for the mover: the patterns through
    /// it still open for the mover or the opponent, weighted by how many of
    /// their squares are already taken.
    #[inline]
    fn score(&self, s: usize, mine: &Bits<W>, theirs: &Bits<W>) -> u32 {
        const WEIGHT: [u32; 8] = [1, 3, 9, 27, 81, 243, 729, 2187];
        let mut score = 0;
        for &i in self.patterns_through(s) {
            let p = &self.patterns[i as usize];
            let (a, b) = (count(&and(p, mine)), count(&and(p, theirs)));
            if b == 0 {
                score += WEIGHT[a.min(7) as usize] + 1;
            } else if a == 0 {
                score += WEIGHT[b.min(7) as usize];
            }
        }
        score
    }
}

impl<const W: usize> SearchGame for Occupy<W>
where
    Words: KeyWidth<W>,
{
    type Pos = OccupyPos<W>;
    /// The square (cell) occupied.
    type Move = u16;
    type Key = <Words as KeyWidth<W>>::K;

    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn start(&self) -> OccupyPos<W> {
        OccupyPos {
            stones: [[0; W]; 2],
            done: false,
        }
    }

    fn parse_position(&self, s: &str) -> Result<OccupyPos<W>, String> {
        let stones = self.notation.parse_position(s)?;
        Ok(self.position(Self::narrow(&stones)))
    }

    fn format_position(&self, p: &OccupyPos<W>) -> String {
        self.notation.format_position(&Self::widen(p))
    }

    fn format_move(&self, m: &u16) -> String {
        self.notation.format_move(*m)
    }

    #[inline]
    fn terminal(&self, p: &OccupyPos<W>) -> Option<Value> {
        if p.done {
            Some(if self.misere { Value::Win } else { Value::Lose })
        } else if p.occupied() == self.all {
            Some(Value::Tie)
        } else {
            None
        }
    }

    fn moves(&self, p: &OccupyPos<W>) -> Vec<(u16, OccupyPos<W>)> {
        if self.terminal(p).is_some() {
            return Vec::new();
        }
        let me = p.mover();
        let (mine, theirs) = (&p.stones[me], &p.stones[1 - me]);
        let occ = p.occupied();
        let play = self.playable(&occ);
        let misere = self.misere;
        let (my_threats, their_threats) = if misere {
            ([0; W], [0; W])
        } else {
            (self.threats(mine, theirs), self.threats(theirs, mine))
        };
        // Sort keys: class (0 win, 1 block, 2 other, 3 gives the opponent
        // a win above), then score high first, then centre, then square.
        let mut order: [(u64, u16); MAX_SQUARES] = [(0, 0); MAX_SQUARES];
        let mut len = 0;
        for_each(&play, |s| {
            let class: u64 = if has(&my_threats, s) {
                0
            } else if has(&their_threats, s) {
                1
            } else if self.bottom.is_some()
                && !(s as u32 + 1).is_multiple_of(self.height)
                && has(&their_threats, s + 1)
            {
                3
            } else {
                2
            };
            let score = self.score(s, mine, theirs).min(0xff_ffff) as u64;
            let centre = self.centre[s].min(0xff) as u64;
            order[len] = (
                class << 40 | (0xff_ffff - score) << 16 | centre << 8,
                s as u16,
            );
            len += 1;
        });
        let order = &mut order[..len];
        order.sort_unstable();
        order
            .iter()
            .map(|&(_, s)| {
                let s = s as usize;
                let mut stones = p.stones;
                stones[me] = or(&stones[me], &bit(s));
                let done = self.completes(&stones[me], s);
                (s as u16, OccupyPos { stones, done })
            })
            .collect()
    }

    fn key(&self, p: &OccupyPos<W>) -> Self::Key {
        let mut best = p.stones;
        for lut in &self.luts {
            let map = |b: &Bits<W>| {
                let mut out = [0u64; W];
                for (i, w) in b.iter().enumerate() {
                    let mut w = *w;
                    let mut k = i * 8;
                    while w != 0 {
                        out = or(&out, &lut[k * 256 + (w & 0xff) as usize]);
                        w >>= 8;
                        k += 1;
                    }
                }
                out
            };
            // x's image decides most comparisons: o's only on a tie or a
            // new minimum.
            let x = map(&p.stones[0]);
            if x > best[0] {
                continue;
            }
            let img = [x, map(&p.stones[1])];
            if img < best {
                best = img;
            }
        }
        Words::pack(&best)
    }

    fn position_of_key(&self, key: &Self::Key) -> Option<OccupyPos<W>> {
        // The key is a canonical image's bitboards: a position itself.
        Some(self.position(Words::unpack(key)))
    }

    /// A tie once every pattern holds pieces of both players: no one can
    /// complete one, so the board fills up without a pattern, a tie by the
    /// rules (misère too). The scan stops at the first open pattern, which
    /// early in a game is one of the first.
    fn decided(&self, p: &OccupyPos<W>) -> Option<Value> {
        if p.done {
            return None;
        }
        let [x, o] = &p.stones;
        let open = self
            .patterns
            .iter()
            .any(|q| is_zero(&and(q, x)) || is_zero(&and(q, o)));
        (!open).then_some(Value::Tie)
    }

    fn wins_now(&self, p: &OccupyPos<W>) -> bool {
        if self.misere || p.done {
            return false;
        }
        let me = p.mover();
        let play = self.playable(&p.occupied());
        !is_zero(&and(&play, &self.threats(&p.stones[me], &p.stones[1 - me])))
    }
}
