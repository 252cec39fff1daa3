"""Every differentiable operation of minitorch, each an ``autograd.Function`` (chapter 6).

* ``arithmetic``: + - * / ** % //, negation, reciprocal, with broadcasting
* ``pointwise``: exp, log, sqrt, abs, relu, sigmoid, tanh, clamp, masked_fill, where
* ``reduction``: sum, mean, max/min, softmax, log_softmax
* ``linalg``: matmul, mm, mv, dot, bmm, addmm
* ``shape``: view/reshape, transpose, permute, squeeze/unsqueeze, expand, cat, stack, clone, to
* ``indexing``: x[...], x[...] = v, select, narrow, gather, scatter, index_select
* ``inplace``: add_, sub_, mul_, div_, zero_, fill_, copy_
* ``trig``: sin, cos, tan, asin, acos, atan, sinh, cosh, atan2
* ``exponential``: log1p, expm1, log2, log10, exp2, rsqrt, erf, lerp
* ``rounding``: floor, ceil, round, trunc, frac
* ``statistics``: var, std, norm, prod, cumsum, cumprod, logsumexp, amax, amin
* ``sorting``: sort, argsort, topk, kthvalue
* ``rearranging``: repeat, split, chunk, unbind, flip, roll, diagonal, tril, triu, trace,
  masked_select, index_select, movedim
* ``random``: uniform_, normal_, random_, exponential_, bernoulli_

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
from .trig import *  # noqa: F401,F403
from .exponential import *  # noqa: F401,F403
from .rounding import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .rearranging import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from . import (arithmetic, pointwise, reduction, linalg, shape, indexing, inplace,  # noqa: F401
               trig, exponential, rounding, statistics, sorting, rearranging, random)
