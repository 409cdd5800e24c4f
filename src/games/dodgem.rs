//! Dodgem (Colin Vout; Winning Ways, ch. 22) on an N×N board, N = 2..=5: a
//! loopy game, solved with draws by the retrograde solver for loopy games.
//!
//! Rules. Each player has N−1 cars. The first player's (blue, player 0)
//! cars start on the left edge, in every row but the bottom one; the second
//! player's (red, player 1) along the bottom edge, in every column but the
//! leftmost; the bottom-left square is empty. Blue moves first. A move takes
//! one of the mover's cars one square onto an empty square: blue forward
//! (right), up or down; red forward (up), left or right. A car leaves the
//! board only by a forward move off the far edge (blue off the right edge,
//! red off the top edge) and is then out of the game. A player who has no
//! legal move on their turn — all cars gone, or every car blocked — wins
//! (remoteness 0). Cars can move sideways back and forth, so positions
//! repeat; perfect play may never end (a draw). 3×3 is a first-player win;
//! 4×4 and 5×5 are draws (des Jardins, 1996).
//!
//! Squares: `s = row·N + col`, row 0 at the top, col 0 at the left. In move
//! notation a square is a file letter (`a` = leftmost column) and a rank
//! number (`1` = bottom row), as on a chess board.
//!
//! Position notation: the rows top to bottom separated by `/` (`.` empty,
//! `b` a blue car, `r` a red car), then the side to move, `b` or `r`, after a
//! space or a colon. The 3×3 start is `b../b../.rr b`.
//!
//! Move notation: the car's square, then the direction: `>` right, `^` up,
//! `v` down, `<` left. A forward move off the edge is written the same way
//! (`c2>` on 3×3 takes a blue car on the right edge off the board).
//!
//! Index (scheme 1). With n = N² squares and kb, kr the numbers of blue and
//! red cars on the board (0..=N−1 each), block (kb, kr) holds
//! 2·C(n, kb)·C(n−kb, kr) entries:
//!
//! ```text
//! index = offset(kb, kr) + (rank(blue) · C(n−kb, kr) + rank(red')) · 2 + side
//! ```
//!
//! where `rank` is the colex rank of a set of squares (Σ C(sᵢ, i+1) over its
//! squares s₀ < s₁ < …), `red'` is the red set with the blue squares squeezed
//! out (squares renumbered among the n−kb squares blue leaves free), `side`
//! is 0 when blue is to move, and the blocks follow in order kb = 0..N−1,
//! kr = 0..N−1 within each kb. Size: 2·Σ_{kb,kr<N} C(n, kb)·C(n−kb, kr) =
//! 42, 2,846, 555,986 and 240,060,402 for N = 2, 3, 4, 5. Every index is a
//! legal position (both players out of cars included: it arises when the
//! player who emptied first is to move after the other empties too), so
//! `decode` is `None` only beyond the size.

/// The rules as a player reads them: what the explorer shows beside the
/// board (`retrograde games` lists them too).
pub const RULES: &str = "Each player has N−1 cars: blue's on the left edge, red's along the bottom. A move drives one of your cars one square onto an empty square: blue right, up or down; red up, left or right. A car leaves the board only forward off the far edge (blue off the right, red off the top). A player who cannot move on their turn, all cars gone or blocked, wins. Cars may drive back and forth, so a game can go on forever: a draw.";

use crate::game::Game;
use crate::games::bits::{insert_zero, next_combination};
use crate::games::board::{BoardView, Cell, CellState, Facing, Join, Labels, Layout, Shape, View};
use crate::value::Value;

/// Largest supported board side: 5×5 has 240 M entries; 6×6 would have 1.9·10¹¹.
pub const MAX_SIDE: u32 = 5;
/// Most cars per player (on the largest board).
const MAX_CARS: usize = MAX_SIDE as usize - 1;
/// Most squares.
const MAX_SQUARES: usize = (MAX_SIDE * MAX_SIDE) as usize;

/// Dodgem on an N×N board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dodgem {
    n: u32,
    squares: u32,
    /// `binom[m][k]` = C(m, k) for m ≤ 25, k ≤ 4.
    binom: [[u64; MAX_CARS + 1]; MAX_SQUARES + 1],
    /// `rank_terms[s][k]` = C(s, k) for s < 32, and 0 in row 32.
    rank_terms: [[u64; MAX_CARS + 1]; 33],
    /// First index of block (kb, kr).
    offset: [[u64; MAX_CARS + 1]; MAX_CARS + 1],
    /// First work unit of block (kb, kr): one unit per blue placement.
    unit_base: [[u64; MAX_CARS + 1]; MAX_CARS + 1],
    units: u64,
    size: u64,
    /// The k-subsets of the squares in colex order, k = 0..N−1 one after
    /// another: `subsets[first[k] + rank]` is the set of colex rank `rank`.
    subsets: Vec<u32>,
    first: [usize; MAX_CARS + 1],
}

/// A Dodgem position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DodgemPosition {
    /// Bit s set when a blue (first player's) car stands on square s.
    pub blue: u32,
    /// Bit s set when a red (second player's) car stands on square s.
    pub red: u32,
    /// The player to move: 0 blue, 1 red.
    pub to_move: u8,
}

/// A direction of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards higher columns (`>`): blue's forward, a red sideways move.
    Right,
    /// Towards the top row (`^`): red's forward, a blue sideways move.
    Up,
    /// Towards the bottom row (`v`): a blue sideways move.
    Down,
    /// Towards lower columns (`<`): a red sideways move.
    Left,
}

impl Direction {
    fn symbol(self) -> char {
        match self {
            Direction::Right => '>',
            Direction::Up => '^',
            Direction::Down => 'v',
            Direction::Left => '<',
        }
    }
}

/// A move: the car on square `from` goes one square in direction `dir`
/// (off the board if that is a forward move over the far edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DodgemMove {
    /// The car's square.
    pub from: u8,
    /// Where it goes.
    pub dir: Direction,
}

impl Dodgem {
    /// Dodgem on an `n`×`n` board (2 ≤ n ≤ 5).
    pub fn new(n: u32) -> crate::Result<Dodgem> {
        Dodgem::build(n).map_err(crate::games::bad_parameters("dodgem"))
    }

    fn build(n: u32) -> Result<Dodgem, String> {
        if !(2..=MAX_SIDE).contains(&n) {
            return Err(format!(
                "board side {n} is not supported: use 2 to {MAX_SIDE}"
            ));
        }
        let squares = n * n;
        let mut binom = [[0u64; MAX_CARS + 1]; MAX_SQUARES + 1];
        for m in 0..=MAX_SQUARES {
            binom[m][0] = 1;
            for k in 1..=MAX_CARS {
                binom[m][k] = if m == 0 {
                    0
                } else {
                    binom[m - 1][k - 1] + binom[m - 1][k]
                };
            }
        }
        let mut rank_terms = [[0u64; MAX_CARS + 1]; 33];
        for (s, row) in rank_terms.iter_mut().enumerate().take(MAX_SQUARES + 1) {
            *row = binom[s];
        }
        let cars = (n - 1) as usize;
        let mut offset = [[0u64; MAX_CARS + 1]; MAX_CARS + 1];
        let mut unit_base = [[0u64; MAX_CARS + 1]; MAX_CARS + 1];
        let mut size = 0u64;
        let mut units = 0u64;
        for kb in 0..=cars {
            for kr in 0..=cars {
                offset[kb][kr] = size;
                unit_base[kb][kr] = units;
                size += 2 * binom[squares as usize][kb] * binom[squares as usize - kb][kr];
                units += binom[squares as usize][kb];
            }
        }
        // Subsets of each size in increasing numeric order, which is colex order.
        let mut subsets = Vec::new();
        let mut first = [0usize; MAX_CARS + 1];
        for (k, f) in first.iter_mut().enumerate().take(cars + 1) {
            *f = subsets.len();
            let mut x = (1u32 << k) - 1;
            for _ in 0..binom[squares as usize][k] {
                subsets.push(x);
                x = next_combination(u64::from(x)) as u32;
            }
        }
        Ok(Dodgem {
            n,
            squares,
            binom,
            rank_terms,
            offset,
            unit_base,
            units,
            size,
            subsets,
            first,
        })
    }

    /// Parses the parameters after `dodgem:`: the board side `N` (or `NxN`).
    pub fn from_params(params: &str) -> Result<Dodgem, String> {
        let usage = "expected dodgem:N with N = 2..5, e.g. dodgem:3";
        let p = params;
        let side = match p.split_once(['x', 'X']) {
            Some((a, b)) if a == b => a,
            Some(_) => return Err(format!("the board must be square ({usage})")),
            None => p,
        };
        let n: u32 = crate::games::parse_num(side).ok_or_else(|| {
            format!(
                "board side {} is not a number ({usage})",
                crate::error::Error::quote(p)
            )
        })?;
        Dodgem::build(n)
    }

    /// The board side N.
    pub fn side(&self) -> u32 {
        self.n
    }

    /// Cars per player at the start (N−1).
    pub fn cars(&self) -> u32 {
        self.n - 1
    }

    /// The colex rank of a set of at most [`MAX_CARS`] squares, without
    /// data-dependent branches (row 32 of `rank_terms` is zero, for the
    /// `trailing_zeros` of an exhausted set).
    #[inline(always)]
    fn colex_rank(&self, set: u32) -> u64 {
        let mut x = set;
        let mut rank = 0;
        for i in 1..=MAX_CARS {
            rank += self.rank_terms[x.trailing_zeros() as usize][i];
            x &= x.wrapping_sub(1);
        }
        rank
    }

    /// The k-subset of colex rank `rank` (colex order does not depend on
    /// the size of the universe).
    #[inline(always)]
    fn colex_unrank(&self, rank: u64, k: usize) -> u32 {
        self.subsets[self.first[k] + rank as usize]
    }

    /// Red's squares renumbered among the squares blue leaves free: blue's
    /// squares squeezed out, lowest first (the j-th lowest has moved down by
    /// j by then). An exhausted blue set squeezes at bit 32 − j, above every
    /// square: a no-op, so the loop has a fixed length.
    #[inline(always)]
    fn squeeze_out(red: u32, blue: u32) -> u32 {
        let mut r = u64::from(red);
        let mut b = blue;
        for j in 0..MAX_CARS as u32 {
            let low = (1u64 << (b.trailing_zeros() - j)) - 1;
            r = (r & low) | ((r >> 1) & !low);
            b &= b.wrapping_sub(1);
        }
        r as u32
    }

    /// The inverse of [`Dodgem::squeeze_out`].
    #[inline(always)]
    fn spread(r: u32, blue: u32) -> u32 {
        let mut r = r;
        let mut b = blue;
        while b != 0 {
            let s = b.trailing_zeros();
            b &= b - 1;
            r = insert_zero(r, s);
        }
        r
    }

    /// The index of the position with `kb` blue cars of colex rank `rb`,
    /// `kr` red cars, side `side` to move, and the red placement of rank 0;
    /// [`Dodgem::red_term`] adds the red placement's part.
    #[inline(always)]
    fn red_base(&self, kb: usize, kr: usize, rb: u64, side: u8) -> u64 {
        let reds = self.binom[self.squares as usize - kb][kr];
        self.offset[kb][kr] + rb * reds * 2 + u64::from(side)
    }

    /// The red placement's part of the index.
    #[inline(always)]
    fn red_term(&self, red: u32, blue: u32) -> u64 {
        self.colex_rank(Self::squeeze_out(red, blue)) * 2
    }

    fn board_mask(&self) -> u32 {
        if self.squares == 32 {
            u32::MAX
        } else {
            (1u32 << self.squares) - 1
        }
    }

    /// Squares of the top row, right column, left column and bottom row.
    fn edges(&self) -> (u32, u32, u32, u32) {
        let n = self.n;
        let mut top = 0;
        let mut right = 0;
        let mut left = 0;
        let mut bottom = 0;
        for i in 0..n {
            top |= 1 << i;
            bottom |= 1 << ((n - 1) * n + i);
            left |= 1 << (i * n);
            right |= 1 << (i * n + n - 1);
        }
        (top, right, left, bottom)
    }

    /// For the mover's cars: the cars that can step in each direction onto
    /// an empty square, and the cars that can leave the board, as masks of
    /// the cars' squares: `(right, up, down, left, off)`.
    #[inline(always)]
    fn step_masks(&self, p: &DodgemPosition) -> [u32; 5] {
        let n = self.n;
        let (top, right_edge, left_edge, bottom) = self.edges();
        let empty = !(p.blue | p.red) & self.board_mask();
        if p.to_move == 0 {
            let cars = p.blue;
            [
                cars & !right_edge & (empty >> 1),
                cars & !top & (empty << n),
                cars & !bottom & (empty >> n),
                0,
                cars & right_edge,
            ]
        } else {
            let cars = p.red;
            [
                cars & !right_edge & (empty >> 1),
                cars & !top & (empty << n),
                0,
                cars & !left_edge & (empty << 1),
                cars & top,
            ]
        }
    }

    /// The move in direction `dir` of the mover's car on `from`.
    #[inline(always)]
    fn apply(&self, p: &DodgemPosition, from: u32, dir: Direction, off: bool) -> DodgemPosition {
        let n = self.n;
        let to = match dir {
            Direction::Right => from + 1,
            Direction::Left => from.wrapping_sub(1),
            Direction::Up => from.wrapping_sub(n),
            Direction::Down => from + n,
        };
        let mut c = *p;
        let cars = if p.to_move == 0 {
            &mut c.blue
        } else {
            &mut c.red
        };
        *cars &= !(1 << from);
        if !off {
            *cars |= 1 << to;
        }
        c.to_move ^= 1;
        c
    }

    /// Calls `f` with every move of a position, in a fixed order: by
    /// direction (blue `>`, `^`, `v`; red `^`, `<`, `>`), cars in square order.
    #[inline(always)]
    fn for_each_move(&self, p: &DodgemPosition, mut f: impl FnMut(DodgemMove, DodgemPosition)) {
        let [right, up, down, left, off] = self.step_masks(p);
        let order: [(Direction, u32, u32); 3] = if p.to_move == 0 {
            [
                (Direction::Right, right, off),
                (Direction::Up, up, 0),
                (Direction::Down, down, 0),
            ]
        } else {
            [
                (Direction::Up, up, off),
                (Direction::Left, left, 0),
                (Direction::Right, right, 0),
            ]
        };
        for (dir, on, off) in order {
            // Cars stepping on the board and cars leaving it, in square order.
            let mut all = on | off;
            while all != 0 {
                let s = all.trailing_zeros();
                all &= all - 1;
                let leaves = off & (1 << s) != 0;
                f(
                    DodgemMove { from: s as u8, dir },
                    self.apply(p, s, dir, leaves),
                );
            }
        }
    }

    fn square_name(&self, s: u32) -> String {
        let col = s % self.n;
        let row = s / self.n;
        format!("{}{}", (b'a' + col as u8) as char, self.n - row)
    }
}

impl Game for Dodgem {
    type Position = DodgemPosition;
    type Move = DodgemMove;

    fn spec(&self) -> String {
        format!("dodgem:{}", self.n)
    }

    fn file_stem(&self) -> String {
        format!("dodgem-{}", self.n)
    }

    fn index_scheme(&self) -> u16 {
        1
    }

    fn size(&self) -> u64 {
        self.size
    }

    #[inline]
    fn encode(&self, p: &DodgemPosition) -> u64 {
        let kb = p.blue.count_ones() as usize;
        let kr = p.red.count_ones() as usize;
        let rb = self.colex_rank(p.blue);
        self.red_base(kb, kr, rb, p.to_move) + self.red_term(p.red, p.blue)
    }

    fn decode(&self, index: u64) -> Option<DodgemPosition> {
        if index >= self.size {
            return None;
        }
        let cars = self.cars() as usize;
        let n2 = self.squares as usize;
        // The last block starting at or before the index.
        let (mut kb, mut kr) = (0, 0);
        for b in 0..=cars {
            for r in 0..=cars {
                if self.offset[b][r] <= index {
                    (kb, kr) = (b, r);
                }
            }
        }
        let rest = index - self.offset[kb][kr];
        let to_move = (rest & 1) as u8;
        let rest = rest >> 1;
        let reds = self.binom[n2 - kb][kr];
        let blue = self.colex_unrank(rest / reds, kb);
        let free = self.colex_unrank(rest % reds, kr);
        Some(DodgemPosition {
            blue,
            red: Self::spread(free, blue),
            to_move,
        })
    }

    fn start(&self) -> DodgemPosition {
        let n = self.n;
        let mut blue = 0;
        let mut red = 0;
        for i in 0..n - 1 {
            blue |= 1 << (i * n);
            red |= 1 << ((n - 1) * n + i + 1);
        }
        DodgemPosition {
            blue,
            red,
            to_move: 0,
        }
    }

    /// A player with no legal move wins.
    #[inline]
    fn primitive(&self, p: &DodgemPosition) -> Option<Value> {
        let m = self.step_masks(p);
        (m.iter().all(|&x| x == 0)).then_some(Value::Win)
    }

    fn moves(&self, p: &DodgemPosition) -> Vec<(DodgemMove, DodgemPosition)> {
        let mut out = Vec::new();
        self.for_each_move(p, |m, c| out.push((m, c)));
        out
    }

    #[inline]
    fn for_each_child_index(&self, p: &DodgemPosition, mut f: impl FnMut(u64)) {
        self.for_each_move(p, |_, c| f(self.encode(&c)));
    }

    #[inline]
    fn move_count(&self, p: &DodgemPosition) -> u64 {
        self.step_masks(p)
            .iter()
            .map(|m| u64::from(m.count_ones()))
            .sum()
    }

    fn acyclic(&self) -> bool {
        false
    }

    /// Un-moves: the previous mover's car stepped back, or a car put back on
    /// the far edge. Each parent has exactly one move to `p`.
    fn for_each_parent_index(&self, p: &DodgemPosition, mut f: impl FnMut(u64)) {
        let n = self.n;
        let (top, right_edge, left_edge, bottom) = self.edges();
        let empty = !(p.blue | p.red) & self.board_mask();
        let mover = p.to_move ^ 1;
        let (cars, max_cars) = (if mover == 0 { p.blue } else { p.red }, self.cars());
        // The index with the car counts known (and, when red moved, blue's
        // part computed once).
        let (kb, kr) = (p.blue.count_ones() as usize, p.red.count_ones() as usize);
        let rb = self.colex_rank(p.blue);
        let mut emit = |from: u32, to: Option<u32>| {
            let back = to.is_none() as usize;
            if mover == 0 {
                let blue = to.map_or(p.blue, |t| p.blue & !(1 << t)) | 1 << from;
                let rb = self.colex_rank(blue);
                f(self.red_base(kb + back, kr, rb, mover) + self.red_term(p.red, blue));
            } else {
                let red = to.map_or(p.red, |t| p.red & !(1 << t)) | 1 << from;
                f(self.red_base(kb, kr + back, rb, mover) + self.red_term(red, p.blue));
            }
        };
        // (car squares that could have arrived this way, offset to the origin)
        let steps: [(u32, i32); 3] = if mover == 0 {
            [
                // Moved right from the square on the left.
                (cars & !left_edge & (empty << 1), -1),
                // Moved up from the square below.
                (cars & !bottom & (empty >> n), n as i32),
                // Moved down from the square above.
                (cars & !top & (empty << n), -(n as i32)),
            ]
        } else {
            [
                // Moved up from the square below.
                (cars & !bottom & (empty >> n), n as i32),
                // Moved left from the square on the right.
                (cars & !right_edge & (empty >> 1), 1),
                // Moved right from the square on the left.
                (cars & !left_edge & (empty << 1), -1),
            ]
        };
        for (mut set, delta) in steps {
            while set != 0 {
                let t = set.trailing_zeros();
                set &= set - 1;
                emit((t as i32 + delta) as u32, Some(t));
            }
        }
        // A car that left over the far edge comes back.
        if cars.count_ones() < max_cars {
            let mut edge = empty & if mover == 0 { right_edge } else { top };
            while edge != 0 {
                let s = edge.trailing_zeros();
                edge &= edge - 1;
                emit(s, None);
            }
        }
    }

    /// One tier: the loopy solver only uses the tier's units to enumerate.
    fn tier_count(&self) -> u32 {
        1
    }

    fn tier(&self, _p: &DodgemPosition) -> u32 {
        0
    }

    /// One unit per block and blue placement.
    fn tier_units(&self, _tier: u32) -> u64 {
        self.units
    }

    /// The unit's positions in index order: every red placement on the
    /// squares blue leaves free, each with blue and then red to move.
    fn for_each_in_unit(&self, _tier: u32, unit: u64, mut f: impl FnMut(u64, &DodgemPosition)) {
        let cars = self.cars() as usize;
        let (mut kb, mut kr) = (0, 0);
        for b in 0..=cars {
            for r in 0..=cars {
                if self.unit_base[b][r] <= unit {
                    (kb, kr) = (b, r);
                }
            }
        }
        if unit >= self.units {
            return;
        }
        let rb = unit - self.unit_base[kb][kr];
        let blue = self.colex_unrank(rb, kb);
        let reds = self.binom[self.squares as usize - kb][kr];
        let mut index = self.offset[kb][kr] + rb * reds * 2;
        let mut free = (1u32 << kr) - 1;
        for _ in 0..reds {
            let red = Self::spread(free, blue);
            for to_move in 0..2 {
                f(index, &DodgemPosition { blue, red, to_move });
                index += 1;
            }
            free = next_combination(u64::from(free)) as u32;
        }
    }

    /// Remoteness bound, from solving every supported size: the largest
    /// remoteness is 5, 22, 43 and 82 for N = 2, 3, 4, 5 (a loopy game has
    /// no simple a-priori bound: cars can shuffle sideways). So one-byte
    /// cells (up to 63) for N ≤ 4 and two-byte cells for N = 5. The loopy
    /// solver checks every remoteness against the cell and refuses rather
    /// than truncate, so a bound that were wrong could not go unnoticed.
    fn max_remoteness(&self) -> u32 {
        if self.n <= 4 {
            63
        } else {
            16_383
        }
    }

    fn player_to_move(&self, p: &DodgemPosition) -> Option<u8> {
        Some(p.to_move)
    }

    fn parse_position(&self, s: &str) -> Result<DodgemPosition, String> {
        let n = self.n as usize;
        let t = s.trim();
        // Two fields: the board, then the side to move after spaces or a
        // ':'. Anything after the side is reported as such, not read as the
        // side (`b../.b./.rr r extra` once blamed 'extra' as the side).
        let (board, rest) = t
            .split_once(|c: char| c.is_whitespace() || c == ':')
            .ok_or("missing the side to move: add ' b' or ' r' after the board")?;
        let rest = rest.trim_start();
        let rest = rest.strip_prefix(':').unwrap_or(rest);
        let mut fields = rest.split_whitespace();
        let side = fields
            .next()
            .ok_or("missing the side to move: add ' b' or ' r' after the board")?;
        if let Some(extra) = fields.next() {
            return Err(format!(
                "trailing text {} after the side to move: a position is the board and ' b' or ' r'",
                crate::error::Error::quote(extra)
            ));
        }
        let to_move = match side {
            "b" | "B" => 0,
            "r" | "R" => 1,
            _ => {
                return Err(format!(
                    "side to move {} must be 'b' or 'r'",
                    crate::error::Error::quote(side)
                ))
            }
        };
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != n {
            return Err(format!(
                "expected {n} rows separated by '/', found {}",
                rows.len()
            ));
        }
        let mut p = DodgemPosition {
            blue: 0,
            red: 0,
            to_move,
        };
        for (r, row) in rows.iter().enumerate() {
            let chars: Vec<char> = row.chars().collect();
            if chars.len() != n {
                return Err(format!(
                    "row {} has {} squares, expected {n}",
                    r + 1,
                    chars.len()
                ));
            }
            for (c, ch) in chars.into_iter().enumerate() {
                let bit = 1u32 << (r * n + c);
                match ch {
                    '.' => {}
                    'b' => p.blue |= bit,
                    'r' => p.red |= bit,
                    _ => {
                        return Err(format!(
                            "bad character '{ch}' (use '.' empty, 'b' blue car, 'r' red car)"
                        ))
                    }
                }
            }
        }
        for (name, set) in [("blue", p.blue), ("red", p.red)] {
            if set.count_ones() > self.cars() {
                return Err(format!(
                    "{} {name} cars: each player has at most {}",
                    set.count_ones(),
                    self.cars()
                ));
            }
        }
        Ok(p)
    }

    fn format_position(&self, p: &DodgemPosition) -> String {
        let n = self.n;
        let mut s = String::new();
        for r in 0..n {
            if r > 0 {
                s.push('/');
            }
            for c in 0..n {
                s.push(square(p, r * n + c).1);
            }
        }
        s.push(' ');
        s.push(if p.to_move == 0 { 'b' } else { 'r' });
        s
    }

    fn format_move(&self, m: &DodgemMove) -> String {
        format!("{}{}", self.square_name(u32::from(m.from)), m.dir.symbol())
    }
}

/// What square `sq` holds, and the character the notation writes for it:
/// the one table behind both the notation and the board view.
fn square(p: &DodgemPosition, sq: u32) -> (CellState, char) {
    let bit = 1u32 << sq;
    if p.blue & bit != 0 {
        (CellState::Piece(0), 'b')
    } else if p.red & bit != 0 {
        (CellState::Piece(1), 'r')
    } else {
        (CellState::Empty, '.')
    }
}

/// Squares named like `a1`, then the exits: blue leaves off the right edge,
/// so a column of blue exits right of the board, then red's row above it
/// (red leaves off the top). A move is clicked as the car, then where it
/// goes.
impl View for Dodgem {
    fn board_view(&self, p: &DodgemPosition) -> BoardView {
        let n = self.n;
        let mut cells: Vec<Cell> = (0..n * n)
            .map(|sq| {
                let (state, glyph) = square(p, sq);
                Cell::square(0, sq / n, sq % n, state, self.square_name(sq), glyph)
            })
            .collect();
        cells.extend((0..n as i32).map(|r| Cell::exit(0, r, n as i32)));
        cells.extend((0..n as i32).map(|c| Cell::exit(1, -1, c)));
        let mut view = BoardView::new(Layout::Grid { rows: n, cols: n }, cells)
            .with_pieces([
                ("blue", Shape::Car(Facing::Right)),
                ("red", Shape::Car(Facing::Up)),
            ])
            .with_moves(self, p, |m| {
                let from = u32::from(m.from);
                let (r, c) = ((from / n) as i32, (from % n) as i32);
                let (to_r, to_c) = match m.dir {
                    Direction::Right => (r, c + 1),
                    Direction::Up => (r - 1, c),
                    Direction::Down => (r + 1, c),
                    Direction::Left => (r, c - 1),
                };
                let side = n as i32;
                let to = if (0..side).contains(&to_r) && (0..side).contains(&to_c) {
                    to_r * side + to_c
                } else if to_c == side {
                    side * side + to_r
                } else {
                    side * side + side + to_c
                };
                vec![from as usize, to as usize]
            });
        view.labels = Labels::Coordinates;
        view.join = Join::Arrow;
        view
    }
}

/// Drawn at the sizes its tables take.
impl crate::games::board::ForView for Dodgem {
    fn for_view(params: &str) -> Result<Dodgem, String> {
        Dodgem::from_params(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_formula() {
        let sizes: Vec<u64> = (2..=5).map(|n| Dodgem::new(n).unwrap().size()).collect();
        assert_eq!(sizes, vec![42, 2_846, 555_986, 240_060_402]);
        assert!(Dodgem::new(1).is_err());
        assert!(Dodgem::new(6).is_err());
    }

    #[test]
    fn start_and_notation() {
        let g = Dodgem::new(3).unwrap();
        let s = g.start();
        assert_eq!(g.format_position(&s), "b../b../.rr b");
        assert_eq!(g.parse_position("b../b../.rr:b"), Ok(s));
        let g5 = Dodgem::new(5).unwrap();
        assert_eq!(
            g5.format_position(&g5.start()),
            "b..../b..../b..../b..../.rrrr b"
        );
        let moves: Vec<String> = g.moves(&s).iter().map(|(m, _)| g.format_move(m)).collect();
        assert_eq!(moves, vec!["a3>", "a2>", "a2v"]);
        for bad in [
            "",
            "b../b../.rr",
            "b../b../.rr x",
            "b../b.. b",
            "b../b../.rrr b",
            "b../bb./.rr b",
            "b../b../.rx b",
            "b../b../.rr/... b",
            "ü../b../.rr b",
        ] {
            assert!(g.parse_position(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn every_index_round_trips() {
        for n in 2..=4 {
            let g = Dodgem::new(n).unwrap();
            for i in 0..g.size() {
                let p = g.decode(i).expect("every index is a position");
                assert_eq!(p.blue & p.red, 0);
                assert!(p.blue.count_ones() < n && p.red.count_ones() < n);
                assert_eq!(g.encode(&p), i, "{}", g.format_position(&p));
                assert_eq!(g.parse_position(&g.format_position(&p)), Ok(p));
            }
            assert_eq!(g.decode(g.size()), None);
        }
        let g = Dodgem::new(5).unwrap();
        for i in (0..g.size()).step_by(9_973).chain([g.size() - 1]) {
            let p = g.decode(i).unwrap();
            assert_eq!(g.encode(&p), i);
        }
    }

    #[test]
    fn children_parents_and_moves_agree() {
        for n in 2..=4 {
            let g = Dodgem::new(n).unwrap();
            let mut children_of = vec![Vec::new(); g.size() as usize];
            let mut parents_of = vec![Vec::new(); g.size() as usize];
            for i in 0..g.size() {
                let p = g.decode(i).unwrap();
                let moves = g.moves(&p);
                assert_eq!(g.primitive(&p).is_some(), moves.is_empty());
                let mut fast = Vec::new();
                g.for_each_child_index(&p, |c| fast.push(c));
                let slow: Vec<u64> = moves.iter().map(|(_, c)| g.encode(c)).collect();
                assert_eq!(fast, slow);
                assert_eq!(g.move_count(&p), slow.len() as u64);
                for &c in &fast {
                    children_of[c as usize].push(i);
                }
                g.for_each_parent_index(&p, |q| parents_of[i as usize].push(q));
            }
            for (i, (mut a, mut b)) in children_of.into_iter().zip(parents_of).enumerate() {
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "parents of index {i}");
            }
        }
    }

    #[test]
    fn units_cover_every_index_once() {
        for n in 2..=4 {
            units_cover(n);
        }
    }

    fn units_cover(n: u32) {
        let g = Dodgem::new(n).unwrap();
        let mut seen = vec![0u8; g.size() as usize];
        for t in 0..g.tier_count() {
            for u in 0..g.tier_units(t) {
                g.for_each_in_unit(t, u, |i, p| {
                    assert_eq!(g.encode(p), i);
                    seen[i as usize] += 1;
                });
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }

    #[test]
    fn cars_leave_only_forward() {
        let g = Dodgem::new(3).unwrap();
        // Blue on the right edge leaves with '>'; red on the top row with '^'.
        let p = g.parse_position("..b/.../r.. b").unwrap();
        let m: Vec<String> = g.moves(&p).iter().map(|(m, _)| g.format_move(m)).collect();
        assert_eq!(m, vec!["c3>", "c3v"]);
        let (_, c) = &g.moves(&p)[0];
        assert_eq!(g.format_position(c), ".../.../r.. r");
        let p = g.parse_position("r../.../..b r").unwrap();
        let m: Vec<String> = g.moves(&p).iter().map(|(m, _)| g.format_move(m)).collect();
        assert_eq!(m, vec!["a3^", "a3>"]);
        // No cars: the player to move wins at once; blocked likewise.
        let p = g.parse_position(".../.../.r. b").unwrap();
        assert_eq!(g.primitive(&p), Some(Value::Win));
        let p = g.parse_position(".../.r./.br b").unwrap();
        assert_eq!(g.primitive(&p), Some(Value::Win));
        assert_eq!(g.primitive(&g.start()), None);
    }
}
