"""Adding a system edits no file of the project: the example of the "Adding a system" guide, written to a throwaway
package outside the repository, is seen by ``flt check --list``, ``flt simulate --help``, ``flt sweep --list``,
``flt claims`` and the report, its claim passes with its control rejected, and its own test (``check_system``, the
contract of every in-tree system) passes.

Each check of :func:`flt_theory.testing.check_system` can fail: deliberately broken copies of the example (a control
that passes, a config that accepts an invalid value, a seed that is not honoured or that depends on its batch, a
check that does not read its law, a law that states no hypotheses, ``torch`` in ``laws.py``, a system that is not
discovered) are each reported by the check that catches them, naming it and the claim."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.systems import registry
from flt_theory.testing import SystemCheckError, check_catalogue_entry, check_system

ROOT = Path(__file__).resolve().parent.parent


def _readme_block(name: str) -> str:
    """The example ``name`` of the "Adding a system" guide (``docs/guide/adding-a-system.md``)."""
    guide = (ROOT / "docs" / "guide" / "adding-a-system.md").read_text(encoding="utf-8")
    match = re.search(rf"```python\n# {re.escape(name)}\n(.*?)```", guide, re.S)
    assert match, f"docs/guide/adding-a-system.md lost its example {name}"
    return match.group(1)


def _lab(base: Path, modules: dict[str, str], monkeypatch) -> None:
    """Write the guide's coin (and ``modules``: dotted name -> source) under ``base`` and discover them."""
    (base / "my_lab" / "coin").mkdir(parents=True)
    (base / "my_lab" / "__init__.py").write_text("")
    (base / "my_lab" / "coin" / "__init__.py").write_text("")
    (base / "my_lab" / "coin" / "declaration.py").write_text(_readme_block("my_lab/coin/declaration.py"))
    (base / "my_lab" / "coin" / "test_coin.py").write_text(_readme_block("my_lab/coin/test_coin.py"))
    for name, source in modules.items():
        path = base.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(textwrap.dedent(source))
    declarations = ["my_lab.coin.declaration", *(m for m in modules if m.endswith(".declaration"))]
    monkeypatch.setenv("FLT_THEORY_SYSTEMS", ",".join(declarations))
    monkeypatch.syspath_prepend(str(base))
    registry.reset()


def _forget() -> None:
    registry.reset()  # forget the throwaway systems
    for name in [m for m in sys.modules if m == "my_lab" or m.startswith("my_lab.")]:
        del sys.modules[name]


@pytest.fixture
def throwaway(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("lab")
    _lab(base, {}, monkeypatch)
    yield base, None
    _forget()


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


def test_its_own_test_runs_the_contract(throwaway, tmp_path):
    """The guide's ``my_lab/coin/test_coin.py`` passes: ``check_system`` runs every check, each once per claim."""
    from my_lab.coin import test_coin

    test_coin.test_coin_keeps_the_contract()
    outcomes = check_system("coin", store=tmp_path / "m.sqlite")
    assert outcomes["check_layers[coin]"].startswith("skipped: ")  # its folder has no laws.py nor model.py
    assert {k: v for k, v in outcomes.items() if k != "check_layers[coin]"} == {
        f"{check}[{subject}]": "passed" for check, subject in [
            ("check_declaration", "coin"), ("check_params", "coin"), ("check_claim_declaration", "coin/fair"),
            ("check_hypotheses", "coin/fair"), ("check_catalogue_entry", "coin/fair"), ("check_seeds", "coin/fair"),
            ("check_control", "coin/fair"), ("check_mutated_law", "coin/fair")]}


# ----------------------------------------------------------------------------------------------
# each check can fail: broken copies of the example

#: A broken copy of the coin: ``{name}`` is its system's name, ``{body}`` what it changes, ``{system}`` the fields of
#: ``dataclasses.replace`` on the coin's SYSTEM (``claim``: the coin's claim, ``measurement``: its measurement).
TEMPLATE = '''
import dataclasses

import numpy as np
import sympy as sp
from flt_theory.compare import check_at_least, check_at_most
from flt_theory.compare.result import all_of
from flt_theory.runner import experiment
from my_lab.coin import declaration as coin

claim, measurement = coin.SYSTEM.claims[0], coin.SYSTEM.claims[0].measurement
{body}
SYSTEM = dataclasses.replace(coin.SYSTEM, name="{name}", simulate=None, {system})
'''

BROKEN = {
    # the control passes: a wrong law too close to the law for the measurement to tell them apart
    "control_passes": ("check_control", "control-passes/fair", "",
                       "claims=[dataclasses.replace(claim, wrong_law=lambda: coin.law().replace("
                       "value=sp.Rational(500001, 1000000)))]"),
    # the seed is not honoured: every seed draws the same numbers
    "seedless": ("check_seeds", "seedless/fair", '''
@experiment("seedless/heads", batched=True, params=coin.PARAMS)
def heads(params, seeds):
    return [{"frequency": np.random.default_rng(0).binomial(params["n"], params["p"]) / params["n"]} for s in seeds]
''', 'experiments=("seedless/heads",), claims=[dataclasses.replace(claim, measurement=dataclasses.replace('
     'measurement, experiment="seedless/heads"))]'),
    # a seed's numbers depend on its batch: one generator for the whole batch, seeded by its first seed
    "batch_stream": ("check_seeds", "batch-stream/fair", '''
@experiment("batch-stream/heads", batched=True, params=coin.PARAMS)
def heads(params, seeds):
    rng = np.random.default_rng(seeds[0])
    return [{"frequency": rng.binomial(params["n"], params["p"]) / params["n"]} for s in seeds]
''', 'experiments=("batch-stream/heads",), claims=[dataclasses.replace(claim, measurement=dataclasses.replace('
     'measurement, experiment="batch-stream/heads"))]'),
    # a check that barely reads its law: a tolerance of 0.6 catches the control (0.6 -> 5) but no mutant (x2, x0.5)
    "deaf": ("check_mutated_law", "deaf/fair", '''
def compare(frame, law):
    freq, p = frame["frequency"].to_numpy(), law.number()
    return all_of("frequency of heads", p, [check_at_least(freq, p - 0.6), check_at_most(freq, p + 0.6)])
''', "claims=[dataclasses.replace(claim, compare=compare, wrong_law=lambda: coin.law().replace(value=5))]"),
    # a theorem that states no hypotheses and does not say why
    "unstated": ("check_hypotheses", "unstated/fair", "",
                 "claims=[dataclasses.replace(claim, law=lambda: coin.law().replace(hypotheses=(), "
                 "hypotheses_reading=''), wrong_law=lambda: coin.law().replace(hypotheses=(), hypotheses_reading='', "
                 "value=sp.Rational(6, 10)))]"),
    # a config whose __post_init__ forgets PARAMS.validate(self): it accepts n = 0 (my_lab/lax/model.py)
    "lax": ("check_params", "TossConfig:n", "", "claims=[claim]"),
    # laws.py imports torch (my_lab/impure/laws.py)
    "impure": ("check_layers", "impure", "", "claims=[claim]"),
}

EXTRA = {
    "my_lab.lax.model": '''
        from dataclasses import dataclass

        from flt_theory.runner import Param, Params

        PARAMS = Params(Param("n", "int", minimum=1, default=100, unit="count", help="Tosses per seed."))


        @dataclass(frozen=True)
        class TossConfig:
            n: int = 100

            def __post_init__(self):
                pass  # PARAMS.validate(self) forgotten
        ''',
    "my_lab.impure.laws": "import torch  # a law needs no tensor\n",
}


@pytest.fixture
def broken_lab(tmp_path, monkeypatch):
    modules = {f"my_lab.{package}.declaration": TEMPLATE.format(name=package.replace("_", "-"), body=body,
                                                                 system=system)
               for package, (_, _, body, system) in BROKEN.items()}
    _lab(tmp_path / "lab", {**modules, **EXTRA}, monkeypatch)
    yield tmp_path / "m.sqlite"
    _forget()


@pytest.mark.parametrize("package", list(BROKEN))
def test_each_check_can_fail(broken_lab, package):
    check, subject, _, _ = BROKEN[package]
    assert registry.load_errors() == {}
    with pytest.raises(SystemCheckError, match=re.escape(f"{check}[{subject}]: ")) as info:
        check_system(package.replace("_", "-"), store=broken_lab)
    assert isinstance(info.value, AssertionError)
    print(info.value)


def test_a_system_that_is_not_discovered_fails_its_declaration(throwaway):
    ghost = dataclasses.replace(registry.get_system("coin"), name="ghost")
    with pytest.raises(SystemCheckError, match=r"check_declaration\[ghost\]: system 'ghost' is not discovered"):
        check_system(ghost)


def test_a_claim_missing_from_the_catalogue_fails_its_entry(throwaway):
    claim = registry.get_claim("coin/fair")
    with pytest.raises(SystemCheckError, match=r"check_catalogue_entry\[coin/fair\]: the catalogue holds 0 entries"):
        check_catalogue_entry(claim, entries=[])
