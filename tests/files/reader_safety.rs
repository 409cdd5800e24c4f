//! Nothing lost, whatever the user points the reader at (issue 11):
//!
//! * a file truncated while open is an `Err` from the default reader, and
//!   `retrograde probe FILE -` reports it and exits 1, never dies of SIGBUS;
//! * `open_verified`, `probe --verify` and the C flag `RTB_OPEN_VERIFY` refuse
//!   a flipped data byte that `open` alone answers from;
//! * a character device, a FIFO (without blocking), a directory and a /proc
//!   file are refused saying what they are;
//! * the C API refuses unknown open flags and invalid UTF-8 cleanly.

use retrograde::games::Isolation;
use retrograde::{Error, Game, Outcome, Tablebase};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

use crate::common::damage::{flipped_copy, truncate};
use crate::common::{refused, solved_isolation};

/// A solved isolation:3x3 file (13 KiB) in a fresh directory, and its game.
fn solved_3x3() -> (TempDir, PathBuf, Isolation) {
    solved_isolation("isolation:3x3", "t.rtb")
}

/// The last index that holds a position, and its outcome.
fn last_position(tb: &Tablebase<Vec<u8>>) -> (u64, Outcome) {
    (0..tb.len())
        .rev()
        .find_map(|i| Some((i, tb.probe_index(i).unwrap()?)))
        .unwrap()
}

#[test]
fn a_file_truncated_while_open_gives_an_error_not_a_crash() {
    let (_dir, path, g) = solved_3x3();
    let memory = Tablebase::from_bytes(std::fs::read(&path).unwrap()).unwrap();
    let (last, want) = last_position(&memory);
    let first = g.encode(&g.start());
    let start = memory.probe_index(first).unwrap().unwrap();

    let tb = Tablebase::open(&path).unwrap();
    assert_eq!(tb.probe_index(last).unwrap(), Some(want));
    assert_eq!(tb.probe(&g, &g.start()).unwrap(), start);
    tb.verify().unwrap();

    // Cut the file just after the start's cell: the cells before the cut
    // still answer; the last one is gone. (A memory map would raise SIGBUS
    // here and kill the test process.)
    let offset = tb.header().data_offset;
    let width = u64::from(tb.codec().width());
    truncate(&path, offset + (first + 1) * width);
    assert_eq!(tb.probe(&g, &g.start()).unwrap(), start);
    let e = tb.probe_index(last).unwrap_err();
    assert!(
        matches!(e, Error::FileChanged { offset: o, len } if o == offset + last * width && len == width as usize),
        "{e}"
    );
    assert!(
        e.to_string().contains("changed or shrank while open"),
        "{e}"
    );
    // The text interface and the data check say the same, without panicking.
    let e = tb.probe_text(None, true).unwrap_err();
    assert!(matches!(e, Error::FileChanged { .. }), "{e}");
    let e = tb.verify().unwrap_err();
    assert!(
        matches!(e, Error::WrongLength { expected, found } if expected == tb.header().file_len() && found < expected),
        "{e}"
    );

    // Cut to nothing: every probe is an error.
    truncate(&path, 0);
    assert!(matches!(
        tb.probe(&g, &g.start()),
        Err(Error::FileChanged { .. })
    ));
}

/// `retrograde probe FILE -` answering positions from stdin while the file
/// is truncated under it: the answers before the cut are right, the probes
/// after it fail with one line each, and the process exits 1 (not killed by
/// a signal).
#[cfg(unix)]
#[test]
fn probe_from_stdin_reports_a_file_truncated_mid_run() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    let (_dir, path, g) = solved_3x3();
    let tb = Tablebase::from_bytes(std::fs::read(&path).unwrap()).unwrap();
    let start = tb.probe_text(None, false).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrograde"))
        .args(["probe", path.to_str().unwrap(), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{}", start.position).unwrap();
    stdin.flush().unwrap();
    // The first answer proves the file is open and was read.
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains(&start.outcome.to_string()), "{first}");

    truncate(&path, tb.header().data_offset);
    writeln!(stdin, "{}", start.position).unwrap();
    writeln!(stdin, "{}", g.format_position(&g.start())).unwrap();
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        None,
        "killed by a signal; stderr: {stderr}"
    );
    assert_eq!(status.code(), Some(1), "stderr: {stderr}");
    assert_eq!(rest, "", "no answer after the cut");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    for line in lines {
        assert!(
            line.starts_with("retrograde: error: the file changed or shrank while open"),
            "{line}"
        );
    }
}

#[test]
fn open_verified_refuses_a_flipped_data_byte_that_open_answers_from() {
    let (_dir, path, g) = solved_3x3();
    let good = Tablebase::open_verified(&path).unwrap();
    let want = good.probe(&g, &g.start()).unwrap();
    let bad = flipped_copy(&path, &g);
    // `open` checks only the header, and answers wrongly from the data.
    let answered = Tablebase::open(&bad)
        .unwrap()
        .probe(&g, &g.start())
        .unwrap();
    assert_eq!(answered.value, want.value);
    assert_ne!(answered.remoteness, want.remoteness);
    let e = match Tablebase::open_verified(&bad) {
        Ok(_) => panic!("a damaged file opened verified"),
        Err(e) => e,
    };
    assert!(
        matches!(e, Error::DataChecksum { stored, computed } if stored == good.header().data_crc && computed != stored),
        "{e}"
    );
    // Streaming the file through the CRC and hashing a map agree.
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let mapped = unsafe { Tablebase::open_mmap(&bad) }.unwrap();
    assert_eq!(mapped.verify().unwrap_err().to_string(), e.to_string());
}

#[test]
fn probe_verify_refuses_a_flipped_data_byte() {
    use std::process::Command;
    let (_dir, path, g) = solved_3x3();
    let bad = flipped_copy(&path, &g);
    let probe = |file: &Path, verify: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrograde"));
        cmd.arg("probe").arg(file);
        if verify {
            cmd.arg("--verify");
        }
        cmd.output().unwrap()
    };
    let good = probe(&path, true);
    assert!(good.status.success(), "{good:?}");
    let answer = String::from_utf8(good.stdout).unwrap();
    // Without --verify the damaged file answers (exit 0), wrongly.
    let unchecked = probe(&bad, false);
    assert!(unchecked.status.success(), "{unchecked:?}");
    assert_ne!(String::from_utf8(unchecked.stdout).unwrap(), answer);
    let checked = probe(&bad, true);
    assert_eq!(checked.status.code(), Some(1), "{checked:?}");
    assert!(checked.stdout.is_empty(), "{checked:?}");
    let err = String::from_utf8(checked.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("retrograde: error: "), "{err}");
    assert!(err.contains(bad.to_str().unwrap()), "names the file: {err}");
    assert!(err.contains("data checksum mismatch"), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn special_files_are_refused_saying_what_they_are() {
    let e = refused(Tablebase::open("/dev/zero"));
    assert!(
        matches!(
            e,
            Error::NotAFile {
                kind: "a character device"
            }
        ),
        "{e}"
    );
    assert_eq!(e.to_string(), "is a character device, not a tablebase file");
    // SAFETY: refused before anything is mapped (not a regular file).
    let e = refused(unsafe { Tablebase::open_mmap("/dev/null") });
    assert!(
        matches!(
            e,
            Error::NotAFile {
                kind: "a character device"
            }
        ),
        "{e}"
    );
    // A regular file of size 0 that is not empty at all.
    let e = refused(Tablebase::open("/proc/self/status"));
    assert!(matches!(e, Error::Empty), "{e}");
    assert!(e.to_string().contains("size 0"), "{e}");
    assert!(e.to_string().contains("/proc"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let e = refused(Tablebase::open(dir.path()));
    assert!(matches!(e, Error::IsDirectory), "{e}");
}

/// Opening a FIFO for reading blocks until a writer comes; the reader must
/// refuse it without opening it. Run in a thread so a regression fails the
/// test instead of hanging it.
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.rtb");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // Safety: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let e = refused(Tablebase::open(&fifo));
        // SAFETY: refused before anything is mapped (not a regular file).
        let m = refused(unsafe { Tablebase::open_mmap(&fifo) });
        send.send((e.to_string(), m.to_string())).unwrap();
    });
    let (e, m) = receive
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("opening a FIFO blocked");
    assert_eq!(e, "is a FIFO (named pipe), not a tablebase file");
    assert_eq!(m, e);
}
