//! Opening tablebases for the commands, with the file's name on every error.

use anyhow::Result;
use retrograde::{Mmap, Tablebase};
use std::path::Path;

/// Opens for probing: positioned reads, so a file truncated under a long
/// `probe -` run is an error message, not a crash.
pub fn open(file: &Path) -> Result<Tablebase> {
    named(file, Tablebase::open(file))
}

/// Opens for the batch commands (`verify`, `analyze`, `compare`), which read
/// every cell: a memory map, whose probes cost nanoseconds instead of a
/// system call. Truncating the file while they run kills them (SIGBUS).
pub fn open_mapped(file: &Path) -> Result<Tablebase<Mmap>> {
    // SAFETY: the files the batch commands read are tables the generator
    // replaces by rename, never in place; a user truncating one under a
    // running `verify` is the documented hazard (the process dies, no
    // wrong value is printed).
    named(file, unsafe { Tablebase::open_mmap(file) })
}

/// Prefixes a library error with the file's name, quoted (see [`shown`]).
pub fn named<T>(file: &Path, opened: retrograde::Result<T>) -> Result<T> {
    opened.map_err(|e| match e {
        // I/O errors already name the path.
        retrograde::Error::Io { .. } => anyhow::Error::new(e),
        e => anyhow::Error::new(e).context(shown(file)),
    })
}

/// A path as every message and report line of the reader commands shows it:
/// quoted, cut after 60 characters, control characters escaped
/// (`retrograde::Error::quote`), so a file named with an escape sequence
/// cannot recolour the terminal and a 4,000-byte path stays one line. JSON
/// output carries the path in full instead: JSON escapes it.
pub fn shown(file: &Path) -> String {
    retrograde::Error::quote_path(file)
}
