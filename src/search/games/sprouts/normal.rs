//! Normal-play Sprouts by Lemoine and Viennot's method: positions as sums
//! of lands, proved by couples `L + *k` in the game-independent engine
//! ([`crate::search::couples`]), over Sprouts' lands in Glop's canonical
//! form, ordered by their lives.

use crate::games::sprouts::{Land, Position};
pub use crate::search::couples::{Couples, Folded, Lands, Options, INF};

/// Sprouts' lands for the couples engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct SproutsLands;

impl Lands for SproutsLands {
    type Land = Land;

    fn size(&self, land: &Land) -> u32 {
        land.lives()
    }

    fn children(&self, land: &Land) -> Vec<Vec<Land>> {
        land.children()
    }
}

/// The normal-play engine.
pub type Normal<'a> = Couples<'a, SproutsLands>;

impl<'a> Couples<'a, SproutsLands> {
    /// An engine with `options`' memory and limits.
    pub fn new(options: &Options) -> Normal<'a> {
        Couples::with_lands(SproutsLands, options)
    }

    /// Whether the player to move wins `p` (`None` if stopped first).
    pub fn wins(&mut self, p: &Position) -> Option<bool> {
        self.wins_sum(p.lands(), p.heap())
    }

    /// The nimber of `p` (`None` if stopped first).
    pub fn nimber(&mut self, p: &Position) -> Option<u32> {
        self.nimber_sum(p.lands(), p.heap())
    }
}
