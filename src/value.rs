//! Game values and remoteness: what a position is worth to the player to
//! move. How a value is stored in a cell is the file format's business
//! ([`crate::format`]): the format depends on this module, never the other
//! way.

use std::fmt;

/// The game-theoretic value of a position for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// The player to move can force a win.
    Win,
    /// The player to move loses against perfect play.
    Lose,
    /// Perfect play ends the game with neither player winning.
    Tie,
    /// Perfect play never ends the game (loopy games only).
    Draw,
}

impl Value {
    /// All values, in the order used by counts and reports.
    pub const ALL: [Value; 4] = [Value::Win, Value::Lose, Value::Tie, Value::Draw];

    /// The value the same result has for the other player.
    #[must_use]
    pub const fn flip(self) -> Value {
        match self {
            Value::Win => Value::Lose,
            Value::Lose => Value::Win,
            v => v,
        }
    }

    /// Lower-case name used in JSON and text output.
    pub const fn name(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Lose => "lose",
            Value::Tie => "tie",
            Value::Draw => "draw",
        }
    }

    /// Position of this value in [`Value::ALL`].
    pub const fn ordinal(self) -> usize {
        match self {
            Value::Win => 0,
            Value::Lose => 1,
            Value::Tie => 2,
            Value::Draw => 3,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value together with its remoteness (moves to the end under perfect play).
///
/// Remoteness rules (as in GamesmanClassic): a game-over position has
/// remoteness 0; a win is 1 + the smallest remoteness among losing children; a
/// tie (no losing child, some tying child) is 1 + the smallest remoteness among
/// tying children; a loss is 1 + the largest remoteness among its children. A
/// draw has no remoteness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Win, lose, tie or draw for the player to move.
    pub value: Value,
    /// Moves to the end of the game under perfect play; `None` for a draw.
    pub remoteness: Option<u32>,
}

impl Outcome {
    /// A game-over position with the given value.
    pub const fn primitive(value: Value) -> Outcome {
        Outcome {
            value,
            remoteness: Some(0),
        }
    }

    /// A drawn position.
    pub const DRAW: Outcome = Outcome {
        value: Value::Draw,
        remoteness: None,
    };

    /// Orders outcomes of *children* from the point of view of the player
    /// choosing among them: smaller is better for the chooser. A losing child
    /// (a win for the chooser) with small remoteness comes first, then tying
    /// children by smallest remoteness, then draws, then winning children by
    /// largest remoteness (the longest resistance).
    pub fn child_rank(self) -> (u8, i64) {
        let r = i64::from(self.remoteness.unwrap_or(0));
        match self.value {
            Value::Lose => (0, r),
            Value::Tie => (1, r),
            Value::Draw => (2, 0),
            Value::Win => (3, -r),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.remoteness {
            Some(r) => write!(f, "{} in {}", self.value, r),
            None => write!(f, "{}", self.value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_rank_prefers_quick_wins_then_ties_then_long_losses() {
        let lose1 = Outcome {
            value: Value::Lose,
            remoteness: Some(1),
        };
        let lose5 = Outcome {
            value: Value::Lose,
            remoteness: Some(5),
        };
        let tie = Outcome {
            value: Value::Tie,
            remoteness: Some(3),
        };
        let win2 = Outcome {
            value: Value::Win,
            remoteness: Some(2),
        };
        let win9 = Outcome {
            value: Value::Win,
            remoteness: Some(9),
        };
        let mut v = vec![win2, tie, lose5, Outcome::DRAW, win9, lose1];
        v.sort_by_key(|o| o.child_rank());
        assert_eq!(v, vec![lose1, lose5, tie, Outcome::DRAW, win9, win2]);
    }
}
