//! Index scheme 2 of a pattern board: its symmetries folded into the
//! occupied set.

use super::*;

/// Index scheme 2: the board's symmetries folded into the occupied set.
///
/// The symmetries are those of the board's layout as a rectangle (R rows of
/// C squares: 8 for a square, 4 for a rectangle, 2 for one row) that map the
/// set of winning patterns onto itself. Occupied sets S fall into orbits;
/// each orbit keeps its numerically smallest member as representative.
/// Within tier k the representatives are numbered in numeric order (their
/// *slot*), and
///
/// ```text
/// index = offset₂(k) + slot(S) · C(k, ⌈k/2⌉) + rank(g(X) within g(S))
/// offset₂(k) = Σ_{j<k} slots(j) · C(j, ⌈j/2⌉)
/// ```
///
/// where g is the first symmetry (identity first) taking S to its
/// representative. A representative fixed by a symmetry keeps every X, so
/// mirror images of such a board are solved separately: a few percent of
/// space for an index that is a table lookup plus the scheme-1 X rank.
pub(super) struct Folding {
    pub(super) sym: BoardSymmetries,
    /// For each square set S (by mask): `slot << 3 | g`.
    pub(super) slot_of: Vec<u32>,
    /// `reps[k]`: the representatives with k squares, in numeric order.
    pub(super) reps: Vec<Vec<u32>>,
    /// `offsets[k]`: first folded index of the positions with k pieces.
    pub(super) offsets: [u64; 27],
}

impl Folding {
    pub(super) fn new(board: &PatternBoard) -> Result<Folding, String> {
        let n = board.n;
        let board_rows = board.rows();
        let (rows, cols) = (board_rows.len() as u32, board_rows[0]);
        if board_rows.iter().any(|&r| r != cols) {
            return Err(format!(
                "folding needs a rectangular layout (rows of equal length), not rows {}",
                board_rows
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        let mut sorted = board.patterns.clone();
        sorted.sort_unstable();
        let grid = BoardSymmetries::grid(rows, cols);
        let sym = grid.filter(|perm| {
            let mut image: Vec<u32> = sorted
                .iter()
                .map(|&p| {
                    squares_list(p)
                        .iter()
                        .fold(0, |m, &q| m | 1 << perm[q as usize])
                })
                .collect();
            image.sort_unstable();
            image == sorted
        });
        if sym.len() == 1 {
            return Err(format!(
                "no symmetry of the {rows}x{cols} layout maps the winning patterns onto themselves"
            ));
        }
        debug_assert!(sym.len() <= 8, "slot_of keeps g in 3 bits");
        // Sets in increasing order: a set's representative is never larger,
        // so it has its slot by the time a non-representative needs it.
        let mut slot_of = vec![0u32; 1usize << n];
        let mut reps: Vec<Vec<u32>> = vec![Vec::new(); n as usize + 1];
        for set in 0..1u32 << n {
            let (rep, g) = (0..sym.len())
                .map(|g| (sym.mask(g, set), g as u32))
                .min_by_key(|&(m, g)| (m, g))
                .unwrap_or((set, 0));
            slot_of[set as usize] = if rep == set {
                let tier = &mut reps[set.count_ones() as usize];
                tier.push(set);
                (tier.len() as u32 - 1) << 3
            } else {
                slot_of[rep as usize] & !7 | g
            };
        }
        let mut offsets = [0u64; 27];
        for k in 0..=n {
            offsets[k as usize + 1] =
                offsets[k as usize] + reps[k as usize].len() as u64 * binom(k, k.div_ceil(2));
        }
        Ok(Folding {
            sym,
            slot_of,
            reps,
            offsets,
        })
    }

    /// The folded index of the position (x, o).
    #[inline]
    pub(super) fn encode(&self, x: u32, o: u32) -> u64 {
        let s = x | o;
        let k = s.count_ones();
        let e = self.slot_of[s as usize];
        let (slot, g) = (e >> 3, (e & 7) as usize);
        let (x, s) = if g == 0 {
            (x, s)
        } else {
            (self.sym.mask(g, x), self.sym.mask(g, s))
        };
        self.offsets[k as usize] + u64::from(slot) * binom(k, k.div_ceil(2)) + rank_within(x, s)
    }

    /// The position with `k` pieces at folded offset `local` in its tier,
    /// whether or not it is legal.
    #[inline]
    pub(super) fn unrank_position(&self, k: u32, local: u64) -> PatternPosition {
        let cx = binom(k, k.div_ceil(2));
        let s = self.reps[k as usize][(local / cx) as usize];
        let x = deposit(unrank(local % cx, k.div_ceil(2), k), s);
        PatternPosition { x, o: s & !x }
    }
}

/// The colex rank of X among the subsets of S with as many squares, X's
/// squares numbered by their position in S.
#[inline(always)]
fn rank_within(x: u32, s: u32) -> u64 {
    let (mut rx, mut j, mut t) = (0, 0, 0);
    let mut rest = s;
    while rest != 0 {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        let is_x = x >> sq & 1;
        rx += u64::from(is_x) * binom(j, t + 1);
        t += is_x;
        j += 1;
    }
    rx
}
