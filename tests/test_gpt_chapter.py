"""Chapter 17's claims about its text and its model: the bundled text is the book's prose
reduced to printable ASCII, with its source and licence stated; the GPT of
``minitorch/book/gpt.py`` does not read the future, counts a tied weight once, decays only
matrices, and samples greedily with ``top_k=1``."""

import pathlib

import numpy as np
import pytest

import minitorch

from .torch_as import import_file, import_on_minitorch

pytestmark = pytest.mark.chapter17

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "minitorch" / "book"


@pytest.fixture(scope="module")
def gpt():
    return import_on_minitorch(DATA / "gpt.py", "gpt_chapter17")


@pytest.fixture(scope="module")
def make_text():
    return import_file(ROOT / "scripts" / "make_book_text.py", "make_book_text")


def small_model(gpt, **changes):
    minitorch.manual_seed(0)
    config = dict(vocab_size=13, block_size=8, n_layer=2, n_head=2, n_embd=16, gelu="tanh")
    config.update(changes)
    return gpt.GPT(gpt.GPTConfig(**config)).double()


def test_the_bundled_text_is_printable_ascii_of_a_few_hundred_kilobytes():
    text = (DATA / "book_prose.txt").read_text(encoding="utf-8")
    assert 100_000 < len(text) < 400_000
    assert all(c == "\n" or " " <= c <= "~" for c in text)
    assert "```" not in text and "{term}" not in text


def test_the_data_readme_states_source_and_licence():
    readme = (DATA / "README.md").read_text()
    assert "book_prose.txt" in readme and "make_book_text.py" in readme
    assert "CC BY 4.0" in readme


def test_paragraphs_drop_code_math_and_directives_and_keep_role_text(make_text):
    markdown = ("Intro with a {term}`reference count` and {ref}`posts <refs>`.\n\n"
                "```python\nx = 1\n```\n\n$$a^2$$\n\n"
                "```{admonition} Answer\n:class: dropdown\nhidden\n```\n\n"
                "## A heading\n\n- one;\n- two.")
    assert make_text.paragraphs(markdown) == [
        "Intro with a reference count and posts.", "A heading", "- one;\n- two."]


def test_ascii_only_replaces_known_symbols_and_strips_accents(make_text):
    assert make_text.ascii_only("caf\u00e9 \u2192 x\u00d7y \u2014 \u201cok\u201d") == \
        'cafe -> xxy - "ok"'


@pytest.mark.parametrize("fused", [True, False], ids=["sdpa", "written-out"])
def test_changing_the_last_token_moves_only_the_last_logits(gpt, fused):
    model = small_model(gpt, fused_attention=fused)
    window = minitorch.tensor(np.arange(8)[None] % 13)
    changed = window.clone()
    changed[0, -1] = 12
    with minitorch.no_grad():
        moved = (model(changed)[0] - model(window)[0]).abs().amax(dim=-1)[0]
    assert moved[:-1].max().item() == 0.0
    assert moved[-1].item() > 0.0


def test_a_tied_weight_is_counted_once_and_decayed_once(gpt):
    model = small_model(gpt)
    assert model.tok_emb.weight is model.head.weight
    shapes = [p.shape for p in model.parameters()]
    assert model.num_params() == sum(int(np.prod(s)) for s in shapes)
    optimizer = model.configure_optimizers(0.1, 1e-3)
    decay, no_decay = optimizer.param_groups
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    assert all(p.dim() >= 2 for p in decay["params"])
    assert all(p.dim() == 1 for p in no_decay["params"])
    assert len(decay["params"]) + len(no_decay["params"]) == len(shapes)


def test_top_k_one_samples_the_greedy_continuation(gpt):
    model = small_model(gpt)
    start = minitorch.tensor([[1, 2, 3]])
    out = model.generate(start, 5, top_k=1, generator=minitorch.Generator().manual_seed(0))
    idx = start
    for _ in range(5):
        logits, _ = model(idx)
        idx = minitorch.cat((idx, logits[:, -1].argmax(-1, keepdim=True)), dim=1)
    assert out.tolist() == idx.tolist()
