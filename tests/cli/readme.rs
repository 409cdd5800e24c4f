//! The examples of README.md and of every docs/*.md, run. Every file's
//! ```` ```console ```` blocks are one session: each `$ retrograde ...` line
//! is run with `sh` (so `| head -5` works) in one fresh directory per file,
//! shared by that file's blocks in order (the Tour's first command solves
//! the table the others read; a document's examples make what they read),
//! and what it prints on stdout must be the lines shown under it. It must
//! print nothing on stderr, and succeed.
//!
//! Two things are not compared, and the README says so: numbers that are
//! timings, rates or the thread count (a number followed by ` s`, `/s`,
//! ` M/s`, ` M positions/s` or ` threads`, compared as `#`), and whatever
//! follows a shown line `...`, which cuts a long output short. Measured
//! figures outside console blocks (the Speed table, test counts) are not
//! examples of output and are not read here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ command` and the output shown under it.
#[derive(Debug)]
struct Example {
    line: usize,
    command: String,
    shown: Vec<String>,
}

/// The examples of every ```` ```console ```` block of `text` (the file
/// `name`), in order.
fn examples(name: &str, text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        if !inside {
            inside = line.trim_end() == "```console";
            continue;
        }
        if line.starts_with("```") {
            inside = false;
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push(Example {
                line: i + 1,
                command: command.to_string(),
                shown: Vec::new(),
            });
        } else {
            let last = out
                .last_mut()
                .unwrap_or_else(|| panic!("{name}:{}: output before any `$ ` command", i + 1));
            last.shown.push(line.to_string());
        }
    }
    assert!(!inside, "{name}: a ```console block is not closed");
    out
}

/// `line` with each timing, rate or thread count replaced by `#`.
fn normalized(line: &str) -> String {
    const UNITS: &[&str] = &[" s", "/s", " M/s", " M positions/s", " threads", " thread"];
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let starts_number = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts_number {
            // Safe to step by bytes: only ASCII digits start a number, and
            // the text between is copied whole by the slice below.
            let next = line[i..]
                .char_indices()
                .nth(1)
                .map_or(line.len(), |(k, _)| i + k);
            out.push_str(&line[i..next]);
            i = next;
            continue;
        }
        let mut end = i;
        while end < b.len() && (b[end].is_ascii_digit() || b[end] == b',' || b[end] == b'.') {
            end += 1;
        }
        // A sentence's full stop is not part of the number.
        while b[end - 1] == b'.' || b[end - 1] == b',' {
            end -= 1;
        }
        let rest = &line[end..];
        let timing = UNITS.iter().any(|u| {
            rest.strip_prefix(u)
                .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric()))
        });
        out.push_str(if timing { "#" } else { &line[i..end] });
        i = end;
    }
    out
}

/// The repository's root.
fn root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).to_path_buf()
}

fn read(name: &str) -> String {
    let path = root().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// docs/*.md, by name.
fn documents() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    names.sort();
    names
}

#[test]
fn timings_rates_and_threads_are_the_only_numbers_left_out() {
    assert_eq!(
        normalized("solved x in 0.16 s with 2 threads (3,932,160 positions, 25.9 M positions/s; labelling 0.15 s)"),
        "solved x in # s with # threads (3,932,160 positions, # M positions/s; labelling # s)"
    );
    assert_eq!(
        normalized("nodes       74,572 in 0.50 s (148,977/s)"),
        "nodes       74,572 in # s (#/s)"
    );
    assert_eq!(
        normalized("re-derived  ok: 3,932,160 entries agree with the rules (1.0 s)"),
        "re-derived  ok: 3,932,160 entries agree with the rules (# s)"
    );
    // Sizes, counts, remoteness, CRCs and square numbers stay.
    for kept in [
        "wrote t.rtb (3.75 MiB, data CRC32 2731b4fe)",
        "start .0../..../..../..1.: player 0 to move, win in 11",
        "    . . 1 .    12 13 14 15",
        "saved       7,064 proven positions to m654.proof (379.45 KiB)",
        "best move   11",
        "  tier  14               1  (the start's tier)",
    ] {
        assert_eq!(normalized(kept), kept);
    }
}

#[test]
fn every_console_example_prints_what_the_readme_shows() {
    let text = read("README.md");
    let examples = examples("README.md", &text);
    // The Tour's commands at least: solve, info, probe (twice), analyze, verify.
    assert!(examples.len() >= 6, "{examples:#?}");
    assert!(
        examples[0].command.starts_with("retrograde solve "),
        "{examples:#?}"
    );
    let wrong = run("README.md", &examples);
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn every_console_example_in_the_docs_prints_what_they_show() {
    let mut wrong = Vec::new();
    let mut ran = 0;
    for name in documents() {
        let examples = examples(&name, &read(&name));
        ran += examples.len();
        wrong.extend(run(&name, &examples));
    }
    // docs/SEARCH.md's at least (a search, its check, Sprouts').
    assert!(ran >= 5, "{ran} examples in docs/");
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Runs `examples` of the file `name` in a fresh directory, in order, and
/// returns a message for each whose output differs from what is shown.
fn run(name: &str, examples: &[Example]) -> Vec<String> {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_retrograde"));
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut wrong = Vec::new();
    for e in examples {
        assert!(
            e.command.starts_with("retrograde "),
            "{name}:{}: {}",
            e.line,
            e.command
        );
        let o = Command::new("sh")
            .arg("-c")
            .arg(&e.command)
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && stderr.is_empty(),
            "{name}:{}: `{}` failed or wrote to stderr ({}):\n{stderr}",
            e.line,
            e.command,
            o.status
        );
        let printed: Vec<&str> = stdout.lines().collect();
        let (shown, cut) = match e.shown.iter().position(|l| l == "...") {
            Some(k) => (&e.shown[..k], true),
            None => (&e.shown[..], false),
        };
        let same = (if cut {
            printed.len() >= shown.len()
        } else {
            printed.len() == shown.len()
        }) && shown
            .iter()
            .zip(&printed)
            .all(|(s, p)| normalized(s) == normalized(p));
        if !same {
            wrong.push(format!(
                "{name}:{}: `{}`\n--- the file shows\n{}\n--- it prints\n{}",
                e.line,
                e.command,
                shown.join("\n"),
                printed.join("\n")
            ));
        }
    }
    wrong
}
