"""Tests of the C ABI example examples/ctypes_probe.py (standard library only).

    cargo build --release
    RETROGRADE_TABLEBASE=tablebases/isolation-4x4.rtb python3 examples/test_ctypes_probe.py

RETROGRADE_TABLEBASE names an Isolation 4x4 tablebase (default:
tablebases/isolation-4x4.rtb in this repository); RETROGRADE_LIB the library
(default: target/release/). tests/files/embed.rs runs this under `cargo test`.
"""

import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ctypes_probe import (  # noqa: E402
    RTB_ERR_FILE,
    RTB_ERR_POSITION,
    RTB_ERR_RANGE,
    RTB_ERR_UTF8,
    RetrogradeError,
    Tablebase,
)

TABLE = os.environ.get(
    "RETROGRADE_TABLEBASE",
    str(Path(__file__).resolve().parent.parent / "tablebases" / "isolation-4x4.rtb"),
)


class IsolationFourByFour(unittest.TestCase):
    def setUp(self):
        if not Path(TABLE).exists() and "RETROGRADE_TABLEBASE" not in os.environ:
            self.skipTest(f"no tablebase at {TABLE}: run `retrograde solve isolation:4x4`")
        self.tb = Tablebase(TABLE)

    def tearDown(self):
        if hasattr(self, "tb"):
            self.tb.close()

    def test_header(self):
        self.assertEqual(self.tb.entries, 3_932_160)
        self.assertEqual(self.tb.game_spec, "isolation:4x4:a=1,b=14")

    def test_start_is_a_win_in_11(self):
        self.assertEqual(self.tb.probe(), ("win", 11))
        self.assertEqual(self.tb.probe(".0../..../..../..1."), ("win", 11))

    def test_published_positions(self):
        self.assertEqual(self.tb.probe("0.../...x/.x../...1"), ("win", 7))
        self.assertEqual(self.tb.probe("0.../x.x./.1../...."), ("lose", 8))
        self.assertEqual(self.tb.probe_index(4908), ("win", 7))

    def test_only_winning_first_move_is_2x10(self):
        moves = self.tb.best_moves()
        self.assertEqual(len(moves), 70)
        self.assertEqual(
            moves[0],
            {
                "move": "2x10",
                "position": "..0./..../..x./..1.",
                "value": "win",
                "remoteness": 10,
                "best": True,
            },
        )
        self.assertEqual([m["move"] for m in moves if m["value"] == "win"], ["2x10"])
        self.assertEqual(sum(m["best"] for m in moves), 1)

    def test_best_line_lasts_11_moves(self):
        position, steps = None, 0
        while True:
            moves = self.tb.best_moves(position)
            if not moves:
                break
            self.assertTrue(moves[0]["best"])
            self.assertEqual(moves[0]["remoteness"], 10 - steps)
            position, steps = moves[0]["position"], steps + 1
        self.assertEqual(steps, 11)
        self.assertEqual(self.tb.probe(position), ("lose", 0))

    def test_bad_position_is_an_error_with_a_message(self):
        with self.assertRaises(RetrogradeError) as caught:
            self.tb.probe("0..x")
        self.assertEqual(caught.exception.code, RTB_ERR_POSITION)
        self.assertIn("bad position '0..x'", str(caught.exception))
        with self.assertRaises(RetrogradeError):
            self.tb.best_moves("0.../..../..../....")
        with self.assertRaises(RetrogradeError):
            self.tb.probe_index(self.tb.entries)

    def test_closed_tablebase_refuses(self):
        with Tablebase(TABLE) as tb:
            self.assertEqual(tb.probe()[0], "win")
        with self.assertRaises(ValueError):
            tb.probe()
        tb.close()  # closing twice is harmless


class Arguments(unittest.TestCase):
    """Arguments C would misread are refused before they reach it."""

    def setUp(self):
        if not Path(TABLE).exists() and "RETROGRADE_TABLEBASE" not in os.environ:
            self.skipTest(f"no tablebase at {TABLE}: run `retrograde solve isolation:4x4`")
        self.tb = Tablebase(TABLE)

    def tearDown(self):
        if hasattr(self, "tb"):
            self.tb.close()

    def test_an_index_is_never_wrapped_modulo_2_64(self):
        self.assertEqual(self.tb.probe_index(4908), ("win", 7))
        for index in (2**64, 2**64 + 4908, 2**200, -1, -(2**64) + 4908):
            with self.assertRaises(IndexError) as caught:
                self.tb.probe_index(index)
            self.assertIsInstance(caught.exception, RetrogradeError)
            self.assertEqual(caught.exception.code, RTB_ERR_RANGE)
            self.assertIn(f"index {index} is out of range", str(caught.exception))
        # At or past the entries the library says so, as the same exception class.
        with self.assertRaises(IndexError) as caught:
            self.tb.probe_index(self.tb.entries)
        self.assertIn("the table has 3932160 entries", str(caught.exception))

    def test_an_index_must_be_an_int(self):
        for index in ("4908", 4908.0, None, True, b"1"):
            with self.assertRaises(TypeError):
                self.tb.probe_index(index)

    def test_a_nul_in_a_position_is_refused(self):
        with self.assertRaises(ValueError) as caught:
            self.tb.probe("0.../...x/.x../...1\0junk")
        self.assertIn("embedded null byte", str(caught.exception))
        with self.assertRaises(ValueError):
            self.tb.best_moves("0.../...x/.x../...1\0")
        self.assertEqual(self.tb.probe("0.../...x/.x../...1"), ("win", 7))

    def test_a_lone_surrogate_is_the_librarys_error(self):
        # It was a UnicodeEncodeError from Python's encoder.
        with self.assertRaises(RetrogradeError) as caught:
            self.tb.probe("0.../...x/\ud800.../...1")
        self.assertEqual(caught.exception.code, RTB_ERR_UTF8)
        self.assertIn("not valid UTF-8", str(caught.exception))
        with self.assertRaises(RetrogradeError) as caught:
            Tablebase(TABLE + "\ud800")
        self.assertEqual(caught.exception.code, RTB_ERR_FILE)
        self.assertIn("cannot open", str(caught.exception))

    def test_a_position_must_be_a_str(self):
        for position in (b"0.../...x/.x../...1", 7, ["0..."]):
            with self.assertRaises(TypeError):
                self.tb.probe(position)
            with self.assertRaises(TypeError):
                self.tb.best_moves(position)

    def test_a_nul_in_a_path_is_refused(self):
        for path in (TABLE + "\0xyz", os.fsencode(TABLE) + b"\0", Path(TABLE + "\0")):
            with self.assertRaises(ValueError) as caught:
                Tablebase(path)
            self.assertIn("embedded null byte", str(caught.exception))
        with self.assertRaises(TypeError):
            Tablebase(12)
        # bytes and PathLike paths without a NUL work, as with open().
        with Tablebase(os.fsencode(TABLE)) as tb:
            self.assertEqual(tb.probe(), ("win", 11))


class ChangedFiles(unittest.TestCase):
    """A copy of the table, damaged while open or before."""

    def setUp(self):
        if not Path(TABLE).exists() and "RETROGRADE_TABLEBASE" not in os.environ:
            self.skipTest(f"no tablebase at {TABLE}: run `retrograde solve isolation:4x4`")
        self.dir = tempfile.TemporaryDirectory()
        self.copy = os.path.join(self.dir.name, "copy.rtb")
        shutil.copyfile(TABLE, self.copy)

    def tearDown(self):
        if hasattr(self, "dir"):
            self.dir.cleanup()

    def test_truncated_while_open_raises_and_the_interpreter_survives(self):
        with Tablebase(self.copy) as tb:
            self.assertEqual(tb.probe("0.../...x/.x../...1"), ("win", 7))
            os.truncate(self.copy, 4096)
            with self.assertRaises(RetrogradeError) as caught:
                tb.probe("0.../...x/.x../...1")
            self.assertEqual(caught.exception.code, RTB_ERR_FILE)
            self.assertIn("changed or shrank while open", str(caught.exception))
            with self.assertRaises(RetrogradeError):
                tb.best_moves()

    def test_verify_refuses_a_flipped_data_byte(self):
        with open(self.copy, "r+b") as f:
            f.seek(4096 + 4908)
            byte = f.read(1)[0]
            f.seek(4096 + 4908)
            f.write(bytes([byte ^ 1]))
        # The header check alone answers from the damaged cell: the low bit
        # of a cell is its remoteness's.
        with Tablebase(self.copy) as tb:
            self.assertEqual(tb.probe_index(4908), ("win", 6))
        for mmap in (False, True):
            with self.assertRaises(RetrogradeError) as caught:
                Tablebase(self.copy, verify=True, mmap=mmap)
            self.assertEqual(caught.exception.code, RTB_ERR_FILE)
            self.assertIn("data checksum mismatch", str(caught.exception))

    def test_mmap_and_verify_answer_the_same(self):
        for kwargs in ({"mmap": True}, {"verify": True}, {"mmap": True, "verify": True}):
            with Tablebase(self.copy, **kwargs) as tb:
                self.assertEqual(tb.probe(), ("win", 11), kwargs)
                self.assertEqual(tb.probe_index(4908), ("win", 7), kwargs)


class Opening(unittest.TestCase):
    def test_missing_file_is_an_error(self):
        with self.assertRaises(RetrogradeError) as caught:
            Tablebase("/nonexistent/none.rtb")
        self.assertIn("cannot open", str(caught.exception))

    @unittest.skipUnless(os.path.exists("/dev/zero"), "no /dev/zero")
    def test_a_device_is_named(self):
        with self.assertRaises(RetrogradeError) as caught:
            Tablebase("/dev/zero")
        self.assertIn("is a character device, not a tablebase file", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
