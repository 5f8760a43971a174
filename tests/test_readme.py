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
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip() == "True"
    from flt_theory.checking import check

    store = tmp_path / "store.sqlite"
    table = check([str(path)], store=store)
    expected = [["mine/he2-plus-he3", "PASS", "rejected", "PASS"]]
    assert table[["claim", "check", "control", "verdict"]].values.tolist() == expected
    assert capsys.readouterr().out == ""  # flt check imports the file: its __main__ verify does not run again

    # the template's comparison can fail on a wrong law of the user's own: n ≍ d³ (and n ≍ d), on the same rows
    from flt_theory.systems.registry import measure

    module = runpy.run_path(str(path))
    frame = measure(module["claim"], "small", store=store)
    assert frame.attrs["computed"] == 0
    d = module["d"]
    verdicts = {str(v): module["claim"].evaluate(frame, module["law"].replace(value=v)).passed for v in (d, d**2, d**3)}
    assert verdicts == {"d": False, "d**2": True, "d**3": False}
