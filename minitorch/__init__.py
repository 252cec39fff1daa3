"""minitorch: PyTorch's autograd and nn.Module, rebuilt in Python and numpy.

Code written for PyTorch within minitorch's subset runs unchanged after
``import minitorch as torch``.  Each module names the chapter of the
minitorch book that explains it.
"""

import numpy as _np

# Like PyTorch, return inf/nan quietly (log(0), 1/0) instead of warning.
_np.seterr(all="ignore")

from ._dtype import (dtype, float32, float, float64, double, float16, half,  # noqa: E402,F401,A004
                     int64, long, int32, int, int16, short, int8, uint8, bool,
                     get_default_dtype, set_default_dtype, promote_types, result_type, can_cast)
from ._tensor import Tensor, Size  # noqa: E402
from ._device import (device, cuda, backends, accelerator, set_default_device,  # noqa: E402
                      get_default_device)
from ._creation import *  # noqa: E402,F401,F403
from ._random import (manual_seed, seed, initial_seed, Generator, get_rng_state,  # noqa: E402
                      set_rng_state, default_generator)
from . import autograd  # noqa: E402
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,  # noqa
                                 inference_mode, is_inference_mode_enabled)
from .autograd.anomaly_mode import (is_anomaly_enabled,  # noqa: E402
                                    is_anomaly_check_nan_enabled)
from ._functions import *  # noqa: E402,F401,F403
from ._tensor_str import set_printoptions  # noqa: E402,F401
from ._legacy import *  # noqa: E402,F401,F403
from ._sampling import multinomial, bernoulli  # noqa: E402,F401
from .ops.einsum import einsum  # noqa: E402,F401

__version__ = "0.2.0"
from . import linalg, nn, optim, utils  # noqa: E402,F401
from .linalg import matrix_exp  # noqa: E402,F401
from . import func  # noqa: E402,F401  (torch.func)
from .utils import checkpoint as _checkpoint  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from .utils import data as _data  # noqa: E402  (minitorch.utils.data works after `import minitorch`)
del _data
