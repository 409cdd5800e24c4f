//! `retrograde`: complete game tablebases by retrograde analysis, and a small
//! reader that answers any position by reading one byte.
//!
//! Solve a game into a table, then probe it:
//!
//! ```
//! use retrograde::games::Isolation;
//! use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
//! use retrograde::{AnyGame, Game, Tablebase};
//!
//! let game = Isolation::new(3, 3)?;
//! # let dir = tempfile::tempdir()?;
//! let path = dir.path().join("isolation-3x3.rtb");
//! solve_to_file(&game, &path, &SolveOptions::default(), &NoProgress)?;
//!
//! let tb = Tablebase::open(&path)?;
//! let start = tb.probe_text(None, true)?; // None: the start, with ranked moves
//! println!("{}: {}", start.position, start.outcome);
//! for m in start.moves.iter().filter(|m| m.best) {
//!     println!("best: {} to {}", m.mv, m.position);
//! }
//! if let AnyGame::Isolation(g) = tb.game() {
//!     let bound = tb.bind(g)?; // checks once: same rules, index scheme, folding
//!     assert_eq!(bound.probe(&g.start())?, start.outcome);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The layers, from the bytes up:
//!
//! * [`Storage`]: where a table's bytes live. [`Tablebase::open`] reads the
//!   file with positioned reads, so a file truncated under an embedding
//!   program is an `Err`, never a crash; [`Tablebase::open_mmap`] maps it
//!   (faster probes, but an `unsafe fn`: see its `# Safety`); [`Tablebase::from_bytes`] reads a
//!   table held in memory.
//! * [`raw::RawTable`]: the checked header and the cells by index, for any
//!   game. [`raw::RawTable::bind`] attaches a [`Game`] of the program's own
//!   and gives a [`GameTable`] that probes its positions.
//! * [`Tablebase`]: a table of one of the built-in [`games`], named by the
//!   header's spec, probed by text ([`Tablebase::probe_text`]) or, once the
//!   game is matched, by position ([`Tablebase::bind`]).
//!
//! * [`testing`]: conformance checks for authors of a [`Game`].
//!
//! One cargo feature, `solve` (a default): the generator ([`solve`]), the
//! [`search`], `analyze`, `compare` and `verify`. With `default-features =
//! false` the crate is the reader, the file format and the games (no rayon).
//! The command line (`cli/`, the `retrograde` binary) and the C library
//! (`capi/`, `libretrograde.so` with `include/retrograde.h`) are crates of
//! the same workspace; the Python package is `python/`.
#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod error;
pub mod format;
mod game;
pub mod games;
mod mmap;
mod probe;
mod reader;
pub mod testing;
mod units;
mod value;

#[cfg(feature = "solve")]
mod analyze;
#[cfg(feature = "solve")]
mod compare;
#[cfg(feature = "solve")]
pub mod search;
#[cfg(feature = "solve")]
pub mod solve;
#[cfg(feature = "solve")]
mod verify;

#[doc(hidden)]
pub mod internal;

#[cfg(feature = "solve")]
pub use crate::error::{CheckpointFault, ProofFault};
pub use crate::error::{Error, Result};
pub use crate::format::Header;
pub use crate::format::{CellCodec, TableKind};
pub use crate::game::{Game, SubsetExtensions, SCAN_CHUNK};
pub use crate::games::AnyGame;
pub use crate::probe::{MoveInfo, PositionInfo};
pub use crate::reader::raw;
pub use crate::reader::{find_table, DEFAULT_DIR, DIR_VARIABLE};
pub use crate::reader::{Bound, FileStorage, GameTable, Moves, RankedMove, Storage, Tablebase};
pub use crate::value::{Outcome, Value};
/// The storage of [`Tablebase::open_mmap`].
pub use memmap2::Mmap;

/// Expands to its items when this build of the crate has the feature
/// `solve`, to nothing otherwise. For the tests of a crate whose dependency
/// on this one must not turn `solve` on (the C library's: with the
/// workspace's resolver 1 a dev-dependency's features are the library's
/// too): its tests that solve tables run whenever the build has the solver
/// anyway, as `cargo test` at the workspace's root has for the command line.
#[cfg(feature = "solve")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_solver {
    ($($item:item)*) => { $($item)* };
}

/// See the other definition: without the feature `solve`, nothing.
#[cfg(not(feature = "solve"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_solver {
    ($($item:item)*) => {};
}

/// The Rust snippets of README.md, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust snippets of docs/EMBEDDING.md, compiled and run by
/// `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../docs/EMBEDDING.md")]
pub struct EmbeddingDoctests;
