"""Type stubs of the compiled module (python/src/lib.rs)."""

import os
from pathlib import Path
from types import TracebackType
from typing import Any, Dict, List, Literal, Optional, Type, Union

Value = Literal["win", "lose", "tie", "draw"]

__version__: str

class Position:
    """A probed position: its value for the player to move, remoteness, nimber."""

    @property
    def position(self) -> str:
        """The position in the game's canonical notation."""
    @property
    def index(self) -> int:
        """Its index in the table."""
    @property
    def to_move(self) -> Optional[int]:
        """The player to move (0 or 1), or None in an impartial game."""
    @property
    def value(self) -> Value:
        """'win', 'lose', 'tie' or 'draw', for the player to move."""
    @property
    def remoteness(self) -> Optional[int]:
        """Moves to the end under perfect play; None for a draw."""
    @property
    def nimber(self) -> Optional[int]:
        """The Sprague-Grundy value, in a nimber table; else None."""
    @property
    def primitive(self) -> bool:
        """True if the game is over in this position."""
    def as_dict(self) -> Dict[str, Any]:
        """The fields as a dict, with the keys of ``retrograde probe --json``."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Move:
    """One legal move, with its result for the player making it."""

    @property
    def move(self) -> str:
        """The move in the game's notation."""
    @property
    def position(self) -> str:
        """The position the move leads to."""
    @property
    def value(self) -> Value:
        """The result for the player making the move."""
    @property
    def remoteness(self) -> Optional[int]:
        """Remoteness of the resulting position; None for a draw."""
    @property
    def nimber(self) -> Optional[int]:
        """The resulting position's nimber, in a nimber table; else None."""
    @property
    def best(self) -> bool:
        """True for every move as good as the first (the best)."""
    def as_dict(self) -> Dict[str, Any]:
        """The fields as a dict, with the keys of ``retrograde probe --json --moves``."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Tablebase:
    """An open tablebase file (see help(retrograde.Tablebase))."""

    def __init__(
        self,
        path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"],
        *,
        verify: bool = False,
        mmap: bool = False,
    ) -> None: ...
    def probe(self, position: Optional[str] = None) -> Position:
        """Value, remoteness and nimber of a position (None: the start)."""
    def moves(self, position: Optional[str] = None) -> List[Move]:
        """The legal moves of a position (None: the start), best first."""
    def probe_index(self, index: int) -> Position:
        """The position stored at a table index, with its value."""
    @property
    def game(self) -> str:
        """The game's canonical spec, e.g. 'isolation:4x4:a=1,b=14'."""
    @property
    def entries(self) -> int:
        """The number of entries (the size of the game's index space)."""
    @property
    def table_kind(self) -> Literal["value", "nimber"]:
        """'value' or 'nimber'."""
    @property
    def path(self) -> Path:
        """The path the tablebase was opened from."""
    @property
    def closed(self) -> bool:
        """True once close() has been called."""
    def info(self) -> Dict[str, Any]:
        """The header as a dict, with the keys of ``retrograde info --json``."""
    def close(self) -> None:
        """Closes the file; further use raises ClosedError."""
    def __enter__(self) -> "Tablebase": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

def find_table(directory: Union[str, "os.PathLike[str]"], spec: str) -> Path: ...
