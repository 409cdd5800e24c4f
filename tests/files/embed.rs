//! The C ABI's examples, driven from `cargo test`: solves Isolation 4×4 into
//! a temporary directory, then
//!
//! * compiles examples/c_example.c with `cc` against the cdylib and runs it on
//!   the file (it checks published values and the error paths of the C API);
//! * runs `python3 examples/test_ctypes_probe.py` (the ctypes example of
//!   calling the C ABI, standard library only) on it.
//!
//! The Python package (python/) is tested by its own pytest suite
//! (tools/test-python.sh).
//!
//! Each part prints a note and passes when its tool (`cc`, `python3`) is
//! missing. The cdylib is the one cargo built with this test: building the
//! library for a test target builds all of its crate types, the cdylib
//! included, into the directory holding this test's executable (`deps/`).
//! If it is not there (another build layout), the test builds it with
//! `cargo build --lib` in the same profile. Each test links a private copy.
#![cfg(all(feature = "solve", feature = "ffi"))]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common::solved_isolation;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn library_file_name() -> &'static str {
    if cfg!(windows) {
        "retrograde.dll"
    } else if cfg!(target_os = "macos") {
        "libretrograde.dylib"
    } else {
        "libretrograde.so"
    }
}

/// The directory holding the cdylib, built if need be (once per process).
fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test's own path");
        let deps = exe.parent().expect("the test's directory").to_path_buf();
        // target/<profile>/deps/files-HASH: the profile directory is deps' parent.
        let profile_dir = deps.parent().expect("the profile directory").to_path_buf();
        for dir in [&deps, &profile_dir] {
            if exports_the_c_api(&dir.join(library_file_name())) {
                return dir.clone();
            }
        }
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("debug");
        let target_dir = profile_dir.parent().expect("the target directory");
        eprintln!(
            "note: no cdylib next to the test; running cargo build --lib --profile {profile}"
        );
        let profile = if profile == "debug" { "dev" } else { profile };
        let status = Command::new(env!("CARGO"))
            .current_dir(ROOT)
            .args(["build", "--lib", "--profile", profile, "--target-dir"])
            .arg(target_dir)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build --lib failed");
        assert!(
            exports_the_c_api(&profile_dir.join(library_file_name())),
            "cargo build --lib made no {} exporting rtb_open in {}",
            library_file_name(),
            profile_dir.display()
        );
        profile_dir
    })
}

/// Whether `lib` is a cdylib with the C API in it. The cdylib's file name
/// has no hash, so a `--no-default-features` build of the same profile (as
/// .ci/run does first, to check the reader alone) leaves one without the
/// `ffi` feature's symbols where this test looks; such a file is rebuilt.
fn exports_the_c_api(lib: &Path) -> bool {
    std::fs::read(lib).is_ok_and(|bytes| bytes.windows(14).any(|w| w == b"rtb_open_with\0"))
}

/// A copy of the cdylib in `dir`, so that a concurrent build rewriting the
/// shared `deps/` file (it has no hash in its name) cannot change it under
/// the test. Returns `dir`.
fn library_copy(dir: &Path) -> &Path {
    let name = library_file_name();
    std::fs::copy(library_dir().join(name), dir.join(name)).expect("copy the cdylib");
    dir
}

/// A freshly solved Isolation 4×4 tablebase in a temporary directory.
fn solved_table() -> (tempfile::TempDir, PathBuf) {
    let (dir, path, _) = solved_isolation("isolation:4x4", "isolation-4x4.rtb");
    (dir, path)
}

/// True if `tool --version` runs.
fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn show(what: &str, out: &Output) -> String {
    format!(
        "{what}: {}\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[cfg(unix)]
#[test]
fn c_example_gets_the_published_answers() {
    if !have("cc") {
        eprintln!("note: no `cc` on this machine: the C example is not compiled or run");
        return;
    }
    let (dir, table) = solved_table();
    let lib = library_copy(dir.path());
    let exe = dir.path().join("c_example");
    let root = Path::new(ROOT);
    let compile = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-I"])
        .arg(root.join("include"))
        .arg(root.join("examples/c_example.c"))
        .arg("-L")
        .arg(lib)
        .arg("-lretrograde")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(compile.status.success(), "{}", show("cc", &compile));
    assert!(
        compile.stderr.is_empty(),
        "{}",
        show("cc warnings", &compile)
    );
    // `cargo test` puts target/<profile> on LD_LIBRARY_PATH, which the
    // loader searches before the -rpath above: a cdylib there from a
    // `--no-default-features` build (no C API) would be loaded instead.
    let run = Command::new(&exe)
        .arg(&table)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("DYLD_LIBRARY_PATH")
        .output()
        .unwrap();
    let report = show("c_example", &run);
    assert!(run.status.success(), "{report}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("all checks passed"), "{report}");
    assert!(stdout.contains("ok    start: win in 11"), "{report}");
    assert!(
        stdout.contains("ok    0.../...x/.x../...1: win in 7"),
        "{report}"
    );
    assert!(!stdout.contains("FAIL"), "{report}");
}

#[test]
fn ctypes_example_gets_the_published_answers() {
    if !have("python3") {
        eprintln!("note: no `python3` on this machine: examples/test_ctypes_probe.py is not run");
        return;
    }
    let (dir, table) = solved_table();
    let lib = library_copy(dir.path()).join(library_file_name());
    let run = Command::new("python3")
        .current_dir(ROOT)
        .args(["examples/test_ctypes_probe.py", "-v"])
        .env("RETROGRADE_LIB", &lib)
        .env("RETROGRADE_TABLEBASE", &table)
        .output()
        .unwrap();
    let report = show("python3 examples/test_ctypes_probe.py", &run);
    assert!(run.status.success(), "{report}");
    // unittest reports on stderr; a skipped run would also exit 0.
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("test_start_is_a_win_in_11") && stderr.contains("\nOK"),
        "{report}"
    );
    assert!(!stderr.contains("skipped"), "{report}");
}

/// The C API from Rust: several threads probe one handle while it is closed
/// under them; each sees a right answer or `RTB_ERR_HANDLE`, never anything
/// else, and error messages stay with their thread.
#[test]
fn c_api_handles_are_thread_safe() {
    use retrograde::ffi::*;
    use std::ffi::{CStr, CString};
    use std::sync::Barrier;

    let (_dir, table) = solved_table();
    let path = CString::new(table.to_str().unwrap()).unwrap();
    // Safety: `path` is a NUL-terminated string.
    let h = unsafe { rtb_open(path.as_ptr()) };
    assert!(!h.is_null());
    let handle = h as usize;
    let barrier = Barrier::new(5);
    std::thread::scope(|s| {
        for t in 0..4 {
            let barrier = &barrier;
            s.spawn(move || {
                let h = handle as *const RtbHandle;
                let (mut v, mut r) = (-9, -9);
                barrier.wait();
                let mut closed = false;
                for i in 0..20_000 {
                    // Safety: the outputs are valid ints, the position NULL.
                    let rc = unsafe { rtb_probe_position(h, std::ptr::null(), &mut v, &mut r) };
                    if rc == RTB_ERR_HANDLE {
                        closed = true;
                    } else {
                        assert!(!closed, "thread {t}: the handle came back after close");
                        assert_eq!((rc, v, r), (RTB_OK, RTB_WIN, 11), "thread {t}, probe {i}");
                    }
                    if i % 1000 == t {
                        let bad = CString::new(format!("bad{t}")).unwrap();
                        // Safety: as above, with a NUL-terminated position.
                        let rc = unsafe { rtb_probe_position(h, bad.as_ptr(), &mut v, &mut r) };
                        assert!(rc == RTB_ERR_POSITION || rc == RTB_ERR_HANDLE);
                        // Safety: rtb_last_error returns a valid C string.
                        let msg = unsafe { CStr::from_ptr(rtb_last_error()) }
                            .to_str()
                            .unwrap();
                        if rc == RTB_ERR_POSITION {
                            assert!(msg.contains(&format!("'bad{t}'")), "thread {t}: {msg}");
                        }
                    }
                }
            });
        }
        barrier.wait();
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(rtb_close(h), RTB_OK);
    });
    assert_eq!(rtb_close(h), RTB_ERR_HANDLE);
}
