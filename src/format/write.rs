//! Writing files: the header a solve writes, the generator string, the
//! table's streaming writer, and the protocol that puts every finished file
//! — table, checkpoint, streamed working file, proof database — under its
//! name.
//!
//! A file is written to a temporary file of its own
//! (`NAME.<pid>-<random>.partial`, created exclusively, so no existing path
//! is ever opened for writing: [`TempFile`]), through a buffer and a
//! [`CountingWriter`] ([`TempFile::write`]), synced, and renamed over the
//! destination only when complete ([`TempFile::persist`]), so an
//! interrupted run never leaves a file that looks complete. Temporary files (and the solver's output locks) are registered
//! while they exist, so a signal handler can remove them
//! ([`remove_temporary_files`]) before the process exits.

use super::{CellCodec, CountingWriter, Header, Summary, FLAG_FOLDED, FORMAT_VERSION};
use crate::error::{Error, Result};
use crate::game::Game;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The generator string stored in headers (and checkpoints): this program
/// and its version.
pub fn generator() -> String {
    format!("retrograde {}", env!("CARGO_PKG_VERSION"))
}

/// The header of `game`'s table in `codec`, before the solve fills in the
/// summary and the data CRC.
pub(crate) fn table_header<G: Game>(game: &G, codec: CellCodec) -> Header {
    let mut header = Header {
        version: FORMAT_VERSION,
        spec: game.spec(),
        index_scheme: game.index_scheme(),
        cell_width: codec.width(),
        cell_encoding: codec.kind().id(),
        flags: if game.is_folded() { FLAG_FOLDED } else { 0 },
        entries: game.size(),
        data_offset: 0,
        data_crc: 0,
        summary: Summary::default(),
        generator: generator(),
    };
    header.data_offset = Header::data_offset_for(header.encoded_len());
    header
}

/// Streams a tablebase (header, zero padding to the data offset, data) to a
/// writer, through a [`CountingWriter`]: a `table` that is not the
/// header's data length is refused (`InvalidInput`) rather than written as
/// a file whose header describes another. Any write error is returned as
/// is. The writer is not buffered here: the three writes are large, and
/// [`TempFile::write`] buffers for a file.
pub fn write_tablebase(out: impl Write, header: &Header, table: &[u8]) -> std::io::Result<()> {
    if table.len() as u64 != header.data_len() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "a table of {} bytes under a header that describes {}",
                table.len(),
                header.data_len()
            ),
        ));
    }
    let head = header.encode();
    let mut out = CountingWriter::new(out);
    out.write_all(&head)?;
    out.write_all(&vec![0u8; header.data_offset as usize - head.len()])?;
    out.write_all(table)?;
    out.flush()?;
    debug_assert_eq!(out.count(), header.file_len());
    Ok(())
}

/// Writes a finished table to `dest`: to a fresh temporary file beside it,
/// synced, then renamed into place. On any error the temporary file is
/// removed, so nothing half-written survives under any name.
pub fn write_table_file(dest: &Path, header: &Header, table: &[u8]) -> Result<()> {
    let tmp = TempFile::create_beside(dest)?;
    tmp.write(|w| write_tablebase(w, header, table))
        .map_err(|e| Error::io(format!("cannot write {}", tmp.path().display()), e))?;
    kill_point("table-written");
    drop(tmp.persist(dest)?);
    kill_point("table-renamed");
    Ok(())
}

/// The working files this process owns right now: temporary files being
/// written and lock files held, each with its device and inode, so a file
/// someone else has since put at that name is never removed.
static WORKING: Mutex<Vec<(PathBuf, Option<FileId>)>> = Mutex::new(Vec::new());

/// Device and inode.
pub(crate) type FileId = (u64, u64);

/// Removes every temporary file this process is writing and every output
/// lock file it holds — not the checkpoints, which exist to be resumed from.
/// For signal handlers: call it on SIGINT or SIGTERM before exiting, so an
/// interrupted solve leaves no `.partial` or `.lock` file behind (the
/// command line does).
pub fn remove_temporary_files() {
    // A poisoned lock still holds the list; the files matter more.
    let list = match WORKING.lock() {
        Ok(l) => l.clone(),
        Err(p) => p.into_inner().clone(),
    };
    for (path, id) in list {
        let ours = fs::symlink_metadata(&path).is_ok_and(|m| file_id(&m) == id);
        if ours {
            let _ = fs::remove_file(path);
        }
    }
}

/// Puts a working file on the list [`remove_temporary_files`] clears.
pub(crate) fn register(path: &Path, file: &File) {
    let id = file.metadata().ok().and_then(|m| file_id(&m));
    if let Ok(mut l) = WORKING.lock() {
        l.push((path.to_path_buf(), id));
    }
}

/// Takes a working file off the list once it is renamed or removed.
pub(crate) fn unregister(path: &Path) {
    if let Ok(mut l) = WORKING.lock() {
        l.retain(|(p, _)| p != path);
    }
}

/// The directory an output lives in (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

// File identity: every same-file check (an output against the inputs in
// `solve::output::same_file`, a lock or checkpoint against the file held
// open in `names_file`, the working-file list) compares device and inode
// through `file_id`.

/// Device and inode of a file (unix); elsewhere `None`, and
/// `solve::output::same_file` falls back to comparing canonical paths.
#[cfg(unix)]
pub(crate) fn file_id(meta: &fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
pub(crate) fn file_id(_meta: &fs::Metadata) -> Option<FileId> {
    None
}

/// Whether `path` itself (a symlink there is not followed) is the open
/// `file`: false once someone has removed or replaced it, and where the
/// platform gives no device and inode to compare.
pub(crate) fn names_file(path: &Path, file: &File) -> bool {
    let held = file.metadata().ok().and_then(|m| file_id(&m));
    held.is_some() && fs::symlink_metadata(path).ok().and_then(|m| file_id(&m)) == held
}

/// A file being written under a fresh name beside its destination, created
/// exclusively; renamed into place by [`TempFile::persist`], removed if
/// dropped before that.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    file: Option<File>,
}

impl TempFile {
    /// Creates `DIR/NAME.<unique>.partial` exclusively for the destination
    /// `dest`; never opens an existing path.
    pub fn create_beside(dest: &Path) -> Result<TempFile> {
        let dir = parent_dir(dest);
        let name = dest.file_name().unwrap_or_default().to_string_lossy();
        let pid = std::process::id();
        let mut last = None;
        for attempt in 0u32..64 {
            let path =
                dest.with_file_name(format!("{name}.{}.partial", unique_token(pid, attempt)));
            // Readable too: a tier-streamed solve maps finished tiers back.
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => {
                    register(&path, &file);
                    return Ok(TempFile {
                        path,
                        file: Some(file),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(Error::io(
                        format!("cannot create a temporary file in {}", dir.display()),
                        e,
                    ))
                }
            }
        }
        Err(Error::io(
            format!("cannot create a temporary file in {}", dir.display()),
            last.unwrap_or_else(|| std::io::Error::other("no free name")),
        ))
    }

    /// The temporary path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open file.
    pub fn file(&self) -> &File {
        self.file.as_ref().expect("file present until persisted")
    }

    /// Writes the file's contents: `write` gets the file through a 1 MiB
    /// buffer and a [`CountingWriter`] (whose CRC a format that ends with
    /// its checksum appends), and the buffer is flushed after it. Returns
    /// what `write` returned and the bytes written. The one way every file
    /// format is written; [`TempFile::persist`] then puts it in place.
    pub fn write<T>(
        &self,
        write: impl FnOnce(&mut CountingWriter<BufWriter<&File>>) -> std::io::Result<T>,
    ) -> std::io::Result<(T, u64)> {
        let mut w = CountingWriter::new(BufWriter::with_capacity(1 << 20, self.file()));
        let t = write(&mut w)?;
        w.flush()?;
        Ok((t, w.count()))
    }

    /// Syncs the file and renames it to `dest` (replacing a regular file or a
    /// symlink there, never following it). Returns the open file, which is
    /// now the one at `dest`.
    pub fn persist(mut self, dest: &Path) -> Result<File> {
        let file = self.file.take().expect("file present until persisted");
        if let Err(e) = file.sync_all() {
            let _ = fs::remove_file(&self.path);
            unregister(&self.path);
            return Err(Error::io(format!("cannot sync {}", self.path.display()), e));
        }
        let renamed = fs::rename(&self.path, dest).map_err(|e| {
            Error::io(
                format!(
                    "cannot rename {} to {}",
                    self.path.display(),
                    dest.display()
                ),
                e,
            )
        });
        if let Err(e) = renamed {
            let _ = fs::remove_file(&self.path);
            unregister(&self.path);
            return Err(e);
        }
        unregister(&self.path);
        sync_dir(dest);
        Ok(file)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.path);
            unregister(&self.path);
        }
    }
}

/// Removes the temporary files of `dest` (`NAME.<pid>-<random>.partial`,
/// as [`TempFile::create_beside`] names them) whose process is gone: what a
/// run killed with SIGKILL (or a power loss) left behind. Only regular files
/// whose name is exactly that pattern are touched, and only when no live
/// process has the pid in the name (this process's own files are live). Call
/// it while holding the output's lock (`OutputLock`), so no
/// other run of the same output can be writing one. Returns the files
/// removed, for a one-line message. Elsewhere than on Unix it removes
/// nothing.
pub fn remove_stale_temporaries(dest: &Path) -> Vec<PathBuf> {
    // Spelled as `create_beside` spells it (lossily, for a name that is not
    // UTF-8).
    let Some(name) = dest.file_name().map(|n| n.to_string_lossy()) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(parent_dir(dest)) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = Some(file_name.to_string_lossy())
            .as_deref()
            .and_then(|f| f.strip_prefix(&*name)?.strip_prefix('.'))
            .and_then(|f| f.strip_suffix(".partial"))
            .and_then(temporary_pid)
        else {
            continue;
        };
        let path = dest.with_file_name(&file_name);
        let regular = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if regular && !process_alive(pid) && fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed.sort();
    removed
}

/// The one-line notice for the files [`remove_stale_temporaries`] removed
/// (the first three named), or `None` when there were none.
pub fn stale_notice(removed: &[PathBuf]) -> Option<String> {
    if removed.is_empty() {
        return None;
    }
    let names: Vec<String> = removed
        .iter()
        .take(3)
        .map(|p| crate::Error::quote(&p.file_name().unwrap_or_default().to_string_lossy()))
        .collect();
    let more = match removed.len() {
        n if n > 3 => format!(" and {} more", n - 3),
        _ => String::new(),
    };
    Some(format!(
        "removed {} temporary file{} left by an earlier run of this output that was killed: {}{more}",
        removed.len(),
        if removed.len() == 1 { "" } else { "s" },
        names.join(", ")
    ))
}

/// The pid in a temporary file's token (`<pid>-<8 hex digits>`), if it is one.
fn temporary_pid(token: &str) -> Option<u32> {
    let (pid, random) = token.split_once('-')?;
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    let digits = !pid.is_empty() && pid.chars().all(|c| c.is_ascii_digit());
    if !digits || random.len() != 8 || !random.chars().all(hex) {
        return None;
    }
    pid.parse().ok().filter(|&p| p > 0 && p <= i32::MAX as u32)
}

/// Whether a process with this pid exists (one of another user's counts).
/// Unknown (not Unix): alive, so nothing is removed.
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        if pid == std::process::id() {
            return true;
        }
        // SAFETY: signal 0 only checks that the process exists; `pid` is
        // positive (checked by `temporary_pid`), so it names one process,
        // never a group.
        let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// A test hook for the kill points of a solve: when the environment
/// variable `RETROGRADE_TEST_KILL_AT` equals `point`, the process kills
/// itself with SIGKILL there (no destructor, no signal handler runs), as a
/// crash or `kill -9` at that instant would; `point:INT` sends SIGINT
/// instead and waits for the command line's handler to clean up and exit,
/// as a Ctrl-C at that instant would. The tests in
/// `tests/files/kill_points.rs` run the command line with it set, one point
/// at a time, and check what is left and that a rerun finishes the job.
/// Unset (always, in use), it costs one cached lookup.
pub(crate) fn kill_point(point: &str) {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let Some(at) = AT.get_or_init(|| std::env::var("RETROGRADE_TEST_KILL_AT").ok()) else {
        return;
    };
    let interrupt = match at.strip_suffix(":INT") {
        Some(p) if p == point => true,
        _ if at == point => false,
        _ => return,
    };
    #[cfg(unix)]
    // SAFETY: sends a signal to this process; nothing to uphold.
    unsafe {
        if interrupt {
            libc::kill(libc::getpid(), libc::SIGINT);
            // The handler's thread removes the working files and exits.
            loop {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        }
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    let _ = interrupt;
    std::process::abort();
}

/// A name no other process or attempt uses: pid, clock and a per-process
/// counter. Exclusive creation makes a collision a retry, never a reuse.
fn unique_token(pid: u32, attempt: u32) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mixed = (u64::from(nanos) << 32 | u64::from(n) << 8 | u64::from(attempt))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("{pid}-{:08x}", (mixed >> 32) as u32)
}

/// Makes a rename durable. Best effort: not every platform can open a
/// directory for syncing, and the file itself is already synced.
pub(crate) fn sync_dir(path: &Path) {
    if let Ok(d) = File::open(parent_dir(path)) {
        let _ = d.sync_all();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn names_file_only_while_the_path_is_the_open_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.lock");
        let file = File::create(&path).unwrap();
        assert!(names_file(&path, &file));
        // A symlink to the file is another name, not the file: not followed.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(!names_file(&link, &file));
        // Replaced by another file under the same name.
        let other = dir.path().join("other");
        File::create(&other).unwrap();
        fs::rename(&other, &path).unwrap();
        assert!(!names_file(&path, &file));
        fs::remove_file(&path).unwrap();
        assert!(!names_file(&path, &file));
    }

    #[test]
    fn temporary_files_are_fresh_and_removed_unless_persisted() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("t.rtb");
        let a = TempFile::create_beside(&dest).unwrap();
        let b = TempFile::create_beside(&dest).unwrap();
        assert_ne!(a.path(), b.path());
        let (pa, pb) = (a.path().to_path_buf(), b.path().to_path_buf());
        drop(a);
        assert!(!pa.exists());
        // Persisting over a symlink replaces the link, not its target.
        let target = dir.path().join("target");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, &dest).unwrap();
        use std::io::Write;
        b.file().write_all(b"table").unwrap();
        drop(b.persist(&dest).unwrap());
        assert!(!pb.exists());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert_eq!(std::fs::read(&dest).unwrap(), b"table");
        assert!(std::fs::symlink_metadata(&dest).unwrap().is_file());
        // What a signal handler calls (`remove_temporary_files`) is tested in
        // a process of its own (tests/files/hostile.rs,
        // `sigint_while_writing_removes_the_temporary_file`): here it would
        // remove the temporary files of the tests running beside this one,
        // and fail them (a checkpoint test's rename, seen once).
    }
}
