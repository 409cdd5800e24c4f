//! Cells: how a value and its remoteness (or a nimber) are stored on disk.
//!
//! A cell is a little-endian unsigned integer of 1, 2 or 4 bytes (the width is
//! in the file header). Its top two bits hold the value code, the rest the
//! remoteness:
//!
//! | top bits | meaning | low bits |
//! |---|---|---|
//! | `00` | no value: low bits `0` = not a position (or not yet solved), `1` = draw | 0 or 1 |
//! | `01` | win for the player to move  | remoteness |
//! | `10` | lose for the player to move | remoteness |
//! | `11` | tie                          | remoteness |
//!
//! So a one-byte cell holds remoteness 0..=63, a two-byte cell 0..=16383 and a
//! four-byte cell 0..=2^30−1. Nimber tables store `nimber + 1` instead.
//! Zero means "nothing here", which is what a freshly allocated (zeroed)
//! table contains, so an unsolved entry can never be mistaken for a value.

use crate::value::{Outcome, Value};

/// Cell code for "not a position / not solved".
pub const CELL_NONE: u32 = 0;
/// Cell code for a draw.
pub const CELL_DRAW: u32 = 1;

/// What a table's cells hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableKind {
    /// Value and remoteness (cell encoding 1).
    Value,
    /// Sprague–Grundy value of an impartial game (cell encoding 2).
    Nimber,
}

impl TableKind {
    /// The cell-encoding id stored in the header.
    pub const fn id(self) -> u8 {
        match self {
            TableKind::Value => 1,
            TableKind::Nimber => 2,
        }
    }

    /// The kind with a header id.
    pub const fn from_id(id: u8) -> Option<TableKind> {
        match id {
            1 => Some(TableKind::Value),
            2 => Some(TableKind::Nimber),
            _ => None,
        }
    }

    /// Name used in output: `value` or `nimber`.
    pub const fn name(self) -> &'static str {
        match self {
            TableKind::Value => "value",
            TableKind::Nimber => "nimber",
        }
    }
}

/// Cell layout: the table kind and the cell width (1, 2 or 4 bytes).
///
/// Value cells: top two bits the value code, the rest the remoteness (see the
/// module docs). Nimber cells: 0 = not a position, `k + 1` = nimber `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellCodec {
    kind: TableKind,
    shift: u32,
}

impl CellCodec {
    /// The value-and-remoteness codec for cells of `width` bytes (1, 2 or 4).
    pub const fn new(width: u8) -> CellCodec {
        CellCodec {
            kind: TableKind::Value,
            shift: width as u32 * 8 - 2,
        }
    }

    /// The nimber codec for cells of `width` bytes (1, 2 or 4).
    pub const fn nimbers(width: u8) -> CellCodec {
        CellCodec {
            kind: TableKind::Nimber,
            shift: width as u32 * 8 - 2,
        }
    }

    /// The codec of a kind and width.
    pub const fn of(kind: TableKind, width: u8) -> CellCodec {
        match kind {
            TableKind::Value => CellCodec::new(width),
            TableKind::Nimber => CellCodec::nimbers(width),
        }
    }

    /// What the cells hold.
    pub const fn kind(self) -> TableKind {
        self.kind
    }

    /// Width of a cell in bytes.
    pub const fn width(self) -> u8 {
        ((self.shift + 2) / 8) as u8
    }

    /// Largest remoteness a value cell of this width can hold.
    pub const fn max_remoteness(self) -> u32 {
        (1 << self.shift) - 1
    }

    /// Largest nimber a nimber cell of this width can hold.
    pub const fn max_nimber(self) -> u32 {
        let all = if self.shift + 2 >= 32 {
            u32::MAX
        } else {
            (1u32 << (self.shift + 2)) - 1
        };
        all - 1
    }

    /// Encodes a win/lose/tie with remoteness `r`, or `None` if `r` does not fit.
    #[inline]
    pub const fn encode(self, value: Value, r: u32) -> Option<u32> {
        if r > self.max_remoteness() {
            return None;
        }
        let code = match value {
            Value::Win => 1,
            Value::Lose => 2,
            Value::Tie => 3,
            Value::Draw => return Some(CELL_DRAW),
        };
        Some(code << self.shift | r)
    }

    /// Encodes a nimber, or `None` if it does not fit.
    #[inline]
    pub const fn encode_nimber(self, k: u32) -> Option<u32> {
        if k > self.max_nimber() {
            None
        } else {
            Some(k + 1)
        }
    }

    /// Encodes an outcome, or `None` if its remoteness does not fit.
    pub fn encode_outcome(self, o: Outcome) -> Option<u32> {
        match o.remoteness {
            None => Some(CELL_DRAW),
            Some(r) => self.encode(o.value, r),
        }
    }

    /// Decodes a cell; `None` for "not a position". An impossible value cell
    /// (a code-00 cell other than 0 or 1) also decodes to `None`. A nimber
    /// cell decodes to win (nimber > 0) or lose (nimber 0) without remoteness.
    #[inline]
    pub fn decode(self, cell: u32) -> Option<Outcome> {
        if self.kind == TableKind::Nimber {
            return self.nimber(cell).map(|k| Outcome {
                value: if k == 0 { Value::Lose } else { Value::Win },
                remoteness: None,
            });
        }
        let r = cell & self.max_remoteness();
        let value = match cell >> self.shift {
            1 => Value::Win,
            2 => Value::Lose,
            3 => Value::Tie,
            _ => {
                return (cell == CELL_DRAW).then_some(Outcome::DRAW);
            }
        };
        Some(Outcome {
            value,
            remoteness: Some(r),
        })
    }

    /// The nimber in a nimber cell; `None` for "not a position" or a value table.
    #[inline]
    pub fn nimber(self, cell: u32) -> Option<u32> {
        (self.kind == TableKind::Nimber && cell != CELL_NONE).then(|| cell - 1)
    }

    /// The value code (0..=3) of a value cell.
    #[inline]
    pub const fn code(self, cell: u32) -> u32 {
        cell >> self.shift
    }

    /// The remoteness bits of a value cell.
    #[inline]
    pub const fn remoteness(self, cell: u32) -> u32 {
        cell & self.max_remoteness()
    }

    /// Smallest value-cell width (1, 2 or 4 bytes) whose remoteness range covers `bound`.
    pub const fn width_for(bound: u32) -> Option<u8> {
        if bound <= CellCodec::new(1).max_remoteness() {
            Some(1)
        } else if bound <= CellCodec::new(2).max_remoteness() {
            Some(2)
        } else if bound <= CellCodec::new(4).max_remoteness() {
            Some(4)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_cell_code() {
        for width in [1u8, 2, 4] {
            let c = CellCodec::new(width);
            for v in [Value::Win, Value::Lose, Value::Tie] {
                for r in [0, 1, 7, c.max_remoteness()] {
                    let cell = c.encode(v, r).unwrap();
                    assert_ne!(cell, CELL_NONE);
                    assert_eq!(
                        c.decode(cell),
                        Some(Outcome {
                            value: v,
                            remoteness: Some(r)
                        })
                    );
                }
                assert_eq!(c.encode(v, c.max_remoteness() + 1), None);
            }
            assert_eq!(c.decode(CELL_DRAW), Some(Outcome::DRAW));
            assert_eq!(c.decode(CELL_NONE), None);
            assert_eq!(c.decode(2), None);
        }
        assert_eq!(CellCodec::new(1).max_remoteness(), 63);
        assert_eq!(CellCodec::width_for(63), Some(1));
        assert_eq!(CellCodec::width_for(64), Some(2));
        assert_eq!(CellCodec::width_for(1 << 20), Some(4));
        assert_eq!(CellCodec::width_for(1 << 30), None);
        let n = CellCodec::nimbers(1);
        assert_eq!(n.max_nimber(), 254);
        assert_eq!(n.encode_nimber(255), None);
        assert_eq!(n.nimber(n.encode_nimber(0).unwrap()), Some(0));
        assert_eq!(n.nimber(CELL_NONE), None);
        assert_eq!(CellCodec::nimbers(4).max_nimber(), u32::MAX - 1);
    }
}
