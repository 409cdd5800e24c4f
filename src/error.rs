//! Errors: one enum, each variant a complete one-line message.

use std::io;
use std::path::PathBuf;

/// Anything that can go wrong in the library.
///
/// Each variant's message is one complete line. The enum is
/// `#[non_exhaustive]`: a match needs a `_` arm, so new failure kinds can be
/// added without breaking callers.
///
/// ```
/// use retrograde::{Error, Tablebase};
///
/// let e = Tablebase::from_bytes(vec![0u8; 200]).err().expect("not a table");
/// assert!(matches!(e, Error::BadMagic));
/// assert_eq!(e.to_string(), "not a retrograde tablebase (bad magic bytes)");
/// let kind = match e {
///     Error::BadMagic | Error::Empty => "not a tablebase",
///     Error::Io { .. } => "cannot read",
///     _ => "damaged or unusable",
/// };
/// assert_eq!(kind, "not a tablebase");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The game name is not known.
    #[error("unknown game {} (known games: {known})", Error::quote(.name))]
    UnknownGame {
        /// The name given.
        name: String,
        /// Comma-separated known names.
        known: String,
    },
    /// The game name is known but its parameters are wrong.
    #[error("bad game {}: {}", Error::quote(.spec), Error::clip(.reason))]
    BadGame {
        /// The spec given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A game's constructor refused its parameters (`Isolation::new(1, 5)`);
    /// a spec's are refused with [`Error::BadGame`].
    #[error("bad parameters for {game}: {}", Error::clip(.reason))]
    BadParameters {
        /// The game's name in a spec, e.g. `isolation`.
        game: &'static str,
        /// What is wrong with them.
        reason: String,
    },
    /// The game is searched, not tabled (Sprouts): it has no table.
    #[error("{} is a search-only game: it has no table (its positions are searched, with `retrograde search`, not tabled)", Error::quote(.spec))]
    SearchOnly {
        /// The spec given.
        spec: String,
    },
    /// A position did not parse.
    #[error("bad position {}: {}", Error::quote(.input), Error::clip(.reason))]
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
    #[error("{}: {error}", Error::clip(.what))]
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
    #[error("the file changed or shrank while open (a read of length {len} at offset {offset} failed): open it again")]
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
    #[error("corrupt header: {}", Error::clip(.0))]
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
    #[error("the file's game {} {}", Error::clip(.spec), Error::clip(.reason))]
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
    /// A game whose index does not fold its symmetries (`--fold`).
    #[error("cannot fold {}: {}", Error::clip(.spec), Error::clip(.reason))]
    CannotFold {
        /// The game.
        spec: String,
        /// Why.
        reason: String,
    },
    /// A nimber table was asked of a game that has none.
    #[error("no nimber table for {}: {}", Error::clip(.spec), Error::clip(.reason))]
    NimbersUnsupported {
        /// The game.
        spec: String,
        /// Why.
        reason: String,
    },
    #[cfg(feature = "solve")]
    /// A checkpoint (`NAME.ckpt`: an in-memory solve's records, or a
    /// streamed solve's working file) that this solve cannot use: the solve
    /// is refused, and the file left alone.
    #[error("checkpoint {} {fault}; {}", Error::quote_path(.path), fault.remedy())]
    Checkpoint {
        /// The checkpoint.
        path: PathBuf,
        /// What is wrong with it.
        fault: CheckpointFault,
    },
    /// An output a solve refuses to write (a device, its own input, a file
    /// another solve is writing).
    #[error("{0}")]
    Output(String),
    /// Another rank of an MPI solve failed (and said why itself): this
    /// rank stopped too. The command prints nothing for it, so the job
    /// ends with the failing rank's one message.
    #[cfg(feature = "mpi")]
    #[error("rank {rank} of the MPI job failed")]
    PeerFailed {
        /// The rank that failed first.
        rank: usize,
    },
    /// The ranks of an MPI solve were given different games or settings
    /// (rank 0's message names the first rank that differs and how); no
    /// rank wrote anything.
    #[cfg(feature = "mpi")]
    #[error("{0}")]
    RanksDisagree(String),
    /// The game's rules broke an invariant the solver relies on.
    #[error("game rules inconsistent: {}", Error::clip(.0))]
    GameInvariant(String),
    /// No usable table of a game in a directory ([`crate::find_table`]):
    /// the message is the command that makes one.
    #[error("no table of {} in {}: make it with `{}`", Error::clip(.spec), Error::quote_path(.dir), Error::clip(.command))]
    NoTable {
        /// The game's canonical spec.
        spec: String,
        /// The directory looked in.
        dir: PathBuf,
        /// The `retrograde solve SPEC -o PATH` command that writes the
        /// table where it is looked for first.
        command: String,
    },
    /// An error about one file, named in front of it: a table given to a
    /// search, an output's temporary file.
    #[error("{}: {error}", Error::quote_path(.path))]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong with it.
        error: Box<Error>,
    },
    #[cfg(feature = "solve")]
    /// A proof database that cannot be read or written: not one, damaged,
    /// of another game or kind.
    #[error("{}{fault}", file_prefix(.path))]
    ProofDatabase {
        /// The file (empty for a database written to a stream that is not
        /// a file: the message then names none).
        path: PathBuf,
        /// What is wrong with it.
        fault: ProofFault,
    },
    #[cfg(feature = "solve")]
    /// Two proof databases loaded together say what cannot both be true
    /// about one position.
    #[error(
        "the proof databases contradict each other at position {}: {} says {first_says}, {} says {second_says}; load them separately, or --check each to find the wrong one",
        Error::quote(.position), Error::quote_path(.first), Error::quote_path(.second)
    )]
    ContradictingProofs {
        /// The position, in the game's notation.
        position: String,
        /// The file read first.
        first: PathBuf,
        /// What it says of the position ("win", "nimber 3").
        first_says: String,
        /// The file that contradicts it.
        second: PathBuf,
        /// What that one says.
        second_says: String,
    },
    #[cfg(feature = "solve")]
    /// An entry of a proof database that does not hold when re-proven from
    /// its moves: the file is wrong or forged.
    #[error(
        "{}: entry {} claims {claim}, but {why}; the database is wrong and none of it is used",
        Error::quote_paths(.files), Error::quote(.position)
    )]
    RefutedProof {
        /// The file (or the two files merged) the entry came from.
        files: Vec<PathBuf>,
        /// The position, in the game's notation.
        position: String,
        /// What the entry claims ("win", "tie or loss", "nimber 2").
        claim: String,
        /// Why it does not hold ("no move achieves it").
        why: String,
    },
    /// A search option out of its range: the option as the command line
    /// spells it, what was given and what it must be.
    #[error("{option} {given}: {rule}")]
    SearchOption {
        /// The option, e.g. `--epsilon`.
        option: &'static str,
        /// What was given.
        given: String,
        /// What it must be.
        rule: String,
    },
    /// A search given less memory than it needs for its table.
    #[error(
        "--memory {} bytes is too small: a search needs at least {} ({} bytes)",
        crate::units::thousands(*.memory), crate::units::human_bytes(*.minimum),
        crate::units::thousands(*.minimum)
    )]
    MemoryTooSmall {
        /// Bytes given.
        memory: u64,
        /// The least a search takes.
        minimum: u64,
    },
    /// A search, or a proof database it loads, needs more memory than the
    /// machine has available.
    #[error("{}", memory_message(*.memory, *.load, *.available))]
    MemoryUnavailable {
        /// The search's memory (table or memo).
        memory: u64,
        /// Entries to load and the bytes they need, if a load is the cause.
        load: Option<(u64, u64)>,
        /// Bytes the machine has available.
        available: u64,
    },
    /// `--nimber` for a game that is not impartial.
    #[error("{spec}: --nimber needs an impartial game under normal play (Cram, take-away games)")]
    NotImpartial {
        /// The game.
        spec: String,
    },
    /// A table given to a search (as leaves) that it cannot use: of another
    /// game, or not the kind of table the search needs.
    #[error("{}: {}", Error::quote_path(.path), Error::clip(.reason))]
    LeafTable {
        /// The table.
        path: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },
}

#[cfg(feature = "solve")]
/// What is wrong with a proof database ([`Error::ProofDatabase`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProofFault {
    /// Not a regular file: a FIFO, a device, a directory.
    #[error("is {kind}, not a proof database file")]
    NotAFile {
        /// What it is, e.g. "a FIFO (named pipe)".
        kind: &'static str,
    },
    /// No proof database magic, or too short to hold a header.
    #[error("not a usable proof database: no proof database header")]
    NoHeader,
    /// A format version this build does not read.
    #[error("not a usable proof database: format version {found}; this build reads {supported}")]
    Version {
        /// Version in the file.
        found: u16,
        /// Version this build reads.
        supported: u16,
    },
    /// A kind of entry this build does not know.
    #[error("not a usable proof database: unknown kind {0}")]
    UnknownKind(u8),
    /// Keys of another width than this game's.
    #[error("not a usable proof database: its keys are not this game's")]
    KeyWidth {
        /// Key bytes in the file.
        found: u16,
        /// Key bytes of the game.
        expected: u16,
    },
    /// The game spec is not UTF-8.
    #[error("not a usable proof database: its game is not text")]
    SpecNotText,
    /// A database of another game.
    #[error("a proof database of {}, not of {expected}", Error::quote(.found))]
    OtherGame {
        /// The game in the file.
        found: String,
        /// The game searched.
        expected: String,
    },
    /// A database of values where nimbers are wanted, or the reverse.
    #[error("a database of {found}, not of {expected}")]
    OtherKind {
        /// What the file holds: "values" or "nimbers".
        found: &'static str,
        /// What is wanted.
        expected: &'static str,
    },
    /// More entries than the file's size can hold.
    #[error("not a usable proof database: it claims {count} entries, more than its {size} bytes can hold")]
    TooManyEntries {
        /// Entries the header claims.
        count: u64,
        /// The file's size.
        size: u64,
    },
    /// Too few entries to fill the file.
    #[error("not a usable proof database: its {count} entries cannot fill its {size} bytes")]
    TooFewEntries {
        /// Entries the header claims.
        count: u64,
        /// The file's size.
        size: u64,
    },
    /// An entry runs past the checksummed bytes.
    #[error("not a usable proof database: truncated")]
    Truncated,
    /// The file got shorter while it was read.
    #[error("not a usable proof database: the file shrank while it was read")]
    Shrank,
    /// The CRC of the bytes is not the one stored after them.
    #[error("not a usable proof database: its checksum does not match (damaged or truncated; stored {stored:08x}, computed {computed:08x})")]
    Checksum {
        /// CRC stored at the end of the file.
        stored: u32,
        /// CRC of the bytes read.
        computed: u32,
    },
    /// Bytes between the last entry and the checksum.
    #[error("not a usable proof database: bytes after the last entry")]
    TrailingBytes,
    /// Bounds that are out of range or leave no value possible.
    #[error("not a usable proof database: an entry's bounds are impossible")]
    ImpossibleBounds,
    /// A position that is not UTF-8.
    #[error("not a usable proof database: a position is not text")]
    PositionNotText,
    /// A position the game does not parse.
    #[error("not a usable proof database: position {}: {}", Error::quote(.position), Error::clip(.reason))]
    BadPosition {
        /// The stored text.
        position: String,
        /// Why the game refuses it.
        reason: String,
    },
    /// A position whose key is not the key stored with it.
    #[error("not a usable proof database: position {} does not have its stored key", Error::quote(.position))]
    WrongKey {
        /// The stored text.
        position: String,
    },
    /// Writing: the game's spec does not fit the header.
    #[error("the game's spec is too long for a proof database")]
    SpecTooLong,
    /// Writing: a position's text does not fit an entry.
    #[error("a position is too long for a proof database")]
    PositionTooLong,
    /// Writing: facts of both kinds, or bounds that leave no value.
    #[error("a proof database holds one kind of fact, each one possible")]
    MixedFacts,
    /// Shrinking: the game's databases of this kind have no shrinking.
    #[error("{game}'s {kind} databases cannot be shrunk")]
    NoShrink {
        /// The game's spec.
        game: String,
        /// Values or nimbers.
        kind: &'static str,
    },
    /// Shrinking: the entries do not prove the position without a search
    /// (a database saved by a stopped search, or of another position).
    #[error("its entries do not prove {} without a search; shrink the database a finished search of it saved", Error::quote(.position))]
    Unsettled {
        /// The position, in the game's notation.
        position: String,
    },
}

#[cfg(feature = "solve")]
/// Why a solve cannot use its checkpoint ([`Error::Checkpoint`]). Each
/// message follows the checkpoint's name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointFault {
    /// Not a regular file: a FIFO, a device, a directory, a symbolic link
    /// (never followed: the checkpoint is cut back and appended to).
    #[error("is {kind}, not a regular file")]
    NotAFile {
        /// What it is, e.g. "a FIFO (named pipe)".
        kind: &'static str,
    },
    /// Another process holds the checkpoint's lock.
    #[error("is in use by another process")]
    InUse,
    /// Neither an in-memory solve's checkpoint nor a streamed solve's
    /// working file: no magic this build knows.
    #[error("is not a retrograde checkpoint")]
    NotACheckpoint,
    /// A checkpoint layout this build does not read.
    #[error("has checkpoint format version {found}, this build reads version {supported}")]
    Version {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The header's length field is impossible.
    #[error("is corrupt (bad header length)")]
    HeaderLength,
    /// The header's CRC is not the one stored in it.
    #[error("is corrupt (header checksum mismatch)")]
    HeaderChecksum,
    /// A checkpoint of another solve: other rules, another index, table
    /// kind or program version.
    #[error(
        "belongs to {} (or another index, table kind or program version), not to this solve of {}",
        other_solve(.found), Error::quote(.expected)
    )]
    OtherSolve {
        /// The game the checkpoint names, when it can be read.
        found: Option<String>,
        /// The game being solved.
        expected: String,
    },
    /// A record whose cells are not the game's positions of its tiers (it
    /// passed its checksum: another program wrote it).
    #[error("has tiers {first}-{end} that do not match the game's positions")]
    TiersMismatch {
        /// The first tier of the frame that does not match.
        first: u32,
        /// The tier the frame ends in (unit 0 of it when the frame ends
        /// with a tier).
        end: u32,
    },
    /// A finished table where a game that is never streamed keeps its
    /// checkpoint: not a checkpoint of this solve.
    #[error("is a finished table, not a checkpoint of this solve")]
    FinishedTable,
    /// Starts as a table but is not one this solve wrote.
    #[error("starts as a table but is not this solve's finished table ({0})")]
    NotThisTable(Box<Error>),
    /// A finished table of another game (or index, kind, version).
    #[error(
        "holds a finished table of {} (or of another index, table kind or program version), not this solve's",
        Error::quote(.found)
    )]
    OtherTable {
        /// The game in its header.
        found: String,
    },
    /// This solve's finished table, whose data no longer matches its CRC.
    #[error("holds this solve's finished table, but its data no longer matches its checksum (it is damaged)")]
    TableDamaged,
    /// This solve's finished table, of neither the table's nor the working
    /// file's length.
    #[error("holds this solve's finished table but is {found} bytes, neither {table} nor {working}: it is damaged")]
    TableLength {
        /// The file's length.
        found: u64,
        /// The finished table's length.
        table: u64,
        /// The working file's length.
        working: u64,
    },
    /// A table-format file that is not a streamed solve's working file.
    #[error("is not a tier-streamed solve's working file")]
    NotWorkingFile,
    /// This solve's working file, cut short.
    #[error(
        "is truncated ({found} bytes; this solve's working file has {expected}): it is damaged"
    )]
    Truncated {
        /// The file's length.
        found: u64,
        /// The working file's length.
        expected: u64,
    },
    /// This solve's working file, longer than it should be.
    #[error(
        "is longer than this solve's working file ({found} bytes, not {expected}): it is damaged"
    )]
    TooLong {
        /// The file's length.
        found: u64,
        /// The working file's length.
        expected: u64,
    },
    /// A working file that names no solve, of the wrong length.
    #[error("is {found} bytes where this solve's working file has {expected}: it belongs to another table or is damaged")]
    OtherLength {
        /// The file's length.
        found: u64,
        /// The working file's length.
        expected: u64,
    },
    /// This solve's working file with both progress slots damaged.
    #[error("has no whole progress slot (both are damaged)")]
    NoSlot,
    /// A working file that names no solve and has no whole progress slot.
    #[error("belongs to another solve (another game, index, table kind or program version) or is damaged")]
    OtherOrDamaged,
}

#[cfg(feature = "solve")]
impl CheckpointFault {
    /// What the user can do: wait for the other process, or start over.
    fn remedy(&self) -> &'static str {
        match self {
            CheckpointFault::InUse => "wait for it to finish",
            _ => "delete it or run with --restart",
        }
    }
}

#[cfg(feature = "solve")]
/// The solve a checkpoint belongs to, in [`CheckpointFault::OtherSolve`].
fn other_solve(found: &Option<String>) -> String {
    match found {
        Some(spec) => format!("a solve of {}", Error::quote(spec)),
        None => "another solve".into(),
    }
}

#[cfg(feature = "solve")]
/// `'path': ` in front of a message about a file, or nothing when there
/// is no file.
fn file_prefix(path: &std::path::Path) -> String {
    if path.as_os_str().is_empty() {
        String::new()
    } else {
        format!("{}: ", Error::quote_path(path))
    }
}

/// [`Error::MemoryUnavailable`]'s message.
fn memory_message(memory: u64, load: Option<(u64, u64)>, available: u64) -> String {
    use crate::units::{human_bytes, thousands};
    match load {
        None => format!(
            "--memory {} is more than this machine has available ({})",
            human_bytes(memory),
            human_bytes(available)
        ),
        Some((entries, needed)) => format!(
            "loading {} entries needs about {} with the search's {}; this machine has {} available",
            thousands(entries),
            human_bytes(needed),
            human_bytes(memory),
            human_bytes(available)
        ),
    }
}

/// Characters of user input an error message quotes before cutting it short.
pub const QUOTE_CHARS: usize = 60;

/// Characters of a free-text part of a message (a reason, a path, a spec)
/// kept before cutting it short. Reasons are the library's own sentences and
/// stay well under this; what makes one longer is user input pasted into it.
pub const CLIP_CHARS: usize = 400;

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

    /// User input quoted for an error message: `'text'`, at most
    /// `QUOTE_CHARS` (60) characters of it then `…' (N bytes)`, control and
    /// bidirectional-formatting characters escaped (`\u{1b}`). A 10 MB
    /// position gives a one-line message, and input cannot move the cursor,
    /// recolour the terminal or reorder the line it is shown in.
    pub fn quote(input: &str) -> String {
        let (shown, cut) = escape_prefix(input, QUOTE_CHARS);
        if cut {
            format!("'{shown}…' ({} bytes)", input.len())
        } else {
            format!("'{shown}'")
        }
    }

    /// A path quoted for a message the way [`Error::quote`] quotes text (a
    /// name that is not UTF-8 shows U+FFFD where its bad bytes are). Every
    /// path a message names goes through here, so a 4,000-byte path or one
    /// holding an escape sequence gives the same one-line message as a short
    /// one.
    pub fn quote_path(path: &std::path::Path) -> String {
        Error::quote(&path.to_string_lossy())
    }

    /// One or two paths quoted for a message: `'a'` or `'a' and 'b'`.
    pub fn quote_paths(paths: &[PathBuf]) -> String {
        let quoted: Vec<String> = paths.iter().map(|p| Error::quote_path(p)).collect();
        quoted.join(" and ")
    }

    /// A free-text part of a message with control characters escaped and
    /// cut after `CLIP_CHARS` (400) characters (marked `…`): the sentences the
    /// games build quote tokens of the input, which may be long or hostile.
    pub fn clip(text: &str) -> String {
        let (shown, cut) = escape_prefix(text, CLIP_CHARS);
        if cut {
            format!("{shown}…")
        } else {
            shown
        }
    }
}

/// What a file is, for messages that refuse anything but a regular file
/// ("is a FIFO (named pipe), not ..."): the reader, pattern files and the
/// solver's outputs and checkpoints all say it the same way.
pub(crate) fn file_kind(t: &std::fs::FileType) -> &'static str {
    if t.is_file() {
        return "a regular file";
    }
    if t.is_dir() {
        return "a directory";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// The first `max` characters of `s` with unsafe characters escaped, and
/// whether any were left out. Touches at most `max + 1` characters, so a
/// huge input costs nothing.
fn escape_prefix(s: &str, max: usize) -> (String, bool) {
    let mut out = String::new();
    let mut chars = s.chars();
    for c in chars.by_ref().take(max) {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    (out, chars.next().is_some())
}

/// Characters a terminal acts on rather than shows: C0/C1 controls (escape
/// sequences, carriage return, line breaks) and the invisible formatting
/// characters that reorder or hide text (bidi overrides, zero-width marks).
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_is_cut_and_counted() {
        let input = "x".repeat(10_000_000);
        let e = Error::BadPosition {
            input: input.clone(),
            reason: format!("unexpected '{input}'"),
        };
        let text = e.to_string();
        assert!(text.len() < 600, "{} bytes", text.len());
        assert!(text.starts_with(&format!(
            "bad position '{}…' (10000000 bytes): ",
            "x".repeat(60)
        )));
        assert_eq!(
            Error::quote("x".repeat(60).as_str()),
            format!("'{}'", "x".repeat(60))
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        let e = Error::BadGame {
            spec: "a\u{1b}[31mb\nc\u{202e}".into(),
            reason: "unexpected '\u{7}'\r".into(),
        };
        assert_eq!(
            e.to_string(),
            "bad game 'a\\u{1b}[31mb\\nc\\u{202e}': unexpected '\\u{7}'\\r"
        );
        // Ordinary text, accents included, is untouched.
        assert_eq!(Error::quote("misère 4x4"), "'misère 4x4'");
        // Paths the same way, a name that is not UTF-8 included.
        let long = format!("{}\u{1b}[31m.rtb", "d/".repeat(40));
        assert_eq!(
            Error::quote_path(std::path::Path::new(&long)),
            format!("'{}…' (89 bytes)", "d/".repeat(30))
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bad = std::ffi::OsStr::from_bytes(b"t\xff\x07.rtb");
            assert_eq!(
                Error::quote_path(std::path::Path::new(bad)),
                "'t\u{fffd}\\u{7}.rtb'"
            );
        }
    }
}
