r"""Rich-display helpers: HTML, Markdown and LaTeX tables for notebooks and papers.

Nothing here computes and nothing here imports a library: the symbolic objects (:class:`~flt_theory.Target`,
:class:`~flt_theory.Subspace`, a staircase, the regime table), a claim's verdict, the verdict table of
``flt check`` and the result of ``flt verify`` build their ``_repr_html_`` / ``_repr_latex_`` /
``_repr_markdown_`` (IPython's rich-display protocol) from these functions.

Plain text destined for LaTeX goes through :func:`latex_text`: the LaTeX specials ``\ & % $ # _ { } ~ ^``
are escaped and the Unicode symbols of the project's messages (Greek letters, ``≥``, ``≍``, ``‖``, ``²``, …) are
written as math, so the result compiles with pdfLaTeX without any Unicode set-up; a character outside the map
becomes its closest ASCII form (or ``?``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence

__all__ = [
    "PAPER_PACKAGES", "booktabs_longtable", "html_table", "latex_document", "latex_text", "markdown_cell",
    "markdown_table", "math_html",
]

_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
}

#: Unicode symbols of the project's plain-text messages, as LaTeX math.
_SYMBOLS = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "ζ": r"\zeta", "η": r"\eta",
    "θ": r"\theta", "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi", "π": r"\pi", "ρ": r"\rho",
    "σ": r"\sigma", "τ": r"\tau", "φ": r"\varphi", "χ": r"\chi", "ψ": r"\psi", "ω": r"\omega", "Γ": r"\Gamma",
    "Δ": r"\Delta", "Θ": r"\Theta", "Λ": r"\Lambda", "Ξ": r"\Xi", "Σ": r"\Sigma", "Φ": r"\Phi", "Ψ": r"\Psi",
    "Ω": r"\Omega", "ℓ": r"\ell", "≥": r"\geq", "≤": r"\leq", "≍": r"\asymp", "≈": r"\approx", "∝": r"\propto",
    "≳": r"\gtrsim", "≲": r"\lesssim", "≠": r"\neq", "→": r"\to", "⊂": r"\subset", "⊆": r"\subseteq",
    "⊖": r"\ominus", "∈": r"\in", "∞": r"\infty", "·": r"\cdot", "×": r"\times", "±": r"\pm", "−": "-",
    "√": r"\surd", "‖": r"\|", "∇": r"\nabla", "⟨": r"\langle", "⟩": r"\rangle", "∑": r"\sum", "∀": r"\forall",
    "²": "^{2}", "³": "^{3}", "¹": "^{1}", "⁰": "^{0}", "⁴": "^{4}", "ᵀ": r"^{\top}", "₀": "_{0}", "₁": "_{1}",
    "₂": "_{2}", "½": r"\tfrac12", "∅": r"\emptyset", "⊥": r"\perp",
}
_TEXT = {"—": "---", "–": "--", "…": r"\dots{}", "’": "'", "‘": "`", "“": "``", "”": "''", " ": "~"}


def latex_text(text: object) -> str:
    r"""``text`` as LaTeX text that compiles with pdfLaTeX (module docstring).

    >>> latex_text("giant-step/norm-law: 50% of κ ≥ 2, x_1 & {y}")
    'giant-step/norm-law: 50\\% of $\\kappa$ $\\geq$ 2, x\\_1 \\& \\{y\\}'
    >>> latex_text("‖w‖² — café"), latex_text("$κ")
    ('$\\|$w$\\|^{2}$ --- cafe', '\\$$\\kappa$')
    """
    pieces: list[tuple[bool, str]] = []  # (is math, LaTeX); adjacent math pieces share one $...$
    for ch in str(text):
        if ch in _SPECIALS:
            pieces.append((False, _SPECIALS[ch]))
        elif ord(ch) < 128:
            pieces.append((False, ch))
        elif ch in _SYMBOLS:
            pieces.append((True, _SYMBOLS[ch]))
        elif ch in _TEXT:
            pieces.append((False, _TEXT[ch]))
        else:
            ascii_form = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            pieces.append((False, "".join(_SPECIALS.get(c, c) for c in ascii_form)
                           if ascii_form or unicodedata.combining(ch) else "?"))
    out, math = [], False
    for is_math, piece in pieces:
        if is_math != math:
            out.append("$")
            math = is_math
        out.append(piece)
    return "".join(out) + ("$" if math else "")


def math_html(latex: str) -> str:
    r"""Inline math for an HTML cell (typeset by the notebook's MathJax): ``$...$``, HTML-escaped.

    >>> math_html(r"n^{*} \asymp d^{2} \quad (a < b)")
    '$n^{*} \\asymp d^{2} \\quad (a &lt; b)$'
    """
    return f"${html.escape(latex, quote=False)}$" if latex else ""


def html_table(
    header: Sequence[str], rows: Iterable[Sequence[str]], *, caption: str = "", escaped: bool = False
) -> str:
    """An HTML ``<table>``: one ``<tr>`` per row. Cells are HTML-escaped unless ``escaped`` (already HTML).

    >>> html_table(["a", "b"], [["1 < 2", "x"]], caption="t")  # doctest: +NORMALIZE_WHITESPACE
    '<table><caption>t</caption><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1 &lt;
    2</td><td>x</td></tr></tbody></table>'
    """
    cell = (lambda c: str(c)) if escaped else (lambda c: html.escape(str(c), quote=False))
    head = "".join(f"<th>{html.escape(h, quote=False)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    cap = f"<caption>{html.escape(caption, quote=False)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown (GitHub) table; ``|`` in a cell is escaped.

    >>> print(markdown_table(["a", "b"], [["1", "x|y"]]))
    | a | b |
    |---|---|
    | 1 | x\\|y |
    """
    lines = ["| " + " | ".join(map(markdown_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(markdown_cell, row)) + " |" for row in rows]
    return "\n".join(lines)


def markdown_cell(text: object) -> str:
    r"""A Markdown table cell on one line: a pipe in text is escaped (``\|``); in math (``$...$``) the norm ``\|``
    is written ``\Vert`` and ``|`` ``\vert``, so no backslash is doubled and no pipe splits the row.

    >>> markdown_cell(r"a|b $\|w\|^2 + |x|$")
    'a\\|b $\\Vert w\\Vert ^2 + \\vert x\\vert $'
    """
    parts = re.split(r"(\$[^$]+\$)", " ".join(str(text).split()))  # odd parts are math
    return "".join(part.replace("\\|", "\\Vert ").replace("|", "\\vert ") if i % 2 else part.replace("|", "\\|")
                   for i, part in enumerate(parts))


def booktabs_longtable(header: Sequence[str], rows: Iterable[Sequence[str]], colspec: str, *, caption: str = "",
                       label: str = "") -> str:
    r"""A ``longtable`` with booktabs rules (breaks across pages; header repeated). Cells are LaTeX already.

    Needs ``\usepackage{booktabs,longtable}`` in the preamble.

    >>> print(booktabs_longtable(["a", "b"], [["1", "2"]], "ll"))
    \begin{longtable}{ll}
    \toprule
    a & b \\
    \midrule
    \endfirsthead
    \toprule
    a & b \\
    \midrule
    \endhead
    \bottomrule
    \endlastfoot
    1 & 2 \\
    \end{longtable}
    """
    head = " & ".join(header) + r" \\"
    lines = [rf"\begin{{longtable}}{{{colspec}}}"]
    if caption:
        lines.append(rf"\caption{{{caption}}}" + (rf"\label{{{label}}}" if label else "") + r"\\")
    lines += [r"\toprule", head, r"\midrule", r"\endfirsthead", r"\toprule", head, r"\midrule", r"\endhead",
              r"\bottomrule", r"\endlastfoot"]
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines.append(r"\end{longtable}")
    return "\n".join(lines)


#: The packages a paper's preamble needs to ``\input`` a table of :func:`latex_document`.
PAPER_PACKAGES = r"\usepackage{amsmath,amssymb,booktabs,longtable}"


def latex_document(body: str, *, title: str = "") -> str:
    r"""One file that compiles alone AND can be ``\input`` into a paper: ``body`` (a table) wrapped in a document
    that exists only when the file is compiled by itself.

    How. LaTeX redefines ``\documentclass`` as ``\@twoclasseserror`` once a class is loaded, so the file tests
    (expanded once, into ``\fltStandalone``: no conditional is left in a skipped branch) whether a class is loaded:
    compiled alone (``pdflatex t.tex``) it opens its own ``article`` (landscape, small margins, with ``amsmath``,
    ``amssymb``, ``booktabs`` and ``longtable``) and closes it after the table; read by ``\input{t}`` inside a paper's
    document it is only the table, and the paper's preamble must load :data:`PAPER_PACKAGES`.

    >>> text = latex_document("TABLE", title="t")
    >>> text.index(r"\documentclass") < text.index("TABLE") < text.rindex(r"\fltEndDocument")
    True
    """
    title_line = rf"\section*{{{title}}}" if title else ""
    return "\n".join([
        "% Generated by flt_theory. Compile alone (pdflatex FILE.tex) or \\input{FILE} into a paper whose preamble",
        "% has " + PAPER_PACKAGES + "; then only the table is read.",
        r"\makeatletter",
        r"\edef\fltStandalone{\ifx\documentclass\@twoclasseserror 0\else 1\fi}",
        r"\makeatother",
        r"\if1\fltStandalone",
        r"\documentclass[10pt]{article}",
        r"\usepackage[landscape,margin=1.5cm]{geometry}",
        r"\usepackage{amsmath,amssymb,booktabs,longtable}",
        r"\newcommand\fltEndDocument{\end{document}}",
        r"\begin{document}",
        title_line,
        r"\fi",
        r"{\small\setlength{\LTcapwidth}{\linewidth}",
        body,
        r"}",
        r"\if1\fltStandalone\expandafter\fltEndDocument\fi",
        "",
    ])
