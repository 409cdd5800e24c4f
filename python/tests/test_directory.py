"""retrograde.open_directory: each game spec routed to its table, found by
the game in the files' headers (python-chess's open_tablebase)."""

import shutil
from pathlib import Path

import pytest

import retrograde
from retrograde import (
    BadSpecError,
    ClosedError,
    FileError,
    MissingTableError,
    Tablebase,
    open_directory,
)

from conftest import TABLES


def test_a_directory_routes_each_game_to_its_table(tables):
    root = tables["isolation"].parent
    with open_directory(root) as d:
        for name, (spec, _) in TABLES.items():
            with Tablebase(tables[name]) as tb:
                # isolation:3x3 is here twice, folded and not (each with its
                # own index): either answers every position alike.
                got, want = d.probe(spec), tb.probe()
                for field in ("position", "value", "remoteness", "nimber", "to_move"):
                    assert getattr(got, field) == getattr(want, field), (spec, field)
                assert d[spec].game == tb.game
                assert spec in d
        with Tablebase(tables["isolation"]) as tb:
            assert d.moves("isolation:3x3", ".0./.../.1.") == tb.moves(".0./.../.1.")
        # Two spellings of one game share its table.
        assert d["isolation:3x3"] is d["isolation:3x3:a=1,b=7"]
        # A value table is preferred: cram:3x3 has only a nimber table here.
        assert d["cram:3x3"].table_kind == "nimber"
        assert d["isolation:3x3"].table_kind == "value"


def test_a_missing_table_says_the_command_that_makes_it(tables, tmp_path):
    d = open_directory(tmp_path)
    with pytest.raises(MissingTableError) as e:
        d.probe("isolation:3x4")
    assert isinstance(e.value, KeyError) and isinstance(e.value, retrograde.Error)
    # The directory is quoted as every path in a message is (a long one cut
    # to its first bytes); the command is whole, to be run as it is.
    message = str(e.value)
    assert message.startswith("no table of isolation:3x4:a=1,b=10 in '")
    assert message.endswith(
        "': make it with "
        f"`retrograde solve isolation:3x4 -o {tmp_path}/isolation-3x4.rtb`"
    ) or message.endswith(
        " bytes): make it with "
        f"`retrograde solve isolation:3x4 -o {tmp_path}/isolation-3x4.rtb`"
    )
    assert "isolation:3x4" not in d
    with pytest.raises(BadSpecError) as e:
        d.probe("isolation:9x9")
    assert isinstance(e.value, ValueError)
    with pytest.raises(BadSpecError, match="search-only"):
        d["sprouts:3"]
    with pytest.raises(TypeError):
        d[3]


def test_a_file_named_after_another_game_is_never_used_for_it(tables, tmp_path):
    # The 3x3 table under the name solve gives the 3x4 one.
    shutil.copy(tables["isolation"], tmp_path / "isolation-3x4.rtb")
    with open_directory(tmp_path) as d:
        with pytest.raises(MissingTableError):
            d["isolation:3x4"]
        with Tablebase(tables["isolation"]) as tb:
            assert d.probe("isolation:3x3") == tb.probe()


def test_closing_closes_the_tables_and_the_default_directory(tables, tmp_path, monkeypatch):
    root = tables["isolation"].parent
    d = open_directory(root)
    tb = d["isolation:3x3"]
    d.close()
    with pytest.raises(ClosedError):
        tb.probe()
    with pytest.raises(ClosedError):
        d.probe("isolation:3x3")
    monkeypatch.setenv("RETROGRADE_TABLES", str(root))
    assert open_directory().path == root
    monkeypatch.delenv("RETROGRADE_TABLES")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileError):
        open_directory()
    (tmp_path / "tablebases").mkdir()
    assert open_directory().path == Path("tablebases")
