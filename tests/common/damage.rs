//! Damaging a solved table, for the tests of what the readers do with it:
//! shared by the test binaries (through `common`) and by the C library's
//! own tests (capi/src/tests.rs), which cannot use the rest of `common`
//! (it runs the `retrograde` binary, which only the cli crate's tests have).

use retrograde::games::Isolation;
use retrograde::{Game, Tablebase};
use std::path::{Path, PathBuf};

/// Cuts the file at `path` to `len` bytes, as another process might while
/// a reader holds it open.
pub fn truncate(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// A copy of the 3x3 file with the start's cell changed (remoteness off by
/// one): the header is intact, so only the data CRC can tell.
pub fn flipped_copy(path: &Path, g: &Isolation) -> PathBuf {
    let mut bytes = std::fs::read(path).unwrap();
    let tb = Tablebase::from_bytes(bytes.as_slice()).unwrap();
    let at = tb.header().data_offset + g.encode(&g.start()) * u64::from(tb.codec().width());
    bytes[at as usize] ^= 0x01;
    let bad = path.with_file_name("flipped.rtb");
    std::fs::write(&bad, bytes).unwrap();
    bad
}
