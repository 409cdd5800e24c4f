//! Loopy games: the retrograde solver with draws, against an independent
//! oracle (naive value iteration to a fixed point with its own move
//! generation), on Dodgem and on a small hand-made loopy game; plus the
//! published Dodgem facts (Winning Ways ch. 22: 3×3 is a first-player win;
//! des Jardins 1996: 4×4 and 5×5 are draws), thread-count determinism,
//! analysis and re-derivation of loopy tables.

use retrograde::games::Dodgem;
use retrograde::internal::analyze::analyze;
use retrograde::internal::verify::rederive;
use retrograde::solve::{solve_in_memory, solve_to_file, NoProgress, SolveOptions, Solved};
use retrograde::{CellCodec, Error, Game, Outcome, TableKind, Tablebase, Value};
use std::collections::HashMap;

use crate::common::cell;

fn outcome(data: &[u8], codec: CellCodec, i: usize) -> Option<Outcome> {
    codec.decode(cell(data, codec, i))
}

fn out(value: Value, r: u32) -> Outcome {
    Outcome {
        value,
        remoteness: Some(r),
    }
}

/// Naive value iteration to a fixed point over a graph given by its
/// children lists (with multiplicity) and game-over values. Phase 1 (wins
/// and losses), round k: every undecided position is recomputed from its
/// children's labels of round k−1 — a losing child makes a win (1 + the
/// smallest losing remoteness), children all wins make a loss (1 + the
/// largest) — until a round changes nothing. Phase 2 likewise for ties (no
/// losing child, some tying child: 1 + the smallest tying remoteness). The
/// rest are draws. Checks along the way that a position decided in round k
/// has remoteness k.
fn value_iteration(children: &[Vec<usize>], terminal: &[Option<Value>]) -> Vec<Outcome> {
    let n = children.len();
    let mut label: Vec<Option<Outcome>> = terminal.iter().map(|t| t.map(|v| out(v, 0))).collect();
    for phase in [1, 2] {
        for round in 1u32.. {
            let fresh: Vec<(usize, Outcome)> = (0..n)
                .filter(|&p| label[p].is_none())
                .filter_map(|p| {
                    let kids = || children[p].iter().map(|&c| label[c]);
                    let r_of = |v: Value| {
                        kids()
                            .flatten()
                            .filter(move |o| o.value == v)
                            .map(|o| o.remoteness.unwrap())
                    };
                    let o = if phase == 1 {
                        if let Some(r) = r_of(Value::Lose).min() {
                            out(Value::Win, r + 1)
                        } else if kids().all(|k| matches!(k, Some(o) if o.value == Value::Win)) {
                            out(Value::Lose, r_of(Value::Win).max()? + 1)
                        } else {
                            return None;
                        }
                    } else {
                        out(Value::Tie, r_of(Value::Tie).min()? + 1)
                    };
                    Some((p, o))
                })
                .collect();
            if fresh.is_empty() {
                break;
            }
            for (p, o) in fresh {
                assert_eq!(
                    o.remoteness,
                    Some(round),
                    "phase {phase}: remoteness is the round"
                );
                label[p] = Some(o);
            }
        }
    }
    label
        .into_iter()
        .map(|l| l.unwrap_or(Outcome::DRAW))
        .collect()
}

// ---------------------------------------------------------------------------
// Dodgem, from the rules, with its own coordinates: (col, rank), col 0 the
// left edge, rank 0 the bottom row. Blue (0) moves first: forward = col + 1,
// sideways rank ± 1; red (1): forward = rank + 1, sideways col ± 1. A car
// leaves only by a forward move off the far edge. A player with no move wins.
// ---------------------------------------------------------------------------

#[derive(Clone, PartialEq, Eq, Hash)]
struct Board {
    n: usize,
    /// `sq[col][rank]`: 0 empty, 1 blue, 2 red (up to 5×5).
    sq: [[u8; 5]; 5],
    side: u8,
}

impl Board {
    fn start(n: usize) -> Board {
        let mut sq = [[0u8; 5]; 5];
        sq[0][1..n].fill(1); // blue: the left edge, above the bottom row
        for column in &mut sq[1..n] {
            column[0] = 2; // red: the bottom row, right of the first column
        }
        Board { n, sq, side: 0 }
    }

    fn children(&self) -> Vec<Board> {
        let n = self.n as i32;
        let me = self.side + 1;
        let dirs: [(i32, i32); 3] = if self.side == 0 {
            [(1, 0), (0, 1), (0, -1)]
        } else {
            [(0, 1), (-1, 0), (1, 0)]
        };
        let mut out = Vec::new();
        for c in 0..n {
            for r in 0..n {
                if self.sq[c as usize][r as usize] != me {
                    continue;
                }
                for (k, &(dc, dr)) in dirs.iter().enumerate() {
                    let (tc, tr) = (c + dc, r + dr);
                    let mut b = self.clone();
                    b.side = 1 - self.side;
                    b.sq[c as usize][r as usize] = 0;
                    if (0..n).contains(&tc) && (0..n).contains(&tr) {
                        if self.sq[tc as usize][tr as usize] != 0 {
                            continue;
                        }
                        b.sq[tc as usize][tr as usize] = me;
                    } else if k != 0 {
                        continue; // only the forward move leaves the board
                    }
                    out.push(b);
                }
            }
        }
        out
    }

    /// The notation of `retrograde`: rows top to bottom, then the side.
    fn text(&self) -> String {
        let rows: Vec<String> = (0..self.n)
            .rev()
            .map(|r| {
                (0..self.n)
                    .map(|c| ['.', 'b', 'r'][self.sq[c][r] as usize])
                    .collect()
            })
            .collect();
        format!(
            "{} {}",
            rows.join("/"),
            if self.side == 0 { 'b' } else { 'r' }
        )
    }
}

/// Every placement with at most n−1 cars a side, each side to move.
fn all_boards(n: usize) -> Vec<Board> {
    fn fill(b: &mut Board, i: usize, counts: [usize; 2], out: &mut Vec<Board>) {
        let n = b.n;
        if i == n * n {
            for side in 0..2 {
                b.side = side;
                out.push(b.clone());
            }
            return;
        }
        let (c, r) = (i % n, i / n);
        for v in 0..3u8 {
            let mut k = counts;
            if v > 0 {
                k[v as usize - 1] += 1;
                if k[v as usize - 1] > n - 1 {
                    continue;
                }
            }
            b.sq[c][r] = v;
            fill(b, i + 1, k, out);
        }
        b.sq[c][r] = 0;
    }
    let mut out = Vec::new();
    let mut b = Board {
        n,
        sq: [[0; 5]; 5],
        side: 0,
    };
    fill(&mut b, 0, [0, 0], &mut out);
    out
}

/// The oracle's values of every Dodgem position, keyed by the board.
fn dodgem_oracle(n: usize) -> (Vec<Board>, Vec<Outcome>, HashMap<Board, usize>) {
    let boards = all_boards(n);
    let id: HashMap<Board, usize> = boards
        .iter()
        .enumerate()
        .map(|(i, b)| (b.clone(), i))
        .collect();
    let children: Vec<Vec<usize>> = boards
        .iter()
        .map(|b| b.children().iter().map(|c| id[c]).collect())
        .collect();
    let terminal: Vec<Option<Value>> = children
        .iter()
        .map(|k| k.is_empty().then_some(Value::Win))
        .collect();
    let values = value_iteration(&children, &terminal);
    (boards, values, id)
}

fn check_dodgem_against_oracle(n: usize) {
    let g = Dodgem::new(n as u32).unwrap();
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let (boards, values, _) = dodgem_oracle(n);
    assert_eq!(boards.len() as u64, g.size(), "every index is a position");
    assert_eq!(summary.non_positions, 0);
    let mut seen = vec![false; boards.len()];
    let mut draws = 0;
    for (b, want) in boards.iter().zip(&values) {
        let p = g.parse_position(&b.text()).unwrap();
        let i = g.encode(&p) as usize;
        assert!(!seen[i], "index {i} twice");
        seen[i] = true;
        assert_eq!(
            outcome(&data, codec, i),
            Some(*want),
            "dodgem:{n} {}",
            b.text()
        );
        draws += usize::from(want.value == Value::Draw);
    }
    assert_eq!(summary.counts[Value::Draw.ordinal()], draws as u64);
}

#[test]
fn dodgem_3_matches_value_iteration_entry_by_entry() {
    check_dodgem_against_oracle(2);
    check_dodgem_against_oracle(3);
}

#[test]
fn dodgem_4_matches_value_iteration_entry_by_entry() {
    check_dodgem_against_oracle(4);
}

#[test]
fn dodgem_3_is_a_first_player_win_and_4_a_draw() {
    // Winning Ways, ch. 22: 3×3 Dodgem is a win for the first player.
    let g = Dodgem::new(3).unwrap();
    let Solved {
        cells: data, codec, ..
    } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let start = outcome(&data, codec, g.encode(&g.start()) as usize).unwrap();
    assert_eq!(start.value, Value::Win);
    assert_eq!(g.format_position(&g.start()), Board::start(3).text());
    // des Jardins (1996): 4×4 is a draw with perfect play.
    let g = Dodgem::new(4).unwrap();
    let Solved {
        cells: data, codec, ..
    } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let start = outcome(&data, codec, g.encode(&g.start()) as usize).unwrap();
    assert_eq!(start, Outcome::DRAW);
}

/// About a minute and 1 GB on 2 cores (240 M positions): run with
/// `cargo test --release --test oracle dodgem:: -- --ignored`.
#[test]
#[ignore]
fn dodgem_5_is_a_draw() {
    // des Jardins (1996): 5×5 is a draw with perfect play.
    let g = Dodgem::new(5).unwrap();
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let start = outcome(&data, codec, g.encode(&g.start()) as usize).unwrap();
    assert_eq!(start, Outcome::DRAW);
    assert_eq!(summary.non_positions, 0);
    assert!(summary.counts[Value::Draw.ordinal()] > 0);
}

#[test]
fn tables_are_identical_for_any_thread_count() {
    let solve = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                solve_in_memory(&Dodgem::new(4).unwrap(), &SolveOptions::default())
                    .unwrap()
                    .cells
            })
    };
    let one = solve(1);
    assert_eq!(one, solve(2));
    assert_eq!(one, solve(3));
}

#[test]
fn analyze_walks_the_reachable_positions_of_a_loopy_game() {
    let dir = tempfile::tempdir().unwrap();
    for n in [3usize, 4] {
        let g = Dodgem::new(n as u32).unwrap();
        let path = dir.path().join(format!("d{n}.rtb"));
        solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
        // SAFETY: the test's own file; nothing modifies it while mapped.
        let tb = unsafe { Tablebase::open_mmap(&path) }.unwrap();
        let a = analyze(&g, &tb).unwrap();
        // The oracle's own breadth-first search from the start.
        let (_, values, id) = dodgem_oracle(n);
        let mut seen = vec![false; values.len()];
        let start = Board::start(n);
        seen[id[&start]] = true;
        let mut stack = vec![start];
        let mut counts = [0u64; 4];
        let mut primitive = 0;
        while let Some(b) = stack.pop() {
            counts[values[id[&b]].value.ordinal()] += 1;
            let kids = b.children();
            primitive += u64::from(kids.is_empty());
            for c in kids {
                if !seen[id[&c]] {
                    seen[id[&c]] = true;
                    stack.push(c);
                }
            }
        }
        assert_eq!(a.reachable, counts.iter().sum::<u64>(), "dodgem:{n}");
        assert_eq!(a.counts, counts, "dodgem:{n}");
        assert_eq!(a.primitive, primitive, "dodgem:{n}");
        assert_eq!(a.start, Some(values[id[&Board::start(n)]]));
        if n == 4 {
            assert!(a.counts[Value::Draw.ordinal()] > 0);
        }
    }
}

#[test]
fn rederive_accepts_loopy_tables_and_catches_a_wrong_draw() {
    let dir = tempfile::tempdir().unwrap();
    let g = Dodgem::new(4).unwrap();
    let path = dir.path().join("d4.rtb");
    solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let tb = unsafe { Tablebase::open_mmap(&path) }.unwrap();
    let r = rederive(&g, &tb).unwrap();
    assert_eq!((r.checked, r.mismatches), (g.size(), 0));

    let bytes = std::fs::read(&path).unwrap();
    let offset = tb.header().data_offset as usize;
    let codec = tb.codec();
    let w = usize::from(codec.width());
    let draw = (0..g.size() as usize)
        .find(|&i| tb.probe_index(i as u64).unwrap() == Some(Outcome::DRAW))
        .unwrap();
    let win = (0..g.size() as usize)
        .find(|&i| tb.probe_index(i as u64).unwrap().unwrap().value == Value::Win)
        .unwrap();
    drop(tb);
    for (i, fake) in [
        (draw, codec.encode(Value::Lose, 7).unwrap()),
        (win, codec.encode_outcome(Outcome::DRAW).unwrap()),
    ] {
        let mut b = bytes.clone();
        b[offset + i * w..offset + i * w + w].copy_from_slice(&fake.to_le_bytes()[..w]);
        let tb = Tablebase::from_bytes(b).unwrap();
        let r = rederive(&g, &tb).unwrap();
        assert!(r.mismatches >= 1, "a corrupted cell at {i} went unnoticed");
        assert!(r.first.iter().any(|m| m.index == i as u64));
    }
}

// ---------------------------------------------------------------------------
// A hand-made loopy game: nodes with explicit moves (duplicates and
// self-loops included), three kinds of game over, and an index that is not a
// position.
// ---------------------------------------------------------------------------

const NOT_A_POSITION: u32 = 18;

/// Children of each node, once per move.
fn graph() -> Vec<Vec<u32>> {
    vec![
        vec![1],       // 0: win in 3 (to 1)
        vec![2],       // 1: lose in 2
        vec![0, 3],    // 2: win in 1 (to 3); the cycle 0 → 1 → 2 → 0 has an exit
        vec![],        // 3: game over, lose
        vec![5],       // 4: draw
        vec![4, 6],    // 5: draw (6 would lose; 4 keeps going)
        vec![],        // 6: game over, win for the player to move
        vec![4, 3],    // 7: win in 1
        vec![4, 6],    // 8: draw
        vec![],        // 9: game over, tie
        vec![9, 4],    // 10: tie in 1 (a tie beats a draw)
        vec![12],      // 11: tie in 3
        vec![11, 10],  // 12: tie in 2
        vec![6],       // 13: lose in 1
        vec![13, 14],  // 14: win in 2 (self-loop ignored)
        vec![5, 5, 6], // 15: draw (a duplicate move)
        vec![6, 6],    // 16: lose in 1 (two moves to the same child)
        vec![2, 16],   // 17: win in 2
        vec![],        // 18: not a position
        vec![19],      // 19: draw (only a self-loop)
        vec![9, 3],    // 20: win in 1 (a win beats a tie)
        vec![13, 12],  // 21: win in 2
        vec![6, 9],    // 22: tie in 1 (a tie beats a loss)
        vec![16, 0],   // 23: win in 2
        vec![0, 2],    // 24: lose in 4 (the longest resistance)
    ]
}

fn graph_expected() -> Vec<Option<Outcome>> {
    use Value::*;
    let d = Some(Outcome::DRAW);
    let o = |v, r| Some(out(v, r));
    vec![
        o(Win, 3),
        o(Lose, 2),
        o(Win, 1),
        o(Lose, 0),
        d,
        d,
        o(Win, 0),
        o(Win, 1),
        d,
        o(Tie, 0),
        o(Tie, 1),
        o(Tie, 3),
        o(Tie, 2),
        o(Lose, 1),
        o(Win, 2),
        d,
        o(Lose, 1),
        o(Win, 2),
        None,
        d,
        o(Win, 1),
        o(Win, 2),
        o(Tie, 1),
        o(Win, 2),
        o(Lose, 4),
    ]
}

#[derive(Clone)]
struct Graph {
    children: Vec<Vec<u32>>,
    terminal: Vec<Option<Value>>,
}

impl Graph {
    fn new() -> Graph {
        let mut terminal = vec![None; graph().len()];
        terminal[3] = Some(Value::Lose);
        terminal[6] = Some(Value::Win);
        terminal[9] = Some(Value::Tie);
        Graph {
            children: graph(),
            terminal,
        }
    }

    /// A path n−1 → n−2 → … → 0 (game over, lost), the odd nodes with a
    /// self-loop as well: node k is a win (odd k) or loss (even k) in k.
    fn path(n: u32) -> Graph {
        let children = (0..n)
            .map(|k| match k {
                0 => vec![],
                k if k % 2 == 1 => vec![k - 1, k],
                k => vec![k - 1],
            })
            .collect();
        let mut terminal = vec![None; n as usize];
        terminal[0] = Some(Value::Lose);
        Graph { children, terminal }
    }
}

impl Game for Graph {
    type Position = u32;
    type Move = u32;

    fn spec(&self) -> String {
        "graph".into()
    }
    fn file_stem(&self) -> String {
        "graph".into()
    }
    fn index_scheme(&self) -> u16 {
        1
    }
    fn size(&self) -> u64 {
        self.children.len() as u64
    }
    fn encode(&self, p: &u32) -> u64 {
        u64::from(*p)
    }
    fn decode(&self, i: u64) -> Option<u32> {
        let hole = self.size() == 25 && i == u64::from(NOT_A_POSITION);
        (i < self.size() && !hole).then_some(i as u32)
    }
    fn start(&self) -> u32 {
        0
    }
    fn primitive(&self, p: &u32) -> Option<Value> {
        self.terminal[*p as usize]
    }
    fn moves(&self, p: &u32) -> Vec<(u32, u32)> {
        self.children[*p as usize]
            .iter()
            .enumerate()
            .map(|(k, &c)| (k as u32, c))
            .collect()
    }
    fn acyclic(&self) -> bool {
        false
    }
    fn for_each_parent_index(&self, p: &u32, mut f: impl FnMut(u64)) {
        for (q, kids) in self.children.iter().enumerate() {
            for &c in kids {
                if c == *p {
                    f(q as u64);
                }
            }
        }
    }
    fn tier_count(&self) -> u32 {
        1
    }
    fn tier(&self, _: &u32) -> u32 {
        0
    }
    fn nimbers(&self) -> Result<(), String> {
        Ok(())
    }
    fn max_remoteness(&self) -> u32 {
        10
    }
    fn player_to_move(&self, _: &u32) -> Option<u8> {
        None
    }
    fn parse_position(&self, s: &str) -> Result<u32, String> {
        s.parse().map_err(|_| "not a node".to_string())
    }
    fn format_position(&self, p: &u32) -> String {
        p.to_string()
    }
    fn format_move(&self, m: &u32) -> String {
        m.to_string()
    }
}

#[test]
fn hand_made_loopy_game_has_the_known_values() {
    let g = Graph::new();
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let want = graph_expected();
    for (i, w) in want.iter().enumerate() {
        assert_eq!(outcome(&data, codec, i), *w, "node {i}");
    }
    assert_eq!(cell(&data, codec, NOT_A_POSITION as usize), 0);
    assert_eq!(summary.non_positions, 1);
    assert_eq!(summary.counts, [9, 5, 5, 5]);
    assert_eq!(summary.max_remoteness, [3, 4, 3]);

    // The oracle agrees (the non-position is left out of its graph).
    let terminal: Vec<Option<Value>> = (0..g.size() as u32).map(|p| g.primitive(&p)).collect();
    let children: Vec<Vec<usize>> = g
        .children
        .iter()
        .map(|k| k.iter().map(|&c| c as usize).collect())
        .collect();
    let oracle = value_iteration(&children, &terminal);
    for (i, w) in want.iter().enumerate() {
        if let Some(w) = w {
            assert_eq!(oracle[i], *w, "oracle at node {i}");
        }
    }
}

#[test]
fn hand_made_loopy_game_is_thread_count_independent() {
    let solve = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                solve_in_memory(&Graph::new(), &SolveOptions::default())
                    .unwrap()
                    .cells
            })
    };
    assert_eq!(solve(1), solve(2));
}

#[test]
fn loopy_games_refuse_nimber_tables() {
    let options = SolveOptions {
        kind: TableKind::Nimber,
        ..SolveOptions::default()
    };
    let e = solve_in_memory(&Graph::new(), &options).unwrap_err();
    assert!(matches!(e, Error::NimbersUnsupported { .. }), "{e}");
    assert!(e.to_string().contains("loopy"), "{e}");
    // Dodgem is partisan: refused before the loopy solver is reached.
    let e = solve_in_memory(&Dodgem::new(3).unwrap(), &options).unwrap_err();
    assert!(matches!(e, Error::NimbersUnsupported { .. }), "{e}");
}

#[test]
fn probe_ranks_drawing_moves_and_the_cli_spec_parses() {
    let dir = tempfile::tempdir().unwrap();
    let g = Dodgem::new(4).unwrap();
    let path = dir.path().join("d4.rtb");
    solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
    let tb = Tablebase::open(&path).unwrap();
    assert_eq!(tb.header().spec, "dodgem:4");
    let info = tb.probe_text(None, true).unwrap();
    assert_eq!(info.outcome, Outcome::DRAW);
    assert_eq!(info.position, "b.../b.../b.../.rrr b");
    // From a draw no move wins (nor ties); the best moves keep the draw.
    assert!(info.moves.iter().all(|m| m.child.value != Value::Lose));
    assert!(info
        .moves
        .iter()
        .filter(|m| m.best)
        .all(|m| m.child == Outcome::DRAW));
    assert!(info.moves.iter().any(|m| m.best));
}

#[test]
fn remoteness_beyond_the_cell_is_refused_not_truncated() {
    // Node k of the path is decided in round k: 63 fits a one-byte cell.
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(&Graph::path(64), &SolveOptions::default()).unwrap();
    assert_eq!(codec.width(), 1);
    for k in 0..64 {
        let v = if k % 2 == 0 { Value::Lose } else { Value::Win };
        assert_eq!(outcome(&data, codec, k), Some(out(v, k as u32)));
    }
    assert_eq!(summary.counts[Value::Draw.ordinal()], 0);
    // 64 does not, and the bound of 10 claimed only chose the cell width.
    let e = solve_in_memory(&Graph::path(65), &SolveOptions::default()).unwrap_err();
    assert!(
        matches!(e, Error::RemotenessOverflow { remoteness: 64, .. }),
        "{e}"
    );
}
