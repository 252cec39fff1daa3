"""The floor: the same math in numpy, with the backward pass written by hand.

No graph, no nodes, no wrapping: each forward keeps exactly the arrays its
backward needs, and the backward is the chain rule typed out.  Whatever
minitorch spends beyond this is the price of doing it automatically.
"""

import numpy as np

from . import ADD, CYCLE, FANOUT, MUL

NAME = "numpy"
LABEL = "numpy by hand"


def version():
    return np.__version__


def op_chain(x0, n_ops):
    x = x0.copy()

    def run():
        saved = []                       # exp's output: both exp' and log' need it
        y = x
        for _ in range(n_ops // CYCLE):
            y = y * MUL
            y = y + ADD
            y = np.exp(y)
            saved.append(y)
            y = np.log(y)
        g = np.ones_like(y)              # d sum / d y
        for u in reversed(saved):
            g = g / u                    # log:  d log(u) = du / u
            g = g * u                    # exp:  d exp(v) = exp(v) dv
            g = g * MUL                  # add passes g through; mul scales it
        return g
    return run


def op_chain_no_grad(x0, n_ops):
    x = x0.copy()

    def run():
        y = x
        for _ in range(n_ops // CYCLE):
            y = np.log(np.exp(y * MUL + ADD))
        return y
    return run


def fanout_chain(x0, depth):
    x = x0.copy()

    def run():
        y = x
        for _ in range(depth):
            y = y + y * FANOUT
        g = np.ones_like(y)              # d sum / d y; nothing saved: d(y + c y) = dy + c dy
        for _ in range(depth):
            g = g + g * FANOUT
        return g
    return run


def batch(x, y):
    return x, y


class Net:
    def __init__(self, weights, lr):
        self.params = [a.copy() for W, b in weights for a in (W, b)]
        self.lr = lr
        self.grads = []
        self.loss = None

    def _forward(self, x):
        """Logits, and the input of every linear layer (backward needs them)."""
        inputs = []
        h = x
        n = len(self.params) // 2
        for i in range(n):
            W, b = self.params[2 * i], self.params[2 * i + 1]
            inputs.append(h)
            h = h @ W.T
            h += b
            if i < n - 1:
                np.maximum(h, 0, out=h)          # ReLU in place: h > 0 marks where it passed
        return h, inputs

    def step(self, x, y):
        logits, inputs = self._forward(x)
        n = len(y)
        rows = np.arange(n)
        # softmax cross-entropy, the largest logit subtracted first
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        loss = np.log(total[:, 0]).mean() - shifted[rows, y].mean()
        # backward: d loss / d logits = (softmax - one_hot) / n
        g = e / total
        g[rows, y] -= 1
        g /= n
        grads = []
        for i in reversed(range(len(inputs))):
            W, h = self.params[2 * i], inputs[i]
            grads += [g.sum(axis=0), g.T @ h]    # db, dW (appended in reverse)
            if i:
                g = g @ W
                g *= h > 0                       # ReLU's backward: where its output was positive
        grads.reverse()
        for p, dp in zip(self.params, grads):
            p -= self.lr * dp
        self.grads, self.loss = grads, loss
        return float(loss)

    def predict(self, x):
        return self._forward(x)[0].argmax(axis=1)

    def arrays(self):
        return [p.copy() for p in self.params]

    def dtypes(self):
        return {a.dtype.name for a in self.params + self.grads + [np.asarray(self.loss)]}


def seeds_graph(x):
    a = x ** 2
    b = a ** 2
    y = b ** 2
    return {"x": x, "y": y, "saved": [x, a, b]}


def twice_graph(x):
    a = x * x
    b = a * a
    y = b * b
    return {"x": x, "y": y, "saved": [x, a, b]}


def seeds_backward(handle, seed=None):
    saved = handle.pop("saved")          # backward frees what forward kept, as autograd does
    g = np.ones_like(handle["y"]) if seed is None else seed
    while saved:
        u = saved.pop()
        g = 2 * u * g                    # d u**2 = d (u * u) = 2 u du
        del u
    return g


def seeded_backward(handle):
    seed = np.ones_like(handle["y"])     # held here while backward runs, as by autograd's caller
    return seeds_backward(handle, seed)
