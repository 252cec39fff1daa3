"""``nn.Dropout``: behaves differently in training and evaluation (chapters 5 and 6).

In training mode it zeroes each element with probability ``p`` and scales
the survivors by ``1/(1-p)``; after ``model.eval()`` it returns its input
untouched.  It reads ``self.training``, the flag ``train()``/``eval()`` set
on the whole module tree.
"""

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout2d"]


class Dropout(Module):
    """Randomly zero elements during training (a regulariser); identity in eval mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        F._check_p(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """Randomly zero whole channels of ``(N, C, H, W)`` inputs during training (neighbouring
    pixels are correlated, so dropping single pixels regularises little)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)
