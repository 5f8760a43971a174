r"""Figures of ``flt check``: one generic figure per claim (system-specific figures are declared by
each system, :class:`~flt_theory.systems.declaration.Figure`, and drawn on a figure made here).

Generic figure. Every :class:`~flt_theory.compare.result.CheckResult` is read into
:class:`Comparison` rows — one per estimate, each with its own interval and label
(``details["labels"]``, the parts of a conjunction flattened) — and drawn one panel per row:

* the measured value with its CI (blue);
* the law (orange): an equality as a line with its tolerance band; a bound as a line, its slack as
  a dotted line, and the side the check rejects shaded FROM the bound moved by the slack. In
  ``mode="demonstrated"`` the whole CI must avoid that side, so a PASS point never lies in it; in
  ``mode="consistent"`` (the law is the null hypothesis) the check fails only when the whole CI
  lies there, and the shading says so. The two halves of a two-sided check on one estimate
  (``≥ a`` and ``≤ b``) share one panel;
* the negative control (grey), in the panel's unit: the wrong law's prediction where it reads the
  same quantity; converted where it reads the same data in another unit (mass ↔ mass / random
  level, a quantity divided by the law's rate); or, where the wrong law names another quantity
  of the same unit (another subspace), the control's own estimate and CI.

The y axis names the quantity and its unit (read from the comparator: fitted exponent, mass on
U, mass / random level, fraction, count / trials, ...); panels are titled by the entry's label in
plain text. A check whose every entry is exact (a zero-width interval, e.g. "0 on every seed")
carries nothing beyond the table: :func:`carries_information` is False and the report draws no
figure for it.

Drawing uses matplotlib's object API on the Agg canvas — no pyplot, no global backend switch.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

__all__ = [
    "Comparison",
    "carries_information",
    "comparisons",
    "control_rows",
    "entries",
    "ladder_axis",
    "ladder_groups",
    "new_figure",
    "plain_text",
    "plot_comparisons",
    "plot_ladder",
    "save_figure",
    "slug",
]

MEASURED = "#1f4e9c"  # blue: what was measured
PREDICTED = "#d9480f"  # orange: what the law predicts
CONTROL = "#7a7a7a"  # grey: the wrong law of the negative control

_RELATION_TEXT = {"=": "=", ">=": "≥", "<=": "≤", ">": ">", "in": "in", "": ""}


@dataclass(frozen=True)
class Comparison:
    """One measured quantity against its prediction.

    ``relation`` is ``"="`` (equality, ± ``tolerance``), ``">="``/``"<="``/``">"`` (a bound, with
    slack ``tolerance``), ``"in"`` (``predicted ≤ x ≤ upper``, slack ``tolerance`` on both sides)
    or ``""`` (nothing numeric to compare with). ``quantity`` names the y axis (quantity and unit),
    ``mode`` is the check's reading (``"consistent"``, ``"demonstrated"`` or ``""``), ``kind`` the
    comparator (``"bound"``, ``"subspace"``, ``"not-learned"``, ``"power"``, ``"transition"``,
    ``"count"``, ``"ordering"``, ``"exact"``, ``""``) and ``per_mass`` (for ``"not-learned"``) the
    factor from a mass to this row's unit (1 / its random level).
    """

    label: str
    measured: float
    low: float
    high: float
    predicted: float | None
    relation: str
    tolerance: float = 0.0
    passed: bool | None = None
    quantity: str = ""
    mode: str = ""
    kind: str = ""
    upper: float | None = None
    per_mass: float | None = None

    def allowed(self) -> tuple[float, float]:
        """The values the law allows, bounds moved by the slack: ``(low, high)`` (infinite ends open).

        >>> Comparison("x", 1.0, 0.9, 1.1, 2.0, ">=", 0.1).allowed()
        (1.9, inf)
        """
        p, s = self.predicted, self.tolerance
        if p is None or not math.isfinite(p):
            return -math.inf, math.inf
        if self.relation == "=":
            return p - s, p + s
        if self.relation in (">=", ">"):
            return p - s, math.inf
        if self.relation == "<=":
            return -math.inf, p + s
        if self.relation == "in":
            return p - s, (self.upper if self.upper is not None else math.inf) + s
        return -math.inf, math.inf

    def law_text(self) -> str:
        """``≥ 2 (slack 0.1)``, ``= 1 ± 0.25``, ``in [0.9, 1.1]``: the law of this row as text."""
        if self.predicted is None or not self.relation:
            return "no numeric prediction"
        if self.relation == "in" and self.upper == self.predicted:
            text = f"= {_g(self.predicted)}"
        elif self.relation == "in":
            text = f"in [{_g(self.predicted)}, {_g(self.upper)}]"
        else:
            text = f"{_RELATION_TEXT[self.relation]} {_g(self.predicted)}"
        if self.tolerance:
            text += f" ± {_g(self.tolerance)}" if text.startswith("=") else f" (slack {_g(self.tolerance)})"
        return text


def _g(value: float | None) -> str:
    return "—" if value is None else f"{float(value):.4g}"


def _num(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _as_dict(result: Any) -> dict[str, Any]:
    return result.to_dict() if hasattr(result, "to_dict") else dict(result)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ----------------------------------------------------------------------------------------------
# plain text


_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ", "eta": "η",
    "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "ell": "ℓ", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
_SYMBOLS = {
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "asymp": "≍", "sim": "~",
    "simeq": "≃", "propto": "∝", "to": "→", "rightarrow": "→", "mapsto": "↦", "in": "∈", "notin": "∉",
    "subset": "⊂", "subseteq": "⊆", "supset": "⊃", "cup": "∪", "cap": "∩", "setminus": "∖", "ominus": "⊖",
    "oplus": "⊕", "otimes": "⊗", "cdot": "·", "times": "×", "pm": "±", "mp": "∓", "infty": "∞", "sum": "Σ",
    "prod": "Π", "int": "∫", "partial": "∂", "nabla": "∇", "langle": "⟨", "rangle": "⟩", "lceil": "⌈",
    "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "wedge": "∧", "vee": "∨", "neg": "¬", "forall": "∀",
    "exists": "∃", "ll": "≪", "gg": "≫", "dots": "…", "ldots": "…", "cdots": "⋯", "top": "ᵀ", "perp": "⊥",
    "parallel": "∥", "mid": "|", "vert": "|", "Vert": "‖", "|": "‖", "lvert": "|", "rvert": "|", "lVert": "‖",
    "rVert": "‖", "star": "⋆", "circ": "∘", "emptyset": "∅", "varnothing": "∅", "colon": ":",
    "gtrsim": "≳", "lesssim": "≲", "quad": " ", "qquad": " ", ",": " ", ";": " ", ":": " ", "!": "", " ": " ",
    "{": "{", "}": "}", "#": "#", "%": "%", "&": "&", "_": "_", "$": "$",
}
_DROP = {"rm", "it", "bf", "sf", "tt", "cal", "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl",
         "Bigr", "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits"}
_FONTS = {"mathrm", "text", "textrm", "textit", "textbf", "mathit", "mathbf", "mathsf", "mathtt", "mathbb", "mathcal",
          "mathscr", "mathfrak", "operatorname", "boldsymbol", "bm", "mbox", "emph"}
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303", "bar": "\u0304",
            "overline": "\u0304", "dot": "\u0307", "ddot": "\u0308", "vec": "\u20d7"}
_SUPERSCRIPT = dict(zip("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"))
_BEGIN_END = re.compile(r"\\(begin|end)\{[a-zA-Z*]+\}")


def _group(text: str, i: int) -> tuple[str, int]:
    """The argument starting at ``text[i]`` (a braced group or one token) and the index after it."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return "", i
    if text[i] == "{":
        depth, j = 0, i
        while j < len(text):
            if text[j] == "{" and (j == 0 or text[j - 1] != "\\"):
                depth += 1
            elif text[j] == "}" and text[j - 1] != "\\":
                depth -= 1
                if depth == 0:
                    return text[i + 1 : j], j + 1
            j += 1
        return text[i + 1 :], len(text)
    if text[i] == "\\":
        m = re.match(r"\\([A-Za-z]+|.)", text[i:])
        return (m.group(0), i + len(m.group(0))) if m else (text[i], i + 1)
    return text[i], i + 1


def _script(body: str, marker: str) -> str:
    """``^``/``_`` with its argument in plain text: ``d^2``, ``d^(κ-1)``, ``n*`` for ``n^{*}``."""
    body = body.strip()
    if body.startswith("(") and body.endswith(")") and body.count("(") == 1:
        return marker + body
    if len(body) == 1 or re.fullmatch(r"[A-Za-z0-9*′'α-ωℓ]+", body):
        return marker + body if marker == "_" or body not in "*′'" else body
    if marker == "^" and all(ch in _SUPERSCRIPT for ch in body) and body.isdigit():
        return "".join(_SUPERSCRIPT[ch] for ch in body)
    return f"{marker}({body})"


def _latex_to_text(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", text[i:])
            if m is None:
                i += 1
                continue
            name, i = m.group(1), i + len(m.group(0))
            if name in _DROP:
                continue
            if name in _FONTS:
                arg, i = _group(text, i)
                out.append(_latex_to_text(arg))
            elif name in ("frac", "tfrac", "dfrac", "cfrac"):
                num, i = _group(text, i)
                den, i = _group(text, i)
                num, den = _latex_to_text(num), _latex_to_text(den)
                wrap = lambda s: s if re.fullmatch(r"[\wα-ωΑ-Ω.*′√]+", s) else f"({s})"  # noqa: E731
                out.append(f"{wrap(num)}/{wrap(den)}")
            elif name == "sqrt":
                index = ""
                if text[i : i + 1] == "[" and "]" in text[i:]:
                    index, i = text[i + 1 : text.index("]", i)], text.index("]", i) + 1
                arg, i = _group(text, i)
                arg = _latex_to_text(arg)
                if index:
                    base = arg if re.fullmatch(r"[\wα-ω]+", arg) else f"({arg})"
                    out.append(f"{base}^(1/{index})")
                else:
                    out.append(f"√{arg}" if re.fullmatch(r"[\wα-ω]+", arg) else f"√({arg})")
            elif name == "binom":
                top, i = _group(text, i)
                bottom, i = _group(text, i)
                out.append(f"C({_latex_to_text(top)}, {_latex_to_text(bottom)})")
            elif name in _ACCENTS:
                arg, i = _group(text, i)
                arg = _latex_to_text(arg)
                out.append(arg + _ACCENTS[name])
            elif name in _GREEK:
                out.append(_GREEK[name])
            elif name in _SYMBOLS:
                out.append(_SYMBOLS[name])
            else:
                out.append(name)
        elif ch in "^_":
            arg, i = _group(text, i + 1)
            out.append(_script(_latex_to_text(arg), ch))
        elif ch == "{":
            arg, i = _group(text, i)
            out.append(_latex_to_text(arg))
        elif ch in "}$":
            i += 1
        elif ch == "~":
            out.append(" ")
            i += 1
        elif ch == "&":
            out.append(" ")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def plain_text(text: Any) -> str:
    r"""A plain-text form of a prediction, a law or a label: LaTeX made readable, numbers to 4 digits.

    Text without LaTeX commands (no backslash) keeps everything but braced scripts, so ``|S_sure^0|``
    and ``span{w1}`` stay.

    >>> plain_text(r"\mathrm{span}\{w^*_{1} + w^*_{2}\} ⊂ \mathrm{span}\{w^*_{1}, w^*_{2}\}")
    'span{w1 + w2} ⊂ span{w1, w2}'
    >>> plain_text(r"\tfrac1N \sum_i \|w_i(T) - w_i(0)\| \asymp \frac{1}{\sqrt{N}} \quad (\eta = O(1))")
    '1/N Σ_i ‖w_i(T) - w_i(0)‖ ≍ 1/√N (η = O(1))'
    >>> plain_text((1.0, -1.0)), plain_text(2.0), plain_text([">= 2", ">= 1"]), plain_text("|S_sure^0| ~ Bin")
    ('(1, -1)', '2', '(>= 2, >= 1)', '|S_sure^0| ~ Bin')
    >>> plain_text("n^{*} ≍ d^{2}, span{w1}")
    'n* ≍ d^2, span{w1}'
    """
    if isinstance(text, (list, tuple)):
        return "(" + ", ".join(plain_text(t) for t in text) + ")"
    if _is_number(text):
        return f"{float(text):.4g}"
    out = str(text)
    if "\\" not in out:  # no command: only braced scripts (d^{2}) are LaTeX; "span{w1}" and "~" are text
        return re.sub(r"([\^_])\{([^{}]*)\}", lambda m: _script(m.group(2), m.group(1)), out)
    out = re.sub(r"w\^\{?\*\}?_\{?(\d+)\}?", r"w\1", out)  # teacher directions as in flt_theory._text: w1, w2
    out = _BEGIN_END.sub(" ", out).replace("\\\\", "; ")
    out = " ".join(_latex_to_text(out).split())
    return re.sub(r"\( ", "(", re.sub(r" \)", ")", out))


def slug(key: str) -> str:
    """A file-name-safe form of a claim key.

    >>> slug("giant-step/norm-law")
    'giant-step--norm-law'
    """
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", key.replace("/", "--")).strip("-")


# ----------------------------------------------------------------------------------------------
# reading a CheckResult


def entries(result: Any) -> list[dict[str, Any]]:
    """Every estimate of a CheckResult (or its ``to_dict()``) with its own interval and plain-text label.

    ``[{"label", "estimate", "ci": [low, high]}]`` — one per entry of ``measured``, labelled by
    ``details["labels"]`` (as :meth:`~flt_theory.compare.result.CheckResult.entries`), non-finite numbers as ``None``.

    >>> from flt_theory.compare.result import CheckResult
    >>> r = CheckResult("exponents", True, (1.0, -1.0), (1.02, -0.98), ((0.9, 1.1), (-1.1, -0.9)), 8, "m",
    ...                 {"labels": ["b_d", "b_n"]})
    >>> entries(r)
    [{'label': 'b_d', 'estimate': 1.02, 'ci': [0.9, 1.1]}, {'label': 'b_n', 'estimate': -0.98, 'ci': [-1.1, -0.9]}]
    """
    r = _as_dict(result)
    measured, ci, details = r.get("measured"), r.get("ci"), r.get("details") or {}

    def number(value: Any) -> float | None:
        value = _num(value)
        return value if math.isfinite(value) else None

    if isinstance(measured, (list, tuple)):
        labels = details.get("labels")
        if not isinstance(labels, (list, tuple)) or len(labels) != len(measured):
            labels = [f"{r.get('name', '')} #{i + 1}" for i in range(len(measured))]
        cis = list(ci) if isinstance(ci, (list, tuple)) else []
        pairs = [c if isinstance(c, (list, tuple)) and len(c) == 2 else (None, None) for c in cis]
        pairs += [(None, None)] * (len(measured) - len(pairs))
        return [{"label": plain_text(label), "estimate": number(value), "ci": [number(lo), number(hi)]}
                for label, value, (lo, hi) in zip(labels, measured, pairs)]
    low, high = list(ci)[:2] if isinstance(ci, (list, tuple)) and len(ci) >= 2 else (None, None)
    return [{"label": plain_text(r.get("name", "")), "estimate": number(measured), "ci": [number(low), number(high)]}]


def _quantity_of(name: str) -> str:
    """The quantity a bound's name speaks of: ``"T = 0: error ≥ 2"`` → ``"T = 0: error"``."""
    text = plain_text(name)
    for sep in (" ≥ ", " ≤ ", " >= ", " <= ", " > ", " < "):
        if sep in text:
            text = text.split(sep)[0].strip()
            break
    return text.split(": ")[-1].strip() or text


def _fraction_unit(details: dict[str, Any]) -> str:
    bounds = details.get("bounds")
    if isinstance(bounds, (list, tuple)) and len(bounds) == 2 and _num(bounds[0]) == 0 and _num(bounds[1]) == 1:
        return " (fraction, 0 to 1)"
    return ""


def _bound_quantity(name: str, details: dict[str, Any]) -> str:
    quantity = _quantity_of(name)
    unit = _fraction_unit(details)
    low = quantity.lower()
    if not unit:
        if "accuracy" in low or "fraction" in low:
            unit = " (fraction)"
        elif "/" in quantity or "ratio" in low:
            unit = " (ratio, dimensionless)"
        else:
            unit = " (dimensionless)"
    return quantity + unit


def comparisons(result: Any) -> list[Comparison]:
    """The :class:`Comparison` rows of a CheckResult (or its ``to_dict()``), parts flattened.

    >>> from flt_theory.compare.result import CheckResult
    >>> r = CheckResult("slope", True, 1.0, 1.1, (0.9, 1.3), 8, "m", {"tolerance": 0.1, "prefactor": 2.0})
    >>> c = comparisons(r)[0]
    >>> c.relation, c.predicted, c.tolerance, c.quantity
    ('=', 1.0, 0.1, 'fitted power-law exponent (dimensionless)')
    """
    r = _as_dict(result)
    details = r.get("details") or {}
    if details.get("parts"):
        return [c for part in details["parts"] for c in comparisons(part)]
    name, measured, predicted = r.get("name", ""), r.get("measured"), r.get("predicted")
    passed = r.get("passed")
    tolerance = _num(details.get("tolerance", 0.0)) or 0.0
    mode = str(details.get("mode", ""))
    pred: float | None
    if isinstance(measured, (list, tuple)):
        out = []
        for i, entry in enumerate(entries(r)):
            value, (low, high) = entry["estimate"], entry["ci"]
            if isinstance(predicted, (list, tuple)) and len(predicted) == len(measured) and _is_number(predicted[i]):
                pred, rel = float(predicted[i]), "="
                quantity, kind = ("fitted power-law exponent (dimensionless)", "power") if "prefactor" in details else (
                    plain_text(name), "")
            elif predicted == "strictly decreasing":
                pred, rel, kind = 0.0, ">", "ordering"
                quantity = f"gap between consecutive means of {_quantity_of(name).split(' decreases')[0]}"
            else:
                pred, rel, quantity, kind = None, "", plain_text(name), ""
            label = entry["label"] if kind != "ordering" else f"{plain_text(name)}: {entry['label']}"
            out.append(Comparison(label, _num(value), _num(low), _num(high), pred, rel, tolerance, passed, quantity,
                                  mode or ("demonstrated" if kind == "ordering" else ""), kind))
        return out
    (entry,) = entries(r)
    value, (low, high), label = _num(entry["estimate"]), entry["ci"], entry["label"]
    low, high = _num(low), _num(high)
    per_mass = None
    if _is_number(predicted) and "count" in details and "trials" in details:
        pred, rel, kind = float(predicted), "=", "count"
        quantity = f"rate = count / trials ({_g(details['trials'])} trials)"
    elif _is_number(predicted) and "crossings" in details:
        pred, rel, kind = float(predicted), "=", "transition"
        quantity = "threshold κ where the curve crosses its level (n = d^κ)"
    elif _is_number(predicted):
        pred, rel = float(predicted), "="
        kind = "power" if "prefactor" in details else ""
        quantity = "fitted power-law exponent (dimensionless)" if kind == "power" else plain_text(name)
    elif "threshold" in details:
        pred, rel, kind, mode = _num(details["threshold"]), ">=", "subspace", "demonstrated"
        quantity = "mass on the subspace (fraction of ‖w‖², 0 to 1)"
    elif "bound" in details:
        pred, kind = _num(details["bound"]), "bound"
        rel = "<=" if str(predicted).lstrip().startswith("<") else ">="
        tolerance = _num(details.get("slack", 0.0)) or 0.0
        quantity = _bound_quantity(name, details)
    elif "max_ratio" in details:
        pred, rel, kind, mode = _num(details["max_ratio"]), "<=", "not-learned", "demonstrated"
        quantity = "mass / its random level dim/d (× random)"
        ratio_bounds, bounds = details.get("ratio_bounds"), details.get("bounds")
        if isinstance(ratio_bounds, (list, tuple)) and isinstance(bounds, (list, tuple)):
            factor = _num(ratio_bounds[1]) / _num(bounds[1])
            per_mass = factor if math.isfinite(factor) and factor > 0 else None
    elif str(predicted).strip() == "> 0":
        pred, rel, kind, mode = 0.0, ">", "bound", "demonstrated"
        quantity = plain_text(name).split(":")[-1].strip() + " (mean count per seed)"
    elif str(predicted).strip() == "0 on every seed":
        pred, rel, kind, mode = 0.0, "=", "exact", "demonstrated"
        quantity = "events per seed (interval: per-seed range)"
    else:
        pred, rel, kind, quantity = None, "", "", plain_text(name)
    return [Comparison(label, value, low, high, pred, rel, tolerance, passed, quantity, mode, kind, None, per_mass)]


def _merge_two_sided(rows: list[Comparison]) -> list[Comparison]:
    """``x ≥ a`` and ``x ≤ b`` on the same estimate become one row ``x in [a, b]``."""
    out: list[Comparison] = []
    i = 0
    while i < len(rows):
        a = rows[i]
        b = rows[i + 1] if i + 1 < len(rows) else None
        if (b is not None and a.kind == b.kind == "bound" and {a.relation, b.relation} == {">=", "<="}
                and (a.measured, a.low, a.high) == (b.measured, b.low, b.high)):
            lower, upper = (a, b) if a.relation == ">=" else (b, a)
            passed = None if a.passed is None or b.passed is None else bool(a.passed and b.passed)
            label = _quantity_of(a.label)
            if (lower.predicted == upper.predicted) and lower.tolerance == upper.tolerance:
                label += f" = {_g(lower.predicted)}" + (f" ± {_g(lower.tolerance)}" if lower.tolerance else "")
            else:
                assert lower.predicted is not None and upper.predicted is not None  # two bounds that differ
                label += f" in [{_g(lower.predicted - lower.tolerance)}, {_g(upper.predicted + upper.tolerance)}]"
            out.append(replace(lower, label=label, relation="in", upper=upper.predicted,
                               tolerance=max(lower.tolerance, upper.tolerance), passed=passed))
            i += 2
        else:
            out.append(a)
            i += 1
    return out


@dataclass(frozen=True)
class _Wrong:
    """The negative control on one panel, in the panel's unit."""

    line: float | None = None  # the wrong law's prediction (lower end for "in")
    upper: float | None = None
    relation: str = ""
    point: Comparison | None = None  # the control's own estimate (another quantity of the same unit)
    note: str = ""


def _same_estimate(a: Comparison, b: Comparison) -> bool:
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(x) and math.isnan(y))
               for x, y in ((a.measured, b.measured), (a.low, b.low), (a.high, b.high)))


def _wrong_for(row: Comparison, bad: Comparison | None) -> _Wrong | None:
    if bad is None:
        return None
    if row.kind == "not-learned" and bad.kind == "subspace":  # the wrong law's mass threshold, in units of random
        factor = row.per_mass or (row.measured / bad.measured if bad.measured else None)
        if factor and bad.predicted is not None:
            return _Wrong(line=bad.predicted * factor, relation=">=", note="wrong law: learned")
        return None
    if row.kind == "subspace" and bad.kind == "not-learned":
        factor = bad.per_mass or (bad.measured / row.measured if row.measured else None)
        if factor and bad.predicted is not None:
            return _Wrong(line=bad.predicted / factor, relation="<=", note="wrong law: not learned")
        return None
    if {row.kind, bad.kind} == {"bound", "exact"} and math.isclose(row.measured, bad.measured):
        return _Wrong(line=bad.predicted, relation=bad.relation)  # a count: demonstrated positive vs exactly 0
    if row.kind != bad.kind:
        return None
    if _same_estimate(row, bad):
        if bad.predicted is None:
            return None
        if (bad.predicted, bad.upper, bad.relation, bad.tolerance) == (row.predicted, row.upper, row.relation,
                                                                        row.tolerance):
            return None  # the wrong law says the same here: nothing to draw
        return _Wrong(line=bad.predicted, upper=bad.upper if bad.relation == "in" else None, relation=bad.relation)
    if "law" in row.quantity and bad.measured and row.measured and bad.predicted is not None:
        # a quantity divided by the law's value: the same data over the wrong law's value
        scale = row.measured / bad.measured
        upper = bad.upper * scale if bad.upper is not None else None
        return _Wrong(line=bad.predicted * scale, upper=upper, relation=bad.relation)
    return _Wrong(point=bad, relation=bad.relation,
                  line=bad.predicted if bad.predicted != row.predicted or bad.relation != row.relation else None)


def control_rows(check: Any, control: Any | None) -> list[tuple[Comparison, _Wrong | None]]:
    """The panels of the generic figure: each check row (two-sided halves merged) with the
    negative control in its unit (None where the control has nothing on this row's axis)."""
    rows = _merge_two_sided(comparisons(check))
    bad = _merge_two_sided(comparisons(control)) if control is not None else []
    out = []
    used: set[int] = set()
    for i, row in enumerate(rows):
        match = next(
            (j for j, b in enumerate(bad) if j not in used and _same_estimate(row, b) and b.kind == row.kind), None
        )
        if match is None and len(bad) == len(rows):
            match = i
        if match is None and len(bad) == 1 and len(rows) == 1:
            match = 0
        if match is not None:
            used.add(match)
        out.append((row, _wrong_for(row, bad[match]) if match is not None else None))
    return out


def carries_information(check: Any) -> bool:
    """False when every entry is exact (zero-width interval) or not finite: the table says it all.

    >>> from flt_theory.compare.result import CheckResult
    >>> carries_information(CheckResult("n", True, "0 on every seed", 0.0, (0.0, 0.0), 8, "m"))
    False
    """
    return any(math.isfinite(r.low) and math.isfinite(r.high) and r.high > r.low for r in comparisons(check))


def wrong_law_drawn(check: Any, control: Any | None) -> bool:
    """Whether the generic figure shows the negative control on at least one panel."""
    return any(w is not None for _, w in control_rows(check, control))


# ----------------------------------------------------------------------------------------------
# drawing


def new_figure(width: float, height: float):
    """A matplotlib Figure on an Agg canvas (no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, path: str | Path) -> Path:
    """Write ``fig`` as PNG to ``path`` (folders created), atomically (:func:`flt_theory._files.atomic_write_bytes`:
    an interrupted write leaves the old figure)."""
    import io

    from .._files import atomic_write_bytes

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    atomic_write_bytes(path, buffer.getvalue())
    return path


def _wrap(text: str, width: int) -> str:
    return "\n".join("\n".join(textwrap.wrap(line, width)) or line for line in text.split("\n"))


def plot_comparisons(
    key: str,
    check: Any,
    control: Any | None,
    path: str | Path | None = None,
    *,
    title: str = "",
) -> Any:
    """The generic figure of a claim: one panel per :class:`Comparison` of ``check`` (module
    docstring), the negative control in grey in each panel's unit. Returns the path written, or with
    ``path=None`` the matplotlib ``Figure`` itself (a notebook shows it inline)."""
    panels = control_rows(check, control)
    n = max(1, len(panels))
    ncols = min(n, 4)
    nrows = math.ceil(n / ncols)
    fig = new_figure(3.6 * ncols, 3.3 * nrows + 1.3)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    for ax, (row, wrong) in zip(axes, panels):
        _panel(ax, row, wrong)
    if not panels:
        axes[0].text(0.5, 0.5, "no numbers to plot", ha="center", va="center", transform=axes[0].transAxes)
    handles, labels = [], []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    width = 3.6 * ncols
    if handles:
        per_row = max(1, min(len(labels), int(width // 3.0)))
        fig.legend(handles, labels, loc="outside lower center", ncols=per_row, fontsize=7.5, frameon=False)
    fig.suptitle(_wrap(plain_text(title or key), int(width * 11)), fontsize=10)
    return fig if path is None else save_figure(fig, path)


def _distinct_digits(*values: float) -> tuple[str, ...]:
    """``values`` as text with the fewest significant digits, from 3, that keep distinct values distinct (an interval
    much narrower than its centre would otherwise print as ``-0.25 [-0.25, -0.25]``).

    >>> _distinct_digits(-0.2499857, -0.2501725, -0.2498115), _distinct_digits(1.0, 0.5, 2.0)
    (('-0.25', '-0.2502', '-0.2498'), ('1', '0.5', '2'))
    """
    for digits in range(3, 9):
        texts = tuple(f"{v:.{digits}g}" for v in values)
        if len(set(texts)) == len(set(values)):
            return texts
    return tuple(f"{v:.9g}" for v in values)


def ladder_axis(rungs: Sequence[Mapping[str, Any]]) -> str:
    """The size a ladder grows in: of the names that take the most distinct values across ``rungs`` (a size that
    every rung changes, not one several rungs share), the one whose values span the most decades.

    >>> ladder_axis([{"size": {"n": n, "d": max(500, n * n)}} for n in (5, 8, 16, 32, 160)])
    'n'
    """
    names = {k for r in rungs for k in r["size"]}
    if not names:
        raise ValueError("a ladder's rungs name no size")

    def reach(name: str) -> tuple[int, float]:
        values = [float(r["size"][name]) for r in rungs if name in r["size"] and float(r["size"][name]) > 0]
        return len(set(values)), (math.log10(max(values) / min(values)) if values else -1.0)

    return max(sorted(names), key=reach)


def ladder_groups(rungs: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """``rungs`` split into ladders, one per set of sizes the rungs name, in order of first appearance: one ladder for
    the usual claim, two for a law in two sizes read along each (rungs ``{"d": ...}`` then ``{"n": ...}``).

    >>> [len(g) for g in ladder_groups([{"size": {"d": 1}}, {"size": {"d": 2}}, {"size": {"n": 1}}])]
    [2, 1]
    """
    groups: dict[frozenset[str], list[Mapping[str, Any]]] = {}
    for rung in rungs:
        groups.setdefault(frozenset(rung["size"]), []).append(rung)
    return list(groups.values())


def plot_ladder(rungs: Sequence[Mapping[str, Any]], path: str | Path | None = None, *, title: str = "",
                ylabel: str = "estimate", xlabel: str | None = None, limit: Mapping[str, Any] | None = None) -> Any:
    """A size ladder: each rung's estimate with its 95% interval against its size (log axis), the law's
    ``predicted`` value at each rung (orange) and, where the rungs carry it, the ``literal`` statement
    (grey dashed). Rungs that differ in another size too are labelled with it. ``limit`` (``estimate``, ``ci``,
    ``model`` of :func:`~flt_theory.compare.check_limit_power_law`): the extrapolated limit, drawn as a band with
    its estimate (a finite interval only). Rungs that name different sizes (:func:`ladder_groups`) are drawn as one
    panel per ladder, side by side (then ``limit`` and ``xlabel`` are not drawn: they belong to one ladder). Returns
    the path written, or with ``path=None`` the matplotlib ``Figure``."""
    groups = ladder_groups(rungs)
    if not groups:
        raise ValueError("a ladder needs at least one rung")
    width = 5.6 if len(groups) == 1 else 3.6 * len(groups)
    fig = new_figure(width, 3.8)
    axes = fig.subplots(1, len(groups), squeeze=False)[0]
    for ax, group in zip(axes, groups, strict=True):
        _draw_ladder(ax, group, ylabel=ylabel, xlabel=xlabel if len(groups) == 1 else None,
                     limit=limit if len(groups) == 1 else None)
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=2, fontsize=7.5,
               frameon=False)
    fig.suptitle(_wrap(plain_text(title), 70 if len(groups) == 1 else int(width * 11)), fontsize=10)
    return fig if path is None else save_figure(fig, path)


def _draw_ladder(ax: Any, rungs: Sequence[Mapping[str, Any]], *, ylabel: str, xlabel: str | None,
                 limit: Mapping[str, Any] | None) -> None:
    """One ladder of :func:`plot_ladder` on ``ax``."""
    axis = ladder_axis(rungs)
    rungs = sorted(rungs, key=lambda r: float(r["size"][axis]))
    x = [float(r["size"][axis]) for r in rungs]
    y = [float(r["estimate"]) for r in rungs]
    lo = [y_k - float(r["ci"][0]) for y_k, r in zip(y, rungs)]
    hi = [float(r["ci"][1]) - y_k for y_k, r in zip(y, rungs)]
    ax.errorbar(x, y, yerr=[lo, hi], fmt="o", color=MEASURED, capsize=3, label="estimate, 95% CI")
    for key, style in (("predicted", dict(color=PREDICTED, lw=1.6)), ("literal", dict(color=CONTROL, ls="--", lw=1.2))):
        if all(r.get(key) is not None for r in rungs):
            ax.plot(
                x, [float(r[key]) for r in rungs], label="law" if key == "predicted" else "literal statement", **style
            )
    others = sorted(k for k in {k for r in rungs for k in r["size"]} - {axis}
                    if len({r["size"].get(k) for r in rungs}) > 1)  # label only the sizes that vary too
    for index, (xk, yk, r) in enumerate(zip(x, y, rungs)):
        if others:  # alternately above and below: neighbouring rungs' labels do not overprint
            ax.annotate(", ".join(f"{k}={r['size'][k]:.3g}" for k in others if k in r["size"]), (xk, yk),
                        textcoords="offset points", xytext=(4, 4 if index % 2 == 0 else -10), fontsize=6.5)
    from matplotlib.ticker import NullFormatter

    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ticks = sorted(set(x))
    ax.set_xticks(ticks, _tick_labels(ticks))
    if limit is not None and all(math.isfinite(float(v)) for v in limit.get("ci", (math.nan, math.nan))):
        low, high = (float(v) for v in limit["ci"])
        estimate, low_text, high_text = _distinct_digits(float(limit["estimate"]), low, high)
        ax.axhspan(low, high, color=MEASURED, alpha=0.12, lw=0,
                   label=f"limit {estimate} [{low_text}, {high_text}], 95% set ({limit['model']})")
        ax.axhline(float(limit["estimate"]), color=MEASURED, lw=0.8, ls=":")
    ax.set_xlabel(xlabel or axis)
    ax.set_ylabel(ylabel)


def _tick_labels(ticks: Sequence[float]) -> list[str]:
    """Labels of a log axis' ``ticks`` (sorted), the largest positive one always, each other positive one only where it
    lies at least 1/12 of the axis' decades below the next label (close rungs' labels would overprint); a
    non-positive tick (which a log axis does not show) gets none.

    >>> _tick_labels([5, 8, 16, 32, 80, 128, 160]), _tick_labels([100, 105, 110]), _tick_labels([0, 3])
    (['5', '8', '16', '32', '80', '', '160'], ['100', '105', '110'], ['', '3'])
    """
    shown = [t for t in ticks if t > 0]
    step = math.log10(shown[-1] / shown[0]) / 12 if shown else 0.0
    labels, last = [], math.inf
    for value in reversed(ticks):
        keep = value > 0 and math.log10(last / value) >= step
        labels.append(f"{value:.3g}" if keep else "")
        last = value if keep else last
    return labels[::-1]


def _finite(*values: float | None) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def _panel(ax, row: Comparison, wrong: _Wrong | None) -> None:
    allowed = row.allowed()
    values = _finite(row.measured, row.low, row.high, row.predicted, row.upper, *allowed)
    if wrong is not None:
        values += _finite(wrong.line, wrong.upper)
        if wrong.point is not None:
            values += _finite(wrong.point.measured, wrong.point.low, wrong.point.high)
    span = (max(values) - min(values)) if values else 1.0
    pad = 0.2 * span if span > 0 else 0.5 * max(1.0, abs(values[0]) if values else 1.0)
    lo, hi = (min(values) - pad, max(values) + pad) if values else (-1.0, 1.0)
    demonstrated = row.mode == "demonstrated"
    reject = "excluded: the whole CI must avoid it" if demonstrated else "law rejected only if the whole CI lies here"
    p = row.predicted
    if p is not None and math.isfinite(p) and row.relation:
        if row.relation == "=":
            if row.tolerance > 0:
                ax.axhspan(
                    p - row.tolerance, p + row.tolerance, color=PREDICTED, alpha=0.15, lw=0, label="law ± tolerance"
                )
            ax.axhline(p, color=PREDICTED, lw=2, ls="--", label="law (prediction)")
        else:
            lines = [p] if row.relation != "in" else [p, row.upper]
            for bound in _finite(*lines):
                ax.axhline(bound, color=PREDICTED, lw=2, ls="--", label="law (bound)")
            if row.tolerance > 0:
                for edge in _finite(*allowed):
                    ax.axhline(edge, color=PREDICTED, lw=1, ls=":", label="bound moved by the check's slack")
            style = dict(color=PREDICTED, alpha=0.10, hatch="//", lw=0, label=reject)
            if math.isfinite(allowed[0]) and allowed[0] > lo:
                ax.axhspan(lo, allowed[0], **style)
            if math.isfinite(allowed[1]) and allowed[1] < hi:
                ax.axhspan(allowed[1], hi, **style)
    notes = []
    if wrong is not None:
        label = "wrong law (negative control)"
        if wrong.line is not None and math.isfinite(wrong.line):
            for value in _finite(wrong.line, wrong.upper):
                ax.axhline(value, color=CONTROL, lw=1.6, ls=":", label=label)
            text = f"{_RELATION_TEXT.get(wrong.relation, '')} {_g(wrong.line)}" if wrong.relation != "in" else (
                f"in [{_g(wrong.line)}, {_g(wrong.upper)}]")
            notes.append(f"wrong law: {text.strip()}")
        if wrong.point is not None and math.isfinite(wrong.point.measured):
            w = wrong.point
            err = None
            if math.isfinite(w.low) and math.isfinite(w.high):
                err = [[max(0.0, w.measured - w.low)], [max(0.0, w.high - w.measured)]]
            ax.errorbar([0.45], [w.measured], yerr=err, fmt="s", color=CONTROL, ms=6, capsize=5, lw=1.5,
                        label="wrong law's quantity, same data (95% CI)")
            notes.append(f"wrong law's quantity {_g(w.measured)} — {'PASS' if w.passed else 'FAIL'}")
        if wrong.note:
            notes.append(wrong.note)
    if math.isfinite(row.measured):
        err = None
        if math.isfinite(row.low) and math.isfinite(row.high):
            err = [[max(0.0, row.measured - row.low)], [max(0.0, row.high - row.measured)]]
        ax.errorbar([0.0], [row.measured], yerr=err, fmt="o", color=MEASURED, ms=7, capsize=6, lw=2,
                    label="measured (95% CI)")
    else:
        ax.text(0.5, 0.5, "measured: not finite", ha="center", va="center", transform=ax.transAxes, color=MEASURED)
    ax.set_ylim(lo, hi)
    ax.set_xlim(-1, 1)
    ax.set_xticks([])
    verdict = "" if row.passed is None else (" — PASS" if row.passed else " — FAIL")
    mode = f" [{row.mode}]" if row.mode and row.relation not in ("", "=") else ""
    xlabel = f"law: {row.law_text()}{mode}{verdict}"
    if notes:
        xlabel += "\n" + "; ".join(notes)
    ax.set_xlabel(_wrap(xlabel, 46), fontsize=7.5)
    ax.set_ylabel(_wrap(row.quantity or plain_text(row.label), 44), fontsize=8)
    ax.set_title(_wrap(plain_text(row.label), 44), fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(axis="y", alpha=0.3)
