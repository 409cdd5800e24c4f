//! The built-in games, and the registry: game names, their specs, and
//! dispatch to the concrete game.
//!
//! # Adding a game
//!
//! 1. Write the game in its own file here, `src/games/NAME.rs` (`pub mod
//!    NAME;` and a `pub use` below): a type implementing
//!    [`Game`](crate::game::Game), with
//!    `from_params(&str) -> Result<Self, String>` parsing what follows
//!    `NAME:` in a spec, its board ([`View`]: what the explorer's page and
//!    `retrograde play` draw), and its unit tests (`retrograde::testing`,
//!    feature `testing`: checks of the index, the work units, the moves and
//!    the board).
//! 2. Add one entry to the list in `__games_registry!` below: its name,
//!    [`AnyGame`] variant and type, and its [`GameInfo`] text. The variant,
//!    [`AnyGame::parse`], [`GAMES`] (so `retrograde games`),
//!    [`with_game!`](crate::with_game) and [`AnyGame::view`] all follow from
//!    that list. Without
//!    more, `retrograde search` proves the game's positions through its
//!    table rules, at the sizes its table takes.
//! 3. For a search past the table's sizes, split the spec's parsing in the
//!    game's file into `describe(&str) -> Result<D, String>` (what the spec
//!    says, with no table limit: `D` is the description) and
//!    `from_description(D)` (the table's limits), and name the search's
//!    representations at the end of the entry, `search [Variant(Type),
//!    ...]` (types under `crate::search::games`, each implementing
//!    `Represents<D>`; they are tried in order). `AnySearch`, its parser
//!    and `with_search!` follow from the list, and the representation is
//!    built from the description, so a table and a search read a spec and a
//!    position with the same code. A placement game's description that
//!    implements `placement::Placed` gets the search's bitboards
//!    (`Occupy`) with no search code of its own.
//!
//! Nothing in the solver, the file format, the reader or the explorer
//! changes, and the
//! games never reach the search: the search's types in the registry are
//! tokens that only the search's own macros (feature `solve`) read. Shared
//! pieces: [`gravity`] (the board Connect and Sogo drop pieces on),
//! `symmetry` (board symmetries for folded indices and search keys),
//! `placement` (placement games as the search builds its bitboards from
//! them), `bits` (Gosper's next combination and other bit tricks).

mod bits;
pub mod board;
pub mod connect;
pub mod cram;
pub mod digits;
pub mod dodgem;
pub mod gravity;
pub mod isolation;
pub mod mnk;
pub mod pattern;
pub(crate) mod placement;
pub mod sogo;
pub mod sprouts;
pub mod subtraction;
// The tests reach it through `crate::internal`.
pub(crate) mod symmetry;

pub use board::{BoardView, View};
pub use connect::Connect;
pub use cram::{Cram, CramMove, CramPosition};
pub use digits::Digits;
pub use dodgem::{Dodgem, DodgemMove, DodgemPosition};
pub use gravity::{Gravity, GravityPosition};
pub use isolation::{Isolation, IsolationMove, IsolationPosition};
pub use mnk::Mnk;
pub use pattern::{PatternBoard, PatternGame, PatternPosition};
pub use sogo::Sogo;
pub use sprouts::Sprouts;
pub use subtraction::Subtraction;

use crate::error::Error;

/// Descriptions of the known games, for `retrograde games` and error messages.
pub struct GameInfo {
    /// Name before the first `:` of a spec.
    pub name: &'static str,
    /// Parameter syntax.
    pub params: &'static str,
    /// Position notation.
    pub notation: &'static str,
    /// An example spec.
    pub example_spec: &'static str,
    /// An example position in that game.
    pub example_position: &'static str,
    /// The rules in a few sentences, for a player (the game's file holds
    /// them: `RULES`).
    pub rules: &'static str,
}

/// The registry: every game this build knows, in the order `retrograde
/// games` lists them. Each entry is a game's name (what comes before the
/// first `:` of a spec), its [`AnyGame`] variant and type (which has
/// `from_params(&str) -> Result<Self, String>`), the rest of its
/// [`GameInfo`], and optionally its search representations, `search
/// [Variant(Type), ...]`. After a `;` come the search-only games (no
/// table, so no `AnyGame` variant: the type only `describe`s the spec),
/// each with its search representations ([`SEARCH_GAMES`]). It hands the
/// list to the macro `$cb`, so the enum, the parser, [`GAMES`] and
/// [`with_game!`] (and, in the search, `AnySearch` and `with_search!`) all
/// come from this one list. The search's types are named under
/// `crate::search::games` and read only by the search's macros: a build
/// without the search never resolves them.
#[doc(hidden)]
#[macro_export]
macro_rules! __games_registry {
    ($cb:ident!($($args:tt)*)) => {
        $crate::$cb! { ($($args)*)
        /// Isolation.
        "isolation" => Isolation(Isolation) {
            params: "RxC[:a=SQUARE,b=SQUARE][:misere]  (R,C >= 2, R*C <= 30; a, b: start squares of players 0 and 1; misere: the player who cannot step wins)",
            notation: "rows top to bottom separated by '/': '.' present, 'x' removed, '0' and '1' the pieces; moves TOxREMOVE with square = row*C + col",
            example_spec: "isolation:4x4",
            example_position: "0.../...x/.x../...1",
            rules: $crate::games::isolation::RULES,
        } search [Isolation(isolation::IsolationSearch)],
        /// A subtraction game.
        "subtraction" => Subtraction(Subtraction) {
            params: "N:S[:misere]  (piles 0..=N; S: comma-separated amounts a move may take)",
            notation: "a position is the pile size; a move is the number of chips taken",
            example_spec: "subtraction:1000:1,3,4",
            example_position: "17",
            rules: $crate::games::subtraction::RULES,
        },
        /// The digit game.
        "digits" => Digits(Digits) {
            params: "N[:misere]  (numbers 0..=N; a move subtracts a non-zero digit; reaching 0 wins)",
            notation: "a position is the number; a move is the digit subtracted",
            example_spec: "digits:1000",
            example_position: "42",
            rules: $crate::games::digits::RULES,
        },
        /// An m,n,k-game (tic-tac-toe is 3,3,3).
        "mnk" => Mnk(Mnk) {
            params: "RxCxK  (K in a row on R rows x C columns, 1 <= K <= max(R,C), R*C <= 25; alias tictactoe = mnk:3x3x3)",
            notation: "rows top to bottom separated by '/' (optional on input): '.' empty, 'x' player 0, 'o' player 1; a move is the square row*C + col",
            example_spec: "mnk:4x4x4",
            example_position: "x.o./.x../..o./....",
            rules: $crate::games::mnk::RULES,
        } search [Mnk(occupy::Occupy<1>), MnkWide(occupy::Occupy<4>)],
        /// A pattern game read from a pattern file.
        "pattern" => Pattern(PatternGame) {
            params: "PATH  (a pattern file: name, squares/rows, one winning pattern per line; see games/*.txt) or the canonical NAME:squares=N[:rows=R.R..]:lines=A.B.C,...",
            notation: "one character per square in square order, '/' between the file's rows (optional on input): '.' empty, 'x' player 0, 'o' player 1; a move is the square number",
            example_spec: "pattern:games/tictactoe.txt",
            example_position: "x.o/.x./...",
            rules: $crate::games::pattern::RULES,
        } search [Pattern(occupy::Occupy<1>), PatternWide(occupy::Occupy<4>)],
        /// The Connect-Four family.
        "connect" => Connect(Connect) {
            params: "WxH[xK][:misere]  (Connect-Four family: W columns, H rows, K in a row, default 4; W*H <= 63, (H+1)^W <= 2^22, at most 2^40 positions: 7x4 and 6x5 fit, 7x6 does not)",
            notation: "rows top to bottom separated by '/': '.' empty, 'x' player 0, 'o' player 1; or the columns played, 1-based (4453; '-' = empty board); a move is a column number 1..W",
            example_spec: "connect:4x4x4",
            example_position: "..../..../.o../oxx.",
            rules: $crate::games::connect::RULES,
        } search [ConnectColumns(columns::Columns), Connect(occupy::Occupy<1>)],
        /// Sogo (3-D Connect Four).
        "sogo" => Sogo(Sogo) {
            params: "N[:misere]  (N x N x N cube with gravity, N in a row on any line of the cube wins; N = 1..3)",
            notation: "layers bottom first separated by '|', each N rows (rank N to 1) separated by '/': '.' empty, 'x' player 0, 'o' player 1; or the columns played as squares (a1b2) or numbers x+N*y+1; a move is a square like b2",
            example_spec: "sogo:3",
            example_position: ".../.o./x..|.../.x./...|.../.../...",
            rules: $crate::games::sogo::RULES,
        } search [SogoColumns(columns::Columns), Sogo(occupy::Occupy<1>)],
        /// Cram.
        "cram" => Cram(Cram) {
            params: "RxC[:misere]  (R rows, C columns, R*C <= 30; place dominoes; who cannot move loses, or wins under misere)",
            notation: "rows top to bottom separated by '/': '.' empty, '#' covered (or Glop's B000*0GG000000E: '0' empty, 'G' covered, '*' after the first row); moves A-B, the two squares covered, square = row*C + col",
            example_spec: "cram:5x5",
            example_position: "...../.##../...../...../.....",
            rules: $crate::games::cram::RULES,
        } search [Cram(cram::CramSearch)],
        /// Dodgem (a loopy game: draws).
        "dodgem" => Dodgem(Dodgem) {
            params: "N  (N x N board, N = 2..5, N-1 cars each; loopy: draws are possible)",
            notation: "rows top to bottom separated by '/': '.' empty, 'b' blue (first player) car, 'r' red car, then ' b' or ' r' for the side to move; moves SQUARE then DIRECTION: a file letter and rank number (a1 bottom left), '>' right, '^' up, 'v' down, '<' left (forward off the far edge leaves the board)",
            example_spec: "dodgem:3",
            example_position: "b../.b./.rr r",
            rules: $crate::games::dodgem::RULES,
        },
        ;
        // Search-only games: no table (their positions have no perfect
        // index), so no `AnyGame` variant; `retrograde search` proves them
        // through the representations listed.
        /// Sprouts.
        "sprouts" => Sprouts(Sprouts) {
            params: "N[:misere][:genus=G]  (N spots, 1 to 80; searched, not tabled: retrograde search; misere: who cannot move wins; genus: Glop's topology, 0 the plane, G > 0 G handles (1 the torus), G < 0 -G cross-caps (-1 the projective plane, -2 the Klein bottle), -64 to 64)",
            notation: "Glop's: lands '+', regions '|', boundaries '.'; 0 a spot with no curve (0*x: x of them), 1 a spot with 2 lives, letters spots with 1 life (upper case: on two regions; lower case: twice in one region), 2 a spot with 1 life written once; ~G after a region: its surface (G handles, or -G cross-caps); *k a Nim heap beside the lands; moves are written as the positions they lead to",
            example_spec: "sprouts:6",
            example_position: "0*4.A|0*4.A+0*2.AB|AB",
            rules: $crate::games::sprouts::RULES,
        } search [Sprouts(sprouts::SproutsSearch)],
        }
    };
}

/// Builds [`AnyGame`], [`GAMES`] and the name dispatch of [`AnyGame::parse`]
/// from the registry.
#[doc(hidden)]
#[macro_export]
macro_rules! __games_items {
    (() $($(#[$doc:meta])* $name:literal => $variant:ident($ty:ty) { $($field:ident: $value:expr),* $(,)? } $(search $search:tt)?),* $(,)?
        ; $($(#[$sdoc:meta])* $sname:literal => $svariant:ident($sty:ty) { $($sfield:ident: $svalue:expr),* $(,)? } search $ssearch:tt),* $(,)?) => {
        /// Every game with tables this build knows.
        pub const GAMES: &[$crate::games::GameInfo] = &[$($crate::games::GameInfo { name: $name, $($field: $value),* }),*];

        /// The search-only games: `retrograde search` proves their
        /// positions; they have no table ([`AnyGame::parse`] refuses them
        /// with [`Error::SearchOnly`]).
        pub const SEARCH_GAMES: &[$crate::games::GameInfo] = &[$($crate::games::GameInfo { name: $sname, $($sfield: $svalue),* }),*];

        /// A game chosen at run time by its spec.
        // One value per open table or command: its size does not matter, and boxing
        // a variant would only add a deref to every dispatch.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug, PartialEq)]
        pub enum AnyGame {
            $($(#[$doc])* $variant($ty),)*
        }

        impl AnyGame {
            /// The game `name` with the parameters `params`, or `None` for a
            /// name the registry does not hold.
            pub(crate) fn from_name(name: &str, params: &str) -> Option<Result<AnyGame, String>> {
                Some(match name {
                    $($name => <$ty>::from_params(params).map(AnyGame::$variant),)*
                    _ => return None,
                })
            }

            /// The game `name` with `params` to draw its positions
            /// ([`$crate::games::board::ForView`]), or `None` for a name
            /// the registry does not hold.
            pub(crate) fn from_name_for_view(name: &str, params: &str) -> Option<Result<AnyGame, String>> {
                Some(match name {
                    $($name => <$ty as $crate::games::board::ForView>::for_view(params).map(AnyGame::$variant),)*
                    _ => return None,
                })
            }
        }
    };
}

/// Expands [`with_game!`]: one match arm per registered game.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_game_arms {
    (($any:expr, $g:ident, $body:expr) $($(#[$doc:meta])* $name:literal => $variant:ident($ty:ty) { $($rest:tt)* } $(search $search:tt)?),* $(,)? ; $($search_only:tt)*) => {
        match $any {
            $($crate::games::AnyGame::$variant($g) => $body,)*
        }
    };
}

__games_registry!(__games_items!());

/// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`],
/// so generic code is monomorphised per game.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        $crate::__games_registry!(__with_game_arms!($any, $g, $body))
    };
}

impl AnyGame {
    /// Parses a spec such as `isolation:4x4` or `isolation:4x4:a=1,b=14`.
    ///
    /// Only the canonical spelling is read: lower case, no spaces (a
    /// pattern file's path excepted), every parameter once. A file's header
    /// stores the canonical spec, and a spec that could mean two games, or
    /// one that names the same game as another spelling, would let two
    /// tables of one game disagree on their name. Near misses are refused
    /// with the spelling to use.
    pub fn parse(spec: &str) -> Result<AnyGame, Error> {
        let (name, params) = resolve(spec, &|s| AnyGame::parse(s).map(drop))?;
        let Some(game) = AnyGame::from_name(name, params) else {
            // A search-only game (resolve returns registered names).
            return Err(Error::SearchOnly {
                spec: spec.to_string(),
            });
        };
        game.map_err(|reason| Error::BadGame {
            spec: spec.to_string(),
            reason,
        })
    }

    /// Canonical spec with every rule parameter.
    pub fn spec(&self) -> String {
        with_game!(self, g => crate::game::Game::spec(g))
    }

    /// Default file stem, e.g. `isolation-4x4`.
    pub fn file_stem(&self) -> String {
        with_game!(self, g => crate::game::Game::file_stem(g))
    }

    /// Size of the index space.
    pub fn size(&self) -> u64 {
        with_game!(self, g => crate::game::Game::size(g))
    }

    /// Index scheme version.
    pub fn index_scheme(&self) -> u16 {
        with_game!(self, g => crate::game::Game::index_scheme(g))
    }

    /// The same game with its symmetries folded into the index
    /// ([`Error::CannotFold`] for a game whose index does not fold).
    pub fn folded(&self) -> Result<AnyGame, Error> {
        let mut g = self.clone();
        with_game!(&mut g, x => crate::game::Game::folded(x).map(|f| *x = f)).map_err(
            |reason| Error::CannotFold {
                spec: self.spec(),
                reason,
            },
        )?;
        Ok(g)
    }

    /// Whether the index folds symmetries.
    pub fn is_folded(&self) -> bool {
        with_game!(self, g => crate::game::Game::is_folded(g))
    }

    /// Bound on remoteness.
    pub fn max_remoteness(&self) -> u32 {
        with_game!(self, g => crate::game::Game::max_remoteness(g))
    }
}

/// The registered name and the parameters of `spec`: its name in canonical
/// spelling (misspellings are refused, naming the spelling to use when
/// `accepts`, the caller's own parser, takes it), aliases resolved
/// (`tictactoe` is `mnk:3x3x3`). The tables and the search read a spec's
/// name through here, so they refuse the same specs alike.
pub(crate) fn resolve<'a>(
    spec: &'a str,
    accepts: &dyn Fn(&str) -> Result<(), Error>,
) -> Result<(&'a str, &'a str), Error> {
    let bad = |reason: String| Error::BadGame {
        spec: spec.to_string(),
        reason,
    };
    if let Some(reason) = misspelling(spec, accepts) {
        return Err(bad(reason));
    }
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    match name {
        // `tictactoe:` (a trailing ':') is refused like any empty parameter.
        "tictactoe" if spec.ends_with(':') => Err(bad(empty_param())),
        "tictactoe" => match Mnk::from_tictactoe_params(params) {
            Ok(_) => Ok(("mnk", "3x3x3")),
            Err(reason) => Err(bad(reason)),
        },
        _ if all_games().any(|g| g.name == name) => Ok((name, params)),
        _ => Err(Error::UnknownGame {
            name: name.to_string(),
            known: all_games().map(|g| g.name).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// Every game this build knows: those with tables, then the search-only
/// ones.
pub fn all_games() -> impl Iterator<Item = &'static GameInfo> {
    GAMES.iter().chain(SEARCH_GAMES)
}

/// Why `spec` is not in canonical spelling, naming the spelling to use
/// when `accepts` (the caller's own parser) takes it, or `None` when the
/// spelling is canonical. Spaces
/// around the spec, upper case and spaces inside are refused except in
/// a pattern file's path (any file name is allowed); the inline pattern
/// form checks its own fields.
fn misspelling(spec: &str, accepts: &dyn Fn(&str) -> Result<(), Error>) -> Option<String> {
    let trimmed = spec.trim();
    let (name, params) = trimmed.split_once(':').unwrap_or((trimmed, ""));
    let lower = name.to_ascii_lowercase();
    let known = lower == "tictactoe" || all_games().any(|g| g.name == lower);
    let free_params = lower == "pattern";
    let fix = |p: &str| -> String {
        if free_params {
            p.to_string()
        } else {
            p.chars()
                .filter(|c| !c.is_whitespace())
                .map(|c| c.to_ascii_lowercase())
                .collect()
        }
    };
    let suggestion = match trimmed.split_once(':') {
        Some(_) => format!("{lower}:{}", fix(params)),
        None => lower.clone(),
    };
    let reason = if trimmed.len() != spec.len() {
        "a spec has no spaces around it"
    } else if !known {
        // An unknown name is reported as unknown, whatever its case.
        return None;
    } else if name != lower {
        "game names are lower case"
    } else if !free_params && params.contains(char::is_whitespace) {
        "a spec has no spaces"
    } else if !free_params && params.chars().any(|c| c.is_ascii_uppercase()) {
        "specs are lower case"
    } else {
        return None;
    };
    // Only suggest what is itself accepted (the suggestion is canonical
    // in spelling, so this recurses once).
    Some(match accepts(&suggestion) {
        Ok(_) => format!("{reason}: did you mean {}?", Error::quote(&suggestion)),
        Err(Error::BadGame { reason: why, .. }) => format!(
            "{reason}; spelled {}, it is still refused: {why}",
            Error::quote(&suggestion)
        ),
        Err(e) => format!("{reason}: {e}"),
    })
}

/// The refusal of a game's constructor (`new`), by the game's name: the
/// constructors take numbers, not a spec, so there is no spec to quote.
pub(crate) fn bad_parameters(game: &'static str) -> impl Fn(String) -> Error {
    move |reason| Error::BadParameters { game, reason }
}

/// Parses what follows a game's size: nothing, or `:`-separated play
/// conventions, `normal` or `misere` (or `misère`). Returns `true` for
/// misère. The convention may be given once: `misere:misere` and
/// `misere:normal` are refused rather than read as the last one.
pub(crate) fn parse_play(rest: Option<&str>) -> Result<bool, String> {
    let Some(rest) = rest else {
        return Ok(false);
    };
    let mut play = None;
    for part in rest.split(':') {
        let misere = play_word(part)?;
        if let Some(prev) = play {
            return Err(if prev == misere {
                format!("'{part}' is given twice")
            } else {
                "'misere' and 'normal' conflict: give one".to_string()
            });
        }
        play = Some(misere);
    }
    Ok(play.unwrap_or(false))
}

/// One play-convention word: `Ok(true)` for misère, `Ok(false)` for normal.
pub(crate) fn play_word(part: &str) -> Result<bool, String> {
    match part.to_ascii_lowercase().as_str() {
        "" => Err(empty_param()),
        "normal" => Ok(false),
        "misere" | "misère" => Ok(true),
        _ => Err(format!(
            "unknown parameter {} (expected 'misere' or 'normal')",
            Error::quote(part)
        )),
    }
}

/// The refusal of a picture row of the wrong length. A row with a space in
/// it (`..1 extra` as the last row) is not a long row but text after the
/// board: say so rather than count the spaces and the words as cells.
pub(crate) fn row_length(row_no: usize, row: &str, len: usize, want: u32, unit: &str) -> String {
    match row.trim().split_once(char::is_whitespace) {
        Some((_, rest)) => format!(
            "row {row_no}: unexpected text {} after a space (a board has no spaces in its rows)",
            Error::quote(rest.trim_start())
        ),
        None => format!("row {row_no} has {len} {unit}, expected {want}"),
    }
}

/// The refusal of an empty `:`-separated field.
pub(crate) fn empty_param() -> String {
    "empty parameter: a doubled or trailing ':'".to_string()
}

/// The refusal of an empty `,`-separated item in `list`.
pub(crate) fn empty_item(list: &str) -> String {
    format!(
        "empty item in {}: a doubled or trailing ','",
        Error::quote(list)
    )
}

/// A whole number written with digits only: no sign, no spaces, not empty
/// (`str::parse` also takes `+7`).
pub(crate) fn parse_num<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `RxC` board dimensions.
pub(crate) fn parse_dims(s: &str) -> Result<(u32, u32), String> {
    let wrong = || format!("expected a board size like 4x4, found {}", Error::quote(s));
    let (r, c) = s.split_once(['x', 'X']).ok_or_else(wrong)?;
    let num = |t: &str| parse_num::<u32>(t).ok_or_else(wrong);
    Ok((num(r)?, num(c)?))
}

/// Nimber tables of the take-away games: only under normal play.
pub(crate) fn normal_play_only(misere: bool) -> Result<(), String> {
    if misere {
        Err("nimbers are defined for normal play; this is the misère variant".into())
    } else {
        Ok(())
    }
}

/// A take-away game's position: a whole number `expected` describes, at
/// most `max` (the table's last entry), called `noun` in errors.
pub(crate) fn parse_bounded(s: &str, max: u64, noun: &str, expected: &str) -> Result<u64, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected {expected}"))?;
    if n > max {
        return Err(format!("{noun} {n} is above this table's {max}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_round_trips() {
        let g = AnyGame::parse("isolation:4x5").unwrap();
        assert_eq!(g.spec(), "isolation:4x5:a=2,b=17");
        assert_eq!(AnyGame::parse(&g.spec()).unwrap(), g);
    }

    #[test]
    fn unknown_and_bad_games_are_errors() {
        assert!(matches!(
            AnyGame::parse("chess"),
            Err(Error::UnknownGame { .. })
        ));
        assert!(matches!(
            AnyGame::parse("isolation"),
            Err(Error::BadGame { .. })
        ));
        assert!(matches!(
            AnyGame::parse("isolation:axb"),
            Err(Error::BadGame { .. })
        ));
    }
}
