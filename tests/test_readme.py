"""The README is a front page whose numbers are the code's, and its examples run as written.

* ``README.md``: at most 200 lines of at most 120 characters; the system and claim counts it states, and the systems
  it names, are those of the registry; its install and test commands are those ``.ci/run`` runs; its five-minute start
  is ``flt tour``, one ``flt verify TARGET`` and one ``flt verify --system ... --law ...``, and the first two run and
  pass (the third is run by ``tests/report/test_verify_law.py``, which also checks the interval the README states);
  every relative link of it points at a file of the repository.
* The "Check your own conjecture" guide's claim file (``docs/guide/conjecture.md``) runs verbatim, as a file and
  through ``flt check``.
"""

from __future__ import annotations

import re
import runpy
import shlex
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CONJECTURE = ROOT / "docs" / "guide" / "conjecture.md"


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section of a Markdown text (up to the next ``## ``)."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"README lost its section {heading!r}"
    return match.group(1)


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)


def test_the_readme_is_a_front_page():
    lines = _readme().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the long material belongs in docs/"
    long = [f"{i}: {len(line)}" for i, line in enumerate(lines, 1) if len(line) > 120]
    assert not long, f"README.md lines longer than 120 characters: {long}"


def test_the_readme_counts_are_the_registry_s():
    from flt_theory.systems.registry import registered_claims, systems

    text = _readme()
    stated = {kind: [int(n) for n in re.findall(rf"\*\*(\d+) {kind}\*\*", text)] for kind in ("systems", "claims")}
    assert stated == {"systems": [len(systems())], "claims": [len(registered_claims())]}, stated
    (paragraph,) = [p for p in text.split("\n\n") if re.search(r"\*\*\d+ systems\*\*", p)]
    named = set(re.findall(r"`([a-z][a-z0-9-]*)`", paragraph))
    assert named == {s.name for s in systems()}, named ^ {s.name for s in systems()}


def test_the_readme_install_and_test_commands_are_those_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = _code_blocks(_section(_readme(), "Install"))[0].split("\n")
    pins = re.findall(r"torch==[\d.]+", ci)
    assert install[0] == f"pip install {pins[0]}" and len(set(pins)) == 1, (install, pins)
    assert install[1] == 'pip install -e ".[test]"' and 'install --quiet -e ".[test]"' in ci
    (command,) = [line for line in _code_blocks(_section(_readme(), "Tests"))[0].splitlines() if line]
    assert command == "python -m pytest -q"
    # .ci/run ends with exactly this command (as python3), under the comment that names it
    assert ci.rstrip().splitlines()[-2:] == ["# README test command:", f"python3 {command[len('python '):]}"]


def _five_minute_start() -> list[list[str]]:
    (block,) = _code_blocks(_section(_readme(), "Five-minute start"))
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def test_the_five_minute_start_is_a_tour_a_target_and_a_law():
    tour, target, law = _five_minute_start()
    assert tour == ["flt", "tour"]
    assert target[:2] == ["flt", "verify"] and len(target) == 3 and not target[2].startswith("-")
    assert law[:3] == ["flt", "verify", "--system"] and "--law" in law


def test_the_five_minute_start_runs(tmp_path, monkeypatch):
    """``flt tour`` and the README's ``flt verify TARGET`` exit 0: every prediction passes and every wrong law is
    rejected, as the README says (about 4-9 s on 2 cores: the simulation is the one the README promises)."""
    import json

    from flt_theory.cli import cli

    monkeypatch.chdir(tmp_path)
    tour, target, _ = _five_minute_start()
    runner = CliRunner()
    shown = runner.invoke(cli, tour[1:])
    assert shown.exit_code == 0 and "Staircase" in shown.output, shown.output
    verified = runner.invoke(cli, [*target[1:], "--json"])
    assert verified.exit_code == 0, verified.output
    document = json.loads(verified.stdout)
    assert document["passed"] and document["predictions"]
    assert all(p["verdict"] == "pass" for p in document["predictions"]), document["predictions"]


def test_the_readme_links_point_at_files():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", _readme())
    assert links, "README.md links to nothing"
    missing = [link for link in links if "://" not in link and not (ROOT / link).is_file()]
    assert not missing, f"README.md links to missing files: {missing}"


def _example() -> str:
    text = CONJECTURE.read_text(encoding="utf-8")
    match = re.search(r"```python\n# my_claims.py\n(.*?)```", text, re.S)
    assert match, "docs/guide/conjecture.md lost its 'A claim of your own' example"
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
