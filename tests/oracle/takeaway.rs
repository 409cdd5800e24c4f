//! Take-away games against an independent memoised minimax and the published
//! facts (REFERENCE.md: Ferguson, Game Theory I, §1.4 and §3.3).

use retrograde::solve::{solve_in_memory, SolveOptions, Solved};
use retrograde::{AnyGame, CellCodec, Error, Game, Outcome, TableKind, Value};

use crate::common::cell;

fn solved(spec: &str) -> (AnyGame, Vec<u8>, CellCodec) {
    let game = AnyGame::parse(spec).unwrap();
    let Solved {
        cells: data, codec, ..
    } = retrograde::with_game!(&game, g => solve_in_memory(g, &SolveOptions::default())).unwrap();
    (game, data, codec)
}

fn outcome(data: &[u8], codec: CellCodec, i: usize) -> Outcome {
    codec.decode(cell(data, codec, i)).unwrap()
}

/// Plain minimax with remoteness on a pile, written from the rules:
/// `moves(n)` lists the piles reachable from n; a player who cannot move
/// loses (normal) or wins (misère).
fn oracle(max: usize, moves: impl Fn(usize) -> Vec<usize>, misere: bool) -> Vec<Outcome> {
    let mut memo: Vec<Outcome> = Vec::with_capacity(max + 1);
    for n in 0..=max {
        let kids = moves(n);
        let o = if kids.is_empty() {
            Outcome {
                value: if misere { Value::Win } else { Value::Lose },
                remoteness: Some(0),
            }
        } else {
            let losing: Vec<u32> = kids
                .iter()
                .filter(|&&k| memo[k].value == Value::Lose)
                .map(|&k| memo[k].remoteness.unwrap())
                .collect();
            if let Some(r) = losing.iter().min() {
                Outcome {
                    value: Value::Win,
                    remoteness: Some(r + 1),
                }
            } else {
                let r = kids.iter().map(|&k| memo[k].remoteness.unwrap()).max();
                Outcome {
                    value: Value::Lose,
                    remoteness: Some(r.unwrap() + 1),
                }
            }
        };
        memo.push(o);
    }
    memo
}

fn grundy(max: usize, moves: impl Fn(usize) -> Vec<usize>) -> Vec<u32> {
    let mut g: Vec<u32> = Vec::with_capacity(max + 1);
    for n in 0..=max {
        let seen: Vec<u32> = moves(n).iter().map(|&k| g[k]).collect();
        g.push((0..).find(|x| !seen.contains(x)).unwrap());
    }
    g
}

fn subtract(set: &'static [usize]) -> impl Fn(usize) -> Vec<usize> {
    move |n| set.iter().filter(|&&s| s <= n).map(|&s| n - s).collect()
}

fn digit_moves(n: usize) -> Vec<usize> {
    let mut ds: Vec<usize> = n
        .to_string()
        .bytes()
        .map(|b| usize::from(b - b'0'))
        .filter(|&d| d > 0)
        .collect();
    ds.sort_unstable();
    ds.dedup();
    ds.into_iter().map(|d| n - d).collect()
}

#[test]
fn subtraction_matches_oracle_entry_by_entry() {
    for (spec, set, misere) in [
        ("subtraction:300:1,3,4", &[1usize, 3, 4][..], false),
        ("subtraction:300:1,3,4:misere", &[1, 3, 4][..], true),
        ("subtraction:200:2,5,7", &[2, 5, 7][..], false),
        ("subtraction:200:2,5,7:misere", &[2, 5, 7][..], true),
        ("subtraction:100:1,2,3", &[1, 2, 3][..], false),
    ] {
        let (_, data, codec) = solved(spec);
        let set: &'static [usize] = Box::leak(set.to_vec().into_boxed_slice());
        let want = oracle(
            data.len() / usize::from(codec.width()) - 1,
            subtract(set),
            misere,
        );
        for (n, w) in want.iter().enumerate() {
            assert_eq!(outcome(&data, codec, n), *w, "{spec} at {n}");
        }
    }
}

#[test]
fn subtraction_134_p_positions_are_0_and_2_mod_7() {
    // Ferguson §1.4: S = {1,3,4}, P-positions are exactly n ≡ 0, 2 (mod 7).
    let (_, data, codec) = solved("subtraction:1000:1,3,4");
    for n in 0..=1000usize {
        let lose = outcome(&data, codec, n).value == Value::Lose;
        assert_eq!(lose, n % 7 == 0 || n % 7 == 2, "n = {n}");
    }
}

#[test]
fn long_games_use_wider_cells_instead_of_truncating() {
    // subtraction:1000:1 lasts 1000 moves: more than a byte's 63.
    let (_, data, codec) = solved("subtraction:1000:1");
    assert_eq!(codec.width(), 2);
    assert_eq!(
        outcome(&data, codec, 1000),
        Outcome {
            value: Value::Lose,
            remoteness: Some(1000)
        }
    );
    assert_eq!(outcome(&data, codec, 999).remoteness, Some(999));
    // And a one-byte cell is refused, not truncated.
    let g = retrograde::games::Subtraction::from_params("1000:1").unwrap();
    let mut buf = vec![0u8; g.size() as usize];
    let err = retrograde::solve::solve_into(
        &g,
        &mut buf,
        CellCodec::new(1),
        &retrograde::solve::NoProgress,
    )
    .unwrap_err();
    assert!(matches!(err, Error::RemotenessOverflow { .. }), "{err}");
}

#[test]
fn digits_p_positions_are_multiples_of_ten() {
    // Ferguson §1.4 (the digit game): P-positions are the multiples of 10.
    let (_, data, codec) = solved("digits:2000");
    for n in 0..=2000usize {
        let lose = outcome(&data, codec, n).value == Value::Lose;
        assert_eq!(lose, n % 10 == 0, "n = {n}");
    }
}

#[test]
fn digits_match_oracle_normal_and_misere() {
    for (spec, misere) in [("digits:1500", false), ("digits:1500:misere", true)] {
        let (_, data, codec) = solved(spec);
        let want = oracle(1500, digit_moves, misere);
        for (n, w) in want.iter().enumerate() {
            assert_eq!(outcome(&data, codec, n), *w, "{spec} at {n}");
        }
    }
}

fn nimbers(spec: &str) -> Vec<u32> {
    let game = AnyGame::parse(spec).unwrap();
    let options = SolveOptions::with_kind(TableKind::Nimber);
    let Solved {
        cells: data, codec, ..
    } = retrograde::with_game!(&game, g => solve_in_memory(g, &options)).unwrap();
    let n = data.len() / usize::from(codec.width());
    (0..n)
        .map(|i| codec.nimber(cell(&data, codec, i)).unwrap())
        .collect()
}

#[test]
fn grundy_values_of_subtraction_sets() {
    // Ferguson §3.3: S = {1,2,3} has g(n) = n mod 4; S = {1..m}: n mod (m+1).
    for (n, g) in nimbers("subtraction:500:1,2,3").iter().enumerate() {
        assert_eq!(*g as usize, n % 4, "n = {n}");
    }
    for (n, g) in nimbers("subtraction:500:1,2,3,4,5,6").iter().enumerate() {
        assert_eq!(*g as usize, n % 7, "n = {n}");
    }
    let want = grundy(400, subtract(&[2, 5, 7]));
    assert_eq!(nimbers("subtraction:400:2,5,7"), want);
    assert_eq!(nimbers("digits:400"), grundy(400, digit_moves));
}

#[test]
fn nimbers_of_misere_games_are_refused() {
    let game = AnyGame::parse("subtraction:10:1,2:misere").unwrap();
    let options = SolveOptions::with_kind(TableKind::Nimber);
    let err = retrograde::with_game!(&game, g => solve_in_memory(g, &options)).unwrap_err();
    assert!(matches!(err, Error::NimbersUnsupported { .. }), "{err}");
}

#[test]
fn bad_take_away_specs_are_errors() {
    for spec in [
        "subtraction:10",
        "subtraction:10:0,1",
        "subtraction:x:1",
        "subtraction:10:1,a",
        "subtraction:10:1:sideways",
        "digits:-3",
        "digits:10:loser",
        "subtraction:10000000000:1",
    ] {
        assert!(AnyGame::parse(spec).is_err(), "{spec}");
    }
    let g = AnyGame::parse("subtraction:20:4,1,3,3").unwrap();
    assert_eq!(g.spec(), "subtraction:20:1,3,4");
}
