"""Sphinx extension of the flt_theory documentation: pages generated from the code, examples run at build time.

* On ``builder-inited`` it writes, under ``docs/_generated/`` (git-ignored, rewritten only where the text
  changed so that an unchanged page is not re-read):

  - ``systems/<name>.md``, one page per system of the registry (:mod:`flt_theory.systems.registry`): its
    sources, every claim from the catalogue (:func:`flt_theory.checking.catalogue.catalogue`: the law and the wrong
    law of its negative control as math, status, source, hypotheses, measurement), every law of the system
    (LaTeX rendered by MathJax), and the help of its ``flt simulate`` subcommand as the CLI prints it;
  - ``api/`` pages: the names of ``flt_theory.__all__`` (documented where they are defined) and one page per
    module of the layers of :data:`API_PACKAGES`: :mod:`flt_theory.symbolic`, :mod:`flt_theory.numeric`,
    :mod:`flt_theory.compare`, :mod:`flt_theory.runner`, :mod:`flt_theory.checking`, :mod:`flt_theory.laws_check`
    and :mod:`flt_theory.report` (autodoc).

* The ``flt-example`` directive runs a script of ``docs/examples/`` (``python SCRIPT``, or ``pytest SCRIPT``
  with the ``:pytest:`` flag, which also shows what the tests print) in a temporary folder, shows its source
  and its output, and with ``:math:`` renders every output line ``label: LaTeX`` as a formula. A script that
  exits non-zero is an error of the build, so ``sphinx-build -W`` fails on a failing example.

* Cross-references (``nitpicky`` in ``conf.py``): a lowercase word of a parameter's type (``shape (seeds, d)``)
  is text, not a reference (``doctree-read``); a name a package re-exports resolves to where it is defined
  (``missing-reference``), and a reference from a layer these pages leave out to a name that exists there is
  not a warning (``warn-missing-reference``); every other unresolved reference is one, and fails ``-W``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import pkgutil
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

GENERATED = "_generated"
#: Seconds an example may run before the build fails.
EXAMPLE_TIMEOUT = 300
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>$|#~{}])")


def md(text: str) -> str:
    r"""Plain text as Markdown that renders as written (``f* = z1*z2`` stays unemphasised).

    >>> md("f* = z1*z2 and <w, mu>")
    'f\\* = z1\\*z2 and \\<w, mu\\>'
    """
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _display_math(latex: str) -> list[str]:
    return ["```{math}", latex, "```", ""]


def _escaped_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A catalogue entry whose plain-text hypothesis fields are Markdown-escaped (their LaTeX is kept)."""
    hypotheses = [{**h, "text": md(h["text"]), "where": md(h["where"])} for h in entry["hypotheses"]]
    return {**entry, "hypotheses": hypotheses, "hypotheses_reading": md(entry["hypotheses_reading"]),
            "extrapolation_note": md(entry["extrapolation_note"])}


def simulate_help(name: str) -> str:
    """``flt simulate NAME --help`` as the command prints it."""
    from flt_theory.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["simulate", name, "--help"])
    if code not in (0, None):
        raise RuntimeError(f"flt simulate {name} --help exited with {code}")
    return out.getvalue().rstrip()


def _claim_lines(claim: Any, entry: dict[str, Any]) -> list[str]:
    """A claim: its words, law and wrong law as math, and the catalogue's facts about it (``entry``)."""
    from flt_theory.report.catalogue import _STATUS, _hypotheses_text

    seeds = ", ".join(f"{scale} {n}" for scale, n in entry["seeds"].items())
    inside = ", ".join(f"{scale}: {where}" for scale, where in entry["in_hypotheses_by_scale"].items())
    return [f"### `{entry['key']}`", "", md(entry["words"]), "",
            f"**Law** ({_STATUS[entry['status']]}): {md(entry['law'])}", ""] + _display_math(entry["latex"]) + [
            f"**Negative control** (the wrong law, must be rejected): {md(entry['wrong_law'])}", ""] + _display_math(
            entry["wrong_law_latex"]) + [
            f"- **source**: {md(entry['source']['cite'])}",
            *([f"- **regime**: {md(claim.the_law.regime)}"] if claim.the_law.regime else []),
            f"- **measurement**: experiment `{entry['experiment']}`, seeds {seeds}",
            f"- **points inside the hypotheses**: {inside}",
            f"- **hypotheses**: {_hypotheses_text(_escaped_entry(entry))}", ""]


def _law_lines(law: Any) -> list[str]:
    lines = [f"### {md(law.name)}", "", f"*{law.status}*" + (f" — {md(law.words)}" if law.words else ""), ""]
    lines += _display_math(law.latex())
    lines.append(f"- **source**: {md(law.source.cite())}")
    if law.regime:
        lines.append(f"- **regime**: {md(law.regime)}")
    for h in law.hypotheses:
        lines.append(f"- **hypothesis** ({md(h.where)}): {md(h.text)}, {{math}}`{h.latex}`")
    return lines + [""]


def system_page(system: Any, entries: list[dict[str, Any]]) -> str:
    """The Markdown page of one registered system (its claims are the catalogue ``entries`` of that system)."""
    lines = [f"# {system.name}: {md(system.title)}", "", md(system.summary), "",
             "**Sources**: " + "; ".join(md(s.cite()) for s in system.sources) + ".", "",
             f"Run its claims with `flt check {system.name}`; each passes only when its law's check passes AND the "
             "same measurement compared with the wrong law fails.", "", "## Claims", ""]
    by_key = {e["key"]: e for e in entries}
    for claim in system.claims:
        lines += _claim_lines(claim, by_key[claim.key])
    laws = system.laws()
    lines += ["## Laws", "", f"Every law the system declares ({len(laws)}), rendered from its sympy value.", ""]
    for law in laws:
        lines += _law_lines(law)
    if system.simulate is not None:
        lines += [f"## `flt simulate {system.name}`", "",
                  f"`flt_theory.simulate(\"{system.name}\", ...)` takes the same options by their Python names.", "",
                  "```text", simulate_help(system.name), "```", ""]
    return "\n".join(lines)


def systems_index(systems: list[Any]) -> str:
    lines = ["# Systems", "", "One page per system of the registry, generated when these pages are built: its claims "
             "(law and negative control), its laws, the sources and their hypotheses, and the options of "
             "`flt simulate`.", "", "```{toctree}", ":maxdepth: 1", ""]
    lines += [s.name for s in systems] + ["```", ""]
    return "\n".join(lines)


def _rst_title(text: str, char: str = "=") -> list[str]:
    return [text, char * len(text), ""]


#: The layers whose modules get one API page each.
API_PACKAGES = ("flt_theory.symbolic", "flt_theory.numeric", "flt_theory.compare", "flt_theory.runner",
                "flt_theory.checking", "flt_theory.laws_check", "flt_theory.report")
#: Every module or package documented in full (the errors, the layers, then the public system contract).
API_PAGES = ("flt_theory.errors",) + API_PACKAGES + ("flt_theory.testing",)


def api_modules(package: str) -> list[str]:
    """The public modules of ``package`` (names not starting with ``_``), sorted."""
    pkg = importlib.import_module(package)
    return [f"{package}.{m.name}" for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name)
            if not m.name.startswith("_")]


def _documented_in_full(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in API_PAGES)


def api_top_page() -> str:
    """``flt_theory``: its docstring, then every name of ``__all__`` — a link where a layer's page documents it,
    its documentation here otherwise (under the name of the module that defines it)."""
    import flt_theory

    lines = _rst_title("flt_theory") + [".. automodule:: flt_theory", "   :no-members:", "",
                                        f"``flt_theory.__version__`` is ``{flt_theory.__version__!r}``.", "",
                                        "Names of ``flt_theory.__all__``:", ""]
    here = []
    for name in flt_theory.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(flt_theory, name)
        target = f"{obj.__module__}.{obj.__qualname__}"
        lines.append(f"* ``flt_theory.{name}``: :py:obj:`{target}`")
        if not _documented_in_full(obj.__module__):
            kind = "autoexception" if isinstance(obj, type) and issubclass(obj, BaseException) else (
                "autoclass" if isinstance(obj, type) else "autofunction")
            here.append((kind, target))
    lines += ["", *_rst_title("Defined outside the errors and layer pages", "-")]
    for kind, target in here:
        lines += [f".. {kind}:: {target}", *(["   :members:"] if kind != "autofunction" else []), ""]
    return "\n".join(lines)


def api_module_page(module: str) -> str:
    """Every public name of ``module`` that has a docstring (in ``__all__`` or not: a docstring may refer to any)."""
    return "\n".join(_rst_title(module) + [f".. automodule:: {module}", "   :members:", "   :ignore-module-all:", ""])


def api_package_page(package: str) -> str:
    lines = _rst_title(package) + [f".. automodule:: {package}", "   :no-members:", "", ".. toctree::",
                                   "   :maxdepth: 1", ""]
    lines += [f"   {m}" for m in api_modules(package)]
    return "\n".join(lines + [""])


def write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(app: Any) -> None:
    """Write the generated pages into ``<srcdir>/_generated`` (``builder-inited``)."""
    from flt_theory.checking.catalogue import catalogue
    from flt_theory.systems import registry

    root = Path(app.srcdir) / GENERATED
    registry.check_loaded()
    systems = list(registry.systems())
    entries = catalogue()
    pages = {"systems/index.md": systems_index(systems), "api/flt_theory.rst": api_top_page(),
             "api/flt_theory.errors.rst": api_module_page("flt_theory.errors"),
             "api/flt_theory.testing.rst": api_module_page("flt_theory.testing")}
    pages.update({f"systems/{s.name}.md": system_page(s, entries) for s in systems})
    for package in API_PACKAGES:
        pages[f"api/{package}.rst"] = api_package_page(package)
        pages.update({f"api/{m}.rst": api_module_page(m) for m in api_modules(package)})
    stale = {p for p in root.rglob("*") if p.is_file()} - {root / name for name in pages}
    for path in stale:  # a system or module that no longer exists
        path.unlink()
    for name, text in pages.items():
        write_if_changed(root / name, text)


def run_example(script: Path, *, pytest: bool, repo: Path) -> subprocess.CompletedProcess:
    """Run ``script`` in a fresh temporary folder (so it leaves no store behind) with the repository importable."""
    # the project's addopts (workers of pytest-xdist, the doctests of the file) are not wanted here
    command = [sys.executable, "-m", "pytest", "-q", "-rP", "-p", "no:cacheprovider", "-o", "addopts=--strict-markers",
               str(script)] if pytest else [sys.executable, str(script)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")])),
           "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory(prefix="flt-docs-example-") as tmp:
        return subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True, timeout=EXAMPLE_TIMEOUT)


class ExampleDirective(SphinxDirective):
    """``flt-example SCRIPT`` (relative to the document): the script's source, run, and its output."""

    required_arguments = 1
    option_spec = {"pytest": directives.flag, "math": directives.flag}

    def run(self) -> list[nodes.Node]:
        rel, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        script = Path(path)
        if not script.is_file():
            raise self.error(f"flt-example: no script {rel!r}")
        self.env.note_dependency(rel)
        pytest = "pytest" in self.options
        try:
            done = run_example(script, pytest=pytest, repo=Path(self.env.srcdir).parent)
        except subprocess.TimeoutExpired:
            raise self.error(f"flt-example {rel}: ran longer than {EXAMPLE_TIMEOUT} s") from None
        output = (done.stdout + done.stderr).rstrip()
        if done.returncode != 0:
            raise self.error(f"flt-example {rel}: exited with {done.returncode}:\n{output[-3000:]}")
        source = nodes.literal_block(text=script.read_text(encoding="utf-8").rstrip(), language="python")
        how = "pytest -q -rP" if pytest else "python"
        said = nodes.paragraph("", "Output of ", nodes.literal(text=f"{how} {script.name}"),
                               nodes.Text(", run when this page was built:"))
        result = [source, said,
                  nodes.literal_block(text=output, language="text")]
        if "math" in self.options:
            result += self._formulas(done.stdout)
        return result

    def _formulas(self, stdout: str) -> list[nodes.Node]:
        """Every output line ``label: LaTeX`` as a label and a displayed formula."""
        out: list[nodes.Node] = []
        for line in stdout.splitlines():
            label, sep, latex = line.partition(": ")
            if sep and latex.strip():
                out.append(nodes.paragraph(text=label))
                out.append(nodes.math_block(latex, latex, nowrap=False, number=None, docname=self.env.docname))
        return out


_MISSING = object()
#: A word of a numpydoc type that names no object of the project (``array_like``, ``shape (seeds, d)``,
#: ``optional``, ``int``), or a size of a shape (``2m``, ``d-1``, ``2m+n``): lowercase letters, digits and
#: arithmetic, undotted (the project's classes are CamelCase, its modules dotted).
_TYPE_WORD = re.compile(r"[a-z_][a-z0-9_]*|[a-z0-9_]+(?:[-+*/][a-z0-9_]+)*")


def plain_type_words(app: Any, doctree: Any) -> None:
    """``doctree-read``: the lowercase words and shape sizes of a parameter's type (``values : array_like, shape
    (seeds, 2m+n)``) stay plain text. The Python domain makes every word of a type field a reference searched by suffix,
    so ``seeds`` of a shape would link to any documented attribute ``*.seeds`` (or be ambiguous between several)."""
    for node in list(doctree.findall(addnodes.pending_xref)):
        if (node.get("refdomain") == "py" and node.get("refspecific") and node.get("reftype") in ("class", "obj")
                and _TYPE_WORD.fullmatch(node["reftarget"])):
            node.replace_self(node.children)


def prose_attribute_docs(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """``autodoc-process-docstring``, run before napoleon's: the documentation of a constant, attribute or property
    (a ``#:`` comment, say) is prose, its type the annotation. Napoleon reads the text before the first colon of its
    first line as numpydoc's inline ``type: description``, so ``#: Rows per block, per device: the unit ...`` would
    become a reference to a class "Rows per block, per device"; an empty type put in front keeps the line whole.

    >>> lines = ["Rows per block, per device: the unit", "of a stream."]
    >>> prose_attribute_docs(None, "data", "BLOCK_ROWS", None, None, lines)
    >>> lines
    [': Rows per block, per device: the unit', 'of a stream.']
    """
    if what not in ("data", "attribute", "property"):
        return
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None:
        lines[first] = ": " + lines[first]


def lookup(name: str) -> Any:
    """The object that the dotted ``name`` of flt_theory reaches (a module, then attributes), or ``_MISSING``."""
    parts = name.split(".")
    if parts[0] != "flt_theory":
        return _MISSING
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attr in parts[split:]:
            obj = getattr(obj, attr, _MISSING)
        return obj
    return _MISSING


def canonical_name(name: str) -> str | None:
    """``module.qualname`` of the object that the dotted ``name`` of flt_theory reaches, where it has one.

    >>> canonical_name("flt_theory.compare.mean_ci")
    'flt_theory.compare.bootstrap.mean_ci'
    """
    obj = lookup(name)
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if isinstance(module, str) and isinstance(qualname, str) else None


def resolve_reexport(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """``missing-reference``: a Python name that the docs do not document where it is referenced — a name a
    package re-exports (``flt_theory.compare.mean_ci``), or a short name in a package's docstring — resolves
    to the one place that documents it: the module that defines it, or else the one documented name of the same
    package that ends with it. Anything else stays missing (and fails a ``-W`` build)."""
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    target, module = node["reftarget"].lstrip("."), node.get("py:module") or ""
    for name in [target, f"{module}.{target}"] if module else [target]:
        canonical = canonical_name(name)
        if canonical and canonical != name and canonical in domain.objects:
            return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], canonical, node, contnode)
    package = ".".join(module.split(".")[:2])
    ends = [name for name in domain.objects if name.startswith(package + ".") and name.endswith("." + target)]
    if package and len(ends) == 1:
        return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], ends[0], node, contnode)
    return None


def outside_these_pages(app: Any, domain: Any, node: Any) -> bool | None:
    """``warn-missing-reference``: no warning for a reference that reaches an existing object of a layer these
    pages leave out (systems, cli), or that comes from one (their docstrings reach the
    top page through ``flt_theory.check`` and the like) and names something that exists there (in that module or
    a package above it). A name that exists nowhere is still a warning, and so is an undocumented one of the
    documented modules."""
    if domain.name != "py":
        return None
    module = node.get("py:module") or ""
    target, parts = node["reftarget"].lstrip("~."), module.split(".") if module else []
    names = [target] + [".".join(parts[:i] + [target]) for i in range(len(parts), 0, -1)]  # the module, its packages
    found = [name for name in names if lookup(name) is not _MISSING]
    if not found:
        return None
    return True if (module and not _documented_in_full(module)) or not _documented_in_full(found[0]) else None


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    app.connect("autodoc-process-docstring", prose_attribute_docs, priority=400)  # napoleon's runs at 500
    app.connect("doctree-read", plain_type_words)
    app.connect("missing-reference", resolve_reexport)
    app.connect("warn-missing-reference", outside_these_pages)
    app.add_directive("flt-example", ExampleDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
