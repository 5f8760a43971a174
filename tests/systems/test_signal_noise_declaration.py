"""Signal-noise declaration: discovery, `flt simulate signal-noise` (JSON contract, grid, trajectory, bad options)."""

import json

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import FLTError
from flt_theory.systems import get_system
from flt_theory.systems.signal_noise.simulate import simulate_document

RECORD_KEYS = {"n", "d", "width", "q", "mu_norm", "snr", "eta", "label_noise", "seed", "steps", "train_loss",
               "test_error", "gamma_max", "rho_max", "flipped_fitted"}
STEP_KEYS = {"step", "train_loss", "test_error", "gamma_max", "rho_max", "flipped_fitted"}


def _simulate(*args):
    return CliRunner().invoke(cli, ["simulate", "signal-noise", *args])


def test_system_is_discovered_with_claims_controls_and_figures():
    system = get_system("signal-noise")
    assert len(system.claims) == 9 and system.simulate is not None
    for claim in system.claims:
        assert claim.the_law.source.cite() and claim.the_wrong_law.latex() != claim.the_law.latex()
    assert {f.claim for f in system.figures} >= {"relu-boundary-slope", "relu-growth-slopes", "label-noise-rise",
                                                 "relu-collapse", "relu-exponential-tail"}


def test_simulate_json_grid_and_trajectory():
    result = _simulate("--activation", "relu(z)**3", "--n", "10,12", "--d", "1000000", "--width", "3", "--mu-norm",
                       "300,400", "--eps", "0.05", "--max-steps", "200", "--label-noise", "0.2", "--seeds", "2",
                       "--n-test", "200", "--trajectory", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["system"] == "signal-noise" and len(doc["records"]) == 2 * 2 * 2
    rec = doc["records"][0]
    assert RECORD_KEYS <= set(rec) and rec["q"] == 3 and rec["d"] == 10**6
    assert {(r["n"], r["mu_norm"]) for r in doc["records"]} == {(10, 300.0), (10, 400.0), (12, 300.0), (12, 400.0)}
    assert rec["trajectory"][0]["step"] == 0 and set(rec["trajectory"][-1]) == STEP_KEYS
    assert rec["trajectory"][-1]["step"] == rec["steps"]
    assert rec["eta"] == pytest.approx(0.3 * min(10 * 3 / 1e6, 3 / 300.0**2))


def test_simulate_text_table():
    result = _simulate("--n", "20", "--d", "100000", "--width", "4", "--mu-norm", "50", "--max-steps", "100",
                       "--seeds", "1", "--n-test", "100")
    assert result.exit_code == 0, result.output
    assert "test_error" in result.output and "ReLU^1 CNN" in result.output


@pytest.mark.parametrize("args,option", [
    (["--activation", "tanh"], "--activation"),
    (["--label-noise", "0.5"], "--label-noise"),
    (["--d", "10"], "--d"),
    (["--mu-norm", "0"], "--mu-norm"),
    (["--seeds", "0"], "--seeds"),
    (["--sigma0", "-1"], "--sigma0"),
    (["--eta", "-1"], "--eta"),
    (["--n", "20,x"], "--n"),
])
def test_bad_options_exit_2_with_one_line_naming_the_option(args, option):
    base = {"--n": "20", "--d": "100000", "--mu-norm": "50", "--max-steps": "50", "--seeds": "1", "--n-test": "50"}
    for key, value in zip(args[::2], args[1::2], strict=False):
        base[key] = value
    result = _simulate(*[x for kv in base.items() for x in kv], "--json")
    assert result.exit_code == 2, result.output
    line = [ln for ln in result.output.splitlines() if ln.strip()][-1]
    assert option in line


def test_python_twin_raises_flt_error_naming_the_option():
    with pytest.raises(FLTError, match=r"^--label-noise: "):
        simulate_document(n=[10], d=1000, mu_norm=[1.0], label_noise=0.6)
    with pytest.raises(FLTError, match=r"^--n: "):
        simulate_document(n=[1], d=1000, mu_norm=[1.0])
