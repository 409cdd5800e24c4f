//! The tablebase file header: layout, parsing, encoding and checksums.
//!
//! All integers little-endian. See docs/FORMAT.md for the full description.
//!
//! ```text
//! offset size field
//!      0    8 magic "\x89RTB\r\n\x1a\n"
//!      8    4 format version (1)
//!     12    4 header length H in bytes (fixed part + strings)
//!     16    4 CRC32 of header bytes [0, H) with this field zeroed
//!     20    4 CRC32 of the data
//!     24    8 data offset (a multiple of 4096, >= H)
//!     32    8 entry count
//!     40    1 cell width in bytes (1, 2 or 4)
//!     41    1 cell encoding (1 = value + remoteness, 2 = nimber + 1)
//!     42    2 index scheme version of the game
//!     44    4 flags (bit 0: symmetries folded into the index)
//!     48   32 counts of win, lose, tie, draw entries (4 × u64)
//!     80    8 count of indices that are not positions
//!     88   12 largest remoteness of win, lose, tie entries (3 × u32)
//!    100    4 largest nimber (nimber tables; 0 otherwise)
//!    104    2 length S of the game spec; S bytes of UTF-8 spec
//!  106+S    2 length G of the generator string; G bytes of UTF-8
//! ```

use super::cells::{CellCodec, TableKind};
use crate::error::{Error, Result};
use byteorder::{ByteOrder, LittleEndian as LE};

/// File magic: non-ASCII first byte and CR/LF/EOF bytes catch text-mode damage.
pub const MAGIC: [u8; 8] = *b"\x89RTB\r\n\x1a\n";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Data starts on a page boundary so it can be mapped and read aligned.
pub const PAGE: u64 = 4096;
/// Header flag: the game's symmetries are folded into the index.
pub const FLAG_FOLDED: u32 = 1;
/// Flags this build understands.
const KNOWN_FLAGS: u32 = FLAG_FOLDED;
/// Size of the fixed part of the header.
const FIXED: usize = 104;
/// Headers larger than this are refused without reading further.
pub(crate) const MAX_HEADER: usize = 64 * 1024;

/// Summary of a solve, stored in the header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Entries by value, in [`crate::Value::ALL`] order: win, lose, tie, draw.
    pub counts: [u64; 4],
    /// Indices that are not legal positions.
    pub non_positions: u64,
    /// Largest remoteness among win, lose and tie entries (value tables).
    pub max_remoteness: [u32; 3],
    /// Largest nimber (nimber tables).
    pub max_nimber: u32,
}

/// A parsed tablebase header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u32,
    /// Canonical game spec.
    pub spec: String,
    /// Index scheme version of the game.
    pub index_scheme: u16,
    /// Cell width in bytes.
    pub cell_width: u8,
    /// Cell encoding id.
    pub cell_encoding: u8,
    /// Flags: [`FLAG_FOLDED`]; any other bit is refused by [`Header::decode`].
    pub flags: u32,
    /// Number of entries (the game's index size).
    pub entries: u64,
    /// Byte offset of the data.
    pub data_offset: u64,
    /// CRC32 of the data bytes.
    pub data_crc: u32,
    /// Counts by value and largest remoteness.
    pub summary: Summary,
    /// Program and version that wrote the file.
    pub generator: String,
}

impl Header {
    /// The table kind (from the cell encoding).
    pub fn kind(&self) -> TableKind {
        TableKind::from_id(self.cell_encoding).unwrap_or(TableKind::Value)
    }

    /// The codec for this file's cells.
    pub fn codec(&self) -> CellCodec {
        CellCodec::of(self.kind(), self.cell_width)
    }

    /// Length of the data in bytes.
    pub fn data_len(&self) -> u64 {
        self.entries * u64::from(self.cell_width)
    }

    /// Total file length the header implies.
    pub fn file_len(&self) -> u64 {
        self.data_offset + self.data_len()
    }

    /// The data offset for a header of `header_len` bytes: the next page.
    pub fn data_offset_for(header_len: usize) -> u64 {
        (header_len as u64).div_ceil(PAGE) * PAGE
    }

    /// Length of the encoded header.
    pub fn encoded_len(&self) -> usize {
        FIXED + 2 + self.spec.len() + 2 + self.generator.len()
    }

    /// Encodes the header, computing its CRC.
    pub fn encode(&self) -> Vec<u8> {
        let len = self.encoded_len();
        let mut b = vec![0u8; len];
        b[0..8].copy_from_slice(&MAGIC);
        LE::write_u32(&mut b[8..], self.version);
        LE::write_u32(&mut b[12..], len as u32);
        LE::write_u32(&mut b[20..], self.data_crc);
        LE::write_u64(&mut b[24..], self.data_offset);
        LE::write_u64(&mut b[32..], self.entries);
        b[40] = self.cell_width;
        b[41] = self.cell_encoding;
        LE::write_u16(&mut b[42..], self.index_scheme);
        LE::write_u32(&mut b[44..], self.flags);
        for (i, c) in self.summary.counts.iter().enumerate() {
            LE::write_u64(&mut b[48 + 8 * i..], *c);
        }
        LE::write_u64(&mut b[80..], self.summary.non_positions);
        for (i, r) in self.summary.max_remoteness.iter().enumerate() {
            LE::write_u32(&mut b[88 + 4 * i..], *r);
        }
        LE::write_u32(&mut b[100..], self.summary.max_nimber);
        let mut at = FIXED;
        for s in [&self.spec, &self.generator] {
            LE::write_u16(&mut b[at..], s.len() as u16);
            b[at + 2..at + 2 + s.len()].copy_from_slice(s.as_bytes());
            at += 2 + s.len();
        }
        super::crc::seal(&mut b, 16);
        b
    }

    /// Parses and checks a header from the start of a file: magic, version,
    /// lengths, header CRC and internal consistency. `file_len` is the whole
    /// file's size; the data itself is not read.
    pub fn decode(bytes: &[u8], file_len: u64) -> Result<Header> {
        if file_len == 0 {
            return Err(Error::Empty);
        }
        if bytes.len() < 8 || bytes[0..8] != MAGIC {
            return Err(Error::BadMagic);
        }
        if bytes.len() < FIXED {
            return Err(Error::WrongLength {
                expected: FIXED as u64,
                found: file_len,
            });
        }
        let version = LE::read_u32(&bytes[8..]);
        if version != FORMAT_VERSION {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let len = LE::read_u32(&bytes[12..]) as usize;
        if !(FIXED + 4..=MAX_HEADER).contains(&len) {
            return Err(Error::CorruptHeader(format!(
                "header length {len} is impossible"
            )));
        }
        if len > bytes.len() {
            return Err(Error::WrongLength {
                expected: len as u64,
                found: file_len,
            });
        }
        let h = &bytes[..len];
        let (stored, computed) = super::crc::sealed(h, 16);
        if stored != computed {
            return Err(Error::HeaderChecksum { stored, computed });
        }
        let mut at = FIXED;
        let mut strings = Vec::with_capacity(2);
        for what in ["game spec", "generator"] {
            let ok = at + 2 <= len;
            let n = if ok {
                LE::read_u16(&h[at..]) as usize
            } else {
                0
            };
            if !ok || at + 2 + n > len {
                return Err(Error::CorruptHeader(format!("{what} runs past the header")));
            }
            let s = std::str::from_utf8(&h[at + 2..at + 2 + n])
                .map_err(|_| Error::CorruptHeader(format!("{what} is not UTF-8")))?;
            strings.push(s.to_string());
            at += 2 + n;
        }
        let header = Header {
            version,
            data_crc: LE::read_u32(&h[20..]),
            data_offset: LE::read_u64(&h[24..]),
            entries: LE::read_u64(&h[32..]),
            cell_width: h[40],
            cell_encoding: h[41],
            index_scheme: LE::read_u16(&h[42..]),
            flags: LE::read_u32(&h[44..]),
            summary: Summary {
                counts: std::array::from_fn(|i| LE::read_u64(&h[48 + 8 * i..])),
                non_positions: LE::read_u64(&h[80..]),
                max_remoteness: std::array::from_fn(|i| LE::read_u32(&h[88 + 4 * i..])),
                max_nimber: LE::read_u32(&h[100..]),
            },
            generator: strings.pop().unwrap_or_default(),
            spec: strings.pop().unwrap_or_default(),
        };
        if header.flags & !KNOWN_FLAGS != 0 {
            return Err(Error::CorruptHeader(format!(
                "unknown flags {:#x}",
                header.flags & !KNOWN_FLAGS
            )));
        }
        if !matches!(header.cell_width, 1 | 2 | 4) {
            return Err(Error::CorruptHeader(format!(
                "cell width {} is not supported",
                header.cell_width
            )));
        }
        if TableKind::from_id(header.cell_encoding).is_none() {
            return Err(Error::CorruptHeader(format!(
                "cell encoding {} is not supported",
                header.cell_encoding
            )));
        }
        if !header.data_offset.is_multiple_of(PAGE) || header.data_offset < len as u64 {
            return Err(Error::CorruptHeader(format!(
                "data offset {} is not a page boundary after the header",
                header.data_offset
            )));
        }
        let expected = header
            .entries
            .checked_mul(u64::from(header.cell_width))
            .and_then(|d| d.checked_add(header.data_offset))
            .ok_or_else(|| Error::CorruptHeader("entry count overflows".into()))?;
        if expected != file_len {
            return Err(Error::WrongLength {
                expected,
                found: file_len,
            });
        }
        let total: u128 = header
            .summary
            .counts
            .iter()
            .map(|&c| c as u128)
            .sum::<u128>()
            + header.summary.non_positions as u128;
        if total != header.entries as u128 {
            return Err(Error::CorruptHeader(format!(
                "value counts add up to {total}, not the {} entries",
                header.entries
            )));
        }
        Ok(header)
    }
}

/// CRC32 of a byte slice, in parallel chunks when the `solve` feature is on.
pub fn data_crc(data: &[u8]) -> u32 {
    #[cfg(feature = "solve")]
    {
        use rayon::prelude::*;
        const CHUNK: usize = 16 << 20;
        if data.len() > CHUNK {
            return data
                .par_chunks(CHUNK)
                .map(|c| {
                    let mut h = crc32fast::Hasher::new();
                    h.update(c);
                    h
                })
                .reduce_with(|mut a, b| {
                    a.combine(&b);
                    a
                })
                .map(|h| h.finalize())
                .unwrap_or(0);
        }
    }
    crc32fast::hash(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Header {
        let spec = "isolation:3x3:a=1,b=7".to_string();
        let generator = "retrograde test".to_string();
        let len = FIXED + 4 + spec.len() + generator.len();
        Header {
            version: FORMAT_VERSION,
            spec,
            index_scheme: 1,
            cell_width: 1,
            cell_encoding: TableKind::Value.id(),
            flags: 0,
            entries: 100,
            data_offset: Header::data_offset_for(len),
            data_crc: 0xdead_beef,
            summary: Summary {
                counts: [60, 30, 0, 0],
                non_positions: 10,
                max_remoteness: [5, 4, 0],
                max_nimber: 0,
            },
            generator,
        }
    }

    #[test]
    fn header_round_trips() {
        let h = sample();
        let b = h.encode();
        assert_eq!(Header::decode(&b, h.file_len()).unwrap(), h);
    }

    #[test]
    fn every_flipped_header_byte_is_refused() {
        let h = sample();
        let b = h.encode();
        for i in 0..b.len() {
            let mut bad = b.clone();
            bad[i] ^= 0x10;
            assert!(Header::decode(&bad, h.file_len()).is_err(), "byte {i}");
        }
    }

    #[test]
    fn wrong_length_and_version_are_refused() {
        let h = sample();
        let b = h.encode();
        assert!(matches!(
            Header::decode(&b, h.file_len() - 1),
            Err(Error::WrongLength { .. })
        ));
        assert!(matches!(Header::decode(&[], 0), Err(Error::Empty)));
        let mut v2 = h.clone();
        v2.version = 2;
        assert!(matches!(
            Header::decode(&v2.encode(), h.file_len()),
            Err(Error::UnsupportedVersion { found: 2, .. })
        ));
    }
}
