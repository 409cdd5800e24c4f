//! The column bitboards of gravity games (`Columns`) against the table
//! games' own rules and the generic bitboards (`Occupy`), position by
//! position: notation, terminal values, moves, keys and values.

use retrograde::internal::search::Columns;
use retrograde::internal::search::Occupy;
use retrograde::search::games::AnySearch;
use retrograde::search::{reference, SearchGame};
use retrograde::Value;
use std::collections::HashMap;

use crate::shared::{table, Rng};

/// The spec's column bitboards.
pub fn columns(spec: &str) -> Columns {
    match AnySearch::parse(spec) {
        Ok(AnySearch::ConnectColumns(g) | AnySearch::SogoColumns(g)) => g,
        Ok(_) => panic!("{spec}: not a Columns board"),
        Err(e) => panic!("{spec}: {e}"),
    }
}

/// The spec's generic bitboards.
fn occupy(spec: &str) -> Occupy<1> {
    for g in AnySearch::parse_all(spec).unwrap() {
        if let AnySearch::Connect(g) | AnySearch::Sogo(g) = g {
            return g;
        }
    }
    panic!("{spec}: no Occupy<1>")
}

fn move_set<G: SearchGame>(g: &G, p: &G::Pos) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = g
        .moves(p)
        .iter()
        .map(|(m, c)| (g.format_move(m), g.format_position(c)))
        .collect();
    v.sort();
    v
}

/// Random games: the column bitboards agree with the table rules on
/// notation, terminal values, moves (winning moves first), immediate
/// wins and (from `min_stones` pieces on) values; their keys are the
/// generic bitboards' keys; a decided position has its value.
fn agree(spec: &str, games: usize, min_stones: u32, seed: u64) -> usize {
    let g = columns(spec);
    assert!(g.by_shifts(), "{spec}: the patterns are the grid's lines");
    let o = occupy(spec);
    let t = table(spec);
    assert_eq!(g.spec(), t.spec());
    let mut rng = Rng(seed);
    let mut values: HashMap<[u64; 2], Value> = HashMap::new();
    let mut compared = 0;
    for _ in 0..games {
        let mut p = g.start();
        loop {
            let text = g.format_position(&p);
            let tp = t.parse_position(&text).unwrap();
            let op = o.parse_position(&text).unwrap();
            assert_eq!(g.parse_position(&text).unwrap(), p, "{spec} {text}");
            assert_eq!(g.terminal(&p), t.terminal(&tp), "{spec} {text}");
            assert_eq!(g.key(&p), o.key(&op), "{spec} {text}: key");
            assert_eq!(
                g.position_of_key(&g.key(&p)).map(|q| g.key(&q)),
                Some(g.key(&p))
            );
            let stones = text.chars().filter(|c| matches!(c, 'x' | 'o')).count() as u32;
            if stones >= min_stones {
                let v = reference::value(&g, &p);
                assert_eq!(v, reference::value(&t, &tp), "{spec} {text}");
                if let Some(w) = values.insert(g.key(&p), v) {
                    assert_eq!(w, v, "{spec} {text}: a key with two values");
                }
            }
            compared += 1;
            if g.terminal(&p).is_some() {
                assert!(g.moves(&p).is_empty());
                break;
            }
            if let Some(v) = g.decided(&p) {
                assert_eq!(reference::value(&t, &tp), v, "{spec} {text}: decided");
            }
            assert_eq!(move_set(&g, &p), move_set(&t, &tp), "{spec} {text}");
            let moves = g.moves(&p);
            let wins = moves
                .iter()
                .any(|(_, c)| g.terminal(c) == Some(Value::Lose));
            assert_eq!(g.wins_now(&p), wins, "{spec} {text}");
            if wins {
                assert_eq!(g.terminal(&moves[0].1), Some(Value::Lose), "{spec} {text}");
            }
            p = moves[rng.below(moves.len())].1;
        }
    }
    compared
}

#[test]
fn connect_boards_agree_with_the_tables() {
    assert!(agree("connect:4x4", 60, 4, 21) > 500);
    assert!(agree("connect:5x4", 40, 8, 22) > 400);
    assert!(agree("connect:5x4x3", 40, 6, 23) > 300);
    assert!(agree("connect:3x3x3", 60, 0, 24) > 300);
    assert!(agree("connect:4x3x2", 60, 0, 25) > 200);
    assert!(agree("connect:6x4", 20, 14, 26) > 200);
}

#[test]
fn sogo_cubes_agree_with_the_tables() {
    assert!(agree("sogo:2", 100, 0, 27) >= 400);
    assert!(agree("sogo:3", 40, 14, 28) > 400);
}

#[test]
fn which_boards_take_columns() {
    // Connect-Four 7x6: 7·(6+1) = 49 bits; 8x7 fills the word.
    for spec in [
        "connect:7x6",
        "connect:8x7",
        "connect:9x6",
        "connect:4x4x1",
        "sogo:3",
    ] {
        let g = columns(spec);
        assert!(g.by_shifts(), "{spec}");
    }
    let c = columns("connect:7x6");
    assert_eq!(c.patterns().len(), 69);
    assert_eq!(c.symmetry_count(), 2);
    assert_eq!(c.format_move(&c.moves(&c.start())[0].0), "4");
    let p = c.parse_position("4453").unwrap();
    assert_eq!(
        c.format_position(&p),
        "......./......./......./......./...o.../..oxx.."
    );
    // Misère boards, and boards past 64 bits with sentinels, are the
    // generic bitboards'.
    for spec in [
        "connect:4x4:misere",
        "connect:8x8",
        "connect:10x6",
        "sogo:4",
    ] {
        let g = AnySearch::parse(spec).unwrap();
        assert!(
            matches!(g, AnySearch::Connect(_) | AnySearch::Sogo(_)),
            "{spec}"
        );
    }
    assert_eq!(columns("sogo:3").symmetry_count(), 8);
}
