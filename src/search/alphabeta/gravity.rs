//! The alpha-beta search of the gravity boards ([`Columns`]), as Pons'
//! Connect-Four solver searches (his write-up, "Solving Connect 4: how to
//! build a perfect AI"), on the board's bitboards, for any board the
//! representation takes (Connect-Four of any size and line length, Sogo
//! cubes up to 3):
//!
//! - a position is two words copied down the line (no undo);
//! - **non-losing moves**: a node whose opponent can complete a line on a
//!   playable cell must play there (two such cells: lost), and a move onto
//!   the cell under an opponent's winning cell is never tried (it loses at
//!   once); a node with no other move is lost without a child. So no node
//!   is entered whose mover could win at once, and no child is generated
//!   to find that out;
//! - with at most two empty cells left and no move losing, a tie;
//! - **no line left**: a mover with no open line cannot win, one whose
//!   opponent has none cannot lose (one shift test per direction);
//! - **move order**: the table's move first, then by the number of cells
//!   the mover could complete after the move (Pons' threat count), centre
//!   columns first on ties;
//! - the **table** holds one word per position, keyed by the least raw key
//!   of the position's images under the floor's symmetries (the mirror);
//! - **enhanced transposition cutoff**: a node with six empty cells or more
//!   first looks each child up, and one already proven good for it ends
//!   the node (Schaeffer and Plaat's ETC; on `connect:7x6 653` it cut the
//!   nodes by 31% and the time by 28%).

use super::table::{work_of, Compact, Info, NO_MOVE};
use super::{Busy, Native, Solver, Worker};
use crate::search::games::columns::{winning_by, Columns};
use crate::search::games::columns::{ColumnsPos, Lines};
use crate::search::leaves::ValueLeaves;
use crate::search::{score, Bounds, SearchGame};
use std::collections::HashMap;

/// The native search of a gravity board with a table of `bytes`.
pub(crate) fn native(g: &Columns, bytes: u64) -> Native<'_, Columns> {
    Native(Box::new(Gravity {
        g,
        table: Compact::new(bytes),
        known: HashMap::new(),
        leaves: None,
        busy: Busy::new(),
    }))
}

/// What the search asks of a board: the playable cells, the cells that
/// complete lines, the open-line test, and the canonical key with the
/// symmetry that gives it (moves in the table are kept as the canonical
/// image's columns). Connect-Four's sizes have every shift and mask a
/// constant ([`Fixed`]); any other board goes through [`Runtime`].
trait Board: Sync {
    /// The cells a piece may drop into.
    fn possible(&self, mask: u64) -> u64;
    /// The empty cells that complete a line for `pieces`.
    fn winning(&self, pieces: u64, mask: u64) -> u64;
    /// Whether some line holds none of `theirs`.
    fn open(&self, theirs: u64) -> bool;
    /// The least raw key of the position's images, and which image
    /// ([`Columns::sym_key_image`]'s key and numbering).
    fn key(&self, cur: u64, mask: u64) -> (u64, u8);
    /// Column `c` in image `image`.
    fn column_image(&self, c: u8, image: u8) -> u8;
    /// The column whose image in `image` is `c`.
    fn column_preimage(&self, c: u8, image: u8) -> u8;
}

/// Connect-Four on `W` columns of `H` cells, four in a row, the mirror its
/// one symmetry, every shift and mask a constant: where the board's
/// description is exactly that ([`Columns::connect_four`]). Callgrind on a
/// Begin-Hard position of Pons' sets: the runtime shifts' loops were 30% of
/// the instructions, the mirror through the column table 6%.
struct Fixed<const W: u32, const H: u32>;

impl<const W: u32, const H: u32> Fixed<W, H> {
    /// A column's bits with its sentinel.
    const S: u32 = H + 1;
    const BOTTOM: u64 = {
        let mut b = 0u64;
        let mut c = 0;
        while c < W {
            b |= 1 << (c * Self::S);
            c += 1;
        }
        b
    };
    const BOARD: u64 = Self::BOTTOM * ((1u64 << H) - 1);
}

impl<const W: u32, const H: u32> Board for Fixed<W, H> {
    #[inline(always)]
    fn possible(&self, mask: u64) -> u64 {
        mask.wrapping_add(Self::BOTTOM) & Self::BOARD
    }

    #[inline(always)]
    fn winning(&self, p: u64, mask: u64) -> u64 {
        // Pons' formula: per direction, the cell after three in a row,
        // before them, or in the gap of 2+1 and 1+2.
        let mut r = (p << 1) & (p << 2) & (p << 3);
        for s in [H, H + 1, H + 2] {
            let back = (p << s) & (p << (2 * s));
            let ahead = (p >> s) & (p >> (2 * s));
            r |= back & ((p << (3 * s)) | (p >> s));
            r |= ahead & ((p << s) | (p >> (3 * s)));
        }
        r & Self::BOARD & !mask
    }

    #[inline(always)]
    fn open(&self, theirs: u64) -> bool {
        let free = Self::BOARD & !theirs;
        let mut any = 0;
        for s in [1, H, H + 1, H + 2] {
            let two = free & (free >> s);
            any |= two & (two >> (2 * s));
        }
        any != 0
    }

    #[inline(always)]
    fn key(&self, cur: u64, mask: u64) -> (u64, u8) {
        let k = cur.wrapping_add(mask).wrapping_add(Self::BOTTOM);
        let seg = (1u64 << Self::S) - 1;
        let mut m = 0;
        for c in 0..W {
            m |= ((k >> (c * Self::S)) & seg) << ((W - 1 - c) * Self::S);
        }
        if m < k {
            (m, 1)
        } else {
            (k, 0)
        }
    }

    #[inline(always)]
    fn column_image(&self, c: u8, image: u8) -> u8 {
        match image {
            0 => c,
            _ => W as u8 - 1 - c,
        }
    }

    #[inline(always)]
    fn column_preimage(&self, c: u8, image: u8) -> u8 {
        self.column_image(c, image)
    }
}

/// Any board the representation takes, through its own tables, with the
/// lines found by `L`.
struct Runtime<'g, L> {
    g: &'g Columns,
    lines: L,
}

impl<L: Wins> Board for Runtime<'_, L> {
    #[inline(always)]
    fn possible(&self, mask: u64) -> u64 {
        self.g.possible(mask)
    }
    #[inline(always)]
    fn winning(&self, p: u64, mask: u64) -> u64 {
        self.lines.winning(p, mask)
    }
    #[inline(always)]
    fn open(&self, theirs: u64) -> bool {
        self.lines.open(theirs)
    }
    #[inline(always)]
    fn key(&self, cur: u64, mask: u64) -> (u64, u8) {
        self.g.sym_key_image(cur, mask)
    }
    #[inline(always)]
    fn column_image(&self, c: u8, image: u8) -> u8 {
        self.g.column_image(c, image)
    }
    #[inline(always)]
    fn column_preimage(&self, c: u8, image: u8) -> u8 {
        self.g.column_preimage(c, image)
    }
}

/// How a runtime board finds the cells that complete its lines: shifts of
/// a fixed line length and number of directions, or the board's general
/// code.
trait Wins: Sync {
    /// The empty cells that complete a line for `pieces`.
    fn winning(&self, pieces: u64, mask: u64) -> u64;
    /// Whether some line holds none of `theirs`.
    fn open(&self, theirs: u64) -> bool;
}

/// Lines of `K` cells along `D` directions besides the vertical.
struct Shifts<const K: usize, const D: usize> {
    vertical: bool,
    dirs: [u32; D],
    board: u64,
}

impl<const K: usize, const D: usize> Wins for Shifts<K, D> {
    #[inline(always)]
    fn winning(&self, p: u64, mask: u64) -> u64 {
        let mut r = 0;
        if self.vertical {
            let mut m = p << 1;
            for i in 2..K {
                m &= p << i;
            }
            r |= m;
        }
        for &s in &self.dirs {
            let mut back = [!0u64; K];
            let mut ahead = [!0u64; K];
            for m in 1..K {
                back[m] = back[m - 1] & (p << (m as u32 * s));
                ahead[m] = ahead[m - 1] & (p >> (m as u32 * s));
            }
            for j in 0..K {
                r |= back[j] & ahead[K - 1 - j];
            }
        }
        r & self.board & !mask
    }

    #[inline(always)]
    fn open(&self, theirs: u64) -> bool {
        let free = self.board & !theirs;
        let run = |s: u32| {
            let mut m = free;
            for i in 1..K {
                m &= free >> (i as u32 * s);
            }
            m
        };
        let mut any = if self.vertical { run(1) } else { 0 };
        for &s in &self.dirs {
            any |= run(s);
        }
        any != 0
    }
}

/// Any board, through its own code.
struct General<'g>(&'g Columns, &'g Lines);

impl Wins for General<'_> {
    #[inline]
    fn winning(&self, p: u64, mask: u64) -> u64 {
        winning_by(self.1, p, mask, self.0.board())
    }
    #[inline]
    fn open(&self, theirs: u64) -> bool {
        self.0.open_line(theirs)
    }
}

/// The native search: the board, its table, the known bounds (keyed by
/// the raw canonical key) and leaves.
struct Gravity<'a> {
    g: &'a Columns,
    table: Compact,
    known: HashMap<u64, Bounds>,
    leaves: Option<&'a dyn ValueLeaves<Columns>>,
    busy: Busy,
}

/// Empty cells from which a node shares its moves among the threads
/// (measured on `connect:7x6 653` at two threads: 4–8 best, 14 and more
/// nearly as bad as none).
const SHARE_EMPTY: u32 = 8;

/// Most columns a move list holds.
const MAX_MOVES: usize = crate::search::games::columns::MAX_COLUMNS;

/// Empty cells from which a node first looks its children up in the table
/// (enhanced transposition cutoff). Measured on `connect:7x6 653`, one
/// thread, in seconds: none 26.7, from 20 empty cells 21.6, 14 20.2, 10
/// 20.4, 8 19.5, 6 19.2 (the nodes: 85.9 M, then 73.2, 66.6, 62.0, 60.2,
/// 59.0 M). Below a few cells a child's subtree costs less than its lookup.
const ETC_EMPTY: u32 = 6;

impl Gravity<'_> {
    /// Whether the value of the position (`cur` the mover's pieces, `mask`
    /// every piece; the mover cannot win at once) is at least `k`, with the
    /// column that shows it; `None` when stopped. The root (`ply` 0) does
    /// not take its answer from the table: it is searched for its move.
    fn negamax<L: Board>(
        &self,
        l: &L,
        w: &mut Worker<'_>,
        cur: u64,
        mask: u64,
        k: i8,
        ply: u32,
    ) -> Option<(bool, u8)> {
        if !w.visit() {
            return None;
        }
        let g = self.g;
        let opp = cur ^ mask;
        let possible = l.possible(mask);
        let opp_win = l.winning(opp, mask);
        let forced = possible & opp_win;
        let mut playable = possible;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                // Two threats: whatever the mover blocks, the other wins.
                return Some((false, NO_MOVE));
            }
            playable = forced;
        }
        // Never under an opponent's winning cell.
        playable &= !(opp_win >> 1);
        if playable == 0 {
            return Some((false, NO_MOVE));
        }
        let root = ply == 0;
        let filled = mask.count_ones();
        if filled + 2 >= g.cells() {
            // Two cells at most and no move loses: neither side can win,
            // whichever of them the mover takes.
            let c = if root && k <= 0 {
                g.column_of(playable & playable.wrapping_neg()) as u8
            } else {
                NO_MOVE
            };
            return Some((k <= 0, c));
        }
        if !root {
            // A side with no line left cannot win.
            if k == 1 {
                if !l.open(opp) {
                    return Some((false, NO_MOVE));
                }
            } else if !l.open(cur) {
                return Some((true, NO_MOVE));
            }
        }
        let (key, image) = l.key(cur, mask);
        let mut hint = NO_MOVE;
        if let Some(info) = self.table.get(key) {
            let b = info.bounds;
            if !root {
                if b.lo >= k {
                    return Some((true, NO_MOVE));
                }
                if b.hi < k {
                    return Some((false, NO_MOVE));
                }
            }
            // The move is kept as the canonical image's column.
            if info.mv != NO_MOVE {
                hint = l.column_preimage(info.mv, image);
            }
        }
        if !root {
            if !self.known.is_empty() {
                if let Some(b) = self.known.get(&key) {
                    if b.lo >= k {
                        return Some((true, NO_MOVE));
                    }
                    if b.hi < k {
                        return Some((false, NO_MOVE));
                    }
                }
            }
            if let Some(leaves) = self.leaves {
                let pos = ColumnsPos {
                    cur,
                    mask,
                    done: false,
                };
                if let Some(v) = leaves.value(g, &pos) {
                    w.leaf_hits += 1;
                    let info = Info {
                        bounds: Bounds::exact(v),
                        mv: NO_MOVE,
                        work: 1,
                    };
                    if self.table.put(key, info) {
                        w.filled += 1;
                    }
                    return Some((score(v) >= k, NO_MOVE));
                }
            }
        }
        w.deepest = w.deepest.max(u64::from(ply) + 1);
        if g.cells() - filled >= ETC_EMPTY {
            // Enhanced transposition cutoff: a child the table already
            // proves below `1 - k` for the opponent answers the node with
            // no search below it, where the move order might have gone
            // into a sibling's subtree first (or no entry of the node's
            // own survived the table's replacement).
            // Every child's bucket asked for before any is read.
            let mut keys = [(0u64, 0u64); MAX_MOVES];
            let mut n = 0;
            let mut rest = playable;
            while rest != 0 {
                let m = rest & rest.wrapping_neg();
                rest &= rest - 1;
                let child = l.key(opp, mask | m).0;
                self.table.prefetch(child);
                keys[n] = (m, child);
                n += 1;
            }
            for &(m, child) in &keys[..n] {
                if let Some(info) = self.table.get(child) {
                    if info.bounds.hi < 1 - k {
                        let c = g.column_of(m) as u8;
                        let canonical = l.column_image(c, image);
                        self.store(w, key, Bounds { lo: k, hi: 1 }, canonical, w.visited);
                        return Some((true, c));
                    }
                }
            }
        }
        // The moves, best first: insertion by score (ties keep the
        // centre-first order of the columns). Each is its score above its
        // column in 16 bits: the array is cleared at every node, and
        // clearing 32 wider entries was 9% of the instructions.
        let mut moves = [0u16; MAX_MOVES];
        let mut n = 0;
        for &c in g.order() {
            let m = playable & g.col_mask(c as usize);
            if m == 0 {
                continue;
            }
            // At most 64 cells complete a line: the table's move above all.
            let score = if c == hint {
                u16::MAX >> 8
            } else {
                l.winning(cur | m, mask).count_ones() as u16
            };
            let mut i = n;
            while i > 0 && moves[i - 1] >> 8 < score {
                moves[i] = moves[i - 1];
                i -= 1;
            }
            moves[i] = score << 8 | u16::from(c);
            n += 1;
        }
        let moves = &mut moves[..n];
        let before = w.visited;
        // Nodes with this many empty cells share their moves among the
        // threads (`Busy`); below it a subtree is too small to be worth a
        // key per move.
        let share = w.shared && g.cells() - filled >= SHARE_EMPTY;
        if share {
            self.busy.enter(key);
        }
        let refuted = self.refuted(l, w, moves, playable, opp, mask, k, ply, share);
        if share {
            self.busy.leave(key);
        }
        let c = refuted?;
        if c != NO_MOVE {
            let canonical = l.column_image(c, image);
            self.store(w, key, Bounds { lo: k, hi: 1 }, canonical, before);
            return Some((true, c));
        }
        self.store(w, key, Bounds { lo: -1, hi: k - 1 }, NO_MOVE, before);
        Some((false, NO_MOVE))
    }

    /// The first of `moves` (columns in their low byte) whose position is
    /// not at least `1 - k` for the opponent, or `NO_MOVE`; `None` when
    /// stopped. With `share`, a move another thread is searching waits
    /// until the others are done.
    #[allow(clippy::too_many_arguments)]
    fn refuted<L: Board>(
        &self,
        l: &L,
        w: &mut Worker<'_>,
        moves: &[u16],
        playable: u64,
        opp: u64,
        mask: u64,
        k: i8,
        ply: u32,
        share: bool,
    ) -> Option<u8> {
        let g = self.g;
        let mut later = [0u8; MAX_MOVES];
        let mut n = 0;
        let first = moves.iter().map(|&e| e as u8);
        for (i, c) in first.enumerate() {
            let m = playable & g.col_mask(c as usize);
            if share && i > 0 && self.busy.has(l.key(opp, mask | m).0) {
                later[n] = c;
                n += 1;
                continue;
            }
            let (child, _) = self.negamax(l, w, opp, mask | m, 1 - k, ply + 1)?;
            if !child {
                return Some(c);
            }
        }
        for &c in &later[..n] {
            let m = playable & g.col_mask(c as usize);
            let (child, _) = self.negamax(l, w, opp, mask | m, 1 - k, ply + 1)?;
            if !child {
                return Some(c);
            }
        }
        Some(NO_MOVE)
    }

    #[inline]
    fn store(&self, w: &mut Worker<'_>, key: u64, bounds: Bounds, mv: u8, before: u64) {
        let info = Info {
            bounds,
            mv,
            work: work_of(w.visited - before),
        };
        if self.table.put(key, info) {
            w.filled += 1;
        }
    }

    /// The probe with lines found by `l`.
    fn run<L: Board>(
        &self,
        l: &L,
        w: &mut Worker<'_>,
        root: &ColumnsPos,
        k: i8,
    ) -> Option<(bool, Option<usize>)> {
        let (yes, c) = self.negamax(l, w, root.cur, root.mask, k, 0)?;
        Some((yes, (yes && c != NO_MOVE).then_some(usize::from(c))))
    }
}

impl<'a> Solver<'a, Columns> for Gravity<'a> {
    /// The token is the move's column.
    fn move_of(&self, root: &ColumnsPos, token: usize) -> Option<u16> {
        let m = self.g.possible(root.mask) & self.g.col_mask(token);
        (m != 0).then(|| self.g.cell_of(m))
    }

    fn probe(&self, w: &mut Worker<'_>, root: &ColumnsPos, k: i8) -> Option<(bool, Option<usize>)> {
        let g = self.g;
        if let Some(v) = g.terminal(root) {
            return Some((score(v) >= k, None));
        }
        // The search's nodes never have a win at once: the root may.
        let now = g.winning(root.cur, root.mask) & g.possible(root.mask);
        if now != 0 {
            if !w.visit() {
                return None;
            }
            return Some((true, Some(g.column_of(now & now.wrapping_neg()))));
        }
        if let Some(dims) = g.connect_four() {
            macro_rules! fixed {
                ($(($w:literal, $h:literal)),*) => {
                    match dims {
                        $(($w, $h) => return self.run(&Fixed::<$w, $h>, w, root, k),)*
                        _ => {}
                    }
                };
            }
            // The sizes compiled with constants (the tables' and the
            // usual ones); any other runs the same search through the
            // board's tables.
            fixed!(
                (4, 4),
                (5, 4),
                (6, 4),
                (7, 4),
                (8, 4),
                (4, 5),
                (5, 5),
                (6, 5),
                (7, 5),
                (5, 6),
                (6, 6),
                (7, 6),
                (8, 6),
                (9, 6),
                (6, 7),
                (7, 7),
                (8, 7)
            );
        }
        match g.line_kind() {
            Lines::Shifts {
                k: 4,
                vertical,
                dirs,
            } if dirs.len() == 3 => {
                let lines = Shifts::<4, 3> {
                    vertical: *vertical,
                    dirs: [dirs[0], dirs[1], dirs[2]],
                    board: g.board(),
                };
                self.run(&Runtime { g, lines }, w, root, k)
            }
            lines => self.run(
                &Runtime {
                    g,
                    lines: General(g, lines),
                },
                w,
                root,
                k,
            ),
        }
    }

    fn set_leaves(&mut self, leaves: &'a dyn ValueLeaves<Columns>) {
        self.leaves = Some(leaves);
    }

    fn add_known(&mut self, key: [u64; 2], bounds: Bounds) {
        let Some(p) = self.g.position_of_key(&key) else {
            return;
        };
        let raw = self.g.sym_key(p.cur, p.mask);
        let b = self.known.entry(raw).or_insert(Bounds::UNKNOWN);
        *b = b.meet(bounds);
    }

    fn proven(&self) -> Vec<([u64; 2], Bounds)> {
        let mut out: HashMap<u64, Bounds> = self.known.clone();
        for (raw, b) in self.table.entries() {
            if b != Bounds::UNKNOWN {
                let e = out.entry(raw).or_insert(Bounds::UNKNOWN);
                *e = e.meet(b);
            }
        }
        out.into_iter()
            .map(|(raw, b)| {
                let (cur, mask) = self.g.of_raw_key(raw);
                let p = ColumnsPos {
                    cur,
                    mask,
                    done: false,
                };
                (self.g.key(&p), b)
            })
            .collect()
    }

    fn capacity(&self) -> u64 {
        self.table.capacity()
    }

    fn bytes(&self) -> u64 {
        self.table.bytes()
    }

    fn grow(&mut self) -> u64 {
        self.table.double()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::games::AnySearch;

    fn columns(spec: &str) -> Columns {
        match AnySearch::parse(spec).unwrap() {
            AnySearch::ConnectColumns(g) | AnySearch::SogoColumns(g) => g,
            _ => panic!("{spec}: not a column board"),
        }
    }

    /// `Fixed<W, H>` answers as the board's own tables do, on positions
    /// of random play (lines and all), for every question the search asks.
    fn same_as_runtime<const W: u32, const H: u32>(spec: &str, seed: u64) {
        let g = columns(spec);
        assert_eq!(g.connect_four(), Some((W, H)), "{spec}");
        let f = Fixed::<W, H>;
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut positions = 0;
        for _ in 0..300 {
            let (mut cur, mut mask) = (0u64, 0u64);
            loop {
                let possible = g.possible(mask);
                assert_eq!(f.possible(mask), possible);
                for (a, b) in [(cur, cur ^ mask), (cur ^ mask, cur)] {
                    assert_eq!(f.winning(a, mask), g.winning(a, mask));
                    assert_eq!(f.open(b), g.open_line(b));
                }
                let (key, image) = f.key(cur, mask);
                assert_eq!((key, image), g.sym_key_image(cur, mask));
                for c in 0..W as u8 {
                    assert_eq!(f.column_image(c, image), g.column_image(c, image));
                    assert_eq!(f.column_preimage(c, image), g.column_preimage(c, image));
                }
                positions += 1;
                if possible == 0 {
                    break;
                }
                let cols: Vec<u64> = (0..g.columns())
                    .map(|c| possible & g.col_mask(c))
                    .filter(|&m| m != 0)
                    .collect();
                let m = cols[(next() % cols.len() as u64) as usize];
                // The mover's pieces become the opponent's.
                cur ^= mask;
                mask |= m;
            }
        }
        assert!(positions > 300 * (W * H / 2) as usize);
    }

    #[test]
    fn fixed_boards_answer_as_the_board_tables() {
        same_as_runtime::<7, 6>("connect:7x6", 1);
        same_as_runtime::<4, 4>("connect:4x4", 2);
        same_as_runtime::<6, 5>("connect:6x5", 3);
        same_as_runtime::<8, 7>("connect:8x7", 4);
        same_as_runtime::<5, 4>("connect:5x4x4", 5);
    }

    #[test]
    fn only_connect_four_boards_are_fixed() {
        assert_eq!(columns("connect:7x6").connect_four(), Some((7, 6)));
        for spec in ["connect:5x4x3", "connect:4x3x2", "sogo:3"] {
            assert_eq!(columns(spec).connect_four(), None, "{spec}");
        }
    }
}
