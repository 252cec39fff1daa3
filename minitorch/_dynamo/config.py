"""Settings of minitorch.compile (chapter 19), named as PyTorch names them."""

import sys
import types

recompile_limit = 8         # captured calls kept per compiled function; then it runs eagerly
automatic_dynamic_shapes = True     # dynamic=None: a size that changed becomes dynamic
error_on_recompile = False      # a recompile raises RecompileError (with its reasons) instead


class _Config(types.ModuleType):
    """This module, with ``cache_size_limit`` as the older name of ``recompile_limit``:
    one setting under two names, so that setting either changes both, as in PyTorch."""

    @property
    def cache_size_limit(self):
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, value):
        self.recompile_limit = value


sys.modules[__name__].__class__ = _Config
