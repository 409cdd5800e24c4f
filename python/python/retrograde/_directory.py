"""A directory of tables, each found by its game: python-chess's
``chess.syzygy.open_tablebase(directory)`` for retrograde tables."""

import os
import threading
from pathlib import Path
from typing import Dict, List, Optional, Union

from ._retrograde import Move, Position, Tablebase, find_table

__all__ = ["TableDirectory", "open_directory"]

#: The directory used when none is given and RETROGRADE_TABLES is unset
#: (where ``retrograde solve`` writes by default).
DEFAULT_DIR = "tablebases"

PathLike = Union[str, "os.PathLike[str]"]


class TableDirectory:
    """The tables of a directory, routed by game spec: ``d.probe(spec,
    position)``, ``d.moves(spec, position)`` or ``d[spec]`` (the
    :class:`Tablebase`). A spec finds its table by the game each file's
    header names, never by the file's name, so a file named after another
    game is never used for it; a value table is preferred to a nimber table
    of the same game. A game with no table raises
    :class:`MissingTableError` (a KeyError) whose message is the
    ``retrograde solve`` command that makes it; a spec that is no game with
    tables, :class:`BadSpecError` (a ValueError).

    Tables are opened when first asked for and stay open until
    :meth:`close` (or the end of a ``with`` block). Safe to share between
    threads.
    """

    def __init__(self, path: Optional[PathLike] = None, *, mmap: bool = False):
        if path is None:
            path = os.environ.get("RETROGRADE_TABLES") or DEFAULT_DIR
        self._path = Path(path)
        if not self._path.is_dir():
            from ._errors import FileError

            raise FileError(f"'{self._path}' is not a directory")
        self._mmap = mmap
        self._lock = threading.Lock()
        # By the spec asked for, and by file (two spellings of one game
        # share the table).
        self._by_spec: Dict[str, Tablebase] = {}
        self._by_file: Dict[Path, Tablebase] = {}
        self._closed = False

    @property
    def path(self) -> Path:
        """The directory."""
        return self._path

    def table(self, spec: str) -> Tablebase:
        """The table of the game ``spec`` (e.g. ``"isolation:4x4"``)."""
        if not isinstance(spec, str):
            raise TypeError(f"the game spec must be a str, not {type(spec).__name__}")
        with self._lock:
            if self._closed:
                from ._errors import ClosedError

                raise ClosedError(f"the table directory '{self._path}' is closed")
            tb = self._by_spec.get(spec)
            if tb is not None:
                return tb
            file = Path(find_table(self._path, spec))
            tb = self._by_file.get(file)
            if tb is None:
                tb = Tablebase(file, mmap=self._mmap)
                self._by_file[file] = tb
            self._by_spec[spec] = tb
            return tb

    __getitem__ = table

    def __contains__(self, spec: object) -> bool:
        """Whether the directory holds a table of the game ``spec``."""
        from ._errors import BadSpecError, MissingTableError

        if not isinstance(spec, str):
            return False
        try:
            self.table(spec)
        except (MissingTableError, BadSpecError):
            return False
        return True

    def probe(self, spec: str, position: Optional[str] = None) -> Position:
        """The position (None: the start) of the game ``spec``, probed in
        its table."""
        return self.table(spec).probe(position)

    def moves(self, spec: str, position: Optional[str] = None) -> List[Move]:
        """Every move of the position (None: the start), best first, from
        the table of the game ``spec``."""
        return self.table(spec).moves(position)

    def close(self) -> None:
        """Closes every table opened through the directory."""
        with self._lock:
            self._closed = True
            for tb in self._by_file.values():
                tb.close()
            self._by_spec.clear()
            self._by_file.clear()

    def __enter__(self) -> "TableDirectory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = " (closed)" if self._closed else f" tables_open={len(self._by_file)}"
        return f"<retrograde.TableDirectory '{self._path}'{state}>"


def open_directory(path: Optional[PathLike] = None, *, mmap: bool = False) -> TableDirectory:
    """The tables of ``path`` (default: the RETROGRADE_TABLES environment
    variable, else ``tablebases``), each found by its game::

        with retrograde.open_directory("tablebases") as tables:
            print(tables.probe("isolation:4x4", ".0../..../..../..1."))
    """
    return TableDirectory(path, mmap=mmap)
