//! The games the search knows, by spec: the same specs as the tables'
//! games, with the enumeration limits lifted where a search-only
//! representation holds the bigger boards.
//!
//! - [`occupy`]: placement games with winning patterns (mnk, pattern files,
//!   Connect-Four boards and Sogo cubes with gravity), on bitboards of 64 or
//!   256 squares.
//! - [`cram`]: Cram on up to 64 squares, split into independent regions.
//! - [`isolation`]: Isolation on up to 64 squares.
//! - [`table`]: every other registered game through its [`Game`](crate::Game)
//!   rules, at the sizes the tables allow (and the oracle the fast
//!   representations are tested against).

pub mod cram;
pub mod isolation;
pub mod occupy;
pub mod table;

use crate::games::AnyGame;

/// A game chosen at run time by its spec, as the search represents it.
#[allow(clippy::large_enum_variant)]
pub enum AnySearch {
    /// A placement game on up to 64 squares.
    Occupy1(occupy::Occupy<1>),
    /// A placement game on up to 256 squares.
    Occupy4(occupy::Occupy<4>),
    /// Cram.
    Cram(cram::CramSearch),
    /// Isolation.
    Isolation(isolation::IsolationSearch),
    /// Any other registered game, through its table rules.
    Table(table::TableRules<AnyGame>),
}

impl AnySearch {
    /// The search game of a spec: the fast representation when one exists,
    /// else the registered game's own rules.
    pub fn parse(spec: &str) -> Result<AnySearch, String> {
        if let Some(g) = occupy::parse(spec) {
            return g;
        }
        if let Some(g) = cram::parse(spec) {
            return g;
        }
        if let Some(g) = isolation::parse(spec) {
            return g;
        }
        let game = AnyGame::parse(spec).map_err(|e| e.to_string())?;
        table::TableRules::new(game).map(AnySearch::Table)
    }

    /// The search game of a spec through the registered game's own rules
    /// (sizes the tables allow): the reference the fast representations are
    /// checked against.
    pub fn parse_table_rules(spec: &str) -> Result<AnySearch, String> {
        let game = AnyGame::parse(spec).map_err(|e| e.to_string())?;
        table::TableRules::new(game).map(AnySearch::Table)
    }
}

/// Runs `$body` with `$g` bound to the concrete search game inside an
/// [`AnySearch`].
#[macro_export]
macro_rules! with_search {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::search::games::AnySearch::Occupy1($g) => $body,
            $crate::search::games::AnySearch::Occupy4($g) => $body,
            $crate::search::games::AnySearch::Cram($g) => $body,
            $crate::search::games::AnySearch::Isolation($g) => $body,
            $crate::search::games::AnySearch::Table($g) => $body,
        }
    };
}
