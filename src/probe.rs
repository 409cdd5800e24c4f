//! Probing by text: parse a position in the tablebase's game notation, read
//! its value, and rank its moves. What the command line and embedding programs
//! that do not know the game at compile time use.

use crate::error::{Error, Result};
use crate::game::Game;
use crate::reader::{Storage, Tablebase};
use crate::value::Outcome;

/// One legal move and what it leads to.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo {
    /// The move in the game's notation.
    pub mv: String,
    /// The resulting position in the game's notation.
    pub position: String,
    /// The resulting position's outcome for the player who moves next.
    pub child: Outcome,
    /// The resulting position's nimber (nimber tables only).
    pub nimber: Option<u32>,
    /// True for every move as good as the best.
    pub best: bool,
}

impl MoveInfo {
    /// The outcome for the player making the move: the child's value flipped,
    /// with the child's remoteness.
    pub fn for_mover(&self) -> Outcome {
        Outcome {
            value: self.child.value.flip(),
            remoteness: self.child.remoteness,
        }
    }
}

/// A probed position.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionInfo {
    /// The position in canonical notation.
    pub position: String,
    /// Its index in the table.
    pub index: u64,
    /// The player to move (0 or 1); `None` in impartial games.
    pub to_move: Option<u8>,
    /// Value and remoteness for the player to move.
    pub outcome: Outcome,
    /// Its nimber (nimber tables only).
    pub nimber: Option<u32>,
    /// Whether the game is over here.
    pub primitive: bool,
    /// Legal moves, best first (filled when asked for).
    pub moves: Vec<MoveInfo>,
}

impl<D: Storage> Tablebase<D> {
    /// Probes a position given in the game's notation (`None`: the start).
    /// With `with_moves`, also every legal move ranked best first: the
    /// shortest win, then the shortest tie, then draws, then the longest loss.
    pub fn probe_text(&self, position: Option<&str>, with_moves: bool) -> Result<PositionInfo> {
        crate::with_game!(self.game(), g => self.probe_game(g, position, with_moves))
    }

    fn probe_game<G: Game>(
        &self,
        g: &G,
        text: Option<&str>,
        with_moves: bool,
    ) -> Result<PositionInfo> {
        let p = match text {
            None => g.start(),
            Some(s) => g.parse_position(s).map_err(|reason| Error::BadPosition {
                input: s.to_string(),
                reason,
            })?,
        };
        let tb = self.bind(g)?;
        let outcome = tb.probe(&p)?;
        let primitive = g.primitive(&p).is_some();
        let mut moves = Vec::new();
        if with_moves && !primitive {
            for m in tb.moves(&p)? {
                moves.push(MoveInfo {
                    mv: g.format_move(&m.mv),
                    position: g.format_position(&m.position),
                    child: m.child,
                    nimber: tb.nimber(&m.position)?,
                    best: false,
                });
            }
            if let Some(top) = moves.first().map(|m| m.child.child_rank()) {
                for m in &mut moves {
                    m.best = m.child.child_rank() == top;
                }
            }
        }
        Ok(PositionInfo {
            position: g.format_position(&p),
            index: g.encode(&p),
            to_move: g.player_to_move(&p),
            outcome,
            nimber: self.nimber_index(g.encode(&p))?,
            primitive,
            moves,
        })
    }
}

impl<D: Storage> Tablebase<D> {
    /// The principal line from a position (`None`: the start): the position,
    /// then the position after the first best move, and so on to the end of
    /// the game. Each element but the first carries the move that led to it
    /// in `moves[0]`-style form: `(move, position)`. A drawn line never ends,
    /// so at most `max_plies` moves are followed.
    pub fn line(
        &self,
        position: Option<&str>,
        max_plies: usize,
    ) -> Result<Vec<(Option<String>, PositionInfo)>> {
        let mut out = Vec::new();
        let mut info = self.probe_text(position, true)?;
        let mut mv = None;
        loop {
            let next = info.moves.iter().find(|m| m.best).cloned();
            out.push((mv.take(), info));
            let Some(next) = next else { break };
            if out.len() > max_plies {
                break;
            }
            mv = Some(next.mv);
            info = self.probe_text(Some(&next.position), true)?;
        }
        Ok(out)
    }
}
