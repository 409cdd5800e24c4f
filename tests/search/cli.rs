//! `retrograde search` as a process: results, proof databases (save, load,
//! check, damage), interruption, and bad input.

use crate::common::{bin, run};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn json_of(args: &[&str]) -> serde_json::Value {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn fails_with(args: &[&str], needle: &str) {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(
        err.trim().lines().count(),
        1,
        "{args:?}: one line expected: {err}"
    );
}

#[test]
fn search_reports_values_moves_and_counts() {
    let j = json_of(&["search", "tictactoe", "--json", "--memory", "1M"]);
    assert_eq!(j["value"], "tie");
    assert_eq!(j["proven"], true);
    assert!(j["nodes"].as_u64().unwrap() > 100);
    // After x in a corner and o on an edge next to it, x wins.
    let j = json_of(&[
        "search",
        "tictactoe",
        "xo./.../...",
        "--json",
        "--memory",
        "1M",
    ]);
    assert_eq!(j["value"], "win");
    let best = j["best_move"].as_str().unwrap().to_string();
    // The best move keeps the win: after it the opponent loses.
    let after = json_of(&[
        "search",
        "tictactoe",
        "xo./.../...",
        "--json",
        "--memory",
        "1M",
        "--openings",
        "1",
    ]);
    let openings = after["openings"].as_array().unwrap();
    assert!(openings.iter().any(|o| o["value"] == "lose"), "{after}");
    assert!(!best.is_empty());
    // Subtraction {1, 3, 4}: the piles 0 and 2 mod 7 lose for the mover.
    let j = json_of(&[
        "search",
        "subtraction:40:1,3,4",
        "7",
        "--json",
        "--memory",
        "1M",
    ]);
    assert_eq!(j["value"], "lose");
    let j = json_of(&[
        "search",
        "subtraction:40:1,3,4",
        "8",
        "--json",
        "--memory",
        "1M",
    ]);
    assert_eq!(j["value"], "win");
}

#[test]
fn nimbers_by_components() {
    let j = json_of(&[
        "search",
        "cram:1x14",
        "--nimber",
        "--json",
        "--memory",
        "1M",
    ]);
    assert_eq!(j["nimber"], 4);
    assert_eq!(j["value"], "win");
}

#[test]
fn a_nimber_database_loads_into_a_nimber_search_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cram.proof");
    let db = db.to_str().unwrap();
    let values = dir.path().join("values.proof");
    let values = values.to_str().unwrap();
    let first = json_of(&[
        "search", "cram:3x4", "--nimber", "--json", "--memory", "1M", "--save", db,
    ]);
    let saved = first["saved"].as_u64().unwrap();
    assert!(saved > 0, "{first}");
    // Loaded, every component is known: the same nimber, all of them loaded.
    let again = json_of(&[
        "search", "cram:3x4", "--nimber", "--json", "--memory", "1M", "--load", db,
    ]);
    assert_eq!(again["nimber"], first["nimber"]);
    assert_eq!(again["loaded"].as_u64(), Some(saved));
    // A database answers the question it was built for, never the other.
    fails_with(
        &["search", "cram:3x4", "--memory", "1M", "--load", db],
        "a database of nimbers, not of values",
    );
    json_of(&[
        "search", "cram:3x4", "--json", "--memory", "1M", "--save", values,
    ]);
    fails_with(
        &[
            "search", "cram:3x4", "--nimber", "--memory", "1M", "--load", values,
        ],
        "a database of values, not of nimbers",
    );
}

#[test]
fn a_saved_proof_is_loaded_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c54.proof");
    let db_s = db.to_str().unwrap();
    let first = json_of(&[
        "search",
        "connect:5x4",
        "--engine",
        "dfpn",
        "--json",
        "--memory",
        "16M",
        "--threads",
        "1",
        "--save",
        db_s,
    ]);
    assert_eq!(first["value"], "tie");
    let saved = first["saved"].as_u64().unwrap();
    assert!(saved > 1000, "{first}");
    // Loading it settles the root without search. One thread each, so
    // that the node counts compared are the same on every run (two
    // threads' counts depend on their timing).
    let again = json_of(&[
        "search",
        "connect:5x4",
        "--engine",
        "dfpn",
        "--json",
        "--memory",
        "16M",
        "--threads",
        "1",
        "--load",
        db_s,
    ]);
    assert_eq!(again["value"], "tie");
    assert_eq!(again["loaded"].as_u64().unwrap(), saved);
    assert!(
        again["nodes"].as_u64().unwrap() < first["nodes"].as_u64().unwrap() / 10,
        "{again}"
    );
    // Every entry re-proven from its moves.
    let check = json_of(&[
        "search",
        "connect:5x4",
        "--json",
        "--memory",
        "16M",
        "--check",
        db_s,
    ]);
    assert_eq!(check["checked"].as_u64().unwrap(), saved);
    assert_eq!(check["entry"], "tie");
    // Another game's search refuses it.
    fails_with(
        &["search", "connect:4x4", "--load", db_s],
        "not of connect:4x4",
    );
    // A damaged database never yields a value.
    let mut bytes = std::fs::read(&db).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&db, &bytes).unwrap();
    fails_with(&["search", "connect:5x4", "--load", db_s], "checksum");
    fails_with(&["search", "connect:5x4", "--check", db_s], "checksum");
    bytes.truncate(20);
    std::fs::write(&db, &bytes).unwrap();
    fails_with(
        &["search", "connect:5x4", "--load", db_s],
        "not a usable proof database",
    );
}

#[test]
fn save_refuses_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    fails_with(
        &["search", "tictactoe", "--memory", "1M", "--save", d],
        "not a regular file",
    );
    fails_with(
        &[
            "search",
            "tictactoe",
            "--memory",
            "1M",
            "--save",
            "/dev/null",
        ],
        "not a regular file",
    );
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn bad_input_is_one_line_and_non_zero() {
    fails_with(&["search", "nosuchgame:3"], "nosuchgame");
    fails_with(&["search", "tictactoe", "xxxx"], "position");
    fails_with(&["search", "tictactoe", "--nimber"], "impartial");
    fails_with(&["search", "dodgem:3"], "acyclic");
    fails_with(&["search", "tictactoe", "--memory", "1K"], "too small");
    fails_with(&["search", "tictactoe", "--time", "0"], "--time");
    fails_with(
        &["search", "tictactoe", "--load", "/nonexistent/x.proof"],
        "/nonexistent/x.proof",
    );
    // A spec or position is named once and quoted to its first 60
    // characters: a 100 KB argument is not echoed back whole, and each of the
    // search's own games (occupy, Cram, Isolation) and the table registry
    // name it the same way.
    let long = "9".repeat(100_000);
    for (args, needle) in [
        (vec![format!("mnk:{long}x3x3")], "bad game 'mnk:999"),
        (vec![format!("cram:{long}x3")], "bad game 'cram:999"),
        (
            vec![format!("isolation:4x4:a={long}")],
            "bad game 'isolation:4x4:a=999",
        ),
        (vec![format!("subtraction:{long}")], "subtraction:999"),
        (vec![format!("nosuch{long}")], "unknown game 'nosuch999"),
        (vec!["tictactoe".into(), long.clone()], "bad position '999"),
        (
            vec!["isolation:9x9".into()],
            "bad game 'isolation:9x9': board 9x9 has 81 squares; the search supports at most 64",
        ),
        (
            vec!["cram:9x9".into()],
            "bad game 'cram:9x9': board 9x9 has 81 squares; the search supports at most 64",
        ),
    ] {
        let mut all = vec!["search"];
        all.extend(args.iter().map(String::as_str));
        fails_with(&all, needle);
        let err = String::from_utf8_lossy(&run(&all).stderr).to_string();
        assert!(err.len() < 400, "{needle}: {} bytes: {err:.400}", err.len());
        // The spec is named once, not once by the search and again by the game.
        assert_eq!(err.matches(needle).count(), 1, "{err:.400}");
    }
    // Openings are listed before any is searched: too many is an error, not
    // a frontier that fills memory.
    fails_with(
        &[
            "search",
            "connect:7x6",
            "--openings",
            "40",
            "--memory",
            "1M",
        ],
        "--openings 40: more than 100000 distinct positions",
    );
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.rtb");
    crate::common::solve("mnk:3x4x3", &table, &[]);
    fails_with(
        &[
            "search",
            "tictactoe",
            "--tablebase",
            table.to_str().unwrap(),
        ],
        "same game",
    );
    // The proof database may not replace a table it reads.
    crate::common::solve("tictactoe", &table, &["--force"]);
    let t = table.to_str().unwrap();
    fails_with(
        &["search", "tictactoe", "--tablebase", t, "--save", t],
        "is this run's own input",
    );
}

#[test]
fn interrupting_a_search_keeps_what_it_proved() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("stop.proof");
    // Too big to finish in a second.
    let child = bin()
        .args([
            "search",
            "mnk:5x5x4",
            "--memory",
            "64M",
            "--save",
            db.to_str().unwrap(),
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: sending SIGINT to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    let err = String::from_utf8_lossy(&out.stderr);
    // Stopped before the proof: status 3 (or 0 if it finished in time).
    let code = out.status.code().unwrap();
    assert!(code == 3 || code == 0, "{code}: {err}");
    assert!(db.exists(), "{err}");
    let db_s = db.to_str().unwrap();
    let o = run(&[
        "search",
        "mnk:5x5x4",
        "--json",
        "--memory",
        "64M",
        "--load",
        db_s,
        "--nodes",
        "1000",
    ]);
    // Stopped at the node limit: status 3, and the saved proofs were read.
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let loaded: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(loaded["proven"], false);
    assert!(loaded["loaded"].as_u64().unwrap() > 0, "{loaded}");
}
