//! Re-derivation: every entry recomputed from its children with the game's
//! rules, independently of the generator.
//!
//! The generator walks tiers and uses the game's fast child-index path; this
//! walks plain index order, uses the game's `moves` (position objects,
//! re-encoded), checks that indices round-trip, and applies the value rules
//! to decoded outcomes. A disagreement between the two paths shows up here.
//!
//! The same local rules check loopy tables (games with draws) completely:
//! a draw must have no losing and no tying child and some drawing child; a
//! win in r a losing child in r−1 and none smaller; a loss in r only
//! winning children, the largest in r−1. Remoteness strictly decreases
//! along those witnesses down to game over, so by induction on r every
//! stored win, loss and tie is right and every true one is stored; what is
//! left — the draws — is then right too. (A table that labelled a cycle
//! with wins and losses, or a true result as a draw, breaks a rule
//! somewhere.)

use crate::error::Result;
use crate::game::Game;
use crate::reader::{Storage, Tablebase};
use crate::value::{Outcome, TableKind, Value};
use rayon::prelude::*;

/// Known tablebases: spec, index scheme, table kind, entry count, data CRC32
/// (tablebases/MANIFEST.tsv).
pub const MANIFEST: &str = include_str!("../tablebases/MANIFEST.tsv");

/// A manifest line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// Canonical game spec.
    pub spec: String,
    /// Index scheme (e.g. Isolation 1 plain, 2 symmetry-folded).
    pub index_scheme: u16,
    /// Table kind (`value` or `nimber`).
    pub kind: String,
    /// Entry count.
    pub entries: u64,
    /// Data CRC32.
    pub data_crc: u32,
}

/// The manifest line for a header's game, index scheme and table kind.
pub fn manifest_entry(h: &crate::format::Header) -> Option<ManifestEntry> {
    manifest()
        .into_iter()
        .find(|m| m.spec == h.spec && m.index_scheme == h.index_scheme && m.kind == h.kind().name())
}

/// Parses the embedded manifest (comment lines start with `#`).
pub fn manifest() -> Vec<ManifestEntry> {
    MANIFEST
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some(ManifestEntry {
                spec: f.first()?.to_string(),
                index_scheme: f.get(1)?.parse().ok()?,
                kind: f.get(2)?.to_string(),
                entries: f.get(3)?.parse().ok()?,
                data_crc: u32::from_str_radix(f.get(4)?.trim_start_matches("0x"), 16).ok()?,
            })
        })
        .collect()
}

/// One entry that does not re-derive.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Its index.
    pub index: u64,
    /// The position, in the game's notation, if the index is a position.
    pub position: Option<String>,
    /// What the table holds.
    pub stored: Option<Outcome>,
    /// What the rules give.
    pub expected: Option<Outcome>,
}

/// Result of re-deriving a table.
#[derive(Clone, Debug, Default)]
pub struct Rederivation {
    /// Entries checked.
    pub checked: u64,
    /// Entries that disagree.
    pub mismatches: u64,
    /// The first few (lowest-index) disagreements.
    pub first: Vec<Mismatch>,
}

const KEEP: usize = 10;

/// The value rule on plain outcomes of children (see [`Outcome`]).
pub fn expected_from_children(children: &[Outcome]) -> Option<Outcome> {
    if children.is_empty() {
        return None;
    }
    let best = |v: Value, pick: fn(u32, u32) -> u32| {
        children
            .iter()
            .filter(|o| o.value == v)
            .filter_map(|o| o.remoteness)
            .reduce(pick)
    };
    let outcome = |value, r: u32| Outcome {
        value,
        remoteness: Some(r + 1),
    };
    if let Some(r) = best(Value::Lose, u32::min) {
        Some(outcome(Value::Win, r))
    } else if let Some(r) = best(Value::Tie, u32::min) {
        Some(outcome(Value::Tie, r))
    } else if children.iter().any(|o| o.value == Value::Draw) {
        Some(Outcome::DRAW)
    } else {
        best(Value::Win, u32::max).map(|r| outcome(Value::Lose, r))
    }
}

/// A header statistic that disagrees with the data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatisticMismatch {
    /// Which figure, e.g. `"count of win"`.
    pub what: String,
    /// What the header says.
    pub stored: u64,
    /// What the data says.
    pub counted: u64,
}

/// Recounts every statistic the header states (entries by value,
/// non-positions, largest remoteness by value, largest nimber) from the
/// data, and lists each that disagrees. The header CRC only shows the header
/// is as written; this shows it tells the truth about the data.
pub fn check_statistics<D: AsRef<[u8]> + Sync>(tb: &Tablebase<D>) -> Vec<StatisticMismatch> {
    let data = tb.data();
    let codec = tb.codec();
    let w = usize::from(codec.width());
    let n = usize::try_from(tb.len())
        .unwrap_or(usize::MAX)
        .min(data.len() / w.max(1));
    let cell = |i: usize| {
        let mut b = [0u8; 4];
        b[..w].copy_from_slice(&data[i * w..i * w + w]);
        u32::from_le_bytes(b)
    };
    let counted = crate::solve::summarize_cells(n, cell, codec);
    let stored = &tb.header().summary;
    let mut out = Vec::new();
    let mut check = |what: String, stored: u64, counted: u64| {
        if stored != counted {
            out.push(StatisticMismatch {
                what,
                stored,
                counted,
            });
        }
    };
    for v in Value::ALL {
        let i = v.ordinal();
        check(
            format!("count of {}", v.name()),
            stored.counts[i],
            counted.counts[i],
        );
    }
    check(
        "count of non-positions".into(),
        stored.non_positions,
        counted.non_positions,
    );
    for v in [Value::Win, Value::Lose, Value::Tie] {
        let i = v.ordinal();
        check(
            format!("largest remoteness of {}", v.name()),
            u64::from(stored.max_remoteness[i]),
            u64::from(counted.max_remoteness[i]),
        );
    }
    check(
        "largest nimber".into(),
        u64::from(stored.max_nimber),
        u64::from(counted.max_nimber),
    );
    out
}

/// Whether the bytes between the end of the header and the data (`file`
/// holds at least the file's first `data_offset` bytes) are all zero, as
/// docs/FORMAT.md requires: nothing may hide in the padding.
pub fn padding_is_zero(file: &[u8], header: &crate::format::Header) -> bool {
    let from = header.encoded_len();
    let to = usize::try_from(header.data_offset).unwrap_or(usize::MAX);
    file.get(from..to)
        .is_some_and(|p| p.iter().all(|&b| b == 0))
}

/// Re-derives every entry of `tb` from its children.
pub fn rederive<G: Game, D: Storage + Sync>(game: &G, tb: &Tablebase<D>) -> Result<Rederivation> {
    const CHUNK: u64 = 1 << 16;
    let size = game.size();
    let chunks = size.div_ceil(CHUNK);
    let nimbers = tb.codec().kind() == TableKind::Nimber;
    let parts: Vec<Rederivation> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut out = Rederivation::default();
            let mut kids = Vec::new();
            for index in c * CHUNK..((c + 1) * CHUNK).min(size) {
                out.checked += 1;
                let cell = tb.cell(index).unwrap_or(u32::MAX);
                let stored = tb.probe_index(index).ok().flatten();
                let pos = game.decode(index);
                let expected = match &pos {
                    None => None,
                    Some(p) if game.encode(p) != index => None,
                    Some(p) if nimbers => {
                        let expected = expected_nimber(game, tb, p);
                        if tb.codec().nimber(cell) != expected {
                            out.mismatches += 1;
                            if out.first.len() < KEEP {
                                out.first.push(Mismatch {
                                    index,
                                    position: Some(game.format_position(p)),
                                    stored,
                                    expected: expected.and_then(|k| tb.codec().decode(k + 1)),
                                });
                            }
                        }
                        continue;
                    }
                    Some(p) => match game.primitive(p) {
                        Some(Value::Draw) => Some(Outcome::DRAW),
                        Some(v) => Some(Outcome::primitive(v)),
                        None => {
                            kids.clear();
                            let mut missing = false;
                            for (_, child) in game.moves(p) {
                                match tb.probe_index(game.encode(&child)).ok().flatten() {
                                    Some(o) => kids.push(o),
                                    None => missing = true,
                                }
                            }
                            if missing {
                                None
                            } else {
                                expected_from_children(&kids)
                            }
                        }
                    },
                };
                if stored != expected {
                    out.mismatches += 1;
                    if out.first.len() < KEEP {
                        out.first.push(Mismatch {
                            index,
                            position: pos.as_ref().map(|p| game.format_position(p)),
                            stored,
                            expected,
                        });
                    }
                }
            }
            out
        })
        .collect();
    let mut total = Rederivation::default();
    for p in parts {
        total.checked += p.checked;
        total.mismatches += p.mismatches;
        for m in p.first {
            if total.first.len() < KEEP {
                total.first.push(m);
            }
        }
    }
    Ok(total)
}

/// The nimber the rules give a position: 0 at game over (normal play), else
/// the mex of the children's stored nimbers; `None` if a child has none.
fn expected_nimber<G: Game, D: Storage>(
    game: &G,
    tb: &Tablebase<D>,
    p: &G::Position,
) -> Option<u32> {
    if game.primitive(p).is_some() {
        return Some(0);
    }
    let mut seen = Vec::new();
    for (_, child) in game.moves(p) {
        seen.push(tb.nimber_index(game.encode(&child)).ok().flatten()?);
    }
    // Computed here rather than with the solver's mex, to stay independent.
    (0..).find(|k| !seen.contains(k))
}
