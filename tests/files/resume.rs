//! Nothing lost: a solve killed with SIGKILL at several points resumes from
//! its checkpoint and produces a file byte-identical to an uninterrupted run;
//! torn checkpoints are cut back; checkpoints of other rules are refused.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::bin;

const GAME: &str = "isolation:4x5";

fn ckpt(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap().to_os_string();
    name.push(".ckpt");
    out.with_file_name(name)
}

fn solve(game: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .args(["solve", game, "-o"])
        .arg(out)
        .args(["--checkpoint-every", "0"])
        .args(extra)
        .output()
        .unwrap()
}

/// Starts a solve and kills it with SIGKILL once its checkpoint holds at
/// least `bytes` bytes. Returns whether the kill happened before the end.
fn solve_and_kill(out: &Path, bytes: u64) -> bool {
    let mut child = bin()
        .args(["solve", GAME, "-o"])
        .arg(out)
        .args(["--checkpoint-every", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            return false;
        }
        let size = std::fs::metadata(ckpt(out)).map_or(0, |m| m.len());
        if size >= bytes {
            child.kill().unwrap(); // SIGKILL on Unix
            child.wait().unwrap();
            return true;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "solve hung");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn killed_solves_resume_to_identical_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference.rtb");
    let o = solve(GAME, &reference, &["--no-checkpoint"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!ckpt(&reference).exists());
    let want = std::fs::read(&reference).unwrap();

    // Kill points: right after the first records, in the middle, late.
    let mut resumed_any = false;
    for (k, bytes) in [64u64, 300_000, 2_000_000].into_iter().enumerate() {
        let out = dir.path().join(format!("killed{k}.rtb"));
        let killed = solve_and_kill(&out, bytes);
        if killed {
            assert!(!out.exists(), "a killed solve left {}", out.display());
            assert!(ckpt(&out).exists());
        }
        let o = solve(GAME, &out, &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8_lossy(&o.stdout);
        if killed {
            resumed_any |= stdout.contains("resumed from checkpoint");
        }
        assert_eq!(std::fs::read(&out).unwrap(), want, "kill point {k}");
        assert!(!ckpt(&out).exists(), "checkpoint removed after success");
    }
    assert!(resumed_any, "no run was killed mid-solve and resumed");
}

#[test]
fn torn_checkpoint_is_cut_back_and_other_rules_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rtb");
    if !solve_and_kill(&out, 500_000) {
        return; // finished too fast to interrupt on this machine
    }
    // Tear the last record, as a power loss mid-write would.
    let c = ckpt(&out);
    let len = std::fs::metadata(&c).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&c).unwrap();
    f.set_len(len - 7).unwrap();
    drop(f);

    // Another rule set must not reuse it.
    let o = solve("isolation:4x5:misere", &out, &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("checkpoint") && err.contains("--restart"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!out.exists());

    // The same rules resume from the last whole record.
    let o = solve(GAME, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("resumed from checkpoint"));
    let got = std::fs::read(&out).unwrap();

    // --restart discards a checkpoint and solves from scratch.
    let again = dir.path().join("again.rtb");
    assert!(solve_and_kill(&again, 64) || again.exists());
    let o = solve(GAME, &again, &["--restart"]);
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stdout).contains("resumed"));
    assert_eq!(std::fs::read(&again).unwrap(), got);
}

#[test]
fn a_checkpoint_from_another_format_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.rtb");
    // A checkpoint header claiming format version 99.
    let mut bytes = b"RTBCKPT\0".to_vec();
    bytes.extend_from_slice(&99u32.to_le_bytes());
    bytes.extend_from_slice(&[0u8; 64]);
    std::fs::write(ckpt(&out), bytes).unwrap();
    let o = solve("isolation:3x3", &out, &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("format version 99"), "{err}");
    // And garbage is not a checkpoint.
    std::fs::write(ckpt(&out), b"hello").unwrap();
    let o = solve("isolation:3x3", &out, &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a retrograde checkpoint"));
    let o = solve("isolation:3x3", &out, &["--restart"]);
    assert!(o.status.success());
}

/// A whole record of the in-memory solve's checkpoint that fails its checks
/// (damaged on disk, not cut short by a kill) is not replayed, and the solve
/// says so in one line before solving again from that record's first tier.
#[test]
fn a_damaged_checkpoint_record_is_reported_and_solved_again() {
    use retrograde::solve::{solve_to_bytes, solve_to_file, Progress, SolveOptions};
    use std::panic::AssertUnwindSafe;
    use std::sync::Mutex;
    struct Run(Option<u32>, Mutex<Vec<String>>);
    impl Progress for Run {
        fn tier(&self, tier: u32, _: u32, _: u64) {
            if Some(tier) == self.0 {
                panic!("stopped at tier {tier}");
            }
        }
        fn advance(&self, _: u64) {}
        fn notice(&self, m: &str) {
            self.1.lock().unwrap().push(m.to_string());
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.rtb");
    let g = retrograde::AnyGame::parse("connect:5x4").unwrap();
    let options = SolveOptions {
        checkpoint_interval: Some(Duration::ZERO),
        ..SolveOptions::default()
    };
    let want = retrograde::with_game!(&g, g => solve_to_bytes(g, &options)).unwrap();
    let stop = Run(Some(8), Mutex::default());
    let r = std::panic::catch_unwind(AssertUnwindSafe(
        || retrograde::with_game!(&g, g => solve_to_file(g, &out, &options, &stop)),
    ));
    assert!(r.is_err());
    let mut bytes = std::fs::read(ckpt(&out)).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(ckpt(&out), &bytes).unwrap();
    let run = Run(None, Mutex::default());
    // The stopped solve's checkpoint lock goes with its file, but a child
    // process another test spawns at that moment holds a copy of the file
    // until its exec closes it (flock is per open file description), so
    // the lock may be seen held for a moment: wait for it, as a user's
    // second solve would be told to.
    let mut tries = 0;
    let r = loop {
        match retrograde::with_game!(&g, g => solve_to_file(g, &out, &options, &run)) {
            Err(retrograde::Error::Checkpoint {
                fault: retrograde::CheckpointFault::InUse,
                ..
            }) if tries < 100 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            r => break r.unwrap(),
        }
    };
    assert!(r.resumed_tiers < 8);
    let notes = run.1.into_inner().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("is damaged")
            && notes[0].contains(&format!("solving again from tier {}", r.resumed_tiers)),
        "{notes:?}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), want);
}
