//! Tables found by their game (`probe SPEC`, `--tables`, RETROGRADE_TABLES),
//! the progress bars of `verify` and `analyze`, `--color`, and the wording
//! of moves that end the game. Small games only: each test takes well under
//! a second.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::bin;

/// `retrograde ARGS` run in `dir`, with RETROGRADE_TABLES and NO_COLOR
/// removed (the caller's environment must not change what is looked up).
fn cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = bin();
    c.current_dir(dir)
        .args(args)
        .env_remove("RETROGRADE_TABLES")
        .env_remove("NO_COLOR");
    c
}

fn out(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs and asserts success; returns stdout.
fn ok(dir: &Path, args: &[&str]) -> String {
    let o = cmd(dir, args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out(&o)
}

/// Runs and asserts failure with one line on stderr; returns that line.
fn refused(dir: &Path, args: &[&str]) -> String {
    let o = cmd(dir, args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "{args:?} succeeded");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("retrograde: error: "), "{err}");
    err.trim_end().to_string()
}

/// `retrograde play ARGS` with `input` on stdin; returns stdout.
fn play(dir: &Path, args: &[&str], input: &str) -> String {
    let mut child = cmd(dir, &[&["play"], args].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out(&o)
}

#[test]
fn a_spec_finds_the_table_solve_wrote_and_a_missing_one_says_how_to_make_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Before any solve: the command that makes the table, in one line.
    let e = refused(d, &["probe", "isolation:3x3"]);
    assert_eq!(
        e,
        "retrograde: error: no table of isolation:3x3:a=1,b=7 in 'tablebases': make it with \
         `retrograde solve isolation:3x3 -o tablebases/isolation-3x3.rtb`"
    );
    ok(d, &["solve", "isolation:3x3", "-q"]);
    let by_file = ok(d, &["probe", "tablebases/isolation-3x3.rtb", "--moves"]);
    assert!(by_file.starts_with(".0./.../.1.: player 0 to move, win in 5\n"));
    // The short and the canonical spelling find the same table.
    assert_eq!(ok(d, &["probe", "isolation:3x3", "--moves"]), by_file);
    assert_eq!(
        ok(d, &["probe", "isolation:3x3:a=1,b=7", "--moves"]),
        by_file
    );
    let info = ok(d, &["info", "isolation:3x3"]);
    assert!(
        info.starts_with("file          'tablebases/isolation-3x3.rtb'\n"),
        "{info}"
    );
    assert_eq!(
        ok(d, &["line", "isolation:3x3"]),
        ok(d, &["line", "tablebases/isolation-3x3.rtb"])
    );
    assert!(play(d, &["isolation:3x3"], "quit\n").contains("Bye."));
    // Another game's rules: another table, which is not there.
    let e = refused(d, &["probe", "isolation:3x3:a=2,b=7"]);
    assert!(
        e.contains("retrograde solve isolation:3x3:a=2,b=7 -o "),
        "{e}"
    );
    // serve refuses a spec without a table before it listens.
    let e = refused(d, &["serve", "isolation:3x4", "--addr", "127.0.0.1:1"]);
    assert!(e.contains("no table of isolation:3x4"), "{e}");
    // A search-only game and a bad spec say what they are.
    assert!(refused(d, &["probe", "sprouts:3"]).contains("search-only"));
    assert!(refused(d, &["probe", "isolation:9x9"]).contains("bad game"));
    // Neither a file nor a game: the file's error, as before.
    assert!(refused(d, &["probe", "nosuch.rtb"]).contains("cannot open 'nosuch.rtb'"));
}

#[test]
fn the_header_decides_not_the_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &["solve", "isolation:3x3", "-o", "tables/renamed.rtb", "-q"],
    );
    // Found under any name...
    assert!(ok(d, &["probe", "isolation:3x3", "--tables", "tables"])
        .starts_with(".0./.../.1.: player 0 to move"));
    // ...and a file named after another game is never used for it.
    std::fs::copy(
        d.join("tables/renamed.rtb"),
        d.join("tables/isolation-3x4.rtb"),
    )
    .unwrap();
    let e = refused(d, &["probe", "isolation:3x4", "--tables", "tables"]);
    assert!(
        e.ends_with(
            "no table of isolation:3x4:a=1,b=10 in 'tables': make it with \
             `retrograde solve isolation:3x4 -o tables/isolation-3x4.rtb`"
        ),
        "{e}"
    );
    // RETROGRADE_TABLES names the directory when --tables does not.
    let o = cmd(d, &["probe", "isolation:3x3"])
        .env("RETROGRADE_TABLES", "tables")
        .output()
        .unwrap();
    assert!(out(&o).starts_with(".0./.../.1.: "), "{o:?}");
    // --tables wins over it; an empty one is an unset one.
    let o = cmd(d, &["probe", "isolation:3x3", "--tables", "tables"])
        .env("RETROGRADE_TABLES", "elsewhere")
        .output()
        .unwrap();
    assert!(out(&o).starts_with(".0./.../.1.: "), "{o:?}");
    let o = cmd(d, &["probe", "isolation:3x3"])
        .env("RETROGRADE_TABLES", "")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("in 'tablebases': make it"), "{e}");
    // An existing file wins over the spec it is spelled as: the file
    // `isolation:3x3` here holds a 3×4 table.
    ok(d, &["solve", "isolation:3x4", "-o", "isolation:3x3", "-q"]);
    let info = ok(d, &["info", "isolation:3x3", "--tables", "tables"]);
    assert!(
        info.contains("game          isolation:3x4:a=1,b=10"),
        "{info}"
    );
}

#[test]
fn a_value_table_is_preferred_to_a_nimber_table_of_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let spec = "subtraction:20:1,3,4";
    ok(d, &["solve", spec, "--nimbers", "-q"]);
    // Only the nimber table: it answers.
    let p = ok(d, &["probe", spec, "20"]);
    assert!(p.starts_with("20: nimber "), "{p}");
    ok(d, &["solve", spec, "-q"]);
    let p = ok(d, &["probe", spec, "20"]);
    assert_eq!(p, "20: the player to move wins in 11\n");
}

#[test]
fn verify_and_analyze_draw_no_bar_into_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["solve", "isolation:3x3", "-q"]);
    for args in [
        &["verify", "tablebases/isolation-3x3.rtb"][..],
        &["verify", "tablebases/isolation-3x3.rtb", "-q"],
        &["analyze", "tablebases/isolation-3x3.rtb"],
        &["analyze", "tablebases/isolation-3x3.rtb", "--quiet"],
    ] {
        let o = cmd(d, args).output().unwrap();
        assert!(o.status.success(), "{args:?}");
        assert!(o.stderr.is_empty(), "{args:?}: {:?}", o.stderr);
    }
}

/// On a terminal (util-linux `script` gives one) the bar is drawn, and `-q`
/// removes it. Skipped, with a note, where `script` is missing.
#[test]
fn verify_and_analyze_draw_a_bar_on_a_terminal_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["solve", "isolation:3x3", "-q"]);
    let exe = env!("CARGO_BIN_EXE_retrograde");
    let tty = |args: &str| -> Option<String> {
        let o = Command::new("script")
            .current_dir(d)
            .args(["-qec", &format!("'{exe}' {args}"), "/dev/null"])
            .env_remove("NO_COLOR")
            .output()
            .ok()?;
        o.status
            .success()
            .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let Some(shown) = tty("verify tablebases/isolation-3x3.rtb") else {
        eprintln!("note: no `script` command here: the terminal case is not checked");
        return;
    };
    assert!(shown.contains("% re-deriving"), "{shown}");
    let quiet = tty("verify -q tablebases/isolation-3x3.rtb").unwrap();
    assert!(!quiet.contains("re-deriving"), "{quiet}");
    assert!(quiet.contains("re-derived  ok"), "{quiet}");
    let shown = tty("analyze tablebases/isolation-3x3.rtb").unwrap();
    assert!(shown.contains("% analyzing"), "{shown}");
    assert!(!tty("analyze -q tablebases/isolation-3x3.rtb")
        .unwrap()
        .contains("% analyzing"));
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["solve", "tictactoe", "-q"]);
    let pos = "xx./oo./...";
    let plain = ok(d, &["probe", "tictactoe", pos, "--moves"]);
    assert!(!plain.contains('\x1b'), "into a pipe, auto is plain");
    assert_eq!(
        ok(
            d,
            &["--color", "never", "probe", "tictactoe", pos, "--moves"]
        ),
        plain
    );
    let coloured = ok(
        d,
        &["probe", "tictactoe", pos, "--moves", "--color", "always"],
    );
    assert!(
        coloured.starts_with("xx./oo./...: player 0 to move, \x1b[32mwin in 1\x1b[0m\n"),
        "{coloured:?}"
    );
    assert!(coloured.contains("\x1b[33mtie in 4\x1b[0m"), "{coloured:?}");
    assert!(
        coloured.contains("\x1b[31mlose in 1\x1b[0m"),
        "{coloured:?}"
    );
    // Without the escapes, the same text.
    let stripped = coloured
        .replace("\x1b[32m", "")
        .replace("\x1b[31m", "")
        .replace("\x1b[33m", "")
        .replace("\x1b[0m", "");
    assert_eq!(stripped, plain);
    // JSON is never coloured.
    let json = ok(
        d,
        &["probe", "tictactoe", pos, "--json", "--color", "always"],
    );
    assert!(!json.contains('\x1b'));
    // NO_COLOR turns auto off (checked through `script`'s terminal where
    // there is one); `always` still colours.
    let o = cmd(d, &["--color", "always", "line", "tictactoe", pos])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out(&o).contains("\x1b[32m"));
    let exe = env!("CARGO_BIN_EXE_retrograde");
    let tty = |no_color: bool| {
        let mut c = Command::new("script");
        c.current_dir(d)
            .args([
                "-qec",
                &format!("'{exe}' probe tictactoe {pos}"),
                "/dev/null",
            ])
            .env_remove("NO_COLOR");
        if no_color {
            c.env("NO_COLOR", "1");
        }
        c.output().ok().filter(|o| o.status.success())
    };
    if let (Some(on), Some(off)) = (tty(false), tty(true)) {
        assert!(String::from_utf8_lossy(&on.stdout).contains("\x1b[32m"));
        assert!(!String::from_utf8_lossy(&off.stdout).contains('\x1b'));
    }
}

#[test]
fn a_move_that_ends_the_game_reads_as_a_win_by_that_move() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["solve", "tictactoe", "-q"]);
    let moves = ok(d, &["probe", "tictactoe", "xx./oo./...", "--moves"]);
    assert!(
        moves.contains("\n  2     xxx/oo./...  win by this move  best\n"),
        "{moves}"
    );
    assert!(!moves.contains(" in 0"), "{moves}");
    // play: the hint, the human's move and the computer's, each with the
    // value for the human.
    let game = play(d, &["tictactoe", "xx./oo./..."], "hint\n2\n");
    assert!(
        game.contains("  2           win by this move best\n"),
        "{game}"
    );
    assert!(
        game.contains("you play 2 (for you: win by this move)"),
        "{game}"
    );
    let game = play(d, &["tictactoe", "xx./oo./...", "--side", "second"], "");
    assert!(
        game.contains("computer plays 2 (for you: lose, the game is over)"),
        "{game}"
    );
    let game = play(d, &["tictactoe", "--side", "second"], "quit\n");
    assert!(game.contains(" (for you: tie in 8)\n"), "{game}");
}

#[test]
fn sizes_below_a_mebibyte_are_in_kibibytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let solved = ok(d, &["solve", "tictactoe", "-q"]);
    assert!(
        solved.contains("wrote tablebases/mnk-3x3x3.rtb (9.90 KiB, data CRC32 e2bc4e7e)"),
        "{solved}"
    );
    let info = ok(d, &["info", "tictactoe"]);
    assert!(
        info.contains("entries       6,046 (5.90 KiB of data at offset 4096)"),
        "{info}"
    );
}
