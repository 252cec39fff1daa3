"""The machinery of the misuse tables (tests/test_misuse.py and the ``test_misuse_*``
modules): each row is a callable, the exception type PyTorch raises, and a regex
the message must match where PyTorch's wording matters.

A row is written as source text (``"torch.ones(2)[5]"``, or a few statements) and
compiled into a function, so the table reads like the calls a student makes and
the test id is the call itself.  Besides the type and the wording, every message
must be a sentence for a person, not a numpy or Python internals error leaking
through: see ``assert_readable``.
"""

import math
import re
import textwrap

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F

# Fragments that betray an internal error reaching the user instead of a message
# written for them.  (Rows whose PyTorch message itself contains one set plain=False.)
BARE_FRAGMENTS = ("numpy", "ndarray", "np.", "has no attribute", "tuple index out of range", "axis",
                  "ufunc", "<lambda>", "<locals>", "object is not subscriptable", "object is not iterable",
                  "unhashable type", "positional argument but", "cannot reshape array", "broadcast together")


class Row:
    """One misuse: ``source`` (run as a function body), PyTorch's exception type,
    a regex for the message (or None), and whether the readability check applies."""

    def __init__(self, source, kind, pattern=None, plain=True, note="", mark=None):
        self.source = textwrap.dedent(source).strip()
        self.kind = kind
        self.pattern = pattern
        self.plain = plain
        self.note = note
        self.mark = mark        # e.g. pytest.mark.task("6.8"): the course task that grades it

    def call(self, namespace):
        body = textwrap.indent(self.source, "    ")
        code = compile(f"def _row():\n{body}\n", f"<row {self.source[:40]!r}>", "exec")
        scope = dict(namespace)
        exec(code, scope)
        return scope["_row"]()

    @property
    def id(self):
        text = " | ".join(line.strip() for line in self.source.splitlines())
        return text if len(text) <= 90 else text[:87] + "..."


def namespace(**extra):
    """The names a row can use: torch (minitorch), nn, F, np, math, plus ``extra``."""
    return dict(torch=torch, nn=nn, F=F, np=np, math=math, **extra)


def params(rows):
    return [pytest.param(row, id=row.id, marks=[row.mark] if row.mark else []) for row in rows]


def assert_readable(message):
    """A sentence for a person: some words, and no internal error leaking through."""
    words = re.findall(r"[A-Za-z]{2,}", message)
    assert len(words) >= 3, f"the message is not a sentence: {message!r}"
    lowered = message.lower()
    for fragment in BARE_FRAGMENTS:
        assert fragment not in lowered, f"the message shows an internal error ({fragment!r}): {message!r}"


def check(row, names):
    """Run ``row`` and check the exception's type, wording and readability."""
    with pytest.raises(Exception) as info:
        row.call(names)
    error = info.value
    assert isinstance(error, row.kind), (
        f"PyTorch raises {row.kind.__name__}; got {type(error).__module__}.{type(error).__name__}: {error}")
    assert not type(error).__module__.startswith("numpy"), f"a numpy exception leaked: {error!r}"
    message = str(error)
    if row.pattern is not None:
        assert re.search(row.pattern,
                         message), f"message {message!r} does not match {row.pattern!r}"
    if row.plain:
        assert_readable(message)
