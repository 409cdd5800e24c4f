//! Reading one proof database: [`Database::open`] reads and checks the
//! header and the entry count against the file's size before any entry,
//! [`Database::read`] streams the entries through the CRC (`CrcReader`: no
//! copy of the file in memory) and returns none unless the CRC matches and
//! every key is its position's. [`header_of`] names a file's game without
//! one.

use super::{fault, possible, Fact, Kind, Record, Records, FIXED_HEAD, MAGIC, VERSION};
use crate::error::ProofFault;
use crate::format::CrcReader;
use crate::search::{Bounds, Key, SearchGame};
use crate::Error;
use byteorder::{ByteOrder, LittleEndian};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Reads a proof database of `game` (`Database::open`, then
/// `Database::read`). Its entries are not yet re-proven: [`merge`](super::merge) checks
/// them against each other, and a search re-proves them before it uses them
/// ([`run`](crate::search::run::run), [`check`](crate::search::run::check)).
pub fn load<G: SearchGame>(game: &G, path: &Path) -> crate::Result<(Kind, Records<G>)> {
    let db = Database::open(game, path)?;
    let kind = db.kind();
    Ok((kind, db.read(game)?))
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
