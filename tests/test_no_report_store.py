"""``flt check --no-report`` still stores its measurements (a rerun computes nothing), and the verdict table that
``flt_theory.check`` returns prints its verdict column (issue 37)."""

from __future__ import annotations

import json

from click.testing import CliRunner

CLAIM = "giant-step/rank-one-update"  # 1 point x 8 seeds, the cheapest claim of the catalogue


def test_a_rerun_with_no_report_reuses_every_stored_row(tmp_path, monkeypatch):
    from flt_theory.cli import cli
    from flt_theory.commands.check import NO_REPORT_STORE

    monkeypatch.setenv("FLT_CACHE_DIR", str(tmp_path / "cache"))  # created by the run
    runner = CliRunner()
    first = runner.invoke(cli, ["check", CLAIM, "--no-report", "--json"])
    again = runner.invoke(cli, ["check", CLAIM, "--no-report", "--json"])
    assert first.exit_code == again.exit_code == 0, first.output + again.output
    (one,), (two,) = json.loads(first.stdout)["claims"], json.loads(again.stdout)["claims"]
    assert one["computed"] == 8 and one["reused"] == 0
    assert two["computed"] == 0 and two["reused"] == 8  # the second run computed nothing
    assert one["measured"] == two["measured"]
    store = tmp_path / "cache" / NO_REPORT_STORE
    assert json.loads(again.stdout)["store"] == str(store) and store.is_file()
    assert not (tmp_path / "report").exists()
    text = runner.invoke(cli, ["check", CLAIM, "--no-report"])
    assert f"measurements stored in {store}" in text.stdout and "8 measurement rows reused" in text.stdout
    fresh = runner.invoke(cli, ["check", CLAIM, "--no-report", "--fresh", "--json"])
    assert json.loads(fresh.stdout)["claims"][0]["computed"] == 8  # --fresh still recomputes


def test_no_cache_folder_keeps_them_in_memory_and_says_so(tmp_path, monkeypatch):
    from flt_theory.cli import cli
    from flt_theory.commands.check import no_report_store

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("FLT_CACHE_DIR", str(blocker / "cache"))  # a folder under a file cannot be created
    assert no_report_store() is None
    result = CliRunner().invoke(cli, ["check", CLAIM, "--no-report", "--json"])
    assert result.exit_code == 0, result.output
    assert "they are kept in memory and a rerun recomputes them" in result.stderr
    assert json.loads(result.stdout)["claims"][0]["verdict"] == "PASS"  # the run itself is unchanged


def test_print_of_the_check_result_shows_the_verdict_column():
    import flt_theory

    table = flt_theory.check([CLAIM])
    shown = str(table)
    header = shown.splitlines()[0].split()
    assert "verdict" in header and "negative" in header and "..." not in shown
    row = shown.splitlines()[1]
    assert row.startswith(CLAIM) and " PASS " in row and "rejected" in row
    assert repr(table) == shown and "1/1 claims pass" in shown
    assert "verdict" not in str(table[["claim"]])  # a derived frame is a plain DataFrame
