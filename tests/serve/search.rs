//! Games with no table in the explorer (`serve --search`, Sprouts): every
//! position reached through the API's own moves answers what `retrograde
//! search SPEC POSITION --moves --json` (a separate path through the
//! command line) says of it and of each child, normal play with nimbers and
//! misère with values; a request's budget leaves what it did not reach
//! unknown. Every other searched game is served the same way, drawn as its
//! table's board; what a request's budget leaves unsettled is computed on by
//! a job (capped, stoppable, stopped when abandoned), and what is proven is
//! kept (`--save`, `--load`).

use super::api::reachable;
use super::{query, Server};
use crate::common;
use serde_json::Value as Json;
use std::collections::HashMap;

/// `retrograde search SPEC POSITION --moves --json` (and `--nimber` for
/// normal play).
fn search_cli(spec: &str, position: &str, nimber: bool) -> Json {
    let mut args = vec!["search", spec, position, "--moves", "--json", "--quiet"];
    if nimber {
        args.push("--nimber");
    }
    let out = common::run(&args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sprouts_positions_answer_what_search_moves_says() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(
        dir.path(),
        &[],
        &["--search", "sprouts:3", "--search", "sprouts:3:misere"],
    );
    let tables = server.json("/api/tables");
    let list = tables["tables"].as_array().unwrap();
    let ids: Vec<&str> = list.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["sprouts-3", "sprouts-3-misere"]);
    for (t, impartial) in list.iter().zip([true, false]) {
        assert_eq!(t["table"], "search");
        assert_eq!(t["family"], "sprouts");
        assert_eq!(t["start"], "0*3");
        assert_eq!(t["impartial"], impartial);
        assert!(t["notation"].as_str().unwrap().contains('|'));
    }
    let info = server.json("/api/tables/sprouts-3");
    assert_eq!(info["info"]["budget"]["seconds"], 2.0);

    for (id, spec, nimber) in [
        ("sprouts-3", "sprouts:3", true),
        ("sprouts-3-misere", "sprouts:3:misere", false),
    ] {
        let mut positions = reachable(&server, id, 60);
        assert!(positions.len() >= 20, "{id}: {}", positions.len());
        // And one game to its end through the API, taking the last move
        // each time, so that a finished game is met too.
        let mut p = positions[0].clone();
        while let Some(m) = p["moves"].as_array().unwrap().last() {
            let next = m["position"].as_str().unwrap();
            p = server.json(&format!("/api/tables/{id}/position?p={}", query(next)));
            positions.push(p.clone());
        }
        let mut over = 0;
        for p in &positions {
            let text = p["position"].as_str().unwrap();
            let cli = search_cli(spec, text, nimber);
            assert_eq!(p["table"], id);
            assert_eq!(p["board"], Json::Null);
            assert_eq!(p["search"]["proven"], true, "{id} {text}");
            assert_eq!(p["position"], cli["position"], "{id} {text}");
            assert_eq!(p["value"], cli["value"], "{id} {text}");
            assert_eq!(p["nimber"], cli["nimber"], "{id} {text}");
            let moves = p["moves"].as_array().unwrap();
            let children = cli["moves"].as_array().unwrap();
            assert_eq!(moves.len(), children.len(), "{id} {text}");
            assert_eq!(p["primitive"], moves.is_empty());
            over += usize::from(moves.is_empty());
            let by_child: HashMap<&str, &Json> = children
                .iter()
                .map(|c| (c["position"].as_str().unwrap(), c))
                .collect();
            let wins = moves.iter().any(|m| m["value"] == "win");
            for (i, m) in moves.iter().enumerate() {
                let child = by_child[m["position"].as_str().unwrap()];
                assert_eq!(m["move"], m["position"]);
                assert_eq!(m["value"], child["value"], "{id} {text} {m}");
                assert_eq!(m["move"], child["move"], "{id} {text} {m}");
                assert_eq!(m["nimber"], child["nimber"], "{id} {text} {m}");
                assert_eq!(m["remoteness"], Json::Null);
                assert_eq!(m["steps"], serde_json::json!([]));
                // Best first: every winning move, or every move if none wins.
                assert_eq!(m["best"], m["value"] == "win" || !wins, "{id} {text} {m}");
                if i > 0 && m["best"] == true {
                    assert_eq!(moves[i - 1]["best"], true);
                }
            }
            // The position's value is what its children say.
            let value = if wins { "win" } else { "lose" };
            if !moves.is_empty() {
                assert_eq!(p["value"], value, "{id} {text}");
            }
        }
        assert!(over > 0, "{id}: no finished game reached");
    }
    let (status, body) = server.get("/api/tables/sprouts-3/position?p=0*3%2Bx");
    assert_eq!(status, 400, "{body}");
}

#[test]
fn a_request_stops_at_its_budget_and_says_what_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(
        dir.path(),
        &[],
        &["--search", "sprouts:9", "--search-nodes", "1"],
    );
    let p = server.json("/api/tables/sprouts-9/position");
    assert_eq!(p["position"], "0*9");
    assert_eq!(p["value"], "unknown");
    assert_eq!(p["nimber"], Json::Null);
    assert_eq!(p["search"]["proven"], false);
    assert_eq!(p["search"]["stopped"], "nodes");
    let moves = p["moves"].as_array().unwrap();
    // 0*9's children: joining a spot to itself or to another, the other
    // spots on either side.
    assert!(moves.len() > 5, "{p}");
    for m in moves {
        assert_eq!(m["value"], "unknown", "{m}");
        assert_eq!(m["best"], false, "{m}");
    }
    let info = server.json("/api/tables/sprouts-9");
    assert_eq!(info["info"]["budget"]["nodes"], 1);

    // A game the search does not take is refused at start, in one line.
    let out = common::run_in(
        dir.path(),
        &["serve", "--search", "connect:9x9", "--addr", "127.0.0.1:0"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("connect:9x9") && err.lines().count() == 1,
        "{err}"
    );
    // A game the search refuses is refused in one line.
    let out = common::run_in(
        dir.path(),
        &["serve", "--search", "sprouts:0", "--addr", "127.0.0.1:0"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("number of spots"), "{err}");
    let out = common::run_in(
        dir.path(),
        &["serve", "--search", "sprouts:3", "--search-time", "0"],
    );
    assert!(!out.status.success());
}

/// A heap of 4·10⁹ took the server down (an allocation abort): it is one
/// line's refusal now. One region of 13 boundaries of one shape (a
/// 64-character request) gave no answer in 120 s on a 2 s budget: its
/// moves are shared out by shape, and it answers within the budget.
#[test]
fn hostile_sprouts_positions_answer_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(dir.path(), &[], &["--search", "sprouts:5"]);
    let t = std::time::Instant::now();
    let (status, body) = server.get("/api/tables/sprouts-5/position?p=%2A4294967295");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("at most *255"), "{body}");
    assert!(t.elapsed().as_secs_f64() < 2.0, "{:?}", t.elapsed());
    let region: Vec<String> = (0..13u8)
        .map(|i| format!("1{0}2{0}", (b'a' + i) as char))
        .collect();
    let region = region.join(".");
    assert_eq!(region.len(), 64);
    let t = std::time::Instant::now();
    let p = server.json(&format!("/api/tables/sprouts-5/position?p={region}"));
    assert!(t.elapsed().as_secs_f64() < 6.0, "{:?}", t.elapsed());
    assert!(!p["moves"].as_array().unwrap().is_empty(), "{p}");
    // The server is still up.
    assert_eq!(
        server.json("/api/tables/sprouts-5")["info"]["budget"]["seconds"],
        2.0
    );
}

/// `retrograde search SPEC POSITION --json` (`--nimber` for impartial
/// games): the value (and nimber) for the player to move.
fn value_cli(spec: &str, position: &str, nimber: bool) -> (String, Json) {
    let mut args = vec!["search", spec, position, "--json", "--quiet"];
    if nimber {
        args.push("--nimber");
    }
    let out = common::run(&args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    (
        j["value"].as_str().unwrap().to_string(),
        j["nimber"].clone(),
    )
}

/// Every game the search takes is served: its start and a position two
/// moves on, each move's value the opposite of what `retrograde search`
/// says of the position it leads to, drawn as its table's board (steps
/// that land where the move puts its piece) where the game has one.
#[test]
fn every_searched_game_is_served_with_its_board() {
    let dir = tempfile::tempdir().unwrap();
    let games = [
        ("connect:4x4", "connect-4x4x4", true),
        ("tictactoe", "mnk-3x3x3", true),
        ("pattern:games/tictactoe.txt", "", true),
        ("sogo:2", "sogo-2", true),
        ("isolation:3x3", "", true),
        ("cram:3x3", "cram-3x3", true),
        ("sprouts:2", "sprouts-2", false),
    ];
    let mut args = vec!["--search-time", "20"];
    let pattern = std::path::Path::new("games/tictactoe.txt")
        .canonicalize()
        .unwrap();
    let pattern = format!("pattern:{}", pattern.display());
    for (spec, _, _) in &games {
        args.push("--search");
        args.push(if spec.starts_with("pattern:") {
            &pattern
        } else {
            spec
        });
    }
    let server = Server::start_in(dir.path(), &[], &args);
    let list = server.json("/api/tables")["tables"].clone();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), games.len());
    for (t, (spec, id, drawn)) in list.iter().zip(games) {
        if !id.is_empty() {
            assert_eq!(t["id"], id);
        }
        let id = t["id"].as_str().unwrap();
        let game = t["game"].as_str().unwrap().to_string();
        let impartial = t["impartial"].as_bool().unwrap();
        assert_eq!(t["table"], "search", "{spec}");
        assert_eq!(t["players"].is_null(), impartial || !drawn, "{spec}: {t}");
        let start = server.json(&format!("/api/tables/{id}/position"));
        let one = start["moves"][0]["position"].as_str().unwrap().to_string();
        let after = server.json(&format!("/api/tables/{id}/position?p={}", query(&one)));
        let two = after["moves"][0]["position"].as_str().unwrap().to_string();
        let later = server.json(&format!("/api/tables/{id}/position?p={}", query(&two)));
        for p in [&start, &after, &later] {
            let text = p["position"].as_str().unwrap();
            assert_eq!(p["search"]["proven"], true, "{spec} {text}: {p}");
            let (value, nimber) = value_cli(&game, text, impartial);
            assert_eq!(p["value"], value.as_str(), "{spec} {text}");
            if impartial {
                assert_eq!(p["nimber"], nimber, "{spec} {text}");
            }
            assert_eq!(p["board"].is_null(), !drawn, "{spec}");
            let moves = p["moves"].as_array().unwrap();
            assert!(!moves.is_empty(), "{spec} {text}");
            for m in moves {
                let child = m["position"].as_str().unwrap();
                let (v, n) = value_cli(&game, child, impartial);
                let flipped = match v.as_str() {
                    "win" => "lose",
                    "lose" => "win",
                    v => v,
                };
                assert_eq!(m["value"], flipped, "{spec} {text} {m}");
                if impartial {
                    assert_eq!(m["nimber"], n, "{spec} {text} {m}");
                }
                if drawn {
                    // The move's steps are cells of the board that are
                    // empty before it and taken after it.
                    let steps = m["steps"].as_array().unwrap();
                    assert!(!steps.is_empty(), "{spec} {m}");
                    let next =
                        server.json(&format!("/api/tables/{id}/position?p={}", query(child)));
                    let k = steps.last().unwrap().as_u64().unwrap() as usize;
                    assert_ne!(
                        p["board"]["cells"][k]["state"], next["board"]["cells"][k]["state"],
                        "{spec} {text} {m}"
                    );
                }
            }
        }
    }
}

/// Connect-Four 7x6, which no table holds: a position's columns are
/// answered within the request's budget (plus its 10% or 0.1 s), what it
/// leaves is computed on by a job that fills in the answer, and the jobs
/// are capped, listed, stoppable, and stopped once nobody asks.
#[test]
fn jobs_compute_on_within_their_cap_and_stop() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(
        dir.path(),
        &[],
        &[
            "--search",
            "connect:7x6",
            "--search-time",
            "0.3",
            "--search-jobs",
            "1",
            "--search-job-idle",
            "2",
        ],
    );
    let id = "connect-7x6x4";
    let empty = "......./......./......./......./......./.......";
    let t = std::time::Instant::now();
    let p = server.json(&format!("/api/tables/{id}/position"));
    let took = t.elapsed().as_secs_f64();
    assert!(took < 0.3 + 0.1 + 0.5, "{took} s");
    assert_eq!(p["board"]["cells"].as_array().unwrap().len(), 42);
    assert_eq!(p["moves"].as_array().unwrap().len(), 7);
    assert_eq!(p["search"]["proven"], false);
    assert_eq!(p["search"]["job"]["position"], empty, "{p}");
    // Asked again while its job runs: answered at once, from what is known.
    let t = std::time::Instant::now();
    let again = server.json(&format!("/api/tables/{id}/position?p=-"));
    assert!(t.elapsed().as_secs_f64() < 0.2);
    assert_eq!(again["search"]["nodes"], 0);
    assert!(again["search"]["job"]["nodes"].is_u64(), "{again}");
    assert!(
        again["search"]["job"]["seconds"].as_f64().unwrap() > 0.0,
        "{again}"
    );
    // The cap: a second unsettled position gets no job.
    let other = server.json(&format!("/api/tables/{id}/position?p=1"));
    assert_eq!(other["search"]["proven"], false);
    assert_eq!(other["search"]["job"], Json::Null);
    let jobs = server.json(&format!("/api/tables/{id}/jobs"));
    assert_eq!(jobs["most"], 1);
    assert_eq!(jobs["jobs"].as_array().unwrap().len(), 1, "{jobs}");
    assert_eq!(jobs["jobs"][0]["position"], empty);
    // Stopped on request.
    let stop = server.json(&format!("/api/tables/{id}/stop?p=-"));
    assert_eq!(stop["stopped"], true);
    let gone = |server: &Server| {
        for _ in 0..100 {
            if server.json(&format!("/api/tables/{id}/jobs"))["jobs"]
                .as_array()
                .unwrap()
                .is_empty()
            {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        false
    };
    assert!(gone(&server));
    // A position whose moves a job settles: asked again until they are.
    let mid = "7214174457716";
    let mut p = server.json(&format!("/api/tables/{id}/position?p={mid}"));
    for _ in 0..300 {
        if p["search"]["proven"] == true {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        p = server.json(&format!("/api/tables/{id}/position?p={mid}"));
    }
    assert_eq!(p["search"]["proven"], true, "{p}");
    for m in p["moves"].as_array().unwrap() {
        let (v, _) = value_cli("connect:7x6", m["position"].as_str().unwrap(), false);
        let flipped = match v.as_str() {
            "win" => "lose",
            "lose" => "win",
            v => v,
        };
        assert_eq!(m["value"], flipped, "{m}");
    }
    // Abandoned: a job nobody asks about is stopped after --search-job-idle.
    let p = server.json(&format!("/api/tables/{id}/position"));
    assert!(!p["search"]["job"].is_null(), "{p}");
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(gone(&server));
    // Stopping a position with no job, or a table's: said, not an error.
    let stop = server.json(&format!("/api/tables/{id}/stop?p=4"));
    assert_eq!(stop["stopped"], false);
    let (status, _) = server.get(&format!("/api/tables/{id}/stop?p=zz"));
    assert_eq!(status, 400);
    // Nothing the API takes names a file.
    let (status, _) = server.get(&format!("/api/tables/{id}/save?file=/tmp/x"));
    assert_eq!(status, 404);
}

/// What the searches proved is saved as a proof database (periodically and
/// on SIGTERM) that `search --load` takes, and a server started from it
/// answers those positions with no search; a database of another game, or
/// a damaged one, is refused at start.
#[test]
fn what_is_proven_is_saved_and_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c4.proof");
    let db_arg = db.to_str().unwrap();
    let server = Server::start_in(
        dir.path(),
        &[],
        &[
            "--search",
            "connect:5x4",
            "--save",
            db_arg,
            "--save-every",
            "1",
        ],
    );
    let id = "connect-5x4x4";
    let start = server.json(&format!("/api/tables/{id}/position"));
    assert_eq!(start["search"]["proven"], true, "{start}");
    for _ in 0..50 {
        if db.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(db.exists(), "no periodic save");
    let next = start["moves"][0]["position"].as_str().unwrap().to_string();
    server.json(&format!("/api/tables/{id}/position?p={}", query(&next)));
    // SIGTERM: saved, then gone.
    #[cfg(unix)]
    {
        let pid = server.pid();
        assert!(std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap()
            .success());
        let mut server = server;
        for _ in 0..100 {
            if !server.alive() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(!server.alive());
        let err = server.stop();
        assert!(err.contains("saved ") && err.contains("c4.proof"), "{err}");
    }
    // The search reads it (and re-proves it).
    let out = common::run_in(
        dir.path(),
        &[
            "search",
            "connect:5x4",
            "--load",
            db_arg,
            "--quiet",
            "--json",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    // Symmetric positions are one entry.
    assert!(j["loaded"].as_u64().unwrap() >= 5, "{j}");
    // Loaded (checked, and trusted): answered with no search at all.
    for trust in [false, true] {
        let mut args = vec![
            "--search",
            "connect:5x4",
            "--load",
            db_arg,
            "--search-nodes",
            "1",
        ];
        if trust {
            args.push("--trust-load");
        }
        let server = Server::start_in(dir.path(), &[], &args);
        let p = server.json(&format!("/api/tables/{id}/position"));
        assert_eq!(p["search"]["proven"], true, "{p}");
        assert_eq!(p["search"]["nodes"], 0, "{p}");
        assert_eq!(p["value"], start["value"]);
        // The values (a proof database keeps no scores).
        let values = |p: &Json| -> HashMap<String, Json> {
            p["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["move"].as_str().unwrap().to_string(), m["value"].clone()))
                .collect()
        };
        assert_eq!(values(&p), values(&start));
    }
    // Refused: another game's, a damaged one, --save with two games.
    let bad = |args: &[&str], says: &str| {
        let mut all = vec!["serve", "--addr", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let out = common::run_in(dir.path(), &all);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    };
    bad(
        &["--search", "connect:4x4", "--load", db_arg],
        "connect:5x4",
    );
    let mut bytes = std::fs::read(&db).unwrap();
    let last = bytes.len() - 6;
    bytes[last] ^= 0x55;
    let damaged = dir.path().join("damaged.proof");
    std::fs::write(&damaged, bytes).unwrap();
    bad(
        &[
            "--search",
            "connect:5x4",
            "--load",
            damaged.to_str().unwrap(),
        ],
        "damaged.proof",
    );
    bad(
        &[
            "--search",
            "connect:5x4",
            "--search",
            "tictactoe",
            "--save",
            db_arg,
        ],
        "exactly one --search",
    );

    // Normal-play Sprouts, searched for nimbers, keeps values (its
    // engine's databases): saved so, and read back by the search and the
    // server alike; Cram keeps nimbers.
    #[cfg(unix)]
    for (spec, id, nimber) in [
        ("sprouts:4", "sprouts-4", Json::Null),
        ("cram:3x3", "cram-3x3", 0.into()),
    ] {
        let db = dir.path().join(format!("{id}.proof"));
        let db_arg = db.to_str().unwrap();
        let mut server = Server::start_in(dir.path(), &[], &["--search", spec, "--save", db_arg]);
        let start = server.json(&format!("/api/tables/{id}/position"));
        assert_eq!(start["search"]["proven"], true, "{start}");
        let pid = server.pid().to_string();
        assert!(std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success());
        for _ in 0..100 {
            if !server.alive() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let out = common::run_in(dir.path(), &["search", spec, "--nimber", "--load", db_arg]);
        assert!(out.status.success(), "{spec}: {out:?}");
        let server = Server::start_in(
            dir.path(),
            &[],
            &["--search", spec, "--load", db_arg, "--search-nodes", "1"],
        );
        let p = server.json(&format!("/api/tables/{id}/position"));
        assert_eq!(p["search"]["nodes"], 0, "{spec}: {p}");
        assert_eq!(p["value"], start["value"], "{spec}");
        // Sprouts' nimbers are not in a database of values.
        assert_eq!(p["nimber"], nimber, "{spec}");
    }
}

#[test]
fn a_save_file_that_cannot_be_written_is_refused_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (save, why) in [
        ("/dev/null", "is a character device"),
        (fifo.to_str().unwrap(), "is a FIFO"),
        (dir.path().to_str().unwrap(), "directory"),
    ] {
        let out = common::run_in(
            dir.path(),
            &[
                "serve",
                "--search",
                "connect:4x4",
                "--save",
                save,
                "--addr",
                "127.0.0.1:0",
            ],
        );
        common::refused_line(&out, why);
    }
}

/// `retrograde search SPEC POSITION --json` stopped at once: the position
/// as the command line writes it.
fn position_cli(spec: &str, position: &str) -> String {
    let args = [
        "search", spec, position, "--json", "--quiet", "--nodes", "1",
    ];
    let out = common::run(&args);
    // Exit status 3: not proven, as stopped at once.
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{args:?}: {out:?}"
    );
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    j["position"].as_str().unwrap().to_string()
}

/// Sogo's 4x4x4 cube, past its tables' sizes, is served with its board:
/// four layers of 16 cells holding what the command line's position
/// holds, and each of the 16 columns' moves landing where the command
/// line puts the piece.
#[test]
fn sogo_4_is_served_with_its_board() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(
        dir.path(),
        &[],
        &[
            "--search",
            "sogo:4",
            "--search-nodes",
            "1",
            "--search-jobs",
            "0",
        ],
    );
    let id = "sogo-4";
    let p = server.json(&format!("/api/tables/{id}/position?p=a1a1b1"));
    let text = p["position"].as_str().unwrap();
    assert_eq!(text, position_cli("sogo:4", "a1a1b1"));
    let board = &p["board"];
    assert_eq!(board["layout"], "layers", "{board}");
    assert_eq!(
        (&board["layers"], &board["rows"], &board["cols"]),
        (&4.into(), &4.into(), &4.into())
    );
    let cells = board["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 64);
    let glyph = |c: &Json| match c["state"].as_str().unwrap() {
        "p0" => 'x',
        "p1" => 'o',
        _ => '.',
    };
    let drawn: String = cells.iter().map(glyph).collect();
    assert_eq!(drawn, text.replace(['|', '/'], ""));
    let moves = p["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 16);
    for m in moves {
        let mv = m["move"].as_str().unwrap();
        let child = m["position"].as_str().unwrap();
        assert_eq!(child, position_cli("sogo:4", &format!("a1a1b1{mv}")), "{m}");
        // The move's cell: empty now, o's (the mover's) after it.
        let k = m["steps"][0].as_u64().unwrap() as usize;
        assert_eq!(cells[k]["state"], "empty", "{m}");
        assert_eq!(cells[k]["label"], mv, "{m}");
        let after: Vec<char> = child.replace(['|', '/'], "").chars().collect();
        assert_eq!(after[k], 'o', "{m}");
    }
    assert_eq!(p["value"], "unknown");
    assert_eq!(p["remoteness"], Json::Null);
}

/// Where the search gives a distance (Connect-Four's scores imply it),
/// the served position and each move carry it as the tables do ("win in
/// 0" is a move that ends the game), equal to what `retrograde search
/// --moves` says; where only the value is proven, no distance.
#[test]
fn searched_distances_are_served_as_remoteness() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(
        dir.path(),
        &[],
        &[
            "--search",
            "connect:5x4",
            "--search",
            "tictactoe",
            "--search-time",
            "20",
        ],
    );
    for position in ["-", "33", "1122"] {
        let p = server.json(&format!("/api/tables/connect-5x4x4/position?p={position}"));
        assert_eq!(p["search"]["proven"], true, "{p}");
        let cli = search_cli("connect:5x4", position, false);
        assert_eq!(p["value"], cli["value"], "{position}");
        assert_eq!(p["remoteness"], cli["remoteness"], "{position}");
        assert!(p["remoteness"].is_u64(), "{p}");
        assert_eq!(p["score"], cli["score"], "{position}");
        let by_move: HashMap<&str, &Json> = cli["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["move"].as_str().unwrap(), m))
            .collect();
        let moves = p["moves"].as_array().unwrap();
        assert_eq!(moves.len(), by_move.len());
        for m in moves {
            let c = by_move[m["move"].as_str().unwrap()];
            assert_eq!(m["value"], c["value"], "{position} {m}");
            assert_eq!(m["remoteness"], c["remoteness"], "{position} {m}");
            assert!(m["remoteness"].is_u64(), "{m}");
            assert_eq!(m["score"], c["score"], "{position} {m}");
            assert_eq!(m["best"], c["best"], "{position} {m}");
        }
    }
    // A move that wins at once: "win in 0".
    let p = server.json("/api/tables/connect-5x4x4/position?p=112233");
    let four = p["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "4");
    assert_eq!(four.unwrap()["remoteness"], 0, "{p}");
    assert_eq!(p["remoteness"], 1);
    // df-pn proves values only: no distance is made up.
    let p = server.json("/api/tables/mnk-3x3x3/position");
    assert_eq!(p["search"]["proven"], true, "{p}");
    assert_eq!(p["value"], "tie");
    assert_eq!(p["remoteness"], Json::Null);
    for m in p["moves"].as_array().unwrap() {
        assert_eq!(m["remoteness"], Json::Null, "{m}");
    }
}
