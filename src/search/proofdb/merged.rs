//! Several proof databases of a game as one ([`Merged`]): merged key by
//! key, bounds met, and facts that cannot both hold refused, naming the
//! position and both files; [`merge_files`] writes the result as one
//! database (`retrograde proofdb merge`).

use super::reader::{memory_per_entry, Database};
use super::{describe, fault, possible, CheckReport, Fact, Kind, Record, Records, SaveTarget};
use crate::error::ProofFault;
use crate::search::SearchGame;
use crate::solve::memory_available;
use crate::Error;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The entries of one or more databases of a game, one per key, each with
/// the files it came from.
pub struct Merged<G: SearchGame> {
    pub(super) records: Records<G>,
    pub(super) index: HashMap<G::Key, u32>,
    /// The first and the last file that gave each record (the same file
    /// for most).
    from: Vec<(u32, u32)>,
    files: Vec<PathBuf>,
}

impl<G: SearchGame> Merged<G> {
    /// The entries, one per position, to write as one database.
    pub fn into_records(self) -> Records<G> {
        self.records
    }

    /// Distinct positions.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The records, one per key (for a game that re-proves them its own
    /// way: Sprouts).
    pub fn records(&self) -> &[Record<G::Pos, G::Key>] {
        &self.records
    }

    /// The entries `report` left unchecked, as they were read: what a run
    /// stopped while re-proving carries into its saves.
    pub fn carried(&self, report: &CheckReport) -> Records<G> {
        report
            .left
            .iter()
            .map(|&i| self.records[i as usize].clone())
            .collect()
    }

    /// What the databases say about the position with `key`.
    pub fn fact(&self, key: &G::Key) -> Option<Fact> {
        self.index.get(key).map(|&i| self.records[i as usize].fact)
    }

    /// The files record `i` came from (one, or the first and the last).
    fn sources(&self, i: usize) -> Vec<PathBuf> {
        let (a, b) = self.from[i];
        let mut files = vec![self.files[a as usize].clone()];
        if a != b {
            files.push(self.files[b as usize].clone());
        }
        files
    }

    /// The error for record `i` that does not hold: `claim`, but `why`.
    pub(crate) fn refuted(&self, game: &G, i: usize, claim: String, why: String) -> Error {
        Error::RefutedProof {
            files: self.sources(i),
            position: game.format_position(&self.records[i].pos),
            claim,
            why,
        }
    }

    /// The error for record `i`, whose fact is of the other kind.
    pub(super) fn other_kind(&self, i: usize, found: Kind, expected: Kind) -> Error {
        fault(
            &self.files[self.from[i].0 as usize],
            ProofFault::OtherKind {
                found: found.name(),
                expected: expected.name(),
            },
        )
    }
}

/// Merges databases read from `files` (in order) into one entry per key:
/// two files' bounds on one position are both true, so they are met; two
/// facts that cannot both be true (bounds that do not overlap, two
/// nimbers) refuse the whole load, naming the position and the two files,
/// rather than leave a search to stall on it or save it as impossible
/// bounds.
pub fn merge<G: SearchGame>(
    game: &G,
    parts: Vec<(PathBuf, Records<G>)>,
) -> crate::Result<Merged<G>> {
    let mut m = Merged {
        records: Vec::new(),
        index: HashMap::new(),
        from: Vec::new(),
        files: Vec::new(),
    };
    for (f, (path, records)) in parts.into_iter().enumerate() {
        let f = f as u32;
        m.files.push(path);
        for r in records {
            let Some(&i) = m.index.get(&r.key) else {
                m.index.insert(r.key, m.records.len() as u32);
                m.records.push(r);
                m.from.push((f, f));
                continue;
            };
            let i = i as usize;
            let met = match (m.records[i].fact, r.fact) {
                (Fact::Value(a), Fact::Value(b)) if possible(a.meet(b)) => {
                    Some(Fact::Value(a.meet(b)))
                }
                (Fact::Nimber(a), Fact::Nimber(b)) if a == b => Some(Fact::Nimber(a)),
                _ => None,
            };
            let Some(fact) = met else {
                return Err(Error::ContradictingProofs {
                    position: game.format_position(&r.pos),
                    first: m.files[m.from[i].0 as usize].clone(),
                    first_says: describe(m.records[i].fact),
                    second: m.files[f as usize].clone(),
                    second_says: describe(r.fact),
                });
            };
            m.records[i].fact = fact;
            m.from[i].1 = f;
        }
    }
    Ok(m)
}

/// The databases in `paths`, read and merged (see [`merge`]), all
/// of `want` if given, else of the first one's kind (a database of the other
/// kind is refused: its facts answer another question). Every header is
/// read before any entry, and a load the machine has no memory for beside
/// `memory` more (a search's table) is refused before it starts.
pub fn read<G: SearchGame>(
    g: &G,
    paths: &[PathBuf],
    want: Option<Kind>,
    memory: u64,
) -> crate::Result<(Kind, Merged<G>)> {
    let mut dbs = Vec::new();
    for path in paths {
        dbs.push(Database::open(g, path)?);
    }
    let kind = want
        .or(dbs.first().map(Database::kind))
        .unwrap_or(Kind::Values);
    let mut entries = 0u64;
    for db in &dbs {
        if db.kind() != kind {
            return Err(Error::ProofDatabase {
                path: db.path().to_path_buf(),
                fault: ProofFault::OtherKind {
                    found: db.kind().name(),
                    expected: kind.name(),
                },
            });
        }
        entries = entries.saturating_add(db.count());
    }
    let needed = entries.saturating_mul(memory_per_entry::<G>());
    if let Some(available) = memory_available() {
        if needed.saturating_add(memory) > available {
            return Err(Error::MemoryUnavailable {
                memory,
                load: Some((entries, needed)),
                available,
            });
        }
    }
    let mut parts = Vec::new();
    for db in dbs {
        let path = db.path().to_path_buf();
        parts.push((path, db.read(g)?));
    }
    Ok((kind, merge(g, parts)?))
}

/// What [`merge_files`] did.
#[derive(Clone, Debug)]
pub struct MergeReport {
    /// The game's canonical spec.
    pub game: String,
    /// Values or nimbers.
    pub kind: Kind,
    /// Each input and the entries it held.
    pub inputs: Vec<(PathBuf, u64)>,
    /// Distinct positions written.
    pub entries: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Merges the proof databases `inputs` of `game` into one at `output`, as
/// Glop merges its databases: key by key, two files' bounds on one
/// position met, and facts that cannot both hold (a win and a loss, two
/// nimbers) refused, naming the position and both files
/// ([`Error::ContradictingProofs`]), before anything is written. The output
/// is prepared first as a search's is ([`SaveTarget`]: never one of the
/// inputs, locked, written to a temporary file created exclusively and
/// renamed into place), so a refused merge leaves no file. The entries are
/// not re-proven here: `retrograde search GAME --check OUTPUT` does that.
pub fn merge_files<G: SearchGame>(
    game: &G,
    inputs: &[PathBuf],
    output: &Path,
) -> crate::Result<MergeReport> {
    let target = SaveTarget::prepare(output, inputs)?;
    let mut counts = Vec::new();
    for path in inputs {
        counts.push((path.clone(), Database::open(game, path)?.count()));
    }
    let (kind, merged) = read(game, inputs, None, 0)?;
    let mut records = merged.into_records();
    let bytes = target.save(game, kind, &mut records)?;
    Ok(MergeReport {
        game: game.spec(),
        kind,
        inputs: counts,
        entries: records.len(),
        bytes,
    })
}
