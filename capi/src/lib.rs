//! The C ABI: open a tablebase, probe it, rank moves, from C or anything with
//! a C foreign-function interface (Python's `ctypes`, ...). The header is
//! `include/retrograde.h`; `cargo build --release` builds
//! `target/release/libretrograde.so` (`.dylib` on macOS, `retrograde.dll` on
//! Windows). See docs/EMBEDDING.md.
//!
//! Its own crate (`capi/`, a cdylib named `retrograde`) so that the library
//! stays an rlib whose builds never overwrite one another: every `cargo
//! build --release` of the workspace leaves a `libretrograde.so` that
//! exports every `rtb_*` symbol, and no Rust program that uses the library
//! gets them.
//!
//! Rules every function follows:
//!
//! * Nothing unwinds into C: each body runs under [`std::panic::catch_unwind`]
//!   and a panic becomes [`RTB_ERR_PANIC`].
//! * Handles are opaque ids looked up in a registry, never dereferenced, so
//!   a NULL, forged, closed or twice-closed handle gets [`RTB_ERR_NULL`] or
//!   [`RTB_ERR_HANDLE`] instead of undefined behaviour. Ids are never reused.
//!   A handle may be used from any number of threads at once, and closing it
//!   while another thread probes is safe (that probe still completes).
//! * Every NULL pointer argument is rejected (except where NULL documents a
//!   meaning: the start position, or a size query with a zero-length buffer).
//! * Strings in are NUL-terminated and must be UTF-8 (paths: any bytes on
//!   Unix), else [`RTB_ERR_UTF8`]; a string ends at its first NUL, so a caller
//!   holding length-delimited text must refuse an embedded NUL itself
//!   (examples/ctypes_probe.py does). Strings out are UTF-8, NUL-terminated, and
//!   written only when they fit, at most `len` bytes: the required length is
//!   always returned.
//! * [`rtb_open`] reads the file with positioned reads: a file truncated
//!   while open makes probes fail with [`RTB_ERR_FILE`], never kills the
//!   host. [`RTB_OPEN_MMAP`] maps it instead, at the risk stated there.
//! * The message of the last failure on the calling thread is in
//!   [`rtb_last_error`]; every other call resets it (to `""` on success).

use retrograde::{Error, FileStorage, Outcome, Storage, TableKind, Tablebase, Value};

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_uint, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// Success.
pub const RTB_OK: c_int = 0;
/// A required pointer argument (handle, path, output) is NULL.
pub const RTB_ERR_NULL: c_int = -1;
/// The handle is not open: never returned by `rtb_open`, or closed.
pub const RTB_ERR_HANDLE: c_int = -2;
/// A string argument is not valid UTF-8.
pub const RTB_ERR_UTF8: c_int = -3;
/// The position does not parse in the game's notation, or the table holds no
/// value for it (the index is not a position).
pub const RTB_ERR_POSITION: c_int = -4;
/// The index is not below `rtb_entries`.
pub const RTB_ERR_RANGE: c_int = -5;
/// The file cannot be opened or is not a usable tablebase (`rtb_open` returns
/// NULL and sets the message), or another library error.
pub const RTB_ERR_FILE: c_int = -6;
/// A bug: the library panicked. The message says where.
pub const RTB_ERR_PANIC: c_int = -7;
/// An argument is not valid: unknown flag bits for [`rtb_open_with`].
pub const RTB_ERR_ARG: c_int = -8;
/// The table is not of the kind the call reads: a value table given to
/// `rtb_nimber_*`.
pub const RTB_ERR_KIND: c_int = -9;
/// No table of the game in the directory ([`rtb_dir_probe`],
/// [`rtb_dir_table`]): the message is the `retrograde solve` command that
/// makes it.
pub const RTB_ERR_NO_TABLE: c_int = -10;

/// [`rtb_table_kind`]: values (win, lose, tie, draw) with remoteness.
pub const RTB_TABLE_VALUE: c_int = 0;
/// [`rtb_table_kind`]: nimbers (Sprague-Grundy values) of an impartial game.
pub const RTB_TABLE_NIMBER: c_int = 1;

/// [`rtb_open_with`] flag: memory-map the file. Probes are faster (a memory
/// read instead of a system call), but if another process truncates the file
/// while it is open, the next probe past the new end raises SIGBUS and kills
/// the whole host process, and a disk I/O error does the same. Only for files
/// that nothing modifies in place.
pub const RTB_OPEN_MMAP: c_uint = 1;
/// [`rtb_open_with`] flag: check the data CRC (read the whole file) before
/// returning the handle, so that a damaged cell behind an intact header is
/// refused at open instead of answered.
pub const RTB_OPEN_VERIFY: c_uint = 2;

/// `rtb_value`: win for the player to move.
pub const RTB_WIN: c_int = 0;
/// `rtb_value`: loss for the player to move.
pub const RTB_LOSE: c_int = 1;
/// `rtb_value`: tie.
pub const RTB_TIE: c_int = 2;
/// `rtb_value`: draw (perfect play never ends; remoteness -1).
pub const RTB_DRAW: c_int = 3;

/// The opaque handle type of the C header (`rtb_handle`). A handle is an id,
/// never a pointer to one of these.
#[repr(C)]
pub struct RtbHandle {
    _private: [u8; 0],
}

/// Where an open handle's bytes are: read from the file, or mapped.
enum Source {
    File(FileStorage),
    Mapped(retrograde::Mmap),
}

impl Storage for Source {
    fn size(&self) -> std::io::Result<u64> {
        match self {
            Source::File(f) => f.size(),
            Source::Mapped(m) => m.size(),
        }
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        match self {
            Source::File(f) => f.read_at(offset, buf),
            Source::Mapped(m) => m.read_at(offset, buf),
        }
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Source::File(_) => None,
            Source::Mapped(m) => Some(&m[..]),
        }
    }
}

type Shared = Arc<Tablebase<Source>>;

/// Open tablebases by handle id.
static HANDLES: RwLock<BTreeMap<usize, Shared>> = RwLock::new(BTreeMap::new());
/// The next handle id; ids are never reused, so stale handles stay invalid.
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A failure: the status code and the message for `rtb_last_error`.
struct Failure(c_int, String);

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let code = match e {
            Error::BadPosition { .. } => RTB_ERR_POSITION,
            Error::IndexOutOfRange { .. } => RTB_ERR_RANGE,
            Error::NoTable { .. } => RTB_ERR_NO_TABLE,
            // A spec that is not a game with tables.
            Error::UnknownGame { .. }
            | Error::BadGame { .. }
            | Error::BadParameters { .. }
            | Error::SearchOnly { .. } => RTB_ERR_ARG,
            _ => RTB_ERR_FILE,
        };
        Failure(code, e.to_string())
    }
}

type FfiResult<T> = Result<T, Failure>;

fn set_last_error(message: &str) {
    // A message with an interior NUL (from a position the caller gave) is
    // cut there rather than lost.
    let bytes = message.as_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let text = CString::new(&bytes[..end]).unwrap_or_default();
    // `try_with`: during thread teardown there is nowhere to keep it.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = text);
}

/// Runs `body` with panics caught; sets the thread's message; returns the
/// value, or `on_error(code)` on failure.
fn guard<T>(
    name: &str,
    on_error: impl FnOnce(c_int) -> T,
    body: impl FnOnce() -> FfiResult<T>,
) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(Failure(
            RTB_ERR_PANIC,
            format!("internal error in {name}: {what}"),
        ))
    });
    match outcome {
        Ok(v) => {
            set_last_error("");
            v
        }
        Err(Failure(code, message)) => {
            set_last_error(&format!("{name}: {message}"));
            on_error(code)
        }
    }
}

fn lookup(h: *const RtbHandle) -> FfiResult<Shared> {
    if h.is_null() {
        return Err(Failure(RTB_ERR_NULL, "the handle is NULL".into()));
    }
    let map = HANDLES.read().unwrap_or_else(|e| e.into_inner());
    map.get(&(h as usize)).cloned().ok_or_else(|| {
        Failure(
            RTB_ERR_HANDLE,
            "invalid handle (not returned by rtb_open, or already closed)".into(),
        )
    })
}

/// Reads a NUL-terminated UTF-8 string argument; `None` for NULL.
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string that stays valid and
/// unchanged for the call.
unsafe fn text_arg<'a>(s: *const c_char, what: &str) -> FfiResult<Option<&'a str>> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: non-null, and the caller promises a NUL-terminated string.
    let c = unsafe { CStr::from_ptr(s) };
    c.to_str()
        .map(Some)
        .map_err(|e| Failure(RTB_ERR_UTF8, format!("the {what} is not valid UTF-8 ({e})")))
}

fn value_code(v: Value) -> c_int {
    match v {
        Value::Win => RTB_WIN,
        Value::Lose => RTB_LOSE,
        Value::Tie => RTB_TIE,
        Value::Draw => RTB_DRAW,
    }
}

fn remoteness_code(o: Outcome) -> c_int {
    // Remoteness fits in 30 bits; no remoteness (draw, nimber table) is -1.
    o.remoteness
        .map_or(-1, |r| c_int::try_from(r).unwrap_or(c_int::MAX))
}

/// Writes an outcome to the two out-parameters, both checked non-null first.
///
/// # Safety
/// Each pointer is NULL or valid for writing one `int` (any alignment).
unsafe fn write_outcome(o: Outcome, value: *mut c_int, remoteness: *mut c_int) -> FfiResult<()> {
    if value.is_null() || remoteness.is_null() {
        return Err(Failure(
            RTB_ERR_NULL,
            "the value and remoteness pointers must not be NULL".into(),
        ));
    }
    // SAFETY: both non-null and, by the caller's contract, writable; the
    // unaligned write makes no alignment assumption.
    unsafe {
        value.write_unaligned(value_code(o.value));
        remoteness.write_unaligned(remoteness_code(o));
    }
    Ok(())
}

/// Copies `text` and a NUL into `buf` if `text.len() < len`, else writes an
/// empty string (if `len > 0`). Returns `text.len()`.
///
/// # Safety
/// `buf` is NULL with `len == 0`, or valid for writing `len` bytes.
unsafe fn write_text(text: &str, buf: *mut c_char, len: usize) -> FfiResult<i64> {
    if buf.is_null() && len != 0 {
        return Err(Failure(
            RTB_ERR_NULL,
            "the buffer is NULL but its length is not 0".into(),
        ));
    }
    let n = text.len();
    let dst = buf.cast::<u8>();
    if n < len {
        // SAFETY: `n + 1 <= len` bytes at `buf` are writable by the caller's
        // contract; `text` is our own string, so the ranges cannot overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), dst, n);
            dst.add(n).write(0);
        }
    } else if len > 0 {
        // SAFETY: `len >= 1`, so the first byte is writable.
        unsafe { dst.write(0) };
    }
    i64::try_from(n).map_err(|_| Failure(RTB_ERR_PANIC, "text longer than 2^63 bytes".into()))
}

/// Opens a tablebase file and checks its header (what is checked: see
/// `Tablebase::open`; the data CRC only with [`RTB_OPEN_VERIFY`]). Probes use
/// positioned reads: a file truncated while open makes them fail with
/// `RTB_ERR_FILE`, never crashes the host. Returns a handle, or NULL on error
/// (message in `rtb_last_error`). The same as `rtb_open_with(path, 0)`.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rtb_open(path: *const c_char) -> *mut RtbHandle {
    // SAFETY: forwarded caller contract on `path`.
    unsafe { open_handle("rtb_open", path, 0) }
}

/// [`rtb_open`] with flags: [`RTB_OPEN_MMAP`] (map the file: faster probes,
/// but a truncated file kills the process with SIGBUS), [`RTB_OPEN_VERIFY`]
/// (check the data CRC before returning). Unknown bits are refused
/// (`RTB_ERR_ARG` in the message; the result is NULL).
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rtb_open_with(path: *const c_char, flags: c_uint) -> *mut RtbHandle {
    // SAFETY: forwarded caller contract on `path`.
    unsafe { open_handle("rtb_open_with", path, flags) }
}

/// The body of [`rtb_open`] and [`rtb_open_with`].
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
unsafe fn open_handle(name: &str, path: *const c_char, flags: c_uint) -> *mut RtbHandle {
    guard(
        name,
        |_| std::ptr::null_mut(),
        || {
            if path.is_null() {
                return Err(Failure(RTB_ERR_NULL, "the path is NULL".into()));
            }
            let unknown = flags & !(RTB_OPEN_MMAP | RTB_OPEN_VERIFY);
            if unknown != 0 {
                return Err(Failure(
                    RTB_ERR_ARG,
                    format!("unknown flags {unknown:#x} (known: RTB_OPEN_MMAP, RTB_OPEN_VERIFY)"),
                ));
            }
            // SAFETY: non-null, and the caller promises a NUL-terminated string.
            let c = unsafe { CStr::from_ptr(path) };
            #[cfg(unix)]
            let p = {
                use std::os::unix::ffi::OsStrExt;
                std::path::Path::new(std::ffi::OsStr::from_bytes(c.to_bytes()))
            };
            #[cfg(not(unix))]
            let p = std::path::Path::new(c.to_str().map_err(|e| {
                Failure(RTB_ERR_UTF8, format!("the path is not valid UTF-8 ({e})"))
            })?);
            let file = |e: Error| Failure(RTB_ERR_FILE, e.to_string());
            let source = if flags & RTB_OPEN_MMAP != 0 {
                // SAFETY: the caller asked for a map with RTB_OPEN_MMAP,
                // whose contract (include/retrograde.h) is this one: the
                // file is not modified in place while the handle lives.
                Source::Mapped(unsafe { retrograde::internal::raw::map_file(p) }.map_err(file)?)
            } else {
                Source::File(FileStorage::open(p).map_err(file)?)
            };
            let tb = Tablebase::from_storage(source).map_err(file)?;
            if flags & RTB_OPEN_VERIFY != 0 {
                tb.verify().map_err(file)?;
            }
            let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
            HANDLES
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id, Arc::new(tb));
            // The handle is the id dressed as a pointer: C sees an opaque
            // `rtb_handle *`, and it is never dereferenced on either side.
            Ok(id as *mut RtbHandle)
        },
    )
}

/// Closes a handle. Returns `RTB_OK`, `RTB_ERR_NULL` or `RTB_ERR_HANDLE`
/// (already closed, or never opened). Probes already running on other
/// threads are unaffected: the file is closed when the last one finishes.
///
/// The handle is only compared, never dereferenced, so any value is safe.
#[no_mangle]
pub extern "C" fn rtb_close(h: *mut RtbHandle) -> c_int {
    guard(
        "rtb_close",
        |code| code,
        || {
            lookup(h)?;
            HANDLES
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&(h as usize))
                .map(|_| RTB_OK)
                .ok_or_else(|| Failure(RTB_ERR_HANDLE, "the handle was closed concurrently".into()))
        },
    )
}

/// Number of entries (index space size), or a negative `RTB_ERR_*` code.
///
/// The handle is only compared, never dereferenced, so any value is safe.
#[no_mangle]
pub extern "C" fn rtb_entries(h: *const RtbHandle) -> i64 {
    guard("rtb_entries", i64::from, || {
        let tb = lookup(h)?;
        i64::try_from(tb.len()).map_err(|_| Failure(RTB_ERR_FILE, "too many entries".into()))
    })
}

/// Writes the canonical game spec (e.g. `isolation:4x4:a=1,b=14`) to `buf`.
/// Returns its length in bytes without the NUL; when that is `>= len`
/// nothing but an empty string is written (retry with `len = result + 1`).
/// `buf` may be NULL with `len == 0` to ask for the length. Negative:
/// an `RTB_ERR_*` code.
///
/// # Safety
/// `buf` is NULL with `len == 0`, or valid for writing `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn rtb_game_spec(h: *const RtbHandle, buf: *mut c_char, len: usize) -> i64 {
    guard("rtb_game_spec", i64::from, || {
        let tb = lookup(h)?;
        // SAFETY: forwarded caller contract on `buf` and `len`.
        unsafe { write_text(&tb.header().spec, buf, len) }
    })
}

/// Value (`RTB_WIN`...) and remoteness (-1 when there is none: a draw, or a
/// nimber table) of the position at `index`. Returns `RTB_OK`,
/// `RTB_ERR_RANGE` (index too large), `RTB_ERR_POSITION` (the index is not a
/// position) or another `RTB_ERR_*` code; the outputs are written only on
/// success.
///
/// # Safety
/// `value` and `remoteness` are NULL or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn rtb_probe_index(
    h: *const RtbHandle,
    index: u64,
    value: *mut c_int,
    remoteness: *mut c_int,
) -> c_int {
    guard(
        "rtb_probe_index",
        |code| code,
        || {
            let tb = lookup(h)?;
            let o = tb.probe_index(index)?.ok_or_else(|| {
                Failure(
                    RTB_ERR_POSITION,
                    format!("index {index} is not a position (no value stored)"),
                )
            })?;
            // SAFETY: forwarded caller contract on the output pointers.
            unsafe { write_outcome(o, value, remoteness) }?;
            Ok(RTB_OK)
        },
    )
}

/// Value and remoteness of a position in the game's notation (NULL: the
/// start). Returns `RTB_OK` or an `RTB_ERR_*` code (`RTB_ERR_POSITION` for a
/// position that does not parse); the outputs are written only on success.
///
/// # Safety
/// `position` is NULL or a NUL-terminated string; `value` and `remoteness`
/// are NULL or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn rtb_probe_position(
    h: *const RtbHandle,
    position: *const c_char,
    value: *mut c_int,
    remoteness: *mut c_int,
) -> c_int {
    guard(
        "rtb_probe_position",
        |code| code,
        || {
            let tb = lookup(h)?;
            // SAFETY: forwarded caller contract on `position`.
            let text = unsafe { text_arg(position, "position") }?;
            let info = tb.probe_text(text, false)?;
            // SAFETY: forwarded caller contract on the output pointers.
            unsafe { write_outcome(info.outcome, value, remoteness) }?;
            Ok(RTB_OK)
        },
    )
}

/// The legal moves of a position (NULL: the start), best first, one line
/// each: `move TAB position TAB value TAB remoteness TAB best NEWLINE`, where
/// `position` is the position the move leads to, `value` (`win`, `lose`,
/// `tie`, `draw`) is the result for the player making the move, `remoteness`
/// that of the resulting position (-1: none) and `best` is `1` for every move
/// as good as the first, else `0`. A game-over position has no lines.
/// Returns the text's length without the NUL; when that is `>= len` nothing
/// but an empty string is written (retry with `len = result + 1`). `buf` may
/// be NULL with `len == 0` to ask for the length. Negative: an `RTB_ERR_*`
/// code.
///
/// # Safety
/// `position` is NULL or a NUL-terminated string; `buf` is NULL with
/// `len == 0`, or valid for writing `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn rtb_best_moves(
    h: *const RtbHandle,
    position: *const c_char,
    buf: *mut c_char,
    len: usize,
) -> i64 {
    guard("rtb_best_moves", i64::from, || {
        let tb = lookup(h)?;
        // SAFETY: forwarded caller contract on `position`.
        let text = unsafe { text_arg(position, "position") }?;
        let info = tb.probe_text(text, true)?;
        let mut out = String::new();
        for m in &info.moves {
            let o = m.for_mover();
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\n",
                m.mv,
                m.position,
                o.value.name(),
                remoteness_code(o),
                u8::from(m.best)
            ));
        }
        // SAFETY: forwarded caller contract on `buf` and `len`.
        unsafe { write_text(&out, buf, len) }
    })
}

/// [`RTB_TABLE_VALUE`] or [`RTB_TABLE_NIMBER`], or a negative `RTB_ERR_*`
/// code.
///
/// The handle is only compared, never dereferenced, so any value is safe.
#[no_mangle]
pub extern "C" fn rtb_table_kind(h: *const RtbHandle) -> c_int {
    guard(
        "rtb_table_kind",
        |code| code,
        || {
            Ok(match lookup(h)?.header().kind() {
                TableKind::Value => RTB_TABLE_VALUE,
                TableKind::Nimber => RTB_TABLE_NIMBER,
            })
        },
    )
}

/// Refuses a value table where a nimber table is needed.
fn nimber_table(tb: &Shared) -> FfiResult<()> {
    match tb.header().kind() {
        TableKind::Nimber => Ok(()),
        TableKind::Value => Err(Failure(
            RTB_ERR_KIND,
            format!(
                "the table of {} holds values, not nimbers (solve it with --nimbers)",
                Error::clip(&tb.header().spec)
            ),
        )),
    }
}

/// The nimber of the position at `index` of a nimber table (>= 0), or a
/// negative `RTB_ERR_*` code: `RTB_ERR_KIND` for a value table,
/// `RTB_ERR_RANGE`, `RTB_ERR_POSITION` (the index is not a position).
///
/// The handle is only compared, never dereferenced, so any value is safe.
#[no_mangle]
pub extern "C" fn rtb_nimber_index(h: *const RtbHandle, index: u64) -> i64 {
    guard("rtb_nimber_index", i64::from, || {
        let tb = lookup(h)?;
        nimber_table(&tb)?;
        let n = tb.nimber_index(index)?.ok_or_else(|| {
            Failure(
                RTB_ERR_POSITION,
                format!("index {index} is not a position (no nimber stored)"),
            )
        })?;
        Ok(i64::from(n))
    })
}

/// The nimber of a position in the game's notation (NULL: the start) of a
/// nimber table (>= 0; 0: the player to move loses), or a negative
/// `RTB_ERR_*` code (`RTB_ERR_KIND` for a value table). The nimbers of a
/// position's moves are those of the positions `rtb_best_moves` lists.
///
/// # Safety
/// `position` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rtb_nimber_position(h: *const RtbHandle, position: *const c_char) -> i64 {
    guard("rtb_nimber_position", i64::from, || {
        let tb = lookup(h)?;
        nimber_table(&tb)?;
        // SAFETY: forwarded caller contract on `position`.
        let text = unsafe { text_arg(position, "position") }?;
        let info = tb.probe_text(text, false)?;
        let n = info
            .nimber
            .ok_or_else(|| Failure(RTB_ERR_PANIC, "a nimber table gave no nimber".into()))?;
        Ok(i64::from(n))
    })
}

/// The opaque directory type of the C header (`rtb_dir`): an id, as
/// handles are.
#[repr(C)]
pub struct RtbDir {
    _private: [u8; 0],
}

/// A directory of tables, found by game: its path and the tables opened
/// from it so far, by the spec asked for.
struct Dir {
    path: PathBuf,
    tables: Mutex<BTreeMap<String, Shared>>,
}

/// Open directories by id (from the handles' counter: a directory is never
/// taken for a handle, nor the reverse).
static DIRS: RwLock<BTreeMap<usize, Arc<Dir>>> = RwLock::new(BTreeMap::new());

fn lookup_dir(d: *const RtbDir) -> FfiResult<Arc<Dir>> {
    if d.is_null() {
        return Err(Failure(RTB_ERR_NULL, "the directory is NULL".into()));
    }
    let map = DIRS.read().unwrap_or_else(|e| e.into_inner());
    map.get(&(d as usize)).cloned().ok_or_else(|| {
        Failure(
            RTB_ERR_HANDLE,
            "invalid directory (not returned by rtb_open_dir, or already closed)".into(),
        )
    })
}

/// A path argument: any bytes on Unix, UTF-8 elsewhere.
///
/// # Safety
/// `path` is a non-NULL NUL-terminated string valid for the call.
unsafe fn path_arg(path: *const c_char) -> FfiResult<PathBuf> {
    // SAFETY: the caller promises a non-NULL NUL-terminated string.
    let c = unsafe { CStr::from_ptr(path) };
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(c.to_bytes())))
    }
    #[cfg(not(unix))]
    c.to_str()
        .map(PathBuf::from)
        .map_err(|e| Failure(RTB_ERR_UTF8, format!("the path is not valid UTF-8 ({e})")))
}

/// Opens a directory of tables, which then answers by game spec
/// ([`rtb_dir_probe`], [`rtb_dir_table`]) the way python-chess's
/// `open_tablebase` answers by position: each spec finds its table by the
/// game in the files' headers, never by their names. NULL: the directory
/// named by the environment variable `RETROGRADE_TABLES`, else
/// `tablebases`. Returns NULL if the path is not a directory (message in
/// `rtb_last_error`). Tables are opened when first asked for, and stay open
/// until `rtb_dir_close`.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rtb_open_dir(path: *const c_char) -> *mut RtbDir {
    guard(
        "rtb_open_dir",
        |_| std::ptr::null_mut(),
        || {
            let path = if path.is_null() {
                std::env::var_os(retrograde::DIR_VARIABLE)
                    .filter(|v| !v.is_empty())
                    .map_or_else(|| PathBuf::from(retrograde::DEFAULT_DIR), PathBuf::from)
            } else {
                // SAFETY: non-null, and the caller's contract.
                unsafe { path_arg(path) }?
            };
            if !path.is_dir() {
                return Err(Failure(
                    RTB_ERR_FILE,
                    format!("{} is not a directory", Error::quote_path(&path)),
                ));
            }
            let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
            DIRS.write().unwrap_or_else(|e| e.into_inner()).insert(
                id,
                Arc::new(Dir {
                    path,
                    tables: Mutex::new(BTreeMap::new()),
                }),
            );
            Ok(id as *mut RtbDir)
        },
    )
}

/// The table of `spec` in a directory, opened the first time it is asked
/// for.
///
/// # Safety
/// `spec` is NULL or a NUL-terminated string.
unsafe fn dir_table(d: *const RtbDir, spec: *const c_char) -> FfiResult<Shared> {
    let dir = lookup_dir(d)?;
    // SAFETY: forwarded caller contract on `spec`.
    let spec = unsafe { text_arg(spec, "game spec") }?
        .ok_or_else(|| Failure(RTB_ERR_NULL, "the game spec is NULL".into()))?;
    let mut tables = dir.tables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(tb) = tables.get(spec) {
        return Ok(tb.clone());
    }
    let path = retrograde::find_table(&dir.path, spec)?;
    let file = FileStorage::open(&path).map_err(|e| Failure(RTB_ERR_FILE, e.to_string()))?;
    let tb: Shared = Arc::new(
        Tablebase::from_storage(Source::File(file))
            .map_err(|e| Failure(RTB_ERR_FILE, format!("{}: {e}", Error::quote_path(&path))))?,
    );
    tables.insert(spec.to_string(), tb.clone());
    Ok(tb)
}

/// Value and remoteness of a position (NULL: the start) of the game `spec`
/// (e.g. "isolation:4x4"), from its table in the directory: one call from a
/// spec to an answer. Returns `RTB_OK`, `RTB_ERR_NO_TABLE` (no table of
/// that game there: the message is the command that makes it),
/// `RTB_ERR_ARG` (the spec is not a game with tables), or another
/// `RTB_ERR_*` code; the outputs are written only on success.
///
/// # Safety
/// `spec` and `position` are NULL or NUL-terminated strings; `value` and
/// `remoteness` are NULL or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn rtb_dir_probe(
    d: *const RtbDir,
    spec: *const c_char,
    position: *const c_char,
    value: *mut c_int,
    remoteness: *mut c_int,
) -> c_int {
    guard(
        "rtb_dir_probe",
        |code| code,
        || {
            // SAFETY: forwarded caller contracts.
            let tb = unsafe { dir_table(d, spec) }?;
            // SAFETY: forwarded caller contract on `position`.
            let text = unsafe { text_arg(position, "position") }?;
            let info = tb.probe_text(text, false)?;
            // SAFETY: forwarded caller contract on the output pointers.
            unsafe { write_outcome(info.outcome, value, remoteness) }?;
            Ok(RTB_OK)
        },
    )
}

/// A handle on the table of `spec` in the directory, for every other
/// `rtb_*` call (moves, nimbers, indices); close it with `rtb_close` (the
/// directory keeps its own). NULL on error, the message in
/// `rtb_last_error` (for a missing table: the command that makes it).
///
/// # Safety
/// `spec` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rtb_dir_table(d: *const RtbDir, spec: *const c_char) -> *mut RtbHandle {
    guard(
        "rtb_dir_table",
        |_| std::ptr::null_mut(),
        || {
            // SAFETY: forwarded caller contracts.
            let tb = unsafe { dir_table(d, spec) }?;
            let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
            HANDLES
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id, tb);
            Ok(id as *mut RtbHandle)
        },
    )
}

/// Closes a directory and the tables it opened (handles given out by
/// `rtb_dir_table` stay open). Returns `RTB_OK`, `RTB_ERR_NULL` or
/// `RTB_ERR_HANDLE`.
///
/// The directory is only compared, never dereferenced, so any value is safe.
#[no_mangle]
pub extern "C" fn rtb_dir_close(d: *mut RtbDir) -> c_int {
    guard(
        "rtb_dir_close",
        |code| code,
        || {
            lookup_dir(d)?;
            DIRS.write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&(d as usize))
                .map(|_| RTB_OK)
                .ok_or_else(|| {
                    Failure(
                        RTB_ERR_HANDLE,
                        "the directory was closed concurrently".into(),
                    )
                })
        },
    )
}

/// The message of the last failed call on this thread, `""` if the last call
/// succeeded. Never NULL; valid until the next `rtb_*` call on this thread.
#[no_mangle]
pub extern "C" fn rtb_last_error() -> *const c_char {
    catch_unwind(|| {
        LAST_ERROR
            .try_with(|slot| slot.borrow().as_ptr())
            .unwrap_or(c"".as_ptr())
    })
    .unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests;
