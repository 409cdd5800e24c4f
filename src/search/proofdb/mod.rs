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
//!
//! The parts: this file holds the format's header constants and what an
//! entry is ([`Kind`], [`Fact`], [`Record`], [`Written`]); `writer.rs`
//! writes a database and prepares a search's output (`SaveTarget`);
//! `reader.rs` opens and reads one file; `merged.rs` merges several;
//! `verify.rs` re-proves what was loaded before a search uses it.

mod merged;
mod reader;
mod shrink;
mod verify;
mod writer;

pub use merged::{merge, merge_files, read, MergeReport, Merged};
pub use reader::{header_of, load};
pub use shrink::{closure, shrink_file, Shrink, ShrinkReport};
pub(crate) use verify::{trust_nimbers, trust_values};
pub use verify::{verify_nimbers, verify_values, CheckReport, Decider};
pub(crate) use writer::SaveTarget;
pub use writer::{save, write};

use super::{Bounds, SearchGame};
use crate::error::ProofFault;
use crate::Error;
use std::path::Path;

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
