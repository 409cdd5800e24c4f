//! Sprouts for the search: the game's own positions (`crate::games::sprouts`:
//! Glop's notation, moves, reductions and canonical forms) and two engines
//! of its own, since Sprouts has no table to check a search against and
//! its sums need more than the generic engines give.
//!
//! - Normal play ([`normal`]): Lemoine and Viennot's method. A position is
//!   the sum of its lands, so its outcome is that of one land beside a Nim
//!   heap, `L + *k`, once the other lands' nimbers are known: df-pn proves
//!   such *couples* (a loss of `L + *k` is the nimber of `L`: k), and a
//!   child of several lands whose nimbers are not all known is settled by
//!   computing the nimbers of all but its largest land, each by couples
//!   `L + *0`, `L + *1`, ... The nimber of a position is found the same way.
//! - Misère play ([`misere`]): lands do not add, so whole positions are
//!   proved, by df-pn with every position met remembered by its canonical
//!   form.
//!
//! Proof databases ([`proof`]) keep the couples (normal play) or positions
//! (misère) a result rests on, in the project's proof-database format, and
//! re-prove them from their children: the smallest set found is Glop's
//! "check computation".
//!
//! The [`SearchGame`] here is the game as the generic machinery (proof
//! database files, openings) sees it: a position with its heap, its moves
//! written as the positions they lead to (Glop's children), and a key that
//! is a 128-bit hash of the canonical form (the engines themselves
//! remember exact canonical forms; a database stores each position's text,
//! from which loading recomputes the key).

mod engine;
pub mod misere;
pub mod normal;
pub mod proof;

use super::Represents;
use crate::games::sprouts::{Position, Sprouts};
use crate::search::{mix64, SearchGame};
use crate::value::Value;

/// Sprouts as the search represents it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SproutsSearch {
    game: Sprouts,
}

impl Represents<Sprouts> for SproutsSearch {
    fn represent(d: &Sprouts) -> Option<Result<Self, String>> {
        Some(Ok(SproutsSearch { game: *d }))
    }
}

impl SproutsSearch {
    /// Sprouts from `spots` spots, misère when `misere`.
    pub fn new(spots: u32, misere: bool) -> Result<SproutsSearch, String> {
        Ok(SproutsSearch {
            game: Sprouts::new(spots, misere)?,
        })
    }

    /// The game's description.
    pub fn game(&self) -> Sprouts {
        self.game
    }

    /// Whether this is misère play.
    pub fn misere(&self) -> bool {
        self.game.misere()
    }
}

/// A 128-bit hash of a position's canonical bytes and heap.
pub fn key_of(p: &Position) -> u128 {
    let (mut a, mut b) = (0x243f_6a88_85a3_08d3u64, 0x1319_8a2e_0370_7344u64);
    let mut word = |w: u64| {
        a = mix64(a ^ w);
        b = mix64(b.wrapping_add(w).rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15);
    };
    for land in p.lands() {
        for chunk in land.as_bytes().chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            word(u64::from_le_bytes(w) ^ (chunk.len() as u64) << 56);
        }
    }
    word(u64::from(p.heap()) | 1 << 40);
    u128::from(a) << 64 | u128::from(b)
}

impl SearchGame for SproutsSearch {
    type Pos = Position;
    /// A move is written as the position it leads to (Glop's children).
    type Move = Position;

    /// Glop's check database: [`proof::shrink_normal`] (couples) or
    /// [`proof::shrink_misere`] (positions).
    fn shrink(
        &self,
        records: &[crate::search::proofdb::Record<Position, u128>],
        root: &Position,
    ) -> Result<crate::search::proofdb::Records<Self>, crate::search::proofdb::Shrink> {
        let shrunk = match self.misere() {
            true => proof::shrink_misere(records, root),
            false => proof::shrink_normal(records, root),
        };
        shrunk.ok_or(crate::search::proofdb::Shrink::Unsettled)
    }
    type Key = u128;

    fn spec(&self) -> String {
        self.game.spec()
    }

    fn start(&self) -> Position {
        self.game.start()
    }

    fn parse_position(&self, s: &str) -> Result<Position, String> {
        Position::parse(s)
    }

    fn format_position(&self, p: &Position) -> String {
        p.to_string()
    }

    fn format_move(&self, m: &Position) -> String {
        m.to_string()
    }

    fn terminal(&self, p: &Position) -> Option<Value> {
        p.is_over().then_some(if self.misere() {
            Value::Win
        } else {
            Value::Lose
        })
    }

    fn moves(&self, p: &Position) -> Vec<(Position, Position)> {
        p.children().into_iter().map(|c| (c.clone(), c)).collect()
    }

    fn key(&self, p: &Position) -> u128 {
        key_of(p)
    }

    fn impartial(&self) -> bool {
        !self.misere()
    }

    fn ties(&self) -> bool {
        false
    }

    /// The lands, each a position, and the heap as one.
    fn components(&self, p: &Position) -> Vec<Position> {
        let mut out: Vec<Position> = p
            .lands()
            .iter()
            .map(|l| Position::new(vec![l.clone()], 0))
            .collect();
        if p.heap() > 0 {
            out.push(Position::new(Vec::new(), p.heap()));
        }
        out
    }
}
