//! The games the search knows, by spec: the same specs as the tables'
//! games, read by the games' own code (`src/games`), with the tables' size
//! limits lifted where a search representation holds bigger boards.
//!
//! The representations, and which game uses which, are named in the games'
//! registry (`__games_registry!` in `src/games/mod.rs`, `search [...]`):
//! [`AnySearch`] and [`with_search!`](crate::with_search) are built from it
//! here, so the registry stays the one list of games.
//!
//! - `columns`: gravity games (Connect-Four boards, small Sogo cubes) as
//!   column bitboards with a sentinel row, Pons-style, built from the same
//!   description; listed before `occupy`, which takes the boards it does not
//!   (misère, more than 64 bits with sentinels).
//! - `occupy`: placement games with winning patterns (mnk, pattern files,
//!   Connect-Four boards and Sogo cubes with gravity), on bitboards of 64 or
//!   256 squares built from the game's own description.
//! - `cram`: Cram on up to 64 squares, split into independent regions.
//! - `isolation`: Isolation on up to 64 squares.
//! - `sprouts`: Sprouts (search only: no table), in Glop's notation, with
//!   its own engines (normal play by Lemoine and Viennot's G + *k, misère
//!   by whole positions).
//! - `table`: every other registered game through its [`Game`](crate::Game)
//!   rules, at the sizes the tables allow (and the oracle the fast
//!   representations are tested against).

pub(crate) mod columns;
pub(crate) mod cram;
pub(crate) mod cram_couples;
pub(crate) mod cram_sets;
pub(crate) mod isolation;
pub(crate) mod occupy;
pub(crate) mod sprouts;
pub(crate) mod table;

use crate::error::Error;
use crate::games::AnyGame;

/// A search representation of a game whose description (what its spec
/// says, before any table limit: `Game::describe`) is a `D`.
pub(crate) trait Represents<D>: Sized {
    /// The described game in this representation, or `None` when its board
    /// is for a representation listed after this one in the game's registry
    /// entry (a wider bitboard).
    fn represent(d: &D) -> Option<Result<Self, String>>;
}

/// Builds [`AnySearch`] and its spec dispatch from the games' registry: a
/// variant for each representation an entry lists.
#[doc(hidden)]
#[macro_export]
macro_rules! __search_items {
    (() $($(#[$doc:meta])* $name:literal => $variant:ident($ty:ident) { $($field:ident: $value:expr),* $(,)? } $(search [$($svar:ident($($sty:tt)+)),+ $(,)?])?),* $(,)?
        ; $($(#[$odoc:meta])* $oname:literal => $ovariant:ident($oty:ident) { $($ofield:ident: $ovalue:expr),* $(,)? } search [$($osvar:ident($($osty:tt)+)),+ $(,)?]),* $(,)?) => {
        /// A game chosen at run time by its spec, as the search represents
        /// it: one variant per representation the games' registry lists.
        #[allow(clippy::large_enum_variant)]
        pub enum AnySearch {
            $($($(
                #[doc = concat!("`", $name, "` as `", stringify!($($sty)+), "`.")]
                $svar($($sty)+),
            )+)?)*
            $($(
                #[doc = concat!("`", $oname, "` (search only) as `", stringify!($($osty)+), "`.")]
                $osvar($($osty)+),
            )+)*
            /// Any other registered game, through its table rules.
            Table(table::TableRules<AnyGame>),
        }

        impl AnySearch {
            /// The game `name` (registered) with `params` in the first of
            /// its representations that takes the board, or `None` when
            /// the registry lists none for it.
            fn from_name(name: &str, params: &str) -> Option<Result<AnySearch, String>> {
                match name {
                    $($($name => Some((|| {
                        let d = $crate::games::$ty::describe(params)?;
                        $(
                            if let Some(g) = <$($sty)+ as Represents<_>>::represent(&d) {
                                return g.map(AnySearch::$svar);
                            }
                        )+
                        Err("no search representation takes this board".to_string())
                    })()),)?)*
                    $($oname => Some((|| {
                        let d = $crate::games::$oty::describe(params)?;
                        $(
                            if let Some(g) = <$($osty)+ as Represents<_>>::represent(&d) {
                                return g.map(AnySearch::$osvar);
                            }
                        )+
                        Err("no search representation takes this game".to_string())
                    })()),)*
                    _ => None,
                }
            }

            /// Every representation of the game `name` (registered) that
            /// takes the board, in the registry's order.
            fn all_from_name(name: &str, params: &str) -> Option<Result<Vec<AnySearch>, String>> {
                match name {
                    $($($name => Some((|| {
                        let d = $crate::games::$ty::describe(params)?;
                        let mut all = Vec::new();
                        $(
                            if let Some(g) = <$($sty)+ as Represents<_>>::represent(&d) {
                                all.push(AnySearch::$svar(g?));
                            }
                        )+
                        Ok(all)
                    })()),)?)*
                    _ => None,
                }
            }
        }
    };
}

crate::__games_registry!(__search_items!());

impl AnySearch {
    /// The search game of a spec: the representation the games' registry
    /// lists for it, else the registered game's own rules.
    pub fn parse(spec: &str) -> Result<AnySearch, Error> {
        let (name, params) = crate::games::resolve(spec, &|s| AnySearch::parse(s).map(drop))?;
        let bad = |reason: String| Error::BadGame {
            spec: spec.to_string(),
            reason,
        };
        match AnySearch::from_name(name, params) {
            Some(g) => g.map_err(bad),
            None => AnyGame::from_name(name, params)
                .expect("resolve returns registered names")
                .and_then(table::TableRules::new)
                .map(AnySearch::Table)
                .map_err(bad),
        }
    }

    /// Every search representation of a spec that takes its board, in
    /// the order the games' registry lists them (the first is what
    /// [`AnySearch::parse`] gives), then the registered game's own rules
    /// when its table takes the board: what tests compare with each other.
    pub fn parse_all(spec: &str) -> Result<Vec<AnySearch>, Error> {
        let (name, params) = crate::games::resolve(spec, &|s| AnySearch::parse(s).map(drop))?;
        let mut all = match AnySearch::all_from_name(name, params) {
            Some(all) => all.map_err(|reason| Error::BadGame {
                spec: spec.to_string(),
                reason,
            })?,
            None => Vec::new(),
        };
        if let Ok(t) = AnySearch::parse_table_rules(spec) {
            all.push(t);
        }
        if all.is_empty() {
            return AnySearch::parse(spec).map(|g| vec![g]);
        }
        Ok(all)
    }

    /// The search game of a spec through the registered game's own rules
    /// (sizes the tables allow): the reference the fast representations are
    /// checked against.
    pub fn parse_table_rules(spec: &str) -> Result<AnySearch, Error> {
        let game = AnyGame::parse(spec)?;
        table::TableRules::new(game)
            .map(AnySearch::Table)
            .map_err(|reason| Error::BadGame {
                spec: spec.to_string(),
                reason,
            })
    }
}

/// Expands [`with_search!`]: one match arm per representation in the
/// games' registry, and the table rules.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_search_arms {
    (($any:expr, $g:ident, $body:expr) $($(#[$doc:meta])* $name:literal => $variant:ident($ty:ty) { $($rest:tt)* } $(search [$($svar:ident($($sty:tt)+)),+ $(,)?])?),* $(,)?
        ; $($(#[$odoc:meta])* $oname:literal => $ovariant:ident($oty:ty) { $($orest:tt)* } search [$($osvar:ident($($osty:tt)+)),+ $(,)?]),* $(,)?) => {
        match $any {
            $($($($crate::search::games::AnySearch::$svar($g) => $body,)+)?)*
            $($($crate::search::games::AnySearch::$osvar($g) => $body,)+)*
            $crate::search::games::AnySearch::Table($g) => $body,
        }
    };
}

/// Runs `$body` with `$g` bound to the concrete search game inside an
/// [`AnySearch`], so generic code is monomorphised per representation.
#[macro_export]
macro_rules! with_search {
    ($any:expr, $g:ident => $body:expr) => {
        $crate::__games_registry!(__with_search_arms!($any, $g, $body))
    };
}

/// The representations searched by the standard engines (df-pn, alpha-beta
/// where the game has its own, the component search for nimbers) with
/// tables of their own game as leaves; Cram (`cram_couples`) and Sprouts
/// (`sprouts`) name their own.
mod standard {
    use super::columns::Columns;
    use super::isolation::IsolationSearch;
    use super::occupy::{KeyWidth, Occupy, Words};
    use super::table::TableRules;
    use crate::games::AnyGame;
    use crate::search::prover::Engines;

    impl Engines for Columns {}
    impl Engines for IsolationSearch {}
    impl Engines for TableRules<AnyGame> {}
    impl<const W: usize> Engines for Occupy<W> where Words: KeyWidth<W> {}
}
