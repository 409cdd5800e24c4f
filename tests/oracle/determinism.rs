//! The solver's output does not depend on the number of threads: for a small
//! instance of every registered game (and the variants with their own code
//! paths: misère, nimbers, symmetry folding, a loopy game), the table solved
//! in a pool of one thread and in a pool of two is the same, byte for byte.
//!
//! The list is driven by `retrograde::games::GAMES`: a newly registered game
//! is solved at its example spec when that is small, and the test fails if
//! it is too large and no small instance is named here.

use retrograde::games::{AnyGame, GAMES};
use retrograde::solve::{solve_in_memory, SolveOptions, Solved};
use retrograde::{Game, TableKind};

/// Largest index solved here per game and thread count (the whole test
/// should take seconds).
const MAX_ENTRIES: u64 = 1 << 22;

/// Small instances, by game name, for games whose example is too large, and
/// extra variants that take other paths through the solver.
const SMALL: &[(&str, &str, TableKind)] = &[
    ("isolation", "isolation:3x4", TableKind::Value),
    (
        "isolation",
        "isolation:3x3:a=0,b=8:misere",
        TableKind::Value,
    ),
    ("subtraction", "subtraction:500:1,3,4", TableKind::Value),
    (
        "subtraction",
        "subtraction:500:2,5,6:misere",
        TableKind::Value,
    ),
    ("subtraction", "subtraction:500:1,3,4", TableKind::Nimber),
    ("digits", "digits:500", TableKind::Value),
    ("digits", "digits:500", TableKind::Nimber),
    ("mnk", "mnk:3x3x3", TableKind::Value),
    ("mnk", "mnk:3x4x3", TableKind::Value),
    ("pattern", "pattern:games/cube.txt", TableKind::Value),
    ("connect", "connect:4x4", TableKind::Value),
    ("connect", "connect:4x3x3:misere", TableKind::Value),
    ("sogo", "sogo:2", TableKind::Value),
    ("cram", "cram:4x4", TableKind::Value),
    ("cram", "cram:4x4", TableKind::Nimber),
    ("cram", "cram:3x4:misere", TableKind::Value),
    ("dodgem", "dodgem:3", TableKind::Value),
];

fn parse(spec: &str) -> AnyGame {
    // Pattern files are named relative to the crate root.
    let spec = match spec.strip_prefix("pattern:") {
        Some(path) if !path.contains('=') => {
            format!(
                "pattern:{}/{path}",
                concat!(env!("CARGO_MANIFEST_DIR"), "/..")
            )
        }
        _ => spec.to_string(),
    };
    AnyGame::parse(&spec).unwrap_or_else(|e| panic!("{e}"))
}

/// Every instance to solve: each registered game's example if it is small,
/// the instances above, and folded isolation.
fn instances() -> Vec<(String, AnyGame, TableKind)> {
    let mut out = Vec::new();
    for info in GAMES {
        let example = parse(info.example_spec);
        let named = SMALL.iter().any(|(n, _, _)| *n == info.name);
        if example.size() <= MAX_ENTRIES {
            out.push((info.example_spec.to_string(), example, TableKind::Value));
        } else {
            assert!(
                named,
                "game {}: the example {} has {} entries, too many to solve here; add a small instance to SMALL",
                info.name,
                info.example_spec,
                example.size()
            );
        }
    }
    for (name, spec, kind) in SMALL {
        assert!(
            GAMES.iter().any(|g| g.name == *name),
            "{name} is not a registered game"
        );
        let g = parse(spec);
        assert!(
            g.spec().starts_with(&format!("{name}:")),
            "{spec} is not a {name} game"
        );
        assert!(g.size() <= MAX_ENTRIES, "{spec} is too large for this test");
        out.push((format!("{spec} ({kind:?})"), g, *kind));
    }
    let folded = parse("isolation:4x4").folded().unwrap();
    assert!(folded.size() <= MAX_ENTRIES);
    out.push(("isolation:4x4 folded".into(), folded, TableKind::Value));
    out
}

fn solve(g: &AnyGame, kind: TableKind, threads: usize) -> (Vec<u8>, String) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let options = SolveOptions {
        checkpoint_interval: None,
        ..SolveOptions::with_kind(kind)
    };
    pool.install(|| {
        retrograde::with_game!(g, x => {
            let Solved { cells: table, codec, summary } = solve_in_memory(x, &options)
                .unwrap_or_else(|e| panic!("{}: {e}", x.spec()));
            (table, format!("{codec:?} {summary:?}"))
        })
    })
}

#[test]
fn every_game_solves_to_the_same_bytes_on_one_and_two_threads() {
    let list = instances();
    for (what, g, kind) in &list {
        let started = std::time::Instant::now();
        let (one, sum1) = solve(g, *kind, 1);
        let (two, sum2) = solve(g, *kind, 2);
        assert_eq!(one.len() as u64 % g.size(), 0, "{what}");
        assert!(one == two, "{what}: 1 and 2 threads give different tables");
        assert_eq!(sum1, sum2, "{what}");
        // Not a trivially empty table.
        assert!(one.iter().any(|&b| b != 0), "{what}");
        eprintln!("{what}: {} entries, {:?}", g.size(), started.elapsed());
    }
    for info in GAMES {
        assert!(
            list.iter()
                .any(|(_, g, _)| g.spec().starts_with(&format!("{}:", info.name))),
            "registered game {} was not solved",
            info.name
        );
    }
}
