//! The C API called from Rust, in this crate's own tests: threads against
//! close, the open flags, bad text and a file truncated under a handle. (The
//! C example itself is compiled and run by tests/files/embed.rs.)

use super::*;
#[path = "../../tests/common/damage.rs"]
mod damage;
use damage::{flipped_copy, truncate};
use retrograde::games::Isolation;
use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
use retrograde::Game;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

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
