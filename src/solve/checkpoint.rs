//! Checkpoints: resuming a solve after a crash or power loss.
//!
//! While a solve runs, each completed tier (or run of tiers) is appended to
//! `NAME.ckpt` as one record: the tiers' cells in the solver's enumeration
//! order (work units in order, each unit's positions in the game's fixed
//! order), with a CRC32. A record counts only once it is written and synced.
//! On the next run of the same command the records are replayed into the
//! table and the solve continues with the next tier; a torn or corrupt last
//! record is dropped (and the file cut back to the last good record).
//!
//! A record is written straight from the table: the tiers' work units are
//! cut into runs of about [`FRAME_BYTES`] of cells, and each run is read from
//! the table and compressed as its own zstd frame (level 1; a tier
//! compresses about ninefold) on the solver's threads, a few runs in flight
//! per thread, and written in order. No copy of a tier is ever made: a
//! checkpoint costs a pass over the cells and a few frames of memory.
//!
//! ```text
//! header:  magic "RTBCKPT\0" | u32 checkpoint version | u32 header length H |
//!          u32 CRC32 of the header with this field zero | u16 index scheme |
//!          u8 table kind | u8 cell width | u64 entries |
//!          u16 length S | S bytes of game spec | u16 length G | G bytes generator
//! record:  magic "TIER" | u32 first tier | u32 last tier | u64 cells |
//!          u64 body length L | u32 CRC32 of the L bytes | L bytes of frames
//! frame:   u32 first tier | u64 first unit | u32 end tier | u64 end unit |
//!          u64 cells | u64 compressed length C | C bytes: one zstd frame
//! ```
//!
//! A frame holds the cells of the work units from (first tier, first unit)
//! up to, not including, (end tier, end unit), where the unit after a tier's
//! last is unit 0 of the next tier; a record's frames follow one another and
//! cover its tiers' units exactly. A record's head is written last, over a
//! zeroed placeholder, so a record cut short anywhere is no record.
//!
//! A checkpoint of other rules, another index, another table kind or another
//! checkpoint or program version is refused with a message, never reused.
//!
//! The checkpoint version ([`CHECKPOINT_VERSION`]) is this layout's own and
//! moves independently of the table format's
//! ([`FORMAT_VERSION`](crate::format::FORMAT_VERSION)): a checkpoint is only
//! ever read back by the solve that wrote it, a table by any reader.

use super::output::open_regular;
use crate::error::{CheckpointFault, Error, Result};
use crate::format::{generator, seal, sealed, CellCodec, CountingWriter, TempFile};
use crate::game::Game;
use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::{Condvar, Mutex};

pub(super) const MAGIC: [u8; 8] = *b"RTBCKPT\0";
/// The checkpoint layout's version; bump it when the layout above changes,
/// whatever the table format does. Version 1 (the table format's version,
/// which checkpoints stored here before they had a number of their own) held
/// each record in one zstd block; version 2 holds it in frames.
pub const CHECKPOINT_VERSION: u32 = 2;
const RECORD: [u8; 4] = *b"TIER";
const RECORD_HEAD: usize = 4 + 4 + 4 + 8 + 8 + 4;
const FRAME_HEAD: usize = 4 + 8 + 4 + 8 + 8 + 8;
/// About how many bytes of cells one frame holds: large enough that zstd
/// compresses well and a frame's head costs nothing, small enough that a few
/// frames per thread in flight cost a few MiB.
pub const FRAME_BYTES: u64 = 4 << 20;
/// Cells read from the table are handed to zstd this many bytes at a time.
const FEED_BYTES: usize = 256 << 10;
/// Frames compressed ahead of the one the file waits for, per thread.
const AHEAD_PER_THREAD: usize = 2;

/// The checkpoint file of an output path: `NAME.ckpt`.
pub fn checkpoint_path(path: &Path) -> PathBuf {
    super::output::sibling(path, ".ckpt")
}

/// Locks a checkpoint for this solve. The output's lock already keeps other
/// solves of the same output away; this keeps out anything else that
/// respects advisory locks (another build's solve) while we append.
pub(super) fn lock(file: &File, path: &Path) -> Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(refuse(path, CheckpointFault::InUse)),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(
            format!("cannot lock checkpoint {}", Error::quote_path(path)),
            e,
        )),
    }
}

/// What identifies the table a checkpoint belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    pub spec: String,
    pub index_scheme: u16,
    pub kind: u8,
    pub width: u8,
    pub entries: u64,
    pub generator: String,
}

impl Identity {
    pub fn of<G: Game>(game: &G, codec: CellCodec) -> Identity {
        Identity {
            spec: game.spec(),
            index_scheme: game.index_scheme(),
            kind: codec.kind().id(),
            width: codec.width(),
            entries: game.size(),
            generator: generator(),
        }
    }

    pub(super) fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; 8 + 4 + 4 + 4 + 2 + 1 + 1 + 8];
        b[..8].copy_from_slice(&MAGIC);
        LE::write_u32(&mut b[8..], CHECKPOINT_VERSION);
        LE::write_u16(&mut b[20..], self.index_scheme);
        b[22] = self.kind;
        b[23] = self.width;
        LE::write_u64(&mut b[24..], self.entries);
        for s in [&self.spec, &self.generator] {
            let mut len = [0u8; 2];
            LE::write_u16(&mut len, s.len() as u16);
            b.extend_from_slice(&len);
            b.extend_from_slice(s.as_bytes());
        }
        let n = b.len() as u32;
        LE::write_u32(&mut b[12..], n);
        seal(&mut b, 16);
        b
    }
}

/// An open checkpoint, appended to after each tier.
pub(crate) struct Checkpoint {
    file: File,
    path: PathBuf,
    /// Tiers stored so far (0..next_tier).
    pub next_tier: u32,
    /// Why records after `next_tier` were dropped on resume, when that is
    /// news: a whole record that fails its checks (a torn last record, what
    /// a kill leaves, is dropped without a word).
    pub dropped: Option<String>,
}

/// The refusal of the checkpoint at `path`.
pub(super) fn refuse(path: &Path, fault: CheckpointFault) -> Error {
    Error::Checkpoint {
        path: path.to_path_buf(),
        fault,
    }
}

impl Checkpoint {
    /// Creates a new checkpoint (replacing any old one) for `id`: written to
    /// a fresh temporary file and renamed into place, so an existing path —
    /// a symlink planted at `NAME.ckpt` — is replaced, never written through.
    pub fn create(path: &Path, id: &Identity) -> Result<Checkpoint> {
        let io = |e| {
            Error::io(
                format!("cannot write checkpoint {}", Error::quote_path(path)),
                e,
            )
        };
        let tmp = TempFile::create_beside(path)?;
        tmp.write(|w| w.write_all(&id.encode())).map_err(io)?;
        crate::format::kill_point("checkpoint-temp-written");
        let file = tmp.persist(path)?;
        lock(&file, path)?;
        Ok(Checkpoint {
            file,
            path: path.to_path_buf(),
            next_tier: 0,
            dropped: None,
        })
    }

    /// Opens an existing checkpoint, checks it belongs to `id` (the
    /// identity of `game`'s table), and replays its complete records into
    /// `table`, the table's bytes (`id.width` bytes a cell). A torn last
    /// record is cut off. Refuses a checkpoint of anything else.
    pub fn resume<G: Game>(
        path: &Path,
        id: &Identity,
        game: &G,
        table: &[AtomicU8],
    ) -> Result<Checkpoint> {
        let io = |e| {
            Error::io(
                format!("cannot read checkpoint {}", Error::quote_path(path)),
                e,
            )
        };
        // Never through a symlink, and only a regular file: the checkpoint is
        // cut back and appended to, so following a planted link would damage
        // whatever it points at.
        let meta = std::fs::symlink_metadata(path).map_err(io)?;
        if !meta.is_file() {
            let kind = crate::error::file_kind(&meta.file_type());
            return Err(refuse(path, CheckpointFault::NotAFile { kind }));
        }
        let mut file = open_regular(path, false).map_err(io)?;
        lock(&file, path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let want = id.encode();
        if bytes.len() < 16 || bytes[..8] != MAGIC {
            return Err(refuse(path, CheckpointFault::NotACheckpoint));
        }
        let version = LE::read_u32(&bytes[8..]);
        if version != CHECKPOINT_VERSION {
            return Err(refuse(
                path,
                CheckpointFault::Version {
                    found: version,
                    supported: CHECKPOINT_VERSION,
                },
            ));
        }
        let len = LE::read_u32(&bytes[12..]) as usize;
        // The header's own CRC before its contents: a damaged header must be reported as
        // damaged, not read for the game it seems to name.
        if len < 28 || len > bytes.len() || len > 1 << 20 {
            return Err(refuse(path, CheckpointFault::HeaderLength));
        }
        let (stored, computed) = sealed(&bytes[..len], 16);
        if computed != stored {
            return Err(refuse(path, CheckpointFault::HeaderChecksum));
        }
        if bytes[..len] != want[..] {
            let found = (len <= bytes.len() && len > 28)
                .then(|| {
                    let n = LE::read_u16(&bytes[32..]) as usize;
                    bytes
                        .get(34..34 + n)
                        .map(|s| String::from_utf8_lossy(s).into_owned())
                })
                .flatten();
            return Err(refuse(
                path,
                CheckpointFault::OtherSolve {
                    found,
                    expected: id.spec.clone(),
                },
            ));
        }
        let mut at = len;
        let mut next_tier = 0u32;
        let mut dropped = None;
        while at + RECORD_HEAD <= bytes.len() {
            let h = &bytes[at..at + RECORD_HEAD];
            if h[..4] != RECORD {
                // Zeros: the placeholder of a record a kill cut short.
                if h.iter().any(|&b| b != 0) {
                    dropped = Some(format!("what follows tier {next_tier} is not a record"));
                }
                break;
            }
            let first = LE::read_u32(&h[4..]);
            let last = LE::read_u32(&h[8..]);
            let cells = LE::read_u64(&h[12..]);
            let blen = LE::read_u64(&h[20..]);
            let crc = LE::read_u32(&h[28..]);
            let body_at = at + RECORD_HEAD;
            let damaged = || {
                Some(format!(
                    "the record of tiers {first}-{last} is damaged (it fails its checksum or its checks)"
                ))
            };
            if first != next_tier || last < first || last >= game.tier_count() {
                dropped = damaged();
                break;
            }
            // Cut short: what a kill while it was written leaves.
            if blen > (bytes.len() - body_at) as u64 {
                break;
            }
            let body = &bytes[body_at..body_at + blen as usize];
            if crc32fast::hash(body) != crc {
                dropped = damaged();
                break;
            }
            // Checked whole before any cell is restored: a record dropped
            // must leave its tiers' cells as the solver expects them, empty.
            let Some(frames) = frames_of(body, game, first, last, cells) else {
                dropped = damaged();
                break;
            };
            frames
                .par_iter()
                .map(|f| f.restore(game, table, id.width, path))
                .collect::<Result<()>>()?;
            next_tier = last + 1;
            at = body_at + blen as usize;
        }
        // Drop whatever follows the last good record, so appends stay valid.
        file.set_len(at as u64).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        file.sync_all().map_err(io)?;
        Ok(Checkpoint {
            file,
            path: path.to_path_buf(),
            next_tier,
            dropped,
        })
    }

    /// Appends tiers `first..=last` of `game`, read from `table` (the
    /// table's bytes, `width` bytes a cell), and syncs; only then do they
    /// count.
    pub fn append<G: Game>(
        &mut self,
        game: &G,
        first: u32,
        last: u32,
        table: &[AtomicU8],
        width: u8,
    ) -> Result<()> {
        let path = self.path.clone();
        let io = |e| {
            Error::io(
                format!("cannot write checkpoint {}", Error::quote_path(&path)),
                e,
            )
        };
        let start = self.file.seek(SeekFrom::End(0)).map_err(io)?;
        let written = self.write_record(game, first, last, table, width, start);
        if written.is_err() {
            // Best effort: a half-written record is no record anyway (its
            // head is zeros), but later appends should not follow it.
            let _ = self.file.set_len(start);
        }
        written
    }

    fn write_record<G: Game>(
        &mut self,
        game: &G,
        first: u32,
        last: u32,
        table: &[AtomicU8],
        width: u8,
        start: u64,
    ) -> Result<()> {
        let path = self.path.clone();
        let io = |e| {
            Error::io(
                format!("cannot write checkpoint {}", Error::quote_path(&path)),
                e,
            )
        };
        self.file.write_all(&[0u8; RECORD_HEAD]).map_err(io)?;
        let mut cells = 0u64;
        let mut body = CountingWriter::new(&mut self.file);
        stream_frames(game, first, last, table, width, |head, frame| {
            cells += LE::read_u64(&head[24..]);
            body.write_all(head)?;
            body.write_all(frame)
        })
        .map_err(io)?;
        let (crc, body) = (body.crc(), body.count());
        let mut head = [0u8; RECORD_HEAD];
        head[..4].copy_from_slice(&RECORD);
        LE::write_u32(&mut head[4..], first);
        LE::write_u32(&mut head[8..], last);
        LE::write_u64(&mut head[12..], cells);
        LE::write_u64(&mut head[20..], body);
        LE::write_u32(&mut head[28..], crc);
        self.file.seek(SeekFrom::Start(start)).map_err(io)?;
        self.file.write_all(&head).map_err(io)?;
        self.file.seek(SeekFrom::End(0)).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.next_tier = last + 1;
        Ok(())
    }

    /// Removes the checkpoint (after the finished file is in place).
    pub fn remove(self) {
        drop(self.file);
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A place in a run of tiers' work units: (tier, unit).
type Place = (u32, u64);

/// The units from `from` up to, not including, `to`, in order; `(t,
/// tier_units(t))` is the place after tier `t`'s last unit.
fn for_each_unit<G: Game>(game: &G, from: Place, to: Place, mut f: impl FnMut(u32, u64)) {
    let (mut t, mut u) = from;
    while (t, u) < to {
        if u >= game.tier_units(t) {
            t += 1;
            u = 0;
            continue;
        }
        f(t, u);
        u += 1;
    }
}

/// One frame of a record, as read back.
struct Frame<'a> {
    from: Place,
    to: Place,
    cells: u64,
    zstd: &'a [u8],
}

impl Frame<'_> {
    /// Decompresses the frame into its cells' places in `table`.
    fn restore<G: Game>(&self, game: &G, table: &[AtomicU8], width: u8, path: &Path) -> Result<()> {
        let io = |e| {
            Error::io(
                format!("cannot read checkpoint {}", Error::quote_path(path)),
                e,
            )
        };
        let w = usize::from(width);
        let mut decoder = zstd::stream::read::Decoder::with_buffer(self.zstd)
            .map_err(io)?
            .single_frame();
        let mut buf = vec![0u8; FEED_BYTES - FEED_BYTES % w];
        let (mut have, mut used) = (0usize, 0usize);
        let mut cells = 0u64;
        let mut failure: Option<Error> = None;
        let mismatch = || {
            refuse(
                path,
                CheckpointFault::TiersMismatch {
                    first: self.from.0,
                    end: self.to.0,
                },
            )
        };
        for_each_unit(game, self.from, self.to, |t, u| {
            game.for_each_in_unit(t, u, |i, _| {
                if failure.is_some() {
                    return;
                }
                if used + w > have {
                    if used != have {
                        failure = Some(mismatch());
                        return;
                    }
                    match read_full(&mut decoder, &mut buf) {
                        Ok(n) if n >= w && n % w == 0 => (have, used) = (n, 0),
                        Ok(_) => {
                            failure = Some(mismatch());
                            return;
                        }
                        Err(e) => {
                            failure = Some(io(e));
                            return;
                        }
                    }
                }
                let at = i as usize * w;
                for k in 0..w {
                    table[at + k].store(buf[used + k], Relaxed);
                }
                used += w;
                cells += 1;
            })
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let mut rest = [0u8; 1];
        let more = read_full(&mut decoder, &mut rest).map_err(io)?;
        if used != have || more != 0 || cells != self.cells {
            return Err(mismatch());
        }
        Ok(())
    }
}

/// Reads until `buf` is full or the stream ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The frames of a record's body, if they follow one another over exactly
/// the units of tiers `first..=last` and hold `cells` cells in all; `None`
/// for a record that is not whole.
fn frames_of<'a, G: Game>(
    body: &'a [u8],
    game: &G,
    first: u32,
    last: u32,
    cells: u64,
) -> Option<Vec<Frame<'a>>> {
    let mut frames = Vec::new();
    let mut at = 0usize;
    let mut next: Place = (first, 0);
    let mut total = 0u64;
    let end: Place = (last + 1, 0);
    while at < body.len() {
        let h = body.get(at..at + FRAME_HEAD)?;
        let from = (LE::read_u32(h), LE::read_u64(&h[4..]));
        let to = (LE::read_u32(&h[12..]), LE::read_u64(&h[16..]));
        let n = LE::read_u64(&h[24..]);
        let clen = usize::try_from(LE::read_u64(&h[32..])).ok()?;
        let zstd = body.get(at + FRAME_HEAD..(at + FRAME_HEAD).checked_add(clen)?)?;
        if from != next || to <= from || to > end || (to.0 <= last && to.1 > game.tier_units(to.0))
        {
            return None;
        }
        total = total.checked_add(n)?;
        frames.push(Frame {
            from,
            to,
            cells: n,
            zstd,
        });
        next = to;
        at += FRAME_HEAD + clen;
    }
    // The record must end at its last tier's end, written either way.
    let whole = next == end || next == (last, game.tier_units(last));
    (whole && total == cells).then_some(frames)
}

/// What the threads writing a record share.
struct Shared {
    /// The next run of units to hand out.
    cursor: Place,
    /// Cells in the first unit of each tier (`None`: not counted yet).
    estimates: Vec<Option<u64>>,
    /// Frames handed out, and written, so far.
    claimed: u64,
    written: u64,
    /// Frames compressed but waiting for an earlier one.
    done: BTreeMap<u64, (Vec<u8>, Vec<u8>)>,
    failure: Option<std::io::Error>,
}

/// Reads tiers `first..=last` from `table` in enumeration order and calls
/// `write(head, zstd_frame)` for each frame in order. The frames are
/// compressed on all of rayon's threads, each taking the next run of units
/// when it is free, with at most [`AHEAD_PER_THREAD`] frames a thread
/// finished ahead of the one `write` waits for.
fn stream_frames<G: Game>(
    game: &G,
    first: u32,
    last: u32,
    table: &[AtomicU8],
    width: u8,
    write: impl FnMut(&[u8], &[u8]) -> std::io::Result<()> + Send,
) -> std::io::Result<()> {
    let threads = rayon::current_num_threads().max(1);
    let shared = Mutex::new(Shared {
        cursor: (first, 0),
        estimates: vec![None; (last - first + 1) as usize],
        claimed: 0,
        written: 0,
        done: BTreeMap::new(),
        failure: None,
    });
    let write = Mutex::new(write);
    let turn = Condvar::new();
    let ahead = (threads * AHEAD_PER_THREAD) as u64;
    let frame_cells = (FRAME_BYTES / u64::from(width)).max(1);
    let end: Place = (last + 1, 0);
    let worker = || loop {
        let (seq, from, to) = {
            let mut s = shared.lock().unwrap();
            while s.failure.is_none() && s.claimed - s.written >= ahead {
                s = turn.wait(s).unwrap();
            }
            if s.failure.is_some() {
                return;
            }
            let from = s.cursor;
            let to = claim(game, &mut s, first, end, frame_cells, threads);
            if to == from {
                return;
            }
            s.cursor = to;
            s.claimed += 1;
            (s.claimed - 1, from, to)
        };
        let frame = compress(game, table, width, from, to);
        let mut s = shared.lock().unwrap();
        match frame {
            Ok(f) => {
                s.done.insert(seq, f);
            }
            Err(e) => {
                s.failure.get_or_insert(e);
            }
        }
        // Whoever completes the frame the file waits for writes it, and any
        // that were waiting behind it.
        while s.failure.is_none() {
            let at = s.written;
            let Some((head, zstd)) = s.done.remove(&at) else {
                break;
            };
            let mut sink = write.lock().unwrap();
            if let Err(e) = (*sink)(&head, &zstd) {
                s.failure = Some(e);
            }
            s.written += 1;
        }
        turn.notify_all();
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(worker);
        }
    });
    let s = shared.into_inner().unwrap();
    match s.failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The end of the next run of units from `s.cursor`: about `frame_cells`
/// cells, judged by each tier's first unit, and never more than a quarter
/// of a tier's units per thread, so a tier whose first unit misleads still
/// spreads over the threads. Runs of small tiers share a frame.
fn claim<G: Game>(
    game: &G,
    s: &mut Shared,
    first: u32,
    end: Place,
    frame_cells: u64,
    threads: usize,
) -> Place {
    let (mut t, mut u) = s.cursor;
    let mut budget = frame_cells;
    while (t, u) < end {
        let units = game.tier_units(t);
        if u >= units {
            (t, u) = (t + 1, 0);
            continue;
        }
        let estimate = *s.estimates[(t - first) as usize].get_or_insert_with(|| {
            let mut n = 0u64;
            game.for_each_in_unit(t, 0, |_, _| n += 1);
            n
        });
        let cap = units.div_ceil(4 * threads as u64);
        let take = (units - u).min(cap).min((budget / estimate.max(1)).max(1));
        u += take;
        budget = budget.saturating_sub(take * estimate.max(1));
        if u < units || budget == 0 {
            break;
        }
    }
    (t, u)
}

/// Reads the cells of the units from `from` to `to` out of `table` and
/// compresses them into one zstd frame: the frame's head and the frame.
fn compress<G: Game>(
    game: &G,
    table: &[AtomicU8],
    width: u8,
    from: Place,
    to: Place,
) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let w = usize::from(width);
    let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 1)?;
    encoder.include_checksum(false)?;
    let mut buf: Vec<u8> = Vec::with_capacity(FEED_BYTES + w);
    let mut cells = 0u64;
    let mut failure = None;
    for_each_unit(game, from, to, |t, u| {
        game.for_each_in_unit(t, u, |i, _| {
            let at = i as usize * w;
            if w == 1 {
                buf.push(table[at].load(Relaxed));
            } else {
                buf.extend(table[at..at + w].iter().map(|b| b.load(Relaxed)));
            }
            cells += 1;
            if buf.len() >= FEED_BYTES {
                if let Err(e) = encoder.write_all(&buf) {
                    failure.get_or_insert(e);
                }
                buf.clear();
            }
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    encoder.write_all(&buf)?;
    let zstd = encoder.finish()?;
    let mut head = vec![0u8; FRAME_HEAD];
    LE::write_u32(&mut head, from.0);
    LE::write_u64(&mut head[4..], from.1);
    LE::write_u32(&mut head[12..], to.0);
    LE::write_u64(&mut head[16..], to.1);
    LE::write_u64(&mut head[24..], cells);
    LE::write_u64(&mut head[32..], zstd.len() as u64);
    Ok((head, zstd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Isolation;

    fn game() -> Isolation {
        Isolation::new(3, 4).unwrap()
    }

    fn identity() -> Identity {
        Identity::of(&game(), CellCodec::new(1))
    }

    fn zeros(n: u64) -> Vec<AtomicU8> {
        (0..n).map(|_| AtomicU8::new(0)).collect()
    }

    fn resume(path: &Path, id: &Identity) -> Result<Checkpoint> {
        let g = game();
        Checkpoint::resume(path, id, &g, &zeros(g.size()))
    }

    /// The solved table as bytes, and the same cells with only tiers below
    /// `upto` kept (the rest empty, as the solver leaves unsolved tiers).
    fn solved(upto: u32) -> (Vec<AtomicU8>, Vec<u8>) {
        let g = game();
        let s = crate::solve::solve_in_memory(&g, &Default::default()).unwrap();
        let mut kept = vec![0u8; s.cells.len()];
        for t in 0..upto {
            for u in 0..g.tier_units(t) {
                g.for_each_in_unit(t, u, |i, _| kept[i as usize] = s.cells[i as usize]);
            }
        }
        (s.cells.iter().map(|&b| AtomicU8::new(b)).collect(), kept)
    }

    fn bytes(t: &[AtomicU8]) -> Vec<u8> {
        t.iter().map(|b| b.load(Relaxed)).collect()
    }

    #[test]
    fn records_resume_to_the_cells_they_hold_and_a_torn_one_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtb.ckpt");
        let (g, id) = (game(), identity());
        let (table, _) = solved(g.tier_count());
        let mut ck = Checkpoint::create(&path, &id).unwrap();
        ck.append(&g, 0, 3, &table, 1).unwrap();
        let one = std::fs::metadata(&path).unwrap().len();
        ck.append(&g, 4, 6, &table, 1).unwrap();
        drop(ck);
        // Several frames a tier: the units spread over the threads.
        let record = &std::fs::read(&path).unwrap()[id.encode().len()..];
        let blen = LE::read_u64(&record[20..]) as usize;
        let body = &record[RECORD_HEAD..RECORD_HEAD + blen];
        let frames = frames_of(body, &g, 0, 3, LE::read_u64(&record[12..])).unwrap();
        assert!(frames.len() > 4, "{} frames", frames.len());

        let restored = zeros(g.size());
        let ck = Checkpoint::resume(&path, &id, &g, &restored).unwrap();
        assert_eq!(ck.next_tier, 7);
        drop(ck);
        assert_eq!(bytes(&restored), solved(7).1);
        assert_ne!(solved(7).1, solved(4).1);

        // A torn second record: only the first is replayed, and the file is
        // cut back to it.
        let len = std::fs::metadata(&path).unwrap().len();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 3).unwrap();
        drop(f);
        let restored = zeros(g.size());
        let ck = Checkpoint::resume(&path, &id, &g, &restored).unwrap();
        assert_eq!(ck.next_tier, 4);
        assert_eq!(bytes(&restored), solved(4).1);
        drop(ck);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), one);

        // A flipped byte inside a frame: the record fails its CRC.
        let mut b = std::fs::read(&path).unwrap();
        let at = b.len() - 10;
        b[at] ^= 0x40;
        std::fs::write(&path, &b).unwrap();
        let restored = zeros(g.size());
        assert_eq!(resume_into(&path, &id, &restored), 0);
        assert!(bytes(&restored).iter().all(|&c| c == 0));
    }

    fn resume_into(path: &Path, id: &Identity, table: &[AtomicU8]) -> u32 {
        Checkpoint::resume(path, id, &game(), table)
            .unwrap()
            .next_tier
    }

    /// A record whose head was never written (the placeholder of a solve
    /// killed while streaming frames) is no record.
    #[test]
    fn a_record_without_its_head_is_no_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtb.ckpt");
        let (g, id) = (game(), identity());
        let (table, _) = solved(g.tier_count());
        let mut ck = Checkpoint::create(&path, &id).unwrap();
        ck.append(&g, 0, 2, &table, 1).unwrap();
        let one = std::fs::metadata(&path).unwrap().len() as usize;
        ck.append(&g, 3, 5, &table, 1).unwrap();
        drop(ck);
        let mut b = std::fs::read(&path).unwrap();
        b[one..one + RECORD_HEAD].fill(0);
        std::fs::write(&path, &b).unwrap();
        let restored = zeros(g.size());
        assert_eq!(resume_into(&path, &id, &restored), 3);
        assert_eq!(bytes(&restored), solved(3).1);
    }

    #[test]
    fn a_checkpoint_of_another_checkpoint_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtb.ckpt");
        let id = identity();
        drop(Checkpoint::create(&path, &id).unwrap());
        assert_eq!(resume(&path, &id).unwrap().next_tier, 0);
        let mut bytes = std::fs::read(&path).unwrap();
        LE::write_u32(&mut bytes[8..], CHECKPOINT_VERSION + 1);
        std::fs::write(&path, &bytes).unwrap();
        let err = resume(&path, &id).err().expect("refused");
        // A kind with its figures and the path, for a program to match on.
        assert!(
            matches!(
                &err,
                Error::Checkpoint {
                    path: p,
                    fault: CheckpointFault::Version { found, supported: CHECKPOINT_VERSION },
                } if *p == path && *found == CHECKPOINT_VERSION + 1
            ),
            "{err:?}"
        );
        let err = err.to_string();
        let want = format!(
            "checkpoint {} has checkpoint format version {}, this build reads version {CHECKPOINT_VERSION}",
            Error::quote_path(&path),
            CHECKPOINT_VERSION + 1
        );
        assert!(err.contains(&want), "{err}");
        assert!(err.contains("--restart"), "{err}");
    }

    /// Version 1 kept a record in one zstd block; such a checkpoint (the
    /// version sits where it always did) is refused, not misread.
    #[test]
    fn a_version_1_checkpoint_is_refused_with_the_version_message() {
        assert_eq!(CHECKPOINT_VERSION, 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtb.ckpt");
        let id = identity();
        let mut b = id.encode();
        LE::write_u32(&mut b[8..], 1);
        seal(&mut b, 16);
        std::fs::write(&path, &b).unwrap();
        let err = resume(&path, &id).err().expect("refused").to_string();
        assert!(
            err.contains("has checkpoint format version 1, this build reads version 2"),
            "{err}"
        );
        assert!(err.contains("--restart"), "{err}");
    }
}
