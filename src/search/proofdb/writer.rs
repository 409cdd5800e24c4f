//! Writing a proof database: [`write()`] streams the sorted entries through
//! a `CountingWriter`, which computes the CRC on the way, and
//! [`SaveTarget`] is a search's output, checked, locked and given its
//! temporary file before the search starts, then written, synced and
//! renamed into place at each save.

use super::{fault, possible, Fact, Kind, Written, MAGIC, VERSION};
use crate::error::ProofFault;
use crate::format::{CountingWriter, TempFile};
use crate::search::{Key, SearchGame};
use crate::solve::output::{check_output, OutputLock};
use crate::Error;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The error of a write to the database at `path` (empty: not a file):
/// a fault of the records, which [`write_to`] passes through the writer's
/// `io::Error`, or the output's own error, read `'path': <the system's
/// message>`.
fn write_error(path: &Path, e: std::io::Error) -> Error {
    match e.downcast::<ProofFault>() {
        Ok(f) => fault(path, f),
        Err(e) if path.as_os_str().is_empty() => Error::io("cannot write a proof database", e),
        Err(e) => Error::io(Error::quote_path(path), e),
    }
}

/// Writes a proof database of `game` to `out`: every record, in key order
/// (so equal contents give equal files). The records are sorted in place and
/// streamed through a buffer and a `CountingWriter`, which computes the
/// CRC on the way: saving needs no second copy of the entries (a search
/// saving 49 M positions used to gather them twice, once sorted and once as
/// the file's bytes). Keys are unique (the searches' records come from
/// maps), so an unstable sort gives one order. Returns the bytes written.
pub fn write<G: SearchGame>(
    game: &G,
    out: impl Write,
    kind: Kind,
    records: &mut [impl Written<G>],
) -> crate::Result<u64> {
    let mut w = CountingWriter::new(BufWriter::with_capacity(1 << 20, out));
    write_to(game, &mut w, kind, records)
        .and_then(|()| w.flush())
        .map_err(|e| write_error(Path::new(""), e))?;
    Ok(w.count())
}

/// [`write`] into a counting writer (a temporary file's, for a save). A
/// fault of the records is returned as the `io::Error`'s payload, for
/// [`write_error`] to take out.
fn write_to<G: SearchGame, W: Write>(
    game: &G,
    w: &mut CountingWriter<W>,
    kind: Kind,
    records: &mut [impl Written<G>],
) -> std::io::Result<()> {
    let spec = game.spec();
    let spec_len =
        u16::try_from(spec.len()).map_err(|_| std::io::Error::other(ProofFault::SpecTooLong))?;
    if records.iter().any(|r| match (kind, r.fact()) {
        (Kind::Values, Fact::Value(b)) => !possible(b),
        (Kind::Nimbers, Fact::Nimber(_)) => false,
        _ => true,
    }) {
        return Err(std::io::Error::other(ProofFault::MixedFacts));
    }
    // Sorted by the key's stored bytes; two buffers reused by every
    // comparison instead of a key copy per record.
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    records.sort_unstable_by(|a, b| {
        ka.clear();
        a.key().write(&mut ka);
        kb.clear();
        b.key().write(&mut kb);
        ka.cmp(&kb)
    });
    let mut head = Vec::new();
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.push(match kind {
        Kind::Values => 0,
        Kind::Nimbers => 1,
    });
    head.extend_from_slice(&(G::Key::BYTES as u16).to_le_bytes());
    head.extend_from_slice(&spec_len.to_le_bytes());
    head.extend_from_slice(spec.as_bytes());
    head.extend_from_slice(&(records.len() as u64).to_le_bytes());
    w.write_all(&head)?;
    let mut entry = Vec::new();
    for r in records.iter() {
        entry.clear();
        r.key().write(&mut entry);
        match r.fact() {
            Fact::Value(b) => entry.extend_from_slice(&[b.lo as u8, b.hi as u8]),
            Fact::Nimber(n) => entry.extend_from_slice(&n.to_le_bytes()),
        }
        let pos = r.position(game);
        let len = u16::try_from(pos.len())
            .map_err(|_| std::io::Error::other(ProofFault::PositionTooLong))?;
        entry.extend_from_slice(&len.to_le_bytes());
        entry.extend_from_slice(pos.as_bytes());
        w.write_all(&entry)?;
    }
    let crc = w.crc();
    w.write_all(&crc.to_le_bytes())
}

/// Saves a proof database at `path` (`SaveTarget` with no inputs, then
/// `SaveTarget::save`): for a program that has its records at hand. A
/// search prepares its target before it starts instead.
pub fn save<G: SearchGame>(
    game: &G,
    path: &Path,
    kind: Kind,
    records: &mut [impl Written<G>],
) -> crate::Result<u64> {
    SaveTarget::prepare(path, &[])?.save(game, kind, records)
}

/// Where a search will save what it proves, made ready before the search
/// starts: its directory must be there; the output is checked (a regular
/// file or nothing, not one of the run's inputs) and locked against every
/// other solve or search of the same name for the whole run (`NAME.lock`,
/// [`OutputLock::acquire`], as a solve does), and its temporary file is
/// created — exclusively, under an unpredictable name
/// (`NAME.<pid>-<random>.partial`, the solver's [`TempFile`]) — which also
/// shows the directory is writable. The
/// temporary and lock files are registered, so a second Ctrl-C (the signal
/// handler's [`crate::format::remove_temporary_files`]) removes them, and
/// dropping the target unsaved removes them too.
///
/// A long search saves now and then as well ([`SaveTarget::save_now`]):
/// each save is a whole database renamed into place (the output checked
/// again first), and the target then takes a new temporary file for the
/// next one, keeping the lock.
#[derive(Debug)]
pub(crate) struct SaveTarget {
    path: PathBuf,
    /// The run's inputs, checked again before each rename.
    inputs: Vec<PathBuf>,
    // Declared before the lock: dropped (removed) while the lock is held.
    // None only after a save whose next temporary file could not be made.
    tmp: Option<TempFile>,
    _lock: OutputLock,
    removed: Vec<PathBuf>,
}

impl SaveTarget {
    /// Checks, locks and prepares `path`; `inputs` are the files the run
    /// reads (a pattern file, databases, tables), which it may not replace.
    pub fn prepare(path: &Path, inputs: &[PathBuf]) -> crate::Result<SaveTarget> {
        let shown = Error::quote_path(path);
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::Output(format!(
                    "{shown}: {} is not a directory",
                    Error::quote_path(dir)
                )))
            }
            Err(e) => {
                return Err(Error::io(
                    format!(
                        "{shown}: cannot use the directory {}",
                        Error::quote_path(dir)
                    ),
                    e,
                ))
            }
        }
        let lock = OutputLock::acquire(path, inputs)?;
        // Under the lock no other run of this output is writing, so the
        // temporaries of killed runs (solves' or searches') can go.
        let removed = crate::format::remove_stale_temporaries(path);
        let tmp = TempFile::create_beside(path).map_err(|e| Error::File {
            path: path.to_path_buf(),
            error: Box::new(e),
        })?;
        Ok(SaveTarget {
            path: path.to_path_buf(),
            inputs: inputs.to_vec(),
            tmp: Some(tmp),
            _lock: lock,
            removed,
        })
    }

    /// The temporary files of killed runs removed when the target was
    /// prepared ([`crate::format::stale_notice`] words the message).
    pub fn removed_stale(&self) -> &[PathBuf] {
        &self.removed
    }

    /// The output.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the database to the temporary file, syncs it and renames it
    /// over the output; returns the bytes written. On an error the
    /// temporary file is removed and the output left as it was.
    pub fn save<G: SearchGame>(
        mut self,
        game: &G,
        kind: Kind,
        records: &mut [impl Written<G>],
    ) -> crate::Result<u64> {
        self.write(game, kind, records)
    }

    /// Saves as [`SaveTarget::save`] does and stays ready for the next save:
    /// a search's periodic save. The output is replaced whole each time (a
    /// run killed during a save leaves the previous one); then a new
    /// temporary file is made for the next save (if that fails, the error
    /// is returned after this save, and the next save tries again).
    pub fn save_now<G: SearchGame>(
        &mut self,
        game: &G,
        kind: Kind,
        records: &mut [impl Written<G>],
    ) -> crate::Result<u64> {
        let len = self.write(game, kind, records)?;
        self.tmp = Some(self.fresh()?);
        Ok(len)
    }

    fn fresh(&self) -> crate::Result<TempFile> {
        TempFile::create_beside(&self.path).map_err(|e| Error::File {
            path: self.path.clone(),
            error: Box::new(e),
        })
    }

    fn write<G: SearchGame>(
        &mut self,
        game: &G,
        kind: Kind,
        records: &mut [impl Written<G>],
    ) -> crate::Result<u64> {
        let tmp = match self.tmp.take() {
            Some(t) => t,
            None => self.fresh()?,
        };
        let ((), len) = tmp
            .write(|w| write_to(game, w, kind, records))
            .map_err(|e| write_error(&self.path, e))?;
        // Checked again just before the rename: the output may have been
        // replaced by something else (a device, a link to an input) since.
        check_output(&self.path, &self.inputs)?;
        tmp.persist(&self.path).map_err(|e| Error::File {
            path: self.path.clone(),
            error: Box::new(e),
        })?;
        Ok(len)
    }
}
