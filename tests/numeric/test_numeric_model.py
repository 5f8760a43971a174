"""Activation, teacher and student of flt_theory.numeric."""

import pytest
import torch

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.numeric.activation import Activation
from flt_theory.numeric.backend import resolve_device
from flt_theory.numeric.data import teacher_directions
from flt_theory.numeric.student import Student
from flt_theory.numeric.teacher import Teacher
from flt_theory.symbolic.target import Target


@pytest.mark.parametrize(
    "text, direct",
    [
        ("relu", torch.relu),
        ("tanh", torch.tanh),
        ("erf", torch.erf),
        ("sigmoid", torch.sigmoid),
        ("relu(z)**3", lambda z: torch.relu(z) ** 3),
        ("z**2", lambda z: z**2),
        ("tanh(z) + 0.5*z", lambda z: torch.tanh(z) + 0.5 * z),
    ],
)
def test_activation_and_derivative_match_torch(text, direct):
    act = Activation.parse(text)
    z = torch.linspace(-3, 3, 61, dtype=torch.float64)[1::2].requires_grad_()  # avoids z = 0 exactly
    value = direct(z)
    (grad,) = torch.autograd.grad(value.sum(), z)
    assert torch.allclose(act(z.detach()), value.detach(), atol=1e-12)
    assert torch.allclose(act.grad(z.detach()), grad, atol=1e-12)


def test_relu_derivative_is_heaviside_with_half_at_zero():
    assert Activation.parse("relu").grad(torch.tensor([-2.0, 0.0, 3.0])).tolist() == [0.0, 0.5, 1.0]


@pytest.mark.parametrize(
    "bad, error, match",
    [
        ("swish", InvalidParameterError, "'activation' parameter.*unknown name 'swish'"),
        ("z1 + z2", InvalidParameterError, "'activation' parameter"),
        ("sign(z)", InvalidParameterError, "'activation' parameter.*DiracDelta"),
        (3, InvalidParameterTypeError, "'activation' parameter must be a string"),
    ],
)
def test_bad_activation(bad, error, match):
    with pytest.raises(error, match=match):
        Activation.parse(bad)


def test_teacher_matches_direct_formula():
    w = teacher_directions([0, 1], 16, 2, device="cpu", dtype="float64")
    x = torch.randn(2, 50, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    z = x @ w.transpose(-1, -2)
    y = Teacher(Target.parse("He2(z1) + relu(z2)"), w)(x)
    assert y.shape == (2, 50)
    assert torch.allclose(y, z[..., 0] ** 2 - 1 + torch.relu(z[..., 1]), atol=1e-12)
    y = Teacher(Target.from_links(["z + He2(z)", "He3(z)"]), w)(x)
    assert torch.allclose(y, z[..., 0] + z[..., 0] ** 2 - 1 + z[..., 1] ** 3 - 3 * z[..., 1], atol=1e-12)


def test_teacher_rejects_bad_shapes():
    w = teacher_directions(1, 8, 2, device="cpu")
    with pytest.raises(InvalidParameterError, match="r=1"):
        Teacher(Target.parse("z1"), w)
    with pytest.raises(InvalidParameterError, match="inputs must have shape"):
        Teacher(Target.parse("z1 + z2"), w)(torch.zeros(1, 4, 7))
    with pytest.raises(InvalidParameterTypeError, match="'target' parameter"):
        Teacher("z1", w)


def test_symmetric_init_gives_zero_output_on_the_sphere():
    s = Student.init([0, 1, 2], p=10, d=7, activation="tanh", device="cpu", dtype="float64")
    assert torch.allclose(s.weights.norm(dim=-1), torch.ones(3, 10, dtype=torch.float64))
    assert torch.equal(s.weights[:, :5], s.weights[:, 5:]) and torch.equal(s.a[:, :5], -s.a[:, 5:])
    assert set(s.a.unique().tolist()) <= {-1.0, 1.0}
    x = torch.randn(3, 100, 7, dtype=torch.float64)
    assert float(s(x).abs().max()) < 1e-14
    assert torch.equal(s.weights, Student.init([0, 1, 2], p=10, d=7, device="cpu", dtype="float64").weights)


@pytest.mark.parametrize("p, match", [(7, "even int"), (0, "'p' parameter of Student.init must be an int >= 2")])
def test_student_bad_width(p, match):
    with pytest.raises(InvalidParameterError, match=match):
        Student.init(1, p=p, d=3, device="cpu")


def test_auto_device():
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
