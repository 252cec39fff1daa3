"""Sizes that remember where they came from (chapter 19: dynamic shapes).

When a compiled call may be replayed with other sizes, a size read while capturing
must not become a constant.  In a capture with dynamic sizes, ``x.shape`` gives
``SymInt``\\ s: ints with their true value, which also carry an *expression*
saying how to compute them from the values of the call (``("size", value, dim)``:
dim ``dim`` of a value; or an arithmetic op on two expressions).  ``B, T, C =
x.size()`` then ``x.view(B * T, C)`` records ``view(x, (sym_size(x, 0) *
sym_size(x, 1), sym_size(x, 2)))``, which is right for every size.

Python can still *compare* a SymInt (``if T > block_size:``): the comparison is
answered with the true value, and remembered (``guards``), so that an exported
program can check it again.
"""

import operator

__all__ = ["SymInt", "GuardOnDataDependentSymNode", "ConstraintViolationError",
           "evaluate", "expression_text"]


class GuardOnDataDependentSymNode(RuntimeError):
    """Python asked for a value that depends on the data (not only on sizes) while a
    program was being exported."""


class ConstraintViolationError(RuntimeError):
    """A size marked dynamic turned out to be fixed by the program (or out of range)."""


class SymInt(int):
    """An int with an expression: see the module's docstring."""

    def __new__(cls, value, expr, guards=None):
        obj = int.__new__(cls, value)
        obj.expr = expr
        obj.guards = guards
        return obj

    def __repr__(self):
        return int.__repr__(self)

    def __index__(self):
        return int(self)

    def __hash__(self):
        return int.__hash__(self)

    def _compare(self, other, op, symbol):
        result = op(int(self), int(other))
        if self.guards is not None:
            self.guards.append((self.expr, symbol, _expr(other), result))
        return result

    def __bool__(self):
        return int(self) != 0


def _expr(x):
    return x.expr if isinstance(x, SymInt) else int(x)


def _arithmetic(op, symbol, reflected=False):
    def method(self, other):
        if not isinstance(other, int) or isinstance(other, bool):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        value = op(int(a), int(b))
        return SymInt(value, (symbol, _expr(a), _expr(b)), self.guards)
    return method


_ARITHMETIC = {"add": (operator.add, "+"), "sub": (operator.sub, "-"),
               "mul": (operator.mul, "*"), "floordiv": (operator.floordiv, "//"),
               "mod": (operator.mod, "%")}
for _name, (_op, _symbol) in _ARITHMETIC.items():
    setattr(SymInt, f"__{_name}__", _arithmetic(_op, _symbol))
    setattr(SymInt, f"__r{_name}__", _arithmetic(_op, _symbol, reflected=True))
for _name, (_op, _symbol) in {"eq": (operator.eq, "=="), "ne": (operator.ne, "!="),
                              "lt": (operator.lt, "<"), "le": (operator.le, "<="),
                              "gt": (operator.gt, ">"), "ge": (operator.ge, ">=")}.items():
    setattr(SymInt, f"__{_name}__",
            lambda self, other, _op=_op, _symbol=_symbol: self._compare(other, _op, _symbol)
            if isinstance(other, int) else NotImplemented)
del _name, _op, _symbol

OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul,
             "//": operator.floordiv, "%": operator.mod}


def evaluate(expr, size_of):
    """The value of ``expr`` now; ``size_of(value, dim)`` gives a size."""
    if isinstance(expr, int):
        return expr
    if expr[0] == "size":
        return size_of(expr[1], expr[2])
    return OPERATORS[expr[0]](evaluate(expr[1], size_of), evaluate(expr[2], size_of))


def expression_text(expr, name_of):
    if isinstance(expr, int):
        return str(expr)
    if expr[0] == "size":
        return f"{name_of(expr[1])}.size({expr[2]})"
    return f"({expression_text(expr[1], name_of)} {expr[0]} " \
           f"{expression_text(expr[2], name_of)})"
