//! A streamed solve shared by the ranks of an MPI job (cargo feature `mpi`).
//!
//! The file and its checkpoint are the streamed solve's ([`super::stream`]),
//! byte for byte: the ranks only divide each tier's work. Rank 0 does
//! everything the single process does around the tiers — the output's lock,
//! creating or resuming the working file (`NAME.ckpt`, or a temporary file),
//! the progress slots, the read-back, the header and the rename — and tells
//! the others the working file's path and the first tier to solve. Then, for
//! each tier, every rank:
//!
//! 1. labels its contiguous share of the tier's work units (of its groups on
//!    the compound path, Isolation's) into a zeroed buffer of the whole
//!    tier, reading the tier below through a read-only map of the shared
//!    file. Shares write disjoint cells and every other cell stays zero;
//! 2. receives, for its contiguous share of the tier's *bytes*, the bitwise
//!    OR of every rank's buffer there (one `MPI_Reduce` per rank's share, in
//!    chunks): exactly the single process's bytes, since each cell was set by
//!    one rank and is zero in the others;
//! 3. writes that share at its place in the file with a positioned write,
//!    syncs, and computes its CRC32;
//! 4. takes part in an all-gather of (status, share CRC, share length,
//!    tally): the tier's CRC is the shares' combined in rank order
//!    (`crc32fast::Hasher::combine`), its tally the shares' summed (counts)
//!    and maximised (remoteness, nimber). The all-gather is the barrier
//!    between tiers: no rank maps tier `t` before every share of it is
//!    written and synced.
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
//! Traffic per tier: each rank sends the tier's bytes once (its buffer,
//! split among the K reductions) and receives its share from each rank.
//! Memory per rank: the tier's bytes and the rank's byte share, plus the map
//! of the tier below, as the single process.

use super::file::{checkpoint_kind, remove_stale};
use super::output::{open_regular, OutputLock};
use super::stream::{self, label_share, Prepared};
use super::{codec_for, NoProgress, Progress, SolveOptions, SolveReport, Tally};
use crate::error::{Error, Result};
use crate::format;
use crate::game::Game;
use ::mpi::collective::SystemOperation;
use ::mpi::topology::SimpleCommunicator;
use ::mpi::traits::*;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes one reduction moves at most (MPI counts are `int`).
const CHUNK: usize = 1 << 30;

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
    let codec = codec_for(game, options.kind)?;
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
    for tier in first[0]..tiers {
        let r = ranges[tier as usize].clone();
        let len = ((r.end - r.start) * w) as usize;
        let quiet = NoProgress;
        let p: &dyn Progress = if rank == 0 { progress } else { &quiet };
        let labelled = label_share(
            game,
            file,
            header.data_offset,
            &ranges,
            tier,
            codec,
            (me, k),
            p,
        );
        check_all(world, labelled.is_ok())?;
        let (tally, cur) = labelled?;
        // Step 2: rank s receives the OR of everyone's bytes in its share.
        let share = |s: u64| (len as u64 * s / k) as usize..(len as u64 * (s + 1) / k) as usize;
        let mine = share(me);
        let mut out = vec![0u8; mine.len()];
        for s in 0..k {
            let part = share(s);
            let target = world.process_at_rank(s as i32);
            let mut at = part.start;
            while at < part.end {
                let end = (at + CHUNK).min(part.end);
                let send = &cur[at..end];
                if s == me {
                    let o = at - part.start;
                    target.reduce_into_root(
                        send,
                        &mut out[o..o + send.len()],
                        SystemOperation::bitwise_or(),
                    );
                } else {
                    target.reduce_into(send, SystemOperation::bitwise_or());
                }
                at = end;
            }
        }
        drop(cur);
        // Step 3: this rank's bytes to the file.
        let written = file
            .write_all_at(&out, header.data_offset + r.start * w + mine.start as u64)
            .and_then(|()| file.sync_data());
        let crc = format::data_crc(&out);
        // The tests kill one rank here (its share written, the tier not
        // yet recorded): the job dies, and a rerun resumes.
        format::kill_point(&format!("mpi-tier-{tier}-rank-{rank}"));
        // Step 4: every rank's outcome, CRC and tally.
        let mut mine_report = [0u64; REPORT];
        mine_report[0] = u64::from(written.is_ok());
        mine_report[1] = u64::from(crc);
        mine_report[2] = out.len() as u64;
        encode(&tally, &mut mine_report[3..]);
        let mut all = vec![0u64; REPORT * k as usize];
        world.all_gather_into(&mine_report[..], &mut all[..]);
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
