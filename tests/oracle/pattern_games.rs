//! Pattern games — m,n,k-games (`mnk:RxCxK`, `tictactoe`) and pattern files
//! (`pattern:PATH`) — against an independent oracle, entry by entry, and
//! the published facts (REFERENCE.md, "Tic-tac-toe" and "m,n,k-games").
//!
//! The oracle is plain memoised minimax written from the rules: a board is a
//! list of cells (0 empty, 1 `x`, 2 `o`); `x` moves when both have as many
//! pieces; a player who just completed a pattern has won (the mover loses in
//! 0); a full board with no pattern is a tie in 0. Its patterns come from
//! its own geometry (lines on a grid, coplanar cube vertices, the Qango-like
//! rules as written in `games/qango4.txt`'s comment), its memo key is the
//! board read as a base-3 number, and its moves are its own loop over empty
//! cells. It shares nothing with `src/games/pattern.rs` but the position
//! type, used to compare decoded indices with the documented index formula.
//!
//! Remoteness (REFERENCE.md): game over 0; win 1 + min over losing children;
//! tie (no losing child) 1 + min over tying children; lose 1 + max over
//! children.

use retrograde::games::{Mnk, PatternGame, PatternPosition};
use retrograde::internal::analyze::analyze;
use retrograde::solve::{solve_in_memory, solve_to_file, NoProgress, SolveOptions, Solved};
use retrograde::{AnyGame, Game, Outcome, Tablebase, Value};
use std::path::PathBuf;
use std::time::Instant;

use crate::common::cell;

/// Memo cell: 0 unknown, else `KNOWN | value << 5 | remoteness`.
const KNOWN: u8 = 0x80;

struct Oracle {
    n: usize,
    lines: Vec<Vec<usize>>,
    memo: Vec<u8>,
    pow3: Vec<usize>,
}

impl Oracle {
    fn new(n: usize, lines: Vec<Vec<usize>>) -> Oracle {
        let pow3: Vec<usize> = (0..=n).map(|i| 3usize.pow(i as u32)).collect();
        Oracle {
            n,
            lines,
            memo: vec![0; pow3[n]],
            pow3,
        }
    }

    fn owns(&self, board: &[u8], who: u8) -> bool {
        self.lines
            .iter()
            .any(|l| l.iter().all(|&c| board[c] == who))
    }

    /// (value, remoteness) for the player to move; value 0 win, 1 lose, 2 tie.
    fn solve(&mut self, board: &mut Vec<u8>, key: usize) -> (u8, u32) {
        let m = self.memo[key];
        if m & KNOWN != 0 {
            return ((m >> 5) & 3, u32::from(m & 31));
        }
        let xs = board.iter().filter(|&&c| c == 1).count();
        let os = board.iter().filter(|&&c| c == 2).count();
        let (mover, last) = if xs == os { (1u8, 2u8) } else { (2, 1) };
        let result = if self.owns(board, last) {
            (1, 0)
        } else if xs + os == self.n {
            (2, 0)
        } else {
            let (mut min_lose, mut min_tie, mut max_any) = (None::<u32>, None::<u32>, 0u32);
            for c in 0..self.n {
                if board[c] != 0 {
                    continue;
                }
                board[c] = mover;
                let (v, r) = self.solve(board, key + mover as usize * self.pow3[c]);
                board[c] = 0;
                match v {
                    1 => min_lose = Some(min_lose.map_or(r, |x| x.min(r))),
                    2 => min_tie = Some(min_tie.map_or(r, |x| x.min(r))),
                    _ => {}
                }
                max_any = max_any.max(r);
            }
            match (min_lose, min_tie) {
                (Some(r), _) => (0, r + 1),
                (None, Some(r)) => (2, r + 1),
                (None, None) => (1, max_any + 1),
            }
        };
        self.memo[key] = KNOWN | result.0 << 5 | result.1 as u8;
        result
    }
}

/// Pascal's triangle, C(a, b) for a, b < 32.
fn pascal() -> Vec<Vec<u64>> {
    let mut t = vec![vec![0u64; 32]; 32];
    for a in 0..32 {
        t[a][0] = 1;
        for b in 1..=a {
            t[a][b] = t[a - 1][b - 1] + t[a - 1][b];
        }
    }
    t
}

/// The documented index (scheme 1): offset(k) + rank(S)·C(k, ⌈k/2⌉) +
/// rank(X within S), colex ranks Σ C(sᵢ, i+1), offset(k) = Σ_{j<k} C(n, j)·
/// C(j, ⌈j/2⌉).
fn documented_index(c: &[Vec<u64>], board: &[u8]) -> u64 {
    let n = board.len();
    let k = board.iter().filter(|&&v| v != 0).count();
    let offset: u64 = (0..k).map(|j| c[n][j] * c[j][j.div_ceil(2)]).sum();
    let (mut rank_s, mut rank_x) = (0, 0);
    let (mut i, mut t) = (0, 0);
    for (sq, &v) in board.iter().enumerate() {
        if v == 0 {
            continue;
        }
        rank_s += c[sq][i + 1];
        if v == 1 {
            rank_x += c[i][t + 1];
            t += 1;
        }
        i += 1;
    }
    offset + rank_s * c[k][k.div_ceil(2)] + rank_x
}

/// Solves `game` and compares every index with the oracle on `lines`:
/// every board with legal piece counts is enumerated by the oracle, its
/// documented index computed, and the table's cell (or its absence, when the
/// player to move owns a pattern) checked. Returns the solve's summary
/// counts for further checks.
fn check<G: Game<Position = PatternPosition>>(game: &G, n: usize, lines: Vec<Vec<usize>>) {
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(game, &SolveOptions::default()).expect("solve");
    let size = game.size();
    let mut oracle = Oracle::new(n, lines);
    let mut seen = vec![false; size as usize];
    let mut counts = [0u64; 4];
    let mut board = vec![0u8; n];
    let c = pascal();
    for key in 0..oracle.pow3[n] {
        let mut rest = key;
        for c in board.iter_mut() {
            *c = (rest % 3) as u8;
            rest /= 3;
        }
        let xs = board.iter().filter(|&&c| c == 1).count();
        let os = board.iter().filter(|&&c| c == 2).count();
        if xs != os && xs != os + 1 {
            continue;
        }
        let index = documented_index(&c, &board);
        assert!(index < size, "{}: index {index} past {size}", game.spec());
        assert!(
            !seen[index as usize],
            "{}: index {index} twice",
            game.spec()
        );
        seen[index as usize] = true;
        let pos = PatternPosition {
            x: (0..n).filter(|&c| board[c] == 1).map(|c| 1 << c).sum(),
            o: (0..n).filter(|&c| board[c] == 2).map(|c| 1 << c).sum(),
        };
        assert_eq!(game.encode(&pos), index, "{}", game.spec());
        let mover = if xs == os { 1 } else { 2 };
        let stored = codec.decode(cell(&data, codec, index));
        if oracle.owns(&board, mover) {
            assert_eq!(game.decode(index), None, "{}: index {index}", game.spec());
            assert_eq!(stored, None, "{}: index {index}", game.spec());
            continue;
        }
        assert_eq!(
            game.decode(index),
            Some(pos),
            "{}: index {index}",
            game.spec()
        );
        let (v, r) = oracle.solve(&mut board, key);
        let value = [Value::Win, Value::Lose, Value::Tie][v as usize];
        let want = Outcome {
            value,
            remoteness: Some(r),
        };
        assert_eq!(
            stored,
            Some(want),
            "{}: {} (index {index})",
            game.spec(),
            game.format_position(&pos)
        );
        counts[value.ordinal()] += 1;
    }
    assert!(
        seen.iter().all(|&s| s),
        "{}: some index has no board",
        game.spec()
    );
    assert_eq!(summary.counts, counts, "{}: summary", game.spec());
}

/// K-in-a-row segments of an R×C grid, from the rules.
fn grid_lines(rows: usize, cols: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for r in 0..rows as i64 {
        for c in 0..cols as i64 {
            for (dr, dc) in [(0i64, 1i64), (1, 0), (1, 1), (1, -1)] {
                let cells: Vec<(i64, i64)> =
                    (0..k as i64).map(|i| (r + dr * i, c + dc * i)).collect();
                if cells
                    .iter()
                    .all(|&(y, x)| (0..rows as i64).contains(&y) && (0..cols as i64).contains(&x))
                {
                    out.push(
                        cells
                            .iter()
                            .map(|&(y, x)| (y * cols as i64 + x) as usize)
                            .collect(),
                    );
                }
            }
        }
    }
    out
}

/// The 12 planes through four vertices of a cube; vertex (a, b, c) is
/// square 4a + 2b + c (games/cube.txt).
fn cube_planes() -> Vec<Vec<usize>> {
    let v = |i: usize| [(i >> 2 & 1) as i64, (i >> 1 & 1) as i64, (i & 1) as i64];
    let mut out = Vec::new();
    for a in 0..8 {
        for b in a + 1..8 {
            for c in b + 1..8 {
                for d in c + 1..8 {
                    let [p, q, r, s] = [v(a), v(b), v(c), v(d)];
                    let e = |x: [i64; 3]| [x[0] - p[0], x[1] - p[1], x[2] - p[2]];
                    let (u, w, z) = (e(q), e(r), e(s));
                    let det = u[0] * (w[1] * z[2] - w[2] * z[1])
                        - u[1] * (w[0] * z[2] - w[2] * z[0])
                        + u[2] * (w[0] * z[1] - w[1] * z[0]);
                    if det == 0 {
                        out.push(vec![a, b, c, d]);
                    }
                }
            }
        }
    }
    assert_eq!(out.len(), 12);
    out
}

/// The Qango-like 4×4 rules of games/qango4.txt: 2×2 squares, rows,
/// columns, long diagonals, and the four corner L-triples.
fn qango4_lines() -> Vec<Vec<usize>> {
    let sq = |r: usize, c: usize| r * 4 + c;
    let mut out = Vec::new();
    for r in 0..3 {
        for c in 0..3 {
            out.push(vec![sq(r, c), sq(r, c + 1), sq(r + 1, c), sq(r + 1, c + 1)]);
        }
    }
    out.extend(grid_lines(4, 4, 4));
    out.extend([
        vec![sq(0, 0), sq(0, 1), sq(1, 0)],
        vec![sq(0, 2), sq(0, 3), sq(1, 3)],
        vec![sq(2, 0), sq(3, 0), sq(3, 1)],
        vec![sq(2, 3), sq(3, 2), sq(3, 3)],
    ]);
    out
}

fn example(file: &str) -> String {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("games")
        .join(file)
        .display()
        .to_string()
}

fn pattern_file(file: &str) -> PatternGame {
    PatternGame::from_params(&example(file)).unwrap()
}

#[test]
fn mnk_matches_oracle_entry_by_entry() {
    for (r, c, k) in [
        (3, 3, 3),
        (3, 4, 3),
        (2, 4, 3),
        (4, 3, 3),
        (1, 6, 3),
        (2, 3, 2),
        (3, 3, 2),
        (1, 1, 1),
    ] {
        check(
            &Mnk::new(r, c, k).unwrap(),
            (r * c) as usize,
            grid_lines(r as usize, c as usize, k as usize),
        );
    }
}

#[test]
fn pattern_files_match_oracle_entry_by_entry() {
    check(&pattern_file("cube.txt"), 8, cube_planes());
    check(&pattern_file("tictactoe.txt"), 9, grid_lines(3, 3, 3));
}

/// 10 million entries against a 43-million-cell oracle: a few seconds.
#[test]
fn qango4_matches_oracle_entry_by_entry() {
    check(&pattern_file("qango4.txt"), 16, qango4_lines());
}

#[test]
fn tictactoe_file_gives_the_mnk_333_table() {
    let file = pattern_file("tictactoe.txt");
    let mnk = Mnk::tictactoe();
    let Solved {
        cells: a,
        codec: ca,
        ..
    } = solve_in_memory(&file, &SolveOptions::default()).unwrap();
    let Solved {
        cells: b,
        codec: cb,
        ..
    } = solve_in_memory(&mnk, &SolveOptions::default()).unwrap();
    assert_eq!(ca, cb);
    assert_eq!(a, b);
    assert_eq!(
        file.spec(),
        "pattern:tictactoe:squares=9:rows=3.3.3:lines=0.1.2,0.3.6,0.4.8,1.4.7,2.4.6,2.5.8,3.4.5,6.7.8"
    );
}

/// REFERENCE.md, "Tic-tac-toe" (GamesmanClassic mttt.c; Wikipedia "Game
/// complexity"): 5,478 positions reachable from the empty board, 958 of them
/// game over; the empty board is a tie, remoteness 9.
#[test]
fn tictactoe_reachable_figures() {
    let dir = tempfile::tempdir().unwrap();
    let g = match AnyGame::parse("tictactoe").unwrap() {
        AnyGame::Mnk(g) => g,
        other => panic!("tictactoe parsed as {other:?}"),
    };
    assert_eq!(g.spec(), "mnk:3x3x3");
    let path = dir.path().join("ttt.rtb");
    solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let tb = unsafe { Tablebase::open_mmap(&path) }.unwrap();
    tb.verify().unwrap();
    let a = analyze(&g, &tb).unwrap();
    assert_eq!(a.reachable, 5_478, "REFERENCE.md tic-tac-toe: reachable");
    assert_eq!(a.primitive, 958, "REFERENCE.md tic-tac-toe: game over");
    assert_eq!(
        a.start,
        Some(Outcome {
            value: Value::Tie,
            remoteness: Some(9)
        }),
        "REFERENCE.md tic-tac-toe: the empty board is a tie in 9"
    );
    // Every game-over position is a loss for the mover or a full-board tie;
    // the reachable ties in 0 are exactly the 16 full boards without a line.
    assert_eq!(a.histograms[Value::Tie.ordinal()][0], 16);
}

/// REFERENCE.md, "m,n,k-games": 4,4,4 is a tie (the board fills: 16).
#[test]
fn mnk_444_is_a_tie() {
    let g = Mnk::new(4, 4, 4).unwrap();
    assert_eq!(g.size(), 10_165_779);
    let t = Instant::now();
    let Solved {
        cells: data, codec, ..
    } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    eprintln!("mnk:4x4x4 solved in memory in {:.2?}", t.elapsed());
    let start = codec.decode(cell(&data, codec, g.encode(&g.start())));
    assert_eq!(
        start,
        Some(Outcome {
            value: Value::Tie,
            remoteness: Some(16)
        })
    );
}

/// The header's spec carries the patterns: the table opens after the
/// pattern file is gone, and parses back to the same game.
#[test]
fn pattern_tablebase_does_not_need_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("my-cube.txt");
    std::fs::copy(example("cube.txt"), &copy).unwrap();
    let spec = format!("pattern:{}", copy.display());
    let AnyGame::Pattern(g) = AnyGame::parse(&spec).unwrap() else {
        panic!("not a pattern game");
    };
    let path = dir.path().join(format!("{}.rtb", g.file_stem()));
    solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
    std::fs::remove_file(&copy).unwrap();
    let tb = Tablebase::open(&path).unwrap();
    assert_eq!(tb.game(), &AnyGame::Pattern(g.clone()));
    assert_eq!(tb.header().spec, g.spec());
    assert!(tb
        .header()
        .spec
        .starts_with("pattern:cube:squares=8:rows=4.4:lines="));
    let info = tb.probe_text(Some("xo../..ox"), true).unwrap();
    assert_eq!(info.to_move, Some(0));
    assert_eq!(info.moves.len(), 4);
    assert!(AnyGame::parse(&spec).is_err(), "the file is gone");
}

/// Speed of the index and the child generator on mnk:4x4x4 (measurement,
/// not a check): `cargo test --release --test oracle pattern_games::timings
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn timings() {
    let g = Mnk::new(4, 4, 4).unwrap();
    let size = g.size();
    let t = Instant::now();
    let mut acc = 0u64;
    let mut positions = 0u64;
    for tier in 0..g.tier_count() {
        for unit in 0..g.tier_units(tier) {
            g.for_each_in_unit(tier, unit, |i, _| {
                acc ^= i;
                positions += 1;
            });
        }
    }
    let walk = t.elapsed();
    let t = Instant::now();
    let mut children = 0u64;
    for tier in 0..g.tier_count() {
        for unit in 0..g.tier_units(tier) {
            g.for_each_in_unit(tier, unit, |_, p| {
                if g.primitive(p).is_none() {
                    g.for_each_child_index(p, |c| {
                        acc ^= c;
                        children += 1;
                    });
                }
            });
        }
    }
    let kids = t.elapsed();
    let t = Instant::now();
    for i in 0..size {
        if let Some(p) = g.decode(i) {
            acc ^= g.encode(&p);
        }
    }
    let dec = t.elapsed();
    let ns = |d: std::time::Duration, n: u64| d.as_nanos() as f64 / n as f64;
    eprintln!(
        "mnk:4x4x4 {positions} positions: walk {:.1} ns/position; walk+primitive+children {:.1} ns/child ({children} children); decode+encode {:.1} ns/index ({acc})",
        ns(walk, positions),
        ns(kids - walk, children),
        ns(dec, size)
    );
}
