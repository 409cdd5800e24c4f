//! Solving into a tablebase file (or its image in memory): solve into
//! anonymous memory, checksum, and write the file out through
//! [`crate::format::write_table_file`] (a temporary file of this solve's own,
//! synced, then renamed into place) — all under the output's lock
//! (src/solve/output.rs says what that guards against). Completed
//! tiers go to a checkpoint (`NAME.ckpt`) as the solve runs, so a rerun of the
//! same command after a crash resumes from the last checkpointed tier. A
//! solve starts by removing the temporary files of its output and
//! checkpoint that killed runs left ([`format::remove_stale_temporaries`]).

use super::checkpoint::{self, checkpoint_path, Checkpoint, Identity};
use super::output::{check_output, OutputLock};
use super::{
    anon_table, codec_for, solve_into, solve_tiers, stream, NoProgress, Progress, SolveOptions,
};
use crate::error::{CheckpointFault, Error, Result};
use crate::format::{self, table_header, write_table_file, write_tablebase, Header};
use crate::game::Game;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU8;
use std::time::{Duration, Instant};

/// How long an in-memory solve runs before its first checkpoint (when the
/// interval is not zero; later ones follow the interval). A checkpoint
/// compresses and syncs every tier solved since the last, on one thread
/// while the other waits: on Isolation 4×5, whose whole solve takes about
/// two seconds, the checkpoints after each second cost 0.27 s of 2.35 s,
/// to save at most a second or two of work from a crash. A solve killed in
/// its first ten seconds loses those ten seconds; a long one (5×5: two
/// minutes) checkpoints as before from then on.
pub(crate) const FIRST_CHECKPOINT_AFTER: Duration = Duration::from_secs(10);

/// What a finished solve reports.
#[derive(Clone, Debug)]
pub struct SolveReport {
    /// The header written.
    pub header: Header,
    /// Final path of the file.
    pub path: PathBuf,
    /// Time spent labelling positions.
    pub solve_time: Duration,
    /// Time spent on checksum, header, sync and rename.
    pub finish_time: Duration,
    /// Tiers restored from a checkpoint instead of solved (0: a fresh solve).
    pub resumed_tiers: u32,
    /// Child cells read while solving (the tiers solved in this run; `None`
    /// for loopy games).
    pub child_lookups: Option<u64>,
    /// Whether the table was solved tier by tier (the module `stream`).
    pub streamed: bool,
}

/// Solves `game` into the tablebase file `path` with `options`, holding the
/// output's lock for the whole solve (a second solve of the same output is
/// refused with [`Error::Output`]).
pub fn solve_to_file<G: Game>(
    game: &G,
    path: &Path,
    options: &SolveOptions,
    progress: &dyn Progress,
) -> Result<SolveReport> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("cannot create directory {}", dir.display()), e))?;
    }
    let lock = OutputLock::acquire(path, &options.inputs)?;
    solve_locked(game, &lock, options, progress)
}

/// Solves `game` into the output `lock` guards. For callers that must keep
/// the output theirs after the solve too (the command line reads the
/// finished file back before it reports), take the lock with
/// [`OutputLock::acquire`] (given `options.inputs`: that is where the
/// output is checked), call this, and drop the lock when done.
pub fn solve_locked<G: Game>(
    game: &G,
    lock: &OutputLock,
    options: &SolveOptions,
    progress: &dyn Progress,
) -> Result<SolveReport> {
    let path = lock.output();
    let codec = codec_for(game, options.kind)?;
    let ckpt_path = checkpoint_path(path);
    remove_stale(path, &ckpt_path, progress);
    if options.restart {
        let _ = fs::remove_file(&ckpt_path);
    }
    // A checkpoint decides how a solve resumes, whatever the memory: a
    // streamed solve's working file (or the finished table it became, not
    // yet renamed), or the in-memory solve's records.
    let streamed = match checkpoint_kind(&ckpt_path) {
        Some(kind) if kind[..] == format::MAGIC[..8] => {
            // Only a streamed solve leaves its table under this name.
            if stream::cannot_stream(game).is_some() {
                return Err(checkpoint::refuse(
                    &ckpt_path,
                    CheckpointFault::FinishedTable,
                ));
            }
            true
        }
        Some(kind) => kind == stream::MAGIC,
        None => stream::plan(game, codec, options)?.streamed,
    };
    if streamed {
        let s = stream::solve_streamed(game, path, &ckpt_path, options, codec, progress)?;
        return Ok(SolveReport {
            header: s.header,
            path: path.to_path_buf(),
            solve_time: s.solve_time,
            finish_time: s.finish_time,
            resumed_tiers: s.resumed_tiers,
            child_lookups: Some(s.child_lookups),
            streamed: true,
        });
    }
    let mut header = table_header(game, codec);
    let data_len = data_len(&header)?;

    let started = Instant::now();
    // The table lives in anonymous memory while tiers are labelled, and is
    // written once at the end. Solving straight into a shared map of the file
    // made the kernel write dirty pages back again and again (every tier
    // dirties every page, as tiers interleave in the index): 7.3 times the
    // file size on Isolation 5x5 folded.
    let mut table = anon_table(data_len)?;
    let table = &mut table[..data_len];

    let id = Identity::of(game, codec);
    let width = codec.width();
    let mut ckpt = if fs::symlink_metadata(&ckpt_path).is_ok() {
        let cells = super::atomic_bytes(table);
        Some(Checkpoint::resume(&ckpt_path, &id, game, cells)?)
    } else {
        None
    };
    let first_tier = ckpt.as_ref().map_or(0, |c| c.next_tier);
    if let Some(why) = ckpt.as_ref().and_then(|c| c.dropped.as_deref()) {
        progress.notice(&format!(
            "checkpoint {}: {why}; solving again from tier {first_tier}",
            Error::quote_path(&ckpt_path)
        ));
    }
    if let Some(n) = (0..first_tier)
        .map(|t| game.tier_range(t).map(|r| r.end - r.start))
        .sum::<Option<u64>>()
    {
        progress.advance(n);
    }
    let tiers = game.tier_count();
    let mut pending_from = first_tier;
    let mut last_checkpoint = Instant::now();
    let mut wrote = false;
    let mut after_tier = |tier: u32, cells: &[AtomicU8]| -> Result<()> {
        let Some(interval) = options.checkpoint_interval else {
            return Ok(());
        };
        // The first checkpoint waits for FIRST_CHECKPOINT_AFTER of solving
        // (an interval of zero, every tier, keeps its meaning).
        let wait = if wrote || interval.is_zero() {
            interval
        } else {
            interval.max(FIRST_CHECKPOINT_AFTER)
        };
        // The last tier is followed at once by the finished file.
        if tier + 1 >= tiers || last_checkpoint.elapsed() < wait {
            return Ok(());
        }
        let ck = match &mut ckpt {
            Some(c) => c,
            None => ckpt.insert(Checkpoint::create(&ckpt_path, &id)?),
        };
        // Straight from the table into the checkpoint, frame by frame.
        ck.append(game, pending_from, tier, cells, width)?;
        pending_from = tier + 1;
        last_checkpoint = Instant::now();
        wrote = true;
        Ok(())
    };
    let solved = solve_tiers(game, table, codec, progress, first_tier, &mut after_tier)?;
    header.summary = solved.summary;
    let solve_time = started.elapsed();
    let finishing = Instant::now();
    header.data_crc = format::data_crc(table);
    // Checked again just before the rename: the output may have been
    // replaced by something else (a device, a link to one) while we solved.
    check_output(path, &options.inputs)?;
    // On an error nothing half-written survives under any name, while the
    // checkpoint, if any, stays for the next run.
    write_table_file(path, &header, table)?;
    if let Some(ck) = ckpt {
        ck.remove();
    }
    Ok(SolveReport {
        header,
        path: path.to_path_buf(),
        solve_time,
        finish_time: finishing.elapsed(),
        resumed_tiers: first_tier,
        child_lookups: solved.child_lookups,
        streamed: false,
    })
}

/// Removes the temporary files that runs of this output killed before they
/// could clean up left behind (the output's and the checkpoint's), and says
/// so in one line. The caller holds the output's lock, so none of them is
/// being written.
pub(super) fn remove_stale(path: &Path, ckpt: &Path, progress: &dyn Progress) {
    let mut removed = format::remove_stale_temporaries(path);
    removed.extend(format::remove_stale_temporaries(ckpt));
    if let Some(notice) = format::stale_notice(&removed) {
        progress.notice(&notice);
    }
}

/// The first eight bytes of the checkpoint at `path`, if there is one (an
/// unreadable one reads as the in-memory kind, whose resume reports why).
pub(super) fn checkpoint_kind(path: &Path) -> Option<[u8; 8]> {
    fs::symlink_metadata(path).ok()?;
    let mut magic = [0u8; 8];
    let read = super::output::open_regular(path, false)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
    Some(if read.is_ok() { magic } else { [0u8; 8] })
}

/// The table's data length, if this machine can hold it.
fn data_len(header: &Header) -> Result<usize> {
    usize::try_from(header.data_len()).map_err(|_| {
        Error::GameInvariant("table too large for this machine's address space".into())
    })
}

/// Solves `game` into the complete image of its tablebase file (header,
/// padding, cells), byte for byte what [`solve_to_file`] writes: for
/// embedding and tests without files. Of `options` only the table kind
/// matters; nothing is checkpointed.
pub fn solve_to_bytes<G: Game>(game: &G, options: &SolveOptions) -> Result<Vec<u8>> {
    let codec = codec_for(game, options.kind)?;
    let mut header = table_header(game, codec);
    let data_len = data_len(&header)?;
    let mut table = anon_table(data_len)?;
    let table = &mut table[..data_len];
    header.summary = solve_into(game, table, codec, &NoProgress)?;
    header.data_crc = format::data_crc(table);
    let mut out = Vec::with_capacity(header.data_offset as usize + data_len);
    write_tablebase(&mut out, &header, table)
        .map_err(|e| Error::io("cannot write the table to memory", e))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::TableKind;
    use crate::games::{Cram, Isolation};

    /// The in-memory image and the file are one format, written by one
    /// function: they must never drift apart.
    #[test]
    fn solve_to_bytes_is_the_file_solve_to_file_writes() {
        let dir = tempfile::tempdir().unwrap();
        let iso = Isolation::new(3, 3).unwrap();
        let cram = Cram::new(3, 3, false).unwrap();
        let nimbers = SolveOptions {
            checkpoint_interval: None,
            ..SolveOptions::with_kind(TableKind::Nimber)
        };
        let path = dir.path().join("iso.rtb");
        solve_to_file(&iso, &path, &SolveOptions::default(), &NoProgress).unwrap();
        let bytes = solve_to_bytes(&iso, &SolveOptions::default()).unwrap();
        assert_eq!(bytes, std::fs::read(&path).unwrap());
        let path = dir.path().join("cram.rtb");
        solve_to_file(&cram, &path, &nimbers, &NoProgress).unwrap();
        let bytes = solve_to_bytes(&cram, &nimbers).unwrap();
        assert_eq!(bytes, std::fs::read(&path).unwrap());
        assert!(crate::Tablebase::from_bytes(bytes).is_ok());
    }
}
