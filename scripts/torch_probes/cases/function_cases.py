"""Custom autograd.Function (the ctx API), once_differentiable, gradcheck/gradgradcheck,
and the misuse of every autograd entry point."""

from ..case import add, table

EXP = (
    "class Exp(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        y = x.exp()\n"
    "        ctx.save_for_backward(y)\n"
    "        return y\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        y, = ctx.saved_tensors\n"
    "        return g * y\n")

TWO_OUT = (
    "class Two(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2, x * 3\n"
    "    @staticmethod\n"
    "    def backward(ctx, ga, gb):\n"
    "        print('backward', None if ga is None else ga.tolist(), None if gb is None else gb.tolist())\n"
    "        ga = torch.zeros(2) if ga is None else ga\n"
    "        gb = torch.zeros(2) if gb is None else gb\n"
    "        return ga * 2 + gb * 3\n")

TWO_OUT_NOMAT = TWO_OUT.replace("        return x * 2, x * 3\n",
                                "        ctx.set_materialize_grads(False)\n        return x * 2, x * 3\n")


DROP = (
    "class Drop(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, a, b):\n"
    "        return a + b\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        print('drop backward')\n"
    "        return None, None\n")


def custom(backward_body, forward_body="        return x * 2\n", extra=""):
    return ("class F(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x):\n" + forward_body +
            "    @staticmethod\n"
            "    def backward(ctx, g):\n" + backward_body + extra)


X = "x = torch.tensor([1., 2.], requires_grad=True)\n"

table("function/api", [
    EXP + X + "y = Exp.apply(x)\ny.sum().backward()\n(y, x.grad)",
    EXP + X + "y = Exp.apply(x)\n(y.grad_fn.name(), type(y.grad_fn).__name__, y.grad_fn.next_functions[0][0].name())",
    EXP + X + "y = Exp.apply(x)\ny.grad_fn.saved_tensors",
    EXP + X + "y = Exp.apply(x)\ny.grad_fn.saved_tensors[0] is y",
    EXP + X + "y = Exp.apply(x)\ny.sum().backward()\ny.grad_fn.saved_tensors",
    EXP + X + "y = Exp.apply(x)\nisinstance(y.grad_fn, torch.autograd.function.BackwardCFunction)",
    EXP + X + "y = Exp.apply(x)\ny.grad_fn._forward_cls is Exp" ,
    EXP + "y = Exp.apply(torch.ones(2))\n(y.requires_grad, y.grad_fn)",
    EXP + X + "with torch.no_grad():\n    y = Exp.apply(x)\n(y.requires_grad, y.grad_fn)",
    EXP + X + "y = Exp.apply(x)\ng, = torch.autograd.grad(y.sum(), x, create_graph=True)\ng.sum().backward()\nx.grad",
    EXP + "Exp.apply(torch.tensor([0., 1.], dtype=torch.float64, requires_grad=True))",
    EXP + "torch.autograd.gradcheck(Exp.apply, (torch.tensor([0., 1.], dtype=torch.float64, requires_grad=True),))",
    EXP + "torch.autograd.gradgradcheck(Exp.apply, (torch.tensor([0., 1.], dtype=torch.float64, requires_grad=True),))",
    EXP + "Exp()",
    EXP + "Exp.forward(None, torch.ones(1))",
    custom("        print('needs', ctx.needs_input_grad)\n        return g, None\n",
           "        return x * 2\n").replace("def forward(ctx, x)", "def forward(ctx, x, k)")
    + X + "F.apply(x, 3).sum().backward()\nx.grad",
    custom("        print('needs', ctx.needs_input_grad)\n        return g, g\n").replace(
        "def forward(ctx, x)", "def forward(ctx, x, w)").replace("return x * 2", "return x * w")
    + X + "F.apply(x, torch.ones(2)).sum().backward()\nx.grad",
    custom("        return g\n", "        print('fwd needs', ctx.needs_input_grad, torch.is_grad_enabled())\n        return x * 2\n")
    + X + "F.apply(x)",
    custom("        return g\n", "        print('fwd needs', ctx.needs_input_grad)\n        return x * 2\n")
    + X + "with torch.no_grad():\n    F.apply(x)",
    custom("        return g, None\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return g, g\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return (g,)\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return [g]\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return None\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return g.sum()\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return g[None]\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return torch.ones(3)\n") + X + "F.apply(x).sum().backward()",
    custom("        return 5\n") + X + "F.apply(x).sum().backward()",
    custom("        return g.double()\n") + X + "F.apply(x).sum().backward()\nx.grad.dtype",
    custom("        return g.long()\n") + X + "F.apply(x).sum().backward()\nx.grad",
    custom("        return g\n", "        return 5\n") + X + "F.apply(x)",
    custom("        return g\n", "        return x\n") + X + "y = F.apply(x)\n(y is x, y.grad_fn.name())",
    custom("        return g\n", "        return x.view(2)\n") + X + "y = F.apply(x)\n(y._base is x, y.grad_fn.name())",
    custom("        return g\n", "        return (x * 2,)\n") + X + "y = F.apply(x)\ntype(y).__name__",
    custom("        return g\n", "        return [x * 2]\n") + X + "y = F.apply(x)\ntype(y).__name__",
    custom("        return g\n", "        return x * 2, 'info'\n") + X + "y = F.apply(x)\n(type(y[0]).__name__, y[1])",
    custom("        return g\n", "        return x.long()\n") + X + "y = F.apply(x)\n(y.requires_grad, y.grad_fn)",
    custom("        return g\n", "        ctx.save_for_backward(3)\n        return x * 2\n") + X + "F.apply(x)",
    custom("        return g\n", "        ctx.save_for_backward(None, x)\n        return x * 2\n") + X + "F.apply(x).grad_fn.saved_tensors",
    custom("        return g\n", "        ctx.save_for_backward(x)\n        ctx.save_for_backward(x, x)\n        return x * 2\n")
    + X + "len(F.apply(x).grad_fn.saved_tensors)",
    custom("        print(ctx.saved_tensors)\n        return g\n", "        ctx.save_for_backward(x)\n        return x * 2\n")
    + X + "y = F.apply(x)\nx.data.mul_(1)\ny.sum().backward()",
    custom("        return g\n", "        ctx.save_for_backward(x)\n        return x * 2\n")
    + X + "y = F.apply(x)\nwith torch.no_grad():\n    x.mul_(1)\ny.grad_fn.saved_tensors",
    custom("        return g\n", "        ctx.foo = [1, 2]\n        ctx.t = x\n        return x * 2\n")
    + X + "y = F.apply(x)\n(y.grad_fn.foo, y.grad_fn.t is x)",
    custom("        return g\n", "        x.mul_(2)\n        ctx.mark_dirty(x)\n        return x\n")
    + "x = torch.tensor([1., 2.], requires_grad=True)\na = x * 1\ny = F.apply(a)\n(y is a, a._version, y.grad_fn.name(), a.grad_fn.name())",
    custom("        return g\n", "        x.mul_(2)\n        ctx.mark_dirty(x)\n        return x\n") + X + "F.apply(x)",
    custom("        return g\n", "        x.mul_(2)\n        return x\n")
    + "x = torch.tensor([1., 2.], requires_grad=True)\na = x * 1\ny = F.apply(a)\n(y is a, a._version)",
    custom("        return g\n", "        ctx.mark_dirty(x)\n        return x * 2\n")
    + "x = torch.tensor([1., 2.], requires_grad=True)\na = x * 1\nF.apply(a)",
    custom("        return g\n", "        m = x > 1\n        ctx.mark_non_differentiable(m)\n        return x * 2, m\n")
    + X + "y, m = F.apply(x)\n(y.requires_grad, m.requires_grad, m.grad_fn)",
    custom("        return g\n", "        y = x * 2\n        ctx.mark_non_differentiable(y)\n        return y\n")
    + X + "y = F.apply(x)\n(y.requires_grad, y.grad_fn)",
    custom("        return g\n", "        y = x * 2\n        ctx.mark_non_differentiable(y)\n        return y\n")
    + X + "F.apply(x).sum().backward()",
    custom("        return g\n", "        ctx.mark_non_differentiable(x)\n        return x * 2\n") + X + "F.apply(x).requires_grad",
    TWO_OUT + X + "a, b = Two.apply(x)\na.sum().backward()\nx.grad",
    TWO_OUT_NOMAT + X + "a, b = Two.apply(x)\na.sum().backward()\nx.grad",
    TWO_OUT + X + "a, b = Two.apply(x)\n(a.sum() * 0 + b.sum()).backward()\nx.grad",
    TWO_OUT + X + "a, b = Two.apply(x)\n(b.grad_fn is a.grad_fn, b.grad_fn.name())",
    TWO_OUT + X + "a, b = Two.apply(x)\ntorch.autograd.grad(b.sum(), x)",
    TWO_OUT + X + "a, b = Two.apply(x)\n(a.detach().sum() + 0 * x.sum()).backward()\nx.grad",
    TWO_OUT + X + "a, b = Two.apply(x)\ntorch.autograd.backward([a, b], [None, torch.ones(2)])\nx.grad",
    TWO_OUT + X + "a, b = Two.apply(x)\ntorch.autograd.backward([a, b], [torch.ones(2), None])\nx.grad",
    TWO_OUT_NOMAT + X + "a, b = Two.apply(x)\nb.register_hook(lambda g: print('b hook'))\na.sum().backward()",
    custom("        print('g is', type(g).__name__)\n        return g if g is not None else torch.zeros(2)\n",
           "        ctx.set_materialize_grads(False)\n        return x * 2, x * 3\n").replace("backward(ctx, g)", "backward(ctx, g, h)")
    .replace("return g if g", "return h if h").replace("print('g is', type(g)", "print('g is', type(g).__name__, 'h is', type(h)")
    + X + "a, b = F.apply(x)\na.sum().backward()\nx.grad",
    custom("        return g\n", "        return x.clone()\n") + X + "y = F.apply(x)\ntorch.autograd.grad(y.sum(), x)",
    TWO_OUT + DROP + X + "a, b = Two.apply(x)\nout = Drop.apply(a, b).sum() + x.sum()\nout.backward()\nx.grad",
    TWO_OUT_NOMAT + DROP + X + "a, b = Two.apply(x)\nout = Drop.apply(a, b).sum() + x.sum()\nout.backward()\nx.grad",
    TWO_OUT + DROP + X + "a, b = Two.apply(x)\nout = Drop.apply(a, b).sum() + (b * 0).sum()\nout.backward()\nx.grad",
    TWO_OUT + X + "a, b = Two.apply(x)\nout = (a * 0).sum()\nout.backward()\nx.grad",
    TWO_OUT + X + "a, b = Two.apply(x)\nb.register_hook(lambda g: print('b hook', g))\na.register_hook(lambda g: print('a hook', g.tolist()))\na.sum().backward()",
    custom("        return g * 2\n").replace("    @staticmethod\n    def backward", "    @staticmethod\n    @torch.autograd.function.once_differentiable\n    def backward")
    + X + "y = F.apply(x)\ng, = torch.autograd.grad(y.sum(), x, create_graph=True)\n(g.requires_grad, g.grad_fn.name() if g.grad_fn else None)",
    custom("        return g * 2\n").replace("    @staticmethod\n    def backward", "    @staticmethod\n    @torch.autograd.function.once_differentiable\n    def backward")
    + X + "y = F.apply(x)\ng, = torch.autograd.grad(y.sum(), x, create_graph=True)\ng.sum().backward()",
    custom("        print('grad enabled in backward', torch.is_grad_enabled())\n        return g * 2\n").replace(
        "    @staticmethod\n    def backward", "    @staticmethod\n    @torch.autograd.function.once_differentiable\n    def backward")
    + X + "y = F.apply(x)\ny.sum().backward(create_graph=True)",
    custom("        print('grad enabled in backward', torch.is_grad_enabled())\n        return g * 2\n")
    + X + "y = F.apply(x)\ny.sum().backward()\ny2 = F.apply(x)\ny2.sum().backward(create_graph=True)",
    "class G(torch.autograd.Function):\n    def forward(self, x):\n        return x * 2\n    def backward(self, g):\n        return g\n"
    + X + "G.apply(x)",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n" + X + "G.apply(x).sum().backward()",
    "class G(torch.autograd.Function):\n    pass\n" + X + "G.apply(x)",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, scale=2.0):\n        return x * scale\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g * 2, None\n" + X + "G.apply(x, scale=3.0)",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(x, k):\n        return x * k\n    @staticmethod\n"
    "    def setup_context(ctx, inputs, output):\n        ctx.k = inputs[1]\n    @staticmethod\n    def backward(ctx, g):\n        return g * ctx.k, None\n"
    + X + "y = G.apply(x, 3.0)\ny.sum().backward()\nx.grad",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g\n" + X + "y = G.apply(x)\n(y.grad_fn.needs_input_grad, y.grad_fn.next_functions)",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a, b):\n        return a + b\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g, g\n" + X + "y = G.apply(x, torch.ones(2))\ny.grad_fn.next_functions",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a, b):\n        return a + b\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g, g\n" + X + "y = G.apply(x, 5)\ny.grad_fn.next_functions",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a[0] + a[1]\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g\n" + X + "y = G.apply([x, x])\n(y.requires_grad, y.grad_fn)",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 2\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g * 2\n" + X + "y = G.apply(x)\ny.grad_fn.metadata['k'] = 1\ny.grad_fn.metadata",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 2\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g * 2\n" + X + "y = G.apply(x)\ny.grad_fn.register_hook(lambda gi, go: print('G post'))\ny.sum().backward()\nx.grad",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 2\n    @staticmethod\n"
    "    def backward(ctx, g):\n        return g * 2\n" + X + "y = G.apply(x)\ny.grad_fn.apply(torch.ones(2))",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 2\n    @staticmethod\n"
    "    def jvp(ctx, t):\n        return t * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n" + X + "G.apply(x)",
    "class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 2\n    @staticmethod\n"
    "    def vjp(ctx, g):\n        return g * 5\n" + X + "G.apply(x).sum().backward()\nx.grad",
])

table("function/gradcheck", [
    "torch.autograd.gradcheck(torch.sigmoid, (torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(torch.sigmoid, torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True))",
    "torch.autograd.gradcheck(lambda a, b: a * b, (torch.tensor([0.5], dtype=torch.float64, requires_grad=True), torch.tensor([2.], dtype=torch.float64)))",
    "torch.autograd.gradcheck(lambda a: (a, a * 2), (torch.tensor([0.5], dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: a.sum(), (torch.tensor([0.5, 1.], dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: a @ a.t(), (torch.ones(2, 3, dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: a.softmax(0), (torch.tensor([0.5, 1.], dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(torch.sigmoid, (torch.tensor([0.5, -1.], requires_grad=True),))",
    "torch.autograd.gradcheck(torch.sigmoid, (torch.tensor([0.5, -1.], requires_grad=True),), atol=1e-2, rtol=1e-2)",
    "torch.autograd.gradcheck(torch.sigmoid, (torch.tensor([0.5, -1.], dtype=torch.float64),))",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), eps=1e-3, atol=1e-4)",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), nondet_tol=0.0, raise_exception=True)",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), fast_mode=True)",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), check_undefined_grad=False)",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), foo=1)",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), check_grad_dtypes=True)",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), check_batched_grad=False)",
    "torch.autograd.gradcheck(lambda a: a.detach() * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: a.long(), (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: 5.0, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: a.abs(), (torch.tensor([0., 1.], dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: a.abs(), (torch.tensor([0., 1.], dtype=torch.float64, requires_grad=True),), raise_exception=False)",
    "torch.autograd.gradgradcheck(torch.sigmoid, (torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradgradcheck(lambda a: a ** 3, (torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradgradcheck(lambda a: a ** 3, (torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True),), grad_outputs=(torch.ones(2, dtype=torch.float64),))",
    "torch.autograd.gradgradcheck(lambda a: a * 2, (torch.tensor([0.5, -1.], dtype=torch.float64, requires_grad=True),), bogus=1)",
    "issubclass(torch.autograd.gradcheck.GradcheckError, RuntimeError) if hasattr(torch.autograd.gradcheck, 'GradcheckError') else None",
    "issubclass(torch.autograd.GradcheckError, RuntimeError)",
    custom("        return g * 3\n") + "torch.autograd.gradcheck(F.apply, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    custom("        return g * 3\n") + "torch.autograd.gradcheck(F.apply, (torch.ones(2, dtype=torch.float64, requires_grad=True),), raise_exception=False)",
    custom("        return g * 2\n") + "torch.autograd.gradcheck(F.apply, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    custom("        return g * 2\n") + "torch.autograd.gradgradcheck(F.apply, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    custom("        return (g * 3).detach()\n", "        return x ** 2\n").replace("return (g * 3)", "x, = ctx.saved_tensors\n        return (g * 2 * x)")
    .replace("return x ** 2", "ctx.save_for_backward(x)\n        return x ** 2")
    + "torch.autograd.gradgradcheck(F.apply, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
])

table("misuse/autograd", [
    "torch.ones(2).backward()", "torch.ones(2, requires_grad=True).backward()", "(torch.ones(2, requires_grad=True) * 2).backward()",
    "(torch.ones(2, requires_grad=True) * 2).backward(torch.ones(3))", "(torch.ones(2, requires_grad=True) * 2).backward([1., 1.])",
    "(torch.ones(2, requires_grad=True) * 2).backward(torch.ones(2, dtype=torch.int64))", "(torch.ones(2, requires_grad=True) * 2).sum().backward(torch.ones(2))",
    "(torch.ones(2, requires_grad=True) * 2).sum().backward(retain_graph='x')", "(torch.ones(2, requires_grad=True) * 2).sum().backward(inputs=[])",
    "(torch.ones(2, requires_grad=True) * 2).sum().backward(inputs=[torch.ones(2)])", "(torch.ones(2, requires_grad=True) * 2).sum().backward(inputs=torch.ones(2))",
    "x = torch.ones(2, requires_grad=True)\ny = x.exp().sum()\ny.backward()\ny.backward()", "x = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()",
    "x = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.grad_fn._saved_self", "x = torch.ones(2, requires_grad=True)\ny = x.exp()\ny.sum().backward()\ny.grad_fn._saved_result",
    "x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\ny.backward()\nx.grad",
    "x = torch.ones(2, requires_grad=True)\ny = x * 1\nz = y * y\ny.add_(1)\nz.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\nz = x.exp()\nz.add_(1)\nz.sum().backward()", "x = torch.ones(2, requires_grad=True)\nx.add_(1)",
    "x = torch.ones(2, requires_grad=True)\nx.zero_()", "x = torch.ones(2, requires_grad=True)\nx.fill_(2)", "x = torch.ones(2, requires_grad=True)\nx.copy_(torch.zeros(2))",
    "x = torch.ones(2, requires_grad=True)\nx += 1", "x = torch.ones(2, requires_grad=True)\nx[0] = 5", "x = torch.ones(2, requires_grad=True)\nx.view(2).mul_(2)",
    "x = torch.ones(2, requires_grad=True)\nx.detach().mul_(2)\nx", "x = torch.ones(2, requires_grad=True)\ny = x * 1\ny.view(2).mul_(2)\ny.grad_fn.name()",
    "x = torch.ones(2, requires_grad=True)\ny = (x * 1)[0]\ny.detach_()", "x = torch.ones(2, requires_grad=True)\nx.exp().view(2).detach_()",
    "x = torch.ones(2, requires_grad=True)\nx.detach_()\n(x.requires_grad, x.is_leaf)",
    "torch.autograd.grad(torch.ones(2).sum(), torch.ones(2))", "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), torch.ones(2))",
    "x = torch.ones(2, requires_grad=True)\nz = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), [x, z])",
    "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad(x * 2, x)", "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), x, torch.ones(2))",
    "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), [])", "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad([], x)",
    "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), 'x')", "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad(5, x)",
    "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), x, foo=1)", "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad([(x * 2).sum()], x, [torch.ones(()), torch.ones(())])",
    "x = torch.ones(2, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)",
    "x = torch.ones(2, requires_grad=True)\ng, = torch.autograd.grad((x * 2).sum(), x)\ntorch.autograd.grad(g.sum(), x)",
    "torch.autograd.backward(torch.ones(2))", "torch.autograd.backward([])", "x = torch.ones(2, requires_grad=True)\ntorch.autograd.backward([x * 2], [torch.ones(2), torch.ones(2)])",
    "x = torch.ones(2, requires_grad=True)\ntorch.autograd.backward(x.sum(), grad_tensors=[1.0])",
    "with torch.no_grad():\n    y = torch.ones(2, requires_grad=True) * 2\ny.sum().backward()",
    "with torch.no_grad(1):\n    pass", "torch.set_grad_enabled()", "torch.set_grad_enabled('yes')", "torch.set_grad_enabled(1)\nout = torch.is_grad_enabled()\nout",
    "with torch.inference_mode('x'):\n    pass", "torch.enable_grad(True)",
    "x = torch.ones(2, requires_grad=True)\nwith torch.inference_mode():\n    y = torch.ones(2)\n(x * y).sum().backward()\nx.grad",
    "x = torch.ones(2, requires_grad=True)\nwith torch.inference_mode():\n    y = torch.ones(2)\n(x * y)",
    "with torch.inference_mode():\n    y = torch.ones(2)\ny.requires_grad = True",
    "with torch.inference_mode():\n    y = torch.ones(2)\ny._version", "with torch.inference_mode():\n    y = torch.ones(2)\ny.add_(1)",
    "with torch.inference_mode():\n    y = torch.ones(2)\ny.zero_()", "with torch.inference_mode():\n    y = torch.ones(2)\ny.fill_(1)",
    "with torch.inference_mode():\n    y = torch.ones(2)\ny.copy_(torch.ones(2))", "with torch.inference_mode():\n    y = torch.ones(2)\ny += 1",
    "x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: g * torch.ones(3))\nx.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: 5)\nx.sum().backward()", "x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: g.long())\nx.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\nx.register_hook('hook')", "x = torch.ones(2, requires_grad=True)\nx.register_hook(None)",
    "x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g, h: g)\nx.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: 1 / 0)\nx.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.register_hook(lambda gi, go: 5)\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.register_prehook(lambda go: (go[0], go[0]))\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.register_prehook(lambda go: 5)\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.register_hook(lambda gi, go: (torch.ones(3),))\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (torch.ones(2),))\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.name = 'x'", "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.next_functions = ()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn._saved_foo", "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn._saved_self",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn(torch.ones(2))", "x = torch.ones(2, requires_grad=True)\ny = x * x\ny.grad_fn.saved_tensors",
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t):\n    pass", "with torch.autograd.graph.saved_tensors_hooks(1, 2):\n    y = torch.ones(2, requires_grad=True) * torch.ones(2)",
    "x = torch.ones(2, requires_grad=True)\nwith torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: None):\n    y = x * x\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\nwith torch.autograd.graph.saved_tensors_hooks(lambda t: 1 / 0, lambda p: p):\n    y = x * x",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64),))",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64, requires_grad=True),), unknown=True)",
    "torch.autograd.gradcheck(lambda a: a * 2, ())", "torch.autograd.gradcheck(lambda a: a * 2, (2.0,))",
    "torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.int64),))",
    "torch.autograd.gradcheck(lambda a: a.sum() * 0 + 1 / 0, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradcheck(lambda a: a * 2)", "torch.autograd.gradcheck(5, (torch.ones(2, dtype=torch.float64, requires_grad=True),))",
    "torch.autograd.gradgradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64),))",
    "torch.autograd.Function.apply(torch.ones(2))", "torch.autograd.Function()",
    custom("        return g\n") + "F.apply(torch.ones(2, requires_grad=True), 5)",
    custom("        return g\n") + "F.apply()", custom("        return g\n") + "F.apply(x=torch.ones(2))",
    custom("        return g, g\n") + "F.apply(torch.ones(2, requires_grad=True)).sum().backward()",
    custom("        return torch.ones(3)\n") + "F.apply(torch.ones(2, requires_grad=True)).sum().backward()",
    custom("        return 'g'\n") + "F.apply(torch.ones(2, requires_grad=True)).sum().backward()",
    custom("        return g\n", "        ctx.save_for_backward(3)\n        return x * 2\n") + "F.apply(torch.ones(2, requires_grad=True))",
    custom("        return g\n", "        ctx.save_for_backward([x])\n        return x * 2\n") + "F.apply(torch.ones(2, requires_grad=True))",
    custom("        return g\n", "        ctx.save_for_backward(x)\n        return x * 2\n") + "y = F.apply(torch.ones(2, requires_grad=True))\ny.sum().backward()\ny.grad_fn.saved_tensors",
    custom("        return g\n", "        x.mul_(2)\n        return x\n") + "F.apply(torch.ones(2, requires_grad=True))",
    custom("        return g\n", "        ctx.mark_dirty(x)\n        x.mul_(2)\n        return x\n") + "F.apply(torch.ones(2, requires_grad=True))",
    custom("        return g\n", "        ctx.mark_dirty(x)\n        return x * 2\n") + "F.apply(torch.ones(2, requires_grad=True) * 1)",
    custom("        return g\n", "        return x.view(2)\n").replace("return x.view(2)", "v = x.view(2)\n        v.mul_(2)\n        ctx.mark_dirty(v)\n        return v")
    + "F.apply(torch.ones(2, requires_grad=True) * 1)",
    custom("        return g\n", "        ctx.mark_non_differentiable(3)\n        return x * 2\n") + "F.apply(torch.ones(2, requires_grad=True))",
    custom("        return g\n", "        ctx.set_materialize_grads('x')\n        return x * 2\n") + "F.apply(torch.ones(2, requires_grad=True)).sum().backward()",
    custom("        return g\n", "        return None\n") + "F.apply(torch.ones(2, requires_grad=True))",
    custom("        raise ValueError('boom')\n") + "F.apply(torch.ones(2, requires_grad=True)).sum().backward()",
    custom("        return g\n", "        raise KeyError('fwd')\n") + "F.apply(torch.ones(2, requires_grad=True))",
    custom("        return g * 2\n").replace("    @staticmethod\n    def backward", "    @staticmethod\n    @torch.autograd.function.once_differentiable\n    def backward")
    + "x = torch.ones(2, requires_grad=True)\ng, = torch.autograd.grad(F.apply(x).sum(), x, create_graph=True)\ng.sum().backward()",
])
