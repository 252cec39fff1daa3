"""DeZero 0.0.13, the seeds' framework (optional: ``bench/requirements.txt``).

DeZero was written for numpy 1.x.  Two small shims let it run, and run as it
did then, under numpy 2:

* ``np.int`` (removed in numpy 1.24) is read when ``dezero.transforms`` is
  imported (a default argument): it is put back for the import only.
* DeZero turns a Python number operand into a 0-d float64 array
  (``as_array``).  numpy 1 cast such a 0-d operand to the other array's
  dtype; numpy 2 (NEP 50) promotes, so ``x * 0.5`` on float32 data gave
  float64.  The Variable operators get the number as an array of the
  Variable's own float dtype instead, which is what numpy 1 computed.

DeZero's softmax cross-entropy still makes float64 gradients (its one-hot is
in the labels' integer dtype, under numpy 1 as well): that is DeZero's own
behaviour and is left alone; ``dtypes()`` reports it.
"""

import numpy as np

_added_int = not hasattr(np, "int")
if _added_int:
    np.int = int
try:
    import dezero
    import dezero.functions as F
    import dezero.layers as L
    import dezero.optimizers
    from dezero import Variable
finally:
    if _added_int:
        del np.int

from . import ADD, CYCLE, FANOUT, MUL

NAME = "dezero"
LABEL = "DeZero"


def version():
    return dezero.__version__


def _scalar_in_own_dtype(op):
    def wrapped(x0, x1):
        if np.isscalar(x1) and x0.data.dtype.kind == "f":
            x1 = np.asarray(x1, dtype=x0.data.dtype)
        return op(x0, x1)
    wrapped.__name__ = op.__name__
    return wrapped


def _install_shims():
    for name in ("__add__", "__radd__", "__mul__", "__rmul__", "__sub__", "__rsub__",
                 "__truediv__", "__rtruediv__"):
        op = getattr(Variable, name)
        if not getattr(op, "_bench_shim", False):
            wrapped = _scalar_in_own_dtype(op)
            wrapped._bench_shim = True
            setattr(Variable, name, wrapped)


_install_shims()


def op_chain(x0, n_ops):
    x = Variable(x0.copy())

    def run():
        x.cleargrad()
        y = x
        for _ in range(n_ops // CYCLE):
            y = F.log(F.exp(y * MUL + ADD))
        F.sum(y).backward()
        return x.grad.data
    return run


def op_chain_no_grad(x0, n_ops):
    x = Variable(x0.copy())

    def run():
        with dezero.no_grad():
            y = x
            for _ in range(n_ops // CYCLE):
                y = F.log(F.exp(y * MUL + ADD))
        return y.data
    return run


def fanout_chain(x0, depth):
    x = Variable(x0.copy())

    def run():
        x.cleargrad()
        y = x
        for _ in range(depth):
            y = y + y * FANOUT
        F.sum(y).backward()
        return x.grad.data
    return run


def batch(x, y):
    return Variable(x), y


class _Model(dezero.Model):
    def __init__(self, weights):
        super().__init__()
        self.layers = []
        for i, (W, b) in enumerate(weights):
            layer = L.Linear(W.shape[0], in_size=W.shape[1])
            layer.W.data = W.T.copy()         # DeZero's W is in x out
            layer.b.data = b.copy()
            setattr(self, f"l{i}", layer)
            self.layers.append(layer)

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = F.relu(layer(x))
        return self.layers[-1](x)


class Net:
    def __init__(self, weights, lr):
        self.model = _Model(weights)
        self.optimizer = dezero.optimizers.SGD(lr).setup(self.model)
        self.loss = None

    def step(self, x, y):
        self.model.cleargrads()
        loss = F.softmax_cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.update()
        self.loss = loss
        return float(loss.data)

    def predict(self, x):
        with dezero.no_grad():
            return self.model(x).data.argmax(axis=1)

    def arrays(self):
        out = []
        for layer in self.model.layers:
            out += [layer.W.data.T.copy(), layer.b.data.copy()]
        return out

    def dtypes(self):
        arrays = [self.loss.data]
        for layer in self.model.layers:
            for p in (layer.W, layer.b):
                arrays += [p.data, p.grad.data]
        return {a.dtype.name for a in arrays}


def seeds_graph(x):
    x = Variable(x)
    y = ((x ** 2) ** 2) ** 2
    return {"x": x, "y": y}


def twice_graph(x):
    x = Variable(x)
    a = x * x
    b = a * a
    y = b * b
    return {"x": x, "y": y}


def seeds_backward(handle):
    F.sum(handle["y"]).backward()
    return handle["x"].grad.data


def seeded_backward(handle):
    seed = Variable(np.ones_like(handle["y"].data))
    handle["y"].grad = seed             # DeZero starts backward from the output's .grad
    handle["y"].backward()
    return handle["x"].grad.data
