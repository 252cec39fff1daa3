"""Settings of minitorch.compile (chapter 19), named as PyTorch names them."""

cache_size_limit = 8        # captured calls kept per compiled function; then it runs eagerly
recompile_limit = cache_size_limit
automatic_dynamic_shapes = True     # dynamic=None: a size that changed becomes dynamic
error_on_recompile = False      # a recompile raises RecompileError (with its reasons) instead
