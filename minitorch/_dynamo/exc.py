"""The errors ``minitorch.compile`` raises (chapter 19), with PyTorch's names and types."""

__all__ = ["TorchDynamoException", "Unsupported", "BackendCompilerFailed",
           "RecompileLimitExceeded", "RecompileError", "UserError", "InvalidBackend"]


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    """The captured code needs something a graph cannot hold (with ``fullgraph=True``,
    a graph break)."""


class BackendCompilerFailed(TorchDynamoException):
    """A backend raised while compiling a captured graph."""

    def __init__(self, backend_name, inner):
        self.backend_name, self.inner_exception = backend_name, inner
        super().__init__(f"backend={backend_name!r} raised:\n{type(inner).__name__}: {inner}")


class InvalidBackend(TorchDynamoException):
    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `minitorch._dynamo.list_backends()` "
                         "for available backends.")


class RecompileLimitExceeded(Unsupported):
    pass


class RecompileError(TorchDynamoException):
    """A compiled function would capture again, and ``config.error_on_recompile`` is set:
    the message lists why each cached capture could not be replayed."""


class UserError(TorchDynamoException):
    pass
