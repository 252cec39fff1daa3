"""Import a program written for PyTorch with minitorch answering its ``import torch``.

``minitorch/book/gpt.py`` (chapter 17) is written the way people write a GPT for PyTorch; the
tests run it unchanged by putting minitorch under PyTorch's module names while the
file is imported, and putting back whatever was there before.
"""

import importlib.util
import sys

import minitorch

TORCH_NAMES = {"torch": minitorch, "torch.nn": minitorch.nn,
               "torch.nn.functional": minitorch.nn.functional, "torch.optim": minitorch.optim}


def import_file(path, name, modules=None):
    """The module made from the file at ``path``, imported with ``modules`` (module
    names to module objects) placed in ``sys.modules`` for the duration."""
    modules = modules or {}
    saved = {key: sys.modules.get(key) for key in modules}
    sys.modules.update(modules)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for key, old in saved.items():
            if old is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = old
    return module


def import_on_minitorch(path, name):
    """``import_file`` with minitorch answering ``import torch`` (and its submodules)."""
    return import_file(path, name, TORCH_NAMES)
