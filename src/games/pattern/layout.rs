//! A pattern board as its spec describes it, before any index: the squares,
//! the display rows and the minimal winning patterns, with the position
//! notation. The tables build their index on it (at most
//! [`MAX_SQUARES`](super::MAX_SQUARES) squares), the search its bitboards
//! (at most [`placement::MAX_SQUARES`]).

use super::MAX_PATTERNS;
use crate::games::placement::{self, Stones, WORDS};

/// Squares, display rows and minimal winning patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    squares: u32,
    /// Squares per display row; they sum to `squares`.
    rows: Vec<u32>,
    /// Minimal winning patterns, each a sorted square list, in canonical
    /// (lexicographic) order.
    patterns: Vec<Vec<u16>>,
}

impl Layout {
    /// A board of `squares` squares (1 to `max`, at most
    /// [`placement::MAX_SQUARES`]) with display `rows` (empty for one row)
    /// and winning `patterns` (square lists). Repeated patterns and patterns
    /// containing another are dropped. Errors about pattern `i` start with
    /// `at(i)`, its place in the spec, the others with `whole`.
    pub(crate) fn new(
        squares: u32,
        rows: &[u32],
        patterns: &[Vec<u32>],
        max: u32,
        whole: &str,
        at: impl Fn(usize) -> String,
    ) -> Result<Layout, String> {
        Self::build(squares, rows, patterns, max, at).map_err(|e| match e {
            Refusal::Board(e) => format!("{whole}{e}"),
            Refusal::Pattern(e) => e,
        })
    }

    fn build(
        squares: u32,
        rows: &[u32],
        patterns: &[Vec<u32>],
        max: u32,
        at: impl Fn(usize) -> String,
    ) -> Result<Layout, Refusal> {
        use Refusal::{Board, Pattern};
        debug_assert!(max <= placement::MAX_SQUARES);
        if squares == 0 || squares > max {
            return Err(Board(too_many_squares(squares.into(), max)));
        }
        let rows = if rows.is_empty() {
            vec![squares]
        } else {
            rows.to_vec()
        };
        if rows.contains(&0) {
            return Err(Board("every display row needs at least one square".into()));
        }
        let sum: u64 = rows.iter().map(|&r| u64::from(r)).sum();
        if sum != u64::from(squares) {
            return Err(Board(format!(
                "the rows hold {sum} squares but the board has {squares}"
            )));
        }
        if patterns.is_empty() {
            return Err(Board("there are no winning patterns".into()));
        }
        let mut lists = Vec::with_capacity(patterns.len());
        for (i, p) in patterns.iter().enumerate() {
            let mut set = [0u64; WORDS];
            for &sq in p {
                if sq >= squares {
                    return Err(Pattern(format!(
                        "{}: square {sq} is off the board (squares are 0..{})",
                        at(i),
                        squares - 1
                    )));
                }
                if placement::has(&set, sq as usize) {
                    return Err(Pattern(format!(
                        "{}: square {sq} appears twice in the pattern",
                        at(i)
                    )));
                }
                placement::put(&mut set, sq as usize);
            }
            if p.is_empty() {
                return Err(Pattern(format!("{}: the pattern is empty", at(i))));
            }
            lists.push(p.iter().map(|&s| s as u16).collect());
        }
        let patterns = minimal(lists);
        if patterns.len() > MAX_PATTERNS {
            return Err(Board(format!(
                "{} patterns; at most {MAX_PATTERNS} are supported",
                patterns.len()
            )));
        }
        Ok(Layout {
            squares,
            rows,
            patterns,
        })
    }

    /// Number of squares.
    pub(crate) fn squares(&self) -> u32 {
        self.squares
    }

    /// Squares per display row.
    pub(crate) fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// The minimal winning patterns, in canonical order.
    pub(crate) fn patterns(&self) -> &[Vec<u16>] {
        &self.patterns
    }

    /// What follows the name in a canonical pattern spec:
    /// `squares=N[:rows=..]:lines=..` (`rows` only for more than one row).
    pub(crate) fn spec_fields(&self) -> String {
        let rows = if self.rows.len() > 1 {
            let r: Vec<String> = self.rows.iter().map(u32::to_string).collect();
            format!(":rows={}", r.join("."))
        } else {
            String::new()
        };
        let lines: Vec<String> = self.patterns.iter().map(|p| joined(p)).collect();
        format!("squares={}{rows}:lines={}", self.squares, lines.join(","))
    }

    /// The candidate symmetries of a pattern board (for the search's keys):
    /// the grid's of a rectangular layout (as the tables fold) and, on m³
    /// squares, the cube's 48 rotations and reflections; identity first.
    ///
    /// Not the maps of the coordinates' values, though Qubic's lines have
    /// them too (192 symmetries in all,
    /// [`crate::games::symmetry::cube_value_perms`]): keyed by the 48, df-pn
    /// proved 14 random Qubic positions in 464,716 nodes against 560,013
    /// with the 192, at about two thirds of the instructions a node (the
    /// README's "Qubic's symmetries, decided"), so the larger group folds
    /// positions the search seldom meets twice and costs every node.
    #[cfg(feature = "solve")]
    pub(crate) fn symmetries(&self) -> Vec<Vec<u16>> {
        use crate::games::symmetry::{cube_perms, grid_perms};
        let n = self.squares;
        let mut perms = if self.rows.iter().all(|&r| r == self.rows[0]) {
            grid_perms(self.rows.len() as u32, self.rows[0])
        } else {
            vec![(0..n as u16).collect()]
        };
        if let Some(m) = (2..=6).find(|m| m * m * m == n as usize) {
            perms.extend(cube_perms(m));
        }
        perms
    }

    /// The first pattern (canonical order) inside `set`.
    fn owned(&self, set: &[u64; WORDS]) -> Option<&[u16]> {
        self.patterns
            .iter()
            .find(|p| p.iter().all(|&s| placement::has(set, s as usize)))
            .map(Vec::as_slice)
    }

    /// Reads a position (the module docs of [`crate::games::pattern`]),
    /// refusing impossible piece counts and boards where the player to move
    /// owns a pattern.
    pub(crate) fn parse_position(&self, s: &str) -> Result<Stones, String> {
        let s = s.trim();
        let n = self.squares;
        let groups: Vec<&str> = s.split('/').collect();
        let layout = self
            .rows
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("+");
        if groups.len() > 1 {
            if groups.len() != self.rows.len() {
                return Err(format!(
                    "expected {} rows separated by '/' ({layout} squares), found {}",
                    self.rows.len(),
                    groups.len()
                ));
            }
            for (r, (g, &want)) in groups.iter().zip(&self.rows).enumerate() {
                let len = g.chars().count();
                if len != want as usize {
                    return Err(crate::games::row_length(r + 1, g, len, want, "squares"));
                }
            }
        } else {
            let len = s.chars().count();
            if len != n as usize && s.contains(char::is_whitespace) {
                return Err(crate::games::row_length(1, s, len, n, "squares"));
            }
            if len != n as usize {
                return Err(format!(
                    "expected {n} squares ('.', 'x' or 'o' each{}), found {len}",
                    if self.rows.len() > 1 {
                        format!("; rows of {layout} separated by '/' optional")
                    } else {
                        String::new()
                    }
                ));
            }
        }
        let mut p: Stones = [[0; WORDS]; 2];
        for (sq, ch) in s.chars().filter(|&c| c != '/').enumerate() {
            match ch {
                '.' => {}
                'x' | 'X' => placement::put(&mut p[0], sq),
                'o' | 'O' => placement::put(&mut p[1], sq),
                other => {
                    return Err(format!(
                        "unexpected '{other}' at square {sq} (use '.' empty, 'x' player 0, 'o' player 1)"
                    ))
                }
            }
        }
        let count = |set: &[u64; WORDS]| set.iter().map(|w| w.count_ones()).sum::<u32>();
        let (nx, no) = (count(&p[0]), count(&p[1]));
        if nx != no && nx != no + 1 {
            return Err(format!(
                "x has {nx} squares and o has {no}: x moves first, so x has as many as o or one more"
            ));
        }
        let mover = (nx + no) % 2;
        match (self.owned(&p[0]).map(joined), self.owned(&p[1]).map(joined)) {
            (Some(a), Some(b)) => Err(format!(
                "both players own a pattern (x {a}, o {b}): the game ends at the first one"
            )),
            (Some(a), None) if mover == 0 => Err(format!(
                "x owns pattern {a} but it is x's turn: the game ended when x completed it"
            )),
            (None, Some(b)) if mover == 1 => Err(format!(
                "o owns pattern {b} but it is o's turn: the game ended when o completed it"
            )),
            _ => Ok(p),
        }
    }

    /// Writes a position: a character per square, `/` between rows.
    pub(crate) fn format_position(&self, p: &Stones) -> String {
        let mut out = String::with_capacity(self.squares as usize + self.rows.len());
        let mut sq = 0;
        for (r, &len) in self.rows.iter().enumerate() {
            if r > 0 {
                out.push('/');
            }
            for _ in 0..len {
                out.push(if placement::has(&p[0], sq) {
                    'x'
                } else if placement::has(&p[1], sq) {
                    'o'
                } else {
                    '.'
                });
                sq += 1;
            }
        }
        out
    }
}

/// The search's face of a pattern board: a move is the square's number.
#[cfg(feature = "solve")]
impl placement::Notation for Layout {
    fn parse_position(&self, s: &str) -> Result<Stones, String> {
        Layout::parse_position(self, s)
    }
    fn format_position(&self, p: &Stones) -> String {
        Layout::format_position(self, p)
    }
    fn format_move(&self, square: u16) -> String {
        square.to_string()
    }
}

/// Why a board is refused: the whole board, or one pattern (whose message
/// names its place in the spec).
enum Refusal {
    Board(String),
    Pattern(String),
}

/// The refusal of a board of `squares` squares where at most `max` fit.
pub(crate) fn too_many_squares(squares: u64, max: u32) -> String {
    format!("a board has 1 to {max} squares, not {squares}")
}

/// A pattern's squares joined by `.`, as specs and messages write them.
fn joined(p: &[u16]) -> String {
    p.iter().map(u16::to_string).collect::<Vec<_>>().join(".")
}

/// Sorted, deduplicated, and without patterns containing another (owning
/// one means owning the smaller first): the canonical pattern list.
fn minimal(mut lists: Vec<Vec<u16>>) -> Vec<Vec<u16>> {
    for p in lists.iter_mut() {
        p.sort_unstable();
    }
    lists.sort();
    lists.dedup();
    let sets: Vec<[u64; WORDS]> = lists
        .iter()
        .map(|p| {
            let mut m = [0u64; WORDS];
            for &s in p {
                placement::put(&mut m, s as usize);
            }
            m
        })
        .collect();
    // A pattern inside another has its lowest square among the other's
    // squares: only those patterns are candidates.
    let mut by_lowest: Vec<Vec<usize>> = vec![Vec::new(); placement::MAX_SQUARES as usize];
    for (i, p) in lists.iter().enumerate() {
        by_lowest[p[0] as usize].push(i);
    }
    let inside = |a: &[u64; WORDS], b: &[u64; WORDS]| (0..WORDS).all(|w| a[w] & !b[w] == 0);
    let keep: Vec<bool> = lists
        .iter()
        .enumerate()
        .map(|(i, p)| {
            !p.iter().any(|&s| {
                by_lowest[s as usize]
                    .iter()
                    .any(|&j| j != i && inside(&sets[j], &sets[i]))
            })
        })
        .collect();
    lists
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect()
}
