//! Cram against an independent memoised minimax and mex-based Grundy
//! computation (written here from the rules, on a grid of booleans), entry by
//! entry over every mask, and the published facts (REFERENCE.md: Winning Ways;
//! OEIS A002187; Lemoine & Viennot).

use retrograde::games::Cram;
use retrograde::solve::{solve_in_memory, SolveOptions, Solved};
use retrograde::{AnyGame, Error, Game, Outcome, TableKind, Value};
use std::collections::HashMap;

use crate::common::cell;

fn cram(rows: u32, cols: u32, misere: bool) -> Cram {
    let spec = format!("cram:{rows}x{cols}{}", if misere { ":misere" } else { "" });
    match AnyGame::parse(&spec).unwrap() {
        AnyGame::Cram(g) => g,
        other => panic!("{spec} parsed as {other:?}"),
    }
}

/// Every outcome of a value table, in index order.
fn values(g: &Cram) -> Vec<Outcome> {
    let Solved {
        cells: data, codec, ..
    } = solve_in_memory(g, &SolveOptions::default()).unwrap();
    (0..g.size() as usize)
        .map(|i| codec.decode(cell(&data, codec, i)).unwrap())
        .collect()
}

/// Every nimber of a nimber table, in index order.
fn nimbers(g: &Cram) -> Vec<u32> {
    let options = SolveOptions::with_kind(TableKind::Nimber);
    let Solved {
        cells: data, codec, ..
    } = solve_in_memory(g, &options).unwrap();
    (0..g.size() as usize)
        .map(|i| codec.nimber(cell(&data, codec, i)).unwrap())
        .collect()
}

/// A board as the oracle sees it: `grid[r][c]` is true when the cell is covered.
type Grid = Vec<Vec<bool>>;

/// The documented index: bit r·C + c set when cell (r, c) is covered.
fn grid_of(mask: u64, rows: usize, cols: usize) -> Grid {
    (0..rows)
        .map(|r| (0..cols).map(|c| mask >> (r * cols + c) & 1 == 1).collect())
        .collect()
}

/// Every board reachable in one move: a domino on two empty cells side by
/// side or one above the other.
fn children(g: &Grid) -> Vec<Grid> {
    let rows = g.len();
    let cols = g[0].len();
    let mut out = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            if g[r][c] {
                continue;
            }
            if c + 1 < cols && !g[r][c + 1] {
                let mut k = g.clone();
                k[r][c] = true;
                k[r][c + 1] = true;
                out.push(k);
            }
            if r + 1 < rows && !g[r + 1][c] {
                let mut k = g.clone();
                k[r][c] = true;
                k[r + 1][c] = true;
                out.push(k);
            }
        }
    }
    out
}

/// Minimax with remoteness: a player who cannot move loses (normal) or wins
/// (misère) in 0; a win is 1 + the fastest losing child, a loss 1 + the
/// slowest child.
fn minimax(g: &Grid, misere: bool, memo: &mut HashMap<Grid, (bool, u32)>) -> (bool, u32) {
    if let Some(&v) = memo.get(g) {
        return v;
    }
    let kids = children(g);
    let v = if kids.is_empty() {
        (misere, 0)
    } else {
        let results: Vec<(bool, u32)> = kids.iter().map(|k| minimax(k, misere, memo)).collect();
        match results
            .iter()
            .filter(|(win, _)| !win)
            .map(|&(_, r)| r)
            .min()
        {
            Some(r) => (true, r + 1),
            None => (false, results.iter().map(|&(_, r)| r).max().unwrap() + 1),
        }
    };
    memo.insert(g.clone(), v);
    v
}

/// Sprague–Grundy value: the least value not among the children's.
fn grundy(g: &Grid, memo: &mut HashMap<Grid, u32>) -> u32 {
    if let Some(&v) = memo.get(g) {
        return v;
    }
    let seen: Vec<u32> = children(g).iter().map(|k| grundy(k, memo)).collect();
    let v = (0..).find(|x| !seen.contains(x)).unwrap();
    memo.insert(g.clone(), v);
    v
}

const ORACLE_BOARDS: &[(u32, u32)] = &[(3, 3), (2, 5), (5, 2), (3, 4), (4, 4), (1, 8), (6, 1)];

#[test]
fn values_match_minimax_on_every_mask() {
    for &(rows, cols) in ORACLE_BOARDS {
        for misere in [false, true] {
            let g = cram(rows, cols, misere);
            let table = values(&g);
            let mut memo = HashMap::new();
            for (mask, got) in table.iter().enumerate() {
                let (win, r) = minimax(
                    &grid_of(mask as u64, rows as usize, cols as usize),
                    misere,
                    &mut memo,
                );
                let want = Outcome {
                    value: if win { Value::Win } else { Value::Lose },
                    remoteness: Some(r),
                };
                assert_eq!(
                    *got,
                    want,
                    "{} at {}",
                    g.spec(),
                    g.format_position(&(mask as u32))
                );
            }
        }
    }
}

#[test]
fn nimbers_match_mex_on_every_mask() {
    for &(rows, cols) in ORACLE_BOARDS {
        let g = cram(rows, cols, false);
        let table = nimbers(&g);
        let mut memo = HashMap::new();
        for (mask, got) in table.iter().enumerate() {
            let want = grundy(
                &grid_of(mask as u64, rows as usize, cols as usize),
                &mut memo,
            );
            assert_eq!(
                *got,
                want,
                "{} at {}",
                g.spec(),
                g.format_position(&(mask as u32))
            );
        }
    }
}

#[test]
fn one_by_n_is_dawsons_kayles() {
    // REFERENCE.md (Winning Ways; OEIS A002187): Grundy values of 1×n Cram.
    let want = [0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3];
    for (n, &k) in (1..=20u32).zip(want.iter()) {
        let g = cram(1, n, false);
        assert_eq!(nimbers(&g)[0], k, "1x{n}");
        if n <= 16 {
            let g = cram(n, 1, false);
            assert_eq!(nimbers(&g)[0], k, "{n}x1");
        }
    }
    // Within one table: a 1×20 strip with its first 20 − n cells covered is a 1×n strip.
    let table = nimbers(&cram(1, 20, false));
    for (n, &k) in (1..=20u32).zip(want.iter()) {
        let covered = (1u64 << (20 - n)) - 1;
        assert_eq!(table[covered as usize], k, "1x{n} inside 1x20");
    }
}

#[test]
fn two_by_n_is_the_parity_of_n() {
    // REFERENCE.md: 2×n Cram has value 0 for even n, 1 for odd n.
    for n in 1..=10u32 {
        assert_eq!(nimbers(&cram(2, n, false))[0], n % 2, "2x{n}");
        if n <= 8 {
            assert_eq!(nimbers(&cram(n, 2, false))[0], n % 2, "{n}x2");
        }
    }
}

#[test]
fn symmetry_strategies_decide_the_start() {
    // REFERENCE.md: both sides even → second-player win (value 0);
    // one side even, one odd → first-player win.
    for (rows, cols, first_wins) in [
        (2, 2, false),
        (2, 4, false),
        (4, 2, false),
        (4, 4, false),
        (2, 6, false),
        (4, 6, false),
        (2, 3, true),
        (3, 2, true),
        (3, 4, true),
        (4, 3, true),
        (2, 5, true),
        (4, 5, true),
        (3, 6, true),
    ] {
        let g = cram(rows, cols, false);
        let Solved {
            cells: data, codec, ..
        } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
        let start = codec.decode(cell(&data, codec, 0)).unwrap();
        let want = if first_wins { Value::Win } else { Value::Lose };
        assert_eq!(start.value, want, "{rows}x{cols}");
        if rows * cols <= 20 {
            assert_eq!(nimbers(&g)[0] > 0, first_wins, "{rows}x{cols} nimber");
        }
    }
}

#[test]
fn nimber_zero_exactly_where_the_value_table_says_lose() {
    let g = cram(4, 5, false);
    let v = values(&g);
    let k = nimbers(&g);
    for (mask, (o, n)) in v.iter().zip(&k).enumerate() {
        assert_eq!(o.value == Value::Lose, *n == 0, "mask {mask}");
    }
}

#[test]
fn glop_notation_and_pictures() {
    // Glop's help: a 3-column, 4-row board with a horizontal domino at the end
    // of the second row, then a vertical one at the bottom of the last column.
    let g = cram(4, 3, false);
    let p = g.parse_position("B000*0GG000000E").unwrap();
    assert_eq!(g.format_position(&p), ".../.##/.../...");
    assert_eq!(p, 1 << 4 | 1 << 5);
    let q = g.parse_position("B000*0GG00G00GE").unwrap();
    assert_eq!(g.format_position(&q), ".../.##/..#/..#");
    assert_eq!(g.format_glop(&q), "B000*0GG00G00GE");
    let names: Vec<String> = g.moves(&p).iter().map(|(m, _)| g.format_move(m)).collect();
    assert!(names.contains(&"8-11".to_string()), "{names:?}");
    let (_, after) = g
        .moves(&p)
        .into_iter()
        .find(|(m, _)| g.format_move(m) == "8-11")
        .unwrap();
    assert_eq!(after, q);
    for bad in [
        "B000*0GG000000",
        "B000*0GG00000E",
        "B0000*GG000000E",
        ".../.x./.../...",
    ] {
        assert!(g.parse_position(bad).is_err(), "{bad}");
    }
}

#[test]
fn specs_and_misere_nimbers() {
    let g = AnyGame::parse("cram:3x4:misere").unwrap();
    assert_eq!(g.spec(), "cram:3x4:misere");
    assert_eq!(AnyGame::parse(&g.spec()).unwrap(), g);
    assert_eq!(g.file_stem(), "cram-3x4-misere");
    let options = SolveOptions::with_kind(TableKind::Nimber);
    let err = retrograde::with_game!(&g, g => solve_in_memory(g, &options)).unwrap_err();
    assert!(matches!(err, Error::NimbersUnsupported { .. }), "{err}");
    for bad in ["cram", "cram:0x3", "cram:6x6", "cram:3x3:both", "cram:3by3"] {
        assert!(AnyGame::parse(bad).is_err(), "{bad}");
    }
    let g = cram(3, 3, false);
    assert_eq!(g.player_to_move(&0), None);
    assert!(g.max_nimber() >= nimbers(&g).into_iter().max().unwrap());
}
