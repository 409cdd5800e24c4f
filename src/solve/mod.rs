//! The generator: labels every position backward from game-over positions,
//! tier by tier, into a table of cells. Generic over [`Game`]; never names one.
//!
//! Each tier's positions depend only on positions of lower tiers, which are
//! final when the tier starts, so a tier's work units run in parallel and the
//! result does not depend on the thread count or schedule.
//!
//! Games whose positions can repeat ([`Game::acyclic`] false) are solved by
//! the retrograde child-counting algorithm of the `loopy` module instead,
//! which also labels draws; value tables only.
//!
//! The entry points, from the lowest level up:
//!
//! * [`solve_into`]: into the caller's zeroed buffer, in a given codec;
//! * [`solve_in_memory`]: into a new buffer ([`Solved`]: cells, codec,
//!   summary);
//! * [`solve_to_bytes`]: the complete file image (header, padding, cells);
//! * [`solve_to_file`]: the file itself, under the output's lock, with
//!   checkpoints to resume from.
//!
//! All but the first take a [`SolveOptions`] (table kind, checkpoints,
//! memory). A file solve whose table does not fit its memory is solved
//! tier by tier (streamed): two tiers in memory, finished tiers in the
//! file.

pub(crate) mod checkpoint;
mod compound;
pub(crate) mod estimate;
use compound::compound_group;
pub(crate) use compound::{best_intermediates, summarise_intermediates};
mod extensions;
pub(crate) mod file;
mod loopy;
pub(crate) mod output;
#[cfg(feature = "mpi")]
mod ranks;
pub(crate) mod stream;

pub use file::{solve_to_bytes, solve_to_file, SolveReport};
#[cfg(feature = "mpi")]
pub use ranks::{agree, rank_shares, solve_mpi, table_terms, Term, TierShare};
// The rest is the crate's (and the command's, through `crate::internal`):
// output checks, resource plans, checkpoints.
pub(crate) use estimate::memory_available;
pub(crate) use stream::{plan, PROCESS_MEMORY};

use crate::error::{Error, Result};
use crate::format::{CellCodec, Summary, TableKind, CELL_DRAW, CELL_NONE};
use crate::game::{Game, SubsetExtensions};
use crate::value::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

/// Receives progress reports; the command line draws a bar from them. The
/// one callback of every long run over a table: the solve, and `verify`'s
/// re-derivation and `analyze`'s walk (which call [`Progress::length`]
/// first, since their caller cannot know the amount of work).
pub trait Progress: Sync {
    /// A tier starts; `units` work units follow.
    fn tier(&self, tier: u32, tiers: u32, units: u64);
    /// `positions` more entries are final: positions as they are labelled,
    /// and, when a tier that is a run of the index ends, its indices that are
    /// not positions (so the count of a whole solve of such a game is the
    /// table's size).
    fn advance(&self, positions: u64);
    /// Something the user should know about as it happens, in one line (a
    /// damaged checkpoint solved again, stale temporary files removed); the
    /// command line prints it on stderr.
    fn notice(&self, _message: &str) {}
    /// The whole run will [`Progress::advance`] by `work` in all, when the
    /// run knows it and its caller may not (a solve's is the table's size,
    /// which the caller knows; it does not call this).
    fn length(&self, _work: u64) {}
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
pub(crate) trait Slot: Sync + Default {
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

impl Slot for AtomicU32 {
    #[inline(always)]
    fn get(&self) -> u32 {
        self.load(Relaxed)
    }
    #[inline(always)]
    fn put(&self, v: u32) {
        self.store(v, Relaxed)
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

/// The cells as the hot loop sees them: the real table is a slice of atomic
/// slots; the cost estimate substitutes a small synthetic one.
pub(crate) trait Table: Sync {
    fn get(&self, i: u64) -> u32;
    fn put(&self, i: u64, v: u32);
}

impl<S: Slot> Table for [S] {
    #[inline(always)]
    fn get(&self, i: u64) -> u32 {
        self[i as usize].get()
    }
    #[inline(always)]
    fn put(&self, i: u64, v: u32) {
        self[i as usize].put(v)
    }
}

/// Per-unit tallies, reduced in a fixed order.
#[derive(Clone, Default)]
pub(crate) struct Tally {
    pub(crate) positions: u64,
    pub(crate) counts: [u64; 4],
    pub(crate) max_remoteness: [u32; 3],
    pub(crate) max_nimber: u32,
    /// Child (or intermediate) cells read: the solver's unit of work.
    pub(crate) lookups: u64,
}

impl Tally {
    pub(crate) fn add(mut self, o: &Tally) -> Tally {
        self.positions += o.positions;
        self.lookups += o.lookups;
        for i in 0..4 {
            self.counts[i] += o.counts[i];
        }
        for i in 0..3 {
            self.max_remoteness[i] = self.max_remoteness[i].max(o.max_remoteness[i]);
        }
        self.max_nimber = self.max_nimber.max(o.max_nimber);
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
    Ok(solve_tiers(game, data, codec, progress, 0, &mut |_, _| Ok(()))?.summary)
}

/// What [`solve_tiers`] found.
pub(crate) struct TierRun {
    /// The header summary of the whole table.
    pub(crate) summary: Summary,
    /// Child cells read by the tiers solved in this run (`None` for loopy
    /// games, whose solver walks parents instead).
    pub(crate) child_lookups: Option<u64>,
}

/// Called after each tier with the tier and the table's bytes (the
/// checkpoint writer reads the cells straight from them). Nothing writes the
/// table while it runs.
pub(crate) type AfterTier<'a> = dyn FnMut(u32, &[AtomicU8]) -> Result<()> + 'a;

/// The bytes of a table as atomics, for threads that write disjoint cells
/// outside a solve (replaying a checkpoint).
pub(crate) fn atomic_bytes(data: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has u8's size and alignment, and the exclusive borrow
    // of `data` is held for as long as the view lives.
    unsafe { std::slice::from_raw_parts(data.as_mut_ptr() as *const AtomicU8, data.len()) }
}

/// [`solve_into`] starting at `first_tier` (the tiers below are already in
/// `data`, e.g. restored from a checkpoint), calling `after_tier` after each
/// tier. The summary is counted from the finished table, so it covers
/// restored tiers too.
pub(crate) fn solve_tiers<G: Game>(
    game: &G,
    data: &mut [u8],
    codec: CellCodec,
    progress: &dyn Progress,
    first_tier: u32,
    after_tier: &mut AfterTier<'_>,
) -> Result<TierRun> {
    let expected = game.size() as usize * usize::from(codec.width());
    if data.len() != expected {
        return Err(Error::GameInvariant(format!(
            "buffer holds {} bytes, the table needs {expected}",
            data.len()
        )));
    }
    if codec.kind() == TableKind::Nimber {
        game.nimbers().map_err(|reason| Error::NimbersUnsupported {
            spec: game.spec(),
            reason,
        })?;
    }
    let width = usize::from(codec.width());
    if !(data.as_ptr() as usize).is_multiple_of(width) {
        return Err(Error::GameInvariant(format!(
            "{width}-byte cells need a buffer aligned to {width} bytes"
        )));
    }
    let len = data.len() / width;
    let ptr = data.as_mut_ptr();
    // SAFETY: as for the views below. This byte view is read only between
    // tiers, after rayon has joined a tier's writers and before the next
    // tier starts, so its accesses never race with the wider atomics'.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const AtomicU8, data.len()) };
    // Safety (all three arms): the buffer is aligned for the atomic type
    // (checked above; AtomicUN has uN's size and alignment), holds exactly
    // `len` cells (checked above), and the exclusive borrow of `data` rules
    // out any other access while the view lives. Cells are stored in native
    // order, which the file format's little-endian cells require: the format
    // module refuses to build the solver for a big-endian target
    // (src/format/mod.rs).
    match width {
        1 => solve_cells(
            game,
            // SAFETY: see the comment above the match.
            unsafe { std::slice::from_raw_parts(ptr as *const AtomicU8, len) },
            bytes,
            codec,
            progress,
            first_tier,
            after_tier,
        ),
        2 => solve_cells(
            game,
            // SAFETY: see the comment above the match.
            unsafe { std::slice::from_raw_parts(ptr as *const AtomicU16, len) },
            bytes,
            codec,
            progress,
            first_tier,
            after_tier,
        ),
        4 => solve_cells(
            game,
            // SAFETY: see the comment above the match.
            unsafe { std::slice::from_raw_parts(ptr as *const AtomicU32, len) },
            bytes,
            codec,
            progress,
            first_tier,
            after_tier,
        ),
        w => Err(Error::GameInvariant(format!("unsupported cell width {w}"))),
    }
}

fn solve_cells<G: Game, S: Slot>(
    game: &G,
    cells: &[S],
    bytes: &[AtomicU8],
    codec: CellCodec,
    progress: &dyn Progress,
    first_tier: u32,
    after_tier: &mut AfterTier<'_>,
) -> Result<TierRun> {
    if !game.acyclic() {
        return Ok(TierRun {
            summary: loopy::solve(game, cells, codec, progress)?,
            child_lookups: None,
        });
    }
    let tiers = game.tier_count();
    let mut total = Tally::default();
    for tier in first_tier..tiers {
        let tally = solve_tier(game, cells, codec, tier, progress)?;
        total = total.add(&tally);
        after_tier(tier, bytes)?;
    }
    let child_lookups = Some(total.lookups);
    if first_tier == 0 {
        let size = game.size();
        return Ok(TierRun {
            summary: Summary {
                counts: total.counts,
                non_positions: size - total.positions,
                max_remoteness: total.max_remoteness,
                max_nimber: total.max_nimber,
            },
            child_lookups,
        });
    }
    Ok(TierRun {
        summary: summarize(cells, codec),
        child_lookups,
    })
}

/// Solves tier `tier` of `game` into `table`, whose lower tiers are final.
/// Returns the tier's tally. The in-memory solve passes the whole table; the
/// tier-streamed one a window of this tier and the one below.
pub(crate) fn solve_tier<G: Game, T: Table + ?Sized>(
    game: &G,
    table: &T,
    codec: CellCodec,
    tier: u32,
    progress: &dyn Progress,
) -> Result<Tally> {
    let units = game.tier_units(tier);
    progress.tier(tier, game.tier_count(), units);
    let tally = label_tier(game, table, codec, tier, units, (0, 1), progress)?;
    // Progress counts entries of the index: a tier that is a run of it
    // accounts for its non-positions too, so the count ends at the size.
    if let Some(r) = game.tier_range(tier) {
        progress.advance((r.end - r.start).saturating_sub(tally.positions));
    }
    Ok(tally)
}

/// Labels share `share.0` of `share.1` of `tier`: a contiguous run of its
/// work units (or, on the compound path, of its groups, whose units share
/// the phase-A cells). Shares write disjoint cells, so the cells of all
/// shares together are the whole tier's.
pub(crate) fn label_tier<G: Game, T: Table + ?Sized>(
    game: &G,
    table: &T,
    codec: CellCodec,
    tier: u32,
    units: u64,
    share: (u64, u64),
    progress: &dyn Progress,
) -> Result<Tally> {
    let part = |n: u64| n * share.0 / share.1..n * (share.0 + 1) / share.1;
    if codec.kind() == TableKind::Value && game.compound_moves() {
        let mut total = Tally::default();
        for group in part(game.tier_groups(tier)) {
            let tally = compound_group(game, table, codec, tier, group)?;
            progress.advance(tally.positions);
            total = total.add(&tally);
        }
        return Ok(total);
    }
    label_units(game, table, codec, tier, part(units), progress)
}

/// Labels work units `units` of `tier` on the position-centric path (every
/// position from its children in the tier below): a rank of an MPI job its
/// own units, [`label_tier`] a share of them.
pub(crate) fn label_units<G: Game, T: Table + ?Sized>(
    game: &G,
    table: &T,
    codec: CellCodec,
    tier: u32,
    units: std::ops::Range<u64>,
    progress: &dyn Progress,
) -> Result<Tally> {
    let run = |unit: u64| -> Result<Tally> {
        let t = match codec.kind() {
            TableKind::Value => solve_unit(game, table, codec, tier, unit),
            TableKind::Nimber => nimber_unit(game, table, codec, tier, unit),
        };
        if let Ok(t) = &t {
            progress.advance(t.positions);
        }
        t
    };
    // Games with tiny tiers (take-away games: one position each) skip the
    // thread pool's dispatch cost.
    if units.end - units.start == 1 {
        run(units.start)
    } else {
        units
            .into_par_iter()
            .map(run)
            .try_reduce(Tally::default, |a, b| Ok(a.add(&b)))
    }
}

/// Counts a finished table's cells by value (and largest remoteness or
/// nimber): the summary of a solve resumed from a checkpoint.
fn summarize<S: Slot>(cells: &[S], codec: CellCodec) -> Summary {
    summarize_cells(cells.len(), |i| cells[i].get(), codec)
}

/// The header summary of `n` cells read by `cell(i)`: the solver counts a
/// resumed table with it, `verify` recounts a file's data with it.
pub(crate) fn summarize_cells(
    n: usize,
    cell: impl Fn(usize) -> u32 + Sync,
    codec: CellCodec,
) -> Summary {
    const CHUNK: usize = 1 << 20;
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut s = Summary::default();
            for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(n) {
                let c = cell(i);
                if let Some(k) = codec.nimber(c) {
                    s.counts[if k == 0 { 1 } else { 0 }] += 1;
                    s.max_nimber = s.max_nimber.max(k);
                    continue;
                }
                match codec.decode(c) {
                    None => s.non_positions += 1,
                    Some(o) => {
                        let v = o.value.ordinal();
                        s.counts[v] += 1;
                        if let Some(r) = o.remoteness {
                            s.max_remoteness[v] = s.max_remoteness[v].max(r);
                        }
                    }
                }
            }
            s
        })
        .reduce(Summary::default, |mut a, b| {
            for i in 0..4 {
                a.counts[i] += b.counts[i];
            }
            a.non_positions += b.non_positions;
            for i in 0..3 {
                a.max_remoteness[i] = a.max_remoteness[i].max(b.max_remoteness[i]);
            }
            a.max_nimber = a.max_nimber.max(b.max_nimber);
            a
        })
}

/// Solves one work unit; the hot loop.
#[inline(never)]
pub(crate) fn solve_unit<G: Game, T: Table + ?Sized>(
    game: &G,
    cells: &T,
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
                let mut acc = Children::default();
                game.for_each_child_index(pos, |child| acc.add(codec, cells.get(child), child));
                tally.lookups += u64::from(acc.children);
                match acc.value() {
                    Ok(Some(v)) => v,
                    Ok(None) => {
                        failure = Some(Error::GameInvariant(format!(
                            "position {} has no moves but is not game over",
                            game.format_position(pos)
                        )));
                        return;
                    }
                    Err(child) => {
                        failure = Some(Error::GameInvariant(format!(
                            "position {} (index {index}, tier {tier}) has child index {child} that was not solved first",
                            game.format_position(pos)
                        )));
                        return;
                    }
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
        cells.put(index, cell);
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

/// Orders cells by what they give the player choosing them *as his own
/// outcome*: a win with small remoteness is best, then a tie with small
/// remoteness, then a draw, then a loss with large remoteness.
#[inline(always)]
fn as_mover_key(codec: CellCodec, c: u32) -> (u32, i64) {
    let r = i64::from(codec.remoteness(c));
    match codec.code(c) {
        1 => (4, -r),
        3 => (3, -r),
        2 => (1, r),
        _ if c == CELL_DRAW => (2, 0),
        _ => (0, 0),
    }
}

/// The children's cells seen so far, folded into what decides a position's
/// value: the solver's hot loop and the compound path's completions share it.
struct Children {
    min_lose: u32,
    min_tie: u32,
    max_win: u32,
    children: u32,
    draw: bool,
    unsolved: Option<u64>,
}

impl Default for Children {
    fn default() -> Self {
        Children {
            min_lose: u32::MAX,
            min_tie: u32::MAX,
            max_win: 0,
            children: 0,
            draw: false,
            unsolved: None,
        }
    }
}

impl Children {
    /// Adds the child at `index` whose cell is `c`.
    #[inline(always)]
    fn add(&mut self, codec: CellCodec, c: u32, index: u64) {
        let r = codec.remoteness(c);
        match codec.code(c) {
            2 => self.min_lose = self.min_lose.min(r),
            1 => self.max_win = self.max_win.max(r),
            3 => self.min_tie = self.min_tie.min(r),
            _ if c == CELL_DRAW => self.draw = true,
            _ => self.unsolved = Some(index),
        }
        self.children += 1;
    }

    /// The value a position with exactly these children has: `None` with
    /// no children, `Err(child)` for an unsolved child.
    #[inline(always)]
    fn value(&self) -> Result<Option<(Value, u32)>, u64> {
        if let Some(child) = self.unsolved {
            return Err(child);
        }
        Ok(if self.children == 0 {
            None
        } else if self.min_lose != u32::MAX {
            Some((Value::Win, self.min_lose + 1))
        } else if self.min_tie != u32::MAX {
            Some((Value::Tie, self.min_tie + 1))
        } else if self.draw {
            Some((Value::Draw, 0))
        } else {
            Some((Value::Lose, self.max_win + 1))
        })
    }
}

/// What a parent's value is worth to its mover when it is `value` in
/// `r`: [`as_mover_key`]'s order, for values not (yet) in a cell.
fn outcome_key(value: Value, r: u32) -> (u32, i64) {
    let r = i64::from(r);
    match value {
        Value::Win => (4, -r),
        Value::Tie => (3, -r),
        Value::Draw => (2, 0),
        Value::Lose => (1, r),
    }
}

fn overflow(codec: CellCodec, r: u32) -> Error {
    Error::RemotenessOverflow {
        remoteness: r,
        width: codec.width(),
        max: codec.max_remoteness(),
    }
}

/// A position's text for an error message, from its index.
fn describe<G: Game>(game: &G, index: u64) -> String {
    game.decode(index)
        .map_or_else(|| format!("#{index}"), |p| game.format_position(&p))
}

/// Counts `n` positions whose cell is `cell` (a value) into `tally`.
fn tally_cell(tally: &mut Tally, codec: CellCodec, cell: u32, n: u64) {
    let Some(o) = codec.decode(cell) else {
        return;
    };
    tally.positions += n;
    tally.counts[o.value.ordinal()] += n;
    if let Some(r) = o.remoteness {
        let m = &mut tally.max_remoteness[o.value.ordinal()];
        *m = (*m).max(r);
    }
}

/// Solves one work unit of a nimber table: each position's nimber is the
/// mex (least excluded value) of its children's nimbers.
#[inline(never)]
pub(crate) fn nimber_unit<G: Game, T: Table + ?Sized>(
    game: &G,
    cells: &T,
    codec: CellCodec,
    tier: u32,
    unit: u64,
) -> Result<Tally> {
    let mut tally = Tally::default();
    let mut failure: Option<Error> = None;
    let mut kids: Vec<u32> = Vec::new();
    game.for_each_in_unit(tier, unit, |index, pos| {
        if failure.is_some() {
            return;
        }
        let k = match game.primitive(pos) {
            Some(Value::Lose) => 0,
            Some(v) => {
                failure = Some(Error::GameInvariant(format!(
                    "game-over position {} is a {v} for the player to move; nimbers need normal play",
                    game.format_position(pos)
                )));
                return;
            }
            None => {
                kids.clear();
                let mut unsolved = None;
                game.for_each_child_index(pos, |child| {
                    match codec.nimber(cells.get(child)) {
                        Some(k) => kids.push(k),
                        None => unsolved = Some(child),
                    }
                });
                if let Some(child) = unsolved {
                    failure = Some(Error::GameInvariant(format!(
                        "position {} (index {index}, tier {tier}) has child index {child} that was not solved first",
                        game.format_position(pos)
                    )));
                    return;
                }
                tally.lookups += kids.len() as u64;
                mex(&mut kids)
            }
        };
        let Some(cell) = codec.encode_nimber(k) else {
            failure = Some(Error::NimberOverflow {
                nimber: k,
                width: codec.width(),
                max: codec.max_nimber(),
            });
            return;
        };
        cells.put(index, cell);
        tally.positions += 1;
        let value = if k == 0 { Value::Lose } else { Value::Win };
        tally.counts[value.ordinal()] += 1;
        tally.max_nimber = tally.max_nimber.max(k);
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(tally),
    }
}

/// The least non-negative integer not in `values` (which it sorts). The one
/// mex of the crate: the solver's nimber tables, the search's nimber engine,
/// its reference and the proof-database check all call it.
// For the search and the tests too (`crate::internal::solve`).
#[doc(hidden)]
pub fn mex(values: &mut [u32]) -> u32 {
    values.sort_unstable();
    let mut m = 0;
    for &v in values.iter() {
        if v == m {
            m += 1;
        } else if v > m {
            break;
        }
    }
    m
}

/// What to build, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Values with remoteness, or nimbers.
    pub kind: TableKind,
    /// Checkpoint completed tiers to `NAME.ckpt` when at least this long has
    /// passed since the last checkpoint (files only); `None`: never.
    pub checkpoint_interval: Option<std::time::Duration>,
    /// Discard an existing checkpoint instead of resuming from it.
    pub restart: bool,
    /// Files the game was read from (a pattern file): the output may not be
    /// one of them (compared by device and inode).
    pub inputs: Vec<std::path::PathBuf>,
    /// Memory the table's cells and the solver's scratch may take, in bytes
    /// (the process adds a few MiB of its own); `None`: no limit. With
    /// [`Streaming::Auto`] a table that does not fit is solved tier by tier.
    pub memory: Option<u64>,
    /// Whether to solve tier by tier, writing finished tiers to the file.
    pub streaming: Streaming,
}

/// Where a file solve keeps its table (see the [module's docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Streaming {
    /// In memory when it fits [`SolveOptions::memory`], else tier by tier.
    #[default]
    Auto,
    /// Always tier by tier (refused for a game whose tiers interleave).
    Always,
    /// Always the whole table in memory.
    Never,
}

impl SolveOptions {
    /// The default options with the given table kind.
    pub fn with_kind(kind: TableKind) -> SolveOptions {
        SolveOptions {
            kind,
            ..SolveOptions::default()
        }
    }
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            kind: TableKind::Value,
            checkpoint_interval: Some(std::time::Duration::from_secs(1)),
            restart: false,
            inputs: Vec::new(),
            memory: None,
            streaming: Streaming::Auto,
        }
    }
}

/// A table solved in memory by [`solve_in_memory`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The cells, `game.size()` of them, `codec.width()` bytes each,
    /// little-endian: the data part of the file.
    pub cells: Vec<u8>,
    /// How the cells are encoded.
    pub codec: CellCodec,
    /// Counts by value and largest remoteness or nimber: the header summary.
    pub summary: Summary,
}

/// Solves `game` into memory, in 1-, 2- or 4-byte cells (whichever the
/// game's bound needs), for tests and embedding. Of `options` only the table
/// kind matters; nothing is checkpointed. [`solve_to_bytes`] gives the whole
/// file image, [`solve_to_file`] writes the file.
pub fn solve_in_memory<G: Game>(game: &G, options: &SolveOptions) -> Result<Solved> {
    let codec = codec_for(game, options.kind)?;
    let len = game.size() as usize * usize::from(codec.width());
    let mut table = anon_table(len)?;
    let summary = solve_into(game, &mut table[..len], codec, &NoProgress)?;
    Ok(Solved {
        cells: table[..len].to_vec(),
        codec,
        summary,
    })
}

/// A zeroed, page-aligned buffer for a table of `len` bytes: wider cells are
/// solved through aligned atomics. Here rather than in file.rs, which the
/// streamed solve (stream.rs) would otherwise have to reach back into.
fn anon_table(len: usize) -> Result<memmap2::MmapMut> {
    memmap2::MmapMut::map_anon(len.max(1))
        .map_err(|e| Error::io(format!("cannot allocate {len} bytes for the table"), e))
}

/// The narrowest cell for the table: for values, one whose remoteness range
/// covers the game's bound; for nimbers, one whose range covers the game's
/// nimber bound (the solver refuses a larger nimber rather than truncate it).
pub fn codec_for<G: Game>(game: &G, kind: TableKind) -> Result<CellCodec> {
    if kind == TableKind::Nimber {
        let width = match game.max_nimber() {
            k if k <= CellCodec::nimbers(1).max_nimber() => 1,
            k if k <= CellCodec::nimbers(2).max_nimber() => 2,
            _ => 4,
        };
        return Ok(CellCodec::nimbers(width));
    }
    let bound = game.max_remoteness();
    CellCodec::width_for(bound)
        .map(CellCodec::new)
        .ok_or(Error::RemotenessOverflow {
            remoteness: bound,
            width: 4,
            max: CellCodec::new(4).max_remoteness(),
        })
}

#[cfg(test)]
mod tests {
    use super::mex;

    #[test]
    fn mex_is_the_least_missing_value() {
        assert_eq!(mex(&mut []), 0);
        assert_eq!(mex(&mut [1, 2]), 0);
        // Duplicates and values past the gap do not move it.
        assert_eq!(mex(&mut [3, 0, 1, 0, 7]), 2);
        assert_eq!(mex(&mut [2, 1, 0]), 3);
    }
}
