"""Misuse of autograd's entry points: backward, autograd.grad/backward, in-place
changes, grad modes and inference mode, tensor and node hooks, saved-tensor hooks
(chapters 4 and 5).  PyTorch 2.13's exception types and wording; see tests/misuse.py."""

import sys

import pytest

from tests.misuse import Row, check, namespace, params

pytestmark = pytest.mark.chapter5

X = "x = torch.ones(2, requires_grad=True)\n"
INFERENCE = "with torch.inference_mode():\n    y = torch.ones(2)\n"

BACKWARD = [
    Row("torch.ones(2).backward()", RuntimeError,
        "element 0 of tensors does not require grad and does not have a grad_fn"),
    Row("torch.ones(2, requires_grad=True).backward()", RuntimeError,
        "grad can be implicitly created only for scalar outputs"),
    Row("(torch.ones(2, requires_grad=True) * 2).backward()", RuntimeError,
        "grad can be implicitly created only for scalar outputs"),
    Row("(torch.ones(2, requires_grad=True) * 2).backward(torch.ones(3))", RuntimeError,
        r"Mismatch in shape: grad_output\[0\] has a shape of (mini)?torch.Size\(\[3\]\) and output\[0\] has a shape of "
        r"(mini)?torch.Size\(\[2\]\)"),
    Row("(torch.ones(2, requires_grad=True) * 2).backward([1., 1.])", TypeError,
        "gradients can be either Tensors or None, but got float"),
    Row("(torch.ones(2, requires_grad=True) * 2).sum().backward(torch.ones(2))", RuntimeError,
        "Mismatch in shape"),
    Row("(torch.ones(2, requires_grad=True) * 2).sum().backward(inputs=[])", RuntimeError,
        "`inputs` argument to `backward\\(\\)` cannot be empty"),
    Row("(torch.ones(2, requires_grad=True) * 2).sum().backward(inputs=[torch.ones(2)])",
        RuntimeError),
    Row(X + "y = x.exp().sum()\ny.backward()\ny.backward()", RuntimeError,
        r"Trying to backward through the graph a second time \(or directly access saved tensors after they have "
        "already been freed\\)"),
    Row(X + "y = (x * x).sum()\ny.backward()\ny.backward()", RuntimeError,
        "Trying to backward through the graph a second time"),
    Row(X + "y = (x * 2).sum()\ny.backward()\ny.backward()", RuntimeError, "Trying to backward through the graph a second time",
        note="even a graph that saved nothing can be run only once"),
    Row(X + "y = x * 1\ny.sum().backward()\ny.sum().backward()", RuntimeError,
        "Trying to backward through the graph a second time"),
    Row(X + "y = x * 2\nz = y * y\nz.sum().backward()\n(y * 3).sum().backward()", RuntimeError,
        "Trying to backward through the graph a second time"),
    Row(X + "y = x.exp()\ny.sum().backward()\ny.grad_fn._saved_result", RuntimeError,
        "Trying to backward through the graph a second time"),
    Row(X + "y = x * 1\nz = y * y\ny.add_(1)\nz.sum().backward()", RuntimeError,
        r"one of the variables needed for gradient computation has been modified by an inplace operation: "
        r"\[(mini)?torch.FloatTensor \[2\]\], which is output 0 of \w+, is at version 1; expected version 0 instead"),
    Row(X + "z = x.exp()\nz.add_(1)\nz.sum().backward()", RuntimeError,
        "has been modified by an inplace operation.*which is output 0 of Exp(Backward0)?, is at version 1; expected version 0"),
    Row(X + "torch.autograd.grad(torch.ones(2).sum(), torch.ones(2))", RuntimeError,
        "element 0 of tensors does not require grad"),
    Row(X + "torch.autograd.grad((x * 2).sum(), torch.ones(2))", RuntimeError,
        "One of the differentiated Tensors does not require grad"),
    Row(X + "z = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), [x, z])", RuntimeError,
        "The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True"),
    Row(X + "torch.autograd.grad(x * 2, x)", RuntimeError,
        "grad can be implicitly created only for scalar outputs"),
    Row(X + "torch.autograd.grad((x * 2).sum(), [])", RuntimeError,
        "`inputs` argument to `grad\\(\\)` cannot be empty"),
    Row(X + "torch.autograd.grad((x * 2).sum(), 'x')", RuntimeError,
        "all inputs have to be Tensors or GradientEdges, but got str"),
    Row(X + "torch.autograd.grad((x * 2).sum(), x, foo=1)", TypeError,
        "unexpected keyword argument 'foo'"),
    Row(X + "torch.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)", ValueError,
        "Expected allow_unused to be True or not passed when materialize_grads=True"),
    Row(X + "g, = torch.autograd.grad((x * 2).sum(), x)\ntorch.autograd.grad(g.sum(), x)", RuntimeError,
        "element 0 of tensors does not require grad"),
    Row(X + "y = x.exp().sum()\ntorch.autograd.grad(y, x)\ntorch.autograd.grad(y, x)", RuntimeError,
        "Trying to backward through the graph a second time"),
    Row("torch.autograd.backward(torch.ones(2))", RuntimeError,
        "element 0 of tensors does not require grad"),
    Row(X + "torch.autograd.backward(x.sum(), grad_tensors=[1.0])", TypeError,
        "gradients can be either Tensors or None, but got float"),
    Row("with torch.no_grad():\n    y = torch.ones(2, requires_grad=True) * 2\ny.sum().backward()", RuntimeError,
        "element 0 of tensors does not require grad"),
]

IN_PLACE = [
    Row(X + "x.add_(1)", RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation"),
    Row(X + "x.zero_()", RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation"),
    Row(X + "x.fill_(2)", RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation"),
    Row(X + "x.copy_(torch.zeros(2))", RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation"),
    Row(X + "x += 1", RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation"),
    Row(X + "x[0] = 5", RuntimeError,
        "a view of a leaf Variable that requires grad is being used in an in-place operation"),
    Row(X + "x.view(2).mul_(2)", RuntimeError,
        "a view of a leaf Variable that requires grad is being used in an in-place operation"),
    Row(X + "y = (x * 1)[0]\ny.detach_()", RuntimeError,
        r"Can't detach views in-place. Use detach\(\) instead"),
]

MODES = [
    # Python itself refuses `with` on an object without __enter__: TypeError from 3.11 on
    Row("with torch.no_grad(1):\n    pass",
        TypeError if sys.version_info >= (3, 11) else AttributeError,
        plain=sys.version_info >= (3, 11)),
    Row("torch.set_grad_enabled()", TypeError, "missing 1 required positional argument"),
    Row("torch.set_grad_enabled('yes')", TypeError, "must be bool, not str"),
    Row("torch.set_grad_enabled(1)", TypeError, "must be bool, not int"),
    Row("with torch.inference_mode('x'):\n    pass", TypeError),
    Row(X + INFERENCE + "(x * y)", RuntimeError,
        "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation "
        "tracked by autograd"),
    Row(INFERENCE + "y.requires_grad = True", RuntimeError,
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed"),
    Row(INFERENCE + "y._version", RuntimeError, "Inference tensors do not track version counter"),
    Row(INFERENCE + "y.add_(1)", RuntimeError,
        "Inplace update to inference tensor outside InferenceMode is not allowed"),
    Row(INFERENCE + "y.zero_()", RuntimeError,
        "Inplace update to inference tensor outside InferenceMode is not allowed"),
    Row(INFERENCE + "y.fill_(1)", RuntimeError,
        "Inplace update to inference tensor outside InferenceMode is not allowed"),
    Row(INFERENCE + "y.copy_(torch.ones(2))", RuntimeError,
        "Inplace update to inference tensor outside InferenceMode"),
    Row(INFERENCE + "y += 1", RuntimeError,
        "Inplace update to inference tensor outside InferenceMode is not allowed"),
    Row(INFERENCE + "y[0] = 3", RuntimeError,
        "Inplace update to inference tensor outside InferenceMode is not allowed"),
    Row(INFERENCE + "with torch.no_grad():\n    y.add_(1)", RuntimeError,
        "Inplace update to inference tensor outside InferenceMode"),
]

HOOKS = [
    Row(X + "x.register_hook(lambda g: g * torch.ones(3))\nx.sum().backward()", RuntimeError,
        r"The size of tensor a \(2\) must match the size of tensor b \(3\)"),
    Row(X + "x.register_hook(lambda g: 5)\nx.sum().backward()", TypeError,
        "expected Variable, but hook returned 'int'"),
    Row(X + "x.register_hook(lambda g: 'a')\nx.sum().backward()", TypeError,
        "expected Variable, but hook returned 'str'"),
    Row(X + "x.register_hook(lambda g: (g,))\nx.sum().backward()", TypeError,
        "expected Variable, but hook returned 'tuple'"),
    Row(X + "y = x * 2\ny.register_hook(lambda g: 5)\ny.sum().backward()", TypeError,
        "expected Variable, but hook returned 'int'"),
    Row(X + "x.register_hook(lambda g: g.long())\nx.sum().backward()", RuntimeError,
        "hook '<lambda>' has changed the type of value", plain=False),
    Row(X + "y = x * 2\ny.register_hook(lambda g: g.double())\ny.sum().backward()", RuntimeError,
        "has changed the type of value", plain=False),
    Row(X + "x.register_hook(lambda g: g[0])\nx.sum().backward()", RuntimeError, "hook '<lambda>' has changed the size of value",
        plain=False),
    Row(X + "x.register_hook(lambda g, h: g)\nx.sum().backward()", TypeError,
        "missing 1 required positional argument", plain=False),
    Row(X + "x.register_hook(lambda g: 1 / 0)\nx.sum().backward()", ZeroDivisionError,
        "division by zero", plain=False),
    Row(X + "y = x * 2\ny.grad_fn.register_hook(lambda gi, go: 5)\ny.sum().backward()", TypeError,
        "expected tuple, but hook returned 'int'"),
    Row(X + "y = x * 2\ny.grad_fn.register_hook(lambda gi, go: gi[0])\ny.sum().backward()", TypeError,
        "expected tuple, but hook returned 'Tensor'"),
    Row(X + "y = x * 2\ny.grad_fn.register_hook(lambda gi, go: (gi[0] * 100,))\ny.sum().backward()", RuntimeError,
        r"hook '<lambda>' has returned an incorrect number of values \(got 1, but expected 2\)", plain=False),
    Row(X + "y = x * 2\ny.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))\ny.sum().backward()", RuntimeError,
        "can't replace a None gradient with a non-None value"),
    Row(X + "y = x * 2\ny.grad_fn.register_prehook(lambda go: (go[0], go[0]))\ny.sum().backward()", RuntimeError,
        r"has returned an incorrect number of values \(got 2, but expected 1\)", plain=False),
    Row(X + "y = x * 2\ny.grad_fn.register_prehook(lambda go: 5)\ny.sum().backward()", TypeError,
        "expected tuple, but hook returned 'int'"),
    Row(X + "y = x * 2\ny.grad_fn.register_prehook(lambda go: (go[0][:1],))\ny.sum().backward()", RuntimeError,
        "has changed the size of value", plain=False),
    Row(X + "y = x * 2\ny.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (torch.ones(2),))\ny.sum().backward()",
        RuntimeError, r"has returned an incorrect number of values \(got 1, but expected 0\)", plain=False),
    Row(X + "y = x * 2\ny.grad_fn.name = 'x'", AttributeError, "'name'", plain=False),
    Row(X + "y = x * 2\ny.grad_fn.next_functions = ()", AttributeError, "'next_functions'",
        plain=False),
]

SAVED_HOOKS = [
    Row("with torch.autograd.graph.saved_tensors_hooks(lambda t: t):\n    pass", TypeError,
        "missing 1 required positional argument: 'unpack_hook'"),
    Row(X + "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: None):\n    y = x * x\ny.sum().backward()",
        TypeError, "Output of saved tensor unpack_hook expected to be a Tensor but got result of type NoneType"),
    Row(X + "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 'x'):\n    y = x * x\ny.sum().backward()",
        TypeError, "unpack_hook expected to be a Tensor but got result of type str"),
    Row(X + "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: torch.ones(3)):\n    y = x * x\n"
        "y.sum().backward()", RuntimeError, r"The size of tensor a \(2\) must match the size of tensor b \(3\)"),
    Row(X + "with torch.autograd.graph.saved_tensors_hooks(lambda t: 1 / 0, lambda p: p):\n    y = x * x", ZeroDivisionError,
        plain=False),
]

ROWS = BACKWARD + IN_PLACE + MODES + HOOKS + SAVED_HOOKS
NAMES = namespace()


@pytest.mark.parametrize("row", params(ROWS))
def test_misuse(row):
    check(row, NAMES)
