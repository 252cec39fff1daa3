"""``nn.utils``: gradient clipping, parameters as one vector, ``skip_init``
(chapter 10, "Putting it together"); ``prune``, ``parametrize`` and
``parametrizations`` (chapter "Module surgery")."""

from . import parametrizations, parametrize, prune

from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init
from . import rnn  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "skip_init"]
