"""The exceptions of the retrograde package.

Defined in Python because each also derives from the built-in exception a
caller would naturally catch (``except OSError``, ``except ValueError``), and
an extension type cannot take two built-in bases. The compiled module
(``retrograde._retrograde``) raises these classes.
"""

__all__ = [
    "Error",
    "FileError",
    "CorruptFileError",
    "BadPositionError",
    "IndexOutOfRangeError",
    "ClosedError",
    "MissingTableError",
    "BadSpecError",
]


class Error(Exception):
    """Base class of every error this package raises (wrong argument types
    raise the built-in TypeError instead)."""


class FileError(Error, OSError):
    """The file cannot be opened or read, or is not a usable tablebase: missing,
    unreadable, a directory or other non-file, empty, not a tablebase, a format
    version or game this build does not read, or changed while open.
    ``filename`` is the path; ``errno`` is set when the system gave one."""

    def __str__(self) -> str:
        # The message alone: it names the path and the cause already, where
        # OSError's own format would print "[Errno ...] ...: 'path'" once the
        # filename attribute is set.
        return str(self.args[0]) if self.args else super().__str__()


class CorruptFileError(FileError):
    """The file is a tablebase but damaged: a header or data checksum
    mismatch, an impossible header, or a length that disagrees with it."""


class BadPositionError(Error, ValueError):
    """A position that is not one of this game's, in its notation (the
    message quotes it and says why), or an index that holds no position."""


class IndexOutOfRangeError(Error, IndexError):
    """An index outside ``0 <= index < entries``."""


class ClosedError(Error, ValueError):
    """The tablebase was closed (like I/O on a closed file, a ValueError)."""


class MissingTableError(Error, KeyError):
    """A directory holds no table of the game asked for (as python-chess's
    ``MissingTableError``, a KeyError). The message is the
    ``retrograde solve SPEC -o PATH`` command that makes it."""

    def __str__(self) -> str:
        # KeyError's own format would quote the message.
        return str(self.args[0]) if self.args else super().__str__()


class BadSpecError(Error, ValueError):
    """A game spec that names no game with tables: unknown, misspelt (the
    message gives the canonical spelling), too large, or search-only."""
