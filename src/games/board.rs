//! The board a person sees: [`BoardView`], one game-independent description
//! of a position (its layout, its cells with their names and states, how
//! the pieces look, and for each move the cells a person clicks), and
//! [`View`], the trait by which a game draws it from its own position.
//!
//! The explorer's page (`retrograde serve`, whose JSON is this description)
//! and the terminal (`retrograde play`) both draw from it and name no game:
//! a game's board lives in the game's own file, beside its rules and
//! notation, as GamesmanOne keeps a game's solver, play and web faces in one
//! file. A game added to the registry appears in both with no change to
//! either.

use crate::game::Game;
use crate::games::AnyGame;

/// How the cells are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One grid of `rows` × `cols` cells (rows may be shorter than `cols`:
    /// a pattern file's rows).
    Grid {
        /// Rows, counted from the top.
        rows: u32,
        /// Columns (of the longest row).
        cols: u32,
    },
    /// `layers` grids of `rows` × `cols` drawn side by side, layer 0 the
    /// bottom (a cube, as Sogo's).
    Layers {
        /// Layers, the bottom first.
        layers: u32,
        /// Rows of each layer.
        rows: u32,
        /// Columns of each layer.
        cols: u32,
    },
    /// No cells: the position is one number (a take-away game's pile), and
    /// a move is chosen by its name.
    Number(u64),
}

/// What a cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellState {
    /// Nothing.
    Empty,
    /// A piece of player 0 or 1 (drawn as [`BoardView::pieces`] says).
    Piece(u8),
    /// A square taken out of play: drawn as a hole (Isolation).
    Removed,
    /// A square covered by a neutral piece (Cram's dominoes).
    Covered,
    /// Not a square: a place off the board where player 0's or 1's pieces
    /// leave it (Dodgem). Drawn faintly, and only a move's target.
    Exit(u8),
}

/// One cell of a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Layer (0 unless the layout is [`Layout::Layers`]).
    pub layer: u32,
    /// Row from the top; outside `0..rows` for an exit beside the board.
    pub row: i32,
    /// Column from the left; outside `0..cols` for an exit beside the board.
    pub col: i32,
    /// What the cell holds.
    pub state: CellState,
    /// The square's name in the game's move notation, as [`BoardView::labels`]
    /// says they are written.
    pub label: String,
    /// The character the game's position notation writes for this cell
    /// (a text drawing shows it; `' '` for exits).
    pub glyph: char,
}

/// How a player's piece is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An x (tic-tac-toe's first player).
    Cross,
    /// An o.
    Ring,
    /// A disc in a hole of the frame (with [`CellShape::Hole`]).
    Disc,
    /// A round token bearing the player's name.
    Token,
    /// A car seen from above, driving towards `Facing`.
    Car(Facing),
}

/// A direction on the drawn board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Facing {
    /// Towards higher columns.
    Right,
    /// Towards the top row.
    Up,
    /// Towards lower columns.
    Left,
    /// Towards the bottom row.
    Down,
}

/// A player's piece: its name (what the page calls the player) and shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The player's name, e.g. `x` or `blue`.
    pub name: String,
    /// How the piece is drawn.
    pub shape: Shape,
}

/// How the cells themselves are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellShape {
    /// Squares of a board.
    Square,
    /// Round holes in a frame, pieces dropped into them (Connect Four).
    Hole,
}

/// How the squares are named, which tells a drawing where to write the
/// names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Labels {
    /// Each square by its number: written in the square (a text drawing
    /// shows a key of the numbers beside the board).
    Squares,
    /// Each square by a file letter then a rank number, `a1` the bottom
    /// left, as in chess: written in the square (a text drawing puts the
    /// ranks left of the rows and the files under the columns).
    Coordinates,
    /// A move names a column, and every cell of a column carries its name:
    /// written once above (or, in text, under) each column.
    Columns,
}

/// How a move of several steps is shown when previewed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Join {
    /// Each step's cell on its own, numbered (Isolation: step, then
    /// remove a square elsewhere).
    None,
    /// An arrow from the first step to the last (a piece driven from one
    /// cell to another).
    Arrow,
    /// One piece spanning every step's cell (Cram's domino).
    Span,
}

/// The cells a person clicks to make one move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveSteps {
    /// The move in the game's notation.
    pub mv: String,
    /// Indices into [`BoardView::cells`], in the order clicked; empty where
    /// the move has no place on the board ([`Layout::Number`]).
    pub steps: Vec<usize>,
}

/// A position as a page or a terminal draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardView {
    /// How the cells are arranged.
    pub layout: Layout,
    /// Every square in the game's square order, then any exits. The same
    /// cells, names and places for every position of a game; only their
    /// states change.
    pub cells: Vec<Cell>,
    /// Player 0's and player 1's pieces; empty for a game without pieces.
    pub pieces: Vec<Piece>,
    /// Pieces fall to the lowest empty cell of a column (Connect, Sogo): a
    /// click anywhere in a grid's column means its landing cell.
    pub gravity: bool,
    /// How the cells are drawn.
    pub cell_shape: CellShape,
    /// How the squares are named.
    pub labels: Labels,
    /// A move's steps may be clicked in any order (Cram: a domino's two
    /// squares are one move whichever is clicked first).
    pub steps_any_order: bool,
    /// How a move of several steps is previewed.
    pub join: Join,
    /// Every legal move with its steps (none at a game's end).
    pub moves: Vec<MoveSteps>,
}

impl BoardView {
    /// A board of `layout` with these cells: squares named by number,
    /// drawn as squares, no pieces, no gravity, steps in order, no moves.
    /// A game sets what differs, then adds its moves with
    /// [`BoardView::with_moves`].
    pub fn new(layout: Layout, cells: Vec<Cell>) -> BoardView {
        BoardView {
            layout,
            cells,
            pieces: Vec::new(),
            gravity: false,
            cell_shape: CellShape::Square,
            labels: Labels::Squares,
            steps_any_order: false,
            join: Join::None,
            moves: Vec::new(),
        }
    }

    /// A grid of `rows` × `cols` squares in row-major order from the top
    /// left, square `s` (= row·cols + col) named `s`; `cell(s)` gives its
    /// state and glyph.
    pub fn numbered_grid(
        rows: u32,
        cols: u32,
        mut cell: impl FnMut(u32) -> (CellState, char),
    ) -> BoardView {
        let cells = (0..rows * cols)
            .map(|s| {
                let (state, glyph) = cell(s);
                Cell::square(0, s / cols, s % cols, state, s.to_string(), glyph)
            })
            .collect();
        BoardView::new(Layout::Grid { rows, cols }, cells)
    }

    /// The position `n` of a take-away game: a number and no cells.
    pub fn number(n: u64) -> BoardView {
        BoardView::new(Layout::Number(n), Vec::new())
    }

    /// The same board with the pieces of players 0 and 1.
    pub fn with_pieces(mut self, pieces: [(&str, Shape); 2]) -> BoardView {
        self.pieces = pieces
            .iter()
            .map(|&(name, shape)| Piece {
                name: name.to_string(),
                shape,
            })
            .collect();
        self
    }

    /// The same board with every legal move of `p` (none if the game is
    /// over there) and its steps, `steps(m)`, named in the game's notation.
    pub fn with_moves<G: Game>(
        mut self,
        g: &G,
        p: &G::Position,
        mut steps: impl FnMut(&G::Move) -> Vec<usize>,
    ) -> BoardView {
        if g.primitive(p).is_none() {
            self.moves = g
                .moves(p)
                .iter()
                .map(|(m, _)| MoveSteps {
                    mv: g.format_move(m),
                    steps: steps(m),
                })
                .collect();
        }
        self
    }

    /// The steps of the move written `mv`; empty for a move this board does
    /// not list.
    pub fn steps(&self, mv: &str) -> &[usize] {
        self.moves
            .iter()
            .find(|m| m.mv == mv)
            .map_or(&[], |m| &m.steps)
    }

    /// The player names, from the pieces; `None` for a game without pieces.
    pub fn players(&self) -> Option<[&str; 2]> {
        match &self.pieces[..] {
            [a, b] => Some([&a.name, &b.name]),
            _ => None,
        }
    }
}

impl Cell {
    /// A cell of the board proper.
    pub fn square(
        layer: u32,
        row: u32,
        col: u32,
        state: CellState,
        label: String,
        glyph: char,
    ) -> Cell {
        Cell {
            layer,
            row: row as i32,
            col: col as i32,
            state,
            label,
            glyph,
        }
    }

    /// An exit of `player`'s pieces at `row`, `col` (beside the board),
    /// named `off`.
    pub fn exit(player: u8, row: i32, col: i32) -> Cell {
        Cell {
            layer: 0,
            row,
            col,
            state: CellState::Exit(player),
            label: "off".to_string(),
            glyph: ' ',
        }
    }
}

/// A game's board: what the explorer and `play` draw. Every game in the
/// registry implements it (in its own file); [`AnyGame::view`] dispatches
/// to it.
///
/// A separate trait rather than a method of [`Game`]: the solver, the
/// reader and an embedder's own games never need a board, so `Game` stays
/// the solver's contract, and a registered game cannot forget its board
/// (the registry's dispatch does not compile without it).
pub trait View: Game {
    /// The board of `p`, with its legal moves' steps
    /// ([`BoardView::with_moves`]).
    fn board_view(&self, p: &Self::Position) -> BoardView;
}

impl AnyGame {
    /// The board of the position written `text` in the game's notation
    /// ([`Error::BadPosition`](crate::Error::BadPosition) when the game
    /// refuses the text).
    pub fn view(&self, text: &str) -> crate::Result<BoardView> {
        crate::with_game!(self, g => g.parse_position(text).map(|p| g.board_view(&p))).map_err(
            |reason| crate::Error::BadPosition {
                input: text.to_string(),
                reason,
            },
        )
    }
}

/// A game whose positions are drawn (the explorer's searched games) at
/// sizes its tables may not take: each game says how large a board it
/// draws, from its own spec.
pub trait ForView: Sized {
    /// The game of `params` (after `NAME:`), for its views only.
    fn for_view(params: &str) -> Result<Self, String>;
}

impl AnyGame {
    /// The game of `spec` whose positions are drawn: as
    /// [`AnyGame::parse`], but at the sizes each game draws
    /// ([`ForView`]), which may be past its tables' (Connect-Four's
    /// 7×6). Its index must not be used: no table of it is made or read.
    pub fn parse_for_view(spec: &str) -> crate::Result<AnyGame> {
        let (name, params) =
            crate::games::resolve(spec, &|s| AnyGame::parse_for_view(s).map(drop))?;
        match AnyGame::from_name_for_view(name, params) {
            None => Err(crate::Error::SearchOnly {
                spec: spec.to_string(),
            }),
            Some(g) => g.map_err(|reason| crate::Error::BadGame {
                spec: spec.to_string(),
                reason,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::check_view;

    fn view(spec: &str, position: &str) -> BoardView {
        AnyGame::parse(spec).unwrap().view(position).unwrap()
    }

    /// The states as the notation's characters, exits as `e`.
    fn glyphs(v: &BoardView) -> String {
        v.cells
            .iter()
            .map(|c| match c.state {
                CellState::Exit(_) => 'e',
                _ => c.glyph,
            })
            .collect()
    }

    fn steps(v: &BoardView, mv: &str) -> Vec<usize> {
        v.steps(mv).to_vec()
    }

    #[test]
    fn every_games_view_is_consistent_at_every_position() {
        for spec in [
            "isolation:3x3",
            "mnk:3x3x3",
            "pattern:odd:squares=7:rows=3.4:lines=0.1,1.2.3,2.4.6,3.5,5.6",
            "connect:4x3x3",
            "sogo:2",
            "cram:3x4",
            "dodgem:3",
            "subtraction:20:1,3,4",
            "digits:40",
        ] {
            let moves = crate::with_game!(&AnyGame::parse(spec).unwrap(), g => check_view(g));
            assert!(moves > 20, "{spec}: {moves} moves checked");
        }
    }

    #[test]
    fn isolation_moves_click_the_square_stepped_to_then_the_one_removed() {
        let v = view("isolation:3x3", ".0./.../.1.");
        assert_eq!(v.layout, Layout::Grid { rows: 3, cols: 3 });
        assert_eq!(glyphs(&v), ".0.....1.");
        assert_eq!(v.cells[1].state, CellState::Piece(0));
        assert_eq!(steps(&v, "3x4"), [3, 4]);
        assert_eq!(steps(&v, "3x9"), [0usize; 0]);
        assert_eq!(v.players(), Some(["0", "1"]));
        assert_eq!((v.join, v.steps_any_order), (Join::None, false));
        let v = view("isolation:3x3", ".../0x./.1.");
        assert_eq!(v.cells[4].state, CellState::Removed);
    }

    #[test]
    fn connect_discs_land_on_the_lowest_empty_square() {
        let v = view("connect:4x4", "..../..../.o../oxx.");
        assert!(v.gravity);
        assert_eq!((v.cell_shape, v.labels), (CellShape::Hole, Labels::Columns));
        assert_eq!(steps(&v, "1"), [8]);
        assert_eq!(steps(&v, "2"), [5]);
        assert_eq!(steps(&v, "4"), [15]);
        assert_eq!(v.cells[13].label, "2");
        assert_eq!(v.cells[13].state, CellState::Piece(0));
        assert!(steps(&v, "5").is_empty());
    }

    #[test]
    fn sogo_pieces_land_on_the_lowest_empty_layer() {
        let v = view("sogo:2", "../x.|../..");
        assert_eq!(
            v.layout,
            Layout::Layers {
                layers: 2,
                rows: 2,
                cols: 2
            }
        );
        // a1 is the bottom-left square: row 1 of each layer.
        assert_eq!(v.cells[2].label, "a1");
        assert_eq!((v.cells[6].layer, v.cells[6].label.as_str()), (1, "a1"));
        assert_eq!(steps(&v, "a1"), [6]);
        assert_eq!(steps(&v, "b2"), [1]);
        assert_eq!(v.labels, Labels::Coordinates);
    }

    #[test]
    fn dodgem_cars_move_to_a_neighbour_or_an_exit() {
        let v = view("dodgem:3", "b../b../.rr b");
        assert_eq!(v.cells.len(), 9 + 6);
        assert_eq!(glyphs(&v), "b..b...rreeeeee");
        assert_eq!(v.cells[9].state, CellState::Exit(0));
        assert_eq!((v.cells[9].row, v.cells[9].col), (0, 3));
        assert_eq!(v.cells[12].state, CellState::Exit(1));
        assert_eq!((v.cells[12].row, v.cells[12].col), (-1, 0));
        assert_eq!(steps(&v, "a3>"), [0, 1]);
        assert_eq!(steps(&v, "a2v"), [3, 6]);
        assert_eq!(v.join, Join::Arrow);
        let v = view("dodgem:3", "..b/.../.r. b");
        // Blue off the right edge from c3; red from b1 up to b2.
        assert_eq!(steps(&v, "c3>"), [2, 9]);
        let v = view("dodgem:3", "..b/.../.r. r");
        assert_eq!(steps(&v, "b1^"), [7, 4]);
        let v = view("dodgem:3", ".r./.../... r");
        assert_eq!(steps(&v, "b3^"), [1, 13]);
        assert_eq!(v.players(), Some(["blue", "red"]));
    }

    #[test]
    fn cram_dominoes_and_take_away_piles() {
        let v = view("cram:3x3", "##./.../...");
        assert_eq!(glyphs(&v), "##.......");
        assert_eq!(v.cells[0].state, CellState::Covered);
        assert!(v.steps_any_order);
        assert_eq!(v.join, Join::Span);
        assert_eq!(steps(&v, "2-5"), [2, 5]);
        assert_eq!(v.players(), None);
        let p = view("subtraction:20:1,3,4", "17");
        assert_eq!(p.layout, Layout::Number(17));
        assert!(p.cells.is_empty());
        assert_eq!(p.moves.len(), 3);
        assert!(p.steps("3").is_empty());
    }

    #[test]
    fn a_game_over_has_no_moves_and_a_bad_text_no_board() {
        let v = view("mnk:3x3x3", "xxx/oo./...");
        assert!(v.moves.is_empty());
        let game = AnyGame::parse("mnk:3x3x3").unwrap();
        assert!(game.view("x?o").is_err());
        assert!(AnyGame::parse("sogo:2").unwrap().view("../..|..").is_err());
        assert!(AnyGame::parse("digits:40").unwrap().view("abc").is_err());
    }

    /// Connect-Four's 7×6 has no table (past 2^40 positions) but is drawn:
    /// the same view as a table's board, its moves clicked by column.
    #[test]
    fn a_board_past_the_tables_is_drawn() {
        assert!(AnyGame::parse("connect:7x6").is_err());
        let g = AnyGame::parse_for_view("connect:7x6").unwrap();
        let v = g.view("4453").unwrap();
        assert_eq!((v.cells.len(), v.moves.len()), (42, 7));
        assert_eq!(glyphs(&v).matches('x').count(), 2);
        // Column 4 holds two discs: the next lands on the third row from the bottom.
        assert_eq!(v.steps("4"), [3 * 7 + 3]);
        // The same board as the table game's where both exist.
        let small = view("connect:4x4", "2231");
        let drawn = AnyGame::parse_for_view("connect:4x4")
            .unwrap()
            .view("2231")
            .unwrap();
        assert_eq!(glyphs(&small), glyphs(&drawn));
        // Sogo's 4x4x4 cube: 64 cells, drawn without the index its tables
        // would need; a1 played twice then b1, so a1's next piece lands
        // on the third layer.
        assert!(AnyGame::parse("sogo:4").is_err());
        let v = AnyGame::parse_for_view("sogo:4")
            .unwrap()
            .view("a1a1b1")
            .unwrap();
        let layers = Layout::Layers {
            layers: 4,
            rows: 4,
            cols: 4,
        };
        assert_eq!((v.layout, v.cells.len(), v.moves.len()), (layers, 64, 16));
        assert_eq!(glyphs(&v).matches('x').count(), 2);
        assert_eq!(glyphs(&v).matches('o').count(), 1);
        // Layer 2, bottom row (rank 1), file a.
        assert_eq!(v.steps("a1"), [2 * 16 + 3 * 4]);
        assert_eq!(v.cells[2 * 16 + 3 * 4].label, "a1");
        assert!(AnyGame::parse_for_view("sogo:5").is_err());
        assert!(AnyGame::parse_for_view("sprouts:3").is_err());
        assert!(AnyGame::parse_for_view("connect:9x9").is_err());
    }
}
