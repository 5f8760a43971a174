"""Sphinx configuration of the flt_theory documentation (``sphinx-build -W --keep-going docs OUT``).

Offline by construction: no intersphinx, the default theme (alabaster, shipped with Sphinx), MathJax served
from the build's own ``_static/mathjax`` (the ``sphinx-mathjax-offline`` package ships MathJax 3), and the
pages generated from the registry and the examples executed by the local extension ``_ext/flt_docs.py``.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE / "_ext")]

import flt_theory  # noqa: E402

project = "flt_theory"
author = "the flt_theory developers"
copyright = "the flt_theory developers, MIT License"
release = version = flt_theory.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",
    "flt_docs",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

html_theme = "alabaster"
html_title = f"flt_theory {release}"
html_static_path: list[str] = []
html_theme_options = {"page_width": "1160px", "sidebar_width": "220px", "description":
                      "Derive, simulate and check feature-learning-theory laws of two-layer networks."}
html_copy_source = False

# Every cross-reference must resolve (with -W a broken one fails the build); a name a package re-exports resolves
# to where it is defined, and one of a layer these pages leave out need only exist (flt_docs.resolve_reexport,
# flt_docs.outside_these_pages). Not checked, as these pages do not document them:
nitpicky = True
nitpick_ignore_regex = [
    # other libraries (no intersphinx: the build is offline)
    ("py:.*", r"'?(sympy|sp|numpy|np|npt|pandas|pd|scipy|torch|mpmath|click|collections|typing|os|fractions|pathlib"
              r"|random|unittest)"
              r"(\..*)?'?"),
    # numpydoc type phrases that are no names: "array_like, shape (seeds, d)", "{'a', 'b'}", "optional"
    ("py:class", r"[a-z_ ]+|\{.*|.*\}|'.*'|.*->.*"),
    # type aliases in the annotations
    ("py:class", r"ArrayLike|RngLike|Bounds|Mode|LawLike|Comparison|~?P"),
    # standard-library types that a hint names by their short name (``from pathlib import Path``)
    ("py:class", r"Path|Fraction"),
    # sympy's polynomial ring types, imported for hints only (sympy.polys.rings, no documented page of its own)
    ("py:class", r"PolyRing|PolyElement"),
    # private classes in a hint (autodoc documents no private name, so these can never resolve)
    ("py:class", r"flt_theory(\.\w+)*\._\w+"),
]
