//! Issue 11, "Nothing lost, whatever the user points it at": game specs,
//! pattern files, positions and the messages about them, under input that
//! is odd, ambiguous, huge or hostile. Each test names the item it covers.

use retrograde::games::{AnyGame, PatternGame};
use retrograde::{Error, Game};
use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::bin;

/// Small instances of every family (and their variants), each cheap enough
/// to walk every index of.
const SMALL: &[&str] = &[
    "isolation:2x3",
    "isolation:3x3:a=0,b=8:misere",
    "subtraction:30:1,3,4",
    "subtraction:30:2,5:misere",
    "digits:40",
    "digits:40:misere",
    "connect:3x3x3",
    "connect:4x3x3:misere",
    "connect:1x4x2",
    "sogo:1",
    "sogo:1:misere",
    "sogo:2",
    "sogo:2:misere",
    "cram:3x3",
    "cram:1x5:misere",
    "dodgem:2",
    "dodgem:3",
    "mnk:3x3x3",
    "mnk:2x4x3",
    "tictactoe",
    "pattern:t:squares=5:rows=2.3:lines=0.1,2.3.4",
    "pattern:games/tictactoe.txt",
    "pattern:games/cube.txt",
];

fn game(spec: &str) -> AnyGame {
    AnyGame::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// A game and, when it has one, its symmetry-folded index.
fn with_folded(spec: &str) -> Vec<AnyGame> {
    let g = game(spec);
    let mut v = vec![g.clone()];
    v.extend(g.folded().ok());
    v
}

/// Runs `f` on another thread and fails if it takes more than `secs`: the
/// refusals below must come at once, not after a read that never ends.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("still blocked: the call waits on its input")
}

// ------------------------------------------------------- item 1: notation

/// Every legal position of every small game, plain and folded, formats to
/// text that parses back to the same index. sogo:1 printed `x` and then
/// refused it ("bad position 'x'").
#[test]
fn every_position_parses_back_from_its_own_notation() {
    for spec in SMALL {
        for g in with_folded(spec) {
            retrograde::with_game!(&g, x => {
                let size = x.size();
                // At most ~20,000 indices per game, spread over the table.
                let step = (size / 20_000).max(1);
                let mut legal = 0;
                let mut i = 0;
                while i < size {
                    if let Some(p) = x.decode(i) {
                        let text = x.format_position(&p);
                        let q = x.parse_position(&text).unwrap_or_else(|e| {
                            panic!("{} (folded {}): index {i} prints as '{text}', refused: {e}", x.spec(), x.is_folded())
                        });
                        assert_eq!(x.encode(&q), i, "{} '{text}'", x.spec());
                        legal += 1;
                    }
                    i += step;
                }
                assert!(legal > 0, "{spec}: no legal index visited");
            });
        }
    }
}

/// The command the issue quotes: solve sogo:1, then list its line of play.
#[test]
fn sogo_1_line_reads_its_own_positions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.rtb");
    let out = bin()
        .args(["solve", "sogo:1", "-o"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = bin().arg("line").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("a1") && stdout.contains("x: player 1 to move, lose in 0"),
        "{stdout}"
    );
}

// ------------------------------------------------- item 2: pattern files

/// A FIFO named as a pattern file is refused from its metadata, without
/// being opened (opening it for reading waits for a writer forever).
#[cfg(unix)]
#[test]
fn a_fifo_pattern_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("p.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let spec = format!("pattern:{}", fifo.display());
    let e = within(20, move || AnyGame::parse(&spec).unwrap_err().to_string());
    assert!(
        e.contains("is a FIFO (named pipe), not a regular file"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");

    // The command line too (`--dry-run` reads the pattern file).
    let mut child = bin()
        .args(["solve", &format!("pattern:{}", fifo.display()), "--dry-run"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = within(20, move || {
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        (child.wait().unwrap(), err)
    });
    assert!(!out.0.success());
    assert_eq!(out.1.lines().count(), 1, "{}", out.1);
    assert!(out.1.contains("not a regular file"), "{}", out.1);
}

/// Devices and directories are refused by kind; a file past the cap by
/// its size, unread.
#[test]
fn devices_directories_and_huge_files_are_refused() {
    #[cfg(unix)]
    {
        let e = within(20, || {
            AnyGame::parse("pattern:/dev/zero").unwrap_err().to_string()
        });
        assert!(
            e.contains("'/dev/zero' is a character device, not a regular file"),
            "{e}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let e = PatternGame::from_file(dir.path().to_str().unwrap()).unwrap_err();
    assert!(e.contains("is a directory, not a regular file"), "{e}");

    // A sparse file of 64 MiB: refused by its length, which is named.
    let big = dir.path().join("big.txt");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let path = big.to_str().unwrap().to_string();
    let e = within(20, move || PatternGame::from_file(&path).unwrap_err());
    assert!(
        e.contains(&format!(
            "has {} bytes; a pattern file is at most {}",
            64u64 << 20,
            retrograde::games::pattern::MAX_FILE_BYTES
        )),
        "{e}"
    );
    // A regular file still reads.
    assert!(PatternGame::from_file("games/tictactoe.txt").is_ok());
}

// ------------------------------------------- item 3: quoting user input

/// A 10 MB spec or position gives a message of a few hundred bytes that
/// shows the start of the input and its size.
#[test]
fn errors_quote_a_bounded_prefix_of_the_input() {
    let long = "9".repeat(10 << 20);
    for spec in [
        format!("isolation:{long}"),
        format!("isolation:4x4:a={long}"),
        format!("isolation:4x4:{long}=1"),
        format!("subtraction:{long}:1"),
        format!("subtraction:10:{long}x"),
        format!("digits:{long}x"),
        format!("connect:{long}"),
        format!("sogo:{long}"),
        format!("cram:{long}"),
        format!("dodgem:{long}"),
        format!("mnk:{long}"),
        format!("tictactoe:{long}"),
        format!("pattern:t:squares={long}:lines=0"),
        format!("pattern:t:squares=3:lines={long}"),
        format!("pattern:{long}"),
        format!("chess{long}"),
    ] {
        let e = AnyGame::parse(&spec).unwrap_err().to_string();
        assert!(
            e.len() < 1000,
            "{}...: {} bytes of message",
            &spec[..20],
            e.len()
        );
        assert!(
            e.contains(&format!("({} bytes)", spec.len())) || e.contains("unknown game"),
            "{e}"
        );
    }
    for spec in [
        "isolation:4x4",
        "sogo:2",
        "dodgem:3",
        "cram:3x3",
        "pattern:games/tictactoe.txt",
    ] {
        let g = game(spec);
        for input in [
            long.clone(),
            format!("B{long}E"),
            format!("{long} b"),
            format!(". {long}"),
        ] {
            retrograde::with_game!(&g, x => {
                let reason = x.parse_position(&input).unwrap_err();
                let e = Error::BadPosition { input: input.clone(), reason }.to_string();
                assert!(e.len() < 1000, "{spec}: {} bytes of message", e.len());
                assert!(e.starts_with(&format!("bad position '{}…' ({} bytes): ", &input[..60], input.len())), "{e}");
            });
        }
    }
}

/// Control characters in quoted input are escaped: a crafted spec or
/// position cannot send escape sequences (or a line break) to a terminal.
#[test]
fn control_characters_in_input_are_escaped() {
    let nasty = "\u{1b}]0;owned\u{7}\u{1b}[2J\r\n\u{202e}";
    for spec in [
        format!("isolation:{nasty}"),
        format!("chess{nasty}"),
        format!("digits:10:{nasty}"),
        format!("pattern:t:squares=3:lines=0.{nasty}"),
    ] {
        let e = AnyGame::parse(&spec).unwrap_err().to_string();
        assert!(
            !e.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{e:?}"
        );
        assert!(
            e.contains("\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\r\\n\\u{202e}"),
            "{e}"
        );
    }
    let g = game("dodgem:3");
    retrograde::with_game!(&g, x => {
        let input = format!("b../.b./.rr {nasty}");
        let reason = x.parse_position(&input).unwrap_err();
        let e = Error::BadPosition { input, reason }.to_string();
        assert!(!e.chars().any(|c| c.is_control()), "{e:?}");
    });
}

/// Through the command line: a 10 MB position on standard input gives one
/// short line on stderr, with no raw escape character.
#[test]
fn the_command_line_quotes_a_bounded_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("i.rtb");
    let out = bin()
        .args(["solve", "isolation:2x3", "-o"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut child = bin()
        .arg("probe")
        .arg(&path)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line = format!("{}\u{1b}[31m\n", ".".repeat(10 << 20));
        let _ = stdin.write_all(line.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.len() < 1000, "{} bytes on stderr", err.len());
    assert!(
        err.contains("bad position '....") && err.contains("bytes)"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

/// Paths, like specs and positions, are quoted the bounded way in every
/// reader command's messages and report lines: cut after 60 characters with
/// the size, control characters escaped. They were printed whole, escape
/// sequences included (issue 24).
#[test]
fn paths_are_quoted_cut_and_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("d".repeat(120));
    std::fs::create_dir(&deep).unwrap();
    let table = deep.join("t\u{1b}[31m.rtb");
    crate::common::solve("isolation:2x3", &table, &[]);
    let text = deep.join("notes\u{7}.rtb");
    std::fs::write(&text, "not a table\n".repeat(400)).unwrap();
    let missing = deep.join("missing\u{1b}]0;owned\u{7}.rtb");
    let quoted = |p: &std::path::Path| {
        let s = p.to_str().unwrap();
        format!("'{}…' ({} bytes)", &s[..60], s.len())
    };
    let clean = |what: &str, s: &str| {
        assert!(
            !s.contains('\u{1b}') && !s.contains('\u{7}'),
            "{what}: {s:?}"
        );
        assert!(
            !s.contains(&"d".repeat(61)),
            "{what}: the path is not cut: {s}"
        );
    };
    for cmd in ["info", "probe", "verify", "analyze", "line", "play"] {
        for (file, why) in [
            (&missing, "No such file"),
            (&text, "not a retrograde tablebase"),
        ] {
            let o = bin()
                .arg(cmd)
                .arg(file)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{cmd}");
            assert_eq!(err.lines().count(), 1, "{cmd}: {err}");
            assert!(
                err.contains(&quoted(file)) && err.contains(why),
                "{cmd}: {err}"
            );
            clean(cmd, &err);
        }
    }
    let o = bin()
        .arg("compare")
        .arg(&table)
        .arg(&text)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&quoted(&text)), "{err}");
    clean("compare", &err);
    // Report lines name the file the same way; JSON carries it whole.
    for cmd in ["info", "verify"] {
        let o = bin().arg(cmd).arg(&table).output().unwrap();
        assert!(o.status.success(), "{cmd}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.starts_with("file ") && out.lines().next().unwrap().ends_with(&quoted(&table)),
            "{cmd}: {out}"
        );
        clean(cmd, &out);
    }
    let o = bin()
        .arg("info")
        .arg(&table)
        .arg("--json")
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["file"], table.to_str().unwrap());
    // A short name is shown whole, its control characters escaped.
    let o = bin()
        .arg("verify")
        .arg("bell\u{7}.rtb")
        .current_dir(&deep)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err,
        "retrograde: error: cannot open 'bell\\u{7}.rtb': No such file or directory (os error 2)\n"
    );
}

// ---------------------------------------------- item 4: canonical specs

/// Ambiguous or non-canonical specs are refused, with a message that says
/// why (and the spelling to use when there is one).
#[test]
fn ambiguous_and_non_canonical_specs_are_refused() {
    let cases: &[(&str, &str)] = &[
        (
            "isolation:4x4:a=1,b=14,a=2",
            "start square 'a' is given twice",
        ),
        ("isolation:4x4:a=1:a=1", "start square 'a' is given twice"),
        ("isolation:4x4:misere:misere", "is given twice"),
        ("isolation:4x4:misere:normal", "is given twice"),
        ("isolation:4x4:a=1,,b=2", "empty item in 'a=1,,b=2'"),
        ("isolation:4x4:a=1,b=2,", "empty item"),
        ("isolation:4x4:", "empty parameter"),
        ("isolation:4x4::misere", "empty parameter"),
        ("isolation:4x4:a=+1", "is not a square number"),
        (
            " isolation:4x4",
            "a spec has no spaces around it: did you mean 'isolation:4x4'?",
        ),
        (
            "isolation:4x4 ",
            "a spec has no spaces around it: did you mean 'isolation:4x4'?",
        ),
        (
            "Isolation:4x4",
            "game names are lower case: did you mean 'isolation:4x4'?",
        ),
        (
            "ISOLATION:4x4",
            "game names are lower case: did you mean 'isolation:4x4'?",
        ),
        (
            "isolation:4X4",
            "specs are lower case: did you mean 'isolation:4x4'?",
        ),
        (
            "isolation:4x4:MISERE",
            "specs are lower case: did you mean 'isolation:4x4:misere'?",
        ),
        (
            "isolation:4 x 4",
            "a spec has no spaces: did you mean 'isolation:4x4'?",
        ),
        (
            "isolation:4x4:a=1, b=14",
            "a spec has no spaces: did you mean 'isolation:4x4:a=1,b=14'?",
        ),
        ("Isolation:9x9", "still refused: board 9x9 has 81 squares"),
        ("subtraction:100:1,,3", "empty item in '1,,3'"),
        ("subtraction:100:1,3,", "empty item"),
        ("subtraction:100:", "the subtraction set is empty"),
        ("subtraction:100:1:misere:misere", "'misere' is given twice"),
        ("subtraction:+100:1", "is not a number"),
        ("subtraction:100:1:", "empty parameter"),
        ("Subtraction:100:1", "did you mean 'subtraction:100:1'?"),
        ("digits:100:misere:misere", "'misere' is given twice"),
        ("digits:100:misere:normal", "conflict"),
        ("digits:100:", "empty parameter"),
        ("digits: 100", "did you mean 'digits:100'?"),
        ("connect:4x4:misere:misere", "is given twice"),
        ("connect:4x4:", "empty parameter"),
        ("connect:4x4x", "bad board size"),
        ("connect:4X4", "did you mean 'connect:4x4'?"),
        ("sogo:2:misere:misere", "is given twice"),
        ("sogo:2:", "empty parameter"),
        ("sogo:+2", "bad cube side"),
        ("SOGO:2", "did you mean 'sogo:2'?"),
        ("cram:3x3:misere:misere", "is given twice"),
        ("cram:3x3:Misere", "did you mean 'cram:3x3:misere'?"),
        ("dodgem:3:", "is not a number"),
        ("Dodgem:3", "did you mean 'dodgem:3'?"),
        ("mnk:3x3x3:", "expected a board and line length"),
        ("mnk:3x3x3x", "expected a board and line length"),
        ("MNK:3x3x3", "did you mean 'mnk:3x3x3'?"),
        ("tictactoe:", "empty parameter"),
        ("tictactoe:3x3", "tictactoe takes no parameters"),
        ("TicTacToe", "did you mean 'tictactoe'?"),
        (
            "pattern:t:squares=3:squares=3:lines=0",
            "'squares' is given twice",
        ),
        (
            "pattern:t:squares=3:lines=0:lines=1",
            "'lines' is given twice",
        ),
        (
            "pattern:t: squares=3:lines=0",
            "an inline pattern spec has no spaces: did you mean 'pattern:t:squares=3:lines=0'?",
        ),
        ("pattern:t:squares=3:lines=0,,1", "is not a square number"),
        ("pattern:t:squares=3:lines=0,1,", "is not a square number"),
        (
            "Pattern:games/tictactoe.txt",
            "did you mean 'pattern:games/tictactoe.txt'?",
        ),
        ("pattern:", "expected pattern:PATH"),
    ];
    for (spec, want) in cases {
        match AnyGame::parse(spec) {
            Ok(g) => panic!("{spec:?} is accepted as {}", g.spec()),
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains(want), "{spec:?}: {e}");
                assert!(!e.contains('\n'), "{e}");
            }
        }
    }
    // An unknown name stays unknown, whatever its case.
    assert!(matches!(
        AnyGame::parse("Chess"),
        Err(Error::UnknownGame { .. })
    ));
}

/// Every canonical spec parses back to the same game: tables store it in
/// their header and the reader parses it again. So do the specs the
/// project ships (tablebases/MANIFEST.tsv).
#[test]
fn canonical_specs_round_trip() {
    let mut specs: Vec<String> = SMALL.iter().map(|s| s.to_string()).collect();
    specs.extend(
        [
            "isolation:4x4",
            "isolation:4x5",
            "isolation:4x4:a=1,b=14:misere",
            "isolation:4x4:a=0,b=15",
            "isolation:5x5:misere",
            "subtraction:1000:1,3,4",
            "subtraction:20:4,1,3,3",
            "digits:1000:misere",
            "connect:4x4",
            "connect:5x4",
            "connect:5x4x3:misere",
            "sogo:3",
            "sogo:3:misere",
            "cram:5x5",
            "cram:4x5:misere",
            "dodgem:5",
            "mnk:4x4x4",
            "mnk:5x5x4",
            "pattern:games/qango4.txt",
            "isolation:4x4:normal",
            "cram:3x3:misère",
        ]
        .map(String::from),
    );
    let manifest = std::fs::read_to_string("tablebases/MANIFEST.tsv").unwrap();
    specs.extend(
        manifest
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split('\t').next().unwrap().to_string()),
    );
    for spec in &specs {
        for g in with_folded(spec) {
            let canonical = g.spec();
            let again = AnyGame::parse(&canonical)
                .unwrap_or_else(|e| panic!("{spec}: canonical {canonical} refused: {e}"));
            assert_eq!(again.spec(), canonical);
            if g.is_folded() {
                assert_eq!(again.folded().unwrap(), g, "{spec}");
            } else {
                assert_eq!(again, g, "{spec}");
            }
        }
    }
}

// -------------------------------------------------- item 5: file stems

/// Two different rule sets never share a default file stem, and the stems
/// of the built-in games keep their names.
#[test]
fn different_rules_have_different_stems() {
    let dir = tempfile::tempdir().unwrap();
    // Two pattern files that both say `name ttt`, with different patterns.
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "name ttt\nsquares 3\n0 1\n").unwrap();
    std::fs::write(&b, "name ttt\nsquares 3\n1 2\n").unwrap();
    let ga = game(&format!("pattern:{}", a.display()));
    let gb = game(&format!("pattern:{}", b.display()));
    assert_ne!(ga.spec(), gb.spec());
    assert_ne!(ga.file_stem(), gb.file_stem());
    assert!(
        ga.file_stem().starts_with("pattern-ttt-"),
        "{}",
        ga.file_stem()
    );
    // The hash is the CRC-32 of the canonical spec: the file path does not
    // matter, only the rules.
    assert_eq!(
        ga.file_stem(),
        format!("pattern-ttt-{:08x}", crc32fast::hash(ga.spec().as_bytes()))
    );
    assert_eq!(ga.file_stem(), game(&ga.spec()).file_stem());

    let mut specs: Vec<String> = SMALL.iter().map(|s| s.to_string()).collect();
    specs.extend(
        [
            "isolation:4x4",
            "isolation:4x4:misere",
            "isolation:4x4:a=0,b=15",
            "isolation:4x4:a=0,b=15:misere",
            "isolation:4x4:a=15,b=0",
            "isolation:3x4",
            "isolation:4x3",
            "subtraction:30:1,3,4:misere",
            "subtraction:30:1,34",
            "subtraction:301:3,4",
            "subtraction:30:13,4",
            "digits:40:misere",
            "connect:4x4",
            "connect:4x4x3",
            "connect:4x4:misere",
            "connect:4x3x3",
            "cram:3x3:misere",
            "cram:3x4",
            "dodgem:4",
            "mnk:4x4x4",
            "mnk:4x4x3",
            "pattern:t:squares=5:lines=0.1,2.3.4",
            "pattern:t:squares=5:rows=2.3:lines=0.1,2.3",
            "pattern:u:squares=5:rows=2.3:lines=0.1,2.3.4",
            "pattern:games/qango4.txt",
        ]
        .map(String::from),
    );
    specs.push(ga.spec());
    specs.push(gb.spec());
    let mut stems: HashMap<String, String> = HashMap::new();
    for spec in &specs {
        for g in with_folded(spec) {
            let key = format!("{} folded={}", g.spec(), g.is_folded());
            if let Some(other) = stems.insert(g.file_stem(), key.clone()) {
                assert_eq!(other, key, "two games share the stem {}", g.file_stem());
            }
        }
    }

    // Built-in stems that already name every rule are unchanged.
    for (spec, stem) in [
        ("isolation:4x4", "isolation-4x4"),
        (
            "isolation:4x4:a=0,b=15:misere",
            "isolation-4x4-a0-b15-misere",
        ),
        ("subtraction:1000:1,3,4", "subtraction-1000-1.3.4"),
        ("connect:4x4", "connect-4x4x4"),
        ("sogo:2:misere", "sogo-2-misere"),
        ("cram:4x5:misere", "cram-4x5-misere"),
        ("dodgem:3", "dodgem-3"),
        ("tictactoe", "mnk-3x3x3"),
    ] {
        assert_eq!(game(spec).file_stem(), stem, "{spec}");
    }
}

// ----------------------------------------------------- item 6: blame

/// Position errors blame the right part of the input.
#[test]
fn position_errors_blame_the_right_part() {
    let dodgem = game("dodgem:3");
    let cram = game("cram:4x3");
    let check = |g: &AnyGame, input: &str, want: &str, not: &str| {
        retrograde::with_game!(g, x => {
            let e = x.parse_position(input).unwrap_err();
            assert!(e.contains(want), "{input:?}: {e}");
            assert!(not.is_empty() || !e.contains(not), "{input:?}: {e}");
        });
    };
    // Trailing text is not the side to move.
    check(
        &dodgem,
        "b../.b./.rr r extra",
        "trailing text 'extra' after the side to move",
        "side to move 'extra'",
    );
    check(&dodgem, "b../.b./.rr", "missing the side to move", "");
    check(
        &dodgem,
        "b../.b./.rr x",
        "side to move 'x' must be 'b' or 'r'",
        "",
    );
    // The separators the notation allows still work.
    retrograde::with_game!(&dodgem, x => {
        let p = x.parse_position("b../.b./.rr r").unwrap();
        for text in ["b../.b./.rr:r", "b../.b./.rr  r ", "b../.b./.rr : r", "b../.b./.rr\tr"] {
            assert_eq!(x.parse_position(text).as_ref(), Ok(&p), "{text:?}");
        }
    });
    // Text after a picture is not counted into its last row.
    for (spec, input) in [
        ("isolation:3x3", "0../.../..1 extra"),
        ("connect:4x4", "..../..../..../x... extra"),
        ("cram:3x3", ".../.../... extra"),
        ("mnk:3x3x3", "x.o/.x./... extra"),
        ("pattern:games/tictactoe.txt", "x.o/.x./... extra"),
        ("pattern:games/tictactoe.txt", "x.o.x.... extra"),
    ] {
        check(
            &game(spec),
            input,
            "unexpected text 'extra' after a space",
            "has 9",
        );
    }
    // A move list with a stray letter blames the letter, not a picture.
    check(
        &game("connect:4x4"),
        "12a",
        "move 3 'a' is not a column number 1..=4",
        "rows",
    );
    check(
        &game("connect:4x4"),
        "11111",
        "move 5 (column 1): the column is full",
        "",
    );
    // A move list cannot be longer than the board has cells (and is not
    // collected whole before that is noticed).
    check(
        &game("connect:4x4"),
        &"1".repeat(10 << 20),
        "more moves than the board has cells (16)",
        "",
    );
    check(
        &game("sogo:2"),
        &"a1".repeat(1 << 20),
        "more moves than the board has cells (8)",
        "",
    );
    check(
        &game("sogo:2"),
        &"1".repeat(10 << 20),
        "more moves than the board has cells (8)",
        "",
    );
    // A second '*' in Glop notation is named, not counted as a cell.
    check(
        &cram,
        "B000*0GG*00000E",
        "a Glop board has one '*'",
        "cells; a 4x3 board",
    );
    check(
        &cram,
        "B000*0GG*0000E",
        "has 2 (the first after 3 cells)",
        "unexpected",
    );
    check(
        &cram,
        "B000*0GG0000E",
        "the Glop board has 10 cells; a 4x3 board has 12",
        "",
    );
}
