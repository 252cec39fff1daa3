"""Every differentiable operation of minitorch, each an ``autograd.Function`` (chapter 6).

* ``arithmetic``: + - * / ** % //, negation, reciprocal, with broadcasting
* ``pointwise``: exp, log, sqrt, abs, relu, sigmoid, tanh, clamp, masked_fill, where
* ``reduction``: sum, mean, max/min, softmax, log_softmax
* ``linalg``: matmul, mm, mv, dot, bmm, addmm
* ``shape``: view/reshape, transpose, permute, squeeze/unsqueeze, expand, cat, stack, clone, to
* ``indexing``: x[...], x[...] = v, select, narrow, gather, scatter, index_select
* ``inplace``: add_, sub_, mul_, div_, zero_, fill_, copy_

A Tensor method is a one-liner that calls one of these.  The autograd
engine knows none of them by name: it only calls the ``backward`` of
whatever node it reaches.
"""

from ._common import *  # noqa: F401,F403
from .arithmetic import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
from . import arithmetic, pointwise, reduction, linalg, shape, indexing, inplace  # noqa: F401
