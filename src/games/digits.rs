//! The digit game: from n, subtract one of n's non-zero decimal digits.
//!
//! Spec `digits:N[:misere]`: every number 0..=N is solved. Normal play: the
//! player who reaches 0 wins (so 0 is a loss for the player to move, who
//! cannot move); misère: the player who reaches 0 loses. The index and the
//! tier are the number itself.
//!
//! Notation: a position is the number (`42`); a move is the digit subtracted
//! (`4`).

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "One number. Players take turns subtracting one of the number's non-zero decimal digits from it (from 42: 4 or 2). The player who reaches 0 wins (with :misere, loses).";

use crate::game::Game;
use crate::games::board::{BoardView, View};
use crate::value::Value;

/// Largest start number.
pub const MAX_NUMBER: u64 = 1_000_000_000;

/// The digit game on 0..=N.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digits {
    max: u64,
    misere: bool,
}

/// The distinct non-zero decimal digits of `n`, as a bit mask (bit d = digit d).
#[inline]
fn digit_mask(mut n: u64) -> u16 {
    let mut mask = 0u16;
    while n > 0 {
        mask |= 1 << (n % 10);
        n /= 10;
    }
    mask & !1
}

impl Digits {
    /// The digit game on 0..=`max`.
    pub fn new(max: u64, misere: bool) -> crate::Result<Digits> {
        Digits::build(max, misere).map_err(crate::games::bad_parameters("digits"))
    }

    fn build(max: u64, misere: bool) -> Result<Digits, String> {
        if max > MAX_NUMBER {
            return Err(format!("number {max} is above the supported {MAX_NUMBER}"));
        }
        Ok(Digits { max, misere })
    }

    /// Parses `N[:misere]`.
    pub fn from_params(params: &str) -> Result<Digits, String> {
        let (n, rest) = match params.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (params, None),
        };
        let max: u64 = crate::games::parse_num(n).ok_or_else(|| {
            format!(
                "expected digits:N[:misere], e.g. digits:1000; {} is not a number",
                crate::error::Error::quote(n)
            )
        })?;
        Digits::build(max, crate::games::parse_play(rest)?)
    }
}

impl Game for Digits {
    type Position = u64;
    type Move = u64;

    fn spec(&self) -> String {
        format!(
            "digits:{}{}",
            self.max,
            if self.misere { ":misere" } else { "" }
        )
    }

    fn file_stem(&self) -> String {
        format!(
            "digits-{}{}",
            self.max,
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
        (*p == 0).then_some(if self.misere { Value::Win } else { Value::Lose })
    }

    fn moves(&self, p: &u64) -> Vec<(u64, u64)> {
        let mask = digit_mask(*p);
        (1..10u64)
            .filter(|d| mask & (1 << d) != 0)
            .map(|d| (d, p - d))
            .collect()
    }

    #[inline]
    fn for_each_child_index(&self, p: &u64, mut f: impl FnMut(u64)) {
        let mut mask = digit_mask(*p);
        while mask != 0 {
            let d = u64::from(mask.trailing_zeros());
            mask &= mask - 1;
            f(p - d);
        }
    }

    fn tier_count(&self) -> u32 {
        (self.max + 1) as u32
    }

    fn tier(&self, p: &u64) -> u32 {
        *p as u32
    }

    fn tier_units(&self, _tier: u32) -> u64 {
        1
    }

    fn for_each_in_unit(&self, tier: u32, _unit: u64, mut f: impl FnMut(u64, &u64)) {
        let p = u64::from(tier);
        f(p, &p);
    }

    fn max_remoteness(&self) -> u32 {
        self.max as u32
    }

    fn max_nimber(&self) -> u32 {
        9
    }

    fn nimbers(&self) -> Result<(), String> {
        super::normal_play_only(self.misere)
    }

    fn player_to_move(&self, _: &u64) -> Option<u8> {
        None
    }

    fn parse_position(&self, s: &str) -> Result<u64, String> {
        super::parse_bounded(s, self.max, "number", "a whole number")
    }

    fn format_position(&self, p: &u64) -> String {
        p.to_string()
    }

    fn format_move(&self, m: &u64) -> String {
        m.to_string()
    }
}

/// The pile as a number; a move is chosen by the amount, not on a board.
impl View for Digits {
    fn board_view(&self, p: &u64) -> BoardView {
        BoardView::number(*p).with_moves(self, p, |_| Vec::new())
    }
}

/// Drawn at the sizes its tables take.
impl crate::games::board::ForView for Digits {
    fn for_view(params: &str) -> Result<Digits, String> {
        Digits::from_params(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_of_numbers() {
        assert_eq!(digit_mask(0), 0);
        assert_eq!(digit_mask(10), 1 << 1);
        assert_eq!(digit_mask(907), (1 << 9) | (1 << 7));
        let g = Digits::new(100, false).unwrap();
        assert_eq!(g.moves(&22), vec![(2, 20)]);
    }
}
