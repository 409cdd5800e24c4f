//! Any registered game through its own [`Game`] rules: positions are the
//! table index, so only the sizes a table allows. The fast search
//! representations are checked against it, and games without one (the
//! take-away games) are searched through it.

use crate::games::AnyGame;
use crate::search::SearchGame;
use crate::value::Value;
use crate::{with_game, Game};

/// A registered game's rules, for the search.
#[derive(Clone, Debug)]
pub struct TableRules<G> {
    game: G,
}

impl TableRules<AnyGame> {
    /// The search view of a registered game; loopy games are refused (a
    /// proof-number search needs an acyclic game).
    pub fn new(game: AnyGame) -> Result<TableRules<AnyGame>, String> {
        let mut game = game;
        with_game!(&mut game, g => *g = g.unfolded());
        if !with_game!(&game, g => g.acyclic()) {
            return Err(
                "positions can repeat, and the search proves acyclic games only; solve its table instead"
                    .into(),
            );
        }
        Ok(TableRules { game })
    }

    /// The game.
    pub fn game(&self) -> &AnyGame {
        &self.game
    }
}

impl SearchGame for TableRules<AnyGame> {
    /// The position's index in the game's (unfolded) table.
    type Pos = u64;
    /// The move in the game's notation.
    type Move = String;
    type Key = u64;

    fn spec(&self) -> String {
        with_game!(&self.game, g => g.spec())
    }
    fn start(&self) -> u64 {
        with_game!(&self.game, g => g.encode(&g.start()))
    }
    fn parse_position(&self, s: &str) -> Result<u64, String> {
        with_game!(&self.game, g => g.parse_position(s).map(|p| g.encode(&p)))
    }
    fn format_position(&self, p: &u64) -> String {
        with_game!(&self.game, g => g.format_position(&g.decode(*p).expect("a search position decodes")))
    }
    fn format_move(&self, m: &String) -> String {
        m.clone()
    }
    fn terminal(&self, p: &u64) -> Option<Value> {
        with_game!(&self.game, g => g.primitive(&g.decode(*p).expect("a search position decodes")))
    }
    fn moves(&self, p: &u64) -> Vec<(String, u64)> {
        with_game!(&self.game, g => {
            let pos = g.decode(*p).expect("a search position decodes");
            g.moves(&pos).into_iter().map(|(m, c)| (g.format_move(&m), g.encode(&c))).collect()
        })
    }
    fn key(&self, p: &u64) -> u64 {
        *p
    }
    fn position_of_key(&self, key: &u64) -> Option<u64> {
        Some(*key)
    }
    fn impartial(&self) -> bool {
        with_game!(&self.game, g => g.nimbers().is_ok())
    }
    fn ties(&self) -> bool {
        // Impartial games end when a player cannot move: someone wins.
        !self.impartial()
    }
}
