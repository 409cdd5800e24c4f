//! The solver for loopy games (positions can repeat, [`Game::acyclic`] is
//! `false`): full retrograde analysis with child counts, then draws.
//!
//! 1. **Initialise.** Every legal position is enumerated once (through the
//!    game's tiers and units, which for a loopy game is usually the default
//!    index scan). A game-over position gets its value with remoteness 0; any
//!    other gets, in a side array, the number of its children
//!    ([`Game::move_count`], which must equal the number of indices
//!    [`Game::for_each_child_index`] yields: once per move).
//! 2. **Win/lose rounds.** Round `r` takes the frontier of positions decided
//!    as a win or a loss with remoteness `r` (round 0: the game-over wins and
//!    losses) and visits their parents ([`Game::for_each_parent_index`], once
//!    per move). A parent of a *losing* child that is still undecided becomes
//!    a win in `r + 1`: the rounds run in increasing `r`, so the first losing
//!    child to reach it is one of smallest remoteness. A parent of a *winning*
//!    child has its count decremented; when the count reaches zero every
//!    child is a win, decided in this round or earlier, so the largest child
//!    remoteness is `r` and the parent is a loss in `r + 1`. The positions
//!    decided in round `r` form the frontier of round `r + 1`.
//! 3. **Tie rounds** (primitive ties, the GamesmanClassic way). After the
//!    win/lose rounds, no undecided position has a losing child (it would be
//!    a win) or only winning children (it would be a loss), so an undecided
//!    position with a tying child is a tie in 1 + the smallest tying child's
//!    remoteness (a tie is preferred to a draw, as in the acyclic solver).
//!    Rounds as above, starting from the game-over ties.
//! 4. **Draws.** Every position still undecided can avoid losing forever and
//!    cannot force a win or a tie: a draw ([`CELL_DRAW`]).
//!
//! A position is *decided* when its count is zero. A round's updates to the
//! parents are applied in two phases per batch of the frontier: the updates
//! are listed and grouped by index range (bucket), then each bucket is
//! applied by a single task, so no two threads touch one counter or cell.
//! A claim (the parent of a losing or tying child) sets an undecided
//! parent's count to zero and writes its cell; a decrement (the parent of a
//! winning child) that takes the count from 1 to 0 writes a loss; updates
//! to a decided position are ignored. A claim and a decrement to zero never
//! meet at one position: a losing child is never decremented, so a position
//! that has one can never reach count zero.
//!
//! **Determinism.** Round `r` decides exactly the positions of remoteness
//! `r + 1`, and the value it writes to each (win in `r + 1`, loss in `r + 1`
//! or tie in `r + 1`) depends only on the round, not on which thread or which
//! update got there first: within a round, updates commute (claims are
//! idempotent, decrements add up, and the two never compete). So each
//! frontier is the same *set* for any thread count, batch size and
//! schedule, and the finished table is byte-identical; a frontier is sorted
//! before the next round anyway (for memory locality).

use super::{Progress, Slot, Tally};
use crate::error::{Error, Result};
use crate::format::{CellCodec, Summary, TableKind, CELL_DRAW, CELL_NONE};
use crate::game::Game;
use crate::value::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

/// Frontier positions whose parents one parallel task lists.
const FRONTIER_CHUNK: usize = 1 << 14;
/// Frontier positions per batch: bounds the listed updates' memory (about
/// 8 bytes per parent).
const BATCH: usize = 1 << 21;
/// A bucket spans at least 2^16 indices (more in tables over 2^28 entries,
/// to keep at most 2^12 buckets): its counts and cells stay in cache while
/// its updates are applied.
const BUCKET_BITS: u32 = 16;
/// Indices per task in the final draw-and-tally pass.
const SCAN_CHUNK: usize = 1 << 16;

/// A counter of undecided children; zero means the position is decided (or
/// is not a non-primitive position at all). Atomic only so the slice can be
/// shared: each counter is written by one task at a time (relaxed loads and
/// stores compile to plain ones), and rayon's joins order the phases.
trait Counter: Sync + Send {
    /// Largest count it holds.
    const MAX: u32;
    fn zero() -> Self;
    fn set(&self, v: u32);
    fn get(&self) -> u32;
}

macro_rules! counter {
    ($atomic:ty, $int:ty) => {
        impl Counter for $atomic {
            const MAX: u32 = <$int>::MAX as u32;
            #[inline(always)]
            fn zero() -> Self {
                <$atomic>::new(0)
            }
            #[inline(always)]
            fn set(&self, v: u32) {
                self.store(v as $int, Relaxed)
            }
            #[inline(always)]
            fn get(&self) -> u32 {
                self.load(Relaxed) as u32
            }
        }
    };
}

counter!(AtomicU8, u8);
counter!(AtomicU16, u16);
counter!(AtomicU32, u32);

/// Solves a loopy game into `cells` (zeroed): see the module docs.
pub(crate) fn solve<G: Game, S: Slot>(
    game: &G,
    cells: &[S],
    codec: CellCodec,
    progress: &dyn Progress,
) -> Result<Summary> {
    if codec.kind() == TableKind::Nimber {
        return Err(Error::NimbersUnsupported {
            spec: game.spec(),
            reason: "positions can repeat (a loopy game): only value tables can be built".into(),
        });
    }
    if game.is_folded() {
        return Err(Error::GameInvariant(
            "symmetry folding is not supported for loopy games".into(),
        ));
    }
    // Narrow counts first; a game with a position of more children than a
    // counter holds is redone with a wider one (the cells written so far
    // are the game-over values, written again identically).
    if let Some(s) = solve_with::<G, S, AtomicU8>(game, cells, codec, progress)? {
        return Ok(s);
    }
    if let Some(s) = solve_with::<G, S, AtomicU16>(game, cells, codec, progress)? {
        return Ok(s);
    }
    match solve_with::<G, S, AtomicU32>(game, cells, codec, progress)? {
        Some(s) => Ok(s),
        None => Err(Error::GameInvariant(
            "a position has more than 2^32 - 1 moves".into(),
        )),
    }
}

/// What the initialisation of one work unit found.
#[derive(Default)]
struct Init {
    positions: u64,
    /// Game-over wins and losses: the first win/lose frontier.
    seeds: Vec<u64>,
    /// Game-over ties: the first tie frontier.
    ties: Vec<u64>,
    /// A position had more children than the counter holds.
    overflow: bool,
}

impl Init {
    fn add(mut self, mut o: Init) -> Init {
        self.positions += o.positions;
        self.seeds.append(&mut o.seeds);
        self.ties.append(&mut o.ties);
        self.overflow |= o.overflow;
        self
    }
}

/// The solve with counters of type `C`; `Ok(None)` if they are too narrow.
fn solve_with<G: Game, S: Slot, C: Counter>(
    game: &G,
    cells: &[S],
    codec: CellCodec,
    progress: &dyn Progress,
) -> Result<Option<Summary>> {
    let size = game.size();
    let len = usize::try_from(size)
        .map_err(|_| Error::GameInvariant("table too large for this machine".into()))?;
    if cells.len() != len {
        return Err(Error::GameInvariant(format!(
            "the table has {} cells, the game {size} indices",
            cells.len()
        )));
    }
    let counts: Vec<C> = (0..len).into_par_iter().map(|_| C::zero()).collect();
    progress.tier(0, 1, size);

    // 1. Initialise every legal position.
    let mut init = Init::default();
    for tier in 0..game.tier_count() {
        let part = (0..game.tier_units(tier))
            .into_par_iter()
            .map(|unit| {
                let mut out = Init::default();
                let mut failure = None;
                game.for_each_in_unit(tier, unit, |index, pos| {
                    if failure.is_some() {
                        return;
                    }
                    if index >= size {
                        failure = Some(Error::GameInvariant(format!(
                            "position {} has index {index}, outside the table of {size}",
                            game.format_position(pos)
                        )));
                        return;
                    }
                    out.positions += 1;
                    match game.primitive(pos) {
                        Some(Value::Draw) => cells[index as usize].put(CELL_DRAW),
                        Some(v) => {
                            let cell = codec.encode(v, 0).unwrap_or(CELL_NONE);
                            cells[index as usize].put(cell);
                            if v == Value::Tie {
                                out.ties.push(index);
                            } else {
                                out.seeds.push(index);
                            }
                        }
                        None => {
                            let n = game.move_count(pos);
                            if n == 0 {
                                failure = Some(Error::GameInvariant(format!(
                                    "position {} has no moves but is not game over",
                                    game.format_position(pos)
                                )));
                            } else if n > u64::from(C::MAX) {
                                out.overflow = true;
                            } else {
                                counts[index as usize].set(n as u32);
                            }
                        }
                    }
                });
                failure.map_or(Ok(out), Err)
            })
            .try_reduce(Init::default, |a, b| Ok(a.add(b)))?;
        init = init.add(part);
    }
    if init.overflow {
        return Ok(None);
    }
    progress.advance((init.seeds.len() + init.ties.len()) as u64);

    // 2. Wins and losses, round by round.
    rounds(game, cells, &counts, codec, progress, init.seeds, false)?;
    // 3. Ties.
    rounds(game, cells, &counts, codec, progress, init.ties, true)?;

    // 4. Draws, and the tally of the finished table.
    let tally = (0..len.div_ceil(SCAN_CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut t = Tally::default();
            for i in c * SCAN_CHUNK..((c + 1) * SCAN_CHUNK).min(len) {
                if counts[i].get() != 0 {
                    cells[i].put(CELL_DRAW);
                }
                let cell = cells[i].get();
                if cell == CELL_NONE {
                    continue;
                }
                t.positions += 1;
                let Some(o) = codec.decode(cell) else {
                    continue;
                };
                t.counts[o.value.ordinal()] += 1;
                if let Some(r) = o.remoteness {
                    let m = &mut t.max_remoteness[o.value.ordinal()];
                    *m = (*m).max(r);
                }
            }
            t
        })
        .reduce(Tally::default, |a, b| a.add(&b));
    progress.advance(tally.counts[Value::Draw.ordinal()]);
    if tally.positions != init.positions {
        return Err(Error::GameInvariant(format!(
            "{} legal positions were enumerated but {} cells were filled (an index repeated?)",
            init.positions, tally.positions
        )));
    }
    Ok(Some(Summary {
        counts: tally.counts,
        non_positions: size - tally.positions,
        max_remoteness: tally.max_remoteness,
        max_nimber: 0,
    }))
}

/// Runs rounds from `frontier` (positions of remoteness 0) until a round
/// decides nothing. `ties`: the tie rounds, else the win/lose rounds.
///
/// A round's parent updates hit the table all over; done in place they
/// would cost a cache miss each. So a round goes in batches of frontier
/// positions, each in two parallel phases: (A) every frontier position's
/// parents are listed as updates (parent index, and whether the parent is
/// claimed or loses one undecided child), grouped by bucket (a range of
/// 2^16 indices or more); (B) each bucket's updates are applied by one
/// task, within a range of the counts and cells small enough for the
/// cache, with plain loads and stores. Applying a round's updates in any
/// order gives the same result (module docs), so batches and buckets do not
/// change it either.
fn rounds<G: Game, S: Slot, C: Counter>(
    game: &G,
    cells: &[S],
    counts: &[C],
    codec: CellCodec,
    progress: &dyn Progress,
    mut frontier: Vec<u64>,
    ties: bool,
) -> Result<()> {
    let size = game.size();
    // At most 2^12 buckets, so the per-chunk bucket tables stay small.
    let index_bits = 64 - size.leading_zeros();
    let bucket_bits = BUCKET_BITS.max(index_bits.saturating_sub(12));
    let buckets = (size >> bucket_bits) as usize + 1;
    frontier.par_sort_unstable();
    let mut r = 0u32;
    while !frontier.is_empty() {
        let next_r = r.saturating_add(1);
        // A remoteness too large for the cell is written as 0 and reported
        // below if anything was decided with it.
        let cell_of = |v: Value| codec.encode(v, next_r).unwrap_or(CELL_NONE);
        let claimed = cell_of(if ties { Value::Tie } else { Value::Win });
        let lost = cell_of(Value::Lose);
        let mut next = Vec::new();
        for batch in frontier.chunks(BATCH) {
            // Phase A: the updates, bucketed.
            let parts: Vec<Updates> = batch
                .par_chunks(FRONTIER_CHUNK)
                .map(|chunk| {
                    let mut list = Vec::new();
                    let mut failure = None;
                    for &i in chunk {
                        let Some(p) = game.decode(i) else {
                            failure = Some(Error::GameInvariant(format!(
                                "decided index {i} does not decode to a position"
                            )));
                            break;
                        };
                        // Parents of a losing or tying child are claimed;
                        // parents of a winning child lose an undecided child.
                        let claim = u64::from(ties || codec.code(cells[i as usize].get()) == 2);
                        game.for_each_parent_index(&p, |q| {
                            if q < size {
                                list.push(q << 1 | claim);
                            } else {
                                failure = Some(Error::GameInvariant(format!(
                                    "position {} has parent index {q}, outside the table of {size}",
                                    game.format_position(&p)
                                )));
                            }
                        });
                        if failure.is_some() {
                            break;
                        }
                    }
                    failure.map_or_else(|| Ok(Updates::bucketed(list, bucket_bits, buckets)), Err)
                })
                .collect::<Result<_>>()?;
            // Phase B: each bucket's updates in place.
            let decided: Vec<Vec<u64>> = (0..buckets)
                .into_par_iter()
                .with_min_len(8)
                .fold(Vec::new, |mut out, b| {
                    for part in &parts {
                        for &u in part.bucket(b) {
                            let q = (u >> 1) as usize;
                            let c = counts[q].get();
                            if c == 0 {
                                continue;
                            }
                            if u & 1 == 1 {
                                counts[q].set(0);
                                cells[q].put(claimed);
                                out.push(q as u64);
                            } else {
                                counts[q].set(c - 1);
                                if c == 1 {
                                    cells[q].put(lost);
                                    out.push(q as u64);
                                }
                            }
                        }
                    }
                    out
                })
                .collect();
            for d in decided {
                next.extend(d);
            }
        }
        if !next.is_empty() && claimed == CELL_NONE {
            return Err(Error::RemotenessOverflow {
                remoteness: next_r,
                width: codec.width(),
                max: codec.max_remoteness(),
            });
        }
        next.par_sort_unstable();
        progress.advance(next.len() as u64);
        frontier = next;
        r = next_r;
    }
    Ok(())
}

/// Phase-A output of one frontier chunk: updates grouped by bucket.
struct Updates {
    list: Vec<u64>,
    /// Bucket b's updates are `list[starts[b]..starts[b + 1]]`.
    starts: Vec<usize>,
}

impl Updates {
    /// Groups updates (`parent << 1 | claim`) by bucket (parent index
    /// `>> bits`) with a counting sort.
    fn bucketed(list: Vec<u64>, bits: u32, buckets: usize) -> Updates {
        let bucket = |u: u64| (u >> (bits + 1)) as usize;
        let mut starts = vec![0usize; buckets + 1];
        for &u in &list {
            starts[bucket(u) + 1] += 1;
        }
        for b in 0..buckets {
            starts[b + 1] += starts[b];
        }
        let mut fill = starts.clone();
        let mut sorted = vec![0u64; list.len()];
        for &u in &list {
            let f = &mut fill[bucket(u)];
            sorted[*f] = u;
            *f += 1;
        }
        Updates {
            list: sorted,
            starts,
        }
    }

    fn bucket(&self, b: usize) -> &[u64] {
        &self.list[self.starts[b]..self.starts[b + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise<C: Counter>() {
        let c = C::zero();
        assert_eq!(c.get(), 0);
        c.set(2);
        assert_eq!(c.get(), 2);
        c.set(C::MAX);
        assert_eq!(c.get(), C::MAX);
    }

    #[test]
    fn counters_hold_their_range() {
        exercise::<AtomicU8>();
        exercise::<AtomicU16>();
        exercise::<AtomicU32>();
    }
}
