//! What bounds a search, and that each bound holds: the depth of a line
//! (heap, not call stack), the node budget (exactly), the stop flag in
//! every loop, the options each mode honours or refuses, and the exit
//! statuses.

use crate::common::bin;
use retrograde::internal::search::Dfpn;
use retrograde::search::engine::Options;
use retrograde::search::games::AnySearch;
use retrograde::search::nimber::NimberSearch;
use retrograde::search::{Bounds, SearchGame, Stop};
use retrograde::{with_search, Value};
use std::process::Output;
use std::time::{Duration, Instant};

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run retrograde")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `f` on a thread with a small stack (256 KiB): a search whose depth
/// used the call stack overflowed it and aborted the process (a
/// `subtraction:100000:1` line is 100,000 plies deep).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// The nimbers of the digit game 0..=n bottom up (from n, subtract one of
/// its non-zero digits): an oracle with no search in it.
fn digit_nimbers(n: usize) -> Vec<u32> {
    let mut g = vec![0u32; n + 1];
    for i in 1..=n {
        let mut seen = [false; 11];
        let mut m = i;
        while m > 0 {
            let d = m % 10;
            if d != 0 {
                seen[g[i - d] as usize] = true;
            }
            m /= 10;
        }
        g[i] = seen.iter().position(|s| !s).unwrap() as u32;
    }
    g
}

#[test]
fn a_line_100000_plies_deep_needs_heap_not_stack() {
    on_small_stack(|| {
        // Only 1 can be taken: the pile's parity decides.
        let g = AnySearch::parse("subtraction:100000:1").unwrap();
        with_search!(&g, g => {
            let proof = Dfpn::new(g, Options { memory: 16 << 20, ..Options::default() })
                .prove(&g.start());
            assert_eq!(proof.value, Some(Value::Lose));
            assert_eq!(proof.stats.deepest, 100_000);
            let n = NimberSearch::new(g, &Options::with_memory(16 << 20)).nimber(&g.start());
            assert_eq!(n, Some(0));
        });
        let g = AnySearch::parse("subtraction:99999:1").unwrap();
        with_search!(&g, g => {
            let proof = Dfpn::new(g, Options { memory: 16 << 20, ..Options::default() })
                .prove(&g.start());
            assert_eq!(proof.value, Some(Value::Win));
        });
        let n = 200_000;
        let expect = digit_nimbers(n);
        let g = AnySearch::parse(&format!("digits:{n}")).unwrap();
        with_search!(&g, g => {
            let mut search = NimberSearch::new(g, &Options::with_memory(256 << 20));
            for start in [n, n - 1, 123_457] {
                let p = g.parse_position(&start.to_string()).unwrap();
                assert_eq!(search.nimber(&p), Some(expect[start]), "digits from {start}");
            }
            assert!(search.stats().deepest > 10_000);
        });
    });
}

#[test]
fn a_line_deeper_than_the_path_may_hold_stops_with_a_reason() {
    // 1 MiB of table: the path may hold 64 MiB, some 700,000 plies of a
    // one-move line, short of 2,000,000.
    let g = AnySearch::parse("subtraction:2000000:1").unwrap();
    with_search!(&g, g => {
        let mut dfpn = Dfpn::new(g, Options { memory: 1 << 20, ..Options::default() });
        let proof = dfpn.prove(&g.start());
        assert_eq!(proof.value, None);
        assert_eq!(proof.stop, Some(Stop::Depth));
        assert!(proof.stats.deepest > 100_000, "{}", proof.stats.deepest);
        // Nothing false was kept on the way.
        for (_, b) in dfpn.proven() {
            assert!(b.lo <= b.hi);
        }
        let mut search = NimberSearch::new(g, &Options::with_memory(1 << 20));
        assert_eq!(search.nimber(&g.start()), None);
        assert_eq!(search.stop_reason(), Some(Stop::Depth));
    });
    let o = run(&[
        "search",
        "subtraction:2000000:1",
        "--memory",
        "1M",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["stopped"], "depth");
    let o = run(&["search", "subtraction:2000000:1", "--memory", "1M"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("plies deep filled the 64.00 MiB"), "{out}");
}

#[test]
fn the_node_budget_is_exact() {
    let g = AnySearch::parse("connect:5x4").unwrap();
    with_search!(&g, g => {
        for limit in [1, 7, 1000, 1025, 5000] {
            let options = Options { memory: 1 << 20, node_limit: Some(limit), ..Options::default() };
            let mut dfpn = Dfpn::new(g, options);
            let proof = dfpn.prove(&g.start());
            assert_eq!(proof.value, None);
            assert_eq!(proof.stop, Some(Stop::Nodes));
            assert_eq!(proof.stats.nodes, limit);
            // Spent is spent: a second question expands nothing.
            let (_, child) = g.moves(&g.start()).swap_remove(0);
            let again = dfpn.prove(&child);
            assert_eq!(again.stats.nodes, limit);
        }
    });
    let g = AnySearch::parse("cram:4x6").unwrap();
    with_search!(&g, g => {
        for limit in [1, 100, 4097] {
            let mut search = NimberSearch::new(g, &Options { memory: 1 << 20, node_limit: Some(limit), ..Options::default() });
            assert_eq!(search.nimber(&g.start()), None);
            assert_eq!(search.stats().nodes, limit);
            assert_eq!(search.stop_reason(), Some(Stop::Nodes));
        }
    });
    let o = run(&["search", "connect:5x4", "--nodes", "1000", "--json"]);
    assert_eq!(o.status.code(), Some(3));
    let j = json(&o);
    assert_eq!(j["nodes"], 1000);
    assert_eq!(j["stopped"], "nodes");
    // --nimber honours --nodes (it once ran to the end).
    let o = run(&["search", "cram:4x5", "--nimber", "--nodes", "100", "--json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["components"], 100);
    assert_eq!(j["nimber"], serde_json::Value::Null);
}

#[test]
fn the_root_keeps_both_answers_for_the_database() {
    // In a 1 MiB table the first question's entry for the root is evicted
    // by the second's search: the root's value must still be what is kept.
    let g = AnySearch::parse("connect:5x4").unwrap();
    with_search!(&g, g => {
        let mut dfpn = Dfpn::new(g, Options { memory: 1 << 20, ..Options::default() });
        assert_eq!(dfpn.prove(&g.start()).value, Some(Value::Tie));
        let root = g.key(&g.start());
        let kept: Vec<Bounds> = dfpn.proven().filter(|(k, _)| *k == root).map(|(_, b)| b).collect();
        assert_eq!(kept, [Bounds::exact(Value::Tie)]);
    });
}

#[test]
fn openings_end_when_every_game_is_over() {
    // 4,000,000,000 plies of tic-tac-toe once carried the finished games
    // forward ply after ply, for hours; now the listing ends when no
    // position is left to expand, with what 9 plies give.
    let started = Instant::now();
    let huge = run(&[
        "search",
        "mnk:3x3x3",
        "--openings",
        "4000000000",
        "--json",
        "--memory",
        "1M",
    ]);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(huge.status.code(), Some(0), "{}", stderr(&huge));
    let nine = run(&[
        "search",
        "mnk:3x3x3",
        "--openings",
        "9",
        "--json",
        "--memory",
        "1M",
    ]);
    let (huge, nine) = (json(&huge), json(&nine));
    let values = |j: &serde_json::Value| -> Vec<(String, String)> {
        j["openings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["position"].to_string(), o["value"].to_string()))
            .collect()
    };
    assert_eq!(values(&huge), values(&nine));
    let list = huge["openings"].as_array().unwrap();
    assert!(list.len() > 100, "{}", list.len());
    assert!(list.iter().all(|o| o["value"].is_string()));
}

#[test]
fn nimber_openings_are_the_nimbers_of_those_positions() {
    let o = run(&[
        "search",
        "cram:3x4",
        "--nimber",
        "--openings",
        "2",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    let list = j["openings"].as_array().unwrap();
    assert!(list.len() > 5, "{j}");
    for opening in list {
        let pos = opening["position"].as_str().unwrap();
        let one = json(&run(&["search", "cram:3x4", pos, "--nimber", "--json"]));
        assert_eq!(opening["nimber"], one["nimber"], "{pos}");
        assert_eq!(opening["value"], one["value"], "{pos}");
    }
}

#[test]
fn check_honours_nodes_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.proof");
    let db = db.to_str().unwrap();
    // A 1 MiB table keeps few of the proof's positions: checking the saved
    // ones searches many children again.
    let o = run(&[
        "search",
        "connect:5x4",
        "--memory",
        "1M",
        "-q",
        "--save",
        db,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&[
        "search",
        "connect:5x4",
        "--check",
        db,
        "--memory",
        "1M",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(json(&o)["searched"].as_u64().unwrap() > 100);
    for limit in [&["--nodes", "10"][..], &["--time", "0.000001"][..]] {
        let mut args = vec!["search", "connect:5x4", "--check", db, "--memory", "1M"];
        args.extend(limit);
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{limit:?}: {err}");
        assert!(err.contains("the check was stopped by"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn a_pattern_no_one_can_complete_is_not_searched() {
    // 16 in a row on a 1×16 board: after one stone each the only pattern
    // is dead, and the board fills to a tie. Once unproven after 60 s.
    let g = AnySearch::parse("mnk:1x16x16").unwrap();
    with_search!(&g, g => {
        let proof = Dfpn::new(g, Options { memory: 1 << 20, ..Options::default() }).prove(&g.start());
        assert_eq!(proof.value, Some(Value::Tie));
        assert!(proof.stats.nodes < 100, "{}", proof.stats.nodes);
    });
    // Dead lines end 4×4×4 tic-tac-toe's tie early: 187,683 nodes, where
    // searching them out took 516,553.
    let g = AnySearch::parse("mnk:4x4x4").unwrap();
    with_search!(&g, g => {
        let proof = Dfpn::new(g, Options { memory: 64 << 20, ..Options::default() }).prove(&g.start());
        assert_eq!(proof.value, Some(Value::Tie));
        assert!(proof.stats.nodes < 300_000, "{}", proof.stats.nodes);
    });
}

#[test]
fn bad_limits_are_refused_and_say_what_was_given() {
    let refused = |args: &[&str], needles: &[&str]| {
        let o = run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: {err}");
        }
    };
    refused(
        &["search", "tictactoe", "--memory", "65535"],
        &["65,535 bytes", "at least 1.00 MiB (1,048,576 bytes)"],
    );
    refused(
        &["search", "tictactoe", "--memory", "0"],
        &["--memory 0 bytes", "1,048,576 bytes"],
    );
    refused(&["search", "tictactoe", "--nodes", "0"], &["--nodes 0"]);
    refused(
        &["search", "tictactoe", "--epsilon", "0"],
        &["--epsilon 0", "0.05"],
    );
    refused(
        &["search", "tictactoe", "--epsilon", "0.01"],
        &["plain df-pn"],
    );
    // Options a mode cannot use are usage errors (clap's status 2), not
    // silently ignored.
    for args in [
        &["search", "cram:3x3", "--nimber", "--epsilon", "0.5"][..],
        &[
            "search",
            "tictactoe",
            "--check",
            "x.proof",
            "--openings",
            "1",
        ][..],
        &["search", "tictactoe", "--bogus"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn exit_statuses_tell_proven_error_usage_and_stopped_apart() {
    let code = |args: &[&str]| run(args).status.code();
    assert_eq!(
        code(&["search", "tictactoe", "--memory", "1M", "-q"]),
        Some(0)
    );
    assert_eq!(code(&["search", "nosuchgame:3"]), Some(1));
    assert_eq!(code(&["search", "tictactoe", "--nodes"]), Some(2));
    assert_eq!(
        code(&["search", "connect:6x4", "--nodes", "10", "-q"]),
        Some(3)
    );
    assert_eq!(
        code(&["search", "cram:5x5", "--nimber", "--nodes", "10", "-q"]),
        Some(3)
    );
}

#[test]
fn the_time_limit_holds_when_nodes_are_costly() {
    // A misère position of 1,500 lands, 40 of them distinct: a node costs
    // about 10 ms (its hundreds of children, each of 1,500 lands). The time
    // was looked at every 1,024 nodes: `--time 1` ran 11 s. Now a timer's
    // flag is looked at before every node, and a stopped search returns
    // without a pass over the children at every level of its line.
    let lands: Vec<String> = (0..1500).map(|k| format!("0*{}", k % 40 + 1)).collect();
    let start = Instant::now();
    let o = run(&[
        "search",
        "sprouts:5:misere",
        &lands.join("+"),
        "--time",
        "1",
        "--json",
    ]);
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["stopped"], "time");
    assert!(j["nodes"].as_u64().unwrap() > 10, "{}", j["nodes"]);
    let searched = j["seconds"].as_f64().unwrap();
    assert!(searched <= 1.1, "searched {searched} s");
    // The search's 10%, and the program's start and end.
    assert!(took < Duration::from_millis(1250), "ran {took:?}");
}
