//! Symmetry folding of `sogo:N` (index scheme 2) must answer exactly as the
//! plain index: every legal position probes the same, and so do its images
//! under the 8 symmetries of the floor; `probe --moves` ranks the same
//! moves, `analyze` gives the same figures, and `solve --fold` writes a
//! smaller file that `verify` accepts.

use retrograde::analyze::analyze;
use retrograde::compare::compare;
use retrograde::games::symmetry::BoardSymmetries;
use retrograde::games::{GravityPosition, Sogo};
use retrograde::solve::{solve_to_file, NoProgress};
use retrograde::{AnyGame, Game, Tablebase};
use std::path::Path;
use std::process::Command;

fn solve_both(spec: &str, dir: &Path) -> (Tablebase, Tablebase) {
    let AnyGame::Sogo(plain) = AnyGame::parse(spec).unwrap() else {
        panic!("not sogo")
    };
    let folded = plain.folded().unwrap();
    let a = dir.join("plain.rtb");
    let b = dir.join("folded.rtb");
    solve_to_file(&plain, &a, &NoProgress).unwrap();
    solve_to_file(&folded, &b, &NoProgress).unwrap();
    assert!(
        std::fs::metadata(&b).unwrap().len() < std::fs::metadata(&a).unwrap().len(),
        "{spec}: the folded file must be smaller"
    );
    (Tablebase::open(&a).unwrap(), Tablebase::open(&b).unwrap())
}

fn games(plain: &Tablebase, folded: &Tablebase) -> (Sogo, Sogo) {
    match (plain.game(), folded.game()) {
        (AnyGame::Sogo(p), AnyGame::Sogo(f)) => (p.clone(), f.clone()),
        _ => panic!("not sogo"),
    }
}

/// The images of a position under the floor's symmetries: cell (c, z) goes
/// to (g(c), z) for both players.
fn images(g: &Sogo, p: &GravityPosition) -> Vec<GravityPosition> {
    let n = g.side();
    let sym = BoardSymmetries::grid(n, n);
    (0..sym.len())
        .map(|s| {
            let map = |m: u64| {
                (0..n * n * n)
                    .filter(|&cell| m >> cell & 1 != 0)
                    .fold(0u64, |acc, cell| {
                        acc | 1 << (sym.square(s, cell / n) * n + cell % n)
                    })
            };
            GravityPosition {
                pieces: p.pieces.map(map),
            }
        })
        .collect()
}

/// Compares the two files on every legal position (reachable or not) and
/// its images, `probe --moves` on a sample, `analyze` and `compare`.
fn compare_all(spec: &str, moves_every: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (plain_tb, folded_tb) = solve_both(spec, dir.path());
    let (plain, folded) = games(&plain_tb, &folded_tb);
    assert!(folded.is_folded() && !plain.is_folded());
    assert_eq!(folded.index_scheme(), 2);
    assert_eq!(folded_tb.header().spec, plain_tb.header().spec);
    assert!(
        folded.size() < plain.size(),
        "folding must shrink the table"
    );

    let mut legal = 0;
    for i in 0..plain.size() {
        let Some(p) = plain.decode(i) else {
            assert!(plain_tb.probe_index(i).unwrap().is_none(), "{spec} {i}");
            continue;
        };
        legal += 1;
        let a = plain_tb.probe_index(i).unwrap();
        assert!(a.is_some(), "{spec} {i}");
        for q in images(&plain, &p) {
            let b = folded_tb.probe_index(folded.encode(&q)).unwrap();
            let m = plain_tb.probe_index(plain.encode(&q)).unwrap();
            assert_eq!(a, b, "{spec}: {}", plain.format_position(&q));
            assert_eq!(a, m, "{spec}: {}", plain.format_position(&q));
        }
    }
    assert!(legal > 0);

    // The folded file answers exactly its legal indices.
    for i in 0..folded.size() {
        assert_eq!(
            folded.decode(i).is_some(),
            folded_tb.probe_index(i).unwrap().is_some(),
            "{spec} folded index {i}"
        );
    }

    let sample = (0..plain.size())
        .filter_map(|i| plain.decode(i))
        .step_by(moves_every);
    for p in sample {
        let text = plain.format_position(&p);
        let ma = plain_tb.probe_text(Some(&text), true).unwrap();
        let mb = folded_tb.probe_text(Some(&text), true).unwrap();
        assert_eq!(ma.outcome, mb.outcome, "{spec}: {text}");
        assert_eq!(ma.moves, mb.moves, "{spec}: moves of {text}");
    }
    let ma = plain_tb.probe_text(None, true).unwrap();
    let mb = folded_tb.probe_text(None, true).unwrap();
    assert_eq!(ma.moves, mb.moves, "{spec}: moves of the start");

    let fa = analyze(&plain, &plain_tb).unwrap();
    let fb = analyze(&folded, &folded_tb).unwrap();
    assert_eq!(fa, fb, "{spec}: analyze differs");

    let c = compare(&plain_tb, &folded_tb).unwrap();
    assert!(c.identical(), "{spec}: {c:?}");
}

#[test]
fn folded_sogo_2_answers_as_plain() {
    compare_all("sogo:2", 3);
}

#[test]
fn folded_sogo_2_misere_answers_as_plain() {
    compare_all("sogo:2:misere", 5);
}

#[test]
fn a_single_column_cannot_be_folded() {
    let g = AnyGame::parse("sogo:1").unwrap();
    let e = g.folded().unwrap_err();
    assert!(e.contains("single column"), "{e}");
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_retrograde"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_solves_verifies_and_probes_a_folded_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rtb");
    let s = path.to_str().unwrap();
    let o = run(&["solve", "sogo:2", "--fold", "-o", s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["verify", s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // a1 and its images b1, a2, b2 (the four corners of the 2x2 floor)
    // share an index and an answer.
    let o = run(&["probe", s, "a1", "b1", "a2", "b2", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let answers: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 4);
    for a in &answers[1..] {
        for key in ["index", "value", "remoteness"] {
            assert_eq!(answers[0][key], a[key], "{key}");
        }
    }
    let o = run(&["solve", "sogo:1", "--fold", "-o", s, "--force"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("single column"));
}
