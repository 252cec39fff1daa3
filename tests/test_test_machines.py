"""scripts/test_machines.py (``make test-machines``): which configurations exist, which
this machine can run, and how a run's counts are read. The runs themselves are what
``make test-machines`` does; these tests check its decisions on made-up machines."""

import sys

import pytest

from scripts import test_machines as tm

pytestmark = pytest.mark.book


def config(name):
    return next(c for c in tm.configurations() if c.name == name)


def test_every_kernel_thread_count_simd_level_and_python_has_a_configuration():
    names = [c.name for c in tm.configurations()]
    for kernel in ("Sandybridge", "Haswell", "SkylakeX"):
        assert f"kernel={kernel} threads=1" in names
    assert "kernel=Haswell threads=2" in names
    assert any("numpy-simd=baseline" in name for name in names)
    assert "perturb=ulp tests and notebooks" in names
    assert [n for n in names if n.startswith("py")] == [
        "py3.10 make test", "py3.11 make test", "py3.12 make test", "py3.13 make test"]


def test_a_kernel_the_cpu_cannot_run_is_not_run_with_the_missing_flag(monkeypatch):
    monkeypatch.setattr(tm.platform, "machine", lambda: "x86_64")
    avx2_only = {"avx", "avx2", "fma", "sse4_2"}
    assert tm.why_not(config("kernel=SkylakeX threads=1"), avx2_only) == "CPU lacks avx512f"
    assert tm.why_not(config("kernel=Haswell threads=1"), avx2_only) is None
    assert tm.why_not(config("kernel=Haswell threads=1"), {"avx"}) == "CPU lacks avx2"
    with_avx512 = avx2_only | {"avx512f", "avx512bw", "avx512vl", "avx512dq"}
    assert tm.why_not(config("kernel=SkylakeX threads=1"), with_avx512) is None


def test_kernels_are_not_run_on_another_architecture(monkeypatch):
    monkeypatch.setattr(tm.platform, "machine", lambda: "aarch64")
    assert tm.why_not(config("kernel=Haswell threads=1"), set()) == "not an x86-64 CPU (aarch64)"


def test_a_missing_python_is_reported_not_run(monkeypatch):
    monkeypatch.setattr(tm, "find_python", lambda version: None)
    assert "no Python 3.12 found" in tm.why_not(config("py3.12 make test"), set())


def test_find_python_takes_only_an_interpreter_of_that_version():
    running = "%d.%d" % sys.version_info[:2]
    assert tm.is_python(sys.executable, running)
    assert not tm.is_python(sys.executable, "2.7")
    assert not tm.is_python("/nonexistent/python3.99", "3.99")


def test_junit_counts_reads_passed_and_failed(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text('<testsuites><testsuite name="pytest" tests="10" failures="2" '
                      'errors="1" skipped="3"/></testsuites>')
    assert tm.junit_counts(report) == (4, 3)
    assert tm.junit_counts(tmp_path / "missing.xml") is None


def test_the_command_line_lists_and_selects(capsys):
    assert tm.main(["--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [c.name for c in tm.configurations()]


def test_only_the_two_thread_configuration_runs_alone():
    alone = [c.name for c in tm.configurations() if tm.blas_threads(c) > 1]
    assert alone == ["kernel=Haswell threads=2"]


def test_a_kernel_configuration_that_is_make_test_itself_is_not_run(monkeypatch):
    monkeypatch.setattr(tm.platform, "machine", lambda: "x86_64")
    avx512 = {"avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"}
    reason = tm.why_not(config("kernel=SkylakeX threads=1"), avx512, own_kernel="SkylakeX")
    assert reason == "make test's own configuration on this CPU (OpenBLAS picks SkylakeX by itself)"
    # on AMD Zen OpenBLAS runs its Haswell kernels
    assert tm.why_not(config("kernel=Haswell threads=1"), avx512, own_kernel="Zen")
    assert tm.why_not(config("kernel=Haswell threads=1"), avx512, own_kernel="SkylakeX") is None
    # two threads, or numpy's SIMD loops off, are not what make test runs
    assert tm.why_not(config("kernel=Haswell threads=2"), avx512, own_kernel="Haswell") is None
    assert tm.why_not(config("kernel=Sandybridge numpy-simd=baseline threads=1"), avx512,
                      own_kernel="Sandybridge") is None


def test_the_perturbation_configuration_runs_the_tests_and_notebooks_perturbed():
    perturbed = config("perturb=ulp tests and notebooks")
    assert perturbed.perturb == "ulp" and perturbed.kernel is None and perturbed.python is None
    assert perturbed.env["MINITORCH_PERTURB"] == "ulp"
    assert (tm.PERTURB_DIR / "sitecustomize.py").is_file()
    assert perturbed.env["PYTHONPATH"] == str(tm.PERTURB_DIR)
    assert tm.why_not(perturbed, set()) is None


def test_the_probe_sees_whether_the_perturbation_is_on():
    python = sys.executable
    env = tm.base_env(".venv")
    off, error = tm.probe(python, env)
    assert error is None and off["perturb"] is None
    on, error = tm.probe(python, {**env, **config("perturb=ulp tests and notebooks").env})
    assert error is None and on["perturb"] == "ulp"
