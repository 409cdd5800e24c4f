//! The C API called from Rust, in this crate's own tests: threads against
//! close, the open flags, bad text and a file truncated under a handle. (The
//! C example itself is compiled and run by tests/files/embed.rs.)

use super::*;
#[path = "../../tests/common/damage.rs"]
#[allow(dead_code)]
mod damage;

fn last_error() -> String {
    // SAFETY: rtb_last_error returns a valid NUL-terminated string.
    unsafe { CStr::from_ptr(rtb_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn null_and_forged_handles_are_rejected() {
    let mut v = 0;
    let mut r = 0;
    // SAFETY: the outputs are valid ints; the handles are never dereferenced.
    unsafe {
        assert_eq!(
            rtb_probe_position(std::ptr::null(), std::ptr::null(), &mut v, &mut r),
            RTB_ERR_NULL
        );
        assert!(last_error().contains("NULL"));
        let forged = usize::MAX as *const RtbHandle;
        assert_eq!(rtb_entries(forged), i64::from(RTB_ERR_HANDLE));
        assert!(last_error().contains("invalid handle"));
        assert_eq!(rtb_close(forged.cast_mut()), RTB_ERR_HANDLE);
        assert!(rtb_open(std::ptr::null()).is_null());
        assert!(last_error().contains("NULL"));
        assert!(rtb_open(c"/nonexistent/x.rtb".as_ptr()).is_null());
        assert!(last_error().contains("cannot open"));
        // Unknown flag bits are refused before the path is looked at.
        assert!(rtb_open_with(c"/nonexistent/x.rtb".as_ptr(), 4).is_null());
        assert!(
            last_error().contains("unknown flags 0x4"),
            "{}",
            last_error()
        );
    }
}

#[test]
fn write_text_never_overflows() {
    let mut buf = [b'?' as c_char; 8];
    // SAFETY: `buf` holds 8 bytes; lengths passed never exceed that.
    unsafe {
        assert_eq!(write_text("hello", buf.as_mut_ptr(), 5).ok(), Some(5));
        assert_eq!(buf[0], 0);
        assert_eq!(buf[1], b'?' as c_char);
        assert_eq!(write_text("hello", buf.as_mut_ptr(), 6).ok(), Some(5));
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str(), Ok("hello"));
        assert_eq!(write_text("hello", std::ptr::null_mut(), 0).ok(), Some(5));
        assert!(write_text("hello", std::ptr::null_mut(), 3).is_err());
    }
}

// The tests below solve tables: they are compiled where this build of the
// library has the solver (`cargo test` at the workspace's root, which
// builds the command line too), and left out of `cargo test -p
// retrograde-capi`, whose library is the reader alone (see Cargo.toml).
retrograde::__with_solver! {
    use damage::{flipped_copy, truncate};
    use retrograde::games::Isolation;
    use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
    use retrograde::Game;
    use std::path::{Path, PathBuf};
    use tempfile::TempDir;

    /// A solved table of `spec` in a fresh directory, and its game.
    fn solved(spec: &str) -> (TempDir, PathBuf, Isolation) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtb");
        let g = match retrograde::AnyGame::parse(spec).unwrap() {
            retrograde::AnyGame::Isolation(g) => g,
            other => panic!("{other:?}"),
        };
        solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
        (dir, path, g)
    }

    /// A solved isolation:3x3 file (13 KiB) in a fresh directory, and its game.
    fn solved_3x3() -> (TempDir, PathBuf, Isolation) {
        solved("isolation:3x3")
    }

    /// A solved isolation:4x4 file.
    fn solved_table() -> (TempDir, PathBuf) {
        let (dir, path, _) = solved("isolation:4x4");
        (dir, path)
    }

    /// The C API from Rust: several threads probe one handle while it is closed
    /// under them; each sees a right answer or `RTB_ERR_HANDLE`, never anything
    /// else, and error messages stay with their thread.
    #[test]
    fn c_api_handles_are_thread_safe() {
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

    #[test]
    fn c_api_open_flags_and_bad_text() {
        use std::ffi::{CStr, CString};
        let last_error = || {
            // Safety: rtb_last_error returns a valid NUL-terminated string.
            unsafe { CStr::from_ptr(rtb_last_error()) }
                .to_string_lossy()
                .into_owned()
        };
        let (_dir, path, g) = solved_3x3();
        let want = Tablebase::open(&path)
            .unwrap()
            .probe(&g, &g.start())
            .unwrap();
        let bad = flipped_copy(&path, &g);
        let c = |p: &Path| CString::new(p.to_str().unwrap()).unwrap();
        let (good_c, bad_c) = (c(&path), c(&bad));
        // Safety: NUL-terminated paths and positions; valid int outputs.
        unsafe {
            for flags in [
                0,
                RTB_OPEN_MMAP,
                RTB_OPEN_VERIFY,
                RTB_OPEN_MMAP | RTB_OPEN_VERIFY,
            ] {
                let h = rtb_open_with(good_c.as_ptr(), flags);
                assert!(!h.is_null(), "flags {flags}: {}", last_error());
                let (mut v, mut r) = (-9, -9);
                assert_eq!(
                    rtb_probe_position(h, std::ptr::null(), &mut v, &mut r),
                    RTB_OK
                );
                assert_eq!(r, want.remoteness.unwrap() as i32, "flags {flags}");
                // A position that is not UTF-8 is a clean error.
                let latin1 = b"\xe9t\xe9\0";
                assert_eq!(
                    rtb_probe_position(h, latin1.as_ptr().cast(), &mut v, &mut r),
                    RTB_ERR_UTF8
                );
                assert!(last_error().contains("not valid UTF-8"), "{}", last_error());
                assert_eq!(
                    rtb_best_moves(h, latin1.as_ptr().cast(), std::ptr::null_mut(), 0),
                    i64::from(RTB_ERR_UTF8)
                );
                assert_eq!(rtb_close(h), RTB_OK);
            }
            // The damaged copy opens without the flag, not with it.
            let h = rtb_open(bad_c.as_ptr());
            assert!(!h.is_null());
            assert_eq!(rtb_close(h), RTB_OK);
            for flags in [RTB_OPEN_VERIFY, RTB_OPEN_MMAP | RTB_OPEN_VERIFY] {
                assert!(rtb_open_with(bad_c.as_ptr(), flags).is_null());
                assert!(
                    last_error().starts_with("rtb_open_with: data checksum mismatch"),
                    "{}",
                    last_error()
                );
            }
            assert!(rtb_open_with(good_c.as_ptr(), 8).is_null());
            assert!(
                last_error().contains("unknown flags 0x8"),
                "{}",
                last_error()
            );
        }
    }

    /// The C API's default handle reads positioned too: truncation is an
    /// `RTB_ERR_FILE` with the message, not a crash of the host.
    #[test]
    fn c_api_probe_of_a_truncated_file_is_an_error() {
        use std::ffi::{CStr, CString};
        let (_dir, path, _g) = solved_3x3();
        let c = CString::new(path.to_str().unwrap()).unwrap();
        // Safety: a NUL-terminated path; valid int outputs.
        unsafe {
            let h = rtb_open(c.as_ptr());
            assert!(!h.is_null());
            let (mut v, mut r) = (-9, -9);
            assert_eq!(
                rtb_probe_position(h, std::ptr::null(), &mut v, &mut r),
                RTB_OK
            );
            truncate(&path, 4096);
            assert_eq!(
                rtb_probe_position(h, std::ptr::null(), &mut v, &mut r),
                RTB_ERR_FILE
            );
            let message = CStr::from_ptr(rtb_last_error()).to_str().unwrap();
            assert!(
                message.starts_with("rtb_probe_position: the file changed or shrank while open"),
                "{message}"
            );
            assert_eq!(rtb_close(h), RTB_OK);
        }
    }

    /// The tables of the game in a directory, found by spec, answer as the file
    /// opened by name does; a missing one is `RTB_ERR_NO_TABLE` with the
    /// command that makes it; a nimber table answers the nimber calls.
    #[test]
    fn c_api_directories_find_tables_by_game_and_nimber_tables_answer() {
        let dir = tempfile::tempdir().unwrap();
        let iso = Isolation::new(3, 3).unwrap();
        // Any name: the header decides.
        let path = dir.path().join("some-name.rtb");
        solve_to_file(&iso, &path, &SolveOptions::default(), &NoProgress).unwrap();
        let want = Tablebase::open(&path).unwrap().probe(&iso, &iso.start()).unwrap();
        let cram = retrograde::games::Cram::new(2, 3, false).unwrap();
        let nimbers = SolveOptions::with_kind(TableKind::Nimber);
        let cram_path = dir.path().join("cram-2x3-nimbers.rtb");
        solve_to_file(&cram, &cram_path, &nimbers, &NoProgress).unwrap();
        let c = |t: &str| CString::new(t).unwrap();
        let d_path = c(dir.path().to_str().unwrap());
        // SAFETY: NUL-terminated strings; valid int outputs; ids never
        // dereferenced.
        unsafe {
            let d = rtb_open_dir(d_path.as_ptr());
            assert!(!d.is_null(), "{}", last_error());
            let (mut v, mut r) = (-9, -9);
            for spec in ["isolation:3x3", "isolation:3x3:a=1,b=7"] {
                let spec = c(spec);
                assert_eq!(
                    rtb_dir_probe(d, spec.as_ptr(), std::ptr::null(), &mut v, &mut r),
                    RTB_OK,
                    "{}",
                    last_error()
                );
                assert_eq!((v, r), (RTB_WIN, want.remoteness.unwrap() as c_int));
            }
            let pos = c(".0./.../.1.");
            let spec = c("isolation:3x3");
            assert_eq!(
                rtb_dir_probe(d, spec.as_ptr(), pos.as_ptr(), &mut v, &mut r),
                RTB_OK
            );
            let missing = c("isolation:3x4");
            assert_eq!(
                rtb_dir_probe(d, missing.as_ptr(), std::ptr::null(), &mut v, &mut r),
                RTB_ERR_NO_TABLE
            );
            assert!(
                last_error().contains("make it with `retrograde solve isolation:3x4 -o "),
                "{}",
                last_error()
            );
            let bad = c("isolation:9x9");
            assert_eq!(
                rtb_dir_probe(d, bad.as_ptr(), std::ptr::null(), &mut v, &mut r),
                RTB_ERR_ARG
            );
            assert_eq!(
                rtb_dir_probe(d, std::ptr::null(), std::ptr::null(), &mut v, &mut r),
                RTB_ERR_NULL
            );
            // A handle from the directory: a value table, no nimbers.
            let h = rtb_dir_table(d, spec.as_ptr());
            assert!(!h.is_null());
            assert_eq!(rtb_table_kind(h), RTB_TABLE_VALUE);
            assert_eq!(rtb_nimber_position(h, std::ptr::null()), i64::from(RTB_ERR_KIND));
            assert!(last_error().contains("holds values, not nimbers"), "{}", last_error());
            // The nimber table, every position against the reader's.
            let cram_spec = c("cram:2x3");
            let n = rtb_dir_table(d, cram_spec.as_ptr());
            assert!(!n.is_null(), "{}", last_error());
            assert_eq!(rtb_table_kind(n), RTB_TABLE_NIMBER);
            let tb = Tablebase::open(&cram_path).unwrap();
            let mut positions = 0;
            for index in 0..tb.len() {
                match tb.nimber_index(index).unwrap() {
                    Some(k) => {
                        positions += 1;
                        assert_eq!(rtb_nimber_index(n, index), i64::from(k), "index {index}");
                        let text = tb.probe_index(index).map(|_| ()).ok();
                        assert!(text.is_some());
                    }
                    None => assert_eq!(rtb_nimber_index(n, index), i64::from(RTB_ERR_POSITION)),
                }
            }
            assert!(positions > 10);
            assert_eq!(rtb_nimber_index(n, tb.len()), i64::from(RTB_ERR_RANGE));
            let start = tb.probe_text(None, true).unwrap();
            assert_eq!(
                rtb_nimber_position(n, std::ptr::null()),
                i64::from(start.nimber.unwrap())
            );
            for m in &start.moves {
                let p = c(&m.position);
                assert_eq!(rtb_nimber_position(n, p.as_ptr()), i64::from(m.nimber.unwrap()));
            }
            // Closing the directory leaves its handles open.
            assert_eq!(rtb_dir_close(d), RTB_OK);
            assert_eq!(rtb_dir_close(d), RTB_ERR_HANDLE);
            assert_eq!(rtb_table_kind(n), RTB_TABLE_NIMBER);
            assert_eq!(rtb_close(n), RTB_OK);
            assert_eq!(rtb_close(h), RTB_OK);
            // A directory is no handle, nor the reverse; a file is no directory.
            let d = rtb_open_dir(d_path.as_ptr());
            assert_eq!(rtb_entries(d.cast()), i64::from(RTB_ERR_HANDLE));
            assert_eq!(rtb_dir_close(d), RTB_OK);
            let file = c(path.to_str().unwrap());
            assert!(rtb_open_dir(file.as_ptr()).is_null());
            assert!(last_error().contains("is not a directory"), "{}", last_error());
        }
    }
}
