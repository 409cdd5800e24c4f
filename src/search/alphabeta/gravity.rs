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

use super::scores::{self, ScoreTable};
use super::table::{work_of, Compact, Info, NO_MOVE};
use super::{Busy, Native, Solver, Worker};
use crate::search::games::columns::bits::{below, play, Bits, WithBits};
use crate::search::games::columns::{Columns, ColumnsPos};
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
        scores: std::sync::OnceLock::new(),
    }))
}

/// The native search: the board, its table, the known bounds (keyed by
/// the raw canonical key) and leaves.
struct Gravity<'a> {
    g: &'a Columns,
    table: Compact,
    known: HashMap<u64, Bounds>,
    leaves: Option<&'a dyn ValueLeaves<Columns>>,
    busy: Busy,
    /// The score search's table, made at its first use ([`scores`]) and
    /// shared by the threads scoring moves at once.
    scores: std::sync::OnceLock<ScoreTable>,
}

/// The score of a root, run by `Layout::with_bits`.
struct Score<'s, 'w, 'x> {
    g: &'s Columns,
    w: &'w mut Worker<'x>,
    table: &'s ScoreTable,
    root: &'s ColumnsPos,
}

impl WithBits for Score<'_, '_, '_> {
    type Out = Option<i32>;

    fn with<B: Bits>(self, l: &B) -> Self::Out {
        let Score { g, w, table, root } = self;
        scores::solve(l, g.layout(), w, table, root.cur, root.mask)
    }
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
    fn negamax<L: Bits>(
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
        let g = self.g.layout();
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
        playable &= !below(opp_win);
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
                if let Some(v) = leaves.value(self.g, &pos) {
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
                let (o, after) = play(cur, mask, m);
                let child = l.key(o, after).0;
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
        let refuted = self.refuted(l, w, moves, playable, cur, mask, k, ply, share);
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
    fn refuted<L: Bits>(
        &self,
        l: &L,
        w: &mut Worker<'_>,
        moves: &[u16],
        playable: u64,
        cur: u64,
        mask: u64,
        k: i8,
        ply: u32,
        share: bool,
    ) -> Option<u8> {
        let g = self.g.layout();
        let mut later = [0u8; MAX_MOVES];
        let mut n = 0;
        let first = moves.iter().map(|&e| e as u8);
        for (i, c) in first.enumerate() {
            let (opp, after) = play(cur, mask, playable & g.col_mask(c as usize));
            if share && i > 0 && self.busy.has(l.key(opp, after).0) {
                later[n] = c;
                n += 1;
                continue;
            }
            let (child, _) = self.negamax(l, w, opp, after, 1 - k, ply + 1)?;
            if !child {
                return Some(c);
            }
        }
        for &c in &later[..n] {
            let (opp, after) = play(cur, mask, playable & g.col_mask(c as usize));
            let (child, _) = self.negamax(l, w, opp, after, 1 - k, ply + 1)?;
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
}

/// A probe of the root, run by `Layout::with_bits` on the fastest bits
/// the board has.
struct Probe<'s, 'a, 'w, 'x> {
    search: &'s Gravity<'a>,
    w: &'w mut Worker<'x>,
    root: &'s ColumnsPos,
    k: i8,
}

impl WithBits for Probe<'_, '_, '_, '_> {
    type Out = Option<(bool, Option<usize>)>;

    fn with<B: Bits>(self, l: &B) -> Self::Out {
        let Probe { search, w, root, k } = self;
        let (yes, c) = search.negamax(l, w, root.cur, root.mask, k, 0)?;
        Some((yes, (yes && c != NO_MOVE).then_some(usize::from(c))))
    }
}

impl<'a> Solver<'a, Columns> for Gravity<'a> {
    /// The token is the move's column.
    fn move_of(&self, root: &ColumnsPos, token: usize) -> Option<u16> {
        let g = self.g.layout();
        let m = g.possible(root.mask) & g.col_mask(token);
        (m != 0).then(|| g.cell_of(m))
    }

    fn probe(&self, w: &mut Worker<'_>, root: &ColumnsPos, k: i8) -> Option<(bool, Option<usize>)> {
        let g = self.g;
        if let Some(v) = g.terminal(root) {
            return Some((score(v) >= k, None));
        }
        // The search's nodes never have a win at once: the root may.
        let b = g.layout();
        let now = b.winning(root.cur, root.mask) & b.possible(root.mask);
        if now != 0 {
            if !w.visit() {
                return None;
            }
            return Some((true, Some(b.column_of(now & now.wrapping_neg()))));
        }
        g.layout().with_bits(Probe {
            search: self,
            w,
            root,
            k,
        })
    }

    fn set_leaves(&mut self, leaves: &'a dyn ValueLeaves<Columns>) {
        self.leaves = Some(leaves);
    }

    fn scores(&self) -> bool {
        true
    }

    /// Pons' score, and the plies to the end it gives.
    fn score(
        &self,
        w: &mut Worker<'_>,
        root: &ColumnsPos,
        table_bytes: u64,
    ) -> Option<Option<(u32, i32)>> {
        let g = self.g;
        let (cells, stones) = (g.layout().cells(), root.mask.count_ones());
        let score = match g.terminal(root) {
            // The last stone won: the loser scores what the winner did.
            Some(crate::value::Value::Lose) => -((cells as i32 + 2 - stones as i32) / 2),
            Some(_) => 0,
            None => {
                let table = self.scores.get_or_init(|| ScoreTable::new(table_bytes));
                g.layout().with_bits(Score { g, w, table, root })?
            }
        };
        Some(Some((scores::remoteness(cells, stones, score), score)))
    }

    fn score_table(&self) -> Option<crate::search::engine::TableUse> {
        self.scores.get().map(ScoreTable::usage)
    }

    fn add_known(&mut self, key: [u64; 2], bounds: Bounds) {
        let Some(p) = self.g.position_of_key(&key) else {
            return;
        };
        let raw = self.g.layout().sym_key(p.cur, p.mask);
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
                let (cur, mask) = self.g.layout().of_raw_key(raw);
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
