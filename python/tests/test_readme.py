"""README.md's Python example, run as written, prints the output shown under
it (the ``text`` block that follows the ``python`` block starting with
``import retrograde``)."""

import re
import subprocess
import sys
from typing import Tuple

from conftest import REPO, Cli


def example() -> Tuple[str, str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(
        r"```python\n(import retrograde\n.*?)```\s*```text\n(.*?)```", text, re.S
    )
    assert found, "README.md: no ```python block starting `import retrograde` followed by its output"
    return found.group(1), found.group(2)


def test_readme_example_prints_what_the_readme_shows(cli: Cli, tmp_path):
    code, shown = example()
    (tmp_path / "tablebases").mkdir()
    table = tmp_path / "tablebases" / "isolation-4x4.rtb"
    cli.run("solve", "isolation:4x4", "-o", str(table), "--no-checkpoint")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
