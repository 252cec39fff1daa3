"""``nn.utils.parametrize`` and ``nn.utils.parametrizations``: the class swap, the
property, ``parametrizations.<name>.original``, right_inverse, chains, buffers,
``cached()``, removal, and ``weight_norm``/``orthogonal``/``spectral_norm``.

Every expected value, key, repr and error is what PyTorch 2.13 gives for the same
program (run side by side).
"""

import copy
import pickle

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.utils.parametrize as P
from minitorch.nn.utils import parametrizations as PS

pytestmark = pytest.mark.chapter8b

W = [[0.5, -0.1, 0.3], [0.05, 0.9, -0.25], [-0.6, 0.15, 0.7]]


def linear(weight=W):
    layer = nn.Linear(len(weight[0]), len(weight))
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(weight))
        layer.bias.fill_(0.1)
    return layer


def close(tensor, expected, atol=1e-4):
    return np.allclose(tensor.detach().numpy(), expected, atol=atol)


def names(pairs):
    return [name for name, _ in pairs]


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(0, 1)

    def right_inverse(self, A):
        return A.triu()


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(0, 1)


class Double(nn.Module):
    def forward(self, X):
        return 2 * X


class Split(nn.Module):
    def forward(self, X0, X1):
        return X0 + X1

    def right_inverse(self, Z):
        return Z / 4, 3 * Z / 4


class Flat(nn.Module):
    def forward(self, X):
        return X.reshape(-1)


SYMMETRIC_REPR = """ParametrizedLinear(
  in_features=3, out_features=3, bias=True
  (parametrizations): ModuleDict(
    (weight): ParametrizationList(
      (0): Symmetric()
    )
  )
)"""


def test_the_import_forms_work():
    import minitorch.nn.utils.parametrize as by_path
    from minitorch.nn.utils import parametrizations, parametrize
    assert by_path is parametrize is torch.nn.utils.parametrize
    assert parametrizations is torch.nn.utils.parametrizations


def test_registering_swaps_the_class_and_moves_the_parameter():
    layer = linear()
    weight = layer.weight
    P.register_parametrization(layer, "weight", Symmetric())
    assert type(layer).__name__ == "ParametrizedLinear"
    assert type(layer).__bases__ == (nn.Linear,) and isinstance(layer, nn.Linear)
    assert P.type_before_parametrizations(layer) is nn.Linear
    assert type(nn.Linear(2, 2)) is nn.Linear          # only this instance changed class
    assert repr(layer) == SYMMETRIC_REPR
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert names(layer.named_parameters()) == ["bias", "parametrizations.weight.original"]
    assert isinstance(layer.parametrizations, nn.ModuleDict)
    original = layer.parametrizations.weight.original
    assert original is weight                          # right_inverse's values, same object
    assert close(original, [[0.5, -0.1, 0.3], [0, 0.9, -0.25], [0, 0, 0.7]])
    assert type(layer.weight) is torch.Tensor and layer.weight.grad_fn is not None
    assert close(layer.weight, [[0.5, -0.1, 0.3], [-0.1, 0.9, -0.25], [0.3, -0.25, 0.7]])
    assert (P.is_parametrized(layer), P.is_parametrized(layer, "weight"),
            P.is_parametrized(layer, "bias")) == (True, True, False)


def test_the_gradient_flows_to_the_original():
    layer = linear()
    P.register_parametrization(layer, "weight", Symmetric())
    out = layer(torch.tensor([[1.0, -2.0, 0.5]]))
    assert close(out, [[0.95, -1.925, 1.25]])
    out.sum().backward()
    assert close(layer.parametrizations.weight.original.grad,
                 [[1, -1, 1.5], [0, -2, -1.5], [0, 0, 0.5]])


def test_assigning_runs_right_inverse_into_the_same_original():
    layer = linear()
    weight = layer.weight
    P.register_parametrization(layer, "weight", Symmetric())
    layer.weight = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]])
    assert layer.parametrizations.weight.original is weight
    assert close(layer.parametrizations.weight.original, [[1, 2, 3], [0, 4, 5], [0, 0, 6]])
    assert close(layer.weight, [[1, 2, 3], [2, 4, 5], [3, 5, 6]])


def test_a_second_parametrization_applies_after_the_first():
    layer = linear()
    P.register_parametrization(layer, "weight", Symmetric())
    P.register_parametrization(layer, "weight", Double())
    assert repr(layer) == SYMMETRIC_REPR.replace(
        "(0): Symmetric()\n", "(0): Symmetric()\n      (1): Double()\n")
    assert close(layer.weight, 2 * np.array([[0.5, -0.1, 0.3], [-0.1, 0.9, -0.25],
                                             [0.3, -0.25, 0.7]]))
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original"]
    with pytest.raises(RuntimeError, match="^parametrization Double does not implement "
                                           "right_inverse.$"):
        layer.weight = torch.eye(3)


def test_cached_computes_once_per_block():
    layer = linear()
    P.register_parametrization(layer, "weight", Symmetric())
    with P.cached():
        assert layer.weight is layer.weight
        with P.cached():            # nested blocks share the cache
            first = layer.weight
        assert layer.weight is first
    assert layer.weight is not layer.weight


def test_remove_leaving_the_parametrized_value():
    layer = linear()
    P.register_parametrization(layer, "weight", Symmetric())
    P.register_parametrization(layer, "weight", Double())
    original = layer.parametrizations.weight.original
    P.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear
    assert repr(layer) == "Linear(in_features=3, out_features=3, bias=True)"
    assert list(layer.state_dict()) == ["bias", "weight"]
    assert layer.weight is original and type(layer.weight) is nn.Parameter
    assert close(layer.weight, [[1, -0.2, 0.6], [-0.2, 1.8, -0.5], [0.6, -0.5, 1.4]])
    assert not hasattr(layer, "parametrizations") and not P.is_parametrized(layer)


def test_remove_leaving_the_original_and_one_of_two_tensors():
    layer = linear()
    P.register_parametrization(layer, "weight", Skew())
    P.remove_parametrizations(layer, "weight", leave_parametrized=False)
    assert close(layer.weight, W)
    layer = linear()
    P.register_parametrization(layer, "weight", Skew())
    P.register_parametrization(layer, "bias", Double())
    assert list(layer.state_dict()) == ["parametrizations.weight.original",
                                        "parametrizations.bias.original"]
    P.remove_parametrizations(layer, "weight")
    assert type(layer).__name__ == "ParametrizedLinear"
    assert close(layer.weight, [[0, -0.1, 0.3], [0.1, 0, -0.25], [-0.3, 0.25, 0]])
    assert list(layer.state_dict()) == ["weight", "parametrizations.bias.original"]
    P.remove_parametrizations(layer, "bias")
    assert type(layer) is nn.Linear and close(layer.bias, [0.2, 0.2, 0.2])


def test_a_tuple_right_inverse_gives_original0_and_original1():
    layer = linear()
    P.register_parametrization(layer, "weight", Split())
    chain = layer.parametrizations.weight
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original0",
                                        "parametrizations.weight.original1"]
    assert close(chain.original0, np.array(W) / 4) and close(layer.weight, W)
    assert type(chain.original0) is nn.Parameter and chain.original1.requires_grad
    assert (hasattr(chain, "original"), chain.is_tensor, chain.ntensors) == (False, False, 2)
    with pytest.raises(ValueError, match=r"^Cannot leave unparametrized \(`leave_parametrized"
                                         r"=False`\) a tensor that is parametrized in terms "
                                         r"of a sequence of tensors.$"):
        P.remove_parametrizations(layer, "weight", leave_parametrized=False)
    layer.weight = torch.ones(3, 3)
    assert close(chain.original0, np.full((3, 3), 0.25))
    P.remove_parametrizations(layer, "weight")
    assert type(layer.weight) is nn.Parameter and close(layer.weight, np.ones((3, 3)))


def test_a_buffer_can_be_parametrized():
    bn = nn.BatchNorm1d(3)
    P.register_parametrization(bn, "running_var", Double())
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "num_batches_tracked",
                                     "parametrizations.running_var.original"]
    assert names(bn.named_buffers()) == ["running_mean", "num_batches_tracked",
                                         "parametrizations.running_var.original"]
    assert close(bn.running_var, [2, 2, 2])
    assert type(bn).__name__ == "ParametrizedBatchNorm1d"


def test_shape_and_dtype_checks_and_unsafe():
    layer = linear()
    with pytest.raises(ValueError) as info:
        P.register_parametrization(layer, "weight", Flat())
    assert str(info.value) == (
        "Registering a parametrization may not change the shape of the tensor, unless "
        "`unsafe` flag is enabled.\nunparametrized shape: minitorch.Size([3, 3])\n"
        "parametrized shape: minitorch.Size([9])")
    assert type(layer) is nn.Linear and names(layer.named_parameters()) == ["weight", "bias"]
    P.register_parametrization(layer, "weight", Flat(), unsafe=True)
    assert layer.weight.shape == (9,)

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()
    with pytest.raises(ValueError, match=r"may not change the dtype of the tensor, unless "
                                         r"`unsafe` flag is enabled.\nunparametrized dtype: "
                                         r"minitorch.float32\nparametrized dtype: "
                                         r"minitorch.float64$"):
        P.register_parametrization(linear(), "weight", ToDouble())
    layer = linear()
    P.register_parametrization(layer, "weight", Symmetric())
    with pytest.raises(ValueError, match=r"unless the `unsafe` flag is enabled.\nmodule.weight"
                                         r".shape: minitorch.Size\(\[3, 3\]\)\n"
                                         r"parametrization\(module.weight\).shape: "):
        P.register_parametrization(layer, "weight", Flat())


def test_errors_for_missing_names_pickling_and_parameters():
    message = ("Module 'Linear(in_features=3, out_features=3, bias=True)' does not have a "
               "parameter, a buffer, or a parametrized element with name 'nothere'")
    with pytest.raises(ValueError) as info:
        P.register_parametrization(linear(), "nothere", Double())
    assert str(info.value) == message
    with pytest.raises(ValueError, match=r"^Module Linear\(in_features=3, out_features=3, "
                                         r"bias=True\) does not have a parametrization on "
                                         r"weight$"):
        P.remove_parametrizations(linear(), "weight")
    layer = linear()
    P.register_parametrization(layer, "weight", Symmetric())
    with pytest.raises(RuntimeError, match="^Serialization of parametrized modules is only "
                                           r"supported through state_dict\(\)"):
        pickle.dumps(layer)
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        layer.weight = nn.Parameter(torch.eye(3))
    replica = copy.deepcopy(layer)
    assert type(replica).__name__ == "ParametrizedLinear"
    assert close(replica.weight, layer.weight.detach().numpy())
    assert replica.parametrizations.weight.original is not layer.parametrizations.weight.original


def test_a_parametrization_takes_the_modules_training_flag():
    layer = linear().eval()
    double = Double()
    P.register_parametrization(layer, "weight", double)
    assert double.training is False


# ----- weight_norm ------------------------------------------------------------------------
WN = [[3.0, 4.0], [1.0, -1.0], [0.0, 2.0]]
WN_REPR = SYMMETRIC_REPR.replace("in_features=3, out_features=3", "in_features=2, "
                                 "out_features=3").replace("Symmetric", "_WeightNorm")


def test_weight_norm_splits_magnitude_and_direction():
    layer = PS.weight_norm(linear(WN))
    assert repr(layer) == WN_REPR
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original0",
                                        "parametrizations.weight.original1"]
    g, v = layer.parametrizations.weight.original0, layer.parametrizations.weight.original1
    assert g.shape == (3, 1) and close(g, [[5], [2 ** 0.5], [2]]) and close(v, WN)
    assert close(layer.weight, WN)
    with torch.no_grad():
        g.mul_(2)
    assert close(layer.weight, 2 * np.array(WN))
    layer(torch.tensor([[1.0, 2.0]])).sum().backward()
    assert close(g.grad, [[2.2], [-0.70711], [2.0]])
    assert close(v.grad, [[-0.64, 0.48], [3.0, 3.0], [2.0, 0.0]])


@pytest.mark.parametrize("dim, shape, expected", [(None, (), 5.56776),
                                                  (1, (1, 2), [[3.16228, 4.58258]])])
def test_weight_norm_over_other_dims(dim, shape, expected):
    layer = PS.weight_norm(linear(WN), dim=dim)
    g = layer.parametrizations.weight.original0
    assert g.shape == shape and close(g, expected)


def test_weight_norm_loads_old_g_and_v_keys():
    layer = PS.weight_norm(linear(WN))
    old = {"weight_g": torch.ones(3, 1), "weight_v": torch.ones(3, 2), "bias": torch.zeros(3)}
    assert repr(layer.load_state_dict(old)) == "<All keys matched successfully>"
    assert close(layer.weight, np.full((3, 2), 0.70711))


# ----- orthogonal -------------------------------------------------------------------------
Q_OF_W = [[0.6389, -0.0247, 0.7689], [0.0639, 0.9977, -0.0211], [-0.7667, 0.0626, 0.639]]


def test_orthogonal_square_uses_the_matrix_exponential_from_qr_of_the_weight():
    layer = PS.orthogonal(linear())
    assert repr(layer) == SYMMETRIC_REPR.replace("Symmetric", "_Orthogonal")
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original",
                                        "parametrizations.weight.0.base"]
    assert layer.parametrizations.weight[0].orthogonal_map.name == "matrix_exp"
    assert close(layer.weight, Q_OF_W)
    assert close(layer.weight.T @ layer.weight, np.eye(3))
    assert close(layer.parametrizations.weight.original, -np.eye(3))
    assert close(layer.parametrizations.weight[0].base, Q_OF_W)
    (layer.weight * torch.arange(9.0).view(3, 3)).sum().backward()
    assert close(layer.parametrizations.weight.original.grad,
                 [[0, 0, 0], [7.8408, 0, 0], [8.3069, -0.2823, 0]])


def test_orthogonal_keeps_an_orthogonal_weight_and_assigns_new_ones():
    rotation = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    layer = PS.orthogonal(linear(rotation))
    assert close(layer.weight, rotation)
    layer.weight = torch.tensor(W)
    assert close(layer.weight, Q_OF_W)
    with pytest.raises(ValueError, match=r"^Expected a matrix or batch of matrices of shape "
                                         r"minitorch.Size\(\[3, 3\]\). Got a tensor of shape "
                                         r"minitorch.Size\(\[2, 3\]\).$"):
        layer.weight = torch.ones(2, 3)


def test_orthogonal_tall_and_wide():
    tall = [[0.5, -0.1], [0.05, 0.9], [-0.6, 0.15], [0.2, 0.2]]
    layer = PS.orthogonal(linear(tall))
    assert layer.parametrizations.weight[0].orthogonal_map.name == "householder"
    assert close(layer.weight, [[0.619, -0.0617], [0.0619, 0.9651], [-0.7428, 0.1061],
                                [0.2476, 0.2315]])
    assert close(layer.weight.T @ layer.weight, np.eye(2))
    (layer.weight ** 2).sum().backward()
    assert layer.parametrizations.weight.original.grad is not None
    layer = PS.orthogonal(linear(tall), orthogonal_map="matrix_exp")
    assert close(layer.weight.T @ layer.weight, np.eye(2))
    wide = PS.orthogonal(linear([[0.5, -0.1, 0.3, 0.2], [0.05, 0.9, -0.25, 0.1]]))
    assert close(wide.weight @ wide.weight.T, np.eye(2))


@pytest.mark.parametrize("call, message", [
    (lambda: PS.orthogonal(linear(), orthogonal_map="qr"),
     'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: qr'),
    (lambda: PS.orthogonal(nn.BatchNorm1d(3)),
     "Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."),
    (lambda: PS.orthogonal(linear(), name="nothere"),
     "Module 'Linear(in_features=3, out_features=3, bias=True)' has no parameter or buffer "
     "with name 'nothere'"),
    (lambda: PS.spectral_norm(linear(), n_power_iterations=0),
     "Expected n_power_iterations to be positive, but got n_power_iterations=0"),
])
def test_parametrizations_errors(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# ----- spectral_norm ----------------------------------------------------------------------
def test_spectral_norm_divides_by_the_largest_singular_value():
    layer = PS.spectral_norm(linear([[2.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.25]]))
    assert repr(layer) == SYMMETRIC_REPR.replace("Symmetric", "_SpectralNorm")
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original",
                                        "parametrizations.weight.0._u",
                                        "parametrizations.weight.0._v"]
    expected = [[1, 0, 0], [0, 0.25, 0], [0, 0, 0.125]]
    assert close(layer.weight, expected)
    assert close(layer.parametrizations.weight[0]._u.abs(), [1, 0, 0])
    layer.eval()
    assert close(layer.weight, expected)
    bias_normed = PS.spectral_norm(linear(), name="bias")
    assert close(bias_normed.bias, [0.5774] * 3)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range "
                                         r"of \[-2, 1\] but got 2\)$"):
        PS.spectral_norm(linear(), dim=2)


def test_spectral_norm_of_a_random_matrix_is_one():
    weight = torch.randn(5, 4, dtype=torch.float64)
    layer = nn.Linear(4, 5).double()
    with torch.no_grad():
        layer.weight.copy_(weight)
    PS.spectral_norm(layer)
    largest = np.linalg.svd(layer.weight.detach().numpy(), compute_uv=False)[0]
    assert abs(largest - 1) < 1e-3


# ----- the linear algebra under them (float64; values from PyTorch 2.13) ---------------------
def test_matrix_exp_values_and_gradient():
    A = torch.tensor([[0.1, -0.7, 0.3], [0.4, 0.2, -0.5], [1.2, 0.0, 0.3]],
                     dtype=torch.float64, requires_grad=True)
    E = torch.matrix_exp(A * 3)
    assert close(E, [[6.05592617, -5.77776706, 6.48439521],
                     [-3.02717039, 3.08407053, -3.91601809],
                     [11.17049385, -8.86025219, 10.87109254]], atol=1e-7)
    E.sum().backward()
    assert close(A.grad, [[21.97629332, 6.03888292, 47.40192696],
                          [-6.05667453, -8.37371399, -11.7805651],
                          [16.54393764, 5.9177461, 34.65173238]], atol=1e-7)
    assert close(torch.linalg.matrix_exp(torch.zeros(2, 2)), np.eye(2))
    with pytest.raises(RuntimeError, match=r"^linalg.matrix_exp: A must be batches of square "
                                           r"matrices, but they are 2 by 3 matrices$"):
        torch.matrix_exp(torch.ones(2, 3))


def test_householder_product_values_and_gradient():
    A = torch.tensor([[0.5, 0.1], [-0.3, 0.8], [0.2, 0.2], [0.9, -0.4]],
                     dtype=torch.float64, requires_grad=True)
    tau = torch.tensor([1.2, 0.7], dtype=torch.float64, requires_grad=True)
    Q = torch.linalg.householder_product(A, tau)
    assert close(Q, [[-0.2, -0.1608], [0.36, 0.34824], [-0.24, -0.17216], [-1.08, 0.13528]],
                 atol=1e-8)
    (Q * torch.arange(8.0, dtype=torch.float64).view(4, 2)).sum().backward()
    assert close(A.grad, [[0, 0], [-5.5464, 0], [-4.3608, -2.2568], [-10.812, 0.6944]],
                 atol=1e-8)
    assert close(tau.grad, [-6.5916, -6.7056], atol=1e-8)
    with pytest.raises(RuntimeError, match=r"input.shape\[-2\] must be greater than or equal "
                                           r"to input.shape\[-1\]$"):
        torch.linalg.householder_product(torch.ones(2, 3), torch.ones(2))


@pytest.mark.parametrize("ord, expected", [(None, 9.539392014169456), ("fro", 9.539392014169456),
                                           (1, 9.0), (-1, 5.0), (float("inf"), 15.0),
                                           (-float("inf"), 6.0)])
def test_linalg_norm_of_a_matrix(ord, expected):
    M = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], dtype=torch.float64)
    assert torch.linalg.norm(M, ord).item() == pytest.approx(expected)


def test_linalg_vector_norm_and_norm_errors():
    M = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    assert close(torch.linalg.vector_norm(M, 3, dim=1), [3.3019, 7.3986])
    with pytest.raises(RuntimeError, match=r"^linalg.norm: If dim is not specified but ord is, "
                                           r"the input must be 1D or 2D. Got 3D.$"):
        torch.linalg.norm(torch.ones(2, 2, 2), ord=1)


def test_orthogonal_cayley_values_and_gradient():
    layer = PS.orthogonal(linear(), orthogonal_map="cayley")
    assert close(layer.weight, Q_OF_W)
    with torch.no_grad():
        layer.parametrizations.weight.original.add_(
            torch.tensor([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.1, -0.2, 0.0]]))
    assert close(layer.weight, [[0.6526, -0.3619, 0.6657], [0.3582, 0.9216, 0.1498],
                                [-0.6677, 0.1407, 0.7311]])
    (layer.weight * torch.arange(9.0).view(3, 3)).sum().backward()
    assert close(layer.parametrizations.weight.original.grad,
                 [[0, 0, 0], [6.7379, 0, 0], [6.0434, 2.0526, 0]])


def test_solve_eigvalsh_and_dist():
    A = torch.tensor([[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.2, 0.4, 4.0]],
                     dtype=torch.float64, requires_grad=True)
    B = torch.tensor([[1.0, 2.0], [0.0, -1.0], [3.0, 1.0]], dtype=torch.float64,
                     requires_grad=True)
    X = torch.linalg.solve(A, B)
    assert close(X, [[0.23902439, 1.27317073], [0.16097561, -0.67317073],
                     [0.72195122, 0.25365854]], atol=1e-8)
    (X * torch.arange(6.0, dtype=torch.float64).view(3, 2)).sum().backward()
    assert close(A.grad, [[0.18179655, 0.0328376, 0.33884593],
                          [-1.20582986, 0.4497323, -0.6810232],
                          [-2.15466984, 0.78881618, -1.25163593]], atol=1e-8)
    assert close(B.grad, [[-0.44878049, -0.05853659], [0.65365854, 0.82439024],
                          [1.2195122, 1.46341463]], atol=1e-8)
    S = torch.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, -1.0], [0.0, -1.0, 4.0]],
                     dtype=torch.float64, requires_grad=True)
    w = torch.linalg.eigvalsh(S)
    assert close(w, [1.26794919, 3.0, 4.73205081], atol=1e-8)
    (w * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert close(S.grad, [[1.42265, 0.57735, 0], [0.57735, 2.0, -0.57735],
                          [0, -0.57735, 2.57735]], atol=1e-5)
    assert torch.dist(torch.tensor([1.0, 2.0]), torch.tensor([4.0, 6.0])).item() == 5.0
    assert torch.dist(torch.tensor([1.0, 2.0]), torch.tensor([4.0, 6.0]), 1).item() == 7.0


def test_transfer_parametrizations_and_params_shares_modules_and_originals():
    source = linear([[1.0, 2.0], [3.0, 4.0]])
    P.register_parametrization(source, "weight", Double())
    P.register_parametrization(source, "bias", Split())
    target = nn.Linear(2, 2)
    P.transfer_parametrizations_and_params(source, target)
    assert type(target).__name__ == "ParametrizedLinear"
    assert list(target.state_dict()) == ["parametrizations.weight.original",
                                         "parametrizations.bias.original0",
                                         "parametrizations.bias.original1"]
    assert close(target.weight, [[2, 4], [6, 8]]) and close(target.bias, [0.1, 0.1])
    assert target.parametrizations.weight.original is source.parametrizations.weight.original
    assert target.parametrizations.weight[0] is source.parametrizations.weight[0]
    only_bias = nn.Linear(2, 2)
    P.transfer_parametrizations_and_params(source, only_bias, "bias")
    assert list(only_bias.state_dict()) == ["weight", "parametrizations.bias.original0",
                                            "parametrizations.bias.original1"]

    class Empty(nn.Module):
        pass

    empty = Empty()
    P.transfer_parametrizations_and_params(source, empty, "weight")
    assert type(empty).__name__ == "ParametrizedEmpty"
    assert list(empty.state_dict()) == ["parametrizations.weight.original"]
    assert close(empty.weight, [[2, 4], [6, 8]])
