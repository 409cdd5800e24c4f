//! Replays the fuzz corpus (fuzz/corpus/TARGET/*) through the same checks as
//! the fuzz targets (fuzz/checks.rs), so `cargo test` on the stable toolchain
//! keeps every seed and every input the fuzzers once found passing.

use retrograde::Game;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
mod checks {
    include!("../../fuzz/checks.rs");
}

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "{}: only {} seeds",
        dir.display(),
        files.len()
    );
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// Runs `check` on every file of a target's corpus, naming the file that fails.
fn replay(target: &str, check: impl Fn(&[u8])) {
    for (path, bytes) in corpus(target) {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes)));
        assert!(ok.is_ok(), "{} fails its check", path.display());
    }
}

/// The text targets skip input that is not UTF-8, as the fuzz targets do.
fn text(check: impl Fn(&str)) -> impl Fn(&[u8]) {
    move |b| {
        if let Ok(s) = std::str::from_utf8(b) {
            check(s)
        }
    }
}

#[test]
fn header_corpus() {
    replay("header", checks::check_header);
}

#[test]
fn spec_corpus() {
    replay("spec", text(checks::check_spec));
}

#[test]
fn position_corpus() {
    replay("position", text(checks::check_position));
}

#[test]
fn pattern_file_corpus() {
    replay("pattern_file", text(checks::check_pattern_file));
}

#[test]
fn the_position_fuzzer_covers_every_registered_game() {
    // position_games() itself asserts that each entry of GAMES has an
    // instance; this makes the failure show even with an empty corpus.
    assert!(checks::position_games().len() >= retrograde::games::GAMES.len());
}

#[test]
fn header_checks_accept_a_whole_small_tablebase() {
    // The replay must exercise the open path, not only refusals: a whole
    // file in the corpus opens, and its every cell is read.
    let opened = corpus("header")
        .iter()
        .filter(|(_, b)| retrograde::Tablebase::from_bytes(b.as_slice()).is_ok())
        .count();
    assert!(opened >= 3, "only {opened} corpus files open as tablebases");
}

#[test]
fn text_corpora_hold_valid_inputs_too() {
    let parses = |target: &str, ok: &dyn Fn(&str) -> bool| {
        corpus(target)
            .iter()
            .filter(|(_, b)| std::str::from_utf8(b).is_ok_and(ok))
            .count()
    };
    assert!(parses("spec", &|s| retrograde::AnyGame::parse(s).is_ok()) >= 10);
    assert!(
        parses("pattern_file", &|s| {
            retrograde::games::PatternGame::from_text(s, "t").is_ok()
        }) >= 5
    );
    let any_game_parses = |s: &str| {
        checks::position_games()
            .iter()
            .any(|g| retrograde::with_game!(g, x => x.parse_position(s).is_ok()))
    };
    assert!(parses("position", &any_game_parses) >= 10);
}

/// Replays fuzz/regressions/TARGET/, where an input the fuzzers found waits
/// while its bug is not fixed (fuzz/README.md). There is none now: the four
/// bugs found so far are fixed and their inputs are in fuzz/corpus/, which
/// the tests above replay on every `cargo test`; with nothing to replay this
/// passes. After adding an input, run it with `--ignored` to see it fail and
/// again after the fix; then move the input into fuzz/corpus/TARGET/. Inputs
/// named `abort-*` (an allocation failure aborts the whole process rather
/// than panicking) run last.
#[test]
#[ignore = "replays fuzz/regressions/: inputs waiting for a fix, none at present (fuzz/README.md)"]
fn known_bug_regressions() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("fuzz/regressions");
    let spec = text(checks::check_spec);
    let pattern_file = text(checks::check_pattern_file);
    type Check<'a> = &'a dyn Fn(&[u8]);
    let mut inputs: Vec<(bool, PathBuf, Check)> = Vec::new();
    for (target, check) in [("spec", &spec as Check), ("pattern_file", &pattern_file)] {
        for entry in std::fs::read_dir(dir.join(target)).into_iter().flatten() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            inputs.push((name.starts_with("abort-"), path, check));
        }
    }
    // The inputs that abort the process (files named `abort-*`) last, each
    // failure named as soon as it is seen (run with --nocapture).
    inputs.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let mut failed = Vec::new();
    for (_, path, check) in inputs {
        eprintln!("replaying {}", path.display());
        let bytes = std::fs::read(&path).unwrap();
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes)));
        if ok.is_err() {
            eprintln!("FAILS: {}", path.display());
            failed.push(path.display().to_string());
        }
    }
    assert!(failed.is_empty(), "still failing: {failed:#?}");
}
