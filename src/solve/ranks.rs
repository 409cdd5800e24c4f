//! A streamed solve shared by the ranks of an MPI job (cargo feature `mpi`).
//!
//! The file and its checkpoint are the streamed solve's ([`super::stream`]),
//! byte for byte: the ranks only divide each tier's work. Rank 0 does
//! everything the single process does around the tiers — the output's lock,
//! creating or resuming the working file (`NAME.ckpt`, or a temporary file),
//! the progress slots, the read-back, the header and the rename — and tells
//! the others the working file's path and the first tier to solve. Before
//! that, every rank checks that its share of every tier fits its own
//! `--memory` ([`rank_shares`]); if one's does not, the lowest such rank
//! says so in one line and every rank stops, nothing written.
//!
//! A rank owns a contiguous run of each tier's work units, which is a
//! contiguous run of the tier's cells ([`Game::unit_span`]), and holds only
//! that share in memory. For each tier, every rank:
//!
//! 1. labels its units into a buffer of its share, reading the tier below
//!    through a read-only map of the shared file. Where a position's cell
//!    comes from its children alone (Connect-Four, Sogo, nimbers) this is
//!    the cell itself, and the rank maps the whole tier below (a move goes
//!    anywhere in it). On the compound path (Isolation) it is phase A, the
//!    intermediates of its units, which reads only the same units' block of
//!    the tier below (a removal keeps the pair), so the rank maps just
//!    that run. The intermediates then go to the tier's own place in the
//!    file (no tier is recorded there yet) and, after a barrier, each unit
//!    reads from the file the blocks of the units its positions step to
//!    ([`Game::for_each_intermediate_unit`], ≤ 8 for Isolation) and takes
//!    each position's best intermediate into the share's buffer (phase B);
//!    a barrier then lets every rank finish reading before any overwrites;
//! 2. writes its share at its place in the file with a positioned write,
//!    syncs, and computes its CRC32;
//! 3. takes part in an all-gather of (status, share CRC, share length,
//!    tally): the tier's CRC is the shares' combined in rank order
//!    (`crc32fast::Hasher::combine`), its tally the shares' summed (counts)
//!    and maximised (remoteness, nimber). The all-gather is the barrier
//!    between tiers: no rank maps tier `t` before every share of it is
//!    written and synced.
//!
//! No cells move between ranks as messages: the shared file carries them,
//! as it carries the tier below. The other way for the compound path,
//! each unit's writes routed as (index, cell) batches to the rank owning
//! the index (an all-to-all in rounds), would move the same intermediates
//! with 8 bytes of index each and need a second buffer of the share; and
//! the groups of the old scheme (every slot whose non-mover square is in
//! one orbit) are not runs of the file, so they could not be a rank's
//! share without it.
//!
//! Rank 0 then records the tier in a progress slot, exactly as the single
//! process does, and broadcasts whether that worked. A rank that fails
//! (a game invariant, an I/O error) says so in the next collective; the
//! others stop with [`Error::PeerFailed`], which the command does not print:
//! the job ends with the failing rank's one message. A job killed at any
//! point leaves the single process's working file, which the same command
//! resumes (with any number of ranks, or none).
//!
//! Tested on one machine only (`mpirun --oversubscribe`, tests/mpi.rs),
//! where the ranks share the page cache. Across nodes the file must be on
//! storage whose maps see another node's synced writes once the barrier is
//! passed (a parallel file system; NFS's close-to-open consistency does not
//! promise it for a map kept open): not tried here.
//!
//! Memory per rank: its share of the tier, plus the map of the tier below
//! (all of it, or on the compound path its units' run) or phase B's blocks
//! (≤ 9 units' per thread), whichever is larger. Per tier it writes its
//! share to the file (twice on the compound path) and reads the tier below
//! and, on the compound path, about 8 times its share of intermediates.

use super::compound::{best_intermediates, summarise_intermediates, unpack_cell};
use super::file::{checkpoint_kind, remove_stale};
use super::output::{open_regular, OutputLock};
use super::stream::{self, Prepared, Window};
use super::{
    anon_table, codec_for, label_units, NoProgress, Progress, SolveOptions, SolveReport, Table,
    Tally,
};
use crate::error::{Error, Result};
use crate::format::{self, CellCodec, TableKind, CELL_NONE};
use crate::game::Game;
use ::mpi::topology::SimpleCommunicator;
use ::mpi::traits::*;
use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;
use std::fs::File;
use std::ops::Range;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Fields of one rank's report after a tier: status, CRC, share length,
/// then the tally.
const REPORT: usize = 3 + 1 + 4 + 3 + 1 + 1;

/// Most [`Term`]s one agreement compares: its fixed-size exchange has room
/// for this many (a CRC32 and a length each) after a status and a count.
pub const MAX_TERMS: usize = 31;

/// Slots of one rank's part of the agreement's exchange.
const AGREE_SLOTS: usize = 2 + 2 * MAX_TERMS;

/// One setting every rank of an MPI job must share, for [`agree`]: what the
/// rank does with it (the message's verb: `solves`, `writes`…) and its
/// value, compared byte for byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The verb of the message naming a difference: `rank 1 VERB VALUE,
    /// rank 0 VALUE`.
    pub verb: &'static str,
    /// The value (text; a path's bytes for [`Term::path`]).
    pub value: Vec<u8>,
    /// Whether the value is a path (quoted in the message).
    pub is_path: bool,
}

impl Term {
    /// A setting shown as text.
    pub fn text(verb: &'static str, value: impl Into<String>) -> Term {
        Term {
            verb,
            value: value.into().into_bytes(),
            is_path: false,
        }
    }

    /// A path, compared by its bytes (a long path is shown cut, never
    /// compared cut).
    pub fn path(verb: &'static str, path: &Path) -> Term {
        Term {
            verb,
            value: path.as_os_str().as_bytes().to_vec(),
            is_path: true,
        }
    }

    fn shown(value: &[u8], is_path: bool) -> String {
        if is_path {
            Error::quote_path(Path::new(std::ffi::OsStr::from_bytes(value)))
        } else {
            Error::clip(&String::from_utf8_lossy(value))
        }
    }
}

/// Everything that determines the bytes of `game`'s streamed file at `path`
/// and the working files on the way, as [`Term`]s in the order a difference
/// is named: the canonical spec, folding, the table kind, the index scheme,
/// the cell width, the entries, the format version, the program, the output
/// (made absolute, its directory's symlinks and `..` resolved: the name
/// rank 0 installs), the checkpoints and `restart`; last the CRC32 of the
/// whole header, so any other difference in what would be written is
/// caught too. Threads and the memory limit are each rank's own.
pub fn table_terms<G: Game>(game: &G, path: &Path, options: &SolveOptions) -> Result<Vec<Term>> {
    let codec = codec_for(game, options.kind)?;
    let header = format::table_header(game, codec);
    let width = codec.width();
    Ok(vec![
        Term::text("solves", game.spec()),
        Term::text(
            "solves",
            if game.is_folded() {
                "with the symmetries folded (--fold)"
            } else {
                "without folding (no --fold)"
            },
        ),
        Term::text(
            "builds",
            match options.kind {
                crate::TableKind::Nimber => "a nimber table (--nimbers)",
                _ => "a value table (no --nimbers)",
            },
        ),
        Term::text("uses index scheme", header.index_scheme.to_string()),
        Term::text(
            "writes cells of",
            format!("{width} byte{}", if width == 1 { "" } else { "s" }),
        ),
        Term::text(
            "indexes",
            format!("{} entries", crate::units::thousands(header.entries)),
        ),
        Term::text("writes format version", header.version.to_string()),
        Term::text("is", header.generator.clone()),
        Term::path("writes", &canonical_output(path)),
        Term::text(
            "checkpoints",
            match options.checkpoint_interval {
                None => "never (--no-checkpoint)".to_string(),
                Some(d) => format!("at most every {} s", d.as_secs_f64()),
            },
        ),
        Term::text(
            "starts",
            if options.restart {
                "from scratch (--restart)"
            } else {
                "from a checkpoint if there is one (no --restart)"
            },
        ),
        Term::text(
            "writes a header with CRC32",
            format!("{:08x}", crc32fast::hash(&header.encode())),
        ),
    ])
}

/// `path` as the name the rename installs, the same however a rank spelt
/// it: absolute, its directory resolved component by component (each
/// existing prefix canonicalised, so symlinks and `..` are resolved as the
/// system would; past the first missing directory, `.` and `..` by hand).
/// The file name itself is kept: a symlink there is replaced, not followed.
fn canonical_output(path: &Path) -> PathBuf {
    use std::path::Component;
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(d) => d.join(path),
            Err(_) => return path.to_path_buf(),
        }
    };
    let (Some(dir), Some(name)) = (absolute.parent(), absolute.file_name()) else {
        return absolute;
    };
    let mut out = PathBuf::new();
    for c in dir.components() {
        match c {
            Component::CurDir => continue,
            // `out` is canonical while it exists: its parent is the real one.
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
        if let Ok(real) = std::fs::canonicalize(&out) {
            out = real;
        }
    }
    out.push(name);
    out
}

/// The ranks of `world` agree on their settings before anything is written
/// or exchanged: every rank calls this with its own [`Term`]s (the same
/// kinds in the same order on every rank), or `None` if it could not
/// prepare its job (its own error is the caller's to report).
///
/// First every rank sends a fixed-size array (its status, then the CRC32
/// and length of each term's value), so ranks given different games never
/// exchange buffers of different sizes. If every rank prepared and agrees
/// with rank 0, all return `Ok(())`. Otherwise rank 0 receives the first
/// differing rank's value of the first differing term (its length known
/// from the first step) and returns [`Error::RanksDisagree`], one line such
/// as `rank 1 solves isolation:4x4:misere, rank 0 isolation:4x4`; every
/// other rank returns [`Error::PeerFailed`]. When some rank could not
/// prepare, the others return [`Error::PeerFailed`] with the lowest such
/// rank, and a rank that could not prepare gets `Ok(())` unless a lower
/// rank could not either. A value's CRC32 and length stand for it: two
/// values that differ but share both are taken as equal.
pub fn agree(world: &SimpleCommunicator, terms: Option<&[Term]>) -> Result<()> {
    let rank = world.rank() as usize;
    let k = world.size() as usize;
    let mut mine = [0u64; AGREE_SLOTS];
    if let Some(terms) = terms {
        if terms.len() > MAX_TERMS {
            return Err(Error::Output(format!(
                "an MPI job compares at most {MAX_TERMS} settings, not {}",
                terms.len()
            )));
        }
        mine[0] = 1;
        mine[1] = terms.len() as u64;
        for (i, t) in terms.iter().enumerate() {
            mine[2 + 2 * i] = u64::from(crc32fast::hash(&t.value));
            mine[3 + 2 * i] = t.value.len() as u64;
        }
    }
    let mut all = vec![0u64; AGREE_SLOTS * k];
    world.all_gather_into(&mine[..], &mut all[..]);
    let rows: Vec<&[u64]> = all.chunks(AGREE_SLOTS).collect();
    if let Some(failed) = (0..k).find(|&r| r != rank && rows[r][0] == 0) {
        if terms.is_some() || failed < rank {
            return Err(Error::PeerFailed { rank: failed });
        }
    }
    let Some(terms) = terms else {
        return Ok(());
    };
    // The first rank that differs from rank 0, and the first term where.
    let n = terms.len();
    let differs = |r: usize| {
        if rows[r][1] != rows[0][1] {
            return Some(None);
        }
        (0..n)
            .find(|&i| rows[r][2 + 2 * i..4 + 2 * i] != rows[0][2 + 2 * i..4 + 2 * i])
            .map(Some)
    };
    let Some((other, term)) = (1..k).find_map(|r| differs(r).map(|i| (r, i))) else {
        return Ok(());
    };
    let Some(i) = term else {
        // Another build of the program, comparing other settings.
        return Err(if rank == 0 {
            Error::RanksDisagree(format!(
                "rank {other} compares {} settings, rank 0 {}: the ranks run different builds of retrograde",
                rows[other][1], rows[0][1]
            ))
        } else {
            Error::PeerFailed { rank: 0 }
        });
    };
    // Only that rank's value moves, into a buffer of the length it sent.
    if rank == other {
        world.process_at_rank(0).send(&terms[i].value[..]);
    }
    if rank != 0 {
        return Err(Error::PeerFailed { rank: 0 });
    }
    let mut theirs = vec![0u8; rows[other][3 + 2 * i] as usize];
    world
        .process_at_rank(other as i32)
        .receive_into(&mut theirs[..]);
    let t = &terms[i];
    Err(Error::RanksDisagree(format!(
        "rank {other} {} {}, rank 0 {}",
        t.verb,
        Term::shown(&theirs, t.is_path),
        Term::shown(&t.value, t.is_path)
    )))
}

/// Solves `game` into `path` as one rank of `world`: every rank of the job
/// calls this with the same game, path and options; rank 0 passes the
/// output's lock (taken with [`OutputLock::acquire`], which checked the
/// output against `options.inputs`), the others `None`.
/// Rank 0 returns the report; the others `Ok(None)`. A rank that fails
/// returns its error; the others return [`Error::PeerFailed`]. The ranks
/// first [`agree`] on [`table_terms`]: given different games, options or
/// outputs, rank 0 returns [`Error::RanksDisagree`] before anything is
/// written (the lock aside, which is the caller's).
pub fn solve_mpi<G: Game>(
    game: &G,
    lock: Option<&OutputLock>,
    path: &Path,
    options: &SolveOptions,
    progress: &dyn Progress,
    world: &SimpleCommunicator,
) -> Result<Option<SolveReport>> {
    let rank = world.rank();
    let root = world.process_at_rank(0);
    let terms = table_terms(game, path, options);
    agree(world, terms.as_ref().ok().map(|t| &t[..]))?;
    terms?;
    // Each rank's share must fit its memory before rank 0 writes anything.
    let codec = codec_for(game, options.kind)?;
    shares_fit(game, codec, options.memory, world)?;
    // Rank 0 prepares; the others learn the outcome: 0 failed, 1 installed
    // already (a finished table under the checkpoint's name), 2 go.
    let mut prepared = None;
    let mut status = [0u8; 1];
    let mut work_path = Vec::new();
    let mut first = [0u32; 1];
    if rank == 0 {
        let lock = lock.ok_or_else(|| {
            Error::Output("rank 0 of an MPI solve must hold the output's lock".into())
        });
        let p = lock.and_then(|lock| prepare(game, lock, path, options, progress));
        match &p {
            Err(_) => status[0] = 0,
            Ok(Prepared::Installed(_)) => status[0] = 1,
            Ok(Prepared::Going(run)) => {
                status[0] = 2;
                first[0] = run.resumed_tiers;
                work_path = run.work_path.as_os_str().as_bytes().to_vec();
            }
        }
        prepared = Some(p);
    }
    root.broadcast_into(&mut status[..]);
    let mut run = match prepared.transpose()? {
        Some(Prepared::Installed(s)) => return Ok(Some(report(s, path))),
        Some(Prepared::Going(run)) => Some(run),
        None if status[0] == 0 => return Err(Error::PeerFailed { rank: 0 }),
        None if status[0] == 1 => return Ok(None),
        None => None,
    };
    let mut path_len = [work_path.len() as u64];
    root.broadcast_into(&mut path_len[..]);
    work_path.resize(path_len[0] as usize, 0);
    root.broadcast_into(&mut work_path[..]);
    root.broadcast_into(&mut first[..]);
    let work_path = PathBuf::from(std::ffi::OsStr::from_bytes(&work_path));
    let ckpt = super::checkpoint::checkpoint_path(path);
    let w = u64::from(codec.width());
    let header = format::table_header(game, codec);
    let tiers = game.tier_count();
    let ranges: Vec<_> = (0..tiers)
        .map(|t| game.tier_range(t).unwrap_or(0..0))
        .collect();
    // Rank 0 has the file open; the others open it by the name it sent.
    // Every rank says whether it could before any tier is solved.
    let opened = match &run {
        Some(run) => run.work.file.try_clone(),
        None => open_regular(&work_path, false),
    };
    check_all(world, opened.is_ok())?;
    let file = opened
        .map_err(|e| Error::io(format!("cannot open {}", Error::quote_path(&work_path)), e))?;
    let file = &file;
    let k = world.size() as u64;
    let me = rank as u64;
    let compound = codec.kind() == TableKind::Value && game.compound_moves();
    for tier in first[0]..tiers {
        let r = ranges[tier as usize].clone();
        let quiet = NoProgress;
        let p: &dyn Progress = if rank == 0 { progress } else { &quiet };
        // Checked by `rank_shares` before anything was written.
        let bounds = unit_bounds(game, tier, &r)?;
        let units = bounds.len() as u64 - 1;
        let my = units * me / k..units * (me + 1) / k;
        let span = bounds[my.start as usize]..bounds[my.end as usize];
        let at = header.data_offset + span.start * w;
        let len = ((span.end - span.start) * w) as usize;
        p.tier(tier, tiers, units);
        // Step 1: the share's cells (on the compound path, its
        // intermediates), reading the tier below.
        let below = if compound {
            below_part(game, &ranges, tier, &my)
        } else {
            tier.checked_sub(1).map(|t| ranges[t as usize].clone())
        };
        let labelled = label_own(
            game,
            file,
            header.data_offset,
            tier,
            codec,
            span.clone(),
            below,
            my.clone(),
            compound,
            p,
        );
        check_all(world, labelled.is_ok())?;
        let (mut tally, cur) = labelled?;
        if compound {
            // The intermediates go to the tier's place in the file, where
            // every rank reads the blocks its positions step to; the
            // tier's cells overwrite them once every rank has read them.
            let written = file
                .write_all_at(&cur[..len], at)
                .and_then(|()| file.sync_data());
            // The tests kill one rank here (the intermediates in the
            // tier's place, nothing recorded): a rerun solves it again.
            format::kill_point(&format!("mpi-intermediates-{tier}-rank-{rank}"));
            check_all(world, written.is_ok())?;
            written.map_err(|e| {
                Error::io(format!("cannot write {}", Error::quote_path(&work_path)), e)
            })?;
            let best = best_own(
                game,
                file,
                header.data_offset,
                tier,
                codec,
                &bounds,
                span.clone(),
                &cur,
                my.clone(),
                p,
            );
            check_all(world, best.is_ok())?;
            tally = tally.add(&best?);
        }
        let out = &cur[..len];
        // Step 2: this rank's bytes to the file.
        let written = file.write_all_at(out, at).and_then(|()| file.sync_data());
        let crc = format::data_crc(out);
        // The tests kill one rank here (its share written, the tier not
        // yet recorded): the job dies, and a rerun resumes.
        format::kill_point(&format!("mpi-tier-{tier}-rank-{rank}"));
        // Step 3: every rank's outcome, CRC and tally.
        let mut mine_report = [0u64; REPORT];
        mine_report[0] = u64::from(written.is_ok());
        mine_report[1] = u64::from(crc);
        mine_report[2] = out.len() as u64;
        encode(&tally, &mut mine_report[3..]);
        let mut all = vec![0u64; REPORT * k as usize];
        world.all_gather_into(&mine_report[..], &mut all[..]);
        drop(cur);
        if let Err(e) = written {
            return Err(Error::io(
                format!("cannot write {}", Error::quote_path(&work_path)),
                e,
            ));
        }
        if let Some(s) = all.chunks(REPORT).position(|c| c[0] == 0) {
            return Err(Error::PeerFailed { rank: s });
        }
        let mut tier_crc = crc32fast::Hasher::new();
        let mut tier_tally = Tally::default();
        for c in all.chunks(REPORT) {
            tier_crc.combine(&crc32fast::Hasher::new_with_initial_len(c[1] as u32, c[2]));
            tier_tally = tier_tally.add(&decode(&c[3..]));
        }
        if rank == 0 && k > 1 {
            // The bar counts every entry of the tier, as the single
            // process's does: rank 0 counted its own positions.
            progress.advance((r.end - r.start).saturating_sub(tally.positions));
        }
        // Rank 0 records the tier, as the single process does.
        let mut recorded = [1u8];
        if let Some(run) = run.as_mut() {
            run.done.tallies.push(tier_tally);
            run.done.crcs.push(tier_crc.finalize());
            if run.work.temp.is_none() {
                if let Err(e) = run.work.record(&run.done) {
                    recorded[0] = 0;
                    root.broadcast_into(&mut recorded[..]);
                    return Err(e);
                }
            }
        }
        root.broadcast_into(&mut recorded[..]);
        if recorded[0] == 0 {
            return Err(Error::PeerFailed { rank: 0 });
        }
    }
    // Rank 0 reads back, writes the header and installs; the others wait
    // for the outcome, so the job's exit status is rank 0's.
    let mut done = [0u8];
    let result = match run {
        Some(run) => {
            let r = stream::complete(game, run, path, &ckpt, options);
            done[0] = u8::from(r.is_ok());
            Some(r)
        }
        None => None,
    };
    root.broadcast_into(&mut done[..]);
    match result {
        Some(r) => r.map(|s| Some(report(s, path))),
        None if done[0] == 1 => Ok(None),
        None => Err(Error::PeerFailed { rank: 0 }),
    }
}

/// Rank 0's part before the tiers: what [`super::file::solve_locked`] does
/// before a streamed solve.
fn prepare<G: Game>(
    game: &G,
    lock: &OutputLock,
    path: &Path,
    options: &SolveOptions,
    progress: &dyn Progress,
) -> Result<Prepared> {
    if lock.output() != path {
        return Err(Error::Output(format!(
            "rank 0 holds the lock of {}, not of {}",
            Error::quote_path(lock.output()),
            Error::quote_path(path)
        )));
    }
    let codec = codec_for(game, options.kind)?;
    if let Some(why) = stream::cannot_stream(game) {
        return Err(Error::Output(format!(
            "{} cannot be solved tier by tier ({why}), so not by the ranks of an MPI job; solve it without --mpi",
            game.spec()
        )));
    }
    let ckpt = super::checkpoint::checkpoint_path(path);
    remove_stale(path, &ckpt, progress);
    if options.restart {
        let _ = std::fs::remove_file(&ckpt);
    }
    if let Some(kind) = checkpoint_kind(&ckpt) {
        if kind != stream::MAGIC && kind[..] != format::MAGIC[..8] {
            return Err(Error::Output(format!(
                "checkpoint {} is an in-memory solve's: finish it without --mpi, or pass --restart",
                Error::quote_path(&ckpt)
            )));
        }
    }
    stream::prepare(game, path, &ckpt, options, codec, progress)
}

/// Whether every rank's `ok` holds; if not, the first failing rank.
fn check_all(world: &SimpleCommunicator, ok: bool) -> Result<()> {
    let mut all = vec![0u8; world.size() as usize];
    world.all_gather_into(&[u8::from(ok)][..], &mut all[..]);
    if !ok {
        // This rank's own error is the caller's to return.
        return Ok(());
    }
    match all.iter().position(|&x| x == 0) {
        Some(rank) => Err(Error::PeerFailed { rank }),
        None => Ok(()),
    }
}

fn report(s: stream::Streamed, path: &Path) -> SolveReport {
    SolveReport {
        header: s.header,
        path: path.to_path_buf(),
        solve_time: s.solve_time,
        finish_time: s.finish_time,
        resumed_tiers: s.resumed_tiers,
        child_lookups: Some(s.child_lookups),
        streamed: true,
    }
}

fn encode(t: &Tally, out: &mut [u64]) {
    out[0] = t.positions;
    out[1..5].copy_from_slice(&t.counts);
    for k in 0..3 {
        out[5 + k] = u64::from(t.max_remoteness[k]);
    }
    out[8] = u64::from(t.max_nimber);
    out[9] = t.lookups;
}

fn decode(c: &[u64]) -> Tally {
    let mut t = Tally {
        positions: c[0],
        max_nimber: c[8] as u32,
        lookups: c[9],
        ..Tally::default()
    };
    t.counts.copy_from_slice(&c[1..5]);
    for k in 0..3 {
        t.max_remoteness[k] = c[5 + k] as u32;
    }
    t
}

/// Where tier `tier`'s work units lie: unit `u` is the run
/// `bounds[u]..bounds[u + 1]` ([`Game::unit_span`]), checked to follow one
/// another in unit order and to make the tier's `range` exactly, so a
/// rank's units are one run of the tier and of the file.
fn unit_bounds<G: Game>(game: &G, tier: u32, range: &Range<u64>) -> Result<Vec<u64>> {
    let units = game.tier_units(tier);
    let refuse = || {
        Error::GameInvariant(format!(
            "{}: the work units of tier {tier} are not consecutive runs of its indices, so the ranks of an MPI job cannot each hold a share of it",
            game.spec()
        ))
    };
    let mut bounds = Vec::with_capacity(units as usize + 1);
    let mut at = range.start;
    bounds.push(at);
    for u in 0..units {
        match game.unit_span(tier, u) {
            Some(s) if s.start == at && s.end >= s.start && s.end <= range.end => {
                at = s.end;
                bounds.push(at);
            }
            _ => return Err(refuse()),
        }
    }
    if at != range.end {
        return Err(refuse());
    }
    Ok(bounds)
}

/// The compound path's phase A reads, for each of units `my` of `tier`,
/// the same unit of the tier below (a removal keeps the pair): the run of
/// those units there, or the whole tier below when its units are not the
/// same. A read outside it fails the solve, never guesses.
fn below_part<G: Game>(
    game: &G,
    ranges: &[Range<u64>],
    tier: u32,
    my: &Range<u64>,
) -> Option<Range<u64>> {
    let t = tier.checked_sub(1)?;
    let whole = ranges[t as usize].clone();
    match unit_bounds(game, t, &whole) {
        Ok(b) if b.len() as u64 == game.tier_units(tier) + 1 && my.start < my.end => {
            Some(b[my.start as usize]..b[my.end as usize])
        }
        Ok(_) if my.start == my.end => Some(whole.start..whole.start),
        _ => Some(whole),
    }
}

/// Labels units `my` of `tier` (indices `span`) into a buffer of the share
/// only, reading `below` (indices of the tier below) through a map of the
/// file. On the compound path the cells are the units' intermediates
/// (phase A) and the tally holds only the completions read. Returns the
/// tally and the buffer; a write outside the share fails the solve.
#[allow(clippy::too_many_arguments)]
fn label_own<G: Game>(
    game: &G,
    file: &File,
    data_offset: u64,
    tier: u32,
    codec: CellCodec,
    span: Range<u64>,
    below: Option<Range<u64>>,
    my: Range<u64>,
    compound: bool,
    progress: &dyn Progress,
) -> Result<(Tally, memmap2::MmapMut)> {
    let w = u64::from(codec.width());
    let len = usize::try_from((span.end - span.start) * w).map_err(|_| {
        Error::GameInvariant("a share too large for this machine's address space".into())
    })?;
    let mut cur = anon_table(len)?;
    if my.start == my.end {
        return Ok((Tally::default(), cur));
    }
    let below = match below {
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
    let cells = (span.end - span.start) as usize;
    macro_rules! run {
        ($atomic:ty) => {{
            let window = Window {
                // SAFETY: the anonymous map is page-aligned (so aligned for
                // any atomic), holds `cells` cells of this width, and `cur`
                // is not otherwise accessed while the view lives.
                cur: unsafe { std::slice::from_raw_parts(ptr as *const $atomic, cells) },
                cur_start: span.start,
                below: below_bytes,
                below_start,
                below_cells,
                width: w as usize,
                stray: AtomicU64::new(0),
            };
            let tally = if compound {
                let completions = my
                    .clone()
                    .into_par_iter()
                    .map(|u| summarise_intermediates(game, &window, codec, tier, u))
                    .try_reduce(|| 0, |a, b| Ok(a + b))?;
                Tally {
                    lookups: completions,
                    ..Tally::default()
                }
            } else {
                label_units(game, &window, codec, tier, my.clone(), progress)?
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
            "{}: tier {tier} wrote index {}, outside this rank's share {span:?}",
            game.spec(),
            stray - 1
        )));
    }
    drop(below);
    Ok((tally, cur))
}

/// Phase B of the compound path for units `my` of `tier`: each unit's
/// positions take the best of their intermediates, read from the blocks of
/// the units [`Game::for_each_intermediate_unit`] names (whichever rank
/// wrote them to the file in phase A), into `cur`, the share's buffer
/// (indices `span`; its phase-A cells are not read again). Returns the
/// units' tally.
#[allow(clippy::too_many_arguments)]
fn best_own<G: Game>(
    game: &G,
    file: &File,
    data_offset: u64,
    tier: u32,
    codec: CellCodec,
    bounds: &[u64],
    span: Range<u64>,
    cur: &memmap2::MmapMut,
    my: Range<u64>,
    progress: &dyn Progress,
) -> Result<Tally> {
    let w = usize::from(codec.width());
    let units = bounds.len() as u64 - 1;
    let cells = (span.end - span.start) as usize;
    let ptr = cur.as_ptr();
    macro_rules! run {
        ($atomic:ty) => {{
            let window = Window {
                // SAFETY: as in `label_own`; the buffer is written only
                // through this view while it lives (each unit its own
                // cells), and read after.
                cur: unsafe { std::slice::from_raw_parts(ptr as *const $atomic, cells) },
                cur_start: span.start,
                below: &[],
                below_start: 0,
                below_cells: 0,
                width: w,
                stray: AtomicU64::new(0),
            };
            let unit = |u: u64| -> Result<Tally> {
                let mut named = Vec::new();
                game.for_each_intermediate_unit(tier, u, |v| named.push(v));
                named.sort_unstable();
                named.dedup();
                let mut blocks = Blocks {
                    blocks: Vec::with_capacity(named.len()),
                    width: w,
                    miss: AtomicU64::new(0),
                };
                for v in named {
                    if v >= units {
                        return Err(Error::GameInvariant(format!(
                            "{}: unit {u} of tier {tier} names unit {v}, past the tier's {units}",
                            game.spec()
                        )));
                    }
                    let (a, b) = (bounds[v as usize], bounds[v as usize + 1]);
                    let mut bytes = vec![0u8; (b - a) as usize * w];
                    file.read_exact_at(&mut bytes, data_offset + a * w as u64)
                        .map_err(|e| Error::io("cannot read the working file of the solve", e))?;
                    blocks.blocks.push((a, b - a, bytes));
                }
                let (out, tally) = best_intermediates(game, &blocks, codec, tier, u)?;
                let miss = blocks.miss.load(Relaxed);
                if miss != 0 {
                    return Err(Error::GameInvariant(format!(
                        "{}: a position of unit {u} of tier {tier} has intermediate {}, outside the units the game names for it",
                        game.spec(),
                        miss - 1
                    )));
                }
                let mut next = out.chunks_exact(w);
                match game.unit_range(tier, u) {
                    Some(run) => {
                        if (run.end - run.start) as usize * w != out.len() {
                            return Err(Error::GameInvariant(format!(
                                "{}: unit {u} of tier {tier} has {} positions in a run of {}",
                                game.spec(),
                                out.len() / w,
                                run.end - run.start
                            )));
                        }
                        for (index, c) in run.zip(next) {
                            window.put(index, unpack_cell(c));
                        }
                    }
                    None => game.for_each_in_unit(tier, u, |index, _| {
                        if let Some(c) = next.next() {
                            window.put(index, unpack_cell(c));
                        }
                    }),
                }
                progress.advance(tally.positions);
                Ok(tally)
            };
            let tally = my
                .into_par_iter()
                .map(unit)
                .try_reduce(Tally::default, |a, b| Ok(a.add(&b)))?;
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
            "{}: tier {tier} wrote index {}, outside this rank's share {span:?}",
            game.spec(),
            stray - 1
        )));
    }
    Ok(tally)
}

/// The intermediates phase B of one unit reads: blocks of the tier copied
/// from the file, `(first index, cells, bytes)`. An index in none of them
/// reads as unsolved and is remembered, so the unit fails rather than take
/// the best of the others.
struct Blocks {
    blocks: Vec<(u64, u64, Vec<u8>)>,
    width: usize,
    /// One more than an index read outside the blocks (0: none).
    miss: AtomicU64,
}

impl Table for Blocks {
    #[inline(always)]
    fn get(&self, i: u64) -> u32 {
        for (start, cells, bytes) in &self.blocks {
            let c = i.wrapping_sub(*start);
            if c < *cells {
                let at = c as usize * self.width;
                return match self.width {
                    1 => u32::from(bytes[at]),
                    2 => u32::from(LE::read_u16(&bytes[at..])),
                    _ => LE::read_u32(&bytes[at..]),
                };
            }
        }
        self.miss.store(i + 1, Relaxed);
        CELL_NONE
    }

    fn put(&self, i: u64, _v: u32) {
        // Phase B writes through the share's window, never here.
        self.miss.store(i + 1, Relaxed);
    }
}

/// What one rank holds and moves for one tier when the ranks divide the
/// memory (`--dry-run --mpi` prints these; a rank whose largest
/// [`TierShare::memory`] exceeds `--memory` refuses to start).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TierShare {
    /// The tier's bytes.
    pub tier_bytes: u64,
    /// The rank's share of them: what it labels, holds and writes.
    pub share: u64,
    /// Bytes of the tier below it maps (and reads at random).
    pub below: u64,
    /// Compound path: bytes of intermediates it reads from the file in
    /// phase B (0 elsewhere).
    pub intermediates: u64,
    /// Compound path: the most of those held at once (one unit's per
    /// thread).
    pub scratch: u64,
    /// Bytes it writes to the shared file (twice its share on the compound
    /// path: the intermediates, then the cells).
    pub written: u64,
}

impl TierShare {
    /// The memory the rank needs for this tier: its share, and either the
    /// map of the tier below or phase B's blocks, whichever is larger.
    pub fn memory(&self) -> u64 {
        self.share + self.below.max(self.scratch)
    }
}

/// What rank `rank` of `ranks` holds and moves for each tier of `game`'s
/// streamed solve in `codec` with `threads` threads, or why the ranks
/// cannot divide its tiers.
pub fn rank_shares<G: Game>(
    game: &G,
    codec: CellCodec,
    ranks: u64,
    rank: u64,
    threads: u64,
) -> Result<Vec<TierShare>> {
    if let Some(why) = stream::cannot_stream(game) {
        return Err(Error::Output(format!(
            "{} cannot be solved tier by tier ({why}), so not by the ranks of an MPI job; solve it without --mpi",
            game.spec()
        )));
    }
    let w = u64::from(codec.width());
    let compound = codec.kind() == TableKind::Value && game.compound_moves();
    let tiers = game.tier_count();
    let ranges: Vec<_> = (0..tiers)
        .map(|t| game.tier_range(t).unwrap_or(0..0))
        .collect();
    let mut out = Vec::with_capacity(tiers as usize);
    for tier in 0..tiers {
        let r = &ranges[tier as usize];
        let bounds = unit_bounds(game, tier, r)?;
        let units = bounds.len() as u64 - 1;
        let my = units * rank / ranks..units * (rank + 1) / ranks;
        let share = (bounds[my.end as usize] - bounds[my.start as usize]) * w;
        let mut t = TierShare {
            tier_bytes: (r.end - r.start) * w,
            share,
            written: share,
            ..TierShare::default()
        };
        if my.start < my.end {
            let below = if compound {
                below_part(game, &ranges, tier, &my)
            } else {
                tier.checked_sub(1).map(|t| ranges[t as usize].clone())
            };
            t.below = below.map_or(0, |b| (b.end - b.start) * w);
        }
        if compound && my.start < my.end {
            t.written = 2 * share;
            let mut per_unit = Vec::with_capacity((my.end - my.start) as usize);
            for u in my.clone() {
                let mut named = Vec::new();
                game.for_each_intermediate_unit(tier, u, |v| named.push(v));
                named.sort_unstable();
                named.dedup();
                let read: u64 = named
                    .iter()
                    .filter(|&&v| v < units)
                    .map(|&v| (bounds[v as usize + 1] - bounds[v as usize]) * w)
                    .sum();
                t.intermediates += read;
                // The blocks, and the unit's own cells as phase B packs them.
                per_unit.push(read + (bounds[u as usize + 1] - bounds[u as usize]) * w);
            }
            per_unit.sort_unstable_by(|a, b| b.cmp(a));
            t.scratch = per_unit.iter().take(threads.max(1) as usize).sum();
        }
        out.push(t);
    }
    Ok(out)
}

/// Every rank checks that its share of every tier fits its own `memory`
/// (`None`: no limit) before anything is written; returns the figures.
/// When some rank's does not, the lowest such rank says so in one line and
/// every rank returns an error (the others [`Error::PeerFailed`]).
fn shares_fit<G: Game>(
    game: &G,
    codec: CellCodec,
    memory: Option<u64>,
    world: &SimpleCommunicator,
) -> Result<Vec<TierShare>> {
    let k = world.size() as u64;
    let me = world.rank() as u64;
    let threads = rayon::current_num_threads() as u64;
    let shares = rank_shares(game, codec, k, me, threads);
    let refusal = match &shares {
        Err(_) => true,
        Ok(s) => {
            let need = s.iter().map(TierShare::memory).max().unwrap_or(0);
            need > memory.unwrap_or(u64::MAX)
        }
    };
    let mut all = vec![0u8; k as usize];
    world.all_gather_into(&[u8::from(refusal)][..], &mut all[..]);
    let Some(first) = all.iter().position(|&x| x == 1) else {
        return shares;
    };
    if first as u64 != me {
        return Err(Error::PeerFailed { rank: first });
    }
    let shares = shares?;
    let (tier, most) = shares
        .iter()
        .enumerate()
        .max_by_key(|(_, s)| s.memory())
        .map(|(t, s)| (t, s.memory()))
        .unwrap_or((0, 0));
    Err(Error::Output(format!(
        "its share of tier {tier} and what it reads would take {}, but --memory allows {} a rank; run more ranks, raise --memory, or pass --force",
        crate::units::human_bytes(most),
        crate::units::human_bytes(memory.unwrap_or(0))
    )))
}
