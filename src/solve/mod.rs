//! The generator: labels every position backward from game-over positions,
//! tier by tier, into a table of cells. Generic over [`Game`]; never names one.
//!
//! Each tier's positions depend only on positions of lower tiers, which are
//! final when the tier starts, so a tier's work units run in parallel and the
//! result does not depend on the thread count or schedule.

mod file;

pub use file::{solve_to_file, SolveReport};

use crate::error::{Error, Result};
use crate::format::Summary;
use crate::game::Game;
use crate::value::{CellCodec, Value, CELL_DRAW, CELL_NONE};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};

/// Receives progress reports; the command line draws a bar from them.
pub trait Progress: Sync {
    /// A tier starts; `units` work units follow.
    fn tier(&self, tier: u32, tiers: u32, units: u64);
    /// `positions` more positions are final.
    fn advance(&self, positions: u64);
}

/// A progress sink that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn tier(&self, _: u32, _: u32, _: u64) {}
    fn advance(&self, _: u64) {}
}

/// A cell slot shared by the solver's threads. Each slot is written by
/// exactly one thread, within one tier, and read only in later tiers, after
/// rayon's join has ordered the accesses, so relaxed atomics suffice: they
/// compile to plain loads and stores.
trait Slot: Sync {
    fn get(&self) -> u32;
    fn put(&self, v: u32);
}

impl Slot for AtomicU8 {
    #[inline(always)]
    fn get(&self) -> u32 {
        u32::from(self.load(Relaxed))
    }
    #[inline(always)]
    fn put(&self, v: u32) {
        self.store(v as u8, Relaxed)
    }
}

impl Slot for AtomicU16 {
    #[inline(always)]
    fn get(&self) -> u32 {
        u32::from(self.load(Relaxed))
    }
    #[inline(always)]
    fn put(&self, v: u32) {
        self.store(v as u16, Relaxed)
    }
}

/// Per-unit tallies, reduced in a fixed order.
#[derive(Clone, Default)]
struct Tally {
    positions: u64,
    counts: [u64; 4],
    max_remoteness: [u32; 3],
}

impl Tally {
    fn add(mut self, o: &Tally) -> Tally {
        self.positions += o.positions;
        for i in 0..4 {
            self.counts[i] += o.counts[i];
        }
        for i in 0..3 {
            self.max_remoteness[i] = self.max_remoteness[i].max(o.max_remoteness[i]);
        }
        self
    }
}

/// Solves `game` into `data`, a zeroed buffer of `game.size()` cells of the
/// width `codec` declares (little-endian). Returns the header summary.
pub fn solve_into<G: Game>(
    game: &G,
    data: &mut [u8],
    codec: CellCodec,
    progress: &dyn Progress,
) -> Result<Summary> {
    let expected = game.size() as usize * usize::from(codec.width());
    if data.len() != expected {
        return Err(Error::GameInvariant(format!(
            "buffer holds {} bytes, the table needs {expected}",
            data.len()
        )));
    }
    match codec.width() {
        1 => {
            // Safety: AtomicU8 has the size and alignment of u8, and the
            // exclusive borrow of `data` guarantees no other access for the
            // lifetime of the view.
            let cells = unsafe { &*(data as *mut [u8] as *const [AtomicU8]) };
            solve_cells(game, cells, codec, progress)
        }
        2 => {
            if data.as_ptr() as usize % 2 != 0 {
                return Err(Error::GameInvariant(
                    "two-byte cells need an even buffer address".into(),
                ));
            }
            // Safety: the address is even (checked above), the length is a
            // multiple of 2 (checked above), AtomicU16 has u16's layout, and
            // the exclusive borrow rules out other access. Cells are stored in
            // native order, which is little-endian on every supported target.
            let cells = unsafe {
                std::slice::from_raw_parts(data.as_mut_ptr() as *const AtomicU16, data.len() / 2)
            };
            solve_cells(game, cells, codec, progress)
        }
        w => Err(Error::GameInvariant(format!("unsupported cell width {w}"))),
    }
}

fn solve_cells<G: Game, S: Slot>(
    game: &G,
    cells: &[S],
    codec: CellCodec,
    progress: &dyn Progress,
) -> Result<Summary> {
    let tiers = game.tier_count();
    let mut total = Tally::default();
    for tier in 0..tiers {
        let units = game.tier_units(tier);
        progress.tier(tier, tiers, units);
        let tally = (0..units)
            .into_par_iter()
            .map(|unit| {
                let t = solve_unit(game, cells, codec, tier, unit);
                if let Ok(t) = &t {
                    progress.advance(t.positions);
                }
                t
            })
            .try_reduce(Tally::default, |a, b| Ok(a.add(&b)))?;
        total = total.add(&tally);
    }
    let size = game.size();
    Ok(Summary {
        counts: total.counts,
        non_positions: size - total.positions,
        max_remoteness: total.max_remoteness,
    })
}

/// Solves one work unit; the hot loop.
#[inline(never)]
fn solve_unit<G: Game, S: Slot>(
    game: &G,
    cells: &[S],
    codec: CellCodec,
    tier: u32,
    unit: u64,
) -> Result<Tally> {
    let mut tally = Tally::default();
    let mut failure: Option<Error> = None;
    game.for_each_in_unit(tier, unit, |index, pos| {
        if failure.is_some() {
            return;
        }
        let (value, r) = match game.primitive(pos) {
            Some(v) => (v, 0),
            None => {
                let mut min_lose = u32::MAX;
                let mut min_tie = u32::MAX;
                let mut max_win = 0u32;
                let mut children = 0u32;
                let mut draw = false;
                let mut unsolved = None;
                game.for_each_child_index(pos, |child| {
                    let c = cells[child as usize].get();
                    let r = codec.remoteness(c);
                    match codec.code(c) {
                        2 => min_lose = min_lose.min(r),
                        1 => max_win = max_win.max(r),
                        3 => min_tie = min_tie.min(r),
                        _ if c == CELL_DRAW => draw = true,
                        _ => unsolved = Some(child),
                    }
                    children += 1;
                });
                if let Some(child) = unsolved {
                    failure = Some(Error::GameInvariant(format!(
                        "position {} (index {index}, tier {tier}) has child index {child} that was not solved first",
                        game.format_position(pos)
                    )));
                    return;
                }
                if children == 0 {
                    failure = Some(Error::GameInvariant(format!(
                        "position {} has no moves but is not game over",
                        game.format_position(pos)
                    )));
                    return;
                }
                if min_lose != u32::MAX {
                    (Value::Win, min_lose + 1)
                } else if min_tie != u32::MAX {
                    (Value::Tie, min_tie + 1)
                } else if draw {
                    (Value::Draw, 0)
                } else {
                    (Value::Lose, max_win + 1)
                }
            }
        };
        let Some(cell) = codec.encode(value, r) else {
            failure = Some(Error::RemotenessOverflow {
                remoteness: r,
                width: codec.width(),
                max: codec.max_remoteness(),
            });
            return;
        };
        debug_assert_ne!(cell, CELL_NONE);
        cells[index as usize].put(cell);
        tally.positions += 1;
        tally.counts[value.ordinal()] += 1;
        if value != Value::Draw {
            let m = &mut tally.max_remoteness[value.ordinal()];
            *m = (*m).max(r);
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(tally),
    }
}

/// Solves `game` into a new in-memory buffer of one-byte or two-byte cells
/// (whichever the game's remoteness bound needs). For tests and embedding;
/// the command line writes files with [`solve_to_file`].
pub fn solve_in_memory<G: Game>(game: &G) -> Result<(Vec<u8>, CellCodec, Summary)> {
    let codec = codec_for(game)?;
    let mut data = vec![0u8; game.size() as usize * usize::from(codec.width())];
    let summary = solve_into(game, &mut data, codec, &NoProgress)?;
    Ok((data, codec, summary))
}

/// The narrowest cell whose remoteness range covers the game's bound.
pub fn codec_for<G: Game>(game: &G) -> Result<CellCodec> {
    let bound = game.max_remoteness();
    CellCodec::width_for(bound)
        .map(CellCodec::new)
        .ok_or(Error::RemotenessOverflow {
            remoteness: bound,
            width: 2,
            max: CellCodec::new(2).max_remoteness(),
        })
}
