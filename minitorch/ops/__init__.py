"""Every differentiable operation of minitorch, each an ``autograd.Function`` (chapter 4).

* ``arithmetic``: + - * / ** and negation, with broadcasting
* ``pointwise``: exp, log, sqrt, abs, relu, sigmoid, tanh, clamp, masked_fill
* ``reduction``: sum, mean, max/min, softmax, log_softmax
* ``linalg``: matmul and mm
* ``shape``: view/reshape, transpose, squeeze/unsqueeze, expand, indexing, cat, stack
* ``inplace``: add_, sub_, mul_, div_, zero_, fill_, copy_

The autograd engine knows none of them by name: it only calls the
``backward`` of whatever node it reaches.
"""

from .arithmetic import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
