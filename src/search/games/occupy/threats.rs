//! Threat knowledge: wins by continuous forcing threats, found by a small
//! search of forced lines and handed to df-pn as the value of a position
//! (`SearchGame::decided`), so that df-pn neither expands a won position
//! nor the replies of a defender that do nothing against a threat.
//!
//! **Which method, and why.** The search is "victory by continuous fours"
//! (VCF), Allis's threat sequences restricted to threats that force the
//! very next reply: the λ¹ level of Thomsen's λ-search. At each step the
//! attacker makes a *four* (an open pattern one square short of complete:
//! it owns all but one square, the defender none), so the defender must
//! take that square. Every defender move is forced, and that is what makes
//! the proof simple and sound (below); Allis's wider threats (Go-Moku's
//! threes) leave the defender several replies, which dependency-based
//! search must then prove one by one. Those wider threats are not lost
//! here: they are what df-pn itself searches, with the help of the *null
//! move* test below — a position where the attacker would have a VCF if it
//! could move again is one where the defender must answer it, and every
//! reply that does not touch the threat is proven lost without search.
//! That is λ² (threats of threats) with df-pn choosing among the answers.
//! On Qubic the forcing threats are exactly the fours (a line of two
//! forces nothing), so VCF is Allis's threat-space search for that game.
//!
//! **Soundness.** The attacker `a` is to move.
//! 1. If `a` has a four, it completes it and wins.
//! 2. If the defender `d` has two fours (two squares that complete one),
//!    `a` cannot stop both: the line fails. If `d` has one, `a` must take
//!    that square (its only move that does not lose at once), and the line
//!    goes on only if that move makes a four of `a`'s.
//! 3. Otherwise `a` may take any square that makes a four. After it, `d`
//!    has no four (it had none, or the one it had was just taken: a four
//!    of `d`'s elsewhere would have been a second one in step 2), so `d`
//!    cannot win at once; if `a` now has fours on two squares, `d` blocks
//!    at most one and `a` completes the other; with one, every move of `d`
//!    but taking it lets `a` complete it, so `d`'s move is forced, and the
//!    search goes on from step 1 after it. `d`'s forced move may make a
//!    four of `d`'s: step 2 then makes `a` answer it.
//!
//! Each step's claims are checked on the board, not assumed (a four of
//! `d`'s after `a`'s move, impossible by the argument, fails the line), so
//! a line found is a proof that `a` wins: `d` never has a choice that
//! does not lose at once. Under `:misere` completing a pattern loses and
//! none of this holds: the game then asks for nothing. With gravity a four
//! forces only when its square can be played; the game asks for nothing
//! with gravity either (a four under an empty cell is Connect-Four's
//! long-term threat, another kind of knowledge).
//!
//! **The null move.** At a node whose mover `m` has no four to play or to
//! answer, the search also asks whether the opponent `o` would win by VCF
//! if it were to move. If so, `m`'s move must do something about it. A
//! move of `m` on square `s` leaves `o`'s line intact when `s` is outside
//! every pattern the line relies on: `s` is none of the line's squares, no
//! pattern through `s` is one of `o`'s fours along the line, and no
//! pattern through `s` can become a four of `m`'s during the line (one open
//! for `m` that already holds all but two of its squares, or holding a
//! square `m` is forced to take). Then every count the line reads is the
//! same after `s` as before, so the line is a proof in that child too: the
//! child is a win for `o` without search ([`Affected`]). The other
//! children replay the line on their own board, which proves them when it
//! still holds; the rest are the defender's real answers, left to df-pn.
//!
//! A search is bounded by a budget of nodes and by a small table of the
//! positions it failed from (a hit only prunes: it can hide a win, never
//! make one). A failure that did not run into the budget holds for every
//! later search too (it tried every four), so those are kept across the
//! searches of a thread: a df-pn search meets the same positions again and
//! again, and on boards with few wins by threats (4×4 four in a row) the
//! repeated threat searches were two fifths of a node's cost.

use super::board::{first, two_or_more, Board, Lines};
use super::{and, bit, for_each, has, is_zero, or, Bits};

/// A threat search: its budget and its table of failed positions.
pub(super) struct Vcf {
    /// Nodes each search may visit, and those the current one has left.
    full: u32,
    budget: u32,
    /// Hashes of positions (with the attacker) the search failed from
    /// whatever its budget: kept per thread from search to search (a match
    /// only prunes, so another game's entry or a 2⁻⁶⁴ accident costs at
    /// most a missed win).
    failed: Vec<u64>,
    /// The current search ran out of budget below the step being searched.
    cut: bool,
    /// The attacker's moves of the line found, last first while searching.
    line: Vec<u16>,
}

/// Slots of the table of failed positions (a power of two): 16,384 rather
/// than 1,024, as df-pn comes back to a position long after a small table
/// has overwritten it.
const FAILED_SLOTS: usize = 1 << 14;

/// Slots of the table of expansions' threat results (a power of two).
const MEMO_SLOTS: usize = 1 << 14;

thread_local! {
    /// The table of failed positions, kept per thread.
    static FAILED: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The threat results of recent expansions ([`recall`]).
    static MEMO: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The λ-moves of recent attacker nodes ([`recall_focus`]).
    static FOCUS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The λ-moves an earlier search found at the node `stones` of the game
/// tagged `game` (see [`recall`]: an entry holds the tag and the squares
/// whole, so it answers for this node only).
#[inline]
pub(super) fn recall_focus<const W: usize>(game: u64, stones: &[Bits<W>; 2]) -> Option<Bits<W>> {
    let stride = 1 + 3 * W;
    let at = (position_hash(stones, 3) as usize & (MEMO_SLOTS - 1)) * stride;
    FOCUS
        .try_with(|m| {
            let m = m.borrow();
            if m.len() != MEMO_SLOTS * stride {
                return None;
            }
            let e = &m[at..at + stride];
            let word = |i: usize| -> Bits<W> { std::array::from_fn(|j| e[1 + i * W + j]) };
            (e[0] == game && word(0) == stones[0] && word(1) == stones[1]).then(|| word(2))
        })
        .ok()
        .flatten()
}

/// Keeps the λ-moves found at `stones` (game `game`, never 0).
#[inline]
pub(super) fn remember_focus<const W: usize>(game: u64, stones: &[Bits<W>; 2], moves: &Bits<W>) {
    let stride = 1 + 3 * W;
    let at = (position_hash(stones, 3) as usize & (MEMO_SLOTS - 1)) * stride;
    let _ = FOCUS.try_with(|m| {
        let mut m = m.borrow_mut();
        if m.len() != MEMO_SLOTS * stride {
            *m = vec![0; MEMO_SLOTS * stride];
        }
        let e = &mut m[at..at + stride];
        e[0] = game;
        for (i, b) in [&stones[0], &stones[1], moves].iter().enumerate() {
            e[1 + i * W..1 + (i + 1) * W].copy_from_slice(&b[..]);
        }
    });
}

/// What an expansion learnt about its node's children from threats, as
/// [`recall`] and [`remember`] keep it: the squares whose move hands the
/// opponent a win, and those whose move wins.
pub(super) type Learnt<const W: usize> = [Bits<W>; 2];

/// The slot of a node in the memo, and the words of an entry: the game's
/// tag, both players' squares, what was learnt.
#[inline]
fn memo_slot<const W: usize>(stones: &[Bits<W>; 2]) -> (usize, usize) {
    let stride = 1 + 4 * W;
    let h = position_hash(stones, 2);
    ((h as usize & (MEMO_SLOTS - 1)) * stride, stride)
}

/// What an earlier expansion of the node `stones` of the game tagged `game`
/// learnt from threats, if the memo still holds it. df-pn expands a node
/// many times (4×4 four in a row: each about twice), and its threat
/// searches give the same answers each time: an expansion that finds them
/// here builds no board for the threat search and searches nothing. An
/// entry holds the game's tag and the node's squares whole, so it answers
/// for no other position or game: what it says was proven of this node.
#[inline]
pub(super) fn recall<const W: usize>(game: u64, stones: &[Bits<W>; 2]) -> Option<Learnt<W>> {
    let (at, stride) = memo_slot(stones);
    MEMO.try_with(|m| {
        let m = m.borrow();
        if m.len() != MEMO_SLOTS * stride {
            // Empty, or laid out for another width.
            return None;
        }
        let e = &m[at..at + stride];
        let word = |i: usize| -> Bits<W> { std::array::from_fn(|j| e[1 + i * W + j]) };
        (e[0] == game && word(0) == stones[0] && word(1) == stones[1]).then(|| [word(2), word(3)])
    })
    .ok()
    .flatten()
}

/// Keeps what an expansion of `stones` (game `game`, never 0) learnt, in
/// place of whatever shared its slot.
#[inline]
pub(super) fn remember<const W: usize>(game: u64, stones: &[Bits<W>; 2], learnt: &Learnt<W>) {
    let (at, stride) = memo_slot(stones);
    let _ = MEMO.try_with(|m| {
        let mut m = m.borrow_mut();
        if m.len() != MEMO_SLOTS * stride {
            *m = vec![0; MEMO_SLOTS * stride];
        }
        let e = &mut m[at..at + stride];
        e[0] = game;
        for (i, b) in [&stones[0], &stones[1], &learnt[0], &learnt[1]]
            .iter()
            .enumerate()
        {
            e[1 + i * W..1 + (i + 1) * W].copy_from_slice(&b[..]);
        }
    });
}

impl Vcf {
    /// A searcher whose searches visit at most `budget` nodes each.
    pub fn new(budget: u32) -> Vcf {
        let mut failed = FAILED
            .try_with(|f| std::mem::take(&mut *f.borrow_mut()))
            .unwrap_or_default();
        if failed.len() != FAILED_SLOTS {
            failed = vec![0; FAILED_SLOTS];
        }
        Vcf {
            full: budget,
            budget,
            failed,
            cut: false,
            line: Vec::new(),
        }
    }

    /// The attacker's moves of the line found by the last successful
    /// [`Vcf::search`], in order (empty when it already had a four).
    pub fn line(&self) -> &[u16] {
        &self.line
    }

    /// Whether `a`, to move on `board`, wins by continuous fours (within
    /// the budget). `board` is left as it was.
    pub fn search<const W: usize>(
        &mut self,
        lines: &Lines<W>,
        board: &mut Board<W>,
        a: usize,
    ) -> bool {
        self.line.clear();
        self.budget = self.full;
        self.cut = false;
        let won = self.step(lines, board, a);
        self.line.reverse();
        won
    }

    fn step<const W: usize>(&mut self, lines: &Lines<W>, board: &mut Board<W>, a: usize) -> bool {
        let d = 1 - a;
        if !is_zero(&board.four[a]) {
            return true;
        }
        let theirs = board.four[d];
        let candidates = if is_zero(&theirs) {
            board.three[a]
        } else if two_or_more(&theirs) {
            return false;
        } else {
            and(&theirs, &board.three[a])
        };
        if is_zero(&candidates) {
            return false;
        }
        if self.budget == 0 {
            self.cut = true;
            return false;
        }
        self.budget -= 1;
        let h = position_hash(&board.stones, a);
        let slot = h as usize & (FAILED_SLOTS - 1);
        if self.failed[slot] == h {
            return false;
        }
        // Whether the budget ran out below this step, apart from before it.
        let cut_before = std::mem::replace(&mut self.cut, false);
        let mut won = false;
        for_each_until(&candidates, |m| {
            // The fours `a` makes on `m`, from the counts, before playing
            // it: the other empty square of each open pattern through `m`
            // two short. `a` has no four now (it would have won above),
            // and `d` none after the move (it had none, or only on `m`).
            let empty = board.empty(lines);
            let mut fours = [0u64; W];
            for &i in lines.through(m) {
                let i = i as usize;
                let n = board.count[i];
                if n[d] == 0 && n[a] + 2 == lines.size[i] {
                    fours = or(&fours, &and(&lines.patterns[i], &empty));
                }
            }
            fours[m / 64] &= !(1 << (m % 64));
            if two_or_more(&fours) {
                self.line.push(m as u16);
                won = true;
                return true;
            }
            if is_zero(&fours) {
                // Not possible: `m` is a three of `a`'s. A guard.
                return false;
            }
            let t = first(&fours);
            // The position after the move and the forced reply, where the
            // line goes on: known to fail, it is not played.
            let mut after = board.stones;
            after[a][m / 64] |= 1 << (m % 64);
            after[d][t / 64] |= 1 << (t % 64);
            let h = position_hash(&after, a);
            if self.failed[h as usize & (FAILED_SLOTS - 1)] == h {
                return false;
            }
            board.place(lines, a, m);
            debug_assert!(board.four[a] == fours && is_zero(&board.four[d]));
            board.place(lines, d, t);
            let ok = self.step(lines, board, a);
            board.lift(lines, d, t);
            board.lift(lines, a, m);
            if ok {
                self.line.push(m as u16);
                won = true;
            }
            ok
        });
        if !won && !self.cut {
            self.failed[slot] = h;
        }
        self.cut |= cut_before;
        won
    }
}

impl Drop for Vcf {
    fn drop(&mut self) {
        let failed = std::mem::take(&mut self.failed);
        let _ = FAILED.try_with(|f| *f.borrow_mut() = failed);
    }
}

/// Whether the line `line` (the attacker's moves) still wins for `a`, to
/// move on `board`: every step checked as the search checks it. `board`
/// is left as it was.
pub(super) fn replay<const W: usize>(
    lines: &Lines<W>,
    board: &mut Board<W>,
    a: usize,
    line: &[u16],
) -> bool {
    let d = 1 - a;
    let mut placed: Vec<(usize, usize)> = Vec::with_capacity(2 * line.len());
    let mut won = false;
    let mut j = 0;
    loop {
        if !is_zero(&board.four[a]) {
            won = true;
            break;
        }
        let theirs = board.four[d];
        if j == line.len() || two_or_more(&theirs) {
            break;
        }
        let m = line[j] as usize;
        j += 1;
        if !has(&board.three[a], m) || (!is_zero(&theirs) && !has(&theirs, m)) {
            break;
        }
        board.place(lines, a, m);
        placed.push((a, m));
        let fours = board.four[a];
        if !is_zero(&board.four[d]) || is_zero(&fours) {
            break;
        }
        if two_or_more(&fours) {
            won = true;
            break;
        }
        let t = first(&fours);
        board.place(lines, d, t);
        placed.push((d, t));
    }
    while let Some((c, s)) = placed.pop() {
        board.lift(lines, c, s);
    }
    won
}

/// The squares where a move of the defender `d` may disturb the line of
/// `a` found on `board` (see the module doc): the line's squares, the
/// patterns that are `a`'s fours along it, and the patterns open for `d`
/// that could become `d`'s fours during it. A move of `d` anywhere else
/// leaves the line a proof.
pub(super) fn affected<const W: usize>(
    lines: &Lines<W>,
    board: &mut Board<W>,
    a: usize,
    line: &[u16],
) -> Bits<W> {
    let d = 1 - a;
    let mut out = [0u64; W];
    // `a`'s fours before the line (it wins at once: no moves).
    for_each(&board.four[a], |f| {
        out = or(&out, &fours_through(lines, board, a, f))
    });
    let mut placed: Vec<(usize, usize)> = Vec::with_capacity(2 * line.len());
    let mut replies = [0u64; W];
    for &m in line {
        let m = m as usize;
        board.place(lines, a, m);
        placed.push((a, m));
        out = or(&out, &fours_through(lines, board, a, m));
        let fours = board.four[a];
        if two_or_more(&fours) || is_zero(&fours) {
            break;
        }
        let t = first(&fours);
        board.place(lines, d, t);
        placed.push((d, t));
        replies = or(&replies, &bit(t));
        out = or(&out, &bit(t));
    }
    while let Some((c, s)) = placed.pop() {
        out = or(&out, &bit(s));
        board.lift(lines, c, s);
    }
    for (i, p) in lines.patterns.iter().enumerate() {
        let n = board.count[i];
        if n[a] == 0 && (n[d] + 2 >= lines.size[i] || !is_zero(&and(p, &replies))) {
            out = or(&out, p);
        }
    }
    out
}

/// The patterns through `s` that are fours of `a` (all of `a`'s but one
/// square, none of the other's), as one set of squares.
fn fours_through<const W: usize>(
    lines: &Lines<W>,
    board: &Board<W>,
    a: usize,
    s: usize,
) -> Bits<W> {
    let mut out = [0u64; W];
    for &i in lines.through(s) {
        let i = i as usize;
        let n = board.count[i];
        if n[1 - a] == 0 && n[a] + 1 == lines.size[i] {
            out = or(&out, &lines.patterns[i]);
        }
    }
    out
}

/// Calls `f` on each square of `b` in increasing order until it returns
/// `true`.
#[inline(always)]
fn for_each_until<const W: usize>(b: &Bits<W>, mut f: impl FnMut(usize) -> bool) {
    for (i, &w) in b.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            if f(i * 64 + w.trailing_zeros() as usize) {
                return;
            }
            w &= w - 1;
        }
    }
}

/// A well-mixed hash of both players' squares and the attacker.
#[inline]
fn position_hash<const W: usize>(stones: &[Bits<W>; 2], a: usize) -> u64 {
    let mut h = 0x243f_6a88_85a3_08d3u64 ^ a as u64;
    for set in stones {
        for &w in set {
            h = crate::search::mix64(h ^ w);
        }
    }
    h
}
