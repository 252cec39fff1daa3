"""Recurrent layers: ``RNN``, ``GRU``, ``LSTM`` and their one-step ``Cell``s (Part V, the
recurrent-layers chapter).

A recurrent layer reads a sequence one position at a time and carries a hidden
state ``h`` from each step to the next:

    RNN:   h' = tanh(W_ih x + b_ih + W_hh h + b_hh)
    GRU:   r, z = sigmoid(...), n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
           h' = (1 - z) * n + z * h
    LSTM:  i, f, g, o = gates;  c' = f * c + i * g;  h' = o * tanh(c')

Everything is written with ordinary tensor operations, so backpropagation
through time is just the engine walking back through the loop.  Only the input
projection ``W_ih x`` is done for all positions at once, before the loop.

Parameter names and shapes are PyTorch's (``weight_ih_l0``, ``weight_hh_l1_reverse``,
... with the gates stacked in PyTorch's order), and so is the initialisation:
every parameter uniform in ``±1/sqrt(hidden_size)``.
"""

import math
import numbers
import warnings

from ..._creation import empty, zeros
from ..._functions import stack, cat
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "GRU", "LSTM", "RNNCellBase", "RNNCell", "GRUCell", "LSTMCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


# ----- one step of each kind ----------------------------------------------------------------
def _rnn_step(activation):
    def step(x_part, h, w_hh, b_hh):
        return activation(x_part + F.linear(h, w_hh, b_hh))
    return step


def _gru_step(x_part, h, w_hh, b_hh):
    """``x_part`` is ``W_ih x + b_ih`` (the three gates side by side)."""
    h_part = F.linear(h, w_hh, b_hh)
    x_r, x_z, x_n = x_part.chunk(3, -1)
    h_r, h_z, h_n = h_part.chunk(3, -1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (1 - z) * n + z * h


def _lstm_step(x_part, state, w_hh, b_hh):
    """``state`` is ``(h, c)``; returns the new ``(h, c)``."""
    ### BEGIN SOLUTION 16.1
    h, c = state
    gates = x_part + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c
    ### END SOLUTION 16.1


# ----- the multi-layer modules -----------------------------------------------------------------
class RNNBase(Module):
    """What ``RNN``, ``GRU`` and ``LSTM`` share: the parameters of every layer and
    direction, the checks of inputs and states, and the loop over layers."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        _check_sizes(input_size, hidden_size, num_layers, dropout, proj_size)
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                          stacklevel=3)
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        out_size = self._out_size                   # h's size: proj_size when projecting
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else out_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, out_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(empty(*shape, dtype=dtype)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    @property
    def _out_size(self):
        """The size of ``h`` (and of each direction's output): ``proj_size`` for an LSTM
        with projections (``h = W_hr (o * tanh(c))``), else ``hidden_size``."""
        return self.proj_size if self.proj_size > 0 else self.hidden_size

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters grouped per layer and direction, as PyTorch lists them."""
        per = (4 if self.bias else 2) + (1 if self.proj_size > 0 else 0)
        flat = self._flat_weights
        return [flat[i:i + per] for i in range(0, len(flat), per)]

    def reset_parameters(self):
        """Every parameter uniform in ``±1/sqrt(hidden_size)``, as in PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout:g}" if self.dropout != int(self.dropout) \
                else f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- the computation ---
    def _step(self):
        """The step function of this module's kind: ``_lstm_step``, ``_gru_step``, or an
        Elman step with tanh or relu."""
        ### BEGIN SOLUTION 16.1
        if self.mode == "LSTM":
            return _lstm_step
        if self.mode == "GRU":
            return _gru_step
        return _rnn_step(F.relu if self.mode == "RNN_RELU" else F.tanh)
        ### END SOLUTION 16.1

    def _weights(self, layer, direction):
        """``[weight_ih, weight_hh, bias_ih, bias_hh]`` of one layer and direction (names
        ``weight_ih_l0``, ``weight_hh_l1_reverse``...; the biases None without ``bias``), and
        ``weight_hr`` of it, the LSTM's projection (None without ``proj_size``)."""
        ### BEGIN SOLUTION 16.1
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        weights = [getattr(self, n + suffix, None) if self.bias or n.startswith("weight")
                   else None for n in names]
        projection = getattr(self, "weight_hr" + suffix) if self.proj_size > 0 else None
        return weights, projection
        ### END SOLUTION 16.1

    def _stepper(self, w_hh, b_hh, w_hr):
        """One step of this layer and direction: ``(x_part, state) -> state``, with the
        projection of ``h`` when the LSTM has one."""
        step = self._step()
        if w_hr is None:
            return lambda x_part, state: step(x_part, state, w_hh, b_hh)

        def projected(x_part, state):
            h, c = step(x_part, state, w_hh, b_hh)
            return F.linear(h, w_hr), c
        return projected

    def _run(self, input, states):
        """``input`` (L, N, H_in); ``states`` one per layer and direction (a tensor, or
        ``(h, c)`` for LSTM).  Returns the last layer's outputs and the final states.

        Layer ``l + 1`` reads layer ``l``'s outputs (both directions side by side).  With
        ``dropout`` > 0, in training only, those outputs go through ``F.dropout`` on their
        way to the next layer: after every layer but the last, so the returned outputs are
        never dropped, and neither are the final states."""
        ### BEGIN SOLUTION 16.1
        directions = 2 if self.bidirectional else 1
        finals = []
        x = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                (w_ih, w_hh, b_ih, b_hh), w_hr = self._weights(layer, direction)
                step = self._stepper(w_hh, b_hh, w_hr)
                x_parts = F.linear(x, w_ih, b_ih)           # every position at once
                state = states[layer * directions + direction]
                order = range(x.shape[0] - 1, -1, -1) if direction else range(x.shape[0])
                seen = [None] * x.shape[0]
                for t in order:
                    state = step(x_parts[t], state)
                    seen[t] = state[0] if self.mode == "LSTM" else state
                outputs.append(stack(seen) if seen else x_parts[:, :, :self._out_size])
                finals.append(state)
            x = outputs[0] if directions == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals
        ### END SOLUTION 16.1

    def forward(self, input, hx=None):
        """``(output, h_n)`` (``(output, (h_n, c_n))`` for LSTM), as PyTorch's modules.

        ``input`` is ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, or ``(L, H_in)``
        unbatched (then every result has no batch dim either); other numbers of dims are a
        ValueError whose message starts with the class's name: "LSTM: Expected input to be
        2D or 3D, got 4D instead" (the same for GRU; RNN's says "got 4D tensor
        instead").  ``hx`` (checked by ``_check_input``/``_initial_states``; zeros when
        None) holds a state per layer and direction.  ``output`` is the last layer's output at every position (both directions
        side by side); ``h_n`` (and ``c_n``) stack the final state of every layer and
        direction, in the order of ``hx``."""
        ### BEGIN SOLUTION 16.1
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        name = type(self).__name__
        if input.ndim not in (2, 3):
            tensor = " tensor" if name == "RNN" else ""     # PyTorch 2.13's own wording
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D"
                             f"{tensor} instead")
        batched = input.ndim == 3
        if batched and self.batch_first:
            input = input.transpose(0, 1)
        if not batched:
            input = input.unsqueeze(1)
        self._check_input(input)
        states = self._initial_states(input, hx, batched)
        out, finals = self._run(input, states)
        if self.mode == "LSTM":
            hidden = (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        else:
            hidden = stack(finals)
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(1)
            hidden = tuple(h.squeeze(1) for h in hidden) if self.mode == "LSTM" \
                else hidden.squeeze(1)
        return out, hidden
        ### END SOLUTION 16.1

    def _check_input(self, input):
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _initial_states(self, input, hx, batched):
        """One state per layer and direction: zeros, or slices of ``hx``."""
        count = self.num_layers * (2 if self.bidirectional else 1)
        shape = (count, input.shape[1], self._out_size)
        if hx is None:
            h0 = zeros(*shape, dtype=input.dtype)
            if self.mode == "LSTM":
                c0 = zeros(count, input.shape[1], self.hidden_size, dtype=input.dtype) \
                    if self.proj_size > 0 else h0
                return list(zip(h0.unbind(0), c0.unbind(0)))
            return list(h0.unbind(0))
        if self.mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise RuntimeError("LSTM expects hx as a tuple (h_0, c_0) of two tensors")
            shapes = (shape, shape[:2] + (self.hidden_size,))
            hs = [self._check_state(h, size, batched, f"hidden[{i}]")
                  for i, (h, size) in enumerate(zip(hx, shapes))]
            return list(zip(hs[0].unbind(0), hs[1].unbind(0)))
        return list(self._check_state(hx, shape, batched, "hidden").unbind(0))

    # --- packed sequences ---
    def _forward_packed(self, packed, hx):
        """A ``PackedSequence`` in, one out (same ``batch_sizes`` and indices): each
        sequence runs for its own length (chapter 16c, "Packing: each sequence runs for
        its own length").  ``hx`` and the final states are in the batch's original order;
        inside, the sequences are longest first (``permute_hidden``).  Packed ``data``
        that is not 2-D is a RuntimeError ("input must have 2 dimensions, got <n>"); ``hx``
        is checked against the batch (``_initial_states``) before it is permuted."""
        ### BEGIN SOLUTION 16.1
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if data.ndim != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.ndim}")
        self._check_input(data)
        sizes = [int(n) for n in batch_sizes.tolist()]
        if hx is not None:          # checked before the permutation, which would fail first
            self._initial_states(data[:sizes[0]].unsqueeze(0), hx, True)
            hx = self.permute_hidden(hx, sorted_indices)
        states = self._initial_states(data[:sizes[0]].unsqueeze(0), hx, True)
        out, finals = self._run_packed(data, sizes, states)
        if self.mode == "LSTM":
            hidden = (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        else:
            hidden = stack(finals)
        hidden = self.permute_hidden(hidden, unsorted_indices)
        return PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices), hidden
        ### END SOLUTION 16.1

    def permute_hidden(self, hx, permutation):
        """``hx`` with its batch (dim 1) in the order ``permutation`` (None: unchanged);
        for an LSTM, ``(h, c)`` both."""
        if permutation is None:
            return hx
        if self.mode == "LSTM" and isinstance(hx, (tuple, list)):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def flatten_parameters(self):
        """PyTorch puts the weights in one block of GPU memory for cuDNN here, and does
        nothing on the CPU; so does minitorch, so that code calling it runs."""

    def _run_packed(self, data, sizes, states):
        """``_run`` on packed rows: at step ``t`` only the first ``sizes[t]`` sequences
        move.  Forward, the others keep their state; backward (``_reverse``), a sequence
        starts from its initial state at its own last step (``_packed_forward`` and
        ``_packed_backward`` walk one direction).  ``data`` holds the rows of step 0,
        then of step 1...; returns the last layer's rows in that order and the final
        states, one per layer and direction.  Dropout between layers as in ``_run``."""
        ### BEGIN SOLUTION 16.1
        directions = 2 if self.bidirectional else 1
        starts = [0]
        for n in sizes:
            starts.append(starts[-1] + n)
        finals, x = [], data
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                (w_ih, w_hh, b_ih, b_hh), w_hr = self._weights(layer, direction)
                step = self._stepper(w_hh, b_hh, w_hr)
                x_parts = F.linear(x, w_ih, b_ih)           # every step at once
                rows = [x_parts[starts[t]:starts[t + 1]] for t in range(len(sizes))]
                run = _packed_backward if direction else _packed_forward
                seen, state = run(step, rows, sizes, states[layer * directions + direction])
                outputs.append(cat([s[0] if self.mode == "LSTM" else s for s in seen]))
                finals.append(state)
            x = outputs[0] if directions == 1 else cat(outputs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals
        ### END SOLUTION 16.1

    @staticmethod
    def _check_state(h, shape, batched, what):
        if not batched:
            if h.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{h.ndim}-D tensor")
            h = h.unsqueeze(1)
        elif h.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                               f"{h.ndim}-D tensor")
        if tuple(h.shape) != shape:
            raise RuntimeError(f"Expected {what} size {shape}, got {list(h.shape)}")
        return h


def _rows(state, start, stop):
    """Rows ``start:stop`` of a state (a tensor, or LSTM's ``(h, c)``)."""
    if isinstance(state, tuple):
        return tuple(s[start:stop] for s in state)
    return state[start:stop]


def _joined(first, second):
    if isinstance(first, tuple):
        return tuple(cat([a, b]) for a, b in zip(first, second))
    return cat([first, second])


def _packed_forward(step, rows, sizes, state):
    """Steps ``0, 1, ...``: the running sequences move, the finished keep their state."""
    seen = []
    for t, n in enumerate(sizes):
        moved = step(rows[t], _rows(state, 0, n))
        seen.append(moved)
        state = moved if n == sizes[0] else _joined(moved, _rows(state, n, sizes[0]))
    return seen, state


def _packed_backward(step, rows, sizes, initial):
    """Steps ``..., 1, 0``: a sequence joins, from its initial state, at its last step."""
    seen = [None] * len(sizes)
    state = _rows(initial, 0, 0)
    for t in range(len(sizes) - 1, -1, -1):
        running = sizes[t + 1] if t + 1 < len(sizes) else 0
        if sizes[t] > running:
            state = _joined(state, _rows(initial, running, sizes[t]))
        state = step(rows[t], state)
        seen[t] = state
    return seen, state


def _check_sizes(input_size, hidden_size, num_layers, dropout, proj_size):
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
            or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable "
                         "projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _refuse_projection(kwargs):
    """RNN and GRU have no projection: ``proj_size`` (any value, as in PyTorch) is refused
    with PyTorch's ValueError; any other unknown keyword with Python's TypeError."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError("RNNBase.__init__() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")


class RNN(RNNBase):
    """The Elman RNN: ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (or relu)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None,
                 **only_lstm):
        _refuse_projection(only_lstm)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, dtype=dtype)

    def extra_repr(self):
        s = super().extra_repr()
        return s + ", nonlinearity='relu'" if self.nonlinearity != "tanh" else s


class GRU(RNNBase):
    """Gated recurrent unit: a reset gate ``r`` and an update gate ``z`` (PyTorch's order
    of the stacked gates: r, z, n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, **only_lstm):
        _refuse_projection(only_lstm)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory: a cell state ``c`` next to ``h``, changed only by the gates
    (PyTorch's order of the stacked gates: i, f, g, o).  Returns
    ``(output, (h_n, c_n))``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, dtype=dtype)


# ----- cells -------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """One step of a recurrent layer: ``weight_ih``, ``weight_hh``, ``bias_ih``,
    ``bias_hh``, initialised as the layers' are."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input, hx):
        """Checks; a 1-d input as a batch of one; the zero state when ``hx`` is None."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        states = hx if isinstance(hx, tuple) else (hx,)
        prepared = []
        for h in states:
            if h is None:
                h = zeros(x.shape[0], self.hidden_size, dtype=input.dtype)
            elif not batched:
                h = h.unsqueeze(0)
            if h.shape[0] != x.shape[0]:
                raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden0 batch "
                                   f"size {h.shape[0]}")
            prepared.append(h)
        return x, prepared, batched

    def _part(self, x):
        return F.linear(x, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, dtype=dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx)
        activation = F.tanh if self.nonlinearity == "tanh" else F.relu
        h = _rnn_step(activation)(self._part(x), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, dtype=dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx)
        h = _gru_step(self._part(x), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """Returns ``(h', c')``; ``hx`` is ``(h, c)`` or None."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, dtype=dtype)

    def forward(self, input, hx=None):
        """One step: ``(h', c')`` from ``input`` (``(N, H_in)`` or ``(H_in)``) and ``hx =
        (h, c)`` (zeros when None), by ``_lstm_step``; unbatched in, unbatched out."""
        x, (h, c), batched = self._prepare(input, (None, None) if hx is None else tuple(hx))
        h, c = _lstm_step(self._part(x), (h, c), self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))
