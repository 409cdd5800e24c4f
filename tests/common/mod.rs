//! Helpers shared by the test binaries (tests/oracle, tests/files,
//! tests/cli): running the `retrograde` command, solving small files, and
//! reading raw cells. Each binary declares this module with
//! `#[path = "../common/mod.rs"] mod common;`.

// Each binary uses only some of these helpers.
#![allow(dead_code)]

pub mod damage;

use retrograde::games::{AnyGame, Isolation};
use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
use retrograde::{CellCodec, Error, Tablebase};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

/// The `retrograde` command built for these tests.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_retrograde"))
}

/// Runs `retrograde ARGS` to completion.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Runs `retrograde ARGS` in `dir`, which must not panic.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    let out = bin().current_dir(dir).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    out
}

/// Asserts failure (status 1) with exactly one line on stderr containing
/// `needle`; returns the line.
pub fn refused_line(out: &Output, needle: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "expected exit 1, got: {err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `retrograde solve GAME -o OUT EXTRA...`, which must succeed.
pub fn solve(game: &str, out: &Path, extra: &[&str]) {
    let mut args = vec!["solve", game, "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// An Isolation game from its spec.
pub fn iso(spec: &str) -> Isolation {
    match AnyGame::parse(spec).unwrap() {
        AnyGame::Isolation(g) => g,
        other => panic!("{other:?}"),
    }
}

/// The Isolation `spec` solved by the library into `dir/name`, in a fresh
/// temporary directory, with its game.
pub fn solved_isolation(spec: &str, name: &str) -> (TempDir, PathBuf, Isolation) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    let g = iso(spec);
    solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
    (dir, path, g)
}

/// The error of a refused open (a `Tablebase` has no `Debug`).
pub fn refused<D>(r: retrograde::Result<Tablebase<D>>) -> Error {
    match r {
        Ok(_) => panic!("a file that must be refused opened"),
        Err(e) => e,
    }
}

/// The raw cell at `index` of a table's data: little-endian, `codec.width()`
/// bytes. The in-memory solvers return bare cells, with no reader over them.
pub fn cell<I>(data: &[u8], codec: CellCodec, index: I) -> u32
where
    I: TryInto<usize>,
    I::Error: std::fmt::Debug,
{
    let w = usize::from(codec.width());
    let at = index.try_into().expect("the index fits in memory") * w;
    let mut b = [0u8; 4];
    b[..w].copy_from_slice(&data[at..at + w]);
    u32::from_le_bytes(b)
}
