"""Adding a system edits no file of the project: the README's example, written to a throwaway package
outside the repository, is seen by ``flt check --list``, ``flt simulate --help``, ``flt sweep --list``,
``flt claims`` and the report, and its claim passes with its control rejected."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.systems import registry

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def throwaway(tmp_path_factory, monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```python\n# my_lab/coin/declaration.py\n(.*?)```", readme, re.S)
    assert match, "README section 'Adding a system' lost its example"
    base = tmp_path_factory.mktemp("lab")
    (base / "my_lab" / "coin").mkdir(parents=True)
    (base / "my_lab" / "__init__.py").write_text("")
    (base / "my_lab" / "coin" / "__init__.py").write_text("")
    (base / "my_lab" / "coin" / "declaration.py").write_text(match.group(1))
    monkeypatch.setenv("FLT_THEORY_SYSTEMS", "my_lab.coin.declaration")
    monkeypatch.syspath_prepend(str(base))
    registry.reset()
    yield base, None
    registry.reset()  # forget the throwaway system
    for name in [m for m in sys.modules if m == "my_lab" or m.startswith("my_lab.")]:
        del sys.modules[name]


def _flt(env, *args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_the_new_system_is_everywhere(throwaway, tmp_path):
    base, env = throwaway
    listed = _flt(env, "check", "--list")
    assert listed.exit_code == 0 and "coin/fair" in listed.stdout and "giant-step/norm-law" in listed.stdout
    assert "coin" in _flt(env, "simulate", "--help").stdout
    assert "coin/heads" in _flt(env, "sweep", "--list").stdout
    claims = json.loads(_flt(env, "claims", "--json").stdout)
    assert any(c["key"] == "coin/fair" and c["wrong_law"] == "heads → 0.6" for c in claims)
    run = _flt(env, "check", "coin", "--report", str(tmp_path / "report"), "--json")
    assert run.exit_code == 0, run.output
    document = json.loads(run.stdout)
    (row,) = document["claims"]
    assert row["claim"] == "coin/fair" and row["check"] == "PASS" and row["control"] == "rejected"
    assert "coin/fair" in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    simulated = json.loads(_flt(env, "simulate", "coin", "--n", "10", "--seeds", "3", "--json").stdout)
    assert simulated["system"] == "coin" and len(simulated["records"]) == 3
    bad = _flt(env, "simulate", "coin", "--n", "0")
    assert bad.exit_code == 2 and bad.output.count("\n") == 1 and "--n" in bad.output


def test_a_second_check_reuses_the_stored_measurement(throwaway, tmp_path):
    base, env = throwaway
    store = str(tmp_path / "m.sqlite")
    first = json.loads(_flt(env, "check", "coin", "--no-report", "--store", store, "--json").stdout)
    again = json.loads(_flt(env, "check", "coin", "--no-report", "--store", store, "--json").stdout)
    fresh = json.loads(_flt(env, "check", "coin", "--no-report", "--store", store, "--fresh", "--json").stdout)
    assert first["claims"][0]["computed"] == 8 and again["claims"][0]["computed"] == 0
    assert again["claims"][0]["reused"] == 8 and fresh["claims"][0]["computed"] == 8
    assert first["claims"][0]["measured"] == again["claims"][0]["measured"] == fresh["claims"][0]["measured"]
    shifted = json.loads(_flt(env, "check", "coin", "--no-report", "--store", store, "--seed-base", "1000",
                              "--json").stdout)
    assert shifted["claims"][0]["seeds"] == list(range(1000, 1008)) and shifted["claims"][0]["computed"] == 8
