//! `search --moves` against the tables' `probe --moves`: on every board a
//! table holds at small size, move by move, the value for the mover and
//! the remoteness (Connect-Four's from Pons' scores; the others' with
//! `--exact`), or the nimber of the position a move leads to, in the same
//! best-first order. Positions are the start and those along seeded
//! random lines, walked through the table's own moves.

use super::shared::Rng;
use crate::common;
use serde_json::Value as Json;
use std::collections::BTreeMap;

fn json(args: &[&str]) -> Json {
    let o = common::run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Each move's (value, remoteness, nimber) by its name, and the values in
/// order.
#[allow(clippy::type_complexity)]
fn by_move(moves: &Json) -> (BTreeMap<String, (Json, Json, Json)>, Vec<(Json, Json)>) {
    let moves = moves.as_array().unwrap();
    let map = moves
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                (
                    m["value"].clone(),
                    m["remoteness"].clone(),
                    m.get("nimber").cloned().unwrap_or(Json::Null),
                ),
            )
        })
        .collect();
    let order = moves
        .iter()
        .map(|m| (m["value"].clone(), m["remoteness"].clone()))
        .collect();
    (map, order)
}

/// Solves `spec` (with `solve_extra`) and compares `search --moves` (with
/// `search_extra`) with `probe --moves` on the start and the positions of
/// `lines` random lines; `remoteness`: whether the search gives it.
fn agree(spec: &str, solve_extra: &[&str], search_extra: &[&str], lines: usize, remoteness: bool) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.rtb");
    common::solve(spec, &table, solve_extra);
    let table = table.to_str().unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ spec.len() as u64);
    let mut compared = 0;
    for line in 0..=lines {
        let mut pos: Option<String> = None;
        loop {
            let mut args = vec!["probe", table];
            if let Some(p) = &pos {
                args.push(p);
            }
            args.extend(["--moves", "--json"]);
            let probe = json(&args);
            let probe = if probe.is_array() {
                probe[0].clone()
            } else {
                probe
            };
            let text = probe["position"].as_str().unwrap().to_string();
            let mut args = vec!["search", spec, &text, "--moves", "--json", "-q"];
            args.extend_from_slice(search_extra);
            let search = json(&args);
            let (want, want_order) = by_move(&probe["moves"]);
            let (got, got_order) = by_move(&search["moves"]);
            for (m, (v, r, n)) in &want {
                let Some((gv, gr, gn)) = got.get(m) else {
                    panic!("{spec} {text}: move {m} not listed: {search}");
                };
                assert_eq!(gv, v, "{spec} {text} {m}: value");
                if remoteness {
                    assert_eq!(gr, r, "{spec} {text} {m}: remoteness");
                }
                if !n.is_null() {
                    assert_eq!(gn, n, "{spec} {text} {m}: nimber");
                }
            }
            assert_eq!(got.len(), want.len(), "{spec} {text}: {search}");
            let drop_r = |o: Vec<(Json, Json)>| -> Vec<Json> {
                o.into_iter()
                    .map(|(v, r)| {
                        if remoteness {
                            Json::from(vec![v, r])
                        } else {
                            v
                        }
                    })
                    .collect()
            };
            assert_eq!(
                drop_r(got_order),
                drop_r(want_order),
                "{spec} {text}: order"
            );
            // The position's own value (and remoteness) is the table's.
            if search["value"].is_string() {
                assert_eq!(search["value"], probe["value"], "{spec} {text}");
                if remoteness {
                    assert_eq!(search["remoteness"], probe["remoteness"], "{spec} {text}");
                }
            }
            compared += 1;
            let moves = probe["moves"].as_array().unwrap();
            if moves.is_empty() || line == 0 {
                break;
            }
            let next = &moves[rng.below(moves.len())];
            pos = Some(next["position"].as_str().unwrap().to_string());
        }
    }
    assert!(compared > lines, "{spec}: {compared}");
}

#[test]
fn connect_four_scores_give_the_tables_remoteness() {
    agree("connect:4x4", &[], &[], 4, true);
    agree("connect:5x4", &[], &[], 3, true);
}

#[test]
fn connect_four_scores_at_one_and_two_threads() {
    for threads in ["1", "2"] {
        agree("connect:4x4", &[], &["--threads", threads], 2, true);
    }
}

/// The moves' scores shared between two threads (each takes the next
/// move, one score table between them) are the tables' on 5x4 too, and
/// on a 7x6 position the same as one thread's, move by move.
#[test]
fn connect_four_scores_shared_between_threads() {
    agree("connect:5x4", &[], &["--threads", "2"], 2, true);
    let scores = |threads: &str| {
        let j = json(&[
            "search",
            "connect:7x6",
            "7214174457716",
            "--moves",
            "--json",
            "-q",
            "--threads",
            threads,
        ]);
        let moves: BTreeMap<String, (Json, Json, Json)> = j["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let name = m["move"].as_str().unwrap().to_string();
                (
                    name,
                    (
                        m["value"].clone(),
                        m["remoteness"].clone(),
                        m["score"].clone(),
                    ),
                )
            })
            .collect();
        (j["score"].clone(), j["remoteness"].clone(), moves)
    };
    let one = scores("1");
    assert_eq!(one.2.len(), 7);
    assert!(one.2.values().all(|(_, _, s)| s.is_i64()), "{one:?}");
    assert_eq!(scores("2"), one);
}

/// With scores, the value table is not used: the report names the score
/// table it used rather than "0 of N entries used".
#[test]
fn a_scored_search_reports_the_score_table() {
    let out = common::run(&["search", "connect:5x4", "--moves"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("table       0 of"), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("scores      "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(!line.starts_with("scores      0 of"), "{line}");
    assert!(line.contains("entries of the score table used"), "{line}");
    let j = json(&["search", "connect:5x4", "--moves", "--json", "-q"]);
    assert!(j["score_table"]["used"].as_u64().unwrap() > 0, "{j}");
    // A value search names its table as before.
    let out = common::run(&["search", "connect:5x4"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\ntable       "), "{text}");
    assert!(!text.contains("\nscores      "), "{text}");
}

#[test]
fn pattern_games_with_exact_give_the_tables_remoteness() {
    agree("tictactoe", &[], &["--exact"], 4, true);
    agree("mnk:4x3x3", &[], &["--exact"], 3, true);
    // Without --exact, the values alone, in the same order of values.
    agree("tictactoe", &[], &[], 2, false);
}

#[test]
fn isolation_take_away_and_cram_with_exact() {
    agree("isolation:3x3", &[], &["--exact"], 3, true);
    agree(
        "isolation:4x4",
        &[],
        &["--exact", "--memory", "64M"],
        1,
        true,
    );
    agree("subtraction:20:1,3,4", &[], &["--exact"], 2, true);
    agree("cram:3x3", &[], &["--exact"], 3, true);
}

#[test]
fn cram_nimbers_are_the_tables() {
    agree("cram:3x4", &["--nimbers"], &["--nimber"], 3, false);
}

#[test]
fn the_text_names_the_viewpoint_and_exact_is_refused_where_it_has_no_meaning() {
    let out = common::run(&["search", "connect:4x4", "--moves", "-q"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("moves       4, each one's value for the player to move, player 0\n"),
        "{text}"
    );
    assert!(
        text.contains("  move  position             for the mover  score\n"),
        "{text}"
    );
    for args in [
        &["search", "cram:3x3", "--nimber", "--exact"][..],
        &["search", "sprouts:3", "--exact"],
    ] {
        common::refused_line(&common::run(args), "--exact");
    }
}
