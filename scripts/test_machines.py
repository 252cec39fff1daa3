"""``make test-machines``: the book's stored outputs on other machines.

A notebook's stored output must be a property of the method, not of the machine
that wrote it (DESIGN.md, section 5). This script checks that by running the
tests under configurations that change what a reader's machine may change:

* OpenBLAS's matrix kernel (``OPENBLAS_CORETYPE``: Sandybridge, Haswell, SkylakeX),
  which OpenBLAS otherwise picks by CPU (on AMD Zen, Haswell's);
* numpy's SIMD loops (``NPY_DISABLE_CPU_FEATURES``: every loop above numpy's
  baseline switched off, AVX2 and AVX-512 among them);
* the number of BLAS threads (``OPENBLAS_NUM_THREADS``: 1 or 2);
* the Python version: the whole ``make test`` on each Python 3.10 to 3.13 found,
  each in its own virtual environment ``.venv-3.X`` (made by scripts/setup.sh),
  except the browser test, which checks the HTML the book was built into;
* the last bits of minitorch's inexact results (``perturb=ulp``): the unit tests and
  the notebooks with every exp, sum and matrix product moved by one ulp
  (scripts/perturb/minitorch_ulp.py), which is how another CPU's numpy loops and BLAS
  kernel differ; it finds an output that depends on them on any CPU, AVX-512 or not.

The kernel, SIMD and thread configurations run the notebooks (``pytest book
--nbval``) with the ``.venv`` Python; the Python configurations run everything else.
A configuration this machine cannot run (SkylakeX's kernels need AVX-512, and
OpenBLAS would stop on an illegal instruction) is reported as not run, with the
reason, and so is a kernel configuration that is ``make test``'s own on this CPU
(the kernel OpenBLAS picks by itself, one thread, numpy's own SIMD loops). There is
no configuration for OpenBLAS's Zen kernels: they are its Haswell kernels (same bits).
Each configuration prints one line:

    kernel=Sandybridge threads=1        passed  604  failed 0  112 s  (BLAS core Sandybridge)

and the exit status is 1 when any configuration that ran failed. Logs are in
``_build/test-machines/``.

    python -m scripts.test_machines                 # everything, two at a time
    python -m scripts.test_machines --list          # the configurations' names
    python -m scripts.test_machines --only py3.12 threads=2 --jobs 1
    python -m scripts.test_machines --skip-python 3.11   # (.ci/run: make test ran it)
    python -m scripts.test_machines --only kernel --notebooks book/10b_loss_and_training.ipynb
"""

import argparse
import concurrent.futures
import dataclasses
import glob
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]
LOGS = ROOT / "_build" / "test-machines"
PYTHON_VERSIONS = ("3.10", "3.11", "3.12", "3.13")

# The CPU flags (as /proc/cpuinfo names them) each OpenBLAS kernel needs.
KERNEL_FLAGS = {"Sandybridge": ("avx",), "Haswell": ("avx2", "fma"),
                "SkylakeX": ("avx512f", "avx512bw", "avx512vl", "avx512dq")}
# Names OpenBLAS may report for the same code: on AMD Zen it picks its Haswell kernels.
SAME_KERNEL = {"Zen": "Haswell"}
PERTURB_DIR = ROOT / "scripts" / "perturb"


@dataclasses.dataclass
class Config:
    """One configuration: a name, the environment it sets, and what it runs."""
    name: str
    env: dict
    kernel: str = None          # the OpenBLAS core type it asks for, if any
    python: str = None          # "3.12": the whole make test on that Python
    perturb: str = None         # "ulp": unit tests and notebooks in that perturbation mode


def configurations():
    """Every configuration, in the order they are reported."""
    one = {"OPENBLAS_NUM_THREADS": "1"}
    configs = [Config(f"kernel={kernel} threads=1", {**one, "OPENBLAS_CORETYPE": kernel},
                      kernel=kernel) for kernel in KERNEL_FLAGS]
    configs.append(Config("kernel=Haswell threads=2",
                          {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "2"},
                          kernel="Haswell"))
    configs.append(Config("kernel=Sandybridge numpy-simd=baseline threads=1",
                          {**one, "OPENBLAS_CORETYPE": "Sandybridge",
                           "NPY_DISABLE_CPU_FEATURES": "<dispatch>"},
                          kernel="Sandybridge"))
    configs.append(Config("perturb=ulp tests and notebooks",
                          {**one, "MINITORCH_PERTURB": "ulp", "PYTHONPATH": str(PERTURB_DIR)},
                          perturb="ulp"))
    configs += [Config(f"py{version} make test", {}, python=version)
                for version in PYTHON_VERSIONS]
    return configs


def blas_threads(config):
    """How many BLAS threads a configuration runs with (the whole-suite runs use one)."""
    return int(config.env.get("OPENBLAS_NUM_THREADS", "1"))


# ----- what this machine can run ---------------------------------------------------------

def cpu_flags():
    """The CPU's feature flags from /proc/cpuinfo (empty when there is none)."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    match = re.search(r"^flags\s*:(.*)$", text, re.M)
    return set(match.group(1).split()) if match else set()


def find_python(version):
    """An interpreter for ``version`` ("3.12") that runs: on PATH, or installed by pyenv
    (a pyenv shim on PATH fails when pyenv has not selected that version)."""
    pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    installed = sorted(glob.glob(f"{pyenv_root}/versions/{version}.*/bin/python"),
                       key=lambda path: [int(n) for n in re.findall(r"\d+", path)[-3:]])
    for candidate in [shutil.which(f"python{version}"), *reversed(installed)]:
        if candidate and is_python(candidate, version):
            return candidate
    return None


_FOUND = {}        # path -> the version it runs ("3.12"), or None when it does not run


def is_python(path, version):
    """Whether ``path`` runs and is Python ``version`` (asked once per path)."""
    if path not in _FOUND:
        code = "import sys; print('%d.%d' % sys.version_info[:2])"
        try:
            done = subprocess.run([path, "-c", code], capture_output=True, text=True,
                                  timeout=60)
            _FOUND[path] = done.stdout.strip() if done.returncode == 0 else None
        except OSError:
            _FOUND[path] = None
    return _FOUND[path] == version


def why_not(config, flags, own_kernel=None):
    """Why this machine cannot run ``config``, or need not, or None when it should.
    ``own_kernel`` is the kernel OpenBLAS picks by itself here (what make test runs)."""
    if config.kernel is not None:
        if platform.machine().lower() not in ("x86_64", "amd64"):
            return f"not an x86-64 CPU ({platform.machine()})"
        missing = [flag for flag in KERNEL_FLAGS[config.kernel] if flag not in flags]
        if flags and missing:
            return f"CPU lacks {missing[0]}"
        if is_make_test_itself(config, own_kernel):
            return (f"make test's own configuration on this CPU (OpenBLAS picks "
                    f"{own_kernel} by itself)")
    if config.python is not None and find_python(config.python) is None:
        return f"no Python {config.python} found (python{config.python} or pyenv)"
    return None


def is_make_test_itself(config, own_kernel):
    """Whether ``config`` runs the notebooks exactly as ``make test`` does on a CPU whose
    own OpenBLAS kernel is ``own_kernel``: the same kernel, one thread, numpy's own SIMD."""
    same = SAME_KERNEL.get(own_kernel, own_kernel)
    return (config.kernel is not None and same == SAME_KERNEL.get(config.kernel, config.kernel)
            and set(config.env) == {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS"}
            and config.env["OPENBLAS_NUM_THREADS"] == "1")


def numpy_dispatch_features(python):
    """The SIMD features numpy may dispatch to above its baseline (AVX2, AVX512F,
    ... in numpy 2.0-2.3; X86_V3, X86_V4, ... from 2.4): switching them all off leaves
    numpy's baseline loops. Asked of numpy itself, since the names vary by version."""
    code = ("from numpy._core._multiarray_umath import __cpu_dispatch__ as d;"
            "print(' '.join(d))")
    return subprocess.run([python, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT).stdout.strip()


PROBE = """
import json, sys, numpy as np, threadpoolctl
from numpy._core._multiarray_umath import __cpu_features__ as features
a = np.ones((64, 64)); a @ a
blas = [i for i in threadpoolctl.threadpool_info() if i.get("internal_api") == "openblas"]
perturb = sys.modules.get("minitorch_ulp")
print(json.dumps({"core": blas[0]["architecture"] if blas else None,
                  "threads": blas[0]["num_threads"] if blas else None,
                  "simd": sorted(k for k, on in features.items() if on),
                  "perturb": perturb.active() if perturb else None}))
"""


def probe(python, env):
    """What numpy and OpenBLAS really use under ``env`` (a dict), or an error text."""
    done = subprocess.run([python, "-c", PROBE], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    import json
    return json.loads(done.stdout), None


def own_blas_kernel():
    """The kernel OpenBLAS picks by itself on this CPU (for .venv's numpy), or None."""
    seen, error = probe(str(ROOT / ".venv" / "bin" / "python"), base_env(".venv"))
    return None if error else seen["core"]


# ----- running one configuration ---------------------------------------------------------

def base_env(venv):
    """The environment ``make test`` gives its commands, with ``venv`` first on PATH."""
    env = dict(os.environ)
    for key in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "OPENBLAS_NUM_THREADS",
                "MINITORCH_PERTURB"):
        env.pop(key, None)
    env.update(PATH=f"{ROOT / venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               JUPYTER_PREFER_ENV_PATH="1", PYDEVD_DISABLE_FILE_VALIDATION="1",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def junit_counts(path):
    """(passed, failed) from a pytest JUnit XML report (errors count as failed)."""
    try:
        suites = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [suites] if suites.tag == "testsuite" else suites.findall("testsuite")
    total = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    return total - failed - skipped, failed


def junit_failures(path, limit=10):
    """The ids and first message lines of the failed tests in a JUnit XML report.

    CI shows only this script's output, not the logs, so a failing configuration
    names its failing tests right there.
    """
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return []
    found = []
    for case in root.iter("testcase"):
        for problem in (*case.findall("failure"), *case.findall("error")):
            message = (problem.get("message") or problem.text or "").strip().splitlines()
            first = re.sub(r"(\x1b|#x1B)\[[0-9;]*m", "", message[0])[:200] if message else ""
            found.append(f"{case.get('classname')}::{case.get('name')}  {first}")
    return found[:limit]


def prepare_venv(config):
    """Create or update ``.venv-3.X`` with scripts/setup.sh; a report line if it failed."""
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{slug(config.name)}-setup.log"
    env = dict(os.environ, PYTHON=find_python(config.python), VENV=f".venv-{config.python}")
    with open(log, "w") as out:
        done = subprocess.run(["scripts/setup.sh"], stdout=out, stderr=subprocess.STDOUT,
                              env=env, cwd=ROOT)
    if done.returncode != 0:
        return (f"{config.name:<50} FAILED: could not set up .venv-{config.python}  "
                f"log {log.relative_to(ROOT)}")
    return None


# The browser test reads the HTML that `make book` built with .venv's Python; run under
# another Python it would check the same pages again.
SAME_ON_EVERY_PYTHON = "tests/browser"


def slug(name):
    return re.sub(r"[^\w.=-]+", "_", name)


def run_config(config, args):
    """Run one configuration; returns its report line and whether it failed."""
    LOGS.mkdir(parents=True, exist_ok=True)
    log, junit = LOGS / f"{slug(config.name)}.log", LOGS / f"{slug(config.name)}.xml"
    junit.unlink(missing_ok=True)
    start = time.monotonic()
    if config.python is None:
        venv = ".venv"
        python = str(ROOT / venv / "bin" / "python")
        env = base_env(venv)
        for key, value in config.env.items():
            env[key] = numpy_dispatch_features(python) if value == "<dispatch>" else value
        seen, error = probe(python, env)
        if error:
            return f"{config.name:<50} FAILED before testing: {error}", True
        if config.kernel and seen["core"] != config.kernel:
            return (f"{config.name:<50} FAILED: OpenBLAS runs {seen['core']}, not "
                    f"{config.kernel}"), True
        if seen["perturb"] != config.perturb:
            return (f"{config.name:<50} FAILED: perturbation mode {seen['perturb']}, not "
                    f"{config.perturb}"), True
        tests = ["tests", f"--ignore={SAME_ON_EVERY_PYTHON}"] if config.perturb else []
        command = [python, "-m", "pytest", *tests, *args.notebooks, "--nbval",
                   "--nbval-current-env", "--nbval-sanitize-with", "book/sanitize.cfg",
                   f"--nbval-cell-timeout={args.cell_timeout}", "-q", "-p",
                   "no:cacheprovider", f"--junitxml={junit}", *args.pytest_args]
        detail = f"BLAS core {seen['core']}, {seen['threads']} thread(s)"
        if config.perturb:
            detail += f", perturbation {config.perturb}"
    else:
        venv = f".venv-{config.python}"
        env = base_env(venv)
        command = ["make", "test", f"PYTHON={find_python(config.python)}", f"VENV={venv}",
                   f"PYTEST_ARGS=-p no:cacheprovider --junitxml={junit} "
                   f"--ignore={SAME_ON_EVERY_PYTHON} " + " ".join(args.pytest_args)]
        detail = f"{find_python(config.python)}, {venv}"
    with open(log, "w") as out:
        out.write(f"$ {' '.join(command)}\n# env: {config.env}\n")
        out.flush()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    seconds = time.monotonic() - start
    counts = junit_counts(junit)
    failed = done.returncode != 0
    if counts is None:
        return (f"{config.name:<50} FAILED (exit {done.returncode}, no test report) "
                f"{seconds:5.0f} s  log {log.relative_to(ROOT)}"), True
    passed, failures = counts
    verdict = "FAILED" if failed else "ok    "
    line = (f"{config.name:<50} {verdict} passed {passed:5} failed {failures:3} "
            f"{seconds:5.0f} s  ({detail})")
    if failed:
        line += f"  log {log.relative_to(ROOT)}"
        line += "".join(f"\n    {failure}" for failure in junit_failures(junit))
    return line, failed


# ----- the command line -------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the configurations")
    parser.add_argument("--only", nargs="+", default=[],
                        help="run only configurations whose name contains one of these")
    parser.add_argument("--skip", nargs="+", default=[], metavar="NAME",
                        help="configurations not to run (their whole names, as --list prints)")
    parser.add_argument("--skip-python", nargs="+", default=[], metavar="3.X",
                        help="Python versions not to run the whole suite on")
    parser.add_argument("--jobs", type=int, default=2, help="configurations run at once")
    parser.add_argument("--cell-timeout", type=int, default=900,
                        help="seconds a cell may take (2 BLAS threads on a busy "
                             "machine are slow)")
    parser.add_argument("--notebooks", nargs="+", default=["book"],
                        help="the notebooks the kernel, SIMD, thread and perturbation "
                             "configurations run")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)

    configs = [c for c in configurations()
               if (not args.only or any(word in c.name for word in args.only))
               and c.python not in args.skip_python and c.name not in args.skip]
    if args.list:
        print("\n".join(c.name for c in configurations()))
        return 0
    flags = cpu_flags()
    own_kernel = own_blas_kernel() if any(c.kernel for c in configs) else None
    runnable, lines = [], {}
    for config in configs:
        reason = why_not(config, flags, own_kernel)
        if reason:
            lines[config.name] = f"{config.name:<50} not run: {reason}"
        else:
            runnable.append(config)
    print(f"test-machines: {len(runnable)} configurations to run, {args.jobs} at a time; "
          f"logs in {LOGS.relative_to(ROOT)}/", flush=True)
    for config in configs:
        if config.name in lines:
            print(lines[config.name], flush=True)
    start, any_failed, lock = time.monotonic(), False, threading.Lock()
    for config in [c for c in runnable if c.python is not None]:
        line = prepare_venv(config)         # one at a time: pip builds minitorch in place
        if line:
            print(line, flush=True)
            runnable.remove(config)
            any_failed = True
    # A configuration with several BLAS threads runs alone: beside another one, its
    # threads would wait for cores the other holds, and a cell could take ten times as long.
    shared = [c for c in runnable if blas_threads(c) == 1]
    alone = [c for c in runnable if blas_threads(c) > 1]
    for group, jobs in ((shared, args.jobs), (alone, 1)):
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(run_config, config, args): config for config in group}
            for future in concurrent.futures.as_completed(futures):
                line, failed = future.result()
                with lock:
                    any_failed |= failed
                    print(line, flush=True)
    print(f"test-machines: {'FAILED' if any_failed else 'all passed'} in "
          f"{time.monotonic() - start:.0f} s", flush=True)
    return 1 if any_failed else 0


if __name__ == "__main__":
    sys.exit(main())
