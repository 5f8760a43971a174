"""The Law object: LaTeX rendered from the value, predictions read from it, no default source."""

from __future__ import annotations

import pytest
import sympy as sp

from flt_theory.errors import FLTError, InvalidParameterError, InvalidParameterTypeError
from flt_theory.symbolic import Subspace
from flt_theory.symbolic.law import SYMBOLS, THIS_PROJECT, Law, Source

d, n = SYMBOLS["d"], SYMBOLS["n"]
SRC = Source(authors="A, B", year=2020, title="T", arxiv="2001.00001")


def test_latex_is_rendered_from_the_value():
    law = Law(name="t", lhs="n^*", relation="asymp", value=d**2, conditions=(r"\ell = 2", "t = 1"), source=SRC)
    assert law.latex() == r"n^* \asymp d^{2} \quad (\ell = 2,\ t = 1)"
    assert law._repr_latex_() == "$$" + law.latex() + "$$"
    assert law.replace(value=d**3).latex().startswith(r"n^* \asymp d^{3}")
    assert Law(name="f", lhs="x", relation="eq", value=0.097810771331, source=SRC).rhs_latex() == "0.09781"


def test_predictions_are_read_from_the_value():
    law = Law(
        name="norm", lhs="y", relation="asymp", value=d * SYMBOLS["eta"] ** 2 / (n * SYMBOLS["p"] ** 2), source=SRC
    )
    assert (law.exponent("d"), law.exponent("n"), law.exponent("x")) == (1, -1, 0.0)
    assert law.number(d=4, n=2, eta=1, p=1) == 2.0
    with pytest.raises(InvalidParameterError, match="still depends on"):
        law.number(d=4)
    with pytest.raises(InvalidParameterError, match="not a power law"):
        Law(name="s", lhs="y", relation="eq", value=1 + d, source=SRC).exponent("d")
    pair = Law(name="b", lhs="e", relation="geq", value=(2, sp.Rational(1, 2)), source=SRC)
    assert pair.numbers() == (2.0, 0.5) and pair.rhs_latex() == r"2,\ \frac{1}{2}"
    u = Law(name="u", lhs="U", relation="eq", value=Subspace.span([[1, 1]], 2), source=SRC)
    assert u.subspaces()[0] == Subspace.span([[1, 1]], 2)
    with pytest.raises(InvalidParameterError, match="not subspaces"):
        pair.subspaces()


@pytest.mark.parametrize(
    "kwargs, parameter", [({"relation": "approximately"}, "relation"), ({"status": "guess"}, "status")]
)
def test_validation(kwargs, parameter):
    base = {"name": "x", "lhs": "a", "relation": "eq", "value": 1, "source": SRC}
    with pytest.raises(InvalidParameterError) as info:
        Law(**{**base, **kwargs})
    assert f"'{parameter}'" in str(info.value) and repr(kwargs[parameter]) in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, FLTError)


def test_a_source_is_required_and_cited():
    with pytest.raises(TypeError):
        Law(name="x", lhs="a", relation="eq", value=1)  # no default source
    with pytest.raises(InvalidParameterTypeError, match="Source"):
        Law(name="x", lhs="a", relation="eq", value=1, source="a paper")
    assert SRC.cite() == 'A, B 2020, "T", arXiv 2001.00001'
    law = Law(name="x", lhs="a", relation="eq", value=1, source=THIS_PROJECT, status="finding")
    assert law.to_dict()["source"]["authors"] == "flt_theory" and law.to_dict()["status"] == "finding"


def test_mutation_panel_moves_every_exponent_including_the_omitted_size_symbols():
    """A boundary independent of d predicts exponent 0 in d: its panel moves that exponent as well."""
    snr = sp.Symbol("SNR", positive=True)
    law = Law(name="boundary", lhs="SNR^*", relation="asymp", value=n ** sp.Rational(-1, 3), source=SRC)
    panel = {m.label: m.law for m in law.mutation_panel()}
    assert set(panel) == {
        f"{x} exponent {delta:+g}" for x in ("d", "eta", "n", "p") for delta in (-1, -0.5, -0.25, 0.25, 0.5, 1)
    }
    assert panel["d exponent +0.5"].exponent("d") == 0.5 and panel["d exponent +0.5"].exponent("n") == pytest.approx(
        -1 / 3
    )
    assert panel["n exponent -1"].exponent("n") == pytest.approx(-4 / 3)
    other = Law(name="ratio", lhs="R", relation="asymp", value=snr**2 * n, source=SRC).mutation_panel()
    assert {m.kind for m in other} == {
        "exponent of SNR",
        "exponent of n",
        "exponent of d",
        "exponent of eta",
        "exponent of p",
    }
