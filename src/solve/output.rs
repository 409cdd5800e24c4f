//! Where a solve writes, and who else may be writing there.
//!
//! A tablebase is written to a temporary file of its own and renamed over the
//! output only when it is complete and synced. This module holds the rules
//! that make that safe in a directory other people (or other solves) use:
//!
//! * The temporary file is created exclusively (`O_CREAT | O_EXCL`) under a
//!   fresh name in the output's directory, so no existing path — a symlink
//!   planted at a predictable name, another solve's temporary file — is
//!   ever opened for writing.
//! * An existing output must be a regular file (or a symlink to one, which
//!   the rename replaces, leaving its target untouched): a device, a FIFO or
//!   a socket is refused rather than replaced by a regular file.
//! * The output may not be one of the solve's own inputs (compared by device
//!   and inode, so no spelling of the path gets past it).
//! * For the whole solve, an advisory lock is held on `NAME.lock`, so a
//!   second solve of the same output is refused with a message instead of
//!   racing the first one to the rename.
//! * Temporary files are registered while they exist, so a signal handler
//!   can remove them ([`remove_temporary_files`]) before the process exits.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Suffixes of the files a solve keeps beside its output. An output with one
/// of these names would collide with another solve's working files.
pub const WORK_SUFFIXES: [&str; 3] = [".partial", ".ckpt", ".lock"];

/// The working files this process owns right now: temporary files being
/// written and lock files held, each with its device and inode, so a file
/// someone else has since put at that name is never removed.
static WORKING: Mutex<Vec<(PathBuf, Option<FileId>)>> = Mutex::new(Vec::new());

/// Device and inode.
type FileId = (u64, u64);

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

fn register(path: &Path, file: &File) {
    let id = file.metadata().ok().and_then(|m| file_id(&m));
    if let Ok(mut l) = WORKING.lock() {
        l.push((path.to_path_buf(), id));
    }
}

fn unregister(path: &Path) {
    if let Ok(mut l) = WORKING.lock() {
        l.retain(|(p, _)| p != path);
    }
}

/// The file's name with `suffix` appended (`NAME.ckpt`, `NAME.lock`).
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// The directory an output lives in (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Device and inode of a file (unix); elsewhere `None`, and the same-file
/// check falls back to comparing canonical paths.
#[cfg(unix)]
fn file_id(meta: &fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_meta: &fs::Metadata) -> Option<FileId> {
    None
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => match (file_id(&x), file_id(&y)) {
            (Some(i), Some(j)) => i == j,
            _ => fs::canonicalize(a).ok() == fs::canonicalize(b).ok(),
        },
        _ => false,
    }
}

/// Refuses an output path that a solve must not replace: a name reserved for
/// working files, an existing file that is not a regular file (following a
/// symlink), or one of the solve's `inputs`.
pub fn check_output(path: &Path, inputs: &[PathBuf]) -> Result<()> {
    let shown = path.display();
    let refuse = |why: String| Error::Output(format!("{shown}: {why}"));
    if path.as_os_str() == "-" {
        return Err(refuse(
            "a tablebase is a seekable file and is not written to standard output; give a file name"
                .into(),
        ));
    }
    let name = path.file_name().map(OsString::from).unwrap_or_default();
    let name = name.to_string_lossy();
    if name.is_empty() || name == "." || name == ".." {
        return Err(refuse("is not a file name".into()));
    }
    if let Some(s) = WORK_SUFFIXES.iter().find(|s| name.ends_with(*s)) {
        return Err(refuse(format!(
            "names ending in '{s}' are reserved for retrograde's working files; choose another name"
        )));
    }
    if let Ok(link) = fs::symlink_metadata(path) {
        // A symlink is replaced by the rename; what matters is that its
        // target, if any, is a regular file (a dangling link is replaced too).
        let target = if link.file_type().is_symlink() {
            fs::metadata(path).ok()
        } else {
            Some(link)
        };
        if let Some(meta) = target {
            if !meta.is_file() {
                return Err(refuse(format!(
                    "is {}, not a regular file; a solve only replaces regular files",
                    crate::error::file_kind(&meta.file_type())
                )));
            }
        }
    }
    for input in inputs {
        if same_file(path, input) {
            return Err(refuse(format!(
                "is the solve's own input {}; choose another output",
                input.display()
            )));
        }
    }
    Ok(())
}

/// An advisory lock on `NAME.lock`, held for a whole solve of `NAME`.
///
/// Two solves of one output would otherwise both write and rename, and the
/// file under the final name could be either table whatever each reported.
/// The lock dies with its process (kill -9 included), so a crash leaves no
/// stale lock, only a harmless empty file.
#[derive(Debug)]
pub struct OutputLock {
    file: File,
    lock_path: PathBuf,
    output: PathBuf,
}

impl OutputLock {
    /// Takes the lock for `output`, or refuses at once if another process
    /// holds it.
    pub fn acquire(output: &Path) -> Result<OutputLock> {
        let lock_path = sibling(output, ".lock");
        let io = |e| Error::io(format!("cannot lock {}", lock_path.display()), e);
        // Another process may remove the lock file between our open and our
        // lock; then we hold a lock nobody else can see. Re-checking that the
        // path still names the locked file closes that gap.
        for _ in 0..100 {
            let file = open_nofollow(&lock_path).map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(Error::Output(format!(
                        "{}: another solve is writing this file (it holds {}); wait for it to finish or choose another output",
                        output.display(),
                        lock_path.display()
                    )))
                }
                Err(fs::TryLockError::Error(e)) => return Err(io(e)),
            }
            let same = match (file.metadata(), fs::symlink_metadata(&lock_path)) {
                (Ok(a), Ok(b)) => file_id(&a) == file_id(&b),
                _ => false,
            };
            if same {
                register(&lock_path, &file);
                return Ok(OutputLock {
                    file,
                    lock_path,
                    output: output.to_path_buf(),
                });
            }
        }
        Err(Error::Output(format!(
            "{}: the lock file {} keeps being replaced",
            output.display(),
            lock_path.display()
        )))
    }

    /// The output this lock guards.
    pub fn output(&self) -> &Path {
        &self.output
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        unregister(&self.lock_path);
        // Remove the file only while it is still ours, then release the lock.
        if let (Ok(a), Ok(b)) = (self.file.metadata(), fs::symlink_metadata(&self.lock_path)) {
            if file_id(&a).is_some() && file_id(&a) == file_id(&b) {
                let _ = fs::remove_file(&self.lock_path);
            }
        }
        let _ = self.file.unlock();
    }
}

/// Opens (creating if needed) a file for locking, refusing to follow a
/// symlink at its name.
fn open_nofollow(path: &Path) -> std::io::Result<File> {
    open_regular(path, true)
}

/// Opens a file for reading and writing without following a symlink at its
/// name (creating it if `create`), and checks it is a regular file.
pub(crate) fn open_regular(path: &Path, create: bool) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(create);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    let f = o.open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(format!(
            "{} is {}, not a regular file",
            path.display(),
            crate::error::file_kind(&meta.file_type())
        )));
    }
    Ok(f)
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
            match OpenOptions::new().write(true).create_new(true).open(&path) {
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

    #[test]
    fn a_second_lock_on_one_output_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rtb");
        let first = OutputLock::acquire(&out).unwrap();
        let err = OutputLock::acquire(&out).unwrap_err().to_string();
        assert!(err.contains("another solve is writing"), "{err}");
        drop(first);
        assert!(!dir.path().join("t.rtb.lock").exists());
        let again = OutputLock::acquire(&out).unwrap();
        assert_eq!(again.output(), out);
    }

    #[test]
    fn a_lock_file_that_is_a_symlink_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("t.rtb.lock")).unwrap();
        assert!(OutputLock::acquire(&dir.path().join("t.rtb")).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
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
        // What a signal handler calls removes a file being written. (In this
        // test, not a test of its own: it would remove the files of tests
        // running beside it.)
        let t = TempFile::create_beside(&dest).unwrap();
        let p = t.path().to_path_buf();
        remove_temporary_files();
        assert!(!p.exists());
        drop(t);
    }

    #[test]
    fn outputs_that_are_not_regular_files_or_are_inputs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert!(check_output(Path::new("/dev/null"), &[]).is_err());
        assert!(check_output(d, &[]).is_err());
        assert!(check_output(Path::new("-"), &[]).is_err());
        let input = d.join("rules.txt");
        std::fs::write(&input, b"x").unwrap();
        let err = check_output(&input, std::slice::from_ref(&input)).unwrap_err();
        assert!(err.to_string().contains("own input"));
        assert!(check_output(&d.join("new.rtb"), &[input]).is_ok());
    }
}
