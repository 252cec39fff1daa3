"""Another machine's last bits, on any machine: minitorch's inexact ops moved by one ulp.

numpy and OpenBLAS round a few kinds of results differently from one CPU to the next:
transcendental functions (``exp``, ``tanh``, ``pow``... have AVX-512 loops of their own),
sums (wider SIMD blocks add in another order) and matrix products (each BLAS kernel
accumulates its own way). The difference is a unit in the last place, and a stored
notebook output must not depend on it (DESIGN.md, section 5). A machine without AVX-512
cannot see which outputs do; this module makes the difference on purpose:

* every op of minitorch whose result is not fixed to the bit by IEEE 754 (the classes in
  ``INEXACT``: transcendental elementwise ops, reductions, matrix products, convolutions,
  normalisations, losses) has its float results moved by one ulp, in backward too
  (``backward_on_arrays`` of the ops in ``BACKWARD_INEXACT``, and any gradient that
  backward sums over broadcast dimensions); a backward written with ops is moved
  by those ops;
* the direction is keyed on the value's own bits (its last bit is flipped), so a rerun
  gives the same bits and the same input always gives the same output (gradcheck's
  reentrancy test still holds);
* values that an honest machine computes exactly are left alone: 0, infinities, NaN,
  subnormals, integers, and short binary fractions (the lower half of the significand's
  bits zero, such as 0.5 or 2.375: a rounded result almost never ends that way), so
  ``exp(-1000)`` stays 0 and a sum of whole numbers stays whole;
* the results are changed in place, a few thousand at a time, so that what a chapter
  measures of minitorch (memory with tracemalloc, calls with cProfile, the source that
  ``inspect`` prints) is what it is without the mode.

Correctly rounded ops (``+``, ``*``, ``/``, ``sqrt``, comparisons, copies, views, indexing)
are left alone: every machine gives the same bits for them.

It costs nothing when it is off: nothing in minitorch knows about it. When the folder
of this file is on ``PYTHONPATH`` and ``MINITORCH_PERTURB=ulp`` is set, Python's start-up
(``sitecustomize.py`` beside this file) installs it before minitorch is imported, in
every process that inherits the environment: pytest, nbval's kernels, a classroom grader,
a student release's ``make test``::

    make test PERTURB=ulp
    PYTHONPATH=scripts/perturb MINITORCH_PERTURB=ulp .venv/bin/python -m pytest ...

``make test-machines`` runs the whole ``make test`` that way (configuration
``perturb=ulp``).
"""

import functools
import importlib.abc
import os
import sys

import numpy as np

MODE_VARIABLE = "MINITORCH_PERTURB"
MODES = ("ulp",)

# The ops whose results a machine may round differently, by module. Every other op is
# in EXACT below (tests/test_perturb.py checks that each op of minitorch is in one list
# or the other, so that a new op has to be put in one).
INEXACT = {
    "minitorch.ops.pointwise": ("Exp", "Log", "Sigmoid", "Tanh"),
    "minitorch.ops.exponential": ("Erf", "Exp2", "Expm1", "Log10", "Log1p", "Log2"),
    "minitorch.ops.trig": ("Acos", "Asin", "Atan", "Atan2", "Cos", "Cosh", "Sin", "Sinh",
                           "Tan"),
    "minitorch.ops.arithmetic": ("Pow", "PowScalar", "RPow"),
    "minitorch.ops.reduction": ("Sum", "SumDim", "SumToSize", "Mean", "MeanDim", "Softmax",
                                "LogSoftmax"),
    "minitorch.ops.statistics": ("Logsumexp", "Prod", "ProdDim", "Std", "Var",
                                 "VectorNorm"),
    "minitorch.ops.rearranging": ("Trace",),
    "minitorch.ops.linalg": ("Addmm", "Bmm", "Dot", "Mm", "Mv"),
    "minitorch.ops.einsum": ("Einsum",),
    "minitorch.linalg": ("Eigvalsh", "Solve"),
    "minitorch.nn._functions.activation": ("Elu", "EluInplace", "Erf", "Gelu", "Log1p", "LogSigmoid",
                                           "Silu", "Softplus"),
    "minitorch.nn._functions.attention": ("ScaledDotProductAttention",
                                          "ScaledDotProductAttentionMath"),
    "minitorch.nn._functions.conv": ("Convolution", "ConvolutionBackwardInput",
                                     "ConvolutionBackwardWeight"),
    "minitorch.nn._functions.loss": ("BinaryCrossEntropy", "BinaryCrossEntropyWithLogits",
                                     "HuberLoss", "SmoothL1Loss"),
    "minitorch.nn._functions.normalization": ("NativeGroupNorm", "NativeLayerNorm"),
    "minitorch.nn._functions.padding": ("SeparableLinearMap",),
    "minitorch.nn._functions.pooling": ("AdaptiveAvgPool2d", "AvgPool2d", "AvgPoolAdjoint"),
    "minitorch.nn.functional": ("MseLoss", "NativeBatchNorm", "NllLoss", "NllLoss2d"),
}

# Exact on every machine: IEEE 754 rounds +, -, *, /, sqrt and fma correctly; the others
# copy, select, compare or round values, add them up in a fixed order (cumsum,
# index_add), or draw them from numpy's Generator, which is the same code everywhere.
# ``InDtype`` ops compute with the op they convert for (a Sum, a Mean: nudged there).
EXACT = {
    "minitorch.ops._common": ("BuiltinFunction",),
    "minitorch.ops.pointwise": ("Abs", "Clamp", "ClampTensor", "MaskedFill", "Maximum",
                                "Minimum", "OutputDerivative", "Relu", "ReluGrad",
                                "SigmoidGrad", "Sign", "Sqrt", "TanhGrad", "Where"),
    "minitorch.ops.exponential": ("Lerp", "Rsqrt", "_OfInput", "_OfResult"),
    "minitorch.ops.arithmetic": ("Add", "AddAlpha", "AddScalar", "Div", "DivByNumber",
                                 "DivScalar", "FloorDivide", "Mul", "MulByNumber",
                                 "MulScalar", "Neg", "RSub", "Reciprocal", "Remainder",
                                 "RemainderScalar", "Sub", "SubAlpha", "SubScalar"),
    "minitorch.ops.reduction": ("MaxAll", "MaxDim", "MinAll", "MinDim", "InDtype",
                                "MeanDimInDtype", "MeanInDtype", "SumDimInDtype",
                                "SumInDtype"),
    "minitorch.ops.statistics": ("Amax", "Amin", "Cumprod", "Cumsum"),
    "minitorch.ops.rearranging": ("Diagonal", "DiagonalEmbed", "Flip", "IndexSelect",
                                  "MaskedSelect", "Repeat", "Roll", "Split",
                                  "SplitWithSizes", "Tril", "TrilInplace", "Triu",
                                  "TriuInplace", "Unbind", "_Triangle", "_TriangleInplace"),
    "minitorch.ops.linalg": ("SqueezeProduct",),
    "minitorch.ops.indexing": ("Gather", "Index", "IndexPutAccumulate", "Scatter",
                               "ScatterAdd", "Select", "SetItem", "Slice"),
    "minitorch.ops.inplace": ("AddInplace", "Copy", "CopyIntoView", "DivInplace", "Fill",
                              "FillTensor", "InPlaceOp", "MulInplace", "ReluInplace",
                              "SubInplace", "Zero"),
    "minitorch.ops.random": ("Bernoulli", "Exponential", "Normal", "RandomIntegers",
                             "Uniform", "_RandomFill"),
    "minitorch.ops.rounding": ("Ceil", "Floor", "Frac", "Round", "Trunc", "_Step"),
    "minitorch.ops.shape": ("Alias", "Cat", "Clone", "Expand", "Permute", "Squeeze",
                            "SqueezeAll", "SqueezeDims", "Stack", "T", "ToCopy",
                            "Transpose", "UnsafeView", "Unsqueeze", "View", "ViewFunction"),
    "minitorch.ops.sorting": ("Sort", "Topk"),
    "minitorch.ops.trig": ("_SavesInput",),
    "minitorch.nn._functions.activation": ("Hardtanh", "HardtanhInplace",
                                           "LeakyRelu", "LeakyReluInplace"),
    "minitorch.nn._functions.normalization": ("Embedding", "EmbeddingDenseBackward"),
    "minitorch.nn._functions.padding": ("CircularPad", "ConstantPadNd", "ReflectionPad1D",
                                        "ReflectionPad2D", "ReflectionPad3D",
                                        "ReplicationPad1D", "ReplicationPad2D",
                                        "ReplicationPad3D"),
    "minitorch.nn._functions.pooling": ("MaxPool2d", "MaxPoolGather", "MaxPoolScatter"),
    "minitorch.nn._functions.packing": ("PackPaddedSequence", "PadPackedSequence"),
    "minitorch.nn.functional": ("_ConvolutionOfNoChannels",),     # returns no values
    "minitorch._sampling": ("Bernoulli", "BernoulliWithP"),
}


# The inexact ops whose ``backward_on_arrays`` computes a sum, a product or a
# transcendental function; the others' is plain arithmetic on what forward saved
# (exp's is ``grad * result``), or a copy.
BACKWARD_INEXACT = {
    "minitorch.ops.linalg": ("Addmm",),
    "minitorch.ops.einsum": ("Einsum",),
    "minitorch.ops.reduction": ("Softmax", "LogSoftmax"),
    "minitorch.ops.pointwise": (),
    "minitorch.nn._functions.activation": ("Erf", "Gelu", "LogSigmoid", "Silu", "Softplus"),
    "minitorch.nn._functions.attention": ("ScaledDotProductAttention",),
    "minitorch.nn._functions.conv": ("Convolution",),
    "minitorch.nn._functions.loss": ("BinaryCrossEntropyWithLogits",),
    "minitorch.nn._functions.normalization": ("NativeGroupNorm", "NativeLayerNorm"),
    "minitorch.nn._functions.padding": ("SeparableLinearMap",),
}

# Ops whose inexact part is one term: ``addmm`` is ``bias + a @ b``, and only the product
# rounds differently from machine to machine; the name of the argument added after.
ADDED_AFTER = {("minitorch.ops.linalg", "Addmm"): 0}


def is_inexact(cls, table=INEXACT):
    """Whether ``cls`` (a Function subclass) is one of the ops in ``table``."""
    return cls.__name__ in table.get(cls.__module__, ())


# ----- one ulp, keyed on the value ----------------------------------------------------

# For each float format: the signed integer type of its bits, the significand's width
# and the exponent's bias.
_FORMATS = {np.dtype(np.float16): (np.int16, 10, 15),
            np.dtype(np.float32): (np.int32, 23, 127),
            np.dtype(np.float64): (np.int64, 52, 1023)}


def nudged(values):
    """A copy of ``values`` (a float16/32/64 array) with each inexact-looking value moved
    by one ulp; the others unchanged (see ``nudge``)."""
    values = np.array(values, copy=True, order="C")
    nudge(values)
    return values


CHUNK = 4096        # values changed at a time: the temporary arrays stay small


def nudge(values):
    """Move each inexact-looking value of ``values`` (a writeable float16/32/64 array)
    by one ulp, in place.

    The last bit of the significand is flipped: a value ending in 0 moves one ulp away
    from zero, one ending in 1 one ulp towards it, so the direction is keyed on the value
    and the exponent never changes (no infinity or subnormal can appear). Left alone:
    0, infinities, NaN, subnormals, integers, and values whose lower half of significand
    bits is all zeros (0.5, 2.375: exact-looking)."""
    signed, width, bias = _FORMATS[values.dtype]
    flat = values.reshape(-1) if values.flags.c_contiguous else None
    if flat is None:                        # a strided result: through a contiguous copy
        copy = np.ascontiguousarray(values)
        nudge(copy)
        values[...] = copy
        return
    for start in range(0, flat.size, CHUNK):
        _nudge_contiguous(flat[start:start + CHUNK], signed, width, bias)


def _nudge_contiguous(values, signed, width, bias):
    nbits = 8 * values.itemsize
    bits = values.view(signed)                    # the same memory: changed in place below
    exponent = bits & signed(((1 << (nbits - 1 - width)) - 1) << width)
    moved = (bits & signed((1 << (width // 2)) - 1)) != 0       # 0, inf: low bits all 0
    moved &= exponent != 0                                       # not subnormal
    moved &= exponent != signed(((1 << (nbits - 1 - width)) - 1) << width)   # inf, NaN
    # Only a value of 2**(width - width // 2) or more can be a whole number whose lower
    # half of significand bits is not all zeros (it has fewer fraction bits).
    large = exponent >= signed((width - width // 2 + bias) << width)
    if large.any():
        moved &= ~(large & (values == np.trunc(values)))
    np.bitwise_xor(bits, signed(1), out=bits, where=moved)


def _nudged_result(result, inputs, ctx=None):
    """What an op's forward (or backward on arrays) returned, its float results nudged in
    place: a new array, or a tensor made there (it may be saved for backward already).
    Whatever shares memory with an input (a view, the input itself) is left alone,
    unless the op changed that input in place (``elu_``): then that is its result."""
    if type(result) is tuple:
        return tuple([_nudged_result(r, inputs, ctx) for r in result])
    if any(result is t for t in getattr(ctx, "_dirty", None) or ()):
        inputs = ()
    if isinstance(result, np.floating):
        return type(result)(nudged(np.asarray(result))[()]) if result.dtype in _FORMATS \
            else result
    data = result if isinstance(result, np.ndarray) else getattr(result, "_data", None)
    if isinstance(data, np.ndarray) and data.dtype in _FORMATS and data.flags.writeable \
            and not _shares_memory(data, inputs):
        nudge(data)
    return result


def _arrays_of(args):
    for a in args:
        data = getattr(a, "_data", a)
        if isinstance(data, np.ndarray):
            yield data
        elif isinstance(a, (tuple, list)):
            yield from _arrays_of(a)


def _shares_memory(array, inputs):
    return any(np.may_share_memory(array, a) for a in _arrays_of(inputs))


# ----- putting it into minitorch --------------------------------------------------------

def _raw_attribute(cls, name):
    """``name`` as written in the class body (a staticmethod, a classmethod...), from the
    first class in the MRO that defines it."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    raise AttributeError(name)


def _wrapping(cls, name, make):
    """Replace ``cls.<name>`` (a staticmethod or classmethod, maybe inherited) by
    ``make(function)``, of the same kind; ``inspect`` still finds the original source.
    With ``make`` None, an inherited wrapper is replaced by what it wraps (an exact op
    that inherits an inexact one's forward, as the paddings do SeparableLinearMap's)."""
    raw = _raw_attribute(cls, name)
    function = getattr(raw, "__func__", raw)
    if function is None:
        return
    inherited = function.__dict__.get("_nudges")
    if inherited:
        function = function.__wrapped__
    elif make is None:
        return
    wrapper = function if make is None else make(function)
    if make is not None:
        functools.update_wrapper(wrapper, function)
        wrapper._nudges = True
    setattr(cls, name, classmethod(wrapper) if isinstance(raw, classmethod)
            else staticmethod(wrapper))


def _nudging_forward(added_after):
    def make(function):
        def forward(*args):
            ctx, inputs = (args[1], args[2:]) if args and isinstance(args[0], type) \
                else (args[0], args[1:])
            if added_after is None:
                return _nudged_result(function(*args), inputs, ctx)
            # only the other term is inexact: compute it alone, nudge it, then add
            first = len(args) - len(inputs)
            term = inputs[added_after]
            alone = list(args)
            alone[first + added_after] = type(term)._wrap(np.zeros_like(term._data))
            result = _nudged_result(function(*alone), inputs, ctx)
            result += term._data
            return result
        return forward
    return make


def _nudging_backward(always):
    def make(function):
        def backward_on_arrays(*args):                 # (ctx, grad)
            results, grad = function(*args), args[-1]
            many = type(results) is tuple
            results = [_reduced_or(always, r, grad) for r in (results if many else
                                                                (results,))]
            return tuple(results) if many else results[0]
        return backward_on_arrays
    return make


def _reduced_or(always, result, grad):
    """``result`` nudged if the op's backward is inexact, or if it sums ``grad`` over the
    dimensions forward broadcast (it has fewer values)."""
    if isinstance(result, np.ndarray) and (always or result.size < np.size(grad)):
        return _nudged_result(result, (grad,))
    return result


def patch(cls):
    """Perturb one Function subclass as it is defined (see the module's docstring)."""
    if is_inexact(cls):
        added_after = ADDED_AFTER.get((cls.__module__, cls.__name__))
        _wrapping(cls, "forward", _nudging_forward(added_after))
    else:
        _wrapping(cls, "forward", None)
    if getattr(cls, "backward_on_arrays", None) is not None:
        _wrapping(cls, "backward_on_arrays",
                  _nudging_backward(is_inexact(cls, BACKWARD_INEXACT)))


def _on_function_module(module):
    """After minitorch.autograd.function ran: patch each Function class as it is made."""
    meta = module.FunctionMeta
    original_init = meta.__init__

    def __init__(cls, name, bases, attrs):
        original_init(cls, name, bases, attrs)
        patch(cls)
    meta.__init__ = __init__
    for cls in _subclasses(module.Function):        # none yet, unless imported early
        patch(cls)


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


class _WhenImported(importlib.abc.MetaPathFinder):
    """Runs ``action(module)`` right after the module ``name`` is executed."""

    def __init__(self, name, action):
        self.name, self.action = name, action

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        execute, action = spec.loader.exec_module, self.action

        def exec_module(module):
            execute(module)
            action(module)
        spec.loader.exec_module = exec_module
        sys.meta_path.remove(self)
        return spec


FUNCTION_MODULE = "minitorch.autograd.function"
_installed = []


def install():
    """Perturb minitorch in this process. Must run before minitorch is imported."""
    if _installed:
        return
    if FUNCTION_MODULE in sys.modules:
        raise RuntimeError("minitorch_ulp.install() must run before minitorch is imported "
                           "(put scripts/perturb on PYTHONPATH and set "
                           f"{MODE_VARIABLE}=ulp)")
    sys.meta_path.insert(0, _WhenImported(FUNCTION_MODULE, _on_function_module))
    _installed.append("ulp")


def active():
    """The mode installed in this process ("ulp"), or None."""
    return _installed[0] if _installed else None


def install_from_environment():
    """Install the mode ``MINITORCH_PERTURB`` names; an unknown one stops the process,
    so that a typo never runs the tests unperturbed while claiming otherwise."""
    mode = os.environ.get(MODE_VARIABLE, "")
    if not mode:
        return
    if mode not in MODES:
        sys.stderr.write(f"{MODE_VARIABLE}={mode!r}: unknown mode; the one there is: "
                         f"{', '.join(MODES)}\n")
        sys.stderr.flush()
        os._exit(2)             # (at start-up, SystemExit would be reported as a crash)
    install()
