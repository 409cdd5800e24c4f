//! Unit tests of the notation, the moves and the canonical form.

use super::*;

fn p(s: &str) -> Position {
    Position::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn show(s: &str) -> String {
    p(s).to_string()
}

#[test]
fn start_positions_print_as_glop_does() {
    assert_eq!(Position::spots(1).to_string(), "0");
    assert_eq!(Position::spots(5).to_string(), "0*5");
    assert_eq!(show("0.0.0.0.0"), "0*5");
    assert_eq!(show("0*12"), "0*12");
}

#[test]
fn seed_examples_are_canonical_already() {
    for s in [
        "0*8.AB|0*3.AB",
        "0*4.A|0*4.A+0*3",
        "0*4.A|0*4.A+0*2.AB|AB",
        "0*4.A|0*4.A+0.1a2a",
    ] {
        assert_eq!(show(s), s);
    }
}

#[test]
fn children_of_one_spot() {
    let kids: Vec<String> = p("0").children().iter().map(|c| c.to_string()).collect();
    assert_eq!(kids, ["AB|AB"]);
}

fn nimber(l: &Land, memo: &mut std::collections::HashMap<Land, u32>) -> u32 {
    if let Some(&n) = memo.get(l) {
        return n;
    }
    let mut seen: Vec<u32> = l
        .children()
        .iter()
        .map(|c| c.iter().fold(0, |a, x| a ^ nimber(x, memo)))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    let mut m = 0;
    while seen.binary_search(&m).is_ok() {
        m += 1;
    }
    memo.insert(l.clone(), m);
    m
}

fn misere_wins(q: &Position, memo: &mut std::collections::HashMap<Position, bool>) -> bool {
    if q.is_over() {
        return true;
    }
    if let Some(&w) = memo.get(q) {
        return w;
    }
    let w = q.children().iter().any(|c| !misere_wins(c, memo));
    memo.insert(q.clone(), w);
    w
}

#[test]
#[ignore]
fn scratch_values() {
    let mut memo = std::collections::HashMap::new();
    let mut mm = std::collections::HashMap::new();
    for n in 1..=8 {
        let t = std::time::Instant::now();
        let s = Position::spots(n);
        let v = nimber(&s.lands()[0], &mut memo);
        let m = if n <= 7 {
            misere_wins(&s, &mut mm) as i32
        } else {
            -1
        };
        eprintln!(
            "n={n} nimber={v} misere_win={m} memo={} {:?}",
            memo.len(),
            t.elapsed()
        );
    }
}
