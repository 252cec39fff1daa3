"""``make test-launch``: every page runs alone from its launch button.

A launch button (Colab, Binder, a JupyterHub) opens one notebook in a folder that holds
nothing else. On Colab the page's first cell installs minitorch (``pip install
git+`` the book's repository), and that package is all the page has: no other page of the
book, no file of the repository. A page that reads another page's cells, or a data file
that sits beside the notebooks, works in a clone and breaks there.

This script runs every notebook of ``_toc.yml`` that way:

1. a virtual environment ``.venv-launch`` (made once) holds what Colab has preinstalled
   and the pages import: numpy, scipy, matplotlib, scikit-learn, tqdm, graphviz and a
   kernel; nothing else of ``requirements.txt`` (no objgraph, no pytest, no classroom
   tool);
2. a wheel of this working tree, the same package ``pip install git+...`` builds, is
   installed into it (again on every run, so it is the code of the tree), and a check
   that the installed package holds the files chapter 17 and the benchmarks appendix
   need (``minitorch.book``);
3. each notebook is copied alone into an empty temporary folder and run there, top to
   bottom, in a fresh kernel of that environment (nbclient, as ``make torch-diff`` does;
   a cell tagged ``raises-exception`` may raise). Outputs are not compared (nbval does
   that); a page passes when no cell fails.

One line per page; the exit status is 1 when a page fails that is not listed in
``KNOWN`` below, or when a listed page passes (then take it off the list).

    python -m scripts.launch_check                  # every page, two at a time
    python -m scripts.launch_check book/11c_cnn.ipynb --jobs 1

It takes about as long as executing the book once: see ``make test-launch`` in the
Makefile for the time it took.
"""

import argparse
import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-launch"
# What Colab has installed before a page's first cell runs, among what the pages import.
COLAB_LIBRARIES = ("numpy", "scipy", "matplotlib", "scikit-learn", "tqdm", "graphviz",
                   "ipykernel", "nbclient", "nbformat")
# What building the package reads (pyproject.toml's packages, readme and licence files).
PACKAGE_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "LICENSE-text.md",
                   "minitorch", "classroom")
# Pages that cannot run alone yet, with the reason; they are reported, not failed.
KNOWN = {}       # none now

# Run inside .venv-launch: one notebook, in its own folder, in a fresh kernel.
RUN_ONE = r"""
import re, sys, nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
path, timeout = sys.argv[1], int(sys.argv[2])
# A kernel that exits before its first reply (two pages starting at once can be handed
# the same port) is started again, three tries in all.
def execute():
    for attempt in (1, 2, 3):
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": sys.argv[3]}})
        try:
            client.execute()
            return nb
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
            error.nb = nb
            raise
        except RuntimeError as error:
            if "kernel_info" not in str(error) or attempt == 3:
                raise
            print(f"the kernel died while starting ({error}); starting another",
                  file=sys.stderr)
try:
    execute()
except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
    nb = error.nb
    index = next((i for i, c in enumerate(nb.cells) if c.get("cell_type") == "code"
                  and any(o.get("output_type") == "error" for o in c.get("outputs", []))),
                 None)
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))       # no terminal colours
    lines = [l for l in text.splitlines() if l.strip()]
    last = next((l for l in reversed(lines) if re.match(r"^\w+(Error|Exception|Exit)", l)),
                lines[-1] if lines else type(error).__name__)
    print(f"cell {index}: {last}")
    sys.exit(1)
"""

# Run inside .venv-launch, in an empty folder: what chapter 17 and the benchmarks appendix
# take from the package.
PACKAGE_CHECK = r"""
import sys
import minitorch
from minitorch.book import FOLDER
assert "site-packages" in str(FOLDER), FOLDER
for name in ("gpt.py", "book_prose.txt", "README.md", "benchmarks.json",
             "benchmarks.png"):
    assert (FOLDER / name).is_file(), f"the installed package lacks minitorch/book/{name}"
sys.modules.update({"torch": minitorch, "torch.nn": minitorch.nn,
                    "torch.nn.functional": minitorch.nn.functional,
                    "torch.optim": minitorch.optim})
sys.path.insert(0, str(FOLDER))
import gpt
model = gpt.GPT(gpt.GPTConfig(vocab_size=11, block_size=8, n_layer=1, n_head=2, n_embd=8))
text = (FOLDER / "book_prose.txt").read_text(encoding="utf-8")
print(f"minitorch.book: gpt.py imports, {len(text):,} characters of text")
"""


def toc_notebooks():
    """Every notebook page of ``_toc.yml``, in reading order."""
    names = re.findall(r"^\s*(?:-\s*)?(?:file|root):\s*(\S+)", (ROOT / "_toc.yml").read_text(),
                       flags=re.M)
    pages = [ROOT / f"{name}.ipynb" for name in names]
    return [page for page in dict.fromkeys(pages) if page.is_file()]


def clean_env():
    """The environment of a fresh machine: nothing points into this repository."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "JUPYTER_PATH", "PYTHONHOME")}
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_PREFER_ENV_PATH"] = "1"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    for knob in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(knob, "1")      # two pages at a time on two cores
    return env


def run(command, **kwargs):
    return subprocess.run(command, check=True, text=True, **kwargs)


def copy_package_sources(target):
    """The files a build of the package reads, as a clone of this tree holds them: git's
    tracked and not-ignored files (uncommitted edits included), no build leftovers.
    Outside a git checkout (a student's copy of the course, before ``git init``): every
    file under them but Python's caches and build leftovers."""
    done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                           "--", *PACKAGE_SOURCES], cwd=ROOT, text=True, capture_output=True)
    listed = done.stdout.splitlines() if done.returncode == 0 else _files_under(PACKAGE_SOURCES)
    for name in listed:
        path = ROOT / name
        if path.is_file():                          # (a file deleted but not yet staged)
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / name)


def _files_under(names):
    """Relative paths of the files ``names`` (files or folders under ROOT) hold, without
    ``__pycache__``, ``.pyc`` files and ``*.egg-info`` build leftovers."""
    found = []
    for name in names:
        path = ROOT / name
        for file in [path] if path.is_file() else sorted(path.rglob("*")):
            parts = file.relative_to(ROOT).parts
            if file.is_file() and file.suffix != ".pyc" and not any(
                    part == "__pycache__" or part.endswith(".egg-info") for part in parts):
                found.append(file.relative_to(ROOT).as_posix())
    return found


def prepare(python):
    """``.venv-launch`` with Colab's libraries, and a fresh wheel of this tree in it."""
    stamp = VENV / ".launch-stamp"
    wanted = " ".join(COLAB_LIBRARIES)
    if not stamp.is_file() or stamp.read_text() != wanted:
        print(f"[launch] creating {VENV.name} with {wanted}", flush=True)
        run([python, "-m", "venv", "--clear", str(VENV)])
        run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q",
             "--disable-pip-version-check", *COLAB_LIBRARIES])
        stamp.write_text(wanted)
    with tempfile.TemporaryDirectory() as wheels:
        source = pathlib.Path(wheels) / "source"
        copy_package_sources(source)
        run([str(VENV / "bin" / "python"), "-m", "pip", "wheel", "-q", "--no-deps",
             "--disable-pip-version-check", "-w", wheels, str(source)],
            stdout=subprocess.DEVNULL)
        wheel = next(pathlib.Path(wheels).glob("minitorch_book-*.whl"))
        run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
             "--force-reinstall", "--disable-pip-version-check", str(wheel)])
    with tempfile.TemporaryDirectory() as empty:
        result = subprocess.run([str(VENV / "bin" / "python"), "-c", PACKAGE_CHECK],
                                cwd=empty, env=clean_env(), text=True,
                                capture_output=True)
    if result.returncode:
        print("[launch] the installed package is incomplete:\n" + result.stderr[-2000:])
        return False
    print("[launch] " + result.stdout.strip(), flush=True)
    return True


def run_page(path, timeout):
    """(passed, seconds, message): ``path`` run alone in an empty folder."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="launch-") as folder:
        copy = pathlib.Path(folder) / path.name
        shutil.copyfile(path, copy)
        result = subprocess.run(
            [str(VENV / "bin" / "python"), "-c", RUN_ONE, str(copy), str(timeout), folder],
            cwd=folder, env=clean_env(), text=True, capture_output=True)
        leftovers = sorted(p.name for p in pathlib.Path(folder).iterdir() if p != copy)
    seconds = time.perf_counter() - start
    message = (result.stdout.strip() or result.stderr.strip()[-300:]) if result.returncode \
        else ""
    if not result.returncode and leftovers:
        message = "wrote " + ", ".join(leftovers[:5])   # allowed; said for the record
    return result.returncode == 0, seconds, message


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="default: every page of _toc.yml")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter that makes .venv-launch")
    args = parser.parse_args(argv)
    pages = [pathlib.Path(n).resolve() for n in args.notebooks] or toc_notebooks()
    if not prepare(args.python):
        return 1
    start, unexpected = time.perf_counter(), 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_page, page, args.timeout): page for page in pages}
        for future in concurrent.futures.as_completed(futures):
            page = futures[future].stem
            passed, seconds, message = future.result()
            if page in KNOWN:
                verdict = "passed, take it off KNOWN" if passed else "known"
                unexpected += passed
                message = message if passed else f"{message} ({KNOWN[page]})"
            else:
                verdict = "passed" if passed else "FAILED"
                unexpected += not passed
            print(f"{page:32} {verdict:8} {seconds:6.1f} s  {message}", flush=True)
    minutes = (time.perf_counter() - start) / 60
    print(f"[launch] {len(pages)} pages in {minutes:.1f} min, {unexpected} unexpected")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
