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
        ("isolation:4x4", &["--fold"]),
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
    let cases: &[(usize, &str, usize)] = &[
        // (ranks, kill point, ranks of the rerun; 0: no MPI)
        (3, "mpi-tier-6-rank-1", 2),
        (2, "mpi-tier-9-rank-0", 3),
        (3, "mpi-tier-3-rank-2", 0),
        (3, "stream-header-written", 3),
        (2, "stream-synced", 1),
    ];
    resume_after_kills(game, &[], cases);
    // Isolation's ranks: killed with the intermediates of a tier in its
    // place in the file, or after their shares of it.
    resume_after_kills(
        "isolation:3x4",
        &["--fold"],
        &[
            (3, "mpi-intermediates-5-rank-1", 2),
            (3, "mpi-tier-7-rank-2", 0),
        ],
    );
}

/// Each case: the job of `k` ranks killed at `point`, then rerun with
/// `again` ranks (0: no MPI), which must finish the single process's file.
fn resume_after_kills(game: &str, flags: &[&str], cases: &[(usize, &str, usize)]) {
    let dir = tempfile::tempdir().unwrap();
    let want = single(dir.path(), game, flags);
    let out = dir.path().join("mpi.rtb");
    for &(k, point, again) in cases {
        let mut first = vec!["--checkpoint-every", "0"];
        first.extend_from_slice(flags);
        let o = solve_mpi(k, game, &out, &first, Some(point));
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
                .args(flags)
                .output()
                .unwrap()
        } else {
            solve_mpi(again, game, &out, flags, None)
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
    // An output that is a device is refused when rank 0 takes its lock,
    // once, and left as it was.
    std::os::unix::fs::symlink("/dev/null", &out).unwrap();
    let o = solve_mpi(3, "connect:4x4", &out, &[], None);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("retrograde: error"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("character device"), "{err}");
    assert!(std::fs::symlink_metadata(&out)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(names(dir.path()), vec!["x.rtb".to_string()]);
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

/// `mpirun … -np N₁ retrograde ARGS₁ : -np N₂ retrograde ARGS₂ …` (MPMD: each
/// group of ranks its own command line), run in `dir`. Each rank runs under
/// `sh`, which prints `rank exit CODE` to stderr when the rank ends. With
/// `every_rank`, `mpirun` lets every rank end by itself instead of killing
/// the others when one exits non-zero (and then exits 0 itself), so a test
/// sees every rank's exit status, not only the first non-zero one.
fn mpmd(dir: &Path, groups: &[(usize, Vec<String>)], every_rank: bool) -> Output {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe"])
        .current_dir(dir);
    if every_rank {
        // Open MPI 4's parameter (Debian 12's openmpi-bin).
        c.env("OMPI_MCA_orte_abort_on_non_zero_status", "0");
    }
    for (i, (n, args)) in groups.iter().enumerate() {
        if i > 0 {
            c.arg(":");
        }
        c.args(["-np", &n.to_string(), "sh", "-c"])
            .arg(r#""$0" "$@"; rc=$?; echo "rank exit $rc" >&2; exit $rc"#)
            .arg(env!("CARGO_BIN_EXE_retrograde"))
            .args(args);
    }
    c.output().unwrap()
}

/// `solve GAME -o OUT --stream --mpi --threads 1 EXTRA…` as arguments.
fn solve_args(game: &str, out: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "solve",
        game,
        "-o",
        out,
        "--stream",
        "--mpi",
        "--threads",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// Ranks given different games, sizes, folding, table kinds, outputs or
/// checkpointing: before anything is written, rank 0 names the first rank
/// that differs and how in one line, every rank exits 1 (no MPI abort), and
/// the directory stays empty (no output, checkpoint, temporary or lock
/// file, not even the output's directory).
#[test]
fn ranks_that_disagree_write_nothing_and_say_how() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = std::fs::canonicalize(dir.path()).unwrap();
    let o1 = d.join("sub/o1.rtb").to_str().unwrap().to_string();
    let o2 = d.join("sub/o2.rtb").to_str().unwrap().to_string();
    // (ranks and arguments of each group, the error line)
    type Case<'a> = (Vec<(usize, Vec<String>)>, String);
    let plain = |game: &str, extra: &[&str]| solve_args(game, "mix.rtb", extra);
    let cases: Vec<Case> =
        vec![
        (
            vec![(1, plain("isolation:3x4", &[])), (1, plain("isolation:3x4:misere", &[]))],
            "rank 1 solves isolation:3x4:a=1,b=10:misere, rank 0 isolation:3x4:a=1,b=10".into(),
        ),
        (
            vec![(1, plain("connect:4x4", &[])), (1, plain("connect:4x4:misere", &[]))],
            "rank 1 solves connect:4x4x4:misere, rank 0 connect:4x4x4".into(),
        ),
        (
            // Different sizes: the old code's reductions truncated and
            // aborted the job, leaving mix.rtb.ckpt.
            vec![(1, plain("isolation:3x4", &[])), (1, plain("isolation:3x3", &[]))],
            "rank 1 solves isolation:3x3:a=1,b=7, rank 0 isolation:3x4:a=1,b=10".into(),
        ),
        (
            // The first differing rank is named: rank 2, the third.
            vec![(2, plain("connect:4x4", &[])), (1, plain("connect:4x4", &["--fold"]))],
            "rank 2 solves with the symmetries folded (--fold), rank 0 without folding (no --fold)"
                .into(),
        ),
        (
            vec![(1, plain("isolation:3x4", &["--fold"])), (2, plain("isolation:3x4", &[]))],
            "rank 1 solves without folding (no --fold), rank 0 with the symmetries folded (--fold)"
                .into(),
        ),
        (
            vec![(1, plain("connect:4x4", &[])), (1, plain("connect:4x4", &["--nimbers"]))],
            "rank 1 builds a nimber table (--nimbers), rank 0 a value table (no --nimbers)".into(),
        ),
        (
            // Different outputs, in a directory that does not exist yet:
            // not created either.
            vec![
                (1, solve_args("isolation:3x4", &o1, &[])),
                (1, solve_args("isolation:3x4", &o2, &[])),
            ],
            format!("rank 1 writes '{o2}', rank 0 '{o1}'"),
        ),
        (
            vec![(2, plain("connect:4x4", &[])), (1, plain("connect:4x4", &["--no-checkpoint"]))],
            "rank 2 checkpoints never (--no-checkpoint), rank 0 at most every 1 s".into(),
        ),
        (
            vec![(1, plain("connect:4x4", &[])), (1, plain("connect:4x4", &["--dry-run"]))],
            "rank 1 runs a dry run (--dry-run), rank 0 the solve (no --dry-run)".into(),
        ),
    ];
    for (i, (groups, says)) in cases.iter().enumerate() {
        // The first case as users run it: mpirun's own status is non-zero.
        if i == 0 {
            let o = mpmd(&d, groups, false);
            assert!(!o.status.success(), "{says}");
            assert_eq!(names(&d), Vec::<String>::new(), "{says}");
        }
        let ranks: usize = groups.iter().map(|g| g.0).sum();
        let o = mpmd(&d, groups, true);
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("retrograde: error"))
            .collect();
        assert_eq!(lines, [format!("retrograde: error: {says}")], "{err}");
        // Every rank ended by itself, with status 1: none was aborted.
        assert_eq!(err.matches("rank exit 1").count(), ranks, "{says}: {err}");
        assert_eq!(err.matches("rank exit").count(), ranks, "{says}: {err}");
        assert!(!err.contains("MPI_ERR"), "{says}: {err}");
        assert_eq!(names(&d), Vec::<String>::new(), "{says}");
    }
}

/// What is each rank's own may differ: the output spelt relative to the
/// working directory on one rank and absolute on another, and the threads.
/// The job writes the single process's bytes.
#[test]
fn agreeing_ranks_may_spell_the_output_and_threads_differently() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = std::fs::canonicalize(dir.path()).unwrap();
    let want = single(&d, "connect:4x4", &[]);
    let abs = d.join("mpi.rtb");
    let mut threads2 = solve_args("connect:4x4", abs.to_str().unwrap(), &[]);
    threads2[7] = "2".into();
    let o = mpmd(
        &d,
        &[
            (1, solve_args("connect:4x4", "mpi.rtb", &[])),
            (1, threads2),
            (1, solve_args("connect:4x4", "./mpi.rtb", &[])),
        ],
        false,
    );
    assert!(ok(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr)
            .matches("rank exit 0")
            .count(),
        3
    );
    assert!(std::fs::read(&abs).unwrap() == want);
    assert_eq!(names(&d), ["mpi.rtb"]);
}

/// `mpirun … -np K [prlimit --data=LIMIT] retrograde solve GAME -o OUT
/// --mpi --threads 1 --memory MEMORY FLAGS…` (`--memory` makes the solve
/// tier by tier by itself: it excludes `--stream`).
fn solve_capped(
    k: usize,
    game: &str,
    out: &Path,
    memory: &str,
    limit: Option<u64>,
    flags: &[&str],
) -> Output {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(k.to_string());
    if let Some(limit) = limit {
        c.arg("prlimit").arg(format!("--data={limit}"));
    }
    c.arg(env!("CARGO_BIN_EXE_retrograde"))
        .args(["solve", game, "-o"])
        .arg(out)
        .args(["--mpi", "--threads", "1", "--memory", memory])
        .args(flags);
    c.output().unwrap()
}

/// Each rank holds only its share of each tier. With `--memory` below what
/// one process needs tier by tier (which the single process refuses), three
/// ranks write the single process's bytes, on the compound path (Isolation)
/// and the position-centric one (Connect-Four). Under a hard limit on each
/// rank's private memory (`prlimit --data`, 36 MiB for isolation:4x5,
/// whose ranks measured about 30.5 MiB at 3 ranks and 41.6 MiB at 1), three
/// ranks finish where one rank cannot. (Not `--as`: Open MPI maps a shared
/// segment per peer, so a rank's address space grows with the ranks by more
/// than this small table's tiers.) A `--memory` below a rank's share is
/// refused by one rank in one line, every rank exits non-zero, nothing is
/// written.
#[test]
fn three_ranks_divide_the_memory() {
    if mpirun(1).is_none() {
        return;
    }
    // (game, --memory between a rank's need and one process's, --data of a
    // rank: three ranks fit, one does not)
    let cases: &[(&str, &str, Option<u64>)] = &[
        // A rank 11.2 MiB, one process 34.4 MiB tier by tier.
        ("isolation:4x5", "20M", Some(36 << 20)),
        // A rank 1.1 MiB, one process 1.7 MiB.
        ("connect:5x4", "1.4M", None),
    ];
    for &(game, memory, limit) in cases {
        let dir = tempfile::tempdir().unwrap();
        let want = single(dir.path(), game, &[]);
        let out = dir.path().join("mpi.rtb");
        // One process refuses this --memory, even tier by tier.
        let o = bin()
            .args(["solve", game, "-o"])
            .arg(&out)
            .args(["--memory", memory])
            .output()
            .unwrap();
        assert!(!o.status.success(), "{game}: one process fitted {memory}");
        assert!(!out.exists());
        if let Some(limit) = limit {
            // One rank holds whole tiers: it cannot, under the limit.
            let o = solve_capped(1, game, &out, memory, Some(limit), &["--force"]);
            assert!(!o.status.success(), "{game}: one rank fitted {limit} bytes");
            assert!(!out.exists());
            let _ = std::fs::remove_file(dir.path().join("mpi.rtb.ckpt"));
        }
        let o = solve_capped(3, game, &out, memory, limit, &[]);
        assert!(
            ok(&o),
            "{game}: three ranks under {memory} and {limit:?} failed"
        );
        assert!(std::fs::read(&out).unwrap() == want, "{game}: bytes differ");
        std::fs::remove_file(&out).unwrap();
        // Below a rank's share: one line, every rank fails, nothing written.
        let o = solve_capped(3, game, &out, "100K", None, &[]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("retrograde: error"))
            .collect();
        assert_eq!(lines.len(), 1, "{game}: {err}");
        assert!(
            lines[0].contains("(rank 0 of 3): its share of tier"),
            "{game}: {err}"
        );
        assert_eq!(names(dir.path()), Vec::<String>::new(), "{game}");
    }
}

/// `mpirun -np K retrograde search GAME [POSITION] --mpi --threads 1
/// --memory 16M EXTRA…`.
fn search_mpi(k: usize, game: &str, position: Option<&str>, extra: &[&str]) -> Output {
    search_mpi_command(k, game, position, extra)
        .output()
        .unwrap()
}

/// The command [`search_mpi`] runs, for a test that sets more on it.
fn search_mpi_command(k: usize, game: &str, position: Option<&str>, extra: &[&str]) -> Command {
    let mut c = mpirun(k).expect("checked by the caller");
    c.args(["search", game])
        .args(position)
        .args(["--mpi", "--threads", "1", "--memory", "16M"])
        .args(extra);
    c
}

/// The `value` line's value of a search's text (`win`, `tie`, `loss`).
fn value_of(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("value       "))
        .unwrap_or_else(|| panic!("no value in: {text}"))
        .trim()
        .to_string()
}

/// The one-process search's value of `game` at `position`.
fn one_search(game: &str, position: Option<&str>, extra: &[&str]) -> String {
    let o = bin()
        .args(["search", game])
        .args(position)
        .args(["--threads", "1", "--memory", "16M"])
        .args(extra)
        .output()
        .unwrap();
    assert!(ok(&o), "{game} {position:?}");
    value_of(&String::from_utf8_lossy(&o.stdout))
}

/// The table's value of `game` at `position` (`probe` of a solved file),
/// in the search's words.
fn table_value(dir: &Path, game: &str, position: Option<&str>) -> String {
    let file = dir.join("table.rtb");
    let o = bin()
        .args(["solve", game, "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(ok(&o), "{game}");
    let o = bin()
        .arg("probe")
        .arg(&file)
        .args(position)
        .args(["--color", "never"])
        .output()
        .unwrap();
    assert!(ok(&o), "{game} {position:?}");
    std::fs::remove_file(&file).unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_lowercase();
    for (word, value) in [
        ("win", "win"),
        ("lose", "lose"),
        ("loss", "lose"),
        ("tie", "tie"),
    ] {
        if text.contains(word) {
            return value.to_string();
        }
    }
    panic!("no value in the probe of {game} {position:?}: {text}")
}

/// The search spread over K = 1, 2, 3 ranks proves the table's value and
/// the one-process search's, on the df-pn / alpha-beta families, with jobs
/// so small (a few dozen nodes) that the master's tree does most of the
/// work, and with the default budget (the root's job proves it at once).
#[test]
fn a_search_over_ranks_proves_the_table_values() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("connect:4x4", None, "30"),
        ("connect:4x4", Some("..../..../..../.x.."), "30"),
        ("connect:5x4", None, "2000"),
        ("tictactoe", None, "20"),
        ("mnk:3x4x3", None, "20"),
        ("isolation:3x4", None, "30"),
        ("subtraction:40:1,3,4", Some("37"), "5"),
        ("digits:60", Some("59"), "5"),
    ];
    for &(game, position, nodes) in cases {
        let table = table_value(dir.path(), game, position);
        let one = one_search(game, position, &[]);
        assert_eq!(
            one, table,
            "{game} {position:?}: one process against the table"
        );
        for k in 1..=3 {
            let o = search_mpi(k, game, position, &["--job-nodes", nodes]);
            assert!(ok(&o), "{game} {position:?} with {k} ranks failed");
            let text = String::from_utf8_lossy(&o.stdout);
            assert_eq!(value_of(&text), table, "{game} {position:?} K={k}: {text}");
            assert!(
                text.contains(&format!("on {k} rank")),
                "{game} K={k}: {text}"
            );
        }
    }
    // The default budget: the root's job proves it at once.
    let o = search_mpi(2, "connect:5x4", None, &[]);
    assert!(ok(&o), "the default budget");
    assert_eq!(value_of(&String::from_utf8_lossy(&o.stdout)), "tie");
}

/// Sprouts (couples) and Cram (df-pn, and couples): the ranks' values are
/// the one process's.
#[test]
fn sprouts_and_cram_over_ranks() {
    if mpirun(1).is_none() {
        return;
    }
    let cases: &[(&str, &[&str], &str)] = &[
        ("sprouts:5", &[], "20"),
        ("sprouts:6", &[], "50"),
        ("sprouts:7", &[], "1000"),
        ("cram:3x4", &[], "20"),
        ("cram:3x4", &["--engine", "couples"], "20"),
        ("cram:3x3", &[], "10"),
    ];
    for &(game, flags, nodes) in cases {
        let one = one_search(game, None, flags);
        for k in 1..=3 {
            let mut extra = flags.to_vec();
            extra.extend_from_slice(&["--job-nodes", nodes]);
            let o = search_mpi(k, game, None, &extra);
            assert!(ok(&o), "{game} {flags:?} with {k} ranks failed");
            let text = String::from_utf8_lossy(&o.stdout);
            assert_eq!(value_of(&text), one, "{game} {flags:?} K={k}: {text}");
        }
    }
}

/// `--save` with ranks writes ONE proof database (the ranks' jobs' entries
/// and the master's proven nodes, merged) that `search --check` re-proves,
/// giving the position's value; nothing else is left in the directory.
#[test]
fn the_ranks_save_one_database_that_check_reproves() {
    if mpirun(1).is_none() {
        return;
    }
    // (game, nodes a job): each database names the position's value (a
    // Sprouts start is one land, an entry of the normal-play database)
    for (game, nodes) in [
        ("connect:4x4", "40"),
        ("sprouts:6", "50"),
        ("sprouts:11", "500"),
        ("tictactoe", "20"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let want = one_search(game, None, &[]);
        for k in [1, 3] {
            let db = dir.path().join("p.proof");
            let o = search_mpi(
                k,
                game,
                None,
                &["--job-nodes", nodes, "--save", db.to_str().unwrap()],
            );
            assert!(ok(&o), "{game} K={k}");
            let text = String::from_utf8_lossy(&o.stdout);
            assert_eq!(value_of(&text), want, "{game} K={k}");
            assert!(text.contains("saved "), "{text}");
            assert_eq!(names(dir.path()), ["p.proof"], "{game} K={k}");
            check_reproves(game, &db, &want, &format!("{game} K={k}"));
            std::fs::remove_file(&db).unwrap();
        }
    }
}

/// `search GAME --check DB` re-proves the database and prints the value
/// `want` (`what` names the case in a failure).
fn check_reproves(game: &str, db: &Path, want: &str, what: &str) {
    let o = bin()
        .args(["search", game, "--memory", "16M", "--check"])
        .arg(db)
        .output()
        .unwrap();
    assert!(ok(&o), "{what}: the check failed");
    let checked = String::from_utf8_lossy(&o.stdout).to_lowercase();
    assert!(checked.contains("re-proven"), "{what}: {checked}");
    assert!(checked.contains(want), "{what}: {checked}");
}

/// A proof built from many small jobs settles more couples than one
/// search's proof, and `proofdb shrink` chooses among them: `sprouts:11`
/// in jobs of 200 couples (one rank, so the same jobs every run) shrinks to
/// at most Glop's 113 positions, and the shrunk file proves the win with
/// no search. (The size depends on the jobs' size: 121, 114, 112 and 116
/// entries for jobs of 50, 100, 200 and 500 couples, docs/CHECKING.md.)
#[test]
fn small_jobs_give_a_checking_database_within_glops_size() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.proof");
    let small = dir.path().join("p.small");
    let o = search_mpi(
        1,
        "sprouts:11",
        None,
        &["--job-nodes", "200", "--save", db.to_str().unwrap()],
    );
    assert!(ok(&o), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bin()
        .args(["proofdb", "shrink"])
        .arg(&db)
        .arg("-o")
        .arg(&small)
        .output()
        .unwrap();
    assert!(ok(&o), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bin()
        .args(["proofdb", "check"])
        .arg(&small)
        .output()
        .unwrap();
    assert!(ok(&o), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("0*11: win"), "{text}");
    assert!(text.contains("(0 children searched)"), "{text}");
    let kept: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("checked"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no count in {text}"));
    assert!(kept <= 113, "{kept} entries: {text}");
}

/// Once the root is proven, a worker in the middle of a job stops it and
/// answers, rather than run to the end of its budget: rank 2's jobs are
/// held until stopped (the test hook `RETROGRADE_TEST_HOLD_AT`: a job that
/// cannot end before the root is proven; held a minute, it fails the
/// search). Rank 1 gets the root first, comes back undecided (jobs of a few
/// dozen nodes) and goes on with it while rank 2 takes a child, so rank 2
/// is certainly mid-job at the end, whichever rank proves the root. The
/// report counts the stopped jobs, the value is the one process's and the
/// save still re-proves it.
#[test]
fn a_worker_in_the_middle_of_a_job_is_stopped_at_the_end() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.proof");
    for (game, nodes) in [("connect:4x4", "30"), ("sprouts:7", "100")] {
        let want = one_search(game, None, &[]);
        let save = ["--job-nodes", nodes, "--save", db.to_str().unwrap()];
        let o = search_mpi_command(3, game, None, &save)
            .env("RETROGRADE_TEST_HOLD_AT", "search-job-rank-2")
            .output()
            .unwrap();
        assert!(ok(&o), "{game}");
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(value_of(&text), want, "{game}: {text}");
        let stopped: u64 = text
            .split(" stopped at the end")
            .next()
            .filter(|before| before.len() < text.len())
            .and_then(|before| before.rsplit(' ').next())
            .and_then(|n| n.replace(',', "").parse().ok())
            .unwrap_or_else(|| panic!("{game}: no job stopped at the end: {text}"));
        assert!(stopped >= 1, "{game}: {text}");
        check_reproves(game, &db, &want, game);
        std::fs::remove_file(&db).unwrap();
    }
}

/// The lines of `o`'s stderr that are the command's errors.
fn error_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.contains("retrograde: error"))
        .map(str::to_string)
        .collect()
}

/// A bad spec, position or option is one line from rank 0, a worker killed
/// in its first job ends the job with nothing under the --save name and no
/// temporary file, and ranks given different positions name the first that
/// differs.
#[test]
fn a_failed_search_over_ranks_is_one_line_and_writes_nothing() {
    if mpirun(1).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.proof");
    let save = ["--save", db.to_str().unwrap()];
    for (game, position, says) in [
        ("connect:1x1", None, "bad game"),
        ("connect:4x4", Some("zzz"), "zzz"),
        ("cram:3x3", Some("..."), "..."),
    ] {
        let o = search_mpi(3, game, position, &save);
        assert!(!o.status.success(), "{game}");
        let lines = error_lines(&o);
        assert_eq!(lines.len(), 1, "{game}: {lines:?}");
        assert!(lines[0].contains(says), "{game}: {lines:?}");
        assert_eq!(names(dir.path()), Vec::<String>::new(), "{game}");
    }
    let o = search_mpi(2, "connect:4x4", None, &["--nimber"]);
    assert!(!o.status.success());
    // A worker killed in its first job: mpirun ends the job.
    let mut c = mpirun(3).unwrap();
    c.args([
        "search",
        "connect:5x4",
        "--mpi",
        "--threads",
        "1",
        "--job-nodes",
        "50",
    ])
    .args(save)
    .env("RETROGRADE_TEST_KILL_AT", "search-job-rank-2");
    let o = c.output().unwrap();
    assert!(!o.status.success(), "the job was not killed");
    assert_eq!(names(dir.path()), Vec::<String>::new(), "after a kill");
    // Ranks searching different positions: rank 0 says so, in one line.
    let mut args: Vec<String> = ["search", "connect:4x4", "--mpi", "--threads", "1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut other = args.clone();
    other.insert(2, "..../..../..../x...".into());
    args.extend(["--save".to_string(), db.to_str().unwrap().to_string()]);
    other.extend(["--save".to_string(), db.to_str().unwrap().to_string()]);
    let o = mpmd(dir.path(), &[(1, args), (1, other)], true);
    let lines = error_lines(&o);
    assert_eq!(
        lines,
        ["retrograde: error: rank 1 searches from ..../..../..../x..., rank 0 the start"],
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

/// `search --mpi` outside mpirun (or without the feature) is refused in
/// one line.
#[test]
fn search_mpi_outside_mpirun_is_refused() {
    let o = bin()
        .args(["search", "connect:4x4", "--mpi"])
        .env_remove("OMPI_COMM_WORLD_SIZE")
        .env_remove("PMI_SIZE")
        .env_remove("PMIX_RANK")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let says = if cfg!(feature = "mpi") {
        "not started by mpirun"
    } else {
        "built without MPI"
    };
    assert!(err.contains(says), "{err}");
}
