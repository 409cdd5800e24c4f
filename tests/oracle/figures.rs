//! Published figures (REFERENCE.md, "Isolation": the course report "Solver
//! and GUI for Isolation" by Gao & Li, and its C++ solver), reproduced from
//! tables this crate generates, plus determinism and verification checks on
//! the 4×4 table.
//!
//! The 4×5 figure takes minutes and about 100 MB; it is ignored by default.
//! Run it with `cargo test --release --test oracle figures:: -- --ignored`.

use retrograde::games::Isolation;
use retrograde::internal::analyze::{analyze, non_primitive};
use retrograde::internal::verify::rederive;
use retrograde::solve::{solve_in_memory, solve_to_file, NoProgress, SolveOptions, Solved};
use retrograde::{Error, Game, Outcome, Tablebase, Value};
use std::path::PathBuf;
use tempfile::TempDir;

/// Source of every figure checked here.
const SOURCE: &str =
    "REFERENCE.md, Isolation: Gao & Li, \"Solver and GUI for Isolation\" (their C++ solver)";

fn isolation(rows: u32, cols: u32) -> Isolation {
    Isolation::new(rows, cols).unwrap()
}

/// Solves `game` to a file in a fresh temporary directory.
fn solve_file(game: &Isolation) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{}.rtb", game.file_stem()));
    solve_to_file(game, &path, &SolveOptions::default(), &NoProgress).expect("solve");
    (dir, path)
}

fn win(r: u32) -> Outcome {
    Outcome {
        value: Value::Win,
        remoteness: Some(r),
    }
}

fn lose(r: u32) -> Outcome {
    Outcome {
        value: Value::Lose,
        remoteness: Some(r),
    }
}

/// REFERENCE.md, Isolation, table of reachable positions, row 4×4, and the
/// 4×4 average number of moves (Gao & Li).
#[test]
fn isolation_4x4_reachable_figures() {
    let g = isolation(4, 4);
    let (_dir, path) = solve_file(&g);
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let tb = unsafe { Tablebase::open_mmap(&path) }.unwrap();
    tb.verify().unwrap();
    let a = analyze(&g, &tb).unwrap();
    assert_eq!(a.reachable, 3_617_229, "reachable 4x4 ({SOURCE})");
    assert_eq!(a.primitive, 231_480, "primitive 4x4 ({SOURCE})");
    assert_eq!(
        non_primitive(&a, Value::Win),
        2_737_177,
        "non-primitive wins 4x4 ({SOURCE})"
    );
    assert_eq!(
        non_primitive(&a, Value::Lose),
        648_572,
        "non-primitive losses 4x4 ({SOURCE})"
    );
    // No draws or ties in Isolation, and every game-over position is a loss.
    assert_eq!(a.counts[Value::Tie.ordinal()], 0);
    assert_eq!(a.counts[Value::Draw.ordinal()], 0);
    assert_eq!(a.counts[Value::Lose.ordinal()], 648_572 + 231_480);
    assert_eq!(a.start, Some(win(11)), "4x4 start: win in 11 ({SOURCE})");
    assert_eq!(
        format!("{:.3}", a.average_moves()),
        "17.246",
        "average moves 4x4 ({SOURCE})"
    );
}

/// REFERENCE.md, Isolation, "4×4 examples" (Gao & Li's solver).
#[test]
fn isolation_4x4_example_positions() {
    let g = isolation(4, 4);
    let (_dir, path) = solve_file(&g);
    let tb = Tablebase::open(&path).unwrap();

    // `.0../..../..../..1.` (start): win in 11; the only winning first move
    // is 2x10, giving `..0./..../..x./..1.`, a loss in 10 for player 1.
    let start = tb.probe_text(Some(".0../..../..../..1."), true).unwrap();
    assert_eq!(start.position, g.format_position(&g.start()));
    assert_eq!(start.to_move, Some(0));
    assert!(!start.primitive);
    assert_eq!(start.outcome, win(11), "start ({SOURCE})");
    assert_eq!(start.moves.len() as u64, g.move_count(&g.start()));
    let best: Vec<_> = start.moves.iter().filter(|m| m.best).collect();
    assert_eq!(best.len(), 1, "exactly one best first move ({SOURCE})");
    assert_eq!(best[0].mv, "2x10", "the winning first move ({SOURCE})");
    assert_eq!(best[0].position, "..0./..../..x./..1.");
    assert_eq!(best[0].child, lose(10));
    assert_eq!(best[0].for_mover(), win(10));
    // It is the only winning move at all, not just the fastest one.
    let winning = start
        .moves
        .iter()
        .filter(|m| m.child.value == Value::Lose)
        .count();
    assert_eq!(winning, 1, "only one winning first move ({SOURCE})");
    // Best first: the best move is listed first.
    assert!(start.moves[0].best);
    // With no start text, the start is probed.
    assert_eq!(tb.probe_text(None, false).unwrap().outcome, win(11));

    let after = tb.probe_text(Some("..0./..../..x./..1."), false).unwrap();
    assert_eq!(after.to_move, Some(1));
    assert_eq!(after.outcome, lose(10), "after 2x10 ({SOURCE})");

    let p = tb.probe_text(Some("0.../...x/.x../...1"), false).unwrap();
    assert_eq!(p.to_move, Some(0));
    assert_eq!(p.outcome, win(7), "0.../...x/.x../...1 ({SOURCE})");

    let p = tb.probe_text(Some("0.../x.x./.1../...."), false).unwrap();
    assert_eq!(p.to_move, Some(0));
    assert_eq!(p.outcome, lose(8), "0.../x.x./.1../.... ({SOURCE})");

    // The typed probe agrees with the text probe.
    let q = g.parse_position("0.../...x/.x../...1").unwrap();
    assert_eq!(tb.probe(&g, &q).unwrap(), win(7));
}

/// Tiers are solved in parallel; the result must not depend on the thread count.
#[test]
fn isolation_4x4_same_bytes_with_one_and_two_threads() {
    let g = isolation(4, 4);
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for threads in [1, 2] {
        let path = dir.path().join(format!("t{threads}.rtb"));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress))
            .expect("solve");
        files.push(std::fs::read(&path).unwrap());
    }
    assert_eq!(files[0].len(), files[1].len());
    assert!(
        files[0] == files[1],
        "1-thread and 2-thread solves differ at byte {:?}",
        files[0].iter().zip(&files[1]).position(|(a, b)| a != b)
    );
    // And the file holds what the in-memory solve computes.
    let Solved { cells: data, .. } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let tb = Tablebase::from_bytes(&files[0]).unwrap();
    assert!(tb.data() == &data[..], "file and in-memory solves differ");
}

/// `verify::rederive` recomputes every entry from its children with the
/// game's `moves`; the 4×4 table must re-derive exactly.
#[test]
fn isolation_4x4_rederives_without_mismatch() {
    let g = isolation(4, 4);
    let (_dir, path) = solve_file(&g);
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let tb = unsafe { Tablebase::open_mmap(&path) }.unwrap();
    let r = rederive(&g, &tb).unwrap();
    assert_eq!(r.checked, g.size());
    assert_eq!(r.mismatches, 0, "first mismatches: {:?}", r.first);
    assert!(r.first.is_empty());
}

/// A flipped cell behind an intact header: `open`/`from_bytes` accepts it
/// (the header CRC is fine), `verify` reports the data checksum, and
/// `rederive` points at the entry.
#[test]
fn isolation_4x4_flipped_cell_is_caught() {
    let g = isolation(4, 4);
    let (_dir, path) = solve_file(&g);
    let mut bytes = std::fs::read(&path).unwrap();
    let (offset, codec) = {
        let tb = Tablebase::from_bytes(&bytes).unwrap();
        tb.verify().unwrap();
        (tb.header().data_offset as usize, tb.codec())
    };
    assert_eq!(codec.width(), 1, "Isolation 4x4 fits one-byte cells");
    // The start: no removed square, so no position has it as a child and the
    // damage shows at this index only.
    let index = g.encode(&g.start());
    let at = offset + index as usize;
    assert_eq!(codec.decode(u32::from(bytes[at])), Some(win(11)));
    bytes[at] = codec.encode(Value::Lose, 11).unwrap() as u8;

    let tb = Tablebase::from_bytes(bytes).expect("header still valid");
    assert_eq!(tb.probe_index(index).unwrap(), Some(lose(11)));
    assert!(
        matches!(tb.verify(), Err(Error::DataChecksum { .. })),
        "verify must report the data checksum"
    );
    let r = rederive(&g, &tb).unwrap();
    assert!(r.mismatches >= 1);
    let m = r
        .first
        .iter()
        .find(|m| m.index == index)
        .expect("the flipped index is reported");
    assert_eq!(m.stored, Some(lose(11)));
    assert_eq!(m.expected, Some(win(11)));
    assert_eq!(m.position.as_deref(), Some(".0../..../..../..1."));
    assert_eq!(r.mismatches, 1, "only the flipped entry: {:?}", r.first);
}

/// REFERENCE.md, Isolation, table of reachable positions, row 4×5 (Gao & Li):
/// 97,976,968 reachable, start win in 13. Minutes and ~100 MB of disk; run
/// with `cargo test --release --test oracle figures:: -- --ignored`.
#[test]
#[ignore = "slow: cargo test --release -- --ignored"]
fn isolation_4x5_reachable_figures() {
    let g = isolation(4, 5);
    let (_dir, path) = solve_file(&g);
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let tb = unsafe { Tablebase::open_mmap(&path) }.unwrap();
    let a = analyze(&g, &tb).unwrap();
    assert_eq!(a.reachable, 97_976_968, "reachable 4x5 ({SOURCE})");
    assert_eq!(a.start, Some(win(13)), "4x5 start: win in 13 ({SOURCE})");
}
