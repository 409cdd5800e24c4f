"""An example of calling the C ABI (include/retrograde.h) from another
language, here Python's ctypes: how a binding for any language with a foreign
function interface loads libretrograde, declares the signatures, passes
strings and buffers, and turns status codes into errors.

It is an example, not a package: the Python interface is the PyO3 package in
python/ (`pip install ./python`, then `import retrograde`; docs/EMBEDDING.md),
whose API differs (Position and Move objects where this returns tuples and
dicts, and its own exception classes).

No build step beyond `cargo build --release`. The library is found through
the environment variable RETROGRADE_LIB (the library file, or the directory
holding it), else in this repository's target/release/.

    import sys; sys.path.insert(0, "examples")
    from ctypes_probe import Tablebase
    with Tablebase("tablebases/isolation-4x4.rtb") as tb:
        print(tb.probe())                         # ('win', 11): the start
        print(tb.probe("0.../...x/.x../...1"))    # ('win', 7)
        print(tb.best_moves()[0])                 # {'move': '2x10', ..., 'best': True}

Values are 'win', 'lose', 'tie' or 'draw' for the player to move; remoteness
is the number of moves to the end under perfect play, None for a draw (or in
a nimber table). Errors raise RetrogradeError with the library's message.

Arguments are checked before they reach C: a position must be a str (bytes
raise TypeError), and no string may hold a NUL character (ValueError, as
Python's own open() does: C would silently stop reading at the NUL). An index
must be an int in [0, 2**64) (outside it raises IndexError; at or above
`entries` the library's RetrogradeError, which is an IndexError too).

Tablebase(path) reads the file with positioned reads: if another process
truncates the file while it is open, probes raise RetrogradeError, and the
interpreter survives. Tablebase(path, mmap=True) maps the file instead:
faster probes, but a file truncated while open then kills the whole Python
process with SIGBUS. Tablebase(path, verify=True) checks the data CRC (reads
the whole file) before the first answer; otherwise only the header is checked.
"""

import ctypes
import operator
import os
import sys
from pathlib import Path

__all__ = ["Tablebase", "RetrogradeError", "RetrogradeIndexError", "load_library"]

VALUES = ("win", "lose", "tie", "draw")

# Status codes of include/retrograde.h.
RTB_OK = 0
RTB_ERR_NULL = -1
RTB_ERR_HANDLE = -2
RTB_ERR_UTF8 = -3
RTB_ERR_POSITION = -4
RTB_ERR_RANGE = -5
RTB_ERR_FILE = -6
RTB_ERR_PANIC = -7
RTB_ERR_ARG = -8

# Flags of rtb_open_with.
RTB_OPEN_MMAP = 1
RTB_OPEN_VERIFY = 2

INDEX_LIMIT = 1 << 64


class RetrogradeError(Exception):
    """A failed call: `code` is the RTB_ERR_* status, the text the library's message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class RetrogradeIndexError(RetrogradeError, IndexError):
    """An index outside the table (RTB_ERR_RANGE): catch it as either class."""


def _exception(code, message):
    cls = RetrogradeIndexError if code == RTB_ERR_RANGE else RetrogradeError
    return cls(code, message)


def _library_name():
    if sys.platform == "win32":
        return "retrograde.dll"
    if sys.platform == "darwin":
        return "libretrograde.dylib"
    return "libretrograde.so"


def _find_library():
    env = os.environ.get("RETROGRADE_LIB")
    if env:
        path = Path(env)
        return path / _library_name() if path.is_dir() else path
    return Path(__file__).resolve().parent.parent / "target" / "release" / _library_name()


_lib = None


def load_library():
    """Loads (once) and returns the C library, with argument types declared."""
    global _lib
    if _lib is not None:
        return _lib
    path = _find_library()
    if not path.exists():
        raise RetrogradeError(
            RTB_ERR_FILE,
            f"cannot find the retrograde library at {path}: run `cargo build --release` "
            "or set RETROGRADE_LIB",
        )
    lib = ctypes.CDLL(str(path))
    handle = ctypes.c_void_p
    out_int = ctypes.POINTER(ctypes.c_int)
    signatures = {
        "rtb_open": ([ctypes.c_char_p], handle),
        "rtb_open_with": ([ctypes.c_char_p, ctypes.c_uint], handle),
        "rtb_close": ([handle], ctypes.c_int),
        "rtb_entries": ([handle], ctypes.c_int64),
        "rtb_game_spec": ([handle, ctypes.c_char_p, ctypes.c_size_t], ctypes.c_int64),
        "rtb_probe_index": ([handle, ctypes.c_uint64, out_int, out_int], ctypes.c_int),
        "rtb_probe_position": ([handle, ctypes.c_char_p, out_int, out_int], ctypes.c_int),
        "rtb_best_moves": (
            [handle, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
            ctypes.c_int64,
        ),
        "rtb_last_error": ([], ctypes.c_char_p),
    }
    for name, (args, result) in signatures.items():
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = result
    _lib = lib
    return lib


def _error(lib, code):
    message = lib.rtb_last_error().decode("utf-8", "replace")
    return _exception(code, message or f"error {code}")


def _text(s, what="position"):
    """A str (or None) as NUL-terminated UTF-8 for C, refused if C would read
    something else: bytes are not text, and a NUL would end the string early."""
    if s is None:
        return None
    if not isinstance(s, str):
        raise TypeError(f"the {what} must be a str or None, not {type(s).__name__}")
    if "\0" in s:
        raise ValueError(f"embedded null byte in the {what}")
    # A lone surrogate ('\ud800') has no UTF-8 form: passed through as the
    # bytes 'surrogatepass' gives, the library refuses it (RTB_ERR_UTF8)
    # with its own message, instead of Python raising UnicodeEncodeError.
    return s.encode("utf-8", "surrogatepass")


def _path(path):
    """A path (str, bytes or os.PathLike) as bytes for C, refusing a NUL as open() does."""
    path = os.fspath(path)
    try:
        encoded = os.fsencode(path)
    except UnicodeEncodeError:
        # A lone surrogate outside surrogateescape's range names no file: the
        # library's open fails with RTB_ERR_FILE, as for any missing file.
        encoded = path.encode("utf-8", "surrogatepass")
    if b"\0" in encoded:
        raise ValueError("embedded null byte in the path")
    return encoded


def _index(index):
    """An index as a C uint64_t: an int (or __index__) in [0, 2**64), never wrapped."""
    if isinstance(index, bool):
        raise TypeError("the index must be an int, not bool")
    try:
        i = operator.index(index)
    except TypeError:
        raise TypeError(f"the index must be an int, not {type(index).__name__}") from None
    if not 0 <= i < INDEX_LIMIT:
        raise RetrogradeIndexError(
            RTB_ERR_RANGE, f"index {i} is out of range: indices are 0 to entries - 1"
        )
    return i


class Tablebase:
    """An open tablebase file. Use as a context manager, or call close().

    Tablebase(path) checks the header only (magic, version, lengths, header
    CRC, game spec and index size) and reads with positioned reads: a file
    truncated while open makes probes raise RetrogradeError.

    verify=True also checks the data CRC (one pass over the file) before
    returning, so a damaged cell is refused instead of answered.

    mmap=True memory-maps the file: probes are faster, but if another process
    truncates the file while it is open, the next probe kills this whole
    Python process with SIGBUS (and so does a disk I/O error). Only for files
    nothing modifies in place.
    """

    def __init__(self, path, *, mmap=False, verify=False):
        self._h = None
        encoded = _path(path)
        flags = (RTB_OPEN_MMAP if mmap else 0) | (RTB_OPEN_VERIFY if verify else 0)
        self._lib = load_library()
        self._h = self._lib.rtb_open_with(encoded, flags)
        if not self._h:
            raise _error(self._lib, RTB_ERR_FILE)

    def close(self):
        """Closes the file; further calls raise ValueError. Closing twice is fine."""
        if self._h:
            h, self._h = self._h, None
            rc = self._lib.rtb_close(h)
            if rc != RTB_OK:
                raise _error(self._lib, rc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        # A tablebase never closed: release it (quietly: this may run at exit).
        try:
            if getattr(self, "_h", None):
                self._lib.rtb_close(self._h)
        except Exception:
            pass

    def _handle(self):
        if not self._h:
            raise ValueError("the tablebase is closed")
        return self._h

    def _read_text(self, call):
        """Calls a (buf, len) function: asks the length, then reads the text."""
        n = call(None, 0)
        while True:
            if n < 0:
                raise _error(self._lib, n)
            buf = ctypes.create_string_buffer(n + 1)
            m = call(buf, n + 1)
            if m == n:
                return buf.value.decode("utf-8")
            n = m

    @property
    def entries(self):
        """Number of entries (the game's index space)."""
        n = self._lib.rtb_entries(self._handle())
        if n < 0:
            raise _error(self._lib, n)
        return n

    @property
    def game_spec(self):
        """The canonical game spec, e.g. 'isolation:4x4:a=1,b=14'."""
        h = self._handle()
        return self._read_text(lambda buf, n: self._lib.rtb_game_spec(h, buf, n))

    def _outcome(self, rc, value, remoteness):
        if rc != RTB_OK:
            raise _error(self._lib, rc)
        r = remoteness.value
        return VALUES[value.value], (None if r < 0 else r)

    def probe(self, position=None):
        """(value, remoteness) of a position in the game's notation (None: the start)."""
        value, remoteness = ctypes.c_int(), ctypes.c_int()
        rc = self._lib.rtb_probe_position(
            self._handle(), _text(position), ctypes.byref(value), ctypes.byref(remoteness)
        )
        return self._outcome(rc, value, remoteness)

    def probe_index(self, index):
        """(value, remoteness) of the position at an index. An index that is
        not an int raises TypeError; one outside [0, entries) raises
        RetrogradeIndexError (an IndexError and a RetrogradeError)."""
        i = _index(index)
        value, remoteness = ctypes.c_int(), ctypes.c_int()
        rc = self._lib.rtb_probe_index(
            self._handle(), i, ctypes.byref(value), ctypes.byref(remoteness)
        )
        return self._outcome(rc, value, remoteness)

    def best_moves(self, position=None):
        """The legal moves, best first: dicts with 'move', 'position' (the one it
        leads to), 'value' (for the player making the move), 'remoteness' (of
        the resulting position; None: none) and 'best' (as good as the first)."""
        h, pos = self._handle(), _text(position)
        text = self._read_text(lambda buf, n: self._lib.rtb_best_moves(h, pos, buf, n))
        moves = []
        for line in text.splitlines():
            mv, child, value, remoteness, best = line.split("\t")
            r = int(remoteness)
            moves.append(
                {
                    "move": mv,
                    "position": child,
                    "value": value,
                    "remoteness": None if r < 0 else r,
                    "best": best == "1",
                }
            )
        return moves


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "tablebases/isolation-4x4.rtb"
    try:
        with Tablebase(path) as tb:
            print(tb.game_spec, tb.entries, "entries")
            for pos in [None] + sys.argv[2:]:
                value, remoteness = tb.probe(pos)
                print(pos or "start", value, remoteness)
    except RetrogradeError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
