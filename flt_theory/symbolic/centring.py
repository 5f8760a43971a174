r"""The centred target :math:`f^* - \mathbb E f^*`: what the one-step theory describes, and what the giant-step front
doors (``flt verify TARGET``, ``flt simulate giant-step``) simulate.

Why centre. At the symmetric initialisation :math:`\hat f^0 = 0`, so the first giant step moves neuron :math:`i` by
:math:`\Delta w_i = \frac{\eta a_i}{p}\,\frac1n\sum_\mu y_\mu\,\sigma'(\langle w_i, x_\mu\rangle)\,x_\mu`. Split the
label as :math:`y = c_0 + g(z)` with :math:`c_0 = \mathbb E f^*(z) = \hat f(0)` (the constant Hermite coefficient,
probabilists' convention :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`) and :math:`\mathbb E g = 0`.
For :math:`\|w_i\| = 1`, Stein's lemma gives the population part of the constant's share,

.. math::

    c_0\,\mathbb E[\sigma'(\langle w_i, x\rangle)\,x] = c_0\,\mathbb E[\sigma''(\xi)]\,w_i = c_0\,\mu_2(\sigma)\,w_i,
    \qquad \xi \sim \mathcal N(0, 1),\ \mu_2(\sigma) = \mathbb E[\sigma(\xi)\mathrm{He}_2(\xi)],

a step along the neuron's own (random) direction, and its sample part is isotropic noise of squared norm
:math:`c_0^2\,\mathbb E[\sigma'(\xi)^2]\,d/n`. With the one-step size :math:`\eta = p\,d^{(\ell-1)/2}` the first term
stretches :math:`w_i` by :math:`1 + a_i c_0\mu_2(\sigma)d^{(\ell-1)/2}` while the update along :math:`V^*` that the
overlap law of Ba, Erdogdu, Suzuki, Wang, Wu, Yang 2022 (arXiv 2205.01445) and Dandi, Krzakala, Loureiro, Pesce,
Stephan 2023 (arXiv 2305.18270) describes stays :math:`\Theta(1)`: for :math:`\ell \ge 2` the normalised mass on
:math:`V^*` then falls like :math:`d^{1-\ell}` where the theory predicts a constant. Measured before this module
(ReLU student, :math:`d = 32..128`, 8 seeds): the excess mass of :math:`|z_1|` (:math:`c_0 = \sqrt{2/\pi}`,
:math:`c_0\mu_2 = 0.32`) at :math:`\kappa = \ell = 2` went like :math:`d^{-1.00\,[-1.26, -0.78]}`, that of
:math:`\mathrm{He}_2(z_1) + 1` like :math:`d^{-0.79\,[-1.01, -0.59]}`, while :math:`|z_1| - \sqrt{2/\pi}` and
:math:`\mathrm{He}_2(z_1)` gave slopes consistent with 0. The theory's overlap recursion and its noise level are
those of the centred label :math:`g`; the constant is a separate term it sets aside.

Which centring. Two ways remove :math:`c_0`:

* the **exact** :math:`c_0` from the Hermite expansion (:func:`.expansion.expand_target`): the simulated target is
  :math:`f^* - c_0` itself, the object the laws are derived from; deterministic, and the identity (the same target,
  the same text, the same random numbers) for a target that is already centred — every catalogue target;
* the **batch mean** :math:`y_\mu - \bar y`: it leaves the constant :math:`-\bar g`, with
  :math:`\bar g \sim \mathcal N(0, \mathrm{Var}\,g/n)`, whose self-step has size
  :math:`\sqrt{\mathrm{Var}\,g}\;d^{(\ell-1-\kappa)/2}` — of order one at :math:`\kappa = \ell - 1`, the bottom of
  the one-step grid — random per seed and correlated with the sample noise, a term the theory does not have; and it
  changes every centred target's numbers too (:math:`\bar y \ne 0`).

So the exact constant is subtracted. It is computed by :func:`mean` from one-dimensional means, by linearity
(:math:`\mathbb E[f + g] = \mathbb E f + \mathbb E g`) and independence (:math:`\mathbb E[f(z_A)g(z_B)] =
\mathbb E f\,\mathbb E g` for disjoint coordinate sets :math:`A, B`), each one-dimensional mean the exact constant
Hermite coefficient where the link has one in closed form (polynomials, ReLU, :math:`|z|`, sign, ...): exact, a sympy
number such as :math:`\sqrt 2/\sqrt\pi` or :math:`2/\pi` for :math:`|z_1||z_2|`. A mean that does not reduce so
(a link of several coordinates, e.g. :math:`\mathrm{relu}(z_1 + z_2)` or :math:`\tanh(z_1z_2)`), or a link without a
closed form (tanh), is a Gauss–Hermite quadrature value (``exact`` False, said in the output): a kink in a link of
several coordinates costs the quadrature about 1% (:math:`\mathbb E\,\mathrm{relu}(z_1 + z_2)` = 0.5578 against
:math:`1/\sqrt\pi` = 0.5642), the residual constant of such a centring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..errors import FLTError
from .expansion import expand_target
from .parser import parse_expression, variable
from .target import Target

__all__ = ["Centring", "centre_target", "mean"]


@dataclass(frozen=True)
class Centring:
    r"""A target and its centred twin :math:`f^* - c_0`, :math:`c_0 = \mathbb E f^*(z)` (module docstring).

    Attributes
    ----------
    target
        The centred target: ``Target.parse(text)`` where the text is in the grammar (the object a simulation reading
        it builds), else :math:`f^* - c_0` as an expression; ``original`` itself, the same object, when
        :math:`c_0 = 0`.
    original
        The target as given.
    constant
        :math:`c_0`, a sympy number (exact, or a ``Float`` from quadrature).
    text
        The centred target in the grammar of :mod:`.parser` (``"TEXT - (c0)"``; the given text when :math:`c_0 = 0`):
        what a simulation that reads its target as text parses.
    """

    target: Target
    original: Target
    constant: sp.Expr
    text: str

    @property
    def centred(self) -> bool:
        """Whether a nonzero constant was subtracted."""
        return not self.constant.is_zero

    @property
    def exact(self) -> bool:
        """Whether :math:`c_0` is exact (no floating-point number in it)."""
        return not self.constant.atoms(sp.Float)

    def to_dict(self) -> dict[str, Any]:
        r"""The JSON record: ``centred`` (bool), ``subtracted`` (:math:`c_0` as a float), ``exact`` (:math:`c_0` as
        exact text, or None for a quadrature value), ``simulated_target`` (:attr:`text`)."""
        return {"centred": self.centred, "subtracted": float(self.constant),
                "exact": str(self.constant) if self.exact else None, "simulated_target": self.text}

    def describe(self) -> str:
        """One line saying what was subtracted (empty when nothing was)."""
        if not self.centred:
            return ""
        how = f"exact {self.constant}" if self.exact else "Hermite quadrature"
        return (f"target centred: subtracted E f* = {float(self.constant):.4g} ({how}); the predictions and the "
                f"simulations are for f* - E f* = {self.text}, as the one-step theory's centred labels")


def mean(expr: sp.Expr, variables: list[sp.Symbol]) -> sp.Expr | None:
    r""":math:`\mathbb E\,expr(z)`, :math:`z \sim \mathcal N(0, I)`, from one-dimensional means (module docstring);
    None where it does not reduce to them (a factor of several coordinates).

    >>> z1, z2 = variable(1), variable(2)
    >>> mean(sp.Abs(z1) * sp.Abs(z2) - 2 / sp.pi, [z1, z2]), mean(sp.Abs(z1) + z2**2 * z1**2, [z1, z2])
    (0, sqrt(2)/sqrt(pi) + 1)
    >>> mean(sp.Abs(z1 + z2), [z1, z2]) is None
    True
    """
    used = [v for v in variables if v in expr.free_symbols]
    if not used:
        return expr
    if isinstance(expr, sp.Add):
        parts = [mean(term, variables) for term in expr.args]
        return None if any(p is None for p in parts) else sp.Add(*parts)
    if isinstance(expr, sp.Mul):
        groups: list[tuple[set[sp.Symbol], list[sp.Expr]]] = []  # factors joined while they share a coordinate
        for factor in expr.args:
            own, joined = set(factor.free_symbols) & set(variables), [factor]
            for group in [g for g in groups if g[0] & own]:
                groups.remove(group)
                own, joined = own | group[0], joined + group[1]
            groups.append((own, joined))
        if len(groups) > 1:
            parts = [mean(sp.Mul(*factors), variables) for _, factors in groups]
            return None if any(p is None for p in parts) else sp.Mul(*parts)
    if len(used) > 1:
        return None
    one = Target.from_expression(expr.xreplace({used[0]: variable(1)}), rank=1)
    constant = sp.sympify(expand_target(one).coefficients.get((0,), sp.Integer(0)))
    return constant if not constant.atoms(sp.Float) else None


def _constant_text(constant: sp.Expr) -> str:
    """``constant`` in the grammar of :mod:`.parser`: sympy's text where it reads back as the same number, else the
    shortest decimal that round-trips the float (``E`` or ``Float('0.5', 15)`` do not parse)."""
    if not constant.atoms(sp.Float):
        text = str(constant)
        try:
            if parse_expression(text) == constant:
                return text
        except FLTError:
            pass
    return repr(float(constant))


def centre_target(target: Target, text: str | None = None) -> Centring:
    r"""The centred target :math:`f^* - \mathbb E f^*` (module docstring), with its text.

    ``text`` is the target's text in the grammar (default: its name, else ``str(expr)``); a target whose constant
    Hermite coefficient is zero is returned as it is (the identity, bit for bit).

    >>> c = centre_target(Target.parse("abs(z1)"))
    >>> c.constant, c.text, c.exact, c.target.expr
    (sqrt(2)/sqrt(pi), 'abs(z1) - (sqrt(2)/sqrt(pi))', True, Abs(z1) - sqrt(2)/sqrt(pi))
    >>> f = Target.parse("He2(z1) + z2")
    >>> centre_target(f).target is f, centre_target(Target.parse("He2(z1) + 1")).text
    (True, 'He2(z1) + 1 - (1)')
    """
    given = text if text is not None else (target.name if target.name is not None else str(target.expr))
    exact = mean(target.expr, list(target.variables))
    constant = sp.nsimplify(exact) if exact is not None and exact.is_Rational else exact
    if constant is None:  # a quadrature value (module docstring)
        constant = sp.sympify(expand_target(target).coefficients.get((0,) * target.rank, sp.Integer(0)))
    constant = sp.simplify(constant) if sp.count_ops(constant) <= 60 else constant
    if constant.is_zero:
        return Centring(target, target, sp.Integer(0), given)
    centred_text = f"{given} - ({_constant_text(constant)})"
    try:  # the object a simulation reading the text builds (a decimal c0 parses to a rational)
        centred = Target.parse(centred_text, rank=target.rank)
    except FLTError:  # a name outside the grammar (a target built from an expression or from links)
        centred = Target.from_expression(target.expr - constant, rank=target.rank, name=centred_text)
    return Centring(centred, target, constant, centred_text)
