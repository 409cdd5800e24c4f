//! The whole search as a library call (`search::run`): its cancellation
//! token stops one search and no other, and a cancelled save leaves its
//! database whole and no temporary file.

use retrograde::search::games::AnySearch;
use retrograde::search::proofdb;
use retrograde::search::run::{run, Observer, Quiet, SearchOptions};
use retrograde::search::{Cancel, Stop};
use retrograde::{with_search, Value};

/// Cancels its token as soon as the search has started: the search then
/// stops at its first check (1,024 nodes, 4,096 components), long before
/// it could prove the games below.
struct CancelAtStart(Cancel);

impl Observer for CancelAtStart {
    fn started(&self) {
        self.0.cancel();
    }
}

fn options(memory: u64) -> SearchOptions {
    SearchOptions {
        memory: Some(memory),
        ..SearchOptions::default()
    }
}

#[test]
fn cancelling_one_search_stops_it_and_not_a_later_one() {
    // mnk:5x5x4 takes millions of nodes; cancelled, it stops unproven.
    let big = AnySearch::parse("mnk:5x5x4").unwrap();
    let stopped = options(16 << 20);
    let report = run(&big, &stopped, &CancelAtStart(stopped.cancel.clone())).unwrap();
    assert!(!report.proven);
    assert_eq!(report.stopped, Some(Stop::Requested));
    assert!(report.stats.nodes <= 1024, "{}", report.stats.nodes);
    assert!(stopped.cancel.is_cancelled());

    // A later search in the same process, with its own token, proves (the
    // process-global stop flag this replaced stopped every later search).
    let ttt = AnySearch::parse("mnk:3x3x3").unwrap();
    let report = run(&ttt, &options(16 << 20), &Quiet).unwrap();
    assert!(report.proven);
    assert_eq!(report.stopped, None);
    assert_eq!(report.results[0].value(), Some(Value::Tie));

    // A search given the cancelled token (shared on purpose) stops at its
    // first check.
    let shared = SearchOptions {
        cancel: stopped.cancel.clone(),
        ..options(16 << 20)
    };
    let report = run(&big, &shared, &Quiet).unwrap();
    assert_eq!(report.stopped, Some(Stop::Requested));
    assert!(report.stats.nodes <= 1024, "{}", report.stats.nodes);

    // The same for nimbers: a cancelled cram:7x7 stops, cram:3x4 then proves.
    let cram = AnySearch::parse("cram:7x7").unwrap();
    let stopped = SearchOptions {
        nimber: true,
        ..options(16 << 20)
    };
    let report = run(&cram, &stopped, &CancelAtStart(stopped.cancel.clone())).unwrap();
    assert_eq!(report.stopped, Some(Stop::Requested));
    assert!(!report.proven);
    let small = AnySearch::parse("cram:3x4").unwrap();
    let nimber = SearchOptions {
        nimber: true,
        ..options(16 << 20)
    };
    let report = run(&small, &nimber, &Quiet).unwrap();
    assert!(report.proven);
    assert!(report.results[0].value().is_some());
}

#[test]
fn a_cancelled_search_saves_a_whole_database_and_leaves_no_partial() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stopped.proof");
    let game = AnySearch::parse("mnk:5x5x4").unwrap();
    let opts = SearchOptions {
        save: Some(path.clone()),
        ..options(16 << 20)
    };
    let report = run(&game, &opts, &CancelAtStart(opts.cancel.clone())).unwrap();
    assert_eq!(report.stopped, Some(Stop::Requested));
    let saved = report.saved.expect("a save was asked for").unwrap();
    assert_eq!(saved.path, path);
    // The database is in place, whole (its CRC checks), and alone: the
    // temporary file it was written to is gone.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["stopped.proof"]);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), saved.bytes);
    let entries = with_search!(&game, g => proofdb::load(g, &path).unwrap().1.len());
    assert_eq!(entries, saved.entries);
}

/// The report's words are the library's: the lines `retrograde search`
/// prints are `SearchReport::text`'s, the stop names the limit that was
/// reached, and the `saved` line comes only once a save succeeded.
#[test]
fn the_report_text_is_what_the_command_prints() {
    let ttt = AnySearch::parse("mnk:3x3x3").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("ttt.proof");
    // One thread on both sides, so that the node counts compared below are
    // the same on every run (and no `threads` line is printed).
    let opts = SearchOptions {
        save: Some(save.clone()),
        threads: 1,
        ..options(16 << 20)
    };
    let report = run(&ttt, &opts, &Quiet).unwrap();
    let text = report.text(&opts).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "game        mnk:3x3x3");
    assert_eq!(lines[1], "position    .../.../...");
    assert_eq!(lines[2], "value       tie");
    assert!(lines[3].starts_with("best move   "), "{text}");
    assert!(lines[4].starts_with("nodes       "), "{text}");
    assert!(lines[5].starts_with("table       "), "{text}");
    assert_eq!(lines.len(), 6, "{text}");
    let saved = report.saved_text().expect("saved");
    assert!(
        saved.starts_with("saved       ") && saved.contains(" proven positions to "),
        "{saved}"
    );

    // The command prints the same lines (its timings aside), then `saved`.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrograde"))
        .args([
            "search",
            "mnk:3x3x3",
            "--memory",
            "16M",
            "--threads",
            "1",
            "-q",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let untimed = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| match l.split_once(" in ") {
                Some((head, _)) if l.starts_with("nodes") => head.to_string(),
                _ => l.to_string(),
            })
            .collect()
    };
    assert_eq!(untimed(&printed), untimed(&text));

    // A node budget stops the search and is named with its figure.
    let big = AnySearch::parse("mnk:5x5x4").unwrap();
    let limited = SearchOptions {
        node_limit: Some(5_000),
        ..options(16 << 20)
    };
    let report = run(&big, &limited, &Quiet).unwrap();
    assert_eq!(report.stopped, Some(Stop::Nodes));
    let text = report.text(&limited).to_string();
    assert!(
        text.contains("\nstopped     by --nodes 5,000 (every one expanded)\n"),
        "{text}"
    );
    assert_eq!(report.saved_text(), None);
}
