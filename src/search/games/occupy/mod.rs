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
//! **The cost of a node.** An expansion reads the node's patterns once
//! ([`board::Board`]: each pattern's pieces per player, the squares that
//! complete a pattern or bring one a square short) and its images under
//! the symmetries once ([`keys::NodeImages`]); each child is then told in
//! constant time whether it is over (the move completed a pattern),
//! whether its mover can win at once (a square completing one of its
//! patterns is still free), whether no pattern can be completed any more
//! (a tie), and its canonical key, from a few of the node's images. A child
//! carries what was learnt ([`OccupyPos`]), so `terminal`, `wins_now`,
//! `decided` and `key` read it instead of scanning the patterns again.
//!
//! **Threats** ([`threats`]): wins by continuous fours, found when a node
//! is expanded and given to its children as their value (`decided`): the
//! mover's own win, a child the opponent wins by a line it would have even
//! after the move, and the defender's one forced reply. Not under
//! `:misere`, not with gravity, and by default not on boards of at most 16
//! squares ([`THREATS_FROM`]), where they cost more than they save.
//!
//! **λ-moves** ([`SearchGame::focus`]): at a node whose mover df-pn asks
//! to win, the mover's λ-moves are searched first and alone: the moves
//! after which, were the opponent to pass, the mover would win by
//! continuous fours (Thomsen's λ², found by the threat search on the
//! board with the move played: in a placement game an extra stone never
//! hurts its owner, so this null-move test is exact up to the threat
//! search's budget), with the children whose value is already known.
//! df-pn takes a win found among them as a proof (a win needs one move),
//! and widens the node to every move as soon as all of them are refuted
//! (a disproof needs every move), so the focus orders the search and never
//! decides a value. While only the λ-moves are searched the node's δ
//! counts them alone, as λ-df-pn's threat orders do: on Qubic that gave a
//! sixth of the root's proof number that δ over every child gave, but on
//! the ties of 20 squares it cost 4× the nodes (parents trust nodes that
//! look cheap to refute until they widen), hence [`LAMBDA_FROM`]. The
//! defender's side needs nothing new: its replies
//! that do not meet the attacker's threat are already settled by the null
//! move of [`threats`] (the expansion's `child_threats`). This is the
//! λ-df-pn of Yoshizoe, Kishimoto and Müller (2007) with two orders (λ¹
//! is the threat search itself, which settles a node's own VCF); it was
//! chosen over dependency-based threat-space search (Allis) because it
//! lives entirely in df-pn's node (a subset of children, widened on
//! refutation: no second search structure, no dependency bookkeeping, and
//! soundness is df-pn's own), and over giving threat children smaller
//! initial numbers because that was tried (README, "threat-informed
//! initial numbers") and kept every non-threat move in each node's
//! disproof sum. Where the mover has no λ-move (the opening), every move
//! is searched. Not under `:misere` or gravity, where threats do not
//! apply, and by default not on boards under [`LAMBDA_FROM`] squares.
//!
//! Move order, as a Connect-Four or pattern solver orders them: wins,
//! then blocks of the opponent's immediate wins, then the rest by how many
//! patterns through the square are still open (weighted by how full they
//! are), centre columns first on ties; with gravity, a move that lets the
//! opponent win on the cell above comes last.
//!
//! Keys: the least image over the board's symmetries (those mapping the
//! patterns onto themselves; gravity games: the floor's) of the pair of
//! piece sets, so symmetric positions share a key and the mover (fixed by
//! the piece counts) is implied ([`keys`]).

mod board;
mod keys;
mod threats;

use super::Represents;
use crate::games::placement::{self, Notation, Placed, Placement, Stones};
use crate::search::alphabeta::Native;
use crate::search::SearchGame;
use crate::value::Value;
use board::{Board, Lines};
use keys::{NodeImages, Symmetries};
use threats::Vcf;

/// Nodes a threat search may visit, by default: enough for the lines of a
/// 4×4×4 cube, and little next to the expansion that asks (a node of the
/// threat search costs a few patterns' updates).
pub const THREAT_BUDGET: u32 = 256;

/// Boards of at most this many squares get no threat knowledge by default
/// (`Occupy::set_threat_budget` still turns it on). Measured on 4×4 four
/// in a row (a tie, 16 squares): with threats df-pn needed as many nodes as
/// without (197,678–205,896 against 199,523) and a third of each node's
/// instructions went to threat searches that found almost nothing; such a
/// board is proven in a fraction of a second either way.
pub const THREATS_FROM: usize = 17;

/// Nodes each λ-move test's threat search may visit (one test per
/// candidate move at an attacker's node, so less than [`THREAT_BUDGET`]).
pub const LAMBDA_BUDGET: u32 = 32;

/// Boards of fewer squares search every move at once by default
/// (`Occupy::set_lambda` still turns λ-moves on). Measured (docs/QUBIC.md):
/// on the won boards of 30 squares and more (Qango 6×6, 6×5 and 5×6 four
/// in a row, Qubic's openings) λ-moves cut the nodes; on the ties of 20
/// squares (4×5 and 5×4 four in a row) they cost 4× the nodes, a tie's
/// disproof needing every move of the attacker's anyway.
pub const LAMBDA_FROM: usize = 26;

/// Children whose value their parent's expansion already gave.
const SETTLED: u8 = know::WINS_NOW | know::TIE | know::WIN | know::LOSE;

thread_local! {
    /// The move order's weights per pattern, kept per thread between
    /// expansions (allocating them each time was a malloc and a free per
    /// node).
    static WEIGHTS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

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

/// What is known of a position besides its pieces (bits of
/// [`OccupyPos::know`]).
mod know {
    /// `key` holds the canonical key.
    pub const KEYED: u8 = 1;
    /// The mover can complete a pattern with this move (not under misère).
    pub const WINS_NOW: u8 = 2;
    /// No pattern can be completed any more: the board fills up to a tie.
    pub const TIE: u8 = 4;
    /// The mover wins by continuous fours.
    pub const WIN: u8 = 8;
    /// The opponent wins by continuous fours whatever the mover does.
    pub const LOSE: u8 = 16;
}

/// A position: each player's squares (`stones[0]` is `x`'s), whether the
/// player who just moved completed a pattern, and what the move that led
/// here learnt about it (its key, its mover's immediate wins, a value by
/// threats).
///
/// Two positions are equal when their pieces are: what is known of them is
/// knowledge, not identity (a child knows a win its parent's threat search
/// found, where the same pieces parsed from text might not).
#[derive(Clone, Copy, Debug)]
pub struct OccupyPos<const W: usize> {
    /// The squares of `x` (player 0) and `o` (player 1).
    pub stones: [Bits<W>; 2],
    /// The player who just moved owns a pattern.
    pub done: bool,
    /// [`know`] bits.
    know: u8,
    /// The canonical key, when `know` has [`know::KEYED`].
    key: [Bits<W>; 2],
    /// The mover's moves (255 at most), for [`SearchGame::estimate`].
    moves: u8,
}

impl<const W: usize> PartialEq for OccupyPos<W> {
    fn eq(&self, other: &Self) -> bool {
        self.stones == other.stones && self.done == other.done
    }
}

impl<const W: usize> Eq for OccupyPos<W> {}

impl<const W: usize> std::hash::Hash for OccupyPos<W> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.stones.hash(h);
        self.done.hash(h);
    }
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
    /// The game's own alpha-beta search, where it has one (Sogo's 4×4×4
    /// cube, on one word).
    fn native(_g: &Occupy<W>, _table_bytes: u64) -> Option<Native<'_, Occupy<W>>>
    where
        Words: KeyWidth<W>,
    {
        None
    }
    /// The sets of a packed key.
    fn unpack(k: &Self::K) -> [Bits<W>; 2];
}

/// The widths the search uses (1 and 4 words).
pub struct Words;

impl KeyWidth<1> for Words {
    type K = [u64; 2];
    fn native(g: &Occupy<1>, table_bytes: u64) -> Option<Native<'_, Occupy<1>>> {
        crate::search::alphabeta::cube_native(g, table_bytes)
    }
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
    /// The winning patterns, indexed by square.
    lines: Lines<W>,
    /// Gravity: the bottom cell of every column (cells `c·H + z`).
    bottom: Option<u64>,
    height: u32,
    /// Per square, a rank for move-order tie-breaks: smaller is more
    /// central (gravity games: the column's distance from the floor's
    /// centre, doubled to stay integral; 0 elsewhere).
    centre: Vec<u32>,
    /// The symmetries as bit tables, for keys.
    sym: Symmetries<W>,
    /// The symmetries as permutations (identity first), for tests.
    perms: Vec<Vec<u16>>,
    /// Nodes each threat search may visit; 0 turns threats off.
    threat_budget: u32,
    /// df-pn starts a position's disproof number at its mobility
    /// ([`SearchGame::estimate`]); off, at 1 (plain df-pn).
    estimates: bool,
    /// The attacker's λ-moves are searched first ([`SearchGame::focus`]),
    /// where threats apply (by default on boards of [`LAMBDA_FROM`]
    /// squares or more).
    lambda: bool,
    /// df-pn sums children as weak disproof numbers
    /// ([`SearchGame::weak_sums`]).
    weak: bool,
    /// This game's tag in the memo of threat results (unique per game
    /// built, and changed with the budget, so an entry answers only for
    /// the game and budget that made it).
    id: u64,
}

/// The next game's tag (see `Occupy::id`).
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Any placement game's description, on the narrowest bitboard that holds
/// it (the registry lists the widths in order).
impl<D: Placed, const W: usize> Represents<D> for Occupy<W> {
    fn represent(d: &D) -> Option<Result<Self, String>> {
        (d.words() <= W).then(|| d.placement().and_then(Occupy::new))
    }
}

/// What an expansion learnt about the node's children from its threats:
/// the squares whose move hands the opponent a win by threats, and those
/// whose move wins by threats.
struct ChildThreats<const W: usize> {
    /// The child's mover (the node's opponent) wins.
    they_win: Bits<W>,
    /// The child's mover loses.
    they_lose: Bits<W>,
}

impl<const W: usize> Occupy<W> {
    /// The game of a placement (at most `64·W` squares; gravity boards at
    /// most 64).
    fn new(placement: Placement) -> Result<Occupy<W>, String> {
        let n = placement.squares as usize;
        if n > 64 * W || (placement.floor.is_some() && n > 64) {
            return Err(format!("{n} squares do not fit this board representation"));
        }
        let patterns: Vec<Bits<W>> = placement
            .patterns
            .iter()
            .map(|p| p.iter().fold([0; W], |m, &s| or(&m, &bit(s as usize))))
            .collect();
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
        Ok(Occupy {
            spec: placement.spec,
            misere: placement.misere,
            notation: placement.notation,
            lines: Lines::new(patterns, n),
            bottom,
            height,
            centre,
            sym: Symmetries::new(&perms, n),
            perms,
            threat_budget: if n >= THREATS_FROM { THREAT_BUDGET } else { 0 },
            estimates: true,
            lambda: n >= LAMBDA_FROM,
            weak: false,
            id: next_id(),
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

    /// Whether the board is `cols` columns of `height` cells under gravity
    /// (cell `c·height + z`), completing a pattern winning.
    pub(crate) fn gravity_columns_of(&self, height: u32, cols: u32) -> bool {
        let bottom = (0..cols).fold(0u64, |m, c| m | 1 << (c * height));
        !self.misere
            && self.height == height
            && self.bottom == Some(bottom)
            && self.centre.len() == (height * cols) as usize
    }

    /// The winning patterns as bitboards.
    pub fn patterns(&self) -> &[Bits<W>] {
        &self.lines.patterns
    }

    /// The symmetries used for keys, as square permutations (identity first).
    pub fn symmetries(&self) -> &[Vec<u16>] {
        &self.perms
    }

    /// Keys the positions by the symmetries among `candidates` that map
    /// the patterns onto themselves (closed under composition, the
    /// identity first) instead of the game's own group, and returns how
    /// many there are: for comparing groups, such as Qubic's 192 with the
    /// cube's 48 (a subgroup keys correctly, only folding fewer positions).
    pub fn set_symmetries(&mut self, candidates: &[Vec<u16>]) -> usize {
        let n = self.centre.len();
        let patterns: Vec<Vec<u16>> = self
            .lines
            .patterns
            .iter()
            .map(|p| {
                let mut squares = Vec::new();
                for_each(p, |s| squares.push(s as u16));
                squares
            })
            .collect();
        let perms = crate::games::symmetry::symmetry_group(candidates, &patterns, n, 384);
        self.sym = Symmetries::new(&perms, n);
        self.perms = perms;
        self.perms.len()
    }

    /// Nodes each threat search may visit (0: no threat knowledge).
    pub fn threat_budget(&self) -> u32 {
        self.threat_budget
    }

    /// Sets the nodes each threat search may visit; 0 turns threat
    /// knowledge off (plain df-pn, for comparisons). Whether threats apply
    /// at all is the game's (never under misère or gravity).
    pub fn set_threat_budget(&mut self, nodes: u32) {
        self.threat_budget = nodes;
        self.id = next_id();
    }

    /// Whether df-pn's initial numbers come from the positions' mobility
    /// (the default) or are plain df-pn's 1 and 1 (for comparisons).
    pub fn set_estimates(&mut self, on: bool) {
        self.estimates = on;
    }

    /// Whether df-pn searches the attacker's λ-moves first (the default
    /// where threats apply on boards of [`LAMBDA_FROM`] squares or more) or
    /// all its moves at once.
    pub fn set_lambda(&mut self, on: bool) {
        self.lambda = on;
    }

    /// Whether df-pn searches the attacker's λ-moves first.
    pub fn lambda(&self) -> bool {
        self.lambda && self.threats_apply()
    }

    /// Whether df-pn sums children as weak disproof numbers (off by
    /// default; for comparisons).
    pub fn set_weak(&mut self, on: bool) {
        self.weak = on;
    }

    /// The λ-moves of `p`'s mover among `moves` (see the module doc): the
    /// squares after which the mover, were the opponent to pass, would win
    /// by continuous fours. Empty where the mover must answer a four or
    /// wins at once (its children settle those nodes).
    fn lambda_moves(&self, p: &OccupyPos<W>, moves: &[(u16, OccupyPos<W>)]) -> Bits<W> {
        let lines = &self.lines;
        let me = p.mover();
        let opp = 1 - me;
        let mut out = [0u64; W];
        let mut board = Board::new(lines, p.stones);
        if !is_zero(&board.four[me]) || !is_zero(&board.four[opp]) {
            return out;
        }
        let mut vcf = Vcf::new(LAMBDA_BUDGET.min(self.threat_budget));
        for (m, c) in moves {
            let s = *m as usize;
            if c.done || c.know & SETTLED != 0 {
                continue;
            }
            // A win by fours after `s` that the mover did not have before
            // goes through patterns through `s` open for the mover with a
            // piece of its already (a pattern `s` starts alone needs two
            // more moves of the line before it forces anything). Tried
            // only where `s` makes a four or joins two such patterns: one
            // pattern made two short rarely starts a win the mover lacked,
            // and each test is a threat search (a guess: a move skipped
            // here is still searched once the λ-moves are refuted).
            let mut joined = 0;
            let mut four = false;
            for &i in lines.through(s) {
                let n = board.count[i as usize];
                if n[opp] == 0 && n[me] >= 1 {
                    joined += 1;
                    four |= n[me] + 2 >= lines.size[i as usize];
                }
            }
            if !four && joined < 2 {
                continue;
            }
            board.place(lines, me, s);
            if vcf.search(lines, &mut board, me) {
                out = or(&out, &bit(s));
            }
            board.lift(lines, me, s);
        }
        out
    }

    /// Whether threat knowledge applies to this game.
    fn threats_apply(&self) -> bool {
        self.threat_budget > 0 && !self.misere && self.bottom.is_none()
    }

    /// The image of a position under symmetry `g` (an index into
    /// [`Occupy::symmetries`]).
    pub fn image(&self, p: &OccupyPos<W>, g: usize) -> OccupyPos<W> {
        let map = |b: &Bits<W>| {
            let mut out = [0u64; W];
            for_each(b, |s| out = or(&out, &bit(self.perms[g][s] as usize)));
            out
        };
        self.position([map(&p.stones[0]), map(&p.stones[1])])
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
                b[0] = ((occ[0] << 1) | bottom) & !occ[0] & self.lines.all[0];
                b
            }
            None => andnot(&self.lines.all, occ),
        }
    }

    /// The squares playable after a move on `s`, from those before it.
    #[inline(always)]
    fn playable_after(&self, play: &Bits<W>, s: usize) -> Bits<W> {
        let mut after = andnot(play, &bit(s));
        if self.bottom.is_some() && !(s as u32 + 1).is_multiple_of(self.height) {
            after = or(&after, &bit(s + 1));
        }
        after
    }

    /// The position after `x` and `o` pieces, with everything known about
    /// it computed from scratch.
    pub(crate) fn position(&self, stones: [Bits<W>; 2]) -> OccupyPos<W> {
        let mut p = OccupyPos {
            stones,
            done: false,
            know: know::KEYED,
            key: self.sym.canonical(&stones),
            moves: count(&self.playable(&or(&stones[0], &stones[1]))).min(255) as u8,
        };
        let me = p.mover();
        let mut board = if self.threats_apply() {
            Board::new(&self.lines, stones)
        } else {
            Board::snapshot(&self.lines, stones)
        };
        p.done = board
            .count
            .iter()
            .zip(&self.lines.size)
            .any(|(n, &size)| n[1 - me] == size);
        if p.done {
            return p;
        }
        if self.dead(&board) {
            p.know |= know::TIE;
            return p;
        }
        if self.misere {
            return p;
        }
        let play = self.playable(&p.occupied());
        if !is_zero(&and(&board.four[me], &play)) {
            p.know |= know::WINS_NOW;
            return p;
        }
        if !self.threats_apply() {
            return p;
        }
        let theirs = board.four[1 - me];
        let mut vcf = Vcf::new(self.threat_budget);
        if board::two_or_more(&theirs) {
            p.know |= know::LOSE;
        } else if !is_zero(&theirs) {
            let t = board::first(&theirs);
            board.place(&self.lines, me, t);
            if vcf.search(&self.lines, &mut board, 1 - me) {
                p.know |= know::LOSE;
            }
            board.lift(&self.lines, me, t);
        } else if vcf.search(&self.lines, &mut board, me) {
            p.know |= know::WIN;
        }
        p
    }

    /// Whether every pattern holds pieces of both players.
    fn dead(&self, board: &Board<W>) -> bool {
        board.count.iter().all(|n| n[0] != 0 && n[1] != 0)
    }

    /// The threat knowledge an expansion gives the children of a node
    /// whose mover `me` has no immediate win, from its board (left as it
    /// was).
    fn child_threats(&self, board: &mut Board<W>, me: usize, play: &Bits<W>) -> ChildThreats<W> {
        let opp = 1 - me;
        let lines = &self.lines;
        let mut out = ChildThreats {
            they_win: [0; W],
            they_lose: [0; W],
        };
        let theirs = and(&board.four[opp], play);
        let mut vcf = Vcf::new(self.threat_budget);
        if board::two_or_more(&theirs) {
            // Every child is an immediate win of the opponent's: known.
            return out;
        }
        if !is_zero(&theirs) {
            // One forced block: does the opponent win anyway?
            let t = board::first(&theirs);
            board.place(lines, me, t);
            if vcf.search(lines, board, opp) {
                out.they_win = bit(t);
            }
            board.lift(lines, me, t);
            return out;
        }
        // The mover's own win by continuous fours: its first move. The
        // node is then won, and what its other moves lose does not matter.
        if vcf.search(lines, board, me) {
            if let Some(&m) = vcf.line().first() {
                out.they_lose = bit(m as usize);
                return out;
            }
        }
        // The opponent's line if it could move again: every move that
        // leaves it intact loses.
        if vcf.search(lines, board, opp) {
            let line = vcf.line().to_vec();
            let touched = threats::affected(lines, board, opp, &line);
            let empty = board.empty(lines);
            out.they_win = andnot(&empty, &touched);
            for_each(&and(&empty, &touched), |s| {
                if has(&out.they_lose, s) || has(&board.four[me], s) {
                    return;
                }
                board.place(lines, me, s);
                if threats::replay(lines, board, opp, &line) {
                    out.they_win = or(&out.they_win, &bit(s));
                }
                board.lift(lines, me, s);
            });
            debug_assert!(is_zero(&and(&out.they_win, &out.they_lose)));
        }
        out
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
        self.position([[0; W]; 2])
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
        } else if p.occupied() == self.lines.all {
            Some(Value::Tie)
        } else {
            None
        }
    }

    fn moves(&self, p: &OccupyPos<W>) -> Vec<(u16, OccupyPos<W>)> {
        if self.terminal(p).is_some() {
            return Vec::new();
        }
        let lines = &self.lines;
        let me = p.mover();
        let opp = 1 - me;
        let occ = p.occupied();
        let play = self.playable(&occ);
        // What an earlier expansion of this node learnt from threats, if
        // the memo holds it (df-pn expands a node many times).
        let threats_apply = self.threats_apply();
        let recalled = if threats_apply {
            threats::recall(self.id, &p.stones)
        } else {
            None
        };
        // The threat search plays on the board; without it, reading is all.
        let mut board = if threats_apply && recalled.is_none() {
            Board::new(lines, p.stones)
        } else {
            Board::snapshot(lines, p.stones)
        };
        let misere = self.misere;
        let (mine4, theirs4) = if misere {
            ([0; W], [0; W])
        } else {
            (board.four[me], board.four[opp])
        };
        // Per pattern: its weight in the move order, and whether it is
        // still open for each player (a child is a tie when none is).
        const WEIGHT: [u32; 8] = [1, 3, 9, 27, 81, 243, 729, 2187];
        let mut weight = WEIGHTS
            .try_with(|w| std::mem::take(&mut *w.borrow_mut()))
            .unwrap_or_default();
        weight.clear();
        let mut open_mine = false;
        let mut open_theirs = 0u32;
        let mut in_all_theirs = lines.all;
        for (i, n) in board.count.iter().enumerate() {
            let (a, b) = (n[me], n[opp]);
            weight.push(if b == 0 {
                WEIGHT[a.min(7) as usize] + 1
            } else if a == 0 {
                WEIGHT[b.min(7) as usize]
            } else {
                0
            });
            open_mine |= b == 0;
            if a == 0 {
                open_theirs += 1;
                in_all_theirs = and(&in_all_theirs, &lines.patterns[i]);
            }
        }
        let threats = match recalled {
            Some([they_win, they_lose]) => Some(ChildThreats {
                they_win,
                they_lose,
            }),
            None if threats_apply && is_zero(&and(&mine4, &play)) => {
                let t = self.child_threats(&mut board, me, &play);
                threats::remember(self.id, &p.stones, &[t.they_win, t.they_lose]);
                Some(t)
            }
            None => None,
        };
        // Sort keys: class (0 win, 1 block, 2 other, 3 gives the opponent
        // a win above), then score high first, then centre, then square.
        let mut order: [[u64; 64]; W] = [[0; 64]; W];
        let order = order.as_flattened_mut();
        let mut len = 0;
        for_each(&play, |s| {
            let class: u64 = if has(&mine4, s) {
                0
            } else if has(&theirs4, s) {
                1
            } else if self.bottom.is_some()
                && !(s as u32 + 1).is_multiple_of(self.height)
                && has(&theirs4, s + 1)
            {
                3
            } else {
                2
            };
            let score: u32 = lines.through(s).iter().map(|&i| weight[i as usize]).sum();
            let score = u64::from(score.min(0xff_ffff));
            let centre = u64::from(self.centre[s].min(0xff));
            order[len] = class << 40 | (0xff_ffff - score) << 16 | centre << 8 | s as u64;
            len += 1;
        });
        let _ = WEIGHTS.try_with(|w| *w.borrow_mut() = weight);
        let order = &mut order[..len];
        order.sort_unstable();
        let images = NodeImages::new(&self.sym, &p.stones, me);
        let all_four_me = board.four[me];
        order
            .iter()
            .map(|&o| {
                let s = (o & 0xff) as usize;
                let mut stones = p.stones;
                stones[me] = or(&stones[me], &bit(s));
                let done = has(&all_four_me, s);
                let mut know = know::KEYED;
                let mut moves = 0;
                if !done {
                    let after = self.playable_after(&play, s);
                    moves = count(&after).min(255) as u8;
                    if !misere {
                        let now = and(&andnot(&theirs4, &bit(s)), &after);
                        if !is_zero(&now) {
                            know |= know::WINS_NOW;
                        }
                    }
                    if !open_mine && (open_theirs == 0 || has(&in_all_theirs, s)) {
                        know |= know::TIE;
                    }
                    if let Some(t) = &threats {
                        if has(&t.they_win, s) {
                            know |= know::WIN;
                        } else if has(&t.they_lose, s) {
                            know |= know::LOSE;
                        }
                    }
                }
                let key = images.child(&self.sym, me, s);
                (
                    s as u16,
                    OccupyPos {
                        stones,
                        done,
                        know,
                        key,
                        moves,
                    },
                )
            })
            .collect()
    }

    #[inline]
    fn key(&self, p: &OccupyPos<W>) -> Self::Key {
        if p.know & know::KEYED != 0 {
            Words::pack(&p.key)
        } else {
            Words::pack(&self.sym.canonical(&p.stones))
        }
    }

    fn position_of_key(&self, key: &Self::Key) -> Option<OccupyPos<W>> {
        // The key is a canonical image's bitboards: a position itself.
        Some(self.position(Words::unpack(key)))
    }

    /// A tie once every pattern holds pieces of both players: no one can
    /// complete one, so the board fills up without a pattern, a tie by the
    /// rules (misère too). A win when the mover can complete a pattern
    /// now, or wins by continuous fours; a loss when the opponent wins by
    /// them whatever the mover does ([`threats`]).
    #[inline]
    fn decided(&self, p: &OccupyPos<W>) -> Option<Value> {
        if p.done {
            None
        } else if p.know & (know::WINS_NOW | know::WIN) != 0 {
            Some(Value::Win)
        } else if p.know & know::TIE != 0 {
            Some(Value::Tie)
        } else if p.know & know::LOSE != 0 {
            Some(Value::Lose)
        } else {
            None
        }
    }

    /// (1, the mover's moves): to disprove that the mover reaches the
    /// value, each of its moves must be refuted, so a position with fewer
    /// replies is cheaper to prove for the opponent, and an unexpanded
    /// node starts near the numbers one expansion gives it (the mobility
    /// initialisation of proof-number search), so df-pn goes deeper
    /// instead of first expanding every sibling once. Measured (README,
    /// "Beyond the table"): fewer nodes than (1, 1) on Qubic positions and
    /// every m,n,k and pattern target but two tiny ones (the 3×3×3 cube,
    /// misère Connect-Four 4×4: up to 12 % more); preferring a forced reply
    /// further (δ = 1 where the opponent has a four) cost nodes on Qubic
    /// (the threat search already plays out lines of fours).
    #[inline]
    fn estimate(&self, p: &OccupyPos<W>) -> (u32, u32) {
        if self.estimates {
            (1, u32::from(p.moves).max(1))
        } else {
            (1, 1)
        }
    }

    /// The attacker's λ-moves first (λ-df-pn, see the module doc), with
    /// the children whose value is already known; all moves where it has
    /// none.
    fn focus(&self, p: &OccupyPos<W>, moves: &mut [(u16, OccupyPos<W>)]) -> usize {
        if !self.lambda || !self.threats_apply() || moves.is_empty() {
            return moves.len();
        }
        let lambda = match threats::recall_focus(self.id, &p.stones) {
            Some(b) => b,
            None => {
                let b = self.lambda_moves(p, moves);
                threats::remember_focus(self.id, &p.stones, &b);
                b
            }
        };
        if is_zero(&lambda) {
            return moves.len();
        }
        let first = |(m, c): &(u16, OccupyPos<W>)| {
            c.done || c.know & SETTLED != 0 || has(&lambda, *m as usize)
        };
        // A stable partition: each part keeps the move order.
        moves.sort_by_key(|mc| !first(mc));
        moves.iter().take_while(|mc| first(mc)).count()
    }

    fn weak_sums(&self) -> bool {
        self.weak
    }

    #[inline]
    fn wins_now(&self, p: &OccupyPos<W>) -> bool {
        p.know & know::WINS_NOW != 0
    }

    /// Sogo's 4×4×4 cube has its own alpha-beta search
    /// (`crate::search::alphabeta::cube`).
    fn alphabeta_native(&self, table_bytes: u64) -> Option<Native<'_, Self>> {
        Words::native(self, table_bytes)
    }
}
