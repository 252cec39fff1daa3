"""RemovableHandle: what every ``register_*_hook`` returns (chapters 3 and 5).

Hooks live in plain dicts keyed by an integer id.  The handle remembers the
id and (weakly) the dicts it was put in, so ``handle.remove()`` deletes the
hook again without keeping the owner alive.
"""

import itertools
import weakref

__all__ = ["RemovableHandle"]

_next_id = itertools.count()


class RemovableHandle:
    """Removes a registered hook: call ``remove()`` or leave a ``with`` block."""

    __slots__ = ("id", "_dict_refs")

    def __init__(self, hooks_dict, *extra_dicts):
        self.id = next(_next_id)
        self._dict_refs = tuple(weakref.ref(d) for d in (hooks_dict,) + extra_dicts)

    def remove(self):
        for ref in self._dict_refs:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class _HookDict(dict):
    """A dict that can be referenced weakly (plain dicts cannot)."""
    __slots__ = ("__weakref__",)


def hook_dict():
    """A new, empty, weak-referenceable hook registry."""
    return _HookDict()
