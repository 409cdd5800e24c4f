//! The API's answers: the same fields and values as `probe --json --moves`
//! (a separate path through the command line), boards whose move steps
//! name exactly the squares each move changes, and the table list.

use super::{query, tables, Server};
use crate::common;
use serde_json::Value as Json;
use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

/// One small table of every family (and a nimber table).
const FAMILIES: [(&str, &str); 13] = [
    ("isolation:3x3", "isolation"),
    ("mnk:3x3x3", "mnk"),
    ("pattern:games/tictactoe.txt", "pattern"),
    ("connect:4x4", "connect"),
    ("sogo:2", "sogo"),
    ("cram:3x4", "cram"),
    ("cram:3x3 --nimbers", "cram-nimbers"),
    ("dodgem:3", "dodgem"),
    ("subtraction:20:1,3,4", "subtraction"),
    ("digits:40", "digits"),
    ("isolation:3x4:misere", "isolation-misere"),
    // Folded files answer with positions as played, not their canonical
    // images: the board must not turn under a click.
    ("isolation:3x4 --fold", "isolation-folded"),
    ("mnk:3x3x3 --fold", "mnk-folded"),
];

/// Positions reached from the start, breadth first, through the API's own
/// moves: at most `cap`.
pub fn reachable(server: &Server, id: &str, cap: usize) -> Vec<Json> {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    let mut out = Vec::new();
    let start = server.json(&format!("/api/tables/{id}/position"));
    seen.insert(start["position"].as_str().unwrap().to_string());
    queue.push_back(start);
    while let Some(p) = queue.pop_front() {
        for m in p["moves"].as_array().unwrap() {
            let next = m["position"].as_str().unwrap();
            if out.len() + queue.len() < cap && seen.insert(next.to_string()) {
                queue.push_back(
                    server.json(&format!("/api/tables/{id}/position?p={}", query(next))),
                );
            }
        }
        out.push(p);
    }
    out
}

/// `retrograde probe FILE - --json --moves` on these positions, one JSON
/// object per position.
fn probe_cli(file: &Path, positions: &[&str]) -> Vec<Json> {
    let mut child = common::bin()
        .args(["probe", file.to_str().unwrap(), "-", "--json", "--moves"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let text: String = positions.iter().map(|p| format!("{p}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn answers_are_probes_answers_for_every_family() {
    let (_dir, paths) = tables(&FAMILIES);
    let files: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let server = Server::start(&files, &[]);
    for ((spec, id), file) in FAMILIES.iter().zip(&paths) {
        let api = reachable(&server, id, 300);
        assert!(
            api.len() > 5 || spec.starts_with("sogo"),
            "{spec}: {}",
            api.len()
        );
        let texts: Vec<&str> = api
            .iter()
            .map(|p| p["position"].as_str().unwrap())
            .collect();
        let cli = probe_cli(file, &texts);
        assert_eq!(cli.len(), api.len(), "{spec}");
        for (a, c) in api.iter().zip(&cli) {
            assert_eq!(a["table"], Json::from(*id));
            for field in [
                "position",
                "index",
                "to_move",
                "value",
                "remoteness",
                "nimber",
                "primitive",
            ] {
                assert_eq!(a[field], c[field], "{spec} {}: {field}", c["position"]);
            }
            let am = a["moves"].as_array().unwrap();
            let cm = c["moves"].as_array().unwrap();
            assert_eq!(am.len(), cm.len(), "{spec} {}", c["position"]);
            for (x, y) in am.iter().zip(cm) {
                let mut x = x.clone();
                x.as_object_mut().unwrap().remove("steps");
                assert_eq!(&x, y, "{spec} {}", c["position"]);
            }
        }
    }
}

/// The mover's piece state on boards.
fn piece(to_move: &Json) -> &'static str {
    match to_move.as_u64() {
        Some(0) => "p0",
        Some(1) => "p1",
        other => panic!("not a player: {other:?}"),
    }
}

fn states(board: &Json) -> Vec<String> {
    board["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["state"].as_str().unwrap().to_string())
        .collect()
}

/// Checks each move's steps against the board of the position it leads to:
/// a person who clicks them makes exactly that move.
fn check_steps(family: &str, p: &Json, child_board: &Json, m: &Json) {
    let before = states(&p["board"]);
    let after = states(child_board);
    let steps: Vec<usize> = m["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect();
    let changed: HashSet<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    let what = format!("{family} {} {}", p["position"], m["move"]);
    match family {
        "mnk" | "mnk-folded" | "pattern" | "connect" | "sogo" => {
            assert_eq!(steps.len(), 1, "{what}");
            assert_eq!(before[steps[0]], "empty", "{what}");
            assert_eq!(after[steps[0]], piece(&p["to_move"]), "{what}");
            assert_eq!(changed, HashSet::from([steps[0]]), "{what}");
        }
        "isolation" | "isolation-misere" | "isolation-folded" => {
            let from = before
                .iter()
                .position(|s| s == piece(&p["to_move"]))
                .unwrap();
            assert_eq!(steps.len(), 2, "{what}");
            assert_eq!(after[steps[0]], piece(&p["to_move"]), "{what}");
            assert_eq!(after[steps[1]], "removed", "{what}");
            assert_eq!(changed, HashSet::from([from, steps[0], steps[1]]), "{what}");
        }
        "cram" | "cram-nimbers" => {
            assert_eq!(steps.len(), 2, "{what}");
            let cells = &p["board"]["cells"];
            let (a, b) = (&cells[steps[0]], &cells[steps[1]]);
            let dist = (a["row"].as_i64().unwrap() - b["row"].as_i64().unwrap()).abs()
                + (a["col"].as_i64().unwrap() - b["col"].as_i64().unwrap()).abs();
            assert_eq!(dist, 1, "{what}: a domino covers neighbours");
            assert_eq!(changed, HashSet::from([steps[0], steps[1]]), "{what}");
            assert!(steps.iter().all(|&s| after[s] == "covered"), "{what}");
        }
        "dodgem" => {
            assert_eq!(steps.len(), 2, "{what}");
            let car = piece(&p["to_move"]);
            assert_eq!(before[steps[0]], car, "{what}");
            assert_eq!(after[steps[0]], "empty", "{what}");
            if before[steps[1]] == "exit" {
                assert_eq!(changed, HashSet::from([steps[0]]), "{what}");
            } else {
                assert_eq!(before[steps[1]], "empty", "{what}");
                assert_eq!(after[steps[1]], car, "{what}");
                assert_eq!(changed, HashSet::from([steps[0], steps[1]]), "{what}");
            }
        }
        "subtraction" | "digits" => {
            assert!(steps.is_empty(), "{what}");
            assert_eq!(
                p["board"]["pile"].as_u64().unwrap().to_string(),
                p["position"].as_str().unwrap()
            );
        }
        other => panic!("no check for {other}"),
    }
}

#[test]
fn every_move_is_made_by_clicking_its_steps() {
    let (_dir, paths) = tables(&FAMILIES);
    let files: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let server = Server::start(&files, &[]);
    for (_, id) in FAMILIES {
        let positions = reachable(&server, id, 60);
        let mut moves_checked = 0;
        for p in &positions {
            let moves = p["moves"].as_array().unwrap();
            // Clicking picks one move: no two moves share their steps, nor,
            // where the board takes them in any order (Cram's dominoes:
            // either square first), their set of steps.
            let any_order = p["board"]["steps_any_order"].as_bool().unwrap();
            assert_eq!(any_order, id.starts_with("cram"), "{id}");
            if !matches!(id, "subtraction" | "digits") {
                let distinct: HashSet<Vec<u64>> = moves
                    .iter()
                    .map(|m| {
                        let mut steps: Vec<u64> = m["steps"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|s| s.as_u64().unwrap())
                            .collect();
                        if any_order {
                            steps.sort_unstable();
                        }
                        steps
                    })
                    .collect();
                assert_eq!(distinct.len(), moves.len(), "{id} {}", p["position"]);
            }
            for m in moves {
                let child = server.json(&format!(
                    "/api/tables/{id}/position?p={}",
                    query(m["position"].as_str().unwrap())
                ));
                check_steps(id, p, &child["board"], m);
                moves_checked += 1;
            }
        }
        assert!(moves_checked > 3, "{id}: {moves_checked}");
    }
}

#[test]
fn the_table_list_names_each_game_and_its_start() {
    let (dir, paths) = tables(&FAMILIES[..3]);
    // Two files of one name get two ids (the same file twice is served
    // once: tests/serve/hostile.rs).
    let other = dir.path().join("other/isolation.rtb");
    std::fs::create_dir(other.parent().unwrap()).unwrap();
    std::fs::copy(&paths[0], &other).unwrap();
    let files = [
        paths[0].as_path(),
        paths[1].as_path(),
        paths[2].as_path(),
        other.as_path(),
    ];
    let server = Server::start(&files, &[]);
    let list = server.json("/api/tables");
    let tables = list["tables"].as_array().unwrap();
    let ids: Vec<&str> = tables.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["isolation", "mnk", "pattern", "isolation-2"]);
    let iso = &tables[0];
    assert_eq!(iso["family"], "isolation");
    assert_eq!(iso["game"], "isolation:3x3:a=1,b=7");
    assert_eq!(iso["players"], serde_json::json!(["0", "1"]));
    assert_eq!(iso["impartial"], false);
    assert_eq!(iso["file"], "isolation.rtb");
    assert_eq!(iso["start"], probe_cli_start(&paths[0])["position"]);
    // The header as `info --json` gives it, with the file's name only.
    let info = server.json("/api/tables/mnk");
    let cli: Json = serde_json::from_slice(
        &common::run(&["info", paths[1].to_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(info["info"]["counts"], cli["counts"]);
    assert_eq!(info["info"]["data_crc32"], cli["data_crc32"]);
    assert_eq!(info["info"]["file"], "mnk.rtb");
    assert_eq!(info["players"], serde_json::json!(["x", "o"]));
}

/// `probe FILE --json` with no position: the start.
fn probe_cli_start(file: &Path) -> Json {
    let out = common::run(&["probe", file.to_str().unwrap(), "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_page_and_its_files_are_served_with_their_types_and_policy() {
    let (_dir, paths) = tables(&FAMILIES[..1]);
    let server = Server::start(&[paths[0].as_path()], &[]);
    for (path, ty) in [
        ("/", "text/html; charset=utf-8"),
        ("/index.html", "text/html; charset=utf-8"),
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let r = ureq::get(&format!("{}{path}", server.url)).call().unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.header("content-type"), Some(ty), "{path}");
        assert_eq!(
            r.header("content-security-policy"),
            Some("default-src 'self'; frame-ancestors 'none'")
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
        let body = r.into_string().unwrap();
        assert!(!body.is_empty());
        if path == "/" {
            // Everything the page loads comes from this server.
            assert!(body.contains("/app.js"), "{body}");
            for outside in ["src=\"http", "href=\"http", "src=\"//", "href=\"//"] {
                assert!(!body.contains(outside), "{outside} in {body}");
            }
        }
    }
    // HEAD: headers, no body.
    let r = ureq::head(&format!("{}/api/tables", server.url))
        .call()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.into_string().unwrap(), "");
}
