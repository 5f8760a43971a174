"""The standalone LaTeX that ``flt laws TARGET --latex`` writes compiles, and the PDF says what the laws say.

Skipped, with the reason, where no LaTeX engine is installed (``.ci/run`` installs Debian's texlive-latex-base and
texlive-latex-recommended when it can); the PDF's text is read where pdftotext (poppler-utils) is installed.
"""

import shutil
import subprocess

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli


def _engine() -> str | None:
    return next((e for e in ("pdflatex", "lualatex") if shutil.which(e)), None)


def test_flt_laws_latex_compiles_alone(tmp_path):
    engine = _engine()
    if engine is None:
        pytest.skip("no LaTeX engine installed (pdflatex, lualatex): the compile check is skipped")
    result = CliRunner().invoke(cli, ["laws", "z1 + He2(z2)", "--latex"])
    assert result.exit_code == 0, result.output
    (tmp_path / "laws.tex").write_text(result.output, encoding="utf-8")
    run = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "laws.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "Undefined control sequence" not in run.stdout and "Missing $ inserted" not in run.stdout
    if shutil.which("pdftotext"):
        subprocess.run(["pdftotext", "laws.pdf", "laws.txt"], cwd=tmp_path, check=True, timeout=60)
        pdf = " ".join((tmp_path / "laws.txt").read_text(encoding="utf-8").split())
        assert "Predicted laws" in pdf and "one-step threshold" in pdf and "arXiv 2305.18270" in pdf
        assert pdf.count("conjecture;") >= 3  # the staircase steps, each with its status
