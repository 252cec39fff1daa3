"""Finding a renderer: dot, else graphviz-pure, else one clear error; and lazy imports."""

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import pytest
from graphviz.backend import dot_command

import minitorch as torch
from minitorch.viz import RendererNotFoundError, draw_graph, draw_refs, to_svg
from minitorch.viz import _render

SCRIPTS = sysconfig.get_path("scripts")
PURE = os.path.join(SCRIPTS, "graphviz-pure" + (".exe" if os.name == "nt" else ""))
needs_pure = pytest.mark.skipif(not os.path.isfile(PURE), reason="graphviz-pure is not installed")


@pytest.fixture
def fresh_renderer(monkeypatch):
    """Forget the renderer found so far, and restore graphviz's setting afterwards."""
    monkeypatch.setattr(dot_command, "DOT_BINARY", dot_command.DOT_BINARY)
    _render._forget_renderer()
    yield
    _render._forget_renderer()


@pytest.fixture
def only_pure_on_path(tmp_path, monkeypatch, fresh_renderer):
    """PATH holds graphviz-pure and nothing else; the scripts folder is empty."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(PURE, bin_dir / "graphviz-pure")
    monkeypatch.setenv("PATH", str(bin_dir))
    empty = tmp_path / "scripts"
    empty.mkdir()
    monkeypatch.setattr(sysconfig, "get_path", lambda name, *a, **k: str(empty))
    return bin_dir / "graphviz-pure"


@pytest.fixture
def nothing_installed(tmp_path, monkeypatch, fresh_renderer):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(sysconfig, "get_path", lambda name, *a, **k: str(empty))


def picture():
    x = torch.ones(2, requires_grad=True)
    return draw_graph((x * x).sum(), names={"x": x})


@pytest.mark.skipif(shutil.which("dot") is None, reason="no system Graphviz")
def test_dot_is_preferred_when_present(fresh_renderer):
    assert _render.find_renderer() == pathlib.Path(shutil.which("dot"))
    svg = to_svg(picture())
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "MulBackward0" in svg


@needs_pure
def test_graphviz_pure_on_path_is_used(only_pure_on_path):
    assert shutil.which("dot") is None
    svg = to_svg(picture())
    assert "<svg" in svg and "MulBackward0" in svg and "graphviz-pure" in svg
    assert dot_command.DOT_BINARY == only_pure_on_path


@needs_pure
def test_graphviz_pure_next_to_python_is_found_without_path(tmp_path, monkeypatch, fresh_renderer):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))          # an environment that is not activated
    assert _render.find_renderer() == pathlib.Path(PURE)
    assert "<svg" in to_svg(draw_refs({"a": [1]}))
    assert dot_command.DOT_BINARY == pathlib.Path(PURE)


@needs_pure
def test_jupyter_display_uses_the_found_renderer(only_pure_on_path):
    bundle = picture()._repr_mimebundle_()
    svg = bundle["image/svg+xml"]
    assert "<svg" in svg and "graphviz-pure" in svg


def test_no_renderer_is_one_clear_error(nothing_installed):
    g = picture()                                   # drawing needs no renderer
    assert "MulBackward0" in g.source               # and the DOT text is there
    for render in (lambda: to_svg(g), lambda: g.pipe(format="svg"), lambda: g.render("/tmp/never")):
        with pytest.raises(RendererNotFoundError) as info:
            render()
        assert isinstance(info.value, RuntimeError)
        message = str(info.value)
        assert "apt-get install graphviz" in message
        assert "pip install graphviz-pure" in message
        assert ".source" in message


def test_no_renderer_in_jupyter_shows_the_message(nothing_installed):
    bundle = picture()._repr_mimebundle_()
    assert set(bundle) == {"text/plain"}
    assert "pip install graphviz-pure" in bundle["text/plain"]


def test_to_svg_of_a_plain_graphviz_graph_reports_the_same_error(nothing_installed):
    import graphviz
    with pytest.raises(RendererNotFoundError):
        to_svg(graphviz.Digraph(body=["a -> b"]))


def test_renderer_installed_later_is_found(tmp_path, monkeypatch, nothing_installed):
    with pytest.raises(RendererNotFoundError):
        to_svg(picture())
    if not os.path.isfile(PURE):
        pytest.skip("graphviz-pure is not installed")
    bin_dir = tmp_path / "later"
    bin_dir.mkdir()
    os.symlink(PURE, bin_dir / "graphviz-pure")
    monkeypatch.setenv("PATH", str(bin_dir))
    assert "<svg" in to_svg(picture())


def run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_minitorch_does_not_import_graphviz():
    result = run("import minitorch, sys; "
                 "assert 'graphviz' not in sys.modules, 'graphviz imported'; "
                 "assert 'matplotlib' not in sys.modules, 'matplotlib imported'; "
                 "assert 'minitorch.viz' not in sys.modules, 'viz imported'")
    assert result.returncode == 0, result.stderr


def test_import_minitorch_viz_imports_graphviz_only_when_drawing():
    result = run("import minitorch.viz, sys; assert 'graphviz' not in sys.modules; "
                 "minitorch.viz.draw_refs([[1]]); assert 'graphviz' in sys.modules")
    assert result.returncode == 0, result.stderr
