"""Benchmarks for minitorch beside hand-written numpy, DeZero and PyTorch (issue #5).

Run them with ``python -m bench.run`` (or ``make bench``, which makes the
``.venv-bench`` environment with the optional peers first).

Every implementation gets the same single thread: the BLAS thread counts are
fixed here, before anything imports numpy (a benchmark started any other way
also calls ``threadpoolctl`` in ``bench.run``, and PyTorch gets
``torch.set_num_threads(1)``).  On a small shared machine, BLAS threads make
the small matrix products of these workloads slower, not faster, and a
comparison is only fair when every implementation runs with the same count.
"""

import os

THREADS = 1
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = str(THREADS)
