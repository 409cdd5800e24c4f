//! Regression tests for issue 11: what a hostile but fair user can point the
//! command line at. Each test reproduces one reported fault — data loss
//! through a planted symlink, a device or the solve's own input as the
//! output, two solves racing to one output, a header whose statistics lie,
//! absurd numbers, an endless drawn line — and checks it is refused with one
//! clear line and a non-zero exit, with nothing already there lost.
#![cfg(unix)]

use retrograde::format::Header;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

use crate::common::{bin, names, refused_line as refused, run_in};

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ------------------------------------------------------------ data loss

#[test]
fn a_symlink_planted_at_the_old_partial_name_is_never_written_through() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("victim.txt"), "precious\n").unwrap();
    std::os::unix::fs::symlink("victim.txt", d.join("t.rtb.partial")).unwrap();
    // And at the checkpoint's name, which a solve creates and appends to.
    std::fs::write(d.join("victim2.txt"), "precious too\n").unwrap();
    std::os::unix::fs::symlink("victim2.txt", d.join("u.rtb.ckpt")).unwrap();
    ok(&run_in(d, &["solve", "tictactoe", "-o", "t.rtb"]));
    assert_eq!(
        std::fs::read_to_string(d.join("victim.txt")).unwrap(),
        "precious\n"
    );
    let t = std::fs::symlink_metadata(d.join("t.rtb")).unwrap();
    assert!(t.is_file(), "t.rtb is a regular file, not a link");
    // A checkpoint that is a symlink is refused, not resumed through.
    refused(
        &run_in(d, &["solve", "tictactoe", "-o", "u.rtb"]),
        "not a regular file",
    );
    assert_eq!(
        std::fs::read_to_string(d.join("victim2.txt")).unwrap(),
        "precious too\n"
    );
}

#[test]
fn a_new_checkpoint_replaces_a_planted_link_and_leaves_its_target_alone() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("victim.txt"), "precious\n").unwrap();
    // A dangling link at the checkpoint's name, pointing where a victim
    // file will be created by following it.
    std::os::unix::fs::symlink("created-by-link.txt", d.join("c.rtb.ckpt")).unwrap();
    // A dangling link is not a checkpoint to resume: refused, nothing made.
    refused(
        &run_in(d, &["solve", "tictactoe", "-o", "c.rtb"]),
        "not a regular file",
    );
    assert!(!d.join("created-by-link.txt").exists());
}

#[test]
fn an_output_that_is_a_device_is_refused() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // /dev/null through a symlink: the target is a character device.
    std::os::unix::fs::symlink("/dev/null", d.join("null.rtb")).unwrap();
    let err = refused(
        &run_in(d, &["solve", "tictactoe", "-o", "null.rtb"]),
        "character device",
    );
    assert!(err.contains("not a regular file"), "{err}");
    assert!(std::fs::symlink_metadata(d.join("null.rtb"))
        .unwrap()
        .file_type()
        .is_symlink());
    let fifo = d.join("pipe.rtb");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    refused(
        &run_in(d, &["solve", "tictactoe", "-o", "pipe.rtb"]),
        "FIFO",
    );
    refused(
        &run_in(d, &["solve", "tictactoe", "-o", "-"]),
        "standard output",
    );
    for reserved in ["x.rtb.partial", "x.rtb.ckpt", "x.rtb.lock"] {
        refused(
            &run_in(d, &["solve", "tictactoe", "-o", reserved]),
            "reserved",
        );
    }
}

#[test]
fn a_symlink_to_a_regular_file_is_replaced_and_its_target_kept() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("target.txt"), "keep\n").unwrap();
    std::os::unix::fs::symlink("target.txt", d.join("l.rtb")).unwrap();
    ok(&run_in(d, &["solve", "tictactoe", "-o", "l.rtb"]));
    assert_eq!(
        std::fs::read_to_string(d.join("target.txt")).unwrap(),
        "keep\n"
    );
    assert!(std::fs::symlink_metadata(d.join("l.rtb"))
        .unwrap()
        .is_file());
}

#[test]
fn the_output_may_not_be_the_solves_own_input() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let rules = std::fs::read(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
        "/games/tictactoe.txt"
    ))
    .unwrap();
    std::fs::write(d.join("rules.txt"), &rules).unwrap();
    refused(
        &run_in(d, &["solve", "pattern:rules.txt", "-o", "rules.txt"]),
        "own input",
    );
    // Another spelling of the same file, and a hard link to it.
    refused(
        &run_in(d, &["solve", "pattern:./rules.txt", "-o", "rules.txt"]),
        "own input",
    );
    std::fs::hard_link(d.join("rules.txt"), d.join("hard.rtb")).unwrap();
    refused(
        &run_in(d, &["solve", "pattern:rules.txt", "-o", "hard.rtb"]),
        "own input",
    );
    assert_eq!(std::fs::read(d.join("rules.txt")).unwrap(), rules);
}

#[test]
fn a_second_solve_of_the_same_output_is_refused_while_the_first_runs() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let first = bin()
        .current_dir(d)
        .args([
            "solve",
            "isolation:4x5:misere",
            "-o",
            "z.rtb",
            "--threads",
            "1",
            "--no-checkpoint",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first solve holds the lock.
    let started = Instant::now();
    while !d.join("z.rtb.lock").exists() {
        assert!(started.elapsed() < Duration::from_secs(30), "no lock taken");
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = run_in(
        d,
        &[
            "solve",
            "isolation:4x5",
            "-o",
            "z.rtb",
            "--threads",
            "1",
            "--no-checkpoint",
        ],
    );
    refused(&second, "another solve or search is writing");
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success());
    // The file under the final name is the table the successful solve
    // reported: the misère one.
    let info = ok(&run_in(d, &["info", "z.rtb", "--json"]));
    let j: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(j["game"], "isolation:4x5:a=2,b=17:misere");
    let reported = String::from_utf8_lossy(&first.stdout).into_owned();
    assert!(
        reported.contains(j["data_crc32"].as_str().unwrap()),
        "{reported}"
    );
    assert_eq!(names(d), vec!["z.rtb".to_string()], "nothing else left");
}

#[test]
fn sigint_while_writing_removes_the_temporary_file() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let mut child = bin()
        .current_dir(d)
        .args(["solve", "isolation:4x5", "-o", "s.rtb", "--no-checkpoint"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The temporary file exists only while the finished table is written:
    // wait for it, then interrupt.
    let started = Instant::now();
    let mut seen = false;
    while started.elapsed() < Duration::from_secs(120) {
        if names(d).iter().any(|n| n.ends_with(".partial")) {
            seen = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let pid = child.id().to_string();
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let status = child.wait().unwrap();
    if seen && status.code() == Some(130) {
        // Interrupted while writing: nothing of the solve may remain.
        let left = names(d);
        assert!(
            left.iter()
                .all(|n| !n.ends_with(".partial") && !n.ends_with(".lock")),
            "left behind: {left:?}"
        );
        assert!(!d.join("s.rtb").exists());
    } else {
        // The write finished first (a fast disk): the file is complete.
        assert!(status.success() || status.code() == Some(130));
    }
    assert!(seen, "never saw the temporary file");
}

#[test]
fn sigterm_during_the_solve_leaves_only_the_checkpoint() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let mut child = bin()
        .current_dir(d)
        .args([
            "solve",
            "isolation:4x5",
            "-o",
            "s.rtb",
            "--checkpoint-every",
            "0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !d.join("s.rtb.ckpt").exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "no checkpoint");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + 15));
    assert_eq!(names(d), vec!["s.rtb.ckpt".to_string()]);
}

// ------------------------------------------------------------ wrong answers

fn solved(d: &Path) -> PathBuf {
    ok(&run_in(d, &["solve", "isolation:3x3", "-o", "a.rtb"]));
    d.join("a.rtb")
}

/// Rewrites the header (with a valid header CRC) after `edit`.
fn rewrite_header(path: &Path, edit: impl FnOnce(&mut Header)) -> PathBuf {
    let mut bytes = std::fs::read(path).unwrap();
    let mut h = Header::decode(&bytes, bytes.len() as u64).unwrap();
    edit(&mut h);
    let head = h.encode();
    bytes[..head.len()].copy_from_slice(&head);
    let out = path.with_file_name("edited.rtb");
    std::fs::write(&out, bytes).unwrap();
    out
}

#[test]
fn verify_recounts_the_header_statistics() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let good = solved(d);
    let v = ok(&run_in(d, &["verify", "a.rtb"]));
    assert!(v.contains("statistics  ok"), "{v}");
    assert!(v.contains("padding     ok"), "{v}");
    let swapped = rewrite_header(&good, |h| h.summary.counts.swap(0, 1));
    let out = run_in(d, &["verify", swapped.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("count of win"), "{text}");
    assert!(text.contains("count of lose"), "{text}");
    // The --crc-only check recounts too: it is one pass over the data.
    let out = run_in(d, &["verify", "--crc-only", swapped.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let huge = rewrite_header(&good, |h| h.summary.max_remoteness[0] = u32::MAX);
    let out = run_in(d, &["verify", "--json", huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["statistics_ok"], false);
    assert_eq!(j["ok"], false);
    let nonpos = rewrite_header(&good, |h| h.summary.non_positions += 1);
    assert_eq!(
        run_in(d, &["verify", nonpos.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn verify_refuses_a_non_zero_byte_in_the_padding() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let good = solved(d);
    let mut bytes = std::fs::read(&good).unwrap();
    let h = Header::decode(&bytes, bytes.len() as u64).unwrap();
    bytes[h.encoded_len() + 3] = 0x5a;
    let bad = d.join("pad.rtb");
    std::fs::write(&bad, bytes).unwrap();
    let out = run_in(d, &["verify", "pad.rtb"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("padding     FAILED"));
}

#[test]
fn info_escapes_control_characters_of_a_crafted_generator() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let good = solved(d);
    let crafted = rewrite_header(&good, |h| h.generator = "evil\x1b[2J\x07 tool".into());
    let text = ok(&run_in(d, &["info", crafted.to_str().unwrap()]));
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    assert!(text.contains("evil\\u{1b}[2J\\u{7} tool"), "{text}");
}

// ------------------------------------------------------------ crashes, hangs

#[test]
fn huge_checkpoint_intervals_are_refused_not_a_panic() {
    let dir = TempDir::new().unwrap();
    for secs in ["1e20", "1e30", "18446744073709551615", "NaN", "inf"] {
        let out = run_in(
            dir.path(),
            &[
                "solve",
                "tictactoe",
                "-o",
                "x.rtb",
                "--checkpoint-every",
                secs,
            ],
        );
        refused(&out, "--checkpoint-every");
    }
    assert!(names(dir.path()).is_empty());
}

#[test]
fn absurd_thread_counts_are_refused_at_once() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let started = Instant::now();
    for (cmd, n) in [("solve", "100000"), ("verify", "4294967296")] {
        let args: Vec<&str> = if cmd == "solve" {
            vec!["solve", "tictactoe", "-o", "x.rtb", "--threads", n]
        } else {
            vec!["verify", "x.rtb", "--threads", n]
        };
        refused(&run_in(d, &args), "--threads");
    }
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_drawn_line_says_it_was_cut_and_keeps_its_columns() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    ok(&run_in(d, &["solve", "dodgem:4", "-o", "d.rtb"]));
    let text = ok(&run_in(d, &["line", "d.rtb"]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.last().unwrap().contains("cut after 1,000 moves"),
        "{}",
        lines.last().unwrap()
    );
    // Every ply line has its move column at the same place.
    let plies: Vec<&&str> = lines.iter().filter(|l| !l.starts_with('(')).collect();
    assert_eq!(plies.len(), 1001);
    assert!(plies[1000].starts_with("1,000  "), "{}", plies[1000]);
    // The ply numbers are right-aligned to the width of "1,000".
    for l in &plies {
        let b = l.as_bytes();
        assert!(b[4].is_ascii_digit() && b[5] == b' ', "misaligned: {l}");
    }
}

#[test]
fn play_re_prompts_after_a_line_of_invalid_utf8() {
    use std::io::Write;
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    ok(&run_in(d, &["solve", "tictactoe", "-o", "t.rtb"]));
    let mut child = bin()
        .current_dir(d)
        .args(["play", "t.rtb"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"\xff\xfe\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("not valid UTF-8"), "{text}");
    assert!(text.contains("Bye."), "{text}");
}

// ------------------------------------------------------------ messages

#[test]
fn a_damaged_checkpoint_header_is_called_corrupt() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // A checkpoint of tictactoe, kept by killing the solve... simpler: make
    // one by interrupting a solve that checkpoints every tier.
    let mut child = bin()
        .current_dir(d)
        .args([
            "solve",
            "isolation:4x5",
            "-o",
            "c.rtb",
            "--checkpoint-every",
            "0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ckpt = d.join("c.rtb.ckpt");
    let started = Instant::now();
    while std::fs::metadata(&ckpt).map_or(0, |m| m.len()) < 200 {
        assert!(started.elapsed() < Duration::from_secs(60), "no checkpoint");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Damage one byte of the game spec in the checkpoint's header.
    let mut bytes = std::fs::read(&ckpt).unwrap();
    bytes[36] ^= 0x20;
    std::fs::write(&ckpt, bytes).unwrap();
    let err = refused(
        &run_in(d, &["solve", "isolation:4x5", "-o", "c.rtb"]),
        "is corrupt",
    );
    assert!(!err.contains("belongs to"), "{err}");
}

#[test]
fn disk_refusals_print_sizes_in_a_unit_that_shows_them() {
    // The unit is chosen by size; what matters is that small numbers do not
    // read as zero.
    let dir = TempDir::new().unwrap();
    let out = run_in(
        dir.path(),
        &["solve", "tictactoe", "--dry-run", "-o", "t.rtb"],
    );
    let text = ok(&out);
    let line = text.lines().find(|l| l.starts_with("file size")).unwrap();
    assert!(line.contains("KiB"), "{line}");
    assert!(!line.contains("0.00"), "{line}");
}

#[test]
fn verify_statistics_agree_on_good_tables_of_every_kind() {
    // The recount must not cry wolf: a value table, a folded one, a loopy
    // one (draws) and nimber tables, each as the generator wrote it.
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    for (i, args) in [
        vec!["isolation:3x4"],
        vec!["isolation:3x4", "--fold"],
        vec!["dodgem:3"],
        vec!["cram:3x3", "--nimbers"],
        vec!["subtraction:20:1,3,4", "--nimbers"],
        vec!["connect:4x4", "--fold"],
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("t{i}.rtb");
        let mut solve = vec!["solve", "-o", &name];
        solve.extend(&args);
        ok(&run_in(d, &solve));
        let out = run_in(d, &["verify", "--crc-only", "--json", &name]);
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["statistics_ok"], true, "{args:?}");
        assert_eq!(j["padding_ok"], true, "{args:?}");
        assert!(out.status.success(), "{args:?}");
    }
}
