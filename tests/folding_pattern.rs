//! Symmetry folding of pattern games (m,n,k boards, tic-tac-toe, pattern
//! files): the folded file must answer exactly as the plain one on every
//! position, `probe --moves` must rank the same moves, `analyze` must give
//! the same figures, and every image of a position under a folded symmetry
//! must probe alike.

use rayon::prelude::*;
use retrograde::analyze::analyze;
use retrograde::games::symmetry::BoardSymmetries;
use retrograde::games::PatternPosition;
use retrograde::solve::{solve_to_file, NoProgress};
use retrograde::{AnyGame, Game, Tablebase};

/// Solves `plain` and its folded form, then compares them on every legal
/// plain index (so on every reachable position too), on the moves of every
/// `moves_every`-th position, and on `analyze`. Returns plain and folded
/// sizes.
fn compare<G: Game>(plain: &G, moves_every: usize) -> (u64, u64) {
    let folded = plain.folded().unwrap();
    assert!(folded.is_folded() && !plain.is_folded());
    assert_eq!(folded.index_scheme(), 2);
    assert_ne!(folded.file_stem(), plain.file_stem());
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("plain.rtb"), dir.path().join("folded.rtb"));
    solve_to_file(plain, &a, &NoProgress).unwrap();
    solve_to_file(&folded, &b, &NoProgress).unwrap();
    let (plain_tb, folded_tb) = (Tablebase::open(&a).unwrap(), Tablebase::open(&b).unwrap());
    assert!(folded_tb.game().is_folded(), "the header records folding");
    let spec = plain.spec();

    let (differing, legal) = (0..plain.size())
        .into_par_iter()
        .filter_map(|i| {
            let p = plain.decode(i)?;
            let a = plain_tb.probe_index(i).unwrap();
            let b = folded_tb.probe_index(folded.encode(&p)).unwrap();
            Some((u64::from(a != b), 1u64))
        })
        .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
    assert!(legal > 0);
    assert_eq!(differing, 0, "{spec}: positions whose values differ");

    for i in (0..plain.size()).step_by(moves_every) {
        let Some(p) = plain.decode(i) else { continue };
        let text = plain.format_position(&p);
        let ma = plain_tb.probe_text(Some(&text), true).unwrap();
        let mb = folded_tb.probe_text(Some(&text), true).unwrap();
        assert_eq!(ma.outcome, mb.outcome, "{spec}: {text}");
        assert_eq!(ma.moves, mb.moves, "{spec}: moves of {text}");
    }

    let fa = analyze(plain, &plain_tb).unwrap();
    let fb = analyze(&folded, &folded_tb).unwrap();
    assert_eq!(fa, fb, "{spec}: analyze differs");
    (plain.size(), folded.size())
}

fn mnk(spec: &str) -> retrograde::games::Mnk {
    match AnyGame::parse(spec).unwrap() {
        AnyGame::Mnk(g) => g,
        _ => panic!("{spec} is not an m,n,k-game"),
    }
}

fn pattern(spec: &str) -> retrograde::games::PatternGame {
    match AnyGame::parse(spec).unwrap() {
        AnyGame::Pattern(g) => g,
        _ => panic!("{spec} is not a pattern game"),
    }
}

#[test]
fn folded_tictactoe_answers_as_plain() {
    let (plain, folded) = compare(&mnk("tictactoe"), 1);
    assert_eq!(plain, 6_046);
    assert!(folded * 4 < plain, "8 symmetries: {folded} of {plain}");
}

#[test]
fn folded_mnk_boards_answer_as_plain() {
    // Square boards fold 8 symmetries, rectangles 4, one row 2.
    for (spec, syms) in [
        ("mnk:4x4x4", 8),
        ("mnk:4x4x3", 8),
        ("mnk:3x4x3", 4),
        ("mnk:2x5x3", 4),
        ("mnk:1x7x3", 2),
    ] {
        let g = mnk(spec);
        assert_eq!(g.folded().unwrap().board().symmetries(), syms, "{spec}");
        let (plain, folded) = compare(&g, 997);
        // The orbits of occupied sets are nearly all of full size; sets
        // fixed by a symmetry keep every colouring, hence the slack.
        assert!(
            (folded as f64) < 1.35 * plain as f64 / syms as f64,
            "{spec}: {folded} of {plain}"
        );
    }
}

#[test]
fn folded_pattern_files_answer_as_plain() {
    // The layout's symmetries that keep the patterns: all 8 for the
    // tic-tac-toe file and qango4; the cube's 2x4 layout keeps 4.
    for (path, syms) in [
        ("games/tictactoe.txt", 8),
        ("games/qango4.txt", 8),
        ("games/cube.txt", 4),
    ] {
        let g = pattern(&format!("pattern:{path}"));
        assert_eq!(g.folded().unwrap().board().symmetries(), syms, "{path}");
        compare(&g, 101);
    }
}

#[test]
fn folding_is_refused_without_a_symmetry() {
    // A single pattern off-centre on one row: the reversal moves it.
    let g = pattern("pattern:lopsided:squares=4:lines=0.1");
    let e = g.folded().unwrap_err();
    assert!(e.contains("no symmetry"), "{e}");
    // Rows of different lengths are not a rectangle.
    let g = pattern("pattern:ragged:squares=5:rows=2.3:lines=0.1,2.3.4");
    let e = g.folded().unwrap_err();
    assert!(e.contains("rectangular"), "{e}");
}

#[test]
fn every_image_of_a_position_probes_alike() {
    let g = mnk("mnk:4x4x4");
    let folded = g.folded().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.rtb");
    solve_to_file(&folded, &path, &NoProgress).unwrap();
    let tb = Tablebase::open(&path).unwrap();
    let sym = BoardSymmetries::grid(4, 4);
    for text in [
        "x.o./.x../..o./....",
        "xo../ox../..../....",
        "x.../..../..../...o",
    ] {
        let p = g.parse_position(text).unwrap();
        let want = tb.probe(&folded, &p).unwrap();
        for k in 0..sym.len() {
            let q = PatternPosition {
                x: sym.mask(k, p.x),
                o: sym.mask(k, p.o),
            };
            assert_eq!(tb.probe(&folded, &q).unwrap(), want, "{text} image {k}");
        }
    }
}

#[test]
fn cli_solves_probes_and_verifies_a_folded_board() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.rtb");
    let folded = dir.path().join("folded.rtb");
    let (plain, folded) = (plain.to_str().unwrap(), folded.to_str().unwrap());
    let bin = env!("CARGO_BIN_EXE_retrograde");
    let run = |args: &[&str]| {
        let o = std::process::Command::new(bin).args(args).output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    run(&["solve", "tictactoe", "-o", plain]);
    run(&["solve", "tictactoe", "--fold", "-o", folded]);
    let info = run(&["info", folded]);
    assert!(info.contains("fold"), "{info}");
    for pos in ["x.o/.x./...", "xo./.x./..o", "........."] {
        let a = run(&["probe", plain, pos, "--moves"]);
        let b = run(&["probe", folded, pos, "--moves"]);
        assert_eq!(a, b, "{pos}");
    }
    run(&["verify", folded]);
}
