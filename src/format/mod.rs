//! The `.rtb` file format, in one place: the header ([`Header`]), the cell
//! encodings ([`CellCodec`]), the checksums every format shares
//! ([`CountingWriter`], [`CrcReader`]) and, with the `solve` feature,
//! writing a file (the header a solve writes, the generator string, the
//! streaming writer and the temporary-file-then-rename protocol every file
//! is written through: [`TempFile`]). docs/FORMAT.md describes the bytes of
//! tables, checkpoints, streamed working files and proof databases.
//!
//! The reader needs only the header and the cells, so they build without
//! the `solve` feature; writing is the solver's.

mod cells;
mod crc;
mod header;
#[cfg(feature = "solve")]
mod write;

pub use cells::{CellCodec, TableKind};
#[cfg(feature = "solve")]
pub(crate) use cells::{CELL_DRAW, CELL_NONE};
#[cfg(feature = "solve")]
pub(crate) use crc::{seal, sealed};
pub use crc::{Counting, CountingWriter, CrcReader};
pub(crate) use header::MAX_HEADER;
pub use header::{data_crc, Header, Summary, FLAG_FOLDED, FORMAT_VERSION, MAGIC, PAGE};
#[cfg(feature = "solve")]
pub(crate) use write::{
    file_id, kill_point, names_file, register, sync_dir, table_header, unregister,
};
#[cfg(feature = "solve")]
pub use write::{
    generator, remove_stale_temporaries, remove_temporary_files, stale_notice, write_table_file,
    write_tablebase, TempFile,
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

/// `1234567` → `1,234,567`: counts in messages, the library's and the
/// command line's.
#[doc(hidden)]
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A size in the largest binary unit that keeps it at least 1 (bytes, KiB,
/// MiB, GiB, TiB), so a 2 MiB disk does not read "0.00 GiB".
#[doc(hidden)]
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut x = bytes as f64 / 1024.0;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    format!("{x:.2} {}", UNITS[unit])
}
