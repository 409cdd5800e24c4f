//! Writing a tablebase file: solve straight into a memory-mapped `.partial`
//! file, checksum it, write the header last, sync, and rename into place.
//!
//! The header (with the magic) is written only after the data is complete, so
//! an interrupted run leaves a `.partial` file whose first bytes are zero and
//! which `open` refuses, never a file that looks complete.

use super::{codec_for, solve_into, Progress, SolveOptions};
use crate::error::{Error, Result};
use crate::format::{self, Header, Summary, FORMAT_VERSION};
use crate::game::Game;
use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
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
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(io("cannot create"))?;
    let result = (|| {
        file.set_len(header.file_len()).map_err(io("cannot size"))?;
        let started = Instant::now();
        let mut map = crate::mmap::map_write(&file, header.data_offset, data_len)
            .map_err(io("cannot map"))?;
        header.summary = solve_into(game, &mut map, codec, progress)?;
        let solve_time = started.elapsed();
        let finishing = Instant::now();
        header.data_crc = format::data_crc(&map);
        map.flush().map_err(io("cannot flush"))?;
        drop(map);
        write_header(&mut file, &header).map_err(io("cannot write header of"))?;
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

fn write_header(file: &mut File, header: &Header) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header.encode())
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
