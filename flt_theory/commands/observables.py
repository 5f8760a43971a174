r"""``flt observables SYSTEM``: every observable of a system with its meaning and unit, and who records it.

One line per observable of the system's vocabulary (:mod:`flt_theory.systems.vocabulary`): its public name (what
``flt simulate SYSTEM`` records, what ``flt verify --law``'s OBS and ``--where`` take), its unit, its meaning, the
runner experiments that record it (with the key they store it under, where that differs, and the other names still
accepted) and whether ``flt simulate`` records carry it; then the parameters ``flt simulate`` spells otherwise, the
natural parameters converted for an experiment parametrised differently, and the controls. A family of indexed
observables is one line (``err_{i}``: ``err_0``, ``err_1``, ...). ``--json`` prints ``{"system", "observables": [...],
"options", "record_fields", "conversions", "controls"}``. Without SYSTEM: the systems and how many observables each
declares.
"""

from __future__ import annotations

from typing import Any

import click

from ..errors import FLTError
from .base import InputError, emit_json

__all__ = ["observables_command", "observables_document", "observables_text"]


def observables_document(name: str) -> dict[str, Any]:
    """The JSON document of ``flt observables NAME`` (module docstring)."""
    from ..systems import get_system
    from ..systems.vocabulary import describe_observables, vocabulary_of

    try:
        system = get_system(name)
    except FLTError as exc:
        raise InputError("SYSTEM", str(exc)) from None
    vocabulary = vocabulary_of(system)
    return {"system": system.name, "observables": describe_observables(system, vocabulary),
            "options": dict(vocabulary.options), "record_fields": dict(vocabulary.record_fields),
            "conversions": [{"name": c.name, "experiment": c.experiment, "parameter": c.parameter,
                             "definition": c.text(), "why": c.why} for c in vocabulary.conversions],
            "controls": vocabulary.controls_all()}


def observables_text(document: dict[str, Any]) -> str:
    """The text form of :func:`observables_document`: one line per observable, then the spellings, conversions and
    controls."""
    from .._text import table

    rows = [["observable", "unit", "recorded by", "meaning"]]
    for o in document["observables"]:
        by = list(o["experiments"]) + (["flt simulate"] if o["simulate"] else [])
        notes = ([f"stored as {o['key']}"] if o["key"] != o["name"] else []) + \
            ([f"also: {', '.join(o['aliases'])}"] if o["aliases"] else [])
        rows.append([o["name"], o["unit"], ", ".join(by) or "-",
                     o["meaning"] + (f" ({'; '.join(notes)})" if notes else "")])
    lines = [f"Observables of {document['system']} (flt verify --law OBS, --where OBS = LEVEL; flt simulate "
             f"{document['system']} --json records):", table(rows)]
    if document["options"]:
        lines.append("\nOptions of flt simulate spelled otherwise than the parameter they set:")
        lines += [f"  --{dest.replace('_', '-')}  sets {target}" for dest, target in document["options"].items()]
    if document["record_fields"]:
        lines.append("\nRecord fields that hold one member of an observable:")
        lines += [f"  {field}  is {target}" for field, target in document["record_fields"].items()]
    if document["conversions"]:
        lines.append("\nNatural parameters, converted for the experiments parametrised otherwise:")
        lines += [f"  {c['name']} on {c['experiment']} (for {c['parameter']}): {c['definition']}"
                  for c in document["conversions"]]
    lines.append("\nControls (how the command runs, not the model):")
    lines += [f"  {name}  {what}" for name, what in document["controls"].items()]
    return "\n".join(lines)


@click.command("observables", short_help="Every observable of a system: meaning, unit, what records it.")
@click.argument("system", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON document on stdout.")
def observables_command(system: str | None, as_json: bool) -> None:
    """Every observable of SYSTEM (flt verify --law's OBS, --where, flt simulate's records) with its meaning and
    unit and the experiments that record it; without SYSTEM, the systems."""
    if system is None:
        from ..systems import discover
        from ..systems.vocabulary import vocabulary_of

        counts = {name: len(vocabulary_of(s).observables) for name, s in sorted(discover().items())}
        if as_json:
            emit_json({"systems": counts})
        else:
            click.echo("\n".join(f"{name}  {count} observables (flt observables {name})"
                                 for name, count in counts.items()))
        return
    document = observables_document(system)
    if as_json:
        emit_json(document)
    else:
        click.echo(observables_text(document))
