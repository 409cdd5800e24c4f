//! The compound path: a move that is a step then a removal (Isolation) is
//! solved in two phases per unit, the intermediates summarised over their
//! completions once, then each position given the best of its
//! intermediates, with one-byte cells ranked through lookup tables.

use super::*;

/// The choices of the compound path as table lookups, for one-byte value
/// cells (every game whose remoteness fits 63: Isolation, Connect, m,n,k,
/// ...). Every valid cell gets a rank, so that the best of several cells is
/// the one of highest rank: a `max` per cell read instead of a branch on its
/// value code, which the branch predictor cannot guess (a child's value is
/// as good as random). Rank 0 is "no value" (unsolved, or a code-00 cell
/// other than a draw), below every other.
pub(crate) struct ByteOrder {
    /// A child's cell → the rank of what it makes its parent (the parent's
    /// value negated, remoteness + 1), in [`outcome_key`]'s order.
    child: [u8; 256],
    /// That rank → the parent's cell; 0 where the remoteness overflows.
    parent: [u8; 256],
    /// A cell → its rank as its own mover's outcome ([`as_mover_key`]).
    own: [u8; 256],
    /// That rank → the cell.
    own_cell: [u8; 256],
}

impl ByteOrder {
    /// The tables of the one-byte value codec, built once; `None` for any
    /// other codec (which takes the branching path).
    pub(crate) fn of(codec: CellCodec) -> Option<&'static ByteOrder> {
        static ORDER: std::sync::OnceLock<ByteOrder> = std::sync::OnceLock::new();
        (codec == CellCodec::new(1)).then(|| ORDER.get_or_init(|| ByteOrder::new(codec)))
    }

    fn new(codec: CellCodec) -> ByteOrder {
        let valid: Vec<u32> = (0..256).filter(|&c| codec.decode(c).is_some()).collect();
        let mut t = ByteOrder {
            child: [0; 256],
            parent: [0; 256],
            own: [0; 256],
            own_cell: [0; 256],
        };
        let mut own = valid.clone();
        own.sort_by_key(|&c| as_mover_key(codec, c));
        for (rank, &c) in own.iter().enumerate() {
            t.own[c as usize] = rank as u8 + 1;
            t.own_cell[rank + 1] = c as u8;
        }
        // What each child makes its parent: the negated value, one move more.
        let parent_of = |c: u32| {
            let o = codec.decode(c).expect("a valid cell");
            let r = o.remoteness.map_or(0, |r| r + 1);
            let v = match o.value {
                Value::Win => Value::Lose,
                Value::Lose => Value::Win,
                v => v,
            };
            (v, r)
        };
        let mut kids = valid;
        kids.sort_by_key(|&c| {
            let (v, r) = parent_of(c);
            outcome_key(v, r)
        });
        for (rank, &c) in kids.iter().enumerate() {
            let (v, r) = parent_of(c);
            t.child[c as usize] = rank as u8 + 1;
            t.parent[rank + 1] = codec.encode(v, r).unwrap_or(0) as u8;
        }
        t
    }
}

/// One group of a tier of a compound game, in three parallel phases:
/// (A) each intermediate state's cell (a tier-`tier` slot, still empty)
/// receives the value its completions give the mover; (B) each position
/// takes the best of its intermediates' cells, into a scratch buffer; (C)
/// the buffer overwrites the group's slots. A position's intermediates lie in
/// its own group, so other groups never see the phase-A cells.
pub(super) fn compound_group<G: Game, T: Table + ?Sized>(
    game: &G,
    cells: &T,
    codec: CellCodec,
    tier: u32,
    group: u64,
) -> Result<Tally> {
    let units = game.group_units(tier, group);
    let completions: u64 = units
        .par_iter()
        .map(|&unit| summarise_intermediates(game, cells, codec, tier, unit))
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    let results: Vec<(Vec<u8>, Tally)> = units
        .par_iter()
        .map(|&unit| best_intermediates(game, cells, codec, tier, unit))
        .collect::<Result<_>>()?;
    // Phase C: the same enumeration order as phase B gives the indices.
    let w = usize::from(codec.width());
    results
        .par_iter()
        .zip(&units)
        .for_each(|((out, _), &unit)| {
            let mut next = out.chunks_exact(w);
            if let Some(run) = game.unit_range(tier, unit) {
                if w == 1 {
                    // A byte per cell, not a copy of unknown length (a call).
                    for (index, &c) in run.zip(out) {
                        cells.put(index, u32::from(c));
                    }
                    return;
                }
                for (index, c) in run.zip(next) {
                    cells.put(index, unpack_cell(c));
                }
                return;
            }
            game.for_each_in_unit(tier, unit, |index, _| {
                if let Some(c) = next.next() {
                    cells.put(index, unpack_cell(c));
                }
            });
        });
    let mut tally = results.iter().fold(Tally::default(), |a, (_, t)| a.add(t));
    tally.lookups += completions;
    Ok(tally)
}

/// Phase A of a compound tier for one unit; returns the completions read.
pub(crate) fn summarise_intermediates<G: Game, T: Table + ?Sized>(
    game: &G,
    cells: &T,
    codec: CellCodec,
    tier: u32,
    unit: u64,
) -> Result<u64> {
    let mut failure = None;
    let mut lookups = 0u64;
    // The intermediate's cell the branching way, with its errors: every
    // codec's path, and the one-byte path's wherever its tables see no
    // value or an overflow.
    let summarise = |index: u64, kids: &[u64]| -> Result<()> {
        let mut acc = Children::default();
        for &c in kids {
            acc.add(codec, cells.get(c), c);
        }
        match acc.value() {
            Ok(None) => Ok(()),
            Ok(Some((v, r))) => match codec.encode(v, r) {
                Some(c) => {
                    cells.put(index, c);
                    Ok(())
                }
                None => Err(overflow(codec, r)),
            },
            Err(child) => Err(Error::GameInvariant(format!(
                "intermediate {} (index {index}, tier {tier}) has completion {child} that was not solved first",
                describe(game, index)
            ))),
        }
    };
    if let Some(order) = ByteOrder::of(codec) {
        let lattice = game.unit_extensions(tier, unit);
        if let Some(n) = lattice.and_then(|e| summarise_lattice(cells, order, e)) {
            return Ok(n);
        }
    }
    match ByteOrder::of(codec) {
        Some(order) => game.for_each_unit_completions(tier, unit, |index, kids| {
            if failure.is_some() {
                return;
            }
            lookups += kids.len() as u64;
            let (mut best, mut worst) = (0u8, u8::MAX);
            for &c in kids {
                let rank = order.child[cells.get(c) as usize & 0xff];
                best = best.max(rank);
                worst = worst.min(rank);
            }
            let cell = order.parent[usize::from(best)];
            if worst != 0 && cell != 0 {
                cells.put(index, u32::from(cell));
            } else if let Err(e) = summarise(index, kids) {
                failure = Some(e);
            }
        }),
        None => game.for_each_unit_completions(tier, unit, |index, kids| {
            if failure.is_some() {
                return;
            }
            lookups += kids.len() as u64;
            if let Err(e) = summarise(index, kids) {
                failure = Some(e);
            }
        }),
    }
    failure.map_or(Ok(lookups), Err)
}

/// Phase A of a unit whose intermediates form a subset lattice
/// ([`Game::unit_extensions`]), for one-byte value cells: each completion's
/// cell is read once and ranked, and every intermediate's best is taken in
/// slices ([`extensions`]). Returns the completions compared (the same
/// count as the walk's), or `None` where a completion has no value or a
/// remoteness overflows: the caller's walk then reports which.
pub(super) fn summarise_lattice<T: Table + ?Sized>(
    cells: &T,
    order: &ByteOrder,
    e: SubsetExtensions,
) -> Option<u64> {
    if e.removed >= e.bits {
        // Nothing left to remove: no completions, no value.
        return Some(0);
    }
    let n = extensions::binomial(e.bits, e.removed);
    let kids = extensions::binomial(e.bits, e.removed + 1);
    let mut ranks = Vec::with_capacity(kids as usize);
    let mut worst = u8::MAX;
    for i in 0..kids {
        let r = order.child[cells.get(e.completions + i) as usize & 0xff];
        worst = worst.min(r);
        ranks.push(r);
    }
    if worst == 0 {
        return None;
    }
    let mut best = vec![0u8; n as usize];
    extensions::max_over_extensions(e.bits, e.removed, &mut best, &ranks);
    // Every intermediate has a completion, so every best is a rank ≥ 1.
    let mut low = u8::MAX;
    for (index, &b) in (e.first..).zip(&best) {
        let cell = order.parent[usize::from(b)];
        low = low.min(cell);
        cells.put(index, u32::from(cell));
    }
    (low != 0).then_some(n * u64::from(e.bits - e.removed))
}

/// A cell of `c.len()` little-endian bytes.
#[inline(always)]
pub(super) fn unpack_cell(c: &[u8]) -> u32 {
    let mut x = [0u8; 4];
    x[..c.len()].copy_from_slice(c);
    u32::from_le_bytes(x)
}

/// Phase B of a compound tier for one unit: the unit's cells in enumeration
/// order, packed in the table's width (the whole group's are held until
/// phase C, the solver's largest scratch, so no wider than the table), and
/// its tally.
pub(crate) fn best_intermediates<G: Game, T: Table + ?Sized>(
    game: &G,
    cells: &T,
    codec: CellCodec,
    tier: u32,
    unit: u64,
) -> Result<(Vec<u8>, Tally)> {
    let w = usize::from(codec.width());
    let mut out: Vec<u8> = Vec::new();
    if let Some(run) = game.unit_range(tier, unit) {
        out.reserve_exact((run.end - run.start) as usize * w);
    }
    let mut tally = Tally::default();
    let mut failure = None;
    let order = ByteOrder::of(codec);
    // Positions counted by cell, folded into the tally at the end: no
    // branch on each position's value.
    let mut by_cell = [0u64; 256];
    game.for_each_unit_intermediates(tier, unit, |index, primitive, inter| {
        if failure.is_some() {
            return;
        }
        let cell = match primitive {
            Some(v) => match codec.encode(v, 0) {
                Some(c) => c,
                None => {
                    failure = Some(overflow(codec, 0));
                    return;
                }
            },
            None => {
                tally.lookups += inter.len() as u64;
                // The best intermediate's cell, `None` when it has no value.
                let best = match order {
                    Some(order) => {
                        let mut best = 0u8;
                        for &i in inter {
                            best = best.max(order.own[cells.get(i) as usize & 0xff]);
                        }
                        // Rank 0 is no value; every other rank is a cell's.
                        (best != 0).then_some(u32::from(order.own_cell[usize::from(best)]))
                    }
                    None => {
                        let mut best = 0u32;
                        let mut best_key = (0u32, 0i64);
                        for &i in inter {
                            let c = cells.get(i);
                            let key = as_mover_key(codec, c);
                            if key > best_key {
                                best_key = key;
                                best = c;
                            }
                        }
                        codec.decode(best).map(|_| best)
                    }
                };
                let Some(best) = best else {
                    failure = Some(Error::GameInvariant(format!(
                        "position {} has no moves but is not game over",
                        describe(game, index)
                    )));
                    return;
                };
                best
            }
        };
        if w == 1 {
            // A push, not a one-byte copy of unknown length (a call).
            out.push(cell as u8);
            by_cell[cell as usize & 0xff] += 1;
            return;
        }
        out.extend_from_slice(&cell.to_le_bytes()[..w]);
        tally_cell(&mut tally, codec, cell, 1);
    });
    for (cell, &n) in by_cell.iter().enumerate().filter(|(_, &n)| n > 0) {
        tally_cell(&mut tally, codec, cell as u32, n);
    }
    // Growth by doubling leaves up to half the buffer spare.
    out.shrink_to_fit();
    failure.map_or(Ok((out, tally)), Err)
}
