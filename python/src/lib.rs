//! `retrograde._retrograde`: the Python extension module (PyO3) over the
//! crate's reader. The package `retrograde` (python/python/retrograde/__init__.py)
//! re-exports it; the exception classes are defined in Python
//! (python/python/retrograde/_errors.py) because they inherit from two built-in
//! exceptions at once (`FileError(Error, OSError)`), which a class created
//! with PyO3's `create_exception!` cannot.
//!
//! Every probe runs with the GIL released (`Python::detach`): the reader is
//! `Send + Sync`, so threads probe one table in parallel. `close()` only drops
//! this object's reference; a probe already running on another thread keeps
//! the table alive until it returns.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use retrograde::{Error, FileStorage, Mmap, MoveInfo, Outcome, PositionInfo, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The reader behind a `Tablebase`: positioned reads (the default) or a map.
enum Reader {
    File(retrograde::Tablebase<FileStorage>),
    Mapped(retrograde::Tablebase<Mmap>),
}

/// Runs `$body` with `$tb` bound to the reader of either kind.
macro_rules! with_reader {
    ($reader:expr, $tb:ident => $body:expr) => {
        match $reader {
            Reader::File($tb) => $body,
            Reader::Mapped($tb) => $body,
        }
    };
}

impl Reader {
    fn header(&self) -> &retrograde::Header {
        with_reader!(self, tb => tb.header())
    }

    fn probe_text(&self, position: Option<&str>, moves: bool) -> retrograde::Result<PositionInfo> {
        with_reader!(self, tb => tb.probe_text(position, moves))
    }

    /// The position at `index` in the game's notation, with its value: the
    /// index is decoded by the game, formatted, and probed by text, so the
    /// answer carries everything `probe` gives.
    fn probe_index(&self, index: u64) -> Result<PositionInfo, Failure> {
        let outcome = with_reader!(self, tb => tb.probe_index(index))?;
        if outcome.is_none() {
            return Err(Failure::NotAPosition(index));
        }
        let game = with_reader!(self, tb => tb.game());
        let text = retrograde::with_game!(game, g => {
            use retrograde::Game;
            g.decode(index).map(|p| g.format_position(&p))
        })
        .ok_or(Failure::NotAPosition(index))?;
        let info = self.probe_text(Some(&text), false)?;
        // A symmetry-folded table decodes an index to its representative,
        // which encodes back to the same index; anything else is a bug.
        if info.index != index {
            return Err(Failure::Internal(format!(
                "index {index} decodes to {text}, which is at index {}",
                info.index
            )));
        }
        Ok(info)
    }
}

/// Why a call failed, before it becomes a Python exception (built with the
/// GIL held, after the released section).
enum Failure {
    Library(Error),
    NotAPosition(u64),
    Internal(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Library(e)
    }
}

/// Raises `retrograde.<class_name>(message)`, the class taken from
/// `retrograde._errors`.
fn raise(py: Python<'_>, class_name: &str, message: String) -> PyErr {
    match make_error(py, class_name, message) {
        Ok(e) | Err(e) => e,
    }
}

fn make_error(py: Python<'_>, class_name: &str, message: String) -> PyResult<PyErr> {
    let class = py.import("retrograde._errors")?.getattr(class_name)?;
    Ok(PyErr::from_value(class.call1((message,))?))
}

/// The Python exception for a failure; `path` is the file's, for the
/// messages of file errors that do not name it themselves.
fn to_pyerr(py: Python<'_>, failure: Failure, path: Option<&PathBuf>) -> PyErr {
    let e = match failure {
        Failure::NotAPosition(i) => {
            return raise(
                py,
                "BadPositionError",
                format!("index {i} is not a position (the table stores no value there)"),
            )
        }
        Failure::Internal(m) => return raise(py, "Error", format!("internal error: {m}")),
        Failure::Library(e) => e,
    };
    let class = match &e {
        Error::BadPosition { .. } => "BadPositionError",
        Error::IndexOutOfRange { .. } => "IndexOutOfRangeError",
        Error::HeaderChecksum { .. }
        | Error::DataChecksum { .. }
        | Error::CorruptHeader(_)
        | Error::WrongLength { .. } => "CorruptFileError",
        Error::Io { .. }
        | Error::BadMagic
        | Error::Empty
        | Error::IsDirectory
        | Error::NotAFile { .. }
        | Error::FileChanged { .. }
        | Error::UnsupportedVersion { .. }
        | Error::GameMismatch { .. } => "FileError",
        Error::NoTable { .. } => "MissingTableError",
        Error::UnknownGame { .. }
        | Error::BadGame { .. }
        | Error::BadParameters { .. }
        | Error::SearchOnly { .. } => "BadSpecError",
        _ => "Error",
    };
    let errno = match &e {
        Error::Io { error, .. } => error.raw_os_error(),
        _ => None,
    };
    let message = match (&e, path) {
        // I/O errors name the path already ("cannot open x.rtb: ...").
        (Error::Io { .. }, _) | (_, None) => e.to_string(),
        (_, Some(p)) if class != "BadPositionError" && class != "IndexOutOfRangeError" => {
            format!("{}: {e}", Error::quote_path(p))
        }
        _ => e.to_string(),
    };
    let err = raise(py, class, message);
    if class == "FileError" || class == "CorruptFileError" {
        // OSError's own attributes, so `except OSError as e: e.filename` works.
        let value = err.value(py);
        if let Some(p) = path {
            let _ = value.setattr("filename", p.as_os_str());
        }
        if let Some(n) = errno {
            let _ = value.setattr("errno", n);
        }
    }
    err
}

fn value_name(v: Value) -> &'static str {
    v.name()
}

/// A probed position: its value for the player to move, remoteness, nimber.
///
/// Returned by ``Tablebase.probe`` and ``Tablebase.probe_index``; immutable,
/// hashable, equal when every field is equal.
#[pyclass(frozen, eq, hash, module = "retrograde", name = "Position")]
#[derive(Clone, PartialEq, Eq, Hash)]
struct Position {
    /// The position in the game's canonical notation.
    #[pyo3(get)]
    position: String,
    /// Its index in the table.
    #[pyo3(get)]
    index: u64,
    /// The player to move (0 or 1), or None in an impartial game.
    #[pyo3(get)]
    to_move: Option<u8>,
    /// 'win', 'lose', 'tie' or 'draw', for the player to move.
    #[pyo3(get)]
    value: &'static str,
    /// Moves to the end under perfect play; None for a draw.
    #[pyo3(get)]
    remoteness: Option<u32>,
    /// The Sprague-Grundy value, in a nimber table; else None.
    #[pyo3(get)]
    nimber: Option<u32>,
    /// True if the game is over in this position.
    #[pyo3(get)]
    primitive: bool,
}

#[pymethods]
impl Position {
    fn __repr__(&self) -> String {
        format!(
            "Position({}, value={}, remoteness={}, nimber={}, index={}, to_move={}, primitive={})",
            py_str(&self.position),
            py_str(self.value),
            py_opt(self.remoteness),
            py_opt(self.nimber),
            self.index,
            py_opt(self.to_move),
            if self.primitive { "True" } else { "False" }
        )
    }

    /// The fields as a dict, with the keys of ``retrograde probe --json``.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("position", &self.position)?;
        d.set_item("index", self.index)?;
        d.set_item("to_move", self.to_move)?;
        d.set_item("value", self.value)?;
        d.set_item("remoteness", self.remoteness)?;
        d.set_item("nimber", self.nimber)?;
        d.set_item("primitive", self.primitive)?;
        Ok(d)
    }
}

impl From<PositionInfo> for Position {
    fn from(p: PositionInfo) -> Position {
        Position {
            position: p.position,
            index: p.index,
            to_move: p.to_move,
            value: value_name(p.outcome.value),
            remoteness: p.outcome.remoteness,
            nimber: p.nimber,
            primitive: p.primitive,
        }
    }
}

/// One legal move, with its result for the player making it.
///
/// Returned by ``Tablebase.moves``, best first; immutable, hashable.
#[pyclass(frozen, eq, hash, module = "retrograde", name = "Move")]
#[derive(Clone, PartialEq, Eq, Hash)]
struct Move {
    /// The move in the game's notation.
    #[pyo3(get)]
    r#move: String,
    /// The position the move leads to.
    #[pyo3(get)]
    position: String,
    /// 'win', 'lose', 'tie' or 'draw': the result for the player making the move.
    #[pyo3(get)]
    value: &'static str,
    /// Remoteness of the resulting position; None for a draw.
    #[pyo3(get)]
    remoteness: Option<u32>,
    /// The resulting position's nimber, in a nimber table; else None.
    #[pyo3(get)]
    nimber: Option<u32>,
    /// True for every move as good as the first (the best).
    #[pyo3(get)]
    best: bool,
}

#[pymethods]
impl Move {
    fn __repr__(&self) -> String {
        format!(
            "Move({}, position={}, value={}, remoteness={}, nimber={}, best={})",
            py_str(&self.r#move),
            py_str(&self.position),
            py_str(self.value),
            py_opt(self.remoteness),
            py_opt(self.nimber),
            if self.best { "True" } else { "False" }
        )
    }

    /// The fields as a dict, with the keys of ``retrograde probe --json --moves``.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("move", &self.r#move)?;
        d.set_item("position", &self.position)?;
        d.set_item("value", self.value)?;
        d.set_item("remoteness", self.remoteness)?;
        d.set_item("nimber", self.nimber)?;
        d.set_item("best", self.best)?;
        Ok(d)
    }
}

impl From<&MoveInfo> for Move {
    fn from(m: &MoveInfo) -> Move {
        let o: Outcome = m.for_mover();
        Move {
            r#move: m.mv.clone(),
            position: m.position.clone(),
            value: value_name(o.value),
            remoteness: o.remoteness,
            nimber: m.nimber,
            best: m.best,
        }
    }
}

/// A string as a Python literal (single quotes, backslash escapes), for reprs.
fn py_str(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn py_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "None".to_string(), |v| v.to_string())
}

/// An open tablebase file.
///
/// ``Tablebase(path, *, verify=False, mmap=False)`` opens the file and checks
/// its header (magic, version, header CRC, lengths, game spec). ``path`` is a
/// str, bytes or os.PathLike.
///
/// ``verify=True`` also checks the data CRC (one pass over the file) before
/// returning, so a damaged cell is refused instead of answered.
///
/// ``mmap=True`` memory-maps the file: faster probes, but if another process
/// truncates the file while it is open, the next probe kills the whole Python
/// process with SIGBUS. The default reads each cell with a positioned read,
/// and a file that shrinks while open raises FileError instead.
///
/// Use it as a context manager (``with Tablebase(p) as tb:``) or call
/// ``close()``; a closed tablebase raises ClosedError. Probes release the GIL
/// and may run from any number of threads at once.
#[pyclass(frozen, module = "retrograde", name = "Tablebase")]
struct Tablebase {
    reader: Mutex<Option<Arc<Reader>>>,
    path: PathBuf,
    mmap: bool,
}

impl Tablebase {
    /// The open reader, or ClosedError.
    fn reader(&self, py: Python<'_>) -> PyResult<Arc<Reader>> {
        self.reader
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| {
                raise(
                    py,
                    "ClosedError",
                    format!(
                        "the tablebase {} is closed",
                        Error::quote(&self.path.to_string_lossy())
                    ),
                )
            })
    }

    fn err(&self, py: Python<'_>, f: Failure) -> PyErr {
        to_pyerr(py, f, Some(&self.path))
    }

    /// A position argument: None or a str without NUL (the game's parser
    /// would refuse it too, but this names the problem as Python does). A
    /// str holding a lone surrogate ('\ud800') is no position either, and
    /// says so as a BadPositionError, not as the UnicodeEncodeError of a
    /// conversion to text.
    fn position_arg(
        py: Python<'_>,
        position: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<String>> {
        let Some(p) = position else { return Ok(None) };
        let s = p.cast::<PyString>().map_err(|_| {
            let kind = p
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string());
            PyTypeError::new_err(format!("the position must be a str or None, not {kind}"))
        })?;
        // `to_cow` refuses what has no UTF-8 form (to_str is not in the
        // stable ABI this module is built for).
        let Ok(text) = s.to_cow() else {
            return Err(raise(
                py,
                "BadPositionError",
                format!(
                    "bad position {}: not Unicode text (it holds a lone surrogate)",
                    Error::quote(&escaped(s))
                ),
            ));
        };
        if text.contains('\0') {
            return Err(raise(
                py,
                "BadPositionError",
                format!(
                    "bad position {}: embedded null character",
                    Error::quote(&text)
                ),
            ));
        }
        Ok(Some(text.into_owned()))
    }
}

/// A str for a message, its lone surrogates written `\ud800` as Python
/// writes them (they have no UTF-8 form to show).
fn escaped(s: &Bound<'_, PyString>) -> String {
    s.call_method1("encode", ("utf-8", "backslashreplace"))
        .and_then(|b| b.extract::<Vec<u8>>())
        .map_or_else(
            |_| s.to_string_lossy().into_owned(),
            |b| String::from_utf8_lossy(&b).into_owned(),
        )
}

/// A path argument as `os.fspath` reads it: str, bytes or os.PathLike.
fn path_arg(path: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let py = path.py();
    let p = py.import("os")?.call_method1("fspath", (path,))?;
    let buf = if let Ok(s) = p.cast::<PyString>() {
        // A str the file system encoding cannot take (a lone surrogate
        // outside the 'surrogateescape' range of undecodable bytes) names no
        // file: a FileError, like any other path that cannot be opened.
        match s.extract::<std::ffi::OsString>() {
            Ok(os) => PathBuf::from(os),
            Err(_) => {
                let err = raise(
                    py,
                    "FileError",
                    format!(
                        "cannot open {}: the path holds a lone surrogate, which no file name can",
                        Error::quote(&escaped(s))
                    ),
                );
                let _ = err.value(py).setattr("filename", s);
                return Err(err);
            }
        }
    } else if let Ok(b) = p.cast::<PyBytes>() {
        bytes_path(b.as_bytes())?
    } else {
        return Err(PyTypeError::new_err(
            "the path must be str, bytes or os.PathLike",
        ));
    };
    if buf.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(PyValueError::new_err("embedded null byte in the path"));
    }
    Ok(buf)
}

#[cfg(unix)]
fn bytes_path(b: &[u8]) -> PyResult<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Ok(PathBuf::from(std::ffi::OsStr::from_bytes(b)))
}

#[cfg(not(unix))]
fn bytes_path(b: &[u8]) -> PyResult<PathBuf> {
    std::str::from_utf8(b)
        .map(PathBuf::from)
        .map_err(|_| PyValueError::new_err("a bytes path must be UTF-8 on this platform"))
}

#[pymethods]
impl Tablebase {
    #[new]
    #[pyo3(signature = (path, *, verify = false, mmap = false))]
    fn new(py: Python<'_>, path: &Bound<'_, PyAny>, verify: bool, mmap: bool) -> PyResult<Self> {
        let path = path_arg(path)?;
        let opened = py.detach(|| -> retrograde::Result<Reader> {
            let reader = if mmap {
                // SAFETY: the caller asked for `mmap=True`, whose documented
                // contract is this one: the file is not modified in place
                // while the tablebase is open.
                Reader::Mapped(unsafe { retrograde::Tablebase::open_mmap(&path) }?)
            } else {
                Reader::File(retrograde::Tablebase::open(&path)?)
            };
            if verify {
                with_reader!(&reader, tb => tb.verify())?;
            }
            Ok(reader)
        });
        let reader = opened.map_err(|e| to_pyerr(py, e.into(), Some(&path)))?;
        Ok(Tablebase {
            reader: Mutex::new(Some(Arc::new(reader))),
            path,
            mmap,
        })
    }

    /// Value, remoteness and nimber of a position given in the game's
    /// notation; None (the default) is the start position.
    ///
    /// Raises BadPositionError (a ValueError) if the text is not a position
    /// of this game, TypeError if it is not a str.
    #[pyo3(signature = (position = None))]
    fn probe(&self, py: Python<'_>, position: Option<&Bound<'_, PyAny>>) -> PyResult<Position> {
        let reader = self.reader(py)?;
        let position = Self::position_arg(py, position)?;
        py.detach(|| reader.probe_text(position.as_deref(), false))
            .map(Position::from)
            .map_err(|e| self.err(py, e.into()))
    }

    /// The legal moves of a position (None: the start), best first: the
    /// shortest win, then the shortest tie, then draws, then the longest
    /// loss. Each Move's value is for the player making it. A position where
    /// the game is over has none.
    #[pyo3(signature = (position = None))]
    fn moves(&self, py: Python<'_>, position: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Move>> {
        let reader = self.reader(py)?;
        let position = Self::position_arg(py, position)?;
        py.detach(|| reader.probe_text(position.as_deref(), true))
            .map(|info| info.moves.iter().map(Move::from).collect())
            .map_err(|e| self.err(py, e.into()))
    }

    /// The position stored at a table index, decoded into the game's
    /// notation, with its value: the same Position that ``probe`` gives for
    /// that text, whose ``index`` is ``index``.
    ///
    /// Raises TypeError for a non-int (bool included), IndexOutOfRangeError
    /// (an IndexError) outside ``0 <= index < entries``, and BadPositionError
    /// for an index that holds no position.
    fn probe_index(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Position> {
        let reader = self.reader(py)?;
        if index.is_instance_of::<pyo3::types::PyBool>() {
            return Err(PyTypeError::new_err("the index must be an int, not bool"));
        }
        let n = py.import("operator")?.call_method1("index", (index,))?;
        let i: u64 = n.extract().map_err(|_| {
            raise(
                py,
                "IndexOutOfRangeError",
                format!(
                    "index {n} is out of range: the table has {} entries",
                    reader.header().entries
                ),
            )
        })?;
        py.detach(|| reader.probe_index(i))
            .map(Position::from)
            .map_err(|e| self.err(py, e))
    }

    /// The game's canonical spec, e.g. 'isolation:4x4:a=1,b=14'.
    #[getter]
    fn game(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.reader(py)?.header().spec.clone())
    }

    /// The number of entries (the size of the game's index space).
    #[getter]
    fn entries(&self, py: Python<'_>) -> PyResult<u64> {
        Ok(self.reader(py)?.header().entries)
    }

    /// 'value' (win/lose/tie/draw with remoteness) or 'nimber' (Sprague-Grundy values).
    #[getter]
    fn table_kind(&self, py: Python<'_>) -> PyResult<&'static str> {
        Ok(self.reader(py)?.header().kind().name())
    }

    /// The path the tablebase was opened from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// True once ``close()`` has been called.
    #[getter]
    fn closed(&self) -> bool {
        self.reader
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
    }

    /// The header as a dict, with the keys of ``retrograde info --json``.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let reader = self.reader(py)?;
        let h = reader.header();
        let s = &h.summary;
        let nimbers = h.kind() == retrograde::TableKind::Nimber;
        let d = PyDict::new(py);
        d.set_item("file", self.path.as_os_str())?;
        d.set_item("game", &h.spec)?;
        d.set_item("format_version", h.version)?;
        d.set_item("index_scheme", h.index_scheme)?;
        d.set_item("folded", h.flags & retrograde::format::FLAG_FOLDED != 0)?;
        d.set_item("cell_width", h.cell_width)?;
        d.set_item("table", h.kind().name())?;
        d.set_item("entries", h.entries)?;
        d.set_item("data_offset", h.data_offset)?;
        d.set_item("file_size", h.file_len())?;
        d.set_item("data_crc32", format!("{:08x}", h.data_crc))?;
        d.set_item("generator", &h.generator)?;
        let counts = PyDict::new(py);
        for v in Value::ALL {
            counts.set_item(v.name(), s.counts[v.ordinal()])?;
        }
        counts.set_item("non_positions", s.non_positions)?;
        d.set_item("counts", counts)?;
        let max = PyDict::new(py);
        for v in [Value::Win, Value::Lose, Value::Tie] {
            max.set_item(v.name(), s.max_remoteness[v.ordinal()])?;
        }
        d.set_item("max_remoteness", max)?;
        d.set_item("max_nimber", nimbers.then_some(s.max_nimber))?;
        d.set_item("mmap", self.mmap)?;
        Ok(d)
    }

    /// Closes the file. Further use raises ClosedError; closing twice is fine.
    /// A probe running on another thread finishes first.
    fn close(&self) {
        self.reader.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Returns the tablebase itself, for ``with Tablebase(path) as tb:``.
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes the tablebase; an exception raised in the block propagates.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        let path = py_str(&Error::clip(&self.path.to_string_lossy()));
        match &*self.reader.lock().unwrap_or_else(|e| e.into_inner()) {
            None => format!("<retrograde.Tablebase {path} (closed)>"),
            Some(r) => format!(
                "<retrograde.Tablebase {path} game={} entries={}{}>",
                py_str(&Error::clip(&r.header().spec)),
                r.header().entries,
                if self.mmap { " mmap" } else { "" }
            ),
        }
    }
}

/// The file in ``directory`` holding the table of the game ``spec``, found
/// by the game in each file's header (``retrograde.open_directory`` is the
/// interface; this is its search, the command line's and the C library's).
#[pyfunction]
fn find_table(py: Python<'_>, directory: &Bound<'_, PyAny>, spec: &str) -> PyResult<PathBuf> {
    let dir = path_arg(directory)?;
    py.detach(|| retrograde::find_table(&dir, spec))
        .map_err(|e| to_pyerr(py, e.into(), None))
}

/// The compiled part of the `retrograde` package: see ``help(retrograde)``.
#[pymodule]
fn _retrograde(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(find_table, m)?)?;
    m.add_class::<Tablebase>()?;
    m.add_class::<Position>()?;
    m.add_class::<Move>()?;
    // This crate's version, which maturin also gives the wheel (pyproject.toml
    // takes it from Cargo.toml): one number, read by `retrograde.__version__`.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
