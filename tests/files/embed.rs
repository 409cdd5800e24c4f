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
//! missing. The cdylib is the workspace's `capi` crate, which `cargo test`
//! and `cargo build` in the repository build into `target/<profile>/`; if it
//! is not there (`cargo test -p retrograde-cli`, another build layout), the
//! test builds it with `cargo build -p retrograde-capi` in the same profile.
//! Each test links a private copy.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common::solved_isolation;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

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
            "note: no cdylib next to the test; running cargo build -p retrograde-capi --profile {profile}"
        );
        let profile = if profile == "debug" { "dev" } else { profile };
        let status = Command::new(env!("CARGO"))
            .current_dir(ROOT)
            .args(["build", "-p", "retrograde-capi", "--profile", profile, "--target-dir"])
            .arg(target_dir)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p retrograde-capi failed");
        assert!(
            exports_the_c_api(&profile_dir.join(library_file_name())),
            "cargo build -p retrograde-capi made no {} exporting rtb_open in {}",
            library_file_name(),
            profile_dir.display()
        );
        profile_dir
    })
}

/// Whether `lib` is a cdylib with the C API in it (not, say, a file of the
/// same name left by an older build).
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
