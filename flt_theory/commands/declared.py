r"""The options of every ``flt simulate SYSTEM``, kept as data so that a bad option is refused before torch loads.

A system declares its ``flt simulate`` options in its ``declaration.py`` (:class:`~flt_theory.systems.declaration
.Option`, most of them ``Option.of(Param)`` of the parameters its ``model.py`` declares), and reading them means
importing the model: torch, sympy, the comparators, seconds to tens of seconds. ``flt simulate attention --n 1e9`` would
pay all of it to print one line. So the first ``flt simulate`` run that imports the systems writes what the options
ARE (their names, kinds, bounds, choices, defaults and help, and each declared :class:`~flt_theory.runner.params.Param`
that checks a value: :func:`describe`) to a small JSON file, keyed by a fingerprint of every source file of the
package (:func:`source_fingerprint`, about 10 ms to compute); a later run whose fingerprint matches builds the command
from that file, parses and checks the options (click's conversion and bounds, then every value through its ``Param``
exactly as :meth:`~flt_theory.systems.declaration.SimulateCommand.check_options` does: :func:`check_values`), and only
then imports the system to run it. After the import the system's own declaration is compared with the one the options
were parsed with; should they differ, the arguments are parsed again with the system's own command. A file from other
code (any source file edited since) is never read: the run falls back to importing the systems, and writes the file
again. The file lives in ``$FLT_CACHE_DIR``, else ``$XDG_CACHE_HOME/flt_theory``, else ``~/.cache/flt_theory``, one
per installed copy of the package; it is a cache: a folder that cannot be written only costs the fast refusal.

Only the systems inside this package are kept (a system found through ``FLT_THEORY_SYSTEMS`` or an entry point lives
in code the fingerprint does not cover, so it is always imported).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..runner.params import Param
    from ..systems.declaration import System

__all__ = ["DeclaredOption", "cache_path", "cached_entries", "check_values", "describe", "option_flags", "options_of",
           "source_fingerprint", "store_entries"]

#: The version of the file's layout (a file of another layout is not read). 2: the options' other spellings
#: (:func:`option_flags`).
FORMAT = 2
#: The package whose sources the fingerprint covers.
PACKAGE = Path(__file__).resolve().parent.parent
#: The fields of a :class:`~flt_theory.runner.params.Param` that decide which values it accepts.
_PARAM_FIELDS = ("name", "kind", "minimum", "maximum", "exclusive_minimum", "choices", "nullable", "words")
#: The fields of an :class:`~flt_theory.systems.declaration.Option` besides its ``param``.
_OPTION_FIELDS = ("name", "kind", "default", "required", "help", "choices", "dest", "argument", "minimum", "maximum")


def _plain(value: Any) -> Any:
    """``value`` with every tuple as a list (what a JSON round trip gives back)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _restored(value: Any) -> Any:
    """A value read back from JSON with every list as a tuple (as the declarations spell sequences)."""
    if isinstance(value, list):
        return tuple(_restored(v) for v in value)
    return value


@dataclass(frozen=True)
class DeclaredOption:
    """One option of ``flt simulate SYSTEM`` as kept in the file: the attributes of an
    :class:`~flt_theory.systems.declaration.Option` (``name``, ``kind``, ``default``, ...), and its ``param`` built on
    first use from the fields the file keeps (:data:`_PARAM_FIELDS`), so parsing the command line imports no
    :mod:`flt_theory.runner`."""

    name: str
    kind: str
    default: Any
    required: bool
    help: str
    choices: tuple[Any, ...]
    dest: str
    argument: bool
    minimum: float | None
    maximum: float | None
    param_fields: Mapping[str, Any] | None = field(default=None, repr=False)

    @functools.cached_property
    def param(self) -> Param | None:
        """The option's :class:`~flt_theory.runner.params.Param` (None where the declaration has none)."""
        if self.param_fields is None:
            return None
        from ..runner.params import Param

        return Param(**{k: _restored(v) for k, v in self.param_fields.items()})


def describe(system: System) -> dict[str, Any] | None:
    """What ``flt simulate SYSTEM`` is, as JSON-ready data: name, short help (the title), help, the epilog's record
    fields and the options (:data:`_OPTION_FIELDS`, each with its ``Param``'s :data:`_PARAM_FIELDS`); None when the
    declaration holds a value JSON does not give back unchanged (that system is then always imported)."""
    spec = system.simulate
    if spec is None:
        return None
    options = []
    for option in spec.options:
        entry = {name: _plain(getattr(option, name)) for name in _OPTION_FIELDS}
        param = getattr(option, "param", None)
        entry["param"] = None if param is None else {name: _plain(getattr(param, name)) for name in _PARAM_FIELDS}
        options.append(entry)
    document = {"name": system.name, "title": system.title, "help": spec.help,
                "fields": [[f.name, f.meaning, f.unit] for f in spec.fields], "options": options,
                "flags": option_flags(system)}
    try:
        same = json.loads(json.dumps(document)) == document
    except (TypeError, ValueError):
        return None
    return document if same else None


def option_flags(system: System) -> dict[str, list[str]]:
    """The other spellings ``flt simulate SYSTEM`` takes for its options, by ``dest``, from the system's vocabulary
    (:mod:`flt_theory.systems.vocabulary`): the parameter's own name where the option is spelled otherwise
    (``--eta-tilde`` for ``--lr``; not for a flag, whose sense may differ, nor where another option has that name),
    and ``--NAME`` for a positional argument ``NAME`` (``--target``, as every other system spells it)."""
    from ..systems.vocabulary import vocabulary_of

    spec = system.simulate
    if spec is None:
        return {}
    vocabulary = vocabulary_of(system)
    taken = {o.name for o in spec.options} | {o.name.replace("-", "_") for o in spec.options if not o.argument}
    flags: dict[str, list[str]] = {}
    for option in spec.options:
        target = vocabulary.options.get(option.dest)
        if option.argument:
            flags[option.dest] = ["--" + option.name]
        elif target is not None and option.kind != "flag" and target not in taken \
                and target.replace("_", "-") not in taken:
            flags[option.dest] = ["--" + target.replace("_", "-")]
    return flags


def options_of(entry: Mapping[str, Any]) -> list[DeclaredOption]:
    """The options of a :func:`describe` entry."""
    return [DeclaredOption(**{name: _restored(o[name]) for name in _OPTION_FIELDS}, param_fields=o["param"])
            for o in entry["options"]]


def check_values(options: Sequence[Any], values: Mapping[str, Any]) -> None:
    """Refuse a value that its option's ``Param`` refuses, with the message of
    :meth:`~flt_theory.systems.declaration.SimulateCommand.check_options` (``--n: The 'n' parameter must be an int >=
    2. Got 1 instead.``): the same check, made before the system is imported (``options``: :class:`DeclaredOption`
    or :class:`~flt_theory.systems.declaration.Option` objects)."""
    from ..errors import FLTError, InvalidParameterError

    for option in options:
        value = values.get(option.dest)
        if value is None or (isinstance(value, str) and option.kind == "eta"):
            continue
        param = option.param
        if param is None:
            continue
        try:
            for item in value if isinstance(value, (list, tuple)) else (value,):
                param.check(item, strict=False)
        except FLTError as exc:
            raise InvalidParameterError(f"{'' if option.argument else '--'}{option.name}: {exc}") from None


def source_fingerprint(package: Path = PACKAGE) -> str:
    """A digest of every Python source file of ``package`` (path and content), with the file's layout version."""
    digest = hashlib.sha256(f"flt-simulate-options {FORMAT}\n".encode())
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(folder, name)
                digest.update(f"{path.relative_to(package).as_posix()}\0".encode())
                digest.update(path.read_bytes())
                digest.update(b"\0")
    return digest.hexdigest()


def cache_path(package: Path = PACKAGE) -> Path | None:
    """The file of this copy of the package (module docstring); None where there is no folder to keep it in (no
    ``FLT_CACHE_DIR`` or ``XDG_CACHE_HOME``, and no home folder)."""
    root = os.environ.get("FLT_CACHE_DIR")
    if not root:
        home = os.path.expanduser("~")
        base = os.environ.get("XDG_CACHE_HOME") or (None if home.startswith("~") else os.path.join(home, ".cache"))
        if base is None:
            return None
        root = os.path.join(base, "flt_theory")
    key = hashlib.sha256(str(package).encode()).hexdigest()[:16]
    return Path(root) / f"simulate-options-{key}.json"


def _read(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) and document.get("format") == FORMAT else None


def cached_entries(fingerprint: str | None = None) -> dict[str, dict[str, Any]]:
    """The kept entries by system name, when the file was written by the code of now (else none)."""
    document = _read(cache_path())
    if document is None or document.get("fingerprint") != (fingerprint or source_fingerprint()):
        return {}
    systems = document.get("systems")
    return systems if isinstance(systems, dict) else {}


def _in_package(system_name: str) -> bool:
    """Whether the system is declared by a module of this package (what the fingerprint covers)."""
    from ..systems.registry import declaring_module

    module = sys.modules.get(declaring_module(system_name))
    where = getattr(module, "__file__", None)
    return where is not None and Path(where).resolve().is_relative_to(PACKAGE)


def store_entries(systems: Mapping[str, System] | Iterable[System], *, fingerprint: str | None = None) -> None:
    """Write the file for ``systems`` (the package's own among them) when it is missing or was written by other code;
    ``fingerprint``: that of the sources the systems were imported from (taken before the import; default: now). A
    folder that cannot be written is left alone (the file is a cache)."""
    from .._files import atomic_write_text

    fingerprint = fingerprint or source_fingerprint()
    path = cache_path()
    document = _read(path)
    if path is None or (document is not None and document.get("fingerprint") == fingerprint):
        return
    found = systems.values() if isinstance(systems, Mapping) else systems
    entries = {}
    for system in found:
        if system.simulate is not None and _in_package(system.name):
            entry = describe(system)
            if entry is not None:
                entries[system.name] = entry
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"format": FORMAT, "fingerprint": fingerprint, "systems": entries}))
