//! What `solve` says when it refuses or repairs: one line, the true reason,
//! and the way forward.

use crate::common::bin;
use crate::stream::{game, interrupt};
use retrograde::internal::solve::checkpoint_path;
use std::path::Path;

fn run(args: &[&str], out: &Path) -> (bool, String, String) {
    let o = bin().args(args).arg("-o").arg(out).output().unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn games_too_large_for_a_table_point_to_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.rtb");
    // Refused when the spec is read (past the index limits), and when the
    // memory is counted (the canonical spec).
    for (spec, named) in [
        ("connect:7x6", "connect:7x6"),
        ("isolation:6x6", "isolation:6x6"),
        ("connect:8x4", "connect:8x4x4"),
    ] {
        let (ok, _, err) = run(&["solve", spec], &out);
        assert!(!ok, "{spec}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("`retrograde search '{named}' [POSITION]` proves")),
            "{err}"
        );
    }
    // No hint where the search cannot help: an unknown game, a loopy one.
    for spec in ["nosuchgame:3", "dodgem:40"] {
        let (ok, _, err) = run(&["solve", spec], &out);
        assert!(!ok, "{spec}");
        assert!(!err.contains("retrograde search"), "{err}");
    }
    assert!(!out.exists());
}

#[test]
fn a_loopy_game_streamed_is_refused_for_being_loopy() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = run(
        &["solve", "dodgem:3", "--stream"],
        &dir.path().join("d.rtb"),
    );
    assert!(!ok);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "positions can repeat (a loopy game), so it is solved with the whole table in memory"
        ) && err.contains("without --stream"),
        "{err}"
    );
    assert!(!err.contains("interleave"), "{err}");
    let (ok, out, _) = run(
        &["solve", "dodgem:3", "--dry-run"],
        &dir.path().join("d.rtb"),
    );
    assert!(ok);
    assert!(out.contains("a loopy game"), "{out}");
}

/// `--dry-run` and the refusal of a solve that does not fit give the same
/// figures (they were 33.52 MiB and 1.52 MiB: one counted the process, the
/// other not).
#[test]
fn the_dry_run_and_the_refusal_agree_on_the_memory_needed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.rtb");
    for (spec, memory) in [
        ("connect:5x4", "1M"),
        ("dodgem:3", "1K"),
        ("isolation:4x4", "1M"),
    ] {
        let (ok, _, err) = run(&["solve", spec, "--memory", memory], &out);
        assert!(!ok, "{spec}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        // "needs about X (...) of memory": the figures.
        let needs = err
            .split("needs about ")
            .nth(1)
            .and_then(|r| r.split(" of memory").next())
            .unwrap_or_else(|| panic!("{err}"));
        let (ok, dry, _) = run(&["solve", spec, "--memory", memory, "--dry-run"], &out);
        assert!(ok);
        let line = dry
            .lines()
            .find(|l| l.starts_with("peak memory"))
            .unwrap_or_else(|| panic!("{dry}"));
        assert!(
            line.contains(needs),
            "{spec}: refusal says {needs:?}; dry run: {line}"
        );
        assert!(line.contains("would be refused"), "{line}");
        assert!(
            err.contains("plus about 32.00 MiB for the process"),
            "{err}"
        );
    }
    assert!(!out.exists());
}

/// A streamed working file cut short is damaged, not "another table's".
#[test]
fn a_truncated_working_file_is_called_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rtb");
    assert!(interrupt(&game("connect:4x4", false), &out, 5));
    let ckpt = checkpoint_path(&out);
    let len = std::fs::metadata(&ckpt).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&ckpt).unwrap();
    f.set_len(len - 1).unwrap();
    drop(f);
    let (ok, _, err) = run(&["solve", "connect:4x4", "--stream"], &out);
    assert!(!ok);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "is truncated ({} bytes; this solve's working file has {len})",
            len - 1
        )) && err.contains("--restart"),
        "{err}"
    );
    assert!(!err.contains("another"), "{err}");
    let (ok, _, err) = run(&["solve", "connect:4x4", "--stream", "--restart"], &out);
    assert!(ok, "{err}");
}

/// A table put at a checkpoint's name is named as a table, whether or not
/// the game could have left one there (only a streamed solve does).
#[test]
fn a_table_at_the_checkpoints_name_is_called_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("cram.rtb");
    let (ok, _, err) = run(&["solve", "cram:3x3", "--no-checkpoint"], &table);
    assert!(ok, "{err}");
    for (spec, why) in [
        (
            "cram:3x3",
            "is a finished table, not a checkpoint of this solve",
        ),
        ("connect:4x4", "holds a finished table of 'cram:3x3"),
    ] {
        let out = dir.path().join(format!("{}.rtb", spec.replace(':', "-")));
        std::fs::copy(&table, checkpoint_path(&out)).unwrap();
        let (ok, _, err) = run(&["solve", spec], &out);
        assert!(!ok, "{spec}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(why) && err.contains("--restart"), "{err}");
        assert!(
            checkpoint_path(&out).exists(),
            "a refused file is left alone"
        );
    }
}
