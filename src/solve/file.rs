//! Writing a tablebase file: solve into memory, checksum, write a `.partial`
//! file, sync it, and rename it into place.
//!
//! Only a complete, synced file is renamed to the destination, so an
//! interrupted run never leaves a file that looks complete; a `.partial` left
//! behind has a valid header but is never opened by name.

use super::{codec_for, solve_into, Progress, SolveOptions};
use crate::error::{Error, Result};
use crate::format::{self, Header, Summary, FORMAT_VERSION};
use crate::game::Game;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
}

/// The generator string stored in headers.
pub fn generator() -> String {
    format!("retrograde {}", env!("CARGO_PKG_VERSION"))
}

/// The temporary name used while a file is being written.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Solves `game` into the tablebase file `path` (values and remoteness).
pub fn solve_to_file<G: Game>(
    game: &G,
    path: &Path,
    progress: &dyn Progress,
) -> Result<SolveReport> {
    solve_file(game, path, &SolveOptions::default(), progress)
}

/// Solves `game` into the tablebase file `path` with `options`.
pub fn solve_file<G: Game>(
    game: &G,
    path: &Path,
    options: &SolveOptions,
    progress: &dyn Progress,
) -> Result<SolveReport> {
    let codec = codec_for(game, options.kind)?;
    let spec = game.spec();
    let mut header = Header {
        version: FORMAT_VERSION,
        spec,
        index_scheme: game.index_scheme(),
        cell_width: codec.width(),
        cell_encoding: codec.kind().id(),
        flags: if game.is_folded() {
            format::FLAG_FOLDED
        } else {
            0
        },
        entries: game.size(),
        data_offset: 0,
        data_crc: 0,
        summary: Summary::default(),
        generator: generator(),
    };
    header.data_offset = Header::data_offset_for(header.encoded_len());
    let data_len = usize::try_from(header.data_len()).map_err(|_| {
        Error::GameInvariant("table too large for this machine's address space".into())
    })?;

    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("cannot create directory {}", dir.display()), e))?;
    }
    let tmp = partial_path(path);
    let shown = tmp.display().to_string();
    let io = |what: &str| {
        let what = format!("{what} {shown}");
        move |e| Error::io(what, e)
    };
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(io("cannot create"))?;
    let result = (|| {
        let started = Instant::now();
        // The table lives in anonymous memory while tiers are labelled, and
        // is written once at the end. Solving straight into a shared map of
        // the file made the kernel write dirty pages back again and again
        // (every tier dirties every page, as tiers interleave in the index):
        // 7.3 times the file size on Isolation 5x5 folded.
        let mut table = memmap2::MmapMut::map_anon(data_len.max(1))
            .map_err(|e| Error::io(format!("cannot allocate {data_len} bytes for the table"), e))?;
        let table = &mut table[..data_len];
        header.summary = solve_into(game, table, codec, progress)?;
        let solve_time = started.elapsed();
        let finishing = Instant::now();
        header.data_crc = format::data_crc(table);
        let head = header.encode();
        let mut out = std::io::BufWriter::with_capacity(1 << 20, &mut file);
        out.write_all(&head)
            .and_then(|_| out.write_all(&vec![0u8; header.data_offset as usize - head.len()]))
            .and_then(|_| out.write_all(table))
            .and_then(|_| out.flush())
            .map_err(io("cannot write"))?;
        drop(out);
        file.sync_all().map_err(io("cannot sync"))?;
        Ok((solve_time, finishing))
    })();
    let (solve_time, finishing) = match result {
        Ok(t) => t,
        Err(e) => {
            // Nothing half-written may survive under a name that looks done.
            drop(file);
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
    };
    drop(file);
    fs::rename(&tmp, path).map_err(|e| {
        Error::io(
            format!("cannot rename {} to {}", tmp.display(), path.display()),
            e,
        )
    })?;
    sync_dir(path);
    Ok(SolveReport {
        header,
        path: path.to_path_buf(),
        solve_time,
        finish_time: finishing.elapsed(),
    })
}

/// Makes the rename durable. Best effort: not every platform can open a
/// directory for syncing, and the file itself is already synced.
fn sync_dir(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}
