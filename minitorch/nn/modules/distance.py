"""``nn.CosineSimilarity``: the cosine of the angle between two batches of vectors
(chapter 10; the computation is ``nn.functional.cosine_similarity``)."""

from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Module):
    """``x1 . x2 / (|x1| |x2|)`` along ``dim``, each norm at least ``eps``."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
