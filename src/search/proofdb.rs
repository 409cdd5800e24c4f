//! Proof databases: what a search proved, kept in a file so that a later
//! search resumes from it (`search --load`) and a check can re-prove it
//! (`search --check`). docs/FORMAT.md describes the bytes:
//!
//! ```text
//! magic "RTBPROOF" | version u16 | kind u8 (0 values, 1 nimbers) | key bytes u16
//! spec length u16 | spec (UTF-8) | entry count u64
//! entries: key | fact (values: lo, hi as i8 each; nimbers: u32) | position length u16 | position
//! CRC-32 of every byte before it
//! ```
//!
//! Each entry keeps a representative position in the game's notation as
//! well as its key: loading re-derives the key from the position (a
//! mismatch refuses the file).
//!
//! A file is never believed: reading checks the header and the entry count
//! against the file's size before reading on, streams the rest through the
//! CRC (`CrcReader`: no copy of the file in memory) and uses no entry
//! unless the CRC matches. Databases loaded together are merged key by key,
//! and facts that contradict each other refuse the load, naming the
//! position and both files ([`merge`]). Every loaded entry is then
//! re-proven from its children before a search may use it
//! (`verify_values`, `verify_nimbers`): a CRC only says the bytes are
//! the ones written, not that what was written is true.
//!
//! Saving (`SaveTarget`) follows the protocol of every file the program
//! writes: the output is checked, locked and given its temporary file
//! (created exclusively under an unpredictable name) before the search
//! starts, so a long search is not lost to a bad output at its end; the
//! database is written through the temporary file's `CountingWriter`
//! (`TempFile::write`), which computes the CRC on the way, then synced
//! and renamed into place.
//!
//! Errors are [`Error::ProofDatabase`] (the file and a [`ProofFault`]),
//! [`Error::ContradictingProofs`] and [`Error::RefutedProof`].

use super::{Bounds, Key, SearchGame};
use crate::error::ProofFault;
use crate::format::{CountingWriter, CrcReader, TempFile};
use crate::solve::memory_available;
use crate::solve::output::{check_output, OutputLock};
use crate::Error;
use byteorder::{ByteOrder, LittleEndian};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"RTBPROOF";
const VERSION: u16 = 1;
/// Magic, version, kind, key bytes and spec length: what precedes the spec.
const FIXED_HEAD: usize = 8 + 2 + 1 + 2 + 2;

/// What the entries hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bounds on a position's value for the player to move.
    Values,
    /// A component's nimber.
    Nimbers,
}

impl Kind {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Values => "values",
            Kind::Nimbers => "nimbers",
        }
    }

    /// Bytes of one entry's fact.
    fn fact_bytes(self) -> u64 {
        match self {
            Kind::Values => 2,
            Kind::Nimbers => 4,
        }
    }
}

/// What is known about one stored position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fact {
    /// Bounds on the value.
    Value(Bounds),
    /// The nimber.
    Nimber(u32),
}

/// One stored position.
#[derive(Clone, Debug)]
pub struct Record<P, K> {
    /// Its key.
    pub key: K,
    /// What was proven.
    pub fact: Fact,
    /// A representative position.
    pub pos: P,
}

impl<P: Clone, K: Copy> Record<P, K> {
    /// The record's key and position with `fact`.
    pub fn with_fact(&self, fact: Fact) -> Record<P, K> {
        Record {
            key: self.key,
            fact,
            pos: self.pos.clone(),
        }
    }
}

/// The records of a game's database.
pub type Records<G> = Vec<Record<<G as SearchGame>::Pos, <G as SearchGame>::Key>>;

/// One entry as [`write`] takes it: a [`Record`], which holds its
/// position, or a key and its fact, whose position the game makes from the
/// key ([`SearchGame::position_of_key`]) as the entry is written — what a
/// search saves, so that a save holds 34 bytes per position of a 64-square
/// game until it is written, not a position besides. Keys whose game cannot
/// turn them back into a position are left out before writing
/// ([`nameable`]).
pub trait Written<G: SearchGame> {
    /// The key.
    fn key(&self) -> &G::Key;
    /// What is known.
    fn fact(&self) -> Fact;
    /// The position, in the game's notation.
    fn position(&self, game: &G) -> String;
}

impl<G: SearchGame> Written<G> for Record<G::Pos, G::Key> {
    fn key(&self) -> &G::Key {
        &self.key
    }
    fn fact(&self) -> Fact {
        self.fact
    }
    fn position(&self, game: &G) -> String {
        game.format_position(&self.pos)
    }
}

impl<G: SearchGame> Written<G> for (G::Key, Fact) {
    fn key(&self) -> &G::Key {
        &self.0
    }
    fn fact(&self) -> Fact {
        self.1
    }
    fn position(&self, game: &G) -> String {
        match game.position_of_key(&self.0) {
            Some(p) => game.format_position(&p),
            // `nameable` leaves such keys out first; an empty position
            // would be refused on reading, never misread.
            None => String::new(),
        }
    }
}

/// Keeps the facts whose key the game can turn back into a position (the
/// others cannot be written).
pub fn nameable<G: SearchGame>(game: &G, facts: &mut Vec<(G::Key, Fact)>) {
    facts.retain(|(k, _)| game.position_of_key(k).is_some());
}

/// A fault of the file at `path`.
fn fault(path: &Path, fault: ProofFault) -> Error {
    Error::ProofDatabase {
        path: path.to_path_buf(),
        fault,
    }
}

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

/// Reads a proof database of `game` (`Database::open`, then
/// `Database::read`). Its entries are not yet re-proven: [`merge`] checks
/// them against each other, and a search re-proves them before it uses them
/// ([`run`](super::run::run), [`check`](super::run::check)).
pub fn load<G: SearchGame>(game: &G, path: &Path) -> crate::Result<(Kind, Records<G>)> {
    let db = Database::open(game, path)?;
    let kind = db.kind();
    Ok((kind, db.read(game)?))
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

/// A proof database opened for reading: its header read and checked, the
/// entries not yet read.
pub(crate) struct Database {
    path: PathBuf,
    input: Input,
    kind: Kind,
    key_bytes: usize,
    count: u64,
}

/// Memory one loaded entry takes, roughly: the record, its place in the
/// merge's index and in the search's memory of known positions. What a load
/// is refused for before reading when the machine lacks it.
pub(crate) fn memory_per_entry<G: SearchGame>() -> u64 {
    (std::mem::size_of::<Record<G::Pos, G::Key>>()
        + 2 * (std::mem::size_of::<G::Key>() + 16)
        + std::mem::size_of::<(u32, u32)>()
        + 16) as u64
}

/// Opens `path` for reading if it is a regular file: a FIFO is opened
/// without blocking and then refused with the other kinds of file.
fn open_regular(path: &Path) -> crate::Result<(std::fs::File, std::fs::Metadata)> {
    let shown = Error::quote_path(path);
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        // A FIFO would block the open; it is refused below instead.
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    let file = o.open(path).map_err(|e| Error::io(shown.clone(), e))?;
    let meta = file.metadata().map_err(|e| Error::io(shown.clone(), e))?;
    if !meta.is_file() {
        return Err(fault(
            path,
            ProofFault::NotAFile {
                kind: crate::error::file_kind(&meta.file_type()),
            },
        ));
    }
    Ok((file, meta))
}

/// The game spec and the kind a proof database's header names, read without
/// a game (to choose the game: `retrograde proofdb merge`). Only the header
/// is read; [`Database::open`] then checks the rest against the game.
pub fn header_of(path: &Path) -> crate::Result<(String, Kind)> {
    let bad = |f: ProofFault| fault(path, f);
    let (file, meta) = open_regular(path)?;
    let mut head = [0u8; FIXED_HEAD];
    let mut r = BufReader::new(file);
    if meta.len() < (FIXED_HEAD + 8 + 4) as u64 || r.read_exact(&mut head).is_err() {
        return Err(bad(ProofFault::NoHeader));
    }
    if &head[..8] != MAGIC {
        return Err(bad(ProofFault::NoHeader));
    }
    let version = LittleEndian::read_u16(&head[8..]);
    if version != VERSION {
        return Err(bad(ProofFault::Version {
            found: version,
            supported: VERSION,
        }));
    }
    let kind = match head[10] {
        0 => Kind::Values,
        1 => Kind::Nimbers,
        k => return Err(bad(ProofFault::UnknownKind(k))),
    };
    let spec_len = LittleEndian::read_u16(&head[13..]) as usize;
    let mut spec = vec![0u8; spec_len];
    if FIXED_HEAD as u64 + spec_len as u64 + 12 > meta.len() || r.read_exact(&mut spec).is_err() {
        return Err(bad(ProofFault::Truncated));
    }
    let spec = String::from_utf8(spec).map_err(|_| bad(ProofFault::SpecNotText))?;
    Ok((spec, kind))
}

impl Database {
    /// Opens a proof database of `game`: only its header and size are read.
    /// A file that is not a regular file, has no database header, is of
    /// another game or format version, or claims more entries than its size
    /// can hold is refused here, before any entry is read.
    pub fn open<G: SearchGame>(game: &G, path: &Path) -> crate::Result<Database> {
        let bad = |f: ProofFault| fault(path, f);
        let (file, meta) = open_regular(path)?;
        let size = meta.len();
        if size < (FIXED_HEAD + 8 + 4) as u64 {
            return Err(bad(ProofFault::NoHeader));
        }
        let mut input = Input {
            r: CrcReader::new(BufReader::with_capacity(1 << 20, file)),
            left: size - 4,
            buf: Vec::new(),
        };
        let head = input.take(FIXED_HEAD).map_err(|e| e.at(path))?;
        if &head[..8] != MAGIC {
            return Err(bad(ProofFault::NoHeader));
        }
        let version = LittleEndian::read_u16(&head[8..]);
        if version != VERSION {
            return Err(bad(ProofFault::Version {
                found: version,
                supported: VERSION,
            }));
        }
        let kind = match head[10] {
            0 => Kind::Values,
            1 => Kind::Nimbers,
            k => return Err(bad(ProofFault::UnknownKind(k))),
        };
        let key_bytes = LittleEndian::read_u16(&head[11..]);
        let spec_len = LittleEndian::read_u16(&head[13..]) as usize;
        if usize::from(key_bytes) != G::Key::BYTES {
            return Err(bad(ProofFault::KeyWidth {
                found: key_bytes,
                expected: G::Key::BYTES as u16,
            }));
        }
        let spec = std::str::from_utf8(input.take(spec_len).map_err(|e| e.at(path))?)
            .map_err(|_| bad(ProofFault::SpecNotText))?
            .to_string();
        if spec != game.spec() {
            return Err(bad(ProofFault::OtherGame {
                found: spec,
                expected: game.spec(),
            }));
        }
        let count = LittleEndian::read_u64(input.take(8).map_err(|e| e.at(path))?);
        // Each entry takes at least its key, its fact and a length, and at
        // most a position of u16::MAX bytes more: a count out of these
        // bounds is refused before anything else is read.
        let least = u64::from(key_bytes) + kind.fact_bytes() + 2;
        if count > input.left / least {
            return Err(bad(ProofFault::TooManyEntries { count, size }));
        }
        if input.left > count.saturating_mul(least + u64::from(u16::MAX)) {
            return Err(bad(ProofFault::TooFewEntries { count, size }));
        }
        Ok(Database {
            path: path.to_path_buf(),
            input,
            kind,
            key_bytes: usize::from(key_bytes),
            count,
        })
    }

    /// What the entries hold.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Entries the header announces (checked against the file's size).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads every entry, checking each key against its position, and the
    /// CRC over the whole file: nothing is returned unless all of it holds.
    /// The file is streamed; on a damaged entry the rest is still read
    /// through the CRC, so damage is reported as damage (a checksum
    /// mismatch), not as whatever the flipped byte happened to break.
    pub fn read<G: SearchGame>(mut self, game: &G) -> crate::Result<Records<G>> {
        let mut records = Vec::new();
        let mut broken = None;
        for _ in 0..self.count {
            match self.entry(game) {
                Ok(r) => records.push(r),
                Err(e) => {
                    broken = Some(e);
                    records = Vec::new();
                    break;
                }
            }
        }
        if broken.is_none() && self.input.left != 0 {
            broken = Some(ReadError::Fault(ProofFault::TrailingBytes));
        }
        let (stored, computed) = self.input.finish().map_err(|e| e.at(&self.path))?;
        if stored != computed {
            return Err(fault(&self.path, ProofFault::Checksum { stored, computed }));
        }
        match broken {
            Some(e) => Err(e.at(&self.path)),
            None => Ok(records),
        }
    }

    fn entry<G: SearchGame>(&mut self, game: &G) -> Result<Record<G::Pos, G::Key>, ReadError> {
        let input = &mut self.input;
        let key = G::Key::read(input.take(self.key_bytes)?);
        let fact = match self.kind {
            Kind::Values => {
                let f = input.take(2)?;
                let b = Bounds {
                    lo: f[0] as i8,
                    hi: f[1] as i8,
                };
                if !(-1..=1).contains(&b.lo) || !(-1..=1).contains(&b.hi) || !possible(b) {
                    return Err(ReadError::Fault(ProofFault::ImpossibleBounds));
                }
                Fact::Value(b)
            }
            Kind::Nimbers => Fact::Nimber(LittleEndian::read_u32(input.take(4)?)),
        };
        let len = LittleEndian::read_u16(input.take(2)?) as usize;
        let text = std::str::from_utf8(input.take(len)?)
            .map_err(|_| ReadError::Fault(ProofFault::PositionNotText))?;
        let pos = game.parse_position(text).map_err(|reason| {
            ReadError::Fault(ProofFault::BadPosition {
                position: text.to_string(),
                reason,
            })
        })?;
        if game.key(&pos) != key {
            return Err(ReadError::Fault(ProofFault::WrongKey {
                position: text.to_string(),
            }));
        }
        Ok(Record { key, fact, pos })
    }
}

/// Why reading a database failed: a fault of its bytes, or the input's.
enum ReadError {
    Fault(ProofFault),
    Io(std::io::Error),
}

impl ReadError {
    /// The error about the database at `path`.
    fn at(self, path: &Path) -> Error {
        match self {
            ReadError::Fault(f) => fault(path, f),
            ReadError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                fault(path, ProofFault::Shrank)
            }
            ReadError::Io(e) => Error::io(
                format!(
                    "{}: not a usable proof database: cannot read",
                    Error::quote_path(path)
                ),
                e,
            ),
        }
    }
}

/// The file's bytes before its stored CRC, read in order through the
/// `CrcReader`.
struct Input {
    r: CrcReader<BufReader<File>>,
    /// Bytes before the stored CRC not yet read.
    left: u64,
    buf: Vec<u8>,
}

impl Input {
    fn take(&mut self, n: usize) -> Result<&[u8], ReadError> {
        if n as u64 > self.left {
            return Err(ReadError::Fault(ProofFault::Truncated));
        }
        self.buf.resize(n, 0);
        self.r.read_exact(&mut self.buf).map_err(ReadError::Io)?;
        self.left -= n as u64;
        Ok(&self.buf)
    }

    /// Reads the rest through the CRC; the stored CRC and the computed one.
    fn finish(mut self) -> Result<(u32, u32), ReadError> {
        let rest = std::io::copy(&mut (&mut self.r).take(self.left), &mut std::io::sink())
            .map_err(ReadError::Io)?;
        if rest != self.left {
            return Err(ReadError::Fault(ProofFault::Shrank));
        }
        let mut stored = [0u8; 4];
        self.r
            .get_mut()
            .read_exact(&mut stored)
            .map_err(ReadError::Io)?;
        Ok((u32::from_le_bytes(stored), self.r.crc()))
    }
}

/// The entries of one or more databases of a game, one per key, each with
/// the files it came from.
pub struct Merged<G: SearchGame> {
    records: Records<G>,
    index: HashMap<G::Key, u32>,
    /// The first and the last file that gave each record (the same file
    /// for most).
    from: Vec<(u32, u32)>,
    files: Vec<PathBuf>,
}

impl<G: SearchGame> Merged<G> {
    /// The entries, one per position, to write as one database.
    pub fn into_records(self) -> Records<G> {
        self.records
    }

    /// Distinct positions.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The records, one per key (for a game that re-proves them its own
    /// way: Sprouts).
    pub fn records(&self) -> &[Record<G::Pos, G::Key>] {
        &self.records
    }

    /// The entries `report` left unchecked, as they were read: what a run
    /// stopped while re-proving carries into its saves.
    pub fn carried(&self, report: &CheckReport) -> Records<G> {
        report
            .left
            .iter()
            .map(|&i| self.records[i as usize].clone())
            .collect()
    }

    /// What the databases say about the position with `key`.
    pub fn fact(&self, key: &G::Key) -> Option<Fact> {
        self.index.get(key).map(|&i| self.records[i as usize].fact)
    }

    /// The files record `i` came from (one, or the first and the last).
    fn sources(&self, i: usize) -> Vec<PathBuf> {
        let (a, b) = self.from[i];
        let mut files = vec![self.files[a as usize].clone()];
        if a != b {
            files.push(self.files[b as usize].clone());
        }
        files
    }

    /// The error for record `i` that does not hold: `claim`, but `why`.
    pub(crate) fn refuted(&self, game: &G, i: usize, claim: String, why: String) -> Error {
        Error::RefutedProof {
            files: self.sources(i),
            position: game.format_position(&self.records[i].pos),
            claim,
            why,
        }
    }

    /// The error for record `i`, whose fact is of the other kind.
    fn other_kind(&self, i: usize, found: Kind, expected: Kind) -> Error {
        fault(
            &self.files[self.from[i].0 as usize],
            ProofFault::OtherKind {
                found: found.name(),
                expected: expected.name(),
            },
        )
    }
}

/// Merges databases read from `files` (in order) into one entry per key:
/// two files' bounds on one position are both true, so they are met; two
/// facts that cannot both be true (bounds that do not overlap, two
/// nimbers) refuse the whole load, naming the position and the two files,
/// rather than leave a search to stall on it or save it as impossible
/// bounds.
pub fn merge<G: SearchGame>(
    game: &G,
    parts: Vec<(PathBuf, Records<G>)>,
) -> crate::Result<Merged<G>> {
    let mut m = Merged {
        records: Vec::new(),
        index: HashMap::new(),
        from: Vec::new(),
        files: Vec::new(),
    };
    for (f, (path, records)) in parts.into_iter().enumerate() {
        let f = f as u32;
        m.files.push(path);
        for r in records {
            let Some(&i) = m.index.get(&r.key) else {
                m.index.insert(r.key, m.records.len() as u32);
                m.records.push(r);
                m.from.push((f, f));
                continue;
            };
            let i = i as usize;
            let met = match (m.records[i].fact, r.fact) {
                (Fact::Value(a), Fact::Value(b)) if possible(a.meet(b)) => {
                    Some(Fact::Value(a.meet(b)))
                }
                (Fact::Nimber(a), Fact::Nimber(b)) if a == b => Some(Fact::Nimber(a)),
                _ => None,
            };
            let Some(fact) = met else {
                return Err(Error::ContradictingProofs {
                    position: game.format_position(&r.pos),
                    first: m.files[m.from[i].0 as usize].clone(),
                    first_says: describe(m.records[i].fact),
                    second: m.files[f as usize].clone(),
                    second_says: describe(r.fact),
                });
            };
            m.records[i].fact = fact;
            m.from[i].1 = f;
        }
    }
    Ok(m)
}

/// The databases in `paths`, read and merged (see [`merge`]), all
/// of `want` if given, else of the first one's kind (a database of the other
/// kind is refused: its facts answer another question). Every header is
/// read before any entry, and a load the machine has no memory for beside
/// `memory` more (a search's table) is refused before it starts.
pub fn read<G: SearchGame>(
    g: &G,
    paths: &[PathBuf],
    want: Option<Kind>,
    memory: u64,
) -> crate::Result<(Kind, Merged<G>)> {
    let mut dbs = Vec::new();
    for path in paths {
        dbs.push(Database::open(g, path)?);
    }
    let kind = want
        .or(dbs.first().map(Database::kind))
        .unwrap_or(Kind::Values);
    let mut entries = 0u64;
    for db in &dbs {
        if db.kind() != kind {
            return Err(Error::ProofDatabase {
                path: db.path().to_path_buf(),
                fault: ProofFault::OtherKind {
                    found: db.kind().name(),
                    expected: kind.name(),
                },
            });
        }
        entries = entries.saturating_add(db.count());
    }
    let needed = entries.saturating_mul(memory_per_entry::<G>());
    if let Some(available) = memory_available() {
        if needed.saturating_add(memory) > available {
            return Err(Error::MemoryUnavailable {
                memory,
                load: Some((entries, needed)),
                available,
            });
        }
    }
    let mut parts = Vec::new();
    for db in dbs {
        let path = db.path().to_path_buf();
        parts.push((path, db.read(g)?));
    }
    Ok((kind, merge(g, parts)?))
}

/// What [`merge_files`] did.
#[derive(Clone, Debug)]
pub struct MergeReport {
    /// The game's canonical spec.
    pub game: String,
    /// Values or nimbers.
    pub kind: Kind,
    /// Each input and the entries it held.
    pub inputs: Vec<(PathBuf, u64)>,
    /// Distinct positions written.
    pub entries: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Merges the proof databases `inputs` of `game` into one at `output`, as
/// Glop merges its databases: key by key, two files' bounds on one
/// position met, and facts that cannot both hold (a win and a loss, two
/// nimbers) refused, naming the position and both files
/// ([`Error::ContradictingProofs`]), before anything is written. The output
/// is prepared first as a search's is ([`SaveTarget`]: never one of the
/// inputs, locked, written to a temporary file created exclusively and
/// renamed into place), so a refused merge leaves no file. The entries are
/// not re-proven here: `retrograde search GAME --check OUTPUT` does that.
pub fn merge_files<G: SearchGame>(
    game: &G,
    inputs: &[PathBuf],
    output: &Path,
) -> crate::Result<MergeReport> {
    let target = SaveTarget::prepare(output, inputs)?;
    let mut counts = Vec::new();
    for path in inputs {
        counts.push((path.clone(), Database::open(game, path)?.count()));
    }
    let (kind, merged) = read(game, inputs, None, 0)?;
    let mut records = merged.into_records();
    let bytes = target.save(game, kind, &mut records)?;
    Ok(MergeReport {
        game: game.spec(),
        kind,
        inputs: counts,
        entries: records.len(),
        bytes,
    })
}

/// Whether bounds leave some value possible.
fn possible(b: Bounds) -> bool {
    b.lo <= b.hi
}

/// A fact in words, for messages.
fn describe(f: Fact) -> String {
    match f {
        Fact::Nimber(n) => format!("nimber {n}"),
        Fact::Value(b) => match (b.lo, b.hi) {
            (1, 1) => "win".into(),
            (0, 0) => "tie".into(),
            (-1, -1) => "loss".into(),
            (0, 1) => "win or tie".into(),
            (-1, 0) => "tie or loss".into(),
            _ => "nothing".into(),
        },
    }
}

/// The result of re-proving a database's entries.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Entries re-proven from their children (those a search may use).
    pub checked: u64,
    /// Children not settled by an entry or the rules, proven by a new search
    /// (values), or components searched (nimbers).
    pub searched: u64,
    /// Entries not re-proven because the run was stopped (a limit, Ctrl-C)
    /// first: unused.
    pub unchecked: u64,
    /// Entries used without being re-proven (`trust_values`,
    /// `trust_nimbers`).
    pub trusted: u64,
    /// Which entries were left unchecked (their indices in the merged
    /// database, [`Merged::records`]): a run carries them into its saves as
    /// they were read ([`Merged::carried`]), so that a run stopped while
    /// re-proving its load loses nothing it was given.
    pub left: Vec<u32>,
}

/// The indices of the entries `done` does not mark.
fn left_of(done: &[bool]) -> Vec<u32> {
    (0..done.len() as u32)
        .filter(|&i| !done[i as usize])
        .collect()
}

/// What loading and re-proving a value database needs of an engine: one
/// question answered about a position, and the entries that hold handed
/// over. df-pn ([`super::dfpn::Dfpn`]) and alpha-beta
/// ([`super::alphabeta::AlphaBeta`]) both serve.
pub trait Decider<G: SearchGame> {
    /// Is the value of `p` for its mover at least `k` (1 win, 0 tie)?
    /// `None` if the engine was stopped first.
    fn decide(&mut self, p: &G::Pos, k: i8) -> Option<bool>;
    /// Bounds the engine may use from now on.
    fn add_known(&mut self, key: G::Key, bounds: Bounds);
}

impl<G: SearchGame> Decider<G> for super::dfpn::Dfpn<'_, G> {
    fn decide(&mut self, p: &G::Pos, k: i8) -> Option<bool> {
        super::dfpn::Dfpn::decide(self, p, k)
    }
    fn add_known(&mut self, key: G::Key, bounds: Bounds) {
        super::dfpn::Dfpn::add_known(self, key, bounds)
    }
}

/// Hands every entry to `search` as it is, without re-proving it: for a
/// caller who vouches for the files (`search --trust-load`). A wrong or
/// forged entry then gives wrong answers.
pub(crate) fn trust_values<G: SearchGame>(
    db: &Merged<G>,
    search: &mut impl Decider<G>,
) -> CheckReport {
    for r in &db.records {
        if let Fact::Value(b) = r.fact {
            search.add_known(r.key, b);
        }
    }
    CheckReport {
        trusted: db.len() as u64,
        ..CheckReport::default()
    }
}

/// [`trust_values`] for nimbers.
pub(crate) fn trust_nimbers<G: SearchGame>(
    db: &Merged<G>,
    search: &mut super::nimber::NimberSearch<'_, G>,
) -> CheckReport {
    for r in &db.records {
        if let Fact::Nimber(n) = r.fact {
            search.add_known(r.key, n, r.pos.clone());
        }
    }
    CheckReport {
        trusted: db.len() as u64,
        ..CheckReport::default()
    }
}

/// Re-proves every value entry from its children (Glop's "check
/// computation") and hands each one that holds to `search`, which may use
/// it from then on: a win has a losing child, a loss only winning children,
/// and so on for each bound. A child's value comes from the rules (game
/// over, an immediate win), from what the game knows without search
/// ([`SearchGame::decided`]: a dead board's tie, a win by continuous
/// threats), from an entry already re-proven, or from a new
/// search by `search`, which knows only re-proven entries. Entries are
/// visited children first, so a child's entry is re-proven before its
/// parent needs it and no search repeats what the file holds. Nothing is
/// assumed about the others, so whatever stops the pass (`stop`, a limit of
/// `search`) leaves only re-proven entries in use ([`CheckReport::unchecked`]
/// counts the rest).
///
/// An entry that does not hold refuses the whole database: the error names
/// the position, the files and what fails.
// A search's re-proving of what it loads (`run`), and the tests'
// (through `crate::internal`).
#[doc(hidden)]
pub fn verify_values<G: SearchGame>(
    game: &G,
    db: &Merged<G>,
    search: &mut impl Decider<G>,
    stop: &dyn Fn() -> bool,
) -> crate::Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut done = vec![false; db.len()];
    children_first(game, db, false, |node, proven| {
        if stop() {
            return Ok(false);
        }
        let (i, moves) = (node.at, &node.moves);
        let r = &db.records[i];
        let Fact::Value(b) = r.fact else {
            return Err(db.other_kind(i, Kind::Nimbers, Kind::Values));
        };
        let refuted = |why: String| db.refuted(game, i, describe(r.fact), why);
        if let Some(v) = game.terminal(&r.pos) {
            let s = super::score(v);
            if s < b.lo || s > b.hi {
                return Err(refuted(format!("the game is over with {v}")));
            }
        } else {
            // What the rules or a re-proven entry say of each child.
            let settled: Vec<Option<Bounds>> = moves
                .iter()
                .zip(&node.keys)
                .map(|((_, c), key)| {
                    if let Some(v) = game.terminal(c) {
                        Some(Bounds::exact(v))
                    } else if game.wins_now(c) {
                        Some(Bounds { lo: 1, hi: 1 })
                    } else if let Some(v) = game.decided(c) {
                        // What the game knows without search (a dead
                        // board's tie, a win by threats), as the search
                        // that saved the entry knew it: that child is the
                        // proof's, and searching the others first could
                        // take as long as a new proof.
                        Some(Bounds::exact(v))
                    } else {
                        match proven(key) {
                            Some(Fact::Value(b)) => Some(b),
                            _ => None,
                        }
                    }
                })
                .collect();
            // Does child `j` answer "at least k" with yes?
            let mut at_least = |j: usize, k: i8, report: &mut CheckReport| -> Option<bool> {
                if let Some(kb) = settled[j] {
                    if kb.lo >= k {
                        return Some(true);
                    }
                    if kb.hi < k {
                        return Some(false);
                    }
                }
                report.searched += 1;
                search.decide(&moves[j].1, k)
            };
            // "At least lo": some child answers no to "at least 1 − lo".
            // The children whose answer is known are tried first: searching
            // a child that is not the proof's could take as long as a new
            // proof.
            if b.lo > -1 {
                let k = 1 - b.lo;
                let mut found = settled.iter().any(|s| s.is_some_and(|kb| kb.hi < k));
                if !found {
                    for j in 0..moves.len() {
                        match at_least(j, k, &mut report) {
                            Some(false) => {
                                found = true;
                                break;
                            }
                            Some(true) => {}
                            None => return Ok(false),
                        }
                    }
                }
                if !found {
                    return Err(refuted("no move achieves it".into()));
                }
            }
            // "At most hi": every child answers yes to "at least −hi".
            if b.hi < 1 {
                for (j, (m, _)) in moves.iter().enumerate() {
                    match at_least(j, -b.hi, &mut report) {
                        Some(true) => {}
                        Some(false) => {
                            return Err(refuted(format!(
                                "move {} does better",
                                game.format_move(m)
                            )))
                        }
                        None => return Ok(false),
                    }
                }
            }
        }
        search.add_known(r.key, b);
        done[i] = true;
        report.checked += 1;
        Ok(true)
    })?;
    report.unchecked = db.len() as u64 - report.checked;
    if report.unchecked > 0 {
        report.left = left_of(&done);
    }
    Ok(report)
}

/// Re-proves every nimber entry as the mex of its children's nimbers, each
/// child the nim-sum of its components, each component's nimber from an
/// entry already re-proven or computed by `search` (which knows only
/// re-proven entries), and hands each entry that holds to `search`.
/// Components' entries are visited first. Stopping and refusal as in
/// [`verify_values`].
#[doc(hidden)]
pub fn verify_nimbers<G: SearchGame>(
    game: &G,
    db: &Merged<G>,
    search: &mut super::nimber::NimberSearch<'_, G>,
    stop: &dyn Fn() -> bool,
) -> crate::Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut done = vec![false; db.len()];
    let before = search.stats().nodes;
    children_first(game, db, true, |node, proven| {
        if stop() {
            return Ok(false);
        }
        let i = node.at;
        let r = &db.records[i];
        let Fact::Nimber(n) = r.fact else {
            return Err(db.other_kind(i, Kind::Values, Kind::Nimbers));
        };
        let mut seen = Vec::with_capacity(node.parts.len());
        for parts in &node.parts {
            let mut sum = 0;
            for (key, part) in parts {
                sum ^= if game.terminal(part).is_some() {
                    0
                } else if let Some(Fact::Nimber(m)) = proven(key) {
                    m
                } else {
                    match search.nimber(part) {
                        Some(m) => m,
                        None => return Ok(false),
                    }
                };
            }
            seen.push(sum);
        }
        let mex = crate::solve::mex(&mut seen);
        if mex != n {
            return Err(db.refuted(
                game,
                i,
                format!("nimber {n}"),
                format!("its moves give {mex}"),
            ));
        }
        search.add_known(r.key, n, r.pos.clone());
        done[i] = true;
        report.checked += 1;
        Ok(true)
    })?;
    report.searched = search.stats().nodes - before;
    report.unchecked = db.len() as u64 - report.checked;
    if report.unchecked > 0 {
        report.left = left_of(&done);
    }
    Ok(report)
}

/// A record on the walk of [`children_first`]: its moves and, computed once
/// (a key costs a pass over the game's symmetries), what its children are.
struct Node<G: SearchGame> {
    /// The record's index.
    at: usize,
    /// Its moves (none if the game is over).
    moves: Vec<(G::Move, G::Pos)>,
    /// Values: each child's key.
    keys: Vec<G::Key>,
    /// Nimbers: each child's components, with their keys.
    parts: Vec<Vec<(G::Key, G::Pos)>>,
    /// The records among those children (or components).
    below: Vec<u32>,
    next: usize,
}

/// Visits every record of `db` after the records of its children (for
/// nimbers: of its children's components) that are in `db` too, by a
/// depth-first walk on an explicit stack (a long game does not deepen the
/// call stack). `visit` gets the record's [`Node`] and what the records
/// visited so far say of a key (`None` for one not yet visited); it returns
/// whether to go on. Returns whether every record was visited.
fn children_first<G: SearchGame>(
    game: &G,
    db: &Merged<G>,
    nimbers: bool,
    mut visit: impl FnMut(&Node<G>, &dyn Fn(&G::Key) -> Option<Fact>) -> crate::Result<bool>,
) -> crate::Result<bool> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let node = |at: usize| {
        let pos = &db.records[at].pos;
        let moves = if game.terminal(pos).is_some() {
            Vec::new()
        } else {
            game.moves(pos)
        };
        let mut n = Node {
            at,
            moves: Vec::new(),
            keys: Vec::new(),
            parts: Vec::new(),
            below: Vec::new(),
            next: 0,
        };
        for (_, c) in &moves {
            if nimbers {
                let parts: Vec<_> = game
                    .components(c)
                    .into_iter()
                    .map(|p| (game.key(&p), p))
                    .collect();
                n.below
                    .extend(parts.iter().filter_map(|(k, _)| db.index.get(k)));
                n.parts.push(parts);
            } else {
                let key = game.key(c);
                n.below.extend(db.index.get(&key));
                n.keys.push(key);
            }
        }
        n.moves = moves;
        n
    };
    let mut state = vec![NEW; db.records.len()];
    let mut stack = Vec::new();
    for root in 0..db.records.len() {
        if state[root] != NEW {
            continue;
        }
        state[root] = OPEN;
        stack.push(node(root));
        while let Some(top) = stack.last_mut() {
            if let Some(&j) = top.below.get(top.next) {
                top.next += 1;
                if state[j as usize] == NEW {
                    state[j as usize] = OPEN;
                    stack.push(node(j as usize));
                }
                continue;
            }
            let n = stack.pop().expect("a node on the stack");
            let proven = |k: &G::Key| -> Option<Fact> {
                let &j = db.index.get(k)?;
                (state[j as usize] == DONE).then(|| db.records[j as usize].fact)
            };
            if !visit(&n, &proven)? {
                return Ok(false);
            }
            state[n.at] = DONE;
        }
    }
    Ok(true)
}
