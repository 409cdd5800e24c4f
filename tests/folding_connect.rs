//! Mirror folding of `connect:WxH[xK]` (index scheme 2) must answer exactly
//! as the plain index: every legal position probes the same, `probe --moves`
//! ranks the same moves, `analyze` gives the same figures, and `solve --fold`
//! writes a smaller file that `verify` and `compare` accept.

use rayon::prelude::*;
use retrograde::analyze::analyze;
use retrograde::compare::compare;
use retrograde::games::{Connect, GravityPosition};
use retrograde::solve::{solve_to_file, NoProgress};
use retrograde::{AnyGame, Game, Tablebase};
use std::path::Path;
use std::process::Command;

fn solve_both(spec: &str, dir: &Path) -> (Tablebase, Tablebase) {
    let AnyGame::Connect(plain) = AnyGame::parse(spec).unwrap() else {
        panic!("not connect")
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

fn games(plain: &Tablebase, folded: &Tablebase) -> (Connect, Connect) {
    match (plain.game(), folded.game()) {
        (AnyGame::Connect(p), AnyGame::Connect(f)) => (p.clone(), f.clone()),
        _ => panic!("not connect"),
    }
}

/// The mirror image of a position.
fn mirror(g: &Connect, p: &GravityPosition) -> GravityPosition {
    let (w, h) = (g.width(), g.height());
    let mask = (1u64 << h) - 1;
    let flip = |m: u64| {
        (0..w).fold(0, |acc, c| {
            acc | ((m >> (c * h)) & mask) << ((w - 1 - c) * h)
        })
    };
    GravityPosition {
        pieces: p.pieces.map(flip),
    }
}

/// Compares the two files on every legal position (reachable or not),
/// mirror images included, `probe --moves` on a sample, `analyze` and
/// `compare`.
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

    let differing: u64 = (0..plain.size())
        .into_par_iter()
        .filter(|&i| {
            let Some(p) = plain.decode(i) else {
                return plain_tb.probe_index(i).unwrap().is_some();
            };
            let a = plain_tb.probe_index(i).unwrap();
            let b = folded_tb.probe_index(folded.encode(&p)).unwrap();
            let m = plain_tb
                .probe_index(plain.encode(&mirror(&plain, &p)))
                .unwrap();
            a.is_none() || a != b || a != m
        })
        .count() as u64;
    assert_eq!(differing, 0, "{spec}: positions whose values differ");

    // The folded file answers exactly its legal indices.
    let stray: u64 = (0..folded.size())
        .into_par_iter()
        .filter(|&i| folded.decode(i).is_some() != folded_tb.probe_index(i).unwrap().is_some())
        .count() as u64;
    assert_eq!(stray, 0, "{spec}: folded cells and legal indices disagree");

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
fn folded_connect_4x4_answers_as_plain() {
    compare_all("connect:4x4", 101);
}

/// 28,629,151 plain entries; the folded file has 14,776,336.
#[test]
fn folded_connect_5x4_answers_as_plain() {
    compare_all("connect:5x4", 10_007);
}

#[test]
fn folded_small_boards_answer_as_plain() {
    // Odd and even widths, W = 2, short columns (a work unit then fixes
    // middle columns too), misère.
    for spec in [
        "connect:3x3x3",
        "connect:5x3x3",
        "connect:2x3x2",
        "connect:6x2x3:misere",
        "connect:7x1x3",
    ] {
        compare_all(spec, 7);
    }
}

#[test]
fn a_single_column_cannot_be_folded() {
    let g = AnyGame::parse("connect:1x4x2").unwrap();
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
    let path = dir.path().join("c.rtb");
    let s = path.to_str().unwrap();
    let o = run(&["solve", "connect:4x4", "--fold", "-o", s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["verify", s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The mirror images of a position share an index and an answer.
    let o = run(&["probe", s, "1123", "4432", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let answers: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2);
    for key in ["index", "value", "remoteness"] {
        assert_eq!(answers[0][key], answers[1][key], "{key}");
    }
    assert_eq!(answers[0]["value"], "tie");
    let o = run(&["solve", "connect:1x4x2", "--fold", "-o", s, "--force"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("single column"));
}
