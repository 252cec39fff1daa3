"""``Doubling``: the custom Function computing ``2 * x`` that many autograd tests vary.

A test subclasses it and overrides only the part it probes (a wrong backward, a
``jvp``, a ``vmap`` rule), so each test shows just what differs from a correct
Function.
"""

import minitorch as torch


class Doubling(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class DoublingWithoutMaterializedGrads(Doubling):
    """Receives ``None`` in backward for an output that got no gradient."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2
