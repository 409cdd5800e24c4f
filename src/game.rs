//! The `Game` trait: what a game must tell the generator and the reader.
//!
//! A game is a perfect hash over its positions (an index space `0..size()`),
//! its rules (primitive values and children), and a tier function that orders
//! the solve so every move leads to a position solved earlier. The generator
//! is generic over this trait and never names a game.

use crate::value::Value;
use std::fmt::Debug;

/// Indices per work unit in the default tier scan.
pub const SCAN_CHUNK: u64 = 1 << 16;

/// A game the generator can solve and the reader can probe.
///
/// Methods taking closures are generic rather than object-safe on purpose:
/// the solver is monomorphised per game so the child enumeration inlines into
/// its hot loop.
///
/// A whole game, solved and read back (every method without a default is
/// here; the defaults scan the index space for each tier, which is fine for
/// small games):
///
/// ```
/// use retrograde::raw::RawTable;
/// use retrograde::solve::{solve_to_bytes, SolveOptions};
/// use retrograde::{Game, Value};
///
/// /// Players in turn add 1 or 2 to a running total; whoever reaches 10 wins.
/// #[derive(Clone)]
/// struct RaceTo10;
///
/// impl Game for RaceTo10 {
///     type Position = u8; // the total so far
///     type Move = u8; // the amount added
///
///     fn spec(&self) -> String {
///         "race:10".into()
///     }
///     fn file_stem(&self) -> String {
///         "race-10".into()
///     }
///     fn index_scheme(&self) -> u16 {
///         1
///     }
///     fn size(&self) -> u64 {
///         11
///     }
///     fn encode(&self, p: &u8) -> u64 {
///         u64::from(*p)
///     }
///     fn decode(&self, index: u64) -> Option<u8> {
///         (index <= 10).then_some(index as u8)
///     }
///     fn start(&self) -> u8 {
///         0
///     }
///     // Whoever reached 10 has won: the player to move has lost.
///     fn primitive(&self, p: &u8) -> Option<Value> {
///         (*p == 10).then_some(Value::Lose)
///     }
///     fn moves(&self, p: &u8) -> Vec<(u8, u8)> {
///         [1, 2].into_iter().filter(|k| p + k <= 10).map(|k| (k, p + k)).collect()
///     }
///     // Every move raises the total, so the solve starts from 10.
///     fn tier_count(&self) -> u32 {
///         11
///     }
///     fn tier(&self, p: &u8) -> u32 {
///         10 - u32::from(*p)
///     }
///     fn max_remoteness(&self) -> u32 {
///         10
///     }
///     fn player_to_move(&self, _p: &u8) -> Option<u8> {
///         None
///     }
///     fn parse_position(&self, s: &str) -> Result<u8, String> {
///         s.parse().ok().filter(|&p| p <= 10).ok_or(format!("not a total: {s}"))
///     }
///     fn format_position(&self, p: &u8) -> String {
///         p.to_string()
///     }
///     fn format_move(&self, m: &u8) -> String {
///         format!("+{m}")
///     }
/// }
///
/// // In memory here; `solve_to_file` writes the same bytes to a file.
/// let bytes = solve_to_bytes(&RaceTo10, &SolveOptions::default())?;
/// let table = RawTable::from_bytes(bytes)?.bind(RaceTo10)?;
/// // A total 1, 4 or 7 leaves the player to move a multiple of 3 from 10.
/// assert_eq!(table.probe(&1)?.value, Value::Lose);
/// assert_eq!(table.probe(&0)?.to_string(), "win in 7");
/// assert_eq!(table.best_move(&0)?.map(|m| m.mv), Some(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Game: Clone + Send + Sync + Sized {
    /// A decoded position, side to move included.
    type Position: Clone + Debug + PartialEq + Send + Sync;
    /// A move, as shown to users.
    type Move: Clone + Debug + PartialEq;

    /// Canonical spec naming the game and every rule parameter,
    /// e.g. `isolation:4x4:a=1,b=14`. Parsing it gives back an equal game.
    fn spec(&self) -> String;

    /// A short name usable in file names, e.g. `isolation-4x4`.
    fn file_stem(&self) -> String;

    /// Version of the index scheme; a file written with another scheme must
    /// not be read with this one.
    fn index_scheme(&self) -> u16;

    /// Size of the index space.
    fn size(&self) -> u64;

    /// Index of a position.
    fn encode(&self, p: &Self::Position) -> u64;

    /// The position at an index, or `None` if the index names no legal position.
    fn decode(&self, index: u64) -> Option<Self::Position>;

    /// The starting position.
    fn start(&self) -> Self::Position;

    /// The value of a game-over position for the player to move, or `None`
    /// if the game goes on.
    fn primitive(&self, p: &Self::Position) -> Option<Value>;

    /// Every legal move with the position it leads to. Used by probing,
    /// analysis and verification; the solver uses [`Game::for_each_child_index`].
    fn moves(&self, p: &Self::Position) -> Vec<(Self::Move, Self::Position)>;

    /// Calls `f` with the index of every child of a non-primitive position.
    /// Games override this with a direct computation for speed.
    #[inline]
    fn for_each_child_index(&self, p: &Self::Position, mut f: impl FnMut(u64)) {
        for (_, c) in self.moves(p) {
            f(self.encode(&c));
        }
    }

    /// Whether the game is acyclic: every move leads to a strictly lower tier,
    /// so no position can repeat. The default, `true`, selects the tiered
    /// solver. A game whose positions can repeat (a *loopy* game) returns
    /// `false` and implements [`Game::for_each_parent_index`]; it is then
    /// solved by full retrograde analysis (see `solve::loopy`): wins and
    /// losses propagate backward from game-over positions through the
    /// parents, and every position never decided is a draw. Loopy games get
    /// value tables only (no nimbers); their tier methods may be trivial (one
    /// tier and the default index scan), as they only serve to enumerate the
    /// legal positions once.
    fn acyclic(&self) -> bool {
        true
    }

    /// Calls `f` with the index of every *parent* of a position: every
    /// position having `p` as a child (loopy games; see [`Game::acyclic`]).
    ///
    /// Contract: the parents are yielded **once per move leading to `p`**, so
    /// a parent with two different moves reaching `p` is yielded twice,
    /// exactly matching the multiplicity with which
    /// [`Game::for_each_child_index`] yields `p` from that parent (the loopy
    /// solver counts children with that multiplicity and decrements once per
    /// yield, starting from [`Game::move_count`], which must therefore
    /// equal the number of indices `for_each_child_index` yields). Every
    /// parent is a legal, non-primitive position (it has a move).
    /// The order does not matter. The default yields nothing, which is only
    /// correct for acyclic games, whose solver never calls it.
    #[inline]
    fn for_each_parent_index(&self, _p: &Self::Position, _f: impl FnMut(u64)) {}

    /// Number of moves from a position (for statistics). Games may override.
    #[inline]
    fn move_count(&self, p: &Self::Position) -> u64 {
        let mut n = 0;
        self.for_each_child_index(p, |_| n += 1);
        n
    }

    /// Number of tiers; tiers are solved in order `0..tier_count()`, and every
    /// move from a position of tier `t` leads to a tier below `t`.
    fn tier_count(&self) -> u32;

    /// The tier of a position.
    fn tier(&self, p: &Self::Position) -> u32;

    /// Number of independent work units in a tier: the solver hands units to
    /// threads. Each unit's positions are disjoint from every other unit's.
    ///
    /// The default splits the index space into chunks of [`SCAN_CHUNK`]
    /// indices and [`Game::for_each_in_unit`] scans a chunk for the tier's
    /// positions: correct for any game, at the cost of decoding every index
    /// once per tier. Games with many tiers enumerate a tier directly.
    fn tier_units(&self, _tier: u32) -> u64 {
        self.size().div_ceil(SCAN_CHUNK)
    }

    /// Calls `f(index, position)` for each legal position of `tier` that
    /// belongs to work unit `unit`, in a fixed order.
    fn for_each_in_unit(&self, tier: u32, unit: u64, mut f: impl FnMut(u64, &Self::Position)) {
        let end = ((unit + 1) * SCAN_CHUNK).min(self.size());
        for index in unit * SCAN_CHUNK..end {
            if let Some(p) = self.decode(index) {
                if self.tier(&p) == tier {
                    f(index, &p);
                }
            }
        }
    }

    /// Tier streaming: the run of indices tier `tier` occupies, when the index
    /// keeps every tier in one contiguous run (in any order of tiers) and
    /// every move from tier `t` leads to tier `t − 1` exactly. A solve can
    /// then hold just two tiers in memory and write each finished tier to
    /// the file (`solve --memory`). `None` (the default): tiers interleave in
    /// the index, and a solve holds the whole table.
    ///
    /// The solver checks the promise as it goes: a child outside tier
    /// `t − 1` reads as unsolved and fails the solve with
    /// [`Error::GameInvariant`](crate::Error::GameInvariant), never a wrong
    /// value.
    fn tier_range(&self, _tier: u32) -> Option<std::ops::Range<u64>> {
        None
    }

    /// Compound moves: whether every move is a first part that leads to an
    /// *intermediate state*, then a second part (Isolation: step, then remove
    /// a square). An intermediate state is named by a position index of the
    /// same tier (the position with the first part applied and the mover
    /// unchanged), and the children of a position are exactly the
    /// completions of its intermediates. The solver then summarises each
    /// intermediate's completions once, instead of once per position that
    /// reaches it: several times less work when many positions share
    /// intermediates. Value tables only; nimber tables use the plain path.
    fn compound_moves(&self) -> bool {
        false
    }

    /// The intermediate states of a non-primitive position (compound games).
    #[inline]
    fn for_each_intermediate(&self, _p: &Self::Position, _f: impl FnMut(u64)) {}

    /// The children reached by completing the intermediate state at `index`,
    /// which decodes to `x` (compound games).
    #[inline]
    fn for_each_completion(&self, _index: u64, _x: &Self::Position, _f: impl FnMut(u64)) {}

    /// Compound games, a whole unit at once: calls `f(index, completions)`
    /// for every intermediate state of work unit `unit` of `tier`, in
    /// [`Game::for_each_in_unit`]'s order, with the indices
    /// [`Game::for_each_completion`] yields for it. The default is those two
    /// methods; a game may walk its index without decoding positions (the
    /// solver's hot loop).
    fn for_each_unit_completions(&self, tier: u32, unit: u64, mut f: impl FnMut(u64, &[u64])) {
        let mut buf = Vec::new();
        self.for_each_in_unit(tier, unit, |index, x| {
            buf.clear();
            self.for_each_completion(index, x, |c| buf.push(c));
            f(index, &buf);
        });
    }

    /// Compound games whose units are subset lattices: `Some` when the
    /// intermediates of work unit `unit` of `tier` are its whole
    /// [`Game::unit_range`], the index `first + colex(B)` naming the
    /// intermediate of the `removed`-subset B of `bits` bits, and its
    /// completions are exactly `completions + colex(B ∪ {j})` for the bits
    /// j < `bits` not in B ([`Game::for_each_unit_completions`] in other
    /// words; colex(B) = Σ_i C(s_i, i) over B's bits s_1 < s_2 < … , i from
    /// 1). The solver then takes every intermediate's best completion in
    /// contiguous slices instead of one completion at a time. `None` (the
    /// default): no such promise.
    fn unit_extensions(&self, _tier: u32, _unit: u64) -> Option<SubsetExtensions> {
        None
    }

    /// Compound games, a whole unit at once: calls `f(index, primitive,
    /// intermediates)` for every position of work unit `unit` of `tier`, in
    /// [`Game::for_each_in_unit`]'s order: its [`Game::primitive`] value,
    /// and when that is `None`, the indices [`Game::for_each_intermediate`]
    /// yields for it, in that order. The default is those methods; a game
    /// may walk its index without decoding positions.
    fn for_each_unit_intermediates(
        &self,
        tier: u32,
        unit: u64,
        f: impl FnMut(u64, Option<Value>, &[u64]),
    ) {
        unit_intermediates_by_position(self, tier, unit, f)
    }

    /// The indices of work unit `unit` of `tier` when they are exactly one
    /// run, which [`Game::for_each_in_unit`] visits in increasing order (so
    /// the solver can write a unit's cells without enumerating it again).
    /// `None` (the default): no such promise.
    fn unit_range(&self, _tier: u32, _unit: u64) -> Option<std::ops::Range<u64>> {
        None
    }

    /// A run of indices holding every position of work unit `unit` of `tier`
    /// and no other unit's, when a tier's units are consecutive runs that
    /// follow one another in unit order and together make its
    /// [`Game::tier_range`]. The ranks of an MPI job then each hold the run
    /// of their units only. The default is [`Game::unit_range`]; the ranks
    /// check the promise before they rely on it.
    fn unit_span(&self, tier: u32, unit: u64) -> Option<std::ops::Range<u64>> {
        self.unit_range(tier, unit)
    }

    /// Compound games: calls `f(u)` for each work unit `u` of `tier` that
    /// may hold an intermediate of a position of unit `unit` (a superset is
    /// allowed; the solver fails, never guesses, when one is missing). An
    /// MPI rank reads only these units' intermediates. The default is every
    /// unit of the tier.
    fn for_each_intermediate_unit(&self, tier: u32, _unit: u64, mut f: impl FnMut(u64)) {
        for u in 0..self.tier_units(tier) {
            f(u)
        }
    }

    /// Compound games: the number of groups of work units a tier splits into,
    /// such that a position's intermediates lie in its own group's units.
    /// Groups are solved one after another, which bounds the scratch memory
    /// to one group's positions. The default is one group.
    fn tier_groups(&self, _tier: u32) -> u64 {
        1
    }

    /// The work units of a group (see [`Game::tier_groups`]).
    fn group_units(&self, tier: u32, _group: u64) -> Vec<u64> {
        (0..self.tier_units(tier)).collect()
    }

    /// Whether a nimber (Sprague–Grundy) table can be built: `Ok` only for
    /// impartial games under normal play, where a game-over position is a
    /// loss for the player to move and has nimber 0.
    fn nimbers(&self) -> Result<(), String> {
        Err("nimber tables need an impartial game (both players have the same moves)".into())
    }

    /// An upper bound on any remoteness in the game, used to choose the cell
    /// width before solving.
    fn max_remoteness(&self) -> u32;

    /// An upper bound on any nimber, used to choose the nimber cell width.
    /// A mex never exceeds the number of children, so the largest number of
    /// moves from one position is always a bound; the default claims none
    /// (four-byte cells).
    fn max_nimber(&self) -> u32 {
        u32::MAX
    }

    /// Which player is to move (0 or 1), for display; `None` for impartial
    /// games whose positions do not record it.
    fn player_to_move(&self, p: &Self::Position) -> Option<u8>;

    /// The same game with its board symmetries folded into the index (a
    /// different index scheme, recorded in the header's flags), or why not.
    fn folded(&self) -> Result<Self, String> {
        Err("this game has no symmetry folding".into())
    }

    /// The same game with the plain index (the identity for unfolded games).
    fn unfolded(&self) -> Self {
        self.clone()
    }

    /// Whether the index folds symmetries: several positions share an index.
    fn is_folded(&self) -> bool {
        false
    }

    /// Parses a position in the game's notation.
    fn parse_position(&self, s: &str) -> Result<Self::Position, String>;

    /// Writes a position in the game's notation.
    fn format_position(&self, p: &Self::Position) -> String;

    /// Writes a move in the game's notation.
    fn format_move(&self, m: &Self::Move) -> String;
}

/// A unit of a compound game as a subset lattice: see
/// [`Game::unit_extensions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubsetExtensions {
    /// The bits the subsets are drawn from (at most 63).
    pub bits: u32,
    /// The size of the intermediates' subsets.
    pub removed: u32,
    /// The index of the intermediate of colex rank 0.
    pub first: u64,
    /// The index of the completion of colex rank 0 (a `removed + 1`-subset);
    /// unused when `removed == bits`.
    pub completions: u64,
}

/// [`Game::for_each_unit_intermediates`] through the unit's positions: the
/// trait's default, and what a game's own walk falls back to where it has
/// no faster one (Isolation's folded index).
pub(crate) fn unit_intermediates_by_position<G: Game>(
    game: &G,
    tier: u32,
    unit: u64,
    mut f: impl FnMut(u64, Option<Value>, &[u64]),
) {
    let mut buf = Vec::new();
    game.for_each_in_unit(tier, unit, |index, p| {
        buf.clear();
        let primitive = game.primitive(p);
        if primitive.is_none() {
            game.for_each_intermediate(p, |i| buf.push(i));
        }
        f(index, primitive, &buf);
    });
}
