//! Exact scores of the gravity boards, as Pascal Pons' Connect-Four solver
//! gives them (his `Solver::solve`, not weak): the value for the player to
//! move of how soon the game ends. A win scores 1 + the stones the winner
//! has left when the winning stone lands (the sooner, the more), a full
//! board 0, a loss the same count for the opponent, negated: with `C`
//! cells and the game won by the `m`-th stone, the winner scores
//! `(C + 2 − m) / 2` (rounded down). The distance to the end follows
//! ([`remoteness`]): the tables' remoteness, plies to the end under
//! perfect play (the fastest win, the slowest loss).
//!
//! The score is found as Pons finds it: null-window probes "is the score
//! above `s`?" narrowing `[min, max]` (first at the middle pulled towards
//! 0, where most positions are), each a negamax over scores with the
//! bitboards' non-losing moves and Pons' move order, and a table of score
//! bounds of its own (`ScoreTable`): the value search's table holds
//! win/tie/loss bounds in one word per position, and widening that word
//! for scores would slow every value search for the sake of this one.
//!
//! The table is shared by threads that score different positions at once
//! (`--moves`: each thread takes the next move, see
//! [`super::AlphaBeta::scores`]): a slot is a sequence lock (a version
//! word, odd while written, around the key and the bounds), so a reader
//! takes a slot only as one writer left it, and a slot never answers for
//! another position whatever the timing.

use super::Worker;
use crate::search::games::columns::bits::{below, play, Bits, Layout};
use std::sync::atomic::{fence, AtomicU64, Ordering};

/// Most columns a move list holds.
const MAX_MOVES: usize = crate::search::games::columns::MAX_COLUMNS;

/// The table of score bounds: one slot per key's hash, always replaced
/// (a slot holds the full raw key, so a slot never answers for another
/// position), shared by the threads (see the module doc).
pub(crate) struct ScoreTable {
    slots: Vec<Slot>,
}

/// One slot: `seq` counts its writes, twice each (odd while one is under
/// way); `data` holds the bounds (the low 16 bits) and `key` the raw
/// canonical key + 1 (0: empty), both written only by the writer holding
/// `seq` odd.
#[derive(Default)]
struct Slot {
    seq: AtomicU64,
    key: AtomicU64,
    data: AtomicU64,
}

impl ScoreTable {
    /// A table of about `bytes` (a power of two of slots, at least 4,096).
    pub fn new(bytes: u64) -> ScoreTable {
        let want = (bytes / std::mem::size_of::<Slot>() as u64).max(1 << 12);
        let n = 1usize << (63 - want.leading_zeros());
        ScoreTable {
            slots: (0..n).map(|_| Slot::default()).collect(),
        }
    }

    /// Entries in use, entries, bytes: read at the end of a search (a
    /// walk of every slot).
    pub fn usage(&self) -> crate::search::engine::TableUse {
        crate::search::engine::TableUse {
            used: self
                .slots
                .iter()
                .filter(|s| s.key.load(Ordering::Relaxed) != 0)
                .count() as u64,
            capacity: self.slots.len() as u64,
            bytes: (self.slots.len() * std::mem::size_of::<Slot>()) as u64,
        }
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & (self.slots.len() - 1)
    }

    /// The slot's key and bounds as one write left them, or `None` while
    /// a write is under way or when one happened meanwhile.
    #[inline]
    fn read(s: &Slot) -> Option<(u64, i8, i8)> {
        let before = s.seq.load(Ordering::Acquire);
        if before & 1 != 0 {
            return None;
        }
        let key = s.key.load(Ordering::Relaxed);
        let data = s.data.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        (s.seq.load(Ordering::Relaxed) == before).then_some((
            key,
            data as u8 as i8,
            (data >> 8) as u8 as i8,
        ))
    }

    #[inline]
    fn get(&self, key: u64) -> Option<(i8, i8)> {
        let (k, lo, hi) = Self::read(&self.slots[self.index(key)])?;
        (k == key.wrapping_add(1)).then_some((lo, hi))
    }

    /// Stores the bounds of `key` (met with the slot's, if it holds the
    /// key). Skipped while another thread writes the slot: a table entry
    /// only saves work.
    #[inline]
    fn put(&self, key: u64, lo: i32, hi: i32) {
        let s = &self.slots[self.index(key)];
        let seq = s.seq.load(Ordering::Relaxed);
        if seq & 1 != 0
            || s.seq
                .compare_exchange(seq, seq + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        fence(Ordering::Release);
        let (mut lo, mut hi) = (lo, hi);
        // The slot cannot change under the lock held.
        if s.key.load(Ordering::Relaxed) == key.wrapping_add(1) {
            // Both bounds are proofs: their meet holds.
            let data = s.data.load(Ordering::Relaxed);
            lo = lo.max(i32::from(data as u8 as i8));
            hi = hi.min(i32::from((data >> 8) as u8 as i8));
        }
        s.key.store(key.wrapping_add(1), Ordering::Relaxed);
        let data = u64::from(lo as i8 as u8) | u64::from(hi as i8 as u8) << 8;
        s.data.store(data, Ordering::Relaxed);
        s.seq.store(seq + 2, Ordering::Release);
    }
}

/// The exact score of the position (`cur` the mover's pieces, `mask`
/// every piece; the game not over) for the player to move, or `None` when
/// the worker is stopped first.
pub(crate) fn solve<L: Bits>(
    l: &L,
    g: &Layout,
    w: &mut Worker<'_>,
    table: &ScoreTable,
    cur: u64,
    mask: u64,
) -> Option<i32> {
    let cells = g.cells() as i32;
    let n = mask.count_ones() as i32;
    if l.winning(cur, mask) & l.possible(mask) != 0 {
        return Some((cells + 1 - n) / 2);
    }
    let mut min = -(cells - n) / 2;
    let mut max = (cells + 1 - n) / 2;
    let s = Scorer { l, g, cells };
    while min < max {
        let mut med = min + (max - min) / 2;
        if med <= 0 && min / 2 < med {
            med = min / 2;
        } else if med >= 0 && max / 2 > med {
            med = max / 2;
        }
        let r = s.negamax(w, table, cur, mask, med, med + 1)?;
        if r <= med {
            max = r;
        } else {
            min = r;
        }
    }
    Some(min)
}

/// Plies from a position of `stones` stones on a board of `cells` to the
/// end under perfect play, given its exact `score` for the player to move:
/// the stone count `m` that ends the game is the one of the winner's
/// parity that the score gives.
pub fn remoteness(cells: u32, stones: u32, score: i32) -> u32 {
    let (cells, stones) = (cells as i32, stones as i32);
    if score == 0 {
        return (cells - stones) as u32;
    }
    // The winner moves at odd distances from here when it is the mover.
    let parity = if score > 0 { stones + 1 } else { stones } & 1;
    let m = cells + 2 - 2 * score.abs();
    let m = if m & 1 == parity { m } else { m - 1 };
    (m - stones) as u32
}

/// One search's board and sizes.
struct Scorer<'l, L> {
    l: &'l L,
    g: &'l Layout,
    cells: i32,
}

impl<L: Bits> Scorer<'_, L> {
    /// The score of the position within `(alpha, beta)`: exact inside it,
    /// an upper bound at or below `alpha`, a lower bound at or above
    /// `beta`. The mover cannot win at once.
    fn negamax(
        &self,
        w: &mut Worker<'_>,
        table: &ScoreTable,
        cur: u64,
        mask: u64,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        if !w.visit() {
            return None;
        }
        let (l, g, cells) = (self.l, self.g, self.cells);
        let n = mask.count_ones() as i32;
        let opp = cur ^ mask;
        let possible = l.possible(mask);
        let opp_win = l.winning(opp, mask);
        let forced = possible & opp_win;
        let mut playable = possible;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return Some(-(cells - n) / 2);
            }
            playable = forced;
        }
        playable &= !below(opp_win);
        if playable == 0 {
            // Every move lets the opponent win with the next stone.
            return Some(-(cells - n) / 2);
        }
        if n + 2 >= cells {
            return Some(0);
        }
        // The opponent wins at best with its stone after next; the mover
        // at best with its stone after next too (not at once).
        let mut lo = -(cells - 2 - n) / 2;
        let mut hi = (cells - 1 - n) / 2;
        if !l.open(opp) {
            hi = hi.min(0);
        }
        if !l.open(cur) {
            lo = lo.max(0);
        }
        let key = l.key(cur, mask).0;
        if let Some((tlo, thi)) = table.get(key) {
            lo = lo.max(i32::from(tlo));
            hi = hi.min(i32::from(thi));
        }
        if lo >= hi || lo >= beta {
            return Some(lo);
        }
        if hi <= alpha {
            return Some(hi);
        }
        let a0 = alpha.max(lo);
        let b = beta.min(hi);
        let mut a = a0;
        // Pons' order: by the cells the mover could complete after the
        // move, centre columns first on ties.
        let mut moves = [(0u32, 0u64); MAX_MOVES];
        let mut k = 0;
        for &c in g.order() {
            let m = playable & g.col_mask(c as usize);
            if m == 0 {
                continue;
            }
            let score = l.winning(cur | m, mask).count_ones();
            let mut i = k;
            while i > 0 && moves[i - 1].0 < score {
                moves[i] = moves[i - 1];
                i -= 1;
            }
            moves[i] = (score, m);
            k += 1;
        }
        let mut best = i32::MIN;
        for &(_, m) in &moves[..k] {
            let (o, after) = play(cur, mask, m);
            let s = -self.negamax(w, table, o, after, -b, -a)?;
            best = best.max(s);
            if s >= b {
                table.put(key, s, hi);
                return Some(s);
            }
            a = a.max(s);
        }
        if best > a0 {
            table.put(key, best, best);
        } else {
            table.put(key, lo, best);
        }
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::remoteness;

    #[test]
    fn a_score_gives_the_plies_to_the_end() {
        // 7x6, empty board: the first player wins with its 21st stone
        // (m = 41) at score 1; at score 18, with its 4th (m = 7).
        assert_eq!(remoteness(42, 0, 1), 41);
        assert_eq!(remoteness(42, 0, 18), 7);
        // A win at once, either parity of stones.
        assert_eq!(remoteness(42, 7, (43 - 7) / 2), 1);
        assert_eq!(remoteness(42, 8, (43 - 8) / 2), 1);
        // Lost at the opponent's next stone.
        assert_eq!(remoteness(42, 8, -(42 - 8) / 2), 2);
        assert_eq!(remoteness(42, 9, -(42 - 9) / 2), 2);
        // A draw fills the board; an odd board too.
        assert_eq!(remoteness(42, 12, 0), 30);
        assert_eq!(remoteness(25, 0, 1), 25);
    }
}
