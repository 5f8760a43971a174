r"""Code fingerprints: which code computed a stored row.

A stored row may be served only to the code that produced it (see :mod:`.store`). Bumping an
experiment's ``version`` by hand is easy to forget, so every row also carries the
:func:`code_fingerprint` of its experiment, computed from the source code itself: a sweep reuses a
row only when the fingerprint stored with it equals the current one.

What is hashed (SHA-256, hex):

* the source file of the module that registers the experiment (it holds the function and its
  decorator) and of every module it imports, transitively, that is *project code*: a module of
  ``flt_theory`` or, for an experiment registered outside ``flt_theory``, a module found in the same
  folder tree as the registering module (its ``sys.path`` entry, e.g. a helper ``model.py`` next to
  ``my_claims.py``), never one installed under a library folder (the standard library,
  ``site-packages``: their versions are recorded in the rows' provenance columns, and hashing torch
  would cost seconds);
* the function's own source where no hashed file holds it (a function defined in a doctest, in an
  excluded module or without a file: ``inspect.getsource``, else its marshalled code object).

Imports are read from the files' text, not from what a process happens to have imported: every
``import``/``from ... import`` statement at the start of a line, function-local ones included (a
regular expression: 30 times faster than ``ast.parse``, and it finds the same files for every
experiment of this project; an import quoted in a docstring or under ``if TYPE_CHECKING:`` counts
too, which can only add files). ``import a.b`` and ``from a.b import c`` count the module ``a.b`` (and ``a.b.c`` when it
is a submodule); a package's ``__init__`` counts when the package itself is named, not when it is only the
parent of an imported submodule (the project's ``__init__`` files only re-export names).

Not followed: the layers of ``flt_theory`` that store, read, compare or present rows and never
compute a measured number — :data:`EXCLUDED` (the runner, the comparisons, the report and the
CLI, text formatting, the claim declarations machinery and each system's figures). Editing them
keeps the stored rows; editing anything else the experiment reaches (its model, ``numeric``,
``symbolic``, the registering ``declaration.py`` itself, claims included) makes them stale, which is
conservative: at worst a row is recomputed. Data files read at run time, environment variables
and dynamic imports (``importlib.import_module``) are not seen; an experiment that depends on
them bumps its ``version``.

Determinism. File contents are hashed with line endings normalised to ``\n``; paths, module names
and modification times never enter the hash, and the files' digests enter it sorted, so two
processes or machines with the same source compute the same fingerprint, whatever the folder
they run from or the order of their imports.

Cost. Nothing is computed at import or registration: the fingerprint is computed on first use (the
first sweep of the experiment in a process). A file is read once per process (imports found by a
regular expression, see above) and re-read only when its size or modification time changes; the
fingerprint is cached with the ``(size, mtime)`` of every file it hashed, so a later call costs one
``stat`` per file and reflects the files as they are on disk at the time of the sweep. Measured on 2
busy cores: about 40 ms the first time for a giant-step experiment (33 files), 0.16 s for all 24
registered experiments, then 0.2 ms per sweep. A process that keeps running code it imported before
the files were edited (no ``importlib.reload``) labels its rows with the fingerprint of the
edited files: reload what you edit, or restart.

>>> def f(params, seed):
...     return {"y": 1.0}
>>> fp = code_fingerprint(f)
>>> len(fp), fp == code_fingerprint(f)
(64, True)
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import marshal
import re
import site
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["EXCLUDED", "code_files", "code_fingerprint"]

#: The scheme of the hash, bumped when what is hashed changes so that no fingerprint of one scheme
#: equals one of another.
SCHEME = "flt-code-fingerprint/1"

#: ``flt_theory`` modules (and their submodules) that are not followed: they store, read, compare or
#: present rows, or declare claims, and never compute a stored number.
EXCLUDED = (
    "flt_theory.cli",
    "flt_theory.commands",
    "flt_theory.checking",
    "flt_theory.laws_check",
    "flt_theory.report",
    "flt_theory.runner",
    "flt_theory.compare",
    "flt_theory._text",
    "flt_theory.systems.declaration",
    "flt_theory.systems.registry",
    "flt_theory.systems.frames",
    "flt_theory.systems.*.figures",
)

_PACKAGE = "flt_theory"
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent  # the folder that holds flt_theory/


@dataclass(frozen=True)
class _Source:
    """One parsed source file: its digest and its import statements ``(level, module, names)``."""

    stamp: tuple[int, int]
    digest: str
    imports: tuple[tuple[int, str, tuple[str, ...]], ...]


_LOCK = threading.Lock()
_SOURCES: dict[Path, _Source] = {}
#: function -> ((path, stamp) of every file hashed, fingerprint)
#: (module name, user root) -> its project file or None (:meth:`_Walk.find`)
_FOUND: dict[tuple[str, Path | None], Path | None] = {}
_FINGERPRINTS: dict[Callable[..., Any], tuple[tuple[tuple[Path, tuple[int, int]], ...], str]] = {}


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)


#: An import statement at the start of a line: ``from X import names`` (names possibly in parentheses over
#: several lines) or ``import a.b as c, d``.
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]*))", re.M)


def _names(text: bytes) -> tuple[str, ...]:
    """``a as b, c`` (or ``(a,  # comment\n b)``) -> ``("a", "c")``."""
    text = re.sub(rb"#[^\n]*", b"", text)
    items = (part.split()[0] for part in text.decode("utf-8", "replace").strip("() \t\n").split(",") if part.split())
    return tuple(item for item in items if item != "*" and (item.replace(".", "").isidentifier()))


def _imports(data: bytes) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    r"""Every import statement of the source ``data`` as ``(level, module, names)`` (module docstring).

    >>> sorted(_imports(b"import a.b as c, d\nfrom ..x import (y,  # why\n  z as w)\n    from . import q  # local\n"))
    [(0, 'a.b', ()), (0, 'd', ()), (1, '', ('q',)), (2, 'x', ('y', 'z'))]
    """
    for source, names, plain in _IMPORT.findall(data.replace(b"\\\n", b" ")):
        if plain:
            for module in _names(plain):
                yield (0, module, ())
        else:
            module = source.decode("utf-8", "replace")
            level = len(module) - len(module.lstrip("."))
            yield (level, module[level:], _names(names))


def _source(path: Path) -> _Source | None:
    """The digest and imports of ``path`` (cached while its size and modification time are unchanged)."""
    stamp = _stamp(path)
    if stamp is None:
        return None
    cached = _SOURCES.get(path)
    if cached is not None and cached.stamp == stamp:
        return cached
    try:
        data = path.read_bytes()
    except OSError:
        return None
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    parsed = _Source(stamp, hashlib.sha256(data).hexdigest(), tuple(sorted(set(_imports(data)))))
    _SOURCES[path] = parsed
    return parsed


@functools.lru_cache(maxsize=1)
def _library_folders() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    folders = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    folders += list(getattr(site, "getsitepackages", lambda: [])())
    try:
        folders.append(site.getusersitepackages())
    except (AttributeError, OSError):  # pragma: no cover - sites without user site-packages
        pass
    return tuple(Path(f).resolve() for f in folders if f)


def _under(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(f) for f in folders)


@functools.lru_cache(maxsize=4096)
def _excluded(name: str) -> bool:
    parts = name.split(".")
    for pattern in EXCLUDED:
        want = pattern.split(".")
        if len(parts) >= len(want) and all(w in ("*", p) for w, p in zip(want, parts)):
            return True
    return False


def _module_file(name: str, root: Path) -> Path | None:
    """The source file of module ``name`` under ``root`` (``a/b.py`` or ``a/b/__init__.py``), or None."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _loaded_file(name: str) -> Path | None:
    file = getattr(sys.modules.get(name), "__file__", None)
    return Path(file).resolve() if isinstance(file, str) and file.endswith(".py") else None


class _Walk:
    """The project files that one experiment's module reaches (module docstring)."""

    def __init__(self, module: str):
        self.libraries = _library_folders()
        self.user_root: Path | None = None
        self.files: dict[Path, str] = {}  # file -> the module name it was reached as
        start = self.start_file(module)
        if start is not None and not self.is_package_name(module):
            root = start.parent
            for _ in range(module.count(".") + (start.name == "__init__.py")):
                root = root.parent
            if not _under(root, self.libraries):
                self.user_root = root
        if start is not None and not _excluded(module):
            self.visit(module, start)

    @staticmethod
    def is_package_name(name: str) -> bool:
        return name == _PACKAGE or name.startswith(_PACKAGE + ".")

    def start_file(self, module: str) -> Path | None:
        loaded = _loaded_file(module)  # "__main__", "__mp_main__" or a module imported from anywhere
        if loaded is not None:
            return loaded
        return _module_file(module, _PACKAGE_ROOT) if self.is_package_name(module) else None

    def find(self, name: str) -> Path | None:
        """The file of module ``name`` if it is project code (module docstring), else None (cached per process)."""
        key = (name, self.user_root)
        if key not in _FOUND:
            _FOUND[key] = self._find(name)
        return _FOUND[key]

    def _find(self, name: str) -> Path | None:
        if not name or name.startswith(".") or _excluded(name):
            return None
        if self.is_package_name(name):
            return _module_file(name, _PACKAGE_ROOT)
        if self.user_root is None:
            return None
        file = _module_file(name, self.user_root)
        loaded = _loaded_file(name)
        if loaded is not None and loaded != file:  # imported from elsewhere (an installed copy)
            file = loaded if loaded.is_relative_to(self.user_root) else None
        if file is None or _under(file, self.libraries):
            return None
        return file

    def visit(self, name: str, file: Path) -> None:
        stack = [(name, file)]
        while stack:
            name, file = stack.pop()
            if file in self.files:
                continue
            parsed = _source(file)
            if parsed is None:
                continue
            self.files[file] = name
            package = name if file.name == "__init__.py" else name.rpartition(".")[0]
            for level, module, names in parsed.imports:
                if level:
                    parts = package.split(".") if package else []
                    if level - 1 >= len(parts):  # beyond the top-level package: not a valid import
                        continue
                    parts = parts[: len(parts) - (level - 1)]
                    base = ".".join(parts + ([module] if module else []))
                else:
                    base = module
                found = self.find(base)
                if found is not None:
                    stack.append((base, found))
                elif level == 0 and not (self.is_package_name(base) or self.user_root is not None):
                    continue  # a library: none of its names is project code
                for item in names:
                    sub = f"{base}.{item}"
                    found = self.find(sub)
                    if found is not None:
                        stack.append((sub, found))


def _function_digest(function: Callable[..., Any]) -> str:
    """SHA-256 of the function's source, or of its marshalled code object where it has no source."""
    inner = inspect.unwrap(function)
    try:
        text = inspect.getsource(inner).replace("\r\n", "\n").encode()
    except (OSError, TypeError):
        code = getattr(inner, "__code__", None)
        try:
            text = marshal.dumps(code) if code is not None else repr(inner).encode()
        except ValueError:  # pragma: no cover - code objects always marshal
            text = repr(inner).encode()
    return hashlib.sha256(text).hexdigest()


def code_files(function: Callable[..., Any]) -> dict[str, str]:
    """The project source files that :func:`code_fingerprint` hashes for ``function``: path -> the module name
    it was reached as (to see what an experiment's rows depend on)."""
    module = getattr(function, "__module__", None) or ""
    return {str(path): name for path, name in _Walk(module).files.items()}


def code_fingerprint(function: Callable[..., Any]) -> str:
    """The fingerprint (SHA-256 hex) of ``function`` and of the project code it imports (module docstring).

    Cached per function with the size and modification time of every file hashed: a second call
    re-checks those and recomputes only when one changed.
    """
    with _LOCK:
        cached = _FINGERPRINTS.get(function)
        if cached is not None and all(_stamp(path) == stamp for path, stamp in cached[0]):
            return cached[1]
        walk = _Walk(getattr(function, "__module__", None) or "")
        digests = sorted({_SOURCES[path].digest for path in walk.files})
        code = getattr(inspect.unwrap(function), "__code__", None)
        if code is None or Path(code.co_filename).resolve() not in walk.files:  # its source is not in a hashed file
            digests.insert(0, _function_digest(function))
        fingerprint = hashlib.sha256("\n".join([SCHEME, *digests]).encode()).hexdigest()
        _FINGERPRINTS[function] = (tuple((path, _SOURCES[path].stamp) for path in walk.files), fingerprint)
        return fingerprint
