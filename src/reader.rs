//! The reader: open a tablebase, check it, probe it. No solver dependencies.
//!
//! `open` checks the header (magic, version, lengths, header CRC, the game's
//! spec and index size) without scanning the data; `verify` checks the data
//! CRC. A probe reads one cell.

use crate::error::{Error, Result};
use crate::format::Header;
use crate::game::Game;
use crate::games::AnyGame;
use crate::value::{CellCodec, Outcome};

use std::fs::File;
use std::path::Path;

/// An open tablebase over any byte container: a memory map for files, a
/// `Vec<u8>` in tests.
pub struct Tablebase<D = memmap2::Mmap> {
    data: D,
    header: Header,
    game: AnyGame,
    codec: CellCodec,
}

impl Tablebase<memmap2::Mmap> {
    /// Opens and checks a tablebase file (header only; see [`Tablebase::verify`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let shown = path.display();
        let meta =
            std::fs::metadata(path).map_err(|e| Error::io(format!("cannot open {shown}"), e))?;
        if meta.is_dir() {
            return Err(Error::IsDirectory);
        }
        if meta.len() == 0 {
            return Err(Error::Empty);
        }
        let file = File::open(path).map_err(|e| Error::io(format!("cannot open {shown}"), e))?;
        let map = crate::mmap::map_read(&file)
            .map_err(|e| Error::io(format!("cannot map {shown}"), e))?;
        Tablebase::from_bytes(map)
    }
}

impl Tablebase<memmap2::Mmap> {
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
        let bytes = data.as_ref();
        let header = Header::decode(bytes, bytes.len() as u64)?;
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

    /// The data bytes (cells), without the header.
    pub fn data(&self) -> &[u8] {
        &self.data.as_ref()[self.header.data_offset as usize..]
    }

    /// Checks the data CRC (reads every byte).
    pub fn verify(&self) -> Result<()> {
        let computed = crate::format::data_crc(self.data());
        if computed != self.header.data_crc {
            return Err(Error::DataChecksum {
                stored: self.header.data_crc,
                computed,
            });
        }
        Ok(())
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
        let data = self.data();
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
pub struct Bound<'a, G, D = memmap2::Mmap> {
    tb: &'a Tablebase<D>,
    game: &'a G,
}

impl<G: Game, D: AsRef<[u8]>> Bound<'_, G, D> {
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
