"""``minitorch.fx.experimental``: ``symbolic_shapes`` (sizes as expressions, chapter 19)."""
