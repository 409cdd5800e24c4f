//! `retrograde play` driven through stdin, `line` and `completions`.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use crate::common::{bin, solve};

fn play(file: &Path, args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = bin()
        .arg("play")
        .arg(file)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn line_moves(file: &Path) -> Vec<String> {
    let o = bin().arg("line").arg(file).arg("--json").output().unwrap();
    assert!(o.status.success());
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter_map(|j| j["move"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_human_playing_the_best_line_wins_against_the_perfect_player() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("i.rtb");
    solve("isolation:4x4", &file, &[]);
    let moves = line_moves(&file);
    assert_eq!(moves.len(), 11, "the start is a win in 11: {moves:?}");
    assert_eq!(moves[0], "2x10");
    // The human plays the line's moves; the computer answers with the same
    // first-best moves the line shows, so the game follows the line.
    let mine: Vec<&str> = moves.iter().step_by(2).map(String::as_str).collect();
    let input = format!("hint\nnonsense\n{}\n", mine.join("\n"));
    let (ok, out, err) = play(&file, &[], &input);
    assert!(ok, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(out.contains("2x10        win in 10        best"), "{out}");
    assert!(out.contains("'nonsense' is not a legal move here"), "{out}");
    for (k, m) in moves.iter().enumerate() {
        let who = if k % 2 == 0 {
            "you play"
        } else {
            "computer plays"
        };
        assert!(out.contains(&format!("{who} {m}")), "{who} {m}:\n{out}");
    }
    assert!(out.trim_end().ends_with("Game over: you win."), "{out}");
}

#[test]
fn the_computer_wins_when_it_moves_first_and_quit_and_eof_end_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.rtb");
    solve("subtraction:20:1,3,4", &file, &[]);
    // 20 mod 7 = 6: a win for the first player, the computer. Whatever the
    // human takes, the computer wins; the human always takes 1.
    let (ok, out, _) = play(&file, &["--side", "second"], &"1\n".repeat(30));
    assert!(ok);
    assert!(out.contains("computer plays"), "{out}");
    assert!(
        out.trim_end().ends_with("Game over: the computer wins."),
        "{out}"
    );

    let (ok, out, _) = play(&file, &[], "quit\n");
    assert!(ok);
    assert!(out.contains("Bye."));
    let (ok, out, _) = play(&file, &[], "");
    assert!(ok);
    assert!(out.contains("end of input"));
    let (ok, _, err) = play(&file, &["--side", "middle"], "");
    assert!(!ok);
    assert!(err.starts_with("retrograde: error:") && err.trim().lines().count() == 1);
}

#[test]
fn line_prints_the_principal_variation_and_completions_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.rtb");
    solve("tictactoe", &file, &[]);
    let o = bin().arg("line").arg(&file).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    // A tie in 9: ten lines, the start and nine moves, ending on a full board.
    assert_eq!(text.lines().count(), 10, "{text}");
    assert!(text.lines().next().unwrap().contains("tie in 9"), "{text}");
    assert!(text.lines().last().unwrap().contains("tie in 0"), "{text}");
    for shell in ["bash", "zsh", "fish"] {
        let o = bin().args(["completions", shell]).output().unwrap();
        assert!(o.status.success());
        assert!(String::from_utf8_lossy(&o.stdout).contains("retrograde"));
    }
}

/// The squares a move names are on the board `play` draws, for every family
/// whose moves name squares: it drew the notation's rows alone, so "2x10"
/// or "a3>" named squares nowhere on screen (issue 24).
#[test]
fn the_board_shows_the_names_every_move_is_typed_in() {
    let dir = tempfile::tempdir().unwrap();
    for spec in [
        "isolation:3x4",
        "cram:3x3",
        "mnk:3x3x3",
        "pattern:games/tictactoe.txt",
        "connect:4x4",
        "dodgem:3",
        "sogo:2",
    ] {
        let file = dir.path().join("t.rtb");
        solve(spec, &file, &["--no-checkpoint"]);
        let (ok, out, err) = play(&file, &[], "quit\n");
        assert!(ok, "{spec}: {err}");
        // The board: the lines between the greeting and the position's line.
        let drawn: Vec<&str> = out
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with("    "))
            .collect();
        let words: Vec<&str> = drawn.iter().flat_map(|l| l.split_whitespace()).collect();
        let probe = bin()
            .arg("probe")
            .arg(&file)
            .args(["--moves", "--json"])
            .output()
            .unwrap();
        let start: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
        let moves = start["moves"].as_array().unwrap();
        assert!(!moves.is_empty(), "{spec}");
        for m in moves {
            let mv = m["move"].as_str().unwrap();
            let names: Vec<String> = match spec.split(':').next().unwrap() {
                "isolation" => mv.split('x').map(str::to_string).collect(),
                "cram" => mv.split('-').map(str::to_string).collect(),
                // A square named by file letter and rank: both are shown,
                // the rank beside its row and the file under its column.
                "dodgem" | "sogo" => {
                    let square = mv.trim_end_matches(['<', '>', '^', 'v']);
                    vec![square[..1].to_string(), square[1..].to_string()]
                }
                _ => vec![mv.to_string()],
            };
            for name in names {
                assert!(
                    words.contains(&name.as_str()),
                    "{spec}: move {mv} names {name}, not on the board:\n{}",
                    drawn.join("\n")
                );
            }
        }
    }
}
