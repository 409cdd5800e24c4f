//! `mpirun -np K retrograde solve SPEC --stream -o FILE --mpi`: the ranks of
//! an MPI job share every tier of a streamed solve, and the file is byte for
//! byte the single process's, for K = 1, 2, 3, on every tier-streamed game
//! family (Isolation, Connect-Four, Sogo), plain and folded; a job killed
//! in the middle of a tier (one rank SIGKILLed after writing its share) or
//! while rank 0 installs the file is finished by the next run, with any
//! number of ranks or none.
//!
//! Needs the cargo feature `mpi` and `mpirun` on PATH (Debian:
//! `apt-get install libopenmpi-dev openmpi-bin libclang-dev`):
//!
//! ```text
//! cargo test --release -p retrograde-cli --features retrograde-cli/mpi --test mpi
//! ```
//!
//! Without either, every test prints a note that it was skipped and passes.
//! The ranks run on this one machine (`--oversubscribe`; as root,
//! `--allow-run-as-root`), one thread each.

#[path = "common/mod.rs"]
mod common;

use common::{bin, names};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

/// `mpirun … -np K retrograde`, or `None` (with a note on stderr, past the
/// test harness's capture) when this build or this machine cannot run it.
fn mpirun(k: usize) -> Option<Command> {
    let skip = |why: &str| {
        let _ = writeln!(
            std::io::stderr(),
            "note: MPI test skipped: {why} (cargo test --release -p retrograde-cli --features retrograde-cli/mpi --test mpi)"
        );
        None
    };
    if !cfg!(feature = "mpi") {
        return skip("the command was built without the feature `mpi`");
    }
    if Command::new("mpirun").arg("--version").output().is_err() {
        return skip("no `mpirun` on PATH");
    }
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(k.to_string())
        .arg(env!("CARGO_BIN_EXE_retrograde"));
    Some(c)
}

/// `mpirun -np K retrograde solve GAME -o OUT --stream --mpi --threads 1
/// EXTRA…`, killing the rank that reaches `kill_at` (`None`: no kill).
fn solve_mpi(k: usize, game: &str, out: &Path, extra: &[&str], kill_at: Option<&str>) -> Output {
    let mut c = mpirun(k).expect("checked by the caller");
    c.args(["solve", game, "-o"])
        .arg(out)
        .args(["--stream", "--mpi", "--threads", "1"])
        .args(extra);
    if let Some(p) = kill_at {
        c.env("RETROGRADE_TEST_KILL_AT", p);
    }
    c.output().unwrap()
}

/// The single process's streamed file of `game`.
fn single(dir: &Path, game: &str, extra: &[&str]) -> Vec<u8> {
    let out = dir.join("single.rtb");
    let o = bin()
        .args(["solve", game, "-o"])
        .arg(&out)
        .arg("--stream")
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    bytes
}

fn ok(o: &Output) -> bool {
    if !o.status.success() {
        eprintln!(
            "stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    o.status.success()
}

#[test]
fn every_rank_count_writes_the_single_process_bytes() {
    if mpirun(1).is_none() {
        return;
    }
    let games: &[(&str, &[&str])] = &[
        ("isolation:3x3", &[]),
        ("isolation:3x4", &[]),
        ("isolation:3x4", &["--fold"]),
        ("connect:3x4", &[]),
        ("connect:4x4", &[]),
        ("connect:4x4", &["--fold"]),
        ("sogo:2", &[]),
        ("sogo:2", &["--fold"]),
    ];
    for &(game, flags) in games {
        let dir = tempfile::tempdir().unwrap();
        let want = single(dir.path(), game, flags);
        for k in 1..=3 {
            let out = dir.path().join("mpi.rtb");
            let o = solve_mpi(k, game, &out, flags, None);
            assert!(ok(&o), "{game} {flags:?} with {k} ranks failed");
            let got = std::fs::read(&out).unwrap();
            assert!(
                got == want,
                "{game} {flags:?} with {k} ranks: {} bytes differ from the single process's {}",
                got.len(),
                want.len()
            );
            // Only the file: no checkpoint, temporary or lock file left.
            assert_eq!(names(dir.path()), ["mpi.rtb"], "{game} {flags:?} {k}");
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(text.contains(&format!("solved by {k} MPI rank")), "{text}");
            std::fs::remove_file(&out).unwrap();
        }
    }
}

#[test]
fn without_checkpoints_too() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let want = single(dir.path(), "connect:4x4", &[]);
    let out = dir.path().join("mpi.rtb");
    let o = solve_mpi(3, "connect:4x4", &out, &["--no-checkpoint"], None);
    assert!(ok(&o));
    assert!(std::fs::read(&out).unwrap() == want);
    assert_eq!(names(dir.path()), ["mpi.rtb"]);
}

/// Killed with one rank SIGKILLed after writing its share of a tier, or
/// rank 0 SIGKILLed while installing the file: the job fails, nothing is
/// under the final name, and the same command (with another number of
/// ranks, or without MPI) finishes the single process's file.
#[test]
fn a_killed_job_resumes() {
    if mpirun(1).is_none() {
        return;
    }
    let game = "connect:4x4";
    let dir = tempfile::tempdir().unwrap();
    let want = single(dir.path(), game, &[]);
    let out = dir.path().join("mpi.rtb");
    let cases: &[(usize, &str, usize)] = &[
        // (ranks, kill point, ranks of the rerun; 0: no MPI)
        (3, "mpi-tier-6-rank-1", 2),
        (2, "mpi-tier-9-rank-0", 3),
        (3, "mpi-tier-3-rank-2", 0),
        (3, "stream-header-written", 3),
        (2, "stream-synced", 1),
    ];
    for &(k, point, again) in cases {
        let o = solve_mpi(k, game, &out, &["--checkpoint-every", "0"], Some(point));
        assert!(!o.status.success(), "{point}: the job was not killed");
        assert!(!out.exists(), "{point}: a file under the final name");
        assert!(
            names(dir.path()).contains(&"mpi.rtb.ckpt".to_string()),
            "{point}: {:?}",
            names(dir.path())
        );
        let o = if again == 0 {
            bin()
                .args(["solve", game, "-o"])
                .arg(&out)
                .arg("--stream")
                .output()
                .unwrap()
        } else {
            solve_mpi(again, game, &out, &[], None)
        };
        assert!(ok(&o), "{point}: the rerun failed");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("resumed from checkpoint") || text.contains("solved"),
            "{text}"
        );
        assert!(
            std::fs::read(&out).unwrap() == want,
            "{point}: bytes differ"
        );
        assert_eq!(names(dir.path()), ["mpi.rtb"], "{point}");
        std::fs::remove_file(&out).unwrap();
    }
}

/// Bad input is refused once (by rank 0), not once per rank.
#[test]
fn bad_input_is_one_message() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.rtb");
    for (game, says) in [
        ("isolation:1x1", "bad game"),
        ("tictactoe", "cannot be solved tier by tier"),
    ] {
        let o = solve_mpi(3, game, &out, &[], None);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("retrograde: error"))
            .collect();
        assert_eq!(lines.len(), 1, "{game}: {err}");
        assert!(lines[0].contains(says), "{game}: {err}");
        assert_eq!(names(dir.path()), Vec::<String>::new(), "{game}");
    }
}

/// `--dry-run --mpi` prints the ranks' memory and disk and one traffic line
/// per tier, from rank 0 only.
#[test]
fn dry_run_per_rank() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.rtb");
    let o = solve_mpi(3, "connect:4x4", &out, &["--dry-run"], None);
    assert!(ok(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.matches("ranks         3").count(), 1, "{text}");
    assert!(text.contains("memory/rank"), "{text}");
    // connect:4x4 has 17 tiers (0 to 16 pieces).
    let rows = text
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.parse::<u32>().is_ok())
        })
        .count();
    assert_eq!(rows, 17, "{text}");
    assert_eq!(names(dir.path()), Vec::<String>::new());
}
