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

/// Checks shared by the games' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::Game;

    /// Walks every work unit of every tier and checks that the units
    /// enumerate each legal index exactly once (and nothing else), that each
    /// index round-trips through `decode` and `encode` and lies in its tier,
    /// in increasing order within a tier when `ordered`, and that units past
    /// the end and tiers past the last are empty. Returns the legal indices.
    pub(crate) fn check_units<G: Game>(g: &G, ordered: bool) -> u64 {
        let spec = g.spec();
        let mut seen = vec![0u8; g.size() as usize];
        for t in 0..g.tier_count() {
            let mut last = None;
            for u in 0..g.tier_units(t) {
                g.for_each_in_unit(t, u, |i, p| {
                    assert_eq!(g.encode(p), i, "{spec}");
                    assert_eq!(g.decode(i).as_ref(), Some(p), "{spec}");
                    assert_eq!(g.tier(p), t, "{spec}");
                    assert!(!ordered || last < Some(i), "{spec}: increasing order");
                    last = Some(i);
                    seen[i as usize] += 1;
                });
            }
        }
        g.for_each_in_unit(0, g.tier_units(0), |_, _| {
            panic!("{spec}: unit past the end")
        });
        g.for_each_in_unit(g.tier_count(), 0, |_, _| {
            panic!("{spec}: tier past the last")
        });
        let mut legal = 0;
        for (i, &n) in seen.iter().enumerate() {
            let d = g.decode(i as u64);
            assert_eq!(n, u8::from(d.is_some()), "{spec} index {i}");
            legal += u64::from(n);
        }
        assert_eq!(g.decode(g.size()), None, "{spec}");
        legal
    }
}
