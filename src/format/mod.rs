//! The `.rtb` file format as a reader sees it: the header ([`Header`],
//! with its [`Summary`] and [`FLAG_FOLDED`]) and the cell encodings
//! ([`CellCodec`], [`TableKind`]). docs/FORMAT.md describes the bytes of
//! tables, checkpoints, streamed working files and proof databases.
//!
//! Inside the crate this module also holds what every format shares: the
//! checksums (one CRC-computing reader and writer, `Counting`) and, with the
//! `solve` feature, writing a file (the header a solve writes, the generator
//! string, the streaming writer, and the temporary-file-then-rename
//! protocol every file is written through, `TempFile`).
//!
//! The reader needs only the header and the cells, so they build without
//! the `solve` feature; writing is the solver's.

mod cells;
pub(crate) mod crc;
pub(crate) mod header;
#[cfg(feature = "solve")]
pub(crate) mod write;

pub use cells::{CellCodec, TableKind};
pub use header::{Header, Summary, FLAG_FOLDED, FORMAT_VERSION};

// The rest is the crate's own (and, through `crate::internal`, its
// command's and tests').
#[cfg(feature = "solve")]
pub(crate) use cells::{CELL_DRAW, CELL_NONE};
#[cfg(feature = "solve")]
pub(crate) use crc::{seal, sealed, CountingWriter, CrcReader};
pub(crate) use header::{data_crc, MAX_HEADER};
#[cfg(feature = "solve")]
pub(crate) use header::{MAGIC, PAGE};
#[cfg(feature = "solve")]
pub(crate) use write::{
    file_id, generator, kill_point, names_file, register, remove_stale_temporaries, stale_notice,
    sync_dir, table_header, unregister, write_table_file, write_tablebase, TempFile,
};

// The solver labels cells through native-endian atomics laid over the
// table's bytes (`AtomicU16`/`AtomicU32`, src/solve/mod.rs) and writes those
// bytes out as they are, while the format says little-endian. On a
// big-endian target every wider cell would be written byte-swapped, and
// nothing would notice until a reader elsewhere opened the file. The reader
// decodes cells with explicit little-endian reads, so it alone stays
// portable.
#[cfg(all(feature = "solve", not(target_endian = "little")))]
compile_error!(
    "the solver needs a little-endian target: it writes cells through native-endian atomics"
);
