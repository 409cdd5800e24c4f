//! A solve killed at every point of its finishing sequence (and of the
//! creation of its working files) is finished by the next run of the same
//! command: the file is byte for byte an uninterrupted solve's, and nothing
//! else is left beside it — no checkpoint, no temporary file, no lock file.
//!
//! The kills are exact: `RETROGRADE_TEST_KILL_AT=POINT` makes the command
//! line SIGKILL itself at that named point (`kill_point` in
//! src/format/write.rs), so no destructor or signal handler runs, as with
//! `kill -9` at that instant. The points, in the order a solve reaches them:
//!
//! | point                     | where                                                      |
//! |---------------------------|------------------------------------------------------------|
//! | `stream-temp-created`     | streamed: the working file's temporary name just created   |
//! | `stream-created`          | streamed: working file renamed to `NAME.ckpt`, no tier yet  |
//! | `checkpoint-temp-written` | in memory: the checkpoint written under its temporary name |
//! | `stream-finishing`        | streamed: every tier written, synced and read back         |
//! | `stream-header-written`   | streamed: header over the marker and synced, slots still on |
//! | `stream-slots-cut`        | streamed: slots cut off (ftruncate), not yet synced         |
//! | `stream-synced`           | streamed: synced, not yet renamed                          |
//! | `table-written`           | in memory: the table written to its temporary name         |
//! | `stream-renamed`, `table-renamed` | renamed into place, directory not yet synced       |
//! | `lock-release`            | the output's lock file not yet removed                     |

use crate::common::bin;
use crate::common::names;
use retrograde::solve::{solve_to_bytes, SolveOptions};
use retrograde::AnyGame;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

const GAME: &str = "connect:4x4";

fn reference() -> Vec<u8> {
    let g = AnyGame::parse(GAME).unwrap();
    retrograde::with_game!(&g, g => solve_to_bytes(g, &SolveOptions::default())).unwrap()
}

fn solve(out: &Path, args: &[&str], kill_at: Option<&str>) -> std::process::Output {
    let mut c = bin();
    c.args(["solve", GAME, "-o"]).arg(out).args(args);
    if let Some(p) = kill_at {
        c.env("RETROGRADE_TEST_KILL_AT", p);
    }
    c.output().unwrap()
}

/// What the directory holds after the kill, besides what any kill leaves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Left {
    /// A temporary file of the output or of the checkpoint.
    Temporary,
    /// The checkpoint (a working file, or the finished table not renamed).
    Checkpoint,
    /// The temporary file of the output and the checkpoint.
    TemporaryAndCheckpoint,
    /// The finished table, in place (a checkpoint too, in memory: its
    /// removal follows the rename).
    Installed { checkpoint: bool },
}

#[test]
fn a_solve_killed_at_any_point_of_its_finish_is_finished_by_the_next_run() {
    let want = reference();
    let streamed = ["--stream", "--checkpoint-every", "0"];
    let streamed_temp = ["--stream", "--no-checkpoint"];
    let in_memory = ["--checkpoint-every", "0"];
    let in_memory_temp = ["--no-checkpoint"];
    let cases: &[(&[&str], &str, Left)] = &[
        (&streamed, "stream-temp-created", Left::Temporary),
        (&streamed, "stream-created", Left::Checkpoint),
        (&streamed, "stream-finishing", Left::Checkpoint),
        (&streamed, "stream-header-written", Left::Checkpoint),
        (&streamed, "stream-slots-cut", Left::Checkpoint),
        (&streamed, "stream-synced", Left::Checkpoint),
        (
            &streamed,
            "stream-renamed",
            Left::Installed { checkpoint: false },
        ),
        (
            &streamed,
            "lock-release",
            Left::Installed { checkpoint: false },
        ),
        (&streamed_temp, "stream-temp-created", Left::Temporary),
        (&streamed_temp, "stream-finishing", Left::Temporary),
        (&streamed_temp, "stream-header-written", Left::Temporary),
        (&streamed_temp, "stream-synced", Left::Temporary),
        (
            &streamed_temp,
            "stream-renamed",
            Left::Installed { checkpoint: false },
        ),
        (&in_memory, "checkpoint-temp-written", Left::Temporary),
        (&in_memory, "table-written", Left::TemporaryAndCheckpoint),
        (
            &in_memory,
            "table-renamed",
            Left::Installed { checkpoint: true },
        ),
        (
            &in_memory,
            "lock-release",
            Left::Installed { checkpoint: false },
        ),
        (&in_memory_temp, "table-written", Left::Temporary),
    ];
    for &(args, point, left) in cases {
        let case = format!("{point} with {args:?}");
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rtb");
        let o = solve(&out, args, Some(point));
        assert_eq!(o.status.signal(), Some(9), "{case}: not killed there");
        let after = names(dir.path());
        let partial = after.iter().filter(|n| n.ends_with(".partial")).count();
        let ckpt = after.iter().any(|n| n == "t.rtb.ckpt");
        match left {
            Left::Temporary => assert!(partial == 1 && !ckpt, "{case}: {after:?}"),
            Left::Checkpoint => assert!(partial == 0 && ckpt, "{case}: {after:?}"),
            Left::TemporaryAndCheckpoint => assert!(partial == 1 && ckpt, "{case}: {after:?}"),
            Left::Installed { checkpoint } => {
                assert_eq!((partial, ckpt), (0, checkpoint), "{case}: {after:?}");
                assert!(std::fs::read(&out).unwrap() == want, "{case}");
            }
        }
        // A kill leaves the lock file (its lock died with the process).
        assert!(after.iter().any(|n| n == "t.rtb.lock"), "{case}: {after:?}");

        let o = solve(&out, args, None);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{case}: {stderr}");
        assert!(std::fs::read(&out).unwrap() == want, "{case}: other bytes");
        assert_eq!(names(dir.path()), ["t.rtb"], "{case}: {stderr}");
        // What the rerun did, in at most one line each.
        if partial > 0 {
            assert!(
                stderr.contains("removed 1 temporary file left by an earlier run"),
                "{case}: {stderr}"
            );
        }
        if matches!(point, "stream-slots-cut" | "stream-synced") && ckpt {
            assert!(
                stderr.contains("holds the finished table"),
                "{case}: {stderr}"
            );
        }
        assert!(stderr.lines().count() <= 1, "{case}: {stderr}");
        if left == Left::Checkpoint && point != "stream-created" {
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert!(stdout.contains("(all of them)"), "{case}: {stdout}");
            // Nothing was labelled: no rate of millions of positions a second.
            assert!(!stdout.contains("positions/s"), "{case}: {stdout}");
        }
    }
}

/// A stale temporary file of another name pattern, or of a live process, is
/// never removed; one of a process that is gone is, once, with one line.
#[test]
fn only_stale_temporaries_of_this_output_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A pid that was just used and is gone.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    let live = std::process::id();
    let files = [
        (format!("t.rtb.{gone}-0123abcd.partial"), false),
        (format!("t.rtb.ckpt.{gone}-89abcdef.partial"), false),
        (format!("t.rtb.{live}-0123abcd.partial"), true),
        (format!("t.rtb.{gone}.partial"), true),
        (format!("t.rtb.{gone}-0123ABCD.partial"), true),
        (format!("u.rtb.{gone}-0123abcd.partial"), true),
        (format!("t.rtbx.{gone}-0123abcd.partial"), true),
        ("t.rtb.0-0123abcd.partial".to_string(), true),
    ];
    for (name, _) in &files {
        std::fs::write(d.join(name), b"x").unwrap();
    }
    // A link at such a name is left alone, and its target too.
    let link = format!("t.rtb.{gone}-fedcba98.partial");
    std::fs::write(d.join("target"), b"keep").unwrap();
    std::os::unix::fs::symlink(d.join("target"), d.join(&link)).unwrap();

    let out = d.join("t.rtb");
    let o = solve(&out, &["--no-checkpoint"], None);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("removed 2 temporary files left by an earlier run of this output"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for (name, kept) in &files {
        assert_eq!(d.join(name).exists(), *kept, "{name}");
    }
    assert!(std::fs::symlink_metadata(d.join(&link)).is_ok());
    assert_eq!(std::fs::read(d.join("target")).unwrap(), b"keep");
}

/// Ctrl-C at the moment the finished table is being written (in memory and
/// streamed, with and without checkpoints): the handler removes the
/// temporary and lock files and exits 130, the checkpoint stays, and the
/// rerun finishes the job. (`hostile.rs` interrupts at a moment it has to
/// catch; this one is exact.)
#[test]
fn ctrl_c_while_the_table_is_written_leaves_only_the_checkpoint() {
    let want = reference();
    let cases: &[(&[&str], &str, bool)] = &[
        (&["--checkpoint-every", "0"], "table-written:INT", true),
        (&["--no-checkpoint"], "table-written:INT", false),
        (
            &["--stream", "--no-checkpoint"],
            "stream-header-written:INT",
            false,
        ),
        (
            &["--stream", "--checkpoint-every", "0"],
            "stream-synced:INT",
            true,
        ),
    ];
    for &(args, point, checkpoint) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rtb");
        let o = solve(&out, args, Some(point));
        assert_eq!(o.status.code(), Some(130), "{point} {args:?}");
        let left = names(dir.path());
        let want_left: &[&str] = if checkpoint { &["t.rtb.ckpt"] } else { &[] };
        assert_eq!(left, want_left, "{point} {args:?}");
        let o = solve(&out, args, None);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(std::fs::read(&out).unwrap() == want, "{point} {args:?}");
        assert_eq!(names(dir.path()), ["t.rtb"]);
    }
}
