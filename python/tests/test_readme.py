"""The Python examples of README.md and docs/EMBEDDING.md, run as written,
print the output shown under them (the ``text`` block that follows the
``python`` block starting with ``import retrograde``), in a directory whose
``tablebases/isolation-4x4.rtb`` the command-line tool solved."""

import re
import subprocess
import sys
from pathlib import Path
from typing import Tuple

import pytest

from conftest import REPO, Cli

DOCS = ["README.md", "docs/EMBEDDING.md"]


def example(doc: str) -> Tuple[str, str]:
    text = (REPO / doc).read_text(encoding="utf-8")
    found = re.search(
        r"```python\n(import retrograde\n.*?)```\s*```text\n(.*?)```", text, re.S
    )
    assert found, f"{doc}: no ```python block starting `import retrograde` followed by its output"
    return found.group(1), found.group(2)


@pytest.fixture(scope="module")
def workdir(cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("examples")
    (root / "tablebases").mkdir()
    table = root / "tablebases" / "isolation-4x4.rtb"
    cli.run("solve", "isolation:4x4", "-o", str(table), "--no-checkpoint")
    return root


@pytest.mark.parametrize("doc", DOCS)
def test_python_example_prints_what_the_doc_shows(doc: str, workdir: Path):
    code, shown = example(doc)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=workdir, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
