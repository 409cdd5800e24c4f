//! The Connect-Four family `connect:WxH[xK][:misere]`: the gravity board
//! ([`crate::games::gravity`]) on one row of columns, with the tight index
//! it shares with Sogo (index scheme 3: positions ranked by piece count,
//! then column heights, then colouring; `solve --fold`, scheme 4, folds the
//! left-right mirror; both documented in [`crate::games::gravity::tight`]).
//! Schemes 1 and 2 were a mixed-radix index up to 9.4× larger; this build
//! refuses their files with a scheme mismatch.
//!
//! Spec `connect:WxH[xK][:misere]`: W columns, H rows, K in a row (default
//! 4; canonical spec always includes K, e.g. `connect:4x4x4`).
//!
//! A position is written either as the columns played from the empty board,
//! 1-based as Connect-Four solvers write them (`4453`; `-` or the empty
//! string for the empty board; separate numbers by spaces or commas when a
//! column number has two digits, e.g. `10,3,3`), or as a picture: rows top to
//! bottom separated by `/`, `.` empty, `x` player 0, `o` player 1, e.g.
//! `..../..../.o../oxx.` (= `2231` on 4×4). Positions are always printed as
//! pictures. A move is a column number 1..=W.

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "Players take turns dropping a disc (x first, then o) into a column that is not full; it falls to the lowest empty hole. The first to line up K discs (4 unless the spec says otherwise) across, up or diagonally wins; a full board with no line is a tie. With :misere, who lines up K first loses.";

use super::gravity::{
    gravity_play, move_tokens, parse_rest, too_many_moves, Geometry, Gravity, GravityPosition,
};
use crate::game::Game;
use crate::games::board::{BoardView, CellShape, Labels, Shape, View};

/// Connect's plain index scheme (the tight index); folded, the next one.
const PLAIN_SCHEME: u16 = 3;

/// Most cells of a table's board (the tight index shifts by the cell count).
const MAX_CELLS: u32 = 63;

/// Connect as its spec describes it (`WxH[xK][:misere]`), before a size
/// limit: the tables' (63 cells, 2^40 positions) or the search's (64 cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    width: u32,
    height: u32,
    line: u32,
    misere: bool,
}

impl Params {
    /// Parses the parameters after `connect:`, e.g. `4x4`, `5x4x3`,
    /// `4x4x4:misere`.
    pub(crate) fn parse(params: &str) -> Result<Params, String> {
        let (size, rest) = match params.split_once(':') {
            Some((s, r)) => (s, Some(r)),
            None => (params, None),
        };
        let usage = "expected connect:WxH or connect:WxHxK, e.g. connect:4x4 or connect:5x4x3";
        let wrong = || {
            format!(
                "bad board size {} ({usage})",
                crate::error::Error::quote(size)
            )
        };
        let mut nums = size.split(['x', 'X']).map(crate::games::parse_num::<u32>);
        let (width, height, line) = match (nums.next(), nums.next(), nums.next(), nums.next()) {
            (Some(Some(w)), Some(Some(h)), None, None) => (w, h, 4),
            (Some(Some(w)), Some(Some(h)), Some(Some(k)), None) => (w, h, k),
            _ => return Err(wrong()),
        };
        let misere = parse_rest(rest)?;
        Ok(Params {
            width,
            height,
            line,
            misere,
        })
    }

    /// The board's rules, if it has at most `max_cells` cells.
    fn geometry(&self, max_cells: u32) -> Result<Geometry, String> {
        Geometry::new(
            self.width,
            1,
            self.height,
            self.line,
            self.misere,
            max_cells,
        )
    }
}

/// The search's face of Connect: its description as a placement, read and
/// written with the table's notation.
#[cfg(feature = "solve")]
mod placed {
    use super::*;
    use crate::games::gravity;
    use crate::games::placement::{Placed, Placement};

    /// The search's face: up to 64 cells.
    impl Placed for Params {
        fn words(&self) -> usize {
            1
        }

        fn placement(&self) -> Result<Placement, String> {
            let g = self.geometry(64)?;
            let notation = gravity::Notation {
                parse: parse_position,
                format: format_position,
                column: |_, c| format_move(c),
            };
            Ok(g.placement(spec(&g), notation))
        }
    }
}

/// The canonical spec, `connect:WxHxK[:misere]`.
fn spec(g: &Geometry) -> String {
    format!(
        "connect:{}x{}x{}{}",
        g.nx(),
        g.height(),
        g.line(),
        if g.misere() { ":misere" } else { "" }
    )
}

/// Moves (`4453`, `10,3,3`, `-` or empty) or a picture (`..../.o../oxx.`).
fn parse_position(g: &Geometry, s: &str) -> Result<GravityPosition, String> {
    let s = s.trim();
    if s.is_empty() || s == "-" {
        return Ok(GravityPosition::EMPTY);
    }
    // A picture has a '/' or a '.', or is all pieces (a full one-row
    // board); anything else is a move list, so `12a` blames the 'a' as
    // a move rather than counting rows of a picture.
    if s.contains(['/', '.']) || s.chars().all(|c| matches!(c, 'x' | 'o' | 'X' | 'O')) {
        parse_picture(g, s)
    } else {
        parse_moves(g, s)
    }
}

fn parse_moves(g: &Geometry, s: &str) -> Result<GravityPosition, String> {
    let w = g.nx();
    let mut moves = Vec::new();
    for (i, t) in move_tokens(s).enumerate() {
        if i as u32 >= g.cells() {
            return Err(too_many_moves(g.cells()));
        }
        match crate::games::parse_num::<u32>(t) {
            Some(c) if (1..=w).contains(&c) => moves.push(c - 1),
            _ => {
                return Err(format!(
                    "move {} {} is not a column number 1..={w}",
                    i + 1,
                    crate::error::Error::quote(t)
                ))
            }
        }
    }
    g.play_all(&moves, |c| format!("column {}", c + 1))
}

fn parse_picture(g: &Geometry, s: &str) -> Result<GravityPosition, String> {
    let (w, h) = (g.nx(), g.height());
    let pieces = Geometry::parse_cells(s, h, w, "picture", |r, c| g.cell(c, h - 1 - r))?;
    let p = GravityPosition { pieces };
    g.check(&p, |c| (c + 1).to_string())?;
    Ok(p)
}

/// Rows top to bottom, `/` between them.
fn format_position(g: &Geometry, p: &GravityPosition) -> String {
    let (w, h) = (g.nx(), g.height());
    let mut s = String::with_capacity(((w + 1) * h) as usize);
    for r in (0..h).rev() {
        if r + 1 < h {
            s.push('/');
        }
        for c in 0..w {
            s.push(Geometry::cell_char(p, g.cell(c, r)));
        }
    }
    s
}

/// A move is its column, 1-based.
fn format_move(column: u32) -> String {
    (column + 1).to_string()
}

/// The Connect-Four family: W columns of H rows, K in a row.
///
/// Equality includes the index: a mirror-folded game differs from the plain
/// one (same spec; the file header's flag tells them apart).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect {
    /// The board, which holds the index (plain or mirror-folded).
    board: Gravity,
}

impl Connect {
    /// Connect on `width` columns of `height` rows, `line` in a row.
    pub fn new(width: u32, height: u32, line: u32, misere: bool) -> crate::Result<Connect> {
        Connect::from_description(Params {
            width,
            height,
            line,
            misere,
        })
        .map_err(crate::games::bad_parameters("connect"))
    }

    /// Parses the parameters after `connect:`, e.g. `4x4`, `5x4x3`,
    /// `4x4x4:misere`.
    pub fn from_params(params: &str) -> Result<Connect, String> {
        Connect::from_description(Connect::describe(params)?)
    }

    /// What `connect:PARAMS` describes, before the tables' limits.
    pub(crate) fn describe(params: &str) -> Result<Params, String> {
        Params::parse(params)
    }

    /// The table game of a description: at most 63 cells and 2^40
    /// positions.
    pub(crate) fn from_description(p: Params) -> Result<Connect, String> {
        Ok(Connect {
            board: Gravity::new(p.geometry(MAX_CELLS)?, PLAIN_SCHEME)?,
        })
    }

    /// The game of a description whose positions are only drawn: the
    /// tables' limit of 2^40 positions lifted (Connect-Four's 7×6, which
    /// the search proves), as its index is never used.
    fn for_view_of(p: Params) -> Result<Connect, String> {
        Ok(Connect {
            board: Gravity::for_view(p.geometry(MAX_CELLS)?, PLAIN_SCHEME)?,
        })
    }

    /// The shared gravity board.
    pub fn board(&self) -> &Gravity {
        &self.board
    }

    /// Number of columns (W).
    pub fn width(&self) -> u32 {
        self.board.nx()
    }

    /// Number of rows (H).
    pub fn height(&self) -> u32 {
        self.board.height()
    }
}

impl Game for Connect {
    type Position = GravityPosition;
    type Move = u8;

    fn spec(&self) -> String {
        spec(&self.board)
    }

    fn file_stem(&self) -> String {
        format!(
            "{}{}",
            spec(&self.board).replace(':', "-"),
            if self.is_folded() { "-folded" } else { "" }
        )
    }

    gravity_play!();

    /// Moves (`4453`, `10,3,3`, `-` or empty) or a picture (`..../.o../oxx.`).
    fn parse_position(&self, s: &str) -> Result<GravityPosition, String> {
        parse_position(&self.board, s)
    }

    fn format_position(&self, p: &GravityPosition) -> String {
        format_position(&self.board, p)
    }

    fn format_move(&self, m: &u8) -> String {
        format_move(u32::from(*m))
    }
}

/// Holes in a frame, each column named by its number; a move is clicked
/// as the cell its disc lands in.
impl View for Connect {
    fn board_view(&self, p: &GravityPosition) -> BoardView {
        let (w, h) = (self.width(), self.height());
        let mut view = BoardView::numbered_grid(h, w, |sq| {
            let (row, col) = (sq / w, sq % w);
            Geometry::cell_view(p, self.board.cell(col, h - 1 - row))
        })
        .with_pieces([("x", Shape::Disc), ("o", Shape::Disc)])
        .with_moves(self, p, |&col| {
            let col = u32::from(col);
            let landing_row = h - 1 - self.board.column_height(p, col);
            vec![(landing_row * w + col) as usize]
        });
        for cell in &mut view.cells {
            cell.label = (cell.col + 1).to_string();
        }
        view.gravity = true;
        view.cell_shape = CellShape::Hole;
        view.labels = Labels::Columns;
        view
    }
}

/// Drawn past the tables' sizes, up to 63 cells.
impl crate::games::board::ForView for Connect {
    fn for_view(params: &str) -> Result<Connect, String> {
        Connect::for_view_of(Connect::describe(params)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn g(spec: &str) -> Connect {
        Connect::from_params(spec).unwrap()
    }

    #[test]
    fn sizes_and_specs() {
        assert_eq!(g("4x4").size(), 201_755);
        assert_eq!(g("5x4").size(), 5_621_939);
        assert_eq!(g("6x4").size(), 159_643_961);
        assert_eq!(g("5x5").size(), 171_976_899);
        assert_eq!(g("7x4").size(), 4_593_382_831);
        assert_eq!(g("6x5").size(), 9_918_556_649);
        assert_eq!(g("4x4").spec(), "connect:4x4x4");
        assert_eq!(g("4x4").file_stem(), "connect-4x4x4");
        assert_eq!(g("5x4x3:misere").spec(), "connect:5x4x3:misere");
        for spec in ["4x4", "3x3x3", "5x4x3:misere"] {
            let a = g(spec);
            let b = Connect::from_params(a.spec().split_once(':').unwrap().1).unwrap();
            assert_eq!(a, b);
        }
        // 4x4x4: 4 rows + 4 columns + 2 diagonals.
        assert_eq!(g("4x4").board().lines().len(), 10);
        assert_eq!(g("5x4").board().lines().len(), 8 + 5 + 4);
    }

    #[test]
    fn bad_params_are_refused() {
        for p in [
            "",
            "4",
            "4x",
            "axb",
            "4x4x4x4",
            "0x4",
            "4x0",
            "4x4x0",
            "4x4x5",
            "7x6",
            "8x8",
            "1x63x2",
            "2x31x2",
            "4294967295x4294967295",
            "99999999999x4",
            "4x4:sideways",
            "-1x4",
        ] {
            assert!(Connect::from_params(p).is_err(), "{p}");
        }
        assert!(Connect::from_params("6x5").is_ok());
        // One column of 40: Σ C(k, ⌊k/2⌋) = 278,116,364,686 entries, under
        // the 2^40 bound (the solver's memory check refuses it).
        assert_eq!(g("1x40").size(), 278_116_364_686);
        // 7×6 has 7.1·10^13 entries; 23×1 few, but 2^23 height vectors.
        let e = Connect::from_params("7x6").unwrap_err();
        assert!(e.contains("2^40"), "{e}");
        let e = Connect::from_params("23x1x2").unwrap_err();
        assert!(e.contains("column heights"), "{e}");
    }

    #[test]
    fn notation() {
        let c = g("4x4");
        let p = c.parse_position("2231").unwrap();
        assert_eq!(c.format_position(&p), "..../..../.o../oxx.");
        assert_eq!(c.parse_position("..../..../.o../oxx.").unwrap(), p);
        assert_eq!(c.parse_position("2 2,3 1").unwrap(), p);
        assert_eq!(c.parse_position("-").unwrap(), GravityPosition::EMPTY);
        assert_eq!(c.parse_position("").unwrap(), GravityPosition::EMPTY);
        assert_eq!(c.player_to_move(&p), Some(0));
        assert_eq!(c.format_move(&0), "1");
        for bad in [
            "5",
            "0",
            "11111",
            "a",
            "..../..../..../xx..",
            "..../..../x.../....",
            "..../..../..../...",
            "..../..../..../..x.x",
            "12121212",
            "o.../o.../o.../o...",
            "ox/../",
            "x..,",
            "x.../x.../x.../xooo/",
            "x.../x.../x.../x.oo",
            "..../..../..../xq..",
        ] {
            assert!(c.parse_position(bad).is_err(), "{bad}");
        }
        // Four x in a row with o to move: a lost position for o.
        let p = c.parse_position("1212121").unwrap();
        assert_eq!(c.primitive(&p), Some(Value::Lose));
        assert_eq!(c.moves(&p), vec![]);
        assert_eq!(c.parse_position("x.../xo../xo../xo..").unwrap(), p);
        // Wide boards take separated column numbers.
        let w = g("10x2x2");
        let p = w.parse_position("10,10").unwrap();
        assert_eq!(w.format_position(&p), ".........o/.........x");
    }
}

/// The tight index on Connect's boards (scheme 3, folded 4): the ranking
/// against boards enumerated column by column, the fold against the
/// mirror.
#[cfg(test)]
mod index_tests {
    use super::*;
    use crate::testing::check_units;

    fn g(spec: &str) -> Connect {
        Connect::from_params(spec).unwrap()
    }

    /// Odd and even widths, one and two columns, short columns, misère.
    const SPECS: [&str; 8] = [
        "4x4",
        "3x3x3",
        "4x3x3:misere",
        "1x4x2",
        "2x3x2",
        "6x2x3",
        "8x1x3",
        "3x1x1",
    ];

    /// Every board with gravity whose piece counts are legal (x has as
    /// many pieces as o or one more), whether or not the mover has a line.
    fn boards(c: &Connect) -> Vec<GravityPosition> {
        let (w, h) = (c.width(), c.height());
        // A column: a height and the bits of o's pieces below it.
        let states: Vec<(u64, u64)> = (0..=h)
            .flat_map(|z| (0..1u64 << z).map(move |o| ((1u64 << z) - 1, o)))
            .collect();
        let mut out = Vec::new();
        let mut choice = vec![0usize; w as usize];
        loop {
            let mut pieces = [0u64; 2];
            for (col, &i) in choice.iter().enumerate() {
                let (occ, o) = states[i];
                pieces[0] |= (occ & !o) << (col as u32 * h);
                pieces[1] |= o << (col as u32 * h);
            }
            let (x, o) = (pieces[0].count_ones(), pieces[1].count_ones());
            if x == o || x == o + 1 {
                out.push(GravityPosition { pieces });
            }
            let Some(col) = choice.iter().position(|&i| i + 1 < states.len()) else {
                return out;
            };
            choice[col] += 1;
            choice[..col].fill(0);
        }
    }

    fn mirror(c: &Connect, p: &GravityPosition) -> GravityPosition {
        let (w, h) = (c.width(), c.height());
        let column = (1u64 << h) - 1;
        let flip = |m: u64| {
            (0..w).fold(0, |acc, col| {
                acc | ((m >> (col * h)) & column) << ((w - 1 - col) * h)
            })
        };
        GravityPosition {
            pieces: p.pieces.map(flip),
        }
    }

    fn palindromic_heights(c: &Connect, p: &GravityPosition) -> bool {
        mirror(c, p).occupied() == p.occupied()
    }

    #[test]
    fn the_documented_formula_on_small_positions() {
        let c = g("4x4");
        // Block 0 is the empty board; block 1 has 4 height vectors of one
        // colouring each; block 2 starts at 5 with 2 colourings each. Height
        // codes h_0 + 5·h_1 + …: (2,0,0,0) = 2 ranks first among those
        // summing to 2, (1,1,0,0) = 6 second. o's piece is bit 1 of the
        // column-major string either way: colex rank C(1, 1) = 1.
        for (moves, index) in [("", 0), ("1", 1), ("2", 2), ("4", 4), ("11", 6), ("12", 8)] {
            let p = c.parse_position(moves).unwrap();
            assert_eq!(c.encode(&p), index, "{moves}");
            assert_eq!(c.decode(index), Some(p), "{moves}");
        }
    }

    #[test]
    fn every_board_with_legal_counts_has_its_own_index_and_round_trips() {
        for spec in ["4x4", "5x4", "3x3x3", "4x3x3:misere", "1x4x2", "8x1x3"] {
            let c = g(spec);
            let all = boards(&c);
            // The index counts exactly the boards with legal piece counts.
            assert_eq!(c.size(), all.len() as u64, "{spec}");
            let mut seen = vec![false; all.len()];
            for p in &all {
                let i = c.encode(p);
                assert!(
                    !std::mem::replace(&mut seen[i as usize], true),
                    "{spec}: {i}"
                );
                // A board whose mover has a line is a hole.
                let legal = !c.board().has_line(p.pieces[p.mover()]);
                assert_eq!(c.decode(i), legal.then_some(*p), "{spec}: {i}");
            }
            assert_eq!(c.decode(c.size()), None);
            assert_eq!(c.decode(u64::MAX), None);
        }
    }

    #[test]
    fn units_cover_every_legal_index_once_plain_and_folded() {
        for spec in SPECS {
            let plain = g(spec);
            let legal = check_units(&plain, true);
            if plain.width() > 1 {
                let folded = check_units(&plain.folded().unwrap(), true);
                assert!(folded < legal && 2 * folded >= legal, "{spec}");
            }
        }
        // A tier past the last and a unit past a tier's end are empty.
        let c = g("5x4").folded().unwrap();
        assert_eq!(c.tier_units(21), 0);
        let mut n = 0;
        c.for_each_in_unit(21, 0, |_, _| n += 1);
        c.for_each_in_unit(0, c.tier_units(0), |_, _| n += 1);
        assert_eq!(n, 0);
    }

    #[test]
    fn children_agree_with_moves_plain_and_folded() {
        for spec in SPECS {
            let plain = g(spec);
            let folded = plain.folded().ok();
            for p in boards(&plain) {
                if plain.decode(plain.encode(&p)).is_none() || plain.primitive(&p).is_some() {
                    continue;
                }
                // Every legal position, canonical or not, through both.
                for c in std::iter::once(&plain).chain(folded.as_ref()) {
                    let mut fast = Vec::new();
                    c.for_each_child_index(&p, |x| fast.push(x));
                    let slow: Vec<u64> = c.moves(&p).iter().map(|(_, q)| c.encode(q)).collect();
                    assert_eq!(fast, slow, "{spec}: {}", c.format_position(&p));
                    assert_eq!(c.move_count(&p), slow.len() as u64);
                }
            }
        }
    }

    #[test]
    fn every_position_probes_through_its_canonical_image() {
        for spec in SPECS.iter().filter(|s| !s.starts_with("1x")) {
            let plain = g(spec);
            let f = plain.folded().unwrap();
            for p in boards(&plain) {
                let q = mirror(&f, &p);
                if plain.decode(plain.encode(&p)).is_none() {
                    assert_eq!(f.decode(f.encode(&p)), None, "{spec}");
                    continue;
                }
                let stored = f.decode(f.encode(&p)).unwrap();
                assert!(stored == p || stored == q, "{spec}");
                // Mirror images share an index unless their column heights
                // are a palindrome (then each keeps its own colouring).
                assert_eq!(
                    f.encode(&p) == f.encode(&q),
                    p == q || !palindromic_heights(&f, &p),
                    "{spec}: {}",
                    f.format_position(&p)
                );
            }
        }
    }

    #[test]
    fn folded_sizes_schemes_and_refusals() {
        for (spec, plain, folded) in [
            ("4x4", 201_755, 112_861),
            ("5x4", 5_621_939, 3_145_591),
            ("6x4", 159_643_961, 83_168_680),
            ("5x5", 171_976_899, 95_598_887),
            ("7x4", 4_593_382_831, 2_393_194_091),
            ("6x5", 9_918_556_649, 5_149_807_912),
        ] {
            let c = g(spec);
            let f = c.folded().unwrap();
            assert_eq!((c.size(), f.size()), (plain, folded), "{spec}");
            // At most 0.56 of the plain index; 0.52 from 6 × 4 up.
            assert!(100 * folded <= 56 * plain, "{spec}");
        }
        let plain = g("5x4x3:misere");
        let f = plain.folded().unwrap();
        assert_eq!(f.spec(), plain.spec());
        assert_eq!(f.file_stem(), "connect-5x4x3-misere-folded");
        assert_eq!((plain.index_scheme(), f.index_scheme()), (3, 4));
        assert!(f.is_folded() && !plain.is_folded());
        assert_ne!(f, plain);
        assert_eq!(f.unfolded(), plain);
        assert_eq!(f.folded().unwrap(), f);
        let e = g("1x4x2").folded().unwrap_err();
        assert!(e.contains("single column"), "{e}");
    }
}
