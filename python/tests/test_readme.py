"""The guide's Python example (docs/python.md) runs as written."""

import os
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_the_readme_example_runs(tmp_path):
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(blocks[0], "docs/python.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "reports" / "poisson60_pyamg" / "report.json").exists()
