"""The transforms' arguments, structures and errors, as PyTorch 2.13's.

Exception types and messages were read from PyTorch 2.13 on the same calls.
"""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.func import (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, vmap,
                            functional_call, stack_module_state)

pytestmark = pytest.mark.chapter13

x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)


@pytest.mark.parametrize("call, error, message", [
    (lambda: grad(lambda a: a)(x), RuntimeError, "Expected f(*args) to return a scalar Tensor, "
     "got tensor with 1 dims"),
    (lambda: grad(lambda a: a.sum(), argnums=1)(x), RuntimeError,
     "Got argnum=1, but only 1 positional inputs"),
    (lambda: grad(lambda a: (a.sum(), 1), has_aux=True)(x), RuntimeError,
     "Expected tensors, got unsupported type <class 'int'>"),
    (lambda: grad(lambda a: a.sum(), has_aux=True)(x), RuntimeError,
     "output of function f should be a tuple: (output, aux) if has_aux is True"),
    (lambda: grad(lambda a: a.sum())(3.0), ValueError,
     "Thing passed to transform API must be Tensor, got <class 'float'>"),
    (lambda: grad(lambda a: a.sum())(torch.arange(3)), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
    (lambda: grad(lambda a, b: (a * b).sum(), argnums=(0, 0))(x, x), RuntimeError,
     "argnums elements must be unique, got (0, 0)"),
    (lambda: grad(lambda a, b: (a * b).sum(), argnums=())(x, x), RuntimeError,
     "argnums must be non-empty"),
    (lambda: grad(lambda a, b: (a * b).sum(), argnums=0.5)(x, x), RuntimeError,
     "argnums must be int or Tuple[int, ...], got: <class 'float'>"),
    (lambda: grad(lambda a: 3.0)(x), RuntimeError,
     "Expected f(*args) to return a Tensor, got <class 'float'>"),
    (lambda: jvp(torch.sin, x, x), RuntimeError, "Expected primals to be a tuple"),
    (lambda: jvp(torch.sin, (x,), (torch.ones(4, dtype=torch.float64),)), RuntimeError,
     "Trying to set a forward gradient that has a different size"),
    (lambda: jvp(torch.sin, (x,), (x, x)), RuntimeError,
     "Expected primals and tangents to have the same python structure"),
    (lambda: jvp(lambda a: 3.0, (x,), (x,)), RuntimeError,
     "expected f(*primals) to return only tensors, got unsupported type <class 'float'>"),
    (lambda: vjp(torch.sin, x)[1](torch.ones(4, dtype=torch.float64)), RuntimeError,
     "Mismatch in shape: grad_output[0] has a shape of"),
    (lambda: vjp(torch.sin, x)[1]((x,)), RuntimeError,
     "Expected pytree structure of cotangents to be the same as pytree structure of outputs"),
    (lambda: stack_module_state([]), RuntimeError,
     "stack_module_state: Expected at least one model, got 0."),
    (lambda: stack_module_state([torch.nn.Linear(3, 2), torch.nn.ReLU()]), RuntimeError,
     "stack_module_state: Expected all models to be of the same class."),
])
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_negative_argnum_and_tuple_argnums_give_tuples():
    f = lambda a, b: (a * b).sum()          # noqa: E731
    y = x * 2
    np.testing.assert_allclose(grad(f, argnums=-1)(x, y).numpy(), x.numpy())
    ga, gb = grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(ga.numpy(), y.numpy())
    np.testing.assert_allclose(gb.numpy(), x.numpy())


def test_grad_of_an_unused_input_is_zeros():
    assert grad(lambda a: torch.ones((), dtype=torch.float64))(x).tolist() == [0.0] * 3


def test_grad_results_keep_their_graph_only_when_an_input_requires_grad():
    leaf = x.clone().requires_grad_()
    g = grad(lambda a: (a ** 3).sum())(leaf)          # PyTorch: MulBackward0
    assert g.requires_grad and g.grad_fn is not None
    g.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 6 * x.numpy())
    assert not grad(lambda a: (a ** 3).sum())(x).requires_grad


@pytest.mark.task("13.3")
def test_jacobian_structures_follow_outputs_and_argnums():
    f = lambda a, b: (a * b, a.sum())        # noqa: E731
    for transform in (jacrev, jacfwd):
        jac = transform(f, argnums=(0, 1))(x, x * 2)
        assert [[tuple(j.shape) for j in row] for row in jac] == [[(3, 3), (3, 3)],
                                                                   [(3,), (3,)]]
    assert list(jacrev(lambda a: {"y": a * 2})(x)) == ["y"]


@pytest.mark.task("13.3")
def test_jacrev_with_aux_and_chunks():
    jac, aux = jacrev(lambda a: (a.sin(), a.cos()), has_aux=True, chunk_size=2)(x)
    np.testing.assert_allclose(jac.numpy(), np.diag(np.cos(x.numpy())))
    np.testing.assert_allclose(aux.numpy(), np.cos(x.numpy()))


def test_functional_call_strict_tied_weights_and_dict_tuples():
    m = torch.nn.Linear(3, 2)
    inp = torch.randn(4, 3)
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'bias'"):
        functional_call(m, {"weight": torch.zeros(2, 3)}, (inp,), strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'foo'"):
        functional_call(m, {"weight": torch.zeros(2, 3), "bias": torch.zeros(2),
                            "foo": torch.zeros(1)}, (inp,), strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(m, ({"weight": torch.zeros(2, 3)}, {"weight": torch.ones(2, 3)}),
                        (inp,))
    out = functional_call(m, ({"weight": torch.zeros(2, 3)}, {"bias": torch.ones(2)}), inp)
    assert out.tolist() == [[1.0, 1.0]] * 4
    seq = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    seq[1].weight = seq[0].weight
    zero = torch.zeros(2, 2)
    tied = functional_call(seq, {"0.weight": zero}, torch.ones(1, 2))
    untied = functional_call(seq, {"0.weight": zero}, torch.ones(1, 2), tie_weights=False)
    np.testing.assert_allclose(tied.detach().numpy(), seq[1].bias.detach().numpy()[None])
    assert not np.allclose(untied.detach().numpy(), tied.detach().numpy())
    with pytest.raises(ValueError, match="which are tied"):
        functional_call(seq, {"0.weight": zero, "1.weight": torch.ones(2, 2)}, torch.ones(1, 2))


def test_functional_call_puts_parameters_back_even_if_forward_raises():
    m = torch.nn.Linear(3, 2)
    weight = m.weight
    with pytest.raises(RuntimeError):
        functional_call(m, {"weight": torch.zeros(5, 5)}, torch.ones(1, 3))
    assert m.weight is weight


@pytest.mark.task("13.3")
def test_stack_module_state_and_an_ensemble_under_vmap():
    torch.manual_seed(0)
    models = [torch.nn.Linear(3, 2).double() for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert {k: tuple(t.shape) for k, t in params.items()} == {"weight": (4, 2, 3),
                                                               "bias": (4, 2)}
    assert all(t.is_leaf and t.requires_grad for t in params.values()) and buffers == {}
    out = vmap(lambda p, b, inp: functional_call(models[0], (p, b), (inp,)),
               in_dims=(0, 0, None))(params, buffers, x.reshape(1, 3))
    for i, model in enumerate(models):
        np.testing.assert_allclose(out[i].detach().numpy(), model(x.reshape(1, 3)).detach()
                                   .numpy(), rtol=1e-12)


def test_per_sample_gradients_equal_a_loop_of_gradients():
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(),
                                torch.nn.Linear(4, 2)).double()
    params = {k: p.detach() for k, p in model.named_parameters()}
    data = torch.randn(5, 3, dtype=torch.float64)
    targets = torch.tensor([0, 1, 1, 0, 1])

    def loss(p, sample, target):
        logits = functional_call(model, p, (sample.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(logits, target.unsqueeze(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # every op on the way has a batching rule
        per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, data, targets)
    for i in range(5):
        one = grad(loss)(params, data[i], targets[i])
        for name in params:
            np.testing.assert_allclose(per_sample[name][i].numpy(), one[name].numpy(),
                                       rtol=1e-12, atol=1e-14)
