"""Rich display through IPython's formatters, the paper-ready LaTeX tables of ``flt check`` / ``flt verify``, the
progress lines and the reuse count of ``flt check``, and the newcomer fixes of ``flt verify`` / ``flt simulate``.

A two-claim file of the user's own (a fair coin, the "Adding a system" guide's example) keeps every run cheap; its
system name and claim names hold LaTeX specials (``_ & % #``) so the escaping is exercised."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli

formatters = pytest.importorskip("IPython.core.formatters", reason="IPython is not installed: no display formatters")

COIN = '''
import numpy as np
import sympy as sp
from flt_theory import Law, Source
from flt_theory.compare import all_of, check_at_least, check_at_most
from flt_theory.runner import experiment
from flt_theory.systems import Claim, Measurement

SOURCE = Source(authors="Bernoulli", year=1713, title="Ars Conjectandi")

@experiment("display-test/heads", batched=True, types={"n": int, "p": float})
def heads(params, seeds):
    return [{"frequency": np.random.default_rng(s).binomial(params["n"], params["p"]) / params["n"]} for s in seeds]

def law():
    return Law(name="frequency", lhs=r"\\hat p", relation="to", value=sp.Rational(1, 2), source=SOURCE,
               words="heads → 1/2")

def compare(frame, law):
    freq, p = frame["frequency"].to_numpy(), law.number()
    return all_of("frequency of heads", p, [check_at_least(freq, p, name="≥ p"), check_at_most(freq, p, name="≤ p")])

def claim(name):
    points = [{"n": 4000, "p": 0.5}]
    return Claim(name=name, words="the frequency of heads tends to 1/2 (50% & κ ≥ 0)", law=law,
                 wrong_law=lambda: law().replace(value=sp.Rational(6, 10), words="heads → 0.6"), compare=compare,
                 measurement=Measurement(experiment="display-test/heads", points={"small": points, "paper": points},
                                         seeds={"small": 8, "paper": 8}), system="coin_&_dice")

CLAIMS = [claim("fair#1"), claim("fair_50%")]  # the same rows: the second claim reuses the first one's
'''
KEYS = ["coin_&_dice/fair#1", "coin_&_dice/fair_50%"]


def rich(obj) -> dict:
    data, _ = formatters.DisplayFormatter().format(obj)
    return data


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.body_rows, self._in_body = 0, False

    def handle_starttag(self, tag, attrs):
        self._in_body |= tag == "tbody"
        self.body_rows += tag == "tr" and self._in_body


def body_rows(html: str) -> int:
    parser = _Rows()
    parser.feed(html)
    return parser.body_rows


@pytest.fixture(scope="module")
def coin(tmp_path_factory):
    path = tmp_path_factory.mktemp("coin") / "coin_claims.py"
    path.write_text(COIN, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def table(coin):
    from flt_theory.checking.check import check

    return check([str(coin)])


def test_symbolic_objects_render_as_latex_in_ipython():
    from flt_theory import Target, giant_step_laws, regime_table, staircase

    f = Target.parse("z1 + z1*z2")
    assert rich(f)["text/latex"] == "$$f^*(z) = z_{1} z_{2} + z_{1} \\qquad (r = 2)$$"
    ladder = staircase(f, 2)
    assert rich(ladder[1])["text/latex"].startswith(r"$$\mathrm{span}\{w^*_{1}, w^*_{2}\}")
    assert rich(ladder)["text/latex"].count("&=") == 2 and ladder == [ladder[0], ladder[1]]  # still a list
    assert rich(giant_step_laws(f)[0])["text/latex"] == "$$n^{*} \\asymp d \\quad (\\ell = 1)$$"
    regimes = regime_table(f, [(1, 0), (1, 1), (2, 2)])
    html = rich(regimes)["text/html"]
    assert body_rows(html) == 3 and r"$\mathrm{span}\{w^*_{1}\}$" in html
    assert "\\begin{array}" in rich(regimes)["text/latex"]


def test_verdict_table_html_has_one_row_per_claim(table):
    data = rich(table)
    assert table.claim.tolist() == KEYS and table.passed.all()
    assert body_rows(data["text/html"]) == len(KEYS) == 2
    for key in KEYS:
        assert f"<td>{key.replace('&', '&amp;')}</td>" in data["text/html"]
    assert "$\\hat p \\to \\frac{1}{2}$" in data["text/html"]  # the law, typeset from its LaTeX
    assert "≥ p: 0.5" in data["text/html"]  # every measured value with its label
    assert data["text/markdown"].count("\n| `coin") == 2
    assert type(table[["claim"]]).__name__ == "DataFrame"  # derived frames are plain DataFrames


def test_claim_verdict_renders(coin):
    from flt_theory.checking.check import import_claims_file
    from flt_theory.systems import check_claim

    verdict = check_claim(import_claims_file(coin)[0])
    data = rich(verdict)
    assert verdict.passed and body_rows(data["text/html"]) == 5
    assert "$\\hat p \\to \\frac{6}{10}$" in data["text/html"] or "\\frac{3}{5}" in data["text/html"]  # wrong law
    assert "<td>PASS</td>" in data["text/html"] and "| verdict | PASS |" in data["text/markdown"]


def test_figures_are_returned_as_matplotlib_figures(coin):
    from matplotlib.figure import Figure

    from flt_theory.checking.check import import_claims_file
    from flt_theory.report.figures import plot_comparisons
    from flt_theory.systems import check_claim

    verdict = check_claim(import_claims_file(coin)[0])
    figure = plot_comparisons("coin", verdict.check, verdict.control)
    assert isinstance(figure, Figure) and figure.axes


def _document():
    from flt_theory.systems.giant_step.verify import VerifyResult

    entry = {"name": "staircase", "latex": r"U_1 = \mathrm{span}\{w^*_{1}\}",
             "predicted": "staircase span{w1} ⊂ span{w1, w2}", "measured": [0.76, 0.27],
             "ci": [[0.75, 0.77], [0.25, 0.28]], "labels": ["step 1: U_1 = span{w1}", "step 2"], "verdict": "fail",
             "control": "rejected", "wrong_law": "all learned at once", "message": "step 2: too small",
             "seconds": 1.0}
    threshold = {**entry, "name": "one-step threshold", "latex": r"n^{*} \asymp d", "measured": 0.3, "ci": [0.2, 0.4],
                 "labels": ["excess mass at κ = 1"], "verdict": "pass", "wrong_law": "threshold κ* = 2"}
    return VerifyResult(target="z1 + z1*z2", activation="relu", leap_index=1, scale="small",
                        predictions=[threshold, entry], passed=False)


def test_verify_result_renders_one_row_per_prediction_and_labels_its_numbers():
    from flt_theory.systems.giant_step.verify import verify_text

    document = _document()
    assert body_rows(rich(document)["text/html"]) == 2 and not document.passed
    assert json.loads(json.dumps(document)) == dict(document)  # still the JSON document
    text = verify_text(document)
    assert "  measured [95% CI]  step 1: U_1 = span{w1}: 0.76 [0.75, 0.77]" in text
    assert "\n                     step 2: 0.27 [0.25, 0.28]" in text
    assert "excess mass at κ = 1: 0.3 [0.2, 0.4]" in text
    assert "  fail: step 2: too small" in text and "\\" not in text  # no raw LaTeX in text
    assert "staircase span{w1} ⊂ span{w1, w2}" in text  # the law in full, not cut


def test_verify_names_the_variable_beyond_z4():
    result = CliRunner().invoke(cli, ["verify", "z1 + z5"])
    assert result.exit_code == 2
    assert "uses z5" in result.output and "2 variables used" in result.output and "rank 5 > 4" not in result.output


def test_latex_tables_escape_claim_keys(table):
    from flt_theory._display import latex_document
    from flt_theory.report.table import verdict_latex
    from flt_theory.systems.giant_step.verify import verify_latex_table

    body = verdict_latex(table)
    assert r"coin\_\&\_dice/\allowbreak{}fair\#1 & $\hat p \to \frac{1}{2}$" in body
    assert r"coin\_\&\_dice/\allowbreak{}fair\_50\% & " in body
    # two header rows (first page, later pages), the caption, one per claim
    assert body.count(r"\\" + "\n") == 2 + 2 + 1
    assert r"\toprule" in body and r"\bottomrule" in body and "κ" not in body and "≥" not in body
    assert "$\\geq$ p: 0.5" in body  # Unicode written as math, each value with its label
    document = verify_latex_table(_document())
    assert document.count(" & fail & ") == 1 and "span\\{w1\\}" in document
    text = latex_document(body)
    assert text.index(r"\documentclass") < text.index(body) and text.rstrip().endswith(r"\fltEndDocument\fi")


def _engine() -> str | None:
    return next((e for e in ("pdflatex", "lualatex") if shutil.which(e)), None)


def test_latex_table_compiles_alone_and_inputs_into_a_paper(table, tmp_path):
    from flt_theory._display import PAPER_PACKAGES, latex_document
    from flt_theory.report.table import verdict_latex

    engine = _engine()
    if engine is None:
        pytest.skip("no LaTeX engine installed (pdflatex, lualatex): the compile check is skipped")
    (tmp_path / "t.tex").write_text(latex_document(verdict_latex(table)), encoding="utf-8")
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n" + PAPER_PACKAGES + "\n\\begin{document}\nBefore.\n"
                                        "\\input{t}\nAfter the table.\n\\end{document}\n", encoding="utf-8")
    for name in ("t", "paper"):
        run = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout[-2000:]
        if shutil.which("pdftotext"):
            subprocess.run(["pdftotext", f"{name}.pdf", f"{name}.txt"], cwd=tmp_path, check=True, timeout=60)
            pdf = " ".join((tmp_path / f"{name}.txt").read_text(encoding="utf-8").split())
            # \_ is drawn as a rule in the default OT1 encoding (pdftotext reads a space) and a key may break after "/"
            for key in KEYS:
                assert key.replace("_", "") in pdf.replace(" ", "")
            assert pdf.count("PASS") == len(KEYS)
            assert ("After the table." in pdf) == (name == "paper")


def test_flt_check_latex_progress_lines_and_reuse_count(coin, tmp_path):
    runner = CliRunner()
    store, tex = tmp_path / "m.sqlite", tmp_path / "out" / "t.tex"
    tex.parent.mkdir()
    args = ["check", str(coin), "--no-report", "--store", str(store), "--latex", str(tex)]
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert re.search(r"flt check \[1/2\] coin_&_dice/fair#1: measuring 1 points x 8 seeds", first.stderr)
    assert re.search(r"flt check \[2/2\] coin_&_dice/fair_50%: measured in .* \(0 rows computed, 8 reused\); "
                     r"16/16 rows, elapsed \d+:\d\d, estimate 0:00 left", first.stderr)
    assert "reused from the store" not in first.stdout  # an empty store: rows shared between claims are not "stored"
    latex = tex.read_text(encoding="utf-8")
    assert latex.count(r"coin\_\&\_dice/\allowbreak{}fair") == 2
    second = runner.invoke(cli, args)
    assert second.exit_code == 0 and "8 measurement rows reused from the store of an earlier run" in second.stdout
    bad = runner.invoke(cli, ["check", str(coin), "--no-report", "--latex", str(tmp_path / "nope" / "t.tex")])
    assert bad.exit_code == 2 and "--latex" in bad.output and "Traceback" not in bad.output


TINY = {  # the systems that declare RECORD_FIELDS, at sizes of a second
    "giant-step": dict(target="z1", d=(8,), kappa=(1.0,), p=4, seeds=2, ridge=0.1, device="cpu"),
    "lazy-rich": dict(widths=(16, 64), steps=5, seeds=2, device="cpu"),
    "one-step-ba": dict(d=16, psi=2, eta_tilde=(0, 1), seeds=2, n_test=512, device="cpu"),
    "virtual-covariance": dict(theorem3=True, activation="relu", nets=20, device="cpu"),
    "dictionary": dict(D=16, k=4, width=8, n=64, n_test=64, iterations=5, seeds=2, device="cpu"),
    "good-sets": dict(d=16, m=16, n=64, steps=3, seeds=2, device="cpu"),
    "attention": dict(n=(16,), mu_norm=(1.0,), seeds=2, device="cpu"),
    "diffusion": dict(n=(8,), mu_norm=(0.5,), d=50, steps=20, seeds=2, device="cpu"),
    "contrastive": dict(mode="both", n=8, d=64, steps=10, seeds=2, device="cpu"),
    "in-context": dict(part="both", concepts=2, dim=4, length=3, steps=5, tasks=(2,), feature_steps=5, seeds=2,
                       device="cpu"),
    "online-sgd": dict(target="He2(z)", d=(16,), max_steps=200, seeds=2, device="cpu"),
    "signal-noise": dict(n=(8,), d=64, width=4, mu_norm=(1.0,), max_steps=20, seeds=2, n_test=64, device="cpu"),
    "signal-noise-optimizers": dict(optimizer="gd", n=8, d=64, width=4, max_steps=20, seeds=2, device="cpu"),
}


@pytest.mark.parametrize("system", sorted(TINY))
def test_simulate_help_lists_every_record_field(system):
    from flt_theory import simulate
    from flt_theory.systems import get_system

    fields = get_system(system).simulate.fields
    text = " ".join(CliRunner().invoke(cli, ["simulate", system, "--help"]).output.split())
    assert fields and all(f"{f.name} {' '.join(f.meaning.split())} [{f.unit}]" in text for f in fields)
    document = simulate(system, **TINY[system])
    keys = {k for record in document["records"] for k in record}
    if system == "virtual-covariance":  # two modes: the residual mode's four fields from its other run
        residual = simulate(system, widths=(4, 5, 3), gammas=(0.01, 0.1), seeds=2, device="cpu")
        keys |= {k for record in residual["records"] for k in record}
    if system == "online-sgd":  # the iterations field is recorded only with a batch or repeated passes
        other = simulate(system, **{**TINY[system], "batch": 2})
        keys |= {k for record in other["records"] for k in record}
    if system == "signal-noise-optimizers":  # each optimizer adds its own hyper-parameters
        for optimizer in ("adam", "sam", "label-noise-gd"):
            other = simulate(system, **{**TINY[system], "optimizer": optimizer})
            keys |= {k for record in other["records"] for k in record}
    assert keys == {f.name for f in fields} and "results" not in document  # every field declared, none repeated


def test_simulate_help_shows_whole_titles():
    from flt_theory.systems import discover

    text = " ".join(CliRunner().invoke(cli, ["simulate", "--help"]).output.split())
    for system in discover().values():
        if system.simulate is not None:
            assert " ".join(system.title.split()) in text, system.name


def test_verdict_table_pickles(table):
    import pickle

    again = pickle.loads(pickle.dumps(table))
    assert type(again) is type(table) and again.claim.tolist() == KEYS and body_rows(again._repr_html_()) == 2
