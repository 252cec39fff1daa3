"""``Dim``: a size that an exported program leaves free (chapter 19)."""

import math

__all__ = ["Dim", "ValueRange"]


class Dim:
    """``Dim("batch", min=2, max=64)``: the sizes an exported input may have in one dim."""

    def __init__(self, name, *, min=None, max=None):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Dim's name must be a Python identifier, got {name!r}")
        low = 0 if min is None else int(min)
        high = math.inf if max is None else int(max)
        if low > high:
            raise ValueError(f"Dim {name}: min={low} is more than max={high}")
        self.__name__, self.min, self.max = name, low, high

    def __repr__(self):
        parts = [repr(self.__name__)]
        if self.min != 0 and self.min != 2:
            parts.append(f"min={self.min}")
        elif self.min == 0 and self.max == math.inf:
            parts.append("min=0")
        if self.max != math.inf:
            parts.append(f"max={self.max}")
        return f"Dim({', '.join(parts)})"


class ValueRange:
    """The sizes a symbol may take: ``VR[2, 64]``."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def __repr__(self):
        upper = "int_oo" if self.upper == math.inf else self.upper
        return f"VR[{self.lower}, {upper}]"

    def __eq__(self, other):
        return isinstance(other, ValueRange) and (self.lower, self.upper) == \
            (other.lower, other.upper)
