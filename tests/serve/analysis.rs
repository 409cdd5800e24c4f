//! `GET /api/tables/{id}/analysis` is `retrograde analyze --json` of the
//! table (202 while the server makes it, once), and each table's `rules`
//! are its game's, as `retrograde games --json` gives them.

use super::{tables, Server};
use crate::common;
use serde_json::Value as Json;
use std::time::{Duration, Instant};

/// The analysis of table `id`, asked again while the server answers 202.
fn analysis(server: &Server, id: &str) -> Json {
    let path = format!("/api/tables/{id}/analysis");
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, body) = server.get(&path);
        let j: Json = serde_json::from_str(&body).unwrap();
        match status {
            200 => return j,
            202 => assert_eq!(j, serde_json::json!({"pending": true})),
            _ => panic!("{path}: {status} {body}"),
        }
        assert!(Instant::now() < end, "{path}: still pending after 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn cli_json(args: &[&str]) -> Json {
    let out = common::run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_analysis_is_analyze_json_and_the_rules_are_the_games() {
    let (_dir, paths) = tables(&[
        ("mnk:3x3x3", "mnk"),
        ("cram:3x3 --nimbers", "cram-nimbers"),
        ("dodgem:3", "dodgem"),
        ("isolation:3x4 --fold", "isolation-folded"),
    ]);
    let files: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
    let server = Server::start(&files, &["--search", "sprouts:3"]);
    let ids = ["mnk", "cram-nimbers", "dodgem", "isolation-folded"];
    for (id, path) in ids.iter().zip(&paths) {
        let want = cli_json(&["analyze", path.to_str().unwrap(), "--json"]);
        assert_eq!(analysis(&server, id), want, "{id}");
        // Made once: asked again, the same at once.
        assert_eq!(
            server.json(&format!("/api/tables/{id}/analysis")),
            want,
            "{id}"
        );
    }
    let (status, body) = server.get("/api/tables/sprouts-3/analysis");
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("no table to analyse"), "{body}");
    let (status, body) = server.get("/api/tables/mnk/analysis?p=x");
    assert_eq!(status, 400, "{body}");

    let games = cli_json(&["games", "--json"]);
    let list = server.json("/api/tables");
    for t in list["tables"].as_array().unwrap() {
        let family = t["family"].as_str().unwrap();
        let game = games
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["name"] == family)
            .unwrap_or_else(|| panic!("{family}"));
        assert!(game["rules"].as_str().unwrap().len() > 40, "{family}");
        assert_eq!(t["rules"], game["rules"], "{family}");
    }
}
