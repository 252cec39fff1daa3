"""Parameters as one flat vector and back (chapter 10, "Putting it together").

Some algorithms (line searches, second-order methods, evolution
strategies) see a model as a single point in parameter space.
``parameters_to_vector`` concatenates the flattened parameters;
``vector_to_parameters`` makes the parameters views of consecutive pieces
of a vector, in the same order.
"""

from ... import Tensor, cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-d tensor (differentiable)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Make each parameter, in order, a view of the next ``p.numel()`` entries of ``vec``.

    As in PyTorch, the parameters then share ``vec``'s memory (writing into
    ``vec`` changes them), and stay the same Parameter objects.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected minitorch.Tensor, but got: {type(vec).__name__}")
    start = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[start:start + count].view_as(param).data
        start += count
