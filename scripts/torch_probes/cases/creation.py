"""Creation functions, inferred and explicit dtypes, exact values, the default dtype."""

from ..case import add, table
from ._operands import DTYPES

# What dtype does data get, and are the values exact?
table("creation/infer", [
    "torch.tensor([])", "torch.tensor([[]])", "torch.tensor([[], []])", "torch.tensor(())",
    "torch.tensor(3)", "torch.tensor(3.5)", "torch.tensor(True)", "torch.tensor([1, 2.5])",
    "torch.tensor([True, 1])", "torch.tensor([True, 1.0])", "torch.tensor([True, False])",
    "torch.tensor([[1, 2], [3, 4]])", "torch.tensor(((1, 2), (3, 4)))", "torch.tensor([1, 2]).dtype",
    "torch.tensor(np.float64(0.1))", "torch.tensor(np.float32(1.5))", "torch.tensor(np.int64(3))",
    "torch.tensor(np.bool_(True))", "torch.tensor([np.float64(1.5), 2.0])",
    "torch.tensor([np.float32(1.5), 2.0])", "torch.tensor(np.array([1.0, 2.0]))",
    "torch.tensor(np.array([1.0, 2.0], dtype=np.float32))", "torch.tensor(np.array([1, 2]))",
    "torch.tensor(np.array(2.5))", "torch.tensor(np.array([True]))", "torch.tensor(np.zeros((2, 0)))",
    "torch.tensor([torch.tensor(1.), torch.tensor(2.)])", "torch.tensor([torch.tensor(1), torch.tensor(2)])",
    "torch.tensor([torch.tensor(1.5, dtype=torch.float64)])",
    "torch.tensor([torch.tensor([1.0])])",
    "torch.tensor(torch.tensor([1.0, 2.0]))", "torch.tensor(float('nan'))", "torch.tensor(float('inf'))",
    "torch.tensor(1e300)", "torch.tensor(1e-50)", "torch.tensor(-0.0)", "torch.tensor(2 ** 62)",
    "torch.tensor([1, 2], requires_grad=False)", "torch.tensor(5).item()", "torch.tensor(True).item()",
    "torch.tensor(2.5).item()", "torch.tensor([[1.5]]).item()", "torch.tensor([3]).item()",
    "torch.tensor([1, 2]).tolist()", "torch.tensor(2.5).tolist()", "torch.tensor([[True], [False]]).tolist()",
    "torch.tensor(range(4))", "torch.tensor([range(2), range(2)])",
    "torch.tensor([0.5, 1.5], dtype=None)",
])

table("creation/exact", [
    "torch.tensor(0.1, dtype=torch.float64).item()", "torch.tensor([0.1, 0.2], dtype=torch.float64).tolist()",
    "torch.tensor(1 / 3, dtype=torch.float64).item()", "torch.tensor(1e300, dtype=torch.float64)",
    "torch.tensor(1e300, dtype=torch.float64).item()", "torch.tensor([1e-300], dtype=torch.float64).item()",
    "torch.tensor(0.1).item()", "torch.tensor(0.1).double().item()", "torch.tensor(0.1, dtype=torch.float32).item()",
    "torch.tensor(2 ** 53 + 1).item()", "torch.tensor([2 ** 62, -2 ** 62]).tolist()",
    "torch.tensor(2 ** 53 + 1, dtype=torch.float64).item()", "torch.tensor(0.1, dtype=torch.float64) * 3",
    "(torch.tensor(0.1, dtype=torch.float64) * 3).item()", "torch.tensor([1, 2], dtype=torch.float64) + 0.1",
    "(torch.tensor([1, 2], dtype=torch.float64) / 3).tolist()", "(torch.tensor(1.0, dtype=torch.float64) / 3).item()",
    "torch.ones(3, dtype=torch.float64).mul(0.1).sum().item()",
    "torch.tensor(np.float64(0.1)).item()", "torch.tensor([0.1], dtype=torch.float64).numpy()",
    "torch.arange(0, 1, 0.1, dtype=torch.float64).tolist()", "torch.arange(0, 1, 0.1).tolist()",
    "torch.linspace(0, 1, 11, dtype=torch.float64).tolist()", "torch.linspace(0, 1, 7).tolist()",
    "torch.full((2,), 0.1, dtype=torch.float64).tolist()", "torch.tensor(16777217.0).item()",
    "torch.tensor(16777217).float().item()", "torch.tensor(0.1, dtype=torch.float64).float().double().item()",
    "float(torch.tensor(0.1, dtype=torch.float64))", "torch.tensor(3.7).long().item()",
    "torch.tensor(-3.7).long().item()", "torch.tensor([0.5, 0.0, -2.0]).bool().tolist()",
    "torch.tensor(1e10).long().item()",
], exact=True)

# Explicit dtypes on every creation function.
for dtype in DTYPES:
    d = f"dtype=torch.{dtype}"
    table("creation/explicit", [
        f"torch.tensor([1.7, -1.7, 0.0], {d})", f"torch.tensor([True, False], {d})", f"torch.tensor(2, {d})",
        f"torch.tensor([], {d})", f"torch.zeros(2, 3, {d})", f"torch.ones((2,), {d})", f"torch.empty(0, {d})",
        f"torch.full((2,), 3, {d})", f"torch.full((2,), 2.5, {d})", f"torch.arange(4, {d})",
        f"torch.arange(0, 2, 0.5, {d})", f"torch.linspace(0, 1, 3, {d})", f"torch.eye(2, {d})",
        f"torch.zeros_like(torch.ones(2), {d})", f"torch.ones_like(torch.ones(2, dtype=torch.int64), {d})",
        f"torch.full_like(torch.ones(2), 2.5, {d})", f"torch.as_tensor([1, 2], {d})",
        f"torch.rand(2, {d}).dtype", f"torch.randn(2, {d}).shape", f"torch.randint(0, 5, (3,), {d}).dtype",
        f"torch.zeros(2, {d}, requires_grad=True)", f"torch.empty_like(torch.ones(2), {d}).shape",
        f"torch.tensor(np.array([1.5, 2.5]), {d})", f"torch.tensor(torch.tensor([1.5, -2.5]), {d})",
    ])

table("creation/functions", [
    "torch.zeros(2, 3)", "torch.zeros((2, 3))", "torch.zeros([2, 3])", "torch.zeros(())", "torch.zeros([])",
    "torch.zeros(0)", "torch.zeros(2, 0)", "torch.ones(size=(2,))", "torch.zeros(torch.Size([2, 1]))",
    "torch.empty(2, 3).shape", "torch.full((2,), 3)", "torch.full((2,), 3.0)", "torch.full((2,), True)",
    "torch.full([2, 2], -1)", "torch.full((), 7)", "torch.full((2,), 2.5, requires_grad=True)",
    "torch.arange(5)", "torch.arange(5.0)", "torch.arange(0, 1, 0.25)", "torch.arange(1, 4, 0.5)",
    "torch.arange(0., 5)", "torch.arange(10, 0, -3)", "torch.arange(1, 2.5)", "torch.arange(start=1, end=5)",
    "torch.arange(0)", "torch.arange(3, 1)", "torch.arange(2, 8, 3)", "torch.arange(torch.tensor(3))",
    "torch.arange(0, 5, requires_grad=True)", "torch.arange(0., 3, requires_grad=True)",
    "torch.linspace(0, 1, 5)", "torch.linspace(0, 10, steps=3)", "torch.linspace(-1, 1, 1)",
    "torch.linspace(0, 1, 0)", "torch.linspace(5, 0, 6)", "torch.eye(3)", "torch.eye(2, 3)", "torch.eye(0)",
    "torch.eye(2, m=1)", "torch.zeros_like(torch.tensor([1, 2]))", "torch.ones_like(torch.tensor([True]))",
    "torch.full_like(torch.tensor([1, 2]), 2.7)", "torch.full_like(torch.tensor([1., 2.]), 7)",
    "torch.zeros_like(torch.ones(2, requires_grad=True))", "torch.ones_like(torch.ones(2), requires_grad=True)",
    "torch.empty_like(torch.ones(2, 3)).shape", "torch.rand(2, 3).shape", "torch.rand(2, 3).dtype",
    "torch.rand(()).shape", "torch.rand(0).shape", "torch.rand((2, 1)).shape", "torch.randn(3).dtype",
    "torch.randn(2, 2, requires_grad=True).requires_grad", "torch.rand(1000).min() >= 0",
    "torch.rand(1000).max() < 1", "torch.randint(0, 10, (3,)).dtype", "torch.randint(10, (3,)).shape",
    "torch.randint(5, size=(2, 2)).shape", "torch.randint(3, 4, (5,))", "torch.randint(0, 1, ())",
    "torch.randn_like(torch.ones(2, dtype=torch.float64)).dtype", "torch.rand_like(torch.ones(3)).shape",
    "torch.randperm(4).dtype", "torch.randperm(4).sort().values",
    "torch.as_tensor([1, 2])", "torch.as_tensor(np.array([1.0]))",
    "a = np.array([1.0, 2.0])\nt = torch.as_tensor(a)\na[0] = 5\nt",
    "a = np.array([1.0, 2.0])\nt = torch.from_numpy(a)\na[0] = 5\nt",
    "a = np.array([1.0, 2.0])\nt = torch.tensor(a)\na[0] = 5\nt",
    "a = np.array([1.0, 2.0])\nt = torch.from_numpy(a)\nt.add_(1)\na",
    "x = torch.ones(2)\ntorch.as_tensor(x) is x", "x = torch.ones(2)\ntorch.as_tensor(x, dtype=torch.float64)",
    "torch.from_numpy(np.zeros((2, 3), dtype=np.int64))", "torch.from_numpy(np.array(True))",
    "torch.Tensor([1, 2])", "torch.Tensor(2, 3).shape", "torch.Tensor()", "torch.Tensor([[1.5]]).dtype",
    "torch.Tensor(np.array([1, 2]))", "torch.is_tensor(torch.ones(1))", "torch.is_tensor([1])",
    "torch.manual_seed(3)\na = torch.rand(3)\ntorch.manual_seed(3)\nb = torch.rand(3)\ntorch.equal(a, b)",
    "type(torch.manual_seed(0)).__name__", "torch.numel(torch.ones(2, 3))",
], values=True)

# Random draws: only dtype and shape can agree (different generators).
for src in ["torch.rand(2, 3)", "torch.randn(4)", "torch.randint(0, 10, (2, 2))", "torch.randperm(5)",
            "torch.rand(3, dtype=torch.float64)", "torch.randn(2, 2, dtype=torch.float64, requires_grad=True)"]:
    add("creation/random", src, values=False)

# The worker resets the default dtype to float32 before every case.
table("creation/default_dtype", [
    "torch.get_default_dtype()",
    "torch.set_default_dtype(torch.float64)\n[torch.tensor(1.0).dtype, torch.tensor([1]).dtype, torch.ones(2).dtype, "
    "torch.arange(0., 1, .5).dtype, torch.arange(3).dtype, torch.rand(1).dtype, torch.full((1,), 2.0).dtype, "
    "torch.linspace(0, 1, 2).dtype, torch.eye(1).dtype, torch.Tensor([1]).dtype, torch.zeros(1).dtype]",
    "torch.set_default_dtype(torch.float64)\n(torch.tensor([1, 2]) * 1.5).dtype",
    "torch.set_default_dtype(torch.float64)\n(torch.tensor([1, 2]) * 1.5)",
    "torch.set_default_dtype(torch.float64)\n(torch.ones(2, dtype=torch.float32) + 1.5).dtype",
    "torch.set_default_dtype(torch.float64)\ntorch.tensor([1, 2]).exp().dtype",
    "torch.set_default_dtype(torch.float64)\n(torch.tensor([1, 2]) / 2).dtype",
    "torch.set_default_dtype(torch.float64)\ntorch.tensor([True]).sigmoid().dtype",
    "torch.set_default_dtype(torch.float64)\ntorch.tensor([1, 2]).mean(dtype=torch.get_default_dtype()).dtype",
    "torch.set_default_dtype(torch.float64)\ntorch.tensor(0.1).item()",
    "torch.set_default_dtype(torch.float64)\nnn.Linear(2, 2).weight.dtype",
    "torch.set_default_dtype(torch.float64)\ntorch.get_default_dtype()",
    "torch.set_default_dtype(torch.int64)", "torch.set_default_dtype(torch.bool)",
    "torch.set_default_dtype(float)", "torch.set_default_dtype('float64')",
])

table("creation/dtype_objects", [
    "torch.float32 == torch.float", "torch.float64 == torch.double", "torch.int64 == torch.long",
    "torch.float32.is_floating_point", "torch.int64.is_floating_point", "torch.bool.is_floating_point",
    "torch.float64.itemsize", "torch.bool.itemsize", "str(torch.float32)", "repr(torch.int64)",
    "str(torch.bool)", "isinstance(torch.float32, torch.dtype)", "torch.float32 is torch.float",
    "hash(torch.float32) == hash(torch.float)", "{torch.float32: 1}[torch.float]",
    "torch.ones(1).dtype is torch.float32", "torch.tensor([1]).dtype == torch.long",
    "torch.float32 == 'float32'", "torch.float32.is_signed", "torch.bool.is_signed",
    "torch.int64.is_complex", "torch.float32.to_real()", "import copy\ncopy.deepcopy(torch.float64)",
    "import pickle\npickle.loads(pickle.dumps(torch.float64)) is torch.float64",
])

table("misuse/creation", [
    "torch.tensor([[1, 2], [3]])", "torch.tensor([1, [2]])", "torch.tensor([[1], 2])", "torch.tensor(None)",
    "torch.tensor([1, None])", "torch.tensor('a')", "torch.tensor(['a'])", "torch.tensor({1: 2})",
    "torch.tensor({1, 2})", "torch.tensor(object())", "torch.tensor(2 ** 63)", "torch.tensor([2 ** 64])",
    "torch.tensor(1 + 2j)", "torch.tensor([1, 2], dtype='float32')", "torch.tensor([1, 2], dtype=np.float32)",
    "torch.tensor([1, 2], dtype=float)", "torch.tensor([1, 2], requires_grad=True)",
    "torch.tensor([True], requires_grad=True)", "torch.tensor([1.0], requires_grad=1)",
    "torch.tensor([1.0], device='cuda')", "torch.tensor([1.0], device='meta').shape",
    "torch.tensor([1.0], device='cpu')", "torch.tensor(np.array(['a']))", "torch.tensor(np.array([1], dtype=object))",
    "torch.tensor([torch.ones(2), torch.ones(2)])", "torch.tensor([1.0], foo=1)", "torch.tensor()",
    "torch.zeros(-1)", "torch.zeros(2, -3)", "torch.zeros(2.5)", "torch.zeros('a')", "torch.zeros(2, dtype='x')",
    "torch.zeros((2, 3), 4)", "torch.zeros([2, [3]])", "torch.zeros(True)", "torch.ones(2, dtype=torch.int64, requires_grad=True)",
    "torch.empty(-2)", "torch.full(2, 1.0)", "torch.full((2,), 'a')", "torch.full((2,))", "torch.full((-1,), 1.)",
    "torch.arange(0, 1, 0)", "torch.arange(0, 10, -1)", "torch.arange(1, 0)", "torch.arange('a')",
    "torch.arange(float('inf'))", "torch.arange(0, float('nan'))", "torch.linspace(0, 1, -1)",
    "torch.linspace(0, 1)", "torch.eye(-1)", "torch.eye(2, -1)", "torch.rand(-1)", "torch.rand(2, dtype=torch.int64)",
    "torch.randn(2, dtype=torch.bool)", "torch.randint(3, 2, (2,))", "torch.randint(0, 0, (2,))",
    "torch.randint(0, 10)", "torch.randint(0, 10, 3)", "torch.randint(0, 2.5, (2,))", "torch.randint(0, 10, (2,), dtype=torch.bool)",
    "torch.rand_like(torch.tensor([1, 2]))", "torch.randn_like(torch.tensor([True]))", "torch.zeros_like([1, 2])",
    "torch.ones_like(np.ones(2))", "torch.from_numpy([1.0])", "torch.from_numpy(np.array(['a']))",
    "torch.from_numpy(np.array([1 + 1j]))", "torch.as_tensor('a')", "torch.Tensor('a')", "torch.Tensor(2.5)",
    "torch.Tensor([1], dtype=torch.int64)", "torch.randperm(-1)", "torch.manual_seed('a')", "torch.manual_seed(-1)",
    "torch.manual_seed(2 ** 70)", "torch.eye(2.5)",
])
