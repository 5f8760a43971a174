"""Layering contract: imports run down the floors, systems stand alone, one function derives every seed stream, and no
import dodges a cycle.

* the floors of the package, top down (:data:`FLOORS`): ``cli`` -> ``commands`` -> the application layer
  (``checking``, ``laws_check``) -> ``systems`` -> ``runner``, ``numeric``, ``symbolic``, ``compare``; a module
  imports modules of its own floor or of the floors below, never one above. ``report`` is a side room that turns
  result objects into tables, HTML, LaTeX and figures: it imports no runner, no system, no application layer, no
  command (:data:`REPORT_IMPORTS_NONE_OF`), and the systems and the floors below them import no report. The helpers
  every floor uses (``errors``, ``_text``, ``_display``, ``_validation``) import nothing above the lowest floor.
  Imports at module level and inside functions are judged alike (those under ``if TYPE_CHECKING:`` never run and are
  left out; a lazy import of a library is not a project import). Exempt: the package itself (``flt_theory``, whose
  public names load on first use from every floor), and the one-release re-exports of :data:`COMPAT_REEXPORTS`,
  names kept at the paths users imported before the application layer existed, each reaching only the module the
  names moved to, at module level or in a module ``__getattr__``;
* no file of ``flt_theory/systems/<a>/`` imports ``flt_theory/systems/<b>/`` (relative or absolute, at module
  level or inside a function, parsed with ``ast``): what two systems share lives in the numeric layer or in a
  systems-level module that is not a system folder (``frames.py``, ``levels.py``, ``declaration.py``);
* :func:`flt_theory.numeric.seeds.fold_in` is the one seed-stream derivation: no other module holds SplitMix64 or
  golden-ratio constants or hashes stream names, and every ``manual_seed`` call of the package seeds with it;
* no function-local import of a module of the package would close an import cycle if it moved to module level:
  the modules it reaches through the package's imports (module-level or function-local; those under
  ``if TYPE_CHECKING:`` left out) do not include the importer. What two modules share lives in the lower one, so
  the dependency runs one way. Exempt: a package importing a module inside it on first use (a lazy attribute of
  ``__init__.py``); a module inside a package does not import that package by being inside it (the package is
  already being imported when the module runs), only by naming it. A lazy import of a library (numpy, scipy,
  torch) for start-up time is not a project import and not judged.

Each rule is itself tested on a small source that breaks it, so the rule can fail.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "flt_theory"
SYSTEMS = PACKAGE / "systems"
SEEDS = PACKAGE / "numeric" / "seeds.py"

#: The floors of the package, top down: a module imports its own floor or the floors below, never one above.
FLOORS = (
    ("flt_theory.cli",),
    ("flt_theory.commands",),
    ("flt_theory.checking", "flt_theory.laws_check"),
    ("flt_theory.systems",),
    ("flt_theory.runner", "flt_theory.numeric", "flt_theory.symbolic", "flt_theory.compare"),
)
#: The side room of the presentation: what runs or decides lives elsewhere and hands it result objects.
REPORT = "flt_theory.report"
#: What the report imports none of (at module level or inside a function).
REPORT_IMPORTS_NONE_OF = ("flt_theory.cli", "flt_theory.commands", "flt_theory.checking", "flt_theory.laws_check",
                          "flt_theory.systems", "flt_theory.runner")
#: The helpers every floor uses: they import nothing above the lowest floor.
HELPERS = ("flt_theory.errors", "flt_theory._text", "flt_theory._display", "flt_theory._validation",
           "flt_theory._files")
#: One-release re-exports at the paths users imported before the application layer existed: importer ->
#: the module its re-exported names moved to (the only module above its floor it may import, and only to re-export
#: names: at module level or in its ``__getattr__``). Remove an entry with its re-export.
COMPAT_REEXPORTS = {
    "flt_theory.report": "flt_theory.checking.check",
    "flt_theory.report.catalogue": "flt_theory.checking.catalogue",
    "flt_theory.report.calibrate": "flt_theory.checking.calibrate",
}


@functools.lru_cache(maxsize=None)
def _parse(source: str) -> ast.Module:
    """``ast.parse(source)``, parsed once per source: every rule reads the same files, and only reads the tree."""
    return ast.parse(source)


@functools.lru_cache(maxsize=1)
def _package_sources() -> tuple[tuple[Path, str], ...]:
    """Every ``.py`` file of the package with its text, sorted by path (read once per process)."""
    return tuple((path, path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py")))


def _system_folders() -> set[str]:
    return {p.name for p in SYSTEMS.iterdir() if p.is_dir() and (p / "__init__.py").exists()}


def _module_of(path: Path) -> list[str]:
    """Dotted module path of a file of the package, as a list (``flt_theory/a/b.py`` -> ``[flt_theory, a, b]``)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_modules(source: str, module: list[str], *, is_package: bool = False) -> list[tuple[int, str]]:
    """Every module a source imports, resolved to an absolute dotted name, with its line: for ``from X import y``
    both ``X`` and ``X.y`` (``y`` may be a submodule)."""
    package = module if is_package else module[:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(_parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _from_base(node, package)
            out.append((node.lineno, target))
            out += [(node.lineno, f"{target}.{alias.name}") for alias in node.names if alias.name != "*"]
    return out


def _from_base(node: ast.ImportFrom, package: list[str]) -> str:
    """The absolute dotted name of ``X`` in ``from X import y`` written in a module of ``package``."""
    base = package[: len(package) - node.level + 1] if node.level else []
    return ".".join(base + (node.module.split(".") if node.module else []))


def cross_system_imports(source: str, module: list[str], systems: set[str], *,
                         is_package: bool = False) -> list[str]:
    """``"line: module"`` for each import of a system folder other than the one ``module`` belongs to."""
    own = module[2] if len(module) > 2 else None
    found = []
    for line, name in imported_modules(source, module, is_package=is_package):
        parts = name.split(".")
        if parts[:2] == ["flt_theory", "systems"] and len(parts) > 2 and parts[2] in systems and parts[2] != own:
            found.append(f"{line}: {name}")
    return sorted(set(found))


def _within(name: str, prefixes: tuple[str, ...] | str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in ((prefixes,) if isinstance(prefixes, str) else prefixes))


def floor_of(name: str) -> int | str | None:
    """The floor of a module (0 for the top), ``"report"``, ``"helper"``, or None (the package itself, a name of it,
    or not the package's)."""
    for index, prefixes in enumerate(FLOORS):
        if _within(name, prefixes):
            return index
    if _within(name, REPORT):
        return "report"
    return "helper" if _within(name, HELPERS) else None


def scoped_imports(source: str, module: list[str], *, is_package: bool = False) -> list[tuple[int, str, bool]]:
    """``(line, module, inside a function)`` for each module a source imports (resolved to an absolute dotted name;
    for ``from X import y`` both ``X`` and ``X.y``), the body of ``if TYPE_CHECKING:`` left out."""
    package = module if is_package else module[:-1]
    out = []
    for node, inside in _imports_by_scope(_parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = _from_base(node, package)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
        out += [(node.lineno, name, inside) for name in names]
    return out


def _upward(importer: int | str | None, imported: int | str | None, name: str) -> bool:
    """Whether an import of ``name`` (on floor ``imported``) by a module on floor ``importer`` runs against the
    floors (module docstring)."""
    if importer is None or imported is None:
        return False
    if importer == "report":
        return _within(name, REPORT_IMPORTS_NONE_OF)
    if importer == "helper":
        return imported == "report" or (isinstance(imported, int) and imported < len(FLOORS) - 1)
    assert isinstance(importer, int)
    if imported == "report":
        return importer >= FLOORS.index(("flt_theory.systems",))
    return isinstance(imported, int) and imported < importer


def floor_violations(source: str, module: list[str], *, is_package: bool = False) -> list[str]:
    """``"line: imported"`` (``"... (in a function)"``) for each import of ``source`` that runs up the floors, or
    into or out of the report where the module docstring forbids it; the re-exports of :data:`COMPAT_REEXPORTS`
    exempt."""
    name = ".".join(module)
    allowed = COMPAT_REEXPORTS.get(name)
    found = []
    for line, imported, inside in scoped_imports(source, module, is_package=is_package):
        if allowed is not None and _within(imported, allowed):
            continue
        if _upward(floor_of(name), floor_of(imported), imported):
            found.append(f"{line}: {imported}" + (" (in a function)" if inside else ""))
    return sorted(set(found))


_SEED_CONSTANTS = re.compile(r"9e3779b|bf58476d1ce4e5b9|94d049bb133111eb|crc32|splitmix", re.IGNORECASE)


def seed_stream_violations(source: str) -> list[str]:
    """Places of a source that derive a seed stream by hand: SplitMix64 / golden-ratio constants, CRC hashing of
    stream names, or a ``manual_seed`` call whose argument is not a call of ``fold_in``."""
    found = [f"{source.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in _SEED_CONSTANTS.finditer(source)]
    for node in ast.walk(_parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "manual_seed":
            arg = node.args[0] if node.args else None
            func = arg.func if isinstance(arg, ast.Call) else None
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name != "fold_in":
                found.append(f"{node.lineno}: manual_seed({ast.unparse(arg) if arg else ''})")
    return found


def _imports_by_scope(tree: ast.AST, local: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of ``tree`` with whether it runs inside a function (a class body runs at import time);
    the body of ``if TYPE_CHECKING:`` never runs and is left out (its ``else:`` is kept)."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, local
        elif isinstance(child, (ast.expr, ast.expr_context, ast.operator, ast.alias, ast.arguments, ast.keyword)):
            continue  # an import is a statement: no expression holds one (a lambda's body is an expression)
        elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            yield from _imports_by_scope(ast.Module(body=child.orelse, type_ignores=[]), local)
        else:
            yield from _imports_by_scope(child, local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _packages_above(name: str) -> list[str]:
    """``a.b.c`` -> ``[a, a.b]``."""
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(1, len(parts))]


def _loaded_modules(node: ast.Import | ast.ImportFrom, module: str, package: list[str], modules: set[str]) -> set[str]:
    """The modules of ``modules`` an import statement of ``module`` loads: each module it names (``from X import y``
    names ``X.y`` when that is a module, else ``X``) and the packages above it, except the packages that hold
    ``module`` (already being imported when it runs) unless the statement names one itself."""
    if isinstance(node, ast.Import):
        named = [alias.name for alias in node.names]
    else:
        base = _from_base(node, package)
        named = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    holders = set(_packages_above(module))
    return {loaded for name in named for loaded in (*_packages_above(name), name)
            if loaded in modules and loaded != module and (loaded == name or loaded not in holders)}


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, tuple[set[str], dict[str, int]]]:
    """Per module of ``sources`` (dotted name -> ``(source, is_package)``): the modules of ``sources`` it imports at
    module level, and those it imports only inside a function, each with the line of its first such import."""
    graph = {}
    for module, (source, is_package) in sources.items():
        package = module.split(".") if is_package else module.split(".")[:-1]
        top: set[str] = set()
        local: dict[str, int] = {}
        for node, inside in _imports_by_scope(_parse(source)):
            for name in _loaded_modules(node, module, package, set(sources)):
                if inside:
                    local.setdefault(name, node.lineno)
                else:
                    top.add(name)
        graph[module] = (top, {name: line for name, line in local.items() if name not in top})
    return graph


def cycle_dodges(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """``"module:line -> imported"`` for each function-local import that would close an import cycle at module level:
    ``imported`` reaches ``module`` through the imports of ``sources`` (module-level and function-local). A package's
    function-local import of a module inside it (a lazy attribute) is exempt."""
    graph = import_graph(sources)

    def reaches(start: str, goal: str) -> bool:
        seen, stack = {start}, [start]
        while stack:
            top, local = graph[stack.pop()]
            for name in top | set(local):
                if name == goal:
                    return True
                if name not in seen:
                    seen.add(name)
                    stack.append(name)
        return False

    return sorted(f"{module}:{line} -> {name}" for module, (_, local) in graph.items() for name, line in local.items()
                  if not (sources[module][1] and name.startswith(module + ".")) and reaches(name, module))


# -- the rules can fail --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("module,source,bad", [
    # a system's command module importing the commands: the arrow that once ran back up
    ("flt_theory.systems.giant_step.commands", "from ...commands.base import InputError", True),
    ("flt_theory.systems.registry", "def f():\n    from ..report.markdown import write_report", True),  # no report
    ("flt_theory.runner.registry", "def f():\n    from ..systems import discover", True),
    ("flt_theory.runner.sweep", "import flt_theory.checking.check", True),
    ("flt_theory.checking.check", "from ..commands.base import InputError", True),
    ("flt_theory.laws_check.verify", "def f():\n    from ..cli import cli", True),
    ("flt_theory.commands.check", "from .. import cli", True),
    ("flt_theory.report.table", "from ..runner.store import ResultStore", True),  # the side room: no runner
    ("flt_theory.report.markdown", "def f():\n    from ..systems import registry", True),  # not even in a function
    ("flt_theory.report.figures", "from ..checking.check import check", True),
    ("flt_theory.report.table", "from ..laws_check import verify_law", True),
    ("flt_theory._text", "def f():\n    from .systems import registry", True),  # a helper above the lowest floor
    ("flt_theory.report", "def __getattr__(name):\n    from ..systems import registry", True),  # not its re-export
    ("flt_theory.commands.verify", "from ..laws_check import verify_law\nfrom ..report.law_figure import "
                                   "write_law_report\nfrom ..systems.giant_step.verify import verify", False),
    ("flt_theory.checking.check", "from ..report.table import format_table\nfrom ..runner.store import ResultStore\n"
                                  "from ..systems import registry\nfrom ..compare.verdict import decide_claim", False),
    ("flt_theory.report.table", "from ..compare.result import fmt\nfrom .._display import html_table\n"
                                "def f():\n    import matplotlib", False),  # a lazy import of a library is not judged
    ("flt_theory.systems.registry", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                    "    from ..checking.check import check", False),  # never runs
    ("flt_theory.cli", "from . import __version__\nfrom .commands.base import InputError", False),
    ("flt_theory.report", "def __getattr__(name):\n    from ..checking.check import check", False),  # its re-export
])
def test_floor_rule_detects_imports_up_the_floors(module, source, bad):
    parts = module.split(".")
    assert bool(floor_violations(source, parts, is_package=module == "flt_theory.report")) is bad


@pytest.mark.parametrize("source,bad", [
    ("from ..contrastive.declaration import compare_level", True),
    ("from .. import contrastive", True),
    ("import flt_theory.systems.contrastive.figures", True),
    ("def f():\n    from flt_theory.systems.contrastive import model", True),
    ("from ..frames import ladder_by\nfrom ..levels import compare_level\nfrom ..declaration import Claim", False),
    ("from . import laws, model\nfrom .model import draw\nfrom ...numeric.signal_noise import snr", False),
    ("from ..in_context import model", False),  # its own folder, written the long way
])
def test_cross_system_rule_detects_imports(source, bad):
    module = ["flt_theory", "systems", "in_context", "declaration"]
    assert bool(cross_system_imports(source, module, {"contrastive", "in_context"})) is bad


@pytest.mark.parametrize("source,bad", [
    ("gen.manual_seed((seed * 0x9E3779B1 + zlib.crc32(stream.encode())) % 2**63)", True),
    ("state = (state + 0x9e3779b97f4a7c15) & mask", True),
    ("gen = torch.Generator().manual_seed(seed)", True),
    ("gen.manual_seed(fold_in(seed, 'init', block))", False),
    ("gen = stream_generator(seed, 'attention', stream)", False),
])
def test_seed_stream_rule_detects_hand_derivations(source, bad):
    assert bool(seed_stream_violations(source)) is bad


_LAZY = "def g():\n    from .a import f\n"  # pkg.b's function-local import of pkg.a, line 2


@pytest.mark.parametrize("modules,found", [
    ({"pkg.a": "from .b import g\n", "pkg.b": _LAZY}, ["pkg.b:2 -> pkg.a"]),  # a imports b at module level
    ({"pkg.a": "import math\n", "pkg.b": _LAZY}, []),  # one way: no cycle
    ({"pkg.a": "def f():\n    from .b import g\n", "pkg.b": _LAZY},  # two function-local imports of each other
     ["pkg.a:2 -> pkg.b", "pkg.b:2 -> pkg.a"]),
    ({"pkg.a": "from .c import h\n", "pkg.c": "import pkg.b\n", "pkg.b": _LAZY}, ["pkg.b:2 -> pkg.a"]),  # via c
    ({"pkg.a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import g\n", "pkg.b": _LAZY}, []),
    ({"pkg.a": "if TYPE_CHECKING:\n    pass\nelse:\n    from .b import g\n", "pkg.b": _LAZY}, ["pkg.b:2 -> pkg.a"]),
    ({"pkg.a": "class A:\n    from .b import g\n", "pkg.b": _LAZY}, ["pkg.b:2 -> pkg.a"]),  # a class body runs
    # pkg imports a at module level, a imports b: c is inside pkg but does not import it, so b's import of c is free
    ({"pkg.a": "from .b import g\n", "pkg.b": "def g():\n    from .c import h\n", "pkg.c": "from . import d\n",
      "pkg.d": ""}, []),
    # ... unless c names the package itself (an attribute of its __init__), which imports a, which imports b
    ({"pkg.a": "from .b import g\n", "pkg.b": "def g():\n    from .c import h\n", "pkg.c": "from pkg import f\n"},
     ["pkg.b:2 -> pkg.c"]),
    # a package's lazy attribute (its own module, on first use) is exempt; a module's lazy import of its package is not
    ({"pkg": ("def __getattr__(name):\n    from .a import f\n", True), "pkg.a": "from pkg import VERSION\n"}, []),
    ({"pkg.a": "def f():\n    from pkg import VERSION\n"}, ["pkg.a:2 -> pkg"]),
])
def test_cycle_rule_detects_function_local_imports_that_close_a_cycle(modules, found):
    sources = {"pkg": ("from .a import f\nVERSION = 1\n", True)}  # the package imports a at module level
    sources.update({name: text if isinstance(text, tuple) else (text, False) for name, text in modules.items()})
    assert cycle_dodges(sources) == found


# -- the package keeps them ------------------------------------------------------------------------------------------


def test_no_system_imports_another_system():
    systems = _system_folders()
    assert {"signal_noise", "contrastive", "in_context"} <= systems
    found = {}
    for path, source in _package_sources():
        if SYSTEMS not in path.parents:
            continue
        module = _module_of(path)
        if len(module) < 3 or module[2] not in systems:
            continue  # a systems-level shared module (declaration.py, frames.py, levels.py, registry.py)
        bad = cross_system_imports(source, module, systems, is_package=path.name == "__init__.py")
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, f"systems import each other (move what they share to flt_theory/numeric or systems/*.py): {found}"


def test_one_seed_stream_function():
    found = {}
    for path, source in _package_sources():
        if path == SEEDS:
            continue
        bad = seed_stream_violations(source)
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, f"seed streams derived outside flt_theory.numeric.seeds.fold_in: {found}"
    assert seed_stream_violations(SEEDS.read_text(encoding="utf-8"))  # the one place that holds the constants


def test_imports_run_down_the_floors():
    found = {}
    floors = set()
    for path, source in _package_sources():
        module = _module_of(path)
        floors.add(floor_of(".".join(module)))
        bad = floor_violations(source, module, is_package=path.name == "__init__.py")
        if bad:
            found[".".join(module)] = bad
    assert floors >= {*range(len(FLOORS)), "report", "helper"}  # every floor holds modules to judge
    assert not found, (f"imports that run up the floors, or into or out of the report (cli -> commands -> checking, "
                       f"laws_check -> systems -> runner, numeric, symbolic, compare; report imports none of "
                       f"{REPORT_IMPORTS_NONE_OF}): {found}")


def test_the_compat_reexports_only_reexport():
    """Each module of :data:`COMPAT_REEXPORTS` imports the module its names moved to only to hand them on: at module
    level, or in its ``__getattr__``; and each still exists (remove the entry with the re-export)."""
    for name, moved in COMPAT_REEXPORTS.items():
        parts = name.split(".")
        path = PACKAGE.parent.joinpath(*parts)
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        seen = False
        for function in functions:
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names = [n for _, n, _ in scoped_imports(ast.unparse(node), parts,
                                                             is_package=path.name == "__init__.py")]
                    if any(_within(n, moved) for n in names):
                        assert function.name == "__getattr__", f"{name}: {function.name} imports {moved}"
                        seen = True
        seen |= any(_within(n, moved) and not inside for _, n, inside in
                    scoped_imports(path.read_text(encoding="utf-8"), parts, is_package=path.name == "__init__.py"))
        assert seen, f"{name} no longer re-exports from {moved}: remove it from COMPAT_REEXPORTS"


def _compat_cycle(entry: str) -> bool:
    """Whether a :func:`cycle_dodges` entry is the ``__getattr__`` of a re-export of :data:`COMPAT_REEXPORTS` (the
    moved names' module imports the old one, so the re-export loads on first use)."""
    importer, imported = entry.split(" -> ")
    moved = COMPAT_REEXPORTS.get(importer.split(":")[0])
    return moved is not None and (_within(imported, moved) or _within(moved, imported))  # or a package above it


def test_no_function_local_import_dodges_a_cycle():
    sources = {".".join(_module_of(path)): (source, path.name == "__init__.py") for path, source in _package_sources()}
    graph = import_graph(sources)
    assert sum(len(local) for _, local in graph.values()) > 20  # the rule has function-local imports to judge
    assert sum(len(top) for top, _ in graph.values()) > 200  # and module-level ones
    found = [entry for entry in cycle_dodges(sources) if not _compat_cycle(entry)]
    assert not found, (f"function-local imports that would close an import cycle at module level (move what the "
                       f"two modules share into the lower one, so that the dependency runs one way): {found}")
