"""The engine's semantics as PyTorch 2.13 has them (chapters 4 to 6): nodes reached
with no gradient, hooks on leaves and on AccumulateGrad nodes, what hooks may return,
retain_grad and ``backward(inputs=...)``, what ``autograd.grad`` captures and when, the
order of leaves made ready together, and the custom Function API around them.
Every expected value was printed by PyTorch 2.13."""

import pytest

import minitorch as torch
from minitorch.autograd import Function, engine

pytestmark = pytest.mark.chapter5


def values(t):
    return None if t is None else t.tolist()


class DropOne(Function):
    """Identity in forward; backward sends no gradient back."""

    @staticmethod
    def forward(ctx, a):
        return a * 1

    @staticmethod
    def backward(ctx, grad):
        return None


# ----- nodes reached with no gradient ---------------------------------------------------------

@pytest.mark.task("6.8")
def test_a_leaf_reached_without_gradient_runs_all_its_hooks_with_none():
    log = []
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: log.append(("hook", values(g))))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate", values(t.grad))))
    node = (x * 1).grad_fn.next_functions[0][0]
    node.register_prehook(lambda go: log.append(("pre", [values(g) for g in go])))
    node.register_hook(lambda gi, go: log.append(("post", list(gi), [values(g) for g in go])))
    (DropOne.apply(x).sum() + w.sum()).backward()
    assert log == [("hook", None), ("pre", [None]), ("post accumulate", None), ("post", [], [None])]
    assert x.grad is None and w.grad.tolist() == [1.0, 1.0]


@pytest.mark.task("6.8")
def test_a_builtin_node_reached_without_gradient_runs_its_hooks():
    log = []
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: log.append(("pre", list(go))))
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", list(gi), list(go))))
    y.register_hook(lambda g: log.append(("hook", g)))
    (DropOne.apply(y).sum() + torch.ones(2, requires_grad=True).sum()).backward()
    assert log == [("hook", None), ("pre", [None]), ("post", [None, None], [None])]
    assert x.grad is None


@pytest.mark.task("6.8")
@pytest.mark.parametrize("run", ["backward", "grad"])
def test_a_hook_cannot_put_a_gradient_where_none_arrived(run):
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: torch.ones(2) * 7)
    out = DropOne.apply(x).sum()
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None value"):
        out.backward() if run == "backward" else torch.autograd.grad(out, x, allow_unused=True)


@pytest.mark.task("6.8")
def test_a_leaf_hook_sees_none_under_autograd_grad_too():
    seen = []
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: seen.append(g))
    assert torch.autograd.grad(DropOne.apply(x).sum(), x, allow_unused=True) == (None,)
    assert seen == [None]


# ----- hooks of a leaf's AccumulateGrad node --------------------------------------------------

@pytest.mark.task("5.4")
def test_accumulate_grad_hooks_run_in_order_and_the_post_hook_sees_the_stored_grad():
    log = []
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: log.append(("hook", values(g), values(x.grad))))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate", values(t.grad))))
    y = x * 2
    node = y.grad_fn.next_functions[0][0]
    node.register_prehook(lambda go: log.append(("pre", values(go[0]), values(x.grad))))
    node.register_hook(lambda gi, go: log.append(("post", gi, values(go[0]), values(x.grad))))
    y.sum().backward()
    assert log == [("hook", [2.0, 2.0], None), ("pre", [2.0, 2.0], None),
                   ("post accumulate", [2.0, 2.0]), ("post", (), [2.0, 2.0], [2.0, 2.0])]


@pytest.mark.task("5.4")
def test_an_accumulate_grad_pre_hook_replaces_the_gradient():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.next_functions[0][0].register_prehook(lambda go: (go[0] * 10,))
    y.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]


HOOK_RESULTS = [
    ("post hook returns a value", lambda node: node.register_hook(lambda gi, go: (torch.ones(2),)),
     RuntimeError, r"has returned an incorrect number of values \(got 1, but expected 0\)"),
    ("post hook returns an int", lambda node: node.register_hook(lambda gi, go: 5),
     TypeError, "expected tuple, but hook returned 'int'"),
    ("post hook returns a list", lambda node: node.register_hook(lambda gi, go: []),
     TypeError, "expected tuple, but hook returned 'list'"),
]


@pytest.mark.task("5.4")
@pytest.mark.parametrize("register, kind, pattern", [h[1:] for h in HOOK_RESULTS],
                         ids=[h[0] for h in HOOK_RESULTS])
def test_what_an_accumulate_grad_post_hook_may_return(register, kind, pattern):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    register(y.grad_fn.next_functions[0][0])
    with pytest.raises(kind, match=pattern):
        y.sum().backward()


@pytest.mark.task("5.4")
def test_an_accumulate_grad_post_hook_returning_an_empty_tuple_is_fine():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: ())
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("5.4")
@pytest.mark.parametrize("result, kind, pattern", [
    (lambda t: t * 5, RuntimeError, "Tensor post accumulate grad hooks should return None"),
    (lambda t: 5, TypeError, "expected Variable, but hook returned 'int'"),
], ids=["tensor", "int"])
def test_a_post_accumulate_grad_hook_must_return_none(result, kind, pattern):
    x = torch.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(result)
    with pytest.raises(kind, match=pattern):
        x.sum().backward()


# ----- what node hooks may return -------------------------------------------------------------

@pytest.mark.task("5.4")
def test_none_in_a_returned_tuple_drops_that_gradient():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (None, None))
    y.sum().backward()
    assert x.grad is None
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (None,))
    y.sum().backward()
    assert x.grad is None


NODE_HOOK_RESULTS = [
    ("pre-hook list", lambda n: n.register_prehook(lambda go: [go[0] * 3]), TypeError,
     "expected tuple, but hook returned 'list'"),
    ("pre-hook too few", lambda n: n.register_prehook(lambda go: ()), RuntimeError,
     r"has returned an incorrect number of values \(got 0, but expected 1\)"),
    ("pre-hook str", lambda n: n.register_prehook(lambda go: ("a",)), TypeError,
     "expected Variable, but hook returned 'str'"),
    ("pre-hook dtype", lambda n: n.register_prehook(lambda go: (go[0].double(),)), RuntimeError,
     r"hook '<lambda>' has changed the type of value "
     r"\(was torch.FloatTensor got torch.DoubleTensor\)"),
    ("post hook list", lambda n: n.register_hook(lambda gi, go: [gi[0], None]), TypeError,
     "expected tuple, but hook returned 'list'"),
    ("post hook int", lambda n: n.register_hook(lambda gi, go: (5, None)), TypeError,
     "expected Variable, but hook returned 'int'"),
    ("post hook size", lambda n: n.register_hook(lambda gi, go: (gi[0][:1], None)), RuntimeError,
     "hook '<lambda>' has changed the size of value"),
    ("post hook dtype", lambda n: n.register_hook(lambda gi, go: (gi[0].double(), None)),
     RuntimeError,
     r"has changed the type of value \(was torch.FloatTensor got torch.DoubleTensor\)"),
]


@pytest.mark.task("5.4")
@pytest.mark.parametrize("register, kind, pattern", [h[1:] for h in NODE_HOOK_RESULTS],
                         ids=[h[0] for h in NODE_HOOK_RESULTS])
def test_what_a_node_hook_may_return(register, kind, pattern):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    register(y.grad_fn)
    with pytest.raises(kind, match=pattern):
        y.sum().backward()


class Callable:
    def __call__(self, grad):
        return grad[0]


@pytest.mark.task("5.4")
def test_a_hook_without_a_name_is_called_unknown():
    x = torch.ones(2, requires_grad=True)
    x.register_hook(Callable())
    with pytest.raises(RuntimeError, match="hook '<unknown>' has changed the size of value"):
        x.sum().backward()
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: g.reshape(2, 1))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        x.sum().backward()


# ----- retain_grad and backward(inputs=...) ---------------------------------------------------

@pytest.mark.task("5.4")
def test_retain_grad_also_works_under_autograd_grad():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * 3).sum()
    assert values(torch.autograd.grad(z, y, retain_graph=True)[0]) == [3.0, 3.0]
    assert y.grad.tolist() == [3.0, 3.0]
    gx, gy = torch.autograd.grad(z, [x, y])
    assert (gx.tolist(), gy.tolist(), y.grad.tolist()) == ([6.0, 6.0], [3.0, 3.0], [6.0, 6.0])


@pytest.mark.task("5.4")
def test_retain_grad_stores_the_gradient_after_the_tensor_hooks():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    assert torch.autograd.grad((y * 3).sum(), x)[0].tolist() == [60.0, 60.0]
    assert y.grad.tolist() == [30.0, 30.0]


@pytest.mark.task("5.4")
def test_backward_inputs_with_a_non_leaf_stores_its_grad_and_retains_it():
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    y = x * 2
    z = (y * 3).sum() + w.sum()
    z.backward(inputs=[y], retain_graph=True)
    assert (y.grad.tolist(), x.grad, w.grad, y.retains_grad) == ([3.0, 3.0], None, None, True)
    (y * 5).sum().backward()
    assert (y.grad.tolist(), x.grad.tolist()) == ([8.0, 8.0], [10.0, 10.0])


@pytest.mark.task("5.4")
@pytest.mark.parametrize("inputs, expected", [
    (lambda x, y: [y], ([30.0, 30.0], None)),
    (lambda x, y: [y, x], ([30.0, 30.0], [60.0, 60.0])),
], ids=["y", "y and x"])
def test_backward_inputs_with_a_non_leaf_sees_its_hooks(inputs, expected):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    (y * 3).sum().backward(inputs=inputs(x, y))
    assert (values(y.grad), values(x.grad)) == expected


@pytest.mark.task("5.4")
def test_backward_inputs_with_an_unreachable_non_leaf():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    (x * 3).sum().backward(inputs=[y])
    assert y.grad is None and y.retains_grad and x.grad is None


# ----- what autograd.grad captures ------------------------------------------------------------

@pytest.mark.task("5.4")
def test_a_non_leaf_input_that_need_not_run_is_captured_after_its_hooks():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    z = (y * 3).sum()
    assert torch.autograd.grad(z, y, retain_graph=True)[0].tolist() == [30.0, 30.0]
    gx, gy = torch.autograd.grad(z, [x, y])             # y's node runs: captured before hooks
    assert (gx.tolist(), gy.tolist()) == ([60.0, 60.0], [3.0, 3.0])


@pytest.mark.task("5.4")
def test_capture_order_with_hooks_on_every_input():
    log = []
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: log.append(("hook x", g.tolist())) or g * 10)
    y = x * 2
    y.register_hook(lambda g: log.append(("hook y", g.tolist())) or g * 100)
    y.grad_fn.register_prehook(lambda go: log.append(("pre y", go[0].tolist())))
    gy, gx = torch.autograd.grad((y * 3).sum(), [y, x])
    assert log == [("hook y", [3.0, 3.0]), ("pre y", [300.0, 300.0]), ("hook x", [600.0, 600.0])]
    assert (gy.tolist(), gx.tolist()) == ([3.0, 3.0], [6000.0, 6000.0])


@pytest.mark.task("5.4")
def test_a_root_among_the_inputs():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    z = y * 3
    z.register_hook(lambda g: g * 100)
    grads = torch.autograd.grad(z.sum(), [z, y, x])
    assert [g.tolist() for g in grads] == [[1.0, 1.0], [300.0, 300.0], [600.0, 600.0]]


@pytest.mark.task("4.2")
def test_a_captured_gradient_is_not_changed_by_a_later_sum():
    x = torch.ones(2, requires_grad=True)
    x2 = x * 2
    y = x + 0
    gy, gx = torch.autograd.grad((y * 3).sum() + x2.sum(), [y, x])
    assert (gy.tolist(), gx.tolist()) == ([3.0, 3.0], [5.0, 5.0])


@pytest.mark.task("4.2")
def test_grad_with_a_dict_of_inputs_returns_a_dict():
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    grads = torch.autograd.grad((x * 2 + w * 3).sum(), {"x": x, "w": w})
    assert list(grads) == ["x", "w"] and grads["x"].tolist() == [2.0, 2.0]
    assert grads["w"].tolist() == [3.0, 3.0]


# ----- seeds ----------------------------------------------------------------------------------

@pytest.mark.task("4.2")
def test_extra_gradients_are_ignored_and_missing_ones_refused():
    x = torch.ones(2, requires_grad=True)
    torch.autograd.backward([x * 2], [torch.ones(2), torch.ones(2)])
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        torch.autograd.backward([x * 2, x * 3], [torch.ones(2)])
    assert torch.autograd.grad([(x * 2).sum()], x, (None, torch.ones(())))[0].tolist() == [2.0, 2.0]


@pytest.mark.task("4.2")
def test_a_seed_of_another_dtype_is_converted_to_the_output_dtype():
    x = torch.ones(2, requires_grad=True)
    g, = torch.autograd.grad((x * 2).sum(), x, torch.ones((), dtype=torch.float64))
    assert g.dtype == torch.float32 and g.tolist() == [2.0, 2.0]


# ----- ties among ready leaves ----------------------------------------------------------------

def leaf_order(build, n, monkeypatch):
    """The order in which backward reaches the leaves of ``build(n leaves)``: the order
    in which ``execute`` sets their gradients aside (``stash_leaf_gradient``, given), at
    each leaf's turn.  PyTorch's order was read with a tensor hook on each leaf, which
    runs at that same turn (minitorch's hooks agree: chapter 5's tests)."""
    log = []
    xs = [torch.ones(2, requires_grad=True) for _ in range(n)]
    stash = engine.GraphTask.stash_leaf_gradient

    def logged(task, node, grad, owned):
        log.append(next(i for i, x in enumerate(xs) if x is node.variable))
        stash(task, node, grad, owned)

    monkeypatch.setattr(engine.GraphTask, "stash_leaf_gradient", logged)
    build(xs).sum().backward()
    return log


TIES = [
    ("cat of 5", lambda xs: torch.cat(xs), 5, [0, 2, 4, 1, 3]),
    ("cat of 8", lambda xs: torch.cat(xs), 8, [0, 2, 6, 5, 7, 4, 1, 3]),
    ("stack of 6 reversed", lambda xs: torch.stack(xs[::-1]), 6, [5, 3, 0, 1, 4, 2]),
    ("cat with two scaled", lambda xs: torch.cat([xs[0] * 2, xs[1], xs[2] * 3, xs[3], xs[4]]), 5,
     [1, 3, 4, 2, 0]),
    ("cat with two sums",
     lambda xs: torch.cat([xs[0], xs[1] + xs[2], xs[3], xs[4], xs[5] + xs[6]]), 7,
     [0, 3, 4, 5, 6, 1, 2]),
]


@pytest.mark.task("4.2")
@pytest.mark.parametrize("build, n, expected", [t[1:] for t in TIES], ids=[t[0] for t in TIES])
def test_leaves_made_ready_together_run_in_the_heap_order_of_pytorch(build, n, expected,
                                                                     monkeypatch):
    """Equal priorities leave the order to the binary heap (std::priority_queue in
    PyTorch, heapq here: the same sift rules give the same order, not arrival order)."""
    assert leaf_order(build, n, monkeypatch) == expected


# ----- grad modes -----------------------------------------------------------------------------

def test_inference_mode_false_turns_grad_mode_on():
    with torch.no_grad():
        with torch.inference_mode(False):
            inside = (torch.is_grad_enabled(), torch.is_inference_mode_enabled())
        after = torch.is_grad_enabled()
    with torch.inference_mode():
        with torch.inference_mode(False):
            nested = (torch.is_grad_enabled(), torch.is_inference_mode_enabled())
            x = torch.ones(2, requires_grad=True)
            recorded = (x * 2).requires_grad
        outer = (torch.is_grad_enabled(), torch.is_inference_mode_enabled())
    assert inside == (True, False) and not after
    assert nested == (True, False) and recorded and outer == (False, True)


@pytest.mark.parametrize("value", ["yes", 1, None, 1.0], ids=["str", "int", "None", "float"])
def test_set_grad_enabled_takes_only_a_bool(value):
    with pytest.raises(TypeError, match=r"set_grad_enabled\(\): argument 'enabled' \(position 1\) "
                                        f"must be bool, not {type(value).__name__}"):
        torch.set_grad_enabled(value)


# ----- saved tensors modified in place --------------------------------------------------------

class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        r = x.exp()
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, grad):
        r, = ctx.saved_tensors
        return grad * r


def _saved_output_changed(x):
    y = Exp.apply(x)
    y.add_(1)
    return y


def _saved_input_changed(make):
    def build(x):
        y = make(x)
        z = y * y                       # saves y twice, as inputs
        y.mul_(2)
        return z
    return build


def _own_output_changed(x):
    y = x.sigmoid()
    y.mul_(2)
    return y


MODIFIED = [
    ("a custom Function's saved output", _saved_output_changed, "which is output 0 of Exp,"),
    ("an input saved by y * y, changed by mul_", _saved_input_changed(lambda x: x * 1),
     "which is output 0 of Mul,"),
    ("an exp output saved by y * y", _saved_input_changed(lambda x: x.exp()),
     "which is output 0 of Mul,"),
    ("sigmoid's own output", _own_output_changed, "which is output 0 of Sigmoid,"),
]


@pytest.mark.parametrize("build, which", [m[1:] for m in MODIFIED], ids=[m[0] for m in MODIFIED])
def test_the_in_place_error_names_the_op_that_made_the_tensor(build, which):
    x = torch.ones(2, requires_grad=True)
    out = build(x)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                                           "has been modified by an inplace operation") as info:
        out.sum().backward()
    assert which in str(info.value)


def test_a_leaf_modified_in_place_is_not_named():
    x = torch.ones(2, requires_grad=True)
    z = x * x
    with torch.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2\]\] is at version 1; expected "
                                           "version 0 instead"):
        z.sum().backward()


# ----- the custom Function API around the engine ----------------------------------------------

class Scale(Function):
    @staticmethod
    def forward(ctx, x, scale=2.0):
        ctx.scale = scale
        return x * scale

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale, None


class MulByKeyword(Function):
    @staticmethod
    def forward(ctx, x, w=None):
        return x * w

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class BothBackwardAndVjp(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def vjp(ctx, grad):
        return grad * 5


@pytest.mark.task("6.8")
def test_keyword_arguments_of_apply():
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    y = Scale.apply(x, scale=3.0)
    assert len(y.grad_fn.next_functions) == 1
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    y = MulByKeyword.apply(x, w=w)
    assert len(y.grad_fn.next_functions) == 2
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0] and w.grad.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        Scale.apply(x, bogus=2)


@pytest.mark.task("6.8")
def test_node_apply_calls_backward_as_it_is():
    x = torch.ones(2, requires_grad=True)
    y = Scale.apply(x)
    grads = y.grad_fn.apply(torch.ones(2))
    assert grads[0].tolist() == [2.0, 2.0] and grads[1] is None
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        y.grad_fn.apply()


@pytest.mark.task("6.8")
def test_defining_both_backward_and_vjp_is_refused():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp' for a custom "
                                           "Function is not allowed"):
        BothBackwardAndVjp.apply(x).sum().backward()


@pytest.mark.task("6.8")
def test_a_builtin_nodes_name_is_read_only_but_a_ctx_may_store_one():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(AttributeError, match="'MulBackward0' object attribute 'name' is read-only"):
        (x * 2).grad_fn.name = "x"
    y = Scale.apply(x)
    y.grad_fn.name = "mine"
    assert y.grad_fn.name == "mine"
    assert Scale.apply(x).grad_fn.name() == "ScaleBackward"


class DirtyNumber(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(3)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


@pytest.mark.task("6.8")
def test_mark_dirty_takes_only_tensors():
    with pytest.raises(RuntimeError, match="mark_dirty can only accept variables, but argument"):
        DirtyNumber.apply(torch.ones(2))
