//! Errors: one enum, each variant a complete one-line message.

use std::io;

/// Anything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The game name is not known.
    #[error("unknown game '{name}' (known games: {known})")]
    UnknownGame {
        /// The name given.
        name: String,
        /// Comma-separated known names.
        known: String,
    },
    /// The game name is known but its parameters are wrong.
    #[error("bad game '{spec}': {reason}")]
    BadGame {
        /// The spec given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A position did not parse.
    #[error("bad position '{input}': {reason}")]
    BadPosition {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An index outside the table.
    #[error("index {index} is out of range: the table has {size} entries")]
    IndexOutOfRange {
        /// The index asked for.
        index: u64,
        /// Entries in the table.
        size: u64,
    },
    /// An I/O error, with what was being done. The cause is part of the
    /// message rather than a `source()`, so chained printing names it once.
    #[error("{what}: {error}")]
    Io {
        /// What was being done, e.g. "cannot open tablebases/x.rtb".
        what: String,
        /// The underlying error.
        error: io::Error,
    },
    /// The file does not start with the tablebase magic.
    #[error("not a retrograde tablebase (bad magic bytes)")]
    BadMagic,
    /// The file is empty. Files under /proc and /sys report size 0 too.
    #[error("the file is empty (size 0): not a tablebase (special files such as those under /proc also report size 0)")]
    Empty,
    /// The path is a directory.
    #[error("is a directory, not a tablebase file")]
    IsDirectory,
    /// The path is not a regular file: a FIFO, a device, a socket.
    #[error("is {kind}, not a tablebase file")]
    NotAFile {
        /// What it is, e.g. "a FIFO (named pipe)".
        kind: &'static str,
    },
    /// A read past the end of a file that was longer when it was opened.
    #[error("the file changed or shrank while open (cannot read {len} bytes at offset {offset}): open it again")]
    FileChanged {
        /// Where the read started.
        offset: u64,
        /// Bytes asked for.
        len: usize,
    },
    /// A format version this build does not read.
    #[error("format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The header checksum does not match.
    #[error("header checksum mismatch (stored {stored:08x}, computed {computed:08x}): the header is corrupt")]
    HeaderChecksum {
        /// CRC stored in the file.
        stored: u32,
        /// CRC of the bytes read.
        computed: u32,
    },
    /// The header parses but says something impossible.
    #[error("corrupt header: {0}")]
    CorruptHeader(String),
    /// The file is shorter or longer than its header says.
    #[error("file size is {found} bytes but the header describes {expected}: the file is truncated or damaged")]
    WrongLength {
        /// Size implied by the header.
        expected: u64,
        /// Actual size.
        found: u64,
    },
    /// The data checksum does not match.
    #[error("data checksum mismatch (stored {stored:08x}, computed {computed:08x}): the data is corrupt")]
    DataChecksum {
        /// CRC stored in the header.
        stored: u32,
        /// CRC of the data read.
        computed: u32,
    },
    /// The header names a game whose index does not match the file.
    #[error("the file's game {spec} {reason}")]
    GameMismatch {
        /// Game spec in the header.
        spec: String,
        /// What does not match.
        reason: String,
    },
    /// A remoteness too large for the cell width.
    #[error("remoteness {remoteness} does not fit in a {width}-byte cell (max {max})")]
    RemotenessOverflow {
        /// The remoteness computed.
        remoteness: u32,
        /// Cell width in bytes.
        width: u8,
        /// Largest remoteness the cell holds.
        max: u32,
    },
    /// A nimber too large for the cell width.
    #[error("nimber {nimber} does not fit in a {width}-byte cell (max {max})")]
    NimberOverflow {
        /// The nimber computed.
        nimber: u32,
        /// Cell width in bytes.
        width: u8,
        /// Largest nimber the cell holds.
        max: u32,
    },
    /// A nimber table was asked of a game that has none.
    #[error("no nimber table for {spec}: {reason}")]
    NimbersUnsupported {
        /// The game.
        spec: String,
        /// Why.
        reason: String,
    },
    /// A checkpoint that cannot be used for this solve.
    #[error("{0}")]
    Checkpoint(String),
    /// The game's rules broke an invariant the solver relies on.
    #[error("game rules inconsistent: {0}")]
    GameInvariant(String),
}

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O error with what was being done.
    pub fn io(what: impl Into<String>, error: io::Error) -> Error {
        Error::Io {
            what: what.into(),
            error,
        }
    }
}
