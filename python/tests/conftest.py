"""Fixtures: small tablebases written by the command-line tool, and that
tool's own answers (``retrograde probe --json --moves``), an independent path
to the same files that the bindings are checked against.

RETROGRADE_BIN names the `retrograde` binary (default: target/release/retrograde
in this repository, built by ``cargo build --release``). A missing binary is
an error, not a skip: these tests have nothing to compare against without it.
"""

import json
import os
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]

# name -> (game spec, extra `solve` options)
TABLES = {
    "isolation": ("isolation:3x3", []),
    "isolation_folded": ("isolation:3x3", ["--fold"]),
    "subtraction": ("subtraction:20:1,3,4", []),
    "cram_nimbers": ("cram:3x3", ["--nimbers"]),
    "dodgem": ("dodgem:3", []),
}


def retrograde_bin() -> Path:
    env = os.environ.get("RETROGRADE_BIN")
    path = Path(env) if env else REPO / "target" / "release" / "retrograde"
    if not path.is_file():
        raise RuntimeError(
            f"no retrograde binary at {path}: run `cargo build --release` "
            "or set RETROGRADE_BIN"
        )
    return path


class Cli:
    """Runs the command-line tool."""

    def __init__(self, binary: Path):
        self.binary = binary

    def run(self, *args: str, stdin: Optional[str] = None) -> str:
        done = subprocess.run(
            [str(self.binary), *args],
            input=stdin,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def probe(self, table: Path, positions: List[str]) -> List[Dict]:
        """`probe --json --moves` of each position (read from stdin), in order."""
        out = self.run(
            "probe", str(table), "-", "--json", "--moves", stdin="\n".join(positions) + "\n"
        )
        answers = [json.loads(line) for line in out.splitlines()]
        assert len(answers) == len(positions)
        return answers

    def start(self, table: Path) -> Dict:
        return json.loads(self.run("probe", str(table), "--json", "--moves"))

    def reachable(self, table: Path) -> Dict[str, Dict]:
        """Every position reachable from the start, found by walking the CLI's
        own move lists (breadth first): position text -> its JSON answer."""
        start = self.start(table)
        seen = {start["position"]: start}
        frontier = [start]
        while frontier:
            children = sorted(
                {m["position"] for p in frontier for m in p["moves"]} - seen.keys()
            )
            if not children:
                break
            frontier = self.probe(table, children)
            for child, answer in zip(children, frontier):
                assert "error" not in answer, answer
                seen[child] = answer
        return seen


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(retrograde_bin())


@pytest.fixture(scope="session")
def tables(cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """The tables of TABLES, solved once per session into a temporary directory."""
    root = tmp_path_factory.mktemp("tables")
    paths = {}
    for name, (spec, options) in TABLES.items():
        path = root / f"{name}.rtb"
        cli.run("solve", spec, "-o", str(path), "--no-checkpoint", "--threads", "1", *options)
        paths[name] = path
    return paths


@pytest.fixture(scope="session")
def dodgem4(cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dodgem:4 (555,986 entries): the smallest Dodgem with drawn positions."""
    path = tmp_path_factory.mktemp("dodgem4") / "dodgem-4.rtb"
    cli.run("solve", "dodgem:4", "-o", str(path), "--no-checkpoint", "--threads", "1")
    return path


@pytest.fixture(scope="session")
def reachable(cli: Cli, tables: Dict[str, Path]) -> Dict[str, Dict[str, Dict]]:
    """For each table, the CLI's answers for every position reachable from the start."""
    return {name: cli.reachable(path) for name, path in tables.items()}
