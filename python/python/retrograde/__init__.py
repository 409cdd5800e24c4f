"""Read retrograde game tablebases from Python.

A tablebase (a ``.rtb`` file written by ``retrograde solve``) holds the value
of every position of a game under perfect play. This package opens one and
answers any position at once::

    import retrograde

    with retrograde.Tablebase("tablebases/isolation-4x4.rtb") as tb:
        start = tb.probe()                 # Position(..., value='win', remoteness=11, ...)
        for m in tb.moves()[:3]:           # best first, values for the mover
            print(m.move, m.value, m.remoteness, m.best)

A directory of tables answers by game, each spec finding its table by the
game in the files' headers (python-chess's ``open_tablebase``)::

    with retrograde.open_directory("tablebases") as tables:
        tables.probe("isolation:4x4", ".0../..../..../..1.")
        tables["isolation:4x4"].moves()

Values are the strings ``'win'``, ``'lose'``, ``'tie'`` and ``'draw'`` (for the
player to move in a Position, for the player making the move in a Move);
remoteness is the number of moves to the end of the game under perfect play,
None for a draw. Errors derive from ``retrograde.Error``: ``FileError`` (an
OSError) and its ``CorruptFileError``, ``BadPositionError`` (a ValueError),
``IndexOutOfRangeError`` (an IndexError), ``ClosedError`` (a ValueError),
``MissingTableError`` (a KeyError: no table of a game in a directory; the
message is the command that makes it), ``BadSpecError`` (a ValueError).
``retrograde.__version__`` is the package's version (that of the
``retrograde`` command built from the same source).

The reader is the Rust crate's own, compiled into ``retrograde._retrograde``
with PyO3; probes release the GIL.
"""

from ._errors import (
    BadPositionError,
    BadSpecError,
    ClosedError,
    CorruptFileError,
    Error,
    FileError,
    IndexOutOfRangeError,
    MissingTableError,
)
from ._retrograde import Move, Position, Tablebase, __version__
from ._directory import TableDirectory, open_directory

__all__ = [
    "__version__",
    "Tablebase",
    "open_directory",
    "TableDirectory",
    "Position",
    "Move",
    "Error",
    "FileError",
    "CorruptFileError",
    "BadPositionError",
    "IndexOutOfRangeError",
    "ClosedError",
    "MissingTableError",
    "BadSpecError",
]
