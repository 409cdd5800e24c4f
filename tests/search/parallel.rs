//! df-pn with several threads on one table: the value never depends on the
//! thread count (against the plain negamax reference and the tables, at 1,
//! 2 and 4 threads, every family), and the node budget, the time limit, the
//! cancel token, saving, openings and loading behave as with one thread.
//! Every search here lets the threads join from its first node
//! (`warm_up: 0`), so small positions exercise the shared table too.

use crate::common;
use crate::engine::playout_positions;
use retrograde::internal::search::{TableLeaves, ValueLeaves};
use retrograde::search::dfpn::Dfpn;
use retrograde::search::engine::{DfpnOptions, Options};
use retrograde::search::games::AnySearch;
use retrograde::search::proofdb::{self, Fact, Kind};
use retrograde::search::run::{self, Engine, Notice, Observer, Quiet, SearchOptions};
use retrograde::search::{reference, Cancel, SearchGame, Stop};
use retrograde::{with_search, Value};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const THREADS: [usize; 3] = [1, 2, 4];

fn with_threads(threads: usize, memory: u64) -> Options {
    Options {
        memory,
        threads,
        dfpn: DfpnOptions {
            warm_up: 0,
            ..DfpnOptions::default()
        },
        ..Options::default()
    }
}

/// Every position of a few random games, proven at each thread count (by a
/// search shared across the positions, and every third one by a fresh
/// search with a 64 KiB table that forces replacement under the threads),
/// against the negamax value; each best move keeps the value.
fn threads_match_negamax<G: SearchGame>(g: &G, games: usize) -> usize {
    let positions: Vec<_> = playout_positions(g, games, 0x7ead)
        .into_iter()
        .map(|p| {
            let v = reference::value(g, &p);
            (p, v)
        })
        .collect();
    for threads in THREADS {
        let mut shared = Dfpn::new(g, with_threads(threads, 4 << 20));
        for (i, (p, expect)) in positions.iter().enumerate() {
            let shown = || format!("{}: {} ({threads} threads)", g.spec(), g.format_position(p));
            if i % 3 == 0 {
                let proof = Dfpn::new(g, with_threads(threads, 64 << 10)).prove(p);
                assert_eq!(proof.value, Some(*expect), "{} (tiny table)", shown());
            }
            let proof = shared.prove(p);
            assert_eq!(proof.value, Some(*expect), "{}", shown());
            if let Some(m) = proof.best_move {
                let child = g
                    .moves(p)
                    .into_iter()
                    .find(|(mv, _)| g.format_move(mv) == g.format_move(&m))
                    .expect("the best move is a legal move")
                    .1;
                assert_eq!(
                    reference::value(g, &child),
                    expect.flip(),
                    "{}: best move",
                    shown()
                );
            }
        }
    }
    positions.len()
}

#[test]
fn threads_agree_with_negamax_on_every_family() {
    for (spec, games) in [
        ("tictactoe", 20),
        ("mnk:3x4x3", 10),
        ("connect:4x4", 5),
        ("connect:4x4:misere", 5),
        ("sogo:2", 10),
        ("subtraction:40:1,3,4", 3),
        ("digits:60", 3),
        ("cram:3x4", 10),
        ("isolation:3x3", 10),
        ("isolation:3x3:misere", 5),
    ] {
        let g = AnySearch::parse_table_rules(spec).unwrap();
        let n = with_search!(&g, g => threads_match_negamax(g, games));
        assert!(n > games, "{spec}: {n} positions");
    }
}

/// The search's own board representations (bitboards), not the table
/// rules, with threads.
#[test]
fn threads_agree_with_negamax_on_the_fast_representations() {
    for (spec, games) in [
        ("mnk:3x4x3", 10),
        ("connect:4x4", 5),
        ("sogo:2", 10),
        ("cram:3x4", 10),
    ] {
        let g = AnySearch::parse(spec).unwrap();
        assert!(!matches!(g, AnySearch::Table(_)), "{spec}");
        let n = with_search!(&g, g => threads_match_negamax(g, games));
        assert!(n > games, "{spec}: {n} positions");
    }
}

#[test]
fn threads_agree_with_tables_on_random_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, games) in [
        ("connect:5x4", 10),
        ("isolation:3x4", 10),
        ("mnk:4x4x3", 10),
        ("cram:4x4", 10),
    ] {
        let file = dir.path().join(format!("{}.rtb", spec.replace(':', "-")));
        common::solve(spec, &file, &[]);
        let leaves = TableLeaves::open(&[&file]).unwrap();
        let g = AnySearch::parse(spec).unwrap();
        with_search!(&g, g => {
            let positions = playout_positions(g, games, 0x5a5a);
            for threads in THREADS {
                let mut shared = Dfpn::new(g, with_threads(threads, 4 << 20));
                for p in &positions {
                    let table = leaves.value(g, p).expect("the table holds every legal position");
                    let proof = shared.prove(p);
                    assert_eq!(proof.value, Some(table), "{spec}: {} ({threads} threads)", g.format_position(p));
                }
            }
        });
    }
}

/// Whole proofs of published values (REFERENCE.md) with threads from the
/// first node, and with the default warm-up.
#[test]
fn threads_prove_published_values() {
    for (spec, expect) in [
        ("connect:5x4", Value::Tie),
        ("connect:6x4", Value::Lose),
        ("mnk:4x4x4", Value::Tie),
        ("pattern:games/qango6.txt", Value::Win),
    ] {
        let g = AnySearch::parse(spec).unwrap();
        for options in [
            with_threads(2, 64 << 20),
            with_threads(4, 64 << 20),
            Options {
                threads: 2,
                memory: 64 << 20,
                ..Options::default()
            },
        ] {
            let threads = options.threads;
            let (value, used) = with_search!(&g, g => {
                let proof = Dfpn::new(g, options).prove(&g.start());
                (proof.value, proof.stats.threads)
            });
            assert_eq!(value, Some(expect), "{spec} ({threads} threads)");
            assert_eq!(used, threads);
        }
    }
}

#[test]
fn the_node_budget_is_exact_with_threads() {
    let g = AnySearch::parse("connect:6x4").unwrap();
    with_search!(&g, g => {
        for threads in [2, 4] {
            for limit in [1, 7, 1000, 1025, 20_000] {
                let options = Options { node_limit: Some(limit), ..with_threads(threads, 8 << 20) };
                let mut dfpn = Dfpn::new(g, options);
                let proof = dfpn.prove(&g.start());
                assert_eq!(proof.value, None);
                assert_eq!(proof.stop, Some(Stop::Nodes), "{limit} ({threads} threads)");
                assert_eq!(proof.stats.nodes, limit, "{threads} threads");
                // Spent is spent: a second question expands nothing.
                let (_, child) = g.moves(&g.start()).swap_remove(0);
                let again = dfpn.prove(&child);
                assert_eq!(again.stats.nodes, limit);
            }
        }
    });
    // Through the command line, with the default warm-up.
    let o = common::run(&[
        "search",
        "connect:6x4",
        "--nodes",
        "30000",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["nodes"], 30000);
    assert_eq!(j["stopped"], "nodes");
    assert_eq!(j["threads"], 2);
}

#[test]
fn time_and_cancel_stop_every_thread() {
    let g = AnySearch::parse("connect:7x6").unwrap();
    with_search!(&g, g => {
        let started = Instant::now();
        let options = Options { time_limit: Some(Duration::from_millis(300)), ..with_threads(4, 64 << 20) };
        let proof = Dfpn::new(g, options).prove(&g.start());
        assert_eq!(proof.stop, Some(Stop::Time));
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());

        let cancel = Cancel::new();
        let handle = cancel.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            handle.cancel();
        });
        let started = Instant::now();
        let options = Options { cancel, ..with_threads(4, 64 << 20) };
        let proof = Dfpn::new(g, options).prove(&g.start());
        canceller.join().unwrap();
        assert_eq!(proof.stop, Some(Stop::Requested));
        assert_eq!(proof.value, None);
        assert!(proof.stats.nodes > 0);
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    });
}

/// A search with threads saves every position it proved, as one thread
/// does: the database re-proves entry by entry and holds the root's value.
#[test]
fn a_search_with_threads_saves_a_database_that_checks() {
    let dir = tempfile::tempdir().unwrap();
    let game = AnySearch::parse("connect:5x4").unwrap();
    for threads in [1, 2, 4] {
        let path = dir.path().join(format!("t{threads}.proof"));
        let options = SearchOptions {
            memory: Some(16 << 20),
            threads,
            save: Some(path.clone()),
            ..SearchOptions::default()
        };
        let report = run::run(&game, &options, &Quiet).unwrap();
        assert_eq!(report.results[0].value(), Some(Value::Tie));
        let saved = report.saved.unwrap().unwrap();
        assert!(saved.entries > 1000, "{}", saved.entries);
        let check = SearchOptions {
            memory: Some(16 << 20),
            threads,
            ..SearchOptions::default()
        };
        let outcome = run::check(&game, &path, &check, &Quiet).unwrap();
        assert_eq!(
            outcome.report.checked, saved.entries as u64,
            "{threads} threads"
        );
        assert_eq!(
            outcome.entry,
            Some(Fact::Value(retrograde::search::Bounds { lo: 0, hi: 0 }))
        );
        // And a search loading it starts from it.
        let load = SearchOptions {
            memory: Some(16 << 20),
            threads,
            load: vec![path.clone()],
            ..SearchOptions::default()
        };
        let again = run::run(&game, &load, &Quiet).unwrap();
        assert_eq!(again.results[0].value(), Some(Value::Tie));
        // df-pn answers the root from the database; alpha-beta (`auto`'s
        // engine on connect) searches the root for its move, each child
        // answered from the database: two probes (win? not lose?) of the
        // root and its five children at most.
        let most = match again.engine {
            Some(Engine::AlphaBeta) => 12,
            _ => 0,
        };
        assert!(
            again.results[0].nodes <= most,
            "answered from the database: {} nodes",
            again.results[0].nodes
        );
        let dfpn = SearchOptions {
            engine: Engine::Dfpn,
            ..load
        };
        let again = run::run(&game, &dfpn, &Quiet).unwrap();
        assert_eq!(again.results[0].value(), Some(Value::Tie));
        assert_eq!(again.results[0].nodes, 0, "answered from the database");
    }
}

#[test]
fn openings_have_the_same_values_at_every_thread_count() {
    let game = AnySearch::parse("connect:5x4").unwrap();
    let mut seen = Vec::new();
    for threads in THREADS {
        let options = SearchOptions {
            memory: Some(16 << 20),
            threads,
            openings: Some(2),
            ..SearchOptions::default()
        };
        let report = run::run(&game, &options, &Quiet).unwrap();
        assert!(report.proven);
        let values: Vec<_> = report
            .results
            .iter()
            .map(|r| (r.position.clone(), r.value()))
            .collect();
        assert!(values.len() > 5, "{values:?}");
        seen.push(values);
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
    // Each opening's value is the table rules' negamax value.
    let rules = AnySearch::parse_table_rules("connect:5x4").unwrap();
    with_search!(&rules, g => {
        for (pos, v) in &seen[0] {
            let p = g.parse_position(pos).unwrap();
            assert_eq!(Some(reference::value(g, &p)), *v, "{pos}");
        }
    });
}

/// Collects the periodic saves' notices and, at each, loads and re-proves
/// the file as it is on disk at that moment, while the search goes on.
struct Watcher<'a> {
    game: &'a AnySearch,
    path: std::path::PathBuf,
    seen: Mutex<Vec<(usize, u64)>>,
}

impl Observer for Watcher<'_> {
    fn notice(&self, notice: &Notice) {
        let Notice::Saved(saved) = notice else {
            panic!("unexpected notice: {notice}");
        };
        assert_eq!(saved.path, self.path);
        let checked = with_search!(self.game, g => {
            let (kind, records) = proofdb::load(g, &self.path).expect("a whole database");
            assert_eq!(kind, Kind::Values);
            assert_eq!(records.len(), saved.entries);
            let db = proofdb::merge(g, vec![(self.path.clone(), records)]).unwrap();
            let mut fresh = Dfpn::new(g, Options { memory: 16 << 20, ..Options::default() });
            let report = proofdb::verify_values(g, &db, &mut fresh, &|| false).expect("every entry holds");
            assert_eq!(report.unchecked, 0);
            report.checked
        });
        self.seen.lock().unwrap().push((saved.entries, checked));
    }
}

/// `save_every`: while a search runs, the output is now and then a whole
/// database (loadable, every entry re-provable), the last one at the end.
#[test]
fn periodic_saves_leave_whole_checkable_databases() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("every.proof");
    let game = AnySearch::parse("connect:6x4").unwrap();
    for threads in [1, 2] {
        let _ = std::fs::remove_file(&path);
        let watcher = Watcher {
            game: &game,
            path: path.clone(),
            seen: Mutex::new(Vec::new()),
        };
        let options = SearchOptions {
            memory: Some(64 << 20),
            threads,
            save: Some(path.clone()),
            save_every: Some(Duration::from_millis(200)),
            time_limit: Some(Duration::from_secs(3)),
            ..SearchOptions::default()
        };
        let report = run::run(&game, &options, &watcher).unwrap();
        let seen = watcher.seen.into_inner().unwrap();
        assert!(seen.len() >= 2, "{threads} threads: {seen:?}");
        for (entries, checked) in &seen {
            assert_eq!(*entries as u64, *checked);
        }
        // The final save, and nothing beside it.
        let last = report.saved.unwrap().unwrap();
        assert!(
            last.entries >= seen[0].0,
            "{} < {}",
            last.entries,
            seen[0].0
        );
        let names = common::names(dir.path());
        assert_eq!(names, ["every.proof"], "{names:?}");
    }
}

/// The progress lines of a search with threads name the question being
/// proved (they once said "not lose?" while the first question, "win?",
/// was still under way) and count every thread's nodes.
// It once failed under load: the main thread, asking to double the shared
// table, waited for a write lock that the other thread (having doubled it
// and read-locked it again first) never gave up, and so never reported —
// fixed in `tt::Shared::maintain`.
#[test]
fn progress_with_threads_names_the_question() {
    let g = AnySearch::parse("connect:7x6").unwrap();
    with_search!(&g, g => {
        let seen = Mutex::new(Vec::new());
        // Reports come about once a second from the main thread: 5 s leaves
        // it room for one on a machine busy with other tests (2.5 s once
        // saw none in CI).
        let options = Options { time_limit: Some(Duration::from_secs(5)), ..with_threads(2, 64 << 20) };
        let proof = Dfpn::new(g, options)
            .with_progress(|s| seen.lock().unwrap().push((s.target, s.threads, s.nodes)))
            .prove(&g.start());
        assert_eq!(proof.stop, Some(Stop::Time));
        let seen = seen.into_inner().unwrap();
        assert!(!seen.is_empty());
        for (target, threads, nodes) in &seen {
            assert_eq!((*target, *threads), (1, 2), "{seen:?}");
            assert!(*nodes <= proof.stats.nodes, "{seen:?}");
        }
    });
}
