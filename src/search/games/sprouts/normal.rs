//! Normal-play Sprouts by Lemoine and Viennot's method: positions as sums
//! of lands, proved by couples `L + *k` in the game-independent engine
//! ([`crate::search::couples`]), over Sprouts' lands in Glop's canonical
//! form, ordered by their lives.

use crate::games::sprouts::{Land, Position};
pub use crate::search::couples::{Couples, Folded, Lands, INF};
pub use crate::search::engine::Options;

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

    fn children_until(
        &self,
        land: &Land,
        lands: &mut Vec<Land>,
        ends: &mut Vec<u32>,
        stop: &mut dyn FnMut(u64, u64) -> bool,
    ) -> bool {
        let Some(kids) = land.children_until(stop) else {
            return false;
        };
        for c in kids {
            lands.extend(c);
            ends.push(lands.len() as u32);
        }
        true
    }

    /// No table or strategy answers a Sprouts land: one met as a child is
    /// interned only when the search goes into it (on `sprouts:14`, 566,258
    /// of the 612,016 lands met never were).
    fn intern_children(&self) -> bool {
        false
    }

    /// Half a land's lives, not Cram's whole size: a land's moves are
    /// fewer than its lives suggest (a move spends two or three of them),
    /// and on `sprouts:12`, `13` and `14` this took the couples from
    /// 115,350, 589,322 and 396,940 to 80,005, 136,691 and 254,405 (CPU
    /// 8.5, 43.8 and 38.3 s to 5.3, 12.4 and 29.9; `sprouts:11` alike,
    /// 34,056 and 34,608), where twice the lives or their square over four
    /// did worse on 13.
    fn fresh_dn(&self, lives: u32) -> u32 {
        1 + lives / 2
    }

    /// Glop's notation of the land with its heap, as a position.
    fn text(&self, land: &Land, heap: u32) -> String {
        Position::new(vec![land.clone()], heap).to_string()
    }

    /// Glop's notation of the position the lands and the heap make.
    fn sum_text(&self, lands: &[&Land], heap: u32) -> String {
        Position::new(lands.iter().map(|&l| l.clone()).collect(), heap).to_string()
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
