//! An independent brute-force oracle for Isolation, checked against the
//! generator entry by entry.
//!
//! The oracle is plain memoised minimax written from the rules in
//! REFERENCE.md ("Isolation"): its own 2-D king steps, its own removal loop,
//! its own memo keyed by removed-mask × piece squares. It shares nothing with
//! `src/games/isolation.rs` except the public `Isolation` type, used only to
//! decode table indices (and that decoding is itself checked against the
//! index formula documented for scheme 3).
//!
//! Remoteness (REFERENCE.md): game over = 0 (the mover without a step loses);
//! win = 1 + min remoteness among losing children; lose = 1 + max remoteness
//! among children.

use retrograde::games::Isolation;
use retrograde::{AnyGame, Game, Outcome, Tablebase, Value};

use crate::common::cell;

/// Memo cell: 0 = not computed; otherwise `KNOWN | [WIN] | remoteness`.
const KNOWN: u8 = 0x80;
const WIN: u8 = 0x40;

struct Oracle {
    rows: usize,
    cols: usize,
    n: usize,
    memo: Vec<u8>,
    /// Misère play: the player who cannot step wins.
    misere: bool,
}

impl Oracle {
    fn new(rows: usize, cols: usize) -> Oracle {
        let n = rows * cols;
        Oracle {
            rows,
            cols,
            n,
            memo: vec![0; (1usize << n) * n * n],
            misere: false,
        }
    }

    fn key(&self, pieces: [usize; 2], removed: u32) -> usize {
        (removed as usize * self.n + pieces[0]) * self.n + pieces[1]
    }

    /// The squares the player to move can step to: king steps in row/column
    /// coordinates onto present squares not occupied by the other piece.
    fn steps(&self, pieces: [usize; 2], removed: u32) -> Vec<usize> {
        let mover = (removed.count_ones() % 2) as usize;
        let from = pieces[mover];
        let other = pieces[1 - mover];
        let (r, c) = ((from / self.cols) as i64, (from % self.cols) as i64);
        let mut out = Vec::with_capacity(8);
        for dr in -1i64..=1 {
            for dc in -1i64..=1 {
                if dr == 0 && dc == 0 {
                    continue;
                }
                let (rr, cc) = (r + dr, c + dc);
                if rr < 0 || cc < 0 || rr >= self.rows as i64 || cc >= self.cols as i64 {
                    continue;
                }
                let to = rr as usize * self.cols + cc as usize;
                if removed & (1 << to) == 0 && to != other {
                    out.push(to);
                }
            }
        }
        out
    }

    /// Every child: step, then remove any present square no piece stands on.
    fn children(&self, pieces: [usize; 2], removed: u32) -> Vec<([usize; 2], u32)> {
        let mover = (removed.count_ones() % 2) as usize;
        let mut out = Vec::new();
        for to in self.steps(pieces, removed) {
            let mut next = pieces;
            next[mover] = to;
            for sq in 0..self.n {
                if removed & (1 << sq) == 0 && sq != next[0] && sq != next[1] {
                    out.push((next, removed | 1 << sq));
                }
            }
        }
        out
    }

    /// (win for the player to move, remoteness).
    fn solve(&mut self, pieces: [usize; 2], removed: u32) -> (bool, u32) {
        let k = self.key(pieces, removed);
        let m = self.memo[k];
        if m & KNOWN != 0 {
            return (m & WIN != 0, u32::from(m & 0x3f));
        }
        let kids = self.children(pieces, removed);
        let result = if kids.is_empty() {
            // No step at all (with a step there is always a square to remove:
            // the vacated one). The mover loses (wins under misère).
            assert!(self.steps(pieces, removed).is_empty());
            (self.misere, 0)
        } else {
            let mut min_lose = None::<u32>;
            let mut max_any = 0u32;
            for (p, rm) in kids {
                let (w, r) = self.solve(p, rm);
                if !w {
                    min_lose = Some(min_lose.map_or(r, |x| x.min(r)));
                }
                max_any = max_any.max(r);
            }
            match min_lose {
                Some(r) => (true, r + 1),
                None => (false, max_any + 1),
            }
        };
        assert!(result.1 < 0x40);
        self.memo[k] = KNOWN | if result.0 { WIN } else { 0 } | result.1 as u8;
        result
    }

    fn outcome(&mut self, pieces: [usize; 2], removed: u32) -> Outcome {
        let (w, r) = self.solve(pieces, removed);
        Outcome {
            value: if w { Value::Win } else { Value::Lose },
            remoteness: Some(r),
        }
    }

    /// The index of scheme 3 as documented: offset_k + pair·C(n−2, k) +
    /// colex(board), with k the removed count, offset_k = n·(n−1)·Σ_{j<k}
    /// C(n−2, j), pair = p0·(n−1) + rank(p1) (rank(p1) = p1 with p0
    /// skipped), bit j of board = the j-th non-piece square (in square order)
    /// is removed, and colex(board) = Σ_i C(s_i, i) over its set bits s_1 <
    /// s_2 < … (i from 1).
    fn documented_index(&self, pieces: [usize; 2], removed: u32) -> u64 {
        fn choose(p: u64, i: u64) -> u64 {
            if i > p {
                return 0;
            }
            (0..i).fold(1, |acc, j| acc * (p - j) / (j + 1))
        }
        let [p0, p1] = pieces;
        let m = (self.n - 2) as u64;
        let rank1 = if p1 > p0 { p1 - 1 } else { p1 };
        let pair = (p0 * (self.n - 1) + rank1) as u64;
        let mut colex = 0u64;
        let mut i = 0;
        let mut j = 0;
        for sq in 0..self.n {
            if sq == p0 || sq == p1 {
                continue;
            }
            if removed & (1 << sq) != 0 {
                i += 1;
                colex += choose(j, i);
            }
            j += 1;
        }
        let k = u64::from(removed.count_ones());
        let pairs = (self.n * (self.n - 1)) as u64;
        let offset: u64 = (0..k).map(|x| pairs * choose(m, x)).sum();
        offset + pair * choose(m, k) + colex
    }
}

/// Figures of the positions reachable from a start, computed by the oracle.
#[derive(Debug, Default, PartialEq)]
struct Reach {
    reachable: u64,
    primitive: u64,
    wins: u64,
    losses: u64,
    total_moves: u64,
}

fn oracle_reach(o: &mut Oracle, start: [usize; 2]) -> Reach {
    let mut seen = vec![false; o.memo.len()];
    let mut stack = vec![(start, 0u32)];
    seen[o.key(start, 0)] = true;
    let mut out = Reach::default();
    while let Some((p, rm)) = stack.pop() {
        out.reachable += 1;
        let (w, r) = o.solve(p, rm);
        if r == 0 {
            out.primitive += 1;
            continue;
        }
        if w {
            out.wins += 1;
        } else {
            out.losses += 1;
        }
        let kids = o.children(p, rm);
        out.total_moves += kids.len() as u64;
        for (c, crm) in kids {
            let k = o.key(c, crm);
            if !seen[k] {
                seen[k] = true;
                stack.push((c, crm));
            }
        }
    }
    out
}

fn check(game: &Isolation) {
    let (rows, cols) = (game.rows() as usize, game.cols() as usize);
    let n = rows * cols;
    let retrograde::solve::Solved {
        cells: data,
        codec,
        summary,
    } = retrograde::solve::solve_in_memory(game, &retrograde::solve::SolveOptions::default())
        .expect("solve");
    let size = game.size();
    assert_eq!(
        size,
        (n * (n - 1)) as u64 * (1u64 << (n - 2)),
        "{}",
        game.spec()
    );
    assert_eq!(data.len() as u64, size * u64::from(codec.width()));
    let mut oracle = Oracle::new(rows, cols);
    oracle.misere = game.spec().ends_with(":misere");
    let mut counts = [0u64; 4];
    let mut max_r = [0u32; 3];
    for index in 0..size {
        let p = game
            .decode(index)
            .unwrap_or_else(|| panic!("{}: index {index} decodes to nothing", game.spec()));
        let pieces = [p.pieces[0] as usize, p.pieces[1] as usize];
        assert!(pieces[0] < n && pieces[1] < n && pieces[0] != pieces[1]);
        assert_eq!(
            p.removed >> n,
            0,
            "index {index}: removed bits off the board"
        );
        assert_eq!(
            p.removed & (1 << pieces[0] | 1 << pieces[1]),
            0,
            "index {index}: a piece stands on a removed square"
        );
        assert_eq!(
            oracle.documented_index(pieces, p.removed),
            index,
            "{}: decode({index}) is not the documented scheme-3 index",
            game.spec()
        );
        let stored = codec.decode(cell(&data, codec, index));
        let expected = oracle.outcome(pieces, p.removed);
        if stored != Some(expected) {
            panic!(
                "{}: index {index} ({}) holds {stored:?}, oracle says {expected}",
                game.spec(),
                game.format_position(&p)
            );
        }
        counts[expected.value.ordinal()] += 1;
        let r = expected.remoteness.unwrap();
        let m = &mut max_r[expected.value.ordinal()];
        *m = (*m).max(r);
    }
    assert_eq!(summary.counts, counts, "{}: summary counts", game.spec());
    assert_eq!(summary.non_positions, 0, "{}", game.spec());
    assert_eq!(summary.max_remoteness, max_r, "{}", game.spec());
    assert!(max_r.iter().all(|&r| r <= game.max_remoteness()));

    // The reachable-position statistics against the oracle's own sweep.
    let start = game.start();
    let start_sq = [start.pieces[0] as usize, start.pieces[1] as usize];
    assert_eq!(start.removed, 0);
    let want = oracle_reach(&mut oracle, start_sq);
    // `analyze` reads a tablebase: write one, and check it holds the same
    // cells as the in-memory solve.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{}.rtb", game.file_stem()));
    retrograde::solve::solve_to_file(
        game,
        &path,
        &retrograde::solve::SolveOptions::default(),
        &retrograde::solve::NoProgress,
    )
    .expect("solve to file");
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let tb = unsafe { Tablebase::open_mmap(&path) }.expect("open");
    tb.verify().expect("checksum");
    assert!(
        tb.data() == &data[..],
        "{}: file and memory solves differ",
        game.spec()
    );
    let a = retrograde::internal::analyze::analyze(game, &tb).expect("analyze");
    let got = Reach {
        reachable: a.reachable,
        primitive: a.primitive,
        wins: retrograde::internal::analyze::non_primitive(&a, Value::Win),
        losses: retrograde::internal::analyze::non_primitive(&a, Value::Lose),
        total_moves: a.total_moves,
    };
    assert_eq!(got, want, "{}: reachable statistics", game.spec());
    assert_eq!(
        a.start,
        Some(oracle.outcome(start_sq, 0)),
        "{}",
        game.spec()
    );
}

fn isolation(rows: u32, cols: u32) -> Isolation {
    Isolation::new(rows, cols).unwrap()
}

#[test]
fn oracle_3x3() {
    check(&isolation(3, 3));
}

#[test]
fn oracle_3x4() {
    check(&isolation(3, 4));
}

#[test]
fn oracle_2x5() {
    check(&isolation(2, 5));
}

#[test]
fn oracle_4x3() {
    check(&isolation(4, 3));
}

#[test]
fn oracle_4x4() {
    check(&isolation(4, 4));
}

#[test]
fn oracle_non_default_start_squares() {
    for spec in [
        "isolation:3x3:a=0,b=8",
        "isolation:3x4:a=5,b=6",
        "isolation:2x5:a=9,b=0",
    ] {
        let AnyGame::Isolation(g) = AnyGame::parse(spec).unwrap() else {
            panic!("{spec} is not Isolation");
        };
        assert_eq!(g.spec(), spec);
        check(&g);
    }
}

#[test]
fn oracle_agrees_with_hand_analysis_on_2x2() {
    // Squares 0 1 / 2 3; player 0 starts on 0, player 1 on 3.
    let mut o = Oracle::new(2, 2);
    // Squares 1 and 2 removed, player 0 to move (even count): no step, lost.
    assert_eq!(o.solve([0, 3], 0b0110), (false, 0));
    // Player 0 stepped to 1 and removed 0: player 1 must step 3 -> 2 and
    // remove 3, leaving player 0 on 1 with no step. Win in 1 for player 1.
    assert_eq!(o.solve([1, 3], 0b0001), (true, 1));
    // Every first move (to 1 or 2, removing either free square) leaves
    // player 1 a win in 1, so the start is a loss in 2 for player 0.
    assert_eq!(o.solve([0, 3], 0), (false, 2));
    let g = isolation(2, 2);
    assert_eq!(g.start().pieces, [0, 3]);
    let retrograde::solve::Solved {
        cells: data, codec, ..
    } = retrograde::solve::solve_in_memory(&g, &retrograde::solve::SolveOptions::default())
        .unwrap();
    let start = g.encode(&g.start());
    assert_eq!(
        codec.decode(cell(&data, codec, start)),
        Some(Outcome {
            value: Value::Lose,
            remoteness: Some(2)
        })
    );
    check(&g);
}

#[test]
fn oracle_misere() {
    for spec in [
        "isolation:3x3:misere",
        "isolation:3x4:misere",
        "isolation:4x4:misere",
    ] {
        let AnyGame::Isolation(g) = AnyGame::parse(spec).unwrap() else {
            panic!("{spec}")
        };
        check(&g);
    }
}
