"""The README's "Check your own conjecture" example runs verbatim, as a file and through ``flt check``."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```python\n# my_claims.py\n(.*?)```", text, re.S)
    assert match, "README lost its 'Check your own conjecture' example"
    return match.group(1)


def test_example_is_at_most_20_lines_and_runs(tmp_path, capsys):
    code = _example()
    assert len(code.strip().splitlines()) <= 20
    path = tmp_path / "my_claims.py"
    path.write_text(code, encoding="utf-8")
    runpy.run_path(str(path))
    assert capsys.readouterr().out.strip() == "True"
    from flt_theory.report import check

    table = check([str(path)])
    assert table[["claim", "check", "control", "verdict"]].values.tolist() == [["mine/he2-plus-he3", "PASS", "rejected", "PASS"]]
