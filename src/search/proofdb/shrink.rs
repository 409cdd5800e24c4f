//! Shrinking a proof database to the few entries from which the check
//! (`search --check`, `proofdb check`) re-proves its position with no
//! search: Glop's "check computation" (`retrograde proofdb shrink`).
//!
//! Nimbers leave no choice: an entry is re-proven as the mex of all its
//! moves, each a nim-sum of components, so the check needs every
//! component of every move of every entry it re-proves, and the smallest
//! database is the closure of the position's components under that
//! ([`closure`]). Values leave a choice (a win needs one losing child), so
//! the game shrinks them its own way ([`SearchGame::shrink`]: Sprouts).

use super::{fault, read, Fact, Kind, Records, SaveTarget};
use crate::error::ProofFault;
use crate::search::SearchGame;
use std::collections::HashSet;
use std::path::Path;

/// What [`shrink_file`] did.
#[derive(Clone, Debug)]
pub struct ShrinkReport {
    /// The game's canonical spec.
    pub game: String,
    /// The position proved, in the game's notation.
    pub position: String,
    /// Values or nimbers.
    pub kind: Kind,
    /// Entries read.
    pub read: usize,
    /// Entries written.
    pub entries: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Writes to `output` the fewest entries of `input` (a proof database of
/// `game`) this program finds from which the check re-proves `root` with
/// no search. The output is prepared as a search's is ([`SaveTarget`]:
/// never the input, locked, renamed into place). The entries read are not
/// re-proven here (`proofdb check OUTPUT` does that); an input whose
/// entries do not settle `root` without search is refused.
pub fn shrink_file<G: SearchGame>(
    game: &G,
    input: &Path,
    output: &Path,
    root: &G::Pos,
) -> crate::Result<ShrinkReport> {
    let inputs = [input.to_path_buf()];
    let target = SaveTarget::prepare(output, &inputs)?;
    let (kind, db) = read(game, &inputs, None, 0)?;
    let read_count = db.len();
    let shrunk = match kind {
        Kind::Nimbers => closure(game, &db.into_records(), root),
        Kind::Values => game.shrink(db.records(), root),
    };
    let mut records = shrunk.map_err(|e| {
        fault(
            input,
            match e {
                Shrink::Unsupported => ProofFault::NoShrink {
                    game: game.spec(),
                    kind: kind.name(),
                },
                Shrink::Unsettled => ProofFault::Unsettled {
                    position: game.format_position(root),
                },
            },
        )
    })?;
    let bytes = target.save(game, kind, &mut records)?;
    Ok(ShrinkReport {
        game: game.spec(),
        position: game.format_position(root),
        kind,
        read: read_count,
        entries: records.len(),
        bytes,
    })
}

/// Why a database cannot be shrunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shrink {
    /// The game has no shrinking for it.
    Unsupported,
    /// The entries do not settle the position without search.
    Unsettled,
}

/// The nimber entries the check of `root` needs: those of its components,
/// and of every component of every move of an entry needed. Fails if one
/// of those (not over) has no entry.
pub fn closure<G: SearchGame>(
    game: &G,
    records: &Records<G>,
    root: &G::Pos,
) -> Result<Records<G>, Shrink> {
    let index: std::collections::HashMap<G::Key, usize> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (r.key, i))
        .collect();
    let mut kept: HashSet<usize> = HashSet::new();
    let mut stack: Vec<G::Pos> = game.components(root);
    while let Some(p) = stack.pop() {
        if game.terminal(&p).is_some() {
            continue;
        }
        let &i = index.get(&game.key(&p)).ok_or(Shrink::Unsettled)?;
        if !matches!(records[i].fact, Fact::Nimber(_)) {
            return Err(Shrink::Unsettled);
        }
        if kept.insert(i) {
            for (_, c) in game.moves(&records[i].pos) {
                stack.extend(game.components(&c));
            }
        }
    }
    let mut kept: Vec<usize> = kept.into_iter().collect();
    kept.sort_unstable();
    Ok(kept.into_iter().map(|i| records[i].clone()).collect())
}
