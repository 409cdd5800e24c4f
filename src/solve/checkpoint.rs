//! Checkpoints: resuming a solve after a crash or power loss.
//!
//! While a solve runs, each completed tier (or run of tiers) is appended to
//! `NAME.ckpt` as one record: the tiers' cells in the solver's enumeration
//! order (work units in order, each unit's positions in the game's fixed
//! order), compressed with zstd level 1 (a tier compresses about ninefold),
//! with a CRC32. A record counts only once it is written and synced. On the
//! next run of the same command the records are replayed into the table and
//! the solve continues with the next tier; a torn or corrupt last record is
//! dropped (and the file cut back to the last good record).
//!
//! ```text
//! header:  magic "RTBCKPT\0" | u32 checkpoint version | u32 header length H |
//!          u32 CRC32 of the header with this field zero | u16 index scheme |
//!          u8 table kind | u8 cell width | u64 entries |
//!          u16 length S | S bytes of game spec | u16 length G | G bytes generator
//! record:  magic "TIER" | u32 first tier | u32 last tier | u64 cells |
//!          u64 compressed length L | u32 CRC32 of the L bytes | L bytes
//! ```
//!
//! A checkpoint of other rules, another index, another table kind or another
//! checkpoint or program version is refused with a message, never reused.
//!
//! The checkpoint version ([`CHECKPOINT_VERSION`]) is this layout's own and
//! moves independently of the table format's
//! ([`FORMAT_VERSION`](crate::format::FORMAT_VERSION)): a checkpoint is only
//! ever read back by the solve that wrote it, a table by any reader.

use super::output::open_regular;
use crate::error::{Error, Result};
use crate::format::{generator, CellCodec, TempFile};
use crate::game::Game;
use byteorder::{ByteOrder, LittleEndian as LE};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: [u8; 8] = *b"RTBCKPT\0";
/// The checkpoint layout's version. Checkpoints written before it had a
/// number of its own stored the table format's version, 1, in this field,
/// so it starts at 1 and those checkpoints still resume; bump it when the
/// layout above changes, whatever the table format does.
pub const CHECKPOINT_VERSION: u32 = 1;
const RECORD: [u8; 4] = *b"TIER";
const RECORD_HEAD: usize = 4 + 4 + 4 + 8 + 8 + 4;

/// The checkpoint file of an output path: `NAME.ckpt`.
pub fn checkpoint_path(path: &Path) -> PathBuf {
    super::output::sibling(path, ".ckpt")
}

/// Locks a checkpoint for this solve. The output's lock already keeps other
/// solves of the same output away; this keeps out anything else that
/// respects advisory locks (another build's solve) while we append.
fn lock(file: &File, path: &Path) -> Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Output(format!(
            "checkpoint {}: another process is using it; wait for it to finish",
            path.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(
            format!("cannot lock checkpoint {}", path.display()),
            e,
        )),
    }
}

/// What identifies the table a checkpoint belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    pub spec: String,
    pub index_scheme: u16,
    pub kind: u8,
    pub width: u8,
    pub entries: u64,
    pub generator: String,
}

impl Identity {
    pub fn of<G: Game>(game: &G, codec: CellCodec) -> Identity {
        Identity {
            spec: game.spec(),
            index_scheme: game.index_scheme(),
            kind: codec.kind().id(),
            width: codec.width(),
            entries: game.size(),
            generator: generator(),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; 8 + 4 + 4 + 4 + 2 + 1 + 1 + 8];
        b[..8].copy_from_slice(&MAGIC);
        LE::write_u32(&mut b[8..], CHECKPOINT_VERSION);
        LE::write_u16(&mut b[20..], self.index_scheme);
        b[22] = self.kind;
        b[23] = self.width;
        LE::write_u64(&mut b[24..], self.entries);
        for s in [&self.spec, &self.generator] {
            let mut len = [0u8; 2];
            LE::write_u16(&mut len, s.len() as u16);
            b.extend_from_slice(&len);
            b.extend_from_slice(s.as_bytes());
        }
        let n = b.len() as u32;
        LE::write_u32(&mut b[12..], n);
        let crc = crc32fast::hash(&b);
        LE::write_u32(&mut b[16..], crc);
        b
    }
}

/// An open checkpoint, appended to after each tier.
pub(crate) struct Checkpoint {
    file: File,
    path: PathBuf,
    /// Tiers stored so far (0..next_tier).
    pub next_tier: u32,
}

fn refuse(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::Checkpoint(format!(
        "checkpoint {} {why}; delete it or run with --restart",
        path.display()
    ))
}

impl Checkpoint {
    /// Creates a new checkpoint (replacing any old one) for `id`: written to
    /// a fresh temporary file and renamed into place, so an existing path —
    /// a symlink planted at `NAME.ckpt` — is replaced, never written through.
    pub fn create(path: &Path, id: &Identity) -> Result<Checkpoint> {
        let io = |e| Error::io(format!("cannot write checkpoint {}", path.display()), e);
        let tmp = TempFile::create_beside(path)?;
        let mut f = tmp.file();
        f.write_all(&id.encode()).map_err(io)?;
        let file = tmp.persist(path)?;
        lock(&file, path)?;
        Ok(Checkpoint {
            file,
            path: path.to_path_buf(),
            next_tier: 0,
        })
    }

    /// Opens an existing checkpoint, checks it belongs to `id`, and replays
    /// its complete records through `restore(tier, cells)`, where `cells`
    /// holds each tier's cells in enumeration order. A torn last record is cut
    /// off. Refuses a checkpoint of anything else.
    pub fn resume(
        path: &Path,
        id: &Identity,
        mut restore: impl FnMut(u32, &[u32]) -> Result<()>,
        mut tier_size: impl FnMut(u32) -> u64,
    ) -> Result<Checkpoint> {
        let io = |e| Error::io(format!("cannot read checkpoint {}", path.display()), e);
        // Never through a symlink, and only a regular file: the checkpoint is
        // cut back and appended to, so following a planted link would damage
        // whatever it points at.
        let meta = std::fs::symlink_metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(refuse(
                path,
                format!(
                    "is {}, not a regular file",
                    crate::error::file_kind(&meta.file_type())
                ),
            ));
        }
        let mut file = open_regular(path, false).map_err(io)?;
        lock(&file, path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let want = id.encode();
        if bytes.len() < 16 || bytes[..8] != MAGIC {
            return Err(refuse(path, "is not a retrograde checkpoint"));
        }
        let version = LE::read_u32(&bytes[8..]);
        if version != CHECKPOINT_VERSION {
            return Err(refuse(
                path,
                format!(
                    "has checkpoint format version {version}, this build reads version {CHECKPOINT_VERSION}"
                ),
            ));
        }
        let len = LE::read_u32(&bytes[12..]) as usize;
        // The header's own CRC before its contents: a damaged header must be reported as
        // damaged, not read for the game it seems to name.
        if len < 28 || len > bytes.len() || len > 1 << 20 {
            return Err(refuse(path, "is corrupt (bad header length)"));
        }
        let mut head = bytes[..len].to_vec();
        let stored = LE::read_u32(&head[16..]);
        head[16..20].fill(0);
        if crc32fast::hash(&head) != stored {
            return Err(refuse(path, "is corrupt (header checksum mismatch)"));
        }
        if bytes[..len] != want[..] {
            let other = (len <= bytes.len() && len > 28)
                .then(|| {
                    let n = LE::read_u16(&bytes[32..]) as usize;
                    bytes
                        .get(34..34 + n)
                        .map(|s| String::from_utf8_lossy(s).escape_debug().to_string())
                })
                .flatten()
                .unwrap_or_else(|| "something else".into());
            return Err(refuse(
                path,
                format!(
                    "belongs to {other} (or another index, table kind or program version), not to this solve of {}",
                    id.spec
                ),
            ));
        }
        let mut at = len;
        let mut next_tier = 0u32;
        while at + RECORD_HEAD <= bytes.len() {
            let h = &bytes[at..at + RECORD_HEAD];
            if h[..4] != RECORD {
                break;
            }
            let first = LE::read_u32(&h[4..]);
            let last = LE::read_u32(&h[8..]);
            let cells = LE::read_u64(&h[12..]);
            let clen = LE::read_u64(&h[20..]) as usize;
            let crc = LE::read_u32(&h[28..]);
            let body_at = at + RECORD_HEAD;
            if first != next_tier || last < first || body_at + clen > bytes.len() {
                break;
            }
            let body = &bytes[body_at..body_at + clen];
            if crc32fast::hash(body) != crc {
                break;
            }
            let expected: u64 = (first..=last).map(&mut tier_size).sum();
            if expected != cells {
                break;
            }
            let raw =
                zstd::bulk::decompress(body, cells as usize * usize::from(id.width)).map_err(io)?;
            if raw.len() != cells as usize * usize::from(id.width) {
                break;
            }
            let values = unpack(&raw, id.width);
            let mut offset = 0usize;
            for t in first..=last {
                let n = tier_size(t) as usize;
                restore(t, &values[offset..offset + n])?;
                offset += n;
            }
            next_tier = last + 1;
            at = body_at + clen;
        }
        // Drop whatever follows the last good record, so appends stay valid.
        file.set_len(at as u64).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        file.sync_all().map_err(io)?;
        Ok(Checkpoint {
            file,
            path: path.to_path_buf(),
            next_tier,
        })
    }

    /// Appends tiers `first..=last` (their cells in enumeration order) and
    /// syncs; only then do they count.
    pub fn append(&mut self, first: u32, last: u32, cells: &[u32], width: u8) -> Result<()> {
        let io = |e| {
            Error::io(
                format!("cannot write checkpoint {}", self.path.display()),
                e,
            )
        };
        let raw = pack(cells, width);
        let body = zstd::bulk::compress(&raw, 1).map_err(io)?;
        let mut head = [0u8; RECORD_HEAD];
        head[..4].copy_from_slice(&RECORD);
        LE::write_u32(&mut head[4..], first);
        LE::write_u32(&mut head[8..], last);
        LE::write_u64(&mut head[12..], cells.len() as u64);
        LE::write_u64(&mut head[20..], body.len() as u64);
        LE::write_u32(&mut head[28..], crc32fast::hash(&body));
        self.file.write_all(&head).map_err(io)?;
        self.file.write_all(&body).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.next_tier = last + 1;
        Ok(())
    }

    /// Removes the checkpoint (after the finished file is in place).
    pub fn remove(self) {
        drop(self.file);
        let _ = std::fs::remove_file(&self.path);
    }
}

fn pack(cells: &[u32], width: u8) -> Vec<u8> {
    let w = usize::from(width);
    let mut out = Vec::with_capacity(cells.len() * w);
    for &c in cells {
        out.extend_from_slice(&c.to_le_bytes()[..w]);
    }
    out
}

fn unpack(raw: &[u8], width: u8) -> Vec<u32> {
    raw.chunks_exact(usize::from(width))
        .map(|b| {
            let mut x = [0u8; 4];
            x[..b.len()].copy_from_slice(b);
            u32::from_le_bytes(x)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Isolation;

    fn identity() -> Identity {
        let g = Isolation::new(3, 3).unwrap();
        Identity::of(&g, CellCodec::new(1))
    }

    fn resume(path: &Path, id: &Identity) -> Result<Checkpoint> {
        Checkpoint::resume(path, id, |_, _| Ok(()), |_| 0)
    }

    #[test]
    fn a_checkpoint_of_another_checkpoint_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtb.ckpt");
        let id = identity();
        drop(Checkpoint::create(&path, &id).unwrap());
        assert_eq!(resume(&path, &id).unwrap().next_tier, 0);
        let mut bytes = std::fs::read(&path).unwrap();
        LE::write_u32(&mut bytes[8..], CHECKPOINT_VERSION + 1);
        std::fs::write(&path, &bytes).unwrap();
        let err = resume(&path, &id).err().expect("refused").to_string();
        let want = format!(
            "has checkpoint format version {}, this build reads version {CHECKPOINT_VERSION}",
            CHECKPOINT_VERSION + 1
        );
        assert!(err.contains(&want), "{err}");
        assert!(err.contains("--restart"), "{err}");
    }

    /// The version field sits where checkpoints written before it existed
    /// kept the table format's version (1): those still resume.
    #[test]
    fn the_checkpoint_version_keeps_older_checkpoints_readable() {
        assert_eq!(CHECKPOINT_VERSION, 1);
        let b = identity().encode();
        assert_eq!(&b[..8], &MAGIC);
        assert_eq!(LE::read_u32(&b[8..]), 1);
    }
}
