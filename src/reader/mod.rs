//! The reader: open a tablebase, check it, probe it. No solver dependencies.
//!
//! Three layers, each on the one before:
//!
//! * [`Storage`] (storage.rs): where the bytes live. By default a
//!   [`FileStorage`] that reads each cell with a positioned read, so a file
//!   truncated or rewritten while open gives an `Err`, never a crash of the
//!   host program; or anything holding the bytes in memory (`Vec<u8>`,
//!   `&[u8]`, a memory map), which probes by indexing a slice.
//! * [`RawTable`] (raw.rs): the checked header and the cells, by index, for
//!   any game; [`RawTable::bind`] attaches a [`Game`] of the program's own
//!   and gives a [`GameTable`] (typed.rs) that probes positions.
//! * [`Tablebase`] (this file): a raw table of one of the built-in games,
//!   parsed from the header's spec, so a program that does not know the
//!   game at compile time can probe by text (probe.rs).
//!
//! Opening checks the header (magic, version, lengths, header CRC, and for a
//! [`Tablebase`] the game's spec and index size) without scanning the data;
//! `verify` checks the data CRC. A probe reads one cell.

mod dir;
pub mod raw;
pub(crate) mod storage;
mod typed;

pub use dir::{find_table, DEFAULT_DIR, DIR_VARIABLE};
pub use storage::{FileStorage, Storage};
pub use typed::{Bound, GameTable, Moves, RankedMove};

use crate::error::{Error, Result};
use crate::format::{CellCodec, Header};
use crate::game::Game;
use crate::games::AnyGame;
use crate::value::Outcome;
use raw::RawTable;

use std::path::Path;

/// An open tablebase of a built-in game over a [`Storage`]: by default a
/// file read with positioned reads ([`Tablebase::open`]); a memory map
/// ([`Tablebase::open_mmap`]); or bytes in memory, such as a `Vec<u8>` in
/// tests ([`Tablebase::from_bytes`]).
///
/// The game is parsed from the header's spec ([`Tablebase::game`]); a table
/// of a game defined outside this crate is opened with [`RawTable`] instead.
///
/// ```
/// use retrograde::games::Isolation;
/// use retrograde::{AnyGame, Game, Tablebase, Value};
///
/// let game = Isolation::new(3, 3)?;
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("isolation-3x3.rtb");
/// retrograde::solve::solve_to_file(&game, &path, &Default::default(), &retrograde::solve::NoProgress)?;
///
/// let tb = Tablebase::open(&path)?;
/// assert_eq!(tb.game().spec(), game.spec());
/// // By text, for programs that do not know the game at compile time:
/// let start = tb.probe_text(None, true)?;
/// println!("{}: {} ({} moves)", start.position, start.outcome, start.moves.len());
/// // Typed, when they do:
/// if let AnyGame::Isolation(g) = tb.game() {
///     let bound = tb.bind(g)?; // checks once: same rules, index scheme, folding
///     assert_eq!(bound.probe(&g.start())?, start.outcome);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Tablebase<D = FileStorage> {
    raw: RawTable<D>,
    game: AnyGame,
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
    ///
    /// ```
    /// use retrograde::{Error, Tablebase};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// let missing = dir.path().join("missing.rtb");
    /// let e = Tablebase::open(&missing).err().expect("no such file");
    /// assert!(matches!(e, Error::Io { .. }));
    /// assert!(e.to_string().starts_with("cannot open "));
    ///
    /// std::fs::write(&missing, b"not a table")?;
    /// assert!(matches!(Tablebase::open(&missing), Err(Error::BadMagic)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Tablebase::from_raw(RawTable::open(path)?)
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
        self.raw.advise_random()
    }

    /// Asks the kernel to read the whole file into the page cache now, where
    /// the platform has `posix_fadvise`; elsewhere a no-op.
    pub fn advise_willneed(&self) -> Result<()> {
        self.raw.advise_willneed()
    }
}

impl Tablebase<memmap2::Mmap> {
    /// Opens and checks a tablebase file like [`Tablebase::open`], but
    /// memory-maps it: a probe is a slice index (a few nanoseconds, against
    /// a system call for `open`), and whole-table work such as
    /// [`Tablebase::data`] becomes possible.
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified in place while the
    /// tablebase lives. The map is memory the process does not own: if
    /// another process truncates the file, the next probe of a page past the
    /// new end raises SIGBUS and kills the whole process (Rust, C or Python
    /// host alike); a file rewritten in place changes the answers under the
    /// reader, bytes the checks at opening never saw. A disk I/O error on a
    /// mapped page also arrives as SIGBUS, not as an `Err`. Files that only
    /// the generator replaces are safe to map: it writes a new file and
    /// renames it over the old, so a map keeps the old inode. The command
    /// line maps files for the batch commands (`verify`, `analyze`,
    /// `compare`) only.
    ///
    /// ```
    /// # use retrograde::{solve::{solve_to_file, NoProgress}, games::Isolation, Tablebase};
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("isolation-3x3.rtb");
    /// # solve_to_file(&Isolation::new(3, 3)?, &path, &Default::default(), &NoProgress)?;
    /// // SAFETY: nothing modifies the file in place while `tb` lives.
    /// let tb = unsafe { Tablebase::open_mmap(&path) }?;
    /// let read = Tablebase::open(&path)?;
    /// assert_eq!(tb.probe_text(None, false)?, read.probe_text(None, false)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// The compiler holds the caller to it:
    ///
    /// ```compile_fail,E0133
    /// let tb = retrograde::Tablebase::open_mmap("isolation-3x3.rtb");
    /// ```
    pub unsafe fn open_mmap(path: impl AsRef<Path>) -> Result<Self> {
        // SAFETY: the contract is forwarded to the caller of `open_mmap`.
        Tablebase::from_raw(unsafe { RawTable::open_mmap(path) }?)
    }

    /// Tells the kernel that probes will be random: no read-ahead around
    /// each faulted page, so a cold probe reads one page instead of a run of
    /// them. Best for scattered probes of a file larger than memory; leave it
    /// off for scans (`verify`, `analyze`), which gain from read-ahead.
    pub fn advise_random(&self) -> Result<()> {
        self.raw.advise_random()
    }

    /// Asks the kernel to read the whole file into the page cache now, so
    /// later probes never wait for the disk (a warm file).
    pub fn advise_willneed(&self) -> Result<()> {
        self.raw.advise_willneed()
    }
}

impl<D: AsRef<[u8]>> Tablebase<D> {
    /// Checks the header of a whole tablebase image held in `data`.
    pub fn from_bytes(data: D) -> Result<Self> {
        Tablebase::from_storage(data)
    }

    /// The data bytes (cells), without the header.
    pub fn data(&self) -> &[u8] {
        self.raw.data()
    }
}

impl<D: Storage> Tablebase<D> {
    /// Checks the header of the tablebase in `data` (see
    /// [`Tablebase::open`] for what is checked).
    pub fn from_storage(data: D) -> Result<Self> {
        Tablebase::from_raw(RawTable::from_storage(data)?)
    }

    /// Parses the built-in game a checked raw table names, and checks that
    /// it is the table's game (see [`Tablebase::open`]).
    pub fn from_raw(raw: RawTable<D>) -> Result<Self> {
        let header = raw.header();
        // A header names its rules inline; a `pattern:PATH` spec would make
        // opening a table read another file, so it is refused unread.
        if crate::games::pattern::file_of(&header.spec).is_some() {
            return Err(Error::CorruptHeader(format!(
                "game spec '{}' names a pattern file instead of the rules",
                header.spec
            )));
        }
        let mut game = AnyGame::parse(&header.spec).map_err(|e| {
            Error::CorruptHeader(format!("game spec '{}' is not usable: {e}", header.spec))
        })?;
        if raw.is_folded() {
            game = game.folded().map_err(|e| Error::GameMismatch {
                spec: header.spec.clone(),
                reason: match e {
                    Error::CannotFold { reason, .. } => {
                        format!("is marked symmetry-folded, but {reason}")
                    }
                    e => format!("is marked symmetry-folded, but {e}"),
                },
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
                    "uses index scheme {}, but this build has scheme {}: re-solve it with this build",
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
        Ok(Tablebase { raw, game })
    }

    /// The raw table underneath: header and cells by index.
    pub fn raw(&self) -> &RawTable<D> {
        &self.raw
    }

    /// The raw table, giving up the game.
    pub fn into_raw(self) -> RawTable<D> {
        self.raw
    }

    /// The storage.
    pub fn storage(&self) -> &D {
        self.raw.storage()
    }

    /// The header.
    pub fn header(&self) -> &Header {
        self.raw.header()
    }

    /// The game this tablebase solves.
    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    /// The cell codec (width and layout).
    pub fn codec(&self) -> CellCodec {
        self.raw.codec()
    }

    /// Number of entries.
    pub fn len(&self) -> u64 {
        self.raw.len()
    }

    /// True if the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Checks the data CRC (reads every byte) and, for a file, that its
    /// length is still the header's. This is the check [`Tablebase::open`]
    /// leaves out: with it, a damaged cell behind an intact header is
    /// refused instead of answered.
    pub fn verify(&self) -> Result<()> {
        self.raw.verify()
    }

    /// The raw cell at `index`.
    #[inline]
    pub fn cell(&self, index: u64) -> Result<u32> {
        self.raw.cell(index)
    }

    /// Value and remoteness at `index`; `Ok(None)` if the index is not a position.
    #[inline]
    pub fn probe_index(&self, index: u64) -> Result<Option<Outcome>> {
        self.raw.outcome(index)
    }

    /// The nimber at `index` of a nimber table; `Ok(None)` if the index is
    /// not a position or the table holds values rather than nimbers.
    #[inline]
    pub fn nimber_index(&self, index: u64) -> Result<Option<u32>> {
        self.raw.nimber(index)
    }

    /// Checks that `game` is this tablebase's game — the same canonical spec
    /// (every rule parameter), index scheme, folding and size — and returns
    /// a view that probes its positions without checking again. Bind once
    /// and probe many times: the check formats the spec.
    pub fn bind<'a, G: Game>(&'a self, game: &'a G) -> Result<Bound<'a, G, D>> {
        self.raw.check_game(game)?;
        Ok(Bound::new(self, game))
    }

    /// Value and remoteness of a position of `game`, which must be this
    /// tablebase's game (checked on every call, see [`Tablebase::bind`] to
    /// check once).
    ///
    /// ```
    /// use retrograde::games::Subtraction;
    /// use retrograde::{Error, Tablebase, Value};
    ///
    /// let game = Subtraction::new(30, &[1, 3, 4], false)?;
    /// // A table in memory: the bytes a file would hold.
    /// let bytes = retrograde::solve::solve_to_bytes(&game, &Default::default())?;
    ///
    /// let tb = Tablebase::from_bytes(bytes)?;
    /// // The losses for the player to move are the piles of 0 or 2 modulo 7.
    /// assert_eq!(tb.probe(&game, &30)?.value, Value::Lose);
    /// assert_eq!(tb.probe(&game, &29)?.value, Value::Win);
    /// // Another game's positions are refused, not answered.
    /// let other = Subtraction::new(30, &[1, 2], false)?;
    /// assert!(matches!(tb.probe(&other, &30), Err(Error::GameMismatch { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe<G: Game>(&self, game: &G, p: &G::Position) -> Result<Outcome> {
        self.bind(game)?.probe(p)
    }
}
