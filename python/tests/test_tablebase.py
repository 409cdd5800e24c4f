"""Tests of the retrograde package against the command-line tool's answers."""

import errno
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict

import pytest

import retrograde
from retrograde import (
    BadPositionError,
    ClosedError,
    CorruptFileError,
    FileError,
    IndexOutOfRangeError,
    Move,
    Position,
    Tablebase,
)

from conftest import REPO, TABLES, Cli


def quoted(path) -> str:
    """A path as the messages quote it (``retrograde::Error::quote``): at
    most 60 characters, then the size in bytes."""
    s = str(path)
    return f"'{s}'" if len(s) <= 60 else f"'{s[:60]}…' ({len(s.encode())} bytes)"


# ---------------------------------------------------------------- agreement


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_reachable_position_agrees_with_the_cli(name, tables, reachable):
    answers = reachable[name]
    # Each table has more than a handful of positions: the walk really walked.
    assert len(answers) > 10
    with Tablebase(tables[name]) as tb:
        for text, cli_answer in answers.items():
            expected = dict(cli_answer)
            expected_moves = expected.pop("moves")
            got = tb.probe(text)
            assert got.as_dict() == expected, text
            # The attributes are what as_dict reports.
            assert (got.position, got.index, got.value, got.remoteness) == (
                expected["position"],
                expected["index"],
                expected["value"],
                expected["remoteness"],
            )
            moves = tb.moves(text)
            assert [m.as_dict() for m in moves] == expected_moves, text
            assert [(m.move, m.position, m.value, m.best) for m in moves] == [
                (m["move"], m["position"], m["value"], m["best"]) for m in expected_moves
            ]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_probe_index_covers_the_table(name, tables, cli: Cli):
    """Every index: a position whose probe by text is the same answer, or
    BadPositionError; the counts by value are the header's; and the CLI
    agrees on every decoded position."""
    with Tablebase(tables[name]) as tb:
        info = tb.info()
        counts = {"win": 0, "lose": 0, "tie": 0, "draw": 0}
        positions = []
        non_positions = 0
        for i in range(tb.entries):
            try:
                p = tb.probe_index(i)
            except BadPositionError as e:
                assert f"index {i} is not a position" in str(e)
                non_positions += 1
                continue
            assert p.index == i
            assert tb.probe(p.position) == p
            counts[p.value] += 1
            positions.append(p)
        if info["table"] == "value":
            assert counts == {k: info["counts"][k] for k in counts}
        assert non_positions == info["counts"]["non_positions"]
        cli_answers = cli.probe(tables[name], [p.position for p in positions])
        for p, answer in zip(positions, cli_answers):
            answer.pop("moves")
            assert p.as_dict() == answer


def solve_subtraction(n, takes):
    """Value and remoteness of piles 0..n by the rules of the README (a pure
    Python solver: the player who cannot move loses; a win is 1 + the
    smallest remoteness of a losing child, a loss 1 + the largest)."""
    out = []
    for pile in range(n + 1):
        children = [out[pile - t] for t in takes if t <= pile]
        losing = [r for v, r in children if v == "lose"]
        if not children:
            out.append(("lose", 0))
        elif losing:
            out.append(("win", 1 + min(losing)))
        else:
            out.append(("lose", 1 + max(r for _, r in children)))
    return out


def test_subtraction_against_a_python_solver(tables):
    expected = solve_subtraction(20, [1, 3, 4])
    with Tablebase(tables["subtraction"]) as tb:
        assert tb.game == "subtraction:20:1,3,4"
        assert tb.entries == 21
        got = [(tb.probe(str(n)).value, tb.probe(str(n)).remoteness) for n in range(21)]
        assert got == expected
        losses = [n for n, (v, _) in enumerate(got) if v == "lose"]
        assert losses == [0, 2, 7, 9, 14, 16]
        start = tb.probe()
        assert start.position == "20"
        assert (start.value, start.remoteness, start.primitive) == ("win", 11, False)
        assert tb.probe("0").primitive
        assert tb.moves("0") == []
        # 20: taking 4 leaves 16, a loss for the opponent: the only winning move.
        best = [m for m in tb.moves() if m.best]
        assert [(m.move, m.position, m.value, m.remoteness) for m in best] == [
            ("4", "16", "win", 10)
        ]


def test_nimber_table(tables):
    with Tablebase(tables["cram_nimbers"]) as tb:
        assert tb.table_kind == "nimber"
        assert tb.info()["max_nimber"] is not None
        start = tb.probe()
        assert start.nimber is not None
        assert start.to_move is None
        # The value follows the nimber: a win exactly when it is not 0.
        assert (start.value == "win") == (start.nimber != 0)
        for m in tb.moves():
            assert m.nimber is not None
            assert (m.value == "win") == (m.nimber == 0)


def test_loopy_game_has_draws(dodgem4, cli: Cli):
    with Tablebase(dodgem4) as tb:
        assert tb.info()["counts"]["draw"] == 56_820
        drawn = []
        for i in range(0, tb.entries, 97):
            try:
                p = tb.probe_index(i)
            except BadPositionError:
                continue
            if p.value == "draw":
                drawn.append(p)
        assert len(drawn) > 10
        for p, answer in zip(drawn, cli.probe(dodgem4, [p.position for p in drawn])):
            assert (p.value, p.remoteness) == ("draw", None)
            assert [m.as_dict() for m in tb.moves(p.position)] == answer.pop("moves")
            assert p.as_dict() == answer
            # A drawn position has a drawing move and no winning one.
            values = {m.value for m in tb.moves(p.position)}
            assert "draw" in values and "win" not in values


def test_info_matches_the_cli(tables, cli: Cli):
    for name, path in tables.items():
        expected = json.loads(cli.run("info", str(path), "--json"))
        with Tablebase(path) as tb:
            info = tb.info()
            assert info.pop("mmap") is False
            assert info == expected, name
            assert tb.table_kind == expected["table"]
            assert tb.entries == expected["entries"]
            assert tb.game == expected["game"]


def test_mmap_answers_the_same(tables):
    path = tables["isolation"]
    with Tablebase(path) as plain, Tablebase(path, mmap=True, verify=True) as mapped:
        assert mapped.info()["mmap"] is True
        assert "mmap" in repr(mapped)
        for i in range(plain.entries):
            try:
                expected = plain.probe_index(i)
            except BadPositionError:
                with pytest.raises(BadPositionError):
                    mapped.probe_index(i)
                continue
            assert mapped.probe_index(i) == expected
            assert mapped.moves(expected.position) == plain.moves(expected.position)


# ------------------------------------------------------- objects and lifetime


def test_position_and_move_objects(tables):
    with Tablebase(tables["isolation"]) as tb:
        start = tb.probe()
        assert isinstance(start, Position)
        assert start == tb.probe(start.position)
        assert start != tb.probe(tb.moves()[0].position)
        assert hash(start) == hash(tb.probe(start.position))
        assert len({start, tb.probe(start.position)}) == 1
        r = repr(start)
        assert r.startswith(f"Position('{start.position}', value='{start.value}'")
        m = tb.moves()[0]
        assert isinstance(m, Move)
        assert repr(m).startswith(f"Move('{m.move}', position='{m.position}'")
        with pytest.raises(AttributeError):
            start.value = "lose"  # frozen


def test_context_manager_closes(tables):
    path = tables["subtraction"]
    with Tablebase(path) as tb:
        assert not tb.closed
        assert tb.probe("7").value == "lose"
        assert repr(tb) == f"<retrograde.Tablebase '{path}' game='subtraction:20:1,3,4' entries=21>"
    assert tb.closed
    assert repr(tb) == f"<retrograde.Tablebase '{path}' (closed)>"
    for use in (lambda: tb.probe(), lambda: tb.moves(), lambda: tb.probe_index(0),
                lambda: tb.entries, lambda: tb.game, lambda: tb.info()):
        with pytest.raises(ClosedError, match="is closed"):
            use()
    with pytest.raises(ValueError):
        tb.probe()
    tb.close()  # twice is fine
    assert tb.path == path


def test_exit_does_not_swallow_exceptions(tables):
    with pytest.raises(KeyError):
        with Tablebase(tables["subtraction"]) as tb:
            raise KeyError("x")
    assert tb.closed


def test_threads_get_the_same_answers(tables, reachable):
    texts = sorted(reachable["isolation"])
    with Tablebase(tables["isolation"]) as tb:
        serial = [(tb.probe(t), tb.moves(t)) for t in texts]
        barrier = threading.Barrier(4)

        def work(k):
            barrier.wait()
            order = texts[k:] + texts[:k]
            got = {t: (tb.probe(t), tb.moves(t)) for t in order}
            return [got[t] for t in texts]

        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(work, range(4)))
    assert all(r == serial for r in results)


def test_close_while_other_threads_probe(tables):
    tb = Tablebase(tables["isolation"])
    start = tb.probe()
    outcomes = []

    def work():
        for _ in range(2000):
            try:
                assert tb.probe() == start
            except ClosedError:
                outcomes.append("closed")
                return
        outcomes.append("done")

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    tb.close()
    for t in threads:
        t.join()
    assert len(outcomes) == 3 and set(outcomes) <= {"closed", "done"}


def test_docstrings_for_help():
    assert "Tablebase(path, *, verify=False, mmap=False)" in Tablebase.__doc__
    for name in ("probe", "moves", "probe_index", "game", "entries", "table_kind",
                 "info", "close", "closed", "path"):
        assert getattr(Tablebase, name).__doc__, name
    for cls, fields in ((Position, ("position", "index", "to_move", "value", "remoteness",
                                    "nimber", "primitive")),
                        (Move, ("move", "position", "value", "remoteness", "nimber", "best"))):
        assert cls.__doc__
        for f in fields:
            assert getattr(cls, f).__doc__, (cls, f)
    assert "probe" in retrograde.__doc__


# ------------------------------------------------------------------- errors


def test_missing_file(tmp_path):
    missing = tmp_path / "missing.rtb"
    with pytest.raises(FileError) as e:
        Tablebase(missing)
    assert isinstance(e.value, OSError) and isinstance(e.value, retrograde.Error)
    assert e.value.errno == errno.ENOENT
    assert e.value.filename == str(missing)
    assert str(e.value).startswith(f"cannot open {quoted(missing)}: ")
    assert not isinstance(e.value, CorruptFileError)


def test_directory(tmp_path):
    with pytest.raises(FileError, match="is a directory"):
        Tablebase(tmp_path)


def test_not_a_tablebase(tmp_path):
    path = tmp_path / "text.rtb"
    path.write_bytes(b"just some text, not a table\n" * 200)
    with pytest.raises(FileError, match="not a retrograde tablebase") as e:
        Tablebase(str(path))
    assert str(e.value).startswith(f"{quoted(path)}: ")
    empty = tmp_path / "empty.rtb"
    empty.write_bytes(b"")
    with pytest.raises(FileError, match="empty"):
        Tablebase(empty)


def damaged_copy(src: Path, dst: Path, offset: int) -> Path:
    data = bytearray(src.read_bytes())
    data[offset] ^= 0x40
    dst.write_bytes(bytes(data))
    return dst


def test_damaged_data_is_refused_with_verify(tables, tmp_path):
    src = tables["isolation"]
    data_offset = Tablebase(src).info()["data_offset"]
    path = damaged_copy(src, tmp_path / "damaged.rtb", data_offset + 100)
    # The header is intact: opening without verify answers (from damaged bytes).
    with Tablebase(path) as tb:
        assert tb.entries > 0
    for mmap in (False, True):
        with pytest.raises(CorruptFileError, match="data checksum mismatch") as e:
            Tablebase(path, verify=True, mmap=mmap)
        assert isinstance(e.value, OSError)
    # The intact file verifies.
    Tablebase(src, verify=True).close()


def test_damaged_header_is_refused_at_open(tables, tmp_path):
    path = damaged_copy(tables["isolation"], tmp_path / "header.rtb", 40)
    with pytest.raises(CorruptFileError, match="header checksum mismatch") as e:
        Tablebase(path)
    assert str(e.value).startswith(f"{quoted(path)}: ")
    assert e.value.filename == str(path)
    # A damaged magic is "not a tablebase": a FileError, not a corrupt one.
    path = damaged_copy(tables["isolation"], tmp_path / "magic.rtb", 0)
    with pytest.raises(FileError, match="bad magic") as e:
        Tablebase(path)
    assert not isinstance(e.value, CorruptFileError)


def test_truncated_file_is_refused_at_open(tables, tmp_path):
    path = tmp_path / "short.rtb"
    data = tables["isolation"].read_bytes()
    path.write_bytes(data[: len(data) - 7])
    with pytest.raises(CorruptFileError, match="truncated or damaged"):
        Tablebase(path)


def test_file_shrinking_while_open_raises(tables, tmp_path):
    path = tmp_path / "shrinks.rtb"
    shutil.copy(tables["isolation"], path)
    with Tablebase(path) as tb:
        offset = tb.info()["data_offset"]
        os.truncate(path, offset)
        with pytest.raises(FileError, match="changed or shrank"):
            for i in range(tb.entries):
                tb.probe_index(i)


def test_bad_position_names_it(tables):
    with Tablebase(tables["isolation"]) as tb:
        with pytest.raises(BadPositionError, match="bad position 'zz9'") as e:
            tb.probe("zz9")
        assert isinstance(e.value, ValueError)
        with pytest.raises(BadPositionError, match="bad position 'zz9'"):
            tb.moves("zz9")
        with pytest.raises(BadPositionError, match="embedded null"):
            tb.probe("0../.../..1\0")
    with Tablebase(tables["subtraction"]) as tb:
        with pytest.raises(BadPositionError, match="'21'"):
            tb.probe("21")


def test_long_and_hostile_paths_are_quoted_and_cut(tables, tmp_path, monkeypatch):
    """A path in a message is cut after 60 characters, with its size, and its
    control characters escaped (it was printed whole: 4,000 bytes of path,
    or an escape sequence that recoloured the terminal)."""
    deep = tmp_path / ("d" * 200) / "x\x1b[31m.rtb"
    with pytest.raises(FileError) as e:
        Tablebase(deep)
    message = str(e.value)
    assert message.startswith(f"cannot open '{str(deep)[:60]}…' ({len(str(deep))} bytes): ")
    assert len(message) < 200 and "\x1b" not in message
    assert e.value.filename == str(deep)
    # A file that opens but is no tablebase: the message leads with the path.
    named = tmp_path / ("n" * 80 + "\x07.rtb")
    named.write_bytes(b"not a table" * 500)
    with pytest.raises(FileError) as e:
        Tablebase(named)
    assert str(e.value) == f"'{str(named)[:60]}…' ({len(str(named))} bytes): not a retrograde tablebase (bad magic bytes)"
    monkeypatch.chdir(tmp_path)
    Path("bell\x07.rtb").write_bytes(b"not a table" * 500)
    with pytest.raises(FileError) as e:
        Tablebase("bell\x07.rtb")
    assert str(e.value) == "'bell\\u{7}.rtb': not a retrograde tablebase (bad magic bytes)"


def test_lone_surrogates(tables, tmp_path):
    """A str may hold a lone surrogate, which is not Unicode text: as a
    position it is a BadPositionError (it was UnicodeEncodeError), as a path
    a FileError."""
    with Tablebase(tables["isolation"]) as tb:
        for call in (tb.probe, tb.moves):
            with pytest.raises(BadPositionError) as e:
                call("0../\ud800../..1")
            assert str(e.value) == (
                "bad position '0../\\ud800../..1': not Unicode text (it holds a lone surrogate)"
            )
            assert isinstance(e.value, ValueError)
    path = str(tmp_path / "\ud800.rtb")
    with pytest.raises(FileError) as e:
        Tablebase(path)
    assert "lone surrogate" in str(e.value) and "\\ud800" in str(e.value)
    assert e.value.filename == path
    # Surrogates that stand for undecodable bytes of a file name
    # ('surrogateescape', as os.listdir gives them) are a real name.
    escaped = tmp_path / "\udcff.rtb"
    shutil.copy(tables["subtraction"], os.fsencode(escaped))
    with Tablebase(escaped) as tb:
        assert tb.probe("7").value == "lose"


def test_version_is_the_command_line_tools(cli: Cli):
    """One version: the compiled module's, the installed package's and the
    ``retrograde`` command's built from the same tree."""
    assert retrograde.__version__ == importlib.metadata.version("retrograde")
    assert cli.run("--version").split() == ["retrograde", retrograde.__version__]
    assert "__version__" in retrograde.__all__


@pytest.mark.parametrize("where", [".", "python"])
def test_python_started_in_the_repository_imports_the_installed_package(where):
    """``python`` run from python/ once imported the source folder, which has
    no compiled module (ModuleNotFoundError: retrograde._retrograde)."""
    done = subprocess.run(
        [sys.executable, "-c", "import retrograde; print(retrograde.__file__, retrograde.Tablebase)"],
        cwd=REPO / where,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.split()[0]).resolve() == Path(retrograde.__file__).resolve()


def test_index_out_of_range(tables):
    with Tablebase(tables["subtraction"]) as tb:
        for bad in (21, -1, 2**64, 2**80):
            with pytest.raises(IndexOutOfRangeError, match="out of range") as e:
                tb.probe_index(bad)
            assert isinstance(e.value, IndexError)
        assert tb.probe_index(20).position == "20"


def test_wrong_types(tables):
    with pytest.raises(TypeError):
        Tablebase(5)
    with pytest.raises(ValueError, match="null byte"):
        Tablebase("tables\0.rtb")
    with Tablebase(tables["subtraction"]) as tb:
        for bad in (7, b"7", 7.0):
            with pytest.raises(TypeError):
                tb.probe(bad)
            with pytest.raises(TypeError):
                tb.moves(bad)
        for bad in ("3", 3.0, True, None):
            with pytest.raises(TypeError):
                tb.probe_index(bad)
    with pytest.raises(TypeError):
        Tablebase(tables["subtraction"], True)  # verify is keyword-only


def test_paths_of_every_kind(tables):
    p = tables["subtraction"]
    for arg in (p, str(p), os.fsencode(p)):
        with Tablebase(arg) as tb:
            assert tb.probe("7").value == "lose"
