//! Checksums, the one way every file format computes them: CRC-32 (IEEE,
//! as `crc32fast` computes it) of the bytes as they stream out
//! ([`CountingWriter`]) or in ([`CrcReader`]), and of a header or slot
//! whose own CRC field counts as zero ([`seal`], [`sealed`]).
//!
//! Tables, checkpoints, tier-streamed working files and proof databases
//! are written through [`CountingWriter`] (fst's `CountingWriter`: the
//! bytes are counted and checksummed on their way out, no second pass)
//! into a [`TempFile`](super::TempFile) of their own, and read back
//! through the same CRC. A table's data CRC is the exception that proves
//! the rule: it sits in the header, before the data, so it is computed
//! before the data is written ([`data_crc`](super::data_crc), in parallel
//! over the table in memory); the writer still counts what went out, and a
//! table that is not the header's length is refused.

use byteorder::{ByteOrder, LittleEndian as LE};
use std::io::{self, Read, Write};

/// A wrapper that counts the bytes written or read through it and keeps
/// their CRC-32, so a format stores a checksum of what it wrote without
/// reading it back, and checks one as it reads (fst's `CountingWriter`).
/// Named for its use: [`CountingWriter`] and [`CrcReader`].
#[derive(Debug)]
pub struct Counting<T> {
    inner: T,
    count: u64,
    crc: crc32fast::Hasher,
}

/// [`Counting`] around a writer.
pub type CountingWriter<W> = Counting<W>;

/// [`Counting`] around a reader.
pub type CrcReader<R> = Counting<R>;

impl<T> Counting<T> {
    /// Wraps `inner`; nothing counted yet.
    pub fn new(inner: T) -> Counting<T> {
        Counting {
            inner,
            count: 0,
            crc: crc32fast::Hasher::new(),
        }
    }

    /// Bytes written (read) so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The CRC-32 of the bytes written (read) so far.
    pub fn crc(&self) -> u32 {
        self.crc.clone().finalize()
    }

    /// The wrapped writer or reader.
    pub fn get_ref(&self) -> &T {
        &self.inner
    }

    /// The wrapped reader, to read past the counted bytes (a stored
    /// checksum after the checksummed bytes is read from it).
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// The wrapped writer, counting done (not flushed: a buffered writer
    /// flushes when asked or dropped).
    pub fn into_inner(self) -> T {
        self.inner
    }

    fn counted(&mut self, bytes: &[u8]) {
        self.crc.update(bytes);
        self.count += bytes.len() as u64;
    }
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.counted(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counted(&buf[..n]);
        Ok(n)
    }
}

/// Stores in the 4 bytes at `at` the CRC-32 of `bytes` with those 4 bytes
/// zero: how a table header, a checkpoint header and a streamed solve's
/// progress slot checksum themselves.
pub(crate) fn seal(bytes: &mut [u8], at: usize) {
    bytes[at..at + 4].fill(0);
    let crc = crc32fast::hash(bytes);
    LE::write_u32(&mut bytes[at..], crc);
}

/// The CRC stored at `at` in bytes sealed by [`seal`], and the one their
/// contents have now: equal when the bytes are whole.
pub(crate) fn sealed(bytes: &[u8], at: usize) -> (u32, u32) {
    let mut h = crc32fast::Hasher::new();
    h.update(&bytes[..at]);
    h.update(&[0; 4]);
    h.update(&bytes[at + 4..]);
    (LE::read_u32(&bytes[at..]), h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_goes_through_is_counted_and_checksummed_both_ways() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut w = CountingWriter::new(Vec::new());
        for chunk in bytes.chunks(777) {
            w.write_all(chunk).unwrap();
        }
        assert_eq!(w.count(), 100_000);
        assert_eq!(w.crc(), crc32fast::hash(&bytes));
        assert_eq!(w.into_inner(), bytes);
        let mut r = CrcReader::new(&bytes[..]);
        let mut half = vec![0; 50_000];
        r.read_exact(&mut half).unwrap();
        assert_eq!(r.count(), 50_000);
        assert_eq!(r.crc(), crc32fast::hash(&bytes[..50_000]));
    }

    #[test]
    fn a_sealed_header_checks_and_a_changed_byte_does_not() {
        let mut head = vec![7u8; 40];
        seal(&mut head, 16);
        let (stored, computed) = sealed(&head, 16);
        assert_eq!(stored, computed);
        let mut zeroed = head.clone();
        zeroed[16..20].fill(0);
        assert_eq!(stored, crc32fast::hash(&zeroed));
        head[3] ^= 1;
        let (stored, computed) = sealed(&head, 16);
        assert_ne!(stored, computed);
    }
}
