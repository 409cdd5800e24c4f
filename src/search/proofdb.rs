//! Proof databases: what a search proved, kept in a file so that a later
//! search resumes from it (`search --load`) and a check can re-prove it
//! (`search --check`).
//!
//! Layout (little-endian), written to a temporary file and renamed into
//! place, so a crash never leaves a half-written database under the name:
//!
//! ```text
//! magic "RTBPROOF" | version u16 | kind u8 (0 values, 1 nimbers) | key bytes u16
//! spec length u16 | spec (UTF-8) | entry count u64
//! entries: key | fact (values: lo, hi as i8 each; nimbers: u32) | position length u16 | position
//! CRC-32 of every byte before it
//! ```
//!
//! Each entry keeps a representative position in the game's notation as
//! well as its key: a check re-derives the key from the position (a
//! mismatch refuses the file) and re-proves the entry from its children.
//! The CRC is checked before any entry is used, so a damaged file never
//! yields a value.

use super::{Bounds, Key, SearchGame};
use byteorder::{ByteOrder, LittleEndian};
use std::io::Write;
use std::path::Path;

const MAGIC: &[u8; 8] = b"RTBPROOF";
const VERSION: u16 = 1;

/// What the entries hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bounds on a position's value for the player to move.
    Values,
    /// A component's nimber.
    Nimbers,
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

/// The records of a game's database.
pub type Records<G> = Vec<Record<<G as SearchGame>::Pos, <G as SearchGame>::Key>>;

/// Writes a proof database of `game`: every record, in key order (so equal
/// contents give equal files). The records are sorted in place and streamed
/// to the file through a buffer, the CRC computed on the way: saving needs
/// no second copy of the entries (a search saving 49 M positions used to
/// gather them twice, once sorted and once as the file's bytes). Keys are
/// unique (the searches' records come from maps), so an unstable sort gives
/// one order.
pub fn save<G: SearchGame>(
    game: &G,
    path: &Path,
    kind: Kind,
    records: &mut [Record<G::Pos, G::Key>],
) -> Result<u64, String> {
    let spec = game.spec();
    let spec_len = u16::try_from(spec.len())
        .map_err(|_| "the game's spec is too long for a proof database".to_string())?;
    if records.iter().any(|r| {
        !matches!(
            (kind, r.fact),
            (Kind::Values, Fact::Value(_)) | (Kind::Nimbers, Fact::Nimber(_))
        )
    }) {
        return Err("a proof database holds one kind of fact".into());
    }
    // Sorted by the key's stored bytes; two buffers reused by every
    // comparison instead of a key copy per record.
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    records.sort_unstable_by(|a, b| {
        ka.clear();
        a.key.write(&mut ka);
        kb.clear();
        b.key.write(&mut kb);
        ka.cmp(&kb)
    });
    write_new(path, |file| {
        let mut w = CrcWriter::new(file);
        let mut head = Vec::new();
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&VERSION.to_le_bytes());
        head.push(match kind {
            Kind::Values => 0,
            Kind::Nimbers => 1,
        });
        head.extend_from_slice(&(G::Key::BYTES as u16).to_le_bytes());
        head.extend_from_slice(&spec_len.to_le_bytes());
        head.extend_from_slice(spec.as_bytes());
        head.extend_from_slice(&(records.len() as u64).to_le_bytes());
        w.put(&head)?;
        let mut entry = Vec::new();
        for r in records.iter() {
            entry.clear();
            r.key.write(&mut entry);
            match r.fact {
                Fact::Value(b) => entry.extend_from_slice(&[b.lo as u8, b.hi as u8]),
                Fact::Nimber(n) => entry.extend_from_slice(&n.to_le_bytes()),
            }
            let pos = game.format_position(&r.pos);
            let len = u16::try_from(pos.len())
                .map_err(|_| "a position is too long for a proof database".to_string())?;
            entry.extend_from_slice(&len.to_le_bytes());
            entry.extend_from_slice(pos.as_bytes());
            w.put(&entry)?;
        }
        w.finish()
    })
}

/// A buffered writer that keeps the CRC-32 and length of what went through
/// it, and appends the CRC at the end.
struct CrcWriter<'a> {
    out: std::io::BufWriter<&'a mut std::fs::File>,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<'a> CrcWriter<'a> {
    fn new(file: &'a mut std::fs::File) -> Self {
        CrcWriter {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
            len: 0,
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.crc.update(bytes);
        self.len += bytes.len() as u64;
        self.out.write_all(bytes).map_err(|e| e.to_string())
    }

    /// Appends the CRC and flushes; returns the file's length.
    fn finish(mut self) -> Result<u64, String> {
        let crc = self.crc.clone().finalize();
        self.out
            .write_all(&crc.to_le_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| e.to_string())?;
        Ok(self.len + 4)
    }
}

/// Writes a new file at `path` with `fill`: to a temporary file next to it
/// (created exclusively, never through an existing name), synced and
/// renamed over `path`; on any error the temporary file is removed. An
/// output that exists and is not a regular file is refused.
fn write_new(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> Result<u64, String>,
) -> Result<u64, String> {
    let shown = path.display();
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_file() {
            return Err(format!(
                "{shown}: exists and is not a regular file; refusing to replace it"
            ));
        }
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| format!("{shown}: not a file name"))?;
    let mut tmp_name = name.to_os_string();
    tmp_name.push(format!(".{}.partial", std::process::id()));
    let tmp = dir.join(tmp_name);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| format!("{}: {e}", tmp.display()))?;
    let result = fill(&mut f).and_then(|len| {
        f.sync_all()
            .and_then(|()| std::fs::rename(&tmp, path))
            .map(|()| len)
            .map_err(|e| e.to_string())
    });
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{shown}: {e}")
    })
}

/// Refuses an output that exists and is not a regular file (a directory, a
/// device, a FIFO, a symbolic link): saving replaces only files. Called
/// before a search, so a long search is not lost to a bad name at its end.
pub fn check_output(path: &Path) -> Result<(), String> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_file() {
            return Err(format!(
                "{}: exists and is not a regular file; refusing to replace it",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Reads a proof database of `game`, checking its CRC, its game and every
/// entry's key against its position before returning anything.
pub fn load<G: SearchGame>(game: &G, path: &Path) -> Result<(Kind, Records<G>), String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    let bad = |why: &str| format!("{shown}: not a usable proof database: {why}");
    if bytes.len() < 8 + 2 + 1 + 2 + 2 + 8 + 4 || &bytes[..8] != MAGIC {
        return Err(bad("no proof database header"));
    }
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != LittleEndian::read_u32(tail) {
        return Err(bad("its checksum does not match (damaged or truncated)"));
    }
    let mut r = Reader { b: body, at: 8 };
    let version = r.u16().ok_or_else(|| bad("truncated"))?;
    if version != VERSION {
        return Err(bad(&format!(
            "format version {version}; this build reads {VERSION}"
        )));
    }
    let kind = match r.take(1).ok_or_else(|| bad("truncated"))?[0] {
        0 => Kind::Values,
        1 => Kind::Nimbers,
        k => return Err(bad(&format!("unknown kind {k}"))),
    };
    let key_bytes = r.u16().ok_or_else(|| bad("truncated"))? as usize;
    if key_bytes != G::Key::BYTES {
        return Err(bad("its keys are not this game's"));
    }
    let spec_len = r.u16().ok_or_else(|| bad("truncated"))? as usize;
    let spec = std::str::from_utf8(r.take(spec_len).ok_or_else(|| bad("truncated"))?)
        .map_err(|_| bad("spec"))?;
    if spec != game.spec() {
        return Err(format!(
            "{shown}: a proof database of {spec}, not of {}",
            game.spec()
        ));
    }
    let count = r.u64().ok_or_else(|| bad("truncated"))?;
    let mut records = Vec::new();
    for _ in 0..count {
        let key = G::Key::read(r.take(key_bytes).ok_or_else(|| bad("truncated"))?);
        let fact = match kind {
            Kind::Values => {
                let f = r.take(2).ok_or_else(|| bad("truncated"))?;
                let b = Bounds {
                    lo: f[0] as i8,
                    hi: f[1] as i8,
                };
                if !(-1..=1).contains(&b.lo) || !(-1..=1).contains(&b.hi) || b.lo > b.hi {
                    return Err(bad("an entry's bounds are impossible"));
                }
                Fact::Value(b)
            }
            Kind::Nimbers => Fact::Nimber(r.u32().ok_or_else(|| bad("truncated"))?),
        };
        let len = r.u16().ok_or_else(|| bad("truncated"))? as usize;
        let text = std::str::from_utf8(r.take(len).ok_or_else(|| bad("truncated"))?)
            .map_err(|_| bad("a position is not text"))?;
        let pos = game
            .parse_position(text)
            .map_err(|e| bad(&format!("position {text:?}: {e}")))?;
        if game.key(&pos) != key {
            return Err(bad(&format!(
                "position {text:?} does not have its stored key"
            )));
        }
        records.push(Record { key, fact, pos });
    }
    if r.at != body.len() {
        return Err(bad("bytes after the last entry"));
    }
    Ok((kind, records))
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(LittleEndian::read_u16)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(LittleEndian::read_u32)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(LittleEndian::read_u64)
    }
}

/// The result of re-proving a database.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Entries re-proven from their children.
    pub checked: u64,
    /// Children not in the database, proven by a new search.
    pub searched: u64,
}

/// Why a check ended early: a limit or a stop request.
const STOPPED: &str = "the check was stopped before it finished";

/// Re-proves every value entry from its children (Glop's "check
/// computation"): a win has a losing child, a loss only winning children,
/// and so on for each bound. A child's value comes from its own entry, the
/// rules (game over, an immediate win) or a new search. Since every entry
/// is checked and the game is acyclic, the entries are then all true: a
/// false one with the fewest moves left would rest on true facts only.
pub fn check_values<G: SearchGame>(
    game: &G,
    records: &[Record<G::Pos, G::Key>],
    search: &mut super::dfpn::Dfpn<'_, G>,
) -> Result<CheckReport, String> {
    use std::collections::HashMap;
    let mut facts: HashMap<G::Key, Bounds> = HashMap::new();
    for r in records {
        if let Fact::Value(b) = r.fact {
            facts.insert(r.key, b);
            search.add_known(r.key, b);
        }
    }
    let mut report = CheckReport::default();
    for r in records {
        // Most entries need no search, so the searches' own stop checks
        // could be minutes apart over millions of them.
        if super::stop_requested() {
            return Err(STOPPED.into());
        }
        let Fact::Value(b) = r.fact else { continue };
        let shown = || game.format_position(&r.pos);
        if let Some(v) = game.terminal(&r.pos) {
            let s = super::score(v);
            if s < b.lo || s > b.hi {
                return Err(format!(
                    "entry {} claims {b:?}, but the game is over with {v}",
                    shown()
                ));
            }
            report.checked += 1;
            continue;
        }
        // Does the child answer "at least k" with `want`? From its entry or
        // the rules if they settle it, else by a search.
        let mut child_is =
            |c: &G::Pos, k: i8, want: bool, report: &mut CheckReport| -> Result<bool, String> {
                let known = if let Some(v) = game.terminal(c) {
                    Some(Bounds::exact(v))
                } else if game.wins_now(c) {
                    Some(Bounds { lo: 1, hi: 1 })
                } else {
                    facts.get(&game.key(c)).copied()
                };
                if let Some(kb) = known {
                    if kb.lo >= k {
                        return Ok(want);
                    }
                    if kb.hi < k {
                        return Ok(!want);
                    }
                }
                report.searched += 1;
                match search.decide(c, k) {
                    Some(a) => Ok(a == want),
                    None => Err(STOPPED.into()),
                }
            };
        let moves = game.moves(&r.pos);
        // "At least lo": some child answers no to "at least 1 − lo". The
        // children whose answer is known are tried first: searching a
        // child that is not the proof's could take as long as a new proof.
        if b.lo > -1 {
            let k = 1 - b.lo;
            let settled = |c: &G::Pos| -> bool {
                let known = if let Some(v) = game.terminal(c) {
                    Some(Bounds::exact(v))
                } else {
                    facts.get(&game.key(c)).copied()
                };
                known.is_some_and(|kb| kb.hi < k)
            };
            let mut found = moves.iter().any(|(_, c)| settled(c));
            if !found {
                for (_, c) in &moves {
                    if child_is(c, k, false, &mut report)? {
                        found = true;
                        break;
                    }
                }
            }
            if !found {
                return Err(format!(
                    "entry {} claims a value of at least {}, but no move achieves it",
                    shown(),
                    b.lo
                ));
            }
        }
        // "At most hi": every child answers yes to "at least −hi".
        if b.hi < 1 {
            for (m, c) in &moves {
                if !child_is(c, -b.hi, true, &mut report)? {
                    return Err(format!(
                        "entry {} claims a value of at most {}, but move {} does better",
                        shown(),
                        b.hi,
                        game.format_move(m)
                    ));
                }
            }
        }
        report.checked += 1;
    }
    Ok(report)
}

/// Re-proves every nimber entry: the mex of its children's nimbers, each
/// child the nim-sum of its components, whose nimbers come from their own
/// entries or a new search (which may use the other entries; they are all
/// checked, so by the same induction as [`check_values`] all are true).
pub fn check_nimbers<G: SearchGame>(
    game: &G,
    records: &[Record<G::Pos, G::Key>],
    search: &mut super::nimber::NimberSearch<'_, G>,
) -> Result<CheckReport, String> {
    for r in records {
        if let Fact::Nimber(n) = r.fact {
            search.add_known(r.key, n, r.pos.clone());
        }
    }
    let mut report = CheckReport::default();
    for r in records {
        if super::stop_requested() {
            return Err(STOPPED.into());
        }
        let Fact::Nimber(n) = r.fact else { continue };
        let mut seen = Vec::new();
        if game.terminal(&r.pos).is_none() {
            for (_, c) in game.moves(&r.pos) {
                let m = search.nimber(&c).ok_or(STOPPED)?;
                seen.push(m);
            }
        }
        let mex = super::reference::mex(&mut seen);
        if mex != n {
            return Err(format!(
                "entry {} claims nimber {n}, its moves give {mex}",
                game.format_position(&r.pos)
            ));
        }
        report.checked += 1;
    }
    report.searched = search.stats().nodes;
    Ok(report)
}
