"""``flt check``: the verdict table (golden structure), the report folder, path resolution, exit codes."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from flt_theory.commands.check import check_command
from flt_theory.commands.sweep import parse_param, sweep_command
from flt_theory.compare.result import CheckResult
from flt_theory.report import (
    COLUMNS,
    check,
    comparisons,
    format_table,
    resolve_claims,
    run_check,
)
from flt_theory.runner.errors import UnknownClaimPathError

ROOT = Path(__file__).resolve().parents[2]
CHEAP = ["giant-step/norm-law", "giant-step/rank-one-update"]

pytestmark = pytest.mark.xdist_group("runner_check")  # one worker runs the module's check once


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    return check(CHEAP, scale="small", report_dir=directory), directory


def test_verdict_table_golden_structure(report):
    table, _ = report
    assert list(table.columns) == [
        "claim", "law", "status", "predicted", "measured", "ci", "n_seeds", "seeds", "check", "control", "verdict",
        "passed", "level", "p_check", "p_control", "seconds", "computed", "reused", "wrong_law", "message",
        "control_message", "in_hypotheses", "scope", "effective", "limit", "ladder",
    ] == list(COLUMNS)
    assert table.seeds.tolist()[0] == list(range(64))  # the norm law runs on 64 seeds
    assert table.claim.tolist() == CHEAP
    assert table[["check", "control", "verdict"]].values.tolist() == [["PASS", "rejected", "PASS"]] * 2
    assert table.passed.all() and table.attrs["passed"]
    assert table.predicted.tolist()[0] == "(1, -1)" and len(table.measured[0]) == 2 and len(table.ci[0]) == 2
    text = format_table(table).splitlines()
    assert text[0].split() == ["claim", "law", "(in", "words)", "predicted", "measured", "[95%", "CI]", "verdict",
                               "negative", "control", "hypotheses"]
    assert text[1].startswith("giant-step/norm-law") and text[1].split()[-3:] == ["PASS", "rejected", "inside"]


def test_report_folder(report):
    _, directory = report
    names = sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())
    assert names == [".flt-report", "figures/giant-step--norm-law-ladder.png", "figures/giant-step--norm-law.png",
                     "figures/giant-step--rank-one-update.png", "report.html", "report.md",
                     "results.json"]  # .flt-report: the folder is flt check's report; -ladder: the norm law's ladder
    md = (directory / "report.md").read_text()
    assert "**2/2 claims pass.**" in md and "| claim | law (in words) | predicted |" in md
    assert r"\|w_i^1\|^2" in md or "\\|" in md  # the law's LaTeX
    assert "![each estimate with its 95% CI" in md and "(figures/giant-step--norm-law.png)" in md
    assert "(figures/giant-step--norm-law-ladder.png)" in md
    assert "<img src='figures/giant-step--rank-one-update.png'" in (directory / "report.html").read_text()
    results = json.loads((directory / "results.json").read_text())
    assert [c["claim"] for c in results["claims"]] == CHEAP and results["provenance"]["flt_version"]
    for png in directory.glob("figures/*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_resolve_paths():
    assert [c.key for c in resolve_claims(["giant-step/norm-law", "giant-step/norm-law"])] == ["giant-step/norm-law"]
    derivation = ROOT / "derivations" / "derive_giant_step_leap2.py"
    assert [c.key for c in resolve_claims([str(derivation)])] == [
        "giant-step/leap2-threshold", "giant-step/vanishing-student-coefficient"]
    everything = resolve_claims(None)
    assert len(everything) >= 10
    assert {c.key for c in resolve_claims([str(ROOT / "derivations")])} == {c.key for c in everything}
    assert resolve_claims(["giant-step"]) == [c for c in everything if c.system == "giant-step"]
    with pytest.raises(UnknownClaimPathError, match="'giant-step/nope' is not a registered claim key.*Did you mean"):
        resolve_claims(["giant-step/nope"])


def test_a_python_file_of_the_user_is_imported(tmp_path):
    """flt check my_claims.py runs the user's own code, like pytest: its Claim objects are selected."""
    mine = tmp_path / "my_claims.py"
    mine.write_text(
        "from flt_theory.systems import get_claim\n"
        "import dataclasses\n"
        "CLAIMS = [dataclasses.replace(get_claim('giant-step/rank-one-update'), system='', name='my-spike')]\n")
    (claim,) = resolve_claims([str(mine)])
    assert claim.key == "my_claims/my-spike" and claim.measurement.experiment == "giant-step/spike"


def test_derivation_file_without_claims(tmp_path):
    bad = tmp_path / "derive_nothing.py"
    bad.write_text("X = 1\n")
    with pytest.raises(UnknownClaimPathError, match="defines no CLAIMS"):
        resolve_claims([str(bad)])
    bad.write_text('CLAIMS = ["giant-step/not-registered"]\n')
    with pytest.raises(UnknownClaimPathError, match="names the claim 'giant-step/not-registered'"):
        resolve_claims([str(bad)])


def test_cli_unknown_path_exit_2_and_nothing_written(tmp_path):
    result = CliRunner().invoke(check_command, ["giant-step/nope", "--report", str(tmp_path / "rep")])
    assert result.exit_code == 2
    assert "PATHS: 'giant-step/nope' is not a registered claim key" in result.output
    assert not (tmp_path / "rep").exists()


def test_cli_attached_to_flt_group(tmp_path):
    from flt_theory.cli import cli

    group = type(cli)("flt", commands={"check": check_command, "sweep": sweep_command})
    runner = CliRunner()
    ok = runner.invoke(group, ["check", "giant-step/rank-one-update", "--no-report", "--json"], env={"CI": "true"})
    assert ok.exit_code == 0, ok.output
    document = json.loads(ok.output)
    assert document["passed"] is True and document["claims"][0]["verdict"] == "PASS"
    bad = runner.invoke(group, ["check", "derivations/nope.py"])
    assert bad.exit_code == 2 and "flt: error: PATHS:" in bad.output


def test_failing_claim_exits_1_and_error_is_a_row(monkeypatch, capsys):
    from flt_theory.systems.declaration import Claim, ClaimVerdict

    real_verdict = Claim.verdict

    def fake_verdict(self, frame):
        if self.name == "rank-one-update":
            raise RuntimeError("simulated crash")
        verdict = real_verdict(self, frame)
        return ClaimVerdict(claim=self, check=verdict.check, control=verdict.check)  # the "control" passes: no power

    monkeypatch.setattr(Claim, "verdict", fake_verdict)
    code = run_check(CHEAP, "small", None)
    out = capsys.readouterr().out
    assert code == 1
    assert "0/2 claims pass" in out and "ERROR giant-step/rank-one-update: RuntimeError: simulated crash" in out
    assert "INCONCLUSIVE giant-step/norm-law" in out and "NOT rejected" in out  # the wrong law passes too: no power


def test_comparisons_read_every_check_kind():
    eq = CheckResult("t", True, 1.0, 1.1, (0.9, 1.3), 8, "m", {"tolerance": 0.25})
    learned = CheckResult("U", True, "mass on U >= 0.1, ...", 0.4, (0.3, 0.5), 8, "m", {"threshold": 0.1})
    bound = CheckResult("b", True, "<= 2", 1.0, (0.5, 1.5), 8, "m", {"bound": 2.0})
    order = CheckResult("o", True, "strictly decreasing", (0.5, 0.2), ((0.4, 0.6), (0.1, 0.3)), 8, "m")
    conj = CheckResult("all", True, "x", (1.1, 0.4), ((0.9, 1.3), (0.3, 0.5)), 8, "m",
                       {"parts": [eq.to_dict(), learned.to_dict()]})
    assert [(c.relation, c.predicted) for c in comparisons(eq)] == [("=", 1.0)]
    assert [(c.relation, c.predicted) for c in comparisons(learned)] == [(">=", 0.1)]
    assert [(c.relation, c.predicted) for c in comparisons(bound)] == [("<=", 2.0)]
    assert [(c.relation, c.predicted) for c in comparisons(order)] == [(">", 0.0), (">", 0.0)]
    assert [c.label for c in comparisons(conj)] == ["t", "U"]


def test_parse_param():
    assert parse_param("d=64,128") == ("d", [64, 128])
    assert parse_param("kappa=[1, 1.5]") == ("kappa", [1, 1.5])


def test_attaching_the_commands_keeps_flt_light():
    import subprocess
    import sys

    code = ("import sys, flt_theory.cli, flt_theory.commands.check; "
            "print(sorted(m for m in ('torch', 'pandas', 'matplotlib') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"


def test_one_pool_serves_every_measurement_of_a_run(monkeypatch, counted_backends):
    """With jobs > 1, run_claims starts one backend for the whole run (a pool per measurement started its workers
    again each time, about 2.5 s with 2 jobs), hands it to every measurement and closes it at the end."""
    import importlib

    from flt_theory.runner import executors
    from flt_theory.systems import get_claim

    check_module = importlib.import_module("flt_theory.checking.check")
    make, made, closed = counted_backends
    monkeypatch.setattr(executors, "make_backend", make)
    claims = [get_claim(k) for k in ("giant-step/rank-one-update", "giant-step/second-layer-bounds")]
    runs = check_module.run_claims(claims, "small", jobs=2, progress=False)
    assert len(made) == 1 and closed == made and all(run["error"] is None for run in runs)
