//! Typed views: a raw table together with its game, checked once, probed by
//! position. [`GameTable`] owns both (any [`Game`], a program's own
//! included); [`Bound`] borrows them from a [`Tablebase`].

use crate::error::{Error, Result};
use crate::game::Game;
use crate::reader::raw::RawTable;
use crate::reader::storage::{FileStorage, Storage};
use crate::reader::Tablebase;
use crate::value::Outcome;

/// A legal move, the position it leads to, and that position's outcome, as
/// [`GameTable::moves`] ranks them.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedMove<M, P> {
    /// The move.
    pub mv: M,
    /// The position it leads to.
    pub position: P,
    /// That position's outcome for the player who moves next (the mover's
    /// opponent): a `Lose` here is a win for the mover.
    pub child: Outcome,
}

impl<M, P> RankedMove<M, P> {
    /// The outcome for the player making the move: the child's value flipped,
    /// with the child's remoteness.
    pub fn for_mover(&self) -> Outcome {
        Outcome {
            value: self.child.value.flip(),
            remoteness: self.child.remoteness,
        }
    }
}

/// What [`GameTable::moves`] returns for a game `G`.
pub type Moves<G> = Vec<RankedMove<<G as Game>::Move, <G as Game>::Position>>;

/// Value and remoteness of `p`, whose game was checked against `raw`.
#[inline]
fn probe<G: Game, D: Storage>(raw: &RawTable<D>, game: &G, p: &G::Position) -> Result<Outcome> {
    let index = game.encode(p);
    raw.outcome(index)?.ok_or_else(|| Error::BadPosition {
        input: game.format_position(p),
        reason: "the table holds no value for it: not a legal position, or a damaged file (run `retrograde verify`)".into(),
    })
}

/// The legal moves of `p` with the outcome of each child for the player who
/// moves there, best first for the mover; game-over positions have none.
fn ranked_moves<G: Game, D: Storage>(
    raw: &RawTable<D>,
    game: &G,
    p: &G::Position,
) -> Result<Moves<G>> {
    if game.primitive(p).is_some() {
        return Ok(Vec::new());
    }
    let mut moves = Vec::new();
    for (mv, position) in game.moves(p) {
        let child = probe(raw, game, &position)?;
        moves.push(RankedMove {
            mv,
            position,
            child,
        });
    }
    // Stable sort keeps the game's move order among equals.
    moves.sort_by_key(|m| m.child.child_rank());
    Ok(moves)
}

/// A table together with its game, checked once by [`RawTable::bind`]:
/// probing a position is then an encode and one cell read. Works for any
/// [`Game`], including one defined outside this crate.
///
/// See [`RawTable::bind`] for an example.
pub struct GameTable<G, D = FileStorage> {
    raw: RawTable<D>,
    game: G,
}

impl<G: Game, D: Storage> GameTable<G, D> {
    /// The game.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The raw table: header, cells by index.
    pub fn raw(&self) -> &RawTable<D> {
        &self.raw
    }

    /// The raw table and the game, separated again.
    pub fn into_parts(self) -> (RawTable<D>, G) {
        (self.raw, self.game)
    }

    /// Value and remoteness of a position for the player to move. A
    /// position the table holds no value for (not legal, or a damaged cell)
    /// is an [`Error::BadPosition`].
    #[inline]
    pub fn probe(&self, p: &G::Position) -> Result<Outcome> {
        probe(&self.raw, &self.game, p)
    }

    /// The nimber of a position of a nimber table; `Ok(None)` when the table
    /// holds values or the position is not one.
    #[inline]
    pub fn nimber(&self, p: &G::Position) -> Result<Option<u32>> {
        self.raw.nimber(self.game.encode(p))
    }

    /// Every legal move of `p` with the position it leads to and that
    /// position's outcome (for the player to move there), best first for
    /// the mover: the shortest win, then the shortest tie, then draws, then
    /// the longest loss; moves as good as each other keep the game's order.
    /// A game-over position has no moves. Value tables only.
    pub fn moves(&self, p: &G::Position) -> Result<Moves<G>> {
        ranked_moves(&self.raw, &self.game, p)
    }

    /// The first of [`GameTable::moves`]: a best move; `None` when the game
    /// is over.
    pub fn best_move(&self, p: &G::Position) -> Result<Option<RankedMove<G::Move, G::Position>>> {
        Ok(self.moves(p)?.into_iter().next())
    }
}

// `bind` lives with the view it makes, so that the raw table knows nothing
// of typed views and the dependency runs one way (typed -> raw).
impl<D: Storage> RawTable<D> {
    /// Attaches `game` after [`RawTable::check_game`]: the result probes
    /// positions of the game without checking again. This is how a table
    /// solved from a program's own [`Game`] is read.
    ///
    /// ```
    /// use retrograde::games::Subtraction;
    /// use retrograde::raw::RawTable;
    /// use retrograde::{Error, Game, Value};
    ///
    /// let game = Subtraction::new(20, &[1, 2], false)?;
    /// let bytes = retrograde::solve::solve_to_bytes(&game, &Default::default())?;
    ///
    /// // Other rules are refused, not answered from the wrong table.
    /// let other = Subtraction::new(20, &[1, 3], false)?;
    /// let refused = RawTable::from_bytes(&bytes[..])?.bind(other);
    /// assert!(matches!(refused, Err(Error::GameMismatch { .. })));
    ///
    /// let table = RawTable::from_bytes(bytes)?.bind(game)?;
    /// assert_eq!(table.probe(&20)?.value, Value::Win);
    /// // From 20 chips, the best move takes 2 and leaves a multiple of 3.
    /// let best = table.best_move(&20)?.expect("20 chips is not game over");
    /// assert_eq!((best.mv, best.position), (2, 18));
    /// assert_eq!(best.for_mover().value, Value::Win);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind<G: Game>(self, game: G) -> Result<GameTable<G, D>> {
        self.check_game(&game)?;
        Ok(GameTable { raw: self, game })
    }
}

/// A tablebase together with its game, checked once by [`Tablebase::bind`]:
/// probing a position is then an encode and one cell read. The borrowed
/// counterpart of [`GameTable`].
pub struct Bound<'a, G, D = FileStorage> {
    tb: &'a Tablebase<D>,
    game: &'a G,
}

impl<'a, G: Game, D: Storage> Bound<'a, G, D> {
    /// Only [`Tablebase::bind`] makes one, after checking the game.
    pub(crate) fn new(tb: &'a Tablebase<D>, game: &'a G) -> Self {
        Bound { tb, game }
    }

    /// The game.
    pub fn game(&self) -> &G {
        self.game
    }

    /// Value and remoteness of a position.
    #[inline]
    pub fn probe(&self, p: &G::Position) -> Result<Outcome> {
        probe(self.tb.raw(), self.game, p)
    }

    /// The nimber of a position of a nimber table; `Ok(None)` when the table
    /// holds values or the position is not one.
    #[inline]
    pub fn nimber(&self, p: &G::Position) -> Result<Option<u32>> {
        self.tb.nimber_index(self.game.encode(p))
    }

    /// Every legal move of `p`, best first: see [`GameTable::moves`].
    pub fn moves(&self, p: &G::Position) -> Result<Moves<G>> {
        ranked_moves(self.tb.raw(), self.game, p)
    }
}
