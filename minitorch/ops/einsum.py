"""``einsum``: products and sums written as index equations (Part V, the attention chapter).

``einsum("bhld,bhmd->bhlm", q, k)`` names every dim with a letter: letters shared
by operands are multiplied together, letters missing from the output are
summed.  The gradient for one operand is another einsum: the output's gradient
times the other operands, summed down to that operand's letters.  Two details
make that general: a letter only that operand has (summed away in forward) comes
back as a broadcast (a ones vector in the equation), and a letter it repeats
(``"ii->i"``, a diagonal) comes back as a product with the identity.
"""

import string

import numpy as np

from .._tensor import Tensor
from ._common import BuiltinFunction, sum_to_shape, type_name_of

__all__ = ["Einsum", "einsum"]

_LETTERS = string.ascii_letters


class _Plan:
    """The parsed equation: each operand's letters, the output's, every letter's size."""

    def __init__(self, inputs, output, sizes):
        self.inputs, self.output, self.sizes = inputs, output, sizes

    def equation(self):
        return ",".join(self.inputs) + "->" + self.output

    def full_shape(self, i):
        return tuple(self.sizes[c] for c in self.inputs[i])

    def gradient_terms(self, i):
        """The einsum that gives operand ``i``'s gradient: its terms, their kinds
        ("grad", an operand index, ("eye", n) or ("ones", n)) and its result's letters."""
        mine = self.inputs[i]
        terms, kinds = [self.output], ["grad"]
        for j, term in enumerate(self.inputs):
            if j != i:
                terms.append(term)
                kinds.append(j)
        available = set("".join(terms))
        fresh = iter(c for c in _LETTERS if c not in "".join(self.inputs) + self.output)
        result = ""
        for c in mine:
            if c in result:                         # a repeated letter: the diagonal
                new = next(fresh)
                terms.append(c + new)
                kinds.append(("eye", self.sizes[c]))
                result += new
                continue
            if c not in available:                  # summed away only here: a broadcast
                terms.append(c)
                kinds.append(("ones", self.sizes[c]))
                available.add(c)
            result += c
        return terms, kinds, result


def _gradient(plan, i, grad, operands, backend):
    """Operand ``i``'s gradient, with ``backend`` numpy (arrays) or minitorch (tensors)."""
    terms, kinds, result = plan.gradient_terms(i)
    values = []
    for kind in kinds:
        if kind == "grad":
            values.append(grad)
        elif isinstance(kind, int):
            values.append(operands[kind])
        else:
            name, n = kind
            values.append(backend.eye(n, dtype=grad.dtype) if name == "eye"
                          else backend.ones(n, dtype=grad.dtype))
    return backend.einsum(",".join(terms) + "->" + result, *values)


class _NumpyBackend:
    einsum = staticmethod(lambda eq, *xs: np.einsum(eq, *xs, optimize=len(xs) > 2))
    eye = staticmethod(np.eye)
    ones = staticmethod(np.ones)


class _TensorBackend:
    @staticmethod
    def einsum(eq, *xs):
        return einsum(eq, *xs)

    @staticmethod
    def eye(n, dtype):
        return Tensor._wrap(np.eye(n, dtype=dtype.numpy_dtype))

    @staticmethod
    def ones(n, dtype):
        return Tensor._wrap(np.ones(n, dtype=dtype.numpy_dtype))


class Einsum(BuiltinFunction):
    """The einsum of the operands (each broadcast to its letters' sizes first)."""
    _backward_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, plan, *operands):
        arrays = [np.broadcast_to(t._data, plan.full_shape(i)) for i, t in enumerate(operands)]
        ctx.plan = plan
        ctx.save_for_backward(*operands)
        return np.asarray(np.einsum(plan.equation(), *arrays, optimize=len(arrays) > 2))

    @staticmethod
    def backward(ctx, grad):
        plan, operands = ctx.plan, ctx.saved_tensors
        full = [t.expand(*plan.full_shape(i)) for i, t in enumerate(operands)]
        grads = [None]
        for i, t in enumerate(operands):
            if ctx.needs_input_grad[i + 1]:
                g = _gradient(plan, i, grad, full, _TensorBackend).reshape(plan.full_shape(i))
                grads.append(g.sum_to_size(*t.shape) if tuple(g.shape) != t.shape else g)
            else:
                grads.append(None)
        return tuple(grads)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        plan, arrays = ctx.plan, ctx.saved_arrays
        full = [np.broadcast_to(a, plan.full_shape(i)) for i, a in enumerate(arrays)]
        grads = [None]
        for i, a in enumerate(arrays):
            if ctx.needs_input_grad[i + 1]:
                g = _gradient(plan, i, grad, full, _NumpyBackend).reshape(plan.full_shape(i))
                g = np.asarray(sum_to_shape(g, a.shape))
                grads.append(g if g.flags.c_contiguous else g.copy())
            else:
                grads.append(None)
        return tuple(grads)


def einsum(equation, *operands):
    """``einsum("ij,jk->ik", a, b)`` is ``a @ b``; ``"...ij->...ji"`` transposes the last
    two dims; without ``->`` the output has the letters used once, in alphabetical
    order.  Operands may also be given as one list."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type_name_of(equation)}")
    for t in operands:
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): argument 'tensors' must be tuple of Tensors, not "
                            f"{type_name_of(t)}")
    plan = _parse(equation, operands)
    dtypes = {t.dtype for t in operands}
    if len(dtypes) > 1:
        first = operands[0].dtype
        other = next(t.dtype for t in operands if t.dtype != first)
        raise RuntimeError(f"expected scalar type {first.type_name} but found "
                           f"{other.type_name}: convert the operands to one dtype")
    return Einsum.apply(plan, *operands)


def _parse(equation, operands):
    """The equation with spaces removed and ellipses replaced by letters, checked against
    the operands' shapes, as a ``_Plan``."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    for index, c in enumerate(equation):
        if c not in _LETTERS and c not in " ,.->":
            raise RuntimeError(f"einsum(): invalid subscript given at index {index} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
    used = set(c for c in eq if c in _LETTERS)
    spare = [c for c in _LETTERS if c not in used]
    widest = 0
    for i, (term, t) in enumerate(zip(terms, operands)):
        letters = len(term.replace("...", ""))
        if "..." in term:
            widest = max(widest, t.ndim - letters)
        elif letters != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({letters}) "
                               f"does not match the number of dimensions ({t.ndim}) for operand "
                               f"{i} and no ellipsis was given")
    dots = "".join(spare[:widest])
    inputs = [term.replace("...", dots[widest - (t.ndim - len(term) + 3):] if widest else "")
              if "..." in term else term for term, t in zip(terms, operands)]
    sizes = _letter_sizes(inputs, operands)
    if arrow:
        output = rhs.replace("...", dots)
        for c in output:
            if output.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   "the output")
            if c not in sizes:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
    else:
        counts = "".join(term.replace("...", "") for term in terms)
        output = dots + "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
    return _Plan(inputs, output, sizes)


def _letter_sizes(inputs, operands):
    """Each letter's size; size 1 broadcasts, other disagreements are PyTorch's errors."""
    sizes = {}
    for i, (term, t) in enumerate(zip(inputs, operands)):
        mine = {}
        for c, n in zip(term, t.shape):
            if c in mine and mine[c] != n:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but "
                                   f"the sizes don't match, {n} != {mine[c]}")
            mine[c] = n
        for c, n in mine.items():
            seen = sizes.get(c, 1)
            if n != seen and n != 1 and seen != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} "
                                   f"which does not broadcast with previously seen size {seen}")
            sizes[c] = max(seen, n) if n != 1 else seen
    return sizes
