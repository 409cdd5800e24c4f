//! Subtraction games: one pile of chips; a move removes s ∈ S chips.
//!
//! Spec `subtraction:N:S[:misere]`, e.g. `subtraction:1000:1,3,4`: every pile
//! size 0..=N is solved. Normal play: the player who cannot move loses;
//! misère: the player who cannot move wins. The index is the pile size and
//! the tier too (every move makes the pile smaller).
//!
//! Notation: a position is the pile size (`17`); a move is the number of
//! chips taken (`3`).

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "One pile of chips. Players take turns removing chips; a move takes one of the amounts the spec lists (subtraction:N:S, S the amounts). The player who cannot move loses (with :misere, wins).";

use crate::game::Game;
use crate::games::board::{BoardView, View};
use crate::value::Value;

/// Largest pile: the table has N+1 entries of up to four bytes each.
pub const MAX_PILE: u64 = 1_000_000_000;

/// A subtraction game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subtraction {
    max: u64,
    set: Vec<u64>,
    misere: bool,
}

impl Subtraction {
    /// A subtraction game on piles 0..=`max` with subtraction set `set`.
    pub fn new(max: u64, set: &[u64], misere: bool) -> crate::Result<Subtraction> {
        Subtraction::build(max, set, misere).map_err(crate::games::bad_parameters("subtraction"))
    }

    fn build(max: u64, set: &[u64], misere: bool) -> Result<Subtraction, String> {
        if max > MAX_PILE {
            return Err(format!("pile size {max} is above the supported {MAX_PILE}"));
        }
        let mut set = set.to_vec();
        set.sort_unstable();
        set.dedup();
        if set.is_empty() {
            return Err("the subtraction set is empty".into());
        }
        if set[0] == 0 {
            return Err("the subtraction set must not contain 0 (a move must remove chips)".into());
        }
        if set.len() > 64 {
            return Err("at most 64 subtraction amounts are supported".into());
        }
        Ok(Subtraction { max, set, misere })
    }

    /// Parses `N:S[:misere]`.
    pub fn from_params(params: &str) -> Result<Subtraction, String> {
        let usage = "expected subtraction:N:S[:misere], e.g. subtraction:1000:1,3,4";
        let (n, rest) = params.split_once(':').ok_or(usage)?;
        let (s, rest) = match rest.split_once(':') {
            Some((s, r)) => (s, Some(r)),
            None => (rest, None),
        };
        let quote = crate::error::Error::quote;
        let max: u64 = crate::games::parse_num(n)
            .ok_or_else(|| format!("pile size {} is not a number ({usage})", quote(n)))?;
        if s.is_empty() {
            return Err(format!("the subtraction set is empty ({usage})"));
        }
        // Amounts may repeat or come in any order (a set; the canonical
        // spec lists each once, ascending), but an empty item is a typo.
        let set = s
            .split(',')
            .map(|x| {
                if x.is_empty() {
                    return Err(crate::games::empty_item(s));
                }
                crate::games::parse_num::<u64>(x).ok_or_else(|| {
                    format!("subtraction amount {} is not a number ({usage})", quote(x))
                })
            })
            .collect::<Result<Vec<u64>, String>>()?;
        let misere = crate::games::parse_play(rest)?;
        Subtraction::build(max, &set, misere)
    }
}

impl Game for Subtraction {
    type Position = u64;
    type Move = u64;

    fn spec(&self) -> String {
        let set: Vec<String> = self.set.iter().map(u64::to_string).collect();
        format!(
            "subtraction:{}:{}{}",
            self.max,
            set.join(","),
            if self.misere { ":misere" } else { "" }
        )
    }

    fn file_stem(&self) -> String {
        let set: Vec<String> = self.set.iter().map(u64::to_string).collect();
        format!(
            "subtraction-{}-{}{}",
            self.max,
            set.join("."),
            if self.misere { "-misere" } else { "" }
        )
    }

    fn index_scheme(&self) -> u16 {
        1
    }

    fn size(&self) -> u64 {
        self.max + 1
    }

    fn encode(&self, p: &u64) -> u64 {
        *p
    }

    fn decode(&self, index: u64) -> Option<u64> {
        (index <= self.max).then_some(index)
    }

    fn start(&self) -> u64 {
        self.max
    }

    fn primitive(&self, p: &u64) -> Option<Value> {
        (*p < self.set[0]).then_some(if self.misere { Value::Win } else { Value::Lose })
    }

    fn moves(&self, p: &u64) -> Vec<(u64, u64)> {
        if self.primitive(p).is_some() {
            return Vec::new();
        }
        self.set
            .iter()
            .take_while(|&&s| s <= *p)
            .map(|&s| (s, p - s))
            .collect()
    }

    #[inline]
    fn for_each_child_index(&self, p: &u64, mut f: impl FnMut(u64)) {
        for &s in self.set.iter().take_while(|&&s| s <= *p) {
            f(p - s);
        }
    }

    /// Piles `t·m .. (t+1)·m` (m = the smallest amount) form tier t: a move
    /// takes at least m chips, so it always reaches a lower tier.
    fn tier_count(&self) -> u32 {
        (self.max / self.set[0] + 1) as u32
    }

    fn tier(&self, p: &u64) -> u32 {
        (*p / self.set[0]) as u32
    }

    fn tier_units(&self, _tier: u32) -> u64 {
        1
    }

    fn for_each_in_unit(&self, tier: u32, _unit: u64, mut f: impl FnMut(u64, &u64)) {
        let m = self.set[0];
        let first = u64::from(tier) * m;
        for p in first..(first + m).min(self.max + 1) {
            f(p, &p);
        }
    }

    fn max_remoteness(&self) -> u32 {
        u32::try_from(self.max).unwrap_or(u32::MAX)
    }

    fn max_nimber(&self) -> u32 {
        self.set.len() as u32
    }

    fn nimbers(&self) -> Result<(), String> {
        super::normal_play_only(self.misere)
    }

    fn player_to_move(&self, _: &u64) -> Option<u8> {
        None
    }

    fn parse_position(&self, s: &str) -> Result<u64, String> {
        super::parse_bounded(s, self.max, "pile size", "a pile size (a whole number)")
    }

    fn format_position(&self, p: &u64) -> String {
        p.to_string()
    }

    fn format_move(&self, m: &u64) -> String {
        m.to_string()
    }
}

/// The pile as a number; a move is chosen by the amount, not on a board.
impl View for Subtraction {
    fn board_view(&self, p: &u64) -> BoardView {
        BoardView::number(*p).with_moves(self, p, |_| Vec::new())
    }
}

/// Drawn at the sizes its tables take.
impl crate::games::board::ForView for Subtraction {
    fn for_view(params: &str) -> Result<Subtraction, String> {
        Subtraction::from_params(params)
    }
}
