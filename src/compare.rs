//! Entry-by-entry comparison of two tablebases of the same game, e.g. one
//! made with other threads, another version, or symmetry folding.
//!
//! The walk runs over every position of the plain (unfolded) index and reads
//! each file through its own index, so a folded and an unfolded file compare
//! position by position.

use crate::error::{Error, Result};
use crate::game::Game;
use crate::reader::{Storage, Tablebase};
use crate::value::Outcome;
use rayon::prelude::*;

/// How two tables differ.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Positions compared.
    pub positions: u64,
    /// Positions whose value (win/lose/tie/draw) differs.
    pub value: u64,
    /// Positions with the same value but another remoteness.
    pub remoteness: u64,
    /// Positions with another nimber (nimber tables).
    pub nimber: u64,
    /// Positions that one file answers and the other does not.
    pub missing: u64,
    /// The first differing positions: notation, first file's and second
    /// file's answers.
    pub first: Vec<(String, Option<Outcome>, Option<Outcome>)>,
}

impl Comparison {
    /// True when every position has the same answer in both files.
    pub fn identical(&self) -> bool {
        self.value + self.remoteness + self.nimber + self.missing == 0
    }
}

const KEEP: usize = 10;

/// Compares `a` and `b`, which must hold the same game and table kind.
pub fn compare<D: Storage + Sync, E: Storage + Sync>(
    a: &Tablebase<D>,
    b: &Tablebase<E>,
) -> Result<Comparison> {
    let (ha, hb) = (a.header(), b.header());
    if ha.spec != hb.spec {
        return Err(Error::GameMismatch {
            spec: ha.spec.clone(),
            reason: format!("is not the second file's game {}", hb.spec),
        });
    }
    if ha.kind() != hb.kind() {
        return Err(Error::GameMismatch {
            spec: ha.spec.clone(),
            reason: format!(
                "is stored as a {} table in the first file and a {} table in the second",
                ha.kind().name(),
                hb.kind().name()
            ),
        });
    }
    crate::with_game!(a.game(), ga => {
        let plain = ga.unfolded();
        let gb = if b.game().is_folded() {
            plain.folded().map_err(|e| Error::GameMismatch {
                spec: hb.spec.clone(),
                reason: e,
            })?
        } else {
            plain.clone()
        };
        Ok(compare_games(&plain, ga, a, &gb, b))
    })
}

fn compare_games<G: Game, D: Storage + Sync, E: Storage + Sync>(
    plain: &G,
    ga: &G,
    a: &Tablebase<D>,
    gb: &G,
    b: &Tablebase<E>,
) -> Comparison {
    const CHUNK: u64 = 1 << 16;
    let size = plain.size();
    let parts: Vec<Comparison> = (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut out = Comparison::default();
            for i in c * CHUNK..((c + 1) * CHUNK).min(size) {
                let Some(p) = plain.decode(i) else { continue };
                out.positions += 1;
                let (ia, ib) = (ga.encode(&p), gb.encode(&p));
                let oa = a.probe_index(ia).ok().flatten();
                let ob = b.probe_index(ib).ok().flatten();
                let na = a.nimber_index(ia).ok().flatten();
                let nb = b.nimber_index(ib).ok().flatten();
                let differs = match (oa, ob) {
                    (None, None) => false,
                    (Some(x), Some(y)) if x.value != y.value => {
                        out.value += 1;
                        true
                    }
                    (Some(x), Some(y)) if x.remoteness != y.remoteness => {
                        out.remoteness += 1;
                        true
                    }
                    (Some(_), Some(_)) if na != nb => {
                        out.nimber += 1;
                        true
                    }
                    (Some(_), Some(_)) => false,
                    _ => {
                        out.missing += 1;
                        true
                    }
                };
                if differs && out.first.len() < KEEP {
                    out.first.push((plain.format_position(&p), oa, ob));
                }
            }
            out
        })
        .collect();
    let mut total = Comparison::default();
    for p in parts {
        total.positions += p.positions;
        total.value += p.value;
        total.remoteness += p.remoteness;
        total.nimber += p.nimber;
        total.missing += p.missing;
        for f in p.first {
            if total.first.len() < KEEP {
                total.first.push(f);
            }
        }
    }
    total
}
