//! Games with no table in the explorer (`serve --search`, Sprouts): every
//! position reached through the API's own moves answers what `retrograde
//! search SPEC POSITION --moves --json` (a separate path through the
//! command line) says of it and of each child, normal play with nimbers and
//! misère with values; a request's budget leaves what it did not reach
//! unknown.

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
