"""Run test files with ``minitorch`` replaced by real PyTorch, to check that the
expected values written into them are PyTorch's.

    /work/torchenv/bin/python -m scripts.torch_probes.validate_tests tests/test_promotion.py ...

Every test that encodes PyTorch's behaviour should pass here.  Tests that are
about minitorch itself (its own messages, its book-only helpers) are expected
to fail or be skipped and should not be passed to this command.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    cmd = [sys.executable, "-m", "pytest", "-p", "scripts.torch_probes.torch_as_minitorch",
           "-p", "no:cacheprovider", "-q", *argv]
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
