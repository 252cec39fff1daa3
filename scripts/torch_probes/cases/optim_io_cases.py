"""optim (SGD, Adam: constructor arguments, step, zero_grad, param_groups, state dicts)
and save/load; and their misuse."""

from ..case import table

P = ("w = torch.tensor([1., -2.], requires_grad=True)\n"
     "b = torch.tensor([0.5], requires_grad=True)\n"
     "def loss_fn():\n"
     "    return ((w * torch.tensor([1., 3.])).sum() + b.sum() * 2) ** 2\n")
STEPS = ("for _ in range(3):\n"
         "    opt.zero_grad()\n"
         "    loss_fn().backward()\n"
         "    opt.step()\n")


def run(ctor):
    return P + f"opt = {ctor}\n" + STEPS + "(w, b)"


table("optim/step", [run(c) for c in [
    "torch.optim.SGD([w, b], lr=0.1)", "torch.optim.SGD([w, b], lr=0.1, momentum=0.9)",
    "torch.optim.SGD([w, b], lr=0.1, momentum=0.9, dampening=0.5)", "torch.optim.SGD([w, b], lr=0.1, momentum=0.9, nesterov=True)",
    "torch.optim.SGD([w, b], lr=0.1, weight_decay=0.1)", "torch.optim.SGD([w, b], lr=0.1, momentum=0.5, weight_decay=0.1)",
    "torch.optim.SGD([w, b], lr=0.1, maximize=True)", "torch.optim.SGD([w, b])", "torch.optim.SGD([w, b], 0.05)",
    "torch.optim.SGD([{'params': [w]}, {'params': [b], 'lr': 0.5}], lr=0.1)",
    "torch.optim.SGD([{'params': [w], 'momentum': 0.9}, {'params': b}], lr=0.1)",
    "torch.optim.SGD((p for p in [w, b]), lr=0.1)", "torch.optim.SGD({'a': w, 'b': b}.values(), lr=0.1)",
    "torch.optim.SGD([w, b], lr=torch.tensor(0.1))",
    "torch.optim.Adam([w, b])", "torch.optim.Adam([w, b], lr=0.1)", "torch.optim.Adam([w, b], lr=0.1, betas=(0.5, 0.9))",
    "torch.optim.Adam([w, b], lr=0.1, eps=1e-3)", "torch.optim.Adam([w, b], lr=0.1, weight_decay=0.1)",
    "torch.optim.Adam([w, b], lr=0.1, amsgrad=True)", "torch.optim.Adam([w, b], lr=0.1, maximize=True)",
    "torch.optim.Adam([{'params': [w]}, {'params': [b], 'lr': 0.01}], lr=0.1)", "torch.optim.Adam([w, b], 0.1, (0.8, 0.99))",
    "torch.optim.Adam([w, b], lr=0.1, decoupled_weight_decay=True, weight_decay=0.1)",
]])

table("optim/api", [
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.param_groups[0]['lr']",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nsorted(opt.param_groups[0].keys())",
    P + "opt = torch.optim.Adam([w, b], lr=0.1)\nsorted(opt.param_groups[0].keys())",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nsorted(opt.defaults.keys())", P + "opt = torch.optim.Adam([w, b])\nsorted(opt.defaults.items())",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.param_groups[0]['params'][0] is w", P + "opt = torch.optim.SGD([w, b], lr=0.1)\ntype(opt.param_groups[0]['params']).__name__",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\ntype(opt.state).__name__", P + "opt = torch.optim.SGD([w, b], lr=0.1)\nlen(opt.state)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)\nloss_fn().backward()\nopt.step()\nsorted(opt.state[w].keys())",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nloss_fn().backward()\nopt.step()\ndict(opt.state[w])",
    P + "opt = torch.optim.Adam([w, b], lr=0.1)\nloss_fn().backward()\nopt.step()\nsorted(opt.state[w].keys())",
    P + "opt = torch.optim.Adam([w, b], lr=0.1)\nloss_fn().backward()\nopt.step()\nopt.state[w]['step']",
    P + "opt = torch.optim.Adam([w, b], lr=0.1, amsgrad=True)\nloss_fn().backward()\nopt.step()\nsorted(opt.state[w].keys())",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nloss_fn().backward()\nopt.zero_grad()\n(w.grad, b.grad)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nloss_fn().backward()\nopt.zero_grad(set_to_none=False)\n(w.grad, b.grad)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nloss_fn().backward()\ng = w.grad\nopt.zero_grad(False)\nw.grad is g",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.step()\n(w, b)", P + "opt = torch.optim.SGD([w, b], lr=0.1)\nw.grad = torch.ones(2)\nopt.step()\n(w, b)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\ndef closure():\n    opt.zero_grad()\n    l = loss_fn()\n    l.backward()\n    return l\nr = opt.step(closure)\n(r, w)",
    P + "opt = torch.optim.Adam([w, b], lr=0.1)\ndef closure():\n    opt.zero_grad()\n    l = loss_fn()\n    l.backward()\n    return l\nr = opt.step(closure)\n(r, w)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.step() is None", P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group({'params': b, 'lr': 0.3})\n[g['lr'] for g in opt.param_groups]",
    P + "opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)\nopt.add_param_group({'params': [b]})\nopt.param_groups[1]['momentum']",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nfor g in opt.param_groups:\n    g['lr'] = 1.0\nloss_fn().backward()\nopt.step()\nw",
    P + "opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)\n" + STEPS + "sd = opt.state_dict()\n(sorted(sd), sd['param_groups'], sorted(sd['state']), sorted(sd['state'][0]))",
    P + "opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)\n" + STEPS + "sd = opt.state_dict()\nsd['state'][0]['momentum_buffer'] is opt.state[w]['momentum_buffer']",
    P + "opt = torch.optim.Adam([w, b], lr=0.1)\n" + STEPS + "sd = opt.state_dict()\n(sd['param_groups'], sd['state'][1])",
    P + "opt = torch.optim.Adam([w, b], lr=0.1)\n" + STEPS + "sd = opt.state_dict()\nw2 = w.detach().clone().requires_grad_()\nb2 = b.detach().clone().requires_grad_()\n"
    "opt2 = torch.optim.Adam([w2, b2], lr=0.5)\nopt2.load_state_dict(sd)\n(opt2.param_groups[0]['lr'], opt2.state[w2]['exp_avg'], opt2.state[w2]['step'])",
    P + "opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)\n" + STEPS + "sd = opt.state_dict()\nopt2 = torch.optim.SGD([w, b], lr=0.3, momentum=0.9)\nopt2.load_state_dict(sd)\nopt2.state[w]['momentum_buffer'] is opt.state[w]['momentum_buffer']",
    P + "opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)\n" + STEPS + "sd = opt.state_dict()\nopt2 = torch.optim.SGD([w, b], lr=0.3, momentum=0.9)\nopt2.load_state_dict(sd)\n" + STEPS.replace("opt.", "opt2.") + "(w, b)",
    P + "opt = torch.optim.Adam([w, b], lr=0.1)\n" + STEPS + "sd = opt.state_dict()\nopt2 = torch.optim.Adam([w, b], lr=0.1)\nopt2.load_state_dict(sd)\n" + STEPS.replace("opt.", "opt2.") + "(w, b)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nsd = opt.state_dict()\nsd['param_groups'][0]['lr'] = 9.0\nopt.param_groups[0]['lr']",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.load_state_dict({'state': {}, 'param_groups': [{'lr': 0.7, 'params': [0, 1], 'momentum': 0, 'dampening': 0, 'weight_decay': 0, 'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': None}]})\nopt.param_groups[0]['lr']",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nisinstance(opt, torch.optim.Optimizer)",
    P + "w.requires_grad_(False)\nopt = torch.optim.SGD([w, b], lr=0.1)\nb.grad = torch.ones(1)\nopt.step()\n(w, b)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nloss_fn().backward()\nwith torch.no_grad():\n    opt.step()\n(w._version, w.is_leaf, w.requires_grad)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nloss_fn().backward()\nopt.step()\n(w._version, w.grad_fn)",
    P + "m = nn.Linear(2, 1)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\nlen(opt.param_groups[0]['params'])",
    P + "m = nn.Linear(2, 1)\nopt = torch.optim.SGD(m.named_parameters(), lr=0.1)\nopt.param_groups[0].get('param_names')",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.step(lambda: 5)", P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.state_dict()",
    P + "wd = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)\nopt = torch.optim.Adam([wd], lr=0.1)\n(wd * wd).sum().backward()\nopt.step()\n(wd, opt.state[wd]['exp_avg'].dtype)",
])

table("misuse/optim", [
    P + "torch.optim.SGD([w, b], lr=-0.1)", P + "torch.optim.SGD([w, b], lr=0.1, momentum=-1)", P + "torch.optim.SGD([w, b], lr=0.1, weight_decay=-1)",
    P + "torch.optim.SGD([w, b], lr=0.1, nesterov=True)", P + "torch.optim.SGD([w, b], lr=0.1, momentum=0.9, dampening=0.5, nesterov=True)",
    P + "torch.optim.SGD([], lr=0.1)", P + "torch.optim.SGD(w, lr=0.1)", P + "torch.optim.SGD([w, w], lr=0.1)",
    P + "torch.optim.SGD([{'params': [w]}, {'params': [w]}], lr=0.1)", P + "torch.optim.SGD([w * 2], lr=0.1)", P + "torch.optim.SGD([1.0], lr=0.1)",
    P + "torch.optim.SGD([w], lr='a')", P + "torch.optim.SGD([w], lr=0.1, bogus=1)", P + "torch.optim.SGD({w, b}, lr=0.1)", P + "torch.optim.SGD(5, lr=0.1)",
    P + "torch.optim.SGD([{'lr': 0.1}], lr=0.1)", P + "torch.optim.SGD([{'params': [w], 'bogus': 1}], lr=0.1).param_groups[0]['bogus']",
    P + "torch.optim.SGD([w, {'params': [b]}], lr=0.1)", P + "torch.optim.SGD([torch.ones(2)], lr=0.1)", P + "torch.optim.SGD([torch.ones(2, dtype=torch.int64)], lr=0.1)",
    P + "torch.optim.Adam([w], lr=-1)", P + "torch.optim.Adam([w], betas=(1.5, 0.9))", P + "torch.optim.Adam([w], betas=(0.9, 1.0))",
    P + "torch.optim.Adam([w], betas=(-0.1, 0.9))", P + "torch.optim.Adam([w], eps=-1)", P + "torch.optim.Adam([w], weight_decay=-0.1)",
    P + "torch.optim.Adam([w], betas=0.9)", P + "torch.optim.Adam([w], betas=(0.9,))", P + "torch.optim.Adam([])", P + "torch.optim.Adam(w)",
    P + "torch.optim.Adam([w], bogus=3)", P + "torch.optim.Adam([w], lr=0.1, amsgrad='x').defaults['amsgrad']",
    P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group({'params': [w]})", P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group([b])",
    P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group({'lr': 0.1})", P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group({'params': b, 'lr': -1})\nopt.param_groups[1]['lr']",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.load_state_dict({'state': {}, 'param_groups': []})",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.load_state_dict({})", P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.load_state_dict(5)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nsd = opt.state_dict()\nsd['param_groups'][0]['params'] = [0]\nopt.load_state_dict(sd)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt2 = torch.optim.SGD([w], lr=0.1)\nopt2.load_state_dict(opt.state_dict())",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.step(5)", P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.zero_grad(5, 6)",
    P + "opt = torch.optim.SGD([w, b], lr=0.1)\nw.grad = torch.ones(3)\nopt.step()", P + "opt = torch.optim.SGD([w, b], lr=0.1)\nloss_fn().backward(create_graph=True)\nopt.step()\nw.requires_grad",
    P + "torch.optim.Optimizer([w], {})", P + "torch.optim.Optimizer([w], {}).step()", P + "torch.optim.Optimizer([w], None)",
])

IO = "import io\nbuf = io.BytesIO()\n"

table("io", [
    IO + "torch.save({'a': torch.tensor([1., 2.]), 'b': torch.tensor([1, 2])}, buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save(torch.tensor([1., 2.], dtype=torch.float64), buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save(torch.tensor([True]), buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save(torch.tensor(2.5), buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save(torch.ones(2, requires_grad=True), buf)\nbuf.seek(0)\nt = torch.load(buf)\n(t.requires_grad, t.is_leaf)",
    IO + "torch.save(nn.Parameter(torch.ones(2)), buf)\nbuf.seek(0)\ntype(torch.load(buf)).__name__",
    IO + "torch.save([torch.ones(1), (2, 3.5, 'x', None, True)], buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save({'n': 1, 'f': 0.1, 's': 'x', 'l': [1, 2], 'd': {'k': torch.zeros(1)}}, buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "m = nn.Linear(2, 1)\nnn.init.constant_(m.weight, 0.5)\ntorch.save(m.state_dict(), buf)\nbuf.seek(0)\nsd = torch.load(buf)\n(type(sd).__name__, list(sd), sd['weight'])",
    IO + "bn = nn.BatchNorm1d(2)\ntorch.save(bn.state_dict(), buf)\nbuf.seek(0)\nsd = torch.load(buf)\n(list(sd), sd['num_batches_tracked'])",
    IO + "m = nn.Linear(2, 1)\ntorch.save(m.state_dict(), buf)\nbuf.seek(0)\nm2 = nn.Linear(2, 1)\nm2.load_state_dict(torch.load(buf))\ntorch.equal(m.weight, m2.weight)",
    IO + "w = torch.tensor([1., 2.], requires_grad=True)\nopt = torch.optim.Adam([w], lr=0.1)\n(w * w).sum().backward()\nopt.step()\ntorch.save(opt.state_dict(), buf)\nbuf.seek(0)\nsd = torch.load(buf)\n(sd['state'][0]['step'], sorted(sd['state'][0]), sd['param_groups'][0]['lr'])",
    IO + "torch.save({'x': torch.ones(2)}, buf)\nbuf.seek(0)\ntorch.load(buf, weights_only=True)",
    IO + "torch.save({'x': torch.ones(2)}, buf)\nbuf.seek(0)\ntorch.load(buf, map_location='cpu')",
    IO + "torch.save({'x': torch.ones(2)}, buf)\nbuf.seek(0)\ntorch.load(buf, map_location=torch.device('cpu'))",
    "import tempfile, os\nd = tempfile.mkdtemp()\np = os.path.join(d, 'x.pt')\ntorch.save({'x': torch.arange(3)}, p)\ntorch.load(p)",
    "import tempfile, pathlib\nd = tempfile.mkdtemp()\np = pathlib.Path(d) / 'x.pt'\ntorch.save({'x': torch.arange(3)}, p)\ntorch.load(p)",
    IO + "x = torch.arange(6.)\ntorch.save({'a': x, 'b': x[2:]}, buf)\nbuf.seek(0)\nd = torch.load(buf)\nd['b'][0] = 100\nd['a']",
    IO + "x = torch.arange(6.).reshape(2, 3).t()\ntorch.save(x, buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "from collections import OrderedDict\ntorch.save(OrderedDict(a=torch.ones(1)), buf)\nbuf.seek(0)\ntype(torch.load(buf)).__name__",
    IO + "torch.save(torch.float64, buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save(torch.Size([2, 3]), buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save({1: torch.ones(1)}, buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save(slice(1, 2), buf)\nbuf.seek(0)\ntorch.load(buf)",
])

table("misuse/io", [
    IO + "torch.save(nn.Linear(2, 1), buf)\nbuf.seek(0)\ntype(torch.load(buf, weights_only=False)).__name__",
    IO + "torch.save(nn.Linear(2, 1), buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "class Thing:\n    pass\ntorch.save({'x': Thing()}, buf)\nbuf.seek(0)\ntorch.load(buf)",
    IO + "torch.save(lambda: 1, buf)", IO + "torch.save({'f': print}, buf)\nbuf.seek(0)\ntorch.load(buf)",
    "torch.load('/nonexistent/file.pt')", "torch.save({'a': 1}, '/nonexistent/dir/file.pt')", "import io\ntorch.load(io.BytesIO(b'garbage'))",
    "import io\ntorch.load(io.BytesIO(b''))", "import io, pickle\ntorch.load(io.BytesIO(pickle.dumps({'a': 1})))",
    "import io, pickle, os\nclass Evil:\n    def __reduce__(self):\n        return (os.getcwd, ())\ntorch.load(io.BytesIO(pickle.dumps(Evil())))",
    "torch.save({'a': torch.ones(1)})", "torch.load()", "torch.save({'a': torch.ones(1)}, 5)", "torch.load(5)",
    IO + "torch.save({'x': torch.ones(2)}, buf)\nbuf.seek(0)\ntorch.load(buf, map_location='cuda')",
    IO + "torch.save({'x': torch.ones(2)}, buf)\nbuf.seek(0)\ntorch.load(buf, bogus=1)",
    IO + "torch.save({'x': torch.ones(2)}, buf)\nbuf.seek(0)\ntorch.load(buf, mmap=False)",
    "import pickle\npickle.dumps(torch.ones(2))[:0]", "import pickle\npickle.loads(pickle.dumps(torch.ones(2)))",
    "import copy\ncopy.deepcopy(torch.ones(2, requires_grad=True) * 2)", "import copy\ncopy.copy(torch.ones(2))",
])
