"""Tests of tools/retrograde.py (standard library only).

    cargo build --release
    RETROGRADE_TABLEBASE=tablebases/isolation-4x4.rtb python3 tools/test_python.py

RETROGRADE_TABLEBASE names an Isolation 4x4 tablebase (default:
tablebases/isolation-4x4.rtb in this repository); RETROGRADE_LIB the library
(default: target/release/). tests/embed.rs runs this under `cargo test`.
"""

import os
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrograde import RTB_ERR_POSITION, RetrogradeError, Tablebase  # noqa: E402

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
        self.assertEqual(self.tb.probe_index(229696), ("win", 7))

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


class Opening(unittest.TestCase):
    def test_missing_file_is_an_error(self):
        with self.assertRaises(RetrogradeError) as caught:
            Tablebase("/nonexistent/none.rtb")
        self.assertIn("cannot open", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
