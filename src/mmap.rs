//! Every memory map in the crate is made here, so the `unsafe` lives in one
//! place with its contract.
//!
//! # Safety contract (for the whole crate)
//!
//! A memory map turns the file into memory that the process does not own:
//! if another process truncates or rewrites the file while it is mapped, reads
//! may see changed bytes or fault with SIGBUS. That is why the default reader
//! (`Tablebase::open`) does not map: an embedding program must not die because
//! a file shrank. Maps are made only where a caller asked for one:
//!
//! * `Tablebase::open_mmap` (C: `RTB_OPEN_MMAP`, Python: `mmap=True`), an
//!   `unsafe fn` whose `# Safety` section hands this contract to its caller,
//!   and the command line's batch commands (`verify`, `analyze`, `compare`),
//!   which read every cell.
//! * A finished tablebase is never written in place: the generator writes a
//!   `.partial` file and renames it over the destination, so a reader's map
//!   keeps the old inode. Users must not edit `.rtb` files in place while a
//!   mapping reader uses them.
//! * I/O errors on a mapped file (a failing disk) arrive as SIGBUS, not as
//!   `Err` values; that is the price of zero-copy reads.

use memmap2::{Mmap, MmapOptions};
use std::fs::File;
use std::io;

/// Maps a whole file read-only.
///
/// # Safety
///
/// The file must not be truncated or modified while the map lives (see the
/// module's contract): the map's bytes are then what the caller reads.
pub(crate) unsafe fn map_read(file: &File) -> io::Result<Mmap> {
    // SAFETY: the contract is forwarded to the caller of `map_read`.
    unsafe { MmapOptions::new().map(file) }
}

/// Maps `len` bytes of a file from `offset` read-only; `offset` need not be
/// page-aligned (the map starts at the page below, and the returned start
/// is where `offset` falls in it).
#[cfg(feature = "solve")]
pub(crate) fn map_region(file: &File, offset: u64, len: usize) -> io::Result<(Mmap, usize)> {
    let page = crate::format::PAGE;
    let lead = (offset % page) as usize;
    // SAFETY: see the module's contract. The tier-streamed solver maps
    // finished tiers of its own working file, which it holds locked and
    // writes only outside the mapped region (the tier being solved and the
    // progress trailer); no other solve opens it.
    let map = unsafe {
        MmapOptions::new()
            .offset(offset - lead as u64)
            .len(lead + len)
            .map(file)?
    };
    Ok((map, lead))
}
