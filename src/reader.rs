//! The reader: open a tablebase, check it, probe it. No solver dependencies.
//!
//! [`Tablebase::open`] checks the header (magic, version, lengths, header
//! CRC, the game's spec and index size) without scanning the data;
//! [`Tablebase::verify`] checks the data CRC. A probe reads one cell.
//!
//! Where the bytes live is a [`Storage`]: by default a [`FileStorage`] that
//! reads each cell with a positioned read, so a file truncated or rewritten
//! while open gives an `Err`, never a crash of the host program; or anything
//! holding the bytes in memory (`Vec<u8>`, `&[u8]`, a memory map from
//! [`Tablebase::open_mmap`]), which probes by indexing a slice.

use crate::error::{Error, Result};
use crate::format::{Header, MAX_HEADER};
use crate::game::Game;
use crate::games::AnyGame;
use crate::value::{CellCodec, Outcome};

use std::fs::{File, FileType};
use std::io;
use std::path::Path;

/// The bytes of a tablebase, read by offset.
///
/// Anything that is `AsRef<[u8]>` (`Vec<u8>`, `&[u8]`, `memmap2::Mmap`) is a
/// storage held in memory; [`FileStorage`] reads an open file.
pub trait Storage {
    /// The size in bytes now (for a file, as the file system reports it now,
    /// which is how [`Tablebase::verify`] sees a file that changed length).
    fn size(&self) -> io::Result<u64>;

    /// Fills `buf` with the bytes at `offset`. A storage that has become too
    /// short (a file truncated while open) fails with
    /// [`io::ErrorKind::UnexpectedEof`].
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// All the bytes, when they are in memory: probes then index this slice
    /// instead of calling [`Storage::read_at`], which keeps a probe of an
    /// in-memory or mapped table at a few nanoseconds.
    fn as_bytes(&self) -> Option<&[u8]> {
        None
    }
}

impl<T: AsRef<[u8]>> Storage for T {
    #[inline]
    fn size(&self) -> io::Result<u64> {
        Ok(self.as_ref().len() as u64)
    }

    #[inline]
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let bytes = self.as_ref();
        let src = usize::try_from(offset)
            .ok()
            .and_then(|at| bytes.get(at..)?.get(..buf.len()))
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self.as_ref())
    }
}

/// A tablebase file read with positioned reads (`pread` on Unix): the
/// default storage of [`Tablebase::open`].
///
/// Each probe is a system call (a few hundred nanoseconds when the page is
/// cached, against a few nanoseconds for a memory map), and in exchange the
/// file may shrink, grow or be rewritten under the reader without harm to
/// the process: a read past the new end is an [`Error::FileChanged`], and an
/// I/O error of the disk is an [`Error::Io`], where a memory map would raise
/// SIGBUS and kill the host program.
#[derive(Debug)]
pub struct FileStorage {
    #[cfg(any(unix, windows))]
    file: File,
    // No positioned read on this platform: a seek and a read, one thread at a time.
    #[cfg(not(any(unix, windows)))]
    file: std::sync::Mutex<File>,
}

impl FileStorage {
    /// Opens `path` for reading once it is known to be a regular file of
    /// non-zero size: a directory, FIFO, device or socket is refused by name,
    /// and a FIFO is never opened (opening one for reading blocks until a
    /// writer comes).
    pub fn open(path: impl AsRef<Path>) -> Result<FileStorage> {
        let file = open_regular(path.as_ref())?;
        #[cfg(not(any(unix, windows)))]
        let file = std::sync::Mutex::new(file);
        Ok(FileStorage { file })
    }

    #[cfg(any(unix, windows))]
    fn file(&self) -> &File {
        &self.file
    }

    #[cfg(not(any(unix, windows)))]
    fn file(&self) -> std::sync::MutexGuard<'_, File> {
        self.file.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `posix_fadvise` where the platform has it; elsewhere advice is a no-op.
    fn advise(&self, _advice: Advice) -> io::Result<()> {
        #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
        {
            use std::os::unix::io::AsRawFd;
            let advice = match _advice {
                Advice::Random => libc::POSIX_FADV_RANDOM,
                Advice::WillNeed => libc::POSIX_FADV_WILLNEED,
            };
            // Safety: a valid open descriptor; offset 0 and length 0 mean
            // the whole file. posix_fadvise returns the error number.
            let rc = unsafe { libc::posix_fadvise(self.file.as_raw_fd(), 0, 0, advice) };
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Advice {
    Random,
    WillNeed,
}

impl Storage for FileStorage {
    fn size(&self) -> io::Result<u64> {
        Ok(self.file().metadata()?.len())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.read_exact_at(buf, offset)
        }
        #[cfg(windows)]
        {
            use std::os::windows::fs::FileExt;
            let (mut buf, mut offset) = (buf, offset);
            while !buf.is_empty() {
                match self.file.seek_read(buf, offset) {
                    Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                    Ok(n) => {
                        buf = &mut buf[n..];
                        offset += n as u64;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        }
        #[cfg(not(any(unix, windows)))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut file = self.file();
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(buf)
        }
    }
}

/// What a path is when it is not a regular file; `None` for a regular file.
fn special_kind(t: FileType) -> Option<Error> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some(Error::IsDirectory);
    }
    Some(Error::NotAFile {
        kind: crate::error::file_kind(&t),
    })
}

/// Opens a regular file of non-zero size for reading.
fn open_regular(path: &Path) -> Result<File> {
    let shown = path.display();
    let cannot = |e| Error::io(format!("cannot open {shown}"), e);
    // Looked at before opening: opening a FIFO for reading would block
    // until a writer comes, and a terminal could become ours.
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if let Some(e) = special_kind(meta.file_type()) {
        return Err(e);
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // If the path is swapped for a FIFO or a terminal between the check and
    // the open, O_NONBLOCK keeps the open from blocking and O_NOCTTY keeps
    // the terminal from becoming ours; the fstat below then refuses it.
    // Regular files ignore O_NONBLOCK, so positioned reads are unaffected.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if let Some(e) = special_kind(meta.file_type()) {
        return Err(e);
    }
    // A regular file of size 0 is empty, or a special file that does not
    // know its size (/proc, /sys): either way not a tablebase.
    if meta.len() == 0 {
        return Err(Error::Empty);
    }
    Ok(file)
}

/// The error for a failed read of `len` bytes at `offset`.
fn read_error(offset: u64, len: usize, e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        Error::FileChanged { offset, len }
    } else {
        Error::io(
            format!("cannot read {len} bytes at offset {offset} of the tablebase"),
            e,
        )
    }
}

/// An open tablebase over a [`Storage`]: by default a file read with
/// positioned reads ([`Tablebase::open`]); a memory map
/// ([`Tablebase::open_mmap`]); or bytes in memory, such as a `Vec<u8>` in
/// tests ([`Tablebase::from_bytes`]).
pub struct Tablebase<D = FileStorage> {
    data: D,
    header: Header,
    game: AnyGame,
    codec: CellCodec,
}

impl Tablebase<FileStorage> {
    /// Opens and checks a tablebase file (header only; see
    /// [`Tablebase::verify`] for the data).
    ///
    /// `open` checks, and refuses with an [`Error`] naming what is wrong:
    /// that the path is a regular file (not a directory, FIFO, device or
    /// socket) of non-zero size; the magic bytes; the format version; the
    /// header's length and its CRC; that the header is consistent (known
    /// flags, cell width and encoding, a page-aligned data offset, value
    /// counts adding up to the entries); that the file's length is exactly
    /// the header's plus the entries' cells; and that the game spec parses,
    /// is canonical, and has the file's index scheme, folding and number of
    /// entries. It does not read the data: a damaged cell behind an intact
    /// header is found by [`Tablebase::verify`] (or
    /// [`Tablebase::open_verified`]), not here.
    ///
    /// Probes read the file with positioned reads, so the file may be
    /// truncated or rewritten while open: a probe past its new end returns
    /// [`Error::FileChanged`], never crashes the process. A file rewritten in
    /// place with other bytes of the same length answers from the new bytes;
    /// only [`Tablebase::verify`] can tell.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Tablebase::from_storage(FileStorage::open(path)?)
    }

    /// [`Tablebase::open`], then [`Tablebase::verify`]: the data CRC is
    /// checked before the first answer (one pass over the file).
    pub fn open_verified(path: impl AsRef<Path>) -> Result<Self> {
        let tb = Tablebase::open(path)?;
        tb.verify()?;
        Ok(tb)
    }

    /// Tells the kernel that probes will be random (no read-ahead around
    /// each read), where the platform has `posix_fadvise`; elsewhere a no-op.
    pub fn advise_random(&self) -> Result<()> {
        self.data
            .advise(Advice::Random)
            .map_err(|e| Error::io("cannot advise the kernel about the file", e))
    }

    /// Asks the kernel to read the whole file into the page cache now, where
    /// the platform has `posix_fadvise`; elsewhere a no-op.
    pub fn advise_willneed(&self) -> Result<()> {
        self.data
            .advise(Advice::WillNeed)
            .map_err(|e| Error::io("cannot advise the kernel about the file", e))
    }
}

/// Maps a checked regular file.
pub(crate) fn map_file(path: &Path) -> Result<memmap2::Mmap> {
    let file = open_regular(path)?;
    crate::mmap::map_read(&file).map_err(|e| Error::io(format!("cannot map {}", path.display()), e))
}

impl Tablebase<memmap2::Mmap> {
    /// Opens and checks a tablebase file like [`Tablebase::open`], but
    /// memory-maps it: a probe is a slice index (a few nanoseconds, against
    /// a system call for `open`), and whole-table work such as
    /// [`Tablebase::data`] becomes possible.
    ///
    /// # Hazard
    ///
    /// The map is memory the process does not own. If another process
    /// truncates the file while it is mapped, the next probe of a page past
    /// the new end raises SIGBUS and kills the whole process (Rust, C or
    /// Python host alike); a disk I/O error does the same, and a file
    /// rewritten in place changes the answers under the reader. Use it only
    /// for files nothing modifies in place (the generator never does: it
    /// writes a new file and renames it over the old). The command line maps
    /// files for the batch commands (`verify`, `analyze`, `compare`) only.
    pub fn open_mmap(path: impl AsRef<Path>) -> Result<Self> {
        Tablebase::from_bytes(map_file(path.as_ref())?)
    }

    /// Tells the kernel that probes will be random: no read-ahead around
    /// each faulted page, so a cold probe reads one page instead of a run of
    /// them. Best for scattered probes of a file larger than memory; leave it
    /// off for scans (`verify`, `analyze`), which gain from read-ahead.
    pub fn advise_random(&self) -> Result<()> {
        #[cfg(unix)]
        self.data
            .advise(memmap2::Advice::Random)
            .map_err(|e| Error::io("cannot advise the kernel about the mapping", e))?;
        Ok(())
    }

    /// Asks the kernel to read the whole file into the page cache now, so
    /// later probes never wait for the disk (a warm file).
    pub fn advise_willneed(&self) -> Result<()> {
        #[cfg(unix)]
        self.data
            .advise(memmap2::Advice::WillNeed)
            .map_err(|e| Error::io("cannot advise the kernel about the mapping", e))?;
        Ok(())
    }
}

impl<D: AsRef<[u8]>> Tablebase<D> {
    /// Checks the header of a whole tablebase image held in `data`.
    pub fn from_bytes(data: D) -> Result<Self> {
        Tablebase::from_storage(data)
    }

    /// The data bytes (cells), without the header.
    pub fn data(&self) -> &[u8] {
        &self.data.as_ref()[self.header.data_offset as usize..]
    }
}

impl<D: Storage> Tablebase<D> {
    /// Checks the header of the tablebase in `data` (see
    /// [`Tablebase::open`] for what is checked).
    pub fn from_storage(data: D) -> Result<Self> {
        let size = data
            .size()
            .map_err(|e| Error::io("cannot read the tablebase's size", e))?;
        let header = match data.as_bytes() {
            Some(bytes) => Header::decode(bytes, size)?,
            None => {
                // No header is longer than MAX_HEADER, so this prefix decodes
                // exactly as the whole file would.
                let mut head = vec![0; size.min(MAX_HEADER as u64) as usize];
                data.read_at(0, &mut head)
                    .map_err(|e| read_error(0, head.len(), e))?;
                Header::decode(&head, size)?
            }
        };
        Tablebase::checked(data, header)
    }

    fn checked(data: D, header: Header) -> Result<Self> {
        // A header names its rules inline; a `pattern:PATH` spec would make
        // opening a table read another file, so it is refused unread.
        if header.spec.starts_with("pattern:") && !header.spec.contains(":lines=") {
            return Err(Error::CorruptHeader(format!(
                "game spec '{}' names a pattern file instead of the rules",
                header.spec
            )));
        }
        let mut game = AnyGame::parse(&header.spec).map_err(|e| {
            Error::CorruptHeader(format!("game spec '{}' is not usable: {e}", header.spec))
        })?;
        if header.flags & crate::format::FLAG_FOLDED != 0 {
            game = game.folded().map_err(|e| Error::GameMismatch {
                spec: header.spec.clone(),
                reason: format!("is marked symmetry-folded, but {e}"),
            })?;
        }
        if game.spec() != header.spec {
            return Err(Error::GameMismatch {
                spec: header.spec.clone(),
                reason: format!("is not in canonical form ({})", game.spec()),
            });
        }
        if game.index_scheme() != header.index_scheme {
            return Err(Error::GameMismatch {
                spec: header.spec.clone(),
                reason: format!(
                    "uses index scheme {}, but this build has scheme {}",
                    header.index_scheme,
                    game.index_scheme()
                ),
            });
        }
        if game.size() != header.entries {
            return Err(Error::GameMismatch {
                spec: header.spec.clone(),
                reason: format!(
                    "has {} positions, but the file holds {} entries",
                    game.size(),
                    header.entries
                ),
            });
        }
        let codec = header.codec();
        Ok(Tablebase {
            data,
            header,
            game,
            codec,
        })
    }

    /// The storage.
    pub fn storage(&self) -> &D {
        &self.data
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The game this tablebase solves.
    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    /// The cell codec (width and layout).
    pub fn codec(&self) -> CellCodec {
        self.codec
    }

    /// Number of entries.
    pub fn len(&self) -> u64 {
        self.header.entries
    }

    /// True if the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.header.entries == 0
    }

    /// Checks the data CRC (reads every byte) and, for a file, that its
    /// length is still the header's. This is the check [`Tablebase::open`]
    /// leaves out: with it, a damaged cell behind an intact header is
    /// refused instead of answered.
    pub fn verify(&self) -> Result<()> {
        let computed = match self.data.as_bytes() {
            Some(bytes) => crate::format::data_crc(&bytes[self.header.data_offset as usize..]),
            None => self.streamed_crc()?,
        };
        if computed != self.header.data_crc {
            return Err(Error::DataChecksum {
                stored: self.header.data_crc,
                computed,
            });
        }
        Ok(())
    }

    /// The data CRC of a storage not in memory, read in chunks.
    fn streamed_crc(&self) -> Result<u32> {
        const CHUNK: u64 = 1 << 20;
        let end = self.header.file_len();
        let size = self
            .data
            .size()
            .map_err(|e| Error::io("cannot read the tablebase's size", e))?;
        // A file that grew is not the file the header describes either.
        if size != end {
            return Err(Error::WrongLength {
                expected: end,
                found: size,
            });
        }
        let mut buf = vec![0; CHUNK.min(self.header.data_len()) as usize];
        let mut hasher = crc32fast::Hasher::new();
        let mut at = self.header.data_offset;
        while at < end {
            let chunk = &mut buf[..(end - at).min(CHUNK) as usize];
            self.data
                .read_at(at, chunk)
                .map_err(|e| read_error(at, chunk.len(), e))?;
            hasher.update(chunk);
            at += chunk.len() as u64;
        }
        Ok(hasher.finalize())
    }

    /// The raw cell at `index`.
    #[inline]
    pub fn cell(&self, index: u64) -> Result<u32> {
        if index >= self.header.entries {
            return Err(Error::IndexOutOfRange {
                index,
                size: self.header.entries,
            });
        }
        // Known at compile time for each storage: in-memory storage never
        // reaches `read_cell`.
        let Some(bytes) = self.data.as_bytes() else {
            return self.read_cell(index);
        };
        let data = &bytes[self.header.data_offset as usize..];
        let i = index as usize;
        Ok(match self.codec.width() {
            1 => u32::from(data[i]),
            2 => u32::from(u16::from_le_bytes([data[2 * i], data[2 * i + 1]])),
            _ => u32::from_le_bytes([
                data[4 * i],
                data[4 * i + 1],
                data[4 * i + 2],
                data[4 * i + 3],
            ]),
        })
    }

    /// The cell at `index` (in range) by a positioned read.
    #[inline(never)]
    fn read_cell(&self, index: u64) -> Result<u32> {
        let width = usize::from(self.codec.width());
        let offset = self.header.data_offset + index * width as u64;
        // Cells are little-endian: the bytes read fill the low end.
        let mut cell = [0u8; 4];
        self.data
            .read_at(offset, &mut cell[..width])
            .map_err(|e| read_error(offset, width, e))?;
        Ok(u32::from_le_bytes(cell))
    }

    /// Value and remoteness at `index`; `Ok(None)` if the index is not a position.
    #[inline]
    pub fn probe_index(&self, index: u64) -> Result<Option<Outcome>> {
        Ok(self.codec.decode(self.cell(index)?))
    }

    /// The nimber at `index` of a nimber table; `Ok(None)` if the index is
    /// not a position or the table holds values rather than nimbers.
    #[inline]
    pub fn nimber_index(&self, index: u64) -> Result<Option<u32>> {
        Ok(self.codec.nimber(self.cell(index)?))
    }

    /// Checks that `game` is this tablebase's game — the same canonical spec
    /// (every rule parameter), index scheme, folding and size — and returns
    /// a view that probes its positions without checking again. Bind once
    /// and probe many times: the check formats the spec.
    pub fn bind<'a, G: Game>(&'a self, game: &'a G) -> Result<Bound<'a, G, D>> {
        let mismatch = |what: String| Error::GameMismatch {
            spec: self.header.spec.clone(),
            reason: format!("is not the game probed ({what})"),
        };
        let folded = self.header.flags & crate::format::FLAG_FOLDED != 0;
        if game.spec() != self.header.spec {
            return Err(mismatch(game.spec()));
        }
        if game.is_folded() != folded || game.index_scheme() != self.header.index_scheme {
            return Err(mismatch(format!(
                "{}, index scheme {}{}",
                game.spec(),
                game.index_scheme(),
                if game.is_folded() { ", folded" } else { "" }
            )));
        }
        if game.size() != self.header.entries {
            return Err(mismatch(format!("{} positions", game.size())));
        }
        Ok(Bound { tb: self, game })
    }

    /// Value and remoteness of a position of `game`, which must be this
    /// tablebase's game (checked on every call, see [`Tablebase::bind`] to
    /// check once).
    pub fn probe<G: Game>(&self, game: &G, p: &G::Position) -> Result<Outcome> {
        self.bind(game)?.probe(p)
    }
}

/// A tablebase together with its game, checked once by [`Tablebase::bind`]:
/// probing a position is then an encode and one cell read.
pub struct Bound<'a, G, D = FileStorage> {
    tb: &'a Tablebase<D>,
    game: &'a G,
}

impl<G: Game, D: Storage> Bound<'_, G, D> {
    /// The game.
    pub fn game(&self) -> &G {
        self.game
    }

    /// Value and remoteness of a position.
    #[inline]
    pub fn probe(&self, p: &G::Position) -> Result<Outcome> {
        let index = self.game.encode(p);
        self.tb.probe_index(index)?.ok_or_else(|| Error::BadPosition {
            input: self.game.format_position(p),
            reason: "the table holds no value for it: not a legal position, or a damaged file (run `retrograde verify`)".into(),
        })
    }

    /// The nimber of a position of a nimber table; `Ok(None)` when the table
    /// holds values or the position is not one.
    #[inline]
    pub fn nimber(&self, p: &G::Position) -> Result<Option<u32>> {
        self.tb.nimber_index(self.game.encode(p))
    }
}
