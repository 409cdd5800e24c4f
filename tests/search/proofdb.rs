//! Proof databases as a hostile user meets them: forged and contradicting
//! files, huge and sparse files, damaged tables as leaves, outputs that
//! fail, collide or are the run's own inputs, and interruptions while
//! saving.

use crate::common::{bin, names, run, run_in};
use retrograde::search::games::AnySearch;
use retrograde::search::proofdb::{self, Fact, Kind, Record};
use retrograde::search::{Bounds, Key, SearchGame};
use retrograde::with_search;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Asserts a refusal ([`crate::common::refused_line`]) with no result on stdout.
fn refused(o: &Output, needle: &str) -> String {
    let err = crate::common::refused_line(o, needle);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    err
}

/// The JSON of a run that succeeded.
fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A child process, killed if the test fails before it ends.
struct Running(Option<std::process::Child>);

impl Running {
    fn spawn(c: &mut Command) -> Running {
        Running(Some(
            c.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        ))
    }

    fn pid(&self) -> i32 {
        self.0.as_ref().expect("running").id() as i32
    }

    fn wait(mut self) -> Output {
        self.0.take().expect("running").wait_with_output().unwrap()
    }

    /// Kills the run with SIGKILL once `file` exists (its first periodic
    /// save) and `after` more has passed; asserts it was killed, not ended.
    fn kill_after_save(self, file: &Path, after: Duration, what: &str) {
        let started = Instant::now();
        while !file.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{what}: no periodic save"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(after);
        // SAFETY: kill(2) on our own child, which has not been waited for.
        assert_eq!(unsafe { libc::kill(self.pid(), libc::SIGKILL) }, 0);
        let o = self.wait();
        assert_eq!(o.status.code(), None, "{what}: killed (it ended first)");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Saves the proof of `spec` at `position` (the start if empty) to `out`.
fn saved(spec: &str, position: &str, out: &Path) {
    let mut args = vec!["search", spec, "-q", "--memory", "1M", "--save", s(out)];
    if !position.is_empty() {
        args.insert(2, position);
    }
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Writes `to` as a forger would: the entries of `from` (none if `keep` is
/// false) with the positions in `changes` set to the given bounds, added
/// where absent, and a valid CRC computed by the library's own writer.
fn forge(spec: &str, from: &Path, to: &Path, keep: bool, changes: &[(&str, i8, i8)]) {
    let game = AnySearch::parse(spec).unwrap();
    with_search!(&game, g => {
        let mut records = if keep {
            proofdb::load(g, from).unwrap().1
        } else {
            Vec::new()
        };
        for &(text, lo, hi) in changes {
            let pos = g.parse_position(text).unwrap();
            let key = g.key(&pos);
            let fact = Fact::Value(Bounds { lo, hi });
            match records.iter_mut().find(|r| r.key == key) {
                Some(r) => r.fact = fact,
                None => records.push(Record { key, fact, pos }),
            }
        }
        let file = std::fs::File::create(to).unwrap();
        proofdb::write(g, file, Kind::Values, &mut records).unwrap();
    })
}

#[test]
fn a_forged_database_with_a_valid_crc_yields_no_value() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.proof");
    saved("mnk:3x3x3", "", &good);
    // The root's entry says win (it is a tie), the CRC recomputed: the load
    // re-proves the entry from its moves and refuses the file.
    let root_win = dir.path().join("root-win.proof");
    forge(
        "mnk:3x3x3",
        &good,
        &root_win,
        true,
        &[(".../.../...", 1, 1)],
    );
    let o = run(&[
        "search",
        "mnk:3x3x3",
        "--memory",
        "1M",
        "--load",
        s(&root_win),
    ]);
    let err = refused(
        &o,
        "entry '.../.../...' claims win, but no move achieves it",
    );
    assert!(err.contains("root-win.proof"), "{err}");
    // The opt-out believes it, and says that it does.
    let o = run(&[
        "search",
        "mnk:3x3x3",
        "--memory",
        "1M",
        "--load",
        s(&root_win),
        "--trust-load",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    let game = AnySearch::parse("mnk:3x3x3").unwrap();
    let count = with_search!(&game, g => proofdb::load(g, &root_win).unwrap().1.len());
    assert!(
        err.contains(&format!(
            "warning: --trust-load: {count} loaded entries are used without being re-proven"
        )),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("value       win"));
    // Planted children: after x0 o1, every move that does not win is
    // claimed to lose for o, so a believing search would name one of them
    // as x's best move.
    let pos = "xo./.../...";
    let start = dir.path().join("xo.proof");
    saved("mnk:3x3x3", pos, &start);
    let game = AnySearch::parse("mnk:3x3x3").unwrap();
    let planted: Vec<String> = with_search!(&game, g => {
        let p = g.parse_position(pos).unwrap();
        g.moves(&p)
            .into_iter()
            .filter(|(_, c)| retrograde::search::reference::value(g, c) != retrograde::Value::Lose)
            .map(|(_, c)| g.format_position(&c))
            .collect()
    });
    assert_eq!(planted.len(), 4, "{planted:?}");
    let changes: Vec<_> = planted.iter().map(|p| (p.as_str(), -1, -1)).collect();
    let forged = dir.path().join("planted.proof");
    forge("mnk:3x3x3", &start, &forged, true, &changes);
    let o = run(&[
        "search",
        "mnk:3x3x3",
        pos,
        "--memory",
        "1M",
        "--load",
        s(&forged),
    ]);
    let err = refused(&o, "claims loss, but move");
    assert!(
        planted
            .iter()
            .any(|p| err.contains(&format!("entry '{p}'"))),
        "{err}"
    );
    // The true files load, and give the value the search proves.
    for (db, position, value) in [(&good, ".../.../...", "tie"), (&start, pos, "win")] {
        let o = run(&[
            "search",
            "mnk:3x3x3",
            position,
            "--memory",
            "1M",
            "--json",
            "--load",
            s(db),
        ]);
        let j = json(&o);
        assert_eq!(j["value"], value, "{j}");
        assert!(j["loaded"].as_u64().unwrap() > 0, "{j}");
        assert_eq!(j["loaded_unchecked"], 0, "{j}");
    }
}

#[test]
fn contradicting_databases_are_refused_naming_the_position_and_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = d.join("good.proof");
    saved("mnk:3x3x3", "", &good);
    // Opposite values of the root: a search used to answer "unproven,
    // nodes 0".
    let lose = d.join("lose.proof");
    forge("mnk:3x3x3", &good, &lose, true, &[(".../.../...", -1, -1)]);
    let o = run(&[
        "search",
        "mnk:3x3x3",
        "--memory",
        "1M",
        "--load",
        s(&good),
        s(&lose),
    ]);
    let err = refused(&o, "contradict each other at position '.../.../...'");
    assert!(
        err.contains("good.proof' says tie") && err.contains("lose.proof' says loss"),
        "{err}"
    );
    // On a child (x in the centre, o to move: a tie): a search used to save
    // it as bounds no load accepts.
    let (tie, win) = (d.join("tie.proof"), d.join("win.proof"));
    forge("mnk:3x3x3", &good, &tie, true, &[(".../.x./...", 0, 0)]);
    forge("mnk:3x3x3", &good, &win, false, &[(".../.x./...", 1, 1)]);
    let o = run(&[
        "search",
        "mnk:3x3x3",
        "--memory",
        "1M",
        "--load",
        s(&tie),
        s(&win),
        "--save",
        s(&d.join("out.proof")),
    ]);
    let err = refused(&o, "at position '.../.x./...'");
    assert!(
        err.contains("tie.proof' says tie") && err.contains("win.proof' says win"),
        "{err}"
    );
    assert!(!d.join("out.proof").exists());
    // Two true halves meet: "not a loss" and "not a win" make a tie, the
    // root's children searched to re-prove each half.
    let (hi, lo) = (d.join("hi.proof"), d.join("lo.proof"));
    forge("mnk:3x3x3", &good, &hi, false, &[(".../.../...", 0, 1)]);
    forge("mnk:3x3x3", &good, &lo, false, &[(".../.../...", -1, 0)]);
    let o = run(&[
        "search",
        "mnk:3x3x3",
        "--memory",
        "1M",
        "--json",
        "--load",
        s(&hi),
        s(&lo),
    ]);
    let j = json(&o);
    assert_eq!(j["value"], "tie", "{j}");
    assert_eq!(j["loaded"], 1, "{j}");
}

#[test]
fn huge_and_sparse_files_are_refused_from_their_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 3 GB of holes: used to be read whole (31 s, 3.15 GB) before its magic.
    let sparse = d.join("sparse.proof");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let t = Instant::now();
    let o = run(&["search", "mnk:3x3x3", "--load", s(&sparse)]);
    refused(&o, "no proof database header");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    // A true header claiming more entries than 3 GB can hold.
    let game = AnySearch::parse("mnk:3x3x3").unwrap();
    let key_bytes = with_search!(&game, g => key_bytes(g));
    let mut head = b"RTBPROOF".to_vec();
    head.extend_from_slice(&1u16.to_le_bytes());
    head.push(0);
    head.extend_from_slice(&(key_bytes as u16).to_le_bytes());
    head.extend_from_slice(&9u16.to_le_bytes());
    head.extend_from_slice(b"mnk:3x3x3");
    head.extend_from_slice(&(1u64 << 40).to_le_bytes());
    let claims = d.join("claims.proof");
    std::fs::write(&claims, &head).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&claims)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let t = Instant::now();
    let o = run(&["search", "mnk:3x3x3", "--load", s(&claims)]);
    refused(
        &o,
        "it claims 1099511627776 entries, more than its 3221225472 bytes",
    );
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    // And one claiming too few to fill them.
    let len = head.len();
    head[len - 8..].copy_from_slice(&1000u64.to_le_bytes());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&claims)
        .unwrap()
        .write_all_at(&head, 0)
        .unwrap();
    let t = Instant::now();
    let o = run(&["search", "mnk:3x3x3", "--load", s(&claims)]);
    refused(&o, "its 1000 entries cannot fill its 3221225472 bytes");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    // A FIFO is refused, not waited on.
    let fifo = d.join("fifo.proof");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let o = run(&["search", "mnk:3x3x3", "--load", s(&fifo)]);
    refused(&o, "is a FIFO (named pipe), not a proof database file");
}

fn key_bytes<G: SearchGame>(_: &G) -> usize {
    G::Key::BYTES
}

#[test]
fn every_table_given_as_a_leaf_is_opened_verified() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cram = d.join("c.rtb");
    crate::common::solve("cram:4x4", &cram, &["--nimbers"]);
    let region = "..../..../..../..../####";
    let args = |t: &Path| {
        run(&[
            "search",
            "cram:5x4",
            region,
            "--nimber",
            "--json",
            "--memory",
            "1M",
            "--tablebase",
            s(t),
        ])
    };
    let o = args(&cram);
    let j = json(&o);
    assert_eq!(j["nimber"], 0, "{j}");
    assert_eq!(j["leaf_hits"], 1, "{j}");
    // One data byte flipped: the region's cell used to be read as it was
    // (nimber 2, a win), the table's CRC never checked on this path.
    let mut bytes = std::fs::read(&cram).unwrap();
    let at = bytes.len() - 1;
    bytes[at] ^= 0x02;
    let bad = d.join("\u{1b}[31mbad.rtb");
    std::fs::write(&bad, &bytes).unwrap();
    let err = refused(&args(&bad), "data checksum mismatch");
    assert!(err.contains("/\\u{1b}[31mbad.rtb'"), "{err}");
    // A value table of the searched game, the same way.
    let ttt = d.join("t.rtb");
    crate::common::solve("tictactoe", &ttt, &[]);
    let mut bytes = std::fs::read(&ttt).unwrap();
    let at = bytes.len() - 1;
    bytes[at] ^= 0x01;
    std::fs::write(&ttt, &bytes).unwrap();
    let o = run(&[
        "search",
        "tictactoe",
        "--memory",
        "1M",
        "--tablebase",
        s(&ttt),
    ]);
    let err = refused(&o, "data checksum mismatch");
    assert!(err.contains(&format!("'{}'", s(&ttt))), "{err}");
}

#[test]
fn paths_in_messages_are_escaped_and_cut() {
    let o = run(&[
        "search",
        "mnk:3x3x3",
        "--load",
        "/nonexistent/\u{1b}[2Jx\u{7}.proof",
    ]);
    let err = refused(&o, "'/nonexistent/\\u{1b}[2Jx\\u{7}.proof'");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    let long = format!("/nonexistent/{}/x.proof", "d".repeat(5000));
    for flag in ["--load", "--save"] {
        let o = run(&["search", "mnk:3x3x3", "--memory", "1M", flag, &long]);
        let err = refused(&o, "/nonexistent/ddd");
        assert!(err.len() < 400, "{} bytes: {err:.400}", err.len());
        assert!(
            err.contains(&format!("…' ({} bytes)", long.len())),
            "{err:.400}"
        );
    }
}

#[test]
fn the_output_is_checked_before_the_search_and_a_failed_save_keeps_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A directory that does not exist: refused before a search that would
    // otherwise run for its 20 seconds.
    let t = Instant::now();
    let o = run(&[
        "search",
        "mnk:5x5x4",
        "--memory",
        "16M",
        "--time",
        "20",
        "--save",
        s(&d.join("nodir/x.proof")),
    ]);
    refused(&o, "nodir': No such file or directory");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // A full disk, as a file size limit: the write fails at the end, after
    // the result is printed; nothing is left behind.
    let limited = |extra: &[&str]| {
        let mut args = vec![
            "-c",
            "ulimit -f 1; trap '' XFSZ; exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_retrograde"),
            "search",
            "connect:5x4",
            "--engine",
            "dfpn",
            // One thread: with more, which of the tying moves is shown
            // varies from run to run.
            "--threads",
            "1",
            "-q",
            "--memory",
            "16M",
            "--save",
            "x.proof",
        ];
        args.extend_from_slice(extra);
        Command::new("sh")
            .current_dir(d)
            .args(&args)
            .output()
            .unwrap()
    };
    let o = limited(&[]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("value       tie") && out.contains("best move   2"),
        "{out}"
    );
    assert!(
        err.contains("the result above was not saved: 'x.proof': File too large"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(names(d).is_empty(), "{:?}", names(d));
    let o = limited(&["--json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["value"], "tie", "{j}");
    assert_eq!(j["saved"], serde_json::Value::Null, "{j}");
    assert!(
        j["save_error"].as_str().unwrap().contains("File too large"),
        "{j}"
    );
    assert!(names(d).is_empty(), "{:?}", names(d));
    // A file planted at the name the temporary file used to have
    // (NAME.proof.<pid>.partial; exec keeps the shell's pid): the save used
    // to fail on it. The planted link and its target are left alone.
    std::fs::write(d.join("victim"), b"keep").unwrap();
    let o = Command::new("sh")
        .current_dir(d)
        .args([
            "-c",
            "ln -s victim x.proof.$$.partial && exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_retrograde"),
            "search",
            "connect:5x4",
            "-q",
            "--memory",
            "16M",
            "--save",
            "x.proof",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(d.join("victim")).unwrap(), b"keep");
    let left = names(d);
    assert_eq!(left.len(), 3, "{left:?}");
    assert!(left.contains(&"x.proof".to_string()), "{left:?}");
    let db = d.join("x.proof");
    let game = AnySearch::parse("connect:5x4").unwrap();
    with_search!(&game, g => assert!(proofdb::load(g, &db).unwrap().1.len() > 1000));
}

#[test]
fn a_read_only_directory_is_refused_before_the_search() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    let ro = d.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores permissions: the search runs as nobody then, so the
    // directory's mode is what decides.
    let search = || {
        let mut c = bin();
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            use std::os::unix::process::CommandExt;
            c.uid(65534).gid(65534);
        }
        c
    };
    if !search()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: the test binary cannot run as nobody here");
        return;
    }
    let t = Instant::now();
    let o = search()
        .args([
            "search",
            "mnk:5x5x4",
            "--memory",
            "16M",
            "--time",
            "20",
            "--save",
            s(&ro.join("x.proof")),
        ])
        .output()
        .unwrap();
    refused(&o, "Permission denied");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert!(names(&ro).is_empty());
}

#[test]
fn a_search_never_saves_over_its_own_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rules = std::fs::read(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
        "/games/tictactoe.txt"
    ))
    .unwrap();
    std::fs::write(d.join("ttt.txt"), &rules).unwrap();
    std::fs::hard_link(d.join("ttt.txt"), d.join("hard.proof")).unwrap();
    for out in ["ttt.txt", "./ttt.txt", "hard.proof"] {
        let o = run_in(
            d,
            &[
                "search",
                "pattern:ttt.txt",
                "-q",
                "--memory",
                "1M",
                "--save",
                out,
            ],
        );
        refused(&o, "is this run's own input 'ttt.txt'");
    }
    assert_eq!(std::fs::read(d.join("ttt.txt")).unwrap(), rules);
    // A database loaded, under any spelling.
    let db = d.join("a.proof");
    saved("mnk:3x3x3", "", &db);
    let before = std::fs::read(&db).unwrap();
    for out in ["a.proof", "./a.proof"] {
        let o = run_in(
            d,
            &[
                "search",
                "mnk:3x3x3",
                "--memory",
                "1M",
                "--load",
                "a.proof",
                "--save",
                out,
            ],
        );
        refused(&o, "own input 'a.proof'");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert_eq!(names(d), ["a.proof", "hard.proof", "ttt.txt"]);
}

#[test]
fn a_second_search_saving_to_the_same_file_is_refused_while_the_first_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let first = Running::spawn(bin().current_dir(d).args([
        "search",
        "mnk:5x5x4",
        "-q",
        "--memory",
        "16M",
        "--time",
        "3",
        "--save",
        "two.proof",
    ]));
    let started = Instant::now();
    while !d.join("two.proof.lock").exists() {
        assert!(started.elapsed() < Duration::from_secs(30), "no lock taken");
        std::thread::sleep(Duration::from_millis(5));
    }
    let o = run_in(
        d,
        &[
            "search",
            "connect:5x4",
            "-q",
            "--memory",
            "16M",
            "--save",
            "two.proof",
        ],
    );
    refused(
        &o,
        "'two.proof': another solve or search is writing this file",
    );
    let first = first.wait();
    assert_eq!(
        first.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // The file is the first search's, and nothing else is left.
    assert_eq!(names(d), ["two.proof"]);
    let game = AnySearch::parse("mnk:5x5x4").unwrap();
    with_search!(&game, g => assert!(proofdb::load(g, &d.join("two.proof")).is_ok()));
}

#[test]
fn a_second_ctrl_c_while_saving_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let child = Running::spawn(bin().current_dir(d).args([
        "search",
        "mnk:5x5x4",
        "-q",
        "--memory",
        "256M",
        "--save",
        "stop.proof",
    ]));
    let pid = child.pid();
    // The temporary file exists from the start; wait for it.
    let partial = || {
        names(d)
            .into_iter()
            .find(|n| n.ends_with(".partial"))
            .map(|n| d.join(n))
    };
    let started = Instant::now();
    while partial().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(3000));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid, libc::SIGINT) };
    // The second Ctrl-C as soon as the save has written its first bytes.
    let mut during_save = false;
    while started.elapsed() < Duration::from_secs(60) {
        match partial().and_then(|p| std::fs::metadata(p).ok()) {
            Some(m) if m.len() > 0 => {
                // SAFETY: as above.
                unsafe { libc::kill(pid, libc::SIGINT) };
                during_save = true;
                break;
            }
            Some(_) => {}
            None => break,
        }
    }
    let out = child.wait();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(during_save, "the save was not seen: {err}");
    assert_eq!(out.status.code(), Some(130), "{err}");
    // The result was printed before the save began.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("value       "), "{stdout}");
    // Nothing half-written is left: no temporary, no lock. The signal may
    // land between the rename and the exit (a loaded machine), and then the
    // output is the whole database, which opens and reads.
    let left = names(d);
    if left == ["stop.proof"] {
        let game = AnySearch::parse("mnk:5x5x4").unwrap();
        with_search!(&game, g => {
            proofdb::load(g, &d.join("stop.proof")).unwrap();
        });
    } else {
        assert_eq!(left, Vec::<String>::new(), "{err}");
    }
}

#[test]
fn a_save_removes_the_temporaries_killed_runs_left_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // What a search or a solve killed with SIGKILL leaves: its temporary
    // file under a pid no process has (above any pid_max). A live process's
    // temporary (this test's pid), another output's and a name of another
    // pattern are kept.
    let dead = "x.proof.2147483646-0badf00d.partial";
    let live = format!("x.proof.{}-12345678.partial", std::process::id());
    let other = "y.proof.2147483646-0badf00d.partial";
    let odd = "x.proof.2147483646-zz.partial";
    for n in [dead, live.as_str(), other, odd] {
        std::fs::write(d.join(n), b"stale").unwrap();
    }
    let o = run_in(d, &["search", "mnk:3x3x3", "-q", "--save", "x.proof"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("removed 1 temporary file left by an earlier run of this output that was killed: 'x.proof.2147483646-0badf00d.partial'"),
        "{err}"
    );
    let mut want = vec![
        live.clone(),
        odd.to_string(),
        other.to_string(),
        "x.proof".to_string(),
    ];
    want.sort();
    assert_eq!(names(d), want);
}

/// The keys of a database, read by the library.
fn keys_of(spec: &str, path: &Path) -> Vec<Vec<u8>> {
    let game = AnySearch::parse(spec).unwrap();
    with_search!(&game, g => {
        proofdb::load(g, path)
            .unwrap()
            .1
            .iter()
            .map(|r| {
                let mut k = Vec::new();
                r.key.write(&mut k);
                k
            })
            .collect()
    })
}

/// Keys of Sprouts' wins `L + *k` in `given` whose land's nimber is in
/// `kept`: the save writes the nimber in their place (it says more: every
/// other heap wins), so they are not lost. None for other games.
fn wins_replaced_by_nimbers(spec: &str, given: &Path, kept: &Path) -> Vec<Vec<u8>> {
    let Ok(AnySearch::Sprouts(game)) = AnySearch::parse(spec) else {
        return Vec::new();
    };
    let nimbers: std::collections::HashSet<_> = proofdb::load(&game, kept)
        .unwrap()
        .1
        .iter()
        .filter(|r| matches!(r.fact, Fact::Value(v) if v.hi < 0))
        .map(|r| r.pos.lands().to_vec())
        .collect();
    proofdb::load(&game, given)
        .unwrap()
        .1
        .iter()
        .filter(|r| matches!(r.fact, Fact::Value(v) if v.lo > 0))
        .filter(|r| nimbers.contains(r.pos.lands()))
        .map(|r| {
            let mut k = Vec::new();
            r.key.write(&mut k);
            k
        })
        .collect()
}

/// `proofdb merge`: one entry per position of the inputs, and the result
/// re-proves entry by entry (`search --check`) and holds both roots' values.
#[test]
fn merge_joins_databases_and_the_result_checks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b, c) = (d.join("a.proof"), d.join("b.proof"), d.join("c.proof"));
    saved("connect:5x4", "", &a);
    saved("connect:5x4", "3", &b);
    let o = run(&["proofdb", "merge", s(&a), s(&b), "-o", s(&c), "--json"]);
    let j = json(&o);
    let mut union = keys_of("connect:5x4", &a);
    union.extend(keys_of("connect:5x4", &b));
    union.sort();
    union.dedup();
    assert_eq!(j["entries"], union.len(), "{j}");
    assert_eq!(j["kind"], "values");
    let mut merged = keys_of("connect:5x4", &c);
    merged.sort();
    assert_eq!(merged, union);
    for position in ["", "3"] {
        let mut args = vec![
            "search",
            "connect:5x4",
            "--check",
            s(&c),
            "--json",
            "--memory",
            "16M",
        ];
        if !position.is_empty() {
            args.insert(2, position);
        }
        let j = json(&run(&args));
        assert_eq!(j["checked"], union.len(), "{j}");
        assert_ne!(j["entry"], "not in the database", "{j}");
    }
    // Merging is idempotent: the result merged with an input is the result.
    let again = d.join("again.proof");
    let j = json(&run(&[
        "proofdb",
        "merge",
        s(&c),
        s(&a),
        "-o",
        s(&again),
        "--json",
    ]));
    assert_eq!(j["entries"], union.len());
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&c).unwrap());
    assert_eq!(names(d), ["a.proof", "again.proof", "b.proof", "c.proof"]);
}

#[test]
fn merge_refuses_contradictions_naming_the_position_and_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = d.join("good.proof");
    saved("mnk:3x3x3", "", &good);
    let lose = d.join("lose.proof");
    forge("mnk:3x3x3", &good, &lose, true, &[(".../.../...", -1, -1)]);
    let out = d.join("out.proof");
    let o = run(&["proofdb", "merge", s(&good), s(&lose), "-o", s(&out)]);
    let err = refused(&o, "contradict each other at position '.../.../...'");
    assert!(
        err.contains("good.proof' says tie") && err.contains("lose.proof' says loss"),
        "{err}"
    );
    // Nothing written, nothing left behind.
    assert_eq!(names(d), ["good.proof", "lose.proof"]);
    // Two halves that meet are merged into their meeting.
    let (hi, lo) = (d.join("hi.proof"), d.join("lo.proof"));
    forge("mnk:3x3x3", &good, &hi, false, &[(".../.../...", 0, 1)]);
    forge("mnk:3x3x3", &good, &lo, false, &[(".../.../...", -1, 0)]);
    let j = json(&run(&[
        "proofdb",
        "merge",
        s(&hi),
        s(&lo),
        "-o",
        s(&out),
        "--json",
    ]));
    assert_eq!(j["entries"], 1);
    let o = run(&["search", "mnk:3x3x3", "--check", s(&out), "--memory", "1M"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains(".../.../...: tie"));
    // Databases of two games, or of values and nimbers, are refused.
    let other = d.join("other.proof");
    saved("connect:4x4", "", &other);
    let o = run(&[
        "proofdb",
        "merge",
        s(&good),
        s(&other),
        "-o",
        s(&d.join("x.proof")),
    ]);
    refused(&o, "other.proof");
    let nim = d.join("nim.proof");
    let o = run(&[
        "search",
        "cram:3x3",
        "--nimber",
        "-q",
        "--memory",
        "1M",
        "--save",
        s(&nim),
    ]);
    assert!(o.status.success());
    let cram = d.join("cram.proof");
    let o = run(&[
        "search",
        "cram:3x3",
        "-q",
        "--memory",
        "1M",
        "--save",
        s(&cram),
    ]);
    assert!(o.status.success());
    let o = run(&[
        "proofdb",
        "merge",
        s(&nim),
        s(&cram),
        "-o",
        s(&d.join("y.proof")),
    ]);
    refused(&o, "cram.proof");
    assert!(!d.join("x.proof").exists() && !d.join("y.proof").exists());
    // Not a database at all.
    let o = run(&[
        "proofdb",
        "merge",
        "/etc/hostname",
        "-o",
        s(&d.join("z.proof")),
    ]);
    refused(&o, "/etc/hostname");
}

#[test]
fn merge_never_overwrites_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b) = (d.join("a.proof"), d.join("b.proof"));
    saved("mnk:3x3x3", "", &a);
    saved("mnk:3x3x3", "x../.../...", &b);
    std::fs::hard_link(&a, d.join("hard.proof")).unwrap();
    std::os::unix::fs::symlink(&b, d.join("link.proof")).unwrap();
    let (before_a, before_b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    for out in ["a.proof", "./b.proof", "hard.proof", "link.proof"] {
        let o = run_in(d, &["proofdb", "merge", "a.proof", "b.proof", "-o", out]);
        refused(&o, "is this run's own input");
    }
    assert_eq!(std::fs::read(&a).unwrap(), before_a);
    assert_eq!(std::fs::read(&b).unwrap(), before_b);
    assert_eq!(names(d), ["a.proof", "b.proof", "hard.proof", "link.proof"]);
}

/// A campaign's run killed outright (SIGKILL: no handler runs, no final
/// save) leaves its last periodic save: a whole database that re-proves
/// entry by entry and that the next run resumes from.
#[test]
fn a_killed_run_leaves_its_last_periodic_save_to_resume_from() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("c.proof");
    let child = Running::spawn(bin().args([
        "search",
        "connect:6x4",
        "-q",
        "--memory",
        "16M",
        "--threads",
        "2",
        "--save",
        s(&out),
        "--save-every",
        "0.2",
        "--time",
        "120",
    ]));
    child.kill_after_save(&out, Duration::from_millis(500), "connect:6x4");
    let entries = keys_of("connect:6x4", &out).len();
    assert!(entries > 0);
    let o = run(&[
        "search",
        "connect:6x4",
        "--check",
        s(&out),
        "--memory",
        "16M",
        "--json",
    ]);
    let j = json(&o);
    assert_eq!(j["checked"], entries, "{j}");
    // Resumed: the next run loads it (every entry re-proven) and proves the
    // value, saving under a new name.
    let next = d.join("c2.proof");
    let o = run(&[
        "search",
        "connect:6x4",
        "--memory",
        "64M",
        "--json",
        "--load",
        s(&out),
        "--save",
        s(&next),
    ]);
    let j = json(&o);
    assert_eq!(j["value"], "lose");
    assert_eq!(j["loaded"], entries, "{j}");
    assert!(j["saved"].as_u64().unwrap() >= entries as u64, "{j}");
}

/// The same for the engines of sums (Sprouts' couples, misère Sprouts,
/// Cram's couples): killed outright, a run leaves its last periodic save,
/// from which the next run resumes. Sprouts' entries re-prove one by one;
/// Cram's are loaded trusted here, as re-proving a region nimber whose
/// children the file lacks is the plain nimber search's work (minutes on
/// 5×8; the README says so).
#[test]
fn the_engines_of_sums_save_periodically_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (spec, extra, value) in [
        ("sprouts:14", &[][..], "lose"),
        ("sprouts:9:misere", &[][..], "lose"),
        (
            "cram:5x8",
            &["--nimber", "--engine", "couples"][..],
            "nimber 1",
        ),
    ] {
        let out = d.join("p.proof");
        let mut args = vec!["search", spec, "-q", "--memory", "64M"];
        args.extend_from_slice(extra);
        args.extend(["--save", s(&out), "--save-every", "0.2", "--time", "120"]);
        Running::spawn(bin().args(&args)).kill_after_save(&out, Duration::from_millis(300), spec);
        let entries = keys_of(spec, &out).len();
        assert!(entries > 0, "{spec}");
        let cram = value == "nimber 1";
        if !cram {
            let mut args = vec!["search", spec, "--check", s(&out), "--memory", "64M"];
            args.push("--json");
            let j = json(&run(&args));
            assert_eq!(j["checked"], entries, "{spec}: {j}");
        }
        let mut args = vec!["search", spec, "--load", s(&out), "--memory", "256M"];
        args.extend_from_slice(extra);
        if cram {
            args.push("--trust-load");
        }
        args.push("--json");
        let j = json(&run(&args));
        match value {
            "nimber 1" => assert_eq!(j["nimber"], 1, "{spec}: {j}"),
            v => assert_eq!(j["value"], v, "{spec}: {j}"),
        }
        assert_eq!(j["loaded"], entries, "{spec}: {j}");
        std::fs::remove_file(&out).unwrap();
    }
}

#[test]
fn save_every_needs_a_save_and_a_positive_period() {
    let o = run(&["search", "mnk:3x3x3", "--save-every", "10"]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.proof");
    for bad in ["0", "-1", "nan", "abc"] {
        let every = format!("--save-every={bad}");
        let o = run(&["search", "mnk:3x3x3", "--save", s(&out), &every]);
        assert_ne!(o.status.code(), Some(0), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--save-every"), "{bad}: {err}");
    }
    let o = run(&["search", "mnk:3x3x3", "--threads", "0"]);
    refused(&o, "--threads must be at least 1");
    let o = run(&["search", "mnk:3x3x3", "--threads", "5000"]);
    refused(&o, "--threads");
}

/// The nodes a search reports include those its `--load` spent re-proving
/// the entries, so its rate divides them by the load's time and the
/// search's together: a search stopped while loading (the Sogo campaign's
/// second round) once reported trillions of nodes a second.
#[test]
fn the_node_rate_counts_the_loads_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.proof");
    saved("connect:4x4", "", &db);
    let o = run(&[
        "search",
        "connect:4x4",
        "--engine",
        "dfpn",
        "--memory",
        "1M",
        "--load",
        s(&db),
        "--json",
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let nodes = j["nodes"].as_f64().unwrap();
    let busy = j["seconds"].as_f64().unwrap() + j["load_seconds"].as_f64().unwrap();
    assert!(nodes > 0.0, "{j}");
    let rate = j["nodes_per_second"].as_f64().unwrap();
    assert!(
        (rate - nodes / busy.max(1e-9)).abs() <= rate * 1e-6 + 1e-6,
        "{j}"
    );
}

/// A run stopped while re-proving its `--load` keeps in its save every
/// entry it was given, the unchecked ones as they were read (the next
/// load re-proves them), for every engine that loads: df-pn, alpha-beta,
/// the component search of nimbers and Cram's couples (Sprouts' in
/// `tests/search/sprouts.rs`). Before, it saved only what it had
/// re-proved or found (these very runs, by the previous build: df-pn 198
/// of 36,217 entries, alpha-beta 1 of 18,419, the component search 4,088
/// of 356,382, couples 1 of 9,761).
#[test]
fn a_run_stopped_while_loading_keeps_every_entry_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (spec, extra, stop) in [
        ("connect:5x4", &["--engine", "dfpn"][..], ["--nodes", "1"]),
        (
            "connect:5x4",
            &["--engine", "alphabeta"][..],
            ["--nodes", "1"],
        ),
        ("cram:5x6", &["--nimber"][..], ["--time", "0.001"]),
        (
            "cram:5x7",
            &["--nimber", "--engine", "couples"][..],
            ["--nodes", "1"],
        ),
    ] {
        let (a, b) = (d.join("a.proof"), d.join("b.proof"));
        let mut args = vec!["search", spec, "-q", "--memory", "256M", "--json"];
        args.extend_from_slice(extra);
        let mut first = args.clone();
        first.extend(["--save", s(&a)]);
        assert_eq!(json(&run(&first))["proven"], true, "{spec}");
        let mut second = args.clone();
        second.extend(["--load", s(&a), "--save", s(&b)]);
        second.extend(stop);
        let o = run(&second);
        // Exit 3: stopped, not proven.
        assert_eq!(o.status.code(), Some(3), "{spec}");
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(j["loaded_unchecked"].as_u64().unwrap() > 0, "{spec}: {j}");
        let given = keys_of(spec, &a);
        let mut kept = keys_of(spec, &b);
        kept.sort();
        let lost = given.iter().filter(|k| kept.binary_search(k).is_err());
        assert_eq!(lost.count(), 0, "{spec}: {} given, {j}", given.len());
        // Everything saved re-proves.
        let mut check = args.clone();
        check.extend(["--check", s(&b)]);
        let c = json(&run(&check));
        assert_eq!(c["checked"], kept.len(), "{spec}: {c}");
        std::fs::remove_file(&a).unwrap();
        std::fs::remove_file(&b).unwrap();
    }
}

/// A periodic save made while the run is still re-proving its `--load`
/// holds every entry it was given, so that a run killed then loses
/// nothing. (Before, Sprouts' such save panicked: the entries to carry were
/// borrowed for writing through the whole load.)
#[test]
fn a_save_made_while_re_proving_the_load_holds_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (spec, extra) in [
        // Stopped short of the proof (42,318 nodes prove it), so that the
        // second run still has work after its load and is killed mid-run,
        // not after it has ended.
        ("sprouts:13", &["--nodes", "20000"][..]),
        ("cram:5x8", &["--nimber", "--engine", "couples"][..]),
    ] {
        let (a, b) = (d.join("a.proof"), d.join("b.proof"));
        let mut first = vec!["search", spec, "-q", "--memory", "256M", "--save", s(&a)];
        first.extend_from_slice(extra);
        let o = run(&first);
        assert!(matches!(o.status.code(), Some(0 | 3)), "{spec}: {o:?}");
        let mut args = vec!["search", spec, "-q", "--memory", "256M", "--load", s(&a)];
        args.extend(["--save", s(&b), "--save-every", "0.05"]);
        if spec.starts_with("cram") {
            args.extend_from_slice(extra);
        }
        Running::spawn(bin().args(&args)).kill_after_save(&b, Duration::ZERO, spec);
        let given = keys_of(spec, &a);
        let mut kept = keys_of(spec, &b);
        kept.sort();
        let replaced = wins_replaced_by_nimbers(spec, &a, &b);
        let lost = given
            .iter()
            .filter(|k| kept.binary_search(k).is_err() && !replaced.contains(*k));
        assert_eq!(lost.count(), 0, "{spec}: {} given", given.len());
        std::fs::remove_file(&a).unwrap();
        std::fs::remove_file(&b).unwrap();
    }
}
