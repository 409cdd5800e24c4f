//! Knowing the cost before paying it: entries, file size, memory, disk and a
//! time predicted from a short calibration.
//!
//! The calibration runs the real hot loop (the same `solve_unit` the solver
//! uses) on a sample of work units of every tier, against a synthetic table: a
//! buffer of random valid cells, 64 MiB or the table's size if smaller, read
//! at `index mod size`. Masking keeps the low bits of every index, so the
//! access pattern inside a block of the index (what decides cache behaviour)
//! is the real one, while nothing of the real size is allocated. Each tier's
//! sampled time is scaled by its number of units; the sum is divided among
//! the threads.
//!
//! A loopy game (positions can repeat) is solved by counting children and
//! propagating through parents instead (`solve::loopy`): there each sampled
//! position counts its moves and walks its parents once, reading a cell per
//! parent — what the real solve does for a position that gets decided (a
//! draw skips the walk, so this errs high) — and memory adds the child
//! counters and the frontier lists ([`super::memory_needs`]).

use super::{
    best_intermediates, codec_for, nimber_unit, solve_unit, summarise_intermediates, Slot,
    SolveOptions, Table, PROCESS_MEMORY,
};
use crate::error::Result;
use crate::format::{CellCodec, TableKind};
use crate::game::Game;
use crate::value::Value;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8};
use std::time::Instant;

/// What a solve will cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Entries in the table.
    pub entries: u64,
    /// Cell width in bytes.
    pub cell_width: u8,
    /// Size of the finished file.
    pub file_bytes: u64,
    /// Predicted peak resident memory of the solve as planned (whole or
    /// tier by tier): the table's cells and scratch plus the process's own.
    pub memory_bytes: u64,
    /// Whether the solve will go tier by tier ([`super::plan`]).
    pub streamed: bool,
    /// Peak memory with the whole table in memory.
    pub in_memory_bytes: u64,
    /// Peak memory tier by tier, if the game can be streamed.
    pub streamed_bytes: Option<u64>,
    /// Disk space needed while solving (the temporary file, then renamed).
    pub disk_bytes: u64,
    /// Positions the calibration solved.
    pub sampled_positions: u64,
    /// Seconds the calibration took.
    pub calibration_seconds: f64,
    /// Estimated number of positions (legal indices).
    pub positions: f64,
    /// Predicted wall time of the solve in seconds.
    pub seconds: f64,
    /// Threads the prediction assumes.
    pub threads: usize,
}

/// Synthetic cells of the real width: a power-of-two buffer of random
/// valid cells.
struct Synthetic<S> {
    cells: Vec<S>,
    mask: u64,
}

impl<S: Slot> Table for Synthetic<S> {
    #[inline(always)]
    fn get(&self, i: u64) -> u32 {
        self.cells[(i & self.mask) as usize].get()
    }
    #[inline(always)]
    fn put(&self, i: u64, v: u32) {
        self.cells[(i & self.mask) as usize].put(v)
    }
}

impl<S: Slot> Synthetic<S> {
    fn new(entries: u64, codec: CellCodec) -> Synthetic<S> {
        let width = u64::from(codec.width());
        // Same bytes as the real table's working set would span, capped.
        let bytes = (entries * width).clamp(4096, 64 << 20);
        let len = (bytes / width).next_power_of_two();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let cells = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let cell = match codec.kind() {
                    TableKind::Nimber => codec.encode_nimber((x % 4) as u32),
                    TableKind::Value => {
                        let v = if x & 1 == 0 { Value::Win } else { Value::Lose };
                        codec.encode(v, ((x >> 1) % 4) as u32)
                    }
                };
                let s = S::default();
                s.put(cell.unwrap_or(1));
                s
            })
            .collect();
        Synthetic {
            cells,
            mask: len - 1,
        }
    }
}

/// Units sampled per tier.
const SAMPLES: u64 = 2;

/// Units sampled per tier of a loopy game.
const LOOPY_SAMPLES: u64 = 256;

/// Predicts the cost of solving `game` with `threads` threads.
pub fn estimate<G: Game>(game: &G, options: &SolveOptions, threads: usize) -> Result<Estimate> {
    let codec = codec_for(game, options.kind)?;
    let entries = game.size();
    let width = codec.width();
    let file_bytes = crate::format::table_header(game, codec).file_len();

    let (busy, positions, sampled_positions, calibration_seconds) = match width {
        1 => calibrate(game, &Synthetic::<AtomicU8>::new(entries, codec), codec),
        2 => calibrate(game, &Synthetic::<AtomicU16>::new(entries, codec), codec),
        _ => calibrate(game, &Synthetic::<AtomicU32>::new(entries, codec), codec),
    };
    let threads = threads.max(1);
    // Checksum and write-out of the finished file, at a conservative
    // 500 MB/s, are serial work after the solve.
    let finish = file_bytes as f64 / 500e6;
    // The same figures the refusal of a solve that does not fit compares
    // with `--memory` (a loopy game's counters and frontiers included),
    // plus the process's own.
    let plan = super::plan(game, codec, options)?;
    let in_memory_bytes = plan.needs.in_memory + PROCESS_MEMORY;
    let streamed_bytes = plan.needs.streamed.map(|s| s + PROCESS_MEMORY);
    Ok(Estimate {
        entries,
        cell_width: width,
        file_bytes,
        memory_bytes: if plan.streamed {
            streamed_bytes.unwrap_or(in_memory_bytes)
        } else {
            in_memory_bytes
        },
        streamed: plan.streamed,
        in_memory_bytes,
        streamed_bytes,
        disk_bytes: file_bytes,
        sampled_positions,
        calibration_seconds,
        positions,
        seconds: busy / threads as f64 + finish,
        threads,
    })
}

/// Times sampled units of every tier; returns the scaled busy time, the
/// scaled position count, the positions sampled and the wall time spent.
fn calibrate<G: Game, T: Table>(game: &G, table: &T, codec: CellCodec) -> (f64, f64, u64, f64) {
    let started = Instant::now();
    let mut sampled_positions = 0u64;
    let mut positions = 0f64;
    let mut busy = 0f64;
    for tier in 0..game.tier_count() {
        let units = game.tier_units(tier);
        // Loopy games have one tier (or few): sample more of its units.
        let samples = if game.acyclic() {
            SAMPLES
        } else {
            LOOPY_SAMPLES
        };
        let picks: Vec<u64> = if units <= samples {
            (0..units).collect()
        } else {
            (1..=samples).map(|k| k * units / (samples + 1)).collect()
        };
        let t = Instant::now();
        let mut n = 0u64;
        for &u in &picks {
            // The synthetic cells are valid, so errors cannot come from
            // missing children; any other error is the game's and is
            // reported by the real solve.
            let positions = match codec.kind() {
                TableKind::Value if !game.acyclic() => Ok(loopy_unit(game, table, tier, u)),
                TableKind::Value if game.compound_moves() => {
                    // Phases A and B of the compound path; C is a cheap copy.
                    let _ = summarise_intermediates(game, table, codec, tier, u);
                    best_intermediates(game, table, codec, tier, u).map(|(_, t)| t.positions)
                }
                TableKind::Value => solve_unit(game, table, codec, tier, u).map(|t| t.positions),
                TableKind::Nimber => nimber_unit(game, table, codec, tier, u).map(|t| t.positions),
            };
            n += positions.unwrap_or(0);
        }
        let scale = units as f64 / picks.len().max(1) as f64;
        busy += t.elapsed().as_secs_f64() * scale;
        positions += n as f64 * scale;
        sampled_positions += n;
    }
    (
        busy,
        positions,
        sampled_positions,
        started.elapsed().as_secs_f64(),
    )
}

/// The per-position work of the loopy solver on one unit: count the moves,
/// walk the parents reading a cell each. Returns the positions.
fn loopy_unit<G: Game, T: Table>(game: &G, table: &T, tier: u32, unit: u64) -> u64 {
    let mut n = 0u64;
    let mut sink = 0u32;
    game.for_each_in_unit(tier, unit, |index, pos| {
        n += 1;
        if game.primitive(pos).is_none() {
            sink = sink.wrapping_add(game.move_count(pos) as u32);
        }
        // A frontier position is decoded again before its parents are walked.
        if let Some(p) = game.decode(index) {
            game.for_each_parent_index(&p, |i| sink ^= table.get(i));
        }
    });
    std::hint::black_box(sink);
    n
}

/// Memory the system can give without swapping (Linux), in bytes: what a
/// solve or a search is refused for before it starts when it would need
/// more.
pub fn memory_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
