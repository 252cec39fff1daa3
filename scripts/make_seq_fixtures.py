"""Record PyTorch's results for the differential cases of ``tests/nn/seq_cases.py`` (run by
hand, needs torch): ``python scripts/make_seq_fixtures.py`` writes
``tests/nn/data/seq_pytorch.npz``, which the Part V tests compare minitorch against."""

import importlib.util
import pathlib

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "nn" / "data" / "seq_pytorch.npz"


def main():
    torch.set_num_threads(1)
    spec = importlib.util.spec_from_file_location("seq_cases", ROOT / "tests/nn/seq_cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    out = {}
    for name, run in cases.CASES.items():
        for key, value in run(torch).items():
            out[f"{name}:{key}"] = value
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(cases.CASES)} cases to {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
