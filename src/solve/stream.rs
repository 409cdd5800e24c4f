//! Tier streaming: solving a table larger than memory.
//!
//! When a game keeps each tier in one run of its index and every move goes
//! to the tier just below ([`Game::tier_range`]: Isolation, Connect-Four,
//! Sogo), labelling tier `t` reads only tier `t − 1`. The streamed solve then
//! holds just those two: tier `t` in anonymous memory, tier `t − 1` through a
//! read-only map of the output file, where it was written when it finished.
//! Peak memory is the largest two adjacent tiers (plus the compound path's
//! scratch for one group), not the table.
//!
//! The file is built in place, in the final layout, so the reader's one
//! seek per probe is unchanged and the finished file is byte for byte the
//! in-memory solve's:
//!
//! ```text
//! while solving:  "RTBSTRM\0" + the solve's identity + zeros up to the
//!                 data offset | data (tiers written so far) | slot A | slot B
//! finished:       header | data          (the slots cut off, then renamed)
//! ```
//!
//! The working file doubles as the checkpoint (`NAME.ckpt`, created under a
//! fresh name, its first slot written, then renamed there): after a tier's
//! cells are written and synced, one of two progress slots (alternately)
//! records the tiers done, each tier's tally and CRC32, and is synced. A
//! torn slot write leaves the other slot, one tier older, so a rerun of the
//! same command resumes from the last tier both written and recorded. With
//! checkpoints off the working file is a temporary file, removed on
//! failure. No tier is ever stored twice: the disk needed is the file's
//! size (plus two slots of a few KiB).
//!
//! What makes the header's data CRC the CRC of the bytes in the file: a
//! resumed solve reads every tier it takes over once and checks it against
//! the CRC recorded when it was written, and goes on from the first that no
//! longer matches (a damaged tier `k` is solved again from tier `k − 1`,
//! which matched); before the header is written every tier is read back
//! and checked again, so a tier changed while the solve ran stops it before
//! anything is installed. On isolation:4x5 (95 MiB) a resume's check costs
//! 0.01 s with the file in the page cache and 0.15 s from disk.
//!
//! Finishing goes header (synced), slots cut (synced), rename. A rerun
//! after a crash at any point finds a working file (resumed), the finished
//! table with its slots (made a working file again and resumed: every tier
//! checked), or the finished table without them (its data checked against
//! the header's CRC, then renamed); `tests/files/kill_points.rs` kills a
//! solve at each point.
//!
//! Each slot: magic `RTBSLOT\0` | u32 CRC32 of the slot with this field
//! zero | u32 slot length | u64 sequence | u32 tiers done | u32 tier count |
//! the checkpoint identity (as in `checkpoint`) | per tier done: u32 CRC32
//! of its cells | u64 positions | 4 × u64 counts | 3 × u32 largest
//! remoteness | u32 largest nimber | u64 child lookups. Little-endian.

use super::checkpoint::{self, Identity};
use super::output::{check_output, open_regular};
use super::{anon_table, label_tier, solve_tier, Progress, Slot, SolveOptions, Table, Tally};
use crate::error::{CheckpointFault, Error, Result};
use crate::format::{
    self, kill_point, table_header, CellCodec, Header, Summary, TableKind, TempFile, CELL_NONE,
};
use crate::game::Game;
use byteorder::{ByteOrder, LittleEndian as LE};
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The first bytes of a working file until it is finished (the header's
/// place; no reader takes it for a table).
pub(super) const MAGIC: [u8; 8] = *b"RTBSTRM\0";
const SLOT_MAGIC: [u8; 8] = *b"RTBSLOT\0";
const SLOT_HEAD: usize = 8 + 4 + 4 + 8 + 4 + 4;
const TIER_RECORD: usize = 4 + 8 + 4 * 8 + 3 * 4 + 4 + 8;

/// What a solve needs in memory: the table's cells and the solver's
/// scratch, without the process's own ([`PROCESS_MEMORY`]). `--memory` is
/// compared with these figures; `--dry-run` prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryNeeds {
    /// The whole table in memory (a loopy game's child counters and
    /// frontiers included).
    pub in_memory: u64,
    /// Tier by tier: the largest two adjacent tiers and one group's scratch;
    /// `None` when the game cannot be streamed ([`cannot_stream`] says why).
    pub streamed: Option<u64>,
}

/// About what the process needs beside the table and the solver's scratch:
/// code, threads, buffers.
pub const PROCESS_MEMORY: u64 = 32 << 20;

/// Why `game` cannot be solved tier by tier, or `None` if it can.
pub fn cannot_stream<G: Game>(game: &G) -> Option<&'static str> {
    if !game.acyclic() {
        Some("its positions can repeat (a loopy game)")
    } else if (0..game.tier_count()).any(|t| game.tier_range(t).is_none()) {
        Some("its tiers interleave in the index")
    } else {
        None
    }
}

/// The memory `game`'s table in `codec` needs, whole or tier by tier.
pub fn memory_needs<G: Game>(game: &G, codec: CellCodec) -> MemoryNeeds {
    let w = u64::from(codec.width());
    let data = game.size().saturating_mul(w);
    let tiers = game.tier_count();
    if !game.acyclic() {
        // A child counter per entry (one byte; wider only for positions of
        // 256+ moves), and the frontiers of 8-byte indices, taken as a
        // quarter of the entries at once.
        let entries = game.size();
        return MemoryNeeds {
            in_memory: data
                .saturating_add(entries)
                .saturating_add(entries.saturating_mul(8) / 4),
            streamed: None,
        };
    }
    let ranges: Option<Vec<Range<u64>>> = (0..tiers).map(|t| game.tier_range(t)).collect();
    let Some(ranges) = ranges else {
        return MemoryNeeds {
            in_memory: data,
            streamed: None,
        };
    };
    // The compound path holds one group's cells of a tier (phase B) while
    // it runs; groups are taken as even shares of the tier.
    let compound = codec.kind() == TableKind::Value && game.compound_moves();
    let scratch = |t: u32| {
        let len = ranges[t as usize].end - ranges[t as usize].start;
        if compound {
            (len * w).div_ceil(game.tier_groups(t).max(1))
        } else {
            0
        }
    };
    let max_scratch = (0..tiers).map(scratch).max().unwrap_or(0);
    let streamed = (0..tiers)
        .map(|t| {
            let len = |t: usize| ranges[t].end - ranges[t].start;
            let below = if t == 0 { 0 } else { len(t as usize - 1) };
            (len(t as usize) + below) * w + scratch(t)
        })
        .max()
        .unwrap_or(0);
    MemoryNeeds {
        in_memory: data.saturating_add(max_scratch),
        streamed: Some(streamed),
    }
}

/// How a file solve will hold its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Tier by tier ([`Streaming`](super::Streaming)), or the whole table
    /// in memory.
    pub streamed: bool,
    /// The memory that choice needs (cells and scratch), the figure
    /// compared with [`SolveOptions::memory`].
    pub memory: u64,
    /// Both choices' needs.
    pub needs: MemoryNeeds,
}

impl Plan {
    /// Whether the plan fits `options.memory` (always, without a limit).
    pub fn fits(&self, options: &SolveOptions) -> bool {
        self.memory <= options.memory.unwrap_or(u64::MAX)
    }
}

/// How a solve with `options` holds its table: in memory when it fits
/// [`SolveOptions::memory`] (or streaming is off), else tier by tier when
/// the game allows it, else in memory anyway (the caller decides whether
/// to start a solve that does not fit: see [`Plan::fits`]). A checkpoint
/// left by an earlier run overrides this (it resumes the way it was made).
pub fn plan<G: Game>(game: &G, codec: CellCodec, options: &SolveOptions) -> Result<Plan> {
    use super::Streaming;
    let needs = memory_needs(game, codec);
    let limit = options.memory.unwrap_or(u64::MAX);
    let streamed = match (options.streaming, needs.streamed) {
        (Streaming::Never, _) | (Streaming::Auto, None) => false,
        (Streaming::Always, Some(_)) => true,
        (Streaming::Always, None) => {
            return Err(Error::Output(format!(
                "{} cannot be solved tier by tier: {}, so it is solved with the whole table in memory; solve it without --stream",
                game.spec(),
                cannot_stream(game).unwrap_or("its tiers are not runs of the index")
            )))
        }
        (Streaming::Auto, Some(_)) => needs.in_memory > limit,
    };
    Ok(Plan {
        streamed,
        memory: if streamed {
            needs.streamed.unwrap_or(needs.in_memory)
        } else {
            needs.in_memory
        },
        needs,
    })
}

/// A window of the table for one tier's solve: the tier's cells in memory,
/// the tier below through the file's map. Anything else reads as unsolved,
/// so a game that breaks its [`Game::tier_range`] promise fails the solve.
pub(super) struct Window<'a, S> {
    pub(super) cur: &'a [S],
    pub(super) cur_start: u64,
    pub(super) below: &'a [u8],
    pub(super) below_start: u64,
    pub(super) below_cells: u64,
    pub(super) width: usize,
    /// One more than an index written outside the tier (0: none).
    pub(super) stray: AtomicU64,
}

impl<S: Slot> Table for Window<'_, S> {
    #[inline(always)]
    fn get(&self, i: u64) -> u32 {
        let c = i.wrapping_sub(self.cur_start);
        if c < self.cur.len() as u64 {
            return self.cur[c as usize].get();
        }
        let b = i.wrapping_sub(self.below_start);
        if b < self.below_cells {
            let at = b as usize * self.width;
            return match self.width {
                1 => u32::from(self.below[at]),
                2 => u32::from(LE::read_u16(&self.below[at..])),
                _ => LE::read_u32(&self.below[at..]),
            };
        }
        CELL_NONE
    }

    #[inline(always)]
    fn put(&self, i: u64, v: u32) {
        let c = i.wrapping_sub(self.cur_start);
        if c < self.cur.len() as u64 {
            self.cur[c as usize].put(v);
        } else {
            self.stray.store(i + 1, Relaxed);
        }
    }
}

/// Progress of a streamed solve: the tiers done and their tallies and CRCs.
#[derive(Clone, Default)]
pub(super) struct Done {
    pub(super) tallies: Vec<Tally>,
    pub(super) crcs: Vec<u32>,
}

/// The working file of a streamed solve and where things are in it.
pub(super) struct Work {
    pub(super) file: File,
    /// The temporary file when checkpoints are off (removed if dropped).
    pub(super) temp: Option<TempFile>,
    pub(super) data_offset: u64,
    data_end: u64,
    slot_len: usize,
    id: Vec<u8>,
    tiers: u32,
    sequence: u64,
}

impl Work {
    pub(super) fn io(&self, what: &str, e: std::io::Error) -> Error {
        Error::io(format!("cannot {what} the working file of the solve"), e)
    }

    /// Records `done` in the next slot and syncs.
    pub(super) fn record(&mut self, done: &Done) -> Result<()> {
        self.sequence += 1;
        let mut b = vec![0u8; self.slot_len];
        b[..8].copy_from_slice(&SLOT_MAGIC);
        LE::write_u32(&mut b[12..], self.slot_len as u32);
        LE::write_u64(&mut b[16..], self.sequence);
        LE::write_u32(&mut b[24..], done.tallies.len() as u32);
        LE::write_u32(&mut b[28..], self.tiers);
        b[SLOT_HEAD..SLOT_HEAD + self.id.len()].copy_from_slice(&self.id);
        let mut at = SLOT_HEAD + self.id.len();
        for (t, crc) in done.tallies.iter().zip(&done.crcs) {
            let r = &mut b[at..at + TIER_RECORD];
            LE::write_u32(r, *crc);
            LE::write_u64(&mut r[4..], t.positions);
            for k in 0..4 {
                LE::write_u64(&mut r[12 + 8 * k..], t.counts[k]);
            }
            for k in 0..3 {
                LE::write_u32(&mut r[44 + 4 * k..], t.max_remoteness[k]);
            }
            LE::write_u32(&mut r[56..], t.max_nimber);
            LE::write_u64(&mut r[60..], t.lookups);
            at += TIER_RECORD;
        }
        format::seal(&mut b, 8);
        let slot = self.data_end + (self.sequence % 2) * self.slot_len as u64;
        self.file
            .write_all_at(&b, slot)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| self.io("write", e))
    }

    /// The newer of the two slots that are whole and belong to this solve.
    fn read_slots(&self) -> Option<(u64, Done)> {
        let mut best: Option<(u64, Done)> = None;
        for k in 0..2u64 {
            let mut b = vec![0u8; self.slot_len];
            let at = self.data_end + k * self.slot_len as u64;
            if self.file.read_exact_at(&mut b, at).is_err() || b[..8] != SLOT_MAGIC {
                continue;
            }
            let (stored, computed) = format::sealed(&b, 8);
            if computed != stored
                || LE::read_u32(&b[12..]) as usize != self.slot_len
                || LE::read_u32(&b[28..]) != self.tiers
                || b[SLOT_HEAD..SLOT_HEAD + self.id.len()] != self.id[..]
            {
                continue;
            }
            let sequence = LE::read_u64(&b[16..]);
            let n = LE::read_u32(&b[24..]).min(self.tiers) as usize;
            let mut done = Done::default();
            let mut at = SLOT_HEAD + self.id.len();
            for _ in 0..n {
                let r = &b[at..at + TIER_RECORD];
                let mut t = Tally {
                    positions: LE::read_u64(&r[4..]),
                    max_nimber: LE::read_u32(&r[56..]),
                    lookups: LE::read_u64(&r[60..]),
                    ..Tally::default()
                };
                for k in 0..4 {
                    t.counts[k] = LE::read_u64(&r[12 + 8 * k..]);
                }
                for k in 0..3 {
                    t.max_remoteness[k] = LE::read_u32(&r[44 + 4 * k..]);
                }
                done.crcs.push(LE::read_u32(r));
                done.tallies.push(t);
                at += TIER_RECORD;
            }
            if best.as_ref().is_none_or(|(s, _)| sequence > *s) {
                best = Some((sequence, done));
            }
        }
        best
    }
}

/// What [`solve_streamed`] gives back to the file solve.
pub(super) struct Streamed {
    pub header: Header,
    pub resumed_tiers: u32,
    pub child_lookups: u64,
    pub solve_time: Duration,
    pub finish_time: Duration,
}

/// Where a streamed solve's tiers are, in the file and in the index.
pub(super) struct Layout {
    pub(super) ranges: Vec<Range<u64>>,
    pub(super) width: u64,
}

impl Layout {
    /// The CRC32 of tier `t`'s cells as they are in the file now.
    fn tier_crc(&self, work: &Work, t: u32) -> Result<u32> {
        let r = &self.ranges[t as usize];
        let bytes = (r.end - r.start) * self.width;
        if bytes == 0 {
            return Ok(crc32fast::hash(&[]));
        }
        let (map, lead) = crate::mmap::map_region(
            &work.file,
            work.data_offset + r.start * self.width,
            bytes as usize,
        )
        .map_err(|e| work.io("read", e))?;
        Ok(format::data_crc(&map[lead..]))
    }

    /// The first of `tiers` whose cells in the file no longer have the CRC32
    /// recorded when they were written; each tier is read once, in order.
    fn first_changed(&self, work: &Work, done: &Done, tiers: Range<u32>) -> Result<Option<u32>> {
        for t in tiers {
            if self.tier_crc(work, t)? != done.crcs[t as usize] {
                return Ok(Some(t));
            }
        }
        Ok(None)
    }

    /// Entries in tiers `0..n`.
    fn entries_below(&self, n: u32) -> u64 {
        self.ranges[..n as usize]
            .iter()
            .map(|r| r.end - r.start)
            .sum()
    }
}

/// Solves `game` tier by tier into `path` (whose lock the caller holds),
/// resuming from the working file at `ckpt` if it is one of this solve's.
///
/// Every tier taken from an earlier run is checked against the CRC32
/// recorded when it was written, and the solve goes on from the first one
/// that no longer matches (saying so through `progress`); before the
/// header is written every tier is read back and checked again, so the data
/// CRC in the header is the CRC of the bytes in the file. A working file
/// holding the finished table (the last run stopped while installing it) is
/// checked and installed.
pub(super) fn solve_streamed<G: Game>(
    game: &G,
    path: &Path,
    ckpt: &Path,
    options: &SolveOptions,
    codec: CellCodec,
    progress: &dyn Progress,
) -> Result<Streamed> {
    let mut run = match prepare(game, path, ckpt, options, codec, progress)? {
        Prepared::Installed(s) => return Ok(s),
        Prepared::Going(run) => run,
    };
    for tier in run.resumed_tiers..run.layout.ranges.len() as u32 {
        let (tally, crc) = solve_one(game, &run.work, &run.layout.ranges, tier, codec, progress)?;
        run.done.tallies.push(tally);
        run.done.crcs.push(crc);
        if run.work.temp.is_none() {
            run.work.record(&run.done)?;
        }
    }
    complete(game, run, path, ckpt, options)
}

/// A streamed solve between [`prepare`] and [`complete`]: its working file,
/// the tiers done, and where they go.
pub(super) struct Run {
    pub(super) work: Work,
    /// The working file's name: the checkpoint's, or a temporary file's.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(super) work_path: std::path::PathBuf,
    pub(super) done: Done,
    pub(super) layout: Layout,
    pub(super) header: Header,
    pub(super) resumed_tiers: u32,
    started: Instant,
}

/// What [`prepare`] found.
pub(super) enum Prepared {
    /// A working file holding the finished table was checked and installed.
    Installed(Streamed),
    /// Tiers `resumed_tiers..` are left to solve.
    Going(Run),
}

/// Opens (resuming) or creates the working file of a streamed solve and
/// checks the tiers taken over: everything before the first tier to solve.
pub(super) fn prepare<G: Game>(
    game: &G,
    path: &Path,
    ckpt: &Path,
    options: &SolveOptions,
    codec: CellCodec,
    progress: &dyn Progress,
) -> Result<Prepared> {
    if codec.kind() == TableKind::Nimber {
        game.nimbers().map_err(|reason| Error::NimbersUnsupported {
            spec: game.spec(),
            reason,
        })?;
    }
    let started = Instant::now();
    let header = table_header(game, codec);
    let tiers = game.tier_count();
    let layout = Layout {
        ranges: (0..tiers)
            .map(|t| game.tier_range(t))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                Error::GameInvariant(format!("{}: a tier has no index range", game.spec()))
            })?,
        width: u64::from(codec.width()),
    };
    let id = Identity::of(game, codec).encode();
    let data_end = header.data_offset + header.data_len();
    let slot_len = (SLOT_HEAD + id.len() + tiers as usize * TIER_RECORD).next_multiple_of(512);
    let shape = Shape {
        data_offset: header.data_offset,
        data_end,
        slot_len,
        id,
        tiers,
    };
    let (mut work, mut done) = if std::fs::symlink_metadata(ckpt).is_ok() {
        match resume(ckpt, &shape, &header)? {
            Found::Working(work, done) => (work, done),
            Found::Finished(work, found) => {
                progress.notice(&format!(
                    "checkpoint {} holds the finished table (the last run stopped while installing it): its data matches its checksum; installing it",
                    Error::quote_path(ckpt)
                ));
                let finishing = Instant::now();
                work.file.sync_all().map_err(|e| work.io("sync", e))?;
                install(work, path, ckpt, options)?;
                return Ok(Prepared::Installed(Streamed {
                    header: found,
                    resumed_tiers: tiers,
                    child_lookups: 0,
                    solve_time: Duration::ZERO,
                    finish_time: finishing.elapsed(),
                }));
            }
        }
    } else {
        (create(ckpt, path, options, &shape)?, Done::default())
    };
    let mut resumed_tiers = done.tallies.len() as u32;
    if resumed_tiers > 0 {
        // Every tier taken over must be what was recorded: a tier changed
        // since would be built on (the next tier reads it) or installed.
        if let Some(t) = layout.first_changed(&work, &done, 0..resumed_tiers)? {
            progress.notice(&format!(
                "checkpoint {}: tier {t} no longer matches the checksum recorded when it was written (the file was changed or damaged); solving again from tier {t}",
                Error::quote_path(ckpt)
            ));
            done.tallies.truncate(t as usize);
            done.crcs.truncate(t as usize);
            work.record(&done)?;
            resumed_tiers = t;
        }
        progress.advance(layout.entries_below(resumed_tiers));
    }
    let work_path = match &work.temp {
        Some(t) => t.path().to_path_buf(),
        None => ckpt.to_path_buf(),
    };
    Ok(Prepared::Going(Run {
        work,
        work_path,
        done,
        layout,
        header,
        resumed_tiers,
        started,
    }))
}

/// Reads every tier back, writes the header and installs the file, once
/// every tier is in [`Run::done`].
pub(super) fn complete<G: Game>(
    game: &G,
    run: Run,
    path: &Path,
    ckpt: &Path,
    options: &SolveOptions,
) -> Result<Streamed> {
    let Run {
        work,
        work_path: _,
        done,
        layout,
        mut header,
        resumed_tiers,
        started,
    } = run;
    let tiers = game.tier_count();
    let solve_time = started.elapsed();
    let finishing = Instant::now();
    // Read back: the CRC in the header is the file's, whatever changed it
    // while the solve ran.
    if let Some(t) = layout.first_changed(&work, &done, 0..tiers)? {
        let again = if work.temp.is_none() {
            format!("run the same command again to solve it again from tier {t}")
        } else {
            "run the solve again".to_string()
        };
        return Err(Error::Output(format!(
            "the working file of the solve changed while it ran: tier {t} no longer matches the checksum recorded when it was written; the table was not installed; {again}"
        )));
    }
    kill_point("stream-finishing");
    let mut total = Tally::default();
    for t in &done.tallies {
        total = total.add(t);
    }
    header.summary = Summary {
        counts: total.counts,
        non_positions: game.size() - total.positions,
        max_remoteness: total.max_remoteness,
        max_nimber: total.max_nimber,
    };
    // The data CRC in index order, from each tier's.
    let mut order: Vec<u32> = (0..tiers).collect();
    order.sort_by_key(|&t| layout.ranges[t as usize].start);
    let mut crc = crc32fast::Hasher::new();
    for t in order {
        let r = &layout.ranges[t as usize];
        crc.combine(&crc32fast::Hasher::new_with_initial_len(
            done.crcs[t as usize],
            (r.end - r.start) * layout.width,
        ));
    }
    header.data_crc = crc.finalize();
    finish(work, path, ckpt, options, &header)?;
    Ok(Streamed {
        header,
        resumed_tiers,
        child_lookups: total.lookups,
        solve_time,
        finish_time: finishing.elapsed(),
    })
}

/// Solves one tier into memory, writes it to its place in the file and
/// syncs; returns its tally and CRC.
fn solve_one<G: Game>(
    game: &G,
    work: &Work,
    ranges: &[Range<u64>],
    tier: u32,
    codec: CellCodec,
    progress: &dyn Progress,
) -> Result<(Tally, u32)> {
    let (tally, cur) = label_share(
        game,
        &work.file,
        work.data_offset,
        ranges,
        tier,
        codec,
        (0, 1),
        progress,
    )?;
    let w = u64::from(codec.width());
    let r = &ranges[tier as usize];
    let bytes = &cur[..((r.end - r.start) * w) as usize];
    let crc = format::data_crc(bytes);
    work.file
        .write_all_at(bytes, work.data_offset + r.start * w)
        .and_then(|()| work.file.sync_data())
        .map_err(|e| work.io("write", e))?;
    Ok((tally, crc))
}

/// Labels share `share.0` of `share.1` of `tier` (see
/// [`label_tier`](super::label_tier); `(0, 1)`: the whole tier) into a
/// zeroed buffer of the whole tier, reading the tier below through a map of
/// the working file. Cells outside the share stay zero. Returns the share's
/// tally and the buffer.
#[allow(clippy::too_many_arguments)]
pub(super) fn label_share<G: Game>(
    game: &G,
    file: &File,
    data_offset: u64,
    ranges: &[Range<u64>],
    tier: u32,
    codec: CellCodec,
    share: (u64, u64),
    progress: &dyn Progress,
) -> Result<(Tally, memmap2::MmapMut)> {
    let w = u64::from(codec.width());
    let r = ranges[tier as usize].clone();
    let len = usize::try_from((r.end - r.start) * w).map_err(|_| {
        Error::GameInvariant("a tier too large for this machine's address space".into())
    })?;
    let mut cur = anon_table(len)?;
    let below = match tier.checked_sub(1).map(|t| ranges[t as usize].clone()) {
        Some(b) if b.end > b.start => {
            let (map, lead) = crate::mmap::map_region(
                file,
                data_offset + b.start * w,
                ((b.end - b.start) * w) as usize,
            )
            .map_err(|e| Error::io("cannot map the working file of the solve", e))?;
            Some((map, lead, b))
        }
        _ => None,
    };
    let (below_bytes, below_start, below_cells): (&[u8], u64, u64) = match &below {
        Some((map, lead, b)) => (&map[*lead..], b.start, b.end - b.start),
        None => (&[], 0, 0),
    };
    let ptr = cur.as_mut_ptr();
    let cells = (r.end - r.start) as usize;
    macro_rules! run {
        ($atomic:ty) => {{
            let window = Window {
                // SAFETY: the anonymous map is page-aligned (so aligned for
                // any atomic), holds `cells` cells of this width, and `cur`
                // is not otherwise accessed while the view lives.
                cur: unsafe { std::slice::from_raw_parts(ptr as *const $atomic, cells) },
                cur_start: r.start,
                below: below_bytes,
                below_start,
                below_cells,
                width: w as usize,
                stray: AtomicU64::new(0),
            };
            let tally = if share == (0, 1) {
                solve_tier(game, &window, codec, tier, progress)?
            } else {
                let units = game.tier_units(tier);
                progress.tier(tier, game.tier_count(), units);
                label_tier(game, &window, codec, tier, units, share, progress)?
            };
            (tally, window.stray.load(Relaxed))
        }};
    }
    let (tally, stray) = match w {
        1 => run!(AtomicU8),
        2 => run!(AtomicU16),
        _ => run!(AtomicU32),
    };
    if stray != 0 {
        return Err(Error::GameInvariant(format!(
            "{}: tier {tier} wrote index {}, outside its range {r:?}",
            game.spec(),
            stray - 1
        )));
    }
    drop(below);
    Ok((tally, cur))
}

/// The sizes and identity of one solve's working file.
struct Shape {
    data_offset: u64,
    data_end: u64,
    slot_len: usize,
    id: Vec<u8>,
    tiers: u32,
}

impl Shape {
    fn file_len(&self) -> u64 {
        self.data_end + 2 * self.slot_len as u64
    }

    /// The working file's first page: the marker, then the solve's
    /// identity (so a working file of another solve is named as such, and a
    /// damaged one of this solve as damaged), then zeros.
    fn head(&self) -> Vec<u8> {
        let mut head = vec![0u8; self.data_offset as usize];
        head[..8].copy_from_slice(&MAGIC);
        if 8 + self.id.len() <= head.len() {
            head[8..8 + self.id.len()].copy_from_slice(&self.id);
        }
        head
    }

    fn work(&self, file: File) -> Work {
        Work {
            file,
            temp: None,
            data_offset: self.data_offset,
            data_end: self.data_end,
            slot_len: self.slot_len,
            id: self.id.clone(),
            tiers: self.tiers,
            sequence: 0,
        }
    }
}

/// Creates the working file under a fresh temporary name: sized, marked
/// and, with checkpoints on, its first slot written and synced before it is
/// renamed to `ckpt`, so a working file under that name is always one a
/// rerun can resume. With checkpoints off it stays a temporary file of the
/// output, removed if the solve fails.
fn create(ckpt: &Path, path: &Path, options: &SolveOptions, shape: &Shape) -> Result<Work> {
    let checkpointed = options.checkpoint_interval.is_some();
    let tmp = TempFile::create_beside(if checkpointed { ckpt } else { path })?;
    kill_point("stream-temp-created");
    let io = |e| Error::io(format!("cannot write {}", tmp.path().display()), e);
    let file = tmp.file().try_clone().map_err(io)?;
    file.set_len(shape.file_len()).map_err(io)?;
    file.write_all_at(&shape.head(), 0).map_err(io)?;
    let mut work = shape.work(file);
    if checkpointed {
        work.record(&Done::default())?;
        checkpoint::lock(&work.file, ckpt)?;
        drop(tmp.persist(ckpt)?);
        kill_point("stream-created");
    } else {
        work.temp = Some(tmp);
    }
    Ok(work)
}

/// What an existing working file holds.
enum Found {
    /// Tiers in progress: the newer whole slot's record.
    Working(Work, Done),
    /// The finished table, its slots cut off and its data checked against
    /// its header's CRC: only the rename is left.
    Finished(Work, Header),
}

/// Reopens the working file at `ckpt` (never through a symlink, a regular
/// file only), locks it, and says what it holds: a working file of this
/// solve (its newer whole slot), or this solve's finished table not yet
/// renamed (with its slots still on, it is made a working file again, so
/// its tiers are checked like any resumed ones). Anything else is refused
/// with one line naming `--restart`.
fn resume(ckpt: &Path, shape: &Shape, want: &Header) -> Result<Found> {
    let refuse = |fault| checkpoint::refuse(ckpt, fault);
    let file = open_regular(ckpt, false).map_err(|e| {
        Error::io(
            format!("cannot open checkpoint {}", Error::quote_path(ckpt)),
            e,
        )
    })?;
    checkpoint::lock(&file, ckpt)?;
    let len = file
        .metadata()
        .map_err(|e| {
            Error::io(
                format!("cannot read checkpoint {}", Error::quote_path(ckpt)),
                e,
            )
        })?
        .len();
    let mut head = vec![0u8; shape.data_offset.min(len) as usize];
    file.read_exact_at(&mut head, 0).map_err(|e| {
        Error::io(
            format!("cannot read checkpoint {}", Error::quote_path(ckpt)),
            e,
        )
    })?;
    let (data_end, file_len) = (shape.data_end, shape.file_len());
    let work = shape.work(file);
    if head.starts_with(&format::MAGIC[..8]) {
        // Read as this solve's table would be, else as a whole table of
        // its own (another game's, named in the message).
        let found = Header::decode(&head, data_end)
            .or_else(|e| Header::decode(&head, len).map_err(|_| e))
            .map_err(|e| refuse(CheckpointFault::NotThisTable(Box::new(e))))?;
        if !same_table(&found, want) {
            return Err(refuse(CheckpointFault::OtherTable { found: found.spec }));
        }
        if len == data_end {
            let (map, lead) = crate::mmap::map_region(
                &work.file,
                shape.data_offset,
                (data_end - shape.data_offset) as usize,
            )
            .map_err(|e| work.io("read", e))?;
            if format::data_crc(&map[lead..]) != found.data_crc {
                return Err(refuse(CheckpointFault::TableDamaged));
            }
            drop(map);
            return Ok(Found::Finished(work, found));
        }
        if len != file_len {
            return Err(refuse(CheckpointFault::TableLength {
                found: len,
                table: data_end,
                working: file_len,
            }));
        }
        // The header went on last, after every tier and slot: put the
        // marker back, so that if this run is stopped the file is again a
        // working file, and resume it like one.
        head = shape.head();
        work.file
            .write_all_at(&head, 0)
            .and_then(|()| work.file.sync_data())
            .map_err(|e| work.io("write", e))?;
    } else if !head.starts_with(&MAGIC) {
        return Err(refuse(CheckpointFault::NotWorkingFile));
    }
    // Working files of earlier builds have zeros after the marker.
    let named = head.get(8..8 + shape.id.len());
    let ours = named == Some(&shape.id[..]);
    let unnamed = named.is_some_and(|b| b.iter().all(|&x| x == 0));
    if !ours && !unnamed {
        return Err(refuse(CheckpointFault::OtherSolve {
            found: named.and_then(identity_spec),
            expected: want.spec.clone(),
        }));
    }
    if len != file_len {
        let (found, expected) = (len, file_len);
        return Err(refuse(match (ours, len < file_len) {
            (true, true) => CheckpointFault::Truncated { found, expected },
            (true, false) => CheckpointFault::TooLong { found, expected },
            (false, _) => CheckpointFault::OtherLength { found, expected },
        }));
    }
    let mut work = work;
    let (sequence, done) = work.read_slots().ok_or_else(|| {
        refuse(if ours {
            CheckpointFault::NoSlot
        } else {
            CheckpointFault::OtherOrDamaged
        })
    })?;
    work.sequence = sequence;
    Ok(Found::Working(work, done))
}

/// Whether a finished table's header is the one this solve writes, but for
/// what the solve computes (the summary and the data CRC).
fn same_table(found: &Header, want: &Header) -> bool {
    let blank = |h: &Header| Header {
        data_crc: 0,
        summary: Summary::default(),
        ..h.clone()
    };
    blank(found) == blank(want)
}

/// The game spec in an encoded [`Identity`] (the bytes after the marker),
/// for a message.
fn identity_spec(id: &[u8]) -> Option<String> {
    let n = usize::from(LE::read_u16(id.get(32..34)?));
    id.get(34..34 + n)
        .map(|s| String::from_utf8_lossy(s).into_owned())
}

/// Writes the header over the marker and syncs it, cuts the slots off and
/// syncs, then installs the file. The header is durable before the slots go:
/// whatever the moment a crash comes, the working file is either resumable
/// (marker and slots), or the finished table with or without its slots,
/// which a rerun checks and installs.
fn finish(
    work: Work,
    path: &Path,
    ckpt: &Path,
    options: &SolveOptions,
    header: &Header,
) -> Result<()> {
    let mut head = header.encode();
    head.resize(header.data_offset as usize, 0);
    work.file
        .write_all_at(&head, 0)
        .and_then(|()| work.file.sync_data())
        .map_err(|e| work.io("finish", e))?;
    kill_point("stream-header-written");
    work.file
        .set_len(work.data_end)
        .map_err(|e| work.io("finish", e))?;
    kill_point("stream-slots-cut");
    work.file.sync_all().map_err(|e| work.io("finish", e))?;
    kill_point("stream-synced");
    install(work, path, ckpt, options)
}

/// Renames the finished working file to `path`.
fn install(work: Work, path: &Path, ckpt: &Path, options: &SolveOptions) -> Result<()> {
    // Checked again just before the rename: the output may have been
    // replaced by something else while we solved.
    check_output(path, &options.inputs)?;
    match work.temp {
        Some(tmp) => drop(tmp.persist(path)?),
        None => {
            // Only the file this solve holds open moves into place: if
            // something else now sits at the checkpoint's name, stop.
            if !format::names_file(ckpt, &work.file) {
                return Err(Error::Output(format!(
                    "checkpoint {} was replaced while the solve ran; the table was not installed",
                    Error::quote_path(ckpt)
                )));
            }
            std::fs::rename(ckpt, path).map_err(|e| {
                Error::io(
                    format!(
                        "cannot rename {} to {}",
                        Error::quote_path(ckpt),
                        Error::quote_path(path)
                    ),
                    e,
                )
            })?;
            format::sync_dir(path);
        }
    }
    kill_point("stream-renamed");
    Ok(())
}
