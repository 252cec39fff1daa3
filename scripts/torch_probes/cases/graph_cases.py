"""Graph shapes and node names (``grad_fn`` and ``next_functions``), and the engine's order
of work as seen through hooks."""

from ..case import add, table

# Describe the recorded graph below a tensor: (name, ((child, input_nr), ...)).  The leaf
# node's C++ namespace is dropped so that this one difference (probed on its own in
# graph/nodes) does not hide the others.
WALK = (
    "def walk(node, depth=6):\n"
    "    if node is None:\n"
    "        return 'None'\n"
    "    name = node.name().replace('torch::autograd::', '')\n"
    "    if depth == 0 or not node.next_functions:\n"
    "        return name\n"
    "    inner = ', '.join(f'{walk(n, depth - 1)}:{nr}' for n, nr in node.next_functions)\n"
    "    return f'{name}({inner})'\n")

LEAVES = ("x = torch.tensor([1., 2.], requires_grad=True)\n"
          "y = torch.tensor([3., 4.], requires_grad=True)\n"
          "m = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\n"
          "c = torch.tensor([5., 6.])\n")

EXPRESSIONS = [
    "x + 2", "2 + x", "x + c", "x - 2", "2 - x", "x - y", "x * 2", "2 * x", "x * c", "x * y", "x / 2", "2 / x",
    "x / y", "x / c", "c / x", "x ** 2", "x ** 0.5", "2 ** x", "x ** y", "x ** torch.tensor(2.)", "x ** x", "torch.pow(2, x)",
    "-x", "x.neg()", "x + True", "x.add(y, alpha=2)", "x.sub(y, alpha=2)", "x + 1.5 * y", "torch.add(x, y)",
    "x.exp()", "x.log()", "x.sqrt()", "x.abs()", "x.relu()", "x.sigmoid()", "x.tanh()", "x.sign()",
    "x.clamp(min=0)", "x.clamp(max=1)", "x.clamp(0, 1)", "x.clamp(min=torch.tensor(0.))", "x.masked_fill(c > 5, 0.)",
    "torch.where(c > 5, x, y)", "torch.where(c > 5, x, 0.)", "torch.maximum(x, y)", "torch.max(x, y)",
    "x.sum()", "x.sum(0)", "x.sum(dim=0, keepdim=True)", "m.sum((0, 1))", "x.sum(dtype=torch.float64)", "x.mean()", "m.mean(0)",
    "x.max()", "m.max(0)[0]", "m.max(dim=1, keepdim=True).values", "x.min()", "m.min(1)[0]",
    "x.softmax(0)", "x.log_softmax(0)", "F.softmax(m, dim=1)", "F.log_softmax(m, 1)",
    "m.reshape(4)", "m.view(4)", "m.view(-1)", "x.reshape(2)", "x.view(2)", "m.flatten()", "x.flatten()",
    "m.t()", "m.T", "x.t()", "x.T", "m.transpose(0, 1)", "m.permute(1, 0)", "m.mT",
    "x.unsqueeze(0)", "m.unsqueeze(1).squeeze()", "x.unsqueeze(0).squeeze(0)", "x[None]", "x.expand(3, 2)", "x.expand(2)",
    "x.expand_as(m)", "m.narrow(0, 0, 1)", "m.select(1, 0)", "m[0]", "m[:, 0]", "m[0, 1]", "x[0:1]", "x[[0, 1]]",
    "x[torch.tensor([1, 0])]", "x[c > 5]", "m[..., 0]", "x[::1]", "m[torch.tensor([[True, False], [False, True]])]",
    "x.clone()", "x.float()", "x.double()", "x.to(torch.float64)", "x.contiguous()", "x.view_as(y)",
    "torch.cat([x, y])", "torch.cat([x, c])", "torch.cat([x])", "torch.stack([x, y])", "torch.stack([x])",
    "x @ y", "m @ x", "x @ m", "m @ m", "m.mm(m)", "torch.matmul(m, x)", "m[None] @ m[None]", "m[None] @ x",
    "m @ m[None]", "torch.ones(3, 2) @ m",
    "x.sum_to_size(1)", "m.sum_to_size(1, 2)", "x.unbind(0)[1]", "x.split(1)[1]", "x.chunk(2)[0]",
    "F.relu(x)", "F.linear(m, m)", "F.linear(m, m, x)", "F.linear(x, m, x)", "F.linear(m[None], m, x)",
    "F.linear(x, m)", "F.mse_loss(x, c)", "F.mse_loss(x, y)", "F.mse_loss(x, c, reduction='sum')",
    "F.mse_loss(x, c, reduction='none')", "F.cross_entropy(m, torch.tensor([0, 1]))",
    "F.cross_entropy(x, torch.tensor(1))", "F.cross_entropy(m, torch.tensor([0, 1]), reduction='sum')",
    "F.cross_entropy(m, torch.tensor([[0.5, 0.5], [0., 1.]]))", "F.nll_loss(m, torch.tensor([0, 1]))",
    "F.dropout(m, 0.0)", "F.dropout(m, 0.5, training=False)", "F.dropout(m, 1.0)", "torch.sigmoid(x)", "torch.tanh(x)",
]
for expr in EXPRESSIONS:
    add("graph/names", WALK + LEAVES + f"out = {expr}\nwalk(out.grad_fn)", id=f"graph:{expr}", grad=False)

MODULES = [
    "nn.Linear(2, 3)(m)", "nn.Linear(2, 3)(x)", "nn.Linear(2, 3, bias=False)(m)", "nn.Linear(2, 3, bias=False)(x)",
    "nn.Linear(2, 3)(m[None].expand(4, 2, 2))", "nn.Linear(2, 3)(torch.ones(4, 2, 2, requires_grad=True))", "nn.Linear(2, 3)(torch.ones(2, 2))", "nn.Linear(2, 3)(torch.ones(0, 2))",
    "nn.MSELoss()(nn.Linear(2, 1)(torch.ones(3, 2)), torch.zeros(3, 1))", "nn.MSELoss(reduction='sum')(x, c)",
    "nn.CrossEntropyLoss()(m, torch.tensor([0, 1]))", "nn.CrossEntropyLoss(reduction='none')(m, torch.tensor([0, 1]))",
    "nn.BatchNorm1d(2)(m)", "nn.BatchNorm1d(2).eval()(m)", "nn.BatchNorm1d(2, affine=False)(m)",
    "nn.BatchNorm1d(2, track_running_stats=False)(m)", "nn.BatchNorm1d(2)(m[None].expand(3, 2, 2).permute(1, 2, 0))",
    "nn.ReLU()(x)", "nn.Sigmoid()(x)", "nn.Tanh()(x)", "nn.Dropout(0.0)(m)", "nn.Dropout(0.5).eval()(m)", "nn.Softmax(dim=1)(m)",
    "nn.LogSoftmax(dim=1)(m)", "nn.Identity()(m)", "nn.Sequential(nn.Linear(2, 2), nn.ReLU())(m)",
    "nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))(torch.ones(3, 2))",
]
for expr in MODULES:
    add("graph/modules", WALK + LEAVES + "torch.manual_seed(0)\n" + f"out = {expr}\nwalk(out.grad_fn)",
        id=f"graph:{expr}", grad=False)

table("graph/nodes", [
    LEAVES + "(x + 2).grad_fn.next_functions",
    LEAVES + "(x + c).grad_fn.next_functions",
    LEAVES + "(c + x).grad_fn.next_functions",
    LEAVES + "acc = (x * 2).grad_fn.next_functions[0][0]\n(acc.name(), type(acc).__name__, acc.next_functions, acc.variable is x)",
    LEAVES + "a1 = (x * 2).grad_fn.next_functions[0][0]\na2 = (x * 3).grad_fn.next_functions[0][0]\na1 is a2",
    LEAVES + "a1 = (x * 2).grad_fn.next_functions[0][0]\ndel a1\nimport gc\ngc.collect()\n(x * 3).grad_fn.next_functions[0][0].name()",
    LEAVES + "y2 = x * 2\nz = y2 * 3\nz.grad_fn.next_functions[0][0] is y2.grad_fn",
    LEAVES + "v, i = m.max(0)\n(v.grad_fn.name(), i.grad_fn, i.requires_grad, i.dtype)",
    LEAVES + "a, b = x.unbind(0)\n((a + b).grad_fn.next_functions[0][0] is (a + b).grad_fn.next_functions[1][0], [nr for _, nr in (a + b).grad_fn.next_functions])",
    LEAVES + "a, b = x.split(1)\n[nr for _, nr in (b * a).grad_fn.next_functions]",
    LEAVES + "y2 = x * 2\n(y2.grad_fn.__class__.__name__, y2.grad_fn.__class__.__module__ if False else None)",
    LEAVES + "y2 = x * 2\nisinstance(y2.grad_fn, torch.autograd.graph.Node)",
    LEAVES + "y2 = x * 2\ny2.grad_fn.metadata",
    LEAVES + "y2 = x * 2\ny2.grad_fn._sequence_nr() < (y2 * 2).grad_fn._sequence_nr()",
    LEAVES + "y2 = x * 2\ny2.grad_fn == y2.grad_fn",
    LEAVES + "y2 = x * 2\nhash(y2.grad_fn) == hash(y2.grad_fn)",
    LEAVES + "y2 = x * 2\nlen({y2.grad_fn, y2.grad_fn})",
    LEAVES + "y2 = x * 2\n(x * 2).grad_fn is y2.grad_fn",
    LEAVES + "y2 = x * 2\ny2.grad_fn.next_functions[0][0].name()",
    LEAVES + "y2 = (x * c)\n(y2.grad_fn.next_functions, y2.grad_fn.next_functions[1])",
    LEAVES + "x.grad_fn",
    LEAVES + "y2 = x * 2\ny2.add_(1)\n(y2.grad_fn.name(), y2.grad_fn.next_functions[0][0].name())",
    LEAVES + "y2 = x * 2\ny2[0] = 5\nWALK = None\n(y2.grad_fn.name(), y2.grad_fn.next_functions[0][0].name())",
    LEAVES + "y2 = x * 2\ny2.zero_()\ny2.grad_fn.name()",
    LEAVES + "y2 = x * 2\ny2.fill_(3)\ny2.grad_fn.name()",
    LEAVES + "y2 = x * 2\ny2.copy_(y)\n(y2.grad_fn.name(), [n.name() if n else None for n, _ in y2.grad_fn.next_functions])",
    LEAVES + "z = torch.zeros(2)\nz.copy_(x)\n(z.grad_fn.name(), [n.name() if n else None for n, _ in z.grad_fn.next_functions])",
    LEAVES + "z = torch.zeros(2)\nz[0] = x[1]\n(z.grad_fn.name(), [n.name() if n else None for n, _ in z.grad_fn.next_functions])",
    LEAVES + "z = torch.zeros(2)\nz += x\n(z.grad_fn.name(), z.is_leaf)",
    LEAVES + "y2 = x * 2\ny2.mul_(y)\n(y2.grad_fn.name(), [n.name() for n, _ in y2.grad_fn.next_functions])",
    LEAVES + "y2 = x * 2\ny2.div_(2)\ny2.grad_fn.name()",
    LEAVES + "y2 = x * 2\ny2.sub_(1)\ny2.grad_fn.name()",
    LEAVES + "y2 = x * 2\nv = y2.view(2)\n(v._base is y2, v.grad_fn.name(), y2._version)",
    LEAVES + "with torch.no_grad():\n    y2 = x * 2\n(y2.grad_fn, y2.requires_grad, y2.is_leaf)",
    LEAVES + "y2 = x.detach()\n(y2.grad_fn, y2.is_leaf, y2._base is None)",
    LEAVES + "torch.autograd.graph.Node",
    LEAVES + "y2 = x * 2\nrepr(y2.grad_fn).split(' object')[0]",
    LEAVES + "y2 = x * 2\nstr(y2.grad_fn).startswith('<MulBackward0 object at 0x')",
    LEAVES + "p = nn.Parameter(torch.ones(2))\n(p * 2).grad_fn.next_functions[0][0].variable is p",
])

# Engine order: which node runs first, which hooks fire when.
NAMES = (
    "def trace(node, seen=None):\n"
    "    seen = set() if seen is None else seen\n"
    "    if node is None or node in seen:\n"
    "        return\n"
    "    seen.add(node)\n"
    "    name = node.name().replace('torch::autograd::', '')\n"
    "    node.register_prehook(lambda go, n=name: print('run', n))\n"
    "    for child, _ in node.next_functions:\n"
    "        trace(child, seen)\n")
HOOKS = ("x.register_hook(lambda g: print('hook x', [round(v, 3) for v in g.tolist()]))\n"
         "y.register_hook(lambda g: print('hook y', [round(v, 3) for v in g.tolist()]))\n")
GRAPHS = [
    "out = (x * y).sum()", "out = (y * x).sum()", "out = (x + y).sum()", "out = ((x * 2) * y).sum()",
    "out = (y * (x * 2)).sum()", "out = ((x * 2) + (y * 3)).sum()", "out = ((y * 3) + (x * 2)).sum()",
    "a = x * 2\nb = y * 3\nout = (b * a).sum()", "a = x.exp()\nb = a * 2\nc = a * 3\nout = (c + b).sum()",
    "a = x.exp()\nb = a * 2\nc = a * 3\nout = (b + c).sum()", "a = x * 2\nout = (a.exp() + a.sigmoid() + y).sum()",
    "out = (x * x).sum()", "out = (x * y).sum() + (y * x).sum()", "out = torch.cat([x, y]).sum()",
    "out = torch.stack([y, x]).sum()", "a = x * 2\nb = a * y\nc = b * x\nout = c.sum()",
    "out = (x.sum() * y).sum() + x.sum()", "out = x.sum() + y.sum()", "out = y.sum() + x.sum()",
    "a = x + y\nb = y + x\nout = (a * b).sum()", "out = ((x @ y) * x).sum()",
]
for g in GRAPHS:
    add("engine/order", NAMES + LEAVES + HOOKS + g + "\ntrace(out.grad_fn)\nout.backward()",
        id=f"engine:{g.replace(chr(10), '; ')}", grad=False)

table("engine/semantics", [
    LEAVES + "x.register_hook(lambda g: print('x got', g.tolist()))\n(x * 2 + x * 3).sum().backward()",
    LEAVES + "calls = []\na = x * 2\na.register_hook(lambda g: calls.append(g.tolist()))\n(a * 2 + a * 3).sum().backward()\ncalls",
    LEAVES + "a = x * 2\nb = a.detach()\nb.requires_grad_()\n(a * b).sum().backward()\n(x.grad, b.grad)",
    LEAVES + "y2 = x * 2\ny2.backward(torch.ones(2), retain_graph=True)\ny2.backward(torch.ones(2))\nx.grad",
    LEAVES + "a = x.exp()\nb = a * 2\nb.sum().backward(retain_graph=True)\n(a * 3).sum().backward()\nx.grad",
    LEAVES + "a = x.exp()\nb = a.sigmoid()\nb.sum().backward()\na.sum().backward()\nx.grad",
    LEAVES + "a = x * 2\nz = torch.zeros(())\n(a.sum() * 0).backward()\nx.grad",
    LEAVES + "a = x * 2\nr = torch.autograd.grad(a.sum(), [a, x])\nr",
    LEAVES + "a = x * 2\nb = a * 3\nr = torch.autograd.grad(b.sum(), a, retain_graph=True)\n(r, x.grad)",
    LEAVES + "a = x * 2\nb = a * 3\na.register_hook(lambda g: print('a hook'))\ntorch.autograd.grad(b.sum(), a)",
    LEAVES + "a = x * 2\nb = a * 3\nx.register_hook(lambda g: print('x hook'))\ntorch.autograd.grad(b.sum(), a)",
    LEAVES + "a = x * 2\nb = a.exp()\ntorch.autograd.grad(b.sum(), a)\nb.sum().backward()",
    LEAVES + "a = x * 2\nb = a.exp()\ntorch.autograd.grad(b.sum(), a)\na.sum().backward()\nx.grad",
    LEAVES + "a = x.exp()\nb = a.exp()\ntorch.autograd.grad(b.sum(), x, retain_graph=False)\ntorch.autograd.grad(a.sum(), x)",
    LEAVES + "out = (x * y).sum()\nout.backward(inputs=[y])\n(x.grad, y.grad)",
    LEAVES + "a = x * y\nout = a.sum()\nx.register_hook(lambda g: print('x hook'))\ny.register_hook(lambda g: print('y hook'))\nout.backward(inputs=[y])",
    LEAVES + "a = x * 2\na.retain_grad()\nout = (a * 3).sum()\nout.backward(inputs=[x])\na.grad",
    LEAVES + "z = x * 1\nz.retain_grad()\nz.register_hook(lambda g: g * 100)\nz.sum().backward()\n(z.grad, x.grad)",
    LEAVES + "b = (x * 2).sum()\nb.backward()\nx.grad.requires_grad",
    LEAVES + "g0 = torch.ones(2)\nx.grad = g0\n(x * 2).sum().backward(create_graph=True)\n(x.grad is g0, x.grad.requires_grad, g0)",
    LEAVES + "(x * y).sum().backward(create_graph=True)\n(x.grad.grad_fn.name() if x.grad.grad_fn else None, x.grad.requires_grad)",
    LEAVES + "(x * 2).sum().backward(create_graph=True)\n(x.grad.grad_fn, x.grad.requires_grad)",
    LEAVES + "(x ** 2).sum().backward(create_graph=True)\ng = x.grad\n(x * 1).sum().backward(create_graph=True)\n(x.grad is g, x.grad.grad_fn.name())",
    LEAVES + "a = x * 2\nb = torch.zeros(2)\nb.add_(a)\nb.sum().backward()\nx.grad",
    LEAVES + "import weakref\na = x * 2\nr = weakref.ref(a.grad_fn)\ndel a\nr() is None",
    LEAVES + "import weakref\na = (x * 2).exp()\nr = weakref.ref(a.grad_fn.next_functions[0][0])\ndel a\nr() is None",
    LEAVES + "import gc\ngc.disable()\ntry:\n    import weakref\n    a = (x * 2).exp()\n    r = weakref.ref(a.grad_fn)\n    del a\n    out = r() is None\nfinally:\n    gc.enable()\nout",
    LEAVES + "a = x * 2\nb = a.sum()\nb.backward()\nx.grad_fn, a.grad_fn.name()",
])
