//! `retrograde`: complete game tablebases by retrograde analysis, and a small
//! reader that answers any position by reading one byte.
//!
//! [`Tablebase::open`] reads the file with positioned reads, so a file
//! truncated under an embedding program is an `Err`, never a crash;
//! [`Tablebase::open_mmap`] maps it (faster probes, but see its hazard).
//!
//! With `default-features = false` the crate is the reader, the file format
//! and the games (no clap, rayon or indicatif):
//!
//! ```no_run
//! use retrograde::{AnyGame, Game, Tablebase};
//! let tb = Tablebase::open("tablebases/isolation-4x4.rtb")?;
//! if let AnyGame::Isolation(g) = tb.game() {
//!     let p = g.parse_position(".0../..../..../..1.").map_err(|e| e.to_string())?;
//!     let o = tb.probe(g, &p)?;
//!     println!("{o}"); // win in 11
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod error;
pub mod ffi;
pub mod format;
mod game;
pub mod games;
mod mmap;
mod probe;
mod reader;
mod value;

#[cfg(feature = "solve")]
pub mod analyze;
#[cfg(feature = "solve")]
pub mod compare;
#[cfg(feature = "solve")]
pub mod solve;
#[cfg(feature = "solve")]
pub mod verify;

pub use crate::error::{Error, Result};
pub use crate::format::Header;
pub use crate::game::Game;
pub use crate::games::AnyGame;
pub use crate::probe::{MoveInfo, PositionInfo};
pub use crate::reader::raw;
pub use crate::reader::{Bound, FileStorage, GameTable, Storage, Tablebase};
pub use crate::value::{CellCodec, Outcome, TableKind, Value};
/// The storage of [`Tablebase::open_mmap`].
pub use memmap2::Mmap;
