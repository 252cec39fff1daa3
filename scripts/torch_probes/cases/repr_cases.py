"""How things print: tensors (layout, line wrapping at 80 columns, dtype suffixes,
summaries), sizes, dtypes, modules, parameters and optimizers.  Compared as text
after ``minitorch`` is replaced with ``torch``."""

from ..case import add

TENSORS = [
    "torch.tensor([1., 2.])", "torch.tensor([1.5, 2.25])", "torch.tensor([1, 2])", "torch.tensor([True, False])",
    "torch.tensor(3.)", "torch.tensor(3)", "torch.tensor(True)", "torch.tensor([])", "torch.zeros(0, 3)",
    "torch.zeros(2, 0)", "torch.tensor([], dtype=torch.int64)", "torch.tensor([1., 2.], dtype=torch.float64)",
    "torch.tensor([1, 2], dtype=torch.float64)", "torch.tensor(2.5, dtype=torch.float64)", "torch.tensor([0.1, 0.2], dtype=torch.float64)",
    "torch.tensor([1e-5, 1.])", "torch.tensor([1e10, 1.])", "torch.tensor([123456.789])", "torch.tensor([1e-10])",
    "torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5])", "torch.tensor([float('nan'), 1.])", "torch.tensor([-0.0, 0.0])",
    "torch.tensor([-1.5, 2.])", "torch.tensor([[1., 2.], [3., 4.]])", "torch.tensor([[1, -20], [300, 4]])",
    "torch.tensor([[[1., 2.]], [[3., 4.]]])", "torch.arange(12.).reshape(2, 2, 3)", "torch.arange(2000)", "torch.arange(1001.)",
    "torch.arange(2000.).reshape(40, 50)", "torch.arange(100)", "torch.arange(30.)", "torch.arange(25) * 1000",
    "torch.linspace(0, 1, 12)", "torch.tensor([1e-3, 1e3])", "torch.tensor([0.001, 1000.5])", "torch.tensor([1e8, 1.])",
    "torch.tensor([1e9])", "torch.tensor([100000000.])", "torch.tensor([1.123456789])", "torch.tensor([12345678.])",
    "torch.ones(2, requires_grad=True)", "torch.ones(2, requires_grad=True) * 2", "torch.ones(2, requires_grad=True).sum()",
    "torch.ones(2, dtype=torch.float64, requires_grad=True)", "torch.ones(2, dtype=torch.float64, requires_grad=True) * 2",
    "torch.ones(8, requires_grad=True)", "torch.ones(9, requires_grad=True)", "torch.ones(10, requires_grad=True)",
    "torch.ones(11, requires_grad=True) * 2", "torch.arange(9.).requires_grad_()", "torch.arange(10.).requires_grad_()",
    "torch.arange(11.).requires_grad_() * 1", "torch.arange(12.).requires_grad_() * 1", "torch.arange(14.).requires_grad_() * 1",
    "torch.tensor([1.5] * 7, requires_grad=True)", "torch.tensor([1.5] * 8, requires_grad=True)", "torch.tensor([1.5] * 9, requires_grad=True)",
    "torch.tensor([1.5] * 10, requires_grad=True) * 1", "torch.tensor([1.5] * 7, dtype=torch.float64, requires_grad=True)",
    "torch.tensor([1.5] * 6, dtype=torch.float64, requires_grad=True) * 2", "torch.tensor([1.5] * 5, dtype=torch.float64, requires_grad=True) * 2",
    "torch.tensor([1.5] * 12)", "torch.tensor([1.5] * 13)", "torch.tensor([[1.5] * 7] * 2, requires_grad=True)",
    "torch.tensor([[1.5] * 7] * 2, requires_grad=True) * 2", "torch.arange(6.).reshape(2, 3).requires_grad_() @ torch.ones(3, 2)",
    "torch.tensor([100., 200.], requires_grad=True) * 2", "torch.tensor(1., requires_grad=True) * 2", "torch.tensor([1, 2]) * 1000000",
    "torch.tensor([1.5, 2.5]).double()", "torch.tensor([1.0], dtype=torch.float64)", "torch.tensor([True] * 30)",
    "torch.zeros(3, 1, 2)", "torch.tensor([[]])", "torch.tensor([[1.]], requires_grad=True).t()", "torch.nn.Parameter(torch.ones(2))",
    "torch.nn.Parameter(torch.ones(2), requires_grad=False)", "torch.nn.Parameter(torch.ones(2, dtype=torch.float64))",
    "torch.nn.Parameter(torch.tensor([1.5] * 12))", "torch.nn.Parameter(torch.tensor(2.))",
    "torch.ones(2, requires_grad=True).detach()", "x = torch.ones(2, requires_grad=True)\nx.grad_fn",
    "torch.tensor([0.5, 0.25]).softmax(0)", "torch.tensor([1.5]) > 0", "torch.ones(2, 2) * 0.1",
    "torch.tensor([1.0e-4, 1.0])", "torch.tensor([9.9999e-5, 1.0])", "torch.tensor([1.0, 1000.])", "torch.tensor([1.0, 1001.])",
    "torch.tensor([2 ** 40])", "torch.tensor([-2 ** 62, 5])", "torch.tensor([[0.1, 0.22], [0.333, 4444.]])",
]
for i, expr in enumerate(TENSORS):
    add("repr/tensor", f"out = {expr}\nrepr(out)", id=f"repr:{expr}", grad=False)
    if i < 40:
        add("repr/str", f"str({expr})", id=f"str:{expr}", grad=False)

for expr in [
    "torch.Size([2, 3])", "torch.Size([])", "torch.ones(2, 3).shape", "torch.float32", "torch.int64", "torch.bool",
    "torch.float64", "torch.ones(2).dtype", "torch.ones(2).device",
    "nn.Linear(2, 3)", "nn.Linear(2, 3, bias=False)", "nn.ReLU()", "nn.Sigmoid()", "nn.Tanh()", "nn.Dropout(0.25)",
    "nn.Dropout()", "nn.BatchNorm1d(4)", "nn.BatchNorm1d(4, momentum=None, affine=False)", "nn.MSELoss()",
    "nn.MSELoss(reduction='sum')", "nn.CrossEntropyLoss()", "nn.Softmax(dim=1)", "nn.LogSoftmax(dim=-1)", "nn.Identity()",
    "nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))", "nn.Sequential()", "nn.ModuleList([nn.ReLU(), nn.Tanh()])",
    "nn.ModuleList()", "nn.Sequential(nn.Sequential(nn.ReLU()), nn.ModuleList([nn.Tanh()]))",
    "nn.Sequential(*[nn.ReLU() for _ in range(3)])", "nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)])",
    "nn.Module()", "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n        self.act = nn.ReLU()\nNet()",
    "class Net(nn.Module):\n    def extra_repr(self):\n        return 'k=3'\nNet()",
    "class Net(nn.Module):\n    def extra_repr(self):\n        return 'a\\nb'\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\nNet()",
    "torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=0.1)", "torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=0.1, momentum=0.9)",
    "torch.optim.Adam([torch.ones(2, requires_grad=True)])", "torch.optim.Adam([torch.ones(2, requires_grad=True)], lr=1e-3, weight_decay=0.01)",
    "torch.ones(2, 2).max(0)", "torch.tensor([3., 1.]).max(dim=0)", "nn.Linear(2, 3).weight.shape",
]:
    add("repr/objects", f"out = {expr}\nrepr(out)" if "\n" not in expr else expr.rsplit("\n", 1)[0] + f"\nrepr({expr.rsplit(chr(10), 1)[1]})",
        id=f"repr:{expr.splitlines()[-1] if False else expr}", grad=False)

add("repr/objects", "print(torch.ones(2, requires_grad=True) * 2)\nprint(torch.tensor([1, 2]))", id="repr:print", grad=False)
add("repr/objects", "x = torch.ones(2, requires_grad=True)\nprint([x, x * 2])", id="repr:list", grad=False)
add("repr/objects", "x = torch.ones(2, requires_grad=True)\nprint({'x': x})", id="repr:dict", grad=False)
add("repr/objects", "m = nn.Linear(2, 2)\nnn.init.constant_(m.weight, 0.5)\nnn.init.zeros_(m.bias)\nprint(m.state_dict())",
    id="repr:state_dict", grad=False)
