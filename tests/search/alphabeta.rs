//! The alpha-beta engine against the plain negamax reference, df-pn and
//! the tables, position by position, on every family, at 1, 2 and 4
//! threads, through the generic search and the gravity boards' own.

use crate::common;
use crate::engine::playout_positions;
use retrograde::internal::search::{TableLeaves, ValueLeaves};
use retrograde::search::alphabeta::AlphaBeta;
use retrograde::search::dfpn::Dfpn;
use retrograde::search::engine::{AlphaBetaOptions, Options};
use retrograde::search::games::AnySearch;
use retrograde::search::{reference, SearchGame, Stop};
use retrograde::{with_search, Value};

/// A small table, so that it grows and its entries are replaced.
fn options(threads: usize, native: bool) -> Options {
    Options {
        memory: 4 << 20,
        threads,
        alphabeta: AlphaBetaOptions { native },
        ..Options::default()
    }
}

/// Checks alpha-beta's value and best move on positions of random games
/// against the reference, at 1, 2 and 4 threads, through the game's own
/// search and the generic one: one engine shared by the positions (so
/// proofs meet entries other proofs left) and, for every seventh, a fresh
/// one.
fn agrees_with_negamax<G: SearchGame>(g: &G, games: usize) -> usize {
    let positions: Vec<(G::Pos, Value)> = playout_positions(g, games, 0x5eed)
        .into_iter()
        .map(|p| {
            let v = reference::value(g, &p);
            (p, v)
        })
        .collect();
    for (threads, native) in [(1, true), (2, true), (4, true), (1, false), (2, false)] {
        let mut shared = AlphaBeta::new(g, options(threads, native));
        for (i, (p, expect)) in positions.iter().enumerate() {
            let proof = if i % 7 == 3 {
                AlphaBeta::new(g, options(threads, native)).prove(p)
            } else {
                shared.prove(p)
            };
            let text = g.format_position(p);
            let at = format!("{} {text} ({threads} threads, native {native})", g.spec());
            assert_eq!(proof.value, Some(*expect), "{at}");
            match &proof.best_move {
                Some(m) => {
                    let child = g
                        .moves(p)
                        .into_iter()
                        .find(|(mv, _)| g.format_move(mv) == g.format_move(m))
                        .expect("the best move is a legal move")
                        .1;
                    assert_eq!(
                        reference::value(g, &child),
                        expect.flip(),
                        "{at}: best move"
                    );
                }
                None => assert!(
                    *expect == Value::Lose || g.terminal(p).is_some(),
                    "{at}: no best move for a {expect}"
                ),
            }
        }
    }
    positions.len()
}

const FAMILIES: [(&str, usize); 12] = [
    ("tictactoe", 20),
    ("mnk:3x4x3", 10),
    ("connect:4x4", 6),
    ("connect:4x4:misere", 4),
    ("connect:5x4x3", 4),
    ("sogo:2", 10),
    ("subtraction:40:1,3,4", 3),
    ("digits:60", 3),
    ("cram:3x4", 10),
    ("isolation:3x3", 10),
    ("isolation:3x3:misere", 6),
    ("pattern:games/cube.txt", 8),
];

#[test]
fn alphabeta_agrees_with_negamax_on_every_family_and_thread_count() {
    for (spec, games) in FAMILIES {
        // Every representation of the spec: the gravity boards (their own
        // search and the generic one), the generic bitboards, the table
        // rules.
        for g in AnySearch::parse_all(spec).unwrap() {
            let n = with_search!(&g, g => agrees_with_negamax(g, games));
            assert!(n > games, "{spec}: {n} positions");
        }
    }
}

#[test]
fn alphabeta_agrees_with_dfpn_and_tables_on_random_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, games, all) in [
        ("connect:5x4", 12, true),
        ("mnk:4x4x3", 12, true),
        ("isolation:3x4", 12, true),
        ("connect:5x4x3", 12, true),
    ] {
        let file = dir.path().join(format!("{}.rtb", spec.replace(':', "-")));
        common::solve(spec, &file, &[]);
        let leaves = TableLeaves::open(&[&file]).unwrap();
        let reps = AnySearch::parse_all(spec).unwrap();
        let count = if all { reps.len() } else { 1 };
        for g in reps.into_iter().take(count) {
            with_search!(&g, g => {
                let positions = playout_positions(g, games, 0xab);
                let mut pn = Dfpn::new(g, Options { memory: 16 << 20, ..Options::default() });
                let values: Vec<Value> = positions
                    .iter()
                    .map(|p| {
                        let table = leaves.value(g, p).expect("the table holds every legal position");
                        assert_eq!(pn.prove(p).value, Some(table), "{spec}: df-pn");
                        table
                    })
                    .collect();
                for threads in [1, 2, 4] {
                    let mut ab = AlphaBeta::new(g, options(threads, true));
                    for (p, &table) in positions.iter().zip(&values) {
                        let proof = ab.prove(p);
                        assert_eq!(proof.value, Some(table), "{spec}: {} ({threads} threads)", g.format_position(p));
                    }
                }
                // With the table as leaves the root's children are read.
                let proof = AlphaBeta::new(g, options(2, true)).with_leaves(&leaves).prove(&g.start());
                assert_eq!(proof.value, leaves.value(g, &g.start()));
                assert!(proof.stats.leaf_hits >= 1, "{spec}");
            });
        }
    }
}

#[test]
fn the_node_budget_is_exact_and_a_stop_proves_nothing() {
    let g = AnySearch::parse("connect:7x6").unwrap();
    with_search!(&g, g => {
        for threads in [1, 2, 4] {
            for native in [true, false] {
                let budget = Options { node_limit: Some(50_000), ..options(threads, native) };
                let mut ab = AlphaBeta::new(g, budget);
                let proof = ab.prove(&g.start());
                assert_eq!(proof.value, None);
                assert_eq!(proof.stop, Some(Stop::Nodes));
                assert_eq!(proof.stats.nodes, 50_000, "{threads} threads, native {native}");
                // Stopped stays stopped.
                assert_eq!(ab.prove(&g.start()).value, None);
            }
        }
        let timed = Options { time_limit: Some(std::time::Duration::from_millis(200)), ..options(2, true) };
        let proof = AlphaBeta::new(g, timed).prove(&g.start());
        assert_eq!(proof.stop, Some(Stop::Time));
        let cancel = retrograde::search::Cancel::new();
        cancel.cancel();
        let cancelled = Options { cancel, ..options(2, true) };
        let proof = AlphaBeta::new(g, cancelled).prove(&g.start());
        assert_eq!(proof.stop, Some(Stop::Requested));
    });
}

/// Positions from Pons' published test sets ("Test_L*_R*" of his
/// benchmark, here a few of each set with his exact scores), proven as
/// win, loss or tie from the score's sign, at 1 and 2 threads.
#[test]
fn pons_test_positions() {
    // (moves, score): score > 0 the mover wins, 0 a tie, < 0 a loss.
    const POSITIONS: [(&str, i32); 12] = [
        ("32164625", 11),
        ("6146", 18),
        ("243335424257", 12),
        ("32751571231557", -3),
        ("335662333565", -2),
        ("2416615552", 4),
        ("5554224333234511764415115", 4),
        ("52753311433677442422121", 8),
        ("1233722555341451114725221333", -1),
        ("274552224131661", 0),
        ("5455174361263362", -1),
        ("2252576253462244111563365343671351441", -1),
    ];
    let g = AnySearch::parse("connect:7x6").unwrap();
    with_search!(&g, g => {
        for threads in [1, 2] {
            let mut ab = AlphaBeta::new(g, Options { memory: 64 << 20, threads, ..Options::default() });
            for (moves, s) in POSITIONS {
                let p = g.parse_position(moves).unwrap();
                let expect = match s.signum() {
                    1 => Value::Win,
                    0 => Value::Tie,
                    _ => Value::Lose,
                };
                assert_eq!(ab.prove(&p).value, Some(expect), "{moves}");
            }
        }
    });
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = common::run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `search --engine alphabeta` keeps `--save`, `--load`, `--check` and
/// `--openings`: what it saves are its table's proofs, which both engines
/// re-prove, and a database either engine saved loads into the other.
#[test]
fn alphabeta_proof_databases_and_openings() {
    let dir = tempfile::tempdir().unwrap();
    let ab_db = dir.path().join("ab.proof");
    let pn_db = dir.path().join("pn.proof");
    let (ab_db, pn_db) = (ab_db.to_str().unwrap(), pn_db.to_str().unwrap());
    let base = ["search", "connect:5x4", "--json", "--memory", "16M"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |extra: &[&str]| {
        let args = with(extra);
        json(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let first = run(&["--engine", "alphabeta", "--threads", "2", "--save", ab_db]);
    assert_eq!(first["value"], "tie");
    assert_eq!(first["engine"], "alphabeta");
    assert_eq!(first["threads"], 2);
    let saved = first["saved"].as_u64().unwrap();
    assert!(saved > 1000, "{first}");
    run(&["--engine", "dfpn", "--save", pn_db]);
    for engine in ["alphabeta", "dfpn"] {
        for db in [ab_db, pn_db] {
            let again = run(&["--engine", engine, "--load", db]);
            assert_eq!(again["value"], "tie", "{engine} {db}");
            assert!(again["loaded"].as_u64().unwrap() > 1000, "{again}");
            let check = run(&["--engine", engine, "--check", db]);
            assert_eq!(check["entry"], "tie", "{engine} {db}");
            assert!(check["checked"].as_u64().unwrap() > 1000, "{check}");
        }
    }
    let check = run(&["--engine", "alphabeta", "--check", ab_db]);
    assert_eq!(check["checked"].as_u64().unwrap(), saved);
    // The openings' values are df-pn's.
    let ab = run(&["--engine", "alphabeta", "--openings", "2"]);
    let pn = run(&["--engine", "dfpn", "--openings", "2"]);
    let values = |j: &serde_json::Value| -> Vec<(String, String)> {
        j["openings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["position"].to_string(), o["value"].to_string()))
            .collect()
    };
    assert_eq!(values(&ab), values(&pn));
    assert!(values(&ab).len() >= 8);
    // The default (auto) is alpha-beta on a gravity board, df-pn elsewhere
    // and whenever an ε is given.
    assert_eq!(run(&[])["engine"], "alphabeta");
    assert_eq!(run(&["--epsilon", "0.5"])["engine"], "dfpn");
    let ttt = json(&["search", "tictactoe", "--json", "--memory", "1M"]);
    assert_eq!(ttt["engine"], "dfpn");
}

#[test]
fn alphabeta_limits_and_bad_options() {
    // Exactly the budget, at any thread count; exit 3, not proven.
    for threads in ["1", "2", "4"] {
        let o = common::run(&[
            "search",
            "connect:7x6",
            "--engine",
            "alphabeta",
            "--threads",
            threads,
            "--nodes",
            "30000",
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(3));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["nodes"], 30000, "{j}");
        assert_eq!(j["stopped"], "nodes");
        assert_eq!(j["proven"], false);
    }
    for (args, needle) in [
        (&["--threads", "0"][..], "--threads"),
        (
            &["--engine", "alphabeta", "--epsilon", "1"][..],
            "alpha-beta has no",
        ),
        (&["--engine", "quick"][..], "quick"),
    ] {
        let mut all = vec!["search", "connect:4x4"];
        all.extend_from_slice(args);
        let o = common::run(&all);
        assert!(!o.status.success(), "{all:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{all:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let o = common::run(&["search", "cram:3x4", "--nimber", "--engine", "alphabeta"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--nimber computes nimbers"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// Positions of `sogo:4` with `lo..=hi` stones (as many of each), every
/// move a random one that completes no line: late positions, each still
/// open.
fn sogo4_late(
    g: &retrograde::internal::search::Occupy<1>,
    count: usize,
    lo: u32,
    hi: u32,
    seed: u64,
) -> Vec<retrograde::internal::search::OccupyPos<1>> {
    let mut rng = crate::engine::Rng(seed | 1);
    let mut out = Vec::new();
    while out.len() < count {
        let stones = lo + (out.len() as u32 % (hi - lo + 1));
        let mut p = g.start();
        let mut ok = true;
        for _ in 0..stones {
            let open: Vec<_> = g
                .moves(&p)
                .into_iter()
                .filter(|(_, c)| g.terminal(c).is_none())
                .collect();
            if open.is_empty() {
                ok = false;
                break;
            }
            p = open[rng.below(open.len())].1;
        }
        if ok {
            out.push(p);
        }
    }
    out
}

/// Sogo's 4×4×4 cube has its own alpha-beta search (64 cells on one word,
/// the field's forced-move rules, a two-word table): its values equal
/// df-pn's (the generic bitboards') on late positions of random games, and
/// plain negamax's on the latest, at 1 and 2 threads, with one engine
/// shared by the positions and with fresh small ones; its best moves are
/// moves to a position of the opposite value.
#[test]
fn sogo4_cube_agrees_with_dfpn_and_negamax() {
    let g = match AnySearch::parse("sogo:4").unwrap() {
        AnySearch::Sogo(g) => g,
        _ => panic!("sogo:4 is not on the generic bitboards"),
    };
    assert!(retrograde::search::alphabeta::preferred(&g));
    let positions = sogo4_late(&g, 120, 32, 53, 0x50c0);
    let mut pn = Dfpn::new(&g, Options::default());
    let values: Vec<Value> = positions
        .iter()
        .map(|p| {
            let v = pn.prove(p).value.expect("df-pn proves late positions");
            if p.occupied()[0].count_ones() >= 52 {
                assert_eq!(reference::value(&g, p), v, "{}", g.format_position(p));
            }
            v
        })
        .collect();
    let mut seen = [0; 3];
    for threads in [1, 2] {
        let mut shared = AlphaBeta::new(&g, options(threads, true));
        for (i, (p, &expect)) in positions.iter().zip(&values).enumerate() {
            let proof = if i % 5 == 2 {
                AlphaBeta::new(&g, options(threads, true)).prove(p)
            } else {
                shared.prove(p)
            };
            let at = format!("{} ({threads} threads)", g.format_position(p));
            assert_eq!(proof.value, Some(expect), "{at}");
            seen[(retrograde::search::score(expect) + 1) as usize] += 1;
            match &proof.best_move {
                Some(m) => {
                    let child = g
                        .moves(p)
                        .into_iter()
                        .find(|(mv, _)| mv == m)
                        .expect("the best move is a legal move")
                        .1;
                    let v = match g.terminal(&child) {
                        Some(v) => v,
                        None => pn.prove(&child).value.unwrap(),
                    };
                    assert_eq!(v, expect.flip(), "{at}: best move");
                }
                None => assert_eq!(expect, Value::Lose, "{at}: no best move"),
            }
        }
    }
    // Wins and losses both met (a tie is rare this late in random play).
    assert!(seen[0] >= 10 && seen[2] >= 10, "{seen:?}");
}
