//! Opening tablebases for the commands, with the file's name on every error.

use anyhow::Result;
use retrograde::{Mmap, Tablebase};
use std::path::{Path, PathBuf};

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

/// Where the reader commands find a table named by its game.
#[derive(clap::Args)]
pub struct Tables {
    /// Directory where a game spec given instead of a FILE finds its table
    /// (by the game in each file's header) [default: $RETROGRADE_TABLES,
    /// else tablebases]
    #[arg(long = "tables", value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl Tables {
    /// The directory: --tables, else RETROGRADE_TABLES unless empty (as
    /// NO_COLOR, an empty variable is an unset one), else `tablebases`.
    pub fn dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(|| {
            std::env::var_os(retrograde::DIR_VARIABLE)
                .filter(|v| !v.is_empty())
                .map_or_else(|| PathBuf::from(retrograde::DEFAULT_DIR), PathBuf::from)
        })
    }

    /// The file a FILE-or-SPEC argument names. An existing path is a file,
    /// whatever it looks like (so every FILE argument keeps its meaning; a
    /// file named like a game is reached as the game by running elsewhere or
    /// with its table in --tables); otherwise a game spec is looked up in
    /// the directory. What is neither is reported as the file it most looks
    /// like: a spec's error when it reads as a game, else the open error.
    pub fn resolve(&self, arg: &Path) -> Result<PathBuf> {
        if arg.symlink_metadata().is_ok() {
            return Ok(arg.to_path_buf());
        }
        let Some(text) = arg.to_str() else {
            return Ok(arg.to_path_buf());
        };
        match retrograde::find_table(&self.dir(), text) {
            Ok(path) => Ok(path),
            Err(retrograde::Error::UnknownGame { .. }) if !text.contains(':') => {
                Ok(arg.to_path_buf())
            }
            Err(e) => Err(anyhow::Error::new(e)),
        }
    }
}
