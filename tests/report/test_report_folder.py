"""The report folder is checked before any claim runs, and the verdicts survive a report that cannot be written."""

from __future__ import annotations

import io
import sys

import pytest
from click.testing import CliRunner

from flt_theory.checking.check import run_check
from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.report.markdown import prepare_report_dir

CLAIM = "giant-step/rank-one-update"


@pytest.mark.parametrize("where", ["file", "below-a-file"])
def test_a_report_folder_that_cannot_be_written_is_refused_before_running(tmp_path, where, monkeypatch):
    def must_not_run(*args, **kwargs):
        raise AssertionError("a claim ran before the report folder was checked")

    monkeypatch.setattr(sys.modules["flt_theory.checking.check"], "run_claims", must_not_run)
    a_file = tmp_path / "hostname"
    a_file.write_text("x")
    target = a_file if where == "file" else a_file / "x"
    result = CliRunner().invoke(cli, ["check", CLAIM, "--report", str(target)])
    assert result.exit_code == 2, result.output
    assert "--report" in result.output and "Traceback" not in result.output
    with pytest.raises(InvalidParameterError, match="--report"):
        prepare_report_dir(target)


def test_verdicts_are_printed_when_the_report_cannot_be_written(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys.modules["flt_theory.checking.check"], "write_report", broken)  # the name check() calls
    out = io.StringIO()
    code = run_check([CLAIM], "small", tmp_path / "report", out=out)
    assert code == 2
    assert CLAIM in out.getvalue() and "PASS" in out.getvalue()  # the table was printed
    assert "No space left on device" in capsys.readouterr().err
