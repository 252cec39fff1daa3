"""PyTorch-style code, written once and run on both PyTorch and minitorch.

``minitorch_impl`` and ``torch_impl`` each call ``adapter(module)`` with their
own ``torch``: the lines below are the code a PyTorch user writes (nn.Linear,
nn.ReLU, F.cross_entropy, optim.SGD), and they run unchanged on minitorch,
which is the point of the book.
"""

from types import SimpleNamespace

from . import ADD, CYCLE, FANOUT, MUL


def adapter(torch):
    nn, F = torch.nn, torch.nn.functional

    def op_chain(x0, n_ops):
        x = torch.from_numpy(x0.copy()).requires_grad_()

        def run():
            x.grad = None
            y = x
            for _ in range(n_ops // CYCLE):
                y = (y * MUL + ADD).exp().log()
            y.sum().backward()
            return x.grad.numpy()
        return run

    def op_chain_no_grad(x0, n_ops):
        x = torch.from_numpy(x0.copy()).requires_grad_()

        def run():
            with torch.no_grad():           # inference: nothing is recorded
                y = x
                for _ in range(n_ops // CYCLE):
                    y = (y * MUL + ADD).exp().log()
            return y.numpy()
        return run

    def fanout_chain(x0, depth):
        x = torch.from_numpy(x0.copy()).requires_grad_()

        def run():
            x.grad = None
            y = x
            for _ in range(depth):
                y = y + y * FANOUT          # y used twice: two gradients meet at each step
            y.sum().backward()
            return x.grad.numpy()
        return run

    def batch(x, y):
        return torch.from_numpy(x), torch.from_numpy(y)

    class Net:
        def __init__(self, weights, lr):
            layers = []
            for W, b in weights:
                linear = nn.Linear(W.shape[1], W.shape[0])
                with torch.no_grad():
                    linear.weight.copy_(torch.from_numpy(W))
                    linear.bias.copy_(torch.from_numpy(b))
                layers += [linear, nn.ReLU()]
            self.model = nn.Sequential(*layers[:-1])
            self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)
            self.loss = None

        def step(self, x, y):
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.loss = loss
            return loss.item()

        def predict(self, x):
            with torch.no_grad():
                return self.model(x).argmax(dim=1).numpy()

        def arrays(self):
            return [p.detach().numpy().copy() for p in self.model.parameters()]

        def dtypes(self):
            tensors = [self.loss]
            for p in self.model.parameters():
                tensors += [p, p.grad]
            return {str(t.dtype).rsplit(".", 1)[-1] for t in tensors}

    def seeds_graph(x):
        x = torch.from_numpy(x).requires_grad_()
        y = ((x ** 2) ** 2) ** 2
        return {"x": x, "y": y}

    def twice_graph(x):
        x = torch.from_numpy(x).requires_grad_()
        a = x * x                           # the same tensor twice in one op
        b = a * a
        y = b * b
        return {"x": x, "y": y}

    def seeds_backward(handle):
        handle["y"].sum().backward()
        return handle["x"].grad.numpy()

    def seeded_backward(handle):
        seed = torch.ones_like(handle["y"])
        handle["y"].backward(seed)          # the caller holds the seed while backward runs
        return handle["x"].grad.numpy()

    return SimpleNamespace(op_chain=op_chain, op_chain_no_grad=op_chain_no_grad,
                           fanout_chain=fanout_chain, batch=batch,
                           Net=Net, seeds_graph=seeds_graph, twice_graph=twice_graph,
                           seeds_backward=seeds_backward, seeded_backward=seeded_backward)
