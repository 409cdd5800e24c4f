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
use crate::format::TableKind;
use crate::game::Game;
use crate::reader::{Storage, Tablebase};
use crate::solve::{NoProgress, Progress};
use crate::value::{Outcome, Value};
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
    /// Of those, legal positions (the rest must be empty).
    pub positions: u64,
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
    rederive_with(game, tb, &NoProgress)
}

/// [`rederive`], reporting to `progress`: its length is the number of
/// entries, advanced as each chunk of them is checked.
pub fn rederive_with<G: Game, D: Storage + Sync>(
    game: &G,
    tb: &Tablebase<D>,
    progress: &dyn Progress,
) -> Result<Rederivation> {
    const CHUNK: u64 = 1 << 16;
    let size = game.size();
    progress.length(size);
    let chunks = size.div_ceil(CHUNK);
    let parts: Vec<Rederivation> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut out = Rederivation::default();
            let mut kids = Vec::new();
            for index in c * CHUNK..((c + 1) * CHUNK).min(size) {
                out.checked += 1;
                let (legal, checked) = check_entry(game, tb, index, &mut kids);
                out.positions += u64::from(legal);
                if let Err(m) = checked {
                    out.note(m);
                }
            }
            progress.advance(((c + 1) * CHUNK).min(size) - c * CHUNK);
            out
        })
        .collect();
    let mut total = Rederivation::default();
    for p in parts {
        total.checked += p.checked;
        total.positions += p.positions;
        total.mismatches += p.mismatches;
        for m in p.first {
            if total.first.len() < KEEP {
                total.first.push(m);
            }
        }
    }
    Ok(total)
}

impl Rederivation {
    /// Counts a disagreement, keeping the first few.
    fn note(&mut self, m: Mismatch) {
        self.mismatches += 1;
        if self.first.len() < KEEP {
            self.first.push(m);
        }
    }
}

/// Re-derives one entry: whether `index` is a legal position (it decodes,
/// and the position encodes back to it), and whether the stored cell is what
/// the rules give — empty for a non-position; for a position, its outcome at
/// game over or what its children's stored cells imply (their nimbers' mex
/// in a nimber table). The one rule both [`rederive`] and [`verify_sample`]
/// apply. `kids` is scratch, reused between calls.
fn check_entry<G: Game, D: Storage>(
    game: &G,
    tb: &Tablebase<D>,
    index: u64,
    kids: &mut Vec<Outcome>,
) -> (bool, std::result::Result<(), Mismatch>) {
    let cell = tb.cell(index).unwrap_or(u32::MAX);
    let stored = tb.probe_index(index).ok().flatten();
    let pos = game.decode(index).filter(|p| game.encode(p) == index);
    let legal = pos.is_some();
    let mismatch = |expected| Mismatch {
        index,
        position: pos.as_ref().map(|p| game.format_position(p)),
        stored,
        expected,
    };
    let expected = match &pos {
        None => None,
        Some(p) if tb.codec().kind() == TableKind::Nimber => {
            let expected = expected_nimber(game, tb, p);
            if tb.codec().nimber(cell) != expected {
                return (
                    legal,
                    Err(mismatch(expected.and_then(|k| tb.codec().decode(k + 1)))),
                );
            }
            return (legal, Ok(()));
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
                    expected_from_children(kids)
                }
            }
        },
    };
    if stored == expected {
        (legal, Ok(()))
    } else {
        (legal, Err(mismatch(expected)))
    }
}

/// Result of re-deriving a random sample of a table's entries.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// The seed the indices were drawn with.
    pub seed: u64,
    /// Distinct indices drawn and checked (non-positions included: their
    /// cell must be empty).
    pub drawn: u64,
    /// Of those, legal positions re-derived from their children.
    pub legal: u64,
    /// Whether every index was checked instead (the sample asked for at
    /// least as many positions as the header says the table holds).
    pub exhaustive: bool,
    /// Checked entries that disagree with the rules.
    pub mismatches: u64,
    /// The first few disagreements, in the order drawn.
    pub first: Vec<Mismatch>,
}

/// Re-derives `n` entries of legal positions drawn uniformly at random
/// (without repetition) from `tb`'s indices with `seed`, each with the same
/// rule as [`rederive`]: its children's cells are read from `tb` itself, so
/// on a file opened with [`Tablebase::open`] only the drawn cells and their
/// children's are read, never the whole table. Indices that are not
/// positions are skipped (after checking that their cell is empty) and
/// drawing goes on. If `n` is at least the number of positions the header
/// states, every index is checked, in order.
///
/// Drawing stops early (fewer than `n` positions checked) only if the table
/// has far fewer positions than its header says: after 64 times the draws
/// `n` positions need on average, plus a million, which a true header makes
/// vanishingly unlikely. A lying header does not loop forever.
pub fn verify_sample<G: Game, D: Storage + Sync>(
    game: &G,
    tb: &Tablebase<D>,
    n: u64,
    seed: u64,
) -> Result<Sample> {
    let size = game.size();
    let positions = tb.len().saturating_sub(tb.header().summary.non_positions);
    let mut out = Sample {
        seed,
        ..Sample::default()
    };
    if n >= positions {
        let all = rederive(game, tb)?;
        out.exhaustive = true;
        out.drawn = all.checked;
        out.legal = all.positions;
        out.mismatches = all.mismatches;
        out.first = all.first;
        return Ok(out);
    }
    // Draw the indices first (decoding is cheap, reading cells is not), then
    // check them in parallel: positioned reads from several threads.
    let mut rng = SplitMix64(seed);
    let mut seen = std::collections::HashSet::new();
    let mut drawn = Vec::new();
    let per_position = size / positions.max(1) + 1;
    let budget = n
        .saturating_mul(per_position)
        .saturating_mul(64)
        .saturating_add(1 << 20);
    let mut legal = 0;
    for _ in 0..budget {
        if legal == n {
            break;
        }
        let index = rng.below(size);
        if !seen.insert(index) {
            continue;
        }
        let is_position = game.decode(index).is_some_and(|p| game.encode(&p) == index);
        legal += u64::from(is_position);
        drawn.push(index);
    }
    let results: Vec<(bool, std::result::Result<(), Mismatch>)> = drawn
        .par_iter()
        .map_init(Vec::new, |kids, &index| check_entry(game, tb, index, kids))
        .collect();
    out.drawn = drawn.len() as u64;
    for (is_position, r) in results {
        out.legal += u64::from(is_position);
        if let Err(m) = r {
            out.mismatches += 1;
            if out.first.len() < KEEP {
                out.first.push(m);
            }
        }
    }
    Ok(out)
}

/// SplitMix64 (Steele, Lea & Flood 2014): a small, well-mixed generator, so
/// that a seed names the same sample on every platform and version.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound` > 0): the high half of a 128-bit
    /// product, rejecting the few low values that would bias it (Lemire 2019).
    fn below(&mut self, bound: u64) -> u64 {
        let threshold = bound.wrapping_neg() % bound;
        loop {
            let m = u128::from(self.next()) * u128::from(bound);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
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
