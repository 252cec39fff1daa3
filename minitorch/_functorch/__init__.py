"""``minitorch._functorch``: AOT autograd (chapter 20), in ``aot_autograd.py``."""
