//! Symmetry folding (index scheme 2, `solve --fold`) must answer exactly as
//! the plain index, in every game that folds: every legal position — and
//! each of its images under the folded symmetries — probes the same in both
//! files, the folded file holds a value at exactly its legal indices,
//! `probe --moves` ranks the same moves, `analyze` gives the same figures and
//! `compare` finds the files identical; and the CLI solves, verifies and
//! probes folded files.

use rayon::prelude::*;
use retrograde::internal::analyze::analyze;
use retrograde::internal::compare::compare;
use retrograde::internal::games::BoardSymmetries;
use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
use retrograde::{AnyGame, Game, Tablebase};

use crate::common::run;

/// Solves `plain` and its folded form and compares them (see the module
/// docs); `images` lists a position's images under the folded symmetries
/// (the position itself included), `moves_every` spaces the `probe --moves`
/// sample. Returns the plain and folded sizes.
fn check_folding<G: Game>(
    plain: &G,
    moves_every: usize,
    images: impl Fn(&G::Position) -> Vec<G::Position> + Sync,
) -> (u64, u64) {
    let spec = plain.spec();
    let folded = plain.folded().unwrap();
    assert!(folded.is_folded() && !plain.is_folded(), "{spec}");
    assert_eq!(folded.index_scheme(), plain.index_scheme() + 1, "{spec}");
    assert_ne!(folded.file_stem(), plain.file_stem(), "{spec}");
    assert!(folded.size() < plain.size(), "{spec}: folding must shrink");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("plain.rtb"), dir.path().join("folded.rtb"));
    solve_to_file(plain, &a, &SolveOptions::default(), &NoProgress).unwrap();
    solve_to_file(&folded, &b, &SolveOptions::default(), &NoProgress).unwrap();
    let (plain_tb, folded_tb) = (
        // SAFETY: the test's own file; nothing modifies it while mapped.
        unsafe { Tablebase::open_mmap(&a) }.unwrap(),
        // SAFETY: the test's own file; nothing modifies it while mapped.
        unsafe { Tablebase::open_mmap(&b) }.unwrap(),
    );
    assert!(
        folded_tb.game().is_folded(),
        "{spec}: the header records folding"
    );
    assert_eq!(folded_tb.header().spec, plain_tb.header().spec);

    let (bad, legal) = (0..plain.size())
        .into_par_iter()
        .map(|i| {
            let a = plain_tb.probe_index(i).unwrap();
            let Some(p) = plain.decode(i) else {
                return (u64::from(a.is_some()), 0);
            };
            let differs = a.is_none()
                || images(&p).iter().any(|q| {
                    a != folded_tb.probe_index(folded.encode(q)).unwrap()
                        || a != plain_tb.probe_index(plain.encode(q)).unwrap()
                });
            (u64::from(differs), 1)
        })
        .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
    assert!(legal > 0, "{spec}");
    assert_eq!(bad, 0, "{spec}: positions whose values differ");

    let stray = (0..folded.size())
        .into_par_iter()
        .filter(|&i| folded.decode(i).is_some() != folded_tb.probe_index(i).unwrap().is_some())
        .count();
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

    let fa = analyze(plain, &plain_tb).unwrap();
    let fb = analyze(&folded, &folded_tb).unwrap();
    assert_eq!(fa, fb, "{spec}: analyze differs");
    let c = compare(&plain_tb, &folded_tb).unwrap();
    assert!(c.identical(), "{spec}: {c:?}");
    (plain.size(), folded.size())
}

/// Runs the command, asserting success; returns stdout.
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// `probe FILE POSITIONS... --json`: each answer's index, value and
/// remoteness must be the same (images of one position).
fn probe_alike(file: &str, positions: &[&str]) -> serde_json::Value {
    let mut args = vec!["probe", file];
    args.extend_from_slice(positions);
    args.push("--json");
    let answers: Vec<serde_json::Value> = ok(&args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), positions.len());
    for a in &answers[1..] {
        for key in ["index", "value", "remoteness"] {
            assert_eq!(answers[0][key], a[key], "{key} of {positions:?}");
        }
    }
    answers[0].clone()
}

mod isolation {
    use super::*;
    use retrograde::games::{Isolation, IsolationPosition};

    fn game(spec: &str) -> Isolation {
        match AnyGame::parse(spec).unwrap() {
            AnyGame::Isolation(g) => g,
            _ => panic!("{spec} is not isolation"),
        }
    }

    /// Both pieces and the removed squares mapped by each symmetry (by the
    /// first `images` of them: 1 checks the position only).
    fn check(spec: &str, moves_every: usize, images: usize) -> (u64, u64) {
        let g = game(spec);
        let sym = BoardSymmetries::grid(g.rows(), g.cols());
        check_folding(&g, moves_every, |p| {
            (0..sym.len().min(images))
                .map(|k| IsolationPosition {
                    pieces: p.pieces.map(|s| sym.square(k, u32::from(s)) as u8),
                    removed: sym.mask(k, p.removed),
                })
                .collect()
        })
    }

    #[test]
    fn folded_4x4_answers_as_plain() {
        // 33 of the 240 piece placements keep a block.
        let (plain, folded) = check("isolation:4x4", 997, 8);
        assert_eq!(folded * 240, plain * 33);
    }

    #[test]
    fn folded_rectangles_answer_as_plain() {
        check("isolation:3x4", 7, 4);
        check("isolation:2x5", 7, 4);
    }

    /// 97,976,968 reachable positions (their images are left to the
    /// smaller boards: four times the probes for little more assurance).
    #[test]
    fn folded_4x5_answers_as_plain() {
        check("isolation:4x5", 100_003, 1);
    }
}

mod pattern {
    use super::*;
    use retrograde::games::{Mnk, PatternGame, PatternPosition};

    fn mnk(spec: &str) -> Mnk {
        match AnyGame::parse(spec).unwrap() {
            AnyGame::Mnk(g) => g,
            _ => panic!("{spec} is not an m,n,k-game"),
        }
    }

    fn pattern(spec: &str) -> PatternGame {
        match AnyGame::parse(spec).unwrap() {
            AnyGame::Pattern(g) => g,
            _ => panic!("{spec} is not a pattern game"),
        }
    }

    /// Every symmetry of an m,n,k board maps its lines onto lines.
    fn check_mnk(spec: &str, moves_every: usize) -> (u64, u64) {
        let g = mnk(spec);
        let sym = BoardSymmetries::grid(g.rows(), g.cols());
        check_folding(&g, moves_every, |p| {
            (0..sym.len())
                .map(|k| PatternPosition {
                    x: sym.mask(k, p.x),
                    o: sym.mask(k, p.o),
                })
                .collect()
        })
    }

    #[test]
    fn folded_tictactoe_answers_as_plain() {
        let (plain, folded) = check_mnk("tictactoe", 1);
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
            let (plain, folded) = check_mnk(spec, 997);
            // Nearly every orbit of occupied sets has full size; sets fixed
            // by a symmetry keep every colouring, hence the slack.
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
            check_folding(&g, 101, |p| vec![*p]);
        }
    }

    #[test]
    fn folding_is_refused_without_a_symmetry() {
        // A single pattern off-centre on one row: the reversal moves it.
        let e = pattern("pattern:lopsided:squares=4:lines=0.1")
            .folded()
            .unwrap_err();
        assert!(e.contains("no symmetry"), "{e}");
        // Rows of different lengths are not a rectangle.
        let e = pattern("pattern:ragged:squares=5:rows=2.3:lines=0.1,2.3.4")
            .folded()
            .unwrap_err();
        assert!(e.contains("rectangular"), "{e}");
    }

    #[test]
    fn cli_solves_probes_and_verifies_a_folded_board() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.rtb");
        let folded = dir.path().join("folded.rtb");
        let (plain, folded) = (plain.to_str().unwrap(), folded.to_str().unwrap());
        ok(&["solve", "tictactoe", "-o", plain]);
        ok(&["solve", "tictactoe", "--fold", "-o", folded]);
        let info = ok(&["info", folded]);
        assert!(info.contains("symmetries folded"), "{info}");
        for pos in ["x.o/.x./...", "xo./.x./..o", "........."] {
            let a = ok(&["probe", plain, pos, "--moves"]);
            let b = ok(&["probe", folded, pos, "--moves"]);
            assert_eq!(a, b, "{pos}");
        }
        // The four corner openings are one position up to symmetry.
        probe_alike(
            folded,
            &["x........", "..x......", "......x..", "........x"],
        );
        ok(&["verify", folded]);
    }
}

mod connect {
    use super::*;
    use retrograde::games::{Connect, GravityPosition};

    fn game(spec: &str) -> Connect {
        match AnyGame::parse(spec).unwrap() {
            AnyGame::Connect(g) => g,
            _ => panic!("{spec} is not connect"),
        }
    }

    /// The position and its mirror image.
    fn check(spec: &str, moves_every: usize) {
        let g = game(spec);
        let (w, h) = (g.width(), g.height());
        let column = (1u64 << h) - 1;
        let flip = |m: u64| {
            (0..w).fold(0, |acc, c| {
                acc | ((m >> (c * h)) & column) << ((w - 1 - c) * h)
            })
        };
        check_folding(&g, moves_every, |p| {
            vec![
                *p,
                GravityPosition {
                    pieces: p.pieces.map(flip),
                },
            ]
        });
    }

    #[test]
    fn folded_connect_4x4_answers_as_plain() {
        check("connect:4x4", 101);
    }

    /// 5,621,939 plain entries; the folded file has 3,145,591.
    #[test]
    fn folded_connect_5x4_answers_as_plain() {
        check("connect:5x4", 10_007);
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
            check(spec, 7);
        }
    }

    #[test]
    fn a_single_column_cannot_be_folded() {
        let e = AnyGame::parse("connect:1x4x2")
            .unwrap()
            .folded()
            .unwrap_err()
            .to_string();
        assert!(e.contains("single column"), "{e}");
    }

    #[test]
    fn cli_solves_verifies_and_probes_a_folded_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.rtb");
        let s = path.to_str().unwrap();
        ok(&["solve", "connect:4x4", "--fold", "-o", s]);
        ok(&["verify", s]);
        // Mirror images share an index and an answer.
        let a = probe_alike(s, &["1123", "4432"]);
        assert_eq!(a["value"], "tie");
        let o = run(&["solve", "connect:1x4x2", "--fold", "-o", s, "--force"]);
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("single column"));
    }
}

mod sogo {
    use super::*;
    use retrograde::games::{GravityPosition, Sogo};

    fn game(spec: &str) -> Sogo {
        match AnyGame::parse(spec).unwrap() {
            AnyGame::Sogo(g) => g,
            _ => panic!("{spec} is not sogo"),
        }
    }

    /// The images under the floor's symmetries: cell (c, z) goes to
    /// (g(c), z) for both players.
    fn check(spec: &str, moves_every: usize) {
        let g = game(spec);
        let n = g.side();
        let sym = BoardSymmetries::grid(n, n);
        check_folding(&g, moves_every, |p| {
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
        });
    }

    #[test]
    fn folded_sogo_2_answers_as_plain() {
        check("sogo:2", 3);
        check("sogo:2:misere", 5);
    }

    #[test]
    fn a_single_column_cannot_be_folded() {
        let e = AnyGame::parse("sogo:1")
            .unwrap()
            .folded()
            .unwrap_err()
            .to_string();
        assert!(e.contains("single column"), "{e}");
    }

    #[test]
    fn cli_solves_verifies_and_probes_a_folded_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.rtb");
        let s = path.to_str().unwrap();
        ok(&["solve", "sogo:2", "--fold", "-o", s]);
        ok(&["verify", s]);
        // The four corners of the 2x2 floor are one opening up to symmetry.
        probe_alike(s, &["a1", "b1", "a2", "b2"]);
        let o = run(&["solve", "sogo:1", "--fold", "-o", s, "--force"]);
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("single column"));
    }
}
