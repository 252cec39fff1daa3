"""``make test-launch`` (scripts/launch_check.py) and what it relies on: the pages of
``_toc.yml``, each once, and a wheel of minitorch that carries the files chapter 17 and the
benchmarks appendix need (``minitorch/book``), since on Colab the installed package is all a
page has."""

import pathlib
import subprocess
import sys
import zipfile

import pytest

from scripts import launch_check

pytestmark = pytest.mark.book

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_notebook_of_the_table_of_contents_runs_once():
    pages = launch_check.toc_notebooks()
    names = [page.stem for page in pages]
    assert len(names) == len(set(names))
    assert names[0] == "01_refcount" and "08e_parametrizations" in names
    listed = {line.split("file:")[1].strip().split("/")[-1]
              for line in (ROOT / "_toc.yml").read_text().splitlines()
              if "file:" in line and not line.lstrip().startswith("#")}
    assert set(names) == {name for name in listed if (ROOT / "book" / f"{name}.ipynb").is_file()}


def test_the_known_exceptions_are_pages_of_the_book():
    names = {page.stem for page in launch_check.toc_notebooks()}
    assert set(launch_check.KNOWN) <= names


def test_the_clean_environment_points_nowhere_into_the_repository(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    env = launch_check.clean_env()
    assert "PYTHONPATH" not in env
    assert env["PATH"].split(":")[0] == str(launch_check.VENV / "bin")


@pytest.mark.slow
def test_the_wheel_carries_chapter_17s_program_and_text_and_the_benchmarks(tmp_path):
    source = tmp_path / "source"
    launch_check.copy_package_sources(source)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--disable-pip-version-check", "-w", str(tmp_path), str(source)],
                   check=True, capture_output=True)
    wheel, = tmp_path.glob("minitorch_book-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("gpt.py", "book_prose.txt", "README.md", "__init__.py",
                 "benchmarks.json", "benchmarks.png"):
        assert f"minitorch/book/{name}" in names
    text = zipfile.ZipFile(wheel).read("minitorch/book/book_prose.txt").decode("utf-8")
    assert text == (ROOT / "minitorch" / "book" / "book_prose.txt").read_text(encoding="utf-8")
    # the benchmarks appendix reads these: the results of bench/results
    for copy, name in (("benchmarks.json", "latest.json"), ("benchmarks.png", "latest.png")):
        shipped = zipfile.ZipFile(wheel).read(f"minitorch/book/{copy}")
        assert shipped == (ROOT / "bench" / "results" / name).read_bytes()


def test_a_copy_without_git_gives_its_package_files_but_no_leftovers(tmp_path, monkeypatch):
    """A student's copy of the course is not a git checkout until they make it one: the
    package's files are then found by walking the folders (its `make test` runs this)."""
    tree = tmp_path / "copy"
    for name in ("pyproject.toml", "README.md", "minitorch/__init__.py",
                 "minitorch/book/gpt.py", "minitorch/__pycache__/x.cpython-311.pyc",
                 "minitorch/stale.pyc", "minitorch_book.egg-info/PKG-INFO", "notes.txt"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(name)
    monkeypatch.setattr(launch_check, "ROOT", tree)
    target = tmp_path / "source"
    launch_check.copy_package_sources(target)
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert copied == ["README.md", "minitorch/__init__.py", "minitorch/book/gpt.py",
                      "pyproject.toml"]


def fake_nbclient(deaths):
    """Stand-ins for nbclient's modules whose first ``deaths`` kernels exit at start."""
    import types
    exceptions = types.ModuleType("nbclient.exceptions")
    for name in ("CellExecutionError", "CellTimeoutError"):
        setattr(exceptions, name, type(name, (Exception,), {}))
    exceptions.DeadKernelError = type("DeadKernelError", (RuntimeError,), {})
    starts = []

    class NotebookClient:
        def __init__(self, nb, **kwargs):
            self.nb = nb

        def execute(self):
            starts.append(self)
            if len(starts) <= deaths:
                raise RuntimeError("Kernel died before replying to kernel_info")
    client = types.ModuleType("nbclient")
    client.NotebookClient = NotebookClient
    return {"nbclient": client, "nbclient.exceptions": exceptions}, starts


@pytest.mark.parametrize("deaths, runs", [(0, 1), (2, 3)])
def test_a_page_whose_kernel_dies_while_starting_runs_in_another(tmp_path, monkeypatch,
                                                                  deaths, runs):
    import nbformat
    page = tmp_path / "page.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), page)
    modules, starts = fake_nbclient(deaths)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(sys, "argv", ["-c", str(page), "60", str(tmp_path)])
    exec(launch_check.RUN_ONE, {"__name__": "__main__"})
    assert len(starts) == runs


def test_a_page_whose_kernel_never_starts_fails(tmp_path, monkeypatch):
    import nbformat
    page = tmp_path / "page.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), page)
    modules, starts = fake_nbclient(deaths=3)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(sys, "argv", ["-c", str(page), "60", str(tmp_path)])
    with pytest.raises(RuntimeError, match="kernel_info"):
        exec(launch_check.RUN_ONE, {"__name__": "__main__"})
    assert len(starts) == 3
