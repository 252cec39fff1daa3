"""``autograd.profiler``: accepted, records nothing (chapter 4).

PyTorch's profiler times every operation run inside ``with profile():``.
minitorch keeps no timings: the context managers exist so that code that
profiles a loop still runs (the loop runs as usual); asking for the results
says that there are none.  Time a loop with ``time.perf_counter()`` instead.
"""

__all__ = ["profile", "record_function"]


class profile:
    """``with profile(...) as prof:``: runs the block; minitorch records no events."""

    def __init__(self, enabled=True, *, use_cuda=False, **options):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def _no_events(self, *args, **kwargs):
        raise NotImplementedError("minitorch's profiler records no events; time the code "
                                  "with time.perf_counter() instead")

    key_averages = table = events = export_chrome_trace = _no_events


class record_function:
    """``with record_function("label"):``: a label for the profiler, which records nothing."""

    def __init__(self, name, args=None):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
