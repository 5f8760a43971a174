"""``flt claims``: the catalogue of claims (:mod:`flt_theory.checking.catalogue`), as a table, JSON or ``CLAIMS.md``."""

from __future__ import annotations

import click

from .base import emit_json

__all__ = ["claims_command"]


@click.command("claims", short_help="The catalogue of claims: laws, status, sources, negative controls.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the catalogue as Markdown (CLAIMS.md).")
def claims_command(as_json: bool, as_markdown: bool) -> None:
    """Every claim of every system, from the registry: key, law (words and LaTeX), status, source,
    regime of validity and the wrong law of its negative control."""
    if as_json and as_markdown:
        raise click.UsageError("--json and --markdown are mutually exclusive; give one of them")
    from .._text import table
    from ..checking.catalogue import catalogue, catalogue_markdown

    if as_markdown:
        click.echo(catalogue_markdown(), nl=False)
        return
    entries = catalogue()
    if as_json:
        emit_json(entries)
        return
    click.echo(table([("claim", "status", "law (in words)")]
                    + [(e["key"], e["status"], e["words"]) for e in entries]))
