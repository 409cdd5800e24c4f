//! Symmetry folding (index scheme 2) must answer exactly as the plain index:
//! every position reachable from the start probes the same, `probe --moves`
//! ranks the same moves, and `analyze` gives the same figures.

use rayon::prelude::*;
use retrograde::analyze::analyze;
use retrograde::games::symmetry::BoardSymmetries;
use retrograde::games::{Isolation, IsolationPosition};
use retrograde::solve::{solve_to_file, NoProgress};
use retrograde::{AnyGame, Game, Tablebase};

fn solve_both(spec: &str, dir: &std::path::Path) -> (Tablebase, Tablebase) {
    let AnyGame::Isolation(plain) = AnyGame::parse(spec).unwrap() else {
        panic!("not isolation")
    };
    let folded = plain.folded().unwrap();
    let a = dir.join("plain.rtb");
    let b = dir.join("folded.rtb");
    solve_to_file(&plain, &a, &NoProgress).unwrap();
    solve_to_file(&folded, &b, &NoProgress).unwrap();
    (Tablebase::open(&a).unwrap(), Tablebase::open(&b).unwrap())
}

fn games(plain: &Tablebase, folded: &Tablebase) -> (Isolation, Isolation) {
    match (plain.game(), folded.game()) {
        (AnyGame::Isolation(p), AnyGame::Isolation(f)) => (p.clone(), f.clone()),
        _ => panic!("not isolation"),
    }
}

/// Compares the two files on every position (reachable or not, so every
/// reachable one too), `probe --moves` on a sample, and `analyze`.
fn compare_reachable(spec: &str, moves_every: u64) {
    let dir = tempfile::tempdir().unwrap();
    let (plain_tb, folded_tb) = solve_both(spec, dir.path());
    let (plain, folded) = games(&plain_tb, &folded_tb);
    assert!(folded.is_folded() && !plain.is_folded());
    assert!(
        folded.size() < plain.size(),
        "folding must shrink the table"
    );

    let differing: u64 = (0..plain.size())
        .into_par_iter()
        .filter(|&i| {
            let p = plain.decode(i).unwrap();
            let a = plain_tb.probe_index(i).unwrap();
            let b = folded_tb.probe_index(folded.encode(&p)).unwrap();
            a != b
        })
        .count() as u64;
    assert_eq!(differing, 0, "{spec}: positions whose values differ");

    for i in (0..plain.size()).step_by(moves_every as usize) {
        let text = plain.format_position(&plain.decode(i).unwrap());
        let ma = plain_tb.probe_text(Some(&text), true).unwrap();
        let mb = folded_tb.probe_text(Some(&text), true).unwrap();
        assert_eq!(ma.outcome, mb.outcome);
        assert_eq!(ma.moves, mb.moves, "{spec}: moves of {text}");
    }
    let ma = plain_tb.probe_text(None, true).unwrap();
    let mb = folded_tb.probe_text(None, true).unwrap();
    assert_eq!(ma.moves, mb.moves, "{spec}: moves of the start");

    let fa = analyze(&plain, &plain_tb).unwrap();
    let fb = analyze(&folded, &folded_tb).unwrap();
    assert_eq!(fa, fb, "{spec}: analyze differs");
}

#[test]
fn folded_isolation_4x4_answers_as_plain_on_every_reachable_position() {
    compare_reachable("isolation:4x4", 997);
}

#[test]
fn folded_rectangles_answer_as_plain() {
    compare_reachable("isolation:3x4", 7);
    compare_reachable("isolation:2x5", 7);
}

/// 97,976,968 reachable positions.
#[test]
fn folded_isolation_4x5_answers_as_plain_on_every_reachable_position() {
    compare_reachable("isolation:4x5", 100_003);
}

#[test]
fn every_position_of_an_orbit_probes_alike() {
    // The images of a position under the square's 8 symmetries are the same
    // position up to symmetry, so all must get its value; and the folded file
    // is 7.3 times smaller than the plain one on 4x4 (33 of 240 blocks).
    let dir = tempfile::tempdir().unwrap();
    let (plain_tb, folded_tb) = solve_both("isolation:4x4", dir.path());
    let (plain, g) = games(&plain_tb, &folded_tb);
    assert_eq!(g.size() * 240, plain.size() * 33);
    let sym = BoardSymmetries::grid(4, 4);
    assert_eq!(sym.len(), 8);
    for text in [
        "0.../...x/.x../...1",
        "0.../x.x./.1../....",
        ".0../..../..../..1.",
    ] {
        let p = g.parse_position(text).unwrap();
        let want = folded_tb.probe(&g, &p).unwrap();
        assert_eq!(plain_tb.probe(&plain, &p).unwrap(), want);
        for k in 0..sym.len() {
            let q = IsolationPosition {
                pieces: p.pieces.map(|s| sym.square(k, u32::from(s)) as u8),
                removed: sym.mask(k, p.removed),
            };
            assert_eq!(folded_tb.probe(&g, &q).unwrap(), want, "{text} image {k}");
            assert_eq!(
                plain_tb.probe(&plain, &q).unwrap(),
                want,
                "{text} image {k}"
            );
        }
    }
}
