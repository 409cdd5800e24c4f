//! Statistics of the positions reachable from the start.
//!
//! Reachability is swept tier by tier from the start's tier downward, with one
//! bit per index: every move leads to a lower tier, so when a tier is swept all
//! of its reachable positions are already marked.
//!
//! That order does not exist in a loopy game ([`Game::acyclic`] false), whose
//! moves can lead back to earlier positions: there the reachable positions
//! are found by a breadth-first walk from the start, with the same bitset
//! marking each position the first time it is reached.

use crate::error::{Error, Result};
use crate::game::Game;
use crate::reader::{Storage, Tablebase};
use crate::solve::{NoProgress, Progress};
use crate::value::{Outcome, Value};
use bitvec::prelude::*;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Statistics of the reachable positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// Positions reachable from the start (start and game-over positions included).
    pub reachable: u64,
    /// Reachable positions by value (win, lose, tie, draw), primitives included.
    pub counts: [u64; 4],
    /// Reachable game-over positions.
    pub primitive: u64,
    /// Reachable game-over positions by value.
    pub primitive_counts: [u64; 4],
    /// Remoteness histograms per value: `histograms[v][r]` positions.
    pub histograms: [Vec<u64>; 4],
    /// Nimber histogram (nimber tables): `nimbers[k]` positions of nimber k.
    pub nimbers: Vec<u64>,
    /// Reachable positions per tier.
    pub tiers: BTreeMap<u32, u64>,
    /// Total number of moves over all reachable positions.
    pub total_moves: u64,
    /// The start's value and remoteness.
    pub start: Option<Outcome>,
}

impl Analysis {
    /// Total moves over reachable positions ÷ reachable positions.
    pub fn average_moves(&self) -> f64 {
        if self.reachable == 0 {
            0.0
        } else {
            self.total_moves as f64 / self.reachable as f64
        }
    }

    /// Counts one reachable position of `tier` with its stored outcome and,
    /// in a nimber table, its nimber; returns whether the game is over there
    /// (its moves are then not counted and not followed).
    fn count<G: Game, D: Storage>(
        &mut self,
        game: &G,
        tb: &Tablebase<D>,
        tier: u32,
        pos: &G::Position,
        stored_at: u64,
    ) -> Result<bool> {
        let outcome = tb.probe_index(stored_at)?.ok_or_else(|| {
            Error::GameInvariant(format!(
                "reachable position {} has no value in the table",
                game.format_position(pos)
            ))
        })?;
        self.reachable += 1;
        *self.tiers.entry(tier).or_default() += 1;
        let v = outcome.value.ordinal();
        self.counts[v] += 1;
        let (hist, r) = match tb.nimber_index(stored_at) {
            Ok(Some(k)) => (&mut self.nimbers, k as usize),
            _ => (
                &mut self.histograms[v],
                outcome.remoteness.unwrap_or(0) as usize,
            ),
        };
        if hist.len() <= r {
            hist.resize(r + 1, 0);
        }
        hist[r] += 1;
        let over = game.primitive(pos).is_some();
        if over {
            self.primitive += 1;
            self.primitive_counts[v] += 1;
        }
        Ok(over)
    }

    fn merge(mut self, o: Analysis) -> Analysis {
        self.reachable += o.reachable;
        self.primitive += o.primitive;
        self.total_moves += o.total_moves;
        for v in 0..4 {
            self.counts[v] += o.counts[v];
            self.primitive_counts[v] += o.primitive_counts[v];
            let h = &mut self.histograms[v];
            if h.len() < o.histograms[v].len() {
                h.resize(o.histograms[v].len(), 0);
            }
            for (i, c) in o.histograms[v].iter().enumerate() {
                h[i] += c;
            }
        }
        if self.nimbers.len() < o.nimbers.len() {
            self.nimbers.resize(o.nimbers.len(), 0);
        }
        for (i, c) in o.nimbers.iter().enumerate() {
            self.nimbers[i] += c;
        }
        for (t, c) in o.tiers {
            *self.tiers.entry(t).or_default() += c;
        }
        self
    }
}

/// Analyses the positions reachable from the game's start in `tb`.
///
/// With a symmetry-folded table the walk still runs over the plain index, so
/// symmetric positions count separately and the figures equal those of the
/// unfolded table; only the values are read through the folded index.
pub fn analyze<G: Game, D: Storage + Sync>(game: &G, tb: &Tablebase<D>) -> Result<Analysis> {
    analyze_with(game, tb, &NoProgress)
}

/// [`analyze`], reporting to `progress`: in an acyclic game its length is
/// the work units of the tiers swept, advanced as each is done; in a loopy
/// game, the index's size, advanced by the positions visited (an upper
/// bound: the walk ends when no new position is reached).
pub fn analyze_with<G: Game, D: Storage + Sync>(
    game: &G,
    tb: &Tablebase<D>,
    progress: &dyn Progress,
) -> Result<Analysis> {
    let walk = game.unfolded();
    let size = walk.size();
    let start = walk.start();
    let reached: BitVec<AtomicU64, Lsb0> = BitVec::repeat(false, size as usize);
    reached.set_aliased(walk.encode(&start) as usize, true);
    let start_tier = walk.tier(&start);
    let folded = game.is_folded();
    let mut total = Analysis {
        start: Some(tb.probe(game, &start)?),
        ..Analysis::default()
    };
    if !walk.acyclic() {
        progress.length(size);
        return analyze_loopy(game, &walk, tb, total, progress);
    }
    progress.length((0..=start_tier).map(|t| walk.tier_units(t)).sum());
    for tier in (0..=start_tier).rev() {
        let units = walk.tier_units(tier);
        progress.tier(start_tier - tier, start_tier + 1, units);
        let part = (0..units)
            .into_par_iter()
            .map(|unit| {
                let mut a = Analysis::default();
                let mut err = None;
                walk.for_each_in_unit(tier, unit, |index, pos| {
                    if !reached[index as usize] || err.is_some() {
                        return;
                    }
                    let stored_at = if folded { game.encode(pos) } else { index };
                    match a.count(game, tb, tier, pos, stored_at) {
                        Ok(false) => {}
                        Ok(true) => return,
                        Err(e) => {
                            err = Some(e);
                            return;
                        }
                    }
                    a.total_moves += walk.move_count(pos);
                    walk.for_each_child_index(pos, |c| {
                        reached.set_aliased(c as usize, true);
                    });
                });
                progress.advance(1);
                match err {
                    Some(e) => Err(e),
                    None => Ok(a),
                }
            })
            .try_reduce(Analysis::default, |a, b| Ok(a.merge(b)))?;
        let start = total.start;
        total = total.merge(part);
        total.start = start;
    }
    Ok(total)
}

/// The breadth-first walk of a loopy game (see the module docs): each
/// layer's positions are visited in parallel; a child joins the next layer
/// if its bit was not yet set. The figures are sums over the reachable set,
/// so they do not depend on the order of the visits.
fn analyze_loopy<G: Game, D: Storage + Sync>(
    game: &G,
    walk: &G,
    tb: &Tablebase<D>,
    mut total: Analysis,
    progress: &dyn Progress,
) -> Result<Analysis> {
    let size = walk.size();
    let words: Vec<AtomicU64> = (0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    // True the first time index `i` is marked.
    let mark = |i: u64| -> bool {
        let bit = 1u64 << (i % 64);
        words[(i / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    };
    let first = walk.encode(&walk.start());
    mark(first);
    let mut layer = vec![first];
    let folded = game.is_folded();
    while !layer.is_empty() {
        let parts: Vec<(Analysis, Vec<u64>)> = layer
            .par_chunks(1 << 12)
            .map(|chunk| {
                let mut a = Analysis::default();
                let mut next = Vec::new();
                for &index in chunk {
                    let pos = walk.decode(index).ok_or_else(|| {
                        Error::GameInvariant(format!(
                            "reachable index {index} does not decode to a position"
                        ))
                    })?;
                    let stored_at = if folded { game.encode(&pos) } else { index };
                    if a.count(game, tb, walk.tier(&pos), &pos, stored_at)? {
                        continue;
                    }
                    a.total_moves += walk.move_count(&pos);
                    walk.for_each_child_index(&pos, |c| {
                        if c < size && mark(c) {
                            next.push(c);
                        }
                    });
                }
                progress.advance(chunk.len() as u64);
                Ok((a, next))
            })
            .collect::<Result<_>>()?;
        layer = Vec::new();
        let start = total.start;
        for (a, next) in parts {
            total = total.merge(a);
            layer.extend(next);
        }
        total.start = start;
    }
    Ok(total)
}

/// Counts of non-primitive positions of a value, the way the published
/// figures quote wins and losses.
pub fn non_primitive(a: &Analysis, v: Value) -> u64 {
    a.counts[v.ordinal()] - a.primitive_counts[v.ordinal()]
}
