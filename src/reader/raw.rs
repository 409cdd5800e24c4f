//! The raw table: a checked header and its cells, and no game.
//!
//! [`RawTable`] is what [`Tablebase`](crate::Tablebase) stands on (as fst's
//! `Map` stands on `raw::Fst`): it knows the file format and nothing of the
//! rules, so it opens a table solved from any [`Game`], the built-in ones or
//! a program's own. Name the game with [`RawTable::bind`] to probe positions;
//! without one, a table answers by index.

use crate::error::{Error, Result};
use crate::format::{CellCodec, Header, FLAG_FOLDED, MAX_HEADER};
use crate::game::Game;
use crate::reader::storage::{map_file, read_error, Advice, FileStorage, Storage};
use crate::value::Outcome;

use std::path::Path;

/// A tablebase's header and cells over a [`Storage`], with no game attached.
///
/// Opening checks everything the file format promises: the path is a
/// regular, non-empty file; the magic bytes, format version, header length
/// and header CRC; that the header is consistent (known flags, cell width
/// and encoding, a page-aligned data offset, value counts adding up to the
/// entries); and that the file's length is exactly the header's plus the
/// entries' cells. The data CRC is checked by [`RawTable::verify`]. The game
/// spec in the header is only text here: [`RawTable::bind`] compares it with
/// a game.
///
/// ```
/// use retrograde::games::Subtraction;
/// use retrograde::raw::RawTable;
/// use retrograde::{Game, Value};
///
/// let game = Subtraction::new(20, &[1, 2], false)?;
/// // `RawTable::open(path)` reads a file; this table is held in memory.
/// let bytes = retrograde::solve::solve_to_bytes(&game, &Default::default())?;
///
/// let table = RawTable::from_bytes(bytes)?;
/// assert_eq!(table.header().spec, game.spec());
/// assert_eq!(table.len(), 21);
/// // Pile sizes that are multiples of 3 are lost for the player to move.
/// assert_eq!(table.outcome(9)?.map(|o| o.value), Some(Value::Lose));
/// assert_eq!(table.outcome(10)?.map(|o| o.value), Some(Value::Win));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RawTable<D = FileStorage> {
    data: D,
    header: Header,
    codec: CellCodec,
}

impl RawTable<FileStorage> {
    /// Opens a table file and checks its header (see [`RawTable`] for what
    /// is checked). Cells are read with positioned reads: a file truncated
    /// while open makes a read fail with [`Error::FileChanged`], never
    /// crashes the process.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        RawTable::from_storage(FileStorage::open(path)?)
    }

    /// [`RawTable::open`], then [`RawTable::verify`].
    pub fn open_verified(path: impl AsRef<Path>) -> Result<Self> {
        let table = RawTable::open(path)?;
        table.verify()?;
        Ok(table)
    }

    /// Tells the kernel that reads will be random (no read-ahead around
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

impl RawTable<memmap2::Mmap> {
    /// Opens and checks a table file like [`RawTable::open`], but maps it.
    ///
    /// # Safety
    ///
    /// As [`Tablebase::open_mmap`](crate::Tablebase::open_mmap): the file
    /// must not be truncated or modified in place while the table lives (a
    /// file truncated while mapped kills the process with SIGBUS).
    pub unsafe fn open_mmap(path: impl AsRef<Path>) -> Result<Self> {
        // SAFETY: the contract is forwarded to the caller of `open_mmap`.
        RawTable::from_bytes(unsafe { map_file(path.as_ref()) }?)
    }

    /// Tells the kernel that reads will be random: no read-ahead around
    /// each faulted page.
    pub fn advise_random(&self) -> Result<()> {
        #[cfg(unix)]
        self.data
            .advise(memmap2::Advice::Random)
            .map_err(|e| Error::io("cannot advise the kernel about the mapping", e))?;
        Ok(())
    }

    /// Asks the kernel to read the whole file into the page cache now.
    pub fn advise_willneed(&self) -> Result<()> {
        #[cfg(unix)]
        self.data
            .advise(memmap2::Advice::WillNeed)
            .map_err(|e| Error::io("cannot advise the kernel about the mapping", e))?;
        Ok(())
    }
}

impl<D: AsRef<[u8]>> RawTable<D> {
    /// Checks the header of a whole table image held in `data`.
    pub fn from_bytes(data: D) -> Result<Self> {
        RawTable::from_storage(data)
    }

    /// The data bytes (cells), without the header.
    pub fn data(&self) -> &[u8] {
        &self.data.as_ref()[self.header.data_offset as usize..]
    }
}

impl<D: Storage> RawTable<D> {
    /// Checks the header of the table in `data` (see [`RawTable`] for what
    /// is checked).
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
        let codec = header.codec();
        Ok(RawTable {
            data,
            header,
            codec,
        })
    }

    /// The storage.
    pub fn storage(&self) -> &D {
        &self.data
    }

    /// The storage, giving up the table.
    pub fn into_storage(self) -> D {
        self.data
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
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

    /// Whether the header marks the game's symmetries as folded into the index.
    pub fn is_folded(&self) -> bool {
        self.header.flags & FLAG_FOLDED != 0
    }

    /// Checks the data CRC (reads every byte) and, for a file, that its
    /// length is still the header's. This is the check opening leaves out:
    /// with it, a damaged cell behind an intact header is refused instead
    /// of answered.
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

    /// The raw cell at `index`: the little-endian integer of
    /// [`CellCodec::width`] bytes that [`CellCodec`] decodes.
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

    /// Value and remoteness at `index`; `Ok(None)` if the index is not a
    /// position (or the table holds nimbers).
    #[inline]
    pub fn outcome(&self, index: u64) -> Result<Option<Outcome>> {
        Ok(self.codec.decode(self.cell(index)?))
    }

    /// The nimber at `index` of a nimber table; `Ok(None)` if the index is
    /// not a position or the table holds values rather than nimbers.
    #[inline]
    pub fn nimber(&self, index: u64) -> Result<Option<u32>> {
        Ok(self.codec.nimber(self.cell(index)?))
    }

    /// Checks that `game` is this table's game: the same canonical spec
    /// (every rule parameter), index scheme, folding and number of
    /// positions. A game with other rules is refused with
    /// [`Error::GameMismatch`] rather than answered from the wrong table.
    pub fn check_game<G: Game>(&self, game: &G) -> Result<()> {
        let mismatch = |what: String| Error::GameMismatch {
            spec: self.header.spec.clone(),
            reason: format!("is not the game probed ({what})"),
        };
        if game.spec() != self.header.spec {
            return Err(mismatch(game.spec()));
        }
        if game.is_folded() != self.is_folded() || game.index_scheme() != self.header.index_scheme {
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
        Ok(())
    }
}
