//! One parser per game: `solve`, `probe`, `search` and the explorer's API
//! (`retrograde serve`) refuse the same bad specs and bad positions with
//! the same one line, for every family, and that line is the library's own
//! (`AnyGame::parse`, `Game::parse_position`). Before issue 25 the search
//! read mnk, pattern, Connect and Sogo specs and positions with its own
//! copies, whose messages differed (`search mnk:3x3x4`: "k = 4 does not
//! fit…"; `search sogo:2 a1z9`: "'z9' is not a column like a1").

use crate::common;
use retrograde::games::AnyGame;
use retrograde::with_game;
use retrograde::Game;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Output, Stdio};

/// Specs every command refuses (none is only too large for one of them),
/// covering every family and the `tictactoe` alias.
const BAD_SPECS: &[&str] = &[
    "mnk:3x3x4",
    "mnk:0x3x3",
    "mnk:3x3x3:misere:misere",
    "Mnk:3x3x3",
    "tictactoe:x",
    "pattern:t!:squares=3:lines=0",
    "pattern:t:squares=3:lines=0.3",
    "pattern:no-such-file.txt",
    "connect:2x2",
    "connect:4x4x0",
    "sogo:0",
    "sogo:2:junk",
    "isolation:1x1",
    "isolation:3x3:foo",
    "cram:0x3",
    "subtraction:5",
    "subtraction:5:0",
    "digits:x",
    "dodgem:9",
];

/// (spec, table name, bad positions) for a small table of every family.
const BAD_POSITIONS: &[(&str, &str, &[&str])] = &[
    ("sogo:2", "sogo", &["a1z9", "../..|../.x", "a1a1a1"]),
    (
        "connect:4x4",
        "connect",
        &["459", "..../....", "x.../..../..../...."],
    ),
    (
        "mnk:3x3x3",
        "mnk",
        &["xxx/xxx/...", "xq./.../...", "x.../..."],
    ),
    (
        "pattern:t:squares=3:lines=0.1",
        "pattern",
        &["xq.", "xx.", "x./."],
    ),
    ("isolation:3x3", "isolation", &["0../.../..2", "0../..."]),
    ("cram:3x3", "cram", &["..../...", "..q/.../..."]),
    ("subtraction:5:1,2", "subtraction", &["9", "x"]),
    ("digits:40", "digits", &["41", "4x"]),
    ("dodgem:3", "dodgem", &["...", "zz"]),
];

/// The one line a failed command wrote after `retrograde: error: `
/// (exit status 1, nothing else on stderr).
fn error_line(out: &Output, what: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{what}: expected exit 1: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    err.trim_end()
        .strip_prefix("retrograde: error: ")
        .unwrap_or_else(|| panic!("{what}: {err}"))
        .to_string()
}

#[test]
fn bad_specs_get_the_same_line_from_solve_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rtb");
    let out = out.to_str().unwrap();
    for spec in BAD_SPECS {
        let expected = AnyGame::parse(spec).unwrap_err().to_string();
        let solve = error_line(&common::run(&["solve", spec, "-o", out]), spec);
        let search = error_line(&common::run(&["search", spec, "-q"]), spec);
        assert_eq!(solve, expected, "solve {spec}");
        assert_eq!(search, expected, "search {spec}");
    }
    assert!(!Path::new(out).exists());
}

#[test]
fn bad_positions_get_the_same_line_from_probe_search_and_the_explorer() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (spec, name, _) in BAD_POSITIONS {
        let path = dir.path().join(format!("{name}.rtb"));
        common::solve(spec, &path, &[]);
        files.push(path);
    }
    let server = common::bin()
        .arg("serve")
        .args(&files)
        .args(["--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed on drop, so a failed assertion leaves no server behind.
    let mut server = Killed(server);
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .trim_end_matches('/')
        .to_string();
    let explorer = |name: &str, position: &str| -> String {
        let query: String = position
            .bytes()
            .map(|b| format!("%{b:02X}"))
            .collect::<Vec<_>>()
            .concat();
        let answer = ureq::get(&format!("{url}/api/tables/{name}/position?p={query}")).call();
        let (status, body) = match answer {
            Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
            Ok(r) => (r.status(), r.into_string().unwrap()),
            Err(e) => panic!("{name} {position}: {e}"),
        };
        assert_eq!(status, 400, "{name} {position}: {body}");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        json["error"].as_str().unwrap().to_string()
    };
    for ((spec, name, positions), file) in BAD_POSITIONS.iter().zip(&files) {
        let game = AnyGame::parse(spec).unwrap();
        let file = file.to_str().unwrap();
        for position in *positions {
            let what = format!("{spec} {position}");
            let reason =
                with_game!(&game, g => g.parse_position(position).map(drop)).expect_err(&what);
            let expected = retrograde::Error::BadPosition {
                input: position.to_string(),
                reason,
            }
            .to_string();
            let probe = error_line(&common::run(&["probe", file, position]), &what);
            assert_eq!(probe, expected, "probe {what}");
            // The search refuses loopy games (Dodgem) before any position.
            if !name.starts_with("dodgem") {
                let search = error_line(&common::run(&["search", spec, position, "-q"]), &what);
                assert_eq!(search, expected, "search {what}");
            }
            assert_eq!(explorer(name, position), expected, "explorer {what}");
        }
    }
}

struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
