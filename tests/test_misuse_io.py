"""Misuse of save/load (chapter 10).  PyTorch 2.13's exception types and wording where
they apply to minitorch's safe format; see tests/misuse.py.

PyTorch pickles; minitorch's checkpoints cannot run code when loaded, so objects
PyTorch would pickle (a whole Module, a lambda) are refused at save time instead.
These rows are the ones where both designs must give the same answer.
"""

import pytest

from tests.misuse import Row, check, namespace, params

pytestmark = pytest.mark.chapter10

SAVED = "import io\nbuf = io.BytesIO()\ntorch.save({'x': torch.ones(2)}, buf)\nbuf.seek(0)\n"

ROWS = [
    Row("torch.load('/nonexistent/file.pt')", FileNotFoundError,
        "No such file or directory: '/nonexistent/file.pt'"),
    Row("torch.save({'a': 1}, '/nonexistent/dir/file.pt')", RuntimeError,
        "Parent directory /nonexistent/dir does not exist"),
    Row("import io\ntorch.load(io.BytesIO(b''))", EOFError, plain=False),
    Row("import io, pickle\ntorch.load(io.BytesIO(pickle.dumps({'a': 1})))",
        __import__("pickle").UnpicklingError),
    Row("torch.save({'a': torch.ones(1)})", TypeError,
        "missing 1 required positional argument: 'f'"),
    Row("torch.load()", TypeError, "missing 1 required positional argument: 'f'"),
    Row("torch.save({'a': torch.ones(1)}, 5)", AttributeError,
        "expected 'f' to be string, path, or a file-like object with a 'write' attribute", plain=False),
    Row("torch.load(5)", AttributeError, "You can only torch.load from a file that is seekable",
        plain=False),
    Row(SAVED + "torch.load(buf, map_location='cuda')", RuntimeError,
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available\\(\\) is False"),
    Row(SAVED + "torch.load(buf, bogus=1)", TypeError, "unexpected keyword argument 'bogus'"),
    Row("import copy\ncopy.deepcopy(torch.ones(2, requires_grad=True) * 2)", RuntimeError,
        r"Only Tensors created explicitly by the user \(graph leaves\) support the deepcopy protocol at the moment"),
]
NAMES = namespace()


@pytest.mark.parametrize("row", params(ROWS))
def test_misuse(row):
    check(row, NAMES)
