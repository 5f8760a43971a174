"""Layering contract: systems stand alone, and one function derives every seed stream.

* no file of ``flt_theory/systems/<a>/`` imports ``flt_theory/systems/<b>/`` (relative or absolute, at module
  level or inside a function, parsed with ``ast``): what two systems share lives in the numeric layer or in a
  systems-level module that is not a system folder (``frames.py``, ``levels.py``, ``declaration.py``);
* :func:`flt_theory.numeric.seeds.fold_in` is the one seed-stream derivation: no other module holds SplitMix64 or
  golden-ratio constants or hashes stream names, and every ``manual_seed`` call of the package seeds with it.

Each rule is itself tested on a small source that breaks it, so the rule can fail.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "flt_theory"
SYSTEMS = PACKAGE / "systems"
SEEDS = PACKAGE / "numeric" / "seeds.py"


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
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            out.append((node.lineno, target))
            out += [(node.lineno, f"{target}.{alias.name}") for alias in node.names if alias.name != "*"]
    return out


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


_SEED_CONSTANTS = re.compile(r"9e3779b|bf58476d1ce4e5b9|94d049bb133111eb|crc32|splitmix", re.IGNORECASE)


def seed_stream_violations(source: str) -> list[str]:
    """Places of a source that derive a seed stream by hand: SplitMix64 / golden-ratio constants, CRC hashing of
    stream names, or a ``manual_seed`` call whose argument is not a call of ``fold_in``."""
    found = [f"{source.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in _SEED_CONSTANTS.finditer(source)]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "manual_seed":
            arg = node.args[0] if node.args else None
            func = arg.func if isinstance(arg, ast.Call) else None
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name != "fold_in":
                found.append(f"{node.lineno}: manual_seed({ast.unparse(arg) if arg else ''})")
    return found


# -- the rules can fail --------------------------------------------------------------------------------------------


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


# -- the package keeps them ------------------------------------------------------------------------------------------


def test_no_system_imports_another_system():
    systems = _system_folders()
    assert {"signal_noise", "contrastive", "in_context"} <= systems
    found = {}
    for path in sorted(SYSTEMS.rglob("*.py")):
        module = _module_of(path)
        if len(module) < 3 or module[2] not in systems:
            continue  # a systems-level shared module (declaration.py, frames.py, levels.py, registry.py)
        source = path.read_text(encoding="utf-8")
        bad = cross_system_imports(source, module, systems, is_package=path.name == "__init__.py")
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, f"systems import each other (move what they share to flt_theory/numeric or systems/*.py): {found}"


def test_one_seed_stream_function():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == SEEDS:
            continue
        bad = seed_stream_violations(path.read_text(encoding="utf-8"))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, f"seed streams derived outside flt_theory.numeric.seeds.fold_in: {found}"
    assert seed_stream_violations(SEEDS.read_text(encoding="utf-8"))  # the one place that holds the constants
