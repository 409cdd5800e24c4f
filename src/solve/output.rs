//! Where a solve writes, and who else may be writing there.
//!
//! A tablebase is written to a temporary file of its own and renamed over the
//! output only when it is complete and synced ([`crate::format::TempFile`]:
//! created exclusively under a fresh name, so no existing path — a symlink
//! planted at a predictable name, another solve's temporary file — is ever
//! opened for writing). This module holds the other rules that make that
//! safe in a directory other people (or other solves) use:
//!
//! * An existing output must be a regular file (or a symlink to one, which
//!   the rename replaces, leaving its target untouched): a device, a FIFO or
//!   a socket is refused rather than replaced by a regular file.
//! * The output may not be one of the solve's own inputs (compared by device
//!   and inode, so no spelling of the path gets past it).
//! * Both are checked ([`check_output`], which also refuses `-` and the
//!   names of working files) when the output's lock is taken
//!   ([`OutputLock::acquire`], before anything is written), and again just
//!   before the rename that replaces the output: the path may have become
//!   something else in between.
//! * For the whole solve, an advisory lock is held on `NAME.lock`, so a
//!   second solve of the same output is refused with a message instead of
//!   racing the first one to the rename.
//! * The lock file is registered while it is held, like temporary files, so
//!   a signal handler can remove it
//!   ([`remove_temporary_files`](crate::format::remove_temporary_files)).

use crate::error::{Error, Result};
use crate::format::{file_id, names_file, register, unregister};
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

/// Suffixes of the files a solve keeps beside its output. An output with one
/// of these names would collide with another solve's working files.
pub const WORK_SUFFIXES: [&str; 3] = [".partial", ".ckpt", ".lock"];

/// The file's name with `suffix` appended (`NAME.ckpt`, `NAME.lock`).
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Whether two paths name the same existing file (device and inode where
/// the platform has them, else the canonical path): `./x.rtb`, a hard link
/// and a symlink to it are all the same file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => match (file_id(&x), file_id(&y)) {
            (Some(i), Some(j)) => i == j,
            _ => fs::canonicalize(a).ok() == fs::canonicalize(b).ok(),
        },
        _ => false,
    }
}

/// The files a spec reads: a `pattern:PATH` spec's pattern file (the inline
/// form `pattern:NAME:squares=...:lines=...` reads none). A solve's or a
/// search's output may not be one of them.
pub fn input_files(spec: &str) -> Vec<PathBuf> {
    match crate::games::pattern::file_of(spec.trim()) {
        Some(path) if Path::new(path).exists() => vec![PathBuf::from(path)],
        _ => Vec::new(),
    }
}

/// Refuses an output path that a solve (or a search's proof database) must
/// not replace: a name reserved for working files, an existing file that is
/// not a regular file (following a symlink), or one of the run's `inputs`.
/// [`OutputLock::acquire`] checks this before a run; a run checks it again
/// just before the rename that replaces the output.
pub fn check_output(path: &Path, inputs: &[PathBuf]) -> Result<()> {
    let shown = Error::quote_path(path);
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
                    "is {}, not a regular file; only regular files are replaced",
                    crate::error::file_kind(&meta.file_type())
                )));
            }
        }
    }
    for input in inputs {
        if same_file(path, input) {
            return Err(refuse(format!(
                "is this run's own input {}; choose another output",
                Error::quote_path(input)
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
    /// Checks that `output` may be replaced by a run that reads `inputs`
    /// ([`check_output`]) and takes its lock, or refuses at once if another
    /// process holds it. Every run that writes an output (a solve, streamed
    /// or shared by MPI ranks, a search's proof database) takes it before
    /// its work, so this is where a bad output is refused; nothing is
    /// created for a refused one.
    pub fn acquire(output: &Path, inputs: &[PathBuf]) -> Result<OutputLock> {
        check_output(output, inputs)?;
        let lock_path = sibling(output, ".lock");
        let io = |e| Error::io(format!("cannot lock {}", Error::quote_path(&lock_path)), e);
        // Another process may remove the lock file between our open and our
        // lock; then we hold a lock nobody else can see. Re-checking that the
        // path still names the locked file closes that gap.
        for _ in 0..100 {
            let file = open_nofollow(&lock_path).map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(Error::Output(format!(
                        "{}: another solve or search is writing this file (it holds {}); wait for it to finish or choose another output",
                        Error::quote_path(output),
                        Error::quote_path(&lock_path)
                    )))
                }
                Err(fs::TryLockError::Error(e)) => return Err(io(e)),
            }
            if names_file(&lock_path, &file) {
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
            Error::quote_path(output),
            Error::quote_path(&lock_path)
        )))
    }

    /// The output this lock guards.
    pub fn output(&self) -> &Path {
        &self.output
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        crate::format::kill_point("lock-release");
        unregister(&self.lock_path);
        // Remove the file only while it is still ours, then release the lock.
        if names_file(&self.lock_path, &self.file) {
            let _ = fs::remove_file(&self.lock_path);
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_output_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rtb");
        let first = OutputLock::acquire(&out, &[]).unwrap();
        let err = OutputLock::acquire(&out, &[]).unwrap_err().to_string();
        assert!(err.contains("another solve or search is writing"), "{err}");
        drop(first);
        assert!(!dir.path().join("t.rtb.lock").exists());
        let again = OutputLock::acquire(&out, &[]).unwrap();
        assert_eq!(again.output(), out);
    }

    #[test]
    fn a_lock_file_that_is_a_symlink_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("t.rtb.lock")).unwrap();
        assert!(OutputLock::acquire(&dir.path().join("t.rtb"), &[]).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    }

    /// Taking the lock is where a run's output is checked: a refused
    /// output leaves no lock file behind.
    #[test]
    fn the_lock_refuses_a_bad_output_before_creating_anything() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("rules.txt");
        std::fs::write(&input, b"x").unwrap();
        std::os::unix::fs::symlink("/dev/null", d.join("null.rtb")).unwrap();
        for (out, why) in [
            (d.join("null.rtb"), "character device"),
            (input.clone(), "own input"),
            (d.join("t.rtb.ckpt"), "reserved"),
            (PathBuf::from("-"), "standard output"),
        ] {
            let err = OutputLock::acquire(&out, std::slice::from_ref(&input))
                .unwrap_err()
                .to_string();
            assert!(err.contains(why), "{err}");
        }
        let mut names: Vec<_> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["null.rtb", "rules.txt"]);
        let lock = OutputLock::acquire(&d.join("t.rtb"), &[input]).unwrap();
        assert!(d.join("t.rtb.lock").exists());
        drop(lock);
    }

    /// A search's save checks its output again just before each rename: an
    /// output that became a link to a device, or to one of the run's
    /// inputs, after the target was prepared is refused and left alone.
    #[test]
    fn a_save_refuses_an_output_that_changed_since_it_was_locked() {
        use crate::search::games::cram::CramSearch;
        use crate::search::proofdb::{Fact, Kind, SaveTarget};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let out = d.join("c.proof");
        let input = d.join("a.proof");
        std::fs::write(&input, b"keep").unwrap();
        let g = CramSearch::new(2, 3, false).unwrap();
        let mut none: Vec<(u128, Fact)> = Vec::new();
        let mut target = SaveTarget::prepare(&out, std::slice::from_ref(&input)).unwrap();
        std::os::unix::fs::symlink("/dev/null", &out).unwrap();
        let err = target.save_now(&g, Kind::Nimbers, &mut none).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        assert!(fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
        fs::remove_file(&out).unwrap();
        std::os::unix::fs::symlink(&input, &out).unwrap();
        let err = target.save_now(&g, Kind::Nimbers, &mut none).unwrap_err();
        assert!(err.to_string().contains("own input"), "{err}");
        assert_eq!(fs::read(&input).unwrap(), b"keep");
        fs::remove_file(&out).unwrap();
        target.save(&g, Kind::Nimbers, &mut none).unwrap();
        assert!(fs::symlink_metadata(&out).unwrap().is_file());
        let mut names: Vec<_> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["a.proof", "c.proof"]);
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

    /// The parser reads `DIR/rules:lines=1:v2.txt` as a file (its fields
    /// are not all `squares=`/`rows=`/`lines=`), so it is an input a run may
    /// not overwrite; the inline form names none.
    #[test]
    fn a_pattern_file_is_an_input_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rules:lines=1:v2.txt");
        std::fs::write(&file, "t\nsquares 2\n0 1\n").unwrap();
        let spec = format!("pattern:{}", file.display());
        assert_eq!(input_files(&spec), vec![file.clone()]);
        assert!(check_output(&file, &input_files(&spec)).is_err());
        assert_eq!(
            input_files("pattern:t:squares=2:lines=0.1"),
            Vec::<PathBuf>::new()
        );
    }
}
