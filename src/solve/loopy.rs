//! The solver for loopy games (positions can repeat, [`Game::acyclic`] is
//! `false`): full retrograde analysis with child counts, then draws.
//!
//! 1. **Initialise.** Every legal position is enumerated once (through the
//!    game's tiers and units, which for a loopy game is usually the default
//!    index scan). A game-over position gets its value with remoteness 0; any
//!    other gets, in a side array, the number of its children (counted with
//!    multiplicity: once per move).
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
//! A position is *decided* when its count is zero: a win or tie is claimed
//! by atomically swapping the count to zero (only the thread that sees a
//! non-zero previous value writes the cell and adds it to the next
//! frontier); a loss is claimed by the thread whose decrement takes the
//! count from 1 to 0 (decrements never go below zero, so later decrements of
//! a position already won are no-ops). The two claims never compete for one
//! position: a losing child is never decremented, so a position with one can
//! never reach count zero.
//!
//! **Determinism.** Round `r` decides exactly the positions of remoteness
//! `r + 1`, and the value it writes to each (win in `r + 1`, loss in `r + 1`
//! or tie in `r + 1`) depends only on the round, not on which thread or which
//! child got there first. So each frontier is the same *set* for any thread
//! count and schedule, and the finished table is byte-identical; only the
//! order in which a frontier is collected varies, and it is sorted (for
//! memory locality) before the next round.

use super::{Progress, Slot, Tally};
use crate::error::{Error, Result};
use crate::format::Summary;
use crate::game::Game;
use crate::value::{CellCodec, TableKind, Value, CELL_DRAW, CELL_NONE};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

/// Frontier entries handled by one parallel task.
const FRONTIER_CHUNK: usize = 1 << 12;
/// Indices per task in the final draw-and-tally pass.
const SCAN_CHUNK: usize = 1 << 16;

/// A counter of undecided children, shared by the threads; zero means the
/// position is decided (or is not a non-primitive position at all).
trait Counter: Sync + Send {
    /// Largest count it holds.
    const MAX: u32;
    fn zero() -> Self;
    fn set(&self, v: u32);
    fn get(&self) -> u32;
    /// Decrements a non-zero count; returns the previous value (0: left alone).
    fn dec(&self) -> u32;
    /// Sets the count to zero; returns the previous value.
    fn take(&self) -> u32;
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
            #[inline(always)]
            fn dec(&self) -> u32 {
                match self.fetch_update(Relaxed, Relaxed, |c| c.checked_sub(1)) {
                    Ok(c) | Err(c) => c as u32,
                }
            }
            #[inline(always)]
            fn take(&self) -> u32 {
                self.swap(0, Relaxed) as u32
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
                            let mut n = 0u64;
                            game.for_each_child_index(pos, |_| n += 1);
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
    frontier.par_sort_unstable();
    let mut r = 0u32;
    while !frontier.is_empty() {
        let next = r.checked_add(1).unwrap_or(u32::MAX);
        // A remoteness too large for the cell is written as 0 and reported
        // below if anything was decided with it.
        let cell_of = |v: Value| codec.encode(v, next).unwrap_or(CELL_NONE);
        let (win, lose, tie) = (
            cell_of(Value::Win),
            cell_of(Value::Lose),
            cell_of(Value::Tie),
        );
        let parts: Vec<Vec<u64>> = frontier
            .par_chunks(FRONTIER_CHUNK)
            .map(|chunk| {
                let mut out = Vec::new();
                let mut failure = None;
                for &i in chunk {
                    let Some(p) = game.decode(i) else {
                        failure = Some(Error::GameInvariant(format!(
                            "decided index {i} does not decode to a position"
                        )));
                        break;
                    };
                    // Parents of a losing or tying child are claimed; parents
                    // of a winning child lose one undecided child.
                    let claim = ties || codec.code(cells[i as usize].get()) == 2;
                    let value = if ties { tie } else { win };
                    game.for_each_parent_index(&p, |q| {
                        let Some(c) = usize::try_from(q).ok().and_then(|q| counts.get(q)) else {
                            failure = Some(Error::GameInvariant(format!(
                                "position {} has parent index {q}, outside the table of {size}",
                                game.format_position(&p)
                            )));
                            return;
                        };
                        if claim {
                            if c.take() != 0 {
                                cells[q as usize].put(value);
                                out.push(q);
                            }
                        } else if c.dec() == 1 {
                            cells[q as usize].put(lose);
                            out.push(q);
                        }
                    });
                    if failure.is_some() {
                        break;
                    }
                }
                failure.map_or(Ok(out), Err)
            })
            .collect::<Result<_>>()?;
        let total = parts.iter().map(Vec::len).sum();
        frontier.clear();
        frontier.reserve(total);
        for p in parts {
            frontier.extend(p);
        }
        if !frontier.is_empty() && win == CELL_NONE {
            return Err(Error::RemotenessOverflow {
                remoteness: next,
                width: codec.width(),
                max: codec.max_remoteness(),
            });
        }
        frontier.par_sort_unstable();
        progress.advance(frontier.len() as u64);
        r = next;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise<C: Counter>() {
        let c = C::zero();
        assert_eq!(c.dec(), 0);
        assert_eq!(c.get(), 0);
        c.set(2);
        assert_eq!(c.dec(), 2);
        assert_eq!(c.dec(), 1);
        assert_eq!(c.dec(), 0, "never below zero");
        c.set(C::MAX);
        assert_eq!(c.get(), C::MAX);
        assert_eq!(c.take(), C::MAX);
        assert_eq!(c.take(), 0);
    }

    #[test]
    fn counters_stop_at_zero() {
        exercise::<AtomicU8>();
        exercise::<AtomicU16>();
        exercise::<AtomicU32>();
    }
}
