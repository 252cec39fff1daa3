"""``optim.lr_scheduler``: change the learning rate as training goes (chapter 9, "Optimizers").

A scheduler owns no parameters: it rewrites ``group["lr"]`` in its
optimizer's ``param_groups``.  The loop is

    for epoch in range(n):
        train_one_epoch(model, optimizer)      # optimizer.step() many times
        scheduler.step()                       # then move to the next rate

Each scheduler remembers ``base_lrs`` (the groups' ``"initial_lr"``, which
it adds to them) and ``last_epoch`` (how many times ``step()`` ran; building
the scheduler counts as the step to epoch 0).  ``get_last_lr()`` gives the
rates it set last; ``state_dict()`` is every attribute but the optimizer.

Most schedulers compute the next rate from the current one ("chainable"):
``ExponentialLR`` multiplies ``group["lr"]`` by ``gamma`` each step, so
two schedulers on one optimizer combine.  The formulas below give the same
floating-point numbers as PyTorch's, step after step.
"""

import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter

from .. import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR",
           "LinearLR", "ReduceLROnPlateau"]

_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call `optimizer.step()` "
    "first and `lr_scheduler.step()` after it (the order PyTorch requires since version 1.1.0); "
    "in the other order the first value of the learning rate schedule is skipped.")
_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization, so the scheduler cannot tell whether it ran. Make sure to call "
    "`optimizer.step()` before `lr_scheduler.step()`.")
_EPOCH_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Call `scheduler.step()` without it. Until then, when an epoch is given the "
    "scheduler's closed form is used, where it has one, instead of the chainable form.")
_GET_LR_WARNING = ("To get the last learning rate computed by the scheduler, please use "
                   "`get_last_lr()`.")


def _copy(value):
    """A learning rate that cannot alias the optimizer's (tensors are cloned)."""
    return value.clone() if isinstance(value, Tensor) else value


def _group_values(optimizer, key):
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group, key, value):
    """Store a new rate; a tensor rate is overwritten in place, as PyTorch does."""
    if isinstance(group[key], Tensor):
        group[key].fill_(float(value))
    else:
        group[key] = value


def _track_optimizer_steps(optimizer):
    """Wrap ``optimizer.step`` (on this instance) so that it records that it ran.

    The scheduler uses the record only to warn about calling
    ``scheduler.step()`` before ``optimizer.step()``.  The wrapper holds the
    optimizer weakly, to add no reference cycle.
    """
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    step_function = optimizer.step.__func__
    optimizer_ref = weakref.ref(optimizer)

    @functools.wraps(step_function)
    def step_and_record(*args, **kwargs):
        opt = optimizer_ref()
        opt._opt_called = True
        return step_function(opt, *args, **kwargs)

    step_and_record._wrapped_by_lr_sched = True
    optimizer.step = step_and_record


class LRScheduler:
    """Base class: subclasses define ``get_lr()``, the rates of the next epoch."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            _check_resumable(optimizer)
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Building a scheduler steps it once, to epoch 0 (setting the first rates)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates this scheduler set last, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        """The rates for the epoch ``last_epoch`` (called by ``step``); subclasses define it."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Move to the next epoch and write its learning rates into the optimizer."""
        if self._step_count == 1:
            self._warn_if_optimizer_did_not_step()
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self._get_lr_called_within_step = True
        try:
            values = self._next_values(epoch)
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def _next_values(self, epoch):
        if epoch is None:
            self.last_epoch += 1
            return self.get_lr()
        self.last_epoch = epoch
        closed_form = getattr(self, "_get_closed_form_lr", None)
        return closed_form() if closed_form is not None else self.get_lr()

    def _warn_if_optimizer_did_not_step(self):
        if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
            warnings.warn(_OVERRIDDEN_WARNING, UserWarning, stacklevel=3)
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=3)

    def _warn_unless_in_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=3)


_LRScheduler = LRScheduler


def _check_resumable(optimizer):
    """Resuming (``last_epoch >= 0``) needs the ``initial_lr`` a first scheduler stored."""
    for i, group in enumerate(optimizer.param_groups):
        if "initial_lr" not in group:
            raise KeyError(
                f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler "
                "with last_epoch >= 0. Load the optimizer's state_dict from the checkpoint first, "
                "or build a fresh schedule with last_epoch=-1.")


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``: any schedule written as a function."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, "
                                 f"but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """As the base class, but functions cannot be saved: ``lr_lambdas`` holds None for
        each plain function and the attributes of each callable object."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, saved_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self):
        self._warn_unless_in_step()
        return [base_lr * fn(self.last_epoch)
                for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_unless_in_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        decays = self.last_epoch // self.step_size
        return [base_lr * self.gamma ** decays for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch listed in ``milestones`` (a repeated
    milestone multiplies by ``gamma`` once per repetition)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_unless_in_step()
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        # Counter() again: a state_dict saved with minitorch.save comes back as a plain dict.
        passed = bisect_right(sorted(Counter(self.milestones).elements()), self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_unless_in_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate by a factor going linearly from ``start_factor`` to ``end_factor``
    over ``total_iters`` epochs (a warm-up, with the defaults), then keep it."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_unless_in_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        # The ratio of this epoch's factor to the previous one.
        change = self.end_factor - self.start_factor
        previous = self.total_iters * self.start_factor + (self.last_epoch - 1) * change
        return [group["lr"] * (1.0 + change / previous) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        done = min(self.total_iters, self.last_epoch)
        factor = self.start_factor + (self.end_factor - self.start_factor) * done / self.total_iters
        return [base_lr * factor for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Follow half a cosine from the initial rate down to ``eta_min`` in ``T_max`` epochs,
    then back up, and so on:
    ``eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_unless_in_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:      # resumed: start from the closed form
            return self._get_closed_form_lr()
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:    # leaving the minimum
            rise = 1 - math.cos(math.pi / self.T_max)
            return [group["lr"] + (base_lr - self.eta_min) * rise / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
        ratio = ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                 / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)))
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        cosine = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [self.eta_min + (base_lr - self.eta_min) * cosine / 2 for base_lr in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when a metric has stopped improving.

    Call ``scheduler.step(metric)`` once per epoch (with a validation loss,
    say).  After more than ``patience`` epochs without an improvement larger
    than ``threshold`` (relative, or absolute with ``threshold_mode="abs"``),
    each group's rate is reduced, never below its ``min_lr``; then
    ``cooldown`` epochs pass before bad epochs count again.  ``mode="max"``
    is for metrics that should grow (accuracy).
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != groups:
                raise ValueError(f"expected {groups} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * groups
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Record this epoch's metric and reduce the rates if it has plateaued."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self):
        groups = len(self.optimizer.param_groups)
        if groups != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({groups}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually because a "
                    "param group was added to the optimizer. Set the scheduler's `min_lrs` to one "
                    "value per param group.")
            self.min_lrs = [self.default_min_lr] * groups
        for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, current, best):
        """Better than ``best`` by more than the threshold (relative or absolute)."""
        relative = self.threshold_mode == "rel"
        if self.mode == "min":
            return current < (best * (1.0 - self.threshold) if relative else best - self.threshold)
        return current > (best * (1.0 + self.threshold) if relative else best + self.threshold)

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
