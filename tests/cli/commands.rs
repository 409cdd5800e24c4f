//! End-to-end tests of the `retrograde` command: every subcommand run as a
//! separate process on small games (isolation 3x3, 3x4 and 4x4), the output
//! checked against the published 4×4 figures (REFERENCE.md, Isolation: Gao &
//! Li), and every kind of bad input checked to fail with one clear line on
//! stderr and a non-zero exit, never a panic.

use serde_json::Value as Json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use tempfile::TempDir;

use crate::common::bin;

/// The 4×4 start and its value (REFERENCE.md, Isolation table).
const START_4X4: &str = ".0../..../..../..1.";
/// REFERENCE.md 4×4 examples: player 0 to move, win in 7 / loss in 8.
const WIN_IN_7: &str = "0.../...x/.x../...1";
const LOSE_IN_8: &str = "0.../x.x./.1../....";
/// Entries of the 4×4 index: 16 · 15 · 2^14.
const ENTRIES_4X4: u64 = 16 * 15 * (1 << 14);

// ---------------------------------------------------------------- helpers

/// What a finished run printed, with the command line for messages.
struct Run {
    what: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn from(what: String, out: Output) -> Run {
        let run = Run {
            what,
            code: out.status.code(),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        };
        assert!(
            !run.stderr.contains("panicked") && !run.stdout.contains("panicked"),
            "`{}` panicked:\n{}",
            run.what,
            run.stderr
        );
        run
    }

    fn show(&self) -> String {
        format!(
            "`{}` exited {:?}\n--- stdout\n{}--- stderr\n{}",
            self.what, self.code, self.stdout, self.stderr
        )
    }

    /// Asserts exit 0 and returns stdout.
    fn ok(self) -> String {
        assert_eq!(self.code, Some(0), "{}", self.show());
        self.stdout
    }

    /// Asserts a non-zero exit with exactly one stderr line that starts
    /// `retrograde: error:`; returns that line.
    fn error(self) -> String {
        assert!(
            self.code.is_some_and(|c| c != 0),
            "expected failure: {}",
            self.show()
        );
        assert!(
            self.stderr.ends_with('\n') && self.stderr.lines().count() == 1,
            "expected exactly one stderr line: {}",
            self.show()
        );
        assert!(
            self.stderr.starts_with("retrograde: error: "),
            "expected `retrograde: error:`: {}",
            self.show()
        );
        self.stderr.trim_end().to_string()
    }

    /// Asserts clap's usage error: exit 2 and a usage hint on stderr.
    fn usage_error(self) {
        assert_eq!(self.code, Some(2), "{}", self.show());
        // Clap's errors start `error:`; no subcommand at all prints the help
        // (with its usage line) instead.
        assert!(
            self.stderr.starts_with("error: ") || self.stderr.contains("Usage: retrograde"),
            "{}",
            self.show()
        );
        assert!(self.stderr.contains("--help"), "{}", self.show());
        assert!(self.stdout.is_empty(), "{}", self.show());
    }
}

fn label(args: &[&str]) -> String {
    format!("retrograde {}", args.join(" "))
}

fn run(args: &[&str]) -> Run {
    let out = bin().args(args).output().expect("run retrograde");
    Run::from(label(args), out)
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    let out = bin()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run retrograde");
    Run::from(format!("(in {}) {}", dir.display(), label(args)), out)
}

fn run_stdin(args: &[&str], input: &str) -> Run {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn retrograde");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for retrograde");
    Run::from(format!("{} < {input:?}", label(args)), out)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("temp paths are UTF-8")
}

fn json(text: &str) -> Json {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn json_lines(text: &str) -> Vec<Json> {
    text.lines().map(json).collect()
}

/// Solves `game` into `dir/name` and returns the path.
fn solve_into(dir: &Path, game: &str, name: &str) -> PathBuf {
    let path = dir.join(name);
    run(&["solve", game, "-o", s(&path)]).ok();
    assert!(path.is_file(), "{} was not written", path.display());
    path
}

/// A fresh temporary directory holding a solved 4×4 table at `x.rtb`.
fn solved_4x4() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:4x4", "x.rtb");
    (dir, path)
}

fn no_partial_files(dir: &Path) {
    for entry in walk(dir) {
        assert!(
            !entry.to_string_lossy().ends_with(".partial"),
            "left behind: {}",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// Copies `src` to `dir/name` with `edit` applied to its bytes.
fn damaged(src: &Path, dir: &Path, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(src).unwrap();
    edit(&mut bytes);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn data_offset(file: &Path) -> usize {
    let info = json(&run(&["info", s(file), "--json"]).ok());
    info["data_offset"].as_u64().unwrap() as usize
}

fn u(j: &Json) -> u64 {
    j.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned integer: {j}"))
}

// ------------------------------------------------------------------ solve

#[test]
fn solve_4x4_prints_the_start_value_and_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.rtb");
    let out = run(&["solve", "isolation:4x4", "-o", s(&path)]).ok();
    assert!(
        out.lines()
            .any(|l| l == format!("start {START_4X4}: player 0 to move, win in 11")),
        "{out}"
    );
    assert!(out.contains("win in 11"), "{out}");
    assert!(out.contains("isolation:4x4:a=1,b=14"), "{out}");
    assert!(out.contains(&format!("wrote {}", path.display())), "{out}");
    let len = std::fs::metadata(&path).unwrap().len();
    assert!(len > ENTRIES_4X4, "file is only {len} bytes");
    no_partial_files(dir.path());
    assert_eq!(walk(dir.path()), vec![path]);
}

#[test]
fn solve_json_summary_names_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.rtb");
    let j = json(&run(&["solve", "isolation:4x4", "-o", s(&path), "--json"]).ok());
    assert_eq!(j["game"], "isolation:4x4:a=1,b=14");
    assert_eq!(u(&j["entries"]), ENTRIES_4X4);
    assert_eq!(j["start"]["position"], START_4X4);
    assert_eq!(j["start"]["value"], "win");
    assert_eq!(u(&j["start"]["remoteness"]), 11);
    no_partial_files(dir.path());
}

#[test]
fn dry_run_prints_the_cost_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.rtb");
    let dry = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "isolation:4x4",
            "--dry-run",
            "--json",
            "-o",
            s(&path),
        ];
        args.extend_from_slice(extra);
        json(&run(&args).ok())
    };
    let j = dry(&[]);
    assert_eq!(u(&j["entries"]), ENTRIES_4X4);
    assert_eq!(u(&j["cell_width"]), 1);
    // One page of header, then a byte per entry.
    assert_eq!(u(&j["file_bytes"]), ENTRIES_4X4 + 4096);
    assert!(u(&j["memory_bytes"]) >= u(&j["file_bytes"]));
    assert!(u(&j["disk_bytes"]) >= u(&j["file_bytes"]));
    assert!(j["seconds"].as_f64().unwrap() > 0.0, "{j}");
    // Folded: 33 of the 240 piece placements.
    assert_eq!(u(&dry(&["--fold"])["entries"]), ENTRIES_4X4 / 240 * 33);
    let text = run(&["solve", "isolation:4x4", "--dry-run", "-o", s(&path)]).ok();
    for part in [
        "entries       3,932,160",
        "file size",
        "peak memory",
        "disk needed",
        "time",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    // A loopy game's estimate counts its child counters too.
    let d = json(&run(&["solve", "dodgem:3", "--dry-run", "--json", "-o", s(&path)]).ok());
    assert!(u(&d["memory_bytes"]) > u(&d["file_bytes"]) + u(&d["entries"]));
    assert!(walk(dir.path()).is_empty(), "a dry run writes nothing");
}

#[test]
fn a_solve_too_big_for_this_machine_is_refused_before_it_starts() {
    // connect:8x4 has 133,453,017,031 entries: about 124 GiB.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.rtb");
    let e = run(&["solve", "connect:8x4", "-o", s(&path)]).error();
    assert!(e.contains("GiB") && e.contains("--force"), "{e}");
    assert!(walk(dir.path()).is_empty(), "nothing written: {e}");
}

#[test]
fn solve_default_path_is_tablebases_game_rtb_in_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["solve", "isolation:4x4"]).ok();
    let expected = dir.path().join("tablebases").join("isolation-4x4.rtb");
    assert!(expected.is_file(), "{out}");
    assert!(out.contains("wrote tablebases/isolation-4x4.rtb"), "{out}");
    assert!(out.contains("win in 11"), "{out}");
    no_partial_files(dir.path());
    assert_eq!(walk(&dir.path().join("tablebases")), vec![expected]);
}

#[test]
fn solve_default_path_names_a_non_default_start() {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), &["solve", "isolation:3x3"]).ok();
    run_in(dir.path(), &["solve", "isolation:3x3:a=0,b=8"]).ok();
    // Spelling out the default start squares gives the default name.
    run_in(dir.path(), &["solve", "isolation:3x4:a=1,b=10"]).ok();
    let tb = dir.path().join("tablebases");
    let mut names: Vec<String> = std::fs::read_dir(&tb)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "isolation-3x3-a0-b8.rtb",
            "isolation-3x3.rtb",
            "isolation-3x4.rtb"
        ]
    );
    let other = json(&run(&["info", s(&tb.join("isolation-3x3-a0-b8.rtb")), "--json"]).ok());
    assert_eq!(other["game"], "isolation:3x3:a=0,b=8");
    let default = json(&run(&["info", s(&tb.join("isolation-3x3.rtb")), "--json"]).ok());
    assert_eq!(default["game"], "isolation:3x3:a=1,b=7");
    // The index holds every placement, so only the spec and the start differ.
    let start =
        |name: &str| json(&run(&["probe", s(&tb.join(name)), "--json"]).ok())["position"].clone();
    assert_eq!(start("isolation-3x3-a0-b8.rtb"), "0../.../..1");
    assert_eq!(start("isolation-3x3.rtb"), ".0./.../.1.");
}

#[test]
fn solve_output_is_byte_identical_across_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.rtb");
    let two = dir.path().join("two.rtb");
    let out1 = run(&["solve", "isolation:4x4", "--threads", "1", "-o", s(&one)]).ok();
    let out2 = run(&["solve", "isolation:4x4", "--threads", "2", "-o", s(&two)]).ok();
    assert!(out1.contains("with 1 thread "), "{out1}");
    assert!(out2.contains("with 2 threads"), "{out2}");
    let (a, b) = (std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    assert_eq!(a.len(), b.len());
    assert!(a == b, "--threads 1 and --threads 2 files differ");
    no_partial_files(dir.path());
}

#[test]
fn solve_overwrites_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.rtb");
    std::fs::write(&path, "old contents").unwrap();
    solve_into(dir.path(), "isolation:3x3", "x.rtb");
    let first = std::fs::read(&path).unwrap();
    solve_into(dir.path(), "isolation:3x3", "x.rtb");
    assert_eq!(std::fs::read(&path).unwrap(), first);
    run(&["verify", s(&path)]).ok();
    no_partial_files(dir.path());
}

// ------------------------------------------------------------------- info

#[test]
fn info_json_agrees_with_the_solve_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.rtb");
    let solved = json(&run(&["solve", "isolation:4x4", "-o", s(&path), "--json"]).ok());
    let info = json(&run(&["info", s(&path), "--json"]).ok());
    for key in ["game", "entries", "data_crc32", "counts", "max_remoteness"] {
        assert!(!info[key].is_null(), "info --json lacks {key}: {info}");
        assert_eq!(info[key], solved[key], "{key}");
    }
    assert_eq!(info["game"], "isolation:4x4:a=1,b=14");
    assert_eq!(u(&info["entries"]), ENTRIES_4X4);

    // Every index of the 4×4 index is a position, and there are no draws or ties.
    let c = &info["counts"];
    assert_eq!(u(&c["win"]) + u(&c["lose"]), ENTRIES_4X4, "{c}");
    assert_eq!(
        u(&c["tie"]) + u(&c["draw"]) + u(&c["non_positions"]),
        0,
        "{c}"
    );
    let m = &info["max_remoteness"];
    // The start is a win in 11, so the largest win remoteness is at least 11,
    // and a loss's remoteness is at most the board's 14 free squares.
    assert!(u(&m["win"]) >= 11 && u(&m["lose"]) <= 14, "{m}");
    assert_eq!(u(&m["tie"]), 0);

    // The CRC and sizes describe the bytes on disk.
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(u(&info["file_size"]), bytes.len() as u64);
    let offset = u(&info["data_offset"]) as usize;
    assert_eq!(offset % 4096, 0);
    assert_eq!((bytes.len() - offset) as u64, ENTRIES_4X4);
    let crc = format!("{:08x}", crc32fast::hash(&bytes[offset..]));
    assert_eq!(info["data_crc32"], crc.as_str());

    // The text form says the same.
    let text = run(&["info", s(&path)]).ok();
    assert!(text.contains("isolation:4x4:a=1,b=14"), "{text}");
    assert!(text.contains(&crc), "{text}");
    assert!(text.contains("3,932,160"), "{text}");
}

// ------------------------------------------------------------------ probe

#[test]
fn probe_without_a_position_probes_the_start() {
    let (_dir, path) = solved_4x4();
    let out = run(&["probe", s(&path)]).ok();
    assert_eq!(out, format!("{START_4X4}: player 0 to move, win in 11\n"));
    let j = json(&run(&["probe", s(&path), "--json"]).ok());
    assert_eq!(j["position"], START_4X4);
    assert_eq!(j["value"], "win");
    assert_eq!(u(&j["remoteness"]), 11);
    assert_eq!(u(&j["to_move"]), 0);
    assert_eq!(j["primitive"], false);
}

#[test]
fn probe_several_positions_as_json() {
    let (_dir, path) = solved_4x4();
    let out = run(&["probe", s(&path), WIN_IN_7, LOSE_IN_8, "--json"]).ok();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2, "{out}");
    for (j, (pos, value, r)) in lines
        .iter()
        .zip([(WIN_IN_7, "win", 7), (LOSE_IN_8, "lose", 8)])
    {
        for key in ["position", "value", "remoteness"] {
            assert!(!j[key].is_null(), "no {key}: {j}");
        }
        assert_eq!(j["position"], pos);
        assert_eq!(j["value"], value);
        assert_eq!(u(&j["remoteness"]), r);
    }
    // Text form, one line per position.
    let text = run(&["probe", s(&path), WIN_IN_7, LOSE_IN_8]).ok();
    assert_eq!(
        text,
        format!(
            "{WIN_IN_7}: player 0 to move, win in 7\n{LOSE_IN_8}: player 0 to move, lose in 8\n"
        )
    );
}

#[test]
fn probe_prints_positions_in_canonical_notation() {
    let (_dir, path) = solved_4x4();
    let j = json(&run(&["probe", s(&path), " 0.../...X/.X../...1 ", "--json"]).ok());
    assert_eq!(j["position"], WIN_IN_7);
    assert_eq!(u(&j["remoteness"]), 7);
}

#[test]
fn probe_a_game_over_position() {
    let (_dir, path) = solved_4x4();
    // Player 0 (to move: 14 squares removed) is walled in.
    let j = json(
        &run(&[
            "probe",
            s(&path),
            "01xx/xxxx/xxxx/xxxx",
            "--moves",
            "--json",
        ])
        .ok(),
    );
    assert_eq!(j["value"], "lose");
    assert_eq!(u(&j["remoteness"]), 0);
    assert_eq!(j["primitive"], true);
    assert_eq!(j["moves"], Json::Array(vec![]));
}

/// Rank of a move's result for the mover: wins first by smallest
/// remoteness, then ties, then losses by largest remoteness.
fn move_rank(m: &Json) -> (u8, i64) {
    let r = m["remoteness"].as_i64().unwrap_or(0);
    match m["value"].as_str().unwrap() {
        "win" => (0, r),
        "tie" => (1, r),
        "draw" => (2, 0),
        "lose" => (3, -r),
        other => panic!("unknown value {other}"),
    }
}

/// Checks a `probe --moves --json` object: ranked best first, `best` on
/// exactly the top-ranked moves, and consistent with the position's value.
fn check_moves(j: &Json) -> &Vec<Json> {
    let moves = j["moves"].as_array().expect("moves array");
    assert!(!moves.is_empty(), "{j}");
    for m in moves {
        for key in ["move", "position", "value", "remoteness", "best"] {
            assert!(!m[key].is_null(), "move lacks {key}: {m}");
        }
    }
    let ranks: Vec<_> = moves.iter().map(move_rank).collect();
    assert!(
        ranks.windows(2).all(|w| w[0] <= w[1]),
        "moves not best first: {ranks:?}"
    );
    for (m, r) in moves.iter().zip(&ranks) {
        assert_eq!(m["best"], *r == ranks[0], "best flag of {m}");
    }
    // The position's value follows from its best move.
    let top = &moves[0];
    assert_eq!(j["value"], top["value"], "{j}");
    assert_eq!(u(&j["remoteness"]), u(&top["remoteness"]) + 1, "{j}");
    let mut seen: Vec<&str> = moves.iter().map(|m| m["move"].as_str().unwrap()).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), moves.len(), "duplicate moves");
    moves
}

#[test]
fn probe_moves_ranks_moves_best_first() {
    let (_dir, path) = solved_4x4();
    let j = json(&run(&["probe", s(&path), "--moves", "--json"]).ok());
    assert_eq!(j["position"], START_4X4);
    let moves = check_moves(&j);
    // Player 0 on square 1 has 5 steps, each with 14 squares to remove.
    assert_eq!(moves.len(), 5 * 14);
    // REFERENCE.md: the only winning first move is 2x10, leaving player 1 a
    // loss in 10.
    let best: Vec<&Json> = moves.iter().filter(|m| m["best"] == true).collect();
    assert_eq!(best.len(), 1, "{best:?}");
    assert_eq!(best[0]["move"], "2x10");
    assert_eq!(best[0]["position"], "..0./..../..x./..1.");
    assert_eq!(best[0]["value"], "win");
    assert_eq!(u(&best[0]["remoteness"]), 10);
    assert_eq!(moves.iter().filter(|m| m["value"] == "win").count(), 1);
    // Every move's position, probed on its own, has the flipped value.
    let child = json(&run(&["probe", s(&path), "..0./..../..x./..1.", "--json"]).ok());
    assert_eq!(child["value"], "lose");
    assert_eq!(u(&child["remoteness"]), 10);
    assert_eq!(u(&child["to_move"]), 1);
    let last = moves.last().unwrap();
    let probed = json(
        &run(&[
            "probe",
            s(&path),
            last["position"].as_str().unwrap(),
            "--json",
        ])
        .ok(),
    );
    assert_eq!(probed["value"], "win");
    assert_eq!(probed["remoteness"], last["remoteness"]);
}

#[test]
fn probe_moves_marks_every_equally_good_move_best() {
    let (_dir, path) = solved_4x4();
    let out = run(&["probe", s(&path), WIN_IN_7, LOSE_IN_8, "--moves", "--json"]).ok();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    let win = check_moves(&lines[0]);
    assert!(
        win.iter().filter(|m| m["best"] == true).count() > 1,
        "{WIN_IN_7} has several shortest wins"
    );
    let lose = check_moves(&lines[1]);
    assert!(lose.iter().all(|m| m["value"] == "lose"));
    // Text form: a header line, then one line per move, best ones marked.
    let text = run(&["probe", s(&path), WIN_IN_7, "--moves"]).ok();
    assert_eq!(text.lines().count(), 2 + win.len(), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.ends_with("  best")).count(),
        win.iter().filter(|m| m["best"] == true).count()
    );
}

#[test]
fn probe_reads_positions_from_stdin() {
    let (_dir, path) = solved_4x4();
    let input = format!("{WIN_IN_7}\n\n  {LOSE_IN_8}  \n{START_4X4}");
    let out = run_stdin(&["probe", s(&path), "-", "--json"], &input).ok();
    let lines = json_lines(&out);
    let got: Vec<(String, String, u64)> = lines
        .iter()
        .map(|j| {
            (
                j["position"].as_str().unwrap().to_string(),
                j["value"].as_str().unwrap().to_string(),
                u(&j["remoteness"]),
            )
        })
        .collect();
    let want = [
        (WIN_IN_7, "win", 7),
        (LOSE_IN_8, "lose", 8),
        (START_4X4, "win", 11),
    ]
    .map(|(p, v, r)| (p.to_string(), v.to_string(), r));
    assert_eq!(got, want);

    // Text form, and `-` mixed with a position on the command line.
    let out = run_stdin(
        &["probe", s(&path), WIN_IN_7, "-"],
        &format!("{LOSE_IN_8}\n"),
    )
    .ok();
    assert_eq!(
        out,
        format!(
            "{WIN_IN_7}: player 0 to move, win in 7\n{LOSE_IN_8}: player 0 to move, lose in 8\n"
        )
    );
    // No input (or only blank lines) is an error: the caller asked for
    // answers and would otherwise get none, with success.
    for input in ["", "\n  \n"] {
        let err = run_stdin(&["probe", s(&path), "-"], input).error();
        assert!(
            err.contains("standard input") && err.contains("held none"),
            "{err}"
        );
    }
}

#[test]
fn probe_from_stdin_reports_bad_lines_and_carries_on() {
    let (_dir, path) = solved_4x4();
    let input = format!("{WIN_IN_7}\nnonsense\n{LOSE_IN_8}\n");
    let r = run_stdin(&["probe", s(&path), "-", "--json"], &input);
    assert_eq!(r.code, Some(1), "{}", r.show());
    let lines = json_lines(&r.stdout);
    assert_eq!(lines.len(), 3, "{}", r.show());
    assert_eq!(u(&lines[0]["remoteness"]), 7);
    assert_eq!(lines[1]["position"], "nonsense");
    assert!(lines[1]["error"].as_str().unwrap().contains("bad position"));
    assert_eq!(u(&lines[2]["remoteness"]), 8);

    let r = run_stdin(&["probe", s(&path), "-"], &input);
    let stdout = r.stdout.clone();
    let err = r.error();
    assert!(err.contains("bad position 'nonsense'"), "{err}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
}

// ---------------------------------------------------------------- analyze

#[test]
fn analyze_4x4_matches_the_published_figures() {
    let (_dir, path) = solved_4x4();
    let j = json(&run(&["analyze", s(&path), "--json"]).ok());
    // REFERENCE.md, Isolation table, 4×4 row (Gao & Li).
    assert_eq!(u(&j["reachable"]), 3_617_229);
    assert_eq!(u(&j["primitive"]), 231_480);
    assert_eq!(u(&j["win_not_primitive"]), 2_737_177);
    assert_eq!(u(&j["lose_not_primitive"]), 648_572);
    assert_eq!(j["start"]["value"], "win");
    assert_eq!(u(&j["start"]["remoteness"]), 11);
    let avg = j["average_moves"].as_f64().unwrap();
    assert_eq!(format!("{avg:.3}"), "17.246");
    assert_eq!(j["game"], "isolation:4x4:a=1,b=14");
    // Internal consistency.
    assert_eq!(u(&j["win"]) + u(&j["lose"]), 3_617_229);
    assert_eq!(u(&j["tie"]) + u(&j["draw"]), 0);
    let tiers: u64 = j["tiers"].as_object().unwrap().values().map(u).sum();
    assert_eq!(tiers, 3_617_229);
    let wins: u64 = j["remoteness"]["win"]
        .as_array()
        .unwrap()
        .iter()
        .map(u)
        .sum();
    assert_eq!(wins, u(&j["win"]));

    let text = run(&["analyze", s(&path)]).ok();
    for needle in ["3,617,229", "231,480", "17.246", "win in 11"] {
        assert!(text.contains(needle), "no {needle} in:\n{text}");
    }
}

/// `analyze` lists tiers in the order of play, the start's tier first and
/// labelled (it listed tier 0, the end of the game, first).
#[test]
fn analyze_lists_tiers_in_the_order_of_play() {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:3x3", "t.rtb");
    let j = json(&run(&["analyze", s(&path), "--json"]).ok());
    let mut want: Vec<(u64, u64)> = j["tiers"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), u(v)))
        .collect();
    want.sort_by_key(|&(tier, _)| std::cmp::Reverse(tier));
    // Two pieces on nine squares: the start is alone in tier 7.
    assert_eq!(want[0], (7, 1), "{want:?}");
    let text = run(&["analyze", s(&path)]).ok();
    let (_, listed) = text
        .split_once("positions per tier, in the order of play (the start's tier first; no move goes to a higher tier):\n")
        .unwrap_or_else(|| panic!("{text}"));
    let got: Vec<(u64, u64)> = listed
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w[0], "tier", "{l}");
            (
                w[1].parse().unwrap(),
                w[2].replace(',', "").parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
    assert!(
        listed.starts_with("  tier   7               1  (the start's tier)\n"),
        "{listed}"
    );
}

// ----------------------------------------------------------------- verify

#[test]
fn verify_accepts_a_good_file() {
    let (_dir, path) = solved_4x4();
    let out = run(&["verify", s(&path)]).ok();
    assert!(out.contains("data CRC32  ok"), "{out}");
    assert!(out.contains("re-derived  ok"), "{out}");
    let j = json(&run(&["verify", s(&path), "--json", "--crc-only"]).ok());
    assert_eq!(j["ok"], true);
    assert_eq!(j["data_crc_ok"], true);
    assert_ne!(j["manifest_ok"], false, "{j}");
}

#[test]
fn verify_refuses_a_flipped_data_byte_that_probe_does_not_notice() {
    let (dir, path) = solved_4x4();
    let offset = data_offset(&path);
    // Far from the start's cell, so probing the start still answers.
    let bad = damaged(&path, dir.path(), "data.rtb", |b| {
        let at = offset + 1000;
        b[at] ^= 0x01;
    });
    // probe and info check only the header.
    let out = run(&["probe", s(&bad)]).ok();
    assert!(out.contains("win in 11"), "{out}");
    run(&["info", s(&bad)]).ok();

    for extra in [&[][..], &["--crc-only"][..]] {
        let mut args = vec!["verify", s(&bad)];
        args.extend_from_slice(extra);
        let r = run(&args);
        let stdout = r.stdout.clone();
        let err = r.error();
        assert!(err.contains("verification failed"), "{err}");
        assert!(stdout.contains("data CRC32  FAILED"), "{stdout}");
        assert!(stdout.contains("data checksum mismatch"), "{stdout}");
    }
    let r = run(&["verify", s(&bad), "--json"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    let j = json(&r.stdout);
    assert_eq!(j["ok"], false);
    assert_eq!(j["data_crc_ok"], false);
}

#[test]
fn verify_sample_passes_a_good_file_and_names_its_seed() {
    let (_dir, path) = solved_4x4();
    let out = run(&["verify", s(&path), "--sample", "300"]).ok();
    for needle in [
        "data CRC32  skipped",
        "statistics  skipped",
        "manifest    ok",
        "sampled     ok",
        "300 of them positions re-derived",
    ] {
        assert!(out.contains(needle), "no {needle:?} in:\n{out}");
    }
    let j = json(&run(&["verify", s(&path), "--sample", "300", "--json"]).ok());
    assert_eq!(j["ok"], true, "{j}");
    assert_eq!(j["positions"], 300, "{j}");
    assert_eq!(j["mismatches"], 0, "{j}");
    assert_eq!(j["exhaustive"], false, "{j}");
    assert!(u(&j["checked"]) >= 300, "{j}");
    assert_eq!(j["data_crc_ok"], Json::Null, "{j}");
    // The default seed is printed, and naming it repeats the sample.
    let seed = u(&j["seed"]).to_string();
    assert!(out.contains(&format!("seed {:#x}", u(&j["seed"]))), "{out}");
    let again = json(
        &run(&[
            "verify",
            s(&path),
            "--sample",
            "300",
            "--seed",
            &seed,
            "--json",
        ])
        .ok(),
    );
    assert_eq!(again, j);
    let other = json(
        &run(&[
            "verify",
            s(&path),
            "--sample",
            "300",
            "--seed",
            "7",
            "--json",
        ])
        .ok(),
    );
    assert_eq!(other["seed"], 7);
    assert_eq!(other["ok"], true, "{other}");
}

#[test]
fn verify_sample_finds_a_flipped_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:3x3", "s.rtb");
    let offset = data_offset(&path);
    let info = json(&run(&["info", s(&path), "--json"]).ok());
    let entries = u(&info["entries"]);
    // One bit of one cell flipped, the data CRC left stale: the sample skips
    // the CRC, so the rules must catch it (at the cell itself, and at any
    // parent whose value it changes).
    let bad = damaged(&path, dir.path(), "bad.rtb", |b| b[offset + 77] ^= 0x02);
    // N at least the table's positions: every index is checked.
    let r = run(&["verify", s(&bad), "--sample", &entries.to_string()]);
    let stdout = r.stdout.clone();
    assert!(r.error().contains("verification failed"));
    assert!(stdout.contains("sampled     FAILED: "), "{stdout}");
    assert!(stdout.contains("index 77 "), "{stdout}");
    assert!(stdout.contains("data CRC32  skipped"), "{stdout}");
    let j = json(&run(&["verify", s(&bad), "--sample", "1000000", "--json"]).stdout);
    assert_eq!(j["ok"], false, "{j}");
    assert_eq!(j["exhaustive"], true, "{j}");
    assert!(u(&j["mismatches"]) >= 1, "{j}");
    assert_eq!(j["checked"], entries, "{j}");
    let listed = j["first_mismatches"].as_array().unwrap();
    assert!(listed.iter().any(|m| m["index"] == 77), "{j}");
    // The full verify names the stale CRC instead.
    let full = run(&["verify", s(&bad)]);
    assert!(
        full.stdout.contains("data CRC32  FAILED"),
        "{}",
        full.stdout
    );

    // A random sample on a table whose cells are all damaged finds them.
    let (dir4, path4) = solved_4x4();
    let offset = data_offset(&path4);
    let bad = damaged(&path4, dir4.path(), "all.rtb", |b| {
        for x in &mut b[offset..] {
            *x ^= 0x04;
        }
    });
    let r = run(&["verify", s(&bad), "--sample", "50", "--json"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    let j = json(&r.stdout);
    assert_eq!(j["positions"], 50, "{j}");
    assert_eq!(j["exhaustive"], false, "{j}");
    // Not all 50: a shifted cell can still agree with its shifted children.
    assert!(u(&j["mismatches"]) >= 1, "{j}");
}

#[test]
fn verify_sample_refuses_bad_numbers_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:3x3", "s.rtb");
    let p = s(&path);
    for n in ["0", "abc", "-1", "", "1.5", "99999999999999999999999"] {
        let err = run(&["verify", p, "--sample", n]).error();
        assert!(err.contains("--sample"), "{n:?}: {err}");
    }
    for seed in ["x", "-3", "0xzz"] {
        let err = run(&["verify", p, "--sample", "5", "--seed", seed]).error();
        assert!(err.contains("--seed"), "{seed:?}: {err}");
    }
    // --seed without --sample and --sample with --crc-only are usage errors.
    run(&["verify", p, "--seed", "5"]).usage_error();
    run(&["verify", p, "--sample", "5", "--crc-only"]).usage_error();
}

// ------------------------------------------------------------- bad input

#[test]
fn unknown_game_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = run_in(dir.path(), &["solve", "chess"]).error();
    assert!(err.contains("unknown game 'chess'"), "{err}");
    assert!(err.contains("isolation"), "{err}");
    assert!(walk(dir.path()).is_empty(), "nothing may be written");
}

#[test]
fn bad_game_parameters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, why) in [
        ("isolation:1x5", "too small"),
        ("isolation:6x6", "at most 30"),
        ("isolation:4x4:a=3,b=3", "must differ"),
        ("isolation:4x4:a=99", "off the board"),
        ("isolation:axb", "board size"),
        ("isolation", "board size"),
        ("isolation:", "board size"),
        ("isolation:4x4:c=1", "unknown parameter"),
        ("isolation:4x4:a", "expected a=SQUARE,b=SQUARE or misere"),
        ("isolation:4x4:a=-1", "not a square number"),
        ("isolation:99999x99999", "at most 30"),
        ("", "unknown game"),
    ] {
        let err = run_in(dir.path(), &["solve", spec]).error();
        assert!(err.contains(why), "{spec}: {err}");
    }
    assert!(walk(dir.path()).is_empty(), "nothing may be written");
}

#[test]
fn malformed_positions_are_refused() {
    let (_dir, path) = solved_4x4();
    for (pos, why) in [
        (".0../..../..../..1z", "unexpected 'z'"),
        (".0../..../..../..1é", "unexpected 'é'"),
        ("..../..../..../..1.", "player 0's piece ('0') is missing"),
        (".0../..../..../....", "player 1's piece ('1') is missing"),
        ("00../..../..../..1.", "appears twice"),
        (".0../..../..../.11.", "appears twice"),
        (".0../...../..../..1.", "row 2 has 5 squares"),
        (".0../..../..1.", "expected 4 rows"),
        ("", "expected 4 rows"),
        // A 3×3 position against the 4×4 table.
        (".0./.../.1.", "expected 4 rows"),
    ] {
        let err = run(&["probe", s(&path), pos]).error();
        assert!(err.contains("bad position"), "{pos}: {err}");
        assert!(err.contains(why), "{pos}: {err}");
        let err = run(&["probe", s(&path), pos, "--moves"]).error();
        assert!(err.contains(why), "{pos}: {err}");
        // With --json the error is a JSON object on stdout.
        let r = run(&["probe", s(&path), pos, "--json"]);
        assert_eq!(r.code, Some(1), "{}", r.show());
        let j = json(&r.stdout);
        assert_eq!(j["position"], pos);
        assert!(j["error"].as_str().unwrap().contains(why), "{j}");
    }
    // Good positions before a bad one are still answered.
    let r = run(&["probe", s(&path), WIN_IN_7, ".0./.../.1."]);
    assert_eq!(
        r.stdout,
        format!("{WIN_IN_7}: player 0 to move, win in 7\n")
    );
    r.error();
}

#[test]
fn a_4x4_position_is_refused_by_a_3x3_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:3x3", "s.rtb");
    let err = run(&["probe", s(&path), START_4X4]).error();
    assert!(err.contains("expected 3 rows"), "{err}");
}

/// An impartial game has no side to name: its start was printed as
/// "1000: to move, win in 571", as if "to move" were a player.
#[test]
fn impartial_positions_are_told_for_the_player_to_move() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rtb");
    let out = run(&["solve", "subtraction:1000:1,3,4", "-o", s(&path)]).ok();
    assert!(
        out.ends_with("\nstart 1000: the player to move wins in 571\n"),
        "{out}"
    );
    assert_eq!(
        run(&["probe", s(&path), "0", "7"]).ok(),
        "0: the player to move loses in 0 (game over)\n7: the player to move loses in 4\n"
    );
    let line = run(&["line", s(&path), "7"]).ok();
    assert!(
        line.starts_with("   0  start       7: the player to move loses in 4\n"),
        "{line}"
    );
    let nimbers = dir.path().join("n.rtb");
    let out = run(&[
        "solve",
        "subtraction:30:1,3,4",
        "--nimbers",
        "-o",
        s(&nimbers),
    ])
    .ok();
    assert!(
        out.ends_with("\nstart 30: nimber 0, the player to move loses\n"),
        "{out}"
    );
    assert_eq!(
        run(&["probe", s(&nimbers), "29", "0"]).ok(),
        "29: nimber 1, the player to move wins\n0: nimber 0, the player to move loses (game over)\n"
    );
    // A game with players still names the one to move.
    let (_dir, iso) = solved_4x4();
    assert_eq!(
        run(&["probe", s(&iso)]).ok(),
        format!("{START_4X4}: player 0 to move, win in 11\n")
    );
}

const READERS: [&str; 4] = ["info", "probe", "analyze", "verify"];

/// Every command that reads a table refuses `file` with one line containing `why`.
fn all_refuse(file: &Path, why: &str) {
    for cmd in READERS {
        let err = run(&[cmd, s(file)]).error();
        assert!(err.contains(why), "{cmd} {}: {err}", file.display());
        assert!(err.contains(s(file)), "names the file: {err}");
    }
    let err = run(&["probe", s(file), START_4X4, "--json"]).error();
    assert!(err.contains(why), "{err}");
}

#[test]
fn a_missing_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    all_refuse(&dir.path().join("nope.rtb"), "No such file");
}

#[test]
fn an_empty_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.rtb");
    std::fs::write(&path, b"").unwrap();
    all_refuse(&path, "empty");
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    all_refuse(dir.path(), "directory");
    // And solve will not write onto a directory.
    let err = run(&["solve", "isolation:3x3", "-o", s(dir.path())]).error();
    assert!(err.contains("directory"), "{err}");
}

#[test]
fn a_text_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "this is not a tablebase\n".repeat(500)).unwrap();
    all_refuse(&path, "not a retrograde tablebase");
}

#[test]
fn truncated_and_extended_files_are_refused() {
    let (dir, path) = solved_4x4();
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    for (name, keep) in [
        ("cut1.rtb", len - 1),
        ("page.rtb", 4096),
        ("head.rtb", 200),
        ("fixed.rtb", 50),
        ("magic.rtb", 8),
        ("three.rtb", 3),
    ] {
        let bad = damaged(&path, dir.path(), name, |b| b.truncate(keep));
        let why = if keep < 8 { "bad magic" } else { "truncated" };
        all_refuse(&bad, why);
    }
    let long = damaged(&path, dir.path(), "long.rtb", |b| b.push(0));
    all_refuse(&long, "truncated or damaged");
}

#[test]
fn a_flipped_header_byte_is_refused() {
    let (dir, path) = solved_4x4();
    // Byte 33 lies in the entry count.
    let bad = damaged(&path, dir.path(), "hdr.rtb", |b| b[33] ^= 0x10);
    all_refuse(&bad, "header checksum mismatch");
    let bad = damaged(&path, dir.path(), "magic.rtb", |b| b[1] = b'X');
    all_refuse(&bad, "bad magic");
}

#[test]
fn every_flipped_header_byte_is_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:3x3", "s.rtb");
    let bytes = std::fs::read(&path).unwrap();
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert!((104..4096).contains(&header_len), "{header_len}");
    let bad = dir.path().join("bad.rtb");
    for i in 0..header_len {
        let mut b = bytes.clone();
        b[i] ^= 0x10;
        std::fs::write(&bad, &b).unwrap();
        let err = run(&["info", s(&bad)]).error();
        assert!(err.contains(s(&bad)), "byte {i}: {err}");
    }
}

#[test]
fn zero_threads_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:3x3", "s.rtb");
    let out = dir.path().join("t.rtb");
    for args in [
        vec!["solve", "isolation:3x3", "--threads", "0", "-o", s(&out)],
        vec!["analyze", s(&path), "--threads", "0"],
        vec!["verify", s(&path), "--threads", "0"],
    ] {
        let err = run(&args).error();
        assert!(err.contains("--threads"), "{err}");
    }
    assert!(!out.exists());
    no_partial_files(dir.path());
}

#[test]
fn bad_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), "isolation:3x3", "s.rtb");
    let p = s(&path);
    for args in [
        &[][..],
        &["bogus"][..],
        &["solve"][..],
        &["solve", "isolation:3x3", "--threads", "abc"][..],
        &["solve", "isolation:3x3", "--threads", "-1"][..],
        &["solve", "isolation:3x3", "-o"][..],
        &["probe"][..],
        &["probe", p, "--bogus"][..],
        &["info"][..],
        &["info", p, "extra"][..],
        &["analyze", p, "--threads"][..],
        &["verify", p, "--crc"][..],
        &["games", "extra"][..],
    ] {
        run(args).usage_error();
    }
}

// ---------------------------------------------------- help, version, games

#[test]
fn help_works_for_every_subcommand() {
    let top = run(&["--help"]).ok();
    for sub in ["solve", "info", "probe", "analyze", "verify", "games"] {
        assert!(top.contains(sub), "--help does not list {sub}:\n{top}");
        let help = run(&[sub, "--help"]).ok();
        assert!(
            help.contains(&format!("Usage: retrograde {sub}")),
            "{sub} --help:\n{help}"
        );
        assert_eq!(run(&["help", sub]).ok(), help);
    }
    let probe = run(&["probe", "--help"]).ok();
    assert!(
        probe.contains("--moves") && probe.contains("--json"),
        "{probe}"
    );
    let solve = run(&["solve", "--help"]).ok();
    assert!(
        solve.contains("--output") && solve.contains("--threads"),
        "{solve}"
    );
}

#[test]
fn version_prints_the_version() {
    let out = run(&["--version"]).ok();
    assert_eq!(
        out.trim(),
        format!("retrograde {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(run(&["-V"]).ok(), out);
}

#[test]
fn games_lists_isolation() {
    let out = run(&["games"]).ok();
    assert!(out.lines().any(|l| l == "isolation"), "{out}");
    let j = json(&run(&["games", "--json"]).ok());
    let names: Vec<&str> = j
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"isolation"), "{j}");
    let iso = j
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "isolation")
        .unwrap();
    assert_eq!(iso["example_spec"], "isolation:4x4");
    // The example position is one the example game accepts.
    let dir = tempfile::tempdir().unwrap();
    let path = solve_into(dir.path(), iso["example_spec"].as_str().unwrap(), "e.rtb");
    let probed = json(
        &run(&[
            "probe",
            s(&path),
            iso["example_position"].as_str().unwrap(),
            "--json",
        ])
        .ok(),
    );
    assert_eq!(probed["position"], iso["example_position"]);
}

/// I/O errors name the path and the OS error once each (they once repeated
/// both: `nope.rtb: cannot open nope.rtb: No such file … (os error 2): No such file … (os error 2)`).
#[test]
fn io_errors_say_the_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.rtb");
    let err = run(&["info", s(&missing)]).error();
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    assert_eq!(err.matches(s(&missing)).count(), 1, "{err}");
}
